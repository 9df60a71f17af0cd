"""TPARTMUL: elementwise multiply over mismatched valid regions (include/pto/*/TPartMul.hpp).

    pto.tpartmul ins(%src0, %src1 : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%dst : !pto.tile_buf<...>)

    for i < dst.GetValidRow(), j < dst.GetValidCol():
        both valid:     dst[i, j] = src0[i, j] * src1[i, j]   (element-type arithmetic: integers wrap)
        only src0:      dst[i, j] = src0[i, j]
        only src1:      dst[i, j] = src1[i, j]

Legal patterns (DECISIONS 9): a zero dst valid region returns at once; otherwise one source's valid region equals
dst's and the other's does not exceed dst's in either dimension. Anything else is undefined: refused by default;
under undefined='emulate' each target's observable behaviour is reproduced (cpu writes 0 where neither source is
valid; a2a3 writes nothing unless a source equals dst; a5 copies the larger source's data).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .._quiet import QUIET, quiet
from ..errors import NotModelledError, PtoError
from ..targets import Config
from ..tile.layout import certainly_apart, region, store, write_region
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import Check, announce_erratum, commit_variant

INSTR = "TPARTMUL"


def tpartmul(config: Config, dst: Any, src0: Any, src1: Any) -> None:
    if type(dst) is Tile and type(src0) is Tile and type(src1) is Tile:
        # one key for the tile types, the target and the valid shapes the call meets (the types' own, unless they
        # take theirs at run time): compiled per tuple of them
        key = (config, dst.spec, src0.spec, src1.spec, dst._valid_row, dst._valid_col, src0._valid_row,
               src0._valid_col, src1._valid_row, src1._valid_col)
        run = _COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile(key, dst, src0, src1)
        if run is not None:
            run(dst, src0, src1)
            return
    _general(config, dst, src0, src1)


_UNSET = object()
_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile(key: tuple[Any, ...], dst: Tile, src0: Tile, src1: Tile) -> Any:
    """A call compiled once per tile types, target and valid shapes (`key`: those of `tpartmul`, the valid
    shapes last) for plain layouts and a supported valid-shape pattern:
    the full source copied into dst, the overlap multiplied in place, and on a2a3 the padding columns its copy
    also writes (erratum tpartmul_copy_padding) decided here. None (remembered) where the general path decides
    per call (boxed layouts, an unsupported pattern, a padding copy that would leave a tile's rows); a refusal is
    left to the general path and not remembered."""
    config, dspec, aspec, bspec = key[:4]
    specs = (dspec, aspec, bspec)
    if len(_COMPILED) >= 4096:
        return None
    try:
        _static(dspec, aspec, bspec, config)
    except PtoError:
        return None
    run = None
    if dst.view is not None and src0.view is not None and src1.view is not None:
        if any(s.dynamic_row or s.dynamic_col for s in specs):
            run = _deciding(config, dspec, aspec, bspec)(key[4:6], key[6:8], key[8:10])
        else:
            d, a, b = ((s.valid_row, s.valid_col) for s in specs)
            if d[0] and d[1] and _legal_pattern(d, a, b):
                padding = _padding_slices(config, dspec, aspec if a == d else bspec, d, b if a == d else a)
                if padding is None:
                    # every valid region is its whole tile, and one layout: storage element i is one element
                    whole = all((s.rows, s.cols) == d and s.blayout is dspec.blayout for s in specs)
                    tile_copy = _tile_copy(dspec, aspec if a == d else bspec) and d == (dspec.rows, dspec.cols)
                    run = _partial_plan(config, dspec.np_dtype, d, a, b, whole, tile_copy)
                elif padding is not _OUTSIDE:
                    run = _padded_plan(config, dspec.np_dtype, d, a, b, padding)
    _COMPILED[key] = run
    return run


_TILE_COPY_BYTES = 16384
"""Up to this size a full source copied whole (one copy of its storage, then the product over the overlap) is
cheaper than the two copies beside the overlap; past it, writing the overlap twice costs more than it saves
(NumPy 2.4, a (n/2) x (3n/4) overlap, copy and multiply of kept views: 64x64 f32 2.57 against 2.85 us, 128x128
int8 2.89 against 3.31; 128x128 f32 9.6 against 8.8)."""


def _tile_copy(dspec: TileSpec, fspec: TileSpec) -> bool:
    """dst and the full source have one shape and layout, small enough for a copy of the whole storage; the call
    still needs dst's valid region to be the whole tile (the full source's is the same)."""
    return (fspec.rows, fspec.cols, fspec.blayout, fspec.slayout) == (dspec.rows, dspec.cols, dspec.blayout,
                                                                      dspec.slayout) \
        and dspec.nbytes <= _TILE_COPY_BYTES


@lru_cache(maxsize=1024)
def _deciding(config: Config, dspec: TileSpec, aspec: TileSpec, bspec: TileSpec) -> Any:
    """Valid shapes known only at run time: `_shape_plan`'s decide(d, a, b) for these tile types, made once;
    the call for each tuple of valid shapes met (dst's, src0's, src1's, read off the tiles' slots) is decided by
    it once and kept in `_COMPILED` under the call's key."""
    return _shape_plan(config, dspec, aspec, bspec)


