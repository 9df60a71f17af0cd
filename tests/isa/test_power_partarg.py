"""TFMOD, TPOW, TPOWS, TPRELU, TPARTARGMAX and TPARTARGMIN against values worked out here.

Expected values come from Python's integers (wrapped by hand), `math.fmod` / `math.pow` (glibc's, which the
simulator calls) rounded with NumPy's conversions, and the NPU backends' code worked by hand
(include/pto/npu/a2a3/TFmod.hpp, TPow.hpp, TPartArgOp.hpp; include/pto/npu/a5/TFMod.hpp, TPow.hpp,
TPartArgBinOps.hpp): fmod as a - trunc(a / b) * b in float, pow's special-case passes, the NPUs' selection of
src0 on a tie.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import (BLayout, ErratumWarning, IllegalInstructionError, NotModelledError, Tile, TileType,
                    UndefinedBehaviourError)
from ptoisa.targets import make_config

TARGETS = ("a2a3", "a5", "cpu")


def tile(dtype, rows, cols, values=None, *, layout=BLayout.RowMajor, valid=None):
    t = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](*(valid or (rows, cols)))
    if values is not None:
        t.set_logical(np.asarray(values))
    return t


def bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def wrap(value: int, width: int, signed: bool) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if signed and value >> (width - 1) else value


# --- TFMOD -----------------------------------------------------------------------------------------------
def test_tfmod_cpu_is_cs_fmod_and_percent():
    a = np.array([[7.5, -7.5, 5.0, -0.0, 1e30, 3.0, np.inf, 2.0]], np.float32)
    b = np.array([[2.0, 2.0, np.inf, 3.0, 7.0, 0.0, 2.0, -0.75]], np.float32)
    d = tile(np.float32, 1, 8)
    ptoisa.TFMOD(d, tile(np.float32, 1, 8, a), tile(np.float32, 1, 8, b), target="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.array([[math.fmod(float(x), float(y)) if y != 0 and not math.isinf(x) else math.nan
                          for x, y in zip(a[0], b[0])]], np.float32)
    np.testing.assert_array_equal(np.signbit(d.data), np.signbit(want) & ~np.isnan(want) | np.signbit(d.data)
                                  & np.isnan(want))
    np.testing.assert_array_equal(d.data, want)
    ai = np.array([[7, -7, 7, -7, 100, -128, 0, 1]], np.int16)
    bi = np.array([[3, 3, -3, -3, 7, 7, 5, 1]], np.int16)
    di = tile(np.int16, 1, 16, valid=(1, 8))
    ptoisa.TFMOD(di, tile(np.int16, 1, 16, ai, valid=(1, 8)), tile(np.int16, 1, 16, bi, valid=(1, 8)), target="cpu")
    want_i = [int(math.fmod(x, y)) for x, y in zip(ai[0].tolist(), bi[0].tolist())]  # the sign of the dividend
    assert di.data[0, :8].tolist() == want_i


@pytest.mark.parametrize("target", ("a5", "cpu"))
def test_tfmod_integer_division_by_zero_is_refused_before_any_write(target):
    a, b = tile(np.int32, 1, 8, [[1] * 8]), tile(np.int32, 1, 8, [[1] * 7 + [0]])
    d = tile(np.int32, 1, 8, [[9] * 8])
    with pytest.raises(UndefinedBehaviourError):
        ptoisa.TFMOD(d, a, b, target=target)
    assert d.data.tolist() == [[9] * 8]
    ptoisa.TFMOD(d, a, b, target=make_config(target, True, "emulate"))
    assert d.data.tolist() == [[0] * 8]


@pytest.mark.parametrize("target", ("a2a3", "a5"))
def test_tfmod_npu_float_is_the_backends_formula(target):
    # a - trunc(a / b) * b in float: an infinite divisor gives 5 - 0 * inf = NaN (fmod: 5); 1e10 (exact in float)
    # / 3 rounds to 3333333248 (a multiple of float's 256 there), times 3 is 9999999744, which rounds to 1e10
    # (float's spacing is 1024 there): 1e10 - 1e10 = 0 (fmod: 1)
    a = tile(np.float32, 1, 8, [[5.0, 1e10, 7.5, -7.5, 0, 0, 0, 0]])
    b = tile(np.float32, 1, 8, [[np.inf, 3.0, 2.0, 2.0, 1, 1, 1, 1]])
    d = tile(np.float32, 1, 8)
    ptoisa.TFMOD(d, a, b, target=target)
    assert math.isnan(d.data[0, 0])
    assert d.data[0, 1:4].tolist() == [0.0, 1.5, -1.5]
    ptoisa.TFMOD(d, a, b, target="cpu")
    assert d.data[0, :4].tolist() == [5.0, 1.0, 1.5, -1.5]


def test_half_toward_zero_rounds_towards_zero():
    from ptoisa.isa.vector._common import half_toward_zero

    x = np.array([1.0009, -1.0009, 70000.0, -70000.0, 0.5, np.inf, 1.0 + 2 ** -10], np.float32)
    got = half_toward_zero(x)
    # by hand: 1.0009 lies between 1.0 and 1.0009765625 (nearest would pick the latter); past 65504 the largest
    # finite half; exact values stay
    assert got.tolist() == [1.0, -1.0, 65504.0, -65504.0, 0.5, math.inf, 1.0009765625]


def test_tfmod_legality_follows_the_backends():
    h = tile(np.float16, 1, 16)
    with pytest.raises(IllegalInstructionError, match="half"):
        ptoisa.TFMOD(h, tile(np.float16, 1, 16), tile(np.float16, 1, 16), target="a2a3")
    ptoisa.TFMOD(h, tile(np.float16, 1, 16, [[1.0] * 16]), tile(np.float16, 1, 16, [[0.75] * 16]), target="a5")
    assert h.data[0, 0] == 0.25
    col = Tile[TileType.Vec, np.float32, 8, 1, BLayout.ColMajor, -1, -1]
    with pytest.raises(IllegalInstructionError, match="row-major"):
        ptoisa.TFMOD(col(8, 1), col(8, 1), col(8, 1), target="a5")
    ptoisa.TFMOD(col(8, 1), col(8, 1), col(8, 1), target=make_config("cpu", True, "emulate"))


# --- TPOW / TPOWS: integers ------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32))
def test_tpow_integers_wrap_like_python_modular_powers(target, dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    width, signed = info.bits, info.min < 0
    base = rng.integers(info.min, int(info.max) + 1, 64, dtype=np.int64).astype(dtype)
    exp = rng.integers(-3 if signed else 0, 40, 64).astype(dtype)
    base[:6] = [0, 1, 2, 3, 0, 1]
    exp[:6] = [0, 0, 5, 7, 3, 9]
    if signed:
        base[6:10], exp[6:10] = [-1, -1, 5, 0], [-3, -4, -2, -1]
    cols = 64
    d = tile(dtype, 1, cols)
    ptoisa.TPOW(d, tile(dtype, 1, cols, [base]), tile(dtype, 1, cols, [exp]), tile(dtype, 1, cols), target=target)
    want = []
    for b, e in zip(base.tolist(), exp.tolist()):
        if e == 0 or b == 1:
            want.append(1)
        elif e < 0:
            want.append((1 if e % 2 == 0 else -1) if b == -1 else 0)
        else:
            want.append(wrap(pow(b, e, 1 << width), width, signed))
    assert d.data[0].tolist() == want


def test_tpow_a2a3_reads_uint32_exponents_as_int():
    # TPowICore(int base, int exp): 2**31 + 1 is a negative int, so 3 ** it is 0 on A2/A3 (base 0, 1, -1 keep
    # their rules); cpu and A5 loop over the unsigned exponent
    base = np.array([[3, 0, 1, 0xFFFFFFFF, 5, 3, 0, 0]], np.uint32)
    exp = np.array([[2 ** 31 + 1, 2 ** 31 + 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 4, 0, 0]], np.uint32)
    args = [tile(np.uint32, 1, 8, base), tile(np.uint32, 1, 8, exp), tile(np.uint32, 1, 8)]
    d = tile(np.uint32, 1, 8)
    ptoisa.TPOW(d, *args, target="a2a3")
    assert d.data[0, :6].tolist() == [0, 0, 1, 0xFFFFFFFF, 0, 81]
    for target in ("cpu", "a5"):
        ptoisa.TPOW(d, *args, target=target)
        assert d.data[0, :6].tolist() == [pow(3, 2 ** 31 + 1, 2 ** 32), 0, 1, 0xFFFFFFFF,
                                          pow(5, 2 ** 32 - 1, 2 ** 32), 81]


def test_tpows_cpu_integers_truncate_stdpow():
    # static_cast<T>(std::pow(double(b), double(e))): 7 ** 3 = 343, (-2) ** -1 = -0.5 -> 0, 1 ** -5 = 1
    d = tile(np.int16, 1, 16, valid=(1, 3))
    ptoisa.TPOWS(d, tile(np.int16, 1, 16, [[7, -7, 2] + [0] * 13], valid=(1, 3)), 3, tile(np.int16, 1, 16),
                 target="cpu")
    assert d.data[0, :3].tolist() == [343, -343, 8]
    ptoisa.TPOWS(d, tile(np.int16, 1, 16, [[-2, 1, 2] + [0] * 13], valid=(1, 3)), -1, tile(np.int16, 1, 16),
                 target="cpu")
    assert d.data[0, :3].tolist() == [0, 1, 0]


def test_tpows_cpu_out_of_range_is_undefined_and_emulated_as_x86():
    b = tile(np.int8, 1, 32, [[100] + [2] * 31])
    d = tile(np.int8, 1, 32, [[5] * 32])
    with pytest.raises(UndefinedBehaviourError):
        ptoisa.TPOWS(d, b, 3, tile(np.int8, 1, 32), target="cpu")
    assert d.data.tolist() == [[5] * 32]
    ptoisa.TPOWS(d, b, 3, tile(np.int8, 1, 32), target=make_config("cpu", True, "emulate"))
    # 100 ** 3 = 1000000 = 0xF4240 converts through a 32-bit int: its low byte 0x40
    assert d.data[0, :2].tolist() == [0x40, 8]
    u = tile(np.uint8, 1, 32, [[255] + [1] * 31])
    ptoisa.TPOWS(u, tile(np.uint8, 1, 32, [[255] + [1] * 31]), 4, tile(np.uint8, 1, 32),
                 target=make_config("cpu", True, "emulate"))
    assert u.data[0, 0] == 0  # 255 ** 4 > 2**31: the 32-bit conversion's 0x80000000, low byte 0 (the simulator's)


# --- TPOW / TPOWS: floats --------------------------------------------------------------------------------
def test_tpow_cpu_float_is_glibc_pow_rounded_once():
    rng = np.random.default_rng(11)
    b = (np.abs(rng.standard_normal(512)) * 10).astype(np.float32).reshape(16, 32)
    e = (rng.standard_normal(512) * 4).astype(np.float32).reshape(16, 32)
    d = tile(np.float32, 16, 32)
    ptoisa.TPOW(d, tile(np.float32, 16, 32, b), tile(np.float32, 16, 32, e), tile(np.float32, 16, 32), target="cpu")
    want = np.array([math.pow(float(x), float(y)) for x, y in zip(b.ravel(), e.ravel())]).astype(np.float32)
    np.testing.assert_array_equal(bits(d.data.ravel()), bits(want))
    h = tile(np.float16, 16, 32)
    hb, he = b.astype(np.float16), (e / 2).astype(np.float16)
    ptoisa.TPOW(h, tile(np.float16, 16, 32, hb), tile(np.float16, 16, 32, he), tile(np.float16, 16, 32),
                target="cpu")
    with np.errstate(over="ignore"):
        want_h = np.array([math.pow(float(x), float(y)) for x, y in zip(hb.ravel(), he.ravel())]
                          ).astype(np.float32).astype(np.float16)  # through float, as compute_pow
    np.testing.assert_array_equal(bits(h.data.ravel()), bits(want_h))


def _npu_pow_magnitude(b: float, e: float) -> np.float32:
    """exp(ln|b| * e) with each step rounded to float, by hand with Python's math."""
    ln = np.float32(math.log(abs(b)))
    return np.float32(math.exp(float(np.float32(ln * np.float32(e)))))


