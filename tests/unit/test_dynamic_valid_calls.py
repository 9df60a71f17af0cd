"""Calls on tiles whose valid shapes are set at run time (`Tile[..., -1, -1](vr, vc)`) keep, per tuple of valid
shapes met, the call decided for it. Each such call must give what the per-call decision gave before (bytes of
every tile, warnings, refusals), whatever order the shapes come in, and on every target.

TPARTMUL: `reference` below is the per-call decision TPARTMUL's run-time path made before it kept one call per
tuple of shapes (pattern, a2a3's padding copy only when dst's valid columns are fewer than its Cols, then the
plain or padded multiply, or the general path); the general path is compared too."""

from __future__ import annotations

import itertools
import warnings
import zlib

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType
from ptoisa.errors import PtoError, PtoWarning
from ptoisa.isa import tpartmul as impl
from ptoisa.targets import make_config
from ptoisa.tile.tile import window

TARGETS = ["a2a3", "a5", "cpu"]
POLICIES = [(True, "raise"), (True, "emulate"), (False, "raise")]
DTYPES = [np.float32, np.float16, np.int32, np.int16, np.int8]
SPECIALS = {4: [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFD23456, 0x7F800001, 0x7F800000, 0xFF800000, 0x80000000,
                0x00000000, 0x3F800000, 0x7F7FFFFF],
            2: [0x7E00, 0xFE00, 0x7E01, 0xFE3A, 0x7C01, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x3C00, 0x7BFF]}
"""Bit patterns of special values: quiet and signalling NaNs of several payloads and signs, infinities, both
zeros, one, the largest finite value (its square overflows)."""


def reference(config, dst, src0, src1):
    """TPARTMUL as its entry ran it before per-shape calls were kept: the compiled call of plain tile types with a
    run-time valid shape decided the pattern and the padding copy at every call."""
    if not (type(dst) is Tile and type(src0) is Tile and type(src1) is Tile):
        impl._general(config, dst, src0, src1)
        return
    specs = (dst.spec, src0.spec, src1.spec)
    try:
        impl._static(*specs, config)
    except PtoError:
        impl._general(config, dst, src0, src1)
        return
    assert any(s.dynamic_row or s.dynamic_col for s in specs)
    if dst.view is None or src0.view is None or src1.view is None:
        impl._general(config, dst, src0, src1)
        return
    dspec = dst.spec
    dtype = dspec.np_dtype
    shape = (dspec.rows, dspec.cols)
    tile_copy = (impl._tile_copy(dspec, src0.spec), impl._tile_copy(dspec, src1.spec))
    half = dtype.itemsize == 2 and dtype.kind not in "iu"
    unsigned = np.dtype(f"u{dtype.itemsize}")
    d, a, b = dst.valid_shape, src0.valid_shape, src1.valid_shape
    if not (d[0] and d[1] and impl._legal_pattern(d, a, b)):
        impl._general(config, dst, src0, src1)
        return
    padding = None
    if config.erratum("tpartmul_copy_padding") and d[1] < shape[1]:
        full, p = (src0, b) if a == d else (src1, a)
        padding = impl._padding_slices(config, dst.spec, full.spec, d, p)
    if padding is None:
        impl._multiply_plain(config, half, d, a, b, dst, src0, src1, tile_copy=d == shape and tile_copy[a != d])
    elif padding is impl._OUTSIDE:
        impl._general(config, dst, src0, src1)
    else:
        impl._multiply_padded(config, half, unsigned, d, a, b, padding, dst, src0, src1)


def _spec(dtype, rows, cols, dynamic, layout=BLayout.RowMajor, valid=None):
    if dynamic:
        return Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1]
    vr, vc = valid if valid is not None else (rows, cols)
    return Tile[TileType.Vec, dtype, rows, cols, layout, vr, vc]


