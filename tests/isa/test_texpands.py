"""TEXPANDS: seed examples, Vec/Mat/conv fills on every target, errata, scalar conversion and every legality rule.

Expected values come from the seed (fill the valid region of a Vec tile, the whole Rows x Cols of a Mat tile,
the conv shape of a conv tile), DECISIONS 10 and reference-facts 8 (cpu Mat valid-only erratum; a2a3
static-valid contiguous fill and 8-bit pair fill), computed independently of ptoisa kernels.
"""

from __future__ import annotations

import warnings
from math import prod

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    TASSIGN,
    TEXPANDS,
    BLayout,
    ConvTile,
    ErratumWarning,
    IllegalInstructionError,
    Layout,
    NPU_MEMORY_CLEAR,
    PtoWarning,
    RecordEvent,
    SLayout,
    Tile,
    TileType,
    bfloat16_t,
    float8_e4m3_t,
    float8_e5m2_t,
    half,
    int8_t,
    int16_t,
    int32_t,
    uint8_t,
    uint16_t,
    uint32_t,
)

# These tests convert out-of-range scalars on purpose; the warning that says so is tested in test_narrowing.py.
pytestmark = pytest.mark.filterwarnings("ignore::ptoisa.errors.NarrowingWarning")


TARGETS = ("a2a3", "a5", "cpu")
NINE = (uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, half, bfloat16_t, float)
NINE_TEXT = "uint8, int8, uint16, int16, uint32, int32, half, bfloat16, float"
CPU_NINE_TEXT = "int8, uint8, int16, uint16, int32, uint32, half, bfloat16, float"


def dt(x):
    return ptoisa.dtypes.as_dtype(x)


def per_row(dtype):
    return 32 // dt(dtype).itemsize


def sentinel(tile, byte=0xA5):
    tile.storage.view(np.uint8)[:] = byte
    return tile.storage.copy()


def quiet(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if issubclass(w.category, PtoWarning)]


def value_of(dtype, v):
    return np.array(v).astype(dt(dtype).np)


# --- seed examples -----------------------------------------------------------------------------------------
TileT = Tile[TileType.Vec, float, 16, 16]


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_auto(target):
    dst = TileT()
    dst.storage[:] = 3.5
    ev = TEXPANDS(dst, 0.0, target=target)
    assert isinstance(ev, RecordEvent) and ev.op == "TEXPANDS" and ev.pipe == "PIPE_V"
    assert dst.storage.tolist() == [0.0] * 256
    assert not np.signbit(dst.storage).any()


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_manual(target):
    NPU_MEMORY_CLEAR(target=target)
    # Put garbage at UB 0x1000 through another tile first, then fill through the seed's tile.
    garbage = Tile[TileType.Vec, uint8_t, 1, 1024 + 64]()
    TASSIGN(garbage, 0x1000 - 32, target=target)
    garbage.storage[:] = 0xFF
    dst = TileT()
    TASSIGN(dst, 0x1000, target=target)
    TEXPANDS(dst, 0.0, target=target)
    assert dst.storage.tolist() == [0.0] * 256
    # Exactly the tile's 1024 bytes changed in the buffer, nothing around them.
    assert garbage.storage[:32].tolist() == [0xFF] * 32
    assert garbage.storage[32:32 + 1024].tolist() == [0] * 1024
    assert garbage.storage[32 + 1024:].tolist() == [0xFF] * 32


# --- Vec fills ------------------------------------------------------------------------------------------------
SCALARS = {uint8_t: 200, int8_t: -100, uint16_t: 60000, int16_t: -12345, uint32_t: 4000000000,
           int32_t: -2000000000, half: -1.5, bfloat16_t: 3.0, float: 0.1}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", NINE)
def test_vec_full_tile_every_dtype(target, dtype):
    cols = per_row(dtype) * 2
    dst = Tile[TileType.Vec, dtype, 4, cols]()
    sentinel(dst)
    _, warns = quiet(lambda: TEXPANDS(dst, SCALARS[dtype], target=target))
    assert warns == []
    want = value_of(dtype, SCALARS[dtype])
    assert dst.storage.tobytes() == np.full(4 * cols, want).tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [float, int32_t, half, int16_t, uint16_t, bfloat16_t])
