"""Warnings `ptoisa check` can give from types alone: places where the target will not do what the program asks
(an erratum or a documented fallback decided by element types and modes, not by data)."""

from __future__ import annotations

from xdsl.ir import Operation

from ptoisa.dtypes import DType
from ptoisa.isa.enums import CmpMode
from ptoisa.targets import Config

from .convert import dtype_of_type

_ORDERED = (CmpMode.LT, CmpMode.LE, CmpMode.GT, CmpMode.GE)


def predicted_warnings(op: Operation, config: Config) -> list[str]:
    """What the target will do differently for this op, as messages (empty when nothing is known statically)."""
    try:
        if op.name == "pto.tcmps":
            return _tcmps(op, config)
        if op.name == "pto.tgather" and getattr(op, "k_value", None) is not None:
            return _tgather_cmp(op, config)
    except Exception:  # noqa: BLE001 - a type the core does not know: the verifier reports it, not this pass
        return []
    return []


def _src_dtype(op: Operation) -> DType:
    return dtype_of_type(op.src.type.element_type)  # type: ignore[attr-defined]


def _tcmps(op: Operation, config: Config) -> list[str]:
    dtype, mode = _src_dtype(op), op.cmp_mode.data  # type: ignore[attr-defined]
    out = []
    if dtype is DType.I32 and mode in _ORDERED and config.profile.tcmps.int32_eq_only:
        out.append(f"TCMPS on {config.name} compares int32 sources with EQ whatever the mode: this {mode.name} "
                   "gives EQ's result (a documented fallback of the target)")
    if dtype in (DType.I16, DType.U16) and config.erratum("tcmps_int16_as_half"):
        out.append(f"TCMPS on {config.name} compares {dtype.cname} sources as half-precision bit patterns "
                   "(erratum tcmps_int16_as_half; --no-errata gives the contract's integer compare)")
    return out


def _tgather_cmp(op: Operation, config: Config) -> list[str]:
    dtype = _src_dtype(op)
    mode = op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ  # type: ignore[attr-defined]
    if dtype is DType.U16 and mode is CmpMode.GT and config.erratum("tgather_cmp_u16_gt_as_eq"):
        return [f"TGATHER on {config.name} runs the EQ kernel for a uint16 source with GT (erratum "
                "tgather_cmp_u16_gt_as_eq; --no-errata gives the contract's GT)"]
    return []