def test_tpow_a5_special_cases_by_hand():
    cases = [(0.0, -1.0, math.inf), (-0.0, -1.0, -math.inf), (-0.0, -2.0, math.inf), (-0.0, 3.0, -0.0),
             (-math.inf, 3.0, -math.inf), (-math.inf, -3.0, -0.0), (math.inf, -0.5, 0.0), (-1.0, math.inf, 1.0),
             (1.0, math.nan, 1.0), (math.nan, 0.0, 1.0), (-2.0, 3.0, -float(_npu_pow_magnitude(-2.0, 3.0))),
             (-2.0, 2.0, float(_npu_pow_magnitude(-2.0, 2.0))), (2.0, 0.5, float(_npu_pow_magnitude(2.0, 0.5))),
             (-8.0, 1 / 3, math.nan), (2.0, math.nan, math.nan), (math.nan, 1.0, math.nan)]
    b = np.array([[c[0] for c in cases]], np.float32)
    e = np.array([[c[1] for c in cases]], np.float32)
    n = len(cases)
    d = tile(np.float32, 1, n)
    ptoisa.TPOW(d, tile(np.float32, 1, n, b), tile(np.float32, 1, n, e), tile(np.float32, 1, n), target="a5")
    want = np.array([c[2] for c in cases], np.float32)
    want[np.isnan(want)] = np.uint32(0x7FC00000).view(np.float32)
    np.testing.assert_array_equal(bits(d.data[0]), bits(want))


