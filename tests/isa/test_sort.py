"""TSORT32 and TMRGSORT: expected values worked out by hand or with NumPy from the pages' formulas (descending by
value, ties by smaller index; merges take the lower list on equal values), refusals, errata, the executed counts
against the simulator's, and the `.pto` ops in the interpreter."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import ptoisa
from ptoisa import (BLayout, ErratumWarning, IllegalInstructionError, MrgSortExecutedNumList, Tile, TileType,
                    TMRGSORT, TSORT32, half, uint32_t)

F32 = np.float32
VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"


def _tiles(dtype, rows, cols, values, ids):
    coef = 8 // np.dtype(dtype).itemsize
    src = Tile[TileType.Vec, dtype, rows, cols]()
    idx = Tile[TileType.Vec, uint32_t, rows, cols]()
    dst = Tile[TileType.Vec, dtype, rows, cols * coef]()
    src.set_logical(np.asarray(values, dtype).reshape(rows, cols))
    idx.set_logical(np.asarray(ids, np.uint32).reshape(rows, cols))
    return dst, src, idx


def _pairs_f32(dst, row=0):
    words = dst.data[row].view(np.uint32)
    return words[0::2].view(F32), words[1::2]


def _expected(values, ids):
    """The page's order for one block: value descending, then index ascending, then position."""
    v = np.asarray(values, np.float64)
    order = np.lexsort((np.arange(len(v)), np.asarray(ids, np.int64), -v))
    return v[order], np.asarray(ids)[order]


# --- TSORT32 ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tsort32_orders_each_block_by_value_then_index(target):
    values = [3, 1, 3, 2, 0, -1, 3, 2] * 4                       # ties everywhere
    ids = list(range(31, -1, -1))                                 # larger positions have smaller indices
    dst, src, idx = _tiles(F32, 1, 32, values, ids)
    TSORT32(dst, src, idx, target=target)
    got_v, got_i = _pairs_f32(dst)
    # the 3s sit at positions 0, 2, 6, 8, 10, 14, ...; their indices are 31 - position: smallest index first
    assert got_v[:12].tolist() == [3.0] * 12
    assert got_i[:12].tolist() == [31 - p for p in (30, 26, 24, 22, 18, 16, 14, 10, 8, 6, 2, 0)]
    want_v, want_i = _expected(values, ids)
    assert got_v.tolist() == want_v.tolist() and got_i.tolist() == want_i.tolist()


def test_tsort32_blocks_and_rows_are_independent():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((3, 96)).astype(F32)
    ids = rng.permutation(288).astype(np.uint32).reshape(3, 96)
    dst, src, idx = _tiles(F32, 3, 96, values, ids)
    TSORT32(dst, src, idx, target="a5")
    for r in range(3):
        got_v, got_i = _pairs_f32(dst, r)
        for b in range(3):
            want_v, want_i = _expected(values[r, 32 * b:32 * b + 32], ids[r, 32 * b:32 * b + 32])
            assert got_v[32 * b:32 * b + 32].tolist() == want_v.astype(F32).tolist()
            assert got_i[32 * b:32 * b + 32].tolist() == want_i.tolist()


def test_tsort32_signed_zeros_are_equal_and_keep_their_bits():
    values = [0.0, -0.0, 1.0, -0.0, 0.0] + [-5.0] * 27
    ids = [4, 3, 9, 0, 1] + list(range(10, 37))
    dst, src, idx = _tiles(F32, 1, 32, values, ids)
    TSORT32(dst, src, idx, target="cpu")
    got_v, got_i = _pairs_f32(dst)
    assert got_i[:5].tolist() == [9, 0, 1, 3, 4]                  # the zeros by index: -0.0(0) 0.0(1) -0.0(3) 0.0(4)
    assert np.signbit(got_v[1:5]).tolist() == [True, False, True, False]


