"""The instruction attribute enums live in `ptoisa.enums` (below `targets/`, which uses them); this module keeps
the old import path working."""

from ..enums import CmpMode, GatherAxis, MaskPattern, RoundMode, SaturationMode, TriangleMode, coerce_enum

__all__ = ["CmpMode", "GatherAxis", "MaskPattern", "RoundMode", "SaturationMode", "TriangleMode", "coerce_enum"]
