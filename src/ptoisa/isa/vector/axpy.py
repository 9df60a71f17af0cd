"""TAXPY: dst = scalar * src0 + dst (include/pto/cpu/TBinSOps.hpp TAXPY_IMPL), and TTRI: a triangular 0/1 mask
(include/pto/cpu/TTRI.hpp).

    TAXPY(dst, src0, scalar)                 dst[i, j] = dst[i, j] + src0[i, j] * scalar   (dst is read first)
    TTRI(dst, diagonal, isUpperOrLower)      lower (LOWER, 0): dst[i, j] = 1 if j <= i + diagonal else 0
                                             upper (UPPER, 1): dst[i, j] = 1 if j >= i + diagonal else 0

TAXPY: dst is half or float; src0 has dst's type, or is half under a float dst; the scalar has src0's type. The
product rounds to src0's type, then the sum to dst's (the simulator's order of operations; half rounds after
each one); on the NPUs a half src0 under a float dst is multiplied in float (one vaxpy writes the float dst),
and A5's register vaxpy is a fused multiply-add: dst + src0 * scalar rounded once. TTRI writes dst's valid region (row-major tiles), the rest of dst is kept; in text the orientation is
the attribute `upperOrLower = 0 | 1`.

    >>> from ptoisa import *
    >>> m = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, 4, 4]()
    >>> _ = TTRI(m, 0, TriangleMode.LOWER, target="cpu"); m.data[:, :4].tolist()[1]
    [1.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...dtypes import DType as D
from ...enums import TriangleMode
from ...targets import Config
from ...tile.enums import SLayout
from ...tile.spec import TileSpec
from .._check import Check
from ..record import TARGETS, Attr, Legality, Plan, ScalarSlot, Scalars, Tiles, dst, instruction, scalar, src
from ._common import valid_of, write


def _axpy_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src0"].valid_shape != tiles["dst"].valid_shape:
        check.fail("src0", f"valid shape {tiles['src0'].valid_shape} must equal dst's {tiles['dst'].valid_shape}")


def _axpy_types(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum],
                form: int) -> None:
    d, s = specs["dst"].dtype, specs["src0"].dtype
    if not (d is s or (d is D.F32 and s is D.F16)):
        check.fail("src0", f"dtype {s.cname} must equal dst's ({d.cname}) or be half under a float dst")


def _widened(plan: Plan) -> bool:
    """A half src0 under a float dst on the NPUs: one vaxpy writes the float dst (a2a3/TAxpy.hpp), the product
    is never stored in half: src0 and the scalar are widened to float and the product rounds to float."""
    return plan.config.name != "cpu" and plan.specs["src0"].dtype is D.F16 and plan.specs["dst"].dtype is D.F32


def fused(y: np.ndarray, x: np.ndarray, a: float, out_type: np.dtype) -> np.ndarray:
    """y + x * a rounded once to out_type (half or float inputs): the product is exact in double, the sum's
    rounding error comes from TwoSum, and a double that lands exactly halfway between two out_type values is
    settled by that error's sign (the one case where rounding the double again would differ)."""
    y64, p64 = y.astype(np.float64), x.astype(np.float64) * float(a)
    s = y64 + p64
    b = s - y64
    err = (y64 - (s - b)) + (p64 - b)
    r = s.astype(out_type)
    r64 = r.astype(np.float64)
    other = np.nextafter(r, np.where(s > r64, np.inf, -np.inf).astype(out_type))
    halfway = (err != 0) & (s != r64) & (s == (r64 + other.astype(np.float64)) / 2)
    if halfway.any():  # the exact value lies on err's side of s
        toward_other = (err > 0) == (other.astype(np.float64) > s)
        r = np.where(halfway & toward_other, other, r)
    return r


