"""TCMPS a2a3 repeat tail, stream form (`tcmps._stream_lanes`): the lanes compared once over the storage into a
kept bool buffer with the scalar in a kept 0-d array, packed as one stream, and gathered per row; under int32
GT/LT run as EQ, the valid region's EQ bits tested first for the fallback's warning.

Held against the general path (`tcmps._general`) and against the compiled call without the stream form (the
lanes of `_lane_bits`, `_STREAM_LANES` off): bytes, warnings in order, and refusals (warnings as errors: nothing
written), for several calls in a row on new data (the kept buffers reused), valid regions smaller than the tile,
valid shapes set at run time, special values, scalars of every kind (Python numbers that round in the source's
type, typed scalars, the tile form), errata on and off, on every target."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, CmpMode, Tile, TileType
from ptoisa.isa import tcmps as impl

RNG = np.random.default_rng(20261126)

# rows, cols, vr, vc (cols a multiple of 8: the stream form; the lanes run past validCol)
SHAPES = [(16, 16, 16, 16), (16, 16, 13, 16), (16, 16, 16, 9), (8, 64, 8, 40), (4, 32, 3, 24), (2, 128, 2, 100),
          (1, 16, 1, 16), (5, 8, 5, 8), (3, 96, 3, 70), (32, 16, 32, 16),
          # the lanes end before the last valid row does (a repeat narrower than the row)
          (4, 128, 4, 40), (3, 256, 2, 60), (2, 512, 2, 100), (4, 128, 3, 64)]
DTYPES = [np.float32, np.float16, np.int32, np.int16, np.uint16, np.uint8, np.int8]


def _data(dtype, n, kind):
    dtype = np.dtype(dtype)
    if kind == "special" and dtype.kind == "f":
        pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 0.1, 6e-8, -6e-8], dtype)
        out = RNG.choice(pool, n)
        if dtype == np.float32:  # a NaN with a payload, and the smallest subnormal
            out.view(np.uint32)[RNG.random(n) < 0.05] = 0x7FC01234
            out.view(np.uint32)[RNG.random(n) < 0.05] = 1
        return out
    if kind == "special":
        info = np.iinfo(dtype)
        return RNG.choice(np.array([info.min, info.max, 0, 1, 2, -1 if info.min else 3], dtype), n)
    if kind == "equal_outside":  # the scalar's value only outside the valid region (filled in by the caller)
        return np.full(n, 5, dtype)
    return RNG.integers(-3, 4 if dtype.kind != "u" else 7, n).astype(dtype)


def _scalars(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        out = [1.0, 0.0, -0.0, float("nan"), float("inf"), 0.1, 2.5, 6e-8, 1e-46, dtype.type(1.0)]
        if dtype == np.float16:
            out += [65519.99, 65520.0, 1e-5]  # (65520 overflows half: to_element's refusal)
        else:
            out += [3.4028235e38, 1.4e-45, 16777217.0]
        return out
    info = np.iinfo(dtype)
    return [1, 0, -1 if info.min else 2, int(info.max), int(info.min), int(info.max) + 1, dtype.type(2), True]


def _tiles(dtype, shape, dynamic, kind):
    rows, cols, vr, vc = shape
    if dynamic:
        src = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
        dst = Tile[TileType.Vec, np.uint8, rows, 32 * -(-cols // 256), BLayout.RowMajor, -1, -1](vr, -(-vc // 8))
    else:
        src = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc]()
        dst = Tile[TileType.Vec, np.uint8, rows, 32 * -(-cols // 256), BLayout.RowMajor, vr, -(-vc // 8)]()
    values = _data(dtype, src.spec.numel, kind)
    if kind == "equal_outside":
        grid = values.reshape(rows, cols)
        grid[:vr, :vc] = 9 if np.dtype(dtype).kind == "f" or np.dtype(dtype).itemsize > 1 else 3
    src.storage[...] = values
    return src, dst


def _twin(tile):
    other = tile.spec(*tile.valid_shape) if tile.spec.dynamic_row or tile.spec.dynamic_col else tile.spec()
    other.storage[...] = tile.storage
    return other


def _outcomes(call, dst, calls, filter_):
    """Per call (new source data between calls): dst's bytes and the warnings, or the refusal."""
    out = []
    d = _twin(dst)
    for src, other in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter(filter_)
            try:
                call(d, src, other)
                result = d.tobytes()
            except (ptoisa.PtoError, Warning) as exc:
                result = (type(exc).__name__, str(exc), d.tobytes())
        out.append((result, [str(w.message) for w in caught]))
    return out


