"""Signalling NaNs through the cpu profile's conversions between half and float.

The simulator is built by GCC 12 for x86-64, where `static_cast` between `_Float16` and `float` runs libgcc's
soft-float routines: IEEE 754's conversion, which returns a signalling NaN quiet. Worked by hand from the formats:
half -> float puts the half's 10 significand bits at the top of the float's 23 (shifted left by 13) and sets
the quiet bit (bit 22); float -> half keeps the float's top 10 significand bits (shifted right by 13) and sets the
half's quiet bit (bit 9). NumPy's own conversions keep a signalling NaN signalling (half 0x7C01 -> float
0x7F802000, float 0x7F800001 -> half 0x7C01), which is what the profile did before. Vectors with these values:
tests/data/vectors/edge_tcvt.jsonl.gz, edge_tmov.jsonl.gz, edge_tcolmax.jsonl.gz (made with `--wide`)."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

HALF_IN = [0x7C01, 0x7DFF, 0xFC01, 0x7E00, 0x3C00, 0x0001, 0x8000, 0x7C00]
HALF_TO_FLOAT = [0x7FC02000, 0x7FFFE000, 0xFFC02000, 0x7FC00000, 0x3F800000, 0x33800000, 0x80000000, 0x7F800000]
FLOAT_IN = [0x7F800001, 0x7FBFFFFF, 0xFF800001, 0x7FC00001, 0x3F800000, 0x7F802001, 0x80000000, 0x7F800000]
FLOAT_TO_HALF = [0x7E00, 0x7FFF, 0xFE00, 0x7E00, 0x3C00, 0x7E01, 0x8000, 0x7C00]


def tile(dtype, rows, cols, bits=None, valid=None):
    t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1](*(valid or (rows, cols)))
    if bits is not None:
        raw = np.zeros((rows, cols), np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)
        raw.reshape(-1)[:len(bits)] = bits
        t.data[...] = raw.view(dtype)
    return t


def bits_of(t, n):
    data = t.to_numpy()
    return data.view(np.uint16 if data.dtype.itemsize == 2 else np.uint32).reshape(-1)[:n].tolist()


@pytest.mark.parametrize("rows", [1, 16])  # 16 x 16: large enough for the compiled and batched routes alike
def test_tcvt_half_to_float_quiets_signalling_nans(rows):
    src = tile(np.float16, rows, 16, HALF_IN * rows)
    dst = tile(np.float32, rows, 16)
    ptoisa.TCVT(dst, src, ptoisa.RoundMode.CAST_RINT, target="cpu")
    assert bits_of(dst, 8) == HALF_TO_FLOAT


@pytest.mark.parametrize("rows", [1, 16])
def test_tcvt_float_to_half_quiets_signalling_nans(rows):
    src = tile(np.float32, rows, 16, FLOAT_IN * rows)
    dst = tile(np.float16, rows, 16)
    ptoisa.TCVT(dst, src, ptoisa.RoundMode.CAST_NONE, target="cpu")
    assert bits_of(dst, 8) == FLOAT_TO_HALF


def test_tcvt_half_to_half_keeps_a_signalling_nan():  # static_cast<half>(half) converts nothing
    src = tile(np.float16, 1, 16, HALF_IN)
    dst = tile(np.float16, 1, 16)
    ptoisa.TCVT(dst, src, ptoisa.RoundMode.CAST_RINT, target="cpu")
    assert bits_of(dst, 8) == HALF_IN


def test_converting_tmov_quiets_signalling_nans_both_ways():
    up = tile(np.float32, 1, 16)
    ptoisa.TMOV(up, tile(np.float16, 1, 16, HALF_IN), target="cpu")
    assert bits_of(up, 8) == HALF_TO_FLOAT
    down = tile(np.float16, 1, 16)
    ptoisa.TMOV(down, tile(np.float32, 1, 16, FLOAT_IN), target="cpu")
    assert bits_of(down, 8) == FLOAT_TO_HALF


@pytest.mark.parametrize("op", ["TCOLMAX", "TCOLMIN"])
def test_column_extreme_into_float_quiets_a_signalling_nan_it_keeps(op):
    # row 0 holds the NaNs: the simulator's loop keeps element 0 when nothing compares greater (smaller)
    src = tile(np.float16, 2, 16, HALF_IN + [0x3C00] * 16)
    dst = tile(np.float32, 1, 16)
    getattr(ptoisa, op)(dst, src, target="cpu")
    assert bits_of(dst, 4) == HALF_TO_FLOAT[:4]


def test_row_extreme_into_float_quiets_a_signalling_nan_it_keeps():
    src = tile(np.float16, 16, 16, [0x7C01] + [0x3C00] * 15)  # row 0: a signalling NaN, then ones
    dst = Tile[TileType.Vec, np.float32, 16, 1, BLayout.ColMajor, -1, -1](16, 1)
    ptoisa.TROWMAX(dst, src, tile(np.float16, 16, 16), target="cpu")
    assert bits_of(dst, 1) == [0x7FC02000]


def test_plain_tinsert_float_into_half_quiets_signalling_nans():
    src = tile(np.float32, 1, 16, FLOAT_IN)
    dst = tile(np.float16, 2, 32)
    ptoisa.TINSERT(dst, src, 1, 16, target="cpu")
    assert bits_of(dst, 64)[48:56] == FLOAT_TO_HALF


@pytest.mark.parametrize("rows", [1, 16])
def test_tpack_between_half_and_float_quiets_signalling_nans(rows):
    down = tile(np.float16, rows, 16)
    ptoisa.TPACK(down, tile(np.float32, rows, 16, FLOAT_IN * rows), target="cpu")
    assert bits_of(down, 8) == FLOAT_TO_HALF
    up = tile(np.float32, rows, 16)
    ptoisa.TPACK(up, tile(np.float16, rows, 16, HALF_IN * rows), target="cpu")
    assert bits_of(up, 8) == HALF_TO_FLOAT


def boxed(dtype, rows, cols, bits=None):
    """A Vec tile in 512-byte boxes (Nz): the kernels' general route, not the plain-view one."""
    t = Tile[TileType.Vec, dtype, rows, cols, BLayout.ColMajor, -1, -1, ptoisa.SLayout.RowMajor, 512](rows, cols)
    if bits is not None:
        raw = np.zeros((rows, cols), np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)
        raw.reshape(-1)[:len(bits)] = bits
        t.set_logical(raw.view(dtype))
    return t


