"""TMATMUL_ACC / TGEMV_ACC: cInMatrix is of cOutMatrix's tile type (every backend's TMATMUL_ACC_IMPL takes
`TileAcc &cOutMatrix, TileAcc &cInMatrix`). A cIn of another shape was not refused: the kernel read its region
at cOut's size and crashed with NumPy's ValueError (found by tests/fuzz/test_compiled_vs_plain.py: TMATMUL_ACC on
a2a3, cOut 32x32, cIn 32x16). It is now an IllegalInstructionError naming cInMatrix, every byte unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, IllegalInstructionError, SLayout, Tile, TileType


@pytest.mark.parametrize("name", ["TMATMUL_ACC", "TGEMV_ACC"])
@pytest.mark.parametrize("cin_shape", [(32, 16), (16, 32)])
def test_a_cin_of_another_shape_is_refused_before_any_byte_changes(name, cin_shape):
    rows = 1 if name == "TGEMV_ACC" else 32
    c_out = Tile[TileType.Acc, np.float32, 32, 32, BLayout.ColMajor, 32, 32, SLayout.RowMajor]()
    c_in = Tile[TileType.Acc, np.float32, *cin_shape, BLayout.ColMajor, *cin_shape, SLayout.RowMajor]()
    a = Tile[TileType.Left, np.float32, 32, 32, BLayout.ColMajor, rows, 32, SLayout.RowMajor]()
    b = Tile[TileType.Right, np.float32, 32, 32, BLayout.RowMajor, 32, 32, SLayout.ColMajor]()
    for t in (c_out, c_in, a, b):
        t.storage[:] = 1.0
    before = [t.tobytes() for t in (c_out, c_in, a, b)]
    for target in ("a2a3", "a5", "cpu"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(IllegalInstructionError) as info:
                getattr(ptoisa, name)(c_out, c_in, a, b, target=target)
        assert info.value.operand == "cInMatrix", str(info.value)
        assert [t.tobytes() for t in (c_out, c_in, a, b)] == before