def test_tpow_a2a3_special_cases_by_hand():
    # SwitchPowFResult: exp 0 -> 1 (even for a NaN base); base +-0 -> 0.0f for exp > 0, else +inf (a NaN exp
    # too); -1 ** +-inf -> 1; an integral exp -> tmp, negated for a negative base and an odd exp; else
    # exp(ln(base) * exp): NaN for a negative base
    cases = [(math.nan, 0.0, 1.0), (-0.0, 3.0, 0.0), (0.0, math.nan, math.inf), (-0.0, -1.0, math.inf),
             (-1.0, -math.inf, 1.0), (-2.0, 3.0, -float(_npu_pow_magnitude(-2.0, 3.0))),
             (-2.0, 4.0, float(_npu_pow_magnitude(-2.0, 4.0))), (-8.0, 1 / 3, math.nan), (1.0, math.nan, math.nan),
             (2.0, 0.5, float(_npu_pow_magnitude(2.0, 0.5)))]
    n = len(cases)
    b = np.zeros((1, 16), np.float32)
    e = np.zeros((1, 16), np.float32)
    b[0, :n], e[0, :n] = [c[0] for c in cases], [c[1] for c in cases]
    d = tile(np.float32, 1, 16, valid=(1, n))
    args = (tile(np.float32, 1, 16, b, valid=(1, n)), tile(np.float32, 1, 16, e, valid=(1, n)))
    ptoisa.TPOW(d, *args, tile(np.float32, 1, 16, valid=(1, n)), target="a2a3")
    want = np.array([c[2] for c in cases], np.float32)
    want[np.isnan(want)] = np.uint32(0x7FC00000).view(np.float32)
    np.testing.assert_array_equal(bits(d.data[0, :n]), bits(want))
    s = tile(np.float32, 1, 16, valid=(1, n))
    ptoisa.TPOWS(s, args[0], 3.0, tile(np.float32, 1, 16, valid=(1, n)), target="a2a3")
    assert s.data[0, 1] == 0.0 and not np.signbit(s.data[0, 1])  # -0.0 ** 3 is 0.0f here (a5 keeps -0.0)
    ptoisa.TPOWS(s, args[0], 3.0, tile(np.float32, 1, 16, valid=(1, n)), target="a5")
    assert np.signbit(s.data[0, 1])


