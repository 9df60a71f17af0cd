"""Row and column reductions: TROWSUM TROWMAX TROWMIN TROWPROD (dst, src, tmp) and TCOLSUM TCOLMAX TCOLMIN
TCOLPROD (dst, src[, tmp]).

    TROWSUM(dst, src, tmp)       for i < src.valid_row:  dst[i, 0] = src[i, 0] + src[i, 1] + ... (in order)
    TCOLMAX(dst, src)            for j < src.valid_col:  dst[0, j] = max over i < src.valid_row of src[i, j]

The simulator (include/pto/cpu/TRowSum.hpp, TRowMax.hpp, TColSum.hpp, ...) accumulates in order from 0 (sums) or 1
(products), rounding after every step: row sums in float for a half or bfloat16 dst (else in dst's type), column
sums and products in dst's type (so a lane of -0.0 sums to +0.0); max and min keep the running value unless an
element is strictly greater (smaller), so a NaN first element stays and later NaNs are skipped, and of equal
values (0.0 and -0.0) the first wins. The tmp tile is scratch on the NPUs; ptoisa leaves it unchanged.

The NPUs group float column sums and products their own way (integers wrap the same in any order): A5 folds row
0, then each following pair combined first, r0 + (r1 + r2) + (r3 + r4) + ...; TCOLSUM(dst, src, tmp, isBinary)
with isBinary = true sums a binary tree of adjacent rows on both NPUs (an odd row joins the last pair on A5, the
first on A2/A3); A2/A3 otherwise adds row after row like the simulator, which ignores isBinary.

    >>> from ptoisa import *
    >>> src, tmp = Tile[TileType.Vec, float, 8, 8](), Tile[TileType.Vec, float, 8, 8]()
    >>> src.set_logical([[r * 8 + c for c in range(8)] for r in range(8)])
    >>> sums = Tile[TileType.Vec, float, 8, 1, BLayout.ColMajor]()        # one value per row
    >>> _ = TROWSUM(sums, src, tmp, target="cpu"); sums.data[:3, 0].tolist()
    [28.0, 92.0, 156.0]
    >>> top = Tile[TileType.Vec, float, 1, 8]()
    >>> _ = TCOLMAX(top, src, target="cpu"); top.data[0, :3].tolist()
    [56.0, 57.0, 58.0]
"""

from __future__ import annotations

from functools import partial

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet, quiet_set, quiet_reset

from ...dtypes import DType as D
from ...targets import Config
from ...tile.enums import SLayout
from ...tile.layout import plain_view, store
from ...tile.spec import TileSpec
from .._check import Check
from ..record import TARGETS, Attr, Legality, Plan, Scalars, Tiles, dst, instruction, src, tmp
from ._common import Spare, aligned_empty, cpp_float_cast, valid_of

_ROW_SUM = frozenset({(D.F16, D.F16), (D.BF16, D.BF16), (D.F16, D.F32), (D.BF16, D.F32), (D.F32, D.F32),
                      (D.I16, D.I16), (D.I16, D.I32), (D.I32, D.I32)})
_COL_SUM = frozenset({(D.F16, D.F16), (D.BF16, D.BF16), (D.BF16, D.F32), (D.F16, D.F32), (D.F32, D.F32)})
_MAXMIN = frozenset({(D.BF16, D.BF16), (D.F16, D.F16), (D.F16, D.F32), (D.BF16, D.F32), (D.F32, D.F32),
                     (D.I8, D.I8), (D.U8, D.U8), (D.I16, D.I16), (D.U16, D.U16), (D.I32, D.I32), (D.U32, D.U32)})
_COL_MAX = frozenset({(D.BF16, D.BF16), (D.F16, D.F16), (D.F16, D.F32), (D.BF16, D.F32), (D.F32, D.F32),
                      (D.I8, D.I8), (D.U8, D.U8)})  # include/pto/cpu/TColMax.hpp CheckCMValid
_PROD = frozenset({(D.F16, D.F16), (D.F32, D.F32), (D.I8, D.I8), (D.U8, D.U8), (D.I16, D.I16), (D.U16, D.U16),
                   (D.I32, D.I32), (D.U32, D.U32), (D.BF16, D.BF16)})
_NPU_FLOAT = frozenset({(D.F16, D.F16), (D.F32, D.F32)})
_NPU_INT = frozenset({(D.I16, D.I16), (D.I32, D.I32)})


def _same(*types: D) -> frozenset:
    return frozenset((t, t) for t in types)


# A5's element types, from the backend's static_asserts: a row sum or product takes half/float/int32/int16
# (a5/TRowReduce.hpp:393-396, a5/TRowProd.hpp:28), a row max or min also int8/uint8 (a5/TRowReduce.hpp:365-368,
# 420-423); the column reductions share TColReduceCheck's nine types (a5/TColReduceOps.hpp:31-36) and TCOLPROD
# narrows them to the 16- and 32-bit ones (a5/TColProd.hpp:42-46); 64-bit integers stay outside the contract
_A5_ROW = _same(D.F16, D.F32, D.I32, D.I16)
_A5_ROW_EXTREME = _A5_ROW | _same(D.I8, D.U8)
_A5_COL = _same(D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)
_A5_COL_PROD = _same(D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)


def _table(cpu: frozenset, npu: frozenset, a5: frozenset) -> dict[str, Legality]:
    return {"a2a3": Legality({}, pairs=npu), "a5": Legality({}, pairs=a5), "cpu": Legality({}, pairs=cpu)}


def sequential(op: np.ufunc, values: np.ndarray, acc: np.dtype, axis: int, out: np.ndarray | None = None
               ) -> np.ndarray:
    """Fold `values` along `axis` in order with `op` from op's identity (the simulator's `sum = 0`, `prod = 1`),
    rounding into `acc` after every step; into `out` (one element per lane, of acc's type) when given."""
    if values.shape[axis] == 0:
        return np.take(values.astype(acc), [], axis=axis)
    token = quiet_set()
    try:
        if acc.kind in "iu":  # wrapping sums and products do not depend on the order: one reduction
            return op.reduce(values, axis, acc, out)
        # NumPy (and ml_dtypes' bfloat16 loops) reduce the outer axis of a C-ordered array in order: the result
        # starts as the identity and takes one whole row after another, one rounding per step (pairwise
        # summation only applies along the innermost axis).
        outer = _steps_outer(values if axis == 0 else values.T, acc)
        if outer.shape[1] != 1:
            return op.reduce(outer, 0, None, out)
        # one lane would be reduced as a contiguous line, pairwise: accumulated instead, from the identity
        line = np.empty(outer.shape[0] + 1, acc)
        line[0] = 0 if op is np.add else 1
        line[1:] = outer[:, 0]
        result = op.accumulate(line)[-1:]
        if out is None:
            return result
        out[...] = result
        return out
    finally:
        quiet_reset(token)


