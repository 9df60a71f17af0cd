"""TPRINT: print a tile's valid region (include/pto/cpu/TPrint.hpp), a debugging aid that changes no byte.

    pto.tprint ins(%t : !pto.tile_buf<...>)

    TPRINT RxC                       R x C = the tile's valid shape
    v(0,0) v(0,1) ...                one line per valid row, values separated by one space

as the simulator writes it to standard output: floats fixed-point, 8 wide with 4 decimals (`%8.4f`; a NaN with its
sign bit set prints as `-nan`, as glibc does); integers 8 wide (int8 and uint8 as numbers). The simulator built
by GCC 12 does not compile TPRINT of half (no stream operator for _Float16); ptoisa prints half and bfloat16
in C++'s default float format (6 significant digits). The `ptoisa run` CLI sends the lines to standard error
when its own report is JSON (`--format json`).

    >>> from ptoisa import *
    >>> t = Tile[TileType.Vec, float, 2, 8, BLayout.RowMajor, 2, 3]()
    >>> t.set_logical([[1.5, -2, 0.25, 9, 9, 9, 9, 9], [0, 1, 2, 9, 9, 9, 9, 9]])
    >>> _ = TPRINT(t, target="cpu")
    TPRINT 2x3
      1.5000  -2.0000   0.2500
      0.0000   1.0000   2.0000
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ...dtypes import STANDARD_DTYPES
from ..record import Legality, Plan, Scalars, Tiles, instruction, src
from ._common import valid_of

_ANY = Legality({"src": STANDARD_DTYPES}, locs=None)


def _cell(value: object, kind: str, short: bool) -> str:
    if kind == "f":
        x = float(value)  # type: ignore[arg-type]
        if math.isnan(x):
            return f"{'-nan' if math.copysign(1.0, x) < 0 else 'nan':>8}"
        if short:  # C++'s default stream format: 6 significant digits, no padding
            return f"{x:g}"
        return f"{x:8.4f}"
    return f"{int(value):8d}"  # type: ignore[call-overload]


def _print(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    t = tiles["src"]
    vr, vc = t.valid_shape
    values = valid_of(t, (vr, vc))
    kind = "f" if values.dtype.kind in "fV" or plan.specs["src"].dtype.is_float else "i"
    short = kind == "f" and np.dtype(values.dtype).itemsize == 2
    lines = [f"TPRINT {vr}x{vc}"]
    lines += [" ".join(_cell(v, kind, short) for v in row) for row in values.tolist()]
    sys.stdout.write("\n".join(lines) + "\n")


TPRINT = instruction("TPRINT", operands=(src("src"),), legality={t: _ANY for t in ("a2a3", "a5", "cpu")},
                     family="debug", summary="print the valid region to standard output (no byte changes)")(_print)
