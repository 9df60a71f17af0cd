"""The bias forms (TMATMUL_BIAS, TGEMV_BIAS, TMATMUL_MX_BIAS, TGEMV_MX_BIAS): which elements of C get the bias,
and which bias columns are read.

- The NPUs' cube units (a2a3, a5: `mad`/`mad_mx` with the bias table) add bias[0, j] to the M x N elements they
  compute, reading bias columns j < N.
- The simulator (`cpu`: TMATMUL_BIAS_IMPL, the MX bias form of TMATMUL_MX_IMPL, TGEMV_* calling them) stores the
  product at i < M, j < N, then runs `for c < cMatrix.GetValidCol(): for r < cMatrix.GetValidRow():
  cMatrix.AddToElement(r, c, bias.GetElement(0, c))`: C's valid region, not M x N. A product outside C's valid
  region keeps no bias; an element of C's valid region outside M x N gets the bias added to its old value. That
  is the cpu erratum `tmatmul_bias_valid_region` (named where C's valid region is not M x N; with errata off cpu
  does what the NPUs do).

Expected values below are worked from those loops (and agree with the simulator built with g++ from
include/pto/cpu/; the second test holds the rows it printed). A bias tile too narrow for the columns read (N on
the NPUs and cpu with errata off, C's valid cols on cpu) would be read past its storage: refused, every byte unchanged (it crashed with
NumPy's ValueError)."""

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
OLD = 100.0


def logical(tile):
    """Every element of the tile's storage at its (row, col), valid or not."""
    return tile.storage[offset_table(tile.spec)]


def make(name, rows, c_valid, m, n, k, dynamic, ctype=np.float32):
    """C (rows x 32 Acc, valid `c_valid`), A and B of ones with valid M x K and K x N (MX: e4m3 ones and 2^0
    scales, K a multiple of 32 up to 64), and a 1x32 bias with bias[0, j] = j / 2 (int32: j)."""
    def tile(spec, valid):
        return spec(*valid) if dynamic else spec()

    def valid(r, c):
        return (-1, -1) if dynamic else (r, c)

    c = tile(Tile[TileType.Acc, ctype, rows, 32, BLayout.ColMajor, *valid(*c_valid), SLayout.RowMajor, 1024], c_valid)
    c.storage[:] = OLD
    bias = Tile[TileType.Bias, ctype, 1, 32]()
    bias.storage[:] = (np.arange(32) * (1 if ctype is np.int32 else 0.5)).astype(ctype)
    if "MX" in name:
        a = tile(Tile[TileType.Left, E4M3, rows, 64, BLayout.ColMajor, *valid(m, k), SLayout.RowMajor], (m, k))
        b = tile(Tile[TileType.Right, E4M3, 64, 32, BLayout.RowMajor, *valid(k, n), SLayout.ColMajor], (k, n))
        sa = Tile[TileType.ScaleLeft, E8M0, rows, 2, BLayout.RowMajor, rows, 2, SLayout.RowMajor, 32]()
        sb = Tile[TileType.ScaleRight, E8M0, 2, 32, BLayout.ColMajor, 2, 32, SLayout.ColMajor, 32]()
        for t, byte in ((a, 0x38), (b, 0x38), (sa, 127), (sb, 127)):
            t.storage.view(np.uint8)[:] = byte
        return c, [a, sa, b, sb], bias
    src = np.int8 if ctype is np.int32 else np.float16
    a = tile(Tile[TileType.Left, src, rows, 32, BLayout.ColMajor, *valid(m, k), SLayout.RowMajor], (m, k))
    b = tile(Tile[TileType.Right, src, 32, 32, BLayout.RowMajor, *valid(k, n), SLayout.ColMajor], (k, n))
    a.storage[:] = 1
    b.storage[:] = 1
    return c, [a, b], bias


def expected(simulator, rows, c_valid, m, n, k, ctype=np.float32):
    """`simulator`: the cpu target's loops (erratum tmatmul_bias_valid_region), else the NPUs' M x N."""
    bias = (np.arange(32) * (1 if ctype is np.int32 else 0.5)).astype(ctype)
    want = np.full((rows, 32), OLD, ctype)
    want[:m, :n] = k
    if simulator:
        vr, vc = c_valid
        want[:vr, :vc] += bias[:vc]
    else:
        want[:m, :n] += bias[:n]
    return want


FORMS = [("TMATMUL_BIAS", ("a2a3", "a5", "cpu")), ("TGEMV_BIAS", ("a2a3", "a5", "cpu")),
         ("TMATMUL_MX_BIAS", ("a5", "cpu")), ("TGEMV_MX_BIAS", ("a5", "cpu"))]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name, targets", FORMS)
