"""Tile instances: a TileSpec, its physical storage and its runtime valid sizes.

    SrcT = Tile[TileType.Vec, float, 16, 16]          # a TileSpec (the C++ `using SrcT = Tile<...>`)
    src = SrcT()                                      # a Tile with zero-filled private storage
    dst = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1](16, 2)

Storage is a 1-D NumPy array of the element type holding the tile's bytes in the reference's physical layout. A
tile owns private zero-filled storage ("auto" placement) until TASSIGN binds it into an on-chip buffer, after which
its storage is a view of that buffer and tiles whose byte ranges overlap alias.

Valid sizes follow the C++ constructors: `DstT(vr, vc)` when both are dynamic, `DstT(vr)` / `DstT(vc)` when only
one is. A dynamic size not given at construction defaults to the static size (the C++ value is uninitialised).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import _alloc  # noqa: F401 - tunes the allocator for kernels' temporaries (see its docstring)
from .._shown import shown
from ..dtypes import DType, dtype_of_numpy
from ..errors import TileSpecError
from .enums import DYNAMIC
from .layout import logical_copy, plain_view, read_region, write_region
from .spec import TileSpec, make_spec


class Tile:
    """A tile instance. `Tile[...]` (subscript) builds a TileSpec, mirroring `Tile<...>`."""

    __slots__ = ("spec", "storage", "view", "_valid_row", "_valid_col", "binding", "__weakref__")

    spec: TileSpec
    storage: np.ndarray
    view: np.ndarray | None  # the (rows, cols) view of storage for ND/DN layouts, None for boxed ones

    def __class_getitem__(cls, args: Any) -> TileSpec:
        return make_spec(args if isinstance(args, tuple) else (args,))

    def __init__(self, spec: TileSpec, *valid: int, data: Any = None) -> None:
        if not isinstance(spec, TileSpec):
            raise TileSpecError(f"Tile() needs a TileSpec (got {type(spec).__name__}); write Tile[...](...)")
        self.spec = spec
        self._valid_row, self._valid_col = _runtime_valid(spec, valid)
        self.attach(private_storage(spec.nbytes, spec.np_dtype))
        self.binding: Any = None
        if data is not None:
            self.set_logical(data)

    @classmethod
    def fresh(cls, spec: TileSpec, valid_row: int, valid_col: int) -> Tile:
        """`Tile(spec, ...)` without its checks: new zero-filled storage and valid sizes the caller has already
        checked (the interpreter resolves an alloc_tile's static valid sizes once, when it decodes the op)."""
        tile = cls.__new__(cls)
        tile.spec = spec
        tile._valid_row, tile._valid_col = valid_row, valid_col
        tile.attach(private_storage(spec.nbytes, spec.np_dtype))
        tile.binding = None
        return tile

    def attach(self, storage: np.ndarray) -> None:
        """Use `storage` (1-D, the element type, `numel` long) as this tile's bytes; `view` is its (rows, cols)
        logical view for ND/DN layouts (None for boxed ones), kept so that kernels need not rebuild it."""
        self.storage = storage
        self.view = plain_view(storage, self.spec)

    @property
    def is_full(self) -> bool:
        """The valid region is the whole tile."""
        return self._valid_row == self.spec.rows and self._valid_col == self.spec.cols

    # --- C++-style accessors -----------------------------------------------------------------------------
    def GetValidRow(self) -> int:
        return self._valid_row

    def GetValidCol(self) -> int:
        return self._valid_col

    def SetValidRow(self, value: int) -> None:
        self._set_valid("row", value)

    def SetValidCol(self, value: int) -> None:
        self._set_valid("col", value)

    def SetValidShape(self, rows: int, cols: int) -> None:
        for which, value in (("row", rows), ("col", cols)):  # validate both before changing either
            self._check_settable(which)
            self._check_valid_value(which, value)
        self._set_valid("row", rows)
        self._set_valid("col", cols)

    @property
    def valid_row(self) -> int:
        return self._valid_row

    @property
    def valid_col(self) -> int:
        return self._valid_col

    @property
    def valid_shape(self) -> tuple[int, int]:
        return self._valid_row, self._valid_col

    def _check_settable(self, which: str) -> None:
        static = self.spec.valid_row if which == "row" else self.spec.valid_col
        if static != DYNAMIC:
            raise TileSpecError(f"SetValid{which.capitalize()} on {self.spec}: the valid {which} count is static")

    def _set_valid(self, which: str, value: int) -> None:
        self._check_settable(which)
        self._check_valid_value(which, value)
        if which == "row":
            self._valid_row = int(value)
        else:
            self._valid_col = int(value)

    def _check_valid_value(self, which: str, value: int) -> None:
        limit = self.spec.rows if which == "row" else self.spec.cols
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= limit:
            raise TileSpecError(f"valid {which} count of {self.spec} must be an integer in [0, {limit}] (got {shown(value)})")

    # --- data access ---------------------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return self.spec.dtype

    @property
    def data(self) -> np.ndarray:
        """The whole logical (rows, cols) tile; a view for ND/DN layouts, a read-only copy for boxed ones (a write
        into a copy would be lost: NumPy refuses it; write with set_logical)."""
        return self._read(self.spec.rows, self.spec.cols)

    @property
    def valid(self) -> np.ndarray:
        """The logical valid region; a view for ND/DN layouts, a read-only copy for boxed ones."""
        return self._read(self._valid_row, self._valid_col)

    def _read(self, rows: int, cols: int) -> np.ndarray:
        region = read_region(self.storage, self.spec, rows, cols)
        if self.view is None:  # (a boxed layout: the region is a copy)
            region.flags.writeable = False
        return region

    def to_numpy(self) -> np.ndarray:
        """A copy of the whole logical tile."""
        return logical_copy(self.storage, self.spec)

    def set_logical(self, values: Any) -> None:
        """Write a logical array: shape (rows, cols) fills the tile, a smaller 2-D array fills its top-left corner.
        Values convert to the element type as C++ converts them; a NarrowingWarning says when one changed (an
        integer wrapped or lost its fraction, a finite number overflowed to infinity)."""
        if isinstance(values, np.ma.MaskedArray) and np.ma.getmaskarray(values).any():
            raise TileSpecError(f"cannot store a masked array into {self.spec}: a masked element has no value")
        try:
            arr = np.asarray(values)
        except ValueError as exc:  # (rows of different lengths)
            raise TileSpecError(f"cannot store {type(values).__name__} into {self.spec}: not an array ({exc})"
                                ) from None
        if arr.ndim == 0:
            arr = np.broadcast_to(arr, (self.spec.rows, self.spec.cols))
        if arr.ndim != 2 or arr.shape[0] > self.spec.rows or arr.shape[1] > self.spec.cols:
            raise TileSpecError(f"cannot store an array of shape {arr.shape} into {self.spec}")
        if (arr.dtype.kind not in "biufV" or arr.dtype.kind == "V" and dtype_of_numpy(arr.dtype) is None) and \
                arr.dtype != self.spec.np_dtype:  # (kind V: ml_dtypes' types, not raw bytes or records)
            raise TileSpecError(f"cannot store an array of {arr.dtype} into {self.spec}: numbers expected")
        if self.spec.dtype is DType.HIF8 and arr.dtype != self.spec.np_dtype:  # hifloat8: numbers through its table
            from ..hifloat8 import from_float

            arr = from_float(arr).view(self.spec.np_dtype)
        with np.errstate(all="ignore"):
            converted = arr.astype(self.spec.np_dtype)
        if arr.dtype != converted.dtype and arr.dtype.kind in "biuf":
            _warn_if_narrowed(arr, converted, self.spec)
        write_region(self.storage, self.spec, arr.shape[0], arr.shape[1], converted)

    def tobytes(self) -> bytes:
        """The raw storage bytes, in physical order."""
        return self.storage.tobytes()

    def load_bytes(self, raw: bytes) -> None:
        """Overwrite the raw storage bytes (exactly `spec.nbytes` of them, from any contiguous bytes-like object)."""
        try:
            flat = memoryview(raw).cast("B")
        except (TypeError, ValueError):  # (text, a list, a strided array)
            raise TileSpecError(f"{self.spec}: load_bytes takes bytes or a contiguous buffer (got "
                                f"{type(raw).__name__})") from None
        if flat.nbytes != self.spec.nbytes:
            raise TileSpecError(f"{self.spec} holds {self.spec.nbytes} bytes (got {flat.nbytes})")
        self.storage.view(np.uint8)[:] = np.frombuffer(flat, dtype=np.uint8)

    def __repr__(self) -> str:
        where = f" @ {self.binding}" if self.binding is not None else ""
        return f"{self.spec} valid=({self._valid_row}, {self._valid_col}){where}"


def _warn_if_narrowed(arr: np.ndarray, converted: np.ndarray, spec: TileSpec) -> None:
    """NarrowingWarning when a value did not survive the conversion into the tile's type: an integer type that
    does not hold it, or a float type it overflows (rounding to the nearest float is the ordinary meaning)."""
    import warnings

    from ..errors import NarrowingWarning

    with np.errstate(all="ignore"):
        if converted.dtype.kind in "iu":
            back = converted.astype(np.float64) if arr.dtype.kind == "f" else converted.astype(arr.dtype)
            changed = back != arr
        elif arr.dtype.kind in "biu" or converted.dtype.kind != "f" and converted.dtype.kind != "V":
            return
        else:
            changed = np.isinf(converted.astype(np.float64)) & np.isfinite(arr)
    if changed.any():
        at = tuple(int(i) for i in np.argwhere(changed)[0])
        warnings.warn(NarrowingWarning(
            f"set_logical: {int(changed.sum())} value(s) changed when stored as {spec.dtype.cname}, as a C++ "
            f"conversion would change them (e.g. {_plain(arr[at])} at {list(at)} became {_plain(converted[at])})"),
            stacklevel=3)


def _plain(value: Any) -> str:
    return repr(float(value)) if np.asarray(value).dtype.kind in "fV" else repr(int(value))


_STAGGER = itertools.cycle(range(0, 4096, 256))
_ALIGN_FROM = 2048
_STAGGER_FROM = 16 * 1024


def private_storage(nbytes: int, dtype: np.dtype) -> np.ndarray:
    """Zero-filled storage for an unbound tile.

    Buffers from 2 KiB start on a 64-byte boundary (a cache line: the allocator gives 16-byte alignment, and
    NumPy's SIMD loops run up to twice as slow on operands that straddle lines: np.add on 64x64 float32 1.0 ->
    0.64 us, on 256x256 9.7 -> 5.2 us); large ones, from 16 KiB, also at rotating offsets modulo 4 KiB: NumPy
    page-aligns big allocations, and copies between arrays at equal offsets modulo 4 KiB run several times
    slower on x86 (4K aliasing)."""
    if nbytes < _ALIGN_FROM:
        return np.zeros(nbytes // dtype.itemsize, dtype=dtype)
    if nbytes < _STAGGER_FROM:
        shift, room = 0, 64
    else:
        shift, room = next(_STAGGER), 4096 + 64
    raw = np.zeros(nbytes + room, dtype=np.uint8)
    start = -raw.ctypes.data % 64 + shift
    return raw[start:start + nbytes].view(dtype)


def default_valid(spec: TileSpec) -> tuple[int, int]:
    """The valid sizes `Tile(spec)` gets (raises its TileSpecError when there are none)."""
    return _runtime_valid(spec, ())


def _runtime_valid(spec: TileSpec, valid: tuple[int, ...]) -> tuple[int, int]:
    """Resolve the constructor arguments the way the C++ constructors do."""
    dyn_r, dyn_c = spec.dynamic_row, spec.dynamic_col
    expected = int(dyn_r) + int(dyn_c)
    if len(valid) not in (0, expected):
        what = {0: "no dynamic valid size", 1: "one dynamic valid size", 2: "two dynamic valid sizes"}[expected]
        raise TileSpecError(f"{spec} has {what}; its constructor takes {expected} or 0 arguments (got {len(valid)})")
    values = list(valid)
    vr = values.pop(0) if dyn_r and values else (spec.rows if dyn_r else spec.valid_row)
    vc = values.pop(0) if dyn_c and values else (spec.cols if dyn_c else spec.valid_col)
    for which, value, limit in (("row", vr, spec.rows), ("col", vc, spec.cols)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= limit:
            raise TileSpecError(f"valid {which} count of {spec} must be an integer in [0, {limit}] (got {shown(value)})")
    return int(vr), int(vc)


class WindowTile(Tile):
    """A window of a wider tile that does not span its rows (PTOAS `pto.subview`): `storage` is the 2-D strided
    view of the window's elements in the parent's bytes, not a flat run."""

    __slots__ = ()


def window(parent: Tile, spec: TileSpec, row: int, col: int, valid: tuple[int, int] | None = None) -> Tile:
    """A tile over parent's logical sub-rectangle [row, row + spec.rows) x [col, col + spec.cols), sharing its
    bytes (PTOAS `pto.subview`). Plain (ND/DN) layouts only; `valid` defaults to spec's static valid shape, or
    the whole window where spec's is dynamic."""
    from .enums import SLayout

    if parent.spec.slayout is not SLayout.NoneBox or spec.slayout is not SLayout.NoneBox:
        raise TileSpecError(f"subview of {parent.spec}: windows of boxed layouts are not modelled")
    if spec.dtype is not parent.spec.dtype or spec.blayout is not parent.spec.blayout:
        raise TileSpecError(f"subview {spec} of {parent.spec}: element type and layout must be the parent's")
    row, col = int(row), int(col)
    if row < 0 or col < 0 or row + spec.rows > parent.spec.rows or col + spec.cols > parent.spec.cols:
        raise TileSpecError(f"subview {spec.rows}x{spec.cols} at ({row}, {col}) leaves {parent.spec}")
    # A window of whole rows (row-major) or whole columns (col-major) is contiguous: its storage is exact, and it
    # is a Tile like any other. Any other window's storage is its 2-D strided view: it is a WindowTile, which the
    # compiled calls (written for 1-D storages, `type(t) is Tile`) leave to the general paths.
    whole = spec.cols == parent.spec.cols if spec.is_row_major else spec.rows == parent.spec.rows
    t = Tile.__new__(Tile if whole else WindowTile)
    t.spec = spec
    vr = spec.valid_row if spec.valid_row != DYNAMIC else spec.rows
    vc = spec.valid_col if spec.valid_col != DYNAMIC else spec.cols
    if valid is not None:
        vr, vc = (int(v) for v in valid)
    if not (0 <= vr <= spec.rows and 0 <= vc <= spec.cols):
        raise TileSpecError(f"subview valid shape ({vr}, {vc}) exceeds {spec.rows}x{spec.cols}")
    t._valid_row, t._valid_col = vr, vc
    whole_view = parent.view
    assert whole_view is not None  # a NoneBox parent (checked above) has its plain view
    t.view = whole_view[row:row + spec.rows, col:col + spec.cols]
    start = row * parent.spec.cols + col if spec.is_row_major else col * parent.spec.rows + row
    t.storage = parent.storage[start:start + spec.numel] if whole else t.view
    t.binding = parent.binding
    return t
