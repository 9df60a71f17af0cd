"""The compiled forms of the row and column records (TROWMAX TROWMIN TCOLMAX TCOLMIN, the in-order sums and
products into a strided or narrower dst, TROWARGMAX and siblings, TROWEXPAND TCOLEXPAND and their binary forms,
TPARTADD TPARTMAX TPARTMIN, TTRANS) give the bytes and warnings of the general kernel, on every target: random
values and special ones (NaNs with payloads, signalling NaNs, +-0.0, +-inf, zero extremes, ties), several
shapes, partial valid regions, valid shapes set at run time, other layouts, dst aliasing a source. Each static
case also checks that the call took the kernel's compiled form."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import BLayout, Tile, TileType
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import resolve

TARGETS = ("cpu", "a2a3", "a5")
ROW, COL = BLayout.RowMajor, BLayout.ColMajor
RNG = np.random.default_rng(21)


def values(dtype, n, kind="mixed"):
    """Random elements of `dtype`: "mixed" (with the special values), "positive" (no zero, no NaN: the quick
    routes), "nan" (mixed, NaNs certain), "zeros" (small integers as floats: many ties and signed zeros)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if kind == "zeros":
            return RNG.integers(-2 if dtype.kind == "i" else 0, 3, n).astype(dtype)
        return RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    if kind in ("positive", "negative", "split"):
        out = (np.abs(RNG.standard_normal(n)) * 3 + 0.25).astype(dtype)
        if kind == "negative":
            return -out
        if kind == "split":  # runs of 40 elements of one sign: whole rows of one sign, rows of both
            out[(np.arange(n) // 40) % 2 == 1] *= -1
            out[RNG.random(n) < 0.01] = -0.0
        return out
    if kind == "signed_zeros":  # no negative number, zeros of both signs: the bits cannot tell min's zero
        out = RNG.integers(0, 3, n).astype(dtype)
        out[RNG.random(n) < 0.2] = -0.0
        return out
    if kind == "zeros":
        out = RNG.integers(-2, 3, n).astype(dtype)
        out[RNG.random(n) < 0.3] = -0.0
        return out
    out = (RNG.standard_normal(n) * 20).astype(dtype)
    pool = np.array([0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0, -3.0, 65504.0], np.float64)
    pick = RNG.random(n) < 0.3
    with np.errstate(over="ignore"):
        out[pick] = pool.astype(dtype)[RNG.integers(0, len(pool), pick.sum())]
    if kind == "nan" or (kind == "mixed" and n > 3):
        bits = out.view(f"u{dtype.itemsize}")
        count = max(1, n // 50) if kind == "nan" else 1
        if dtype.itemsize == 4:
            bits[RNG.integers(0, n, count)] = 0x7FC01234  # a quiet NaN with a payload
            bits[RNG.integers(0, n, count)] = 0xFF800001  # a signalling NaN, sign set
        else:
            bits[RNG.integers(0, n, count)] = 0x7E01 if dtype.kind == "f" else 0x7FC1
            bits[RNG.integers(0, n, count)] = 0xFC01 if dtype.kind == "f" else 0xFF81
    return out


def make(spec, data=None, valid=()):
    dyn = [v for v, d in zip(valid, (spec.dynamic_row, spec.dynamic_col)) if d]
    t = Tile(spec, *dyn)
    if data is None:
        data = values(np.float32 if spec.np_dtype.kind == "V" else spec.np_dtype, t.storage.size)
    with np.errstate(all="ignore"):  # float values (NaNs included) into bfloat16
        t.storage[...] = np.resize(np.asarray(data).astype(spec.np_dtype), t.storage.size)  # padded: repeated
    return t


def spec(dtype, rows, cols, layout=ROW, vr=None, vc=None):
    """A tile type; the contiguous side rounded up to whole 32-byte blocks (fully valid tiles stay so)."""
    block = 32 // np.dtype(dtype).itemsize
    if layout is ROW and cols > 1:
        cols = -(-cols // block) * block
    elif layout is COL and rows > 1:
        rows = -(-rows // block) * block
    return Tile[TileType.Vec, dtype, rows, cols, layout, rows if vr is None else vr, cols if vc is None else vc]


def copies(tiles):
    """Fresh tiles with the same bytes and valid shapes; tiles that shared storage share it again."""
    made, out = {}, []
    for t in tiles:
        dyn = [v for v, d in zip(t.valid_shape, (t.spec.dynamic_row, t.spec.dynamic_col)) if d]
        c = Tile(t.spec, *dyn)
        if id(t.storage) in made:
            c.attach(made[id(t.storage)])
        else:
            made[id(t.storage)] = c.storage
            c.storage[...] = t.storage
        out.append(c)
    return out


def _run(call, tiles):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except ptoisa.PtoError as exc:
            return type(exc).__name__, [t.storage.tobytes() for t in tiles]
    return [t.storage.tobytes() for t in tiles], sorted({str(w.message) for w in caught})


def legal(name, target, tiles, form=0):
    rec = REGISTRY[name]
    try:
        rec.plan(resolve(target), tuple((o.name, t.spec) for o, t in zip(rec.forms[form], tiles)), (), form)
    except ptoisa.PtoError:
        return False
    return True


def check(name, target, tiles, form=0, hooked=True):
    """The public call (compiled: twice, compiling then cached) against the general kernel on copies."""
    rec = REGISTRY[name]
    if not legal(name, target, tiles, form):
        pytest.skip("not on this target")
    config = resolve(target)
    general = getattr(rec.kernel, "general", rec.kernel)
    fast_results = []
    for _ in range(2):
        fast = copies(tiles)
        fast_results.append(_run(lambda: rec(*fast, target=target), fast))
    slow = copies(tiles)

    def reference():
        named = {o.name: t for o, t in zip(rec.forms[form], slow)}
        plan = rec.plan(config, tuple((n, t.spec) for n, t in named.items()), (), form)
        if rec.dynamic is not None:
            from ptoisa.isa._check import Check
            rec.dynamic(Check(rec.name, config.name), plan, named)
        general(plan, named, {})

    expected = _run(reference, slow)
    assert fast_results[0] == expected, name
    assert fast_results[1] == expected, name
    key = (config, *[t.spec for t in tiles])
    run = rec._compiled.get(key)
    qualname = getattr(run, "__qualname__", repr(run))
    if hooked is not None and not isinstance(expected[0], str):  # a refusal compiles nothing
        assert ("compiled" in qualname or "_row_direct" in qualname) == hooked, qualname


KINDS = ("mixed", "positive", "nan", "zeros")


# --- TROWMAX TROWMIN TCOLMAX TCOLMIN -----------------------------------------------------------------------------
EXTREME_TYPES = [(np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32), (np.int32, np.int32),
                 (np.int16, np.int16), (np.int8, np.int8), (np.uint8, np.uint8)]
REGIONS = [(16, 16, None, None, ROW), (16, 16, 5, 7, ROW), (16, 32, 16, 32, COL), (64, 128, 64, 100, ROW),
           (8, 16, 1, 16, ROW), (8, 16, 8, 1, ROW), (64, 64, 40, 64, COL), (128, 16, 128, 9, ROW)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN"])
@pytest.mark.parametrize("types", EXTREME_TYPES, ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}")
@pytest.mark.parametrize("region", REGIONS, ids=str)
@pytest.mark.parametrize("kind", KINDS + ("negative", "split", "signed_zeros"))
def test_extremes(target, name, types, region, kind):
    s_type, d_type = types
    rows, cols, vr, vc, layout = region
    s = make(spec(s_type, rows, cols, layout, vr, vc), values(s_type, rows * cols, kind))
    rows, cols = s.spec.rows, s.spec.cols
    by_rows = name.startswith("TROW")
    # dst: a one-column col-major tile (a contiguous line), or a square row-major one (a strided line)
    for d_spec in ((spec(d_type, rows, 1, COL, s.valid_row, 1) if by_rows else
                    spec(d_type, 1, cols, ROW, 1, s.valid_col)), spec(d_type, rows, cols)):
        tiles = [make(d_spec), s] + ([make(s.spec)] if by_rows else [])
        check(name, target, tiles)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWMAX", "TCOLMIN"])
def test_extremes_other_forms(target, name):
    """bfloat16 (the bound kernel), the column form with tmp, dst aliasing src, run-time valid shapes."""
    by_rows = name.startswith("TROW")
    b = make(spec(ptoisa.dtypes.DType.BF16.np, 16, 16), values(np.float32, 256))
    d = make(spec(b.spec.np_dtype, 16, 1, COL, 16, 1) if by_rows else spec(b.spec.np_dtype, 1, 16))
    check(name, target, [d, b] + ([make(b.spec)] if by_rows else []), hooked=False)
    s = make(spec(np.float32, 16, 16), values(np.float32, 256, "zeros"))
    if not by_rows:
        check(name, target, [make(spec(np.float32, 1, 16)), s, make(s.spec)], form=1)
    alias = make(spec(np.float32, 16, 16), values(np.float32, 256, "zeros"))
    check(name, target, [alias, alias] + ([make(alias.spec)] if by_rows else []))  # dst is src
    dyn = spec(np.float32, 16, 16, ROW, -1, -1)
    for valid in ((16, 16), (3, 9), (16, 16)):
        for kind in ("positive", "zeros"):
            src_tile = make(dyn, values(np.float32, 256, kind), valid)
            dst_tile = make(dyn, None, valid)
            check(name, target, [dst_tile, src_tile] + ([make(dyn, None, valid)] if by_rows else []), hooked=None)


# --- in-order sums and products into a strided or narrower line ------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWSUM", "TROWPROD", "TCOLSUM", "TCOLPROD"])
@pytest.mark.parametrize("types", [(np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32),
                                   (np.int32, np.int32), (np.int16, np.int32)],
                         ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}")
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 16, 6, 11), (64, 128, 64, 128)], ids=str)
def test_in_order_strided(target, name, types, region):
    s_type, d_type = types
    rows, cols, vr, vc = region
    s = make(spec(s_type, rows, cols, ROW, vr, vc), values(s_type, rows * cols, "mixed"))
    rows, cols = s.spec.rows, s.spec.cols
    tiles = [make(spec(d_type, rows, cols)), s] + ([make(s.spec)] if name.startswith("TROW") else [])
    # the NPUs fold float column sums and products their own way (A5's grouping, A2/A3 from row 0): the bound
    # kernel there, no compiled form
    grouped = target != "cpu" and name in ("TCOLSUM", "TCOLPROD") and np.dtype(d_type).kind == "f"
    check(name, target, tiles, hooked=not grouped)


# --- TROWARGMAX TROWARGMIN TCOLARGMAX TCOLARGMIN ---------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN"])
@pytest.mark.parametrize("s_type", [np.float32, np.float16, np.int32, np.int16, np.uint8])
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 16, 5, 7), (64, 128, 64, 128), (64, 128, 50, 99),
                                    (256, 32, None, None), (304, 16, 300, 16)], ids=str)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d_type", [np.int32, np.uint32])
