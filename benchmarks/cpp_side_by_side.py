"""ptoisa next to the reference C++ CPU simulator and NumPy's floor, in one run, as ratios.

    python benchmarks/cpp_side_by_side.py PTO_ISA_CHECKOUT          # builds our C++ driver on the fly (g++)
    python benchmarks/cpp_side_by_side.py                           # no checkout: says so and stops

For every case and size (16x16, 64x64, 128x128) the driver (C++ written here, one function per case) times
the simulator's call in a loop: single thread (PTO_CPU_MAX_THREADS=1), `-O2 -DNDEBUG`, the Release flags. The
same shapes then run through ptoisa's public API (cpu target) and through NumPy's own op on the same bytes (the
floor). Times are medians of interleaved repeats; the ratios are what carry from machine to machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools" / "oracle"))

SIZES = (16, 64, 128)  # three 128x128 float tiles fit the simulator's 512 KiB UB; 256x256 ones do not


def _cpp_case(name: str, n: int, body: str, tiles: str) -> str:
    return f"""
static double {name}_{n}(int reps) {{
{tiles}
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {{
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {{ {body}; }}
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
  }}
  std::sort(times.begin(), times.end());
  return times[3];
}}"""


def _tile(var: str, ctype: str, rows: int, cols: int, slot: int, layout: str = "RowMajor") -> str:
    """A tile in UB slot `slot` (slots are 64 KiB apart: one 128x128 float tile each)."""
    return (f"  Tile<TileType::Vec, {ctype}, {rows}, {cols}, BLayout::{layout}, -1, -1> {var}({rows}, {cols});\n"
            f"  TASSIGN({var}, 0x{slot * 0x10000:x}); fill({var}.data(), {rows * cols});\n")


CASES = {
    # name: (C++ tiles(n), C++ call, ptoisa builder(n) -> (call, floor))
    "tadd_f32": (lambda n: _tile("d", "float", n, n, 0) + _tile("a", "float", n, n, 1) +
                 _tile("b", "float", n, n, 2), "TADD(d, a, b)"),
    "tmuls_f32": (lambda n: _tile("d", "float", n, n, 0) + _tile("a", "float", n, n, 1),
                  "TMULS(d, a, 0.5f)"),
    "texp_f32": (lambda n: _tile("d", "float", n, n, 0) + _tile("a", "float", n, n, 1), "TEXP(d, a)"),
    "trowsum_f32": (lambda n: _tile("a", "float", n, n, 1) + _tile("t", "float", n, n, 2) +
                    f"  Tile<TileType::Vec, float, {n}, 1, BLayout::ColMajor, -1, -1> d({n}, 1); TASSIGN(d, 0x0);\n",
                    "TROWSUM(d, a, t)"),
    "tcvt_f32_f16": (lambda n: _tile("d", "half", n, n, 0) + _tile("a", "float", n, n, 1),
                     "TCVT(d, a, RoundMode::CAST_RINT)"),
    "texpands_f32": (lambda n: _tile("d", "float", n, n, 0), "TEXPANDS(d, 1.5f)"),
    "tpartmul_f32": (lambda n: _tile("d", "float", n, n, 0) + _tile("a", "float", n, n, 1) +
                     _tile("b", "float", n, n, 2), "TPARTMUL(d, a, b)"),
    "tcmps_f32_gt": (lambda n: _tile("a", "float", n, n, 1) +
                     f"  Tile<TileType::Vec, uint8_t, {n}, {max(32, n // 8)}, BLayout::RowMajor, -1, -1> "
                     f"d({n}, {n // 8}); TASSIGN(d, 0x30000);\n", "TCMPS(d, a, 0.0f, CmpMode::GT)"),
}

PRELUDE = """#include <cstdint>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <vector>
#include <algorithm>
#include <pto/pto-inst.hpp>
using namespace pto;
template <typename T> static void fill(T* p, size_t n) { for (size_t i = 0; i < n; ++i) p[i] = (T)((i * 37 % 101) / 10.0 - 5); }
"""


# The shipped kernel examples/pto/run_scale_compare.pto written in C++ against the simulator (one block: load a
# 16x16 slice, multiply by the broadcast scale, compare with the threshold, store both); timed per block.
KERNEL_CPP = """
static double scale_compare_block(int reps) {
  using T16 = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1>;
  using TBits = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1>;
  using GF = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  using GB = GlobalTensor<uint8_t, Shape<1, 1, 1, 16, 2>, Stride<1, 1, 1, 2, 1>>;
  T16 src(16, 16), factor(16, 16), prod(16, 16);
  TBits bits(16, 2);
  TASSIGN(src, 0x0); TASSIGN(factor, 0x10000); TASSIGN(prod, 0x20000); TASSIGN(bits, 0x30000);
  std::vector<float> x(64 * 16), y(64 * 16);
  std::vector<uint8_t> m(64 * 2);
  fill(x.data(), x.size());
  TEXPANDS(factor, 2.0f);
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
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
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (reps * 4));
  }
  std::sort(times.begin(), times.end());
  return times[3];
}"""


def build_driver(checkout: Path, work: Path) -> Path:
    from generate import patched_include  # the oracle's copy of include/ that GCC 12 accepts

    include = patched_include(checkout, work)
    parts = [PRELUDE]
    calls = []
    for name, (tiles, call) in CASES.items():
        for n in SIZES:
            parts.append(_cpp_case(name, n, call, tiles(n)))
            calls.append(f'  std::printf("{name} {n} %.3f\\n", {name}_{n}(reps({n})));')
    parts.append(KERNEL_CPP)
    calls.append('  std::printf("scale_compare_block 16 %.3f\\n", scale_compare_block(5000));')
    parts.append("static int reps(int n) { return n <= 16 ? 20000 : n <= 64 ? 4000 : 300; }")
    parts.append("int main() {\n" + "\n".join(calls) + "\n  return 0;\n}")
    source = work / "bench.cpp"
    source.write_text("\n".join(parts))
    exe = work / "bench"
    done = subprocess.run(["g++", "-std=c++20", "-O2", "-DNDEBUG", "-D__CPU_SIM", "-DPTO_CPU_MAX_THREADS=1",
                           f"-I{include}", "-o", str(exe), str(source), "-pthread"], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit("the C++ driver does not build:\n" + done.stderr[-2000:])
    return exe


def python_case(name: str, n: int):  # noqa: ANN201
    import ptoisa
    from ptoisa import BLayout, Tile, TileType

    def tile(dtype, rows, cols, layout=BLayout.RowMajor):  # noqa: ANN001, ANN202
        t = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](rows, cols)
        t.set_logical(((np.arange(rows * cols) * 37 % 101) / 10.0 - 5).reshape(rows, cols))
        return t

    a, b, d = tile(float, n, n), tile(float, n, n), tile(float, n, n)
    x, y, o = a.storage, b.storage, d.storage
    if name == "tadd_f32":
        return lambda: ptoisa.TADD(d, a, b), lambda: np.add(x, y, out=o)
    if name == "tmuls_f32":
        return lambda: ptoisa.TMULS(d, a, 0.5), lambda: np.multiply(x, np.float32(0.5), out=o)
    if name == "texp_f32":
        return lambda: ptoisa.TEXP(d, a), lambda: np.exp(x, out=o)
    if name == "trowsum_f32":
        col = tile(float, n, 1, BLayout.ColMajor)
        grid = x.reshape(n, n)
        return lambda: ptoisa.TROWSUM(col, a, b), lambda: np.sum(grid, axis=1, out=col.storage)
    if name == "tcvt_f32_f16":
        h = tile(ptoisa.half, n, n)
        return lambda: ptoisa.TCVT(h, a, ptoisa.RoundMode.CAST_RINT), \
            lambda: np.copyto(h.storage, x, casting="unsafe")
    if name == "texpands_f32":
        return lambda: ptoisa.TEXPANDS(d, 1.5), lambda: o.fill(1.5)
    if name == "tpartmul_f32":
        return lambda: ptoisa.TPARTMUL(d, a, b), lambda: np.multiply(x, y, out=o)
    if name == "tcmps_f32_gt":
        m = Tile[TileType.Vec, ptoisa.uint8_t, n, max(32, n // 8), BLayout.RowMajor, -1, -1](n, n // 8)
        grid, bits = x.reshape(n, n), np.empty((n, n), bool)

        def floor() -> object:
            np.greater(grid, 0.0, out=bits)
            return np.packbits(bits, axis=1, bitorder="little")

        return lambda: ptoisa.TCMPS(m, a, 0.0, ptoisa.CmpMode.GT), floor
    raise KeyError(name)


def _median_us(fn, budget: float = 0.2) -> float:  # noqa: ANN001
    fn()
    number = max(1, int(0.002 / max(_once(fn), 1e-7)))
    samples, end = [], time.perf_counter() + budget
    while time.perf_counter() < end or len(samples) < 5:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number * 1e6)
    return statistics.median(samples)


def _once(fn) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", nargs="?", type=Path, help="a checkout of hw-native-sys/pto-isa")
    args = parser.parse_args(argv)
    if args.checkout is None or not (args.checkout / "include" / "pto").is_dir():
        print("skipped: give a checkout of hw-native-sys/pto-isa (its include/pto is needed to build the driver)")
        return 0
    import ptoisa

    with tempfile.TemporaryDirectory() as tmp:
        exe = build_driver(args.checkout, Path(tmp))
        cpp = {}
        for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines():
            name, n, us = line.split()
            cpp[(name, int(n))] = float(us)
    print(f"{'case':<16}{'size':>8}{'C++ us':>10}{'ptoisa us':>11}{'floor us':>10}{'ptoisa/C++':>12}"
          f"{'ptoisa/floor':>14}")
    with ptoisa.target("cpu"):
        for name in CASES:
            for n in SIZES:
                call, floor = python_case(name, n)
                ours, base = _median_us(call), _median_us(floor)
                ref = cpp[(name, n)]
                print(f"{name:<16}{f'{n}x{n}':>8}{ref:>10.2f}{ours:>11.2f}{base:>10.2f}{ours / ref:>12.2f}"
                      f"{ours / base:>14.2f}")
        print()
        kernel_us, steady_us, run_us = _kernel_per_block()
        ref = cpp[("scale_compare_block", 16)]
        print(f"examples/pto/run_scale_compare.pto, per 16x16 block (tload, tpartmul, tcmps, 2 x tstore): C++ "
              f"{ref:.2f} us; ptoisa interpreter {kernel_us:.2f} us ({kernel_us / ref:.1f}x) with the kernel's "
              f"set-up spread over its 4 blocks, {steady_us:.2f} us ({steady_us / ref:.1f}x) per block in a "
              f"64-block run; a whole run() of 4 blocks {run_us:.1f} us")
    return 0


def _kernel_per_block() -> tuple[float, float, float]:
    """The interpreter's time per block of the shipped kernel: (run time - empty-run time) / 4, the steady state
    (a 64-block run less the 4-block run, / 60; C++ times its loop alone), and a run."""
    import ptoisa
    from interp_costs import scale_compare

    (program, args), (big, big_args) = scale_compare(4), scale_compare(64)
    empty = ptoisa.load("func.func @k() {\n  return\n}\n")
    run = _median_us(lambda: program.run(*args, target="cpu"))
    fixed = _median_us(lambda: empty.run(target="cpu"))
    run_big = _median_us(lambda: big.run(*big_args, target="cpu"))
    return (run - fixed) / 4, (run_big - run) / 60, run


if __name__ == "__main__":
    raise SystemExit(main())
