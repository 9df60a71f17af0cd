"""Compound element-wise instructions: TADDC TSUBC TADDSC TSUBSC TLRELU TSUBRELU TFUSEDMULADD TMULADDDST
TFUSEDMULADDRELU.

    TADDC(dst, src0, src1, src2)          dst = src0 + src1 + src2
    TSUBC(dst, src0, src1, src2)          dst = src0 - src1 + src2
    TADDSC(dst, src0, scalar, src1)       dst = src0 + scalar + src1
    TSUBSC(dst, src0, scalar, src1)       dst = src0 - scalar + src1
    TLRELU(dst, src, scalar)              dst = src if src > 0 else src * scalar
    TSUBRELU(dst, src0, src1)             dst = max(src0 - src1, 0)   (ReLU: val > 0 ? val : 0)
    TFUSEDMULADD(dst, src0, src1)         dst = src0 * dst + src1
    TMULADDDST(dst, src0, src1)           dst = src0 * src1 + dst
    TFUSEDMULADDRELU(dst, src0, src1)     dst = ReLU(src0 * dst + src1)

Every operation rounds to the element type as the simulator's C++ does (include/pto/cpu/ElementOp.h): left to
right, integers wrapping; the simulator rounds each intermediate of MULADDDST and FUSEDMULADDRELU explicitly,
and the vectors recorded from it (g++ 12) show the same one rounding per operation for the others. dst and every
source share element type and valid shape. On a2a3 and a5 the ReLU and multiply-add forms take half and float
only (the backends' static_asserts); TADDC, TSUBC, TADDSC and TSUBSC follow their instruction pages' lists (the
backends have no implementation of them yet).

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, float, 1, 8]
    >>> d, a, b, c = T(), T(), T(), T()
    >>> a.set_logical([[1.0] * 8]); b.set_logical([[2.0] * 8]); c.set_logical([[-4.0] * 8])
    >>> _ = TADDC(d, a, b, c, target="cpu"); d.data[0, :2].tolist()
    [-1.0, -1.0]
    >>> _ = TLRELU(d, c, 0.5, target="cpu"); d.data[0, :2].tolist()
    [-2.0, -2.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...dtypes import DType as D
from ..record import Legality, Plan, ScalarSlot, Scalars, Tiles, dst, instruction, scalar, src
from ._common import (ALL9, DST_ORDER, FLOATS, Fast, Spare, dst_order_differs, elementwise_hook, equal_valid, highest,
                      lowest, scalar_source, select, valid_of, write)

_A2A3 = (D.I32, D.I16, D.F16, D.F32)
_A5 = (D.I32, D.U32, D.F32, D.I16, D.U16, D.F16, D.BF16, D.U8, D.I8)


def _table(roles: tuple[str, ...], a2a3: tuple[D, ...] = _A2A3, a5: tuple[D, ...] = _A5,
           cpu: tuple[D, ...] = ALL9) -> dict[str, Legality]:
    return {"a2a3": Legality({"dst": a2a3}, same=(roles,), row_major=roles),
            "a5": Legality({"dst": a5}, same=(roles,), row_major=roles),
            "cpu": Legality({"dst": cpu}, same=(roles,))}


def relu(v: np.ndarray) -> np.ndarray:
    """The simulator's ReLU: `val > 0 ? val : 0` (a NaN and -0.0 become 0). Integers: np.maximum (a tie is
    the same bits). Floats: v's bits and-ed with all ones where v > 0, else zero bits (+0.0): the same as
    np.where, without its per-element branch."""
    if v.dtype.kind in "iu":
        return np.maximum(v, v.dtype.type(0))
    bits = np.dtype(f"u{v.dtype.itemsize}")
    mask = np.greater(v, 0).astype(bits)
    np.negative(mask, out=mask)  # 1 -> all ones
    mask &= v.view(bits)
    return mask.view(v.dtype)


def _kernel(roles: tuple[str, ...], fn: Callable[..., np.ndarray], reads_dst: bool = False,
            with_scalar: bool = False, fast: Callable[..., bool] | None = None,
            dst_order: bool = False) -> Callable[[Plan, Tiles, Scalars], None]:
    """The kernel of `fn(*sources[, dst][, scalar])`. `fast(y, *args)`, when given, may write dst's valid region
    `y` (a view; plain layouts) itself and return True; it returns False only before writing y. `dst_order`: the
    one source is read as the simulator's tile-scalar loop for row-major tiles reads it (`scalar_source`)."""

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        out = tiles["dst"]
        shape = out.valid_shape
        args = [scalar_source(plan, tiles, r, shape, row_major=True) if dst_order else valid_of(tiles[r], shape)
                for r in roles]
        if reads_dst:  # a view: every fn makes new arrays, and dst is written only after
            args.append(valid_of(out, shape))
        if with_scalar:
            args.append(scalars["scalar"])
        with quiet():
            if fast is not None and out.view is not None and args[0].dtype.kind in "fiu" and \
                    fast(out.view[:shape[0], :shape[1]], *args):
                return
            write(out, np.asarray(fn(*args)).astype(args[0].dtype, copy=False))

    return kernel


