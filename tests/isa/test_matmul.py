"""TMATMUL, TMATMUL_ACC, TMATMUL_BIAS: expected values worked from the simulator's loop (include/pto/cpu/
TMatmul.hpp, TMatmulNzZn: a float accumulator from +0.0 taking std::fma(a, b, acc) for k = 0..K-1) by hand or
with exact integer arithmetic; the C++ vectors in tests/data/vectors/tmatmul*.jsonl.gz check the bytes."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType
from ptoisa.isa.vector.matmul import fma_float32

TARGETS = ["a2a3", "a5", "cpu"]


def left(dtype, m, k, vm=None, vk=None):
    return Tile[TileType.Left, dtype, m, k, BLayout.ColMajor, m if vm is None else vm, k if vk is None else vk,
                SLayout.RowMajor]()


def right(dtype, k, n, vk=None, vn=None):
    return Tile[TileType.Right, dtype, k, n, BLayout.RowMajor, vk or k, vn or n, SLayout.ColMajor]()


def acc(dtype, m, n, vm=None, vn=None):
    return Tile[TileType.Acc, dtype, m, n, BLayout.ColMajor, vm or m, vn or n, SLayout.RowMajor, 1024]()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float16, ptoisa.bfloat16_t, np.float32])
def test_small_integers_sum_exactly(target, dtype):
    """Products and partial sums of small integers are exact in float: C equals the integer product."""
    rng = np.random.default_rng(3)
    x, y = rng.integers(-4, 5, (16, 64)), rng.integers(-4, 5, (64, 32))
    a, b, c = left(dtype, 16, 64), right(dtype, 64, 32), acc(np.float32, 16, 32)
    a.set_logical(x.astype(np.float32))
    b.set_logical(y.astype(np.float32))
    ptoisa.TMATMUL(c, a, b, target=target)
    assert np.array_equal(c.data, (x @ y).astype(np.float32))


def test_the_sum_runs_in_k_order_in_float():
    """Row 0: 1.0 then 31 products of 2^-24: each 1 + 2^-24 is a tie that rounds back to 1 (even), so C = 1.0.
    Row 1: the 31 small products first (exactly 31 * 2^-24), then + 1.0: 1 + 15.5 ulp rounds to even, 1 + 2^-19."""
    a, b, c = left(np.float16, 16, 32), right(np.float16, 32, 16), acc(np.float32, 16, 16)
    rows = np.zeros((16, 32), np.float32)
    rows[0] = [1.0] + [2.0 ** -24] * 31
    rows[1] = [2.0 ** -24] * 31 + [1.0]
    a.set_logical(rows)
    b.set_logical(np.ones((32, 16), np.float32))
    ptoisa.TMATMUL(c, a, b, target="cpu")
    assert c.data[0, 0] == np.float32(1.0)
    assert c.data[1, 0] == np.float32(1.0 + 2.0 ** -19)


@pytest.mark.parametrize("size", [16, 64, 128])  # 128 with k = 16: one chunk of 16384 lanes
def test_negative_zero_products_sum_to_positive_zero(size):
    """The accumulator starts at +0.0: (+0) + (-0) = +0 under round-to-nearest, so products that are all -0.0
    sum to +0.0 (a sum started from the first product would keep -0.0)."""
    a, b, c = left(np.float16, size, 16), right(np.float16, 16, size), acc(np.float32, size, size)
    a.set_logical(np.full((size, 16), -1.0, np.float32))
    b.set_logical(np.zeros((16, size), np.float32))
    c.set_logical(np.full((size, size), 7.0, np.float32))
    ptoisa.TMATMUL(c, a, b, target="cpu")
    assert not np.signbit(c.data).any() and (c.data == 0).all()


@pytest.mark.parametrize("size", [16, 64, 128])  # 128 with k = 32: more lanes than a chunk holds, the step loop
def test_both_summation_paths_keep_k_order(size):
    """Row 0 as in test_the_sum_runs_in_k_order_in_float, on a small and a large tile."""
    a, b, c = left(np.float16, size, 32), right(np.float16, 32, size), acc(np.float32, size, size)
    rows = np.zeros((size, 32), np.float32)
    rows[0] = [1.0] + [2.0 ** -24] * 31
    rows[1] = [2.0 ** -24] * 31 + [1.0]
    a.set_logical(rows)
    b.set_logical(np.ones((32, size), np.float32))
    ptoisa.TMATMUL(c, a, b, target="cpu")
    assert (c.data[0] == np.float32(1.0)).all() and (c.data[1] == np.float32(1.0 + 2.0 ** -19)).all()


def test_float_inputs_fuse_each_step():
    """k = 0: acc = fma(1, -(1 + 2^-11), 0) = -(1 + 2^-11). k = 1: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is added
    without rounding the product first, leaving exactly 2^-24 (a rounded product would leave 0)."""
    a, b, c = left(np.float32, 16, 8), right(np.float32, 8, 16), acc(np.float32, 16, 16)
    rows = np.zeros((16, 8), np.float32)
    rows[0, :2] = [1.0, 1.0 + 2.0 ** -12]
    cols = np.zeros((8, 16), np.float32)
    cols[:2, 0] = [-(1.0 + 2.0 ** -11), 1.0 + 2.0 ** -12]
    a.set_logical(rows)
    b.set_logical(cols)
    ptoisa.TMATMUL(c, a, b, target="cpu")
    assert c.data[0, 0] == np.float32(2.0 ** -24)


def test_fma_float32_never_rounds_twice():
    """a * b = 2^-24 - 2^-70 exactly, c = 1 + 2^-23: the exact sum lies just below the midpoint 1 + 3 * 2^-24, so
    fma gives 1 + 2^-23; rounding to double first lands on the midpoint and then on 1 + 2^-22 (ties to even)."""
    a = np.array([(1 + 2.0 ** -23) * 2.0 ** -12], np.float32)
    b = np.array([(1 - 2.0 ** -23) * 2.0 ** -12], np.float32)
    c = np.array([1 + 2.0 ** -23], np.float32)
    assert np.float32((a.astype(np.float64) * b + c)[0]) == np.float32(1 + 2.0 ** -22)  # the naive way is wrong
    assert fma_float32(a, b, c)[0] == np.float32(1 + 2.0 ** -23)


def test_fma_float32_rounds_once():
    """Against exact rational arithmetic on random floats of mixed magnitudes."""
    from fractions import Fraction

    rng = np.random.default_rng(5)
    a = (rng.standard_normal(2000) * 2.0 ** rng.integers(-30, 30, 2000)).astype(np.float32)
    b = (rng.standard_normal(2000) * 2.0 ** rng.integers(-30, 30, 2000)).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(2000) * 1e-6)).astype(np.float32)  # cancellation
    c[::2] = (rng.standard_normal(1000) * 2.0 ** rng.integers(-60, 10, 1000)).astype(np.float32)
    got = fma_float32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        lo = np.float32(float(exact))  # double rounding is possible here: check the neighbours instead
        candidates = [np.nextafter(lo, np.float32(-np.inf)), lo, np.nextafter(lo, np.float32(np.inf))]
        best = min(candidates, key=lambda v: (abs(Fraction(float(v)) - exact),
                                              int(np.array(v).view(np.uint32)) & 1))
        assert g == best, (x, y, z)


@pytest.mark.parametrize("target", TARGETS)
def test_int8_sums_wrap_in_int32(target):
    """TMATMUL_ACC: C_in = 2^31 - 1 plus a sum of 1 wraps to -2^31 (the simulator's int32 addition)."""
    a, b = left(np.int8, 16, 32), right(np.int8, 32, 16)
    c_in, c_out = acc(np.int32, 16, 16), acc(np.int32, 16, 16)
    x = np.zeros((16, 32), np.int8)
    x[0, 0] = 1
    y = np.zeros((32, 16), np.int8)
    y[0, 0] = 1
    a.set_logical(x)
    b.set_logical(y)
    c_in.set_logical(np.full((16, 16), 2 ** 31 - 1, np.int32))
    c_out.set_logical(c_in.data)  # the NPUs add to cOut's values (erratum tmatmul_acc_ignores_cin): the same here
    ptoisa.TMATMUL_ACC(c_out, c_in, a, b, target=target)
    assert c_out.data[0, 0] == -2 ** 31
    assert c_out.data[1, 1] == 2 ** 31 - 1


@pytest.mark.parametrize("target", TARGETS)
def test_bias_is_added_to_every_row(target):
    a, b, c = left(np.float16, 16, 16), right(np.float16, 16, 16), acc(np.float32, 16, 16)
    bias = Tile[TileType.Bias, np.float32, 1, 16]()
    a.set_logical(np.eye(16, dtype=np.float32))
    b.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16) % 7)
    bias.set_logical(np.arange(16, dtype=np.float32)[None, :] * 0.5)
    ptoisa.TMATMUL_BIAS(c, a, b, bias, target=target)
    assert np.array_equal(c.data, (np.arange(256).reshape(16, 16) % 7 + np.arange(16) * 0.5).astype(np.float32))


