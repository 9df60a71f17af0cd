"""Kernels' own compiled calls (the `compiled` hook of a record's kernel: TEXP, TCVT, the in-order reductions,
TROWEXPAND{ADD,SUB,MUL,...}) give the same bytes as the kernel called through the general path
(`Instruction.call`), on every target: random and special values, partial valid regions, other layouts, run-time
valid shapes, dst aliasing a source. Each case also checks which form the compiled call took."""

from __future__ import annotations

from enum import Enum

import numpy as np
import pytest

import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import BLayout, Tile, TileType
from ptoisa.isa.enums import RoundMode
from ptoisa.isa.record import REGISTRY
from ptoisa.isa.vector.unary import _exp_general
from ptoisa.targets import resolve

TARGETS = ("cpu", "a2a3", "a5")
RNG = np.random.default_rng(8)
ROW, COL = BLayout.RowMajor, BLayout.ColMajor


def values(dtype, n, nan=True):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    out = (RNG.standard_normal(n) * 30).astype(dtype)
    pool = [0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-42, 88.5, 89.0, -104.0, 1e30, 65504.0]
    pick = RNG.random(n) < 0.25
    with np.errstate(over="ignore"):  # half: 1e30 is inf
        out[pick] = np.array(pool, np.float64).astype(dtype)[RNG.integers(0, len(pool), pick.sum())]
    if nan and n > 3:
        bits = out.view(f"u{dtype.itemsize}")
        if dtype.itemsize == 4:  # a quiet NaN with a payload and a signalling one
            bits[RNG.integers(0, n)] = 0x7FC01234
            bits[RNG.integers(0, n)] = 0xFF800001
        else:
            bits[RNG.integers(0, n)] = 0x7E01
    return out


def dynamic_sizes(spec, valid):
    return [v for v, dyn in zip(valid, (spec.dynamic_row, spec.dynamic_col)) if dyn]


def tile(spec, data=None, valid=()):
    t = Tile(spec, *dynamic_sizes(spec, valid))
    t.storage[...] = data if data is not None else values(spec.np_dtype, t.storage.size, nan=False)
    return t


def copies(tiles):
    """Fresh tiles with the same bytes and valid shapes; tiles that shared storage share it again."""
    made: dict[int, np.ndarray] = {}
    out = []
    for t in tiles:
        c = Tile(t.spec, *dynamic_sizes(t.spec, t.valid_shape))
        key = id(t.storage)
        if key not in made:
            made[key] = c.storage
            c.storage[...] = t.storage
        else:
            c.attach(made[key])
        out.append(c)
    return out


def hook_form(rec, target, args):
    key = (resolve(target), *[a.spec if type(a) is Tile else a if isinstance(a, Enum) else None for a in args])
    run = rec._compiled.get(key)
    return getattr(run, "__qualname__", repr(run))


def check(name, target, tiles, attrs=(), form=0, hooked=True):
    """The compiled call (twice: compiling, then the cached form) against `Instruction.call` on copies."""
    rec = REGISTRY[name]
    fast, slow = copies(tiles), copies(tiles)
    for _ in range(2):
        for c, t in zip(fast, tiles):
            c.storage[...] = t.storage
        rec(*fast, *attrs, target=target)
    for c, t in zip(slow, tiles):
        c.storage[...] = t.storage
    named = {o.name: c for o, c in zip(rec.forms[form], slow)}
    rec.call(resolve(target), named, {}, {a.name: v for a, v in zip(rec.attrs, attrs)} |
             {a.name: a.default for a in rec.attrs[len(attrs):]}, form)
    for a, b in zip(fast, slow):
        assert a.storage.tobytes() == b.storage.tobytes(), name
    form_name = hook_form(rec, target, fast + list(attrs))
    assert ("compiled" in form_name or "run_args" in form_name) == hooked, form_name
    return fast


def spec(dtype, rows, cols, layout=ROW, vr=None, vc=None):
    return Tile[TileType.Vec, dtype, rows, cols, layout, rows if vr is None else vr, cols if vc is None else vc]


# --- TEXP ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(16, 16, None, None, ROW, ROW), (16, 16, 5, 7, ROW, ROW), (8, 32, 8, 32, COL, COL),
                                   (16, 16, None, None, ROW, COL), (16, 8, 3, 8, COL, ROW), (1, 64, 1, 40, ROW, ROW)])
@pytest.mark.parametrize("nan", [False, True])
def test_texp(target, shape, nan):
    rows, cols, vr, vc, dl, sl = shape
    s = tile(spec(np.float32, rows, cols, sl, vr, vc), values(np.float32, rows * cols, nan))
    d = tile(spec(np.float32, rows, cols, dl, vr, vc))
    out = check("TEXP", target, [d, s])
    reference = copies([d, s])
    _exp_general(None, {"dst": reference[0], "src": reference[1]}, {})
    assert out[0].storage.tobytes() == reference[0].storage.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("nan", [False, True])
