"""The tile model: Tile<...> defaults, the compile-time rules of reference-facts 1.3, physical offsets (1.5),
runtime valid sizes and constructors (1.4), raw bytes and ConvTile (1.6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptoisa import (
    DYNAMIC,
    BLayout,
    CompactMode,
    ConvTile,
    Layout,
    PadValue,
    SLayout,
    Tile,
    TileSpec,
    TileSpecError,
    TileType,
    bfloat16_t,
    half,
    int8_t,
    int16_t,
    int32_t,
    uint8_t,
)
from ptoisa.dtypes import DType
from ptoisa.tile import element_offset, offset_table

# --- enums mirror the reference's numeric values (reference-facts 2) --------------------------------------------


def test_enum_values():
    assert [t.value for t in TileType] == list(range(10))
    assert [t.name for t in TileType] == ["Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft",
                                          "ScaleRight", "Ctrl"]
    assert (BLayout.RowMajor, BLayout.ColMajor) == (0, 1)
    assert (SLayout.NoneBox, SLayout.RowMajor, SLayout.ColMajor) == (0, 1, 2)
    assert (PadValue.Null, PadValue.Zero, PadValue.Max, PadValue.Min) == (0, 1, 2, 3)
    assert (CompactMode.Null, CompactMode.Normal, CompactMode.RowPlusOne, CompactMode.RowAlignedPadding) == (0, 1, 2, 3)
    assert (Layout.ND, Layout.DN, Layout.NZ, Layout.NC1HWC0, Layout.NCHW, Layout.NDC1HWC0, Layout.FRACTAL_Z,
            Layout.FRACTAL_Z_3D) == (0, 1, 2, 12, 14, 17, 19, 21)
    assert DYNAMIC == -1


# --- defaults (reference-facts 1.1) --------------------------------------------------------------------------------
def test_defaults_mirror_tile_template():
    spec = Tile[TileType.Vec, float, 16, 32]
    assert isinstance(spec, TileSpec)
    assert spec.loc is TileType.Vec and spec.dtype is DType.F32
    assert (spec.rows, spec.cols) == (16, 32)
    assert spec.blayout is BLayout.RowMajor
    assert (spec.valid_row, spec.valid_col) == (16, 32)       # ValidRow = Rows, ValidCol = Cols
    assert spec.slayout is SLayout.NoneBox
    assert spec.fractal_size == 512
    assert spec.pad is PadValue.Null and spec.compact is CompactMode.Null
    assert spec == Tile[TileType.Vec, float, 16, 32, BLayout.RowMajor, 16, 32, SLayout.NoneBox, 512, PadValue.Null,
                        CompactMode.Null]
    assert hash(spec) == hash(Tile[TileType.Vec, "float", 16, 32, BLayout.RowMajor, 16, 32])
    assert spec != Tile[TileType.Vec, float, 16, 32, BLayout.RowMajor, -1, -1]
    assert spec.numel == 512 and spec.nbytes == 2048 and spec.is_row_major and not spec.is_boxed
    assert spec.layout_name == "ND"


def test_valid_defaults_follow_rows_cols_only_when_omitted():
    spec = Tile[TileType.Vec, half, 4, 16, BLayout.RowMajor, 2]
    assert (spec.valid_row, spec.valid_col) == (2, 16)


def test_too_few_or_too_many_template_arguments():
    with pytest.raises(TileSpecError, match="needs at least TileType, DType, Rows, Cols"):
        Tile[TileType.Vec, float, 4]
    with pytest.raises(TileSpecError, match="at most 11 template arguments"):
        Tile[TileType.Vec, float, 1, 8, 0, 1, 8, 0, 512, 0, 0, 0]


def test_unknown_enum_values_and_non_integers():
    with pytest.raises(TileSpecError, match="unknown location"):
        Tile["Nowhere", float, 1, 8]
    with pytest.raises(TileSpecError, match="unknown BLayout"):
        Tile[TileType.Vec, float, 1, 8, 7]
    with pytest.raises(TileSpecError, match="unknown element type 'nope'"):
        Tile[TileType.Vec, "nope", 1, 8]
    with pytest.raises(TileSpecError, match="rows must be an integer"):
        Tile[TileType.Vec, float, 4.0, 8]
    with pytest.raises(TileSpecError, match="rows must be an integer"):
        Tile[TileType.Vec, float, True, 8]


@pytest.mark.parametrize("fractal,slayout,dtype,inner", [
    (1024, SLayout.RowMajor, float, (16, 16)), (1024, SLayout.ColMajor, half, (16, 16)),
    (1024, SLayout.NoneBox, float, (16, 16)),
    (32, SLayout.RowMajor, uint8_t, (16, 2)), (32, SLayout.ColMajor, uint8_t, (2, 16)),
    (512, SLayout.RowMajor, float, (16, 8)), (512, SLayout.RowMajor, half, (16, 16)),
    (512, SLayout.RowMajor, int8_t, (16, 32)),
    (512, SLayout.ColMajor, float, (8, 16)), (512, SLayout.ColMajor, int8_t, (32, 16)),
    (512, SLayout.NoneBox, float, (1, 1)),
])
def test_inner_box_table(fractal, slayout, dtype, inner):
    spec = Tile[TileType.Vec, dtype, 32, 64, BLayout.RowMajor, 32, 64, slayout, fractal]
    assert (spec.inner_rows, spec.inner_cols) == inner


# --- compile-time rules (reference-facts 1.3) ------------------------------------------------------------------------
def bad(args, fragment):
    with pytest.raises(TileSpecError) as exc:
        Tile[args]
    assert str(exc.value).startswith("illegal tile Tile<")
    assert fragment in str(exc.value)


@pytest.mark.parametrize("rows,cols", [(0, 8), (4, 0), (-4, 8)])
def test_rule1_positive_sizes(rows, cols):
    bad((TileType.Vec, float, rows, cols), f"Rows and Cols must be positive (got {rows}x{cols})")


@pytest.mark.parametrize("vr,vc,which,got,limit", [(5, 8, "ValidRow", 5, 4), (4, 9, "ValidCol", 9, 8),
                                                   (-2, 8, "ValidRow", -2, 4)])
def test_rule1_valid_not_above_static(vr, vc, which, got, limit):
    bad((TileType.Vec, float, 4, 8, BLayout.RowMajor, vr, vc),
        f"{which} must be -1 (dynamic) or within [0, {limit}] (got {got})")


@pytest.mark.parametrize("vr,vc", [(-1, -1), (0, 0), (4, 8), (-1, 3)])
def test_rule1_valid_accepted(vr, vc):
    spec = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, vr, vc]
    assert (spec.valid_row, spec.valid_col) == (vr, vc)


@pytest.mark.parametrize("size", [0, 64, 256, 2048])
def test_rule6_fractal_sizes(size):
    bad((TileType.Vec, float, 16, 16, BLayout.RowMajor, 16, 16, SLayout.NoneBox, size),
        f"SFractalSize must be one of 512, 1024, 32 (got {size})")


@pytest.mark.parametrize("size", [512, 1024, 32])
def test_rule6_fractal_sizes_accepted(size):
    assert Tile[TileType.Mat, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, size].fractal_size == size


def test_rule3_rows_divisible_by_box_height():
    bad((TileType.Mat, float, 20, 8, BLayout.ColMajor, 20, 8, SLayout.RowMajor),
        "Rows must be a multiple of the fractal box height 16 (got 20)")
    bad((TileType.Left, half, 24, 16, BLayout.RowMajor, 24, 16, SLayout.ColMajor),
        "Rows must be a multiple of the fractal box height 16 (got 24)")


@pytest.mark.parametrize("args", [
    (TileType.Vec, float, 20, 8, BLayout.ColMajor, 20, 8, SLayout.RowMajor),      # Vec exemption
    (TileType.Mat, uint8_t, 3, 16, BLayout.ColMajor, 3, 16, SLayout.ColMajor, 32),  # MX (32) exemption
    (TileType.Mat, float, 1, 8, BLayout.ColMajor, 1, 8, SLayout.RowMajor),        # Rows == 1 exemption
])
def test_rule3_exemptions(args):
    spec = Tile[args]
    assert spec.is_boxed


def test_rule4_cols_divisible_by_box_width_no_exemption():
    bad((TileType.Mat, float, 16, 12, BLayout.ColMajor, 16, 12, SLayout.RowMajor),
        "Cols must be a multiple of the fractal box width 8 (got 12)")
    bad((TileType.Vec, float, 16, 12, BLayout.ColMajor, 16, 12, SLayout.RowMajor),
        "Cols must be a multiple of the fractal box width 8 (got 12)")
    bad((TileType.Mat, uint8_t, 16, 8, BLayout.ColMajor, 16, 8, SLayout.ColMajor, 32),
        "Cols must be a multiple of the fractal box width 16 (got 8)")


@pytest.mark.parametrize("dtype,good,badc", [(float, 8, 12), (half, 16, 8), (int8_t, 32, 16), (int32_t, 24, 4),
                                             (bfloat16_t, 48, 40)])
def test_rule5_row_major_alignment(dtype, good, badc):
    assert Tile[TileType.Vec, dtype, 3, good].cols == good
    size = {float: 4, half: 2, int8_t: 1, int32_t: 4, bfloat16_t: 2}[dtype]
    bad((TileType.Vec, dtype, 3, badc),
        f"a row-major tile needs Cols * sizeof(dtype) to be a multiple of 32 bytes (got {badc} * {size} = "
        f"{badc * size})")


def test_rule5_col_major_alignment():
    assert Tile[TileType.Vec, float, 8, 3, BLayout.ColMajor].rows == 8
    bad((TileType.Vec, float, 4, 8, BLayout.ColMajor),
        "a col-major tile needs Rows * sizeof(dtype) to be a multiple of 32 bytes (got 4 * 4 = 16)")
    # A col-major tile with Rows == 1 is impossible for every dtype of at most 4 bytes.
    for dtype in (float, half, int8_t):
        with pytest.raises(TileSpecError, match="col-major tile needs Rows"):
            Tile[TileType.Vec, dtype, 1, 32, BLayout.ColMajor]


def test_rule5_does_not_apply_to_boxed_layouts():
    # 20 rows * 4 bytes = 80 is not a multiple of 32, but a boxed Vec tile uses rules 3/4 instead.
    spec = Tile[TileType.Vec, float, 20, 8, BLayout.ColMajor, 20, 8, SLayout.RowMajor]
    assert spec.layout_name == "NZ"


# --- physical offsets (reference-facts 1.5) --------------------------------------------------------------------------
NZ_F32 = Tile[TileType.Mat, float, 32, 16, BLayout.ColMajor, 32, 16, SLayout.RowMajor]


@pytest.mark.parametrize("rc,want", [((16, 8), 384), ((1, 0), 8), ((0, 8), 256), ((0, 0), 0), ((17, 9), 393),
                                     ((15, 7), 127), ((31, 15), 511)])
def test_nz_worked_examples(rc, want):
    assert element_offset(NZ_F32, *rc) == want
    assert offset_table(NZ_F32)[rc] == want


@pytest.mark.parametrize("spec,cases", [
    (Tile[TileType.Vec, float, 4, 8], {(2, 3): 19, (3, 7): 31, (0, 1): 1, (1, 0): 8}),                       # ND
    (Tile[TileType.Vec, float, 8, 4, BLayout.ColMajor], {(3, 2): 19, (7, 3): 31, (0, 1): 8, (1, 0): 1}),      # DN
    # ZN float 16x32, boxes 8x16: R*Cols*IR + C*IN + ic*IR + ir
    (Tile[TileType.Mat, float, 16, 32, BLayout.RowMajor, 16, 32, SLayout.ColMajor],
     {(9, 17): 393, (0, 1): 8, (1, 0): 1, (8, 0): 256, (0, 16): 128}),
    # ZZ half 32x32, boxes 16x16: R*Cols*IR + C*IN + ir*IC + ic
    (Tile[TileType.Mat, half, 32, 32, BLayout.RowMajor, 32, 32, SLayout.RowMajor],
     {(17, 18): 786, (0, 16): 256, (1, 0): 16, (16, 0): 512}),
    # NN float 16x32, boxes 8x16: C*Rows*IC + R*IN + ic*IR + ir
    (Tile[TileType.Mat, float, 16, 32, BLayout.ColMajor, 16, 32, SLayout.ColMajor],
     {(9, 17): 393, (1, 0): 1, (0, 1): 8, (8, 0): 128, (0, 16): 256}),
    # NZ with 1024-byte boxes (TileAcc), float 32x32, boxes 16x16
    (Tile[TileType.Acc, float, 32, 32, BLayout.ColMajor, 32, 32, SLayout.RowMajor, 1024],
     {(16, 16): 768, (1, 0): 16, (0, 16): 512, (16, 0): 256}),
    # MX ZZ uint8 16x4, boxes 16x2
    (Tile[TileType.ScaleLeft, uint8_t, 16, 4, BLayout.RowMajor, 16, 4, SLayout.RowMajor, 32],
     {(1, 0): 2, (0, 1): 1, (0, 2): 32, (15, 3): 63}),
])
def test_hand_computed_offsets(spec, cases):
    table = offset_table(spec)
    for (r, c), want in cases.items():
        assert element_offset(spec, r, c) == want, (r, c)
        assert table[r, c] == want, (r, c)


def reference_offset(rows, cols, blayout, slayout, ir_n, ic_n, r, c):
    """reference-facts 1.5, written out independently of ptoisa."""
    if slayout == "none":
        return r * cols + c if blayout == "row" else c * rows + r
    R, ir, C, ic = r // ir_n, r % ir_n, c // ic_n, c % ic_n
    box = ir_n * ic_n
    name = {("col", "row"): "NZ", ("row", "col"): "ZN", ("row", "row"): "ZZ", ("col", "col"): "NN"}[(blayout, slayout)]
    if name == "NZ":
        return C * rows * ic_n + R * box + ir * ic_n + ic
    if name == "ZN":
        return R * cols * ir_n + C * box + ic * ir_n + ir
    if name == "ZZ":
        return R * cols * ir_n + C * box + ir * ic_n + ic
    return C * rows * ic_n + R * box + ic * ir_n + ir


BOX = {  # (fractal, slayout, itemsize) -> inner box, by the table of reference-facts 1.2
    (512, "row", 4): (16, 8), (512, "row", 2): (16, 16), (512, "row", 1): (16, 32),
    (512, "col", 4): (8, 16), (512, "col", 2): (16, 16), (512, "col", 1): (32, 16),
    (1024, "row", 4): (16, 16), (1024, "col", 2): (16, 16), (32, "row", 1): (16, 2), (32, "col", 1): (2, 16),
}
ENUM_B = {"row": BLayout.RowMajor, "col": BLayout.ColMajor}
ENUM_S = {"none": SLayout.NoneBox, "row": SLayout.RowMajor, "col": SLayout.ColMajor}
DT = {4: float, 2: half, 1: uint8_t}


@settings(max_examples=150, deadline=None)
@given(
    key=st.sampled_from(sorted(BOX) + [(512, "none", 4), (512, "none", 2), (512, "none", 1)]),
    blayout=st.sampled_from(["row", "col"]),
    mr=st.integers(1, 4),
    mc=st.integers(1, 4),
    data=st.data(),
)
def test_property_offsets_match_independent_formula(key, blayout, mr, mc, data):
    fractal, slayout, itemsize = key
    if slayout == "none":
        ir_n, ic_n = 1, 1
        per = 32 // itemsize
        rows, cols = (mr * (per if blayout == "col" else 1), mc * (per if blayout == "row" else 1))
    else:
        ir_n, ic_n = BOX[key]
        rows, cols = mr * ir_n, mc * ic_n
    spec = Tile[TileType.Mat, DT[itemsize], rows, cols, ENUM_B[blayout], rows, cols, ENUM_S[slayout], fractal]
    assert (spec.inner_rows, spec.inner_cols) == ((ir_n, ic_n) if slayout != "none" else
                                                  (spec.inner_rows, spec.inner_cols))
    want = np.array([[reference_offset(rows, cols, blayout, slayout, ir_n, ic_n, r, c) for c in range(cols)]
                     for r in range(rows)])
    np.testing.assert_array_equal(offset_table(spec), want)
    r, c = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
    assert element_offset(spec, r, c) == want[r, c]
    # Every storage element is used exactly once when the boxes tile the shape.
    assert sorted(want.ravel().tolist()) == list(range(rows * cols))
    # Logical writes land at the formula's offsets and read back unchanged.
    tile = spec()
    logical = (np.arange(rows * cols) % 251).reshape(rows, cols).astype(np.uint8).astype(spec.np_dtype)
    tile.set_logical(logical)
    np.testing.assert_array_equal(tile.storage[want], logical)
    np.testing.assert_array_equal(tile.to_numpy(), logical)


def test_layout_names():
    assert Tile[TileType.Vec, float, 8, 8, BLayout.ColMajor].layout_name == "DN"
    assert NZ_F32.layout_name == "NZ"
    assert Tile[TileType.Mat, float, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor].layout_name == "ZN"
    assert Tile[TileType.Mat, float, 16, 16, BLayout.RowMajor, 16, 16, SLayout.RowMajor].layout_name == "ZZ"
    assert Tile[TileType.Mat, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.ColMajor].layout_name == "NN"


# --- runtime valid sizes and constructors (reference-facts 1.4) ------------------------------------------------------
def test_both_dynamic_two_arg_constructor():
    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    dst = DstT(16, 2)
    assert (dst.GetValidRow(), dst.GetValidCol()) == (16, 2)
    assert dst.valid_shape == (16, 2)
    assert dst.storage.shape == (512,) and dst.storage.dtype == np.uint8 and not dst.storage.any()


def test_one_arg_constructors():
    RowDyn = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, 8]
    ColDyn = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, 4, -1]
    assert RowDyn(3).valid_shape == (3, 8)
    assert ColDyn(5).valid_shape == (4, 5)
    with pytest.raises(TileSpecError, match="one dynamic valid size; its constructor takes 1 or 0 arguments"):
        RowDyn(3, 2)


def test_static_tile_takes_no_valid_arguments():
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, 2, 3]
    assert T().valid_shape == (2, 3)
    with pytest.raises(TileSpecError, match="no dynamic valid size"):
        T(1)


def test_dynamic_default_is_static_size():
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, -1]
    assert T().valid_shape == (4, 8)


@pytest.mark.parametrize("args", [(5, 8), (4, 9), (-1, 2), (True, 2), (2.0, 2)])
def test_constructor_rejects_out_of_range_valid(args):
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, -1]
    with pytest.raises(TileSpecError, match=r"must be an integer in \[0, "):
        T(*args)


def test_setters_only_for_dynamic_dimensions():
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, 8]
    t = T(2)
    t.SetValidRow(4)
    assert t.GetValidRow() == 4
    t.SetValidRow(0)
    assert t.valid_shape == (0, 8)
    with pytest.raises(TileSpecError, match="SetValidCol on .*: the valid col count is static"):
        t.SetValidCol(3)
    assert t.valid_shape == (0, 8)
    with pytest.raises(TileSpecError, match=r"valid row count .* must be an integer in \[0, 4\] \(got 9\)"):
        t.SetValidRow(9)
    assert t.GetValidRow() == 0


def test_refused_set_valid_shape_changes_nothing():
    t = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, 8](0)
    with pytest.raises(TileSpecError, match="the valid col count is static"):
        t.SetValidShape(1, 8)
    assert t.valid_shape == (0, 8)


def test_set_valid_shape_both_dynamic():
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, -1]
    t = T(1, 1)
    t.SetValidShape(3, 7)
    assert t.valid_shape == (3, 7)
    with pytest.raises(TileSpecError):
        t.SetValidShape(3, 9)
    assert t.valid_shape == (3, 7)


def test_tile_needs_spec():
    with pytest.raises(TileSpecError, match="Tile\\(\\) needs a TileSpec"):
        Tile(4)


# --- data access and raw bytes -------------------------------------------------------------------------------------
def test_raw_bytes_round_trip_and_physical_order():
    T = Tile[TileType.Vec, int16_t, 16, 4, BLayout.ColMajor]
    t = T()
    raw = bytes(range(128))
    t.load_bytes(raw)
    assert t.tobytes() == raw
    # DN: logical (r, c) is storage element c*16 + r; element k holds bytes 2k, 2k+1 little-endian.
    assert t.data[1, 0] == int.from_bytes(bytes([2, 3]), "little", signed=True)
    assert t.data[0, 1] == int.from_bytes(bytes([32, 33]), "little", signed=True)
    with pytest.raises(TileSpecError, match="holds 128 bytes \\(got 127\\)"):
        t.load_bytes(raw[:-1])
    assert t.tobytes() == raw


def test_set_logical_and_views():
    T = Tile[TileType.Vec, float, 4, 8, BLayout.RowMajor, -1, -1]
    t = T(2, 3)
    t.set_logical(np.arange(32, dtype=np.float32).reshape(4, 8))
    assert t.storage.tolist() == list(range(32))
    np.testing.assert_array_equal(t.valid, [[0, 1, 2], [8, 9, 10]])
    t.set_logical([[7, 7]])
    assert t.storage[:3].tolist() == [7, 7, 2]
    t.set_logical(5)
    assert (t.storage == 5).all()
    with pytest.raises(TileSpecError, match="cannot store an array of shape \\(5, 8\\)"):
        t.set_logical(np.zeros((5, 8)))
    assert (t.storage == 5).all()
    t2 = T(1, 1, data=np.ones((4, 8)))
    assert (t2.storage == 1).all()


# --- ConvTile (reference-facts 1.6) ---------------------------------------------------------------------------------
def test_conv_tile_spec_and_instance():
    C = ConvTile[TileType.Mat, half, 2 * 16 * 7 * 7 * 16, Layout.NC1HWC0, (2, 1, 7, 7, 16)]
    c = C()
    assert c.shape == (2, 1, 7, 7, 16)
    assert [c.GetShape(i) for i in range(-1, 7)] == [-1, 2, 1, 7, 7, 16, -1, -1]
    assert c.storage.shape == (2 * 16 * 7 * 7 * 16,) and c.storage.dtype == np.float16
    assert C.nbytes == 2 * 16 * 7 * 7 * 16 * 2 and C.dynamic_dims == 0
    assert c.tobytes() == bytes(C.nbytes)
    assert C.describe() == "ConvTile<Mat, half, 25088, NC1HWC0, <2, 1, 7, 7, 16>>"


def test_conv_tile_dynamic_dims():
    C = ConvTile[TileType.Mat, int16_t, 1000, Layout.NC1HWC0, (-1, 2, -1, 3, 8)]
    assert C.dynamic_dims == 2
    c = C(4, 5)
    assert c.shape == (4, 2, 5, 3, 8) and c.GetShape(2) == 5
    with pytest.raises(TileSpecError, match="has 2 dynamic dims \\(got 1 values\\)"):
        C(4)
    with pytest.raises(TileSpecError, match="must be positive and fit BufferSize"):
        C(10, 10)   # 10*2*10*3*8 = 4800 > 1000
    with pytest.raises(TileSpecError, match="must be positive and fit BufferSize"):
        C(0, 1)


@pytest.mark.parametrize("shape,fragment", [
    ((), "a conv tile has 1 to 6 dims (got 0)"),
    ((1, 1, 1, 1, 1, 1, 1), "a conv tile has 1 to 6 dims (got 7)"),
    ((1, 0, 2, 2, 16), "dims must be positive or -1"),
    ((1, -2, 2, 2, 16), "dims must be positive or -1"),
    ((4, 4, 4, 4, 16), "the shape holds 4096 elements, more than BufferSize"),
])
def test_conv_tile_spec_errors(shape, fragment):
    with pytest.raises(TileSpecError, match="illegal ConvTile<") as exc:
        ConvTile[TileType.Mat, half, 1024, Layout.NC1HWC0, shape]
    assert fragment in str(exc.value)


def test_conv_tile_bad_arity_and_buffer():
    with pytest.raises(TileSpecError, match="takes Loc, DType, BufferSize, Layout and a shape tuple"):
        ConvTile[TileType.Mat, half, 1024]
    with pytest.raises(TileSpecError, match="BufferSize must be positive"):
        ConvTile[TileType.Mat, half, 0, Layout.NC1HWC0, (1, 1, 1, 1, 16)]


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_set_logical_converts_numbers_into_narrow_float_types_by_value(dtype):
    """bfloat16 and fp8 dtypes are NumPy kind 'V' like hifloat8's raw bytes; they must still convert by value."""
    import ml_dtypes

    t = Tile[TileType.Vec, dtype, 2, 32]()
    t.set_logical(np.full((2, 32), 1.5, dtype=np.float32))
    expected = np.full((2, 32), 1.5, dtype=getattr(ml_dtypes, dtype))
    assert t.to_numpy().tobytes() == expected.tobytes()


