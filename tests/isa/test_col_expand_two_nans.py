"""TCOLEXPANDADD / TCOLEXPANDMUL (and the other float column-expand ufuncs) on a strided valid region: where
src0 and src1 are both NaN, the compiled call gives the general kernel's bytes.

NumPy's add and multiply, written in place into a strided region with a broadcast row, may return the second
operand's NaN (they reorder commutative operands), while the general kernel, which computes into a new array,
returns src0's. Found by tests/fuzz/test_compiled_vs_plain.py (TCOLEXPANDADD on a5, 19x48 float tiles with valid
shape (3, 47)); the compiled call now makes the general kernel's NumPy call for float regions that are not whole
rows of row-major tiles.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptoisa import BLayout, Tile, TileType
from ptoisa.isa import vector  # noqa: F401 - registers the records
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import resolve

NAMES = ("TCOLEXPANDADD", "TCOLEXPANDMUL", "TCOLEXPANDSUB", "TCOLEXPANDDIV", "TCOLEXPANDMAX", "TCOLEXPANDMIN")
QNAN, NEG_QNAN, PAYLOAD = 0x7FC00000, 0xFFC00000, 0x7FC00001


def _tiles(dynamic: bool, shape: tuple[int, int], valid: tuple[int, int], aliased: bool):
    rows, cols = shape
    vr, vc = valid
    spec = Tile[TileType.Vec, np.float32, rows, cols, BLayout.RowMajor, *((-1, -1) if dynamic else valid)]
    make = (lambda: spec(vr, vc)) if dynamic else spec
    dst, src0, src1 = make(), make(), make()
    rng = np.random.default_rng(7)
    for t in (dst, src0, src1):
        t.storage[:] = rng.standard_normal(t.storage.size).astype(np.float32)
    bits0, bits1 = src0.storage.view(np.uint32), src1.storage.view(np.uint32)
    bits1[:cols] = PAYLOAD  # src1's first row: NaNs with a payload
    for i in range(vr):  # src0: NaNs of both signs under them, and numbers
        bits0[i * cols: i * cols + vc: 3] = NEG_QNAN if i % 2 else QNAN
    return (src0, src0, src1) if aliased else (dst, src0, src1)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("shape,valid", [((19, 48), (3, 47)), ((64, 72), (60, 70)), ((8, 64), (8, 64)),
                                         ((4, 16), (4, 9))])
@pytest.mark.parametrize("aliased", [False, True])
def test_compiled_call_gives_the_general_kernels_nan(target, name, dynamic, shape, valid, aliased):
    rec = REGISTRY[name]
    config = resolve(target)
    results = []
    for compiled in (True, True, False):
        args = _tiles(dynamic, shape, valid, aliased)
        if compiled:
            rec(*args, target=target)
        else:
            tiles, scalars, attrs, form = rec.bind(config, args, {})
            rec.call(config, tiles, scalars, attrs, form)
        results.append(b"".join(t.tobytes() for t in args))
    assert results[0] == results[2] and results[1] == results[2]
