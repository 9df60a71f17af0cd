"""The accumulate forms (TMATMUL_ACC, TGEMV_ACC, TMATMUL_MX_ACC, TGEMV_MX_ACC): cInMatrix is of cOutMatrix's tile
type. Every backend declares `TileRes &cOutMatrix, TileRes &cInMatrix` (include/pto/cpu/TMatmul.hpp, npu/a2a3 and
npu/a5 TMatmul.hpp, common/pto_instr.hpp), one deduced type, so a cIn of any other type (another shape, fractal
size or static valid size) does not compile; for the six-tile MX call C++ then picks the bias overload, whose
static_asserts fail (checked with g++ against the simulator). ptoisa refuses it with an IllegalInstructionError
on cInMatrix, every byte unchanged. Before, a cIn of another shape crashed the kernel with NumPy's ValueError
(TMATMUL_ACC found by tests/fuzz/test_compiled_vs_plain.py: a2a3, cOut 32x32, cIn 32x16; the MX forms the
same), and one of another fractal size or valid size was read in its own layout.

Of one type, two tiles with run-time valid sizes may hold different ones: C++ cannot tell, and the simulator reads
cIn at (i, j) for i < M, j < N whatever they are; ptoisa too (the last test, values worked from TMatmulNzZn and
TMatmulMX: C_out[i, j] = C_in[i, j] + sum)."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, IllegalInstructionError, SLayout, Tile, TileType
from ptoisa.errors import ErratumWarning
from ptoisa.tile.layout import offset_table

E4M3, E8M0 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu


def acc(rows, cols, vr=None, vc=None, fractal=512):
    return Tile[TileType.Acc, np.float32, rows, cols, BLayout.ColMajor, rows if vr is None else vr,
                cols if vc is None else vc, SLayout.RowMajor, fractal]


def operands(name, rows):
    """A and B (and the MX scales) for a 32-column C with `rows` rows, filled with ones (scales 2^0)."""
    if "MX" in name:
        a = Tile[TileType.Left, E4M3, rows, 64, BLayout.ColMajor, rows, 64, SLayout.RowMajor]()
        b = Tile[TileType.Right, E4M3, 64, 32, BLayout.RowMajor, 64, 32, SLayout.ColMajor]()
        sa = Tile[TileType.ScaleLeft, E8M0, rows, 2, BLayout.RowMajor, rows, 2, SLayout.RowMajor, 32]()
        sb = Tile[TileType.ScaleRight, E8M0, 2, 32, BLayout.ColMajor, 2, 32, SLayout.ColMajor, 32]()
        a.storage.view(np.uint8)[:] = 0x38  # 1.0 in e4m3
        b.storage.view(np.uint8)[:] = 0x38
        sa.storage.view(np.uint8)[:] = 127  # 2^0
        sb.storage.view(np.uint8)[:] = 127
        return [a, sa, b, sb]
    a = Tile[TileType.Left, np.float32, rows, 32, BLayout.ColMajor, rows, 32, SLayout.RowMajor]()
    b = Tile[TileType.Right, np.float32, 32, 32, BLayout.RowMajor, 32, 32, SLayout.ColMajor]()
    a.storage[:] = 1.0
    b.storage[:] = 1.0
    return [a, b]


FORMS = [("TMATMUL_ACC", ("a2a3", "a5", "cpu")), ("TGEMV_ACC", ("a2a3", "a5", "cpu")),
         ("TMATMUL_MX_ACC", ("a5", "cpu")), ("TGEMV_MX_ACC", ("a5", "cpu"))]
OTHER_TYPES = {
    "cols": (lambda rows: acc(rows, 16), "Cols 16 against 32"),
    "rows": (lambda rows: acc(16 if rows == 1 else 64, 32), "Rows"),
    "fractal": (lambda rows: acc(rows, 32, fractal=1024), "SFractalSize 1024 against 512"),
    "static valid": (lambda rows: acc(rows, 32, rows, 16), "ColValid 16 against 32"),
    "dynamic valid": (lambda rows: acc(rows, 32, -1, -1), "RowValid -1 against"),
}


@pytest.mark.parametrize("name, targets", FORMS)
@pytest.mark.parametrize("other", sorted(OTHER_TYPES))
def test_a_cin_of_another_tile_type_is_refused_before_any_byte_changes(name, targets, other):
    rows = 1 if "GEMV" in name else 32
    make, words = OTHER_TYPES[other]
    c_in_type = make(rows)
    c_out = acc(rows, 32)()
    c_in = c_in_type(rows, 32) if c_in_type.dynamic_row else c_in_type()
    tiles = [c_out, c_in, *operands(name, rows)]
    c_out.storage[:] = 3.0
    c_in.storage[:] = 1.0
    before = [t.storage.tobytes() for t in tiles]
    for target in targets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(IllegalInstructionError) as info:
                getattr(ptoisa, name)(*tiles, target=target)
        assert info.value.operand == "cInMatrix", str(info.value)
        assert "tile type" in str(info.value) and words in str(info.value), str(info.value)
        assert [t.storage.tobytes() for t in tiles] == before


@pytest.mark.parametrize("name, targets", [("TMATMUL_MX", ("a5", "cpu")), ("TGEMV_MX", ("a5", "cpu"))])
def test_the_one_name_mx_call_with_another_acc_type_second_is_refused(name, targets):
    """TMATMUL_MX(c, c_in, a, sa, b, sb) with an Acc tile second resolves to the accumulate form, which refuses a
    cIn of another type (C++ refuses it too, through the bias overload's static_asserts)."""
    rows = 1 if "GEMV" in name else 32
    tiles = [acc(rows, 32)(), acc(rows, 32, fractal=1024)(), *operands(name, rows)]
    before = [t.storage.tobytes() for t in tiles]
    for target in targets:
        with pytest.raises(IllegalInstructionError) as info:
            getattr(ptoisa, name)(*tiles, target=target)
        assert info.value.operand == "cInMatrix"
        assert [t.storage.tobytes() for t in tiles] == before


@pytest.mark.parametrize("name, targets", FORMS)
def test_two_run_time_valid_tiles_of_one_type_are_accepted_and_cin_is_read_over_m_x_n(name, targets):
    """cOut and cIn of one type `Tile<Acc, float, R, 32, ColMajor, -1, -1, RowMajor>` with different run-time
    valid sizes (cIn's smaller than M x N): C_out[i, j] = C_in[i, j] + K for i < M, j < N (A and B all ones, K
    products of 1 summed exactly, the MX scales 2^0), cIn read past its own valid region as the simulator does;
    the rest of C_out is unchanged."""
    rows = 1 if "GEMV" in name else 32
    kind = acc(rows, 32, -1, -1)
    c_out, c_in = kind(rows, 32), kind(1, 5)
    c_in.storage[:] = np.arange(c_in.storage.size, dtype=np.float32)
    ops = operands(name, rows)
    k = 64 if "MX" in name else 32
    for target in targets:
        c_out.storage[:] = -7.0
        if target == "cpu":
            getattr(ptoisa, name)(c_out, c_in, *ops, target=target)
            base = logical(c_in)[:rows, :32]
        else:  # the backends add to cOut's own values (erratum tmatmul_acc_ignores_cin), named since they differ
            with pytest.warns(ErratumWarning, match="tmatmul_acc_ignores_cin"):
                getattr(ptoisa, name)(c_out, c_in, *ops, target=target)
            base = np.full((rows, 32), -7.0, np.float32)
        want = np.full((rows, 32), -7.0, np.float32)
        want[:rows, :32] = base + np.float32(k)
        assert np.array_equal(logical(c_out), want), target


def logical(tile):
    """Every element of the tile's storage at its (row, col), valid or not."""
    return tile.storage[offset_table(tile.spec)]


@pytest.mark.parametrize("name, targets", FORMS)
def test_the_npus_add_the_product_to_cout_and_never_read_cin(name, targets):
    """Every backend's accumulate form passes only cOutMatrix.data() to the cube (a2a3/a5 TMatmul.hpp: TMatmul
    with cmatrixInitVal false), which adds A x B to what C holds; the simulator computes C_in + A x B. With C =
    10, cIn = 1 and A, B all ones (a sum of K): 10 + K on a2a3/a5 (erratum tmatmul_acc_ignores_cin, named), 1 + K
    on cpu and with errata off; cIn passed as cOut itself, or holding cOut's values, is the same on every target
    and names nothing."""
    rows = 1 if "GEMV" in name else 32
    k = np.float32(64 if "MX" in name else 32)
    kind = acc(rows, 32)
    ops = operands(name, rows)
    for target in targets:
        c_out, c_in = kind(), kind()
        c_in.storage[:] = 1.0
        for errata in (True, False):
            c_out.storage[:] = 10.0
            npu = target != "cpu" and errata
            with ptoisa.target(target, errata=errata), warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                getattr(ptoisa, name)(c_out, c_in, *ops)
            assert np.all(c_out.storage == (10.0 if npu else 1.0) + k), (target, errata)
            assert [str(w.message) for w in seen if "tmatmul_acc_ignores_cin" in str(w.message)] != [] if npu \
                else not seen, (target, errata, [str(w.message) for w in seen])
            assert np.all(c_in.storage == 1.0)
        for same in (c_out, None):
            c_out.storage[:] = 10.0
            c_in.storage[:] = 10.0
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                getattr(ptoisa, name)(c_out, c_out if same is not None else c_in, *ops, target=target)
            assert np.all(c_out.storage == 10.0 + k), target
