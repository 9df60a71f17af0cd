"""Tile-scalar instructions: TADDS TSUBS TMULS TDIVS TMAXS TMINS TREMS TFMODS TANDS TORS TXORS TSHLS TSHRS.

    TADDS(dst, src0, scalar)     for i < dst.valid_row, j < dst.valid_col:  dst[i, j] = src0[i, j] + scalar
    TDIVS(dst, scalar, src0)     the reversed overload:                       dst[i, j] = scalar / src0[i, j]

The scalar converts to the tiles' element type first, as the C++ parameter `typename TileDataSrc::DType scalar`
does (a narrowing conversion warns); dst and src0 share element type and valid shape. Arithmetic as in
the element-wise binary family (TADD, ...: the simulator's include/pto/cpu/ElementOp.h, OP_ADDS...OP_SHRS).

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, float, 1, 8]
    >>> a, d = T(), T()
    >>> a.set_logical([[1, 2, 4, 8, -1, 0.5, 0.25, 16]])
    >>> _ = TDIVS(d, a, 2.0, target="cpu"); d.data[0, :3].tolist()
    [0.5, 1.0, 2.0]
    >>> _ = TDIVS(d, 2.0, a, target="cpu"); d.data[0, :3].tolist()   # the reversed overload: scalar / src0
    [2.0, 1.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...dtypes import DType as D
from .._check import Check
from .._scalar import weak_range
from ..record import Legality, Plan, ScalarSlot, Scalars, Tiles, dst, instruction, scalar, src, tmp
from ._common import (ALL9, DST_ORDER, INTS, cpp_max, cpp_min, dst_order_differs, equal_valid, fmod_float,
                      highest, npu_fmod, scalar_source, trunc_div, trunc_rem, undefined, write)
from .binary import rem, shift_left, shift_right

OPERANDS = (dst(), src("src0"), scalar("scalar", dtype_of="src0"))
SAME = (("dst", "src0"),)
_A2A3_ARITH = (D.I32, D.I16, D.F16, D.F32)
_A5_ARITH = (D.I32, D.U32, D.F32, D.I16, D.U16, D.F16, D.BF16, D.U8, D.I8)
_BITWISE = INTS
DONE = object()
"""What a compiled call's quiet step returns when it has written dst itself."""
# Per-instruction lists from the instruction pages' constraints (docs/isa/<NAME>.md)
_A5_MULS = (D.U16, D.I16, D.U32, D.I32, D.F16, D.F32, D.BF16)
_A5_DIVS = (D.U16, D.I16, D.U32, D.I32, D.F16, D.F32)
_A2A3_REMS, _A5_REMS = (D.F32, D.I32), (D.F32, D.I32, D.U32, D.F16, D.I16, D.U16)
_A5_FMODS = (D.F16, D.F32, D.U16, D.I16, D.U32, D.I32)  # a5/TFModS.hpp: 2- and 4-byte types its vdiv takes


def _table(a2a3: tuple[D, ...], a5: tuple[D, ...], cpu: tuple[D, ...] = ALL9) -> dict[str, Legality]:
    return {"a2a3": Legality({"dst": a2a3}, same=SAME), "a5": Legality({"dst": a5}, same=SAME),
            "cpu": Legality({"dst": cpu}, same=SAME)}


_VALID = equal_valid("src0")


def _with_scalar(fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 fast: Callable[..., bool] | None = None,
                 row_major: bool = False) -> Callable[[Plan, Tiles, Scalars], None]:
    """The kernel of `fn(src0, scalar)` (`fn(scalar, src0)` for the reversed form). `fast(y, a, s, form)`, when
    given, may write dst's valid region `y` (a view) itself first and return True; False leaves the general
    computation to run (a `fast` returns False only before writing y). `row_major`: see `dst_order_differs`."""
    ufunc = fn if isinstance(fn, np.ufunc) else None

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        a = scalar_source(plan, tiles, "src0", out.valid_shape, row_major=row_major)
        s = scalars["scalar"]  # a NumPy scalar of the tiles' element type: the arithmetic stays in that type
        with quiet():
            if out.view is not None and a.dtype.kind != "V":
                vr, vc = out.valid_shape
                if fast is not None and fast(out.view[:vr, :vc], a, s, plan.form):
                    return
                if ufunc is not None:
                    ufunc(*((s, a) if plan.form == 1 else (a, s)), out=out.view[:vr, :vc])
                    return
            result = fn(s, a) if plan.form == 1 else fn(a, s)
        write(out, np.asarray(result).astype(a.dtype, copy=False))

    if ufunc is not None:
        kernel.whole = ufunc  # type: ignore[attr-defined]  # whole same-type tiles: ufunc(src0 storage, scalar)
    return kernel


