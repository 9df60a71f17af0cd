"""Compiled calls (one per tuple of tile types and target) give the same bytes, warnings and refusals as the
general path (`Instruction.call`, which checks everything on every call). The general path is the reference
here: it is the one the conformance vectors exercise."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType
import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import resolve

RNG = np.random.default_rng(20261125)
DTYPES = [np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32]


def specials(dtype, n):
    if np.dtype(dtype).kind == "f":
        pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.25, 65504.0, 1e-8], dtype=dtype)
        values = RNG.standard_normal(n).astype(dtype) * 100
        pick = RNG.random(n) < 0.3
        values[pick] = RNG.choice(pool, pick.sum())
        return values
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)


def fresh(spec, values=None):
    t = spec()
    t.storage[...] = values if values is not None else specials(spec.np_dtype, spec.numel)
    return t


def run_both(name, target, tiles, scalars=()):
    """(bytes, warning texts) from the compiled call and from the general path, on copies of the same tiles."""
    rec = REGISTRY[name]
    results = []
    for compiled in (True, False):
        copies = [fresh(t.spec, t.storage.copy()) for t in tiles]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if compiled:
                for _ in range(2):  # the second call runs the cached form
                    for c, t in zip(copies, tiles):
                        c.storage[...] = t.storage
                    rec(*copies, *scalars, target=target)
            else:
                operands = [o for o in rec.forms[0]]
                named_tiles = {o.name: c for o, c in zip([o for o in operands if o.kind == "tile"], copies)}
                named_scalars = {o.name: v for o, v in zip([o for o in operands if o.kind == "scalar"], scalars)}
                for _ in range(2):
                    for c, t in zip(copies, tiles):
                        c.storage[...] = t.storage
                    rec.call(resolve(target), named_tiles, {k: v for k, v in named_scalars.items()}, {}, 0)
        results.append(([c.tobytes() for c in copies], sorted({str(w.message) for w in caught})))
    return results


@pytest.mark.parametrize("name", ["TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TAND", "TXOR", "TSHL", "TEXP", "TABS",
                                  "TNOT", "TMOV", "TRELU"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tile_only_calls_match_the_general_path(name, dtype, target):
    rec = REGISTRY[name]
    spec = Tile[TileType.Vec, dtype, 4, 64 // np.dtype(dtype).itemsize]
    n_tiles = sum(1 for o in rec.forms[0] if o.kind == "tile" and not o.optional)
    tiles = [fresh(spec) for _ in range(n_tiles)]
    if name in ("TDIV", "TSHL") and np.dtype(dtype).kind in "iu":
        tiles[2].storage[...] = np.clip(tiles[2].storage, 1, 3)  # defined divisors and shift counts
    try:
        compiled, general = run_both(name, target, tiles)
    except ptoisa.PtoError as exc:  # illegal on this target: both paths must refuse it the same way
        with pytest.raises(type(exc)):
            rec.call(resolve(target), dict(zip([o.name for o in rec.forms[0]], tiles)), {}, {}, 0)
        return
    assert compiled == general


@pytest.mark.parametrize("name", ["TADDS", "TMULS", "TSUBS", "TMAXS", "TANDS"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16, np.uint8])
@pytest.mark.parametrize("scalar", [3, -1.5, 1e30, float("nan"), 2 ** 40,
                                    # Python numbers the whole-storage call hands to NumPy as they are: each
                                    # must round or wrap as the general path converts it
                                    0.1, 1 / 3, -0.0, 65519.99, 65520.0, 3.4028235e38, 3.4028236e38, 1e-45,
                                    5.9e-8, 2.0 ** -150, 32767, -32768, 255, 256, -1, 2 ** 31 - 1, -2 ** 31,
                                    np.float32(0.1), np.float64(0.1), np.int16(-7)])
def test_calls_with_a_scalar_match_the_general_path(name, dtype, scalar):
    spec = Tile[TileType.Vec, dtype, 2, 64 // np.dtype(dtype).itemsize]
    tiles = [fresh(spec), fresh(spec)]
    try:
        compiled, general = run_both(name, "cpu", tiles, (scalar,))
    except ptoisa.PtoError:
        return
    assert compiled == general


def test_aliased_operands_and_partial_valid_tiles():
    full = Tile[TileType.Vec, np.float32, 4, 16]
    a = fresh(full)
    expected = (a.storage.astype(np.float64) * 2).astype(np.float32)
    ptoisa.TADD(a, a, a, target="cpu")  # dst is both sources
    np.testing.assert_array_equal(a.storage, expected)
    part = Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, 2, 8]  # static valid 2x8: padding untouched
    d, x, y = fresh(part), fresh(part), fresh(part)
    before = d.storage.copy()
    ptoisa.TADD(d, x, y, target="cpu")
    ptoisa.TADD(d, x, y, target="cpu")
    np.testing.assert_array_equal(d.data[:2, :8], x.data[:2, :8] + y.data[:2, :8])
    np.testing.assert_array_equal(d.data[2:], before.reshape(4, 16)[2:])
    np.testing.assert_array_equal(d.data[:, 8:], before.reshape(4, 16)[:, 8:])


def test_a_refusal_is_not_cached():
    a = Tile[TileType.Vec, np.float32, 1, 16]()
    b = Tile[TileType.Vec, np.float32, 2, 16]()
    for _ in range(3):  # mismatched valid shapes: refused on every call, nothing written
        before = a.tobytes()
        with pytest.raises(ptoisa.IllegalInstructionError, match="valid shape"):
            ptoisa.TADD(a, a, b, target="cpu")
        assert a.tobytes() == before


def test_dynamic_valid_sizes_follow_the_tile_not_the_type():
    T = Tile[TileType.Vec, np.float32, 2, 16, BLayout.RowMajor, -1, -1]
    d, x = T(2, 16), T(2, 16)
    x.set_logical(np.ones((2, 16), np.float32))
    ptoisa.TADDS(d, x, 1.0, target="cpu")
    assert d.data.sum() == 64
    small_d, small_x = T(1, 4), T(1, 4)
    small_x.set_logical(np.ones((1, 4), np.float32))
    ptoisa.TADDS(small_d, small_x, 1.0, target="cpu")  # same tile type, other valid shape
    assert small_d.data.sum() == 8


@pytest.mark.parametrize("name", ["TADD", "TMUL", "TEXP", "TROWSUM", "TROWEXPANDMUL"])
def test_run_time_valid_shapes_check_every_new_shape(name):
    """Tiles with `v_row=?, v_col=?`: the shape rule runs for each new tuple of valid shapes (a mismatch is
    refused every time, nothing written), and matching shapes give the general path's bytes."""
    rec = REGISTRY[name]
    grid = Tile[TileType.Vec, np.float32, 8, 16, BLayout.RowMajor, -1, -1]
    column = Tile[TileType.Vec, np.float32, 8, 1, BLayout.ColMajor, -1, -1]
    specs = {"TADD": [grid] * 3, "TMUL": [grid] * 3, "TEXP": [grid] * 2, "TROWSUM": [column, grid, grid],
             "TROWEXPANDMUL": [grid, grid, column]}[name]
    names = [o.name for o in rec.forms[0] if o.kind == "tile" and not o.optional]
    for rows, cols in [(8, 16), (2, 8), (8, 16), (3, 5)]:
        tiles = []
        for spec in specs:
            t = spec(rows, 1 if spec is column else cols)
            t.storage[...] = specials(np.float32, spec.numel)
            tiles.append(t)
        want = [t.spec(*t.valid_shape) for t in tiles]
        for w, t in zip(want, tiles):
            w.storage[...] = t.storage
        rec(*tiles, target="cpu")
        rec.call(resolve("cpu"), dict(zip(names, want)), {}, {}, 0)
        assert [t.tobytes() for t in tiles] == [w.tobytes() for w in want], (rows, cols)
        bad = [spec(rows, 1 if spec is column else cols) for spec in specs]
        bad[0] = specs[0](rows - 1, 1 if specs[0] is column else cols)  # dst's valid rows differ
        try:
            rec.call(resolve("cpu"), dict(zip(names, [t.spec(*t.valid_shape) for t in bad])), {}, {}, 0)
            refused = False
        except ptoisa.PtoError:
            refused = True
        if name in ("TADD", "TMUL", "TEXP"):
            assert refused  # equal valid shapes are their rule
        for _ in range(2):
            before = [t.tobytes() for t in bad]
            if refused:
                with pytest.raises(ptoisa.PtoError, match="valid"):
                    rec(*bad, target="cpu")
                assert [t.tobytes() for t in bad] == before
            else:
                rec(*bad, target="cpu")


