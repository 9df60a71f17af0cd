"""The compiled hooks of the move records (TCMP, TMOV, TFILLPAD, TEXTRACT, TINSERT, TINSERT_FP, TEXTRACT_FP) held
to the general path (`Instruction.bind` + `Instruction.call`, which runs the kernel itself) on every target:
the same bytes in every tile, the same warnings, the same refusals, for random and special values (NaN
payloads, +-0.0, +-inf, integer extremes), partial valid regions, valid shapes set at run time, column-major
tiles, dst = src where the record allows it, and the first (compiling) and later (compiled) calls alike."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import BLayout, Tile, TileType
from ptoisa.dtypes import DType as D
from ptoisa.isa.enums import CmpMode
from ptoisa.isa.fastcall import key_of
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import make_config, resolve

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


def outcome(fn):
    """(error type and text or None, [(warning category, text)])."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            fn()
            error = None
        except Exception as exc:  # noqa: BLE001 - compared between the two paths
            error = (type(exc).__name__, str(exc))
    return error, [(w.category.__name__, str(w.message)) for w in seen]


def twins(args):
    """Two independent copies of the call's arguments (tiles copied, aliasing kept)."""
    made = []
    for _ in range(2):
        by_id: dict[int, Tile] = {}
        out = []
        for a in args:
            if type(a) is Tile:
                if id(a) not in by_id:
                    dyn = [v for v, d in zip(a.valid_shape, (a.spec.dynamic_row, a.spec.dynamic_col)) if d]
                    c = Tile(a.spec, *dyn)
                    c.storage[...] = a.storage
                    by_id[id(a)] = c
                out.append(by_id[id(a)])
            else:
                out.append(a)
        made.append(out)
    return made


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
