"""TGEMV family and the MX matmuls, with expected values worked from the pages' formulas (NumPy or by hand)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType
from ptoisa.errors import ErratumWarning, IllegalInstructionError

F8 = ptoisa.float8_e4m3_t
E8 = ptoisa.float8_e8m0_t


def gemv_tiles(dtype=ptoisa.half, k=16, n=16):
    a = Tile[TileType.Left, dtype, 1, k, BLayout.ColMajor, 1, k, SLayout.RowMajor]()
    b = Tile[TileType.Right, dtype, k, n, BLayout.RowMajor, k, n, SLayout.ColMajor]()
    c = Tile[TileType.Acc, float, 1, n, BLayout.ColMajor, 1, n, SLayout.RowMajor, 1024]()
    return a, b, c


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_gemv_is_a_row_times_a_matrix(target):
    a, b, c = gemv_tiles()
    x = (np.arange(16) % 5 - 2).astype(np.float16)
    w = ((np.arange(256).reshape(16, 16) % 7) - 3).astype(np.float16)
    a.set_logical(x[None, :])
    b.set_logical(w)
    ptoisa.TGEMV(c, a, b, target=target)
    assert c.data[0].tolist() == (x.astype(np.float64) @ w.astype(np.float64)).tolist()  # small integers: exact


def test_gemv_acc_and_bias_add_after_the_sum():
    a, b, c = gemv_tiles()
    a.set_logical([[1.0] * 16])
    b.set_logical([[0.5] * 16] * 16)  # sum = 8
    c_in = Tile[TileType.Acc, float, 1, 16, BLayout.ColMajor, 1, 16, SLayout.RowMajor, 1024]()
    c_in.set_logical([np.arange(16, dtype=np.float32)])
    ptoisa.TGEMV_ACC(c, c_in, a, b, target="cpu")
    assert c.data[0].tolist() == [8.0 + j for j in range(16)]
    bias = Tile[TileType.Bias, float, 1, 16]()
    bias.set_logical([[-1.0] * 16])
    ptoisa.TGEMV_BIAS(c, a, b, bias, target="a5")
    assert c.data[0].tolist() == [7.0] * 16


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_gemv_refusals_change_nothing(target):
    a = Tile[TileType.Left, ptoisa.half, 16, 16, BLayout.ColMajor, 2, 16, SLayout.RowMajor]()  # m = 2
    b = Tile[TileType.Right, ptoisa.half, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()
    c = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 1, 16, SLayout.RowMajor, 1024]()
    c.storage[:] = 7
    before = c.tobytes()
    with pytest.raises(IllegalInstructionError, match="m \\(A's valid rows\\) must be 1"):
        ptoisa.TGEMV(c, a, b, target=target)
    assert c.tobytes() == before
    a2, b2, c2 = gemv_tiles(k=32)
    b_short = Tile[TileType.Right, ptoisa.half, 32, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()
    with pytest.raises(IllegalInstructionError, match="k: A's valid cols \\(32\\) must equal B's valid rows \\(16\\)"):
        ptoisa.TGEMV(c2, a2, b_short, target=target)


def mx_tiles(m=16, k=64, n=16, a_type=F8, b_type=F8):
    g = k // 32
    a = Tile[TileType.Left, a_type, m, k, BLayout.ColMajor, m, k, SLayout.RowMajor]()
    b = Tile[TileType.Right, b_type, k, n, BLayout.RowMajor, k, n, SLayout.ColMajor]()
    sa = Tile[TileType.ScaleLeft, E8, m, g, BLayout.RowMajor, m, g, SLayout.RowMajor, 32]()
    sb = Tile[TileType.ScaleRight, E8, g, n, BLayout.ColMajor, g, n, SLayout.ColMajor, 32]()
    c = Tile[TileType.Acc, float, m, n, BLayout.ColMajor, m, n, SLayout.RowMajor, 1024]()
    return c, a, sa, b, sb


def mx_reference(a, b, sa, sb):
    """The page's formula with one scale per 32 k: sum_k A[i,k] B[k,j] sa[i,k//32] sb[k//32,j] (NumPy, float64;
    the test data keep every partial sum exact in float)."""
    k = a.shape[1]
    scale_a = np.repeat(sa, 32, axis=1)[:, :k]
    scale_b = np.repeat(sb, 32, axis=0)[:k, :]
    return np.einsum("ik,kj,ik,kj->ij", a, b, scale_a, scale_b)


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("b_type", [ptoisa.float8_e4m3_t, ptoisa.float8_e5m2_t])
def test_mx_scales_each_group_of_32(target, b_type):
    rng = np.random.default_rng(7)
    c, a, sa, b, sb = mx_tiles(k=128, b_type=b_type)
    av = rng.integers(-4, 5, (16, 128)).astype(np.float64)
    bv = (rng.integers(-4, 5, (128, 16)) / 2).astype(np.float64)
    sav = 2.0 ** rng.integers(-3, 4, (16, 4))
    sbv = 2.0 ** rng.integers(-3, 4, (4, 16))
    a.set_logical(av.astype(ml_dtypes.float8_e4m3fn))
    b.set_logical(bv.astype(b_type.np))
    sa.set_logical(sav.astype(ml_dtypes.float8_e8m0fnu))
    sb.set_logical(sbv.astype(ml_dtypes.float8_e8m0fnu))
    ptoisa.TMATMUL_MX(c, a, sa, b, sb, target=target)
    np.testing.assert_array_equal(c.data.astype(np.float64), mx_reference(av, bv, sav, sbv))


def test_mx_overloads_route_like_cpp():
    c, a, sa, b, sb = mx_tiles()
    a.set_logical(np.ones((16, 64)).astype(ml_dtypes.float8_e4m3fn))
    b.set_logical(np.ones((64, 16)).astype(ml_dtypes.float8_e4m3fn))
    sa.set_logical(np.ones((16, 2)).astype(ml_dtypes.float8_e8m0fnu))
    sb.set_logical(np.ones((2, 16)).astype(ml_dtypes.float8_e8m0fnu))
    c_in = Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024]()
    c_in.storage[:] = 1.5
    bias = Tile[TileType.Bias, float, 1, 16]()
    bias.storage[:] = -4.0
    assert ptoisa.TMATMUL_MX(c, c_in, a, sa, b, sb, target="cpu").op == "TMATMUL_MX_ACC"
    assert (c.data == 65.5).all()  # 1.5 + 64
    assert ptoisa.TMATMUL_MX(c, a, sa, b, sb, bias, target="cpu").op == "TMATMUL_MX_BIAS"
    assert (c.data == 60.0).all()


def test_cpu_decodes_fp8_as_the_simulator_and_a5_as_ocp():
    # e4m3 0x7F: 480 in the simulator's MXType (no NaN), NaN in OCP e4m3fn; e8m0 0x80 = 2**1
    c, a, sa, b, sb = mx_tiles()
    a.storage[:] = 0
    a.set_logical(np.zeros((16, 64), ml_dtypes.float8_e4m3fn))
    raw = a.data.view(np.uint8).copy()
    raw[0, 0] = 0x7F
    a.set_logical(raw.view(ml_dtypes.float8_e4m3fn))
    b.set_logical(np.ones((64, 16)).astype(ml_dtypes.float8_e4m3fn))
    sa.set_logical(np.full((16, 2), 2.0).astype(ml_dtypes.float8_e8m0fnu))
    sb.set_logical(np.ones((2, 16)).astype(ml_dtypes.float8_e8m0fnu))
    ptoisa.TMATMUL_MX(c, a, sa, b, sb, target="cpu")
    assert c.data[0, 0] == 960.0 and c.data[1, 0] == 0.0
    ptoisa.TMATMUL_MX(c, a, sa, b, sb, target="a5")
    assert np.isnan(c.data[0, 0]) and c.data[1, 0] == 0.0


def test_half_scales_multiply_in_half():
    # the simulator's `scale0 * scale1` on two halves rounds to half: 1.0009765625**2 = 1.00195407... -> 1.001953125
    c, a, _, b, _ = mx_tiles()
    sa = Tile[TileType.Scaling, ptoisa.half, 16, 16]()
    sb = Tile[TileType.Scaling, ptoisa.half, 16, 16]()
    sa.storage[:] = np.float16(1.0009765625)
    sb.storage[:] = np.float16(1.0009765625)
    a.set_logical(np.ones((16, 64)).astype(ml_dtypes.float8_e4m3fn))
    b.set_logical(np.ones((64, 16)).astype(ml_dtypes.float8_e4m3fn))
    ptoisa.TMATMUL_MX(c, a, sa, b, sb, target="cpu")
    assert c.data[0, 0] == np.float32(64 * 1.001953125)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_mx_refusals_change_nothing(target):
    c, a, sa, b, sb = mx_tiles()
    c.storage[:] = 3
    before = c.tobytes()
    if target == "a2a3":
        with pytest.raises(IllegalInstructionError, match="TMATMUL_MX on a2a3: is an A5 instruction"):
            ptoisa.TMATMUL_MX(c, a, sa, b, sb, target=target)
    else:
        small = Tile[TileType.ScaleLeft, E8, 16, 2, BLayout.RowMajor, 16, 2, SLayout.RowMajor, 32]()
        c2, a2, _, b2, sb2 = mx_tiles(k=128)
        c2.storage[:] = 3
        before = c2.tobytes()
        with pytest.raises(IllegalInstructionError, match="aScaleMatrix holds 16x2 scales; m x ceil\\(k/32\\) = 16x4"):
            ptoisa.TMATMUL_MX(c2, a2, small, b2, sb2, target=target)
        assert c2.tobytes() == before
        a32 = Tile[TileType.Left, F8, 16, 32, BLayout.ColMajor, 16, 32, SLayout.RowMajor]()
        b32 = Tile[TileType.Right, F8, 32, 16, BLayout.RowMajor, 32, 16, SLayout.ColMajor]()
        with pytest.raises(IllegalInstructionError, match="aMatrix Cols must be a multiple of 64 \\(got 32\\)"):
            ptoisa.TMATMUL_MX(c, a32, sa, b32, sb, target=target)
        half_a = Tile[TileType.Left, ptoisa.half, 16, 64, BLayout.ColMajor, 16, 64, SLayout.RowMajor]()
        half_b = Tile[TileType.Right, ptoisa.half, 64, 16, BLayout.RowMajor, 64, 16, SLayout.ColMajor]()
        with pytest.raises(IllegalInstructionError, match="aMatrix dtype half is not supported"):
            ptoisa.TMATMUL_MX(c, half_a, sa, half_b, sb, target=target)
    assert c.tobytes() == before


KERNEL = Path(__file__).parent.parent / "data" / "pto" / "tgemv_mx_kernel.pto"


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_a_pto_kernel_runs_the_mx_gemv(target):
    """pto.tgemv.mx, .bias and .acc in PTOAS's syntax (half scale tiles in `scaling` shaped like their operands,
    as PTOAS's own tests write them) verify for A5 and run; A2/A3 refuses them."""
    from ptoisa.interp import load
    from ptoisa.ir.diagnostics import check_text

    text = KERNEL.read_text()
    assert check_text(text, target="a5").ok
    refused = check_text(text, target="a2a3")
    assert not refused.ok and "TGEMV_MX on a2a3: is an A5 instruction" in str(refused.as_json())
    if target == "a5":  # the kernel's .acc gives a cIn other than cOut: the backend adds to cOut's own values
        with pytest.warns(ErratumWarning, match="tmatmul_acc_ignores_cin"):
            result = load(text).run(target=target, fill=0x3C)
    else:
        result = load(text).run(target=target, fill=0x3C)
    assert result.ops_executed >= 3


