"""TCMPS on a2a3, a5 and cpu: hand-worked bytes, the seed's examples, errata and fallbacks, every legality rule,
and property tests against the independent oracle in _oracle_tcmps_tgather.py.

Sources: seeds/000 (TCMPS), DECISIONS 1-6, reference-facts 5.1-5.3.
"""

from __future__ import annotations

import warnings

import os
import re
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    GatherAxis,
    NPU_MEMORY_CLEAR,
    TASSIGN,
    TCMPS,
    BLayout,
    CmpMode,
    ErratumWarning,
    IllegalInstructionError,
    ModeFallbackWarning,
    RecordEvent,
    Tile,
    TileType,
    uint8_t,
)

sys.path.insert(0, os.path.dirname(__file__))
import _oracle_tcmps_tgather as O  # noqa: E402

# These tests convert out-of-range scalars on purpose; the warning that says so is tested in test_narrowing.py.
pytestmark = pytest.mark.filterwarnings("ignore::ptoisa.errors.NarrowingWarning")


TARGETS = ("a2a3", "a5", "cpu")
RM, CM = BLayout.RowMajor, BLayout.ColMajor
NP = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "half": np.float16, "float": np.float32, "bfloat16": ml_dtypes.bfloat16}


def tile(dtype, rows, cols, vr=None, vc=None, layout=RM, loc=TileType.Vec, fill=None):
    """A tile with dynamic valid sizes (vr, vc) (default: the whole tile), optionally filled with raw byte `fill`."""
    t = Tile[loc, dtype, rows, cols, layout, -1, -1](rows if vr is None else vr, cols if vc is None else vc)
    if fill is not None:
        t.storage.view(np.uint8)[:] = fill
    return t


def rows_bytes(t):
    """dst bytes as a (Rows, row-bytes) uint8 array (row-major dst)."""
    return np.frombuffer(t.tobytes(), dtype=np.uint8).reshape(t.spec.rows, -1)


def random_fill(t, rng):
    t.storage.view(np.uint8)[:] = rng.integers(0, 256, t.spec.nbytes, dtype=np.uint8)


def assert_refused(call, tiles, message, exc=IllegalInstructionError):
    """The call raises `exc` with exactly `message` and no byte of any tile changes."""
    before = O.snapshot(*tiles)
    with O.no_ptoisa_warnings():
        with pytest.raises(exc) as info:
            call()
    assert str(info.value) == message
    assert O.snapshot(*tiles) == before, "a refused call changed a tile"
    return info.value


# A small source used by several hand-worked cases: float 2x16, GT 0.0
#   row 0 = [1, -1] * 8            -> bits 1,0,1,0,... -> bytes 0x55 0x55
#   row 1 = [-1] * 15 + [5]        -> bits only at column 15 -> bytes 0x00 0x80
def small_src():
    src = tile(ptoisa.float32_t, 2, 16)
    src.set_logical(np.array([[1, -1] * 8, [-1] * 15 + [5]], dtype=np.float32))
    return src


# ======================================================================================================
# Hand-worked values
# ======================================================================================================
class TestHandWorkedA2A3:
    def test_contract_rows_packed_lsb_first_rest_untouched(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with ptoisa.target("a2a3", errata=False), O.no_ptoisa_warnings():
            ev = TCMPS(dst, src, 0.0, CmpMode.GT)
        assert isinstance(ev, RecordEvent)
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55] + [0xAA] * 30
        assert list(b[1]) == [0x00, 0x80] + [0xAA] * 30

    def test_repeat_tail_erratum_writes_next_rows_bits(self):
        # 64 floats per repeat: row 0 compares flat storage 0..63 (row 1 then past the 32-element tile -> 0),
        # row 1 compares 16..79. 8 packed bytes land at each dst row (pitch 32).
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with pytest.warns(ErratumWarning, match=r"TCMPS on a2a3: erratum tcmps_repeat_tail"):
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a2a3")
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55, 0x00, 0x80, 0, 0, 0, 0] + [0xAA] * 24
        assert list(b[1]) == [0x00, 0x80, 0, 0, 0, 0, 0, 0] + [0xAA] * 24

    def test_repeat_tail_ne_is_eq_then_inverts_valid_rows_times_dst_cols(self):
        # NE -1: hardware EQ -1 row0 = AA AA | FF 7F | 00.., row1 = FF 7F | 00..; then ~ of the first 2*32 bytes.
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with pytest.warns(ErratumWarning, match="tcmps_repeat_tail"):
            TCMPS(dst, src, -1.0, CmpMode.NE, target="a2a3")
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0xFF] + [0x55] * 24
        assert list(b[1]) == [0x00, 0x80] + [0xFF] * 6 + [0x55] * 24

    def test_repeat_tail_ne_contract_when_errata_off(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with ptoisa.target("a2a3", errata=False), O.no_ptoisa_warnings():
            TCMPS(dst, src, -1.0, CmpMode.NE)
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55] + [0xAA] * 30
        assert list(b[1]) == [0x00, 0x80] + [0xAA] * 30

    def test_no_erratum_warning_when_tail_does_not_change_bytes(self):
        # float 2x64, full valid: one whole repeat per row, nothing past the valid columns.
        src = tile(ptoisa.float32_t, 2, 64)
        src.set_logical(np.where(np.arange(128).reshape(2, 64) % 3 == 0, 2.0, -2.0).astype(np.float32))
        dst = tile(uint8_t, 2, 32, 2, 8)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a2a3")
        bits = (np.arange(128).reshape(2, 64) % 3 == 0)
        assert np.array_equal(rows_bytes(dst)[:, :8], O.pack_lsb(bits))
        assert not rows_bytes(dst)[:, 8:].any()

    def test_tail_bits_false_means_no_warning(self):
        # src 4x16, valid (1, 9): 3.0 in the valid region, -1.0 elsewhere. Row 0's repeat compares flat 0..63,
        # but only the valid elements are > 0, so it writes FF 01 00 ... over zeros: no byte differs.
        src = tile(ptoisa.float32_t, 4, 16, 1, 9)
        src.set_logical(np.full((4, 16), -1.0, dtype=np.float32))
        src.set_logical(np.full((1, 9), 3.0, dtype=np.float32))
        dst = tile(uint8_t, 1, 32, 1, 2)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a2a3")
        assert list(rows_bytes(dst)[0]) == [0xFF, 0x01] + [0] * 30

    def test_partial_valid_source_with_tail(self):
        # src 4x16 all 1.0, valid (2, 9): contract FF 01 per row; the repeat tail makes row 0 = 8 x FF
        # (flat 0..63 all 1.0) and row 1 = 6 x FF then 0 0 (flat 16..63, then past the tile).
        src = tile(ptoisa.float32_t, 4, 16, 2, 9)
        src.set_logical(np.ones((4, 16), dtype=np.float32))
        dst = tile(uint8_t, 2, 32, 2, 2)
        with pytest.warns(ErratumWarning):
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a2a3")
        assert list(rows_bytes(dst)[0, :9]) == [0xFF] * 8 + [0]
        assert list(rows_bytes(dst)[1, :9]) == [0xFF] * 6 + [0, 0, 0]
        dst2 = tile(uint8_t, 2, 32, 2, 2)
        with ptoisa.target("a2a3", errata=False):
            TCMPS(dst2, src, 0.0, CmpMode.GT)
        assert list(rows_bytes(dst2)[:, :3].reshape(-1)) == [0xFF, 0x01, 0, 0xFF, 0x01, 0]


