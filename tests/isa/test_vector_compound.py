"""Compound element-wise instructions against values worked out here.

Expected values: Python integers wrapped by hand, float64 math rounded with NumPy's conversions, and the C++ of
the simulator (include/pto/cpu/ElementOp.h, common.hpp): `ReLU(v)` is `v > 0 ? v : 0` with `v`'s own type, so
`ReLU(src0 - src1)` on 16-bit integers clamps the int difference before narrowing it.
"""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, IllegalInstructionError, Tile, TileType


def tile(dtype, rows, cols, values=None, layout=BLayout.RowMajor):
    t = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](rows, cols)
    if values is not None:
        t.set_logical(np.asarray(values))
    return t


def wrap16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def test_tsubrelu_int16_clamps_before_narrowing():
    pairs = [(-30000, 10000), (30000, -10000), (5, 7), (7, 5), (-32768, 32767), (32767, -32768)] + [(0, 0)] * 10
    a = tile(np.int16, 1, 16, [[p[0] for p in pairs]])
    b = tile(np.int16, 1, 16, [[p[1] for p in pairs]])
    d = tile(np.int16, 1, 16)
    ptoisa.TSUBRELU(d, a, b, target="cpu")
    expect = [wrap16(max(x - y, 0)) for x, y in pairs]  # Python ints do not wrap: the clamp sees -40000
    assert d.data[0].tolist() == expect
    assert expect[:2] == [0, -25536]


def test_tsubrelu_float_nan_and_negative_zero_become_zero():
    a = tile(np.float32, 1, 8, [[np.nan, -0.0, 1.5, -2.0, 3.0, np.inf, 0.0, 2.0]])
    b = tile(np.float32, 1, 8, [[1.0, 0.0, 0.5, 1.0, np.nan, 1.0, 0.0, 2.0]])
    d = tile(np.float32, 1, 8)
    ptoisa.TSUBRELU(d, a, b, target="a5")
    got = d.data[0]
    assert got.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, np.inf, 0.0, 0.0]
    assert not np.signbit(got).any()  # the literal 0, never -0.0


def test_three_operand_sums_round_once_per_addition():
    # float32: 1e8 + 1 rounds back to 1e8 before -1e8 is added, so the order of the additions shows
    a, b, c = (tile(np.float32, 1, 8, [[v] * 8]) for v in (1e8, 1.0, -1e8))
    d = tile(np.float32, 1, 8)
    ptoisa.TADDC(d, a, b, c, target="cpu")
    assert d.data[0, 0] == np.float32(np.float32(1e8) + np.float32(1.0)) + np.float32(-1e8) == 0.0
    ptoisa.TSUBC(d, a, c, b, target="cpu")  # (1e8 - -1e8) + 1
    assert d.data[0, 0] == np.float32(2e8)
    ptoisa.TADDSC(d, c, np.float32(1e8), b, target="cpu")  # (-1e8 + 1e8) + 1
    assert d.data[0, 0] == 1.0
    ptoisa.TSUBSC(d, a, np.float32(1.0), c, target="cpu")  # (1e8 - 1) + -1e8: 1e8 - 1 rounds to 1e8
    assert d.data[0, 0] == 0.0


def test_taddc_int16_wraps():
    a, b, c = (tile(np.int16, 1, 16, [[v] * 16]) for v in (30000, 30000, 10000))
    d = tile(np.int16, 1, 16)
    ptoisa.TADDC(d, a, b, c, target="cpu")
    assert d.data[0, 0] == wrap16(70000)


def test_multiply_adds_read_dst():
    a = tile(np.float32, 1, 8, [[2.0] * 8])
    b = tile(np.float32, 1, 8, [[3.0] * 8])
    d = tile(np.float32, 1, 8, [[10.0] * 8])
    ptoisa.TFUSEDMULADD(d, a, b, target="a2a3")  # 2 * 10 + 3
    assert d.data[0, 0] == 23.0
    ptoisa.TMULADDDST(d, a, b, target="a2a3")  # 2 * 3 + 23
    assert d.data[0, 0] == 29.0
    d.set_logical(np.full((1, 8), -10.0, np.float32))
    ptoisa.TFUSEDMULADDRELU(d, a, b, target="a2a3")  # ReLU(2 * -10 + 3)
    assert d.data[0, 0] == 0.0


def test_half_multiply_add_rounds_the_product_first():
    # (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9 in half; adding -(1 + 2^-9) then gives 0, where one
    # fused rounding would keep 2^-20 (a half subnormal)
    e = 1 + 2.0 ** -10
    x, y = tile(np.float16, 1, 16, [[e] * 16]), tile(np.float16, 1, 16, [[e] * 16])
    d = tile(np.float16, 1, 16, [[-(1 + 2.0 ** -9)] * 16])
    ptoisa.TMULADDDST(d, x, y, target="cpu")
    assert d.data[0, 0] == 0.0
    d.set_logical(np.full((1, 16), e, np.float16))
    ptoisa.TFUSEDMULADD(d, x, tile(np.float16, 1, 16, [[-(1 + 2.0 ** -9)] * 16]), target="cpu")  # x * dst + src1
    assert d.data[0, 0] == 0.0


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tlrelu_scales_only_non_positive_values(target):
    src = tile(np.float32, 1, 8, [[-4.0, -0.0, 0.0, 3.0, -1.0, np.inf, -np.inf, 2.0]])
    d = tile(np.float32, 1, 8)
    ptoisa.TLRELU(d, src, np.float32(0.25), target=target)
    assert d.data[0].tolist() == [-1.0, -0.0, 0.0, 3.0, -0.25, np.inf, -np.inf, 2.0]


def test_npu_targets_take_half_and_float_only_for_the_relu_and_multiply_add_forms():
    a, b, d = tile(np.int32, 1, 8), tile(np.int32, 1, 8), tile(np.int32, 1, 8)
    before = d.tobytes()
    for target in ("a2a3", "a5"):
        with pytest.raises(IllegalInstructionError, match="TSUBRELU"):
            ptoisa.TSUBRELU(d, a, b, target=target)
        with pytest.raises(IllegalInstructionError):
            ptoisa.TMULADDDST(d, a, b, target=target)
    assert d.tobytes() == before
    ptoisa.TSUBRELU(d, a, b, target="cpu")  # the simulator takes any element type


def test_col_major_refused_on_npu_targets():
    a = tile(np.float32, 8, 8, layout=BLayout.ColMajor)
    b = tile(np.float32, 8, 8, layout=BLayout.ColMajor)
    d = tile(np.float32, 8, 8, layout=BLayout.ColMajor)
    with pytest.raises(IllegalInstructionError, match="row-major"):
        ptoisa.TSUBRELU(d, a, b, target="a5")


def test_mismatched_valid_shapes_refused():
    a = tile(np.float32, 1, 8)
    b = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, -1, -1](1, 4)
    d = tile(np.float32, 1, 8)
    with pytest.raises(IllegalInstructionError, match="valid shape"):
        ptoisa.TFUSEDMULADD(d, a, b, target="cpu")
