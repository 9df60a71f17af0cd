"""Element-wise unary instructions: TABS TNEG TNOT TRELU TEXP TLOG TSQRT TRSQRT TRECIP.

    TEXP(dst, src)               for i < dst.valid_row, j < dst.valid_col:  dst[i, j] = exp(src[i, j])

dst and src share element type and valid shape. The simulator's arithmetic (include/pto/cpu/ElementOp.h):
exp, log and sqrt are computed in double and rounded once to the element type, except half's exp, which
goes through `expf` in float and is rounded again to half; a NaN made from a number (log of a negative) is x86's
default NaN (sign bit set); rsqrt is `1.0 / sqrt(x)` in double; recip is `1 / x` in the element type; neg is
`-x` (integers wrap); relu is `std::max(x, 0)` (a NaN stays, -0.0 stays); abs is `x < 0 ? -x : x` (-0.0 stays;
an integer's minimum wraps to itself). The transcendental functions are computed with NumPy's double
routines; the NPU targets' own approximations are not modelled bit for bit (docs/semantics.md).

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, float, 1, 8]
    >>> a, d = T(), T()
    >>> a.set_logical([[4, 9, 16, 0.25, 1, 2, 100, 64]])
    >>> _ = TSQRT(d, a, target="cpu"); d.data[0, :4].tolist()
    [2.0, 3.0, 4.0, 0.5]
    >>> _ = TRSQRT(d, a, target="a5"); d.data[0, :3].tolist()
    [0.5, 0.3333333432674408, 0.25]
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..._quiet import QUIET, quiet, quiet_reset, quiet_set

from ...dtypes import DType as D
from ...tile.enums import SLayout
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import (ALL9, FLOATS, INTS, Fast, Spare, aligned_empty, cpp_float_cast, cpp_max, elementwise_hook,
                      equal_valid, from_double, highest, lowest, valid_of, write)

OPERANDS = (dst(), src("src"))
SAME = (("dst", "src"),)
_VALID = equal_valid("src")
_NPU_FLOAT = (D.F16, D.F32)
_A5_FLOAT = (D.F16, D.F32)
_SIGNED = (D.I8, D.I16, D.I32, D.F16, D.BF16, D.F32)


def _table(a2a3: tuple[D, ...], a5: tuple[D, ...], cpu: tuple[D, ...]) -> dict[str, Legality]:
    return {"a2a3": Legality({"dst": a2a3}, same=SAME), "a5": Legality({"dst": a5}, same=SAME),
            "cpu": Legality({"dst": cpu}, same=SAME)}


def _unary(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[Plan, Tiles, Scalars], None]:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        x = valid_of(tiles["src"], out.valid_shape)
        with quiet():
            write(out, fn(x))

    return kernel


X86_DEFAULT_NAN = np.array(0xFFF8000000000000, np.uint64).view(np.float64)


def _in_place_double(fn: Callable[[np.ndarray], None], x: np.ndarray) -> np.ndarray:
    """x widened to double, `fn` applied in place (one buffer: fresh large arrays cost page faults), and NaNs as
    x86 makes them: a NaN input comes through (quieted, payload kept); a NaN made from a number (log or sqrt of
    a negative) is the default NaN, whose sign bit is set."""
    wide = x.astype(np.float64)
    fn(wide)
    nan = np.isnan(wide)
    if nan.any():
        from_input = np.isnan(x)
        wide[nan & ~from_input] = X86_DEFAULT_NAN
        wide[from_input] = cpp_float_cast(x[from_input], np.float64)  # a half's signalling NaN quieted, as C++
    return wide


def in_double(fn: Callable[[np.ndarray], None]) -> Callable[[np.ndarray], np.ndarray]:
    """`static_cast<T>(fn(static_cast<double>(x)))`, with `fn` working in place on the double array."""

    def apply(x: np.ndarray) -> np.ndarray:
        return from_double(_in_place_double(fn, x), x.dtype)

    return apply


def _exp_in_place(w: np.ndarray) -> None:
    np.exp(w, out=w)


def _log_in_place(w: np.ndarray) -> None:
    np.log(w, out=w)


def _sqrt_in_place(w: np.ndarray) -> None:
    np.sqrt(w, out=w)


_sqrt_direct = in_double(_sqrt_in_place)


def _rsqrt_in_place(w: np.ndarray) -> None:
    """`1.0 / std::sqrt(x)` in double: two roundings, as the simulator computes it."""
    np.sqrt(w, out=w)
    np.divide(1.0, w, out=w)


def _exp_direct(x: np.ndarray) -> np.ndarray:
    """The simulator's OP_EXP: half through `expf` (rounded to float, then to half); others from double."""
    wide = _in_place_double(_exp_in_place, x)
    if x.dtype == np.float16:
        return wide.astype(np.float32).astype(np.float16)
    return from_double(wide, x.dtype)


