"""TCI: hand-worked sequences, seed examples, errata, wrap-around and every legality rule, on every target.

Expected values come from the seed formula (dst[k] = S + k, or S - k when descending, over dst.GetValidCol()),
DECISIONS 7/8 (Rows == 1, wrap modulo 2**bits, a2a3 tmp+descending erratum -(S + k)) and reference-facts 6;
they are never produced by calling ptoisa kernels.
"""

from __future__ import annotations

import warnings

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    TASSIGN,
    TCI,
    BLayout,
    ErratumWarning,
    IllegalInstructionError,
    NPU_MEMORY_CLEAR,
    PtoWarning,
    RecordEvent,
    Tile,
    TileType,
    half,
    int8_t,
    int16_t,
    int32_t,
    uint16_t,
    uint32_t,
)

# These tests convert out-of-range scalars on purpose; the warning that says so is tested in test_narrowing.py.
pytestmark = pytest.mark.filterwarnings("ignore::ptoisa.errors.NarrowingWarning")


TARGETS = ("a2a3", "a5", "cpu")
INT_DTYPES = {"int32": int32_t, "uint32": uint32_t, "int16": int16_t, "uint16": uint16_t}
NP = {int32_t: np.int32, uint32_t: np.uint32, int16_t: np.int16, uint16_t: np.uint16}
BITS = {int32_t: 32, uint32_t: 32, int16_t: 16, uint16_t: 16}


def wrap(values, dtype):
    """Reduce Python ints modulo 2**bits and reinterpret as the (signed or unsigned) element type."""
    bits = BITS[dtype]
    out = []
    for v in values:
        v %= 1 << bits
        if np.dtype(NP[dtype]).kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=NP[dtype])


def seq(start, n, descending, dtype):
    return wrap([start - k if descending else start + k for k in range(n)], dtype)


def scribble(tile, seed=0):
    rng = np.random.default_rng(seed)
    tile.storage.view(np.uint8)[:] = rng.integers(0, 256, tile.spec.nbytes, dtype=np.uint8)


