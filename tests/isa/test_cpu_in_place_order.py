"""In-place TTRANS and TGATHER (index form) on cpu: dst is the source tile, and the simulator's element loop reads
what it has already written.

include/pto/cpu/TTrans.hpp TTrans_Impl runs `for c: for r: dst(c, r) = src(r, c)`, so row c receives column c
as it stands after rows 0..c-1 were written: the result is symmetric, element (i, j) = the original element
(max(i, j), min(i, j)). include/pto/cpu/TGather.hpp TGather runs row-major over dst's valid region, each
`dst[r, c] = src0[index]` reading src0 as the earlier writes left it (an index outside src0 writes 0). The
expected values are that loop worked by hand, and are the bytes the simulator wrote for these inputs (g++ 12)."""

from __future__ import annotations

import numpy as np

from ptoisa import TGATHER, TTRANS, Tile, TileType

I32, F32 = np.int32, np.float32


def _twice(call, tile, start):
    """The first call (the general kernel) and the second (the compiled call of the signature) from the same
    bytes: both results."""
    out = []
    for _ in range(2):
        tile.storage[...] = start
        call()
        out.append(tile.storage.copy())
    return out


def test_ttrans_in_place_reads_its_own_writes():
    t = Tile[TileType.Vec, I32, 8, 8]()
    want = [[8 * max(i, j) + min(i, j) for j in range(8)] for i in range(8)]
    for got in _twice(lambda: TTRANS(t, t, target="cpu"), t, np.arange(64, dtype=I32)):
        assert got.reshape(8, 8).tolist() == want
    other = Tile[TileType.Vec, I32, 8, 8]()  # apart: the plain transpose
    t.storage[...] = np.arange(64, dtype=I32)
    TTRANS(other, t, target="cpu")
    assert other.storage.reshape(8, 8).tolist() == np.arange(64).reshape(8, 8).T.tolist()


def test_tgather_in_place_reads_its_own_writes():
    src = Tile[TileType.Vec, F32, 2, 8]()
    idx = Tile[TileType.Vec, I32, 2, 8]()
    idx.storage[...] = [1, 0, 9, 2, 16, 3, 3, 15, 0, 1, 2, 3, 8, -1, 14, 13]
    # element 0 <- src[1] = 10; element 1 <- src[0], now 10; element 3 <- src[2], now 90; 16 and -1 are outside:
    # 0; element 12 <- src[8], now 10; element 15 <- src[13], now 0
    want = [[10, 10, 90, 90, 0, 90, 90, 150], [10, 10, 90, 90, 10, 0, 140, 0]]
    for got in _twice(lambda: TGATHER(src, src, idx, target="cpu"), src, np.arange(16, dtype=F32) * 10):
        assert got.reshape(2, 8).tolist() == want


def test_tgather_in_place_with_every_index_in_range():
    """(The compiled call's own path: no index outside src0.) element 1 <- src[0], now 20; element 2 <- src[1],
    now 20; element 5 <- src[4], now 70; element 7 <- src[6], now 20 (the bytes the simulator wrote)."""
    src = Tile[TileType.Vec, F32, 1, 8]()
    idx = Tile[TileType.Vec, I32, 1, 8]()
    idx.storage[...] = [2, 0, 1, 7, 3, 4, 0, 6]
    want = [[20, 20, 20, 70, 70, 70, 20, 20]]
    for got in _twice(lambda: TGATHER(src, src, idx, target="cpu"), src, np.arange(8, dtype=F32) * 10):
        assert got.reshape(1, 8).tolist() == want
