"""Scratch blocks kept on free lists are taken without testing the list first: another thread may take the last
block between a test and a pop (the GIL can switch there), which then raised IndexError out of an instruction.

A free list that claims to hold blocks and holds none stands for that moment, deterministically: every compiled
call that takes its scratch from a `Spare` must still compute the right bytes (a new block)."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType, half
from ptoisa.isa.vector import _common


class Emptied(list):
    """A free list emptied by another thread right after the caller looked: true, and nothing to pop."""

    def __bool__(self) -> bool:
        return True


@pytest.fixture
def racing_spares(monkeypatch):
    made = []
    original = _common.Spare.__init__

    def init(self, shape, dtype):
        original(self, shape, dtype)
        self.free = Emptied()
        made.append(self)

    monkeypatch.setattr(_common.Spare, "__init__", init)
    return made


def test_spare_take_gives_a_new_block_when_the_list_empties(racing_spares):
    spare = _common.Spare((4, 4), np.float32)
    block = spare.take()
    assert block.shape == (4, 4) and block.dtype == np.float32


def test_texp_staged_block(racing_spares):
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, (8, 24)).astype(np.float32)  # a shape no other test compiles first
    src, dst = Tile[TileType.Vec, float, 8, 24](), Tile[TileType.Vec, float, 8, 24]()
    src.set_logical(x)
    for _ in range(2):
        ptoisa.TEXP(dst, src, target="cpu")
    assert racing_spares, "the compiled call took no Spare: the test does not reach the code it guards"
    assert dst.data.tobytes() == np.exp(x.astype(np.float64)).astype(np.float32).tobytes()


def test_tmatmul_products_block(racing_spares):
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (16, 48)).astype(np.float16)
    b = rng.integers(-3, 4, (48, 32)).astype(np.float16)
    left = Tile[TileType.Left, half, 16, 48, BLayout.ColMajor, 16, 48, SLayout.RowMajor]()
    right = Tile[TileType.Right, half, 48, 32, BLayout.RowMajor, 48, 32, SLayout.ColMajor]()
    acc = Tile[TileType.Acc, float, 16, 32, BLayout.ColMajor, 16, 32, SLayout.RowMajor, 1024]()
    left.set_logical(a)
    right.set_logical(b)
    for _ in range(2):
        ptoisa.TMATMUL(acc, left, right, target="cpu")
    assert racing_spares, "the compiled call took no Spare: the test does not reach the code it guards"
    # small integers: every order of the sums is exact, so NumPy's product is the simulator's
    assert np.array_equal(acc.data, a.astype(np.float32) @ b.astype(np.float32))
