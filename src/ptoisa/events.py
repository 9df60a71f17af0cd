"""Events: `RecordEvent` values returned by every instruction and accepted as trailing wait events.

ptoisa runs instructions in program order, synchronously (DECISIONS 17), so events never change a result; they are
checked (a wait event must be an event) and recorded, so that programs written with explicit synchronisation run
unchanged.
"""

from __future__ import annotations

import itertools
from enum import StrEnum
from typing import Any, NamedTuple

from .errors import IllegalInstructionError


class Pipe(StrEnum):
    """Hardware pipes an instruction issues on (reference-facts section 2)."""

    S = "PIPE_S"
    V = "PIPE_V"
    MTE2 = "PIPE_MTE2"
    M = "PIPE_M"


_SEQUENCE = itertools.count(1)
next_event_number = _SEQUENCE.__next__


class RecordEvent(NamedTuple):
    """What an instruction returns: the op that completed, its pipe and a sequence number."""

    op: str
    pipe: Pipe
    seq: int

    def Wait(self) -> None:
        """Waiting is immediate: the op has already completed."""


_NEW = tuple.__new__


def record(op: str, pipe: Pipe) -> RecordEvent:
    return _NEW(RecordEvent, (op, pipe, next(_SEQUENCE)))  # the NamedTuple without its __new__ (3x cheaper)


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
