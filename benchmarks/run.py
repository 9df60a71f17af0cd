"""ptoisa instruction benchmark: time per call against the NumPy floor for the same bytes.

    .venv/bin/python benchmarks/run.py                   # cpu target, full run (~30 s on 2 cores)
    .venv/bin/python benchmarks/run.py --quick           # short timing budget (~5-10 s)
    .venv/bin/python benchmarks/run.py --target a2a3     # a2a3 | a5 | cpu
    .venv/bin/python benchmarks/run.py --json out.json   # also write every measurement as JSON
    .venv/bin/python benchmarks/run.py --only TCMPS      # cases whose name contains a substring
    .venv/bin/python benchmarks/run.py --stagger         # tiles at staggered offsets mod 4 KiB (4K aliasing)

See benchmarks/README.md for what is compared and how to read the ratios. No dependency beyond ptoisa's own.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS on one thread, as the simulator (before NumPy)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import ptoisa  # noqa: F401
except ImportError:  # not installed: use the source tree next to benchmarks/
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import numpy as np  # noqa: E402

import cases  # noqa: E402
import ptoisa  # noqa: E402,F811
from cases import Case, all_cases  # noqa: E402

SMALL_FACTOR = 2.0   # 16x16 (TCI 1x16): "within 2x of its NumPy floor" (issue 8)
LARGE_FACTOR = 1.3   # 256x256 (TCI 1x65536): "within 1.3x of its floor" (issue 8)


@dataclass
class Timing:
    first_us: float
    min_us: float
    median_us: float
    calls_per_repeat: int
    repeats: int


@dataclass
class Result:
    case: Case
    ptoisa: Timing | None = None
    floor: Timing | None = None
    note: str = ""
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.ptoisa is None or self.floor is None or self.floor.median_us <= 0:
            return None
        return self.ptoisa.median_us / self.floor.median_us

    @property
    def limit_us(self) -> float | None:
        if self.floor is None:
            return None
        return (SMALL_FACTOR if self.case.small else LARGE_FACTOR) * self.floor.median_us

    @property
    def verdict(self) -> str:
        if self.error:
            return "SKIP"
        assert self.ptoisa is not None and self.limit_us is not None
        return "PASS" if self.ptoisa.median_us <= self.limit_us else "FAIL"


def _first_call(fn: Any) -> float:
    t0 = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - t0) / 1e3


def _calibrate(fn: Any, repeat_s: float) -> tuple[int, float]:
    """The number of calls that makes one repeat last about `repeat_s`, and that repeat's per-call time (ns)."""
    clock, number = time.perf_counter_ns, 1
    while True:
        t0 = clock()
        for _ in range(number):
            fn()
        elapsed = clock() - t0
        if elapsed >= repeat_s * 1e9 or number >= 1 << 20:
            return number, elapsed / number
        number *= 2 if elapsed * 2 >= repeat_s * 1e9 else max(2, min(16, int(repeat_s * 1e9 / max(elapsed, 1))))


def _repeat(fn: Any, number: int) -> float:
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(number):
        fn()
    return (clock() - t0) / number


def measure_pair(call: Any, floor: Any, budget_s: float, repeat_s: float,
                 min_repeats: int = 5) -> tuple[Timing, Timing]:
    """Time the instruction and its floor: one first call each, then interleaved repeats of calibrated loops.

    Each inner loop runs enough calls to last about `repeat_s`; instruction and floor repeats alternate until
    `budget_s` is spent (at least `min_repeats` each), so that a burst of load from elsewhere on the machine hits
    both sides alike. The garbage collector is off while timing, as in timeit. Per-call min and median.
    """
    first_call, first_floor = _first_call(call), _first_call(floor)
    n_call, s_call = _calibrate(call, repeat_s)
    n_floor, s_floor = _calibrate(floor, repeat_s)
    calls, floors = [s_call], [s_floor]
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        deadline = time.perf_counter() + budget_s
        while len(calls) < min_repeats or time.perf_counter() < deadline:
            calls.append(_repeat(call, n_call))
            floors.append(_repeat(floor, n_floor))
            if len(calls) >= 10_000:
                break
    finally:
        if gc_was_enabled:
            gc.enable()

    def timing(first: float, samples: list[float], number: int) -> Timing:
        return Timing(first, min(samples) / 1e3, statistics.median(samples) / 1e3, number, len(samples))

    return timing(first_call, calls, n_call), timing(first_floor, floors, n_floor)


def run_case(case: Case, target: str, budget_s: float, repeat_s: float) -> Result:
    result = Result(case)
    try:
        bench = case.build(target, case.size)
        result.note = bench.note
        result.ptoisa, result.floor = measure_pair(bench.call, bench.floor, budget_s, repeat_s)
    except ptoisa.PtoError as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    return result


# --- output -----------------------------------------------------------------------------------------------------
def _fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def print_table(results: list[Result]) -> None:
    headers = ["case", "floor op", "1st us", "ptoisa us", "min us", "floor us", "ratio", "over us", "limit us",
               "verdict", "C++ us"]
    rows = []
    for r in results:
        c = r.case
        if r.error:
            rows.append([c.name, c.floor_label, "-", "-", "-", "-", "-", "-", "-", "SKIP", _fmt(c.cpp_us, 0)])
            continue
        assert r.ptoisa and r.floor
        ratio = r.ratio
        rows.append([
            c.name, c.floor_label, _fmt(r.ptoisa.first_us), _fmt(r.ptoisa.median_us), _fmt(r.ptoisa.min_us),
            _fmt(r.floor.median_us, 2), f"{ratio:.1f}x" if ratio is not None else "-",
            _fmt(r.ptoisa.median_us - r.floor.median_us), _fmt(r.limit_us), r.verdict, _fmt(c.cpp_us, 0),
        ])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    left = {0, 1, 9}

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths)))

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))
    notes = [(r.case.name, r.error or r.note) for r in results if r.error or r.note]
    for name, note in notes:
        print(f"  note: {name}: {note}")


