"""TGATHER on a2a3, a5 and cpu: index form, mask-pattern form (row and column axis) and comparison form.

Hand-worked values, the seed's (defective) examples as DECISIONS 13/14 resolve them, every legality rule with
its exact message and a no-byte-changed check, and property tests against _oracle_tcmps_tgather.py.
Sources: seeds/004 (TGATHER), DECISIONS 11-16, reference-facts 9.
"""

from __future__ import annotations

import os
import warnings
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    NPU_MEMORY_CLEAR,
    TASSIGN,
    TGATHER,
    BLayout,
    CmpMode,
    ErratumWarning,
    GatherAxis,
    IllegalInstructionError,
    MaskPattern,
    NotModelledError,
    RecordEvent,
    Tile,
    TileType,
    UndefinedBehaviourError,
)

sys.path.insert(0, os.path.dirname(__file__))
import _oracle_tcmps_tgather as O  # noqa: E402

TARGETS = ("a2a3", "a5", "cpu")
RM, CM = BLayout.RowMajor, BLayout.ColMajor
ROW, COL = GatherAxis.GATHER_ROW, GatherAxis.GATHER_COL
F32, F16, I32, U32, I16, U16, I8, U8 = (ptoisa.float32_t, ptoisa.half, ptoisa.int32_t, ptoisa.uint32_t,
                                        ptoisa.int16_t, ptoisa.uint16_t, ptoisa.int8_t, ptoisa.uint8_t)
BF16 = ptoisa.bfloat16_t
NP = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "half": np.float16, "float": np.float32, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


def tile(dtype, rows, cols, vr=None, vc=None, layout=RM, loc=TileType.Vec, fill=None):
    t = Tile[loc, dtype, rows, cols, layout, -1, -1](rows if vr is None else vr, cols if vc is None else vc)
    if fill is not None:
        t.storage.view(np.uint8)[:] = fill
    return t


def grid(rows, cols, dtype=np.float32):
    """Logical values 10*r + c."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return (10 * r + c).astype(dtype)


def assert_refused(call, tiles, message, exc=IllegalInstructionError):
    before = O.snapshot(*tiles)
    with O.no_ptoisa_warnings():
        with pytest.raises(exc) as info:
            call()
    assert type(info.value) is exc
    assert str(info.value) == message
    assert O.snapshot(*tiles) == before, "a refused call changed a tile"
    return info.value


def _pre(*tiles):
    rng = np.random.default_rng(11)
    for t in tiles:
        t.storage.view(np.uint8)[:] = rng.integers(0, 256, t.spec.nbytes, dtype=np.uint8)
    return tiles


def idx_tmp(target, idx):
    """The tmp tile a2a3 requires (index dtype, static shape = the indices' valid shape); None elsewhere."""
    name = target if isinstance(target, str) else target.name
    if name != "a2a3":
        return None
    return tile(idx.spec.dtype, idx.valid_row, idx.valid_col)


def gather(target, dst, src0, idx, tmp=None):
    tmp = tmp if tmp is not None else idx_tmp(target, idx)
    if tmp is None:
        return TGATHER(dst, src0, idx, target=target)
    return TGATHER(dst, src0, idx, tmp, target=target)


# ======================================================================================================
# Index form
# ======================================================================================================
class TestIndexForm:
    IDX = [[0, 31, 8, 9, 1, 2, 3, 4], [31, 30, 16, 0, 0, 0, 7, 24]]

    @pytest.mark.parametrize("target", TARGETS)
    def test_row_major_src(self, target):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 2, 8)
        idx.set_logical(np.array(self.IDX, dtype=np.int32))
        dst = tile(F32, 2, 8)
        with O.no_ptoisa_warnings():
            ev = gather(target, dst, src0, idx)
        assert isinstance(ev, RecordEvent) and ev.op == "TGATHER"
        # n -> src0[n // 8, n % 8] = 10 * (n // 8) + n % 8
        assert dst.data.tolist() == [[0, 37, 10, 11, 1, 2, 3, 4], [37, 36, 20, 0, 0, 0, 7, 30]]

    @pytest.mark.parametrize("target", TARGETS)
    def test_col_major_src_is_indexed_row_major_through_layout(self, target):
        # DECISIONS 11: n is a flat row-major position over src0's static Rows x Cols, read through its layout.
        src0 = tile(F32, 8, 4, layout=CM)
        src0.set_logical(grid(8, 4))
        idx = tile(I32, 2, 8)
        idx.set_logical(np.array([[0, 1, 2, 3, 4, 5, 6, 7], [31, 30, 29, 28, 27, 26, 25, 24]], dtype=np.int32))
        dst = tile(F32, 2, 8)
        gather(ptoisa.targets.make_config(target, errata=False), dst, src0, idx)
        assert dst.data.tolist() == [[0, 1, 2, 3, 10, 11, 12, 13], [73, 72, 71, 70, 63, 62, 61, 60]]
        # ... and not the raw storage offset (which would give src0 storage[1] = logical (1, 0) = 10).
        assert dst.data[0, 1] != 10
        if target == "cpu":
            return
        # The NPUs read the raw element offset (storage order of the col-major src0): erratum, announced.
        raw = tile(F32, 2, 8)
        with pytest.warns(ErratumWarning, match="tgather_index_raw_offset"):
            gather(target, raw, src0, idx)
        storage = src0.storage.tolist()
        assert raw.data.tolist() == [storage[0:8], storage[24:32][::-1]]
        assert raw.data[0, 1] == 10

    @pytest.mark.parametrize("target", TARGETS)
    def test_col_major_indices_read_through_layout(self, target):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 8, 8, layout=CM)
        v = np.zeros((8, 8), dtype=np.int32)
        v[:2] = self.IDX
        idx.set_logical(v)
        dst = tile(F32, 2, 8)
        gather(ptoisa.targets.make_config(target, errata=False), dst, src0, idx)  # NPU raw rows: test_npu_audit
        assert dst.data.tolist() == [[0, 37, 10, 11, 1, 2, 3, 4], [37, 36, 20, 0, 0, 0, 7, 30]]

    @pytest.mark.parametrize("target", TARGETS)
    def test_only_dst_valid_rows_written(self, target):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 2, 8)
        idx.set_logical(np.array(self.IDX, dtype=np.int32))
        dst = tile(F32, 2, 8, 1, 8, fill=0xAA)
        gather(target, dst, src0, idx)
        assert dst.data[0].tolist() == [0, 37, 10, 11, 1, 2, 3, 4]
        assert dst.tobytes()[32:] == b"\xAA" * 32

    def test_cpu_partial_valid_cols(self):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 2, 8)
        idx.set_logical(np.array(self.IDX, dtype=np.int32))
        dst = tile(F32, 2, 8, 2, 3, fill=0xAA)
        gather("cpu", dst, src0, idx)
        raw = np.frombuffer(dst.tobytes(), dtype=np.uint8).reshape(2, 32)
        assert dst.data[:, :3].tolist() == [[0, 37, 10], [37, 36, 20]]
        assert (raw[:, 12:] == 0xAA).all()

    @pytest.mark.parametrize("target", TARGETS)
    def test_col_major_dst_written_through_layout(self, target):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 8, 8)
        v = np.zeros((8, 8), dtype=np.int32)
        v[:, :2] = [[n, 31 - n] for n in range(8)]
        idx.set_logical(v)
        dst = tile(F32, 8, 2, 8, 2, layout=CM)
        gather(ptoisa.targets.make_config(target, errata=False), dst, src0, idx,
               tmp=tile(I32, 8, 8) if target == "a2a3" else None)  # the NPUs' raw rows: test_npu_audit (D13)
        # DN storage: column 0 (src0 flat 0..7 = 0..7) then column 1 (flat 31..24 = 37..30)
        assert dst.storage.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 37, 36, 35, 34, 33, 32, 31, 30]

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_src0_valid_region_is_ignored(self, target):
        src0 = tile(F32, 4, 8, 1, 1)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 1, 8)
        idx.set_logical(np.array([[31, 9, 0, 1, 2, 3, 4, 5]], dtype=np.int32))
        dst = tile(F32, 1, 8)
        gather(target, dst, src0, idx)
        assert dst.data[0].tolist() == [37, 11, 0, 1, 2, 3, 4, 5]

    @pytest.mark.parametrize("target,dtype,idx_dtype", [
        ("a2a3", F16, I32), ("a2a3", I16, U32), ("a2a3", BF16, I32), ("a2a3", U32, U32),
        ("a5", F16, I16), ("a5", U16, U16), ("a5", I32, U32), ("a5", F32, U32),
        ("cpu", I8, I32), ("cpu", U8, U32), ("cpu", BF16, I32), ("cpu", F16, U32),
    ])
    def test_dtypes(self, target, dtype, idx_dtype):
        npd = NP[dtype.cname]
        cols = 32 // np.dtype(npd).itemsize
        src0 = tile(dtype, 2, cols)
        src0.set_logical((np.arange(2 * cols) * 3 % 97).reshape(2, cols).astype(npd))
        icols = max(cols, 32 // np.dtype(NP[idx_dtype.cname]).itemsize)
        idx = tile(idx_dtype, 1, icols)
        order = (np.arange(icols) * 7 + 3) % (2 * cols)
        idx.set_logical(order.reshape(1, -1).astype(NP[idx_dtype.cname]))
        dst = tile(dtype, 1, cols)
        gather(target, dst, src0, idx)
        expected = (order[:cols] * 3 % 97).astype(npd)
        assert dst.data[0].tobytes() == expected.tobytes()

    def test_out_of_range_cpu_writes_zero(self):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8) + 1)
        idx = tile(I32, 1, 8)
        idx.set_logical(np.array([[32, -1, 5, 1_000_000, -2**31, 31, 0, 33]], dtype=np.int32))
        dst = tile(F32, 1, 8, fill=0xAA)
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, idx, target="cpu")
        assert dst.data[0].tolist() == [0, 0, 6, 0, 0, 38, 1, 0]

    def test_out_of_range_cpu_unsigned_huge_index(self):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8) + 1)
        idx = tile(U32, 1, 8)
        idx.set_logical(np.array([[0xFFFFFFFF, 1, 0x80000000, 2, 3, 4, 5, 6]], dtype=np.uint32))
        dst = tile(F32, 1, 8, fill=0xAA)
        TGATHER(dst, src0, idx, target="cpu")
        assert dst.data[0].tolist() == [0, 2, 0, 3, 4, 5, 6, 7]

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("bad,col,shown", [(32, 0, 32), (-1, 3, 2**32 - 1), (1000, 7, 1000)])
    def test_out_of_range_npu_is_undefined(self, target, bad, col, shown):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 1, 8)
        v = np.array([[0, 1, 2, 3, 4, 5, 6, 7]], dtype=np.int32)
        v[0, col] = bad
        idx.set_logical(v)
        dst = tile(F32, 1, 8, fill=0x11)
        tmp = idx_tmp(target, idx)
        tiles = [src0, idx, dst] + ([tmp] if tmp is not None else [])
        call = (lambda: TGATHER(dst, src0, idx, tmp, target=target)) if tmp is not None else \
            (lambda: TGATHER(dst, src0, idx, target=target))
        err = assert_refused(call, tiles,
                             f"TGATHER on {target}: indices index {shown} at (0, {col}) is outside src0's 32 "
                             "elements; the result is undefined on this target (use undefined='emulate' to "
                             "reproduce the target)", exc=UndefinedBehaviourError)
        assert err.instr == "TGATHER" and err.target == target and err.operand == "indices"

    def test_a5_int16_negative_index_is_unsigned(self):
        src0 = tile(F16, 2, 16)
        idx = tile(I16, 1, 16)
        v = np.arange(16, dtype=np.int16).reshape(1, 16)
        v[0, 5] = -1
        idx.set_logical(v)
        dst = tile(F16, 1, 16)
        assert_refused(lambda: TGATHER(dst, src0, idx, target="a5"), [src0, idx, dst],
                       "TGATHER on a5: indices index 65535 at (0, 5) is outside src0's 32 elements; the result is "
                       "undefined on this target (use undefined='emulate' to reproduce the target)",
                       exc=UndefinedBehaviourError)

    def test_emulate_reads_the_bound_buffer(self):
        with ptoisa.target("a5", undefined="emulate"):
            NPU_MEMORY_CLEAR()
            src0, after, idx, dst = tile(F32, 1, 8), tile(F32, 1, 8), tile(I32, 1, 8), tile(F32, 1, 8)
            TASSIGN(src0, 0x1000)
            TASSIGN(after, 0x1020)  # right behind src0's 32 bytes
            src0.set_logical(np.arange(8, dtype=np.float32).reshape(1, 8))
            after.set_logical(np.arange(100, 108, dtype=np.float32).reshape(1, 8))
            idx.set_logical(np.array([[8, 9, 15, 0, 7, 1, 2, 3]], dtype=np.int32))
            TGATHER(dst, src0, idx)
        assert dst.data[0].tolist() == [100, 101, 107, 0, 7, 1, 2, 3]

    def test_emulate_without_binding_is_not_modelled(self):
        src0, idx, dst = tile(F32, 1, 8), tile(I32, 1, 8), tile(F32, 1, 8)
        idx.set_logical(np.array([[8, 0, 0, 0, 0, 0, 0, 0]], dtype=np.int32))
        before = O.snapshot(src0, idx, dst)
        with ptoisa.target("a5", undefined="emulate"), pytest.raises(NotModelledError):
            TGATHER(dst, src0, idx)
        assert O.snapshot(src0, idx, dst) == before

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_tmp_accepted_and_ignored(self, target):
        src0 = tile(F32, 4, 8)
        src0.set_logical(grid(4, 8))
        idx = tile(I32, 2, 8)
        idx.set_logical(np.array(self.IDX, dtype=np.int32))
        tmp = tile(F16, 4, 16, fill=0x5A)  # wrong dtype and shape for a2a3's rules: ignored here
        dst = tile(F32, 2, 8)
        TGATHER(dst, src0, idx, tmp, target=target)
        assert dst.data.tolist() == [[0, 37, 10, 11, 1, 2, 3, 4], [37, 36, 20, 0, 0, 0, 7, 30]]
        assert tmp.tobytes() == b"\x5A" * tmp.spec.nbytes