class TestHandWorkedA5:
    def test_uint8_dst_rows_zero_padded_to_128_element_chunk(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with pytest.warns(ErratumWarning, match="tcmps_chunk_tail"):  # the chunk tail overwrote 0xAA bytes
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55] + [0] * 14 + [0xAA] * 16
        assert list(b[1]) == [0x00, 0x80] + [0] * 14 + [0xAA] * 16
        contract = tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with ptoisa.target("a5", errata=False), O.no_ptoisa_warnings():
            TCMPS(contract, src, 0.0, CmpMode.GT)
        assert list(rows_bytes(contract)[0]) == [0x55, 0x55] + [0xAA] * 30  # only the predicate bytes

    def test_uint32_dst_words_little_endian(self):
        src = small_src()
        dst = tile(ptoisa.uint32_t, 2, 8, 2, 1, fill=0xAA)
        with pytest.warns(ErratumWarning, match="tcmps_chunk_tail"):
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
        words = dst.data
        assert [int(w) for w in words[0]] == [0x00005555, 0, 0, 0] + [0xAAAAAAAA] * 4
        assert [int(w) for w in words[1]] == [0x00008000, 0, 0, 0] + [0xAAAAAAAA] * 4

    def test_partial_valid_bits_past_valid_cols_are_zero(self):
        src = tile(ptoisa.float32_t, 4, 16, 2, 9)
        src.set_logical(np.ones((4, 16), dtype=np.float32))
        dst = tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with pytest.warns(ErratumWarning, match="tcmps_chunk_tail"):
            TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
        assert list(rows_bytes(dst)[0]) == [0xFF, 0x01] + [0] * 14 + [0xAA] * 16
        assert list(rows_bytes(dst)[1]) == [0xFF, 0x01] + [0] * 14 + [0xAA] * 16

    def test_int8_source_chunk_is_256_elements(self):
        src = tile(ptoisa.int8_t, 1, 32)
        src.set_logical(np.arange(32, dtype=np.int8).reshape(1, 32))
        dst = tile(uint8_t, 1, 64, 1, 4, fill=0xAA)
        with pytest.warns(ErratumWarning, match="tcmps_chunk_tail"):
            TCMPS(dst, src, 29, CmpMode.GE, target="a5")  # columns 29, 30, 31
        assert list(rows_bytes(dst)[0]) == [0, 0, 0, 0xE0] + [0] * 28 + [0xAA] * 32

    def test_int16_compared_exactly_on_a5(self):
        src = tile(ptoisa.int16_t, 1, 16)
        src.set_logical(np.array([[-1, 0, -32768, -16384] + [7] * 12], dtype=np.int16))
        dst = tile(uint8_t, 1, 32, 1, 2)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, -1, CmpMode.EQ, target="a5")
        assert list(rows_bytes(dst)[0, :2]) == [0x01, 0x00]
        TCMPS(dst, src, -15360, CmpMode.LT, target="a5")  # -32768 and -16384 are < -15360
        assert list(rows_bytes(dst)[0, :2]) == [0x0C, 0x00]