def test_tpow_tmp_and_type_rules():
    f = lambda: tile(np.float32, 1, 8)  # noqa: E731
    with pytest.raises(IllegalInstructionError, match="tmp"):
        ptoisa.TPOW(f(), f(), f(), tile(np.int32, 1, 8), target="a2a3")
    with pytest.raises(IllegalInstructionError, match="tmp"):
        ptoisa.TPOW(f(), f(), f(), tile(np.float32, 1, 8, valid=(1, 4)), target="a2a3")
    ptoisa.TPOW(f(), f(), f(), tile(np.int32, 1, 8, valid=(1, 4)), target="a5")  # tmp unused there
    i = lambda: tile(np.int32, 1, 8)  # noqa: E731
    ptoisa.TPOW(i(), i(), i(), tile(np.float32, 1, 8, valid=(1, 2)), target="a2a3")  # integer path: tmp unused
    with pytest.raises(IllegalInstructionError):
        ptoisa.TPOW(tile(np.float16, 1, 16), tile(np.float16, 1, 16), tile(np.float16, 1, 16),
                    tile(np.float16, 1, 16), target="a2a3")
    with pytest.raises(NotModelledError, match="dst's element offsets"):
        ptoisa.TPOW(tile(np.float32, 2, 8), tile(np.float32, 2, 16, valid=(2, 8)), tile(np.float32, 2, 8),
                    tile(np.float32, 2, 8), target="cpu")
    col = Tile[TileType.Vec, np.float32, 8, 1, BLayout.ColMajor, -1, -1]
    with pytest.raises(IllegalInstructionError, match="row-major"):
        ptoisa.TPOWS(col(8, 1), col(8, 1), 2.0, col(8, 1), target="cpu")  # OP_POWS: CONSTRAINT_VEC_ROWMAJOR
    ptoisa.TPOW(col(8, 1), col(8, 1), col(8, 1), col(8, 1), target="cpu")


