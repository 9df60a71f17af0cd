"""Divergences found by the audit of the NPU profiles (shared spec npu-audit.md, D1-D17), each modelled as
DECISIONS.md says. Expected bytes are worked out by hand from the backend sources of hw-native-sys/pto-isa
(commit 3186c381); the docstring of each test says where and how."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, CmpMode, ErratumWarning, Tile, TileType, int16_t, int32_t, uint16_t


def _tile(dtype, rows, cols, values=None, fill=None):
    t = Tile[TileType.Vec, dtype, rows, cols]()
    if values is not None:
        t.set_logical(np.asarray(values).reshape(rows, cols).astype(t.storage.dtype))
    if fill is not None:
        t.storage[:] = fill
    return t


def _run(call, target, errata=True):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ptoisa.target(target, errata=errata):
            call()
    return [str(w.message) for w in caught if issubclass(w.category, ErratumWarning)]


class TestD1CompareGatherUint16GreaterThan:
    """a5/TGather.hpp:941-946: the dispatch sends int16 GT to TGather_b16_gt and every other 16-bit case to
    TGather_b16_eq (lines 602-650), so a uint16 source with GT gathers the elements *equal* to k."""

    def _case(self, errata):
        src = _tile(uint16_t, 1, 64, np.arange(64))
        k = _tile(uint16_t, 1, 16, fill=0)
        k.storage[0] = 10
        dst, cdst = _tile(int32_t, 1, 64, fill=-1), _tile(int32_t, 1, 8, fill=0)
        warned = _run(lambda: TGATHER(dst, src, k, cdst, None, 0, CmpMode.GT), "a5", errata)
        return dst, cdst, warned

    def test_the_backend_runs_eq(self):
        dst, cdst, warned = self._case(True)
        assert cdst.storage[0] == 1 and dst.storage[0] == 10  # the one element equal to 10 is at index 10
        assert (dst.storage[1:] == -1).all()
        assert any("tgather_cmp_u16_gt_as_eq" in w for w in warned)

    def test_errata_off_gives_the_contract(self):
        dst, cdst, warned = self._case(False)
        assert cdst.storage[0] == 53 and dst.storage[:53].tolist() == list(range(11, 64))
        assert not warned

    def test_int16_keeps_its_gt_kernel(self):
        src = _tile(int16_t, 1, 64, np.arange(64))
        k = _tile(uint16_t, 1, 16, fill=0)
        k.storage[0] = 10
        dst, cdst = _tile(int32_t, 1, 64, fill=-1), _tile(int32_t, 1, 8, fill=0)
        warned = _run(lambda: TGATHER(dst, src, k, cdst, None, 0, CmpMode.GT), "a5")
        assert cdst.storage[0] == 53 and not any("u16_gt" in w for w in warned)


class TestD8IndexGather32BitDataWith16BitIndices:
    """a5/TGather.hpp:38-60 (TGather_b32, chosen at line 155 for every 4-byte data type): 128 int16 indices are
    loaded per 256-byte repeat and passed to vgather2 as 64 uint32 lanes, lane k = idx[2k] | idx[2k+1] << 16,
    under a predicate built for 16-bit lanes (a 32-bit lane is live when its first half is: ceil(n/2) lanes);
    lane k lands at dst element 128 j + k."""

    def test_pairs_of_indices_become_one_lane(self):
        src = _tile(ptoisa.float32_t, 1, 16, 100 + np.arange(16))
        idx = _tile(int16_t, 1, 16, [1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11, 0, 13, 0, 15, 0])
        dst = _tile(ptoisa.float32_t, 1, 16, fill=-1)
        warned = _run(lambda: TGATHER(dst, src, idx), "a5")
        assert dst.storage.tolist() == [101, 103, 105, 107, 109, 111, 113, 115] + [-1] * 8
        assert any("tgather_index_b32_idx16" in w for w in warned)

    def test_errata_off_gives_the_contract(self):
        src = _tile(ptoisa.float32_t, 1, 16, 100 + np.arange(16))
        idx = _tile(int16_t, 1, 16, [1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11, 0, 13, 0, 15, 0])
        dst = _tile(ptoisa.float32_t, 1, 16, fill=-1)
        assert not _run(lambda: TGATHER(dst, src, idx), "a5", errata=False)
        assert dst.storage.tolist() == [101, 100, 103, 100, 105, 100, 107, 100, 109, 100, 111, 100, 113, 100, 115,
                                        100]

    def test_a_pair_outside_src0_is_undefined(self):
        src = _tile(ptoisa.float32_t, 1, 16, 100 + np.arange(16))
        idx = _tile(int16_t, 1, 16, [1, 1] * 8)  # 0x00010001 = 65537
        dst = _tile(ptoisa.float32_t, 1, 16, fill=-1)
        with pytest.raises(ptoisa.UndefinedBehaviourError):
            _run(lambda: TGATHER(dst, src, idx), "a5")
        assert (dst.storage == -1).all()


class TestD2CompareGatherHalfSource:
    """a5/TGather.hpp:683-696 (half GT) and 742-755 (half EQ): k[i] is broadcast with vbr into a vector_s16 (its
    low 16 bits read as signed), converted exactly to float32 with vcvt, and compared with the half scores
    converted to float32. The contract converts k to half instead."""

    @pytest.mark.parametrize("k,score,mode,npu_matches,contract_matches", [
        (40000, 1.0, CmpMode.GT, 64, 0),      # 40000 -> int16 -25536: every 1.0 is greater
        (2051, 2052.0, CmpMode.GT, 64, 0),    # half(2051) rounds to 2052 in the contract; the NPU keeps 2051
        (2051, 2052.0, CmpMode.EQ, 0, 64),
    ])
    def test_k_is_narrowed_to_int16(self, k, score, mode, npu_matches, contract_matches):
        src = _tile(ptoisa.half, 1, 64, np.full(64, score))
        kt = _tile(uint16_t, 1, 16, fill=0)
        kt.storage[0] = k
        for errata, want in ((True, npu_matches), (False, contract_matches)):
            dst, cdst = _tile(int32_t, 1, 64, fill=-1), _tile(int32_t, 1, 8, fill=0)
            warned = _run(lambda: TGATHER(dst, src, kt, cdst, None, 0, mode), "a5", errata)  # noqa: B023
            assert cdst.storage[0] == want
            assert any("tgather_cmp_half_k_int16" in w for w in warned) == errata

    def test_a_uint32_k_keeps_its_low_half(self):
        """k = 65537 = 0x00010001: the int16 broadcast keeps 1, so 1.0 == k on the NPU (the contract's half(65537)
        is inf)."""
        src = _tile(ptoisa.half, 1, 64, np.full(64, 1.0))
        kt = _tile(ptoisa.uint32_t, 1, 8, fill=0)
        kt.storage[0] = 65537
        dst, cdst = _tile(int32_t, 1, 64, fill=-1), _tile(int32_t, 1, 8, fill=0)
        _run(lambda: TGATHER(dst, src, kt, cdst, None, 0, CmpMode.EQ), "a5")
        assert cdst.storage[0] == 64 and dst.storage[:3].tolist() == [0, 1, 2]


class TestD6D7GatherColumnAxis:
    """a2a3/TGather.hpp:123-128 and a5/TGather.hpp:240-252: GATHER_COL loops `for i < validRow` where validRow is
    src's valid row count (a2a3 line 142, a5 line 328), copying validCol elements from src + GetStrideByMask(i)
    (common/constants.hpp:537-551: (period * i + phase) * src RowStride) to dst + i * dst RowStride. The offset
    variable is a uint16_t."""

    def _placed(self, dst_rows, dst_valid_rows):
        src, filler = _tile(ptoisa.float32_t, 8, 16), _tile(ptoisa.float32_t, 8, 16)
        dst = Tile[TileType.Vec, ptoisa.float32_t, dst_rows, 16, ptoisa.BLayout.RowMajor, dst_valid_rows, 16]()
        after = _tile(ptoisa.float32_t, 4, 16)
        for tile, addr in ((src, 0x0), (filler, 0x200), (dst, 0x400), (after, 0x400 + dst.spec.nbytes)):
            ptoisa.TASSIGN(tile, addr, target="a2a3")  # binding makes the storage a view of the buffer
        src.set_logical(np.arange(128, dtype=np.float32).reshape(8, 16))
        filler.set_logical((1000 + np.arange(128, dtype=np.float32)).reshape(8, 16))
        after.storage[:] = -7
        return src, filler, dst, after

    def test_extra_rows_come_from_the_next_tile(self):
        """P0101 selects src rows 0, 2, 4, 6; the loop continues to i = 7, reading rows 8, 10, 12, 14, i.e. the
        filler tile placed right after src (rows 0, 2, 4, 6 of it)."""
        src, filler, dst, _ = self._placed(8, 4)
        dst.storage[:] = -1
        warned = _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0101, ptoisa.GatherAxis.GATHER_COL), "a2a3")
        assert dst.data[:, 0].tolist() == [0, 32, 64, 96, 1000, 1032, 1064, 1096]
        assert any("tgather_col_all_src_rows" in w for w in warned)

    def test_an_exact_size_dst_spills_into_its_neighbour(self):
        src, filler, dst, after = self._placed(4, 4)
        warned = _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0101, ptoisa.GatherAxis.GATHER_COL), "a2a3")
        assert dst.data[:, 0].tolist() == [0, 32, 64, 96]
        assert after.data[:, 0].tolist() == [1000, 1032, 1064, 1096]
        assert any("bytes [256, 512) past dst's storage into the UB buffer" in w for w in warned)

    def test_errata_off_touches_nothing_else(self):
        src, filler, dst, after = self._placed(4, 4)
        assert not _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0101, ptoisa.GatherAxis.GATHER_COL), "a2a3",
                        errata=False)
        assert (after.storage == -7).all() and dst.data[:, 0].tolist() == [0, 32, 64, 96]

    def test_the_source_offset_wraps_at_65536_elements(self):
        """half src 72x1024, P0001 -> dst 18x1024: dst row 17 reads element offset 68 * 1024 = 69632, which a
        uint16_t holds as 69632 - 65536 = 4096 = src row 4."""
        src = Tile[TileType.Vec, ptoisa.half, 72, 1024]()
        src.set_logical(np.repeat(np.arange(72, dtype=np.float16)[:, None], 1024, axis=1))
        dst = _tile(ptoisa.half, 18, 1024, fill=0)
        warned = _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0001, ptoisa.GatherAxis.GATHER_COL), "a5")
        assert dst.data[:16, 0].tolist() == [4 * r for r in range(16)]
        assert dst.data[16, 0] == 0 and dst.data[17, 0] == 4  # 64 * 1024 wraps to row 0, 68 * 1024 to row 4
        assert any("tgather_col_offset_u16" in w for w in warned)


class TestD5PartialMultiplyPadding:
    """a2a3/TPartMul.hpp:54-63 picks the source whose valid region equals dst's (src0 first) as the one to copy;
    a2a3/TPartOp.hpp:160-178 copies it with TPartCopyInstr (lines 15-36): with equal Cols, (rows * Cols) elements
    in whole 32-byte blocks; otherwise validCol elements rounded up to 32 bytes, row by row."""

    def test_equal_cols_copies_whole_rows(self):
        """dst, src0 float 4x16 valid 4x8, src1 valid 2x8: rows 2..3 are copied whole from src0 (row 2's
        columns 8..11 hold 40..43)."""
        spec = Tile[TileType.Vec, ptoisa.float32_t, 4, 16, ptoisa.BLayout.RowMajor, -1, -1]
        src0, src1, dst = spec(4, 8), spec(2, 8), spec(4, 8)
        src0.storage[:] = np.arange(64)
        src1.storage[:] = 2
        dst.storage[:] = -1
        warned = _run(lambda: ptoisa.TPARTMUL(dst, src0, src1), "a2a3")
        assert dst.data[2, 8:12].tolist() == [40, 41, 42, 43] and dst.data[3, 15] == 63
        assert dst.data[0].tolist() == [2 * c for c in range(8)] + [-1] * 8  # product rows: padding untouched
        assert any("tpartmul_copy_padding" in w for w in warned)

    def test_different_cols_rounds_rows_up_to_32_bytes(self):
        """dst 4x16 valid 4x6, src0 4x8 valid 4x6, src1 valid 4x3: 6 floats round up to 8 (32 bytes)."""
        src0 = Tile[TileType.Vec, ptoisa.float32_t, 4, 8, ptoisa.BLayout.RowMajor, -1, -1](4, 6)
        src1 = Tile[TileType.Vec, ptoisa.float32_t, 4, 8, ptoisa.BLayout.RowMajor, -1, -1](4, 3)
        dst = Tile[TileType.Vec, ptoisa.float32_t, 4, 16, ptoisa.BLayout.RowMajor, -1, -1](4, 6)
        src0.storage[:] = np.arange(32)
        src1.storage[:] = 1
        dst.storage[:] = -1
        _run(lambda: ptoisa.TPARTMUL(dst, src0, src1), "a2a3")
        assert dst.data[0, :10].tolist() == [0, 1, 2, 3, 4, 5, 6, 7, -1, -1]

    def test_errata_off_leaves_padding(self):
        spec = Tile[TileType.Vec, ptoisa.float32_t, 4, 16, ptoisa.BLayout.RowMajor, -1, -1]
        src0, src1, dst = spec(4, 8), spec(2, 8), spec(4, 8)
        src0.storage[:] = np.arange(64)
        src1.storage[:] = 2
        dst.storage[:] = -1
        assert not _run(lambda: ptoisa.TPARTMUL(dst, src0, src1), "a2a3", errata=False)
        assert (dst.data[:, 8:] == -1).all()


class TestD13IndexGatherRawRows:
    """a2a3/TGather.hpp:62-68 and a5/TGather.hpp:52-56 step index and dst rows by their Cols (row i at i * Cols),
    whatever the tiles' layouts: a col-major dst is written as if it were row-major."""

    @pytest.mark.parametrize("target", ["a2a3", "a5"])
    def test_col_major_dst_is_written_as_plain_rows(self, target):
        src = _tile(ptoisa.float32_t, 8, 8, np.arange(64))
        idx = _tile(ptoisa.int32_t, 8, 8, np.arange(64))  # identity
        dst = Tile[TileType.Vec, ptoisa.float32_t, 8, 8, ptoisa.BLayout.ColMajor]()
        tmp = _tile(ptoisa.int32_t, 8, 8)
        args = (tmp,) if target == "a2a3" else ()
        warned = _run(lambda: TGATHER(dst, src, idx, *args), target)
        assert dst.storage[:4].tolist() == [0, 1, 2, 3]  # storage in row-major order of the gathered values
        assert any("tgather_index_raw_rows" in w for w in warned)
        _run(lambda: TGATHER(dst, src, idx, *args), target, errata=False)
        assert dst.storage[:4].tolist() == [0, 8, 16, 24]  # the contract: through the DN layout