def test_texp_in_place_and_half(target, nan):
    s = tile(spec(np.float32, 16, 16), values(np.float32, 256, nan))
    check("TEXP", target, [s, s])  # dst is src
    h = tile(spec(np.float16, 16, 16), values(np.float16, 256, nan))
    check("TEXP", target, [tile(spec(np.float16, 16, 16)), h], hooked=False)  # half: the bound kernel


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("nan", [False, True])
def test_texp_tiles_of_other_shapes(target, nan):
    """dst fully valid, src a larger tile with the same valid shape (and the other way round)."""
    big = spec(np.float32, 32, 16, ROW, 16, 16)
    s = tile(big, values(np.float32, 512, nan))
    check("TEXP", target, [tile(spec(np.float32, 16, 16)), s])
    check("TEXP", target, [tile(big), tile(spec(np.float32, 16, 16), values(np.float32, 256, nan))])
    check("TCVT", target, [tile(spec(np.float16, 16, 16)), s], (RoundMode.CAST_RINT,))


@pytest.mark.parametrize("target", TARGETS)
def test_texp_run_time_valid(target):
    dyn = spec(np.float32, 16, 16, ROW, -1, -1)
    for valid in ((16, 16), (4, 9), (16, 16)):
        s = tile(dyn, values(np.float32, 256, valid == (4, 9)), valid)
        check("TEXP", target, [tile(dyn, None, valid), s], hooked=False)


# --- TCVT ------------------------------------------------------------------------------------------------------
CONVERSIONS = [(np.float32, np.float16), (np.float16, np.float32), (np.int32, np.int16), (np.float32, np.float32),
               (np.int16, np.float32), (np.float32, np.int32)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pair", CONVERSIONS, ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}")
@pytest.mark.parametrize("shape", [(16, 16, None, None, ROW), (16, 16, 6, 11, ROW), (16, 16, None, None, COL)])
@pytest.mark.parametrize("mode", [RoundMode.CAST_RINT, RoundMode.CAST_FLOOR])
def test_tcvt(target, pair, shape, mode):
    s_type, d_type = pair
    rows, cols, vr, vc, layout = shape
    src_spec = spec(s_type, rows, cols, layout, vr, vc)
    dst_spec = spec(d_type, rows, cols, ROW)
    rec = REGISTRY["TCVT"]
    try:
        rec.plan(resolve(target), (("dst", dst_spec), ("src", src_spec)), (("mode", mode), ("satMode", None)))
    except Exception:
        pytest.skip("not a conversion of this target")
    finite = np.dtype(d_type).kind in "iu" and np.dtype(s_type).kind == "f"
    data = values(s_type, rows * cols, nan=not finite)
    if finite:  # in range of the destination (an out-of-range float -> integer conversion is undefined)
        data = np.nan_to_num(data, posinf=7, neginf=-7).clip(-1000, 1000).astype(s_type)
    direct = not (finite or (target != "cpu" and mode is RoundMode.CAST_FLOOR and
                             np.dtype(s_type).kind == np.dtype(d_type).kind == "f"))
    check("TCVT", target, [tile(dst_spec), tile(src_spec, data)], (mode,), hooked=direct)


@pytest.mark.parametrize("target", TARGETS)
def test_tcvt_run_time_valid(target):
    dyn_s, dyn_d = spec(np.float32, 16, 16, ROW, -1, -1), spec(np.float16, 16, 16, ROW, -1, -1)
    for valid in ((16, 16), (3, 5)):
        check("TCVT", target, [tile(dyn_d, None, valid), tile(dyn_s, values(np.float32, 256), valid)],
              (RoundMode.CAST_RINT,), hooked=False)


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_tcvt_in_place(target):
    a = tile(spec(np.int32, 16, 16))
    d = Tile(spec(np.uint32, 16, 16))
    d.attach(a.storage.view(np.uint32))
    if target == "cpu":
        check("TCVT", target, [d, a], (RoundMode.CAST_RINT,))
    a2 = tile(spec(np.float32, 16, 16), values(np.float32, 256))
    check("TCVT", target, [a2, a2], (RoundMode.CAST_RINT,))


# --- in-order reductions ---------------------------------------------------------------------------------------
ROW_CASES = [  # (src dtype, dst dtype, rows, cols, src layout, vr, vc, dst layout)
    (np.float32, np.float32, 16, 16, ROW, None, None, COL), (np.float32, np.float32, 16, 16, ROW, 9, 5, COL),
    (np.float32, np.float32, 16, 16, COL, None, None, COL), (np.float16, np.float32, 16, 16, ROW, 7, 16, COL),
    (np.float16, np.float16, 16, 16, ROW, None, None, COL), (np.int32, np.int32, 16, 16, ROW, 12, 3, COL),
    (np.float32, np.float32, 128, 64, ROW, None, None, COL), (np.float32, np.float32, 16, 16, ROW, 16, 1, COL),
    (np.float32, np.float32, 16, 16, ROW, None, None, ROW),
]


