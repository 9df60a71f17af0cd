"""The cube core's matrix-vector multiply: TGEMV TGEMV_ACC TGEMV_BIAS (docs/isa/TGEMV*.md).

    TGEMV(cMatrix, aMatrix, bMatrix)                         C[0, j] = sum_k A[0, k] * B[k, j]
    TGEMV_ACC(cOutMatrix, cInMatrix, aMatrix, bMatrix)       C_out[0, j] = C_in[0, j] + sum_k A[0, k] * B[k, j]
    TGEMV_BIAS(cMatrix, aMatrix, bMatrix, biasData)          C[0, j] = sum_k A[0, k] * B[k, j] + bias[0, j]

    pto.tgemv ins(%a, %b : ...) outs(%c : ...)
    pto.tgemv.acc ins(%c_in, %a, %b : ...) outs(%c_out : ...)
    pto.tgemv.bias ins(%a, %b, %bias : ...) outs(%c : ...)

TMATMUL with one row: the operands, element types, locations, fractals and static shapes are TMATMUL's (A a Left
tile, B a Right tile, C an Acc tile, bias a one-row Bias tile of C's type; (C, A, B) = (int32, int8, int8) or
(float, T, T), A5 also fp8 pairs and hifloat8). At run time m = 1: A and C have one valid row, K = B's valid rows
= A's valid cols (PTOAS checks both; the NPU backends take K from B, the simulator from A, so requiring them equal
makes every source agree), N = B's valid cols, k and n in [1, 4095]. Only row 0 of C is written.

The sum is the simulator's (TGEMV_IMPL calls TMATMUL_IMPL): a float accumulator from +0.0 taking
`std::fma(a, b, acc)` for k = 0, 1, ..., K-1, then C_in + sum or sum + bias (float adds); int8 products summed in
int32, wrapping. Every target computes this order (docs/semantics.md).

    >>> from ptoisa import *
    >>> a = Tile[TileType.Left, half, 1, 16, BLayout.ColMajor, 1, 16, SLayout.RowMajor]()
    >>> b = Tile[TileType.Right, half, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()
    >>> c = Tile[TileType.Acc, float, 1, 16, BLayout.ColMajor, 1, 16, SLayout.RowMajor, 1024]()
    >>> a.set_logical([[2.0] * 16]); b.set_logical([[0.25] * 16] * 16)
    >>> _ = TGEMV(c, a, b, target="cpu"); c.data[0, :3].tolist()
    [8.0, 8.0, 8.0]
"""

from __future__ import annotations

from ...events import Pipe
from .._check import Check
from ..record import Operand, Plan, Tiles, instruction, src
from .matmul import _LIMIT, _matmul, _static, _tables, bias_columns


def _gemv_sizes(check: Check, plan: Plan, tiles: Tiles) -> None:
    """m = 1 (A's and C's valid rows), A's valid cols = B's valid rows = k, n = B's valid cols, k and n in
    [1, 4095]."""
    a, b = tiles["aMatrix"], tiles["bMatrix"]
    out = "cOutMatrix" if "cOutMatrix" in tiles else "cMatrix"
    if a.valid_row != 1:
        check.fail("aMatrix", f"m (A's valid rows) must be 1 for a GEMV (got {a.valid_row})")
    if tiles[out].valid_row != 1:
        check.fail(out, f"must have one valid row for a GEMV (got {tiles[out].valid_row})")
    if a.valid_col != b.valid_row:
        check.fail("bMatrix", f"k: A's valid cols ({a.valid_col}) must equal B's valid rows ({b.valid_row})")
    for role, name, value in (("bMatrix", "k (B's valid rows)", b.valid_row), ("bMatrix", "n (B's valid cols)",
                                                                               b.valid_col)):
        if not 1 <= value <= _LIMIT:
            check.fail(role, f"{name} = {value} is outside [1, {_LIMIT}]")
    bias_columns(check, plan, tiles, out, b.valid_col)


def _out(name: str) -> Operand:
    return Operand(name, "tile", out=True)


TGEMV = instruction(
    "TGEMV", operands=(_out("cMatrix"), src("aMatrix"), src("bMatrix")), legality=_tables("cMatrix"),
    static=_static, dynamic=_gemv_sizes, pipe=Pipe.M, family="cube",
    summary="C = A x B with one row (Left 1xK x Right KxN -> Acc 1xN)")(_matmul)
TGEMV_ACC = instruction(
    "TGEMV_ACC", operands=(_out("cOutMatrix"), src("cInMatrix"), src("aMatrix"), src("bMatrix")),
    legality=_tables("cOutMatrix"), static=_static, dynamic=_gemv_sizes, pipe=Pipe.M, family="cube",
    text="pto.tgemv.acc", summary="C_out = C_in + A x B (one row)")(_matmul)
TGEMV_BIAS = instruction(
    "TGEMV_BIAS", operands=(_out("cMatrix"), src("aMatrix"), src("bMatrix"), src("biasData")),
    legality=_tables("cMatrix"), static=_static, dynamic=_gemv_sizes, pipe=Pipe.M, family="cube",
    text="pto.tgemv.bias", summary="C = A x B + bias (one row)")(_matmul)