def test_arg_reductions(target, name, s_type, region, kind, d_type):
    rows, cols, vr, vc = region
    s = make(spec(s_type, rows, cols, ROW, vr, vc), values(s_type, rows * cols, kind))
    rows, cols = s.spec.rows, s.spec.cols
    vr, vc = s.valid_shape
    d_spec = spec(d_type, rows, 1, COL, vr, 1) if name.startswith("TROW") else \
        spec(d_type, 1, cols, ROW, 1, vc)
    check(name, target, [make(d_spec), s, make(s.spec)])


@pytest.mark.parametrize("target", TARGETS)
def test_arg_run_time_valid(target):
    dyn = spec(np.float32, 64, 128, ROW, -1, -1)
    dd = spec(np.int32, 1, 128, ROW, 1, -1)
    for valid in ((64, 128), (40, 77), (64, 128)):
        for kind in ("positive", "nan"):
            check("TCOLARGMAX", target, [make(dd, None, (1, valid[1])), make(dyn, values(np.float32, 8192, kind), valid),
                                         make(dyn, None, valid)], hooked=None)


# --- TROWEXPAND TCOLEXPAND ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TROWEXPAND", "TCOLEXPAND"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint32, ptoisa.dtypes.DType.BF16.np])
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 32, 5, 7), (64, 128, 64, 128)], ids=str)
def test_broadcasts(target, name, dtype, region):
    rows, cols, vr, vc = region
    s = make(spec(dtype, rows, cols), values(np.float32 if np.dtype(dtype).kind == "V" else dtype, rows * cols))
    rows, cols = s.spec.rows, s.spec.cols
    check(name, target, [make(spec(dtype, rows, cols, ROW, vr, vc)), s])
    check(name, target, [make(spec(dtype, rows, cols, COL, vr, vc)), s])
    check(name, target, [s, s])  # dst is src


