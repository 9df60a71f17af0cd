"""Integer quantisation: TQUANT (the INT8 forms) and TDEQUANT.

    TQUANT(dst, src, fp, [offset], quantType)  INT8_SYM:  dst[i, j] = clamp(rint(src[i, j] * fp[i, 0]), -128, 127)
                                               INT8_ASYM: dst[i, j] = clamp(rint(src[i, j] * fp[i, 0]
                                                                                 + offset[i, 0]), 0, 255)
    TDEQUANT(dst, src, scale, offset)          dst[i, j] = (dst_t(src[i, j]) - dst_t(offset[i, c])) * dst_t(scale[i, c])

In float, rounding to nearest even (`std::nearbyint`); a parameter row past the parameter tile's valid rows reads
its last valid row (TQUANT), TDEQUANT's column c is min(j, scale's valid columns - 1). From
include/pto/cpu/TQuant.hpp (TQUANT_IMPL) and TDeQuant.hpp; the MX forms of TQUANT are not modelled.

    >>> from ptoisa import *
    >>> x = Tile[TileType.Vec, float, 1, 8]()
    >>> x.set_logical([[1.0, 2.5, -3.5, 400.0, -400.0, 0.5, 1.5, 0.0]])
    >>> s = Tile[TileType.Vec, float, 1, 8]()
    >>> s.set_logical([[1.0] + [0.0] * 7])
    >>> q = Tile[TileType.Vec, int8_t, 1, 32]()
    >>> _ = TQUANT(q, x, s, None, QuantType.INT8_SYM, target="cpu"); q.data[0, :8].tolist()
    [1, 2, -4, 127, -128, 0, 2, 0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ...enums import QuantType
from ...tile.layout import region
from .._check import Check
from ..record import TARGETS, Attr, Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import valid_of, write
from ._prequant import _to_int


def _tquant_static(check: Check, config: Any, specs: Mapping[str, Any], attrs: Mapping[str, Any], form: int) -> None:
    kind = attrs["quantType"]
    want = D.I8 if kind is QuantType.INT8_SYM else D.U8
    if specs["dst"].dtype is not want:
        check.fail("dst", f"dtype {specs['dst'].dtype.cname} must be {want.cname} for {kind.name}")
    if kind is QuantType.INT8_ASYM and "offset" not in specs:
        check.fail("offset", "is required by INT8_ASYM")
    if kind is QuantType.INT8_SYM and "offset" in specs:
        check.fail("offset", "must be absent for INT8_SYM")


def _tquant_text(types: Mapping[str, str], attrs: Mapping[str, Any]) -> str | None:
    """PTOAS TQuantOp's checks (they hold for memref operands too)."""
    kind = attrs["quantType"]
    if kind is QuantType.INT8_ASYM and "offset" not in types:
        return "INT8_ASYM quantization requires an offset operand"
    if kind is QuantType.INT8_SYM and "offset" in types:
        return "INT8_SYM quantization must not have an offset operand"
    want = "i8" if kind is QuantType.INT8_SYM else "ui8"
    if types.get("dst") not in (want, "si8" if want == "i8" else want):
        return f"expects dst element type {want} for {kind.name} quantization"
    return None


def _param_column(tile: Any, rows: int) -> np.ndarray:
    """Column 0 of a parameter tile for rows 0 .. rows - 1, a row past its valid rows reading its last one."""
    vr = max(tile.valid_row, 1)
    column = np.array(region(tile, vr, 1))[:, 0]
    return column[np.minimum(np.arange(rows), vr - 1)].astype(np.float32)


