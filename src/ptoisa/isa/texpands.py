"""TEXPANDS: broadcast a scalar into a tile (include/pto/*/TExpandS.hpp).

    pto.texpands ins(%scalar : f32) outs(%dst : !pto.tile_buf<...>)

    for i < dst.GetValidRow(), j < dst.GetValidCol():  dst[i, j] = scalar        # Vec (and other locations)
    for every element of the Rows x Cols storage:       dst = scalar             # Mat tile
    for every element of the conv shape:                dst = scalar             # Mat conv tile

Target divergences (errata, on by default, announced when they change bytes):
- cpu `texpands_mat_valid_only`: a Mat tile is filled over its valid region only.
- a2a3 `texpands_static_valid_contiguous`: a Vec tile with a static valid width below Cols (static valid height
  below Rows for col-major) and several valid rows (columns) gets validRow*validCol elements filled contiguously.
- a2a3 `texpands_b8_pairs`: 8-bit tiles are filled in byte pairs; an odd count writes one extra byte.
- a2a3 `texpands_conv_5d`: a 6-dim conv tile is filled over its first five dims only.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import Any

import numpy as np

from ..errors import PtoError
from ..targets import Config
from ..tile.conv import ConvTile, ConvTileSpec
from ..tile.enums import BLOCK_BYTES, Layout, TileType
from ..tile.layout import store, write_region
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import Check, commit_variant
from ._scalar import quiet_element, to_element, weak_range

INSTR = "TEXPANDS"
_BOUNDED_DIMS = {Layout.NC1HWC0: 4, Layout.FRACTAL_Z: 4, Layout.NDC1HWC0: 5, Layout.FRACTAL_Z_3D: 5}
_MIN_DIMS = {Layout.NC1HWC0: 5, Layout.FRACTAL_Z: 4, Layout.NDC1HWC0: 6, Layout.FRACTAL_Z_3D: 5}
_CONV_LIMIT = 32767
# a5/TExpandS.hpp:118-140: the conv fill multiplies a fixed number of dims, whatever the tile has (audit D14).
_A5_FIXED_DIMS = {Layout.NC1HWC0: 5, Layout.FRACTAL_Z: 5, Layout.NDC1HWC0: 6, Layout.FRACTAL_Z_3D: 6}


def texpands(config: Config, dst: Any, scalar: Any) -> None:
    if type(dst) is Tile:
        spec = dst.spec
        # valid shape set at run time: compiled per shape
        key: tuple[Any, ...] = (config, spec, dst._valid_row, dst._valid_col) \
            if spec.dynamic_row or spec.dynamic_col else (config, spec)
        run = _COMPILED.get(key, _UNSET)
        if run is _UNSET:
            run = _compile(key, (dst._valid_row, dst._valid_col))
        if run is not None:
            run(dst, scalar)
            return
    _general(config, dst, scalar)


_UNSET = object()
_COMPILED: dict[tuple[Any, ...], Any] = {}


def _compile(key: tuple[Any, ...], valid: tuple[int, int]) -> Any:
    """A plain Vec fill compiled once per tile type and target (its checks run here), or None (remembered)
    where the general path decides per call. A refusal is left to the general path and not remembered."""
    config, spec = key[:2]
    kind = _plain_kind(config, spec, *valid)
    if kind is None:
        return None
    run = None
    if kind in ("vec", "storage") and len(_COMPILED) < 4096:
        run = _fill(config, spec, *valid, kind == "storage")
    _COMPILED[key] = run
    return run


def _plain_kind(config: Config, spec: TileSpec, vr: int, vc: int) -> str | None:
    """The kernel for a tile type and valid shape (`_static_kind`, None where it refuses), with "vec" where
    a2a3's fill is the contract's (neither erratum can act) and "storage" where a Mat tile's fill is its whole
    storage (`_fill_mat` fills it so)."""
    try:
        kind = _static_kind(spec, config)
    except PtoError:
        return None
    if kind == "a2a3_vec":  # the a2a3 fill is the contract's where neither erratum can act
        pairs = spec.dtype.itemsize == 1 and config.erratum("texpands_b8_pairs")
        contiguous = config.erratum("texpands_static_valid_contiguous") and _a2a3_contiguous(spec, vr, vc)
        if not pairs and (not contiguous or _rectangle_is_prefix(spec, vr, vc)):
            kind = "vec"
    if kind == "mat" and ((vr, vc) == (spec.rows, spec.cols) or not config.erratum("texpands_mat_valid_only")):
        kind = "storage"  # the whole Rows x Cols storage, as `_fill_mat` fills it here
    return kind


def _fill(config: Config, spec: TileSpec, vr: int, vc: int, everything: bool) -> Any:
    """The fill of one tile type and valid shape: its valid region (a Vec tile), or with `everything` its whole
    storage (a Mat tile). Decided here: which Python numbers NumPy may convert itself (`weak_range`) and whether
    the valid region is the whole tile (one `fill` of its view). Per call: the scalar's test (or `to_element`)
    and one NumPy call."""
    check, dtype = Check(INSTR, config.name), spec.dtype
    kind, low, high = weak_range(dtype)
    whole = (vr, vc) == (spec.rows, spec.cols)

    def run(dst: Tile, scalar: Any) -> None:
        value = scalar if type(scalar) is kind and low <= scalar <= high \
            else to_element(scalar, dtype, check, "scalar")
        view = dst.view
        if everything:
            dst.storage.fill(value)
        elif view is None:
            store(dst, vr, vc, value)
        elif whole:
            view.fill(value)
        else:
            view[:vr, :vc] = value

    return run


def _general(config: Config, dst: Any, scalar: Any) -> None:
    check = Check(INSTR, config.name)
    dst = check.tile_or_conv("dst", dst)
    kind = _static_kind(dst.spec, config)
    value = to_element(scalar, dst.spec.dtype, check, "scalar")
    if kind == "conv":
        _fill_conv(config, check, dst, value)
    elif kind == "mat":
        _fill_mat(config, dst, value)
    elif kind == "a2a3_vec":
        _fill_a2a3_vec(config, dst, value)
    elif kind == "boxed_vec":
        _fill_boxed_vec(config, dst, value)
    else:
        store(dst, dst.valid_row, dst.valid_col, value)


@lru_cache(maxsize=4096)
def _static_kind(spec: TileSpec | ConvTileSpec, config: Config) -> str:
    """Check what the type alone decides (once per spec and target) and pick the kernel."""
    rules = config.profile.texpands
    check = Check(INSTR, config.name)
    check.dtype("dst", spec.dtype, rules.dtypes)
    check.loc("dst", spec.loc, rules.locs)
    if isinstance(spec, ConvTileSpec):
        _check_conv_static(check, spec, config)
        return "conv"
    if spec.loc is TileType.Mat:
        _check_mat_blocks(check, spec, rules.mat_blocks)
        if "texpands_mat_valid_only" in config.profile.errata:
            check.fits("dst", spec)  # the valid-region fill goes through the layout
        return "mat"
    check.fits("dst", spec)
    if spec.is_boxed and "texpands_boxed_plain" in config.profile.errata:
        return "boxed_vec"
    if not spec.is_boxed and "texpands_static_valid_contiguous" in config.profile.errata:
        return "a2a3_vec"
    return "vec"


def _fill_boxed_vec(config: Config, dst: Tile, value: np.generic) -> None:
    """NPU erratum `texpands_boxed_plain` (audit D11): the Vec kernels address dst by its BLayout alone, row i at
    i * Cols for row-major and column j at j * Rows for col-major (a2a3/TExpandS.hpp and a5/TExpandS.hpp:44-57,
    RowStride / ColStride), ignoring the fractal boxes: the fill lands on the plain rectangle of storage."""
    spec, vr, vc = dst.spec, dst.valid_row, dst.valid_col
    contract = dst.storage.copy()
    write_region(contract, spec, vr, vc, value)
    target = dst.storage.copy()
    if spec.is_row_major:
        target.reshape(spec.rows, spec.cols)[:vr, :vc] = value
    else:
        target.reshape(spec.cols, spec.rows)[:vc, :vr] = value
    commit_variant(config, INSTR, "texpands_boxed_plain", dst.storage, contract, target)


def _check_mat_blocks(check: Check, spec: TileSpec, bounds: tuple[int, int] | None) -> None:
    if bounds is None:
        return
    blocks = spec.nbytes // BLOCK_BYTES
    if not bounds[0] <= blocks <= bounds[1]:
        check.fail("dst", f"Rows * Cols * sizeof(dtype) / 32 must be in [{bounds[0]}, {bounds[1]}] (got {blocks})")


def _check_conv_static(check: Check, spec: ConvTileSpec, config: Config) -> None:
    if spec.loc is not TileType.Mat:
        check.fail("dst", f"a conv tile must be in Mat (got {spec.loc.name})")
    layouts = config.profile.texpands.conv_layouts
    if spec.layout not in layouts:
        check.fail("dst", f"conv layout {spec.layout.name} is not supported (allowed: "
                          f"{', '.join(x.name for x in layouts)})")
    needed = _MIN_DIMS[spec.layout]
    if len(spec.shape) < needed:
        check.fail("dst", f"must have at least {needed} dims as a {spec.layout.name} conv tile (got {len(spec.shape)})")
    if config.erratum("texpands_conv_5d") and len(spec.shape) < 5:  # errata off: the contract's fill
        check.fail("dst", "must have at least 5 dims: the A2A3 backend reads conv dim 4")
    fixed = _A5_FIXED_DIMS[spec.layout]
    if config.erratum("texpands_conv_fixed_dims") and len(spec.shape) < fixed:
        check.fail("dst", f"must have at least {fixed} dims as a {spec.layout.name} conv tile: the A5 backend reads "
                          f"conv dims 0..{fixed - 1}")


def _fill_conv(config: Config, check: Check, dst: ConvTile, value: np.generic) -> None:
    shape = dst.shape
    bounded = prod(shape[:_BOUNDED_DIMS[dst.spec.layout]])
    if not 1 <= bounded <= _CONV_LIMIT:
        check.fail("dst", f"the product of the first {_BOUNDED_DIMS[dst.spec.layout]} conv dims must be in "
                          f"[1, {_CONV_LIMIT}] (got {bounded})")
    count = prod(shape)
    filled, erratum = count, None
    if len(shape) == 6 and config.erratum("texpands_conv_5d"):
        filled, erratum = prod(shape[:5]), "texpands_conv_5d"
    fixed = _A5_FIXED_DIMS[dst.spec.layout]
    if len(shape) > fixed and config.erratum("texpands_conv_fixed_dims"):
        filled, erratum = prod(shape[:fixed]), "texpands_conv_fixed_dims"
    item = dst.spec.dtype.itemsize
    if config.erratum("texpands_conv_whole_blocks") and filled * item % BLOCK_BYTES:
        filled, erratum = filled * item // BLOCK_BYTES * BLOCK_BYTES // item, erratum or "texpands_conv_whole_blocks"
    if erratum is None:
        dst.storage[:count] = value
        return
    contract = dst.storage.copy()
    contract[:count] = value
    target = dst.storage.copy()
    target[:filled] = value
    commit_variant(config, INSTR, erratum, dst.storage, contract, target)


def _fill_mat(config: Config, dst: Tile, value: np.generic) -> None:
    spec = dst.spec
    whole = dst.valid_shape == (spec.rows, spec.cols)
    if whole or not config.erratum("texpands_mat_valid_only"):
        dst.storage.fill(value)
        return
    contract = np.full_like(dst.storage, value)
    target = dst.storage.copy()
    write_region(target, dst.spec, dst.valid_row, dst.valid_col, value)
    commit_variant(config, INSTR, "texpands_mat_valid_only", dst.storage, contract, target)


def _fill_a2a3_vec(config: Config, dst: Tile, value: np.generic) -> None:
    spec, vr, vc = dst.spec, dst.valid_row, dst.valid_col
    pairs = spec.dtype.itemsize == 1 and config.erratum("texpands_b8_pairs")
    contiguous = config.erratum("texpands_static_valid_contiguous") and _a2a3_contiguous(spec, vr, vc)
    if not pairs and (not contiguous or _rectangle_is_prefix(spec, vr, vc)):
        write_region(dst.storage, spec, vr, vc, value)  # the erratum cannot change anything here
        return
    contract = dst.storage.copy()
    write_region(contract, spec, vr, vc, value)
    target = dst.storage.copy()
    if contiguous:
        count = vr * vc
        target[:count + (count % 2 if pairs else 0)] = value
    else:
        outer, inner = (vr, vc) if spec.is_row_major else (vc, vr)
        pitch = spec.cols if spec.is_row_major else spec.rows
        inner += inner % 2 if pairs else 0
        target.reshape(-1, pitch)[:outer, :inner] = value
    name = "texpands_static_valid_contiguous" if contiguous and not _rectangle_is_prefix(spec, vr, vc) \
        else "texpands_b8_pairs"
    commit_variant(config, INSTR, name, dst.storage, contract, target)


def _a2a3_contiguous(spec: TileSpec, vr: int, vc: int) -> bool:
    """The A2A3 kernel's test for a contiguous fill (reference-facts 8.2)."""
    if spec.is_row_major:
        return spec.rows == 1 or spec.valid_col == spec.cols or vr == 1 or vc == spec.valid_col
    return spec.cols == 1 or spec.valid_row == spec.rows or vc == 1 or vr == spec.valid_row


