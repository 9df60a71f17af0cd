"""A2/A3's one-row matrix multiply (erratum `tmatmul_m1_sixteen_rows`), worked by hand from
include/pto/npu/a2a3/TMatmul.hpp:

- lines 47-51 (TMatmul) and 69-73 (TMatmulBias): `if constexpr (!isGemv) { if (m == 1) { m = 16; } }` before
  `mad(c, a, b, m, k, n, ...)`; k and n are left as they are;
- lines 165-166 (TMATMUL_IMPL: cmatrixInitVal true, C = A x B), 178-179 (TMATMUL_ACC_IMPL: initVal false, the
  cube adds to cOutMatrix.data() in place) and 202-203 (TMATMUL_BIAS_IMPL: cmatrixSource true, the bias table)
  pass isGemv = false; 186 runs the three-tile TMATMUL_ACC through 178-179; TGEMV* (119-120, 133-134, 152-153)
  pass isGemv = true and keep m = 1;
- so with A's valid rows 1, C rows r = 1..15 get sum_{k < K} A[r, k] * B[k, j] for j < N (A's storage rows,
  whatever they hold), added to C's own C[r, j] for the accumulate forms, plus bias[0, j] for the bias form.

include/pto/npu/a5/TMatmul.hpp passes m as it is (176-182, 191-197, 219-225: GetGemvCtrl, 23-27, switches GEMV
off by the static Rows instead): `a5` and `cpu` write row 0 only.

Values are small integers (every float sum exact), so each expected element is the integer written below."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType
from ptoisa.errors import ErratumWarning


def left(dtype, rows, cols, vm, vk, dynamic=False):
    spec = Tile[TileType.Left, dtype, rows, cols, BLayout.ColMajor, *((-1, -1) if dynamic else (vm, vk)),
                SLayout.RowMajor]
    return spec(vm, vk) if dynamic else spec()


def right(dtype, rows, cols, vk, vn):
    return Tile[TileType.Right, dtype, rows, cols, BLayout.RowMajor, vk, vn, SLayout.ColMajor]()


def acc(dtype, rows, cols, vm=1, vn=None):
    return Tile[TileType.Acc, dtype, rows, cols, BLayout.ColMajor, vm, vn or cols, SLayout.RowMajor, 1024]()


def setup(dtype=np.float16, c_dtype=np.float32, rows=16, k=20, n=9, start=None):
    """A (rows x 32, valid 1 x k) holding r + 1 in every element of storage row r; B (32 x 16, valid k x n) holding
    j + 1 in column j; C (rows x 16, valid 1 x 16) holding `start` (default 1000 + 10 r + j)."""
    a, b = left(dtype, rows, 32, 1, k), right(dtype, 32, 16, k, n)
    c = acc(c_dtype, rows, 16)
    a.set_logical(np.repeat(np.arange(1, rows + 1)[:, None], 32, axis=1))
    b.set_logical(np.repeat(np.arange(1, 17)[None, :], 32, axis=0))
    values = np.add.outer(1000 + 10 * np.arange(rows), np.arange(16)) if start is None else start
    c.set_logical(values.astype(c_dtype))
    return a, b, c, values


def product(rows, k, n):
    """sum_{kk < k} A[r, kk] B[kk, j] = (r + 1) * k * (j + 1): the cube's rows r < rows, columns j < n."""
    return np.outer(np.arange(1, rows + 1), np.arange(1, n + 1)) * k


def run(call, target="a2a3", errata=True):
    with ptoisa.target(target, errata=errata), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in seen if issubclass(w.category, ErratumWarning)]


def test_tmatmul_writes_sixteen_rows():
    a, b, c, start = setup()
    seen = run(lambda: ptoisa.TMATMUL(c, a, b))
    want = start.astype(np.float32)
    want[:16, :9] = product(16, 20, 9)  # rows 0..15, columns j < n = 9; columns 9..15 keep their values
    assert np.array_equal(c.data, want)
    assert len(seen) == 1 and "tmatmul_m1_sixteen_rows" in seen[0] and "C rows 1..15" in seen[0]


@pytest.mark.parametrize("form", ["four", "three", "other cIn"])
def test_tmatmul_acc_adds_to_c_own_rows(form):
    """Rows 1..15 accumulate into cOutMatrix's own values whatever cIn is (the cube is handed cOut only); row 0
    as before (cIn = cOut here, or cIn's values differ and erratum tmatmul_acc_ignores_cin names it)."""
    a, b, c, start = setup()
    c_in = acc(np.float32, 16, 16)
    c_in.set_logical(np.full((16, 16), -5.0, np.float32))
    call = {"four": lambda: ptoisa.TMATMUL_ACC(c, c, a, b), "three": lambda: ptoisa.TMATMUL_ACC(c, a, b),
            "other cIn": lambda: ptoisa.TMATMUL_ACC(c, c_in, a, b)}[form]
    seen = run(call)
    want = start.astype(np.float32)
    want[:16, :9] += product(16, 20, 9)
    assert np.array_equal(c.data, want)
    assert any("tmatmul_m1_sixteen_rows" in s for s in seen)
    assert any("tmatmul_acc_ignores_cin" in s for s in seen) is (form == "other cIn")


def test_tmatmul_bias_adds_the_bias_to_sixteen_rows():
    a, b, c, start = setup()
    bias = Tile[TileType.Bias, np.float32, 1, 16]()
    bias.set_logical(np.arange(16)[None, :] * 100.0)
    seen = run(lambda: ptoisa.TMATMUL_BIAS(c, a, b, bias))
    want = start.astype(np.float32)
    want[:16, :9] = product(16, 20, 9) + np.arange(9) * 100
    assert np.array_equal(c.data, want)
    assert any("tmatmul_m1_sixteen_rows" in s for s in seen)