def run_quiet(fn):
    """Run fn, return (result, list of ptoisa warnings other than scalar narrowing, tested on its own)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if issubclass(w.category, PtoWarning)
                    and not issubclass(w.category, ptoisa.errors.NarrowingWarning)]


# --- seed examples -------------------------------------------------------------------------------------------
TileT = Tile[TileType.Vec, int32_t, 1, 16]
TmpT = Tile[TileType.Vec, float, 1, 512]


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_auto(target):
    dst = TileT()
    scribble(dst)
    ev = TCI[TileT, int32_t, 0](dst, 0, target=target)
    assert isinstance(ev, RecordEvent) and ev.op == "TCI" and ev.pipe == "PIPE_S"
    np.testing.assert_array_equal(dst.data, np.arange(16, dtype=np.int32)[None, :])


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_auto_tmp(target):
    dst, tmp = TileT(), TmpT()
    scribble(dst)
    _, warns = run_quiet(lambda: TCI[TileT, TmpT, int32_t, 0](dst, 0, tmp, target=target))
    assert warns == []
    np.testing.assert_array_equal(dst.data[0], np.arange(16))


@pytest.mark.parametrize("target", TARGETS)
def test_seed_example_manual(target):
    NPU_MEMORY_CLEAR(target=target)
    dst = TileT()
    TASSIGN(dst, 0x1000, target=target)
    TCI[TileT, int32_t, 1](dst, 100, target=target)
    np.testing.assert_array_equal(dst.data[0], np.arange(100, 84, -1))
    # The values are in the on-chip buffer: an alias at the same UB offset sees them.
    alias = Tile[TileType.Vec, int32_t, 1, 16]()
    TASSIGN(alias, 0x1000, target=target)
    np.testing.assert_array_equal(alias.data[0], np.arange(100, 84, -1))


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_seed_example_manual_tmp_contract_targets(target):
    NPU_MEMORY_CLEAR(target=target)
    dst, tmp = TileT(), TmpT()
    TASSIGN(dst, 0x1000, target=target)
    TASSIGN(tmp, 0x2000, target=target)
    _, warns = run_quiet(lambda: TCI[TileT, TmpT, int32_t, 1](dst, 100, tmp, target=target))
    assert warns == []
    np.testing.assert_array_equal(dst.data[0], np.arange(100, 84, -1))


def test_seed_example_manual_tmp_a2a3_erratum():
    NPU_MEMORY_CLEAR(target="a2a3")
    dst, tmp = TileT(), TmpT()
    TASSIGN(dst, 0x1000, target="a2a3")
    TASSIGN(tmp, 0x2000, target="a2a3")
    with pytest.warns(ErratumWarning, match=r"TCI on a2a3: erratum tci_tmp_descending_negates"):
        TCI[TileT, TmpT, int32_t, 1](dst, 100, tmp, target="a2a3")
    np.testing.assert_array_equal(dst.data[0], -(100 + np.arange(16)))


def test_seed_example_manual_tmp_a2a3_errata_off():
    dst, tmp = TileT(), TmpT()
    with ptoisa.target("a2a3", errata=False):
        _, warns = run_quiet(lambda: TCI[TileT, TmpT, int32_t, 1](dst, 100, tmp))
    assert warns == []
    np.testing.assert_array_equal(dst.data[0], np.arange(100, 84, -1))


# --- hand-worked values for every overload, dtype and target ---------------------------------------------------
CASES = [
    # dtype, start, descending, n, expected (hand-computed)
    (int32_t, 0, False, 8, [0, 1, 2, 3, 4, 5, 6, 7]),
    (int32_t, -3, False, 8, [-3, -2, -1, 0, 1, 2, 3, 4]),
    (int32_t, 2, True, 8, [2, 1, 0, -1, -2, -3, -4, -5]),
    (int32_t, 2147483645, False, 8,
     [2147483645, 2147483646, 2147483647, -2147483648, -2147483647, -2147483646, -2147483645, -2147483644]),
    (int32_t, -2147483647, True, 8,
     [-2147483647, -2147483648, 2147483647, 2147483646, 2147483645, 2147483644, 2147483643, 2147483642]),
    (uint32_t, 1, True, 8, [1, 0, 4294967295, 4294967294, 4294967293, 4294967292, 4294967291, 4294967290]),
    (uint32_t, 4294967294, False, 8, [4294967294, 4294967295, 0, 1, 2, 3, 4, 5]),
    (int16_t, 32760, False, 16,
     [32760, 32761, 32762, 32763, 32764, 32765, 32766, 32767,
      -32768, -32767, -32766, -32765, -32764, -32763, -32762, -32761]),
    (int16_t, -32766, True, 16,
     [-32766, -32767, -32768, 32767, 32766, 32765, 32764, 32763,
      32762, 32761, 32760, 32759, 32758, 32757, 32756, 32755]),
    (int16_t, -1, False, 16, list(range(-1, 15))),
    (uint16_t, 3, True, 16,
     [3, 2, 1, 0, 65535, 65534, 65533, 65532, 65531, 65530, 65529, 65528, 65527, 65526, 65525, 65524]),
    (uint16_t, 65530, False, 16,
     [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,start,descending,n,expected", CASES)
def test_no_tmp_hand_values(target, dtype, start, descending, n, expected):
    T = Tile[TileType.Vec, dtype, 1, n]
    dst = T()
    scribble(dst, 1)
    _, warns = run_quiet(lambda: TCI(dst, start, descending=descending, target=target))
    assert warns == []
    assert dst.data[0].tolist() == expected


@pytest.mark.parametrize("target", ["a5", "cpu"])
@pytest.mark.parametrize("dtype,start,descending,n,expected", CASES)
def test_tmp_overload_contract_targets(target, dtype, start, descending, n, expected):
    dst = Tile[TileType.Vec, dtype, 1, n]()
    _, warns = run_quiet(lambda: TCI(dst, start, TmpT(), descending=descending, target=target))
    assert warns == []
    assert dst.data[0].tolist() == expected


@pytest.mark.parametrize("dtype,start,descending,n,expected", CASES)
def test_tmp_overload_a2a3(dtype, start, descending, n, expected):
    dst = Tile[TileType.Vec, dtype, 1, n]()
    if dtype in (uint32_t, uint16_t):  # DECISIONS 22: the backend's tmp overload does not compile for them
        assert_fault(lambda: TCI(dst, start, TmpT(), descending=descending, target="a2a3"), [dst], "a2a3", "tmp",
                     f"overload with a {dst.spec.dtype.cname} dst and a float tmp does not compile on the a2a3 "
                     "backend (it compiles for dst int32, int16 with a float tmp)")
        return
    _, warns = run_quiet(lambda: TCI(dst, start, TmpT(), descending=descending, target="a2a3"))
    if descending:
        want = wrap([-(start + k) for k in range(n)], dtype)  # DECISIONS 8: -(S + k)
    else:
        want = np.array(expected, dtype=NP[dtype])
    assert dst.data[0].tolist() == want.tolist()
    changed = want.tolist() != expected
    if changed:
        assert [w.category for w in warns] == [ErratumWarning]
        assert "tci_tmp_descending_negates" in str(warns[0].message)
    else:
        assert warns == []


def test_a2a3_tmp_descending_start_zero_is_silent():
    """-(0 + k) == 0 - k: the erratum does not change the result, so no warning (DECISIONS principle 3)."""
    dst = Tile[TileType.Vec, int16_t, 1, 32]()
    _, warns = run_quiet(lambda: TCI(dst, 0, TmpT(), descending=True, target="a2a3"))
    assert warns == []
    assert dst.data[0].tolist() == [-k for k in range(32)]


@pytest.mark.parametrize("dst_dtype,tmp_dtype", [(uint16_t, float), (uint32_t, float), (int32_t, int32_t),
                                                 (int16_t, uint32_t)])
def test_a2a3_tmp_overload_that_does_not_compile_is_refused(dst_dtype, tmp_dtype):
    """Audit D9, DECISIONS 22: a2a3/TCI.hpp declares tmp as `__ubuf__ float*` initialised from the tmp tile's
    pointer (lines 60, 111, 151, 209: a non-float tmp does not convert), and line 278 calls TMULS_IMPL(dst, dst, -1)
    for every 16-bit dst, whose static_assert (a2a3/TMulS.hpp:52-56) admits int16/int32/half/float only; the
    32-bit paths likewise negate through TMULS. Only int32/int16 dst with a float tmp compile."""
    dst = Tile[TileType.Vec, dst_dtype, 1, 16]()
    tmp = Tile[TileType.Vec, tmp_dtype, 1, 512]()
    scribble(dst)
    assert_fault(lambda: TCI(dst, 3, tmp, descending=True, target="a2a3"), [dst, tmp], "a2a3", "tmp",
                 f"overload with a {dst.spec.dtype.cname} dst and a {tmp.spec.dtype.cname} tmp does not compile on "
                 "the a2a3 backend (it compiles for dst int32, int16 with a float tmp)")


def test_a2a3_erratum_subset_without_tci_erratum_gives_contract():
    dst = Tile[TileType.Vec, int32_t, 1, 8]()
    with ptoisa.target("a2a3", errata={"texpands_b8_pairs"}):
        _, warns = run_quiet(lambda: TCI(dst, 7, TmpT(), descending=True))
    assert warns == []
    assert dst.data[0].tolist() == [7, 6, 5, 4, 3, 2, 1, 0]


@pytest.mark.parametrize("target", TARGETS)
def test_descending_template_and_keyword_forms_agree(target):
    a, b, c = TileT(), TileT(), TileT()
    TCI[TileT, int32_t, 1](a, 9, target=target)
    TCI(b, 9, descending=1, target=target)
    TCI(c, 9, descending=np.bool_(True), target=target)
    assert a.data[0].tolist() == b.data[0].tolist() == c.data[0].tolist() == list(range(9, -7, -1))


# --- valid region ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_only_valid_cols_written(target):
    T = Tile[TileType.Vec, int32_t, 1, 16, BLayout.RowMajor, 1, -1]
    dst = T(5)
    scribble(dst, 3)
    before = dst.storage.copy()
    TCI(dst, 10, target=target)
    assert dst.storage[:5].tolist() == [10, 11, 12, 13, 14]
    np.testing.assert_array_equal(dst.storage[5:], before[5:])


@pytest.mark.parametrize("target", TARGETS)
def test_valid_row_not_consulted(target):
    """Seed: the sequence length is GetValidCol(); GetValidRow() is not read (a 0-row valid tile is written)."""
    T = Tile[TileType.Vec, int16_t, 1, 16, BLayout.RowMajor, -1, -1]
    dst = T(0, 4)
    TCI(dst, -2, target=target)
    assert dst.storage[:4].tolist() == [-2, -1, 0, 1]
    assert dst.storage[4:].tolist() == [0] * 12


@pytest.mark.parametrize("target", TARGETS)
def test_zero_valid_cols_writes_nothing(target):
    dst = Tile[TileType.Vec, int32_t, 1, 8, BLayout.RowMajor, 1, -1](0)
    scribble(dst, 4)
    before = dst.tobytes()
    TCI(dst, 5, target=target)
    assert dst.tobytes() == before


@pytest.mark.parametrize("target,dtype,start,desc,n", [
    ("a2a3", int32_t, 0, False, 600), ("a2a3", int32_t, 0, True, 2000), ("a2a3", int16_t, 0, True, 5120),
    ("a5", int16_t, -1, True, 192), ("a5", int32_t, 0, False, 3200), ("a5", int16_t, 20, True, 3840),
    ("a5", int16_t, 50, False, 1408), ("cpu", int32_t, 100, True, 16),
])
def test_reference_test_lengths(target, dtype, start, desc, n):
    """The reference's test lists (reference-facts 6.5): golden = start +/- arange(n)."""
    dst = Tile[TileType.Vec, dtype, 1, n]()
    TCI(dst, start, descending=desc, target=target)
    np.testing.assert_array_equal(dst.data[0], seq(start, n, desc, dtype))


