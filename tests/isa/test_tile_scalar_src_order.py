"""The tile-scalar instructions with a src of another layout than dst (cpu erratum tile_scalar_src_dst_order).

include/pto/cpu/TBinSOps.hpp UnaryTileScalarOpImpl picks its loop by dst's layout alone: for a non-boxed dst it
reads src element (r, c) at `r * TileSrc::Cols + c` (row-major dst) or `c * TileSrc::Rows + r` (column-major
dst), whatever src's own layout. The expected values below are that arithmetic done by hand on src storages that
hold 0, 1, 2, ... (so a value names the storage element it came from); `errata=False` gives the contract's
layout-aware reading. Found by generated vectors (`tools/oracle`, TADDS with an ND dst and a boxed src)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import (BLayout, ErratumWarning, SLayout, TADDS, TLRELU, TSUBS, TMULS, Tile, TileType)

F32 = np.float32


def _ramp(tile):
    tile.storage[...] = np.arange(tile.spec.numel).astype(tile.storage.dtype)
    return tile


def _calls(fn, *args, target="cpu"):
    """Two calls (the first compiles the signature, the second takes the compiled entry): their warnings."""
    seen = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(*args, target=target)
        seen.append([str(w.message) for w in caught if issubclass(w.category, ErratumWarning)])
    return seen


def test_row_major_dst_reads_a_col_major_src_as_row_major():
    src = _ramp(Tile[TileType.Vec, F32, 8, 8, BLayout.ColMajor, 2, 3]())
    dst = Tile[TileType.Vec, F32, 2, 16, BLayout.RowMajor, 2, 3]()
    seen = _calls(TSUBS, dst, src, F32(1))
    # storage element r * 8 + c, minus 1
    assert dst.data[:2, :3].tolist() == [[-1, 0, 1], [7, 8, 9]]
    assert all(len(w) == 1 and "tile_scalar_src_dst_order" in w[0] for w in seen)
    with ptoisa.target("cpu", errata=False):
        TSUBS(dst, src, F32(1))
    # the logical element (r, c) of a column-major 8x8 tile is storage element c * 8 + r
    assert dst.data[:2, :3].tolist() == [[-1, 7, 15], [0, 8, 16]]


def test_col_major_dst_reads_a_row_major_src_as_col_major():
    src = _ramp(Tile[TileType.Vec, F32, 4, 8, BLayout.RowMajor, 3, 2]())
    dst = Tile[TileType.Vec, F32, 8, 8, BLayout.ColMajor, 3, 2]()
    _calls(TSUBS, dst, src, F32(1))
    # storage element c * 4 + r (src Rows = 4), minus 1 (the simulator's bytes: dst storage -1 0 1 at 0..2, 3 4 5
    # at 8..10)
    assert dst.data[:3, :2].tolist() == [[-1, 3], [0, 4], [1, 5]]


def test_row_major_only_forms_keep_the_contract_for_col_major_tiles():
    """TADDS, TMULS, TDIVS, TMAXS and TLRELU take row-major tiles only in the simulator (a static_assert): a
    column-major operand is a program it does not compile, run with the contract's meaning, nothing announced."""
    src = _ramp(Tile[TileType.Vec, F32, 4, 8, BLayout.RowMajor, 3, 2]())
    dst = Tile[TileType.Vec, F32, 8, 8, BLayout.ColMajor, 3, 2]()
    seen = _calls(TMULS, dst, src, F32(2))
    assert dst.data[:3, :2].tolist() == [[0, 2], [16, 18], [32, 34]]
    assert seen == [[], []]


def test_boxed_src_under_a_plain_dst():
    # Zz f32: boxes of 16 x 8 elements, row-major inside; logical (r, c) is storage (c // 8) * 128 + r * 8 + c % 8
    src = _ramp(Tile[TileType.Vec, F32, 16, 16, BLayout.RowMajor, 2, 10, SLayout.RowMajor]())
    dst = Tile[TileType.Vec, F32, 2, 16, BLayout.RowMajor, 2, 10]()
    seen = _calls(TADDS, dst, src, F32(0.5))
    assert dst.data[:2, :10].tolist() == [[c + 0.5 for c in range(10)], [16 + c + 0.5 for c in range(10)]]
    assert all(len(w) == 1 for w in seen)
    with ptoisa.target("cpu", errata=False):
        TADDS(dst, src, F32(0.5))
    assert dst.data[0, 8:10].tolist() == [128.5, 129.5]


def test_tlrelu_reads_the_same_way():
    src = Tile[TileType.Vec, F32, 16, 16, BLayout.RowMajor, 2, 10, SLayout.RowMajor]()
    src.storage[...] = -np.arange(256, dtype=F32)
    dst = Tile[TileType.Vec, F32, 2, 16, BLayout.RowMajor, 2, 10]()
    _calls(TLRELU, dst, src, F32(0.5))
    assert dst.data[1, :10].tolist() == [-(16 + c) * 0.5 for c in range(10)]


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_same_layouts_and_other_targets_read_through_the_layout(target):
    """Nothing announced where src's layout is dst's (whatever the shapes), nor on the NPU targets."""
    src = _ramp(Tile[TileType.Vec, F32, 4, 16, BLayout.RowMajor, 2, 3]())
    dst = Tile[TileType.Vec, F32, 2, 8, BLayout.RowMajor, 2, 3]()
    seen = _calls(TADDS, dst, src, F32(1), target=target)
    assert dst.data[:2, :3].tolist() == [[1, 2, 3], [17, 18, 19]]
    assert seen == [[], []]
