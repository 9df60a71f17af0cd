"""Pieces the vector families share: valid-shape rules, region reads and writes, C++ arithmetic in NumPy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet, quiet_reset, quiet_set

from ...dtypes import STANDARD_DTYPES, DType
from ...errors import NotModelledError, UndefinedBehaviourError
from ...tile.layout import region, store
from ...tile.tile import Tile
from .._check import Check, announce_erratum
from ..record import Plan, Scalars, Tiles

FLOATS: tuple[DType, ...] = (DType.F16, DType.BF16, DType.F32)
INTS: tuple[DType, ...] = (DType.I8, DType.U8, DType.I16, DType.U16, DType.I32, DType.U32)
ALL9: tuple[DType, ...] = STANDARD_DTYPES


def equal_valid(*roles: str) -> Callable[[Check, Plan, Tiles], None]:
    """Run-time rule: every named tile's valid shape equals dst's (the reference asserts it)."""

    def rule(check: Check, plan: Plan, tiles: Tiles) -> None:
        shape = tiles["dst"].valid_shape
        for role in roles:
            if role in tiles and tiles[role].valid_shape != shape:
                check.fail(role, f"valid shape {tiles[role].valid_shape} must equal dst's valid shape {shape}")

    return rule


def valid_of(tile: Tile, shape: tuple[int, int] | None = None) -> np.ndarray:
    vr, vc = shape if shape is not None else tile.valid_shape
    return region(tile, vr, vc)


DST_ORDER = "tile_scalar_src_dst_order"


def dst_order_differs(dspec: Any, sspec: Any, row_major: bool = False) -> bool:
    """Whether the simulator's tile-scalar loop reads src (spec `sspec`) other than through its own layout: dst
    is not boxed, and src is boxed or of the other major order (erratum `tile_scalar_src_dst_order`). `row_major`:
    the instruction's simulator form takes row-major tiles only (TBinSOps.hpp CONSTRAINT_VEC_ROWMAJOR), so any
    column-major operand is a program it does not compile, which runs with the contract's meaning."""
    if row_major and not (dspec.is_row_major and sspec.is_row_major):
        return False
    return not dspec.is_boxed and (sspec.is_boxed or sspec.is_row_major is not dspec.is_row_major)


def scalar_source(plan: Plan, tiles: Tiles, role: str, shape: tuple[int, int], announce: bool = True,
                  row_major: bool = False) -> np.ndarray:
    """The valid region of a tile-scalar instruction's source as the target reads it: through its layout, but on
    `cpu` (erratum `tile_scalar_src_dst_order`, announced where it changes a value's bits) element (r, c) of a
    non-boxed dst's loop is src's storage element r * src Cols + c (row-major dst) or c * src Rows + r (see
    `dst_order_differs` for `row_major`)."""
    src, out = tiles[role], tiles["dst"]
    logical = valid_of(src, shape)
    sspec, dspec = src.spec, out.spec
    if not dst_order_differs(dspec, sspec, row_major) or src.storage.ndim != 1 or not plan.config.erratum(DST_ORDER):
        return logical
    vr, vc = shape
    if dspec.is_row_major:
        at = np.arange(vr)[:, None] * sspec.cols + np.arange(vc)
    else:
        at = np.arange(vc) * sspec.rows + np.arange(vr)[:, None]
    raw = src.storage[at]
    if announce and raw.tobytes() != np.ascontiguousarray(logical).tobytes():
        announce_erratum(plan.config, plan.record.name, DST_ORDER)
    return raw


def write(tile: Tile, values: np.ndarray) -> None:
    vr, vc = values.shape
    store(tile, vr, vc, values)


def undefined(check: Check, config: Any, role: str, rule: str) -> None:
    """Refuse undefined behaviour (principle 4); under emulation the caller decides what the target does."""
    if config.undefined != "emulate":
        raise UndefinedBehaviourError(
            check.instr, check.target, role,
            f"{rule}; the result is undefined on this target (use undefined='emulate' to reproduce the target)")


