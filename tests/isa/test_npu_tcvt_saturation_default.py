"""TCVT(dst, src, mode) without a saturation mode on the NPUs: the backends pick OFF for half -> uint8, int8,
int16, float -> int16 and int32 -> int16 (a2a3/TCvt.hpp kIsNarrowingCvt, a5/TCvt.hpp TCVT_IMPL's type-specific
defaults) and ON for the rest. Worked by hand: rint(-50.3) = -50 keeps its low byte 206 in uint8, 300 -> 44,
-1 -> 255, 40000 -> 40000 - 65536 = -25536 in int16; saturated they clamp to 0, 255 and 32767."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import RoundMode, SaturationMode, Tile, TileType

VALUES = [-50.3, 300.0, -1.0, 3.6, 0.4, -0.6, 100.0, 255.0]


def _convert(target: str, src_type, dst_type, values, sat=None) -> list[int]:
    with ptoisa.target(target):
        src = Tile[TileType.Vec, src_type, 1, 32]()
        dst = Tile[TileType.Vec, dst_type, 1, 32]()
        src.set_logical(np.array([values * (32 // len(values))], dtype=src_type))
        if sat is None:
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT)
        else:
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT, sat)
    return dst.data[0, :len(values)].tolist()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_half_to_uint8_keeps_the_low_bits_by_default(target):
    wrapped = [206, 44, 255, 4, 0, 255, 100, 255]
    assert _convert(target, np.float16, np.uint8, VALUES) == wrapped
    assert _convert(target, np.float16, np.uint8, VALUES, SaturationMode.OFF) == wrapped
    assert _convert(target, np.float16, np.uint8, VALUES, SaturationMode.ON) == [0, 255, 0, 4, 0, 0, 100, 255]


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("src_type", [np.float32, np.float16])
def test_float_to_int16_keeps_the_low_bits_by_default(target, src_type):
    values = [40000.0, -40000.0, 1.5, -2.5]
    assert _convert(target, src_type, np.int16, values) == [-25536, 25536, 2, -2]
    assert _convert(target, src_type, np.int16, values, SaturationMode.ON) == [32767, -32768, 2, -2]


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_float_to_int32_saturates_by_default(target):
    assert _convert(target, np.float32, np.int32, [3e9, -3e9, 2.5, -0.5]) == [2147483647, -2147483648, 2, 0]
