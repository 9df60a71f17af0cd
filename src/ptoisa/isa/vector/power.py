"""Element-wise fmod, power and parametric ReLU: TFMOD TPOW TPOWS TPRELU.

    TFMOD(dst, src0, src1)           dst[i, j] = fmod(src0[i, j], src1[i, j])    (the sign of src0)
    TPOW(dst, base, exp, tmp)        dst[i, j] = base[i, j] ** exp[i, j]
    TPOWS(dst, base, exp, tmp)       dst[i, j] = base[i, j] ** exp               (exp a number of dst's type)
    TPRELU(dst, src0, src1, tmp)     dst[i, j] = src0[i, j] > 0 ? src0[i, j] : src0[i, j] * src1[i, j]

dst and the sources share one element type and one valid shape; tmp is scratch (left unchanged here; the A2/A3
backend writes TPOW's |base| ** exp and TPRELU's compare mask into it). Per target:

- `cpu` (the simulator, include/pto/cpu/ElementOp.h, TPow.hpp, TBinSOps.hpp): TFMOD is C++ `%` (integers) or
  `std::fmod` in double; TPRELU computes in the element type (integers wrap). TPOW on integers is the
  simulator's exponentiation by squaring in the element type (wrapping; exp 0 or base 1 give 1; a negative exp
  gives +-1 for base -1, else 0); on floats `std::pow` in double, rounded to float, then to half for a half dst.
  TPOWS is `static_cast<T>(std::pow(double(base), double(exp)))` for every type: a half is rounded once, an
  integer truncated, and a result outside the integer type (or NaN, infinity) is undefined in C++ (refused;
  `undefined="emulate"` writes what x86 code stores). `std::pow` is glibc's: ptoisa reproduces its bits (NumPy's
  vectorised pow differs in the last bit of a double; see `_pow_double`). The simulator addresses TPOW's base and
  exp through dst's tile type: base and exp of another shape or layout are not modelled on `cpu`.
- `a2a3` (include/pto/npu/a2a3): TFMOD is float only, `a - trunc(a / b) * b` in float, one rounding per step
  (a large quotient or an infinite divisor gives another result than fmod). TPOW/TPOWS on integers is the
  backend's scalar loop in `int` (a uint32 value of 2**31 or more reads as negative: such an exponent gives 0
  unless the base is 0, 1 or -1); on float `exp(ln(|base|) * exp)`, then the backend's special cases: exp 0 -> 1;
  base +-0 -> 0 for exp > 0, else +inf; base -1 and an infinite exp -> 1; an integral exp -> the |base| result,
  negated for a negative base and an odd exp; anything else -> `exp(ln(base) * exp)` (NaN for a negative base).
- `a5` (include/pto/npu/a5): TFMOD on floats as A2/A3 (half in float, converted back rounding towards zero); on
  integers C++ `%`. TPOW/TPOWS on integers as `cpu`; on floats (half widened to float) `exp(exp * ln(|base|))`
  and the backend's special cases: exp 0 or base 1 -> 1; a NaN operand -> NaN; base +-0 or +-inf -> the IEEE
  result (sign kept for an odd integral exp); a negative base -> NaN for a non-integral exp, negated for an odd
  one; base -1 and an infinite exp -> 1. A half result rounds to nearest.

The NPUs' ln and exp are their own approximations, which the public sources do not give: ptoisa rounds each step
(ln, the product, exp) to float correctly, so NPU TPOW results are the formula's, not the hardware's last bits,
and every NaN they produce is the default 0x7FC00000 (half 0x7E00). Integer division by zero in TFMOD, and
INT_MIN % -1, are undefined (refused; emulation divides by 1).

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, float, 1, 8]
    >>> a, b, d, t = T(), T(), T(), T()
    >>> a.set_logical([[7.5, -7.5, 2, -2, 0, 3, 1, 4]]); b.set_logical([[2, 2, 10, 3, -1, 0, 5, 0.5]])
    >>> _ = TFMOD(d, a, b, target="cpu"); d.data[0, :2].tolist()
    [1.5, -1.5]
    >>> _ = TPOW(d, a, b, t, target="cpu"); d.data[0, 2:5].tolist()
    [1024.0, -8.0, inf]
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any
import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ...errors import NotModelledError
from ...targets import Config
from ...tile.spec import TileSpec
from .._check import Check
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, scalar, src, tmp
from ._common import (ALL9, cpp_float_cast, equal_valid, fmod_float, from_double, npu_fmod,
                      trunc_rem, undefined, valid_of, write)
from .binary import _nonzero_divisor
from .convert import _x86_int

_F32_NAN = np.uint32(0x7FC00000)


# --- glibc's pow ------------------------------------------------------------------------------------------------
def _libm_pow() -> Callable[[float, float], float] | None:
    name = ctypes.util.find_library("m")
    try:
        fn = ctypes.CDLL(name).pow if name else None
    except OSError:
        return None
    if fn is not None:
        fn.restype, fn.argtypes = ctypes.c_double, (ctypes.c_double, ctypes.c_double)
    return fn


_LIBM_POW = _libm_pow()
_NUDGE = 2.0 ** -48  # 16 to 32 units in the last place of a double: wider than NumPy's pow errs


def _pow_double(b: np.ndarray, e: np.ndarray, settle: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """`std::pow` in double, as the simulator's glibc computes it, for the results that matter after `settle`
    (the conversion that follows: to float, half, an integer type).

    NumPy's pow (SIMD on x86) differs from glibc's in the last bit of a few percent of doubles. Both err by
    less than a few units in the last place, so a result whose neighbours 16 to 32 units away settle to the same
    value settles as glibc's would; the others (and every NaN, whose payload is libm's) are recomputed one by one
    with the C library's pow."""
    with quiet():
        w = np.power(b, e)
        if _LIBM_POW is None:
            return w
        low, high = settle(w * (1 - _NUDGE)), settle(w * (1 + _NUDGE))
        doubt = np.isnan(w) | ~((low == high) | (np.isnan(low) & np.isnan(high)))
        doubt |= (w != 0) & (np.abs(w) < 2.0 ** -1000)  # subnormal doubles: the nudge is below their spacing
    if doubt.any():
        pow_ = _LIBM_POW
        w[doubt] = [pow_(float(x), float(y)) for x, y in zip(b[doubt], e[doubt])]
    return w


