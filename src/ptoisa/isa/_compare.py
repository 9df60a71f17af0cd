"""Exact element comparisons, fast for 16-bit floats.

NumPy converts float16 (and ml_dtypes bfloat16) slowly, so 16-bit floats are compared through an integer key
instead: for an IEEE-style sign-magnitude pattern b, key(b) = +magnitude or -magnitude orders every non-NaN value
exactly like the real numbers (with -0 == +0), and NaNs are masked separately.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import DType
from .enums import CmpMode

OPS = {
    CmpMode.EQ: np.equal, CmpMode.NE: np.not_equal, CmpMode.LT: np.less,
    CmpMode.LE: np.less_equal, CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal,
}
INF_BITS_16 = {DType.F16: 0x7C00, DType.BF16: 0x7F80}
VIA_FLOAT32 = (DType.F8E4M3, DType.F8E5M2)
_SMALL = 4096  # below this many elements a float32 conversion is cheaper than the integer-key ops


def compare(values: np.ndarray, scalar: np.generic, mode: CmpMode, dtype: DType) -> np.ndarray:
    """IEEE / integer comparison of every element with the scalar (same dtype), exact."""
    if dtype in INF_BITS_16 and values.size > _SMALL:
        return compare_bits16(values.view(np.uint16), np.asarray(scalar).view(np.uint16), mode,
                              INF_BITS_16[dtype])
    if dtype in VIA_FLOAT32 or dtype in INF_BITS_16:
        return OPS[mode](values.astype(np.float32), np.float32(scalar))
    return OPS[mode](values, scalar)


def compare_bits16(bits: np.ndarray, scalar_bits: np.ndarray, mode: CmpMode, inf_bits: int) -> np.ndarray:
    """Compare 16-bit sign-magnitude float patterns (half, bfloat16) as the numbers they encode."""
    key_a, nan_a = _key16(bits, inf_bits)
    raw = int(scalar_bits)  # the scalar's key in plain Python: NumPy's per-call cost dominates 0-d arrays
    magnitude = raw & 0x7FFF
    key_b, nan_b = np.int16(-magnitude if raw & 0x8000 else magnitude), magnitude > inf_bits
    result = OPS[mode](key_a, key_b)
    if mode is CmpMode.NE:
        return result | nan_a | nan_b
    return result & ~(nan_a | nan_b)


def _key16(bits: np.ndarray, inf_bits: int) -> tuple[np.ndarray, np.ndarray]:
    magnitude = bits & np.uint16(0x7FFF)
    flipped = (bits ^ ((bits >> np.uint16(15)) * np.uint16(0x7FFF))).view(np.int16)
    key = flipped + (flipped < 0)  # negative patterns map to -magnitude; -0 becomes 0
    return key, magnitude > np.uint16(inf_bits)


def is_inf16(bits: np.ndarray, inf_bits: int) -> np.ndarray:
    return (bits & np.uint16(0x7FFF)) == np.uint16(inf_bits)
