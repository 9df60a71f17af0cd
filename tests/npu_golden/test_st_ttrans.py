"""The NPU hardware tests of TTRANS (tests/npu/{a2a3,a5}/src/st/testcase/ttrans in hw-native-sys/pto-isa), rebuilt.

A2/A3 (runTTRANS<T, tRows, tCols>): src tRows x tCols (valid vRows x vCols) at 0x0, dst tCols x (tRows rounded up
to 32 bytes) with vCols x vRows valid right after it, a static tCols x (dst width rounded up to 16 elements, 32 for
bytes) tmp after that, TTRANS(dst, src, tmp). A5 (<T, dstTRows, dstTCols, srcTRows, srcTCols>): src at 0x0, dst
right after it, a static dst-shaped tmp at 0x0 (over src). gen_data.py (seed 19) draws integers in [1, 10) over the
src tile; the golden is the transpose of its valid region: exact bytes. A5's FP8/HiFloat8 configurations move
bytes and are rebuilt as int8.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

F32, F16, I8, U8 = np.float32, np.float16, np.int8, np.uint8

# A2/A3: (dtype, tile rows, tile cols, valid rows, valid cols)
A2A3 = [
    (F32, 16, 8, 16, 8), (F16, 16, 16, 16, 16), (F32, 32, 16, 31, 15), (F16, 32, 32, 31, 31), (F32, 2, 512, 2, 512),
    (F32, 9, 512, 9, 512), (F32, 32, 16, 23, 15), (F32, 64, 128, 27, 77), (F16, 100, 64, 64, 64),
    (F16, 128, 64, 64, 64), (F16, 128, 64, 100, 64), (F32, 512, 32, 512, 2), (F32, 64, 64, 64, 64),
    (F32, 64, 32, 64, 32), (F32, 64, 64, 36, 64), (F32, 2, 16, 2, 16), (I8, 32, 32, 32, 32), (I8, 64, 64, 22, 63),
    (F32, 8, 8, 8, 8),
]
# A5: (dtype, dst tile rows, cols, src tile rows, cols, valid rows, valid cols)
A5 = [
    (F32, 8, 8, 2, 8, 2, 8), (F16, 16, 16, 16, 16, 16, 16), (F32, 16, 32, 32, 16, 31, 15),
    (F16, 32, 32, 32, 32, 31, 31), (F32, 8, 8, 4, 8, 4, 8), (F32, 512, 16, 9, 512, 9, 512),
    (F32, 66, 88, 9, 16, 7, 15), (F32, 16, 32, 32, 16, 23, 15), (F32, 128, 64, 64, 128, 27, 77),
    (F16, 64, 112, 100, 64, 64, 64), (F16, 64, 128, 128, 64, 64, 64), (F16, 64, 128, 128, 64, 100, 64),
    (F32, 32, 512, 512, 32, 512, 2), (F32, 16, 8, 1, 16, 1, 16), (F32, 64, 64, 64, 64, 36, 64),
    (F32, 8, 8, 8, 8, 8, 8), (U8, 32, 32, 32, 32, 32, 32), (U8, 64, 64, 64, 64, 22, 63), (F32, 8, 8, 1, 8, 1, 8),
    (F32, 8, 536, 532, 8, 532, 8), (F32, 8, 624, 618, 8, 618, 8), (F32, 8, 536, 532, 8, 400, 4),
    (F32, 128, 128, 128, 128, 100, 100), (F32, 8, 256, 256, 8, 256, 8), (F32, 8, 512, 512, 8, 512, 8),
    (F32, 256, 8, 8, 256, 8, 256), (F16, 16, 256, 256, 16, 256, 16), (U8, 64, 256, 256, 64, 200, 60),
    (F32, 8, 640, 640, 8, 640, 8), (F32, 8, 1024, 1024, 8, 1024, 8), (F32, 8, 4096, 4096, 8, 4096, 8),
    (F32, 8, 2048, 2048, 8, 1500, 4), (F32, 8, 520, 513, 8, 513, 8), (F32, 8, 448, 448, 8, 300, 6),
    (F32, 1024, 8, 1, 1024, 1, 1024), (F32, 512, 8, 2, 512, 2, 512), (F32, 2048, 8, 8, 2048, 8, 2048),
    (F32, 176, 176, 176, 176, 150, 150), (F32, 256, 64, 64, 256, 50, 200), (F16, 16, 512, 512, 16, 512, 16),
    (F16, 16, 2064, 2064, 16, 2064, 16), (F16, 512, 16, 16, 512, 10, 400), (F16, 128, 128, 128, 128, 128, 128),
    (U8, 32, 1024, 1024, 32, 1024, 32), (U8, 1024, 32, 32, 1024, 32, 1024), (U8, 64, 128, 128, 64, 100, 50),
    (F32, 8, 64, 64, 8, 1, 1), (F32, 8, 16, 16, 8, 16, 1),
    *[(I8, 32, 32, 32, 32, 32, 32), (I8, 64, 64, 64, 64, 22, 63)] * 4,
]


def _inputs() -> dict:
    out = {}
    np.random.seed(19)
    for index, (dtype, rows, cols, _, _) in enumerate(A2A3):
        out["a2a3", index] = np.random.randint(1, 10, size=[rows, cols]).astype(dtype)
    np.random.seed(19)
    for index, (dtype, _, _, rows, cols, _, _) in enumerate(A5):
        out["a5", index] = np.random.randint(1, 10, size=[rows, cols]).astype(dtype)
    return out


INPUTS = _inputs()


def _run(dst, src, tmp) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptoisa.TTRANS(dst, src, tmp)


@pytest.mark.parametrize("index", range(len(A2A3)), ids=[
    f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-v{c[3]}x{c[4]}" for c in A2A3])
def test_a2a3_configuration_reproduces_its_golden(index):
    dtype, rows, cols, v_rows, v_cols = A2A3[index]
    x = INPUTS["a2a3", index]
    item = np.dtype(dtype).itemsize
    dst_cols = -(-rows * item // 32) * 32 // item
    block = 32 if item == 1 else 16
    with ptoisa.target("a2a3"):
        src = vec(dtype, rows, cols, v_rows, v_cols, addr=0x0)
        dst = vec(dtype, cols, dst_cols, v_cols, v_rows, addr=rows * cols * item)
        tmp = vec(dtype, cols, -(-dst_cols // block) * block, addr=(rows * cols + cols * dst_cols) * item, static=True)
        src.valid[...] = x[:v_rows, :v_cols]
        _run(dst, src, tmp)
    assert same_bytes(x[:v_rows, :v_cols].T, dst.valid)


@pytest.mark.parametrize("index", range(len(A5)), ids=[
    f"{i}-{np.dtype(c[0]).name}-dst{c[1]}x{c[2]}-src{c[3]}x{c[4]}-v{c[5]}x{c[6]}" for i, c in enumerate(A5)])
def test_a5_configuration_reproduces_its_golden(index):
    dtype, d_rows, d_cols, s_rows, s_cols, v_rows, v_cols = A5[index]
    x = INPUTS["a5", index]
    item = np.dtype(dtype).itemsize
    with ptoisa.target("a5"):
        src = vec(dtype, s_rows, s_cols, v_rows, v_cols, addr=0x0)
        dst = vec(dtype, d_rows, d_cols, v_cols, v_rows, addr=s_rows * s_cols * item)
        tmp = vec(dtype, d_rows, d_cols, addr=0x0, static=True)
        src.valid[...] = x[:v_rows, :v_cols]
        _run(dst, src, tmp)
    assert same_bytes(x[:v_rows, :v_cols].T, dst.valid)