_BLOCK = 32  # lanes per block of a transposing copy: the block's 32 source rows of cache lines stay resident
_BLOCKED_MIN = 16384  # elements: below this one transposing copy costs less than the blocks' calls


def _blocked_pays(values: np.ndarray) -> bool:
    """Whether `_steps_outer` copies (steps, lanes) `values` a block of lanes at a time: a large transposed view
    whose source rows lie a power of two of at least 256 bytes apart, where a whole-array transposing copy keeps
    evicting its own cache lines (measured: 256x256 float 61 -> 23 us, 512x64 30 -> 19 us); at other pitches
    (160, 192, 240 floats) and at smaller sizes the one copy is faster (64x64: 1.1 against 2.9 us)."""
    pitch = abs(values.strides[1])
    return values.size >= _BLOCKED_MIN and abs(values.strides[0]) < pitch and pitch >= 256 \
        and pitch & (pitch - 1) == 0


def _steps_outer(values: np.ndarray, acc: np.dtype, scratch: np.ndarray | None = None,
                 bits: np.ndarray | None = None) -> np.ndarray:
    """`values` (steps, lanes) as a C-ordered array of acc's type (rows may be padded): a row-major view of acc's
    type as it is, else a copy. When the lanes are the source's rows (a transposed view), the copy is made a
    block of lanes at a time, each block reading a few source rows: a whole-array transposing copy reads one
    element per cache line and costs several times more. That blocked copy goes into `scratch` (a C-ordered
    (steps, lanes) array of acc's type) when given: a kept array is faster to write than a new one (256x256
    float, copy and reduce: 31.0 -> 28.5 us). Half or bfloat16 values summed in float are copied as their bits
    (into `bits`, a C-ordered (steps, lanes) uint16 array, when given), then converted in one contiguous pass
    (`_widen`): a converting copy a block at a time is slower (256x256 TROWSUM bfloat16: 150 -> 38 us). Large
    half regions summed in float are widened by `_widen` on every route."""
    steps, lanes = values.shape
    item = values.itemsize
    if values.dtype == acc and values.strides[1] == item and values.strides[0] >= item * lanes:
        return values
    if _blocked_pays(values):
        out = np.empty((steps, lanes), acc) if scratch is None else scratch
        into, source = out.T, values.T  # (lanes, steps): a block of lanes is a block of source rows
        halves = values.dtype != acc and values.dtype in _WIDENED
        if halves:
            into = (np.empty((steps, lanes), np.uint16) if bits is None else bits).T
        if values.dtype == acc and acc.kind == "V" or halves:  # 16-bit floats copied as bits (faster)
            into, source = into.view(np.uint16), source.view(np.uint16)
        copyto = np.copyto
        for start in range(0, lanes, _BLOCK):
            copyto(into[start:start + _BLOCK], source[start:start + _BLOCK], casting="unsafe")
        if halves:
            _widen(into.T.view(values.dtype), out)
        return out
    if values.dtype == _HALF and acc == _FLOAT and values.size >= _WIDEN_MIN:
        return _widen(values, np.empty((steps, lanes), acc))
    return np.ascontiguousarray(values, dtype=acc)


_HALF, _FLOAT = np.dtype(np.float16), np.dtype(np.float32)
_WIDENED = frozenset({_HALF, np.dtype(D.BF16.np)})
_WIDEN_MIN = 16384  # half elements: below this NumPy's own conversion costs less than `_widen`'s passes
_HALF_SCALE = np.float32(2.0 ** 112)  # a half's magnitude bits under a float's, times this: its value
_SIGN_AND_LOW = np.int32(-0x70000000 - 1)  # 0x8FFFFFFF: the sign bit and the 28 low bits