class TestD3D4CompareGatherScratchOnA2A3:
    """a2a3/TGather.hpp:160-300: the kernel keeps, inside and after tmp, row i's compare bitmap at byte
    i * tmp Cols (whole 256-byte source repeats: 8 bitmap bytes per 64 floats), then an index table of
    offset + n at byte tmp Rows * Cols, then the thresholds; per row it gathers the index-table entries whose
    bits are set among the first validCol."""

    def _operands(self, tmp_rows, tmp_cols, row0):
        src = _tile(ptoisa.float32_t, 2, 128, np.concatenate([row0, np.full(128, 10.0)]))
        k = _tile(ptoisa.int32_t, 1, 8, [5, 5, 0, 0, 0, 0, 0, 0])
        dst, cdst = _tile(int32_t, 2, 128, fill=-7), _tile(int32_t, 1, 8, fill=0)
        tmp = _tile(int32_t, tmp_rows, tmp_cols, fill=0)
        return src, k, dst, cdst, tmp

    def test_narrow_tmp_rows_overlap(self):
        """tmp int32 64x8 (2048 bytes >= 512 + 1024 + 8): rows 8 bytes apart, 16-byte bitmaps. Row 1 (all 10 > 5)
        overwrites bytes 8..15 of row 0's bitmap, so row 0 (all 0) gathers elements 64..127."""
        src, k, dst, cdst, tmp = self._operands(64, 8, np.zeros(128))
        warned = _run(lambda: TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT), "a2a3")
        assert cdst.storage[:2].tolist() == [64, 128]
        assert dst.storage[:64].tolist() == list(range(64, 128))
        assert dst.storage[128:256].tolist() == list(range(128, 256))
        assert any("tgather_cmp_bitmap_rows" in w for w in warned)
        src, k, dst, cdst, tmp = self._operands(64, 8, np.zeros(128))
        assert not _run(lambda: TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT), "a2a3", errata=False)
        assert cdst.storage[:2].tolist() == [0, 128]

    def test_a_one_row_tmp_lets_bitmaps_run_into_the_index_table(self):
        """tmp int32 1x512: the bitmap area is 512 bytes, so row 1's bitmap (16 bytes of ones) lands on index
        entries 0..3, which row 0 (matching at columns 0..3) then gathers as 0xFFFFFFFF."""
        row0 = np.zeros(128)
        row0[:4] = 10
        src, k, dst, cdst, tmp = self._operands(1, 512, row0)
        _run(lambda: TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT), "a2a3")
        assert cdst.storage[0] == 4 and dst.storage[:4].tolist() == [-1, -1, -1, -1]

    def test_a_bitmap_only_tmp_is_undefined_then_emulated_into_the_buffer(self):
        """The backend's own ST kernels pass a uint8 tmp holding only the bitmap (D4); its index table and
        thresholds then lie in UB past tmp. Refused by default (DECISIONS 24); emulated with the tables written
        into the buffer after tmp when tmp is placed."""
        src = _tile(ptoisa.float32_t, 2, 64, np.concatenate([np.arange(64), np.arange(64)]))
        k = _tile(ptoisa.int32_t, 1, 8, [60, 10, 0, 0, 0, 0, 0, 0])
        dst, cdst = _tile(int32_t, 2, 64, fill=-7), _tile(int32_t, 1, 8, fill=0)
        tmp = _tile(ptoisa.uint8_t, 2, 32)
        after = _tile(int32_t, 8, 64)
        ptoisa.TASSIGN(tmp, 0x0, target="a2a3")
        ptoisa.TASSIGN(after, 0x40, target="a2a3")  # right after tmp's 64 bytes
        after.storage[:] = -3
        with pytest.raises(ptoisa.UndefinedBehaviourError):
            _run(lambda: TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT), "a2a3")
        assert (after.storage == -3).all() and (dst.storage == -7).all()
        with ptoisa.target("a2a3", undefined="emulate"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT)
        assert cdst.storage[:2].tolist() == [3, 53]
        assert dst.storage[:3].tolist() == [61, 62, 63] and dst.storage[64:67].tolist() == [75, 76, 77]
        assert after.storage[:4].tolist() == [0, 1, 2, 3]  # the index table, offset + n, written past tmp


