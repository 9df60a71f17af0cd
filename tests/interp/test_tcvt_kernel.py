"""pto.tcvt in a kernel: the rounding mode from the text's attribute, the saturation left at its default (the
interpreter's compiled call drops the trailing None attribute, as the Python call omits it). Expected integers
worked by hand for each mode."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa

KERNEL = """func.func @cvt(%x: !pto.ptr<f32>, %y: !pto.ptr<i16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %tx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xf32>
  %ty = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xi16>
  %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xf32> -> !pto.partition_tensor_view<1x16xf32>
  %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xi16> -> !pto.partition_tensor_view<1x16xi16>
  %a = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  %b = pto.alloc_tile : !pto.tile_buf<vec, 1x16xi16>
  pto.tload ins(%px : !pto.partition_tensor_view<1x16xf32>) outs(%a : !pto.tile_buf<vec, 1x16xf32>)
  pto.tcvt ins(%a {rmode = #pto<round_mode MODE>} : !pto.tile_buf<vec, 1x16xf32>) outs(%b : !pto.tile_buf<vec, 1x16xi16>)
  pto.tstore ins(%b : !pto.tile_buf<vec, 1x16xi16>) outs(%py : !pto.partition_tensor_view<1x16xi16>)
  return
}
"""
X = np.array([[1.5, -2.5, 2.5, -0.5, 7.0, -7.75, 0.25, 3.5] * 2], np.float32)
WANT = {"CAST_RINT": [2, -2, 2, 0, 7, -8, 0, 4], "CAST_FLOOR": [1, -3, 2, -1, 7, -8, 0, 3],
        "CAST_CEIL": [2, -2, 3, 0, 7, -7, 1, 4], "CAST_TRUNC": [1, -2, 2, 0, 7, -7, 0, 3],
        "CAST_ROUND": [2, -3, 3, -1, 7, -8, 0, 4]}


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("mode", sorted(WANT))
def test_tcvt_modes_in_a_kernel(target, mode):
    program = ptoisa.load(KERNEL.replace("MODE", mode.removeprefix("CAST_")))  # PTOAS spells RINT, FLOOR, ...
    y = np.zeros((1, 16), np.int16)
    for _ in range(2):  # the second run takes the compiled call
        program.run(X, y, target=target)
        assert y[0, :8].tolist() == WANT[mode] and y[0, 8:].tolist() == WANT[mode]
