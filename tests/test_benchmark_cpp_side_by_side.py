"""benchmarks/cpp_side_by_side.py without the C++ simulator: it stops cleanly without a checkout, every case's
Python side builds and runs, the exact floors give ptoisa's bytes, and the driver source names every case.

With PTO_ISA_CHECKOUT set to a checkout of hw-native-sys/pto-isa (and g++ on the path), one more test builds the
driver and compares ptoisa's bytes with the simulator's for every case at 16 (TCI 1x16) and 64 (1x4096)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sbs():
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location("cpp_side_by_side", ROOT / "benchmarks" / "cpp_side_by_side.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path[:] = saved
        sys.modules.pop(spec.name, None)


def test_without_a_checkout_it_says_so_and_exits_0(sbs, capsys, tmp_path):
    assert sbs.main([]) == 0
    assert sbs.main([str(tmp_path)]) == 0  # a directory without include/pto
    out = capsys.readouterr().out
    assert out.count("skipped: give a checkout of hw-native-sys/pto-isa") == 2


def test_the_issue_cases_are_all_there(sbs):
    labels = {s.label for s in sbs.CASES}
    for wanted in ("TCMPS f32 GT", "TCMPS f32 EQ", "TCMPS f16 GT", "TCMPS i32 GT", "TCI i32",
                   "TPARTMUL f32 all valid", "TPARTMUL f32 partial", "TEXPANDS f32", "TGATHER index f32 +tmp",
                   "TGATHER mask P0101 f32", "TMATMUL f16->f32"):
        assert wanted in labels
    for s in sbs.CASES:
        assert s.sizes == ((16, 4096, 65536) if s.key == "tci_i32" else (16, 64, 256)), s.key


@pytest.mark.parametrize("n", [16, 64])
def test_every_python_side_runs_and_exact_floors_give_ptoisa_bytes(sbs, n):
    import ptoisa

    with ptoisa.target("cpu"):
        for spec in sbs.CASES:
            size = {16: 16, 64: 4096}[n] if spec.key == "tci_i32" else n
            tiles = {t.var: t.make() for t in spec.tiles(size)}
            case = spec.py(size, tiles)
            dst = tiles[spec.dst].storage
            case.call()
            case.floor()  # writes dst for most cases: run ptoisa again for its bytes
            dst[...] = 0
            case.call()
            ours = dst.tobytes()
            assert any(dst.view(np.uint8)), spec.key
            if case.exact is not None:
                dst[...] = 0
                case.exact()
                assert dst.tobytes() == ours, spec.key


def test_exact_floors_hold_specials(sbs):
    """The exact floors against ptoisa on values where float and double routes part (exp near overflow, rounding
    cases; sums that cancel), NaN, inf and -0.0 included."""
    import ptoisa

    n = 64
    rng = np.random.default_rng(7)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -103.9, -87.3, 1e-30, 16777216.0,
                         1e8, -1e8, 3.0e38], np.float32)
    with ptoisa.target("cpu"), np.errstate(all="ignore"):
        for key in ("texp_f32", "trowsum_f32"):
            spec = next(s for s in sbs.CASES if s.key == key)
            tiles = {t.var: t.make() for t in spec.tiles(n)}
            values = rng.standard_normal(n * n).astype(np.float32) * np.float32(30)
            pick = rng.random(n * n) < 0.2
            values[pick] = rng.choice(specials, pick.sum())
            tiles["a"].storage[:] = values
            case = spec.py(n, tiles)
            dst = tiles[spec.dst].storage
            case.call()
            ours = dst.tobytes()
            dst[...] = 0
            case.exact()
            assert dst.tobytes() == ours, key


@pytest.mark.parametrize("per_k", [False, True])
def test_tmatmul_exact_floor_holds_specials(sbs, per_k):
    """TMATMUL's exact floor (benchmarks/cases.py inorder_matmul, written into the Acc fractals) against ptoisa on
    half values with cancelling sums, -0.0 products (a column of -0.0 times positives sums to +0.0 from +0.0),
    infinities (inf - inf: NaN) and NaN; both of its forms (every k at once, and one k at a time as at 256x256)."""
    import ptoisa
    from cases import fractal_rows, inorder_matmul

    n = 64
    spec = next(s for s in sbs.CASES if s.key == "tmatmul_f16_f32")
    tiles = {t.var: t.make() for t in spec.tiles(n)}
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((n, n)) * 8).astype(np.float16)
    y = (rng.standard_normal((n, n)) * 8).astype(np.float16)
    x[:, 0] = y[0, :] = 0  # no contribution from k = 0 ...
    x[:, 1], y[1, :] = -0.0, np.abs(y[1, :])  # ... and -0.0 products from k = 1
    x[3, :] = -0.0
    x[5, 7], y[9, 4] = np.inf, -np.inf
    x[6, 2], y[2, 8] = np.nan, 60000
    x[10, 11:13] = 65504
    y[11, :], y[12, :] = 65504, -65504  # a sum that overflows, then is cancelled to NaN (inf - inf)
    y[:, 20] = np.abs(y[:, 20])  # with x's row 3: every product of element (3, 20) is -0.0
    tiles["a"].set_logical(x)
    tiles["b"].set_logical(y)
    dst = tiles["d"].storage
    with ptoisa.target("cpu"), np.errstate(all="ignore"):
        ptoisa.TMATMUL(tiles["d"], tiles["a"], tiles["b"])
        ours = dst.tobytes()
        assert np.isnan(tiles["d"].data).any() and np.isinf(tiles["d"].data).any()
        assert tiles["d"].data[3, 20] == 0 and not np.signbit(tiles["d"].data[3, 20])  # +0.0 + -0.0 + ...
        dst[...] = 0
        case = spec.py(n, tiles)
        if per_k:
            at, total = np.ascontiguousarray(x.astype(np.float32).T), np.empty((n, n), np.float32)
            inorder_matmul(at, y.astype(np.float32), np.empty((1, n, n), np.float32), total)
            fractal_rows(dst, n)[...] = total.reshape(n // 16, 16, n // 16, 16)
        else:
            case.exact()
    assert dst.tobytes() == ours


def test_the_driver_source_has_one_struct_per_case_and_size(sbs):
    entries = [sbs.Entry(s, n, k) for k, (s, n) in enumerate((s, n) for s in sbs.CASES for n in s.sizes)]
    source = sbs.driver_source(entries)
    assert source.count("\nstruct C") == len(entries)
    assert f"timed<C{len(entries) - 1}>, timed<Kernel>" in source
    assert "TASSIGN" not in source  # tiles point at host buffers: 256x256 fits
    assert "Tile<TileType::Vec, int32_t, 1, 65536, BLayout::RowMajor, -1, -1>" in source


@pytest.mark.skipif(not os.environ.get("PTO_ISA_CHECKOUT") or not shutil.which("g++"),
                    reason="set PTO_ISA_CHECKOUT to a checkout of hw-native-sys/pto-isa (and have g++)")
def test_ptoisa_bytes_are_the_simulators(sbs):
    import ptoisa

    checkout = Path(os.environ["PTO_ISA_CHECKOUT"])
    entries = [sbs.Entry(s, n, 0) for s in sbs.CASES for n in s.sizes[:2]]
    for k, e in enumerate(entries):
        e.id = k
    with tempfile.TemporaryDirectory() as tmp:
        driver = sbs.Driver(sbs.build_driver(checkout, Path(tmp), entries))
        try:
            with ptoisa.target("cpu"):
                for e in entries:
                    sbs.measure_entry(e, driver, 0.0, 1e-5)
        finally:
            driver.close()
    assert [e.name for e in entries if e.bytes_ok is not True or e.exact_bytes_ok is False] == []


def test_compare_pack_half_bit_routes_give_numpy_compare_bits(sbs):
    """The TCMPS floors' float16 routes by integer compares of the bits (EQ 1.0; GT 0.0 from 64x64 on) against
    NumPy's float16 compare, packed low bit first, on every float16 bit pattern (NaNs, infinities, -0.0,
    subnormals); and the plain route at 16x16."""
    from cases import compare_pack

    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    for mode, scalar, op in (("GT", 0.0, np.greater), ("EQ", 1.0, np.equal)):
        with np.errstate(invalid="ignore"):
            want = np.packbits(op(every, np.float16(scalar)), bitorder="little")
        got = compare_pack(mode, every.copy(), np.float16(scalar), np.empty(every.size, bool))()
        assert got.tobytes() == want.tobytes(), mode
        small = every[31744 - 128:31744 + 128].copy()  # 16x16 around +inf: the float16 compare itself
        got = compare_pack(mode, small, np.float16(scalar), np.empty(small.size, bool))()
        assert got.tobytes() == np.packbits(op(small, np.float16(scalar)), bitorder="little").tobytes(), mode


@pytest.mark.parametrize("n", [16, 64, 128])
def test_partial_multiply_both_forms(sbs, n):
    """TPARTMUL partial's floor (src0 copied whole then the product, up to 64x64; the product then copies around
    it, larger): the product over the top-left (n/2) x (3n/4), src0 everywhere else."""
    from cases import partial_multiply

    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(n * n).astype(np.float32) for _ in range(2))
    out = np.full(n * n, np.nan, np.float32)
    r, c = n // 2, 3 * n // 4
    partial_multiply(x, y, out, n, r, c)()
    inside = np.zeros((n, n), bool)
    inside[:r, :c] = True
    want = np.where(inside.reshape(-1), x * y, x)
    assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [16, 64, 128])
def test_rowsum_inorder_both_forms(sbs, n):
    """TROWSUM's exact floor (one transposed copy up to 64x64, slabs of 32 rows larger) sums each row in order,
    one float rounding per step: against a column-by-column float32 loop (no -0.0 in the data, so where the sum
    starts, +0.0 or the first element, does not show)."""
    from cases import rowsum_inorder

    rng = np.random.default_rng(5)
    grid = (rng.standard_normal((n, n)) * np.float32(1e4)).astype(np.float32)
    grid[:, 1::7] *= np.float32(1e-6)  # small terms: the order of additions shows
    out = np.empty(n, np.float32)
    rowsum_inorder(grid, out)()
    want = grid[:, 0].copy()
    for j in range(1, n):
        want = want + grid[:, j]
    assert out.tobytes() == want.tobytes()
    assert n < 64 or out.tobytes() != grid.sum(axis=1, dtype=np.float32).tobytes()  # not NumPy's pairwise sum
