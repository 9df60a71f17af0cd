"""The interpreter's costs, measured beside the API call it makes and NumPy's floor (imported by run.py).

* per run: `Program.run` of a kernel with no op (argument binding, decoding cached after the first run);
* per op: a kernel whose scf.for runs N TADDs on 16x16 float tiles, (time - per-run) / N, next to one
  `ptoisa.TADD` call on the same tiles and to `np.add` on their storages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ptoisa

TILE = "!pto.tile_buf<vec, 16x16xf32>"
EMPTY = """module {
  func.func @k(%x: !pto.ptr<f32>) {
    return
  }
}
"""
LOOP = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %n: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = pto.alloc_tile : {TILE}
    %b = pto.alloc_tile : {TILE}
    scf.for %i = %c0 to %n step %c1 {{
      pto.tadd ins(%a, %b : {TILE}, {TILE}) outs(%a : {TILE})
    }}
    return
  }}
}}
"""
OPS = 256


def measure(measure_pair: Any, budget_s: float, repeat_s: float, target: str) -> list[tuple[str, float, float]]:
    """(what, ptoisa median us, reference median us) rows."""
    x = np.zeros(16, np.float32)
    empty = ptoisa.load(EMPTY, target=target)
    loop = ptoisa.load(LOOP, target=target)
    run_empty, floor_empty = measure_pair(lambda: empty.run(x), lambda: None, budget_s, repeat_s)
    run_loop, _ = measure_pair(lambda: loop.run(x, OPS), lambda: None, budget_s, repeat_s)
    T = ptoisa.Tile[ptoisa.TileType.Vec, np.float32, 16, 16]
    a, b = T(), T()
    api, floor = measure_pair(lambda: ptoisa.TADD(a, a, b, target=target),
                              lambda: np.add(a.storage, b.storage, a.storage), budget_s, repeat_s)
    per_op = (run_loop.median_us - run_empty.median_us) / OPS
    return [("run() of an empty kernel (fixed cost per run)", run_empty.median_us, floor_empty.median_us),
            (f"one TADD 16x16 in an scf.for ({OPS} iterations)", per_op, floor.median_us),
            ("one ptoisa.TADD 16x16 call (the API)", api.median_us, floor.median_us)]


def print_rows(rows: list[tuple[str, float, float]]) -> None:
    print("\nInterpreter (medians; the reference column is an empty lambda for the run, np.add on the same "
          "storages for the ops):")
    for what, ours, ref in rows:
        print(f"  {what:<50} {ours:8.2f} us   reference {ref:6.2f} us   ratio {ours / ref if ref else 0:5.1f}x")
