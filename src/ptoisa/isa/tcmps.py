"""TCMPS: compare a tile with a scalar (or with src1[0,0]) into a packed predicate tile (include/pto/*/TCmps.hpp).

    pto.tcmps ins(%src, %scalar {cmpMode = #pto<cmp gt>} : !pto.tile_buf<...>, f32) outs(%dst : !pto.tile_buf<...>)

    for i < src0.GetValidRow(), j < src0.GetValidCol():
        bit(i, j) = src0[i, j] <mode> scalar          # scalar = src1[0, 0] in the tile form
    dst receives the bits LSB first, 8 per byte, in the target's encoding:
        a2a3: uint8 dst, src row i -> dst row i;  a5: the same bit stream as uint32 (or uint8) words;
        cpu:  the reference byte stream (floor(src Cols/8) bytes per static src row, reflowed row-major over dst's
              valid shape, one byte value per dst element, whole dst zeroed first).

Rules (DECISIONS 2): dst and src0 have the same valid rows; dst's valid columns hold ceil(src0 valid cols / bits
per dst element). Target divergences:
- a2a3: int32 LT/LE/GT/GE behave as EQ (documented fallback, warned when it changes the result).
- a2a3 erratum `tcmps_int16_as_half`: int16/uint16 are compared as half-precision bit patterns.
- a2a3 erratum `tcmps_repeat_tail`: whole 256-byte repeats are written (tail bits compare the data that follows
  in src storage; 0 past the tile); NE is EQ followed by inverting validRow x dst Cols bytes.
- cpu erratum `tcmps_eq_tolerance`: EQ is |a-b| < 1e-9 and NE is NaN or |a-b| > 1e-9, in double.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..dtypes import DType
from ..targets import Config
from ..tile.layout import read_region, write_stream
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import Check, announce_erratum, announce_fallback, commit_variant
from ._scalar import to_element
from .enums import CmpMode

INSTR = "TCMPS"
_OPS = {
    CmpMode.EQ: np.equal, CmpMode.NE: np.not_equal, CmpMode.LT: np.less,
    CmpMode.LE: np.less_equal, CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal,
}
_TOLERANCE = 1e-9


def tcmps(config: Config, dst: Any, src0: Any, src1: Any, mode: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src0 = check.tile("dst", dst), check.tile("src0", src0)
    mode = _mode(check, mode)
    tile_form = isinstance(src1, Tile)
    _static(dst.spec, src0.spec, src1.spec if tile_form else None, config)
    _check_valid_shapes(check, config, dst, src0)
    scalar = src1.storage[0] if tile_form else to_element(src1, src0.spec.dtype, check, "scalar")
    packing = config.profile.tcmps.packing
    if packing == "cpu_stream":
        _write_cpu_stream(dst, src0, _predicate(config, src0.valid, scalar, mode, src0.spec.dtype))
    elif packing == "a5_rows":
        _write_a5_rows(dst, src0, _predicate(config, src0.valid, scalar, mode, src0.spec.dtype))
    else:
        _write_a2a3_rows(config, dst, src0, scalar, mode)


def _mode(check: Check, mode: Any) -> CmpMode:
    try:
        return mode if isinstance(mode, CmpMode) else CmpMode[mode] if isinstance(mode, str) else CmpMode(mode)
    except (KeyError, ValueError):
        check.fail("cmpMode", f"must be one of EQ, NE, LT, LE, GT, GE (got {mode!r})")


@lru_cache(maxsize=4096)
def _static(dst: TileSpec, src0: TileSpec, src1: TileSpec | None, config: Config) -> None:
    rules = config.profile.tcmps
    check = Check(INSTR, config.name)
    check.dtype("src0", src0.dtype, rules.src_dtypes)
    check.dtype("dst", dst.dtype, rules.dst_dtypes)
    roles = {"dst": dst, "src0": src0} if src1 is None else {"dst": dst, "src0": src0, "src1": src1}
    for role, spec in roles.items():
        check.loc(role, spec.loc, rules.locs)
        check.row_major(role, spec, rules.row_major)
    if src1 is not None:
        check.same_dtype("src1", src1.dtype, "src0", src0.dtype)


def _bits_per_dst_element(config: Config, dst: TileSpec) -> int:
    return 8 if config.profile.tcmps.bits_per_dst_byte_only else dst.dtype.bits


def _check_valid_shapes(check: Check, config: Config, dst: Tile, src0: Tile) -> None:
    if dst.valid_row != src0.valid_row:
        check.fail("dst", f"valid rows ({dst.valid_row}) must equal src0's valid rows ({src0.valid_row})")
    per_element = _bits_per_dst_element(config, dst.spec)
    need = -(-src0.valid_col // per_element)
    if dst.valid_col < need:
        check.fail("dst", f"valid cols ({dst.valid_col}) cannot hold the packed predicate of src0's "
                          f"{src0.valid_col} valid columns (need at least {need}, {per_element} bits each)")


# --- comparison --------------------------------------------------------------------------------------------
def _as_wide(values: np.ndarray, dtype: DType) -> np.ndarray:
    """Values NumPy compares exactly: native for NumPy's own types, float32 for ml_dtypes floats (exact)."""
    if dtype in (DType.BF16, DType.F8E4M3, DType.F8E5M2):
        return values.astype(np.float32)
    return values


