"""Row and column broadcasts: TROWEXPAND TCOLEXPAND (dst, src) and TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF},
TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} (dst, src0, src1).

    TROWEXPAND(dst, src)            dst[i, j] = src[i, 0]
    TCOLEXPAND(dst, src)            dst[i, j] = src[0, j]
    TROWEXPANDMUL(dst, src0, src1)  dst[i, j] = src0[i, j] * v[i, j mod vc]    (v: the operand whose valid shape is
                                                                                not dst's; vc: its valid columns)
    TCOLEXPANDMUL(dst, src0, src1)  dst[i, j] = src0[i, j] * src1[0, j]

For the row forms either source may be the per-row operand: a col-major tile with one valid column (one value per
row, mode 1 of the instruction page) or a row-major tile with one 32-byte block per row (mode 2: the block
repeats along the row). The operation is always `src0 op src1`, with C++ arithmetic on the element type as in
`binary.py`; EXPDIF is `exp(src0 - src1)` (the difference rounded to the element type, the exponential from
double, or through `expf` for half). The simulator's own checks (include/pto/cpu/TRowExpandOp.hpp,
TColExpandOp.hpp) decide the shapes: dst row-major; the full operand equal to dst's valid shape.

    >>> from ptoisa import *
    >>> x, out = Tile[TileType.Vec, float, 8, 8](), Tile[TileType.Vec, float, 8, 8]()
    >>> x.set_logical([[1.0] * 8] * 8)
    >>> scale = Tile[TileType.Vec, float, 8, 1, BLayout.ColMajor]()
    >>> scale.set_logical([[float(r)] for r in range(8)])
    >>> _ = TROWEXPANDMUL(out, x, scale, target="cpu"); out.data[:3, 0].tolist()   # row r times scale[r]
    [0.0, 1.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

import numpy as np

from ..._quiet import QUIET, quiet, quiet_reset, quiet_set

from ...dtypes import DType as D
from .._check import Check
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import Spare, cpp_max, cpp_min, trunc_div, valid_of, write
from .unary import exp

PairFn = Callable[..., np.ndarray]
"""An elementwise operation of two operands, fn(a, b) -> result: a ufunc (whose callers also pass out=) or a
function of two arrays (cpp_max, trunc_div, ...)."""

_TYPES = (D.F32, D.F16, D.I32, D.I16, D.U32, D.U16)
_FLOAT = (D.F32, D.F16)


_A2A3_OP = (D.F16, D.F32, D.I16, D.I32)  # docs/isa/TROWEXPANDMUL.md and siblings: A2/A3 and A5
_A5_OP = _A2A3_OP + (D.U16, D.U32, D.BF16, D.I8, D.U8)


def _table(dtypes: tuple[D, ...], roles: tuple[str, ...], row_major: tuple[str, ...],
           a2a3: tuple[D, ...] | None = None, a5: tuple[D, ...] | None = None) -> dict[str, Legality]:
    def make(allowed: tuple[D, ...]) -> Legality:
        return Legality({"dst": allowed}, same=(roles,), row_major=row_major)

    return {"a2a3": make(a2a3 or dtypes), "a5": make(a5 or dtypes), "cpu": make(dtypes)}


def _sub_then_exp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return exp((a - b).astype(a.dtype))


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return trunc_div(a, np.where(b == 0, 1, b).astype(b.dtype))
    return a / b


_OPS: dict[str, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], str, tuple[D, ...]]] = {
    "ADD": (np.add, "+", _TYPES), "SUB": (np.subtract, "-", _TYPES), "MUL": (np.multiply, "*", _TYPES + (D.U8,)),
    "DIV": (_div, "/", _TYPES), "MAX": (cpp_max, "max", _TYPES), "MIN": (cpp_min, "min", _TYPES),
    "EXPDIF": (_sub_then_exp, "expdif", _FLOAT),
}


def _row_vector(tile, rows: int, cols: int) -> np.ndarray:  # noqa: ANN001
    """The per-row operand spread over (rows, cols): element [i, j mod vc]."""
    vc = tile.valid_col
    block = valid_of(tile, (rows, vc))
    if vc == 1 or vc == cols:
        return block  # one value per row broadcasts along it
    reps = -(-cols // vc)
    return np.tile(block, (1, reps))[:, :cols]


_EXPAND_MIN = 4096  # elements: from here a one-column operand is spread into a block before a cheap ufunc


def _pair_into(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], dtype: np.dtype, size: int
               ) -> Callable[..., None]:
    """`into(a, b, out, vector)`: `out[...] = fn(a, b)` (a and b broadcasting to out's shape, of out's type;
    `vector`, when given, the smaller operand before any spreading) for one element type, by the cheapest exact
    route: a ufunc straight into out (NumPy stages a source that overlaps out); C++'s max and min from NumPy's
    when the result is unambiguous (`_extreme_into`), or, for a result of fewer than `_SMALL_PAIR` elements, by
    cpp_max's own select; EXPDIF of float with exp from double straight into out when the difference holds no
    NaN (as TEXP's compiled form); else `fn` and a copy."""
    if isinstance(fn, np.ufunc):
        return lambda a, b, out, vector=None: fn(a, b, out=out)
    if fn is _div and dtype.kind == "f":
        return lambda a, b, out, vector=None: np.divide(a, b, out=out)
    if fn in (cpp_max, cpp_min) and dtype.kind == "f" and size < _SMALL_PAIR:
        where, less = np.where, np.less
        if fn is cpp_max:
            def small_max(a: np.ndarray, b: np.ndarray, out: np.ndarray, vector: np.ndarray | None = None) -> None:
                out[...] = where(less(a, b), b, a)

            return small_max

        def small_min(a: np.ndarray, b: np.ndarray, out: np.ndarray, vector: np.ndarray | None = None) -> None:
            out[...] = where(less(b, a), b, a)

        return small_min
    if fn in (cpp_max, cpp_min) and dtype.kind in "iuf":
        return lambda a, b, out, vector=None: _extreme_into(a, b, out, fn is cpp_max, vector)
    if fn is _sub_then_exp and dtype == np.float32:
        return _expdif_float_into

    def general(a: np.ndarray, b: np.ndarray, out: np.ndarray, vector: np.ndarray | None = None) -> None:
        out[...] = fn(a, b)

    return general


_largest, _all, _overlap = np.maximum.reduce, np.logical_and.reduce, np.may_share_memory
_SMALL_PAIR = 1024  # elements: below this a select (np.where) costs less than NumPy's extreme and its tests


def _extreme_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, greater: bool, vector: np.ndarray | None = None
                  ) -> None:
    """`out[...] = cpp_max(a, b)` (`cpp_min`): NumPy's maximum (minimum) of integers; of floats when that is
    std::max's (std::min's) result too: no NaN in it (NumPy propagates one from either operand) and no pair of
    zeros (0.0 and -0.0 are the only equal values with different bits: std::max keeps a, NumPy may not). A
    `vector` operand without a zero rules such a pair out; else the result is searched for zeros. Otherwise
    cpp_max itself (a select by bits). NumPy's result goes straight into out when out overlaps neither source
    (which then stay readable for cpp_max), else through a new array."""
    extreme = np.maximum if greater else np.minimum
    if a.dtype.kind in "iu":
        extreme(a, b, out=out)
        return
    apart = not (_overlap(out, a) or _overlap(out, b))
    quick = extreme(a, b, out=out) if apart else extreme(a, b)
    if a.dtype.kind == "f":
        top = _largest(quick, None)
        if top != top or ((vector is None or not _all(vector, None)) and (quick == 0).any()):
            out[...] = (cpp_max if greater else cpp_min)(a, b)
            return
    if not apart:
        out[...] = quick


