"""The NPU hardware tests of TCVT (tests/npu/{a2a3,a5}/src/st/testcase/tcvt in hw-native-sys/pto-isa), rebuilt:
the regular `case_<src>_<dst>_<shape>` configurations.

A2/A3's kernel (runTCVT<T, S, GRows, GCols, TRows, TCols, ValidRows, ValidCols>) binds src at 0x0 and dst at
0x20000 as TRows x TCols row-major tiles (static, or with a dynamic valid shape for the partial configurations)
and calls TCVT(dst, src, RoundMode::CAST_RINT), which takes the backend's default saturation: OFF for the
narrowing conversions half -> uint8/int8/int16, float -> int16 and int32 -> int16 (a2a3/TCvt.hpp
kIsNarrowingCvt), ON otherwise. gen_data.py (seed 19, every case in its order) draws floats in [-100, 100),
int8/uint8 over their range, int16 in [-1000, 1000) and int32 in [-10000, 10000); its golden is np.rint for float
-> integer, then the low bits (saturation OFF) or a clamp (ON); float and integer -> float conversions are NumPy's
casts (round to nearest even). The reference compares the valid region with ResultCmp (eps 1e-3); these goldens
are exact conversions, so ptoisa is held to the exact bytes. Conversions from or to int64 are not modelled
(DECISIONS 25).

A5's kernel is the same (src at 0x0, dst at 0x20000, TCVT(dst, src, RoundMode::CAST_RINT)); its gen_data.py
draws and rounds the same way, clamps float destinations to their finite range and draws uint16 and uint32 in
[0, 10000); it has 4 whole-tile and 3 partial shapes. Its FP4, FP8 and HiFloat8 pairs are left out (their
gen_data.py paths draw differently), so from the first FP4 pair on its draws are this file's own. Its bfloat16
sources are a defect of the reference: gen_data.py sets `bfloat16 = np.float16`, so the device reads half bytes
as bfloat16 while the golden converts the half values; here the draws are real bfloat16 values (ml_dtypes) and
the golden converts those. Its int16 -> uint32 golden clamps negative values to 0 (the default saturation ON),
which ptoisa follows (integer conversions saturate with it ON), though the backend calls that cast a plain type
expansion (a5/TCvt.hpp) and does not say what the vector unit does with a negative source.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import RoundMode

from _st import same_bytes, vec

F32, F16, I32, I16, I8, U8, I64 = np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.int64
U16, U32, BF16 = np.uint16, np.uint32, ml_dtypes.bfloat16

A2A3_PAIRS = [
    (F32, F32), (F32, F16), (F32, I32), (F32, I16), (F32, I64), (F16, F32), (F16, I32), (F16, I16), (F16, I8),
    (F16, U8), (I32, F32), (I32, F16), (I32, I16), (I32, I64), (I16, F16), (I16, F32), (I8, F16), (U8, F16),
    (I64, F32), (I64, I32),
]
# (rows, cols, valid rows, valid cols): the whole-tile shapes, then the partial ones
SHAPES = [(1, 32, 1, 32), (2, 64, 2, 64), (4, 32, 4, 32), (8, 64, 8, 64), (1, 256, 1, 256), (8, 128, 8, 128),
          (4, 128, 4, 65), (4, 256, 4, 200), (1, 256, 1, 129), (2, 32, 2, 16)]
A2A3_NARROWING = {(F16, U8), (F16, I8), (F32, I16), (F16, I16), (I64, I32), (I32, I16)}


def _draw(src, rows: int, cols: int) -> np.ndarray:
    if np.dtype(src).kind in "fV":
        return (np.random.random([rows, cols]) * 200 - 100).astype(src)
    low, high = {I8: (-128, 128), U8: (0, 256), I16: (-1000, 1000), U16: (0, 10000), U32: (0, 10000)}.get(
        src, (-10000, 10000))
    return np.random.randint(low, high, [rows, cols]).astype(src)


def _a2a3_inputs() -> dict:
    np.random.seed(19)
    out = {}
    for pair in A2A3_PAIRS:
        for shape in SHAPES:
            out[pair, shape] = _draw(pair[0], *shape[:2])
    return out


A2A3_INPUTS = _a2a3_inputs()


def _golden(x: np.ndarray, dst, saturate: bool) -> np.ndarray:
    if np.dtype(dst).kind in "fV":
        return x.astype(dst)
    value = np.rint(x.astype(np.float64)) if x.dtype.kind in "fV" else x
    if saturate:
        info = np.iinfo(dst)
        return np.clip(value.astype(np.float64), info.min, info.max).astype(dst)
    return value.astype(np.int64).astype(dst)  # the low bits


A2A3_CASES = [(pair, shape) for pair in A2A3_PAIRS if I64 not in pair for shape in SHAPES]


@pytest.mark.parametrize("pair,shape", A2A3_CASES, ids=[
    f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}-{s[0]}x{s[1]}" + ("" if s[:2] == s[2:] else f"-v{s[2]}x{s[3]}")
    for p, s in A2A3_CASES])
def test_a2a3_configuration_reproduces_its_golden(pair, shape):
    src_type, dst_type = pair
    rows, cols, v_rows, v_cols = shape
    x = A2A3_INPUTS[pair, shape]
    static = shape[:2] == shape[2:]
    with ptoisa.target("a2a3"):
        src = vec(src_type, rows, cols, v_rows, v_cols, addr=0x0, static=static)
        dst = vec(dst_type, rows, cols, v_rows, v_cols, addr=0x20000, static=static)
        src.storage.view(src_type)[:] = x.ravel()  # TLOAD of the whole tile
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT)
    want = _golden(x[:v_rows, :v_cols], dst_type, pair not in A2A3_NARROWING)
    assert same_bytes(want, dst.valid)


# (src, dst) in gen_data.py's order; None stands for a pair left out (int64, FP4: drawn, not run)
A5_PAIRS = [
    (F32, F16), (F32, BF16), (F32, I16), (F32, I32), (F32, I64), (F32, F32), (F16, F32), (F16, I32), (F16, I16),
    (F16, I8), (F16, U8), (BF16, F32), (BF16, I32), (BF16, F16), (BF16, None), (BF16, None), (None, BF16),
    (None, BF16), (U8, F16), (I8, F16), (I8, I16), (I8, I32), (I16, U8), (I16, F16), (I16, F32), (I16, U32),
    (I16, I32), (I32, F32), (I32, I16), (I32, I64), (I32, U8), (U32, U8), (U32, I16), (I64, F32), (I64, I32),
]
A5_SHAPES = [(1, 128, 1, 128), (2, 64, 2, 64), (4, 32, 4, 32), (2, 128, 2, 128), (4, 128, 4, 65),
             (4, 256, 4, 200), (1, 256, 1, 129)]


def _a5_inputs() -> dict:
    np.random.seed(19)
    out = {}
    for pair in A5_PAIRS:
        if None in pair:
            break  # the FP4 paths draw their own way: the rest are drawn here, in the same order
        for shape in A5_SHAPES:
            out[pair, shape] = _draw(pair[0], *shape[:2])
    for pair in A5_PAIRS:
        if None not in pair and (pair, A5_SHAPES[0]) not in out:
            for shape in A5_SHAPES:
                out[pair, shape] = _draw(pair[0], *shape[:2])
    return out


A5_INPUTS = _a5_inputs()
A5_CASES = [(pair, shape) for pair in A5_PAIRS if None not in pair and I64 not in pair for shape in A5_SHAPES]


@pytest.mark.parametrize("pair,shape", A5_CASES, ids=[
    f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}-{s[0]}x{s[1]}" + ("" if s[:2] == s[2:] else f"-v{s[2]}x{s[3]}")
    for p, s in A5_CASES])
def test_a5_configuration_reproduces_its_golden(pair, shape):
    src_type, dst_type = pair
    rows, cols, v_rows, v_cols = shape
    x = A5_INPUTS[pair, shape]
    static = shape[:2] == shape[2:]
    with ptoisa.target("a5"):
        src = vec(src_type, rows, cols, v_rows, v_cols, addr=0x0, static=static)
        dst = vec(dst_type, rows, cols, v_rows, v_cols, addr=0x20000, static=static)
        src.storage.view(src_type)[:] = x.ravel()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TCVT(dst, src, RoundMode.CAST_RINT)
    want = _golden(x[:v_rows, :v_cols], dst_type, pair not in A2A3_NARROWING)
    assert same_bytes(want, dst.valid)