# --- start operand -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_start_python_int_wraps_like_cpp_narrowing(target):
    dst = Tile[TileType.Vec, int16_t, 1, 16]()
    TCI(dst, 40000, target=target)  # int16_t(40000) == -25536
    assert dst.data[0, :3].tolist() == [-25536, -25535, -25534]


@pytest.mark.parametrize("target", TARGETS)
def test_start_exact_numpy_scalar_accepted(target):
    dst = Tile[TileType.Vec, uint16_t, 1, 16]()
    TCI(dst, np.uint16(65535), target=target)
    assert dst.data[0, :3].tolist() == [65535, 0, 1]


@pytest.mark.parametrize("target", TARGETS)
def test_start_numpy_scalar_of_other_type_refused(target):
    dst = Tile[TileType.Vec, int32_t, 1, 8]()
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError) as exc:
        TCI(dst, np.int16(3), target=target)
    assert exc.value.instr == "TCI" and exc.value.target == target and exc.value.operand == "start"
    assert "must be exactly the dst dtype int32" in str(exc.value)
    assert dst.tobytes() == before


def test_template_scalar_type_must_match_dst():
    with pytest.raises(IllegalInstructionError, match=r"T \(int16\) must be exactly the dst dtype \(int32\)"):
        TCI[TileT, int16_t, 0]


