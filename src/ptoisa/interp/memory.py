"""Global memory at run time: the caller's arrays, tensor views over them, and TLOAD / TSTORE.

A global tensor is the caller's NumPy array seen as a flat run of elements of the pointer's element type.
`pto.make_tensor_view` and `pto.partition_view` (and April's `memref.reinterpret_cast`) describe an N-D window by
element offset, sizes and strides; every window is bounds-checked when it is made. For TLOAD / TSTORE the window is
read as a matrix: the last dimension gives the columns and the other dimensions are folded into rows (a
`1x1x1xRxC` view is an R x C matrix). Addresses always follow the strides, so ND views (last stride 1) and DN
views (`layout = #pto.layout<dn>`, stride 1 in the row dimension) are both exact; NZ global layouts are not
modelled.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

from ..errors import NotModelledError, OutOfBoundsError
from ..tile.layout import region, store
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from .decode import Inline


class GlobalTensor:
    """A kernel argument in global memory (a `!pto.ptr<T>` or memref argument)."""

    __slots__ = ("_copy_back", "_grids", "_written", "array", "flat", "name")

    def __init__(self, name: str, array: np.ndarray) -> None:
        self.name = name
        self.array = array
        flags = array.flags
        contiguous = flags.c_contiguous and flags.writeable
        if contiguous:
            self.flat = array if array.ndim == 1 else array.ravel()  # a view of a C-contiguous array
        else:
            self.flat = np.ascontiguousarray(array).reshape(-1)
            if not flags.writeable and self.flat.flags.writeable:  # a copy of a read-only array stays read-only:
                self.flat.flags.writeable = False  # a write raises, as it does in a C-contiguous one
        self._copy_back = not contiguous
        self._written = [False]  # shared with the pointers `offset` derives
        self._grids: dict[int, tuple[np.ndarray, int]] = {}  # row stride -> (flat as rows of that length, rows)

    @property
    def written(self) -> bool:
        return self._written[0]

    @written.setter
    def written(self, value: bool) -> None:
        self._written[0] = value

    def offset(self, elements: int) -> GlobalTensor:
        """`pto.addptr`: the same memory from element `elements` on (writes reach this tensor)."""
        if not 0 <= elements <= self.size:
            raise OutOfBoundsError(f"addptr %{self.name} + {elements}: %{self.name} holds {self.size} elements")
        derived = GlobalTensor.__new__(GlobalTensor)
        derived.name = f"{self.name}+{elements}"
        derived.array = derived.flat = self.flat[elements:]
        derived._copy_back = False
        derived._written = self._written
        derived._grids = {}
        return derived

    @property
    def size(self) -> int:
        return self.flat.size

    def window(self, offset: int, rows: int, cols: int, row_stride: int) -> np.ndarray:
        """A (rows, cols) view of elements `offset + i * row_stride + j` (the caller has bounds-checked them).

        Cut from the flat array seen as rows of `row_stride` elements (made once per run and stride) when the
        window lies inside those rows: two slices, cheaper than building a strided array each time."""
        if 0 < cols <= row_stride:
            grid = self._grids.get(row_stride)
            if grid is None:
                array = self.array
                if not self._copy_back and array.ndim == 2 and array.shape[1] == row_stride:
                    # the caller's own rows (`flat` is their ravel, `__init__`): the same grid, no reshape
                    grid = self._grids[row_stride] = (array, array.shape[0])
                else:
                    whole = self.flat.size // row_stride
                    grid = self._grids[row_stride] = (self.flat[:whole * row_stride].reshape(whole, row_stride),
                                                      whole)
            first, col = divmod(offset, row_stride)
            if col + cols <= row_stride and first + rows <= grid[1]:
                if cols == row_stride:  # whole rows of the grid: one slice
                    return grid[0][first:first + rows]
                return grid[0][first:first + rows, col:col + cols]
        item = self.flat.itemsize
        return np.ndarray((rows, cols), self.flat.dtype, self.flat, offset * item, (row_stride * item, item))

    def finish(self) -> None:
        """Copy results into the caller's array when it could not be used in place (non-contiguous)."""
        if self._copy_back and self.written and self.array.flags.writeable:
            self.array[...] = self.flat.reshape(self.array.shape)

    def __repr__(self) -> str:
        return f"<global %{self.name} {self.flat.dtype}[{self.flat.size}]>"


