"""What a kernel developer waits for: the `ptoisa` command's wall time, start to exit, and its import share.

    .venv/bin/python benchmarks/cli_costs.py               # 9 interleaved runs of each command (about 30 s)
    .venv/bin/python benchmarks/cli_costs.py --repeats 21  # steadier medians
    .venv/bin/python benchmarks/cli_costs.py --source      # also with ptoisa's sources compiled at each start
    git archive OLD src | tar -x -C /tmp/old && \
    .venv/bin/python benchmarks/cli_costs.py --baseline /tmp/old/src   # the commands of another version too

Every command is a fresh `python -m ptoisa ...` subprocess on a shipped example (`--help`; `run` of
examples/pto/run_scale_compare.pto, `check` of the same file, `convert --to dps` of examples/pto/ssa_kernel.pto),
run in turn with the floors (a bare interpreter; `import numpy, ml_dtypes`; the xDSL modules ptoisa loads; both),
so that a burst of load from other processes hits every row alike. The table gives the median and the minimum
wall time, and the median CPU time (user + system) of the child, which moves less with the machine's load.

`import` is the time spent importing (Python's `-X importtime`, the sum of the top-level imports, from one extra
run per command: that run is slower than the others, so the share is the figure to read, not the
milliseconds); the rest is argparse, parsing, verifying, running and writing.

Bytecode: by default the children import compiled bytecode, as an installed ptoisa does (a private
PYTHONPYCACHEPREFIX, filled by a first untimed run, so that nothing is written into the source tree).
`--source` adds a second table for a source checkout run with PYTHONDONTWRITEBYTECODE=1 and no __pycache__
under src/ (as in this project's sandbox): ptoisa's own modules are compiled at every start, while the
standard library, NumPy and xDSL load their installed bytecode.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/pto/run_scale_compare.pto"
XDSL = ("xdsl.context", "xdsl.dialects.builtin", "xdsl.dialects.func", "xdsl.dialects.arith",
        "xdsl.dialects.scf", "xdsl.parser", "xdsl.printer")
"""The xDSL modules ptoisa's text front end loads for a kernel without memref ops (the dialects it parses, the
parser and the printer; memref is loaded when the text names it)."""

COMMANDS: dict[str, list[str]] = {
    "ptoisa --help": ["--help"],
    "ptoisa run": ["run", EXAMPLE, "examples/pto/data/x_64x16_f32.npy", "zeros:64x16", "zeros:64x2", "2.0",
                   "100.0"],
    "ptoisa check": ["check", EXAMPLE],
    "ptoisa convert": ["convert", "examples/pto/ssa_kernel.pto", "--to", "dps"],
}
_PAUSED = "import gc; gc.disable(); import {}; gc.freeze(); gc.enable()"
FLOORS: dict[str, str] = {
    "floor: python": "pass",
    "floor: numpy + ml_dtypes": _PAUSED.format("numpy, ml_dtypes"),
    "floor: xDSL (what ptoisa loads)": _PAUSED.format(", ".join(XDSL)),
    "floor: numpy + ml_dtypes + xDSL": _PAUSED.format("numpy, ml_dtypes, " + ", ".join(XDSL)),
}
"""The floors import as `ptoisa` does (ptoisa.cli.main._start_up): with the cyclic garbage collector paused."""


SRC = str(ROOT / "src")


def _argv(row: str, importtime: bool = False) -> list[str]:
    flags = ["-X", "importtime"] if importtime else []
    command = row.removesuffix(" (baseline)")
    if command in COMMANDS:
        return [sys.executable, *flags, "-m", "ptoisa", *COMMANDS[command]]
    return [sys.executable, *flags, "-c", FLOORS[row]]


def _env(prefix: str, bytecode: bool, src: str = SRC) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = prefix
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env.pop("PYTHONPYCACHEPREFIX", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _wall(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _import_share(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds importing, wall seconds) of one run under -X importtime."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    total = 0
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            fields = line.split("|")
            name = fields[2]
            if fields[1].strip().isdigit() and name.startswith(" ") and not name.startswith("  "):
                total += int(fields[1])  # a top-level import: its cumulative microseconds
    return total / 1e6, wall


Row = tuple[str, list[tuple[float, float]], "float | None"]


def measure(repeats: int, bytecode: bool, baseline: str | None = None) -> list[Row]:
    """Each row's runs, interleaved; a row named `... (baseline)` runs the same command from `baseline`."""
    rows = [*COMMANDS, *(f"{c} (baseline)" for c in COMMANDS if baseline), *FLOORS]
    with tempfile.TemporaryDirectory(prefix="ptoisa-pyc-") as prefix:
        envs = {row: _env(prefix, bytecode, baseline if row.endswith("(baseline)") and baseline else SRC)
                for row in rows}
        if bytecode:
            for row in rows:  # fill the private bytecode cache; not timed
                _wall(_argv(row), envs[row])
        times: dict[str, list[tuple[float, float]]] = {row: [] for row in rows}
        for _ in range(repeats):
            for row in rows:
                times[row].append(_wall(_argv(row), envs[row]))
        shares = {}
        for row in rows:
            if not row.startswith("floor"):
                imported, wall = _import_share(_argv(row, importtime=True), envs[row])
                shares[row] = imported / wall
    return [(row, times[row], shares.get(row)) for row in rows]


def print_table(title: str, results: list[Row]) -> None:
    print(f"\n{title}")
    print(f"{'command':34s} {'median ms':>10s} {'min ms':>8s} {'CPU ms':>8s} {'import share':>13s}")
    for row, runs, share in results:
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        share_text = f"{100 * share:12.0f}%" if share is not None else ""
        print(f"{row:34s} {1000 * statistics.median(walls):10.0f} {1000 * min(walls):8.0f} "
              f"{1000 * statistics.median(cpus):8.0f} {share_text:>13s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=9, help="interleaved runs of each row (default 9)")
    parser.add_argument("--source", action="store_true",
                        help="also measure with ptoisa's own modules compiled at each start")
    parser.add_argument("--baseline", metavar="SRC", help="also run the commands from this `src` folder (another "
                                                          "version of ptoisa, e.g. from git archive), interleaved")
    args = parser.parse_args()
    if args.baseline and not (Path(args.baseline) / "ptoisa" / "__init__.py").is_file():
        parser.error(f"{args.baseline} holds no ptoisa package (give the src folder)")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.repeats} interleaved runs per row, "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    print_table("bytecode cached (as installed)", measure(args.repeats, True, args.baseline))
    if args.source:
        cached = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("__pycache__"))
        note = f" (but {len(cached)} __pycache__ folders exist under src/, e.g. {cached[0]})" if cached else ""
        print_table(f"source checkout, PYTHONDONTWRITEBYTECODE=1: ptoisa compiled at each start{note}",
                    measure(args.repeats, False, args.baseline))


if __name__ == "__main__":
    main()
