"""TGATHER comparison form on a2a3 with a one-row tmp (erratum tgather_cmp_bitmap_rows, `tgather._lean_scratch`),
image form: the index table and the thresholds built as one image per call (k converted straight into its
thresholds where every row's threshold lies in tmp), the bitmap bytes put over it, the picks taken from it and
tmp's bytes from the table on written from it in one copy; the whole tile's matches compared as flat operands
(k repeated along the rows); dst's slots taken from a table of slot rows; the erratum's test on the picks' bytes.

Held against the same compiled call without the image form (`_ONE_IMAGE` off: the table, then the writes one by
one, as before) and against the general path (`tgather._cmp_general`): every tile's bytes, the warnings in
order, and the refusals (warnings as errors: nothing written), over several calls in a row on new data (the
image's base reused), for special values, partial and run-time valid shapes, k of the source's width or not
(its reading as signed integers: tgather_cmp_k_signed_src_width), k exactly vr long or longer, offsets
(wrapping), tmps from the least legal to wide, every target and a2a3 with its errata off."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import TGATHER, BLayout, CmpMode, Tile, TileType
from ptoisa.isa import tgather as impl


def _twin(t):
    c = t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec()
    c.storage[...] = t.storage
    return c


def _case(sdt, kdt, shape, tmp_kind, k_len, dynamic, seed, density, specials):
    rows, cols, vr, vc = shape
    rng = np.random.default_rng(seed)
    if dynamic:
        src0 = Tile[TileType.Vec, sdt, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
    else:
        src0 = Tile[TileType.Vec, sdt, rows, cols, BLayout.RowMajor, vr, vc]()
    dst = Tile[TileType.Vec, np.int32, rows, cols]()
    kc = {"exact": 8 * -(-rows // 8), "long": 8 * -(-rows // 8) + 64}[k_len]
    if np.dtype(kdt).itemsize == 2:
        kc = 16 * -(-kc // 16)
    k, cdst = Tile[TileType.Vec, kdt, 1, kc](), Tile[TileType.Vec, np.int32, 1, 8 * -(-rows // 8)]()
    item = np.dtype(sdt).itemsize
    need = (rows * cols * 4 + rows * item) // 3 + 8  # a one-row tmp's least legal size, then some room
    tmp_cols = {"least": -(-need // 8) * 8, "room": -(-need // 8) * 8 + 64, "more": -(-need // 8) * 8 + 512}[tmp_kind]
    tmp = Tile[TileType.Vec, np.int32, 1, tmp_cols]()
    tiles = [dst, src0, k, cdst, tmp]
    rounds = []
    for _ in range(3):
        for t in (dst, cdst, tmp):
            t.storage.view(np.uint8)[:] = rng.integers(0, 256, t.spec.nbytes, dtype=np.uint8)
        hit = rng.random(src0.spec.numel) < density
        values = np.where(hit, 2, rng.integers(-3, 1, src0.spec.numel)).astype(sdt)
        if specials and np.dtype(sdt).kind == "f":
            values[rng.random(values.size) < 0.1] = np.nan
            values[rng.random(values.size) < 0.1] = -0.0
            values[rng.random(values.size) < 0.05] = np.inf
            values[rng.random(values.size) < 0.05] = -np.inf
        src0.storage[...] = values
        k.storage[...] = rng.integers(0, 2, k.spec.numel).astype(kdt)
        if rng.random() < 0.5:  # negative as a signed integer of the source's width: the kernel's reading differs
            k.storage[1::3] = {np.dtype(np.uint16): 0x8001, np.dtype(np.uint32): 0x80000002,
                               np.dtype(np.int32): -2}[np.dtype(kdt)]
        rounds.append([_twin(t) for t in tiles])
    return rounds


def _run(call, rounds, filter_):
    results = []
    for tiles in rounds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter(filter_)
            try:
                call(*tiles)
                outcome = tuple(t.storage.tobytes() for t in tiles)
            except (ptoisa.PtoError, Warning) as exc:
                outcome = (type(exc).__name__, str(exc)) + tuple(t.storage.tobytes() for t in tiles)
        results.append((outcome, [str(w.message) for w in caught]))
    return results


def _four_ways(config, rounds, offset, mode, filter_):
    """The compiled call with the image form's streamlined call (`_fast_image`), with the image form alone,
    without it, and the general path, each on its own copies."""
    got = []
    for fast, image in ((True, True), (False, True), (False, False)):
        impl._CMP_COMPILED.clear()
        impl._FAST_IMAGE, impl._ONE_IMAGE = fast, image
        try:
            got.append(_run(lambda d, s, kk, cd, t: TGATHER(d, s, kk, cd, t, offset, mode, target=config),
                            [[_twin(t) for t in r] for r in rounds], filter_))
        finally:
            impl._FAST_IMAGE = impl._ONE_IMAGE = True
            impl._CMP_COMPILED.clear()
    got.append(_run(lambda d, s, kk, cd, t: impl._cmp_general(config, d, s, kk, cd, t, offset, mode),
                    [[_twin(t) for t in r] for r in rounds], filter_))
    return got


SHAPES = [(16, 16, 16, 16), (16, 16, 11, 16), (16, 16, 16, 10), (8, 64, 5, 40), (4, 128, 4, 128), (3, 64, 1, 5),
          (33, 32, 33, 20), (64, 64, 64, 64), (8, 32, 8, 32), (32, 16, 32, 16)]
PAIRS = [(np.float32, np.int32), (np.float32, np.uint32), (np.float16, np.uint16), (np.float16, np.int32),
         (np.int32, np.int32), (np.int32, np.uint32)]


@pytest.mark.parametrize("sdt,kdt", PAIRS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("tmp_kind", ["least", "room", "more"])
@pytest.mark.parametrize("k_len", ["exact", "long"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_image_form_matches_the_table_form_and_the_general_path(sdt, kdt, shape, tmp_kind, k_len, dynamic):
    mode = CmpMode.EQ if sdt is np.int32 else CmpMode.GT  # (a2a3 compares int32 with EQ only)
    config = ptoisa.targets.resolve("a2a3")
    seed = hash((np.dtype(sdt).str, np.dtype(kdt).str, shape, tmp_kind, k_len, dynamic)) % 2**32
    for density, specials, offset in ((0.5, True, 0), (0.0, False, 7), (1.0, False, 2**32 - 3), (0.3, True, 12345)):
        rounds = _case(sdt, kdt, shape, tmp_kind, k_len, dynamic, seed, density, specials)
        fast, image, table, general = _four_ways(config, rounds, offset, mode, "always")
        assert fast == image == table == general, (density, offset)
    fast, image, table, general = _four_ways(config, rounds, 0, mode, "error")
    assert fast == image == table == general


@pytest.mark.parametrize("target", ["a2a3_no_errata", "a5", "cpu"])
@pytest.mark.parametrize("shape", [(16, 16, 16, 16), (8, 64, 5, 40)])
@pytest.mark.parametrize("dynamic", [False, True])
def test_other_targets_and_the_errata_off(target, shape, dynamic):
    """Where the scratch erratum is not reproduced the image form is not taken; the compiled calls still give
    the general path's bytes and warnings."""
    config = ptoisa.targets.make_config("a2a3", False) if target == "a2a3_no_errata" \
        else ptoisa.targets.resolve(target)
    kdt = np.uint32 if target == "a5" else np.int32
    rounds = _case(np.float32, kdt, shape, "least", "exact", dynamic, 3, 0.5, True)
    for filter_ in ("always", "error"):
        fast, image, table, general = _four_ways(config, rounds, 5, CmpMode.GT, filter_)
        assert fast == image == table == general