def _float_div(y: np.ndarray, a: np.ndarray, s: np.generic, form: int) -> bool:
    """TDIVS half and float: the division into dst (the general path's NumPy division, in the type)."""
    if a.dtype.kind != "f":
        return False
    np.divide(*((s, a) if form == 1 else (a, s)), out=y)  # type: ignore[call-overload]  # stubs: no *union
    return True


def _extreme(ufunc: np.ufunc) -> Callable[..., bool]:
    """TMAXS / TMINS (std::max(src0, scalar): the scalar when src0 < scalar, else src0; min alike): integers the
    ufunc. Half and float: a NaN scalar loses every comparison, so dst is src0; a scalar that is neither NaN nor
    zero ties only with equal bits, so without a NaN in src0 the ufunc's value is std::max's. Else (a zero
    scalar, a NaN in src0) the general path (cpp_max)."""

    def fast(y: np.ndarray, a: np.ndarray, s: np.generic, form: int) -> bool:
        if a.dtype.kind in "iu":
            ufunc(a, s, out=y)
            return True
        if a.dtype.kind != "f":
            return False
        if s != s:
            np.copyto(y, a)
            return True
        if s == 0:
            return False
        top = highest(a)
        if top != top:
            return False
        ufunc(a, s, out=y)
        return True

    return fast


def _extreme_whole(ufunc: np.ufunc) -> Callable[[int], Callable[..., bool] | None]:
    """`_extreme` for a whole float storage of up to 4096 elements (the compiled calls'): the NaN check is the
    storage's sum of squares (a.dot(a), one call for the reduction's one; NaN exactly when an element is: the
    squares are >= 0 or +inf, which add up without a NaN), the rest as `_extreme`."""

    def fast_for(size: int) -> Callable[..., bool] | None:
        if size > 4096:
            return None

        def fast(y: np.ndarray, a: np.ndarray, s: np.generic, form: int) -> bool:
            if s != s:
                np.copyto(y, a)
                return True
            if s == 0:
                return False
            top = a.dot(a)
            if top != top:
                return False
            ufunc(a, s, out=y)
            return True

        return fast

    return fast_for


def _narrow_shift_left(y: np.ndarray, a: np.ndarray, s: np.generic, form: int) -> bool:
    """TSHLS on 1- and 2-byte integers: a << s, wrapped to the type, is a * 2**s modulo 2**bits, and 0 for counts
    of the type's width or more (the shift rule has refused counts outside [0, 32)): one multiplication, which
    NumPy vectorises (its 8-bit shift loop is several times slower)."""
    if a.dtype.itemsize > 2:
        return False
    count = int(s)
    bits = 8 * a.dtype.itemsize
    if count >= bits:
        y[...] = 0
    else:
        np.multiply(a, np.array(1 << count, np.int64).astype(a.dtype)[()], out=y)
    return True


def _narrow_shift_left_for(dtype: np.dtype) -> Callable[..., bool] | None:
    """`_narrow_shift_left` for one element type (the compiled calls'), its multipliers 2**s made once by the same
    expression; a negative count (under undefined='emulate') goes to `_narrow_shift_left` itself."""
    if dtype.kind not in "iu" or dtype.itemsize > 2:
        return None
    bits = 8 * dtype.itemsize
    powers = [np.array(1 << count, np.int64).astype(dtype)[()] for count in range(bits)]

    def fast(y: np.ndarray, a: np.ndarray, s: np.generic, form: int) -> bool:
        count = int(s)
        if count < 0:
            return _narrow_shift_left(y, a, s, form)
        if count >= bits:
            y[...] = 0
        else:
            np.multiply(a, powers[count], out=y)
        return True

    return fast


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return trunc_div(a, np.where(b == 0, 1, b).astype(b.dtype))
    return a / b