def _scalar_compiled(roles: tuple[str, ...], fast: Callable[..., bool], general: Callable[[Plan, Tiles, Scalars], None],
                     fast_whole: Callable[[int], Callable[..., bool] | None] | None = None, dst_order: bool = False
                     ) -> Callable[..., Callable[[tuple], None] | None]:
    """The compiled hook (`compiled_scalars`) of a `_kernel` with a scalar operand and a `fast` path: per signature
    with plain layouts and a NumPy element type, the arrays are chosen once (whole storages when every tile has
    dst's type and is fully valid, else the valid region's views); each call converts the scalar (the binder's
    conversion) and runs `fast` as the kernel does, or the kernel itself when `fast` declines (before writing).
    `fast_whole(size)`, when given, may give a cheaper `fast` for whole float storages of `size` elements (it must
    write what `fast` writes, and decline only where the kernel's result is the same)."""
    from ...tile.enums import SLayout

    def compiled(plan: Plan, positions: dict[str, int], scalars: dict[str, ScalarSlot]
                 ) -> Callable[[tuple], None] | None:
        specs = plan.specs
        spec = specs["dst"]
        tiles = ("dst", *roles)
        if "scalar" not in scalars or spec.np_dtype.kind not in "fiu" or \
                any(specs[r].slayout is not SLayout.NoneBox for r in tiles) or \
                (dst_order and dst_order_differs(spec, specs[roles[0]], True) and plan.config.erratum(DST_ORDER)):
            return None
        vr, vc = spec.valid_row, spec.valid_col
        same = (vr, vc) == (spec.rows, spec.cols) and all(specs[r] is spec for r in roles)
        part = (slice(0, vr), slice(0, vc))
        at = [positions[r] for r in tiles]
        s_at = positions["scalar"]
        convert = scalars["scalar"].convert
        step = (fast_whole and spec.np_dtype == np.float32 and same and fast_whole(vr * vc)) or fast

        def run(args: tuple) -> None:
            s = convert(args[s_at])
            given = [args[i] for i in at]
            arrays = [t.storage for t in given] if same else [t.view[part] for t in given]
            if not QUIET.run(step, *arrays, s):
                general(plan, dict(zip(tiles, given)), {"scalar": s})

        return run

    return compiled


def _scalar_then(first: np.ufunc) -> Callable[..., bool]:
    """TADDSC / TSUBSC: first(src0, scalar), then + src1 straight into dst: the general path's two NumPy
    operations in the same order and type."""

    def fast(y: np.ndarray, a: np.ndarray, b: np.ndarray, s: np.generic) -> bool:
        if y.dtype.kind == "f" and not (y.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous):
            return False  # strided: the general computation (NumPy's add in place on strided arrays may return
            # the other operand's NaN where both are NaN)
        np.add(first(a, s), b, out=y)
        return True

    return fast


def _leaky(y: np.ndarray, x: np.ndarray, s: np.number) -> bool:
    """TLRELU (`x > 0 ? x : x * s`) for float x without a NaN or an infinity and a finite scalar s > 0: for x > 0
    the rounded product is <= x when s <= 1 (>= x when s >= 1), for x < 0 the other way round (rounding is
    monotonic and x is a float), and for x = +-0 it is x itself (same sign: s > 0); so the result is
    max(x, x * s) for s <= 1 and min(x, x * s) for s >= 1, where a tie is two equal nonzero values (the same
    bits) or x itself. Other cases: the general select."""
    if x.dtype.kind != "f" or not (0 < s < np.inf):
        return False
    if not (-np.inf < lowest(x) and highest(x) < np.inf):  # a NaN fails both
        return False
    product = np.multiply(x, s)
    (np.maximum if s <= 1 else np.minimum)(x, product, out=y)
    return True


