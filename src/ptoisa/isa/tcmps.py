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

import math
import operator
from functools import lru_cache, partial
from typing import Any

import numpy as np

from .._quiet import quiet
from ..dtypes import DType
from ..targets import Config
from ..errors import NotModelledError, PtoError
from ..tile.layout import plain_view, region, write_stream
from .._shown import shown
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import Check, announce_erratum, announce_fallback, commit_variant, errata_ignored, fallbacks_ignored
from ._compare import _SMALL, VIA_FLOAT32, INF_BITS_16, OPS, compare, compare_bits16, is_inf16, one_test16
from ._scalar import quiet_element, to_element, weak_range
from .enums import CmpMode, coerce_enum

INSTR = "TCMPS"
_TOLERANCE = 1e-9
# Magnitudes from which neighbouring values of the type lie more than 1e-9 apart (float32: 2**-29 at 2**-5,
# from below; bfloat16: 2**-29 at 2**-21): an exact compare equals the simulator's 1e-9 tolerance there.
_SPACED = {DType.F32: 2.0 ** -5, DType.BF16: 2.0 ** -21}
_HALF_NATIVE = 2048  # NumPy's half compare beats float32 conversion up to this, and the range tests on the bits above
_PLANS_KEPT = 64  # scalars whose one-ufunc comparison a compiled call keeps (`_into`'s plans), per call


def tcmps(config: Config, dst: Any, src0: Any, src1: Any, mode: Any) -> None:
    # (a window of a wider tile, 2-D storage, is a WindowTile: the general path's)
    if type(dst) is Tile and type(src0) is Tile and type(mode) is CmpMode:
        # one key for the tile types, mode, target and the valid shapes the call meets (the types' own, unless
        # they take theirs at run time): compiled per tuple of them
        key = (config, dst.spec, src0.spec, src1.spec if type(src1) is Tile else None, mode, dst._valid_row,
               dst._valid_col, src0._valid_row, src0._valid_col)
        run = _COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile(key, dst, src0, src1)
        if run is not None:
            try:
                run(dst, src0, src1)
                return
            except _TileForm:  # src1 a Tile subclass, keyed as a scalar: the general path's tile form
                pass
    _general(config, dst, src0, src1, mode)


class _TileForm(Exception):
    """Raised by a compiled scalar-form call, before any byte moves, when src1 is an instance of a subclass of
    Tile: its key part is a scalar's (None), but the general path takes it as the tile form."""