@lru_cache(maxsize=None)
def _every_result(fn: Callable[[np.ndarray], np.ndarray], dtype: np.dtype) -> np.ndarray:
    """fn of every bit pattern of a 2-byte float type, indexed by the pattern (read-only, built once)."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)
    with quiet():
        table = np.ascontiguousarray(fn(every))
    table.setflags(write=False)
    return table


def tabulated(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """`fn`, looked up for half and bfloat16: an element-wise function of a 2-byte type has 65536 possible
    inputs, so its results for all of them (computed by `fn` itself, once) give the same bits for every input,
    NaN payloads included, at the cost of one np.take. NumPy converts half slowly (about 100 us for 64K
    elements from double), and the bfloat16 rounding from double takes several passes."""

    def apply(x: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
            return np.take(_every_result(fn, x.dtype), x.view(np.uint16))
        return fn(x)

    apply.__doc__ = fn.__doc__
    return apply


def sqrt_float(x: np.ndarray) -> np.ndarray:
    """`static_cast<float>(std::sqrt(double(x)))` for float x, as np.sqrt in float: sqrt is correctly rounded in
    both types, and rounding the double result again to float is innocuous (53 >= 2 * 24 + 2 bits: Figueroa,
    "When is double rounding innocuous?", 1995). NaNs (an input's, or the default NaN of a negative) are taken
    from the double computation, which sets them as x86 does."""
    out = np.sqrt(x)
    if np.isnan(out.max(initial=0.0)):
        nan = np.isnan(out)
        out[nan] = from_double(_in_place_double(_sqrt_in_place, x[nan]), x.dtype)
    return out


def _sqrt(x: np.ndarray) -> np.ndarray:
    """sqrt from double, or as np.sqrt in float where that is the same (sqrt_float)."""
    return sqrt_float(x) if x.dtype == np.float32 else _sqrt_direct(x)


exp = tabulated(_exp_direct)


def abs_(x: np.ndarray) -> np.ndarray:
    """The simulator's TABS (include/pto/cpu/TAbs.hpp): `x < 0 ? -x : x`, so -0.0 and NaNs stay as they are
    and an integer minimum wraps to itself."""
    if x.dtype.kind in "iu":
        return np.abs(x.astype(np.int64)).astype(x.dtype)
    return np.where(x < 0, np.negative(x), x)


def neg(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        return (-x.astype(np.int64)).astype(x.dtype)
    return np.negative(x)


_HALF = np.dtype(np.float16)


def neg_cpu_half(x: np.ndarray) -> np.ndarray:
    """The simulator's `-x` on half (GCC 12 on x86-64 computes _Float16 arithmetic in float): the sign flipped,
    and a signalling NaN quiet (0x7DFF -> 0xFFFF, 0xFC01 -> 0x7E01)."""
    out = np.negative(x)
    bits = out.view(np.uint16)
    np.bitwise_or(bits, np.uint16(0x0200), out=bits, where=(bits & np.uint16(0x7FFF)) > np.uint16(0x7C00))
    return out


def _neg_kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    x = valid_of(tiles["src"], out.valid_shape)
    with quiet():
        write(out, neg_cpu_half(x) if x.dtype == _HALF and plan.config.name == "cpu" else neg(x))


def _neg_whole_not(config_name: str, dtype: np.dtype) -> bool:
    """np.negative keeps a half's signalling NaN; the cpu profile's half TNEG quiets it (`neg_cpu_half`)."""
    return config_name == "cpu" and dtype == _HALF


def _neg_for(dtype: np.dtype) -> Fast | None:
    """TNEG: np.negative; half declines when a NaN is among the sources (the kernel then decides per target:
    the cpu profile quiets a signalling NaN)."""
    if dtype.kind == "V":
        return None
    if dtype != _HALF:
        return _ufunc_fast(np.negative)
    negative = np.negative

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        top = highest(x)
        if top != top:
            return False
        negative(x, out=y)
        return True

    return fast


def relu(x: np.ndarray) -> np.ndarray:
    return cpp_max(x, np.zeros_like(x))


def recip(x: np.ndarray) -> np.ndarray:
    """`1 / x` in the element type (one rounding; integers truncate, as TDIVS(dst, 1, src) does)."""
    if x.dtype.kind in "iu":
        from ._common import trunc_div

        return trunc_div(np.ones_like(x), np.where(x == 0, 1, x).astype(x.dtype))
    return (np.ones_like(x) / x).astype(x.dtype)


def _nonzero_integers(kernel: Callable[[Plan, Tiles, Scalars], None]) -> Callable[[Plan, Tiles, Scalars], None]:
    """Integer 1 / 0 is undefined: refused before any write."""

    def checked(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        if not plan.specs["dst"].dtype.is_float and (valid_of(tiles["src"], tiles["dst"].valid_shape) == 0).any():
            from .._check import Check
            from ._common import undefined

            undefined(Check(plan.record.name, plan.config.name), plan.config, "src", "integer division by zero")
        kernel(plan, tiles, scalars)

    return checked


def _reg(name: str, fn: Callable[[np.ndarray], np.ndarray], summary: str, a2a3: tuple[D, ...],
         a5: tuple[D, ...], cpu: tuple[D, ...], operands: tuple = OPERANDS,
         fast_for: Callable[[np.dtype], Fast | None] | None = None):  # noqa: ANN202
    kernel = _unary(fn) if fn is not neg else _neg_kernel
    if fn is recip:
        kernel = _nonzero_integers(kernel)
    if fast_for is not None:  # the compiled calls' fast paths, falling back on the kernel itself
        kernel.compiled = elementwise_hook(("src",), fast_for, kernel)  # type: ignore[attr-defined]
    if fn is neg or fn is np.invert:  # one ufunc for every type but bfloat16's boxes: whole same-type tiles
        kernel.whole = np.negative if fn is neg else np.invert  # type: ignore[attr-defined]
        if fn is neg:
            kernel.whole_not = _neg_whole_not  # type: ignore[attr-defined]
    return instruction(name, operands=operands, legality=_table(a2a3, a5, cpu), dynamic=_VALID, family="unary",
                       summary=summary)(kernel)


# --- the compiled calls' fast paths (elementwise_hook): each gives the general function's bits ---------------
def _ufunc_fast(ufunc: np.ufunc) -> Fast:
    """An op that is one NumPy ufunc for the type: straight into dst (ufuncs handle overlapping operands)."""

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        ufunc(x, out=y)
        return True

    return fast


def _plain(ufunc: np.ufunc) -> Callable[[np.dtype], Fast | None]:
    fast = _ufunc_fast(ufunc)
    return lambda dtype: fast if dtype.kind != "V" else None


def _abs_for(dtype: np.dtype) -> Fast | None:
    """TABS: integers np.abs (the minimum wraps to itself; unsigned unchanged). Half and float: np.abs is
    `x < 0 ? -x : x` except on -0.0 and NaNs with the sign bit set (C++ keeps both); when the smallest |x| is
    above 0 (so no zero and no NaN), np.abs it is, else the general path from the untouched source."""
    if dtype.kind in "iu":
        return _ufunc_fast(np.abs)
    if dtype.kind != "f":
        return None
    copyto, where, less, negative, zero = np.copyto, np.where, np.less, np.negative, dtype.type(0)

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        if x.size < _SMALL:  # abs_ itself: one np.where costs less than the check on a small tile
            copyto(y, where(less(x, zero), negative(x), x))
            return True
        if apart:
            np.abs(x, out=y)
            return lowest(y) > 0  # else x is intact and the general path rewrites y
        t = spare.take()
        try:
            np.abs(x, out=t)
            if not lowest(t) > 0:
                return False
            copyto(y, t)
        finally:
            spare.give(t)
        return True

    fast.apart = _SMALL  # type: ignore[attr-defined]  # looked at from _SMALL elements on
    return fast


_SMALL = 1024


def _relu_for(dtype: np.dtype) -> Fast | None:
    """TRELU, `std::max(x, 0)`: integers np.maximum. Half and float without a NaN, by their bits as signed
    integers i: max(i - 1, -1) + 1 (wrapping) keeps positive numbers (i >= 1) and -0.0 (i = MIN: i - 1 wraps to
    MAX) and makes every negative number (MIN < i < 0) and +0.0 into +0.0: x < 0 ? 0 : x. A NaN (a negative one
    would become 0) takes the general path."""
    if dtype.kind in "iu":
        def fast_int(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
            np.maximum(x, spare.filled(0), out=y)
            return True

        return fast_int
    if dtype.kind != "f":
        return None
    ints = np.dtype(f"i{dtype.itemsize}")
    one = ints.type(1)
    copyto, where, less, zero = np.copyto, np.where, np.less, dtype.type(0)

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        if x.size < _SMALL:  # cpp_max(x, 0) itself on a small tile: one np.where
            copyto(y, where(less(x, zero), zero, x))
            return True
        top = highest(x)
        if top != top:
            return False
        yi = y.view(ints)
        np.subtract(x.view(ints), one, out=yi)
        np.maximum(yi, spare.filled(-1, ints), out=yi)
        np.add(yi, one, out=yi)
        return True

    return fast


def _sqrt_for(dtype: np.dtype) -> Fast | None:
    """TSQRT float: np.sqrt in float is the double computation rounded (sqrt_float) when no NaN comes out, that is
    when the smallest element is >= 0 (-0.0 gives -0.0 both ways); else the general path."""
    if dtype != np.float32:
        return None

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        if not lowest(x) >= 0:
            return False
        np.sqrt(x, out=y)
        return True

    return fast


def _in_double_for(steps: Callable[[np.ndarray], None]) -> Callable[[np.dtype], Fast | None]:
    """TLOG and TRSQRT float: the general path's own steps (widen to a contiguous double array, `steps` in place,
    one rounding to float) when the smallest element is >= 0, so that no NaN is made (the general path then sets
    NaNs as x86 does); the double array is a kept buffer instead of a new one."""

    def fast_for(dtype: np.dtype) -> Fast | None:
        if dtype != np.float32:
            return None
        buffers: dict[tuple[int, ...], list[np.ndarray]] = {}
        copyto, f64 = np.copyto, np.float64

        def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
            if not lowest(x) >= 0:
                return False
            free = buffers.setdefault(x.shape, [])
            try:  # (not `if free`: another thread may take the last one between the test and the pop)
                wide = free.pop()
            except IndexError:
                wide = aligned_empty(x.shape, f64)
            copyto(wide, x)
            steps(wide)
            copyto(y, wide, casting="unsafe")
            free.append(wide)
            return True

        return fast

    return fast_for


def _recip_for(dtype: np.dtype) -> Fast | None:
    """TRECIP half and float: `1 / x` in the type, the same NumPy division as the general path's."""
    if dtype.kind != "f":
        return None
    one = dtype.type(1)

    def fast(y: np.ndarray, x: np.ndarray, apart: bool, spare: Spare) -> bool:
        np.divide(one, x, out=y)
        return True

    return fast