def test_vec_dynamic_valid_rectangle(target, dtype):
    cols = per_row(dtype) * 2
    T = Tile[TileType.Vec, dtype, 5, cols, BLayout.RowMajor, -1, -1]
    dst = T(3, 5)
    before = sentinel(dst).reshape(5, cols)
    _, warns = quiet(lambda: TEXPANDS(dst, 7, target=target))
    assert warns == []
    want = before.copy()
    want[:3, :5] = value_of(dtype, 7)
    assert dst.storage.reshape(5, cols).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
def test_vec_col_major(target):
    """Col-major Vec tiles are supported on both NPUs (seed) and the CPU; the fill covers the valid rectangle."""
    T = Tile[TileType.Vec, float, 16, 4, BLayout.ColMajor, -1, -1]
    dst = T(5, 3)
    sentinel(dst)
    TEXPANDS(dst, 2.0, target=target)
    logical = dst.storage.reshape(4, 16).T   # DN: offset c*Rows + r
    assert (logical[:5, :3] == 2.0).all()
    raw = dst.storage.view(np.uint32).reshape(4, 16).T
    assert (raw[5:, :] == 0xA5A5A5A5).all() and (raw[:, 3:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("target", TARGETS)
def test_vec_boxed_nz_through_layout(target):
    """A boxed Vec tile is filled through its layout (the contract; the NPUs' plain fill of boxed tiles is the
    erratum texpands_boxed_plain, tested below): float NZ 32x16 (16x8 boxes)."""
    T = Tile[TileType.Vec, float, 32, 16, BLayout.ColMajor, -1, -1, SLayout.RowMajor]
    dst = T(17, 9)
    sentinel(dst)
    TEXPANDS(dst, 1.0, target=ptoisa.targets.make_config(target, errata=False))
    filled = {i for i in range(512) if dst.storage[i] == 1.0}

    def nz(r, c):  # C*Rows*8 + R*128 + ir*8 + ic
        return (c // 8) * 32 * 8 + (r // 16) * 128 + (r % 16) * 8 + c % 8

    assert filled == {nz(r, c) for r in range(17) for c in range(9)}
    assert {384, 256, 8, 0} <= filled and 136 not in filled   # (16,8) (0,8) (1,0) (0,0); (17,0) is outside


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_fills_a_boxed_vec_tile_as_plain_storage(target):
    """Audit D11: a2a3/TExpandS.hpp and a5/TExpandS.hpp:44-57 address a Vec dst by RowStride (row-major) or
    ColStride (col-major) alone, so an NZ float 16x8 tile with valid 2x8 gets column j's first two elements at
    storage j * 16 + {0, 1}, not the first 16 elements its boxes would hold."""
    T = Tile[TileType.Vec, float, 16, 8, BLayout.ColMajor, 2, 8, SLayout.RowMajor]
    dst = T()
    with pytest.warns(ptoisa.ErratumWarning, match="texpands_boxed_plain"):
        TEXPANDS(dst, 1.0, target=target)
    assert np.flatnonzero(dst.storage).tolist() == [16 * j + i for j in range(8) for i in range(2)]


@pytest.mark.parametrize("target,dtype,glob,tile,valid", [
    (t, d, g, ti, v) for t in TARGETS for d, g, ti, v in [
        (float, (60, 60), (64, 64), (60, 60)), (int32_t, (60, 60), (64, 64), (60, 60)),
        (half, (1, 3600), (2, 4096), (1, 3600)), (int16_t, (16, 200), (20, 512), (16, 200)),
        (int8_t, (16, 200), (20, 512), (16, 200)), (bfloat16_t, (1, 3600), (2, 4096), (1, 3600)),
    ]
])
def test_reference_test_shapes(target, dtype, glob, tile, valid):
    """The reference tests (reference-facts 8.4): scalar over the valid region, the rest untouched."""
    T = Tile[TileType.Vec, dtype, tile[0], tile[1], BLayout.RowMajor, -1, -1]
    dst = T(*valid)
    dst.storage[:] = 0
    TEXPANDS(dst, 5, target=target)
    want = np.zeros(tile, dtype=dt(dtype).np)
    want[:valid[0], :valid[1]] = 5
    assert dst.storage.reshape(tile).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
def test_boxed_vec_tile_with_short_rows_is_refused_cleanly(target):
    # ZZ, 16x8 boxes, 4 rows: the second box column would start at element 128 of a 64-element storage.
    dst = Tile[TileType.Vec, float, 4, 16, BLayout.RowMajor, 4, 16, SLayout.RowMajor]()
    before = dst.tobytes()
    with pytest.raises(ptoisa.IllegalInstructionError, match="ZZ layout with 4 rows .* past the tile's storage"):
        TEXPANDS(dst, 1.0, target=target)
    assert dst.tobytes() == before


# --- a2a3 errata on Vec tiles ----------------------------------------------------------------------------------
def test_a2a3_static_valid_contiguous_erratum_row_major():
    T = Tile[TileType.Vec, float, 4, 16, BLayout.RowMajor, 2, 8]
    dst = T()
    sentinel(dst)
    with pytest.warns(ErratumWarning, match="TEXPANDS on a2a3: erratum texpands_static_valid_contiguous"):
        TEXPANDS(dst, 9.0, target="a2a3")
    raw = dst.storage.view(np.uint32)
    assert (dst.storage[:16] == 9.0).all()                 # first 2*8 storage elements = row 0 entirely
    assert (raw[16:] == 0xA5A5A5A5).all()                  # row 1 (and beyond) untouched


def test_a2a3_static_valid_contiguous_erratum_col_major():
    T = Tile[TileType.Vec, float, 16, 4, BLayout.ColMajor, 8, 2]
    dst = T()
    sentinel(dst)
    with pytest.warns(ErratumWarning, match="texpands_static_valid_contiguous"):
        TEXPANDS(dst, 9.0, target="a2a3")
    assert (dst.storage[:16] == 9.0).all()                 # column 0 entirely (16 rows)
    assert (dst.storage.view(np.uint32)[16:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("errata", [False, {"texpands_b8_pairs"}])
def test_a2a3_static_valid_contiguous_errata_off(errata):
    T = Tile[TileType.Vec, float, 4, 16, BLayout.RowMajor, 2, 8]
    dst = T()
    sentinel(dst)
    with ptoisa.target("a2a3", errata=errata):
        _, warns = quiet(lambda: TEXPANDS(dst, 9.0))
    assert warns == []
    logical = dst.storage.reshape(4, 16)
    assert (logical[:2, :8] == 9.0).all()
    assert (dst.storage.view(np.uint32).reshape(4, 16)[:2, 8:] == 0xA5A5A5A5).all()
    assert (dst.storage.view(np.uint32).reshape(4, 16)[2:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_static_valid_rectangle_on_other_targets(target):
    T = Tile[TileType.Vec, float, 4, 16, BLayout.RowMajor, 2, 8]
    dst = T()
    sentinel(dst)
    _, warns = quiet(lambda: TEXPANDS(dst, 9.0, target=target))
    assert warns == []
    assert (dst.storage.reshape(4, 16)[:2, :8] == 9.0).all()
    assert (dst.storage.view(np.uint32).reshape(4, 16)[:, 8:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("spec_args", [
    (4, 16, BLayout.RowMajor, 1, 8),     # one valid row: the contiguous fill is the rectangle
    (4, 16, BLayout.RowMajor, 2, 16),    # full width: same
    (4, 16, BLayout.RowMajor, -1, -1),   # dynamic: rectangle fill
])
def test_a2a3_contiguous_erratum_silent_when_result_same(spec_args):
    r, c, bl, vr, vc = spec_args
    T = Tile[TileType.Vec, float, r, c, bl, vr, vc]
    dst = T(2, 8) if vr == -1 else T()
    sentinel(dst)
    _, warns = quiet(lambda: TEXPANDS(dst, 4.0, target="a2a3"))
    assert warns == []
    vr_, vc_ = dst.valid_shape
    assert (dst.storage.reshape(r, c)[:vr_, :vc_] == 4.0).all()
    assert (dst.storage == 4.0).sum() == vr_ * vc_


def test_a2a3_b8_pairs_rows():
    T = Tile[TileType.Vec, int8_t, 2, 32, BLayout.RowMajor, -1, -1]
    dst = T(2, 3)
    sentinel(dst, 0x11)
    with pytest.warns(ErratumWarning, match="texpands_b8_pairs"):
        TEXPANDS(dst, -2, target="a2a3")
    rows = dst.storage.reshape(2, 32)
    assert rows[:, :4].tolist() == [[-2] * 4] * 2            # one extra byte per row: column 3
    assert (rows[:, 4:] == 0x11).all()


def test_a2a3_b8_pairs_single_row_contiguous():
    T = Tile[TileType.Vec, uint8_t, 1, 32, BLayout.RowMajor, 1, -1]
    dst = T(5)
    sentinel(dst, 0x11)
    with pytest.warns(ErratumWarning, match="texpands_b8_pairs"):
        TEXPANDS(dst, 200, target="a2a3")
    assert dst.storage[:6].tolist() == [200] * 6 and (dst.storage[6:] == 0x11).all()


def test_a2a3_b8_pairs_even_count_silent_and_other_targets_exact():
    T = Tile[TileType.Vec, int8_t, 2, 32, BLayout.RowMajor, -1, -1]
    dst = T(2, 4)
    _, warns = quiet(lambda: TEXPANDS(dst, 1, target="a2a3"))
    assert warns == [] and int(dst.storage.sum()) == 8
    for target in ("a5", "cpu"):
        dst = T(2, 3)
        _, warns = quiet(lambda: TEXPANDS(dst, 1, target=target))
        assert warns == [] and dst.storage.reshape(2, 32)[:, :4].tolist() == [[1, 1, 1, 0]] * 2


def test_a2a3_b8_pairs_errata_off():
    T = Tile[TileType.Vec, int8_t, 2, 32, BLayout.RowMajor, -1, -1]
    dst = T(2, 3)
    with ptoisa.target("a2a3", errata=False):
        _, warns = quiet(lambda: TEXPANDS(dst, 1))
    assert warns == [] and dst.storage.reshape(2, 32)[:, :4].tolist() == [[1, 1, 1, 0]] * 2


def test_a2a3_static_valid_contiguous_int8_even():
    T = Tile[TileType.Vec, int8_t, 2, 32, BLayout.RowMajor, 2, 3]
    dst = T()
    with pytest.warns(ErratumWarning, match="texpands_static_valid_contiguous"):
        TEXPANDS(dst, 1, target="a2a3")
    assert dst.storage[:6].tolist() == [1] * 6 and (dst.storage[6:] == 0).all()


# --- Mat tiles ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("dtype,rows,cols", [(half, 128, 128), (int16_t, 32, 64), (float, 32, 32), (int8_t, 32, 32),
                                             (bfloat16_t, 256, 256)])
def test_mat_fills_whole_tile_on_npus(target, dtype, rows, cols):
    T = Tile[TileType.Mat, dtype, rows, cols, BLayout.RowMajor, -1, -1]
    dst = T(3, per_row(dtype))
    sentinel(dst)
    ev, warns = quiet(lambda: TEXPANDS(dst, 3, target=target))
    assert warns == []
    assert ev.op == "TEXPANDS_MAT" and ev.pipe == "PIPE_MTE2"
    assert dst.storage.tobytes() == np.full(rows * cols, value_of(dtype, 3)).tobytes()


def test_mat_cpu_erratum_fills_valid_region_only():
    T = Tile[TileType.Mat, float, 32, 16, BLayout.ColMajor, -1, -1, SLayout.RowMajor]   # NZ, 16x8 boxes
    dst = T(17, 9)
    sentinel(dst)
    with pytest.warns(ErratumWarning, match="TEXPANDS on cpu: erratum texpands_mat_valid_only"):
        TEXPANDS(dst, 6.0, target="cpu")

    def nz(r, c):
        return (c // 8) * 32 * 8 + (r // 16) * 128 + (r % 16) * 8 + c % 8

    assert {i for i in range(512) if dst.storage[i] == 6.0} == {nz(r, c) for r in range(17) for c in range(9)}


def test_mat_cpu_errata_off_fills_whole_tile():
    T = Tile[TileType.Mat, float, 32, 16, BLayout.ColMajor, -1, -1, SLayout.RowMajor]
    dst = T(17, 9)
    sentinel(dst)
    with ptoisa.target("cpu", errata=False):
        _, warns = quiet(lambda: TEXPANDS(dst, 6.0))
    assert warns == [] and (dst.storage == 6.0).all()


def test_mat_cpu_full_valid_is_silent():
    dst = Tile[TileType.Mat, half, 16, 16]()
    _, warns = quiet(lambda: TEXPANDS(dst, 1.0, target="cpu"))
    assert warns == [] and (dst.storage == 1.0).all()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_mat_block_bounds(target):
    ok = Tile[TileType.Mat, float, 1, 262136]()          # exactly 32767 blocks of 32 bytes
    TEXPANDS(ok, 1.0, target=target)
    assert (ok.storage == 1.0).all()
    big = Tile[TileType.Mat, float, 1, 262144]()         # 32768 blocks
    big.storage[:4] = 5.0
    before = big.tobytes()
    with pytest.raises(IllegalInstructionError) as exc:
        TEXPANDS(big, 1.0, target=target)
    assert (exc.value.instr, exc.value.target, exc.value.operand) == ("TEXPANDS", target, "dst")
    assert "Rows * Cols * sizeof(dtype) / 32 must be in [1, 32767] (got 32768)" in str(exc.value)
    assert big.tobytes() == before


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_mat_zero_blocks_rejected(target):
    T = Tile[TileType.Mat, int8_t, 1, 16, BLayout.ColMajor, 1, 16, SLayout.ColMajor, 32]   # 16 bytes
    dst = T()
    dst.storage[:] = 3
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=r"must be in \[1, 32767\] \(got 0\)"):
        TEXPANDS(dst, 1, target=target)
    assert dst.tobytes() == before


def test_mat_block_bound_not_checked_on_cpu():
    big = Tile[TileType.Mat, int8_t, 1, 32768 * 32]()
    TEXPANDS(big, 1, target="cpu")
    assert int(big.storage.sum()) == 32768 * 32


# --- conv tiles ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_conv_nc1hwc0_fills_conv_shape(target):
    shape = (1, 16, 7, 7, 16)
    C = ConvTile[TileType.Mat, half, prod(shape) + 64, Layout.NC1HWC0, shape]
    dst = C()
    sentinel(dst)
    ev, warns = quiet(lambda: TEXPANDS(dst, -0.5, target=target))
    assert warns == [] and ev.op == "TEXPANDS_MAT"
    assert (dst.storage[:prod(shape)] == -0.5).all()
    assert (dst.storage.view(np.uint16)[prod(shape):] == 0xA5A5).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,shape", [(int16_t, (2, 5, 2, 3, 8)), (int32_t, (2, 5, 5, 1, 8)),
                                         (uint32_t, (3, 4, 5, 1, 8))])
def test_conv_reference_shapes(target, dtype, shape):
    dst = ConvTile[TileType.Mat, dtype, prod(shape), Layout.NC1HWC0, shape]()
    TEXPANDS(dst, 11, target=target)
    assert dst.storage.tolist() == [11] * prod(shape)


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("layout", [Layout.NDC1HWC0, Layout.FRACTAL_Z_3D])
def test_conv_6d_fills_all_dims(target, layout):
    shape = (2, 2, 3, 2, 1, 8)
    dst = ConvTile[TileType.Mat, int32_t, 200, layout, shape]()
    sentinel(dst)
    _, warns = quiet(lambda: TEXPANDS(dst, 5, target=target))
    assert warns == []
    assert dst.storage[:192].tolist() == [5] * 192
    assert (dst.storage.view(np.uint32)[192:] == 0xA5A5A5A5).all()


def test_conv_6d_a2a3_erratum_and_off():
    shape = (2, 3, 4, 1, 2, 8)
    C = ConvTile[TileType.Mat, uint32_t, prod(shape), Layout.NDC1HWC0, shape]
    dst = C()
    with pytest.warns(ErratumWarning, match="texpands_conv_5d"):
        TEXPANDS(dst, 5, target="a2a3")
    assert dst.storage[:48].tolist() == [5] * 48 and (dst.storage[48:] == 0).all()
    dst = C()
    with ptoisa.target("a2a3", errata=False):
        _, warns = quiet(lambda: TEXPANDS(dst, 5))
    assert warns == [] and (dst.storage == 5).all()


@pytest.mark.parametrize("target", TARGETS)
def test_conv_dynamic_dim(target):
    C = ConvTile[TileType.Mat, half, 4 * 16 * 7 * 7 * 16, Layout.NC1HWC0, (-1, 16, 7, 7, 16)]
    dst = C(3)
    assert dst.GetShape(0) == 3 and dst.GetShape(5) == -1
    TEXPANDS(dst, 1.0, target=target)
    n = 3 * 16 * 7 * 7 * 16
    assert (dst.storage[:n] == 1.0).all() and (dst.storage[n:] == 0).all()


def assert_fault(call, tiles, target, rule, operand="dst"):
    before = [t.tobytes() for t in tiles]
    with pytest.raises(IllegalInstructionError) as exc:
        call()
    err = exc.value
    assert (err.instr, err.target, err.operand) == ("TEXPANDS", target, operand)
    assert rule in err.rule, err.rule
    assert str(err).startswith(f"TEXPANDS on {target}: {operand} ")
    assert [t.tobytes() for t in tiles] == before


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("layout,shape,dims", [
    (Layout.NC1HWC0, (2, 16, 32, 33, 16), 4), (Layout.FRACTAL_Z, (2, 16, 32, 33, 16), 4),
    (Layout.NDC1HWC0, (2, 16, 32, 33, 1, 16), 5), (Layout.FRACTAL_Z_3D, (1, 2, 128, 128, 1, 16), 5),
])
def test_fault_conv_shape_product(target, layout, shape, dims):
    dst = ConvTile[TileType.Mat, half, prod(shape), layout, shape]()
    sentinel(dst)
    got = prod(shape[:dims])
    assert got > 32767
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target,
                 f"the product of the first {dims} conv dims must be in [1, 32767] (got {got})")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_conv_dynamic_product_checked_at_run_time(target):
    C = ConvTile[TileType.Mat, half, 2 * 16 * 32 * 33 * 16, Layout.NC1HWC0, (-1, 16, 32, 33, 16)]
    ok = C(1)
    TEXPANDS(ok, 2.0, target=target)
    assert (ok.storage[:16 * 32 * 33 * 16] == 2.0).all()
    bad = C(2)
    sentinel(bad)
    assert_fault(lambda: TEXPANDS(bad, 1.0, target=target), [bad], target, "(got 33792)")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_conv_layout(target):
    dst = ConvTile[TileType.Mat, half, 64, Layout.NCHW, (1, 2, 2, 16)]()
    sentinel(dst)
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target,
                 "conv layout NCHW is not supported (allowed: NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_Z_3D)")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_conv_not_mat(target):
    dst = ConvTile[TileType.Vec, half, 64, Layout.NC1HWC0, (1, 1, 2, 2, 16)]()
    sentinel(dst)
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target, "a conv tile must be in Mat (got Vec)")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("layout,shape,need", [(Layout.NC1HWC0, (1, 2, 2, 16), 5),
                                               (Layout.NDC1HWC0, (1, 1, 2, 2, 16), 6)])
def test_fault_conv_too_few_dims(target, layout, shape, need):
    dst = ConvTile[TileType.Mat, half, 64, layout, shape]()
    sentinel(dst)
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target,
                 f"must have at least {need} dims as a {layout.name} conv tile (got {len(shape)})")


# --- legality faults on plain tiles ---------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [float8_e4m3_t, float8_e5m2_t])
@pytest.mark.parametrize("loc", [TileType.Vec, TileType.Mat])
def test_fault_dtype(target, dtype, loc):
    dst = Tile[loc, dtype, 1, 32]()
    sentinel(dst)
    allowed = CPU_NINE_TEXT if target == "cpu" else NINE_TEXT
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target,
                 f"dtype {dt(dtype).cname} is not supported (allowed: {allowed})")


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("loc", [TileType.Left, TileType.Right, TileType.Acc, TileType.Bias, TileType.Scaling])
def test_fault_location_npu(target, loc):
    dst = Tile[loc, float, 16, 8]()
    sentinel(dst)
    assert_fault(lambda: TEXPANDS(dst, 1.0, target=target), [dst], target,
                 f"location {loc.name} is not supported (allowed: Vec, Mat)")