# --- TROWEXPAND{op}, TCOLEXPAND{op} -----------------------------------------------------------------------------
OPS = ["ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16])
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 32, 7, 20), (64, 128, 64, 128), (64, 128, 60, 77)],
                         ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_row_expand_ops(target, op, dtype, region, kind):
    rows, cols, vr, vc = region
    grid = spec(dtype, rows, cols, ROW, vr, vc)
    rows, cols = grid.rows, grid.cols
    vr = grid.valid_row
    vec = spec(dtype, rows, 1, COL, vr, 1)
    name = f"TROWEXPAND{op}"
    a, v = make(grid, values(dtype, rows * cols, kind)), make(vec, values(dtype, rows, kind))
    if np.dtype(dtype).kind in "iu" and op == "DIV":
        v.storage[::3] = 0  # the simulator's divide by zero of integers
    check(name, target, [make(grid), a, v])
    check(name, target, [make(grid), v, a])  # the per-row operand as src0
    check(name, target, [a, a, v])  # dst is src0
    if kind == "mixed":
        check(name, target, [make(grid), a, v, make(grid)], form=1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint16])
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 32, 7, 20), (64, 128, 64, 128)], ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_col_expand_ops(target, op, dtype, region, kind):
    rows, cols, vr, vc = region
    grid = spec(dtype, rows, cols, ROW, vr, vc)
    rows, cols = grid.rows, grid.cols
    vec = spec(dtype, 1, cols, ROW, 1, grid.valid_col if kind != "zeros" else min(3, grid.valid_col))
    name = f"TCOLEXPAND{op}"
    a, v = make(grid, values(dtype, rows * cols, kind)), make(vec, values(dtype, cols, kind))
    if np.dtype(dtype).kind in "iu" and op == "DIV":
        v.storage[::3] = 0
    check(name, target, [make(grid), a, v])
    check(name, target, [a, a, v])  # dst is src0
    if kind == "mixed":
        check(name, target, [make(grid), a, v, make(grid)], form=1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["ADD", "MAX", "EXPDIF"])
