"""The a2a3 target's compiled calls held to the general paths they stand for: the comparison TGATHER whose bitmap
rows leave tmp's bitmap area (erratum tgather_cmp_bitmap_rows) with an unplaced tmp (`_lean_scratch`), and with a
tmp wide enough (no scratch erratum; k read as the kernel reads it, tgather_cmp_k_signed_src_width).

Each case runs the compiled call and the general path on copies of the same tiles, several calls in a row with
new data between them, and compares every byte of every tile, the warnings' texts in order and the refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, BLayout, CmpMode, Tile, TileType
from ptoisa.isa import tgather as impl

A2A3 = ptoisa.targets.resolve("a2a3")


def _copies(tiles):
    out = []
    for t in tiles:
        c = t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec()
        c.storage[...] = t.storage
        out.append(c)
    return out


def _run(call, rounds):
    """Per round (new tile bytes each): every tile's bytes, the warnings, or the refusal."""
    results = []
    for tiles in rounds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                call(*tiles)
                outcome = tuple(t.storage.tobytes() for t in tiles)
            except ptoisa.PtoError as exc:
                outcome = (type(exc).__name__, str(exc)) + tuple(t.storage.tobytes() for t in tiles)
        results.append((outcome, [str(w.message) for w in caught]))
    return results