class TestHandWorkedCpu:
    def test_stream_zeroes_whole_dst(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2, fill=0xAA)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55] + [0] * 30
        assert list(b[1]) == [0x00, 0x80] + [0] * 30

    def test_stream_reflows_over_dst_valid_shape(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 32, fill=0xAA)
        TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        b = rows_bytes(dst)
        assert list(b[0]) == [0x55, 0x55, 0x00, 0x80] + [0] * 28
        assert not b[1].any()

    def test_one_byte_value_per_wide_dst_element(self):
        src, dst = small_src(), tile(ptoisa.uint32_t, 2, 8, 2, 8, fill=0xAA)
        TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        assert [int(x) for x in dst.data[0]] == [0x55, 0x55, 0x00, 0x80, 0, 0, 0, 0]
        assert not dst.data[1].any()
        fdst = tile(ptoisa.float32_t, 2, 8, 2, 2, fill=0xAA)
        TCMPS(fdst, src, 0.0, CmpMode.GT, target="cpu")
        assert fdst.data.tolist() == [[85.0, 85.0] + [0.0] * 6, [0.0, 128.0] + [0.0] * 6]

    def test_col_major_dst_placed_through_layout(self):
        src = small_src()
        dst = tile(uint8_t, 32, 2, 2, 2, layout=CM, fill=0xAA)
        TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        raw = np.frombuffer(dst.tobytes(), dtype=np.uint8)
        expected = np.zeros(64, dtype=np.uint8)
        expected[[0, 32, 1, 33]] = [0x55, 0x55, 0x00, 0x80]  # DN offset = c * Rows + r
        assert np.array_equal(raw, expected)

    def test_col_major_source_drops_trailing_columns_and_reflows(self):
        # src float DN 8x12: W = 12 -> floor(12/8) = 1 byte per static row (columns 8..11 dropped).
        # src[r, c] = 1 on the diagonal: byte r = 1 << r. dst valid (8, 2) -> 8 bytes over 4 rows.
        src = tile(ptoisa.float32_t, 8, 12, layout=CM)
        src.set_logical(np.pad(np.eye(8, dtype=np.float32), ((0, 0), (0, 4)), constant_values=1.0))
        dst = tile(uint8_t, 8, 32, 8, 2, fill=0xAA)
        TCMPS(dst, src, 0.5, CmpMode.GT, target="cpu")
        b = rows_bytes(dst)
        assert b[:, :2].tolist() == [[1, 2], [4, 8], [16, 32], [64, 128], [0, 0], [0, 0], [0, 0], [0, 0]]
        assert not b[:, 2:].any()

    def test_partial_valid_source_stream_covers_static_rows(self):
        src = tile(ptoisa.float32_t, 4, 16, 2, 9)
        src.set_logical(np.ones((4, 16), dtype=np.float32))
        dst = tile(uint8_t, 2, 32, 2, 4)
        TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        assert list(rows_bytes(dst)[0, :5]) == [0xFF, 0x01, 0xFF, 0x01, 0]
        assert not rows_bytes(dst)[1].any()  # stream bytes 4..7 are src rows 2, 3 (invalid -> 0)
        dst = tile(uint8_t, 2, 32, 2, 2)
        TCMPS(dst, src, 0.0, CmpMode.GT, target="cpu")
        assert rows_bytes(dst)[:, :3].tolist() == [[0xFF, 0x01, 0], [0xFF, 0x01, 0]]

    def test_cpu_accepts_any_layout(self):
        src = tile(ptoisa.int8_t, 32, 32, layout=CM)
        src.set_logical(np.tri(32, dtype=np.int8))  # lower triangle incl. diagonal = 1
        dst = tile(uint8_t, 32, 32, 32, 4)
        TCMPS(dst, src, 0, CmpMode.NE, target="cpu")
        expected = O.pack_lsb(np.tri(32, dtype=bool))
        assert np.array_equal(rows_bytes(dst)[:, :4], expected)
        assert not rows_bytes(dst)[:, 4:].any()

    @pytest.mark.parametrize("role", ("src0", "dst"))
    def test_cpu_refuses_a_mat_operand_like_the_seed(self, role):
        """DECISIONS 27: the seed's common constraint (Vec tiles) holds on cpu too, though the simulator would
        run it."""
        src = tile(ptoisa.int8_t, 32, 32, loc=TileType.Mat if role == "src0" else TileType.Vec)
        dst = tile(uint8_t, 32, 32, 32, 4, loc=TileType.Mat if role == "dst" else TileType.Vec)
        assert_refused(lambda: TCMPS(dst, src, 0, CmpMode.NE, target="cpu"), [src, dst],
                       f"TCMPS on cpu: {role} location Mat is not supported (allowed: Vec)")


class TestSignedPredicateDst:
    @pytest.mark.parametrize("target,dtype,cols,valid_cols", [
        ("a2a3", ptoisa.int8_t, 32, 2), ("a5", ptoisa.int8_t, 32, 4), ("a5", ptoisa.int32_t, 8, 1),
    ])
    def test_the_same_bytes_as_the_unsigned_dst(self, target, dtype, cols, valid_cols):
        """DECISIONS 19: the bits land exactly as they do in a uint8 dst (a2a3 TCmps.hpp writes through uint8_t*,
        a5 TCmps.hpp stores the predicate register as uint32_t words): row 0 = [1, -1] * 8 -> 0x55 per byte."""
        src = small_src()
        dst = tile(dtype, 2, cols, 2, valid_cols)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ptoisa.ErratumWarning)  # the a2a3 repeat tail, tested elsewhere
            TCMPS(dst, src, 0.0, CmpMode.GT, target=target)
        raw = np.frombuffer(dst.tobytes(), np.uint8).reshape(2, -1)
        assert raw[0, :2].tolist() == [0x55, 0x55] and raw[1, :2].tolist() == [0x00, 0x80]