def test_tsort32_half_pairs_are_value_zero_index():
    values = np.array([1.5, -2.0, 7.0, 0.25] * 8, np.float16)
    dst, src, idx = _tiles(np.float16, 1, 32, values, np.arange(100, 132))
    TSORT32(dst, src, idx, target="a2a3")
    quads = dst.data[0].reshape(32, 4)
    assert quads[:8, 0].tolist() == [7.0] * 8 and quads[:, 1].view(np.uint16).tolist() == [0] * 32
    index = quads[:, 2:].copy().view(np.uint32).reshape(-1)       # little-endian: low half first
    assert index[:8].tolist() == [102 + 4 * k for k in range(8)]


def test_tsort32_nan_follows_the_simulators_stable_sort():
    # With a NaN the comparator is not a strict weak order; libstdc++'s insertion sort (chunks of 7) and merges
    # decide. Worked by hand for the first chunk [NaN, 1, 2, ...]: 1 is not "less" than NaN, and NaN is not
    # "less" than 1, so insertion leaves the NaN first; 2 > 1 moves before 1 but stops at the NaN.
    values = [np.nan, 1.0, 2.0, 0.5, 3.0, -1.0, 4.0] + [-9.0] * 25
    dst, src, idx = _tiles(F32, 1, 32, values, np.arange(32))
    TSORT32(dst, src, idx, target="cpu")
    got_v, got_i = _pairs_f32(dst)
    assert np.isnan(got_v[0]) and got_i[:7].tolist() == [0, 6, 4, 2, 1, 3, 5]


def test_tsort32_partial_block_needs_tmp_and_sorts_the_valid_elements():
    values = np.arange(40, dtype=F32)
    src = Tile[TileType.Vec, F32, 1, 64, BLayout.RowMajor, -1, -1](1, 40)
    src.set_logical(np.pad(values, (0, 24)).reshape(1, 64))
    idx = Tile[TileType.Vec, uint32_t, 1, 64, BLayout.RowMajor, -1, -1](1, 40)
    idx.set_logical(np.arange(64, dtype=np.uint32).reshape(1, 64))
    dst = Tile[TileType.Vec, F32, 1, 128]()
    tmp = Tile[TileType.Vec, F32, 1, 64]()
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match="valid columns 40 must be a multiple of 32 without a tmp"):
        TSORT32(dst, src, idx, target="cpu")
    assert dst.tobytes() == before
    TSORT32(dst, src, idx, tmp, target="a5")
    got_v, got_i = _pairs_f32(dst)
    assert got_v[:32].tolist() == list(range(31, -1, -1)) and got_v[32:40].tolist() == list(range(39, 31, -1))
    assert got_i[32:40].tolist() == list(range(39, 31, -1))
    assert dst.data[0, 80:].view(np.uint32).tolist() == [0] * 48        # pairs past the valid 40: untouched


@pytest.mark.parametrize("args, message", [
    (("f16src",), "src dtype half must equal dst's float|dst dtype float"),
    (("i32",), "dtype int32 is not supported"),
    (("smalldst",), "dst has 32 columns; 32 pairs need 64"),
    (("idxshape",), r"idx valid shape \(2, 32\) must be src's \(1, 32\) or \(1, 32\)"),
])
def test_tsort32_refusals_change_no_byte(args, message):
    kind = args[0]
    src = Tile[TileType.Vec, half if kind == "f16src" else np.int32 if kind == "i32" else F32, 1, 32]()
    idx = Tile[TileType.Vec, uint32_t, 2 if kind == "idxshape" else 1, 32]()
    dst = Tile[TileType.Vec, np.int32 if kind == "i32" else F32, 1, 32 if kind == "smalldst" else 64]()
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=message):
        TSORT32(dst, src, idx, target="a2a3")
    assert dst.tobytes() == before


def test_tsort32_cpu_half_block_offset_erratum():
    rng = np.random.default_rng(5)
    values = rng.permutation(64).astype(np.float16)
    dst, src, idx = _tiles(np.float16, 1, 64, values, np.arange(64))
    with pytest.warns(ErratumWarning, match="tsort32_half_block_offset"):
        TSORT32(dst, src, idx, target="cpu")
    quads = dst.data[0].reshape(64, 4)
    first, second = _expected(values[:32], range(32)), _expected(values[32:], range(32, 64))
    assert quads[:16, 0].tolist() == first[0][:16].tolist()         # block 0 keeps its first 16 pairs
    assert quads[16:48, 0].tolist() == second[0].tolist()           # block 1 starts at column 64 = pair 16
    contract = Tile[TileType.Vec, half, 1, 256]()
    with ptoisa.target("cpu", errata=False):
        TSORT32(contract, src, idx)
    assert contract.data[0].reshape(64, 4)[32:, 0].tolist() == second[0].tolist()


