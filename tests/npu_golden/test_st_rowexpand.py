"""The NPU hardware tests of the row-broadcast binary instructions TROWEXPANDADD TROWEXPANDSUB TROWEXPANDMUL
TROWEXPANDDIV TROWEXPANDMAX TROWEXPANDMIN TROWEXPANDEXPDIF (tests/npu/{a5,a2a3}/src/st/testcase/trowexpand<op> in
hw-native-sys/pto-isa), rebuilt.

A5's kernels (<T, dstRow, dstCol, src1Row, src1Col, src0eqdst>) place a dstRow x dstCol "full" tile at 0x0, dst at
0x0 as well (the result overwrites it) and the per-row tile right after the full one: a src1Row x 1 ColMajor tile
(one value per row), or, in the `2` kernels, a src1Row x (32 / sizeof(T)) RowMajor tile (one 32-byte block per
row, repeated along the row). With src0eqdst the call is op(dst, full, per-row), else op(dst, per-row, full)
(so TROWEXPANDSUB computes per-row - full). Inputs are drawn as each gen_data.py draws them (seed 2025).

The reference compares with ResultCmp (eps 1e-3). Add, sub, mul, div, max and min are NumPy's operation in the
element type (A5's gen_data.py floor-divides integers, the same as truncation for its positive data): exact bytes.
EXPDIF's golden is NumPy's exp, not the NPU's vexp: compared as the reference compares.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout
from ptoisa.errors import IllegalInstructionError

from _st import expand_golden, result_cmp, same_bytes, vec

F32, F16, I32, I16, U32, U16 = np.float32, np.float16, np.int32, np.int16, np.uint32, np.uint16

# (dtype, dst rows, dst cols, src0eqdst, row-major per-row tile) in gen_data.py's order
_COMMON = [(F32, 16, 32, True, False), (F32, 56, 128, True, False), (F16, 48, 64, True, False),
           (F16, 16, 128, True, False), (F32, 24, 64, True, True), (F16, 32, 64, False, False),
           (F32, 20, 64, False, True), (I32, 16, 32, True, False), (I16, 16, 64, True, False)]
CONFIGS = {
    "add": _COMMON, "max": _COMMON, "min": _COMMON,
    "mul": [*_COMMON, (U32, 16, 32, True, False), (U16, 16, 64, True, False)],
    "sub": [(F32, 8, 128, True, False), (F32, 24, 32, True, False), (F16, 16, 256, True, False),
            (F16, 32, 64, True, False), (F32, 24, 64, True, True), (F32, 16, 128, False, False),
            (F16, 16, 64, False, True), (I32, 16, 32, True, False), (I16, 16, 64, True, False)],
    "div": [(F32, 40, 64, True, False), (F32, 16, 256, True, False), (F16, 16, 32, True, False),
            (F16, 32, 512, True, False), (F32, 24, 64, True, True), (F16, 32, 32, True, True),
            (F32, 16, 128, False, False), (F16, 32, 64, False, False), (F32, 20, 64, False, True),
            (F16, 16, 64, False, True), (F32, 40, 32, True, False), (F16, 16, 128, True, False),
            (F32, 8, 32, True, True), (F16, 8, 128, True, True), (I32, 16, 32, True, False),
            (I16, 16, 64, True, False), (U32, 16, 32, True, False), (U16, 16, 64, True, False)],
    "expdif": [(F32, 32, 64, True, False), (F32, 16, 32, True, False), (F16, 16, 32, True, False),
               (F16, 48, 64, True, False), (F32, 24, 64, True, True), (F32, 16, 128, False, False),
               (F16, 16, 64, False, True)],
}


def _small_cols(dtype, row_major: bool) -> int:
    return 32 // np.dtype(dtype).itemsize if row_major else 1


def _draw(op: str, dtype, rows: int, cols: int, src0eqdst: bool, row_major: bool) -> tuple[np.ndarray, np.ndarray]:
    """(full, per-row) as gen_data.py draws them: the first draw is the full tile's (input0.bin)."""
    full_shape, small_shape = (rows, cols), (rows, _small_cols(dtype, row_major))
    integer = np.dtype(dtype).kind in "iu"

    def first(shape):
        if integer:
            return np.random.randint(1, 10, size=shape).astype(dtype)
        return np.random.uniform(low=-10, high=10, size=shape).astype(dtype)

    def second(shape):
        if op == "div" and not integer:
            return np.random.uniform(low=1, high=10, size=shape).astype(dtype)
        return first(shape)

    full = first(full_shape)
    return full, second(small_shape)


