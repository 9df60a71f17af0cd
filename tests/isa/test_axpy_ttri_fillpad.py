"""TAXPY and TTRI: expected values from the instruction pages' formulas and the simulator's loops
(TBinSOps.hpp TAXPY_IMPL: the product rounds to src0's type, then the sum to dst's; TTRI.hpp: ones where
j <= i + diagonal (lower) or j >= i + diagonal (upper) over the valid region), worked by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType, TriangleMode

TARGETS = ["a2a3", "a5", "cpu"]


@pytest.mark.parametrize("target", TARGETS)
def test_axpy_adds_the_scaled_source(target):
    d, x = Tile[TileType.Vec, np.float32, 2, 8](), Tile[TileType.Vec, np.float32, 2, 8]()
    d.set_logical(np.full((2, 8), 1.0, np.float32))
    x.set_logical(np.arange(16, dtype=np.float32).reshape(2, 8))
    ptoisa.TAXPY(d, x, 0.5, target=target)
    assert d.data.tolist() == (1.0 + np.arange(16).reshape(2, 8) * 0.5).tolist()


def test_half_source_under_a_float_dst_rounds_the_product_to_half():
    """1025 (exact in half) * 3 = 3075 lies halfway between the halves 3074 and 3076 (spacing 2 in [2048, 4096)):
    it rounds to 3076, the even one, and the float dst gets 0.5 + 3076 = 3076.5 (3075.5 if the product stayed
    in float)."""
    d, x = Tile[TileType.Vec, np.float32, 1, 16](), Tile[TileType.Vec, np.float16, 1, 16]()
    d.set_logical(np.full((1, 16), 0.5, np.float32))
    x.set_logical(np.full((1, 16), 1025.0, np.float32))
    ptoisa.TAXPY(d, x, 3.0, target="cpu")
    assert d.data[0, 0] == np.float32(3076.5)


def test_axpy_refuses_mixed_types_other_than_half_under_float():
    d, x = Tile[TileType.Vec, np.float16, 1, 16](), Tile[TileType.Vec, np.float32, 1, 16]()
    before = d.tobytes()
    with pytest.raises(ptoisa.PtoError, match="half under a float dst"):
        ptoisa.TAXPY(d, x, 1.0, target="cpu")
    assert d.tobytes() == before


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("diagonal", [-2, 0, 3])
def test_ttri_lower_and_upper(target, diagonal):
    m = Tile[TileType.Vec, np.int32, 4, 8, BLayout.RowMajor, 4, 6]()
    m.set_logical(np.full((4, 8), 7, np.int32))
    ptoisa.TTRI(m, diagonal, TriangleMode.LOWER, target=target)
    want = [[1 if j <= i + diagonal else 0 for j in range(6)] + [7, 7] for i in range(4)]
    assert m.data.tolist() == want  # the two columns past the valid region keep their 7s
    ptoisa.TTRI(m, diagonal, TriangleMode.UPPER, target=target)
    assert m.data.tolist() == [[1 if j >= i + diagonal else 0 for j in range(6)] + [7, 7] for i in range(4)]


def test_ttri_text_form_takes_the_integer_attribute():
    kernel = """func.func @k(%out: !pto.ptr<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %d = arith.constant 1 : i32
  %tv = pto.make_tensor_view %out, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xi32>
  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xi32> -> !pto.partition_tensor_view<4x8xi32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xi32>
  pto.ttri ins(%d {upperOrLower = 1 : i32} : i32) outs(%t : !pto.tile_buf<vec, 4x8xi32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xi32>) outs(%pv : !pto.partition_tensor_view<4x8xi32>)
  return
}
"""
    out = np.zeros((4, 8), np.int32)
    ptoisa.load(kernel).run(out, target="cpu")
    assert out.tolist() == [[1 if j >= i + 1 else 0 for j in range(8)] for i in range(4)]  # upper, diagonal 1


@pytest.mark.parametrize("target", TARGETS)
def test_fillpad_in_place_keeps_the_valid_region_and_pads_the_rest(target):
    """pto.tfillpad_inplace ins(%t) outs(%t): the same tile in and out; PadValue.Max pads a float tile with +inf
    outside the 2 x 3 valid region (the page's pad values; the simulator's half erratum does not touch float)."""
    from ptoisa import PadValue, SLayout

    t = Tile[TileType.Vec, np.float32, 2, 8, BLayout.RowMajor, 2, 3, SLayout.NoneBox, 512, PadValue.Max]()
    t.set_logical(np.arange(16, dtype=np.float32).reshape(2, 8))
    with ptoisa.target(target, errata=False):  # (a2a3's tfillpad_expand_src_block_tail: see below)
        ptoisa.TFILLPAD_INPLACE(t, t)
    want = np.full((2, 8), np.inf, np.float32)
    want[:, :3] = [[0, 1, 2], [8, 9, 10]]
    assert t.data.tolist() == want.tolist()
    # A2/A3 pads from the 32-byte boundary past the valid columns when dst's and src's PadValue are equal: a row
    # of 8 floats is one block, so the in-place fill leaves every element as it was (tests/isa/test_fillpad_npu.py)
    t.set_logical(np.arange(16, dtype=np.float32).reshape(2, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptoisa.ErratumWarning)
        ptoisa.TFILLPAD_INPLACE(t, t, target=target)
    if target == "a2a3":
        want = np.arange(16, dtype=np.float32).reshape(2, 8)
    assert t.data.tolist() == want.tolist()