# --- TPRELU ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_tprelu_matches_the_formula(target):
    x = np.array([[1.5, -2.0, 0.0, -0.0, np.inf, -np.inf, 3.0, -1e-3]], np.float32)
    s = np.array([[0.1, 0.25, -5.0, 5.0, 0.5, 0.5, -1.0, 1e3]], np.float32)  # 0.0 * -5 = -0.0: > 0, not >= 0
    d = tile(np.float32, 1, 8)
    ptoisa.TPRELU(d, tile(np.float32, 1, 8, x), tile(np.float32, 1, 8, s),
                  tile(np.uint8, 2, 32, valid=(2, 32)), target=target)
    want = np.where(x > 0, x, (x.astype(np.float64) * s).astype(np.float32))
    np.testing.assert_array_equal(bits(d.data), bits(want))


def test_tprelu_a2a3_tmp_rules():
    f = lambda: tile(np.float32, 2, 8)  # noqa: E731
    with pytest.raises(IllegalInstructionError, match="tmp"):
        ptoisa.TPRELU(f(), f(), f(), tile(np.uint8, 2, 32), target="a2a3")  # needs more valid rows than dst
    with pytest.raises(IllegalInstructionError, match="tmp"):
        ptoisa.TPRELU(f(), f(), f(), tile(np.int8, 3, 32), target="a2a3")
    ptoisa.TPRELU(f(), f(), f(), tile(np.uint8, 3, 32), target="a2a3")
    ptoisa.TPRELU(f(), f(), f(), tile(np.float32, 1, 8), target="a5")
    i = lambda: tile(np.int16, 1, 16, [[-3] * 16])  # noqa: E731
    d = tile(np.int16, 1, 16)
    ptoisa.TPRELU(d, i(), tile(np.int16, 1, 16, [[30000] * 16]), tile(np.int16, 1, 16), target="cpu")
    assert d.data[0, 0] == wrap(-90000, 16, True)  # the product wraps in the element type


# --- TPARTARGMAX / TPARTARGMIN ---------------------------------------------------------------------------
def _partarg(op, a, b, ai, bi, target, valid0=None, valid1=None, dtype=np.float32, idx=np.int32):
    rows, cols = np.shape(a)
    v0, v1 = valid0 or (rows, cols), valid1 or (rows, cols)
    d, di = tile(dtype, rows, cols, np.full((rows, cols), 77)), tile(idx, rows, cols, np.full((rows, cols), 77))
    getattr(ptoisa, op)(d, tile(dtype, rows, cols, a, valid=v0), tile(dtype, rows, cols, b, valid=v1), di,
                        tile(idx, rows, cols, ai, valid=v0), tile(idx, rows, cols, bi, valid=v1), target=target)
    return d.data, di.data


