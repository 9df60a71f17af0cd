"""The NPU hardware tests of TSEL (tests/npu/{a2a3,a5}/src/st/testcase/tsel in hw-native-sys/pto-isa), rebuilt.

Both kernels (<T, Rows, Cols, ValidRows, ValidCols>) place src0, src1 and dst (Rows x Cols, valid ValidRows x
ValidCols) one tile size apart from 0x0, then a uint8 mask of Rows x (ceil(Cols / 8) rounded up to 32) with
ceil(ValidCols / 8) valid columns, then a 1 x 32 uint8 tmp, and call TSEL(dst, mask, src0, src1, tmp): element
(i, j) takes src0 where bit j % 8 of mask byte (i, j / 8) is set, else src1. Inputs as gen_data.py draws them
(seed 19): np.random.rand in the element type (so the integer cases hold zeros) and mask bytes in [0, 255). The
golden is that selection: exact bytes. A5's int64/uint64 configurations are not modelled.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

F32, F16, I32, I16, I8 = np.float32, np.float16, np.int32, np.int16, np.int8

# (dtype, rows, cols, valid rows, valid cols)
CONFIGS = {
    "a2a3": [(F32, 2, 128, 2, 128), (F32, 2, 32, 2, 32), (F32, 2, 160, 2, 160), (F16, 2, 128, 2, 128),
             (F16, 2, 32, 2, 32), (F16, 2, 160, 2, 160), (F32, 10, 64, 10, 54), (F32, 2, 4096, 2, 4096),
             (F32, 1024, 8, 1024, 8), (I32, 2, 128, 2, 128), (I16, 2, 128, 2, 128), (F32, 2, 8, 2, 8),
             (F16, 2, 16, 2, 8)],
    "a5": [(F32, 2, 128, 2, 128), (F32, 2, 32, 2, 32), (F32, 2, 160, 2, 160), (F16, 2, 128, 2, 128),
           (F16, 2, 32, 2, 32), (F16, 2, 160, 2, 160), (I8, 2, 128, 2, 128), (I8, 2, 32, 2, 32),
           (I8, 2, 160, 2, 160), (F32, 2, 512, 2, 512)],
}


def _inputs() -> dict:
    out = {}
    for target, configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, _, _, v_rows, v_cols) in enumerate(configs):
            mask_cols = (v_cols + 7) // 8
            a = np.random.rand(v_rows * v_cols).astype(dtype).reshape(v_rows, v_cols)
            b = np.random.rand(v_rows * v_cols).astype(dtype).reshape(v_rows, v_cols)
            mask = np.random.randint(0, 255, size=v_rows * mask_cols, dtype=np.uint8).reshape(v_rows, mask_cols)
            out[target, index] = a, b, mask
    return out


INPUTS = _inputs()
CASES = [(target, i) for target, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,index", CASES, ids=[
    f"{t}-{np.dtype(c[0]).name}-{c[1]}x{c[2]}" + ("" if c[1:3] == c[3:] else f"-v{c[3]}x{c[4]}")
    for t, i in CASES for c in [CONFIGS[t][i]]])
def test_configuration_reproduces_its_golden(target, index):
    dtype, rows, cols, v_rows, v_cols = CONFIGS[target][index]
    a, b, mask_values = INPUTS[target, index]
    size = rows * cols * np.dtype(dtype).itemsize
    mask_cols = ((cols + 7) // 8 + 31) // 32 * 32
    with ptoisa.target(target):
        src0, src1, dst = (vec(dtype, rows, cols, v_rows, v_cols, addr=k * size) for k in range(3))
        mask = vec(np.uint8, rows, mask_cols, v_rows, (v_cols + 7) // 8, addr=3 * size)
        tmp = vec(np.uint8, 1, 32, addr=4 * size)
        src0.valid[...] = a
        src1.valid[...] = b
        mask.valid[...] = mask_values
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TSEL(dst, mask, src0, src1, tmp)
    bits = np.unpackbits(mask_values, axis=1, bitorder="little")[:, :v_cols].astype(bool)
    assert same_bytes(np.where(bits, a, b), dst.valid)
