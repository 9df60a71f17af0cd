"""TCVT: element type conversion with a rounding mode (and, in C++, an optional saturation mode and tmp tile).

    TCVT(dst, src, mode)                 TCVT(dst, src, mode, satMode)          TCVT(dst, src, tmp, mode)
    for i < src.valid_row, j < src.valid_col:  dst[i, j] = convert(src[i, j], mode)

The `cpu` profile follows the simulator (include/pto/cpu/TCvt.hpp):
- The rounding mode applies only to float -> integer conversions: the value is rounded to an integer in double
  (`rint`, `round` = ties away from zero, `floor`, `ceil`, `trunc`, `odd` = ties to the odd neighbour;
  CAST_NONE truncates like a C++ cast). float -> float and integer -> float conversions round to nearest even
  (integer -> float from the exact double, one rounding); integer -> integer wraps. Between half and float a
  signalling NaN comes out quiet (the build's soft-float conversions; `cpp_float_cast`).
- Saturation is OFF unless `satMode=SaturationMode.ON` is given. ON clamps the source in double to the range both
  types share (half's is +-65504), casts it back to the source type, then converts; a NaN clamps to the upper
  bound (the simulator's clamp).
- A float -> integer result outside the destination's range (or a NaN) is undefined in C++: refused by default;
  under `undefined="emulate"` the x86 result is written (the 32-bit conversion's 0x80000000 truncated to the
  destination; uint8 through int64 first; uint32 through int64).
The NPU profiles round float -> float with the mode too (RINT, ROUND, FLOOR, CEIL, TRUNC, ODD) and saturate
float -> integer results to the destination's range with a NaN giving 0 when saturation is ON; with it OFF the
integer's low bits are kept (inf and NaN give 0); integer -> integer conversions likewise clamp with it ON and
wrap with it OFF. Without a `satMode` the backends choose: OFF for half -> uint8, int8, int16, float -> int16
and int32 -> int16, ON for every other conversion. These NPU rounding details are read from the backend's mode
tables, not measured.

    >>> from ptoisa import *
    >>> src, dst = Tile[TileType.Vec, float, 1, 8](), Tile[TileType.Vec, int32_t, 1, 8]()
    >>> src.set_logical([[0.5, 1.5, 2.5, -0.5, -1.5, 2.7, -2.7, 3.0]])
    >>> _ = TCVT(dst, src, RoundMode.CAST_RINT, target="cpu"); dst.data[0].tolist()
    [0, 2, 2, 0, -2, 3, -3, 3]
    >>> _ = TCVT(dst, src, RoundMode.CAST_ROUND, target="cpu"); dst.data[0].tolist()
    [1, 2, 3, -1, -2, 3, -3, 3]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..._quiet import QUIET, quiet, quiet_reset, quiet_set

from ...dtypes import STANDARD_DTYPES, DType
from ...dtypes import DType as D
from ...tile.enums import SLayout
from ..enums import RoundMode, SaturationMode
from ..record import Attr, Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import cpp_float_cast, from_double, narrow_to_half, undefined, valid_of, widen_half, write

if TYPE_CHECKING:
    from .._check import Check

_FLOAT_LIMIT = {D.F16: 65504.0, D.BF16: (2 - 2.0 ** -7) * 2.0 ** 127, D.F32: float(np.finfo(np.float32).max)}


def _limits(dtype: DType) -> tuple[float, float]:
    if dtype.is_float:
        return -_FLOAT_LIMIT[dtype], _FLOAT_LIMIT[dtype]
    info = np.iinfo(dtype.np)
    return float(info.min), float(info.max)


def round_integral(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    """The simulator's applyRoundingToIntegral, on float64 values."""
    with quiet():
        if mode is RoundMode.CAST_RINT:
            return np.rint(x)
        if mode is RoundMode.CAST_FLOOR:
            return np.floor(x)
        if mode is RoundMode.CAST_CEIL:
            return np.ceil(x)
        if mode is RoundMode.CAST_TRUNC:
            return np.trunc(x)
        if mode is RoundMode.CAST_ROUND:
            t = np.trunc(x)
            return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)
        if mode is RoundMode.CAST_ODD:
            f = np.floor(x)
            frac = x - f
            odd_f = np.remainder(f, 2) == 1
            return np.where(frac > 0.5, f + 1, np.where(frac < 0.5, f, np.where(odd_f, f, f + 1)))
        return x


