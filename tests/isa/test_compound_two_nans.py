"""TADDC / TSUBC / TFUSEDMULADD / TMULADDDST (two ufuncs in a row) on strided valid regions where both operands
of the second step are NaN: the compiled call gives the general kernel's bytes.

NumPy's add on strided arrays written in place may return either operand's NaN (it reorders commutative
operands), so the compiled call's two steps into a scratch array and then dst returned the intermediate's NaN
where the general kernel, computing into new arrays, returned the last source's. Found by
tests/fuzz/test_compiled_vs_plain.py (TSUBC on cpu, 3x48 float tiles, valid (2, 12), dst and src0 windows of
whole rows); on strided float regions the compiled call now makes the general kernel's NumPy calls.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptoisa import BLayout, Tile, TileType
from ptoisa.isa import vector  # noqa: F401 - registers the records
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import resolve

NAMES = {"TADDC": 3, "TSUBC": 3, "TFUSEDMULADD": 2, "TMULADDDST": 2}
NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FC00002, 0xFFC00003, 0x3F800000, 0xC0400000, 0],
                np.uint32)


def _tiles(count: int, dynamic: bool, shape: tuple[int, int], valid: tuple[int, int], seed: int):
    spec = Tile[TileType.Vec, np.float32, *shape, BLayout.RowMajor, *((-1, -1) if dynamic else valid)]
    rng = np.random.default_rng(seed)
    tiles = []
    for _ in range(count + 1):
        t = spec(*valid) if dynamic else spec()
        t.storage.view(np.uint32)[:] = rng.choice(NANS, t.storage.size)
        tiles.append(t)
    return tiles


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("name", sorted(NAMES))
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("shape,valid", [((3, 48), (2, 12)), ((19, 48), (3, 47)), ((8, 64), (8, 64)),
                                         ((40, 40), (33, 33))])
def test_compiled_call_gives_the_general_kernels_nan(target, name, dynamic, shape, valid):
    rec = REGISTRY[name]
    config = resolve(target)
    for seed in range(4):
        results = []
        for compiled in (True, True, False):
            args = _tiles(NAMES[name], dynamic, shape, valid, seed)
            if compiled:
                rec(*args, target=target)
            else:
                tiles, scalars, attrs, form = rec.bind(config, tuple(args), {})
                rec.call(config, tiles, scalars, attrs, form)
            results.append(b"".join(t.tobytes() for t in args))
        assert results[0] == results[2] and results[1] == results[2], f"seed {seed}"


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("name", ["TADDSC", "TSUBSC"])
@pytest.mark.parametrize("scalar", [-0.0, 1.5, float("nan")])
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("shape,valid", [((3, 24), (2, 21)), ((19, 48), (3, 47)), ((8, 64), (8, 64))])
def test_scalar_forms_give_the_general_computations_nan(target, name, scalar, dynamic, shape, valid):
    """TADDSC / TSUBSC: the kernel's own fast path (first(src0, scalar), then + src1 straight into dst) against
    the kernel with it switched off (found by the fuzzer: TADDSC a5, 3x24 float, valid (2, 21), scalar -0.0)."""
    rec = REGISTRY[name]
    config = resolve(target)
    cells = dict(zip(rec.kernel.__code__.co_freevars, rec.kernel.__closure__, strict=True))
    for seed in range(4):
        results = []
        for fast in (True, False):
            dst, src0, src1 = _tiles(2, dynamic, shape, valid, seed)
            saved = cells["fast"].cell_contents
            if not fast:
                cells["fast"].cell_contents = None
            try:
                tiles, scalars, attrs, form = rec.bind(config, (dst, src0, scalar, src1), {})
                rec.call(config, tiles, scalars, attrs, form)
            finally:
                cells["fast"].cell_contents = saved
            results.append(b"".join(t.tobytes() for t in (dst, src0, src1)))
        assert results[0] == results[1], f"seed {seed}"
