"""TCI: a contiguous integer sequence (include/pto/*/TCI.hpp).

    pto.tci ins(%start : i32) outs(%dst : !pto.tile_buf<...>) {descending = false}

    for k < dst.GetValidCol():  dst[0, k] = start + k   (descending: start - k), wrapping modulo 2**bits

dst must be a single-row tile (every backend checks Rows == 1; the seed's Cols != 1 is enforced too); the valid
row count is not consulted. The tmp overload: a2a3 validates tmp (4-byte dtype, >= 768 bytes for 32-bit and
>= 1792 bytes for 16-bit destinations); a5 and cpu accept and ignore it.
- a2a3 erratum `tci_tmp_descending_negates`: with tmp and descending, the result is -(start + k).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .._quiet import quiet
from ..targets import Config
from ..tile.layout import store, write_region
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ..dtypes import names
from ..targets.rules import VEC_ONLY
from ._check import Check, commit_variant
from ._scalar import to_element

INSTR = "TCI"


def tci(config: Config, dst: Any, start: Any, descending: Any, tmp: Any = None) -> None:
    check = Check(INSTR, config.name)
    dst = check.tile("dst", dst)
    if tmp is not None:
        tmp = check.tile("tmp", tmp)
    if type(descending) is not bool:
        descending = _descending(check, descending)
    _static(dst.spec, tmp.spec if tmp is not None else None, config)
    value = _start(check, start, dst)
    count = dst.valid_col
    contract = _sequence(value, count, descending, dst.spec)
    if tmp is not None and descending and "tci_tmp_descending_negates" in config.profile.errata:
        target = dst.storage.copy()
        write_region(target, dst.spec, 1, count, _negated_ascending(value, count, dst.spec))
        result = dst.storage.copy()
        write_region(result, dst.spec, 1, count, contract)
        commit_variant(config, INSTR, "tci_tmp_descending_negates", dst.storage, result, target)
        return
    store(dst, 1, count, contract)


def _descending(check: Check, descending: Any) -> bool:
    if isinstance(descending, (bool, np.bool_)):
        return bool(descending)
    if isinstance(descending, (int, np.integer)) and descending in (0, 1):
        return bool(descending)
    check.fail("descending", f"must be 0/1 or a bool (got {descending!r})")


def _start(check: Check, start: Any, dst: Tile) -> np.generic:
    dtype = dst.spec.dtype
    if isinstance(start, np.generic) and start.dtype != dtype.np:
        check.fail("start", f"type must be exactly the dst dtype {dtype.cname} (got {start.dtype})")
    return to_element(start, dtype, check, "start")


@lru_cache(maxsize=4096)
def _static(dst: TileSpec, tmp: TileSpec | None, config: Config) -> None:
    rules = config.profile.tci
    check = Check(INSTR, config.name)
    check.dtype("dst", dst.dtype, rules.dtypes)
    check.fits("dst", dst)
    if dst.rows != 1:
        check.fail("dst", f"must be a single-row tile: Rows must be 1 (got {dst.rows})")
    if dst.cols == 1:
        check.fail("dst", "Cols must not be 1")
    if tmp is None or rules.tmp == "ignored":
        return
    check.dtype("tmp", tmp.dtype, rules.tmp_dtypes)
    # The backend reads tmp as a plain float buffer in UB: a Vec, row-major, unboxed tile (PTOAS requires the same).
    check.loc("tmp", tmp.loc, VEC_ONLY)
    if tmp.layout_name != "ND" or tmp.fractal_size != 512:
        check.fail("tmp", f"must be a row-major, unboxed tile with fractal 512 (got {tmp.layout_name}, fractal "
                          f"{tmp.fractal_size}): the backend reads it as a plain buffer")
    if rules.tmp_compiles is not None:
        dst_ok, tmp_ok = rules.tmp_compiles
        if dst.dtype not in dst_ok or tmp.dtype not in tmp_ok:
            check.fail("tmp", f"overload with a {dst.dtype.cname} dst and a {tmp.dtype.cname} tmp does not compile "
                              f"on the {config.name} backend (it compiles for dst {names(dst_ok)} with a "
                              f"{names(tmp_ok)} tmp)")
    need = rules.tmp_min_bytes[dst.dtype.itemsize]
    if tmp.nbytes < need:
        check.fail("tmp", f"must hold at least {need} bytes for a {dst.dtype.bits}-bit dst (got {tmp.nbytes})")


def _sequence(start: np.generic, count: int, descending: bool, spec: TileSpec) -> np.ndarray:
    """start +/- k in the element type: integers wrap, floats round once from the exact value."""
    if not spec.dtype.is_float:
        # Integer arithmetic in the element type wraps exactly like the hardware's.
        ramp = _ramp(count, spec.np_dtype)
        return np.subtract(start, ramp) if descending else np.add(ramp, start)
    k = np.arange(count, dtype=np.float64)
    exact = float(start) + (-k if descending else k)
    with quiet():
        return exact.astype(spec.np_dtype)


@lru_cache(maxsize=256)
def _ramp(count: int, dtype: np.dtype) -> np.ndarray:
    """0, 1, ..., count-1 wrapped into `dtype`, read-only and cached."""
    ramp = np.arange(count, dtype=np.int64).astype(dtype)
    ramp.setflags(write=False)
    return ramp


def _negated_ascending(start: np.generic, count: int, spec: TileSpec) -> np.ndarray:
    return _wrap(-(int(start) + np.arange(count, dtype=np.int64)), spec)


def _wrap(values: np.ndarray, spec: TileSpec) -> np.ndarray:
    """int64 -> the element type, modulo 2**bits (NumPy's integer casts truncate like C)."""
    return values.astype(spec.np_dtype)