# Tile sets: (dst, src0, src1) as (rows, cols in 32-byte blocks, dynamic), the layout, and how they are placed:
# "own" storages, "windows" (whole-row windows of one parent, apart), "overlap" (whole-row windows of one parent
# that share rows), "strided" (windows narrower than the parent: the general path), "alias01" (dst is src0),
# "alias02" (dst is src1), "alias12" (src0 is src1).
SETS = [
    ("square16", [(16, "16", True)] * 3, BLayout.RowMajor, "own"),
    ("square64", [(64, "64", True)] * 3, BLayout.RowMajor, "own"),
    ("wide", [(4, 2, True), (4, 3, True), (6, 2, True)], BLayout.RowMajor, "own"),
    ("narrow_dst", [(4, 1, True), (4, 2, True), (4, 3, True)], BLayout.RowMajor, "own"),
    ("mixed", [(4, 2, True), (4, 2, True), (4, 2, False)], BLayout.RowMajor, "own"),
    ("mixed_dst", [(4, 2, False), (4, 2, True), (5, 2, True)], BLayout.RowMajor, "own"),
    ("colmajor", [(32, 1, True)] * 3, BLayout.ColMajor, "own"),
    ("windows", [(4, 2, True)] * 3, BLayout.RowMajor, "windows"),
    ("overlap", [(4, 2, True)] * 3, BLayout.RowMajor, "overlap"),
    ("strided", [(4, 1, True)] * 3, BLayout.RowMajor, "strided"),
    ("alias01", [(4, 2, True)] * 2, BLayout.RowMajor, "alias01"),
    ("alias02", [(4, 2, True)] * 2, BLayout.RowMajor, "alias02"),
    ("alias12", [(4, 2, True)] * 2, BLayout.RowMajor, "alias12"),
]


def _cols(dtype, blocks):
    """A column count: `blocks` 32-byte blocks of `dtype`, or a literal element count given as a string (at
    least one block)."""
    per = 32 // np.dtype(dtype).itemsize
    return max(int(blocks), per) if isinstance(blocks, str) else blocks * per