def test_template_dst_type_must_match():
    other = Tile[TileType.Vec, int32_t, 1, 32]()
    before = other.tobytes()
    with pytest.raises(IllegalInstructionError, match="dst must be a"):
        TCI[TileT, int32_t, 0](other, 1, target="a5")
    assert other.tobytes() == before


def test_cpu_accepts_float_dst():
    """The CPU simulator has no dtype list for TCI (reference-facts 6.1): float start + k."""
    dst = Tile[TileType.Vec, float, 1, 8]()
    TCI(dst, 0.5, target="cpu")
    assert dst.data[0].tolist() == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]


def test_cpu_half_converts_the_index_before_adding():
    """include/pto/cpu/TCI.hpp:23, 25: `dst[idx] = start - j` / `start + j` with `int j`; C++ converts j to the
    element type first, so for a half dst j = 2049 becomes half(2049) = 2048 (a tie, to even) and j = 3001 becomes
    3000. Worked by hand, start 0.5 ascending: j = 2049 -> 0.5 + 2048 = 2048.5 -> 2048 (tie, even); the exact
    2049.5 would give 2050. j = 3001 -> 3000.5 -> 3000 (exact: 3001.5 -> 3002). j = 2050 -> 2050.5 -> 2050.
    Descending from -0.5 mirrors it. (The g++ 12 simulator's bytes agree: tests/data/vectors/seed_tci.jsonl.gz.)"""
    for descending, start, sign in ((False, 0.5, 1.0), (True, -0.5, -1.0)):
        dst = Tile[TileType.Vec, half, 1, 4096]()
        TCI(dst, np.float16(start), descending=descending, target="cpu")
        got = dst.data[0].astype(np.float64)
        for j, want in ((2047, 2048.0), (2048, 2048.0), (2049, 2048.0), (2050, 2050.0), (3001, 3000.0),
                        (4095, 4096.0)):
            assert got[j] == sign * want, (descending, j, got[j])


