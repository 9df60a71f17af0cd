"""TCONCAT on A2/A3 (a2a3/TConcat.hpp TConcatImpl): src0's rows are copied in whole 32-byte blocks, then src1's at
column validCol0, in whole blocks when validCol0 fills whole blocks, else element by element; docs/isa/TCONCAT.md
asks only validCol0 + validCol1 <= dst Cols there. Worked by hand for float (8 per block), dst 1 x 32 fully valid:
src0 valid 5 and src1 valid 2: block copy of src0 columns 0-7, then src1 into columns 5 and 6, so column 7 keeps
src0's column 7; src0 valid 8 and src1 valid 3: src1 copied as a whole block into columns 8-15."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType
from ptoisa.errors import IllegalInstructionError


def _concat(target: str, c0: int, c1: int) -> list[float]:
    with ptoisa.target(target):
        src0 = Tile[TileType.Vec, np.float32, 1, 16, BLayout.RowMajor, 1, c0]()
        src1 = Tile[TileType.Vec, np.float32, 1, 16, BLayout.RowMajor, 1, c1]()
        dst = Tile[TileType.Vec, np.float32, 1, 32, BLayout.RowMajor, 1, 32]()
        src0.data[0] = np.arange(100, 116)
        src1.data[0] = np.arange(200, 216)
        dst.data[0] = -1
        ptoisa.TCONCAT(dst, src0, src1)
    return dst.data[0].tolist()


def test_a2a3_unaligned_first_part_keeps_a_padding_column():
    assert _concat("a2a3", 5, 2)[:9] == [100, 101, 102, 103, 104, 200, 201, 107, -1]


def test_a2a3_aligned_first_part_copies_whole_blocks_of_src1():
    assert _concat("a2a3", 8, 3)[:17] == [*range(100, 108), *range(200, 208), -1]


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_other_targets_need_the_exact_sum(target):
    with pytest.raises(IllegalInstructionError):
        _concat(target, 5, 2)