TABS = _reg("TABS", abs_, "dst = |src|", _NPU_FLOAT, (D.F16, D.F32, D.I16, D.I32, D.I8), _SIGNED,
            fast_for=_abs_for)
TNEG = _reg("TNEG", neg, "dst = -src", _NPU_FLOAT + (D.I16, D.I32),
            (D.I32, D.I16, D.U32, D.U16, D.F16, D.F32, D.BF16), ALL9, fast_for=_neg_for)
TNOT = _reg("TNOT", np.invert, "dst = ~src", INTS, INTS, INTS, fast_for=_plain(np.invert))
TRELU = _reg("TRELU", relu, "dst = max(src, 0)", (D.F16, D.F32, D.I32), (D.F16, D.F32, D.I32), ALL9,
             fast_for=_relu_for)
_exp_general = _unary(exp)
_NEG_INF = float("-inf")
_max = np.maximum.reduce


def _exp_kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    """TEXP: float tiles with plain views and no NaN compute exp in double and round to float in one ufunc call
    (input widened, output narrowed by the ufunc's own casts: the same double exp and the same round to
    nearest as `_exp_direct`); a NaN (whose payload the general path sets as x86 does), half, bfloat16 and
    boxed layouts take the general path."""
    out, source = tiles["dst"], tiles["src"]
    if plan.specs["dst"].np_dtype == np.float32 and out.view is not None and source.view is not None:
        vr, vc = out.valid_shape
        x = source.view[:vr, :vc]
        token = quiet_set()
        try:
            # x.max(initial=-inf) without its wrapper (NumPy's stubs want keepdims and initial by keyword)
            top = _max(x, None, None, None, False, _NEG_INF)  # type: ignore[call-overload]
            if top == top:  # no NaN (max propagates one)
                np.exp(x, out=out.view[:vr, :vc], dtype=np.float64, casting="unsafe")
                return
        finally:
            quiet_reset(token)
    _exp_general(plan, tiles, scalars)


