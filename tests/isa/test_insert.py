"""TINSERT, TINSERT_FP, TEXTRACT_FP: expected values worked by hand from docs/isa/TINSERT.md's formula and the
quantisation word layout (include/pto/cpu/common.hpp), refusals with their messages and no byte changed."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import ptoisa
from ptoisa import (AccToVecMode, BLayout, IllegalInstructionError, NotModelledError, ReluPreMode, SLayout, Tile,
                    TileType, UndefinedBehaviourError, half, int8_t, int16_t, uint8_t)

AccF = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]
AccI = Tile[TileType.Acc, "int32_t", 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]


def _mat(dtype, rows=32, cols=32):
    return Tile[TileType.Mat, dtype, rows, cols, BLayout.ColMajor, rows, cols, SLayout.RowMajor]()


def _fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_plain_insert_writes_src_valid_region_at_the_index_and_nothing_else():
    big = Tile[TileType.Vec, float, 4, 16]()
    big.set_logical(np.full((4, 16), 7.0, np.float32))
    small = Tile[TileType.Vec, float, 2, 8, BLayout.RowMajor, 2, 3]()
    small.set_logical([[1, 2, 3, 9, 9, 9, 9, 9], [4, 5, 6, 9, 9, 9, 9, 9]])
    ptoisa.TINSERT(big, small, 1, 5, target="cpu")
    expected = np.full((4, 16), 7.0, np.float32)
    expected[1, 5:8] = [1, 2, 3]
    expected[2, 5:8] = [4, 5, 6]
    assert np.array_equal(big.data, expected)


def test_relu_form_zeroes_negatives_nan_and_minus_zero():
    acc = AccF()
    values = np.zeros((16, 16), np.float32)
    values[0, :4] = [-1.5, np.nan, -0.0, 2.5]
    acc.set_logical(values)
    out = _mat(half)
    ptoisa.TINSERT(out, acc, 0, 16, ReluPreMode.NormalRelu, target="a2a3")
    got = out.data[0, 16:20].view(np.uint16).tolist()
    assert got == [0, 0, 0, 0x4100]  # 2.5 in half; -0.0 becomes +0.0 (ReLU is x > 0 ? x : 0)


def test_scalar_quant_float_to_int8_rounds_half_to_even_adds_offset_and_clamps():
    acc = AccF()
    values = np.zeros((16, 16), np.float32)
    values[0, :6] = [3.0, 5.0, -1.0, 400.0, -400.0, 7.0]
    acc.set_logical(values)
    out = _mat(int8_t)
    word = _fbits(0.5) | (1 << 46)  # scale 0.5, signed clamp, no offset
    ptoisa.TINSERT(out, acc, word, 0, 0, target="a2a3")
    # 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, 200 -> 127, -200 -> -128, 3.5 -> 4
    assert out.data[0, :6].tolist() == [2, 2, 0, 127, -128, 4]
    unsigned = _mat(uint8_t)
    word = _fbits(0.5) | (10 << 37)  # offset 10, unsigned clamp 0..255
    ptoisa.TINSERT(unsigned, acc, word, 0, 0, target="a5")  # a2a3 takes float -> int8 only
    # 1.5 + 10 = 11.5 -> 12, 12.5 -> 12, 9.5 -> 10, 210, -190 -> 0, 13.5 -> 14
    assert unsigned.data[0, :6].tolist() == [12, 12, 10, 210, 0, 14]


def test_scalar_quant_int32_to_int16_shifts_right_by_field_plus_one():
    acc = AccI()
    values = np.zeros((16, 16), np.int32)
    values[0, :3] = [1000, -1000, 70000 * 8]
    acc.set_logical(values)
    out = _mat(int16_t, 32, 32)
    ptoisa.TINSERT(out, acc, 2 << 32, 0, 0, target="a2a3")  # shift 2 + 1 = 3
    # 1000 >> 3 = 125; -1000 >> 3 = -125; 560000 >> 3 = 70000 wraps in int16 to 70000 - 65536 = 4464
    assert out.data[0, :3].tolist() == [125, -125, 4464]


def test_fp_form_uses_one_m1_word_per_column():
    acc = AccI()
    values = np.zeros((16, 16), np.int32)
    values[1, :3] = [10, 10, 10]
    acc.set_logical(values)
    fp = Tile[TileType.Scaling, "uint32_t", 1, 16]()

    def m1(scale: float) -> int:  # sign | exponent | top 10 mantissa bits, at bit 13
        bits = _fbits(scale)
        return (((bits >> 31) << 18) | (((bits >> 23) & 0xFF) << 10) | ((bits >> 13) & 0x3FF)) << 13

    fp.set_logical([[m1(1.0), m1(0.25), m1(3.0)] + [0] * 13])
    out = _mat(uint8_t)
    ptoisa.TINSERT_FP(out, acc, fp, 0, 0, target="a2a3")
    # 10 * 1 = 10; 10 * 0.25 = 2.5 -> 2 (ties to even); 10 * 3 = 30
    assert out.data[1, :3].tolist() == [10, 2, 30]
    same = _mat(uint8_t)
    ptoisa.TINSERT(same, acc, fp, 0, 0, target="a2a3")  # the C++ TINSERT overload with an fp tile
    assert same.tobytes() == out.tobytes()


def test_textract_fp_reads_the_window_and_the_words_of_its_columns():
    acc = AccI()
    acc.set_logical(np.arange(256, dtype=np.int32).reshape(16, 16))
    fp = Tile[TileType.Scaling, "uint32_t", 1, 16]()
    one = (127 << 10) << 13  # m1 = 1.0
    two = (128 << 10) << 13  # m1 = 2.0
    fp.set_logical([[0, 0, two] + [one] * 13])
    out = Tile[TileType.Mat, uint8_t, 32, 32, BLayout.ColMajor, 2, 3, SLayout.RowMajor]()
    ptoisa.TEXTRACT_FP(out, acc, fp, 4, 2, target="cpu")
    # src[4, 2:5] = 66, 67, 68 with words two, one, one; src[5, 2:5] = 82, 83, 84
    assert out.valid.tolist() == [[132, 67, 68], [164, 83, 84]]


@pytest.mark.parametrize("target, call, match", [
    ("a2a3", lambda: ptoisa.TINSERT(_mat("float"), AccF(), 0, 0, target="a2a3"),
     "dst dtype float is not supported for a float Acc source"),
    ("a5", lambda: ptoisa.TINSERT(Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor,
                                       1024](), Tile[TileType.Vec, float, 16, 16](), 0, 0, target="a5"),
     "a Vec -> Acc TINSERT is not supported"),
    ("a2a3", lambda: ptoisa.TINSERT(_mat(half), AccF(), 20, 0, target="a2a3"),
     "src's valid 16 x 16 at \\(20, 0\\) leaves dst's shape"),
    ("a5", lambda: ptoisa.TINSERT(Tile[TileType.Vec, float, 16, 16](), Tile[TileType.Vec, float, 8, 8](), 0, 0,
                                  ReluPreMode.NormalRelu, target="a5"), "the ReLU form needs an Acc source"),
])
def test_refusals_name_the_rule_and_change_nothing(target, call, match):
    with pytest.raises(IllegalInstructionError, match=match):
        call()


def test_refusal_leaves_dst_bytes_unchanged():
    out = _mat(half)
    out.set_logical(np.full((32, 32), 3.0, np.float16))
    before = out.tobytes()
    with pytest.raises(IllegalInstructionError):
        ptoisa.TINSERT(out, AccF(), 17, 17, target="a2a3")
    assert out.tobytes() == before


def test_acc_to_vec_modes_other_than_vec0_are_not_modelled_on_the_npu():
    acc = AccF()
    vec = Tile[TileType.Vec, float, 16, 16]()
    before = vec.tobytes()
    with pytest.raises(NotModelledError, match="mode=AccToVecMode.DualModeSplitM is not modelled"):
        ptoisa.TINSERT(vec, acc, 0, 0, ReluPreMode.NoRelu, AccToVecMode.DualModeSplitM, target="a5")
    assert vec.tobytes() == before
    ptoisa.TINSERT(vec, acc, 0, 0, ReluPreMode.NoRelu, AccToVecMode.DualModeSplitM, target="cpu")  # ignored there
    ptoisa.TINSERT(vec, acc, 0, 0, ReluPreMode.NoRelu, AccToVecMode.SingleModeVec0, target="a5")


def test_scalar_form_past_the_simulators_word_vector_is_undefined_on_cpu():
    acc = Tile[TileType.Acc, float, 16, 32, BLayout.ColMajor, 8, 32, SLayout.RowMajor, 1024]()
    with pytest.raises(UndefinedBehaviourError, match="scalar vector holds 8 words"):
        ptoisa.TINSERT(_mat(int8_t), acc, _fbits(1.0), 0, 0, target="cpu")


def test_tmov_relu_clears_negatives_after_the_move_and_mode_rules():
    acc = AccF()
    values = np.zeros((16, 16), np.float32)
    values[0, :4] = [-1.0, np.nan, -0.0, 2.0]
    acc.set_logical(values)
    vec = Tile[TileType.Vec, float, 16, 16]()
    ptoisa.TMOV(vec, acc, ReluPreMode.NormalRelu, target="cpu")
    # TMov.hpp: `if (v < 0) v = 0` after the copy, so NaN and -0.0 stay
    assert vec.data[0, :4].view(np.uint32).tolist() == [0, values[0, 1:2].view(np.uint32)[0], 0x80000000,
                                                         0x40000000]
    with pytest.raises(IllegalInstructionError, match="applies to an Acc -> Vec move only"):
        ptoisa.TMOV(Tile[TileType.Vec, float, 16, 16](), vec, ReluPreMode.NoRelu, AccToVecMode.SingleModeVec1,
                    target="a5")


def test_tstore_with_atomic_add_is_refused_before_running():
    from ptoisa.errors import PtoError

    text = """
func.func @k(%p: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %tv = pto.make_tensor_view %p, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
  pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%pv : !pto.partition_tensor_view<16x16xf32>) {atomicType = #pto<atomic_type atomic_add>}
  return
}
"""
    out = np.ones((16, 16), np.float32)
    with pytest.raises(PtoError, match="atomicType = atomic_add is not modelled"):
        ptoisa.load(text).run(out)
    assert np.array_equal(out, np.ones((16, 16), np.float32))
