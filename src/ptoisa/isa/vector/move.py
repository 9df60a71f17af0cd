"""Moves, selections, comparisons and reshaping: TMOV TSEL TSELS TCMP TPARTADD TPARTMAX TPARTMIN TFILLPAD
TEXTRACT TCONCAT TTRANS TRESHAPE.

    TMOV(dst, src)                       dst[i, j] = src[i, j] over the (equal) valid shapes
    TSEL(dst, selMask, src0, src1, tmp)  dst[i, j] = src0[i, j] if the next bit of the mask stream is 1 else src1
    TSELS(dst, mask, src, tmp, scalar)   dst[i, j] = src[i, j] if bit j of mask row i is 1 else scalar
    TCMP(dst, src0, src1, cmpMode)       bit j of dst row i = src0[i, j] cmpMode src1[i, j] (8 or 32 per element)
    TPARTADD(dst, src0, src1)            like TPARTMUL with + (max, min): one source may cover less than dst
    TFILLPAD(dst, src)                   dst = src where src is valid, dst's pad value elsewhere (whole tile)
    TEXTRACT(dst, src, indexRow, indexCol)  dst[i, j] = src[indexRow + i, indexCol + j]
    TCONCAT(dst, src0, src1)             dst row i = src0 row i's valid columns, then src1's
    TTRANS(dst, src, tmp)                dst[j, i] = src[i, j]
    TRESHAPE(dst, src)                   dst becomes a view of src's bytes (same location and byte size): later
                                         writes through either show in both, as on every target

Meanings from the simulator (include/pto/cpu/TMov.hpp, TSel.hpp, TSelS.hpp, TCmp.h, TPartOp.hpp, TFillPad.hpp,
TExtract.hpp, TConcat.hpp, TTrans.hpp) and the instruction pages. TSEL reads its mask as one bit stream over dst's
valid region in row-major order, 8 bits per mask element, moving to the next mask row after the mask's valid
columns (the simulator's reading; the NPUs start each dst row i at the first byte of mask row i, its bytes in
storage order); TCMP zeroes the whole dst first, then writes ceil(valid cols / bits) packed elements per row (at most
dst's valid columns).

    >>> from ptoisa import *
    >>> a = Tile[TileType.Vec, float, 2, 16]()
    >>> a.set_logical([[float(c) for c in range(16)], [-1.0] * 16])
    >>> t = Tile[TileType.Vec, float, 16, 8]()
    >>> _ = TTRANS(t, a, target="cpu"); t.data[:3, :2].tolist()
    [[0.0, -1.0], [1.0, -1.0], [2.0, -1.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...errors import NotModelledError

from ...dtypes import STANDARD_DTYPES
from ...dtypes import DType as D
from ...tile.enums import PadValue, SLayout, TileType
from ...tile.layout import offset_table, plain_view, store, write_region
from ...tile.layout import region as layout_region
from ...tile.tile import Tile
from .._check import Check, announce_fallback, commit_variant
from ...enums import AccToVecMode, ReluPreMode
from ..enums import CmpMode
from .._scalar import UINT64
from ..record import TARGETS, Attr, Kernel, Legality, Plan, Scalars, Tiles, dst, instruction, scalar, src, tmp
from ._common import cpp_max, cpp_min, undefined, valid_of, write
from .expand import PairFn, _pair_into
from .reduce import _blocked_pays

ALL = STANDARD_DTYPES


def _same(*roles: str, dtypes: tuple[D, ...] = ALL, locs: object = "vec", row_major: tuple[str, ...] = ()
          ) -> dict[str, Legality]:
    kwargs = {} if locs == "vec" else {"locs": None}
    table = Legality({roles[0]: dtypes}, same=(roles,), row_major=row_major, **kwargs)  # type: ignore[arg-type]
    return {"a2a3": table, "a5": table, "cpu": table}


# --- TMOV ----------------------------------------------------------------------------------------------------
def _equal_valid(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src"].valid_shape != tiles["dst"].valid_shape:
        check.fail("src", f"valid shape {tiles['src'].valid_shape} must equal dst's {tiles['dst'].valid_shape}")


def _mov(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    from . import _prequant
    from .insert import _not_modelled, _words

    _not_modelled(plan)
    values = np.array(valid_of(tiles["src"]))
    out = tiles["dst"]
    relu = plan.attrs.get("reluMode") is ReluPreMode.NormalRelu
    cols = out.valid_col
    if "fp" in tiles:
        # TMOV(dst, src, fp): the simulator's TEXTRACT_FP(dst, src, fp, 0, 0) (cpu/TMov.hpp), one word per
        # column from fp's row 0; the backends' fixpipe quantises per column alike
        write(out, _prequant.apply(values, out.spec.dtype, _words(plan, tiles, scalars, 0, cols, cols), True, relu,
                                   plan.config.name == "cpu"))
        return
    if "preQuantScalar" in scalars and plan.config.name != "cpu":
        # the backends load the word with set_quant_pre and move through the fixpipe (npu/*/TMov.hpp)
        words = np.full(cols, scalars["preQuantScalar"], np.uint64)
        write(out, _prequant.apply(values, out.spec.dtype, words, False, relu))
        return
    # a plain move; the simulator's scalar form ignores the word (cpu/TMov.hpp: `(void)preQuantScalar`)
    if values.dtype != out.spec.np_dtype:  # C++'s implicit conversion in SetElement
        # (on cpu between half and float a signalling NaN comes out quiet: `_prequant.apply`'s cpu rule)
        values = _prequant.apply(values, out.spec.dtype, None, False, False, plan.config.name == "cpu")
    if relu:
        # the simulator's TMOV_IMPL<reluMode>: after the move, `if (v < 0) v = 0` (NaN and -0.0 stay)
        values = np.where(values < 0, np.zeros((), values.dtype), values)
    write(out, values)


# Converting moves (src dtype, dst dtype) per target and path: the cube's Acc -> Mat (A5 also Acc -> Vec) casts
# float accumulators to half or bfloat16 (the backends' cast pre-quant mode), Mat -> Bias widens half
# (bfloat16 on A5) to float; every other move keeps the element type. The simulator converts any float pair.
_FLOAT_PAIRS = frozenset({(D.F32, D.F16), (D.F32, D.BF16), (D.F16, D.F32), (D.BF16, D.F32), (D.F16, D.BF16),
                          (D.BF16, D.F16)})
_ACC_OUT = frozenset({(D.F32, D.F16), (D.F32, D.BF16)})
_MOV_PATHS = {
    "a2a3": {(TileType.Acc, TileType.Mat): _ACC_OUT, (TileType.Mat, TileType.Bias): frozenset({(D.F16, D.F32)})},
    "a5": {(TileType.Acc, TileType.Mat): _ACC_OUT, (TileType.Acc, TileType.Vec): _ACC_OUT,
           (TileType.Mat, TileType.Bias): frozenset({(D.F16, D.F32), (D.BF16, D.F32)})},
}


def _mov_types(check: Check, config: object, specs: dict, attrs: dict, form: int) -> None:
    s, d = specs["src"], specs["dst"]
    if s.dtype is d.dtype:
        return
    target = getattr(config, "name", "")
    allowed = _FLOAT_PAIRS if target == "cpu" else _MOV_PATHS.get(target, {}).get((s.loc, d.loc), frozenset())
    if (s.dtype, d.dtype) not in allowed:
        check.fail("dst", f"element type {d.dtype.cname} differs from src's {s.dtype.cname}: a {s.loc.name} -> "
                          f"{d.loc.name} move keeps the element type on this target (the converting moves: Acc -> "
                          "Mat from float to half or bfloat16, Mat -> Bias from half to float)")


def _mov_quant(check: Check, config: object, specs: dict, attrs: dict) -> None:
    """The quantised forms (a preQuantScalar or an fp tile): an Acc source through the fixpipe, the element-type
    pairs of the fixpipe's pre-quantisation per target (the table TINSERT's quantised forms use)."""
    from .insert import PATHS

    s, d, fp = specs["src"], specs["dst"], specs.get("fp")
    target = getattr(config, "name", "")
    if target == "cpu":
        return
    if fp is not None and fp.loc is not TileType.Scaling:
        check.fail("fp", f"location {fp.loc.name} is not supported (allowed: Scaling)")
    table = PATHS[target].get((s.loc, d.loc), {}).get("quant")
    if table is None:
        paths = ", ".join(f"{a.name} -> {b.name}" for (a, b), t in PATHS[target].items() if "quant" in t)
        check.fail(None, f"a quantised {s.loc.name} -> {d.loc.name} move is not supported (paths: {paths})")
    allowed = table.get(s.dtype)
    if allowed is None:
        check.fail("src", f"dtype {s.dtype.cname} is not supported (allowed: {', '.join(t.cname for t in table)})")
    if d.dtype not in allowed:
        check.fail("dst", f"dtype {d.dtype.cname} is not supported for a quantised {s.dtype.cname} move (allowed: "
                          f"{', '.join(t.cname for t in allowed)})")
    if attrs.get("mode") in (AccToVecMode.DualModeSplitM, AccToVecMode.DualModeSplitN):
        check.fail(None, f"mode AccToVecMode.{attrs['mode'].name} needs the unquantised form")


def _mov_static(check: Check, config: object, specs: dict, attrs: dict, form: int) -> None:
    if form:
        _mov_quant(check, config, specs, attrs)
    else:
        _mov_types(check, config, specs, attrs, form)
    s, d = specs["src"], specs["dst"]
    mode = attrs.get("mode")
    if mode is not None and not (s.loc is TileType.Acc and d.loc is TileType.Vec):
        check.fail(None, f"mode (AccToVecMode.{mode.name}) applies to an Acc -> Vec move only")
    if attrs.get("reluMode") is ReluPreMode.NormalRelu and s.loc is not TileType.Acc:
        check.fail("src", f"the ReLU form needs an Acc source (got {s.loc.name})")


def _mov_compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TMOV's plain form for one signature that keeps the element type, without ReLU, with plain layouts: one
    copy between the valid regions (equal, by the run-time rule; NumPy stages a copy between overlapping bytes).
    None (the bound kernel): the quantised forms, converting moves, ReLU, boxed layouts and the modes the NPU
    model refuses."""
    specs = plan.specs
    s, d = specs["src"], specs["dst"]
    if plan.form != 0 or s.dtype is not d.dtype or s.slayout is not SLayout.NoneBox \
            or d.slayout is not SLayout.NoneBox or plan.attrs.get("reluMode") is ReluPreMode.NormalRelu:
        return None
    mode = plan.attrs.get("mode")
    if mode not in (None, AccToVecMode.SingleModeVec0) and plan.config.name != "cpu":
        return None
    part = slice(0, d.valid_row), slice(0, d.valid_col)
    di, si = positions["dst"], positions["src"]
    copyto = np.copyto

    def run(args: tuple) -> None:
        copyto(args[di].view[part], args[si].view[part])

    return run