def test_partial_valid_shapes_write_m_by_n():
    """m, k, n come from A's valid shape and B's valid columns; C's other elements keep their bytes."""
    a, b, c = left(np.float16, 16, 32, 5, 20), right(np.float16, 32, 16, 20, 7), acc(np.float32, 16, 16)
    a.set_logical(np.ones((16, 32), np.float32))
    b.set_logical(np.ones((32, 16), np.float32))
    c.set_logical(np.full((16, 16), -1.0, np.float32))
    ptoisa.TMATMUL(c, a, b, target="cpu")
    want = np.full((16, 16), -1.0, np.float32)
    want[:5, :7] = 20.0
    assert np.array_equal(c.data, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", ["locations", "types", "shapes", "bias rows", "k zero"])
def test_refusals_change_nothing(target, case):
    a, b, c = left(np.float16, 16, 16), right(np.float16, 16, 16), acc(np.float32, 16, 16)
    args: tuple = (c, a, b)
    op = ptoisa.TMATMUL
    if case == "locations":
        args = (c, Tile[TileType.Vec, np.float16, 16, 16](), b)
    elif case == "types":
        args = (acc(np.int32, 16, 16), a, b)
    elif case == "shapes":
        args = (c, a, right(np.float16, 32, 16))
    elif case == "bias rows":
        op, args = ptoisa.TMATMUL_BIAS, (c, a, b, Tile[TileType.Bias, np.float32, 2, 16]())
    else:
        args = (c, left(np.float16, 16, 16, 16, 0), b)
    before = [t.tobytes() for t in args]
    with pytest.raises(ptoisa.PtoError):
        op(*args, target=target)
    assert [t.tobytes() for t in args] == before


@pytest.mark.parametrize("dtype", ["float8_e4m3_t", "float8_e5m2_t", "hifloat8_t"])
def test_a5_eight_bit_floats(dtype):
    """A5's 8-bit float inputs: the tiles hold what set_logical stored (hifloat8 through the reference's table),
    and small integers sum exactly, so C is the product of the stored values."""
    from ptoisa.hifloat8 import from_float, to_float

    rng = np.random.default_rng(4)
    x, y = rng.integers(-2, 3, (16, 32)).astype(np.float64), rng.integers(-2, 3, (32, 16)).astype(np.float64)
    a, b, c = left(dtype, 16, 32), right(dtype, 32, 16), acc(np.float32, 16, 16)
    a.set_logical(x)
    b.set_logical(y)
    if dtype == "hifloat8_t":
        x, y = to_float(from_float(x)), to_float(from_float(y))
    ptoisa.TMATMUL(c, a, b, target="a5")
    assert np.array_equal(c.data, (x @ y).astype(np.float32))
    with pytest.raises(ptoisa.PtoError):  # the simulator and A2/A3 take no 8-bit float matmul
        ptoisa.TMATMUL(c, a, b, target="cpu")


@pytest.mark.parametrize("target", TARGETS)
def test_acc_to_mat_move_casts_float_to_half(target):
    """TMOV Acc(float) -> Mat(half): each value rounds to the nearest half (1/3 -> 0.33325..., 65520 -> inf, the
    first value past half's largest finite after rounding), ready for the next TMATMUL."""
    a = acc(np.float32, 16, 16)
    values = np.full((16, 16), 1 / 3, np.float32)
    values[0, 1] = 65520.0
    a.set_logical(values)
    m = Tile[TileType.Mat, np.float16, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor]()
    ptoisa.TMOV(m, a, target=target)
    assert m.data[0, 0] == np.float16(1 / 3) and np.isinf(m.data[0, 1])


@pytest.mark.parametrize("target,ok", [("a2a3", False), ("a5", False), ("cpu", True)])
def test_vec_moves_keep_the_type_on_the_npus(target, ok):
    src, out = Tile[TileType.Vec, np.float32, 1, 16](), Tile[TileType.Vec, np.float16, 1, 16]()
    src.set_logical(np.full((1, 16), 0.1, np.float32))
    if ok:  # the simulator converts in SetElement
        ptoisa.TMOV(out, src, target=target)
        assert out.data[0, 0] == np.float16(0.1)
    else:
        with pytest.raises(ptoisa.PtoError, match="keeps the element type"):
            ptoisa.TMOV(out, src, target=target)


def test_mat_to_bias_widens_half_on_a2a3():
    m = Tile[TileType.Mat, np.float16, 1, 32, BLayout.RowMajor, 1, 32]()
    m.set_logical(np.arange(32, dtype=np.float32)[None, :] / 4)
    b = Tile[TileType.Bias, np.float32, 1, 32]()
    ptoisa.TMOV(b, m, target="a2a3")
    assert b.data[0].tolist() == (np.arange(32) / 4).tolist()


# --- the exact-product path: the step loop in a few NumPy calls -------------------------------------------------
def step_loop(fa, fb):
    """The plain form of the sum over k for products exact in float: acc = acc + a[:, k] * b[k, :] over the whole
    tile, one k after another, from +0.0."""
    acc = np.zeros((fa.shape[0], fb.shape[1]), np.float32)
    with np.errstate(all="ignore"):
        for k in range(fa.shape[1]):
            acc = acc + fa[:, k:k + 1] * fb[k:k + 1, :]
    return acc


def bit_patterns(dtype, shape, rng, raw_share=0.3):
    """Random bit patterns (NaNs with payloads and signs, infinities, signed zeros, subnormals) mixed with
    ordinary numbers of mixed magnitudes, whose sums depend on the order."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 1:
        raw = rng.integers(0, 256, shape, dtype=np.uint8).view(dtype)
        plain = rng.integers(0, 0x70, shape, dtype=np.uint8) | (rng.integers(0, 2, shape, dtype=np.uint8) << 7)
        return np.where(rng.random(shape) < raw_share, raw, plain.view(dtype))
    raw = rng.integers(0, 1 << 16, shape, dtype=np.uint16).view(dtype)
    plain = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))).astype(dtype)
    return np.where(rng.random(shape) < raw_share, raw, plain)


_EXACT_TYPES = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8"]
_SHAPES = [(16, 16, 16), (1, 100, 1), (5, 37, 1), (1, 64, 20), (13, 29, 21), (16, 300, 16), (64, 64, 64),
           (70, 90, 65), (40, 50, 33), (4, 200, 8), (1, 100, 2), (2, 300, 16)]


@pytest.mark.parametrize("chunk", [None, 4096, 64])  # the module's chunk; small ones: chunked and step-loop paths
@pytest.mark.parametrize("name", _EXACT_TYPES)
def test_exact_products_sum_as_the_step_loop(name, chunk, monkeypatch):
    """Bit for bit (NaN payloads included) the step loop, for every shape: one output element (two lanes),
    one row or column, chunks of k carrying the running sum, and the step loop itself."""
    import ml_dtypes

    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector import matmul

    if chunk is not None:
        monkeypatch.setattr(matmul, "_CHUNK", chunk)
    dtype = np.dtype(D.HIF8.np) if name == "hifloat8" else np.dtype(getattr(ml_dtypes, name, None) or name)
    rng = np.random.default_rng(len(name) + (chunk or 0))
    for m, k, n in _SHAPES:
        for share in (0.3, 0.0):  # with and without random bit patterns (mostly finite sums)
            a, b = bit_patterns(dtype, (m, k), rng, share), bit_patterns(dtype, (k, n), rng, share)
            fa, fb = matmul._as_float(a), matmul._as_float(b)
            got = matmul._sum_exact_products(fa, fb)
            if name != "bfloat16" or share == 0:  # bfloat16 bit patterns leave float's range: see below
                assert np.array_equal(matmul.product_sum(a, b, D.F32).view(np.uint32), got.view(np.uint32))
            want = step_loop(fa, fb)
            assert got.dtype == np.float32 and got.shape == (m, n)
            diff = got.view(np.uint32) != want.view(np.uint32)
            assert not diff.any(), ((m, k, n), share, np.argwhere(diff)[:4].tolist())


def order_sensitive(shape, rng, pool):
    values = np.asarray(pool, np.float64)[rng.integers(0, len(pool), shape)]
    specials = rng.random(shape)
    values[specials < 0.002] = np.nan
    values[(specials >= 0.002) & (specials < 0.003)] = np.inf
    return values


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("form", ["TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS"])
@pytest.mark.parametrize("dtype", [np.float16, ptoisa.bfloat16_t])
def test_products_add_in_k_order_on_every_target(dtype, form, target):
    """Each output element against the simulator's scalar loop (acc = fma(a, b, acc) from +0.0, exact products:
    acc + a * b rounded to float), then C_in + sum or sum + bias, on values whose sum depends on the order
    (products from 2^22 down to 2^-20, signed zeros, a few NaNs and infinities), valid shapes smaller than the
    tiles."""
    gemv = form.startswith("TGEMV")
    rows, vm = (1, 1) if gemv else (16, 13)
    rng = np.random.default_rng(len(form) * 3 + len(target))
    pool = [2048.0, -2048.0, 1.0, -1.0, 0.75, 3.0, 0.0, -0.0, 0.3330078125, 2.0 ** -10]
    x = order_sensitive((rows, 48), rng, pool).astype(np.float32)
    y = order_sensitive((48, 32), rng, [2048.0, 1.0, -1.0, 0.75, 2.0 ** -10, -0.0]).astype(np.float32)
    k, n = 45, 27
    a = left(dtype, rows, 48, vm, k)
    b = right(dtype, 48, 32, k, n)
    c = acc(np.float32, rows, 32, vm, n)
    a.set_logical(x)
    b.set_logical(y)
    fa, fb = a.data.astype(np.float32)[:vm, :k], b.data.astype(np.float32)[:k, :n]  # as stored (bfloat16 rounds)
    want = np.empty((vm, n), np.float32)
    with np.errstate(all="ignore"):
        for i in range(vm):
            for j in range(n):
                total = np.float32(0.0)
                for step in range(k):
                    total = np.float32(total + fa[i, step] * fb[step, j])
                want[i, j] = total
    args = [a, b]
    if form.endswith("_ACC"):
        c_in = acc(np.float32, rows, 32, vm, n)
        c_in.set_logical(order_sensitive((rows, 32), rng, [1.0, -2048.0, 0.5, -0.0]).astype(np.float32))
        args.insert(0, c_in)
        c.set_logical(c_in.data)  # cOut holding cIn's values: the NPUs' sum into cOut (erratum
        # tmatmul_acc_ignores_cin, tests/isa/test_matmul_acc_cin_type.py) and the simulator's C_in + sum agree
        with np.errstate(all="ignore"):
            want = c_in.data[:vm, :n] + want
    if form.endswith("_BIAS"):
        bias = Tile[TileType.Bias, np.float32, 1, 32]()
        bias.set_logical(order_sensitive((1, 32), rng, [1.0, -2048.0, 0.5, -0.0]).astype(np.float32))
        args.append(bias)
        with np.errstate(all="ignore"):
            want = want + bias.data[:, :n]
    getattr(ptoisa, form)(c, *args, target=target)
    got = c.data[:vm, :n]
    both_nan = np.isnan(got) & np.isnan(want)
    diff = (got.view(np.uint32) != want.view(np.uint32)) & ~both_nan  # which NaN wins is not the question here
    assert not diff.any(), np.argwhere(diff)[:4].tolist()
    assert (~both_nan).sum() > vm * n // 2


def fma_chain(fa, fb):
    """The simulator's loop over whole tiles: acc = fma(a[:, k], b[k, :], acc) from +0.0."""
    acc = np.zeros((fa.shape[0], fb.shape[1]), np.float32)
    for k in range(fa.shape[1]):
        shape = acc.shape
        acc = fma_float32(np.broadcast_to(fa[:, k:k + 1], shape), np.broadcast_to(fb[k:k + 1, :], shape), acc)
    return acc


