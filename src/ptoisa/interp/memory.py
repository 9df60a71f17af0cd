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

from math import prod
from typing import Any

import numpy as np

from ..errors import NotModelledError, OutOfBoundsError
from ..tile.layout import region, store
from ..tile.tile import Tile


class GlobalTensor:
    """A kernel argument in global memory (a `!pto.ptr<T>` or memref argument)."""

    __slots__ = ("_copy_back", "_written", "array", "flat", "name")

    def __init__(self, name: str, array: np.ndarray) -> None:
        self.name = name
        self.array = array
        contiguous = array.flags.c_contiguous and array.flags.writeable
        self.flat = array.reshape(-1) if contiguous else np.ascontiguousarray(array).reshape(-1)
        self._copy_back = not contiguous
        self._written = [False]  # shared with the pointers `offset` derives

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
        return derived

    @property
    def size(self) -> int:
        return self.flat.size

    def finish(self) -> None:
        """Copy results into the caller's array when it could not be used in place (non-contiguous)."""
        if self._copy_back and self.written and self.array.flags.writeable:
            self.array[...] = self.flat.reshape(self.array.shape)

    def __repr__(self) -> str:
        return f"<global %{self.name} {self.flat.dtype}[{self.flat.size}]>"


class View:
    """A strided window of a global tensor: element offset, sizes and strides (in elements)."""

    __slots__ = ("layout", "offset", "shape", "strides", "tensor")

    def __init__(self, tensor: GlobalTensor, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 layout: str = "nd") -> None:
        self.tensor, self.offset, self.shape, self.strides, self.layout = tensor, offset, shape, strides, layout

    @classmethod
    def make(cls, tensor: GlobalTensor, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
             layout: str = "nd") -> View:
        """A bounds-checked view."""
        if layout == "nz":
            raise NotModelledError("NZ global tensor layouts are not modelled by the interpreter (use nd or dn)")
        if any(s < 0 for s in shape):
            raise OutOfBoundsError(f"view of %{tensor.name}: negative size in {list(shape)}")
        if any(s < 0 for s in strides):
            raise OutOfBoundsError(f"view of %{tensor.name}: negative stride in {list(strides)}")
        if prod(shape):
            last = offset + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
            if offset < 0 or last >= tensor.size:
                raise OutOfBoundsError(
                    f"view of %{tensor.name} (offset {offset}, sizes {list(shape)}, strides {list(strides)}) "
                    f"reaches elements [{offset}, {last}] but %{tensor.name} holds {tensor.size} elements")
        return cls(tensor, offset, shape, strides, layout)

    def partition(self, offsets: tuple[int, ...], sizes: tuple[int, ...]) -> View:
        if len(offsets) == 2 and len(self.shape) == 2:  # the common case, without the loops
            (o0, o1), (n0, n1), (f0, f1), (s0, s1) = offsets, sizes, self.shape, self.strides
            if 0 <= o0 and 0 <= n0 and o0 + n0 <= f0 and 0 <= o1 and 0 <= n1 and o1 + n1 <= f1:
                return View(self.tensor, self.offset + o0 * s0 + o1 * s1, sizes, self.strides, self.layout)
        for dim, (o, n, full) in enumerate(zip(offsets, sizes, self.shape, strict=True)):
            if o < 0 or n < 0 or o + n > full:
                raise OutOfBoundsError(f"partition_view of %{self.tensor.name}: offset {o} + size {n} at dim "
                                       f"{dim} exceeds the view's size {full}")
        start = self.offset + sum(o * s for o, s in zip(offsets, self.strides, strict=True))
        return View(self.tensor, start, sizes, self.strides, self.layout)

    @property
    def matrix_shape(self) -> tuple[int, int]:
        if len(self.shape) == 2:
            return self.shape  # type: ignore[return-value]
        if not self.shape:
            return 1, 1
        return prod(self.shape[:-1]), self.shape[-1]

    def matrix(self) -> np.ndarray:
        """The window as a (rows, cols) array: a view of the caller's memory when the strides allow one."""
        flat = self.tensor.flat
        item = flat.itemsize
        if len(self.shape) == 2:
            s0, s1 = self.strides
            return np.ndarray(self.shape, flat.dtype, flat, self.offset * item, (s0 * item, s1 * item))
        rows, cols = self.matrix_shape
        if len(self.shape) <= 2 or prod(self.shape[:-2]) == 1:
            row_stride = self.strides[-2] if len(self.shape) >= 2 else 0
            col_stride = self.strides[-1] if self.shape else 0
            return np.ndarray((rows, cols), flat.dtype, flat, self.offset * item, (row_stride * item, col_stride * item))
        full = np.ndarray(self.shape, flat.dtype, flat, self.offset * item, tuple(s * item for s in self.strides))
        try:
            full.shape = (rows, cols)  # raises when the fold needs a copy
            return full
        except AttributeError:
            index = self.offset + sum(np.indices(self.shape)[d] * s for d, s in enumerate(self.strides))
            return _Scattered(flat, index.reshape(rows, cols))  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<view %{self.tensor.name}+{self.offset} {list(self.shape)} strides {list(self.strides)}>"


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