def _three_ways(config, mode, dst, calls, filter_):
    """The compiled call with the stream form, without it, and the general path."""
    got = []
    for stream in (True, False):
        impl._COMPILED.clear()
        impl._STREAM_LANES = stream
        try:
            got.append(_outcomes(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=config), dst, calls, filter_))
        finally:
            impl._STREAM_LANES = True
    got.append(_outcomes(lambda d, s, o: impl._general(config, d, s, o, mode), dst, calls, filter_))
    return got


def _calls(dtype, shape, dynamic, kind, scalar, dst_state):
    """Three calls on new data each (the first two with the same source: the second meets the target's bytes
    already in dst, unless dst_state says to scramble it)."""
    src, dst = _tiles(dtype, shape, dynamic, kind)
    dst.storage[...] = RNG.integers(0, 256, dst.spec.numel, dtype=np.uint8)
    if dst_state == "zero":
        dst.storage[...] = 0
    calls = []
    for n in range(3):
        if n == 2:
            src = _twin(src)
            src.storage[...] = _data(dtype, src.spec.numel, "random" if kind == "equal_outside" else kind)
        other = scalar
        if scalar == "tile":
            other = _twin(src)
            other.storage[...] = np.roll(src.storage, 3)
        calls.append((src, other))
    return dst, calls


def _legal(shape, dtype):
    return shape[1] * np.dtype(dtype).itemsize % 32 == 0  # a2a3 row-major rows: whole 32-byte blocks


@pytest.mark.parametrize("dtype,shape", [(d, s) for d in DTYPES for s in SHAPES if _legal(s, d)])
@pytest.mark.parametrize("mode", list(CmpMode))
@pytest.mark.parametrize("dynamic", [False, True])
def test_stream_lanes_match_the_lanes_and_the_general_path(dtype, shape, mode, dynamic):
    config = ptoisa.targets.resolve("a2a3")
    for kind in ("random", "special") + (("equal_outside",) if np.dtype(dtype).kind in "iu" else ()):
        for scalar in (_scalars(dtype)[0], "tile"):
            dst, calls = _calls(dtype, shape, dynamic, kind, scalar, "random")
            for filter_ in ("always", "error"):
                stream, lanes, general = _three_ways(config, mode, dst, calls, filter_)
                assert stream == lanes == general, (kind, scalar, filter_)


@pytest.mark.parametrize("dtype,shape", [(d, s) for d in DTYPES for s in [(16, 16, 16, 16), (8, 64, 5, 40)]
                                         if _legal(s, d)])
@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ, CmpMode.NE, CmpMode.LE])
def test_stream_lanes_convert_scalars_as_the_general_path(dtype, mode, shape):
    """The scalar put in a 0-d array of the source's type: Python numbers that round there (or overflow it, then
    refused by to_element as by the general path), typed scalars, bools."""
    config = ptoisa.targets.resolve("a2a3")
    for scalar in _scalars(dtype):
        dst, calls = _calls(dtype, shape, False, "special", scalar, "random")
        stream, lanes, general = _three_ways(config, mode, dst, calls, "always")
        assert stream == lanes == general, scalar


@pytest.mark.parametrize("target", ["a2a3", "a2a3_no_errata", "a2a3_int16_as_int16", "a5", "cpu"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int16, np.uint16])
@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.LT, CmpMode.NE, CmpMode.GE])
def test_every_target_and_the_errata_off(target, dtype, mode):
    """On the other targets and on a2a3 with its errata off the stream form is not taken; the compiled calls
    still give the general path's bytes and warnings. With the repeat tail but not tcmps_int16_as_half, 16-bit
    integers are compared as integers: a plain ufunc, the stream form."""
    if target == "a2a3_no_errata":
        config = ptoisa.targets.make_config("a2a3", False)
    elif target == "a2a3_int16_as_int16":
        config = ptoisa.targets.resolve("a2a3").without("tcmps_int16_as_half")
    else:
        config = ptoisa.targets.resolve(target)
    for shape in ((16, 16, 16, 16), (8, 64, 5, 40)):
        for dynamic in (False, True):
            dst, calls = _calls(dtype, shape, dynamic, "random", _scalars(dtype)[0], "random")
            stream, lanes, general = _three_ways(config, mode, dst, calls, "always")
            assert stream == lanes == general


@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.LT, CmpMode.GE, CmpMode.LE])
@pytest.mark.parametrize("kind", ["none_equal_none_beyond", "none_equal_one_beyond", "one_equal", "last_equal",
                                  "first_equal", "equal_outside_only"])