@pytest.mark.parametrize("region", ["wider", "narrower", "crossing", "equal"])
def test_the_bias_goes_to_c_s_valid_region_on_cpu_and_to_m_x_n_on_the_npus(name, targets, region, dynamic):
    gemv = "GEMV" in name
    rows = 1 if gemv else 16
    k = 64 if "MX" in name else 16
    m, n = (1, 8) if gemv else (8, 8)
    c_valid = {"wider": (1, 12) if gemv else (12, 12), "narrower": (1, 4) if gemv else (4, 4),
               "crossing": (1, 20) if gemv else (4, 20), "equal": (m, n)}[region]
    for target, errata in [(t, True) for t in targets] + [("cpu", False)]:
        c, ops, bias = make(name, rows, c_valid, m, n, k, dynamic)
        simulator = target == "cpu" and errata
        with ptoisa.target(target, errata=errata), warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            getattr(ptoisa, name)(c, *ops, bias)
        named = [w for w in seen if "tmatmul_bias_valid_region" in str(w.message)]
        assert len(named) == (simulator and region != "equal"), (target, errata, [str(w.message) for w in seen])
        assert np.array_equal(logical(c), expected(simulator, rows, c_valid, m, n, k)), (target, errata)


def test_the_simulator_s_output_for_one_case():
    """TMATMUL_BIAS on cpu, C valid 12x12, M = N = 8, K = 16, ones, C filled with 100, bias[0, j] = j / 2: the
    rows the simulator printed (rows 0-7: 16 + j/2 for j < 8, 100 + j/2 for 8 <= j < 12, 100 after; rows 8-11:
    100 + j/2 for j < 12; rows 12-15 untouched; here C is 32 columns wide, the columns past 16 untouched too)."""
    c, ops, bias = make("TMATMUL_BIAS", 16, (12, 12), 8, 8, 16, True)
    with pytest.warns(ErratumWarning, match="tmatmul_bias_valid_region"):
        ptoisa.TMATMUL_BIAS(c, *ops, bias, target="cpu")
    got = logical(c)
    row0 = [16.0, 16.5, 17.0, 17.5, 18.0, 18.5, 19.0, 19.5, 104.0, 104.5, 105.0, 105.5]
    assert got[0].tolist() == row0 + [100.0] * 20
    assert got[8].tolist() == [100.0 + j / 2 for j in range(12)] + [100.0] * 20
    assert got[12].tolist() == [100.0] * 32


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_int32_bias_on_old_values_wraps_on_cpu(dynamic):
    """int32 `data[offset] += summand`: an old element outside M x N near INT32_MAX wraps."""
    c, ops, bias = make("TMATMUL_BIAS", 16, (12, 12), 8, 8, 16, dynamic, np.int32)
    c.storage[:] = np.iinfo(np.int32).max - 3
    with pytest.warns(ErratumWarning, match="tmatmul_bias_valid_region"):
        ptoisa.TMATMUL_BIAS(c, *ops, bias, target="cpu")
    got = logical(c).astype(np.int64)
    top = np.iinfo(np.int32).max - 3
    assert got[0, :8].tolist() == [16 + j for j in range(8)]
    assert got[10, :12].tolist() == [(top + j + 2 ** 31) % 2 ** 32 - 2 ** 31 for j in range(12)]
    assert got[12, 0] == top and got[0, 12] == top


@pytest.mark.parametrize("name, targets", FORMS)
def test_a_bias_narrower_than_the_columns_read_is_refused_before_any_byte_changes(name, targets):
    gemv = "GEMV" in name
    rows = 1 if gemv else 16
    for target in targets:
        # cpu reads C's valid cols (24), the NPUs N (24); a 1x16 bias holds 16
        c, ops, _ = make(name, rows, (1 if gemv else 8, 24), 1 if gemv else 8, 24, 64 if "MX" in name else 16, False)
        bias = Tile[TileType.Bias, np.float32, 1, 16]()
        bias.storage[:] = 1.0
        tiles = [c, *ops, bias]
        before = [t.storage.tobytes() for t in tiles]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(IllegalInstructionError) as info:
                getattr(ptoisa, name)(*tiles, target=target)
        assert info.value.operand == "biasData" and "16 columns; 24 are read" in str(info.value), str(info.value)
        assert [t.storage.tobytes() for t in tiles] == before


def test_which_columns_are_read_differs_by_target():
    """N = 24 over a 1x16 bias with C's valid cols 16: the NPUs read 24 columns (refused), cpu reads 16 (runs);
    N = 8 with C's valid cols 24: cpu reads 24 (refused), the NPUs 8 (run). cpu with errata off reads N."""
    bias = Tile[TileType.Bias, np.float32, 1, 16]()
    c, ops, _ = make("TMATMUL_BIAS", 16, (8, 16), 8, 24, 16, False)
    with pytest.raises(IllegalInstructionError):
        ptoisa.TMATMUL_BIAS(c, *ops, bias, target="a5")
    with ptoisa.target("cpu", errata=False), pytest.raises(IllegalInstructionError):  # without the simulator's
        ptoisa.TMATMUL_BIAS(c, *ops, bias)  # loops cpu reads N columns, as the NPUs
    with pytest.warns(ErratumWarning, match="tmatmul_bias_valid_region"):
        ptoisa.TMATMUL_BIAS(c, *ops, bias, target="cpu")
    c, ops, _ = make("TMATMUL_BIAS", 16, (8, 24), 8, 8, 16, False)
    with pytest.raises(IllegalInstructionError):
        ptoisa.TMATMUL_BIAS(c, *ops, bias, target="cpu")
    with ptoisa.target("cpu", errata=False):
        ptoisa.TMATMUL_BIAS(c, *ops, bias)
    ptoisa.TMATMUL_BIAS(c, *ops, bias, target="a2a3")