class TestScalarAndTileForm:
    @pytest.mark.parametrize("target", TARGETS)
    def test_tile_form_uses_src1_0_0_only(self, target):
        src = small_src()
        src1 = tile(ptoisa.float32_t, 2, 8)
        src1.set_logical(np.full((2, 8), 100.0, dtype=np.float32))
        src1.set_logical(np.array([[0.0]], dtype=np.float32))  # src1[0,0] = 0, everything else 100
        dst = tile(uint8_t, 2, 32, 2, 2)
        with ptoisa.target(target, errata=False):
            TCMPS(dst, src, src1, CmpMode.GT)
        assert rows_bytes(dst)[:, :2].tolist() == [[0x55, 0x55], [0x00, 0x80]]

    def test_tile_form_col_major_src1_reads_logical_0_0_on_cpu(self):
        src = small_src()
        src1 = tile(ptoisa.float32_t, 8, 8, layout=CM)
        src1.set_logical(np.full((8, 8), 100.0, dtype=np.float32))
        src1.set_logical(np.array([[0.0]], dtype=np.float32))
        dst = tile(uint8_t, 2, 32, 2, 2)
        TCMPS(dst, src, src1, CmpMode.GT, target="cpu")
        assert rows_bytes(dst)[:, :2].tolist() == [[0x55, 0x55], [0x00, 0x80]]

    @pytest.mark.parametrize("target", TARGETS)
    def test_scalar_converted_to_src_dtype(self, target):
        src = tile(ptoisa.float32_t, 1, 8)
        src.set_logical(np.array([[0.1, 0.2, 0.1, 0, 0, 0, 0, 0.1]], dtype=np.float32))
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target(target, errata=False):
            TCMPS(dst, src, 0.1, CmpMode.EQ)  # python 0.1 -> float(0.1): equal to the stored floats
        assert rows_bytes(dst)[0, 0] == 0b10000101

    @pytest.mark.parametrize("target", TARGETS)
    def test_float_scalar_truncates_for_int_source(self, target):
        src = tile(ptoisa.int32_t, 1, 8)
        src.set_logical(np.array([[2, 3, -2, 2, 0, 0, 0, 0]], dtype=np.int32))
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target(target, errata=False):
            TCMPS(dst, src, 2.7, CmpMode.EQ)
        assert rows_bytes(dst)[0, 0] == 0b1001
        with ptoisa.target(target, errata=False):
            TCMPS(dst, src, -2.7, CmpMode.EQ)
        assert rows_bytes(dst)[0, 0] == 0b0100

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_int_scalar_wraps_like_cpp_narrowing(self, target):
        src = tile(ptoisa.int8_t, 1, 32)
        src.set_logical(np.array([[44, -56] + [0] * 30], dtype=np.int8))
        dst = tile(uint8_t, 1, 32, 1, 4)
        TCMPS(dst, src, 300, CmpMode.EQ, target=target)  # 300 -> int8 44
        assert rows_bytes(dst)[0, 0] == 0b01
        TCMPS(dst, src, 200, CmpMode.EQ, target=target)  # 200 -> int8 -56
        assert rows_bytes(dst)[0, 0] == 0b10

    def test_events_are_accepted_and_returned(self):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2)
        ev = TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
        ev2 = TCMPS(dst, src, 0.0, CmpMode.GT, ev, target="a5")
        assert isinstance(ev2, RecordEvent) and ev2.op == "TCMPS"
        assert rows_bytes(dst)[:, :2].tolist() == [[0x55, 0x55], [0x00, 0x80]]

    @pytest.mark.parametrize("mode", ["GT", CmpMode.GT])
    def test_mode_spellings(self, mode):
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2)
        TCMPS(dst, src, 0.0, mode, target="cpu")
        assert rows_bytes(dst)[:, :2].tolist() == [[0x55, 0x55], [0x00, 0x80]]

    @pytest.mark.parametrize("mode", [4, 4.0, True, np.int64(4), "gt", GatherAxis.GATHER_ROW])
    def test_modes_are_strict_like_a_cpp_enum_class(self, mode):
        """C++ does not convert an integer (or a bool, or another enum) to CmpMode; neither do we."""
        src, dst = small_src(), tile(uint8_t, 2, 32, 2, 2)
        before = dst.tobytes()
        with pytest.raises(ptoisa.IllegalInstructionError, match="cmpMode must be one of EQ"):
            TCMPS(dst, src, 0.0, mode, target="cpu")
        assert dst.tobytes() == before

    @pytest.mark.parametrize("target", TARGETS)
    def test_all_modes_float_with_specials(self, target):
        vals = np.array([[-1.0, 0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, 0.5]], dtype=np.float32)
        src = tile(ptoisa.float32_t, 1, 8)
        src.set_logical(vals)
        expected = {  # bit i = element i compared with 0.0, contract (IEEE)
            CmpMode.EQ: 0b00000110, CmpMode.NE: 0b11111001, CmpMode.LT: 0b01000001,
            CmpMode.LE: 0b01000111, CmpMode.GT: 0b10101000, CmpMode.GE: 0b10101110,
        }
        for mode, byte in expected.items():
            dst = tile(uint8_t, 1, 32, 1, 1)
            with ptoisa.target(target, errata=False):
                TCMPS(dst, src, 0.0, mode)
            assert rows_bytes(dst)[0, 0] == byte, mode


# ======================================================================================================
# The seed's examples (seeds/000), written in the Python API
# ======================================================================================================
SrcT = Tile[TileType.Vec, ptoisa.float32_t, 16, 16]
DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]


def seed_data():
    r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return (c - r).astype(np.float32)  # GT 0 <=> c > r


def seed_expected(target, dst_before: bytes, values, scalar, mode):
    if target == "a2a3":
        return O.tcmps_a2a3(dst_before, 16, 32, values, 16, 16, scalar, mode, "float", 4, errata=True)
    if target == "a5":
        return O.tcmps_a5(dst_before, 32, values, 16, 16, scalar, mode, True, 4)
    return O.tcmps_cpu(np.uint8, "ND", 16, 32, 16, 2, values, 16, 16, scalar, mode, True)


class TestSeedExamples:
    @pytest.mark.parametrize("target", TARGETS)
    def test_example_auto(self, target):
        src = SrcT()
        dst = DstT(16, 2)
        src.set_logical(seed_data())
        before = dst.tobytes()
        with ptoisa.target(target), O.recording():
            TCMPS(dst, src, 0.0, CmpMode.GT)
        assert dst.tobytes() == seed_expected(target, before, seed_data(), 0.0, O.GT)
        # spot checks by hand: row 0 -> columns 1..15 -> FE FF; row 8 -> columns 9..15 -> 00 FE
        assert list(rows_bytes(dst)[0, :2]) == [0xFE, 0xFF]
        assert list(rows_bytes(dst)[8, :2]) == [0x00, 0xFE]
        assert list(rows_bytes(dst)[15, :2]) == [0x00, 0x00]

    def test_example_auto_default_zero_source(self):
        # As written in the seed: src is never filled (zeros), so GT 0 gives all-zero predicates everywhere.
        for target in TARGETS:
            src, dst = SrcT(), DstT(16, 2)
            with O.no_ptoisa_warnings():
                TCMPS(dst, src, 0.0, CmpMode.GT, target=target)
            assert not any(dst.tobytes())

    @pytest.mark.parametrize("target", TARGETS)
    def test_example_manual(self, target):
        with ptoisa.target(target), O.recording():
            NPU_MEMORY_CLEAR()
            src = SrcT()
            dst = DstT(16, 2)
            TASSIGN(src, 0x1000)
            TASSIGN(dst, 0x2000)
            src.set_logical(seed_data())
            before = dst.tobytes()
            TCMPS(dst, src, 0.0, CmpMode.GT)
        assert dst.binding.offset == 0x2000
        assert dst.tobytes() == seed_expected(target, before, seed_data(), 0.0, O.GT)
        buf = dst.binding.buffer
        assert bytes(buf[0x2000:0x2000 + 512]) == dst.tobytes()  # the result lives in the bound buffer
        assert list(rows_bytes(dst)[0, :2]) == [0xFE, 0xFF]

    @pytest.mark.parametrize("target", TARGETS)
    def test_example_tile_form(self, target):
        src0, src1 = SrcT(), SrcT()
        src0.set_logical(seed_data())
        src1.set_logical(np.full((16, 16), -50.0, dtype=np.float32))
        src1.set_logical(np.array([[3.0]], dtype=np.float32))  # src1[0,0] = 3 decides
        dst = DstT(16, 2)
        before = dst.tobytes()
        with ptoisa.target(target), O.recording():
            TCMPS(dst, src0, src1, CmpMode.GE)
        assert dst.tobytes() == seed_expected(target, before, seed_data(), 3.0, O.GE)
        assert list(rows_bytes(dst)[0, :2]) == [0xF8, 0xFF]  # columns 3..15
        assert list(rows_bytes(dst)[13, :2]) == [0x00, 0x00]