def build(dtype, layout, placement, types, seed):
    """(dst, src0, src1, storages): fresh tiles of the set, the same bytes for the same seed."""
    rng = np.random.default_rng(seed)
    shapes = [(r, _cols(dtype, c), dyn) for r, c, dyn in types]
    if placement in ("windows", "overlap", "strided"):
        rows, cols = shapes[0][0], shapes[0][1]
        wide = cols * (2 if placement == "strided" else 1)
        parent = Tile[TileType.Vec, dtype, 3 * rows, wide, layout]()
        starts = [0, rows, 2 * rows] if placement != "overlap" else [0, 1, 2]
        spec = _spec(dtype, rows, cols, True, layout)
        tiles = [window(parent, spec, r0, (cols if placement == "strided" and k == 1 else 0))
                 for k, r0 in enumerate(starts)]
        storages = [parent.storage]
    else:
        tiles = [_spec(dtype, r, c, dyn, layout, (r, c))() for r, c, dyn in shapes]
        if placement == "alias01":
            tiles = [tiles[0], tiles[0], tiles[1]]
        elif placement == "alias02":
            tiles = [tiles[0], tiles[1], tiles[0]]
        elif placement == "alias12":
            tiles = [tiles[0], tiles[1], tiles[1]]
        storages = list({id(t.storage): t.storage for t in tiles}.values())
    for s in storages:
        raw = s.view(np.uint8)
        raw[...] = rng.integers(0, 256, raw.shape, dtype=np.uint8)
        if s.dtype.kind == "f":  # special values among the noise: NaNs of several payloads, infinities, zeros
            bits = s.reshape(-1).view(f"u{s.dtype.itemsize}")
            picks = rng.integers(0, bits.size, bits.size // 3)
            specials = np.array(SPECIALS[s.dtype.itemsize], dtype=bits.dtype)
            bits[picks] = specials[rng.integers(0, specials.size, picks.size)]
    return tiles[0], tiles[1], tiles[2], storages


def shape_walk(tiles, rng, steps):
    """`steps` tuples of valid shapes for the dynamic tiles: legal patterns mostly (either source full), some
    unsupported ones and empty dst regions, tuples met again, and fully valid tiles."""
    dst, src0, src1 = tiles
    limits = [(t.spec.rows, t.spec.cols) for t in tiles]
    fixed = [None if t.spec.dynamic_row or t.spec.dynamic_col else t.valid_shape for t in tiles]
    walk = []
    for _ in range(steps):
        kind = rng.choice(["legal", "legal", "legal", "full", "again", "illegal", "empty"])
        if kind == "again" and walk:
            walk.append(walk[rng.integers(len(walk))])
            continue
        if kind == "full":
            walk.append(tuple(fixed[k] or limits[k] for k in range(3)))
            continue
        d = fixed[0] or (int(rng.integers(1, limits[0][0] + 1)), int(rng.integers(1, limits[0][1] + 1)))
        if kind == "empty" and fixed[0] is None:
            d = (d[0], 0) if rng.random() < 0.5 else (0, d[1])
        full = int(rng.integers(1, 3))
        shapes = [d, None, None]
        for k in (1, 2):
            lr, lc = limits[k]
            if k == full:
                shapes[k] = (min(d[0], lr), min(d[1], lc))
            elif kind == "illegal":
                shapes[k] = (int(rng.integers(0, lr + 1)), int(rng.integers(0, lc + 1)))
            else:
                shapes[k] = (int(rng.integers(0, min(d[0], lr) + 1)), int(rng.integers(0, min(d[1], lc) + 1)))
        walk.append(tuple(fixed[k] or shapes[k] for k in range(3)))
    return walk


def run_walk(call, dtype, layout, placement, types, seed, walk, mode):
    """After each call of the walk: (bytes of every storage, warnings) or the refusal's type and message."""
    dst, src0, src1, storages = build(dtype, layout, placement, types, seed)
    results = []
    for shapes in walk:
        for t, (vr, vc) in zip((dst, src0, src1), shapes):
            if t.spec.dynamic_row or t.spec.dynamic_col:
                t.SetValidShape(vr, vc)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter(mode)
            try:
                call(dst, src0, src1)
                outcome = None
            except (PtoError, Warning) as exc:
                outcome = (type(exc).__name__, str(exc))
        results.append((shapes, outcome, [s.tobytes() for s in storages],
                        [(type(w.message).__name__, str(w.message)) for w in caught]))
    return results


def _cases():
    for name, types, layout, placement in SETS:
        for dtype in DTYPES:
            yield pytest.param(name, types, layout, placement, dtype, id=f"{name}-{np.dtype(dtype).name}")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("policy", POLICIES, ids=["errata", "emulate", "no_errata"])
@pytest.mark.parametrize("name,types,layout,placement,dtype", list(_cases()))
def test_tpartmul_run_time_valid_shapes_as_before(target, policy, name, types, layout, placement, dtype):
    errata, undefined = policy
    config = make_config(target, errata, undefined)
    seed = zlib.crc32(f"{name}-{np.dtype(dtype).name}".encode())
    rng = np.random.default_rng(seed)
    probe = build(dtype, layout, placement, types, seed)[:3]
    walk = shape_walk(probe, rng, 24)
    for mode in ("always", "error"):
        impl._COMPILED.clear()
        got = run_walk(lambda d, a, b: ptoisa.TPARTMUL(d, a, b, target=config), dtype, layout, placement, types,
                       seed, walk, mode)
        again = run_walk(lambda d, a, b: ptoisa.TPARTMUL(d, a, b, target=config), dtype, layout, placement,
                         types, seed, walk, mode)  # every tuple of shapes kept from the first walk
        want = run_walk(lambda d, a, b: reference(config, d, a, b), dtype, layout, placement, types, seed, walk,
                        mode)
        general = run_walk(lambda d, a, b: impl._general(config, d, a, b), dtype, layout, placement, types, seed,
                           walk, mode)
        for step, (g, a, w, h) in enumerate(zip(got, again, want, general, strict=True)):
            assert g == w, (mode, step, g[0])
            assert a == w, (mode, step, a[0])
            assert g == h, (mode, step, g[0])


def test_tpartmul_keeps_one_call_per_tuple_of_shapes():
    """The decision runs once per tuple of valid shapes met; a refusal is not kept and repeats."""
    T = Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, -1, -1]
    dst, a, b = T(4, 16), T(4, 16), T(2, 8)
    config = make_config("cpu", True, "raise")
    impl._COMPILED.clear()
    ptoisa.TPARTMUL(dst, a, b, target=config)
    kept = impl._COMPILED  # (one entry per tile types, target and valid shapes: the shapes last in its key)
    assert [key[4:] for key, run in kept.items() if run is not None] == [(4, 16, 4, 16, 2, 8)]
    ptoisa.TPARTMUL(dst, a, b, target=config)
    assert len(kept) == 1
    b.SetValidShape(3, 16)
    a.SetValidShape(4, 8)  # neither source is dst's: refused, at every call
    for _ in range(2):
        with pytest.raises(ptoisa.IllegalInstructionError, match="not a supported pattern"):
            ptoisa.TPARTMUL(dst, a, b, target=config)
    a.SetValidShape(4, 16)
    ptoisa.TPARTMUL(dst, a, b, target=config)
    assert len(kept) == 3


