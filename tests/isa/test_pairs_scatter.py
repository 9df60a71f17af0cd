"""TINTERLEAVE, TDEINTERLEAVE, TPAIRREDUCESUM, TSCATTER, TGATHERB and TFILLPAD_EXPAND against values worked out
here: NumPy slicing and sums for the contracts, the backends' loops worked by hand for the errata (the sources
are named at each test)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import (BLayout, ErratumWarning, IllegalInstructionError, MaskPattern, NotModelledError, PadValue,
                    ScatterAxis, SLayout, Tile, TileType, UndefinedBehaviourError)
from ptoisa.targets import make_config

TARGETS = ("a2a3", "a5", "cpu")


def tile(dtype, rows, cols, values=None, valid=None, pad=PadValue.Null, static=False):
    vr, vc = valid or (rows, cols)
    if static:
        t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc, SLayout.NoneBox, 512, pad]()
    else:
        t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1, SLayout.NoneBox, 512, pad](vr, vc)
    if values is not None:
        t.set_logical(np.asarray(values))
    return t


def junk(t, seed=0):
    t.storage.view(np.uint8)[...] = np.random.default_rng(seed).integers(0, 256, t.storage.nbytes, np.uint8)
    return t


def quiet_call(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        return fn(*args, **kwargs)


# --- TINTERLEAVE / TDEINTERLEAVE ------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ("a5", "cpu"))
@pytest.mark.parametrize("dtype", (np.float32, np.float16, np.int8, np.uint16))
def test_tinterleave_splits_the_interleaved_stream_at_its_middle(target, dtype):
    rows, cols, vr, vc = 3, 64, 2, 10
    rng = np.random.default_rng(1)
    a = rng.integers(0, 100, (rows, cols)).astype(dtype)
    b = rng.integers(100, 200, (rows, cols)).astype(dtype)
    d0, d1 = junk(tile(dtype, rows, cols, valid=(vr, vc)), 1), junk(tile(dtype, rows, cols, valid=(vr, vc)), 2)
    before0, before1 = d0.to_numpy(), d1.to_numpy()
    ptoisa.TINTERLEAVE(d1, d0, tile(dtype, rows, cols, b, (vr, vc)), tile(dtype, rows, cols, a, (vr, vc)),
                       target=target)
    stream = np.stack([a[:vr, :vc], b[:vr, :vc]], axis=2).reshape(vr, 2 * vc)  # a0 b0 a1 b1 ...
    want0, want1 = before0.copy(), before1.copy()
    want0[:vr, :vc], want1[:vr, :vc] = stream[:, :vc], stream[:, vc:]
    assert d0.to_numpy().tobytes() == want0.tobytes() and d1.to_numpy().tobytes() == want1.tobytes()


@pytest.mark.parametrize("target", ("a5", "cpu"))
def test_tdeinterleave_two_sources_and_one(target):
    a = np.arange(16, dtype=np.int32).reshape(1, 16)
    b = a + 100
    d0, d1 = tile(np.int32, 1, 16, valid=(1, 8)), tile(np.int32, 1, 16, valid=(1, 8))
    ptoisa.TDEINTERLEAVE(d1, d0, tile(np.int32, 1, 16, b, (1, 8)), tile(np.int32, 1, 16, a, (1, 8)), target=target)
    combined = np.concatenate([a[0, :8], b[0, :8]])
    assert d0.to_numpy()[0, :8].tolist() == combined[0::2].tolist()
    assert d1.to_numpy()[0, :8].tolist() == combined[1::2].tolist()
    src = tile(np.int32, 2, 16, np.arange(32).reshape(2, 16), (2, 12))
    e0, e1 = tile(np.int32, 2, 8, valid=(2, 6)), tile(np.int32, 2, 8, valid=(2, 6))
    ptoisa.TDEINTERLEAVE(e1, e0, src, target=target)
    want = np.arange(32).reshape(2, 16)[:, :12]
    assert np.array_equal(e0.to_numpy()[:, :6], want[:, 0::2]) and np.array_equal(e1.to_numpy()[:, :6], want[:, 1::2])


def test_interleave_refusals():
    t = tile(np.float32, 1, 16, valid=(1, 7))
    for target in ("a5", "cpu"):
        with pytest.raises(IllegalInstructionError, match=r"valid columns \(7\) must be even"):
            ptoisa.TINTERLEAVE(t, tile(np.float32, 1, 16, valid=(1, 7)), tile(np.float32, 1, 16, valid=(1, 7)),
                               tile(np.float32, 1, 16, valid=(1, 7)), target=target)
    with pytest.raises(IllegalInstructionError, match="not available on this target"):
        ptoisa.TINTERLEAVE(*(tile(np.float32, 1, 16) for _ in range(4)), target="a2a3")
    with pytest.raises(IllegalInstructionError, match="must equal dst0"):
        ptoisa.TINTERLEAVE(tile(np.float32, 1, 16), tile(np.float32, 1, 16, valid=(1, 8)), tile(np.float32, 1, 16),
                           tile(np.float32, 1, 16), target="cpu")
    # single source: the simulator asserts dst's valid columns are even, A5 only src's relation
    src = tile(np.float32, 1, 16, valid=(1, 6))
    with pytest.raises(IllegalInstructionError, match=r"valid columns \(3\) must be even"):
        ptoisa.TDEINTERLEAVE(tile(np.float32, 1, 8, valid=(1, 3)), tile(np.float32, 1, 8, valid=(1, 3)), src,
                             target="cpu")
    ptoisa.TDEINTERLEAVE(tile(np.float32, 1, 8, valid=(1, 3)), tile(np.float32, 1, 8, valid=(1, 3)), src, target="a5")
    with pytest.raises(IllegalInstructionError, match="twice its columns"):
        ptoisa.TDEINTERLEAVE(tile(np.float32, 1, 8, valid=(1, 4)), tile(np.float32, 1, 8, valid=(1, 4)), src,
                             target="a5")


# --- TPAIRREDUCESUM -------------------------------------------------------------------------------------------
def _pair_contract(x, rows, cols, vr, vc, dtype):
    want = np.zeros((rows, cols), dtype)
    v = x[:vr, :vc].astype(dtype)
    k = vc // 2
    want[:vr, :k] = v[:, 0:2 * k:2] + v[:, 1:2 * k:2]
    if vc % 2:
        want[:vr, k] = v[:, -1] + dtype(0)
    return want


@pytest.mark.parametrize("dtype", (np.float32, np.float16))
@pytest.mark.parametrize("vc", (16, 7, 1))
def test_tpairreducesum_on_the_simulator_zeroes_dst_then_sums_pairs(dtype, vc):
    x = (np.random.default_rng(3).standard_normal((2, 16)) * 10).astype(dtype)
    x[1, vc - 1] = -0.0  # a lone last column: -0.0 + 0 is +0.0
    d = junk(tile(dtype, 2, 16, valid=(2, vc)))
    ptoisa.TPAIRREDUCESUM(d, tile(dtype, 2, 16, x, (2, vc)), target="cpu")
    want = _pair_contract(x, 2, 16, 2, vc, dtype)
    assert d.to_numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("target", ("a2a3", "a5"))
def test_tpairreducesum_npus_write_only_the_pair_sums(target):
    """npu/*/TPairReduceSum.hpp: vcpadd stores floor(V / 2) sums; the odd last column and the rest stay."""
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    d = tile(np.float32, 2, 16, np.full((2, 16), -5.0), valid=(2, 7))
    with pytest.warns(ErratumWarning, match="tpairreducesum_pairs_only"):
        ptoisa.TPAIRREDUCESUM(d, tile(np.float32, 2, 16, x, (2, 7)), target=target)
    want = np.full((2, 16), -5.0, np.float32)
    want[:, :3] = x[:, 0:6:2] + x[:, 1:6:2]
    assert np.array_equal(d.to_numpy(), want)
    ptoisa.TPAIRREDUCESUM(d, tile(np.float32, 2, 16, x, (2, 7)), target=make_config(target, errata=False))
    assert np.array_equal(d.to_numpy(), _pair_contract(x, 2, 16, 2, 7, np.float32))


def test_tpairreducesum_a5_flat_path_packs_rows():
    """npu/a5/TPairReduceSum.hpp: static valid columns equal to Cols take TPairReduceSum_1D_NoPostUpdate, which
    stores pair m of the flat valid stream at dst element m."""
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    d = tile(np.float32, 3, 8, np.full((3, 8), 7.0), static=True)
    with pytest.warns(ErratumWarning, match="tpairreducesum_flat_rows"):
        ptoisa.TPAIRREDUCESUM(d, tile(np.float32, 3, 8, x, static=True), target="a5")
    flat = x.reshape(-1)
    want = np.full(24, 7.0, np.float32)
    want[:12] = flat[0::2] + flat[1::2]
    assert np.array_equal(d.to_numpy().reshape(-1), want)
    # its erratum off: the row-wise pair sums (still only those: tpairreducesum_pairs_only)
    d3 = tile(np.float32, 3, 8, np.full((3, 8), 7.0), static=True)
    quiet_call(ptoisa.TPAIRREDUCESUM, d3, tile(np.float32, 3, 8, x, static=True),
               target=make_config("a5").without("tpairreducesum_flat_rows"))
    assert np.array_equal(d3.to_numpy()[:, :4], x[:, 0::2] + x[:, 1::2]) and (d3.to_numpy()[:, 4:] == 7).all()
    # the same shapes with run-time valid sizes take the row-wise path
    d2 = tile(np.float32, 3, 8, np.full((3, 8), 7.0))
    quiet_call(ptoisa.TPAIRREDUCESUM, d2, tile(np.float32, 3, 8, x), target="a5")
    assert np.array_equal(d2.to_numpy()[:, :4], x[:, 0::2] + x[:, 1::2]) and (d2.to_numpy()[:, 4:] == 7).all()


def test_tpairreducesum_refusals():
    with pytest.raises(IllegalInstructionError, match="dst dtype int32 is not supported"):
        ptoisa.TPAIRREDUCESUM(tile(np.int32, 1, 8), tile(np.int32, 1, 8), target="a5")
    with pytest.raises(IllegalInstructionError, match="must equal dst's valid shape"):
        ptoisa.TPAIRREDUCESUM(tile(np.float32, 1, 8, valid=(1, 4)), tile(np.float32, 1, 8), target="a2a3")
    with pytest.raises(UndefinedBehaviourError, match="no valid columns"):
        ptoisa.TPAIRREDUCESUM(tile(np.float32, 1, 8, valid=(1, 0)), tile(np.float32, 1, 8, valid=(1, 0)),
                              target="cpu")


# --- TSCATTER -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_tscatter_index_form_writes_flat_storage_positions(target):
    src = np.arange(1, 17, dtype=np.float32).reshape(2, 8)
    idx = np.array([[15, 0, 3, 9, 2, 8, 1, 4], [5, 6, 7, 10, 11, 12, 13, 14]], np.int32)
    d = tile(np.float32, 4, 8, np.full((4, 8), -1.0))
    quiet_call(ptoisa.TSCATTER, d, tile(np.float32, 2, 8, src), tile(np.int32, 2, 8, idx, (2, 7)), target=target)
    want = np.full(32, -1.0 if target == "cpu" else 0.0, np.float32)  # the simulator does not zero dst
    want[idx[:, :7].reshape(-1)] = src[:, :7].reshape(-1)
    assert np.array_equal(d.to_numpy().reshape(-1), want)


def test_tscatter_repeated_indices_and_out_of_range():
    src = tile(np.int16, 1, 16, np.arange(16).reshape(1, 16))
    idx = tile(np.uint16, 1, 16, [[3] * 16])
    d = tile(np.int16, 1, 16)
    ptoisa.TSCATTER(d, src, idx, target="a2a3")  # a scalar loop: the last writer wins
    assert d.to_numpy()[0].tolist() == [0, 0, 0, 15] + [0] * 12
    with pytest.raises(UndefinedBehaviourError, match="named twice in one vscatter"):
        ptoisa.TSCATTER(d, src, idx, target="a5")
    ptoisa.TSCATTER(d, src, idx, target=make_config("a5", undefined="emulate"))
    assert d.to_numpy()[0, 3] == 15
    bad = tile(np.int16, 1, 16, [[0] * 15 + [-1]])
    for target in TARGETS:
        with pytest.raises(UndefinedBehaviourError, match=r"indexes element \[0, 15\] = -1 lies outside dst's 16"):
            ptoisa.TSCATTER(d, src, bad, target=target)
        with pytest.raises(NotModelledError):
            ptoisa.TSCATTER(d, src, bad, target=make_config(target, undefined="emulate"))
    assert d.to_numpy()[0, 3] == 15  # refused calls wrote nothing
    with pytest.raises(IllegalInstructionError, match="must be 4 bytes wide"):
        ptoisa.TSCATTER(tile(np.float32, 1, 16), tile(np.float32, 1, 16), idx, target="a2a3")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pattern", [p for p in MaskPattern if p is not MaskPattern.P1111])
@pytest.mark.parametrize("axis", tuple(ScatterAxis))
def test_tscatter_mask_form_spreads_src_with_zeros(target, pattern, axis):
    p, k = pattern.period, pattern.phase
    x = np.arange(1, 1 + 2 * 16, dtype=np.float16).reshape(2, 16)
    if axis is ScatterAxis.SCATTER_ROW:
        d = tile(np.float16, 2, 16 * p, np.full((2, 16 * p), 9.0))
        want = np.zeros((2, 16 * p), np.float16)
        want[:, k::p] = x
    else:
        d = tile(np.float16, 2 * p, 16, np.full((2 * p, 16), 9.0))
        want = np.zeros((2 * p, 16), np.float16)
        want[k::p, :] = x
    ptoisa.TSCATTER(d, tile(np.float16, 2, 16, x), pattern, axis, target=target)
    assert np.array_equal(d.to_numpy(), want)


def test_tscatter_mask_cpu_running_source_stream():
    """cpu/TScatter.hpp TScatter: sC wraps at SrcTileData::Cols, so row 1 continues in src row 0's columns."""
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    d = tile(np.float32, 2, 16, np.full((2, 16), 9.0))
    with pytest.warns(ErratumWarning, match="tscatter_mask_running_src"):
        ptoisa.TSCATTER(d, tile(np.float32, 2, 16, x, (2, 8)), MaskPattern.P1010, target="cpu")
    assert d.to_numpy()[1, 1::2].tolist() == list(range(8, 16)) and (d.to_numpy()[:, 0::2] == 0).all()
    ptoisa.TSCATTER(d, tile(np.float32, 2, 16, x, (2, 8)), MaskPattern.P1010, target="a5")
    assert d.to_numpy()[1, 1::2].tolist() == list(range(16, 24))


def test_tscatter_mask_a2a3_b8_column_copies_pairs():
    """npu/a2a3/TScatter.hpp: SCATTER_COL copies int16 lanes counting validCol, so 2 * V bytes a row."""
    x = np.arange(64, dtype=np.int8).reshape(2, 32)
    d = tile(np.int8, 4, 32, np.full((4, 32), 9), valid=(4, 5))
    with pytest.warns(ErratumWarning, match="tscatter_col_b8_pairs"):
        ptoisa.TSCATTER(d, tile(np.int8, 2, 32, x, (2, 5)), MaskPattern.P0101, ScatterAxis.SCATTER_COL,
                        target="a2a3")
    want = np.zeros((4, 32), np.int8)
    want[0, :10], want[2, :10] = x[0, :10], x[1, :10]
    assert np.array_equal(d.to_numpy(), want)


def test_tscatter_mask_rules():
    with pytest.raises(IllegalInstructionError, match=r"valid shape \(2, 16\) must be \(2, 32\)"):
        ptoisa.TSCATTER(tile(np.float32, 2, 32, valid=(2, 16)), tile(np.float32, 2, 16), MaskPattern.P0101,
                        target="a5")
    with pytest.raises(IllegalInstructionError, match="16- or 32-bit"):
        ptoisa.TSCATTER(tile(np.int8, 2, 64), tile(np.int8, 2, 32), MaskPattern.P0101, target="cpu")
    with pytest.raises(IllegalInstructionError, match="index form takes no maskPattern"):
        ptoisa.TSCATTER(tile(np.float32, 1, 8), tile(np.float32, 1, 8), tile(np.int32, 1, 8), MaskPattern.P0101,
                        target="a5")
    d = tile(np.float32, 2, 16, np.full((2, 16), 4.0))
    ptoisa.TSCATTER(d, tile(np.float32, 2, 16, np.ones((2, 16)), (2, 16)), MaskPattern.P1111, target="a2a3")
    assert (d.to_numpy() == 1).all()  # P1111 is TMOV: nothing zeroed


# --- TGATHERB -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_copies_32_byte_blocks(target):
    src = tile(np.uint8, 4, 64, np.arange(256).reshape(4, 64))
    offs = np.array([[224, 0, 32, 64, 96, 128, 160, 192], [0, 32, 64, 96, 128, 160, 192, 224]], np.uint32)
    d = tile(np.float32, 2, 64, valid=(2, 64))  # 256 bytes a row: 8 blocks
    ptoisa.TGATHERB(d, src, tile(np.uint32, 2, 8, offs), target=target)
    raw = d.to_numpy().view(np.uint8).reshape(2, 256)
    for i in range(2):
        for c in range(8):
            assert raw[i, 32 * c:32 * c + 32].tolist() == list(range(offs[i, c], offs[i, c] + 32))


def test_tgatherb_out_of_src_blocks():
    src = tile(np.uint8, 1, 64, np.arange(64).reshape(1, 64))
    d = tile(np.uint8, 1, 64, np.full((1, 64), 7))
    ptoisa.TGATHERB(d, src, tile(np.uint32, 1, 8, [[5, 40, 0, 0, 0, 0, 0, 0]]), target="cpu")
    assert d.to_numpy()[0, :32].tolist() == list(range(5, 37)) and (d.to_numpy()[0, 32:] == 7).all()  # skipped
    for offsets, why in (([5, 0, 0, 0, 0, 0, 0, 0], "not 32-byte aligned"), ([64, 0, 0, 0, 0, 0, 0, 0], "past src")):
        with pytest.raises(UndefinedBehaviourError, match=why):
            ptoisa.TGATHERB(tile(np.uint8, 1, 32), src, tile(np.uint32, 1, 8, [offsets]), target="a5")
    with pytest.raises(UndefinedBehaviourError, match="wraps"):
        ptoisa.TGATHERB(d, src, tile(np.int32, 1, 8, [[-16, 0, 0, 0, 0, 0, 0, 0]]), target="cpu")
    with pytest.raises(IllegalInstructionError, match="whole 32-byte blocks"):
        ptoisa.TGATHERB(tile(np.uint8, 1, 64, valid=(1, 40)), src, tile(np.uint32, 1, 8), target="cpu")
    with pytest.raises(NotModelledError, match="256"):
        ptoisa.TGATHERB(tile(np.uint8, 1, 64), src, tile(np.uint32, 1, 8), target="a2a3")


# --- TFILLPAD_EXPAND ------------------------------------------------------------------------------------------
def test_tfillpad_expand_contract_and_npu_rows():
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    src = tile(np.float32, 2, 8, x, (2, 3))
    want = np.full((4, 16), -np.inf, np.float32)
    want[:2, :3] = x[:, :3]
    d = junk(tile(np.float32, 4, 16, valid=(3, 16), pad=PadValue.Min))
    ptoisa.TFILLPAD_EXPAND(d, src, target="cpu")
    assert np.array_equal(d.to_numpy(), want)
    for target in ("a2a3", "a5"):  # npu/*/TFillPad.hpp: bottom padding stops at dst's valid rows
        d = tile(np.float32, 4, 16, np.full((4, 16), 5.0), valid=(3, 16), pad=PadValue.Min)
        with pytest.warns(ErratumWarning, match="tfillpad_expand_dst_valid_rows"):
            ptoisa.TFILLPAD_EXPAND(d, src, target=target)
        rows = want.copy()
        rows[3] = 5.0
        assert np.array_equal(d.to_numpy(), rows)


