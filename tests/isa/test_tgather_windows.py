"""TGATHER with operands that the general path addresses as one run of storage given as windows of a wider tile
(PTOAS `pto.subview`, 2-D storage): the comparison form's k_value and cdst, and a5's 16-bit-index b32 erratum's
indices and dst.

The form reads k[i] and writes cdst[i] as element i of one run of storage; a window that does not span its
parent's rows has no such run. The general path indexed the window's 2-D storage as if it were flat and crashed
with NumPy's ValueError (found by tests/fuzz/test_compiled_vs_plain.py); it now refuses the call with
NotModelledError before any byte changes, on every target. A k or cdst window of whole rows (contiguous, a
plain Tile) still runs, and gives the bytes of the same call on standalone tiles.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ptoisa import TGATHER, BLayout, CmpMode, NotModelledError, Tile, TileType
from ptoisa.tile.tile import WindowTile, window

TARGETS = ("a2a3", "a5", "cpu")
ROWS, COLS = 4, 16


def _tiles(target):
    src0 = Tile[TileType.Vec, np.float32, ROWS, COLS]()
    src0.set_logical(np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS) % 7)
    dst = Tile[TileType.Vec, np.int32, ROWS, COLS]()
    dst.storage[:] = -5
    tmp = Tile[TileType.Vec, np.int32, ROWS, 88]() if target == "a2a3" else None
    return src0, dst, tmp


def _parent(dtype, cols):
    parent = Tile[TileType.Vec, dtype, 2, cols]()
    parent.storage[:] = np.arange(parent.storage.size) % 5
    return parent


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("role", ["k_value", "cdst"])
def test_a_window_k_or_cdst_is_refused_before_any_byte_changes(target, role):
    src0, dst, tmp = _tiles(target)
    k = Tile[TileType.Vec, np.uint32, 1, 8]()
    k.storage[:] = 3
    cdst = Tile[TileType.Vec, np.int32, 1, 8]()
    parent = _parent(np.uint32 if role == "k_value" else np.int32, 24)
    spec = Tile[TileType.Vec, np.uint32 if role == "k_value" else np.int32, 1, 8]
    win = window(parent, spec, 0, 8)
    assert type(win) is WindowTile
    if role == "k_value":
        k = win
    else:
        cdst = win
    tiles = [t for t in (src0, dst, tmp, k, cdst, parent) if t is not None]
    before = [t.tobytes() for t in tiles]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotModelledError, match=f"TGATHER on {target}: {role} is read or written as one run"):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target=target)
    assert [t.tobytes() for t in tiles] == before


@pytest.mark.parametrize("target", TARGETS)
def test_whole_row_windows_of_k_and_cdst_give_the_standalone_bytes(target):
    results = []
    for placed in (False, True):
        src0, dst, tmp = _tiles(target)
        k_spec, c_spec = Tile[TileType.Vec, np.uint32, 1, 8], Tile[TileType.Vec, np.int32, 1, 8]
        if placed:
            k_parent, c_parent = Tile[TileType.Vec, np.uint32, 3, 8](), Tile[TileType.Vec, np.int32, 3, 8]()
            k, cdst = window(k_parent, k_spec, 1, 0), window(c_parent, c_spec, 2, 0)
            assert type(k) is Tile and type(cdst) is Tile
        else:
            k, cdst = k_spec(), c_spec()
        k.storage[:] = [3, 1, 5, 0, 9, 9, 9, 9]
        cdst.storage[:] = 77
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            TGATHER(dst, src0, k, cdst, tmp, 10, CmpMode.GT, target=target)
        results.append((dst.tobytes(), cdst.tobytes()))
        assert k.spec.blayout is BLayout.RowMajor
    assert results[0] == results[1]


@pytest.mark.parametrize("role", ["indices", "dst"])
def test_a5_b32_idx16_with_a_window_is_refused_before_any_byte_changes(role):
    """a5's erratum tgather_index_b32_idx16 (32-bit data, 16-bit indices) addresses indices and dst row i at
    i * Cols of their storage; on a window (2-D storage) its general path indexed rows and crashed with NumPy's
    IndexError (found by the compiled-vs-plain fuzzer); it now refuses with NotModelledError, bytes unchanged."""
    src0 = Tile[TileType.Vec, np.uint32, 4, 16]()
    src0.storage[:] = np.arange(64)
    dst_spec, idx_spec = Tile[TileType.Vec, np.uint32, 4, 32], Tile[TileType.Vec, np.uint16, 4, 32]
    dst, indices = dst_spec(), idx_spec()
    parent = Tile[TileType.Vec, np.uint32 if role == "dst" else np.uint16, 4, 64]()
    parent.storage[:] = np.arange(parent.storage.size) % 60
    win = window(parent, dst_spec if role == "dst" else idx_spec, 0, 16)
    assert type(win) is WindowTile
    if role == "dst":
        dst = win
    else:
        indices = win
    indices.view[:] = np.arange(128).reshape(4, 32) % 60
    tiles = [src0, dst, indices, parent]
    before = [t.tobytes() for t in tiles]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotModelledError, match=f"addresses {role} row i at i \\* Cols"):
            TGATHER(dst, src0, indices, target="a5")
    assert [t.tobytes() for t in tiles] == before
