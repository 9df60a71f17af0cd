"""Windows of a wider tile that do not span its rows (PTOAS `pto.subview`; `ptoisa.tile.tile.window`) as operands:
their storage is a 2-D strided view, which the compiled calls (written for flat storages) must never take for a
flat run. Each call gives what the same call gives on plain copies of the windows, writes nothing of the parent
outside the window, and the second call (the cached one) the same again; or it is refused with a PtoError and
nothing changes. A compiled path that flattened a window's storage raised ValueError or IndexError here."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, CmpMode, MaskPattern, RoundMode, Tile, TileType
from ptoisa.tile.tile import WindowTile, window

F32 = np.float32


def _spec(dtype, rows, cols, layout=BLayout.RowMajor):
    return Tile[TileType.Vec, dtype, rows, cols, layout]().spec


def _tile(dtype, rows, cols, seed, layout=BLayout.RowMajor):
    t = Tile[TileType.Vec, dtype, rows, cols, layout]()
    values = np.random.default_rng(seed).uniform(-4, 4, (rows, cols))
    t.set_logical(values if np.dtype(dtype).kind == "f" else np.abs(values).astype(np.int64))
    return t


COL = _spec(F32, 16, 1, BLayout.ColMajor)
CALLS = {  # name: (call, operands as (dtype, cols) of 16-row tiles, which operand positions are windows)
    "TADD": (lambda d, a, b: ptoisa.TADD(d, a, b), [(F32, 16)] * 3),
    "TMULS": (lambda d, a: ptoisa.TMULS(d, a, 2.5), [(F32, 16)] * 2),
    "TEXP": (lambda d, a: ptoisa.TEXP(d, a), [(F32, 16)] * 2),
    "TPARTMUL": (lambda d, a, b: ptoisa.TPARTMUL(d, a, b), [(F32, 16)] * 3),
    "TEXPANDS": (lambda d: ptoisa.TEXPANDS(d, 1.5), [(F32, 16)]),
    "TCVT": (lambda d, a: ptoisa.TCVT(d, a, RoundMode.CAST_RINT), [(np.float16, 16), (F32, 16)]),
    "TCMPS": (lambda d, a: ptoisa.TCMPS(d, a, 0.0, CmpMode.GT), [(np.uint8, 32), (F32, 16)]),
    "TGATHER index": (lambda d, a, i: ptoisa.TGATHER(d, a, i), [(F32, 16), (F32, 16), (np.int32, 16)]),
    "TGATHER mask": (lambda d, a: ptoisa.TGATHER(d, a, MaskPattern.P0101), [(F32, 8), (F32, 16)]),
}


def _cases():
    for name, (_, operands) in CALLS.items():
        for position in range(len(operands)):
            if (name, position) != ("TCMPS", 0):  # a byte dst window: in the TCMPS tests (its valid width differs)
                yield name, position


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("name,position", list(_cases()))
def test_a_window_operand_gives_what_a_plain_copy_gives(target, name, position):
    call, operands = CALLS[name]
    dtype, cols = operands[position]
    parent = _tile(dtype, 16, 2 * cols + 32 // np.dtype(dtype).itemsize, 99)  # rows of whole 32-byte blocks
    spec = _spec(dtype, 16, cols)
    win = window(parent, spec, 0, 8)
    assert type(win) is WindowTile
    plain = [_tile(d, 16, c, seed) for seed, (d, c) in enumerate(operands)]
    if name == "TGATHER index":
        for t in (plain[2],):
            t.set_logical(np.random.default_rng(5).integers(0, 256, (16, 16)))
    win.set_logical(plain[position].data)
    with_window = list(plain)
    with_window[position] = win
    copies = [Tile(t.spec) for t in plain]
    for c, t in zip(copies, plain, strict=True):
        c.storage[...] = t.storage
    outside = parent.data.copy()
    outside[:, 8:8 + cols] = 0
    with warnings.catch_warnings(), ptoisa.target(target):
        warnings.simplefilter("ignore")
        try:
            call(*copies)
            expected = copies[0].data.copy()
        except ptoisa.PtoError:
            return  # refused on plain tiles too
        for _ in range(2):
            before = parent.storage.tobytes()
            try:
                call(*with_window)
            except ptoisa.PtoError:
                assert parent.storage.tobytes() == before
                continue
            assert with_window[0].data.tobytes() == expected.tobytes()
            rest = parent.data.copy()
            rest[:, 8:8 + cols] = 0
            assert rest.tobytes() == outside.tobytes()
