"""Regressions from fuzzing the newer instructions: every bad call is ptoisa's own error, raised before any byte
changes, and legal calls on special values (signalling NaNs, half parameter words) raise no NumPy warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType

V = TileType.Vec
TARGETS = ["a2a3", "a5", "cpu"]


def _refused_unchanged(call, *tiles, match):
    before = [t.tobytes() for t in tiles]
    with pytest.raises(ptoisa.PtoError, match=match):
        call()
    assert [t.tobytes() for t in tiles] == before


@pytest.mark.parametrize("target", TARGETS)
def test_tdequant_offset_narrower_than_the_scale_columns_read(target):
    tiles = (Tile[V, np.float32, 1, 16](), Tile[V, np.int8, 1, 32](), Tile[V, np.float32, 1, 16](),
             Tile[V, np.float32, 1, 8]())
    _refused_unchanged(lambda: ptoisa.TDEQUANT(*tiles, target=target), *tiles, match="offset has 8 valid columns")


@pytest.mark.parametrize("target", TARGETS)
def test_tquant_dst_smaller_than_the_source_region(target):
    tiles = (Tile[V, np.int8, 8, 32](), Tile[V, np.float32, 16, 16](), Tile[V, np.float32, 16, 8]())
    _refused_unchanged(lambda: ptoisa.TQUANT(*tiles, target=target), *tiles, match="cannot hold src's valid region")


@pytest.mark.parametrize("fp_dtype", ["hifloat8_t", "float8_e8m0_t", "float8_e5m2_t"])
def test_an_fp_tile_of_an_8_bit_float_type_is_refused(fp_dtype):
    acc = Tile[TileType.Acc, np.int32, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor]()
    dst, fp = Tile[V, ptoisa.bfloat16_t, 32, 32](), Tile[TileType.Scaling, fp_dtype, 1, 64]()
    _refused_unchanged(lambda: ptoisa.TINSERT_FP(dst, acc, fp, 0, 0, target="a5"), dst, acc, fp,
                       match="quantisation words")


def test_half_parameter_words_and_signalling_nans_raise_no_numpy_warning():
    acc = Tile[TileType.Acc, np.float32, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor]()
    fp = Tile[TileType.Scaling, np.float16, 1, 16]()
    fp.set_logical(np.ones((1, 16)))
    src = Tile[V, np.float32, 1, 32]()
    src.storage.view(np.uint32)[:] = 0x7F800001  # signalling NaNs
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ptoisa.TEXTRACT_FP(Tile[TileType.Mat, np.float16, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor](),
                           acc, fp, 0, 0, target="cpu")
        ptoisa.TSORT32(Tile[V, np.float32, 1, 64](), src, Tile[V, np.uint32, 1, 32](), target="a2a3")
