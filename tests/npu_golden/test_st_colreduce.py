"""The NPU hardware tests of the column reductions TCOLSUM TCOLMAX TCOLMIN TCOLPROD
(tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

A2/A3 kernels (<T, cols, src_row, src_validRow>): src is Tile<Vec, T, src_row, cols, RowMajor, -1, -1> with
src_validRow x cols valid at 0x0, dst a 1 x cols tile; TCOLSUM's dst sits at 0x14000 and its tmp (src_row x cols,
src_validRow / 2 valid rows) at 0x28000, TCOLMAX/TCOLMIN's dst at 0x28000, TCOLPROD's right after src. TCOLSUM's
second half of the cases pass tmp and isBinary = true (a binary tree over rows). A5 kernels (<T, srcRow,
srcValidRow, dstRow, col, validCol>): src srcRow x col with srcValidRow x validCol valid at 0x0, TCOLSUM's tmp
((srcRow + 1) / 2 rows) right after it and dst at (srcRow * 3 / 2 + 1) * col elements, the others' dst right after
src. Inputs are drawn as each gen_data.py draws them.

How the reference compares: ResultCmp with eps 1e-3 (A5 TCOLSUM/TCOLMAX/TCOLMIN: 5e-3 for 2-byte types); A5's
main.cpp sizes its vectors in bytes (so a threshold of int(bytes * eps) failures) and checks its half TCOLSUM cases
as int16, which the comparison here follows.
Max and min are exact selections and integer sums and products wrap the same in any order: exact bytes. A float
TCOLSUM golden is accumulated in float64 (A5) or by NumPy's float32 loop, and A2/A3's float TCOLPROD golden by
NumPy's float32 loop too, while the NPU adds (multiplies) row by row in the element type (or pairwise): those
configurations compare as the reference does. A5's int64/uint64 configurations are not modelled (DECISIONS 25).

A5's column reductions take the nine element types of the backend's TColReduceCheck (a5/TColReduceOps.hpp:31-36;
TCOLPROD: the 16- and 32-bit ones and the floats, a5/TColProd.hpp:42-46): the int8/uint8/uint16/uint32
configurations below were refused by ptoisa before its A5 table followed them.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa.errors import IllegalInstructionError

from _st import result_cmp, same_bytes, vec

F32, F16, I32, I16, I8, U8, U16, U32 = (np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.uint16,
                                        np.uint32)

# A2/A3: (dtype, cols, src_row, src_validRow) in gen_data.py's order
_A2A3 = [(I16, 16, 16, 8), (I32, 16, 16, 8), (F32, 16, 16, 8), (I16, 128, 16, 8), (I32, 64, 16, 8),
         (F32, 64, 16, 8), (I16, 512, 16, 8), (I32, 256, 16, 8), (F32, 256, 16, 8), (I16, 512, 16, 7),
         (I32, 256, 32, 31), (F32, 256, 32, 31), (F32, 256, 16, 1)]
A2A3 = {"TCOLSUM": _A2A3 + _A2A3,  # the second 13 with tmp and isBinary
        "TCOLMAX": _A2A3, "TCOLMIN": _A2A3,
        "TCOLPROD": _A2A3 + [(F16, 256, 1, 1), (F16, 64, 5, 3), (F16, 16, 8, 4)]}
A2A3_DST = {"TCOLSUM": 0x14000, "TCOLMAX": 0x28000, "TCOLMIN": 0x28000}

# A5: (dtype, row, valid_row, col, valid_col[, binary]) in gen_data.py's order (dstRow is 1 throughout)
_A5_SHAPES = [(1, 1, 256, 255), (16, 16, 128, 127), (16, 15, 256, 255)]
_A5_EXTREME = [(t, *s) for t in (F32, F16, I8, U8, I16, U16, I32, U32) for s in _A5_SHAPES]
A5 = {
    "TCOLSUM": [(t, *s, binary) for t in (F32, F16, I8) for s, binary in zip(
        [*_A5_SHAPES, (64, 63, 128, 127), (64, 64, 128, 128)], (False, False, False, True, True))]
    + [(F32, 1, 1, 512, 511, True)],
    "TCOLMAX": _A5_EXTREME, "TCOLMIN": _A5_EXTREME,
    "TCOLPROD": [(t, *s) for t in (F32, I16, U16, I32, U32) for s in _A5_SHAPES],
}


def _a2a3_inputs() -> dict:
    out = {}
    for op, configs in A2A3.items():
        np.random.seed(23)
        for index, (dtype, cols, _, v_rows) in enumerate(configs):
            out[op, index] = (np.random.rand(v_rows, cols) * 10).astype(dtype)
    return out


def _a5_draw(op: str, dtype, rows: int, cols: int) -> np.ndarray:
    shape = (rows, cols)
    unsigned = np.dtype(dtype).kind == "u"
    if op == "TCOLSUM":
        top = 5 if dtype == I8 else 1
        return np.random.uniform(low=-top, high=top, size=shape).astype(dtype)
    if op == "TCOLMAX":
        return np.random.uniform(low=0 if unsigned else -100, high=200 if unsigned else 100, size=shape).astype(dtype)
    if op == "TCOLMIN":
        info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
        with np.errstate(over="ignore"):
            return np.random.uniform(low=float(info.min), high=float(info.max), size=shape).astype(dtype)
    return np.random.uniform(low=1 if unsigned else -9, high=10, size=shape).astype(dtype)


def _a5_inputs() -> dict:
    out = {}
    for op, configs in A5.items():
        np.random.seed(19)
        for index, (dtype, rows, _, cols, *_) in enumerate(configs):
            out[op, index] = _a5_draw(op, dtype, rows, cols)
    return out


A2A3_INPUTS, A5_INPUTS = _a2a3_inputs(), _a5_inputs()


def _golden(op: str, values: np.ndarray, float64_sum: bool) -> np.ndarray:
    """gen_data.py's golden, stored in the element type (integer sums and products wrap)."""
    if op == "TCOLMAX":
        return values.max(axis=0)
    if op == "TCOLMIN":
        return values.min(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        if op == "TCOLSUM":
            if float64_sum:  # A5's gen_data.py: a float64 accumulator, cast once
                return values.astype(np.float64).sum(axis=0).astype(values.dtype)
            return np.sum(values, axis=0).astype(values.dtype)
        return np.prod(values, axis=0).astype(values.dtype)


def _check(op: str, want: np.ndarray, got: np.ndarray, eps: float, count: int | None = None) -> None:
    if want.dtype.kind == "f" and op in ("TCOLSUM", "TCOLPROD"):
        if want.dtype == F16 and count is not None:  # A5's TCOLSUM test compares its half cases as int16
            want, got = want.view(I16), got.view(I16)
        assert result_cmp(want, got, eps, count)
    else:
        assert same_bytes(want, got)


def _call(op: str, dst, src, tmp=None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn = getattr(ptoisa, op)
        fn(dst, src) if tmp is None else fn(dst, src, tmp, True)  # TCOLSUM(dst, src, tmp, isBinary = true)


A2A3_CASES = [(op, i) for op, configs in A2A3.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", A2A3_CASES, ids=[
    f"{op}-{np.dtype(A2A3[op][i][0]).name}-{'x'.join(map(str, A2A3[op][i][1:]))}"
    f"{'-binary' if op == 'TCOLSUM' and i >= 13 else ''}" for op, i in A2A3_CASES])
def test_a2a3_configuration_reproduces_its_golden(op, index):
    dtype, cols, rows, v_rows = A2A3[op][index]
    values = A2A3_INPUTS[op, index]
    item = np.dtype(dtype).itemsize
    with ptoisa.target("a2a3"):
        src = vec(dtype, rows, cols, v_rows, cols, addr=0x0)
        dst = vec(dtype, 1, cols, addr=A2A3_DST.get(op, rows * cols * item))
        tmp = vec(dtype, rows, cols, v_rows // 2, cols, addr=0x28000) if op == "TCOLSUM" and index >= 13 else None
        src.valid[...] = values
        _call(op, dst, src, tmp)
    _check(op, _golden(op, values, False), dst.valid[0], 1e-3)


A5_CASES = [(op, i) for op, configs in A5.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", A5_CASES, ids=[
    f"{op}-{np.dtype(A5[op][i][0]).name}-{'x'.join(map(str, A5[op][i][1:5]))}"
    f"{'-binary' if A5[op][i][5:] == (True,) else ''}" for op, i in A5_CASES])
def test_a5_configuration_reproduces_its_golden(op, index):
    dtype, rows, v_rows, cols, v_cols, *binary = A5[op][index]
    values = A5_INPUTS[op, index][:v_rows, :v_cols]
    item = np.dtype(dtype).itemsize
    with ptoisa.target("a5"):
        src = vec(dtype, rows, cols, v_rows, v_cols, addr=0x0)
        tmp = None
        if op == "TCOLSUM":
            dst = vec(dtype, 1, cols, 1, v_cols, addr=(rows * 3 // 2 + 1) * cols * item)
            if binary[0]:
                tmp = vec(dtype, (rows + 1) // 2, cols, (v_rows + 1) // 2, v_cols, addr=rows * cols * item)
        else:
            dst = vec(dtype, 1, cols, 1, v_cols, addr=rows * cols * item)
        src.valid[...] = values
        _call(op, dst, src, tmp)
    eps = 1e-3 if item == 4 or op == "TCOLPROD" else 5e-3
    # main.cpp reads golden and output into vectors of dst's byte size in elements
    _check(op, _golden(op, values, True), dst.valid[0], eps, cols * item)


@pytest.mark.parametrize("op,dtype,legal", [
    ("TCOLSUM", U16, True), ("TCOLMAX", U8, True), ("TCOLMIN", I8, True), ("TCOLPROD", U32, True),
    ("TCOLPROD", I8, False), ("TROWMAX", I8, True), ("TROWMIN", U8, True), ("TROWSUM", I8, False),
    ("TROWSUM", ml_dtypes.bfloat16, False), ("TROWPROD", ml_dtypes.bfloat16, False),
])
def test_a5_reduction_element_types_follow_the_backend(op, dtype, legal):
    """a5/TColReduceOps.hpp:31-36, a5/TColProd.hpp:42-46, a5/TRowReduce.hpp:365-368, 393-396, 420-423,
    a5/TRowProd.hpp:28: the element types each A5 reduction compiles for."""
    with ptoisa.target("a5"):
        row = op.startswith("TROW")
        src = vec(dtype, 16, 32)
        dst = vec(dtype, 16, 32 // np.dtype(dtype).itemsize * 2, 16, 1) if row else vec(dtype, 1, 32)
        args = (dst, src, vec(dtype, 16, 32)) if row else (dst, src)
        if legal:
            getattr(ptoisa, op)(*args)
        else:
            with pytest.raises(IllegalInstructionError):
                getattr(ptoisa, op)(*args)
