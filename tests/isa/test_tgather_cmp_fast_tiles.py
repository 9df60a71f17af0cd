"""TGATHER comparison form on a2a3, the image form's streamlined call (`tgather._fast_image`) with what it keeps
between calls: the compare's operands (src0's valid elements and the front rows' repeats copied into one buffer,
their thresholds taken at their rows) and, per set of storages, the repeats' window of src0, dst's rows, whether
dst and cdst share bytes, and tmp's bytes. Held against the kernel worked byte by byte (tests/isa/
_dense_cmp_scratch.py, the dense scratch the general path ran before the sparse one): dst, cdst, tmp and the
warnings, call after call on new data, with srcs, dsts, cdsts and tmps swapped one at a time, storages replaced,
and a cdst whose bytes are a view of a dst's."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, CmpMode, Tile, TileType
from ptoisa.isa import tgather as impl

sys.path.insert(0, os.path.dirname(__file__))
import _dense_cmp_scratch as dense  # noqa: E402


def _make(rows, cols, sdt):
    item = np.dtype(sdt).itemsize
    need = (rows * cols * 4 + rows * item) // 3 + 8  # the least legal one-row tmp
    kc = 8 * -(-rows // 8) * (2 if item == 2 else 1)
    return {"dst": lambda: Tile[TileType.Vec, np.int32, rows, cols](),
            "src0": lambda: Tile[TileType.Vec, sdt, rows, cols](),
            "k": lambda: Tile[TileType.Vec, np.uint16 if item == 2 else np.int32, 1, kc](),
            "cdst": lambda: Tile[TileType.Vec, np.int32, 1, 8 * -(-rows // 8) + 8](),
            "tmp": lambda: Tile[TileType.Vec, np.int32, 1, -(-need // 8) * 8]()}


def _fill(tiles, rng, sdt):
    for name in ("dst", "cdst", "tmp"):
        tiles[name].storage.view(np.uint8)[:] = rng.integers(0, 256, tiles[name].spec.nbytes, dtype=np.uint8)
    src0 = tiles["src0"]
    values = rng.integers(-3, 4, src0.spec.numel).astype(sdt)
    if np.dtype(sdt).kind == "f":
        values[rng.random(values.size) < 0.05] = np.nan
        values[rng.random(values.size) < 0.05] = -0.0
    src0.storage[...] = values
    tiles["k"].storage[...] = rng.integers(-1, 2, tiles["k"].spec.numel)


def _twin(t):
    c = t.spec()
    c.storage[...] = t.storage
    return c


def _reference(config, tiles, offset, mode):
    """The general path with the dense scratch, on copies (a cdst sharing dst's bytes shares its copy's)."""
    copies = {name: _twin(t) for name, t in tiles.items()}
    if np.may_share_memory(tiles["dst"].storage, tiles["cdst"].storage):
        at = (tiles["cdst"].storage.ctypes.data - tiles["dst"].storage.ctypes.data) // 4
        copies["cdst"].attach(copies["dst"].storage[at:at + tiles["cdst"].spec.numel])
    saved = impl._a2a3_cmp_scratch
    impl._a2a3_cmp_scratch = dense.dense_cmp_scratch
    try:
        return _outcome(lambda: impl._cmp_general(config, copies["dst"], copies["src0"], copies["k"], copies["cdst"],
                                                  copies["tmp"], offset, mode), copies)
    finally:
        impl._a2a3_cmp_scratch = saved


def _outcome(call, tiles):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            error = None
        except ptoisa.PtoError as exc:
            error = str(exc)
    return error, [tiles[n].storage.tobytes() for n in ("dst", "cdst", "tmp")], [str(w.message) for w in caught]


@pytest.mark.parametrize("rows,cols,sdt", [(16, 16, np.float32), (8, 32, np.float32), (32, 16, np.float32),
                                           (16, 16, np.int32), (24, 8, np.float32)], ids=str)
@pytest.mark.parametrize("offset", [0, 2**32 - 5])
def test_fast_image_against_the_dense_kernel(rows, cols, sdt, offset):
    config = ptoisa.targets.resolve("a2a3")
    mode = CmpMode.EQ if sdt is np.int32 else CmpMode.GT  # (a2a3 compares int32 with EQ only)
    make = _make(rows, cols, sdt)
    rng = np.random.default_rng(rows * cols + len(str(sdt)))
    pool = {name: [new(), new()] for name, new in make.items()}
    impl._CMP_COMPILED.clear()
    # which of each tile the call takes, turn after turn (one role changing at a time, then several)
    turns = [(0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (1, 0, 0, 0, 0), (1, 1, 0, 0, 0), (1, 1, 0, 1, 0), (1, 1, 0, 1, 1),
             (0, 1, 1, 1, 1), (0, 0, 1, 0, 0), "attach", (0, 0, 1, 0, 0), "shared", (1, 1, 1, 0, 1), (1, 1, 1, 1, 1),
             (1, 1, 1, 0, 1), (0, 1, 0, 1, 0)]  # (cdst 1 shares dst 1's bytes: cdst alone changes, twice)
    last = (0, 0, 0, 0, 0)
    for turn in turns:
        if turn == "attach":  # new storages for the tiles of the last call
            for name, i in zip(make, last):
                tile = pool[name][i]
                tile.attach(np.zeros_like(tile.storage))
            continue
        if turn == "shared":  # cdst 1's bytes: dst 1's last row (dst 1's own bytes, so a view of them)
            dst, cdst = pool["dst"][1], pool["cdst"][1]
            cdst.attach(dst.storage[dst.spec.numel - cdst.spec.numel:])
            continue
        tiles = {name: pool[name][i] for name, i in zip(make, turn)}
        last = turn
        _fill(tiles, rng, sdt)
        want = _reference(config, tiles, offset, mode)
        got = _outcome(lambda: TGATHER(tiles["dst"], tiles["src0"], tiles["k"], tiles["cdst"], tiles["tmp"], offset,
                                       mode, target=config), tiles)
        assert got == want, turn  # (cdst inside dst included: test_tgather_cmp_cdst_in_dst.py)
        run = next(r for k, r in impl._CMP_COMPILED.items() if k[0] is config and k[2] is tiles["src0"].spec)
        assert run.__qualname__.startswith("_fast_image"), run.__qualname__
    impl._CMP_COMPILED.clear()