def _settle_to(dtype: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
    """What decides a double's fate: its float (and half) rounding, or its integer part."""
    if dtype.kind in "iu":
        return np.trunc
    if dtype == np.float16:  # TPOW's half: through float
        return lambda w: w.astype(np.float32).astype(np.float16).astype(np.float64)
    return lambda w: from_double(w, dtype).astype(np.float64)


def _settle_half_direct(w: np.ndarray) -> np.ndarray:
    return w.astype(np.float16).astype(np.float64)


# --- TFMOD ------------------------------------------------------------------------------------------------------
def _fmod(plan: Plan, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b).astype(b.dtype) if a.dtype.kind in "iu" else b
    if a.dtype.kind in "iu":
        return trunc_rem(a, safe)
    return fmod_float(a, b) if plan.config.name == "cpu" else npu_fmod(a, b)


# --- TPOW / TPOWS -----------------------------------------------------------------------------------------------
def _int_pow_squaring(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The simulator's integer_pow (A5's vector loop gives the same bits): exp 0 or base 1 -> 1; a negative exp ->
    +-1 for base -1 (the exp's parity), else 0; otherwise base ** exp by squaring in the element type, wrapping."""
    t = b.dtype
    e64 = e.astype(np.int64)
    k = np.where(e64 > 0, e64, 0).astype(np.uint64)
    result = np.ones(b.shape, t)
    base = b.copy()
    with quiet():
        while k.any():
            odd = (k & np.uint64(1)).astype(bool)
            result = np.where(odd, result * base, result).astype(t)
            base = (base * base).astype(t)
            k >>= np.uint64(1)
    if t.kind == "i":
        parity = np.where(e64 % 2 == 0, 1, -1).astype(t)
        result = np.where(e64 < 0, np.where(b == -1, parity, 0).astype(t), result)
    return np.where((e64 == 0) | (b == 1), t.type(1), result).astype(t)


def _int_pow_a2a3(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """A2/A3's TPowICore: the operands as `int` (a uint32 of 2**31 or more wraps negative), then exp 0 -> 1,
    base 0 -> 0, base 1 -> 1, base -1 -> +-1 by parity, a negative exp -> 0, else squaring in int (wrapping); the
    int result stored into the element type."""
    bi = b.astype(np.int64).astype(np.int32)
    ei = e.astype(np.int64).astype(np.int32)
    powered = _int_pow_squaring(bi, np.where(ei < 0, 0, ei).astype(np.int32))
    parity = np.where(ei % 2 == 0, 1, -1).astype(np.int32)
    r = np.where(ei < 0, 0, powered).astype(np.int32)
    r = np.where(bi == -1, parity, r)
    r = np.where(bi == 1, 1, r)
    r = np.where(bi == 0, 0, r)
    r = np.where(ei == 0, 1, r).astype(np.int32)
    return r.astype(np.int64).astype(b.dtype)


def _canonical_nan(x: np.ndarray) -> np.ndarray:
    """Every NaN of a float array as the default 0x7FC00000."""
    nan = np.isnan(x)
    if nan.any():
        x.view(np.uint32)[nan] = _F32_NAN
    return x


def _exp_ln(lnb: np.ndarray, e: np.ndarray) -> np.ndarray:
    """exp(ln * e) with each step rounded to float (ln given, already float)."""
    with quiet():
        prod = np.multiply(lnb, e, dtype=np.float32)
        return np.exp(prod.astype(np.float64)).astype(np.float32)


def _ln(x: np.ndarray) -> np.ndarray:
    with quiet():
        return np.log(x.astype(np.float64)).astype(np.float32)


def _is_odd_integer(e: np.ndarray) -> np.ndarray:
    """An odd integral float: fma(-2, floor(0.5 e), e) == 1 (exact in double; infinities and NaNs are not)."""
    with quiet():
        w = e.astype(np.float64)
        return (-2.0 * np.floor(0.5 * w) + w) == 1.0


def _pow_a2a3_float(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """A2/A3 TPOW on float: tmp = exp(ln(|b|) * e), dst = exp(ln(b) * e), then the scalar pass of special cases
    (SwitchPowFResult)."""
    tmp_ = _exp_ln(_ln(np.abs(b)), e)
    out = _exp_ln(_ln(b), e)
    with quiet():
        finite_e = np.isfinite(e)
        integral = finite_e & (np.floor(e) == e)
        odd = integral & _is_odd_integer(np.where(np.abs(e) < 2.0 ** 31, e, 0).astype(np.float32))
        result = np.where(integral, np.where(odd & (b < 0), -tmp_, tmp_), out)
        result = np.where((b == -1) & np.isinf(e), np.float32(1), result)
        result = np.where(b == 0, np.where(e > 0, np.float32(0), np.float32(np.inf)), result)
        result = np.where(e == 0, np.float32(1), result).astype(np.float32)
    return _canonical_nan(result)


def _pow_a5_float(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """A5 TPOW on float (half widened): exp(e * ln(|b|)), then ProcessFloatSpecialCase's steps."""
    d = _exp_ln(_ln(np.abs(b)), e)
    with quiet():
        one = (e == 0) | (b == 1)
        nan = ~one & (np.isnan(b) | np.isnan(e))
        rest = ~one & ~nan
        odd = _is_odd_integer(e)
        # base +-0 or +-inf: the exponent bits flipped for a negative exp; the sign kept for an odd exp
        edge = rest & (np.isinf(b) | (b == 0))
        bits = b.view(np.uint32)
        flipped = np.where(e < 0, bits ^ np.uint32(0x7F800000), bits).astype(np.uint32)
        flipped = np.where(odd, flipped, flipped & np.uint32(0x7FFFFFFF)).astype(np.uint32).view(np.float32)
        d = np.where(edge, flipped, d)
        # a negative base: NaN for a non-integral exp, negated for an odd one; (-1) ** +-inf = 1
        other = rest & ~edge
        signed = np.where(odd, -d, d)
        signed = np.where(e != np.floor(e), np.float32(np.nan), signed)
        d = np.where(other & (b < 0), signed, d)
        d = np.where(other & np.isinf(e) & (b == -1), np.float32(1), d).astype(np.float32)
        d = np.where(one, np.float32(1), d).astype(np.float32)
    return _canonical_nan(d)


def _pow_cpu_float(b: np.ndarray, e: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """TPOW's compute_pow on floats: std::pow in double; float rounds once, half through float (two roundings)."""
    wb, we = cpp_float_cast(b, np.float64), cpp_float_cast(e, np.float64)
    w = _pow_double(wb, we, _settle_to(dtype))
    if dtype == np.float16:
        with quiet():
            return cpp_float_cast(w.astype(np.float32), np.float16)
    return from_double(w, dtype)


def _pow(plan: Plan, b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """TPOW on one target: the element type's path (see the module docstring)."""
    dtype = b.dtype
    target = plan.config.name
    if dtype.kind in "iu":
        return _int_pow_a2a3(b, e) if target == "a2a3" else _int_pow_squaring(b, e)
    if target == "cpu":
        return _pow_cpu_float(b, e, dtype)
    b32, e32 = b.astype(np.float32), np.asarray(e).astype(np.float32)
    if target == "a2a3":
        return _pow_a2a3_float(b32, np.broadcast_to(e32, b32.shape))
    r = _pow_a5_float(b32, np.broadcast_to(e32, b32.shape))
    with quiet():
        return r if dtype == np.float32 else r.astype(dtype)


def _pows_cpu(plan: Plan, b: np.ndarray, e: np.generic) -> np.ndarray:
    """The simulator's OP_POWS: static_cast<T>(std::pow(double(base), double(exp))) for every type."""
    dtype = b.dtype
    if dtype.kind not in "iu":  # half, float, bfloat16
        wb, we = cpp_float_cast(b, np.float64), np.full(b.shape, cpp_float_cast(np.asarray(e), np.float64))
        settle = _settle_half_direct if dtype == np.float16 else _settle_to(dtype)
        return from_double(_pow_double(wb, we, settle), dtype)
    w = _pow_double(b.astype(np.float64), np.full(b.shape, float(e)), np.trunc)
    info = np.iinfo(dtype)
    with quiet():
        r = np.trunc(w)
        ok = np.isfinite(r) & (r >= info.min) & (r <= info.max)
    if not ok.all():
        undefined(Check(plan.record.name, plan.config.name), plan.config, "dst",
                  "a power outside the element type's range (or NaN, infinity) converts with undefined behaviour "
                  "in C++")
        # what x86 code stores: a 64-bit conversion for uint32, else a 32-bit one (0x80000000 when out of its
        # range), the low bits kept
        x86 = _x86_int(r, D.U32) if dtype == np.uint32 else _x86_int(r, D.I32).astype(dtype)
        return np.where(ok, np.where(ok, r, 0).astype(np.int64).astype(dtype), x86)
    return r.astype(np.int64).astype(dtype)


# --- TPRELU -----------------------------------------------------------------------------------------------------
def _prelu(plan: Plan, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with quiet():
        return np.where(a > 0, a, (a * b).astype(a.dtype)).astype(a.dtype)


# --- kernels and rules ------------------------------------------------------------------------------------------
def _binary(fn: Callable[[Plan, np.ndarray, Any], np.ndarray], first: str, second: str
            ) -> Callable[[Plan, Tiles, Scalars], None]:
    """dst's valid region = fn(plan, first's, second's) (second may be a scalar operand)."""

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        a = valid_of(tiles[first], out.valid_shape)
        b = valid_of(tiles[second], out.valid_shape) if second in tiles else scalars[second]
        write(out, np.asarray(fn(plan, a, b)).astype(a.dtype, copy=False))

    return kernel


def _pows(plan: Plan, a: np.ndarray, e: np.generic) -> np.ndarray:
    if plan.config.name == "cpu":
        return _pows_cpu(plan, a, e)
    return _pow(plan, a, np.full(a.shape, e, a.dtype))


def _same_tile_type(roles: tuple[str, ...]) -> Callable[..., None]:
    """cpu TPOW: the simulator reads base and exp at dst's element offsets (TPow_Impl<DstTile>): tiles of another
    shape or layout would be read at other positions, which ptoisa does not model."""

    def static(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum], form: int
               ) -> None:
        _float_tmp(check, config, specs, attrs, form)
        if config.name != "cpu":
            return
        d = specs["dst"]
        for role in roles:
            s = specs.get(role)
            if s is not None and (s.rows, s.cols, s.blayout, s.slayout, s.fractal_size) != \
                    (d.rows, d.cols, d.blayout, d.slayout, d.fractal_size):
                raise NotModelledError(
                    f"{check.instr} on cpu: the simulator reads {role} at dst's element offsets (TPow.hpp, "
                    f"TPow_Impl<DstTile>); a {role} tile of another shape or layout than dst's is not modelled")

    return static


def _float_tmp(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum],
               form: int) -> None:
    """A2/A3 float TPOW/TPOWS use tmp as float scratch: of dst's element type (the instruction page)."""
    d, t = specs["dst"], specs.get("tmp")
    if config.name == "a2a3" and d.dtype.is_float and t is not None and t.dtype is not d.dtype:
        check.fail("tmp", f"must have dst's element type {d.dtype.cname} for a float TPOW on this target "
                          f"(got {t.dtype.cname})")


def _valid_then(rule: Callable[[Check, Plan, Tiles], None], extra: Callable[[Check, Plan, Tiles], None]
                ) -> Callable[[Check, Plan, Tiles], None]:
    def both(check: Check, plan: Plan, tiles: Tiles) -> None:
        rule(check, plan, tiles)
        extra(check, plan, tiles)

    return both


def _pow_tmp_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    """A2/A3 float: tmp's valid shape equals dst's (PTO_ASSERT in TPOW_IMPL / TPOWS_IMPL)."""
    if plan.config.name == "a2a3" and plan.specs["dst"].dtype.is_float and "tmp" in tiles and \
            tiles["tmp"].valid_shape != tiles["dst"].valid_shape:
        check.fail("tmp", f"valid shape {tiles['tmp'].valid_shape} must equal dst's valid shape "
                          f"{tiles['dst'].valid_shape} for a float TPOW on this target")


def _prelu_tmp_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    """A2/A3: tmp holds the compare mask, and its row after dst's valid rows TSEL's scratch: more valid rows."""
    if plan.config.name == "a2a3" and tiles["tmp"].valid_row <= tiles["dst"].valid_row:
        check.fail("tmp", f"needs more valid rows ({tiles['tmp'].valid_row}) than dst ({tiles['dst'].valid_row}) "
                          "on this target (the rows after dst's hold TSEL's scratch)")


def _legality(a2a3: tuple[D, ...], a5: tuple[D, ...], same: tuple[str, ...], row_major: tuple[str, ...],
              cpu_row_major: tuple[str, ...] = (), a2a3_extra: Mapping[str, tuple[D, ...]] | None = None,
              cpu: tuple[D, ...] = ALL9) -> dict[str, Legality]:
    extra = dict(a2a3_extra or {})
    return {
        "a2a3": Legality({"dst": a2a3, **extra}, same=(same,), row_major=(*row_major, *extra)),
        "a5": Legality({"dst": a5}, same=(same,), row_major=row_major),
        "cpu": Legality({"dst": cpu}, same=(same,), row_major=cpu_row_major),
    }


_FMOD_ROLES = ("dst", "src0", "src1")
TFMOD = instruction(
    "TFMOD", operands=(dst(), src("src0"), src("src1")),
    legality=_legality((D.F32,), (D.F16, D.F32, D.U16, D.I16, D.U32, D.I32), _FMOD_ROLES, _FMOD_ROLES),
    dynamic=equal_valid("src0", "src1"), family="binary",
    summary="dst = fmod(src0, src1), with the sign of src0 (NPUs: src0 - trunc(src0 / src1) * src1 in float)",
)(_nonzero_divisor(_binary(_fmod, "src0", "src1")))

_POW_A2A3 = (D.I32, D.I16, D.I8, D.U32, D.U16, D.U8, D.F32)
_POW_A5 = (D.U8, D.I8, D.U16, D.I16, D.U32, D.I32, D.F16, D.F32)
_POW_ROLES = ("dst", "base", "exp")
TPOW = instruction(
    "TPOW", operands=(dst(), src("base"), src("exp"), tmp("tmp")),
    legality=_legality(_POW_A2A3, _POW_A5, _POW_ROLES, _POW_ROLES),
    static=_same_tile_type(("base", "exp")), dynamic=_valid_then(equal_valid("base", "exp"), _pow_tmp_rule),
    family="binary", summary="dst = base ** exp (integers wrap; NPUs: exp(ln|base| * exp) and special cases)",
)(_binary(_pow, "base", "exp"))
TPOWS = instruction(
    "TPOWS", operands=(dst(), src("base"), scalar("exp", dtype_of="dst"), tmp("tmp")),
    legality=_legality(_POW_A2A3, _POW_A5, ("dst", "base"), ("dst", "base"), cpu_row_major=("dst", "base")),
    static=_float_tmp, dynamic=_valid_then(equal_valid("base"), _pow_tmp_rule),
    family="scalar", summary="dst = base ** exp for a scalar exp (cpu: std::pow in double for every type)",
)(_binary(_pows, "base", "exp"))
TPRELU = instruction(
    "TPRELU", operands=(dst(), src("src0"), src("src1"), tmp("tmp")),
    legality=_legality((D.F16, D.F32), (D.F16, D.F32), _FMOD_ROLES, _FMOD_ROLES, a2a3_extra={"tmp": (D.U8,)}),
    dynamic=_valid_then(equal_valid("src0", "src1"), _prelu_tmp_rule), family="compound",
    summary="dst = src0 > 0 ? src0 : src0 * src1",
)(_binary(_prelu, "src0", "src1"))


__all__ = ["TFMOD", "TPOW", "TPOWS", "TPRELU"]