@pytest.mark.parametrize("target", TARGETS)
def test_bfloat16_products_beyond_float_fuse(target):
    """bfloat16 has float's exponents, so a product can leave float's range: 2^-75 * 2^-75 = 2^-150 rounds to 0
    in float, yet fma adds it exactly (2^-149 + 2^-150, a tie, gives 2^-148); 2^64 * 2^64 = 2^128 overflows in
    float, yet fma adds it to -1.99 * 2^127 exactly. Such tiles take the fused steps."""
    a, b, c = left(ptoisa.bfloat16_t, 16, 16), right(ptoisa.bfloat16_t, 16, 16), acc(np.float32, 16, 16)
    x, y = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32)
    x[0, :2], y[:2, 0] = [2.0 ** -75, 2.0 ** -75], [2.0 ** -74, 2.0 ** -75]
    x[1, 2:4], y[2:4, 1] = [-2.0 ** 127, 2.0 ** 64], [1.9921875, 2.0 ** 64]
    a.set_logical(x)
    b.set_logical(y)
    ptoisa.TMATMUL(c, a, b, target=target)
    assert c.data[0, 0] == np.float32(2.0 ** -148)
    assert c.data[1, 1] == np.float32(2.0 ** 128 - 1.9921875 * 2.0 ** 127)
    assert np.array_equal(c.data.view(np.uint32), fma_chain(x, y).view(np.uint32))


