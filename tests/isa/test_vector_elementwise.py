"""Element-wise vector instructions (binary, tile-scalar, unary) against values worked out here.

Expected values come from Python integers (wrapped by hand), float64 math rounded once with NumPy's own
conversions, and the C++ rules the simulator uses (include/pto/cpu/ElementOp.h): std::max keeps its first
argument unless it is smaller; integer division truncates; TREM moves the remainder to the divisor's sign.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, IllegalInstructionError, Tile, TileType, UndefinedBehaviourError

TARGETS = ("a2a3", "a5", "cpu")


def tile(dtype, rows, cols, values=None, *, layout=BLayout.RowMajor, valid=None):
    spec = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1]
    t = spec(*(valid or (rows, cols)))
    if values is not None:
        t.set_logical(np.asarray(values))
    return t


def wrap(value: int, bits: int, signed: bool) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


# --- binary ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_tadd_float_matches_numpy_on_every_target(target):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((4, 8)).astype(np.float32), rng.standard_normal((4, 8)).astype(np.float32)
    d = tile(np.float32, 4, 8)
    ptoisa.TADD(d, tile(np.float32, 4, 8, a), tile(np.float32, 4, 8, b), target=target)
    assert d.to_numpy().tobytes() == (a + b).tobytes()


def test_integer_add_and_multiply_wrap_like_cpp_assignment():
    xs = [100, -128, 127, -1] * 8
    ys = [100, -1, 1, 127] * 8
    d = tile(np.int8, 1, 32)
    ptoisa.TADD(d, tile(np.int8, 1, 32, [xs]), tile(np.int8, 1, 32, [ys]), target="cpu")
    assert d.to_numpy()[0].tolist() == [wrap(x + y, 8, True) for x, y in zip(xs, ys)]
    ptoisa.TMUL(d, tile(np.int8, 1, 32, [xs]), tile(np.int8, 1, 32, [ys]), target="a5")
    assert d.to_numpy()[0].tolist() == [wrap(x * y, 8, True) for x, y in zip(xs, ys)]


def test_integer_division_truncates_towards_zero():
    xs, ys = [-7, 7, -7, 7, 0, -1, 9, -9], [2, 2, -2, -2, 5, 3, 4, 4]
    d = tile(np.int32, 1, 8)
    ptoisa.TDIV(d, tile(np.int32, 1, 8, [xs]), tile(np.int32, 1, 8, [ys]), target="cpu")
    assert d.to_numpy()[0].tolist() == [int(x / y) for x, y in zip(xs, ys)]


def test_integer_division_by_zero_is_refused_before_any_write():
    d = tile(np.int32, 1, 8, [[5] * 8])
    before = d.tobytes()
    with pytest.raises(UndefinedBehaviourError, match="division by zero"):
        ptoisa.TDIV(d, tile(np.int32, 1, 8, [[1] * 8]), tile(np.int32, 1, 8, [[1] * 7 + [0]]), target="cpu")
    assert d.tobytes() == before


def test_float_division_by_zero_gives_ieee_infinities():
    d = tile(np.float32, 1, 8)
    ptoisa.TDIV(d, tile(np.float32, 1, 8, [[1, -1, 0, 2, 2, 2, 2, 2]]), tile(np.float32, 1, 8, [[0] * 8]),
                target="a2a3")
    got = d.to_numpy()[0]
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_tmax_and_tmin_follow_std_max_and_std_min_with_nan_and_signed_zero():
    nan = float("nan")
    a = [nan, 1.0, -0.0, 0.0, 3.0, -2.0, nan, 5.0]
    b = [1.0, nan, 0.0, -0.0, 2.0, -1.0, nan, 5.0]
    d = tile(np.float32, 1, 8)
    ptoisa.TMAX(d, tile(np.float32, 1, 8, [a]), tile(np.float32, 1, 8, [b]), target="cpu")
    expected = [y if x < y else x for x, y in zip(a, b)]  # std::max(a, b)
    assert d.to_numpy()[0].tobytes() == np.array(expected, np.float32).tobytes()
    ptoisa.TMIN(d, tile(np.float32, 1, 8, [a]), tile(np.float32, 1, 8, [b]), target="cpu")
    expected = [y if y < x else x for x, y in zip(a, b)]  # std::min(a, b)
    assert d.to_numpy()[0].tobytes() == np.array(expected, np.float32).tobytes()


def test_trem_takes_the_divisor_sign():
    xs, ys = [-7, 7, -7, 7, 6, -6, 1, 0], [2, -2, -2, 2, 3, 3, 5, 3]
    d = tile(np.int32, 1, 8)
    ptoisa.TREM(d, tile(np.int32, 1, 8, [xs]), tile(np.int32, 1, 8, [ys]), target="cpu")
    assert d.to_numpy()[0].tolist() == [x % y for x, y in zip(xs, ys)]  # Python's % has the divisor's sign
    fx, fy = [-7.5, 7.5, 5.0, -5.0, 1.0, 2.5, -0.5, 4.0], [2.0, -2.0, 2.5, 2.5, 3.0, -1.0, 1.0, 4.0]
    f = tile(np.float32, 1, 8)
    ptoisa.TREM(f, tile(np.float32, 1, 8, [fx]), tile(np.float32, 1, 8, [fy]), target="cpu")
    expected = []
    for x, y in zip(fx, fy):
        r = math.fmod(x, y)
        expected.append(r + y if (x >= 0) != (y >= 0) and r != 0 else r)
    assert f.to_numpy()[0].tolist() == expected


def test_bitwise_ops_refuse_float_tiles_and_work_on_integers():
    with pytest.raises(IllegalInstructionError, match="dtype float is not supported"):
        ptoisa.TAND(tile(np.float32, 1, 8), tile(np.float32, 1, 8), tile(np.float32, 1, 8), target="cpu")
    d = tile(np.uint16, 1, 16)
    xs, ys = list(range(0, 1600, 100)), [0x0F0F] * 16
    ptoisa.TXOR(d, tile(np.uint16, 1, 16, [xs]), tile(np.uint16, 1, 16, [ys]), target="a5")
    assert d.to_numpy()[0].tolist() == [x ^ y for x, y in zip(xs, ys)]


def test_only_the_valid_region_is_written_and_layouts_are_honoured():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = np.full((8, 8), 10, np.float32)
    d = tile(np.float32, 8, 8, np.full((8, 8), -1.0), layout=BLayout.ColMajor, valid=(3, 5))
    src0 = tile(np.float32, 8, 8, a, valid=(3, 5))
    src1 = tile(np.float32, 8, 8, b, layout=BLayout.ColMajor, valid=(3, 5))
    ptoisa.TSUB(d, src0, src1, target="cpu")
    expected = np.full((8, 8), -1.0, np.float32)
    expected[:3, :5] = a[:3, :5] - 10
    assert np.array_equal(d.to_numpy(), expected)


def test_mismatched_valid_shapes_and_dtypes_are_refused():
    with pytest.raises(IllegalInstructionError, match="valid shape"):
        ptoisa.TADD(tile(np.float32, 2, 8), tile(np.float32, 2, 8, valid=(1, 8)), tile(np.float32, 2, 8),
                    target="cpu")
    with pytest.raises(IllegalInstructionError, match="must equal the dst dtype"):
        ptoisa.TADD(tile(np.float32, 2, 8), tile(np.float16, 2, 16), tile(np.float32, 2, 8), target="cpu")


@pytest.mark.parametrize(("target", "ok"), [("a2a3", False), ("a5", True), ("cpu", True)])
def test_per_target_element_types(target, ok):
    args = tile(np.int8, 1, 32), tile(np.int8, 1, 32), tile(np.int8, 1, 32)
    if ok:
        ptoisa.TADD(*args, target=target)
    else:
        with pytest.raises(IllegalInstructionError, match="dtype int8 is not supported"):
            ptoisa.TADD(*args, target=target)


def test_calls_take_events_and_keywords_and_refuse_bad_arguments():
    a, b, d = tile(np.float32, 1, 8), tile(np.float32, 1, 8), tile(np.float32, 1, 8)
    event = ptoisa.TADD(d, a, b, target="cpu")
    assert event.op == "TADD"
    ptoisa.TADD(d, src0=a, src1=b, target="cpu")
    ptoisa.TADD(d, a, b, event, target="cpu")
    with pytest.raises(IllegalInstructionError, match="src1 must be a Tile"):
        ptoisa.TADD(d, a, 1.0, target="cpu")
    with pytest.raises(IllegalInstructionError, match="no parameter"):
        ptoisa.TADD(d, a, b, bogus=1, target="cpu")
    with pytest.raises(IllegalInstructionError, match="missing"):
        ptoisa.TADD(d, a, target="cpu")


# --- tile-scalar -------------------------------------------------------------------------------------------
def test_scalar_ops_convert_the_scalar_to_the_element_type():
    xs = [1.0, 2.0, -3.0, 0.5, 100.0, -0.0, 7.0, 8.0]
    d = tile(np.float16, 1, 16)
    src = tile(np.float16, 1, 16, [xs * 2])
    ptoisa.TMULS(d, src, 0.1, target="cpu")  # 0.1 rounds to half first, then the product rounds once
    expected = (np.array(xs * 2, np.float16).astype(np.float64) * float(np.float16(0.1))).astype(np.float16)
    assert d.to_numpy()[0].tobytes() == expected.tobytes()


def test_tdivs_has_a_reversed_overload():
    xs = [1.0, 2.0, 4.0, 8.0, -1.0, 0.5, 0.25, 16.0]
    d = tile(np.float32, 1, 8)
    ptoisa.TDIVS(d, tile(np.float32, 1, 8, [xs]), 2.0, target="cpu")
    assert d.to_numpy()[0].tolist() == [x / 2 for x in xs]
    ptoisa.TDIVS(d, 2.0, tile(np.float32, 1, 8, [xs]), target="cpu")
    assert d.to_numpy()[0].tolist() == [2 / x for x in xs]


def test_integer_scalar_division_by_zero_is_refused():
    d = tile(np.int32, 1, 8)
    with pytest.raises(UndefinedBehaviourError):
        ptoisa.TDIVS(d, tile(np.int32, 1, 8, [[1] * 8]), 0, target="cpu")


def test_tmaxs_keeps_a_nan_source_and_trems_takes_the_scalar_sign():
    d = tile(np.float32, 1, 8)
    ptoisa.TMAXS(d, tile(np.float32, 1, 8, [[float("nan"), 1, 2, 3, 4, 5, 6, 7]]), 4.0, target="cpu")
    got = d.to_numpy()[0]
    assert np.isnan(got[0]) and got[1:].tolist() == [4, 4, 4, 4, 5, 6, 7]
    i = tile(np.int32, 1, 8)
    ptoisa.TREMS(i, tile(np.int32, 1, 8, [[-7, -6, -5, 5, 6, 7, 0, 1]]), 3, target="cpu")
    assert i.to_numpy()[0].tolist() == [x % 3 for x in [-7, -6, -5, 5, 6, 7, 0, 1]]


# --- unary -------------------------------------------------------------------------------------------------
def test_half_exp_goes_through_float_then_half():
    xs = np.linspace(-4, 4, 16).astype(np.float16)
    d = tile(np.float16, 1, 16)
    ptoisa.TEXP(d, tile(np.float16, 1, 16, [xs]), target="cpu")
    expected = np.array([np.float16(np.float32(math.exp(float(x)))) for x in xs])
    assert d.to_numpy()[0].tobytes() == expected.tobytes()


def test_float_sqrt_log_rsqrt_round_once_from_double():
    xs = np.array([0.5, 2.0, 3.0, 10.0, 1e-3, 7.0, 1e6, 123.456], np.float32)
    for name, fn in (("TSQRT", math.sqrt), ("TLOG", math.log), ("TRSQRT", lambda v: 1.0 / math.sqrt(v))):
        d = tile(np.float32, 1, 8)
        getattr(ptoisa, name)(d, tile(np.float32, 1, 8, [xs]), target="cpu")
        expected = np.array([fn(float(x)) for x in xs], np.float64).astype(np.float32)
        assert d.to_numpy()[0].tobytes() == expected.tobytes(), name


def test_bfloat16_results_are_rounded_once_from_double():
    # one rounding means: within half a bfloat16 step of the exact square root
    d = tile(ml_dtypes.bfloat16, 1, 16)
    xs = np.array([1.0 + k / 16 for k in range(16)], ml_dtypes.bfloat16)
    ptoisa.TSQRT(d, tile(ml_dtypes.bfloat16, 1, 16, [xs]), target="cpu")
    from fractions import Fraction

    got = d.to_numpy()[0].astype(np.float64)
    for x, g in zip(xs, got):
        exact = math.sqrt(float(x))
        step = 2.0 ** (math.floor(math.log2(exact)) - 7)
        assert abs(Fraction(g) - Fraction(exact)) <= Fraction(step) / 2


def test_neg_abs_relu_on_integers_and_special_floats():
    xs = [-128, 127, -1, 0, 5, -5, 100, -100] * 4
    d = tile(np.int8, 1, 32)
    ptoisa.TNEG(d, tile(np.int8, 1, 32, [xs]), target="cpu")
    assert d.to_numpy()[0].tolist() == [wrap(-x, 8, True) for x in xs]
    ptoisa.TABS(d, tile(np.int8, 1, 32, [xs]), target="cpu")
    assert d.to_numpy()[0].tolist() == [wrap(abs(x), 8, True) for x in xs]
    f = tile(np.float32, 1, 8)
    ptoisa.TRELU(f, tile(np.float32, 1, 8, [[float("nan"), -0.0, -1.0, 2.0, -np.inf, np.inf, 0.0, -3.0]]),
                 target="cpu")
    got = f.to_numpy()[0]
    assert np.isnan(got[0]) and math.copysign(1, got[1]) == -1 and got[2:].tolist() == [0, 2, 0, np.inf, 0, 0]


def test_transcendentals_refuse_integer_tiles():
    with pytest.raises(IllegalInstructionError, match="not supported"):
        ptoisa.TEXP(tile(np.int32, 1, 8), tile(np.int32, 1, 8), target="cpu")


def test_help_shows_every_overload_the_element_types_and_the_rules():
    import pydoc

    text = pydoc.render_doc(ptoisa.TDIVS, renderer=pydoc.plaintext)
    assert "TDIVS(dst, src0, scalar, *events)" in text and "TDIVS(dst, scalar, src0, *events)" in text
    assert "[a2a3]" in text and "Tile-scalar instructions" in text


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_shifts_are_cpp_shifts_after_promotion_for_every_admitted_count(dtype):
    """C++ promotes to int (64-bit here, wide enough for every type), shifts, and stores back wrapping; TSHL/TSHR
    and TSHLS/TSHRS must give those bits for every count in [0, max(width, 32)), and refuse the rest."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    bits = max(np.dtype(dtype).itemsize * 8, 32)
    T = ptoisa.Tile[ptoisa.TileType.Vec, dtype, 4, 64 // np.dtype(dtype).itemsize]
    values = rng.integers(info.min, info.max, T.numel, endpoint=True)
    values[:4] = [info.min, info.max, 0, 1]
    a, b, d = T(), T(), T()
    a.storage[:] = values.astype(dtype)
    for count in range(min(bits, info.max + 1)):
        b.storage[:] = count
        wide = values.astype(np.int64)
        mask = (1 << (8 * np.dtype(dtype).itemsize)) - 1
        left = ((wide << count) & mask).astype(np.uint64).astype(dtype)  # two's complement wrap into the type
        right = (wide >> count).astype(dtype)  # arithmetic for signed (values are signed), logical for unsigned
        ptoisa.TSHL(d, a, b, target="cpu")
        assert d.storage.tobytes() == left.tobytes(), count
        ptoisa.TSHRS(d, a, count, target="cpu")
        assert d.storage.tobytes() == right.tobytes(), count
    if bits <= info.max:
        b.storage[:] = bits
        before = d.tobytes()
        with pytest.raises(ptoisa.UndefinedBehaviourError, match="shift count"):
            ptoisa.TSHR(d, a, b, target="cpu")
        assert d.tobytes() == before
