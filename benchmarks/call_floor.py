"""How cheap can a Python entry to a 16x16 TADD be? The floor a pure-Python call cannot go under.

    .venv/bin/python benchmarks/call_floor.py [--size N]

Times, interleaved in one process (min of many repeats, microseconds):
  floor        np.add(x, y, out) on the tiles' storages (NumPy's own call)
  quiet        the same add inside ptoisa's quiet floating-point context (QUIET.run)
  bare entry   a plain Python function doing only what any entry must: test that the three operands are tiles,
               find the target, look the signature's compiled call up (here: the ufunc itself) and run it quiet
  as method    the same body as a `__call__` of an instance (how `ptoisa.TADD(...)` is reached: an instruction
               is an object; CPython 3.11 calls an instance through its type's slot, not by vectorcall)
  ptoisa.TADD  the real call
The gap between "bare entry" and "floor" is what the issue's 16x16 goal (within 2x of the floor) leaves for
Python: on this project's machine it is already over that budget before any of ptoisa's own work.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import ptoisa
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    import ptoisa

from cases import _vec  # noqa: E402
from ptoisa._quiet import QUIET  # noqa: E402
from ptoisa.targets import context_target, current_config  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="tile rows and columns (default 16)")
    args = parser.parse_args(argv)
    n = args.size
    Tile = ptoisa.Tile
    with ptoisa.target("cpu"):
        a, b, d = (_vec(float, n, n) for _ in range(3))
        a.set_logical(np.ones((n, n), np.float32))
        b.set_logical(np.ones((n, n), np.float32))
        table = {(context_target(), d.spec, a.spec, b.spec): np.add}
        x, y, out, add, tadd = a.storage, b.storage, d.storage, np.add, ptoisa.TADD

        def entry(a0, a1, a2, /, *events, target=None, **kwargs):  # type: ignore[no-untyped-def]
            if type(a0) is Tile and type(a1) is Tile and type(a2) is Tile and not events and not kwargs:
                config = context_target()
                if config is None:
                    config = current_config()
                ufunc = table.get((config, a0.spec, a1.spec, a2.spec))
                if ufunc is not None:
                    QUIET.run(ufunc, a1.storage, a2.storage, a0.storage)
                    return None
            raise AssertionError("not the benchmark's signature")

        class Entry:
            __slots__ = ()
            __call__ = staticmethod(entry)  # (no self: the body is the same function's)

        method = Entry()
        cases = {"floor": lambda: add(x, y, out), "quiet": lambda: QUIET.run(add, x, y, out),
                 "bare entry": lambda: entry(d, a, b), "as method": lambda: method(d, a, b),
                 "ptoisa.TADD": lambda: tadd(d, a, b)}
        best = dict.fromkeys(cases, float("inf"))
        for _ in range(9):
            for name, call in cases.items():
                t = min(timeit.repeat(call, number=4000, repeat=3)) / 4000 * 1e6
                best[name] = min(best[name], t)
    print(f"TADD f32 {n}x{n}, cpu target (min of interleaved repeats)")
    for name, t in best.items():
        print(f"  {name:12s} {t:6.3f} us   {t / best['floor']:4.2f}x the floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