def test_cpu_any_location_fills_valid_region():
    dst = Tile[TileType.Left, float, 16, 8, BLayout.RowMajor, -1, -1](4, 8)
    sentinel(dst)
    TEXPANDS(dst, 1.0, target="cpu")
    assert (dst.storage[:32] == 1.0).all() and (dst.storage.view(np.uint32)[32:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("target", TARGETS)
def test_fault_not_a_tile(target):
    with pytest.raises(IllegalInstructionError) as exc:
        TEXPANDS(np.zeros((2, 8), np.float32), 1.0, target=target)
    assert exc.value.operand == "dst" and "must be a Tile or ConvTile (got ndarray)" in str(exc.value)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,value,rule", [
    (int8_t, 300.0, "value 300.0 does not convert to int8"),
    (uint8_t, -1.0, "value -1.0 does not convert to uint8"),
    (int32_t, float("nan"), "does not convert to int32"),
    (uint32_t, float("inf"), "does not convert to uint32"),
    (int16_t, "abc", "must be a number (got str)"),
    (float, None, "must be a number (got NoneType)"),
])
def test_fault_scalar(target, dtype, value, rule):
    dst = Tile[TileType.Vec, dtype, 2, per_row(dtype)]()
    sentinel(dst)
    assert_fault(lambda: TEXPANDS(dst, value, target=target), [dst], target, rule, operand="scalar")


