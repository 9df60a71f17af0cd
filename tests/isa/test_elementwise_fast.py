"""The element-wise records' compiled fast paths (the `compiled` hooks of unary, binary and compound kernels,
`elementwise_hook`) give the bytes of the general kernel (`Instruction.call`, the plain NumPy computation), and its
refusals, on every target: random and special values (NaNs with payloads and either sign, +-0.0, +-inf,
denormals, integer extremes), values with none of them (where the fast paths do the work), several shapes and
layouts, valid regions smaller than the tile, run-time valid shapes, dst aliasing a source."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import BLayout, Tile, TileType
from ptoisa.errors import PtoError
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import resolve

TARGETS = ("cpu", "a2a3", "a5")
ROW, COL = BLayout.RowMajor, BLayout.ColMajor
RNG = np.random.default_rng(11)

UNARY = ("TABS", "TNEG", "TNOT", "TRELU", "TSQRT", "TLOG", "TRSQRT", "TRECIP")
BINARY = ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR")
COMPOUND = ("TADDC", "TSUBC", "TSUBRELU", "TFUSEDMULADD", "TMULADDDST", "TFUSEDMULADDRELU")
DTYPES = (np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32)


def values(dtype, n, kind):
    """n values: "clean" (no NaN, no zero; negative, infinite and denormal floats, integer extremes), "finite"
    (clean without infinities), "special"
    (every special value, NaN payloads of both signs), or "positive" (floats > 0, integers 1..)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if kind == "positive":
            return RNG.integers(1, min(info.max, 1000), n, endpoint=True).astype(dtype)
        out = RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)
        out[RNG.random(n) < 0.1] = info.min
        out[RNG.random(n) < 0.1] = info.max
        if kind == "special":
            out[RNG.random(n) < 0.1] = 0
        else:
            out[out == 0] = 1
        return out
    out = (RNG.standard_normal(n) * 30).astype(dtype)
    if kind == "positive":
        out = np.abs(out) + dtype.type(0.5)
        out[RNG.random(n) < 0.1] = np.float64(1e-40).astype(dtype) if dtype.itemsize == 4 else dtype.type(1e-7)
        return out
    pool = [1e-40, -1e-42, 6e-8, -6e-8, 65504.0]
    if kind != "finite":
        pool += [np.inf, -np.inf, 1e30, -1e30]
    if kind == "special":
        pool += [0.0, -0.0]
    pick = RNG.random(n) < 0.25
    with np.errstate(over="ignore"):
        out[pick] = np.array(pool, np.float64).astype(dtype)[RNG.integers(0, len(pool), pick.sum())]
    if kind in ("clean", "finite"):
        out[out == 0] = dtype.type(1)
    else:
        bits = out.view(f"u{dtype.itemsize}")
        nans = [0x7FC01234, 0xFF800001, 0xFFC00000, 0x7F800005] if dtype.itemsize == 4 else [0x7E01, 0xFC03, 0xFE00]
        for v in nans:
            bits[RNG.integers(0, n)] = v
    return out


def spec(dtype, rows, cols, layout=ROW, vr=None, vc=None):
    return Tile[TileType.Vec, dtype, rows, cols, layout, rows if vr is None else vr, cols if vc is None else vc]


def legal(name, target, dtype):
    table = REGISTRY[name].legality[target]
    allowed = next(iter(table.dtypes.values()))
    return any(d.np == np.dtype(dtype) for d in allowed)


def make(s, kind, valid=()):
    t = Tile(s, *valid)
    t.storage[...] = values(s.np_dtype, t.storage.size, kind)
    return t


def clone(tiles):
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


def compiled_form(name, target, args):
    key = (resolve(target), *[a.spec for a in args])
    run = REGISTRY[name]._compiled.get(key)
    return getattr(run, "__qualname__", repr(run))


def outcome(fn):
    try:
        fn()
    except PtoError as exc:
        return type(exc), str(exc)
    return None