@pytest.mark.parametrize("dtype", list(INT_DTYPES.values()))
@pytest.mark.parametrize("blayout", [BLayout.RowMajor, BLayout.ColMajor])
def test_cols_one_is_impossible_for_every_tci_dtype(dtype, blayout):
    """The seed's Cols != 1 rule: a 1x1 dst cannot even be declared (32-byte alignment, reference-facts 6.4)."""
    with pytest.raises(ptoisa.TileSpecError, match="to be a multiple of 32 bytes"):
        Tile[TileType.Vec, dtype, 1, 1, blayout]


@pytest.mark.parametrize("target", TARGETS)
def test_boxed_single_row_dst_is_refused_cleanly(target):
    # One row of 16 int32 in 16x8 ZZ boxes: the second box would start at element 128 of a 16-element storage.
    T = Tile[TileType.Vec, int32_t, 1, 16, BLayout.RowMajor, 1, 16, ptoisa.SLayout.RowMajor]
    dst = T()
    before = dst.tobytes()
    with pytest.raises(ptoisa.IllegalInstructionError, match="ZZ layout with 1 rows .* past the tile's storage"):
        TCI(dst, 0, target=target)
    assert dst.tobytes() == before


# --- events ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_wait_events_accepted_with_and_without_tmp(target):
    dst = TileT()
    ev1 = TCI(dst, 0, target=target)
    ev2 = TCI(dst, 1, ev1, target=target)
    ev3 = TCI(dst, 2, TmpT(), ev1, ev2, target=target)
    assert ev3 is ev2 is ev1 and ev1.op == "TCI"
    assert dst.data[0, :3].tolist() == [2, 3, 4]


# --- legality faults: message fields and no byte changed -----------------------------------------------------
def assert_fault(call, tiles, target, operand, rule):
    before = [t.tobytes() for t in tiles]
    with pytest.raises(IllegalInstructionError) as exc:
        call()
    err = exc.value
    assert err.instr == "TCI"
    assert err.target == target
    assert err.operand == operand
    assert rule in err.rule
    assert str(err).startswith(f"TCI on {target}: ")
    assert [t.tobytes() for t in tiles] == before


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("dtype,cols", [(float, 8), (half, 16), (int8_t, 32)])
def test_fault_dst_dtype_npu(target, dtype, cols):
    dst = Tile[TileType.Vec, dtype, 1, cols]()
    scribble(dst)
    assert_fault(lambda: TCI(dst, 0, target=target), [dst], target, "dst",
                 f"dtype {ptoisa.dtypes.as_dtype(dtype).cname} is not supported "
                 "(allowed: int32, uint32, int16, uint16)")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [2, 16])
def test_fault_rows_not_one(target, rows):
    dst = Tile[TileType.Vec, int32_t, rows, 8]()
    scribble(dst)
    assert_fault(lambda: TCI(dst, 0, target=target), [dst], target, "dst",
                 f"must be a single-row tile: Rows must be 1 (got {rows})")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_rows_not_one_with_tmp(target):
    dst, tmp = Tile[TileType.Vec, int16_t, 4, 16](), TmpT()
    scribble(dst)
    scribble(tmp, 2)
    assert_fault(lambda: TCI(dst, 0, tmp, target=target), [dst, tmp], target, "dst", "Rows must be 1")