# ======================================================================================================
# Mask-pattern form
# ======================================================================================================
PATTERN_COLS = {  # selected column indices among 0..7 (reference-facts section 2)
    MaskPattern.P0101: [0, 2, 4, 6], MaskPattern.P1010: [1, 3, 5, 7], MaskPattern.P0001: [0, 4],
    MaskPattern.P0010: [1, 5], MaskPattern.P0100: [2, 6], MaskPattern.P1000: [3, 7],
    MaskPattern.P1111: [0, 1, 2, 3, 4, 5, 6, 7],
}


class TestMaskRow:
    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("pattern", list(MaskPattern))
    def test_every_pattern_one_contiguous_stream(self, target, pattern):
        src = tile(F32, 2, 8)
        src.set_logical(grid(2, 8))
        dst = tile(F32, 2, 8, fill=0xAA)
        with O.no_ptoisa_warnings():
            TGATHER(dst, src, pattern, target=target)
        cols = PATTERN_COLS[pattern]
        stream = [float(10 * r + c) for r in range(2) for c in cols]
        flat = dst.storage
        assert flat[:len(stream)].tolist() == stream
        assert dst.tobytes()[4 * len(stream):] == b"\xAA" * (64 - 4 * len(stream))

    @pytest.mark.parametrize("target", TARGETS)
    def test_partial_valid_pattern_restarts_each_row(self, target):
        src = tile(F32, 3, 8, 2, 5)
        src.set_logical(grid(3, 8))
        dst = tile(F32, 1, 8, fill=0xAA)
        TGATHER(dst, src, MaskPattern.P0101, target=target)
        assert dst.storage[:6].tolist() == [0, 2, 4, 10, 12, 14]
        assert dst.tobytes()[24:] == b"\xAA" * 8

    @pytest.mark.parametrize("target", TARGETS)
    def test_stream_exactly_fills_dst(self, target):
        src = tile(F32, 4, 8)
        src.set_logical(grid(4, 8))
        dst = tile(F32, 1, 8)
        TGATHER(dst, src, MaskPattern.P0001, ROW, target=target)
        assert dst.data[0].tolist() == [0, 4, 10, 14, 20, 24, 30, 34]

    @pytest.mark.parametrize("target", TARGETS)
    def test_bit_copy_float_into_int32(self, target):
        src = tile(F32, 1, 8)
        src.set_logical(np.array([[1.0, -0.0, np.nan, np.inf, 2.5, 0, 0, 0]], dtype=np.float32))
        dst = tile(I32, 1, 8, fill=0)
        TGATHER(dst, src, MaskPattern.P1111, target=target)
        assert dst.data[0, :5].tolist() == [0x3F800000, -2**31, 0x7FC00000, 0x7F800000, 0x40200000]

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_8bit_sources(self, target):
        src = tile(I8, 2, 32)
        src.set_logical((np.arange(64) - 32).astype(np.int8).reshape(2, 32))
        dst = tile(U8, 1, 32)
        TGATHER(dst, src, MaskPattern.P1000, target=target)
        expected = [(v - 32) & 0xFF for r in range(2) for v in range(32 * r + 3, 32 * r + 32, 4)]
        assert dst.storage[:16].tolist() == expected

    def test_half_nan_payload_preserved(self):
        src = tile(F16, 1, 16)
        raw = np.arange(0x7C01, 0x7C11, dtype=np.uint16)  # 16 distinct NaN payloads
        src.storage.view(np.uint16)[:] = raw
        dst = tile(U16, 1, 16)
        TGATHER(dst, src, MaskPattern.P1010, target="a2a3")
        assert dst.storage[:8].tolist() == raw[1::2].tolist()

    def test_template_form(self):
        DstT, SrcT = Tile[TileType.Vec, F32, 1, 8], Tile[TileType.Vec, F32, 2, 8]
        src, dst = SrcT(), DstT()
        src.set_logical(grid(2, 8))
        TGATHER[DstT, SrcT, MaskPattern.P1010](dst, src, target="a5")
        assert dst.data[0].tolist() == [1, 3, 5, 7, 11, 13, 15, 17]
        wrong = Tile[TileType.Vec, F32, 2, 8]()
        assert_refused(lambda: TGATHER[DstT, SrcT, MaskPattern.P1010](wrong, src), [wrong, src],
                       "TGATHER on any: template arguments dst must be a Tile<Vec, float, 1, 8, RowMajor, 1, 8> "
                       "(got Tile<Vec, float, 2, 8, RowMajor, 2, 8>)")

    def test_keyword_pattern(self):
        src, dst = tile(F32, 2, 8), tile(F32, 1, 8)
        src.set_logical(grid(2, 8))
        TGATHER(dst, src, maskPattern=MaskPattern.P0100, target="cpu")
        assert dst.data[0, :4].tolist() == [2, 6, 12, 16]


class TestMaskCol:
    @pytest.mark.parametrize("target", TARGETS)
    def test_p0101_rows_to_dst_rows(self, target):
        src = tile(F32, 8, 8, 7, 8)
        src.set_logical(grid(8, 8))
        dst = tile(F32, 4, 16, fill=0xAA)
        TGATHER(dst, src, MaskPattern.P0101, COL, target=ptoisa.targets.make_config(target, errata=False))  # D6 aside: test_npu_audit
        for k, r in enumerate([0, 2, 4, 6]):
            assert dst.data[k, :8].tolist() == [10 * r + c for c in range(8)]
        raw = np.frombuffer(dst.tobytes(), dtype=np.uint8).reshape(4, 64)
        assert (raw[:, 32:] == 0xAA).all()  # dst columns past src's valid columns are untouched

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("pattern,rows", [(MaskPattern.P1010, [1, 3, 5]), (MaskPattern.P0001, [0, 4]),
                                              (MaskPattern.P0010, [1, 5]), (MaskPattern.P0100, [2, 6]),
                                              (MaskPattern.P1000, [3]), (MaskPattern.P1111, list(range(7)))])
    def test_patterns(self, target, pattern, rows):
        src = tile(I32, 8, 8, 7, 6)
        src.set_logical(grid(8, 8, np.int32))
        dst = tile(I32, len(rows), 8, fill=0xFF)
        TGATHER(dst, src, pattern, COL, target=ptoisa.targets.make_config(target, errata=False))  # D6 aside: test_npu_audit
        for k, r in enumerate(rows):
            assert dst.data[k].tolist() == [10 * r + c for c in range(6)] + [-1, -1]

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_reference_shape_32x64_to_16x128(self, target):
        src = tile(F16, 32, 64)
        src.set_logical((grid(32, 64) % 2048).astype(np.float16))
        dst = tile(F16, 16, 128)
        TGATHER(dst, src, MaskPattern.P1010, COL, target=ptoisa.targets.make_config(target, errata=False))  # D6 aside: test_npu_audit
        assert np.array_equal(dst.data[:, :64], src.data[1::2])
        assert not dst.data[:, 64:].any()

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_npu_dst_may_have_more_rows_than_selected(self, target):
        # DECISIONS 15 binds dst *valid* rows; only the reference CPU asserts valid rows == static Rows.
        src = tile(F32, 4, 8)
        src.set_logical(grid(4, 8))
        dst = tile(F32, 4, 8, 2, 8, fill=0xAA)
        with O.no_ptoisa_warnings():
            TGATHER(dst, src, MaskPattern.P0101, COL, target=ptoisa.targets.make_config(target, errata=False))
        assert dst.data[:2].tolist() == [[c for c in range(8)], [20 + c for c in range(8)]]
        assert dst.tobytes()[64:] == b"\xAA" * 64
        # With the errata (the default) the loop runs over all 4 valid src rows: dst rows 2 and 3 get src rows 4
        # and 6, which lie past src's storage; src is not placed, so those bytes read as 0 (test_npu_audit, D6).
        dst = tile(F32, 4, 8, 2, 8, fill=0xAA)
        with pytest.warns(ptoisa.ErratumWarning, match="tgather_col_all_src_rows"):
            TGATHER(dst, src, MaskPattern.P0101, COL, target=target)
        assert dst.data[:2].tolist() == [[c for c in range(8)], [20 + c for c in range(8)]]
        assert not dst.data[2:].any()


# ======================================================================================================
# Comparison form
# ======================================================================================================
def cmp_tiles(target, src_dtype=F32, k_dtype=U32, dst_dtype=I32, rows=2, cols=8, dst_cols=8):
    src0 = tile(src_dtype, rows, cols)
    kcols = 32 // np.dtype(NP[k_dtype.cname]).itemsize
    k = tile(k_dtype, 1, max(kcols, -(-rows // kcols) * kcols))
    cdst = tile(I32, 1, max(8, -(-rows // 8) * 8), fill=0x77)
    dst = tile(dst_dtype, rows, dst_cols, fill=0xF9)
    tmp = None
    if target == "a2a3":
        tmp = a2a3_cmp_tmp(rows, cols, src_dtype.cname)
    return src0, k, cdst, dst, tmp


def a2a3_cmp_tmp(rows, cols, src_name):
    """An int32 tmp that meets the seed's size formula and whose rows hold a whole row's compare bitmap (the A2/A3
    kernel writes row i's bitmap at tmp byte i * tmp Cols, whole 256-byte repeats of the source; a narrower tmp is
    the erratum tgather_cmp_bitmap_rows, tested in test_npu_audit.py)."""
    item = np.dtype(NP[src_name]).itemsize
    per_repeat = 256 // item
    row_bytes = -(-cols // per_repeat) * per_repeat // 8
    need = rows * cols * 4 + rows * item
    c = max(8 * -(-row_bytes // 8), 8 * -(-need // (24 * rows)))  # int32 rows x c: 4rc >= rc + need
    return tile(I32, rows, c)


class TestCmpForm:
    SRC = [[1, 5, 3, 9, -1, 7, np.nan, 8], [2, 2, 2, 0, 0, 0, 2, 2]]

    @pytest.mark.parametrize("target", TARGETS)
    def test_gt_hand_worked(self, target):
        src0, k, cdst, dst, tmp = cmp_tiles(target)
        src0.set_logical(np.array(self.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 2]], dtype=np.uint32))
        with ptoisa.target(target, errata=False), O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, tmp, 100, CmpMode.GT)
        untouched = int(np.frombuffer(b"\xF9" * 4, dtype=np.int32)[0])
        assert dst.data.tolist() == [[101, 103, 105, 107] + [untouched] * 4, [untouched] * 8]
        assert cdst.data[0, :2].tolist() == [4, 0]
        assert cdst.tobytes()[8:] == b"\x77" * (cdst.spec.nbytes - 8)

    @pytest.mark.parametrize("target", TARGETS)
    def test_eq_hand_worked(self, target):
        src0, k, cdst, dst, tmp = cmp_tiles(target)
        src0.set_logical(np.array(self.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 2]], dtype=np.uint32))
        with ptoisa.target(target, errata=False):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.EQ)
        untouched = int(np.frombuffer(b"\xF9" * 4, dtype=np.int32)[0])
        assert dst.data[1].tolist() == [8, 9, 10, 14, 15] + [untouched] * 3
        assert dst.data[0].tolist() == [untouched] * 8
        assert cdst.data[0, :2].tolist() == [0, 5]

    @pytest.mark.parametrize("target", TARGETS)
    def test_offset_wraps_modulo_2_32(self, target):
        src0, k, cdst, dst, tmp = cmp_tiles(target, dst_dtype=U32)
        src0.set_logical(np.array(self.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 1]], dtype=np.uint32))
        with ptoisa.target(target, errata=False):
            TGATHER(dst, src0, k, cdst, tmp, 2**32 - 2, CmpMode.GT)
        assert dst.data[0, :4].tolist() == [2**32 - 1, 1, 3, 5]
        assert dst.data[1, :5].tolist() == [6, 7, 8, 12, 13]
        assert cdst.data[0, :2].tolist() == [4, 5]

    @pytest.mark.parametrize("target", TARGETS)
    def test_partial_valid_src_uses_static_cols_for_index(self, target):
        src0, k, cdst, dst, tmp = cmp_tiles(target, rows=3, cols=16)
        src0.SetValidShape(2, 5)
        src0.set_logical(np.full((3, 16), 9.0, dtype=np.float32))
        k.set_logical(np.array([[1, 1, 1]], dtype=np.uint32))
        before_row2 = dst.tobytes()[64:]
        with ptoisa.target(target, errata=False):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT)
        assert dst.data[0, :5].tolist() == [0, 1, 2, 3, 4]
        assert dst.data[1, :5].tolist() == [16, 17, 18, 19, 20]  # i * src0 Cols (16), not i * valid cols
        assert dst.tobytes()[64:] == before_row2
        assert cdst.data[0, :3].tolist() == [5, 5, 0x77777777]

    @pytest.mark.parametrize("target,src_dtype,k_dtype", [
        ("a2a3", F16, I32), ("a2a3", I32, I32), ("a5", F16, U16), ("a5", I16, U16), ("a5", U32, U32),
        ("cpu", U16, U16), ("cpu", I32, I32),
    ])
    def test_dtypes(self, target, src_dtype, k_dtype):
        mode = CmpMode.EQ
        src0, k, cdst, dst, tmp = cmp_tiles(target, src_dtype=src_dtype, k_dtype=k_dtype, cols=16)
        vals = np.array([[3, 7, 3, 0, 1, 3, 9, 9, 3, 3, 5, 5, 5, 5, 5, 3], [7] * 16], dtype=np.int64)
        src0.set_logical(vals.astype(NP[src_dtype.cname]))
        k.set_logical(np.array([[3, 7]], dtype=NP[k_dtype.cname]))
        dst = tile(I32, 2, 16)
        with ptoisa.target(target, errata=False), O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, tmp, 5, mode)
        assert dst.data[0, :6].tolist() == [5 + j for j in (0, 2, 5, 8, 9, 15)]
        assert dst.data[1].tolist() == [5 + 16 + j for j in range(16)]
        assert cdst.data[0, :2].tolist() == [6, 16]

    def test_template_form(self):
        D, S = Tile[TileType.Vec, I32, 2, 8], Tile[TileType.Vec, F32, 2, 8]
        K, C = Tile[TileType.Vec, U32, 1, 8], Tile[TileType.Vec, I32, 1, 8]
        dst, src0, k, cdst = D(), S(), K(), C()
        src0.set_logical(np.array(self.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 2]], dtype=np.uint32))
        TmpT = Tile[TileType.Vec, I32, 1, 8]
        TGATHER[D, S, K, C, TmpT, CmpMode.GT](dst, src0, k, cdst, TmpT(), 0, target="a5")
        assert dst.data[0, :4].tolist() == [1, 3, 5, 7]
        assert cdst.data[0, :2].tolist() == [4, 0]