def _rectangle_is_prefix(spec: TileSpec, vr: int, vc: int) -> bool:
    """True when the valid rectangle is exactly the first vr*vc storage elements."""
    if spec.is_row_major:
        return vr <= 1 or vc == spec.cols
    return vc <= 1 or vr == spec.rows


# --- batched loops ---------------------------------------------------------------------------------------------
def batch_form(config: Config, dst: Any, scalar: Any) -> tuple[Any, str] | None:
    """What a batched loop (ptoisa.interp.batch) runs for N calls of TEXPANDS into one tile, its storage stacked
    (N, numel): (run, what of dst the calls write: "all" or "valid"), or None where the calls must run one by
    one. The routes `_fill` compiles (a plain Vec tile's valid region, a Mat tile's whole storage) with a scalar
    converted without a warning (loop-invariant: converted once): every turn writes the same value there."""
    if type(dst) is not Tile or dst.view is None:
        return None
    spec, (vr, vc) = dst.spec, dst.valid_shape
    kind = _plain_kind(config, spec, vr, vc)
    if kind not in ("vec", "storage"):
        return None
    low_kind, low, high = weak_range(spec.dtype)
    value = scalar if type(scalar) is low_kind and low <= scalar <= high else quiet_element(scalar, spec.dtype)
    if value is None:
        return None
    if kind == "storage" or (vr, vc) == (spec.rows, spec.cols):
        def run_all(out: Any) -> None:
            out.storage.fill(value)

        return run_all, "all"

    def run_valid(out: Any) -> None:
        out.view[:, :vr, :vc] = value

    return run_valid, "valid"
