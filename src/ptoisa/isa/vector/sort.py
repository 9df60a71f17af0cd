"""Sorting into value-index pairs: TSORT32 (dst, src, idx[, tmp]) and TMRGSORT, its merge (dst, src, blockLen) or
(dst, executedNumList, tmp, src0, src1[, src2[, src3]]) with the template argument `exhausted`.

    TSORT32(dst, src, idx)        each row of src in blocks of 32: the block's (value, index) pairs, sorted by
                                  value descending, ties by smaller index, into dst as 8-byte pairs
    TMRGSORT(dst, src, blockLen)  four sorted runs of blockLen elements (pairs * 8 / sizeof(T)) in each group of
                                  4 * blockLen, merged descending
    TMRGSORT(dst, executed, tmp, src0, src1, ..., exhausted=False)
                                  2-4 sorted lists merged descending into dst; executed counts what each gave

A pair is 8 bytes: `[value, index]` for float (2 elements), `[value, 0, index low, index high]` for half
(4 elements; the index is a uint32). A merge compares values only and takes from the lowest-numbered list when
values are equal (`v > best` strictly, as include/pto/cpu/TMrgSort.hpp picks); a list that is not sorted is merged
head by head as given. TSORT32's sort is the simulator's `std::stable_sort` with `score != other ? score > other :
index < other.index`: -0.0 and 0.0 are equal (the smaller index first), and a NaN is placed wherever libstdc++'s
merge sort puts it (ptoisa replays that algorithm: `_gnusort.py`).

On `cpu`, the simulator writes half (and other 2-byte) pairs of block b at column 64 * b instead of 128 * b, so
each block but the last keeps only its first 16 pairs (erratum `tsort32_half_block_offset`), and a 1-row idx tile
under a taller src makes it write nothing (erratum `tsort32_idx_shape_noop`; the page broadcasts the row). The tmp
tiles are scratch on the NPUs; ptoisa leaves them unchanged. `executedNumList` is written on `cpu` by every
multi-list merge and on the NPUs only with `exhausted=True` (they read it from the VMS4_SR register then).

    >>> from ptoisa import *
    >>> src, idx = Tile[TileType.Vec, float, 1, 32](), Tile[TileType.Vec, uint32_t, 1, 32]()
    >>> src.set_logical([[float(v % 5) for v in range(32)]]); idx.set_logical([list(range(32))])
    >>> dst = Tile[TileType.Vec, float, 1, 64]()
    >>> _ = TSORT32(dst, src, idx, target="cpu")
    >>> dst.data[0, :8:2].tolist(), dst.data[0, 1::2].view("uint32")[:3].tolist()
    ([4.0, 4.0, 4.0, 4.0], [4, 9, 14])
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from ...dtypes import DType as D
from ...tile.enums import SLayout
from ..._quiet import quiet
from .._check import Check, commit_variant
from ..record import (TARGETS, Attr, Legality, Plan, Scalars, Tiles, dst, instruction, scalar, src, struct,
                      tmp)
from ._gnusort import stable_sort

BLOCK = 32
MAX_UB_TMP = 32 * 255  # include/pto/npu/*/TSort32.hpp: one MOV_UB_TO_UB copy of 255 32-byte blocks


class Exhausted(Enum):
    """TMRGSORT's `bool exhausted` template argument: stop when any list runs out (`{exhausted = true}`)."""

    FALSE = False
    TRUE = True


# --- legality ---------------------------------------------------------------------------------------------------
_NPU_SORT = Legality({"dst": (D.F16, D.F32), "src": (D.F16, D.F32), "idx": (D.U32,), "tmp": (D.F16, D.F32)},
                     same=(("dst", "src", "tmp"),), row_major=("dst", "src", "idx", "tmp"),
                     evidence="include/pto/npu/{a2a3,a5}/TSort32.hpp CheckStatic; docs/isa/TSORT32.md")
