"""Element-wise tile-tile instructions: TADD TSUB TMUL TDIV TMAX TMIN TREM TAND TOR TXOR TSHL TSHR.

    TADD(dst, src0, src1)        for i < dst.valid_row, j < dst.valid_col:  dst[i, j] = src0[i, j] + src1[i, j]

All three tiles share one element type and one valid shape. The arithmetic is C++'s on the element type
(include/pto/cpu/ElementOp.h, the simulator's kernels): integers wrap, floats round to nearest even once per
operation; `std::max(a, b)` keeps a unless a < b (so a NaN in src0 wins, a NaN in src1 loses); integer division
truncates; TREM's result takes the divisor's sign (C++ `%` or `fmod`, then the divisor added when the signs
differ and the remainder is not zero). Integer division or remainder by zero is undefined (refused).

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, int8_t, 1, 32]
    >>> a, b, d = T(), T(), T()
    >>> a.set_logical([[100, -7] * 16]); b.set_logical([[100, 2] * 16])
    >>> _ = TADD(d, a, b, target="cpu"); d.data[0, :2].tolist()      # int8 wraps: 200 -> -56
    [-56, -5]
    >>> _ = TREM(d, a, b, target="cpu"); d.data[0, :2].tolist()      # the sign of the divisor
    [0, 1]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._quiet import quiet

from ...dtypes import DType as D
from .._check import Check
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import (ALL9, FLOATS, INTS, Fast, Spare, cpp_max, cpp_min, elementwise_hook, equal_valid, fmod_float,
                      highest, lowest, select, trunc_div, trunc_rem, undefined, valid_of, write)

OPERANDS = (dst(), src("src0"), src("src1"))
WITH_TMP = (*OPERANDS, tmp("tmp", optional=True))  # TREM's C++ signature has a scratch tile
SAME = (("dst", "src0", "src1"),)
_A2A3_ARITH = (D.I32, D.I16, D.F16, D.F32)
_A5_ARITH = (D.I32, D.U32, D.F32, D.I16, D.U16, D.F16, D.BF16, D.U8, D.I8)
# Per-instruction lists from the instruction pages' constraints (docs/isa/<NAME>.md, "A2A3"/"A5" lines)
_A2A3_DIV, _A5_DIV = (D.F16, D.F32), (D.I32, D.U32, D.F32, D.I16, D.U16, D.F16)
_A2A3_REM, _A5_REM = (D.F32, D.I32), (D.F16, D.F32, D.I16, D.U16, D.I32, D.U32)
_BITWISE = (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32)


def _table(a2a3: tuple[D, ...], a5: tuple[D, ...], cpu: tuple[D, ...] = ALL9, evidence: str = "") -> dict[str, Legality]:
    return {
        "a2a3": Legality({"dst": a2a3}, same=SAME, evidence=evidence),
        "a5": Legality({"dst": a5}, same=SAME, evidence=evidence),
        "cpu": Legality({"dst": cpu}, same=SAME),
    }


def _elementwise(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[Plan, Tiles, Scalars], None]:
    ufunc = fn if isinstance(fn, np.ufunc) else None

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        a, b = valid_of(tiles["src0"], out.valid_shape), valid_of(tiles["src1"], out.valid_shape)
        with quiet():
            if ufunc is not None and out.view is not None and a.dtype.kind != "V":
                vr, vc = out.valid_shape
                ufunc(a, b, out=out.view[:vr, :vc])  # straight into dst (ufuncs handle overlapping operands)
            else:
                write(out, fn(a, b).astype(a.dtype, copy=False))

    if ufunc is not None:
        kernel.whole = ufunc  # type: ignore[attr-defined]  # whole same-type tiles: the ufunc on their storages
    return kernel


def _nonzero_divisor(kernel: Callable[[Plan, Tiles, Scalars], None]) -> Callable[[Plan, Tiles, Scalars], None]:
    """Integer division (or remainder) by zero, and INT_MIN / -1, are undefined: refused before any write."""

    def checked(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        if not plan.specs["dst"].dtype.is_float:
            check = Check(plan.record.name, plan.config.name)
            shape = tiles["dst"].valid_shape
            b = valid_of(tiles["src1"], shape)
            if (b == 0).any():
                undefined(check, plan.config, "src1", "integer division by zero")
            if plan.specs["dst"].dtype.is_signed:
                a = valid_of(tiles["src0"], shape)
                info = np.iinfo(a.dtype)
                if ((a == info.min) & (b == -1)).any():
                    undefined(check, plan.config, "src1", f"{info.min} / -1 overflows")
        kernel(plan, tiles, scalars)

    return checked


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return trunc_div(a, np.where(b == 0, 1, b).astype(b.dtype))
    return a / b


def rem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The simulator's TREM/TREMS: C++ remainder, then + b where the signs differ and it is not zero."""
    adjust_signs = (a >= 0) != (b >= 0)
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, 1, b).astype(b.dtype)
        r = trunc_rem(a, safe)
        return np.where(adjust_signs & (r != 0), (r + b).astype(a.dtype), r)
    r = fmod_float(a, b)  # a fresh array of a's type; + b rounded once in that type
    adjust_signs &= r != 0
    if not adjust_signs.any():
        return r
    # the sum taken where the mask holds, by bits (select): NumPy's masked add (`where=`) runs its loop element
    # by element, dozens of times slower on a mask without a pattern
    return select(adjust_signs, r + b, r)


