"""The NPU hardware tests of TCMP (tests/npu/{a2a3,a5}/src/st/testcase/tcmp in hw-native-sys/pto-isa), rebuilt.

A2/A3 (runTCMP<T, GRows, GCols, TRows, TCols, cmpMode>): src0 and src1 TRows x TCols tiles, dst a uint8 tile of
the same shape with TCols / 8 valid columns, one after another from 0x0; gen_data.py draws TRows x TCols inputs
(uniform over the float range or the integer range, every even column of src1 equal to src0's; some cases all
NaN). A5 (<T, Rows, Cols, ValidRows, ValidCols, cmpMode>): static-valid src tiles, a uint8 dst of Rows x
(Cols / 8 rounded up to 32) with ceil(ValidCols / 8) valid columns; inputs in [-10, 10) (seed 19 on both). The
golden packs each row's comparisons LSB first, 8 per byte, with EQ/NE judged by np.isclose(atol=1e-9), which for
these inputs (equal, far apart, or NaN) agrees with an exact comparison: exact bytes. A5's int64/uint64
configurations are not modelled.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import CmpMode

from _st import same_bytes, vec

F32, F16, I32, I16, BF16 = np.float32, np.float16, np.int32, np.int16, ml_dtypes.bfloat16
EQ, NE, LT, GT, GE, LE = CmpMode.EQ, CmpMode.NE, CmpMode.LT, CmpMode.GT, CmpMode.GE, CmpMode.LE
COMPARE = {EQ: np.equal, NE: np.not_equal, LT: np.less, LE: np.less_equal, GT: np.greater, GE: np.greater_equal}

# A2/A3: (dtype, tile rows, tile cols, mode, all NaN)
A2A3 = [
    (F32, 1, 64, EQ, False), (F32, 8, 64, GT, False), (I32, 32, 32, EQ, False), (I32, 16, 32, EQ, False),
    (F32, 64, 64, LE, False), (I32, 32, 32, EQ, False), (I32, 32, 32, EQ, False), (F32, 32, 32, NE, False),
    (F32, 32, 32, NE, True), (F32, 2, 4096, LT, False), (F32, 2, 4096, NE, False), (F32, 2, 4096, NE, True),
    (F32, 1, 64, NE, False), (F32, 32, 32, NE, False), (F16, 1, 64, EQ, False), (F16, 8, 64, NE, False),
    (F16, 32, 32, LT, False), (F16, 32, 32, GT, False), (F16, 16, 32, GE, False), (F16, 64, 64, LE, False),
    (F16, 32, 32, NE, True), (F16, 2, 4096, NE, False), (F16, 64, 64, NE, False),
]
# A5: (dtype, rows, cols, valid rows, valid cols, mode, all NaN)
A5 = [
    (F16, 32, 32, 32, 32, EQ, False), (F32, 8, 64, 8, 64, GT, False), (I32, 4, 64, 4, 64, NE, False),
    (I32, 128, 128, 64, 64, LT, False), (I32, 64, 64, 32, 32, EQ, False), (I32, 16, 32, 16, 32, EQ, False),
    (F32, 128, 128, 64, 64, LE, False), (I32, 77, 80, 32, 32, EQ, False), (I32, 32, 32, 32, 32, EQ, False),
    (I16, 32, 32, 16, 32, EQ, False), (I16, 77, 80, 32, 32, LE, False), (BF16, 32, 32, 16, 32, EQ, False),
    (BF16, 77, 80, 32, 32, LE, False), (F32, 32, 32, 32, 32, NE, True),
]


def _inputs() -> dict:
    out = {}
    np.random.seed(19)
    for index, (dtype, rows, cols, _, nan) in enumerate(A2A3):
        if np.dtype(dtype).kind == "f":
            top = float(np.finfo(dtype).max)
            a, b = (np.random.uniform(low=-top, high=top, size=[rows, cols]).astype(dtype) for _ in range(2))
        else:
            info = np.iinfo(dtype)
            a, b = (np.random.randint(info.min, info.max, size=[rows, cols]).astype(dtype) for _ in range(2))
        b[:, 0::2] = a[:, 0::2]
        if nan:
            a[:], b[:] = np.nan, np.nan
        out["a2a3", index] = a, b
    np.random.seed(19)
    for index, (dtype, rows, cols, _, _, _, nan) in enumerate(A5):
        if np.dtype(dtype).kind == "i":
            a, b = (np.random.randint(-10, 10, size=[rows, cols]).astype(dtype) for _ in range(2))
        else:
            a, b = (np.random.uniform(-10, 10, size=[rows, cols]).astype(dtype) for _ in range(2))
        if nan:
            a[:], b[:] = np.nan, np.nan
        out["a5", index] = a, b
    return out


INPUTS = _inputs()


def _golden(a: np.ndarray, b: np.ndarray, mode: CmpMode) -> np.ndarray:
    if a.dtype.kind == "V":
        a, b = a.astype(np.float32), b.astype(np.float32)
    return np.packbits(COMPARE[mode](a, b), axis=1, bitorder="little")


@pytest.mark.parametrize("index", range(len(A2A3)), ids=[
    f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-{c[3].name}{'-nan' if c[4] else ''}" for c in A2A3])
def test_a2a3_configuration_reproduces_its_golden(index):
    dtype, rows, cols, mode, _ = A2A3[index]
    a, b = INPUTS["a2a3", index]
    size = rows * cols * np.dtype(dtype).itemsize
    with ptoisa.target("a2a3"):
        src0, src1 = vec(dtype, rows, cols, addr=0), vec(dtype, rows, cols, addr=size)
        dst = vec(np.uint8, rows, cols, rows, cols // 8, addr=2 * size)
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TCMP(dst, src0, src1, mode)
    assert same_bytes(_golden(a, b, mode), dst.valid)


@pytest.mark.parametrize("index", range(len(A5)), ids=[
    f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-v{c[3]}x{c[4]}-{c[5].name}{'-nan' if c[6] else ''}" for c in A5])
def test_a5_configuration_reproduces_its_golden(index):
    dtype, rows, cols, v_rows, v_cols, mode, _ = A5[index]
    a, b = (x[:v_rows, :v_cols] for x in INPUTS["a5", index])
    size = rows * cols * np.dtype(dtype).itemsize
    with ptoisa.target("a5"):
        src0 = vec(dtype, rows, cols, v_rows, v_cols, addr=0, static=True)
        src1 = vec(dtype, rows, cols, v_rows, v_cols, addr=size, static=True)
        dst = vec(np.uint8, rows, (cols // 8 + 31) // 32 * 32, v_rows, -(-v_cols // 8), addr=2 * size, static=True)
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TCMP(dst, src0, src1, mode)
    assert same_bytes(_golden(a, b, mode), dst.valid)
