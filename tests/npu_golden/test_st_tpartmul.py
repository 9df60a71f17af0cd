"""The NPU hardware tests of TPARTMUL (tests/npu/{a2a3,a5}/src/st/testcase/tpartmul in hw-native-sys/pto-isa),
rebuilt: the same nine configurations on both NPUs, the same tiles and placements, golden data computed here the
way the reference's gen_data.py does it.

The kernel (tpartmul_kernel.cpp) makes dst a dstVR x dstVC tile and each source a srcVR x align32(srcVC) tile,
all with dynamic valid shapes equal to the configuration's, bound at 0x20000 (dst), 0x0 (src0) and 0x10000
(src1); TLOAD fills each source's valid region from a contiguous srcVR x srcVC array.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TASSIGN, TPARTMUL, BLayout, Tile, TileType

# (dtype, dst valid, src0 valid, src1 valid), in gen_data.py's order (its random draws follow this order)
CONFIGS = [
    (np.float32, (64, 64), (64, 64), (64, 64)), (np.float32, (64, 64), (8, 64), (64, 64)),
    (np.float32, (64, 64), (64, 8), (64, 64)), (np.float32, (64, 64), (64, 64), (8, 64)),
    (np.float32, (64, 64), (64, 64), (64, 8)), (np.float16, (8, 48), (8, 16), (8, 48)),
    (np.float16, (8, 768), (8, 512), (8, 768)), (np.int16, (8, 48), (8, 48), (8, 16)),
    (np.int32, (64, 64), (8, 64), (64, 64)),
]


def _inputs() -> list[tuple[np.ndarray, np.ndarray]]:
    """gen_data.py seeds NumPy with 19 once and draws input1, input2 per case, in case order."""
    rng = np.random.RandomState(19)
    out = []
    for dtype, _, (r0, c0), (r1, c1) in CONFIGS:
        out.append((rng.random_sample(r0 * c0).astype(dtype), rng.random_sample(r1 * c1).astype(dtype)))
    return out


INPUTS = _inputs()


def golden(dtype, dst, src0, src1, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gen_data.py's golden: the product where both sources are valid, the full source's value elsewhere."""
    (dr, dc), (r0, c0), (r1, c1) = dst, src0, src1
    a2, b2 = a.reshape(r0, c0), b.reshape(r1, c1)
    out = np.zeros((dr, dc), dtype=dtype)
    full, part = (a2, b2) if (r0, c0) == (dr, dc) else (b2, a2)
    pr, pc = part.shape
    out[:, :] = full
    out[:pr, :pc] = a2[:pr, :pc] * b2[:pr, :pc]
    return out


def _tile(dtype, rows: int, valid_cols: int):
    item = np.dtype(dtype).itemsize
    cols = -(-valid_cols * item // 32) * 32 // item
    return Tile[TileType.Vec, np.dtype(dtype).type, rows, cols, BLayout.RowMajor, -1, -1](rows, valid_cols)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("index", range(len(CONFIGS)),
                         ids=[f"{np.dtype(c[0]).name}-{c[1][0]}x{c[1][1]}-{c[2][0]}x{c[2][1]}-{c[3][0]}x{c[3][1]}"
                              for c in CONFIGS])
def test_st_configuration_reproduces_its_golden(target, index):
    dtype, dst_valid, src0_valid, src1_valid = CONFIGS[index]
    a, b = INPUTS[index]
    with ptoisa.target(target):
        src0, src1 = _tile(dtype, *src0_valid), _tile(dtype, *src1_valid)
        dst = _tile(dtype, *dst_valid)
        for tile, addr in ((src0, 0x0), (src1, 0x10000), (dst, 0x20000)):
            TASSIGN(tile, addr)
        src0.valid[...] = a.reshape(src0_valid)  # TLOAD of the contiguous input into the valid region
        src1.valid[...] = b.reshape(src1_valid)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the configurations fill dst exactly: no erratum may show
            TPARTMUL(dst, src0, src1)
    want = golden(dtype, dst_valid, src0_valid, src1_valid, a, b)
    assert dst.valid.tobytes() == want.tobytes()
