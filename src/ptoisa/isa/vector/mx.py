"""The cube core's MX (microscaling) matrix multiply: TMATMUL_MX and TGEMV_MX, each with its accumulate and bias
overloads (docs/isa/TMATMUL_MX.md, TGEMV_MX.md; include/pto/cpu/TMatmul.hpp TMatmulMX).

    TMATMUL_MX(cMatrix, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix)
    TMATMUL_MX(cOutMatrix, cInMatrix, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix)     (also TMATMUL_MX_ACC)
    TMATMUL_MX(cMatrix, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix, biasData)         (also TMATMUL_MX_BIAS)
    TGEMV_MX(...)  the same three, with one row (also TGEMV_MX_ACC, TGEMV_MX_BIAS)

    pto.tmatmul.mx ins(%a, %a_scale, %b, %b_scale : ...) outs(%c : ...)
    pto.tmatmul.mx.acc ins(%c_in, %a, %a_scale, %b, %b_scale : ...) outs(%c : ...)
    pto.tmatmul.mx.bias ins(%a, %a_scale, %b, %b_scale, %bias : ...) outs(%c : ...)
    pto.tgemv.mx / pto.tgemv.mx.acc / pto.tgemv.mx.bias: the same operands

C++ gives the three forms one name; PTOAS gives each its own op, and so does ptoisa (one record each:
TMATMUL_MX_ACC and TMATMUL_MX_BIAS are the text ops' records). Calling TMATMUL_MX (or TGEMV_MX) with six tiles
picks the accumulate form when the second tile is an Acc tile, else the bias form, as C++ overload resolution does.

For i < M = A's valid rows (1 for TGEMV_MX), j < N = B's valid cols, k < K = A's valid cols:

    C[i, j] = sum_k A[i, k] * B[k, j] * (aScale[i, k // 32] * bScale[k // 32, j])

one scale per group of 32 consecutive k. A and B are 8-bit floats, (float8_e4m3_t or float8_e5m2_t, any pair); C
and bias are float; the scales are float8_e8m0_t (an exponent byte e meaning 2**(e - 127); the pages name only
that type). The order and roundings are the simulator's: the scale product and each term `a * b * scale` are
computed in double (exact for e8m0 scales), and the float accumulator from +0.0 takes `acc = float(double(acc) +
term)` for k = 0, 1, ..., K-1 (two roundings per step: to double, then to float); then C_in + sum or sum +
bias[0, j] (float adds). Every target computes that order. C_in is of C_out's tile type, every field (one TileRes
in C++; a six-tile call with another Acc tile second resolves to the bias overload and fails its static_asserts).
The bias goes where TMATMUL_BIAS puts it (matmul.py): on M x N on a5, on C's valid region on cpu (erratum
tmatmul_bias_valid_region).

Decoding the 8-bit bytes: `cpu` decodes as the simulator's MXType does (no NaN or infinity: e4m3 0x7F is 480,
e5m2 exponent 31 is a normal number 2**16 * (1 + m/4), e8m0 0xFF is 2**128, -0 reads as +0); `a2a3`/`a5` as the
OCP formats (ml_dtypes: e4m3 0x7F/0xFF NaN, e5m2 infinities and NaNs, e8m0 0xFF NaN).

Legality. MX is an A5 instruction (the pages; PTOAS refuses tgemv.mx on A2/A3): `a2a3` refuses every call; `a5`
and `cpu` apply CheckMadMxValid: the fp8 pairs, float C, A Cols a multiple of 64, Left/Right/Acc with the NZ/ZN/NZ
fractals (A col-major with row-major boxes); A5's also wants C's Rows * Cols * 4 bytes within L0C (256 KiB). The 4-bit pairs (float4_e2m1x2_t, float4_e1m2x2_t) are not modelled.
Neither the A5 backend nor the simulator checks the scale tiles' types or locations, and PTOAS's own tests pass
half scale tiles in `scaling` with A's shape: ptoisa takes scale tiles in ScaleLeft/ScaleRight or Scaling, of
float8_e8m0_t, half or float (bfloat16 also on a5; the simulator multiplies two such scales in their C++
type, so their product is rounded to it: half * half to half, float * float to float), and refuses scale tiles
whose storage does not cover the groups read (M x ceil(K/32) for aScale, ceil(K/32) x N for bScale): the
simulator would read past them. Only those scales are read, so a scale tile's layout is checked for them alone
(PTOAS's one-row `scaling` tiles with 16x16 boxes place later rows past their storage).

    >>> from ptoisa import *
    >>> a = Tile[TileType.Left, float8_e4m3_t, 16, 64, BLayout.ColMajor, 16, 64, SLayout.RowMajor]()
    >>> b = Tile[TileType.Right, float8_e4m3_t, 64, 16, BLayout.RowMajor, 64, 16, SLayout.ColMajor]()
    >>> sa = Tile[TileType.ScaleLeft, float8_e8m0_t, 16, 2, BLayout.RowMajor, 16, 2, SLayout.RowMajor, 32]()
    >>> sb = Tile[TileType.ScaleRight, float8_e8m0_t, 2, 16, BLayout.ColMajor, 2, 16, SLayout.ColMajor, 32]()
    >>> c = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]()
    >>> a.set_logical([[1.0] * 64] * 16); b.set_logical([[0.5] * 16] * 64)
    >>> sa.set_logical([[1.0, 4.0]] * 16); sb.set_logical([[1.0] * 16, [0.5] * 16])
    >>> _ = TMATMUL_MX(c, a, sa, b, sb, target="cpu"); c.data[0, :2].tolist()   # 32 * 0.5 + 32 * 0.5 * 2
    [48.0, 48.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from functools import cache
from typing import Any

import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ...events import Pipe
from ...targets import Config
from ...tile.enums import SLayout, TileType
from ...tile.layout import offset_table
from ...tile.spec import TileSpec
from ...tile.tile import Tile
from .._check import Check
from ..record import Instruction, Legality, Operand, Plan, Scalars, Tiles, instruction, src
from ._common import valid_of, write
from .matmul import accumulated, bias_columns, biased, same_acc_type

_FP8 = (D.F8E4M3, D.F8E5M2)
_SCALES = {"a2a3": (D.F8E8M0, D.F16, D.BF16, D.F32), "a5": (D.F8E8M0, D.F16, D.BF16, D.F32), "cpu": (D.F8E8M0, D.F16, D.F32)}
_LIMIT = 4095
_GROUP = 32  # k values per scale (MX_BLOCK_SIZE)
_BASE_K = 64  # A's static Cols: a multiple of this (CheckMadMxValid's BASEK)
_SCALE_LOCS = {"aScaleMatrix": frozenset({TileType.ScaleLeft, TileType.Scaling}),
               "bScaleMatrix": frozenset({TileType.ScaleRight, TileType.Scaling})}


def _tables(out_role: str, bias: bool) -> dict[str, Legality]:
    def table(target: str) -> Legality:
        inputs = _FP8  # a2a3: refused by _static, with its own message
        dtypes = {out_role: (D.F32,), "aMatrix": inputs, "bMatrix": inputs, "aScaleMatrix": _SCALES[target],
                  "bScaleMatrix": _SCALES[target]}
        if bias:
            dtypes["biasData"] = (D.F32,)
        return Legality(dtypes, locs=None, partial=("aScaleMatrix", "bScaleMatrix"), evidence="include/pto/npu/a5/TMatmul.hpp CheckMadMxValid; "
                                                    "include/pto/cpu/TMatmul.hpp CheckMadMxValid")

    return {t: table(t) for t in ("a2a3", "a5", "cpu")}


def _out_role(specs: Mapping[str, Any]) -> str:
    return "cOutMatrix" if "cOutMatrix" in specs else "cMatrix"


def _static(check: Check, config: Config, specs: Mapping[str, TileSpec], attrs: Mapping[str, Enum],
            form: int) -> None:
    """CheckMadMxValid (A5 backend and simulator), the bias rules, the scale tiles' locations."""
    c_role = _out_role(specs)
    c, a, b = specs[c_role], specs["aMatrix"], specs["bMatrix"]
    if config.name == "a2a3":  # the legality table already refused every type; kept for a clear message
        check.fail(None, "is an A5 instruction (MX matmul is not available on A2/A3)")
    for role, spec, loc in (("aMatrix", a, TileType.Left), ("bMatrix", b, TileType.Right), (c_role, c, TileType.Acc)):
        check.loc(role, spec.loc, frozenset({loc}))
    for role, locs in _SCALE_LOCS.items():
        check.loc(role, specs[role].loc, locs)
    if "cInMatrix" in specs:
        same_acc_type(check, specs, c_role)
    if a.cols % _BASE_K:
        check.fail("aMatrix", f"Cols must be a multiple of {_BASE_K} (got {a.cols})")
    if a.rows != c.rows or a.cols != b.rows or b.cols != c.cols:
        check.fail(c_role, f"static shapes disagree: A {a.rows}x{a.cols}, B {b.rows}x{b.cols}, C {c.rows}x{c.cols} "
                           "(need A Rows = C Rows, A Cols = B Rows, B Cols = C Cols)")
    if a.is_row_major or a.slayout is not SLayout.RowMajor:
        check.fail("aMatrix", "a Left tile needs BLayout ColMajor and SLayout RowMajor (the NZ fractal)")
    if not b.is_row_major or b.slayout is not SLayout.ColMajor:
        check.fail("bMatrix", "a Right tile needs BLayout RowMajor and SLayout ColMajor (the ZN fractal)")
    if c.is_row_major or c.slayout is not SLayout.RowMajor:
        check.fail(c_role, "an Acc tile needs BLayout ColMajor and SLayout RowMajor (the NZ fractal)")
    l0c = config.profile.memory.regions["L0C"]
    if config.name == "a5" and c.rows * c.cols * c.dtype.itemsize > l0c:  # A5's CheckMadMxValid; not the simulator
        check.fail(c_role, f"Rows * Cols * sizeof = {c.rows} * {c.cols} * {c.dtype.itemsize} bytes exceeds L0C "
                           f"({l0c} bytes)")
    if "biasData" in specs:
        bias = specs["biasData"]
        check.loc("biasData", bias.loc, frozenset({TileType.Bias}))
        if bias.rows != 1 or not bias.is_row_major:
            check.fail("biasData", f"must be a row-major tile of one row (got {bias.rows} rows, {bias.layout_name})")


