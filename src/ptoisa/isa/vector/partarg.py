"""Element-wise arg-max and arg-min over mismatched valid regions: TPARTARGMAX TPARTARGMIN.

    TPARTARGMAX(dst, src0, src1, dstIdx, src0Idx, src1Idx)
        where both sources are valid:  (dst, dstIdx)[i, j] = (src0, src0Idx)[i, j] if src0[i, j] > src1[i, j]
                                                             else (src1, src1Idx)[i, j]
        where one source is valid:     that source's value and index
    TPARTARGMIN: the same with <.

Value tiles (dst, src0, src1) share one element type, index tiles (dstIdx, src0Idx, src1Idx) another; each index
tile has its value tile's valid shape. As for TPARTMUL (DECISIONS 9), one source's valid region must equal dst's
and the other's must not exceed it; anything else is undefined (refused; `undefined="emulate"` runs the
simulator's loop, which writes 0 to a value and an index that neither source covers). A dst with an empty valid
region writes nothing.

A tie goes to src1 and its index (the instruction page: src1 when src1 >= src0), as the simulator's
`src0 > src1 ? src0 : src1` (include/pto/cpu/TPartArgCommon.hpp) gives; a NaN on either side loses the comparison,
so the simulator writes src1 there. The NPUs select src0 on a tie (A2/A3: `vcmp_ge` / `vcmp_le` then `vsel`, A5:
`src1 > src0 ? src1 : src0`): the `tpartarg_ties_src0` erratum of both NPU profiles, announced when it changes a
value's bits or an index. Where a NaN is compared, A2/A3 writes src1 and A5 src0 (each target's own selection;
the page says nothing of NaN).

Types per target: A2/A3 and A5 take half or float values, with int32/uint32 indices (and int16/uint16 under half
values); the simulator any of int8, uint8, int16, int32, half, bfloat16, float values and any index type. The
simulator addresses each index tile through its value tile's type (TPartInstr2), so on `cpu` an index tile must
have its value tile's shape and layout (else not modelled). Not modelled: A2/A3's copies of whole rows (padding
columns included) from the larger source, and its half values with 32-bit indices past the first 64 columns of
each 128 (the backend's mask then leaves them unwritten); ptoisa writes the contract's valid region there.

    >>> from ptoisa import *
    >>> V, I = Tile[TileType.Vec, float, 1, 8], Tile[TileType.Vec, int32_t, 1, 8]
    >>> a, b, d, ai, bi, di = V(), V(), V(), I(), I(), I()
    >>> a.set_logical([[1, 5, 3, 3, 0, 0, 0, 0]]); b.set_logical([[2, 4, 3, 9, 0, 0, 0, 0]])
    >>> ai.set_logical([[0] * 8]); bi.set_logical([[1] * 8])
    >>> _ = TPARTARGMAX(d, a, b, di, ai, bi, target="cpu"); d.data[0, :4].tolist(), di.data[0, :4].tolist()
    ([2.0, 5.0, 3.0, 9.0], [1, 0, 1, 1])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum

import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ...errors import NotModelledError
from ...targets import Config
from ...tile.spec import TileSpec
from .._check import Check, announce_erratum
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src
from ._common import ALL9, undefined, valid_of, write

_VALUES = ("dst", "src0", "src1")
_INDICES = ("dstIdx", "src0Idx", "src1Idx")
_NPU_INDEX = (D.I32, D.U32, D.I16, D.U16)
_WIDE_INDEX = (D.I32, D.U32)  # the only index types under float values on the NPUs
_ERRATUM = "tpartarg_ties_src0"


def _table(values: tuple[D, ...], indices: tuple[D, ...]) -> Legality:
    return Legality({"dst": values, "dstIdx": indices}, same=(_VALUES, _INDICES))


LEGALITY = {
    "a2a3": _table((D.F16, D.F32), _NPU_INDEX),
    "a5": _table((D.F16, D.F32), _NPU_INDEX),
    "cpu": _table((D.I8, D.U8, D.I16, D.I32, D.F16, D.BF16, D.F32), ALL9),
}


def _static(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum], form: int
            ) -> None:
    if config.name != "cpu":  # the NPUs' static_asserts: float values take 32-bit indices only
        if specs["dst"].dtype is D.F32 and specs["dstIdx"].dtype not in _WIDE_INDEX:
            check.fail("dstIdx", f"must be int32 or uint32 under float values on this target "
                                 f"(got {specs['dstIdx'].dtype.cname})")
        return
    for value, index in zip(_VALUES, _INDICES):
        v, i = specs[value], specs[index]
        if (v.rows, v.cols, v.blayout, v.slayout, v.fractal_size) != (i.rows, i.cols, i.blayout, i.slayout,
                                                                      i.fractal_size):
            raise NotModelledError(
                f"{check.instr} on cpu: the simulator addresses {index} through {value}'s tile type "
                f"(TPartOp.hpp, TPartInstr2); an index tile of another shape or layout than its value tile's is "
                "not modelled")


def _rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    for value, index in zip(_VALUES, _INDICES):
        if tiles[index].valid_shape != tiles[value].valid_shape:
            check.fail(index, f"valid shape {tiles[index].valid_shape} must equal {value}'s valid shape "
                              f"{tiles[value].valid_shape}")
    d, a, b = (tiles[r].valid_shape for r in _VALUES)

    def within(s: tuple[int, int]) -> bool:
        return s[0] <= d[0] and s[1] <= d[1]

    if 0 not in d and not (within(a) and within(b) and (a == d or b == d)):
        undefined(check, plan.config, None,  # type: ignore[arg-type]  # a whole-call rule: no role
                  f"valid shapes dst {d}, src0 {a}, src1 {b} are not a supported pattern (one source must equal "
                  "dst, the other must not exceed it)")


def _picks(target: str, larger: bool, errata: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Where each target takes src0 (True) over src1, for values a (src0) and b (src1)."""
    if target == "a5":  # src1 > src0 ? src1 : src0 (errata off: ties to src1, the NaN rule kept)
        if larger:
            return (lambda a, b: ~(b > a)) if errata else (lambda a, b: ~(b >= a))
        return (lambda a, b: ~(b < a)) if errata else (lambda a, b: ~(b <= a))
    if target == "a2a3" and errata:  # vcmp_ge / vcmp_le, then vsel(src0, src1)
        return (lambda a, b: a >= b) if larger else (lambda a, b: a <= b)
    return (lambda a, b: a > b) if larger else (lambda a, b: a < b)


