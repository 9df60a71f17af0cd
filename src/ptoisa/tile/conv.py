"""Conv tiles (`ConvTile<Loc, DType, BufferSize, Layout, ConvTileShape<d0..dn>>`), used by TEXPANDS on Mat.

A conv tile is a flat buffer of `buffer_size` elements described by a 1- to 6-dimensional shape (each dim static
or -1 for dynamic). TEXPANDS fills the product of the shape. `buffer_size` counts elements, as the NPU TASSIGN
check reads it (the CPU memory model reads it as bytes: reference-facts 1.6).

    ConvT = ConvTile[TileType.Mat, half, 2 * 16 * 7 * 7 * 16, Layout.NC1HWC0, (2, 1, 7, 7, 16)]
    dst = ConvT()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np

from ..dtypes import DType, as_dtype
from ..errors import TileSpecError
from .enums import DYNAMIC, Layout, TileType
from .spec import _coerce_enum, _require_int
from .tile import private_storage

CONV_LAYOUTS = (Layout.NC1HWC0, Layout.NDC1HWC0, Layout.FRACTAL_Z, Layout.FRACTAL_Z_3D)


@dataclass(frozen=True)
class ConvTileSpec:
    loc: TileType
    dtype: DType
    buffer_size: int
    layout: Layout
    shape: tuple[int, ...]
    _hash: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "loc", _coerce_enum(TileType, self.loc, "location"))
        set_(self, "dtype", as_dtype(self.dtype))
        set_(self, "layout", _coerce_enum(Layout, self.layout, "conv layout"))
        if not isinstance(self.shape, (tuple, list)):
            raise TileSpecError(f"a conv tile shape must be a tuple of dims (got {self.shape!r})")
        set_(self, "shape", tuple(_require_int(d, "dim") for d in self.shape))
        set_(self, "buffer_size", _require_int(self.buffer_size, "BufferSize"))
        if not 1 <= len(self.shape) <= 6:
            raise TileSpecError(f"illegal {self.describe()}: a conv tile has 1 to 6 dims (got {len(self.shape)})")
        if any(d != DYNAMIC and d <= 0 for d in self.shape):
            raise TileSpecError(f"illegal {self.describe()}: dims must be positive or -1 (got {self.shape})")
        if self.buffer_size <= 0:
            raise TileSpecError(f"illegal {self.describe()}: BufferSize must be positive")
        static = [d for d in self.shape if d != DYNAMIC]
        if len(static) == len(self.shape) and prod(static) > self.buffer_size:
            raise TileSpecError(
                f"illegal {self.describe()}: the shape holds {prod(static)} elements, more than BufferSize"
            )
        set_(self, "_hash", hash((self.loc, self.dtype, self.buffer_size, self.layout, self.shape)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def is_conv(self) -> bool:
        return True

    @property
    def numel(self) -> int:
        return self.buffer_size

    @property
    def nbytes(self) -> int:
        return self.buffer_size * self.dtype.itemsize

    @property
    def np_dtype(self) -> np.dtype:
        return self.dtype.np

    @property
    def dynamic_dims(self) -> int:
        return sum(1 for d in self.shape if d == DYNAMIC)

    def describe(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        return f"ConvTile<{self.loc.name}, {self.dtype.cname}, {self.buffer_size}, {self.layout.name}, <{dims}>>"

    def __repr__(self) -> str:
        return self.describe()

    def __call__(self, *dynamic_dims: int) -> ConvTile:
        return ConvTile(self, *dynamic_dims)


class ConvTile:
    """A conv tile instance: flat storage plus the runtime shape."""

    __slots__ = ("spec", "storage", "shape", "binding", "__weakref__")

    def attach(self, storage: np.ndarray) -> None:
        self.storage = storage

    def __class_getitem__(cls, args: Any) -> ConvTileSpec:
        if not isinstance(args, tuple) or len(args) != 5:
            raise TileSpecError("ConvTile[...] takes Loc, DType, BufferSize, Layout and a shape tuple")
        return ConvTileSpec(*args)

    def __init__(self, spec: ConvTileSpec, *dynamic_dims: int) -> None:
        if len(dynamic_dims) != spec.dynamic_dims:
            raise TileSpecError(f"{spec} has {spec.dynamic_dims} dynamic dims (got {len(dynamic_dims)} values)")
        values = iter(_require_int(v, "dynamic dim") for v in dynamic_dims)
        shape = tuple(next(values) if d == DYNAMIC else d for d in spec.shape)
        if any(d <= 0 for d in shape) or prod(shape) > spec.buffer_size:
            raise TileSpecError(f"runtime shape {shape} of {spec} must be positive and fit BufferSize")
        self.spec = spec
        self.shape = shape
        self.storage = private_storage(spec.nbytes, spec.np_dtype)
        self.binding: Any = None

    def GetShape(self, dim: int) -> int:
        return self.shape[dim] if 0 <= dim < len(self.shape) else -1

    def tobytes(self) -> bytes:
        return self.storage.tobytes()

    def __repr__(self) -> str:
        return f"{self.spec} shape={self.shape}"