def test_bfloat16_products_against_the_fma_chain():
    """Random bfloat16 bit patterns (every exponent) and ordinary numbers: the result is the fma chain's, whichever
    path the range check picks; ordinary numbers keep the exact-product path."""
    import ml_dtypes

    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector import matmul

    rng = np.random.default_rng(12)
    bf = np.dtype(ml_dtypes.bfloat16)
    for m, k, n in _SHAPES[:9]:
        for share in (0.3, 0.0):
            a, b = bit_patterns(bf, (m, k), rng, share), bit_patterns(bf, (k, n), rng, share)
            if share == 0:
                assert matmul._bf16_products_exact(a, b)
            got = matmul.product_sum(a, b, D.F32)
            want = fma_chain(a.astype(np.float32), b.astype(np.float32))
            both_nan = np.isnan(got) & np.isnan(want)
            assert not ((got.view(np.uint32) != want.view(np.uint32)) & ~both_nan).any(), (m, k, n, share)
    top = 1.9921875  # the largest significand
    edges = [(2.0 ** -67, 2.0 ** -68, True), (top * 2.0 ** -68, top * 2.0 ** -68, False),  # last bit 2^-149, 2^-150
             (2.0 ** -133, top * 2.0 ** -9, True), (2.0 ** -133, top * 2.0 ** -10, False),  # a subnormal
             (top * 2.0 ** 63, top * 2.0 ** 63, True), (top * 2.0 ** 64, top * 2.0 ** 63, False)]  # FLT_MAX
    for x, y, exact in edges:
        a, b = np.array([[x, 0, -np.inf, np.nan]], bf), np.array([[y], [np.nan], [0], [-y]], bf)
        assert matmul._bf16_products_exact(a, b) == exact == matmul._bf16_products_exact(b.T, a.T), (x, y)
        with np.errstate(all="ignore"):
            products = a.astype(np.float64)[0] * b.astype(np.float64)[:, 0]
            finite = products[np.isfinite(products)]
            assert np.array_equal(finite.astype(np.float32).astype(np.float64), finite) == exact, (x, y)


