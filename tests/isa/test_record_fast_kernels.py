"""Fast kernels of record instructions held to their general computations: TEXP (float in one ufunc call),
TCVT (per-signature conversion), TROWEXPANDMUL. Same bytes (NaN payloads, -0.0, inf, wrap), warnings and
refusals, over random and special values, several shapes, valid regions smaller than the tile, run-time valid
shapes and dst placed over a source."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType
from ptoisa.targets import resolve

TARGETS = ["a2a3", "a5", "cpu"]
RM, CM = BLayout.RowMajor, BLayout.ColMajor
SPECIALS32 = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1.17e-38, 3.4e38, -3.4e38, 88.72, 88.73, -103.9,
                       -87.3, 1.0, -1.0, 0.5, 65504.0, 65520.0, 1e5, -1e5, 2.5, -2.5, 3.5, 1e-8],
                      np.float32)


def _float_values(rng, n, dtype, nan):
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)  # NaN payloads too
    v = np.where(rng.random(n) < 0.5, rng.uniform(-120, 100, n).astype(np.float32), bits)
    v[rng.integers(0, n, n // 8)] = rng.choice(SPECIALS32, n // 8)
    if not nan:
        v[np.isnan(v)] = 1.25
    return v.astype(dtype) if dtype != np.float32 else v


def _values(rng, n, dtype, nan=True):
    dtype = np.dtype(dtype)
    if dtype.kind in "fV":
        with np.errstate(all="ignore"):
            return _float_values(rng, n, dtype, nan)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64)
    if dtype.itemsize == 4:  # through float these round twice (to float, then to a tie of bfloat16)
        ties = [2**25 + 2**17 + 1, 2**30 + 2**22 + 1, 2**31 - 2**23 + 2**15 + 1]
        ties += [-t for t in ties] if dtype.kind == "i" else [2**31 + 2**23 + 2**15 + 1]
        v[rng.integers(0, n, 4 * len(ties))] = np.resize(ties, 4 * len(ties))
    return v.astype(dtype)


def _make(dtype, rows, cols, valid, dynamic, layout=RM):
    if dynamic:
        return Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](*valid)
    return Tile[TileType.Vec, dtype, rows, cols, layout, *valid]()


def _run(call, tiles):
    """(bytes of every tile, warnings) after the call, or the refusal with the bytes it left."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except ptoisa.PtoError as exc:
            return type(exc).__name__, str(exc), [t.tobytes() for t in tiles]
    return [t.tobytes() for t in tiles], sorted({str(w.message) for w in caught})


def _both(record, general, build, config, *args):
    """The public call and the general kernel, each on fresh tiles from `build()`; twice (compiled form)."""
    results = []
    for which in ("fast", "general"):
        outs = []
        for _ in range(2):
            tiles, operands = build()
            if which == "fast":
                outs.append(_run(lambda: record(*operands, *args, target=config), tiles))
            else:
                outs.append(_run(lambda: general(config, operands, args), tiles))
        results.append(outs)
    return results


def _kernel_call(record, kernel):
    """Call `kernel` through the record's own plan and run-time checks (the general computation)."""
    def call(config, operands, args):
        tiles, scalars, attrs, form = record.bind(config, tuple(operands) + tuple(args), {})
        plan = record.plan(config, tuple((n, t.spec) for n, t in tiles.items()), tuple(attrs.items()), form)
        if record.dynamic is not None:
            from ptoisa.isa._check import Check
            record.dynamic(Check(record.name, config.name), plan, tiles)
        kernel(plan, tiles, scalars)
    return call


SHAPES = [(16, 16, (16, 16)), (16, 16, (5, 16)), (8, 64, (8, 13)), (64, 128, (64, 128)), (1, 8, (1, 0)),
          (128, 64, (100, 64))]