@pytest.mark.parametrize("target", TARGETS)
def test_events(target):
    dst = Tile[TileType.Vec, float, 1, 8]()
    ev = TEXPANDS(dst, 1.0, target=target)
    ev2 = TEXPANDS(dst, 2.0, ev, target=target)
    assert ev2 is ev and ev.op == "TEXPANDS" and (dst.storage == 2.0).all()
    assert_fault(lambda: TEXPANDS(dst, 3.0, ev, object(), target=target), [dst], target,
                 "must be a RecordEvent returned by an earlier instruction (got object)", operand="wait event #2")


# --- scalar conversion through TEXPANDS --------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,value,want", [
    (int8_t, 300, 44), (int8_t, -129, 127), (uint8_t, -1, 255), (uint16_t, 70000, 4464),
    (int32_t, 2**31, -2**31), (uint32_t, -1, 2**32 - 1),
    (int32_t, -2.9, -2), (int16_t, 2.9, 2), (uint8_t, 255.99, 255), (int8_t, -128.5, -128),
    (int32_t, True, 1),
])
def test_scalar_conversion_to_integers(target, dtype, value, want):
    dst = Tile[TileType.Vec, dtype, 1, per_row(dtype)]()
    TEXPANDS(dst, value, target=target)
    assert dst.storage.tolist() == [want] * per_row(dtype)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # ptoisa lets numpy's overflow warning out (65520 -> inf)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,value,want_bits", [
    (float, 0.1, 0x3DCCCCCD),                  # nearest float to 0.1
    (float, 16777217, 0x4B800000),             # 2^24 + 1 -> tie to even 2^24
    (half, 0.1, 0x2E66),
    (half, 65520.0, 0x7C00),                   # rounds to +inf
    (half, 2049, 0x6800),                      # tie to even: 2048
    (half, -0.0, 0x8000),
    (bfloat16_t, 1.00390625, 0x3F80),          # 1 + 2^-8: tie to even -> 1.0
    (bfloat16_t, 1.01171875, 0x3F82),          # 1 + 3*2^-8: tie -> 1 + 2^-6 (even)
    (bfloat16_t, 3.0, 0x4040),
])
def test_scalar_conversion_to_floats(target, dtype, value, want_bits):
    dst = Tile[TileType.Vec, dtype, 1, per_row(dtype)]()
    TEXPANDS(dst, value, target=target)
    view = np.uint32 if dt(dtype).itemsize == 4 else np.uint16
    assert dst.storage.view(view).tolist() == [want_bits] * per_row(dtype)


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_nan_payload_preserved(target):
    dst = Tile[TileType.Vec, float, 1, 8]()
    TEXPANDS(dst, np.uint32(0x7FC01234).view(np.float32), target=target)
    assert dst.storage.view(np.uint32).tolist() == [0x7FC01234] * 8
    h = Tile[TileType.Vec, half, 1, 16]()
    TEXPANDS(h, np.uint16(0xFE01).view(np.float16), target=target)
    assert h.storage.view(np.uint16).tolist() == [0xFE01] * 16
    b = Tile[TileType.Vec, bfloat16_t, 1, 16]()
    TEXPANDS(b, np.uint16(0x7FC5).view(ml_dtypes.bfloat16), target=target)
    assert b.storage.view(np.uint16).tolist() == [0x7FC5] * 16


