"""Scalar operands: conversion of Python and NumPy numbers to a tile's element type, as C++ would convert."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import DType
from ._check import Check


def to_element(value: Any, dtype: DType, check: Check, operand: str) -> np.generic:
    """Convert `value` to `dtype` exactly as an implicit C++ conversion would, or refuse.

    NumPy scalars of the same dtype pass unchanged (bit-exact, NaN payloads included). Integers wrap modulo
    2**bits (C++ narrowing); floats convert to float types with round-to-nearest-even and to integer types by
    truncation when the truncated value fits (otherwise the C++ conversion is undefined, so it is refused).
    """
    np_dtype = dtype.np
    if isinstance(value, np.generic) and value.dtype == np_dtype:
        return value
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, (np.integer, int)):
        return _from_int(int(value), dtype)
    if isinstance(value, (np.floating, float)):
        return _from_float(float(value), dtype, check, operand)
    try:  # ml_dtypes scalars (bfloat16, fp8) are np.generic with their own kinds
        as_float = float(value)
    except (TypeError, ValueError):
        check.fail(operand, f"must be a number (got {type(value).__name__})")
    return _from_float(as_float, dtype, check, operand)


def _from_int(value: int, dtype: DType) -> np.generic:
    if dtype.is_float:
        return np.array(float(value)).astype(dtype.np)[()]
    bits = dtype.bits
    wrapped = value % (1 << bits)
    if dtype.is_signed and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return np.array(wrapped, dtype=dtype.np)[()]


def _from_float(value: float, dtype: DType, check: Check, operand: str) -> np.generic:
    if dtype.is_float:
        return np.array(value, dtype=np.float64).astype(dtype.np)[()]
    info = np.iinfo(dtype.np)
    if math.isnan(value) or math.isinf(value) or not info.min <= math.trunc(value) <= info.max:
        check.fail(operand, f"value {value!r} does not convert to {dtype.cname} (C++ leaves that undefined)")
    return np.array(math.trunc(value), dtype=dtype.np)[()]
