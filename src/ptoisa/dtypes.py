"""Element types of PTO tiles: one table row per dtype, consumed everywhere.

Every dtype knows its NumPy/ml_dtypes storage type, its C++ spelling (for messages that read like the reference
headers), its MLIR spelling (for the text forms) and the aliases a user may write (`float`, `"half"`, `np.int16`,
`ml_dtypes.bfloat16`, `"int32_t"`, ...). Low-precision floats are real ml_dtypes types, never emulated.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import ml_dtypes
import numpy as np

from ._shown import shown
from .errors import TileSpecError


class DType(StrEnum):
    """The element types ptoisa models. Values are the short names used by the conformance vectors."""

    I8 = "i8"
    U8 = "u8"
    I16 = "i16"
    U16 = "u16"
    I32 = "i32"
    U32 = "u32"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    F8E4M3 = "f8e4m3"
    F8E5M2 = "f8e5m2"
    HIF8 = "hif8"
    F8E8M0 = "f8e8m0"

    # Per-member attributes, set from the table below once the table exists (plain attributes, not properties:
    # they are read on every instruction call).
    info: DTypeInfo
    np: np.dtype
    itemsize: int
    bits: int
    is_float: bool
    is_signed: bool
    cname: str  # the name used in messages (`int8`, `half`, `float`, ...), as the seed pages spell types
    mlir: str


@dataclass(frozen=True)
class DTypeInfo:
    """Attributes:
    np: the storage dtype (NumPy or ml_dtypes).
    is_float / is_signed: arithmetic class.
    cname: short C++-like name used in messages.
    cpp: the reference's C++ type name.
    mlir: the MLIR element type spelling.
    """

    np: np.dtype
    is_float: bool
    is_signed: bool
    cname: str
    cpp: str
    mlir: str


_INFO: dict[DType, DTypeInfo] = {
    DType.I8: DTypeInfo(np.dtype(np.int8), False, True, "int8", "int8_t", "i8"),
    DType.U8: DTypeInfo(np.dtype(np.uint8), False, False, "uint8", "uint8_t", "ui8"),
    DType.I16: DTypeInfo(np.dtype(np.int16), False, True, "int16", "int16_t", "i16"),
    DType.U16: DTypeInfo(np.dtype(np.uint16), False, False, "uint16", "uint16_t", "ui16"),
    DType.I32: DTypeInfo(np.dtype(np.int32), False, True, "int32", "int32_t", "i32"),
    DType.U32: DTypeInfo(np.dtype(np.uint32), False, False, "uint32", "uint32_t", "ui32"),
    DType.F16: DTypeInfo(np.dtype(np.float16), True, True, "half", "half", "f16"),
    DType.BF16: DTypeInfo(np.dtype(ml_dtypes.bfloat16), True, True, "bfloat16", "bfloat16_t", "bf16"),
    DType.F32: DTypeInfo(np.dtype(np.float32), True, True, "float", "float", "f32"),
    DType.F8E4M3: DTypeInfo(
        np.dtype(ml_dtypes.float8_e4m3fn), True, True, "float8_e4m3", "float8_e4m3_t", "f8E4M3FN"
    ),
    DType.F8E5M2: DTypeInfo(np.dtype(ml_dtypes.float8_e5m2), True, True, "float8_e5m2", "float8_e5m2_t", "f8E5M2"),
    # No NumPy type holds HiFloat8: its bytes live as 1-byte voids (they move unchanged; ptoisa.hifloat8 converts).
    DType.HIF8: DTypeInfo(np.dtype("V1"), True, True, "hifloat8", "hifloat8_t", "!pto.hif8"),
    # The MX scale type: an exponent byte e meaning 2**(e - 127) (OCP MX E8M0; 0xFF is NaN in ml_dtypes and the
    # OCP format, 2**128 in the CPU simulator's MXType: the MX kernels decode the bytes per target).
    DType.F8E8M0: DTypeInfo(
        np.dtype(ml_dtypes.float8_e8m0fnu), True, False, "float8_e8m0", "float8_e8m0_t", "f8E8M0FNU"
    ),
}

# The standard nine: every target has them; fp8 exists only where a table names it.
STANDARD_DTYPES: tuple[DType, ...] = (
    DType.I8, DType.U8, DType.I16, DType.U16, DType.I32, DType.U32, DType.F16, DType.BF16, DType.F32,
)
ALL_DTYPES: tuple[DType, ...] = tuple(DType)

_ALIASES: dict[Any, DType] = {}


def _register_aliases() -> None:
    for dt, info in _INFO.items():
        for alias in {dt.value, dt.name.lower(), info.cname, info.cpp, info.mlir, str(info.np)}:
            _ALIASES[alias] = dt
        _ALIASES[info.np] = dt
        _ALIASES[info.np.type] = dt
    _ALIASES.update({
        float: DType.F32, "float32": DType.F32, "float16": DType.F16, "fp16": DType.F16, "fp32": DType.F32,
        "bfloat16": DType.BF16, "int": DType.I32, "short": DType.I16, "unsigned": DType.U32,
        "float8_e4m3fn": DType.F8E4M3, "float8_e5m2": DType.F8E5M2, "f8E4M3FN": DType.F8E4M3,
        "f8E4M3": DType.F8E4M3,  # MLIR's IEEE-style E4M3: PTOAS lowers it to float8_e4m3_t like f8E4M3FN (PTOToEmitC)
        "f8e4m3fn": DType.F8E4M3, "f8E5M2": DType.F8E5M2, "si8": DType.I8, "si16": DType.I16,
        "si32": DType.I32, "hifloat8": DType.HIF8, "hif8": DType.HIF8,
        # MLIR's IEEE-style f8E4M3 (PTOAS takes it for A5's fp8 as it takes f8E4M3FN): the same C++ float8_e4m3_t
        "f8E4M3": DType.F8E4M3, "f8e4m3": DType.F8E4M3,
        "float8_e8m0fnu": DType.F8E8M0, "f8E8M0FNU": DType.F8E8M0, "f8e8m0fnu": DType.F8E8M0, "e8m0": DType.F8E8M0,
    })


_register_aliases()


def _attach_attributes() -> None:
    for dt, info in _INFO.items():
        for name, value in (("info", info), ("np", info.np), ("itemsize", info.np.itemsize),
                            ("bits", info.np.itemsize * 8), ("is_float", info.is_float),
                            ("is_signed", info.is_signed), ("cname", info.cname), ("mlir", info.mlir)):
            object.__setattr__(dt, name, value)


_attach_attributes()


def as_dtype(value: Any) -> DType:
    """Coerce a user spelling of an element type into a `DType`.

    Accepts `DType` members, their short names (`"f32"`), C++ names (`"float"`, `"int32_t"`, `"half"`), MLIR
    names (`"ui8"`, `"bf16"`), NumPy / ml_dtypes dtypes and scalar types, and Python's `float` (= f32).
    """
    if isinstance(value, DType):
        return value
    try:
        return _ALIASES[value]
    except (KeyError, TypeError):
        pass
    try:
        dtype = np.dtype(value)
        if isinstance(value, str) and dtype.name != value:
            raise KeyError(value)  # a NumPy type code ("i1", "i4", "f2") is not an MLIR/C++ name: i1 is one bit
        return _ALIASES[dtype]
    except (KeyError, TypeError, ValueError, SyntaxError, RecursionError):  # np.dtype parses any text it gets
        known = ", ".join(d.value for d in DType)
        hint = " (Python's int has no fixed width: write int32_t, int16_t, ...)" if value is int else ""
        raise TileSpecError(f"unknown element type {shown(value)}{hint} (known: {known})") from None


def dtype_of_numpy(dtype: np.dtype) -> DType | None:
    """The DType stored as `dtype`, or None."""
    return _ALIASES.get(np.dtype(dtype))


def names(dtypes: tuple[DType, ...] | frozenset[DType]) -> str:
    """`int32, float, half` in the order given (sets are listed in table order)."""
    if isinstance(dtypes, frozenset):
        dtypes = tuple(d for d in DType if d in dtypes)
    return ", ".join(d.cname for d in dtypes)


# C++-style names, so that examples read like the seed pages: Tile[TileType.Vec, float, 16, 16].
int8_t = DType.I8
uint8_t = DType.U8
int16_t = DType.I16
uint16_t = DType.U16
int32_t = DType.I32
uint32_t = DType.U32
half = DType.F16
bfloat16_t = DType.BF16
float32_t = DType.F32
float8_e4m3_t = DType.F8E4M3
float8_e5m2_t = DType.F8E5M2
float8_e8m0_t = DType.F8E8M0
