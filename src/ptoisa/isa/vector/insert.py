"""Windows into and out of a tile through the fixpipe: TINSERT TINSERT_FP TEXTRACT_FP.

    TINSERT(dst, src, indexRow, indexCol)                  dst[indexRow + i, indexCol + j] = src[i, j]
    TINSERT(dst, src, preQuantScalar, indexRow, indexCol)  ... quantised with one scalar word
    TINSERT(dst, src, fp, indexRow, indexCol)              ... quantised with one word per column (fp row 0)
    TINSERT_FP(dst, src, fp, indexRow, indexCol)           the same, by its own name
    TEXTRACT_FP(dst, src, fp, indexRow, indexCol)          dst[i, j] = q(src[indexRow + i, indexCol + j],
                                                                        fp[0, indexCol + j])

Attributes: `reluMode` (ReluPreMode; NormalRelu applies ReLU before the result is written) and `mode`
(AccToVecMode, the A5 Acc -> Vec destination; the simulator ignores it). Over src's valid region (TINSERT) or
dst's (TEXTRACT_FP); nothing else of dst changes. Meanings from include/pto/cpu/TInsert.hpp, TExtract.hpp and
common.hpp `quantize_element` (see `ptoisa.isa.vector._prequant`); legality from docs/isa/TINSERT.md and
PTOAS's verifiers.

    >>> from ptoisa import *
    >>> big = Tile[TileType.Vec, float, 4, 16]()
    >>> small = Tile[TileType.Vec, float, 2, 8]()
    >>> small.set_logical([[1.0] * 8, [-2.0] * 8])
    >>> _ = TINSERT(big, small, 1, 8, ReluPreMode.NormalRelu, target="cpu"); big.data[1:3, 7:10].tolist()
    [[0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..._quiet import quiet, quiet_reset, quiet_set
from ...dtypes import STANDARD_DTYPES
from ...dtypes import DType as D
from ...enums import AccToVecMode, ReluPreMode
from ...errors import NotModelledError
from ...tile.enums import SLayout, TileType
from ...tile.layout import region
from ...tile.spec import TileSpec
from .._check import Check
from .._scalar import UINT64
from ..record import TARGETS, Attr, Legality, Plan, Scalars, Static, Tiles, dst, instruction, scalar, src
from . import _prequant
from ._common import valid_of, write

Acc, Mat, Vec, Scaling = TileType.Acc, TileType.Mat, TileType.Vec, TileType.Scaling
ATTRS = (Attr("reluMode", ReluPreMode, ReluPreMode.NoRelu, "reluPreMode"),
         Attr("mode", AccToVecMode, None, "accToVecMode"))
_INDEX = (scalar("indexRow", fixed=D.U16, optional=True), scalar("indexCol", fixed=D.U16, optional=True))
_PLAIN = (dst(), src("src"), *_INDEX)
_SCALAR = (dst(), src("src"), scalar("preQuantScalar", fixed=UINT64), *_INDEX)
_VECTOR = (dst(), src("src"), src("fp"), *_INDEX)

# --- per-target legality, as data -----------------------------------------------------------------------------
_F8 = (D.F8E4M3,)
# (src loc, dst loc) -> {"plain" | "quant": {src dtype: dst dtypes}} (docs/isa/TINSERT.md, PTOAS TInsertOp)
_Pairs = Mapping[str, Mapping[D, tuple[D, ...]]]  # "plain" | "quant" -> {src dtype: dst dtypes}
_A2A3: dict[tuple[TileType, TileType], _Pairs] = {(Acc, Mat): {"plain": {D.F32: (D.F16, D.BF16)},
                      "quant": {D.F32: (D.I8,), D.I32: (D.I8, D.U8, D.F16, D.I16)}}}
_A5_ACC: _Pairs = {"plain": {D.F32: (D.F16, D.BF16, D.F32), D.I32: (D.I32,)},
           "quant": {D.F32: (D.I8, D.U8, D.HIF8, D.F16, D.BF16, *_F8), D.I32: (D.I8, D.U8, D.F16, D.BF16)}}
_A5_SAME = (D.F16, D.BF16, D.F32, D.I32, D.I8, D.HIF8, D.F8E4M3, D.F8E5M2)
_A5: dict[tuple[TileType, TileType], _Pairs] = {(Acc, Mat): _A5_ACC, (Acc, Vec): _A5_ACC,
       (Vec, Vec): {"plain": {t: (t,) for t in _A5_SAME}}, (Vec, Mat): {"plain": {t: (t,) for t in _A5_SAME}}}
PATHS: Mapping[str, Mapping[tuple[TileType, TileType], _Pairs]] = {
    "a2a3": _A2A3, "a5": _A5}
"""The NPU targets' (src, dst) location paths and element-type pairs; the cpu profile takes any standard pair
(the simulator's loop converts)."""


def _nz(spec: TileSpec) -> bool:
    return not spec.is_row_major and spec.slayout is SLayout.RowMajor


def _nd(spec: TileSpec) -> bool:
    return spec.is_row_major and spec.slayout is SLayout.NoneBox


def _layout_name(spec: TileSpec) -> str:
    return f"blayout={spec.blayout.name}, slayout={spec.slayout.name}"


def _static(quant: bool, name: str) -> Static:
    """The signature's rule: location path, element types, layouts per target; `quant` for the scalar and
    vector forms (form 1 and 2 of TINSERT, every form of TINSERT_FP / TEXTRACT_FP)."""

    def rule(check: Check, config: Any, specs: Mapping[str, TileSpec], attrs: Mapping[str, Any], form: int) -> Any:
        s, d = specs["src"], specs["dst"]
        quantised = quant or form > 0
        target = config.name
        fp = specs.get("fp")
        if fp is not None and target != "cpu" and fp.loc is not Scaling:
            check.fail("fp", f"location {fp.loc.name} is not supported (allowed: Scaling)")
        if fp is not None and fp.dtype not in STANDARD_DTYPES:  # its elements convert to uint64_t words
            check.fail("fp", f"dtype {fp.dtype.cname} is not supported (quantisation words are integers or floats)")
        if target == "cpu":
            for role, spec in specs.items():
                if spec.dtype not in STANDARD_DTYPES:
                    check.fail(role, f"dtype {spec.dtype.cname} is not supported on the simulator")
            return None
        paths = PATHS[target]
        table = paths.get((s.loc, d.loc))
        if table is None:
            allowed = ", ".join(f"{a.name} -> {b.name}" for a, b in paths)
            check.fail("dst", f"a {s.loc.name} -> {d.loc.name} {name} is not supported (paths: {allowed})")
        kind = "quant" if quantised else "plain"
        if kind not in table:
            check.fail("src", f"the quantised forms need an Acc source (got {s.loc.name})")
        allowed_dst = table[kind].get(s.dtype)
        if allowed_dst is None:
            check.fail("src", f"dtype {s.dtype.cname} is not supported (allowed: "
                              f"{', '.join(t.cname for t in table[kind])})")
        if d.dtype not in allowed_dst:
            check.fail("dst", f"dtype {d.dtype.cname} is not supported for a {s.dtype.cname} {s.loc.name} source "
                              f"(allowed: {', '.join(t.cname for t in allowed_dst)})")
        if s.loc is Acc and not _nz(s):
            check.fail("src", f"must be NZ (blayout=ColMajor, slayout=RowMajor; got {_layout_name(s)})")
        if d.loc is Mat and not (_nz(d) or (s.loc is Vec and d.is_row_major and s.is_row_major
                                            and s.slayout is SLayout.ColMajor and d.slayout is SLayout.ColMajor)):
            check.fail("dst", f"must be NZ (blayout=ColMajor, slayout=RowMajor; got {_layout_name(d)})")
        if target == "a2a3" and d.fractal_size != 512:
            check.fail("dst", f"fractal size must be 512 (got {d.fractal_size})")
        if s.loc is Vec and d.loc is Vec and not (_nd(s) and _nd(d) or _nz(s) and _nz(d)):
            check.fail("src", f"and dst must both be ND or both NZ for a Vec -> Vec {name} (got {s.layout_name} "
                              f"and {d.layout_name})")
        if s.loc is Vec and d.loc is Mat and not (_nd(s) or _nz(s) or s.slayout is SLayout.ColMajor):
            check.fail("src", f"must be ND or NZ for a Vec -> Mat {name} (got {s.layout_name})")
        mode = attrs.get("mode")
        if mode is not None and not (s.loc is Acc and d.loc is Vec):
            check.fail(None, f"mode (AccToVecMode.{mode.name}) applies to an Acc -> Vec move only")
        if mode in (AccToVecMode.DualModeSplitM, AccToVecMode.DualModeSplitN) and quantised:
            check.fail(None, f"mode AccToVecMode.{mode.name} needs the unquantised form")
        if attrs.get("reluMode") is ReluPreMode.NormalRelu and s.loc is not Acc:
            check.fail("src", f"the ReLU form needs an Acc source (got {s.loc.name})")
        return None

    return rule


_ANY = {t: Legality({}, locs=None) for t in TARGETS}


# --- kernels -----------------------------------------------------------------------------------------------------
def _not_modelled(plan: Plan) -> None:
    """Dual and vector-1 Acc -> Vec modes write the other vector core's buffer on the NPU; the simulator (the
    cpu profile) ignores the mode, ptoisa's single-core NPU model refuses it."""
    mode = plan.attrs.get("mode")
    if mode not in (None, AccToVecMode.SingleModeVec0) and plan.config.name != "cpu":
        raise NotModelledError(f"{plan.record.name} on {plan.config.name}: mode=AccToVecMode.{mode.name} is not "
                               "modelled (it writes the other vector core's buffer; only SingleModeVec0 runs)")


def _words(plan: Plan, tiles: Tiles, scalars: Scalars, first: int, count: int, size: int) -> np.ndarray | None:
    """The quantisation words of columns first .. first + count - 1: the scalar repeated, or fp's row 0."""
    check = Check(plan.record.name, plan.config.name)
    if "preQuantScalar" in scalars:
        if first + count > size and plan.config.undefined != "emulate":
            check.undefined("preQuantScalar", f"the simulator's scalar vector holds {size} words (src's valid rows,"
                                              f" a column-major src) but {first + count} columns read it")
        return np.full(count, scalars["preQuantScalar"], np.uint64)
    fp = tiles.get("fp")
    if fp is None:
        return None
    if first + count > fp.valid_col:
        check.fail("fp", f"holds {fp.valid_col} words in its valid row 0, fewer than the {first + count} columns "
                         "it quantises")
    row = region(fp, 1, first + count)[0, first:]
    with quiet():  # in double (2**64 overflows half); a signalling NaN converts with an "invalid" flag
        wide = np.asarray(row, np.float64) if row.dtype.kind == "f" else None
    if wide is not None and not np.all((wide >= 0) & (wide < 2.0**64)):
        check.undefined("fp", "a word that is negative, NaN or too large converts to uint64_t undefined")
    return _prequant.words_of(np.asarray(row))


def _insert(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    r0, c0 = int(scalars.get("indexRow", 0)), int(scalars.get("indexCol", 0))
    rows, cols = source.valid_shape
    limit = out.valid_shape if plan.config.name == "cpu" else (out.spec.rows, out.spec.cols)
    if r0 + rows > limit[0] or c0 + cols > limit[1]:
        what = "valid shape" if plan.config.name == "cpu" else "shape"
        Check(plan.record.name, plan.config.name).fail(
            "dst", f"src's valid {rows} x {cols} at ({r0}, {c0}) leaves dst's {what} {limit}")
    _not_modelled(plan)
    size = cols if source.spec.is_row_major else rows
    words = _words(plan, tiles, scalars, 0, cols, size)
    relu = plan.attrs.get("reluMode") is ReluPreMode.NormalRelu
    values = _prequant.apply(np.array(valid_of(source)), out.spec.dtype, words, "fp" in tiles, relu,
                             plan.config.name == "cpu")
    if rows and cols:
        whole = np.array(valid_of(out, (r0 + rows, c0 + cols)))
        whole[r0:, c0:] = values
        write(out, whole)


def _extract_fp(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    r0, c0 = int(scalars.get("indexRow", 0)), int(scalars.get("indexCol", 0))
    rows, cols = out.valid_shape
    if r0 + rows > source.valid_row or c0 + cols > source.valid_col:
        Check(plan.record.name, plan.config.name).fail(
            "src", f"the window at ({r0}, {c0}) of dst's valid shape {out.valid_shape} leaves src's valid shape "
                   f"{source.valid_shape}")
    _not_modelled(plan)
    words = _words(plan, tiles, scalars, c0, cols, c0 + cols)
    relu = plan.attrs.get("reluMode") is ReluPreMode.NormalRelu
    window = np.array(valid_of(source, (r0 + rows, c0 + cols))[r0:, c0:])
    write(out, _prequant.apply(window, out.spec.dtype, words, True, relu, plan.config.name == "cpu"))


def _window_compiled(extract: bool) -> Callable[[Plan, dict[str, int], Mapping[str, Any]], Any]:
    """The compiled hook (`compiled_scalars`) of `_insert` (extract False) and `_extract_fp` (True): per signature
    whose element moves are plain copies (dst's element type is src's, no ReLU, no quantisation mode for the
    pair: `_prequant.apply` then gives the values unchanged) with plain layouts, per call only the scalars'
    conversion, the window's bounds, fp's words checked (vector forms: each must convert to uint64_t) and one
    copy between the two regions (NumPy stages it when they overlap). A call the checks refuse runs the kernel
    with the converted scalars, which raises the same refusal before any byte changes. None (the bound kernel):
    boxed layouts, converting or quantising pairs, ReLU, the modes the NPU model refuses, and a scalar word the
    simulator's vector would not hold."""

    def hook(plan: Plan, positions: dict[str, int], scalars: Mapping[str, Any]) -> Any:
        specs = plan.specs
        s, d, fp = specs["src"], specs["dst"], specs.get("fp")
        if s.slayout is not SLayout.NoneBox or d.slayout is not SLayout.NoneBox or s.dtype is not d.dtype:
            return None
        if fp is not None and fp.slayout is not SLayout.NoneBox:
            return None
        if plan.attrs.get("reluMode") is ReluPreMode.NormalRelu:
            return None
        mode = plan.attrs.get("mode")
        if mode not in (None, AccToVecMode.SingleModeVec0) and plan.config.name != "cpu":
            return None
        words = fp is not None or "preQuantScalar" in scalars
        if words and _prequant.mode_of(s.dtype, d.dtype, fp is not None) is not None:
            return None
        rows, cols = (d.valid_row, d.valid_col) if extract else (s.valid_row, s.valid_col)
        if extract:
            limit = (s.valid_row, s.valid_col)
        else:
            limit = (d.valid_row, d.valid_col) if plan.config.name == "cpu" else (d.rows, d.cols)
            size = cols if s.is_row_major else rows
            if "preQuantScalar" in scalars and cols > size and plan.config.undefined != "emulate":
                return None
        checked = fp is not None and fp.np_dtype.kind == "f" and cols > 0  # the kernel checks float words only
        bits: np.dtype = np.dtype(np.uint8)
        top: Any = 0  # a NumPy scalar of bits' type when checked (NumPy's stubs type x[()] as an array)
        if checked and fp is not None:  # checked implies fp
            bits = np.dtype(f"u{fp.np_dtype.itemsize}")
            with quiet():
                top = np.array(2.0**64).astype(fp.np_dtype).view(bits)[()]
        kernel = _extract_fp if extract else _insert
        tile_names = [n for n in ("dst", "src", "fp") if n in positions and n in specs]
        tile_at = [(n, positions[n]) for n in tile_names]
        slots = [(n, positions[n], slot.convert) for n, slot in scalars.items()]
        di, si = positions["dst"], positions["src"]
        fi = positions.get("fp")
        fp_cols = fp.valid_col if fp is not None else 0
        copyto, mn, mx = np.copyto, np.minimum.reduce, np.maximum.reduce
        empty = rows == 0 or cols == 0

        def general(args: tuple, converted: dict[str, Any]) -> None:
            kernel(plan, {n: args[i] for n, i in tile_at}, converted)

        def run(args: tuple) -> None:
            converted = {n: convert(args[i]) for n, i, convert in slots}
            r0, c0 = int(converted.get("indexRow", 0)), int(converted.get("indexCol", 0))
            if r0 + rows > limit[0] or c0 + cols > limit[1]:
                return general(args, converted)
            if fi is not None:
                first = c0 if extract else 0
                if first + cols > fp_cols:
                    return general(args, converted)
                # every word's bits below those of 2**64 (inf for half): non-negative, finite and small enough;
                # else (a -0.0 too) the values themselves are checked
                if checked:
                    row = args[fi].view[0, first:first + cols]
                    if not mx(row.view(bits)) < top:
                        token = quiet_set()
                        try:
                            low, high = float(mn(row)), float(mx(row))
                        finally:
                            quiet_reset(token)
                        if not (low >= 0 and high < 2.0**64):  # a NaN fails both
                            return general(args, converted)
            if empty:
                return None
            if extract:
                copyto(args[di].view[:rows, :cols], args[si].view[r0:r0 + rows, c0:c0 + cols])
            else:
                copyto(args[di].view[r0:r0 + rows, c0:c0 + cols], args[si].view[:rows, :cols])
            return None

        return run

    return hook


_insert.compiled = _window_compiled(False)  # type: ignore[attr-defined]
_insert.compiled_scalars = True  # type: ignore[attr-defined]
_extract_fp.compiled = _window_compiled(True)  # type: ignore[attr-defined]
_extract_fp.compiled_scalars = True  # type: ignore[attr-defined]


TINSERT = instruction(
    "TINSERT", operands=_PLAIN, forms=(_PLAIN, _SCALAR, _VECTOR), attrs=ATTRS, legality=_ANY,
    static=_static(False, "TINSERT"), family="move",
    summary="dst[indexRow + i, indexCol + j] = src[i, j] (optionally ReLU, quantised by a scalar or fp)")(_insert)
TINSERT_FP = instruction(
    "TINSERT_FP", operands=_VECTOR, attrs=ATTRS, legality=_ANY, static=_static(True, "TINSERT_FP"), family="move",
    summary="TINSERT of an Acc tile quantised by the words in fp's row 0 (one per column)")(_insert)
TEXTRACT_FP = instruction(
    "TEXTRACT_FP", operands=_VECTOR, attrs=ATTRS, legality=_ANY, static=_static(True, "TEXTRACT_FP"),
    family="move", summary="dst = the window of src at (indexRow, indexCol), quantised by fp's row 0")(_extract_fp)