def test_tfillpad_expand_a2a3_keeps_src_up_to_the_block():
    """npu/a2a3/TFillPad.hpp: whole src rows are copied, the pad starts at srcValidCol32B; the run between is padded
    only when the two PadVals differ."""
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    d = tile(np.float32, 2, 32, np.full((2, 32), 5.0), pad=PadValue.Zero)
    with pytest.warns(ErratumWarning, match="tfillpad_expand_src_block_tail"):
        ptoisa.TFILLPAD_EXPAND(d, tile(np.float32, 2, 16, x, (2, 3), pad=PadValue.Zero), target="a2a3")
    want = np.zeros((2, 32), np.float32)
    want[:, :8] = x[:, :8]  # 3 valid columns, the 32-byte block ends at column 8
    assert np.array_equal(d.to_numpy(), want)
    d = tile(np.float32, 2, 32, np.full((2, 32), 5.0), pad=PadValue.Zero)
    ptoisa.TFILLPAD_EXPAND(d, tile(np.float32, 2, 16, x, (2, 3), pad=PadValue.Max), target="a2a3")
    want[:, 3:8] = 0
    assert np.array_equal(d.to_numpy(), want)


def test_tfillpad_expand_refusals():
    with pytest.raises(IllegalInstructionError, match="must not be Null"):
        ptoisa.TFILLPAD_EXPAND(tile(np.float32, 2, 16), tile(np.float32, 2, 8), target="cpu")
    with pytest.raises(IllegalInstructionError, match="must be at least src's"):
        ptoisa.TFILLPAD_EXPAND(tile(np.float32, 2, 8, pad=PadValue.Zero), tile(np.float32, 2, 16), target="a5")
    with pytest.raises(UndefinedBehaviourError, match="wraps"):
        ptoisa.TFILLPAD_EXPAND(tile(np.float32, 4, 16, valid=(1, 16), pad=PadValue.Zero),
                               tile(np.float32, 2, 8, valid=(2, 8)), target="a5")


