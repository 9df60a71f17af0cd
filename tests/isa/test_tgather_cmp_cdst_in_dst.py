"""Comparison TGATHER on a2a3 with cdst's storage inside dst's.

The backend (include/pto/npu/a2a3/TGather.hpp TGather_cmp_ReduceGatherAndCounts) writes, row after row, the picks
of row i into dst row i and then `*(cdstPtr + i) = count` for i < srcValidRow: no other element of cdst. So
cdst's elements past the valid rows keep the picks written there, and the counts lie over dst's bytes. The
scratch erratum (tgather_cmp_bitmap_rows, a tmp whose bitmap rows overlap) is announced when it changes the final
dst or cdst bytes, by the compiled calls and the general path alike (they once disagreed: the general path
compared its picks-only image with the plain run's final bytes and announced where nothing differed)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, BLayout, CmpMode, Tile, TileType
from ptoisa.isa import tgather as impl

A2A3 = ptoisa.targets.resolve("a2a3")
PLAIN = A2A3.without("tgather_cmp_bitmap_rows")


def _tiles(tmp_cols: int, at: int, seed: int | None = None):
    """src0 f32 8x64 (valid 5x40), dst int32 8x64, k int32 1x16, cdst int32 1x16 attached at dst element `at`,
    tmp int32 of one row (`tmp_cols`: its bitmap rows, tmp Cols bytes apart, run into the index table) or eight
    (152 columns: rows apart)."""
    src0 = Tile[TileType.Vec, np.float32, 8, 64, BLayout.RowMajor, 5, 40]()
    dst = Tile[TileType.Vec, np.int32, 8, 64]()
    k = Tile[TileType.Vec, np.int32, 1, 16]()
    cdst = Tile[TileType.Vec, np.int32, 1, 16]()
    tmp = Tile[TileType.Vec, np.int32, 8 if tmp_cols == 152 else 1, tmp_cols]()
    dst.storage[...] = -7
    k.storage[...] = 1
    if seed is None:  # row 0: 10 matches (columns 0..9), rows 1..4: 3 (columns 0..2)
        values = np.zeros((8, 64), np.float32)
        values[0, :10] = 2
        values[1:5, :3] = 2
    else:
        rng = np.random.default_rng(seed)
        values = np.where(rng.random((8, 64)) < 0.4, 2, 0).astype(np.float32)
        dst.storage[...] = rng.integers(-100, 100, dst.spec.numel)
        tmp.storage.view(np.uint8)[:] = rng.integers(0, 256, tmp.spec.nbytes, dtype=np.uint8)
    src0.storage[...] = values.reshape(-1)
    cdst.attach(dst.storage[at:at + 16])
    return dst, src0, k, cdst, tmp


def _outcome(call, tiles):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*tiles)
    return [t.storage.tobytes() for t in tiles], [str(w.message) for w in caught]


def _compiled(config):
    def call(d, s, k, c, t):
        TGATHER(d, s, k, c, t, 0, CmpMode.GT, target=config)
    return call


def _general(config):
    def call(d, s, k, c, t):
        impl._cmp_general(config, d, s, k, c, t, 0, CmpMode.GT)
    return call


@pytest.mark.parametrize("tmp_cols", [152, 704])
def test_counts_over_dst_and_picks_past_the_valid_rows(tmp_cols):
    """Hand-worked: row i's picks are i * 64 + j for its matching columns j; cdst = dst[0, 0:16]."""
    want = np.full((8, 64), -7, np.int32)
    want[0, :10] = np.arange(10)
    for i in range(1, 5):
        want[i, :3] = i * 64 + np.arange(3)
    want[0, :5] = [10, 3, 3, 3, 3]  # the counts, written after the picks; cdst[5:10] keeps picks 5..9
    for call in (_compiled(A2A3), _general(A2A3), _compiled(PLAIN), _general(PLAIN)):
        impl._CMP_COMPILED.clear()
        tiles = _tiles(tmp_cols, 0)
        (dst, *_), _ = _outcome(call, tiles)
        assert np.frombuffer(dst, np.int32).reshape(8, 64).tolist() == want.tolist()


@pytest.mark.parametrize("at", [0, 3, 60, 64, 130, 250, 300, 496])
@pytest.mark.parametrize("tmp_cols", [704, 768, 152])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_and_general_paths_agree(at, tmp_cols, seed):
    """Every tile's bytes and the warnings, call after call (the compiled signature is reused), and the scratch
    erratum announced exactly when the final dst and cdst differ from the gather without it."""
    impl._CMP_COMPILED.clear()
    for turn in range(3):
        got = _outcome(_compiled(A2A3), _tiles(tmp_cols, at, seed * 10 + turn))
        want = _outcome(_general(A2A3), _tiles(tmp_cols, at, seed * 10 + turn))
        assert got == want
        plain, _ = _outcome(_general(PLAIN), _tiles(tmp_cols, at, seed * 10 + turn))
        changed = plain[0] + plain[3] != got[0][0] + got[0][3]
        assert any("tgather_cmp_bitmap_rows" in w for w in got[1]) == changed