class TestD15PartialMultiplyEmulationOnA5:
    """a5/TPartBinOps.hpp:125-131: under an unsupported pattern the row loop runs to min(src0 rows, src1 rows),
    even past dst's valid rows; stores are predicated to dst's valid columns."""

    def test_rows_past_dst_valid_rows_are_multiplied(self):
        spec = Tile[TileType.Vec, ptoisa.float32_t, 4, 8, ptoisa.BLayout.RowMajor, -1, -1]
        dst, src0, src1 = spec(2, 8), spec(4, 8), spec(4, 8)
        src0.storage[:] = 2.0
        src1.storage[:] = 3.0
        dst.storage[:] = -1.0
        with ptoisa.target("a5", undefined="emulate"):
            ptoisa.TPARTMUL(dst, src0, src1)
        assert (dst.data == 6.0).all()  # rows 2..3 too: the loop bound is the sources' 4 rows


class TestD12BoxedRowMajorSources:
    """a2a3/TCmps.hpp:89, 122 and a5/TCmps.hpp:122 address src0 row i at i * Cols of its storage, whatever its
    fractal boxes: a ZZ source is compared as plain rows (with arange data, row 0 holds 0..63)."""

    @pytest.mark.parametrize("target", ["a2a3", "a5"])
    def test_tcmps_reads_boxed_rows_as_plain_storage(self, target):
        src = Tile[TileType.Vec, ptoisa.float32_t, 16, 64, ptoisa.BLayout.RowMajor, 16, 64, ptoisa.SLayout.RowMajor]()
        src.storage[:] = np.arange(1024, dtype=np.float32)
        dst = Tile[TileType.Vec, ptoisa.uint8_t, 16, 32, ptoisa.BLayout.RowMajor, -1, -1](16, 8)
        warned = _run(lambda: ptoisa.TCMPS(dst, src, 10.0, CmpMode.GT), target)
        assert dst.data[0, :2].tolist() == [0, 0b11111000]  # elements 11..15 of the plain row 0..63
        assert any("tcmps_boxed_raw_rows" in w for w in warned)
        _run(lambda: ptoisa.TCMPS(dst, src, 10.0, CmpMode.GT), target, errata=False)
        assert dst.data[0, :2].tolist() == [0, 0xFF]  # through the ZZ layout, row 0 starts 0..7, 128..135


