"""TFILLPAD and TFILLPAD_INPLACE run the backends' one fill routine, which TFILLPAD_EXPAND shares
(a2a3/TFillPad.hpp TFillPad / TFillPad_Inplace, a5/TFillPad.hpp TFILLPAD_GENERIC_IMPL): its errata apply to all
three. Worked by hand from the backend source for a 4 x 16 float dst with 2 valid rows and PadValue Max, src of
the same type with 1 x 3 valid elements (1, 2, 3) and 9s in the rest of its first row:
- `tfillpad_expand_dst_valid_rows` (both NPUs): PadBottomRows pads dstValidRow - srcValidRow = 1 row below src's;
  rows 2 and 3 keep their bytes;
- `tfillpad_expand_src_block_tail` (a2a3, equal PadValues): vcopy copies src's whole rows, the pad starts at the
  next 32-byte boundary (column 8): columns 3..7 of row 0 keep src's 9s.
The simulator (include/pto/cpu/TFillPad.hpp) and A2/A3 return before any write when dst has no valid row or
column."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TFILLPAD, TFILLPAD_INPLACE, BLayout, PadValue, SLayout, Tile, TileType

INF = float("inf")
T = Tile[TileType.Vec, float, 4, 16, BLayout.RowMajor, -1, -1, SLayout.NoneBox, 512, PadValue.Max]


def _tiles() -> tuple[Tile, Tile]:
    dst, src = T(2, 16), T(1, 3)
    src.storage[:16] = [1, 2, 3] + [9] * 13
    dst.storage[:] = 5
    return dst, src


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tfillpad_on_each_target(target):
    dst, src = _tiles()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(2):  # the bound kernel, then the compiled call where there is one
            TFILLPAD(dst, src, target=target)
    row0 = [1, 2, 3] + ([9] * 5 if target == "a2a3" else [INF] * 5) + [INF] * 8
    below = [[INF] * 16] + ([[5] * 16] * 2 if target != "cpu" else [[INF] * 16] * 2)
    assert dst.data.tolist() == [row0, *below]
    named = {str(w.message).split("erratum ")[1].split(":")[0] for w in seen if "erratum" in str(w.message)}
    assert named == {"cpu": set(), "a5": {"tfillpad_expand_dst_valid_rows"},
                     "a2a3": {"tfillpad_expand_dst_valid_rows", "tfillpad_expand_src_block_tail"}}[target]


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_errata_off_give_the_contract(target):
    dst, src = _tiles()
    with ptoisa.target(target, errata=False):
        TFILLPAD(dst, src)
    assert dst.data.tolist() == [[1, 2, 3] + [INF] * 13] + [[INF] * 16] * 3


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_inplace_on_one_tile(target):
    tile = T(2, 16)
    tile.storage[:] = 5
    tile.storage[:3] = [1, 2, 3]
    one = T(1, 3)
    one.storage[:] = tile.storage
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        TFILLPAD_INPLACE(one, one, target=target)
    # dst = src (valid 1 x 3): no row below to pad on the NPUs (dstValidRow - srcValidRow = 0)
    expected_rows = [[INF] * 16] * 3 if target == "cpu" else [[5] * 16] * 3
    tail = [5] * 5 if target == "a2a3" else [INF] * 5
    assert one.data.tolist() == [[1, 2, 3] + tail + [INF] * 8, *expected_rows]


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
@pytest.mark.parametrize("valid", [(0, 16), (2, 0), (0, 0)])
def test_an_empty_dst_writes_nothing(target, valid):
    dst, src = T(*valid), T(1, 3)
    dst.storage[:] = 5
    for _ in range(2):
        TFILLPAD(dst, src, target=target)
        assert (dst.storage == 5).all()


def test_a5_empty_columns_with_valid_rows_is_not_modelled():
    dst, src = T(2, 0), T(1, 3)
    dst.storage[:] = 5
    with pytest.raises(ptoisa.NotModelledError):
        TFILLPAD(dst, src, target="a5")
    assert (dst.storage == 5).all()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("instr", [TFILLPAD, TFILLPAD_INPLACE], ids=["TFILLPAD", "TFILLPAD_INPLACE"])
def test_dst_and_src_have_one_shape(target, instr):
    """static_assert(Dst::Rows == Src::Rows && Dst::Cols == Src::Cols) in the simulator and both backends."""
    dst, src = Tile[TileType.Vec, float, 8, 16](), Tile[TileType.Vec, float, 4, 16]()
    dst.storage[:] = 5
    with pytest.raises(ptoisa.IllegalInstructionError, match="TFILLPAD_EXPAND"):
        instr(dst, src, target=target)
    assert (dst.storage == 5).all()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_an_erratum_raised_as_an_error_leaves_dst_unchanged(target):
    """Both errata change bytes here; with warnings as errors the first announcement refuses the call, before any
    byte of dst moves (a2a3 announces two errata: neither may follow a write)."""
    dst, src = _tiles()
    before = dst.storage.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ptoisa.ErratumWarning)
        with pytest.raises(ptoisa.ErratumWarning):
            TFILLPAD(dst, src, target=target)
    assert dst.storage.tobytes() == before.tobytes()
    dst2, src2 = _tiles()  # the tail alone (rows erratum off) on a2a3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ptoisa.ErratumWarning)
        with ptoisa.target(target, errata=("tfillpad_expand_src_block_tail",) if target == "a2a3" else ()):
            if target == "a2a3":
                with pytest.raises(ptoisa.ErratumWarning):
                    TFILLPAD(dst2, src2)
                assert (dst2.storage == 5).all()