def _reduce_case(case, nan):
    s_type, d_type, rows, cols, layout, vr, vc, dl = case
    s = tile(spec(s_type, rows, cols, layout, vr, vc), values(s_type, rows * cols, nan))
    return s, s_type, d_type, rows, cols


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", ROW_CASES, ids=str)
@pytest.mark.parametrize("name", ["TROWSUM", "TROWPROD"])
def test_row_reductions(target, case, name):
    s, s_type, d_type, rows, cols = _reduce_case(case, True)
    dl = case[-1]
    d_spec = Tile[TileType.Vec, d_type, rows, 1, dl, rows, 1] if dl is COL else \
        Tile[TileType.Vec, d_type, rows, 8 if np.dtype(d_type).itemsize == 4 else 16, ROW, rows, 1]
    rec = REGISTRY[name]
    try:
        rec.plan(resolve(target), (("dst", d_spec), ("src", s.spec), ("tmp", s.spec)), ())
    except Exception:
        pytest.skip("not on this target")
    one_lane = s.spec.valid_row == 1 and np.dtype(d_type).kind == "f"  # accumulated from the identity
    check(name, target, [tile(d_spec), s, tile(s.spec)], hooked=not one_lane)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("with_tmp", [False, True])
def test_column_sums(target, with_tmp):
    for vr, vc in ((None, None), (5, 9)):
        s = tile(spec(np.float32, 16, 16, ROW, vr, vc), values(np.float32, 256, vr is None))
        tiles = [tile(spec(np.float32, 1, 16)), s] + ([tile(s.spec)] if with_tmp else [])
        # A5 groups a float column sum its own way (r0 + (r1 + r2) + ...), A2/A3 starts from row 0 (not 0 + r0):
        # the bound kernel, no compiled form
        check("TCOLSUM", target, tiles, form=int(with_tmp), hooked=resolve(target).name == "cpu")


@pytest.mark.parametrize("target", TARGETS)
def test_row_sum_aliased_and_run_time_valid(target):
    s = tile(spec(np.float32, 16, 16, COL), values(np.float32, 256, False))
    d = Tile(Tile[TileType.Vec, np.float32, 16, 1, COL, 16, 1])
    d.attach(s.storage[:16])  # dst is src's first column
    check("TROWSUM", target, [d, s, tile(s.spec)])
    dyn = spec(np.float32, 16, 16, ROW, -1, -1)
    dd = Tile[TileType.Vec, np.float32, 16, 1, COL, -1, 1]
    for valid in ((16, 16), (4, 7)):
        check("TROWSUM", target, [tile(dd, None, (valid[0], 1)), tile(dyn, None, valid), tile(dyn, None, valid)],
              hooked=False)


# --- TROWEXPAND{MUL,ADD,...} -------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWEXPANDMUL", "TROWEXPANDSUB", "TROWEXPANDMAX"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
@pytest.mark.parametrize("valid", [(16, 16), (7, 10)])
@pytest.mark.parametrize("swap", [False, True])
def test_row_expand(target, name, dtype, valid, swap):
    grid = spec(dtype, 16, 16, ROW, *valid)
    col = Tile[TileType.Vec, dtype, 16, 1, COL, valid[0], 1]
    a, v, d = tile(grid, values(dtype, 256)), tile(col, values(dtype, 16)), tile(grid)
    rec = REGISTRY[name]
    try:
        rec.plan(resolve(target), (("dst", grid), ("src0", col if swap else grid), ("src1", grid if swap else col)),
                 ())
    except Exception:
        pytest.skip("not on this target")
    hooked = True
    check(name, target, [d, v, a] if swap else [d, a, v], hooked=hooked)
    check(name, target, [a, a, v], hooked=hooked)  # dst is src0
    check(name, target, [d, a, v, tile(grid)], form=1, hooked=hooked)  # the form with tmp


@pytest.mark.parametrize("target", TARGETS)
def test_row_expand_run_time_valid(target):
    dyn = spec(np.float32, 16, 16, ROW, -1, -1)
    col = Tile[TileType.Vec, np.float32, 16, 1, COL, -1, 1]
    for vr, vc in ((16, 16), (5, 3), (16, 16)):
        check("TROWEXPANDMUL", target, [tile(dyn, None, (vr, vc)), tile(dyn, values(np.float32, 256), (vr, vc)),
                                        tile(col, values(np.float32, 16), (vr, 1))], hooked=False)
