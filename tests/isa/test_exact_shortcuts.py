"""The fast kernels give the same bits as the straightforward ones they replaced.

Each reference below is a copy of the kernel as it was before the shortcut (computing in double, one np.where per
rule): the simulator's arithmetic written the plain way. The fast kernels are held to them bit for bit on
special values (NaNs with payloads and signs, infinities, signed zeros, subnormals, the largest and smallest
numbers), on random bit patterns (every exponent), on ordinary values (the shortcut's own path), and, for half,
exhaustively over one operand.
"""

from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

from ptoisa.isa.vector import binary, scalar
from ptoisa.isa.vector._common import from_double, narrow_int, trunc_rem

sys.path.insert(0, os.path.dirname(__file__))
from _folds import UINT, assert_same_or_both_nan, bits, loop_fold, target_fold  # noqa: E402

FLOAT_TYPES = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32))
INT_TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))


def assert_same_bits(got: np.ndarray, want: np.ndarray, *inputs: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = bits(got) != bits(want)
    if diff.any():
        where = np.argwhere(diff)[:5]
        detail = [(tuple(i), *(np.broadcast_to(v, got.shape)[tuple(i)] for v in inputs), got[tuple(i)],
                   want[tuple(i)]) for i in where]
        raise AssertionError(f"{int(diff.sum())} elements differ, e.g. (index, inputs..., got, want): {detail}")


def specials(dtype: np.dtype) -> np.ndarray:
    """Special values of a float type by bit pattern: zeros, subnormals, extremes, infinities, NaNs."""
    u = UINT[dtype.itemsize]
    nbits = dtype.itemsize * 8
    mant = {np.dtype(np.float16): 10, np.dtype(ml_dtypes.bfloat16): 7, np.dtype(np.float32): 23}[dtype]
    sign = 1 << (nbits - 1)
    exp_all = ((1 << (nbits - 1 - mant)) - 1) << mant
    one = (((1 << (nbits - 2 - mant)) - 1) << mant)
    patterns = [0, 1, 2, (1 << mant) - 1, 1 << mant, (1 << mant) + 1, exp_all - 1, exp_all, exp_all | 1,
                exp_all | (1 << (mant - 1)), exp_all | (1 << (mant - 1)) | 5, exp_all | ((1 << mant) - 1),
                one, one + 1, one - 1, one + (1 << mant), one - (1 << mant), one + (3 << mant)]
    values = np.array(patterns + [p | sign for p in patterns], dtype=np.uint64).astype(u).view(dtype)
    return np.concatenate([values, np.array([0.5, 1.5, 2, 3, 7, 0.1, 1e3, -0.75, -3], dtype=dtype)])


def random_values(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """Half random bit patterns (any exponent, NaN payloads), half ordinary numbers around 1."""
    u = UINT[dtype.itemsize]
    raw = rng.integers(0, np.iinfo(u).max, n // 2, dtype=u, endpoint=True).view(dtype)
    plain = (rng.standard_normal(n - n // 2) * np.exp2(rng.integers(-6, 7, n - n // 2))).astype(dtype)
    return np.concatenate([raw, plain])


def operand_pairs(dtype: np.dtype, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Every special value against every other, then random pairs."""
    rng = np.random.default_rng(seed)
    s = specials(dtype)
    a, b = np.meshgrid(s, s, indexing="ij")
    ra, rb = random_values(dtype, 20000, rng), random_values(dtype, 20000, rng)
    return np.concatenate([a.ravel(), ra])[None, :], np.concatenate([b.ravel(), rb])[None, :]


def int_pairs(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(9)
    edge = np.array(sorted({info.min, info.min + 1, -1 if info.min else 0, 1, 2, 7, info.max - 1, info.max}),
                    dtype=dtype)
    a, b = np.meshgrid(edge, edge, indexing="ij")
    ra = rng.integers(info.min, info.max, 4096, endpoint=True).astype(dtype)
    rb = rng.integers(info.min, info.max, 4096, endpoint=True).astype(dtype)
    rb[rb == 0] = 3
    b = np.where(b == 0, np.ones_like(b), b)
    return np.concatenate([a.ravel(), ra]), np.concatenate([b.ravel(), rb])


# --- references: the kernels before the shortcuts ------------------------------------------------------------
def ref_rem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, 1, b).astype(b.dtype)
        r = trunc_rem(a, safe)
    else:
        r = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    adjust = ((a >= 0) != (b >= 0)) & (r != 0)
    return np.where(adjust, (r + b).astype(a.dtype), r)


def ref_fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return trunc_rem(a, np.where(b == 0, 1, b).astype(b.dtype)) if a.dtype.kind in "iu" else \
        np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)


# --- fmod and the remainders ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("kind", ["fmod", "rem"])
def test_remainders_tile_by_tile(dtype, kind):
    fast, ref = (scalar._fmod, ref_fmod) if kind == "fmod" else (binary.rem, ref_rem)
    a, b = operand_pairs(dtype)
    with np.errstate(all="ignore"):
        assert_same_bits(fast(a, b), ref(a, b), a, b)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("kind", ["fmod", "rem"])
def test_remainders_by_a_scalar(dtype, kind):
    """TFMODS and TREMS: the divisor is a NumPy scalar of the element type (zero, NaN and inf included)."""
    fast, ref = (scalar._fmod, ref_fmod) if kind == "fmod" else (binary.rem, ref_rem)
    a, _ = operand_pairs(dtype, seed=11)
    plain = a[:, -10000:]  # ordinary numbers only: the fast path throughout (unless s is special)
    for s in specials(dtype):
        with np.errstate(all="ignore"):
            assert_same_bits(fast(a, s), ref(a, s), a, s)
            assert_same_bits(fast(plain, s), ref(plain, s), plain, s)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("kind", ["fmod", "rem"])
def test_remainders_near_multiples(dtype, kind):
    """Dividends next to k * b (the quotient just under or over an integer), k up to past the fast path's 2**24."""
    fast, ref = (scalar._fmod, ref_fmod) if kind == "fmod" else (binary.rem, ref_rem)
    rng = np.random.default_rng(17)
    b = random_values(dtype, 4000, rng)
    k = np.exp2(rng.uniform(0, 26, 1500)).round()
    with np.errstate(all="ignore"):
        b = b[np.isfinite(b) & (b != 0)][:1500]
        exact = (b.astype(np.float64) * k).astype(dtype)
        a = np.concatenate([exact, np.nextafter(exact, dtype.type(0)), np.nextafter(exact, dtype.type(np.inf)),
                            -np.nextafter(exact, dtype.type(0))])[None, :]
        bb = np.tile(b, 4)[None, :]
        if dtype == ml_dtypes.bfloat16:  # no nextafter for bfloat16: step the bit pattern
            up = (exact.view(np.uint16) + np.uint16(1)).view(dtype)
            down = (exact.view(np.uint16) - np.uint16(1)).view(dtype)
            a = np.concatenate([exact, down, up, -down])[None, :]
        assert_same_bits(fast(a, bb), ref(a, bb), a, bb)
        plain = np.isfinite(a) & (np.abs(a.astype(np.float64) / bb.astype(np.float64)) < 2.0 ** 23)
        assert plain.mean() > 0.5  # most of them on the fast path
        assert_same_bits(fast(a[plain], bb[plain]), ref(a[plain], bb[plain]))
        small = a[:, :500]  # a small tile: libm's fmod directly
        assert_same_bits(fast(small, bb[:, :500]), ref(small, bb[:, :500]))


@pytest.mark.parametrize("kind", ["fmod", "rem"])
def test_half_remainders_exhaustive_dividend(kind):
    """Every half dividend against divisors from every binade (and the specials), fast path and fallback."""
    fast, ref = (scalar._fmod, ref_fmod) if kind == "fmod" else (binary.rem, ref_rem)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    divisors = np.concatenate([specials(np.dtype(np.float16)),
                               np.arange(1, 1 << 15, 331, dtype=np.uint16).view(np.float16)])
    a = np.broadcast_to(every, (divisors.size, every.size))
    b = np.broadcast_to(divisors[:, None], a.shape)
    with np.errstate(all="ignore"):
        assert_same_bits(fast(a, b), ref(a, b), a, b)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=str)
def test_integer_remainders_unchanged(dtype):
    a, b = int_pairs(dtype)
    assert_same_bits(binary.rem(a, b), ref_rem(a, b), a, b)
    assert_same_bits(scalar._fmod(a, b), ref_fmod(a, b), a, b)


def test_helpers_used_by_the_references_exist():
    assert callable(from_double) and callable(narrow_int)


# --- std::max / std::min by bits -----------------------------------------------------------------------------
def ref_cpp_max(a, b):
    return np.where(a < b, b, a)


def ref_cpp_min(a, b):
    return np.where(b < a, b, a)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES, ids=str)
@pytest.mark.parametrize("which", ["max", "min"])
def test_cpp_max_min(dtype, which):
    from ptoisa.isa.vector._common import cpp_max, cpp_min

    fast, ref = (cpp_max, ref_cpp_max) if which == "max" else (cpp_min, ref_cpp_min)
    a, b = operand_pairs(dtype) if dtype.kind != "i" and dtype.kind != "u" else \
        (x[None, :] for x in int_pairs(dtype))
    with np.errstate(all="ignore"):
        assert_same_bits(fast(a, b), ref(a, b), a, b)
        for s in (specials(dtype) if dtype.kind not in "iu" else b[0, :9]):
            s = dtype.type(s)
            assert_same_bits(fast(a, s), ref(a, s), a, s)
        small_a, small_b = a[:, :1000], b[:, :1000]  # a small tile: np.where itself
        assert_same_bits(fast(small_a, small_b), ref(small_a, small_b), small_a, small_b)
        if dtype.kind not in "iu":  # NaN-free operands: np.maximum's path, with and without zeros, with ties
            rng = np.random.default_rng(8)
            pa = rng.standard_normal((64, 64)).astype(dtype)
            pb = np.where(rng.random((64, 64)) < 0.2, pa, rng.standard_normal((64, 64)).astype(dtype))
            assert (pa != 0).all() and (pb != 0).all()
            assert_same_bits(fast(pa, pb), ref(pa, pb), pa, pb)
            assert_same_bits(fast(pa, dtype.type(0.5)), ref(pa, dtype.type(0.5)), pa)
            za, zb = pa.copy(), pb.copy()
            za[::3, ::2], zb[::2, ::3] = dtype.type(0.0), dtype.type(-0.0)
            za[1::4, ::5] = dtype.type(-0.0)
            assert_same_bits(fast(za, zb), ref(za, zb), za, zb)
            assert_same_bits(fast(zb, za), ref(zb, za), zb, za)
        strided = a.reshape(-1)[: (a.size // 64) * 64].reshape(-1, 64)[:, ::3]  # a tile's valid region: a view
        other = b.reshape(-1)[: (b.size // 64) * 64].reshape(-1, 64)[:, 1::3]
        strided, other = strided[:, :other.shape[1]], other[:, :strided.shape[1]]
        assert_same_bits(fast(strided, other), ref(strided, other), strided, other)


def test_relu_keeps_nan_and_negative_zero():
    from ptoisa.isa.vector.unary import relu

    for dtype in FLOAT_TYPES + INT_TYPES:
        x = operand_pairs(dtype)[0] if dtype.kind not in "iu" else int_pairs(dtype)[0]
        with np.errstate(all="ignore"):
            assert_same_bits(relu(x), ref_cpp_max(x, np.zeros_like(x)), x)


# --- unary: sqrt in float, tables for the 2-byte types --------------------------------------------------------
X86_DEFAULT_NAN = np.array(0xFFF8000000000000, np.uint64).view(np.float64)


def ref_in_double(fn):
    def apply(x):
        wide = x.astype(np.float64)
        fn(wide)
        nan = np.isnan(wide)
        if nan.any():
            from_input = np.isnan(x)
            wide[nan & ~from_input] = X86_DEFAULT_NAN
            wide[from_input] = _quieted(x[from_input].astype(np.float64))
        return from_double(wide, x.dtype)

    return apply


def _quieted(nans):
    """NaNs in double with the quiet bit set: C++ converts a half's signalling NaN to double quiet (NumPy keeps it
    signalling; a float's it converts in hardware, already quiet)."""
    bits = nans.view(np.uint64) | np.uint64(1 << 51)
    return bits.view(np.float64)


def _rsqrt(w):
    np.sqrt(w, out=w)
    np.divide(1.0, w, out=w)


def ref_exp(x):
    wide = x.astype(np.float64)
    np.exp(wide, out=wide)
    nan = np.isnan(wide)
    if nan.any():
        from_input = np.isnan(x)
        wide[nan & ~from_input] = X86_DEFAULT_NAN
        wide[from_input] = _quieted(x[from_input].astype(np.float64))
    if x.dtype == np.float16:
        return wide.astype(np.float32).astype(np.float16)
    return from_double(wide, x.dtype)


UNARY = {
    "TSQRT": ref_in_double(lambda w: np.sqrt(w, out=w)),
    "TLOG": ref_in_double(lambda w: np.log(w, out=w)),
    "TRSQRT": ref_in_double(_rsqrt),
    "TEXP": ref_exp,
}


def _unary_fast(name):
    from ptoisa.isa.record import REGISTRY
    from ptoisa.isa.vector import unary

    if name == "TEXP":
        return unary.exp
    kernel = REGISTRY[name].kernel
    return next(c.cell_contents for c in kernel.__closure__ if callable(c.cell_contents))


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions(name, dtype):
    fast, ref = _unary_fast(name), UNARY[name]
    if dtype.itemsize == 2:  # every input, whole and as a strided view (a tile's valid region)
        x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype).reshape(256, 256)
    else:
        x = np.concatenate([specials(dtype), random_values(dtype, 60000, np.random.default_rng(2)),
                            np.abs(random_values(dtype, 19955, np.random.default_rng(4)))]).reshape(-1, 125)
    with np.errstate(all="ignore"):
        assert_same_bits(fast(x), ref(x), x)
        view = x[1:, 3:100:2]
        assert_same_bits(fast(view), ref(view), view)
        plain = np.abs(x[-100:])  # no NaN: the float fast paths throughout
        plain = plain[np.isfinite(plain).all(axis=1)]
        assert plain.size >= 5000
        assert_same_bits(fast(plain), ref(plain), plain)


# --- compound: ReLU and leaky ReLU by bits ---------------------------------------------------------------------
def ref_relu(v):
    return np.where(v > 0, v, np.zeros_like(v))


def run_record(name, dtype, *arrays, scalar_value=None, dst_init=None):
    """Run record `name` on cpu with tiles holding `arrays` (bit for bit); dst's logical values back."""
    import ptoisa
    from ptoisa import Tile, TileType

    rows, cols = arrays[0].shape
    spec = Tile[TileType.Vec, dtype.type, rows, cols]
    tiles = []
    for values in ((dst_init if dst_init is not None else np.zeros_like(arrays[0])),) + arrays:
        t = spec()
        t.storage[...] = np.ascontiguousarray(values).reshape(-1)
        tiles.append(t)
    args = tiles[:2] + ([dtype.type(scalar_value)] if scalar_value is not None else []) + tiles[2:]
    with np.errstate(all="ignore"):
        getattr(ptoisa, name)(*args, target="cpu")
    return tiles[0].storage.reshape(rows, cols).copy()


def tile_values(dtype, seed=3):
    if dtype.kind in "iu":
        a, _ = int_pairs(dtype)
        a = np.resize(a, 64 * 64)
    else:
        a = np.resize(operand_pairs(dtype, seed)[0].ravel(), 64 * 64)
    return a.reshape(64, 64)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES, ids=str)
def test_compound_relu_forms(dtype):
    from ptoisa.isa.vector.compound import relu

    a, b, d = tile_values(dtype, 3), tile_values(dtype, 4)[::-1], tile_values(dtype, 5).T
    with np.errstate(all="ignore"):
        assert_same_bits(relu(a), ref_relu(a), a)
        want = ref_relu((a * d) + b).astype(dtype)
        assert_same_bits(run_record("TFUSEDMULADDRELU", dtype, a, b, dst_init=d), want, a, b, d)
        wide = dtype.kind in "iu" and dtype.itemsize < 4  # ReLU deduced from int: no wrap before the clamp
        diff = a.astype(np.int32) - b.astype(np.int32) if wide else a - b
        assert_same_bits(run_record("TSUBRELU", dtype, a, b), ref_relu(diff).astype(dtype), a, b)
        if dtype.kind not in "iu":
            for s in specials(dtype)[::4]:
                want = np.where(a > 0, a, a * s).astype(dtype)
                assert_same_bits(run_record("TLRELU", dtype, a, scalar_value=s), want, a, s)


# --- in-order reductions ---------------------------------------------------------------------------------------
def ref_sequential(op, values, acc, axis):
    """The fold as it was before the blocked copies, with its start fixed: from op's identity (as the
    simulator's `sum = 0`, `prod = 1`; it started from the first element for one lane and for bfloat16)."""
    values = values.astype(acc)
    if values.shape[axis] == 0:
        return np.take(values, [], axis=axis)
    identity = acc.type(0 if op is np.add else 1)
    with np.errstate(all="ignore"):
        if acc.kind in "iu" or acc in (np.float16, np.float32):
            outer = np.ascontiguousarray(values if axis == 0 else values.T)
            if outer.shape[1] == 1:
                return op.accumulate(np.concatenate([[identity], outer[:, 0]]), dtype=acc)[-1:]
            return op.reduce(outer, axis=0, dtype=acc)
        result = np.full(values.shape[1 - axis], identity, acc)
        for k in range(values.shape[axis]):
            result = op(result, values.take(k, axis=axis)).astype(acc)
        return result


@pytest.mark.parametrize("src, acc", [(np.float16, np.float32), (ml_dtypes.bfloat16, np.float32),
                                      (np.float32, np.float32), (np.float16, np.float16),
                                      (ml_dtypes.bfloat16, ml_dtypes.bfloat16), (np.int16, np.int32),
                                      (np.int32, np.int32), (np.int16, np.int16)], ids=str)
def test_sequential_folds(src, acc):
    from ptoisa.isa.vector.reduce import sequential

    src, acc = np.dtype(src), np.dtype(acc)
    x = tile_values(src, 7) if src.kind not in "iu" else tile_values(src)
    with np.errstate(all="ignore"):
        for op in (np.add, np.multiply):
            for axis in (0, 1):
                for view in (x, x[3:40, 5:61:3], x[:, :1], x[:1, :], x[:0, :]):
                    if view.shape[axis] == 0 and view.size:
                        continue
                    assert_same_bits(sequential(op, view, acc, axis), ref_sequential(op, view, acc, axis), view)


def wide_views(src):
    """Views that take the reductions' other routes: a tile big enough for the blocked transposing copy, with
    lane counts that are not multiples of the block, and a padded row-major view reduced in place."""
    from ptoisa.isa.vector.reduce import _blocked_pays

    rng = np.random.default_rng(8)
    big = np.resize(tile_values(src, 9).ravel()[rng.permutation(64 * 64)], (300, 100))
    # rows a power of two of bytes apart (256 elements): the pitch at which the row sums copy in blocks
    pitched = np.resize(tile_values(src, 9).ravel()[rng.permutation(64 * 64)], (200, 256))
    assert _blocked_pays(pitched.T) and _blocked_pays(pitched[3:197, 1:250].T) and not _blocked_pays(big.T)
    return big, big[1:290, 2:97], big[:, :40], big.T[:, 5:], big[:1, :], big[:, 7:8], pitched, \
        pitched[3:197, 1:250]


@pytest.mark.parametrize("src, acc", [(np.float16, np.float32), (np.float32, np.float32), (np.float16, np.float16),
                                      (ml_dtypes.bfloat16, ml_dtypes.bfloat16), (np.int16, np.int32),
                                      (np.int32, np.int32), (np.int16, np.int16)], ids=str)
def test_sequential_wide_views(src, acc):
    from ptoisa.isa.vector.reduce import sequential

    src, acc = np.dtype(src), np.dtype(acc)
    with np.errstate(all="ignore"):
        for op in (np.add, np.multiply):
            for axis in (0, 1):
                for view in wide_views(src):
                    assert_same_bits(sequential(op, view, acc, axis), ref_sequential(op, view, acc, axis), view)
                    if view.shape[1 - axis] > 1:  # into a given line, as the kernels write into dst
                        out = np.empty(view.shape[1 - axis], acc)
                        sequential(op, view, acc, axis, out)
                        assert_same_bits(out, ref_sequential(op, view, acc, axis), view)


def order_sensitive(dtype, shape, rng):
    """Values whose sum (product) changes with the order of the steps: a large value, +-1 and small ones that
    the large one swallows, its negative, signed zeros, and a few infinities and NaNs."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)
    big = {2: 2.0 ** 12, 4: 1e8}[dtype.itemsize] if dtype != ml_dtypes.bfloat16 else 2.0 ** 9
    pool = np.array([big, -big, 1, -1, 0.75, 3, 0.0, -0.0, big / 3, 1.5], np.float64)
    values = pool[rng.integers(0, pool.size, shape)] * np.where(rng.random(shape) < 0.2, rng.standard_normal(shape), 1)
    specials_at = rng.random(shape)
    values[specials_at < 0.01] = np.nan
    values[(specials_at >= 0.01) & (specials_at < 0.02)] = np.inf
    values[(specials_at >= 0.02) & (specials_at < 0.03)] = -np.inf
    return values.astype(dtype)


_FOLDS = {"TROWSUM": (np.add, 1), "TROWPROD": (np.multiply, 1), "TCOLSUM": (np.add, 0), "TCOLPROD": (np.multiply, 0)}


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", list(_FOLDS))
def test_in_order_reductions_against_a_step_loop(name, target):
    """NumPy reduces the outer axis of an array in order: every sum and product instruction gives the step
    loop's result (from 0 or 1, one rounding per step in the accumulator's type: float for TROWSUM of half and
    bfloat16, else dst's type) on values where the order shows, valid regions smaller than the tile, each
    legal type pair of each target; A5's float column folds give its own grouping's result."""
    import ptoisa
    from ptoisa import BLayout, SLayout, Tile, TileType

    op, axis = _FOLDS[name]
    record = getattr(ptoisa, name)
    rng = np.random.default_rng(len(name) * 7 + len(target))
    ran = 0
    for src_t, dst_t in sorted(record.legality[target].pairs, key=lambda p: (p[0].value, p[1].value)):
        src, dst = np.dtype(src_t.np), np.dtype(dst_t.np)
        acc = np.dtype(np.float32) if name == "TROWSUM" and dst_t.np in (np.float16, ml_dtypes.bfloat16) else dst
        block = 32 // min(src.itemsize, dst.itemsize)  # elements per 32 bytes: 8-bit types need 32, not 16
        for rows, cols, vr, vc in ((16, 16, 16, 16), (16, 32, 13, 29), (16, 16, 1, 16), (16, 16, 16, 1),
                                   (256, 128, 250, 97), (64, 256, 64, 256)):
            rows, cols = max(rows, block), max(cols, block)
            x = order_sensitive(src, (rows, cols), rng)
            a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
            a.set_logical(x)
            tmp = Tile[TileType.Vec, src.type, rows, cols]()
            side = max(16, block)
            if axis == 1:
                d = Tile[TileType.Vec, dst.type, rows, 1, BLayout.ColMajor, -1, -1](vr, 1)
                wide = Tile[TileType.Vec, dst.type, rows, side, BLayout.RowMajor, -1, -1](vr, 1)  # dst rows strided
            else:
                d = Tile[TileType.Vec, dst.type, 1, cols, BLayout.RowMajor, -1, -1](1, vc)
                wide = Tile[TileType.Vec, dst.type, side, cols, BLayout.ColMajor, -1, -1](1, vc)  # dst row strided
            want = target_fold(op, x[:vr, :vc], acc, axis, target).astype(dst)
            for out in (d, wide):
                with np.errstate(all="ignore"):
                    record(out, a, tmp, target=target)
                got = out.valid[:, 0] if axis == 1 else out.valid[0]
                assert_same_or_both_nan(got, want, (name, target, src, dst, rows, cols, vr, vc, out.spec.layout_name))
            ran += 1
    assert ran >= 12


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", list(_FOLDS))
def test_in_order_reductions_start_from_the_identity(name, target):
    """`sum = 0; sum += x` (`prod = 1; prod *= x`): a lane of -0.0 sums to +0.0 and a signalling NaN comes out
    quiet, for one lane, one step and bfloat16 accumulators too (the folds once started from the first
    element there)."""
    import ptoisa
    from ptoisa import BLayout, Tile, TileType

    op, axis = _FOLDS[name]
    if target in ("a5", "a2a3") and axis == 0:
        pytest.skip("the NPUs fold a column from its first row (tests/isa/test_npu_col_fold.py)")
    record = getattr(ptoisa, name)
    for src_t, dst_t in record.legality[target].pairs:
        src, dst = np.dtype(src_t.np), np.dtype(dst_t.np)
        if src.kind in "iu":
            continue
        quiet_nan, signalling = {2: (0x7E00, 0x7D01), 4: (0x7FC00000, 0x7FA00001)}[src.itemsize]
        if src == ml_dtypes.bfloat16:
            quiet_nan, signalling = 0x7FC0, 0x7FA1
        u = UINT[src.itemsize]
        x = np.full((16, 16), -0.0 if op is np.add else 1.0, src)
        x.view(u)[3, 0] = x.view(u)[0, 3] = signalling
        for vr, vc in ((16, 16), (1, 16), (16, 1), (1, 1)):
            a = Tile[TileType.Vec, src.type, 16, 16, BLayout.RowMajor, -1, -1](vr, vc)
            a.set_logical(x)
            if axis == 1:
                d = Tile[TileType.Vec, dst.type, 16, 1, BLayout.ColMajor, -1, -1](vr, 1)
            else:
                d = Tile[TileType.Vec, dst.type, 1, 16, BLayout.RowMajor, -1, -1](1, vc)
            record(d, a, Tile[TileType.Vec, src.type, 16, 16](), target=target)
            got = d.valid[:, 0] if axis == 1 else d.valid[0]
            want = loop_fold(op, x[:vr, :vc], np.dtype(np.float32) if name == "TROWSUM" else dst, axis).astype(dst)
            assert_same_bits(got, want)
            if op is np.add:
                assert not np.signbit(want[~np.isnan(want)]).any()
            nan = np.isnan(want.astype(np.float32))
            assert nan.any() == (vr > 3 or vc > 3)
            top = 0x00400000 if dst.itemsize == 4 else 0x0040 if dst == ml_dtypes.bfloat16 else 0x0200
            assert (want.view(UINT[dst.itemsize])[nan] & top).all()  # quiet: the top mantissa bit set


# --- first index of the extreme (TROWARGMAX ...) -----------------------------------------------------------------
def ref_first_index(values, axis, greater):
    if values.dtype.kind in "iu":
        return np.argmax(values, axis=axis) if greater else np.argmin(values, axis=axis)
    wide = values.astype(np.float64)
    nan = np.isnan(wide)
    clean = np.where(nan, -np.inf if greater else np.inf, wide)
    best = np.expand_dims(clean.max(axis=axis) if greater else clean.min(axis=axis), axis)
    index = np.argmax((clean == best) & ~nan, axis=axis)
    return np.where(nan.take(0, axis=axis), 0, index)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES, ids=str)
def test_first_index(dtype):
    from ptoisa.isa.vector.reduce import first_index

    rng = np.random.default_rng(21)
    cases = [tile_values(dtype, 3)]  # specials (NaNs, zeros of both signs, infinities) and random bits
    ties = rng.integers(-2, 3, (300, 40)).astype(dtype)  # many equal extremes, 300 rows (a 2-byte weight)
    if dtype.kind == "f" or dtype.kind == "V":
        ties = np.where(rng.random(ties.shape) < 0.3, -ties, ties).astype(dtype)  # 0.0 and -0.0
        ties[ties == 0] = np.where(rng.random(int((ties == 0).sum())) < 0.5, 0.0, -0.0).astype(dtype)
    cases += [ties, ties[:, 5:6], ties[:1], ties[7:200:3, ::2]]
    if dtype.kind not in "iu":
        clean = tile_values(dtype, 3)
        with np.errstate(all="ignore"):
            clean = np.where(np.isnan(clean), dtype.type(1), clean)  # no NaN: the fast paths
        cases.append(clean)
    for x in cases:
        for axis in (0, 1):
            for greater in (True, False):
                got = first_index(x, axis, greater)
                with np.errstate(all="ignore"):
                    want = ref_first_index(x, axis, greater)
                assert got.shape == want.shape and (got == want).all(), (x.shape, axis, greater)


# --- the shift-count rule reads the range of the counts -----------------------------------------------------------
@pytest.mark.parametrize("dtype", INT_TYPES, ids=str)
@pytest.mark.parametrize("name", ["TSHL", "TSHR"])
def test_shift_counts_outside_the_width_are_refused(name, dtype):
    from ptoisa import UndefinedBehaviourError

    bits = max(dtype.itemsize * 8, 32)
    a = np.full((8, 32), 3, dtype)
    for last, ok in ((bits - 1, True), (bits, False), (-1, False)):
        if last < 0 and dtype.kind == "u":
            continue
        counts = np.zeros((8, 32), np.int64)
        counts[5, 17] = last
        if not np.iinfo(dtype).min <= last <= np.iinfo(dtype).max:
            continue  # a count the element type cannot hold
        counts = counts.astype(dtype)
        if ok:
            run_record(name, dtype, a, counts)
        else:
            with pytest.raises(UndefinedBehaviourError):
                run_record(name, dtype, a, counts)


# --- TPARTADD/MAX/MIN with both sources valid everywhere -----------------------------------------------------------
def ref_part(fn, rows, cols, a, b):
    """The kernel before: stage a, b and fn(a, b) over the overlap into a zeroed array."""
    (ar, ac), (br, bc) = a.shape, b.shape
    result = np.zeros((rows, cols), a.dtype)
    result[:ar, :ac] = a
    result[:br, :bc] = b
    r, c = min(ar, br), min(ac, bc)
    with np.errstate(all="ignore"):
        result[:r, :c] = fn(a[:r, :c], b[:r, :c]).astype(result.dtype)
    return result


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES, ids=str)
@pytest.mark.parametrize("name", ["TPARTADD", "TPARTMAX", "TPARTMIN"])
def test_tpart_forms(name, dtype):
    import ptoisa
    from ptoisa import BLayout, Tile, TileType

    fn = {"TPARTADD": np.add, "TPARTMAX": ref_cpp_max, "TPARTMIN": ref_cpp_min}[name]
    va, vb = tile_values(dtype, 3)[:16, :32], tile_values(dtype, 4)[16:32, 32:64]
    spec = Tile[TileType.Vec, dtype.type, 16, 32, BLayout.RowMajor, -1, -1]

    def make(values, valid):
        t = spec(*valid)
        t.storage[...] = values.reshape(-1)
        return t

    for valid_a, valid_b in (((16, 32), (16, 32)), ((16, 32), (9, 20)), ((5, 32), (16, 32)), ((12, 30), (12, 30))):
        a, b, d = make(va, valid_a), make(vb, valid_b), make(np.zeros_like(va), max(valid_a, valid_b))
        rows, cols = d.valid_shape
        want = ref_part(fn, rows, cols, va[:valid_a[0], :valid_a[1]], vb[:valid_b[0], :valid_b[1]])
        with np.errstate(all="ignore"):
            getattr(ptoisa, name)(d, a, b, target="cpu")
        assert_same_bits(d.storage.reshape(16, 32)[:rows, :cols], want)
        if valid_a == valid_b:  # dst is src0: the in-place form
            with np.errstate(all="ignore"):
                getattr(ptoisa, name)(a, a, b, target="cpu")
            assert_same_bits(a.storage.reshape(16, 32)[:rows, :cols], want)


# --- TTRI's mask as windows of one run ---------------------------------------------------------------------------
def ref_triangle(vr, vc, d, upper, dtype):
    rows, cols = np.arange(vr)[:, None], np.arange(vc)[None, :]
    mask = cols >= rows + d if upper else cols <= rows + d
    return mask.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int32, np.uint16], ids=str)
def test_triangle(dtype):
    from ptoisa.isa.vector.axpy import triangle

    for vr in (0, 1, 2, 5, 16, 33, 256):
        for vc in (0, 1, 3, 8, 16, 40, 256):
            for d in sorted({*range(-6, 7), -vr, -vr - 1, vc, vc + 1, -300, 300, vc - vr, vr - vc}):
                for upper in (True, False):
                    got, want = triangle(vr, vc, d, upper, np.dtype(dtype)), ref_triangle(vr, vc, d, upper, dtype)
                    assert got.shape == want.shape and got.dtype == want.dtype, (vr, vc, d, upper)
                    assert_same_bits(np.ascontiguousarray(got), want)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + (np.dtype(np.int16),), ids=str)
def test_multiply_add_forms_with_dst_as_a_source(dtype):
    """The multiply-add forms read dst as a view: dst may also be src0 or src1."""
    import ptoisa
    from ptoisa import Tile, TileType

    a0, b0 = tile_values(dtype, 3), tile_values(dtype, 4)[::-1]
    forms = {"TFUSEDMULADD": lambda a, b, d: (a * d) + b, "TMULADDDST": lambda a, b, d: (a * b) + d,
             "TFUSEDMULADDRELU": lambda a, b, d: ref_relu((a * d) + b)}
    spec = Tile[TileType.Vec, dtype.type, 64, 64]
    for name, fn in forms.items():
        for alias in ("src0", "src1"):
            a, b = spec(), spec()
            a.storage[...] = a0.reshape(-1)
            b.storage[...] = b0.reshape(-1)
            dst = a if alias == "src0" else b
            with np.errstate(all="ignore"):
                want = fn(a0, b0, a0 if alias == "src0" else b0).astype(dtype)
                getattr(ptoisa, name)(dst, a, b, target="cpu")
            assert_same_bits(dst.storage.reshape(64, 64), want)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
def test_cpp_max_min_per_row_operand(dtype):
    """A per-row (rows, 1) operand against a full tile, either way round (TROWEXPANDMAX/MIN)."""
    from ptoisa.isa.vector._common import cpp_max, cpp_min

    full = tile_values(dtype, 3)
    column = tile_values(dtype, 4)[:, :1]
    rng = np.random.default_rng(6)
    plain_full = rng.standard_normal((64, 64)).astype(dtype)
    plain_col = rng.standard_normal((64, 1)).astype(dtype)
    with np.errstate(all="ignore"):
        for x, y in ((full, column), (column, full), (plain_full, plain_col), (plain_col, plain_full)):
            assert_same_bits(cpp_max(x, y), ref_cpp_max(x, y))
            assert_same_bits(cpp_min(x, y), ref_cpp_min(x, y))
