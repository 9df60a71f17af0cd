"""Events: `RecordEvent` values returned by every instruction and accepted as trailing wait events.

ptoisa runs instructions in program order, synchronously (DECISIONS 17), so events never change a result; they are
checked (a wait event must be an event) and recorded, so that programs written with explicit synchronisation run
unchanged.
"""

from __future__ import annotations

from enum import StrEnum
from operator import itemgetter
from typing import Any

from .errors import IllegalInstructionError


class Pipe(StrEnum):
    """Hardware pipes an instruction issues on (reference-facts section 2)."""

    S = "PIPE_S"
    V = "PIPE_V"
    MTE2 = "PIPE_MTE2"
    M = "PIPE_M"


class RecordEvent(tuple):  # noqa: SLOT001 - slots below
    """What an instruction returns: the op that completed (`op`) and the pipe it issued on (`pipe`), as the tuple
    `(op, pipe)`. The C++ `RecordEvent` is an empty struct, so nothing else is carried: every call of an op
    returns the same object (`record(op, pipe)`), made once. A program only passes events on as wait events."""

    __slots__ = ()
    _fields = ("op", "pipe")

    op = property(itemgetter(0), doc="The instruction's name.")
    pipe = property(itemgetter(1), doc="The pipe it issued on.")

    def __repr__(self) -> str:
        return f"RecordEvent(op={self[0]!r}, pipe={str(self[1])!r})"

    def Wait(self) -> None:  # noqa: N802 - the C++ method's name
        """Waiting is immediate: the op has already completed."""


_EVENTS: dict[tuple[str, Pipe], RecordEvent] = {}


def record(op: str, pipe: Pipe) -> RecordEvent:
    """The event `op` on `pipe` returns (one object per op and pipe: the entries hold it and return it as is,
    which costs nothing per call)."""
    event = _EVENTS.get((op, pipe))
    if event is None:
        event = _EVENTS[op, pipe] = RecordEvent((op, pipe))
    return event


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
