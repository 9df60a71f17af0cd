"""The NPU hardware tests of the row reductions TROWSUM TROWMAX TROWMIN TROWPROD
(tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

The row kernels (runTRowSum etc.) take <T, row, validRow, srcCol, srcValidCol, dstCol>: src and tmp are
Tile<Vec, T, row, srcCol, RowMajor, -1, -1> with valid validRow x srcValidCol at 0x0 and row*srcCol*sizeof(T), dst
a Tile<Vec, T, row, 16, RowMajor, -1, -1> with valid validRow x 1 at twice that; the `DNDst` kernels use static
valid shapes and a row x 1 ColMajor dst. A2/A3's TROWPROD kernel (runTRowProdSimple<T, dstRow, srcRow, validRow,
srcCol, srcValidCol>) has a static-valid src and tmp and a dstRow x 1 ColMajor dst with validRow valid rows.
Inputs are drawn as each gen_data.py draws them (its seed, then its cases in order).

How the reference compares: ResultCmp with eps 1e-3 (4-byte types) or 5e-3 (TROWSUM, TROWMAX, TROWPROD) and
5e-5 / 5e-4 (TROWMIN). Max and min goldens are exact selections, integer sums and products wrap the same in any
order, so those are held to the exact bytes. The float sum and product goldens are accumulated in float64 (or by
NumPy's pairwise float32 loop) and rounded once, while the NPU accumulates in the element type (vcadd within a
repeat, then partial sums): those configurations are compared the way the reference test compares them.
A5's int64/uint64 configurations are not modelled (DECISIONS 25).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout

from _st import result_cmp, same_bytes, vec

F32, F16, I32, I16 = np.float32, np.float16, np.int32, np.int16

# (dtype, row, validRow, srcCol, srcValidCol, DN dst) in gen_data.py's order
_SUM = [
    (F32, 127, 127, 64, 63, False), (F32, 63, 63, 64, 64, False), (F32, 31, 31, 128, 127, False),
    (F32, 15, 15, 192, 192, False), (F32, 7, 7, 448, 447, False), (F16, 256, 256, 16, 15, False),
    (F32, 64, 64, 128, 128, True), (F32, 32, 32, 256, 256, True), (F32, 16, 16, 512, 512, True),
    (F32, 8, 8, 1024, 1024, True), (I32, 127, 127, 64, 63, False), (I32, 63, 63, 64, 64, False),
    (I32, 31, 31, 128, 127, False), (I32, 15, 15, 192, 192, False), (I32, 7, 7, 448, 447, False),
    (I16, 128, 128, 64, 64, False), (I16, 64, 64, 64, 64, False), (I16, 32, 32, 128, 128, False),
    (I16, 16, 16, 192, 192, False), (I16, 8, 8, 448, 448, False),
]
_EXTREME = [
    *_SUM[:6],
    (F32, 30, 30, 216, 216, False), (F32, 30, 30, 216, 24, False), (F32, 30, 11, 216, 216, False),
    (F32, 30, 11, 216, 24, False), (F32, 238, 238, 40, 40, False), (F32, 238, 238, 40, 16, False),
    (F32, 238, 121, 40, 40, False), (F32, 238, 121, 40, 16, False),
    *_SUM[6:],
]
_A5_PROD = [*_SUM[:15], (I16, 256, 256, 16, 15, False), (I16, 63, 63, 64, 64, False), (I16, 31, 31, 128, 127, False)]
CONFIGS = {
    ("a2a3", "TROWSUM"): _SUM, ("a5", "TROWSUM"): _SUM,
    ("a2a3", "TROWMAX"): _EXTREME, ("a5", "TROWMAX"): _EXTREME,
    ("a2a3", "TROWMIN"): _EXTREME, ("a5", "TROWMIN"): _EXTREME,
    ("a5", "TROWPROD"): _A5_PROD,
}
SEEDS = {"TROWSUM": 42, "TROWMAX": 23, "TROWMIN": 23, "TROWPROD": 42}
EPS = {"TROWSUM": (1e-3, 5e-3), "TROWMAX": (1e-3, 5e-3), "TROWMIN": (5e-5, 5e-4), "TROWPROD": (1e-3, 5e-3)}

# A2/A3 TROWPROD: (dtype, dstRow, srcRow, validRow, srcCol, srcValidCol) in gen_data.py's order
A2A3_PROD = [
    (F32, 8, 1, 1, 8, 8), (F32, 8, 1, 1, 16, 16), (F32, 8, 1, 1, 128, 128), (F32, 8, 1, 1, 8, 5),
    (F32, 8, 1, 1, 16, 11), (F32, 8, 3, 2, 8, 8), (F32, 8, 3, 2, 24, 16), (F32, 8, 4, 3, 16, 9),
    (F16, 16, 1, 1, 16, 16), (F16, 32, 26, 19, 32, 26), (I32, 8, 1, 1, 8, 8), (I32, 8, 1, 1, 16, 16),
    (I32, 8, 1, 1, 128, 128), (I32, 8, 1, 1, 8, 5), (I32, 8, 3, 2, 24, 16), (I16, 16, 1, 1, 16, 16),
    (I16, 32, 26, 19, 32, 32), (I16, 16, 1, 1, 16, 16),
]


def _draw(op: str, dtype, rows: int, cols: int) -> np.ndarray:
    integer = np.dtype(dtype).kind == "i"
    if op == "TROWSUM":
        if integer:
            top = 100 if dtype == I32 else 50
            return np.random.randint(low=-top, high=top, size=(rows, cols)).astype(dtype)
        return np.random.uniform(low=-1, high=1, size=(rows, cols)).astype(dtype)
    if op == "TROWPROD":
        if integer:
            return np.random.randint(low=1, high=5, size=(rows, cols)).astype(dtype)
        return np.random.uniform(low=0.9, high=1.1, size=(rows, cols)).astype(dtype)
    if integer:
        return np.random.randint(low=-1000, high=1000, size=(rows, cols)).astype(dtype)
    return np.random.uniform(low=-16, high=16, size=(rows, cols)).astype(dtype)


def _inputs() -> dict:
    out = {}
    for (target, op), configs in CONFIGS.items():
        np.random.seed(SEEDS[op])
        for index, (dtype, row, _, col, _, _) in enumerate(configs):
            out[target, op, index] = _draw(op, dtype, row, col)
    np.random.seed(42)
    for index, (dtype, _, src_row, _, src_col, _) in enumerate(A2A3_PROD):
        if np.dtype(dtype).kind == "i":
            out["a2a3", "TROWPROD", index] = np.random.randint(low=1, high=5, size=(src_row, src_col)).astype(dtype)
        else:
            out["a2a3", "TROWPROD", index] = np.random.uniform(0.5, 1.5, size=(src_row, src_col)).astype(dtype)
    return out


INPUTS = _inputs()


def _golden(op: str, values: np.ndarray) -> np.ndarray:
    dtype = values.dtype
    if op == "TROWMAX":
        return values.max(axis=1)
    if op == "TROWMIN":
        return values.min(axis=1)
    if dtype.kind == "i":  # wrapping: the low bits of the int64 result
        fold = np.add if op == "TROWSUM" else np.multiply
        return fold.reduce(values.astype(np.int64), axis=1).astype(dtype)
    if op == "TROWSUM":  # a float64 accumulator, one element after another
        acc = np.zeros(values.shape[0])
        for j in range(values.shape[1]):
            acc += values[:, j]
        return acc.astype(dtype)
    acc = np.ones(values.shape[0])
    for j in range(values.shape[1]):
        acc *= values[:, j]
    return acc.astype(dtype)


def _check(op: str, want: np.ndarray, got: np.ndarray) -> None:
    if want.dtype.kind == "f" and op in ("TROWSUM", "TROWPROD"):
        eps = EPS[op][0] if want.dtype.itemsize == 4 else EPS[op][1]
        assert result_cmp(want, got, eps)
    else:
        assert same_bytes(want, got)


CASES = [(target, op, i) for (target, op), configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,op,index", CASES, ids=[
    f"{t}-{op}-{np.dtype(CONFIGS[t, op][i][0]).name}-{'x'.join(map(str, CONFIGS[t, op][i][1:5]))}"
    f"{'-DN' if CONFIGS[t, op][i][5] else ''}" for t, op, i in CASES])
def test_configuration_reproduces_its_golden(target, op, index):
    dtype, row, v_row, col, v_col, dn = CONFIGS[target, op][index]
    values = INPUTS[target, op, index][:v_row, :v_col]
    item = np.dtype(dtype).itemsize
    with ptoisa.target(target):
        src = vec(dtype, row, col, v_row, v_col, addr=0x0, static=dn)
        tmp = vec(dtype, row, col, v_row, v_col, addr=row * col * item, static=dn)
        if dn:
            dst = vec(dtype, row, 1, row, 1, addr=2 * row * col * item, layout=BLayout.ColMajor, static=True)
        else:
            dst = vec(dtype, row, 16, v_row, 1, addr=2 * row * col * item)
        src.valid[...] = values
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src, tmp)
    _check(op, _golden(op, values), dst.valid[:, 0])


@pytest.mark.parametrize("index", range(len(A2A3_PROD)), ids=[
    f"{np.dtype(c[0]).name}-{'x'.join(map(str, c[1:]))}" for c in A2A3_PROD])
def test_a2a3_trowprod_configuration_reproduces_its_golden(index):
    dtype, dst_row, src_row, v_row, src_col, v_col = A2A3_PROD[index]
    values = INPUTS["a2a3", "TROWPROD", index][:v_row, :v_col]
    item = np.dtype(dtype).itemsize
    with ptoisa.target("a2a3"):
        src = vec(dtype, src_row, src_col, v_row, v_col, addr=0x0, static=True)
        tmp = vec(dtype, src_row, src_col, v_row, v_col, addr=src_row * src_col * item, static=True)
        dst = vec(dtype, dst_row, 1, v_row, 1, addr=2 * src_row * src_col * item, layout=BLayout.ColMajor,
                  static=True)
        src.valid[...] = values
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TROWPROD(dst, src, tmp)
    want = (values.prod(axis=1, dtype=np.int64).astype(dtype) if np.dtype(dtype).kind == "i"
            else values.prod(axis=1))  # gen_data.py: NumPy's product in the element type
    _check("TROWPROD", want, dst.valid[:, 0])