def _general(rec, target, args):
    config = resolve(target)
    tiles, scalars, attrs, form = rec.bind(config, args, {})
    rec.call(config, tiles, scalars, attrs, form)


MULTI = [
    ("TROWEXPANDMUL", lambda: (vec(8, 16), vec(8, 16), column(8))),
    ("TROWEXPANDMUL", lambda: (vec(8, 16), column(8), vec(8, 16))),
    ("TROWEXPANDMUL", lambda: (vec(8, 16), vec(8, 16), column(8), vec(8, 16))),
    ("TROWEXPANDDIV", lambda: (vec(8, 16), vec(8, 16), column(8))),
    ("TCOLEXPANDADD", lambda: (vec(8, 16), vec(8, 16), vec(1, 16))),
    ("TCVT", lambda: (vec(8, 16, np.float16), vec(8, 16), ptoisa.RoundMode.CAST_RINT)),
    ("TCVT", lambda: (vec(8, 16, np.float16), vec(8, 16), ptoisa.RoundMode.CAST_TRUNC)),
    ("TCVT", lambda: (vec(8, 16, np.float16), vec(8, 16), "CAST_FLOOR")),
    ("TCVT", lambda: (vec(8, 16, np.int32), vec(8, 16), ptoisa.RoundMode.CAST_ROUND)),
    ("TRSQRT", lambda: (vec(8, 16), vec(8, 16))),
    ("TRSQRT", lambda: (vec(8, 16), vec(8, 16), vec(8, 16))),
    ("TRSQRT", lambda: (vec(8, 16), vec(8, 16), None)),
    ("TCOLSUM", lambda: (vec(1, 16), vec(8, 16))),
    ("TCOLSUM", lambda: (vec(1, 16), vec(8, 16), vec(8, 16))),
    ("TMULS", lambda: (vec(8, 16), vec(8, 16), 3)),
    ("TCOLEXPANDMUL", lambda: (vec(8, 16), vec(8, 16), vec(8, 16, np.float16))),  # refused: mixed types
    ("TROWEXPANDMUL", lambda: (vec(8, 16), vec(8, 16), 2.0)),  # refused: a number for a tile
]


