"""The NPU hardware tests of TCOLARGMAX and TCOLARGMIN (tests/npu/{a2a3,a5}/src/st/testcase/tcolarg<max,min> in
hw-native-sys/pto-isa), rebuilt: the index-only configurations.

Both kernels (<T, srcRow, srcValidRow, dstRow, col, validCol>) bind src (srcRow x col, valid srcValidRow x
validCol) at 0x0, a uint32 dst with one valid row of validCol right after it (A2/A3: validCol rounded up to 8
columns; A5: col columns) and a tmp of T (1 x 64 on A2/A3, 1 x 32 on A5) after dst, and call
TCOLARGMAX(dst, src, tmp). gen_data.py (seed 19) draws uniform in [-100, 100) ([0, 200) for unsigned types,
[0, 10) for uint8, [-10, 10) for int8) and casts; the golden is np.argmax / np.argmin down the valid rows (the
first index of the extreme): exact bytes. Element types follow the backends' TColReduceIdxCheck (A2/A3 f16, u16,
f32, u32; A5 any 1-, 2- or 4-byte type), which ptoisa's tables did not until the uint16/uint32 (A2/A3) and
int8/uint8 (A5) configurations below showed it. Not rebuilt: the configurations that also output the values
(`idx=True`: a different kernel and call).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

F32, F16, I8, U8, I16, U16, I32, U32 = (np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                        np.uint32)
_SHAPES = [(1, 1, 256, 255), (16, 16, 128, 127), (16, 15, 256, 255)]
_EXTRA = [(F16, 16, 16, 32, 32), (U16, 16, 16, 32, 32), (U32, 16, 16, 32, 31), (F32, 16, 16, 32, 31)]
_TAIL = [(U16, 16, 16, 128, 120), (F16, 16, 16, 96, 88), (U16, 4, 4, 48, 34)]
# (dtype, rows, valid rows, cols, valid cols)
CONFIGS = {
    ("a2a3", "TCOLARGMAX"): [(t, *s) for t in (F32, F16, U16, U32) for s in _SHAPES] + _EXTRA + _TAIL,
    ("a2a3", "TCOLARGMIN"): [(t, *s) for t in (F32, F16, U16, U32) for s in _SHAPES],
    ("a5", "TCOLARGMAX"): [(t, *s) for t in (F32, F16, I8, U8, I16, U16, I32, U32) for s in _SHAPES] + _EXTRA
    + [(I8, 16, 16, 32, 31), (U8, 16, 16, 32, 31), (I16, 16, 16, 32, 31), (I32, 16, 16, 32, 31)] + _TAIL,
    ("a5", "TCOLARGMIN"): [(t, *s) for t in (F32, F16, I8, U8, I16, U16, I32, U32) for s in _SHAPES],
}


def _range(target: str, dtype) -> tuple[int, int]:
    if dtype == U8:
        return 0, 10
    if dtype == I8:
        return -10, 10
    if np.dtype(dtype).kind == "u":
        return 0, 200
    return -100, 100


def _inputs() -> dict:
    out = {}
    for (target, op), configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, rows, _, cols, _) in enumerate(configs):
            lo, hi = _range(target, dtype)
            out[target, op, index] = np.random.uniform(low=lo, high=hi, size=(rows, cols)).astype(dtype)
    return out


INPUTS = _inputs()
CASES = [(target, op, i) for (target, op), configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,op,index", CASES, ids=[
    f"{t}-{op}-{np.dtype(c[0]).name}-{c[1]}x{c[3]}-v{c[2]}x{c[4]}" for t, op, i in CASES
    for c in [CONFIGS[t, op][i]]])
def test_configuration_reproduces_its_golden(target, op, index):
    dtype, rows, v_rows, cols, v_cols = CONFIGS[target, op][index]
    x = INPUTS[target, op, index]
    item = np.dtype(dtype).itemsize
    dst_cols = -(-v_cols // 8) * 8 if target == "a2a3" else cols
    with ptoisa.target(target):
        src = vec(dtype, rows, cols, v_rows, v_cols, addr=0x0)
        dst = vec(np.uint32, 1, dst_cols, 1, v_cols, addr=rows * cols * item)
        tmp = vec(dtype, 1, 64 if target == "a2a3" else 32, addr=rows * cols * item + dst_cols * 4)
        src.valid[...] = x[:v_rows, :v_cols]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src, tmp)
    pick = np.argmax if op == "TCOLARGMAX" else np.argmin
    assert same_bytes(pick(x[:v_rows], axis=0)[:v_cols].astype(np.uint32)[None, :], dst.valid)
