"""TPARTMUL: seed examples, the reference's own test cases, every legal validity pattern, undefined-behaviour
policy, integer wrap, low-precision rounding and every legality rule on every target.

Expected values are computed here, element by element, from the seed's case table (product where both sources
are valid, the valid source's value where only one is), with products formed exactly (Python ints, float64)
and rounded once into the element type. ptoisa kernels are never used to make expectations.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    TASSIGN,
    TPARTMUL,
    BLayout,
    IllegalInstructionError,
    NPU_MEMORY_CLEAR,
    PtoWarning,
    RecordEvent,
    SLayout,
    Tile,
    TileType,
    UndefinedBehaviourError,
    bfloat16_t,
    float8_e4m3_t,
    half,
    int8_t,
    int16_t,
    int32_t,
    uint8_t,
    uint16_t,
    uint32_t,
)
from ptoisa.dtypes import DType

TARGETS = ("a2a3", "a5", "cpu")
ALLOWED = {
    "a2a3": (int32_t, int16_t, half, float),
    "a5": (uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, half, float, bfloat16_t),
    "cpu": (int32_t, int16_t, half, bfloat16_t, float, int8_t, uint8_t),
}
ALLOWED_TEXT = {
    "a2a3": "int32, int16, half, float",
    "a5": "uint8, int8, uint16, int16, uint32, int32, half, float, bfloat16",
    "cpu": "int32, int16, half, bfloat16, float, int8, uint8",
}
ALL_NINE = (uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, half, float, bfloat16_t)
LEGAL_PAIRS = [(t, d) for t in TARGETS for d in ALLOWED[t]]


def dt(x) -> DType:
    return ptoisa.dtypes.as_dtype(x)


def per_row(dtype) -> int:
    return 32 // dt(dtype).itemsize


def random_values(rng, dtype, shape, small=False):
    d = dt(dtype)
    if d.is_float:
        vals = rng.standard_normal(shape) * (4.0 if small else 50.0)
        return vals.astype(np.float32).astype(d.np)
    info = np.iinfo(d.np)
    lo, hi = (-20, 20) if small else (int(info.min), int(info.max))
    lo = max(lo, int(info.min))
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(d.np)


def exact_product(a, b, dtype):
    """a*b computed exactly and rounded once into dtype (integers wrap modulo 2**bits)."""
    d = dt(dtype)
    if d.is_float:
        p = float(a) * float(b)  # exact: the operands have at most 24 significant bits each
        return np.array(p, dtype=np.float64).astype(np.float32).astype(d.np)[()] if d is DType.BF16 \
            else np.array(p, dtype=np.float64).astype(d.np)[()]
    bits = d.bits
    v = (int(a) * int(b)) % (1 << bits)
    if d.is_signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return d.np.type(v)


def oracle(dst, src0, src1, neither=None):
    """The seed's case table, element by element over dst's valid region; `neither` where no source is valid."""
    out = np.array(dst.data, copy=True)
    a, b = src0.data, src1.data
    (vr, vc), (r0, c0), (r1, c1) = dst.valid_shape, src0.valid_shape, src1.valid_shape
    for i in range(vr):
        for j in range(vc):
            in0, in1 = i < r0 and j < c0, i < r1 and j < c1
            if in0 and in1:
                out[i, j] = exact_product(a[i, j], b[i, j], dst.spec.dtype)
            elif in0:
                out[i, j] = a[i, j]
            elif in1:
                out[i, j] = b[i, j]
            elif neither is not None:
                out[i, j] = neither
    return out


def scribble(tile, seed=0):
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, tile.spec.nbytes, dtype=np.uint8)
    if tile.spec.dtype.is_float:  # keep floats finite so comparisons stay meaningful
        tile.storage[:] = random_values(rng, tile.spec.dtype, tile.spec.numel)
    else:
        tile.storage.view(np.uint8)[:] = raw


def same_bits(x, y):
    assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), f"\n{np.asarray(x)}\n!=\n{np.asarray(y)}"


def contract(target):
    """The target's config with errata off: these tests check the contract's result; the a2a3 padding copy
    (erratum tpartmul_copy_padding) has its own tests in test_npu_audit.py."""
    return ptoisa.targets.make_config(target, errata=False)


def quiet(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, PtoWarning)]


# --- seed examples -----------------------------------------------------------------------------------------
TileT = Tile[TileType.Vec, float, 16, 16]


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_auto(target):
    src0, src1, dst = TileT(), TileT(), TileT()
    src0.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16))
    src1.set_logical(np.full((16, 16), 0.5, dtype=np.float32))
    scribble(dst)
    ev = TPARTMUL(dst, src0, src1, target=target)
    assert isinstance(ev, RecordEvent) and ev.op == "TPARTMUL" and ev.pipe == "PIPE_V"
    np.testing.assert_array_equal(dst.data, np.arange(256, dtype=np.float32).reshape(16, 16) * 0.5)


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_manual(target):
    NPU_MEMORY_CLEAR(target=target)
    src0, src1, dst = TileT(), TileT(), TileT()
    TASSIGN(src0, 0x1000, target=target)
    TASSIGN(src1, 0x2000, target=target)
    TASSIGN(dst, 0x3000, target=target)
    src0.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16) - 100)
    src1.set_logical(np.full((16, 16), -3.0, dtype=np.float32))
    TPARTMUL(dst, src0, src1, target=target)
    want = (np.arange(256, dtype=np.float32).reshape(16, 16) - 100) * -3
    np.testing.assert_array_equal(dst.data, want)
    # The result is in UB at 0x3000: an alias tile reads it back.
    alias = TileT()
    TASSIGN(alias, 0x3000, target=target)
    np.testing.assert_array_equal(alias.data, want)


# --- the reference CPU test cases (reference-facts 7.4, FillLinear numbering of valid elements) -----------------
def fill_linear(tile, start=1):
    vr, vc = tile.valid_shape
    tile.set_logical(np.arange(start, start + vr * vc).reshape(vr, vc).astype(tile.spec.np_dtype))


@pytest.mark.parametrize("target", TARGETS)
def test_reference_cpu_case1_src1_partial(target):
    T = Tile[TileType.Vec, int32_t, 2, 8]
    dst, src0 = T(), T()
    src1 = Tile[TileType.Vec, int32_t, 2, 8, BLayout.RowMajor, 1, 4]()
    fill_linear(src0, 1)     # 1..16
    fill_linear(src1, 101)   # 101..104 in row 0
    TPARTMUL(dst, src0, src1, target=target)
    assert dst.data.tolist() == [
        [1 * 101, 2 * 102, 3 * 103, 4 * 104, 5, 6, 7, 8],
        [9, 10, 11, 12, 13, 14, 15, 16],
    ]


@pytest.mark.parametrize("target", TARGETS)
def test_reference_cpu_case2_src0_partial(target):
    dst = Tile[TileType.Vec, int32_t, 2, 8, BLayout.RowMajor, 2, 6]()
    src0 = Tile[TileType.Vec, int32_t, 2, 8, BLayout.RowMajor, 1, 4]()
    src1 = Tile[TileType.Vec, int32_t, 2, 8, BLayout.RowMajor, 2, 6]()
    fill_linear(src0, 1)    # 1..4
    fill_linear(src1, 11)   # 11..22
    dst.storage[:] = -7
    TPARTMUL(dst, src0, src1, target=contract(target))
    assert dst.data.tolist() == [
        [1 * 11, 2 * 12, 3 * 13, 4 * 14, 15, 16, -7, -7],
        [17, 18, 19, 20, 21, 22, -7, -7],
    ]


NPU_TABLE = [  # dtype, dst valid, src0 valid, src1 valid (reference-facts 7.4)
    (float, (64, 64), (64, 64), (64, 64)),
    (float, (64, 64), (8, 64), (64, 64)),
    (float, (64, 64), (64, 8), (64, 64)),
    (float, (64, 64), (64, 64), (8, 64)),
    (float, (64, 64), (64, 64), (64, 8)),
    (half, (8, 48), (8, 16), (8, 48)),
    (half, (8, 768), (8, 512), (8, 768)),
    (int16_t, (8, 48), (8, 48), (8, 16)),
    (int32_t, (64, 64), (8, 64), (64, 64)),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,dv,v0,v1", NPU_TABLE)
def test_reference_npu_cases(target, dtype, dv, v0, v1):
    rows, cols = dv
    T = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1]
    dst, src0, src1 = T(*dv), T(*v0), T(*v1)
    rng = np.random.default_rng(rows * cols)
    src0.set_logical(random_values(rng, dtype, (rows, cols), small=True))
    src1.set_logical(random_values(rng, dtype, (rows, cols), small=True))
    want = oracle(dst, src0, src1)
    TPARTMUL(dst, src0, src1, target=target)
    same_bits(dst.data, want)


# --- every legal pattern, by hand ------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_hand_worked_patterns_float(target):
    T = Tile[TileType.Vec, float, 3, 8, BLayout.RowMajor, -1, -1]
    a = np.arange(1, 25, dtype=np.float32).reshape(3, 8)          # 1..24
    b = np.arange(1, 25, dtype=np.float32).reshape(3, 8) * 10     # 10..240

    def run(dv, v0, v1):
        dst, s0, s1 = T(*dv), T(*v0), T(*v1)
        s0.set_logical(a)
        s1.set_logical(b)
        dst.storage[:] = -1
        TPARTMUL(dst, s0, s1, target=contract(target))
        return dst.data.tolist()

    # src1 smaller in rows and cols: product in src1's 2x3 corner, src0 elsewhere in dst's 3x4.
    assert run((3, 4), (3, 4), (2, 3)) == [
        [10, 40, 90, 4, -1, -1, -1, -1],
        [810, 1000, 1210, 12, -1, -1, -1, -1],
        [17, 18, 19, 20, -1, -1, -1, -1],
    ]
    # src0 smaller in cols only: product in cols 0..1, src1 elsewhere.
    assert run((2, 8), (2, 2), (2, 8)) == [
        [10, 40, 30, 40, 50, 60, 70, 80],
        [810, 1000, 110, 120, 130, 140, 150, 160],
        [-1] * 8,
    ]
    # src0 with an empty region: src1 is copied.
    assert run((1, 8), (0, 0), (1, 8)) == [
        [10, 20, 30, 40, 50, 60, 70, 80], [-1] * 8, [-1] * 8,
    ]
    # both equal dst: plain multiply.
    assert run((1, 3), (1, 3), (1, 3)) == [[10, 40, 90, -1, -1, -1, -1, -1], [-1] * 8, [-1] * 8]


LEGAL_SHAPES = [  # dst, src0, src1 (valid shapes in a 4-row tile)
    ((4, 16), (4, 16), (4, 16)),
    ((4, 16), (2, 16), (4, 16)),
    ((4, 16), (4, 16), (4, 5)),
    ((4, 16), (1, 3), (4, 16)),
    ((4, 16), (4, 16), (0, 0)),
    ((3, 9), (3, 9), (3, 9)),
    ((3, 9), (2, 9), (3, 9)),
    ((3, 9), (3, 9), (3, 1)),
]


@pytest.mark.parametrize("target,dtype", LEGAL_PAIRS)
@pytest.mark.parametrize("shapes", LEGAL_SHAPES)
def test_legal_patterns_every_dtype(target, dtype, shapes):
    cols = max(per_row(dtype), 16)
    T = Tile[TileType.Vec, dtype, 4, cols, BLayout.RowMajor, -1, -1]
    dst, src0, src1 = T(*shapes[0]), T(*shapes[1]), T(*shapes[2])
    rng = np.random.default_rng(7)
    for t in (dst, src0, src1):
        t.set_logical(random_values(rng, dtype, (4, cols)))
    want = oracle(dst, src0, src1)
    assert quiet(lambda: TPARTMUL(dst, src0, src1, target=contract(target))) == []
    same_bits(dst.data, want)


@pytest.mark.parametrize("target", TARGETS)
def test_operands_may_alias(target):
    """dst may be one of the sources: the result is computed from the sources' values before the write."""
    T = Tile[TileType.Vec, int32_t, 2, 8, BLayout.RowMajor, -1, -1]
    a, b = T(2, 8), T(1, 8)
    a.set_logical(np.arange(16).reshape(2, 8))
    b.set_logical(np.full((2, 8), 3))
    TPARTMUL(a, a, b, target=target)
    assert a.data.tolist() == [[0, 3, 6, 9, 12, 15, 18, 21], [8, 9, 10, 11, 12, 13, 14, 15]]


