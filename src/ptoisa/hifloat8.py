"""HiFloat8 (`hifloat8_t`): an 8-bit float with a tapered precision, stored as one raw byte.

Encoding of a byte `S PPPPPPP` (sign S, 7-bit payload), as the reference simulator decodes it
(include/pto/cpu/Hifloat8.hpp, worked out here from its rules):

* payload 0000 0mmm: mmm == 0 is zero (S = 0) or NaN (S = 1); otherwise the denormal 2^(mmm - 23).
* otherwise a "dot" prefix gives the number of exponent bits D: 11 -> 4, 10 -> 3, 01 -> 2 (5 bits follow), 001 -> 1
  (4 bits follow), 0001 -> 0 (3 bits follow). The simulator splits the bits that follow into D exponent bits and
  5 - D mantissa bits whatever their number, so for D = 1 the exponent field is always 0 and for D = 0 the
  mantissa is 3 bits read as fifths of 32 (1 + m/32). The exponent is sign-magnitude with an implicit leading 1 on
  the magnitude: magnitude = 2^(D-1) | (low D-1 bits), negative when the top exponent bit is set; E = 0 for D = 0.
  Value = (-1)^S * 2^E * (1 + m / 2^(5-D)). D = 4, E = 15, m = 1 is infinity. This is the simulator's table,
  reproduced as it is (it differs from the published HiF8 definition for D = 0 and 1); on the NPUs hifloat8 data
  only moves (mask TGATHER), so the table matters for display, .npy I/O and scalars.

Conversion from a real number (the reference's `hifloat8_t(double)`): the nearest representable value; a tie
goes to the smaller of the two; a value beyond the largest finite one becomes the largest finite one, +inf
included (|inf - inf| is NaN, never the nearer); -inf stays -inf; NaN becomes the smallest value (-inf), since
the reference's NaN assignment is overwritten by its search. ptoisa reproduces all of it.
"""

from __future__ import annotations

import numpy as np


def _decode(byte: int) -> float:
    sign = -1.0 if byte & 0x80 else 1.0
    payload = byte & 0x7F
    if payload >> 3 == 0:
        m = payload & 0x07
        if m == 0:
            return float("nan") if byte & 0x80 else 0.0
        return sign * 2.0 ** (m - 23)
    if payload >> 5 == 3:
        dbits, rest = 4, payload & 0x1F
    elif payload >> 5 == 2:
        dbits, rest = 3, payload & 0x1F
    elif payload >> 5 == 1:
        dbits, rest = 2, payload & 0x1F
    elif payload >> 4 == 1:
        dbits, rest = 1, payload & 0x0F
    else:
        dbits, rest = 0, payload & 0x07
    mbits = 5 - dbits
    raw_exp, mant = rest >> mbits, rest & ((1 << mbits) - 1)
    exponent = 0
    if dbits:
        top = raw_exp & (1 << (dbits - 1))
        magnitude = (1 << (dbits - 1)) | (raw_exp - top)
        exponent = -magnitude if top else magnitude
    if dbits == 4 and exponent == 15 and mant == 1:
        return sign * float("inf")
    return sign * 2.0 ** exponent * (1.0 + mant / (1 << mbits))


DECODE = np.array([_decode(b) for b in range(256)], dtype=np.float64)
DECODE.setflags(write=False)
_VALID = np.flatnonzero(~np.isnan(DECODE))
_ORDER = _VALID[np.argsort(DECODE[_VALID], kind="stable")]
_SORTED = DECODE[_ORDER]


def to_float(raw: np.ndarray) -> np.ndarray:
    """The float64 values of raw hifloat8 bytes (any integer or 1-byte void array)."""
    return DECODE[np.asarray(raw).view(np.uint8)]


def from_float(values: np.ndarray | float) -> np.ndarray:
    """Raw hifloat8 bytes for real values, rounded as the reference simulator rounds (see the module docstring)."""
    x = np.asarray(values, dtype=np.float64)
    pos = np.searchsorted(_SORTED, x, side="left")  # the first value >= x (lower_bound); NaN sorts last
    nan = np.isnan(x)
    past = pos >= _SORTED.size
    at = np.minimum(pos, _SORTED.size - 1)
    prev = np.maximum(pos - 1, 0)
    with np.errstate(invalid="ignore"):
        take_current = np.abs(_SORTED[at] - x) < np.abs(_SORTED[prev] - x)
    index = np.where(pos == 0, 0, np.where(take_current, at, prev))
    index = np.where(past, _SORTED.size - 1, index)
    index = np.where(nan, 0, index)  # the reference's search sends NaN to the first (smallest) value
    return _ORDER[index].astype(np.uint8)
