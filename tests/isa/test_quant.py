"""TQUANT and TDEQUANT: values worked by hand from docs/isa/TQUANT.md / TDEQUANT.md (round to nearest even,
clamp; per-row parameters), refusals with messages and no byte changed."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import IllegalInstructionError, QuantType, Tile, TileType, int8_t, uint8_t


def _row(values, dtype=float, cols=8):
    t = Tile[TileType.Vec, dtype, len(values), cols]()
    t.set_logical(np.array([list(v) + [0] * (cols - len(v)) for v in values], dtype=t.spec.np_dtype))
    return t


def test_int8_sym_scales_per_row_rounds_to_even_and_clamps():
    x = _row([[0.5, 1.5, 2.5, -2.5], [100.0, -100.0, 3.0, 0.25]])
    s = _row([[2.0], [1.5]])
    q = Tile[TileType.Vec, int8_t, 2, 32]()
    ptoisa.TQUANT(q, x, s, None, QuantType.INT8_SYM, target="a2a3")
    # row 0 * 2: 1, 3, 5, -5; row 1 * 1.5: 150 -> 127, -150 -> -128, 4.5 -> 4, 0.375 -> 0
    assert q.data[:, :4].tolist() == [[1, 3, 5, -5], [127, -128, 4, 0]]


def test_int8_asym_adds_the_zero_point_and_clamps_to_uint8():
    x = _row([[0.5, -10.0, 200.0, 1.0]])
    s = _row([[1.0]])
    z = _row([[128.0]])
    q = Tile[TileType.Vec, uint8_t, 1, 32]()
    ptoisa.TQUANT(q, x, s, z, QuantType.INT8_ASYM, target="a5")
    # 128.5 -> 128 (ties to even), 118, 328 -> 255, 129
    assert q.data[0, :4].tolist() == [128, 118, 255, 129]


def test_tdequant_subtracts_the_offset_then_scales_per_row():
    x = _row([[10, -10, 0, 127]], "int8_t", 32)
    Para = Tile[TileType.Vec, float, 1, 8, ptoisa.BLayout.RowMajor, 1, 1]  # one valid column: broadcast
    scale, offset = Para(), Para()
    scale.set_logical([[0.5] * 8])
    offset.set_logical([[2.0] * 8])
    out = Tile[TileType.Vec, float, 1, 32, ptoisa.BLayout.RowMajor, 1, 4]()
    ptoisa.TDEQUANT(out, x, scale, offset, target="a2a3")
    assert out.valid.tolist() == [[4.0, -6.0, -1.0, 62.5]]


@pytest.mark.parametrize("kind, dst_type, with_offset, match", [
    (QuantType.INT8_SYM, uint8_t, False, "dst dtype uint8 must be int8 for INT8_SYM"),
    (QuantType.INT8_ASYM, uint8_t, False, "offset is required by INT8_ASYM"),
    (QuantType.INT8_SYM, int8_t, True, "offset must be absent for INT8_SYM"),
])
def test_tquant_refusals_change_nothing(kind, dst_type, with_offset, match):
    x = _row([[1.0]])
    q = Tile[TileType.Vec, dst_type, 1, 32]()
    before = q.tobytes()
    with pytest.raises(IllegalInstructionError, match=match):
        ptoisa.TQUANT(q, x, _row([[1.0]]), _row([[0.0]]) if with_offset else None, kind, target="a2a3")
    assert q.tobytes() == before