def _sizes(gemv: bool):  # noqa: ANN202 - a Dynamic rule
    def rule(check: Check, plan: Plan, tiles: Tiles) -> None:
        a, b = tiles["aMatrix"], tiles["bMatrix"]
        m, k = a.valid_shape
        n = b.valid_col
        out = _out_role(tiles)
        if gemv:
            if m != 1:
                check.fail("aMatrix", f"m (A's valid rows) must be 1 for a GEMV (got {m})")
            if tiles[out].valid_row != 1:
                check.fail(out, f"must have one valid row for a GEMV (got {tiles[out].valid_row})")
            if k != b.valid_row:
                check.fail("bMatrix", f"k: A's valid cols ({k}) must equal B's valid rows ({b.valid_row})")
        for role, name, value in (("aMatrix", "m (A's valid rows)", m), ("aMatrix", "k (A's valid cols)", k),
                                  ("bMatrix", "n (B's valid cols)", n)):
            if not 1 <= value <= _LIMIT:
                check.fail(role, f"{name} = {value} is outside [1, {_LIMIT}]")
        bias_columns(check, plan, tiles, out, n)
        groups = -(-k // _GROUP)
        sa, sb = plan.specs["aScaleMatrix"], plan.specs["bScaleMatrix"]
        if sa.rows < m or sa.cols < groups:
            check.fail("aScaleMatrix", f"holds {sa.rows}x{sa.cols} scales; m x ceil(k/{_GROUP}) = {m}x{groups} are "
                                       "read")
        if sb.rows < groups or sb.cols < n:
            check.fail("bScaleMatrix", f"holds {sb.rows}x{sb.cols} scales; ceil(k/{_GROUP}) x n = {groups}x{n} "
                                       "are read")
        for role, spec, shape in (("aScaleMatrix", sa, (m, groups)), ("bScaleMatrix", sb, (groups, n))):
            if int(offset_table(spec)[:shape[0], :shape[1]].max()) >= spec.numel:
                check.fail(role, f"its {spec.layout_name} layout places scales read ({shape[0]}x{shape[1]}) past "
                                 "the tile's storage")

    return rule


@cache
def _mxtype_table(exp: int, man: int, bias: int) -> np.ndarray:
    """The float64 value of each byte as the simulator's MXType<exp, man, bias> reads it (operator double)."""
    out = np.empty(256, np.float64)
    for byte in range(256):
        sign = -1.0 if (byte >> (exp + man)) & 1 else 1.0
        e = (byte >> man) & ((1 << exp) - 1)
        m = byte & ((1 << man) - 1)
        if e > 0 or man == 0:
            out[byte] = sign * 2.0 ** (e - bias) * (1 + m / (1 << man))
        elif m == 0:
            out[byte] = 0.0  # +0 and the "-0" byte both read as +0.0
        else:
            out[byte] = sign * m * 2.0 ** (1 - bias - man)
    return out


_MXTYPE = {D.F8E4M3: (4, 3, 7), D.F8E5M2: (5, 2, 15), D.F8E8M0: (8, 0, 127)}


def _decode(values: np.ndarray, dtype: D, target: str) -> np.ndarray:
    """Element values as float64: the simulator's MXType on cpu, the OCP formats (ml_dtypes) elsewhere; wider
    types by value."""
    if dtype in _MXTYPE and target == "cpu":
        return _mxtype_table(*_MXTYPE[dtype])[np.ascontiguousarray(values).view(np.uint8)]
    with quiet():
        return values.astype(np.float64)


def _mx(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    target = plan.config.name
    a, b = tiles["aMatrix"], tiles["bMatrix"]
    m, k = a.valid_shape
    n = b.valid_col
    groups = -(-k // _GROUP)
    out = _out_role(tiles)
    fa = _decode(valid_of(a, (m, k)), plan.specs["aMatrix"].dtype, target)
    fb = _decode(valid_of(b, (k, n)), plan.specs["bMatrix"].dtype, target)
    sa = _decode(valid_of(tiles["aScaleMatrix"], (m, groups)), plan.specs["aScaleMatrix"].dtype, target)
    sb = _decode(valid_of(tiles["bScaleMatrix"], (groups, n)), plan.specs["bScaleMatrix"].dtype, target)
    scale_type = plan.specs["aScaleMatrix"].dtype
    rounded = None if scale_type in _MXTYPE and scale_type is plan.specs["bScaleMatrix"].dtype else \
        np.result_type(plan.specs["aScaleMatrix"].np_dtype, plan.specs["bScaleMatrix"].np_dtype)
    with quiet():
        acc = _scaled_sum(fa, fb, sa, sb, rounded)
        if "cInMatrix" in tiles:
            acc = accumulated(plan, tiles, out, m, n, plan.record.name).astype(np.float32) + acc
        if "biasData" in tiles:
            if biased(plan, tiles, out, acc, m, n):
                return
            acc = acc + valid_of(tiles["biasData"], (1, n)).astype(np.float32)
    write(tiles[out], acc.astype(np.float32, copy=False))


_TERMS = 1 << 16  # terms (doubles, 512 KB) made at once: up to a group of 32 k while they fit


def _scaled_sum(fa: np.ndarray, fb: np.ndarray, sa: np.ndarray, sb: np.ndarray, rounded: np.dtype | None
                ) -> np.ndarray:
    """The simulator's `mul_acc += a * b * scale` for k = 0, 1, ... from +0.0: each term `(a * b) * scale` in
    double, the float accumulator widened, the term added in double and the sum rounded to float. The terms of
    up to a group of k are made in two NumPy calls; each step then takes three (add, to float, back to double),
    the same operations in the same order as the step loop."""
    m, k = fa.shape
    n = fb.shape[1]
    acc = np.zeros((m, n), np.float32)
    wide = np.zeros((m, n), np.float64)
    steps = max(1, min(_GROUP, _TERMS // (m * n)))
    at = fa.T
    terms = np.empty((steps, m, n), np.float64)
    total = np.empty((m, n), np.float64)
    for g in range(-(-k // _GROUP)):
        scale = sa[:, g:g + 1] * sb[g:g + 1, :]  # (m, n), exact in double
        if rounded is not None:  # `scale0 * scale1` in the scale's own type (float, half: rounded there)
            scale = scale.astype(rounded).astype(np.float64)
        for start in range(g * _GROUP, min(k, (g + 1) * _GROUP), steps):
            width = min(steps, (g + 1) * _GROUP - start, k - start)
            part = terms[:width]
            np.multiply(at[start:start + width, :, None], fb[start:start + width, None, :], out=part)
            np.multiply(part, scale, out=part)
            for term in part:
                np.add(wide, term, out=total)
                np.copyto(acc, total, casting="unsafe")
                np.copyto(wide, acc)
    return acc


def _out(name: str) -> Operand:
    return Operand(name, "tile", out=True)


_PLAIN = (_out("cMatrix"), src("aMatrix"), src("aScaleMatrix"), src("bMatrix"), src("bScaleMatrix"))
_ACC = (_out("cOutMatrix"), src("cInMatrix"), src("aMatrix"), src("aScaleMatrix"), src("bMatrix"),
        src("bScaleMatrix"))
_BIAS = (*_PLAIN, src("biasData"))


def _router(acc_name: str, bias_name: str):  # noqa: ANN202
    """C++ overload resolution of the one-name MX intrinsics: six tiles with an Acc tile second are the
    accumulate form, other six-tile calls the bias form."""
    def route(args: tuple[Any, ...]) -> Instruction | None:
        from ..record import REGISTRY

        if len(args) == 6 and isinstance(args[1], Tile):
            return REGISTRY[acc_name if args[1].spec.loc is TileType.Acc else bias_name]
        return None

    return route


def _family(name: str, text: str, gemv: bool, what: str) -> tuple[Instruction, Instruction, Instruction]:
    rule = _sizes(gemv)
    plain = instruction(
        name, operands=_PLAIN, legality=_tables("cMatrix", False), static=_static, dynamic=rule, pipe=Pipe.M,
        family="cube", text=text, route=_router(f"{name}_ACC", f"{name}_BIAS"),
        summary=f"C = {what} with MX scales (fp8 A, B; e8m0 scale per 32 k)")(_mx)
    acc = instruction(
        f"{name}_ACC", operands=_ACC, legality=_tables("cOutMatrix", False), static=_static, dynamic=rule,
        pipe=Pipe.M, family="cube", text=f"{text}.acc", summary=f"C_out = C_in + {what} with MX scales")(_mx)
    bias = instruction(
        f"{name}_BIAS", operands=_BIAS, legality=_tables("cMatrix", True), static=_static, dynamic=rule,
        pipe=Pipe.M, family="cube", text=f"{text}.bias", summary=f"C = {what} with MX scales + bias")(_mx)
    return plain, acc, bias


TMATMUL_MX, TMATMUL_MX_ACC, TMATMUL_MX_BIAS = _family("TMATMUL_MX", "pto.tmatmul.mx", False, "A x B")
TGEMV_MX, TGEMV_MX_ACC, TGEMV_MX_BIAS = _family("TGEMV_MX", "pto.tgemv.mx", True, "A x B (one row)")