class TestD14ConvTileFixedDimsOnA5:
    """a5/TExpandS.hpp:118-140: NC1HWC0/FRACTAL_Z conv fills multiply shape dims 0..4, NDC1HWC0/FRACTAL_Z_3D dims
    0..5, whatever the tile has."""

    def test_a_sixth_dim_is_not_filled(self):
        shape = (1, 2, 2, 2, 16, 2)
        dst = ptoisa.ConvTile[TileType.Mat, ptoisa.half, 256, ptoisa.Layout.NC1HWC0, shape]()
        warned = _run(lambda: ptoisa.TEXPANDS(dst, 1.0), "a5")
        assert int((dst.storage == 1.0).sum()) == 128  # 1*2*2*2*16, not the 256 elements of the shape
        assert any("texpands_conv_fixed_dims" in w for w in warned)
        _run(lambda: ptoisa.TEXPANDS(dst, 2.0), "a5", errata=False)
        assert int((dst.storage == 2.0).sum()) == 256

    def test_a_four_dim_fractal_z_is_refused(self):
        dst = ptoisa.ConvTile[TileType.Mat, ptoisa.half, 1024, ptoisa.Layout.FRACTAL_Z, (2, 2, 16, 16)]()
        with pytest.raises(ptoisa.IllegalInstructionError, match="the A5 backend reads conv dims 0..4"):
            _run(lambda: ptoisa.TEXPANDS(dst, 1.0), "a5")
        assert not dst.storage.any()


