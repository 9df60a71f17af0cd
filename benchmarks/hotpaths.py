"""Profile the hot paths of benchmark cases with cProfile (where does the per-call Python time go?).

    .venv/bin/python benchmarks/hotpaths.py                          # the default slow cases, cpu target
    .venv/bin/python benchmarks/hotpaths.py --target a2a3 --only "TCMPS f32 GT scalar 256"
    .venv/bin/python benchmarks/hotpaths.py --calls 2000 --top 15 --sort cumulative

cProfile adds a fixed cost per Python function call, so absolute times are inflated (most for 16x16 tiles);
read the ranking and the call counts per instruction call, not the totals. Warnings are ignored, as in run.py.
(Not named profile.py: that would shadow the standard-library module cProfile imports.)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import ptoisa  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import ptoisa  # noqa: E402,F811
from cases import all_cases  # noqa: E402

DEFAULT = (
    "TEXPANDS Mat f32 256x256", "TPARTMUL f32 all valid 256x256", "TPARTMUL f32 all valid 16x16",
    "TCMPS f32 GT scalar 256x256", "TCMPS f32 GT scalar 16x16", "TCMPS f16 EQ scalar 256x256",
    "TGATHER idx f32/i32 +tmp 256x256", "TGATHER mask P0101 row 256x256", "TGATHER mask P0101 col 256x256",
    "TGATHER cmp f32 GT 256x256", "TCI i32 1x65536", "TCI i32 1x16",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cpu", choices=("a2a3", "a5", "cpu"))
    parser.add_argument("--only", action="append", metavar="TEXT",
                        help="profile cases whose name contains TEXT (repeatable; default: a list of slow cases)")
    parser.add_argument("--calls", type=int, default=0, help="calls per case (default: about 0.5 s of calls)")
    parser.add_argument("--top", type=int, default=12, help="functions shown per case")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative", "ncalls"))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    wanted = args.only or list(DEFAULT)
    cases = [c for c in all_cases(args.target) if any(w.lower() in c.name.lower() for w in wanted)]
    with ptoisa.target(args.target):
        for case in cases:
            bench = case.build(args.target, case.size)
            bench.call()
            t0 = time.perf_counter()
            bench.call()
            one = max(time.perf_counter() - t0, 1e-6)
            calls = args.calls or max(20, min(20000, int(0.5 / one)))
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(calls):
                bench.call()
            profiler.disable()
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats(args.sort).print_stats(args.top)
            print(f"=== {case.name} (target {args.target}, {calls} calls, {one * 1e6:.1f} us/call unprofiled) ===")
            lines = out.getvalue().splitlines()
            start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
            print("\n".join(_shorten(line) for line in lines[start:] if line.strip()))
            print()
    return 0


def _shorten(line: str) -> str:
    src = os.path.join(os.path.dirname(HERE), "src") + os.sep
    line = line.replace(src, "")
    return line if len(line) < 160 else line[:157] + "..."


if __name__ == "__main__":
    sys.exit(main())
