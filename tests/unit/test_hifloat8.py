"""hifloat8_t (DECISIONS 25): the reference simulator's table (include/pto/cpu/Hifloat8.hpp), worked out by hand
from its decoding rules, and the a5 mask TGATHER that moves its bytes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, GatherAxis, MaskPattern, Tile, TileType
from ptoisa.hifloat8 import DECODE, from_float, to_float


@pytest.mark.parametrize("byte,value", [
    (0x00, 0.0), (0x01, 2.0 ** -22), (0x07, 2.0 ** -16), (0x81, -(2.0 ** -22)),
    (0x08, 1.0), (0x0F, 1 + 7 / 32),            # dot 0001: no exponent, the 3 bits read as m/32
    (0x10, 2.0), (0x1F, 2 * (1 + 15 / 16)),     # dot 001: the 1-bit exponent field is always empty: E = +1
    (0x20, 4.0), (0x28, 8.0), (0x30, 0.25), (0x38, 0.125),   # dot 01: E = +2, +3, -2, -3
    (0x6E, 32768.0), (0x6F, math.inf), (0xEF, -math.inf),    # dot 11, E = 15: m = 0 finite, m = 1 infinity
])
def test_decoding(byte, value):
    assert DECODE[byte] == value


def test_0x80_is_the_only_nan_and_the_values_are_distinct():
    assert np.flatnonzero(np.isnan(DECODE)).tolist() == [0x80]
    finite = DECODE[~np.isnan(DECODE)]
    assert len(set(finite.tolist())) == 255


@pytest.mark.parametrize("value,byte", [
    (1.0, 0x08), (3.0, 0x18), (1.5, 0x0F),      # 1.5 lies nearer 1.21875 than 2.0
    (2.0625, 0x10),                             # halfway between 2.0 and 2.125: the smaller one
    (-0.0, 0x00), (1e9, 0x6E), (-1e9, 0xEE), (-math.inf, 0xEF),
    (math.inf, 0x6E),     # |inf - inf| is NaN, never "nearer": the simulator picks the largest finite value
    (math.nan, 0xEF),     # the simulator's search sends NaN to the smallest value, -inf
])
def test_encoding_is_the_simulators_nearest_value(value, byte):
    assert int(from_float(value)) == byte


def test_round_trip_of_every_byte_but_nan_and_plus_inf():
    raw = np.array([b for b in range(256) if b not in (0x80, 0x6F)], dtype=np.uint8)
    assert np.array_equal(from_float(to_float(raw)), raw)


def test_a5_mask_gather_moves_hifloat8_bytes_unchanged():
    src = Tile[TileType.Vec, "hifloat8_t", 2, 32]()
    src.storage.view(np.uint8)[:] = np.arange(64, dtype=np.uint8)
    dst = Tile[TileType.Vec, "hifloat8_t", 1, 32]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        TGATHER(dst, src, MaskPattern.P0101, GatherAxis.GATHER_ROW, target="a5")
    assert dst.storage.view(np.uint8).tolist() == list(range(0, 64, 2))
    for target in ("a2a3", "cpu"):
        with pytest.raises(ptoisa.IllegalInstructionError, match="dtype hifloat8 is not supported"):
            TGATHER(dst, src, MaskPattern.P0101, GatherAxis.GATHER_ROW, target=target)


def test_set_logical_encodes_numbers():
    t = Tile[TileType.Vec, "hifloat8_t", 1, 32]()
    t.set_logical(np.full((1, 32), 3.0))
    assert (t.storage.view(np.uint8) == 0x18).all()


def test_the_text_forms_know_pto_hif8():
    from ptoisa.ir.diagnostics import check_text

    tile = ("!pto.tile_buf<loc=vec, dtype=!pto.hif8, rows={r}, cols=32, v_row={r}, v_col=32, blayout=row_major, "
            "slayout=none_box, fractal=512, pad=0>")
    text = ('module attributes {pto.target_arch = "a5"} {\n  func.func @f() {\n'
            f"    %s = pto.alloc_tile : {tile.format(r=2)}\n    %d = pto.alloc_tile : {tile.format(r=1)}\n"
            "    pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : " + tile.format(r=2) + ") outs(%d : "
            + tile.format(r=1) + ")\n    return\n  }\n}\n")
    result = check_text(text, "t.pto")
    assert result.ok, [d.message for d in result.diagnostics]
    assert not check_text(text.replace('"a5"', '"a2a3"'), "t.pto").ok