def has_fast_path(name, dtype):
    dtype = np.dtype(dtype)
    if name in ("TSQRT", "TLOG", "TRSQRT"):
        return dtype == np.float32
    if name in ("TRECIP", "TDIV"):
        return dtype.kind == "f"
    if name == "TSUBRELU":
        return dtype.kind == "f" or dtype.itemsize == 4
    return True


def check(name, target, tiles, hooked=True):
    """The compiled call (compiling, then cached, then again) against `Instruction.call` (the general kernel) on
    copies: the same bytes in every tile, the same refusal (and then unchanged bytes)."""
    rec = REGISTRY[name]
    roles = [o.name for o in rec.forms[0] if o.kind == "tile" and not o.optional]
    for _ in range(3):
        fast, slow = clone(tiles), clone(tiles)
        before = [t.storage.tobytes() for t in fast]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # neither path lets a NumPy floating-point warning out
            got = outcome(lambda: rec(*fast, target=target))
            want = outcome(lambda: rec.call(resolve(target), dict(zip(roles, slow)), {}, {}, 0))
        assert got == want, (name, got, want)
        for a, b in zip(fast, slow):
            assert a.storage.tobytes() == b.storage.tobytes(), name
        if want is not None:
            assert [t.storage.tobytes() for t in fast] == before
    form = compiled_form(name, target, fast)
    static = not any(s.dynamic_row or s.dynamic_col for s in (t.spec for t in tiles))
    if hooked and want is None and static and has_fast_path(name, tiles[0].spec.np_dtype):
        assert "elementwise_hook" in form or "_whole_tile" in form, form
    return fast


def sources_for(name, dtype, n, kind):
    """Second operands: shift counts in range (or, for "special", some out of range)."""
    if name in ("TSHL", "TSHR"):
        bits = max(np.dtype(dtype).itemsize * 8, 32)
        counts = RNG.integers(0, bits, n)
        if kind == "special":
            counts[RNG.integers(0, n)] = bits
        return counts.astype(dtype)
    return values(dtype, n, kind)


def run_case(name, target, dtype, kind, layout_d, layout_s, rows, cols, vr, vc, alias):
    rec = REGISTRY[name]
    if not legal(name, target, dtype):
        pytest.skip("not legal")
    n_src = sum(1 for o in rec.forms[0] if o.kind == "tile" and not o.optional) - 1
    d = make(spec(dtype, rows, cols, layout_d, vr, vc), kind)
    srcs = [make(spec(dtype, rows, cols, layout_s, vr, vc), kind) for _ in range(n_src)]
    if n_src >= 2:
        srcs[1].storage[...] = sources_for(name, dtype, srcs[1].storage.size, kind)
    if kind == "positive" and n_src >= 2 and name not in ("TSHL", "TSHR"):
        srcs[1].storage[...] = values(dtype, srcs[1].storage.size, "positive")
    tiles = [d, *srcs]
    if alias and layout_d == layout_s:
        tiles = [srcs[0], *srcs]  # dst is src0
    check(name, target, tiles)


SHAPES = [(32, 32, None, None, ROW, ROW), (32, 32, 5, 11, ROW, ROW), (32, 64, None, None, COL, ROW),
          (32, 32, 3, 8, COL, COL), (2, 128, None, None, ROW, ROW), (1, 64, 1, 40, ROW, ROW),
          (64, 64, 60, 50, ROW, ROW)]


# The tile-scalar tests below hold the arithmetic to NumPy on logical regions, a dst and src of different major
# orders included: without the erratum by which the simulator reads src in dst's order (tile_scalar_src_dst_order,
# tests/isa/test_tile_scalar_src_order.py)
_CPU_SRC_ORDER_OFF = resolve("cpu").without("tile_scalar_src_dst_order")


@pytest.mark.parametrize("name", UNARY + BINARY + COMPOUND)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("kind", ["clean", "finite", "special", "positive"])
def test_against_general(name, dtype, kind):
    for target in TARGETS:
        for rows, cols, vr, vc, ld, ls in SHAPES:
            for alias in (False, True):
                try:
                    run_case(name, target, dtype, kind, ld, ls, rows, cols, vr, vc, alias)
                except pytest.skip.Exception:
                    break