# ======================================================================================================
# Errata and fallbacks
# ======================================================================================================
class TestA2A3Int32Fallback:
    def _src(self, rows):
        src = tile(ptoisa.int32_t, len(rows), 8)
        src.set_logical(np.array(rows, dtype=np.int32))
        return src

    def test_lt_runs_as_eq_with_warning(self):
        src = self._src([[1, 2, 3, 4, 5, 6, 7, 8], [5] * 8])
        dst = tile(uint8_t, 2, 32, 2, 1)
        with ptoisa.target("a2a3", errata=False):
            with pytest.warns(ModeFallbackWarning, match=re.escape("TCMPS on a2a3: int32 LT is executed as EQ "
                                                                   "on this target")):
                TCMPS(dst, src, 5, CmpMode.LT)
        assert list(rows_bytes(dst)[:, 0]) == [0x10, 0xFF]  # EQ 5, not LT 5 (which would be 0x0F, 0x00)

    @pytest.mark.parametrize("mode", [CmpMode.LT, CmpMode.LE, CmpMode.GT, CmpMode.GE])
    def test_every_ordering_mode_falls_back(self, mode):
        src = self._src([[1, 2, 3, 4, 5, 6, 7, 8]])
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target("a2a3", errata=False), pytest.warns(ModeFallbackWarning, match=mode.name):
            TCMPS(dst, src, 5, mode)
        assert rows_bytes(dst)[0, 0] == 0x10

    def test_no_warning_when_fallback_gives_same_result(self):
        src = self._src([[9] * 8])  # LT 5 and EQ 5 are both all-false
        dst = tile(uint8_t, 1, 32, 1, 1)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 5, CmpMode.LT, target="a2a3")
        assert not any(dst.tobytes())
        src = self._src([[5] * 8])  # GE 5 and EQ 5 are both all-true
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 5, CmpMode.GE, target="a2a3")
        assert rows_bytes(dst)[0, 0] == 0xFF

    def test_ne_works_exactly(self):
        src = self._src([[1, 2, 3, 4, 5, 6, 7, 8]])
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target("a2a3", errata=False), O.no_ptoisa_warnings():
            TCMPS(dst, src, 5, CmpMode.NE)
        assert rows_bytes(dst)[0, 0] == 0xEF

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_other_targets_do_not_fall_back(self, target):
        src = self._src([[1, 2, 3, 4, 5, 6, 7, 8]])
        dst = tile(uint8_t, 1, 32, 1, 1)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 5, CmpMode.LT, target=target)
        assert rows_bytes(dst)[0, 0] == 0x0F


class TestA2A3Int16AsHalf:
    def _run(self, values, scalar, mode, dtype=ptoisa.int16_t, **cfg):
        src = tile(dtype, 1, 16)
        src.set_logical(np.array([values + [7] * (16 - len(values))], dtype=NP[dtype.cname]))
        dst = tile(uint8_t, 1, 32, 1, 2)
        with ptoisa.target("a2a3", **cfg):
            TCMPS(dst, src, scalar, mode)
        return list(rows_bytes(dst)[0, :2])

    def test_minus_one_is_nan(self):
        with pytest.warns(ErratumWarning, match="TCMPS on a2a3: erratum tcmps_int16_as_half"):
            assert self._run([-1, 0, -1], -1, CmpMode.EQ) == [0, 0]
        with O.no_ptoisa_warnings():
            assert self._run([-1, 0, -1], -1, CmpMode.EQ, errata=False) == [0b101, 0]

    def test_zero_equals_minus_32768(self):
        with pytest.warns(ErratumWarning, match="tcmps_int16_as_half"):
            assert self._run([0, -32768, 1], 0, CmpMode.EQ) == [0b011, 0]
        assert self._run([0, -32768, 1], 0, CmpMode.EQ, errata=False) == [0b001, 0]

    def test_order_reversed_for_negative_patterns(self):
        # -16384 = 0xC000 = half -2.0; -15360 = 0xC400 = half -4.0: as integers -16384 > -15360 is false,
        # as halves -2.0 < -4.0 is false too; LT flips.
        with pytest.warns(ErratumWarning):
            assert self._run([-16384], -15360, CmpMode.LT) == [0, 0]
        assert self._run([-16384], -15360, CmpMode.LT, errata=False) == [1, 0]

    def test_uint16_nan_pattern(self):
        with pytest.warns(ErratumWarning):
            assert self._run([0x7C01, 0x7C00], 0x7C01, CmpMode.EQ, dtype=ptoisa.uint16_t) == [0, 0]
        assert self._run([0x7C01, 0x7C00], 0x7C01, CmpMode.EQ, dtype=ptoisa.uint16_t, errata=False) == [1, 0]

    def test_no_warning_when_bit_patterns_order_like_integers(self):
        # 0..0x7BFF are non-negative finite halves, ordered like the integers.
        vals = [0, 1, 2, 100, 0x3C00, 0x7BFF, 3, 4]
        for mode in CmpMode:
            with O.no_ptoisa_warnings():  # only this erratum on: NE would also trip tcmps_repeat_tail
                got = self._run(vals, 100, mode, errata={"tcmps_int16_as_half"})
            exact = O.cmp_exact(np.array(vals + [7] * 8, dtype=np.int64), 100, int(mode))
            assert got == list(O.pack_lsb(exact[None, :])[0]), mode


