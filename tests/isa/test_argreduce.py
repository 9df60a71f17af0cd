"""TROWARGMAX/TROWARGMIN/TCOLARGMAX/TCOLARGMIN: expected indices worked from the simulator's loop
(include/pto/cpu/TReduceIdx.hpp: keep element 0, replace only on a strictly greater/smaller value) by hand."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

NAN = np.nan
ROWS = np.array([[1, 3, 3, 2, 0, 0, 0, 0],          # tie: the first 3 (index 1)
                 [NAN, 5, 1, 1, 1, 1, 1, 1],        # NaN first: nothing compares greater, index 0
                 [-0.0, 0.0, -1, -1, -1, -1, -1, -1],  # -0 then +0 are equal: index 0
                 [2, NAN, 9, 9, 1, 1, 1, 1]], np.float32)  # a later NaN is skipped: the first 9 (index 2)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_row_argmax_keeps_the_first_strict_maximum(target):
    src = Tile[TileType.Vec, np.float32, 4, 8]()
    src.set_logical(ROWS)
    dst = Tile[TileType.Vec, np.uint32, 8, 1, BLayout.ColMajor, 4, 1]()
    ptoisa.TROWARGMAX(dst, src, Tile[TileType.Vec, np.float32, 4, 8](), target=target)
    assert dst.data[:4, 0].tolist() == [1, 0, 0, 2]


def test_row_argmin_and_column_forms():
    src = Tile[TileType.Vec, np.float32, 4, 8]()
    src.set_logical(ROWS)
    tmp = Tile[TileType.Vec, np.float32, 4, 8]()
    rows = Tile[TileType.Vec, np.int32, 4, 8, BLayout.RowMajor, 4, 1]()  # ND with one valid column
    ptoisa.TROWARGMIN(rows, src, tmp, target="cpu")
    assert rows.data[:, 0].tolist() == [4, 0, 2, 4]  # row 0: 0 first at 4; row 2: -1 first at 2; row 3: 1 at 4
    cols = Tile[TileType.Vec, np.int32, 1, 8]()
    ptoisa.TCOLARGMAX(cols, src, tmp, target="cpu")
    # column 0: 1, NaN, -0, 2 -> 2 at 3; column 1: 3, 5, 0, NaN -> 5 at 1; column 2: 3, 1, -1, 9 -> 9 at 3
    assert cols.data[0, :3].tolist() == [3, 1, 3]
    ptoisa.TCOLARGMIN(cols, src, tmp, target="cpu")
    assert cols.data[0, :3].tolist() == [2, 2, 2]


def test_integers_tie_to_the_first_index():
    src = Tile[TileType.Vec, np.int16, 2, 16]()
    src.set_logical(np.array([[5] * 16, [0, -3] + [7, -3] * 7], np.int16))
    dst = Tile[TileType.Vec, np.int32, 8, 1, BLayout.ColMajor, 2, 1]()
    ptoisa.TROWARGMAX(dst, src, Tile[TileType.Vec, np.int16, 2, 16](), target="a2a3")
    assert dst.data[:2, 0].tolist() == [0, 2]
    ptoisa.TROWARGMIN(dst, src, Tile[TileType.Vec, np.int16, 2, 16](), target="a2a3")
    assert dst.data[:2, 0].tolist() == [0, 1]


@pytest.mark.parametrize("case", ["rows differ", "two columns", "bf16 on a2a3", "float index"])
def test_refusals_change_nothing(case):
    src = Tile[TileType.Vec, np.float32, 4, 8]()
    tmp = Tile[TileType.Vec, np.float32, 4, 8]()
    dst = Tile[TileType.Vec, np.uint32, 8, 1, BLayout.ColMajor, 3, 1]()
    target = "cpu"
    if case == "two columns":
        dst = Tile[TileType.Vec, np.uint32, 4, 8, BLayout.RowMajor, 4, 2]()
    elif case == "bf16 on a2a3":
        src = Tile[TileType.Vec, ptoisa.bfloat16_t, 4, 16]()
        tmp = Tile[TileType.Vec, ptoisa.bfloat16_t, 4, 16]()
        dst = Tile[TileType.Vec, np.uint32, 8, 1, BLayout.ColMajor, 4, 1]()
        target = "a2a3"
    elif case == "float index":
        dst = Tile[TileType.Vec, np.float32, 8, 1, BLayout.ColMajor, 4, 1]()
    before = dst.tobytes()
    with pytest.raises(ptoisa.PtoError):
        ptoisa.TROWARGMAX(dst, src, tmp, target=target)
    assert dst.tobytes() == before