def _expdif_float_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, vector: np.ndarray | None = None) -> None:
    """EXPDIF of float tiles: the difference rounded to float, then exp from double rounded once into out (the
    ufunc's own casts: `_exp_direct`'s widening, exp and rounding), when the difference holds no NaN; a NaN
    (whose payload `exp` sets as x86 does) takes `exp`."""
    diff = np.subtract(a, b)
    top = _largest(diff, None)
    if top == top:
        np.exp(diff, out=out, dtype=np.float64, casting="unsafe")
    else:
        out[...] = exp(diff)


@overload
def _row_direct(plan: Plan, fn: PairFn, positions: None = None) -> Callable[[Tiles], None] | None: ...
@overload
def _row_direct(plan: Plan, fn: PairFn, positions: dict[str, int]) -> Callable[[tuple], None] | None: ...


def _row_direct(plan: Plan, fn: PairFn, positions: dict[str, int] | None = None
                ) -> Callable[[Tiles], None] | Callable[[tuple], None] | None:
    """The row form of a signature whose tiles all have static valid shapes and plain views, and whose per-row
    operand has 1 or dst's valid columns: the operation straight from the two valid regions into dst's
    (`_pair_into`; the per-row operand broadcasts along each row, or, one column of a large region, is first
    spread into a block: a ufunc with a zero-stride operand runs several times slower; for a ufunc, the block is
    dst itself when dst does not overlap the full source), with the slices fixed once. The compiled call of a
    ufunc with one column on a smaller region spreads it into a scratch block (`_row_compiled_small`). None: the
    general kernel."""
    specs = plan.specs
    if any(specs[r].dynamic_row or specs[r].dynamic_col or specs[r].layout_name not in ("ND", "DN")
           for r in ("dst", "src0", "src1")):
        return None
    shape = specs["dst"].valid_row, specs["dst"].valid_col
    if 0 in shape or specs["dst"].dtype is not specs["src0"].dtype:
        return None
    a_full = (specs["src0"].valid_row, specs["src0"].valid_col) == shape
    vcols = (specs["src1"] if a_full else specs["src0"]).valid_col
    if vcols not in (1, shape[1]):
        return None  # a block repeated along the row: the general kernel tiles it
    rows = slice(0, shape[0])
    whole, part = slice(0, shape[1]), slice(0, vcols)
    a_cols, b_cols = (whole, part) if a_full else (part, whole)
    dtype = specs["dst"].np_dtype
    into = _pair_into(fn, dtype, shape[0] * shape[1])
    spread = vcols == 1 and shape[1] > 1 and shape[0] * shape[1] >= _EXPAND_MIN and (
        isinstance(fn, np.ufunc) or fn in (cpp_max, cpp_min, _sub_then_exp))
    copyto, empty, overlap = np.copyto, np.empty, np.may_share_memory
    in_dst = isinstance(fn, np.ufunc)  # a ufunc reads each element of out before writing it

    a_part, b_part, d_part = (rows, a_cols), (rows, b_cols), (rows, whole)
    if positions is not None:  # the compiled call's form: the tiles taken from the arguments
        d, a, b = positions["dst"], positions["src0"], positions["src1"]
        if vcols == 1 and shape[1] > 1 and not spread and isinstance(fn, np.ufunc):
            return _row_compiled_small(fn, specs, shape, a_full, d, a, b)
        if spread:
            def spread_step(out: np.ndarray, first: np.ndarray, second: np.ndarray) -> None:  # NumPy work only
                if a_full:
                    full, vector = first, second
                    if in_dst and not overlap(out, full):  # spread into dst, then the ufunc in place
                        copyto(out, vector)
                        fn(full, out, out=out)
                        return
                    block = empty(shape, dtype)
                    copyto(block, vector)
                    into(full, block, out, vector)
                else:
                    vector, full = first, second
                    if in_dst and not overlap(out, full):
                        copyto(out, vector)
                        fn(out, full, out=out)
                        return
                    block = empty(shape, dtype)
                    copyto(block, vector)
                    into(block, full, out, vector)

            def run_spread(args: tuple) -> None:
                QUIET.run(spread_step, args[d].view[d_part], args[a].view[a_part], args[b].view[b_part])

            return run_spread

        def run_args(args: tuple) -> None:
            x, y = args[a].view[a_part], args[b].view[b_part]
            QUIET.run(into, x, y, args[d].view[d_part], y if a_full else x)

        return run_args

    def run(tiles: Tiles) -> None:
        token = quiet_set()
        try:
            # plain layouts (checked above): every view exists
            x, y = tiles["src0"].view[a_part], tiles["src1"].view[b_part]  # type: ignore[index]
            into(x, y, tiles["dst"].view[d_part], y if a_full else x)  # type: ignore[index]
        finally:
            quiet_reset(token)

    return run


