"""The cube core's matrix multiply: TMATMUL TMATMUL_ACC TMATMUL_BIAS (include/pto/cpu/TMatmul.hpp).

    TMATMUL(cMatrix, aMatrix, bMatrix)                       C[i, j] = sum_k A[i, k] * B[k, j]
    TMATMUL_ACC(cOutMatrix, cInMatrix, aMatrix, bMatrix)     C_out[i, j] = C_in[i, j] + sum_k A[i, k] * B[k, j]
    TMATMUL_ACC(cMatrix, aMatrix, bMatrix)                   C[i, j] = C[i, j] + sum_k A[i, k] * B[k, j]
    TMATMUL_BIAS(cMatrix, aMatrix, bMatrix, biasData)        C[i, j] = sum_k A[i, k] * B[k, j] + bias[0, j]

    pto.tmatmul ins(%a, %b : ...) outs(%c : ...)
    pto.tmatmul.acc ins(%c_in, %a, %b : ...) outs(%c_out : ...)
    pto.tmatmul.bias ins(%a, %b, %bias : ...) outs(%c : ...)

for i < M = A's valid rows, j < N = B's valid cols, k < K = A's valid cols (each in [1, 4095]). A is a Left
tile, B a Right tile, C an Acc tile (bias: a one-row Bias tile of C's type). The element types are
(C, A, B) = (int32, int8, int8) or (float, T, T) with T half, bfloat16 or float (A5 also: 8-bit float pairs and
hifloat8); the static shapes agree (A Rows = C Rows, A Cols = B Rows, B Cols = C Cols). C_in is of C_out's tile
type, every field (C++ deduces one TileRes for both: another type does not compile); it is read at i < M, j < N
whatever its run-time valid sizes. The bias tile's storage must hold the columns read.

TMATMUL_ACC's three-tile overload reads cMatrix as C_in and writes C_in + A x B back in place (the pages'
TMATMUL_ACC.md): the four-tile form with cIn = cOut, with the same checks, on every target. The NPU backends
implement it so (TMATMUL_ACC_IMPL(c, c, a, b)); the simulator has no such TMATMUL_ACC_IMPL (the call does not
compile there), so `cpu` runs it with the pages' meaning (DECISIONS.md principle 6). PTOAS spells only the
four-tile form (`pto.tmatmul.acc ins(%c_in, %a, %b) outs(%c_out)`): the three-tile one has no text.

Where the bias goes: the NPUs' cube units add bias[0, j] to the M x N elements computed. The simulator (`cpu`
erratum `tmatmul_bias_valid_region`) stores the product first, then adds bias[0, c] to C[r, c] for every r < C's
valid rows, c < C's valid cols: when C's valid region is not M x N, a product outside it keeps no bias and an
element inside it but outside M x N gets the bias on its old value (checked against the simulator built from
include/pto/cpu/). The NPUs do not read cInMatrix at all (erratum `tmatmul_acc_ignores_cin`: `accumulated`).
A2/A3 runs a one-row A (M = 1) through the cube with m = 16, writing C rows 1..15 from A's storage rows 1..15
too (erratum `tmatmul_m1_sixteen_rows`: `_sixteen_rows`).

The sum is the simulator's: a float accumulator starting at +0.0 that takes `std::fma(a, b, acc)` for k = 0, 1,
..., K-1 in turn (each step one rounding to float; half and 8-bit float products are exact in float, so each step
is a float add of the exact product, and bfloat16 products too unless they leave float's range), then C_in + sum
(float add) for TMATMUL_ACC and sum + bias (float add) for TMATMUL_BIAS; int8 products are summed in int32
(wrapping). The NPUs' cube units may group and order the additions differently (the pages leave accumulation
"target/implementation-defined"): every target computes the simulator's order, which docs/semantics.md states.

    >>> from ptoisa import *
    >>> a = Tile[TileType.Left, half, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor]()
    >>> b = Tile[TileType.Right, half, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()
    >>> c = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]()
    >>> a.set_logical([[1.0] * 16] * 16); b.set_logical([[0.5] * 16] * 16)
    >>> _ = TMATMUL(c, a, b, target="cpu"); c.data[0, :3].tolist()
    [8.0, 8.0, 8.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from functools import lru_cache
from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...dtypes import DType as D
from ...events import Pipe
from ...targets import Config
from ...tile.enums import SLayout, TileType
from ...tile.layout import offset_table
from ...tile.spec import TileSpec
from ...tile.tile import Tile
from .._check import Check, announce_erratum
from ..record import Legality, Operand, Plan, Scalars, Tiles, instruction, src
from ._common import Spare, valid_of, write

_BASE = frozenset({(D.I32, D.I8, D.I8), (D.F32, D.F16, D.F16), (D.F32, D.F32, D.F32), (D.F32, D.BF16, D.BF16)})
_FP8 = (D.F8E4M3, D.F8E5M2)
_A5 = _BASE | frozenset((D.F32, a, b) for a in _FP8 for b in _FP8) | {(D.F32, D.HIF8, D.HIF8)}
TRIPLES = {"a2a3": _BASE, "a5": _A5, "cpu": _BASE}
_LIMIT = 4095  # m, k and n: [1, 4095] (CheckDynamicMmad, the pages' run-time rule)


def _tables(*out_roles: str) -> dict[str, Legality]:
    """Element types per role as data (C's role in each form: TMATMUL_ACC's cOutMatrix, or cMatrix in its
    three-tile form); locations, the (C, A, B) triples and fractals differ per role and are checked by `_static`
    below."""
    def table(target: str) -> Legality:
        triples = TRIPLES[target]
        a_types = tuple(sorted({t[1] for t in triples}, key=lambda d: d.value))
        b_types = tuple(sorted({t[2] for t in triples}, key=lambda d: d.value))
        return Legality({**{role: (D.I32, D.F32) for role in out_roles}, "aMatrix": a_types, "bMatrix": b_types},
                        locs=None)

    return {t: table(t) for t in ("a2a3", "a5", "cpu")}


def _roles(form: Mapping[str, TileSpec]) -> tuple[str, str, str]:
    out = "cOutMatrix" if "cOutMatrix" in form else "cMatrix"
    return out, "aMatrix", "bMatrix"


def _static(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum],
            form: int) -> None:
    """The C++ static_asserts (CheckMadValid, CheckBiasValid) for the target."""
    c_role, a_role, b_role = _roles(specs)
    c, a, b = specs[c_role], specs[a_role], specs[b_role]
    for role, spec, loc in ((a_role, a, TileType.Left), (b_role, b, TileType.Right), (c_role, c, TileType.Acc)):
        check.loc(role, spec.loc, frozenset({loc}))
    if "cInMatrix" in specs:
        same_acc_type(check, specs, c_role)
    if (c.dtype, a.dtype, b.dtype) not in TRIPLES[config.name]:
        check.fail(c_role, f"({c.dtype.cname} += {a.dtype.cname} x {b.dtype.cname}) is not a supported "
                           "combination of element types")
    if a.rows != c.rows or a.cols != b.rows or b.cols != c.cols:
        check.fail(c_role, f"static shapes disagree: A {a.rows}x{a.cols}, B {b.rows}x{b.cols}, C {c.rows}x{c.cols} "
                           "(need A Rows = C Rows, A Cols = B Rows, B Cols = C Cols)")
    if config.name != "a2a3":  # A5 and the simulator assert the fractals (the A2/A3 page names locations only)
        if config.name == "a5" and (a.is_row_major or a.slayout is not SLayout.RowMajor):
            check.fail(a_role, "a Left tile needs BLayout ColMajor and SLayout RowMajor (the NZ fractal)")
        if a.slayout is not SLayout.RowMajor:  # the simulator takes either BLayout ("two equivalent encodings")
            check.fail(a_role, "a Left tile needs SLayout RowMajor (the NZ fractal)")
        if not b.is_row_major or b.slayout is not SLayout.ColMajor:
            check.fail(b_role, "a Right tile needs BLayout RowMajor and SLayout ColMajor (the ZN fractal)")
        if c.is_row_major or c.slayout is not SLayout.RowMajor:
            check.fail(c_role, "an Acc tile needs BLayout ColMajor and SLayout RowMajor (the NZ fractal)")
    if "biasData" in specs:
        bias = specs["biasData"]
        check.loc("biasData", bias.loc, frozenset({TileType.Bias}))
        check.same_dtype("biasData", bias.dtype, c_role, c.dtype)
        if bias.rows != 1 or not bias.is_row_major:
            check.fail("biasData", f"must be a row-major tile of one row (got {bias.rows} rows, {bias.layout_name})")


_TYPE_FIELDS = (("Rows", "rows"), ("Cols", "cols"), ("BLayout", "blayout"), ("RowValid", "valid_row"),
                ("ColValid", "valid_col"), ("SLayout", "slayout"), ("SFractalSize", "fractal_size"),
                ("PadValue", "pad"), ("CompactMode", "compact"))


def same_acc_type(check: Check, specs: Mapping[str, TileSpec], c_role: str) -> None:
    """cInMatrix is of cOutMatrix's tile type: every backend's accumulate form (TMATMUL_ACC, TGEMV_ACC and the
    MX ones) declares `TileRes &cOutMatrix, TileRes &cInMatrix`, one deduced type for both. A cIn of any other
    type does not compile (for the six-tile MX call C++ then resolves to the bias overload, whose static_asserts
    fail), so every field of the type counts, the static valid sizes (or -1) included. The run-time valid sizes
    of two `-1` tiles are not compared: C++ cannot, and the simulator reads cIn at (i, j) for i < M, j < N
    whatever they are."""
    c_in, c = specs["cInMatrix"], specs[c_role]
    check.loc("cInMatrix", c_in.loc, frozenset({TileType.Acc}))
    check.same_dtype("cInMatrix", c_in.dtype, c_role, c.dtype)
    if c_in is not c:  # TileSpecs are interned: the same type is the same object
        diff = ", ".join(f"{name} {_field(getattr(c_in, attr))} against {_field(getattr(c, attr))}"
                         for name, attr in _TYPE_FIELDS if getattr(c_in, attr) != getattr(c, attr))
        check.fail("cInMatrix", f"must be of {c_role}'s tile type (C++ deduces one TileRes for both): {diff}")


def _field(value: object) -> str:
    return value.name if isinstance(value, Enum) else str(value)


def bias_columns(check: Check, plan: Plan, tiles: Tiles, out_role: str, n: int) -> None:
    """The bias columns read must lie in the bias tile's storage (one row, row-major: column c at offset c). The
    NPUs' cube units add bias[0, j] for j < N; the simulator adds bias[0, c] to every valid element of C, c < C's
    valid cols (TMATMUL_BIAS_IMPL's loop after the product). Past the storage both read whatever lies there."""
    if "biasData" not in tiles:
        return
    on_valid = plan.config.erratum("tmatmul_bias_valid_region")
    read = tiles[out_role].valid_col if on_valid else n
    spec = plan.specs["biasData"]
    if read > spec.cols:
        what = f"{out_role}'s valid cols" if on_valid else "n (B's valid cols)"
        check.fail("biasData", f"holds {spec.cols} columns; {read} are read ({what})")


def biased(plan: Plan, tiles: Tiles, out_role: str, result: np.ndarray, m: int, n: int) -> bool:
    """The bias step of a bias form: True when it wrote C itself, the simulator's way (cpu erratum
    `tmatmul_bias_valid_region`, named when C's valid region is not M x N, the only case where that differs);
    else False, `result` (M x N) left for the caller to add the bias to (the contract's and the NPUs' way)."""
    out = tiles[out_role]
    if not plan.config.erratum("tmatmul_bias_valid_region") or out.valid_shape == (m, n):
        return False
    announce_erratum(plan.config, plan.record.name, "tmatmul_bias_valid_region",
                     f"C's valid region is {out.valid_shape[0]}x{out.valid_shape[1]}, M x N {m}x{n}")
    add_bias_to_valid(out, tiles["biasData"], result)
    return True


def _sizes(check: Check, plan: Plan, tiles: Tiles) -> None:
    m, k = tiles["aMatrix"].valid_shape
    n = tiles["bMatrix"].valid_col
    for name, value in (("m (A's valid rows)", m), ("k (A's valid cols)", k), ("n (B's valid cols)", n)):
        if not 1 <= value <= _LIMIT:
            check.fail("aMatrix" if name[0] != "n" else "bMatrix", f"{name} = {value} is outside [1, {_LIMIT}]")
    bias_columns(check, plan, tiles, "cMatrix", n)


def fma_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """`std::fma(a, b, c)` on floats, element-wise: a * b + c rounded once to float.

    In double the product is exact (24 + 24 bits); the sum is made exact with TwoSum (s + e), then rounded to
    odd in double (s's last bit set when e is not 0) so that the final rounding to float is the single correct
    one (53 bits >= 24 + 2)."""
    with quiet():
        p = a.astype(np.float64) * b.astype(np.float64)
        c64 = c.astype(np.float64)
        s = p + c64
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)
        inexact = (e != 0) & np.isfinite(s)
        if inexact.any():
            bits = s.view(np.uint64)
            even = (bits & np.uint64(1)) == 0
            fix = inexact & even
            towards = np.where(e > 0, np.inf, -np.inf)
            s = np.where(fix, np.nextafter(s, towards), s)
        return s.astype(np.float32)