def _shift_rule(kernel: Callable[[Plan, Tiles, Scalars], None]) -> Callable[[Plan, Tiles, Scalars], None]:
    """A shift count outside [0, width of the promoted type) is undefined in C++: refused before any write."""

    def checked(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        b = valid_of(tiles["src1"], tiles["dst"].valid_shape)
        bits = max(plan.specs["dst"].dtype.itemsize * 8, 32)
        if b.size and (int(b.min()) < 0 or int(b.max()) >= bits):  # the range, not a widened copy
            undefined(Check(plan.record.name, plan.config.name), plan.config, "src1",
                      f"a shift count outside [0, {bits}) is undefined in C++")
        kernel(plan, tiles, scalars)

    return checked


# C++ `a << b` and `a >> b` promote a to int, shift (arithmetic right shifts for signed types, logical for
# unsigned), and store the result back into a's type, wrapping. For every count the shift rule admits
# ([0, max(width, 32))) NumPy's own shifts on the element type give the same bits (a test holds them to the
# promoted computation for every type and count), so the records use the ufuncs: straight into dst, no temporaries.
shift_left = np.left_shift
shift_right = np.right_shift


_VALID = equal_valid("src0", "src1")
_SOURCES = ("src0", "src1")


# --- the compiled calls' fast paths (elementwise_hook): each gives the general kernel's bits -----------------
def _ufunc_fast(ufunc: np.ufunc) -> Fast:
    def fast(y: np.ndarray, a: np.ndarray, b: np.ndarray, apart: bool, spare: Spare) -> bool:
        ufunc(a, b, out=y)  # straight into dst (ufuncs handle overlapping operands)
        return True

    return fast


def _hooked(kernel: Callable, fast_for: Callable[[np.dtype], Fast | None]) -> Callable:
    kernel.compiled = elementwise_hook(_SOURCES, fast_for, kernel)  # type: ignore[attr-defined]
    return kernel


def _plain(ufunc: np.ufunc, kinds: str = "fiu") -> Callable[[np.dtype], Fast | None]:
    """The op is `ufunc` on the element type for the kinds given (the kernel's own ufunc path)."""
    fast = _ufunc_fast(ufunc)
    return lambda dtype: fast if dtype.kind in kinds else None


def _extreme_for(ufunc: np.ufunc) -> Callable[[np.dtype], Fast | None]:
    """TMAX / TMIN: integers the ufunc; half and float the ufunc when its result is std::max's (std::min's): no
    NaN and no zero in it (cpp_max); else the general path, from sources left as they were (the result goes to a
    scratch array first when dst may share their memory)."""

    def fast_for(dtype: np.dtype) -> Fast | None:
        if dtype.kind in "iu":
            return _ufunc_fast(ufunc)
        if dtype.kind != "f":
            return None
        copyto, zero, where, less = np.copyto, dtype.type(0), np.where, np.less
        small = 1024  # as cpp_max: one np.where (cpp_max's own computation there) costs less than the checks
        larger = ufunc is np.maximum

        def fast(y: np.ndarray, a: np.ndarray, b: np.ndarray, apart: bool, spare: Spare) -> bool:
            if y.size < small:
                copyto(y, where(less(a, b), b, a) if larger else where(less(b, a), b, a))
                return True
            t = y if apart else spare.take()
            try:
                ufunc(a, b, out=t)
                top = highest(t)
                if top != top or (t == zero).any():
                    return False
                if t is not y:
                    copyto(y, t)
            finally:
                if t is not y:
                    spare.give(t)
            return True

        fast.apart = small  # type: ignore[attr-defined]  # the small path does not look at it
        return fast

    return fast_for


def _shift_for(ufunc: np.ufunc) -> Callable[[np.dtype], Fast | None]:
    """TSHL / TSHR: the ufunc when every count is in range (else the general path, which refuses)."""

    def fast_for(dtype: np.dtype) -> Fast | None:
        bits = max(dtype.itemsize * 8, 32)

        def fast(y: np.ndarray, a: np.ndarray, b: np.ndarray, apart: bool, spare: Spare) -> bool:
            if b.size and (int(b.min()) < 0 or int(b.max()) >= bits):
                return False
            ufunc(a, b, out=y)
            return True

        return fast

    return fast_for

_tadd = _hooked(_elementwise(np.add), _plain(np.add))
TADD = instruction("TADD", operands=OPERANDS, legality=_table(_A2A3_ARITH, _A5_ARITH), dynamic=_VALID,
                   family="binary", summary="dst = src0 + src1")(_tadd)
_tsub = _hooked(_elementwise(np.subtract), _plain(np.subtract))
TSUB = instruction("TSUB", operands=OPERANDS, legality=_table(_A2A3_ARITH, _A5_ARITH), dynamic=_VALID,
                   family="binary", summary="dst = src0 - src1")(_tsub)
_tmul = _hooked(_elementwise(np.multiply), _plain(np.multiply))
TMUL = instruction("TMUL", operands=OPERANDS, legality=_table(_A2A3_ARITH, _A5_ARITH), dynamic=_VALID,
                   family="binary", summary="dst = src0 * src1")(_tmul)
_tdiv = _hooked(_nonzero_divisor(_elementwise(_div)), _plain(np.divide, "f"))
TDIV = instruction("TDIV", operands=OPERANDS, legality=_table(_A2A3_DIV, _A5_DIV), dynamic=_VALID,
                   family="binary", summary="dst = src0 / src1 (integers truncate)")(_tdiv)
_tmax = _hooked(_elementwise(cpp_max), _extreme_for(np.maximum))
TMAX = instruction("TMAX", operands=OPERANDS, legality=_table(_A2A3_ARITH, _A5_ARITH), dynamic=_VALID,
                   family="binary", summary="dst = std::max(src0, src1)")(_tmax)
_tmin = _hooked(_elementwise(cpp_min), _extreme_for(np.minimum))
TMIN = instruction("TMIN", operands=OPERANDS, legality=_table(_A2A3_ARITH, _A5_ARITH), dynamic=_VALID,
                   family="binary", summary="dst = std::min(src0, src1)")(_tmin)
TREM = instruction("TREM", operands=WITH_TMP, legality=_table(_A2A3_REM, _A5_REM), dynamic=_VALID,
                   family="binary", summary="dst = src0 rem src1, with the sign of src1")(_nonzero_divisor(_elementwise(rem)))
_tand = _hooked(_elementwise(np.bitwise_and), _plain(np.bitwise_and))
TAND = instruction("TAND", operands=OPERANDS, legality=_table(_BITWISE, _BITWISE, INTS), dynamic=_VALID,
                   family="binary", summary="dst = src0 & src1")(_tand)
_tor = _hooked(_elementwise(np.bitwise_or), _plain(np.bitwise_or))
TOR = instruction("TOR", operands=OPERANDS, legality=_table(_BITWISE, _BITWISE, INTS), dynamic=_VALID,
                  family="binary", summary="dst = src0 | src1")(_tor)
_txor = _hooked(_elementwise(np.bitwise_xor), _plain(np.bitwise_xor))
TXOR = instruction("TXOR", operands=WITH_TMP, legality=_table(_BITWISE, _BITWISE, INTS), dynamic=_VALID,
                   family="binary", summary="dst = src0 ^ src1")(_txor)
_tshl = _hooked(_shift_rule(_elementwise(shift_left)), _shift_for(shift_left))
TSHL = instruction("TSHL", operands=OPERANDS, legality=_table(_BITWISE, _BITWISE, INTS), dynamic=_VALID,
                   family="binary", summary="dst = src0 << src1")(_tshl)
_tshr = _hooked(_shift_rule(_elementwise(shift_right)), _shift_for(shift_right))
TSHR = instruction("TSHR", operands=OPERANDS, legality=_table(_BITWISE, _BITWISE, INTS), dynamic=_VALID,
                   family="binary", summary="dst = src0 >> src1")(_tshr)

__all__ = ["FLOATS", "TADD", "TAND", "TDIV", "TMAX", "TMIN", "TMUL", "TOR", "TREM", "TSHL", "TSHR", "TSUB", "TXOR"]