class ViewShape:
    """What a view is apart from where it starts: sizes, strides and layout, and everything derived from them,
    worked out once. A view op whose sizes and strides are constants builds its ViewShape when it is decoded
    (`pto.partition_view` with constant sizes: once per parent shape met), so that making a view at run time is
    one bounds comparison; views made from run-time sizes build theirs when they are made.

    * `problem`: None, or a function of the tensor's name giving the error every view of this shape raises (NZ
      layout, a negative size or stride), raised by `place`;
    * `reach`: how many elements past its offset the view reaches (-1 for an empty view);
    * `rows`, `cols`: the matrix TLOAD / TSTORE see (the last dimension gives the columns, the others fold into
      rows);
    * `row_stride`: the element distance between matrix rows when the matrix is a plain strided window of unit
      column stride (what TLOAD / TSTORE plan their copies with, `copy_plan`), else None.
    """

    __slots__ = ("cols", "layout", "problem", "reach", "row_stride", "rows", "shape", "strides")

    def __init__(self, shape: tuple[int, ...], strides: tuple[int, ...], layout: str = "nd") -> None:
        self.shape, self.strides, self.layout = shape, strides, layout
        self.problem = _shape_problem(shape, strides, layout)
        self.reach = -1
        if self.problem is None and prod(shape):  # type: ignore[arg-type]
            self.reach = sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
        if len(shape) == 2:
            self.rows, self.cols = shape
        elif not shape:
            self.rows, self.cols = 1, 1
        else:
            self.rows, self.cols = prod(shape[:-1]), shape[-1]
        self.row_stride = self._row_stride()

    def _row_stride(self) -> int | None:
        """Rows `row_stride` apart, columns adjacent: the plain windows of `View.matrix` with unit column
        stride (a single column or row makes the other stride irrelevant)."""
        shape, strides = self.shape, self.strides
        if self.problem is not None or not shape or len(shape) != len(strides):
            return None
        if len(shape) > 2 and prod(shape[:-2]) != 1:
            return None
        if strides[-1] != 1 and self.cols > 1:
            return None
        return strides[-2] if len(shape) >= 2 else 0

    def place(self, tensor: GlobalTensor, offset: int) -> View:
        """The view of this shape starting at element `offset` of `tensor`, bounds-checked."""
        if self.problem is not None:
            raise self.problem(tensor.name)
        if self.reach >= 0:
            last = offset + self.reach
            if offset < 0 or last >= tensor.size:
                raise OutOfBoundsError(
                    f"view of %{tensor.name} (offset {offset}, sizes {list(self.shape)}, strides "
                    f"{list(self.strides)}) reaches elements [{offset}, {last}] but %{tensor.name} holds "
                    f"{tensor.size} elements")
        return View(tensor, offset, self)


def _shape_problem(shape: tuple[int, ...], strides: tuple[int, ...], layout: str) -> Any:
    """Why no view of these sizes, strides and layout can be made (a function of the tensor's name giving the
    error), or None."""
    if layout == "nz":
        return lambda name: NotModelledError("NZ global tensor layouts are not modelled by the interpreter "
                                             "(use nd or dn)")
    if any(s < 0 for s in shape):
        return lambda name: OutOfBoundsError(f"view of %{name}: negative size in {list(shape)}")
    if any(s < 0 for s in strides):
        return lambda name: OutOfBoundsError(f"view of %{name}: negative stride in {list(strides)}")
    return None