def product_sum(a: np.ndarray, b: np.ndarray, acc_type: D) -> np.ndarray:
    """The simulator's sum over k of a[i, k] * b[k, j], in its order (see the module docstring)."""
    m, k = a.shape
    n = b.shape[1]
    if acc_type is D.I32:
        # int8 products are at most 2^14 and k at most 4095: every partial sum, in any order, is an integer below
        # 2^26, exact in double (and in int32, so nothing wraps): BLAS's double matmul gives the exact sum
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int32)
    fa, fb = _as_float(a), _as_float(b)
    # 8-bit floats and half: every product is exact in float, so each fma step is a float add; bfloat16 too unless
    # a product leaves float's range (its exponents are float's): those take the fused steps of float inputs
    if a.itemsize < 4 and (a.dtype != _BF16 or _bf16_products_exact(a, b)):
        return _sum_exact_products(fa, fb)
    with quiet():
        if not (np.isnan(np.minimum.reduce(fa, None)) or np.isnan(np.minimum.reduce(fb, None))):
            return _fused_steps(fa, fb)
        acc = np.zeros((m, n), np.float32)  # a NaN operand: which payload wins is the general steps' choice
        for step in range(k):
            left, right = fa[:, step:step + 1], fb[step:step + 1, :]
            acc = fma_float32(np.broadcast_to(left, (m, n)), np.broadcast_to(right, (m, n)), acc)
    return acc


