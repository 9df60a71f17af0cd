"""Errors of the interpreter.

Errors raised by the core while a kernel runs (IllegalInstructionError, TileSpecError, PlacementError, ...) keep
their type and message; the interpreter adds an exception note naming the op and its source location:

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)
    note: in pto.tcmps at kernel.pto:12:5

Problems the interpreter itself finds are `InterpError`s (a `PtoError`) whose message carries the location.
"""

from __future__ import annotations

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
