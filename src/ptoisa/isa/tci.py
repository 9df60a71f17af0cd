"""TCI: a contiguous integer sequence (include/pto/*/TCI.hpp).

    pto.tci ins(%start : i32) outs(%dst : !pto.tile_buf<...>) {descending = false}

    for k < dst.GetValidCol():  dst[0, k] = start + k   (descending: start - k), wrapping modulo 2**bits

dst must be a single-row tile (every backend checks Rows == 1; the seed's Cols != 1 is enforced too); the valid
row count is not consulted. The tmp overload: a2a3 validates tmp (4-byte dtype, >= 768 bytes for 32-bit and
>= 1792 bytes for 16-bit destinations); a5 and cpu accept and ignore it.
- a2a3 erratum `tci_tmp_descending_negates`: with tmp and descending, the result is -(start + k).
- a2a3 erratum `tci_tmp_overrun` (D10): a 32-bit dst with 64 or more valid columns runs the backend's repeat
  path, whose vadd (repeat 8, normal mask mode) writes tmp bytes [512, 2560): past the 768 bytes the seed asks
  for. Its scratch is worked out here instruction by instruction (each repeat reads, then writes) and written
  to tmp; the bytes past tmp's storage go to the on-chip buffer when tmp was placed with TASSIGN (neighbours see
  them) and are announced with their range either way (DECISIONS 21). Other paths' scratch is not modelled
  (tmp is left as it was).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .._quiet import quiet
from ..errors import PtoError
from ..targets import Config
from ..tile.layout import store, write_region
from ..tile.spec import TileSpec
from .._shown import shown
from ..tile.tile import Tile
from ..dtypes import names
from ..targets.rules import VEC_ONLY
from ..memory import spill, window
from ._check import Check, announce_erratum, commit_variant
from ._scalar import element_of, to_element, weak_range

INSTR = "TCI"


def tci(config: Config, dst: Any, start: Any, descending: Any, tmp: Any = None) -> None:
    if tmp is None and type(dst) is Tile and type(descending) is bool:
        spec = dst.spec
        # valid shape set at run time: compiled per shape
        key: tuple[Any, ...] = (config, spec, descending, dst._valid_col) \
            if spec.dynamic_row or spec.dynamic_col else (config, spec, descending)
        run = _COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile(key, dst.valid_col)
        if run is not None:
            run(dst, start)
            return
    _general(config, dst, start, descending, tmp)


_UNSET = object()
_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile(key: tuple[Any, ...], count: int) -> Any:
    """An integer sequence without tmp, compiled once per tile type, direction and target (the checks run here):
    one NumPy add (or subtract) of the cached ramp 0..count-1 and the start, straight into dst's row. None
    (remembered) for float types and boxed layouts; a refusal is left to the general path and not remembered.
    Per call: the start's test (exactly dst's NumPy type, or a Python int in range; else `_start`). The start
    goes to the ufunc as a 0-d array of dst's type holding it (NumPy converts a scalar operand on every call,
    about 0.2 us of a 16-element call; the 0-d arrays come from a free list, so two threads never share one):
    the same element operation, the same wrap."""
    config, spec, descending = key[:3]
    try:
        _static(spec, None, config)
    except PtoError:
        return None
    run = None
    if not spec.dtype.is_float and not spec.is_boxed and len(_COMPILED) < 4096:
        check, np_type = Check(INSTR, config.name), spec.np_dtype.type
        _, low, high = weak_range(spec.dtype)
        ramp = _ramp(count, spec.np_dtype)
        whole = count == spec.cols and spec.rows == 1 and spec.is_row_major  # dst's storage is its one row

        boxes: list[np.ndarray] = []
        add, subtract, zeros, np_dtype = np.add, np.subtract, np.zeros, spec.np_dtype

        def run(dst: Tile, start: Any) -> None:
            kind = type(start)
            value = start if kind is np_type or kind is int and low <= start <= high else _start(check, start, dst)
            out = dst.storage if whole else dst.view[0, :count]
            try:  # (not `if boxes`: another thread may take the last one between the test and the pop)
                box = boxes.pop()
            except IndexError:
                box = zeros((), np_dtype)
            box[()] = value
            if descending:
                subtract(box, ramp, out)
            else:
                add(ramp, box, out)
            boxes.append(box)
    _COMPILED[key] = run
    return run


def _general(config: Config, dst: Any, start: Any, descending: Any, tmp: Any) -> None:
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
    if tmp is not None and count >= 64 and dst.spec.dtype.itemsize == 4 and config.erratum("tci_tmp_overrun"):
        _overrun(config, tmp)
    if tmp is not None and descending and "tci_tmp_descending_negates" in config.profile.errata:
        target = dst.storage.copy()
        write_region(target, dst.spec, 1, count, _negated_ascending(value, count, dst.spec))
        result = dst.storage.copy()
        write_region(result, dst.spec, 1, count, contract)
        commit_variant(config, INSTR, "tci_tmp_descending_negates", dst.storage, result, target)
        return
    store(dst, 1, count, contract)


SCRATCH_END = 2560
"""The b32 repeat path's scratch ends here: tmp + 128 floats, 8 repeats of 256 bytes (a2a3/TCI.hpp:80)."""


