"""Moves, selections and reshaping, against values worked out here (NumPy slicing and bit arithmetic)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, CmpMode, ErratumWarning, PadValue, SLayout, Tile, TileType


def tile(dtype, rows, cols, values=None, valid=None, pad=PadValue.Null):
    t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1, SLayout.NoneBox, 512, pad](
        *(valid or (rows, cols)))
    if values is not None:
        t.set_logical(np.asarray(values))
    return t


def test_tsel_reads_its_mask_as_one_bit_stream_over_dst_rows():
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    mask = np.zeros((2, 32), np.uint8)
    mask[0, :4] = [0b10100101, 0xFF, 0x00, 0x0F]  # 32 bits for 2 rows x 16 columns, from mask row 0
    d = tile(np.float32, 2, 16)
    m = tile(np.uint8, 2, 32, mask, valid=(2, 4))
    ptoisa.TSEL(d, m, tile(np.float32, 2, 16, a), tile(np.float32, 2, 16, -a), target="cpu")
    bits = np.unpackbits(mask[0, :4], bitorder="little").reshape(2, 16).astype(bool)
    assert np.array_equal(d.to_numpy(), np.where(bits, a, -a))


def test_tcmp_zeroes_dst_then_packs_each_row():
    a = np.arange(64, dtype=np.float32).reshape(2, 32)
    b = np.full((2, 32), 20.0, np.float32)
    d = tile(np.uint8, 2, 32, np.full((2, 32), 0xAA), valid=(2, 4))
    ptoisa.TCMP(d, tile(np.float32, 2, 32, a), tile(np.float32, 2, 32, b), CmpMode.GT, target="cpu")
    expected = np.zeros((2, 32), np.uint8)
    expected[:, :4] = np.packbits(a > b, axis=1, bitorder="little")
    assert np.array_equal(d.to_numpy(), expected)


def test_tfillpad_pads_with_the_tile_pad_value_and_cpu_half_limits_erratum():
    src = tile(np.float32, 2, 16, np.ones((2, 16)), valid=(1, 5))
    dst = tile(np.float32, 2, 16, pad=PadValue.Max)
    ptoisa.TFILLPAD(dst, src, target="cpu")
    expected = np.full((2, 16), np.inf, np.float32)
    expected[0, :5] = 1
    assert np.array_equal(dst.to_numpy(), expected)
    hsrc = tile(np.float16, 2, 16, np.ones((2, 16)), valid=(1, 5))
    hdst = tile(np.float16, 2, 16, pad=PadValue.Min)
    with pytest.warns(ErratumWarning, match="tfillpad_half_limits"):
        ptoisa.TFILLPAD(hdst, hsrc, target="cpu")
    assert hdst.to_numpy()[1, 0] == 0 and hdst.to_numpy()[0, 4] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptoisa.TFILLPAD(hdst, hsrc, target=ptoisa.targets.make_config("cpu", errata=False))
        ptoisa.TFILLPAD(hdst, hsrc, target="a5")
    assert hdst.to_numpy()[1, 0] == -np.inf


def test_textract_tconcat_ttrans_move_the_right_elements():
    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    src = tile(np.float32, 4, 16, a)
    window = tile(np.float32, 4, 16, valid=(2, 8))
    ptoisa.TEXTRACT(window, src, 1, 8, target="cpu")
    assert np.array_equal(window.valid, a[1:3, 8:16])
    joined = tile(np.float32, 4, 32, valid=(4, 24))
    ptoisa.TCONCAT(joined, src, tile(np.float32, 4, 16, -a, valid=(4, 8)), target="cpu")
    assert np.array_equal(joined.valid, np.concatenate([a, -a[:, :8]], axis=1))
    t = tile(np.float32, 16, 8)
    ptoisa.TTRANS(t, tile(np.float32, 4, 16, a, valid=(4, 8)), target="cpu")
    assert np.array_equal(t.to_numpy()[:8, :4], a[:, :8].T)
    with pytest.raises(ptoisa.IllegalInstructionError, match="leaves src"):
        ptoisa.TEXTRACT(window, src, 3, 0, target="cpu")


def test_tpartadd_adds_the_overlap_and_copies_the_rest():
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    b = np.full((2, 16), 100.0, np.float32)
    d = tile(np.float32, 2, 16)
    ptoisa.TPARTADD(d, tile(np.float32, 2, 16, a), tile(np.float32, 2, 16, b, valid=(1, 8)), target="cpu")
    expected = a.copy()
    expected[:1, :8] += 100
    assert np.array_equal(d.to_numpy(), expected)
    before = d.tobytes()
    with pytest.raises(ptoisa.UndefinedBehaviourError):
        ptoisa.TPARTMAX(d, tile(np.float32, 2, 16, a, valid=(1, 16)), tile(np.float32, 2, 16, b, valid=(2, 8)),
                        target="cpu")
    assert d.tobytes() == before


def test_tcmp_on_a2a3_compares_int32_for_equality_whatever_the_mode():
    a = np.arange(64, dtype=np.int32).reshape(2, 32)
    b = np.full((2, 32), 5, np.int32)
    d = tile(np.uint8, 2, 32, valid=(2, 4))
    with pytest.warns(ptoisa.ModeFallbackWarning, match="int32 GT is executed as EQ"):
        ptoisa.TCMP(d, tile(np.int32, 2, 32, a), tile(np.int32, 2, 32, b), CmpMode.GT, target="a2a3")
    assert np.array_equal(d.valid, np.packbits(a == b, axis=1, bitorder="little"))
    ptoisa.TCMP(d, tile(np.int32, 2, 32, a), tile(np.int32, 2, 32, b), CmpMode.GT, target="a5")
    assert np.array_equal(d.valid, np.packbits(a > b, axis=1, bitorder="little"))


def test_target_rules_from_ptoas_and_the_pages():
    """A2/A3 TSEL selects 2- and 4-byte elements only; A5 moves Vec -> Vec windows of ND tiles only."""
    a = tile(np.int8, 2, 32)
    m = tile(np.uint8, 2, 32, valid=(2, 8))
    with pytest.raises(ptoisa.IllegalInstructionError, match="dtype int8 is not supported"):
        ptoisa.TSEL(tile(np.int8, 2, 32), m, a, a, target="a2a3")
    ptoisa.TSEL(tile(np.int8, 2, 32), m, a, a, target="a5")
    boxed = Tile[TileType.Vec, np.float16, 32, 32, BLayout.ColMajor, 32, 32, SLayout.RowMajor]()
    with pytest.raises(ptoisa.IllegalInstructionError, match="must be an ND tile"):
        ptoisa.TEXTRACT(tile(np.float16, 16, 16), boxed, 0, 0, target="a5")


@pytest.mark.parametrize("shape", [(1, 32), (2, 16), (3, 64), (16, 1008), (64, 16), (256, 256)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_row_and_column_sums_add_in_order_with_a_rounding_per_step(shape, dtype):
    """Against a plain Python loop: ((x0 + x1) + x2) + ..., rounded to the accumulator type after each step."""
    rows, cols = shape
    rng = np.random.default_rng(rows * 1000 + cols)
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    src = tile(dtype, rows, cols, x)
    acc = np.float32  # row sums of half accumulate in float (TypeSum), column sums in dst's type
    rsum = Tile[TileType.Vec, np.float32, rows if rows % 8 == 0 else -(-rows // 8) * 8, 1, BLayout.ColMajor,
                -1, -1](rows, 1)
    ptoisa.TROWSUM(rsum, src, tile(dtype, rows, cols), target="cpu")
    for r in range(rows):
        total = acc(0)
        for v in x[r]:
            total = acc(total + acc(v))
        assert rsum.valid[r, 0].tobytes() == np.array(total, np.float32).tobytes()
    csum = tile(dtype, 1, cols)
    ptoisa.TCOLSUM(csum, src, target="cpu")
    for c in range(0, cols, max(1, cols // 7)):
        total = dtype(0)
        for v in x[:, c]:
            total = dtype(total + v)
        assert csum.valid[0, c].tobytes() == np.array(total, dtype).tobytes()
