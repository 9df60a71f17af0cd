"""Bad arguments anywhere in the public API raise our own errors (never a bare ValueError/TypeError/KeyError),
and a warning turned into an error leaves every byte unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TCI, TCMPS, TEXPANDS, BLayout, CmpMode, ErratumWarning, Layout, PtoError, Tile, TileType
from ptoisa.dtypes import half, int32_t, uint8_t
from ptoisa.tile import ConvTile

GOOD = (TileType.Mat, half, 64, Layout.NC1HWC0, (1, 1, 2, 2, 16))


@pytest.mark.parametrize("index,bad,message", [
    (0, 99, "unknown location 99"),
    (3, "XYZ", "unknown conv layout 'XYZ'"),
    (4, ("a",), "dim must be an integer"),
    (2, "x", "BufferSize must be an integer"),
    (4, 5, "shape must be a tuple"),
])
def test_conv_tile_arguments(index, bad, message):
    args = list(GOOD)
    args[index] = bad
    with pytest.raises(PtoError, match=message):
        ConvTile[tuple(args)]


def test_conv_tile_dynamic_dim_must_be_an_integer():
    spec = ConvTile[TileType.Mat, half, 64, Layout.NC1HWC0, (1, -1, 2, 2, 16)]
    with pytest.raises(PtoError, match="dynamic dim must be an integer"):
        spec("1")


def test_tci_descending_and_template_arguments():
    tile_t = Tile[TileType.Vec, int32_t, 1, 16]
    dst = tile_t()
    with pytest.raises(PtoError, match="descending must be 0/1 or a bool"):
        TCI(dst, 0, descending=np.array([0, 1]))
    with pytest.raises(PtoError, match="a tmp tile needs TCI\\[TileData, TileDataTmp, T, descending\\]"):
        TCI[tile_t, int32_t, 0](dst, 0, Tile[TileType.Vec, float, 1, 512]())
    assert dst.tobytes() == bytes(64)


def test_target_arguments():
    dst = Tile[TileType.Vec, float, 1, 8]()
    with pytest.raises(PtoError, match="target must be a target name or a Config \\(got list\\)"):
        TEXPANDS(dst, 1.0, target=["a5"])
    with ptoisa.target("a5", errata="tgather_cmp_unsigned") as config:  # one name, not its letters
        assert config.errata == frozenset({"tgather_cmp_unsigned"})


def test_conv_whole_blocks_on_npus_only():
    spec = ConvTile[TileType.Mat, int32_t, 160, Layout.NC1HWC0, (2, 5, 5, 1, 3)]  # 150 int32 = 600 bytes
    npu, cpu = spec(), spec()
    with pytest.warns(ErratumWarning, match="texpands_conv_whole_blocks"):
        TEXPANDS(npu, 7, target="a5")
    TEXPANDS(cpu, 7, target="cpu")
    assert int((npu.storage == 7).sum()) == 144  # floor(600 / 32) = 18 blocks = 144 elements
    assert int((cpu.storage == 7).sum()) == 150


def test_an_erratum_warning_raised_as_error_changes_nothing():
    src = Tile[TileType.Vec, float, 1, 8]()
    src.set_logical(np.array([[1e-12, 1, 2, 3, 4, 5, 6, 7]], dtype=np.float32))
    dst = Tile[TileType.Vec, uint8_t, 1, 32, BLayout.RowMajor, -1, -1](1, 1)
    dst.storage[:] = 0xAA
    with warnings.catch_warnings():
        warnings.simplefilter("error", ErratumWarning)
        with pytest.raises(ErratumWarning, match="tcmps_eq_tolerance"):
            TCMPS(dst, src, 0.0, CmpMode.EQ, target="cpu")
    assert dst.tobytes() == b"\xaa" * 32
