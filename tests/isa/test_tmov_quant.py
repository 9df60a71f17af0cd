"""TMOV's quantised forms (a preQuantScalar word or an fp tile), worked by hand from the simulator's TMov.hpp
(scalar ignored: a plain move; fp: TEXTRACT_FP at 0, 0) and the backends' TMov.hpp (set_quant_pre, then the
fixpipe's quantize_element)."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import (AccToVecMode, BLayout, IllegalInstructionError, NotModelledError, ReluPreMode, SLayout, Tile,
                    TileType, uint8_t)

AccF = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]
VecI8 = Tile[TileType.Vec, "int8_t", 16, 32, BLayout.RowMajor, 16, 16]
MatU8 = Tile[TileType.Mat, uint8_t, 16, 32, BLayout.ColMajor, 16, 16, SLayout.RowMajor]

SCALE2_SIGNED = 0x40000000 | (1 << 46)  # float 2.0 in bits 0..31, bit 46: signed clamp -128..127


def _acc() -> Tile:
    acc = AccF()
    values = np.zeros((16, 16), np.float32)
    values[0, :4] = [1.25, 1.75, -100.0, 70.0]
    acc.set_logical(values)
    return acc


def _vec_q() -> Tile:
    return VecI8()


def test_scalar_form_quantises_on_the_npu():
    out = _vec_q()
    ptoisa.TMOV(out, _acc(), SCALE2_SIGNED, target="a5")
    # x 2.0: 2.5 -> 2 (ties to even), 3.5 -> 4, -200 -> -128, 140 -> 127
    assert out.data[0, :4].tolist() == [2, 4, -128, 127]
    relu = _vec_q()
    ptoisa.TMOV(relu, _acc(), SCALE2_SIGNED, ReluPreMode.NormalRelu, target="a5")
    assert relu.data[0, :4].tolist() == [2, 4, 0, 127]  # ReLU on the scaled value, before the clamp


def test_scalar_form_on_cpu_is_the_simulators_plain_move():
    out = _vec_q()
    ptoisa.TMOV(out, _acc(), SCALE2_SIGNED, target="cpu")
    # cpu/TMov.hpp: (void)preQuantScalar; SetElement's static_cast<int8_t>(float) truncates
    assert out.data[0, :4].tolist() == [1, 1, -100, 70]
    relu = _vec_q()
    ptoisa.TMOV(relu, _acc(), SCALE2_SIGNED, ReluPreMode.NormalRelu, target="cpu")
    assert relu.data[0, :4].tolist() == [1, 1, 0, 70]  # `if (v < 0) v = 0` after the move


def _m1(scale: float) -> int:
    bits = int(np.array(scale, np.float32).view(np.uint32))
    return (((bits >> 31) << 18) | (((bits >> 23) & 0xFF) << 10) | ((bits >> 13) & 0x3FF)) << 13


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_fp_form_uses_one_word_per_column(target):
    acc = Tile[TileType.Acc, "int32_t", 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]()
    values = np.zeros((16, 16), np.int32)
    values[3, :3] = [10, 10, 10]
    acc.set_logical(values)
    fp = Tile[TileType.Scaling, "uint32_t", 1, 16]()
    fp.set_logical([[_m1(1.0), _m1(0.25), _m1(3.0)] + [_m1(1.0)] * 13])
    out = MatU8()
    ptoisa.TMOV(out, acc, fp, target=target)
    # 10 x 1 = 10; 10 x 0.25 = 2.5 -> 2 (ties to even); 10 x 3 = 30 (unsigned clamp: bit 46 is 0)
    assert out.data[3, :3].tolist() == [10, 2, 30]


def test_quantised_forms_follow_the_fixpipe_tables():
    with pytest.raises(IllegalInstructionError, match="quantised Vec -> Vec move is not supported"):
        ptoisa.TMOV(_vec_q(), Tile[TileType.Vec, float, 16, 16](), 1, target="a5")
    with pytest.raises(IllegalInstructionError, match="needs the unquantised form"):
        ptoisa.TMOV(_vec_q(), _acc(), SCALE2_SIGNED, ReluPreMode.NoRelu, AccToVecMode.DualModeSplitM, target="a5")


def test_the_other_vector_cores_modes_are_not_modelled_on_the_npu():
    with pytest.raises(NotModelledError, match="SingleModeVec1"):
        ptoisa.TMOV(_vec_q(), _acc(), SCALE2_SIGNED, ReluPreMode.NoRelu, AccToVecMode.SingleModeVec1, target="a5")