def _general(config: Config, dst: Any, src0: Any, src1: Any, mode: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src0 = check.tile("dst", dst), check.tile("src0", src0)
    mode = _mode(check, mode)
    tile_form = isinstance(src1, Tile)
    _static(dst.spec, src0.spec, src1.spec if tile_form else None, config)
    _check_valid_shapes(check, config, dst, src0)
    # the tile form compares with src1's first element (a window's storage is 2-D: its first element is [0, 0])
    scalar = src1.storage.flat[0] if tile_form else to_element(src1, src0.spec.dtype, check, "scalar")
    packing = config.profile.tcmps.packing
    if packing == "a2a3_rows":
        _write_a2a3_rows(config, dst, src0, scalar, mode)
        return
    write = _write_cpu_stream if packing == "cpu_stream" else _write_a5_rows
    pending: list[tuple[Any, np.ndarray]] = []
    values = region(src0, src0.valid_row, src0.valid_col)
    if src0.spec.is_boxed and config.erratum("tcmps_boxed_raw_rows"):
        pending.append((partial(announce_erratum, config, INSTR, "tcmps_boxed_raw_rows"),
                        _predicate(config, values, scalar, mode, src0.spec.dtype)))
        values = _repeat_windows(src0, src0.valid_row, src0.valid_col)
    bits = _predicate(config, values, scalar, mode, src0.spec.dtype, pending)
    # Each deviation: (announce, writes the result without it). Announced only if it reaches dst's bytes.
    deviations = [(announce, partial(write, dst=dst, src0=src0, bits=contract)) for announce, contract in pending]
    if packing == "a5_rows":
        if config.erratum("tcmps_chunk_tail"):
            deviations.append((partial(announce_erratum, config, INSTR, "tcmps_chunk_tail"),
                               partial(_write_a5_rows, dst=dst, src0=src0, bits=bits, whole_chunks=False)))
        else:
            write = partial(_write_a5_rows, whole_chunks=False)
    if not deviations:
        write(dst.storage, dst=dst, src0=src0, bits=bits)
        return
    result = dst.storage.copy()  # warn before committing: a warning turned into an error must change nothing
    write(result, dst=dst, src0=src0, bits=bits)
    for announce, write_without in deviations:
        alternative = dst.storage.copy()
        write_without(alternative)
        if not np.array_equal(alternative.view(np.uint8), result.view(np.uint8)):
            announce()
    dst.storage[:] = result


def _mode(check: Check, mode: Any) -> CmpMode:
    member = coerce_enum(CmpMode, mode)
    if member is None:
        check.fail("cmpMode", f"must be one of EQ, NE, LT, LE, GT, GE (got {shown(mode)}; a CmpMode or its name)")
    return member  # type: ignore[return-value]


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
        check.fits(role, spec)
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
def _predicate(config: Config, values: np.ndarray, scalar: np.generic, mode: CmpMode, dtype: DType,
               pending: list[tuple[Any, np.ndarray]] | None = None) -> np.ndarray:
    """Boolean comparison under the configured target.

    Where a fallback or erratum changes bits, it is announced at once, or, with `pending`, recorded as
    (announce, bits without it) so that the caller can announce it only if the change reaches dst."""
    result = compare(values, scalar, mode, dtype)
    if config.profile.tcmps.int32_eq_only and dtype is DType.I32 and mode not in (CmpMode.EQ, CmpMode.NE):
        message = f"int32 {mode.name} is executed as EQ on this target"
        result = _deviate(result, values == scalar, pending, lambda: announce_fallback(config, INSTR, message))
    if dtype in (DType.I16, DType.U16) and config.erratum("tcmps_int16_as_half"):
        half = compare_bits16(values.view(np.uint16), np.asarray(scalar).view(np.uint16), mode,
                              INF_BITS_16[DType.F16])
        result = _deviate(result, half, pending, lambda: announce_erratum(config, INSTR, "tcmps_int16_as_half"))
    if mode in (CmpMode.EQ, CmpMode.NE) and dtype.is_float and config.erratum("tcmps_eq_tolerance"):
        tolerant = _tolerant(values, scalar, mode, dtype, result)
        result = _deviate(result, tolerant, pending, lambda: announce_erratum(config, INSTR, "tcmps_eq_tolerance"))
    return result


def _deviate(contract: np.ndarray, target: np.ndarray, pending: list[tuple[Any, np.ndarray]] | None,
             announce: Any) -> np.ndarray:
    if target is not contract and (target != contract).any():  # both boolean arrays of one shape
        if pending is None:
            announce()
        else:
            pending.append((announce, contract))
    return target


def _tolerant(values: np.ndarray, scalar: np.generic, mode: CmpMode, dtype: DType, exact: np.ndarray) -> np.ndarray:
    """The simulator's EQ/NE: |a - b| against 1e-9 in double (integers are never affected)."""
    if dtype is DType.F16:
        # Distinct finite halves differ by at least 2**-24 > 1e-9: only inf == inf changes (it becomes false).
        if mode is CmpMode.NE or math.isfinite(scalar):  # a finite scalar equals no infinity either way
            return exact
        return exact & ~is_inf16(values.view(np.uint16), INF_BITS_16[DType.F16])
    limit = _SPACED.get(dtype)
    if limit is not None and limit <= abs(float(scalar)) < math.inf:
        # Every value of the type that differs from this scalar differs by more than 1e-9 (the spacing of the
        # type there, below the scalar's binade included, exceeds it): the tolerance changes nothing.
        return exact
    a = values.astype(np.float64)
    b = np.float64(scalar)
    with quiet():
        distance = np.abs(a - b)
        if mode is CmpMode.EQ:
            return distance < _TOLERANCE
        return np.isnan(a) | bool(np.isnan(b)) | (distance > _TOLERANCE)


def _tolerance_moot(scalar: Any, mode: CmpMode, dtype: DType) -> bool:
    """True where the simulator's 1e-9 tolerance gives the exact comparison's bits for every value of `dtype`
    (float types only; `scalar` of the type, or a Python float whose value it rounds to within the type's range):
    the cases where `_tolerant` returns the exact bits (kept apart from it, which stays the reference).

    Half: distinct finite halves differ by at least 2**-24 > 1e-9, so only inf == inf changes (it becomes false):
    NE never changes, EQ not with a finite scalar. float32 from 2**-5, bfloat16 from 2**-21: every value of the
    type that differs from the scalar differs by more than 1e-9 (the spacing of the type there, below the
    scalar's binade included, exceeds it). Rounding a Python float to the type keeps it on the same side of
    these bounds (both are values of the type, and rounding is monotonic), so the test may take either."""
    if dtype is DType.F16:
        return mode is CmpMode.NE or math.isfinite(scalar)
    limit = _SPACED.get(dtype)
    return limit is not None and limit <= abs(float(scalar)) < math.inf


# --- packing per target ------------------------------------------------------------------------------------
def _write_cpu_stream(out: np.ndarray, dst: Tile, src0: Tile, bits: np.ndarray) -> None:
    """The CPU simulator's byte stream, reflowed over dst's valid shape (reference-facts 5.1)."""
    per_row = src0.spec.cols // 8
    if bits.shape == (src0.spec.rows, per_row * 8):
        grid = bits
    else:
        grid = np.zeros((src0.spec.rows, per_row * 8), dtype=bool)
        width = min(bits.shape[1], per_row * 8)  # trailing Cols % 8 columns are dropped
        grid[:bits.shape[0], :width] = bits[:, :width]
    packed = np.packbits(grid, axis=1, bitorder="little")
    out.fill(0)
    if out is dst.storage and dst.view is not None and packed.shape == (dst.valid_row, dst.valid_col):
        dst.view[:dst.valid_row, :dst.valid_col] = packed  # the stream lands row for row: no reflow needed
        return
    stream = packed.reshape(-1)
    view = dst.view if out is dst.storage else None
    write_stream(out, dst.spec, dst.valid_row, dst.valid_col, stream[:dst.spec.numel], view)


def _write_a5_rows(out: np.ndarray, dst: Tile, src0: Tile, bits: np.ndarray, whole_chunks: bool = True) -> None:
    """Row i -> dst row i, zero tail bits: whole chunks of 128 elements (256 for 8-bit sources) as the A5
    writes them (`tcmps_chunk_tail`), or only the ceil(validCol / 8) bytes holding predicates (the contract)."""
    vr, vc = bits.shape
    chunk = (256 if src0.spec.dtype.itemsize == 1 else 128) if whole_chunks else 8
    width = -(-vc // chunk) * chunk
    padded = np.zeros((vr, width), dtype=bool)
    padded[:, :vc] = bits
    packed = np.packbits(padded, axis=1, bitorder="little")
    pitch = dst.spec.cols * dst.spec.dtype.itemsize
    out.view(np.uint8).reshape(dst.spec.rows, pitch)[:vr, :packed.shape[1]] = packed


def _write_a2a3_rows(config: Config, dst: Tile, src0: Tile, scalar: np.generic, mode: CmpMode) -> None:
    """Row i -> dst row i at pitch dst Cols bytes (uint8 dst); see `tcmps_repeat_tail` for the tail."""
    vr, vc = src0.valid_shape
    bits = _predicate(config, region(src0, vr, vc), scalar, mode, src0.spec.dtype)
    packed = np.packbits(bits, axis=1, bitorder="little")
    per_repeat = 256 // src0.spec.dtype.itemsize
    no_tail = vc % per_repeat == 0 and (mode is not CmpMode.NE or packed.shape[1] == dst.spec.cols)
    if src0.spec.is_boxed and config.erratum("tcmps_boxed_raw_rows"):
        _write_a2a3_boxed(config, dst, src0, scalar, mode, packed, no_tail)
        return
    if no_tail or not config.erratum("tcmps_repeat_tail"):  # the contract's bytes are the target's
        dst.storage.view(np.uint8).reshape(dst.spec.rows, dst.spec.cols)[:vr, :packed.shape[1]] = packed
        return
    if src0.storage.ndim != 1:
        raise NotModelledError(f"{INSTR} on {config.name}: erratum tcmps_repeat_tail compares whole 256-byte "
                               "repeats of src0's storage past its valid columns, and src0 is a window of a wider "
                               "tile (its rows are not contiguous): those bytes are not modelled (switch the "
                               f"erratum off with ptoisa.target({config.name!r}, errata=False))")
    dst_bytes = dst.storage.view(np.uint8)
    contract = dst_bytes.copy()
    contract.reshape(dst.spec.rows, dst.spec.cols)[:vr, :packed.shape[1]] = packed
    target = _a2a3_repeats(config, dst_bytes.copy(), dst, src0, scalar, mode)
    valid = np.zeros(dst_bytes.size, dtype=bool)  # dst's valid region, in bytes of its rows
    item = dst.spec.dtype.itemsize
    valid.reshape(dst.spec.rows, dst.spec.cols * item)[:dst.valid_row, :dst.valid_col * item] = True
    commit_variant(config, INSTR, "tcmps_repeat_tail", dst_bytes, contract, target, valid)


def _write_a2a3_boxed(config: Config, dst: Tile, src0: Tile, scalar: np.generic, mode: CmpMode,
                      packed: np.ndarray, no_tail: bool) -> None:
    """NPU erratum `tcmps_boxed_raw_rows` (audit D12, DECISIONS 20): the kernel reads src0 row i at i * Cols of
    its storage (a2a3/TCmps.hpp:89, 122), so a boxed row-major source (ZZ/ZN) is compared as plain rows, on the
    repeat-tail path and off it alike. `packed` holds the contract's bits (read through the layout)."""
    vr, vc = src0.valid_shape
    dst_bytes = dst.storage.view(np.uint8)
    contract = dst_bytes.copy()
    contract.reshape(dst.spec.rows, dst.spec.cols)[:vr, :packed.shape[1]] = packed
    if not no_tail and config.erratum("tcmps_repeat_tail"):
        target = _a2a3_repeats(config, dst_bytes.copy(), dst, src0, scalar, mode)
    else:
        raw = np.packbits(_predicate(config, _repeat_windows(src0, vr, vc), scalar, mode, src0.spec.dtype),
                          axis=1, bitorder="little")
        target = dst_bytes.copy()
        target.reshape(dst.spec.rows, dst.spec.cols)[:vr, :raw.shape[1]] = raw
    commit_variant(config, INSTR, "tcmps_boxed_raw_rows", dst_bytes, contract, target)


def _a2a3_repeats(config: Config, out: np.ndarray, dst: Tile, src0: Tile, scalar: np.generic,
                  mode: CmpMode) -> np.ndarray:
    vr, vc = src0.valid_shape
    per_repeat = 256 // src0.spec.dtype.itemsize
    width = -(-vc // per_repeat) * per_repeat
    hw_mode = CmpMode.EQ if mode is CmpMode.NE else mode
    # Deviations inside the valid columns were announced with the contract bits; the tail is announced as a
    # whole by the caller, so nothing is announced from here.
    bits = _predicate(config, _repeat_windows(src0, vr, width), scalar, hw_mode, src0.spec.dtype, [])
    cols, numel = src0.spec.cols, src0.spec.numel
    for i in range(max(0, (numel - width) // cols), vr):  # the last rows' repeats may run past the storage
        bits[i, max(0, numel - i * cols):] = False
    packed = np.packbits(bits, axis=1, bitorder="little")
    pitch = dst.spec.cols
    # The repeat-rounded width always fits the pitch: dst Cols is a multiple of 32 bytes that holds the valid bits.
    out.reshape(dst.spec.rows, pitch)[:vr, :packed.shape[1]] = packed
    if mode is CmpMode.NE:
        out[:vr * pitch] = ~out[:vr * pitch]
    return out


def _repeat_windows(src0: Tile, rows: int, width: int) -> np.ndarray:
    """(rows, width) view: row i is `width` storage elements from i * Cols on (a repeat reads on past the row);
    storage past the tile reads as zeros here, and those bits are cleared by the caller."""
    storage, cols = src0.storage, src0.spec.cols
    need = (rows - 1) * cols + width if rows else 0
    if need > storage.size:
        padded = np.zeros(need, dtype=storage.dtype)
        padded[:storage.size] = storage
        storage = padded
    return np.lib.stride_tricks.as_strided(storage, (rows, width), (cols * storage.itemsize, storage.itemsize),
                                           writeable=False)




# --- compiled calls ----------------------------------------------------------------------------------------
_UNSET = object()
_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile(key: tuple[Any, ...], dst: Tile, src0: Tile, src1: Any) -> Any:
    """A call's compiled form for its tile types, mode, target and valid shapes (the checks run once, as a C++
    template is checked once; for tile types with run-time valid shapes, once per tuple of valid shapes met), or
    None (remembered) where the general path must run. A refusal is left to the general path, which words it,
    and is not remembered; past 4096 compiled forms, nothing more is remembered."""
    config, dspec, sspec, s1spec, mode = key[:5]
    if len(_COMPILED) >= 4096:
        return None
    check = Check(INSTR, config.name)
    try:
        _static(dspec, sspec, s1spec, config)
        _check_valid_shapes(check, config, dst, src0)
    except PtoError:
        return None
    run = _plan(config, dspec, sspec, mode, check, s1spec is not None, dst.valid_shape, src0.valid_shape)
    _COMPILED[key] = run
    return run


def _plan(config: Config, dspec: TileSpec, sspec: TileSpec, mode: CmpMode, check: Check, tile_form: bool,
          dvalid: tuple[int, int], svalid: tuple[int, int]) -> Any:
    if sspec.is_boxed and config.erratum("tcmps_boxed_raw_rows"):
        return None
    dtype, (vr, vc) = sspec.dtype, svalid
    packing = config.profile.tcmps.packing
    dst_rows = dspec.rows
    if packing == "cpu_stream":
        if (vr, vc) != (sspec.rows, sspec.cols) or vc % 8 \
                or plain_view(np.zeros(dspec.numel, dspec.np_dtype), dspec) is None:
            return None
        # The stream (vr * vc / 8 bytes) laid row-major over dst's valid shape, as `write_stream` lays it.
        dvr, dvc = dvalid
        count = min(vr * vc // 8, dspec.numel, dvr * dvc)
        full, rest = divmod(count, dvc)
        fill = count != dspec.numel

        if count == vr * vc // 8 and not rest:  # the whole stream, in whole rows of dst's valid shape
            def land(dst: Tile, packed: np.ndarray) -> None:
                if fill:
                    dst.storage.fill(0)
                dst.view[:full, :dvc] = packed.reshape(full, dvc)
        else:
            def land(dst: Tile, packed: np.ndarray) -> None:
                stream = packed.reshape(-1)
                if fill:
                    dst.storage.fill(0)
                dst.view[:full, :dvc] = stream[:full * dvc].reshape(full, dvc)
                if rest:
                    dst.view[full, :rest] = stream[full * dvc:count]
    else:
        pitch = dspec.cols * dspec.dtype.itemsize
        if packing == "a5_rows" and config.erratum("tcmps_chunk_tail") \
                and vc % (256 if dtype.itemsize == 1 else 128):
            return _a5_chunk_plan(config, dspec, sspec, mode, check, tile_form, svalid)

        def land(dst: Tile, packed: np.ndarray) -> None:
            dst.storage.view(np.uint8).reshape(dst_rows, pitch)[:vr, :packed.shape[1]] = packed
        if packing == "a2a3_rows":
            per_repeat = 256 // dtype.itemsize
            no_tail = vc % per_repeat == 0 and (mode is not CmpMode.NE or -(-vc // 8) == dspec.cols)
            if not no_tail and config.erratum("tcmps_repeat_tail"):
                return _a2a3_tail_plan(config, dspec, sspec, mode, check, tile_form, dvalid, svalid)

    predicate = _predicate_of(config, mode, dtype, vr * vc)
    into = None if isinstance(predicate, np.ufunc) else _into(predicate, mode, dtype)
    if packing == "cpu_stream":
        fused = _fused(predicate, dtype, check, tile_form, sspec, svalid, (full, dvc), _cpu_rows(full, dvc),
                       fill, into=into) if count == vr * vc // 8 and not rest else None
    else:
        fused = _fused(predicate, dtype, check, tile_form, sspec, svalid, (vr, -(-vc // 8)),
                       _pitch_rows(dspec, vr, -(-vc // 8)), into=into)
    if fused is not None:
        return fused
    scalar_of, values_of, pack = _inputs(predicate, mode, dtype, check, tile_form, sspec, svalid)

    def run(dst: Tile, src0: Tile, src1: Any) -> None:
        land(dst, pack(predicate(values_of(src0), scalar_of(src1))))

    return run


def _cpu_rows(full: int, dvc: int) -> Any:
    """where(dst): the first `full` rows and `dvc` columns of dst's plain view (the cpu stream's bytes, landed in
    whole rows of dst's valid shape)."""
    def where(dst: Tile) -> np.ndarray:
        return dst.view[:full, :dvc]

    return where


def _pitch_rows(dspec: TileSpec, rows: int, width: int) -> Any:
    """where(dst): dst's storage as bytes at its row pitch, the first `rows` rows and `width` bytes of each."""
    shape = (dspec.rows, dspec.cols * dspec.dtype.itemsize)

    def where(dst: Tile) -> np.ndarray:
        return dst.storage.view(np.uint8).reshape(shape)[:rows, :width]

    return where


def _fused(predicate: Any, dtype: DType, check: Check, tile_form: bool, sspec: TileSpec, svalid: tuple[int, int],
           shape: tuple[int, int], where: Any, fill: bool = False, tail: tuple[int, Any] | None = None,
           into: Any = None) -> Any:
    """run(dst, src0, src1) in one Python frame for a comparison of a non-boxed src0 with a non-empty valid
    region: the scalar as `_inputs` takes it, stored into a 0-d array of src0's type (NumPy's ufuncs take one
    about twice as fast as a number; the value is the one the ufunc would convert the number to, `weak_range`,
    or to_element's or src1[0, 0], of that type already), compared into a bool buffer (src0's flat storage where
    the valid region is the whole row-major tile, else its valid region), packed (rows of whole bytes as one
    flat stream), reshaped to `shape` and stored into `where(dst)` (dst's whole storage zeroed first with
    `fill`). `where(dst)` is a view of dst's storage, kept for the storage it was made from and made again for
    another one (the same spec: the same view of it), since slicing it costs more than the store at 16x16. The
    buffers (bool, 0-d, and a uint16 scratch for `into`) are taken from a free list and given back after
    packing, so that calls in two threads never share one.

    `predicate` a ufunc (a plain comparison: no fallback or erratum can change a bit): it compares into the
    buffers. Else `into(values, value, bits, box, scratch)` gives the bits (`_into`: its own buffers, or new
    arrays; it announces what `predicate` announces, before anything is written), and the scalar goes to it as
    `_inputs` hands it to `predicate` (Python numbers only where `predicate.weak`).

    With `tail` = (bytes, announce): a5 `tcmps_chunk_tail`, where(dst) being dst's rows at their pitch: the
    erratum announced when a byte of each row's `bytes` past the predicate bytes holds a nonzero, then those
    bytes zeroed, before the predicate bytes land (as `_a5_chunk_plan`). None where this form does not apply."""
    vr, vc = svalid
    direct = isinstance(predicate, np.ufunc)
    if not (direct or into is not None) or sspec.is_boxed or not vr or not vc:
        return None
    whole = (vr, vc) == (sspec.rows, sspec.cols) and sspec.is_row_major and vc % 8 == 0
    stype, size = sspec.np_dtype, (vr * vc if whole else (vr, vc))
    axis = None if vc % 8 == 0 else 1
    weak = direct or getattr(predicate, "weak", False) or getattr(into, "weak", False)
    kind, low, high = weak_range(dtype) if weak else (float, 1.0, 0.0)
    free: list[tuple[np.ndarray, np.ndarray, Any]] = []
    pop, give_back, packbits, empty, zeros = free.pop, free.append, np.packbits, np.empty, np.zeros
    scratch_of = (lambda: empty(size, np.uint16)) if dtype in INF_BITS_16 and not direct else (lambda: None)
    last: tuple[Any, ...] = (None, None, None)
    row_bytes = shape[1]
    typed = _WORDS.get(row_bytes) if axis is None else None  # (rows of 2, 4, 8 bytes: one word each)

    def packed_of(src0: Tile, src1: Any) -> np.ndarray:  # (written out in `run` for the plain compare)
        if tile_form:
            value = src1.storage[0]
        elif type(src1) is kind and low <= src1 <= high:
            value = src1
        elif isinstance(src1, Tile):
            raise _TileForm
        else:
            value = to_element(src1, dtype, check, "scalar")
        try:
            held = pop()
        except IndexError:
            held = (empty(size, bool), zeros((), stype), scratch_of())
        bits = into(src0.storage if whole else src0.view[:vr, :vc], value, *held)
        packed = packbits(bits, axis, "little")
        give_back(held)
        return packed

    chunk_bytes, announce = tail if tail is not None else (0, None)
    count_nonzero = np.count_nonzero
    plans = getattr(into, "plans", None)
    get_plan = plans.get if plans is not None and kind is float else None
    u16 = np.uint16

    def run(dst: Tile, src0: Tile, src1: Any) -> None:
        nonlocal last
        plan = get_plan(src1) if get_plan is not None and type(src1) is float else None
        if plan is not None:  # a weak float `into` compared before: its ufunc and pattern, as `into` runs them
            try:
                bits, box, scratch = pop()
            except IndexError:
                bits, box, scratch = empty(size, bool), zeros((), stype), scratch_of()
            plan[0]((src0.storage if whole else src0.view[:vr, :vc]).view(u16), plan[1], bits)
            packed = packbits(bits, axis, "little")
            give_back((bits, box, scratch))
        elif direct:
            if tile_form:
                value = src1.storage[0]
            elif type(src1) is kind and low <= src1 <= high:
                value = src1
            elif isinstance(src1, Tile):
                raise _TileForm
            else:
                value = to_element(src1, dtype, check, "scalar")
            try:
                bits, box, scratch = pop()
            except IndexError:
                bits, box, scratch = empty(size, bool), zeros((), stype), None
            box[()] = value
            predicate(src0.storage if whole else src0.view[:vr, :vc], box, bits)
            packed = packbits(bits, axis, "little")
            give_back((bits, box, scratch))
        else:
            packed = packed_of(src0, src1)
        storage = dst.storage
        held = last
        if announce is None:  # dst's rows (or its stream) take the packed bytes
            if held[0] is not storage:
                held = last = (storage, *_landing(where(dst), typed, axis is None))
            if fill:
                storage.fill(0)
            if held[2] is None:
                held[1][...] = packed.reshape(shape)
            elif held[2] is _FLAT:
                held[1][...] = packed
            else:
                held[1][...] = packed.view(held[2])
            return
        if held[0] is not storage:  # a5's chunk tail: the bytes past each row's predicate bytes are looked at first
            rows = where(dst)
            held = last = (storage, (rows[:, :row_bytes], rows[:, row_bytes:chunk_bytes]))
        head, after = held[1]
        if count_nonzero(after):
            announce()
            after.fill(0)
        head[...] = packed.reshape(shape)

    return run


_WORDS = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


_FLAT = object()


def _landing(target: np.ndarray, word: Any, flat: bool) -> tuple[np.ndarray, Any]:
    """(view, how) for `_fused`'s store into `target`, a (rows, width) view of dst's bytes. With `flat` (the
    packed bytes are one flat stream) and a C-contiguous target: (its flat view, _FLAT), which the stream fills
    in one contiguous copy (256x256 f16 on cpu, 8 KiB: 0.41 against 0.79 us for the 2-D copy). With `word` (an
    unsigned type of `width` bytes) and byte rows whose `width` bytes are contiguous: the rows seen as one word
    each (a 1-D view at the row pitch), which the packed stream seen as words fills in one strided copy (64x64:
    0.46 against 0.71 us for the 2-D copy); else (target, None): the stream reshaped to target's shape."""
    if flat and target.flags.c_contiguous:
        return target.reshape(-1), _FLAT
    if word is not None and target.dtype.itemsize == 1 and target.ndim == 2 and target.strides[1] == 1 \
            and target.shape[1] == word.itemsize:
        return target.view(word)[:, 0], word
    return target, None


def _into(predicate: Any, mode: CmpMode, dtype: DType) -> Any:
    """into(values, value, bits, box, scratch) for `_fused` where `predicate` is not a ufunc, or None: the bool
    result of `predicate(values, value)`, into the buffers where that is `compare` on 16-bit float patterns
    (`compare_bits16` into bits, its patterns into scratch: half sources past `_HALF_NATIVE` elements, bfloat16
    past `_compare`'s float32 route) or a cpu `tcmps_eq_tolerance` wrapper whose tolerance this scalar makes moot
    (`_tolerance_moot`: the exact compare, into the buffers where it is a ufunc or the patterns' compare);
    else `predicate`'s own result (a wrapper whose tolerance matters, or a fallback's or an erratum's
    predicate: they announce as they did)."""
    exact, tolerant = predicate, None
    if getattr(predicate, "tolerant", None) is not None:
        exact, tolerant = predicate.tolerant, predicate
    bits16 = isinstance(exact, partial) and exact.func is compare and dtype in INF_BITS_16
    inf_bits, u16 = INF_BITS_16.get(dtype), np.uint16

    plans: dict[float, tuple[np.ufunc, np.ndarray]] = {}  # a weak float: (ufunc, 0-d pattern), `one_test16`'s

    def exact_into(values: np.ndarray, value: Any, bits: np.ndarray, box: np.ndarray, scratch: Any) -> np.ndarray:
        box[()] = value
        if bits16 and values.size > _SMALL:
            if type(value) is float and len(plans) < _PLANS_KEPT:  # (a weak float: `_fused` passes no other)
                plan = one_test16(int(box.view(u16)), mode, inf_bits)
                if plan is not None:  # one ufunc against one pattern: `_fused` runs it for this value itself
                    plans[value] = plan
            return compare_bits16(values.view(u16), box.view(u16), mode, inf_bits, bits, scratch)
        if isinstance(exact, np.ufunc):
            return exact(values, box, bits)
        return exact(values, box[()])

    exact_into.weak = True  # type: ignore[attr-defined]  # (the value is stored into the 0-d array first)
    if tolerant is None:
        if bits16:
            exact_into.plans = plans  # type: ignore[attr-defined]
            return exact_into
        def plain(values: np.ndarray, value: Any, bits: np.ndarray, box: np.ndarray, scratch: Any) -> np.ndarray:
            return predicate(values, value)

        return plain
    to_type, general = dtype.np.type, tolerant.general
    limit = _SPACED.get(dtype)
    if limit is not None and isinstance(exact, np.ufunc):  # float32: `_tolerance_moot` written out
        def spaced(values: np.ndarray, value: Any, bits: np.ndarray, box: np.ndarray, scratch: Any) -> np.ndarray:
            if limit <= abs(value) < math.inf:  # (False for a NaN)
                box[()] = value
                return exact(values, box, bits)
            return general(values, to_type(value) if type(value) is float else value)

        return spaced

    def moot_or_not(values: np.ndarray, value: Any, bits: np.ndarray, box: np.ndarray, scratch: Any) -> np.ndarray:
        if _tolerance_moot(value, mode, dtype):  # (a Python float: the same side of the bounds as its rounding)
            return exact_into(values, value, bits, box, scratch)
        return tolerant.general(values, to_type(value) if type(value) is float else value)

    if bits16:  # (a value enters `plans` only once `_tolerance_moot` has let it through to `exact_into`)
        moot_or_not.plans = plans  # type: ignore[attr-defined]
    return moot_or_not


def _inputs(predicate: Any, mode: CmpMode, dtype: DType, check: Check, tile_form: bool, sspec: TileSpec,
            svalid: tuple[int, int]) -> tuple[Any, Any, Any]:
    """The three steps of a compiled call around its comparison, each decided once:

    - scalar_of(src1): src1[0, 0] (tile form), the Python number as it is where the comparison is a plain ufunc
      that converts it as `to_element` would (`weak_range`), else `to_element`;
    - values_of(src0): src0's view when the valid region is the whole tile, else the valid region;
    - pack(bits): the (vr, ceil(vc / 8)) row bytes; rows of whole bytes are packed as one flat stream (the same
      bytes; NumPy's flat packbits is the cheaper call)."""
    vr, vc = svalid
    if tile_form:
        def scalar_of(src1: Any) -> Any:
            return src1.storage[0]
    else:
        weak = predicate is OPS[mode] or getattr(predicate, "weak", False)
        kind, low, high = weak_range(dtype) if weak else (float, 1.0, 0.0)

        def scalar_of(src1: Any) -> Any:
            if type(src1) is kind and low <= src1 <= high:
                return src1
            if isinstance(src1, Tile):
                raise _TileForm
            return to_element(src1, dtype, check, "scalar")

    if (vr, vc) == (sspec.rows, sspec.cols):
        def values_of(src0: Tile) -> np.ndarray:
            view = src0.view
            return view if view is not None else region(src0, vr, vc)
    else:
        def values_of(src0: Tile) -> np.ndarray:
            return region(src0, vr, vc)

    packbits, row_bytes = np.packbits, -(-vc // 8)
    if vc % 8:
        def pack(bits: np.ndarray) -> np.ndarray:
            return packbits(bits, 1, "little")
    else:
        def pack(bits: np.ndarray) -> np.ndarray:
            return packbits(bits, None, "little").reshape(vr, row_bytes)
    return scalar_of, values_of, pack


def _a5_chunk_plan(config: Config, dspec: TileSpec, sspec: TileSpec, mode: CmpMode, check: Check,
                   tile_form: bool, svalid: tuple[int, int]) -> Any:
    """a5 `tcmps_chunk_tail` decided once: each row's predicate bytes, then zeros up to its whole chunk (128
    elements, 256 for 8-bit sources). The erratum changes dst exactly where those zero bytes replace nonzero
    ones, so it is announced (before any byte is written) when the chunk tail holds a nonzero byte. None (the
    general path) when the chunk does not fit dst's row pitch."""
    vr, vc = svalid
    chunk = 256 if sspec.dtype.itemsize == 1 else 128
    pitch = dspec.cols * dspec.dtype.itemsize
    row_bytes, chunk_bytes = -(-vc // 8), -(-vc // chunk) * chunk // 8
    if chunk_bytes > pitch:
        return None
    predicate = _predicate_of(config, mode, sspec.dtype, vr * vc)
    fused = _fused(predicate, sspec.dtype, check, tile_form, sspec, svalid, (vr, row_bytes),
                   _pitch_rows(dspec, vr, pitch), tail=(chunk_bytes, partial(announce_erratum, config, INSTR,
                                                                              "tcmps_chunk_tail")),
                   into=None if isinstance(predicate, np.ufunc) else _into(predicate, mode, sspec.dtype))
    if fused is not None:
        return fused
    scalar_of, values_of, pack = _inputs(predicate, mode, sspec.dtype, check, tile_form, sspec, svalid)
    rows_of, count_nonzero = _byte_rows(dspec, vr), np.count_nonzero

    def run(dst: Tile, src0: Tile, src1: Any) -> None:
        packed = pack(predicate(values_of(src0), scalar_of(src1)))
        now = rows_of(dst)
        tail = now[:, row_bytes:chunk_bytes]
        if count_nonzero(tail):
            announce_erratum(config, INSTR, "tcmps_chunk_tail")
            tail.fill(0)
        now[:, :row_bytes] = packed

    return run


# a2a3 int32 LT/LE/GT/GE run as EQ: where the requested mode's bit differs from EQ's (EQ implies LE and GE and
# excludes LT and GT, so they differ exactly where the mode and EQ are not both true or both false).
_DIFFERS_FROM_EQ = {CmpMode.LT: np.less_equal, CmpMode.LE: np.less, CmpMode.GT: np.greater_equal,
                    CmpMode.GE: np.greater}


_REDUCE_FROM = 2048  # valid regions of at least this many elements test `_DIFFERS_FROM_EQ` by one reduction


def _tells_from_eq(mode: CmpMode) -> Any:
    """tells(values, scalar): whether `_DIFFERS_FROM_EQ[mode]` holds anywhere in `values` (integers), from one
    reduction: some value >= scalar (GT) is the largest value >= scalar, and so on; none for no value. (Cheaper
    than the compare and count from about `_REDUCE_FROM` elements; 256x256 int32: 3 against 7 us.)"""
    extreme = np.maximum.reduce if mode in (CmpMode.GT, CmpMode.GE) else np.minimum.reduce
    beyond = {CmpMode.GT: operator.ge, CmpMode.GE: operator.gt, CmpMode.LT: operator.le, CmpMode.LE: operator.lt}[mode]

    def tells(values: np.ndarray, scalar: Any) -> bool:  # (as Python ints: NumPy's scalar compare is slower)
        return values.size > 0 and beyond(int(extreme(values, None)), int(scalar))

    return tells


def _int32_as_eq(config: Config, mode: CmpMode, dtype: DType) -> bool:
    return config.profile.tcmps.int32_eq_only and dtype is DType.I32 and mode in _DIFFERS_FROM_EQ


def _predicate_of(config: Config, mode: CmpMode, dtype: DType, size: int | None = None) -> Any:
    """`_predicate` for one target, mode and element type: the plain comparison where no fallback or erratum
    can change a bit. Half sources of at most `_HALF_NATIVE` elements (`size`: the most one call compares) are
    compared in half: NumPy's half comparisons are exact (the same bits as through float32, every mode, every
    pair of halves), and cheaper there than the conversion; larger ones take `compare`'s range tests on the bits."""
    if _int32_as_eq(config, mode, dtype):
        return _int32_eq_predicate(config, mode, size)
    if dtype in (DType.I16, DType.U16) and config.erratum("tcmps_int16_as_half"):
        return partial(_predicate, config, mode=mode, dtype=dtype)
    if dtype is DType.F16 and size is not None and size <= _HALF_NATIVE:
        exact = OPS[mode]
    elif dtype in VIA_FLOAT32 or dtype in INF_BITS_16:
        exact = partial(compare, mode=mode, dtype=dtype)
    else:
        exact = OPS[mode]
    if mode in (CmpMode.EQ, CmpMode.NE) and dtype.is_float and config.erratum("tcmps_eq_tolerance"):
        return _tolerant_predicate(config, mode, dtype, exact)
    return exact


def _int32_eq_predicate(config: Config, mode: CmpMode, size: int | None = None) -> Any:
    """a2a3 int32 LT/LE/GT/GE, run as EQ: the fallback announced (before any byte is written) when the requested
    mode's bits differ from EQ's anywhere, as `_predicate` announces it; one test, `_DIFFERS_FROM_EQ`, instead
    of both results and their comparison (from `_REDUCE_FROM` elements on: under GT and LT, an equal element in
    EQ's result, else one reduction, `_tells_from_eq`). Takes the Python ints `_inputs` hands over (`weak`): NumPy
    converts them as `to_element` does."""
    equal, tells, count_nonzero = OPS[CmpMode.EQ], _tells_from_eq(mode), np.count_nonzero
    eq_tells = mode in (CmpMode.GT, CmpMode.LT)  # an equal element differs already (GT and LT exclude EQ)
    message = f"int32 {mode.name} is executed as EQ on this target"

    if size is not None and size < _REDUCE_FROM:  # small: the compare and count (no Python frame in between)
        differs = _DIFFERS_FROM_EQ[mode]

        def predicate(values: np.ndarray, scalar: Any) -> np.ndarray:  # type: ignore[misc]
            if count_nonzero(differs(values, scalar)):
                announce_fallback(config, INSTR, message)
            return equal(values, scalar)

        predicate.weak = True  # type: ignore[attr-defined]
        return predicate

    def predicate(values: np.ndarray, scalar: Any) -> np.ndarray:
        result = equal(values, scalar)
        if eq_tells and count_nonzero(result) or tells(values, scalar):
            announce_fallback(config, INSTR, message)
        return result

    predicate.weak = True  # type: ignore[attr-defined]
    return predicate


def _tolerant_predicate(config: Config, mode: CmpMode, dtype: DType, exact: Any) -> Any:
    """cpu `tcmps_eq_tolerance` decided per scalar: `exact` where `_tolerance_moot` says the tolerance changes no
    bit for this scalar (no per-element work, nothing to announce), else `_predicate` (which announces). Takes
    Python floats as `_inputs` hands them over (`weak`), converting them as `to_element` would where needed."""
    if dtype is DType.F16 and mode is CmpMode.NE:
        return exact  # moot for every scalar
    general = partial(_predicate, config, mode=mode, dtype=dtype)
    if dtype is not DType.F16 and dtype not in _SPACED:
        return general
    to_type, raw_ok = dtype.np.type, isinstance(exact, np.ufunc)

    def predicate(values: np.ndarray, scalar: Any) -> np.ndarray:
        if type(scalar) is float:  # a weak Python float: its value rounds to the type without overflow
            if raw_ok and _tolerance_moot(scalar, mode, dtype):
                return exact(values, scalar)
            scalar = to_type(scalar)
        if _tolerance_moot(scalar, mode, dtype):
            return exact(values, scalar)
        return general(values, scalar)

    predicate.weak = True  # type: ignore[attr-defined]
    predicate.tolerant, predicate.general = exact, general  # type: ignore[attr-defined]  # (for `_into`)
    return predicate


def _a2a3_tail_plan(config: Config, dspec: TileSpec, sspec: TileSpec, mode: CmpMode, check: Check,
                    tile_form: bool, dvalid: tuple[int, int], svalid: tuple[int, int]) -> Any:
    """`tcmps_repeat_tail` with its windows decided once: which storage element each repeat's lane reads, and
    which lanes run past the storage (they read 0 bits), as `_a2a3_repeats` works them out per call; then
    `_lean_tail` with the comparison the target makes (int32 LT/LE/GT/GE: EQ; int16/uint16: as half bit
    patterns), or None (the general path) for a comparison that may announce by itself."""
    dtype, (vr, vc) = sspec.dtype, svalid
    per_repeat = 256 // dtype.itemsize
    width = -(-vc // per_repeat) * per_repeat
    lanes = np.arange(vr)[:, None] * sspec.cols + np.arange(width)[None, :]
    inside = lanes < sspec.numel
    lanes = np.minimum(lanes, sspec.numel - 1)
    hw_mode = CmpMode.EQ if mode is CmpMode.NE else mode

    if _int32_as_eq(config, mode, dtype):  # compared as EQ; the fallback announced over the valid region
        fallback = partial(announce_fallback, config, INSTR, f"int32 {mode.name} is executed as EQ on this target")
        # (a large valid region: one reduction, whose True or False the count takes as it is)
        tells = _DIFFERS_FROM_EQ[mode] if vr * vc < _REDUCE_FROM else _tells_from_eq(mode)
        return _lean_tail(config, dspec, sspec, mode, check, tile_form, OPS[CmpMode.EQ], lanes, inside, dvalid,
                          svalid, CmpMode.EQ, (tells, fallback, fallbacks_ignored), mode in (CmpMode.GT, CmpMode.LT))
    if dtype in (DType.I16, DType.U16) and config.erratum("tcmps_int16_as_half"):
        # Compared as half bit patterns, lanes and valid region alike; the erratum announced over the valid
        # region, where the requested mode's bits as patterns differ from its bits as integers.
        inf_bits, exact = INF_BITS_16[DType.F16], OPS[mode]
        if max(sspec.numel, lanes.size) <= _HALF_NATIVE:  # NumPy's half compare: exact, cheaper when small
            def as_half(values: np.ndarray, scalar: Any, compared: CmpMode = hw_mode) -> np.ndarray:
                return OPS[compared](values.view(np.float16), np.asarray(scalar).view(np.float16))
        else:
            def as_half(values: np.ndarray, scalar: Any, compared: CmpMode = hw_mode) -> np.ndarray:
                return compare_bits16(values.view(np.uint16), np.asarray(scalar).view(np.uint16), compared,
                                      inf_bits)

        def differs(values: np.ndarray, scalar: Any) -> np.ndarray:
            return exact(values, scalar) != as_half(values, scalar, mode)

        erratum = partial(announce_erratum, config, INSTR, "tcmps_int16_as_half")
        return _lean_tail(config, dspec, sspec, mode, check, tile_form, as_half, lanes, inside, dvalid, svalid,
                          hw_mode, (differs, erratum, errata_ignored))
    plain = _predicate_of(config, hw_mode, dtype, max(sspec.numel, lanes.size))
    if not isinstance(plain, np.ufunc) and not (isinstance(plain, partial) and plain.func is compare):
        return None  # a comparison that may announce: the general path
    return _lean_tail(config, dspec, sspec, mode, check, tile_form, plain, lanes, inside, dvalid, svalid, hw_mode)


def _lane_bits(predicate: Any, sspec: TileSpec, lanes: np.ndarray, inside: np.ndarray) -> Any:
    """lane_bits(storage, scalar): the packed bits of every repeat's lanes, (vr, width / 8) bytes, 0 for the
    lanes past the storage. Where the repeats start on whole bytes of the storage (src0 Cols a multiple of 8; a
    flat storage of the tile's size), the storage is compared once and packed as one stream, and row i's bytes
    are the stream's from i * Cols / 8 on: a gather of a few bytes instead of the lanes' elements. Only the
    storage the repeats read is compared; the stream is padded with 0 bits only when the last repeats run past
    the storage."""
    (vr, width), cols, numel = lanes.shape, sspec.cols, sspec.numel
    packbits, zeros = np.packbits, np.zeros

    def gathered(storage: np.ndarray, scalar: Any) -> np.ndarray:
        bits = predicate(storage[lanes], scalar)
        bits &= inside
        return packbits(bits, 1, "little")

    if cols % 8 or not vr:
        return gathered
    reach = (vr - 1) * cols + width  # storage elements the repeats read, a multiple of 8
    byte_index = np.arange(vr)[:, None] * (cols // 8) + np.arange(width // 8)[None, :]

    if reach > numel:  # the last repeats run past the storage: their lanes read 0 bits
        into = isinstance(predicate, np.ufunc)

        def padded(storage: np.ndarray, scalar: Any) -> np.ndarray:
            if storage.ndim != 1 or storage.size != numel:
                return gathered(storage, scalar)
            bits = zeros(reach, bool)
            if into:
                predicate(storage, scalar, bits[:numel])  # out= as the third argument
            else:
                bits[:numel] = predicate(storage, scalar)
            return packbits(bits, None, "little")[byte_index]

        return padded

    def streamed(storage: np.ndarray, scalar: Any) -> np.ndarray:
        if storage.ndim != 1 or storage.size != numel:
            return gathered(storage, scalar)
        return packbits(predicate(storage[:reach], scalar), None, "little")[byte_index]

    return streamed


def _byte_rows(dspec: TileSpec, rows: int) -> Any:
    """rows_of(dst): dst's first `rows` rows as (rows, pitch) bytes; the tile's own (rows, cols) view where dst
    is plain uint8, else its storage seen as bytes."""
    if dspec.np_dtype == np.uint8 and not dspec.is_boxed and dspec.is_row_major:
        if rows == dspec.rows:
            def rows_of(dst: Tile) -> np.ndarray:
                return dst.view
        else:
            def rows_of(dst: Tile) -> np.ndarray:
                return dst.view[:rows]
    else:
        shape = (dspec.rows, dspec.cols * dspec.dtype.itemsize)

        def rows_of(dst: Tile) -> np.ndarray:
            return dst.storage.view(np.uint8).reshape(shape)[:rows]
    return rows_of


def _as_int(mask: np.ndarray) -> int:
    """A byte mask as one Python int, byte k of the row-major array at bits 8k .. 8k + 7."""
    return int.from_bytes(np.ascontiguousarray(mask, np.uint8).tobytes(), "little")


def _lean_tail(config: Config, dspec: TileSpec, sspec: TileSpec, mode: CmpMode, check: Check, tile_form: bool,
               predicate: Any, lanes: np.ndarray, inside: np.ndarray, dvalid: tuple[int, int],
               svalid: tuple[int, int], compared: CmpMode, first: tuple[Any, Any, Any] = (None, None, None),
               eq_tells: bool = False) -> Any:
    """The repeat tail from one comparison over the repeats' lanes, which gives both results, since the lanes'
    first validCol bits are the contract's (NE: their complement, the hardware comparing EQ): the contract keeps
    those bits of each row's first ceil(validCol / 8) bytes and the rest of dst's bytes; the target writes every
    lane's byte (NE: then inverts the validRow rows of dst).

    The target's bytes differ from the contract's only (a) in the lane bits past validCol of each row's last
    valid byte (the contract writes 0 there), (b) where a later lane byte differs from the byte dst holds, and
    (c) under NE, in every byte of the rows past the lanes (an inverted byte always differs). (c) depends only
    on the shapes and is decided here; (a) and (b) are one test on the lanes' bytes and dst's, as Python ints
    under masks made here (which bits to test; which of them lie in dst's valid region, for the warning's text).

    `predicate` compares as `compared` (EQ under NE: the hardware compares EQ, then inverts). With `first` =
    (differs, announce, ignored), a fallback or erratum that changes the valid region's bits is announced before anything
    else, as `_predicate` announces it: where `differs(values, scalar)` holds anywhere in src0's valid region
    (a2a3 int32 LT/LE/GT/GE run as EQ: where the requested mode's bits differ from EQ's; int16/uint16 compared
    as half bit patterns: where those bits differ from the integers'). With `eq_tells` (int32 GT and LT run as
    EQ, which `predicate` compares), an equal element of the valid region differs already: where the lanes come
    from one stream (`_stream_lanes`), its EQ bits there are counted first and `differs` runs only when none is
    set. `first`'s third member says when that announcement would certainly do nothing (its warning category
    ignored): `differs` is then not run, as the tail's test is not made where every ErratumWarning is ignored."""
    vr, vc = svalid
    pitch = dspec.cols * dspec.dtype.itemsize
    lane_bytes, valid_bytes = lanes.shape[1] // 8, -(-vc // 8)
    dst_valid_bytes = dvalid[1] * dspec.dtype.itemsize
    ne = mode is CmpMode.NE
    rest = ne and lane_bytes < pitch and vr > 0  # (c); no valid row: nothing is inverted
    rest_in_valid = rest and lane_bytes < dst_valid_bytes
    tail = np.zeros((vr, lane_bytes), np.uint8)  # (b): the lane bytes past the valid ones
    tail[:, valid_bytes:] = 0xFF
    tested = tail.copy()
    if vc % 8:
        tested[:, valid_bytes - 1] = 0xFF & ~((1 << (vc % 8)) - 1)  # (a)
    in_valid = tested.copy()
    in_valid[:, dst_valid_bytes:] = 0
    tail_mask, tested_mask, in_valid_mask = _as_int(tail), _as_int(tested), _as_int(in_valid)
    detail = "only bytes outside the valid region differ: the valid region is the contract's"
    from_bytes, invert = int.from_bytes, np.invert

    lane_bits = _lane_bits(predicate, sspec, lanes, inside)
    rows_of = _byte_rows(dspec, vr)
    scalar_of, values_of, _ = _inputs(predicate, compared, sspec.dtype, check, tile_form, sspec, svalid)
    differs, announce_first, first_ignored = first
    count_nonzero = np.count_nonzero

    kept: tuple[Any, Any, Any] = (None, None, None)

    def store(dst: Tile, packed: np.ndarray) -> None:
        """The lanes' bytes into dst's rows (the erratum named where the tail changes what dst held), and the
        rest of each row inverted. The two views of dst's rows are kept for the storage they were made from (made
        again for another one)."""
        nonlocal kept
        views = kept
        if views[0] is not dst.storage:
            now = rows_of(dst)
            # NE: the rows' bytes past the lanes inverted in place; where the rows are one contiguous run of
            # bytes, the lanes' complement is written and the whole run inverted instead (one contiguous
            # inversion: about 0.2 us where the strided one took 1 us at 16 rows)
            block = now.reshape(-1) if now.flags.c_contiguous else None
            views = kept = (dst.storage, now[:, :lane_bytes], now[:, lane_bytes:], block)
        held, after, block = views[1], views[2], views[3]
        changed = 0
        if tested_mask and not errata_ignored():  # (else announcing would do nothing: not looked for)
            lanes_now = from_bytes(packed.tobytes(), "little")
            dst_now = from_bytes(held.tobytes(), "little")
            changed = (lanes_now ^ (dst_now & tail_mask)) & tested_mask
        if changed or rest:
            announce_erratum(config, INSTR, "tcmps_repeat_tail",
                             "" if rest_in_valid or changed & in_valid_mask else detail)
        if not rest:
            held[...] = packed
        elif block is None:
            held[...] = packed
            invert(after, after)
        else:
            held[...] = invert(packed, packed)  # (packed: this call's own bytes, inverted back to EQ's)
            invert(block, block)

    def run(dst: Tile, src0: Tile, src1: Any) -> None:
        scalar = scalar_of(src1)
        if differs is not None and not first_ignored() and count_nonzero(differs(values_of(src0), scalar)):
            announce_first()
        packed = lane_bits(src0.storage, scalar)
        if ne:
            invert(packed, out=packed)  # the rows' bytes are inverted after the EQ compare
        store(dst, packed)

    stream = _stream_lanes(predicate, sspec, vr, vc, lane_bytes * 8, ne, eq_tells and differs is not None)
    if stream is None or not _STREAM_LANES:
        return run
    general, numel = run, sspec.numel

    def run(dst: Tile, src0: Tile, src1: Any) -> None:  # type: ignore[no-redef]
        storage = src0.storage
        if storage.ndim != 1 or storage.size != numel:
            general(dst, src0, src1)  # (a storage that is not the tile's flat run: its lanes gathered)
            return
        scalar = scalar_of(src1)
        packed, equal = stream(storage, scalar)  # (NE: inverted already)
        if differs is not None and not first_ignored() \
                and (equal or count_nonzero(differs(values_of(src0), scalar))):
            announce_first()
        store(dst, packed)

    return run


_STREAM_LANES = True  # tests switch it off to hold `_stream_lanes`' calls to the general ones


def _stream_lanes(predicate: Any, sspec: TileSpec, vr: int, vc: int, width: int, invert: bool,
                  count_valid: bool) -> Any:
    """lanes(storage, scalar) -> (packed, equal) for a flat storage of the tile's size: every repeat's lane bytes
    as `_lane_bits` gives them ((vr, width / 8) bytes; inverted with `invert`) and, with `count_valid`, whether
    the comparison sets a bit of src0's valid region (else False). Where the repeats start on whole bytes (src0
    Cols a multiple of 8) and `predicate` is a ufunc: the storage the repeats read is compared into a bool buffer
    (zeros past the storage, never written), packed as one stream, and row i's bytes are the stream's from
    i * Cols / 8 on (one gather of those bytes: cheaper than a strided view, whose bytes the caller reads and
    copies). The scalar is compared from a 0-d array of src0's type (NumPy's ufuncs take one several times
    faster than a Python number; the value is the one the ufunc would convert the number to, since `scalar` is
    a number that type holds exactly or rounds to as the ufunc does, or an element of it). Where the valid
    region is whole rows of the stream, its bits are tested on the stream's bytes. The buffers (bool buffer,
    0-d scalar) are taken from a free list and given back after packing, so that calls in two threads never
    share one. None where this form does not apply.

    A half or bfloat16 source compared by `compare` (a partial of it, as `_predicate_of` gives past
    `_HALF_NATIVE` elements) is compared the same way, by `compare_bits16` into the bool buffer (its patterns
    into a uint16 scratch): the exact comparison, as `compare`'s own routes are."""
    cols, numel = sspec.cols, sspec.numel
    bits16 = None
    if isinstance(predicate, partial) and predicate.func is compare \
            and predicate.keywords.get("dtype") in INF_BITS_16:
        bits16 = (predicate.keywords["mode"], INF_BITS_16[predicate.keywords["dtype"]])
    if cols % 8 or not vr or not (isinstance(predicate, np.ufunc) or bits16):
        return None
    reach = (vr - 1) * cols + width  # storage elements the repeats read (a multiple of 8)
    head = min(reach, numel)
    whole = head == numel
    byte_index = np.arange(vr)[:, None] * (cols // 8) + np.arange(width // 8)[None, :]
    rows_valid = count_valid and vc == cols  # the valid region: the stream's first vr * Cols / 8 bytes
    valid_bytes, no_bytes = vr * cols // 8, bytes(vr * cols // 8)
    free: list[tuple[np.ndarray, np.ndarray, Any, np.ndarray, Any]] = []
    packbits, count_nonzero, bit_not, stype = np.packbits, np.count_nonzero, np.invert, sspec.np_dtype

    def fresh() -> tuple[np.ndarray, np.ndarray, Any, np.ndarray, Any]:
        bits = np.zeros(reach, bool)
        valid = None  # (the lanes may stop short of the last row's end: the valid rows seen Cols apart)
        if count_valid and not rows_valid:
            valid = np.ndarray((vr, vc), bool, bits, 0, (cols, 1))
        return bits, bits[:head], valid, np.zeros((), stype), np.empty(head, np.uint16) if bits16 else None

    u16, (mode16, inf16) = np.uint16, bits16 or (None, None)

    def lanes(storage: np.ndarray, scalar: Any) -> tuple[np.ndarray, bool]:
        try:  # (not `if free`: another thread may take the last one between the test and the pop)
            held = free.pop()
        except IndexError:
            held = fresh()
        bits, into, valid, box, scratch = held
        box[()] = scalar
        if bits16:
            compare_bits16((storage if whole else storage[:head]).view(u16), box.view(u16), mode16, inf16, into,
                           scratch)
        else:
            predicate(storage if whole else storage[:head], box, into)
        equal = bool(count_nonzero(valid)) if valid is not None else False
        stream = packbits(bits, None, "little")
        free.append(held)
        if rows_valid:
            equal = stream.tobytes()[:valid_bytes] != no_bytes
        packed = stream[byte_index]
        if invert:
            bit_not(packed, out=packed)
        return packed, equal

    return lanes


# --- batched loops ---------------------------------------------------------------------------------------------
def batch_form(config: Config, dst: Any, src0: Any, src1: Any, mode: Any) -> tuple[Any, str] | None:
    """What a batched loop (ptoisa.interp.batch) runs for N calls of TCMPS, one per turn, the tiles' storages
    stacked (N, numel): (run, what of dst the calls write: "all" its storage, "valid" exactly its valid region,
    "part" less or other bytes), or None where the calls must run one by one.

    Only the routes of `_plan` that write the contract's bytes with a comparison that cannot announce anything:
    the scalar form with a scalar converted without a warning (loop-invariant: converted once), plain layouts,
    a plain comparison (a ufunc or `compare`: no int32 EQ fallback, no int16-as-half or EQ-tolerance erratum),
    and on a2a3 no repeat tail (`tcmps_repeat_tail`), on a5 no chunk tail (`tcmps_chunk_tail`). Each turn's
    bits are its own rows of the stack: the comparison runs once over the N valid regions and each turn's rows
    are packed and landed as `_plan` lands one call's (cpu: the byte stream over dst's valid shape, the rest of
    dst zeroed; a2a3 / a5: row i's bytes at dst row i). What depends on the tile types, valid shapes, mode and
    target is decided once (`_batch_route`)."""
    if not (type(dst) is Tile and type(src0) is Tile and type(mode) is CmpMode) or isinstance(src1, Tile):
        return None
    key = (config, dst.spec, src0.spec, mode, dst._valid_row, dst._valid_col, src0._valid_row, src0._valid_col)
    route = _BATCH_ROUTES.get(key, _UNSET)
    if route is _UNSET:
        route = _batch_route(config, dst, src0, mode)
        if len(_BATCH_ROUTES) < 4096:
            _BATCH_ROUTES[key] = route
    if route is None:
        return None
    make, predicate, (kind, low, high), dtype = route
    scalar = src1 if type(src1) is kind and low <= src1 <= high else quiet_element(src1, dtype)
    return None if scalar is None else make(scalar)


_BATCH_ROUTES: dict[tuple[Any, ...], Any] = {}


def _batch_route(config: Config, dst: Tile, src0: Tile, mode: CmpMode) -> Any:
    """(make(scalar) -> (run, coverage), predicate, the scalars passed as they are (`weak_range`), element type)
    for `batch_form`, or None."""
    dspec, sspec = dst.spec, src0.spec
    if dst.view is None or src0.view is None or dspec.is_boxed or sspec.is_boxed:
        return None
    check = Check(INSTR, config.name)
    try:
        _static(dspec, sspec, None, config)
        _check_valid_shapes(check, config, dst, src0)
    except PtoError:
        return None
    dtype, (vr, vc) = sspec.dtype, src0.valid_shape
    predicate = _predicate_of(config, mode, dtype, vr * vc)
    if not isinstance(predicate, np.ufunc) and not (isinstance(predicate, partial) and predicate.func is compare):
        return None
    weak = weak_range(dtype) if predicate is OPS[mode] else (float, 1.0, 0.0)
    packing = config.profile.tcmps.packing
    packbits = np.packbits
    if packing == "cpu_stream":
        if (vr, vc) != (sspec.rows, sspec.cols) or vc % 8:
            return None
        dvr, dvc = dst.valid_shape
        count = min(vr * vc // 8, dspec.numel, dvr * dvc)
        full, rest = divmod(count, dvc)

        def stream_form(scalar: Any) -> tuple[Any, str]:
            def run_stream(out: Any, src: Any) -> None:
                bits = predicate(src.view, scalar)
                stream = packbits(bits.reshape(bits.shape[0], -1), 1, "little")
                out.storage.fill(0)
                out.view[:, :full, :dvc] = stream[:, :full * dvc].reshape(-1, full, dvc)
                if rest:
                    out.view[:, full, :rest] = stream[:, full * dvc:count]

            return run_stream, "all"

        return stream_form, predicate, weak, dtype
    if packing == "a5_rows" and config.erratum("tcmps_chunk_tail") and vc % (256 if dtype.itemsize == 1 else 128):
        return None
    if packing == "a2a3_rows":
        no_tail = vc % (256 // dtype.itemsize) == 0 and (mode is not CmpMode.NE or -(-vc // 8) == dspec.cols)
        if not no_tail and config.erratum("tcmps_repeat_tail"):
            return None
    pitch, rows = dspec.cols * dspec.dtype.itemsize, dspec.rows
    width = -(-vc // 8)
    if vr == rows and width == pitch:
        coverage = "all"
    elif dspec.is_row_major and width == dst.valid_col * dspec.dtype.itemsize:  # (dst's valid rows are vr)
        coverage = "valid"
    else:
        coverage = "part"

    def rows_form(scalar: Any) -> tuple[Any, str]:
        def run_rows(out: Any, src: Any) -> None:
            bits = predicate(src.view[:, :vr, :vc], scalar)
            packed = packbits(bits, 2, "little")
            out.storage.view(np.uint8).reshape(-1, rows, pitch)[:, :vr, :width] = packed

        return run_rows, coverage

    return rows_form, predicate, weak, dtype
