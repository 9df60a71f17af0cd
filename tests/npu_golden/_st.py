"""Shared pieces of the rebuilt NPU hardware tests (tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa).

The kernels declare their tiles as `Tile<TileType::Vec, T, Rows, Cols, BLayout::RowMajor, -1, -1>` with a dynamic
valid shape, TASSIGN them to fixed UB offsets, TLOAD the inputs into the valid region, run the instruction and
TSTORE the valid region into a zeroed output: the test compares that output with golden.bin. `vec` builds such a
tile on the current target; `result_cmp` is test_common.h's ResultCmp, the tolerance check most of those tests use.
"""

from __future__ import annotations

import numpy as np

from ptoisa import TASSIGN, BLayout, PadValue, SLayout, Tile, TileType


def vec(dtype, rows: int, cols: int, valid_rows: int | None = None, valid_cols: int | None = None, *,
        addr: int | None = None, pad: PadValue | None = None, layout: BLayout = BLayout.RowMajor,
        static: bool = False) -> Tile:
    """A Vec tile `rows x cols` of `dtype` with a dynamic valid shape (static with `static=True`), bound at `addr`."""
    vr = rows if valid_rows is None else valid_rows
    vc = cols if valid_cols is None else valid_cols
    args: tuple = (TileType.Vec, np.dtype(dtype).type, rows, cols, layout)
    if static:
        args += (vr, vc)
    else:
        args += (-1, -1)
    if pad is not None:
        args += (SLayout.NoneBox, 512, pad)
    spec = Tile[args]
    tile = spec() if static else spec(vr, vc)
    if addr is not None:
        TASSIGN(tile, addr)
    return tile


def load(tile: Tile, values: np.ndarray) -> None:
    """TLOAD: `values` (valid_rows x valid_cols) into the tile's valid region."""
    tile.valid[...] = np.asarray(values).reshape(tile.valid.shape)


def result_cmp(golden: np.ndarray, actual: np.ndarray, eps: float = 0.001, count: int | None = None) -> bool:
    """test_common.h's ResultCmp(golden, actual, eps): an element fails when it differs from the golden by more
    than eps both absolutely and relatively (in float), or one side is NaN and the other not; the comparison
    passes while the failures number at most int(count * eps) and at most 1000 elements came out 0 where the
    golden is not. `count` is the length of the vectors the test compares (default: the golden's size; several
    tests size them in bytes, so their tail holds zeros on both sides and only loosens the threshold)."""
    exp = np.asarray(golden).astype(np.float32).ravel()
    act = np.asarray(actual).astype(np.float32).ravel()
    with np.errstate(all="ignore"):
        diff = np.abs(exp - act)
        rel = np.abs(diff / exp)
    zeros = int(np.count_nonzero((np.abs(act) <= 1e-6) & (np.abs(exp) > 1e-6)))
    err = ((diff > eps) & (rel > eps)) | (np.isnan(exp) != np.isnan(act))
    return int(err.sum()) <= int((exp.size if count is None else count) * eps) and zeros <= 1000


def same_bytes(golden: np.ndarray, actual: np.ndarray) -> bool:
    return np.ascontiguousarray(golden).tobytes() == np.ascontiguousarray(actual).tobytes()


EXPAND_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def expand_golden(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The row/column expand tests' golden (their gen_data.py): a op b broadcast; EXPDIF is exp(a - b), and DIV of
    integers floor-divides (the same as truncation for the tests' positive data)."""
    with np.errstate(all="ignore"):
        if op == "expdif":
            return np.exp(a - b)
        if op == "div":
            return np.floor_divide(a, b) if a.dtype.kind in "iu" else a / b
        return EXPAND_OPS[op](a, b)