def wide(values: np.ndarray) -> np.ndarray:
    """Values as float64 (floats) or int64 (integers): exact for every element type ptoisa models."""
    return values.astype(np.float64 if values.dtype.kind in "fV" else np.int64)


def narrow_int(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers wrapped modulo 2**bits into `dtype`, as a C++ assignment from int does."""
    return values.astype(np.int64).astype(dtype)


def via_float(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """`fn` computed in double and rounded to float, then to x's type: what `static_cast<T>(std::f((float)x))`
    gives for a correctly rounded `f`. Double rounding through float is exact for the functions used here
    (float carries more than twice half's and bfloat16's precision)."""
    with quiet():
        out = fn(x.astype(np.float64)).astype(np.float32)
    return out.astype(x.dtype)


def select(mask: np.ndarray, yes: np.ndarray | np.generic, no: np.ndarray) -> np.ndarray:
    """`np.where(mask, yes, no)` for `yes` and `no` of one element type, by bits: no ^ ((yes ^ no) & M) with M
    all ones where `mask` holds. The same bits as np.where (each element is copied whole, NaN payloads and zero
    signs included), at a fixed cost: np.where branches per element, and a mask without a pattern (a max of
    two random tiles) makes it several times slower."""
    no = np.asarray(no)
    bits = np.dtype(f"u{no.dtype.itemsize}")
    m = mask.astype(bits)
    np.negative(m, out=m)  # 1 -> all ones
    yes_bits = np.asarray(yes, dtype=no.dtype).view(bits)
    no_bits = no.view(bits)
    out = np.bitwise_xor(yes_bits, no_bits)
    out &= m
    out ^= no_bits
    return out.view(no.dtype)


_SMALL = 1024


def _unambiguous(extreme: np.ndarray) -> bool:
    """True when np.maximum's (np.minimum's) result is std::max's (std::min's) too: no NaN in it (NumPy's
    propagate NaNs, so none in either operand) and no zero (the only equal values with different bits are 0.0
    and -0.0, whose order std::max decides by position)."""
    return not np.isnan(extreme.max(initial=0.0)) and not (extreme == 0).any()


def cpp_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`std::max(a, b)`: b when a < b, else a (a NaN or an equal pair gives a). Integers: np.maximum (equal
    integers are the same bits); half and float: np.maximum when that is unambiguous, else a select by bits."""
    if a.dtype.kind in "iu":
        return np.maximum(a, b)
    if max(a.size, np.size(b)) < _SMALL:  # one np.where costs less than the calls below on a small result
        return np.where(a < b, b, a)
    if a.dtype.kind == "f":
        quick = np.maximum(a, b)
        if _unambiguous(quick):
            return quick
    return select(a < b, b, a)


def cpp_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`std::min(a, b)`: b when b < a, else a (as cpp_max)."""
    if a.dtype.kind in "iu":
        return np.minimum(a, b)
    if max(a.size, np.size(b)) < _SMALL:
        return np.where(b < a, b, a)
    if a.dtype.kind == "f":
        quick = np.minimum(a, b)
        if _unambiguous(quick):
            return quick
    return select(b < a, b, a)


def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ integer division (truncating towards zero) for nonzero b, in a's type (wrapping INT_MIN / -1)."""
    wa, wb = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(wa) // np.abs(wb)
    return narrow_int(np.where((wa < 0) != (wb < 0), -q, q), a.dtype)