# --- float inputs: the fused steps with fewer operations ---------------------------------------------------------
def general_fused_steps(fa, fb):
    """The kernel's general form for float inputs: fma_float32 on whole tiles, one k after another."""
    acc = np.zeros((fa.shape[0], fb.shape[1]), np.float32)
    for k in range(fa.shape[1]):
        shape = acc.shape
        acc = fma_float32(np.broadcast_to(fa[:, k:k + 1], shape), np.broadcast_to(fb[k:k + 1, :], shape), acc)
    return acc


def hard_float_steps(m, k, n, rng):
    """Float tiles of mixed magnitudes with cancellations, subnormals, zeros and infinities (no NaN), and at a few
    places the two steps whose double sum lands on a tie the exact sum is not: 1 * (1 + 2^-23), then
    ((1 + 2^-23) 2^-12) * ((1 - 2^-23) 2^-12) (fma: 1 + 2^-23, through double: 1 + 2^-22); and the same in float's
    subnormal range: 513 * 2^-149, then (2^-75 (1 + 2^-23)) * (2^-75 (1 - 2^-23))."""
    a = (rng.standard_normal((m, k)) * np.exp2(rng.integers(-40, 40, (m, k)))).astype(np.float32)
    b = (rng.standard_normal((k, n)) * np.exp2(rng.integers(-40, 40, (k, n)))).astype(np.float32)
    special = rng.random((m, k))
    a[special < 0.05] = 0.0
    a[(special >= 0.05) & (special < 0.07)] = (rng.standard_normal(1) * 2.0 ** -140).astype(np.float32)
    b[rng.random((k, n)) < 0.01] = -np.inf if m * n > 4 else 1.0
    if k >= 4 and m > 1 and n > 1:
        for row, col, first, second in ((0, 0, 1.0, 2.0 ** -12), (m - 1, n - 1, 513 * 2.0 ** -149, 2.0 ** -75)):
            step = int(rng.integers(0, k - 1))
            a[row, :], b[:, col] = 0.0, 0.0
            a[row, step], b[step, col] = first, 1.0 + 2.0 ** -23 if first == 1.0 else 1.0
            a[row, step + 1], b[step + 1, col] = second * (1 + 2.0 ** -23), second * (1 - 2.0 ** -23)
    return a, b