def test_tsort32_one_idx_row_broadcasts_except_on_cpu():
    values = np.arange(64, dtype=F32).reshape(2, 32)
    src = Tile[TileType.Vec, F32, 2, 32]()
    src.set_logical(values)
    idx = Tile[TileType.Vec, uint32_t, 2, 32, BLayout.RowMajor, -1, -1](1, 32)
    idx.set_logical(np.tile(np.arange(32, dtype=np.uint32), (2, 1)))
    dst = Tile[TileType.Vec, F32, 2, 64]()
    TSORT32(dst, src, idx, target="a5")
    assert _pairs_f32(dst, 1)[1].tolist() == list(range(31, -1, -1))
    cpu = Tile[TileType.Vec, F32, 2, 64]()
    with pytest.warns(ErratumWarning, match="tsort32_idx_shape_noop"):
        TSORT32(cpu, src, idx, target="cpu")
    assert not cpu.tobytes().strip(b"\0")


# --- TMRGSORT ---------------------------------------------------------------------------------------------------
def _list(dtype, pairs, values, ids, cols=None):
    k = 8 // np.dtype(dtype).itemsize
    per_block = 32 // np.dtype(dtype).itemsize
    cols = cols or -(-pairs * k // per_block) * per_block
    t = Tile[TileType.Vec, dtype, 1, cols, BLayout.RowMajor, -1, -1](1, pairs * k)
    row = np.zeros(t.spec.cols, dtype)
    row[:pairs * k:k] = values
    raw = bytearray(row.tobytes())
    for p, i in enumerate(ids):
        raw[p * 8 + 4:p * 8 + 8] = int(i).to_bytes(4, "little")
    t.load_bytes(bytes(raw))
    return t


def _read(t, pairs):
    k = 8 // t.spec.dtype.itemsize
    raw = t.tobytes()[:pairs * 8]
    values = np.frombuffer(raw, t.spec.np_dtype)[::k]
    ids = np.frombuffer(raw, np.uint32)[1::2]
    return values.tolist(), ids.tolist()


def test_tmrgsort_two_lists_ties_go_to_the_lower_list():
    a = _list(F32, 8, [9, 7, 7, 5, 3, 3, 1, 0], range(0, 8))
    b = _list(F32, 8, [8, 7, 6, 5, 4, 3, 2, 1], range(100, 108))
    dst, tmp = Tile[TileType.Vec, F32, 1, 32](), Tile[TileType.Vec, F32, 1, 32]()
    counts = MrgSortExecutedNumList()
    TMRGSORT(dst, counts, tmp, a, b, target="a2a3")
    values, ids = _read(dst, 16)
    assert values == [9, 8, 7, 7, 7, 6, 5, 5, 4, 3, 3, 3, 2, 1, 1, 0]
    assert ids == [0, 100, 1, 2, 101, 102, 3, 103, 104, 4, 5, 105, 106, 6, 107, 7]
    assert counts.as_tuple() == (0, 0, 0, 0)                          # the NPUs report counts only when exhausted


def test_tmrgsort_exhausted_stops_when_a_list_runs_out_and_counts():
    a = _list(F32, 4, [9, 8, 7, 6], range(4))
    b = _list(F32, 4, [10, 1, 0, -1], range(10, 14))
    c = _list(F32, 4, [5, 4, 3, 2], range(20, 24))
    dst, tmp = Tile[TileType.Vec, F32, 1, 24](), Tile[TileType.Vec, F32, 1, 24]()
    before = dst.tobytes()
    for target in ("cpu", "a5"):
        counts = MrgSortExecutedNumList(7, 7, 7, 7)
        TMRGSORT(dst, counts, tmp, a, b, c, True, target=target)
        # 10(b) 9 8 7 6 (a runs out after 4): five pairs written, the rest of dst untouched
        assert counts.as_tuple() == (4, 1, 0, 0)
        assert _read(dst, 5) == ([10, 9, 8, 7, 6], [10, 0, 1, 2, 3])
        assert dst.tobytes()[40:] == before[40:]
    counts = MrgSortExecutedNumList()
    TMRGSORT(dst, counts, tmp, a, b, c, target="cpu")                 # not exhausted: cpu counts every merge
    assert counts.as_tuple() == (4, 4, 4, 0)
    assert _read(dst, 12)[0] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1]