def _leaky_whole(size: int) -> Callable[..., bool] | None:
    """`_leaky` for a whole float storage x of up to 4096 elements: the NaN and infinity check is x's sum of squares
    (x.dot(x): one call, where `_leaky` takes two reductions), finite only when every element is (the squares are
    >= 0, so no inf - inf: an infinity or a NaN stays in the sum). A finite x whose squares overflow the sum
    takes the general select, which `_leaky`'s reasoning shows gives the same bits."""
    if size > 4096:
        return None
    inf = np.float32(np.inf)

    def fast(y: np.ndarray, x: np.ndarray, s: np.number) -> bool:
        if not (0 < s < inf) or not x.dot(x) < inf:  # a NaN fails the comparisons
            return False
        (np.maximum if s <= 1 else np.minimum)(x, np.multiply(x, s), out=y)
        return True

    return fast


def _reg(name: str, operands: tuple, roles: tuple[str, ...], fn: Callable[..., np.ndarray], summary: str,
         reads_dst: bool = False, with_scalar: bool = False,
         fast_for: Callable[[np.dtype], Fast | None] | None = None, fast: Callable[..., bool] | None = None,
         fast_whole: Callable[[int], Callable[..., bool] | None] | None = None, dst_order: bool = False,
         **tables: tuple[D, ...]):  # noqa: ANN202
    kernel = _kernel(roles, fn, reads_dst, with_scalar, fast, dst_order)
    if with_scalar and fast is not None and not reads_dst:  # the compiled calls with their scalar
        kernel.compiled = _scalar_compiled(roles, fast, kernel, fast_whole, dst_order)  # type: ignore[attr-defined]
        kernel.compiled_scalars = True  # type: ignore[attr-defined]
    elif fast_for is not None:  # the compiled calls' fast paths, falling back on the kernel itself
        kernel.compiled = elementwise_hook(roles, fast_for, kernel)  # type: ignore[attr-defined]
    return instruction(name, operands=operands, legality=_table(("dst", *roles), **tables),
                       dynamic=equal_valid(*roles), family="compound", summary=summary)(kernel)


# --- the compiled calls' fast paths (elementwise_hook): the general kernel's NumPy operations, in the same order
# and types, with the intermediate in a kept scratch array and the last one straight into dst -----------------
_AT = {"d": 0, "a": 1, "b": 2, "c": 3}  # where dst's region (y) and the sources stand among a fast path's arguments


def _two_steps(first: np.ufunc, second: np.ufunc, order: str) -> Callable[[np.dtype], Fast | None]:
    """t = first(p, q); dst = second(t, r), for element types whose general kernel runs the same ufuncs (not the
    bfloat16 boxes). `order` names p, q, r among the sources a, b, c and dst's own values d."""

    def fast_for(dtype: np.dtype) -> Fast | None:
        if dtype.kind not in "fiu":
            return None

        p, q, r = (_AT[c] for c in order)
        floats = dtype.kind == "f"

        def fast(*args: Any) -> bool:  # (y, a, b[, c], apart, spare): arrays, then a bool and a Spare
            if floats and not (args[0].flags.c_contiguous and args[p].flags.c_contiguous
                               and args[q].flags.c_contiguous and args[r].flags.c_contiguous):
                # strided regions: the general kernel's calls into new arrays (where both operands of the add
                # are NaN, NumPy's in-place add on strided arrays may return the other one's), then a copy
                args[0][...] = second(first(args[p], args[q]), args[r])
                return True
            spare: Spare = args[-1]
            t = spare.take()
            try:
                first(args[p], args[q], out=t)
                second(t, args[r], out=args[0])
            finally:
                spare.give(t)
            return True

        return fast

    return fast_for


