"""Element types (as_dtype aliases, DType properties) and C++-like scalar conversion (ptoisa.isa._scalar)."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import TEXPANDS, IllegalInstructionError, Tile, TileSpecError, TileType
from ptoisa.dtypes import DType, as_dtype
from ptoisa.isa._check import Check
from ptoisa.isa._scalar import to_element

# These tests convert out-of-range scalars on purpose; the warning that says so is tested in test_narrowing.py.
pytestmark = pytest.mark.filterwarnings("ignore::ptoisa.errors.NarrowingWarning")


# --- aliases ---------------------------------------------------------------------------------------------------
ALIASES = {
    DType.F32: [float, "float", "f32", "float32", "fp32", np.float32, np.dtype("float32"), "float32_t"],
    DType.F16: ["half", "f16", "float16", "fp16", np.float16, np.dtype(np.float16)],
    DType.BF16: ["bf16", "bfloat16", "bfloat16_t", ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16)],
    DType.I32: ["int32_t", "i32", "si32", "int", "int32", np.int32, np.dtype("int32")],
    DType.U32: ["uint32_t", "ui32", "u32", "unsigned", "uint32", np.uint32],
    DType.I16: ["int16_t", "i16", "si16", "short", "int16", np.int16],
    DType.U16: ["uint16_t", "ui16", "u16", "uint16", np.uint16],
    DType.I8: ["int8_t", "i8", "si8", "int8", np.int8],
    DType.U8: ["uint8_t", "ui8", "u8", "uint8", np.uint8],
    DType.F8E4M3: ["float8_e4m3fn", "f8E4M3FN", "f8e4m3", "float8_e4m3_t", ml_dtypes.float8_e4m3fn],
    DType.F8E5M2: ["float8_e5m2", "f8E5M2", "f8e5m2", "float8_e5m2_t", ml_dtypes.float8_e5m2],
}


@pytest.mark.parametrize("dtype,alias", [(d, a) for d, aliases in ALIASES.items() for a in aliases],
                         ids=lambda x: str(x))
def test_as_dtype_aliases(dtype, alias):
    if alias == "float32_t":
        assert ptoisa.float32_t is DType.F32
        return
    assert as_dtype(alias) is dtype


def test_dtype_members_pass_through_and_cpp_names():
    for d in DType:
        assert as_dtype(d) is d
    assert (ptoisa.int8_t, ptoisa.uint8_t, ptoisa.int16_t, ptoisa.uint16_t, ptoisa.int32_t, ptoisa.uint32_t,
            ptoisa.half, ptoisa.bfloat16_t, ptoisa.float32_t) == (DType.I8, DType.U8, DType.I16, DType.U16,
                                                                   DType.I32, DType.U32, DType.F16, DType.BF16,
                                                                   DType.F32)


@pytest.mark.parametrize("bad", ["float64", np.float64, int, "i64", "int64_t", object(), None, "Float"])
def test_as_dtype_unknown(bad):
    with pytest.raises(TileSpecError, match="unknown element type .* \\(known: i8, u8, i16, u16, i32, u32, f16, "
                                            "bf16, f32, f8e4m3, f8e5m2, hif8, f8e8m0\\)"):
        as_dtype(bad)


@pytest.mark.parametrize("d,itemsize,is_float,is_signed,cname,mlir", [
    (DType.I8, 1, False, True, "int8", "i8"), (DType.U8, 1, False, False, "uint8", "ui8"),
    (DType.I16, 2, False, True, "int16", "i16"), (DType.U16, 2, False, False, "uint16", "ui16"),
    (DType.I32, 4, False, True, "int32", "i32"), (DType.U32, 4, False, False, "uint32", "ui32"),
    (DType.F16, 2, True, True, "half", "f16"), (DType.BF16, 2, True, True, "bfloat16", "bf16"),
    (DType.F32, 4, True, True, "float", "f32"),
])
def test_dtype_properties(d, itemsize, is_float, is_signed, cname, mlir):
    assert (d.itemsize, d.bits, d.is_float, d.is_signed, d.cname, d.mlir) == (
        itemsize, 8 * itemsize, is_float, is_signed, cname, mlir)
    assert d.np.itemsize == itemsize


# --- scalar conversion -------------------------------------------------------------------------------------------
CHECK = Check("TEXPANDS", "a5")


def conv(value, dtype):
    return to_element(value, as_dtype(dtype), CHECK, "scalar")


def bits_of(x):
    arr = np.asarray(x)
    return int(arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[arr.itemsize]))


@pytest.mark.parametrize("value,dtype,want", [
    (300, "i8", 44), (-129, "i8", 127), (128, "i8", -128), (255, "u8", 255), (256, "u8", 0), (-1, "u8", 255),
    (2**64 + 5, "u8", 5), (-(2**40) - 1, "i16", -1), (65536 + 7, "u16", 7), (2**31, "i32", -(2**31)),
    (-1, "u32", 2**32 - 1), (2**32 + 3, "u32", 3),
    (np.int64(-129), "i8", 127), (np.uint64(2**63 + 1), "i32", 1), (np.int8(-1), "u16", 65535),
    (True, "i32", 1), (False, "u8", 0), (np.bool_(True), "i16", 1),
])
def test_integers_wrap(value, dtype, want):
    out = conv(value, dtype)
    assert out.dtype == as_dtype(dtype).np and int(out) == want


@pytest.mark.parametrize("value,dtype,want", [
    (2.9, "i32", 2), (-2.9, "i32", -2), (-0.9, "i32", 0), (127.99, "i8", 127), (-128.99, "i8", -128),
    (255.5, "u8", 255), (-0.5, "u8", 0), (np.float32(-3.75), "i16", -3), (np.float16(65504), "u16", 65504),
    (ml_dtypes.bfloat16(-2.5), "i8", -2), (2147483647.9, "i32", 2147483647),
])
def test_float_to_int_truncates(value, dtype, want):
    out = conv(value, dtype)
    assert out.dtype == as_dtype(dtype).np and int(out) == want


@pytest.mark.parametrize("value,dtype", [
    (128.0, "i8"), (-129.0, "i8"), (-1.0, "u8"), (256.0, "u8"), (2147483648.0, "i32"), (4294967296.0, "u32"),
    (float("nan"), "i32"), (float("inf"), "u16"), (float("-inf"), "i16"), (np.float32("nan"), "u8"),
])
def test_float_to_int_out_of_range_refused(value, dtype):
    with pytest.raises(IllegalInstructionError) as exc:
        conv(value, dtype)
    err = exc.value
    assert (err.instr, err.target, err.operand) == ("TEXPANDS", "a5", "scalar")
    assert f"does not convert to {as_dtype(dtype).cname} (C++ leaves that undefined)" in str(err)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # ptoisa lets numpy's overflow warning out (-> inf)
@pytest.mark.parametrize("value,dtype,want_bits", [
    (0.1, "f32", 0x3DCCCCCD), (1 / 3, "f32", 0x3EAAAAAB), (3.4028234663852886e38, "f32", 0x7F7FFFFF),
    (3.4028235677973366e38, "f32", 0x7F800000),
    (1e-45, "f32", 0x00000001), (-0.0, "f32", 0x80000000),
    (0.1, "f16", 0x2E66), (65519.99, "f16", 0x7BFF), (6e-8, "f16", 0x0001), (2049.0, "f16", 0x6800),
    (2051.0, "f16", 0x6802),
    (1.00390625, "bf16", 0x3F80), (1.01171875, "bf16", 0x3F82), (1 + 2**-8 + 2**-40, "bf16", 0x3F81),
    (-(1 + 2**-8 + 2**-30), "bf16", 0xBF81),
    (16777217, "f32", 0x4B800000), (16777219, "f32", 0x4B800002), (2049, "f16", 0x6800), (257, "bf16", 0x4380),
    (np.float32(1 + 2**-10 + 2**-20), "f16", 0x3C01), (np.float16(0.5), "f32", 0x3F000000),
    (ml_dtypes.bfloat16(1.5), "f16", 0x3E00), (np.int16(-2), "f32", 0xC0000000),
])
def test_float_conversions_round_once_to_nearest_even(value, dtype, want_bits):
    out = conv(value, dtype)
    assert out.dtype == as_dtype(dtype).np and bits_of(out) == want_bits


@pytest.mark.parametrize("value", [
    np.uint32(0x7FC01234).view(np.float32), np.uint32(0xFF800001).view(np.float32),
    np.uint16(0xFE01).view(np.float16), np.uint16(0x7FC5).view(ml_dtypes.bfloat16),
    np.uint32(0x80000000).view(np.float32),
])
def test_exact_numpy_scalar_passes_bit_exact(value):
    out = conv(value, value.dtype)
    assert bits_of(out) == bits_of(value)


@pytest.mark.parametrize("value", ["abc", None, [1], complex(1, 2), object()])
def test_non_numbers_refused(value):
    with pytest.raises(IllegalInstructionError, match=f"scalar must be a number \\(got {type(value).__name__}\\)"):
        conv(value, "f32")


@pytest.mark.parametrize("value,dtype,want", [
    (2**60 + 2**36 + 1, "f32", 2**60 + 2**37),
    (2**60 + 2**52 + 1, "bf16", 2**60 + 2**53),
    (-(2**62 + 2**38 + 1), "f32", -(2**62 + 2**39)),
])
def test_large_integer_to_float_rounds_once(value, dtype, want):
    assert int(float(conv(value, dtype))) == want


def exact_round(value: Fraction, mant_bits: int, min_exp: int) -> Fraction:
    """Round a rational to nearest-even with `mant_bits` significant bits and minimum exponent `min_exp`."""
    if value == 0:
        return Fraction(0)
    sign = -1 if value < 0 else 1
    v = abs(value)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    e = max(e, min_exp)
    ulp = Fraction(2) ** (e - mant_bits + 1)
    q, r = divmod(v, ulp)
    if r > ulp / 2 or (r == ulp / 2 and q % 2 == 1):
        q += 1
    return sign * q * ulp


FORMATS = {"f32": (24, -126, np.float32), "f16": (11, -14, np.float16), "bf16": (8, -126, ml_dtypes.bfloat16)}


@settings(max_examples=300, deadline=None)
@given(dtype=st.sampled_from(sorted(FORMATS)), value=st.floats(-1e4, 1e4, allow_nan=False, allow_subnormal=True))
def test_property_double_rounds_once(dtype, value):
    """A Python float (a double) rounds once, to nearest even, into every float element type (exact rationals)."""
    mant, min_exp, np_t = FORMATS[dtype]
    want = exact_round(Fraction(value), mant, min_exp)
    out = conv(value, dtype)
    assert Fraction(float(out)) == want


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(["i8", "u8", "i16", "u16", "i32", "u32"]), value=st.integers(-(2**70), 2**70))
def test_property_int_wraps_modulo(dtype, value):
    d = as_dtype(dtype)
    want = value % (1 << d.bits)
    if d.is_signed and want >= 1 << (d.bits - 1):
        want -= 1 << d.bits
    assert int(conv(value, dtype)) == want


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(["i8", "u8", "i16", "u16", "i32", "u32"]),
       value=st.floats(-5e9, 5e9, allow_nan=False))
def test_property_float_to_int(dtype, value):
    d = as_dtype(dtype)
    info = np.iinfo(d.np)
    t = int(value)   # Python truncates toward zero like C++
    if info.min <= t <= info.max:
        assert int(conv(value, dtype)) == t
    else:
        with pytest.raises(IllegalInstructionError):
            conv(value, dtype)


def test_conversion_through_an_instruction():
    dst = Tile[TileType.Vec, ptoisa.int8_t, 1, 32]()
    TEXPANDS(dst, 1000, target="cpu")    # int8_t(1000) == -24
    assert dst.storage.tolist() == [-24] * 32
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match="TEXPANDS on cpu: scalar value 1000.0 does not convert"):
        TEXPANDS(dst, 1000.0, target="cpu")
    assert dst.tobytes() == before