def _exp_compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """`_exp_kernel` for one float signature with plain layouts, its choices made once: whole storages, whole views
    or the valid region's slices, the NaN check, then the one ufunc call; a NaN takes the general kernel."""
    specs = plan.specs
    if specs["dst"].np_dtype != np.float32 or any(s.slayout is not SLayout.NoneBox for s in specs.values()):
        return None
    d, s = positions["dst"], positions["src"]
    spec = specs["dst"]
    vr, vc = spec.valid_row, spec.valid_col
    assert vr is not None and vc is not None  # static valid shapes: the hook's premise
    part = (slice(0, vr), slice(0, vc))
    src_spec = specs["src"]
    full = (vr, vc) == (spec.rows, spec.cols) == (src_spec.rows, src_spec.cols) == (src_spec.valid_row,
                                                                                   src_spec.valid_col)
    squares = full and vr * vc <= 4096
    same = full and src_spec == spec  # one layout: element i of each storage is the same element
    exp_, f64 = np.exp, np.float64

    # below _EXP_STAGED_BELOW elements, the region widened into a double scratch block, exp in place there and
    # the block rounded into dst (two assignments and a plain double exp: the general path's own steps) cost less
    # than the ufunc's buffered casts (16x16: 0.85 against 1.45 us; 64x64: 5.5 against 8.1; about even at 256x256)
    staged = vr * vc < _EXP_STAGED_BELOW
    if staged:
        spare = Spare((vr * vc,) if same else (vr, vc), f64)
        free, fresh = spare.free, spare.take

    def step(whole: np.ndarray, x: np.ndarray, y: np.ndarray, wide: np.ndarray | None) -> bool:  # NumPy work only
        # a NaN anywhere makes the NaN check's value NaN: for small whole tiles the sum of squares of the
        # storage (no NaN from numbers: squares are >= 0, and inf + inf is inf; one call cheaper than a
        # reduce), else the maximum of the region
        top = whole.dot(whole) if squares else \
            _max(x, None, None, None, False, _NEG_INF)  # type: ignore[call-overload]
        if top == top:
            if wide is None:
                exp_(x, out=y, dtype=f64, casting="unsafe")
            else:
                wide[...] = x
                exp_(wide, wide)
                y[...] = wide
            return True
        return False

    def run(args: tuple) -> None:
        out, source = args[d], args[s]
        if same:
            x, y = source.storage, out.storage
        elif full:
            x, y = source.view, out.view
        else:
            x, y = source.view[part], out.view[part]
        if staged:
            try:  # (not `if free`: another thread may take the last one between the test and the pop)
                wide = free.pop()
            except IndexError:
                wide = fresh()
            done = QUIET.run(step, source.storage, x, y, wide)
            free.append(wide)
        else:
            done = QUIET.run(step, source.storage, x, y, None)
        if not done:
            _exp_general(plan, {"dst": out, "src": source}, {})

    return run