def test_tpartmul_bounded_shapes():
    """Past the kept tuples each new one is decided per call, with the same bytes."""
    T = Tile[TileType.Vec, np.float32, 16, 16, BLayout.RowMajor, -1, -1]
    config = make_config("a2a3", True, "raise")
    impl._COMPILED.clear()
    rng = np.random.default_rng(5)
    dst, a, b = T(16, 16), T(16, 16), T(16, 16)
    twin = [T(16, 16) for _ in range(3)]
    for t, u in zip((dst, a, b), twin):
        t.storage[...] = u.storage[...] = rng.standard_normal(256).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for vr, vc in itertools.product(range(1, 17), range(1, 17)):  # 256 tuples, then 16 more met again
            for t in (dst, a, *twin[:2]):
                t.SetValidShape(vr, vc)
            for t in (b, twin[2]):
                t.SetValidShape(vr - 1, vc)
            ptoisa.TPARTMUL(dst, a, b, target=config)
            reference(config, *twin)
            assert dst.tobytes() == twin[0].tobytes(), (vr, vc)
        for vr in range(1, 17):
            for t in (dst, a, b, *twin):
                t.SetValidShape(vr, 16 - vr)
            ptoisa.TPARTMUL(dst, a, b, target=config)
            reference(config, *twin)
            assert dst.tobytes() == twin[0].tobytes(), vr


# --- instruction records: the per-valid-shape dispatch of their compiled calls ------------------------------------
import ptoisa.isa.vector  # noqa: E402,F401 - registers the vector records
from ptoisa.isa.record import REGISTRY  # noqa: E402

GRID, COLUMN, ROW = "grid", "column", "row"
RECORD_CASES = [  # (name, operands: a tile kind, an extra argument given as it is, or None)
    ("TADD", [GRID, GRID, GRID]),
    ("TMUL", [GRID, GRID, GRID]),
    ("TMULS", [GRID, GRID, 2.5]),
    ("TADDS", [GRID, GRID, -3]),
    ("TEXP", [GRID, GRID]),
    ("TABS", [GRID, GRID]),
    ("TROWSUM", [COLUMN, GRID, GRID]),
    ("TCOLSUM", [ROW, GRID]),
    ("TCOLSUM", [ROW, GRID, GRID]),
    ("TROWEXPANDMUL", [GRID, GRID, COLUMN]),
    ("TROWEXPANDMUL", [GRID, COLUMN, GRID]),
    ("TCVT", ["grid_half", GRID, ptoisa.RoundMode.CAST_RINT]),
    ("TCVT", ["grid_int", GRID, ptoisa.RoundMode.CAST_ROUND]),
    ("TRSQRT", [GRID, GRID, None]),
    ("TRSQRT", [GRID, GRID, GRID]),
    ("TDIVS", [GRID, GRID, 1e39]),  # the scalar becomes inf, with a warning: after the shape rule's refusal
    ("TDIVS", [GRID, -2.5, GRID]),
    ("TDIVS", ["grid_int", "grid_int", 7]),
]
PLACEMENTS = ["own", "windows", "mixed"]


