"""The in-order sums and products of float regions copied whole into a kept scratch (`reduce._in_order_compiled_copy`:
small and mid sizes, a row fold's region being a transposed view, a column fold's a column-major one) against the
simulator's step loop (`_folds.loop_fold`: from 0 or 1, one rounding per step), on every target: full and partial
valid regions, a dst line that is not contiguous (the result cast into it), calls repeated with other data (the
kept scratch must not leak a value from an earlier call), a row fold and a column fold whose scratch has the same
shape and type called in turn (their free lists are kept apart), and no warning where a sum overflows to inf."""

from __future__ import annotations

import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

sys.path.insert(0, os.path.dirname(__file__))
from _folds import assert_same_or_both_nan, bits, loop_fold, target_fold  # noqa: E402
from test_reduce_wide import order_sensitive  # noqa: E402

FOLDS = {"TROWSUM": (np.add, 1), "TROWPROD": (np.multiply, 1), "TCOLSUM": (np.add, 0), "TCOLPROD": (np.multiply, 0)}
# (rows, cols, valid rows, valid cols): whole tiles and partial regions below the blocked copy's sizes
SHAPES = [(16, 16, 16, 16), (64, 64, 64, 64), (64, 128, 50, 99), (16, 64, 16, 64), (128, 96, 128, 96)]


def _tiles(name, rows, cols, vr, vc, wide_dst, dtype=np.float32):
    """src (row-major for a row fold, column-major for a column fold: both are copied), dst, tmp."""
    axis = FOLDS[name][1]
    layout = BLayout.RowMajor if axis == 1 else BLayout.ColMajor
    a = Tile[TileType.Vec, dtype, rows, cols, layout, vr, vc]()
    if axis == 1:  # dst's column 0: contiguous in a column-major (rows, 1) tile, 8 or 16 elements apart in a (rows, 16)
        d = Tile[TileType.Vec, dtype, rows, 16, BLayout.RowMajor, vr, 1]() if wide_dst \
            else Tile[TileType.Vec, dtype, rows, 1, BLayout.ColMajor, vr, 1]()
    else:
        d = Tile[TileType.Vec, dtype, 16, cols, BLayout.ColMajor, 1, vc]() if wide_dst \
            else Tile[TileType.Vec, dtype, 1, cols, BLayout.RowMajor, 1, vc]()
    return a, d, Tile[TileType.Vec, dtype, rows, cols]()


def _route(record, target, tiles):
    config = ptoisa.targets.resolve(target)
    run = record._compiled.get((config, *[t.spec for t in tiles]))
    return getattr(run, "__qualname__", repr(run))


def _legal(record, target, dtype):
    return any(np.dtype(s.np) == np.dtype(dtype) == np.dtype(d.np) for s, d in record.legality[target].pairs)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", list(FOLDS))