def _row_compiled_small(fn: np.ufunc, specs: Any, shape: tuple[Any, Any], a_full: bool, d: int, a: int, b: int
                        ) -> Callable[[tuple], None]:
    """`_row_direct`'s compiled call for a ufunc and a one-column per-row operand on a region of fewer than
    `_EXPAND_MIN` elements: the column is spread into a scratch block of the region's shape (one broadcast
    assignment), then the ufunc takes the two blocks, src0's operand first as always, straight into dst. Cheaper
    than the ufunc with the column broadcast (a zero-stride operand: NumPy's strided inner loop; 16x16 float
    1.0 -> 0.6 us), and the products are the same element operations. Blocks come from a free list (calls in
    two threads never share one), so dst may overlap either source; a tile whose view is the region is used
    without slicing it."""
    rows, cols = shape
    region = (slice(0, rows), slice(0, cols))
    column = (slice(0, rows), slice(0, 1))
    a_cut = region if a_full else column
    b_cut = column if a_full else region
    d_whole = (specs["dst"].rows, specs["dst"].cols) == shape
    a_whole = (specs["src0"].rows, specs["src0"].cols) == (shape if a_full else (rows, 1))
    b_whole = (specs["src1"].rows, specs["src1"].cols) == ((rows, 1) if a_full else shape)
    spare = Spare(shape, specs["dst"].np_dtype)
    free, fresh = spare.free, spare.take

    if a_full:  # src0 full, src1 the column
        def step(out: np.ndarray, first: np.ndarray, second: np.ndarray, block: np.ndarray) -> None:  # NumPy only
            block[...] = second
            fn(first, block, out)
    else:  # src0 the column
        def step(out: np.ndarray, first: np.ndarray, second: np.ndarray, block: np.ndarray) -> None:  # NumPy only
            block[...] = first
            fn(block, second, out)

    def run(args: tuple) -> None:
        out, first, second = args[d].view, args[a].view, args[b].view
        try:  # (not `if free`: another thread may take the last one between the test and the pop)
            block = free.pop()
        except IndexError:
            block = fresh()
        QUIET.run(step, out if d_whole else out[region], first if a_whole else first[a_cut],
                  second if b_whole else second[b_cut], block)
        free.append(block)

    return run