def test_cpu_reads_col_major_and_boxed_through_layout():
    """The CPU simulator has no row-major check; each tile is read and written through its own layout."""
    DN = Tile[TileType.Vec, float, 8, 8, BLayout.ColMajor, -1, -1]
    NZ = Tile[TileType.Vec, float, 16, 8, BLayout.ColMajor, -1, -1, SLayout.RowMajor]
    dst, src0, src1 = DN(8, 8), NZ(8, 8), DN(3, 2)
    logical0 = np.arange(128, dtype=np.float32).reshape(16, 8)
    logical1 = np.arange(64, dtype=np.float32).reshape(8, 8) + 1000
    src0.storage[:] = [logical0[(k % 128) // 8, k % 8] for k in range(128)]   # NZ 16x8 (one box): r*8 + c
    src1.storage[:] = logical1.T.reshape(-1)                                 # DN: c*Rows + r
    TPARTMUL(dst, src0, src1, target="cpu")
    want = logical0[:8, :8].copy()
    want[:3, :2] *= logical1[:3, :2]
    np.testing.assert_array_equal(dst.storage.reshape(8, 8).T, want)


# --- integer wrap and float rounding -------------------------------------------------------------------------
@pytest.mark.parametrize("target,dtype,a,b,want", [
    ("a5", int8_t, 100, 3, 44), ("cpu", int8_t, 100, 3, 44),
    ("a5", int8_t, -128, -1, -128), ("cpu", int8_t, -128, -1, -128),
    ("a5", int8_t, 16, 8, -128), ("cpu", int8_t, -7, 37, -3),
    ("a5", uint8_t, 16, 16, 0), ("cpu", uint8_t, 200, 2, 144),
    ("a2a3", int16_t, 300, 300, 24464), ("a5", int16_t, -300, 300, -24464), ("cpu", int16_t, 181, 181, 32761),
    ("a5", uint16_t, 256, 257, 256),
    ("a2a3", int32_t, 65536, 65536, 0), ("cpu", int32_t, 46341, 46341, -2147479015),
    ("a5", uint32_t, 4294967295, 4294967295, 1),
])
def test_integer_products_wrap(target, dtype, a, b, want):
    T = Tile[TileType.Vec, dtype, 1, per_row(dtype)]
    dst, s0, s1 = T(), T(), T()
    s0.storage[:] = np.array(a).astype(dt(dtype).np)
    s1.storage[:] = np.array(b).astype(dt(dtype).np)
    TPARTMUL(dst, s0, s1, target=target)
    assert dst.storage.tolist() == [want] * per_row(dtype)


@pytest.mark.parametrize("target,dtype,a,b,want_bits", [
    # 1.0009765625 (1 + 2^-10) squared = 1 + 2^-9 + 2^-20 -> half rounds to 1 + 2^-9 = 0x3c02
    ("a2a3", half, 0x3C01, 0x3C01, 0x3C02),
    # 1 + 2^-10 times 1 + 3*2^-10 = 1 + 4*2^-10 + 3*2^-20 -> 0x3c04 (below half an ulp above)
    ("a5", half, 0x3C01, 0x3C03, 0x3C04),
    # overflow: 256 * 256 = 65536 > 65504 -> +inf
    ("cpu", half, 0x5C00, 0x5C00, 0x7C00),
    # bf16: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 -> 1 + 2^-6 = 0x3f82
    ("a5", bfloat16_t, 0x3F81, 0x3F81, 0x3F82),
    # bf16: (1 + 3*2^-7)^2 = 1 + 6*2^-7 + 9*2^-14 -> 9*2^-14 > half ulp (2^-8 = 64*2^-14)? no -> 0x3f86
    ("cpu", bfloat16_t, 0x3F83, 0x3F83, 0x3F86),
    # bf16 tie: (1 + 2^-4)*(1 + 2^-4)... exact 1 + 2^-3 + 2^-8 -> tie between 0x3f90 and 0x3f91 -> even 0x3f90
    ("a5", bfloat16_t, 0x3F88, 0x3F88, 0x3F90),
])
def test_low_precision_products_round_once(target, dtype, a, b, want_bits):
    T = Tile[TileType.Vec, dtype, 1, 16]
    dst, s0, s1 = T(), T(), T()
    s0.storage.view(np.uint16)[:] = a
    s1.storage.view(np.uint16)[:] = b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # see test_half_overflow_is_silent
        TPARTMUL(dst, s0, s1, target=target)
    assert dst.storage.view(np.uint16).tolist() == [want_bits] * 16


def test_half_overflow_is_silent():
    T = Tile[TileType.Vec, half, 1, 16]
    dst, s0, s1 = T(), T(), T()
    s0.storage[:] = 256.0
    s1.storage[:] = 256.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TPARTMUL(dst, s0, s1, target="a5")
    assert np.isposinf(dst.storage).all()


def test_float32_product_rounding_and_specials():
    T = Tile[TileType.Vec, float, 1, 8]
    dst, s0, s1 = T(), T(), T()
    a = np.array([1 + 2**-23, 3.0, np.inf, 0.0, -0.0, 1e30, np.nan, -2.5], dtype=np.float32)
    b = np.array([1 + 2**-23, 1 / 3, 0.0, -5.0, 7.0, 1e30, 1.0, 4.0], dtype=np.float32)
    s0.storage[:] = a
    s1.storage[:] = b
    TPARTMUL(dst, s0, s1, target="a2a3")
    with np.errstate(all="ignore"):
        want = (a.astype(np.float64) * b.astype(np.float64)).astype(np.float32)
    same_bits(dst.storage[[0, 1, 3, 4, 5, 7]], want[[0, 1, 3, 4, 5, 7]])
    assert dst.storage[0] == np.float32(1 + 2**-22)   # (1+e)^2 = 1 + 2e + e^2 rounds to 1 + 2e
    assert np.isnan(dst.storage[2]) and np.isnan(dst.storage[6])
    assert np.signbit(dst.storage[3]) and np.signbit(dst.storage[4])


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([half, bfloat16_t, float]),
    target=st.sampled_from(TARGETS),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_float_products_match_exact_oracle(dtype, target, seed):
    if dt(dtype) not in {dt(x) for x in ALLOWED[target]}:
        return
    rng = np.random.default_rng(seed)
    cols = per_row(dtype) * 2
    T = Tile[TileType.Vec, dtype, 2, cols]
    dst, s0, s1 = T(), T(), T()
    # Random bit patterns (finite) to exercise every rounding case, subnormals included.
    for t in (s0, s1):
        bits = rng.integers(0, 2 ** (8 * dt(dtype).itemsize), t.spec.numel, dtype=np.uint64)
        vals = bits.astype({2: np.uint16, 4: np.uint32}[dt(dtype).itemsize]).view(dt(dtype).np)
        with np.errstate(all="ignore"):
            vals = np.where(np.isfinite(vals.astype(np.float64)), vals, dt(dtype).np.type(1.5))
        t.storage[:] = vals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ptoisa's bf16 path lets numpy's overflow warning out
        TPARTMUL(dst, s0, s1, target=target)
    exact = s0.storage.astype(np.float64) * s1.storage.astype(np.float64)
    with np.errstate(all="ignore"):
        if dt(dtype) is DType.BF16:
            want = exact.astype(np.float32).astype(ml_dtypes.bfloat16)  # exact in f32: 16 significant bits
        else:
            want = exact.astype(dt(dtype).np)
    same_bits(dst.storage, want)


# --- undefined behaviour ---------------------------------------------------------------------------------------
ILLEGAL = [
    ((4, 8), (2, 8), (4, 4)),   # neither source equals dst
    ((4, 8), (3, 8), (2, 4)),   # neither equals dst, src0 the bigger
    ((4, 8), (0, 0), (2, 4)),   # an empty source and a partial one
    ((2, 8), (2, 8), (4, 8)),   # src1 exceeds dst in rows
    ((4, 4), (4, 8), (4, 4)),   # src0 exceeds dst in cols
]


def make_illegal(shapes, dtype=float):
    T = Tile[TileType.Vec, dtype, 4, 8, BLayout.RowMajor, -1, -1]
    dst, s0, s1 = T(*shapes[0]), T(*shapes[1]), T(*shapes[2])
    s0.set_logical(np.arange(1, 33).reshape(4, 8))
    s1.set_logical(np.arange(1, 33).reshape(4, 8) * 100)
    dst.storage[:] = -5
    return dst, s0, s1


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shapes", ILLEGAL)
def test_illegal_pattern_raises_by_default(target, shapes):
    dst, s0, s1 = make_illegal(shapes)
    before = [t.tobytes() for t in (dst, s0, s1)]
    with pytest.raises(UndefinedBehaviourError) as exc:
        TPARTMUL(dst, s0, s1, target=target)
    err = exc.value
    assert err.instr == "TPARTMUL" and err.target == target
    text = str(err)
    d, a, b = (f"{r}x{c}" for r, c in shapes)
    assert f"valid shapes dst {d}, src0 {a}, src1 {b} are not a supported pattern" in text
    assert "undefined='emulate'" in text
    assert [t.tobytes() for t in (dst, s0, s1)] == before


def test_emulate_cpu_writes_zero_where_neither_valid():
    dst, s0, s1 = make_illegal(ILLEGAL[0])
    want = oracle(dst, s0, s1, neither=0)
    with ptoisa.target("cpu", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    np.testing.assert_array_equal(dst.data, want)
    # hand check of one cell in each case: product, src0 only, src1 only, neither
    assert dst.data[0, 0] == 1 * 100 and dst.data[1, 5] == 14 and dst.data[3, 1] == 2600 and dst.data[2, 6] == 0


@pytest.mark.parametrize("shapes", ILLEGAL[:3])
def test_emulate_a2a3_neither_equal_writes_nothing(shapes):
    dst, s0, s1 = make_illegal(shapes)
    before = dst.tobytes()
    with ptoisa.target("a2a3", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    assert dst.tobytes() == before


@pytest.mark.parametrize("shapes", ILLEGAL[3:])
def test_emulate_a2a3_partial_source_larger_than_dst_writes_nothing(shapes):
    dst, s0, s1 = make_illegal(shapes)
    before = dst.tobytes()
    with ptoisa.target("a2a3", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    assert dst.tobytes() == before


def test_emulate_a5_copies_big_source():
    # dst 4x8, src0 2x8, src1 4x4: big = src1 (src0 has fewer rows), small = 2x4.
    dst, s0, s1 = make_illegal(ILLEGAL[0])
    with ptoisa.target("a5", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    want = np.arange(1, 33, dtype=np.float32).reshape(4, 8) * 100            # src1's whole logical rows
    want[:2, :4] = np.arange(1, 33).reshape(4, 8)[:2, :4] * want[:2, :4]      # product over small
    np.testing.assert_array_equal(dst.data, want)


def test_emulate_a5_big_is_src0():
    # dst 4x8, src0 3x8, src1 2x4: src0 is not smaller in either dim -> big = src0; small = 2x4.
    dst, s0, s1 = make_illegal(ILLEGAL[1])
    with ptoisa.target("a5", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    want = np.arange(1, 33, dtype=np.float32).reshape(4, 8)                  # src0, row 3 included
    want[:2, :4] *= np.arange(1, 33).reshape(4, 8)[:2, :4] * 100
    np.testing.assert_array_equal(dst.data, want)


def test_emulate_a5_empty_source_copies_other_intersection():
    dst, s0, s1 = make_illegal(ILLEGAL[2])   # src0 0x0, src1 2x4
    with ptoisa.target("a5", undefined="emulate"):
        TPARTMUL(dst, s0, s1)
    want = np.full((4, 8), -5, dtype=np.float32)
    want[:2, :4] = np.arange(1, 33).reshape(4, 8)[:2, :4] * 100
    np.testing.assert_array_equal(dst.data, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dv", [(0, 8), (4, 0), (0, 0)])
def test_zero_dst_region_returns_early(target, dv):
    """Seed: a zero dst valid region returns early, even if the source shapes would be unsupported."""
    dst, s0, s1 = make_illegal((dv, (3, 3), (1, 8)))
    before = [t.tobytes() for t in (dst, s0, s1)]
    TPARTMUL(dst, s0, s1, target=target)
    assert [t.tobytes() for t in (dst, s0, s1)] == before


# --- legality faults --------------------------------------------------------------------------------------------
def assert_fault(call, tiles, target, operand, rule, cls=IllegalInstructionError):
    before = [t.tobytes() for t in tiles]
    with pytest.raises(cls) as exc:
        call()
    err = exc.value
    assert (err.instr, err.target, err.operand) == ("TPARTMUL", target, operand)
    assert rule in err.rule, err.rule
    assert str(err).startswith(f"TPARTMUL on {target}: {operand + ' ' if operand else ''}")
    assert [t.tobytes() for t in tiles] == before


ILLEGAL_DTYPES = [(t, d) for t in TARGETS for d in ALL_NINE + (float8_e4m3_t,)
                  if dt(d) not in {dt(x) for x in ALLOWED[t]}]


@pytest.mark.parametrize("target,dtype", ILLEGAL_DTYPES)
def test_fault_dtype(target, dtype):
    T = Tile[TileType.Vec, dtype, 2, per_row(dtype)]
    tiles = [T(), T(), T()]
    for i, t in enumerate(tiles):
        t.storage.view(np.uint8)[:] = np.arange(t.spec.nbytes) + i
    assert_fault(lambda: TPARTMUL(*tiles, target=target), tiles, target, "dst",
                 f"dtype {dt(dtype).cname} is not supported (allowed: {ALLOWED_TEXT[target]})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("role", ["src0", "src1"])
def test_fault_source_dtype_differs(target, role):
    F = Tile[TileType.Vec, float, 2, 16]
    H = Tile[TileType.Vec, half, 2, 16]
    tiles = {"dst": F(), "src0": F(), "src1": F()}
    tiles[role] = H()
    for t in tiles.values():
        scribble(t, 3)
    ts = [tiles["dst"], tiles["src0"], tiles["src1"]]
    assert_fault(lambda: TPARTMUL(*ts, target=target), ts, target, role,
                 "dtype half must equal the dst dtype float")


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("role", ["dst", "src0", "src1"])
@pytest.mark.parametrize("layout", ["DN", "NZ"])
def test_fault_not_row_major_npu(target, role, layout):
    ND = Tile[TileType.Vec, float, 16, 8]
    other = (Tile[TileType.Vec, float, 16, 8, BLayout.ColMajor] if layout == "DN"
             else Tile[TileType.Vec, float, 16, 8, BLayout.ColMajor, 16, 8, SLayout.RowMajor])
    tiles = {"dst": ND(), "src0": ND(), "src1": ND()}
    tiles[role] = other()
    for t in tiles.values():
        scribble(t, 4)
    ts = [tiles["dst"], tiles["src0"], tiles["src1"]]
    assert_fault(lambda: TPARTMUL(*ts, target=target), ts, target, role, f"must be row-major (got {layout})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("position", [0, 1, 2])
def test_fault_operand_not_a_tile(target, position):
    T = Tile[TileType.Vec, float, 2, 8]
    args = [T(), T(), T()]
    for t in args:
        scribble(t, 5)
    tiles = list(args)
    args[position] = np.zeros((2, 8), np.float32)
    role = ("dst", "src0", "src1")[position]
    assert_fault(lambda: TPARTMUL(*args, target=target), [t for t in tiles if t is not args[position]], target,
                 role, "must be a Tile (got ndarray)")


@pytest.mark.parametrize("target", TARGETS)
def test_wait_events_and_non_event(target):
    T = Tile[TileType.Vec, int32_t, 1, 8]
    dst, s0, s1 = T(), T(), T()
    s0.storage[:] = 3
    s1.storage[:] = 4
    ev = TPARTMUL(dst, s0, s1, target=target)
    ev2 = TPARTMUL(dst, dst, s1, ev, target=target)
    assert ev2 is ev and ev.op == "TPARTMUL" and dst.storage.tolist() == [48] * 8
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError) as exc:
        TPARTMUL(dst, s0, s1, ev, 3, target=target)
    assert exc.value.operand == "wait event #2" and "must be a RecordEvent" in str(exc.value)
    assert dst.tobytes() == before


# --- property test: random legal patterns against the element-wise oracle -----------------------------------------
@settings(max_examples=80, deadline=None)
@given(pair=st.sampled_from(LEGAL_PAIRS), data=st.data())
def test_property_legal_patterns(pair, data):
    target, dtype = pair
    per = per_row(dtype)
    rows = data.draw(st.integers(1, 5))
    cols = per * data.draw(st.integers(1, 3))
    vr, vc = data.draw(st.integers(0, rows)), data.draw(st.integers(0, cols))
    pr, pc = data.draw(st.integers(0, vr)), data.draw(st.integers(0, vc))
    full_first = data.draw(st.booleans())
    T = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1]
    dst = T(vr, vc)
    s0, s1 = (T(vr, vc), T(pr, pc)) if full_first else (T(pr, pc), T(vr, vc))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    for t in (dst, s0, s1):
        t.set_logical(random_values(rng, dtype, (rows, cols)))
    want = oracle(dst, s0, s1)
    TPARTMUL(dst, s0, s1, target=contract(target))
    same_bits(dst.data, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n,dynamic", [(16, True), (16, False), (64, True), (8, True)])
@pytest.mark.parametrize("full", ["src0", "src1"])
def test_compiled_calls_follow_each_calls_tiles(target, n, dynamic, full):
    """One tile type and valid-shape pattern called with changing tiles (dst alternating between two tiles,
    sources among three, a tile's storage replaced by attach): each call writes its own dst from its own
    sources and leaves every other tile alone. Expected: NumPy's float32 product over the (n/2) x (3n/4) overlap,
    the full source's values elsewhere."""
    r, c = n // 2, 3 * n // 4
    if dynamic:
        T = Tile[TileType.Vec, float, n, n, BLayout.RowMajor, -1, -1]
        whole, part = (lambda: T(n, n)), (lambda: T(r, c))
    else:
        whole = Tile[TileType.Vec, float, n, n, BLayout.RowMajor, n, n]
        part = Tile[TileType.Vec, float, n, n, BLayout.RowMajor, r, c]
    rng = np.random.default_rng(n)
    fulls, parts, dsts = [whole() for _ in range(3)], [part() for _ in range(3)], [whole(), whole()]
    for t in fulls + parts + dsts:
        t.storage[...] = rng.standard_normal(t.storage.size).astype(np.float32)

    def check(dst, f, p):
        want = f.storage.reshape(n, n).copy()
        want[:r, :c] = np.multiply(f.storage.reshape(n, n)[:r, :c], p.storage.reshape(n, n)[:r, :c])
        others = {id(t): t.tobytes() for t in fulls + parts + dsts if t is not dst}
        TPARTMUL(dst, f, p, target=target) if full == "src0" else TPARTMUL(dst, p, f, target=target)
        assert dst.storage.reshape(n, n).view(np.uint32).tolist() == want.view(np.uint32).tolist()
        assert all(t.tobytes() == others[id(t)] for t in fulls + parts + dsts if t is not dst)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a2a3's padding copy: none here, dst's valid columns are its Cols)
        for step in range(6):
            check(dsts[step % 2], fulls[step % 3], parts[(step + 1) % 3])
        for t in (dsts[0], fulls[0], parts[0]):
            t.attach(rng.standard_normal(t.storage.size).astype(np.float32))  # new storage, same type
            check(dsts[0], fulls[0], parts[0])