def repeat_path_scratch(raw: np.ndarray) -> np.ndarray:
    """TCI_b32_repeat's scratch work (a2a3/TCI.hpp:60-82) on `raw`, the 2560 bytes from tmp's first byte (tmp's
    bytes, then what follows it); returns the mask of the bytes it writes. tmp0 is float 0, tmp1 float 128."""
    f = raw.view(np.float32)
    written = np.zeros(raw.size, dtype=bool)
    f[0:64] = np.repeat(np.arange(8, dtype=np.float32) * np.float32(0.125), 8)  # vector_dup x 8, 8 lanes each
    f[128:136] = f[0:64].reshape(8, 8).sum(axis=1, dtype=np.float32)  # vcgadd: the sum of each 32-byte block
    f[0:8] = f[128:136] * np.float32(8.0)  # vmuls, 8 lanes
    f[0:64] = np.repeat(f[0:8].copy(), 8)  # vbrcb: block k of tmp0 = tmp0[k]
    with quiet():
        for r in range(8):  # vadd: dst tmp1 + 64r, src0 tmp1[0:8] in every block, src1 tmp0 + 64r
            f[128 + 64 * r:192 + 64 * r] = np.tile(f[128:136], 8) + f[64 * r:64 * r + 64]
        raw.view(np.int32)[128:192] = np.rint(f[128:192]).astype(np.int32)  # vconv_f322s32r, one repeat
    written[0:256] = True
    written[512:SCRATCH_END] = True
    return written


def _overrun(config: Config, tmp: Tile) -> None:
    raw = window(tmp, SCRATCH_END)
    written = repeat_path_scratch(raw)
    past = spill(tmp, raw, written)
    if past is not None:
        first, end = past
        where = (f"into the {tmp.binding.region} bytes at 0x{tmp.binding.offset + first:x}..0x"
                 f"{tmp.binding.offset + end:x}" if tmp.binding is not None else "dropped: tmp is not placed with "
                 "TASSIGN, so what lies past it is unknown")
        announce_erratum(config, INSTR, "tci_tmp_overrun",
                         f"this call wrote bytes [{first}, {end}) from tmp's start, past its {tmp.spec.nbytes}-byte "
                         f"storage ({where})")


def _descending(check: Check, descending: Any) -> bool:
    if isinstance(descending, (bool, np.bool_)):
        return bool(descending)
    if isinstance(descending, (int, np.integer)) and descending in (0, 1):
        return bool(descending)
    check.fail("descending", f"must be 0/1 or a bool (got {shown(descending)})")


def _start(check: Check, start: Any, dst: Tile) -> np.generic:
    dtype = dst.spec.dtype
    start = element_of(start)
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
    """start +/- k in the element type: integers wrap; for floats k is first converted to the element type (C++'s
    usual arithmetic conversions in the simulator's `start - j` / `start + j` with `int j`, cpu/TCI.hpp:23, 25:
    a half holds every integer only up to 2048, so k = 2049 becomes 2048), then start +/- k rounds once."""
    if not spec.dtype.is_float:
        # Integer arithmetic in the element type wraps exactly like the hardware's.
        ramp = _ramp(count, spec.np_dtype)
        return np.subtract(start, ramp) if descending else np.add(ramp, start)
    with quiet():
        k = np.arange(count, dtype=np.float64).astype(spec.np_dtype).astype(np.float64)
        # Two values of the type add exactly in float64 (or within its rounding, which float32's 24 bits survive:
        # 53 >= 2 * 24 + 2), so the one rounding to the element type is the C++ operation's.
        exact = float(start) - k if descending else float(start) + k
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