def _tquant(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    source = tiles["src"]
    rows, cols = source.valid_shape
    if rows == 0 or cols == 0:
        return
    if tiles["fp"].valid_row == 0 or tiles["fp"].valid_col == 0 or \
            "offset" in tiles and (tiles["offset"].valid_row == 0 or tiles["offset"].valid_col == 0):
        Check(plan.record.name, plan.config.name).fail("fp", "a parameter tile with an empty valid region")
    out = tiles["dst"].spec
    if out.rows < rows or out.cols < cols:  # the results of src's whole valid region land in dst
        Check(plan.record.name, plan.config.name).fail(
            "dst", f"{out.rows}x{out.cols} cannot hold src's valid region {rows}x{cols}")
    x = np.array(valid_of(source), np.float32)
    with quiet():
        scaled = x * _param_column(tiles["fp"], rows)[:, None]
        dtype: type[np.integer]
        if plan.attrs["quantType"] is QuantType.INT8_SYM:
            low, high, dtype = np.float32(-128), np.float32(127), np.int8
        else:
            scaled = scaled + _param_column(tiles["offset"], rows)[:, None]
            low, high, dtype = np.float32(0), np.float32(255), np.uint8
        rounded = np.rint(scaled)
        clamped = np.where(rounded < low, low, np.where(high < rounded, high, rounded)).astype(np.float32)
    write(tiles["dst"], _to_int(clamped, np.dtype(dtype)))


_TQUANT_TABLES = {t: Legality({"src": (D.F32,), "fp": (D.F32,), "offset": (D.F32,), "dst": (D.I8, D.U8)})
                  for t in TARGETS}
TQUANT = instruction(
    "TQUANT", operands=(dst(), src("src"), src("fp"), tmp("offset", optional=True)),
    attrs=(Attr("quantType", QuantType, QuantType.INT8_SYM, "quant_type"),), legality=_TQUANT_TABLES,
    static=_tquant_static, text_rule=_tquant_text, family="quant",
    summary="dst = int8 (SYM) or uint8 (ASYM, + offset) of src * fp's per-row scale, rounded and clamped")(_tquant)


def _tdequant_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    rows, cols = tiles["dst"].valid_shape
    if tiles["src"].valid_row < rows or tiles["src"].valid_col < cols:
        check.fail("src", f"valid shape {tiles['src'].valid_shape} is smaller than dst's {tiles['dst'].valid_shape}")
    for role in ("scale", "offset"):
        if rows and cols and (tiles[role].valid_row < rows or tiles[role].valid_col == 0):
            check.fail(role, f"needs a value for each of dst's {rows} rows (valid shape {tiles[role].valid_shape})")
    used = min(cols, tiles["scale"].valid_col)  # the kernel reads parameter columns 0 .. used - 1 of both tiles
    if rows and cols and tiles["offset"].valid_col < used:
        check.fail("offset", f"has {tiles['offset'].valid_col} valid columns; scale's {tiles['scale'].valid_col} "
                             f"make the kernel read {used}")


def _tdequant(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    if rows == 0 or cols == 0:
        return
    dtype = out.spec.np_dtype
    para = max(1, min(cols, tiles["scale"].valid_col))  # the parameter columns read (the rule checked offset's)
    pick = np.minimum(np.arange(cols), para - 1)
    scale = np.array(valid_of(tiles["scale"], (rows, para)))[:, pick].astype(dtype)
    offset = np.array(valid_of(tiles["offset"], (rows, para)))[:, pick].astype(dtype)
    x = np.array(valid_of(tiles["src"], (rows, cols))).astype(dtype)
    with quiet():
        write(out, ((x - offset) * scale).astype(dtype))


TDEQUANT = instruction(
    "TDEQUANT", operands=(dst(), src("src"), src("scale"), src("offset")),
    legality={t: Legality({"dst": (D.F32,), "src": (D.I8, D.I16), "scale": (D.F32,), "offset": (D.F32,)},
                          row_major=("dst", "src")) for t in TARGETS},
    dynamic=_tdequant_rule, family="quant",
    summary="dst = (float(src) - offset[i, c]) * scale[i, c], c = min(j, scale's valid columns - 1)")(_tdequant)
