"""The compiled hooks of the move records (TCMP, TMOV, TFILLPAD, TEXTRACT, TINSERT, TINSERT_FP, TEXTRACT_FP) held
to the general path (`Instruction.bind` + `Instruction.call`, which runs the kernel itself) on every target:
the same bytes in every tile, the same warnings, the same refusals, for random and special values (NaN
payloads, +-0.0, +-inf, integer extremes), partial valid regions, valid shapes set at run time, column-major
tiles, dst = src where the record allows it, and the first (compiling) and later (compiled) calls alike."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import BLayout, Tile, TileType
from ptoisa.dtypes import DType as D
from ptoisa.isa.enums import CmpMode
from ptoisa.isa.fastcall import key_of
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import make_config, resolve

sys.path.insert(0, os.path.dirname(__file__))
from _twins import outcome, twins  # noqa: E402

TARGETS = ("cpu", "a2a3", "a5")
ROW, COL = BLayout.RowMajor, BLayout.ColMajor
NAN16 = np.array([0x7E01, 0xFC00 | 0x0123], np.uint16).view(np.float16)
NAN32 = np.array([0x7FC01234, 0xFF800001], np.uint32).view(np.float32)


def fill(tile: Tile, rng: np.random.Generator, equal_to: Tile | None = None) -> None:
    """Random storage with special values; with `equal_to`, about half the elements copied from it."""
    dtype = tile.storage.dtype
    n = tile.storage.size
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
        pool = np.array([0, 1, info.min, info.max] + ([-1] if dtype.kind == "i" else [])).astype(dtype)
    else:
        values = (rng.standard_normal(n) * 4).astype(dtype)
        pool = np.array([0.0, -0.0, np.inf, -np.inf, 1.5, -3.0]).astype(dtype)
    pick = rng.random(n) < 0.3
    values[pick] = pool[rng.integers(0, len(pool), int(pick.sum()))]
    if dtype.kind == "f":
        for nan in NAN32 if dtype.itemsize == 4 else NAN16:
            values[rng.integers(0, n)] = nan
    if equal_to is not None and equal_to.storage.size == n:
        same = rng.random(n) < 0.5
        values[same] = equal_to.storage[same]
    tile.storage[...] = values


def compiled_name(rec, config, args) -> str:
    key = (config, *[a.spec if type(a) is Tile else key_of(a) for a in args])
    run = rec._compiled.get(key)
    return getattr(run, "__qualname__", repr(run))


def compare(name: str, config, args, hook: str | None = None):
    """The entry point (twice: compiling, then compiled, each from the same bytes) against the general path;
    `hook`: the qualified-name prefix the compiled call must have (static valid shapes, no refusal)."""
    rec = REGISTRY[name]
    fast, slow = twins(args)
    expected = outcome(lambda: rec.call(config, *rec.bind(config, tuple(slow), {})))
    start = [t.storage.copy() for t in fast if type(t) is Tile]
    for _ in range(2):
        for t, b in zip([t for t in fast if type(t) is Tile], start):
            t.storage[...] = b
        got = outcome(lambda: rec(*fast, target=config))
        assert got == expected, (name, config.name, args)
        now = [t.storage.tobytes() for t in fast if type(t) is Tile]
        assert now == [t.storage.tobytes() for t in slow if type(t) is Tile], (name, config.name)
    if hook is not None and expected[0] is None:
        assert compiled_name(rec, config, fast).startswith(hook), compiled_name(rec, config, fast)
    return expected


def tile(dtype, rows, cols, vr=None, vc=None, layout=ROW, run_time=False):
    vr = rows if vr is None else vr
    vc = cols if vc is None else vc
    if run_time:
        return Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1](vr, vc)
    return Tile[TileType.Vec, dtype, rows, cols, layout, vr, vc]()


# --- TCMP ------------------------------------------------------------------------------------------------------
CMP_TYPES = {"cpu": (np.float32, np.float16, np.int32, np.uint8, np.int16), "a2a3": (np.float32, np.float16, np.int32),
             "a5": (np.float32, np.float16, np.int32, np.int8)}


@pytest.mark.parametrize("target", TARGETS)
def test_tcmp_matches_kernel(target):
    config = resolve(target)
    rng = np.random.default_rng(11)
    cases = 0
    for dtype in CMP_TYPES[target]:
        for mode in CmpMode:
            for rows, cols, vr, vc, out_type, out_cols, out_vc, layout, run_time in (
                    (16, 32, 16, 32, np.uint8, 32, 4, ROW, False),
                    (8, 64, 5, 37, np.uint8, 32, 5, ROW, False),
                    (8, 64, 5, 37, np.uint32, 8, 2, ROW, True),
                    (8, 64, 8, 64, np.uint32, 8, 1, ROW, False),  # dst narrower than the packed words
                    (32, 8, 11, 3, np.uint8, 32, 32, COL, True),
                    (4, 32, 0, 32, np.uint8, 32, 4, ROW, True),
                    (4, 32, 3, 32, np.uint8, 32, 4, ROW, False)):
                a, b = tile(dtype, rows, cols, vr, vc, layout, run_time), tile(dtype, rows, cols, vr, vc, layout,
                                                                               run_time)
                fill(a, rng)
                fill(b, rng, a)
                out = tile(out_type, rows, out_cols, vr, out_vc, ROW, run_time)
                fill(out, rng)
                hook = None if run_time or (dtype is np.int32 and target == "a2a3" and mode is not CmpMode.EQ) \
                    else "_tcmp_compiled"
                compare("TCMP", config, (out, a, b, mode), hook)
                cases += 1
    assert cases


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_tcmp_dst_is_a_source_and_refusals(target):
    config = resolve(target)
    rng = np.random.default_rng(5)
    a = tile(np.uint8, 8, 32)
    b = tile(np.uint8, 8, 32)
    fill(a, rng)
    fill(b, rng, a)
    compare("TCMP", config, (a, a, b, CmpMode.LT), "_tcmp_compiled")
    compare("TCMP", config, (b, a, b, CmpMode.GE), "_tcmp_compiled")
    # run-time valid shapes that break the rule: the same refusal each time, no byte changed
    x, y = tile(np.float32, 8, 32, 8, 32, ROW, True), tile(np.float32, 8, 32, 7, 32, ROW, True)
    out = tile(np.uint8, 8, 32, 8, 4, ROW, True)
    error, _ = compare("TCMP", config, (out, x, y, CmpMode.EQ))
    assert error is not None


def test_tcmp_int32_fallback_announced_on_a2a3():
    config = make_config("a2a3")
    a, b = tile(np.int32, 4, 16), tile(np.int32, 4, 16)
    a.storage[...] = np.arange(64)
    b.storage[...] = 3
    out = tile(np.uint8, 4, 32, 4, 2)
    compare("TCMP", config, (out, a, b, CmpMode.LT))  # the kernel's announcement on both paths


# --- TINSERT, TINSERT_FP, TEXTRACT_FP ----------------------------------------------------------------------------
def fp_row(dtype, cols: int, rng: np.random.Generator, bad: str = "") -> Tile:
    fp = Tile[TileType.Vec, dtype, 1, max(cols, 32 // np.dtype(dtype).itemsize)]()
    values = rng.integers(0, 2**12, fp.storage.size).astype(dtype)
    if bad == "negative":
        values[3] = -1
    elif bad == "negzero":  # converts to 0: allowed
        values[5] = -0.0
    elif bad == "late":  # read by a window from column 8 only
        values[20] = -3
    elif bad == "nan":
        values[2] = NAN32[1] if np.dtype(dtype).itemsize == 4 else NAN16[0]
    elif bad == "huge":
        values[1] = np.float32(2.0**64)
    fp.storage[...] = values
    return fp


INDEX_CASES = ((), (0, 0), (2, 8), (3, 0), (0, 9), (9, 0), (-1, 0), (70000, 2), (1.5, 0), (np.int64(1), 1))


@pytest.mark.parametrize("target", ("cpu", "a5"))
@pytest.mark.parametrize("run_time", (False, True))
def test_tinsert_plain_matches_kernel(target, run_time):
    config = resolve(target)
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float16, np.int32, np.int8):
        for layout in (ROW, COL):
            if target == "a5" and layout is COL:
                continue
            big = tile(dtype, 32, 32, 12, 24, layout, run_time)
            small = tile(dtype, 32, 32, 5, 13, layout, run_time)
            fill(big, rng)
            fill(small, rng)
            for index in INDEX_CASES:
                compare("TINSERT", config, (big, small, *index), None if run_time else "_window_compiled")
            compare("TINSERT", config, (big, big, 0, 0))  # dst = src: the whole valid region onto itself


@pytest.mark.parametrize("name", ("TINSERT", "TINSERT_FP", "TEXTRACT_FP"))
@pytest.mark.parametrize("run_time", (False, True))
def test_quantising_forms_match_kernel_on_cpu(name, run_time):
    config = resolve("cpu")
    rng = np.random.default_rng(7)
    extract = name == "TEXTRACT_FP"
    for src_type, dst_type in ((np.float32, np.float32), (np.int32, np.int32), (np.float16, np.float16),
                               (np.float32, np.int8), (np.float32, np.float16), (np.int32, np.int16)):
        big = tile(src_type if extract else dst_type, 32, 32, 12, 24, ROW, run_time)
        small = tile(dst_type if extract else src_type, 32, 32, 5, 13, ROW, run_time)
        fill(big, rng)
        fill(small, rng)
        dst, source = (small, big) if extract else (big, small)
        for fp_type in (np.float32, np.uint32, np.float16, np.int32):
            for bad in ("", "negative", "late", "nan", "huge", "negzero"):
                if bad == "huge" and fp_type is not np.float32 or bad in ("nan", "negzero") \
                        and np.dtype(fp_type).kind != "f" \
                        or bad in ("negative", "late") and np.dtype(fp_type).kind == "u":
                    continue
                fp = fp_row(fp_type, 32, rng, bad)
                for index in ((0, 0), (2, 8), (7, 11), (8, 12), (-1, 0)):
                    hook = "_window_compiled" if src_type is dst_type and not run_time else None
                    compare(name, config, (dst, source, fp, *index), hook)
        for words in (9, 12, 13, 14):  # fewer words than the columns read (13), or just enough
            narrow = Tile[TileType.Vec, np.float32, 1, 16, ROW, 1, words]()
            compare(name, config, (dst, source, narrow, 0, 0))
            compare(name, config, (dst, source, narrow, 0, 1))
        if name == "TINSERT":
            for word in (0, 2**32 + 5, np.uint64(7), -1, 1.5):
                compare(name, config, (dst, source, word, 1, 2))
            for index in ((0, 0), (2, 8)):  # the scalar word form on a column-major source (words: its rows)
                col = tile(src_type, 32, 32, 13, 5, COL, run_time)
                fill(col, rng)
                compare(name, config, (big, col, 3, *index))


def test_tinsert_fp_and_textract_fp_windows_that_overlap():
    from ptoisa.tile.tile import window

    config = resolve("cpu")
    rng = np.random.default_rng(9)
    parent = Tile[TileType.Vec, np.float32, 32, 16]()
    large = Tile[TileType.Vec, np.float32, 12, 16, ROW, 12, 16]
    small = Tile[TileType.Vec, np.float32, 12, 16, ROW, 8, 10]
    fp = fp_row(np.float32, 16, rng)
    for first, second, index in ((0, 4, (1, 2)), (4, 0, (0, 0)), (2, 2, (4, 6)), (3, 1, (2, 3))):
        fill(parent, rng)
        start = parent.storage.copy()
        big, little = window(parent, large, first, 0), window(parent, small, second, 0)
        for name, args in (("TINSERT_FP", (big, little, fp, *index)), ("TEXTRACT_FP", (little, big, fp, *index)),
                           ("TINSERT", (big, little, *index))):
            rec = REGISTRY[name]
            parent.storage[...] = start
            rec.call(config, *rec.bind(config, args, {}))
            slow = parent.storage.copy()
            assert slow.tobytes() != start.tobytes()
            for _ in range(2):
                parent.storage[...] = start
                rec(*args, target=config)
                assert parent.storage.tobytes() == slow.tobytes(), (name, first, second)
            assert compiled_name(rec, config, args).startswith("_window_compiled")


# --- TMOV, TEXTRACT, TFILLPAD ------------------------------------------------------------------------------------
MOVE_TYPES = (np.float32, np.float16, np.int32, np.int8, np.uint16)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("run_time", (False, True))
def test_tmov_matches_kernel(target, run_time):
    from ptoisa import AccToVecMode, ReluPreMode

    config = resolve(target)
    rng = np.random.default_rng(13)
    for dtype in MOVE_TYPES:
        for layout in (ROW, COL):
            for shape in ((32, 32), (5, 13), (0, 7), (32, 0)):
                a, b = tile(dtype, 32, 32, *shape, layout, run_time), tile(dtype, 32, 32, *shape, ROW, run_time)
                fill(a, rng)
                fill(b, rng)
                compare("TMOV", config, (b, a), None if run_time else "_mov_compiled")
                compare("TMOV", config, (a, a), None if run_time else "_mov_compiled")
                compare("TMOV", config, (b, a, ReluPreMode.NoRelu, AccToVecMode.SingleModeVec1))
        if not run_time:  # valid shapes that differ: refused each time
            compare("TMOV", config, (tile(dtype, 32, 32, 4, 4), tile(dtype, 32, 32, 4, 5)))
        else:
            compare("TMOV", config, (tile(dtype, 32, 32, 4, 4, ROW, True), tile(dtype, 32, 32, 4, 5, ROW, True)))
    acc = Tile[TileType.Acc, np.float32, 16, 16]()
    fill(acc, rng)
    vec = tile(np.float32, 16, 16)
    for mode in AccToVecMode:  # the NPU model refuses the modes that write the other core's buffer
        error, _ = compare("TMOV", config, (vec, acc, ReluPreMode.NoRelu, mode))
        assert (error is not None) == (target != "cpu" and mode not in (AccToVecMode.SingleModeVec0,)), (mode, error)
    if target == "cpu":  # a converting move and the quantised forms take the kernel
        a, b = tile(np.float32, 16, 16), tile(np.float16, 16, 16)
        fill(a, rng)
        compare("TMOV", config, (b, a))
        c = tile(np.float32, 16, 16)
        for bad in ("", "negative", "nan"):
            compare("TMOV", config, (c, a, fp_row(np.float32, 16, rng, bad)))
        compare("TMOV", config, (c, a, Tile[TileType.Vec, np.float32, 1, 16, ROW, 1, 9]()))
        compare("TMOV", config, (c, a, 2**33 + 1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("run_time", (False, True))
def test_textract_matches_kernel(target, run_time):
    config = resolve(target)
    rng = np.random.default_rng(17)
    for dtype in MOVE_TYPES:
        for layout in (ROW, COL):
            if target == "a5" and layout is COL:
                continue
            big = tile(dtype, 32, 32, 12, 24, layout, run_time)
            small = tile(dtype, 32, 32, 5, 13, layout, run_time)
            fill(big, rng)
            fill(small, rng)
            for index in ((), (0,), (0, 0), (2, 8), (7, 11), (8, 11), (7, 12), (-1, 0), (70000, 2), (1.5, 0)):
                compare("TEXTRACT", config, (small, big, *index), None if run_time else "_extract_compiled")
            compare("TEXTRACT", config, (big, big, 0, 0))


def test_textract_overlapping_windows():
    from ptoisa.tile.tile import window

    config = resolve("cpu")
    rng = np.random.default_rng(19)
    parent = Tile[TileType.Vec, np.float32, 32, 16]()
    large = Tile[TileType.Vec, np.float32, 12, 16, ROW, 12, 16]
    small = Tile[TileType.Vec, np.float32, 12, 16, ROW, 8, 10]
    for first, second, index in ((0, 4, (1, 2)), (4, 0, (0, 0)), (2, 2, (4, 6)), (3, 1, (2, 3))):
        fill(parent, rng)
        start = parent.storage.copy()
        big, little = window(parent, large, first, 0), window(parent, small, second, 0)
        for name, args in (("TEXTRACT", (little, big, *index)), ("TMOV", (little, window(parent, small, first, 0))),
                           ("TFILLPAD", (big, little))):
            rec = REGISTRY[name]
            parent.storage[...] = start
            rec.call(config, *rec.bind(config, args, {}))
            slow = parent.storage.copy()
            for _ in range(2):
                parent.storage[...] = start
                rec(*args, target=config)
                assert parent.storage.tobytes() == slow.tobytes(), (name, first, second)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ("TFILLPAD", "TFILLPAD_INPLACE"))
@pytest.mark.parametrize("run_time", (False, True))
def test_tfillpad_matches_kernel(target, name, run_time):
    from ptoisa import PadValue, SLayout

    config = resolve(target)
    rng = np.random.default_rng(23)
    for dtype in (np.float32, np.float16, np.int32, np.int8, np.uint16):
        for pad in PadValue:
            for layout in (ROW, COL):
                for shape in ((32, 32), (5, 13), (0, 7), (32, 0), (31, 32)):
                    def make(spec_pad, vr, vc):
                        if run_time:
                            return Tile[TileType.Vec, dtype, 32, 32, layout, -1, -1, SLayout.NoneBox, 512,
                                        spec_pad](vr, vc)
                        return Tile[TileType.Vec, dtype, 32, 32, layout, vr, vc, SLayout.NoneBox, 512, spec_pad]()

                    out, source = make(pad, 7, 9), make(PadValue.Null, *shape)
                    fill(out, rng)
                    fill(source, rng)
                    # no compiled call: the half Max/Min pads of cpu's erratum, and the NPUs' fill of row-major
                    # tiles (its errata); nor A5's dst with valid rows and no valid column, which it refuses
                    hook = None if run_time or (dtype is np.float16 and pad in (PadValue.Max, PadValue.Min)
                                                and target == "cpu") or (target != "cpu" and layout is ROW) \
                        else "_fillpad_compiled"
                    compare(name, config, (out, source), hook)
                    same = make(pad, *shape)
                    fill(same, rng)
                    if not run_time and (same.valid_row == 0 or same.valid_col == 0):
                        # an empty dst writes nothing (A5, with valid rows, is refused by the bound kernel)
                        hook = None if target == "a5" and same.valid_row else "_write_nothing"
                    compare(name, config, (same, same), hook)


# --- TPACK -------------------------------------------------------------------------------------------------------
PACK_TYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.float16, np.float32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("run_time", (False, True))
def test_tpack_matches_kernel(target, run_time):
    config = resolve(target)
    rng = np.random.default_rng(29)
    pairs = REGISTRY["TPACK"].legality[target].pairs or frozenset()
    types = PACK_TYPES + ((D.BF16,) if target == "a5" else ())
    hooked = 0
    for src_type in types:
        for dst_type in types:
            for layout in (ROW, COL):
                if target != "cpu" and layout is COL:
                    continue
                for shape in ((32, 32), (5, 13), (0, 4)):
                    source = tile(src_type, 32, 32, *shape, layout, run_time)
                    out = tile(dst_type, 32, 32, *shape, layout, run_time)
                    fill(source, rng)
                    fill(out, rng)
                    decline = target == "cpu" and source.storage.dtype.kind == "f" \
                        and out.storage.dtype.kind in "iu"
                    legal = (source.spec.dtype, out.spec.dtype) in pairs
                    error, _ = compare("TPACK", config, (out, source),
                                       None if run_time or decline or not legal else "_tpack_compiled")
                    hooked += error is None and legal and not decline
                if source.storage.dtype == out.storage.dtype and target == "cpu":
                    compare("TPACK", config, (source, source), None if run_time else "_tpack_compiled")
    assert hooked or target == "a2a3"
    if target == "cpu":  # float -> integer: finite values in range (the kernel's own path)
        source = tile(np.float32, 8, 32)
        source.storage[...] = rng.uniform(-100, 100, source.storage.size).astype(np.float32)
        compare("TPACK", config, (tile(np.int8, 8, 32), source))


def test_tcmp_padding_bits_do_not_depend_on_fresh_memory(monkeypatch):
    """np.empty may return any bytes: with it filling its arrays with ones, the bits past the valid columns of
    a packed word are still 0 (a hook that took its padded buffer uninitialised would set them)."""
    real_empty = np.empty

    def dirty(shape, dtype=float, *args, **kwargs):
        out = real_empty(shape, dtype, *args, **kwargs)
        out.view(np.uint8)[...] = 1 if np.dtype(dtype) == np.bool_ else 0xA5
        return out

    monkeypatch.setattr(np, "empty", dirty)
    config = resolve("cpu")
    rng = np.random.default_rng(31)
    for cols, out_type, out_cols in ((29, np.uint8, 32), (40, np.uint32, 8), (64, np.uint8, 32)):
        a, b = tile(np.float32, 24, 64, 23, cols), tile(np.float32, 24, 64, 23, cols)
        fill(a, rng)
        fill(b, rng, a)
        out = tile(out_type, 24, out_cols, 23, out_cols)
        compare("TCMP", config, (out, a, b, CmpMode.NE), "_tcmp_compiled")