def _record_tiles(kinds, placement, rng):
    """Tiles of the case, valid shapes set at run time (`mixed`: the last tile of a grid kind has its whole tile
    as a static valid shape), filled with noise and special values."""
    rows, cols = 8, 16
    specs = {GRID: (np.float32, rows, cols, BLayout.RowMajor), "grid_half": (np.float16, rows, cols, BLayout.RowMajor),
             "grid_int": (np.int32, rows, cols, BLayout.RowMajor), COLUMN: (np.float32, rows, 1, BLayout.ColMajor),
             ROW: (np.float32, 1, cols, BLayout.RowMajor)}
    last_grid = max(i for i, k in enumerate(kinds) if isinstance(k, str) and k.startswith(GRID))
    args = []
    for i, kind in enumerate(kinds):
        if kind not in specs:
            args.append(kind)
            continue
        dtype, r, c, layout = specs[kind]
        dynamic = not (placement == "mixed" and i == last_grid)
        spec = _spec(dtype, r, c, dynamic, layout)
        if placement == "windows" and kind != COLUMN:  # whole-row windows of a taller tile: exactly a Tile
            parent = Tile[TileType.Vec, dtype, 3 * r, c, layout]()
            t = window(parent, spec, int(rng.integers(0, 2 * r + 1)), 0)
        else:
            t = spec()
        raw = t.storage.view(np.uint8)
        raw[...] = rng.integers(0, 256, raw.shape, dtype=np.uint8)
        if t.storage.dtype.kind == "f":
            bits = t.storage.view(f"u{t.storage.dtype.itemsize}")
            picks = rng.integers(0, bits.size, bits.size // 4)
            pool = np.array(SPECIALS[t.storage.dtype.itemsize], dtype=bits.dtype)
            bits[picks] = pool[rng.integers(0, pool.size, picks.size)]
        args.append(t)
    return args


def _record_walk(args, rng, steps):
    """Valid shapes per step for the run-time-valid tiles: one (rows, cols) for the whole call (a column tile
    takes (rows, 1), a row tile (1, cols)), now and then one tile's shape changed (mostly refused), full tiles,
    empty regions, and tuples met again."""
    walk = []
    for _ in range(steps):
        kind = rng.choice(["fit", "fit", "full", "again", "odd", "empty"])
        if kind == "again" and walk:
            walk.append(walk[rng.integers(len(walk))])
            continue
        vr, vc = (8, 16) if kind == "full" else (int(rng.integers(1, 9)), int(rng.integers(1, 17)))
        if kind == "empty":
            vr, vc = (0, vc) if rng.random() < 0.5 else (vr, 0)
        shapes = []
        for a in args:
            if not isinstance(a, Tile):
                shapes.append(None)
            elif a.spec.rows == 1:
                shapes.append((1, vc))
            elif a.spec.cols == 1:
                shapes.append((vr, 1))
            else:
                shapes.append((vr, vc))
        if kind == "odd":
            tiles = [i for i, a in enumerate(args) if isinstance(a, Tile)]
            i = tiles[int(rng.integers(len(tiles)))]
            shapes[i] = (int(rng.integers(0, args[i].spec.rows + 1)), int(rng.integers(0, args[i].spec.cols + 1)))
        walk.append(tuple(shapes))
    return walk


def _record_run(name, args_of, walk, entry, target):
    rec = REGISTRY[name]
    args = args_of()
    config = make_config(target, True, "raise")
    results = []
    for shapes in walk:
        for a, shape in zip(args, shapes):
            if isinstance(a, Tile) and (a.spec.dynamic_row or a.spec.dynamic_col):
                a.SetValidShape(*shape)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if entry:
                    rec(*args, target=config)
                else:
                    tiles, scalars, attrs, form = rec.bind(config, tuple(args), {})
                    rec.call(config, tiles, scalars, attrs, form)
                outcome = None
            except PtoError as exc:
                outcome = (type(exc).__name__, str(exc))
        results.append((shapes, outcome, [a.tobytes() for a in args if isinstance(a, Tile)],
                        sorted({str(w.message) for w in caught})))
    return results


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("case", range(len(RECORD_CASES)), ids=[f"{n}-{len(k)}" for n, k in RECORD_CASES])
def test_record_run_time_valid_shapes_match_the_general_path(target, placement, case):
    """Each call of a walk of valid shapes gives the general path's bytes, warnings and refusals; the walk run
    again on a fresh cache and on the kept calls gives the same."""
    name, kinds = RECORD_CASES[case]
    seed = zlib.crc32(f"{name}-{case}-{placement}".encode())
    args_of = lambda: _record_tiles(kinds, placement, np.random.default_rng(seed))  # noqa: E731
    walk = _record_walk(args_of(), np.random.default_rng(seed + 1), 30)
    REGISTRY[name]._compiled.clear()
    first = _record_run(name, args_of, walk, True, target)
    kept = _record_run(name, args_of, walk, True, target)
    general = _record_run(name, args_of, walk, False, target)
    for step, (f, k, g) in enumerate(zip(first, kept, general, strict=True)):
        assert f == g, (step, f[0], f[1], g[1])
        assert k == g, (step, k[0], k[1], g[1])
    if placement == "own":  # the walk did run compiled calls
        assert any(run is not None for run in REGISTRY[name]._compiled.values())


@pytest.mark.parametrize("name,kinds", [("TADD", [GRID] * 3), ("TCVT", ["grid_half", GRID,
                                                                       ptoisa.RoundMode.CAST_RINT])])
def test_record_rule_runs_once_per_tuple_of_shapes(name, kinds):
    """The run-time shape rule runs at the first call of each tuple of valid shapes, and at every call of a tuple
    it refuses."""
    rec = REGISTRY[name]
    rule = rec.dynamic
    seen = []

    def counting(check, plan, tiles):
        seen.append(tuple(t.valid_shape for t in tiles.values()))
        rule(check, plan, tiles)

    args = _record_tiles(kinds, "own", np.random.default_rng(3))
    tiles = [a for a in args if isinstance(a, Tile)]
    object.__setattr__(rec, "dynamic", counting)
    try:
        rec._compiled.clear()
        for shape in [(8, 16), (2, 3), (8, 16), (2, 3), (8, 16)]:
            for t in tiles:
                t.SetValidShape(*shape)
            rec(*args, target="cpu")
        assert seen == [((8, 16),) * len(tiles), ((2, 3),) * len(tiles)]
        tiles[0].SetValidShape(1, 1)
        for _ in range(2):
            with pytest.raises(ptoisa.IllegalInstructionError):
                rec(*args, target="cpu")
        assert len(seen) == 4
    finally:
        object.__setattr__(rec, "dynamic", rule)
        rec._compiled.clear()


def test_record_keeps_a_bounded_number_of_tuples():
    """Past the kept tuples of valid shapes, a new tuple is checked (and its call chosen) at every call, with the
    general path's bytes."""
    rec = REGISTRY["TADD"]
    rule = rec.dynamic
    seen = []

    def counting(check, plan, tiles):
        seen.append(tuple(t.valid_shape for t in tiles.values()))
        rule(check, plan, tiles)

    T = Tile[TileType.Vec, np.float32, 16, 32, BLayout.RowMajor, -1, -1]
    rng = np.random.default_rng(9)
    tiles, twins = [T() for _ in range(3)], [T() for _ in range(3)]
    for t, u in zip(tiles, twins):
        t.storage[...] = u.storage[...] = rng.standard_normal(t.storage.size).astype(np.float32)
    shapes = [(r, c) for r in range(1, 17) for c in range(1, 33)]  # 512 tuples
    config = make_config("cpu", True, "raise")
    object.__setattr__(rec, "dynamic", counting)
    try:
        rec._compiled.clear()
        for _ in range(2):
            for vr, vc in shapes:
                for t in (*tiles, *twins):
                    t.SetValidShape(vr, vc)
                rec(*tiles, target=config)
                rec.call(config, dict(zip(("dst", "src0", "src1"), twins)), {}, {}, 0)
                assert [t.tobytes() for t in tiles] == [t.tobytes() for t in twins], (vr, vc)
        # the first 256 tuples are kept: checked once; the other 256 at each of their two calls (the general path
        # checks every call: 1024 more), except the fully valid one (the last, 16x32): once decided, its
        # whole-storage call runs inline in the dispatcher whatever the count, so it is checked once
        full = [((16, 32),) * 3]
        assert len(seen) == 256 + 2 * 256 - 1 + 1024
        assert [s for s in seen if s == full[0]] == full * 3  # the API's first call, the general path's two
    finally:
        object.__setattr__(rec, "dynamic", rule)
        rec._compiled.clear()


@pytest.mark.parametrize("args", ["tile_scalar", "scalar_tile"])
def test_refused_shapes_warn_of_no_scalar(args):
    """A record with several forms and a scalar (TDIVS), valid shapes set at run time: a call whose shapes are
    refused is refused before its scalar is converted, as on the general path (the compiled call used to warn
    that the scalar becomes inf, then refuse)."""
    T = Tile[TileType.Vec, np.float16, 4, 16, BLayout.RowMajor, -1, -1]
    rec = REGISTRY["TDIVS"]
    config = make_config("cpu", True, "raise")
    rec._compiled.clear()
    for entry in (True, True, False):  # the first call compiles, the second runs the compiled call
        dst, src = T(4, 16), T(2, 16)
        call = (dst, src, 1e6) if args == "tile_scalar" else (dst, 1e6, src)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ptoisa.IllegalInstructionError, match="valid shape"):
                if entry:
                    rec(*call, target=config)
                else:
                    tiles, scalars, attrs, form = rec.bind(config, call, {})
                    rec.call(config, tiles, scalars, attrs, form)
        assert not caught, entry
        dst, src = T(2, 16), T(2, 16)  # accepted shapes: the warning, then the quotient
        with pytest.warns(PtoWarning, match="becomes inf"):
            rec(*((dst, src, 1e6) if args == "tile_scalar" else (dst, 1e6, src)), target=config)