@pytest.mark.parametrize("tmp_dtype,cols", [(half, 1024), (int16_t, 1024), (int8_t, 2048)])
def test_fault_a2a3_tmp_dtype(tmp_dtype, cols):
    dst, tmp = TileT(), Tile[TileType.Vec, tmp_dtype, 1, cols]()
    scribble(dst)
    scribble(tmp, 5)
    name = ptoisa.dtypes.as_dtype(tmp_dtype).cname
    assert_fault(lambda: TCI(dst, 0, tmp, target="a2a3"), [dst, tmp], "a2a3", "tmp",
                 f"dtype {name} is not supported (allowed: float, int32, uint32)")


@pytest.mark.parametrize("dst_dtype,dst_cols,tmp_dtype,tmp_cols,ok", [
    (int32_t, 16, float, 192, True),      # exactly 768 bytes
    (int32_t, 16, float, 184, False),     # 736 bytes
    (int16_t, 16, float, 448, True),      # exactly 1792 bytes
    (int16_t, 16, float, 440, False),     # 1760 bytes
    (int16_t, 16, float, 192, False),     # big enough for b32, not for b16
])
def test_a2a3_tmp_size(dst_dtype, dst_cols, tmp_dtype, tmp_cols, ok):
    dst = Tile[TileType.Vec, dst_dtype, 1, dst_cols]()
    tmp = Tile[TileType.Vec, tmp_dtype, 1, tmp_cols]()
    scribble(dst)
    if ok:
        TCI(dst, 4, tmp, target="a2a3")
        assert dst.data[0, :4].tolist() == [4, 5, 6, 7]
    else:
        need = 768 if BITS[dst_dtype] == 32 else 1792
        assert_fault(lambda: TCI(dst, 4, tmp, target="a2a3"), [dst, tmp], "a2a3", "tmp",
                     f"must hold at least {need} bytes for a {BITS[dst_dtype]}-bit dst (got {tmp_cols * 4})")


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_tmp_ignored_on_a5_and_cpu(target):
    """a5 and cpu accept and ignore tmp (DECISIONS 8): any dtype and any size, and tmp is not written."""
    dst, tmp = Tile[TileType.Vec, int16_t, 1, 16](), Tile[TileType.Vec, int8_t, 1, 32]()
    scribble(tmp, 9)
    before = tmp.tobytes()
    TCI(dst, 1, tmp, target=target)
    assert dst.data[0].tolist() == list(range(1, 17))
    assert tmp.tobytes() == before


@pytest.mark.parametrize("target", TARGETS)
def test_fault_descending_not_boolean(target):
    dst = TileT()
    scribble(dst)
    assert_fault(lambda: TCI(dst, 0, descending=2, target=target), [dst], target, "descending",
                 "must be 0/1 or a bool (got 2)")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_tmp_not_a_tile(target):
    dst = TileT()
    scribble(dst)
    assert_fault(lambda: TCI(dst, 0, 7, target=target), [dst], target, "tmp", "must be a Tile (got int)")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_dst_not_a_tile(target):
    with pytest.raises(IllegalInstructionError) as exc:
        TCI(np.zeros(16, np.int32), 0, target=target)
    assert exc.value.operand == "dst" and "must be a Tile (got ndarray)" in str(exc.value)


@pytest.mark.parametrize("target", TARGETS)
def test_fault_start_not_a_number(target):
    dst = TileT()
    scribble(dst)
    assert_fault(lambda: TCI(dst, "abc", target=target), [dst], target, "start", "must be a number (got str)")


def test_fault_start_numeric_string_refused():
    dst = TileT()
    scribble(dst)
    assert_fault(lambda: TCI(dst, "7", target="a5"), [dst], "a5", "start", "must be a number (got str)")


@pytest.mark.parametrize("target", TARGETS)
def test_fault_extra_positional(target):
    dst, tmp = TileT(), TmpT()
    scribble(dst)
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=f"TCI on {target}"):
        TCI(dst, 0, tmp, tmp, target=target)
    assert dst.tobytes() == before


