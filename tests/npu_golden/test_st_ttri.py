"""The NPU hardware tests of TTRI (tests/npu/{a2a3,a5}/src/st/testcase/ttri in hw-native-sys/pto-isa), rebuilt.

A2/A3 (<T, isUpperOrLower, diagonal, TRows, TCols, vRows, vCols>): a TRows x TCols dst with a dynamic valid shape
at 0x0, TTRI<dst, isUpperOrLower>(dst, diagonal). A5 (<T, validRows, validCols, upperOrLower>): a validRows x
(validCols rounded up to 32 bytes) dst at 0x0. The golden is np.tril (0, lower) or np.triu (1, upper) of ones
with the diagonal offset over the valid region: exact bytes. A5's int64/uint64 configurations are not modelled.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TriangleMode

from _st import same_bytes, vec

F32, F16, I32, I16, U32, U8 = np.float32, np.float16, np.int32, np.int16, np.uint32, np.uint8

# (dtype, tile rows, tile cols, valid rows, valid cols, upper, diagonal)
A2A3 = [
    (F32, 4, 8, 4, 4, 1, 0), (F32, 64, 64, 64, 64, 1, 0), (I32, 64, 64, 64, 64, 1, 0), (I16, 64, 64, 64, 64, 1, 0),
    (F16, 16, 256, 16, 256, 1, 0), (F32, 128, 128, 128, 128, 1, 0), (F32, 64, 64, 64, 64, 0, 0),
    (I32, 64, 64, 64, 64, 0, 0), (I16, 64, 64, 64, 64, 0, 0), (F16, 16, 256, 16, 256, 0, 0),
    (F32, 128, 128, 128, 128, 0, 0), (F32, 128, 128, 128, 125, 0, 0), (U32, 64, 64, 64, 64, 1, 0),
    (U32, 64, 64, 64, 64, 0, 0), (F32, 128, 128, 128, 111, 0, 2), (F32, 128, 128, 128, 111, 0, -2),
    (F32, 128, 128, 128, 111, 1, 2), (F32, 128, 128, 128, 111, 1, -2), (F32, 128, 128, 128, 31, 1, 444),
    (F32, 128, 128, 128, 31, 0, 444), (F32, 128, 128, 128, 31, 1, -444), (F32, 128, 128, 128, 31, 0, -444),
]
# (dtype, valid rows, valid cols, upper, diagonal)
A5 = [
    (F16, 20, 32, 0, 0), (U8, 20, 32, 0, 0), (F32, 32, 91, 0, 0), (F32, 128, 128, 0, 0), (F32, 32, 91, 0, 3),
    (F32, 128, 128, 0, 3), (F32, 32, 91, 0, -3), (F32, 128, 128, 0, -3), (F32, 32, 91, 1, 0),
    (F32, 128, 128, 1, 0), (F32, 32, 91, 1, 3), (F32, 128, 128, 1, 3), (F32, 32, 91, 1, -3),
    (F32, 128, 128, 1, -3), (F32, 763, 32, 0, -41), (F32, 763, 32, 1, -41),
]
CASES = [("a2a3", c[0], c[1:3], c[3:5], c[5], c[6]) for c in A2A3] + [
    ("a5", c[0], (c[1], -(-c[2] * np.dtype(c[0]).itemsize // 32) * 32 // np.dtype(c[0]).itemsize), c[1:3], c[3], c[4])
    for c in A5]


@pytest.mark.parametrize("target,dtype,tile,valid,upper,diagonal", CASES, ids=[
    f"{c[0]}-{np.dtype(c[1]).name}-{c[2][0]}x{c[2][1]}-v{c[3][0]}x{c[3][1]}-{'upper' if c[4] else 'lower'}{c[5]}"
    for c in CASES])
def test_configuration_reproduces_its_golden(target, dtype, tile, valid, upper, diagonal):
    with ptoisa.target(target):
        dst = vec(dtype, *tile, *valid, addr=0x0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TTRI(dst, diagonal, TriangleMode.UPPER if upper else TriangleMode.LOWER)
    ones = np.ones(valid, dtype=dtype)
    assert same_bytes(np.triu(ones, k=diagonal) if upper else np.tril(ones, k=diagonal), dst.valid)