@pytest.mark.parametrize("wide_dst", [False, True], ids=["line", "strided-dst"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16], ids=["f32", "f16", "bf16"])
def test_copied_folds_against_the_step_loop(name, target, wide_dst, dtype):
    """Float32, and half and bfloat16 where they fold in their own type (TROWSUM sums them in float: another
    route, checked here too)."""
    op, axis = FOLDS[name]
    record = getattr(ptoisa, name)
    if not _legal(record, target, dtype):
        pytest.skip("not on this target")
    acc = np.dtype(np.float32) if name == "TROWSUM" else np.dtype(dtype)
    rng = np.random.default_rng(len(name) * 7 + len(target) + wide_dst)
    for rows, cols, vr, vc in SHAPES:
        a, d, tmp = _tiles(name, rows, cols, vr, vc, wide_dst, dtype)
        tiles = (d, a, tmp) if axis == 1 else (d, a)
        for _ in range(3):  # later calls reuse the scratch the first one filled
            x = order_sensitive(dtype, (rows, cols), rng, op is np.multiply)
            a.set_logical(x)
            with np.errstate(all="ignore"):
                record(*tiles, target=target)
                want = target_fold(op, x[:vr, :vc], acc, axis, target).astype(dtype)
            got = d.data[:vr, 0] if axis == 1 else d.data[0, :vc]
            assert_same_or_both_nan(got, want, (name, target, rows, cols, vr, vc))
            rest = np.ones(d.data.shape, bool)  # nothing else of dst (zeros) changes
            rest[(slice(0, vr), 0) if axis == 1 else (0, slice(0, vc))] = False
            assert not bits(d.data)[rest].any()
        if acc == np.dtype(dtype) and not (target in ("a5", "a2a3") and axis == 0 and np.dtype(dtype).kind in "fV"):
            # (the NPUs' float column folds: A5's grouping, A2/A3's start from row 0: no copy route)
            assert "_in_order_compiled_copy" in _route(record, target, tiles), (name, rows, cols)


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_row_and_column_folds_with_one_scratch_shape(target):
    """TROWSUM of a 64 x 32 region and TCOLSUM of a column-major 32 x 64 one both copy into a C-ordered (32, 64)
    float scratch (the row fold through its transpose): called in turn, each gets its own kind of scratch."""
    rng = np.random.default_rng(3)
    rows_src = Tile[TileType.Vec, np.float32, 64, 32]()
    rows_dst = Tile[TileType.Vec, np.float32, 64, 1, BLayout.ColMajor]()
    tmp = Tile[TileType.Vec, np.float32, 64, 32]()
    cols_src = Tile[TileType.Vec, np.float32, 32, 64, BLayout.ColMajor]()
    cols_dst = Tile[TileType.Vec, np.float32, 1, 64]()
    for _ in range(3):
        x, y = (order_sensitive(np.float32, shape, rng, False) for shape in ((64, 32), (32, 64)))
        rows_src.set_logical(x)
        cols_src.set_logical(y)
        with np.errstate(all="ignore"):
            ptoisa.TROWSUM(rows_dst, rows_src, tmp, target=target)
            ptoisa.TCOLSUM(cols_dst, cols_src, target=target)
        assert_same_or_both_nan(rows_dst.data[:, 0], loop_fold(np.add, x, np.dtype(np.float32), 1), "rows")
        assert_same_or_both_nan(cols_dst.data[0], target_fold(np.add, y, np.dtype(np.float32), 0, target), "cols")


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_copied_fold_overflows_quietly(target):
    """Row sums that overflow to inf, and inf + -inf (NaN), are the simulator's bits and raise no warning, even
    with warnings turned into errors; -0.0 rows sum to +0.0 (the loop starts from 0)."""
    src = Tile[TileType.Vec, np.float32, 64, 64]()
    x = np.full((64, 64), 3e38, np.float32)
    x[1, :] = -0.0
    x[2, 0], x[2, 1] = np.inf, -np.inf
    x[3, :32] = -3e38
    src.set_logical(x)
    dst = Tile[TileType.Vec, np.float32, 64, 1, BLayout.ColMajor]()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptoisa.TROWSUM(dst, src, Tile[TileType.Vec, np.float32, 64, 64](), target=target)
    got = dst.data[:, 0].view(np.uint32)
    assert got[0] == 0x7F800000 and got[1] == 0 and got[2] == 0xFFC00000  # +inf, +0.0, the default NaN
    # -3e38 * 32 then +3e38: -inf after the second step, then -inf + 3e38 stays -inf
    assert got[3] == 0xFF800000


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_copied_fold_of_two_tile_sets_in_turn(target):
    """One signature called with two srcs and two dsts paired in turn (one of them changing at a time), then with
    tiles whose storage was replaced: each call reads its own src and writes its own dst (the views a call keeps
    are made again for other tiles)."""
    rng = np.random.default_rng(11)
    srcs = [Tile[TileType.Vec, np.float32, 32, 48, BLayout.RowMajor, 30, 40]() for _ in range(2)]
    dsts = [Tile[TileType.Vec, np.float32, 32, 1, BLayout.ColMajor, 30, 1]() for _ in range(2)]
    tmp = Tile[TileType.Vec, np.float32, 32, 48]()
    for turn, (i, j) in enumerate([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0), (0, 0), (1, 1)]):
        a, d = srcs[i], dsts[j]
        if turn == 5:
            a.attach(np.zeros_like(a.storage))
            d.attach(np.zeros_like(d.storage))
        x = order_sensitive(np.float32, (32, 48), rng, False)
        a.set_logical(x)
        with np.errstate(all="ignore"):
            ptoisa.TROWSUM(d, a, tmp, target=target)
        assert_same_or_both_nan(d.data[:30, 0], loop_fold(np.add, x[:30, :40], np.dtype(np.float32), 1), turn)