def test_a_bad_struct_is_refused_before_the_shapes():
    """TMRGSORT's list form (a struct operand) with valid columns set at run time, on a2a3: a call whose struct
    is not a MrgSortExecutedNumList and whose shapes its rule refuses (the lists and tmp fill the UB) is refused
    for the struct, as on the general path, on the compiled call too."""
    from ptoisa.structs import MrgSortExecutedNumList

    n = 8192
    src = Tile[TileType.Vec, np.float32, 1, n, BLayout.RowMajor, 1, -1]
    wide = Tile[TileType.Vec, np.float32, 1, 3 * n, BLayout.RowMajor, 1, -1]
    rec = REGISTRY["TMRGSORT"]
    config = make_config("a2a3", True, "raise")
    rec._compiled.clear()
    for executed in (MrgSortExecutedNumList(), [1, 2, 3, 4], MrgSortExecutedNumList()):
        for vc in (16, n, n, 16):
            outcomes = []
            for entry in (True, False):
                args = (wide(3 * vc), executed, wide(3 * vc), src(vc), src(vc), src(vc))
                try:
                    if entry:
                        rec(*args, target=config)
                    else:
                        tiles, scalars, attrs, form = rec.bind(config, args, {})
                        rec.call(config, tiles, scalars, attrs, form)
                    outcomes.append((None, args[0].tobytes()))
                except PtoError as exc:
                    outcomes.append((str(exc), args[0].tobytes()))
            assert outcomes[0] == outcomes[1], (type(executed).__name__, vc)
            assert (outcomes[0][0] is None) == (vc == 16 and type(executed) is MrgSortExecutedNumList)


