"""The NPU hardware tests of TCI (tests/npu/{a2a3,a5}/src/st/testcase/tci in hw-native-sys/pto-isa), rebuilt.

Each configuration below is one TEST_F of the reference's main.cpp: element type, Cols of the single-row dst
tile (dynamic valid shape 1 x Cols, bound at 0x0), the start value, descending, and whether the tmp overload is
called (a 1x512 float tmp bound at 0x20000). The golden data are computed here the way the reference's
gen_data.py computes them: start + k or start - k for k < Cols, cast to the element type. ptoisa runs the same
calls on the same target and must store exactly the golden bytes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TASSIGN, TCI, BLayout, Tile, TileType

# (dtype, cols, start, descending, with_tmp)
A2A3 = [
    (np.int32, 128, 0, 0, 0), (np.int32, 600, 0, 0, 0), (np.int32, 32, 0, 1, 0), (np.int32, 2000, 0, 1, 0),
    (np.int16, 256, 0, 0, 0), (np.int16, 800, 0, 1, 0), (np.int16, 64, 0, 0, 0), (np.int16, 5120, 0, 1, 0),
    (np.int32, 128, 0, 0, 1), (np.int32, 32, 0, 1, 1), (np.int16, 256, 0, 0, 1), (np.int16, 800, 0, 1, 1),
    (np.int16, 3328, 0, 1, 1), (np.int16, 64, 0, 0, 1), (np.int16, 32, 0, 1, 1),
]
A5 = [
    (np.int32, 128, 100, 1, 0), (np.int16, 128, -1, 0, 0), (np.int16, 128, -1, 1, 0), (np.int16, 192, -1, 1, 0),
    (np.int32, 192, -1, 1, 0), (np.int32, 600, 0, 1, 0), (np.int16, 800, 0, 0, 0), (np.int32, 2560, 0, 1, 0),
    (np.int32, 3200, 0, 0, 0), (np.int32, 8, 0, 0, 0), (np.int32, 128, 100, 1, 1), (np.int32, 3200, 0, 0, 1),
    (np.int16, 128, -1, 1, 1), (np.int16, 800, 0, 0, 1), (np.int16, 3840, 20, 1, 1), (np.int16, 1408, 50, 0, 1),
]
CASES = [("a2a3", *c) for c in A2A3] + [("a5", *c) for c in A5]


def golden(dtype, cols: int, start: int, descending: int) -> np.ndarray:
    """gen_data.py: start + k (or start - k when descending) for k < cols, in the element type."""
    k = np.arange(cols, dtype=np.int64)
    return (start - k if descending else start + k).astype(dtype)


@pytest.mark.parametrize("target,dtype,cols,start,descending,with_tmp", CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1]).name}-{c[2]}-{'desc' if c[4] else 'asc'}"
                              f"{'-tmp' if c[5] else ''}" for c in CASES])
def test_st_configuration_reproduces_its_golden(target, dtype, cols, start, descending, with_tmp):
    with ptoisa.target(target), warnings.catch_warnings():
        warnings.simplefilter("ignore", ptoisa.ErratumWarning)  # start 0 leaves the a2a3 negation unobservable
        dst = Tile[TileType.Vec, np.dtype(dtype).type, 1, cols, BLayout.RowMajor, -1, -1](1, cols)
        TASSIGN(dst, 0x0)
        args = ()
        if with_tmp:
            tmp = Tile[TileType.Vec, ptoisa.float32_t, 1, 512, BLayout.RowMajor, 1, 512]()
            TASSIGN(tmp, 0x20000)
            args = (tmp,)
        TCI(dst, dtype(start), *args, descending=bool(descending))
    want = golden(dtype, cols, start, descending)
    assert dst.data[0].tobytes() == want.tobytes()