def test_a_warning_says_when_only_padding_bytes_differ():
    """The a2a3 repeat tail writes bits past the valid columns of dst's rows (its padding); the valid region is
    the contract's, and the warning says so (issue: the first README command looked alarming)."""
    src = _tile(ptoisa.float32_t, 2, 16, np.arange(32))
    dst = Tile[TileType.Vec, ptoisa.uint8_t, 2, 32, ptoisa.BLayout.RowMajor, 2, 2]()
    warned = _run(lambda: ptoisa.TCMPS(dst, src, 3.0, CmpMode.GT), "a2a3")
    assert any("only bytes outside the valid region differ" in w for w in warned)


@pytest.mark.parametrize("dtype,np_dtype", [(ptoisa.float32_t, np.float32), (ptoisa.bfloat16_t, None)])
@pytest.mark.parametrize("mode", [CmpMode.EQ, CmpMode.NE])
def test_cpu_eq_tolerance_shortcut_matches_the_double_compare(dtype, np_dtype, mode):
    """The cpu profile's |a - b| < 1e-9 (include/pto/cpu/TCmps.hpp:30-48) computed in double, against what
    ptoisa returns, over values around the shortcut's magnitude limits, neighbours, infinities and NaN."""
    import ml_dtypes

    npd = np.dtype(np_dtype or ml_dtypes.bfloat16)
    base = np.array([2.0 ** -5, 2.0 ** -21, 1.0, 3.5, -7.25, 1e30], dtype=npd)
    grid = np.concatenate([base, np.nextafter(base, np.inf) if npd == np.float32 else base * 1.0078125,
                           np.nextafter(base, -np.inf) if npd == np.float32 else base * 0.99609375,
                           np.array([0.0, -0.0, 1e-10, np.inf, -np.inf, np.nan], dtype=npd)]).astype(npd)
    values = np.resize(grid, 32).astype(npd)
    src = Tile[TileType.Vec, dtype, 1, 32]()
    src.set_logical(values.reshape(1, 32))
    for scalar in grid:
        if not np.isfinite(float(scalar)):
            continue
        dst = Tile[TileType.Vec, ptoisa.uint8_t, 1, 32, ptoisa.BLayout.RowMajor, 1, 4]()
        _run(lambda: ptoisa.TCMPS(dst, src, scalar, mode), "cpu")  # noqa: B023
        a, b = values.astype(np.float64), float(scalar)
        with np.errstate(invalid="ignore"):
            want = np.abs(a - b) < 1e-9 if mode is CmpMode.EQ else np.isnan(a) | (np.abs(a - b) > 1e-9)
        got = np.unpackbits(dst.storage[:4], bitorder="little").astype(bool)
        assert np.array_equal(got, want), (float(scalar), mode)


