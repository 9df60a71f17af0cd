"""The NPU hardware tests of TCONCAT (tests/npu/{a2a3,a5}/src/st/testcase/tconcat in hw-native-sys/pto-isa), rebuilt.

Both kernels (<T, dstTileH, dstTileW, src0TileH, src0TileW, src1TileH, src1TileW, vRows, vCols0, vCols1>): src0
(vRows x vCols0 valid) at 0x0, src1 (vRows x vCols1) at 0x10000, dst (vRows x dstTileW valid) at 0x20000.
gen_data.py (seed 19) draws both valid regions uniform in +-1000; the golden puts src0's valid columns first and
src1's right after them: exact bytes (columns past vCols0 + vCols1 are not compared). A2/A3 needs only
vCols0 + vCols1 <= dst Cols; A5 asserts they equal dst's valid columns, so its three configurations whose dst
valid columns (its Cols) exceed the sum are refused, as the backend's assertion would stop them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa.errors import IllegalInstructionError

from _st import same_bytes, vec

F32, F16, I32, I16 = np.float32, np.float16, np.int32, np.int16

# (dtype, dst tile, src0 tile, src1 tile, valid rows, valid cols 0, valid cols 1)
_COMMON = [
    (F32, (64, 128), (64, 64), (64, 64), 64, 64, 64), (I32, (64, 128), (64, 64), (64, 64), 64, 64, 64),
    (F16, (16, 256), (16, 128), (16, 128), 16, 128, 128), (F32, (16, 64), (16, 32), (16, 32), 16, 32, 32),
    (I16, (32, 256), (32, 128), (32, 128), 32, 128, 128), (F16, (16, 128), (16, 64), (16, 64), 16, 63, 64),
    (F32, (16, 64), (16, 32), (16, 32), 16, 31, 32), (I16, (32, 256), (32, 128), (32, 128), 32, 127, 128),
]
CONFIGS = {"a2a3": [*_COMMON, (I16, (32, 192), (32, 128), (32, 128), 32, 128, 64)], "a5": _COMMON}


def _inputs() -> dict:
    out = {}
    for target, configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, _, _, _, rows, c0, c1) in enumerate(configs):
            out[target, index] = tuple(np.random.uniform(-1000, 1000, size=(rows, c)).astype(dtype) for c in (c0, c1))
    return out


INPUTS = _inputs()
CASES = [(target, i) for target, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,index", CASES, ids=[
    f"{t}-{np.dtype(c[0]).name}-dst{c[1][0]}x{c[1][1]}-v{c[4]}x{c[5]}+{c[6]}" for t, i in CASES
    for c in [CONFIGS[t][i]]])
def test_configuration_reproduces_its_golden(target, index):
    dtype, dst_tile, src0_tile, src1_tile, rows, c0, c1 = CONFIGS[target][index]
    a, b = INPUTS[target, index]
    with ptoisa.target(target):
        src0 = vec(dtype, *src0_tile, rows, c0, addr=0x0)
        src1 = vec(dtype, *src1_tile, rows, c1, addr=0x10000)
        dst = vec(dtype, *dst_tile, rows, dst_tile[1], addr=0x20000)
        src0.valid[...] = a
        src1.valid[...] = b
        if target == "a5" and c0 + c1 != dst_tile[1]:
            # a5/TConcat.hpp:101-103 asserts validCols0 + validCols1 == dst's valid columns (docs/isa/TCONCAT.md,
            # A5), which these configurations (dst valid = its Cols) break: ptoisa refuses them
            with pytest.raises(IllegalInstructionError):
                ptoisa.TCONCAT(dst, src0, src1)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TCONCAT(dst, src0, src1)
    assert same_bytes(np.concatenate([a, b], axis=1), dst.valid[:, :c0 + c1])
