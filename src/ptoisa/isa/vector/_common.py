"""Pieces the vector families share: valid-shape rules, region reads and writes, C++ arithmetic in NumPy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..._quiet import quiet

from ...dtypes import STANDARD_DTYPES, DType
from ...errors import UndefinedBehaviourError
from ...tile.layout import region, store
from ...tile.tile import Tile
from .._check import Check
from ..record import Plan, Tiles

FLOATS: tuple[DType, ...] = (DType.F16, DType.BF16, DType.F32)
INTS: tuple[DType, ...] = (DType.I8, DType.U8, DType.I16, DType.U16, DType.I32, DType.U32)
ALL9: tuple[DType, ...] = STANDARD_DTYPES


def equal_valid(*roles: str) -> Callable[[Check, Plan, Tiles], None]:
    """Run-time rule: every named tile's valid shape equals dst's (the reference asserts it)."""

    def rule(check: Check, plan: Plan, tiles: Tiles) -> None:
        shape = tiles["dst"].valid_shape
        for role in roles:
            if role in tiles and tiles[role].valid_shape != shape:
                check.fail(role, f"valid shape {tiles[role].valid_shape} must equal dst's valid shape {shape}")

    return rule


def valid_of(tile: Tile, shape: tuple[int, int] | None = None) -> np.ndarray:
    vr, vc = shape if shape is not None else tile.valid_shape
    return region(tile, vr, vc)


def write(tile: Tile, values: np.ndarray) -> None:
    vr, vc = values.shape
    store(tile, vr, vc, values)


def undefined(check: Check, config: Any, role: str, rule: str) -> None:
    """Refuse undefined behaviour (principle 4); under emulation the caller decides what the target does."""
    if config.undefined != "emulate":
        raise UndefinedBehaviourError(
            check.instr, check.target, role,
            f"{rule}; the result is undefined on this target (use undefined='emulate' to reproduce the target)")


def wide(values: np.ndarray) -> np.ndarray:
    """Values as float64 (floats) or int64 (integers): exact for every element type ptoisa models."""
    return values.astype(np.float64 if values.dtype.kind in "fV" else np.int64)


def narrow_int(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers wrapped modulo 2**bits into `dtype`, as a C++ assignment from int does."""
    return values.astype(np.int64).astype(dtype)


def via_float(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """`fn` computed in double and rounded to float, then to x's type: what `static_cast<T>(std::f((float)x))`
    gives for a correctly rounded `f`. Double rounding through float is exact for the functions used here
    (float carries more than twice half's and bfloat16's precision)."""
    with quiet():
        out = fn(x.astype(np.float64)).astype(np.float32)
    return out.astype(x.dtype)


def cpp_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`std::max(a, b)`: b when a < b, else a (a NaN or an equal pair gives a)."""
    return np.where(a < b, b, a)


def cpp_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`std::min(a, b)`: b when b < a, else a."""
    return np.where(b < a, b, a)


def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ integer division (truncating towards zero) for nonzero b, in a's type (wrapping INT_MIN / -1)."""
    wa, wb = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(wa) // np.abs(wb)
    return narrow_int(np.where((wa < 0) != (wb < 0), -q, q), a.dtype)


def trunc_rem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ `a % b` for nonzero b: the sign of a."""
    wa, wb = a.astype(np.int64), b.astype(np.int64)
    r = np.abs(wa) % np.abs(wb)
    return narrow_int(np.where(wa < 0, -r, r), a.dtype)


def tables(**targets: Any) -> Mapping[str, Any]:
    return targets


def from_double(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 values rounded once (to nearest, ties to even) into `dtype`: `static_cast<T>(double)`.

    NumPy converts double to float and to half with one rounding; ml_dtypes converts double to bfloat16
    through float (two roundings), so bfloat16 goes through float rounded to odd, which makes the second
    rounding exact."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return x.astype(dtype)
    if dtype.itemsize != 2 or dtype.kind == "f":
        return x.astype(dtype)
    with quiet():
        f = x.astype(np.float32)
        back = f.astype(np.float64)
        inexact = (back != x) & np.isfinite(x)
        towards_zero = np.where(np.abs(back) > np.abs(x), np.nextafter(f, np.float32(0)), f)
        bits = towards_zero.view(np.uint32) | np.uint32(1)
        odd = np.where(inexact, bits.view(np.float32), f)
    return odd.astype(dtype)