class TestCmpErrata:
    """reference-facts 9.3 quirks modelled as errata (announced with ErratumWarning only when they change a result)."""

    def test_a5_running_index(self):
        src0, k, cdst, dst, tmp = cmp_tiles("a5")
        src0.set_logical(np.array(TestCmpForm.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 1]], dtype=np.uint32))
        with pytest.warns(ErratumWarning, match="TGATHER on a5: erratum tgather_cmp_running_index"):
            TGATHER(dst, src0, k, cdst, tmp, 100, CmpMode.GT, target="a5")
        # row 1 counts from offset + 64 * ceil(8 / 64) = 164, not offset + 1 * Cols = 108
        assert dst.data[0, :4].tolist() == [101, 103, 105, 107]
        assert dst.data[1, :5].tolist() == [164, 165, 166, 170, 171]
        assert cdst.data[0, :2].tolist() == [4, 5]

    def test_a5_running_index_silent_when_only_row_0_matches(self):
        src0, k, cdst, dst, tmp = cmp_tiles("a5")
        src0.set_logical(np.array(TestCmpForm.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 50]], dtype=np.uint32))
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target="a5")
        assert dst.data[0, :4].tolist() == [1, 3, 5, 7]
        assert cdst.data[0, :2].tolist() == [4, 0]

    def test_a5_running_index_silent_when_cols_is_64(self):
        src0 = tile(F32, 2, 64)
        src0.set_logical(np.tile(np.arange(64, dtype=np.float32), (2, 1)))
        k = tile(U32, 1, 8)
        k.set_logical(np.array([[61, 62]], dtype=np.uint32))
        cdst, dst = tile(I32, 1, 8), tile(I32, 2, 8)
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, None, 0, CmpMode.GT, target="a5")
        assert dst.data[:, :2].tolist() == [[62, 63], [127, 0]]

    @pytest.mark.parametrize("dtype", [I16, I32])
    def test_a5_integers_compare_unsigned(self, dtype):
        cols = 32 // np.dtype(NP[dtype.cname]).itemsize
        src0 = tile(dtype, 1, cols)
        v = np.zeros((1, cols), dtype=NP[dtype.cname])
        v[0, :3] = [-1, 3, 1]
        src0.set_logical(v)
        k = tile(U32, 1, 8)
        k.set_logical(np.array([[2]], dtype=np.uint32))
        cdst, dst = tile(I32, 1, 8), tile(I32, 1, 8)
        with pytest.warns(ErratumWarning, match="tgather_cmp_unsigned"):
            TGATHER(dst, src0, k, cdst, None, 0, CmpMode.GT, target="a5")
        assert dst.data[0, :2].tolist() == [0, 1] and cdst.data[0, 0] == 2
        with ptoisa.target("a5", errata=False), O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, None, 0, CmpMode.GT)
        assert dst.data[0, 0] == 1 and cdst.data[0, 0] == 1

    def test_a5_unsigned_sources_unaffected(self):
        src0 = tile(U32, 1, 16)  # (a uint16 GT runs the EQ kernel on a5: test_npu_audit.py, D1)
        src0.set_logical(np.array([[2**32 - 1, 3, 1] + [0] * 13], dtype=np.uint32))
        k = tile(U32, 1, 16)
        k.set_logical(np.array([[2]], dtype=np.uint32))
        cdst, dst = tile(I32, 1, 8), tile(I32, 1, 8)
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, None, 0, CmpMode.GT, target="a5")
        assert dst.data[0, :2].tolist() == [0, 1] and cdst.data[0, 0] == 2

    def test_a2a3_half_reads_k_as_int16(self):
        # k int32 [3, 7]: its bytes read as int16 give k'[0] = 3, k'[1] = 0 (the high half of k[0]).
        src0, k, cdst, dst, tmp = cmp_tiles("a2a3", src_dtype=F16, k_dtype=I32, cols=16)
        src0.set_logical(np.array([[3, 1] * 8, [7] * 8 + [0] * 8], dtype=np.float16))
        k.set_logical(np.array([[3, 7]], dtype=np.int32))
        dst = tile(I32, 2, 16)
        with pytest.warns(ErratumWarning, match="TGATHER on a2a3: erratum tgather_cmp_k_signed_src_width"):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.EQ, target="a2a3")
        assert dst.data[0, :8].tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
        assert dst.data[1, :8].tolist() == [24, 25, 26, 27, 28, 29, 30, 31]  # EQ 0, not EQ 7
        assert cdst.data[0, :2].tolist() == [8, 8]
        dst = tile(I32, 2, 16)
        with ptoisa.target("a2a3", errata=False), O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.EQ)
        assert dst.data[1, :8].tolist() == [16, 17, 18, 19, 20, 21, 22, 23]

    def test_a2a3_float_reads_uint32_k_as_int32(self):
        src0, k, cdst, dst, tmp = cmp_tiles("a2a3", k_dtype=U32)
        src0.set_logical(np.array([[0, 1, 2, 3, 4, 5, 6, 7]], dtype=np.float32))
        k.set_logical(np.array([[0xFFFFFFFF, 0xFFFFFFFF]], dtype=np.uint32))
        with pytest.warns(ErratumWarning, match="tgather_cmp_k_signed_src_width"):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target="a2a3")
        assert cdst.data[0, 0] == 8  # every value > -1
        with ptoisa.target("a2a3", errata=False):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT)
        assert cdst.data[0, 0] == 0  # nothing > 4294967295

    def test_a2a3_float_with_ordinary_k_is_silent(self):
        src0, k, cdst, dst, tmp = cmp_tiles("a2a3", k_dtype=I32)
        src0.set_logical(np.array(TestCmpForm.SRC, dtype=np.float32))
        k.set_logical(np.array([[4, 1]], dtype=np.int32))
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target="a2a3")
        assert dst.data[1, :5].tolist() == [8, 9, 10, 14, 15]


# ======================================================================================================
# The seed's examples (seeds/004); DECISIONS 13 and 14
# ======================================================================================================
class TestSeedExamples:
    SrcT = Tile[TileType.Vec, F32, 16, 16]
    IdxT = Tile[TileType.Vec, I32, 16, 16]
    DstT = Tile[TileType.Vec, F32, 16, 16]

    def _auto_operands(self):
        src0, idx, dst = self.SrcT(), self.IdxT(), self.DstT()
        src0.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16) * 0.5)
        perm = (np.arange(256) * 37 + 11) % 256
        idx.set_logical(perm.reshape(16, 16).astype(np.int32))
        return src0, idx, dst, perm

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_example_auto_three_arguments(self, target):
        src0, idx, dst, perm = self._auto_operands()
        with O.no_ptoisa_warnings():
            TGATHER(dst, src0, idx, target=target)
        assert np.array_equal(dst.data, (perm * 0.5).reshape(16, 16).astype(np.float32))

    def test_example_auto_three_arguments_refused_on_a2a3(self):
        src0, idx, dst, _ = self._auto_operands()
        assert_refused(lambda: TGATHER(dst, src0, idx, target="a2a3"), [src0, idx, dst],
                       "TGATHER on a2a3: tmp is required on this target: call TGATHER(dst, src0, indices, tmp)")

    def test_example_auto_with_tmp_on_a2a3(self):
        src0, idx, dst, perm = self._auto_operands()
        tmp = self.IdxT()
        TGATHER(dst, src0, idx, tmp, target="a2a3")
        assert np.array_equal(dst.data, (perm * 0.5).reshape(16, 16).astype(np.float32))

    @pytest.mark.parametrize("target", TARGETS)
    def test_example_manual_mask_overflow_refused(self, target):
        SrcT = Tile[TileType.Vec, F32, 16, 16]
        DstT = Tile[TileType.Vec, F32, 1, 16]
        with ptoisa.target(target):
            NPU_MEMORY_CLEAR()
            src, dst = SrcT(), DstT()
            TASSIGN(src, 0x1000)
            TASSIGN(dst, 0x2000)
            src.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16))
            buf = bytes(dst.binding.buffer)
            assert_refused(lambda: TGATHER[DstT, SrcT, MaskPattern.P0101](dst, src), [src, dst],
                           f"TGATHER on {target}: dst cannot hold the gathered stream of 128 elements (it has 16)")
            assert bytes(dst.binding.buffer) == buf  # nothing written past the tile either

    @pytest.mark.parametrize("target", TARGETS)
    def test_example_manual_with_a_dst_that_fits(self, target):
        SrcT = Tile[TileType.Vec, F32, 16, 16]
        DstT = Tile[TileType.Vec, F32, 8, 16]
        with ptoisa.target(target):
            src, dst = SrcT(), DstT()
            TASSIGN(src, 0x1000)
            TASSIGN(dst, 0x2000)
            src.set_logical(np.arange(256, dtype=np.float32).reshape(16, 16))
            TGATHER[DstT, SrcT, MaskPattern.P0101](dst, src)
        assert dst.storage.tolist() == list(range(0, 256, 2))


# ======================================================================================================
# Legality faults
# ======================================================================================================
A2A3_IDX_DST = "int16, uint16, int32, uint32, half, bfloat16, float"
A5_IDX_DST = "int16, uint16, int32, uint32, half, float"
CPU_ALL = "int8, uint8, int16, uint16, int32, uint32, half, bfloat16, float"