@pytest.mark.parametrize("shape", [(16, 16, 16, 16), (16, 16, 12, 16), (8, 64, 8, 40), (4, 32, 4, 24),
                                   (4, 128, 4, 40), (4, 128, 3, 64)])
def test_int32_fallback_tested_on_the_equal_bits_first(mode, kind, shape):
    """int32 GT/LT run as EQ: an equal element of the valid region announces the fallback without the second
    test; without one, the elements beyond the scalar decide; equal elements outside the valid region (read by
    the lanes) decide nothing."""
    rows, cols, vr, vc = shape
    src, dst = _tiles(np.int32, shape, False, "random")
    grid = np.full((rows, cols), 5, np.int32)  # the scalar's value outside the valid region
    below, above = (0, 9) if mode in (CmpMode.GT, CmpMode.GE) else (9, 0)
    grid[:vr, :vc] = below
    if kind == "none_equal_one_beyond":
        grid[vr - 1, vc - 1] = above
    elif kind == "one_equal":
        grid[vr // 2, vc // 2] = 5
    elif kind in ("last_equal", "first_equal"):  # the valid region's last (first) element
        grid[(vr - 1, vc - 1) if kind == "last_equal" else (0, 0)] = 5
    elif kind == "none_equal_none_beyond":
        grid[vr:, :] = grid[:, vc:] = below
    src.storage[...] = grid.reshape(-1)
    config = ptoisa.targets.resolve("a2a3")
    said = None
    for filter_ in ("always", "error"):
        stream, lanes, general = _three_ways(config, mode, dst, [(src, 5), (src, np.int32(5))], filter_)
        assert stream == lanes == general
        if said is None:
            said = any("executed as EQ" in m for _, caught in stream for m in caught)
    differs = mode in (CmpMode.GT, CmpMode.LT) and kind.endswith("_equal") or kind == "none_equal_one_beyond"
    assert said == differs


def test_the_stream_form_is_the_one_taken_and_reuses_its_buffers():
    """The benchmark's signatures (16x16 f32 GT, int32 GT run as EQ) compile to the stream form; its bool buffer
    and 0-d scalar are taken and given back (one set for calls one after another)."""
    for dtype, scalar in ((np.float32, 0.0), (np.int32, 0)):
        src, dst = _tiles(dtype, (16, 16, 16, 16), False, "random")
        made = []
        original = impl._stream_lanes

        def spy(*args, **kwargs):
            lanes = original(*args, **kwargs)
            made.append(lanes)
            return lanes

        impl._COMPILED.clear()
        impl._stream_lanes = spy
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(3):
                    ptoisa.TCMPS(dst, src, scalar, CmpMode.GT, target="a2a3")
        finally:
            impl._stream_lanes = original
        assert len(made) == 1 and made[0] is not None
        free = dict(zip(made[0].__code__.co_freevars, made[0].__closure__))["free"].cell_contents
        assert len(free) == 1


# half sources past `_HALF_NATIVE` elements: compared by `compare` on the bit patterns, in the stream form too
LARGE_HALF = [(64, 64, 64, 64), (32, 128, 32, 100), (40, 96, 37, 96), (24, 256, 24, 200)]


@pytest.mark.parametrize("shape", LARGE_HALF)
@pytest.mark.parametrize("mode", list(CmpMode))
def test_large_half_stream_lanes_match_the_lanes_and_the_general_path(shape, mode):
    """Half tiles larger than `_HALF_NATIVE` (the range tests on their patterns, into the kept buffers): the
    stream form is taken, and gives the lanes' and the general path's bytes and warnings."""
    config = ptoisa.targets.resolve("a2a3")
    assert shape[0] * shape[1] > impl._HALF_NATIVE
    for kind in ("random", "special"):
        for scalar in (1.0, -0.0, float("nan"), 0.1, float("-inf"), "tile"):
            dst, calls = _calls(np.float16, shape, True, kind, scalar, "random")
            for filter_ in ("always", "error"):
                stream, lanes, general = _three_ways(config, mode, dst, calls, filter_)
                assert stream == lanes == general, (kind, scalar, filter_)
    impl._COMPILED.clear()
    src, dst = _tiles(np.float16, shape, False, "random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptoisa.TCMPS(dst, src, 1.0, mode, target=config)
    assert any(run is not None and "_lean_tail" in run.__qualname__ and "stream" in run.__code__.co_freevars
               for run in impl._COMPILED.values())  # (the stream form's run; the lanes' run has no `stream`)
