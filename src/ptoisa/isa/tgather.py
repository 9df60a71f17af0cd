"""TGATHER: gather by index tile, by mask pattern, or by comparison (include/pto/*/TGather.hpp).

Index form, `TGATHER(dst, src0, indices, tmp)`:
    for i < dst.GetValidRow(), j < dst.GetValidCol():
        n = indices[i, j]; dst[i, j] = src0[n // src0.Cols, n % src0.Cols]      (DECISIONS 11)
    An index outside [0, Rows*Cols) is undefined on a2a3/a5 (refused, or emulated as a raw read of the on-chip
    buffer the tile is bound to); the cpu reference writes 0 (DECISIONS 12).
Mask form, `TGATHER<Dst, Src, pattern, axis>(dst, src)`: a bit copy of the selected columns (GATHER_ROW, one
    contiguous row-major stream from dst's first element; DECISIONS 14) or rows (GATHER_COL; DECISIONS 15).
Comparison form, `TGATHER<..., cmpMode>(dst, src0, k_value, cdst, tmp, offset)`:
    dst row i <- offset + i * src0.Cols + j for each valid j with src0[i, j] <cmpMode> k[i], in order;
    cdst[i] <- the number of matches (DECISIONS 16).
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from .._quiet import quiet, quiet_reset, quiet_set
from ..errors import NotModelledError, PtoError
from ..memory import spill, window
from ..targets import Config
from ..tile.layout import certainly_apart, offset_table, region, store, write_region
from .._shown import shown
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import Check, announce_erratum, errata_ignored
from ._scalar import to_element
from .enums import CmpMode, GatherAxis, MaskPattern, coerce_enum

INSTR = "TGATHER"
_UNSIGNED = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32)}
_PICKED = {p: slice(p.phase, None, p.period) for p in MaskPattern}  # the selected indices of each pattern


# --- index form ---------------------------------------------------------------------------------------------
def tgather_index(config: Config, dst: Any, src0: Any, indices: Any, tmp: Any) -> None:
    if type(dst) is Tile and type(src0) is Tile and type(indices) is Tile and (tmp is None or type(tmp) is Tile):
        # one key for the tile types, the target and the dst and indices valid shapes the call meets (the
        # types' own, unless they take theirs at run time): compiled per tuple of them
        key = (config, dst.spec, src0.spec, indices.spec, None if tmp is None else tmp.spec, dst._valid_row,
               dst._valid_col, indices._valid_row, indices._valid_col)
        run = _COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile_index(key, dst, indices, tmp)
        if run is not None:
            run(dst, src0, indices)
            return
    _index_general(config, dst, src0, indices, tmp)


_UNSET = object()
_COMPILED: dict[tuple[Any, ...], Any] = {}


class _PerShape(dict):  # type: ignore[type-arg]
    """What a compiled-call cache holds under the key of tile types that take their valid shapes at run time: the
    compiled calls per tuple of valid shapes met (the rows and columns of the tiles the form's checks read)."""

    __slots__ = ()
_FUSED_BELOW = 1024
"""Valid regions of fewer elements gather with NumPy's range-checked take (one call, dst buffered by NumPy);
larger ones find the largest index (raw.item(raw.argmax()): far cheaper than maximum.reduce, 64x64 0.3
against 1.1 us) and take with mode="wrap", which is faster there (interleaved minima, f32, the bare NumPy
steps: 32x32 1.48 against 1.64 us, 64x64 3.5 against 4.3, 256x256 117 against 147; 16x16 0.96 against 0.90).
Every index being in range after the check, "wrap" gives the bytes of "clip" and "raise", and is the cheapest of
the three (256x256 f32: NumPy 2.4's take 57 us against 65 for "clip", 73 for "raise")."""


def _compile_index(key: tuple[Any, ...], dst: Tile, indices: Tile, tmp: Tile | None) -> Any:
    """The index form compiled once per tile types, target and dst and indices valid shapes (`key`, the shapes
    last): the checks run here, and a call whose indices are all in range gathers ND src0 straight into dst.
    None (remembered while the cache holds fewer than 4096 calls) where the general path decides per call (a
    non-ND src0, layouts or index widths with their own NPU errata); a refusal is left to the general path and
    not remembered."""
    config, dspec, sspec, ispec, tspec = key[:5]
    cache = _COMPILED
    check = Check(INSTR, config.name)
    try:
        _static_index(dspec, sspec, ispec, tspec, config)
        _check_index_runtime(check, config, dst, indices, tmp)
    except PtoError:
        return None
    run = None
    if sspec.layout_name == "ND" and dspec.layout_name == "ND" and ispec.layout_name == "ND" \
            and dst.view is not None and len(cache) < 4096 \
            and not (dspec.dtype.itemsize == 4 and ispec.dtype.itemsize == 2
                     and config.erratum("tgather_index_b32_idx16")):
        run = _index_run(check, config, dst.valid_shape, dspec, sspec, ispec)
    if len(cache) < 4096:
        cache[key] = run
    return run


def _index_run(check: Check, config: Config, valid: tuple[int, int], dspec: TileSpec, sspec: TileSpec,
               ispec: TileSpec) -> Any:
    """The compiled gather of ND tiles for one valid shape. Every call reads the indices as unsigned (a negative
    one becomes huge, so one bound refuses both kinds) and hands a call with any index outside src0's elements,
    unchanged, to `_gather_index`, which treats it as the target does."""
    vr, vc = valid
    numel = sspec.numel
    unsigned = _UNSIGNED[ispec.dtype.itemsize]
    whole = (vr, vc) == (dspec.rows, dspec.cols) == (ispec.rows, ispec.cols)  # no slicing: the flat storages
    shares = np.may_share_memory

    def views(dst: Tile, src0: Tile, indices: Tile) -> tuple[Any, ...]:
        """(indices as unsigned, dst's valid region, src0's take, whether dst overlaps a source's memory, and the
        indices' item and argmax): what the call reads off these three storages, made once for them (and kept
        while the call meets them)."""
        out = dst.storage
        overlap = not certainly_apart(out, src0.storage, indices.storage) \
            and (shares(out, src0.storage) or shares(out, indices.storage))
        if whole:
            raw = indices.storage.view(unsigned)
            return raw, out, src0.storage.take, overlap, raw.item, raw.argmax
        raw = indices.view[:vr, :vc].view(unsigned)
        return raw, dst.view[:vr, :vc], src0.storage.take, overlap, raw.item, raw.argmax

    last: tuple[Any, ...] = (None, None, None, None)
    in_order = config.name == "cpu"  # an overlap runs the simulator's element loop (`_gather_index_in_order`)
    if vr * vc < _FUSED_BELOW:
        # take(mode="raise") checks every index against src0's size and writes dst only when all are in range
        # (NumPy buffers `out` in that mode, so dst may also overlap src0: the gather reads src0 first); the
        # indices are read through their conversion to intp, a copy, so dst may overlap them too.
        def checked(dst: Tile, src0: Tile, indices: Tile) -> None:
            nonlocal last
            held = last
            if held[0] is not dst.storage or held[1] is not src0.storage or held[2] is not indices.storage:
                held = last = (dst.storage, src0.storage, indices.storage, views(dst, src0, indices))
            raw, out, take, overlap, _, _ = held[3]
            if overlap and in_order:
                _gather_index(check, config, dst, src0, indices)
                return
            try:
                take(raw, None, out, "raise")
            except IndexError:
                _gather_index(check, config, dst, src0, indices)

        return checked

    def run(dst: Tile, src0: Tile, indices: Tile) -> None:
        nonlocal last
        held = last
        if held[0] is not dst.storage or held[1] is not src0.storage or held[2] is not indices.storage:
            held = last = (dst.storage, src0.storage, indices.storage, views(dst, src0, indices))
        raw, out, take, overlap, item, argmax = held[3]
        # the largest index (its first position, read back): argmax costs a fraction of maximum.reduce
        if overlap or item(argmax()) >= numel:
            _gather_index(check, config, dst, src0, indices)  # overlapping tiles, or out of range
        else:
            take(raw, None, out, "wrap")  # (in range: "clip"'s bytes)
    return run


def _per_valid_shape(cache: dict[tuple[Any, ...], Any], key: tuple[Any, ...]) -> _PerShape:
    """A signature whose tile types take their valid shapes at run time: a `_PerShape` under its key (remembered
    while the cache has room), into which its calls compile per tuple of valid shapes."""
    per = _PerShape()
    if len(cache) < 4096:
        cache[key] = per
    return per


def _run_time_valid(specs: tuple[Any, ...]) -> bool:
    return any(s is not None and (s.dynamic_row or s.dynamic_col) for s in specs)


def _index_general(config: Config, dst: Any, src0: Any, indices: Any, tmp: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src0, indices = check.tile("dst", dst), check.tile("src0", src0), check.tile("indices", indices)
    if tmp is not None:
        tmp = check.tile("tmp", tmp)
    _static_index(dst.spec, src0.spec, indices.spec, tmp.spec if tmp is not None else None, config)
    _check_index_runtime(check, config, dst, indices, tmp)
    if (dst.spec.dtype.itemsize == 4 and indices.spec.dtype.itemsize == 2
            and config.erratum("tgather_index_b32_idx16")):
        _gather_b32_idx16(check, config, dst, src0, indices, tmp)
        return
    _gather_index(check, config, dst, src0, indices)


def _gather_index(check: Check, config: Config, dst: Tile, src0: Tile, indices: Tile) -> None:
    vr, vc = dst.valid_shape
    if config.name == "cpu" and (np.may_share_memory(dst.storage, src0.storage)
                                 or np.may_share_memory(dst.storage, indices.storage)) \
            and dst.storage.ndim == src0.storage.ndim == indices.storage.ndim == 1:
        _gather_index_in_order(dst, src0, indices)
        return
    if (dst.spec.layout_name != "ND" or indices.spec.layout_name != "ND") and \
            config.erratum("tgather_index_raw_rows"):
        _gather_index_raw_rows(check, config, dst, src0, indices)
        return
    raw = region(indices, vr, vc)
    # One reduction decides the common case: as unsigned, a negative index is huge, so max() finds both kinds.
    unsigned = raw.view(_UNSIGNED[raw.dtype.itemsize])
    if not (raw.size and int(unsigned.max()) >= src0.spec.numel):
        positions = _positions(config, src0.spec, raw)
        if dst.view is not None and not (np.may_share_memory(dst.storage, src0.storage)
                                         or np.may_share_memory(dst.storage, indices.storage)):
            np.take(src0.storage, positions, out=dst.view[:vr, :vc], mode="clip")  # in range: checked above
            return
    store(dst, vr, vc, _index_values(check, config, src0, indices, raw))


def _gather_index_in_order(dst: Tile, src0: Tile, indices: Tile) -> None:
    """cpu, dst sharing bytes with src0 or the indices (the same tile, or TASSIGNed over them): the simulator's loop
    (include/pto/cpu/TGather.hpp TGather), element by element in row-major order over dst's valid region, each
    read seeing the writes before it; an index outside src0's elements writes 0 (DECISIONS 12)."""
    vr, vc = dst.valid_shape
    at_dst, at_idx = offset_table(dst.spec), offset_table(indices.spec)
    at_src = offset_table(src0.spec).reshape(-1)
    out, source, idx = dst.storage, src0.storage, indices.storage
    numel, zero = src0.spec.numel, out.dtype.type(0)
    for r in range(vr):
        for c in range(vc):
            raw = int(idx[at_idx[r, c]])
            out[at_dst[r, c]] = source[at_src[raw]] if 0 <= raw < numel else zero


def _index_values(check: Check, config: Config, src0: Tile, indices: Tile, raw: np.ndarray) -> np.ndarray:
    """src0's elements at the indices `raw` (out-of-range ones as the target treats them)."""
    unsigned = raw.view(_UNSIGNED[raw.dtype.itemsize])
    if raw.size and int(unsigned.max()) >= src0.spec.numel:
        return _gather_with_outside(check, config, src0, indices, raw.astype(np.int64))
    return np.take(src0.storage, _positions(config, src0.spec, raw))  # take: flat positions, a window's too


def _plain(tile: Tile) -> np.ndarray:
    """The tile's storage as the NPU kernels address it: row i at i * Cols, whatever the layout."""
    return tile.storage.reshape(tile.spec.rows, tile.spec.cols)


def _gather_index_raw_rows(check: Check, config: Config, dst: Tile, src0: Tile, indices: Tile) -> None:
    """NPU erratum `tgather_index_raw_rows` (audit D13, DECISIONS 20): the index kernels read index row i and write
    dst row i at i * Cols (a2a3/TGather.hpp:62-68, a5/TGather.hpp:52-56), so a col-major or boxed dst or index
    tile is read and written as if it were plain row-major. The contract reads and writes through the layouts."""
    vr, vc = dst.valid_shape
    before = dst.storage.copy()
    try:  # the contract's result, to announce the erratum only when it differs
        store(dst, vr, vc, _index_values(check, config, src0, indices, region(indices, vr, vc)))
        contract = dst.storage.copy()
    except PtoError:
        contract = None
    finally:
        dst.storage[:] = before
    values = _index_values(check, config, src0, indices, _plain(indices)[:vr, :vc])
    target = dst.storage.copy()
    target.reshape(dst.spec.rows, dst.spec.cols)[:vr, :vc] = values
    if contract is None or not np.array_equal(contract.view(np.uint8), target.view(np.uint8)):
        announce_erratum(config, INSTR, "tgather_index_raw_rows")
    dst.storage[:] = target


def _gather_b32_idx16(check: Check, config: Config, dst: Tile, src0: Tile, indices: Tile, tmp: Any) -> None:
    """a5 erratum `tgather_index_b32_idx16`: 32-bit data with 16-bit indices runs the b32 kernel, which loads 128
    int16 indices per 256-byte repeat and reinterprets them as 64 uint32 lanes (a5/TGather.hpp:38-60):
    lane k of repeat j of row i gathers src0's raw element idx[2k] | idx[2k+1] << 16 (idx read from row i's
    storage at i * Cols + 128 * j) and stores it at dst element i * Cols + 128 * j + k. The predicate is built
    for 16-bit lanes, so a 32-bit lane is live when its first half is: ceil(n / 2) lanes for n valid indices
    left in the repeat. The contract result is computed too, to announce the erratum only when it differs."""
    vr, vc = dst.valid_shape
    for role, tile in (("indices", indices), ("dst", dst)):
        if tile.storage.ndim != 1:  # a window of a wider tile: its rows are not at i * Cols of one run
            raise NotModelledError(f"{INSTR} on {config.name}: with 16-bit indices the b32 kernel addresses {role} "
                                   "row i at i * Cols of its storage, and it is a window of a wider tile (its rows "
                                   "are not contiguous) (erratum tgather_index_b32_idx16)")
    idx = indices.storage.view(np.uint16)
    out = dst.storage.copy()
    rows = np.arange(vr)[:, None]
    for j in range(-(-vc // 128)):
        lanes = np.arange((min(128, vc - 128 * j) + 1) // 2)[None, :]
        pos = rows * indices.spec.cols + 128 * j + 2 * lanes
        where = rows * dst.spec.cols + 128 * j + lanes
        if vr and (pos.max() + 1 >= idx.size or where.max() >= out.size):
            raise NotModelledError(f"{INSTR} on {config.name}: with 16-bit indices the b32 kernel reads indices or "
                                   "writes dst past their storage (erratum tgather_index_b32_idx16)")
        raw = idx[pos].astype(np.int64) | (idx[pos + 1].astype(np.int64) << 16)
        outside = raw >= src0.spec.numel
        values = np.take(src0.storage, np.where(outside, 0, raw))
        if outside.any():
            values = _out_of_range(check, config, src0, raw, outside, values)
        out[where] = values
    before = dst.storage.copy()
    try:
        _gather_index(check, config, dst, src0, indices)
        contract = dst.storage.copy()
    except PtoError:
        contract = None
    finally:
        dst.storage[:] = before
    if contract is None or not np.array_equal(contract.view(np.uint8), out.view(np.uint8)):
        announce_erratum(config, INSTR, "tgather_index_b32_idx16")
    dst.storage[:] = out


def _positions(config: Config, spec: TileSpec, flat: np.ndarray) -> np.ndarray:
    """Storage positions of the indices: through src0's layout (DECISIONS 11), or, with the NPUs'
    `tgather_index_raw_offset` erratum, the raw element offsets from src0's base."""
    if spec.layout_name == "ND":
        return flat  # both readings agree
    contract = _through_layout(spec, flat)
    if not config.erratum("tgather_index_raw_offset"):
        return contract
    if not np.array_equal(contract, flat):
        announce_erratum(config, INSTR, "tgather_index_raw_offset")
    return flat


def _through_layout(spec: TileSpec, flat: np.ndarray) -> np.ndarray:
    """Storage positions of row-major flat indices (DECISIONS 11: the index is read through src0's layout)."""
    return flat if spec.layout_name == "ND" else offset_table(spec).reshape(-1)[flat]


def _gather_with_outside(check: Check, config: Config, src0: Tile, indices: Tile, raw: np.ndarray) -> np.ndarray:
    if config.profile.tgather_index.unsigned_indices:
        raw &= (1 << indices.spec.dtype.bits) - 1
    outside = (raw < 0) | (raw >= src0.spec.numel)
    values = np.take(src0.storage, _positions(config, src0.spec, np.where(outside, 0, raw)))
    return _out_of_range(check, config, src0, raw, outside, values)


@lru_cache(maxsize=4096)
def _static_index(dst: TileSpec, src0: TileSpec, idx: TileSpec, tmp: TileSpec | None, config: Config) -> None:
    rules = config.profile.tgather_index
    check = Check(INSTR, config.name)
    check.dtype("dst", dst.dtype, rules.dst_dtypes)
    check.same_dtype("src0", src0.dtype, "dst", dst.dtype)
    check.dtype("indices", idx.dtype, rules.idx_dtypes)
    for role, spec in (("dst", dst), ("src0", src0), ("indices", idx)):
        check.loc(role, spec.loc, rules.locs)
        check.fits(role, spec)
    if tmp is None:
        if rules.tmp == "required":
            check.fail("tmp", "is required on this target: call TGATHER(dst, src0, indices, tmp)")
        return
    if rules.tmp_matches_idx:
        check.same_dtype("tmp", tmp.dtype, "indices", idx.dtype)


def _check_index_runtime(check: Check, config: Config, dst: Tile, idx: Tile, tmp: Tile | None) -> None:
    rules = config.profile.tgather_index
    if tmp is not None and rules.tmp_matches_idx and (tmp.spec.rows, tmp.spec.cols) != idx.valid_shape:
        check.fail("tmp", f"static shape {tmp.spec.rows}x{tmp.spec.cols} must equal the indices' valid shape "
                          f"{idx.valid_row}x{idx.valid_col}")
    if rules.dst_full_cols and dst.valid_col != dst.spec.cols:
        check.fail("dst", f"valid cols ({dst.valid_col}) must equal its static Cols ({dst.spec.cols}): "
                          "dst storage must be continuous")
    if rules.idx_full_cols and idx.valid_col != idx.spec.cols:
        check.fail("indices", f"valid cols ({idx.valid_col}) must equal its static Cols ({idx.spec.cols})")
    if dst.valid_row > idx.spec.rows or dst.valid_col > idx.spec.cols:
        check.fail("indices", f"a {idx.spec.rows}x{idx.spec.cols} tile cannot index dst's valid region "
                              f"{dst.valid_row}x{dst.valid_col}")


def _out_of_range(check: Check, config: Config, src0: Tile, raw: np.ndarray, outside: np.ndarray,
                  values: np.ndarray) -> np.ndarray:
    values = values.copy()
    if config.profile.tgather_index.out_of_range == "zero":
        values[outside] = 0
        return values
    r, c = (int(x[0]) for x in np.nonzero(outside))
    if config.undefined == "raise":
        check.undefined("indices", f"index {int(raw[r, c])} at ({r}, {c}) is outside src0's "
                                   f"{src0.spec.numel} elements")
    binding = src0.binding
    if binding is None:
        raise NotModelledError(f"{INSTR} on {config.name}: an out-of-range index reads on-chip memory outside "
                               "src0; TASSIGN src0 so that ptoisa can emulate the raw read")
    item = src0.spec.dtype.itemsize
    byte = binding.offset + raw[outside] * item
    if (byte < 0).any() or (byte + item > binding.buffer.size).any():
        raise NotModelledError(f"{INSTR} on {config.name}: an out-of-range index reads past the "
                               f"{binding.region} buffer")
    pieces = binding.buffer[byte[:, None] + np.arange(item)[None, :]]
    values[outside] = np.ascontiguousarray(pieces).view(src0.spec.np_dtype).reshape(-1)
    return values


# --- mask form ---------------------------------------------------------------------------------------------
def tgather_mask(config: Config, dst: Any, src: Any, pattern: Any, axis: Any) -> None:
    if type(dst) is Tile and type(src) is Tile and type(pattern) is MaskPattern and type(axis) is GatherAxis:
        # one key for the tile types, pattern, axis, target and the valid shapes the call meets (the types' own,
        # unless they take theirs at run time): compiled per tuple of them
        key = (config, dst.spec, src.spec, pattern, axis, dst._valid_row, dst._valid_col, src._valid_row,
               src._valid_col)
        run = _MASK_COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile_mask(key, dst, src)
        if run is not None:
            run(dst, src)
            return
    _mask_general(config, dst, src, pattern, axis)


_MASK_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile_mask(key: tuple[Any, ...], dst: Tile, src: Tile) -> Any:
    """The mask form compiled once per tile types, pattern, axis, target and valid shapes (`key`, the shapes
    last): the checks run here; ND tiles without an NPU erratum in play copy the selected columns or rows with
    one strided assignment (NumPy assigns overlapping operands as if it read src first, as the general path's
    copy does). None (remembered while the cache holds fewer than 4096 calls) sends the call to the general
    path; a refusal is left to it and not remembered."""
    config, dspec, sspec, pattern, axis = key[:5]
    cache = _MASK_COMPILED
    check = Check(INSTR, config.name)
    try:
        _static_mask(dspec, sspec, config)
        check_mask_shapes(check, config, dspec, dst.valid_shape, src.valid_shape, pattern, axis)
    except PtoError:
        return None
    run = None
    if dspec.layout_name == "ND" and sspec.layout_name == "ND" and len(cache) < 4096:
        if axis is GatherAxis.GATHER_ROW:
            run = _mask_row_run(dspec, sspec, src.valid_shape, pattern)
        elif not (config.erratum("tgather_col_all_src_rows") or config.erratum("tgather_col_offset_u16")):
            run = _mask_col_run(dspec, sspec, src.valid_shape, pattern)
        else:
            run = _mask_col_npu_run(config, dspec, sspec, src.valid_shape, pattern)
    if len(cache) < 4096:
        cache[key] = run
    return run


def _mask_row_run(dspec: TileSpec, sspec: TileSpec, valid: tuple[int, int], pattern: MaskPattern) -> Any:
    """GATHER_ROW of ND tiles: src's selected columns of its valid rows, as rows of `count` elements of the
    stream written from dst's first element (dst's own first rows when they are `count` wide)."""
    vr, vc = valid
    rows, cols = slice(0, vr), slice(pattern.phase, vc, pattern.period)
    count, size = len(range(pattern.phase, vc, pattern.period)), vr * len(range(pattern.phase, vc, pattern.period))
    stype = sspec.np_dtype
    picks = (rows, cols)
    if dspec.np_dtype == stype and count == dspec.cols:
        into = Ellipsis if vr == dspec.rows else rows

        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.view[into], src.view[picks]  # type: ignore[index]
    elif dspec.np_dtype == stype:
        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.storage[:size].reshape(vr, count), src.view[picks]
    else:  # a bit copy between types of one size
        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.storage[:size].view(stype).reshape(vr, count), src.view[picks]
    return _kept_copy(views)


def _kept_copy(views: Any) -> Any:
    """run(dst, src): `into[...] = picked` for (into, picked) = views(dst, src), the two views kept for the two
    storages they were made from and made again for others (a view of a storage is the same for every tile of
    the type over it; slicing them per call cost about as much as the copy at 16x16). NumPy assigns overlapping
    operands as if it read the source first, as before. The call holds references to the last two storages."""
    last: tuple[Any, Any, Any, Any] = (None, None, None, None)

    def run(dst: Tile, src: Tile) -> None:
        nonlocal last
        held = last
        if held[0] is not dst.storage or held[1] is not src.storage:
            held = last = (dst.storage, src.storage, *views(dst, src))
        held[2][...] = held[3]

    return run


def _mask_col_run(dspec: TileSpec, sspec: TileSpec, valid: tuple[int, int], pattern: MaskPattern) -> Any:
    """GATHER_COL of ND tiles (the contract): src's selected valid rows, each its valid columns, into dst's
    first rows."""
    vr, vc = valid
    picked, count = slice(pattern.phase, vr, pattern.period), len(range(pattern.phase, vr, pattern.period))
    head, cols = slice(0, count), slice(0, vc)
    stype = sspec.np_dtype
    if dspec.np_dtype == stype and vc == sspec.cols == dspec.cols:  # whole rows: one slice each side
        into = Ellipsis if count == dspec.rows else head

        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.view[into], src.view[picked]  # type: ignore[index]
    elif dspec.np_dtype == stype:
        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.view[head, cols], src.view[picked, cols]
    else:  # a bit copy between types of one size
        def views(dst: Tile, src: Tile) -> tuple[np.ndarray, np.ndarray]:
            return dst.view.view(stype)[head, cols], src.view[picked, cols]
    return _kept_copy(views)


def _mask_col_npu_run(config: Config, dspec: TileSpec, sspec: TileSpec, valid: tuple[int, int],
                      pattern: MaskPattern) -> Any:
    """GATHER_COL of ND tiles under the NPU column errata (see `_gather_col_npu`), with everything that depends
    on the types alone decided here: the loop's row starts in src, which loop rows land inside dst and which
    past it, whether the offsets wrap. Per call: the loop's rows are read at once (a copy, so dst may overlap
    src), the result is compared with the contract's when nothing lands past dst (else the erratum is announced
    anyway), dst is written and the rows past it go to dst's buffer when it is bound."""
    item = sspec.dtype.itemsize
    svr, svc = valid
    count = len(range(pattern.phase, svr, pattern.period))
    loops = svr if config.erratum("tgather_col_all_src_rows") else count
    start = (pattern.period * np.arange(loops) + pattern.phase) * sspec.cols
    wrapped = config.erratum("tgather_col_offset_u16") and bool((start > 0xFFFF).any())
    if wrapped:
        start &= 0xFFFF
    lanes = np.dtype(f"<u{item}")
    drows, dcols = dspec.rows, dspec.cols
    inside = min(loops, drows)  # loop rows written inside dst's storage
    reach = int(start.max()) + svc if loops and svc else 0  # src elements the loop reads
    own = sspec.numel
    picked, head, cols = slice(pattern.phase, svr, pattern.period), slice(0, count), slice(0, svc)
    names = [n for n, applies in (("tgather_col_all_src_rows", loops != count), ("tgather_col_offset_u16", wrapped))
             if applies]
    past_rows = loops - inside if svc else 0
    if past_rows:
        # dst-relative bytes of the rows past dst, row after row (the order of the rows' bytes below)
        past_at = ((np.arange(inside, loops) * dcols * item)[:, None] + np.arange(svc * item)[None, :]).reshape(-1)
        span = f"[{int(past_at[0])}, {int(past_at[-1]) + 1})"
    if not (loops and svc):
        return None  # nothing copied: the general path (rare)

    if past_rows:
        return _mask_col_npu_past_run(config, dspec, sspec, names, start, inside, svc, past_at, span)

    def run(dst: Tile, src: Tile) -> None:
        source = src.storage.view(lanes) if reach <= own else window(src, reach * item).view(lanes)
        rows_at = np.ndarray((source.size - svc + 1, svc), lanes, source, 0, (item, item))  # row r: from element r
        values = rows_at[start]  # (loops, svc): a copy
        target = dst.view.view(lanes).copy()
        target[:inside, :svc] = values[:inside]
        if names and not errata_ignored():  # (else announcing would do nothing: the contract's not worked out)
            contract = dst.view.view(lanes).copy()
            contract[head, cols] = src.view.view(lanes)[picked, cols]
            if not np.array_equal(target, contract):
                for name in names:
                    announce_erratum(config, INSTR, name, "")
        dst.view.view(lanes)[...] = target
    return run


def _mask_col_npu_past_run(config: Config, dspec: TileSpec, sspec: TileSpec, names: list[str], start: np.ndarray,
                           inside: int, svc: int, past_at: np.ndarray, span: str) -> Any:
    """`_mask_col_npu_run` where some of the loop's rows land past dst (every call announces the erratum): dst's
    rows are written straight from src, through a strided view of src's rows when the loop's rows inside dst are
    evenly spaced inside src's storage (a fancy index of a sliding row view otherwise); the rows past dst are read
    (from src's storage and the bytes after it) only when dst is bound, where they land in its buffer."""
    item, own, scols = sspec.dtype.itemsize, sspec.numel, sspec.cols
    lanes, dtype = np.dtype(f"<u{item}"), dspec.np_dtype  # raw elements, read as dst's type
    same = dtype == sspec.np_dtype
    first = int(start[0])
    step = int(start[1] - start[0]) if inside > 1 else scols  # any whole number of rows serves one row
    even = step > 0 and first % scols == 0 and step % scols == 0 and first + step * (inside - 1) + svc <= own \
        and bool((start[:inside] == first + step * np.arange(inside)).all())
    rows, cols = slice(first // scols, first // scols + step // scols * (inside - 1) + 1, step // scols), slice(0, svc)
    # rows land past dst, so the loop fills every dst row (inside == dst Rows): with whole rows read and written,
    # src's rows go to dst as a whole (one slice of src, no view of dst)
    whole_rows = svc == scols == dspec.cols
    into = Ellipsis if whole_rows else (slice(0, inside), slice(0, svc))
    head = start[:inside]
    reach_head = int(head.max()) + svc if inside else 0
    reach = int(start.max()) + svc
    past_start = start[inside:]
    ends = past_at.reshape(-1, svc * item)[:, -1] + 1  # dst-relative end of each row past dst
    details: dict[Any, str] = {}

    def detail(binding: Any) -> str:
        region = None if binding is None else binding.region
        text = details.get(region)
        if text is None:
            into = (f"into the {region} buffer" if binding is not None
                    else "(dst is not placed with TASSIGN, so ptoisa drops them)")
            text = details[region] = f"it wrote bytes {span} past dst's storage {into}"
        return text

    def rows_of(source: np.ndarray, at: np.ndarray) -> np.ndarray:
        rows_at = np.ndarray((source.size - svc + 1, svc), lanes, source, 0, (item, item))  # row r: from element r
        return rows_at[at]  # a copy

    def run(dst: Tile, src: Tile) -> None:
        binding = dst.binding
        # read everything first (dst may overlap src): the rows inside dst, then those past it when they land
        if even:  # src's rows (a view: the assignment below reads it before writing when dst overlaps it)
            grid_ = src.view if same else src.view.view(dtype)  # type: ignore[union-attr]
            values = grid_[rows] if whole_rows else grid_[rows, cols]  # type: ignore[index]
        else:
            source = src.storage.view(lanes) if reach_head <= own else window(src, reach_head * item).view(lanes)
            values = rows_of(source, head).view(dtype)
        if binding is not None:
            source = src.storage.view(lanes) if reach <= own else window(src, reach * item).view(lanes)
            past = rows_of(source, past_start)
        if not errata_ignored():  # (else announcing would do nothing)
            text = detail(binding)
            for name in names:
                announce_erratum(config, INSTR, name, text)
        dst.view[into] = values  # type: ignore[index]  # overlapping src: read first
        if binding is not None:
            data = past.view(np.uint8).reshape(-1)
            room = binding.buffer.size - binding.offset
            if ends[-1] <= room:
                binding.buffer[binding.offset + past_at] = data
            else:
                keep = past_at < room
                binding.buffer[binding.offset + past_at[keep]] = data[keep]
    return run


def _mask_general(config: Config, dst: Any, src: Any, pattern: Any, axis: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src = check.tile("dst", dst), check.tile("src", src)
    if type(pattern) is not MaskPattern:
        pattern = _enum(check, MaskPattern, pattern, "maskPattern")
    if type(axis) is not GatherAxis:
        axis = _enum(check, GatherAxis, axis, "gatherAxis")
    _static_mask(dst.spec, src.spec, config)
    vr, vc = src.valid_shape
    check_mask_shapes(check, config, dst.spec, dst.valid_shape, src.valid_shape, pattern, axis)
    values = region(src, vr, vc)
    picked = _PICKED[pattern]
    if axis is GatherAxis.GATHER_ROW:
        if src.spec.is_boxed and config.erratum("tgather_mask_boxed_raw_rows"):
            # audit D12: the kernels read src row i at i * Cols of its storage (a2a3/TGather.hpp:130-132)
            raw = src.storage.reshape(src.spec.rows, src.spec.cols)[:vr, :vc][:, picked].reshape(-1)
            contract = np.ascontiguousarray(values[:, picked]).reshape(-1)
            if not np.array_equal(np.ascontiguousarray(raw).view(np.uint8), contract.view(np.uint8)):
                announce_erratum(config, INSTR, "tgather_mask_boxed_raw_rows")
            values = src.storage.reshape(src.spec.rows, src.spec.cols)[:vr, :vc]
        stream = values[:, picked].reshape(-1)
        if dst.storage.ndim != 1:
            raise NotModelledError(f"{INSTR} on {config.name}: the mask form writes its stream through dst's "
                                   "storage, and dst is a window of a wider tile (its rows are not contiguous)")
        out = dst.storage if dst.storage.dtype == stream.dtype else dst.storage.view(stream.dtype)  # a bit copy
        if np.may_share_memory(out, stream):  # read src first: NumPy's 1-D assignment between overlapping
            stream = stream.copy()            # views of different strides reads some elements after writing
        out[:stream.size] = stream
        return
    if config.erratum("tgather_col_all_src_rows") or config.erratum("tgather_col_offset_u16"):
        _gather_col_npu(config, dst, src, pattern, picked)
        return
    rows = values[picked, :]
    if dst.storage.dtype == rows.dtype:
        store(dst, rows.shape[0], rows.shape[1], rows)
    else:  # a bit copy between types of one size
        write_region(dst.storage.view(rows.dtype), dst.spec, rows.shape[0], rows.shape[1], rows)


def _gather_col_npu(config: Config, dst: Tile, src: Tile, pattern: MaskPattern, picked: Any) -> None:
    """GATHER_COL as the NPU backends run it (a2a3/TGather.hpp:123-128, a5/TGather.hpp:240-252): row i of the
    loop copies validCol elements from src element offset GetStrideByMask(i) = (period * i + phase) * src Cols to
    dst element offset i * dst Cols, for i < src's valid rows (not the selected count: erratum
    `tgather_col_all_src_rows`, audit D6); that offset is held in a uint16_t (erratum `tgather_col_offset_u16`, D7).
    Both operands are addressed as plain row-major storage. Rows past src's storage read the bytes that follow it
    (its on-chip buffer when bound, else 0); rows past dst's storage land in dst's buffer when it is bound."""
    if dst.storage.ndim != 1 or src.storage.ndim != 1:
        raise NotModelledError(f"{INSTR} on {config.name}: GATHER_COL under the NPU column errata addresses src and "
                               "dst as plain row-major storage, and one of them is a window of a wider tile (its "
                               f"rows are not contiguous; ptoisa.target({config.name!r}, errata=False) runs the "
                               "contract)")
    item = src.spec.dtype.itemsize
    svr, svc = src.valid_shape
    count = len(range(pattern.phase, svr, pattern.period))
    loops = svr if config.erratum("tgather_col_all_src_rows") else count
    i = np.arange(loops)
    start = (pattern.period * i + pattern.phase) * src.spec.cols
    wrapped = config.erratum("tgather_col_offset_u16") and bool((start > 0xFFFF).any())
    if wrapped:
        start &= 0xFFFF
    dcols = dst.spec.cols
    lanes = np.dtype(f"<u{item}")  # the copy moves raw elements: bytes at element granularity
    # Windows of whole rows: src's reaches every row start plus svc elements, dst's every written row at dst
    # Cols apart (only the bytes marked in `written` are committed; reading more of a window changes nothing).
    src_len = (int(start.max()) + svc) * item if loops and svc else 0
    out = window(dst, max(loops * dcols * item, dst.spec.nbytes))
    written = np.zeros(out.size, dtype=bool)
    if loops and svc:
        source = window(src, src_len).view(lanes)
        rows_at = np.lib.stride_tricks.sliding_window_view(source, svc)  # row r: svc elements from element r
        out[:loops * dcols * item].view(lanes).reshape(loops, dcols)[:, :svc] = rows_at[start]
        written[:loops * dcols * item].reshape(loops, dcols * item)[:, :svc * item] = True
    contract = dst.storage.copy()
    rows = region(src, svr, svc)[picked, :]
    write_region(contract.view(rows.dtype) if contract.dtype != rows.dtype else contract, dst.spec,
                 rows.shape[0], rows.shape[1], rows)
    inside = out[:dst.spec.nbytes]
    past = bool(written[dst.spec.nbytes:].any())
    if past or not np.array_equal(inside, contract.view(np.uint8)):
        detail = ""
        if past:
            outside = np.flatnonzero(written[dst.spec.nbytes:]) + dst.spec.nbytes
            into = (f"into the {dst.binding.region} buffer" if dst.binding is not None
                    else "(dst is not placed with TASSIGN, so ptoisa drops them)")
            detail = f"it wrote bytes [{int(outside[0])}, {int(outside[-1]) + 1}) past dst's storage {into}"
        for name, applies in (("tgather_col_all_src_rows", loops != count), ("tgather_col_offset_u16", wrapped)):
            if applies:
                announce_erratum(config, INSTR, name, detail)
    spill(dst, out, written)


def _enum(check: Check, enum: Any, value: Any, role: str) -> Any:
    member = coerce_enum(enum, value)
    if member is None:
        check.fail(role, f"must be one of {', '.join(m.name for m in enum)} (got {shown(value)}; a {enum.__name__} "
                         "or its name)")
    return member


@lru_cache(maxsize=4096)
def _static_mask(dst: TileSpec, src: TileSpec, config: Config) -> None:
    rules = config.profile.tgather_mask
    check = Check(INSTR, config.name)
    for role, spec in (("src", src), ("dst", dst)):
        check.loc(role, spec.loc, rules.locs)
        check.dtype(role, spec.dtype, rules.dtypes)
        check.row_major(role, spec, ("src", "dst"))
        check.fits(role, spec)
    if dst.dtype.itemsize != src.dtype.itemsize:
        check.fail("dst", f"element size {dst.dtype.itemsize} must equal src's {src.dtype.itemsize} "
                          f"({dst.dtype.cname} vs {src.dtype.cname})")


def check_mask_shapes(check: Check, config: Config, dst: TileSpec, dst_valid: tuple[int, int],
                      src_valid: tuple[int, int], pattern: MaskPattern, axis: GatherAxis) -> None:
    """The mask gather's valid-shape rules (DECISIONS 14 and 15), from shapes alone (also used by the IR)."""
    (dvr, dvc), (svr, svc) = dst_valid, src_valid
    if axis is GatherAxis.GATHER_ROW:
        if dvc != dst.cols:
            check.fail("dst", f"valid cols ({dvc}) must equal its static Cols ({dst.cols}) for "
                              "GATHER_ROW: the gathered stream is written contiguously")
        size = svr * len(range(pattern.phase, svc, pattern.period))
        if size > dst.numel:
            check.fail("dst", f"cannot hold the gathered stream of {size} elements (it has {dst.numel})")
        return
    count = len(range(pattern.phase, svr, pattern.period))
    rules = config.profile.tgather_mask
    if dvr != count:
        check.fail("dst", f"valid rows ({dvr}) must equal the number of selected src rows ({count}) "
                          "for GATHER_COL")
    if rules.col_dst_full_cols and dvc != dst.cols:
        check.fail("dst", f"valid cols ({dvc}) must equal its static Cols ({dst.cols}): dst storage "
                          "must be continuous")
    if rules.col_dst_static_rows and dvr != dst.rows:
        check.fail("dst", f"valid rows ({dvr}) must equal its static Rows ({dst.rows}) for "
                          "GATHER_COL on this target")
    if svc > dst.cols:
        check.fail("dst", f"cannot hold src's {svc} valid columns in its {dst.cols} columns")


# --- comparison form ---------------------------------------------------------------------------------------
def tgather_cmp(config: Config, dst: Any, src0: Any, k_value: Any, cdst: Any, tmp: Any, offset: Any,
                mode: Any) -> None:
    if type(dst) is Tile and type(src0) is Tile and type(k_value) is Tile and type(cdst) is Tile \
            and (tmp is None or type(tmp) is Tile) and type(mode) is CmpMode and type(offset) is int \
            and dst is not cdst:
        key = (config, dst.spec, src0.spec, k_value.spec, cdst.spec, None if tmp is None else tmp.spec, mode)
        run = _CMP_COMPILED.get(key, _UNSET)
        if type(run) is _PerShape:  # src0 with run-time valid shapes: compiled per valid shape
            shapes = (src0._valid_row, src0._valid_col)
            per, run = run, run.get(shapes, _UNSET)
            if run is _UNSET:
                run = _compile_cmp(key, src0, per, shapes)
        elif run is _UNSET:
            run = _compile_cmp(key, src0)
        if run is not None and run(dst, src0, k_value, cdst, tmp, offset & 0xFFFFFFFF):
            return
    _cmp_general(config, dst, src0, k_value, cdst, tmp, offset, mode)


_CMP_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile_cmp(key: tuple[Any, ...], src0: Tile, per: _PerShape | None = None,
                 shapes: tuple[int, ...] | None = None) -> Any:
    """The comparison form with a k tile, compiled once per tile types, mode and target (and src0's valid shape
    when it is set at run time, in a `_PerShape` under the key): the checks run here, and ND tiles on which no
    NPU erratum but a5's running index and a2a3's reading of k (`tgather_cmp_k_signed_src_width`) can act
    compare, count and pack in a few NumPy calls (each announced as by the general path: the running index when
    a row after the first has a match, the reading of k when it changes a match). A2/A3 tmps whose bitmap rows
    leave the bitmap area take `_cmp_scratch_run`. None (remembered) sends the type to the general path, as do
    the errata that compare two readings per call to decide whether to announce themselves; a refusal is left
    to the general path. The compiled call returns False, having written nothing, for what it leaves to the
    general path per call (a row with more matches than dst holds: a refusal)."""
    config, dspec, sspec, kspec, cspec, tspec, mode = key
    if per is None and _run_time_valid((sspec,)):
        per, shapes = _per_valid_shape(_CMP_COMPILED, key), (src0._valid_row, src0._valid_col)
    cache, key = (_CMP_COMPILED, key) if per is None else (per, shapes)  # type: ignore[assignment]
    vr, vc = src0.valid_shape
    try:
        _static_cmp(dspec, sspec, kspec, cspec, tspec, mode, config)
    except PtoError:
        return None
    if dspec.rows < vr or cspec.numel < vr or kspec.numel < vr:
        return None  # refused by the general path
    rules, stype, dtype = config.profile.tgather_cmp, sspec.np_dtype, dspec.np_dtype
    lean = (dspec.layout_name == "ND" and sspec.layout_name == "ND" and len(cache) < 4096
            and not (mode is CmpMode.GT and stype == np.uint16 and config.erratum("tgather_cmp_u16_gt_as_eq"))
            and not (stype == np.float16 and config.erratum("tgather_cmp_half_k_int16"))
            and not (config.erratum("tgather_cmp_unsigned") and not sspec.dtype.is_float)
            and not (tspec is not None and rules.tmp == "required"
                     and (_cmp_tmp_short(dspec, sspec, tspec)
                          or (config.erratum("tgather_cmp_bitmap_rows") and _bitmap_overlaps(src0, tspec)))))
    if not lean:
        run = None
        if dspec.layout_name == "ND" and sspec.layout_name == "ND" and len(cache) < 4096 \
                and tspec is not None and rules.tmp == "required" and not _cmp_tmp_short(dspec, sspec, tspec) \
                and config.erratum("tgather_cmp_bitmap_rows") and _bitmap_overlaps(src0, tspec) \
                and not (mode is CmpMode.GT and stype == np.uint16 and config.erratum("tgather_cmp_u16_gt_as_eq")) \
                and not (stype == np.float16 and config.erratum("tgather_cmp_half_k_int16")) \
                and not (config.erratum("tgather_cmp_unsigned") and not sspec.dtype.is_float) \
                and not config.erratum("tgather_cmp_running_index"):
            run = _cmp_scratch_run(config, dspec, sspec, kspec, cspec, tspec, mode, (vr, vc))
        cache[key] = run
        return run
    op = np.greater if mode is CmpMode.GT else np.equal
    bounds = np.arange(0, (vr + 1) * vc, vc) if vc else None
    numbers = _slot_numbers(dspec.cols)
    dcols, stride, ctype = dspec.cols, sspec.cols, cspec.np_dtype
    running = False  # a5's running index (row stride: validCol rounded up to 64), announced when it tells
    if config.erratum("tgather_cmp_running_index"):
        running = 64 * -(-vc // 64) != stride and vr > 1
        stride = 64 * -(-vc // 64)

    # a2a3's `tgather_cmp_k_signed_src_width`: k's bytes read as signed integers of the source's width (no
    # difference when k is of that type); announced, as by the general path, where the matches differ from the
    # contract's reading (the readings compared first, the matches only when they differ)
    signed = np.dtype(f"<i{sspec.dtype.itemsize}") if config.erratum("tgather_cmp_k_signed_src_width") else None
    if signed is not None and kspec.np_dtype == signed:
        signed = None

    # src0 whole and k read as the contract reads it: its storage compared with k's elements repeated along the
    # rows (flat operands: cheaper than NumPy's broadcast of a column), the matches' positions taken from that
    flat_compare = signed is None and (vr, vc) == (sspec.rows, sspec.cols)
    may_overrun = vc > dcols  # else no row can hold more matches than dst's row
    # narrow dst rows: the slots of a row with c matches as row c of a table made here (one take instead of a
    # broadcast compare; counts <= dcols once the overrun test passed)
    slot_rows = None
    if (dcols + 1) * dcols <= _SLOT_TABLE_MAX:
        slot_rows = np.arange(dcols)[None, :] < np.arange(dcols + 1)[:, None]
        slot_rows.flags.writeable = False

    def run(dst: Tile, src0: Tile, k_value: Tile, cdst: Tile, tmp: Any, offset: int) -> bool:
        if flat_compare:
            token = quiet_set()
            try:
                flat = op(src0.storage, k_value.storage[:vr].astype(stype).repeat(vc)).nonzero()[0]
            finally:
                quiet_reset(token)
            at = flat.searchsorted(bounds)
            counts = at[1:] - at[:-1]
            if may_overrun and _largest(counts, None) > dcols:
                return False
            name = None
        else:
            found = _cmp_rows(op, src0.view[:vr, :vc], k_value, vr, stype, signed, bounds, dcols)
            if found is None:
                return False
            matches, flat, counts, name = found
        if name is not None:  # the general path announces it with the compare, before the running index
            announce_erratum(config, INSTR, name)
        if running and bounds is not None and counts[1:].any():
            announce_erratum(config, INSTR, "tgather_cmp_running_index")
        if stride != vc:
            flat += (flat // vc) * (stride - vc)
        index = flat.astype(dtype)  # int64 -> 32 bits wraps modulo 2**32
        if offset:
            index += np.uint32(offset).astype(dtype)
        if slot_rows is not None:
            slots = slot_rows.take(counts, 0)
        else:
            slots = numbers < counts.astype(numbers.dtype)[:, None]
        dst.view[:vr][slots] = index
        cdst.storage[:vr] = counts.astype(ctype)
        return True
    cache[key] = run
    return run


_largest = np.maximum.reduce


def _cmp_rows(op: Any, values: np.ndarray, k_value: Tile, vr: int, stype: np.dtype, signed: np.dtype | None,
              bounds: np.ndarray | None, dcols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None] | None:
    """The comparison form's matches, for the compiled calls: (the valid region's match mask, the flat positions
    of its matches, matches per row, the erratum to announce or None), or None when a row has more matches than
    dst's `dcols` (left to the general path's refusal). With `signed`, k is read as the A2/A3 kernel reads it (its
    bytes as signed integers of the source's width) and `tgather_cmp_k_signed_src_width` is named where that changes the
    matches: the two readings of k compared first, the matches only when they differ."""
    name = None
    token = quiet_set()
    try:
        k = k_value.storage[:vr].astype(stype)  # the contract's reading
        if signed is None:
            matches = op(values, k[:, None])  # same-type compare: exact
        else:
            k_kernel = k_value.storage.view(np.uint8)[:vr * signed.itemsize].view(signed).astype(stype)
            matches = op(values, k_kernel[:, None])  # as the general path's widened compare: exact
            if not (k_kernel == k).all() and not np.array_equal(matches, op(values, k[:, None])):
                name = "tgather_cmp_k_signed_src_width"
    finally:
        quiet_reset(token)
    flat = matches.reshape(-1).nonzero()[0]
    if bounds is None:
        return matches, flat, np.zeros(vr, np.int64), name
    at = flat.searchsorted(bounds)
    counts = at[1:] - at[:-1]
    if vr and values.shape[1] > dcols and _largest(counts, None) > dcols:  # (a row holds at most vc matches)
        return None
    return matches, flat, counts, name


def _cmp_scratch_run(config: Config, dspec: TileSpec, sspec: TileSpec, kspec: TileSpec, cspec: TileSpec,
                     tspec: TileSpec, mode: CmpMode, valid: tuple[int, int]) -> Any:
    """The comparison form of ND tiles under the A2/A3 scratch erratum (`tgather_cmp_bitmap_rows`, bitmap rows
    that leave tmp's bitmap area; `_scratch_run`), compiled per tile types, mode and valid shape: the general
    path's steps without its checks and without its second run of the whole gather with the erratum off. The
    compare as the general path reads k (`tgather_cmp_k_signed_src_width` announced when it changes matches: the
    two readings of k compared first, the matches only when they differ), a row with more matches than dst holds
    left to the general path's refusal, then the scratch; the erratum is announced when its dst or cdst differ
    from the plain gather's: when the scratch picked the same elements, when a picked value is not the element's
    index (+ offset), else comparing both images."""
    vr, vc = valid
    stype, ctype = sspec.np_dtype, cspec.np_dtype
    op = np.greater if mode is CmpMode.GT else np.equal
    k_signed = config.erratum("tgather_cmp_k_signed_src_width")
    signed = np.dtype(f"<i{sspec.dtype.itemsize}") if k_signed else None
    if signed is not None and kspec.np_dtype == signed:
        signed = None  # k's bytes read as what they are: both readings agree
    bounds = np.arange(0, (vr + 1) * vc, vc) if vc else None
    dcols, scols = dspec.cols, sspec.cols
    numbers = _slot_numbers(dcols)
    lay = _Scratch(tspec, sspec, kspec, vr, vc, k_signed)

    def run(dst: Tile, src0: Tile, k_value: Tile, cdst: Tile, tmp: Tile, offset: int) -> bool:
        if np.may_share_memory(dst.storage, cdst.storage):
            return False  # the general path, which announces from the final bytes
        found = _cmp_rows(op, src0.view[:vr, :vc], k_value, vr, stype, signed, bounds, dcols)
        if found is None:
            return False  # the general path announces what it compared, then refuses
        matches, flat, counts, name = found
        if name is not None:
            announce_erratum(config, INSTR, name)
        pos = flat + (flat // vc) * (scols - vc) if vc and scols != vc else flat
        index = pos.astype(np.uint32)  # the plain gather's picks: index (+ offset), modulo 2**32
        if offset:
            index += np.uint32(offset)
        scratch = _scratch_run(config, dst, src0, k_value, cdst, tmp, offset, mode,
                               (matches, flat, counts, pos, index), lay)
        if scratch.changed is not None:  # the same picks, in the same slots
            differs = scratch.changed
        elif scratch.flat is not None and np.array_equal(scratch.flat, flat):
            differs = bool((scratch.picked != index).any())
        else:
            plain = dst.storage.view(np.uint32).copy()
            plain[:vr * dcols].reshape(vr, dcols)[numbers < counts.astype(numbers.dtype)[:, None]] = index
            plain_cdst = cdst.storage.copy()
            plain_cdst[:vr] = counts.astype(ctype)
            differs = not (np.array_equal(plain, scratch.image())
                           and np.array_equal(plain_cdst.view(np.uint8), scratch.new_cdst.view(np.uint8)))
        if differs:
            announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
        scratch.commit()
        return True
    # the call for an unplaced tmp, which hands a placed one to `run`
    return _lean_scratch(config, lay, dspec, sspec, kspec, cspec, tspec, mode, valid, signed, run) or run


_TABLE_BELOW = 4096
"""`_lean_scratch` builds src0 tables of at most this many entries per call and takes the picks from them (one
take); larger ones patch the few picks a bitmap row overwrote."""
_SLOT_TABLE_MAX = 1 << 16  # `_lean_scratch`'s table of slot rows: at most this many bytes
_ONE_IMAGE = True  # tests switch it off to hold the image form of `_lean_scratch` to its table-and-writes form


def _write_picks(out: Any, slots: np.ndarray, index: np.ndarray, dst: Tile, cdst: Tile, vr: int,
                 counts: np.ndarray) -> None:
    """The comparison form's writes: the picked indices into their dst slots, then each row's count into cdst's
    first `vr` elements (the kernels write no other element of cdst: where cdst shares bytes with dst, its
    elements past `vr` keep the picks written there)."""
    out[slots] = index
    cdst.storage[:vr] = counts


def _lean_scratch(config: Config, lay: _Scratch, dspec: TileSpec, sspec: TileSpec, kspec: TileSpec,
                  cspec: TileSpec, tspec: TileSpec, mode: CmpMode, valid: tuple[int, int], signed: Any,
                  placed: Any) -> Any:
    """`_cmp_scratch_run`'s call for an unplaced tmp, with what the signature decides about the scratch worked out
    here: which of its bytes reach tmp (the index table, the thresholds and the bitmap rows inside tmp's storage;
    the rest lies past it and is dropped) and which index-table bytes the bitmap rows overwrite where a valid
    element's entry lies. A call compares src0's valid region with k (read as the kernel reads it; the contract's
    reading too when they differ, for `tgather_cmp_k_signed_src_width`), then only the rows whose bitmaps land in
    tmp or on the table (the front rows; the tail rows land past tmp), patches the picks whose entries a bitmap
    overwrote (announcing the erratum when one differs from the plain gather's), and writes dst, cdst and those
    bytes of tmp: no scratch image, no second gather. Returns False, having written nothing, for a row with more
    matches than dst holds (the general path refuses it). A placed tmp (whose tail rows land in its buffer) goes
    to `placed`, the scratch call. Tables of at most `_TABLE_BELOW` entries are built with the thresholds after
    them as one image of the kernel's bytes from the table on (`_ONE_IMAGE`), written to tmp in one copy.

    None (`_scratch_run` decides) where the compare loop's order shows (a threshold an earlier bitmap covered,
    overlapping bitmap rows) or where it runs several chunks."""
    vr, vc = valid
    if lay.covered or lay.keep_at is not None or lay.nrep > 255 or not (vr and vc):
        return None
    item, tin, numel = sspec.dtype.itemsize, sspec.np_dtype, sspec.numel
    scols, width, nb, tc = sspec.cols, lay.width, lay.nb, lay.stride
    index_at, cvt_at, cvt_end, k_read, kind = lay.index_at, lay.cvt_at, lay.cvt_end, lay.k_read, lay.kind
    own_size = tspec.nbytes
    tab_stop, cvt_stop = min(cvt_at, own_size), min(cvt_end, own_size)
    r_end = lay.tail_from  # the front rows: the only ones inside tmp or over the index table
    row_v = (np.arange(r_end)[:, None] * tc + np.arange(nb)[None, :]).reshape(-1)  # virtual byte of each bit byte
    row_pos = row_v[row_v < own_size]
    row_bits = np.flatnonzero(row_v < own_size)
    clob = lay.clobbered.astype(np.int64)  # valid elements' entries that bitmap bytes overwrite, ascending
    clob_at = (clob // scols) * vc + clob % scols  # their flat positions in the valid region
    v = index_at + 4 * clob[:, None] + np.arange(4)[None, :]  # each such entry's bytes, virtual
    writer = v // tc
    over = (writer < r_end) & (v - writer * tc < nb)
    cb_byte = np.flatnonzero(over)
    cb_bit = (writer * nb + (v - writer * tc))[over]
    # small tables: the table built per call, bitmap bytes over it, and the picks taken from it
    by_table = numel <= _TABLE_BELOW
    tab_byte = tab_bit = np.zeros(0, np.int64)
    if by_table:
        tv = index_at + np.arange(numel * 4)  # the table's bytes, virtual
        tw = tv // tc
        t_over = (tw < r_end) & (tv - tw * tc < nb)
        tab_byte, tab_bit = np.flatnonzero(t_over), (tw * nb + (tv - tw * tc))[t_over]
    src_end = ((r_end - 1) * scols + width) * item
    # thresholds inside tmp: the first `n_conv` are k's elements the compare reads (when they are all among
    # the first vr), those read from past k's storage are 0 for an unplaced k
    width_k = {"int32": kspec.dtype.itemsize, "signed": item, "own": kspec.dtype.itemsize}[kind]
    cvt_bytes = max(cvt_stop - cvt_at, 0)
    m = -(-cvt_bytes // item)
    n_in = kspec.nbytes // width_k
    n_conv = min(m, n_in)
    conv_bytes = min(n_conv * item, cvt_bytes)
    inside_k = k_read <= kspec.nbytes or m <= n_in
    k_easy = n_conv <= vr and kspec.nbytes % width_k == 0
    kdtype, signed_item = kspec.np_dtype, np.dtype(f"<i{item}")
    image_base: Any = None
    plain_picks: Any = None
    k_in_image = False
    if by_table and _ONE_IMAGE:
        # One image of the kernel's bytes from the table on: the table (offset + n), the thresholds inside tmp
        # after it, and every bitmap byte over them (over the table past tmp too: the picks read it). Built per
        # call from `image_base`, it gives the picks (one take) and the bytes of tmp from index_at on (one
        # write); the bitmap bytes elsewhere in tmp (`row_pos`, `row_bits`) are written on their own.
        image_len = numel * 4 + cvt_bytes
        image_base = np.zeros(-(-image_len // 4), np.uint32)
        image_base[:numel] = _table_base(numel)
        image_base.flags.writeable = False
        over_image = (row_v >= index_at) & (row_v < index_at + image_len)
        tab_byte, tab_bit = row_v[over_image] - index_at, np.flatnonzero(over_image)
        outside = ~over_image & (row_v < own_size)
        row_pos, row_bits = row_v[outside], np.flatnonzero(outside)
        image_own = max(min(image_len, own_size - index_at), 0)  # the image's bytes inside tmp
        cvt_in = numel * 4  # the thresholds' first byte in the image
        # every row's threshold inside tmp (and read from k's storage): the compare's k is converted straight
        # into the image's thresholds (what `astype` gives: the same cast), no copy after
        k_in_image = k_easy and n_conv == vr and conv_bytes == vr * item
        plain_picks = image_base[:numel]  # (offset 0) the plain gather's picks are this table's entries
    stype = sspec.np_dtype
    op = np.greater if mode is CmpMode.GT else np.equal
    bounds = np.arange(0, (vr + 1) * vc, vc)
    dcols = dspec.cols
    small = vr * dcols < _FUSED_BELOW  # the slot test against int64 counts (one call less; narrow ones pay later)
    numbers = np.arange(dcols) if small else _slot_numbers(dcols)
    # narrow dst rows: row i's slots as a row of a table made here (one take instead of a broadcast compare)
    slot_rows = None
    if small and vc <= dcols and (dcols + 1) * dcols <= _SLOT_TABLE_MAX and _ONE_IMAGE:
        slot_rows = np.arange(dcols)[None, :] < np.arange(dcols + 1)[:, None]
        slot_rows.flags.writeable = False
    all_rows = vr == dspec.rows
    may_overrun = vc > dcols  # else no row can hold more matches than dst's row
    k_bytes, s_nbytes = vr * item, sspec.nbytes
    same_width, whole = width == vc, (vr, vc) == (sspec.rows, scols)
    flat_compare = whole and by_table and _ONE_IMAGE  # (larger tiles: the repeat's buffer costs as much)
    packbits, u8, u32, count_nonzero = np.packbits, np.uint8, np.uint32, np.count_nonzero
    base = _table_base(numel)

    def thresholds_of(k_value: Tile) -> np.ndarray:
        k_raw = k_value.storage.view(u8)[:k_read] if k_read <= kspec.nbytes else window(k_value, k_read)
        if kind == "int32":
            return k_raw.view(kdtype).astype(np.int64).astype(np.int32)
        if kind == "signed":
            return k_raw.view(signed_item).astype(tin)
        return k_raw.view(kdtype).astype(tin)

    def lean(dst: Tile, src0: Tile, k_value: Tile, cdst: Tile, tmp: Tile, offset: int) -> bool:
        if tmp.binding is not None or not _A2A3_ROWS_AT_ONCE:  # (tests switch the latter off: the row loop)
            return placed(dst, src0, k_value, cdst, tmp, offset)
        if np.may_share_memory(dst.storage, cdst.storage):
            return False  # the general path, which announces from the final bytes
        values = src0.view if whole else src0.view[:vr, :vc]
        name = None
        token = quiet_set()
        try:
            if k_in_image:  # the image first; k converted into its thresholds
                image32 = image_base + u32(offset) if offset else image_base.copy()
                image = image32.view(u8)
                k = image[cvt_in:cvt_in + k_bytes].view(stype)
                if signed is None:
                    k[...] = k_value.storage[:vr]  # the contract's reading
                else:
                    k[...] = k_value.storage.view(u8)[:k_bytes].view(signed)  # the kernel's
                    contract = k_value.storage[:vr].astype(stype)
            else:
                k = k_value.storage[:vr].astype(stype)  # the contract's reading
                if signed is not None:  # the kernel's: k's bytes as signed integers of the source's width
                    contract = k
                    k = k_value.storage.view(u8)[:k_bytes].view(signed).astype(stype)
            # (k read as the kernel reads it: as the general path's widened compare, exact.) The whole tile: its
            # storage against k's elements repeated along the rows (flat operands: NumPy's broadcast of a column
            # costs more than the repeat)
            if flat_compare:
                flat_matches = op(src0.storage, k.repeat(vc))
            else:
                flat_matches = op(values, k[:, None]).reshape(-1)
            if signed is not None and not (k == contract).all() \
                    and not np.array_equal(flat_matches, op(values, contract[:, None]).reshape(-1)):
                name = "tgather_cmp_k_signed_src_width"
            if same_width:
                hits = flat_matches[:r_end * vc]  # the front rows' bits, one row after another
            else:  # the front rows' whole repeats (k as the kernel reads it: the thresholds as put)
                source = src0.storage if src_end <= s_nbytes else window(src0, src_end).view(tin)
                hits = op(np.ndarray((r_end, width), tin, source, 0, (scols * item, item)), k[:r_end, None])
            thresholds = None if k_easy and (inside_k or k_value.binding is None) else thresholds_of(k_value)
        finally:
            quiet_reset(token)
        flat = flat_matches.nonzero()[0]
        at = flat.searchsorted(bounds)
        counts = at[1:] - at[:-1]
        if may_overrun and counts.max() > dcols:
            return False  # the general path announces what it compared, then refuses
        if name is not None:
            announce_erratum(config, INSTR, name)
        pos = flat + (flat // vc) * (scols - vc) if scols != vc else flat
        # (each row's bits are whole bytes, and hits is C-contiguous: its flat stream is the rows' bytes in turn)
        bits = packbits(hits, None, "little")
        if image_base is not None:  # the kernel's table (offset + n, modulo 2**32) and thresholds, bitmaps over
            if not k_in_image:
                image32 = image_base + u32(offset) if offset else image_base.copy()
                image = image32.view(u8)
            if cvt_bytes:
                if thresholds is not None:
                    image[cvt_in:image_len] = thresholds.view(u8)[:cvt_bytes]
                else:
                    if not k_in_image:
                        image[cvt_in:cvt_in + conv_bytes] = k.view(u8)[:conv_bytes]
                    if offset and conv_bytes < cvt_bytes:
                        image[cvt_in + conv_bytes:image_len] = 0  # past an unplaced k
            if tab_byte.size:
                image[tab_byte] = bits[tab_bit]
            index = image32.take(pos)
            # a pick unlike the plain gather's (index + offset): a bitmap byte unlike the table's over its entry
            if cb_byte.size and (index - u32(offset) if offset else index).tobytes() \
                    != plain_picks.take(pos).tobytes():
                announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
            table = image32
        elif by_table:  # the kernel's table: offset + n, modulo 2**32, with the bitmap bytes over it
            table = base + u32(offset) if offset else base.copy() if tab_byte.size else base
            if tab_byte.size:
                table.view(u8)[tab_byte] = bits[tab_bit]
            index = table.take(pos)
            # a pick unlike the plain gather's (index + offset): a bitmap byte unlike the table's over its entry
            if cb_byte.size and count_nonzero((index - u32(offset) if offset else index) != pos):
                announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
        else:
            table = None
            index = pos.astype(u32)  # the plain gather's picks: index (+ offset), modulo 2**32
            if offset:
                index += u32(offset)
        if table is None and cb_byte.size:
            picked = flat_matches[clob_at]
            if count_nonzero(picked):
                entries = (clob + offset).astype(u32)  # the table's entries, then the bitmap bytes over them
                entries.view(u8)[cb_byte] = bits[cb_bit]
                rank = pos.searchsorted(clob[picked])
                values = entries[picked]
                if count_nonzero(values != index[rank]):
                    announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
                    index[rank] = values
        if slot_rows is not None:
            slots = slot_rows.take(counts, 0)
        else:
            slots = numbers < (counts[:, None] if small else counts.astype(numbers.dtype)[:, None])
        out = dst.view if all_rows else dst.view[:vr]  # (int32 or uint32: the picks' bits either way)
        _write_picks(out, slots, index, dst, cdst, vr, counts)
        own = tmp.storage.view(u8)
        if image_base is not None:
            if image_own:
                own[index_at:index_at + image_own] = image[:image_own]
            if row_pos.size:
                own[row_pos] = bits[row_bits]
            return True
        if index_at < tab_stop:
            own[index_at:tab_stop] = (_index_table(numel, offset) if table is None else table).view(u8)[
                :tab_stop - index_at]
        if cvt_bytes:
            if thresholds is not None:
                own[cvt_at:cvt_stop] = thresholds.view(u8)[:cvt_bytes]
            else:
                own[cvt_at:cvt_at + conv_bytes] = k.view(u8)[:conv_bytes]
                if conv_bytes < cvt_bytes:
                    own[cvt_at + conv_bytes:cvt_stop] = 0  # past an unplaced k
        if row_pos.size:
            own[row_pos] = bits[row_bits]
        return True

    if not (_FAST_IMAGE and image_base is not None and k_in_image and flat_compare and vc % 8 == 0
            and (same_width or src_end <= s_nbytes)):
        return lean
    return _fast_image(config, lean, locals())


_FAST_IMAGE = True  # tests switch it off to hold `_fast_image` to the image form it streamlines
_COUNT_VIEWS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _fast_image(config: Config, lean: Any, made: dict[str, Any]) -> Any:
    """`_lean_scratch`'s image form for the whole tile, k converted into the image, rows of whole bytes
    (validCol a multiple of 8), and the front rows' repeats inside src0's storage: the same bytes, warnings and
    refusals in fewer NumPy calls. The kernel's compares of a row (its valid elements against its threshold, and
    the whole repeat the front rows' bitmaps hold, the elements after the row's included) are the same element
    compares whatever order they are made in, so both sets are made as one compare: src0's valid elements and
    the front rows' repeats (a window of src0's storage whose rows overlap) copied into one kept operand, k's
    thresholds taken at their rows into another (a compare reading the overlapping window, or broadcasting a
    column of k, costs several times more: 16x16 float, 1.8 against 0.3 us), packed once: the valid rows' bits
    first (whole bytes per row: for 8, 16, 32 or 64 valid columns the matches per row are the bit counts of each
    row's bytes read as one unsigned integer), the front rows' repeats after. The image and the compare's buffers
    come from a free list with their views made once (two threads never share one); the window, dst's rows,
    whether dst and cdst share bytes and tmp's bytes are kept for the storages of the last call (made again for
    others). Left to `lean`: a placed tmp, a placed k read past its storage, and the row loop under test."""
    numel, vr, vc, r_end, width, scols = (made[n] for n in ("numel", "vr", "vc", "r_end", "width", "scols"))
    image_base, cvt_in, k_bytes, stype, signed = (made[n] for n in ("image_base", "cvt_in", "k_bytes", "stype",
                                                                     "signed"))
    inside_k, op, same_width, may_overrun, dcols = (made[n] for n in ("inside_k", "op", "same_width",
                                                                       "may_overrun", "dcols"))
    tab_byte, tab_bit, cb_byte, plain_picks = (made[n] for n in ("tab_byte", "tab_bit", "cb_byte", "plain_picks"))
    slot_rows, numbers, small, all_rows = (made[n] for n in ("slot_rows", "numbers", "small", "all_rows"))
    index_at, image_own, row_pos, row_bits = (made[n] for n in ("index_at", "image_own", "row_pos", "row_bits"))
    conv_bytes, cvt_bytes, image_len, bounds = (made[n] for n in ("conv_bytes", "cvt_bytes", "image_len", "bounds"))
    zero_from = cvt_in + conv_bytes if conv_bytes < cvt_bytes else None  # thresholds past an unplaced k: 0
    # (same width: the front rows' repeats are valid rows, their bits lead the packed stream; else the valid
    # rows' bits, then each front row's whole repeat, a window of src0's storage, against its row's threshold:
    # both copied into one operand, the thresholds taken at their rows into another, one compare)
    item = made["item"]
    repeats = 0 if same_width else r_end * width
    shift = 0 if same_width else numel // 8
    rows = None if same_width else np.concatenate([np.arange(numel) // vc, np.arange(r_end).repeat(width)])
    tab_bit, row_bits = tab_bit + shift, row_bits + shift
    count_view = _COUNT_VIEWS.get(vc)
    row_bytes = numel // 8
    u8, u32, packbits, bitwise_count, add = np.uint8, np.uint32, np.packbits, np.bitwise_count, np.add
    shares = np.may_share_memory
    images: list[tuple[Any, ...]] = []

    def fresh() -> tuple[Any, ...]:
        """(image as words, as bytes, its thresholds, the bool buffer of the compare, its valid rows' part, the
        image's bytes that reach tmp, and with repeats: the compare's operands, src0's elements (the valid ones,
        then the repeats' rows of `width`) and their thresholds)."""
        image32 = np.empty_like(image_base)
        image = image32.view(u8)
        both = np.empty(numel + repeats, bool)
        values = np.empty(numel + repeats, stype) if repeats else None
        return (image32, image, image[cvt_in:cvt_in + k_bytes].view(stype), both, both[:numel], image[:image_own],
                values, values[:numel] if repeats else None, values[numel:].reshape(r_end, width) if repeats else None,
                np.empty(numel + repeats, stype) if repeats else None)

    def views_of(dst: Tile, src0: Tile, cdst: Tile, tmp: Tile) -> tuple[Any, ...]:
        """What a call reads off the four storages, made again only for other storages: the front rows' repeats
        as a window of src0's storage, dst's valid rows, whether dst and cdst share bytes, tmp's bytes, and the
        part of them the image's bytes go to."""
        storage = src0.storage
        window = None if same_width else np.ndarray((r_end, width), stype, storage, 0, (scols * item, item))
        own = tmp.storage.view(u8)
        return (storage, dst.storage, cdst.storage, tmp.storage, window, dst.view if all_rows else dst.view[:vr],
                bool(shares(dst.storage, cdst.storage)), own, own[index_at:index_at + image_own])

    last: tuple[Any, ...] = (None,) * 9

    def fast(dst: Tile, src0: Tile, k_value: Tile, cdst: Tile, tmp: Tile, offset: int) -> bool:
        nonlocal last
        if tmp.binding is not None or (k_value.binding is not None and not inside_k) or not _A2A3_ROWS_AT_ONCE:
            return lean(dst, src0, k_value, cdst, tmp, offset)  # type: ignore[no-any-return]
        try:  # (not `if images`: another thread may take the last one between the test and the pop)
            held = images.pop()
        except IndexError:
            held = fresh()
        image32, image, k, both, flat_matches, image_out, values, valid_values, repeat_values, thresholds = held
        views = last
        if views[0] is not src0.storage or views[1] is not dst.storage or views[2] is not cdst.storage \
                or views[3] is not tmp.storage:
            views = last = views_of(dst, src0, cdst, tmp)
        if views[6]:  # cdst shares dst's bytes: the general path, which announces from the final bytes
            images.append(held)
            return False
        name = None
        token = quiet_set()
        try:
            if offset:
                add(image_base, u32(offset), out=image32)
                if zero_from is not None:
                    image[zero_from:image_len] = 0
            else:
                image32[...] = image_base
            if signed is None:
                k[...] = k_value.storage[:vr]  # the contract's reading
            else:
                k[...] = k_value.storage.view(u8)[:k_bytes].view(signed)  # the kernel's
                contract = k_value.storage[:vr].astype(stype)
            if repeats:  # (a compare reading the overlapping window itself costs several times more)
                valid_values[...] = views[0]
                repeat_values[...] = views[4]
                k.take(rows, None, thresholds, "wrap")  # (rows: all in range)
                op(values, thresholds, both)
            else:
                op(views[0], k.repeat(vc), flat_matches)
            if signed is not None and not (k == contract).all() \
                    and not np.array_equal(flat_matches, op(src0.view, contract[:, None]).reshape(-1)):
                name = "tgather_cmp_k_signed_src_width"
        finally:
            quiet_reset(token)
        bits = packbits(both, None, "little")
        pos = flat_matches.nonzero()[0]
        if count_view is not None:
            counts = bitwise_count(bits[:row_bytes].view(count_view))
        else:
            at = pos.searchsorted(bounds)
            counts = at[1:] - at[:-1]
        if may_overrun and counts.max() > dcols:
            images.append(held)
            return False  # the general path announces what it compared, then refuses
        if name is not None:
            announce_erratum(config, INSTR, name)
        if tab_byte.size:
            image[tab_byte] = bits[tab_bit]
        index = image32.take(pos)
        # a pick unlike the plain gather's (index + offset): a bitmap byte unlike the table's over its entry (not
        # looked for where every ErratumWarning is ignored: announcing it would do nothing)
        if cb_byte.size and not errata_ignored() \
                and (index - u32(offset) if offset else index).tobytes() != plain_picks.take(pos).tobytes():
            announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
        if slot_rows is not None:
            slots = slot_rows.take(counts, 0)
        else:
            slots = numbers < (counts[:, None] if small else counts.astype(numbers.dtype)[:, None])
        _write_picks(views[5], slots, index, dst, cdst, vr, counts)  # (int32 or uint32: either way)
        if image_own:
            views[8][...] = image_out
        if row_pos.size:
            views[7][row_pos] = bits[row_bits]
        images.append(held)
        return True

    return fast


def _cmp_general(config: Config, dst: Any, src0: Any, k_value: Any, cdst: Any, tmp: Any, offset: Any,
                 mode: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src0, cdst = check.tile("dst", dst), check.tile("src0", src0), check.tile("cdst", cdst)
    # k_value is the C++ per-row tile, or one number for every row (the PTOAS IR's scalar kValue).
    k_tile = check.tile("k_value", k_value) if not _is_number(k_value) else None
    tmp = check.tile("tmp", tmp) if tmp is not None else None
    check.distinct_storage({"dst": dst, "cdst": cdst})
    mode = _enum(check, CmpMode, mode, "cmpMode")
    offset = _offset(check, offset)
    _static_cmp(dst.spec, src0.spec, k_tile.spec if k_tile is not None else None, cdst.spec,
                tmp.spec if tmp is not None else None, mode, config)
    vr, vc = src0.valid_shape
    holders = (("dst", dst), ("cdst", cdst)) + ((("k_value", k_tile),) if k_tile is not None else ())
    for role, tile in holders:
        size = tile.spec.rows if role == "dst" else tile.spec.numel
        if size < vr:
            check.fail(role, f"must hold one entry per valid src0 row ({vr}), but holds {size}")
    for role, tile in holders[1:]:
        if tile.storage.ndim != 1:  # k[i] and cdst[i] are element i of a run of storage
            raise NotModelledError(f"{INSTR} on {config.name}: {role} is read or written as one run of storage "
                                   "(element i for row i), and it is a window of a wider tile (its rows are not "
                                   "contiguous)")
    k_scalar = None if k_tile is not None else to_element(k_value, src0.spec.dtype, check, "k_value")

    raw = (src0.spec.layout_name != "ND" or dst.spec.layout_name != "ND") and config.erratum("tgather_cmp_raw_rows")

    def compare(how: CmpMode, plain: bool = raw) -> np.ndarray:
        if k_tile is not None:
            return _cmp_matches(config, src0, k_tile, vr, vc, how, plain)
        return _cmp_matches_scalar(config, src0, k_scalar, vr, vc, how, plain)

    matches = compare(mode)
    if mode is CmpMode.GT and src0.spec.np_dtype == np.uint16 and config.erratum("tgather_cmp_u16_gt_as_eq"):
        matches = _announced(config, "tgather_cmp_u16_gt_as_eq", matches, compare(CmpMode.EQ))
    # The matches' flat positions i * vc + j in row-major order; row i's count is how many fall in
    # [i * vc, (i + 1) * vc) (a binary search per row bound: cheaper than a sum over the mask).
    flat = matches.reshape(-1).nonzero()[0]
    counts = np.diff(np.searchsorted(flat, np.arange(0, (vr + 1) * vc, vc))) if vc else np.zeros(vr, np.int64)
    if vr and counts.max() > dst.spec.cols:
        row = int(np.argmax(counts))
        check.fail("dst", f"rows hold {dst.spec.cols} indices, but src0 row {row} has {int(counts[row])} matches")
    if tmp is not None and k_tile is not None and config.profile.tgather_cmp.tmp == "required":
        short = _cmp_tmp_short(dst.spec, src0.spec, tmp.spec)  # only reachable under undefined="emulate"
        if short or (config.erratum("tgather_cmp_bitmap_rows") and _bitmap_overlaps(src0, tmp.spec)):
            target, commit = _a2a3_cmp_scratch(config, dst, src0, k_tile, cdst, tmp, offset, mode)
            if not short:  # what the other errata alone give (they announce themselves), to announce this one
                # when the final dst and cdst differ (where cdst shares dst's bytes, the bytes after both writes)
                saved = dst.storage.copy(), cdst.storage.copy()
                without = config.without("tgather_cmp_bitmap_rows")
                try:
                    with warnings.catch_warnings():  # the other errata were announced by the compare above
                        warnings.simplefilter("ignore")
                        tgather_cmp(without, dst, src0, k_value, cdst, tmp, offset, mode)
                    other = dst.tobytes() + cdst.tobytes()
                except PtoError:
                    other = b""
                finally:
                    dst.storage[:], cdst.storage[:] = saved
                if other != target:
                    announce_erratum(config, INSTR, "tgather_cmp_bitmap_rows")
            commit()
            return
    row_stride = src0.spec.cols
    if config.erratum("tgather_cmp_running_index"):
        running = 64 * -(-vc // 64)
        if running != row_stride and vr > 1 and counts[1:].any():
            announce_erratum(config, INSTR, "tgather_cmp_running_index")
        row_stride = running
    # Matches in row-major order are exactly the row-major order of dst's first counts[i] slots of each row.
    if row_stride != vc:
        flat += (flat // vc) * (row_stride - vc)
    index = flat.astype(dst.spec.np_dtype)  # int64 -> 32 bits wraps modulo 2**32, as uint32 does
    if offset:
        index += np.uint32(offset).astype(index.dtype)  # the offset's 32 bits in dst's type; the sum wraps
    numbers = _slot_numbers(dst.spec.cols)
    slots = numbers[None, :] < counts.astype(numbers.dtype)[:, None]  # counts <= dst Cols: exact
    if raw:  # audit D13: the kernels address src0 and dst row i at i * Cols (a5/TGather.hpp:350-390)
        target = dst.storage.copy()
        target.reshape(dst.spec.rows, dst.spec.cols)[:vr][slots] = index
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            contract_dst, contract_cdst = dst.storage.copy(), cdst.storage.copy()
            try:
                tgather_cmp(config.without("tgather_cmp_raw_rows"), dst, src0, k_value, cdst, tmp, offset, mode)
                contract = dst.tobytes() + cdst.tobytes()
            except PtoError:
                contract = b""
            finally:
                dst.storage[:], cdst.storage[:] = contract_dst, contract_cdst
        new_cdst = cdst.storage.copy()
        new_cdst[:vr] = counts.astype(np.int64).astype(cdst.spec.np_dtype)
        if contract != target.tobytes() + new_cdst.tobytes():
            announce_erratum(config, INSTR, "tgather_cmp_raw_rows")
        dst.storage[:] = target
        cdst.storage[:] = new_cdst
        return
    if dst.view is not None:
        dst.view[:vr][slots] = index
    else:
        dst.storage[offset_table(dst.spec)[:vr][slots]] = index
    cdst.storage[:vr] = counts.astype(np.int64).astype(cdst.spec.np_dtype)


@lru_cache(maxsize=256)
def _slot_numbers(cols: int) -> np.ndarray:
    """0 .. cols - 1 in the narrowest of int16/int32 that holds cols (a narrow compare is several times faster
    than int64's)."""
    numbers = np.arange(cols, dtype=np.int16 if cols < 2**15 else np.int32)
    numbers.flags.writeable = False
    return numbers


def _offset(check: Check, offset: Any) -> int:
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        check.fail("offset", f"must be an integer (got {shown(offset)})")
    return int(offset) & 0xFFFFFFFF


@lru_cache(maxsize=4096)
def _static_cmp(dst: TileSpec, src0: TileSpec, k: TileSpec | None, cdst: TileSpec, tmp: TileSpec | None,
                mode: CmpMode, config: Config) -> None:
    rules = config.profile.tgather_cmp
    check = Check(INSTR, config.name)
    check.dtype("dst", dst.dtype, rules.dst_dtypes)
    check.dtype("src0", src0.dtype, rules.src_dtypes)
    if k is not None:
        check.dtype("k_value", k.dtype, rules.k_dtypes)
    if cdst.dtype.is_float:
        check.fail("cdst", f"dtype must be an integer type (got {cdst.dtype.cname})")
    if mode not in rules.modes:
        check.fail("cmpMode", f"{mode.name} is not supported (allowed: {', '.join(m.name for m in rules.modes)})")
    if src0.dtype in rules.eq_only_src_dtypes and mode is not CmpMode.EQ:
        check.fail("src0", f"dtype {src0.dtype.cname} is supported with EQ only (got {mode.name})")
    for role, spec in (("dst", dst), ("src0", src0), ("k_value", k), ("cdst", cdst)):
        if spec is None:
            continue
        check.loc(role, spec.loc, rules.locs if role in ("dst", "src0") else None)
        check.fits(role, spec)
    if k is not None and k.dtype.itemsize == 2 and rules.k16_src_dtypes is not None \
            and src0.dtype not in rules.k16_src_dtypes:
        srcs = " or ".join(d.cname for d in rules.k16_src_dtypes)
        check.fail("k_value", f"dtype {k.dtype.cname} is supported with a {srcs} src0 only (got {src0.dtype.cname})")
    if rules.tmp == "required":
        if tmp is None:
            check.fail("tmp", "is required on this target")
        if config.undefined == "raise":
            _check_cmp_tmp(check, dst, src0, tmp)


def _cmp_tmp_short(dst: TileSpec, src0: TileSpec, tmp: TileSpec) -> bool:
    return tmp.nbytes < tmp.rows * tmp.cols + src0.numel * dst.dtype.itemsize + src0.rows * src0.dtype.itemsize


def _bitmap_overlaps(src0: Tile, tmp: TileSpec) -> bool:
    """Whether the A2/A3 bitmap rows (whole repeats, at tmp Cols bytes apart) overlap or leave tmp's bitmap area."""
    vr, vc = src0.valid_shape
    per_repeat = 256 // src0.spec.dtype.itemsize
    row_bytes = -(-vc // per_repeat) * per_repeat // 8
    area = tmp.rows * tmp.cols
    return vr > 0 and vc > 0 and (row_bytes > tmp.cols or (vr - 1) * tmp.cols + row_bytes > area)


class _Scratch:
    """Where the A2/A3 comparison kernel's scratch bytes lie, for one signature (tile types, valid shape, k
    reading), and what its order decides there. Addresses are tmp-relative bytes ("virtual"); the scratch array
    holds only the bytes the kernel touches, so that a one-row tmp (bitmap rows tmp Cols bytes apart, megabytes of
    address space) costs what its bytes cost:

    * the front, [0, front): tmp's own bytes, the index table and the thresholds after them, and every bitmap
      row that starts before their end, kept at their virtual addresses;
    * the tail: the bitmap rows past the front (when rows do not overlap one another, tmp Cols >= a row's bytes),
      packed one after another from `front` on. Nothing else lies there, and every byte of them is written
      before it is read.

    Bytes of the front past tmp's storage that the kernel does not write are never read and never committed, so
    the scratch starts as tmp's bytes followed by zeros.

    `covered`: the rows whose threshold an earlier row's bitmap covered (they read those bitmap bytes), each with
    its (threshold byte, writer row, byte of the writer's bitmap) triples; the rows covering a byte p are a run
    ending at p // stride, the last earlier one wrote it. `keep_at`/`keep_bits`: where bitmaps overlap
    (stride < a row's bytes), the scratch positions and flat bitmap bytes that survive (byte o of row j survives
    when o < stride or j is the last row)."""

    __slots__ = ("clobbered", "count", "covered", "cvt_at", "cvt_end", "front", "index_at", "k_read", "keep_at",
                 "keep_bits", "kind", "nb", "nbv", "nfront", "nrep", "per_repeat", "row_at", "rows_at", "size",
                 "src_end", "stride", "tail_at", "tail_from", "width")
    keep_at: np.ndarray | None
    keep_bits: np.ndarray | None

    def __init__(self, tspec: TileSpec, sspec: TileSpec, kspec: TileSpec, vr: int, vc: int, k_signed: bool) -> None:
        item = sspec.dtype.itemsize
        self.stride = tc = tspec.cols
        self.index_at = tspec.rows * tc
        self.cvt_at = cvt_at = self.index_at + sspec.numel * 4
        self.per_repeat = 256 // item
        self.nrep = -(-vc // self.per_repeat)
        self.width = self.nrep * self.per_repeat
        self.nb = nb = self.width // 8
        self.nbv = -(-vc // 8)
        k_item = kspec.dtype.itemsize
        k_repeats = -(-vr // (256 // k_item))
        if sspec.np_dtype == np.int32:
            self.kind, self.count = "int32", sspec.rows
            self.k_read = self.count * k_item
        elif k_signed:
            self.kind, self.count = "signed", k_repeats * self.per_repeat
            self.k_read = self.count * item
        else:  # k converted from its own type (the contract's reading), with the same repeat-wide writes
            self.kind, self.count = "own", k_repeats * self.per_repeat
            self.k_read = self.count * k_item
        self.cvt_end = cvt_at + self.count * item
        fixed = max(tspec.nbytes, self.cvt_end)  # tmp, the index table and the thresholds
        rows = np.arange(vr, dtype=np.int64)
        if vr and tc >= nb and (vr - 1) * tc + nb > fixed:
            last = min((fixed - 1) // tc, vr - 1)  # the last row starting before `fixed`
            self.front = max(fixed, last * tc + nb)
            self.tail_from = last + 1
        else:
            self.front = max(fixed, (vr - 1) * tc + nb if vr else 0)
            self.tail_from = vr
        n_tail = vr - self.tail_from
        self.size = self.front + n_tail * nb
        self.row_at = rows * tc
        self.row_at[self.tail_from:] = self.front + np.arange(n_tail) * nb
        self.tail_at = ((rows[self.tail_from:] * tc)[:, None] + np.arange(nb)).reshape(-1)  # virtual, ascending
        self.rows_at = (self.row_at[:, None] + np.arange(nb)).reshape(-1)  # every bitmap byte, row after row
        self.src_end = ((vr - 1) * sspec.cols + self.width) * item if vr else 0
        self.nfront = self.tail_from if tc >= nb else 0  # rows written through one strided view (none: overlaps)
        # the index table's entries of valid elements that a bitmap row overwrites (in part), ascending
        table_end = cvt_at
        hit: list[np.ndarray] = []
        for i in range(self.tail_from):
            lo, hi = max(i * tc, self.index_at), min(i * tc + nb, table_end)
            if lo < hi:
                hit.append(np.arange((lo - self.index_at) // 4, (hi - 1 - self.index_at) // 4 + 1))
        entries = np.unique(np.concatenate(hit)) if hit else np.zeros(0, np.int64)
        self.clobbered = entries[(entries // sspec.cols < vr) & (entries % sspec.cols < vc)]
        # the compare loop's order (one chunk): thresholds covered by earlier bitmaps, overlapping bitmaps
        rows_i = rows[:, None]
        p = cvt_at + rows_i * item + np.arange(item)[None, :]
        last_w = np.minimum(p // tc, rows_i - 1)
        first_w = -((nb - 1 - p) // tc)  # ceil((p - nb + 1) / stride): the first row reaching p
        writer = np.where((last_w >= np.maximum(first_w, 0)) & (last_w >= 0), last_w, -1)
        self.covered = tuple((int(i), tuple((int(b), int(writer[i, b]), int(p[i, b] - writer[i, b] * tc))
                                            for b in np.flatnonzero(writer[i] >= 0)))
                             for i in np.flatnonzero((writer >= 0).any(axis=1)))
        if tc < nb and vr:
            offsets = np.arange(nb)[None, :]
            keep = np.broadcast_to((offsets < tc) | (rows_i == vr - 1), (vr, nb))
            self.keep_at = (self.row_at[:, None] + offsets)[keep]
            self.keep_bits = np.flatnonzero(keep)
        else:
            self.keep_at = self.keep_bits = None


@lru_cache(maxsize=1024)
def _scratch_layout(tspec: TileSpec, sspec: TileSpec, kspec: TileSpec, vr: int, vc: int,
                    k_signed: bool) -> _Scratch:
    return _Scratch(tspec, sspec, kspec, vr, vc, k_signed)


class _ScratchRun:
    """One call's scratch emulation, nothing written yet: dst's would-be elements, either as the picks placed
    at once (`slots`, a (validRow, dst Cols) mask of dst's first rows, `picked` their values, `flat` their flat
    positions among the valid elements) or, when the row loop placed them, as an image (`out`, uint32 over dst's
    storage and past it, `dst_written` marking the bytes written when some may lie past it, else None); cdst's
    (`new_cdst`); and `commit`."""

    __slots__ = ("changed", "commit", "dst", "dst_written", "flat", "new_cdst", "out", "picked", "slots")
    changed: bool | None
    commit: Any
    dst: Tile
    dst_written: Any
    flat: Any
    new_cdst: np.ndarray
    out: Any
    picked: Any
    slots: Any

    def image(self) -> np.ndarray:
        """dst's would-be elements over its storage (uint32)."""
        if self.slots is None:
            return self.out[:self.dst.spec.numel]
        out = self.dst.storage.view(np.uint32).copy()
        vr, dcols = self.slots.shape
        out[:vr * dcols].reshape(vr, dcols)[self.slots] = self.picked
        return out


def _a2a3_cmp_scratch(config: Config, dst: Tile, src0: Tile, k_tile: Tile, cdst: Tile, tmp: Tile, offset: int,
                      mode: CmpMode) -> tuple[bytes, Any]:
    """The A2/A3 comparison gather as its kernel runs it (see `_scratch_run`): dst's and cdst's would-be bytes and
    a function that commits every write."""
    run = _scratch_run(config, dst, src0, k_tile, cdst, tmp, offset, mode)
    return final_bytes(dst, cdst, run.image(), run.new_cdst, src0.valid_row), run.commit


def final_bytes(dst: Tile, cdst: Tile, image: np.ndarray, new_cdst: np.ndarray, vr: int) -> bytes:
    """dst's and cdst's bytes after the comparison form's writes: dst's would-be storage `image` (the picks
    written), then cdst's first `vr` elements from `new_cdst` (the counts). Where cdst shares dst's bytes, the
    picks show through cdst's other elements and the counts overwrite dst's bytes under them."""
    d = np.frombuffer(image.tobytes(), np.uint8).copy()
    c = cdst.storage.view(np.uint8).copy()
    written = vr * cdst.spec.dtype.itemsize
    c[:written] = new_cdst.view(np.uint8)[:written]
    if np.may_share_memory(dst.storage, cdst.storage) and dst.storage.ndim == 1 and dst.storage.flags.c_contiguous:
        at = cdst.storage.ctypes.data - dst.storage.ctypes.data  # cdst's first byte among dst's
        lo, hi = max(0, -at), min(c.size, d.size - at)
        if lo < hi:
            keep = np.arange(lo, hi) >= written  # cdst's bytes the counts leave: dst's picks show there
            c[lo:hi] = np.where(keep, d[at + lo:at + hi], c[lo:hi])
            d[at + lo:at + hi] = c[lo:hi]
    return d.tobytes() + c.tobytes()


def _scratch_run(config: Config, dst: Tile, src0: Tile, k_tile: Tile, cdst: Tile, tmp: Tile, offset: int,
                 mode: CmpMode, known: tuple[np.ndarray, ...] | None = None,
                 lay: _Scratch | None = None) -> _ScratchRun:
    """The A2/A3 comparison gather as its kernel runs it (a2a3/TGather.hpp:160-300), byte by byte in tmp:

    * an index table of offset + n for every element n of src0's static Rows x Cols, at tmp byte Rows * Cols of
      tmp (tmp's elements counted as bytes);
    * the thresholds after it: k read at the source's width as a signed integer and converted (vconv, whole
      256-byte repeats for float and half);
    * row i's compare bitmap at tmp byte i * tmp Cols, covering whole 256-byte repeats of src0 row i (read at
      i * src0 Cols; bytes past the valid columns are compared too);
    * then, per row, the indices whose bits are set among the first validCol, packed into dst row i (at
      i * dst Cols), and their count into cdst[i].

    Bytes past tmp's storage (index table, thresholds, bitmap overrun) go into tmp's on-chip buffer when tmp is
    placed with TASSIGN; src0 and k are read past their storage the same way (0 when not placed). The scratch
    holds only the bytes the kernel touches (`_Scratch`). Nothing is written here.

    `known`: the valid region's matches against k as the scratch's thresholds read it, their flat positions, row
    counts, table positions and the plain gather's picks (index + offset), when the caller has them (the compiled
    call): used where no earlier bitmap covers a threshold; then `changed` tells whether a pick differs from the
    plain gather's (only entries of `_Scratch.clobbered` can), and the picks are the caller's array, patched
    there."""
    sspec, item = src0.spec, src0.spec.dtype.itemsize
    tin = sspec.np_dtype
    vr, vc = src0.valid_shape
    if lay is None:
        lay = _scratch_layout(tmp.spec, sspec, k_tile.spec, vr, vc, config.erratum("tgather_cmp_k_signed_src_width"))
    index_at, cvt_at, per_repeat, nrep, row_at = lay.index_at, lay.cvt_at, lay.per_repeat, lay.nrep, lay.row_at
    k_raw = k_tile.storage.view(np.uint8)[:lay.k_read] if lay.k_read <= k_tile.spec.nbytes \
        else window(k_tile, lay.k_read)
    if lay.kind == "int32":
        thresholds = k_raw.view(k_tile.spec.np_dtype).astype(np.int64).astype(np.int32)
    elif lay.kind == "signed":
        thresholds = k_raw.view(f"<i{item}").astype(tin)
    else:
        with quiet():
            thresholds = k_raw.view(k_tile.spec.np_dtype).astype(tin)
    own = tmp.storage.view(np.uint8)
    # tmp's bytes, but for those the index table and thresholds overwrite; nothing else of the scratch is read
    # before being written, nor committed unwritten
    scratch = np.empty(lay.size, dtype=np.uint8)
    scratch[:min(index_at, own.size)] = own[:index_at]
    if lay.cvt_end < own.size:
        scratch[lay.cvt_end:own.size] = own[lay.cvt_end:]
    # which scratch bytes were written matters only for a tmp placed with TASSIGN (they reach its buffer)
    written = np.zeros(lay.size, dtype=bool) if tmp.binding is not None else None

    def put(at: int, data: np.ndarray) -> None:
        raw = data.view(np.uint8).reshape(-1)
        scratch[at:at + raw.size] = raw
        if written is not None:
            written[at:at + raw.size] = True

    put(index_at, _index_table(sspec.numel, offset))
    put(cvt_at, thresholds)
    src_end = lay.src_end
    source = src0.storage if src_end <= sspec.nbytes else window(src0, src_end).view(tin)  # nothing written yet
    op = np.greater if mode is CmpMode.GT else np.equal
    chunk = 255 * per_repeat  # TCMPS_REPEAT_MAX repeats per compare instruction
    starts = list(range(0, nrep * per_repeat, chunk))
    hits = None
    if known is not None and lay.covered:
        known = None
    if len(starts) == 1 and vr and _A2A3_ROWS_AT_ONCE:
        hits = _bitmaps_at_once(lay, scratch, written, source, op, vr, sspec.cols, tin,
                                None if known is None else known[0])
    else:
        for start in starts:  # the backend runs each chunk over every row before the next chunk
            stop = min(start + chunk, nrep * per_repeat)
            for i in range(vr):
                k = scratch[cvt_at + i * item:cvt_at + (i + 1) * item].view(tin)[0]
                seg = source[i * sspec.cols + start:i * sspec.cols + stop]
                with quiet():
                    bits = np.packbits(op(seg, k), bitorder="little")
                put(int(row_at[i]) + start // 8, bits)
    run = _ScratchRun()
    dcols, scols = dst.spec.cols, sspec.cols
    run.flat = run.picked = run.slots = run.out = run.dst_written = run.changed = None
    counts = np.zeros(vr, dtype=np.int64)
    vr_loop = vr
    if vr and vc and _A2A3_ROWS_AT_ONCE:  # every row at once (the loop below where a row overruns dst's row)
        plain = None
        if hits is not None and lay.keep_at is None and known is not None:
            _, flat, counts, pos, plain = known  # rows apart, each row's bits those of the compare
        else:
            if hits is not None and lay.keep_at is None:
                mask = hits[:, :vc]  # rows apart: each row's bitmap as written, its bits those of the compare
            else:  # rows may overlap: read them from the scratch
                marks = np.ndarray((vr, lay.nbv), np.uint8, scratch, 0, (lay.stride, 1)) if lay.tail_at.size == 0 \
                    else scratch[lay.rows_at].reshape(vr, lay.nb)[:, :lay.nbv]
                mask = np.unpackbits(marks, axis=1, bitorder="little")[:, :vc].view(bool)
            flat = np.flatnonzero(mask)
            bounds = flat.searchsorted(np.arange(0, (vr + 1) * vc, vc))
            counts = bounds[1:] - bounds[:-1]
        if counts.max() <= dcols:  # rows land apart: row i's picks in dst row i's first counts[i] slots
            table = scratch[index_at:index_at + sspec.numel * 4].view(np.uint32)
            if plain is None:
                pos = flat + (flat // vc) * (scols - vc) if scols != vc else flat
                run.picked = table.take(pos)
            else:  # the table is the plain picks (index + offset) but where a bitmap row overwrote an entry
                run.picked, run.changed = plain, False
                clobbered = lay.clobbered
                if clobbered.size and pos.size:
                    rank = pos.searchsorted(clobbered)
                    picked_e = rank < pos.size
                    picked_e[picked_e] = pos[rank[picked_e]] == clobbered[picked_e]
                    rank = rank[picked_e]
                    values = table[clobbered[picked_e]]
                    if (values != plain[rank]).any():
                        plain[rank] = values  # the caller's array, not used after
                        run.changed = True
            numbers = _slot_numbers(dcols)
            run.slots = numbers < counts.astype(numbers.dtype)[:, None]
            run.flat = flat
            vr_loop = 0
    if vr_loop or run.slots is None:
        reach = ((vr - 1) * dcols + vc) * 4 if vr else 0
        run.out = out = dst.storage.view(np.uint32).copy() if reach <= dst.spec.nbytes \
            else window(dst, reach).view(np.uint32)
    if vr_loop:
        run.dst_written = dst_written = np.zeros(out.size * 4, dtype=bool)
        for i in range(vr_loop):
            table = scratch[index_at + i * scols * 4:index_at + (i * scols + vc) * 4].view(np.uint32)
            at = int(row_at[i])
            mask = np.unpackbits(scratch[at:at + lay.nbv], bitorder="little")[:vc].astype(bool)
            picked = table[mask]
            at = i * dcols
            out[at:at + picked.size] = picked
            dst_written[at * 4:(at + picked.size) * 4] = True
            counts[i] = picked.size
    new_cdst = cdst.storage.copy()
    new_cdst[:vr] = counts.astype(cdst.spec.np_dtype)
    run.new_cdst = new_cdst
    run.dst = dst

    def commit() -> None:
        if run.slots is not None:  # the picks straight into dst (nothing else of it changes)
            dst.storage.view(np.uint32)[:vr * dcols].reshape(vr, dcols)[run.slots] = run.picked
        elif run.dst_written is None:  # nothing past dst
            dst.storage.view(np.uint32)[:] = run.out[:dst.spec.numel]
        else:
            spill(dst, run.out.view(np.uint8), run.dst_written)
        cdst.storage[:vr] = new_cdst[:vr]  # the kernel writes cdst[i] for i < vr only
        if written is None:  # past an unplaced tmp the writes are dropped (as `spill` drops them)
            own[:] = scratch[:own.size]
        else:
            _commit_scratch(tmp, lay, scratch, written)

    run.commit = commit
    return run


def _commit_scratch(tmp: Tile, lay: _Scratch, scratch: np.ndarray, written: np.ndarray) -> None:
    """A placed tmp's scratch into tmp and its buffer: the front as `spill` commits a window, the tail rows (all
    written) at their virtual addresses, those inside the buffer."""
    front = lay.front
    spill(tmp, scratch[:front], written[:front])
    if lay.tail_at.size:
        binding = tmp.binding
        at, data = lay.tail_at, scratch[front:]
        room = binding.buffer.size - binding.offset
        if at[-1] >= room:
            at, data = at[at < room], data[:int((at < room).sum())]
        binding.buffer[binding.offset + at] = data


@lru_cache(maxsize=64)
def _table_base(numel: int) -> np.ndarray:
    base = np.arange(numel, dtype=np.uint32)
    base.flags.writeable = False
    return base


def _index_table(numel: int, offset: int) -> np.ndarray:
    """The kernel's index table: offset + n for n < numel, modulo 2**32, as uint32."""
    base = _table_base(numel)
    return base + np.uint32(offset) if offset else base


_A2A3_ROWS_AT_ONCE = True  # tests switch it off to hold `_bitmaps_at_once` to the row-by-row loop


def _bitmaps_at_once(lay: _Scratch, scratch: np.ndarray, written: np.ndarray | None, source: np.ndarray, op: Any,
                     vr: int, cols: int, tin: Any, valid_hits: np.ndarray | None = None) -> np.ndarray:
    """The A2/A3 compare loop of one chunk (every row's `width` elements, row i's bitmap of nb = width / 8
    bytes written at scratch byte row_at[i] (virtual byte i * stride), its threshold read at cvt_at + i * itemsize),
    as the row-by-row loop leaves scratch, with whole-array NumPy calls; returns every row's compare (vr, width).

    The loop's order shows in two ways (`_Scratch.covered`, `keep_at`). A threshold read after an earlier row's
    bitmap covered its bytes reads those bitmap bytes: such rows are computed one by one after the others, their
    threshold bytes overlaid by the last earlier writer's. And where bitmaps overlap, a byte keeps the last
    row's. `valid_hits`: the compare of the valid columns, when the caller has it (no threshold covered); used
    when they are all the columns compared."""
    item = np.dtype(tin).itemsize
    width, cvt_at = lay.width, lay.cvt_at
    block = np.ndarray((vr, width), tin, source, 0, (cols * item, item))  # row i: its `width` elements
    token = quiet_set()
    try:
        k = scratch[cvt_at:cvt_at + vr * item].view(tin)[:, None]  # (vr, 1): each row's threshold as put
        if valid_hits is not None and valid_hits.shape[1] == width:
            hits = valid_hits
        else:  # (the valid columns again when there are others: one call is cheaper than assembling two)
            hits = op(block, k)
        bits = np.packbits(hits, axis=1, bitorder="little")  # (vr, nb)
        for i, pieces in lay.covered:  # rows whose threshold an earlier bitmap covered, in order
            mine = scratch[cvt_at + i * item:cvt_at + (i + 1) * item].copy()
            for b, j, o in pieces:
                mine[b] = bits[j, o]
            hits[i] = op(block[i], mine.view(tin)[0])
            bits[i] = np.packbits(hits[i], bitorder="little")
    finally:
        quiet_reset(token)
    if lay.keep_at is not None:  # overlapping rows
        scratch[lay.keep_at] = bits.reshape(-1)[lay.keep_bits]
    else:
        nfront, front = lay.nfront, lay.front
        if nfront:
            np.ndarray((nfront, lay.nb), np.uint8, scratch, 0, (lay.stride, 1))[...] = bits[:nfront]
        if nfront < vr:
            scratch[front:] = bits[nfront:].reshape(-1)
    if written is not None:
        written[lay.rows_at] = True
    return hits


def _check_cmp_tmp(check: Check, dst: TileSpec, src0: TileSpec, tmp: TileSpec | None) -> None:
    if tmp is None:
        check.fail("tmp", "is required on this target")
    need = tmp.rows * tmp.cols + src0.numel * dst.dtype.itemsize + src0.rows * src0.dtype.itemsize
    if tmp.nbytes < need:  # DECISIONS 24: undefined (the backend writes its tables past tmp)
        check.undefined("tmp", f"must hold at least {need} bytes (bitmap {tmp.rows * tmp.cols}, indices "
                          f"{src0.numel * dst.dtype.itemsize}, thresholds {src0.rows * src0.dtype.itemsize}); "
                          f"got {tmp.nbytes}" + ("; the bitmap counts Rows*Cols bytes of tmp itself, so a 1-byte tmp "
                                                 "dtype can never hold it: use a 4-byte one" if tmp.dtype.itemsize == 1
                                                 else ""))


def _cmp_matches(config: Config, src0: Tile, k_value: Tile, vr: int, vc: int, mode: CmpMode,
                 raw: bool = False) -> np.ndarray:
    """src0[i, j] <mode> k[i], with k[i] (element i of k's storage) converted to src0's type; `raw` reads src0's
    rows as plain storage rows (the NPUs' addressing)."""
    dtype = src0.spec.dtype
    op = np.greater if mode is CmpMode.GT else np.equal
    values = _plain(src0)[:vr, :vc] if raw else region(src0, vr, vc)
    contract = op(values, _as_src_type(k_value.storage[:vr], src0)[:, None])  # same-type compare is exact
    if config.erratum("tgather_cmp_k_signed_src_width"):
        signed = np.dtype(f"<i{dtype.itemsize}")
        k_raw = k_value.storage.view(np.uint8)[:vr * dtype.itemsize].view(signed)
        target = op(_wide(values), _wide(_as_src_type(k_raw, src0)[:, None]))
        return _announced(config, "tgather_cmp_k_signed_src_width", contract, target)
    if src0.spec.np_dtype == np.float16 and config.erratum("tgather_cmp_half_k_int16"):
        k_low = k_value.storage[:vr].astype(np.int64) & 0xFFFF  # broadcast into an int16 vector: low 16 bits
        k_f32 = (((k_low + 0x8000) & 0xFFFF) - 0x8000).astype(np.float32)  # as signed, then exactly to float
        target = op(values.astype(np.float32), k_f32[:, None])
        return _announced(config, "tgather_cmp_half_k_int16", contract, target)
    if config.erratum("tgather_cmp_unsigned") and not dtype.is_float:
        unsigned = np.dtype(f"<u{dtype.itemsize}")
        k_full = k_value.storage[:vr].astype(np.int64)  # k is uint16/uint32: compared whole, not narrowed
        target = op(values.view(unsigned).astype(np.int64), k_full[:, None])
        return _announced(config, "tgather_cmp_unsigned", contract, target)
    return contract


def _cmp_matches_scalar(config: Config, src0: Tile, k: np.generic, vr: int, vc: int, mode: CmpMode,
                        raw: bool = False) -> np.ndarray:
    """src0[i, j] <mode> k for one threshold k already in src0's type (no k tile, so no k-width erratum)."""
    dtype = src0.spec.dtype
    op = np.greater if mode is CmpMode.GT else np.equal
    values = _plain(src0)[:vr, :vc] if raw else region(src0, vr, vc)
    contract = op(values, k)
    if config.erratum("tgather_cmp_unsigned") and not dtype.is_float:
        unsigned = np.dtype(f"<u{dtype.itemsize}")
        target = op(values.view(unsigned), np.asarray(k).view(unsigned))
        return _announced(config, "tgather_cmp_unsigned", contract, target)
    return contract


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _as_src_type(k: np.ndarray, src0: Tile) -> np.ndarray:
    with quiet():
        return k.astype(src0.spec.np_dtype)


def _wide(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float64 if values.dtype.kind == "f" or values.dtype.kind == "V" else np.int64)


def _announced(config: Config, name: str, contract: np.ndarray, target: np.ndarray) -> np.ndarray:
    if not np.array_equal(contract, target):
        announce_erratum(config, INSTR, name)
    return target