_EXP_STAGED_BELOW = 16384  # elements


_exp_kernel.compiled = _exp_compiled  # type: ignore[attr-defined]
TEXP = instruction("TEXP", operands=OPERANDS, legality=_table(_NPU_FLOAT, _A5_FLOAT, FLOATS), dynamic=_VALID,
                   family="unary", summary="dst = exp(src)")(_exp_kernel)
TLOG = _reg("TLOG", tabulated(in_double(_log_in_place)), "dst = ln(src)", _NPU_FLOAT, _A5_FLOAT, FLOATS,
            fast_for=_in_double_for(_log_in_place))
TSQRT = _reg("TSQRT", tabulated(_sqrt), "dst = sqrt(src)", _NPU_FLOAT, _A5_FLOAT, FLOATS, fast_for=_sqrt_for)
TRSQRT = _reg("TRSQRT", tabulated(in_double(_rsqrt_in_place)), "dst = 1 / sqrt(src)", _NPU_FLOAT, _A5_FLOAT, FLOATS,
              operands=(*OPERANDS, tmp("tmp", optional=True)), fast_for=_in_double_for(_rsqrt_in_place))
TRECIP = _reg("TRECIP", recip, "dst = 1 / src", _NPU_FLOAT + (D.I32, D.I16), _A5_FLOAT + (D.I32, D.I16),
              FLOATS + (D.I32, D.I16), fast_for=_recip_for)
