"""Hostile arguments to every public entry point: sizes of any integer type, huge requests, scalars of any
type, enums given as numbers or bools. Whatever the input, a call runs or raises a PtoError; a refused call
changes no byte; nothing escapes as MemoryError, OverflowError or a NumPy error."""

from __future__ import annotations

import datetime
import decimal
import fractions
import random
import warnings

import numpy as np
from conftest import fuzz_budget

import ptoisa
from ptoisa import TCI, TCMPS, TEXPANDS, TGATHER, TPARTMUL, BLayout, CmpMode, GatherAxis, MaskPattern, Tile, TileType
from ptoisa.dtypes import STANDARD_DTYPES

SIZES = [16, 32, 1, 0, -1, -16, 2**31, 2**40, 2**63, 2**64 + 16, np.int64(16), np.uint8(16), np.int8(-16),
         np.uint64(2**63), np.int64(2**40), 16.0, True, False, "16", None, 10**6, 10**100]
SCALARS = [0, 1, -1, 0.5, -0.0, 2**31, 2**63, 2**1000, -(2**1000), 1e400, float("nan"), float("inf"), 1j,
           complex(1, 0), datetime.timedelta(1), np.timedelta64(1), np.datetime64(1, "D"), "1", None, [1],
           np.array([1.0]), np.array(1.0), decimal.Decimal(1), fractions.Fraction(1, 3), np.float64(1e300),
           np.int64(2**62), np.uint64(2**64 - 1), np.bool_(True), b"1", object(), np.float16(1.5)]
ENUMS = [CmpMode.GT, "GT", "gt", 4, 4.0, True, None, -1, 99, MaskPattern.P0101, GatherAxis.GATHER_COL, "P0101", []]
TARGETS = ["a2a3", "a5", "cpu", "x", None, 1, True]


def _tile(rng: random.Random, rows=None, cols=None):
    dtype = rng.choice(STANDARD_DTYPES)
    rows = rng.choice(SIZES) if rows is None else rows
    cols = rng.choice(SIZES) if cols is None else cols
    kind = rng.choice([TileType.Vec, TileType.Vec, TileType.Mat])
    spec = Tile[kind, dtype, rows, cols, BLayout.RowMajor]
    return spec()


def _plausible_tile(rng: random.Random):
    dtype = rng.choice(STANDARD_DTYPES)
    cols = 32 // dtype.itemsize * rng.choice([1, 2])
    tile = Tile[TileType.Vec, dtype, rng.choice([1, 2, 4]), cols]()
    tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(tile.storage.nbytes), np.uint8)
    return tile


def _call(rng: random.Random) -> None:
    which = rng.randrange(7)
    if which == 0:
        _tile(rng)
        return
    tiles = [_plausible_tile(rng) for _ in range(4)]
    before = [t.tobytes() for t in tiles]
    target = rng.choice(TARGETS) if rng.random() < 0.2 else rng.choice(TARGETS[:3])
    try:
        if which == 1:
            TCMPS(tiles[0], tiles[1], rng.choice(SCALARS), rng.choice(ENUMS), target=target)
        elif which == 2:
            TEXPANDS(tiles[0], rng.choice(SCALARS), target=target)
        elif which == 3:
            TCI(tiles[0], rng.choice(SCALARS), rng.choice([0, 1, True, 2.5, None]), target=target)
        elif which == 4:
            TPARTMUL(tiles[0], tiles[1], tiles[2], target=target)
        elif which == 5:
            TGATHER(tiles[0], tiles[1], rng.choice(ENUMS), rng.choice(ENUMS), target=target)
        else:
            TGATHER(tiles[0], tiles[1], tiles[2], tiles[3], target=target)
    except ptoisa.PtoError:
        assert [t.tobytes() for t in tiles] == before, "a refused call changed a tile"


def test_hostile_calls_raise_only_our_errors():
    rng = random.Random(5)
    escaped = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(fuzz_budget(3000)):
            try:
                _call(rng)
            except ptoisa.PtoError:
                pass
            except Exception as exc:  # noqa: BLE001 - what this test hunts for
                escaped.append(f"{type(exc).__name__}: {exc}")
    assert not escaped, escaped[:10]


def test_sizes_of_any_integer_type_are_python_ints_and_huge_tiles_are_refused():
    spec = Tile[TileType.Vec, ptoisa.float32_t, np.uint8(16), np.int64(16)]
    assert type(spec.rows) is int and type(spec.cols) is int and spec().data.shape == (16, 16)
    for rows, cols in [(2**20, 2**20), (2**40, 16), (16, 2**63)]:
        try:
            Tile[TileType.Vec, ptoisa.float32_t, rows, cols]
        except ptoisa.TileSpecError as exc:
            assert "ptoisa refuses tiles over 256 MiB" in str(exc)
        else:
            raise AssertionError(f"{rows}x{cols} was accepted")