def _axpy(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, x = tiles["dst"], tiles["src0"]
    shape = out.valid_shape
    a = scalars["scalar"]
    with quiet():
        if plan.config.name == "a5":  # one vaxpy on registers (a5/TAxpy.hpp): a fused multiply-add
            write(out, fused(valid_of(out, shape), valid_of(x, shape), float(a), out.spec.np_dtype))
            return
        if _widened(plan):
            product = valid_of(x, shape).astype(np.float32) * np.float32(a)
        else:
            product = valid_of(x, shape) * a  # rounded to src0's type
        view = out.view
        if view is not None:  # the sum straight into dst (half widens exactly to float inside the ufunc)
            y = view[:shape[0], :shape[1]]
            np.add(y, product, out=y, dtype=out.spec.np_dtype)
            return
        write(out, (valid_of(out, shape) + product.astype(out.spec.np_dtype)).astype(out.spec.np_dtype))


def _axpy_compiled(plan: Plan, positions: dict[str, int], scalars: dict[str, ScalarSlot]
                   ) -> Callable[[tuple], None] | None:
    """`_axpy` for one signature with plain layouts (`compiled_scalars`): whole storages when dst and src0 are one
    fully valid type, else the valid region's views, chosen once; each call converts the scalar (the binder's
    conversion), then the kernel's two steps (the product in src0's type, the sum into dst in dst's)."""
    specs = plan.specs
    spec, source = specs["dst"], specs["src0"]
    if "scalar" not in scalars or any(s.slayout is not SLayout.NoneBox for s in (spec, source)) or _widened(plan) \
            or plan.config.name == "a5":
        return None
    vr, vc = spec.valid_row, spec.valid_col
    same = source is spec and (vr, vc) == (spec.rows, spec.cols)
    part = (slice(0, vr), slice(0, vc))
    d, x_at, s_at = positions["dst"], positions["src0"], positions["scalar"]
    convert = scalars["scalar"].convert
    out_type = spec.np_dtype
    multiply, add = np.multiply, np.add

    def axpy(y: np.ndarray, xs: np.ndarray, a: Any) -> None:  # under QUIET.run: NumPy work only
        add(y, multiply(xs, a), out=y, dtype=out_type)

    def run(args: tuple) -> None:
        a = convert(args[s_at])
        out, x = args[d], args[x_at]
        if same:
            y, xs = out.storage, x.storage
        else:
            y, xs = out.view[part], x.view[part]
        QUIET.run(axpy, y, xs, a)

    return run


_axpy.compiled = _axpy_compiled  # type: ignore[attr-defined]
_axpy.compiled_scalars = True  # type: ignore[attr-defined]


def _tri_compiled(plan: Plan, positions: dict[str, int], scalars: dict[str, ScalarSlot]
                  ) -> Callable[[tuple], None] | None:
    """`_tri` for one signature with a plain layout (`compiled_scalars`): each call converts the diagonal (the
    binder's conversion) and copies the mask for it into dst's valid region; the masks of the last diagonals
    met are kept (read-only arrays, the same values `triangle` gives)."""
    spec = plan.specs["dst"]
    if "diagonal" not in scalars or spec.slayout is not SLayout.NoneBox:
        return None
    vr, vc = spec.valid_row, spec.valid_col
    part = (slice(0, vr), slice(0, vc))
    upper = plan.attrs["isUpperOrLower"] is TriangleMode.UPPER
    d, s_at = positions["dst"], positions["diagonal"]
    convert = scalars["diagonal"].convert
    dtype = spec.np_dtype
    masks: dict[int, np.ndarray] = {}

    def run(args: tuple) -> None:
        diagonal = int(convert(args[s_at]))
        mask = masks.get(diagonal)
        if mask is None:
            mask = triangle(vr, vc, diagonal, upper, dtype)
            if len(masks) < 64:
                masks[diagonal] = mask
        args[d].view[part] = mask

    return run


def _tri(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    vr, vc = out.valid_shape
    upper = plan.attrs["isUpperOrLower"] is TriangleMode.UPPER
    write(out, triangle(vr, vc, int(scalars["diagonal"]), upper, out.spec.np_dtype))


def triangle(vr: int, vc: int, d: int, upper: bool, dtype: np.dtype) -> np.ndarray:
    """(vr, vc) of 1 where j >= i + d (upper) or j <= i + d (lower), else 0, as a read-only view: row i is the
    window of vc values starting at `edge - i - d` (`edge - i - d - 1` for lower) in a run of 0s then 1s (upper)
    or 1s then 0s (lower) that changes at `edge`, so row i's first 1 (upper) or first 0 (lower) sits at column
    i + d (i + d + 1), clipped to the row by the runs' lengths. A broadcast comparison of row and column numbers
    costs several times more (NumPy's broadcast compare loops are not vectorised)."""
    if vr == 0 or vc == 0:
        return np.zeros((vr, vc), dtype)
    edge = vr + vc + abs(d) + 1  # each run is longer than any shift of a window
    run = np.zeros(2 * edge, dtype)
    if upper:
        run[edge:] = 1
    else:
        run[:edge] = 1
        d += 1
    step = run.itemsize
    rows = np.ndarray((vr, vc), dtype, buffer=run, offset=(edge - d) * step, strides=(-step, step))
    rows.setflags(write=False)
    return rows


_FLOAT = (D.F16, D.F32)
TAXPY = instruction(
    "TAXPY", operands=(dst(), src("src0"), scalar("scalar", "src0")),
    legality={t: Legality({"dst": _FLOAT, "src0": _FLOAT}) for t in TARGETS}, static=_axpy_types,
    dynamic=_axpy_rule, family="compound", summary="dst = dst + src0 * scalar")(_axpy)

_TRI = {"a2a3": (D.I32, D.I16, D.U32, D.U16, D.F16, D.F32),
        "a5": (D.I32, D.I16, D.I8, D.U32, D.U16, D.U8, D.F16, D.F32, D.BF16),
        "cpu": (D.I32, D.I16, D.U32, D.U16, D.F16, D.BF16, D.F32)}
TTRI = instruction(
    "TTRI", operands=(dst(), scalar("diagonal", fixed=D.I32)),
    attrs=(Attr("isUpperOrLower", TriangleMode, TriangleMode.LOWER, text="upperOrLower"),),
    legality={t: Legality({"dst": _TRI[t]}, row_major=("dst",)) for t in TARGETS}, family="fill",
    summary="dst = a lower (or upper) triangular mask of ones from the diagonal")(_tri)
_tri.compiled = _tri_compiled  # type: ignore[attr-defined]
_tri.compiled_scalars = True  # type: ignore[attr-defined]
