"""Conversions between IR attributes and the core's values: one mapping each way.

`tile_spec_of` is the hook the target-legality wiring uses: it turns a tile type into the core's `TileSpec`
(whose constructor applies the reference's static rules and raises `TileSpecError`).
"""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Attribute
from xdsl.parser import Parser

from ptoisa.dtypes import DType, as_dtype
from ptoisa.tile.enums import CompactMode, PadValue
from ptoisa.tile.spec import TileSpec

from .abstract_ops import type_text
from .types import HiFloat8Type, TileBufType, _TileTypeBase


def dtype_of_type(t: Attribute) -> DType:
    """The core DType of an MLIR element type (`f32` -> F32, `ui8` -> U8); TileSpecError if it has none."""
    return as_dtype(type_text(t))


@cache
def type_of_dtype(dtype: DType) -> Attribute:
    """The MLIR element type of a core DType, parsed from the DType's own `.mlir` spelling."""
    if dtype is DType.HIF8:
        return HiFloat8Type()
    ctx = Context()
    ctx.load_dialect(Builtin)
    return Parser(ctx, dtype.mlir).parse_type()


def tile_spec_of(t: _TileTypeBase) -> TileSpec:
    """The core TileSpec of a `!pto.tile_buf` (or `!pto.tile`) type; dynamic valid sizes stay -1."""
    return TileSpec(
        loc=t.loc.data, dtype=dtype_of_type(t.element_type), rows=t.rows.data, cols=t.cols.data,
        blayout=t.blayout.data, valid_row=t.valid_row.data, valid_col=t.valid_col.data, slayout=t.slayout.data,
        fractal_size=t.fractal.data, pad=PadValue(t.pad.data), compact=CompactMode(t.compact.data),
    )


def tile_buf_type_of(spec: TileSpec) -> TileBufType:
    """The `!pto.tile_buf` type of a core TileSpec."""
    return TileBufType.build(
        spec.loc, type_of_dtype(spec.dtype), spec.rows, spec.cols, valid=(spec.valid_row, spec.valid_col),
        blayout=spec.blayout, slayout=spec.slayout, fractal=spec.fractal_size, pad=int(spec.pad),
        compact=int(spec.compact),
    )
