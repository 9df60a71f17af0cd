"""The NPU hardware tests of TPARTADD (tests/npu/{a2a3,a5}/src/st/testcase/tpartadd in hw-native-sys/pto-isa),
rebuilt: the same nine configurations on both NPUs (A5's int64/uint64 ones are not modelled). The kernel is
TPARTMUL's (test_st_tpartmul.py): dst dstVR x dstVC at 0x20000, each source srcVR x align32(srcVC) at 0x0 and
0x10000, all with dynamic valid shapes. gen_data.py (seed 19) draws np.random.random in the element type (zeros
for the integer cases); the golden is the sum where both sources are valid and the full source's value elsewhere:
exact bytes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

# (dtype, dst valid, src0 valid, src1 valid), in gen_data.py's order
CONFIGS = [
    (np.float32, (64, 64), (64, 64), (64, 64)), (np.float32, (64, 64), (8, 64), (64, 64)),
    (np.float32, (64, 64), (64, 8), (64, 64)), (np.float32, (64, 64), (64, 64), (8, 64)),
    (np.float32, (64, 64), (64, 64), (64, 8)), (np.float16, (8, 48), (8, 16), (8, 48)),
    (np.float16, (8, 768), (8, 512), (8, 768)), (np.int16, (8, 48), (8, 48), (8, 16)),
    (np.int32, (64, 64), (8, 64), (64, 64)),
]


def _inputs() -> list[tuple[np.ndarray, np.ndarray]]:
    np.random.seed(19)
    return [(np.random.random(r0 * c0).astype(d).reshape(r0, c0), np.random.random(r1 * c1).astype(d).reshape(r1, c1))
            for d, _, (r0, c0), (r1, c1) in CONFIGS]


INPUTS = _inputs()


def _tile(dtype, rows: int, valid_cols: int, addr: int):
    item = np.dtype(dtype).itemsize
    return vec(dtype, rows, -(-valid_cols * item // 32) * 32 // item, rows, valid_cols, addr=addr)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[
    f"{np.dtype(c[0]).name}-{c[1][0]}x{c[1][1]}-{c[2][0]}x{c[2][1]}-{c[3][0]}x{c[3][1]}" for c in CONFIGS])
def test_configuration_reproduces_its_golden(target, index):
    dtype, (dr, dc), (r0, c0), (r1, c1) = CONFIGS[index]
    a, b = INPUTS[index]
    with ptoisa.target(target):
        src0, src1 = _tile(dtype, r0, c0, 0x0), _tile(dtype, r1, c1, 0x10000)
        dst = vec(dtype, dr, dc, addr=0x20000)
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TPARTADD(dst, src0, src1)
    full, part = (a, b) if (r0, c0) == (dr, dc) else (b, a)
    want = full.copy()
    want[:part.shape[0], :part.shape[1]] = a[:part.shape[0], :part.shape[1]] + b[:part.shape[0], :part.shape[1]]
    assert same_bytes(want, dst.valid)