def _division_guard(what: str, floats_too: bool = False) -> Callable[..., bool]:
    """guard(plan, scalar, divisors_of) of a division: refuse integer division by zero (any division by zero
    when `floats_too`) before anything is written; False: the call writes nothing (emulated TREMS by zero).
    `divisors_of()` gives src0's valid region (read only for the reversed integer form)."""

    def guard(plan: Plan, s: np.generic, src0_of: Callable[[], np.ndarray]) -> bool:
        if floats_too and plan.form == 0 and s == 0:
            # include/pto/cpu/TBinSOps.hpp TREMS_IMPL and TFMODS_IMPL: "illegal src is zero", and nothing is written
            undefined(Check(plan.record.name, plan.config.name), plan.config, "scalar", f"{what} by zero")
            return False
        if not plan.specs["dst"].dtype.is_float:
            check = Check(plan.record.name, plan.config.name)
            divisors = src0_of() if plan.form == 1 else np.asarray(s)
            if (divisors == 0).any():
                undefined(check, plan.config, "src0" if plan.form == 1 else "scalar", f"integer {what} by zero")
        return True

    return guard


def _shift_guard(plan: Plan, s: np.generic, src0_of: Callable[[], np.ndarray]) -> bool:
    """A shift count outside [0, width of the promoted type) is undefined in C++: refused before any write."""
    count = int(s)
    bits = max(plan.specs["dst"].dtype.itemsize * 8, 32)
    if not 0 <= count < bits:
        undefined(Check(plan.record.name, plan.config.name), plan.config, "scalar",
                  f"a shift count outside [0, {bits}) is undefined in C++")
    return True


def _guarded(guard: Callable[..., bool], row_major: bool = False
             ) -> Callable[[Callable[[Plan, Tiles, Scalars], None]], Callable[[Plan, Tiles, Scalars], None]]:
    """The kernel wrapped in `guard`, which runs first (its refusals come before any byte is written)."""

    def wrap(fn: Callable[[Plan, Tiles, Scalars], None]) -> Callable[[Plan, Tiles, Scalars], None]:
        def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
            def source() -> np.ndarray:
                return scalar_source(plan, tiles, "src0", tiles["dst"].valid_shape, False, row_major)

            if guard(plan, scalars["scalar"], source):
                fn(plan, tiles, scalars)

        return kernel

    return wrap


def _rem_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return trunc_rem(a, np.where(b == 0, 1, b).astype(b.dtype)) if a.dtype.kind in "iu" else fmod_float(a, b)


def _fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TFMODS: C++ `%` or `std::fmod` in double, the sign of the dividend (no adjustment)."""
    return _rem_int(a, b)


def _npu_fmods(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TFMODS on the NPUs (a2a3/TFmodS.hpp, a5/TFModS.hpp): integers `a - (a / b) * b` with a truncating
    division, i.e. C++ `%`; floats `a - trunc(a / b) * b` in float, one rounding per step, a half widened to
    float and the result converted back rounding towards zero (A5's vcvt ROUND_Z)."""
    return _rem_int(a, b) if a.dtype.kind in "iu" else npu_fmod(a, b)