_CPU_SORT = Legality({"dst": (D.I16, D.I32, D.F16, D.BF16, D.F32), "src": (D.I16, D.I32, D.F16, D.BF16, D.F32),
                      "idx": (D.U32,)},
                     same=(("dst", "src", "tmp"),), row_major=("dst", "src", "idx", "tmp"),
                     evidence="include/pto/cpu/TSort32.hpp TSORT32_IMPL static_asserts")
_MRG_ROLES = ("dst", "src", "tmp", "src0", "src1", "src2", "src3")
_NPU_MRG = Legality({r: (D.F16, D.F32) for r in _MRG_ROLES}, same=(_MRG_ROLES,), row_major=_MRG_ROLES,
                    evidence="include/pto/npu/{a2a3,a5}/TMrgSort.hpp CheckStatic")
# The simulator takes any element type whose size divides the 8-byte pair (StructElemsForType).
_CPU_MRG_TYPES = (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)
_CPU_MRG = Legality({r: _CPU_MRG_TYPES for r in _MRG_ROLES}, same=(_MRG_ROLES,), row_major=_MRG_ROLES,
                    evidence="include/pto/cpu/TMrgSort.hpp CheckMrgSortTileConstraints")


def _pair_elems(dtype: D) -> int:
    """Tile elements per 8-byte value-index pair."""
    return 8 // dtype.itemsize


def _plain(check: Check, specs: Any) -> None:
    for role, spec in specs.items():
        if spec.slayout is not SLayout.NoneBox:
            check.fail(role, f"must not be boxed (SLayout.NoneBox; got {spec.layout_name})")


def _ub_bytes(config: Any) -> int:
    return config.profile.memory.regions["UB"]


# --- TSORT32 ----------------------------------------------------------------------------------------------------
def _sort_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> None:
    _plain(check, specs)
    if config.name == "cpu" and specs["src"].cols != specs["idx"].cols:
        check.fail("idx", f"row stride {specs['idx'].cols} must equal src's {specs['src'].cols} (the simulator's "
                          "static_assert)")


