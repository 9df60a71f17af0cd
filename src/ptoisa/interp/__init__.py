"""Execute PTOAS text: decode functions once into closures and run them through the core kernels.

    from ptoisa.interp import load
    program = load("kernel.pto")                      # parse + verify; functions decode on first run
    result = program.run(x, out, 0.5, target="a5")    # NumPy arrays for global tensors, numbers for scalars
    result.outputs                                    # {"out": out}: the tensors the kernel wrote, in place

See `Program.run` for arguments, `FILL_MODES` for the deterministic fill of tiles made by `pto.alloc_tile`, and
`errors` for how failures are reported (core errors keep their type and gain a note `in <op> at file:line:col`).
"""

from __future__ import annotations

from .errors import (
    ArgumentError,
    ExecutionError,
    InterpError,
    LimitError,
    LoadError,
    UnknownEntryError,
    UnsupportedOpError,
    location_of,
)
from .program import FILL_MODES, Argument, Limits, Program, RunResult, load

__all__ = [
    "FILL_MODES", "Argument", "ArgumentError", "ExecutionError", "InterpError", "LimitError", "Limits", "LoadError",
    "Program", "RunResult",
    "UnknownEntryError", "UnsupportedOpError", "load", "location_of",
]