def test_int8_rows_wrap_in_int32():
    """int8 A rows 1..15 hold r + 1, B's column j holds j + 1 over k = 64; C starts at 2^31 - 100 + j: the
    accumulate form's rows wrap as int32 adds do."""
    start = np.full((16, 16), 2 ** 31 - 100, np.int64) + np.arange(16)
    a, b, c, _ = setup(np.int8, np.int32, k=32, n=16, start=start)
    run(lambda: ptoisa.TMATMUL_ACC(c, a, b))
    total = start + product(16, 32, 16)
    want = ((total + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    assert (total > 2 ** 31 - 1).any()
    assert np.array_equal(c.data, want)


def test_rows_past_sixteen_keep_their_bytes():
    """A and C of 32 rows: the cube's m = 16 reaches rows 0..15; rows 16..31 keep their values."""
    a, b, c, start = setup(rows=32)
    run(lambda: ptoisa.TMATMUL(c, a, b))
    want = start.astype(np.float32)
    want[:16, :9] = product(16, 20, 9)
    assert np.array_equal(c.data, want)


@pytest.mark.parametrize(("target", "errata"), [("a2a3", False), ("a5", True), ("cpu", True)])
def test_other_targets_and_errata_off_write_row_zero(target, errata):
    """a5 and cpu (and a2a3 with errata off: the contract) write row 0 only, and name nothing."""
    a, b, c, start = setup()
    for call in (lambda: ptoisa.TMATMUL(c, a, b), lambda: ptoisa.TMATMUL_ACC(c, a, b)):
        before = c.data.copy()
        assert run(call, target, errata) == []
        assert np.array_equal(c.data[1:], before[1:])
    want = start.astype(np.float32)
    want[0, :9] = 2 * product(1, 20, 9)[0]  # TMATMUL's row 0, then TMATMUL_ACC's added to it
    assert np.array_equal(c.data, want)


def test_two_rows_and_gemv_keep_m():
    """m = 2 is passed as it is; TGEMV's isGemv keeps m = 1 (A of one row on a2a3, and one valid row of 16)."""
    a, b, c, start = setup()
    a2 = left(np.float16, 16, 32, 2, 20)
    a2.storage[...] = a.storage
    assert run(lambda: ptoisa.TMATMUL(c, a2, b)) == []
    want = start.astype(np.float32)
    want[:2, :9] = product(2, 20, 9)
    assert np.array_equal(c.data, want)
    a, b, c, start = setup()
    b = right(np.float16, 32, 16, 20, 9)
    b.set_logical(np.repeat(np.arange(1, 17)[None, :], 32, axis=0))
    assert run(lambda: ptoisa.TGEMV(c, a, b)) == []
    want = start.astype(np.float32)
    want[0, :9] = product(1, 20, 9)[0]
    assert np.array_equal(c.data, want)


def test_named_only_when_a_byte_changes():
    """A's rows 1..15 zero and the accumulate form: C + 0 leaves every byte; nothing is named."""
    a, b, c, start = setup()
    data = a.data.copy()
    data[1:] = 0
    a.set_logical(data.astype(np.float32))
    assert run(lambda: ptoisa.TMATMUL_ACC(c, a, b)) == []
    want = start.astype(np.float32)
    want[0, :9] += product(1, 20, 9)[0]
    assert np.array_equal(c.data, want)


def test_run_time_valid_rows_and_the_compiled_call():
    """A `-1` Left tile given one valid row at run time, twice (the shape dispatch, then its kept decision), and a
    static one twice (the compiled TMATMUL call is not used for it): each time rows 1..15 are written."""
    for dynamic in (True, False):
        a, b, c, start = setup()
        a_dyn = left(np.float16, 16, 32, 1, 20, dynamic=dynamic)
        a_dyn.storage[...] = a.storage
        for _ in range(2):
            c.set_logical(start.astype(np.float32))
            assert len(run(lambda: ptoisa.TMATMUL(c, a_dyn, b))) == 1
            want = start.astype(np.float32)
            want[:16, :9] = product(16, 20, 9)
            assert np.array_equal(c.data, want), dynamic


def test_a_tile_of_fewer_than_sixteen_rows_is_named():
    """A plain (non-fractal) Left tile of 4 rows, legal on a2a3: C rows 1..3 are written; the cube's rows 4..15
    fall past A's and C's storage, which the warning says it does not model."""
    a = Tile[TileType.Left, np.float16, 4, 32, BLayout.RowMajor, 1, 20]()
    b = right(np.float16, 32, 16, 20, 9)
    c = Tile[TileType.Acc, np.float32, 4, 16, BLayout.RowMajor, 1, 16]()
    a.set_logical(np.repeat(np.arange(1, 5)[:, None], 32, axis=1))
    b.set_logical(np.repeat(np.arange(1, 17)[None, :], 32, axis=0))
    c.set_logical(np.full((4, 16), 3.0))
    seen = run(lambda: ptoisa.TMATMUL(c, a, b))
    want = np.full((4, 16), 3.0, np.float32)
    want[:4, :9] = product(4, 20, 9)
    assert np.array_equal(c.data, want)
    assert len(seen) == 1 and "rows 4..15 lie past A's and C's storage" in seen[0]
