"""Errors of the interpreter.

Errors raised by the core while a kernel runs (IllegalInstructionError, TileSpecError, PlacementError, ...) keep
their type and message; the interpreter adds an exception note naming the op and its source location:

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)
    note: in pto.tcmps at kernel.pto:12:5

Problems the interpreter itself finds are `InterpError`s (a `PtoError`) whose message carries the location.
"""

from __future__ import annotations

from typing import Any

from ..errors import PtoError


class InterpError(PtoError):
    """Root of the interpreter's own errors. `location` is `file:line:col` (or None) and `op` the op name."""

    def __init__(self, message: str, *, op: str | None = None, location: str | None = None) -> None:
        self.op = op
        self.location = location
        where = f" (in {op} at {location})" if op and location else (f" (at {location})" if location else "")
        super().__init__(message + where)


class LoadError(InterpError, ValueError):
    """The text does not parse or verify, or a function cannot be decoded (an op the interpreter lacks)."""


class UnreadableSourceError(LoadError):
    """The file cannot be read at all (missing, unreadable, not UTF-8)."""


class UnsupportedOpError(LoadError):
    """An op the interpreter cannot execute (found when its function is decoded, before anything runs)."""


class ArgumentError(InterpError, ValueError):
    """The arguments of a run do not fit the entry function (count, names, dtype, shape, value)."""


class UnknownEntryError(ArgumentError, LookupError):
    """No function of that name, or no entry given where the module has several candidates."""


class ExecutionError(InterpError, RuntimeError):
    """A run-time fault the interpreter detects: division by zero, an access outside a global tensor, a view or
    valid size that does not fit, a conversion without a defined result."""


class LimitError(ExecutionError):
    """A limit of the run was reached (steps, time, bytes of one allocation); nothing past it ran."""


def location_of(exc: BaseException) -> str | None:
    """The `file:line:col` an execution error was located at (None if it was not raised by a running op)."""
    where = getattr(exc, "pto_where", None)
    return where[1] if where else None


CALLS_KEPT = 10
"""Call-chain notes kept on an exception: the innermost and the outermost CALLS_KEPT // 2 lines, and one line
saying how many frames between them were left out."""


def add_call_note(exc: BaseException, where: str) -> None:
    """Note that `exc` passed up through the func.call at `where` (called innermost frame first). Consecutive
    frames at the same call (a recursion) share one line with their count; past CALLS_KEPT lines the middle of
    the chain is one line saying how many frames it held. The notes are rewritten in place, so the exception's
    `__notes__` (API users) and the CLI's lines are the same."""
    calls: list[list[Any]] | None = getattr(exc, "pto_calls", None)
    if calls is None:  # the first call on the way up: the call lines start after the notes so far
        calls = []
        exc.pto_calls = calls  # type: ignore[attr-defined]
        exc.pto_calls_at = len(getattr(exc, "__notes__", ()))  # type: ignore[attr-defined]
    if calls and calls[-1][0] == where:
        calls[-1][1] += 1
    else:
        calls.append([where, 1])
    lines = [f"called from func.call at {w}" + (f" ({n} times in a row)" if n > 1 else "") for w, n in calls]
    if len(calls) > CALLS_KEPT:
        half = CALLS_KEPT // 2
        left_out = sum(n for _, n in calls[half:len(calls) - half])
        lines = lines[:half] + [f"... {left_out} more call frames left out ..."] + lines[len(calls) - half:]
    if not hasattr(exc, "__notes__"):
        exc.__notes__ = []  # type: ignore[attr-defined]
    exc.__notes__[exc.pto_calls_at:] = lines  # type: ignore[attr-defined]