def ref_scaled_sum(fa, fb, sa, sb, rounded):
    """The MX kernel's loop as it was: one term and one rounding per k over whole tiles."""
    m, k = fa.shape
    acc = np.zeros((m, fb.shape[1]), np.float32)
    with np.errstate(all="ignore"):
        for g in range(-(-k // 32)):
            scale = sa[:, g:g + 1] * sb[g:g + 1, :]
            if rounded is not None:
                scale = scale.astype(rounded).astype(np.float64)
            for step in range(g * 32, min(k, (g + 1) * 32)):
                term = (fa[:, step:step + 1] * fb[step:step + 1, :]) * scale
                acc = (acc.astype(np.float64) + term).astype(np.float32)
    return acc


@pytest.mark.parametrize("terms", [None, 256, 8])  # the module's chunk, then a few k or one k at a time
@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_mx_steps_as_the_step_loop(target, terms, monkeypatch):
    """Bit for bit (NaN payloads included) the loop of one term per k, on random bytes of every fp8 pair and
    scale type, k not a multiple of 32, one row or one column."""
    from ptoisa.dtypes import DType as D
    from ptoisa.isa.vector import mx

    if terms is not None:
        monkeypatch.setattr(mx, "_TERMS", terms)
    rng = np.random.default_rng(len(target) + (terms or 0))
    for (m, k, n), (a_t, b_t), scale_t in [((16, 64, 16), (D.F8E4M3, D.F8E4M3), D.F8E8M0),
                                            ((1, 100, 20), (D.F8E4M3, D.F8E5M2), D.F8E8M0),
                                            ((13, 70, 1), (D.F8E5M2, D.F8E5M2), D.F16),
                                            ((5, 33, 9), (D.F8E5M2, D.F8E4M3), D.F32)]:
        groups = -(-k // 32)
        a = rng.integers(0, 256, (m, k), dtype=np.uint8).view(a_t.np)
        b = rng.integers(0, 256, (k, n), dtype=np.uint8).view(b_t.np)
        if scale_t is D.F8E8M0:
            sa = rng.integers(120, 135, (m, groups), dtype=np.uint8).view(scale_t.np)
            sb = rng.integers(120, 135, (groups, n), dtype=np.uint8).view(scale_t.np)
            rounded = None
        else:
            sa = (rng.standard_normal((m, groups)) * 3).astype(scale_t.np)
            sb = (rng.standard_normal((groups, n)) * 3).astype(scale_t.np)
            rounded = np.dtype(scale_t.np)
        fa, fb = mx._decode(a, a_t, target), mx._decode(b, b_t, target)
        fsa, fsb = mx._decode(sa, scale_t, target), mx._decode(sb, scale_t, target)
        with np.errstate(all="ignore"):
            got = mx._scaled_sum(fa, fb, fsa, fsb, rounded)
        want = ref_scaled_sum(fa, fb, fsa, fsb, rounded)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (m, k, n, a_t, b_t, scale_t)
        if target == "a5":
            assert np.isnan(want).any()  # OCP bytes hold NaNs (e4m3 0x7F, e5m2 exponent 31)