@pytest.mark.parametrize("target", TARGETS)
def test_fault_non_event_after_tmp(target):
    dst, tmp = TileT(), TmpT()
    scribble(dst)
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=f"TCI on {target}"):
        TCI(dst, 0, tmp, "not-an-event", target=target)
    assert dst.tobytes() == before


# --- property test against an independent oracle ----------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(
    dtype=st.sampled_from(list(INT_DTYPES.values())),
    target=st.sampled_from(TARGETS),
    start=st.integers(-(1 << 33), 1 << 33),
    descending=st.booleans(),
    with_tmp=st.booleans(),
    ncols_blocks=st.integers(1, 12),
    data=st.data(),
)
def test_property_matches_oracle(dtype, target, start, descending, with_tmp, ncols_blocks, data):
    cols = ncols_blocks * (32 // (BITS[dtype] // 8))
    vc = data.draw(st.integers(0, cols))
    dst = Tile[TileType.Vec, dtype, 1, cols, BLayout.RowMajor, 1, -1](vc)
    scribble(dst, start & 0xFFFF)
    before = dst.storage.copy()
    args = (TmpT(),) if with_tmp else ()
    if with_tmp and target == "a2a3" and dtype in (uint32_t, uint16_t):  # does not compile (DECISIONS 22)
        with pytest.raises(IllegalInstructionError):
            TCI(dst, start, *args, descending=descending, target=target)
        np.testing.assert_array_equal(dst.storage, before)
        return
    _, warns = run_quiet(lambda: TCI(dst, start, *args, descending=descending, target=target))
    negate = descending and with_tmp and target == "a2a3"
    if negate:
        want = wrap([-(start + k) for k in range(vc)], dtype)
    else:
        want = seq(start, vc, descending, dtype)
    np.testing.assert_array_equal(dst.storage[:vc], want)
    np.testing.assert_array_equal(dst.storage[vc:], before[vc:])
    contract = seq(start, vc, descending, dtype)
    erratum_changed = negate and want.tobytes() != contract.tobytes()
    # D10: a 32-bit dst with 64+ valid columns writes scratch up to tmp byte 2560, past this 2048-byte tmp
    overrun = with_tmp and target == "a2a3" and BITS[dtype] == 32 and vc >= 64
    names = sorted("overrun" if "tci_tmp_overrun" in str(w.message) else "negates" for w in warns)
    assert names == sorted(["negates"] * erratum_changed + ["overrun"] * overrun)


@pytest.mark.parametrize("tmp_spec,why", [
    (Tile[TileType.Mat, float, 1, 512], "location Mat is not supported (allowed: Vec)"),
    (Tile[TileType.Vec, float, 512, 1, BLayout.ColMajor], "must be a row-major, unboxed tile with fractal 512 (got DN"),
])
def test_a2a3_tmp_is_a_plain_vec_buffer(tmp_spec, why):
    """The a2a3 backend reads tmp as a `__ubuf__ float*` (a2a3/TCI.hpp:60): a Vec, row-major, unboxed tile."""
    dst, tmp = Tile[TileType.Vec, int32_t, 1, 16](), tmp_spec()
    with pytest.raises(IllegalInstructionError, match=re.escape(why)):
        TCI(dst, 0, tmp, target="a2a3")


# --- D10: the b32 repeat path's scratch overrun on a2a3 ---------------------------------------------------------
def _neighbour_floats_by_hand(tmp_tail: np.ndarray) -> np.ndarray:
    """What vadd's repeats 1..7 leave at tmp floats [192, 640) (bytes [768, 2560)), worked from TCI.hpp:60-82 by
    hand. Before the vadd, tmp0 (floats 0..63) holds 8k in block k, tmp1[0:8] holds 0..7, and floats 64..127 are
    tmp's own bytes 256..511 (`tmp_tail`). Repeat r writes tmp1 + 64r = (0..7 in every block) + floats [64r, 64r+64),
    reading what earlier repeats wrote: repeat 0 gives j (0..63); repeat 1 gives j%8 + tail; repeat r >= 2 adds
    j%8 to repeat r-2's result."""
    j = np.arange(64)
    low = (j % 8).astype(np.float32)
    rows = {0: j.astype(np.float32), 1: low + tmp_tail}
    for r in range(2, 8):
        rows[r] = low + rows[r - 2]
    return np.concatenate([rows[r] for r in range(1, 8)]).astype(np.float32)


def test_a2a3_tci_b32_repeat_path_overruns_a_seed_sized_tmp_into_its_neighbour():
    NPU_MEMORY_CLEAR(target="a2a3")
    Dst = Tile[TileType.Vec, int32_t, 1, 64]
    Tmp = Tile[TileType.Vec, float, 1, 192]                      # 768 bytes: the seed's minimum for 32-bit
    Neighbour = Tile[TileType.Vec, int32_t, 1, 512]              # 2048 bytes right after tmp
    dst, tmp, neighbour = Dst(), Tmp(), Neighbour()
    TASSIGN(tmp, 0x0, target="a2a3")
    TASSIGN(neighbour, 0x300, target="a2a3")
    TASSIGN(dst, 0x1000, target="a2a3")
    tail = np.linspace(-3.0, 4.0, 64, dtype=np.float32)         # tmp bytes 256..511: read by repeat 1
    tmp.storage[64:128] = tail
    with pytest.warns(ErratumWarning, match=r"tci_tmp_overrun.*bytes \[768, 2560\).*0x300\.\.0xa00"):
        TCI(dst, 5, tmp, target="a2a3")
    assert dst.data[0].tolist() == list(range(5, 69))
    written = neighbour.storage.view(np.float32)
    np.testing.assert_array_equal(written[:448], _neighbour_floats_by_hand(tail))
    assert not written[448:].any()                              # bytes 1792.. of the neighbour: untouched
    # inside tmp: tmp0 is the broadcast 8k per block, tmp1's first 64 floats were converted to int32 0..63
    np.testing.assert_array_equal(tmp.storage[:64], np.repeat(np.arange(0, 64, 8, dtype=np.float32), 8))
    np.testing.assert_array_equal(tmp.storage[64:128], tail)
    np.testing.assert_array_equal(tmp.storage[128:192].view(np.int32), np.arange(64))


def test_a2a3_tci_overrun_of_an_unplaced_tmp_is_announced_and_dropped():
    dst, tmp = Tile[TileType.Vec, int32_t, 1, 128](), Tile[TileType.Vec, float, 1, 256]()  # 1024-byte tmp
    with pytest.warns(ErratumWarning, match=r"bytes \[1024, 2560\).*not placed"):
        TCI(dst, -7, tmp, target="a2a3")
    assert dst.data[0].tolist() == list(range(-7, 121))


@pytest.mark.parametrize(("cols", "tmp_floats"), [(32, 192), (64, 640)])
def test_a2a3_tci_without_overrun_is_silent(cols, tmp_floats):
    """Below 64 valid columns the count-mode path stays in tmp; a 2560-byte tmp holds the repeat path's writes."""
    dst, tmp = Tile[TileType.Vec, int32_t, 1, cols](), Tile[TileType.Vec, float, 1, tmp_floats]()
    _, warns = run_quiet(lambda: TCI(dst, 3, tmp, target="a2a3"))
    assert warns == []
    assert dst.data[0].tolist() == list(range(3, 3 + cols))


def test_a2a3_tci_overrun_off_with_errata_off():
    NPU_MEMORY_CLEAR(target="a2a3")
    dst, tmp, neighbour = (Tile[TileType.Vec, int32_t, 1, 64](), Tile[TileType.Vec, float, 1, 192](),
                           Tile[TileType.Vec, int32_t, 1, 512]())
    TASSIGN(tmp, 0x0, target="a2a3")
    TASSIGN(neighbour, 0x300, target="a2a3")
    with ptoisa.target("a2a3", errata=False):
        _, warns = run_quiet(lambda: TCI(dst, 0, tmp))
    assert warns == [] and not neighbour.storage.any() and not tmp.storage.any()
