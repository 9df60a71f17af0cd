"""Events: `RecordEvent` values returned by every instruction and accepted as trailing wait events.

ptoisa runs instructions in program order, synchronously (DECISIONS 17), so events never change a result; they are
checked (a wait event must be an event) and recorded, so that programs written with explicit synchronisation run
unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from enum import StrEnum
from itertools import repeat
from operator import itemgetter
from typing import Any

from .errors import IllegalInstructionError


class Pipe(StrEnum):
    """Hardware pipes an instruction issues on (reference-facts section 2)."""

    S = "PIPE_S"
    V = "PIPE_V"
    MTE2 = "PIPE_MTE2"
    M = "PIPE_M"


_SEQUENCE = itertools.count(1)
next_event_number = _SEQUENCE.__next__


class RecordEvent(tuple):  # noqa: SLOT001 - slots below
    """What an instruction returns: the op that completed (`op`), its pipe (`pipe`) and a sequence number
    (`seq`, increasing in program order). A tuple `(op, pipe, seq)`; instructions make them, a program only
    passes them on as wait events (`RecordEvent((op, pipe, seq))` builds one)."""

    __slots__ = ()
    _fields = ("op", "pipe", "seq")

    op = property(itemgetter(0), doc="The instruction's name.")
    pipe = property(itemgetter(1), doc="The pipe it issued on.")
    seq = property(itemgetter(2), doc="Its sequence number: later instructions have larger ones.")

    def __repr__(self) -> str:
        return f"RecordEvent(op={self[0]!r}, pipe={self[1]!r}, seq={self[2]!r})"

    def Wait(self) -> None:  # noqa: N802 - the C++ method's name
        """Waiting is immediate: the op has already completed."""


def record(op: str, pipe: Pipe) -> RecordEvent:
    return RecordEvent((op, pipe, next_event_number()))


def event_stream(op: str, pipe: Pipe) -> Callable[[], RecordEvent]:
    """`next()` of an endless stream of `op`'s events, numbered from the one sequence: `record(op, pipe)` for a
    fixed op and pipe made in C (map, zip, repeat), without a Python frame."""
    return map(RecordEvent, zip(repeat(op), repeat(pipe), _SEQUENCE)).__next__


def is_event(value: Any) -> bool:
    return type(value) is RecordEvent


def check_events(instr: str, target: str, events: tuple[Any, ...]) -> None:
    for position, event in enumerate(events, start=1):
        if not isinstance(event, RecordEvent):
            raise IllegalInstructionError(
                instr, target, f"wait event #{position}",
                f"must be a RecordEvent returned by an earlier instruction (got {type(event).__name__})",
            )


def TSYNC(*events: RecordEvent) -> None:
    """Wait for events; a no-op in program-order execution, but the arguments are checked."""
    check_events("TSYNC", "any", events)