def _predicate(config: Config, values: np.ndarray, scalar: np.generic, mode: CmpMode, dtype: DType) -> np.ndarray:
    """Boolean (rows, cols) comparison under the configured target, announcing errata and fallbacks."""
    a = _as_wide(values, dtype)
    b = _as_wide(np.asarray(scalar), dtype)
    result = _OPS[mode](a, b)
    if config.profile.tcmps.int32_eq_only and dtype is DType.I32 and mode not in (CmpMode.EQ, CmpMode.NE):
        fallback = np.equal(a, b)
        if not np.array_equal(fallback, result):
            announce_fallback(config, INSTR, f"int32 {mode.name} is executed as EQ on this target")
        result = fallback
    if dtype in (DType.I16, DType.U16) and "tcmps_int16_as_half" in config.profile.errata:
        result = _maybe_erratum(config, "tcmps_int16_as_half", result,
                                lambda: _OPS[mode](_as_half(values), _as_half(np.asarray(scalar))))
    if mode in (CmpMode.EQ, CmpMode.NE) and "tcmps_eq_tolerance" in config.profile.errata:
        result = _maybe_erratum(config, "tcmps_eq_tolerance", result, lambda: _tolerant(a, b, mode))
    return result


def _maybe_erratum(config: Config, name: str, contract: np.ndarray, target: Any) -> np.ndarray:
    if not config.erratum(name):
        return contract
    result = target()
    if not np.array_equal(result, contract):
        announce_erratum(config, INSTR, name)
    return result


def _as_half(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).view(np.float16).astype(np.float64)


def _tolerant(a: np.ndarray, b: np.ndarray, mode: CmpMode) -> np.ndarray:
    a, b = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    with np.errstate(invalid="ignore"):
        distance = np.abs(a - b)
        if mode is CmpMode.EQ:
            return distance < _TOLERANCE
        return np.isnan(a) | np.isnan(b) | (distance > _TOLERANCE)


# --- packing per target ------------------------------------------------------------------------------------
def _write_cpu_stream(dst: Tile, src0: Tile, bits: np.ndarray) -> None:
    """The CPU simulator's byte stream, reflowed over dst's valid shape (reference-facts 5.1)."""
    per_row = src0.spec.cols // 8
    if bits.shape == (src0.spec.rows, per_row * 8):
        grid = bits
    else:
        grid = np.zeros((src0.spec.rows, per_row * 8), dtype=bool)
        width = min(bits.shape[1], per_row * 8)  # trailing Cols % 8 columns are dropped
        grid[:bits.shape[0], :width] = bits[:, :width]
    stream = np.packbits(grid, axis=1, bitorder="little").reshape(-1)
    dst.storage.fill(0)
    write_stream(dst.storage, dst.spec, dst.valid_row, dst.valid_col, stream[:dst.spec.numel])


def _write_a5_rows(dst: Tile, src0: Tile, bits: np.ndarray) -> None:
    """Row i -> dst row i, whole chunks of 128 elements (256 for 8-bit sources), zero tail bits."""
    vr, vc = bits.shape
    chunk = 256 if src0.spec.dtype.itemsize == 1 else 128
    width = -(-vc // chunk) * chunk
    padded = np.zeros((vr, width), dtype=bool)
    padded[:, :vc] = bits
    packed = np.packbits(padded, axis=1, bitorder="little")
    pitch = dst.spec.cols * dst.spec.dtype.itemsize
    dst.storage.view(np.uint8).reshape(dst.spec.rows, pitch)[:vr, :packed.shape[1]] = packed


def _write_a2a3_rows(config: Config, dst: Tile, src0: Tile, scalar: np.generic, mode: CmpMode) -> None:
    """Row i -> dst row i at pitch dst Cols bytes (uint8 dst); see `tcmps_repeat_tail` for the tail."""
    vr, vc = src0.valid_shape
    dst_bytes = dst.storage.view(np.uint8)
    contract = dst_bytes.copy()
    bits = _predicate(config, read_region(src0.storage, src0.spec, vr, vc), scalar, mode, src0.spec.dtype)
    packed = np.packbits(bits, axis=1, bitorder="little")
    contract.reshape(dst.spec.rows, dst.spec.cols)[:vr, :packed.shape[1]] = packed
    if not config.erratum("tcmps_repeat_tail"):
        dst_bytes[:] = contract
        return
    target = _a2a3_repeats(config, dst_bytes.copy(), dst, src0, scalar, mode)
    commit_variant(config, INSTR, "tcmps_repeat_tail", dst_bytes, contract, target)


def _a2a3_repeats(config: Config, out: np.ndarray, dst: Tile, src0: Tile, scalar: np.generic,
                  mode: CmpMode) -> np.ndarray:
    vr, vc = src0.valid_shape
    per_repeat = 256 // src0.spec.dtype.itemsize
    width = -(-vc // per_repeat) * per_repeat
    flat = np.arange(vr)[:, None] * src0.spec.cols + np.arange(width)[None, :]
    inside = flat < src0.spec.numel
    hw_mode = CmpMode.EQ if mode is CmpMode.NE else mode
    bits = np.zeros((vr, width), dtype=bool)
    bits[inside] = _predicate(config, src0.storage[flat[inside]], scalar, hw_mode, src0.spec.dtype)
    packed = np.packbits(bits, axis=1, bitorder="little")
    pitch = dst.spec.cols
    if packed.shape[1] <= pitch:
        out.reshape(dst.spec.rows, pitch)[:vr, :packed.shape[1]] = packed
    else:
        _spill_rows(out, packed, pitch)
    if mode is CmpMode.NE:
        out[:vr * pitch] = ~out[:vr * pitch]
    return out


def _spill_rows(out: np.ndarray, packed: np.ndarray, pitch: int) -> None:
    for i in range(packed.shape[0]):  # rows are written in order; a repeat wider than the pitch spills into the next row
        start = i * pitch
        end = min(start + packed.shape[1], out.size)
        out[start:end] = packed[i, :end - start]