# --- TEXP ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows,cols,valid", SHAPES)
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("alias", ["none", "in_place", "shifted"])
def test_texp_float_matches_general(target, rows, cols, valid, dynamic, nan, alias):
    from ptoisa.isa.vector import unary

    config = resolve(target)
    rng = np.random.default_rng(rows * cols + valid[1] + nan)
    data = _values(rng, rows * cols, np.float32, nan=nan)
    noise = _values(rng, rows * cols + 64, np.float32)

    def build():
        src = _make(np.float32, rows, cols, valid, dynamic)
        src.storage[...] = data
        if alias == "in_place":
            return [src], [src, src]
        dst = _make(np.float32, rows, cols, valid, dynamic)
        if alias == "shifted":  # dst placed 16 elements past src's start, over src
            buf = noise.copy()
            src.attach(buf[:rows * cols])
            src.storage[...] = data
            dst.attach(buf[16:16 + rows * cols])
            return [src, dst], [dst, src]
        dst.storage[...] = noise[:rows * cols]
        return [src, dst], [dst, src]

    fast, general = _both(ptoisa.TEXP, _kernel_call(ptoisa.TEXP, unary._exp_general), build, config)
    assert fast == general


def test_texp_fast_kernel_runs():
    """The one-call route really runs for float (and NaN inputs are left to the general path)."""
    from ptoisa.isa.vector import unary

    calls = []
    general = unary._exp_general
    unary._exp_general = lambda *a: calls.append(1) or general(*a)
    try:
        src, dst = Tile[TileType.Vec, np.float32, 16, 16](), Tile[TileType.Vec, np.float32, 16, 16]()
        src.storage[...] = np.linspace(-5, 5, 256)
        ptoisa.TEXP(dst, src, target="cpu")
        assert not calls
        src.storage[3] = np.nan
        ptoisa.TEXP(dst, src, target="cpu")
        assert calls
    finally:
        unary._exp_general = general


# --- TCVT ---------------------------------------------------------------------------------------------------
CVT_TYPES = [np.float32, np.float16, ptoisa.bfloat16_t, np.int32, np.int16, np.int8, np.uint8, np.uint16,
             np.uint32]


def _np_of(t):
    return t.np if hasattr(t, "np") else np.dtype(t)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("s_t", CVT_TYPES)
@pytest.mark.parametrize("d_t", CVT_TYPES)
@pytest.mark.parametrize("mode,sat", [(ptoisa.RoundMode.CAST_RINT, None), (ptoisa.RoundMode.CAST_NONE, None),
                                      (ptoisa.RoundMode.CAST_FLOOR, None), (ptoisa.RoundMode.CAST_RINT,
                                                                            ptoisa.SaturationMode.ON),
                                      (ptoisa.RoundMode.CAST_RINT, ptoisa.SaturationMode.OFF)])
def test_tcvt_matches_general(target, s_t, d_t, mode, sat):
    from ptoisa.isa.vector import convert

    config = ptoisa.targets.make_config(target, undefined="emulate")
    rng = np.random.default_rng(7)
    s_np, d_np = _np_of(s_t), _np_of(d_t)
    cols = 64
    for rows, valid, dynamic, alias in [(16, (16, 64), False, False), (8, (5, 37), True, False),
                                        (4, (4, 64), False, True)]:
        data = _values(rng, rows * cols, s_np)
        if np.dtype(s_np).kind in "fV" and np.dtype(d_np).kind in "iu" and rows == 16:
            with np.errstate(all="ignore"):  # mostly in range
                data = np.clip(np.nan_to_num(data.astype(np.float64)), -100, 100).astype(s_np)
        noise = rng.integers(0, 256, rows * cols * 4 + 64, dtype=np.uint8)

        def build():
            src = _make(s_np, rows, cols, valid, dynamic)
            dst = _make(d_np, rows, cols, valid, dynamic)
            if alias and np.dtype(s_np).itemsize == np.dtype(d_np).itemsize:
                buf = noise.copy()
                src.attach(buf[:rows * cols * src.storage.itemsize].view(s_np))
                dst.attach(buf[32:32 + rows * cols * dst.storage.itemsize].view(d_np))
            else:
                dst.storage.view(np.uint8)[...] = noise[:dst.storage.nbytes]
            src.storage[...] = data
            return [src, dst], [dst, src]

        args = (mode,) if sat is None else (mode, sat)
        fast, general = _both(ptoisa.TCVT, _kernel_call(ptoisa.TCVT, convert._convert_general), build, config, *args)
        assert fast == general, (rows, valid, dynamic, alias)