class ShapeMemo:
    """The ViewShape of the sizes and strides an op met last, kept for its next run: a view op with run-time sizes
    (make_tensor_view, reinterpret_cast) gets the same ViewShape while they do not change, which also lets the
    partitions of its views reuse their plans (`Partition`). ViewShapes are not changed once made."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Any, Any] = (None, None)  # ((sizes, strides), kind): one tuple, read whole by threads

    def __call__(self, sizes: tuple[int, ...], strides: tuple[int, ...], layout: str) -> ViewShape:
        key = (sizes, strides)
        last = self._last
        if last[0] == key:
            return last[1]
        kind = ViewShape(sizes, strides, layout)
        self._last = (key, kind)
        return kind


class View:
    """A strided window of a global tensor: element offset and ViewShape (sizes, strides in elements, layout).

    Its tensor and kind never change once it is made (TLOAD / TSTORE plans rely on it, `copy_plan`); its offset
    is moved only by the partition_view step that made it, when only TLOAD / TSTORE read it (`ops_pto`)."""

    __slots__ = ("kind", "offset", "tensor")

    def __init__(self, tensor: GlobalTensor, offset: int, kind: ViewShape) -> None:
        self.tensor, self.offset, self.kind = tensor, offset, kind

    @classmethod
    def make(cls, tensor: GlobalTensor, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
             layout: str = "nd") -> View:
        """A bounds-checked view."""
        return ViewShape(shape, strides, layout).place(tensor, offset)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.kind.shape

    @property
    def strides(self) -> tuple[int, ...]:
        return self.kind.strides

    @property
    def layout(self) -> str:
        return self.kind.layout

    def partition(self, offsets: tuple[int, ...], sizes: tuple[int, ...]) -> View:
        """`pto.partition_view`: the window at `offsets` of `sizes` (each inside this view's size)."""
        for dim, (o, n, full) in enumerate(zip(offsets, sizes, self.shape, strict=True)):
            if o < 0 or n < 0 or o + n > full:
                raise OutOfBoundsError(f"partition_view of %{self.tensor.name}: offset {o} + size {n} at dim "
                                       f"{dim} exceeds the view's size {full}")
        start = self.offset + sum(o * s for o, s in zip(offsets, self.strides, strict=True))
        return View(self.tensor, start, ViewShape(sizes, self.strides, self.layout))

    @property
    def matrix_shape(self) -> tuple[int, int]:
        return self.kind.rows, self.kind.cols

    def matrix(self) -> np.ndarray:
        """The window as a (rows, cols) array: a view of the caller's memory when the strides allow one."""
        flat = self.tensor.flat
        item = flat.itemsize
        shape, strides = self.shape, self.strides
        if len(shape) == 2:
            s0, s1 = strides
            return np.ndarray(shape, flat.dtype, flat, self.offset * item, (s0 * item, s1 * item))
        rows, cols = self.matrix_shape
        if len(shape) <= 2 or prod(shape[:-2]) == 1:
            row_stride = strides[-2] if len(shape) >= 2 else 0
            col_stride = strides[-1] if shape else 0
            return np.ndarray((rows, cols), flat.dtype, flat, self.offset * item, (row_stride * item, col_stride * item))
        full = np.ndarray(shape, flat.dtype, flat, self.offset * item, tuple(s * item for s in strides))
        try:
            full.shape = (rows, cols)  # raises when the fold needs a copy
            return full
        except AttributeError:
            index = self.offset + sum(np.indices(shape)[d] * s for d, s in enumerate(strides))
            return _Scattered(flat, index.reshape(rows, cols))  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<view %{self.tensor.name}+{self.offset} {list(self.shape)} strides {list(self.strides)}>"


class Partition:
    """`pto.partition_view` with constant sizes. The child's ViewShape and the largest offset allowed in each
    dimension are worked out once per parent ViewShape (the last one met is kept: a loop partitions the same
    parent every turn), so that a partition at run time is a comparison per dimension and an offset sum. Any
    offset outside its range goes to `View.partition`, which raises the error."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.sizes = sizes
        self._last: tuple[Any, Any, Any] = (None, None, None)  # (parent kind, child kind or None, limits)
        # rank 2, the child fits: (parent kind, child kind, limit 0, limit 1, stride 0, stride 1) for the step
        # of a partition_view to use inline (`last2`); else a parent kind no view has
        self.last2: tuple[Any, ...] = (None, None, -1, -1, 0, 0)

    def _for(self, kind: ViewShape) -> tuple[ViewShape | None, tuple[int, ...]]:
        last = self._last  # one tuple: threads sharing the program read a consistent entry
        if last[0] is kind:
            return last[1], last[2]
        sizes = self.sizes
        fits = len(sizes) == len(kind.shape) and all(n >= 0 for n in sizes)
        child = ViewShape(sizes, kind.strides, kind.layout) if fits else None
        limits = tuple(full - n for full, n in zip(kind.shape, sizes, strict=False))
        self._last = (kind, child, limits)
        if child is not None and len(limits) == 2:
            self.last2 = (kind, child, *limits, *child.strides)
        return child, limits

    def last2_for(self, kind: ViewShape) -> tuple[Any, ...]:
        """`last2` after planning for parent kind `kind` (as `at2` would on meeting it); raises nothing (a kind
        that cannot be planned leaves a `last2` that is not for it, and `at2` meets the error)."""
        last = self.last2
        if last[0] is not kind:
            try:
                self._for(kind)
            except Exception:  # noqa: BLE001 - raised again where the view is made
                pass
            last = self.last2
        return last

    def __call__(self, parent: View, offsets: tuple[int, ...]) -> View:
        child, limits = self._for(parent.kind)
        if child is not None and len(offsets) == len(limits) and all(
                0 <= o <= m for o, m in zip(offsets, limits, strict=True)):
            start = parent.offset + sum(o * s for o, s in zip(offsets, child.strides, strict=True))
            return View(parent.tensor, start, child)
        return parent.partition(offsets, self.sizes)

    def at2(self, parent: View, o0: int, o1: int) -> View:
        """`self(parent, (o0, o1))` for the common rank-2 view, without the loops."""
        kind, child, limits = self._last
        if kind is not parent.kind:
            child, limits = self._for(parent.kind)
        if child is not None and len(limits) == 2 and 0 <= o0 <= limits[0] and 0 <= o1 <= limits[1]:
            s0, s1 = child.strides
            return View(parent.tensor, parent.offset + o0 * s0 + o1 * s1, child)
        return parent.partition((o0, o1), self.sizes)


class _Scattered:
    """A folded window the strides cannot express as one array view: reads and writes go through indices."""

    def __init__(self, flat: np.ndarray, index: np.ndarray) -> None:
        self.flat, self.index, self.shape, self.dtype = flat, index, index.shape, flat.dtype

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.flat[self.index]

    def __getitem__(self, key: Any) -> np.ndarray:
        return self.flat[self.index[key]]

    def __setitem__(self, key: Any, values: Any) -> None:
        self.flat[self.index[key]] = values


def _same_width(what: str, a: np.dtype, b: np.dtype) -> None:
    if a.itemsize != b.itemsize:
        raise OutOfBoundsError(f"{what}: element sizes differ ({a} is {a.itemsize} bytes, {b} is {b.itemsize})")


def tload(view: View, tile: Tile) -> None:
    """Copy the view into the tile's valid region (elements outside it are left as they are).

    The view must have the valid region's shape, or cover it (its top-left part is loaded), or hold the same
    number of elements (read row-major). Element types must have the same width; values are copied bit for bit.
    """
    vr, vc = tile.valid_shape
    rows, cols = view.matrix_shape
    g = view.matrix()
    dtype = tile.spec.np_dtype
    if g.dtype != dtype:
        _same_width("tload", g.dtype, dtype)
        g = np.ascontiguousarray(np.asarray(g)).view(dtype)
    if (rows, cols) == (vr, vc):
        store(tile, vr, vc, g if isinstance(g, np.ndarray) else np.asarray(g))
    elif rows >= vr and cols >= vc:
        store(tile, vr, vc, g[:vr, :vc])
    elif rows * cols == vr * vc:
        store(tile, vr, vc, np.asarray(g).reshape(vr, vc))
    else:
        raise OutOfBoundsError(f"tload: the view is {rows}x{cols} but the tile's valid region is {vr}x{vc}")


def tstore(tile: Tile, view: View) -> None:
    """Copy the tile's valid region into the view: same shape, or the same number of elements (row-major)."""
    vr, vc = tile.valid_shape
    rows, cols = view.matrix_shape
    values = region(tile, vr, vc)
    dtype = view.tensor.flat.dtype
    if values.dtype != dtype:
        _same_width("tstore", values.dtype, dtype)
        values = np.ascontiguousarray(values).view(dtype)
    write_view(values, view)


def write_view(values: np.ndarray, view: View) -> None:
    """A tile's valid region (already in the view's element type) into the view: same shape, or the same number
    of elements (row-major)."""
    vr, vc = values.shape
    rows, cols = view.matrix_shape
    if (rows, cols) != (vr, vc):
        if rows * cols != vr * vc:
            raise OutOfBoundsError(f"tstore: the tile's valid region is {vr}x{vc} but the view is {rows}x{cols}")
        values = np.ascontiguousarray(values).reshape(rows, cols)
    view.matrix()[:, :] = values
    view.tensor.written = True


def tstore_quantised(tile: Tile, view: View, word: int, relu: bool) -> None:
    """TSTORE(dst, src, preQuantScalar) as the simulator computes it (cpu/TStore.hpp): every element converted
    with `ConvertStoreValue` under the (tile, tensor) pair's scalar pre-quantisation mode and the word, ReLU
    where asked; a pair without a mode is ReLU and C++'s conversion."""
    from ..dtypes import as_dtype
    from ..isa.vector import _prequant

    vr, vc = tile.valid_shape
    values = np.array(region(tile, vr, vc))
    words = np.full(vc, word & 0xFFFFFFFFFFFFFFFF, np.uint64)  # one word for all: its index does not matter
    write_view(_prequant.apply(values, as_dtype(view.tensor.flat.dtype), words, False, relu), view)


NO_PART = (None, None, -1, -1, None, None, None, None)
"""What the scratch slot of a TLOAD / TSTORE step holds when the frame is made: a plan that fits no copy (see
`copy_plan`)."""


def copy_plan(view: View, storage: np.ndarray, tile: Tile, vr: int, vc: int, spec: TileSpec,
              load: bool) -> tuple[Any, ...]:
    """How a TLOAD (`load`) or TSTORE step copies between `view` and a tile of type `spec` with storage `storage`
    and valid shape vr x vc: the tuple the step keeps in its scratch slot, (view, storage, vr, vc, part, windows,
    kind, tensor), good for every later call meeting a view of the same kind and tensor (the same View, whose
    kind and tensor never change, or another one) and the same storage (a tile's `view` is made with it,
    `Tile.attach`) and valid shape, whose view's offset is then the only thing that changes.

    `part` is None when the copy is `tload` / `tstore`'s (boxed layouts are not planned: see `load_step`): the
    view is not a plain window of unit column stride (`ViewShape.row_stride`), its element type is not the
    tile's, the valid region is empty, or the view's matrix does not cover it (TLOAD) or is not exactly it
    (TSTORE); those copies check and raise. Else `part` is the tile's valid region, a cut of its (rows, cols)
    view (NumPy copies it as one run of elements where they are contiguous), and `windows[offset]` is the
    tensor's vr x vc window of
    rows `row_stride` apart starting at element `offset`: one array whose first index is the offset, made of
    the tensor's memory (so indexing it cuts no new view of the tensor but a plain index), holding every offset
    whose window lies inside the tensor, which the view's offset does (views are bounds-checked when made, and
    their matrix covers the window)."""
    kind, tensor = view.kind, view.tensor
    s0 = kind.row_stride
    flat = tensor.flat
    covered = kind.rows >= vr and kind.cols >= vc if load else kind.rows == vr and kind.cols == vc
    if s0 is None or not covered or not vr or not vc or (flat.dtype is not spec.np_dtype and
                                                         flat.dtype != spec.np_dtype):
        return (view, storage, vr, vc, None, None, kind, tensor)
    cut: np.ndarray = tile.view  # type: ignore[assignment]  # plain (ND / DN) tiles always have one
    rows, cols = cut.shape
    part = cut if vr == rows and vc == cols else cut[:vr, :vc]
    item = flat.itemsize
    starts = flat.size - ((vr - 1) * s0 + vc - 1)  # offsets whose window ends inside the tensor
    windows = np.ndarray((max(starts, 0), vr, vc), flat.dtype, flat, 0, (item, s0 * item, item))
    return (view, storage, vr, vc, part, windows, kind, tensor)


def load_step(spec: TileSpec, v: int, t: int, m: int) -> Callable[[list[Any]], None]:
    """The step of a TLOAD from the view in slot `v` into the tile in slot `t` (of type `spec`), planned when
    the op is decoded; in poison mode the loaded region is then marked written. Slot `m` is the step's own
    scratch slot (holding `NO_PART` when the frame is made).

    Boxed layouts take `tload`. For ND / DN tiles the step keeps in its scratch slot the plan of its last copy
    (`copy_plan`) and makes a new one when the view's kind or tensor, the tile's storage or its valid shape
    differ from the plan's: so a loop loading the same tile from the same tensor every turn plans once, and
    each turn copies the plan's window at the view's offset into the plan's cut of the tile (the bytes every
    call copied before). Everything else (other shapes, type punning, folded windows, empty regions, whose
    views are not bounds-checked, every error) goes to `tload`. The step is written as statements (`Inline`)
    that `decode.fuse` can put beside its neighbours'."""
    if spec.is_boxed:
        def boxed(regs: list[Any]) -> None:
            tload(regs[v], regs[t])
            if regs[0].poison is not None:
                regs[0].poison.mark(regs[t])

        return boxed

    def lines(tag: str) -> list[str]:
        return [
            f"view, tile = regs[{v}], regs[{t}]",
            *_plan_lines(m, tag, True),
            "    part, windows = plan[4], plan[5]",
            "if part is None:",
            f"    tload{tag}(view, tile)",
            "else:",
            "    part[...] = windows[view.offset]",
            f"if poison{tag} is not None:",
            f"    poison{tag}.mark(tile)"]

    return Inline(lines, lambda tag: {f"spec{tag}": spec, f"tload{tag}": tload, f"plan{tag}": copy_plan},
                  lambda tag: [f"poison{tag} = regs[0].poison"]).step("pto.tload")


def _plan_lines(m: int, tag: str, loading: bool) -> list[str]:
    """The lines a TLOAD / TSTORE step shares: the copy plan in scratch slot `m` taken over for another View of the
    same kind and tensor, or made again (as `plan`) when the tile's storage or valid shape is not the one it was
    made for; the step then reads what it needs of the new plan."""
    return [
        "storage, vr, vc = tile.storage, tile._valid_row, tile._valid_col",
        f"pview, pstorage, pvr, pvc, part, windows, pkind, ptensor = regs[{m}]",
        "if pview is not view:  # the plan holds for another View of its kind and tensor",
        "    if view.kind is pkind and view.tensor is ptensor:",
        f"        regs[{m}] = (view, pstorage, pvr, pvc, part, windows, pkind, ptensor)",
        "    else:",
        "        pstorage = None",
        "if pstorage is not storage or pvr != vr or pvc != vc:",
        f"    plan = regs[{m}] = plan{tag}(view, storage, tile, vr, vc, spec{tag}, {loading})"]


def store_step(spec: TileSpec, t: int, v: int, m: int) -> Callable[[list[Any]], None]:
    """The step of a plain TSTORE from the tile in slot `t` (of type `spec`) into the view in slot `v`: as
    `load_step` (slot `m` its scratch slot), for a view whose matrix is exactly the tile's valid region;
    everything else goes to `tstore`. In poison mode the stored region is checked first."""
    if spec.is_boxed:
        def boxed(regs: list[Any]) -> None:
            if regs[0].poison is not None:
                regs[0].poison.check(regs[t], "the stored tile")
            tstore(regs[t], regs[v])

        return boxed

    def lines(tag: str) -> list[str]:
        return [
            f"tile, view = regs[{t}], regs[{v}]",
            f"if poison{tag} is not None:",
            f"    poison{tag}.check(tile, 'the stored tile')",
            *_plan_lines(m, tag, False),
            "    part, windows, ptensor = plan[4], plan[5], plan[7]",
            "if part is None:",
            f"    tstore{tag}(tile, view)",
            "else:",
            "    windows[view.offset] = part",
            "    ptensor._written[0] = True"]

    return Inline(lines, lambda tag: {f"spec{tag}": spec, f"tstore{tag}": tstore, f"plan{tag}": copy_plan},
                  lambda tag: [f"poison{tag} = regs[0].poison"]).step("pto.tstore")


class _Plain:
    """Slot 0 of the frames `loader` and `storer` run their steps in: no poison tracking."""

    poison = None


def loader(spec: TileSpec) -> Callable[[View, Tile], None]:
    """TLOAD into tiles of type `spec` as the interpreter runs it (`load_step`): a function of (view, tile)."""
    step = load_step(spec, 1, 2, 3)
    env = _Plain()
    return lambda view, tile: step([env, view, tile, NO_PART])


def storer(spec: TileSpec) -> Callable[[Tile, View], None]:
    """TSTORE from tiles of type `spec` as the interpreter runs it (`store_step`): a function of (tile, view)."""
    step = store_step(spec, 1, 2, 3)
    env = _Plain()
    return lambda tile, view: step([env, tile, view, NO_PART])


class TileArgument:
    """An entry argument that is a tile (`!pto.tile_buf`): the kernel works on `tile`; `finish` copies its
    logical contents back into the caller's array when they changed (then `written` is true)."""

    __slots__ = ("array", "before", "name", "tile", "written")

    def __init__(self, name: str, tile: Tile, array: np.ndarray | None) -> None:
        self.name, self.tile, self.array = name, tile, array
        self.before = tile.tobytes()
        self.written = False

    def finish(self) -> None:
        if self.tile.tobytes() == self.before:
            return
        self.written = True
        if self.array is None:
            self.array = self.tile.to_numpy()
        elif self.array.flags.writeable:
            self.array[...] = self.tile.to_numpy()