def test_a_row_over_dst_is_refused_as_by_the_general_path():
    """More matches in a row than dst holds: nothing written, the general path's refusal."""
    rounds = _case(np.float32, np.int32, (16, 16, 16, 16), "least", "exact", False, 9, 1.0, False)
    narrow = []
    for tiles in rounds:
        dst = Tile[TileType.Vec, np.int32, 16, 8]()
        dst.storage[...] = 7
        narrow.append([dst] + tiles[1:])
    fast, image, table, general = _four_ways(ptoisa.targets.resolve("a2a3"), narrow, 0, CmpMode.GT, "always")
    assert fast == image == table == general
    assert all(outcome[0] == "IllegalInstructionError" for outcome, _ in fast)


def test_the_benchmark_signature_takes_the_image_form():
    """The benchmark's signature (16x16 float32, k int32 of 16, least tmp) builds the image with k in it."""
    rounds = _case(np.float32, np.int32, (16, 16, 16, 16), "least", "exact", False, 1, 0.5, False)
    impl._CMP_COMPILED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        TGATHER(*rounds[0][:5], 0, CmpMode.GT, target="a2a3")
    (fast,) = [run for run in impl._CMP_COMPILED.values() if run is not None]
    assert fast.__qualname__.startswith("_fast_image")
    fast_cells = dict(zip(fast.__code__.co_freevars, (c.cell_contents for c in fast.__closure__)))
    assert fast_cells["repeats"] and fast_cells["count_view"] is np.uint16  # (the front rows repeat past a row)
    lean = fast_cells["lean"]
    cells = dict(zip(lean.__code__.co_freevars, (c.cell_contents for c in lean.__closure__)))
    assert lean.__qualname__.startswith("_lean_scratch")
    assert cells["image_base"] is not None and cells["k_in_image"] and cells["flat_compare"]
    assert cells["slot_rows"] is not None