class TestIndexFaults:
    def _ops(self, target, dtype=F32, idx_dtype=I32, src_dtype=None, dst_vc=8, idx_shape=(2, 8), idx_vc=None,
             tmp=True):
        cols = 32 // np.dtype(NP[dtype.cname]).itemsize
        src_dtype = src_dtype or dtype
        src0 = tile(src_dtype, 2, 32 // np.dtype(NP[src_dtype.cname]).itemsize)
        icols = max(idx_shape[1], 32 // np.dtype(NP[idx_dtype.cname]).itemsize)
        idx = tile(idx_dtype, idx_shape[0], icols, idx_shape[0], idx_vc or icols)
        dst = tile(dtype, 2, cols, 2, min(dst_vc, cols))
        _pre(src0, dst)
        idx.storage[:] = 0
        t = tile(idx_dtype, idx.valid_row, idx.valid_col) if tmp else None
        return src0, idx, dst, t

    @pytest.mark.parametrize("target,dtype,allowed", [
        ("a2a3", I8, A2A3_IDX_DST), ("a2a3", U8, A2A3_IDX_DST), ("a5", I8, A5_IDX_DST), ("a5", BF16, A5_IDX_DST),
        ("cpu", ptoisa.float8_e4m3_t, CPU_ALL),
    ])
    def test_dst_dtype(self, target, dtype, allowed):
        src0, idx, dst, tmp = self._ops(target, dtype=dtype)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: dst dtype {dtype.cname} is not supported (allowed: {allowed})")

    @pytest.mark.parametrize("target", TARGETS)
    def test_src0_same_dtype(self, target):
        src0, idx, dst, tmp = self._ops(target, dtype=F32, src_dtype=I32)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: src0 dtype int32 must equal the dst dtype float")

    @pytest.mark.parametrize("target,idx_dtype,allowed", [
        ("a2a3", I16, "int32, uint32"), ("a2a3", U16, "int32, uint32"), ("a5", I8, "int16, uint16, int32, uint32"),
        ("a5", F32, "int16, uint16, int32, uint32"), ("cpu", I16, "int32, uint32"), ("cpu", F32, "int32, uint32"),
    ])
    def test_index_dtype(self, target, idx_dtype, allowed):
        src0, idx, dst, tmp = self._ops(target, idx_dtype=idx_dtype)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: indices dtype {idx_dtype.cname} is not supported (allowed: {allowed})")

    def test_a2a3_tmp_required(self):
        src0, idx, dst, _ = self._ops("a2a3", tmp=False)
        assert_refused(lambda: TGATHER(dst, src0, idx, target="a2a3"), [src0, idx, dst],
                       "TGATHER on a2a3: tmp is required on this target: call TGATHER(dst, src0, indices, tmp)")

    def test_a2a3_tmp_dtype_matches_indices(self):
        src0, idx, dst, _ = self._ops("a2a3")
        tmp = tile(U32, 2, 8)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target="a2a3"), [src0, idx, dst, tmp],
                       "TGATHER on a2a3: tmp dtype uint32 must equal the indices dtype int32")

    @pytest.mark.parametrize("tmp_shape", [(2, 16), (1, 8), (4, 8)])
    def test_a2a3_tmp_shape_matches_index_valid_shape(self, tmp_shape):
        src0, idx, dst, _ = self._ops("a2a3")
        tmp = tile(I32, *tmp_shape)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target="a2a3"), [src0, idx, dst, tmp],
                       f"TGATHER on a2a3: tmp static shape {tmp_shape[0]}x{tmp_shape[1]} must equal the indices' "
                       "valid shape 2x8")

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_dst_continuous(self, target):
        src0, idx, dst, tmp = self._ops(target, dst_vc=4)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: dst valid cols (4) must equal its static Cols (8): dst storage must "
                       "be continuous")

    def test_a5_indices_valid_cols_full(self):
        src0, idx, dst, tmp = self._ops("a5", idx_shape=(2, 16), idx_vc=8)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target="a5"), [src0, idx, dst, tmp],
                       "TGATHER on a5: indices valid cols (8) must equal its static Cols (16)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_indices_cover_dst_valid_region(self, target):
        src0, idx, dst, tmp = self._ops(target, idx_shape=(1, 8))
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: indices a 1x8 tile cannot index dst's valid region 2x8")

    @pytest.mark.parametrize("target", TARGETS)
    def test_operands_must_be_tiles(self, target):
        src0, idx, dst, tmp = self._ops(target)
        assert_refused(lambda: TGATHER(dst, src0, [0, 1], tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: indices must be a Tile (got list)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_no_overload(self, target):
        src0, idx, dst, tmp = self._ops(target)
        assert_refused(lambda: TGATHER(dst, src0, idx, tmp, tmp, target=target), [src0, idx, dst, tmp],
                       f"TGATHER on {target}: no overload takes these arguments")


class TestMaskFaults:
    A2A3 = "int16, uint16, int32, uint32, half, bfloat16, float"

    @pytest.mark.parametrize("dtype", [I8, U8])
    def test_a2a3_dtype(self, dtype):
        src, dst = _pre(tile(dtype, 2, 32), tile(dtype, 2, 32))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target="a2a3"), [src, dst],
                       f"TGATHER on a2a3: src dtype {dtype.cname} is not supported (allowed: {self.A2A3})")

    def test_a2a3_dst_dtype(self):
        src, dst = _pre(tile(I16, 2, 16), tile(I8, 2, 32))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target="a2a3"), [src, dst],
                       f"TGATHER on a2a3: dst dtype int8 is not supported (allowed: {self.A2A3})")

    def test_cpu_fp8_dtype(self):
        src, dst = _pre(tile(ptoisa.float8_e5m2_t, 1, 32), tile(ptoisa.float8_e5m2_t, 1, 32))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target="cpu"), [src, dst],
                       f"TGATHER on cpu: src dtype float8_e5m2 is not supported (allowed: {CPU_ALL})")

    def test_a5_fp8_allowed(self):
        src, dst = tile(ptoisa.float8_e4m3_t, 1, 32), tile(U8, 1, 32)
        src.storage.view(np.uint8)[:] = np.arange(32, dtype=np.uint8)
        TGATHER(dst, src, MaskPattern.P0001, target="a5")
        assert dst.storage[:8].tolist() == [0, 4, 8, 12, 16, 20, 24, 28]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("role", ("src", "dst"))
    def test_location_vec(self, target, role):
        src = tile(F32, 2, 8, loc=TileType.Mat if role == "src" else TileType.Vec)
        dst = tile(F32, 2, 8, loc=TileType.Mat if role == "dst" else TileType.Vec)
        _pre(src, dst)
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target=target), [src, dst],
                       f"TGATHER on {target}: {role} location Mat is not supported (allowed: Vec)")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("role", ("src", "dst"))
    def test_row_major(self, target, role):
        src = tile(F32, 8, 8, layout=CM) if role == "src" else tile(F32, 8, 8)
        dst = tile(F32, 8, 8, layout=CM) if role == "dst" else tile(F32, 8, 8)
        _pre(src, dst)
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target=target), [src, dst],
                       f"TGATHER on {target}: {role} must be row-major (got DN)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_same_element_size(self, target):
        src, dst = _pre(tile(F32, 2, 8), tile(F16, 2, 16))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, target=target), [src, dst],
                       f"TGATHER on {target}: dst element size 2 must equal src's 4 (half vs float)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_row_dst_continuous(self, target):
        src, dst = _pre(tile(F32, 2, 8), tile(F32, 2, 16, 2, 8))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, ROW, target=target), [src, dst],
                       f"TGATHER on {target}: dst valid cols (8) must equal its static Cols (16) for GATHER_ROW: "
                       "the gathered stream is written contiguously")

    @pytest.mark.parametrize("target", TARGETS)
    def test_row_stream_overflow(self, target):
        src, dst = _pre(tile(F32, 3, 8), tile(F32, 1, 8))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P1111, target=target), [src, dst],
                       f"TGATHER on {target}: dst cannot hold the gathered stream of 24 elements (it has 8)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_col_row_count(self, target):
        src, dst = _pre(tile(F32, 8, 8), tile(F32, 3, 8))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, COL, target=target), [src, dst],
                       f"TGATHER on {target}: dst valid rows (3) must equal the number of selected src rows (4) "
                       "for GATHER_COL")

    def test_cpu_col_static_rows(self):
        src, dst = _pre(tile(F32, 8, 8), tile(F32, 8, 8, 4, 8))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, COL, target="cpu"), [src, dst],
                       "TGATHER on cpu: dst valid rows (4) must equal its static Rows (8) for GATHER_COL on this "
                       "target")

    @pytest.mark.parametrize("target", TARGETS)
    def test_col_width(self, target):
        src, dst = _pre(tile(F32, 2, 16), tile(F32, 1, 8))
        assert_refused(lambda: TGATHER(dst, src, MaskPattern.P0101, COL, target=target), [src, dst],
                       f"TGATHER on {target}: dst cannot hold src's 16 valid columns in its 8 columns")

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    def test_col_dst_continuous_on_npus(self, target):
        # seeds/004, mask-pattern gather, A2A3 and A5: "dst.GetValidCol() == DstTileData::Cols (continuous dst
        # storage)" (stated for the mask-pattern form, not only for GATHER_ROW). DECISIONS principle 1: the
        # contract decides legality.
        src, dst = _pre(tile(F32, 8, 8), tile(F32, 4, 16, 4, 8))
        before = O.snapshot(src, dst)
        with pytest.raises(IllegalInstructionError, match=f"TGATHER on {target}: dst valid cols \\(8\\) must equal "
                                                          "its static Cols \\(16\\)"):
            TGATHER(dst, src, MaskPattern.P0101, COL, target=target)
        assert O.snapshot(src, dst) == before

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("kwargs,message", [
        ({"maskPattern": 0}, "maskPattern must be one of P0101, P1010, P0001, P0010, P0100, P1000, P1111 (got 0; a MaskPattern or its name)"),
        ({"maskPattern": 1}, "maskPattern must be one of P0101, P1010, P0001, P0010, P0100, P1000, P1111 (got 1; a MaskPattern or its name)"),
        ({"maskPattern": "P0110"}, "maskPattern must be one of P0101, P1010, P0001, P0010, P0100, P1000, P1111 "
                                   "(got 'P0110'; a MaskPattern or its name)"),
        ({"maskPattern": MaskPattern.P0101, "gatherAxis": 2}, "gatherAxis must be one of GATHER_ROW, GATHER_COL "
                                                              "(got 2; a GatherAxis or its name)"),
        ({"maskPattern": MaskPattern.P0101, "gatherAxis": True}, "gatherAxis must be one of GATHER_ROW, "
                                                                 "GATHER_COL (got True; a GatherAxis or its name)"),
    ])
    def test_enum_values(self, target, kwargs, message):
        src, dst = _pre(tile(F32, 2, 8), tile(F32, 2, 8))
        assert_refused(lambda: TGATHER(dst, src, target=target, **kwargs), [src, dst],
                       f"TGATHER on {target}: {message}")


class TestCmpFaults:
    def _ops(self, target, src_dtype=F32, k_dtype=None, dst_dtype=I32, **kw):
        k_dtype = k_dtype or (U32 if target != "a2a3" else I32)
        ops = cmp_tiles(target, src_dtype=src_dtype, k_dtype=k_dtype, dst_dtype=dst_dtype, **kw)
        src0, k, cdst, dst, tmp = ops
        _pre(src0, dst, cdst)
        src0.set_logical(np.zeros((src0.spec.rows, src0.spec.cols), dtype=NP[src_dtype.cname]))
        k.storage[:] = 1
        return ops

    def _refused(self, target, ops, offset, mode, message, dst=None, cdst=None):
        src0, k, c, d, tmp = ops
        d, c = dst or d, cdst or c
        tiles = [t for t in (src0, k, c, d, tmp) if t is not None]
        assert_refused(lambda: TGATHER(d, src0, k, c, tmp, offset, mode, target=target), tiles,
                       f"TGATHER on {target}: {message}")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("dtype", [F32, I16, U16])
    def test_dst_dtype(self, target, dtype):
        ops = self._ops(target, dst_dtype=dtype, dst_cols=32 // np.dtype(NP[dtype.cname]).itemsize)
        self._refused(target, ops, 0, CmpMode.GT, f"dst dtype {dtype.cname} is not supported (allowed: int32, uint32)")

    @pytest.mark.parametrize("target,dtype,allowed", [
        ("a2a3", I16, "float, half, int32"), ("a2a3", U32, "float, half, int32"), ("a2a3", BF16, "float, half, int32"),
        ("a5", I8, "int16, uint16, int32, uint32, half, float"), ("a5", BF16, "int16, uint16, int32, uint32, half, float"),
        ("cpu", U8, "float, half, int32, uint32, int16, uint16"),
    ])
    def test_src_dtype(self, target, dtype, allowed):
        ops = self._ops(target, src_dtype=dtype, cols=32)
        self._refused(target, ops, 0, CmpMode.EQ, f"src0 dtype {dtype.cname} is not supported (allowed: {allowed})")

    @pytest.mark.parametrize("target,dtype,allowed", [
        ("a2a3", I16, "int32, uint32, uint16"), ("a2a3", F32, "int32, uint32, uint16"),
        ("a5", I32, "uint16, uint32"), ("a5", I16, "uint16, uint32"), ("cpu", I16, "int32, uint32, uint16"),
    ])
    def test_k_dtype(self, target, dtype, allowed):
        ops = self._ops(target, k_dtype=dtype)
        self._refused(target, ops, 0, CmpMode.GT, f"k_value dtype {dtype.cname} is not supported (allowed: {allowed})")

    def test_a2a3_uint16_k_goes_with_half_only(self):
        """DECISIONS 24: the A2/A3 backend's own half tests pass a uint16 k; with other sources it is refused."""
        ops = self._ops("a2a3", k_dtype=U16)
        self._refused("a2a3", ops, 0, CmpMode.GT, "k_value dtype uint16 is supported with a half src0 only (got float)")

    @pytest.mark.parametrize("target", TARGETS)
    def test_cdst_integer(self, target):
        ops = self._ops(target)
        cdst = tile(F32, 1, 8)
        self._refused(target, ops, 0, CmpMode.GT, "cdst dtype must be an integer type (got float)", cdst=cdst)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("mode", [CmpMode.LT, CmpMode.NE, CmpMode.GE, CmpMode.LE])
    def test_mode(self, target, mode):
        ops = self._ops(target)
        self._refused(target, ops, 0, mode, f"cmpMode {mode.name} is not supported (allowed: GT, EQ)")

    def test_a2a3_int32_eq_only(self):
        ops = self._ops("a2a3", src_dtype=I32)
        self._refused("a2a3", ops, 0, CmpMode.GT, "src0 dtype int32 is supported with EQ only (got GT)")

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_int32_gt_allowed_elsewhere(self, target):
        src0, k, cdst, dst, tmp = self._ops(target, src_dtype=I32)
        src0.set_logical(np.array([[0, 5, -3, 2, 0, 0, 0, 9]], dtype=np.int32))
        with ptoisa.target(target, errata=False):
            TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT)
        assert dst.data[0, :3].tolist() == [1, 3, 7]

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("role", ("dst", "src0"))
    def test_location_vec(self, target, role):
        src0, k, cdst, dst, tmp = self._ops(target)
        if role == "dst":
            dst = tile(I32, 2, 8, loc=TileType.Mat)
        else:
            src0 = tile(F32, 2, 8, loc=TileType.Mat)
        self._refused(target, (src0, k, cdst, dst, tmp), 0, CmpMode.GT,
                      f"{role} location Mat is not supported (allowed: Vec)")

    def test_a2a3_tmp_required(self):
        src0, k, cdst, dst, _ = self._ops("a2a3")
        self._refused("a2a3", (src0, k, cdst, dst, None), 0, CmpMode.GT, "tmp is required on this target")

    def test_a2a3_tmp_size(self):
        # src float 2x8, dst int32: need Tmp Rows*Cols + 2*8*4 + 2*4 = 16 + 72 = 88 bytes from an int32 2x8 tmp
        # (64 bytes).
        src0, k, cdst, dst, _ = self._ops("a2a3")
        tmp = tile(I32, 2, 8)
        tiles = [src0, k, cdst, dst, tmp]
        assert_refused(lambda: TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target="a2a3"), tiles,
                       "TGATHER on a2a3: tmp must hold at least 88 bytes (bitmap 16, indices 64, thresholds 8); "
                       "got 64; the result is undefined on this target (use undefined='emulate' to reproduce the "
                       "target)", exc=ptoisa.UndefinedBehaviourError)

    def test_a2a3_tmp_size_exact_minimum_is_enough(self):
        # int32 tmp 1x24: 96 bytes >= 24 + 64 + 8 = 96
        src0, k, cdst, dst, _ = self._ops("a2a3")
        src0.set_logical(np.array([[2, 0, 2, 0, 0, 0, 0, 0]], dtype=np.float32))
        tmp = tile(I32, 1, 24)
        TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target="a2a3")
        assert dst.data[0, :2].tolist() == [0, 2]

    @pytest.mark.parametrize("target", ("a5", "cpu"))
    def test_tmp_ignored(self, target):
        src0, k, cdst, dst, _ = self._ops(target)
        src0.set_logical(np.array([[2, 0, 2, 0, 0, 0, 0, 0]], dtype=np.float32))
        tmp = tile(U8, 1, 32, fill=0x3C)
        TGATHER(dst, src0, k, cdst, tmp, 0, CmpMode.GT, target=target)
        assert dst.data[0, :2].tolist() == [0, 2]
        assert tmp.tobytes() == b"\x3C" * 32

    @pytest.mark.parametrize("target", TARGETS)
    def test_row_overflow(self, target):
        ops = self._ops(target, cols=16, dst_cols=8)
        src0 = ops[0]
        v = np.zeros((2, 16), dtype=np.float32)
        v[1, :9] = 5.0
        src0.set_logical(v)
        self._refused(target, ops, 0, CmpMode.GT, "dst rows hold 8 indices, but src0 row 1 has 9 matches")

    @pytest.mark.parametrize("target", TARGETS)
    def test_dst_rows(self, target):
        ops = self._ops(target, rows=4)
        dst = tile(I32, 2, 8)
        self._refused(target, ops, 0, CmpMode.GT, "dst must hold one entry per valid src0 row (4), but holds 2",
                      dst=dst)

    @pytest.mark.parametrize("target", TARGETS)
    def test_k_size(self, target):
        src0, _, cdst, dst, tmp = self._ops(target, rows=16)
        k = tile(U32 if target != "a2a3" else I32, 1, 8)
        self._refused(target, (src0, k, cdst, dst, tmp), 0, CmpMode.GT,
                      "k_value must hold one entry per valid src0 row (16), but holds 8")

    @pytest.mark.parametrize("target", TARGETS)
    def test_cdst_size(self, target):
        ops = self._ops(target, rows=16)
        cdst = tile(I32, 1, 8)
        self._refused(target, ops, 0, CmpMode.GT, "cdst must hold one entry per valid src0 row (16), but holds 8",
                      cdst=cdst)

    @pytest.mark.parametrize("target", TARGETS)
    def test_dst_and_cdst_distinct(self, target):
        ops = self._ops(target)
        dst = ops[3]
        self._refused(target, ops, 0, CmpMode.GT, "cdst must be a different tile from dst", cdst=dst)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("offset", [1.5, "0", True])
    def test_offset_integer(self, target, offset):
        ops = self._ops(target)
        self._refused(target, ops, offset, CmpMode.GT, f"offset must be an integer (got {offset!r})")


