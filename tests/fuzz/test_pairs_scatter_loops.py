"""The six pair/scatter records on random well-formed calls: on `cpu` against loop transcriptions of the
simulator's C++ (include/pto/cpu/TInterleave.hpp, TDeinterleave.hpp, TPairReduceSum.hpp, TScatter.hpp,
TGatherB.hpp, TFillPad.hpp, written here as plain Python loops), and on every target a refused call leaves every
tile byte unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import fuzz_budget

import ptoisa
from ptoisa import BLayout, MaskPattern, PadValue, PtoError, ScatterAxis, SLayout, Tile, TileType
from ptoisa.targets import make_config

OPS = ["TINTERLEAVE", "TDEINTERLEAVE", "TDEINTERLEAVE1", "TPAIRREDUCESUM", "TSCATTER", "TGATHERB", "TFILLPAD_EXPAND"]
TYPES = [np.float32, np.float16, np.int32, np.uint16, np.int8, np.uint8, np.int16, np.uint32]


def mk(rng, dtype, rows, cols, vr, vc, pad=PadValue.Null):
    t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1, SLayout.NoneBox, 512, pad](vr, vc)
    t.storage.view(np.uint8)[...] = rng.integers(0, 256, t.storage.nbytes, np.uint8)
    return t


def shape(rng, dtype, even=False):
    per = 32 // np.dtype(dtype).itemsize
    rows = int(rng.integers(1, 5))
    cols = per * int(rng.integers(1, 4))
    vr = int(rng.integers(0, rows + 1))
    vc = int(rng.integers(0, cols + 1))
    if even:
        vc -= vc % 2
    return rows, cols, vr, vc


def bits(t):
    return t.storage.view(np.uint8).copy()


def call(name, args, target):
    before = [bits(a) for a in args if isinstance(a, Tile)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(ptoisa, name)(*args, target=make_config(target))
            return True
        except PtoError:
            after = [bits(a) for a in args if isinstance(a, Tile)]
            assert all((x == y).all() for x, y in zip(before, after)), f"refused {name} changed a tile"
            return False


def check(name, got, want):
    if got.tobytes() != want.tobytes():
        raise AssertionError(f"{name}: mismatch\n{got}\n{want}")


def run(rng, n):
    counts = {}
    for it in range(n):
        dtype = TYPES[int(rng.integers(0, len(TYPES)))]
        op = OPS[it % len(OPS)]
        target = ["cpu", "a5", "a2a3"][(it // 7) % 3]
        if op in ("TINTERLEAVE", "TDEINTERLEAVE"):
            r, c, vr, vc = shape(rng, dtype, even=rng.random() < 0.9)
            d1, d0, s1, s0 = (mk(rng, dtype, r, c, vr, vc) for _ in range(4))
            a0, a1 = s0.storage.reshape(r, c).copy(), s1.storage.reshape(r, c).copy()
            w0, w1 = d0.storage.reshape(r, c).copy(), d1.storage.reshape(r, c).copy()
            ok = call(op, (d1, d0, s1, s0), target)
            if ok and target == "cpu":
                mid = vc // 2
                for i in range(vr):
                    for k in range(mid):
                        if op == "TINTERLEAVE":
                            w0[i, 2 * k], w0[i, 2 * k + 1] = a0[i, k], a1[i, k]
                            w1[i, 2 * k], w1[i, 2 * k + 1] = a0[i, k + mid], a1[i, k + mid]
                        else:
                            w0[i, k], w1[i, k] = a0[i, 2 * k], a0[i, 2 * k + 1]
                            w0[i, k + mid], w1[i, k + mid] = a1[i, 2 * k], a1[i, 2 * k + 1]
                check(op, d0.storage, w0)
                check(op, d1.storage, w1)
        elif op == "TDEINTERLEAVE1":
            r, c, vr, vc = shape(rng, dtype, even=rng.random() < 0.9)
            d1, d0 = mk(rng, dtype, r, c, vr, vc), mk(rng, dtype, r, c, vr, vc)
            s = mk(rng, dtype, r, 2 * c, vr, 2 * vc if rng.random() < 0.9 else vc)
            a = s.storage.reshape(r, 2 * c).copy()
            w0, w1 = d0.storage.reshape(r, c).copy(), d1.storage.reshape(r, c).copy()
            ok = call("TDEINTERLEAVE", (d1, d0, s), target)
            if ok and target == "cpu":
                for i in range(vr):
                    for k in range(vc):
                        w0[i, k], w1[i, k] = a[i, 2*k], a[i, 2*k+1]
                check(op, d0.storage, w0)
                check(op, d1.storage, w1)
        elif op == "TPAIRREDUCESUM":
            dtype = [np.float32, np.float16][it % 2]
            r, c, vr, vc = shape(rng, dtype)
            d, s = mk(rng, dtype, r, c, vr, vc), mk(rng, dtype, r, c, vr, vc)
            a = s.storage.reshape(r, c).copy()
            ok = call(op, (d, s), target)
            if ok and target == "cpu":
                w = np.zeros((r, c), dtype)
                mid = (vc + 1) // 2
                with np.errstate(all="ignore"):
                    for i in range(vr):
                        for k in range(mid - 1):
                            w[i, k] = a[i, 2*k] + a[i, 2*k+1]
                        k = mid - 1
                        w[i, k] = a[i, 2*k] + (a[i, 2*k+1] if 2*k+1 < vc else dtype(0))
                got = d.storage.reshape(r, c)
                same = (got.tobytes() == w.tobytes()) or np.array_equal(np.isnan(got), np.isnan(w)) and \
                    (got[~np.isnan(got)].tobytes() == w[~np.isnan(w)].tobytes())
                assert same, (got, w)
        elif op == "TSCATTER":
            if rng.random() < 0.5:
                widths = {4: [np.int32, np.uint32], 2: [np.int16, np.uint16], 1: [np.int16, np.uint16]}
                itype = widths[np.dtype(dtype).itemsize][it % 2]
                r, c, vr, vc = shape(rng, dtype)
                c = max(c, 32 // np.dtype(itype).itemsize)
                vc = min(vc, c)
                d, s, ix = mk(rng, dtype, r, c, r, c), mk(rng, dtype, r, c, vr, vc), mk(rng, itype, r, c, vr, vc)
                numel = r * c
                vals = rng.integers(0, numel + (2 if rng.random() < 0.2 else 0), r * c)
                ix.storage[...] = vals.astype(itype)
                w, a, idx = d.storage.copy(), s.storage.reshape(r, c).copy(), ix.storage.reshape(r, c).copy()
                ok = call(op, (d, s, ix), target)
                if ok and target == "cpu":
                    for i in range(vr):
                        for j in range(vc):
                            w[int(idx[i, j])] = a[i, j]
                    check(op, d.storage, w)
            else:
                dtype = [np.float32, np.float16, np.int32, np.int16][it % 4]
                pat = list(MaskPattern)[int(rng.integers(0, 7))]
                axis = list(ScatterAxis)[it % 2]
                p = pat.period
                sr, sc = int(rng.integers(1, 3)), 32 // np.dtype(dtype).itemsize
                svr, svc = sr, int(rng.integers(1, sc + 1))
                if axis is ScatterAxis.SCATTER_ROW:
                    d = mk(rng, dtype, sr, sc * p, svr, svc * p)
                else:
                    d = mk(rng, dtype, sr * p, sc, svr * p, svc)
                s = mk(rng, dtype, sr, sc, svr, svc)
                a, w = s.storage.reshape(sr, sc).copy(), d.storage.reshape(d.spec.rows, d.spec.cols).copy()
                ok = call(op, (d, s, pat, axis), target)
                if ok and target == "cpu":
                    if pat is MaskPattern.P1111:
                        w[:svr, :svc] = a[:svr, :svc]
                    elif axis is ScatterAxis.SCATTER_ROW:
                        sR = sC = 0
                        for rr in range(svr):
                            for cc in range(d.valid_col):
                                if cc % p == pat.phase:
                                    w[rr, cc] = a[sR, sC]
                                    sC += 1
                                    if sC == sc:  # the running stream wraps at src's Cols
                                        sC, sR = 0, sR + 1
                                else:
                                    w[rr, cc] = 0
                    else:
                        srow = 0
                        for rr in range(d.valid_row):
                            if rr % p == pat.phase:
                                w[rr, :d.valid_col] = a[srow, :d.valid_col]
                                srow += 1
                            else:
                                w[rr, :d.valid_col] = 0
                    check(op + str(pat) + str(axis), d.storage, w)
        elif op == "TGATHERB":
            size = np.dtype(dtype).itemsize
            r = int(rng.integers(1, 4))
            blocks = int(rng.integers(1, 9)) * (8 if target == "a2a3" else 1)
            c = blocks * 32 // size
            d = mk(rng, dtype, r, c, int(rng.integers(0, r + 1)), c)
            s = mk(rng, np.uint8, 2, 64, 2, 64)
            o = mk(rng, np.uint32, r, 8 * -(-blocks // 8), r, 8)
            offs = rng.integers(0, 128 - 31, o.storage.size)
            if target != "cpu":
                offs = offs // 32 * 32
            if rng.random() < 0.3:
                offs[int(rng.integers(0, offs.size))] = 120  # a block past src: skipped
            o.storage[...] = offs.astype(np.uint32)
            w = d.storage.view(np.uint8).copy()
            sb = s.storage.view(np.uint8).copy()
            ob = o.storage.copy()
            ok = call(op, (d, s, o), target)
            if ok and target == "cpu":
                for i in range(d.valid_row):
                    for cc in range(blocks):
                        off = int(ob[i * o.spec.cols + cc])
                        if off + 32 <= sb.size:
                            at = (i * c + cc * (32 // size)) * size
                            w[at:at+32] = sb[off:off+32]
                check(op, d.storage.view(np.uint8), w)
        else:
            pad = [PadValue.Zero, PadValue.Max, PadValue.Min][int(rng.integers(0, 3))]
            sr, sc, svr, svc = shape(rng, dtype)
            dr, dc = sr + int(rng.integers(0, 3)), sc * int(rng.integers(1, 3))
            d = mk(rng, dtype, dr, dc, int(rng.integers(0, dr + 1)), int(rng.integers(0, dc + 1)), pad)
            s = mk(rng, dtype, sr, sc, svr, svc)
            a, w = s.storage.reshape(sr, sc).copy(), d.storage.reshape(dr, dc).copy()
            ok = call(op, (d, s), target)
            if ok and target == "cpu" and d.valid_row and d.valid_col:
                if np.dtype(dtype).kind == "f" and dtype != np.float16:
                    pv = {PadValue.Zero: 0, PadValue.Max: np.inf, PadValue.Min: -np.inf}[pad]
                elif dtype == np.float16:
                    pv = 0
                else:
                    info = np.iinfo(dtype)
                    pv = {PadValue.Zero: 0, PadValue.Max: info.max, PadValue.Min: info.min}[pad]
                w[...] = pv
                w[:svr, :svc] = a[:svr, :svc]
                check(op, d.storage.reshape(dr, dc), w)
        counts[(op, target, ok)] = counts.get((op, target, ok), 0) + 1
    return counts


@pytest.mark.parametrize("seed", range(4))
def test_the_records_match_the_simulator_loops_and_refuse_cleanly(seed):
    counts = run(np.random.default_rng([seed, 7]), fuzz_budget(350))
    assert sum(v for (op, target, ok), v in counts.items() if ok and target == "cpu") > 0