def trunc_rem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ `a % b` for nonzero b: the sign of a."""
    wa, wb = a.astype(np.int64), b.astype(np.int64)
    r = np.abs(wa) % np.abs(wb)
    return narrow_int(np.where(wa < 0, -r, r), a.dtype)


def tables(**targets: Any) -> Mapping[str, Any]:
    return targets


def from_double(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 values rounded once (to nearest, ties to even) into `dtype`: `static_cast<T>(double)`.

    NumPy converts double to float and to half with one rounding; ml_dtypes converts double to bfloat16
    through float (two roundings), so bfloat16 goes through float rounded to odd, which makes the second
    rounding exact."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return x.astype(dtype)
    if dtype.itemsize != 2 or dtype.kind == "f":
        return x.astype(dtype)
    with quiet():
        f = x.astype(np.float32)
        back = f.astype(np.float64)
        inexact = (back != x) & np.isfinite(x)
        towards_zero = np.where(np.abs(back) > np.abs(x), np.nextafter(f, np.float32(0)), f)
        bits = towards_zero.view(np.uint32) | np.uint32(1)
        odd = np.where(inexact, bits.view(np.float32), f)
    return odd.astype(dtype)


_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F32_QUIET = np.uint32(0x00400000)


def cpp_float_cast(x: np.ndarray, dtype: Any) -> np.ndarray:
    """`static_cast` between half and float (or double) as the simulator's build does it (GCC 12 on x86-64: half
    converts through libgcc's soft-float routines, float to double in hardware): NumPy's conversion, but a
    signalling NaN comes out quiet, as IEEE 754's conversions give it (the quiet bit set, the payload's top bits
    kept: float 0x7F800001 -> half 0x7E00, half 0x7C01 -> float 0x7FC02000). NumPy's own half conversions keep a
    NaN signalling (0x7F800001 -> 0x7C01). Other pairs: NumPy's cast."""
    dtype = np.dtype(dtype)
    token = quiet_set()  # overflow to infinity, a signalling NaN's invalid operation: expected here
    try:
        if x.dtype == _F32 and dtype == _F16:
            out = np.empty(x.shape, _F16)
            narrow_to_half(out, x)
            return out
        if x.dtype == _F16 and dtype.kind == "f" and dtype.itemsize > 2:
            out = np.empty(x.shape, _F32)
            widen_half(out, x)
            return out if dtype == _F32 else out.astype(dtype)  # float -> double: in hardware, exact, NaNs quiet
        return x.astype(dtype, copy=False)
    finally:
        quiet_reset(token)


def _has_nan(values: np.ndarray) -> bool:
    """Whether float `values` hold a NaN: the sum of their squares is NaN exactly then (squares are never
    negative, so no inf - inf); a dot product of a contiguous array costs half a reduction (np.vdot: the
    array's elements in order, no reshape: 0.49 against 0.63 us at 16x16)."""
    if values.flags.c_contiguous:
        total = np.vdot(values, values)
    else:
        total = np.maximum.reduce(values, None)
    return bool(total != total)


def widen_half(out: np.ndarray, x: np.ndarray) -> None:
    """float `out` = half `x` converted as C++ does (`cpp_float_cast`): NumPy's cast, then the quiet bit set in
    every NaN (a NaN in the result is rare: one test tells). The caller silences NumPy's warnings."""
    out[...] = x
    if _has_nan(out):
        bits = out.view(np.uint32)
        np.bitwise_or(bits, _F32_QUIET, out=bits, where=np.isnan(out))


