"""TAXPY's roundings on the NPUs, worked by hand. A5 runs one register vaxpy (a5/TAxpy.hpp), a fused multiply-add
rounded once; A2/A3 and the simulator round the product to src0's type and then the sum, except that A2/A3's
vaxpy of a half src0 into a float dst multiplies in float. With half y = -(1 + 2^-8), x = 1 + 2^-10 and
a = 1 + 3 * 2^-10, x * a = 1 + 2^-8 + 3 * 2^-20 exactly: rounded to half it is 1 + 2^-8 and the sum is 0; fused, the
sum is 3 * 2^-20 (a half subnormal, 48 * 2^-24). Under a float dst (y = 0) the float product keeps 3 * 2^-20."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import Tile, TileType

Y, X, A = -(1 + 2.0 ** -8), 1 + 2.0 ** -10, 1 + 3 * 2.0 ** -10


def _axpy(target: str, dst_type, y: float) -> float:
    with ptoisa.target(target):
        dst = Tile[TileType.Vec, dst_type, 1, 16]()
        src = Tile[TileType.Vec, np.float16, 1, 16]()
        dst.set_logical(np.full((1, 16), y, dst_type))
        src.set_logical(np.full((1, 16), X, np.float16))
        ptoisa.TAXPY(dst, src, np.float16(A))
    return float(dst.data[0, 0])


@pytest.mark.parametrize("target,want", [("a5", 3 * 2.0 ** -20), ("a2a3", 0.0), ("cpu", 0.0)])
def test_half_axpy_rounds_once_on_a5(target, want):
    assert _axpy(target, np.float16, Y) == want


@pytest.mark.parametrize("target,want", [("a5", 1 + 2.0 ** -8 + 3 * 2.0 ** -20), ("a2a3", 1 + 2.0 ** -8 + 3 * 2.0 ** -20),
                                         ("cpu", 1 + 2.0 ** -8)])
def test_half_source_under_a_float_dst(target, want):
    assert _axpy(target, np.float32, 0.0) == want


def test_a5_float_axpy_settles_a_double_on_a_midpoint():
    """y = 1 + 2^-23, x = 2^-24 (1 + 2^-23), a = 1 - 2^-23: the exact sum 1 + 2^-23 + 2^-24 - 2^-70 is just below the
    midpoint between 1 + 2^-23 and 1 + 2^-22, so it rounds to 1 + 2^-23; its double is the midpoint itself, which
    rounded again (ties to even) would give 1 + 2^-22."""
    with ptoisa.target("a5"):
        dst, src = Tile[TileType.Vec, np.float32, 1, 8](), Tile[TileType.Vec, np.float32, 1, 8]()
        dst.set_logical(np.full((1, 8), 1 + 2.0 ** -23, np.float32))
        src.set_logical(np.full((1, 8), 2.0 ** -24 * (1 + 2.0 ** -23), np.float32))
        ptoisa.TAXPY(dst, src, np.float32(1 - 2.0 ** -23))
    assert float(dst.data[0, 0]) == 1 + 2.0 ** -23