def _inputs() -> dict:
    out = {}
    for op, configs in CONFIGS.items():
        np.random.seed(2025)
        for index, config in enumerate(configs):
            out[op, index] = _draw(op, *config)
    return out


INPUTS = _inputs()


CASES = [(op, i) for op, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", CASES, ids=[
    f"TROWEXPAND{op.upper()}-{np.dtype(c[0]).name}-{c[1]}x{c[2]}{'' if c[3] else '-src1full'}"
    f"{'-rowmajor' if c[4] else ''}" for op, i in CASES for c in [CONFIGS[op][i]]])
def test_a5_configuration_reproduces_its_golden(op, index):
    dtype, rows, cols, src0eqdst, row_major = CONFIGS[op][index]
    full_values, small_values = INPUTS[op, index]
    small_cols = _small_cols(dtype, row_major)
    with ptoisa.target("a5"):
        full = vec(dtype, rows, cols, addr=0x0)
        layout = BLayout.RowMajor if row_major else BLayout.ColMajor
        small = vec(dtype, rows, small_cols, addr=rows * cols * np.dtype(dtype).itemsize, layout=layout)
        dst = vec(dtype, rows, cols, addr=0x0)
        full.valid[...] = full_values
        small.valid[...] = small_values
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn = getattr(ptoisa, f"TROWEXPAND{op.upper()}")
            fn(dst, full, small) if src0eqdst else fn(dst, small, full)
    expanded = np.tile(small_values, (1, cols // small_cols))
    a, b = (full_values, expanded) if src0eqdst else (expanded, full_values)
    want = expand_golden(op, a, b)
    if op == "expdif":
        assert result_cmp(want, dst.valid)
    else:
        assert same_bytes(want.astype(dtype), dst.valid)


# --- A2/A3 -------------------------------------------------------------------------------------------------------
# main.cpp's test_trowexpand<op><T, validRow, validCol, Row, Col, src0eqdst, isRowMajor, declTmp>; the kernels put
# src0 and dst (Row x Col, valid validRow x validCol) at 0x0 and the per-row tile at Row * Col * sizeof(T): a
# src1Row x 1 col-major tile (src1Row: validRow rounded up to 32 bytes) with validRow x 1 valid, or with isRowMajor a
# src1Row x (32 / sizeof(T)) row-major one; with declTmp a col-major tmp follows it (its kernel gives that
# src1Row x 1 tmp a validRow x validCol valid shape, which no tile of one column has: validRow x 1 here). gen_data.py
# (seed 2025) draws validRow * validCol values for the full tile (rand, integers in [1, 10)) and one value per row
# (or one block per row); the valid regions are loaded with them here.
_A2A3_COMMON = [
    (F32, 16, 16, 16, 16, True, False, False), (F32, 16, 16, 32, 32, True, False, False),
    (F16, 16, 16, 16, 16, True, False, False), (F16, 16, 16, 32, 32, True, False, False),
    (F32, 1, 16384, 1, 16384, True, False, False), (F32, 2048, 1, 2048, 8, True, False, False),
    (F32, 16, 16, 16, 16, True, True, False), (F32, 16, 16, 32, 32, True, True, False),
    (F16, 16, 16, 16, 16, True, True, False), (F16, 16, 16, 32, 32, True, True, False),
    (F32, 1, 16384, 1, 16384, True, True, False), (F32, 2048, 1, 2048, 8, True, True, False),
    (F32, 16, 16, 16, 16, False, False, False), (F32, 16, 16, 16, 16, False, True, False),
    (F32, 16, 16, 32, 32, True, False, True), (F16, 16, 16, 16, 16, True, False, True),
    (F32, 1, 16384, 1, 16384, True, False, True), (F32, 2048, 1, 2048, 8, True, False, True),
]
_A2A3_INTS = [(I32, 16, 16, 16, 16, True, False, False), (I32, 16, 16, 16, 16, True, True, False),
              (I16, 16, 16, 16, 16, True, False, False), (I16, 16, 16, 16, 16, True, True, False)]
A2A3 = {
    "add": [*_A2A3_COMMON, *_A2A3_INTS], "sub": [*_A2A3_COMMON, *_A2A3_INTS], "max": [*_A2A3_COMMON, *_A2A3_INTS],
    "min": [*_A2A3_COMMON, *_A2A3_INTS], "div": _A2A3_COMMON, "expdif": _A2A3_COMMON,
    "mul": [*_A2A3_COMMON, *_A2A3_INTS, (U32, 16, 16, 16, 16, True, False, False),
            (U32, 16, 16, 16, 16, True, True, False), (U32, 16, 16, 16, 16, False, False, False),
            (U32, 16, 16, 16, 16, False, True, False)],
}


def _a2a3_inputs() -> dict:
    out = {}
    for op, configs in A2A3.items():
        np.random.seed(2025)
        for index, (dtype, vr, vc, _, _, _, row_major, _) in enumerate(configs):
            per_row = 32 // np.dtype(dtype).itemsize if row_major else 1
            if np.dtype(dtype).kind in "iu" and op not in ("div", "expdif"):
                a = np.random.randint(1, 10, size=vr * vc).astype(dtype)
                b = np.random.randint(1, 10, size=vr * per_row).astype(dtype)
            else:
                a = np.random.random(vr * vc).astype(dtype)
                b = np.random.random(vr * per_row).astype(dtype)
            out[op, index] = a.reshape(vr, vc), b.reshape(vr, per_row)
    return out


A2A3_INPUTS = _a2a3_inputs()
A2A3_CASES = [(op, i) for op, configs in A2A3.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", A2A3_CASES, ids=[
    f"TROWEXPAND{op.upper()}-{np.dtype(c[0]).name}-v{c[1]}x{c[2]}-{c[3]}x{c[4]}{'' if c[5] else '-src1full'}"
    f"{'-rowmajor' if c[6] else ''}{'-tmp' if c[7] else ''}" for op, i in A2A3_CASES for c in [A2A3[op][i]]])
def test_a2a3_configuration_reproduces_its_golden(op, index):
    dtype, vr, vc, rows, cols, src0eqdst, row_major, with_tmp = A2A3[op][index]
    full_values, small_values = A2A3_INPUTS[op, index]
    item = np.dtype(dtype).itemsize
    small_rows = -(-vr * item // 32) * 32 // item
    per_row = small_values.shape[1]
    with ptoisa.target("a2a3"):
        full = vec(dtype, rows, cols, vr, vc, addr=0x0)
        dst = vec(dtype, rows, cols, vr, vc, addr=0x0)
        if row_major:
            small = vec(dtype, small_rows, per_row, vr, per_row, addr=rows * cols * item)
        else:
            small = vec(dtype, small_rows, 1, vr, 1, addr=rows * cols * item, layout=BLayout.ColMajor)
        extra = []
        if with_tmp:
            extra.append(vec(dtype, small_rows, 1, vr, 1, addr=rows * cols * item + small_rows * item,
                             layout=BLayout.ColMajor))
        full.valid[...] = full_values
        small.valid[...] = small_values
        fn = getattr(ptoisa, f"TROWEXPAND{op.upper()}")
        if dtype == U32:
            # a2a3/TRowExpandMul.hpp:40-43 static_asserts half/float/int16/int32: these configurations do not
            # compile for A2/A3, and ptoisa refuses them
            with pytest.raises(IllegalInstructionError):
                fn(dst, full, small, *extra) if src0eqdst else fn(dst, small, full, *extra)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn(dst, full, small, *extra) if src0eqdst else fn(dst, small, full, *extra)
    expanded = np.tile(small_values, (1, -(-vc // per_row)))[:, :vc]
    a, b = (full_values, expanded) if src0eqdst else (expanded, full_values)
    want = expand_golden(op, a, b)
    if op == "expdif":
        assert result_cmp(want, dst.valid)
    else:
        assert same_bytes(want.astype(dtype), dst.valid)