def test_tmrgsort_single_list_merges_four_runs_per_group():
    rng = np.random.default_rng(7)
    runs = [np.sort(rng.integers(-20, 20, 32))[::-1].astype(F32) for _ in range(8)]   # 2 groups of 4 x 32 pairs
    values = np.concatenate(runs)
    src = _list(F32, 256, values, range(256))
    dst = Tile[TileType.Vec, F32, 1, 512]()
    TMRGSORT(dst, src, 64, target="a5")
    got_v, got_i = _read(dst, 256)
    for g in range(2):
        order = np.lexsort((np.arange(128), -values[128 * g:128 * g + 128].astype(np.float64)))  # run order on ties
        assert got_i[128 * g:128 * g + 128] == (order + 128 * g).tolist()


def test_tmrgsort_nan_and_unsorted_lists_are_merged_head_by_head():
    a = _list(F32, 3, [np.nan, 5, 1], range(3))
    b = _list(F32, 3, [4, 9, 2], range(10, 13))
    dst, tmp = Tile[TileType.Vec, F32, 1, 16](), Tile[TileType.Vec, F32, 1, 16]()
    counts = MrgSortExecutedNumList()
    TMRGSORT(dst, counts, tmp, a, b, target="cpu")
    # heads NaN vs 4: 4 > NaN is false, NaN stays; 5 vs 4: 5; 1 vs 4: 4; 1 vs 9: 9; 1 vs 2: 2; then 1
    assert _read(dst, 6)[1] == [0, 1, 10, 11, 12, 2]


@pytest.mark.parametrize("call, message", [
    (lambda d, s: TMRGSORT(d, s, 32), "blockLen must be a positive multiple of 64"),
    (lambda d, s: TMRGSORT(d, s, 128), "must be a multiple of 4 \\* blockLen = 512"),
])
def test_tmrgsort_refusals_change_no_byte(call, message):
    src, dst = Tile[TileType.Vec, F32, 1, 256](), Tile[TileType.Vec, F32, 1, 256]()
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=message):
        call(dst, src)
    assert dst.tobytes() == before


def test_tmrgsort_static_refusals():
    two_rows = Tile[TileType.Vec, F32, 2, 64]()
    with pytest.raises(IllegalInstructionError, match="must have 1 row"):
        TMRGSORT(Tile[TileType.Vec, F32, 2, 64](), two_rows, 64)
    a, b = Tile[TileType.Vec, F32, 1, 64](), Tile[TileType.Vec, F32, 1, 64]()
    dst, small = Tile[TileType.Vec, F32, 1, 128](), Tile[TileType.Vec, F32, 1, 64]()
    with pytest.raises(IllegalInstructionError, match="tmp has 64 columns, fewer than the sources' 128"):
        TMRGSORT(dst, MrgSortExecutedNumList(), small, a, b)
    with pytest.raises(IllegalInstructionError, match="executed must be a MrgSortExecutedNumList"):
        TMRGSORT(dst, [0, 0, 0, 0], dst, a, b)
    with pytest.raises(IllegalInstructionError, match="int32 is not supported"):
        TMRGSORT(Tile[TileType.Vec, np.int32, 1, 64](), Tile[TileType.Vec, np.int32, 1, 64](), 64, target="a5")


