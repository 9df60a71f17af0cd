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


def _int_convert(target, src_type, dst_type, values, sat=None) -> list[int]:
    with ptoisa.target(target):
        src = Tile[TileType.Vec, src_type, 1, 32 // np.dtype(src_type).itemsize * 8]()
        dst = Tile[TileType.Vec, dst_type, 1, 32 // np.dtype(src_type).itemsize * 8]()
        src.set_logical(np.resize(np.array(values, dtype=src_type), (1, src.spec.cols)))
        if sat is None:
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT)
        else:
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT, sat)
    return dst.data[0, :len(values)].tolist()


@pytest.mark.parametrize("target,src_type,dst_type,values,sat,want", [
    # a5/TCvt.hpp: I16 -> U8, I32 -> U8, U32 -> U8/I16 are #sat casts; their default is ON
    ("a5", np.int16, np.uint8, [-1000, 300, 77], None, [0, 255, 77]),
    ("a5", np.int16, np.uint8, [-1000, 300, 77], SaturationMode.OFF, [24, 44, 77]),
    ("a5", np.int32, np.uint8, [-5, 256, 255], None, [0, 255, 255]),
    ("a5", np.uint32, np.int16, [40000, 7], None, [32767, 7]),
    ("a5", np.uint32, np.uint8, [300, 7], None, [255, 7]),
    ("a5", np.int16, np.uint32, [-1000, 5], None, [0, 5]),
    ("a5", np.int16, np.uint32, [-1000, 5], SaturationMode.OFF, [2 ** 32 - 1000, 5]),
    ("a5", np.int8, np.int16, [-128, 127], None, [-128, 127]),
    # int32 -> int16 defaults to OFF on both NPUs (low bits); ON clamps
    ("a2a3", np.int32, np.int16, [40000, -40000], None, [-25536, 25536]),
    ("a2a3", np.int32, np.int16, [40000, -40000], SaturationMode.ON, [32767, -32768]),
    ("a5", np.int32, np.int16, [40000, -40000], SaturationMode.ON, [32767, -32768]),
])
def test_npu_integer_conversions_saturate_when_on(target, src_type, dst_type, values, sat, want):
    assert _int_convert(target, src_type, dst_type, values, sat) == want


@pytest.mark.parametrize("target,src_type,dst_type,legal", [
    ("a2a3", np.int32, np.float16, True), ("a5", np.int32, np.float16, False),  # A2/A3's deq path only
    ("a5", np.float32, np.int8, False), ("a5", np.int32, np.int8, False), ("a5", np.uint8, np.float32, False),
    ("a5", np.uint32, np.uint16, True), ("a5", np.uint8, np.uint16, True), ("a5", np.int32, np.uint16, True),
])
def test_a5_conversions_are_the_backends_castdata_overloads(target, src_type, dst_type, legal):
    from ptoisa.errors import IllegalInstructionError

    if legal:
        _int_convert(target, src_type, dst_type, [1, 2])
    else:
        with pytest.raises(IllegalInstructionError):
            _int_convert(target, src_type, dst_type, [1, 2])
