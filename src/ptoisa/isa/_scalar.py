"""Scalar operands: conversion of Python and NumPy numbers to a tile's element type, as C++ would convert."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from .._quiet import quiet
from .._shown import shown
from ..dtypes import DType
from ..errors import NarrowingWarning
from ..hifloat8 import from_float
from ._check import Check, _user_stacklevel


class _Bits:
    """The type of an unsigned operand that is a bit pattern, not a tile element: TINSERT's and TMOV's `uint64_t
    preQuantScalar`, TRANDOM's `uint32_t` key and counter words. An integer kept as a Python int in [0, 2**bits);
    a negative one (an `i32`/`i64` of the text forms) wraps as C++'s conversion to the unsigned type does."""

    is_float = False

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.itemsize = bits // 8
        self.cname = self.cpp = f"uint{bits}_t"
        self.mlir = f"i{bits}"

    def __repr__(self) -> str:
        return f"UINT{self.bits}"


UINT64: Any = _Bits(64)
WORD32: Any = _Bits(32)


def _bits(value: Any, dtype: _Bits, check: Check, operand: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        check.fail(operand, f"must be an integer (a {dtype.cname} bit pattern; got {type(value).__name__})")
    number = int(value)
    if not -2**(dtype.bits - 1) <= number < 2**dtype.bits:
        check.fail(operand, f"{shown(number)} does not fit in {dtype.bits} bits")
    return number % 2**dtype.bits


def to_element(value: Any, dtype: DType, check: Check, operand: str) -> np.generic:
    """Convert `value` to `dtype` exactly as an implicit C++ conversion would, or refuse.

    NumPy scalars of the same dtype pass unchanged (bit-exact, NaN payloads included). Integers wrap modulo
    2**bits (C++ narrowing); floats convert to float types with round-to-nearest-even and to integer types by
    truncation when the truncated value fits (otherwise the C++ conversion is undefined, so it is refused).
    """
    if isinstance(dtype, _Bits):
        return _bits(value, dtype, check, operand)  # type: ignore[return-value]
    np_dtype = dtype.np
    kind = type(value)
    if kind is float and dtype.is_float:
        if abs(value) <= _SAFE_MAGNITUDE[dtype]:
            return _round_double_quiet(value, dtype)
        result = _round_double(value, dtype)
        if _overflowed(value, result):
            _narrowing(check, operand, value, result, dtype)
        return result
    if kind is int and not dtype.is_float and _INT_RANGE[dtype][0] <= value <= _INT_RANGE[dtype][1]:
        return np_dtype.type(value)
    if isinstance(value, np.generic) and value.dtype == np_dtype:
        return value
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, (np.integer, int)):
        result = _from_int(int(value), dtype)
        if not _same_number(int(value), result):
            _narrowing(check, operand, value, result, dtype)
        return result
    if isinstance(value, (np.floating, float)):
        as_float = float(value)
    elif value is not (element := element_of(value)):
        return to_element(element, dtype, check, operand)
    elif isinstance(value, numbers.Integral):  # another integer type (its value, as an int)
        return to_element(int(value), dtype, check, operand)
    else:
        as_float, past_double = _other_number(value, check, operand)
        if past_double and not dtype.is_float:
            check.fail(operand, f"value {shown(value)} does not convert to {dtype.cname} (C++ leaves that undefined)")
        if past_double:  # (a finite value whose double is infinite: it overflowed the type)
            result = _round_double(as_float, dtype)
            _narrowing(check, operand, value, result, dtype)
            return result
    result = _from_float(as_float, dtype, check, operand)
    if not dtype.is_float and result != as_float or dtype.is_float and _overflowed(as_float, result):
        _narrowing(check, operand, value, result, dtype)
    return result


def element_of(value: Any) -> Any:
    """A 0-d NumPy array of numbers stands for its element (a NumPy scalar of its type, as NumPy's ufuncs take it);
    any other value is itself."""
    if type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "biuf":
        return value[()]
    return value


def _other_number(value: Any, check: Check, operand: str) -> tuple[float, bool]:
    """A number of no NumPy or Python float type as the double float() gives, and whether that double is an
    infinity the number is not (past double's range: a Decimal's float() gives the infinity, a Fraction's raised
    OverflowError): ml_dtypes scalars (bfloat16, fp8) and 0-d arrays of their types, Fraction, Decimal. Text,
    complex numbers, masked values (NumPy's `masked` would read as NaN), arrays of other kinds or shapes and
    what float() does not take are refused."""
    if isinstance(value, (str, bytes, complex, np.complexfloating, np.ma.MaskedArray)) or isinstance(
            value, np.ndarray) and (type(value) is not np.ndarray or value.ndim or value.dtype.kind != "V"):
        check.fail(operand, f"must be a number (got {type(value).__name__})")
    try:
        as_float = float(value)
    except OverflowError:
        return (math.inf if value > 0 else -math.inf), True
    except (TypeError, ValueError):
        check.fail(operand, f"must be a number (got {type(value).__name__})")
    finite = getattr(value, "is_finite", None)  # (Decimal)
    return as_float, math.isinf(as_float) and callable(finite) and bool(finite())


