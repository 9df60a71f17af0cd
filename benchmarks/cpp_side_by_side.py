"""ptoisa next to the reference C++ CPU simulator and NumPy's floor, in one run, as ratios.

    python benchmarks/cpp_side_by_side.py PTO_ISA_CHECKOUT                 # builds our C++ driver on the fly (g++)
    python benchmarks/cpp_side_by_side.py PTO_ISA_CHECKOUT --quick         # shorter timing budget
    python benchmarks/cpp_side_by_side.py PTO_ISA_CHECKOUT --json out.json # also write every measurement
    python benchmarks/cpp_side_by_side.py PTO_ISA_CHECKOUT --only TCMPS    # cases whose label or key has TEXT
    python benchmarks/cpp_side_by_side.py                                  # no checkout: says so and stops

The driver (C++ generated here, one struct per case and size) is built against the checkout's headers with
`-O2 -DNDEBUG -D__CPU_SIM`, one thread (PTO_CPU_MAX_THREADS=1). Its tiles point at host buffers (in the CPU
simulator a tile's `data()` is a reference to its data pointer), not at UB addresses, so that 256x256 tiles fit.
It runs as a server on a pipe: "t ID REPS" times REPS calls of case ID, "c ID" runs one call on fresh tiles and
prints dst's bytes. Both sides start from the same bytes (one fill formula); before timing, ptoisa's dst bytes
(and an exact floor's) after one call are compared with the driver's.

Timing: for each case and size, the C++ loop, the ptoisa call (cpu target, public API), NumPy's floor (the op of
benchmarks/run.py on the same storage) and, where it differs, the exact floor (the cheapest NumPy route to the
simulator's bits) each get a calibrated loop of about 0.5 ms (short, so that on a shared machine the repeats that
lose the core to another process stay a minority); their repeats are interleaved for a fixed budget and the
medians are compared. The ratios are what carry from machine to machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS on one thread, as the simulator (before NumPy)

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tools" / "oracle"))
try:
    import ptoisa
except ImportError:  # not installed: use the source tree next to benchmarks/
    sys.path.insert(0, str(HERE.parent / "src"))
    import ptoisa

from cases import bind  # noqa: E402 - after the path set-up above

SIZES = (16, 64, 256)
CXX = ["g++", "-std=c++20", "-O2", "-DNDEBUG", "-D__CPU_SIM", "-DPTO_CPU_MAX_THREADS=1"]

# --- tiles, described once for both sides ------------------------------------------------------------------------
CTYPE = {"f32": "float", "f16": "half", "i32": "int32_t", "u8": "uint8_t"}
NPTYPE = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "u8": np.uint8}


@dataclass
class T:
    """One tile of a case: the same type, valid shape and initial bytes in C++ and in ptoisa.

    fill: "zero"; "values", v[i] = ((i * 37) % 101) / 10 - 5 converted to the element type (C++ casts the double,
    NumPy's astype rounds and truncates the same way); "index:M", v[i] = (i * 7919 + 13) % M (gather indices)."""

    var: str
    dt: str
    rows: int
    cols: int
    valid: tuple[int, int] | None = None  # None: all valid
    blayout: str = "RowMajor"
    loc: str = "Vec"
    slayout: str | None = None
    fractal: int | None = None
    dynamic: bool = True  # valid sizes as runtime values (-1, -1) or as template arguments
    fill: str = "zero"

    @property
    def numel(self) -> int:
        return self.rows * self.cols

    @property
    def vr_vc(self) -> tuple[int, int]:
        return self.valid or (self.rows, self.cols)

    def cpp_type(self) -> str:
        vr, vc = (-1, -1) if self.dynamic else self.vr_vc
        rest = f", SLayout::{self.slayout}" if self.slayout else ""
        rest += f", {self.fractal}" if self.fractal else ""
        return (f"Tile<TileType::{self.loc}, {CTYPE[self.dt]}, {self.rows}, {self.cols}, BLayout::{self.blayout}, "
                f"{vr}, {vc}{rest}>")

    def cpp_fill(self) -> str:
        if self.fill == "values":
            return f"fill_values(b_{self.var}.data(), {self.numel});"
        if self.fill.startswith("index:"):
            return f"fill_index(b_{self.var}.data(), {self.numel}, {self.fill.split(':')[1]});"
        return ""

    def values(self) -> np.ndarray:
        i = np.arange(self.numel, dtype=np.int64)
        if self.fill == "values":
            return (i * 37 % 101 / 10.0 - 5).astype(NPTYPE[self.dt])
        if self.fill.startswith("index:"):
            return ((i * 7919 + 13) % int(self.fill.split(":")[1])).astype(NPTYPE[self.dt])
        return np.zeros(self.numel, NPTYPE[self.dt])

    def make(self) -> Any:
        from ptoisa import BLayout, SLayout, Tile, TileType, half, int32_t, uint8_t

        dtype = {"f32": float, "f16": half, "i32": int32_t, "u8": uint8_t}[self.dt]
        head = (getattr(TileType, self.loc), dtype, self.rows, self.cols, getattr(BLayout, self.blayout))
        if self.dynamic:
            assert self.slayout is None
            tile = Tile[(*head, -1, -1)](*self.vr_vc)
        else:
            rest = (getattr(SLayout, self.slayout),) if self.slayout else ()
            rest += (self.fractal,) if self.fractal else ()
            tile = Tile[(*head, *self.vr_vc, *rest)]()
        tile.storage[:] = self.values()
        return tile


@dataclass
class PyCase:
    call: Callable[[], object]
    floor: Callable[[], object]
    exact: Callable[[], object] | None = None  # the cheapest NumPy route to the simulator's bits, where not floor


@dataclass
class Spec:
    key: str
    label: str
    floor_label: str
    tiles: Callable[[int], list[T]]
    cpp_call: Callable[[int], str]
    py: Callable[[int, dict[str, Any]], PyCase]
    dst: str = "d"
    sizes: tuple[int, ...] = SIZES
    exact_label: str = ""
    note: str = ""

    def shape(self, n: int) -> str:
        return f"1x{n}" if self.key.startswith("tci") else f"{n}x{n}"


def _sq(var: str, dt: str, n: int, fill: str = "zero", **kw: Any) -> T:
    return T(var, dt, n, n, fill=fill, **kw)


# --- the cases -----------------------------------------------------------------------------------------------------
def _binary(n: int) -> list[T]:
    return [_sq("d", "f32", n), _sq("a", "f32", n, "values"), _sq("b", "f32", n, "values")]


def _unary(n: int, out: str = "f32") -> list[T]:
    return [_sq("d", out, n), _sq("a", "f32", n, "values")]


def _py_tadd(n: int, t: dict[str, Any]) -> PyCase:
    x, y, o = t["a"].storage, t["b"].storage, t["d"].storage

    return PyCase(bind(ptoisa.TADD, t["d"], t["a"], t["b"]), bind(np.add, x, y, o))


def _py_tmuls(n: int, t: dict[str, Any]) -> PyCase:
    x, o = t["a"].storage, t["d"].storage
    factor = np.float32(0.5)

    return PyCase(bind(ptoisa.TMULS, t["d"], t["a"], 0.5), bind(np.multiply, x, factor, o))


def _py_texp(n: int, t: dict[str, Any]) -> PyCase:
    x, o = t["a"].storage, t["d"].storage

    wide, exp = np.empty(x.size, np.float64), np.exp

    def exact() -> None:  # exp in double (the simulator's std::exp on the promoted float), rounded once to float
        wide[...] = x
        exp(wide, wide)
        o[...] = wide

    return PyCase(bind(ptoisa.TEXP, t["d"], t["a"]), bind(np.exp, x, o), exact)


def _py_trowsum(n: int, t: dict[str, Any]) -> PyCase:
    from cases import rowsum_inorder

    grid, col = t["a"].storage.reshape(n, n), t["d"].storage
    exact = rowsum_inorder(grid, col)  # in-order sums: a transposed copy reduced over axis 0 (benchmarks/cases.py)
    reduce = np.add.reduce
    return PyCase(bind(ptoisa.TROWSUM, t["d"], t["a"], t["t"]), lambda: reduce(grid, axis=1, out=col), exact)


def _py_tcvt(n: int, t: dict[str, Any]) -> PyCase:
    x, o = t["a"].storage, t["d"].storage
    from cases import assign

    return PyCase(bind(ptoisa.TCVT, t["d"], t["a"], ptoisa.RoundMode.CAST_RINT), assign(o, x))  # o[...] = x


def _py_texpands(n: int, t: dict[str, Any]) -> PyCase:
    o = t["d"].storage
    return PyCase(bind(ptoisa.TEXPANDS, t["d"], 1.5), lambda: o.fill(1.5))


def _py_tpartmul(n: int, t: dict[str, Any]) -> PyCase:
    x, y, o = t["a"].storage, t["b"].storage, t["d"].storage

    return PyCase(bind(ptoisa.TPARTMUL, t["d"], t["a"], t["b"]), bind(np.multiply, x, y, o))


def _py_tpartmul_partial(n: int, t: dict[str, Any]) -> PyCase:
    from cases import partial_multiply

    # as benchmarks/cases.py: the product over the overlap, src0 elsewhere
    floor = partial_multiply(t["a"].storage, t["b"].storage, t["d"].storage, n, n // 2, 3 * n // 4)
    return PyCase(bind(ptoisa.TPARTMUL, t["d"], t["a"], t["b"]), floor)


def _tcmps_tiles(dt: str) -> Callable[[int], list[T]]:
    return lambda n: [T("d", "u8", n, max(32, n // 8), (n, n // 8)), _sq("a", dt, n, "values")]


def _py_tcmps(mode: str, scalar: float) -> Callable[[int, dict[str, Any]], PyCase]:
    def build(n: int, t: dict[str, Any]) -> PyCase:
        from cases import compare_pack

        flat = t["a"].storage
        value = int(scalar) if flat.dtype.kind == "i" else scalar
        cmp = getattr(ptoisa.CmpMode, mode)
        # as benchmarks/cases.py: compare, then pack 8 per byte, low bit first
        floor = compare_pack(mode, flat, flat.dtype.type(value), np.empty(n * n, bool))
        return PyCase(bind(ptoisa.TCMPS, t["d"], t["a"], value, cmp), floor)

    return build


def _py_tci(n: int, t: dict[str, Any]) -> PyCase:
    o, ramp, start = t["d"].storage, np.arange(n, dtype=np.int32), np.int32(100)
    # as benchmarks/cases.py: a ramp made once (it does not depend on the start), plus the start

    return PyCase(bind(ptoisa.TCI, t["d"], np.int32(100)), bind(np.add, ramp, start, o))


def _py_tgather_index(n: int, t: dict[str, Any]) -> PyCase:
    take, i, o = t["a"].storage.take, t["i"].storage, t["d"].storage
    return PyCase(bind(ptoisa.TGATHER, t["d"], t["a"], t["i"], t["t"]),
                  lambda: take(i, out=o, mode="wrap"))  # as benchmarks/cases.py (in range: "clip"'s bytes)


def _py_tgather_mask(n: int, t: dict[str, Any]) -> PyCase:
    from cases import assign

    o, picked = t["d"].storage, t["a"].storage[::2]  # every other element of whole rows: a view made once
    return PyCase(bind(ptoisa.TGATHER, t["d"], t["a"], ptoisa.MaskPattern.P0101),
                  assign(o, picked))


def _matmul_tiles(n: int) -> list[T]:
    return [T("d", "f32", n, n, blayout="ColMajor", loc="Acc", slayout="RowMajor", fractal=1024, dynamic=False),
            T("a", "f16", n, n, blayout="ColMajor", loc="Left", slayout="RowMajor", dynamic=False, fill="values"),
            T("b", "f16", n, n, blayout="RowMajor", loc="Right", slayout="ColMajor", dynamic=False, fill="values")]


def _py_tmatmul(n: int, t: dict[str, Any]) -> PyCase:
    from cases import bind, fractal_rows, inorder_matmul_plan, inorder_scratch

    x32 = t["a"].data.astype(np.float32)  # the logical n x n values (the storage is in fractals)
    y32 = t["b"].data.astype(np.float32)
    out = np.empty((n, n), np.float32)
    at, products, total = np.ascontiguousarray(x32.T), inorder_scratch(n, n, n), np.empty((n, n), np.float32)
    into, grid = fractal_rows(t["d"].storage, n), total.reshape(n // 16, 16, n // 16, 16)
    inorder = inorder_matmul_plan(at, y32, products, total)

    def exact() -> None:  # in-order k sums (benchmarks/cases.py), written into dst's Acc fractals
        inorder()
        into[...] = grid

    return PyCase(bind(ptoisa.TMATMUL, t["d"], t["a"], t["b"]), bind(np.dot, x32, y32, out), exact)


CASES: list[Spec] = [
    Spec("tadd_f32", "TADD f32", "add", _binary, lambda n: "TADD(d, a, b)", _py_tadd),
    Spec("tmuls_f32", "TMULS f32", "multiply scalar", _unary, lambda n: "TMULS(d, a, 0.5f)", _py_tmuls),
    Spec("texp_f32", "TEXP f32", "exp (float)", _unary, lambda n: "TEXP(d, a)", _py_texp,
         exact_label="exp in double: f64[...] = x, np.exp(f64, f64), f32[...] = f64"),
    Spec("trowsum_f32", "TROWSUM f32", "sum axis 1",
         lambda n: [T("d", "f32", n, 1, blayout="ColMajor"), _sq("a", "f32", n, "values"), _sq("t", "f32", n)],
         lambda n: "TROWSUM(d, a, t)", _py_trowsum,
         exact_label="in-order sums: transposed copy (slabs of 32 rows past 64x64) + np.add.reduce(axis=0)"),
    Spec("tcvt_f32_f16", "TCVT f32->f16 RINT", "cast assign", lambda n: _unary(n, "f16"),
         lambda n: "TCVT(d, a, RoundMode::CAST_RINT)", _py_tcvt),
    Spec("texpands_f32", "TEXPANDS f32", "fill", lambda n: [_sq("d", "f32", n)], lambda n: "TEXPANDS(d, 1.5f)",
         _py_texpands),
    Spec("tpartmul_f32_all", "TPARTMUL f32 all valid", "multiply", _binary, lambda n: "TPARTMUL(d, a, b)",
         _py_tpartmul),
    Spec("tpartmul_f32_partial", "TPARTMUL f32 partial", "multiply+copy",
         lambda n: [_sq("d", "f32", n), _sq("a", "f32", n, "values"),
                    _sq("b", "f32", n, "values", valid=(n // 2, 3 * n // 4))],
         lambda n: "TPARTMUL(d, a, b)", _py_tpartmul_partial, note="src1 valid (n/2) x (3n/4)"),
    Spec("tcmps_f32_gt", "TCMPS f32 GT", "compare+pack", _tcmps_tiles("f32"),
         lambda n: "TCMPS(d, a, 0.0f, CmpMode::GT)", _py_tcmps("GT", 0.0)),
    Spec("tcmps_f32_eq", "TCMPS f32 EQ", "compare+pack", _tcmps_tiles("f32"),
         lambda n: "TCMPS(d, a, 1.0f, CmpMode::EQ)", _py_tcmps("EQ", 1.0)),
    Spec("tcmps_f16_gt", "TCMPS f16 GT", "compare+pack", _tcmps_tiles("f16"),
         lambda n: "TCMPS(d, a, (half)0.0f, CmpMode::GT)", _py_tcmps("GT", 0.0)),
    Spec("tcmps_i32_gt", "TCMPS i32 GT", "compare+pack", _tcmps_tiles("i32"),
         lambda n: "TCMPS(d, a, 0, CmpMode::GT)", _py_tcmps("GT", 0)),
    Spec("tci_i32", "TCI i32", "ramp + start", lambda n: [T("d", "i32", 1, n)],
         lambda n: "TCI<T_d, int32_t, 0>(d, 100)", _py_tci, sizes=(16, 4096, 65536)),
    Spec("tgather_index_f32", "TGATHER index f32 +tmp", "take",
         lambda n: [_sq("d", "f32", n), _sq("a", "f32", n, "values"), _sq("i", "i32", n, f"index:{n * n}"),
                    _sq("t", "i32", n)],
         lambda n: "TGATHER(d, a, i, t)", _py_tgather_index, note="int32 indices, all in range; tmp int32 n x n"),
    Spec("tgather_mask_f32", "TGATHER mask P0101 f32", "strided copy",
         lambda n: [T("d", "f32", n, n // 2), _sq("a", "f32", n, "values")],
         lambda n: "TGATHER<T_d, T_a, MaskPattern::P0101>(d, a)", _py_tgather_mask, note="row form"),
    Spec("tmatmul_f16_f32", "TMATMUL f16->f32", "np.dot f32 (BLAS)", _matmul_tiles,
         lambda n: "TMATMUL(d, a, b)", _py_tmatmul,
         exact_label="in-order k sums: every k's products at once + np.add.reduce(axis=0) (one multiply and add per "
                     "k past 1 MB of products), into the Acc fractals",
         note="Left/Right/Acc fractals; ptoisa and the simulator sum over k in order (fma; half products are exact "
              "in float, so each step is one float add)"),
]

# --- the C++ driver ------------------------------------------------------------------------------------------------
PRELUDE = """#include <cstdint>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <vector>
#include <pto/pto-inst.hpp>
using namespace pto;
template <typename E> static void fill_values(E* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = (E)((double)(i * 37 % 101) / 10.0 - 5); }
template <typename E> static void fill_index(E* p, size_t n, size_t m) {
  for (size_t i = 0; i < n; ++i) p[i] = (E)((i * 7919 + 13) % m); }
template <class C> static double timed(long reps) {
  static C* c = new C();
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < reps; ++i) { c->call(); asm volatile("" ::: "memory"); }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / reps;
}
template <class C> static void dump() {
  C* c = new C();
  c->call();
  static const char hex[] = "0123456789abcdef";
  const unsigned char* b = (const unsigned char*)c->out();
  std::vector<char> line(2 * c->out_bytes() + 1);
  for (size_t i = 0; i < c->out_bytes(); ++i) { line[2 * i] = hex[b[i] >> 4]; line[2 * i + 1] = hex[b[i] & 15]; }
  line.back() = '\\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  delete c;
}
"""

# The shipped kernel examples/pto/run_scale_compare.pto written against the simulator: per call, four 16x16
# blocks of (TLOAD, TPARTMUL by the broadcast scale, TCMPS with the threshold, two TSTOREs); timed per block.
KERNEL_CPP = """
struct Kernel {
  using T16 = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1>;
  using TBits = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1>;
  using GF = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  using GB = GlobalTensor<uint8_t, Shape<1, 1, 1, 16, 2>, Stride<1, 1, 1, 2, 1>>;
  std::vector<float> bs = std::vector<float>(256), bf = std::vector<float>(256), bp = std::vector<float>(256);
  std::vector<uint8_t> bb = std::vector<uint8_t>(512);
  std::vector<float> x = std::vector<float>(64 * 16), y = std::vector<float>(64 * 16);
  std::vector<uint8_t> m = std::vector<uint8_t>(64 * 2);
  T16 src, factor, prod;
  TBits bits;
  Kernel() : src(16, 16), factor(16, 16), prod(16, 16), bits(16, 2) {
    src.data() = bs.data(); factor.data() = bf.data(); prod.data() = bp.data(); bits.data() = bb.data();
    fill_values(x.data(), x.size());
    for (auto& v : x) v *= 40;
    TEXPANDS(factor, 2.0f);
  }
  void call() {
    for (int b = 0; b < 4; ++b) {
      GF gx(x.data() + b * 256), gy(y.data() + b * 256);
      GB gm(m.data() + b * 32);
      TLOAD(src, gx);
      TPARTMUL(prod, src, factor);
      TCMPS(bits, prod, 100.0f, CmpMode::GT);
      TSTORE(gy, prod);
      TSTORE(gm, bits);
    }
  }
  const void* out() const { return m.data(); }
  size_t out_bytes() const { return m.size(); }
};
"""


@dataclass
class Entry:
    """One case at one size: its driver id and what was measured."""

    spec: Spec
    n: int
    id: int
    bytes_ok: bool | None = None
    exact_bytes_ok: bool | None = None
    times: dict[str, dict[str, float]] = field(default_factory=dict)
    error: str = ""

    @property
    def name(self) -> str:
        return f"{self.spec.label} {self.spec.shape(self.n)}"

    def median(self, side: str) -> float | None:
        return self.times[side]["median_us"] if side in self.times else None


def cpp_struct(index: int, spec: Spec, n: int) -> str:
    tiles = spec.tiles(n)
    lines = [f"struct C{index} {{  // {spec.label} {spec.shape(n)}"]
    lines += [f"  using T_{t.var} = {t.cpp_type()};" for t in tiles]
    lines += [f"  std::vector<{CTYPE[t.dt]}> b_{t.var} = std::vector<{CTYPE[t.dt]}>({t.numel});" for t in tiles]
    lines += [f"  T_{t.var} {t.var};" for t in tiles]
    init = ", ".join(f"{t.var}({', '.join(map(str, t.vr_vc))})" for t in tiles if t.dynamic)
    lines.append(f"  C{index}()" + (f" : {init}" if init else "") + " {")
    lines += [f"    {t.var}.data() = b_{t.var}.data(); {t.cpp_fill()}" for t in tiles]
    lines.append("  }")
    lines.append(f"  void call() {{ {spec.cpp_call(n)}; }}")
    dst = next(t for t in tiles if t.var == spec.dst)
    lines.append(f"  const void* out() const {{ return b_{dst.var}.data(); }}")
    lines.append(f"  size_t out_bytes() const {{ return {dst.numel * np.dtype(NPTYPE[dst.dt]).itemsize}; }}")
    lines.append("};")
    return "\n".join(lines)


def driver_source(entries: list[Entry]) -> str:
    parts = [PRELUDE, KERNEL_CPP]
    parts += [cpp_struct(e.id, e.spec, e.n) for e in entries]
    kinds = [f"C{e.id}" for e in entries] + ["Kernel"]
    parts.append("static double (*TIMED[])(long) = {" + ", ".join(f"timed<{k}>" for k in kinds) + "};")
    parts.append("static void (*DUMP[])() = {" + ", ".join(f"dump<{k}>" for k in kinds) + "};")
    parts.append("""int main() {
  char op; int id; long reps;
  while (std::scanf(" %c", &op) == 1 && op != 'q') {
    if (op == 't' && std::scanf("%d %ld", &id, &reps) == 2) std::printf("%.6f\\n", TIMED[id](reps));
    else if (op == 'c' && std::scanf("%d", &id) == 1) DUMP[id]();
    else return 2;
    std::fflush(stdout);
  }
  return 0;
}""")
    return "\n".join(parts)


def build_driver(checkout: Path, work: Path, entries: list[Entry]) -> Path:
    from generate import patched_include  # the oracle's copy of include/ that GCC 12 accepts

    include = patched_include(checkout, work)
    source = work / "side_by_side.cpp"
    source.write_text(driver_source(entries))
    exe = work / "side_by_side"
    done = subprocess.run([*CXX, f"-I{include}", "-o", str(exe), str(source), "-pthread"],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit("the C++ driver does not build:\n" + done.stderr[-3000:])
    return exe


class Driver:
    """The C++ driver process, asked one timed loop or one dump at a time."""

    def __init__(self, exe: Path) -> None:
        self.proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1)

    def _ask(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the C++ driver stopped (exit {self.proc.wait()}) on {line!r}")
        return answer.strip()

    def time_us(self, index: int, reps: int) -> float:
        return float(self._ask(f"t {index} {reps}"))

    def dump(self, index: int) -> bytes:
        return bytes.fromhex(self._ask(f"c {index}"))

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("q\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


# --- timing ----------------------------------------------------------------------------------------------------------
class Sampler:
    """A calibrated loop: `sample()` returns one repeat's time per call in microseconds."""

    def __init__(self, run: Callable[[int], float], repeat_s: float) -> None:
        self.run = run  # run(number) -> us per call over `number` calls
        first = run(1)  # the first call (one-off work: caches, the driver's set-up)
        self.first_us = first
        number, per = 1, run(1)
        while number * per * 1e-6 < repeat_s and number < 1 << 20:
            number = max(number * 2, min(number * 16, int(repeat_s / max(per * 1e-6, 1e-9))))
            per = run(number)
        self.number, self.samples = number, [per]

    def sample(self) -> None:
        self.samples.append(self.run(self.number))

    def summary(self) -> dict[str, float]:
        return {"median_us": statistics.median(self.samples), "min_us": min(self.samples),
                "first_us": self.first_us, "calls_per_repeat": self.number, "repeats": len(self.samples),
                "samples_us": [round(x, 4) for x in self.samples]}


def _python_loop(fn: Callable[[], object]) -> Callable[[int], float]:
    def run(number: int) -> float:
        clock = time.perf_counter_ns
        t0 = clock()
        for _ in range(number):
            fn()
        return (clock() - t0) / number / 1e3

    return run


def interleaved(runs: dict[str, Callable[[int], float]], budget_s: float, repeat_s: float,
                min_repeats: int = 5) -> dict[str, dict[str, float]]:
    """Calibrate each loop, then alternate their repeats until `budget_s` is spent (at least `min_repeats`
    each), with the garbage collector off; per-call medians and minima."""
    samplers = {name: Sampler(run, repeat_s) for name, run in runs.items()}
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        deadline = time.perf_counter() + budget_s
        count = 1
        while count < min_repeats or time.perf_counter() < deadline:
            for sampler in samplers.values():
                sampler.sample()
            count += 1
    finally:
        if was_enabled:
            gc.enable()
    return {name: s.summary() for name, s in samplers.items()}


# --- one case at one size --------------------------------------------------------------------------------------------
def measure_entry(entry: Entry, driver: Driver, budget_s: float, repeat_s: float) -> None:
    spec, n = entry.spec, entry.n
    reference = driver.dump(entry.id)
    tiles = {t.var: t.make() for t in spec.tiles(n)}
    case = spec.py(n, tiles)
    dst = tiles[spec.dst].storage
    case.call()
    entry.bytes_ok = dst.tobytes() == reference
    if case.exact is not None:
        dst[...] = 0
        case.exact()
        entry.exact_bytes_ok = dst.tobytes() == reference
    runs = {"cpp": lambda number: driver.time_us(entry.id, number), "ptoisa": _python_loop(case.call),
            "floor": _python_loop(case.floor)}
    if case.exact is not None:
        runs["exact"] = _python_loop(case.exact)
    entry.times = interleaved(runs, budget_s, repeat_s)


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def print_entry(entry: Entry) -> None:
    ours, cpp, floor, exact = (entry.median(k) for k in ("ptoisa", "cpp", "floor", "exact"))
    check = {True: "same", False: "DIFFER", None: "-"}
    bytes_col = check[entry.bytes_ok] + (f"/{check[entry.exact_bytes_ok]}" if entry.exact_bytes_ok is not None
                                         else "")
    print(f"{entry.spec.label:<24}{entry.spec.shape(entry.n):>9}{_fmt(ours):>11}{_fmt(cpp):>11}{_fmt(floor):>10}"
          f"{_fmt(exact):>13}{_fmt(_ratio(ours, cpp)):>9}{_fmt(_ratio(ours, floor), 1):>9}"
          f"{_fmt(_ratio(ours, exact), 1):>9}{bytes_col:>13}", flush=True)


def summary_table(entries: list[Entry]) -> str:
    """The issue's table: ptoisa / C++ at the three sizes, ptoisa / floor at the largest."""
    lines = ["| case | ptoisa / C++ at 16x16 | at 64x64 | at 256x256 | ptoisa / floor at 256x256 |",
             "|---|---|---|---|---|"]
    for spec in CASES:
        mine = {e.n: e for e in entries if e.spec is spec}
        if not mine:
            continue
        cells = []
        for n in spec.sizes:
            e = mine.get(n)
            r = _ratio(e.median("ptoisa"), e.median("cpp")) if e else None
            cells.append("-" if r is None else (f"{r:.2f}" if r < 10 else f"{r:.1f}"))
        big = mine.get(spec.sizes[-1])
        floor = _ratio(big.median("ptoisa"), big.median("floor")) if big else None
        label = spec.label + (f" ({' / '.join(spec.shape(n) for n in spec.sizes)})" if spec.key.startswith("tci")
                              else "")
        if spec.note and spec.key in ("tpartmul_f32_partial",):
            label += f" ({spec.note})"
        lines.append(f"| {label} | {' | '.join(cells)} | {'-' if floor is None else f'{floor:.1f}'} |")
    return "\n".join(lines)


def kernel_line(driver: Driver, kernel_id: int, budget_s: float, repeat_s: float) -> dict[str, Any]:
    """The shipped scale/compare kernel per 16x16 block: the C++ loop next to the interpreter's figures from
    benchmarks/interp_costs.py (the steady state of a 64-block run, and the shipped run less an empty run), with
    its loops batched where they qualify (the default, ptoisa.interp.batch), and the same steady state with
    batching switched off (each turn in turn; measured the same way, its two runs interleaved)."""
    from interp_costs import measure, scale_compare
    from run import measure_pair

    from ptoisa.interp import batch

    cpp = interleaved({"cpp": lambda number: driver.time_us(kernel_id, number) / 4},
                      budget_s, repeat_s)["cpp"]
    rows = measure(measure_pair, budget_s, repeat_s, "cpu")
    per_block = [r for r in rows if r[0].startswith("scale_compare")]
    ref = cpp["median_us"]
    (_, steady, api, _), (_, shipped, _, _) = per_block
    (big, big_args), (small, small_args) = scale_compare(64), scale_compare(4)
    batching = batch.BATCH_FROM

    def in_turn(program: Any, args: tuple[Any, ...]) -> Callable[[], object]:
        def run() -> object:
            batch.BATCH_FROM = 1 << 62
            try:
                return program.run(*args, target="cpu")
            finally:
                batch.BATCH_FROM = batching

        return run

    run_big, run_small = measure_pair(in_turn(big, big_args), in_turn(small, small_args), budget_s, repeat_s)
    sequential = (run_big.median_us - run_small.median_us) / 60
    print(f"\nexamples/pto/run_scale_compare.pto per 16x16 block (TLOAD, TPARTMUL, TCMPS, 2 x TSTORE): C++ "
          f"{ref:.2f} us; ptoisa interpreter {steady:.2f} us ({steady / ref:.1f}x) in the steady state ((64-block "
          f"run - 4-block run) / 60; its loop batched: each op once over all turns, from {batching} turns), "
          f"{sequential:.2f} us ({sequential / ref:.1f}x) with batching off (turn after turn), {shipped:.2f} us "
          f"({shipped / ref:.1f}x) per block of the shipped run ((run - empty run) / 4, its set-up included; 4 "
          f"turns: {'batched' if 4 >= batching else 'turn after turn'}); the block's TPARTMUL + TCMPS through the "
          f"API (the blocks in turn) {api:.2f} us ({api / ref:.1f}x)")
    return {"cpp": cpp,
            "interpreter": [{"what": w, "ptoisa_us": o, "api_two_calls_us": a} for w, o, a, _ in per_block],
            "steady_state_unbatched_us": sequential, "batch_from_turns": batching}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", nargs="?", type=Path, help="a checkout of hw-native-sys/pto-isa")
    parser.add_argument("--quick", action="store_true", help="short timing budget (about 15 s in all)")
    parser.add_argument("--json", metavar="PATH", type=Path, help="also write every measurement to this JSON file")
    parser.add_argument("--only", metavar="TEXT", help="only cases whose label or key contains TEXT "
                                                        "(case-insensitive: 'TCMPS f32', 'tcmps_f32_gt')")
    parser.add_argument("--no-kernel", action="store_true", help="skip the scale/compare kernel line")
    args = parser.parse_args(argv)
    if args.checkout is None or not (args.checkout / "include" / "pto").is_dir():
        print("skipped: give a checkout of hw-native-sys/pto-isa (its include/pto is needed to build the driver)")
        return 0
    from run import source_fingerprint

    warnings.simplefilter("ignore")
    budget_s, repeat_s = (0.1, 0.0005) if args.quick else (1.0, 0.0005)
    specs = [s for s in CASES if not args.only or args.only.lower() in s.label.lower()
             or args.only.lower() in s.key.lower()]
    entries = [Entry(s, n, 0) for s in specs for n in s.sizes]
    for k, e in enumerate(entries):
        e.id = k
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        exe = build_driver(args.checkout, Path(tmp), entries)
        build_s = time.perf_counter() - t0
        driver = Driver(exe)
        try:
            print(f"ptoisa side by side with the C++ CPU simulator ({args.checkout}); ptoisa source "
                  f"{source_fingerprint()}, target cpu; Python {sys.version.split()[0]}, NumPy {np.__version__}, "
                  f"{os.cpu_count()} CPUs; driver built in {build_s:.0f} s: {' '.join(CXX)}")
            print(f"timing: medians of interleaved repeats (~{repeat_s * 1e3:g} ms each) for {budget_s:g} s per "
                  f"case and size, gc off; warnings ignored. bytes: ptoisa's dst after one call (/ the exact "
                  f"floor's) against the driver's\n")
            print(f"{'case':<24}{'size':>9}{'ptoisa us':>11}{'C++ us':>11}{'floor us':>10}{'exact fl. us':>13}"
                  f"{'/C++':>9}{'/floor':>9}{'/exact':>9}{'bytes':>13}")
            for entry in entries:
                try:
                    with ptoisa.target("cpu"):
                        measure_entry(entry, driver, budget_s, repeat_s)
                except ptoisa.PtoError as exc:
                    entry.error = f"{type(exc).__name__}: {exc}"
                    print(f"{entry.name:<33} SKIP {entry.error}", flush=True)
                    continue
                print_entry(entry)
            notes = [(s.label, s.floor_label, s.exact_label, s.note) for s in specs]
            print("\nfloors: " + "; ".join(f"{label}: {floor}" for label, floor, _, _ in notes))
            print("exact floors: " + "; ".join(f"{label}: {exact}" for label, _, exact, _ in notes if exact))
            print("notes: " + "; ".join(f"{label}: {note}" for label, _, _, note in notes if note))
            kernel = None if args.no_kernel else kernel_line(driver, len(entries), budget_s, repeat_s)
        finally:
            driver.close()
    wall = time.perf_counter() - start
    print("\n" + summary_table(entries))
    differ = [e.name for e in entries if e.bytes_ok is False or e.exact_bytes_ok is False]
    print(f"\nbytes against the driver: {sum(e.bytes_ok is True for e in entries)}/{len(entries)} same"
          + (f"; DIFFER: {', '.join(differ)}" if differ else "") + f"  (wall {wall:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(to_json(entries, kernel, args, wall, build_s), indent=2))
        print(f"wrote {args.json}")
    return 0


def to_json(entries: list[Entry], kernel: dict[str, Any] | None, args: argparse.Namespace, wall: float,
            build_s: float) -> dict[str, Any]:
    from run import source_fingerprint

    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    return {
        "meta": {"checkout": str(args.checkout), "compiler": gxx, "flags": CXX, "python": sys.version.split()[0],
                 "numpy": np.__version__, "platform": platform.platform(), "cpus": os.cpu_count(),
                 "ptoisa_source": source_fingerprint(), "quick": args.quick, "wall_s": wall, "build_s": build_s},
        "cases": [{"key": e.spec.key, "label": e.spec.label, "shape": e.spec.shape(e.n), "floor": e.spec.floor_label,
                   "exact_floor": e.spec.exact_label or None, "note": e.spec.note or None,
                   "bytes_same": e.bytes_ok, "exact_bytes_same": e.exact_bytes_ok, "error": e.error or None,
                   "us": e.times} for e in entries],
        "kernel_per_block": kernel,
        "summary_markdown": summary_table(entries),
    }


if __name__ == "__main__":
    raise SystemExit(main())