def _row_kernel(fn: PairFn) -> Callable[[Plan, Tiles, Scalars], None]:
    ufunc = isinstance(fn, np.ufunc)
    direct: dict[int, tuple[Plan, Callable[[Tiles], None] | None]] = {}

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        if ufunc:
            entry = direct.get(id(plan))
            if entry is None or entry[0] is not plan:
                entry = plan, _row_direct(plan, fn)
                if len(direct) < 4096:
                    direct[id(plan)] = entry  # holds the plan: its id is not reused while the entry lives
            if entry[1] is not None:
                entry[1](tiles)
                return
        general(plan, tiles, scalars)

    def general(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        shape = out.valid_shape
        if 0 in shape:
            return
        a_full = tiles["src0"].valid_shape == shape
        a = valid_of(tiles["src0"], shape) if a_full else _row_vector(tiles["src0"], *shape)
        b = _row_vector(tiles["src1"], *shape) if a_full else valid_of(tiles["src1"], shape)
        with quiet():
            if ufunc and out.view is not None:  # same element type in and out: straight into dst
                fn(a, b, out=out.view[:shape[0], :shape[1]])
            else:
                write(out, np.broadcast_to(fn(a, b), shape).astype(out.spec.np_dtype, copy=False))

    kernel.general = general  # type: ignore[attr-defined]
    kernel.compiled = lambda plan, positions: _row_direct(plan, fn, positions)  # type: ignore[attr-defined]
    kernel.direct = direct  # type: ignore[attr-defined]
    return kernel


def _row_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    shape = tiles["dst"].valid_shape
    full = [r for r in ("src0", "src1") if tiles[r].valid_shape == shape and tiles[r].spec.is_row_major]
    if not full:
        check.fail(None, f"src0 or src1 must be a row-major tile with dst's valid shape {shape}")
    other = "src1" if full[0] == "src0" else "src0"
    vec = tiles[other]
    per_row = 32 // vec.spec.dtype.itemsize if vec.spec.is_row_major else 1
    if vec.valid_row != shape[0] or vec.valid_col != per_row:
        kind = f"row-major with {per_row} valid columns (one 32-byte block per row)" if vec.spec.is_row_major \
            else "col-major with 1 valid column"
        check.fail(other, f"as the per-row operand must have dst's {shape[0]} valid rows and be {kind} "
                          f"(got valid shape {vec.valid_shape})")


def _col_kernel(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[Plan, Tiles, Scalars], None]:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        rows, cols = out.valid_shape
        if rows == 0 or cols == 0:
            return
        a = valid_of(tiles["src0"], (rows, cols))
        b = np.broadcast_to(valid_of(tiles["src1"], (1, cols)), (rows, cols))
        with quiet():
            write(out, fn(a, b).astype(a.dtype, copy=False))

    kernel.general = kernel  # type: ignore[attr-defined]
    kernel.compiled = lambda plan, positions: _col_compiled(fn, plan, positions)  # type: ignore[attr-defined]
    return kernel


def _col_compiled(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], plan: Plan, positions: dict[str, int]
                  ) -> Callable[[tuple], None] | None:
    """The column form of a signature with plain layouts: `_pair_into` from src0's valid region and src1's
    first row (broadcast down the rows: NumPy's inner loop stays contiguous) into dst's, the slices fixed once;
    a ufunc on a region of `_EXPAND_MIN` elements or more runs in place on the row copied down dst. None (the
    bound kernel) for boxed layouts."""
    specs = plan.specs
    if any(specs[r].layout_name not in ("ND", "DN") for r in ("dst", "src0", "src1")):
        return None
    rows, cols = specs["dst"].valid_row, specs["dst"].valid_col
    if rows == 0 or cols == 0:
        return lambda args: None
    dtype = specs["dst"].np_dtype
    into = _pair_into(fn, dtype, rows * cols)
    d, a, b = positions["dst"], positions["src0"], positions["src1"]
    region, first = (slice(0, rows), slice(0, cols)), (slice(0, 1), slice(0, cols))
    if isinstance(fn, np.ufunc) and dtype.kind == "f" and not all(
            specs[r].layout_name == "ND" and specs[r].cols == cols for r in ("dst", "src0")):
        # Where both operands are NaN, NumPy's add and multiply on a strided region written in place may return
        # either one (they reorder commutative operands); the general kernel computes into a new array, where
        # they return src0's: the same call here, then a copy
        def run_strided(args: tuple) -> None:
            args[d].view[region] = QUIET.run(fn, args[a].view[region], args[b].view[first])

        return run_strided
    if isinstance(fn, np.ufunc) and rows * cols >= _EXPAND_MIN:
        copyto, overlap = np.copyto, np.may_share_memory

        def spread(out: np.ndarray, full: np.ndarray, vector: np.ndarray) -> None:  # NumPy work only
            if overlap(out, full):
                fn(full, vector, out=out)
            else:
                copyto(out, vector)
                fn(full, out, out=out)

        def run_spread(args: tuple) -> None:
            """The row copied down dst (when dst does not overlap src0), then the ufunc in place: two streams."""
            QUIET.run(spread, args[d].view[region], args[a].view[region], args[b].view[first])

        return run_spread

    def run(args: tuple) -> None:
        vector = args[b].view[first]
        QUIET.run(into, args[a].view[region], vector, args[d].view[region], vector)

    return run