def logical_bits(t, n):
    data = t.get_logical() if hasattr(t, "get_logical") else t.to_numpy()
    return np.ascontiguousarray(data).view(np.uint16 if data.dtype.itemsize == 2 else np.uint32).reshape(-1)[:n] \
        .tolist()


def test_boxed_tiles_take_the_same_conversions():
    dst = boxed(np.float32, 16, 16)
    ptoisa.TCVT(dst, boxed(np.float16, 16, 16, HALF_IN), ptoisa.RoundMode.CAST_RINT, target="cpu")
    assert logical_bits(dst, 8) == HALF_TO_FLOAT
    down = boxed(np.float16, 16, 16)
    ptoisa.TPACK(down, boxed(np.float32, 16, 16, FLOAT_IN), target="cpu")
    assert logical_bits(down, 8) == FLOAT_TO_HALF
    top = tile(np.float32, 1, 16)
    ptoisa.TCOLMAX(top, boxed(np.float16, 16, 16, HALF_IN), target="cpu")
    assert bits_of(top, 4) == HALF_TO_FLOAT[:4]


HALF_NEG_CPU = [0xFE01, 0xFFFF, 0x7E01, 0xFE00, 0xBC00, 0x8001, 0x0000, 0xFC00]  # sign flipped, quiet bit set


@pytest.mark.parametrize("shape,valid", [((16, 16), (16, 16)), ((1, 16), (1, 9)), ((4, 16), (4, 16))])
def test_tneg_half_on_cpu_quiets_signalling_nans(shape, valid):
    """C++ `-x` on _Float16: GCC 12 on x86-64 computes it in float (through the quieting conversions); whole
    tiles (one ufunc route), partial ones and the interpreter's route alike. Float keeps the plain sign flip."""
    src = tile(np.float16, *shape, HALF_IN * shape[0], valid=valid)
    dst = tile(np.float16, *shape, valid=valid)
    ptoisa.TNEG(dst, src, target="cpu")
    assert bits_of(dst, 8) == HALF_NEG_CPU
    static = Tile[TileType.Vec, np.float16, 16, 16, BLayout.RowMajor, 16, 16]
    a, b = static(), static()
    a.data[...] = np.array(HALF_IN * 32, np.uint16).reshape(16, 16).view(np.float16)
    ptoisa.TNEG(b, a, target="cpu")
    assert bits_of(b, 8) == HALF_NEG_CPU
    f = tile(np.float32, 1, 16, FLOAT_IN)
    g = tile(np.float32, 1, 16)
    ptoisa.TNEG(g, f, target="cpu")
    assert bits_of(g, 3) == [0xFF800001, 0xFFBFFFFF, 0x7F800001]


@pytest.mark.parametrize("op", ["TSQRT", "TLOG", "TRSQRT", "TEXP"])
def test_half_transcendentals_give_a_signalling_nan_back_quiet(op):
    """std::sqrt(static_cast<double>(x)) and the others: the conversion to double quiets the NaN, whose payload
    comes back (0x7C01 -> 0x7E01, 0xFDFF -> 0xFFFF)."""
    src = tile(np.float16, 1, 16, [0x7C01, 0xFDFF, 0x7E00])
    dst = tile(np.float16, 1, 16)
    getattr(ptoisa, op)(dst, src, target="cpu")
    assert bits_of(dst, 3) == [0x7E01, 0xFFFF, 0x7E00]