def quiet_element(value: Any, dtype: DType) -> Any:
    """`to_element(value, dtype, ...)` where that conversion certainly neither warns nor refuses (a float within
    a float type's finite range, an int within an integer type's range, a NumPy scalar of the type); else None.
    For callers that convert a value once instead of once per call (a batched loop's loop-invariant scalar): a
    conversion that may warn must be left to each call."""
    if isinstance(dtype, _Bits):
        return None
    kind = type(value)
    if kind is float and dtype.is_float and abs(value) <= _SAFE_MAGNITUDE[dtype]:  # type: ignore[index]
        return _round_double_quiet(value, dtype)
    if kind is int and not dtype.is_float and _INT_RANGE[dtype][0] <= value <= _INT_RANGE[dtype][1]:
        return dtype.np.type(value)
    if isinstance(value, np.generic) and value.dtype == dtype.np:
        return value
    return None


def _same_number(value: int, result: np.generic) -> bool:
    """Whether an integer kept its value (a float type may round it, but must not overflow it)."""
    if isinstance(result, np.integer):
        return int(result) == value
    return math.isfinite(float(result))


def _overflowed(value: float, result: np.generic) -> bool:
    return math.isfinite(value) and not math.isfinite(float(result))


def _shown(result: np.generic) -> str:
    return repr(result.item()) if result.dtype.kind in "iuf" else str(result)


def _narrowing(check: Check, operand: str, value: Any, result: np.generic, dtype: DType) -> None:
    warnings.warn(NarrowingWarning(
        f"{check.instr} on {check.target}: {operand} {shown(value)} becomes {_shown(result)} as {dtype.cname} (the implicit "
        "conversion C++ would make; pass a value of the element type to silence this)"), stacklevel=_user_stacklevel())


_SAFE_MAGNITUDE = {d: float(ml_dtypes.finfo(d.np).max) for d in DType if d.is_float and d is not DType.HIF8}
_SAFE_MAGNITUDE[DType.HIF8] = 0.0  # converted by table (ptoisa.hifloat8), never by a float cast
_INT_RANGE = {d: (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)) for d in DType if not d.is_float}


def _from_int(value: int, dtype: DType) -> np.generic:
    if dtype.is_float:
        return _round_double(_int_to_double_odd(value), dtype)
    bits = dtype.bits
    wrapped = value % (1 << bits)
    if dtype.is_signed and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return np.array(wrapped, dtype=dtype.np)[()]


def _int_to_double_odd(value: int) -> float:
    """The integer as a double, rounded to odd when inexact, so that one more rounding is still exact (C++
    converts an integer to float in one step)."""
    if abs(value) < 1 << 53:
        return float(value)
    magnitude = abs(value)
    shift = magnitude.bit_length() - 53
    mantissa = magnitude >> shift
    if mantissa << shift != magnitude:
        mantissa |= 1
    result = math.ldexp(float(mantissa), shift) if magnitude.bit_length() <= 1024 else math.inf  # (past: > max)
    return -result if value < 0 else result


def _round_double(value: float, dtype: DType) -> np.generic:
    """Round a double once into a float type (C++ semantics), also for types that ml_dtypes reaches via float32."""
    if abs(value) <= _SAFE_MAGNITUDE[dtype]:  # no overflow possible: skip the costly errstate
        return _round_double_quiet(value, dtype)
    with quiet():  # overflow to inf is the correctly rounded result
        return _round_double_quiet(value, dtype)


def _round_double_quiet(value: float, dtype: DType) -> np.generic:
    if dtype is DType.HIF8:  # the reference's nearest-value table search
        return from_float(value).view(dtype.np)[()]
    if dtype in (DType.F32, DType.F16):
        return dtype.np.type(value)  # NumPy rounds doubles to these directly
    narrow = np.float32(value)
    if math.isfinite(value) and float(narrow) != value:
        # Round to odd into float32 (truncate, then set the sticky bit) so that the second rounding is exact.
        if abs(float(narrow)) > abs(value):
            narrow = np.nextafter(narrow, np.float32(0.0))
        narrow = np.array(narrow).view(np.uint32) | np.uint32(1)
        narrow = narrow.view(np.float32)[()]
    return dtype.np.type(narrow)


def _from_float(value: float, dtype: DType, check: Check, operand: str) -> np.generic:
    if dtype.is_float:
        return _round_double(value, dtype)
    info = np.iinfo(dtype.np)
    if math.isnan(value) or math.isinf(value) or not info.min <= math.trunc(value) <= info.max:
        check.fail(operand, f"value {shown(value)} does not convert to {dtype.cname} (C++ leaves that undefined)")
    return np.array(math.trunc(value), dtype=dtype.np)[()]


def weak_range(dtype: DType) -> tuple[type, Any, Any]:
    """(type, low, high): the Python numbers that a kernel may hand to NumPy as they are, for NumPy to convert
    to `dtype` (NEP 50's "weak" scalars). NumPy's conversion of these is `to_element`'s, with no warning and no
    error: floats within float32's (float16's) finite range round once to the type, as `to_element` rounds them;
    ints within an integer type's range keep their value. Every other number (NaN, infinities, values that
    overflow or wrap, NumPy scalars, other element types) goes through `to_element`. A compiled call decides
    this once per element type and per call only tests `type(value) is kind and low <= value <= high`."""
    if dtype in (DType.F32, DType.F16):
        return float, -_SAFE_MAGNITUDE[dtype], _SAFE_MAGNITUDE[dtype]
    if not isinstance(dtype, _Bits) and not dtype.is_float:
        return (int, *_INT_RANGE[dtype])
    return float, 1.0, 0.0  # an empty range: always `to_element`