def test_one_shared_spec_object_per_tile_type():
    a = Tile[TileType.Vec, "float", 16, 16]
    b = Tile[TileType.Vec, np.float32, 16, 16, BLayout.RowMajor]
    assert a is b and a == b
    assert Tile[TileType.Vec, "float", 16, 32] is not a


# --- interning: one live spec per tile type ------------------------------------------------------------------
def test_equal_specs_are_one_object_whatever_the_route():
    import copy
    import dataclasses
    import pickle

    from ptoisa.tile.spec import TileSpec

    first = Tile[TileType.Vec, float, 16, 16]().spec
    routes = [
        Tile[TileType.Vec, float, 16, 16, BLayout.RowMajor, 16, 16]().spec,   # defaults spelt out
        TileSpec("Vec", float, 16, 16),                                       # names coerced to the enums
        TileSpec(loc=TileType.Vec, dtype=float, rows=16, cols=16, valid_row=16),
        dataclasses.replace(dataclasses.replace(first, valid_row=8), valid_row=16),
        copy.copy(first), copy.deepcopy(first), pickle.loads(pickle.dumps(first)),
    ]
    for spec in routes:
        assert spec is first
    other = dataclasses.replace(first, valid_row=8)
    assert other is not first and other != first and other.valid_row == 8
    assert hash(first) == hash(routes[1]) and hash(first) == object.__hash__(first)  # identity hash, in agreement with ==