# --- property test ---------------------------------------------------------------------------------------------
def texpands_oracle(target, errata, spec, vr, vc, before, value):
    """Reference-facts 8: contract fill, or the a2a3 kernel (pairs, contiguous rule) for dynamic ND/DN Vec tiles."""
    storage = before.copy()
    rows, cols = spec.rows, spec.cols
    row_major = spec.blayout is BLayout.RowMajor
    grid = storage.reshape(rows, cols) if row_major else storage.reshape(cols, rows)
    outer, inner = (vr, vc) if row_major else (vc, vr)
    pairs = target == "a2a3" and errata and spec.dtype.itemsize == 1
    contiguous = target == "a2a3" and errata and (outer == 1)
    if contiguous:
        n = outer * inner
        storage[:n + (n % 2 if pairs else 0)] = value
    else:
        grid[:outer, :inner + (inner % 2 if pairs else 0)] = value
    contract = before.copy()
    cgrid = contract.reshape(rows, cols) if row_major else contract.reshape(cols, rows)
    cgrid[:outer, :inner] = value
    return storage, contract


@settings(max_examples=120, deadline=None)
@given(
    dtype=st.sampled_from(NINE),
    target=st.sampled_from(TARGETS),
    errata=st.booleans(),
    row_major=st.booleans(),
    data=st.data(),
)
def test_property_vec_fill(dtype, target, errata, row_major, data):
    d = dt(dtype)
    per = per_row(dtype)
    if row_major:
        rows, cols = data.draw(st.integers(1, 6)), per * data.draw(st.integers(1, 3))
    else:
        rows, cols = per * data.draw(st.integers(1, 3)), data.draw(st.integers(1, 6))
    vr, vc = data.draw(st.integers(0, rows)), data.draw(st.integers(0, cols))
    layout = BLayout.RowMajor if row_major else BLayout.ColMajor
    dst = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](vr, vc)
    if d.is_float:
        value = data.draw(st.floats(-1000, 1000, width=16 if d.itemsize == 2 else 32))
    else:
        info = np.iinfo(d.np)
        value = data.draw(st.integers(int(info.min), int(info.max)))
    before = sentinel(dst, data.draw(st.integers(0, 255)))
    with ptoisa.target(target, errata=errata):
        _, warns = quiet(lambda: TEXPANDS(dst, value))
    want, contract = texpands_oracle(target, errata, dst.spec, vr, vc, before, np.array(value).astype(d.np))
    assert dst.storage.tobytes() == want.tobytes()
    assert len(warns) == (0 if want.tobytes() == contract.tobytes() else 1)
