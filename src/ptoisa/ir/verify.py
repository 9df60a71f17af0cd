"""Helpers shared by the op verifiers: operand kinds and the PTOAS common tile checks (the target an op is
verified for comes from `legality.config_of`)."""

from __future__ import annotations

from typing import Literal

from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType, Signedness
from xdsl.ir import Attribute
from xdsl.utils.hints import isa

from ptoisa.tile.enums import DYNAMIC, BLayout, TileType

from .types import TileBufType, _TileTypeBase

Arch = Literal["a2a3", "a5"]
A5_DEVICE_PREFIX = "Ascend950"


def is_memref(t: Attribute) -> bool:
    return isinstance(t, MemRefType)


def is_tile_like(t: Attribute) -> bool:
    """What PTOAS calls tile-like: a tile_buf, or (April files) a memref."""
    return isinstance(t, TileBufType | MemRefType)


def is_integer(t: Attribute) -> bool:
    """MLIR `isInteger()`: any signedness (`ui16` counts as i16)."""
    return isinstance(t, IntegerType)


def is_scalar(t: Attribute) -> bool:
    """ODS `ScalarType`: signless integer or float (`ui32` and `index` are not scalars)."""
    signless = isinstance(t, IntegerType) and t.signedness.data is Signedness.SIGNLESS
    return signless or isa(t, AnyFloat)


def bit_width(t: Attribute) -> int | None:
    """Element width in bits, or None for types without one."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isa(t, AnyFloat):
        return t.bitwidth
    return None


def byte_size(t: Attribute) -> int | None:
    bits = bit_width(t)
    return None if bits is None else max(bits // 8, 1)


def is_vec(t: _TileTypeBase) -> bool:
    return t.loc.data is TileType.Vec


def is_row_major(t: _TileTypeBase) -> bool:
    return t.blayout.data is BLayout.RowMajor


def valid_exceeds(t: _TileTypeBase) -> int | None:
    """The first dimension whose static valid size exceeds the shape, or None."""
    for i, (valid, size) in enumerate(zip(t.valid_shape, t.shape, strict=True)):
        if valid != DYNAMIC and valid > size:
            return i
    return None


def static_le(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """a <= b in both dimensions, where a dynamic size on either side is not compared."""
    return all(x == DYNAMIC or y == DYNAMIC or x <= y for x, y in zip(a, b, strict=True))


def static_eq(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return all(x == DYNAMIC or y == DYNAMIC or x == y for x, y in zip(a, b, strict=True))
