"""Physical layouts: where logical element (r, c) of a tile lives in its storage (reference-facts 1.5).

Plain layouts are served as NumPy views (no copy): ND is `storage.reshape(rows, cols)`, DN is
`storage.reshape(cols, rows).T`. Boxed layouts (NZ, ZN, ZZ, NN) go through a cached offset table.

    ND: r*Cols + c                     DN: c*Rows + r
    NZ: C*Rows*IC + R*IN + ir*IC + ic  ZN: R*Cols*IR + C*IN + ic*IR + ir
    ZZ: R*Cols*IR + C*IN + ir*IC + ic  NN: C*Rows*IC + R*IN + ic*IR + ir
    with R = r // IR, ir = r % IR, C = c // IC, ic = c % IC, IN = IR * IC.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .enums import BLayout, SLayout
from .spec import TileSpec


def element_offset(spec: TileSpec, r: int, c: int) -> int:
    """Storage index of logical element (r, c)."""
    rows, cols, ir_n, ic_n = spec.rows, spec.cols, spec.inner_rows, spec.inner_cols
    if spec.slayout is SLayout.NoneBox:
        return r * cols + c if spec.blayout is BLayout.RowMajor else c * rows + r
    big_r, ir, big_c, ic = r // ir_n, r % ir_n, c // ic_n, c % ic_n
    box = ir_n * ic_n
    outer = big_c * rows * ic_n + big_r * box if spec.blayout is BLayout.ColMajor else big_r * cols * ir_n + big_c * box
    inner = ir * ic_n + ic if spec.slayout is SLayout.RowMajor else ic * ir_n + ir
    return outer + inner


@lru_cache(maxsize=1024)
def offset_table(spec: TileSpec) -> np.ndarray:
    """(rows, cols) int64 array of storage indices, read-only."""
    r = np.arange(spec.rows, dtype=np.int64)[:, None]
    c = np.arange(spec.cols, dtype=np.int64)[None, :]
    rows, cols, ir_n, ic_n = spec.rows, spec.cols, spec.inner_rows, spec.inner_cols
    if spec.slayout is SLayout.NoneBox:
        table = r * cols + c if spec.blayout is BLayout.RowMajor else c * rows + r
    else:
        big_r, ir, big_c, ic = r // ir_n, r % ir_n, c // ic_n, c % ic_n
        box = ir_n * ic_n
        if spec.blayout is BLayout.ColMajor:
            outer = big_c * rows * ic_n + big_r * box
        else:
            outer = big_r * cols * ir_n + big_c * box
        inner = ir * ic_n + ic if spec.slayout is SLayout.RowMajor else ic * ir_n + ir
        table = outer + inner
    table = np.ascontiguousarray(np.broadcast_to(table, (rows, cols)))
    table.setflags(write=False)
    return table


@lru_cache(maxsize=1024)
def spills(spec: TileSpec) -> bool:
    """True when the layout maps some element past the storage: boxed tiles whose Rows are not a multiple of
    the box height (allowed by the Vec / MX / Rows == 1 exemptions) whose row boxes are laid out row after row."""
    return spec.is_boxed and spec.rows % spec.inner_rows != 0 and int(offset_table(spec).max()) >= spec.numel


def plain_view(storage: np.ndarray, spec: TileSpec) -> np.ndarray | None:
    """A writable (rows, cols) view of the storage for ND and DN tiles; None for boxed layouts."""
    if spec.slayout is not SLayout.NoneBox:
        return None
    if spec.blayout is BLayout.RowMajor:
        return storage.reshape(spec.rows, spec.cols)
    return storage.reshape(spec.cols, spec.rows).T


def read_region(storage: np.ndarray, spec: TileSpec, vr: int, vc: int) -> np.ndarray:
    """Logical elements [0, vr) x [0, vc): a view for plain layouts, a copy for boxed ones."""
    view = plain_view(storage, spec)
    if view is not None:
        return view[:vr, :vc]
    return storage[offset_table(spec)[:vr, :vc]]


def write_region(storage: np.ndarray, spec: TileSpec, vr: int, vc: int, values: np.ndarray | object) -> None:
    """Store `values` (broadcastable to (vr, vc)) into logical elements [0, vr) x [0, vc)."""
    view = plain_view(storage, spec)
    if view is not None:
        view[:vr, :vc] = values
    else:
        storage[offset_table(spec)[:vr, :vc]] = values


def logical_copy(storage: np.ndarray, spec: TileSpec) -> np.ndarray:
    """The whole logical (rows, cols) tile as a new array."""
    return np.array(read_region(storage, spec, spec.rows, spec.cols))


def write_stream(storage: np.ndarray, spec: TileSpec, vr: int, vc: int, stream: np.ndarray,
                 view: np.ndarray | None = None) -> None:
    """Store `stream` row-major over logical [0, vr) x [0, vc), as far as it reaches (at most vr * vc values)."""
    if vc == 0 or vr == 0:
        return
    count = min(stream.size, vr * vc)
    full, rest = divmod(count, vc)
    if view is None:
        view = plain_view(storage, spec)
    if view is not None:
        view[:full, :vc] = stream[:full * vc].reshape(full, vc)
        if rest:
            view[full, :rest] = stream[full * vc:count]
        return
    pos = np.arange(count)
    storage[offset_table(spec)[pos // vc, pos % vc]] = stream[:count]


def region(tile: Any, vr: int, vc: int) -> np.ndarray:
    """`read_region` of a Tile, using its cached plain view when it has one."""
    view = tile.view
    if view is not None:
        return view[:vr, :vc]
    return tile.storage[offset_table(tile.spec)[:vr, :vc]]


def store(tile: Any, vr: int, vc: int, values: Any) -> None:
    """`write_region` into a Tile, using its cached plain view when it has one."""
    view = tile.view
    if view is not None:
        view[:vr, :vc] = values
    else:
        tile.storage[offset_table(tile.spec)[:vr, :vc]] = values


def _owner(array: np.ndarray) -> np.ndarray | None:
    """The ndarray that owns `array`'s memory (itself, or the base NumPy collapses a view's chain to), or None
    when that is not certain (a base that is not an owning ndarray: a buffer, a memoryview, an mmap...)."""
    base = array.base
    if base is None:
        return array if array.flags.owndata else None
    if type(base) is np.ndarray and base.base is None and base.flags.owndata:
        return base
    return None


def certainly_apart(first: np.ndarray, *others: np.ndarray) -> bool:
    """True only when `first`'s memory certainly overlaps none of the others': each has a known owning ndarray
    and first's is none of the others' (distinct owners hold distinct allocations). False when unsure: the caller
    then asks `np.may_share_memory` (exact, and slower)."""
    if first.base is None and all(o.base is None for o in others):  # private arrays (the common case)
        return first.flags.owndata and all(o is not first and o.flags.owndata for o in others)
    owner = _owner(first)
    if owner is None:
        return False
    for other in others:
        theirs = _owner(other)
        if theirs is None or theirs is owner:
            return False
    return True