@pytest.mark.parametrize("name", UNARY + BINARY + COMPOUND)
@pytest.mark.parametrize("dtype", (np.float32, np.float16, np.int32, np.int8), ids=lambda d: np.dtype(d).name)
def test_run_time_valid(name, dtype):
    """Valid shapes set at run time (`Tile[..., -1, -1](vr, vc)`): each shape met compiles its own form."""
    rec = REGISTRY[name]
    if not legal(name, "cpu", dtype):
        pytest.skip("not legal")
    n_src = sum(1 for o in rec.forms[0] if o.kind == "tile" and not o.optional) - 1
    dyn = spec(dtype, 32, 32, ROW, -1, -1)
    for valid, kind in (((32, 32), "clean"), ((4, 9), "clean"), ((32, 32), "special"), ((7, 32), "positive")):
        tiles = [make(dyn, kind, valid) for _ in range(n_src + 1)]
        if n_src >= 2:
            tiles[2].storage[...] = sources_for(name, dtype, 1024, kind)
        check(name, "cpu", tiles)


@pytest.mark.parametrize("name", ("TABS", "TMAX", "TMIN", "TRELU"))
def test_shared_buffer(name):
    """dst and a source are windows of one buffer (no private storages): the fast paths that write dst before
    their check must not take it for a separate array."""
    rec = REGISTRY[name]
    n = sum(1 for o in rec.forms[0] if o.kind == "tile" and not o.optional)
    for kind in ("clean", "special"):
        buf = values(np.float32, 1024 * (n + 1), kind)
        tiles = []
        for k in range(n):
            t = Tile(spec(np.float32, 32, 32))
            start = 0 if k == 1 else 1024 * k  # the first source is dst's own memory again
            t.attach(buf[start:start + 1024])
            tiles.append(t)
        fast = clone(tiles)
        for c, t in zip(fast, tiles):
            c.attach(t.storage)  # one buffer again
        slow_buf = buf.copy()
        slow = []
        for t in tiles:
            c = Tile(t.spec)
            off = (t.storage.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // 4
            c.attach(slow_buf[off:off + 1024])
            slow.append(c)
        roles = [o.name for o in rec.forms[0] if o.kind == "tile" and not o.optional]
        rec(*tiles, target="cpu")
        rec.call(resolve("cpu"), dict(zip(roles, slow)), {}, {}, 0)
        assert buf.tobytes() == slow_buf.tobytes()


def _remainder_reference(a, b):
    """TREM's definition, as the simulator computes it: libm's fmod in double, rounded to the type, then + b in
    the type where the signs differ and the remainder is not zero (NumPy's masked add)."""
    with np.errstate(all="ignore"):
        r = np.fmod(a.astype(np.float64), np.asarray(b).astype(np.float64)).astype(a.dtype)
        np.add(r, b, out=r, where=((a >= 0) != (b >= 0)) & (r != 0))
    return r


@pytest.mark.parametrize("dtype", ("float32", "float16", "bfloat16"))
@pytest.mark.parametrize("kind", ["clean", "special", "positive"])
def test_remainder_adjustment(dtype, kind):
    """rem (TREM, TREMS) takes the adjusted elements by a select of bits instead of NumPy's masked add."""
    import ml_dtypes

    from ptoisa.isa.vector.binary import rem

    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype).type
    for n in (100, 5000):
        with np.errstate(all="ignore"):
            a = values(np.float32, n, kind).astype(dt) if dtype == "bfloat16" else values(dt, n, kind)
            b = values(np.float32, n, kind).astype(dt) if dtype == "bfloat16" else values(dt, n, kind)
        for divisor in (b, b[7], dt(0.75), dt(-3.0)):
            with np.errstate(all="ignore"):
                assert rem(a, divisor).tobytes() == _remainder_reference(a, divisor).tobytes()