def _cmp_case(sdt, kdt, shape, tmp_cols, mode, offset, dynamic, seed, density=0.5):
    rows, cols, vr, vc = shape
    rng = np.random.default_rng(seed)
    if dynamic:
        src0 = Tile[TileType.Vec, sdt, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
    else:
        src0 = Tile[TileType.Vec, sdt, rows, cols, BLayout.RowMajor, vr, vc]()
    dst = Tile[TileType.Vec, np.int32, rows, cols]()
    kc = 16 * -(-rows // 16)
    k, cdst = Tile[TileType.Vec, kdt, 1, kc](), Tile[TileType.Vec, np.int32, 1, kc]()
    if tmp_cols == "wide":
        need = rows * cols * 4 + rows * np.dtype(sdt).itemsize
        tmp = Tile[TileType.Vec, np.int32, rows, 8 * -(-need // (8 * rows * 3)) + 64]()
    else:
        need = (rows * cols * 4 + rows * np.dtype(sdt).itemsize) // 3 + 8
        tmp = Tile[TileType.Vec, np.int32, 1, max(tmp_cols, -(-need // 8) * 8)]()
    tiles = [dst, src0, k, cdst, tmp]

    def fill():
        for t in (dst, cdst, tmp):
            t.storage.view(np.uint8)[:] = rng.integers(0, 256, t.spec.nbytes, dtype=np.uint8)
        hit = rng.random(src0.spec.numel) < density
        values = np.where(hit, 2, rng.integers(-3, 1, src0.spec.numel)).astype(sdt)
        if np.dtype(sdt).kind == "f":
            values[rng.random(values.size) < 0.05] = np.nan
            values[rng.random(values.size) < 0.05] = -0.0
        src0.storage[...] = values
        k.storage[...] = rng.integers(0, 2, k.spec.numel).astype(kdt)
        if rng.random() < 0.5:  # negative as a signed integer of the source's width: the kernel's reading differs
            k.storage[1::3] = {np.dtype(np.uint16): 0x8001, np.dtype(np.uint32): 0x80000002,
                               np.dtype(np.int32): -2}[np.dtype(kdt)]
        return _copies(tiles)

    rounds = [fill() for _ in range(3)]
    return rounds, offset, mode


SHAPES = [(16, 16, 16, 16), (8, 64, 5, 40), (4, 128, 4, 128), (33, 32, 33, 20), (2, 256, 2, 256), (3, 64, 1, 5),
          (64, 64, 64, 64), (40, 128, 33, 100)]
PAIRS = [(np.float32, np.int32), (np.float32, np.uint32), (np.float16, np.uint16), (np.float16, np.int32),
         (np.int32, np.int32), (np.int32, np.uint32)]


class TestCmpScratchLean:
    @pytest.mark.parametrize("sdt,kdt", PAIRS)
    @pytest.mark.parametrize("shape", SHAPES)
    @pytest.mark.parametrize("tmp_cols", [0, 8, 40, 376, "wide"])
    @pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ])
    @pytest.mark.parametrize("offset", [0, 2**32 - 5, 12345])
    @pytest.mark.parametrize("dynamic", [False, True])
    def test_matches_general(self, sdt, kdt, shape, tmp_cols, mode, offset, dynamic):
        if sdt is np.int32 and mode is CmpMode.GT:
            return  # a2a3 compares int32 with EQ only
        seed = hash((np.dtype(sdt).str, np.dtype(kdt).str, shape, str(tmp_cols), int(mode), offset, dynamic)) % 2**32
        for density in (0.0, 0.5, 1.0):
            rounds, offset, mode = _cmp_case(sdt, kdt, shape, tmp_cols, mode, offset, dynamic, seed, density)
            ref = [[t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec() for t in r]
                   for r in rounds]
            for r, c in zip(rounds, ref):
                for t, u in zip(r, c):
                    u.storage[...] = t.storage
            impl._CMP_COMPILED.clear()
            got = _run(lambda d, s, kk, cd, t: TGATHER(d, s, kk, cd, t, offset, mode, target="a2a3"), rounds)
            want = _run(lambda d, s, kk, cd, t: impl._cmp_general(A2A3, d, s, kk, cd, t, offset, mode), ref)
            assert got == want

    @pytest.mark.parametrize("tmp_cols", [0, "wide"])
    @pytest.mark.parametrize("kdt", [np.int32, np.uint32])
    def test_row_overflow_refused_after_announcing(self, tmp_cols, kdt):
        """A row with more matches than dst holds: the compiled call leaves it to the general path, which announces
        what its compare found (k's reading) and refuses, every tile unchanged."""
        rounds, offset, mode = _cmp_case(np.float32, kdt, (8, 64, 8, 64), tmp_cols, CmpMode.GT, 0, False, 5, 1.0)
        narrow = []
        for tiles in rounds:
            tiles[2].storage[1::3] = {np.dtype(np.uint32): 0x80000002, np.dtype(np.int32): -2}[np.dtype(kdt)]
            dst = Tile[TileType.Vec, np.int32, 8, 16]()
            dst.storage[...] = 7
            narrow.append([dst] + tiles[1:])
        ref = [[t.spec() for t in r] for r in narrow]
        for r, c in zip(narrow, ref):
            for t, u in zip(r, c):
                u.storage[...] = t.storage
        impl._CMP_COMPILED.clear()
        got = _run(lambda d, s, kk, cd, t: TGATHER(d, s, kk, cd, t, offset, mode, target="a2a3"), narrow)
        want = _run(lambda d, s, kk, cd, t: impl._cmp_general(A2A3, d, s, kk, cd, t, offset, mode), ref)
        assert got == want
        assert all(outcome[0] == "IllegalInstructionError" for outcome, _ in got)
        assert all(bool(caught) == (kdt is np.uint32) for _, caught in got)  # k's reading changed matches

    @pytest.mark.parametrize("tmp_cols", [0, "wide"])
    @pytest.mark.parametrize("shape,at", [((8, 64, 5, 40), 0), ((8, 64, 5, 40), 60), ((8, 64, 5, 40), 130),
                                          ((8, 64, 5, 40), 250), ((8, 64, 5, 40), 496), ((16, 16, 16, 16), 0),
                                          ((16, 16, 16, 16), 60), ((16, 16, 16, 16), 130), ((16, 16, 16, 16), 240)])
    def test_cdst_over_dst(self, tmp_cols, shape, at):
        """cdst's storage inside dst's (attached there): the bytes and the warnings are the general path's (the
        compiled calls leave such calls to it: test_tgather_cmp_cdst_in_dst.py)."""
        rounds, offset, mode = _cmp_case(np.float32, np.int32, shape, tmp_cols, CmpMode.GT, 0, False, 3)
        ref = []
        for tiles in rounds:
            for t in (tiles, [t.spec() for t in tiles]):
                if t is not tiles:
                    for u, v in zip(t, tiles):
                        u.storage[...] = v.storage
                    ref.append(t)
                t[3].attach(t[0].storage[at:at + 16])
        impl._CMP_COMPILED.clear()
        got = _run(lambda d, s, kk, cd, t: TGATHER(d, s, kk, cd, t, offset, mode, target="a2a3"), rounds)
        want = _run(lambda d, s, kk, cd, t: impl._cmp_general(A2A3, d, s, kk, cd, t, offset, mode), ref)
        assert got == want

    def test_lean_call_is_the_one_taken(self):
        """The benchmark's signature (one-row tmp, f32 16x16) compiles to the lean scratch call."""
        rounds, offset, mode = _cmp_case(np.float32, np.int32, (16, 16, 16, 16), 0, CmpMode.GT, 0, False, 1)
        impl._CMP_COMPILED.clear()
        calls = []
        original = impl._lean_scratch

        def spy(*args, **kwargs):
            lean = original(*args, **kwargs)
            calls.append(lean)
            return lean

        impl._lean_scratch = spy
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the erratum is announced: the bitmap rows reach the table)
                TGATHER(*rounds[0][:4], rounds[0][4], offset, mode, target="a2a3")
        finally:
            impl._lean_scratch = original
        assert calls and calls[0] is not None


class TestTcmpsInt32AsEq:
    """a2a3 runs int32 LT/LE/GT/GE as EQ and announces the fallback where the requested mode's bits would differ;
    large valid regions decide that by one reduction (`_tells_from_eq`), under GT and LT first by an equal
    element. Held to the general path (bytes and warnings), with and without the repeat tail, for data with and
    without equal, larger and smaller elements."""

    @pytest.mark.parametrize("shape", [(64, 64, 64, 64), (64, 64, 64, 40), (48, 128, 40, 128), (64, 64, 33, 64),
                                       (16, 16, 16, 16), (8, 64, 8, 60)])
    @pytest.mark.parametrize("mode", [CmpMode.LT, CmpMode.LE, CmpMode.GT, CmpMode.GE])
    @pytest.mark.parametrize("data", ["below", "above", "equal_only", "mixed", "above_but_equal", "below_but_equal"])
    @pytest.mark.parametrize("dynamic", [False, True])
    def test_matches_general(self, shape, mode, data, dynamic):
        from ptoisa.isa import tcmps as impl

        rows, cols, vr, vc = shape
        if dynamic:
            src0 = Tile[TileType.Vec, np.int32, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
            dst = Tile[TileType.Vec, np.uint8, rows, 32, BLayout.RowMajor, -1, -1](vr, 32)
        else:
            src0 = Tile[TileType.Vec, np.int32, rows, cols, BLayout.RowMajor, vr, vc]()
            dst = Tile[TileType.Vec, np.uint8, rows, 32, BLayout.RowMajor, vr, 32]()
        rng = np.random.default_rng(vr * vc)
        scalar = 7
        values = {"below": rng.integers(-50, 7, src0.spec.numel), "above": rng.integers(8, 60, src0.spec.numel),
                  "equal_only": np.full(src0.spec.numel, 7), "mixed": rng.integers(0, 14, src0.spec.numel),
                  "above_but_equal": rng.integers(7, 60, src0.spec.numel),
                  "below_but_equal": rng.integers(-50, 8, src0.spec.numel)}[data]
        grid = values.reshape(rows, cols)
        if data in ("below", "above"):  # the element past the valid region decides nothing
            grid[vr:, :] = 7
            grid[:, vc:] = 7
        src0.storage[...] = grid.reshape(-1).astype(np.int32)
        dst.storage[...] = rng.integers(0, 256, dst.spec.numel, dtype=np.uint8)
        results = []
        for how in ("compiled", "general"):
            impl._COMPILED.clear()
            out = dst.spec(*dst.valid_shape) if dynamic else dst.spec()
            out.storage[...] = dst.storage
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for s in (scalar, np.int32(scalar)):
                    if how == "compiled":
                        ptoisa.TCMPS(out, src0, s, mode, target="a2a3")
                    else:
                        impl._general(A2A3, out, src0, s, mode)
            results.append((out.storage.tobytes(), [str(w.message) for w in caught]))
        assert results[0] == results[1]
        valid = grid[:vr, :vc]
        differs = {CmpMode.LT: valid <= 7, CmpMode.LE: valid < 7, CmpMode.GT: valid >= 7, CmpMode.GE: valid > 7}
        assert any("executed as EQ" in m for m in results[0][1]) == bool(differs[mode].any())


class TestRunTimeValidShapes:
    """Tile types whose valid shapes are set at run time compile once per tuple of valid shapes met (kept under
    the types' key): a new tuple runs the checks again, a refused one is refused on every call, also after a
    legal one, and the bytes and warnings are the general path's throughout."""

    @staticmethod
    def _sequence(make, call, general, shapes_seq):
        for shapes in shapes_seq:
            outcomes = []
            for fn in (call, general):
                tiles = make(*shapes)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        fn(*tiles)
                        outcome = tuple(t.storage.tobytes() for t in tiles)
                    except ptoisa.PtoError as exc:
                        outcome = (type(exc).__name__, str(exc)) + tuple(t.storage.tobytes() for t in tiles)
                outcomes.append((outcome, [str(w.message) for w in caught]))
            assert outcomes[0] == outcomes[1], shapes

    @staticmethod
    def _dyn(dtype, rows, cols, vr, vc, seed):
        t = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
        t.storage.view(np.uint8)[:] = np.random.default_rng(seed).integers(0, 256, t.spec.nbytes, dtype=np.uint8)
        if np.dtype(dtype).kind == "f":
            t.storage[~np.isfinite(t.storage)] = 0
        return t

    @pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
    def test_tcmps(self, target):
        from ptoisa.isa import tcmps as impl

        config = ptoisa.targets.resolve(target)
        impl._COMPILED.clear()

        def make(dvr, svr, svc):
            return [self._dyn(np.uint8, 16, 32, dvr, 32, 1), self._dyn(np.float32, 16, 64, svr, svc, 2)]

        self._sequence(make, lambda d, s: ptoisa.TCMPS(d, s, 0.5, CmpMode.GT, target=target),
                       lambda d, s: impl._general(config, d, s, 0.5, CmpMode.GT),
                       [(16, 16, 64), (8, 16, 64), (16, 16, 64), (8, 16, 64), (8, 8, 64), (16, 8, 64), (8, 8, 40),
                        (16, 16, 64), (0, 0, 64)])

    @pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
    def test_tgather_index(self, target):
        config = ptoisa.targets.resolve(target)
        impl._COMPILED.clear()

        def make(dvr, dvc, ivr, ivc):
            idx = self._dyn(np.int32, 16, 16, ivr, ivc, 3)
            idx.storage[...] = np.random.default_rng(4).integers(0, 256, idx.spec.numel)
            tiles = [self._dyn(np.float32, 16, 16, dvr, dvc, 1), self._dyn(np.float32, 16, 16, 16, 16, 2), idx]
            if target == "a2a3":
                tiles.append(Tile[TileType.Vec, np.int32, ivr, ivc]() if ivr and ivc else
                             Tile[TileType.Vec, np.int32, 16, 16]())
            return tiles

        self._sequence(make, lambda *t: TGATHER(*t, target=target),
                       lambda d, s, i, *t: impl._index_general(config, d, s, i, *(t or (None,))),
                       [(16, 16, 16, 16), (16, 8, 16, 16), (16, 16, 16, 16), (16, 8, 16, 16), (8, 16, 8, 16),
                        (16, 16, 8, 16), (8, 16, 16, 16), (16, 16, 16, 16)])

    @pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
    @pytest.mark.parametrize("axis", [ptoisa.GatherAxis.GATHER_ROW, ptoisa.GatherAxis.GATHER_COL])
    def test_tgather_mask(self, target, axis):
        config = ptoisa.targets.resolve(target)
        impl._MASK_COMPILED.clear()

        def make(dvr, dvc, svr, svc):
            return [self._dyn(np.float32, 16, 16, dvr, dvc, 1), self._dyn(np.float32, 16, 16, svr, svc, 2)]

        pattern = ptoisa.MaskPattern.P0101
        self._sequence(make, lambda d, s: TGATHER(d, s, pattern, axis, target=target),
                       lambda d, s: impl._mask_general(config, d, s, pattern, axis),
                       [(8, 16, 16, 16), (16, 16, 16, 16), (8, 16, 16, 16), (16, 16, 16, 16), (8, 8, 16, 16),
                        (4, 16, 8, 16), (8, 16, 16, 8), (16, 8, 16, 16), (8, 16, 16, 16)])

    @pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
    def test_tgather_cmp(self, target):
        config = ptoisa.targets.resolve(target)
        impl._CMP_COMPILED.clear()
        ktype = np.uint32 if target == "a5" else np.int32

        def make(svr, svc):
            src0 = self._dyn(np.float32, 16, 64, svr, svc, 2)
            src0.storage[...] = np.random.default_rng(5).integers(-3, 4, src0.spec.numel)
            k = Tile[TileType.Vec, ktype, 1, 16]()
            k.storage[...] = np.random.default_rng(6).integers(0, 2, 16)
            need = (16 * 64 * 4 + 16 * 4) // 3 + 8
            return [Tile[TileType.Vec, np.int32, 8, 64](), src0, k, Tile[TileType.Vec, np.int32, 1, 16](),
                    Tile[TileType.Vec, np.int32, 1, -(-need // 8) * 8]()]

        self._sequence(make, lambda d, s, k, c, t: TGATHER(d, s, k, c, t, 7, CmpMode.GT, target=target),
                       lambda d, s, k, c, t: impl._cmp_general(config, d, s, k, c, t, 7, CmpMode.GT),
                       [(8, 64), (16, 64), (8, 64), (16, 64), (8, 40), (16, 40), (3, 64), (8, 64)])


class TestCmpScratchLeanPlaced:
    """The lean scratch call with src0 and k placed with TASSIGN (tmp not): the repeats past src0's storage and
    the thresholds past k's read their buffer's bytes, as the general path reads them."""

    @pytest.mark.parametrize("shape", [(16, 16, 16, 16), (8, 64, 5, 40), (3, 64, 1, 5), (4, 16, 4, 16),
                                       (2, 32, 2, 20)])  # (the last two: front rows' repeats past src0)
    @pytest.mark.parametrize("place", ["src0", "k", "both"])
    def test_matches_general(self, shape, place):
        results = []
        for how in ("compiled", "general"):
            with ptoisa.target("a2a3"):
                ptoisa.NPU_MEMORY_CLEAR()
                rounds, offset, mode = _cmp_case(np.float32, np.int32, shape, 0, CmpMode.GT, 0, False, 11)
                tiles = rounds[0]
                if place in ("src0", "both"):
                    ptoisa.TASSIGN(tiles[1], 4096)
                if place in ("k", "both"):
                    ptoisa.TASSIGN(tiles[2], 65536)
                binding = (tiles[1].binding or tiles[2].binding)
                binding.buffer[:] = np.random.default_rng(8).integers(0, 256, binding.buffer.size, dtype=np.uint8)
                for t, r in zip(tiles, _cmp_case(np.float32, np.int32, shape, 0, CmpMode.GT, 0, False, 11)[0][0]):
                    t.storage[...] = r.storage  # the same tile bytes for both paths
                impl._CMP_COMPILED.clear()
                if how == "compiled":
                    call = lambda d, s, kk, cd, t: TGATHER(d, s, kk, cd, t, offset, mode)  # noqa: E731
                else:
                    call = lambda d, s, kk, cd, t: impl._cmp_general(A2A3, d, s, kk, cd, t, offset, mode)  # noqa: E731
                results.append(_run(call, [tiles, tiles]))
        assert results[0] == results[1]