@pytest.mark.parametrize("chunk", [None, 4096, 64])
def test_float_inputs_fused_steps_as_the_general_ones(chunk, monkeypatch):
    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector import matmul

    if chunk is not None:
        monkeypatch.setattr(matmul, "_CHUNK", chunk)
    rng = np.random.default_rng(chunk or 1)
    for m, k, n in _SHAPES[:10]:
        a, b = hard_float_steps(m, k, n, rng)
        with np.errstate(all="ignore"):
            want = general_fused_steps(a, b)
        got = matmul.product_sum(a, b, D.F32)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (m, k, n)
        if k >= 4 and m > 1 and n > 1:  # the two ties: fma's results, not double rounding's
            assert got[0, 0] == np.float32(1 + 2.0 ** -23) and got[-1, -1] == np.float32(513 * 2.0 ** -149)


def test_float_inputs_with_nans_take_the_general_steps():
    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector import matmul

    rng = np.random.default_rng(4)
    for where in ("a", "b", "both"):
        a, b = hard_float_steps(13, 29, 21, rng)
        if where != "b":
            a.view(np.uint32)[2, 3] = 0x7FC01234
            a.view(np.uint32)[4, :] = 0x7F812345  # a signalling NaN row
        if where != "a":
            b.view(np.uint32)[3, 5], b.view(np.uint32)[9, 5] = 0xFFC04321, 0x7FC00077  # two NaNs meet in column 5
        with np.errstate(all="ignore"):
            want = general_fused_steps(a, b)
        assert np.array_equal(matmul.product_sum(a, b, D.F32).view(np.uint32), want.view(np.uint32)), where