def test_expand_ops_run_time_valid(target, op):
    dyn = spec(np.float32, 64, 128, ROW, -1, -1)
    col = spec(np.float32, 64, 1, COL, -1, 1)
    row = spec(np.float32, 1, 128, ROW, 1, -1)
    for valid in ((64, 128), (5, 3), (64, 128)):
        for kind in ("positive", "nan", "zeros"):
            a = make(dyn, values(np.float32, 8192, kind), valid)
            check(f"TROWEXPAND{op}", target, [make(dyn, None, valid), a, make(col, values(np.float32, 64, kind),
                                                                                (valid[0], 1))], hooked=None)
            check(f"TCOLEXPAND{op}", target, [make(dyn, None, valid), a, make(row, values(np.float32, 128, kind),
                                                                                (1, valid[1]))], hooked=None)


# --- TPARTADD TPARTMAX TPARTMIN ----------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["TPARTADD", "TPARTMAX", "TPARTMIN"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8, ptoisa.dtypes.DType.BF16.np])
@pytest.mark.parametrize("region", [(16, 16, None, None), (16, 32, 7, 20), (64, 128, 64, 128)], ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_part_ops(target, name, dtype, region, kind):
    rows, cols, vr, vc = region
    grid = spec(dtype, rows, cols, ROW, vr, vc)
    rows, cols = grid.rows, grid.cols
    base = np.float32 if np.dtype(dtype).kind == "V" else dtype
    a = make(grid, values(base, rows * cols, kind))
    b = make(spec(dtype, rows, cols, COL, vr, vc), values(base, rows * cols, kind))
    check(name, target, [make(grid), a, b])
    check(name, target, [a, a, b])  # dst is src0
    small = make(spec(dtype, rows, cols, ROW, 3, 5), values(base, rows * cols, kind))
    check(name, target, [make(grid), a, small], hooked=False)  # a source covering less than dst


# --- TTRANS ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, ptoisa.dtypes.DType.BF16.np])
@pytest.mark.parametrize("shape", [(16, 32, None, None), (16, 32, 5, 19), (128, 128, None, None), (256, 64, 200, 64),
                                   (128, 256, 128, 250)], ids=str)
def test_trans(target, dtype, shape):
    rows, cols, vr, vc = shape
    base = np.float32 if np.dtype(dtype).kind == "V" else dtype
    s = make(spec(dtype, rows, cols, ROW, vr, vc), values(base, rows * cols))
    rows, cols = s.spec.rows, s.spec.cols
    vr, vc = s.valid_shape
    out_rows, out_cols = max(vc, 32 // np.dtype(dtype).itemsize), max(vr, 32 // np.dtype(dtype).itemsize)
    check("TTRANS", target, [make(spec(dtype, out_rows, out_cols)), s])
    check("TTRANS", target, [make(spec(dtype, out_rows, out_cols, COL)), s])
    if (rows, cols) == (out_rows, out_cols) and vr == vc:
        check("TTRANS", target, [s, s])  # in place


@pytest.mark.parametrize("target", TARGETS)
def test_trans_overlapping_views(target):
    """dst a view of src's storage shifted by a row: the blocked copy must not read what it wrote."""
    s = make(spec(np.float32, 128, 128), values(np.float32, 128 * 128))
    d = Tile(spec(np.float32, 128, 128))
    backing = np.zeros(128 * 129, np.float32)
    backing[:128 * 128] = s.storage
    s.attach(backing[:128 * 128])
    d.attach(backing[128:])
    check("TTRANS", target, [d, s])


def _loop_arg(lane, greater):
    """The simulator's loop (include/pto/cpu/TReduceIdx.hpp): element 0, replaced only by a strictly greater
    (smaller) element."""
    best, index = lane[0], 0
    for i in range(1, len(lane)):
        if (lane[i] > best) if greater else (lane[i] < best):
            best, index = lane[i], i
    return index


@pytest.mark.parametrize("name", ["TCOLARGMAX", "TCOLARGMIN", "TROWARGMAX", "TROWARGMIN"])
@pytest.mark.parametrize("s_type", [np.float32, np.float16, np.int16])
@pytest.mark.parametrize("shape", [(304, 16, 300, 16), (256, 32, 256, 32), (64, 128, 64, 128), (16, 16, 9, 16)],
                         ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_arg_reductions_against_the_loop(name, s_type, shape, kind):
    """The indices against the simulator's loop itself (the compiled form and the general kernel share
    `_first_match_down` and NumPy's argmax)."""
    rows, cols, vr, vc = shape
    s = make(spec(s_type, rows, cols, ROW, vr, vc), values(s_type, rows * cols, kind))
    by_rows = name.startswith("TROW")
    d = make(spec(np.int32, rows, 1, COL, vr, 1) if by_rows else spec(np.int32, 1, cols, ROW, 1, vc))
    with warnings.catch_warnings():  # a signalling NaN widened (here and in the kernel's NaN route)
        warnings.simplefilter("ignore")
        getattr(ptoisa, name)(d, s, make(s.spec), target="cpu")
        region = s.data[:vr, :vc].astype(np.float64)
    greater = name.endswith("MAX")
    if by_rows:
        expected = [_loop_arg(list(region[i]), greater) for i in range(vr)]
        assert d.data[:vr, 0].tolist() == expected
    else:
        expected = [_loop_arg(list(region[:, j]), greater) for j in range(vc)]
        assert d.data[0, :vc].tolist() == expected