# ======================================================================================================
# Property tests
# ======================================================================================================
PROP = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IDX_DST = {"a2a3": ["int16", "uint16", "int32", "uint32", "half", "bfloat16", "float"],
           "a5": ["int16", "uint16", "int32", "uint32", "half", "float"],
           "cpu": ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float"]}
IDX_IDX = {"a2a3": ["int32", "uint32"], "a5": ["int16", "uint16", "int32", "uint32"], "cpu": ["int32", "uint32"]}
ALIGN = lambda name: 32 // np.dtype(NP[name]).itemsize  # noqa: E731


def _raw(draw, name, n):
    size = np.dtype(NP[name]).itemsize
    return np.frombuffer(draw(st.binary(min_size=n * size, max_size=n * size)), dtype=NP[name]).copy()


class TestProperties:
    @PROP
    @given(data=st.data())
    def test_index_form(self, data):
        d = data.draw
        target = d(st.sampled_from(TARGETS))
        dt, it = d(st.sampled_from(IDX_DST[target])), d(st.sampled_from(IDX_IDX[target]))
        src_layout = d(st.sampled_from(["ND", "DN"]))
        if src_layout == "ND":
            srows, scols = d(st.integers(1, 4)), ALIGN(dt) * d(st.integers(1, 2))
        else:
            srows, scols = ALIGN(dt) * d(st.integers(1, 2)), d(st.integers(1, 6))
        src0 = tile(dt, srows, scols, layout=RM if src_layout == "ND" else CM)
        src0.storage[:] = _raw(d, dt, srows * scols)
        drows, dcols = d(st.integers(1, 3)), ALIGN(dt) * d(st.integers(1, 2))
        dvr = d(st.integers(0, drows))
        dvc = dcols if target != "cpu" else d(st.integers(0, dcols))
        icols = max(dcols, ALIGN(it)) if target != "cpu" else ALIGN(it) * -(-dcols // ALIGN(it))
        icols = ALIGN(it) * -(-icols // ALIGN(it))
        irows = drows
        idx = tile(it, irows, icols)
        numel = srows * scols
        info = np.iinfo(NP[it])
        if target == "cpu":
            gen = st.one_of(st.integers(0, numel - 1), st.integers(int(info.min), int(info.max)))
        else:
            gen = st.integers(0, min(numel - 1, int(info.max)))
        vals = np.array(d(st.lists(gen, min_size=irows * icols, max_size=irows * icols)), dtype=NP[it])
        idx.set_logical(vals.reshape(irows, icols))
        dst = tile(dt, drows, dcols, dvr, dvc)
        dst.storage[:] = _raw(d, dt, drows * dcols)
        src_logical = src0.data.copy()
        expected, bad = O.gather_index(dst.data.copy(), dvr, dvc, src_logical, vals.reshape(irows, icols),
                                       np.dtype(NP[it]).itemsize * 8, True, unsigned_read=target != "cpu")
        assert not bad or target == "cpu"
        # The contract's reading (through src0's layout); the NPUs' raw-offset erratum is tested by hand above.
        with O.no_ptoisa_warnings():
            gather(ptoisa.targets.make_config(target, errata=False), dst, src0, idx)
        assert dst.data.tobytes() == expected.tobytes()
        assert src0.data.tobytes() == src_logical.tobytes()

    @PROP
    @given(data=st.data())
    def test_mask_form(self, data):
        d = data.draw
        target = d(st.sampled_from(TARGETS))
        names = {"a2a3": ["int16", "uint16", "int32", "uint32", "half", "bfloat16", "float"],
                 "a5": list(IDX_DST["cpu"]) + ["float8_e4m3", "float8_e5m2"],
                 "cpu": list(IDX_DST["cpu"])}[target]
        st_name = d(st.sampled_from(names))
        size = np.dtype(NP[st_name]).itemsize
        dt_name = d(st.sampled_from([n for n in names if np.dtype(NP[n]).itemsize == size]))
        srows, scols = d(st.integers(1, 9)), ALIGN(st_name) * d(st.integers(1, 3))
        vr, vc = d(st.integers(0, srows)), d(st.integers(0, scols))
        pattern = d(st.sampled_from(list(MaskPattern)))
        axis = d(st.sampled_from([ROW, COL]))
        src = tile(st_name, srows, scols, vr, vc)
        src.storage[:] = _raw(d, st_name, srows * scols)
        src_logical = src.data.copy()
        if axis is ROW:
            stream = O.gather_row_stream(src_logical, vr, vc, int(pattern))
            dcols = ALIGN(dt_name) * d(st.integers(1, 2))
            drows = max(1, -(-stream.size // dcols)) + d(st.integers(0, 1))
            dst = tile(dt_name, drows, dcols)
            dst.storage[:] = _raw(d, dt_name, drows * dcols)
            expected = bytearray(dst.tobytes())
            expected[:stream.nbytes] = stream.tobytes()
        else:
            rows = O.selected(int(pattern), vr)
            if not rows:
                return
            dcols = ALIGN(dt_name) * -(-max(vc, 1) // ALIGN(dt_name)) + ALIGN(dt_name) * d(st.integers(0, 1))
            drows = len(rows) if target == "cpu" else len(rows) + d(st.integers(0, 2))
            dst = tile(dt_name, drows, dcols, len(rows), dcols)
            dst.storage[:] = _raw(d, dt_name, drows * dcols)
            exp = np.frombuffer(dst.tobytes(), dtype=np.uint8).reshape(drows, dcols * size).copy()
            for k_, r in enumerate(rows):
                exp[k_, :vc * size] = np.frombuffer(src_logical[r, :vc].tobytes(), dtype=np.uint8)
            expected = bytearray(exp.tobytes())
        contract = ptoisa.targets.make_config(target, errata=False) if axis is COL else target  # D6/D7 aside
        with O.no_ptoisa_warnings():
            TGATHER(dst, src, pattern, axis, target=contract)
        assert dst.tobytes() == bytes(expected)
        assert src.data.tobytes() == src_logical.tobytes()

    @PROP
    @given(data=st.data(), errata=st.booleans())
    def test_cmp_form(self, data, errata):
        d = data.draw
        target = d(st.sampled_from(TARGETS))
        src_names = {"a2a3": ["float", "half", "int32"],
                     "a5": ["int16", "uint16", "int32", "uint32", "half", "float"],
                     "cpu": ["float", "half", "int32", "uint32", "int16", "uint16"]}[target]
        k_names = {"a2a3": ["int32", "uint32"], "a5": ["uint16", "uint32"],
                   "cpu": ["int32", "uint32", "uint16"]}[target]
        sname, kname = d(st.sampled_from(src_names)), d(st.sampled_from(k_names))
        dname = d(st.sampled_from(["int32", "uint32"]))
        mode = CmpMode.EQ if (target == "a2a3" and sname == "int32") else d(st.sampled_from([CmpMode.GT,
                                                                                             CmpMode.EQ]))
        srows, scols = d(st.integers(1, 5)), ALIGN(sname) * d(st.integers(1, 3))
        vr, vc = d(st.integers(0, srows)), d(st.integers(0, scols))
        is_float = sname in ("float", "half")
        lo = 0 if sname.startswith("u") else -3
        elem = st.integers(lo, 12).map(float) if not is_float else st.one_of(
            st.integers(-3, 12).map(float), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5, 4.5]))
        vals = np.array(d(st.lists(elem, min_size=srows * scols, max_size=srows * scols)))
        src_logical = vals.reshape(srows, scols).astype(NP[sname])
        src0 = tile(sname, srows, scols, vr, vc)
        src0.set_logical(src_logical)
        kc = ALIGN(kname) * -(-max(srows, 1) // ALIGN(kname))
        k = tile(kname, 1, kc)
        kv = np.array(d(st.lists(st.integers(0, 10), min_size=kc, max_size=kc)), dtype=NP[kname])
        k.set_logical(kv.reshape(1, kc))
        cdst = tile(I32, 1, 8 * -(-srows // 8))
        cdst.storage[:] = _raw(d, "int32", cdst.spec.numel)
        dst = tile(dname, srows + d(st.integers(0, 1)), 8 * -(-max(vc, 1) // 8))
        dst.storage[:] = _raw(d, dname, dst.spec.numel)
        tmp = None
        if target == "a2a3":
            tmp = a2a3_cmp_tmp(srows, scols, sname)
        offset = d(st.one_of(st.integers(0, 100), st.integers(0, 2**32 - 1)))
        if d(st.booleans()):  # negative thresholds too, where the k dtype allows them
            kv = np.array(d(st.lists(st.integers(-3, 10) if kname == "int32" else st.integers(0, 2**16 - 1),
                                     min_size=kc, max_size=kc)), dtype=NP[kname])
            k.set_logical(kv.reshape(1, kc))

        def expect(hits):
            exp_dst = dst.data.copy()
            for i, row in enumerate(hits):
                exp_dst[i, :len(row)] = np.array(row, dtype=np.uint64).astype(np.uint32).astype(NP[dname])
            exp_cdst = cdst.storage.copy()
            exp_cdst[:vr] = [len(r) for r in hits]
            return exp_dst.tobytes() + exp_cdst.tobytes()

        with np.errstate(over="ignore", invalid="ignore"):
            k_as_src = kv.astype(NP[sname])
        contract = expect(O.gather_cmp(src_logical, vr, vc, k_as_src, int(mode), offset, is_float))
        expected = contract
        if errata and target == "a5":
            # half sources: k's low 16 bits as int16, compared in float (D2); uint16 GT runs the EQ kernel (D1)
            k_eff = ((kv.astype(np.int64) & 0xFFFF) ^ 0x8000) - 0x8000 if sname == "half" else kv
            mode_eff = CmpMode.EQ if (sname == "uint16" and mode is CmpMode.GT) else mode
            expected = expect(O.gather_cmp(src_logical, vr, vc, k_eff, int(mode_eff), offset, is_float,
                                           row_stride=64 * -(-vc // 64),
                                           unsigned_bits=None if is_float else 8 * np.dtype(NP[sname]).itemsize))
        if errata and target == "a2a3":
            size = np.dtype(NP[sname]).itemsize
            k_raw = np.frombuffer(k.tobytes()[:vr * size], dtype=f"<i{size}")
            with np.errstate(over="ignore", invalid="ignore"):
                expected = expect(O.gather_cmp(src_logical, vr, vc, k_raw.astype(NP[sname]), int(mode), offset,
                                               is_float))
        with ptoisa.target(target, errata=errata), O.recording() as caught:
            TGATHER(dst, src0, k, cdst, tmp, offset, mode)
        assert dst.data.tobytes() + cdst.storage.tobytes() == expected
        warned = [w for w in caught if issubclass(w.category, ptoisa.PtoWarning)]
        assert all(issubclass(w.category, ErratumWarning) for w in warned)
        assert bool(warned) == (expected != contract)


# ======================================================================================================
# Compiled calls held to the general path
# ======================================================================================================
def _noise_tile(rng, spec, *valid):
    t = spec(*valid)
    t.storage.view(np.uint8)[:] = rng.integers(0, 256, t.spec.nbytes, dtype=np.uint8)
    return t


def _outcome(call, tiles):
    """(every tile's bytes, warnings) after two calls on copies (the second runs the cached form), or the
    refusal with the bytes it left."""
    copies = []
    for t in tiles:
        c = t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec()
        c.storage[...] = t.storage
        copies.append(c)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for _ in range(2):
                for c, t in zip(copies, tiles):
                    c.storage[...] = t.storage
                call(*copies)
        except ptoisa.PtoError as exc:
            return type(exc).__name__, str(exc), O.snapshot(*copies)
    return O.snapshot(*copies), sorted({str(w.message) for w in caught})


# (rows, cols, valid rows, valid cols) of dst and the indices: below and above the fused-take size, whole and
# partial valid regions
INDEX_SHAPES = [(2, 16, 2, 16), (16, 16, 16, 16), (16, 16, 5, 16), (8, 32, 8, 7), (64, 64, 64, 64),
                (128, 64, 100, 64), (64, 128, 64, 40)]


class TestIndexCompiled:
    """The index form's compiled call (a fused range-checked take below 4096 valid elements, max() and a
    clipped take above) gives the general path's bytes, warnings and refusals."""

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("shape", INDEX_SHAPES)
    @pytest.mark.parametrize("dtype,idx_dtype", [(np.float32, np.int32), (np.float16, np.int16),
                                                 (np.int32, np.uint32), (np.float32, np.int16)])
    @pytest.mark.parametrize("indices", ["in", "past_end", "negative", "edge", "alias_src0", "dst_over_idx"])
    @pytest.mark.parametrize("dynamic", [False, True])
    def test_matches_general(self, target, shape, dtype, idx_dtype, indices, dynamic):
        from ptoisa.isa import tgather as impl

        rows, cols, vr, vc = shape
        if target != "cpu" and vc != cols:  # the NPUs refuse partial valid columns (both paths alike)
            vc = cols
        rng = np.random.default_rng(hash((rows, cols, vr, vc, indices)) % 2**32)
        srows = 32
        if dynamic:
            dspec = Tile[TileType.Vec, dtype, rows, cols, RM, -1, -1]
            ispec = Tile[TileType.Vec, idx_dtype, rows, cols, RM, -1, -1]
        else:
            dspec = Tile[TileType.Vec, dtype, rows, cols, RM, vr, vc]
            ispec = Tile[TileType.Vec, idx_dtype, rows, cols, RM, vr, vc]
        dst = _noise_tile(rng, dspec, *((vr, vc) if dynamic else ()))
        src = _noise_tile(rng, Tile[TileType.Vec, dtype, srows, cols])
        idx = _noise_tile(rng, ispec, *((vr, vc) if dynamic else ()))
        numel = srows * cols
        if indices == "alias_src0":  # dst is src0: the gather reads src0 before writing
            numel = rows * cols
        values = rng.integers(0, numel, rows * cols)
        if indices == "past_end":
            values[(vr - 1) * cols + vc - 1] = numel + int(rng.integers(0, 5))  # the last valid index
        elif indices == "negative":
            values[rng.integers(0, vr) * cols] = -1
        elif indices == "edge":
            values[:] = numel - 1
            values[::3] = 0
        if np.iinfo(idx_dtype).max < numel:
            values %= np.iinfo(idx_dtype).max + 1
        idx.storage[...] = values.astype(np.int64).astype(idx_dtype)
        tmp = Tile[TileType.Vec, idx_dtype, vr, vc]() if target == "a2a3" else None
        config = ptoisa.targets.resolve(target)
        extra = [tmp] if tmp is not None else []
        impl._COMPILED.clear()
        if indices == "alias_src0":
            call = lambda d, i, *t: TGATHER(d, d, i, *t, target=target)  # noqa: E731
            ref = lambda d, i, *t: impl._index_general(config, d, d, i, *(t or (None,)))  # noqa: E731
            tiles = [dst, idx] + extra
        elif indices == "dst_over_idx":  # dst's storage is the indices' (same element size)
            if np.dtype(dtype).itemsize != np.dtype(idx_dtype).itemsize:
                return
            values %= rows * cols
            idx.storage[...] = values.astype(np.int64).astype(idx_dtype)
            src = _noise_tile(rng, Tile[TileType.Vec, dtype, rows, cols])

            def over(d, s, i, *t, fn):
                d.attach(i.storage.view(d.storage.dtype))
                return fn(d, s, i, *t)
            call = lambda d, s, i, *t: over(d, s, i, *t, fn=lambda *a: TGATHER(*a, target=target))  # noqa: E731
            ref = lambda d, s, i, *t: over(d, s, i, *t, fn=lambda d_, s_, i_, *t_: impl._index_general(  # noqa: E731
                config, d_, s_, i_, *(t_ or (None,))))
            tiles = [dst, src, idx] + extra
        else:
            call = lambda d, s, i, *t: TGATHER(d, s, i, *t, target=target)  # noqa: E731
            ref = lambda d, s, i, *t: impl._index_general(config, d, s, i, *(t or (None,)))  # noqa: E731
            tiles = [dst, src, idx] + extra
        got = _outcome(call, tiles)
        assert got == _outcome(ref, tiles)
        if indices == "in" and not dynamic and not isinstance(got[0], str):  # the compiled call really ran
            assert any(callable(run) for run in impl._COMPILED.values()) \
                or (dtype, idx_dtype, target) == (np.float32, np.int16, "a5")  # erratum: the general path

    @pytest.mark.parametrize("target", TARGETS)
    def test_refused_call_leaves_every_tile(self, target):
        """An out-of-range index on the NPUs is refused by both compiled forms with every tile unchanged."""
        if target == "cpu":
            return
        rng = np.random.default_rng(5)
        for rows in (4, 128):  # fused take, then max() and a clipped take
            dst = _noise_tile(rng, Tile[TileType.Vec, np.float32, rows, 64])
            src = _noise_tile(rng, Tile[TileType.Vec, np.float32, rows, 64])
            idx = Tile[TileType.Vec, np.int32, rows, 64]()
            idx.storage[...] = rng.integers(0, rows * 64, rows * 64)
            idx.storage[-1] = rows * 64
            tmp = Tile[TileType.Vec, np.int32, rows, 64]() if target == "a2a3" else None
            extra = [tmp] if tmp is not None else []
            for _ in range(2):
                before = O.snapshot(dst, src, idx, *extra)
                with pytest.raises(UndefinedBehaviourError):
                    TGATHER(dst, src, idx, *extra, target=target)
                assert O.snapshot(dst, src, idx, *extra) == before

    def test_run_time_valid_shapes_in_turn(self):
        """One `v_row=?, v_col=?` type with several valid shapes in turn, on both sides of the fused size."""
        from ptoisa.isa import tgather as impl

        dyn = lambda dtype: Tile[TileType.Vec, dtype, 128, 64, RM, -1, -1]  # noqa: E731
        rng = np.random.default_rng(9)
        src = _noise_tile(rng, Tile[TileType.Vec, np.float32, 128, 64])
        config = ptoisa.targets.resolve("cpu")
        impl._COMPILED.clear()
        for vr, vc in [(128, 64), (2, 8), (100, 64), (1, 3), (128, 64), (64, 63), (0, 5)]:
            idx = dyn(np.int32)(vr, vc)
            idx.storage[...] = rng.integers(-3, src.spec.numel + 3, idx.spec.numel)
            got, want = dyn(np.float32)(vr, vc), dyn(np.float32)(vr, vc)
            got.storage[...] = want.storage[...] = rng.standard_normal(got.spec.numel)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                TGATHER(got, src, idx, target="cpu")
                impl._index_general(config, want, src, idx, None)
            assert got.tobytes() == want.tobytes(), (vr, vc)


# (src rows, src cols, src valid rows, src valid cols)
MASK_SHAPES = [(4, 16, 3, 16), (8, 32, 8, 13), (64, 64, 64, 64), (9, 16, 7, 5)]


class TestMaskCompiled:
    """The mask form's compiled call (one strided assignment for ND tiles) gives the general path's bytes,
    warnings and refusals, and hands the NPU column errata and boxed layouts to it."""

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("shape", MASK_SHAPES)
    @pytest.mark.parametrize("pattern", [MaskPattern.P0101, MaskPattern.P1010, MaskPattern.P0001,
                                         MaskPattern.P1000, MaskPattern.P1111])
    @pytest.mark.parametrize("axis", [ROW, COL])
    @pytest.mark.parametrize("types", [(np.float32, np.float32), (np.float16, np.int16)])
    @pytest.mark.parametrize("errata", [True, False])
    @pytest.mark.parametrize("dynamic", [False, True])
    def test_matches_general(self, target, shape, pattern, axis, types, errata, dynamic):
        from ptoisa.isa import tgather as impl

        srows, scols, vr, vc = shape
        stype, dtype = types
        rng = np.random.default_rng(srows * 1000 + scols * 10 + vc)
        per = 256 // np.dtype(stype).itemsize // 8  # 32-byte rows
        if axis is ROW:
            count = len(range(pattern.phase, vc, pattern.period))
            dcols = per * max(1, -(-count // per)) if count == 0 or count % per else count
            drows = max(1, -(-vr * count // dcols))
            dvalid = (drows, dcols)
        else:
            count = len(range(pattern.phase, vr, pattern.period))
            dcols, drows = scols, max(count, 1)
            dvalid = (count, dcols)
        config = ptoisa.targets.make_config(target, errata=errata)
        if dynamic:
            sspec = Tile[TileType.Vec, stype, srows, scols, RM, -1, -1]
            dspec = Tile[TileType.Vec, dtype, drows, dcols, RM, -1, -1]
            src, dst = _noise_tile(rng, sspec, vr, vc), _noise_tile(rng, dspec, *dvalid)
        else:
            src = _noise_tile(rng, Tile[TileType.Vec, stype, srows, scols, RM, vr, vc])
            dst = _noise_tile(rng, Tile[TileType.Vec, dtype, drows, dcols, RM, *dvalid])
        impl._MASK_COMPILED.clear()
        got = _outcome(lambda d, s: TGATHER(d, s, pattern, axis, target=config), [dst, src])
        want = _outcome(lambda d, s: impl._mask_general(config, d, s, pattern, axis), [dst, src])
        assert got == want
        if axis is ROW and not isinstance(got[0], str) and not dynamic:  # the compiled copy really ran
            assert any(callable(run) for run in impl._MASK_COMPILED.values())

    @pytest.mark.parametrize("axis", [ROW, COL])
    @pytest.mark.parametrize("shift", [0, 8, 64, -8])
    def test_overlapping_storage(self, axis, shift):
        """dst placed over src's storage (shifted by `shift` elements): both paths copy as if src were read
        first."""
        from ptoisa.isa import tgather as impl

        results = []
        for call in ("compiled", "general"):
            buf = np.random.default_rng(3).standard_normal(512).astype(np.float32)
            src = Tile[TileType.Vec, np.float32, 16, 16]()
            src.attach(buf[128:384])
            dst = Tile[TileType.Vec, np.float32, 16, 8]() if axis is ROW else Tile[TileType.Vec, np.float32, 8, 16]()
            dst.attach(buf[128 + shift:128 + shift + 128])
            impl._MASK_COMPILED.clear()
            for _ in range(2):
                if call == "compiled":
                    TGATHER(dst, src, MaskPattern.P0101, axis, target="cpu")
                else:
                    impl._mask_general(ptoisa.targets.resolve("cpu"), dst, src, MaskPattern.P0101, axis)
            results.append(buf.tobytes())
        assert results[0] == results[1]
        # read-first: the first call's result is src's selected elements as they were before it
        buf = np.random.default_rng(3).standard_normal(512).astype(np.float32)
        grid_ = buf[128:384].reshape(16, 16)
        first = (grid_[:, ::2] if axis is ROW else grid_[::2, :]).reshape(-1).copy()
        dst = Tile[TileType.Vec, np.float32, 16, 8]() if axis is ROW else Tile[TileType.Vec, np.float32, 8, 16]()
        src = Tile[TileType.Vec, np.float32, 16, 16]()
        src.attach(buf[128:384])
        dst.attach(buf[128 + shift:128 + shift + 128])
        TGATHER(dst, src, MaskPattern.P0101, axis, target="cpu")
        assert dst.storage.tobytes() == first.tobytes()


class TestMaskCompiledWholeRows:
    """The compiled mask copies that index whole rows (dst assigned as a whole where the copy fills it) against
    plain slicing of the values: dst taller than the gathered rows (GATHER_ROW of a few valid rows), dst wider
    than src (GATHER_COL under the NPU column errata), each call twice (compiling, then cached)."""

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("valid_rows", [1, 5, 16])
    @pytest.mark.parametrize("pattern", [MaskPattern.P0101, MaskPattern.P1000])
    def test_row_axis_into_a_taller_dst(self, target, valid_rows, pattern):
        rng = np.random.default_rng(valid_rows)
        count, cols = 8, 8 * pattern.period
        src = _noise_tile(rng, Tile[TileType.Vec, np.float32, 16, cols, RM, valid_rows, cols])
        dst = _noise_tile(rng, Tile[TileType.Vec, np.float32, 16, count])
        values = src.storage.reshape(16, cols)[:valid_rows, pattern.phase::pattern.period].copy()
        want = dst.storage.reshape(16, count).copy()
        want[:valid_rows] = values
        for _ in range(2):
            TGATHER(dst, src, pattern, ROW, target=target)
            assert dst.storage.tobytes() == want.tobytes()

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("pattern", [MaskPattern.P0101, MaskPattern.P1000])
    def test_col_axis_npu_into_a_wider_dst(self, target, pattern):
        rng = np.random.default_rng(7)
        src = _noise_tile(rng, Tile[TileType.Vec, np.float32, 16, 16])
        count = 16 // pattern.period
        dst = _noise_tile(rng, Tile[TileType.Vec, np.float32, count, 32])
        want = dst.storage.reshape(count, 32).copy()
        want[:, :16] = src.storage.reshape(16, 16)[pattern.phase::pattern.period]  # the rows inside dst
        for _ in range(2):
            with pytest.warns(ErratumWarning, match="tgather_col_all_src_rows"):
                TGATHER(dst, src, pattern, COL, target=target)
            assert dst.storage.tobytes() == want.tobytes()


class TestMaskColNpuRows:
    """GATHER_COL under the NPU column errata (all src rows, 16-bit offsets), held to a plain reading of the
    kernel loop (one row's bytes per iteration): dst bytes, bytes spilled past dst into its buffer, warnings."""

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("dtype", [np.float32, np.float16])
    @pytest.mark.parametrize("shape", [(16, 16, 16, 16), (9, 16, 9, 5), (64, 64, 64, 64), (300, 256, 300, 256),
                                       (40, 32, 33, 17), (130, 512, 130, 511)])
    @pytest.mark.parametrize("pattern", [MaskPattern.P0101, MaskPattern.P1010, MaskPattern.P1000,
                                         MaskPattern.P1111])
    @pytest.mark.parametrize("bound", [False, True])
    def test_rows_as_the_kernel_copies_them(self, target, dtype, shape, pattern, bound):
        from ptoisa.memory import window

        srows, scols, vr, vc = shape
        item = np.dtype(dtype).itemsize
        count = len(range(pattern.phase, vr, pattern.period))
        rng = np.random.default_rng(srows + scols + vc)
        with ptoisa.target(target):
            NPU_MEMORY_CLEAR()
            src = Tile[TileType.Vec, dtype, srows, scols, RM, vr, vc]()
            dst = Tile[TileType.Vec, dtype, count, scols]()
            if bound:
                try:
                    TASSIGN(dst, 0)
                    TASSIGN(src, -(-dst.spec.nbytes // 4096) * 4096 + 8192)
                except ptoisa.PtoError:
                    pytest.skip("does not fit the buffer")
            src.storage.view(np.uint8)[:] = rng.integers(0, 256, src.spec.nbytes, dtype=np.uint8)
            dst.storage.view(np.uint8)[:] = rng.integers(0, 256, dst.spec.nbytes, dtype=np.uint8)
            before = dst.storage.copy()
            grid_ = src.storage.reshape(srows, scols).copy()
            starts = [((pattern.period * i + pattern.phase) * scols) & 0xFFFF for i in range(vr)]
            span = dst.spec.nbytes + vr * scols * item
            source = window(src, (max(starts) + vc) * item)
            expected = window(dst, span)
            for i, at in enumerate(starts):  # loop i copies vc elements (rows never overlap: vc <= dst Cols)
                expected[i * scols * item:(i * scols + vc) * item] = source[at * item:(at + vc) * item]
            if not bound:  # past an unplaced dst the writes are dropped
                expected[dst.spec.nbytes:] = 0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                TGATHER(dst, src, pattern, COL)
            assert dst.tobytes() == expected[:dst.spec.nbytes].tobytes()
            if bound:
                assert window(dst, span).tobytes() == expected.tobytes()
        wrote_past = vr > count and (vr - 1) * scols * item >= dst.spec.nbytes
        contract = before.reshape(count, scols)
        contract[:, :vc] = grid_[pattern.phase:vr:pattern.period, :vc]
        differs = wrote_past or contract.tobytes() != expected[:dst.spec.nbytes].tobytes()
        assert all(issubclass(w.category, ErratumWarning) for w in caught)
        assert bool(caught) == differs

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("types", [(np.float32, np.float32), (np.float16, np.int16)])
    @pytest.mark.parametrize("shape", [(16, 16, 16, 16), (9, 16, 9, 5), (300, 256, 300, 256), (40, 32, 33, 17)])
    @pytest.mark.parametrize("pattern", [MaskPattern.P0101, MaskPattern.P1000])
    @pytest.mark.parametrize("place", ["end", "over_src", "under_src"])
    def test_compiled_placed_like_general(self, target, types, shape, pattern, place):
        """The compiled call's rows past dst, with dst placed at the end of its buffer (rows cut off there) or
        over src's storage (read before written), against the general path: the whole buffer and warnings."""
        from ptoisa.isa import tgather as impl

        stype, dtype = types
        srows, scols, vr, vc = shape
        count = len(range(pattern.phase, vr, pattern.period))
        results = []
        for path in ("compiled", "general"):
            config = ptoisa.targets.resolve(target)
            with ptoisa.target(target):
                NPU_MEMORY_CLEAR()
                src = Tile[TileType.Vec, stype, srows, scols, RM, vr, vc]()
                dst = Tile[TileType.Vec, dtype, count, scols]()
                size = config.profile.memory.regions["UB"]
                try:
                    if place == "end":
                        TASSIGN(src, 0)
                        TASSIGN(dst, (size - dst.spec.nbytes) // 32 * 32)
                    elif place == "over_src":
                        TASSIGN(src, 0)
                        TASSIGN(dst, 32 * (src.spec.nbytes // 96))
                    else:
                        TASSIGN(dst, 0)
                        TASSIGN(src, 32 * (dst.spec.nbytes // 64))
                except ptoisa.PtoError:
                    pytest.skip("does not fit the buffer")
                buffer = dst.binding.buffer
                buffer[:] = np.random.default_rng(srows + vc).integers(0, 256, buffer.size, dtype=np.uint8)
                impl._MASK_COMPILED.clear()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    for _ in range(2):
                        if path == "compiled":
                            TGATHER(dst, src, pattern, COL)
                        else:
                            impl._mask_general(config, dst, src, pattern, COL)
                results.append((buffer.tobytes(), [str(w.message) for w in caught]))
        assert results[0] == results[1]
        assert results[0][1], "the erratum was not announced"


class TestCmpLargeShapes:
    """The comparison form's row counts (binary search over the matches' flat positions) and packed slots (a
    narrow compare against the counts) on shapes past the property tests' sizes, against the oracle."""

    @pytest.mark.parametrize("shape", [(256, 256, 256, 256), (130, 512, 127, 300), (2, 2048, 2, 2048),
                                       (40, 64, 40, 1), (33, 128, 33, 128)])
    @pytest.mark.parametrize("density", [0.0, 0.03, 0.5, 1.0])
    @pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ])
    def test_against_oracle(self, shape, density, mode):
        rows, cols, vr, vc = shape
        rng = np.random.default_rng(rows + vc)
        hit = rng.random((rows, cols)) < density
        values = np.where(hit, 2.0 if mode is CmpMode.GT else 1.0, 0.5).astype(np.float32)
        values[rng.random((rows, cols)) < 0.01] = np.nan
        src0 = tile(F32, rows, cols, vr, vc)
        src0.set_logical(values)
        kc = 8 * -(-rows // 8)
        k = tile(I32, 1, kc)
        k.set_logical(np.ones((1, kc), np.int32))
        cdst = tile(I32, 1, kc, fill=0x5C)
        dst = tile(U32, rows, cols, fill=0xA7)
        before = dst.data.copy()
        offset = 2**32 - 1000
        TGATHER(dst, src0, k, cdst, None, offset, mode, target="cpu")
        hits = O.gather_cmp(values, vr, vc, np.ones(kc, np.float32), int(mode), offset, True)
        for i, row in enumerate(hits):
            before[i, :len(row)] = np.array(row, dtype=np.uint64).astype(np.uint32)
        assert dst.data.tobytes() == before.tobytes()
        assert cdst.storage[:vr].tolist() == [len(r) for r in hits]
        assert (cdst.storage.view(np.uint8)[4 * vr:] == 0x5C).all()


CMP_PAIRS = [(np.float32, np.int32), (np.float32, np.uint32), (np.float16, np.uint16), (np.float16, np.int32),
             (np.int32, np.int32), (np.uint16, np.uint16), (np.int16, np.uint32), (np.uint32, np.uint32)]
CMP_ERRATA = ["tgather_cmp_u16_gt_as_eq", "tgather_cmp_k_signed_src_width", "tgather_cmp_half_k_int16",
              "tgather_cmp_unsigned", "tgather_cmp_running_index", "tgather_cmp_bitmap_rows"]


class TestCmpCompiled:
    """The comparison form's compiled call (k tile, ND tiles, no per-call erratum) gives the general path's bytes,
    warnings and refusals, and leaves every erratum that can act to it."""

    PAIRS = CMP_PAIRS

    @staticmethod
    def _check(config, sdt, kdt, shape, mode, case):
        from ptoisa.isa import tgather as impl

        rows, cols, vr, vc = shape
        cols = max(cols, 32 // np.dtype(sdt).itemsize)
        rng = np.random.default_rng(rows * cols + vc)
        if case == "dynamic":
            src0 = Tile[TileType.Vec, sdt, rows, cols, RM, -1, -1](vr, vc)
        else:
            src0 = Tile[TileType.Vec, sdt, rows, cols, RM, vr, vc]()
        lo = 0 if np.dtype(sdt).kind == "u" else -3
        values = rng.integers(lo, 4, src0.spec.numel).astype(sdt)
        if np.dtype(sdt).kind == "f":
            values[rng.random(values.size) < 0.05] = np.nan
            values[rng.random(values.size) < 0.05] = -0.0
        src0.storage[...] = values
        dcols = 16 if case == "narrow_dst" else cols  # narrow: some rows have more matches than dst holds
        dst = _noise_tile(rng, Tile[TileType.Vec, np.uint32 if config.name == "a5" else np.int32, rows, dcols])
        kc = max(8, 8 * -(-rows // 8), 32 // np.dtype(kdt).itemsize)
        k = Tile[TileType.Vec, kdt, 1, kc]()
        k.storage[...] = rng.integers(0, 3, kc).astype(kdt)
        k.storage[1::3] = {np.dtype(np.uint16): 0x8001, np.dtype(np.uint32): 0x80000002,
                           np.dtype(np.int32): -2}[np.dtype(kdt)]  # negative as a signed or narrower integer
        cdst = _noise_tile(rng, Tile[TileType.Vec, np.int32, 1, kc])
        need = (rows * cols * 4 + rows * np.dtype(sdt).itemsize) // 3 + 8
        tmp = Tile[TileType.Vec, np.int32, 1, -(-need // 8) * 8]()
        if case == "tmp_wide":  # bitmap rows that fit tmp (no bitmap-rows erratum on a2a3)
            tmp = Tile[TileType.Vec, np.int32, max(rows, 1), 8 * -(-need // (8 * max(rows, 1))) + 64]()
        offset = 2**32 - 5 if case == "offset" else 0
        impl._CMP_COMPILED.clear()
        tiles = [dst, src0, k, cdst, tmp]
        got = _outcome(lambda d, s, kk, c, t: TGATHER(d, s, kk, c, t, offset, mode, target=config), tiles)
        want = _outcome(lambda d, s, kk, c, t: impl._cmp_general(config, d, s, kk, c, t, offset, mode), tiles)
        assert got == want

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("sdt,kdt", PAIRS)
    @pytest.mark.parametrize("shape", [(16, 16, 16, 16), (8, 64, 5, 40), (4, 128, 4, 128), (3, 16, 0, 16),
                                       (2, 32, 2, 0)])
    @pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ])
    @pytest.mark.parametrize("case", ["plain", "offset", "dynamic", "narrow_dst", "tmp_wide"])
    def test_matches_general(self, target, sdt, kdt, shape, mode, case):
        self._check(ptoisa.targets.resolve(target), sdt, kdt, shape, mode, case)

    @pytest.mark.parametrize("target,erratum", [(t, e) for t in ("a2a3", "a5") for e in CMP_ERRATA + ["none"]
                                                if e == "none" or e in ptoisa.targets.get_profile(t).errata])
    @pytest.mark.parametrize("sdt,kdt", PAIRS)
    @pytest.mark.parametrize("shape", [(16, 16, 16, 16), (8, 64, 5, 40), (4, 256, 4, 256)])
    @pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ])
    @pytest.mark.parametrize("case", ["plain", "tmp_wide"])
    def test_each_erratum_alone(self, target, erratum, sdt, kdt, shape, mode, case):
        """One erratum at a time: the compiled call must leave each to the general path where it can act."""
        config = ptoisa.targets.make_config(target, frozenset() if erratum == "none" else frozenset({erratum}))
        self._check(config, sdt, kdt, shape, mode, case)

    def test_compiled_call_runs_and_refuses_like_general(self):
        from ptoisa.isa import tgather as impl

        src0 = Tile[TileType.Vec, np.float32, 4, 16]()
        src0.storage[...] = np.arange(64) % 5
        k, cdst = Tile[TileType.Vec, np.int32, 1, 8](), Tile[TileType.Vec, np.int32, 1, 8]()
        dst = Tile[TileType.Vec, np.int32, 4, 16]()
        impl._CMP_COMPILED.clear()
        TGATHER(dst, src0, k, cdst, None, 0, CmpMode.GT, target="cpu")
        assert any(callable(run) for run in impl._CMP_COMPILED.values())
        with pytest.raises(IllegalInstructionError, match="must be a different tile from dst"):
            TGATHER(dst, src0, k, dst, None, 0, CmpMode.GT, target="cpu")
        with pytest.raises(IllegalInstructionError, match="offset"):
            TGATHER(dst, src0, k, cdst, None, True, CmpMode.GT, target="cpu")


class TestA2a3BitmapsAtOnce:
    """The A2/A3 comparison scratch (erratum tgather_cmp_bitmap_rows), sparse (only the bytes the kernel touches)
    and computed with whole-array calls, gives the dense scratch's and the row-by-row loop's dst, cdst, tmp,
    bytes spilled into tmp's buffer (all of it) and warnings: bitmap rows overlapping each other, the index
    table and the thresholds (whose later rows then read bitmap bytes), rows far past tmp, placed (at the
    buffer's start, near its end so that rows run past it, over src0) and unplaced tmp."""

    @pytest.mark.parametrize("sdt", [np.float32, np.float16, np.int32])
    @pytest.mark.parametrize("rows,cols,vr,vc", [(16, 16, 16, 16), (64, 64, 64, 50), (256, 64, 256, 64),
                                                 (40, 128, 33, 128), (8, 512, 8, 300), (3, 64, 1, 5)])
    @pytest.mark.parametrize("tmp_cols", [8, 40, 376, "4c+8", "4c+32", "4c+96"])  # 4c+: rows reach the thresholds
    @pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ])
    @pytest.mark.parametrize("place", ["none", "start", "end", "over_src0"])
    def test_matches_dense_row_loop(self, sdt, rows, cols, vr, vc, tmp_cols, mode, place):
        from ptoisa.isa import tgather as impl

        import _dense_cmp_scratch as dense

        if sdt is np.int32 and mode is CmpMode.GT:
            return  # a2a3 compares int32 with EQ only
        cols = max(cols, 32 // np.dtype(sdt).itemsize)
        if isinstance(tmp_cols, str):
            tmp_cols = 4 * cols + int(tmp_cols[3:])
        need = rows * cols * 4 + rows * np.dtype(sdt).itemsize
        results = []
        sparse = impl._a2a3_cmp_scratch
        for path, scratch, at_once in (("compiled", sparse, True), ("general", sparse, True),
                                       ("compiled", sparse, False), ("general", dense.dense_cmp_scratch, True),
                                       ("general", dense.dense_cmp_scratch, False)):
            impl._A2A3_ROWS_AT_ONCE = dense.ROWS_AT_ONCE = at_once
            impl._CMP_COMPILED.clear()
            impl._a2a3_cmp_scratch = scratch
            try:
                with ptoisa.target("a2a3", undefined="emulate"):
                    NPU_MEMORY_CLEAR()
                    src0 = Tile[TileType.Vec, sdt, rows, cols, RM, vr, vc]()
                    dst = Tile[TileType.Vec, np.int32, rows, cols]()
                    k, cdst = Tile[TileType.Vec, np.int32, 1, 8 * -(-rows // 8)](), \
                        Tile[TileType.Vec, np.int32, 1, 8 * -(-rows // 8)]()
                    tmp_rows = max(1, -(-need // (4 * tmp_cols)) // 2)
                    tmp = Tile[TileType.Vec, np.int32, tmp_rows, tmp_cols]()
                    size = 192 * 1024
                    try:
                        if place == "start":
                            TASSIGN(tmp, 0)
                        elif place == "end":
                            TASSIGN(tmp, (size - tmp.spec.nbytes - 4096) // 32 * 32)
                        elif place == "over_src0":
                            TASSIGN(src0, 0)
                            TASSIGN(tmp, 32 * (src0.spec.nbytes // 64))
                    except ptoisa.PtoError:
                        pytest.skip("does not fit the buffer")
                    if tmp.binding is not None:
                        tmp.binding.buffer[:] = np.random.default_rng(5).integers(0, 256, size, dtype=np.uint8)
                    src0.storage[...] = np.random.default_rng(1).integers(-2, 3, src0.spec.numel).astype(sdt)
                    dst.storage[...] = -7
                    k.storage[...] = np.random.default_rng(2).integers(-1, 2, k.spec.numel)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        try:
                            if path == "compiled":
                                TGATHER(dst, src0, k, cdst, tmp, 2**32 - 3, mode)
                                if impl._bitmap_overlaps(src0, tmp.spec) \
                                        and not impl._cmp_tmp_short(dst.spec, src0.spec, tmp.spec):
                                    assert any(callable(run) for run in impl._CMP_COMPILED.values())
                            else:
                                impl._cmp_general(ptoisa.targets.resolve(None), dst, src0, k, cdst, tmp,
                                                  2**32 - 3, mode)
                            outcome = (dst.tobytes(), cdst.tobytes(), tmp.tobytes(),
                                       tmp.binding.buffer.tobytes() if tmp.binding is not None else b"")
                        except ptoisa.PtoError as exc:
                            outcome = (str(exc),)
                    results.append((outcome, sorted({str(w.message) for w in caught})))
            finally:
                impl._A2A3_ROWS_AT_ONCE = dense.ROWS_AT_ONCE = True
                impl._a2a3_cmp_scratch = sparse
        for result in results[:3] + results[4:]:
            assert result == results[3]


def _mask_filters_ignore_all():
    warnings.simplefilter("ignore")


def _mask_filters_ignore_errata():
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=ErratumWarning)


def _mask_filters_ignore_no_message():  # an ignore entry that matches none of our messages: the errata still warn
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="no such text", category=ErratumWarning)


class TestMaskColNpuIgnoredErrata:
    """GATHER_COL under the NPU column errata where every ErratumWarning is ignored: the compiled calls neither
    work out the contract's rows nor the announcement's text (announcing would do nothing), and still write the
    general path's bytes; where the filters let the errata through, the warnings are the general path's."""

    @pytest.mark.parametrize("target", ("a2a3", "a5"))
    @pytest.mark.parametrize("rows,cols,pattern,announces", [
        (16, 16, MaskPattern.P0101, True),    # every src row copied: rows land past dst, announced every call
        (16, 16, MaskPattern.P1111, False),   # no erratum acts
        (300, 256, MaskPattern.P1111, True),  # 16-bit row offsets wrap: announced where dst differs from contract
    ])
    @pytest.mark.parametrize("filters", [_mask_filters_ignore_all, _mask_filters_ignore_errata,
                                         _mask_filters_ignore_no_message])
    def test_bytes_and_warnings_are_the_general_paths(self, target, rows, cols, pattern, announces, filters):
        from ptoisa.isa import tgather as impl

        config = ptoisa.targets.resolve(target)
        count = len(range(pattern.phase, rows, pattern.period))
        results = []
        for how in ("compiled", "general"):
            impl._MASK_COMPILED.clear()
            src = Tile[TileType.Vec, np.float32, rows, cols]()
            dst = Tile[TileType.Vec, np.float32, count, cols]()
            got = []
            for round_ in range(3):
                src.storage[...] = np.random.default_rng(round_).standard_normal(src.storage.size)
                dst.storage[...] = np.random.default_rng(round_ + 9).standard_normal(dst.storage.size)
                with warnings.catch_warnings(record=True) as caught:
                    filters()
                    if how == "compiled":
                        TGATHER(dst, src, pattern, COL, target=target)
                    else:
                        impl._mask_general(config, dst, src, pattern, COL)
                got.append((dst.storage.tobytes(), [(w.category.__name__, str(w.message)) for w in caught]))
            results.append(got)
        assert results[0] == results[1]
        announced = any(messages for _, messages in results[0])
        assert announced == (announces and filters is _mask_filters_ignore_no_message)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("axis", [GatherAxis.GATHER_ROW, GatherAxis.GATHER_COL])
@pytest.mark.parametrize("dynamic", [True, False])
def test_mask_compiled_calls_follow_each_calls_tiles(target, axis, dynamic):
    """One mask signature called with changing tiles (dst alternating between two tiles, src among three, a
    tile's storage replaced by attach): each call writes its own dst from its own src (P0101: the even columns,
    or the even rows, picked by NumPy slicing here) and leaves every other tile alone."""
    n = 16
    shape = (n, n // 2) if axis is GatherAxis.GATHER_ROW else (n // 2, n)
    if dynamic:
        S, D = (Tile[TileType.Vec, float, n, n, BLayout.RowMajor, -1, -1],
                Tile[TileType.Vec, float, *shape, BLayout.RowMajor, -1, -1])
        src_of, dst_of = (lambda: S(n, n)), (lambda: D(*shape))
    else:
        src_of, dst_of = Tile[TileType.Vec, float, n, n], Tile[TileType.Vec, float, *shape]
    rng = np.random.default_rng(3)
    srcs, dsts = [src_of() for _ in range(3)], [dst_of(), dst_of()]
    for t in srcs + dsts:
        t.storage[...] = rng.standard_normal(t.storage.size).astype(np.float32)

    def check(dst, src):
        grid = src.storage.reshape(n, n)
        want = grid[:, ::2] if axis is GatherAxis.GATHER_ROW else grid[::2, :]
        others = {id(t): t.tobytes() for t in srcs + dsts if t is not dst}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            TGATHER(dst, src, MaskPattern.P0101, axis, target=target)
        assert dst.storage.reshape(shape).tolist() == want.tolist()
        assert all(t.tobytes() == others[id(t)] for t in srcs + dsts if t is not dst)

    for step in range(6):
        check(dsts[step % 2], srcs[step % 3])
    for step in range(4):  # one src, dst alternating; then one dst, src alternating
        check(dsts[step % 2], srcs[1])
    for step in range(4):
        check(dsts[1], srcs[step % 2])
    for t in (dsts[0], srcs[0]):
        t.attach(rng.standard_normal(t.storage.size).astype(np.float32))  # new storage, same type
        check(dsts[0], srcs[0])


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("n,dynamic", [(16, True), (16, False), (64, True), (64, False), (128, True)])
def test_index_compiled_calls_follow_each_calls_tiles(target, n, dynamic):
    """One index signature (below 1024 valid elements, NumPy's range-checked take; from 1024, one argmax and the
    take; either keeps what it reads off the three storages) called with changing tiles: dst alternating between two tiles, src0 among three, the indices among
    two, storages replaced by attach; each call writes its own dst (src0's elements at the indices, by NumPy's
    take here) and leaves every other tile alone; on cpu an index past src0 still takes the general path (0)."""
    if dynamic:
        F = Tile[TileType.Vec, float, n, n, BLayout.RowMajor, -1, -1]
        I = Tile[TileType.Vec, I32, n, n, BLayout.RowMajor, -1, -1]
        f_of, i_of = (lambda: F(n, n)), (lambda: I(n, n))
    else:
        f_of, i_of = Tile[TileType.Vec, float, n, n], Tile[TileType.Vec, I32, n, n]
    rng = np.random.default_rng(5)
    srcs, dsts, idxs = [f_of() for _ in range(3)], [f_of(), f_of()], [i_of(), i_of()]
    for t in srcs + dsts:
        t.storage[...] = rng.standard_normal(t.storage.size).astype(np.float32)
    for t in idxs:
        t.storage[...] = rng.integers(0, n * n, n * n)
    tmp = i_of()  # (a2a3 requires it; unused by the gather)
    tiles = srcs + dsts + idxs

    def check(dst, src, idx):
        want = np.take(src.storage, idx.storage.astype(np.int64), mode="clip")
        if target == "cpu":
            want[(idx.storage < 0) | (idx.storage >= n * n)] = 0
        others = {id(t): t.tobytes() for t in tiles if t is not dst}
        TGATHER(dst, src, idx, tmp, target=target)
        assert dst.storage.view(np.uint32).tolist() == want.view(np.uint32).tolist()
        assert all(t.tobytes() == others[id(t)] for t in tiles if t is not dst)

    for step in range(6):
        check(dsts[step % 2], srcs[step % 3], idxs[step // 3])
    for step in range(4):  # one pair of sources, dst alternating; then one dst, the indices alternating
        check(dsts[step % 2], srcs[1], idxs[0])
    for step in range(4):
        check(dsts[1], srcs[1], idxs[step % 2])
    for t in (dsts[0], srcs[0], idxs[0]):
        fresh = rng.integers(0, n * n, n * n).astype(t.storage.dtype) if t in idxs else \
            rng.standard_normal(t.storage.size).astype(np.float32)
        t.attach(fresh)  # new storage, same type
        check(dsts[0], srcs[0], idxs[0])
    if target == "cpu":
        idxs[1].storage[7] = n * n  # out of range: the general path's 0
        check(dsts[0], srcs[0], idxs[1])


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_index_run_time_indices_shape_under_one_dst_shape(target):
    """The indices' run-time valid shape changing while dst's stays (a2a3: tmp must match it; a5: its valid
    columns must be its Cols): each call is checked for its own pair of shapes, refused or gathered as the
    general path does it, in any order."""
    from ptoisa.isa import tgather as impl

    F = Tile[TileType.Vec, float, 8, 16, BLayout.RowMajor, -1, -1]
    I = Tile[TileType.Vec, I32, 8, 16, BLayout.RowMajor, -1, -1]
    tmp = Tile[TileType.Vec, I32, 8, 16]()
    src = F(8, 16)
    src.storage[...] = np.arange(128, dtype=np.float32)
    config = ptoisa.targets.resolve(target)

    def outcome(fn, idx):
        d = F(4, 16)
        try:
            fn(d, idx)
        except ptoisa.PtoError as exc:
            return type(exc).__name__
        return d.tobytes()

    for shape in [(8, 16), (4, 8), (8, 16), (4, 16), (4, 8), (8, 16)]:
        idx = I(*shape)
        idx.storage[...] = (np.arange(128) * 5) % 128
        got = outcome(lambda d, i: TGATHER(d, src, i, tmp, target=target), idx)
        want = outcome(lambda d, i: impl._index_general(config, d, src, i, tmp), idx)
        assert got == want, shape