def round_float(x: np.ndarray, dtype: np.dtype, mode: RoundMode) -> np.ndarray:
    """float64 values (exact float32 or narrower inputs) into a float type with a directed or nearest mode."""
    nearest = from_double(x, dtype)
    if mode in (RoundMode.CAST_RINT, RoundMode.CAST_NONE):
        return nearest
    with quiet():
        back = nearest.astype(np.float64)
        inexact = (back != x) & np.isfinite(x)
        up = nearest.astype(np.float32)
        towards = np.where(back > x, -np.inf, np.inf).astype(np.float32)
        other = _step(nearest, towards, dtype)
        other_back = other.astype(np.float64)
        lower = np.where(back < x, nearest, other)
        upper = np.where(back < x, other, nearest)
        if mode is RoundMode.CAST_FLOOR:
            pick = lower
        elif mode is RoundMode.CAST_CEIL:
            pick = upper
        elif mode is RoundMode.CAST_TRUNC:
            pick = np.where(x >= 0, lower, upper)
        elif mode is RoundMode.CAST_ROUND:
            tie = np.abs(other_back - x) == np.abs(back - x)
            away = np.where(np.abs(other_back) > np.abs(back), other, nearest)
            pick = np.where(tie, away, nearest)
        else:  # CAST_ODD: the neighbour whose last mantissa bit is 1
            bits: np.ndarray = nearest.view(np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)
            pick = np.where((bits & 1) == 1, nearest, other)
        del up
        return np.where(inexact, pick, nearest).astype(dtype)