@pytest.mark.parametrize("sdt,kdt", [(np.float32, np.int32), (np.float32, np.uint32), (np.int32, np.int32)])
@pytest.mark.parametrize("shape", [(16, 8, 16, 8), (40, 8, 40, 8)])
@pytest.mark.parametrize("tmp_kind", ["least", "more"])
def test_eight_columns(sdt, kdt, shape, tmp_kind):
    """Rows of one byte of bits each (8 valid columns): the streamlined call counts a row's matches from its one
    byte. Its bytes, warnings and refusals are the image form's, the table form's and the general path's."""
    mode = CmpMode.EQ if sdt is np.int32 else CmpMode.GT
    config = ptoisa.targets.resolve("a2a3")
    rounds = _case(sdt, kdt, shape, tmp_kind, "exact", False, 17, 0.5, sdt is np.float32)
    impl._CMP_COMPILED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        TGATHER(*[_twin(t) for t in rounds[0]], 0, mode, target=config)
    (fast,) = [run for run in impl._CMP_COMPILED.values() if run is not None]
    assert fast.__qualname__.startswith("_fast_image")
    assert dict(zip(fast.__code__.co_freevars, (c.cell_contents for c in fast.__closure__)))["count_view"] is np.uint8
    for offset in (0, 9):
        for filter_ in ("always", "error"):
            fast, image, table, general = _four_ways(config, rounds, offset, mode, filter_)
            assert fast == image == table == general


def _filters_ignore_all():
    warnings.simplefilter("ignore")


def _filters_ignore_errata():
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=ptoisa.ErratumWarning)


def _filters_ignore_some_errata():  # an ignore entry that matches no message of ours: the errata still warn
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="no such text", category=ptoisa.ErratumWarning)


@pytest.mark.parametrize("filters", [_filters_ignore_all, _filters_ignore_errata, _filters_ignore_some_errata])
@pytest.mark.parametrize("offset", [0, 7])
def test_ignored_errata_change_no_byte(filters, offset):
    """Where every ErratumWarning is ignored the streamlined call does not look for picks the bitmap rows changed
    (announcing would do nothing): every tile's bytes are still the general path's, and where the filters let an
    erratum through (a message-specific ignore entry) it is announced as by the general path."""
    config = ptoisa.targets.resolve("a2a3")
    rounds = _case(np.float32, np.int32, (16, 16, 16, 16), "least", "exact", False, 23, 0.5, True)
    results = []
    for how in ("compiled", "general"):
        impl._CMP_COMPILED.clear()
        got = []
        for tiles in [[_twin(t) for t in r] for r in rounds]:
            with warnings.catch_warnings(record=True) as caught:
                filters()
                if how == "compiled":
                    TGATHER(*tiles, offset, CmpMode.GT, target=config)
                else:
                    impl._cmp_general(config, *tiles, offset, CmpMode.GT)
            got.append((tuple(t.storage.tobytes() for t in tiles), [str(w.message) for w in caught]))
        results.append(got)
    assert results[0] == results[1]
    announced = [messages for _, messages in results[0]]
    if filters is _filters_ignore_some_errata:
        assert any("tgather_cmp_bitmap_rows" in m for messages in announced for m in messages)
    else:
        assert not any(announced)