def test_the_text_forms_run():
    t = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, " \
        "slayout=none_box, fractal=512, pad=0>"
    i = t.replace("dtype=f32", "dtype=i32")
    text = f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
    %c = pto.alloc_tile : {t}
    %d = pto.alloc_tile : {t}
    %i = pto.alloc_tile : {i}
    pto.tinterleave ins(%a, %b : {t}, {t}) outs(%c, %d : {t}, {t})
    pto.tscatter ins(%a, %i : {t}, {i}) outs(%c : {t})
    pto.tpairreducesum ins(%a : {t}) outs(%d : {t})
    return
  }}
}}"""
    program = ptoisa.load(text, target="a5")
    assert program is not None


def test_tscatter_a5_repeats_across_rows_as_the_backend_test_makes_them():
    """tests/npu/a5/src/st/testcase/tscatter/gen_data.py: indices (0 or 1) * cols + col, so rows repeat positions;
    its golden is a row-major loop into a zeroed dst (the last row wins). Equal indices within one row's vscatter
    (128 lanes of 16-bit indices) are refused."""
    rng = np.random.default_rng(23)
    rows, cols = 5, 64
    x = rng.uniform(0, 100, (rows, cols)).astype(np.float16)
    idx = (rng.integers(0, 2, (rows, cols)) * cols + np.arange(cols)).astype(np.uint16)
    golden = np.zeros(rows * cols, np.float16)
    for r in range(rows):
        for c in range(cols):
            golden[idx[r, c]] = x[r, c]
    d = tile(np.float16, rows, cols, np.full((rows, cols), 3.0))
    ptoisa.TSCATTER(d, tile(np.float16, rows, cols, x), tile(np.uint16, rows, cols, idx), target="a5")
    assert d.to_numpy().reshape(-1).tobytes() == golden.tobytes()
    idx[2, 5] = idx[2, 9]
    with pytest.raises(UndefinedBehaviourError, match=r"named twice in one vscatter \(row 2"):
        ptoisa.TSCATTER(d, tile(np.float16, rows, cols, x), tile(np.uint16, rows, cols, idx), target="a5")


@pytest.mark.parametrize("target", ("a2a3", "a5"))
@pytest.mark.parametrize("vc", (64, 63, 106))
def test_tpairreducesum_backend_tests_golden(target, vc):
    """tests/npu/*/src/st/testcase/tpairreducesum/gen_data.py: golden[r, k] = src[r, 2k] + src[r, 2k + 1] for
    k < w_valid // 2 (a lone last column gives nothing), zeros elsewhere (the test's dst starts zeroed)."""
    x = np.random.default_rng(4).integers(1, 10, (2, 128)).astype(np.float16)
    golden = np.zeros((2, 128), np.float16)
    for r in range(1 if vc == 106 else 2):
        for k in range(vc // 2):
            golden[r, k] = x[r, 2 * k] + x[r, 2 * k + 1]
    vr = 1 if vc == 106 else 2
    d = tile(np.float16, 2, 128, valid=(vr, vc))
    quiet_call(ptoisa.TPAIRREDUCESUM, d, tile(np.float16, 2, 128, x, (vr, vc)), target=target)
    assert np.array_equal(d.to_numpy(), golden)


def test_aliased_operands_are_not_modelled():
    """The reference loops read and write element by element; an output sharing bytes with another operand is
    refused before any byte changes (TFILLPAD_EXPAND takes one tile as dst and src, its in-place use)."""
    a = tile(np.float32, 1, 16, np.arange(16).reshape(1, 16))
    before = a.to_numpy().copy()
    with pytest.raises(NotModelledError, match="'dst0' shares storage with 'src0'"):
        ptoisa.TINTERLEAVE(tile(np.float32, 1, 16), a, tile(np.float32, 1, 16), a, target="cpu")
    with pytest.raises(NotModelledError, match="'dst' shares storage with 'src0'"):
        ptoisa.TPAIRREDUCESUM(a, a, target="a5")
    with pytest.raises(NotModelledError, match="'dst' shares storage with 'src'"):
        ptoisa.TSCATTER(a, a, tile(np.int32, 1, 16), target="a2a3")
    assert np.array_equal(a.to_numpy(), before)
    t = tile(np.float32, 1, 16, np.arange(16).reshape(1, 16), valid=(1, 3), pad=PadValue.Max)
    ptoisa.TFILLPAD_EXPAND(t, t, target="cpu")
    assert t.to_numpy()[0, :4].tolist() == [0, 1, 2, np.inf]


def test_layouts_the_npus_address_as_plain_rows_are_verified_but_not_run():
    """A col-major src of index TSCATTER on A5: legal (the verifier accepts the op), but the backend reads it as
    plain rows, which ptoisa does not model: the call is refused when it runs, before any byte changes."""
    dn = Tile[TileType.Vec, np.float32, 16, 16, BLayout.ColMajor]()
    d = tile(np.float32, 16, 16, np.full((16, 16), 2.0))
    with pytest.raises(NotModelledError, match="'src' is DN"):
        ptoisa.TSCATTER(d, dn, tile(np.int32, 16, 16), target="a5")
    assert (d.to_numpy() == 2).all()
    quiet_call(ptoisa.TSCATTER, d, dn, tile(np.int32, 16, 16), target="cpu")  # the simulator reads it through its layout
    t = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout={}, slayout=none_box, " \
        "fractal=512, pad=0>"
    i = t.format("row_major").replace("f32", "i32")
    text = f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {t.format("col_major")}
    %c = pto.alloc_tile : {t.format("row_major")}
    %i = pto.alloc_tile : {i}
    pto.tscatter ins(%a, %i : {t.format("col_major")}, {i}) outs(%c : {t.format("row_major")})
    return
  }}
}}"""
    assert ptoisa.load(text, target="a5") is not None