def _tmp_elems(config: Any, cols: int, itemsize: int) -> int:
    """The 4-argument form's tmp size (elements) for a row of `cols` valid elements on an NPU target."""
    whole_row = cols <= MAX_UB_TMP if config.name == "a2a3" else cols * itemsize <= MAX_UB_TMP
    return -(-cols // BLOCK) * BLOCK if whole_row else BLOCK


def _sort_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    s, i, d = tiles["src"], tiles["idx"], tiles["dst"]
    rows, cols = s.valid_shape
    if i.valid_shape not in ((rows, cols), (1, cols)):
        check.fail("idx", f"valid shape {i.valid_shape} must be src's {(rows, cols)} or (1, {cols})")
    if d.valid_row != rows:
        check.fail("dst", f"valid rows {d.valid_row} must equal src's {rows}")
    need = cols * _pair_elems(d.spec.dtype)
    if d.spec.cols < need:
        check.fail("dst", f"has {d.spec.cols} columns; {cols} pairs need {need}")
    if "tmp" not in tiles:
        if cols % BLOCK:
            check.fail("src", f"valid columns {cols} must be a multiple of 32 without a tmp tile (pass tmp for a "
                              "partial last block)")
    elif cols % BLOCK and plan.config.name != "cpu":
        t = tiles["tmp"]
        want = _tmp_elems(plan.config, cols, d.spec.dtype.itemsize)
        if t.spec.rows * t.spec.cols < want:
            check.fail("tmp", f"holds {t.spec.rows * t.spec.cols} elements; {cols} valid columns need {want}")


def _gnu_less(a: tuple, b: tuple) -> bool:
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def block_order(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Flat positions (row-major over values' shape) in sorted order: row by row, each 32-column block sorted by
    value descending, then index ascending, then position (a stable sort); blocks holding a NaN in the
    simulator's libstdc++ order."""
    rows, cols = values.shape
    pos = np.broadcast_to(np.arange(cols), (rows, cols))
    group = np.arange(rows)[:, None] * (-(-cols // BLOCK)) + pos // BLOCK
    with quiet():
        key = -values.astype(np.float64)
    order = np.lexsort((pos.ravel(), ids.ravel().astype(np.int64), key.ravel(), group.ravel()))
    if values.dtype.kind in "fV":
        with quiet():  # a signalling NaN converts with an "invalid" flag: a NaN all the same
            nan = np.isnan(values.astype(np.float64))
        if nan.any():
            for r, c in zip(*np.nonzero(nan), strict=True):
                start = r * cols + c // BLOCK * BLOCK
                if c % BLOCK and nan[r, c // BLOCK * BLOCK:c].any():
                    continue  # this block was done with its first NaN
                stop = r * cols + min(cols, (c // BLOCK + 1) * BLOCK)
                flat_v, flat_i = values.reshape(-1), ids.reshape(-1)
                items = [(float(flat_v[p]), int(flat_i[p]), p) for p in range(start, stop)]
                order[start:stop] = [p for _, _, p in stable_sort(items, _gnu_less)]
    return order


def _pairs(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """8-byte pairs as uint64: the value's bits (zero-extended) in the low word, the index in the high one."""
    bits = values.view(np.uint16 if values.dtype.itemsize == 2 else np.uint32).astype(np.uint64)
    return bits | (ids.astype(np.uint64) << np.uint64(32))


def _tsort32(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    s, i, out = tiles["src"], tiles["idx"], tiles["dst"]
    rows, cols = s.valid_shape
    if rows == 0 or cols == 0:
        return
    # the static rule refuses boxed tiles: every view exists
    values = s.view[:rows, :cols]  # type: ignore[index]
    ids = i.view[:rows, :cols] if i.valid_row == rows else np.broadcast_to(  # type: ignore[index]
        i.view[:1, :cols], (rows, cols))  # type: ignore[index]
    order = block_order(values, ids)
    pairs = _pairs(values.reshape(-1)[order].reshape(rows, cols), np.ascontiguousarray(ids).reshape(-1)[order]
                   .reshape(rows, cols))
    config = plan.config
    cpu = config.name == "cpu"
    half = out.spec.dtype.itemsize == 2 and cols > BLOCK
    noop = i.valid_shape != (rows, cols)
    if cpu and ((half and config.erratum("tsort32_half_block_offset")) or
                (noop and config.erratum("tsort32_idx_shape_noop"))):
        contract = out.storage.copy()
        _write_pairs(contract, out.spec, pairs, overlap=False)
        target = out.storage.copy()
        if not (noop and config.erratum("tsort32_idx_shape_noop")):
            _write_pairs(target, out.spec, pairs, overlap=half)
        name = "tsort32_idx_shape_noop" if noop and config.erratum("tsort32_idx_shape_noop") else \
            "tsort32_half_block_offset"
        commit_variant(config, plan.record.name, name, out.storage, contract, target)
        return
    _write_pairs(out.storage, out.spec, pairs, overlap=False)


def _write_pairs(storage: np.ndarray, spec: Any, pairs: np.ndarray, overlap: bool) -> None:
    rows, cols = pairs.shape
    words = storage.reshape(spec.rows, spec.cols)[:rows].view(np.uint64)
    if not overlap:
        words[:, :cols] = pairs
        return
    for start in range(0, cols, BLOCK):  # the simulator's half dst offset: block b at pair 16 * b
        at = start // 2
        words[:, at:at + min(BLOCK, cols - start)] = pairs[:, start:start + BLOCK]


TSORT32 = instruction(
    "TSORT32", operands=(dst(), src("src"), src("idx")),
    forms=((dst(), src("src"), src("idx")), (dst(), src("src"), src("idx"), tmp("tmp"))),
    legality={"a2a3": _NPU_SORT, "a5": _NPU_SORT, "cpu": _CPU_SORT}, static=_sort_static, dynamic=_sort_rule,
    errata=(), family="sort",
    summary="each 32-element block of every src row, as (value, idx) pairs sorted by value descending, into dst",
)(_tsort32)


# --- TMRGSORT ---------------------------------------------------------------------------------------------------
def _mrg_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> None:
    _plain(check, specs)
    for role, spec in specs.items():
        if spec.rows != 1:
            check.fail(role, f"must have 1 row (got {spec.rows})")
    if form == 0:
        return
    lists = [r for r in ("src0", "src1", "src2", "src3") if r in specs]
    total = sum(specs[r].cols for r in lists)
    if specs["tmp"].cols < total:
        check.fail("tmp", f"has {specs['tmp'].cols} columns, fewer than the sources' {total}")
    if config.name != "cpu":
        size = specs["dst"].dtype.itemsize
        if (specs["tmp"].cols + specs["src0"].cols) * size > _ub_bytes(config):
            check.fail("tmp", f"tmp and src0 take more than the {_ub_bytes(config)}-byte UB")


def _mrg_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    size = tiles["dst"].spec.dtype.itemsize
    if plan.form == 0:
        s, d = tiles["src"], tiles["dst"]
        if d.valid_col != s.valid_col:
            check.fail("dst", f"valid columns {d.valid_col} must equal src's {s.valid_col}")
        if plan.config.name != "cpu" and (s.valid_col + d.valid_col) * size >= _ub_bytes(plan.config):
            check.fail("src", f"src and dst valid columns take {(s.valid_col + d.valid_col) * size} bytes, not "
                              f"under the {_ub_bytes(plan.config)}-byte UB")
        return
    if plan.config.name != "cpu":
        used = sum(t.valid_col for r, t in tiles.items() if r != "dst") * size
        if used >= _ub_bytes(plan.config):
            check.fail("tmp", f"the sources and tmp take {used} bytes, not under the "
                              f"{_ub_bytes(plan.config)}-byte UB")


def _block_len_rule(check: Check, s: Any, block_len: int) -> None:
    cols = s.valid_col
    if block_len <= 0 or block_len % 64:
        check.fail("blockLen", f"must be a positive multiple of 64 (got {block_len})")
    if cols % (4 * block_len):
        check.fail("src", f"valid columns {cols} must be a multiple of 4 * blockLen = {4 * block_len}")
    if not 1 <= cols // (4 * block_len) <= 255:
        check.fail("src", f"valid columns / (4 * blockLen) = {cols // (4 * block_len)} must be in [1, 255]")


def _heads(t: Any, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first `count` pairs of a 1-row tile: their values (element 0 of each pair) and their 8 bytes."""
    k = _pair_elems(t.spec.dtype)
    row = t.view[0]
    return row[:count * k:k], row[:count * k].view(np.uint64)


def merge_order(values: list[np.ndarray], exhausted: bool, limit: int) -> tuple[np.ndarray, list[int]]:
    """The simulator's merge of lists (values by list): which (list, position) comes out k-th, for at most
    `limit` outputs, stopping after the output that empties a list when `exhausted`. Returns the outputs as
    indices into the lists' concatenation, and how many each list gave.

    Each step takes the largest head (the first list's on equal values, as `v > best` picks). Without a NaN this
    is a stable sort of every list's running minimum (a head larger than an earlier one of its list waits for
    it), descending, ties by list, then by position; with a NaN the loop is run as written."""
    lengths = [len(v) for v in values]
    starts = np.cumsum([0, *lengths])
    flat = np.concatenate(values) if values else np.zeros(0)
    with quiet():  # signalling NaNs convert with an "invalid" flag: NaNs all the same
        wide = flat.astype(np.float64 if flat.dtype.kind in "fV" else np.int64)
        lists = [v.astype(np.float64) for v in values] if flat.dtype.kind in "fV" else []
    if flat.dtype.kind in "fV" and np.isnan(wide).any():
        order = _merge_loop(lists, starts, exhausted, limit)
    else:
        keys = np.concatenate([np.minimum.accumulate(wide[a:b]) for a, b in zip(starts[:-1], starts[1:])]) \
            if len(wide) else wide
        which = np.repeat(np.arange(len(values)), lengths)
        with quiet():
            order = np.lexsort((np.arange(len(wide)), which, -keys.astype(np.float64)))
        if exhausted and len(order):
            taken = np.zeros((len(order), len(values)), dtype=np.int64)
            taken[np.arange(len(order)), which[order]] = 1
            taken = np.cumsum(taken, axis=0)
            done = np.nonzero((taken == np.asarray(lengths)).any(axis=1))[0]
            if len(done):
                order = order[:done[0] + 1]
        elif exhausted and 0 in lengths:
            order = order[:1]
        order = order[:max(limit, 0)]
    which_of = np.searchsorted(starts, order, side="right") - 1
    counts = [int((which_of == k).sum()) for k in range(len(values))]
    return order, counts


def _merge_loop(values: list[np.ndarray], starts: np.ndarray, exhausted: bool, limit: int) -> np.ndarray:
    heads = [0] * len(values)
    lengths = [len(v) for v in values]
    out: list[int] = []
    while len(out) < limit:
        pick, best = -1, 0.0
        for k, v in enumerate(values):
            if heads[k] < lengths[k] and (pick < 0 or v[heads[k]] > best):
                pick, best = k, v[heads[k]]
        if pick < 0:
            break
        out.append(int(starts[pick]) + heads[pick])
        heads[pick] += 1
        if exhausted and any(h == n for h, n in zip(heads, lengths)):
            break
    return np.asarray(out, dtype=np.int64)


def _tmrgsort(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    k = _pair_elems(out.spec.dtype)
    if plan.form == 0:
        s = tiles["src"]
        block_len = int(scalars["blockLen"])
        _block_len_rule(Check(plan.record.name, plan.config.name), s, block_len)
        per = block_len // k
        groups = s.valid_col // (4 * block_len)
        values, words = _heads(s, groups * 4 * per)
        merged = np.empty(groups * 4 * per, dtype=np.uint64)
        for g in range(groups):
            base = g * 4 * per
            lists = [values[base + b * per: base + (b + 1) * per] for b in range(4)]
            order, _ = merge_order(lists, False, 4 * per)
            merged[base:base + len(order)] = words[base:base + 4 * per][order]
        out.view[0, :groups * 4 * per * k].view(np.uint64)[:] = merged  # type: ignore[index]  # never boxed
        return
    sources = [tiles[r] for r in ("src0", "src1", "src2", "src3") if r in tiles]
    exhausted = plan.attrs["exhausted"] is Exhausted.TRUE
    heads = [_heads(t, t.valid_col // k) for t in sources]
    order, counts = merge_order([v for v, _ in heads], exhausted, out.valid_col // k)
    words = np.concatenate([w for _, w in heads]) if heads else np.zeros(0, np.uint64)
    picked = words[order]
    out.view[0, :len(picked) * k].view(np.uint64)[:] = picked  # type: ignore[index]  # never boxed
    if plan.config.name == "cpu" or exhausted:
        scalars["executed"].set(tuple(counts))


_MRG_FORMS = (
    (dst(), src("src"), scalar("blockLen", fixed=D.U32)),
    (dst(), struct("executed"), tmp("tmp"), src("src0"), src("src1")),
    (dst(), struct("executed"), tmp("tmp"), src("src0"), src("src1"), src("src2")),
    (dst(), struct("executed"), tmp("tmp"), src("src0"), src("src1"), src("src2"), src("src3")),
)

TMRGSORT = instruction(
    "TMRGSORT", operands=_MRG_FORMS[0], forms=_MRG_FORMS,
    attrs=(Attr("exhausted", Exhausted, Exhausted.FALSE),),
    legality={"a2a3": _NPU_MRG, "a5": _NPU_MRG, "cpu": _CPU_MRG}, static=_mrg_static, dynamic=_mrg_rule,
    family="sort",
    summary="merge sorted (value, index) pair lists descending: four runs of blockLen within src, or 2-4 lists",
)(_tmrgsort)

__all__ = ["Exhausted", "TMRGSORT", "TSORT32", "block_order", "merge_order"]
assert set(TARGETS) == {"a2a3", "a5", "cpu"}