def summary(results: list[Result]) -> str:
    done = [r for r in results if not r.error]
    passed = sum(r.verdict == "PASS" for r in done)
    small = [r for r in done if r.case.small]
    large = [r for r in done if not r.case.small]
    parts = [f"{passed}/{len(done)} PASS"]
    if small:
        parts.append(f"small: {sum(r.verdict == 'PASS' for r in small)}/{len(small)} within {SMALL_FACTOR:g}x floor")
    if large:
        parts.append(f"large: {sum(r.verdict == 'PASS' for r in large)}/{len(large)} within "
                     f"{LARGE_FACTOR:g}x floor")
    skipped = len(results) - len(done)
    if skipped:
        parts.append(f"{skipped} skipped")
    return "; ".join(parts)


def print_cpp_reference(results: list[Result]) -> None:
    print("\nC++ CPU-simulator reference (single thread; 256x256 f32, TCI 1x65536 i32) vs ptoisa median:")
    for r in results:
        if r.case.cpp_us is None or r.error or r.ptoisa is None:
            continue
        print(f"  {r.case.name:<36} C++ {r.case.cpp_us:6.0f} us   ptoisa {r.ptoisa.median_us:8.1f} us   "
              f"({r.ptoisa.median_us / r.case.cpp_us:.1f}x the C++ figure)")


def to_json(results: list[Result], args: argparse.Namespace, wall_s: float) -> dict[str, Any]:
    def timing(t: Timing | None) -> dict[str, Any] | None:
        return None if t is None else t.__dict__

    return {
        "target": args.target,
        "quick": args.quick,
        "stagger": args.stagger,
        "warnings": "ignored (warnings.simplefilter('ignore'))",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "ptoisa": getattr(ptoisa, "__version__", "?"),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "source_fingerprint": source_fingerprint(),
        "wall_s": round(wall_s, 2),
        "criteria": {"small_factor": SMALL_FACTOR, "large_factor": LARGE_FACTOR},
        "results": [
            {
                "case": r.case.name, "key": r.case.key, "size": r.case.size, "floor_op": r.case.floor_label,
                "ptoisa": timing(r.ptoisa), "floor": timing(r.floor), "ratio": r.ratio, "limit_us": r.limit_us,
                "verdict": r.verdict, "cpp_reference_us": r.case.cpp_us, "note": r.note, "error": r.error,
            }
            for r in results
        ],
    }


def source_fingerprint() -> str:
    """A short hash of ptoisa's source files, to tell which version of the code a table was measured on."""
    root = os.path.dirname(os.path.abspath(ptoisa.__file__))
    digest = hashlib.sha1()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as fh:
                    digest.update(name.encode() + fh.read())
    return digest.hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timing budget (~5-10 s in total)")
    parser.add_argument("--target", default="cpu", choices=("a2a3", "a5", "cpu"), help="ptoisa target (default cpu)")
    parser.add_argument("--json", metavar="OUT", help="write all measurements to this JSON file")
    parser.add_argument("--only", metavar="TEXT", help="only cases whose name contains TEXT (case-insensitive)")
    parser.add_argument("--stagger", action="store_true",
                        help="re-seat tile storage at staggered offsets mod 4 KiB (shows the 4K-aliasing cost)")
    args = parser.parse_args(argv)
    cases.STAGGER = args.stagger

    # ptoisa announces errata with ErratumWarning (and fallbacks with ModeFallbackWarning); they would flood the
    # output and the warnings machinery is not what is being measured, so all warnings are ignored.
    warnings.simplefilter("ignore")
    budget_s, repeat_s = (0.12, 0.001) if args.quick else (0.80, 0.002)
    selected = all_cases(args.target)
    if args.only:
        selected = [c for c in selected if args.only.lower() in c.name.lower()]

    print(f"ptoisa {getattr(ptoisa, '__version__', '?')} benchmark: target={args.target}, "
          f"{'quick' if args.quick else 'full'} run, Python {sys.version.split()[0]}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs, ptoisa source {source_fingerprint()}")
    if args.stagger:
        print("storage: --stagger: every tile's storage re-seated at a different offset modulo 4 KiB")
    print("warnings: ignored for the whole run (warnings.simplefilter('ignore')); ErratumWarning / "
          "ModeFallbackWarning are not shown")
    print(f"timing: per-call median (and min) over repeats of calibrated loops (~{repeat_s * 1e3:g} ms each), "
          f"instruction and floor interleaved for {budget_s:g} s per case, gc off")
    print(f"goals (issue 8): 16x16 (and TCI 1x16) PASS if median <= {SMALL_FACTOR:g} * floor; 256x256 (and TCI "
          f"1x65536) PASS if median <= {LARGE_FACTOR:g} * floor\n")

    start = time.perf_counter()
    results = []
    with ptoisa.target(args.target):
        for case in selected:
            results.append(run_case(case, args.target, budget_s, repeat_s))
    wall = time.perf_counter() - start

    if results:
        print_table(results)
        print_cpp_reference(results)
    if not args.only or "interp" in args.only.lower():
        from interp_costs import measure, print_rows

        print_rows(measure(measure_pair, budget_s, repeat_s, args.target))
    print(f"\n{summary(results)}  (wall {wall:.1f} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(to_json(results, args, wall), fh, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