@pytest.mark.parametrize("target", TARGETS)
def test_int8_sums_exact_at_the_extremes(target):
    """The largest sums int8 allows (k = 4095 products of -128 * -128 = 2^14, of 127 * 127, of 127 * -128) and
    random ones, against exact integer arithmetic, valid shapes smaller than the tiles."""
    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector.matmul import product_sum

    rng = np.random.default_rng(9)
    big_a, big_b = np.full((2, 4095), -128, np.int8), np.full((4095, 3), -128, np.int8)
    big_a[1], big_b[:, 1] = 127, 127  # 4095 * 127 * 127: odd, above 2^24 (not exact in float)
    big_b[::2, 2] = 1
    for x, y in ((big_a, big_b), (rng.integers(-128, 128, (37, 300), dtype=np.int8),
                                  rng.integers(-128, 128, (300, 21), dtype=np.int8))):
        want = x.astype(np.int64) @ y.astype(np.int64)
        assert np.array_equal(product_sum(x, y, D.I32), want.astype(np.int32)) and np.abs(want).max() < 2 ** 31
    a, b, c = left(np.int8, 32, 64, 29, 61), right(np.int8, 64, 32, 61, 27), acc(np.int32, 32, 32)
    x, y = rng.integers(-128, 128, (32, 64)), rng.integers(-128, 128, (64, 32))
    a.set_logical(x.astype(np.int8))
    b.set_logical(y.astype(np.int8))
    ptoisa.TMATMUL(c, a, b, target=target)
    assert np.array_equal(c.data[:29, :27], (x[:29, :61] @ y[:61, :27]).astype(np.int32))