def _shape_plan(config: Config, dspec: TileSpec, aspec: TileSpec, bspec: TileSpec) -> Any:
    """(d, a, b) -> the call for tiles of these types with these valid shapes set at run time. Run-time valid
    shapes are not static ones: a2a3's padding columns are looked for only when dst's valid columns are fewer than
    its Cols, and every other choice is the plain multiply's (the static path's own plans are not consulted).
    The general path keeps what it decides per call (zero or unsupported patterns, refusals, padding that leaves
    a tile)."""
    dtype = dspec.np_dtype
    shape = (dspec.rows, dspec.cols)
    specs = (aspec, bspec)
    tile_copy = (_tile_copy(dspec, aspec), _tile_copy(dspec, bspec))
    erratum = config.erratum("tpartmul_copy_padding")
    half = dtype.itemsize == 2 and dtype.kind not in "iu"

    def general(dst: Tile, src0: Tile, src1: Tile) -> None:
        _general(config, dst, src0, src1)

    def decide(d: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> Any:
        if not (d[0] and d[1] and _legal_pattern(d, a, b)):
            return general
        padding = None
        if erratum and d[1] < shape[1]:  # else the copy's rows (row-major: whole 32-byte blocks) end at vc
            fspec, p = (aspec, b) if a == d else (bspec, a)
            padding = _padding_slices(config, dspec, fspec, d, p)
        if padding is _OUTSIDE:
            return general
        if padding is not None:
            return _padded_plan(config, dtype, d, a, b, padding)
        if a == b == d and not half:  # the plain multiply of the valid views: no copy, so no aliasing question
            whole = d == shape and all((s.rows, s.cols) == shape and s.blayout is dspec.blayout for s in specs)
            return _whole_plan(dtype) if whole else _equal_plan(dtype, d)
        return _lean_plain(config, dtype, half, d, a, b, d == shape and tile_copy[a != d])

    return decide


def _partial_plan(config: Config, dtype: np.dtype, d: tuple[int, int], a: tuple[int, int],
                  b: tuple[int, int], whole: bool = False, tile_copy: bool = False) -> Any:
    half = dtype.itemsize == 2 and dtype.kind not in "iu"
    if a == b == d and not half:
        return _whole_plan(dtype) if whole else _equal_plan(dtype, d)
    return _lean_plain(config, dtype, half, d, a, b, tile_copy)


def _lean_plain(config: Config, dtype: np.dtype, half: bool, d: tuple[int, int], a: tuple[int, int],
                b: tuple[int, int], tile_copy: bool) -> Any:
    """`_multiply_plain` for one valid-shape pattern with its choices made once per tuple of storages: which
    route (the full source's storage copied whole first; or none of dst's memory shared with the full source's;
    or the general path), and the views the multiply and the copies read and write, depend on the three tiles'
    storages only (their owners and extents), so they are kept for the storages they were made from and made
    again for others (slicing seven views and testing two overlaps cost more than the arithmetic at 16x16).
    Where dst's storage is the full source's (dst the full source itself, or another tile over its storage),
    `_multiply_plain` decides per call."""
    vr, vc = d
    src0_full = a == d
    pr, pc = b if src0_full else a
    moved = (pr, pc) != d  # else nothing to copy: the overlap is dst's valid region
    floating = not half and dtype.kind not in "iu"
    multiply, may_share = np.multiply, np.may_share_memory
    last: tuple[Any, ...] = (None, None, None, None)

    def prepare(dst: Tile, src0: Tile, src1: Tile) -> Any:
        """(whole, x, y, o, side, below) as `_multiply_plain` would use them for these storages, or None for
        its own per-call decision, or False for the general path."""
        full, part = (src0, src1) if src0_full else (src1, src0)
        if full.storage is dst.storage:
            return None
        whole = None
        copies = moved
        if copies and tile_copy and certainly_apart(dst.storage, full.storage) \
                and certainly_apart(dst.storage, part.storage):
            whole, copies = (dst.storage, full.storage), False
        elif copies and not certainly_apart(dst.storage, full.storage) and may_share(dst.storage, full.storage):
            return False
        out, source = dst.view, full.view
        side = (out[:pr, pc:vc], source[:pr, pc:vc]) if copies and pc < vc else None
        below = (out[pr:vr, :vc], source[pr:vr, :vc]) if copies and pr < vr else None
        return whole, source[:pr, :pc], part.view[:pr, :pc], out[:pr, :pc], side, below

    def run(dst: Tile, src0: Tile, src1: Tile) -> None:
        nonlocal last
        held = last
        if held[0] is not dst.storage or held[1] is not src0.storage or held[2] is not src1.storage:
            held = last = (dst.storage, src0.storage, src1.storage, prepare(dst, src0, src1))
        steps = held[3]
        if not steps:
            if steps is None:
                _multiply_plain(config, half, d, a, b, dst, src0, src1, tile_copy=tile_copy)
            else:
                _general(config, dst, src0, src1)
            return
        whole, x, y, o, side, below = steps
        if whole is not None:
            whole[0][...] = whole[1]
        if floating:
            QUIET.run(multiply, x, y, o)
        elif half:
            _product(x, y, o)
        else:
            multiply(x, y, o)
        if side is not None:
            side[0][...] = side[1]
        if below is not None:
            below[0][...] = below[1]

    return run


def _padded_plan(config: Config, dtype: np.dtype, d: tuple[int, int], a: tuple[int, int], b: tuple[int, int],
                 padding: tuple[slice, slice]) -> Any:
    half = dtype.itemsize == 2 and dtype.kind not in "iu"
    unsigned = np.dtype(f"u{dtype.itemsize}")

    def run(dst: Tile, src0: Tile, src1: Tile) -> None:
        _multiply_padded(config, half, unsigned, d, a, b, padding, dst, src0, src1)

    return run


_OUTSIDE = (slice(0), slice(0))
"""_padding_slices' answer for a padding copy whose columns would leave dst's or the source's rows."""


def _padding_slices(config: Config, dspec: TileSpec, fspec: TileSpec, d: tuple[int, int],
                    p: tuple[int, int]) -> tuple[slice, slice] | None:
    """The (rows, cols) of dst past its valid columns that a2a3's padding copy (erratum tpartmul_copy_padding)
    writes from the full source `fspec` for a legal pattern whose partial source's valid shape is `p`; None when
    it writes none there (erratum off, sources equal, or no column between dst's valid ones and the copy's end),
    _OUTSIDE when they would pass either tile's Cols (left to the general path). The same rule as
    _copied_padding, for plain layouts."""
    if not config.erratum("tpartmul_copy_padding"):
        return None
    vr, vc = d
    pr, pc = p
    if pr < vr and pc == vc:
        rows = slice(pr, vr)
    elif pc < vc:
        rows = slice(0, vr)
    else:
        return None
    item = dspec.dtype.itemsize
    end = dspec.cols if dspec.cols == fspec.cols else -(-vc * item // 32) * 32 // item
    if end <= vc:
        return None
    if end > dspec.cols or end > fspec.cols:
        return _OUTSIDE
    return rows, slice(vc, end)


def _multiply_padded(config: Config, half: bool, unsigned: np.dtype, d: tuple[int, int], a: tuple[int, int],
                     b: tuple[int, int], padding: tuple[slice, slice], dst: Tile, src0: Tile, src1: Tile) -> None:
    """A legal partial pattern on a2a3 whose padding copy reaches columns of dst past its valid ones: as the
    general path, the erratum is announced before any byte moves when those columns' bytes change (so an
    ErratumWarning raised as an error leaves every tile as it was), then the contract's result is written and
    the full source's bytes copied over the padding. dst sharing memory with the full source (other than being
    it) takes the general path; dst being the full source copies its own bytes: nothing changes there."""
    full = src0 if a == d else src1
    if full is dst:
        _multiply_plain(config, half, d, a, b, dst, src0, src1)
        return
    if not certainly_apart(dst.storage, full.storage) and np.may_share_memory(dst.storage, full.storage):
        _general(config, dst, src0, src1)
        return
    rows, cols = padding
    values, held = full.view[rows, cols], dst.view[rows, cols]
    changes = (values.view(unsigned) != held.view(unsigned)).any()
    if changes:
        announce_erratum(config, INSTR, "tpartmul_copy_padding")
    _multiply_plain(config, half, d, a, b, dst, src0, src1, apart=True)
    if changes:  # the multiply wrote neither these columns of dst nor any byte of the full source
        held[...] = values


def _whole_plan(dtype: np.dtype) -> Any:
    """Three plain tiles of one shape and layout, each valid over its whole storage: element i of each storage is
    the same element of each tile, so one multiply of the 1-D storages does it (a ufunc handles aliasing)."""
    multiply = np.multiply
    if dtype.kind in "iu":
        def run_int(dst: Tile, src0: Tile, src1: Tile) -> None:
            multiply(src0.storage, src1.storage, dst.storage)

        return run_int

    def run(dst: Tile, src0: Tile, src1: Tile) -> None:
        QUIET.run(multiply, src0.storage, src1.storage, dst.storage)

    return run


def _equal_plan(dtype: np.dtype, d: tuple[int, int]) -> Any:
    """All three valid regions equal (no copy, so no overlap question: a ufunc handles aliasing): one multiply
    of the valid views, of the whole views when they have the valid shape,
    with NumPy's floating-point warnings silenced (integer products wrap without one)."""
    vr, vc = d
    floating = dtype.kind not in "iu"
    multiply = np.multiply

    def run(dst: Tile, src0: Tile, src1: Tile) -> None:
        out, a, b = dst.view, src0.view, src1.view
        if out.shape != d or a.shape != d or b.shape != d:
            out, a, b = out[:vr, :vc], a[:vr, :vc], b[:vr, :vc]
        if floating:
            QUIET.run(multiply, a, b, out=out)
        else:
            multiply(a, b, out=out)

    return run


def _multiply_plain(config: Config, half: bool, d: tuple[int, int], a: tuple[int, int], b: tuple[int, int],
                    dst: Tile, src0: Tile, src1: Tile, apart: bool = False, tile_copy: bool = False) -> None:
    """Plain layouts, a supported pattern: the overlap multiplied into dst, then the rest of the full source's
    valid region copied beside it (each dst element written once). A ufunc reads its operands as if copied
    first, so the multiply is safe under any aliasing; the copies read the full source after the multiply wrote
    dst, so a dst sharing memory with the full source (other than being it) takes the general path. When dst is
    the full source, the elements outside the overlap already hold their values: nothing to copy. `apart`: the
    caller has found that dst and the full source share no memory. `tile_copy`: dst and the full source are
    small tiles of one shape and layout, valid over the whole tile; when dst's storage certainly shares no memory
    with either source's, the full source's storage is copied whole into it first and the product written over
    the overlap after (the same bytes in two NumPy calls instead of three)."""
    vr, vc = d
    src0_full = a == d
    pr, pc = b if src0_full else a
    full, part = (src0, src1) if src0_full else (src1, src0)
    copies = (pr, pc) != d and full is not dst
    if copies and tile_copy and certainly_apart(dst.storage, full.storage) and certainly_apart(dst.storage,
                                                                                         part.storage):
        dst.storage[...] = full.storage
        copies = False
    elif copies and not apart and not certainly_apart(dst.storage, full.storage) \
            and np.may_share_memory(dst.storage, full.storage):
        _general(config, dst, src0, src1)
        return
    out, whole = dst.view, full.view
    if half:
        _product(whole[:pr, :pc], part.view[:pr, :pc], out[:pr, :pc])
    else:
        QUIET.run(np.multiply, whole[:pr, :pc], part.view[:pr, :pc], out=out[:pr, :pc])
    if copies:
        if pc < vc:
            out[:pr, pc:vc] = whole[:pr, pc:vc]
        if pr < vr:
            out[pr:vr, :vc] = whole[pr:vr, :vc]


def _general(config: Config, dst: Any, src0: Any, src1: Any) -> None:
    check = Check(INSTR, config.name)
    dst, src0, src1 = check.tile("dst", dst), check.tile("src0", src0), check.tile("src1", src1)
    _static(dst.spec, src0.spec, src1.spec, config)
    shape = dst.valid_shape
    vr, vc = shape
    if vr == 0 or vc == 0:
        return
    if shape == src0.valid_shape == src1.valid_shape and _multiply_equal(dst, src0, src1, vr, vc):
        return
    if not _legal_pattern(shape, src0.valid_shape, src1.valid_shape):
        if config.undefined == "raise":
            check.undefined(None, f"valid shapes dst {_shape(dst)}, src0 {_shape(src0)}, src1 {_shape(src1)} are "
                                  "not a supported pattern (one source must equal dst, the other must not exceed it)")
        _EMULATE[config.profile.tpartmul.neither_valid](dst, src0, src1)
        return
    if (dst.spec.is_boxed or src0.spec.is_boxed or src1.spec.is_boxed) and config.erratum("tpartmul_boxed_raw_rows"):
        _multiply_raw_rows(config, dst, src0, src1)
        return
    padding = _copied_padding(config, dst, src0, src1)
    if not _multiply_in_place(dst, src0, src1):
        store(dst, vr, vc, _combine(dst, src0, src1))
    if padding is not None:
        rows, cols, values = padding
        dst.view[rows, cols] = values


def _multiply_raw_rows(config: Config, dst: Tile, src0: Tile, src1: Tile) -> None:
    """NPU erratum `tpartmul_boxed_raw_rows` (audit D12, DECISIONS 20): the kernels step every operand's rows by
    its RowStride (a2a3/TPartMul.hpp:81-94, a5/TPartBinOps.hpp:95-131), so boxed row-major tiles (ZZ/ZN) are read
    and written as plain row-major storage."""
    vr, vc = dst.valid_shape
    contract = dst.storage.copy()
    write_region(contract, dst.spec, vr, vc, _combine(dst, src0, src1))

    def plain(tile: Tile, rows: int, cols: int) -> np.ndarray:
        return tile.storage.reshape(tile.spec.rows, tile.spec.cols)[:rows, :cols]

    (r0, c0), (r1, c1) = _clip(src0, vr, vc), _clip(src1, vr, vc)
    out = np.array(plain(dst, vr, vc))
    out[:r0, :c0] = plain(src0, r0, c0)
    out[:r1, :c1] = plain(src1, r1, c1)
    rb, cb = min(r0, r1), min(c0, c1)
    out[:rb, :cb] = _product(plain(src0, rb, cb), plain(src1, rb, cb))
    target = dst.storage.copy()
    target.reshape(dst.spec.rows, dst.spec.cols)[:vr, :vc] = out
    commit_variant(config, INSTR, "tpartmul_boxed_raw_rows", dst.storage, contract, target)


def _copied_padding(config: Config, dst: Tile, src0: Tile, src1: Tile) -> tuple[slice, slice, np.ndarray] | None:
    """a2a3 erratum `tpartmul_copy_padding` (audit D5): the backend copies the source whose valid region equals
    dst's (src0 first) with TPartCopyInstr (a2a3/TPartOp.hpp:15-36) before or after multiplying the overlap: whole
    rows when dst and that source have the same Cols, else validCol rounded up to 32 bytes per row. Rows copied:
    from the other source's valid rows on (it has fewer rows), or all of them (it has fewer columns). The columns
    past dst's valid ones thus receive the source's bytes. Returns (rows, cols, values) to write after the
    contract's result, announcing the erratum first when those bytes change; None when nothing is copied there."""
    if not config.erratum("tpartmul_copy_padding") or dst.view is None:
        return None
    full, part = (src0, src1) if src0.valid_shape == dst.valid_shape else (src1, src0)
    if full.view is None or part.spec.is_boxed or dst.spec.is_boxed:
        return None
    vr, vc = dst.valid_shape
    pr, pc = part.valid_shape
    if pr < vr and pc == vc:
        rows = slice(pr, vr)
    elif pc < vc:
        rows = slice(0, vr)
    else:
        return None
    item = dst.spec.dtype.itemsize
    end = dst.spec.cols if dst.spec.cols == full.spec.cols else -(-vc * item // 32) * 32 // item
    cols = slice(vc, end)
    values = full.view[rows, cols].copy()
    if values.size and not np.array_equal(values.view(np.uint8), dst.view[rows, cols].copy().view(np.uint8)):
        announce_erratum(config, INSTR, "tpartmul_copy_padding")
    return rows, cols, values


def _multiply_equal(dst: Tile, src0: Tile, src1: Tile, vr: int, vc: int) -> bool:
    """All three valid regions equal: a plain elementwise multiply (in place is safe for ufuncs)."""
    out, a, b = dst.view, src0.view, src1.view
    if out is None or a is None or b is None:
        return False
    if vr == dst.spec.rows and vc == dst.spec.cols and a.shape == b.shape == out.shape and \
            src0.spec.blayout is src1.spec.blayout is dst.spec.blayout and \
            src0.storage.ndim == src1.storage.ndim == dst.storage.ndim == 1:  # not a window of a wider tile
        _product(src0.storage, src1.storage, dst.storage)  # whole tiles of one layout: flat is fastest
    else:
        _product(a[:vr, :vc], b[:vr, :vc], out[:vr, :vc])
    return True


def _multiply_in_place(dst: Tile, src0: Tile, src1: Tile) -> bool:
    """Fast path for plain layouts: copy the full source into dst, multiply the overlap in place.

    Returns False (nothing written) for boxed layouts, and when the copy could clobber a source still to be
    read (dst overlapping a source other than by being that very tile)."""
    out, a, b = dst.view, src0.view, src1.view
    if out is None or a is None or b is None:
        return False
    src0_full = src0.valid_shape == dst.valid_shape
    full, part = (a, b) if src0_full else (b, a)
    full_tile, part_tile = (src0, src1) if src0_full else (src1, src0)
    vr, vc = dst.valid_shape
    pr, pc = part_tile.valid_shape
    copies = (pr, pc) != (vr, vc)
    if copies and (np.may_share_memory(dst.storage, part_tile.storage) or (
            full_tile is not dst and np.may_share_memory(dst.storage, full_tile.storage))):
        return False
    if copies:
        out[:vr, :vc] = full[:vr, :vc]
    _product(full[:pr, :pc], part[:pr, :pc], out[:pr, :pc])
    return True


def _shape(tile: Tile) -> str:
    return f"{tile.valid_row}x{tile.valid_col}"


@lru_cache(maxsize=4096)
def _static(dst: TileSpec, src0: TileSpec, src1: TileSpec, config: Config) -> None:
    rules = config.profile.tpartmul
    check = Check(INSTR, config.name)
    check.dtype("dst", dst.dtype, rules.dtypes)
    check.same_dtype("src0", src0.dtype, "dst", dst.dtype)
    check.same_dtype("src1", src1.dtype, "dst", dst.dtype)
    for role, spec in (("dst", dst), ("src0", src0), ("src1", src1)):
        check.row_major(role, spec, rules.row_major)
        check.fits(role, spec)


def _legal_pattern(d: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> bool:
    def within(s: tuple[int, int]) -> bool:
        return s[0] <= d[0] and s[1] <= d[1]

    return (a == d and within(b)) or (b == d and within(a))


def _product(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """a * b rounded once into the element type (products of 16-bit floats are exact in float32)."""
    if a.dtype.itemsize == 2 and a.dtype.kind not in "iu":
        with quiet():  # overflow to inf is the correctly rounded result
            result = (a.astype(np.float32) * b.astype(np.float32)).astype(a.dtype)
        if out is not None:
            out[...] = result
        return result
    if a.dtype.kind in "iu":  # integer products wrap silently in NumPy
        return np.multiply(a, b, out=out)
    with quiet():
        return np.multiply(a, b, out=out)


def _combine(dst: Tile, src0: Tile, src1: Tile, fill: Any = 0) -> np.ndarray:
    """The CPU simulator's per-element rule over dst's valid region; `fill` where neither source is valid."""
    vr, vc = dst.valid_shape
    out = np.full((vr, vc), fill, dtype=dst.spec.np_dtype)
    (r0, c0), (r1, c1) = _clip(src0, vr, vc), _clip(src1, vr, vc)
    out[:r0, :c0] = region(src0, r0, c0)
    out[:r1, :c1] = region(src1, r1, c1)
    rb, cb = min(r0, r1), min(c0, c1)
    a = region(src0, rb, cb)
    b = region(src1, rb, cb)
    out[:rb, :cb] = _product(a, b)
    return out


def _clip(tile: Tile, vr: int, vc: int) -> tuple[int, int]:
    return min(tile.valid_row, vr), min(tile.valid_col, vc)


def _emulate_cpu(dst: Tile, src0: Tile, src1: Tile) -> None:
    store(dst, dst.valid_row, dst.valid_col, _combine(dst, src0, src1))


def _emulate_a2a3(dst: Tile, src0: Tile, src1: Tile) -> None:
    """A2A3 writes nothing for an unsupported pattern: with no source equal to dst it returns, and with a source
    larger than dst it reaches its assertion-only case (reference-facts 7.2)."""


def _emulate_a5(dst: Tile, src0: Tile, src1: Tile) -> None:
    """A5: product over the element-wise minimum shape, the "big" source's data elsewhere (reference-facts 7.3)."""
    vr, vc = dst.valid_shape
    (r0, c0), (r1, c1) = src0.valid_shape, src1.valid_shape
    if r0 == 0 or c0 == 0 or r1 == 0 or c1 == 0:
        src = src1 if (r0 == 0 or c0 == 0) else src0
        r, c = min(vr, src.valid_row), min(vc, src.valid_col)
        store(dst, r, c, region(src, r, c))
        return
    big = src1 if (r0 < r1 or c0 < c1) else src0
    # The row loop runs to min(src0 rows, src1 rows), past dst's valid rows when they are fewer (audit D15,
    # a5/TPartBinOps.hpp:125-131); stores are predicated to dst's valid columns.
    rows = max(vr, min(r0, r1))
    if rows > big.spec.rows or vc > big.spec.cols or rows > dst.spec.rows:
        raise NotModelledError(f"{INSTR}: emulating this pattern on a5 reads or writes past a tile's storage")
    out = np.array(region(big, rows, vc))
    rs, cs = min(r0, r1), min(c0, c1, vc)
    out[:rs, :cs] = _product(region(src0, rs, cs),
                             region(src1, rs, cs))
    store(dst, rows, vc, out)


_EMULATE = {"cpu": _emulate_cpu, "a2a3": _emulate_a2a3, "a5": _emulate_a5}


# --- batched loops ---------------------------------------------------------------------------------------------
def batch_form(config: Config, dst: Any, src0: Any, src1: Any) -> tuple[Any, str] | None:
    """What a batched loop (ptoisa.interp.batch) runs for N calls of TPARTMUL on these tiles, one per turn, their
    storages stacked (N, numel): (run, the region of dst written), or None where the calls must run one by one.

    `run(dst, src0, src1)` takes stacked tiles (`storage` (N, numel), `view` (N, rows, cols), a source that the
    loop does not write seen with stride 0) and writes into dst's stack the bytes of the N calls: the contract over
    dst's valid region (the product over the partial source's valid region, the full source's elements beside
    it), which is what every plain compiled route writes (`_whole_plan`, `_equal_plan`, `_multiply_plain`, its
    whole-tile copy included, which copies only valid elements when it applies). Refused (None): other tile
    classes, boxed layouts, a refused signature or pattern, an empty dst valid region, and a2a3's padding copy
    (erratum tpartmul_copy_padding), which may announce per call."""
    if not (type(dst) is Tile and type(src0) is Tile and type(src1) is Tile):
        return None
    if dst.view is None or src0.view is None or src1.view is None:
        return None
    try:
        _static(dst.spec, src0.spec, src1.spec, config)
    except PtoError:
        return None
    d, a, b = dst.valid_shape, src0.valid_shape, src1.valid_shape
    if not (d[0] and d[1] and _legal_pattern(d, a, b)):
        return None
    full_first = a == d
    fspec, p = (src0.spec, b) if full_first else (src1.spec, a)
    if _padding_slices(config, dst.spec, fspec, d, p) is not None:
        return None
    dtype = dst.spec.np_dtype
    half = dtype.itemsize == 2 and dtype.kind not in "iu"
    floating = dtype.kind not in "iu"
    (vr, vc), (pr, pc) = d, p
    copies = p != d
    same_full = (src0 if full_first else src1) is dst

    def run(out: Any, first: Any, second: Any) -> None:
        full, part = (first.view, second.view) if full_first else (second.view, first.view)
        target = out.view
        if half:
            _product(full[:, :pr, :pc], part[:, :pr, :pc], target[:, :pr, :pc])
        elif floating:
            QUIET.run(np.multiply, full[:, :pr, :pc], part[:, :pr, :pc], target[:, :pr, :pc])
        else:
            np.multiply(full[:, :pr, :pc], part[:, :pr, :pc], out=target[:, :pr, :pc])
        if copies and not same_full:
            if pc < vc:
                target[:, :pr, pc:vc] = full[:, :pr, pc:vc]
            if pr < vr:
                target[:, pr:vr, :vc] = full[:, pr:vr, :vc]

    return run, "all" if d == (dst.spec.rows, dst.spec.cols) else "valid"