def _scalar_compiled(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], fast: Callable[..., bool] | None,
                     guard: Callable[..., bool] | None,
                     fast_whole: Callable[[int], Callable[..., bool] | None] | None = None,
                     fast_for: Callable[[np.dtype], Callable[..., bool] | None] | None = None,
                     row_major: bool = False) -> Callable[..., Callable[[tuple], None] | None]:
    """The compiled hook (`compiled_scalars`) of a `_with_scalar` kernel: per signature with plain layouts and a
    NumPy element type, the arrays are chosen once (whole storages when dst and src0 are one fully valid type,
    else the valid region's views); each call converts the scalar (the binder's conversion), runs the guard (the
    wrapper's checks, same order), then the kernel's own steps: `fast`, else the ufunc, else `fn` and a copy into
    dst. `fast_whole(size)`, when given, may give the hook a cheaper `fast` for whole float storages of `size`
    elements (writing what `fast` writes, declining where it declines); `fast_for(dtype)` likewise for an element
    type. A kernel that is its ufunc and nothing
    else gets Python numbers of the weak range (`weak_range`) as they are."""
    ufunc = fn if isinstance(fn, np.ufunc) else None
    from ...tile.enums import SLayout

    def compiled(plan: Plan, positions: dict[str, int], scalars: dict[str, ScalarSlot]
                 ) -> Callable[[tuple], None] | None:
        specs = plan.specs
        spec, source = specs["dst"], specs["src0"]
        if "scalar" not in scalars or spec.np_dtype.kind not in "fiu" or \
                any(specs[r].slayout is not SLayout.NoneBox for r in ("dst", "src0")) or \
                (dst_order_differs(spec, source, row_major) and plan.config.erratum(DST_ORDER)):
            return None
        d, a_at, s_at = positions["dst"], positions["src0"], positions["scalar"]
        slot = scalars["scalar"]
        convert = slot.convert
        vr, vc = spec.valid_row, spec.valid_col
        same = source is spec and (vr, vc) == (spec.rows, spec.cols)
        part = (slice(0, vr), slice(0, vc))
        form = plan.form
        quiet_floats = spec.np_dtype.kind == "f"
        plain = ufunc if fast is None and guard is None else None
        step = (fast_whole and spec.np_dtype == np.float32 and same and fast_whole(vr * vc)) or \
            (fast_for and fast_for(spec.np_dtype)) or fast
        weak: type[float]  # float or int (int: for integer types), and the bounds of the numbers NumPy may
        low: float  # convert itself
        high: float
        weak, low, high = weak_range(slot.dtype) if plain is not None and slot.dtype is spec.dtype \
            else (float, 1.0, 0.0)

        if plain is not None:
            def run_plain(args: tuple) -> None:
                out, src0, value = args[d], args[a_at], args[s_at]
                if type(value) is not weak or not low <= value <= high:
                    value = convert(value)
                if same:
                    y, a = out.storage, src0.storage
                else:
                    y, a = out.view[part], src0.view[part]
                if quiet_floats:
                    QUIET.run(plain, *((value, a) if form == 1 else (a, value)), out=y)
                else:
                    plain(*((value, a) if form == 1 else (a, value)), out=y)

            return run_plain

        def compute(y: np.ndarray, a: np.ndarray, s: Any) -> Any:  # under QUIET.run: NumPy work only
            if step is not None and step(y, a, s, form):
                return DONE
            if ufunc is not None:
                ufunc(*((s, a) if form == 1 else (a, s)), out=y)
                return DONE
            return fn(s, a) if form == 1 else fn(a, s)

        def run(args: tuple) -> None:
            out, src0 = args[d], args[a_at]
            s = convert(args[s_at])
            if same:
                y, a = out.storage, src0.storage
            else:
                y, a = out.view[part], src0.view[part]
            if guard is not None and not guard(plan, s, lambda: a):
                return
            result = QUIET.run(compute, y, a, s)
            if result is not DONE:
                y[...] = np.asarray(result).astype(a.dtype, copy=False)  # the kernel's write, outside the quiet part

        return run

    return compiled