# --- the tile-scalar kernels' fast paths (no compiled hook: the kernels try them first) -------------------------
def _plain_scalar_cases():
    from ptoisa.isa.vector._common import cpp_max, cpp_min, select

    return {
        "TMAXS": lambda d, a, s: cpp_max(a, s),
        "TMINS": lambda d, a, s: cpp_min(a, s),
        "TDIVS": lambda d, a, s: a / s,
        "TLRELU": lambda d, a, s: select(a > 0, a, a * s),
        "TAXPY": lambda d, a, s: (d + (a * s).astype(d.dtype)).astype(d.dtype),
    }


SCALARS = [0.5, 1.0, 2.0, 0.0, -0.0, -0.5, -3.0, 1e-40, float("inf"), float("-inf"), float("nan"), 0.999, 1.5, 1.5e38]


@pytest.mark.parametrize("name", ["TMAXS", "TMINS", "TDIVS", "TLRELU", "TAXPY"])
@pytest.mark.parametrize("dtype", (np.float32, np.float16, np.int32, np.int16), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("kind", ["clean", "finite", "special", "positive"])
def test_scalar_kernels(name, dtype, kind):
    """Each tile-scalar record against its plain NumPy definition on the valid region (the rest of dst kept)."""
    import warnings

    plain = _plain_scalar_cases()[name]
    rec = REGISTRY[name]
    if not legal(name, "cpu", dtype):
        pytest.skip("not legal")
    for rows, cols, vr, vc, ld, ls in SHAPES + [(32, 32, -1, -1, ROW, ROW)]:
        dyn = vr == -1
        ds, ss = spec(dtype, rows, cols, ld, vr, vc), spec(dtype, rows, cols, ls, vr, vc)
        valid = (9, 30) if dyn else ()
        for scalar in (SCALARS if np.dtype(dtype).kind == "f" else [3, -2, 1, 0, 7]):
            if name == "TDIVS" and np.dtype(dtype).kind in "iu" and scalar == 0:
                continue
            d, a = make(ds, kind, valid), make(ss, kind, valid)
            for alias in (False, True):
                dst = a if alias and ld == ls else d
                before = dst.data.copy()
                src_region = a.data[:a.valid_row, :a.valid_col].copy()
                dst_region = dst.data[:dst.valid_row, :dst.valid_col].copy()
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    s = np.array(scalar).astype(dtype)[()]
                    want = np.asarray(plain(dst_region, src_region, s)).astype(dtype)
                    rec(dst, a, scalar, target=_CPU_SRC_ORDER_OFF)
                r, c = dst.valid_row, dst.valid_col
                got = dst.data
                assert got[:r, :c].tobytes() == want.tobytes(), (name, scalar, rows, cols, alias)
                rest = np.ones(got.shape, bool)
                rest[:r, :c] = False
                assert got[rest].tobytes() == before[rest].tobytes()
                d, a = make(ds, kind, valid), make(ss, kind, valid)


@pytest.mark.parametrize("name,first", [("TADDSC", np.add), ("TSUBSC", np.subtract)])
@pytest.mark.parametrize("dtype", (np.float32, np.float16, np.int32, np.int8), ids=lambda d: np.dtype(d).name)
def test_scalar_compound(name, first, dtype):
    rec = REGISTRY[name]
    for kind in ("clean", "special"):
        for rows, cols, vr, vc, ld, ls in SHAPES:
            d = make(spec(dtype, rows, cols, ld, vr, vc), kind)
            a = make(spec(dtype, rows, cols, ls, vr, vc), kind)
            b = make(spec(dtype, rows, cols, ls, vr, vc), kind)
            r, c = d.valid_row, d.valid_col
            s = np.array(3).astype(dtype)[()]
            with np.errstate(all="ignore"):
                want = np.add(first(a.data[:r, :c], s), b.data[:r, :c])
            rec(d, a, 3, b, target="cpu")
            assert d.data[:r, :c].tobytes() == want.tobytes()


@pytest.mark.parametrize("kind", ["clean", "finite", "special"])
def test_axpy_half_under_float(kind):
    """TAXPY with a half src0 under a float dst: the product rounds to half, the sum to float."""
    for rows, cols, vr, vc, ld, ls in SHAPES:
        d = make(spec(np.float32, rows, cols, ld, vr, vc), kind)
        a = make(spec(np.float16, rows, cols, ls, vr, vc), kind)
        r, c = d.valid_row, d.valid_col
        with np.errstate(all="ignore"):
            want = (d.data[:r, :c] + (a.data[:r, :c] * np.float16(0.7)).astype(np.float32)).astype(np.float32)
        REGISTRY["TAXPY"](d, a, 0.7, target="cpu")
        assert d.data[:r, :c].tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32),
                         ids=lambda d: np.dtype(d).name)