_mov.compiled = _mov_compiled  # type: ignore[attr-defined]


_MOV_PLAIN = (dst(), src("src"))
_MOV_SCALAR = (dst(), src("src"), scalar("preQuantScalar", fixed=UINT64))
_MOV_VECTOR = (dst(), src("src"), src("fp"))
TMOV = instruction("TMOV", operands=_MOV_PLAIN, forms=(_MOV_PLAIN, _MOV_SCALAR, _MOV_VECTOR), legality={t: Legality({}, locs=None) for t in TARGETS},
                   attrs=(Attr("reluMode", ReluPreMode, ReluPreMode.NoRelu, "reluPreMode"),
                          Attr("mode", AccToVecMode, None, "accToVecMode")), static=_mov_static, dynamic=_equal_valid, family="move",
                   summary="dst = src (a tile copy, any layouts; Acc -> Mat may cast float to half, or quantise by a "
                           "scalar word or fp's row 0)")(_mov)


# --- TSEL, TSELS ---------------------------------------------------------------------------------------------
def _mask_bits(mask_values: np.ndarray, count: int, per_row: int) -> np.ndarray:
    """The first `count` bits of a mask read as a stream: `per_row` elements of 8 bits each per mask row."""
    bytes_needed = -(-count // 8)
    rows = -(-bytes_needed // per_row)
    flat = (mask_values[:rows, :per_row].astype(np.uint64) & 0xFF).astype(np.uint8).reshape(-1)
    return np.unpackbits(flat, bitorder="little")[:count]


def _tsel_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    shape = tiles["dst"].valid_shape
    for role in ("src0", "src1"):
        if tiles[role].valid_shape != shape:
            check.fail(role, f"valid shape {tiles[role].valid_shape} must equal dst's {shape}")
    mask = tiles["selMask"]
    count = shape[0] * shape[1]
    if count and _npu_rows(plan):
        row_bytes = mask.spec.cols * mask.spec.dtype.itemsize
        if shape[0] > mask.spec.rows or -(-shape[1] // 8) > row_bytes:
            check.fail("selMask", f"{mask.spec.rows} rows of {row_bytes} bytes cannot hold dst's {shape[0]} valid "
                                  f"rows of {shape[1]} bits (the NPUs read row i's bits from mask row i)")
        return
    if count and (mask.valid_col == 0 or -(-count // 8) > mask.valid_col * mask.spec.rows):
        check.fail("selMask", f"holds {mask.valid_col * mask.spec.rows * 8} mask bits, fewer than dst's {count} "
                              "valid elements")


def _npu_row_bits(mask: Any, rows: int, cols: int) -> np.ndarray:
    """The NPUs start dst row i's selection bits at the first byte of mask row i and read `cols` bits from there,
    LSB first (a2a3/TSel.hpp: the mask address maskPtr + i * RowStride in CMPMASK; a5/TSel.hpp: plds at
    i * maskRowStride), whatever the mask's valid columns: a row-major mask's bytes in storage order."""
    raw = np.ascontiguousarray(mask.view[:rows]).view(np.uint8)  # (rows, Cols * itemsize) bytes
    return np.unpackbits(raw[:, :-(-cols // 8)], axis=1, bitorder="little")[:, :cols]


def _npu_rows(plan: Plan) -> bool:
    """Whether TSEL reads its mask row by row (the NPUs, a plain row-major mask) rather than as one stream."""
    spec = plan.specs["selMask"]
    return plan.config.name != "cpu" and spec.layout_name == "ND"


def _tsel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    if rows == 0 or cols == 0:
        return
    mask = tiles["selMask"]
    if _npu_rows(plan):
        bits = _npu_row_bits(mask, rows, cols).astype(bool)
        write(out, np.where(bits, valid_of(tiles["src0"], (rows, cols)), valid_of(tiles["src1"], (rows, cols))))
        return
    per_row = mask.valid_col
    mask_values = valid_of(mask, (mask.spec.rows, per_row)).view(np.dtype(f"u{mask.spec.dtype.itemsize}"))
    bits = _mask_bits(mask_values, rows * cols, per_row).reshape(rows, cols).astype(bool)
    write(out, np.where(bits, valid_of(tiles["src0"], (rows, cols)), valid_of(tiles["src1"], (rows, cols))))


_MASK_TYPES = (D.U8, D.U16, D.U32, D.I8, D.I16, D.I32)
# docs/isa/TSEL.md, TSELS.md: A2/A3 selects 2- and 4-byte elements only (PTOAS: "expects A2/A3 tsel src0, src1,
# and dst element type to be i16/i32/f16/f32"); A5 also 1-byte ones (TSELS: not bfloat16).
_SEL_A2A3 = (D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)
_SELS_A5 = tuple(t for t in ALL if t is not D.BF16)
TSEL = instruction(
    "TSEL", operands=(dst(), src("selMask"), src("src0"), src("src1"), tmp("tmp", optional=True)),
    legality={t: Legality({"dst": _SEL_A2A3 if t == "a2a3" else ALL, "selMask": _MASK_TYPES},
                          same=(("dst", "src0", "src1"),)) for t in ("a2a3", "a5", "cpu")},
    dynamic=_tsel_rule, family="move", summary="dst = src0 where the mask bit stream is 1, else src1")(_tsel)


def _tsels_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    shape = tiles["dst"].valid_shape
    if tiles["src"].valid_shape != shape:
        check.fail("src", f"valid shape {tiles['src'].valid_shape} must equal dst's {shape}")
    mask = tiles["mask"]
    bits = mask.spec.dtype.itemsize * 8
    if mask.spec.rows < shape[0] or mask.spec.cols * bits < shape[1]:
        check.fail("mask", f"must hold {shape[1]} bits for each of {shape[0]} rows")


def _tsels(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    if rows == 0 or cols == 0:
        return
    mask = tiles["mask"]
    bits = mask.spec.dtype.itemsize * 8
    words = valid_of(mask, (rows, -(-cols // bits))).view(np.dtype(f"u{mask.spec.dtype.itemsize}"))
    column = np.arange(cols)
    chosen = (words[:, column // bits].astype(np.uint64) >> (column % bits).astype(np.uint64)) & 1
    write(out, np.where(chosen.astype(bool), valid_of(tiles["src"], (rows, cols)), scalars["scalar"]))


TSELS = instruction(
    "TSELS", operands=(dst(), src("mask"), src("src"), tmp("tmp", optional=True), scalar("scalar", "src")),
    forms=((dst(), src("mask"), src("src"), tmp("tmp"), scalar("scalar", "src")),
           (dst(), src("mask"), src("src"), scalar("scalar", "src"))),
    legality={t: Legality({"dst": {"a2a3": _SEL_A2A3, "a5": _SELS_A5}.get(t, ALL), "mask": _MASK_TYPES},
                          same=(("dst", "src"),)) for t in ("a2a3", "a5", "cpu")},
    dynamic=_tsels_rule, family="move", summary="dst = src where bit j of mask row i is 1, else scalar")(_tsels)


# --- TCMP ----------------------------------------------------------------------------------------------------
_TCMP_SRC = (D.I32, D.F16, D.F32)  # docs/isa/TCMP.md, A2/A3
_COMPARE = {CmpMode.EQ: np.equal, CmpMode.NE: np.not_equal, CmpMode.LT: np.less, CmpMode.LE: np.less_equal,
            CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal}


def _tcmp_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src0"].valid_shape != tiles["src1"].valid_shape:
        check.fail("src1", f"valid shape {tiles['src1'].valid_shape} must equal src0's {tiles['src0'].valid_shape}")
    if tiles["src0"].valid_row != tiles["dst"].valid_row:
        check.fail("dst", f"valid rows ({tiles['dst'].valid_row}) must equal src0's ({tiles['src0'].valid_row})")


def _tcmp(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = tiles["src0"].valid_shape
    bits = 32 if plan.specs["dst"].dtype.itemsize == 4 else 8
    result = np.zeros(out.storage.shape, out.storage.dtype)
    words = min(-(-cols // bits), out.valid_col)
    if rows and cols and words:
        mode = plan.attrs["cmpMode"]
        a, b = valid_of(tiles["src0"]), valid_of(tiles["src1"])
        with quiet():  # mode: the Attr's CmpMode (the plan's attrs are typed as any Enum)
            truth = _COMPARE[mode](a, b)  # type: ignore[index]
        if mode is not CmpMode.EQ and plan.specs["src0"].dtype is D.I32 and plan.config.profile.tcmps.int32_eq_only:
            # docs/isa/TCMP.md (A2/A3): int32 sources take the EQ compare path whatever cmpMode says
            equal = a == b
            if not np.array_equal(equal, truth):
                announce_fallback(plan.config, "TCMP", f"int32 {mode.name} is executed as EQ on this target")
            truth = equal
        padded = np.zeros((rows, -(-cols // bits) * bits), bool)
        padded[:, :cols] = truth
        packed = np.packbits(padded, axis=1, bitorder="little").view(np.dtype(f"<u{bits // 8}"))
        scratch = out.storage.copy()
        out.storage[...] = result
        store(out, rows, words, packed[:, :words].astype(out.storage.dtype))
        del scratch
        return
    out.storage[...] = result


def _tcmp_compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TCMP of one signature with plain layouts: the compare of the two valid regions into a bool buffer as wide
    as whole packed words (its padding False), packed little-endian (the flat buffer at once), then dst zeroed
    and the packed words stored (the compare reads both sources before dst changes, as the kernel's). None (the
    bound kernel): boxed layouts and A2/A3's int32 compares other than EQ (which may announce their fallback)."""
    specs = plan.specs
    if any(specs[r].slayout is not SLayout.NoneBox for r in ("dst", "src0", "src1")):
        return None
    mode = plan.attrs["cmpMode"]
    assert isinstance(mode, CmpMode)  # the Attr's enum (the plan's attrs are typed as any Enum)
    if mode is not CmpMode.EQ and specs["src0"].dtype is D.I32 and plan.config.profile.tcmps.int32_eq_only:
        return None
    rows, cols = specs["src0"].valid_row, specs["src0"].valid_col
    bits = 32 if specs["dst"].dtype.itemsize == 4 else 8
    words = min(-(-cols // bits), specs["dst"].valid_col)
    d, a, b = positions["dst"], positions["src0"], positions["src1"]
    if not (rows and cols and words):
        def zero(args: tuple) -> None:
            args[d].storage[...] = 0

        return zero
    compare, packbits = _COMPARE[mode], np.packbits
    part, into = (slice(0, rows), slice(0, cols)), (slice(0, rows), slice(0, words))
    width = -(-cols // bits) * bits
    word = np.dtype(f"<u{bits // 8}")
    buffer = np.empty if width == cols else np.zeros  # the padding bits must be False; no padding: all written
    whole_words = width // bits == words  # every packed word of a row is stored
    view_as = None if bits == 8 else word
    region = (slice(0, rows), slice(0, cols)) if width != cols else slice(None)

    def run(args: tuple) -> None:
        truth = buffer((rows, width), bool)
        QUIET.run(compare, args[a].view[part], args[b].view[part], out=truth[region])
        # rows of whole bytes: packing the flat buffer (axis None) packs each row, and costs less than axis=1
        packed = packbits(truth, None, "little").reshape(rows, -1)
        if view_as is not None:
            packed = packed.view(view_as)
        out = args[d]
        out.storage.fill(0)
        out.view[into] = packed if whole_words else packed[:, :words]

    return run


_tcmp.compiled = _tcmp_compiled  # type: ignore[attr-defined]


TCMP = instruction(
    "TCMP", operands=(dst(), src("src0"), src("src1")), attrs=(Attr("cmpMode", CmpMode, CmpMode.EQ),),
    legality={t: Legality({"dst": (D.U8, D.U32), "src0": _TCMP_SRC if t == "a2a3" else ALL},
                          same=(("src0", "src1"),)) for t in ("a2a3", "a5", "cpu")},
    dynamic=_tcmp_rule, family="move", summary="packed bits of src0 cmpMode src1 (dst zeroed first)")(_tcmp)


# --- TPARTADD, TPARTMAX, TPARTMIN ----------------------------------------------------------------------------
def _part_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, a, b = (tiles[r].valid_shape for r in ("dst", "src0", "src1"))

    def within(s: tuple[int, int]) -> bool:
        return s[0] <= d[0] and s[1] <= d[1]

    if not (within(a) and within(b) and (a == d or b == d)) and 0 not in d:
        if plan.config.undefined != "emulate":
            # a whole-call rule: no role (the error takes None; _common.undefined declares role: str)
            undefined(check, plan.config, None,  # type: ignore[arg-type]
                      f"valid shapes dst {d}, src0 {a}, src1 {b} are not a supported "
                      "pattern (one source must equal dst, the other must not exceed it)")


def _part(fn: PairFn) -> Kernel:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        rows, cols = out.valid_shape
        (ar, ac), (br, bc) = tiles["src0"].valid_shape, tiles["src1"].valid_shape
        ar, ac, br, bc = min(ar, rows), min(ac, cols), min(br, rows), min(bc, cols)
        if (ar, ac) == (br, bc) == (rows, cols):  # both valid everywhere: the operation alone, no staging
            a, b = valid_of(tiles["src0"], (rows, cols)), valid_of(tiles["src1"], (rows, cols))
            with quiet():
                if isinstance(fn, np.ufunc) and out.view is not None and a.dtype == out.storage.dtype:
                    fn(a, b, out=out.view[:rows, :cols])  # ufuncs handle dst being a source
                else:
                    write(out, fn(a, b).astype(out.storage.dtype, copy=False))
            return
        result = np.zeros((rows, cols), out.storage.dtype)
        a = valid_of(tiles["src0"], (ar, ac))
        b = valid_of(tiles["src1"], (br, bc))
        result[:ar, :ac] = a
        result[:br, :bc] = b
        r, c = min(ar, br), min(ac, bc)
        with quiet():
            result[:r, :c] = fn(a[:r, :c], b[:r, :c]).astype(result.dtype)
        write(out, result)

    kernel.compiled = lambda plan, positions: _part_compiled(fn, plan, positions)  # type: ignore[attr-defined]
    return kernel


def _part_compiled(fn: PairFn, plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TPARTADD TPARTMAX TPARTMIN of one signature whose three valid shapes are equal and nonempty, with plain
    layouts: the operation alone (`_pair_into`) from the two regions into dst's, the slices fixed once. Other
    patterns (a source covering less than dst) and boxed layouts: None (the bound kernel)."""
    specs = plan.specs
    shapes = {(specs[r].valid_row, specs[r].valid_col) for r in ("dst", "src0", "src1")}
    if len(shapes) != 1 or 0 in next(iter(shapes)) or any(specs[r].layout_name not in ("ND", "DN")
                                                          for r in ("dst", "src0", "src1")):
        return None
    rows, cols = next(iter(shapes))
    dtype = specs["dst"].np_dtype
    into = _pair_into(fn, dtype, rows * cols)
    region = slice(0, rows), slice(0, cols)
    d, a, b = positions["dst"], positions["src0"], positions["src1"]

    def run(args: tuple) -> None:
        QUIET.run(into, args[a].view[region], args[b].view[region], args[d].view[region])

    return run


for _name, _fn, _sym in (("TPARTADD", np.add, "+"), ("TPARTMAX", cpp_max, "max"), ("TPARTMIN", cpp_min, "min")):
    globals()[_name] = instruction(
        _name, operands=(dst(), src("src0"), src("src1")), legality=_same("dst", "src0", "src1"),
        dynamic=_part_rule, family="move",
        summary=f"src0 {_sym} src1 where both are valid, the valid one's value elsewhere in dst")(_part(_fn))


# --- TFILLPAD ------------------------------------------------------------------------------------------------
def pad_value(dtype: D, pad: PadValue) -> float | int:
    """The simulator's pad values: 0 for Null/Zero; +-inf (floats) or the type's max/min (integers)."""
    if pad is PadValue.Max:
        return float("inf") if dtype.is_float else int(np.iinfo(dtype.np).max)
    if pad is PadValue.Min:
        return float("-inf") if dtype.is_float else int(np.iinfo(dtype.np).min)
    return 0


def _padded(out: Tile, source: Tile, pad: float | int) -> np.ndarray:
    spec = out.spec
    full = np.full((spec.rows, spec.cols), pad, dtype=spec.dtype.np)
    vr, vc = min(source.valid_row, spec.rows), min(source.valid_col, spec.cols)
    full[:vr, :vc] = valid_of(source, (vr, vc)).astype(spec.dtype.np)
    return full


def npu_fill(plan: Plan, out: Any, source: Any, pad: Any, rows_erratum: bool, tail_erratum: bool) -> np.ndarray:
    """dst's storage after the NPU backends' TFillPad on plain row-major tiles (a2a3/TFillPad.hpp TFillPad,
    a5/TFillPad.hpp TFILLPAD_GENERIC_IMPL, shared by TFILLPAD, TFILLPAD_INPLACE and TFILLPAD_EXPAND): src's valid
    rows copied and padded to the right; `rows_erratum`: the rows below them padded only down to dst's valid rows
    (else all of dst's rows); `tail_erratum` (a2a3): whole src rows copied and the pad starting at the next 32-byte
    boundary when dst's and src's PadValue are equal."""
    spec = out.spec
    svr, svc = source.valid_shape
    staged = out.storage.copy()
    rows = min(svr, spec.rows)
    padded = np.full((rows, spec.cols), pad, spec.np_dtype)
    padded[:, :svc] = layout_region(source, rows, svc)
    if tail_erratum and spec.pad is source.spec.pad:
        block = 32 // spec.dtype.itemsize
        end = min(-(-svc // block) * block, source.spec.cols)
        padded[:, svc:end] = layout_region(source, rows, end)[:, svc:]
    write_region(staged, spec, rows, spec.cols, padded)
    below = out.valid_row if rows_erratum else spec.rows
    if below > rows:
        view = np.full((below - rows, spec.cols), pad, spec.np_dtype)
        full = np.empty((below, spec.cols), spec.np_dtype)
        full[:rows] = padded
        full[rows:] = view
        write_region(staged, spec, below, spec.cols, full)
    return staged


def _fillpad(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    spec = out.spec
    config = plan.config
    if out.valid_row == 0 or out.valid_col == 0:  # the simulator and A2/A3 return before any write
        if config.name == "a5" and out.valid_row > 0:  # A5 does not (TFILLPAD_GENERIC_IMPL)
            raise NotModelledError(f"{plan.record.name} on a5: a dst with valid rows but no valid column (the "
                                   "backend has no early return and pads anyway) is not modelled")
        return
    if config.name != "cpu" and _plain_rows(spec) and _plain_rows(source.spec):
        _npu_fillpad(plan, out, source)
        return
    contract = _padded(out, source, pad_value(spec.dtype, spec.pad))
    if spec.dtype is D.F16 and spec.pad in (PadValue.Max, PadValue.Min) and \
            plan.config.erratum("tfillpad_half_limits"):
        target = _padded(out, source, 0)
        staged_contract, staged_target = out.storage.copy(), out.storage.copy()
        write_region(staged_contract, spec, spec.rows, spec.cols, contract)
        write_region(staged_target, spec, spec.rows, spec.cols, target)
        commit_variant(plan.config, plan.record.name, "tfillpad_half_limits", out.storage, staged_contract,
                       staged_target)
        return
    store(out, spec.rows, spec.cols, contract)


def _write_nothing(args: tuple) -> None:
    return None


def _plain_rows(spec: Any) -> bool:
    return spec.is_row_major and not spec.is_boxed


def _npu_fillpad(plan: Plan, out: Tile, source: Tile) -> None:
    """The NPUs' fill of plain row-major tiles, with their errata (`npu_fill`), each announced on its own."""
    config, spec, name = plan.config, out.spec, plan.record.name
    if config.name == "a5" and source.valid_row > out.valid_row:
        undefined(Check(name, config.name), config, "src",
                  f"{source.valid_row} valid rows, more than dst's {out.valid_row} (the backend's pad row count "
                  "dstValidRow - srcValidRow wraps)")
        raise NotModelledError(f"{name} on a5: the wrapped pad row count is not modelled")
    pad = pad_value(spec.dtype, spec.pad)
    contract = out.storage.copy()
    write_region(contract, spec, spec.rows, spec.cols, _padded(out, source, pad))
    # both variants from the bytes before any write (dst may be src: TFILLPAD_INPLACE)
    rows = npu_fill(plan, out, source, pad, True, False)
    tail = npu_fill(plan, out, source, pad, config.erratum("tfillpad_expand_dst_valid_rows"), True) \
        if config.name == "a2a3" else None
    if tail is None:
        commit_variant(config, name, "tfillpad_expand_dst_valid_rows", out.storage, contract, rows)
        return
    # both announced before dst changes (a warning raised as an error must leave dst's bytes as they were): the
    # first decision lands in a scratch copy, the second in dst
    first = np.empty_like(contract)
    commit_variant(config, name, "tfillpad_expand_dst_valid_rows", first, contract, rows)
    commit_variant(config, name, "tfillpad_expand_src_block_tail", out.storage, first, tail)


def _fillpad_compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TFILLPAD (TFILLPAD_INPLACE) of one signature with plain layouts: src's valid region (within dst) copied
    into dst, then the pad value written over the rest of dst's rows and columns. The copy reads all of src
    before the pad writes anything, so overlapping tiles (dst = src) end as the kernel's staged result. None (the
    bound kernel): boxed layouts and the half Max/Min pads of the tfillpad_half_limits erratum."""
    specs = plan.specs
    s, d = specs["src"], specs["dst"]
    if s.slayout is not SLayout.NoneBox or d.slayout is not SLayout.NoneBox:
        return None
    npu = plan.config.name != "cpu"
    if d.valid_row == 0 or d.valid_col == 0:  # nothing written (A5 with valid rows: the bound kernel refuses)
        return None if plan.config.name == "a5" and d.valid_row else _write_nothing
    if npu and _plain_rows(d) and _plain_rows(s):  # the NPUs' fill and its errata: the bound kernel
        return None
    if d.dtype is D.F16 and d.pad in (PadValue.Max, PadValue.Min) and plan.config.erratum("tfillpad_half_limits"):
        return None
    pad = np.full((), pad_value(d.dtype, d.pad), dtype=d.dtype.np)
    vr, vc = min(s.valid_row, d.rows), min(s.valid_col, d.cols)
    part, below, right = (slice(0, vr), slice(0, vc)), (slice(vr, None), slice(None)), (slice(0, vr), slice(vc, None))
    tail_rows, tail_cols = vr < d.rows, vc < d.cols
    di, si = positions["dst"], positions["src"]
    copyto = np.copyto

    def run(args: tuple) -> None:
        view = args[di].view
        copyto(view[part], args[si].view[part])
        if tail_rows:
            view[below] = pad
        if tail_cols:
            view[right] = pad

    return run


_fillpad.compiled = _fillpad_compiled  # type: ignore[attr-defined]


def _fillpad_shapes(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> None:
    """dst and src of one Rows x Cols (a static_assert in the simulator and both backends; TFILLPAD_EXPAND takes a
    larger dst)."""
    d, s = specs["dst"], specs["src"]
    if (d.rows, d.cols) != (s.rows, s.cols):
        check.fail("dst", f"shape {d.rows} x {d.cols} must be src's {s.rows} x {s.cols} (a larger dst: "
                          "TFILLPAD_EXPAND)")


TFILLPAD = instruction("TFILLPAD", operands=(dst(), src("src")), legality=_same("dst", "src"), family="move",
                       static=_fillpad_shapes,
                       summary="dst = src's valid region, dst's pad value (PadValue) everywhere else")(_fillpad)
TFILLPAD_INPLACE = instruction(
    "TFILLPAD_INPLACE", operands=(dst(), src("src")), legality=_same("dst", "src"), family="move",
    static=_fillpad_shapes,
    summary="TFILLPAD meant for dst and src being one tile (the simulator runs the same fill)")(_fillpad)


# --- TEXTRACT ------------------------------------------------------------------------------------------------
def _extract(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    r0, c0 = int(scalars.get("indexRow", 0)), int(scalars.get("indexCol", 0))
    rows, cols = out.valid_shape
    if r0 + rows > source.valid_row or c0 + cols > source.valid_col:
        Check("TEXTRACT", plan.config.name).fail(
            "src", f"the window at ({r0}, {c0}) of dst's valid shape {out.valid_shape} leaves src's valid shape "
                   f"{source.valid_shape}")
    write(out, np.array(valid_of(source, (r0 + rows, c0 + cols))[r0:, c0:]))


def _extract_compiled(plan: Plan, positions: dict[str, int], scalars: dict[str, Any]
                      ) -> Callable[[tuple], None] | None:
    """TEXTRACT of one signature with plain layouts (`compiled_scalars`): the indices converted, the window
    checked against src's valid shape (a refused call runs the kernel with the converted indices, which raises),
    then one copy of the window into dst's valid region. None (the bound kernel): boxed layouts."""
    specs = plan.specs
    s, d = specs["src"], specs["dst"]
    if s.slayout is not SLayout.NoneBox or d.slayout is not SLayout.NoneBox:
        return None
    rows, cols = d.valid_row, d.valid_col
    limit_rows, limit_cols = s.valid_row, s.valid_col
    slots = [(n, positions[n], slot.convert) for n, slot in scalars.items()]
    di, si = positions["dst"], positions["src"]
    copyto = np.copyto

    def run(args: tuple) -> None:
        converted = {n: convert(args[i]) for n, i, convert in slots}
        r0, c0 = int(converted.get("indexRow", 0)), int(converted.get("indexCol", 0))
        if r0 + rows > limit_rows or c0 + cols > limit_cols:
            _extract(plan, {"dst": args[di], "src": args[si]}, converted)
            return
        copyto(args[di].view[:rows, :cols], args[si].view[r0:r0 + rows, c0:c0 + cols])

    return run


_extract.compiled = _extract_compiled  # type: ignore[attr-defined]
_extract.compiled_scalars = True  # type: ignore[attr-defined]


def _extract_layouts(check: Check, config: object, specs: dict, attrs: dict, form: int) -> None:
    """A5 moves Vec -> Vec windows with ND tiles only (PTOAS: "expects A5 vec->vec textract src/dst to use ND
    layout (blayout=row_major, slayout=none_box)")."""
    if getattr(config, "name", "") != "a5":
        return
    from ...tile.enums import TileType

    if all(spec.loc is TileType.Vec for spec in specs.values()):
        for role, spec in specs.items():
            if spec.is_boxed or not spec.is_row_major:
                check.fail(role, f"must be an ND tile (row-major, no boxes) for a Vec -> Vec window on a5 "
                                 f"(got {spec.layout_name})")


TEXTRACT = instruction(
    "TEXTRACT", operands=(dst(), src("src"), scalar("indexRow", fixed=D.U16, optional=True),
                          scalar("indexCol", fixed=D.U16, optional=True)),
    legality=_same("dst", "src", locs=None), static=_extract_layouts, family="move",
    summary="dst = the window of src at (indexRow, indexCol)")(_extract)


# --- TCONCAT -------------------------------------------------------------------------------------------------
def _a2a3_concat_reach(plan: Plan, tiles: Tiles) -> int:
    """The dst columns A2/A3's TCONCAT writes (a2a3/TConcat.hpp TConcatImpl): src0's rows copied in whole 32-byte
    blocks, then src1's at column validCol0, in whole blocks too when validCol0 fills whole blocks, else element by
    element."""
    per_block = 32 // plan.specs["dst"].dtype.itemsize
    c0, c1 = tiles["src0"].valid_col, tiles["src1"].valid_col
    ends = [-(-c0 // per_block) * per_block, c0 + (-(-c1 // per_block) * per_block if c0 % per_block == 0 else c1)]
    return max(ends)


def _a2a3_plain(plan: Plan) -> bool:
    return plan.config.name == "a2a3" and all(plan.specs[r].layout_name == "ND" for r in ("dst", "src0", "src1"))


def _concat_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, a, b = (tiles[r].valid_shape for r in ("dst", "src0", "src1"))
    if not d[0] == a[0] == b[0]:
        check.fail(None, f"valid rows of dst {d[0]}, src0 {a[0]} and src1 {b[0]} must be equal")
    if _a2a3_plain(plan):
        # docs/isa/TCONCAT.md: A2/A3 asks validCol0 + validCol1 <= dst Cols only (the backend asserts that, A5 the
        # equality); the whole-block copies must stay in dst's valid columns here (past them: not modelled)
        reach = _a2a3_concat_reach(plan, tiles)
        if a[1] + b[1] > d[1] or reach > d[1]:
            check.fail("dst", f"valid columns ({d[1]}) must hold src0's and src1's ({a[1]} + {b[1]}) and the "
                              f"backend's whole 32-byte copies (to column {reach})")
        return
    if d[1] != a[1] + b[1]:
        check.fail("dst", f"valid columns ({d[1]}) must be src0's plus src1's ({a[1]} + {b[1]})")


def _concat(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    if _a2a3_plain(plan):
        out, a, b = tiles["dst"], tiles["src0"], tiles["src1"]
        rows, c0, c1 = out.valid_row, a.valid_col, b.valid_col
        per_block = 32 // plan.specs["dst"].dtype.itemsize
        first = -(-c0 // per_block) * per_block  # src0's padding columns come along, up to a block boundary
        second = -(-c1 // per_block) * per_block if c0 % per_block == 0 else c1
        out.view[:rows, :first] = a.view[:rows, :first]
        out.view[:rows, c0:c0 + second] = b.view[:rows, :second]
        return
    write(tiles["dst"], np.concatenate([valid_of(tiles["src0"]), valid_of(tiles["src1"])], axis=1))


TCONCAT = instruction("TCONCAT", operands=(dst(), src("src0"), src("src1")),
                      legality=_same("dst", "src0", "src1"), dynamic=_concat_rule, family="move",
                      summary="dst row i = src0 row i then src1 row i (valid columns)")(_concat)


# --- TTRANS --------------------------------------------------------------------------------------------------
def _trans_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    sr, sc = tiles["src"].valid_shape
    if tiles["dst"].spec.rows < sc or tiles["dst"].spec.cols < sr:
        check.fail("dst", f"({tiles['dst'].spec.rows} x {tiles['dst'].spec.cols}) cannot hold the transpose of "
                          f"src's valid {sr} x {sc}")


def _trans(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source = tiles["dst"], tiles["src"]
    if plan.config.name == "cpu" and np.may_share_memory(out.storage, source.storage) \
            and out.storage.ndim == source.storage.ndim == 1:
        _trans_in_order(out, source)
        return
    write(out, np.array(valid_of(source).T))


def _trans_in_order(out: Tile, source: Tile) -> None:
    """cpu, dst sharing bytes with src (the same tile, or TASSIGNed over it): the simulator's loop (include/pto/
    cpu/TTrans.hpp TTrans_Impl: for each column c of src, for each row r, dst(c, r) = src(r, c)), each read seeing
    the writes before it."""
    vr, vc = source.valid_shape
    at_dst, at_src = offset_table(out.spec), offset_table(source.spec)
    d, s = out.storage, source.storage
    for c in range(vc):
        for r in range(vr):
            d[at_dst[c, r]] = s[at_src[r, c]]


def _trans_compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TTRANS of one signature with plain layouts: src's valid region copied transposed into dst's (the bits as
    unsigned integers of the element's size); a large region whose rows lie a power of two apart a block of 32
    source rows at a time (`_blocked_pays`: one transposing copy keeps evicting its own cache lines), when dst's
    storage is apart from src's (a block copy would read what an earlier block wrote); else one copy, which
    NumPy stages when the two overlap. None (the bound kernel) for boxed layouts."""
    specs = plan.specs
    if any(specs[r].layout_name not in ("ND", "DN") for r in ("dst", "src")):
        return None
    vr, vc = specs["src"].valid_row, specs["src"].valid_col
    if vr == 0 or vc == 0:
        return lambda args: None
    bits = np.dtype(f"u{specs['src'].np_dtype.itemsize}")
    part, into = (slice(0, vr), slice(0, vc)), (slice(0, vc), slice(0, vr))
    view = plain_view(np.empty(specs["src"].rows * specs["src"].cols, bits), specs["src"])
    assert view is not None  # plain layouts (checked above)
    sample = view[part].T
    blocked = _blocked_pays(sample)
    d, s = positions["dst"], positions["src"]
    copyto = np.copyto

    in_order = plan.config.name == "cpu"  # an overlap runs the simulator's element loop (`_trans_in_order`)

    def run(args: tuple) -> None:
        out, source = args[d].view[into].view(bits), args[s].view[part].T.view(bits)
        if in_order and np.may_share_memory(out, source):
            _trans(plan, {"dst": args[d], "src": args[s]}, {})
            return
        if blocked and not np.may_share_memory(out, source):
            for start in range(0, vr, 32):
                copyto(out[:, start:start + 32], source[:, start:start + 32])
        else:
            copyto(out, source)

    return run


_trans.compiled = _trans_compiled  # type: ignore[attr-defined]


TTRANS = instruction("TTRANS", operands=(dst(), src("src"), tmp("tmp", optional=True)),
                     legality=_same("dst", "src"), dynamic=_trans_rule, family="move",
                     summary="dst[j, i] = src[i, j] over src's valid region")(_trans)


def _reshape_rule(check: Check, config: object, specs: dict, attrs: dict, form: int) -> None:
    """TRESHAPE_IMPL's static checks: the same location, the same number of bytes, no change between boxed and
    unboxed layouts; the simulator also wants the same element type or two of one kind (float or integer)."""
    d, s = specs["dst"], specs["src"]
    if d.loc is not s.loc:
        check.fail("dst", f"must be in src's location {s.loc.name} (got {d.loc.name})")
    if d.nbytes != s.nbytes:
        check.fail("dst", f"must hold as many bytes as src: {s.nbytes} (got {d.nbytes})")
    if d.is_boxed != s.is_boxed:
        check.fail("dst", f"cannot reshape between a boxed and an unboxed layout ({s.layout_name} -> "
                          f"{d.layout_name})")
    if getattr(config, "name", "") == "cpu" and d.dtype is not s.dtype and d.dtype.is_float != s.dtype.is_float:
        check.fail("dst", f"element type {d.dtype.cname} is not compatible with src's {s.dtype.cname} on the "
                          "simulator (the same type, or both floating-point, or both integer)")


def _reshape(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    """dst becomes a view of src's bytes (every target aliases: the simulator sets dst's pointer, the NPUs
    TASSIGN dst to src's address)."""
    out, source = tiles["dst"], tiles["src"]
    if out is source:
        return
    if source.storage.ndim != 1 or not source.storage.flags.c_contiguous:
        raise NotModelledError("TRESHAPE of a window that is not one contiguous run of bytes is not modelled")
    out.attach(source.storage.view(np.uint8).view(out.spec.np_dtype))
    out.binding = source.binding


TRESHAPE = instruction(
    "TRESHAPE", operands=(dst(), src("src")),
    legality={t: Legality({"dst": ALL}, locs=None) for t in ("a2a3", "a5", "cpu")}, static=_reshape_rule,
    family="move", summary="dst becomes a view of src's bytes as dst's tile type (same location and byte size)")(
    _reshape)