def _widen(values: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Half or bfloat16 `values` converted into float `out` (C-ordered, of their shape), with the bits of NumPy's
    (ml_dtypes') conversion: bfloat16 by ml_dtypes' cast (the top half of a float, fast); half by integer steps
    instead of NumPy's conversion, which runs a scalar routine per element. The half's bits sign-extended to 32
    and shifted left by 13 put its magnitude bits under the float's (bits 13-27) and its sign in bits 28-31;
    bits 28-30 cleared, the float read from them is the half's value times 2**-112 (a half subnormal: a float
    subnormal), so one multiplication by 2**112 gives the value exactly (no rounding, no overflow, no flag). An
    infinity or NaN (exponent all ones) comes out of it with the float exponent 143 and its significand in
    place: 112 more in the exponent field make it the float infinity or NaN with the half's payload shifted up
    (a signalling NaN not quieted), as NumPy's npy_halfbits_to_floatbits does. x86 multiplies a vector holding
    a subnormal by microcode (some hundred cycles): 256x256 halves, NumPy's conversion against this one
    (interleaved medians), random normal values 57 -> 27 us, with 1 % subnormals 66 -> 44, 10 % 151 -> 175,
    all 916 -> 301."""
    if values.dtype != _HALF:
        np.copyto(out, values, casting="unsafe")
        return out
    half = values.view(np.uint16)
    word = out.view(np.int32)
    np.copyto(word, values.view(np.int16), casting="unsafe")  # sign-extended
    np.left_shift(word, 13, out=word)
    np.bitwise_and(word, _SIGN_AND_LOW, out=word)
    np.multiply(out, _HALF_SCALE, out=out)
    if np.maximum.reduce(np.bitwise_and(half, 0x7FFF), None) >= 0x7C00:  # an infinity or a NaN: 143 -> 255
        special = np.equal(np.bitwise_and(half, 0x7C00), 0x7C00)
        np.add(word, np.multiply(special, np.int32(112 << 23), dtype=np.int32), out=word)
    return out


_SPARES: dict[tuple[tuple[int, ...], np.dtype], Spare] = {}
_SPARES_KEPT = 32
_PAIRS: dict[tuple[tuple[int, ...], np.dtype, bool], Spare] = {}


def _spare(shape: tuple[int, ...], acc: np.dtype) -> Spare:
    """The scratch arrays of a blocked copy (`_steps_outer`) of one shape and type, shared by the compiled calls
    that need them (so that many signatures hold few arrays); past `_SPARES_KEPT` shapes, one of the call's own."""
    return _kept(_SPARES, (shape, acc), shape, acc)


def _pairs(shape: tuple[int, ...], acc: np.dtype, turned: bool) -> Spare:
    """The free list of `_in_order_compiled_copy`'s (scratch, copy target) pairs of one shape, type and kind (the
    target the scratch's transpose, or the scratch), shared as `_spare` shares its arrays (its own cache: the
    pairs are not arrays, and they leave `_spare`'s shapes to the blocked copies)."""
    return _kept(_PAIRS, (shape, acc, turned), shape, acc)


def _kept(cache: dict[Any, Spare], key: Any, shape: tuple[int, ...], acc: np.dtype) -> Spare:
    """The Spare of `key` in `cache`, made (and kept while the cache holds under `_SPARES_KEPT`) on first use."""
    spare = cache.get(key)
    if spare is None:
        spare = Spare(shape, acc)
        if len(cache) < _SPARES_KEPT:
            cache[key] = spare
    return spare


def first_extreme(values: np.ndarray, axis: int, greater: bool) -> np.ndarray:
    """The running max (min) that replaces only on a strictly greater (smaller) element."""
    if values.dtype.kind in "iu":
        return values.max(axis=axis) if greater else values.min(axis=axis)
    if values.dtype.kind == "f":  # no NaN and no zero extreme: the extreme is one value, whichever copy is kept
        quick = values.max(axis=axis) if greater else values.min(axis=axis)
        if not np.isnan(quick).any() and quick.all():  # a NaN anywhere makes the NumPy extreme NaN
            return quick
    values = np.moveaxis(values, axis, -1)
    first = values[..., 0]
    nan = np.isnan(values)
    filler = -np.inf if greater else np.inf
    clean = np.where(nan, filler, values.astype(np.float64))
    best = clean.max(axis=-1) if greater else clean.min(axis=-1)
    position = np.argmax((clean == best[..., None]) & ~nan, axis=-1)
    chosen = np.take_along_axis(values, position[..., None], axis=-1)[..., 0]
    return np.where(np.isnan(first), first, chosen)


def _row_sum_acc(plan: Plan) -> np.dtype:
    d = plan.specs["dst"].dtype
    return np.dtype(np.float32) if d in (D.F16, D.BF16) else np.dtype(d.np)


def _dst_acc(plan: Plan) -> np.dtype:
    return np.dtype(plan.specs["dst"].dtype.np)


def _reduce(axis: int, fold: Callable[[Plan, np.ndarray], np.ndarray]) -> Callable[[Plan, Tiles, Scalars], None]:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        x = valid_of(tiles["src"])
        out = tiles["dst"]
        if x.size == 0:
            return
        result = fold(plan, x).astype(out.spec.dtype.np, copy=False)
        if axis == 1:
            store(out, result.shape[0], 1, result.reshape(-1, 1))
        else:
            store(out, 1, result.shape[0], result.reshape(1, -1))

    return kernel


def _in_order(axis: int, op: np.ufunc, acc_of: Callable[[Plan], np.dtype]) -> Callable[[Plan, Tiles, Scalars], None]:
    """The kernel of an in-order sum or product along `axis`: straight into dst's column (row) when dst holds
    it contiguously in the accumulator's type, else through `store`."""
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        x = valid_of(tiles["src"])
        out = tiles["dst"]
        if x.size == 0:
            return
        acc = acc_of(plan)
        view = out.view
        if view is not None and view.dtype == acc:
            line = view[:x.shape[0], 0] if axis == 1 else view[0, :x.shape[1]]
            if line.strides[0] == acc.itemsize:  # contiguous: NumPy runs the same loops as into a new array
                sequential(op, x, acc, axis, line)
                return
        with quiet():  # a float sum that overflows half rounds to inf there: the simulator's bits, no warning
            result = sequential(op, x, acc, axis).astype(out.spec.dtype.np, copy=False)
        if axis == 1:
            store(out, result.shape[0], 1, result.reshape(-1, 1))
        else:
            store(out, 1, result.shape[0], result.reshape(1, -1))

    kernel.compiled = lambda plan, positions: _in_order_compiled(  # type: ignore[attr-defined]
        axis, op, acc_of, plan, positions)
    return kernel


class Binary(Enum):
    """TCOLSUM's `bool isBinary` argument (`{isBinary = true}` in text): on the NPUs, sum the rows as a binary
    tree through tmp instead of one after another."""

    FALSE = False
    TRUE = True


def _a5_pairs(op: np.ufunc, rows: list[np.ndarray]) -> np.ndarray:
    """A5's default column fold (a5/TColReduceOps.hpp TColReduceInstr_PostUpdate, VFIMPL_DEFAULT): row 0, then
    each following pair combined first, (r1 op r2), (r3 op r4), ..., then a last odd row."""
    acc = rows[0]
    count = len(rows)
    for j in range((count - 1) // 2):
        acc = op(acc, op(rows[2 * j + 1], rows[2 * j + 2]))
    if (count - 1) % 2:
        acc = op(acc, rows[count - 1])
    return acc


def _a5_binary_sum(rows: list[np.ndarray]) -> np.ndarray:
    """A5's TCOLSUM with isBinary (a5/TColSum.hpp TColSum_Binary and TColSum_Binary_TmpProc): adjacent pairs
    into tmp, a last odd row added to the last pair; then halved floor(log2(pairs)) times the same way (an odd
    leftover added to the new last line). The running register starts at 0, so a single row is added to 0."""
    count = len(rows)
    n_loop = count // 2
    value = np.zeros_like(rows[0])
    tmp: list[np.ndarray] = []
    for j in range(n_loop):
        value = rows[2 * j] + rows[2 * j + 1]
        tmp.append(value)
    if count % 2:
        value = rows[count - 1] + value
        if n_loop:
            tmp[n_loop - 1] = value
    for _ in range(n_loop.bit_length() - 1 if n_loop else 0):
        odd = n_loop % 2
        n_loop //= 2
        for j in range(n_loop):
            value = tmp[2 * j] + tmp[2 * j + 1]
            tmp[j] = value
        if odd:
            value = tmp[2 * n_loop] + value
            tmp[n_loop - 1] = value
    return value


def _a2a3_binary_sum(rows: list[np.ndarray]) -> np.ndarray:
    """A2/A3's TCOLSUM with isBinary (a2a3/TColSum.hpp BinarySum, TColSum): one row is copied; else adjacent
    pairs into tmp with an odd last row added to tmp row 0, then tmp halved the same way while more than one of
    its rows is left."""
    if len(rows) == 1:
        return rows[0]

    def halve(lines: list[np.ndarray]) -> list[np.ndarray]:
        out = [lines[2 * i] + lines[2 * i + 1] for i in range(len(lines) // 2)]
        if len(lines) % 2:
            out[0] = out[0] + lines[-1]
        return out

    tmp = halve(rows)
    while len(tmp) > 1:
        tmp = halve(tmp)
    return tmp[0]


def _npu_col_fold(plan: Plan) -> Callable[[list[np.ndarray]], np.ndarray] | None:
    """The NPU's grouping of a float column sum or product, or None where it is the in-order fold from the
    identity (integers wrap the same in any order)."""
    if not plan.specs["dst"].dtype.is_float:
        return None
    binary = plan.attrs.get("isBinary") is Binary.TRUE
    add = plan.record.name == "TCOLSUM"
    if plan.config.name == "a5":
        if binary:
            return _a5_binary_sum
        return (lambda rows: _a5_pairs(np.add, rows)) if add else (lambda rows: _a5_pairs(np.multiply, rows))
    if plan.config.name == "a2a3":
        if binary:
            return _a2a3_binary_sum
        # row 0 copied into dst, then each following row combined into it (TColSum's SequentialSum,
        # TColReduceOps.hpp): as the in-order fold, but from row 0 rather than 0 + r0 (or 1 * r0), so a column
        # of -0.0 sums to -0.0 and a lone row's signalling NaN is copied as it is
        return partial(_from_row0, np.add if add else np.multiply)
    return None


def _from_row0(op: np.ufunc, rows: list[np.ndarray]) -> np.ndarray:
    """rows[0] op rows[1] op ... in turn, one rounding per step, into rows[0] (the kernel's own copy). (NumPy's
    op.reduce starts from the identity: 0 + -0.0 is +0.0.)"""
    acc = rows[0]
    for row in rows[1:]:
        op(acc, row, out=acc)
    return acc


def _col_fold(op: np.ufunc) -> Callable[[Plan, Tiles, Scalars], None]:
    """TCOLSUM's and TCOLPROD's kernel: the NPU's grouping of a float fold where it differs from the in-order
    one (`_npu_col_fold`), else the in-order fold (with its compiled form)."""
    plain = _in_order(0, op, _dst_acc)

    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        fold = _npu_col_fold(plan)
        if fold is None:
            plain(plan, tiles, scalars)
            return
        x = valid_of(tiles["src"])
        if x.size == 0:
            return
        with quiet():  # overflow to inf is the hardware's result, not a warning
            result = fold([np.array(row) for row in x])
        store(tiles["dst"], 1, result.shape[0], result.reshape(1, -1))

    kernel.compiled = lambda plan, positions: (  # type: ignore[attr-defined]
        None if _npu_col_fold(plan) is not None else plain.compiled(plan, positions))  # type: ignore[attr-defined]
    return kernel


def _plain_sample(spec: TileSpec) -> np.ndarray:
    """The (rows, cols) view of a new, uninitialised storage of a plain (NoneBox) `spec`: its strides and flags are
    those of every tile of the spec, for a compiled call to decide its route from."""
    view = plain_view(np.empty(spec.rows * spec.cols, spec.np_dtype), spec)
    assert view is not None  # callers decline boxed layouts first
    return view


def _line_of(spec: TileSpec, axis: int, count: int) -> tuple[tuple, bool]:
    """The index of dst's result line (column 0 of `count` rows, or row 0 of `count` columns) and whether that
    line is contiguous in dst's storage."""
    into = (slice(0, count), 0) if axis == 1 else (0, slice(0, count))
    view = _plain_sample(spec)
    return into, view[into].strides[0] == spec.np_dtype.itemsize


def _in_order_compiled(axis: int, op: np.ufunc, acc_of: Callable[[Plan], np.dtype], plan: Plan,
                       positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """An `_in_order` kernel for one signature, with the route decided once from the layouts: the region read as
    it is, copied into the accumulator's order, or copied a block at a time (`_steps_outer`); then the same
    reduce as `sequential`, straight into dst's line when that is contiguous and of the accumulator's type, else
    into a new line rounded into dst's (the cast `store` makes). None (the bound kernel) for boxed layouts and
    one-lane regions (accumulated from the identity)."""
    specs = plan.specs
    src_spec, dst_spec = specs["src"], specs["dst"]
    if any(t.slayout is not SLayout.NoneBox for t in (src_spec, dst_spec)):
        return None
    acc = acc_of(plan)
    vr, vc = src_spec.valid_row, src_spec.valid_col
    if vr * vc == 0:
        return lambda args: None
    part = (slice(0, vr), slice(0, vc))
    into, contiguous_line = _line_of(dst_spec, axis, vr if axis == 1 else vc)
    direct = contiguous_line and dst_spec.np_dtype == acc
    d, s = positions["dst"], positions["src"]
    reduce = op.reduce
    copyto = np.copyto
    if acc.kind in "iu":
        def wrapping(args: tuple) -> None:
            token = quiet_set()
            try:
                if direct:
                    reduce(args[s].view[part], axis, acc, args[d].view[into])
                else:
                    copyto(args[d].view[into], reduce(args[s].view[part], axis, acc), casting="unsafe")
            finally:
                quiet_reset(token)

        return wrapping
    sample = _plain_sample(src_spec)[part]
    steps_lanes = sample if axis == 0 else sample.T
    if steps_lanes.shape[1] == 1:
        return None
    item = steps_lanes.itemsize
    as_is = steps_lanes.dtype == acc and steps_lanes.strides[1] == item \
        and steps_lanes.strides[0] >= item * steps_lanes.shape[1]
    blocked = not as_is and _blocked_pays(steps_lanes)
    # large half regions summed in float: `_steps_outer` widens them faster than NumPy's conversion
    contiguous = _steps_outer if steps_lanes.dtype == _HALF and acc == _FLOAT and steps_lanes.size >= _WIDEN_MIN \
        else np.ascontiguousarray
    if not as_is and not blocked and steps_lanes.dtype == acc:
        whole = (vr, vc) == (src_spec.rows, src_spec.cols)
        pairs = _pairs(steps_lanes.shape, acc, axis == 1)
        return _in_order_compiled_copy(axis, reduce, pairs, part, whole, into, direct, s, d)
    spare = _spare(steps_lanes.shape, acc) if blocked else None
    halves = _spare(steps_lanes.shape, np.dtype(np.uint16)) if blocked and steps_lanes.dtype != acc \
        and steps_lanes.dtype in _WIDENED else None

    def run(args: tuple) -> None:
        x = args[s].view[part]
        values = x if axis == 0 else x.T
        scratch = spare.take() if blocked else None  # type: ignore[union-attr]  # spare is set when blocked
        bits = halves.take() if halves is not None else None
        token = quiet_set()
        try:
            outer = values if as_is else _steps_outer(values, acc, scratch, bits) if blocked \
                else contiguous(values, acc)
            if direct:
                reduce(outer, 0, None, args[d].view[into])
            else:  # half sums overflow to inf quietly, as in the general kernel
                copyto(args[d].view[into], reduce(outer, 0), casting="unsafe")
        finally:
            quiet_reset(token)
            if blocked:
                spare.give(scratch)  # type: ignore[union-attr, arg-type]  # both set when blocked
            if bits is not None:
                halves.give(bits)  # type: ignore[union-attr]  # bits come from halves

    return run


def _in_order_compiled_copy(axis: int, reduce: Callable, spare: Spare, part: tuple, whole: bool, into: tuple,
                            direct: bool, s: int, d: int) -> Callable[[tuple], None]:
    """The compiled run of a float region of the accumulator's type that is copied whole into the (steps, lanes)
    order (`_steps_outer`'s one-copy route: up to mid sizes, a row fold's region being a transposed view): the
    copy goes into a kept C-ordered (steps, lanes) scratch (a row fold's region written through its transpose,
    kept with it: `_pairs`), and the copy and the reduce run in one `QUIET.run` call; the src region and dst line
    views are kept for the tiles of the last call (made again for other views), src's view not sliced when the
    valid region is the whole tile (`whole`). The same reduce of the same C-ordered values as `run`'s
    `np.ascontiguousarray` route, so the same bits, without a new array, the slicing and the error state's set
    and reset per call (64x64 float TROWSUM, the public call: 4.9-5.1 -> 4.5 us; NumPy's copy and reduce 3.6)."""
    turned = axis == 1
    free = spare.free  # (scratch, the view the region is copied into) pairs
    pop, give = free.pop, free.append
    shape, dtype = spare.shape, spare.dtype
    copyto = np.copyto

    if direct:
        def copied(x: np.ndarray, line: np.ndarray, scratch: np.ndarray, target: np.ndarray) -> None:
            target[...] = x  # (under QUIET.run: NumPy work only)
            reduce(scratch, 0, None, line)
    else:  # into a new line, cast into dst's (as `run` does)
        def copied(x: np.ndarray, line: np.ndarray, scratch: np.ndarray, target: np.ndarray) -> None:
            target[...] = x
            copyto(line, reduce(scratch, 0), casting="unsafe")

    last: tuple = (None, None, None, None)  # (src view, dst view, src's region, dst's line) of the last call

    def run_copied(args: tuple) -> None:
        nonlocal last
        try:  # (not `if free`: another thread may take the last one between the test and the pop)
            held = pop()
        except IndexError:
            scratch = aligned_empty(shape, dtype)
            held = (scratch, scratch.T if turned else scratch)
        views = last
        if views[0] is not args[s].view or views[1] is not args[d].view:
            x, y = args[s].view, args[d].view
            views = last = (x, y, x if whole else x[part], y[into])
        try:
            QUIET.run(copied, views[2], views[3], *held)
        finally:
            give(held)

    return run_copied


def _extreme_kernel(axis: int, greater: bool) -> Callable[[Plan, Tiles, Scalars], None]:
    """TROWMAX TROWMIN TCOLMAX TCOLMIN: `first_extreme` of src's valid region in dst's type (the general kernel),
    with a compiled form per signature (`_extreme_compiled`)."""
    # half under a float dst: the simulator converts each element (a signalling NaN comes out quiet)
    kernel = _reduce(axis, lambda p, x: first_extreme(cpp_float_cast(x, p.specs["dst"].dtype.np), axis, greater))
    kernel.compiled = lambda plan, positions: _extreme_compiled(  # type: ignore[attr-defined]
        axis, greater, plan, positions)
    return kernel


_BITS_SIGNED: dict[int, np.dtype] = {2: np.dtype(np.int16), 4: np.dtype(np.int32)}
_BITS_UNSIGNED: dict[int, np.dtype] = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32)}


def _extreme_by_bits(x: np.ndarray, axis: int, greater: bool, order: list[bool], group: int = 1
                     ) -> np.ndarray | None:
    """`first_extreme` of half or float `x` from integer reductions of its bits (NumPy reduces integers several
    times faster than floats, whose loops handle NaNs), or None when the bits cannot decide it.

    Without NaNs, a float's bits read as a signed integer order the values with a clear sign bit (0.0 up to inf)
    above all others, and as an unsigned integer order those with a set sign bit (-0.0 down to -inf) above all
    others, in magnitude. So along a lane: the signed maximum is the float maximum when it is positive and
    nonzero (a lane with a positive number); the unsigned minimum is the float maximum of a lane whose every
    sign bit is set; the unsigned maximum is the float minimum when its sign bit is set and it is not -0.0 (a
    lane with a negative number); the signed minimum is the float minimum of a lane with no sign bit set. Each
    result found so is the only value of its bits in the lane that compares equal to it, so it is also what the
    simulator's loop keeps. A lane that neither decides (its extreme is a zero the other zero may tie with), or
    any NaN: None. `order[0]`: whether to try the reduction for lanes with a number of the extreme's sign first
    (else the one for lanes of one sign); flipped when the other one alone decided every lane. `group` (axis 0,
    rows contiguous): the integer reductions run with that many rows side by side (`_down_in_groups`)."""
    n = x.dtype.itemsize

    def down(reduce: Callable, bits: np.ndarray) -> np.ndarray:
        return _down_in_groups(reduce, bits, group) if group > 1 else reduce(bits, axis)

    signed, unsigned = x.view(_BITS_SIGNED[n]), x.view(_BITS_UNSIGNED[n])
    sign = 1 << (8 * n - 1)
    if n == 4:
        top = np.maximum.reduce(x, None)  # a NaN anywhere makes it NaN
        if top != top:
            return None
    elif np.maximum.reduce(np.bitwise_and(unsigned, 0x7FFF), None) > 0x7C00:  # half: a NaN's magnitude bits
        return None
    if greater:  # (bits, lanes it decides): a positive number's lanes; lanes of sign-set values only
        def mixed() -> tuple[np.ndarray, np.ndarray]:
            best = down(np.maximum.reduce, signed)
            return best.view(x.dtype), best > 0

        def one_sign() -> tuple[np.ndarray, np.ndarray]:
            best = down(np.minimum.reduce, unsigned)
            return best.view(x.dtype), best >= sign
    else:  # a negative number's lanes; lanes with no sign bit set
        def mixed() -> tuple[np.ndarray, np.ndarray]:
            best = down(np.maximum.reduce, unsigned)
            return best.view(x.dtype), best > sign

        def one_sign() -> tuple[np.ndarray, np.ndarray]:
            best = down(np.minimum.reduce, signed)
            return best.view(x.dtype), best >= 0

    first, second = (mixed, one_sign) if order[0] else (one_sign, mixed)
    best, decided = first()
    if np.logical_and.reduce(decided, None):
        return best
    other, also = second()
    if np.logical_and.reduce(also, None):
        order[0] = not order[0]
        return other
    if not np.logical_and.reduce(decided | also, None):
        return None
    return np.where(decided, best, other)


_BITS_MIN = 1024  # elements: below this the float reduce and its test cost less than the bits' checks
_SHORT_LINE = 64  # results: up to this many, the test of NumPy's extremes runs on a Python list


def _extreme_compiled(axis: int, greater: bool, plan: Plan, positions: dict[str, int]
                      ) -> Callable[[tuple], None] | None:
    """A max (min) reduction of one signature with plain layouts and integer, half or float elements: NumPy's
    reduce along the axis (the source widened first when dst is wider), written straight into dst's line. For
    floats the reduce is taken only when its result holds no NaN and no zero: the extreme is then one value
    whose copies all have the same bits, whichever of them the simulator keeps (`first_extreme`'s own quick
    test); otherwise `first_extreme` decides from the unchanged source. Half regions, and float regions reduced
    along rows, of `_BITS_MIN` elements or more try integer reductions of the bits first (`_extreme_by_bits`).
    bfloat16 and boxed layouts: None."""
    specs = plan.specs
    src_spec, dst_spec = specs["src"], specs["dst"]
    if any(t.slayout is not SLayout.NoneBox or t.np_dtype.kind not in "iuf" for t in (src_spec, dst_spec)):
        return None
    vr, vc = src_spec.valid_row, src_spec.valid_col
    if vr * vc == 0:
        return lambda args: None
    part = (slice(0, vr), slice(0, vc))
    into, _ = _line_of(dst_spec, axis, vr if axis == 1 else vc)
    wide = dst_spec.np_dtype if dst_spec.np_dtype != src_spec.np_dtype else None
    d, s = positions["dst"], positions["src"]
    reduce: Callable[[np.ndarray, int], np.ndarray] = (np.maximum if greater else np.minimum).reduce
    sample = _plain_sample(src_spec)[part]
    # down the columns of a large region whose rows are contiguous: rows laid side by side (`_down_in_groups`)
    group = _rows_per_group(vr, vc) if axis == 0 and vr * vc >= _GROUPED_MIN and sample.flags.c_contiguous \
        else 1
    if group > 1:
        plain_reduce = reduce

        def reduce(values: np.ndarray, along: int) -> np.ndarray:  # noqa: ARG001 - always 0 here
            return _down_in_groups(plain_reduce, values, group)
    if dst_spec.np_dtype.kind in "iu":
        def run_int(args: tuple) -> None:
            args[d].view[into] = reduce(args[s].view[part], axis)

        return run_int
    nonzero = np.logical_and.reduce
    smallest = np.minimum.reduce
    by_bits = vr * vc >= _BITS_MIN and (src_spec.np_dtype.itemsize == 2 or axis == 1)
    order = [True]  # this signature's last useful order of the bits' reductions
    # small row regions: NumPy reduces a transposed copy down its columns faster than along short rows
    across = axis == 1 and not by_bits and vc > 1
    contiguous = np.ascontiguousarray
    short = (vr if axis == 1 else vc) <= _SHORT_LINE

    def run(args: tuple) -> None:
        x = args[s].view[part]
        if by_bits:
            token = quiet_set()
            try:
                found = _extreme_by_bits(x, axis, greater, order, group)
            finally:
                quiet_reset(token)
            if found is not None:
                args[d].view[into] = found  # half into a float line: exact
                return
        if wide is not None:
            x = cpp_float_cast(x, wide)  # half to float: exact (a signalling NaN quieted, as C++ converts it)
        # `first_extreme`'s own reduce, with its warnings (a signalling NaN)
        quick = reduce(contiguous(x.T), 0) if across else reduce(x, axis)
        token = quiet_set()  # the test of the result is ours: silent
        try:
            if short:  # a few values: tested in Python (a NaN makes the sum NaN; 0.0 in finds -0.0 too)
                listed = quick.tolist()
                total = sum(listed)
                plain = total == total and 0.0 not in listed
            else:
                low = smallest(quick)
                plain = low == low and nonzero(quick)  # no NaN (the reduce propagates one) and no zero
        finally:
            quiet_reset(token)
        args[d].view[into] = quick if plain else first_extreme(x, axis, greater)

    return run


def _rows_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src"].valid_row > tiles["dst"].spec.rows:
        check.fail("dst", f"has {tiles['dst'].spec.rows} rows, fewer than src's {tiles['src'].valid_row} valid rows")


def _cols_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    if tiles["src"].valid_col > tiles["dst"].spec.cols:
        check.fail("dst", f"has {tiles['dst'].spec.cols} columns, fewer than src's {tiles['src'].valid_col} valid "
                          "columns")


_ROW_OPERANDS = (dst(), src("src"), tmp("tmp"))  # the C++ signature (and PTOAS) always pass tmp
_COL_FORMS = ((dst(), src("src")), (dst(), src("src"), tmp("tmp")))


def _row(name: str, kernel: Callable[[Plan, Tiles, Scalars], None], pairs: frozenset, npu: frozenset,
         a5: frozenset, summary: str):  # noqa: ANN202
    return instruction(name, operands=_ROW_OPERANDS, legality=_table(pairs, npu, a5), dynamic=_rows_rule,
                       family="reduce", summary=summary)(kernel)


def _col(name: str, kernel: Callable[[Plan, Tiles, Scalars], None], pairs: frozenset, npu: frozenset,
         a5: frozenset, summary: str, attrs: tuple[Attr, ...] = ()):  # noqa: ANN202
    return instruction(name, operands=_COL_FORMS[0], forms=_COL_FORMS, legality=_table(pairs, npu, a5), attrs=attrs,
                       dynamic=_cols_rule, family="reduce", summary=summary)(kernel)


TROWSUM = _row("TROWSUM", _in_order(1, np.add, _row_sum_acc), _ROW_SUM, _NPU_FLOAT | _NPU_INT, _A5_ROW,
               "dst[i, 0] = sum of src row i (in order)")
TROWMAX = _row("TROWMAX", _extreme_kernel(1, True), _MAXMIN,
               _NPU_FLOAT | _NPU_INT, _A5_ROW_EXTREME, "dst[i, 0] = max of src row i")
TROWMIN = _row("TROWMIN", _extreme_kernel(1, False), _MAXMIN,
               _NPU_FLOAT | _NPU_INT, _A5_ROW_EXTREME, "dst[i, 0] = min of src row i")
TROWPROD = _row("TROWPROD", _in_order(1, np.multiply, _dst_acc), _PROD,
                _NPU_FLOAT | _NPU_INT, _A5_ROW, "dst[i, 0] = product of src row i (in order)")
TCOLSUM = _col("TCOLSUM", _col_fold(np.add), _COL_SUM, _NPU_FLOAT | _NPU_INT, _A5_COL,
               "dst[0, j] = sum of src column j", (Attr("isBinary", Binary, Binary.FALSE),))
TCOLMAX = _col("TCOLMAX", _extreme_kernel(0, True), _COL_MAX,
               _NPU_FLOAT | _NPU_INT, _A5_COL, "dst[0, j] = max of src column j")
TCOLMIN = _col("TCOLMIN", _extreme_kernel(0, False), _MAXMIN,
               _NPU_FLOAT | _NPU_INT, _A5_COL, "dst[0, j] = min of src column j")
TCOLPROD = _col("TCOLPROD", _col_fold(np.multiply), _PROD,
                _NPU_FLOAT | _NPU_INT, _A5_COL_PROD, "dst[0, j] = product of src column j")


# --- TROWARGMAX TROWARGMIN TCOLARGMAX TCOLARGMIN (include/pto/cpu/TReduceIdx.hpp) --------------------------------
# The index of the first strict extreme along the row (column): the simulator keeps element 0 and replaces it
# only with a value strictly greater (smaller), so ties keep the first index, a NaN never replaces, and a NaN in
# element 0 stays (index 0). The index form only (dst, src, tmp); tmp is scratch on A2/A3, unused elsewhere.
_ARG_IDX = (D.I32, D.U32)
_ARG_SRC = {"a2a3": (D.F16, D.F32, D.I32, D.I16),
            "a5": (D.F16, D.BF16, D.I16, D.U16, D.F32, D.I32, D.U32),
            "cpu": (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)}


def first_index(values: np.ndarray, axis: int, greater: bool) -> np.ndarray:
    """Index of the first strict extreme along `axis`, as the simulator's loop finds it."""
    if values.dtype.kind == "V":  # bfloat16: widened exactly (order and NaNs kept) for NumPy's float loops
        values = values.astype(np.float32)
    # Without NaNs the first extreme is NumPy's (0.0 and -0.0 compare equal: the first of them, as the
    # simulator's strict comparison keeps it)
    if values.dtype.kind in "iu" or not np.isnan(values.max()):
        if axis == 0 and values.size >= _MATCH_DOWN_MIN:
            return _first_match_down(values, values.max(axis=0) if greater else values.min(axis=0))
        return np.argmax(values, axis=axis) if greater else np.argmin(values, axis=axis)
    with quiet():  # a signalling NaN converts quietly, as in C++
        wide = values.astype(np.float64)
    nan = np.isnan(wide)
    clean = np.where(nan, -np.inf if greater else np.inf, wide)
    best = np.expand_dims(clean.max(axis=axis) if greater else clean.min(axis=axis), axis)
    index = np.argmax((clean == best) & ~nan, axis=axis)
    return np.where(nan.take(0, axis=axis), 0, index)


_MATCH_DOWN_MIN = 4096  # below this many elements np.argmax's transpose costs less than four NumPy calls


def _first_match_down(values: np.ndarray, extreme: np.ndarray) -> np.ndarray:
    """Per column, the first row holding the column's extreme: (rows - 1) less the largest (rows - 1 - i) over
    the matching rows i, every column having at least one (np.argmax along columns transposes the tile first,
    several times slower). The weights and the match mask (as bytes) share the smallest unsigned type: bytes up
    to 256 rows."""
    rows = values.shape[0]
    kind = np.min_scalar_type(rows - 1)
    weight = _DOWN_WEIGHTS.get((rows, kind))
    if weight is None:
        weight = np.arange(rows - 1, -1, -1, dtype=kind)[:, None]
        weight.setflags(write=False)
        if len(_DOWN_WEIGHTS) < 64:
            _DOWN_WEIGHTS[(rows, kind)] = weight
    match = np.equal(values, extreme).view(np.uint8)
    score = np.maximum.reduce(np.multiply(match, weight), 0)
    return (rows - 1) - score.astype(np.intp)


_DOWN_WEIGHTS: dict[tuple[int, np.dtype], np.ndarray] = {}


def _rows_per_group(rows: int, cols: int, length: int = 0) -> int:
    """For a C-contiguous (rows, cols) region worked down its columns: how many rows to lay side by side as one
    line. With `length`, the fewest that divide the rows and make a line of at least `length` elements; without
    (or when none does), the most up to 8 that divide them; 1 when none does. NumPy runs the outer axis of a
    reduction (and of a comparison with a line broadcast over rows) one row per inner-loop call, and lines
    shorter than its buffer (8192 elements) also cost a buffered copy. Measured on 256x256 floats: max down the
    columns 7.8 -> 6.4 us in lines of 8 rows, the comparison with the column extremes 9.5 -> 6.1 us in lines of
    32 rows."""
    fits = [group for group in range(2, rows) if rows % group == 0]
    if length:
        long = [group for group in fits if group * cols >= length]
        if long:
            return long[0]
    short = [group for group in fits if group <= 8]
    return short[-1] if short else 1


def _down_in_groups(reduce: Callable, x: np.ndarray, group: int) -> np.ndarray:
    """reduce(x, 0) of a C-contiguous (rows, cols) `x` in two reductions: the rows taken `group` at a time as one
    long row, then the `group` partial rows. Only for order-free reductions of integers, or of floats where the
    caller does not take a result that NaNs or zeros could make differ (which NaN, which zero). The first
    reduction meets every element (each group of rows is compared with another), so it raises what
    one reduction would (a signalling NaN's invalid operation); the second, of its results, is silent."""
    rows, cols = x.shape
    wide = reduce(x.reshape(rows // group, group * cols), 0)
    token = quiet_set()
    try:
        return reduce(wide.reshape(group, cols), 0)
    finally:
        quiet_reset(token)


def _first_match_grouped(values: np.ndarray, extreme: np.ndarray, line: np.ndarray, group: int, down: int
                         ) -> np.ndarray:
    """`_first_match_down` of a C-contiguous region with `group` rows laid side by side as one line (`line`: a
    scratch array of group * cols elements of values' type): the comparison with the extremes and the weighting
    run as long lines instead of one call per row, the weights being a whole (rows, cols) array kept per shape;
    the weighted matches reduced `down` rows at a time (`_down_in_groups`)."""
    rows, cols = values.shape
    kind = np.min_scalar_type(rows - 1)
    key = (rows, cols, kind)
    weight = _GROUPED_WEIGHTS.get(key)
    if weight is None:
        weight = np.ascontiguousarray(np.broadcast_to(np.arange(rows - 1, -1, -1, dtype=kind)[:, None],
                                                      (rows, cols)))
        weight.setflags(write=False)
        if len(_GROUPED_WEIGHTS) < 32:
            _GROUPED_WEIGHTS[key] = weight
    np.copyto(line.reshape(group, cols), extreme)
    match = np.equal(values.reshape(rows // group, group * cols), line).reshape(rows, cols)
    score = np.multiply(match.view(np.uint8), weight, dtype=kind)
    best = _down_in_groups(np.maximum.reduce, score, down)
    return (rows - 1) - best.astype(np.intp)


_GROUPED_WEIGHTS: dict[tuple[int, int, np.dtype], np.ndarray] = {}
_LINE = 8192  # elements: NumPy's buffer size, below which a broadcast line costs a copy
# elements: from here rows side by side pay for their extra calls (TCOLARGMAX f32 64x64 10.1 -> 13.9 us, 128x128
# 18.2 -> 17.2, 256x256 34.7 -> 24.2; TCOLMAX 4.7 -> 5.5, 6.5 -> 6.6, 10.9 -> 9.9)
_GROUPED_MIN = 16384


# The column forms' sources, from the backends' TColReduceIdxCheck: f16/u16/f32/u32 on A2/A3
# (a2a3/TColReduceIdx.hpp:26-29), any 1-, 2- or 4-byte type on A5 (a5/TColReduceIdx.hpp:65-68)
_COL_ARG_SRC = {"a2a3": (D.U32, D.U16, D.F16, D.F32),
                "a5": (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32),
                "cpu": _ARG_SRC["cpu"]}


def _arg_table(role_layouts: tuple[str, ...], sources: Mapping[str, tuple[D, ...]] = _ARG_SRC
               ) -> dict[str, Legality]:
    return {t: Legality({"dst": _ARG_IDX, "src": sources[t]}, row_major=role_layouts) for t in TARGETS}


def _arg_kernel(axis: int, greater: bool) -> Callable[[Plan, Tiles, Scalars], None]:
    def kernel(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        x = valid_of(tiles["src"])
        index = first_index(x, axis, greater).astype(plan.specs["dst"].dtype.np)
        if axis == 1:
            store(tiles["dst"], index.shape[0], 1, index.reshape(-1, 1))
        else:
            store(tiles["dst"], 1, index.shape[0], index.reshape(1, -1))

    kernel.compiled = lambda plan, positions: _arg_compiled(  # type: ignore[attr-defined]
        axis, greater, plan, positions)
    return kernel


def _arg_compiled(axis: int, greater: bool, plan: Plan, positions: dict[str, int]) -> Callable[[tuple], None] | None:
    """An arg-reduction of one signature with plain layouts and integer, half or float elements: NumPy's
    argmax (argmin), which returns the first index of the extreme, when the region holds no NaN (NumPy takes a
    NaN for the extreme; the simulator skips it); with NaNs, `first_index`. Along columns of a large region the
    first match of the column's extreme (`_first_match_down`) instead of argmax's transposing copy. bfloat16
    and boxed layouts: None (the bound kernel)."""
    specs = plan.specs
    src_spec, dst_spec = specs["src"], specs["dst"]
    if any(t.slayout is not SLayout.NoneBox for t in (src_spec, dst_spec)) or src_spec.np_dtype.kind not in "iuf":
        return None
    vr, vc = src_spec.valid_row, src_spec.valid_col
    part = (slice(0, vr), slice(0, vc))
    into, _ = _line_of(dst_spec, axis, vr if axis == 1 else vc)
    d, s = positions["dst"], positions["src"]
    arg = np.argmax if greater else np.argmin
    extreme = (np.maximum if greater else np.minimum).reduce
    down = axis == 0 and vr * vc >= _MATCH_DOWN_MIN
    ints = src_spec.np_dtype.kind in "iu"
    largest = np.maximum.reduce
    sample = _plain_sample(src_spec)[part]
    group = _rows_per_group(vr, vc) if down and vr * vc >= _GROUPED_MIN and sample.flags.c_contiguous else 1
    if group > 1:
        smallest = np.minimum.reduce
        lined = _rows_per_group(vr, vc, _LINE)
        spare = Spare((lined * vc,), src_spec.np_dtype)

        def run_grouped(args: tuple) -> None:
            x = args[s].view[part]
            best = _down_in_groups(extreme, x, group)
            if not ints:
                token = quiet_set()  # the test of the extremes is ours: silent
                try:
                    low = smallest(best)
                finally:
                    quiet_reset(token)
                if low != low:  # a NaN in the region (max and min keep one), found by the column extremes
                    args[d].view[into] = first_index(x, axis, greater)
                    return
            line = spare.take()
            try:
                args[d].view[into] = _first_match_grouped(x, best, line, lined, group)
            finally:
                spare.give(line)

        return run_grouped

    def run(args: tuple) -> None:
        x = args[s].view[part]
        if not ints:
            top = largest(x, None)
            if top != top:  # a NaN
                args[d].view[into] = first_index(x, axis, greater)
                return
        args[d].view[into] = _first_match_down(x, extreme(x, 0)) if down else arg(x, axis)

    return run


def _arg_rows_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    src, out = tiles["src"], tiles["dst"]
    if 0 in src.valid_shape:
        check.fail("src", f"valid shape {src.valid_shape} must have rows and columns (the reference asserts it)")
    if out.valid_row != src.valid_row:
        check.fail("dst", f"valid rows ({out.valid_row}) must equal src's ({src.valid_row})")
    if out.spec.is_boxed or (not (not out.spec.is_row_major and out.spec.cols == 1) and out.valid_col != 1):
        check.fail("dst", "must be a one-column DN tile (col-major, Cols 1) or an ND tile with one valid column")


def _arg_cols_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    src, out = tiles["src"], tiles["dst"]
    if 0 in src.valid_shape:
        check.fail("src", f"valid shape {src.valid_shape} must have rows and columns (the reference asserts it)")
    if out.valid_row != 1 or out.valid_col != src.valid_col:
        check.fail("dst", f"valid shape {out.valid_shape} must be one row of src's {src.valid_col} valid columns")


def _boxed_src(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum],
               form: int) -> None:
    if specs["src"].is_boxed:
        check.fail("src", "must use a non-fractal layout (SLayout NoneBox)")


_ARG_OPERANDS = (dst(), src("src"), tmp("tmp"))
TROWARGMAX = instruction("TROWARGMAX", operands=_ARG_OPERANDS, legality=_arg_table(("src",)), static=_boxed_src,
                         dynamic=_arg_rows_rule, family="reduce",
                         summary="dst[i, 0] = index of the first maximum of src row i")(_arg_kernel(1, True))
TROWARGMIN = instruction("TROWARGMIN", operands=_ARG_OPERANDS, legality=_arg_table(("src",)), static=_boxed_src,
                         dynamic=_arg_rows_rule, family="reduce",
                         summary="dst[i, 0] = index of the first minimum of src row i")(_arg_kernel(1, False))
TCOLARGMAX = instruction("TCOLARGMAX", operands=_ARG_OPERANDS, legality=_arg_table(("dst",), _COL_ARG_SRC),
                         static=_boxed_src,
                         dynamic=_arg_cols_rule, family="reduce",
                         summary="dst[0, j] = index of the first maximum of src column j")(_arg_kernel(0, True))
TCOLARGMIN = instruction("TCOLARGMIN", operands=_ARG_OPERANDS, legality=_arg_table(("dst",), _COL_ARG_SRC),
                         static=_boxed_src,
                         dynamic=_arg_cols_rule, family="reduce",
                         summary="dst[0, j] = index of the first minimum of src column j")(_arg_kernel(0, False))
