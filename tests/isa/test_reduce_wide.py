"""The reductions' routes for large tiles against the simulator's loops.

The in-order sums and products (TROWSUM TROWPROD TCOLSUM TCOLPROD) on tiles large enough for their blocked
transposing copy into a kept scratch array (`reduce._steps_outer`, `reduce._spare`): every legal type pair of
each target against the step loop (from 0 or 1, one rounding per step), values whose result depends on the
order, full and partial valid regions (static and set at run time), lane counts that are not multiples of the
copy's block, and calls repeated with other data (the kept scratch must not leak a value from an earlier call).
The column arg reductions (TCOLARGMAX TCOLARGMIN) of full-width regions (rows laid side by side in long lines)
and partial ones, against the arg loop, with ties, signed zeros and NaNs."""

from __future__ import annotations

import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

sys.path.insert(0, os.path.dirname(__file__))
from _folds import UINT, assert_same_or_both_nan, bits, loop_fold, target_fold  # noqa: E402

FOLDS = {"TROWSUM": (np.add, 1), "TROWPROD": (np.multiply, 1), "TCOLSUM": (np.add, 0), "TCOLPROD": (np.multiply, 0)}


def order_sensitive(dtype, shape, rng, product):
    """Mixed magnitudes (the sum of a lane in another order rounds otherwise), signed zeros and a few
    infinities and NaNs; for products, factors near 1 (no overflow to inf, no underflow to 0 in most lanes)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if product:
        values = 1 + rng.standard_normal(shape) * 0.06
        values[rng.random(shape) < 0.01] = -0.0
    else:
        values = rng.standard_normal(shape) * np.exp2(rng.integers(-12, 13, shape))
        values[rng.random(shape) < 0.02] = -0.0
    special = rng.random(shape)
    values[special < 0.002] = np.nan
    values[(special >= 0.002) & (special < 0.003)] = np.inf
    values[(special >= 0.003) & (special < 0.004)] = -np.inf
    with np.errstate(all="ignore"):
        return values.astype(dtype)


def acc_of(name, dst):
    return np.dtype(np.float32) if name == "TROWSUM" and dst in (np.float16, ml_dtypes.bfloat16) else dst


def dst_tile(dst, rows, cols, axis, vr, vc, dynamic):
    if axis == 1:
        return Tile[TileType.Vec, dst.type, rows, 1, BLayout.ColMajor, *((-1, -1) if dynamic else (vr, 1))](
            *((vr, 1) if dynamic else ()))
    return Tile[TileType.Vec, dst.type, 1, cols, BLayout.RowMajor, *((-1, -1) if dynamic else (1, vc))](
        *((1, vc) if dynamic else ()))


SHAPES = [(256, 256, 256, 256), (256, 256, 250, 231), (64, 256, 64, 200), (256, 64, 256, 64), (128, 512, 97, 512)]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", list(FOLDS))
def test_wide_folds_against_the_step_loop(name, target):
    op, axis = FOLDS[name]
    record = getattr(ptoisa, name)
    rng = np.random.default_rng(len(name) * 13 + len(target))
    ran = 0
    for src_t, dst_t in sorted(record.legality[target].pairs, key=lambda p: (p[0].value, p[1].value)):
        src, dst = np.dtype(src_t.np), np.dtype(dst_t.np)
        acc = acc_of(name, dst)
        for rows, cols, vr, vc in SHAPES:
            a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, vr, vc]()
            tmp = Tile[TileType.Vec, src.type, rows, cols]()
            d = dst_tile(dst, rows, cols, axis, vr, vc, False)
            for _ in range(2):  # the second call reuses the scratch the first one filled
                x = order_sensitive(src, (rows, cols), rng, op is np.multiply)
                a.set_logical(x)
                with np.errstate(all="ignore"):
                    record(d, a, tmp, target=target)
                got = d.data[:vr, 0] if axis == 1 else d.data[0, :vc]
                want = target_fold(op, x[:vr, :vc], acc, axis, target)
                with np.errstate(all="ignore"):
                    want = want.astype(dst)
                assert_same_or_both_nan(got, want, (name, target, src, dst, rows, cols, vr, vc))
            ran += 1
    assert ran >= 10


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("name", list(FOLDS))
def test_wide_folds_run_time_valid_shapes(name, target):
    """One tile type, its valid shape changed between calls (each shape compiled once, then taken again)."""
    op, axis = FOLDS[name]
    record = getattr(ptoisa, name)
    rng = np.random.default_rng(5)
    legal = {(np.dtype(s.np), np.dtype(d.np)) for s, d in record.legality[target].pairs}
    for src_t, dst_t in ((np.float32, np.float32), (np.float16, np.float16), (np.int32, np.int32),
                         (ml_dtypes.bfloat16, np.float32)):
        src, dst = np.dtype(src_t), np.dtype(dst_t)
        if (src, dst) not in legal:
            continue
        for valid in ((256, 256), (255, 129), (256, 256), (33, 256), (255, 129)):
            vr, vc = valid
            a = Tile[TileType.Vec, src.type, 256, 256, BLayout.RowMajor, -1, -1](vr, vc)
            tmp = Tile[TileType.Vec, src.type, 256, 256]()
            d = dst_tile(dst, 256, 256, axis, vr, vc, True)
            x = order_sensitive(src, (256, 256), rng, op is np.multiply)
            a.set_logical(x)
            with np.errstate(all="ignore"):
                record(d, a, tmp, target=target)
                want = target_fold(op, x[:vr, :vc], acc_of(name, dst), axis, target).astype(dst)
            got = d.data[:vr, 0] if axis == 1 else d.data[0, :vc]
            assert_same_or_both_nan(got, want, (name, target, src, valid))


def test_blocked_copy_into_a_kept_scratch():
    """`_steps_outer` into a scratch array gives the plain transposed copy, whatever the scratch held; the
    scratch arrays are shared by shape and type."""
    from ptoisa.isa.vector.reduce import _blocked_pays, _spare, _steps_outer

    rng = np.random.default_rng(9)
    for dtype, acc in ((np.float32, np.float32), (np.float16, np.float32), (np.float16, np.float16),
                       (ml_dtypes.bfloat16, ml_dtypes.bfloat16), (ml_dtypes.bfloat16, np.float32)):
        acc = np.dtype(acc)
        grid = rng.standard_normal((200, 256)).astype(dtype)
        grid.view(UINT[grid.itemsize]).ravel()[::97] = 0x7C01 if grid.itemsize == 2 else 0x7F800001  # NaN payloads
        for values in (grid.T, grid[3:197, 1:250].T, grid[:, 5:].T):
            assert _blocked_pays(values)
            want = np.ascontiguousarray(values, dtype=acc)
            scratch = np.full(values.shape, np.nan, acc)
            got = _steps_outer(values, acc, scratch)
            assert got is scratch and bits(got).tobytes() == bits(want).tobytes()
            scratch = np.full(values.shape, np.nan, acc)
            got = _steps_outer(values, acc, scratch, np.full(values.shape, 0x7E01, np.uint16))  # bits copied first
            assert got is scratch and bits(got).tobytes() == bits(want).tobytes()
            assert bits(_steps_outer(values, acc)).tobytes() == bits(want).tobytes()
    assert _spare((256, 256), np.dtype(np.float32)) is _spare((256, 256), np.dtype(np.float32))


def first_index_loop(region, greater):
    """The simulator's arg loop (include/pto/cpu/TReduceIdx.hpp) down every column at once: element 0, replaced
    only by a strictly greater (smaller) element; NaN comparisons are false."""
    with np.errstate(all="ignore"):
        wide = region.astype(np.float64)
    best, index = wide[0].copy(), np.zeros(wide.shape[1], np.int64)
    for i in range(1, wide.shape[0]):
        better = wide[i] > best if greater else wide[i] < best
        best = np.where(better, wide[i], best)
        index = np.where(better, i, index)
    return index


def arg_values(dtype, shape, rng, kind):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = (-2 if dtype.kind == "i" else 0, 3) if kind == "ties" else (info.min, info.max)
        return rng.integers(low, high, shape, endpoint=True).astype(dtype)
    if kind == "ties":  # small integers and signed zeros: many equal extremes, zero extremes of both signs
        values = rng.integers(-2, 3, shape).astype(np.float64)
        values[rng.random(shape) < 0.3] = -0.0
    else:
        values = rng.standard_normal(shape) * 100
    if kind == "nan":
        values[rng.random(shape) < 0.002] = np.nan
    with np.errstate(all="ignore"):
        out = values.astype(dtype)
    if kind == "nan" and dtype.itemsize == 4:
        out.view(np.uint32)[0, 3] = 0xFF800001  # a signalling NaN
    return out


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("name", ["TCOLARGMAX", "TCOLARGMIN"])
@pytest.mark.parametrize("s_type", [np.float32, np.float16, np.int32, np.int16], ids=str)
def test_wide_column_arg_reductions_against_the_loop(target, name, s_type):
    """Full-width regions (rows contiguous: the grouped route) and partial ones, static and set at run time, on
    256-wide tiles, repeated with other data."""
    greater = name.endswith("MAX")
    record = getattr(ptoisa, name)
    rng = np.random.default_rng(11)
    src = np.dtype(s_type)
    for rows, cols, vr, vc, dynamic in ((256, 256, 256, 256, False), (256, 256, 250, 256, False),
                                        (256, 256, 256, 200, False), (128, 256, 128, 256, True),
                                        (128, 256, 72, 256, True), (128, 256, 128, 256, True)):
        for kind in ("plain", "ties", "nan"):
            if kind == "nan" and src.kind in "iu":
                continue
            if dynamic:
                a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
                d = Tile[TileType.Vec, np.int32, 1, cols, BLayout.RowMajor, 1, -1](vc)
            else:
                a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, vr, vc]()
                d = Tile[TileType.Vec, np.int32, 1, cols, BLayout.RowMajor, 1, vc]()
            x = arg_values(src, (rows, cols), rng, kind)
            a.set_logical(x)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a signalling NaN widened
                record(d, a, Tile[TileType.Vec, src.type, rows, cols](), target=target)
            assert d.data[0, :vc].tolist() == first_index_loop(x[:vr, :vc], greater).tolist(), (rows, vr, vc, kind)


def extreme_loop(region, greater, dst):
    """The simulator's max (min) loop down every column at once: element 0, replaced only by a strictly greater
    (smaller) element (a NaN first stays, later NaNs are skipped, of equal zeros the first stays)."""
    best = region[0].copy()
    with np.errstate(all="ignore"):
        for row in region[1:]:
            best = np.where(row > best if greater else row < best, row, best)
        return best.astype(dst)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", ["TCOLMAX", "TCOLMIN"])
@pytest.mark.parametrize("types", [(np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32),
                                   (np.int32, np.int32), (np.int16, np.int16), (np.int8, np.int8),
                                   (np.uint8, np.uint8)], ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}")
def test_wide_column_extremes_against_the_loop(target, name, types):
    """Full-width regions (rows contiguous: reduced with rows side by side) and partial ones, static and set
    at run time, with NaNs, ties of signed zeros, one sign only; each call's bits against the loop's."""
    src, dst = (np.dtype(t) for t in types)
    record = getattr(ptoisa, name)
    legal = {(np.dtype(s.np), np.dtype(d.np)) for s, d in record.legality[target].pairs}
    if (src, dst) not in legal:
        pytest.skip("not on this target")
    greater = name.endswith("MAX")
    rng = np.random.default_rng(17)
    for rows, cols, vr, vc, dynamic in ((256, 256, 256, 256, False), (256, 256, 250, 256, False),
                                        (300, 64, 300, 64, False), (256, 256, 256, 200, False),
                                        (128, 256, 128, 256, True), (128, 256, 72, 256, True),
                                        (128, 256, 128, 256, True)):
        for kind in ("plain", "ties", "nan", "one sign"):
            if kind == "nan" and src.kind in "iu":
                continue
            x = arg_values(src, (rows, cols), rng, "plain" if kind == "one sign" else kind)
            if kind == "one sign":
                x = np.abs(x) if src.kind in "fu" or not greater else np.negative(np.abs(x) // 2)
            if dynamic:
                a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
                d = Tile[TileType.Vec, dst.type, 1, cols, BLayout.RowMajor, 1, -1](vc)
            else:
                a = Tile[TileType.Vec, src.type, rows, cols, BLayout.RowMajor, vr, vc]()
                d = Tile[TileType.Vec, dst.type, 1, cols, BLayout.RowMajor, 1, vc]()
            a.set_logical(x)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a signalling NaN compared
                record(d, a, target=target)
            want = extreme_loop(x[:vr, :vc], greater, dst)
            assert bits(d.data[0, :vc]).tolist() == bits(want).tolist(), (rows, vr, vc, kind)


# --- the compiled calls against the general kernel (bytes and warnings), on the wide routes --------------------
def _hooks():
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    import test_rowcol_hooks

    return test_rowcol_hooks


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name", ["TCOLARGMAX", "TCOLARGMIN", "TCOLMAX", "TCOLMIN", "TROWSUM", "TROWPROD"])
@pytest.mark.parametrize("s_type", [np.float32, np.float16, np.int16], ids=str)
@pytest.mark.parametrize("region", [(256, 256, None, None), (256, 256, 200, 256), (128, 256, 128, 256)], ids=str)
@pytest.mark.parametrize("kind", ["mixed", "positive", "nan", "zeros"])
def test_wide_compiled_against_the_general_kernel(target, name, s_type, region, kind):
    """The public (compiled) call, twice, against the general kernel on copies: same bytes, same warnings (NaNs
    with payloads and signalling NaNs in "mixed" and "nan")."""
    h = _hooks()
    rows, cols, vr, vc = region
    s = h.make(h.spec(s_type, rows, cols, h.ROW, vr, vc), h.values(s_type, rows * cols, kind))
    vr, vc = s.valid_shape
    if name.startswith("TCOLARG"):
        tiles = [h.make(h.spec(np.int32, 1, cols, h.ROW, 1, vc)), s, h.make(s.spec)]
    elif name.startswith("TCOL"):
        tiles = [h.make(h.spec(s_type, 1, cols, h.ROW, 1, vc)), s]
    else:
        wide = np.float32 if s_type == np.float16 and name == "TROWSUM" and target == "cpu" else s_type
        tiles = [h.make(h.spec(wide, rows, 1, h.COL, vr, 1)), s, h.make(s.spec)]
    h.check(name, target, tiles, hooked=None)


def test_widen_gives_numpys_half_to_float_bits():
    """`reduce._widen` against NumPy's conversion: every half bit pattern (zeros, subnormals, infinities, NaN
    payloads, signalling NaNs), shuffled, in 2-d strided and transposed views, with and without specials and
    subnormals; no floating-point flag raised."""
    from ptoisa.isa.vector.reduce import _widen

    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    magnitude = every.view(np.uint16) & 0x7FFF
    rng = np.random.default_rng(4)
    finite_normal = every[(magnitude >= 0x400) & (magnitude < 0x7C00)]
    cases = [every, rng.permutation(every), every.reshape(256, 256).T, every.reshape(256, 256)[5:200:3, 7:250],
             finite_normal, rng.permutation(finite_normal)[:4096].reshape(64, 64).T,
             rng.standard_normal((256, 256)).astype(np.float16), np.zeros((64, 64), np.float16)]
    for values in cases:
        out = np.full(values.shape, np.nan, np.float32)
        with np.errstate(all="raise"):
            got = _widen(values, out)
        assert got is out and bits(out).tolist() == bits(values.astype(np.float32)).tolist()
    out = np.empty((16, 16), np.float32)  # bfloat16: ml_dtypes' cast
    b = rng.standard_normal((16, 16)).astype(ml_dtypes.bfloat16)
    assert bits(_widen(b, out)).tolist() == bits(b.astype(np.float32)).tolist()
