"""The NPU hardware tests of the plain broadcasts TROWEXPAND and TCOLEXPAND (tests/npu/{a2a3,a5}/src/st/testcase/
trowexpand, tcolexpand in hw-native-sys/pto-isa), rebuilt.

TROWEXPAND, A2/A3 (<T, rows, src_col, 1, dst_col, dst_validCol>): a rows x src_col src with one valid column at
0x0, a rows x dst_col dst with dst_validCol valid columns right after it; where dst_col is one 32-byte block the
kernel is runTROWBRCB instead: a static rows x 1 col-major src (row-major when rows is 1) and a static rows x
dst_col dst. A5 (<T, rows, srcCols, dstValidCols, dstCols>): src rows x srcCols with one valid column at 0x0, dst
at 0xF000. TCOLEXPAND, A2/A3 (<T, src_row, src_col, src_validCol, dst_row, dst_col, dst_validRow, dst_validCol>):
src with one valid row at 0x0, dst right after it; A5 (<T, srcRows, dstRows, cols, validCols>): src srcRows x cols
(all rows valid) at 0x0, dst at 0xF000. Inputs are drawn as each gen_data.py draws them (A2/A3 TROWEXPAND: uniform
over the type's range, seed 2025; A2/A3 TCOLEXPAND: rand * 10, seed 23; A5: rand * 10, seed 2025). The goldens are
copies of the source values: exact bytes. A5's int64/uint64 configurations are not modelled.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout

from _st import same_bytes, vec

F32, F16, I32, I16, I8, U8, U16, U32 = (np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.uint16,
                                        np.uint32)

# A2/A3 TROWEXPAND: (dtype, rows, src cols, gen_data's src valid cols, dst cols, dst valid cols, brcb)
A2A3_ROW = [
    (U16, 16, 16, 16, 512, 512, False), (U8, 16, 32, 32, 256, 256, False), (U32, 16, 8, 8, 128, 128, False),
    (F32, 16, 32, 32, 512, 512, False), (U16, 16, 16, 1, 256, 255, False), (U8, 16, 32, 1, 512, 511, False),
    (U32, 16, 8, 1, 128, 127, False), (U16, 16, 16, 1, 128, 127, False), (U8, 2, 32, 1, 64, 63, False),
    (U16, 4080, 1, 1, 16, 16, True), (U16, 16, 1, 1, 16, 16, True), (U32, 4080, 1, 1, 8, 8, True),
    (U32, 16, 1, 1, 8, 8, True), (F32, 4080, 1, 1, 8, 8, True), (F32, 16, 1, 1, 8, 8, True),
    (I16, 16, 16, 16, 512, 512, False), (I8, 16, 32, 32, 256, 256, False), (I32, 16, 8, 8, 128, 128, False),
    (I16, 16, 16, 1, 256, 255, False), (I8, 16, 32, 1, 512, 511, False), (I32, 16, 8, 1, 128, 127, False),
    (I16, 16, 16, 1, 128, 127, False), (I8, 2, 32, 1, 64, 63, False),
]
# A2/A3 TCOLEXPAND: (dtype, src rows, src cols, src valid cols, dst rows, dst cols, dst valid rows, dst valid cols)
A2A3_COL = [
    (I16, 32, 32, 8, 32, 32, 16, 8), (I32, 16, 16, 8, 24, 16, 16, 8), (F32, 16, 16, 8, 24, 16, 16, 8),
    (I16, 8, 128, 127, 16, 128, 8, 127), (I32, 3, 64, 63, 16, 64, 15, 63), (F32, 3, 64, 63, 16, 64, 15, 63),
    (I16, 16, 256, 256, 12, 256, 6, 256), (I32, 4, 256, 256, 16, 256, 15, 256), (F32, 6, 64, 64, 16, 64, 15, 64),
    (I16, 16, 256, 255, 16, 256, 7, 255), (I32, 8, 256, 255, 32, 256, 31, 255), (F32, 1, 64, 63, 1, 64, 1, 63),
]
# A5 TROWEXPAND: (dtype, rows, src cols, dst cols, dst valid cols); TCOLEXPAND: (dtype, src rows, dst rows, cols,
# valid cols)
A5_ROW = [(F16, 16, 16, 512, 512), (I8, 16, 32, 256, 256), (F32, 16, 8, 128, 128), (F16, 16, 16, 512, 511),
          (I8, 16, 32, 256, 255), (F32, 16, 8, 128, 127)]
A5_COL = [(F16, 1, 16, 512, 512), (I8, 2, 32, 256, 255), (F32, 1, 8, 128, 63), (F16, 1, 33, 512, 512),
          (I8, 2, 17, 256, 44), (F32, 1, 54, 64, 63)]


def _inputs() -> dict:
    out = {}
    np.random.seed(2025)
    for index, (dtype, rows, src_cols, _, _, _, brcb) in enumerate(A2A3_ROW):
        info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
        shape = rows * src_cols if brcb else (rows, src_cols)
        with np.errstate(over="ignore"):
            x = np.random.uniform(low=float(info.min), high=float(info.max), size=shape).astype(dtype)
        out["a2a3", "TROWEXPAND", index] = x.reshape(rows, src_cols)
    np.random.seed(23)
    for index, (dtype, _, _, _, _, cols, _, _) in enumerate(A2A3_COL):
        out["a2a3", "TCOLEXPAND", index] = (np.random.rand(1, cols) * 10).astype(dtype)
    np.random.seed(2025)
    for index, (dtype, rows, src_cols, _, _) in enumerate(A5_ROW):
        out["a5", "TROWEXPAND", index] = (np.random.rand(rows, src_cols) * 10).astype(dtype)
    np.random.seed(2025)
    for index, (dtype, src_rows, _, cols, _) in enumerate(A5_COL):
        out["a5", "TCOLEXPAND", index] = (np.random.rand(src_rows, cols) * 10).astype(dtype)
    return out


INPUTS = _inputs()


def _run(op: str, dst, src) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(ptoisa, op)(dst, src)


@pytest.mark.parametrize("index", range(len(A2A3_ROW)), ids=[
    f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-dst{c[4]}-v{c[5]}{'-brcb' if c[6] else ''}" for c in A2A3_ROW])
def test_a2a3_trowexpand_configuration_reproduces_its_golden(index):
    dtype, rows, src_cols, _, dst_cols, dst_valid, brcb = A2A3_ROW[index]
    x = INPUTS["a2a3", "TROWEXPAND", index]
    item = np.dtype(dtype).itemsize
    with ptoisa.target("a2a3"):
        if brcb:
            layout = BLayout.RowMajor if rows == 1 else BLayout.ColMajor
            src = vec(dtype, rows, 1, addr=0x0, layout=layout, static=True)
            dst = vec(dtype, rows, dst_cols, addr=rows * item, static=True)
        else:
            src = vec(dtype, rows, src_cols, rows, 1, addr=0x0)
            dst = vec(dtype, rows, dst_cols, rows, dst_valid, addr=rows * src_cols * item)
        src.valid[...] = x[:, :1]
        _run("TROWEXPAND", dst, src)
    assert same_bytes(np.repeat(x[:, :1], dst_valid, axis=1), dst.valid)


@pytest.mark.parametrize("index", range(len(A2A3_COL)), ids=[
    f"{np.dtype(c[0]).name}-src{c[1]}x{c[2]}-dst{c[4]}x{c[5]}-v{c[6]}x{c[7]}" for c in A2A3_COL])
def test_a2a3_tcolexpand_configuration_reproduces_its_golden(index):
    dtype, s_rows, s_cols, s_valid, d_rows, d_cols, dv_rows, dv_cols = A2A3_COL[index]
    x = INPUTS["a2a3", "TCOLEXPAND", index]
    with ptoisa.target("a2a3"):
        src = vec(dtype, s_rows, s_cols, 1, s_valid, addr=0x0)
        dst = vec(dtype, d_rows, d_cols, dv_rows, dv_cols, addr=s_rows * s_cols * np.dtype(dtype).itemsize)
        src.valid[...] = x[:, :s_valid]
        _run("TCOLEXPAND", dst, src)
    assert same_bytes(np.repeat(x[:, :dv_cols], dv_rows, axis=0), dst.valid)


@pytest.mark.parametrize("index", range(len(A5_ROW)), ids=[
    f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-dst{c[3]}-v{c[4]}" for c in A5_ROW])
def test_a5_trowexpand_configuration_reproduces_its_golden(index):
    dtype, rows, src_cols, dst_cols, dst_valid = A5_ROW[index]
    x = INPUTS["a5", "TROWEXPAND", index]
    with ptoisa.target("a5"):
        src = vec(dtype, rows, src_cols, rows, 1, addr=0x0)
        dst = vec(dtype, rows, dst_cols, rows, dst_valid, addr=0xF000)
        src.valid[...] = x[:, :1]
        _run("TROWEXPAND", dst, src)
    assert same_bytes(np.repeat(x[:, :1], dst_valid, axis=1), dst.valid)


@pytest.mark.parametrize("index", range(len(A5_COL)), ids=[
    f"{np.dtype(c[0]).name}-src{c[1]}-dst{c[2]}x{c[3]}-v{c[4]}" for c in A5_COL])
def test_a5_tcolexpand_configuration_reproduces_its_golden(index):
    dtype, s_rows, d_rows, cols, valid = A5_COL[index]
    x = INPUTS["a5", "TCOLEXPAND", index]
    with ptoisa.target("a5"):
        src = vec(dtype, s_rows, cols, s_rows, valid, addr=0x0)
        dst = vec(dtype, d_rows, cols, d_rows, valid, addr=0xF000)
        src.valid[...] = x[:, :valid]
        _run("TCOLEXPAND", dst, src)
    assert same_bytes(np.repeat(x[:1, :valid], d_rows, axis=0), dst.valid)
