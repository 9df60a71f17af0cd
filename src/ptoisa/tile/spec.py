"""TileSpec: the static description of a tile, mirroring the reference's `Tile<...>` template.

    Tile<TileType, DType, Rows, Cols, BLayout = RowMajor, ValidRow = Rows, ValidCol = Cols,
         SLayout = NoneBox, SFractalSize = 512, PadVal = Null, Compact = Null>

A `TileSpec` is immutable, interned and callable. Interned: building a spec equal to one that exists returns
that one, so two tiles of one type share one spec object, and the specs in the keys of the compiled-call caches
hash and compare by identity (in C, not in a Python `__hash__`). Callable: calling it creates a tile instance, with
runtime valid sizes for the dynamic dimensions, exactly as the C++ constructors take them:

    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    dst = DstT(16, 2)

Construction applies the reference's compile-time checks (pto_tile.hpp): positive sizes, valid <= static size,
fractal sizes, box divisibility and the 32-byte alignment rule.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any
from weakref import WeakValueDictionary

import numpy as np

from .._shown import shown
from ..dtypes import DType, as_dtype
from ..errors import TileSpecError
from .enums import (
    BLOCK_BYTES,
    DYNAMIC,
    FRACTAL_C_SIZE,
    FRACTAL_MX_SIZE,
    FRACTAL_SIZES,
    BLayout,
    CompactMode,
    PadValue,
    SLayout,
    TileType,
)

if TYPE_CHECKING:
    from .tile import Tile

_LAYOUT_NAMES = {
    (BLayout.RowMajor, SLayout.NoneBox): "ND",
    (BLayout.ColMajor, SLayout.NoneBox): "DN",
    (BLayout.ColMajor, SLayout.RowMajor): "NZ",
    (BLayout.RowMajor, SLayout.ColMajor): "ZN",
    (BLayout.RowMajor, SLayout.RowMajor): "ZZ",
    (BLayout.ColMajor, SLayout.ColMajor): "NN",
}


@dataclass(frozen=True, eq=True)
class TileSpec:
    """Static tile description. Valid sizes are ints; -1 (`DYNAMIC`) marks a runtime dimension.

    Attributes:
        loc: TileType (Vec, Mat, Left, Right, Acc, Bias, Scaling, ...).
        dtype: element type.
        rows, cols: static storage shape.
        blayout: outer layout (default RowMajor).
        valid_row, valid_col: static valid sizes, or -1 for dynamic (default: rows / cols).
        slayout: fractal box layout (default NoneBox).
        fractal_size: box size in bytes, 512 (default), 1024 or 32.
        pad: pad value (unused by the five instructions).
        compact: compact mode (unused by the five instructions).
    """

    loc: TileType
    dtype: DType
    rows: int
    cols: int
    blayout: BLayout = BLayout.RowMajor
    # None (the default) means rows / cols: __post_init__ replaces it before anyone reads the field, so the
    # attribute is always an int; the dataclass cannot declare a wider __init__ parameter than its attribute.
    valid_row: int = None  # type: ignore[assignment]
    valid_col: int = None  # type: ignore[assignment]
    slayout: SLayout = SLayout.NoneBox
    fractal_size: int = 512
    pad: PadValue = PadValue.Null
    compact: CompactMode = CompactMode.Null
    # Derived, filled in __post_init__.
    inner_rows: int = field(init=False, compare=False, repr=False)
    inner_cols: int = field(init=False, compare=False, repr=False)
    # Derived values read on every instruction call, so stored rather than computed (see _derive).
    numel: int = field(init=False, compare=False, repr=False)
    nbytes: int = field(init=False, compare=False, repr=False)
    np_dtype: np.dtype = field(init=False, compare=False, repr=False)
    is_row_major: bool = field(init=False, compare=False, repr=False)
    is_boxed: bool = field(init=False, compare=False, repr=False)
    dynamic_row: bool = field(init=False, compare=False, repr=False)
    dynamic_col: bool = field(init=False, compare=False, repr=False)
    layout_name: str = field(init=False, compare=False, repr=False)  # ND, DN, NZ, ZN, ZZ or NN

    def __new__(cls, *args: Any, **kwargs: Any) -> TileSpec:
        """The one live TileSpec with these fields: a new one is built (coerced, derived, checked by the
        dataclass `__init__` and `__post_init__`), and returned unless an equal one is alive, which is returned
        instead. So equal specs are one object, and the identity hash below agrees with `==`."""
        spec = object.__new__(cls)
        _FIELD_INIT(spec, *args, **kwargs)
        key = (cls, spec.loc, spec.dtype, spec.rows, spec.cols, spec.blayout, spec.valid_row, spec.valid_col,
               spec.slayout, spec.fractal_size, spec.pad, spec.compact)
        shared = _INTERNED.get(key)
        if shared is None:
            _INTERNED[key] = shared = spec
        return shared

    __hash__ = object.__hash__  # interned: equal specs are the same object (see __new__)

    def __copy__(self) -> TileSpec:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> TileSpec:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return TileSpec, (self.loc, self.dtype, self.rows, self.cols, self.blayout, self.valid_row, self.valid_col,
                          self.slayout, self.fractal_size, self.pad, self.compact)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "loc", _coerce_enum(TileType, self.loc, "location"))
        set_(self, "dtype", as_dtype(self.dtype))
        set_(self, "blayout", _coerce_enum(BLayout, self.blayout, "BLayout"))
        set_(self, "slayout", _coerce_enum(SLayout, self.slayout, "SLayout"))
        set_(self, "pad", _coerce_enum(PadValue, self.pad, "PadValue"))
        set_(self, "compact", _coerce_enum(CompactMode, self.compact, "CompactMode"))
        for name in ("rows", "cols", "fractal_size"):
            set_(self, name, _require_int(getattr(self, name), name))
        set_(self, "valid_row", self.rows if self.valid_row is None else _require_int(self.valid_row, "valid_row"))
        set_(self, "valid_col", self.cols if self.valid_col is None else _require_int(self.valid_col, "valid_col"))
        inner_rows, inner_cols = _inner_box(self.fractal_size, self.slayout, self.dtype.itemsize)
        set_(self, "inner_rows", inner_rows)
        set_(self, "inner_cols", inner_cols)
        self._derive()
        self._validate()

    def _derive(self) -> None:
        set_ = object.__setattr__
        set_(self, "numel", self.rows * self.cols)
        set_(self, "nbytes", self.rows * self.cols * self.dtype.itemsize)
        set_(self, "np_dtype", self.dtype.np)
        set_(self, "is_row_major", self.blayout is BLayout.RowMajor)
        set_(self, "is_boxed", self.slayout is not SLayout.NoneBox)
        set_(self, "dynamic_row", self.valid_row == DYNAMIC)
        set_(self, "dynamic_col", self.valid_col == DYNAMIC)
        set_(self, "layout_name", _LAYOUT_NAMES[(self.blayout, self.slayout)])

    # --- the reference's static_asserts (pto_tile.hpp), with its rule numbers from reference-facts 1.3 -------
    def _validate(self) -> None:
        if self.rows <= 0 or self.cols <= 0:
            self._fail(f"Rows and Cols must be positive (got {shown(self.rows)}x{shown(self.cols)})")
        if self.nbytes > MAX_TILE_BYTES:
            self._fail(f"its storage would take {shown(self.nbytes)} bytes; ptoisa refuses tiles over "
                       f"{MAX_TILE_BYTES >> 20} MiB (no on-chip buffer holds more than a few MiB)")
        for name, valid, static in (("ValidRow", self.valid_row, self.rows), ("ValidCol", self.valid_col, self.cols)):
            if valid != DYNAMIC and not 0 <= valid <= static:
                self._fail(f"{name} must be -1 (dynamic) or within [0, {static}] (got {shown(valid)})")
        if self.fractal_size not in FRACTAL_SIZES:
            self._fail(f"SFractalSize must be one of 512, 1024, 32 (got {shown(self.fractal_size)})")
        if self.slayout is SLayout.NoneBox:
            self._check_alignment()
        else:
            self._check_boxes()

    def _check_alignment(self) -> None:
        if self.blayout is BLayout.RowMajor and self.cols * self.dtype.itemsize % BLOCK_BYTES:
            self._fail(
                f"a row-major tile needs Cols * sizeof(dtype) to be a multiple of {BLOCK_BYTES} bytes "
                f"(got {self.cols} * {self.dtype.itemsize} = {self.cols * self.dtype.itemsize})"
            )
        if self.blayout is BLayout.ColMajor and self.rows * self.dtype.itemsize % BLOCK_BYTES:
            self._fail(
                f"a col-major tile needs Rows * sizeof(dtype) to be a multiple of {BLOCK_BYTES} bytes "
                f"(got {self.rows} * {self.dtype.itemsize} = {self.rows * self.dtype.itemsize})"
            )

    def _check_boxes(self) -> None:
        rows_exempt = self.loc is TileType.Vec or self.fractal_size == FRACTAL_MX_SIZE or self.rows == 1
        if not rows_exempt and self.rows % self.inner_rows:
            self._fail(f"Rows must be a multiple of the fractal box height {self.inner_rows} (got {self.rows})")
        if self.cols % self.inner_cols:
            self._fail(f"Cols must be a multiple of the fractal box width {self.inner_cols} (got {self.cols})")


    def _fail(self, rule: str) -> None:
        raise TileSpecError(f"illegal tile {self.describe()}: {rule}")

    # --- derived properties ---------------------------------------------------------------------------------
    @property
    def is_conv(self) -> bool:
        return False

    def describe(self) -> str:
        """A compact C++-like rendering: Tile<Vec, float, 16, 16, RowMajor, -1, -1>."""
        parts = [self.loc.name, self.dtype.cname, shown(self.rows), shown(self.cols), self.blayout.name,
                 shown(self.valid_row), shown(self.valid_col)]  # (shown: a refused spec may hold any size)
        if self.slayout is not SLayout.NoneBox or self.fractal_size != 512:
            parts += [self.slayout.name, shown(self.fractal_size)]
        return "Tile<" + ", ".join(parts) + ">"

    def __repr__(self) -> str:
        return self.describe()

    def __call__(self, *valid: int, data: Any = None) -> Tile:
        """Create a tile of this type (C++: `DstT dst(16, 2);`)."""
        from .tile import Tile

        return Tile(self, *valid, data=data)


def _inner_box(fractal_size: int, slayout: SLayout, itemsize: int) -> tuple[int, int]:
    """InnerRows x InnerCols of the fractal box (reference-facts 1.2)."""
    if fractal_size == FRACTAL_C_SIZE:
        return 16, 16
    if fractal_size == FRACTAL_MX_SIZE:
        return (16, 2) if slayout is SLayout.RowMajor else (2, 16)
    if slayout is SLayout.RowMajor:
        return 16, max(1, BLOCK_BYTES // itemsize)
    if slayout is SLayout.ColMajor:
        return max(1, BLOCK_BYTES // itemsize), 16
    return 1, 1


def _coerce_enum(enum_type: type[Enum], value: Any, what: str) -> Any:
    """A member of `enum_type`, by itself, its name or its integer value. A member of another enum, a bool or a
    float is refused, even where its value matches one (CmpMode.EQ, False and 0.0 are not TileType.Vec)."""
    if isinstance(value, enum_type):
        return value
    try:
        if isinstance(value, str):
            return enum_type[value]
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, Enum)):
            return enum_type(int(value))
    except (KeyError, ValueError):
        pass
    names = ", ".join(m.name for m in enum_type)
    raise TileSpecError(f"unknown {what} {shown(value)} (known: {names})") from None


MAX_TILE_BYTES = 256 << 20
"""The largest tile storage ptoisa will allocate: far above any on-chip buffer (UB 192-512 KiB, L1 512 KiB-1 MiB),
low enough that a typo in a size is refused instead of exhausting memory."""


def _require_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TileSpecError(f"tile {name} must be an integer (got {shown(value)})")
    return int(value)


_INTERNED: WeakValueDictionary[tuple[Any, ...], TileSpec] = WeakValueDictionary()
"""The live TileSpecs by their fields (see `TileSpec.__new__`); a spec no tile, cache or caller holds goes."""
_FIELD_INIT = TileSpec.__init__


def _initialised(self: TileSpec, *args: Any, **kwargs: Any) -> None:
    """`__init__` after `__new__`: nothing left to do (`__new__` ran the dataclass's own `__init__`)."""


TileSpec.__init__ = _initialised  # type: ignore[method-assign]
TileSpec.__signature__ = inspect.signature(TileSpec.__new__).replace(  # type: ignore[attr-defined]
    parameters=list(inspect.signature(_FIELD_INIT).parameters.values())[1:])


def make_spec(args: tuple[Any, ...]) -> TileSpec:
    """Build a TileSpec from positional template arguments in the C++ order (interned)."""
    if len(args) < 4:
        raise TileSpecError("Tile[...] needs at least TileType, DType, Rows, Cols")
    if len(args) > 11:
        raise TileSpecError(f"Tile[...] takes at most 11 template arguments (got {len(args)})")
    return TileSpec(*args)