def _relu_of(first: np.ufunc, second: np.ufunc | None, order: str) -> Callable[[np.dtype], Fast | None]:
    """ReLU(v) with v = first(p, q) (then second(v, r) when given): for half and float v without a NaN, by
    v's bits as signed integers, max(i, 0): positive numbers stay, zeros (-0.0 is the minimum integer) and
    negative numbers become +0.0, as `v > 0 ? v : 0`; a NaN takes the general path (dst untouched until then).
    4-byte integers: np.maximum(v, 0), as the general kernel (narrower ones compute in int there)."""

    def fast_for(dtype: np.dtype) -> Fast | None:
        if dtype.kind in "iu" and dtype.itemsize < 4 and second is None or dtype.kind not in "fiu":
            return None
        floats = dtype.kind == "f"
        ints = np.dtype(f"i{dtype.itemsize}")

        p, q = _AT[order[0]], _AT[order[1]]
        r = _AT[order[2]] if second is not None else 0

        def fast(*args: Any) -> bool:  # (y, a, b[, c], apart, spare): arrays, then a bool and a Spare
            y: np.ndarray = args[0]
            spare: Spare = args[-1]
            t = spare.take()
            try:
                first(args[p], args[q], out=t)
                if second is not None:
                    second(t, args[r], out=t)
                if floats:
                    top = highest(t)
                    if top != top:
                        return False
                    np.maximum(t.view(ints), spare.filled(0, ints), out=y.view(ints))
                else:
                    np.maximum(t, spare.filled(0), out=y)
            finally:
                spare.give(t)
            return True

        return fast

    return fast_for


_THREE = (dst(), src("src0"), src("src1"), src("src2"))
_SC = (dst(), src("src0"), scalar("scalar", "src0"), src("src1"))
_TWO = (dst(), src("src0"), src("src1"))

TADDC = _reg("TADDC", _THREE, ("src0", "src1", "src2"), lambda a, b, c: (a + b) + c, "dst = src0 + src1 + src2",
             fast_for=_two_steps(np.add, np.add, "abc"))
TSUBC = _reg("TSUBC", _THREE, ("src0", "src1", "src2"), lambda a, b, c: (a - b) + c, "dst = src0 - src1 + src2",
             fast_for=_two_steps(np.subtract, np.add, "abc"))
TADDSC = _reg("TADDSC", _SC, ("src0", "src1"), lambda a, b, s: (a + s) + b, "dst = src0 + scalar + src1",
              with_scalar=True, fast=_scalar_then(np.add))
TSUBSC = _reg("TSUBSC", _SC, ("src0", "src1"), lambda a, b, s: (a - s) + b, "dst = src0 - scalar + src1",
              with_scalar=True, fast=_scalar_then(np.subtract))
TLRELU = _reg("TLRELU", (dst(), src("src"), scalar("scalar", "src")), ("src",),
              lambda x, s: select(x > 0, x, x * s), "dst = src if src > 0 else src * scalar", with_scalar=True, fast=_leaky,
              dst_order=True,
              fast_whole=_leaky_whole,
              a2a3=(D.F16, D.F32), a5=(D.F16, D.F32), cpu=FLOATS)


def _sub_relu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`ReLU(src0 - src1)`: ReLU is a template deduced from `src0 - src1`, so 8- and 16-bit integers subtract and
    clamp in int (no wrap before the clamp) and only the result is narrowed."""
    if a.dtype.kind in "iu" and a.dtype.itemsize < 4:
        return relu(a.astype(np.int32) - b.astype(np.int32)).astype(a.dtype)
    return relu(a - b)


_NPU_HALF_FLOAT = (D.F16, D.F32)  # the NPU backends' static_asserts

TSUBRELU = _reg("TSUBRELU", _TWO, ("src0", "src1"), _sub_relu, "dst = ReLU(src0 - src1)",
                fast_for=_relu_of(np.subtract, None, "ab"),
                a2a3=_NPU_HALF_FLOAT, a5=_NPU_HALF_FLOAT)
TFUSEDMULADD = _reg("TFUSEDMULADD", _TWO, ("src0", "src1"), lambda a, b, d: (a * d) + b,
                    "dst = src0 * dst + src1", reads_dst=True,
                    fast_for=_two_steps(np.multiply, np.add, "adb"), a2a3=_NPU_HALF_FLOAT, a5=_NPU_HALF_FLOAT)
TMULADDDST = _reg("TMULADDDST", _TWO, ("src0", "src1"), lambda a, b, d: (a * b) + d, "dst = src0 * src1 + dst",
                  reads_dst=True, fast_for=_two_steps(np.multiply, np.add, "abd"), a2a3=_NPU_HALF_FLOAT, a5=_NPU_HALF_FLOAT)
TFUSEDMULADDRELU = _reg("TFUSEDMULADDRELU", _TWO, ("src0", "src1"), lambda a, b, d: relu((a * d) + b),
                        "dst = ReLU(src0 * dst + src1)", reads_dst=True,
                        fast_for=_relu_of(np.multiply, np.add, "adb"), a2a3=_NPU_HALF_FLOAT,
                        a5=_NPU_HALF_FLOAT)