def test_shift_left_by_scalar(dtype):
    """TSHLS for every count the shift rule admits: NumPy's shift on the type (held to C++'s promoted shift
    elsewhere), whichever way the kernel computes it (a multiplication for the narrow types)."""
    for rows, cols, vr, vc, ld, ls in SHAPES:
        for count in range(max(np.dtype(dtype).itemsize * 8, 32)):
            d = make(spec(dtype, rows, cols, ld, vr, vc), "special")
            a = make(spec(dtype, rows, cols, ls, vr, vc), "special")
            before = d.data.copy()
            r, c = d.valid_row, d.valid_col
            want = np.left_shift(a.data[:r, :c], np.array(count).astype(dtype))
            REGISTRY["TSHLS"](d, a, count, target=_CPU_SRC_ORDER_OFF)
            assert d.data[:r, :c].tobytes() == want.tobytes(), count
            before[:r, :c] = want
            assert d.data.tobytes() == before.tobytes()


@pytest.mark.parametrize("name,dtype", [("TXOR", np.int32), ("TRSQRT", np.float32), ("TREM", np.float32)])
def test_with_scratch_tile(name, dtype):
    """Records with an optional scratch tile: given, it changes nothing (the compiled call ignores it)."""
    rec = REGISTRY[name]
    for kind in ("positive", "special"):
        tiles = [make(spec(dtype, 32, 32), kind) for _ in range(4 if name != "TRSQRT" else 3)]
        fast, slow = clone(tiles), clone(tiles)
        with np.errstate(all="ignore"):
            rec(*fast, target="cpu")
            roles = [o.name for o in rec.forms[0] if o.kind == "tile" and not o.optional]
            rec.call(resolve("cpu"), dict(zip(roles, slow)), {}, {}, 0)
        for f, s in zip(fast, slow):
            assert f.storage.tobytes() == s.storage.tobytes()


@pytest.mark.parametrize("name", ["TABS", "TRELU", "TMAX", "TADDC", "TFUSEDMULADDRELU", "TSQRT", "TDIV"])
@pytest.mark.parametrize("kind", ["clean", "finite", "special"])
def test_overlapping_windows(name, kind):
    """dst and the sources are row windows of one parent tile that overlap in part (plain Tiles whose storages
    are slices of one array): the compiled call against the general kernel on a copy of the parent."""
    from ptoisa.tile.tile import window

    rec = REGISTRY[name]
    n = sum(1 for o in rec.forms[0] if o.kind == "tile" and not o.optional)
    part = spec(np.float32, 32, 32)
    for offsets in ((0, 16, 8, 24), (16, 0, 24, 8), (0, 0, 16, 16)):
        parent = make(spec(np.float32, 64, 32), kind)
        twin = Tile(parent.spec)
        twin.storage[...] = parent.storage
        fast = [window(parent, part, o, 0) for o in offsets[:n]]
        slow = [window(twin, part, o, 0) for o in offsets[:n]]
        with np.errstate(all="ignore"):
            rec(*fast, target="cpu")
            roles = [o.name for o in rec.forms[0] if o.kind == "tile" and not o.optional]
            rec.call(resolve("cpu"), dict(zip(roles, slow)), {}, {}, 0)
        assert parent.storage.tobytes() == twin.storage.tobytes(), offsets
        assert type(fast[0]) is Tile