def test_interned_specs_go_when_nothing_holds_them():
    import gc
    import weakref

    from ptoisa.tile.spec import _INTERNED, TileSpec

    spec = TileSpec(TileType.Vec, float, 8, 1016)  # a type no other test builds
    gone = weakref.ref(spec)
    assert spec in _INTERNED.values()
    del spec
    gc.collect()
    assert gone() is None and not any(s.cols == 1016 for s in _INTERNED.values())
    assert TileSpec(TileType.Vec, float, 8, 1016).cols == 1016  # built again, fully


def test_interning_keeps_the_checks():
    from ptoisa.tile.spec import TileSpec

    with pytest.raises(TileSpecError):
        TileSpec(TileType.Vec, float, 16, 15)  # 60-byte rows: refused, not looked up
    with pytest.raises(TypeError):
        TileSpec(TileType.Vec, float)  # missing fields: the dataclass's own error


@pytest.mark.parametrize("rows,cols,aligned,staggered", [(16, 16, False, False), (16, 32, True, False),
                                                         (64, 64, True, True), (256, 256, True, True)])
def test_private_storage_alignment_and_stagger(rows, cols, aligned, staggered):
    """From 2 KiB a tile's own storage starts on a 64-byte line; from 16 KiB also 256 * k bytes further into its
    buffer, k in turn (so that two tiles made one after the other start at different offsets modulo 4 KiB where
    the allocator page-aligns their buffers)."""
    T = Tile[TileType.Vec, float, rows, cols]
    tiles = [T() for _ in range(4)]
    addresses = [t.storage.ctypes.data for t in tiles]
    assert all(t.storage.size == rows * cols and not t.storage.any() for t in tiles)
    if aligned:
        assert all(a % 64 == 0 for a in addresses)
    into = [(t.storage.ctypes.data - t.storage.base.ctypes.data) // 256 if t.storage.base is not None else 0
            for t in tiles]  # the 64-byte alignment moves a start by less than 64 bytes
    assert len(set(into)) == (4 if staggered else 1)