def _step(values: np.ndarray, towards: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The next representable value of `dtype` from each value towards +-inf (by bit pattern)."""
    dtype = np.dtype(dtype)
    uint = np.uint16 if dtype.itemsize == 2 else np.uint32
    bits = values.astype(dtype).view(uint).astype(np.int64)
    sign_bit = 1 << (dtype.itemsize * 8 - 1)
    negative = (bits & sign_bit) != 0
    magnitude_up = (towards > 0) != negative
    zero = (bits & (sign_bit - 1)) == 0
    stepped = np.where(magnitude_up, bits + 1, bits - 1)
    # from +-0 towards the other sign: the smallest subnormal of that sign
    stepped = np.where(zero & ~magnitude_up, np.where(towards > 0, 1, sign_bit | 1), stepped)
    return stepped.astype(uint).view(dtype)


def _x86_int(r: np.ndarray, dtype: DType) -> np.ndarray:
    """What x86 code compiled by GCC stores for `static_cast<D>(double)` out of range (emulation only)."""
    bits = dtype.itemsize * 8
    if dtype in (D.U8, D.U32):  # through int64 (uint8 explicitly, uint32 by GCC's choice of cvttsd2si)
        big = np.where(np.isfinite(r) & (np.abs(r) < 2.0 ** 63), r, -(2.0 ** 63))
        return big.astype(np.int64).astype(dtype.np)
    wide = np.where(np.isfinite(r) & (r >= -(2.0 ** 31)) & (r < 2.0 ** 31), r, -(2.0 ** 31)).astype(np.int64)
    del bits
    return wide.astype(dtype.np)


def _in_range(r: np.ndarray, dtype: DType) -> np.ndarray:
    lo, hi = _limits(dtype)
    if dtype is D.U8:  # the simulator goes through int64, defined for every value in its range
        return np.isfinite(r) & (r > -(2.0 ** 63) - 1) & (r < 2.0 ** 63)
    return np.isfinite(r) & (r >= lo) & (r <= hi)


# TCVT(dst, src, mode) on the NPUs leaves saturation OFF for these narrowing conversions and ON for all others
# (a2a3/TCvt.hpp kIsNarrowingCvt and its TCVT_IMPL overloads; a5/TCvt.hpp TCVT_IMPL's type-specific defaults)
_NPU_DEFAULT_OFF = frozenset({(D.F16, D.U8), (D.F16, D.I8), (D.F32, D.I16), (D.F16, D.I16), (D.I32, D.I16)})

# Element types whose every value is a float: converting through float rounds once, as from double does
_EXACT_IN_FLOAT = frozenset({D.F32, D.F16, D.BF16, D.I8, D.U8, D.I16, D.U16})


def _convert(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    entry = _DIRECT.get(id(plan))
    if entry is None or entry[0] is not plan:
        entry = plan, _direct_of(plan)
        if len(_DIRECT) < 8192:
            _DIRECT[id(plan)] = entry  # holds the plan: its id is not reused while the entry lives
    if entry[1] is not None:
        out, source = tiles["dst"], tiles["src"]
        if out.view is not None and source.view is not None:
            vr, vc = source.valid_shape
            token = quiet_set()
            try:
                entry[1](out.view[:vr, :vc], source.view[:vr, :vc])
            finally:
                quiet_reset(token)
            return
    _convert_general(plan, tiles, scalars)


_DIRECT: dict[int, tuple[Plan, Any]] = {}


def _assign(out: np.ndarray, x: np.ndarray) -> None:
    out[...] = x  # NumPy's cast (2-D: an overlapping source is read first)


def _assign_through_float(out: np.ndarray, x: np.ndarray) -> None:
    out[...] = x.astype(np.float32)


def _assign_through_double(out: np.ndarray, x: np.ndarray) -> None:
    out[...] = x.astype(np.float64)  # widening to double quiets a signalling NaN, as the general path's does


def _npu_sat(plan: Plan) -> SaturationMode:
    """The saturation an NPU call runs with: its satMode, else the backend's default for the conversion."""
    sat = plan.attrs["satMode"]
    if sat is None:
        pair = (plan.specs["src"].dtype, plan.specs["dst"].dtype)
        return SaturationMode.OFF if pair in _NPU_DEFAULT_OFF else SaturationMode.ON
    return sat  # type: ignore[return-value]


def _clamps(s_type: DType, d_type: DType) -> bool:
    """Whether some integer of s_type lies outside d_type's range."""
    return _limits(s_type)[0] < _limits(d_type)[0] or _limits(s_type)[1] > _limits(d_type)[1]


def _direct_of(plan: Plan) -> Any:
    """The conversion of a signature as one NumPy cast into dst's valid region, where `_convert_general` computes
    exactly that cast: integer -> integer (wraps), and to a float type from a type whose values are all floats
    (through float, one rounding), on the cpu target; on the NPUs float -> float with the nearest mode between
    NumPy's own float types (through double, one rounding). None: the general path
    (float -> integer, saturation on the cpu target, directed float roundings, bfloat16 sources from double)."""
    s_type, d_type = plan.specs["src"].dtype, plan.specs["dst"].dtype
    mode, sat = plan.attrs["mode"], plan.attrs["satMode"]
    cpu = plan.config.name == "cpu"
    if cpu and sat is SaturationMode.ON:
        return None
    s_np = s_type.np
    if not s_type.is_float and not d_type.is_float:
        # the NPUs saturate integer -> integer conversions too (CTRL's saturation bits, a5/TCvt.hpp #sat casts)
        return None if not cpu and _npu_sat(plan) is SaturationMode.ON and _clamps(s_type, d_type) else _assign
    if not d_type.is_float:
        return None
    if s_type.is_float and not cpu:
        native = (D.F16, D.F32)
        return _assign_through_double if mode in (RoundMode.CAST_RINT, RoundMode.CAST_NONE) and s_type in native \
            and d_type in native else None
    if {s_type, d_type} == {D.F16, D.F32}:  # a signalling NaN quieted, as the simulator's cast (cpp_float_cast)
        return widen_half if s_type is D.F16 else narrow_to_half
    if s_type in _EXACT_IN_FLOAT and np.dtype(s_np).kind != "V":
        return _assign if s_type is D.F32 else _assign_through_float
    return None


def _convert_general(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    s_type, d_type = plan.specs["src"].dtype, plan.specs["dst"].dtype
    mode: RoundMode = plan.attrs["mode"]  # type: ignore[assignment]
    sat = plan.attrs["satMode"]
    cpu = plan.config.name == "cpu"
    if sat is None:
        sat = SaturationMode.OFF if cpu else _npu_sat(plan)
    x = valid_of(source)
    with quiet():
        wide = x.astype(np.float64)
        if sat is SaturationMode.ON and cpu:
            lo = max(_limits(s_type)[0], _limits(d_type)[0])
            hi = min(_limits(s_type)[1], _limits(d_type)[1])
            clamped = np.where(np.isnan(wide), hi, np.clip(wide, lo, hi))
            x = from_double(clamped, s_type.np) if s_type.is_float else clamped.astype(s_type.np)
            wide = x.astype(np.float64)
        if s_type.is_float and not d_type.is_float:
            r = round_integral(wide, mode if mode is not RoundMode.CAST_NONE else RoundMode.CAST_TRUNC)
            if cpu:
                ok = _in_range(r, d_type)
                if not ok.all():
                    from .._check import Check

                    undefined(Check("TCVT", plan.config.name), plan.config, "src",
                              f"converting {s_type.cname} {float(x[~ok].flat[0])!r} to {d_type.cname} is out of range")
                if d_type is D.U8:
                    result = _x86_int(r, D.U8)
                else:
                    result = np.where(ok, np.where(ok, r, 0).astype(np.int64), 0).astype(d_type.np)
                    if not ok.all():
                        result = np.where(ok, result, _x86_int(r, d_type))
            else:
                lo, hi = _limits(d_type)
                if sat is SaturationMode.ON:
                    result = np.clip(np.where(np.isnan(r), 0, r), lo, hi).astype(np.int64).astype(d_type.np)
                else:
                    result = np.where(np.isfinite(r), r, 0).astype(np.int64).astype(d_type.np)
        elif d_type.is_float:
            if s_type.is_float and not cpu:
                result = round_float(wide, d_type.np, mode)
            elif {s_type, d_type} == {D.F16, D.F32}:
                result = cpp_float_cast(x, d_type.np)
            elif s_type in _EXACT_IN_FLOAT and x.dtype.kind != "V":
                result = x.astype(np.float32).astype(d_type.np)  # one rounding from float: the double's value
            else:
                result = from_double(wide, d_type.np)
        else:
            result = x.astype(np.int64)
            if not cpu and sat is SaturationMode.ON:  # clamped to the destination's range
                result = np.clip(result, *(int(v) for v in _limits(d_type)))
            result = result.astype(d_type.np)
    write(out, result)


def _valid_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    """dst's valid region must hold src's (the simulator iterates src's valid region and writes dst there)."""
    (sr, sc), (dr, dc) = tiles["src"].valid_shape, tiles["dst"].valid_shape
    if sr > dr or sc > dc:
        check.fail("dst", f"valid shape ({dr}, {dc}) must hold src's valid shape ({sr}, {sc})")


def _pairs(*pairs: tuple[DType, DType]) -> frozenset[tuple[DType, DType]]:
    return frozenset(pairs)


_A2A3 = _pairs(
    (D.F16, D.F32), (D.BF16, D.F32), (D.U8, D.F16), (D.I8, D.F16), (D.I16, D.F32), (D.I32, D.I16), (D.I32, D.F16),
    (D.F32, D.F16), (D.F32, D.F32), (D.F32, D.I32), (D.F32, D.I16), (D.F32, D.BF16), (D.F16, D.I32),
    (D.F16, D.I16), (D.F16, D.I8), (D.F16, D.U8), (D.BF16, D.I32), (D.I16, D.F16), (D.I32, D.F32),
)
# A5 compiles exactly the conversions its castData overloads exist for (a5/TCvt.hpp; docs/isa/TCVT.md's side-by-side
# table lists the same): no int32 -> half there (A2/A3's deq path), and integer conversions A2/A3 lacks
_A5 = _pairs(
    (D.F32, D.F32), (D.F32, D.F16), (D.F32, D.BF16), (D.F32, D.I16), (D.F32, D.I32),
    (D.F16, D.F32), (D.F16, D.I32), (D.F16, D.I16), (D.F16, D.I8), (D.F16, D.U8),
    (D.BF16, D.F32), (D.BF16, D.I32), (D.BF16, D.F16),
    (D.I16, D.U8), (D.I16, D.F16), (D.I16, D.F32), (D.I16, D.U32), (D.I16, D.I32),
    (D.I32, D.F32), (D.I32, D.I16), (D.I32, D.U16), (D.I32, D.U8),
    (D.U8, D.F16), (D.U8, D.U16), (D.I8, D.F16), (D.I8, D.I16), (D.I8, D.I32),
    (D.U32, D.U8), (D.U32, D.U16), (D.U32, D.I16),
)
_CPU = frozenset((s, d) for s in STANDARD_DTYPES for d in STANDARD_DTYPES)


def _convert_compiled(plan: Plan, positions: dict[str, int]) -> Any:
    """`_convert`'s one-cast route for one signature, its choices made once: the cast (`_direct_of`), and whole
    views or slices of src's valid region; None (the bound kernel) where `_convert` takes the general path."""
    cast = _direct_of(plan)
    specs = plan.specs
    if cast is None or any(specs[r].slayout is not SLayout.NoneBox for r in ("dst", "src")):
        return None
    d, s = positions["dst"], positions["src"]
    source = specs["src"]
    vr, vc = source.valid_row, source.valid_col
    part = (slice(0, vr), slice(0, vc))
    full = (vr, vc) == (source.rows, source.cols) == (specs["dst"].rows, specs["dst"].cols)

    def run(args: tuple) -> None:
        if full:
            out, x = args[d].view, args[s].view
        else:
            out, x = args[d].view[part], args[s].view[part]
        QUIET.run(cast, out, x)

    return run


_convert.compiled = _convert_compiled  # type: ignore[attr-defined]
TCVT = instruction(
    "TCVT",
    operands=(dst(), src("src")),
    forms=((dst(), src("src")), (dst(), src("src"), tmp("tmp"))),
    attrs=(Attr("mode", RoundMode, RoundMode.CAST_RINT, text="rmode"),
           Attr("satMode", SaturationMode, None, text="sat_mode")),
    legality={"a2a3": Legality({}, pairs=_A2A3), "a5": Legality({}, pairs=_A5), "cpu": Legality({}, pairs=_CPU)},
    dynamic=_valid_rule,
    family="convert",
    summary="dst = src converted to dst's element type (rounding mode for float -> integer; saturation optional)",
)(_convert)