def narrow_to_half(out: np.ndarray, x: np.ndarray) -> None:
    """half `out` = float `x` converted as C++ does (`cpp_float_cast`): NumPy's rounding; a NaN becomes the sign,
    the quiet NaN exponent and significand bit, and the float's top 10 significand bits. The caller silences
    NumPy's warnings."""
    fixed = nan = None
    if _has_nan(x):  # (read before writing: out may share x's bytes)
        bits = x.view(np.uint32)
        fixed = ((bits >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7E00) | \
            ((bits >> np.uint32(13)) & np.uint32(0x3FF))
        nan = np.isnan(x)
    out[...] = x  # (overflow to infinity: the callers silence it)
    if fixed is not None:
        np.copyto(out.view(np.uint16), fixed, casting="unsafe", where=nan)


_FMOD_SMALL = 1024


def _fmod_plan(dtype: np.dtype) -> tuple[type, float]:
    """(working type, quotient limit) of fmod_float: double for float, float for half and bfloat16."""
    return (np.float64, 2.0 ** 24) if dtype.itemsize == 4 else (np.float32, 2.0 ** 12)


def fmod_float(a: np.ndarray, b: np.ndarray | np.generic) -> np.ndarray:
    """`static_cast<T>(std::fmod(double(a), double(b)))` for half, bfloat16 and float elements, without libm's
    fmod (about 15 ns an element) where the quotient is small.

    fmod is exact: the remainder of two floats of type T is representable in T, so any exact computation of it
    gives the same bits. Here, in a working type W (double for float, float for half and bfloat16: p = 53 or 24
    bits) on finite a and b != 0 whose quotient is under the limit L (2**24, or 2**12 for the 2-byte types):
    let u be the unit of b's last bit in T (|b| < 2**m u, m = 24, 11 or 8 significant bits). A true quotient
    t = a / b that is not an integer k is at least u / |b| > 2**-m away from it, while the rounded quotient errs
    by under L * 2**-p (2**-29; 2**-12 for half, 2**-12 for bfloat16 against 2**-8), and rounding is monotonic,
    so trunc of the rounded quotient is the true integer part n. n * b and a - n * b are then multiples of u
    below 2**(m + log2 L) u <= 2**p u: exact in W. Their difference has a's sign, or is +0; fmod's result (zero
    included) has the dividend's sign, so a's sign bit is or-ed in when there are zeros. Elements with a larger,
    infinite or NaN quotient or an infinite divisor (b zero or infinite, a infinite, NaNs) take libm's fmod in
    double, as before."""
    if max(a.size, np.size(b)) < _FMOD_SMALL:  # a dozen NumPy calls cost more than libm on a small tile
        with quiet():
            return np.fmod(a.astype(np.float64), np.asarray(b).astype(np.float64)).astype(a.dtype)
    work, limit = _fmod_plan(a.dtype)
    wa = a.astype(work)
    wb = np.asarray(b).astype(work)
    with quiet():
        q = wa / wb
        small = -limit < q.min(initial=0.0) and q.max(initial=0.0) < limit  # a NaN quotient fails both
        np.trunc(q, out=q)
        np.multiply(q, wb, out=q)  # NaN for an infinite divisor (0 * inf)
        np.subtract(wa, q, out=wa)
        slow = None if small and not np.isnan(wa.max(initial=0.0)) else \
            np.isnan(wa) | ~(np.abs(a.astype(work) / wb) < limit)
        result = wa.astype(a.dtype)
        zero = result == 0
        if zero.any():  # a - n * b gives +0: fmod's zero has the dividend's sign (others have it already)
            bits = result.view(f"u{a.dtype.itemsize}")
            bits |= a.view(bits.dtype) & bits.dtype.type(1 << (8 * a.dtype.itemsize - 1))
    if slow is not None:
        sb = np.asarray(b) if np.ndim(b) == 0 else np.broadcast_to(b, a.shape)[slow]
        with quiet():
            result[slow] = np.fmod(a[slow].astype(np.float64), sb.astype(np.float64)).astype(a.dtype)
    return result


# --- compiled calls of the element-wise records --------------------------------------------------------------
_MIN = np.minimum.reduce
_MAX = np.maximum.reduce


def lowest(x: np.ndarray) -> Any:
    """x's smallest element (NaN if it holds one: NumPy's minimum propagates NaNs), +inf for an empty x, without
    the method's wrapper."""
    return _MIN(x, None, None, None, False, np.inf)


def highest(x: np.ndarray) -> Any:
    """x's largest element (NaN if it holds one), -inf for an empty x."""
    return _MAX(x, None, None, None, False, -np.inf)


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """np.empty starting on a 64-byte boundary: AVX-512 loops over arrays that start mid cache line split their
    loads and stores across lines (a two-step compound op on 256x256 floats: ~17 us aligned, ~24 us not)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    raw = np.empty(count * dtype.itemsize + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


class Spare:
    """Scratch arrays of one shape and type for a compiled call, taken and given back (list pop and append are
    atomic) so that calls in two threads never share one."""

    __slots__ = ("shape", "dtype", "free", "constants")

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape, self.dtype, self.free = shape, np.dtype(dtype), []
        self.constants: dict[tuple[Any, np.dtype], np.ndarray] = {}

    def filled(self, value: Any, dtype: Any = None) -> np.ndarray:
        """A read-only array of the shape full of `value` (of `dtype`, else the type), made once: NumPy's
        binary ufuncs run several times faster on two arrays than on an array and a scalar (maximum, minimum)."""
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        key = (value, dtype)
        array = self.constants.get(key)
        if array is None:
            array = aligned_empty(self.shape, dtype)
            array.fill(value)
            array.setflags(write=False)
            self.constants[key] = array
        return array

    def take(self) -> np.ndarray:
        try:  # (not `if self.free`: another thread may take the last one between the test and the pop)
            return self.free.pop()
        except IndexError:
            return aligned_empty(self.shape, self.dtype)

    def give(self, array: np.ndarray) -> None:
        self.free.append(array)


Fast = Callable[..., bool]
"""fast(y, *xs, apart, spare) -> bool: the element-wise computation of dst's valid region `y` from the sources'
`xs` (arrays of one shape; for float types run by `QUIET.run`, errors ignored: NumPy work only, no warnings,
no target lookups), True when done; False (the caller then runs the
general kernel) only when the xs (the tiles' bytes) are still as they were. `apart`: y certainly shares no memory
with any x (computed only for a `fast` whose attribute `apart` is true; else False); `spare`: a `Spare` of y's
shape and type."""


def _apart(store: np.ndarray, others: list[np.ndarray]) -> bool:
    """Storages whose owners (the array itself, or the base NumPy collapses a view's chain to) are distinct owning
    ndarrays are distinct allocations: they never overlap (as tile.layout.certainly_apart)."""
    base = store.base
    owner = store if base is None else base
    if type(owner) is not np.ndarray or owner.base is not None:
        return False
    for other in others:
        base = other.base
        if base is not None:
            other = base
        if other is owner or type(other) is not np.ndarray or other.base is not None:
            return False
    return True


def elementwise_hook(sources: tuple[str, ...], fast_for: Callable[[np.dtype], Fast | None],
                     general: Callable[[Plan, Tiles, Scalars], None]) -> Callable[..., Callable | None]:
    """A `compiled` hook for an element-wise kernel with tile operands dst and `sources` (any other operand, an
    optional scratch tile, is ignored): per signature with plain (unboxed) layouts and an element type for which
    `fast_for` gives a function, the arrays it reads and writes are chosen once (whole storages when every tile
    has dst's type and is fully valid, else whole views, else the valid region's slices) and each call runs
    `fast`, or `general` when `fast` declines."""
    from ...tile.enums import SLayout

    def compiled(plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
        specs = plan.specs
        roles = ("dst", *sources)
        if any(specs[r].slayout is not SLayout.NoneBox for r in roles):
            return None
        spec = specs["dst"]
        fast = fast_for(spec.np_dtype)
        if fast is None:
            return None
        vr, vc = spec.valid_row, spec.valid_col
        full = all((specs[r].valid_row, specs[r].valid_col) == (specs[r].rows, specs[r].cols) == (vr, vc)
                   for r in roles)
        same = full and all(specs[r] is spec for r in roles)
        part = (slice(0, vr), slice(0, vc))
        d = positions["dst"]
        at = tuple(positions[r] for r in sources)
        spare = Spare((spec.rows * spec.cols,) if same else (vr, vc), spec.np_dtype)
        # `fast.apart`: True, or the least number of elements for which `fast` looks at `apart`
        wants = getattr(fast, "apart", False)
        wants_apart = wants is True or wants is not False and vr * vc >= wants
        silence = spec.np_dtype.kind not in "iu"  # floating-point warnings off around float types

        def pick(tile: Tile) -> np.ndarray:
            return tile.storage if same else tile.view if full else tile.view[part]

        def run(args: tuple) -> None:
            out = args[d]
            xs = [pick(args[i]) for i in at]
            apart = wants_apart and _apart(out.storage, [args[i].storage for i in at])
            if silence:
                done = QUIET.run(fast, pick(out), *xs, apart, spare)
            else:
                done = fast(pick(out), *xs, apart, spare)
            if not done:
                general(plan, {"dst": out, **{r: args[i] for r, i in zip(sources, at)}}, {})

        if len(at) == 2 and not wants_apart:  # binary ops, without the lists
            s0, s1 = at

            def run_two(args: tuple) -> None:
                out, first, second = args[d], args[s0], args[s1]
                if same:
                    y, a, b = out.storage, first.storage, second.storage
                elif full:
                    y, a, b = out.view, first.view, second.view
                else:
                    y, a, b = out.view[part], first.view[part], second.view[part]
                if silence:
                    done = QUIET.run(fast, y, a, b, False, spare)
                else:
                    done = fast(y, a, b, False, spare)
                if not done:
                    general(plan, {"dst": out, sources[0]: first, sources[1]: second}, {})

            return run_two
        if len(at) == 1 and not wants_apart:  # the common unary case, without the lists
            s = at[0]

            def run_one(args: tuple) -> None:
                out, source = args[d], args[s]
                if same:
                    y, x = out.storage, source.storage
                elif full:
                    y, x = out.view, source.view
                else:
                    y, x = out.view[part], source.view[part]
                if silence:
                    done = QUIET.run(fast, y, x, False, spare)
                else:
                    done = fast(y, x, False, spare)
                if not done:
                    general(plan, {"dst": out, sources[0]: source}, {})

            return run_one
        return run

    return compiled


def npu_fmod32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The NPUs' fmod in float: `a - trunc(a / b) * b`, each step rounded to float."""
    with quiet():
        q = np.divide(a, b, dtype=np.float32)
        np.trunc(q, out=q)
        np.multiply(q, b, out=q)
        return np.subtract(a, q, dtype=np.float32)


def npu_fmod(a: np.ndarray, b: np.ndarray | np.generic) -> np.ndarray:
    """The NPUs' float fmod (TFMOD, TFMODS: a2a3/TFmod*.hpp, a5/TFMod*.hpp): `npu_fmod32` in float, a half widened
    and its result converted back rounding towards zero (A5's vcvt ROUND_Z)."""
    r = npu_fmod32(a.astype(np.float32), np.asarray(b).astype(np.float32))
    return r if a.dtype == np.float32 else half_toward_zero(r)


def half_toward_zero(x: np.ndarray) -> np.ndarray:
    """float -> half rounding towards zero (A5's vcvt ROUND_Z): NumPy's nearest rounding, stepped back one unit
    where it went away from zero (a finite float past half's range becomes +-65504)."""
    with quiet():
        h = x.astype(np.float16)
        over = np.isfinite(x) & (np.abs(h.astype(np.float32)) > np.abs(x))
    bits = h.view(np.uint16)
    bits[over] -= np.uint16(1)
    return h


def modelled(plan: Plan) -> None:
    """Raise the NotModelledError a record's static rule found (its plan's data, a message), if any."""
    if isinstance(plan.data, str):
        raise NotModelledError(plan.data)


def apart(plan: Plan, tiles: Tiles, allowed: tuple[tuple[str, str], ...] = ()) -> None:
    """Refuse an output sharing bytes with another operand (but the `allowed` pairs when they are one tile):
    the reference's loops read and write element by element, which these staged kernels do not reproduce."""
    for out in (o.name for o in plan.record.forms[plan.form] if o.out):
        for role, tile in tiles.items():
            if role == out or (out, role) in allowed and tile is tiles[out]:
                continue
            if np.shares_memory(tiles[out].storage, tile.storage):
                raise NotModelledError(f"{plan.record.name} on {plan.config.name}: '{out}' shares storage with "
                                       f"'{role}' (the element-by-element loop over aliased tiles)")
