"""Every instruction record timed at 16x16 and 256x256 next to a floor, one line each.

    .venv/bin/python benchmarks/records.py              # cpu target, a short budget per case (~1 min in all)
    .venv/bin/python benchmarks/records.py --target a5 --only TROW

The call is built from the record itself: float tiles (the record's first legal element type otherwise), every
tile n x n except where the record's checks refuse that (a reduction's dst, a per-row operand), then n x 1
col-major or 1 x n. The floor is NumPy's own op where the record's kernel names one (element-wise families:
`np.add` for TADD, ...), else a copy of the same bytes (`np.copyto` of the first source into dst: the memory
traffic any op on these tiles needs). The ratio is ptoisa / floor, medians of interleaved repeats
(run.measure_pair). Records the builder cannot call (the cube's Left/Right/Acc tiles, TPRINT) are listed as
skipped with the reason; `benchmarks/run.py` has hand-built cases for the seeds, TMATMUL and the common ops.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import warnings
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS on one thread, as the simulator (before NumPy)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import ptoisa  # noqa: F401
except ImportError:  # not installed: use the source tree next to benchmarks/
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import numpy as np  # noqa: E402

import ptoisa  # noqa: E402,F811
from ptoisa import BLayout, Tile, TileType  # noqa: E402
from ptoisa.dtypes import DType  # noqa: E402
from ptoisa.isa import vector  # noqa: E402,F401 - registers the records
from ptoisa.isa.record import REGISTRY  # noqa: E402
from run import measure_pair  # noqa: E402

SHAPES = ("square", "column", "row")


def _dtype(rec: Any, target: str) -> DType:
    table = rec.legality[target]
    allowed = next(iter(table.dtypes.values()), None)
    if table.pairs is not None:
        pairs = sorted(table.pairs, key=lambda p: (p != (DType.F32, DType.F32), p[0].value))
        return pairs[0][0]
    if allowed is None or DType.F32 in allowed:
        return DType.F32
    return allowed[0]


def _tile(dtype: DType, n: int, shape: str) -> Tile:
    if shape == "column":
        rows = max(n, 32 // dtype.itemsize)
        spec = Tile[TileType.Vec, dtype.np, rows, 1, BLayout.ColMajor, n, 1]
    elif shape == "row":
        spec = Tile[TileType.Vec, dtype.np, 1, max(n, 32 // dtype.itemsize), BLayout.RowMajor, 1, n]
    else:
        spec = Tile[TileType.Vec, dtype.np, n, max(n, 32 // dtype.itemsize), BLayout.RowMajor, n, n]
    tile = spec()
    rng = np.random.default_rng(3)
    if dtype.is_float:
        tile.set_logical(np.abs(rng.standard_normal((spec.rows, spec.cols))) + 0.5)
    else:
        tile.set_logical(rng.integers(1, 4, (spec.rows, spec.cols)))
    return tile


def build(rec: Any, target: str, n: int) -> tuple[Any, Any, str] | str:
    """(call, floor, floor name) for `rec` on n x n tiles, or the reason it cannot be built."""
    form = next((f for f in rec.forms if not any(o.kind == "scalar" and o.fixed for o in f)), rec.forms[0])
    operands = [o for o in form if not o.optional]
    roles = [o for o in operands if o.kind == "tile"]
    if not roles:
        return "no tile operand"
    dtype = _dtype(rec, target)
    pairs = rec.legality[target].pairs
    out_dtype = sorted(p for p in pairs if p[0] is dtype)[0][1] if pairs else dtype
    attempts = [{r.name: "square" for r in roles}]
    for role in roles:
        for shape in ("column", "row"):
            attempts.append({**attempts[0], role.name: shape})
    if len(roles) > 1:
        attempts.append({roles[0].name: "column", **{r.name: "square" for r in roles[1:]}})
    last = ""
    for shapes in attempts:
        tiles = {r.name: _tile(out_dtype if r.out else dtype, n, shapes[r.name]) for r in roles}
        args = [tiles[o.name] if o.kind == "tile" else (0.5 if (o.fixed or dtype).is_float else 2) for o in operands]
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                rec(*args, target=target)
        except ptoisa.PtoError as exc:
            last = str(exc)
            continue
        dst = tiles[roles[0].name]
        sources = [tiles[r.name] for r in roles[1:]]

        def call(args: list[Any] = args) -> None:
            rec(*args, target=target)

        ufunc = getattr(rec.kernel, "whole", None)
        if ufunc is not None and all(t.spec is dst.spec for t in sources) and ufunc.nin in (1, 2):
            ins = [t.storage for t in sources][:ufunc.nin]
            if len(ins) < ufunc.nin:
                ins.append(dst.storage.dtype.type(0.5 if dtype.is_float else 2))
            out = dst.storage

            def floor() -> None:
                ufunc(*ins, out=out)

            return call, floor, ufunc.__name__
        source = max(sources, key=lambda t: t.storage.size).storage if sources else dst.storage
        out = dst.storage
        count = min(out.size, source.size)

        def copy() -> None:
            np.copyto(out[:count], source[:count], casting="unsafe")

        return call, copy, "copy"
    return last or "no shape the record accepts"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cpu", choices=("a2a3", "a5", "cpu"))
    parser.add_argument("--only", metavar="TEXT", help="records whose name contains TEXT")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per case (default 0.05)")
    args = parser.parse_args(argv)
    names = sorted(n for n, r in REGISTRY.items() if r.generated and (not args.only or args.only.upper() in n))
    print(f"{'record':<20}{'floor':>10}{'16x16 us':>11}{'floor us':>10}{'ratio':>8}{'256x256 us':>12}"
          f"{'floor us':>10}{'ratio':>8}")
    warnings.simplefilter("ignore")
    for name in names:
        rec = REGISTRY[name]
        cells: list[str] = []
        label = ""
        for n in (16, 256):
            built = build(rec, args.target, n)
            if isinstance(built, str):
                cells = [f"skipped: {built.splitlines()[0][:80]}"]
                break
            call, floor, label = built
            with contextlib.redirect_stdout(io.StringIO()):
                ours, base = measure_pair(call, floor, args.budget, 0.002)
            cells += [f"{ours.median_us:>11.1f}", f"{base.median_us:>10.2f}",
                      f"{ours.median_us / base.median_us:>7.1f}x"]
        if len(cells) == 1:
            print(f"{name:<20}  {cells[0]}")
        else:
            cells[3] = f"{cells[3]:>12}"
            print(f"{name:<20}{label:>10}" + "".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