# --- the compiled call (matmul.py `_matmul_compiled`) -------------------------------------------------------------
_COMPILED_SHAPES = [(16, 32, 16, None), (32, 64, 32, (13, 45, 27)), (32, 32, 32, (1, 32, 1)), (32, 32, 32, (32, 7, 1)),
                    (128, 32, 128, None), (128, 64, 96, (100, 50, 77))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["float16", "float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("shape", _COMPILED_SHAPES, ids=str)
def test_compiled_tmatmul_gives_the_general_kernels_bytes(target, name, shape):
    """TMATMUL's compiled call (half and 8-bit floats into float: the regions gathered and converted through a
    table of every bit pattern, every k's products at once or, past 2**18 products, in chunks) against the
    general kernel on copies, bytes of all three tiles (C's elements outside M x N untouched) and warnings, and
    the valid region against the step loop: random bit patterns (NaN payloads and signs, infinities, signed
    zeros, subnormals), valid regions smaller than the tiles, one output element, one column."""
    import warnings

    import ml_dtypes

    from ptoisa.isa.record import REGISTRY
    from ptoisa.isa.vector import matmul
    from ptoisa.targets import resolve

    dtype = np.dtype(getattr(ml_dtypes, name, None) or name)
    if dtype.itemsize == 1 and target != "a5":
        pytest.skip("8-bit float products are an A5 form")
    rows, inner, cols, valid = shape
    m, k, n = valid or (rows, inner, cols)
    rng = np.random.default_rng(rows * 7 + inner + cols + dtype.itemsize)
    a, b, c = left(dtype, rows, inner, m, k), right(dtype, inner, cols, k, n), acc(np.float32, rows, cols, m, n)
    a.storage[...] = bit_patterns(dtype, a.storage.shape, rng)
    b.storage[...] = bit_patterns(dtype, b.storage.shape, rng)
    c.storage.view(np.uint8)[...] = rng.integers(0, 256, c.spec.nbytes, dtype=np.uint8)
    record = REGISTRY["TMATMUL"]
    config = resolve(target)

    def outcome(call, tiles):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(*tiles)
        return [t.storage.tobytes() for t in tiles], sorted(str(w.message) for w in caught)

    def copies():
        made = [type(t)(t.spec) for t in (c, a, b)]
        for new, old in zip(made, (c, a, b)):
            new.storage[...] = old.storage
        return made

    def general(cc, aa, bb):
        tiles = {"cMatrix": cc, "aMatrix": aa, "bMatrix": bb}
        plan = record.plan(config, tuple((r, t.spec) for r, t in tiles.items()), (), 0)
        matmul._matmul(plan, tiles, {})

    want = outcome(general, copies())
    for _ in range(2):  # compiling, then the cached call
        fast = copies()
        assert outcome(lambda *t: record(*t, target=target), fast) == want
    run = record._compiled.get((config, c.spec, a.spec, b.spec))
    # one row of A on a2a3: the cube's 16 rows (erratum tmatmul_m1_sixteen_rows) take the general kernel
    general_only = target == "a2a3" and m == 1
    assert ("_matmul_compiled" in getattr(run, "__qualname__", "")) is not general_only, run
    fa, fb = a.data[:m, :k].astype(np.float32), b.data[:k, :n].astype(np.float32)
    assert np.array_equal(fast[0].data[:m, :n].view(np.uint32), step_loop(fa, fb).view(np.uint32))
