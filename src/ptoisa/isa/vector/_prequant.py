"""The fixpipe's pre-quantisation and ReLU on the way out of Acc (TINSERT, TINSERT_FP, TEXTRACT_FP, TMOV's quantised
forms), as the simulator computes them (include/pto/cpu/common.hpp `quantize_element`).

A quantisation word is a `uint64_t`:

* scalar form (`preQuantScalar`): bits 0..31 are the float scale;
* vector form (an fp tile, one word per column): bits 13..31 are a 19-bit float m1 (1 sign, 8 exponent,
  10 mantissa bits, no subnormals: exponent 0 with mantissa 0 is zero, anything else is 1.m * 2**(e - 127));
* both: bits 37..45 an unsigned offset added before rounding (8-bit results), bit 46 chooses a signed
  (-128..127) or unsigned (0..255) clamp, bits 32..35 a right shift minus one (int32 -> int16).

The mode follows the element types (GetScalarPreQuantMode / GetVectorPreQuantMode); a pair without a mode is
a plain move with C++'s implicit conversion (ReLU, if asked, on the source value).
"""

from __future__ import annotations

import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ._common import cpp_float_cast

B8, F16, BF16, DEQ, SHIFT = "b8", "f16", "bf16", "deq", "shift"

_SCALAR_MODES = {(D.F32, D.I8): B8, (D.F32, D.U8): B8, (D.F32, D.F16): F16, (D.F32, D.BF16): BF16,
                 (D.I32, D.I8): B8, (D.I32, D.U8): B8, (D.I32, D.F16): DEQ, (D.I32, D.I16): SHIFT}
_VECTOR_MODES = {(D.F32, D.I8): B8, (D.F32, D.U8): B8, (D.I32, D.I8): B8, (D.I32, D.U8): B8,
                 (D.I32, D.F16): DEQ, (D.I32, D.I16): SHIFT}
_F16_MAX = np.float32(65504.0)


def mode_of(src: D, dst: D, vector: bool) -> str | None:
    """The simulator's quantisation mode for a (src, dst) pair, or None (a plain converting move)."""
    return (_VECTOR_MODES if vector else _SCALAR_MODES).get((src, dst))


def _scale(words: np.ndarray, vector: bool) -> np.ndarray:
    if not vector:
        return (words & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    m1 = (words >> np.uint64(13)) & np.uint64(0x7FFFF)
    sign = np.where((m1 >> np.uint64(18)) & np.uint64(1), -1.0, 1.0)
    exponent = ((m1 >> np.uint64(10)) & np.uint64(0xFF)).astype(np.int64)
    mantissa = (m1 & np.uint64(0x3FF)).astype(np.float64)
    value = sign * (1.0 + mantissa / 1024.0) * np.ldexp(1.0, exponent - 127)  # exact in double, then in float
    value = np.where((exponent == 0) & (mantissa == 0), 0.0, value)
    with quiet():
        return value.astype(np.float32)


def _to_int(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`static_cast<int8_t/uint8_t/int16_t>(float)` as GCC on x86-64 does it: truncate to int32 (NaN and
    out-of-range give INT_MIN), then keep the low bits."""
    with quiet():
        bad = ~np.isfinite(values) | (np.abs(values) >= 2.0**31)
        wide = np.where(bad, np.float32(-2.0**31), values).astype(np.int64)
    return wide.astype(np.int32).astype(dtype)


def apply(values: np.ndarray, dst: D, words: np.ndarray | None, vector: bool, relu: bool,
          cpu: bool = False) -> np.ndarray:
    """Source elements `values` (rows x cols, the source's type) moved to `dst`'s type: quantised with one word
    per column (`words`, uint64, broadcast along rows) when the pair has a mode, with ReLU when `relu`. `cpu`:
    a plain move between half and float converts as the simulator's C++ does (a signalling NaN comes out
    quiet, `cpp_float_cast`)."""
    src = D.F32 if values.dtype == np.float32 else D.I32 if values.dtype == np.int32 else None
    mode = None if words is None or src is None else mode_of(src, dst, vector)
    with quiet():
        if mode is None:
            if relu:
                values = np.where(values > 0, values, np.zeros((), values.dtype))
            if values.dtype == dst.np:
                return values
            if dst.is_float:
                if cpu and {values.dtype, np.dtype(dst.np)} == {np.dtype(np.float16), np.dtype(np.float32)}:
                    return cpp_float_cast(values, dst.np)
                return values.astype(np.float32).astype(dst.np) if values.dtype.kind == "f" else values.astype(dst.np)
            if values.dtype.kind == "f":
                return _to_int(values.astype(np.float32), dst.np)
            return values.astype(np.int64).astype(dst.np)
        # a mode is found only when words are given
        words = np.broadcast_to(words.astype(np.uint64), values.shape)  # type: ignore[union-attr]
        if mode == SHIFT:
            shift = ((words >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
            result = (values.astype(np.int64) >> shift).astype(np.int32).astype(np.int16).astype(np.float32)
        else:
            result = values.astype(np.float32) * _scale(words, vector)
            if mode == B8:
                offset = ((words >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.float32)
                signed = ((words >> np.uint64(46)) & np.uint64(1)).astype(bool)
                rounded = np.rint(result + offset)  # nearbyint in the default rounding mode: ties to even
                low = np.where(signed, np.float32(-128), np.float32(0))
                high = np.where(signed, np.float32(127), np.float32(255))
                result = np.where(rounded < low, low, np.where(high < rounded, high, rounded))
            elif mode in (DEQ, F16):
                # std::clamp(x, -65504, 65504); QF322F16_PRE clamps finite values only (the task cookie's
                # saturate-inf bit is 0 in the simulator), so inf and NaN pass
                clamped = np.where(result < -_F16_MAX, -_F16_MAX, np.where(_F16_MAX < result, _F16_MAX, result))
                result = clamped if mode == DEQ else np.where(np.isfinite(result), clamped, result)
        result = result.astype(np.float32)
        if relu:
            result = np.where(result > 0, result, np.float32(0))
        if dst.is_float:
            return result.astype(dst.np)
        return _to_int(result, dst.np)


def words_of(fp_values: np.ndarray) -> np.ndarray:
    """The fp tile's row 0 as quantisation words: each element converted to uint64_t (C++'s conversion)."""
    if fp_values.dtype.kind in "iu":
        return fp_values.astype(np.int64).astype(np.uint64)
    with quiet():
        return np.trunc(fp_values.astype(np.float64)).astype(np.uint64)