def _col_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    shape = tiles["dst"].valid_shape
    if tiles["src0"].valid_shape != shape:
        check.fail("src0", f"valid shape {tiles['src0'].valid_shape} must equal dst's valid shape {shape}")
    if tiles["src1"].spec.cols < shape[1]:
        check.fail("src1", f"has {tiles['src1'].spec.cols} columns, fewer than dst's {shape[1]} valid columns")


def _broadcast_rows(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    column = valid_of(tiles["src"], (rows, 1)).astype(out.spec.dtype.np)
    write(out, np.broadcast_to(column, (rows, cols)))


def _broadcast_cols(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    row = valid_of(tiles["src"], (1, cols)).astype(out.spec.dtype.np)
    write(out, np.broadcast_to(row, (rows, cols)))


def _broadcast_compiled(by_rows: bool, plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """TROWEXPAND (TCOLEXPAND) of one signature with plain layouts: src's first column (row) copied across
    dst's valid region in one call (dst and src have one element type: a copy of the bits). None: boxed."""
    specs = plan.specs
    if any(specs[r].layout_name not in ("ND", "DN") for r in ("dst", "src")):
        return None
    rows, cols = specs["dst"].valid_row, specs["dst"].valid_col
    if rows == 0 or cols == 0:
        return lambda args: None
    region = slice(0, rows), slice(0, cols)
    line = (slice(0, rows), slice(0, 1)) if by_rows else (slice(0, 1), slice(0, cols))
    d, s = positions["dst"], positions["src"]
    copyto = np.copyto

    def run(args: tuple) -> None:
        copyto(args[d].view[region], args[s].view[line])

    return run


_broadcast_rows.compiled = lambda plan, positions: _broadcast_compiled(True, plan, positions)  # type: ignore[attr-defined]
_broadcast_cols.compiled = lambda plan, positions: _broadcast_compiled(False, plan, positions)  # type: ignore[attr-defined]


def _fits_rows(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src"].spec.rows < tiles["dst"].valid_row:
        check.fail("src", f"has {tiles['src'].spec.rows} rows, fewer than dst's {tiles['dst'].valid_row} valid rows")


def _fits_cols(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src"].spec.cols < tiles["dst"].valid_col:
        check.fail("src", f"has {tiles['src'].spec.cols} columns, fewer than dst's {tiles['dst'].valid_col} valid "
                          "columns")


_ALL_TYPES = (D.F32, D.F16, D.BF16, D.I32, D.I16, D.I8, D.U32, D.U16, D.U8)
TROWEXPAND = instruction("TROWEXPAND", operands=(dst(), src("src")),
                         legality=_table(_ALL_TYPES, ("dst", "src"), ()), dynamic=_fits_rows, family="expand",
                         summary="dst[i, j] = src[i, 0]")(_broadcast_rows)
TCOLEXPAND = instruction("TCOLEXPAND", operands=(dst(), src("src")),
                         legality=_table(_ALL_TYPES, ("dst", "src"), ()), dynamic=_fits_cols, family="expand",
                         summary="dst[i, j] = src[0, j]")(_broadcast_cols)

_BINARY_FORMS = ((dst(), src("src0"), src("src1")), (dst(), src("src0"), src("src1"), tmp("tmp")))
for _name, (_fn, _sym, _types) in _OPS.items():
    _summary = f"dst[i, j] = src0[i, j] {_sym} src1[i, j mod vc] (the per-row operand may be either source)" \
        if _sym not in ("max", "min", "expdif") else f"dst[i, j] = {_sym}(src0[i, j], per-row operand)"
    globals()[f"TROWEXPAND{_name}"] = instruction(
        f"TROWEXPAND{_name}", operands=_BINARY_FORMS[0], forms=_BINARY_FORMS,
        legality=_table(_types, ("dst", "src0", "src1"), ("dst",), tuple(t for t in _A2A3_OP if t in _types or
                                                                                 _name != "EXPDIF"),
                        _A5_OP if _name != "EXPDIF" else _FLOAT), dynamic=_row_rule, family="expand",
        summary=_summary)(_row_kernel(_fn))
    globals()[f"TCOLEXPAND{_name}"] = instruction(
        f"TCOLEXPAND{_name}", operands=_BINARY_FORMS[0], forms=_BINARY_FORMS,
        legality=_table(_types, ("dst", "src0", "src1"), ("dst", "src0", "src1"),
                        _A2A3_OP if _name != "EXPDIF" else _FLOAT, _A5_OP if _name != "EXPDIF" else _FLOAT),
        dynamic=_col_rule,
        family="expand", summary=f"dst[i, j] = src0[i, j] {_sym} src1[0, j]")(_col_kernel(_fn))
