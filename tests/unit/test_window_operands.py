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


def _window(dtype, rows, cols, extra, col=0, seed=3):
    parent = _tile(dtype, rows, cols + extra, seed)
    return window(parent, _spec(dtype, rows, cols), 0, col), parent


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tcmps_tile_form_compares_with_a_window_src1s_first_element(target):
    """Found by the fuzzer with windows: the tile form read src1.storage[0], a whole row of a window's 2-D
    storage (NumPy's ValueError)."""
    src1, _ = _window(F32, 1, 8, 8, col=3)
    plain = _tile(F32, 1, 8, 0)
    plain.set_logical(src1.data)
    src0 = _tile(F32, 8, 8, 4)
    bits = Tile[TileType.Vec, np.uint8, 8, 32, BLayout.RowMajor, 8, 1]
    got, expected = bits(), bits()
    with warnings.catch_warnings(), ptoisa.target(target):
        warnings.simplefilter("ignore")
        ptoisa.TCMPS(expected, src0, plain, CmpMode.GT)
        ptoisa.TCMPS(got, src0, src1, CmpMode.GT)
    assert got.storage.tobytes() == expected.storage.tobytes()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("which", ["dst", "src"])
def test_gather_col_under_the_npu_errata_refuses_a_window(target, which):
    """Found by the fuzzer with windows: the NPU column errata address both tiles as plain row-major storage,
    which a window's is not; refused before any byte moves (the contract, errata off, takes the window)."""
    dst, dparent = _window(np.int16, 2, 16, 16) if which == "dst" else (_tile(np.int16, 2, 16, 1), None)
    src, sparent = _window(np.int16, 4, 16, 16) if which == "src" else (_tile(np.int16, 4, 16, 2), None)
    parent = dparent if which == "dst" else sparent
    before = parent.storage.tobytes()
    with warnings.catch_warnings(), ptoisa.target(target):
        warnings.simplefilter("ignore")
        with pytest.raises(ptoisa.NotModelledError, match="window"):
            ptoisa.TGATHER(dst, src, MaskPattern.P0101, ptoisa.GatherAxis.GATHER_COL)
    assert parent.storage.tobytes() == before
    with ptoisa.target(target, errata=False):
        ptoisa.TGATHER(dst, src, MaskPattern.P0101, ptoisa.GatherAxis.GATHER_COL)
    assert dst.data.tobytes() == src.data[::2].tobytes()


def test_tget_scale_addr_on_cpu_refuses_a_window_src():
    """Found by the fuzzer with windows: dst aliases src's bytes on cpu, which a window's are not contiguous."""
    src, parent = _window(F32, 2, 8, 8, col=8)
    dst = Tile[TileType.Vec, np.uint8, 1, 32]()
    before = parent.storage.tobytes(), dst.storage.tobytes()
    with pytest.raises(ptoisa.IllegalInstructionError, match="window"):
        ptoisa.TGET_SCALE_ADDR(dst, src, target="cpu")
    assert (parent.storage.tobytes(), dst.storage.tobytes()) == before


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_the_mask_row_form_refuses_a_window_dst(target):
    """The row form writes its stream through dst's storage, which a window's is not: refused, nothing moves."""
    dst, parent = _window(F32, 16, 8, 8, col=4)
    src = _tile(F32, 16, 16, 6)
    before = parent.storage.tobytes()
    with pytest.raises(ptoisa.NotModelledError, match="writes its stream through dst's storage.*window"):
        ptoisa.TGATHER(dst, src, MaskPattern.P0101, target=target)
    assert parent.storage.tobytes() == before


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("dst_in_parent", [True, False])
def test_index_gather_from_a_window_src0_on_its_general_path(target, dst_in_parent):
    """Found by the fuzzer with windows: with dst sharing src0's bytes (here: another window of the same parent),
    the index form takes its general path, which indexed src0's 2-D window storage with flat positions (NumPy's
    ValueError). The gather reads src0 first, then writes dst."""
    src0, parent = _window(np.int32, 1, 8, 8, col=8)
    dst = window(parent, _spec(np.int32, 1, 8), 0, 0) if dst_in_parent else src0  # both: bytes shared with src0
    indices = _tile(np.int32, 1, 8, 5)
    indices.set_logical(np.array([[7, 0, 3, 3, 6, 1, 2, 5]]))
    expected = src0.data[0, [7, 0, 3, 3, 6, 1, 2, 5]].copy()
    ptoisa.TGATHER(dst, src0, indices, target=target)
    assert dst.data[0].tolist() == expected.tolist()
