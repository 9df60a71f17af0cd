"""The Left tile's block layout on A5 and the simulator. include/pto/npu/a5/TMatmul.hpp CheckMadValid (its
static_assert "Non-conforming matrix fractal.") wants `!TileLeft::isRowMajor && TileLeft::SFractal == RowMajor`
(the NZ fractal: BLayout ColMajor), for TMATMUL, TMATMUL_ACC, TMATMUL_BIAS and TGEMV*; the pages' A5 constraints
(docs/isa/TMATMUL.md) say the same. The simulator's CheckMadValid (include/pto/cpu/TMatmul.hpp:38-47) checks
only `SFractal == RowMajor` for Left ("two equivalent Left-tile encodings", BLayout ColMajor or RowMajor) and
reads A through its element offsets. A2/A3 checks locations only."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType


def tiles(rows, blayout, bias=False):
    a = Tile[TileType.Left, np.float16, rows, 16, blayout, rows, 16, SLayout.RowMajor]()
    b = Tile[TileType.Right, np.float16, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()
    c = Tile[TileType.Acc, np.float32, rows, 16, BLayout.ColMajor, rows, 16, SLayout.RowMajor, 1024]()
    rng = np.random.default_rng(rows)
    a.set_logical(rng.integers(-4, 5, (rows, 16)).astype(np.float32))
    b.set_logical(rng.integers(-4, 5, (16, 16)).astype(np.float32))
    c.set_logical(rng.integers(-50, 50, (rows, 16)).astype(np.float32))
    extra = []
    if bias:
        extra = [Tile[TileType.Bias, np.float32, 1, 16]()]
        extra[0].set_logical(np.arange(16, dtype=np.float32)[None, :])
    return [c, a, b, *extra]


FORMS = [("TMATMUL", 16, False), ("TMATMUL_ACC", 16, False), ("TMATMUL_BIAS", 16, True), ("TGEMV", 1, False),
         ("TGEMV_ACC", 1, False), ("TGEMV_BIAS", 1, True)]


@pytest.mark.parametrize(("name", "rows", "bias"), FORMS)
def test_a5_refuses_a_row_major_left_tile(name, rows, bias):
    args = tiles(rows, BLayout.RowMajor, bias)
    if name.endswith("_ACC"):
        args.insert(1, args[0])
    before = [t.tobytes() for t in args]
    with pytest.raises(ptoisa.PtoError, match=rf"{name} on a5: aMatrix a Left tile needs BLayout ColMajor and "
                                              "SLayout RowMajor"):
        getattr(ptoisa, name)(*args, target="a5")
    assert [t.tobytes() for t in args] == before


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
@pytest.mark.parametrize(("name", "rows", "bias"), FORMS)
def test_the_simulator_and_a2a3_take_it_as_its_values(target, name, rows, bias):
    """The same logical values in a ZZ (BLayout RowMajor) and an NZ Left tile give the same C bytes."""
    results = []
    for blayout in (BLayout.RowMajor, BLayout.ColMajor):
        args = tiles(rows, blayout, bias)
        if name.endswith("_ACC"):
            args.insert(1, args[0])
        getattr(ptoisa, name)(*args, target=target)
        results.append(args[0].tobytes())
    assert results[0] == results[1]


def mx_tiles(rows):
    f8, e8 = ptoisa.float8_e4m3_t, ptoisa.float8_e8m0_t
    a = Tile[TileType.Left, f8, rows, 64, BLayout.ColMajor, rows, 64, SLayout.RowMajor]()
    sa = Tile[TileType.ScaleLeft, e8, rows, 2, BLayout.RowMajor, rows, 2, SLayout.RowMajor, 32]()
    b = Tile[TileType.Right, f8, 64, 256, BLayout.RowMajor, 64, 256, SLayout.ColMajor]()
    sb = Tile[TileType.ScaleRight, e8, 2, 256, BLayout.ColMajor, 2, 256, SLayout.ColMajor, 32]()
    c = Tile[TileType.Acc, np.float32, rows, 256, BLayout.ColMajor, rows, 256, SLayout.RowMajor, 1024]()
    a.set_logical(np.ones((rows, 64)))
    b.set_logical(np.full((64, 256), 0.5))
    sa.set_logical(np.ones((rows, 2)))
    sb.set_logical(np.ones((2, 256)))
    return c, a, sa, b, sb


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_a5_mx_accumulator_must_fit_l0c(target):
    """A5's CheckMadMxValid: static_assert(Rows * Cols * sizeof(float) <= PTO_L0C_SIZE_BYTES), 256 KiB on A5
    (include/pto/common/buffer_limits.hpp): a 256 x 256 float C (262144 bytes) compiles, 272 x 256 (278528) does
    not. The simulator's CheckMadMxValid has no such assertion: cpu runs both (each C element 64 * 0.5 = 32)."""
    c, *rest = mx_tiles(256)
    ptoisa.TMATMUL_MX(c, *rest, target=target)
    assert (c.data == 32.0).all()
    args = mx_tiles(272)
    before = [t.tobytes() for t in args]
    if target == "a5":
        with pytest.raises(ptoisa.PtoError, match=r"TMATMUL_MX on a5: cMatrix Rows \* Cols \* sizeof = 272 \* 256 "
                                                  r"\* 4 bytes exceeds L0C \(262144 bytes\)"):
            ptoisa.TMATMUL_MX(*args, target=target)
        assert [t.tobytes() for t in args] == before
    else:
        ptoisa.TMATMUL_MX(*args, target=target)
        assert (args[0].data == 32.0).all()