# --- TROWEXPAND{ADD,SUB,MUL} --------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,dtype", [("TROWEXPANDMUL", np.float32), ("TROWEXPANDMUL", np.float16),
                                        ("TROWEXPANDMUL", np.int16), ("TROWEXPANDADD", np.int32),
                                        ("TROWEXPANDSUB", np.float32), ("TROWEXPANDSUB", np.uint16),
                                        ("TROWEXPANDMAX", np.float32)])
@pytest.mark.parametrize("shape", [(16, 16, (16, 16)), (16, 32, (7, 32)), (16, 64, (16, 40)),
                                   (64, 128, (64, 128))])
@pytest.mark.parametrize("vector", ["col_major_src1", "block_src1", "col_major_src0"])
@pytest.mark.parametrize("case", ["static", "dynamic", "in_place", "tmp"])
def test_trowexpand_matches_general(target, name, dtype, shape, vector, case):
    record = getattr(ptoisa, name)
    rows, cols, valid = shape
    vr, vc = valid
    config = resolve(target)
    rng = np.random.default_rng(rows + vc)
    per_block = 32 // np.dtype(dtype).itemsize
    dynamic = case == "dynamic"
    full = _values(rng, rows * cols, dtype)
    vec_data = _values(rng, rows * max(per_block, 8), dtype)
    noise = _values(rng, rows * cols, dtype)

    def build():
        a = _make(dtype, rows, cols, valid, dynamic)
        a.storage[...] = full
        if vector == "block_src1":
            v = _make(dtype, rows, per_block, (vr, per_block), dynamic)
        else:
            v = _make(dtype, rows, 1, (vr, 1), dynamic, layout=CM)
        v.storage[...] = vec_data[:v.storage.size]
        if case == "in_place":
            d = a
        else:
            d = _make(dtype, rows, cols, valid, dynamic)
            d.storage[...] = noise
        operands = [d, v, a] if vector == "col_major_src0" else [d, a, v]
        if case == "tmp":
            operands.append(_make(dtype, rows, cols, valid, False))
        return list({id(t): t for t in operands}.values()), operands

    general = _kernel_call(record, record.kernel.general)
    fast, slow = _both(record, general, build, config)
    assert fast == slow


def test_trowexpandmul_direct_runs():
    """A static signature with a one-column per-row operand on a small region compiles to the spread route (the
    column spread into a scratch block, then one ufunc: `_row_compiled_small`); Instruction.call takes the
    per-plan direct route."""
    a, d = Tile[TileType.Vec, np.float32, 16, 16](), Tile[TileType.Vec, np.float32, 16, 16]()
    v = Tile[TileType.Vec, np.float32, 16, 1, CM]()
    a.storage[...] = 2.0
    v.storage[...] = np.arange(16)
    ptoisa.TROWEXPANDMUL(d, a, v, target="cpu")
    assert d.data[:, 3].tolist() == [2.0 * i for i in range(16)]
    # the compiled call of this very signature is the kernel's own compiled form (its `compiled` hook), the spread
    # route for 256 elements; Instruction.call, which runs the kernel, takes the per-plan direct route
    run = ptoisa.TROWEXPANDMUL._compiled[(resolve("cpu"), d.spec, a.spec, v.spec)]
    assert "_row_compiled_small" in run.__qualname__
    rec = ptoisa.TROWEXPANDMUL
    rec.call(resolve("cpu"), {"dst": d, "src0": a, "src1": v}, {}, {})
    assert any(run is not None for _, run in ptoisa.TROWEXPANDMUL.kernel.direct.values())