def _reg(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray], summary: str,
         a2a3: tuple[D, ...] = _A2A3_ARITH, a5: tuple[D, ...] = _A5_ARITH, cpu: tuple[D, ...] = ALL9,
         operands: tuple = OPERANDS, forms: tuple = (), guard: Callable[..., bool] | None = None,
         fast: Callable[..., bool] | None = None,
         fast_whole: Callable[[int], Callable[..., bool] | None] | None = None,
         fast_for: Callable[[np.dtype], Callable[..., bool] | None] | None = None,
         row_major: bool = False,
         npu: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None):  # noqa: ANN202
    """`row_major`: the simulator's form takes row-major tiles only (TBinSOps.hpp CONSTRAINT_VEC_ROWMAJOR). `npu`,
    when given, is the element function on a2a3 and a5 (their backends' own formula), `fn` the cpu one."""
    general = _with_scalar(fn, fast, row_major)
    compiled = _scalar_compiled(fn, fast, guard, fast_whole, fast_for, row_major)
    if npu is not None:
        cpu_general, npu_general = general, _with_scalar(npu, None, row_major)
        cpu_compiled, npu_compiled = compiled, _scalar_compiled(npu, None, guard, row_major=row_major)

        def general(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:  # type: ignore[misc]
            (cpu_general if plan.config.name == "cpu" else npu_general)(plan, tiles, scalars)

        def compiled(plan: Plan, *args: Any) -> Callable[[tuple], None] | None:  # type: ignore[misc]
            return (cpu_compiled if plan.config.name == "cpu" else npu_compiled)(plan, *args)
    kernel = _guarded(guard, row_major)(general) if guard is not None else general
    kernel.compiled = compiled  # type: ignore[attr-defined]
    kernel.compiled_scalars = True  # type: ignore[attr-defined]
    return instruction(name, operands=operands, forms=forms, legality=_table(a2a3, a5, cpu), dynamic=_VALID,
                       family="scalar", summary=summary)(kernel)


TADDS = _reg("TADDS", np.add, "dst = src0 + scalar", row_major=True)
TSUBS = _reg("TSUBS", np.subtract, "dst = src0 - scalar")
TMULS = _reg("TMULS", np.multiply, "dst = src0 * scalar", a5=_A5_MULS, row_major=True)
TDIVS = _reg("TDIVS", _int_div, "dst = src0 / scalar, or scalar / src0 for TDIVS(dst, scalar, src0)", a5=_A5_DIVS,
             forms=(OPERANDS, (dst(), scalar("scalar", dtype_of="dst"), src("src0"))),
             guard=_division_guard("division"), fast=_float_div, row_major=True)
TMAXS = _reg("TMAXS", cpp_max, "dst = std::max(src0, scalar)", fast=_extreme(np.maximum),
             fast_whole=_extreme_whole(np.maximum), row_major=True)
TMINS = _reg("TMINS", cpp_min, "dst = std::min(src0, scalar)", fast=_extreme(np.minimum),
             fast_whole=_extreme_whole(np.minimum))
TREMS = _reg("TREMS", rem, "dst = src0 rem scalar, with the sign of scalar", a2a3=_A2A3_REMS, a5=_A5_REMS,
             operands=(*OPERANDS, tmp("tmp", optional=True)), guard=_division_guard("remainder", True))
TFMODS = _reg("TFMODS", _fmod, "dst = fmod(src0, scalar), with the sign of src0 (NPUs: src0 - trunc(src0 / "
              "scalar) * scalar in float)", a2a3=(D.F32,), a5=_A5_FMODS, guard=_division_guard("remainder", True),
              npu=_npu_fmods)
TANDS = _reg("TANDS", np.bitwise_and, "dst = src0 & scalar", _BITWISE, _BITWISE, INTS)
TORS = _reg("TORS", np.bitwise_or, "dst = src0 | scalar", _BITWISE, _BITWISE, INTS)
TXORS = _reg("TXORS", np.bitwise_xor, "dst = src0 ^ scalar", _BITWISE, _BITWISE, INTS,
             operands=(*OPERANDS, tmp("tmp", optional=True)))
TSHLS = _reg("TSHLS", shift_left, "dst = src0 << scalar", _BITWISE, _BITWISE, INTS, guard=_shift_guard,
             fast=_narrow_shift_left, fast_for=_narrow_shift_left_for)
TSHRS = _reg("TSHRS", shift_right, "dst = src0 >> scalar", _BITWISE, _BITWISE, INTS, guard=_shift_guard)
