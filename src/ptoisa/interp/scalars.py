"""Scalar values at run time: how each MLIR scalar type is held in a register and how values are normalised.

* Integers are Python ints: signless `iN` and `siN` as signed two's complement in [-2^(N-1), 2^(N-1)), `uiN` as
  unsigned in [0, 2^N), `i1` as 0 or 1, `index` as a signed 64-bit integer.
* Floats are Python floats holding a value exactly representable in the type (f16, bf16, f32 and fp8 values
  are rounded to nearest-even after every operation; f64 is a Python float).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, Signedness
from xdsl.ir import Attribute
from xdsl.utils.hints import isa

from ..dtypes import DType
from ..isa._check import Check
from ..isa._scalar import to_element

_PACK_F = struct.Struct("<f")
_FLOAT_DTYPES = {"f16": DType.F16, "bf16": DType.BF16, "f32": DType.F32, "f8E4M3FN": DType.F8E4M3,
                 "f8E5M2": DType.F8E5M2}


@dataclass(frozen=True)
class ScalarKind:
    """How one MLIR scalar type lives in a register.

    Attributes:
        name: the MLIR spelling (`i32`, `ui8`, `index`, `f32`).
        is_float: float or integer.
        width: bits.
        signed: integers: signed (signless and siN) or unsigned (uiN, i1).
        norm: value -> the canonical register value of this type (wraps integers, rounds floats).
    """

    name: str
    is_float: bool
    width: int
    signed: bool
    norm: Callable[[Any], Any]

    def unsigned(self, value: int) -> int:
        return value & ((1 << self.width) - 1)

    def signed_value(self, value: int) -> int:
        half = 1 << (self.width - 1)
        return ((value + half) & ((1 << self.width) - 1)) - half


def wrap_signed(width: int) -> Callable[[int], int]:
    mask, half = (1 << width) - 1, 1 << (width - 1)
    return lambda v: ((v + half) & mask) - half


def wrap_unsigned(width: int) -> Callable[[int], int]:
    mask = (1 << width) - 1
    return lambda v: v & mask


def round_f32(x: float) -> float:
    """Round a double to the nearest float32 (ties to even), as a Python float."""
    try:
        return _PACK_F.unpack(_PACK_F.pack(x))[0]
    except OverflowError:  # the correctly rounded result of a finite value past the float range is +-inf
        return math.copysign(math.inf, x)


def _rounder(dtype: DType) -> Callable[[Any], float]:
    check = Check("arith", "interp")
    return lambda x: float(to_element(x if type(x) is int else float(x), dtype, check, "value"))


def kind_of(t: Attribute) -> ScalarKind | None:
    """The ScalarKind of an MLIR type, or None for non-scalar types."""
    if isinstance(t, IndexType):
        return ScalarKind("index", False, 64, True, wrap_signed(64))
    if isinstance(t, IntegerType):
        width = t.width.data
        sign = t.signedness.data
        prefix = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}[sign]
        signed = sign is not Signedness.UNSIGNED and width > 1
        return ScalarKind(f"{prefix}{width}", False, width, signed,
                          wrap_signed(width) if signed else wrap_unsigned(width))
    if isa(t, AnyFloat):
        name = _float_name(t)
        if name == "f64":
            return ScalarKind(name, True, 64, True, float)
        if name == "f32":
            return ScalarKind(name, True, 32, True, round_f32)
        if name in _FLOAT_DTYPES:
            return ScalarKind(name, True, t.bitwidth, True, _rounder(_FLOAT_DTYPES[name]))
    return None


def _float_name(t: Attribute) -> str:
    from ..ir.abstract_ops import type_text

    return type_text(t)


def from_python(kind: ScalarKind, value: Any, what: str) -> Any:
    """A user-supplied Python/NumPy number as a register value of `kind`; ValueError when it does not fit."""
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if kind.is_float:
        if isinstance(value, (int, float, np.integer, np.floating)):
            # (an integer rounds once, as C++'s conversion does: not to a double first)
            return kind.norm(float(value)) if not isinstance(value, (int, np.integer)) else \
                int_to_float(kind, int(value))
        raise ValueError(f"{what} must be a number for type {kind.name} (got {type(value).__name__})")
    if isinstance(value, (np.floating, float)):
        if not float(value).is_integer():
            raise ValueError(f"{what} must be an integer for type {kind.name} (got {value!r})")
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer for type {kind.name} (got {type(value).__name__})")  # noqa: TRY004 - callers turn ValueError into ArgumentError
    value = int(value)
    low = -(1 << (kind.width - 1)) if kind.signed else 0
    high = (1 << (kind.width - (1 if kind.signed else 0))) - 1
    if kind.name.startswith("i") and kind.width > 1:
        high = (1 << kind.width) - 1  # signless: accept the unsigned spelling too (0xFFFFFFFF for i32)
    if not low <= value <= high:
        raise ValueError(f"{what} = {value} does not fit {kind.name} (range [{low}, {high}])")
    return kind.norm(value)


def int_to_float(kind: ScalarKind, value: int) -> float:
    """Convert an integer to the float type in one rounding (as C++ and LLVM do)."""
    if kind.name == "f64":
        try:
            return float(value)  # (Python rounds an int to the nearest double)
        except OverflowError:  # (past double's range: a Python int no C++ integer holds)
            return math.inf if value > 0 else -math.inf
    # (to_element rounds an int once, to odd through a double, and warns when it overflows the type)
    return kind.norm(value) if abs(value) < (1 << 53) else _rounder(_FLOAT_DTYPES[kind.name])(value)
