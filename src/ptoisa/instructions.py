"""Every registered instruction record as a module attribute: `from ptoisa.instructions import TADD`.

The records are callable with the C++ intrinsic's arguments (`TADD(dst, src0, src1, *events, target=None)`);
`ptoisa.TADD` and `from ptoisa import *` reach them too. The names come from the registry, not from a list."""

from __future__ import annotations

from .isa import vector  # noqa: F401 - registers the vector instructions
from .isa.record import REGISTRY

globals().update({name: rec for name, rec in REGISTRY.items() if rec.generated})
__all__ = sorted(name for name, rec in REGISTRY.items() if rec.generated)