def vec(rows, cols, dtype=np.float32):
    return fresh(Tile[TileType.Vec, dtype, 8, 16, BLayout.RowMajor, rows, cols])


def column(rows):
    return fresh(Tile[TileType.Vec, np.float32, 8, 1, BLayout.ColMajor, rows, 1])


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("case", range(len(MULTI)))
def test_several_forms_and_attributes_match_the_general_path(target, case):
    """Records with several forms, optional operands or attributes compile per positional signature: the same
    bytes and warnings as the binder's general path, twice (the second call runs the cached form), or the same
    refusal every time."""
    name, make = MULTI[case]
    rec = REGISTRY[name]
    args = make()
    outcomes = []
    for compiled in (True, False):
        rec._compiled.clear()
        copies = [fresh(a.spec, a.storage.copy()) if isinstance(a, Tile) else a for a in args]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                for _ in range(2):
                    for c, a in zip(copies, args):
                        if isinstance(a, Tile):
                            c.storage[...] = a.storage
                    rec(*copies, target=target) if compiled else _general(rec, target, tuple(copies))
                result = [c.tobytes() for c in copies if isinstance(c, Tile)]
                if compiled and not any(isinstance(a, str) for a in args):
                    assert any(run is not None for run in rec._compiled.values())  # it did compile
            except ptoisa.PtoError as exc:
                result = (type(exc).__name__, str(exc), [c.tobytes() for c in copies if isinstance(c, Tile)])
        outcomes.append((result, sorted({str(w.message) for w in caught})))
    assert outcomes[0] == outcomes[1]
