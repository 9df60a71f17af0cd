"""Generate conformance vectors for the vector instructions from the reference C++ CPU simulator.

    python tools/oracle/generate.py PTO_ISA_CHECKOUT [OP ...] [--out tests/data/vectors] [--seed 1]
        [--wide [--compact]] [--prefix P]

For each op this writes one C++ translation unit with one function per case (the tile types are template
arguments, so every case is its own instantiation), builds it with `g++ -std=c++20 -O2 -DNDEBUG -D__CPU_SIM` (the conformance vectors' flags) against the
checkout's `include/`, feeds every case's input bytes as hex on stdin, reads every tile's bytes back and writes
`OUT/<op>.jsonl.gz` (gzip-compressed JSON lines) in the record layout of the shared conformance vectors (`expect: match`). The build lives in a
temporary directory and is never committed; CI only reads the committed vectors.

GCC 12 has no `std::bfloat16_t`, and the simulator then aliases bfloat16_t to _Float16, so no bfloat16 case is
generated. GCC 12 also rejects the simulator's `static_assert(false, ...)` in never-instantiated templates; the
build copies `include/` and rewrites those into a dependent `static_assert(sizeof(T) == 0, ...)`, which changes no
instantiated code.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes  # noqa: F401 - registers nothing we use; numpy needs it only for bf16 (skipped)
import numpy as np

CPP = {"f32": "float", "f16": "half", "i32": "int32_t", "u32": "uint32_t", "i16": "int16_t", "u16": "uint16_t",
       "i8": "int8_t", "u8": "uint8_t", "u64": "uint64_t", "f8e4m3": "float8_e4m3_t", "f8e5m2": "float8_e5m2_t",
       "f8e8m0": "float8_e8m0_t"}
NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "u32": np.uint32, "i16": np.int16, "u16": np.uint16,
      "i8": np.int8, "u8": np.uint8, "u64": np.uint64, "f8e4m3": np.uint8, "f8e5m2": np.uint8, "f8e8m0": np.uint8}
MX_BYTES = ("f8e4m3", "f8e5m2", "f8e8m0")  # the simulator's MXType bytes: generated as raw bytes
ORACLE = "pto-isa 3186c381 cpu simulator, g++ 12 -std=c++20 -O2 -DNDEBUG -D__CPU_SIM"


@dataclass
class TileDesc:
    dtype: str
    rows: int
    cols: int
    valid_row: int
    valid_col: int
    blayout: str = "RowMajor"
    pad: str = "Null"
    loc: str = "Vec"
    slayout: str = "NoneBox"
    fractal: int = 512
    valid_kind: str = "dynamic"  # static | dynamic | dyn_row | dyn_col: which valid sizes are runtime values

    @property
    def nbytes(self) -> int:
        return self.rows * self.cols * np.dtype(NP[self.dtype]).itemsize

    def cpp(self) -> str:
        rest = ""
        if self.pad != "Null" or self.slayout != "NoneBox" or self.fractal != 512:
            rest = f", SLayout::{self.slayout}, {self.fractal}" + (f", PadValue::{self.pad}" if self.pad != "Null"
                                                                      else "")
        vr = self.valid_row if self.valid_kind in ("static", "dyn_col") else -1
        vc = self.valid_col if self.valid_kind in ("static", "dyn_row") else -1
        return (f"Tile<TileType::{self.loc}, {CPP[self.dtype]}, {self.rows}, {self.cols}, BLayout::{self.blayout}, "
                f"{vr}, {vc}{rest}>")

    def ctor_args(self) -> list[int]:
        return {"dynamic": [self.valid_row, self.valid_col], "dyn_row": [self.valid_row],
                "dyn_col": [self.valid_col], "static": []}[self.valid_kind]

    def record(self) -> dict:
        return {"loc": self.loc, "dtype": self.dtype, "rows": self.rows, "cols": self.cols,
                "blayout": self.blayout, "slayout": self.slayout, "fractal_size": self.fractal,
                "valid_row": self.valid_row, "valid_col": self.valid_col, "valid_kind": self.valid_kind, "pad": self.pad}


@dataclass
class Case:
    op: str
    call: str  # C++ call with tile role names and scalar names
    tiles: dict[str, TileDesc]
    inputs: list[str]  # roles read by the op
    scalars: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (dtype, bytes)
    params: dict = field(default_factory=dict)
    data: dict[str, bytes] = field(default_factory=dict)
    expect: str = "match"
    reason: str = ""
    overload: str = "default"
    compiles: bool = True  # False: the simulator refuses it at compile time (checked, then recorded unrun)
    outputs: tuple[str, ...] = ()  # roles written or scratch, when they are not simply the roles not read


# --- data -----------------------------------------------------------------------------------------------------
WIDE = False  # --wide: edge values, drawn shapes and valid kinds, more element types (set by main)
COMPACT = False  # --compact (with --wide): small tiles, and fewer TCVT cases (the committed edge_<op> files)
EDGE_SHARE = 0.3  # under --wide, the share of "random" and "special" elements taken from edge_values


def edge_values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """n values from the type's edges: for floats NaNs with payloads (quiet, signalling, negative), +-inf, +-0.0,
    the smallest and largest subnormals, the smallest normal, the largest finite, halves (rounding ties of the
    float -> integer conversions, at the integer types' ends too) and float -> half ties; for integers the
    extremes, their neighbours, 0 and +-1."""
    t = NP[dtype]
    if np.dtype(t).kind == "f":
        bits = {"f32": [0x7FC00000, 0x7FC00001, 0x7F800001, 0x7FBFFFFF, 0xFFC00000, 0xFFFFFFFF, 0xFF800001,
                        0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF,
                        0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF],
                "f16": [0x7E00, 0x7E01, 0x7C01, 0x7DFF, 0xFE00, 0xFFFF, 0xFC01, 0x7C00, 0xFC00, 0x0000, 0x8000,
                        0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF]}[dtype]
        numbers = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 1.0, -1.0, 127.5, -128.5, 127.25, -128.75, 255.5,
                   -0.75, 128.5, 32767.5, -32768.5, 32767.25, 65535.5, 65504.0, 65519.0, 65520.0, -65520.0, 2049.0,
                   2051.0, 1 + 2.0 ** -11, 3 * 2.0 ** -25, 2.0 ** -24, 2.0 ** -14 * 1.5, 2.0 ** 31, -2.0 ** 31,
                   2.0 ** 31 - 128, 2.0 ** 32 - 256, 2.0 ** 24 + 1, 1e10, -1e10]
        raw = np.array(bits, dtype=np.uint32 if dtype == "f32" else np.uint16).view(t)
        with np.errstate(over="ignore"):
            pool = np.concatenate([raw, np.array(numbers, dtype=np.float64).astype(t)])
        return pool[rng.integers(0, pool.size, n)]
    info = np.iinfo(t)
    pool = np.array(sorted({info.min, info.min + 1, info.max, info.max - 1, 0, 1, info.max // 2,
                            *(([-1, info.min // 2]) if info.min else [])}), dtype=np.int64).astype(t)
    return pool[rng.integers(0, pool.size, n)]


def values(rng: np.random.Generator, dtype: str, n: int, mode: str) -> np.ndarray:
    x = _values(rng, dtype, n, mode)
    if WIDE and mode in ("random", "special"):
        x = np.where(rng.random(n) < EDGE_SHARE, edge_values(rng, dtype, n), x).astype(x.dtype)
    return x


def _values(rng: np.random.Generator, dtype: str, n: int, mode: str) -> np.ndarray:
    t = NP[dtype]
    if np.dtype(t).kind == "f":
        if mode == "small":
            return (rng.integers(-8, 9, n) / 4).astype(t)
        if mode == "positive":
            return np.abs(rng.standard_normal(n) * 4).astype(t) + t(0.25)
        x = rng.standard_normal(n) * rng.choice([1e-3, 1, 30, 1e4], n)
        if mode == "special":
            specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-42, 65504, -65520, 3e38],
                                dtype=np.float64)
            pick = rng.random(n) < 0.3
            x = np.where(pick, rng.choice(specials, n), x)
        with np.errstate(over="ignore"):
            return x.astype(t)
    info = np.iinfo(t)
    if mode == "small":
        lo, hi = max(info.min, -50), min(info.max, 50)
        return rng.integers(lo, hi + 1, n).astype(t)
    if mode == "positive":
        return rng.integers(1, min(info.max, 1000) + 1, n).astype(t)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64).astype(t)


def fill(rng: np.random.Generator, desc: TileDesc, mode: str) -> bytes:
    return values(rng, desc.dtype, desc.rows * desc.cols, mode).tobytes()


def junk(rng: np.random.Generator, desc: TileDesc) -> bytes:
    return rng.integers(0, 256, desc.nbytes, dtype=np.uint8).tobytes()


# --- case builders ----------------------------------------------------------------------------------------------
FLOAT = ["f32", "f16"]
INTS = ["i32", "i16", "i8", "u8", "u16", "u32"]
SHAPES = [(1, 32, 1, 32), (4, 32, 4, 32), (8, 64, 5, 40), (16, 32, 16, 7), (2, 128, 2, 128), (3, 64, 2, 64)]


def wide_shapes(rng) -> list[tuple[int, int, int, int]]:
    """Six (rows, cols, valid rows, valid cols) for --wide, in a drawn order: one row, one valid column, valid
    smaller than the tile in both, in rows only, in columns only, and the whole tile."""
    shapes = []
    for kind in rng.permutation(["one_row", "one_col", "both", "rows", "cols", "full"]):
        rows = 1 if kind == "one_row" else int(_pick(rng, (2, 3, 4) if COMPACT else (2, 3, 4, 5, 8, 16)))
        cols = int(_pick(rng, (32, 64) if COMPACT else (32, 64, 96, 128)))
        vr = int(rng.integers(1, rows)) if kind in ("both", "rows") else rows
        vc = 1 if kind == "one_col" else int(rng.integers(1, cols)) if kind in ("both", "cols") else cols
        if kind == "one_row":
            vc = int(_pick(rng, (1, cols, int(rng.integers(1, cols + 1)))))
        shapes.append((rows, cols, vr, vc))
    return shapes


def wide_kinds(rng, cases: list[Case]) -> None:
    """--wide: make the valid sizes of a case's tiles static, or static in one dimension, one drawn choice per
    case (C++ deduces one tile type for operands such as TABS's dst and src, so their kinds must agree)."""
    for case in cases:
        kind = _pick(rng, KINDS)
        for t in case.tiles.values():
            if t.valid_kind == "dynamic" and t.valid_row > 0 and t.valid_col > 0:
                t.valid_kind = kind


def _wide(types: list[str], more: list[str] | None = None) -> list[str]:
    """An op's element types; under --wide, those of `more` (default: every type the vectors use) too."""
    return types + [t for t in (FLOAT + INTS if more is None else more) if t not in types] if WIDE else types


def _tile(dtype: str, shape: tuple[int, int, int, int], layout: str = "RowMajor") -> TileDesc:
    rows, cols, vr, vc = shape
    item = np.dtype(NP[dtype]).itemsize
    per = 32 // item
    if layout == "RowMajor":
        cols = max(cols, per) // per * per
        vc = min(vc, cols)
    else:
        rows = -(-max(rows, per) // per) * per
        vr = min(vr, rows)
    return TileDesc(dtype, rows, cols, vr, vc, layout)


def same_shape_cases(rng, op: str, call: str, roles: list[str], dtypes: list[str], modes: list[str],
                     layouts=("RowMajor",), scalar: str | None = None, shapes=None) -> list[Case]:
    cases = []
    for dtype in dtypes:
        for k, shape in enumerate(SHAPES if shapes is None else shapes):
            layout = layouts[k % len(layouts)]
            mode = modes[k % len(modes)]
            desc = _tile(dtype, shape, layout)
            tiles = {r: TileDesc(**vars(desc)) for r in roles}
            case = Case(op, call, tiles, [r for r in roles if r != "dst"])
            for r in roles:
                case.data[r] = junk(rng, desc) if r == "dst" else fill(rng, desc, mode)
            if scalar:
                s = values(rng, dtype, 1, "small" if mode != "special" else "special")
                if op in ("tdivs", "tfmods") and np.dtype(NP[dtype]).kind in "iu" or op in ("trems", "tfmods"):
                    s = values(rng, dtype, 1, "positive")  # TREMS calls a zero scalar illegal and writes nothing
                case.scalars["scalar"] = (dtype, s.tobytes())
            cases.append(case)
    return cases


def _nonzero_divisors(case: Case) -> None:
    d = case.tiles["src1"]
    arr = np.frombuffer(case.data["src1"], NP[d.dtype]).copy()
    if arr.dtype.kind in "iu":
        arr[arr == 0] = 1
        if arr.dtype.kind == "i":
            arr[arr == -1] = 3
        case.data["src1"] = arr.tobytes()


def binary(rng, op: str, dtypes: list[str], shapes=None) -> list[Case]:
    cases = same_shape_cases(rng, op, f"{op.upper()}(dst, src0, src1)", ["dst", "src0", "src1"], dtypes,
                             ["random", "special", "small"], layouts=("RowMajor", "RowMajor", "ColMajor"),
                             shapes=shapes)
    if op in ("tdiv", "trem"):
        for c in cases:
            _nonzero_divisors(c)
    if op in ("tshl", "tshr"):
        for c in cases:
            d = c.tiles["src1"]
            c.data["src1"] = (np.frombuffer(c.data["src1"], NP[d.dtype]).astype(np.int64) % 8).astype(
                NP[d.dtype]).tobytes()
    return cases


def scalar_op(rng, op: str, dtypes: list[str]) -> list[Case]:
    """Same-shape cases; under --wide also `scalar_mixed_cases`, which alone make the --compact files."""
    if COMPACT:
        return scalar_mixed_cases(rng, op, dtypes)
    cases = same_shape_cases(rng, op, f"{op.upper()}(dst, src0, scalar)", ["dst", "src0"], dtypes,
                             ["random", "special", "small"], scalar="scalar")
    return cases + (scalar_mixed_cases(rng, op, dtypes) if WIDE else [])


ROW_MAJOR_ONLY = ("tadds", "tmuls", "tdivs", "tmaxs")  # TBinSOps.hpp CONSTRAINT_VEC_ROWMAJOR


def scalar_mixed_cases(rng, op: str, dtypes: list[str]) -> list[Case]:
    """--wide tile-scalar cases with dst and src0 of different static shapes and layouts (one valid shape; the
    simulator's loop reads src0 in dst's order, erratum tile_scalar_src_dst_order) and scalars from the type's
    edges or of another element type (converted as the C++ parameter `typename TileSrc::DType` converts them;
    a conversion C++ leaves undefined makes the case `expect: reject`). --compact: the op's first three types."""
    layouts = ["RowMajor", "Zz", "Zn"] if op in ROW_MAJOR_ONLY else ["RowMajor", "ColMajor", "Nz", "Zz", "Zn", "Nn"]
    division = op in ("tdivs", "trems", "tfmods")
    cases = []
    for dtype in dtypes[:3] if COMPACT else dtypes:
        for k in range(4):
            vr, vc = int(rng.integers(1, 5)), int(rng.integers(1, 24))
            dst = _shaped(rng, dtype, _pick(rng, layouts[:2] if k % 2 else layouts), vr=vr, vc=vc, kind="dynamic")
            src = _shaped(rng, dtype, _pick(rng, layouts), vr=vr, vc=vc, kind=_pick(rng, ["dynamic", "static"]))
            case = Case(op, f"{op.upper()}(dst, src0, scalar)", {"dst": dst, "src0": src}, ["src0"])
            case.data = {"dst": filler(rng, dst), "src0": fill(rng, src, "special")}
            other = k >= 2 and not division and op not in ("tshls", "tshrs")
            s_type = _pick(rng, [t for t in FLOAT + INTS if t != dtype]) if other else dtype
            value = edge_values(rng, s_type, 1) if not division else values(rng, dtype, 1, "positive")
            if op in ("tshls", "tshrs"):
                value = np.array([int(rng.integers(0, 8))]).astype(NP[dtype])
            case.scalars["scalar"] = (s_type, value.tobytes())
            if np.dtype(NP[s_type]).kind == "f" and np.dtype(NP[dtype]).kind in "iu":
                info, x = np.iinfo(NP[dtype]), float(value[0])
                if not (np.isfinite(x) and info.min <= np.trunc(x) <= info.max):
                    case.expect, case.reason = "reject", "the scalar's conversion to the tiles' type is undefined in C++"
            cases.append(case)
    return cases


def unary(rng, op: str, dtypes: list[str], mode: str = "random") -> list[Case]:
    modes = [mode, "special", "small"] if mode != "positive" else ["positive", "special", "positive"]
    return same_shape_cases(rng, op, f"{op.upper()}(dst, src)", ["dst", "src"], dtypes, modes,
                            layouts=("RowMajor", "ColMajor"))


CVT_PAIRS = [("f32", "f16"), ("f16", "f32"), ("f32", "i32"), ("f32", "i16"), ("f16", "i32"), ("f16", "i16"),
             ("f16", "i8"), ("f16", "u8"), ("i32", "f32"), ("i32", "f16"), ("i16", "f16"), ("i16", "f32"),
             ("i8", "f16"), ("u8", "f16"), ("i32", "i16"), ("i32", "i8"), ("u32", "f32"), ("f32", "f32"),
             ("i16", "i32"), ("u16", "u8")]
MODES = ["CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD", "CAST_NONE"]


def _cvt_rounded(w: np.ndarray, mode: str) -> np.ndarray:
    """include/pto/cpu/TCvt.hpp applyRoundingToIntegral, in double."""
    with np.errstate(invalid="ignore"):
        if mode == "CAST_RINT":
            return np.rint(w)
        if mode == "CAST_ROUND":  # halves away from zero (exact: w comes from a float or half)
            return np.where(w >= 0, np.floor(w + 0.5), -np.floor(0.5 - w))
        if mode == "CAST_FLOOR":
            return np.floor(w)
        if mode == "CAST_CEIL":
            return np.ceil(w)
        if mode == "CAST_TRUNC":
            return np.trunc(w)
        if mode == "CAST_ODD":
            f = np.floor(w)
            frac = w - f
            odd = np.fmod(np.where(np.isfinite(f), f, 0), 2) != 0
            return np.where(frac > 0.5, f + 1, np.where(frac < 0.5, f, np.where(odd, f, f + 1)))
    return w


def _limits(t: str) -> tuple[float, float]:
    """TCvt.hpp SafeLimits: half is +-F16_MAX, the others their numeric_limits."""
    if t == "f16":
        return -65504.0, 65504.0
    if t == "f32":
        return float(-np.finfo(np.float32).max), float(np.finfo(np.float32).max)
    info = np.iinfo(NP[t])
    return float(info.min), float(info.max)


def cvt_undefined(x: np.ndarray, s: str, d: str, mode: str, sat: bool) -> np.ndarray:
    """Which elements TCvt_Impl converts with undefined C++: a float (after saturation's clamp, which casts the
    bound back to the source type, and after the rounding) whose truncation is outside the integer dst's range
    (a uint8 dst goes through int64), or a NaN or infinity reaching such a conversion."""
    w = x.astype(np.float64)
    if sat:
        lo = max(_limits(s)[0], _limits(d)[0])
        hi = min(_limits(s)[1], _limits(d)[1])
        w = np.where(np.isnan(w), hi, np.clip(w, lo, hi))  # std::max(lo, std::min(hi, v)): a NaN gives hi
        with np.errstate(over="ignore"):
            w = w.astype(NP[s]).astype(np.float64)
    if np.dtype(NP[s]).kind != "f" or np.dtype(NP[d]).kind == "f":
        return np.zeros(x.shape, bool)
    r = np.trunc(_cvt_rounded(w, mode))
    lo, hi = (-2.0 ** 63, 2.0 ** 63) if d == "u8" else (_limits(d)[0], _limits(d)[1] + 1)
    with np.errstate(invalid="ignore"):
        return ~((r >= lo) & (r < hi))


def tcvt_wide(rng) -> list[Case]:
    """--wide TCVT: every (src, dst) pair of the vectors' types in every round mode, saturation on in a third,
    edge values; float -> integer cases keep values up to 0.75 past the destination's ends: even cases replace
    the elements whose conversion is undefined (so the boundary values that stay in range are matched), odd ones
    keep them and are recorded as refused when any is left in the valid region."""
    cases = []
    types = FLOAT + INTS
    for s in types:
        for d in types:
            if COMPACT and s not in FLOAT and d not in FLOAT:
                continue
            for k, mode in enumerate(MODES):
                if COMPACT and (k + types.index(s) + types.index(d)) % 7 not in (0, 3, 5):
                    continue  # three modes per pair, a different three for neighbouring pairs
                rows, cols, vr, vc = SHAPES[(k + types.index(d)) % len(SHAPES)]
                cols = max(cols, 32 // min(_item(s), _item(d)))
                src = TileDesc(s, rows, cols, vr, min(vc, cols))
                dst = TileDesc(d, rows, cols, vr, min(vc, cols))
                sat = (k + types.index(d)) % 3 == 1  # with each value mode in turn over the pairs
                call = f"TCVT(dst, src, RoundMode::{mode}" + (", SaturationMode::ON)" if sat else ")")
                case = Case("tcvt", call, {"dst": dst, "src": src}, ["src"],
                            params={"mode": mode, **({"satMode": "ON"} if sat else {})})
                x = values(rng, s, rows * cols, ["random", "small", "special"][k % 3])
                if np.dtype(NP[s]).kind == "f" and np.dtype(NP[d]).kind in "iu":
                    lo, hi = _limits(d)
                    wide = x.astype(np.float64)
                    with np.errstate(over="ignore", invalid="ignore"):
                        if not sat:
                            wide = np.where(np.isfinite(wide), np.clip(wide, lo - 0.75, hi + 0.75), 2.5)
                        x = wide.astype(NP[s])
                valid = np.zeros((rows, cols), bool)
                valid[:vr, :vc] = True
                bad = cvt_undefined(x, s, d, mode, sat) & valid.reshape(-1)
                if bad.any() and k % 2 == 0:
                    x = np.where(bad, np.asarray(2.5).astype(NP[s]), x).astype(NP[s])
                elif bad.any():
                    case.expect = "reject"
                    case.reason = "an element's conversion is undefined in C++ (out of the destination's range " \
                                  "after the rounding, or NaN/infinity; with saturation, the bound cast back " \
                                  "to the source type rounds past the range)"
                case.data = {"src": x.tobytes(), "dst": junk(rng, dst)}
                cases.append(case)
    return cases


def tcvt(rng) -> list[Case]:
    if WIDE:
        return tcvt_wide(rng)
    cases = []
    for s, d in CVT_PAIRS:
        for k, mode in enumerate(MODES):
            shape = SHAPES[k % len(SHAPES)]
            item = max(np.dtype(NP[s]).itemsize, np.dtype(NP[d]).itemsize)
            cols = max(shape[1], 32 // min(np.dtype(NP[s]).itemsize, np.dtype(NP[d]).itemsize))
            del item
            src = TileDesc(s, shape[0], cols, shape[2], min(shape[3], cols))
            dst = TileDesc(d, shape[0], cols, shape[2], min(shape[3], cols))
            sat = k % 3 == 2
            call = f"TCVT(dst, src, RoundMode::{mode}" + (", SaturationMode::ON)" if sat else ")")
            case = Case("tcvt", call, {"dst": dst, "src": src}, ["src"],
                         params={"mode": mode, **({"satMode": "ON"} if sat else {})})
            x = values(rng, s, src.rows * src.cols, ["random", "small", "special"][k % 3])
            if np.dtype(NP[s]).kind == "f" and np.dtype(NP[d]).kind in "iu":
                info = np.iinfo(NP[d])
                wide = x.astype(np.float64)
                if sat and np.dtype(NP[d]).itemsize < 4:
                    x = np.where(np.isnan(wide), 1.5, wide).astype(NP[s])  # clamped on the simulator
                else:
                    lo, hi = max(info.min, -2.0 ** 24) * 0.99, min(info.max, 2.0 ** 24) * 0.99
                    x = np.where(np.isfinite(wide), np.clip(wide, lo + 1, hi - 1), 2.5).astype(NP[s])
                    if d == "u8":
                        x = np.abs(x.astype(np.float64)).clip(0, 255).astype(NP[s])
            case.data = {"src": x.tobytes(), "dst": junk(rng, dst)}
            if sat and np.dtype(NP[s]).kind == "f" and np.dtype(NP[d]).kind in "iu":
                _mark_saturation_overflow(case, x, s, d)
            cases.append(case)
    return cases


def _mark_saturation_overflow(case: Case, x: np.ndarray, s: str, d: str) -> None:
    """The simulator clamps in double and casts the bound back to the source type before converting; for half
    sources the int16/uint16 upper bound rounds up past the destination's range (32767 -> 32768), so the final
    conversion is undefined in C++: such cases must be refused, not matched."""
    info = np.iinfo(NP[d])
    half_max = 65504.0
    lo = max(-half_max if s == "f16" else -3.4e38, float(info.min))
    hi = min(half_max if s == "f16" else 3.4e38, float(info.max))
    wide = np.where(np.isnan(x.astype(np.float64)), hi, np.clip(x.astype(np.float64), lo, hi))
    back = wide.astype(NP[s]).astype(np.float64)
    if np.any((back > info.max) | (back < info.min)):
        case.expect = "reject"
        case.reason = ("the simulator's saturation casts the clamp bound back to the source type, where it "
                       "rounds past the destination's range: the conversion is undefined (the bytes are x86's)")


def reduce_cases(rng, op: str, pairs: list[tuple[str, str]]) -> list[Case]:
    if WIDE:
        pairs = pairs + [(t, t) for t in FLOAT + INTS if (t, t) not in pairs]
    cases = []
    row = op.startswith("trow")
    for s, d in pairs:
        for k, shape in enumerate(SHAPES[:4]):
            src = _tile(s, shape)
            if row:
                dst = TileDesc(d, src.rows, 1, src.valid_row, 1, "ColMajor") if (src.rows * np.dtype(
                    NP[d]).itemsize) % 32 == 0 else TileDesc(d, src.rows, 32 // np.dtype(NP[d]).itemsize,
                                                             src.valid_row, 1)
                tmp = TileDesc(s, src.rows, src.cols, src.valid_row, src.valid_col)
                tiles = {"dst": dst, "src": src, "tmp": tmp}
                call = f"{op.upper()}(dst, src, tmp)"
            else:
                dst = TileDesc(d, 1, src.cols, 1, src.valid_col)
                tiles = {"dst": dst, "src": src}
                call = f"{op.upper()}(dst, src)"
            mode = ["random", "special", "small", "random"][k] if "prod" not in op else "small"
            case = Case(op, call, tiles, ["src"])
            case.data = {r: (fill(rng, t, mode) if r == "src" else junk(rng, t)) for r, t in tiles.items()}
            cases.append(case)
    return cases


def expand_cases(rng, op: str, dtypes: list[str]) -> list[Case]:
    cases = []
    row = op.startswith("trow")
    for dtype in dtypes:
        for k, shape in enumerate(SHAPES[1:5]):
            full = _tile(dtype, shape)
            item = np.dtype(NP[dtype]).itemsize
            if op in ("trowexpand", "tcolexpand"):
                if row:
                    vec = TileDesc(dtype, full.rows, 32 // item, full.valid_row, 1)
                else:
                    vec = TileDesc(dtype, 1, full.cols, 1, full.valid_col)
                tiles = {"dst": TileDesc(**vars(full)), "src": vec}
                call = f"{op.upper()}(dst, src)"
                inputs = ["src"]
            else:
                if row:
                    rows = -(-full.rows * item // 32) * 32 // item
                    vec = TileDesc(dtype, rows, 1, full.valid_row, 1, "ColMajor") if k % 2 == 0 else \
                        TileDesc(dtype, full.rows, 32 // item, full.valid_row, 32 // item)
                else:
                    vec = TileDesc(dtype, 1, full.cols, 1, full.valid_col)
                swap = row and k == 1
                tiles = {"dst": TileDesc(**vars(full)), "src0": vec if swap else TileDesc(**vars(full)),
                         "src1": TileDesc(**vars(full)) if swap else vec}
                call = f"{op.upper()}(dst, src0, src1)"
                inputs = ["src0", "src1"]
            case = Case(op, call, tiles, inputs)
            mode = "positive" if op.endswith("div") else ["random", "small", "special", "random"][k]
            case.data = {r: (fill(rng, t, mode) if r != "dst" else junk(rng, t)) for r, t in tiles.items()}
            cases.append(case)
    return cases


def move_cases(rng, op: str) -> list[Case]:
    """TMOV TSEL TSELS TCMP TPARTADD/MAX/MIN TFILLPAD TEXTRACT TCONCAT TTRANS."""
    cases = []
    for k, (dtype, shape) in enumerate((d, s) for d in _wide(["f32", "f16", "i32", "i16"]) for s in SHAPES[1:5]):
        full = _tile(dtype, shape)
        item = np.dtype(NP[dtype]).itemsize
        mode = ["random", "special", "small", "random"][k % 4]
        rows, cols, vr, vc = full.rows, full.cols, full.valid_row, full.valid_col
        if op == "tmov":
            tiles, call = {"dst": TileDesc(**vars(full)), "src": full}, "TMOV(dst, src)"
        elif op == "tsel":
            mask = TileDesc("u8", rows, 32, rows, max(1, -(-vc // 8)))
            tiles = {"dst": TileDesc(**vars(full)), "selMask": mask, "src0": full, "src1": TileDesc(**vars(full)),
                     "tmp": TileDesc(**vars(full))}
            call = "TSEL(dst, selMask, src0, src1, tmp)"
        elif op == "tsels":
            mask = TileDesc("u8", rows, 32, rows, 32)
            tiles = {"dst": TileDesc(**vars(full)), "mask": mask, "src": full, "tmp": TileDesc(**vars(full))}
            call = "TSELS(dst, mask, src, tmp, scalar)"
        elif op == "tcmp":
            if dtype not in ("f32", "f16", "i32") and not WIDE:
                continue
            dst = TileDesc("u8", rows, 32, vr, -(-vc // 8))
            mode_name = ["EQ", "NE", "LT", "LE", "GT", "GE"][k % 6]
            tiles = {"dst": dst, "src0": full, "src1": TileDesc(**vars(full))}
            call = f"TCMP(dst, src0, src1, CmpMode::{mode_name})"
        elif op in ("tpartadd", "tpartmax", "tpartmin"):
            part = TileDesc(dtype, rows, cols, max(1, vr // 2), min(vc, max(32 // item, vc // 2)))
            swap = k % 2 == 1
            tiles = {"dst": TileDesc(**vars(full)), "src0": part if swap else full,
                     "src1": TileDesc(**vars(full)) if swap else part}
            call = f"{op.upper()}(dst, src0, src1)"
        elif op in ("tfillpad", "tfillpad_inplace"):
            pad = ["Zero", "Max", "Min"][k % 3]  # the simulator refuses a Null pad on a Vec dst
            src = TileDesc(dtype, rows, cols, max(1, vr - 1), max(1, vc - 3))
            tiles = {"dst": TileDesc(dtype, rows, cols, rows, cols, pad=pad), "src": src}
            call = f"{op.upper()}(dst, src)"
        elif op == "textract":
            r0, c0 = (1 if vr > 2 else 0), (32 // item if vc > 32 // item else 0)
            dst = TileDesc(dtype, rows, cols, vr - r0, vc - c0)
            tiles = {"dst": dst, "src": full}
            call = f"TEXTRACT(dst, src, (uint16_t){r0}, (uint16_t){c0})"
        elif op == "tconcat":
            half_cols = max(32 // item, cols // 2 // (32 // item) * (32 // item))
            a = TileDesc(dtype, rows, half_cols, vr, min(half_cols, 32 // item + k % 3))
            b = TileDesc(dtype, rows, half_cols, vr, min(half_cols, 32 // item))
            dst = TileDesc(dtype, rows, 2 * half_cols, vr, a.valid_col + b.valid_col)
            tiles = {"dst": dst, "src0": a, "src1": b}
            call = "TCONCAT(dst, src0, src1)"
        elif op == "ttrans":
            per = 32 // item
            n = -(-max(rows, cols) // per) * per
            src = TileDesc(dtype, n, n, vr, min(vc, n))
            tiles = {"dst": TileDesc(dtype, n, n, n, n), "src": src, "tmp": TileDesc(dtype, n, n, n, n)}
            call = "TTRANS(dst, src, tmp)"
        else:
            raise SystemExit(op)
        inputs = [r for r in tiles if r not in ("dst", "tmp")]
        case = Case(op, call, tiles, inputs)
        case.data = {r: fill(rng, t, mode) if r in inputs else junk(rng, t) for r, t in tiles.items()}
        if op == "tsels":
            case.scalars["scalar"] = (dtype, values(rng, dtype, 1, "small").tobytes())
        if op == "tcmp":
            case.params["cmpMode"] = call.split("::")[1].rstrip(")")
        if op == "textract":
            case.params["indexRow"] = {"dtype": "u16", "hex": np.uint16(r0).tobytes().hex(), "value": str(r0)}
            case.params["indexCol"] = {"dtype": "u16", "hex": np.uint16(c0).tobytes().hex(), "value": str(c0)}
        cases.append(case)
    if op == "tmov":
        cases += _converting_moves(rng)
    return cases


def _converting_moves(rng) -> list[Case]:
    """TMOV between element types (the simulator's SetElement converts): Vec -> Vec float pairs, and the cube's
    Acc -> Mat cast of a float accumulator to half."""
    cases = []
    for k, (s, d) in enumerate([("f32", "f16"), ("f16", "f32"), ("f32", "f16"), ("f16", "f32")]):
        src = _tile(s, SHAPES[1 + k])
        out = TileDesc(d, src.rows, src.cols, src.valid_row, src.valid_col)
        case = Case("tmov", "TMOV(dst, src)", {"dst": out, "src": src}, ["src"])
        case.data = {"dst": junk(rng, out), "src": fill(rng, src, ["random", "special"][k % 2])}
        cases.append(case)
    for k, mode in enumerate(["random", "special"]):
        acc = TileDesc("f32", 16, 32, 16, 32, "ColMajor", loc="Acc", slayout="RowMajor", fractal=1024)
        mat = TileDesc("f16", 16, 32, 16, 32, "ColMajor", loc="Mat", slayout="RowMajor")
        case = Case("tmov", "TMOV(dst, src)", {"dst": mat, "src": acc}, ["src"])
        case.data = {"dst": junk(rng, mat), "src": fill(rng, acc, mode)}
        cases.append(case)
    return cases


def compound_cases(rng, op: str) -> list[Case]:
    """TADDC TSUBC TADDSC TSUBSC TLRELU TSUBRELU TFUSEDMULADD TMULADDDST TFUSEDMULADDRELU."""
    layout = {"taddc": (["dst", "src0", "src1", "src2"], "TADDC(dst, src0, src1, src2)", False),
              "tsubc": (["dst", "src0", "src1", "src2"], "TSUBC(dst, src0, src1, src2)", False),
              "taddsc": (["dst", "src0", "src1"], "TADDSC(dst, src0, scalar, src1)", True),
              "tsubsc": (["dst", "src0", "src1"], "TSUBSC(dst, src0, scalar, src1)", True),
              "tlrelu": (["dst", "src"], "TLRELU(dst, src, scalar)", True),
              "tsubrelu": (["dst", "src0", "src1"], "TSUBRELU(dst, src0, src1)", False),
              "tfusedmuladd": (["dst", "src0", "src1"], "TFUSEDMULADD(dst, src0, src1)", False),
              "tmuladddst": (["dst", "src0", "src1"], "TMULADDDST(dst, src0, src1)", False),
              "tfusedmuladdrelu": (["dst", "src0", "src1"], "TFUSEDMULADDRELU(dst, src0, src1)", False)}
    roles, call, with_scalar = layout[op]
    dtypes = FLOAT if op == "tlrelu" else _wide(FLOAT + ["i32", "i16"])
    cases = same_shape_cases(rng, op, call, roles, dtypes, ["random", "special", "small"],
                             scalar="scalar" if with_scalar else None)
    if op in ("tfusedmuladd", "tmuladddst", "tfusedmuladdrelu"):  # dst is read: give it numbers, not junk bytes
        for k, c in enumerate(cases):
            c.data["dst"] = fill(rng, c.tiles["dst"], ["random", "special", "small"][k % 3])
    return cases


def treshape_cases(rng, op: str) -> list[Case]:
    """TRESHAPE: dst becomes src's bytes under another shape (and element type of the same kind)."""
    pairs = [(TileDesc("f32", 16, 1, 16, 1, "ColMajor"), TileDesc("f32", 1, 16, 1, 16)),
             (TileDesc("f32", 1, 16, 1, 16), TileDesc("f32", 16, 1, 16, 1, "ColMajor")),
             (TileDesc("i16", 4, 32, 4, 32), TileDesc("i32", 4, 16, 4, 16)),
             (TileDesc("f16", 8, 64, 5, 40), TileDesc("f16", 16, 32, 16, 32)),
             (TileDesc("u8", 2, 128, 2, 128), TileDesc("i16", 2, 64, 2, 64)),
             (TileDesc("f32", 4, 32, 4, 32), TileDesc("f32", 8, 16, 8, 16))]  # half <-> float: GCC 12's
    # std::is_floating_point does not count _Float16, so the simulator's compatibility assert refuses them
    cases = []
    for k, (source, target) in enumerate(pairs):
        case = Case(op, "TRESHAPE(dst, src)", {"dst": target, "src": source}, ["src"])
        case.data["dst"] = junk(rng, target)
        case.data["src"] = fill(rng, source, ["random", "special", "small"][k % 3])
        cases.append(case)
    return cases


def axpy_cases(rng, op: str) -> list[Case]:
    """TAXPY: dst = dst + src0 * scalar for (dst, src0) = (f32, f32), (f16, f16), (f32, f16); dst holds numbers."""
    cases = []
    for d, s in [("f32", "f32"), ("f16", "f16"), ("f32", "f16")]:
        for k, shape in enumerate(SHAPES):
            mode = ["random", "special", "small"][k % 3]
            src = _tile(s, shape)
            out = TileDesc(d, src.rows, src.cols, src.valid_row, src.valid_col)
            case = Case(op, "TAXPY(dst, src0, scalar)", {"dst": out, "src0": src}, ["src0"])
            case.data["dst"] = fill(rng, out, mode)
            case.data["src0"] = fill(rng, src, mode)
            case.scalars["scalar"] = (s, values(rng, s, 1, "small" if mode != "special" else "special").tobytes())
            cases.append(case)
    return cases


def ttri_cases(rng, op: str) -> list[Case]:
    """TTRI<T, 0 | 1>(dst, diagonal) over dst's valid region, diagonals from -3 to 5."""
    cases = []
    for d in ["i32", "i16", "u32", "u16", "f16", "f32"]:
        for k, shape in enumerate(SHAPES):
            upper = k % 2
            out = _tile(d, shape)
            case = Case(op, f"TTRI<T_dst, {upper}>(dst, diagonal)", {"dst": out}, [],
                        params={"isUpperOrLower": ["LOWER", "UPPER"][upper]})
            case.data["dst"] = junk(rng, out)
            case.scalars["diagonal"] = ("i32", np.int32(rng.integers(-3, 6)).tobytes())
            cases.append(case)
    return cases


def arg_cases(rng, op: str) -> list[Case]:
    """TROWARGMAX/MIN, TCOLARGMAX/MIN (index form): ties, NaNs and signed zeros in the special mode."""
    cases = []
    row = op.startswith("trow")
    for s in _wide(["f32", "f16", "i32", "i16", "i8", "u8"]):
        for k, shape in enumerate(SHAPES[:4]):
            d = ["u32", "i32"][k % 2]
            src = _tile(s, shape)
            if row:
                dst = TileDesc(d, src.rows, 1, src.valid_row, 1, "ColMajor") if src.rows % 8 == 0 else \
                    TileDesc(d, src.rows, 8, src.valid_row, 1)
            else:
                dst = TileDesc(d, 1, max(src.cols, 8), 1, src.valid_col)
            tmp = TileDesc(s, src.rows, src.cols, src.valid_row, src.valid_col)
            case = Case(op, f"{op.upper()}(dst, src, tmp)", {"dst": dst, "src": src, "tmp": tmp}, ["src"])
            mode = ["random", "special", "small"][k % 3]
            case.data["src"] = fill(rng, src, mode)
            case.data["dst"] = junk(rng, dst)
            case.data["tmp"] = junk(rng, tmp)
            cases.append(case)
    return cases


def matmul_cases(rng, op: str) -> list[Case]:
    """TMATMUL, TMATMUL_ACC, TMATMUL_BIAS: (C, A, B) = (f32, f16, f16), (f32, f32, f32), (i32, i8, i8) on the
    simulator's fractals (Left NZ, Right ZN, Acc NZ with 1024-byte fractals), whole and partial valid shapes."""
    sizes = [(16, 32, 16, 16, 32, 16), (32, 64, 48, 32, 64, 48), (16, 32, 32, 9, 20, 27), (48, 32, 16, 33, 32, 5)]
    cases = []
    for k, ((c_t, a_t), (rows_m, rows_k, cols_n, m, kk, n), mode) in enumerate(
            (pair, size, mode) for pair in [("f32", "f16"), ("f32", "f32"), ("i32", "i8")] for size in sizes
            for mode in ["random", "small", "special"] if not (pair[1] == "i8" and mode == "special")):
        left = TileDesc(a_t, rows_m, rows_k, m, kk, "ColMajor", loc="Left", slayout="RowMajor")
        right = TileDesc(a_t, rows_k, cols_n, kk, n, "RowMajor", loc="Right", slayout="ColMajor")
        acc = TileDesc(c_t, rows_m, cols_n, m, n, "ColMajor", loc="Acc", slayout="RowMajor", fractal=1024)
        # roles named as the C++ parameters
        if op == "tmatmul":
            tiles = {"cMatrix": acc, "aMatrix": left, "bMatrix": right}
            call, inputs = "TMATMUL(cMatrix, aMatrix, bMatrix)", ["aMatrix", "bMatrix"]
        elif op == "tmatmul_acc":
            tiles = {"cOutMatrix": acc, "cInMatrix": TileDesc(**vars(acc)), "aMatrix": left, "bMatrix": right}
            call, inputs = "TMATMUL_ACC(cOutMatrix, cInMatrix, aMatrix, bMatrix)", ["cInMatrix", "aMatrix", "bMatrix"]
        else:
            bias = TileDesc(c_t, 1, cols_n, 1, n, "RowMajor", loc="Bias")
            tiles = {"cMatrix": acc, "aMatrix": left, "bMatrix": right, "biasData": bias}
            call, inputs = "TMATMUL_BIAS(cMatrix, aMatrix, bMatrix, biasData)", ["aMatrix", "bMatrix", "biasData"]
        case = Case(op, call, tiles, inputs)
        for role, t in tiles.items():
            case.data[role] = fill(rng, t, mode if role in inputs else "random") if role in inputs else junk(rng, t)
        cases.append(case)
    return cases


def gemv_cases(rng, op: str) -> list[Case]:
    """TGEMV, TGEMV_ACC, TGEMV_BIAS: TMATMUL's type pairs with a one-row A (valid 1 x k) and C (valid 1 x n)."""
    sizes = [(32, 16, 16, 16), (64, 32, 40, 20), (32, 48, 32, 48), (96, 16, 77, 3)]
    name = op.upper()
    cases = []
    for (c_t, a_t), (rows_k, cols_n, kk, n), mode in ((pair, size, mode) for pair in
                                                      [("f32", "f16"), ("f32", "f32"), ("i32", "i8")]
                                                      for size in sizes for mode in ["random", "small", "special"]
                                                      if not (pair[1] == "i8" and mode == "special")):
        # a one-row Acc tile holds one 16x16 box's first row: wider ones would place columns past its storage
        rows = 1 if cols_n == 16 else 16
        left = TileDesc(a_t, rows, rows_k, 1, kk, "ColMajor", loc="Left", slayout="RowMajor")
        right = TileDesc(a_t, rows_k, cols_n, kk, n, "RowMajor", loc="Right", slayout="ColMajor")
        acc = TileDesc(c_t, rows, cols_n, 1, n, "ColMajor", loc="Acc", slayout="RowMajor", fractal=1024)
        if op == "tgemv":
            tiles = {"cMatrix": acc, "aMatrix": left, "bMatrix": right}
            call, inputs = f"{name}(cMatrix, aMatrix, bMatrix)", ["aMatrix", "bMatrix"]
        elif op == "tgemv_acc":
            tiles = {"cOutMatrix": acc, "cInMatrix": TileDesc(**vars(acc)), "aMatrix": left, "bMatrix": right}
            call, inputs = f"{name}(cOutMatrix, cInMatrix, aMatrix, bMatrix)", ["cInMatrix", "aMatrix", "bMatrix"]
        else:
            bias = TileDesc(c_t, 1, cols_n, 1, n, "RowMajor", loc="Bias")
            tiles = {"cMatrix": acc, "aMatrix": left, "bMatrix": right, "biasData": bias}
            call, inputs = f"{name}(cMatrix, aMatrix, bMatrix, biasData)", ["aMatrix", "bMatrix", "biasData"]
        case = Case(op, call, tiles, inputs)
        for role, t in tiles.items():
            case.data[role] = fill(rng, t, mode) if role in inputs else junk(rng, t)
        cases.append(case)
    return cases


def _mx_bytes(rng, desc: TileDesc, mode: str) -> bytes:
    """Raw fp8 / e8m0 bytes: any byte ("special": the simulator's MXType has no NaN or infinity), small values
    ("small": exponents near the bias), or scales near 2**0 with a few extremes."""
    n = desc.rows * desc.cols
    if desc.dtype == "f8e8m0":
        x = rng.integers(120, 135, n)
        if mode == "special":
            x = np.where(rng.random(n) < 0.2, rng.choice([0, 1, 254, 255, 127], n), x)
        return x.astype(np.uint8).tobytes()
    if mode == "special":
        return rng.integers(0, 256, n).astype(np.uint8).tobytes()
    bias = 7 if desc.dtype == "f8e4m3" else 15
    man = 3 if desc.dtype == "f8e4m3" else 2
    spread = 2 if mode == "small" else 5
    e = rng.integers(bias - spread, bias + spread + 1, n)
    x = (rng.integers(0, 2, n) << 7) | (e << man) | rng.integers(0, 1 << man, n)
    return x.astype(np.uint8).tobytes()


def mx_cases(rng, op: str) -> list[Case]:
    """TMATMUL_MX and TGEMV_MX with their accumulate and bias overloads: the four fp8 pairs, e8m0 scales in
    ScaleLeft (16x2 boxes) / ScaleRight tiles, and a few half and float scales in plain Scaling tiles."""
    gemv = op.startswith("tgemv")
    name = "TGEMV_MX" if gemv else "TMATMUL_MX"
    kind = op.removeprefix("tgemv_mx").removeprefix("tmatmul_mx").lstrip("_") or "plain"
    sizes = ([(1, 64, 16, 1, 64, 16), (16, 128, 32, 1, 100, 17), (1, 192, 16, 1, 33, 16), (16, 64, 48, 1, 64, 48)]
             if gemv else
             [(16, 64, 16, 16, 64, 16), (32, 128, 32, 20, 100, 17), (16, 64, 32, 5, 33, 32), (16, 192, 16, 16, 192, 9)])
    pairs = [("f8e4m3", "f8e4m3"), ("f8e4m3", "f8e5m2"), ("f8e5m2", "f8e4m3"), ("f8e5m2", "f8e5m2")]
    cases = []
    for idx, ((a_t, b_t), (rows_m, rows_k, cols_n, m, kk, n), mode) in enumerate(
            (pair, size, mode) for pair in pairs for size in sizes for mode in ["random", "small", "special"]):
        scale_t = "f8e8m0" if idx % 6 else ("f16" if idx % 12 else "f32")
        left = TileDesc(a_t, rows_m, rows_k, m, kk, "ColMajor", loc="Left", slayout="RowMajor")
        right = TileDesc(b_t, rows_k, cols_n, kk, n, "RowMajor", loc="Right", slayout="ColMajor")
        acc = TileDesc("f32", rows_m, cols_n, m, n, "ColMajor", loc="Acc", slayout="RowMajor", fractal=1024)
        groups = rows_k // 32
        # ScaleLeft/ScaleRight tiles of more than one 16x2 box column crash the simulator (heap corruption while
        # the call runs): e8m0 scales for K > 64 and the other scale types sit in plain Scaling tiles
        if scale_t == "f8e8m0" and groups == 2:
            sa = TileDesc(scale_t, rows_m, groups, m, -(-kk // 32), "RowMajor", loc="ScaleLeft", slayout="RowMajor",
                          fractal=32)
            sb = TileDesc(scale_t, groups, cols_n, -(-kk // 32), n, "ColMajor", loc="ScaleRight", slayout="ColMajor",
                          fractal=32)
        else:
            per = 32 // np.dtype(NP[scale_t]).itemsize
            sa = TileDesc(scale_t, rows_m, -(-groups // per) * per, m, -(-kk // 32), loc="Scaling")
            sb = TileDesc(scale_t, -(-groups // per) * per, cols_n, -(-kk // 32), n, "ColMajor", loc="Scaling")
        tiles = {"aMatrix": left, "aScaleMatrix": sa, "bMatrix": right, "bScaleMatrix": sb}
        operands = "aMatrix, aScaleMatrix, bMatrix, bScaleMatrix"
        if kind == "plain":
            tiles = {"cMatrix": acc, **tiles}
            call, inputs = f"{name}(cMatrix, {operands})", list(tiles)[1:]
        elif kind == "acc":
            tiles = {"cOutMatrix": acc, "cInMatrix": TileDesc(**vars(acc)), **tiles}
            call, inputs = f"{name}(cOutMatrix, cInMatrix, {operands})", list(tiles)[1:]
        else:
            tiles = {"cMatrix": acc, **tiles, "biasData": TileDesc("f32", 1, cols_n, 1, n, "RowMajor", loc="Bias")}
            call, inputs = f"{name}(cMatrix, {operands}, biasData)", list(tiles)[1:]
        case = Case(op, call, tiles, inputs)
        for role, t in tiles.items():
            if role not in inputs:
                case.data[role] = junk(rng, t)
            elif t.dtype in MX_BYTES:
                case.data[role] = _mx_bytes(rng, t, mode)
            elif role in ("aScaleMatrix", "bScaleMatrix"):
                case.data[role] = (rng.choice([0.5, 1.0, 2.0, 0.75, 3.0, 1.5, -1.0, 0.1], t.rows * t.cols)
                                   ).astype(NP[t.dtype]).tobytes()
            else:
                case.data[role] = fill(rng, t, "small" if mode == "special" else mode)
        cases.append(case)
    return cases


def _quant_word(rng, vector: bool, src: str, dst: str) -> int:
    """A quantisation word (include/pto/cpu/common.hpp quantize_element): a scale (float bits 0..31, or the
    19-bit m1 at bits 13..31 for the fp tile's words), offset (bits 37..45), sign (bit 46), shift (32..35)."""
    scale = float(rng.choice([0.5, 0.03125, 1.0, 3.0, 0.0078125, 300.0] if src == "i32" else
                             [0.5, 1.0, 3.0, 0.25, 40.0, 1e-3]))
    if vector:
        bits = int(np.float32(scale).view(np.uint32))
        m1 = ((bits >> 31) << 18) | (((bits >> 23) & 0xFF) << 10) | ((bits >> 13) & 0x3FF)
        return m1 << 13
    word = int(np.float32(scale).view(np.uint32))
    word |= int(rng.integers(0, 16)) << 32
    if dst in ("i8", "u8"):
        word |= int(rng.integers(0, 3)) * int(rng.integers(0, 100)) << 37
        word |= int(rng.integers(0, 2)) << 46
    return word


def insert_cases(rng, op: str) -> list[Case]:
    """TINSERT (plain, ReLU, scalar-quantised, fp-quantised forms), TINSERT_FP and TEXTRACT_FP. Vec -> Vec ND for
    the plain forms (same type and float -> half), Acc (NZ) -> Mat (NZ) for the quantised ones; the fp tile's
    words are uint32 (bits 13..31 hold m1) or float (whole numbers) in a Vec tile (the simulator reads its row 0
    whatever the location). Square Acc tiles: the scalar form's word vector holds valid-rows words."""
    cases = []
    if op == "tinsert":
        for k, (s, d, shape) in enumerate([("f32", "f32", (8, 32, 3, 9)), ("f16", "f16", (16, 64, 5, 20)),
                                           ("i32", "i32", (4, 16, 4, 16)), ("f32", "f16", (8, 32, 6, 7)),
                                           ("i16", "i16", (8, 32, 8, 11)), ("f32", "f32", (16, 16, 16, 16))]):
            rows, cols, vr, vc = shape
            src = TileDesc(s, rows, cols, vr, vc)
            out = TileDesc(d, 2 * rows, 2 * cols, 2 * rows - k % 2, 2 * cols - 1)
            r0, c0 = int(rng.integers(0, out.valid_row - vr + 1)), int(rng.integers(0, out.valid_col - vc + 1))
            relu = k % 3 == 1 or s == "f32" and k == 5
            call = (f"TINSERT<T_dst, T_src, ReluPreMode::NormalRelu>(dst, src, (uint16_t){r0}, (uint16_t){c0})"
                    if relu else f"TINSERT(dst, src, (uint16_t){r0}, (uint16_t){c0})")
            case = Case(op, call, {"dst": out, "src": src}, ["src"])
            case.data = {"dst": junk(rng, out), "src": fill(rng, src, ["random", "special"][k % 2])}
            if relu:
                case.params["reluMode"] = "NormalRelu"
            _index_params(case, r0, c0)
            cases.append(case)
    pairs = [("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"),
             ("i32", "i16"), ("f32", "i8"), ("i32", "i8"), ("i32", "u8")]
    for k, (s, d) in enumerate(pairs):
        vector = op != "tinsert" or k % 2 == 1
        if vector and (s, d) in (("f32", "f16"),):
            continue
        n = 16 if d != "i8" or k % 2 else 32
        acc = TileDesc(s, n, n, n - k % 3, n - k % 3, "ColMajor", loc="Acc", slayout="RowMajor", fractal=1024)
        m = 32
        mat = TileDesc(d, m, m, m, m, "ColMajor", loc="Mat", slayout="RowMajor")
        if op == "textract_fp":
            mat = TileDesc(d, m, m, min(m, acc.valid_row - 2), min(m, acc.valid_col - 3), "ColMajor", loc="Mat",
                           slayout="RowMajor")
            r0, c0 = int(rng.integers(0, acc.valid_row - mat.valid_row + 1)), \
                int(rng.integers(0, acc.valid_col - mat.valid_col + 1))
        else:
            r0, c0 = int(rng.integers(0, m - acc.valid_row + 1)), int(rng.integers(0, m - acc.valid_col + 1))
        relu = "NormalRelu" if k % 3 == 2 else "NoRelu"
        tiles = {"dst": mat, "src": acc}
        if vector:
            fp_type = "u32" if k % 4 != 3 else "f32"
            fp = TileDesc(fp_type, 1, 32 if fp_type == "f32" else 32, 1, 32)
            tiles["fp"] = fp
            name = "TINSERT_FP" if op != "textract_fp" else "TEXTRACT_FP"
            call = f"{name}<T_dst, T_src, T_fp, ReluPreMode::{relu}>(dst, src, fp, (uint16_t){r0}, (uint16_t){c0})"
        else:
            call = f"TINSERT<T_dst, T_src, ReluPreMode::{relu}>(dst, src, preQuantScalar, (uint16_t){r0}, (uint16_t){c0})"
        case = Case(op, call, tiles, [r for r in tiles if r != "dst"])
        mode = "small" if k % 2 else "random"
        data = values(rng, s, acc.rows * acc.cols, mode)
        if s == "i32":
            data = (rng.integers(-3000, 3000, acc.rows * acc.cols) * (1 + (k % 3) * 500)).astype(np.int32)
        case.data = {"dst": junk(rng, mat), "src": data.tobytes()}
        if vector:
            words = [_quant_word(rng, True, s, d) for _ in range(32)]
            if fp_type == "f32":
                words = [float(w >> 13 << 13) for w in words]  # a whole float whose bits 13.. carry m1
                raw = np.array(words, np.float32)
                raw = np.trunc(raw)
            else:
                raw = np.array(words, np.uint64).astype(np.uint32)
            case.data["fp"] = raw.tobytes()
            if op == "tinsert":
                case.params["form"] = 2
        else:
            case.scalars["preQuantScalar"] = ("u64", np.uint64(_quant_word(rng, False, s, d)).tobytes())
            case.params["form"] = 1
        if relu != "NoRelu":
            case.params["reluMode"] = relu
        _index_params(case, r0, c0)
        cases.append(case)
    return cases


def quant_cases(rng, op: str) -> list[Case]:
    """TQUANT (INT8_SYM and INT8_ASYM; parameter tiles with fewer valid rows than src, so the last one repeats)
    and TDEQUANT (int8 and int16 sources, parameter tiles of 1 or more valid columns)."""
    cases = []
    for k, shape in enumerate([(8, 32, 8, 32), (16, 64, 13, 50), (4, 16, 4, 9), (32, 32, 32, 32), (8, 16, 5, 16),
                               (16, 32, 16, 17)]):
        rows, cols, vr, vc = shape
        if op == "tquant":
            kind = "INT8_SYM" if k % 2 == 0 else "INT8_ASYM"
            src = TileDesc("f32", rows, cols, vr, vc)
            out = TileDesc("i8" if kind == "INT8_SYM" else "u8", rows, max(cols, 32), vr, vc)
            fp = TileDesc("f32", rows, 8, max(1, vr - k % 3), 1)
            tiles = {"dst": out, "src": src, "fp": fp}
            call = f"TQUANT<QuantType::{kind}>(dst, src, fp)"
            if kind == "INT8_ASYM":
                tiles["offset"] = TileDesc("f32", rows, 8, fp.valid_row, 1)
                call = f"TQUANT<QuantType::{kind}>(dst, src, fp, &offset)"
            case = Case(op, call, tiles, [r for r in tiles if r != "dst"])
            data = values(rng, "f32", rows * cols, ["random", "special", "small"][k % 3])
            scale = (rng.choice([0.5, 2.0, 0.01, 10.0, 1.0, 127 / 8], rows * 8)).astype(np.float32)
            case.data = {"dst": junk(rng, out), "src": data.tobytes(), "fp": scale.tobytes()}
            if "offset" in tiles:
                case.data["offset"] = rng.integers(-20, 140, rows * 8).astype(np.float32).tobytes()
            case.params["quantType"] = kind
        else:
            s_type = "i8" if k % 2 == 0 else "i16"
            src = TileDesc(s_type, rows, max(cols, 32), vr, vc)
            out = TileDesc("f32", rows, max(cols, 32), vr, vc)
            para = TileDesc("f32", rows, 8, vr, [1, 8, 3][k % 3])
            tiles = {"dst": out, "src": src, "scale": para, "offset": TileDesc(**vars(para))}
            case = Case(op, "TDEQUANT(dst, src, scale, offset)", tiles, ["src", "scale", "offset"])
            case.data = {"dst": junk(rng, out), "src": fill(rng, src, "random"),
                         "scale": (rng.standard_normal(rows * 8) * 0.1).astype(np.float32).tobytes(),
                         "offset": rng.integers(-30, 30, rows * 8).astype(np.float32).tobytes()}
        cases.append(case)
    return cases


def _index_params(case: Case, r0: int, c0: int) -> None:
    case.params["indexRow"] = {"dtype": "u16", "hex": np.uint16(r0).tobytes().hex(), "value": str(r0)}
    case.params["indexCol"] = {"dtype": "u16", "hex": np.uint16(c0).tobytes().hex(), "value": str(c0)}


def _sort_values(rng, dtype: str, n: int, mode: str) -> np.ndarray:
    """Sort inputs: many ties (small), specials (NaN, +-0, +-inf) or plain random values."""
    if mode == "ties":
        v = rng.integers(-3, 4, n).astype(np.float64)
        if NP[dtype] in (np.float32, np.float16):
            v = np.where(v == 0, rng.choice([0.0, -0.0], n), v)
        return v.astype(NP[dtype])
    return values(rng, dtype, n, "special" if mode == "special" else "random")


def tsort32_cases(rng, op: str) -> list[Case]:
    """TSORT32 (dst, src, idx[, tmp]): whole and partial blocks, several rows, ties in values and in indices,
    NaN and signed zeros; a 3-argument call with a partial block (refused: the page needs validCol % 32 == 0) and a
    1-row idx under a taller src (the simulator writes nothing: erratum tsort32_idx_shape_noop)."""
    shapes = [(1, 32, 1, 32), (4, 64, 4, 64), (2, 128, 2, 96), (3, 96, 3, 96), (2, 64, 2, 40), (1, 256, 1, 200)]
    cases = []
    for dtype in ["f32", "f16", "i32", "i16"]:
        coef = 8 // np.dtype(NP[dtype]).itemsize
        for k, (rows, cols, vr, vc) in enumerate(shapes):
            for mode in (["ties", "special", "random"] if dtype in FLOAT else ["ties", "random"]):
                src = TileDesc(dtype, rows, cols, vr, vc)
                idx = TileDesc("u32", rows, cols, vr, vc)
                dst = TileDesc(dtype, rows, cols * coef, vr, vc * coef)
                tiles = {"dst": dst, "src": src, "idx": idx}
                call = "TSORT32(dst, src, idx)"
                if vc % 32:
                    tiles["tmp"] = TileDesc(dtype, 1, cols, 1, cols)
                    call = "TSORT32(dst, src, idx, tmp)"
                case = Case(op, call, tiles, ["src", "idx"] + (["tmp"] if "tmp" in tiles else []),
                            params={"form": 1} if "tmp" in tiles else {})
                case.data["src"] = _sort_values(rng, dtype, rows * cols, mode).tobytes()
                ids = np.arange(rows * cols, dtype=np.uint32) if mode == "random" else \
                    rng.integers(0, 6, rows * cols).astype(np.uint32)  # duplicate indices: stable order decides
                case.data["idx"] = ids.tobytes()
                case.data["dst"] = junk(rng, dst)
                if "tmp" in tiles:
                    case.data["tmp"] = junk(rng, tiles["tmp"])
                cases.append(case)
        src, idx = TileDesc(dtype, 1, 64, 1, 40), TileDesc("u32", 1, 64, 1, 40)
        dst = TileDesc(dtype, 1, 64 * coef, 1, 40 * coef)
        case = Case(op, "TSORT32(dst, src, idx)", {"dst": dst, "src": src, "idx": idx}, ["src", "idx"],
                    expect="reject", reason="validCol % 32 != 0 without tmp (docs/isa/TSORT32.md constraints)")
        case.data.update(src=_sort_values(rng, dtype, 64, "random").tobytes(),
                         idx=np.arange(64, dtype=np.uint32).tobytes(), dst=junk(rng, dst))
        cases.append(case)
        src, idx = TileDesc(dtype, 2, 32, 2, 32), TileDesc("u32", 2, 32, 1, 32)
        dst = TileDesc(dtype, 2, 32 * coef, 2, 32 * coef)
        case = Case(op, "TSORT32(dst, src, idx)", {"dst": dst, "src": src, "idx": idx}, ["src", "idx"])
        case.data.update(src=_sort_values(rng, dtype, 64, "random").tobytes(),
                         idx=np.arange(64, dtype=np.uint32).tobytes(), dst=junk(rng, dst))
        cases.append(case)
    return cases


def _sorted_pairs(rng, dtype: str, pairs: int, mode: str, presorted: bool = True) -> bytes:
    """`pairs` 8-byte (value, index) structs; values sorted descending unless `presorted` is False."""
    item = np.dtype(NP[dtype]).itemsize
    k = 8 // item
    v = _sort_values(rng, dtype, pairs, mode)
    if presorted:
        with np.errstate(invalid="ignore"):
            v = v[np.argsort(-v.astype(np.float64), kind="stable")]
    words = np.zeros(pairs * k, dtype=NP[dtype])
    words[::k] = v
    raw = bytearray(words.tobytes())
    ids = rng.integers(0, 1 << 32, pairs, dtype=np.uint64).astype(np.uint32)
    for p in range(pairs):
        raw[p * 8 + 4:p * 8 + 8] = ids[p].tobytes()
    return bytes(raw)


def tmrgsort_cases(rng, op: str) -> list[Case]:
    """TMRGSORT: the single-list merge (blockLen 64, 128, 256 over 1-4 groups) and the 2-4 list merges, exhausted
    or not, with equal values across lists (the lower list first), NaN, unsorted lists, lists of unequal and zero
    length and a dst shorter than the sources. `params.executed` holds the counts the simulator wrote."""
    cases = []
    for dtype in ["f32", "f16"]:
        for block_len, groups, mode in [(64, 1, "random"), (64, 4, "ties"), (128, 2, "special"), (256, 1, "ties")]:
            cols = 4 * block_len * groups
            per = block_len * np.dtype(NP[dtype]).itemsize // 8
            src, dst = TileDesc(dtype, 1, cols, 1, cols), TileDesc(dtype, 1, cols, 1, cols)
            case = Case(op, "TMRGSORT(dst, src, blockLen)", {"dst": dst, "src": src}, ["src"])
            case.data["src"] = b"".join(_sorted_pairs(rng, dtype, per, mode) for _ in range(4 * groups))
            case.data["dst"] = junk(rng, dst)
            case.scalars["blockLen"] = ("u32", np.uint32(block_len).tobytes())
            cases.append(case)
        k = 8 // np.dtype(NP[dtype]).itemsize
        shapes = [(2, [32, 32], 64, False, "ties"), (2, [32, 16], 48, True, "ties"), (3, [16, 32, 24], 72, False,
                  "special"), (3, [24, 24, 24], 72, True, "random"), (4, [16, 16, 16, 16], 64, False, "ties"),
                  (4, [32, 8, 16, 24], 80, True, "ties"), (2, [32, 32], 40, False, "random"),
                  (2, [32, 0], 32, True, "ties"), (4, [8, 8, 8, 8], 32, False, "unsorted"),
                  (3, [8, 16, 8], 32, True, "special")]
        for n, sizes, out_pairs, exhausted, mode in shapes:
            tiles = {"dst": TileDesc(dtype, 1, max(out_pairs, 8) * k, 1, out_pairs * k)}
            total = sum(max(s, 8) for s in sizes) * k
            tiles["tmp"] = TileDesc(dtype, 1, total, 1, total)
            names = [f"src{i}" for i in range(n)]
            for name, size in zip(names, sizes):
                tiles[name] = TileDesc(dtype, 1, max(size, 8) * k, 1, size * k)
            types = ", ".join(["T_dst", "T_tmp", *[f"T_{nm}" for nm in names]])
            call = (f"MrgSortExecutedNumList executed{{7, 7, 7, 7}}; TMRGSORT<{types}, {str(exhausted).lower()}>"
                    f"(dst, executed, tmp, {', '.join(names)}); EXECUTED = executed")
            case = Case(op, call, tiles, names, params={"form": n - 1, "exhausted": "TRUE" if exhausted else "FALSE"})
            for name, size in zip(names, sizes):
                t = tiles[name]
                body = _sorted_pairs(rng, dtype, size, "ties" if mode == "unsorted" else mode, mode != "unsorted")
                case.data[name] = body + junk(rng, t)[len(body):]
            case.data["dst"] = junk(rng, tiles["dst"])
            case.data["tmp"] = junk(rng, tiles["tmp"])
            cases.append(case)
    return cases


# --- TRANDOM THISTOGRAM TPACK TGET_SCALE_ADDR -------------------------------------------------------------------
def _u32(value: int) -> tuple[str, bytes]:
    return ("u32", np.uint32(value % 2**32).tobytes())


def trandom_cases(rng, op: str) -> list[Case]:
    """TRANDOM: int32 and uint32 dsts, Rounds 7 and 10, rows of one or several 256-column chunks, partial chunks
    (valid columns not a multiple of 64 or 256), a stride (Cols) wider than the valid columns, and counters whose
    low words are about to carry (the 128-bit increment). Most cases pass the six words as scalars (form 1, as
    PTOAS's helper does); a few write the key and counter into the call (form 0, `params.key`/`params.counter`)."""
    shapes = [(4, 256, 4, 256), (2, 256, 2, 256), (3, 512, 3, 300), (2, 128, 2, 100), (1, 64, 1, 64),
              (5, 1024, 5, 1000), (2, 512, 2, 256), (3, 64, 2, 40), (1, 768, 1, 520), (16, 16, 16, 16)]
    counters = [(0, 0, 0, 0), (0xFFFFFFF0, 0, 0, 0), (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFF0),
                (16, 32, 48, 64)]
    cases = []
    for k, (rows, cols, vr, vc) in enumerate(shapes):
        for dtype in ("i32", "u32"):
            for rounds in (10, 7):
                d = TileDesc(dtype, rows, cols, vr, vc, valid_kind="static" if k % 2 else "dynamic")
                key = [int(x) for x in rng.integers(0, 2**32, 2, dtype=np.uint64)]
                counter = counters[(k + rounds) % len(counters)] if k % 3 else \
                    tuple(int(x) for x in rng.integers(0, 2**32, 4, dtype=np.uint64))
                form0 = k % 4 == 3 and rounds == 10
                if form0:
                    call = (f"TRandomKey key = {{{key[0]}u, {key[1]}u}}; TRandomCounter counter = "
                            f"{{{counter[0]}u, {counter[1]}u, {counter[2]}u, {counter[3]}u}}; "
                            f"TRANDOM<{rounds}>(dst, key, counter)")
                    case = Case(op, call, {"dst": d}, [], params={"form": 0, "rounds": f"R{rounds}",
                                                                  "key": key, "counter": list(counter)})
                else:
                    call = ("TRandomKey key = {key0, key1}; TRandomCounter counter = {counter0, counter1, "
                            f"counter2, counter3}}; TRANDOM<{rounds}>(dst, key, counter)")
                    case = Case(op, call, {"dst": d}, [], params={"form": 1, "rounds": f"R{rounds}"})
                    for name, value in zip(("key0", "key1", "counter0", "counter1", "counter2", "counter3"),
                                           (*key, *counter)):
                        case.scalars[name] = _u32(value)
                case.data["dst"] = junk(rng, d)
                cases.append(case)
    return cases


def _hist_src(rng, dtype: str, n: int, filters: list[int]) -> np.ndarray:
    """Elements whose bytes above the low one come from a few values (the filter bytes among them), so that the
    cascaded filters keep some elements and drop others."""
    item = np.dtype(NP[dtype]).itemsize
    low = rng.integers(0, 256, n, dtype=np.int64)
    value = low.copy()
    for b in range(1, item):
        want = filters[item - 1 - b] if item - 1 - b < len(filters) else int(rng.integers(0, 256))
        choices = np.array([want, want, (want + 1) % 256, int(rng.integers(0, 256))], dtype=np.int64)
        value |= rng.choice(choices, n) << (8 * b)
    return value.astype(NP[dtype])


def thistogram_cases(rng, op: str) -> list[Case]:
    """THISTOGRAM: uint16 sources (BYTE_1 unfiltered; BYTE_0 filtered by a per-row byte of a 1-column DN idx) and
    uint32 sources (BYTE_3 unfiltered; BYTE_2, BYTE_1, BYTE_0 filtered by idx[0..2, 0], the other idx columns
    junk), partial valid regions, dsts wider than 256 bins."""
    shapes = [(2, 32, 2, 16), (8, 32, 8, 32), (4, 64, 3, 50), (1, 256, 1, 256), (5, 128, 5, 128), (3, 512, 3, 500)]
    cases = []
    for k, (rows, cols, vr, vc) in enumerate(shapes):
        for dtype, byte in (("u16", 1), ("u16", 0), ("u32", 3), ("u32", 2), ("u32", 1), ("u32", 0)):
            item = np.dtype(NP[dtype]).itemsize
            s = TileDesc(dtype, rows, cols, vr, vc)
            dcols = 264 if k % 3 == 2 else 256
            d = TileDesc("u32", rows, dcols, vr, dcols)
            if dtype == "u16":
                i = TileDesc("u8", max(32, -(-rows // 32) * 32), 1, vr, 1, "ColMajor")
                filt = rng.integers(0, 256, i.rows).astype(np.uint8)
                data_i = filt.tobytes()
                src = np.concatenate([_hist_src(rng, dtype, cols, [int(filt[r])]) for r in range(rows)])
            else:
                n_rows = max(3 - byte, 1)
                icols = cols if byte < 3 else 32
                i = TileDesc("u8", n_rows, icols, n_rows, icols)
                filt = [int(x) for x in rng.integers(0, 256, 3)]
                raw = rng.integers(0, 256, n_rows * icols).astype(np.uint8).reshape(n_rows, icols)
                for r in range(min(n_rows, 3 - byte)):
                    raw[r, 0] = filt[r]
                data_i = raw.tobytes()
                src = _hist_src(rng, dtype, rows * cols, filt)
            case = Case(op, f"THISTOGRAM<HistByte::BYTE_{byte}>(dst, src, idx)", {"dst": d, "src": s, "idx": i},
                        ["src", "idx"], params={"byte": f"BYTE_{byte}"})
            case.data.update(src=src.tobytes(), idx=data_i, dst=junk(rng, d))
            cases.append(case)
    return cases


def tpack_cases(rng, op: str) -> list[Case]:
    """TPACK, from the simulator before its removal (83f16ef4^): narrowing and widening integer pairs (wrap,
    sign and zero extension), float <-> half with specials, integers to floats, and floats to integers in range."""
    pairs = [("i32", "i16"), ("i32", "i8"), ("i16", "i8"), ("u32", "u16"), ("u32", "u8"), ("u16", "u8"),
             ("i32", "u16"), ("i16", "i32"), ("u8", "i32"), ("i8", "u16"), ("f32", "f16"), ("f16", "f32"),
             ("i32", "f32"), ("i32", "f16"), ("i16", "f16"), ("f32", "i16"), ("f16", "i32"), ("f32", "i32")]
    cases = []
    for n, (a, b) in enumerate(pairs):
        for k, shape in enumerate(SHAPES[n % 3::3]):
            s, d = _tile(a, shape), _tile(b, shape)
            vc = min(s.valid_col, d.valid_col)
            s.valid_col = d.valid_col = vc
            if k % 2:
                d.valid_kind = s.valid_kind = "static"
            mode = "small" if np.dtype(NP[a]).kind == "f" and np.dtype(NP[b]).kind in "iu" else \
                ("special" if a in FLOAT and b in FLOAT else "random")
            case = Case(op, "TPACK(dst, src)", {"dst": d, "src": s}, ["src"])
            case.data.update(src=fill(rng, s, mode), dst=junk(rng, d))
            cases.append(case)
    return cases


def tget_scale_addr_cases(rng, op: str) -> list[Case]:
    """TGET_SCALE_ADDR on the simulator: dst's data pointer becomes src's, so dst then holds src's first bytes
    (whatever the two element types); a dst larger than src is refused by ptoisa (the simulator would read past
    src)."""
    combos = [(("f32", 4, 32), ("f16", 4, 32)), (("i32", 8, 8), ("i32", 8, 8)), (("u8", 2, 64), ("u16", 1, 16)),
              (("f16", 16, 16), ("u8", 4, 32)), (("i16", 3, 16), ("f32", 1, 8))]
    cases = []
    for (sa, sr, sc), (da, dr, dc) in combos:
        s, d = TileDesc(sa, sr, sc, sr, sc, valid_kind="static"), TileDesc(da, dr, dc, dr, dc, valid_kind="static")
        case = Case(op, "TGET_SCALE_ADDR(dst, src)", {"dst": d, "src": s}, ["src"])
        case.data.update(src=fill(rng, s, "random"), dst=junk(rng, d))
        cases.append(case)
    s, d = TileDesc("f16", 1, 16, 1, 16, valid_kind="static"), TileDesc("f32", 1, 16, 1, 16, valid_kind="static")
    case = Case(op, "TGET_SCALE_ADDR(dst, src)", {"dst": d, "src": s}, ["src"], expect="reject",
                reason="dst (64 bytes) larger than src (32 bytes): reading dst would read past src")
    case.data.update(src=fill(rng, s, "random"), dst=junk(rng, d))
    cases.append(case)
    return cases


def _with_tmp(rng, cases: list[Case], call: str) -> list[Case]:
    for c in cases:
        c.tiles["tmp"] = TileDesc(**vars(c.tiles["dst"]))
        c.data["tmp"] = junk(rng, c.tiles["tmp"])
        c.call = call
    return cases


# --- TFMOD TPOW TPOWS TPRELU TPARTARGMAX TPARTARGMIN ------------------------------------------------------------
def _edge_case(rng, op: str, dtype: str, roles: list[str]) -> Case:
    """One 4 x 32 case whose sources are all edge values (NaN payloads, +-inf, +-0.0, subnormals, the ends)."""
    desc = _tile(dtype, (4, 32, 4, 32))
    case = Case(op, "", {r: TileDesc(**vars(desc)) for r in roles}, [r for r in roles if r != "dst"])
    case.data = {r: junk(rng, desc) if r == "dst" else edge_values(rng, dtype, 128).tobytes() for r in roles}
    return case


def _int_powers_in_range(base: np.ndarray, exp, dtype: str) -> np.ndarray:
    """Bases replaced (by -2..2, and 0 by 1 under a negative exp) where base ** exp leaves the type's range: the
    simulator's TPOWS converts std::pow's double to the integer type, undefined outside it."""
    info = np.iinfo(NP[dtype])
    b = base.astype(np.float64)
    with np.errstate(all="ignore"):
        r = np.trunc(np.power(b, np.asarray(exp, np.float64)))
    bad = ~(np.isfinite(r) & (r >= info.min) & (r <= info.max))
    small = np.array([1, -1, 2, -2, 1] if info.min else [1, 0, 2, 3, 1])[np.arange(b.size) % 5]
    fixed = np.where(bad, small, b)
    with np.errstate(all="ignore"):
        r = np.trunc(np.power(fixed, np.asarray(exp, np.float64)))
    fixed = np.where(np.isfinite(r) & (r >= info.min) & (r <= info.max), fixed, 1)
    return fixed.astype(NP[dtype])


SMALL_SHAPES = [(1, 32, 1, 32), (4, 32, 3, 32), (4, 64, 3, 40), (8, 32, 8, 7)]  # the newer ops' vectors: small


def power_cases(rng, op: str) -> list[Case]:
    """TFMOD (nonzero integer divisors; float zero divisors in the special and edge cases), TPRELU, TPOW and
    TPOWS (exponents small enough to keep results finite and in range; negative bases, integral and fractional
    exponents, NaN and infinite exponents among the specials), each with an all-edge-values case per float type."""
    floats = FLOAT
    shapes = None if WIDE else SMALL_SHAPES
    if op == "tfmod":
        cases = binary(rng, op, _wide(FLOAT + ["i32", "i16"]), shapes)
        for c in cases:
            _nonzero_divisors(c)
        for t in floats:
            cases.append(_edge_case(rng, op, t, ["dst", "src0", "src1"]))
        for c in cases:
            c.call = "TFMOD(dst, src0, src1)"
        return cases
    if op == "tprelu":
        cases = binary(rng, op, _wide(FLOAT + ["i32", "i16", "i8"]), shapes) + \
            [_edge_case(rng, op, t, ["dst", "src0", "src1"]) for t in floats]
        for c in cases:  # tmp: the A2/A3 compare-mask form (uint8, a row more than dst); the simulator ignores it
            d = c.tiles["dst"]
            c.tiles["tmp"] = TileDesc("u8", d.rows + 1, 32, d.valid_row + 1, 32)
            c.data["tmp"] = junk(rng, c.tiles["tmp"])
            c.call = "TPRELU(dst, src0, src1, tmp)"
        return cases
    roles = ["dst", "base", "exp"] if op == "tpow" else ["dst", "base"]
    cases = same_shape_cases(rng, op, "", roles, _wide(FLOAT + INTS), ["random", "special", "small"],
                             shapes=shapes)
    cases += [_edge_case(rng, op, t, roles) for t in floats]
    scalars = [2.0, 0.5, -1.0, 3.0, -2.5, 0.0, 1 / 3, -0.0, float("nan"), float("inf"), -3.0, 7.0]
    for k, c in enumerate(cases):
        d = c.tiles["dst"]
        n = d.rows * d.cols
        kind = np.dtype(NP[d.dtype]).kind
        base = np.frombuffer(c.data["base"], NP[d.dtype]).copy()
        if op == "tpow":
            if kind == "f":
                picks = np.array([-3, -2, -1, 0, 1, 2, 3, 4, 0.5, -0.5, 1.5, 2.5], np.float64)
                e = np.where(rng.random(n) < 0.6, picks[rng.integers(0, picks.size, n)], rng.standard_normal(n) * 3)
                special = np.frombuffer(c.data["exp"], NP[d.dtype])
                e = np.where(rng.random(n) < (0.3 if k % 3 == 1 or k >= len(cases) - len(floats) else 0), special, e)
                c.data["exp"] = e.astype(NP[d.dtype]).tobytes()
            else:
                info = np.iinfo(NP[d.dtype])
                e = rng.integers(-3 if kind == "i" else 0, 40, n)
                if d.dtype == "u32":  # exponents past 2**31 (A2/A3 reads them as negative ints)
                    e = np.where(rng.random(n) < 0.2, rng.integers(2 ** 31, 2 ** 32, n), e)
                c.data["exp"] = np.asarray(e).astype(np.int64).astype(NP[d.dtype]).tobytes()
                if k % 3 == 2:
                    base = rng.integers(max(info.min, -5), min(info.max, 5) + 1, n).astype(NP[d.dtype])
                c.data["base"] = base.tobytes()
        else:
            if kind == "f":
                s = np.asarray(scalars[k % len(scalars)]).astype(NP[d.dtype])
            else:
                info = np.iinfo(NP[d.dtype])
                s = np.asarray(int(rng.integers(-2 if kind == "i" else 0, 9))).astype(NP[d.dtype])
                base = _int_powers_in_range(base, s, d.dtype)
                c.data["base"] = base.tobytes()
            c.scalars["exp"] = (d.dtype, s.tobytes())
    if op == "tpows":  # a power past int8's range: std::pow's double converts with undefined behaviour
        over = Case(op, "", {r: TileDesc("i8", 1, 32, 1, 32) for r in roles}, ["base"],
                    expect="reject", reason="a power outside int8's range converts from double with undefined "
                                            "behaviour in C++")
        over.data = {"dst": junk(rng, over.tiles["dst"]), "base": np.full(32, 100, np.int8).tobytes()}
        over.scalars["exp"] = ("i8", np.int8(3).tobytes())
        cases.append(over)
    return _with_tmp(rng, cases, "TPOW(dst, base, exp, tmp)" if op == "tpow" else "TPOWS(dst, base, exp, tmp)")


def partarg_cases(rng, op: str) -> list[Case]:
    """TPARTARGMAX / TPARTARGMIN: every value type the simulator takes with index types of each width, the four
    validity patterns (equal, src1 fewer rows, src1 fewer columns, src0 smaller in both), ties (small values) and
    NaNs and signed zeros (the special mode); index tiles shaped as their value tiles."""
    pairs = [("f32", "u32"), ("f32", "i32"), ("f16", "i16"), ("f16", "u32"), ("i32", "i32"), ("i16", "u16"),
             ("u8", "u8")]
    cases = []
    for k, (v, i) in enumerate(pairs):
        for p, (rows, cols, vr, vc) in enumerate([(2, 32, 2, 32), (4, 32, 3, 20), (3, 32, 3, 17), (2, 32, 2, 32)]):
            pattern = (k + p) % 4
            small = [(vr, vc), (max(1, vr - 2), vc), (vr, max(1, vc - 9)), (max(1, vr - 1), max(1, vc // 2))][pattern]
            shapes = {"dst": (vr, vc), "src0": small if pattern == 3 else (vr, vc),
                      "src1": (vr, vc) if pattern == 3 else small}
            tiles = {}
            for role in ("dst", "src0", "src1"):
                tiles[role] = TileDesc(v, rows, cols, *shapes[role])
                tiles[role + "Idx"] = TileDesc(i, rows, cols, *shapes[role])
            case = Case(op, f"{op.upper()}(dst, src0, src1, dstIdx, src0Idx, src1Idx)", tiles,
                        ["src0", "src1", "src0Idx", "src1Idx"])
            mode = ["small", "special", "random", "small"][p]
            for role, t in tiles.items():
                if role.startswith("dst"):
                    case.data[role] = junk(rng, t)
                elif role.endswith("Idx"):
                    case.data[role] = values(rng, i, rows * cols, "random").tobytes()
                else:
                    case.data[role] = fill(rng, t, mode)
            cases.append(case)
    return cases


# --- the seed instructions (TEXPANDS TCMPS TCI TPARTMUL TGATHER) ---------------------------------------------
# Written to seed_<op>.jsonl.gz, in the record layout of tests/data/conformance (overload names, `params` keys).
# `expect` follows ptoisa's contract (docs/semantics.md), worked out here from the shapes, not from ptoisa.
SEED_OPS = ("texpands", "tcmps", "tci", "tpartmul", "tgather")
ALL = FLOAT + INTS
KINDS = ("static", "dynamic", "dyn_row", "dyn_col")
BOXES = [("ColMajor", "RowMajor"), ("RowMajor", "ColMajor"), ("RowMajor", "RowMajor"), ("ColMajor", "ColMajor")]
PATTERNS = {"P0101": (0, 2), "P1010": (1, 2), "P0001": (0, 4), "P0010": (1, 4), "P0100": (2, 4), "P1000": (3, 4),
            "P1111": (0, 1)}  # MaskSelect (include/pto/cpu/TGather.hpp:37-59): index % period == phase


def _item(dtype: str) -> int:
    return np.dtype(NP[dtype]).itemsize


def _pick(rng, options):
    return options[int(rng.integers(len(options)))]


def _count(rng, n: int, zero: bool = True) -> int:
    """A valid size out of n: all, some, one, or (dynamic only) none."""
    roll = rng.random()
    if roll < 0.4 or n == 1 and not zero:
        return n
    if roll < 0.75:
        return int(rng.integers(1, n + 1))
    if roll < 0.9 or not zero:
        return 1
    return 0


def _kind(rng, vr: int, vc: int) -> str:
    """Which valid sizes are runtime values; a static valid size must be positive."""
    return _pick(rng, [k for k in KINDS if (vr > 0 or k in ("dynamic", "dyn_row"))
                       and (vc > 0 or k in ("dynamic", "dyn_col"))])


def _inner(dtype: str, slayout: str, fractal: int = 512) -> tuple[int, int]:
    """A box's (InnerRows, InnerCols) (pto_tile.hpp getInnerRow/getInnerCol)."""
    if fractal == 1024:
        return 16, 16
    return (16, 32 // _item(dtype)) if slayout == "RowMajor" else (32 // _item(dtype), 16)


def _shaped(rng, dtype: str, layout: str, loc: str = "Vec", rows=(1, 2, 3, 4, 5, 8, 16), mult=(1, 2, 3, 4),
            vr: int | None = None, vc: int | None = None, kind: str | None = None, zero: bool = True) -> TileDesc:
    """A tile of a layout: "RowMajor", "ColMajor" (plain) or "Nz", "Zn", "Zz", "Nn" (boxed, fractal 512), with
    random legal storage and valid sizes (given ones are kept, growing the storage to hold them)."""
    per = 32 // _item(dtype)
    if layout in ("RowMajor", "ColMajor"):
        free, aligned = int(_pick(rng, rows)), per * int(_pick(rng, mult))
        r, c = (free, aligned) if layout == "RowMajor" else (aligned, free)
        if vr is not None and vr > r:
            r = vr if layout == "RowMajor" else -(-vr // per) * per
        if vc is not None and vc > c:
            c = -(-vc // per) * per if layout == "RowMajor" else vc
        bl, sl = layout, "NoneBox"
    else:
        bl, sl = BOXES[["Nz", "Zn", "Zz", "Nn"].index(layout)]
        ir, ic = _inner(dtype, sl)
        r, c = ir * int(_pick(rng, (1, 2))), ic * int(_pick(rng, (1, 2, 3)))
        r = max(r, -(-(vr or 0) // ir) * ir)
        c = max(c, -(-(vc or 0) // ic) * ic)
    vr = _count(rng, r, zero) if vr is None else vr
    vc = _count(rng, c, zero) if vc is None else vc
    return TileDesc(dtype, r, c, vr, vc, bl, loc=loc, slayout=sl, valid_kind=kind or _kind(rng, vr, vc))


def filler(rng, desc: TileDesc) -> bytes:
    """Initial bytes of a written tile: a byte ramp from a random start (changed bytes show; it compresses)."""
    start, step = (int(x) for x in rng.integers(0, 256, 2))
    return ((np.arange(desc.nbytes) * (step | 1) + start) % 256).astype(np.uint8).tobytes()


FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-45, 6e-8, -6.1e-5, 65504.0, -65504.0, 3.4e38,
                  -3.4e38, 1e-9, -1e-9, 1.0, -1.0, 0.5, 2049.0]
NAN_BITS = {"f32": [0x7FC00001, 0x7F800001, 0xFFC00000, 0xFFFFFFFF], "f16": [0x7E01, 0x7C01, 0xFE00, 0xFFFF]}


def seed_scalar(rng, dtype: str) -> np.ndarray:
    """One value of the type: specials (NaN payloads, infinities, signed zeros, denormals, extremes) or random."""
    t = NP[dtype]
    roll = rng.random()
    if np.dtype(t).kind == "f":
        if roll < 0.1:
            bits = np.array([_pick(rng, NAN_BITS[dtype])], dtype=np.uint32 if dtype == "f32" else np.uint16)
            return bits.view(t)
        if roll < 0.5:
            with np.errstate(over="ignore"):
                return np.array([_pick(rng, FLOAT_SPECIALS)]).astype(t)
        return values(rng, dtype, 1, _pick(rng, ["random", "small"]))
    info = np.iinfo(t)
    if roll < 0.4:
        return np.array([_pick(rng, [info.min, info.max, 0, 1, info.max - 1, info.min + 1])]).astype(t)
    return values(rng, dtype, 1, _pick(rng, ["random", "small"]))


def seed_values(rng, desc: TileDesc, mode: str, near: np.ndarray | None = None) -> bytes:
    """Tile data: `values` modes, "tiny" (around 1e-9, the simulator's EQ tolerance) and "near" (the scalar
    `near` itself, its neighbours and the tolerance's edges mixed into random data)."""
    n = desc.rows * desc.cols
    t = NP[desc.dtype]
    if mode == "tiny" and np.dtype(t).kind == "f":
        pool = np.array([0.0, -0.0, 1e-10, -5e-10, 9.9e-10, 1e-9, -1e-9, 1.0001e-9, 2e-9, 1e-40, 1e-45, 1e-30])
        return pool[rng.integers(0, pool.size, n)].astype(t).tobytes()
    x = values(rng, desc.dtype, n, "special" if mode == "special" else ("small" if mode == "near" else mode))
    if mode == "near" and near is not None:
        s = near.astype(t)
        with np.errstate(all="ignore"):
            if np.dtype(t).kind == "f":
                around = [s, np.nextafter(s, t(np.inf)), np.nextafter(s, t(-np.inf)), s + t(1e-9), s - t(1e-9),
                          s + t(5e-10)]
            else:
                info = np.iinfo(t)
                around = [s, s + t(1) if s < info.max else s, s - t(1) if s > info.min else s]
        around = np.concatenate([np.asarray(a, dtype=t).reshape(-1) for a in around])
        pick = rng.random(n) < 0.5
        x = np.where(pick, around[rng.integers(0, around.size, n)], x).astype(t)
    return x.tobytes()


def _box_layouts(dtype: str) -> list[str]:
    return ["Nz", "Zn", "Zz", "Nn"]


# TEXPANDS ---------------------------------------------------------------------------------------------------
TEXPANDS_OVERLOADS = ["vec_rowmajor", "vec_rowmajor", "vec_colmajor", "vec_colmajor", "vec_boxed", "mat", "mat",
                      "other_loc"]


def texpands_cases(rng) -> list[Case]:
    cases = []
    for k in range(320):
        dtype = ALL[k % len(ALL)]
        overload = TEXPANDS_OVERLOADS[k // len(ALL) % len(TEXPANDS_OVERLOADS)]
        dst = _texpands_tile(rng, dtype, overload)
        case = Case("texpands", "TEXPANDS(dst, scalar)", {"dst": dst}, [], overload=overload)
        case.data["dst"] = filler(rng, dst)
        case.scalars["scalar"] = (dtype, seed_scalar(rng, dtype).tobytes())
        case.params.update(dtype=dtype, valid_kind=dst.valid_kind)
        cases.append(case)
    return cases


def _texpands_tile(rng, dtype: str, overload: str) -> TileDesc:
    if overload == "vec_rowmajor":
        return _shaped(rng, dtype, "RowMajor")
    if overload == "vec_colmajor":
        return _shaped(rng, dtype, "ColMajor", rows=(1, 2, 3, 5, 8, 16))
    if overload == "vec_boxed":
        return _shaped(rng, dtype, _pick(rng, _box_layouts(dtype)))
    if overload == "mat":
        return _shaped(rng, dtype, _pick(rng, ["Nz", "Zn", "Zz", "Nn", "Nz", "RowMajor"]), loc="Mat")
    loc = _pick(rng, ["Left", "Right", "Acc", "Bias", "Scaling"])
    if loc in ("Bias", "Scaling"):
        return _shaped(rng, dtype, "RowMajor", loc=loc, rows=(1,))
    tile = _shaped(rng, dtype, _pick(rng, ["Nz", "Zn"]), loc=loc)
    if loc == "Acc" and _item(dtype) == 4:  # the accumulator's 16x16 boxes
        tile.fractal = 1024
        tile.rows, tile.cols = 16 * -(-tile.rows // 16), 16 * -(-tile.cols // 16)
    return tile


# TCMPS ------------------------------------------------------------------------------------------------------
CMP_MODES = ["EQ", "NE", "LT", "LE", "GT", "GE"]
DST_VARIANTS = ["rowpacked", "rowpacked", "linear", "mismatch", "mismatch", "other_dtype", "fewer_rows",
                "narrow", "dst_layout", "src_layout"]


def tcmps_cases(rng) -> list[Case]:
    cases = []
    for k in range(360):
        dtype = ALL[k % len(ALL)]
        mode = CMP_MODES[k // len(ALL) % len(CMP_MODES)]
        variant = DST_VARIANTS[int(rng.integers(len(DST_VARIANTS)))]
        value_mode = _pick(rng, ["random", "special", "small", "near", "near"] +
                           (["tiny", "tiny"] if dtype in FLOAT else []))
        cases.append(_tcmps_case(rng, dtype, mode, variant, value_mode))
    for k, dtype in enumerate(ALL):  # Mat operands: the simulator runs them, the contract refuses (DECISIONS 27)
        case = _tcmps_case(rng, dtype, CMP_MODES[k % 6], "rowpacked", "random")
        case.tiles["src0"].loc = "Mat"
        case.tiles["src0"].blayout, case.tiles["src0"].slayout = "ColMajor", "RowMajor"
        ir, ic = _inner(dtype, "RowMajor")
        case.tiles["src0"].rows = ir * -(-case.tiles["src0"].rows // ir)
        case.tiles["src0"].cols = ic * -(-case.tiles["src0"].cols // ic)
        case.data["src0"] = seed_values(rng, case.tiles["src0"], "random")
        case.expect, case.reason = "reject", "TCMPS operands must be Vec tiles on every profile (DECISIONS 27)"
        cases.append(case)
    return cases


def _tcmps_case(rng, dtype: str, mode: str, variant: str, value_mode: str) -> Case:
    layout = "RowMajor"
    if variant == "src_layout":
        layout = _pick(rng, ["ColMajor", "Nz", "Zn", "Zz", "Nn"])
    src = _shaped(rng, dtype, layout)
    need = -(-src.valid_col // 8)
    ddtype = "u8" if variant != "other_dtype" else _pick(rng, ["i8", "u16", "i16", "u32", "i32", "f32", "f16"])
    dvr = src.valid_row
    if variant == "fewer_rows":
        dvr = _pick(rng, [x for x in range(max(src.rows, 2) + 1) if x != src.valid_row])
    dvc = need
    if variant == "linear":
        dvc = max(need, 32 // _item(ddtype) * int(_pick(rng, (1, 2))))
    elif variant == "mismatch":
        dvc = int(rng.integers(max(0, need - 2), need + 6))
    elif variant == "narrow":
        dvc = max(0, need - 1)
    dlayout = _pick(rng, ["ColMajor", "Nz", "Zz", "RowMajor"]) if variant == "dst_layout" else "RowMajor"
    dst = _shaped(rng, ddtype, dlayout, rows=(max(dvr, 1),), mult=(1,), vr=dvr, vc=dvc,
                  kind=_pick(rng, ["dynamic", "dynamic", "dyn_col"]) if dvr else "dynamic")
    if dst.valid_kind == "dyn_col" and dst.valid_row == 0:
        dst.valid_kind = "dynamic"
    case = Case("tcmps", f"TCMPS(dst, src0, scalar, CmpMode::{mode})", {"src0": src, "dst": dst}, ["src0"],
                overload="scalar")
    scalar = seed_scalar(rng, dtype)
    if value_mode == "tiny":
        scalar = np.array([_pick(rng, [0.0, 1e-9, -1e-9, 5e-10, 1e-40, 2e-9])]).astype(NP[dtype])
    case.scalars["scalar"] = (dtype, scalar.tobytes())
    case.data["src0"] = seed_values(rng, src, value_mode, scalar)
    case.data["dst"] = filler(rng, dst)
    case.params.update(dtype=dtype, cmp_mode=mode, dst_variant=variant, value_mode=value_mode)
    if dst.valid_row != src.valid_row:
        case.expect, case.reason = "reject", "dst and src0 valid rows differ"
    elif dst.valid_col < need:
        case.expect, case.reason = "reject", "dst valid cols cannot hold the packed predicate"
    return case


# TCI --------------------------------------------------------------------------------------------------------
def tci_cases(rng) -> list[Case]:
    cases = []
    for k in range(300):
        dtype = ALL[k % len(ALL)]
        descending = k // len(ALL) % 2
        per = 32 // _item(dtype)
        dst = _shaped(rng, dtype, "RowMajor", rows=(1,), mult=(1, 2, 3, 4, 8))
        if k % 37 == 5 or k % 16 == 9:  # sequences past 2048: half cannot hold every index (C++ converts j first)
            n = 4096 if dtype in FLOAT else 4096 // _item(dtype)
            dst = TileDesc(dtype, 1, n, 1, n - int(rng.integers(0, 5)))
        if k % 29 == 3:
            dst = _shaped(rng, dtype, "Nz", rows=(1,), vr=1)  # one box row: (0, j) is element j
            dst.rows = 1
        cases.append(_tci_case(rng, dst, descending))
    for k in range(16):  # not a single-row tile, or the start's type is not dst's: refused at compile time
        dtype = ALL[k % len(ALL)]
        if k < 8:
            dst = _shaped(rng, dtype, "RowMajor", rows=(2, 3, 4, 8))
            case = _tci_case(rng, dst, k % 2)
            case.expect, case.reason = "reject", "TCI needs a single-row dst (cpu/TCI.hpp:32)"
        else:
            dst = _shaped(rng, dtype, "RowMajor", rows=(1,))
            case = _tci_case(rng, dst, k % 2, start_dtype=_pick(rng, [d for d in ALL if d != dtype]))
            case.expect, case.reason = "reject", "TCI's start must have dst's element type (cpu/TCI.hpp:33)"
        case.compiles = False
        cases.append(case)
    return cases


def _tci_case(rng, dst: TileDesc, descending: int, start_dtype: str | None = None) -> Case:
    dtype = dst.dtype
    start_dtype = start_dtype or dtype
    t = NP[start_dtype]
    if np.dtype(t).kind in "iu":
        info, n = np.iinfo(t), dst.valid_col
        start = np.array([_pick(rng, [info.min, info.min + 1, info.min + n // 2, info.max, info.max - 2,
                                      info.max - n // 2, 0, 1, int(rng.integers(info.min, info.max))])]).astype(t)
    elif dst.cols >= 4096:
        start = np.array([_pick(rng, [0.5, -0.5, 1.5, 0.25, -3.0, 1000.5, 0.0])]).astype(t)
    else:
        start = seed_scalar(rng, start_dtype) if rng.random() < 0.5 else \
            np.array([_pick(rng, [0.5, -0.5, 16777215.0, 16777216.0, 1e8, 65500.0, -65500.0, 2040.25, 0.1,
                                  -0.0])]).astype(t)
    case = Case("tci", f"TCI<T_dst, {CPP[start_dtype]}, {descending}>(dst, start)", {"dst": dst}, [],
                overload="no_tmp")
    case.scalars["start"] = (start_dtype, start.tobytes())
    case.data["dst"] = filler(rng, dst)
    case.params.update(dtype=dtype, descending=descending)
    return case


# TPARTMUL ---------------------------------------------------------------------------------------------------
PART_PATTERNS = ["equal", "src0_less_rows", "src0_less_cols", "src0_less_both", "src1_less_rows",
                 "src1_less_cols", "src1_less_both", "dst_zero", "src_exceeds_dst", "cross", "neither_equal",
                 "dst_less_than_both"]


def tpartmul_cases(rng) -> list[Case]:
    cases = []
    types = ["f32", "f16", "i32", "i16", "i8", "u8"]
    for k in range(330):
        dtype = types[k % len(types)]
        pattern = PART_PATTERNS[k // len(types) % len(PART_PATTERNS)]
        cases.append(_tpartmul_case(rng, dtype, pattern, _pick(rng, ["random", "special", "small"])))
    for k, (a, b) in enumerate([("u16", "u16"), ("u32", "u32"), ("f32", "f16"), ("i32", "u32"), ("i16", "f16"),
                                ("u16", "u16")]):
        case = _tpartmul_case(rng, a, "equal", "random")
        src1 = case.tiles["src1"]
        src1.dtype = b
        if src1.slayout == "NoneBox":  # keep the storage 32-byte aligned for the new element size
            per = 32 // _item(b)
            if src1.blayout == "RowMajor":
                src1.cols = -(-src1.cols // per) * per
            else:
                src1.rows = -(-src1.rows // per) * per
        case.data["src1"] = seed_values(rng, case.tiles["src1"], "random")
        case.compiles = False
        case.expect = "reject"
        case.reason = "TPARTMUL: dtype not allowed on cpu, or operand dtypes differ (cpu/TPartOp.hpp:79-86)"
        cases.append(case)
    return cases


def _tpartmul_case(rng, dtype: str, pattern: str, value_mode: str) -> Case:
    layout = _pick(rng, ["RowMajor"] * 6 + ["ColMajor", "ColMajor", "Nz", "Zz"])
    dst = _shaped(rng, dtype, layout, rows=(2, 3, 4, 5, 8), mult=(1, 2), zero=False)
    dst.valid_row, dst.valid_col = max(dst.valid_row, 2), max(dst.valid_col, 2)
    dst.valid_row, dst.valid_col = min(dst.valid_row, dst.rows), min(dst.valid_col, dst.cols)
    d = (dst.valid_row, dst.valid_col)
    less_r, less_c = int(rng.integers(1, d[0])) if d[0] > 1 else 1, int(rng.integers(1, d[1])) if d[1] > 1 else 1
    more_r, more_c = d[0] + int(rng.integers(1, 3)), d[1] + int(rng.integers(1, 5))
    a, b = d, d
    if pattern.startswith(("src0_less", "src1_less")):
        small = (less_r if "rows" in pattern or "both" in pattern else d[0],
                 less_c if "cols" in pattern or "both" in pattern else d[1])
        a, b = (small, d) if pattern.startswith("src0") else (d, small)
    elif pattern == "src_exceeds_dst":
        a, b = _pick(rng, [(d, (more_r, d[1])), ((d[0], more_c), d), (d, (more_r, more_c))])
    elif pattern == "cross":
        a, b = ((less_r, d[1]), (d[0], less_c)) if rng.random() < 0.5 else ((d[0], less_c), (less_r, d[1]))
    elif pattern == "neither_equal":
        a, b = (less_r, less_c), (less_r, d[1]) if d[0] > 1 else (d[0], less_c)
    elif pattern == "dst_less_than_both":
        a, b = (more_r, more_c), (more_r, d[1] + 1)
    srcs = []
    for vr, vc in (a, b):
        slayout = layout if rng.random() < 0.7 else _pick(rng, ["RowMajor", "ColMajor"])
        src = _shaped(rng, dtype, slayout, rows=(dst.rows, dst.rows + 1), mult=(1, 2), vr=vr, vc=vc)
        srcs.append(src)
    if pattern == "dst_zero":
        dst.valid_kind = "dynamic"
        dst.valid_row, dst.valid_col = _pick(rng, [(0, dst.valid_col), (dst.valid_row, 0), (0, 0)])
    case = Case("tpartmul", "TPARTMUL(dst, src0, src1)", {"src0": srcs[0], "src1": srcs[1], "dst": dst},
                ["src0", "src1"], overload="partmul")
    case.data = {"src0": seed_values(rng, srcs[0], value_mode), "src1": seed_values(rng, srcs[1], value_mode),
                 "dst": filler(rng, dst)}
    case.params.update(dtype=dtype, validity_pattern=pattern, value_mode=value_mode)
    if not _partmul_legal((dst.valid_row, dst.valid_col), (srcs[0].valid_row, srcs[0].valid_col),
                          (srcs[1].valid_row, srcs[1].valid_col)):
        case.expect, case.reason = "reject", "unsupported partial-validity pattern"
    return case


def _partmul_legal(d: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> bool:
    """DECISIONS 9: a zero dst returns at once; else one source equals dst, the other does not exceed it."""
    if 0 in d:
        return True
    within = lambda s: s[0] <= d[0] and s[1] <= d[1]  # noqa: E731
    return a == d and within(b) or b == d and within(a)


# TGATHER ----------------------------------------------------------------------------------------------------
def tgather_cases(rng) -> list[Case]:
    cases = []
    for k in range(170):
        dtype = ALL[k % len(ALL)]
        cases.append(_tgather_index_case(rng, dtype, "i32" if k // len(ALL) % 2 == 0 else "u32",
                                         ["inrange", "inrange", "oob", "edge"][k // 16 % 4]))
    for k, (dtype, idx) in enumerate([("f32", "i16"), ("f16", "u16"), ("i32", "i8"), ("u8", "u16")]):
        case = _tgather_index_case(rng, dtype, idx, "inrange")
        case.compiles = False
        case.expect, case.reason = "reject", "TGATHER indices must be 32-bit (cpu/TGather.hpp:86)"
        cases.append(case)
    for k, dtype in enumerate(["f32", "i16"]):
        case = _tgather_index_case(rng, dtype, "i32", "inrange")
        case.tiles["dst"].dtype = {"f32": "i32", "i16": "f16"}[dtype]
        case.data["dst"] = filler(rng, case.tiles["dst"])
        case.compiles = False
        case.expect, case.reason = "reject", "TGATHER dst and src0 must have one type (cpu/TGather.hpp:87-89)"
        cases.append(case)
    case = _tgather_index_case(rng, "f32", "f32", "inrange")
    case.expect, case.reason = "reject", "TGATHER indices are int32 or uint32 (the contract)"
    cases.append(case)
    for k in range(190):
        pattern = list(PATTERNS)[k % len(PATTERNS)]
        axis = ["GATHER_ROW", "GATHER_COL"][k // len(PATTERNS) % 2]
        cases.append(_tgather_mask_case(rng, ALL[k // 14 % len(ALL)], pattern, axis))
    for k, (s, d, loc, layout) in enumerate([("i32", "i16", "Vec", "RowMajor"), ("f16", "u8", "Vec", "RowMajor"),
                                             ("f16", "f16", "Mat", "RowMajor"), ("f32", "f32", "Vec", "ColMajor"),
                                             ("u8", "u8", "Vec", "Nz")]):
        case = _tgather_mask_case(rng, s, "P0101", ["GATHER_ROW", "GATHER_COL"][k % 2])
        src = case.tiles["src"]
        case.tiles["dst"].dtype = d
        case.tiles["dst"].cols = max(case.tiles["dst"].cols, 32 // _item(d))
        case.tiles["dst"].valid_col = min(case.tiles["dst"].valid_col, case.tiles["dst"].cols)
        if layout != "RowMajor":
            case.tiles["src"] = _shaped(rng, s, layout, vr=src.valid_row, vc=src.valid_col, kind=src.valid_kind)
            case.tiles["src"].loc = loc
        src = case.tiles["src"]
        src.loc = loc
        if loc == "Mat":
            src.rows = 16 * -(-src.rows // 16)
        case.data = {"src": seed_values(rng, src, "random"), "dst": filler(rng, case.tiles["dst"])}
        case.compiles = False
        case.expect = "reject"
        case.reason = "TGATHER mask: Vec, row-major, same element size (cpu/TGather.hpp:165-168)"
        cases.append(case)
    return cases


def _tgather_index_case(rng, dtype: str, idx_dtype: str, mode: str) -> Case:
    src = _shaped(rng, dtype, _pick(rng, ["RowMajor"] * 4 + ["ColMajor", "Nz", "Zz"]), rows=(1, 2, 4, 5, 8))
    src.valid_kind, src.valid_row, src.valid_col = "static", src.rows, src.cols
    dst = _shaped(rng, dtype, _pick(rng, ["RowMajor"] * 5 + ["ColMajor", "Zz"]), rows=(1, 2, 3, 4, 8))
    ilayout = _pick(rng, ["RowMajor"] * 5 + ["ColMajor", "Zn"])
    idx = _shaped(rng, idx_dtype, ilayout, rows=(dst.rows, dst.rows + 1), vr=dst.valid_row, vc=dst.valid_col,
                  kind="static" if dst.valid_row and dst.valid_col else "dynamic")
    idx.valid_row, idx.valid_col = max(idx.valid_row, 1), max(idx.valid_col, 1)
    if rng.random() < 0.2:  # the simulator reads indices over dst's valid region, whatever the indices' own
        idx.valid_row = int(rng.integers(1, idx.valid_row + 1))
        idx.valid_col = int(rng.integers(1, idx.valid_col + 1))
    idx.valid_kind = "static"
    tmp = TileDesc(idx_dtype, idx.rows, idx.cols, idx.rows, idx.cols, idx.blayout, slayout=idx.slayout,
                   valid_kind="static")
    numel = src.rows * src.cols
    n = idx.rows * idx.cols
    if np.dtype(NP[idx_dtype]).kind == "f":
        raw = rng.integers(0, numel, n).astype(np.float32) + rng.choice([0, 0.5, 0.99], n).astype(np.float32)
    else:
        info = np.iinfo(NP[idx_dtype])
        raw = rng.integers(0, numel, n).astype(np.int64)
        if mode == "oob":
            wild = rng.integers(max(info.min, -2 ** 31), min(info.max, 2 ** 32 - 1), n, endpoint=True)
            raw = np.where(rng.random(n) < 0.3, wild, raw)
            raw = np.where(rng.random(n) < 0.2, numel + rng.integers(0, 4, n), raw)
        elif mode == "edge":
            edges = np.array([0, numel - 1, numel, numel + 1, -1, info.max, info.min, 2 ** 31 - 1])
            edges = edges[(edges >= info.min) & (edges <= info.max)]
            raw = np.where(rng.random(n) < 0.6, edges[rng.integers(0, edges.size, n)], raw)
        raw = raw.astype(NP[idx_dtype])
    tiles = {"src0": src, "indices": idx, "tmp": tmp, "dst": dst}
    case = Case("tgather", "TGATHER(dst, src0, indices, tmp)", tiles, ["src0", "indices"], overload="index")
    case.data = {"src0": seed_values(rng, src, _pick(rng, ["random", "special"])), "indices": raw.tobytes(),
                 "tmp": filler(rng, tmp), "dst": filler(rng, dst)}
    case.params.update(dtype=dtype, index_dtype=idx_dtype, index_mode=mode, src_blayout=src.blayout,
                       scratch_roles=["tmp"])
    return case


MASK_VARIANTS = ["exact", "exact", "partial_src", "partial_src", "dst_bigger", "dst_smaller", "dst_valid_lt_cols",
                 "cross_dtype", "boxed"]


def _tgather_mask_case(rng, dtype: str, pattern: str, axis: str) -> Case:
    variant = _pick(rng, MASK_VARIANTS)
    phase, period = PATTERNS[pattern]
    src = _shaped(rng, dtype, "Zz" if variant == "boxed" else "RowMajor", rows=(1, 2, 4, 5, 8, 9),
                  zero=variant == "partial_src")
    if variant not in ("partial_src", "boxed"):
        src.valid_row, src.valid_col, src.valid_kind = src.rows, src.cols, "static"
    ddtype = dtype
    if variant == "cross_dtype":
        ddtype = _pick(rng, [d for d in ALL if _item(d) == _item(dtype) and d != dtype])
    per = 32 // _item(ddtype)
    svr, svc = src.valid_row, src.valid_col
    if axis == "GATHER_ROW":
        size = svr * len(range(phase, svc, period))
        cols = per * int(_pick(rng, (1, 2)))
        rows = max(1, -(-size // cols))
        if variant == "dst_bigger":
            rows += int(rng.integers(1, 3))
        elif variant == "dst_smaller" and size > per:
            rows, cols = max(1, size // cols - 1) if size // cols > 1 else 1, per
        dst = TileDesc(ddtype, rows, cols, int(_pick(rng, range(1, rows + 1))), cols,
                       valid_kind=_pick(rng, ["static", "dyn_row", "dynamic"]))
        if variant == "dst_valid_lt_cols":
            dst.cols, dst.valid_col, dst.valid_kind = cols + per, cols, "dynamic"
            dst.rows = max(1, -(-size // dst.cols))
            dst.valid_row = min(dst.valid_row, dst.rows)
        if variant == "boxed" and rng.random() < 0.5:
            box = _shaped(rng, ddtype, "Zz", vr=dst.rows, vc=dst.cols)
            dst = TileDesc(ddtype, box.rows, box.cols, box.rows, box.cols, box.blayout, slayout=box.slayout,
                           valid_kind="static")
    else:
        count = len(range(phase, svr, period))
        cols = max(svc, per * int(_pick(rng, (1, 2))))
        cols = -(-cols // per) * per
        rows = max(count, 1)
        if variant == "dst_bigger":
            rows += int(rng.integers(1, 3))
        elif variant == "dst_smaller" and count > 1:
            rows -= 1
        elif variant == "dst_smaller":
            cols = max(per, -(-(svc - per) // per) * per) if svc > per else cols
        vr = rows if variant != "dst_bigger" or rng.random() < 0.5 else count
        dst = TileDesc(ddtype, rows, cols, vr, cols, valid_kind="static" if vr else "dynamic")
        if variant == "dst_valid_lt_cols":
            dst.cols += per
            dst.valid_kind = "dynamic"
    case = Case("tgather", f"TGATHER<T_dst, T_src, MaskPattern::{pattern}, GatherAxis::{axis}>(dst, src)",
                {"src": src, "dst": dst}, ["src"], overload="mask")
    case.data = {"src": seed_values(rng, src, _pick(rng, ["random", "special"])), "dst": filler(rng, dst)}
    case.params.update(dtype=dtype, mask_pattern=pattern, gather_axis=axis, dst_variant=variant)
    reason = _mask_refusal(dst, (svr, svc), phase, period, axis)
    if reason:
        case.expect, case.reason = "reject", reason
    return case


def _mask_refusal(dst: TileDesc, src_valid: tuple[int, int], phase: int, period: int, axis: str) -> str:
    """The contract's mask-form shape rules for cpu (docs/semantics.md, TGATHER; DECISIONS 14, 15)."""
    svr, svc = src_valid
    if axis == "GATHER_ROW":
        if dst.valid_col != dst.cols:
            return "GATHER_ROW: dst valid cols must equal its Cols (reference asserts)"
        if svr * len(range(phase, svc, period)) > dst.rows * dst.cols:
            return "result does not fit dst"
        return ""
    count = len(range(phase, svr, period))
    if dst.valid_row != count or dst.valid_row != dst.rows:
        return "GATHER_COL: dst valid rows must equal the selected rows and its Rows (reference asserts)"
    if svc > dst.cols:
        return "result does not fit dst"
    return ""


SEED_BUILDERS = {"texpands": texpands_cases, "tcmps": tcmps_cases, "tci": tci_cases, "tpartmul": tpartmul_cases,
                 "tgather": tgather_cases}


# --- pairs, scatters, block gathers, expanding fill (TINTERLEAVE TDEINTERLEAVE TPAIRREDUCESUM TSCATTER TGATHERB
# TFILLPAD_EXPAND) --------------------------------------------------------------------------------------------------
PAIR_SHAPES = [(1, 32, 1, 32), (4, 32, 3, 10), (2, 64, 2, 64), (3, 64, 3, 2), (2, 128, 1, 100)]


def _kinds(tiles: dict[str, TileDesc], k: int) -> None:
    """Every tile of a case static (odd k) or dynamic: C++ deduces one type for dst0/dst1 and for src0/src1."""
    for t in tiles.values():
        t.valid_kind = "static" if k % 2 else "dynamic"


def _edge_floats(rng, desc: TileDesc, raw: bytes) -> bytes:
    """A float tile's bytes with signalling NaNs, -0.0 and infinities dropped in, and in the last valid column of
    the first rows (TPAIRREDUCESUM's lone column when the valid columns are odd)."""
    arr = np.frombuffer(raw, NP[desc.dtype]).copy()
    bits = arr.view(np.uint32 if desc.dtype == "f32" else np.uint16)
    snan, negzero = (0x7F800001, 0x80000000) if desc.dtype == "f32" else (0x7C01, 0x8000)
    for value in (snan, negzero, snan | negzero, negzero):
        bits[int(rng.integers(0, bits.size))] = value
    for r, value in zip(range(desc.valid_row), (snan, negzero, snan | negzero)):
        bits[r * desc.cols + desc.valid_col - 1] = value
    return arr.tobytes()


def pair_cases(rng, op: str) -> list[Case]:
    """TINTERLEAVE and TDEINTERLEAVE (both forms; even valid columns, equal valid shapes) and TPAIRREDUCESUM (odd
    valid columns included: the lone last column is x + 0)."""
    cases = []
    types = ["f32", "f16"] if op == "tpairreducesum" else ["f32", "f16", "i32", "u16", "i8", "u8"]
    for n, dtype in enumerate(types):
        for k, (rows, cols, vr, vc) in enumerate(PAIR_SHAPES):
            per = 32 // np.dtype(NP[dtype]).itemsize
            cols = max(cols, per)
            mode = ["random", "special", "small"][(n + k) % 3]
            if op == "tpairreducesum":
                vc = [vc, 7, 1, vc - 1, 33][k]
                d, a = TileDesc(dtype, rows, cols, vr, vc), TileDesc(dtype, rows, cols, vr, vc)
                if k == 2:  # static valid columns equal to Cols on both: A5's flat path
                    d.valid_col = a.valid_col = cols
                tiles = {"dst": d, "src0": a}
                call, inputs = "TPAIRREDUCESUM(dst, src0)", ["src0"]
            elif op == "tdeinterleave" and k % 2:
                half = max(2, vc // 2 // 2 * 2)
                tiles = {"dst1": TileDesc(dtype, rows, cols, vr, half), "dst0": TileDesc(dtype, rows, cols, vr, half),
                         "src": TileDesc(dtype, rows, 2 * cols, vr, 2 * half)}
                call, inputs = "TDEINTERLEAVE(dst1, dst0, src)", ["src"]
            else:
                tiles = {r: TileDesc(dtype, rows, cols, vr, vc) for r in ("dst1", "dst0", "src1", "src0")}
                call, inputs = f"{op.upper()}(dst1, dst0, src1, src0)", ["src1", "src0"]
            _kinds(tiles, k)
            case = Case(op, call, tiles, inputs)
            if "src" in tiles:
                case.params["form"] = 1
            case.data = {r: fill(rng, t, mode) if r in inputs else junk(rng, t) for r, t in tiles.items()}
            if op == "tpairreducesum" and mode == "special":
                case.data["src0"] = _edge_floats(rng, tiles["src0"], case.data["src0"])
            cases.append(case)
    return cases


def _scatter_indexes(rng, case: Case, numel: int, duplicates: bool) -> None:
    t = case.tiles["indexes"]
    count = t.rows * t.cols
    picks = rng.integers(0, numel, count) if duplicates else rng.permutation(max(numel, count))[:count] % numel
    case.data["indexes"] = picks.astype(NP[t.dtype]).tobytes()


def tscatter_cases(rng, op: str) -> list[Case]:
    """TSCATTER's index form (distinct and repeated indices, every index type the simulator takes, junk in dst:
    the simulator does not zero it) and its mask form (every pattern, both axes, src with fewer valid columns than
    Cols: the running source stream)."""
    cases = []
    pairs = [("f32", "i32"), ("f32", "u32"), ("f16", "i16"), ("f16", "u16"), ("i8", "u16"), ("u8", "i16"),
             ("i32", "i32"), ("i16", "u16"), ("f32", "u8")]
    for n, (dtype, itype) in enumerate(pairs):
        rows, cols, vr, vc = PAIR_SHAPES[n % len(PAIR_SHAPES)]
        per = 32 // np.dtype(NP[dtype]).itemsize
        cols = max(cols, per, 32 // np.dtype(NP[itype]).itemsize)
        d, s = TileDesc(dtype, rows, cols, rows, cols), TileDesc(dtype, rows, cols, vr, vc)
        i = TileDesc(itype, rows, cols, vr, vc)
        tiles = {"dst": d, "src": s, "indexes": i}
        _kinds(tiles, n)
        case = Case(op, "TSCATTER(dst, src, indexes)", tiles, ["src", "indexes"])
        case.data = {"dst": junk(rng, d), "src": fill(rng, s, "special" if dtype in FLOAT else "random")}
        _scatter_indexes(rng, case, min(rows * cols, np.iinfo(NP[itype]).max + 1), n % 3 == 2)
        cases.append(case)
    for n, pattern in enumerate(["P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"]):
        _, period = PATTERNS[pattern]  # (phase, period)
        for axis in ("SCATTER_ROW", "SCATTER_COL"):
            dtype = ["f32", "f16", "i32", "i16"][(n + (axis == "SCATTER_COL")) % 4]
            per = 32 // np.dtype(NP[dtype]).itemsize
            if axis == "SCATTER_ROW":
                s = TileDesc(dtype, 2, 2 * per, 2, per + (n % 2))
                d = TileDesc(dtype, 2, period * 2 * per, 2, period * s.valid_col)
            else:
                s = TileDesc(dtype, 2, per, 2, per - 1)
                d = TileDesc(dtype, 2 * period, per, 2 * period, per - 1)
            tiles = {"dst": d, "src": s}
            _kinds(tiles, n)
            case = Case(op, f"TSCATTER<MaskPattern::{pattern}, ScatterAxis::{axis}>(dst, src)", tiles, ["src"])
            case.params.update(form=1, maskPattern=pattern, ScatterType=axis)
            case.data = {"dst": junk(rng, d), "src": fill(rng, s, "random")}
            cases.append(case)
    return cases


def tgatherb_cases(rng, op: str) -> list[Case]:
    """TGATHERB: 32-byte blocks from byte offsets (unaligned ones, one past src's end: the simulator skips it,
    and negative int32 offsets, which become huge uint32 values), into dst rows of whole blocks."""
    cases = []
    combos = [("u8", "f32", 1, 256, "u32"), ("f32", "f32", 2, 128, "u32"), ("f16", "u8", 3, 32, "u32"),
              ("i32", "i16", 2, 64, "i32"), ("u16", "u16", 1, 48, "u32"), ("f32", "i8", 4, 16, "i32")]
    for n, (dtype, stype, rows, cols, otype) in enumerate(combos):
        item = np.dtype(NP[dtype]).itemsize
        blocks = cols * item // 32
        d = TileDesc(dtype, rows, cols, rows if n % 2 else max(1, rows - 1), cols)
        s = TileDesc(stype, 2, 64, 2, 64)
        o = TileDesc(otype, rows, 8 * -(-blocks // 8), rows, 8 * -(-blocks // 8))
        tiles = {"dst": d, "src": s, "offsets": o}
        _kinds(tiles, n)
        case = Case(op, "TGATHERB(dst, src, offsets)", tiles, ["src", "offsets"])
        limit = s.nbytes - 32
        offs = rng.integers(0, limit + 1, o.rows * o.cols)
        if n % 3 == 0:
            offs = offs // 32 * 32
        if n in (2, 3):
            offs[1] = limit + 1 + int(rng.integers(0, 64))  # a block past src's storage: skipped
        if otype == "i32":
            offs[0] = -64  # 2**32 - 64: past src (the simulator's 32-bit off + 32 does not wrap)
        case.data = {"dst": junk(rng, d), "src": fill(rng, s, "random"),
                     "offsets": offs.astype(NP[otype]).tobytes()}
        cases.append(case)
    return cases


def tfillpad_expand_cases(rng, op: str) -> list[Case]:
    """TFILLPAD_EXPAND: dst larger than src in rows, columns or both, dst valid shapes smaller than its storage
    (the simulator pads the whole storage), every pad (half Max/Min: the tfillpad_half_limits erratum)."""
    cases = []
    shapes = [((2, 16, 2, 5), (4, 32, 4, 32)), ((1, 16, 1, 16), (1, 64, 1, 40)), ((4, 32, 3, 17), (8, 32, 5, 32)),
              ((2, 32, 1, 1), (2, 32, 2, 32)), ((3, 16, 3, 9), (5, 48, 5, 48))]
    for n, dtype in enumerate(["f32", "f16", "i16", "u8", "i32", "f16"]):
        (sr, sc, svr, svc), (dr, dc, dvr, dvc) = shapes[n % len(shapes)]
        per = 32 // np.dtype(NP[dtype]).itemsize
        sc, dc = max(sc, per), max(dc, per, sc if sc > per else per)
        s = TileDesc(dtype, sr, sc, svr, min(svc, sc))
        d = TileDesc(dtype, dr, max(dc, sc), dvr, min(dvc, max(dc, sc)), pad=["Zero", "Max", "Min"][n % 3])
        tiles = {"dst": d, "src": s}
        _kinds(tiles, n)
        case = Case(op, "TFILLPAD_EXPAND(dst, src)", tiles, ["src"])
        case.data = {"dst": junk(rng, d), "src": fill(rng, s, "special" if dtype in FLOAT else "random")}
        cases.append(case)
    return cases


def build_cases(rng, op: str) -> list[Case]:
    if op in SEED_OPS:
        return SEED_BUILDERS[op](rng)
    if op in ("tadd", "tsub", "tmul", "tmax", "tmin"):
        return binary(rng, op, FLOAT + INTS)
    if op == "tdiv":
        return binary(rng, op, _wide(FLOAT + ["i32", "i16"]))
    if op == "trem":  # TREM's C++ signature takes a tmp tile
        return _with_tmp(rng, binary(rng, op, _wide(FLOAT + ["i32", "i16"])), "TREM(dst, src0, src1, tmp)")
    if op in ("tand", "tor", "tshl", "tshr"):
        return binary(rng, op, INTS)
    if op in ("tshls", "tshrs"):  # shift counts 0..7 (a count of the promoted width or more is undefined)
        cases = scalar_op(rng, op, INTS)
        for c in cases:
            dtype, _ = c.scalars["scalar"]
            c.scalars["scalar"] = (dtype, np.array(int(rng.integers(0, 8))).astype(NP[dtype]).tobytes())
        return cases
    if op == "tfmods":
        return scalar_op(rng, op, _wide(FLOAT + ["i32", "i16"]))
    if op == "txor":
        return _with_tmp(rng, binary(rng, op, INTS), "TXOR(dst, src0, src1, tmp)")
    if op in ("tadds", "tsubs", "tmuls", "tmaxs", "tmins"):
        return scalar_op(rng, op, _wide(FLOAT + ["i32", "i16"]))
    if op == "tdivs":  # both overloads: src0 / scalar, and scalar / src0 (form 1) with nonzero divisors
        cases = scalar_op(rng, op, _wide(FLOAT + ["i32", "i16"]))
        for k, c in enumerate(cases):
            if k % 2:
                c.call, c.params["form"] = "TDIVS(dst, scalar, src0)", 1
                t = c.tiles["src0"]
                arr = np.frombuffer(c.data["src0"], NP[t.dtype]).copy()
                if arr.dtype.kind in "iu":
                    arr[arr == 0] = 1
                    c.data["src0"] = arr.tobytes()
        return cases
    if op == "trecip":  # TRECIP(dst, src) is TDIVS(dst, 1, src) in C++; the simulator's own kernel is TRECIP_IMPL
        cases = unary(rng, op, FLOAT, "positive")
        for c in cases:
            c.call = "TRECIP_IMPL(dst, src)"
        return cases
    if op == "trems":
        return _with_tmp(rng, scalar_op(rng, op, _wide(FLOAT + ["i32", "i16"])), "TREMS(dst, src0, scalar, tmp)")
    if op in ("tands", "tors"):
        return scalar_op(rng, op, INTS)
    if op == "txors":
        return _with_tmp(rng, scalar_op(rng, op, INTS), "TXORS(dst, src0, scalar, tmp)")
    if op in ("texp", "tsqrt", "tlog", "trsqrt"):
        return unary(rng, op, FLOAT, "positive" if op != "texp" else "small")
    if op in ("tabs", "tneg"):
        return unary(rng, op, _wide(FLOAT + ["i32", "i16", "i8"]))
    if op == "trelu":
        return unary(rng, op, _wide(FLOAT + ["i32"]))
    if op == "tnot":
        return unary(rng, op, INTS)
    if op == "tcvt":
        return tcvt(rng)
    if op == "trowsum":
        return reduce_cases(rng, op, [("f32", "f32"), ("f16", "f16"), ("f16", "f32"), ("i32", "i32"), ("i16", "i16")])
    if op == "tcolmax":
        return reduce_cases(rng, op, [("f32", "f32"), ("f16", "f16"), ("f16", "f32"), ("i8", "i8"), ("u8", "u8")])
    if op in ("trowmax", "trowmin", "tcolmin"):
        return reduce_cases(rng, op, [("f32", "f32"), ("f16", "f16"), ("i32", "i32")])
    if op == "tcolsum":
        return reduce_cases(rng, op, [("f32", "f32"), ("f16", "f16"), ("f16", "f32")])
    if op in ("trowprod", "tcolprod"):
        return reduce_cases(rng, op, [("f32", "f32"), ("i32", "i32")])
    if op in ("taddc", "tsubc", "taddsc", "tsubsc", "tlrelu", "tsubrelu", "tfusedmuladd", "tmuladddst",
              "tfusedmuladdrelu"):
        return compound_cases(rng, op)
    if op == "treshape":
        return treshape_cases(rng, op)
    if op in ("tmov", "tsel", "tsels", "tcmp", "tpartadd", "tpartmax", "tpartmin", "tfillpad", "tfillpad_inplace",
              "textract",
              "tconcat", "ttrans"):
        return move_cases(rng, op)
    if op.startswith(("trowexpand", "tcolexpand")):
        types = ["f32", "f16"] if op.endswith("expdif") else _wide(["f32", "f16", "i32", "i16"])
        return expand_cases(rng, op, types)
    if op.startswith(("tmatmul_mx", "tgemv_mx")):
        return mx_cases(rng, op)
    if op.startswith("tgemv"):
        return gemv_cases(rng, op)
    if op.startswith("tmatmul"):
        return matmul_cases(rng, op)
    if op in ("tquant", "tdequant"):
        return quant_cases(rng, op)
    if op in ("tinsert", "tinsert_fp", "textract_fp"):
        return insert_cases(rng, op)
    if op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin"):
        return arg_cases(rng, op)
    if op == "taxpy":
        return axpy_cases(rng, op)
    if op == "ttri":
        return ttri_cases(rng, op)
    if op == "tsort32":
        return tsort32_cases(rng, op)
    if op == "tmrgsort":
        return tmrgsort_cases(rng, op)
    if op in ("tfmod", "tprelu", "tpow", "tpows"):
        return power_cases(rng, op)
    if op in ("tpartargmax", "tpartargmin"):
        return partarg_cases(rng, op)
    if op in ("tinterleave", "tdeinterleave", "tpairreducesum"):
        return pair_cases(rng, op)
    if op in ("tscatter", "tgatherb", "tfillpad_expand"):
        return {"tscatter": tscatter_cases, "tgatherb": tgatherb_cases, "tfillpad_expand": tfillpad_expand_cases}[op](
            rng, op)
    if op in ("trandom", "thistogram", "tpack", "tget_scale_addr"):
        return {"trandom": trandom_cases, "thistogram": thistogram_cases, "tpack": tpack_cases,
                "tget_scale_addr": tget_scale_addr_cases}[op](rng, op)
    raise SystemExit(f"no case builder for {op}")


OPS = ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "trem", "tand", "tor", "txor", "tadds", "tsubs", "tmuls",
       "tdivs", "tmaxs", "tmins", "trems", "tfmods", "tshl", "tshr", "tshls", "tshrs", "tands", "tors", "txors", "texp", "tlog", "tsqrt", "trsqrt", "trecip", "tabs",
       "tneg", "trelu", "tnot", "tcvt", "trowsum", "trowmax", "trowmin", "trowprod", "tcolsum", "tcolmax",
       "tcolmin", "tcolprod", "trowexpand", "tcolexpand", "trowexpandmul", "trowexpandadd", "trowexpandsub",
       "trowexpanddiv", "trowexpandmax", "trowexpandmin", "trowexpandexpdif", "tcolexpandmul", "tcolexpandadd",
       "tcolexpandsub", "tcolexpanddiv", "tcolexpandmax", "tcolexpandmin", "tcolexpandexpdif", "tmov", "tsel",
       "tsels", "tcmp", "tpartadd", "tpartmax", "tpartmin", "tfillpad", "textract", "tconcat", "ttrans", "taddc",
       "tsubc", "taddsc", "tsubsc", "tlrelu", "tsubrelu", "tfusedmuladd", "tmuladddst", "tfusedmuladdrelu",
       "treshape", "tmatmul", "tmatmul_acc", "tmatmul_bias", "trowargmax", "trowargmin", "tcolargmax",
       "tcolargmin", "taxpy", "ttri", "tfillpad_inplace", "tinsert", "tinsert_fp", "textract_fp", "tquant", "tdequant",
       "tsort32", "tmrgsort", "tgemv", "tgemv_acc", "tgemv_bias", "tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias",
       "tgemv_mx", "tgemv_mx_acc", "tgemv_mx_bias", "trandom", "thistogram", "tget_scale_addr", "tfmod", "tpow",
       "tpows", "tprelu", "tpartargmax", "tpartargmin"]
OPS += ["tinterleave", "tdeinterleave", "tpairreducesum", "tscatter", "tgatherb", "tfillpad_expand"]
# TPACK was removed from pto-isa (83f16ef4, "Remove TPack"); its vectors come from the commit before:
#     git -C pto-isa worktree add /tmp/pto-isa-tpack 83f16ef4^ && python tools/oracle/generate.py /tmp/pto-isa-tpack tpack
OLD_OPS = {"tpack": "pto-isa 83f16ef4^ (last commit with TPack) cpu simulator, g++ 12 -std=c++20 -O2 -DNDEBUG "
                    "-D__CPU_SIM"}


# --- C++ ------------------------------------------------------------------------------------------------------
PRELUDE = """#include <cstdint>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <pto/pto-inst.hpp>
using namespace pto;
static void rd(void* p, size_t n) { unsigned char* b = (unsigned char*)p; for (size_t i = 0; i < n; i++) {
    unsigned v = 0; if (scanf("%2x", &v) != 1) v = 0; b[i] = (unsigned char)v; } }
static MrgSortExecutedNumList EXECUTED{0, 0, 0, 0};
static void wr(const void* p, size_t n) { const unsigned char* b = (const unsigned char*)p;
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]); printf("\\n"); }
"""


def cpp_case(index: int, case: Case) -> str:
    lines = [f"static void case_{index}() {{"]
    address = 0
    for role, t in case.tiles.items():
        lines.append(f"  using T_{role} = {t.cpp()};")
        args = ", ".join(map(str, t.ctor_args()))
        lines.append(f"  T_{role} {role}({args});" if args else f"  T_{role} {role};")
        lines.append(f"  TASSIGN({role}, 0x{address:x});")
        address += -(-t.nbytes // 256) * 256
    for role, t in case.tiles.items():
        lines.append(f"  rd({role}.data(), {t.nbytes});")
    for name, (dtype, _) in case.scalars.items():
        lines.append(f"  {CPP[dtype]} {name}; rd(&{name}, sizeof({name}));")
    lines.append(f"  {case.call};")
    for role, t in case.tiles.items():
        lines.append(f"  wr({role}.data(), {t.nbytes});")
    if "EXECUTED" in case.call:
        lines.append("  wr(&EXECUTED, sizeof(EXECUTED));")
    lines.append("}")
    return "\n".join(lines)


GXX = ["g++", "-std=c++20", "-O2", "-DNDEBUG", "-D__CPU_SIM"]


def build(include: Path, op: str, cases: list[Case], work: Path, indices: list[int] | None = None) -> Path:
    """One executable running case k (of `indices`, default all) when given k as its argument."""
    indices = list(range(len(cases))) if indices is None else indices
    body = [PRELUDE] + [cpp_case(i, cases[i]) for i in indices]
    body.append("int main(int argc, char** argv) { int k = atoi(argv[1]); switch (k) {")
    body += [f"  case {i}: case_{i}(); break;" for i in indices]
    body.append("} return 0; }")
    source = work / f"{op}.cpp"
    source.write_text("\n".join(body))
    exe = work / op
    done = subprocess.run([*GXX, f"-I{include}", "-o", str(exe), str(source)], capture_output=True, text=True)
    if done.returncode:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr[:200])
        raise BuildError(first, _failing_cases(done.stderr, source.name, body, indices))
    return exe


class BuildError(RuntimeError):
    def __init__(self, message: str, cases: set[int]):
        super().__init__(message)
        self.cases = cases  # the case indices whose functions the compiler's messages name


def _failing_cases(stderr: str, name: str, body: list[str], indices: list[int]) -> set[int]:
    """The cases whose lines of the translation unit the compiler's errors point at ("required from here")."""
    starts, line = [], 1
    for part, index in zip(body, [None, *indices]):
        if index is not None:
            starts.append((line, index))
        line += part.count("\n") + 1
    found = set()
    for at in {int(m) for m in re.findall(rf"{re.escape(name)}:(\d+):", stderr)}:
        owner = [index for start, index in starts if start <= at]
        if owner:
            found.add(owner[-1])
    return found


def refusal(include: Path, index: int, case: Case, work: Path) -> str | None:
    """The simulator's first compile error for this case alone (relative to include/), or None if it builds."""
    source = work / f"refused_{case.op}_{index}.cpp"
    source.write_text("\n".join([PRELUDE, cpp_case(index, case), "int main() { return 0; }"]))
    done = subprocess.run([*GXX, "-fsyntax-only", f"-I{include}", str(source)], capture_output=True, text=True)
    if not done.returncode:
        return None
    lines = done.stderr.splitlines()
    first = next((line for line in lines if "error" in line and str(include) in line),
                 next((line for line in lines if "error" in line), done.stderr[:200]))
    return first.replace(f"{include}/", "")


def patched_include(checkout: Path, work: Path) -> Path:
    target = work / "include"
    shutil.copytree(checkout / "include", target)
    for path in target.rglob("*.hpp"):
        text = path.read_text(errors="replace")
        if "static_assert(false," in text:
            path.write_text(text.replace("static_assert(false,", "static_assert(sizeof(DType) == 0,"))
    probe = subprocess.run([*GXX, "-fsyntax-only", "-x", "c++", "-"], input="#include <format>\n",
                           capture_output=True, text=True)
    if probe.returncode:  # GCC 12 has no <format>; older checkouts (TPush.hpp) include it for one pipe name
        (target / "format").write_text(
            "#pragma once\nnamespace std { template <class Out, class... A> Out format_to(Out out, const char*, "
            "A&&...) { return out; } }\n")  # never reached by the ops recorded here
    return target


def run_case(exe: Path, index: int, case: Case) -> dict[str, bytes]:
    feed = "".join(case.data[r].hex() for r in case.tiles) + "".join(b.hex() for _, b in case.scalars.values())
    out = subprocess.run([str(exe), str(index)], input=feed, capture_output=True, text=True, check=True).stdout
    rows = out.split()
    after = {role: bytes.fromhex(rows[k]) for k, role in enumerate(case.tiles)}
    if "EXECUTED" in case.call:
        after["__executed"] = bytes.fromhex(rows[len(case.tiles)])
    return after


# Ops where two float operands meet in + - * /: when both are NaN, x86 returns one of them, and which one is
# GCC's choice of operand order (it differs between float and half, and between one compiler and another).
NAN_PAYLOAD_ANY = {"tadd", "tsub", "tmul", "tdiv", "tadds", "tsubs", "tmuls", "tdivs", "trowsum", "tcolsum",
                   "trowprod", "tcolprod", "tpartadd", "taddc", "tsubc", "taddsc", "tsubsc", "tlrelu",
                   "tfusedmuladd", "tmuladddst", "tfusedmuladdrelu", "tsubrelu", "tmatmul", "tmatmul_acc",
                   "tmatmul_bias", "taxpy", "tprelu", "tgemv", "tgemv_acc", "tgemv_bias", "tmatmul_mx", "tmatmul_mx_acc",
                   "tmatmul_mx_bias", "tgemv_mx", "tgemv_mx_acc", "tgemv_mx_bias", "tpairreducesum",
                   *(f"t{axis}expand{op}" for axis in ("row", "col") for op in ("add", "sub", "mul", "div"))}


def record(index: int, case: Case, after: dict[str, bytes] | None, message: str = "") -> dict:
    """The case's line; `after` is None for a case the simulator refused to compile (`message`: its error)."""
    params = {"tiles": {r: t.record() for r, t in case.tiles.items()}, **case.params}
    # TMRGSORT's MrgSortExecutedNumList: {7, 7, 7, 7} before the call, then these (none for a refused case)
    if after is not None and "__executed" in after:
        params["executed"] = {"initial": [7, 7, 7, 7],
                              "expected": np.frombuffer(after["__executed"], np.uint16).tolist()}
    for name, (dtype, raw) in case.scalars.items():
        value = np.frombuffer(raw, NP[dtype])[0]
        params[name] = {"dtype": dtype, "hex": raw.hex(), "value": str(value.item())}
    inputs = {r: _tile_hex(case.tiles[r], case.data[r]) for r in case.inputs}
    outputs_roles = [r for r in case.tiles if r not in case.inputs]
    done = {"status": "ok"} if after is not None else {"status": "rejected", "reject_messages": [message]}
    return {
        "op": case.op, "case_id": f"{case.op}_{index:04d}", "overload": case.overload, **done,
        "params": params, "inputs": inputs,
        "initial_outputs": {r: _tile_hex(case.tiles[r], case.data[r]) for r in outputs_roles},
        **({"outputs": {r: _tile_hex(case.tiles[r], after[r]) for r in outputs_roles}} if after is not None else {}),
        "oracle": OLD_OPS.get(case.op, ORACLE), "expect": case.expect, **({"expect_reason": case.reason} if case.reason else {}),
        **({"nan_payload": "any"} if case.op in NAN_PAYLOAD_ANY else {}),
    }


def _tile_hex(t: TileDesc, raw: bytes) -> dict:
    return {"dtype": t.dtype, "shape": [t.rows, t.cols], "loc": t.loc, "blayout": t.blayout, "slayout": t.slayout,
            "fractal_size": t.fractal, "hex": raw.hex()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a checkout of hw-native-sys/pto-isa")
    parser.add_argument("ops", nargs="*", default=OPS)
    parser.add_argument("--out", type=Path, default=Path("tests/data/vectors"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wide", action="store_true",
                        help="draw wider: edge values, drawn shapes and valid kinds, more element types (cases "
                             "the simulator does not compile are left out)")
    parser.add_argument("--compact", action="store_true",
                        help="with --wide: tiles of at most 4 x 64 and three round modes per TCVT pair with a "
                             "float side (the committed edge_<op> files)")
    parser.add_argument("--prefix", default="", help="prefix of the files' names and case ids (edge_)")
    args = parser.parse_args(argv)
    global WIDE, SHAPES, COMPACT
    WIDE = args.wide
    COMPACT = args.wide and args.compact
    fixed_shapes = SHAPES
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        include = patched_include(args.checkout, work)
        for op in args.ops:
            rng = np.random.default_rng([args.seed, sum(map(ord, op))])
            SHAPES = wide_shapes(rng) if WIDE else fixed_shapes
            cases = build_cases(rng, op)
            if WIDE and op not in SEED_OPS:
                wide_kinds(rng, cases)
            refused = {i: refusal(include, i, c, work) for i, c in enumerate(cases) if not c.compiles}
            for i, message in refused.items():
                if message is None:
                    print(f"{op}: case {i} was expected not to compile, but it does", file=sys.stderr)
            runnable = [i for i in range(len(cases)) if refused.get(i) is None]
            exe = None
            for _ in range(4 if WIDE else 1):
                try:
                    exe = build(include, op, cases, work, runnable)
                    break
                except BuildError as exc:
                    if not (WIDE and exc.cases):
                        print(f"{op}: the simulator does not compile these cases ({exc}); skipped", file=sys.stderr)
                        break
                    print(f"{op}: the simulator does not compile cases {sorted(exc.cases)} ({exc}); left out",
                          file=sys.stderr)
                    runnable = [i for i in runnable if i not in exc.cases]
                    for i in exc.cases:
                        refused[i] = "left out"
            if exe is None:
                continue
            lines = []
            for i, c in enumerate(cases):
                if refused.get(i) == "left out":
                    continue
                try:
                    after = run_case(exe, i, c) if refused.get(i) is None else None
                    line = record(i, c, after, refused.get(i) or "")
                    line["case_id"] = args.prefix + line["case_id"]
                    lines.append(json.dumps(line, separators=(",", ":")))
                except subprocess.CalledProcessError as exc:
                    print(f"{op}: case {i} stopped the simulator ({exc.returncode}); left out", file=sys.stderr)
            data = ("\n".join(lines) + "\n").encode()
            name = f"seed_{op}" if op in SEED_OPS else op
            (args.out / f"{args.prefix}{name}.jsonl.gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
            dropped = sum(1 for m in refused.values() if m == "left out")
            print(f"{op}: {len(lines)} cases ({len(refused) - dropped} refused at compile time"
                  + (f", {dropped} left out" if dropped else "") + ")", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
