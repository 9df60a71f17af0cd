"""Hypothesis fuzzing of the public API: any call either runs or raises a PtoError, and a refused call leaves
every tile byte unchanged."""

from __future__ import annotations

import warnings

import numpy as np
from conftest import fuzz_budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptoisa
from ptoisa import (
    TCI,
    TCMPS,
    TEXPANDS,
    TGATHER,
    TPARTMUL,
    BLayout,
    CmpMode,
    DType,
    GatherAxis,
    MaskPattern,
    PtoError,
    SLayout,
    TileSpec,
    TileType,
)
from ptoisa.dtypes import STANDARD_DTYPES
from ptoisa.tile.tile import window

TARGETS = ("a2a3", "a5", "cpu")


@st.composite
def tiles(draw):
    """A legal tile type (or a TileSpecError-free retry) with random bytes and random valid sizes."""
    dtype = draw(st.sampled_from(STANDARD_DTYPES))
    loc = draw(st.sampled_from([TileType.Vec] * 6 + [TileType.Mat, TileType.Right]))
    blayout = draw(st.sampled_from([BLayout.RowMajor] * 3 + [BLayout.ColMajor]))
    align = 32 // dtype.itemsize
    rows = draw(st.sampled_from([1, 2, 3, 4, 8, 16])) if blayout is BLayout.RowMajor else align * draw(
        st.integers(1, 2))
    cols = align * draw(st.integers(1, 3)) if blayout is BLayout.RowMajor else draw(st.sampled_from([1, 2, 4, 8]))
    dynamic = draw(st.booleans())
    spec = TileSpec(loc, dtype, rows, cols, blayout, -1 if dynamic else rows, -1 if dynamic else cols,
                    SLayout.NoneBox)
    valid = (draw(st.integers(0, rows)), draw(st.integers(0, cols))) if dynamic else ()
    if blayout is BLayout.RowMajor and draw(st.integers(0, 5)) == 0:
        # a window of a wider tile (pto.subview): its rows are not contiguous (a WindowTile, 2-D storage)
        extra = align * draw(st.integers(1, 2))
        parent = TileSpec(loc, dtype, rows, cols + extra, blayout, rows, cols + extra, SLayout.NoneBox)()
        parent.load_bytes(draw(st.binary(min_size=parent.spec.nbytes, max_size=parent.spec.nbytes)))
        return window(parent, spec, 0, draw(st.integers(0, extra)), valid or None)
    tile = spec(*valid)
    raw = draw(st.binary(min_size=spec.nbytes, max_size=spec.nbytes))
    tile.load_bytes(raw)
    return tile


JUNK = st.one_of(st.none(), st.integers(-3, 300), st.floats(allow_nan=True), st.text(max_size=3),
                 st.sampled_from(list(CmpMode) + list(MaskPattern) + list(GatherAxis)))


def _call_and_check(call, operands):
    before = [t.tobytes() if isinstance(t, ptoisa.Tile) else None for t in operands]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except PtoError:
            after = [t.tobytes() if isinstance(t, ptoisa.Tile) else None for t in operands]
            assert after == before, "a refused call changed a tile"


SETTINGS = settings(max_examples=fuzz_budget(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.sampled_from(TARGETS), tiles(), tiles(), st.one_of(tiles(), JUNK), st.one_of(JUNK, st.sampled_from(CmpMode)))
def test_tcmps_never_crashes(target, dst, src0, src1, mode):
    _call_and_check(lambda: TCMPS(dst, src0, src1, mode, target=target), [dst, src0, src1])


@SETTINGS
@given(st.sampled_from(TARGETS), tiles(), tiles(), tiles())
def test_tpartmul_never_crashes(target, dst, src0, src1):
    for undefined in ("raise", "emulate"):
        config = ptoisa.targets.make_config(target, True, undefined)
        _call_and_check(lambda: TPARTMUL(dst, src0, src1, target=config), [dst, src0, src1])


@SETTINGS
@given(st.sampled_from(TARGETS), tiles(), JUNK, st.one_of(st.none(), tiles()), st.one_of(st.booleans(), JUNK))
def test_tci_and_texpands_never_crash(target, dst, scalar, tmp, descending):
    extra = () if tmp is None else (tmp,)
    _call_and_check(lambda: TCI(dst, scalar, *extra, descending=descending, target=target), [dst, tmp])
    _call_and_check(lambda: TEXPANDS(dst, scalar, target=target), [dst])


@SETTINGS
@given(st.sampled_from(TARGETS), tiles(), tiles(), st.lists(st.one_of(tiles(), JUNK), max_size=5))
def test_tgather_never_crashes(target, dst, src0, rest):
    operands = [dst, src0, *rest]
    _call_and_check(lambda: TGATHER(dst, src0, *rest, target=target), operands)


@settings(max_examples=fuzz_budget(60), deadline=None)
@given(st.sampled_from(TARGETS), tiles(), tiles(), st.sampled_from(list(MaskPattern)), st.sampled_from(list(GatherAxis)))
def test_mask_gather_never_crashes(target, dst, src, pattern, axis):
    _call_and_check(lambda: TGATHER(dst, src, pattern, axis, target=target), [dst, src])


def test_a_refused_call_names_instruction_target_operand_and_rule():
    src = ptoisa.Tile[TileType.Vec, DType.I8, 1, 32]()
    dst = ptoisa.Tile[TileType.Vec, DType.U8, 1, 32]()
    before = dst.tobytes()
    try:
        TCMPS(dst, src, 0, CmpMode.EQ, target="a2a3")
    except ptoisa.IllegalInstructionError as exc:
        assert str(exc) == ("TCMPS on a2a3: src0 dtype int8 is not supported "
                            "(allowed: int32, float, half, uint16, int16)")
        assert (exc.instr, exc.target, exc.operand) == ("TCMPS", "a2a3", "src0")
    else:
        raise AssertionError("int8 TCMPS must be refused on a2a3")
    assert dst.tobytes() == before
    assert np.array_equal(dst.storage, np.zeros(32, np.uint8))