def test_tmrgsort_executed_counts_match_the_simulator():
    from ptoisa.conformance.runner import _run_record
    from ptoisa.conformance.vectors import build_tile, read_cases
    from ptoisa.targets import make_config

    seen = 0
    for case in read_cases(VECTORS / "tmrgsort.jsonl.gz"):
        expected = case.params.get("executed")
        if not expected:
            continue
        tiles = {r: build_tile(case.tile_record(r), case.initial_hex(r)) for r in case.params["tiles"]}
        captured = []
        original = MrgSortExecutedNumList.set

        def spy(self, counts, _orig=original):
            _orig(self, counts)
            captured.append(self.as_tuple())

        MrgSortExecutedNumList.set = spy
        try:
            _run_record(case, tiles, make_config("cpu"))
        finally:
            MrgSortExecutedNumList.set = original
        assert list(captured[-1]) == expected["expected"], case.case_id
        seen += 1
    assert seen >= 15


# --- .pto ---------------------------------------------------------------------------------------------------------
_TB = "!pto.tile_buf<loc=vec, dtype={d}, rows=1, cols={c}, v_row=1, v_col={c}, blayout=row_major, slayout=none_box, " \
      "fractal=512, pad=0>"
_KERNEL = """
module {{
  func.func @sort(%x: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %z = arith.constant 0 : i32
    %zu = builtin.unrealized_conversion_cast %z : i32 to ui32
    %bl = arith.constant 64 : i32
    %xv = pto.make_tensor_view %x, shape = [%c1, %c128], strides = [%c128, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %out, shape = [%c1, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c128] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x128xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c256] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x256xf32>
    %src = pto.alloc_tile : {s}
    %idx = pto.alloc_tile : {u}
    %sorted = pto.alloc_tile : {w}
    %merged = pto.alloc_tile : {w}
    pto.tload ins(%xp : !pto.partition_tensor_view<1x128xf32>) outs(%src : {s})
    pto.tci ins(%zu : ui32) outs(%idx : {u}) {{descending = false}}
    pto.tsort32 ins(%src, %idx : {s}, {u}) outs(%sorted : {w})
    pto.tmrgsort ins(%sorted, %bl : {w}, i32) outs(%merged : {w})
    pto.tstore ins(%merged : {w}) outs(%op : !pto.partition_tensor_view<1x256xf32>)
    return
  }}
}}
""".format(s=_TB.format(d="f32", c=128), u=_TB.format(d="ui32", c=128), w=_TB.format(d="f32", c=256))


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_pto_tsort32_and_tmrgsort_run_in_the_interpreter(target):
    program = ptoisa.load(_KERNEL)
    x = np.array([[(k * 37) % 64 - 20 for k in range(128)]], F32)       # every value twice: ties
    out = np.zeros((1, 256), F32)
    program.run(x, out, target=target)
    # TSORT32 sorts 4 blocks of 32 (indices from TCI: 0..127); TMRGSORT with blockLen 64 (32 float pairs) merges
    # the 4 sorted runs: the whole row, descending, ties by the earlier run (hence the smaller index)
    order = np.lexsort((np.arange(128), -x[0].astype(np.float64)))
    assert out[0].view(np.uint32)[1::2].tolist() == order.tolist()
    assert out[0, ::2].tolist() == x[0][order].tolist()


def test_pto_tmrgsort_format2_parses_prints_and_runs():
    text = """
module {{
  func.func @m(%ex: vector<4xi16>) {{
    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
    %d = pto.alloc_tile : {w}
    %tmp = pto.alloc_tile : {w}
    pto.tmrgsort ins(%a, %b, %tmp {{exhausted = true}} : {t}, {t}, {w}) outs(%d, %ex : {w}, vector<4xi16>)
    return
  }}
}}
""".format(t=_TB.format(d="f32", c=64), w=_TB.format(d="f32", c=128))
    from ptoisa.ir import parse_module, print_module  # noqa: F401 - the IR entry points

    module = parse_module(text)
    printed = print_module(module)
    assert "pto.tmrgsort ins(%a, %b, %tmp {exhausted = true} :" in printed and "vector<4xi16>)" in printed
    ptoisa.load(text).run([128, 64, 0, 0], target="cpu")


def test_the_simulator_vectors_are_there():
    for name in ("tsort32", "tmrgsort"):
        lines = gzip.decompress((VECTORS / f"{name}.jsonl.gz").read_bytes()).decode().splitlines()
        assert len(lines) >= 28 and json.loads(lines[0])["op"] == name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