class TestCpuTolerance:
    VALS = [0.0, 1e-10, np.inf, -np.inf, np.nan, 1.0, -0.0, 5e-10]

    def _run(self, scalar, mode, **cfg):
        src = tile(ptoisa.float32_t, 1, 8)
        src.set_logical(np.array([self.VALS], dtype=np.float32))
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target("cpu", **cfg):
            TCMPS(dst, src, scalar, mode)
        return int(rows_bytes(dst)[0, 0])

    def test_eq_within_1e_9(self):
        with pytest.warns(ErratumWarning, match="TCMPS on cpu: erratum tcmps_eq_tolerance"):
            assert self._run(0.0, CmpMode.EQ) == 0b11000011
        assert self._run(0.0, CmpMode.EQ, errata=False) == 0b01000001

    def test_inf_eq_inf_is_false(self):
        with pytest.warns(ErratumWarning):
            assert self._run(np.inf, CmpMode.EQ) == 0
        assert self._run(np.inf, CmpMode.EQ, errata=False) == 0b100

    def test_ne_with_tolerance(self):
        with pytest.warns(ErratumWarning):
            assert self._run(0.0, CmpMode.NE) == 0b00111100
        assert self._run(0.0, CmpMode.NE, errata=False) == 0b10111110

    def test_ne_inf_same_as_contract_no_warning(self):
        with O.no_ptoisa_warnings():
            assert self._run(np.inf, CmpMode.NE) == 0b11111011

    def test_ordering_modes_unaffected(self):
        with O.no_ptoisa_warnings():
            assert self._run(0.0, CmpMode.GT) == 0b10100110  # 1e-10, inf, 1.0, 5e-10

    def test_integers_never_warn(self):
        src = tile(ptoisa.int32_t, 1, 8)
        src.set_logical(np.array([[0, 1, -1, 2**31 - 1, -2**31, 0, 7, 0]], dtype=np.int32))
        dst = tile(uint8_t, 1, 32, 1, 1)
        with O.no_ptoisa_warnings():
            TCMPS(dst, src, 0, CmpMode.EQ, target="cpu")
        assert rows_bytes(dst)[0, 0] == 0b10100001

    def test_no_warning_when_changed_bit_never_reaches_dst(self):
        # src float 2x64 valid (2, 8); dst valid (2, 1): the cpu stream has 8 bytes per static src row and only
        # S[0], S[1] are placed (row 0's two bytes). Row 1 holds 1e-10, which EQ 0.0 turns to 1 under the
        # tolerance, but that bit is stream byte S[8], which is never placed: dst is identical either way.
        src = tile(ptoisa.float32_t, 2, 64, 2, 8)
        v = np.zeros((2, 64), dtype=np.float32)
        v[0, :8] = 5.0
        v[1, 0] = 1e-10
        src.set_logical(v)
        on, off = tile(uint8_t, 2, 32, 2, 1), tile(uint8_t, 2, 32, 2, 1)
        with ptoisa.target("cpu", errata=False):
            TCMPS(off, src, 0.0, CmpMode.EQ)
        with O.no_ptoisa_warnings():
            TCMPS(on, src, 0.0, CmpMode.EQ, target="cpu")
        assert on.tobytes() == off.tobytes() == bytes(64)

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_npu_targets_are_exact(self, target):
        src = tile(ptoisa.float32_t, 1, 8)
        src.set_logical(np.array([self.VALS], dtype=np.float32))
        dst = tile(uint8_t, 1, 32, 1, 1)
        with ptoisa.target(target, errata=False):
            TCMPS(dst, src, np.inf, CmpMode.EQ)
        assert rows_bytes(dst)[0, 0] == 0b100


# ======================================================================================================
# Legality: every rule of the tables, on every target; the exact message; no byte changes
# ======================================================================================================
F32, U8, U32 = ptoisa.float32_t, uint8_t, ptoisa.uint32_t


def _pre(*tiles):
    rng = np.random.default_rng(7)
    for t in tiles:
        random_fill(t, rng)
    return tiles


A2A3_SRC = "int32, float, half, uint16, int16"
A5_SRC = "int32, uint32, float, int16, uint16, half, uint8, int8, bfloat16"


