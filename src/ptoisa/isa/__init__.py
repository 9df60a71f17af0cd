"""The instructions: the seeds' five one module each (checks and NumPy kernel, `tcmps(config, dst, src0, src1,
mode)`), the vector instructions as records under `vector/` (see `record.py`). The C++-named public entry points
of the five live in `ptoisa.api`; every record is its own entry point (`ptoisa.instructions`)."""

from ..enums import CmpMode, GatherAxis, MaskPattern

__all__ = ["CmpMode", "GatherAxis", "MaskPattern"]