@pytest.mark.parametrize("name", ["TSUB", "TNEG"])
def test_fully_valid_shapes_run_inline_only_once_decided(name):
    """The dispatcher runs a whole-storage ufunc in its own frame for fully valid tiles only after the run-time
    shape rule has passed for them once: a rule that refuses those shapes refuses every call (nothing changes),
    and once it passes, the inline statement gives NumPy's bytes (TSUB: the operands' order shows; TNEG: one
    source)."""
    rec = REGISTRY[name]
    rule = rec.dynamic
    refuse = [True]

    def strict(check, plan, tiles):
        if refuse[0]:
            check.fail("dst", "refused for the test")
        rule(check, plan, tiles)

    T = Tile[TileType.Vec, np.float32, 8, 16, BLayout.RowMajor, -1, -1]
    rng = np.random.default_rng(3)
    tiles = [T(8, 16) for _ in range(3 if name == "TSUB" else 2)]
    for t in tiles[1:]:
        t.storage[...] = rng.standard_normal(t.storage.size).astype(np.float32)
    before = [t.tobytes() for t in tiles]
    config = make_config("cpu", True, "raise")
    object.__setattr__(rec, "dynamic", strict)
    try:
        rec._compiled.clear()
        for _ in range(3):
            with pytest.raises(PtoError, match="refused for the test"):
                rec(*tiles, target=config)
            assert [t.tobytes() for t in tiles] == before
        refuse[0] = False
        srcs = [t.storage for t in tiles[1:]]
        expected = np.subtract(*srcs) if name == "TSUB" else np.negative(srcs[0])
        for _ in range(3):
            tiles[0].storage[...] = 0
            rec(*tiles, target=config)
            assert tiles[0].tobytes() == expected.tobytes()
    finally:
        object.__setattr__(rec, "dynamic", rule)
        rec._compiled.clear()