class TestFaults:
    @pytest.mark.parametrize("dtype,cols", [(ptoisa.int8_t, 32), (uint8_t, 32), (ptoisa.uint32_t, 8),
                                            (ptoisa.bfloat16_t, 16)])
    def test_a2a3_src_dtype(self, dtype, cols):
        src, dst = _pre(tile(dtype, 2, cols), tile(U8, 2, 32, 2, 4))
        assert_refused(lambda: TCMPS(dst, src, 0, CmpMode.EQ, target="a2a3"), [src, dst],
                       f"TCMPS on a2a3: src0 dtype {dtype.cname} is not supported (allowed: {A2A3_SRC})")

    def test_a5_src_dtype(self):
        src, dst = _pre(tile(ptoisa.float8_e4m3_t, 2, 32), tile(U8, 2, 32, 2, 4))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target="a5"), [src, dst],
                       f"TCMPS on a5: src0 dtype float8_e4m3 is not supported (allowed: {A5_SRC})")

    @pytest.mark.parametrize("target,dtype,cols,allowed", [
        ("a2a3", ptoisa.uint32_t, 8, "uint8, int8"), ("a2a3", ptoisa.uint16_t, 16, "uint8, int8"),
        ("a2a3", ptoisa.half, 16, "uint8, int8"),
        ("a5", ptoisa.uint16_t, 16, "uint32, uint8, int32, int8"), ("a5", F32, 8, "uint32, uint8, int32, int8"),
    ])
    def test_dst_dtype(self, target, dtype, cols, allowed):
        """DECISIONS 19: a2a3 writes predicate bytes through a uint8_t pointer and a5 32-bit words through a
        uint32_t one whatever dst's declared type, so any 8-bit (a2a3) or 8/32-bit (a5) integer dst works;
        other widths and floating-point dst are refused."""
        src, dst = _pre(tile(F32, 2, 8), tile(dtype, 2, cols, 2, 1))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: dst dtype {dtype.cname} is not supported (allowed: {allowed})")

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("role", ("src0", "dst", "src1"))
    def test_location_must_be_vec(self, target, role):
        src = tile(F32, 2, 8, loc=TileType.Mat if role == "src0" else TileType.Vec)
        dst = tile(U8, 2, 32, 2, 1, loc=TileType.Mat if role == "dst" else TileType.Vec)
        src1 = tile(F32, 1, 8, loc=TileType.Mat if role == "src1" else TileType.Vec)
        _pre(src, dst, src1)
        assert_refused(lambda: TCMPS(dst, src, src1, CmpMode.EQ, target=target), [src, dst, src1],
                       f"TCMPS on {target}: {role} location Mat is not supported (allowed: Vec)")

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_src0_row_major(self, target):
        src, dst = _pre(tile(F32, 8, 8, layout=CM), tile(U8, 8, 32, 8, 1))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: src0 must be row-major (got DN)")

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_dst_row_major(self, target):
        src, dst = _pre(tile(F32, 2, 8), tile(U8, 32, 2, 2, 1, layout=CM))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: dst must be row-major (got DN)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_tile_form_same_dtype(self, target):
        src, dst, src1 = _pre(tile(F32, 2, 8), tile(U8, 2, 32, 2, 1), tile(ptoisa.half, 1, 16))
        assert_refused(lambda: TCMPS(dst, src, src1, CmpMode.EQ, target=target), [src, dst, src1],
                       f"TCMPS on {target}: src1 dtype half must equal the src0 dtype float")

    @pytest.mark.parametrize("target", TARGETS)
    def test_valid_rows_equal(self, target):
        src, dst = _pre(tile(F32, 4, 8, 2, 8), tile(U8, 4, 32, 3, 1))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: dst valid rows (3) must equal src0's valid rows (2)")

    @pytest.mark.parametrize("target,dst_dtype,dst_cols,dst_vc,src_vc,need,bits", [
        ("a2a3", U8, 32, 1, 9, 2, 8), ("a5", U8, 32, 1, 9, 2, 8), ("cpu", U8, 32, 1, 9, 2, 8),
        ("a5", U32, 8, 1, 33, 2, 32), ("cpu", U32, 8, 4, 33, 5, 8),
    ])
    def test_packed_width(self, target, dst_dtype, dst_cols, dst_vc, src_vc, need, bits):
        src, dst = _pre(tile(F32, 2, 40, 2, src_vc), tile(dst_dtype, 2, dst_cols, 2, dst_vc))
        assert_refused(lambda: TCMPS(dst, src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: dst valid cols ({dst_vc}) cannot hold the packed predicate of src0's "
                       f"{src_vc} valid columns (need at least {need}, {bits} bits each)")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("mode", [6, -1, "XX", None])
    def test_cmp_mode(self, target, mode):
        src, dst = _pre(tile(F32, 2, 8), tile(U8, 2, 32, 2, 1))
        assert_refused(lambda: TCMPS(dst, src, 0.0, mode, target=target), [src, dst],
                       f"TCMPS on {target}: cmpMode must be one of EQ, NE, LT, LE, GT, GE (got {mode!r}; a CmpMode or its name)")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("scalar", [float("nan"), float("inf"), 3e9])
    def test_scalar_must_convert(self, target, scalar):
        src, dst = _pre(tile(ptoisa.int32_t, 2, 8), tile(U8, 2, 32, 2, 1))
        assert_refused(lambda: TCMPS(dst, src, scalar, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: scalar value {scalar!r} does not convert to int32 "
                       "(C++ leaves that undefined)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_operands_must_be_tiles(self, target):
        src, dst = _pre(tile(F32, 2, 8), tile(U8, 2, 32, 2, 1))
        assert_refused(lambda: TCMPS(np.zeros(4), src, 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: dst must be a Tile (got ndarray)")
        assert_refused(lambda: TCMPS(dst, "src", 0.0, CmpMode.EQ, target=target), [src, dst],
                       f"TCMPS on {target}: src0 must be a Tile (got str)")

    def test_refusal_before_any_effect_on_bound_tiles(self):
        with ptoisa.target("a2a3"):
            NPU_MEMORY_CLEAR()
            src, dst = tile(F32, 4, 8, 2, 8), tile(U8, 4, 32, 3, 1)
            TASSIGN(src, 0x0)
            TASSIGN(dst, 0x400)
            _pre(src, dst)
            buf = dst.binding.buffer
            before = bytes(buf)
            with pytest.raises(IllegalInstructionError):
                TCMPS(dst, src, 0.0, CmpMode.EQ)
            assert bytes(buf) == before


# ======================================================================================================
# Property tests against the oracle
# ======================================================================================================
TCMPS_DTYPES = {
    "a2a3": ["int32", "float", "half", "uint16", "int16"],
    "a5": ["int32", "uint32", "float", "int16", "uint16", "half", "uint8", "int8", "bfloat16"],
    "cpu": ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "float", "bfloat16"],
}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 1e-10]


def _values(draw, dtype_name, n):
    npd = np.dtype(NP[dtype_name])
    if npd.kind in "iu":
        info = np.iinfo(npd)
        small = st.integers(-3, 3).map(lambda v: max(min(v, int(info.max)), int(info.min)))
        full = st.integers(int(info.min), int(info.max))
        return np.array(draw(st.lists(st.one_of(small, full), min_size=n, max_size=n)), dtype=npd)
    floats = st.one_of(st.sampled_from(SPECIALS), st.integers(-4, 4).map(float),
                       st.floats(-1e4, 1e4, allow_nan=False, width=32))
    return np.array(draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64).astype(npd)


@st.composite
def tcmps_case(draw, target):
    dt = draw(st.sampled_from(TCMPS_DTYPES[target]))
    item = np.dtype(NP[dt]).itemsize
    layout = "ND"
    if target == "cpu":
        layout = draw(st.sampled_from(["ND", "DN"]))
    if layout == "ND":
        rows, cols = draw(st.integers(1, 5)), (32 // item) * draw(st.integers(1, 3))
    else:
        rows, cols = (32 // item) * draw(st.integers(1, 2)), draw(st.integers(1, 20))
    vr, vc = draw(st.integers(0, rows)), draw(st.integers(0, cols))
    values = _values(draw, dt, rows * cols).reshape(rows, cols)
    scalar = values.reshape(-1)[draw(st.integers(0, rows * cols - 1))] if draw(st.booleans()) else \
        _values(draw, dt, 1)[0]
    mode = draw(st.sampled_from(list(CmpMode)))
    if target == "a2a3":
        dst_dt = "uint8"
    elif target == "a5":
        dst_dt = draw(st.sampled_from(["uint8", "uint32"]))
    else:
        dst_dt = draw(st.sampled_from(["uint8", "uint16", "uint32", "int32", "float", "half"]))
    dsize = np.dtype(NP[dst_dt]).itemsize
    bits = 8 if target == "cpu" else 8 * dsize
    need = -(-vc // bits)
    dlayout = draw(st.sampled_from(["ND", "DN"])) if target == "cpu" else "ND"
    align = 32 // dsize
    if dlayout == "ND":
        drows = vr + draw(st.integers(0, 2)) if vr else draw(st.integers(1, 2))
        dcols = align * (-(-max(need, 1) // align)) + align * draw(st.integers(0, 1))
    else:
        drows = align * (-(-max(vr, 1) // align))
        dcols = max(need, 1) + draw(st.integers(0, 3))
    dvc = draw(st.integers(need, dcols))
    fill = draw(st.binary(min_size=drows * dcols * dsize, max_size=drows * dcols * dsize))
    return dict(dt=dt, layout=layout, rows=rows, cols=cols, vr=vr, vc=vc, values=values, scalar=scalar,
                mode=mode, dst_dt=dst_dt, dlayout=dlayout, drows=drows, dcols=dcols, dvc=dvc, fill=fill)


def _build(case):
    lay = {"ND": RM, "DN": CM}
    src = tile(case["dt"], case["rows"], case["cols"], case["vr"], case["vc"], layout=lay[case["layout"]])
    src.set_logical(case["values"])
    dst = tile(case["dst_dt"], case["drows"], case["dcols"], case["vr"], case["dvc"], layout=lay[case["dlayout"]])
    dst.load_bytes(case["fill"])
    return src, dst


def _expected(target, case, errata=True):
    item = np.dtype(NP[case["dt"]]).itemsize
    is_float = case["dt"] in ("float", "half", "bfloat16")
    scalar = case["scalar"]
    if target == "a2a3":
        return O.tcmps_a2a3(case["fill"], case["drows"], case["dcols"], case["values"], case["vr"], case["vc"],
                            scalar, case["mode"], case["dt"], item, errata)
    if target == "a5":
        pitch = case["dcols"] * np.dtype(NP[case["dst_dt"]]).itemsize
        return O.tcmps_a5(case["fill"], pitch, case["values"], case["vr"], case["vc"], scalar, case["mode"],
                          is_float, item, errata)
    return O.tcmps_cpu(NP[case["dst_dt"]], case["dlayout"], case["drows"], case["dcols"], case["vr"], case["dvc"],
                       case["values"], case["vr"], case["vc"], scalar, case["mode"], is_float, tolerance=errata)


PROP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestProperties:
    @pytest.mark.parametrize("target", TARGETS)
    @PROP
    @given(data=st.data())
    def test_matches_oracle_default_config(self, target, data):
        case = data.draw(tcmps_case(target))
        src, dst = _build(case)
        src_before = src.tobytes()
        with O.recording() as caught:
            TCMPS(dst, src, case["scalar"], CmpMode(case["mode"]), target=target)
        assert dst.tobytes() == _expected(target, case)
        assert src.tobytes() == src_before
        # ErratumWarning exactly when an erratum changed the result (where one erratum alone is in play).
        erratum = any(issubclass(w.category, ErratumWarning) for w in caught)
        changed = _expected(target, case) != _expected(target, case, errata=False)
        if changed:
            assert erratum, "an erratum changed dst bytes without an ErratumWarning"
        if (target == "a2a3" and case["dt"] in ("float", "half")) or target in ("cpu", "a5"):
            assert erratum == changed

    @pytest.mark.parametrize("target", TARGETS)
    @PROP
    @given(data=st.data())
    def test_matches_contract_with_errata_off(self, target, data):
        case = data.draw(tcmps_case(target))
        src, dst = _build(case)
        with ptoisa.target(target, errata=False), O.recording() as caught:
            TCMPS(dst, src, case["scalar"], CmpMode(case["mode"]))
        assert dst.tobytes() == _expected(target, case, errata=False)
        assert not any(issubclass(w.category, ErratumWarning) for w in caught)
        fallback = any(issubclass(w.category, ModeFallbackWarning) for w in caught)
        if target == "a2a3" and case["dt"] == "int32" and case["mode"] in (O.LT, O.LE, O.GT, O.GE):
            v = case["values"][:case["vr"], :case["vc"]].astype(np.int64)
            differs = not np.array_equal(O.cmp_exact(v, int(case["scalar"]), case["mode"]),
                                         O.cmp_exact(v, int(case["scalar"]), O.EQ))
            assert fallback == differs
        else:
            assert not fallback

    @PROP
    @given(data=st.data())
    def test_tile_form_equals_scalar_form_oracle(self, data):
        target = data.draw(st.sampled_from(TARGETS))
        case = data.draw(tcmps_case(target))
        src, dst = _build(case)
        src1 = tile(case["dt"], 1, case["cols"] if case["layout"] == "ND" else 32 // np.dtype(NP[case["dt"]]).itemsize)
        random_fill(src1, np.random.default_rng(0))
        src1.set_logical(np.array([[case["scalar"]]], dtype=NP[case["dt"]]))
        with O.recording():
            TCMPS(dst, src, src1, case["mode"], target=target)
        assert dst.tobytes() == _expected(target, case)