_MID_MASK = np.uint64((1 << 29) - 1)  # the bits of a double below float's precision (normal floats)
_MIDPOINT = np.uint64(1 << 28)  # ... when the double lies halfway between two floats
_SMALL = np.uint64((1023 - 126) << 52)  # the bits of 2^-126: below it, float's grid is coarser (subnormals)


def _fused_steps(fa: np.ndarray, fb: np.ndarray) -> np.ndarray:
    """`acc = fma(a[:, k], b[k, :], acc)` for k = 0, 1, ... from +0.0 over float inputs without NaN: fma_float32's
    result with fewer operations. The products are exact in double (computed for a chunk of k at once); the sum
    p + acc rounded to double and then to float is fma's single rounding unless the double lies halfway between
    two floats (a tie the exact sum need not be) or in float's subnormal range: the chunk's sums are checked
    for both afterwards, and the lanes where one occurred are computed again from the chunk's start with
    fma_float32. Without NaN operands every NaN is the default one, so the order of operands does not show."""
    m, k = fa.shape
    n = fb.shape[1]
    lanes = m * n
    steps = max(1, min(k, _CHUNK // lanes))
    a64, b64 = fa.T.astype(np.float64), fb.astype(np.float64)
    products = np.empty((steps, m, n), np.float64)
    sums = np.empty((steps, m, n), np.float64)
    bits = sums.view(np.uint64)
    scratch = np.empty((steps, m, n), np.uint64)
    acc = np.zeros((m, n), np.float32)
    wide = np.zeros((m, n), np.float64)
    for start in range(0, k, steps):
        width = min(steps, k - start)
        np.multiply(a64[start:start + width, :, None], b64[start:start + width, None, :], out=products[:width])
        before = acc.copy()
        for step in range(width):
            np.add(products[step], wide, out=sums[step])
            np.copyto(acc, sums[step], casting="unsafe")
            np.copyto(wide, acc)
        part, low = bits[:width], scratch[:width]
        np.bitwise_and(part, _MID_MASK, out=low)
        redo = np.equal(low, _MIDPOINT).any(axis=0)
        np.bitwise_and(part, np.uint64(0x7FFFFFFFFFFFFFFF), out=low)  # magnitudes; zero wraps to the largest
        np.subtract(low, np.uint64(1), out=low)
        redo |= np.less(low, _SMALL - np.uint64(1)).any(axis=0)
        if redo.any():
            rows, cols = np.nonzero(redo)
            again = before[rows, cols]
            for step in range(start, start + width):
                again = fma_float32(fa[rows, step], fb[step, cols], again)
            acc[rows, cols] = again
            wide[rows, cols] = again
    return acc


_BF16 = np.dtype(D.BF16.np)


def _bf16_products_exact(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether every product of a bfloat16 from `a` and one from `b` is exact in float, judged from the largest and
    the smallest nonzero magnitudes (conservative: they need not meet in one product). With biased exponent e
    (1 for subnormals), x = M * 2^(e - 134) for an integer M < 2^8 and x < 2^(e - 126): a product's last bit is
    at least float's 2^-149 when e_a + e_b >= 119, and the product (16 bits) is at most float's largest number
    when e_a + e_b - 252 <= 128. Infinities and NaNs give the same result either way."""
    low_exp, high_exp = [], []
    for x in (a, b):
        magnitude = np.bitwise_and(x.view(np.uint16), 0x7FFF)
        high = int(np.maximum.reduce(magnitude, None))
        if high >= 0x7F80:  # an infinity or NaN: the largest finite magnitude instead
            finite = magnitude[magnitude < 0x7F80]
            high = int(finite.max()) if finite.size else 0
        # the smallest nonzero magnitude: zero wraps to 0xFFFF
        low = int(np.minimum.reduce(np.subtract(magnitude, 1, out=magnitude), None)) + 1
        high_exp.append(high >> 7)
        low_exp.append(max(low >> 7, 1))
    return high_exp[0] + high_exp[1] - 252 <= 128 and low_exp[0] + low_exp[1] >= 119


def _as_float(x: np.ndarray) -> np.ndarray:
    """Values as float32 (exact for every input type); hifloat8 bytes through the reference's table."""
    if x.dtype == D.HIF8.np:  # raw bytes (bfloat16 and the fp8 types are ml_dtypes floats: astype works)
        from ...hifloat8 import to_float

        return to_float(x.view(np.uint8)).astype(np.float32)
    return x.astype(np.float32)


_CHUNK = 1 << 18  # products per chunk of k (1 MB of float32)
_MIN_STEPS = 32  # fewer k per chunk than this (more than 8192 lanes): the step loop, as fast there


def _sum_exact_products(fa: np.ndarray, fb: np.ndarray) -> np.ndarray:
    """sum_k fa[i, k] * fb[k, j] in k order from +0.0, in float, each product exact in float.

    The products as a (K, M*N) array, one k per row, then NumPy's reduction over its outer axis, which starts
    from +0.0 and adds whole rows into the result one k after another: the step loop `acc = acc + a[:, k] *
    b[k, :]` in a few calls, element for element the same operations (pairwise summation applies only along the
    innermost axis, so one output element is computed as two lanes). Chunks of k keep the products under
    `_CHUNK` elements, each chunk after the first carrying the running sum as its first row (0 + s is s for
    every running sum s: it is never -0.0 and its NaNs are quiet already); when a chunk would hold fewer than
    `_MIN_STEPS` k, the step loop itself."""
    m, k = fa.shape
    n = fb.shape[1]
    if m * n == 1:
        return _sum_exact_products(fa, np.repeat(fb, 2, axis=1))[:, :1]
    lanes = m * n
    steps = _CHUNK // lanes
    with quiet():
        if k > steps and steps < _MIN_STEPS:
            acc = np.zeros((m, n), np.float32)
            product = np.empty((m, n), np.float32)
            for step in range(k):
                np.multiply(fa[:, step:step + 1], fb[step:step + 1, :], out=product)
                np.add(acc, product, out=acc)
            return acc
        at = fa.T
        if k <= steps:
            products = np.multiply(at[:, :, None], fb[:, None, :], order="C")  # k outermost in memory
            return np.add.reduce(products.reshape(k, lanes), axis=0).reshape(m, n)
        buf = np.empty((steps + 1, m, n), np.float32)
        rows = buf.reshape(steps + 1, lanes)
        np.multiply(at[:steps, :, None], fb[:steps, None, :], out=buf[1:])
        total = np.add.reduce(rows[1:], axis=0)
        for start in range(steps, k, steps):
            width = min(steps, k - start)
            np.multiply(at[start:start + width, :, None], fb[start:start + width, None, :], out=buf[1:width + 1])
            rows[0] = total
            np.add.reduce(rows[:width + 1], axis=0, out=total)
    return total.reshape(m, n)


def _matmul(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    a, b = tiles["aMatrix"], tiles["bMatrix"]
    m, k = a.valid_shape
    n = b.valid_col
    out_role = "cOutMatrix" if "cOutMatrix" in tiles else "cMatrix"
    acc_type = plan.specs[out_role].dtype
    result = product_sum(valid_of(a, (m, k)), valid_of(b, (k, n)), acc_type)
    if plan.form == 1 and plan.record.name == "TMATMUL_ACC":  # TMATMUL_ACC(cMatrix, aMatrix, bMatrix): cIn = cOut
        tiles = {**tiles, "cInMatrix": tiles[out_role]}
    with quiet():
        if "cInMatrix" in tiles:
            before = accumulated(plan, tiles, out_role, m, n, plan.record.name)
            result = _plus(before, result)
        if "biasData" in tiles:
            if biased(plan, tiles, out_role, result, m, n):
                return
            result = _plus_bias(result, valid_of(tiles["biasData"], (1, n)))
    if m == 1 and plan.config.erratum(SIXTEEN_ROWS) and plan.record.name in _SIXTEEN_ROW_FORMS:
        result = _sixteen_rows(plan, tiles, out_role, result, k, n)
    write(tiles[out_role], result.astype(plan.specs[out_role].np_dtype, copy=False))


def _plus(before: np.ndarray, product: np.ndarray) -> np.ndarray:
    """C_in + the product in C's type: a float add, or an int32 one wrapping."""
    return (before.astype(np.int64) + product).astype(np.int32) if product.dtype == np.int32 else before + product


SIXTEEN_ROWS = "tmatmul_m1_sixteen_rows"
_SIXTEEN_ROW_FORMS = frozenset({"TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS"})  # not TGEMV*: isGemv keeps m = 1
_CUBE_ROWS = 16


def _sixteen_rows(plan: Plan, tiles: Tiles, out_role: str, row0: np.ndarray, k: int, n: int) -> np.ndarray:
    """The A2/A3 erratum `tmatmul_m1_sixteen_rows`: with m = 1 the backend's TMatmul / TMatmulBias (the non-GEMV
    forms) set m = 16 before `mad`, so the cube computes C rows 1..15 too, from A's storage rows 1..15 (whatever
    they hold, past A's valid row) over the same k < K and j < N: C[r, j] = sum_k A[r, k] B[k, j] for TMATMUL,
    C's own C[r, j] + that sum for TMATMUL_ACC (the cube accumulates into cOutMatrix in place, cIn or not), that
    sum + bias[0, j] for TMATMUL_BIAS. `row0` is row 0's result (the usual one); returns the rows written, row 0
    and the rows 1..15 that lie in A's and C's storage (A Rows = C Rows), named when they change C's bytes or
    when the cube's rows run past the storage (not modelled there)."""
    a, out = tiles["aMatrix"], tiles[out_role]
    rows = min(_CUBE_ROWS, a.spec.rows)
    past = f"; rows {rows}..{_CUBE_ROWS - 1} lie past A's and C's storage ({rows} rows) and are not modelled" \
        if rows < _CUBE_ROWS else ""
    if rows == 1:
        announce_erratum(plan.config, plan.record.name, SIXTEEN_ROWS, past.removeprefix("; "))
        return row0
    extra = product_sum(valid_of(a, (rows, k))[1:], valid_of(tiles["bMatrix"], (k, n)), plan.specs[out_role].dtype)
    old = valid_of(out, (rows, n))[1:]
    with quiet():
        if plan.record.name == "TMATMUL_ACC":
            extra = _plus(old, extra)
        elif "biasData" in tiles:
            extra = _plus_bias(extra, valid_of(tiles["biasData"], (1, n)))
    extra = extra.astype(out.spec.np_dtype, copy=False)
    if past or extra.tobytes() != np.ascontiguousarray(old).tobytes():
        announce_erratum(plan.config, plan.record.name, SIXTEEN_ROWS,
                         f"A's valid rows are 1: C rows 1..{rows - 1} were computed from A's storage rows{past}")
    return np.concatenate([row0.astype(out.spec.np_dtype, copy=False), extra])


_EXACT_PRODUCT_TYPES = (D.F16, D.F8E4M3, D.F8E5M2)  # products exact in float whatever the values; astype reads them


@lru_cache(maxsize=None)
def _float_of_bits(dtype: np.dtype) -> np.ndarray:
    """Every bit pattern of a 1- or 2-byte float type as float32 (NumPy's own astype of each, NaN payloads as it
    converts them), indexed by the pattern: one take converts gathered elements (half's astype costs about
    0.6 us per 256 elements, a take from this table 0.4)."""
    every = np.arange(1 << (8 * dtype.itemsize), dtype=np.uint32).astype(f"<u{dtype.itemsize}").view(dtype)
    table = every.astype(np.float32)
    table.setflags(write=False)
    return table


def _matmul_compiled(plan: Plan, positions: dict[str, int]) -> Any:
    """TMATMUL (no accumulate, no bias) of half or 8-bit float tiles into a float Acc tile, for one signature:
    `_matmul`'s steps with everything the tile types fix worked out once (M, K, N, the storage indices of A's
    K x M transposed and B's K x N regions and of C's M x N one). A call gathers the two regions' bit patterns
    (one take each) and converts them to float through a table of every pattern (`_float_of_bits`: astype's
    values), sums in k order as `_sum_exact_products` does (below 2**18 products, with every k's products at once
    in a scratch block: the multiply into it, then the reduce over its outer axis from +0.0; else that function
    itself), and writes the sums to C's elements: the general kernel's values, to the same elements. None (the
    bound kernel) for the other forms and types, and for a layout that maps an element past its storage."""
    specs = plan.specs
    if plan.record.name != "TMATMUL" or specs["cMatrix"].dtype is not D.F32 \
            or not {specs["aMatrix"].dtype, specs["bMatrix"].dtype} <= set(_EXACT_PRODUCT_TYPES):
        return None
    a_spec, b_spec, c_spec = specs["aMatrix"], specs["bMatrix"], specs["cMatrix"]
    m, k, n = a_spec.valid_row, a_spec.valid_col, b_spec.valid_col
    assert m is not None and k is not None and n is not None  # static valid shapes: the hook's premise
    if m == 1 and plan.config.erratum(SIXTEEN_ROWS):  # the A2/A3 cube's 16 rows: the general kernel
        return None
    a_at = np.ascontiguousarray(offset_table(a_spec)[:m, :k].T)  # (k, m): A transposed
    b_at = np.ascontiguousarray(offset_table(b_spec)[:k, :n])
    c_at = np.ascontiguousarray(offset_table(c_spec)[:m, :n]).reshape(-1)
    if any(int(at.max()) >= spec.numel for at, spec in ((a_at, a_spec), (b_at, b_spec), (c_at, c_spec))):
        return None
    a_bits, b_bits = (np.dtype(f"<u{spec.dtype.itemsize}") for spec in (a_spec, b_spec))
    a_float, b_float = _float_of_bits(a_spec.np_dtype), _float_of_bits(b_spec.np_dtype)
    pa, pb, pc = positions["aMatrix"], positions["bMatrix"], positions["cMatrix"]
    lanes = m * n
    if lanes == 1 or k * lanes > _CHUNK:
        def run_chunks(args: tuple) -> None:
            at = a_float.take(args[pa].storage.view(a_bits).take(a_at))
            fb = b_float.take(args[pb].storage.view(b_bits).take(b_at))
            args[pc].storage[c_at] = _sum_exact_products(at.T, fb).reshape(-1)

        return run_chunks
    spare = Spare((k, m, n), np.float32)
    free, fresh = spare.free, spare.take
    multiply, add_reduce = np.multiply, np.add.reduce

    def sums(at: np.ndarray, fb: np.ndarray, products: np.ndarray) -> np.ndarray:  # NumPy work only (quiet)
        multiply(at[:, :, None], fb[:, None, :], products)
        return add_reduce(products.reshape(k, lanes), 0)

    def run(args: tuple) -> None:
        at = a_float.take(args[pa].storage.view(a_bits).take(a_at))
        fb = b_float.take(args[pb].storage.view(b_bits).take(b_at))
        try:  # (not `if free`: another thread may take the last one between the test and the pop)
            products = free.pop()
        except IndexError:
            products = fresh()
        total = QUIET.run(sums, at, fb, products)
        free.append(products)
        args[pc].storage[c_at] = total

    return run


_matmul.compiled = _matmul_compiled  # type: ignore[attr-defined]


def accumulated(plan: Plan, tiles: Tiles, out_role: str, m: int, n: int, instr: str) -> np.ndarray:
    """What an accumulate form adds its product to, at i < M, j < N: cInMatrix's values (the simulator), or, under
    the NPU erratum `tmatmul_acc_ignores_cin`, cOutMatrix's own (the backends pass only cOutMatrix.data() to the
    cube, which accumulates into it); named when cIn's values there differ from cOut's."""
    c_in = valid_of(tiles["cInMatrix"], (m, n))
    if not plan.config.erratum("tmatmul_acc_ignores_cin") or tiles["cInMatrix"] is tiles[out_role]:
        return c_in
    own = valid_of(tiles[out_role], (m, n)).copy()
    if own.tobytes() != c_in.tobytes():
        announce_erratum(plan.config, instr, "tmatmul_acc_ignores_cin",
                         "the product was added to cOutMatrix's values, not cInMatrix's")
    return own


def _plus_bias(values: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """`c += bias` element-wise in C's type: a float add, or an int32 one wrapping."""
    return (values.astype(np.int64) + bias).astype(np.int32) if values.dtype == np.int32 else values + bias


def add_bias_to_valid(out: Tile, bias: Tile, product: np.ndarray) -> None:
    """The simulator's bias step when C's valid region is not M x N: the product is stored at i < M, j < N, then
    bias[0, c] is added to C[r, c] for every r < C's valid rows, c < C's valid cols (TMATMUL_BIAS_IMPL and the
    MX bias form loop over cMatrix.GetValidRow/Col): a product outside C's valid region keeps no bias, and an
    element of it outside M x N gets the bias on its old value."""
    write(out, product.astype(out.spec.np_dtype, copy=False))
    rows, cols = out.valid_shape
    with quiet():
        write(out, _plus_bias(valid_of(out, (rows, cols)), valid_of(bias, (1, cols))))


def _out(name: str) -> Operand:
    return Operand(name, "tile", out=True)


TMATMUL = instruction(
    "TMATMUL", operands=(_out("cMatrix"), src("aMatrix"), src("bMatrix")), legality=_tables("cMatrix"),
    static=_static, dynamic=_sizes, pipe=Pipe.M, family="cube", summary="C = A x B (Left x Right -> Acc)")(_matmul)
_ACC_FORMS = ((_out("cOutMatrix"), src("cInMatrix"), src("aMatrix"), src("bMatrix")),
              (_out("cMatrix"), src("aMatrix"), src("bMatrix")))
TMATMUL_ACC = instruction(
    "TMATMUL_ACC", operands=_ACC_FORMS[0], forms=_ACC_FORMS, api_only=(1,), legality=_tables("cOutMatrix", "cMatrix"),
    static=_static, dynamic=_sizes, pipe=Pipe.M, family="cube", text="pto.tmatmul.acc",
    summary="C_out = C_in + A x B (the three-tile form: C += A x B in place)")(_matmul)
TMATMUL_BIAS = instruction(
    "TMATMUL_BIAS", operands=(_out("cMatrix"), src("aMatrix"), src("bMatrix"), src("biasData")),
    legality=_tables("cMatrix"), static=_static, dynamic=_sizes, pipe=Pipe.M, family="cube", text="pto.tmatmul.bias",
    summary="C = A x B + bias (one Bias row added to every row)")(_matmul)
