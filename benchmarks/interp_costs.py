"""The interpreter's costs, measured beside the API calls it makes and NumPy's floor (imported by run.py).

* per run: `Program.run` of a kernel with no op (argument binding, decoding cached after the first run);
* per op: a kernel whose scf.for runs N TADDs on 16x16 float tiles, (time - per-run) / N, next to one
  `ptoisa.TADD` call on the same tiles and to `np.add` on their storages;
* per block of the shipped kernel `examples/pto/run_scale_compare.pto` (tload, tpartmul, tcmps, two tstores per
  16x16 block): the steady state, (a 64-block run - a 4-block run) / 60, and the shipped 4-block run less an
  empty run, / 4 (this also spreads the kernel's set-up, its views, tiles and TEXPANDS, over the blocks); next
  to its two instructions (TPARTMUL + TCMPS on the same tile types) through the API.
"""

from __future__ import annotations

import itertools
from pathlib import Path
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
SCALE_COMPARE = Path(__file__).resolve().parent.parent / "examples" / "pto" / "run_scale_compare.pto"


def scale_compare(blocks: int) -> tuple[Any, tuple[Any, ...]]:
    """The shipped scale/compare kernel over `blocks` 16x16 blocks (the shipped file has 4) and its arguments."""
    text = SCALE_COMPARE.read_text()
    rows = 16 * blocks
    if blocks != 4:
        text = text.replace("64x16", f"{rows}x16").replace("64x2", f"{rows}x2")
        text = text.replace("%c64 = arith.constant 64", f"%c64 = arith.constant {rows}")
        text = text.replace("%c4 = arith.constant 4", f"%c4 = arith.constant {blocks}")
    x = ((np.arange(rows * 16) * 37 % 101) / 10.0 - 5).astype(np.float32).reshape(rows, 16) * 40
    return ptoisa.load(text), (x, np.zeros((rows, 16), np.float32), np.zeros((rows, 2), np.uint8), 2.0, 100.0)


def measure(measure_pair: Any, budget_s: float, repeat_s: float, target: str) -> list[tuple[str, float, float, str]]:
    """(what, ptoisa median us, reference median us, what the reference is) rows."""
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
    (big, big_args), (shipped, args) = scale_compare(64), scale_compare(4)
    run_big, run_shipped = measure_pair(lambda: big.run(*big_args, target=target),
                                        lambda: shipped.run(*args, target=target), budget_s, repeat_s)
    bits = ptoisa.Tile[ptoisa.TileType.Vec, np.uint8, 16, 32, ptoisa.BLayout.RowMajor, 16, 2]()
    # the kernel's four blocks in turn, as the kernel meets them: each TCMPS sees new values (and on a2a3 decides,
    # as the kernel's does, whether its repeat-tail erratum changed bytes)
    sources = itertools.cycle([T(data=args[0][16 * i:16 * i + 16]) for i in range(4)])
    factor, prod = T(), T()
    ptoisa.TEXPANDS(factor, 2.0, target=target)

    def two_calls() -> None:
        ptoisa.TPARTMUL(prod, next(sources), factor, target=target)
        ptoisa.TCMPS(bits, prod, 100.0, ptoisa.CmpMode.GT, target=target)

    block_api, _ = measure_pair(two_calls, lambda: None, budget_s, repeat_s)
    empty_ref = "an empty lambda"
    add_ref = "np.add on the same storages"
    block_ref = "TPARTMUL + TCMPS through the API, the blocks in turn"
    return [("run() of an empty kernel (fixed cost per run)", run_empty.median_us, floor_empty.median_us, empty_ref),
            (f"one TADD 16x16 in an scf.for ({OPS} iterations)", per_op, floor.median_us, add_ref),
            ("one ptoisa.TADD 16x16 call (the API)", api.median_us, floor.median_us, add_ref),
            ("scale_compare per 16x16 block, (64 - 4 blocks) / 60", (run_big.median_us - run_shipped.median_us) / 60,
             block_api.median_us, block_ref),
            ("scale_compare per block, (run - empty run) / 4", (run_shipped.median_us - run_empty.median_us) / 4,
             block_api.median_us, block_ref)]


def print_rows(rows: list[tuple[str, float, float, str]]) -> None:
    print("\nInterpreter (medians; ratio = ptoisa / reference):")
    for what, ours, ref, ref_name in rows:
        print(f"  {what:<52} {ours:8.2f} us   reference {ref:6.2f} us ({ref_name})   "
              f"ratio {ours / ref if ref else 0:5.1f}x")