A = [[1.0, 5.0, 3.0, 0.0, np.nan, 2.0, -0.0, 7.0]]
B = [[2.0, 4.0, 3.0, -0.0, 1.0, np.nan, 0.0, 7.0]]
AI, BI = [[10 + k for k in range(8)]], [[20 + k for k in range(8)]]


def test_tpartargmax_cpu_ties_and_nans_go_to_src1():
    v, i = _partarg("TPARTARGMAX", A, B, AI, BI, "cpu")
    # src0 > src1 ? src0 : src1 (ties, +-0 and NaNs: src1)
    assert i.tolist() == [[20, 11, 22, 23, 24, 25, 26, 27]]
    assert bits(v[0, 3]) == bits(np.float32(-0.0)) and bits(v[0, 6]) == bits(np.float32(0.0))
    v, i = _partarg("TPARTARGMIN", A, B, AI, BI, "cpu")
    assert i.tolist() == [[10, 21, 22, 23, 24, 25, 26, 27]]


@pytest.mark.parametrize("target", ("a2a3", "a5"))
def test_tpartarg_npus_take_src0_on_a_tie_as_an_announced_erratum(target):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v, i = _partarg("TPARTARGMAX", A, B, AI, BI, target)
    assert any(isinstance(w.message, ErratumWarning) and "tpartarg_ties_src0" in str(w.message) for w in caught)
    # ties (3 == 3, -0 == 0, 7 == 7) take src0; a NaN: A2/A3's vcmp_ge fails -> src1, A5's src1 > src0 fails -> src0
    nan_pick = [24, 25] if target == "a2a3" else [14, 15]
    assert i.tolist() == [[20, 11, 12, 13, *nan_pick, 16, 17]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v, i = _partarg("TPARTARGMAX", A, B, AI, BI, make_config(target, False))
    assert not caught
    assert i.tolist() == [[20, 11, 22, 23, *nan_pick, 26, 27]]
    with pytest.warns(ErratumWarning, match="TPARTARGMIN"):
        v, i = _partarg("TPARTARGMIN", A, B, AI, BI, target)
    assert i.tolist() == [[10, 21, 12, 13, *nan_pick, 16, 17]]


def test_tpartarg_no_warning_when_ties_change_nothing():
    same = [[3.0] * 8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _partarg("TPARTARGMAX", same, same, AI, AI, "a5")  # equal values and equal indices
    assert not caught


@pytest.mark.parametrize("target", TARGETS)
def test_tpartarg_partial_sources(target):
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    b = np.full((4, 8), 10.5, np.float32)  # no ties (the NPUs' erratum is tested above)
    ai, bi = np.full((4, 8), 1), np.full((4, 8), 2)
    v, i = _partarg("TPARTARGMAX", a, b, ai, bi, target, valid1=(2, 5))
    want_v, want_i = a.copy(), np.ones((4, 8), int)
    part = a[:2, :5] > 10
    want_v[:2, :5] = np.where(part, a[:2, :5], 10.5)
    want_i[:2, :5] = np.where(part, 1, 2)
    np.testing.assert_array_equal(v, want_v)
    np.testing.assert_array_equal(i, want_i)
    v, i = _partarg("TPARTARGMIN", a, b, ai, bi, target, valid0=(4, 3))
    want_v, want_i = b.copy(), np.full((4, 8), 2)
    want_v[:, :3] = np.minimum(a[:, :3], 10.5)
    want_i[:, :3] = np.where(a[:, :3] < 10.5, 1, 2)
    np.testing.assert_array_equal(v, want_v)
    np.testing.assert_array_equal(i, want_i)


def test_tpartarg_unsupported_patterns_and_shapes_are_refused_before_any_write():
    a = np.ones((4, 8), np.float32)
    with pytest.raises(UndefinedBehaviourError, match="pattern"):
        _partarg("TPARTARGMAX", a, a, a, a, "cpu", valid0=(4, 3), valid1=(2, 8))
    d = tile(np.float32, 4, 8, np.full((4, 8), 77))
    di = tile(np.int32, 4, 8, np.full((4, 8), 77))
    with pytest.raises(IllegalInstructionError, match="src1Idx"):
        ptoisa.TPARTARGMAX(d, tile(np.float32, 4, 8), tile(np.float32, 4, 8), di, tile(np.int32, 4, 8),
                           tile(np.int32, 4, 8, valid=(4, 7)), target="a5")
    assert d.data.tolist() == [[77.0] * 8] * 4 and di.data.tolist() == [[77] * 8] * 4
    # emulation runs the simulator's loop: 0 where neither source is valid
    v, i = _partarg("TPARTARGMAX", a, a, a, a, make_config("cpu", True, "emulate"), valid0=(4, 3),
                    valid1=(2, 8))
    assert v[3, 7] == 0 and i[3, 7] == 0 and v[0, 0] == 1
    wide = np.ones((4, 16), np.float32)
    with pytest.raises(IllegalInstructionError, match="int32 or uint32"):
        _partarg("TPARTARGMAX", wide, wide, wide, wide, "a2a3", idx=np.int16)
    _partarg("TPARTARGMAX", np.ones((4, 16)), np.ones((4, 16)), a.repeat(2, 1), a.repeat(2, 1), "a2a3",
             dtype=np.float16, idx=np.int16)
    with pytest.raises(IllegalInstructionError):
        _partarg("TPARTARGMAX", a, a, a, a, "a5", dtype=np.int32)
    _partarg("TPARTARGMAX", a, a, a, a, "cpu", dtype=np.int32)


def test_tpartarg_empty_dst_writes_nothing():
    d = tile(np.float32, 2, 8, np.full((2, 8), 77), valid=(0, 8))
    di = tile(np.int32, 2, 8, np.full((2, 8), 77), valid=(0, 8))
    ptoisa.TPARTARGMIN(d, tile(np.float32, 2, 8, valid=(0, 8)), tile(np.float32, 2, 8, valid=(0, 8)), di,
                       tile(np.int32, 2, 8, valid=(0, 8)), tile(np.int32, 2, 8, valid=(0, 8)), target="cpu")
    assert d.data.tolist() == [[77.0] * 8] * 2 and di.data.tolist() == [[77] * 8] * 2


# --- text ------------------------------------------------------------------------------------------------
_T = ("!pto.tile_buf<loc=vec, dtype={d}, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, "
      "slayout=none_box, fractal=512, pad=0>")


def test_text_forms_check_per_target(tmp_path):
    from conftest import cli_status

    f, i = _T.format(d="f32"), _T.format(d="i32")
    body = "\n".join([
        *(f"    %a{k} = arith.constant {64 * k} : i64" for k in range(7)),
        "    %three = arith.constant 3.0 : f32",
        *(f"    %{n} = pto.alloc_tile addr = %a{k} : {f}" for k, n in enumerate(("x", "y", "d", "t"))),
        *(f"    %{n} = pto.alloc_tile addr = %a{k + 4} : {i}" for k, n in enumerate(("xi", "yi", "di"))),
        f"    pto.tpows ins(%x, %three, %t : {f}, f32, {f}) outs(%d : {f})",
        f"    pto.tpow ins(%x, %y, %t : {f}, {f}, {f}) outs(%d : {f})",
        f"    pto.tfmod ins(%y, %x : {f}, {f}) outs(%d : {f})",
        f"    pto.tprelu ins(%x, %y, %t : {f}, {f}, {f}) outs(%d : {f})",
        f"    pto.tpartargmax ins(%x, %y, %xi, %yi : {f}, {f}, {i}, {i}) outs(%d, %di : {f}, {i})",
        f"    pto.tpartargmin ins(%x, %y, %xi, %yi : {f}, {f}, {i}, {i}) outs(%d, %di : {f}, {i})",
    ])
    path = tmp_path / "ops.pto"
    path.write_text(f"module {{\n  func.func @k() {{\n{body}\n    return\n  }}\n}}\n")
    for target in ("a5", "cpu"):
        code, err = cli_status(["check", str(path), "--target", target])
        assert code == 0, err
    code, _ = cli_status(["check", str(path), "--target", "a2a3"])  # a2a3 TPRELU wants a uint8 tmp
    assert code != 0
    path.write_text(path.read_text().replace("    pto.tprelu", "    // pto.tprelu"))
    code, err = cli_status(["check", str(path), "--target", "a2a3"])
    assert code == 0, err
