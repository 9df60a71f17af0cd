"""The NPU hardware tests of TCMPS (tests/npu/{a2a3,a5}/src/st/testcase/tcmps in hw-native-sys/pto-isa), rebuilt.

Each configuration is one instantiation of the reference kernel. A2/A3: src0 is a TRows x TCols tile with
dynamic valid shape TRows x TCols, dst a uint8 tile of the same shape with TCols / 8 valid columns, the scalar
read from a one-element tile. A5: src0 is Rows x Cols with static valid ValidRows x ValidCols, dst a uint8 tile
of Rows x (Cols / 8 rounded up to 32) with ceil(ValidCols / 8) valid columns; `isSrc1Tile` calls the tile form
(which compares with src1[0, 0], DECISIONS 1). The golden is computed here as the reference's gen_data.py does:
each row's comparisons packed LSB first, 8 per byte (A2/A3 compares int32 for equality whatever the mode,
DECISIONS 4; every A2/A3 int32 configuration asks for EQ). The A5 int64/uint64 configurations are not modelled.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TASSIGN, TCMPS, BLayout, CmpMode, Tile, TileType

# A2/A3: (dtype, GRows, GCols, TRows, TCols, mode)
A2A3 = [
    (np.float16, 32, 32, 32, 32, CmpMode.GE), (np.float32, 1, 64, 1, 64, CmpMode.EQ),
    (np.float32, 8, 64, 8, 64, CmpMode.GT), (np.float32, 4, 64, 4, 64, CmpMode.NE),
    (np.float32, 128, 128, 64, 64, CmpMode.LT), (np.int32, 64, 64, 32, 32, CmpMode.EQ),
    (np.int32, 16, 32, 16, 32, CmpMode.EQ), (np.float32, 128, 128, 128, 128, CmpMode.LE),
    (np.int32, 77, 81, 32, 32, CmpMode.EQ), (np.int32, 32, 32, 32, 32, CmpMode.EQ),
    (np.float32, 32, 32, 32, 32, CmpMode.NE), (np.float32, 2, 4096, 2, 4096, CmpMode.LT),
    (np.float32, 2, 4096, 2, 4096, CmpMode.NE),
]
# A5: (dtype, Rows, Cols, ValidRows, ValidCols, mode, src1 as a tile)
A5 = [
    (np.float16, 32, 32, 32, 32, CmpMode.EQ, False), (np.float32, 8, 64, 8, 64, CmpMode.GT, True),
    (np.int32, 4, 64, 4, 64, CmpMode.NE, False), (np.int32, 128, 128, 64, 64, CmpMode.LT, True),
    (np.int32, 64, 64, 32, 32, CmpMode.EQ, False), (np.int32, 16, 32, 16, 32, CmpMode.EQ, True),
    (np.float32, 128, 128, 64, 64, CmpMode.LE, False), (np.int32, 77, 80, 32, 32, CmpMode.EQ, True),
    (np.int32, 32, 32, 32, 32, CmpMode.EQ, False), (np.int16, 32, 32, 16, 32, CmpMode.EQ, True),
    (np.int16, 77, 80, 32, 32, CmpMode.LE, False),
]
COMPARE = {CmpMode.EQ: np.equal, CmpMode.NE: np.not_equal, CmpMode.LT: np.less, CmpMode.LE: np.less_equal,
           CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal}


def _inputs(dtype, rows: int, cols: int, rng: np.random.Generator) -> tuple[np.ndarray, object]:
    """gen_data.py's draws: uniform over the type's range, with some elements equal to the scalar."""
    if np.dtype(dtype).kind == "f":
        top = float(np.finfo(dtype).max)
        src = rng.uniform(-top, top, (rows, cols)).astype(dtype)
        scalar = np.array(rng.uniform(-top, top)).astype(dtype)[()]
    else:
        info = np.iinfo(dtype)
        src = rng.integers(info.min, info.max, (rows, cols)).astype(dtype)
        scalar = np.dtype(dtype).type(rng.integers(info.min, info.max))
    src.flat[::7] = scalar  # equal elements, so EQ/LE/GE see both outcomes
    return src, scalar


def _golden(src: np.ndarray, scalar: object, mode: CmpMode) -> np.ndarray:
    return np.packbits(COMPARE[mode](src, scalar), axis=1, bitorder="little")


@pytest.mark.parametrize("dtype,g_rows,g_cols,rows,cols,mode", A2A3,
                         ids=[f"{np.dtype(c[0]).name}-{c[3]}x{c[4]}-{c[5].name}" for c in A2A3])
def test_a2a3_configuration_reproduces_its_golden(dtype, g_rows, g_cols, rows, cols, mode):
    rng = np.random.default_rng(19)
    src_values, scalar = _inputs(dtype, rows, cols, rng)
    with ptoisa.target("a2a3"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ptoisa.ErratumWarning)
        src = Tile[TileType.Vec, np.dtype(dtype).type, rows, cols, BLayout.RowMajor, -1, -1](rows, cols)
        dst = Tile[TileType.Vec, ptoisa.uint8_t, rows, cols, BLayout.RowMajor, -1, -1](rows, cols // 8)
        TASSIGN(src, 0x0)
        TASSIGN(dst, rows * cols * np.dtype(dtype).itemsize + 32)
        src.set_logical(src_values)
        TCMPS(dst, src, scalar, mode)
    assert dst.valid.tobytes() == _golden(src_values, scalar, mode).tobytes()


# the backend's golden data holds what its chunked stores leave (the erratum is reproduced, as on the device); its
# announcement is expected here, not a warning for whoever runs the suite
@pytest.mark.filterwarnings("ignore:TCMPS on a5. erratum tcmps_chunk_tail:ptoisa.errors.ErratumWarning")
@pytest.mark.parametrize("dtype,rows,cols,v_rows,v_cols,mode,tile_form", A5,
                         ids=[f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}-v{c[3]}x{c[4]}-{c[5].name}"
                              f"{'-tile' if c[6] else ''}" for c in A5])
def test_a5_configuration_reproduces_its_golden(dtype, rows, cols, v_rows, v_cols, mode, tile_form):
    rng = np.random.default_rng(19)
    src_values, scalar = _inputs(dtype, v_rows, v_cols, rng)
    item = np.dtype(dtype).itemsize
    dst_cols = ((cols // 8) + 31) // 32 * 32
    with ptoisa.target("a5"):
        src = Tile[TileType.Vec, np.dtype(dtype).type, rows, cols, BLayout.RowMajor, v_rows, v_cols]()
        dst = Tile[TileType.Vec, ptoisa.uint8_t, rows, dst_cols, BLayout.RowMajor, v_rows, -(-v_cols // 8)]()
        TASSIGN(src, 0x0)
        TASSIGN(dst, rows * cols * item + 32)
        src.set_logical(np.pad(src_values, ((0, rows - v_rows), (0, cols - v_cols))))
        other: object = scalar
        if tile_form:
            other = Tile[TileType.Vec, np.dtype(dtype).type, 1, 32 // item, BLayout.RowMajor, 1, 1]()
            TASSIGN(other, rows * cols * item)
            other.set_logical(np.full((1, 32 // item), scalar))
        TCMPS(dst, src, other, mode)
    assert dst.valid.tobytes() == _golden(src_values, scalar, mode).tobytes()