def _kernel(larger: bool) -> Callable[[Plan, Tiles, Scalars], None]:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out, out_idx = tiles["dst"], tiles["dstIdx"]
        rows, cols = out.valid_shape
        if rows == 0 or cols == 0:
            return
        (ar, ac), (br, bc) = tiles["src0"].valid_shape, tiles["src1"].valid_shape
        ar, ac, br, bc = min(ar, rows), min(ac, cols), min(br, rows), min(bc, cols)
        values = np.zeros((rows, cols), out.storage.dtype)
        indices = np.zeros((rows, cols), out_idx.storage.dtype)
        a, ai = valid_of(tiles["src0"], (ar, ac)), valid_of(tiles["src0Idx"], (ar, ac))
        b, bi = valid_of(tiles["src1"], (br, bc)), valid_of(tiles["src1Idx"], (br, bc))
        values[:ar, :ac], indices[:ar, :ac] = a, ai
        values[:br, :bc], indices[:br, :bc] = b, bi
        r, c = min(ar, br), min(ac, bc)
        a, ai, b, bi = a[:r, :c], ai[:r, :c], b[:r, :c], bi[:r, :c]
        config = plan.config
        erratum = config.name != "cpu" and config.erratum(_ERRATUM)
        with quiet():
            first = _picks(config.name, larger, erratum)(a, b)
            if erratum:
                contract = _picks(config.name, larger, False)(a, b)
                changed = first != contract
                if changed.any() and (
                        (ai[changed] != bi[changed]).any()
                        or (a[changed].view(f"u{a.dtype.itemsize}") != b[changed].view(f"u{b.dtype.itemsize}")).any()):
                    announce_erratum(config, plan.record.name, _ERRATUM)
        values[:r, :c] = np.where(first, a, b)
        indices[:r, :c] = np.where(first, ai, bi)
        write(out, values)
        write(out_idx, indices)

    return kernel


_OPERANDS = (dst(), src("src0"), src("src1"), dst("dstIdx"), src("src0Idx"), src("src1Idx"))
TPARTARGMAX = instruction(
    "TPARTARGMAX", operands=_OPERANDS, legality=LEGALITY, static=_static, dynamic=_rule, family="move",
    summary="(dst, dstIdx) = the larger of src0 and src1 with its index (ties: src1's) where both are valid, "
            "the valid one's elsewhere")(_kernel(True))
TPARTARGMIN = instruction(
    "TPARTARGMIN", operands=_OPERANDS, legality=LEGALITY, static=_static, dynamic=_rule, family="move",
    summary="(dst, dstIdx) = the smaller of src0 and src1 with its index (ties: src1's) where both are valid, "
            "the valid one's elsewhere")(_kernel(False))

__all__ = ["TPARTARGMAX", "TPARTARGMIN"]