class TestD12BoxedOperandsElsewhere:
    """TPARTMUL (a2a3/TPartMul.hpp:54-63 with RowStride strides; a5/TPartBinOps.hpp:95-131) and the mask gather's
    row form (a2a3/TGather.hpp:130-132 with the source's repeat stride; a5/TGather.hpp:263-271, i * srcStride) step
    rows by the tile's RowStride = Cols, ignoring fractal boxes."""

    ZZ = (ptoisa.BLayout.RowMajor, 16, 16, ptoisa.SLayout.RowMajor)

    @pytest.mark.parametrize("target", ["a2a3", "a5"])
    def test_tpartmul_multiplies_plain_rows(self, target):
        spec = Tile[TileType.Vec, ptoisa.float32_t, 16, 16, *self.ZZ]
        dst, a, b = spec(), spec(), spec()
        a.storage[:] = np.arange(256, dtype=np.float32)
        b.storage[:] = 2.0
        warned = _run(lambda: ptoisa.TPARTMUL(dst, a, b), target)
        assert dst.storage.tolist() == (np.arange(256) * 2.0).tolist()  # element-wise, so plain or boxed agree
        assert not warned  # the same bytes either way: nothing to announce

    @pytest.mark.parametrize("target", ["a2a3", "a5"])
    def test_mask_gather_reads_plain_rows(self, target):
        src = Tile[TileType.Vec, ptoisa.float32_t, 16, 16, *self.ZZ]()
        src.storage[:] = np.arange(256, dtype=np.float32)
        dst = Tile[TileType.Vec, ptoisa.float32_t, 16, 8]()
        warned = _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0101), target)
        assert dst.storage[:8].tolist() == [0, 2, 4, 6, 8, 10, 12, 14]  # row 0 = storage 0..15, every other one
        assert any("tgather_mask_boxed_raw_rows" in w for w in warned)
        _run(lambda: TGATHER(dst, src, ptoisa.MaskPattern.P0101), target, errata=False)
        assert dst.storage[:4].tolist() == [0, 2, 4, 6] and dst.storage[4] == 128  # ZZ: row 0 continues at 128


def test_d13_compare_gather_reads_a_col_major_source_as_plain_rows():
    """a5/TGather.hpp:350-390: the compare kernels load src0 row i from i * Cols of its storage, so a DN source is
    read as if row-major: row 0 is storage 0..7."""
    src = Tile[TileType.Vec, ptoisa.float32_t, 8, 8, ptoisa.BLayout.ColMajor]()
    src.storage[:] = np.arange(64, dtype=np.float32)
    k = _tile(ptoisa.uint32_t, 1, 8, [3, 3, 3, 3, 3, 3, 3, 3])
    dst, cdst = _tile(int32_t, 8, 8, fill=-1), _tile(int32_t, 1, 8, fill=0)
    warned = _run(lambda: TGATHER(dst, src, k, cdst, None, 0, CmpMode.GT), "a5")
    assert cdst.storage[0] == 4 and dst.storage[:4].tolist() == [4, 5, 6, 7]
    assert any("tgather_cmp_raw_rows" in w for w in warned)
    dst.storage[:] = -1
    _run(lambda: TGATHER(dst, src, k, cdst, None, 0, CmpMode.GT), "a5", errata=False)
    assert cdst.storage[0] == 7  # the contract: logical row 0 is 0, 8, 16, ..., 56
