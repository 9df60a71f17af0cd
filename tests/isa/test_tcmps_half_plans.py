"""TCMPS EQ/NE of large half tiles against a Python float: the compiled call keeps, per scalar, the one comparison of
the patterns it reduces to (`_into`'s plans, run by `_fused` itself on later calls) and lands whole rows of packed
bytes in one flat copy where dst's bytes are contiguous (`_landing`). Against bits worked out here in float64 from
the simulator's and the NPUs' rules (cpu: |a - b| < 1e-9, NE: a NaN or |a - b| > 1e-9; a2a3 / a5: IEEE), with the
scalar rounded to half first as the C++ cast rounds it, packed LSB first (cpu: the reference byte stream over
dst's valid shape, the rest of dst zeroed; NPUs: row i at dst row i, the rest of dst as it was, but for a5's chunk
tail where a row's bits stop short of 128 halves: zeros up to the chunk, announced). Each scalar is
given several times (the first call makes the plan, the later ones run it), between other scalars, more than the
plans kept."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, CmpMode, Tile, TileType

EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -14, 65504.0, -65504.0,
                 np.inf, -np.inf, np.nan, 1.0009765625, 0.99951171875], np.float16)


def _source(rows, cols, rng):
    """Small integers and halves (many equal to the scalars), the edge values, and NaNs with payloads."""
    x = rng.integers(-4, 5, (rows, cols)).astype(np.float16)
    x[rng.random((rows, cols)) < 0.3] = rng.choice(EDGE, int((rng.random((rows, cols)) < 0.3).sum()) or 1)[0]
    flat = x.reshape(-1)
    flat[:EDGE.size] = EDGE
    flat.view(np.uint16)[EDGE.size:EDGE.size + 3] = [0x7C01, 0xFE00, 0x8001]  # sNaN, -qNaN, -smallest subnormal
    flat[rng.integers(0, flat.size, 200)] = rng.choice(EDGE, 200)
    return x


def _expected_bits(x, value, mode, target):
    a = x.astype(np.float64)
    huge = type(value) is int and abs(value) > 2 ** 1000  # (past a double: NumPy cannot take it)
    b = np.inf if huge else float(np.float16(value))  # the C++ cast of the scalar to half
    with np.errstate(all="ignore"):
        if target == "cpu":
            distance = np.abs(a - b)
            if mode is CmpMode.EQ:
                return distance < 1e-9
            return np.isnan(a) | np.isnan(b) | (distance > 1e-9)
        return a == b if mode is CmpMode.EQ else a != b


def _expected_dst(before, bits, target, dst_rows, dst_cols):
    packed = np.packbits(bits, axis=1, bitorder="little")  # (rows, cols / 8), element 0 in the lowest bit
    if target == "cpu":  # the stream, reflowed row-major over dst's (whole) valid shape, the rest zero
        out = np.zeros(dst_rows * dst_cols, np.uint8)
        stream = packed.reshape(-1)[:out.size]
        out[:stream.size] = stream
        return out.reshape(dst_rows, dst_cols)
    out = before.copy()
    rows, width = packed.shape
    out[:rows, :width] = packed
    if target == "a5":  # erratum tcmps_chunk_tail: zeros up to each row's whole chunk of 128 halves (16 bytes)
        out[:rows, width:-(-width // 16) * 16] = 0
    return out


SCALARS = [1.0, -1.0, 1.0001, 0.5, 2.0 ** -24, -(2.0 ** -24), 3.0, 65504.0, -0.0, 0.0, 1.0009765625,
           float("inf"), float("nan"), 7.0]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", [CmpMode.EQ, CmpMode.NE], ids=lambda m: m.name)
@pytest.mark.parametrize("shape", [(32, 128, 32, 32), (32, 256, 32, 32), (64, 64, 64, 32)], ids=str)
def test_half_eq_ne_against_float64_bits(target, mode, shape):
    rows, cols, dst_rows, dst_cols = shape
    if target == "a2a3" and (cols % 128 or mode is CmpMode.NE and cols // 8 != dst_cols):
        pytest.skip("a2a3's repeat tail (under NE: dst's rows inverted past the bits): another route")
    chunk_tail = target == "a5" and cols % 128 != 0  # (a5: the chunk's tail bytes zeroed, announced)
    rng = np.random.default_rng(rows + cols + len(target))
    src = Tile[TileType.Vec, np.float16, rows, cols]()
    dst = Tile[TileType.Vec, np.uint8, dst_rows, dst_cols]()
    x = _source(rows, cols, rng)
    src.set_logical(x)
    # (ints and a bool among them: taken as the numbers they are, never as a kept float's plan)
    order = SCALARS + SCALARS[::-1] + [float(v) for v in rng.integers(-300, 300, 70)] + SCALARS \
        + [1, 3, True, -2, 10 ** 400, 1.0]
    for turn, value in enumerate(order):
        dst.storage[:] = 0xA5
        before = dst.data.copy()
        if turn == len(SCALARS):  # other data under the plans already made
            x = _source(rows, cols, rng)
            src.set_logical(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ptoisa.TCMPS(dst, src, value, mode, target=target)
        want = _expected_dst(before, _expected_bits(x, value, mode, target), target, dst_rows, dst_cols)
        assert dst.data.tobytes() == want.tobytes(), (target, mode, shape, turn, value)
        # the only warning: cpu's EQ tolerance where it changes a bit (inf == inf is false there)
        if type(value) is float:
            tolerance = target == "cpu" and mode is CmpMode.EQ and np.isinf(value) and bool((x == value).any())
            assert [type(w.message).__name__ for w in caught] == \
                (["ErratumWarning"] if tolerance or chunk_tail else []), value
            if chunk_tail:
                assert "tcmps_chunk_tail" in str(caught[0].message)


def test_plans_are_kept_per_signature_and_bounded():
    """The plans a compiled call keeps: EQ against nonzero, non-NaN halves only (a zero, an infinity or a NaN
    scalar takes `into` every time), at most `_PLANS_KEPT` of them."""
    from ptoisa.isa import tcmps as T

    src = Tile[TileType.Vec, np.float16, 32, 128]()
    dst = Tile[TileType.Vec, np.uint8, 32, 32]()
    for value in [1.0, 0.0, -0.0, float("inf"), float("nan"), 1.0] + [float(v) for v in range(2, 200)]:
        ptoisa.TCMPS(dst, src, value, CmpMode.EQ, target="cpu")
    config = ptoisa.targets.resolve("cpu")
    run = next(r for k, r in T._COMPILED.items() if k[0] is config and k[1] is dst.spec and k[2] is src.spec
               and k[4] is CmpMode.EQ)
    plans = dict(zip(run.__code__.co_freevars, run.__closure__))["get_plan"].cell_contents.__self__
    assert len(plans) == T._PLANS_KEPT and 1.0 in plans and 0.0 not in plans and float("inf") not in plans
    assert all(type(k) is float and k == k for k in plans)


def test_rows_land_in_one_flat_copy_only_where_contiguous():
    from ptoisa.isa.tcmps import _FLAT, _landing

    grid = np.zeros((8, 32), np.uint8)
    view, how = _landing(grid, None, True)
    assert how is _FLAT and view.base is grid or view.base is grid.base
    view, how = _landing(grid[:, :16], None, True)  # rows 32 bytes apart: not one run
    assert how is None and view.shape == (8, 16)
    view, how = _landing(grid, None, False)  # packed bytes that are not one flat stream
    assert how is None
    view, how = _landing(grid[:, :8], np.dtype(np.uint64), True)  # one word per row
    assert how == np.dtype(np.uint64) and view.shape == (8,)
