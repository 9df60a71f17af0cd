"""TSEL's mask on the NPUs: dst row i takes its bits from the first byte of mask row i on (a2a3/TSel.hpp puts
maskPtr + i * RowStride in CMPMASK; a5/TSel.hpp loads the predicate at i * maskRowStride), where the simulator
reads one bit stream that moves to the next mask row after the mask's valid columns. With 10 valid columns and
a 2-byte valid mask row the two differ on row 1: its bits 8 and 9 are bits 0 and 1 of mask row 1's second byte
(0xFF: src0) on the NPUs, and bits 18 and 19 of the stream, in mask row 1's first byte (0x00: src1), on cpu."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType


@pytest.mark.parametrize("target,row1", [
    ("a2a3", ["b"] * 8 + ["a"] * 2), ("a5", ["b"] * 8 + ["a"] * 2), ("cpu", ["b"] * 10)])
def test_each_dst_row_starts_at_its_mask_row(target, row1):
    with ptoisa.target(target):
        spec = Tile[TileType.Vec, np.float32, 2, 16, BLayout.RowMajor, 2, 10]
        src0, src1, dst = spec(), spec(), spec()
        mask = Tile[TileType.Vec, np.uint8, 2, 32, BLayout.RowMajor, 2, 2]()
        src0.set_logical(np.ones((2, 16), np.float32))
        src1.set_logical(np.full((2, 16), 2.0, np.float32))
        mask.data[0, :2] = [0xFF, 0x00]
        mask.data[1, :2] = [0x00, 0xFF]
        ptoisa.TSEL(dst, mask, src0, src1, Tile[TileType.Vec, np.uint8, 1, 32]())
    names = {1.0: "a", 2.0: "b"}
    assert [names[v] for v in dst.valid[0].tolist()] == ["a"] * 8 + ["b"] * 2
    assert [names[v] for v in dst.valid[1].tolist()] == row1
