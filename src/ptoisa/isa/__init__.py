"""The five instructions: one module each, holding its checks and its NumPy kernel.

Each module exposes a snake_case kernel taking the Config first (`tcmps(config, dst, src0, src1, mode)`); the
C++-named public entry points live in `ptoisa.api`.
"""

from .enums import CmpMode, GatherAxis, MaskPattern

INSTRUCTIONS = ("TCMPS", "TCI", "TPARTMUL", "TEXPANDS", "TGATHER")

__all__ = ["INSTRUCTIONS", "CmpMode", "GatherAxis", "MaskPattern"]
