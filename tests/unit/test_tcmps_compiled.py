"""TCMPS compiled calls (checks and packing decided once per tile types, mode and target) give the same bytes,
warnings and refusals as the general path (`tcmps._general`, which the conformance vectors and the NPU golden
tests exercise). Covers the three packings, the a2a3 repeat tail (NE included), fallbacks and errata."""

from __future__ import annotations

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, CmpMode, Tile, TileType
from ptoisa.isa import tcmps as impl
from ptoisa.targets import resolve

RNG = np.random.default_rng(7)


def values(dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0], dtype=dtype)
        return RNG.choice(pool, n)
    return RNG.integers(-2, 3, n).astype(dtype)


def tile(spec, data=None):
    t = spec()
    t.storage[...] = data if data is not None else RNG.integers(0, 256, t.storage.nbytes, dtype=np.uint8).view(
        t.storage.dtype)
    return t


def outcome(fn, dst, src, other):
    d = dst.spec(*dst.valid_shape) if dst.spec.dynamic_row else dst.spec()
    d.storage[...] = dst.storage
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for _ in range(2):  # the second call runs the cached form
                d.storage[...] = dst.storage
                fn(d, src, other)
        except ptoisa.PtoError as exc:
            return type(exc).__name__, d.tobytes()
    return d.tobytes(), sorted({str(w.message) for w in caught})


SHAPES = [(1, 16, 1, 16), (2, 16, 2, 12), (4, 64, 4, 64), (3, 32, 2, 32), (4, 128, 4, 96), (5, 8, 5, 8),
          (2, 256, 2, 200), (1, 8, 0, 0), (2, 16, 0, 16)]
CASES = list(itertools.product(["a2a3", "a5", "cpu"], [np.float32, np.float16, np.int32, np.int16, np.uint8],
                               list(CmpMode), range(len(SHAPES))))


def make(spec, valid, dynamic, data=None):
    """A tile of `spec`, or with `dynamic` its run-time-valid twin (`v_row=?, v_col=?`) given `valid`."""
    if dynamic:
        twin = Tile[spec.loc, spec.np_dtype.type, spec.rows, spec.cols, BLayout.RowMajor, -1, -1]
        t = twin(*valid)
        t.storage[...] = tile(spec, data).storage
        return t
    return tile(spec, data)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,dtype,mode,shape", CASES)
def test_compiled_tcmps_matches_the_general_path(target, dtype, mode, shape, dynamic):
    rows, cols, vr, vc = SHAPES[shape]
    itemsize = np.dtype(dtype).itemsize
    if cols * itemsize % 32:
        cols = 32 // itemsize
        vc = min(vc, cols)
    src_spec = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc]
    dst_cols = max(32, -(-cols // 8 // 32) * 32)
    dst_valid = (vr, -(-vc // 8) if vr else 0)
    dst_spec = Tile[TileType.Vec, np.uint8, rows, dst_cols, BLayout.RowMajor, *dst_valid]
    src = make(src_spec, (vr, vc), dynamic, values(dtype, src_spec.numel))
    dst = make(dst_spec, dst_valid, dynamic)
    config = resolve(target)
    scalar_tile = make(src_spec, (vr, vc), dynamic, values(dtype, src_spec.numel))
    for other in (float(values(dtype, 1)[0]) if np.dtype(dtype).kind == "f" else int(values(dtype, 1)[0]),
                  scalar_tile):
        impl._COMPILED.clear()
        compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=target), dst, src, other)
        general = outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, other)
        assert compiled == general


def test_a2a3_tail_takes_the_compiled_lanes():
    """The a2a3 repeat tail is compiled (not the general path) and still writes the neighbour rows' bits."""
    src = Tile[TileType.Vec, np.float32, 4, 16]()
    src.set_logical(np.arange(64, dtype=np.float32).reshape(4, 16))
    dst = Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, 4, 2]()
    impl._COMPILED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptoisa.TCMPS(dst, src, 20.5, CmpMode.GT, target="a2a3")
    assert any(run is not None for run in impl._COMPILED.values())
    # Row 0's repeat reads 64 elements from 0: values 0..63, bits set for 21..63 -> bytes 2..7 of row 0 carry
    # bits of rows 1-3 (worked from the lane arithmetic of a2a3/TCmps.hpp: repeat = 256 B = 64 floats).
    assert dst.storage.reshape(4, 32)[0, :8].tolist() == [0, 0, 0xE0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    # Row 3's repeat starts at 48: lanes 48..63 are in the tile, lanes past 64 read as 0 bits.
    assert dst.storage.reshape(4, 32)[3, :8].tolist() == [0xFF, 0xFF, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_run_time_valid_shapes_are_compiled_per_shape(target):
    """One tile type with `v_row=?, v_col=?`, called with several valid shapes in turn: each call gives the
    general path's bytes (a plan compiled for one shape must not serve another)."""
    src_t = Tile[TileType.Vec, np.float32, 4, 64, BLayout.RowMajor, -1, -1]
    dst_t = Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, -1, -1]
    data = np.arange(256, dtype=np.float32) % 7
    config = resolve(target)
    impl._COMPILED.clear()
    for vr, vc in [(4, 64), (2, 16), (4, 64), (3, 40), (1, 8)]:
        src = src_t(vr, vc)
        assert src.spec.dynamic_row and src.spec.dynamic_col
        src.storage[...] = data
        got, want = dst_t(vr, -(-vc // 8)), dst_t(vr, -(-vc // 8))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ptoisa.TCMPS(got, src, 3.0, CmpMode.GT, target=target)
            impl._general(config, want, src, 3.0, CmpMode.GT)
        assert got.tobytes() == want.tobytes(), (vr, vc)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16, np.uint8])
@pytest.mark.parametrize("scalar", [1e39, -1e39, 70000.0, 1e-46, 0.1, 2.5, 300, -1, 2 ** 31, np.float32(1.0),
                                    np.int16(2), True])
@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.EQ, CmpMode.LE])
@pytest.mark.parametrize("valid", [(4, 64), (4, 24), (3, 12)])
def test_compiled_tcmps_converts_scalars_as_the_general_path(target, dtype, scalar, mode, valid):
    """Python numbers that NumPy may convert itself take the compiled call's short way; every other number
    (overflowing, wrapping, of another type) goes through to_element with its warning or refusal."""
    vr, vc = valid
    cols = max(64, 32 // np.dtype(dtype).itemsize)
    src = tile(Tile[TileType.Vec, dtype, 4, cols, BLayout.RowMajor, vr, vc], values(dtype, 4 * cols))
    dst = tile(Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, vr, -(-vc // 8)])
    config = resolve(target)
    impl._COMPILED.clear()
    compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=target), dst, src, scalar)
    general = outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, scalar)
    assert compiled == general


INT32_EQ_DATA = {"mixed": np.arange(-8, 56) % 7 - 3, "all_low": np.full(64, -5), "all_high": np.full(64, 9),
                 "all_equal": np.full(64, 2),
                 # one element apart from the rest (the requested mode differs from EQ in one element only)
                 "one_low": np.where(np.arange(256) == 1, -5, 9), "one_high": np.where(np.arange(256) == 1, 9, -5)}


@pytest.mark.parametrize("mode", [CmpMode.LT, CmpMode.LE, CmpMode.GT, CmpMode.GE])
@pytest.mark.parametrize("data", list(INT32_EQ_DATA))
@pytest.mark.parametrize("scalar", [2, -100, 100, np.int32(2), 2 ** 31, "tile"])
@pytest.mark.parametrize("shape", [(4, 16, 4, 16), (2, 64, 2, 64), (4, 16, 3, 10), (2, 16, 0, 16)])
@pytest.mark.parametrize("as_error", [False, True])
def test_a2a3_int32_modes_as_eq_are_compiled(mode, data, scalar, shape, as_error):
    """a2a3 int32 LT/LE/GT/GE run as EQ, with the fallback announced exactly when the requested mode's bits over
    src0's valid region differ from EQ's: compiled (the repeat tail's lean form), bytes and warnings as the
    general path gives them; with warnings as errors, the first warning refuses the call before any byte moves."""
    rows, cols, vr, vc = shape
    spec = Tile[TileType.Vec, np.int32, rows, cols, BLayout.RowMajor, vr, vc]
    src = tile(spec, np.resize(INT32_EQ_DATA[data], spec.numel).astype(np.int32))
    other = tile(spec, np.resize(INT32_EQ_DATA[data][::-1], spec.numel).astype(np.int32)) if scalar == "tile" \
        else scalar
    dst_spec = Tile[TileType.Vec, np.uint8, rows, 32, BLayout.RowMajor, vr, -(-vc // 8) if vr else 0]
    dst = tile(dst_spec)
    config = resolve("a2a3")

    def run(fn):
        d = dst_spec()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("error" if as_error else "always")
            try:
                for _ in range(2):
                    d.storage[...] = dst.storage
                    fn(d)
            except (ptoisa.PtoError, Warning) as exc:
                return type(exc).__name__, str(exc), d.tobytes()
        return d.tobytes(), sorted(str(w.message) for w in caught)

    impl._COMPILED.clear()
    compiled = run(lambda d: ptoisa.TCMPS(d, src, other, mode, target="a2a3"))
    general = run(lambda d: impl._general(config, d, src, other, mode))
    assert compiled == general
    if scalar != 2 ** 31 and vr and vc % 64:  # an empty dst valid region is refused by the general path
        assert any(run is not None and "_lean_tail" in run.__qualname__ for run in impl._COMPILED.values())


HALF_SCALARS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -2.5, 6e-8, -6e-8, 65504.0, 0.1, 1e-46,
                70000.0, "tile_min_sub", "tile_nan"]


@pytest.mark.parametrize("target,mode", [(t, m) for t in ("cpu", "a5", "a2a3") for m in CmpMode])
@pytest.mark.parametrize("scalar", HALF_SCALARS)
def test_compiled_half_compare_over_every_half(target, mode, scalar):
    """Every one of the 65536 half patterns (eight 64x128 tiles: larger than `_HALF_NATIVE`, so compared by
    range tests on the bits) against special and ordinary scalars gives the general path's bytes and warnings;
    sources up to `_HALF_NATIVE` elements are compared in half (no float32 conversion). cpu EQ/NE (the 1e-9
    tolerance): NE is the exact compare for every scalar, EQ for every scalar but an infinity (which the tolerant
    path takes, with its warning)."""
    spec = Tile[TileType.Vec, np.float16, 64, 128]
    dst_spec = Tile[TileType.Vec, np.uint8, 64, 32, BLayout.RowMajor, 64, 16]
    config = resolve(target)
    patterns = np.arange(65536, dtype=np.uint16)
    if isinstance(scalar, str):
        bits = {"tile_min_sub": 0x8001, "tile_nan": 0x7E01}[scalar]
        other = tile(spec, np.full(spec.numel, bits, np.uint16).view(np.float16))
    else:
        other = scalar
    impl._COMPILED.clear()
    for part in range(8):
        src = tile(spec, patterns[part * 8192:(part + 1) * 8192].view(np.float16))
        dst = tile(dst_spec)
        compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=target), dst, src, other)
        general = outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, other)
        assert compiled == general
    if target != "cpu" or mode is not CmpMode.EQ:
        assert impl._predicate_of(config, mode, impl.DType.F16, impl._HALF_NATIVE) is impl.OPS[mode]


# --- a2a3 repeat tail: the erratum's warning decided on the tail bytes alone ---------------------------------
# rows, cols, vr, vc: lanes past validCol with and without a part byte (vc % 8), several repeats, rows whose
# repeats stay inside the storage (vr < rows) or run past it, no valid column at all.
TAIL_SHAPES = [(4, 16, 4, 16), (4, 16, 4, 13), (4, 64, 4, 40), (3, 96, 3, 70), (8, 16, 2, 16), (8, 16, 3, 5),
               (2, 128, 2, 100), (1, 128, 1, 127), (2, 16, 2, 0)]
# 16-bit integers are compared as half bit patterns: int16 -1 is a NaN, 0x7C00 +inf; uint16 0xFC00 is -inf.
TAIL_DTYPES = {np.float32: (1.0, 0.0), np.float16: (1.0, -0.0), np.int32: (1, 0), np.int16: (-1, 0x7C00),
               np.uint16: (1, 0xFC00)}
HALF_EDGES = np.array([0x7C00, 0x7C01, 0x7E00, 0x7BFF, 0xFC00, 0xFC01, 0x8000, 0, 1, 0xFFFF], np.uint16)


def _tail_outcome(fn, dst_spec, before, filter_):
    d = dst_spec()
    d.storage[...] = before
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(filter_)
        try:
            fn(d)
        except (ptoisa.PtoError, Warning) as exc:
            return type(exc).__name__, str(exc), d.tobytes()
    return d.tobytes(), [str(w.message) for w in caught]


@pytest.mark.parametrize("mode", list(CmpMode))
@pytest.mark.parametrize("dtype", list(TAIL_DTYPES))
@pytest.mark.parametrize("shape", TAIL_SHAPES)
def test_a2a3_repeat_tail_decision_matches_the_general_path(shape, dtype, mode):
    """The compiled repeat tail tests only the bytes where the target can differ from the contract (the lane bits
    past validCol in the last valid byte, the later lane bytes against dst's, and under NE the inverted rest of
    the rows, decided from the shapes). Against the general path (both results written out and compared): dst
    pitches 32 and 64 bytes, uint8 and int8 dst; dst valid widths from the packed bytes to the whole pitch (the
    warning's text says whether a changed byte lies in dst's valid region); dst holding random bytes, the
    target's bytes already (nothing changes but the NE rest), or those with one byte changed just past the valid
    bytes, at the last lane byte or in the rest; warnings recorded, and as errors (refused before any byte
    moves). int32 LT/LE/GT/GE (run as EQ) and int16/uint16 (compared as half patterns) announce their fallback
    or erratum first, over the valid region."""
    rows, cols, vr, vc = shape
    if cols * np.dtype(dtype).itemsize % 32:
        pytest.skip("not a legal a2a3 row-major tile")
    per_repeat = 256 // np.dtype(dtype).itemsize
    lane_bytes, valid_bytes = -(-vc // per_repeat) * per_repeat // 8, -(-vc // 8)
    spec = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc]
    sources = [tile(spec, values(dtype, spec.numel))]
    if np.dtype(dtype).itemsize == 2 and np.dtype(dtype).kind in "iu":  # also patterns that order as integers
        sources.append(tile(spec, RNG.integers(0, 3, spec.numel).astype(dtype)))
        sources.append(tile(spec, RNG.choice(HALF_EDGES, spec.numel).view(dtype)))  # infinities, NaNs, zeros
    other_tile = tile(spec, values(dtype, spec.numel))
    config = resolve("a2a3")
    dsts = [(32, np.uint8), (64, np.uint8), (32, np.int8)]
    for src, (pitch, dst_dtype) in [(sources[0], d) for d in dsts] + [(s, dsts[0]) for s in sources[1:]]:
        for width in sorted({valid_bytes, valid_bytes + 2, lane_bytes, pitch}):
            if width > pitch or not vr and width:
                continue
            dst_spec = Tile[TileType.Vec, dst_dtype, rows, pitch, BLayout.RowMajor, vr, width]
            start = RNG.integers(0, 256, dst_spec.numel, dtype=np.uint8)
            for other in (*TAIL_DTYPES[dtype], other_tile):
                general = lambda d: impl._general(config, d, src, other, mode)  # noqa: E731
                target = np.frombuffer(_tail_outcome(general, dst_spec, start.view(dst_dtype), "ignore")[0],
                                       np.uint8)
                states = [start, target]
                for at in (valid_bytes, lane_bytes - 1, lane_bytes, pitch - 1):
                    if 0 <= at < pitch and vr:
                        state = target.copy()
                        state[(vr - 1) * pitch + at] ^= 0x10
                        states.append(state)
                impl._COMPILED.clear()
                for n, state in enumerate(states):
                    for filter_ in ("always", "error") if n < 3 else ("always",):
                        compiled = _tail_outcome(lambda d: ptoisa.TCMPS(d, src, other, mode, target="a2a3"),
                                                 dst_spec, state.view(dst_dtype), filter_)
                        assert compiled == _tail_outcome(general, dst_spec, state.view(dst_dtype), filter_), \
                            (pitch, dst_dtype, width)
                if vr and width and vc % per_repeat:
                    assert any(run is not None and "_lean_tail" in run.__qualname__
                               for run in impl._COMPILED.values())


# --- cpu EQ/NE tolerance, decided per scalar -----------------------------------------------------------------
def _around(scalar, dtype):
    """The scalar's value in `dtype` and its three neighbours on either side (bit patterns one apart: within
    1e-9 of small scalars), and specials."""
    bits = {2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]
    pattern = int(np.array(scalar, dtype).view(bits))
    near = (np.arange(pattern - 3, pattern + 4) % (1 << 8 * np.dtype(dtype).itemsize)).astype(bits).view(dtype)
    specials = np.array([0.0, -0.0, 1e-10, -1e-10, 5e-10, 1.0, np.inf, -np.inf, np.nan], dtype)
    return np.concatenate([near, specials])


TOLERANCE_SCALARS = [0.03125, 0.031249999, 0.0312499, -0.03125, 2.0 ** -21, 2.0 ** -21 * 0.999, 1.0, 3e38, 0.0,
                     -0.0, 1e-9, 1e-10, float("inf"), float("-inf"), float("nan"), "below", "typed"]


@pytest.mark.parametrize("mode", [CmpMode.EQ, CmpMode.NE])
@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.float16])
@pytest.mark.parametrize("scalar", TOLERANCE_SCALARS)
@pytest.mark.parametrize("form", ["scalar", "tile"])
def test_cpu_tolerance_decided_per_scalar_matches_the_general_path(mode, dtype, scalar, form):
    """cpu EQ/NE (the simulator's 1e-9 tolerance) compiled: the exact comparison where the tolerance cannot change
    a bit for the scalar (half: not inf under EQ; float32 from 2**-5, bfloat16 from 2**-21 in magnitude), the
    tolerant one with its warning elsewhere. Python floats on both sides of the bounds (0.031249999 rounds up to
    2**-5 in float32), typed scalars (the float32 just below 2**-5), tile form; values next to the scalar;
    warnings recorded and as errors."""
    if scalar == "below":
        scalar = np.nextafter(np.float32(2.0 ** -5), np.float32(0)).astype(dtype)
    elif scalar == "typed":
        scalar = np.array(2.0 ** -5, dtype)[()]
    elif dtype is np.float16 and 65504 < abs(scalar) < float("inf"):
        pytest.skip("overflows half (to_element's warning for it is tested elsewhere)")
    base = np.array(scalar, dtype)[()]
    data = np.resize(_around(base, dtype), 4 * 64).astype(dtype)
    spec = Tile[TileType.Vec, dtype, 4, 64]
    src = tile(spec, data)
    dst = tile(Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, 4, 8])
    other = tile(spec, np.full(spec.numel, base, dtype)) if form == "tile" else scalar
    config = resolve("cpu")
    impl._COMPILED.clear()
    compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target="cpu"), dst, src, other)
    assert any(run is not None for run in impl._COMPILED.values())
    general = outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, other)
    assert compiled == general
    as_errors = [_tail_outcome(fn, dst.spec, dst.storage, "error")  # refused before any byte moves
                 for fn in (lambda d: ptoisa.TCMPS(d, src, other, mode, target="cpu"),
                            lambda d: impl._general(config, d, src, other, mode))]
    assert as_errors[0] == as_errors[1]


# --- a5 chunk tail --------------------------------------------------------------------------------------------
def _fused_with_chunk_tail(run):
    """Whether `run` is `_fused`'s compiled call with a5's chunk tail (its `announce` set)."""
    if run.__qualname__ != "_fused.<locals>.run":
        return False
    cells = dict(zip(run.__code__.co_freevars, run.__closure__))
    return cells["announce"].cell_contents is not None


@pytest.mark.parametrize("dst_dtype", [np.uint8, np.int8, np.uint32, np.int32])
@pytest.mark.parametrize("src_dtype,cols,vc", [(np.float32, 16, 16), (np.float32, 64, 40), (np.float16, 128, 100),
                                               (np.int32, 8, 3), (np.uint8, 64, 64)])
@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.NE])
def test_a5_chunk_tail_matches_the_general_path(dst_dtype, src_dtype, cols, vc, mode):
    """a5 writes each row's predicate bytes, then zeros to the end of its 128-element chunk (256 for 8-bit
    sources), announced when a zeroed byte held something: compiled for byte and word dst (the rows seen as
    bytes), against the general path with dst's chunk tails zero, random, or nonzero in their first or last byte
    only; warnings recorded and as errors."""
    rows, vr = 4, 3
    per_element = 8 * np.dtype(dst_dtype).itemsize
    dst_cols = 256 // per_element if np.dtype(dst_dtype).itemsize == 1 else 16
    src = tile(Tile[TileType.Vec, src_dtype, rows, cols, BLayout.RowMajor, vr, vc], values(src_dtype, rows * cols))
    dst_spec = Tile[TileType.Vec, dst_dtype, rows, dst_cols, BLayout.RowMajor, vr, -(-vc // per_element)]
    pitch = dst_cols * np.dtype(dst_dtype).itemsize
    chunk_bytes = (256 if np.dtype(src_dtype).itemsize == 1 else 128) // 8
    zero_tail = RNG.integers(0, 256, (rows, pitch), dtype=np.uint8)
    zero_tail[:vr, -(-vc // 8):chunk_bytes] = 0
    first, last = zero_tail.copy(), zero_tail.copy()
    first[0, -(-vc // 8)] = 1
    last[vr - 1, chunk_bytes - 1] = 0x80
    config = resolve("a5")
    for state in (zero_tail, RNG.integers(0, 256, (rows, pitch), dtype=np.uint8), first, last):
        before = state.reshape(-1).view(dst_dtype)
        for filter_ in ("always", "error"):
            impl._COMPILED.clear()
            compiled = _tail_outcome(lambda d: ptoisa.TCMPS(d, src, 0, mode, target="a5"), dst_spec, before, filter_)
            assert any(run is not None and ("_a5_chunk_plan" in run.__qualname__
                                            or _fused_with_chunk_tail(run))  # (the plain compares')
                       for run in impl._COMPILED.values())
            assert compiled == _tail_outcome(lambda d: impl._general(config, d, src, 0, mode), dst_spec, before,
                                             filter_)


# --- cpu stream over dst's valid shape ------------------------------------------------------------------------
@pytest.mark.parametrize("dst_dtype", [np.uint8, np.int32])
@pytest.mark.parametrize("layout", [BLayout.RowMajor, BLayout.ColMajor])
@pytest.mark.parametrize("dst_valid_cols", [8, 12, 16, 24, 32])
@pytest.mark.parametrize("src_dtype,cols", [(np.float32, 64), (np.float16, 64), (np.uint8, 32)])
def test_cpu_stream_reflow_matches_the_general_path(dst_dtype, layout, dst_valid_cols, src_dtype, cols):
    """The cpu byte stream (Cols / 8 bytes per src row) laid row-major over dst's valid shape: in whole rows of
    it (the stream reshaped once) or with a part row, dst zeroed first unless the stream covers it; row- and
    col-major dst, one byte value per element of a wide dst; compiled, against the general path."""
    src = tile(Tile[TileType.Vec, src_dtype, 4, cols], values(src_dtype, 4 * cols))
    rows = 4 if layout is BLayout.RowMajor else 32 // np.dtype(dst_dtype).itemsize  # col-major: 32-byte columns
    dst = tile(Tile[TileType.Vec, dst_dtype, rows, 32, layout, 4, dst_valid_cols])
    config = resolve("cpu")
    impl._COMPILED.clear()
    compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, CmpMode.GT, target="cpu"), dst, src, 0)
    assert any(run is not None for run in impl._COMPILED.values())
    assert compiled == outcome(lambda d, s, o: impl._general(config, d, s, o, CmpMode.GT), dst, src, 0)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
@pytest.mark.parametrize("mode", list(CmpMode))
@pytest.mark.parametrize("pattern", [0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0000, 0x8000, 0x0001, 0x8001, 0x3C00, 0xFFFF])
def test_a2a3_int16_as_half_tail_over_every_pattern(dtype, mode, pattern):
    """a2a3 int16/uint16 with a repeat tail (64x128, 100 valid columns: the lanes read the whole storage) are
    compared as half bit patterns in NumPy's half: all 65536 patterns (eight tiles) against scalars at the
    infinities, NaNs, zeros and subnormals give the general path's bytes and warnings (the erratum over the
    valid region, the repeat tail)."""
    spec = Tile[TileType.Vec, dtype, 64, 128, BLayout.RowMajor, 64, 100]
    dst_spec = Tile[TileType.Vec, np.uint8, 64, 32, BLayout.RowMajor, 64, 16]
    scalar = int(np.array(pattern, np.uint16).view(dtype))
    config = resolve("a2a3")
    patterns = np.arange(65536, dtype=np.uint16)
    impl._COMPILED.clear()
    for part in range(8):
        src = tile(spec, patterns[part * 8192:(part + 1) * 8192].view(dtype))
        dst = tile(dst_spec)
        compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target="a2a3"), dst, src, scalar)
        assert compiled == outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, scalar)
    assert any(run is not None and "_lean_tail" in run.__qualname__ for run in impl._COMPILED.values())


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("col", [0, 32])
@pytest.mark.parametrize("mode", [CmpMode.GT, CmpMode.NE])
def test_tail_into_a_window_dst(target, col, mode):
    """dst a window of a wider tile (its storage a strided view of the parent's rows): the repeat tail (a2a3)
    and the chunk tail (a5) read and write the window's rows as the general path does, the parent's other
    columns untouched."""
    from ptoisa.tile.tile import window

    src = tile(Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, 4, 12], values(np.float32, 64))
    config = resolve(target)
    results = []
    for fn in (lambda d: ptoisa.TCMPS(d, src, 1.0, mode, target=target),
               lambda d: impl._general(config, d, src, 1.0, mode)):
        parent = tile(Tile[TileType.Vec, np.uint8, 4, 64], np.arange(256, dtype=np.uint8))
        dst = window(parent, Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, 4, 2], 0, col)
        assert dst.storage.ndim == 2
        impl._COMPILED.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(dst)
            fn(dst)
        results.append((parent.tobytes(), sorted(str(w.message) for w in caught)))
    assert results[0] == results[1]


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("errata", [True, False])
@pytest.mark.parametrize("col", [0, 8, 16])
def test_a_window_src_not_spanning_whole_rows(target, errata, col):
    """A src0 that is a window of a wider tile (PTOAS subview; 2-D storage): the result of the same compare on a
    plain copy of the window, or, where a2a3's repeat-tail erratum would read src storage past the window's
    rows, a NotModelledError with dst unchanged (it used to raise IndexError / ValueError)."""
    from ptoisa.errors import NotModelledError
    from ptoisa.tile.tile import window

    parent = Tile[TileType.Vec, np.float32, 16, 32]()
    parent.set_logical(np.random.default_rng(col).standard_normal((16, 32)))
    spec = Tile[TileType.Vec, np.float32, 16, 16]().spec
    win = window(parent, spec, 0, col)
    plain = Tile(spec)
    plain.set_logical(win.data)
    bits = Tile[TileType.Vec, np.uint8, 16, 32, BLayout.RowMajor, 16, 2]
    expected, got = bits(), bits()
    with warnings.catch_warnings(), ptoisa.target(target, errata=errata):
        warnings.simplefilter("ignore")
        ptoisa.TCMPS(expected, plain, 0.0, ptoisa.CmpMode.GT)
        before = got.storage.tobytes()
        for _ in range(2):  # the second call takes the compiled path, if any
            try:
                ptoisa.TCMPS(got, win, 0.0, ptoisa.CmpMode.GT)
            except NotModelledError as exc:
                assert target == "a2a3" and errata
                assert "window of a wider tile" in str(exc) and "tcmps_repeat_tail" in str(exc)
                assert got.storage.tobytes() == before
                continue
            assert got.storage[:32 * 16].reshape(16, 32)[:, :2].tobytes() == \
                expected.storage.reshape(16, 32)[:, :2].tobytes()


class _SubTile(Tile):
    __slots__ = ()


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("shape", [0, 2, 4, 6])
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_a_tile_subclass_as_src1_is_the_tile_form_after_a_compiled_scalar_call(target, shape, dtype):
    """src1 of a subclass of Tile keys as a scalar (None) in the compiled-call cache, but the general path takes
    it as the tile form (src1[0, 0]): the compiled scalar-form call must hand it to the general path, before
    and after a number compiled the key (it used to refuse it: 'scalar must be a number (got _SubTile)')."""
    rows, cols, vr, vc = SHAPES[shape]
    itemsize = np.dtype(dtype).itemsize
    cols = max(cols, 32 // itemsize)
    src_spec = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc]
    dst_spec = Tile[TileType.Vec, np.uint8, rows, max(32, -(-cols // 8 // 32) * 32)]
    src = tile(src_spec, values(dtype, src_spec.numel))
    dst = tile(dst_spec)
    config = resolve(target)
    first = tile(src_spec, values(dtype, src_spec.numel))
    sub = _SubTile(src_spec)
    sub.storage[...] = first.storage
    for mode in (CmpMode.GT, CmpMode.NE):
        general = outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, sub)  # noqa: B023
        assert general == outcome(lambda d, s, o: impl._general(config, d, s, o, mode), dst, src, first)  # noqa: B023
        for warm in (False, True):
            impl._COMPILED.clear()
            if warm:  # a number compiles the scalar form of this key first
                outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=target), dst, src, 1)  # noqa: B023
            compiled = outcome(lambda d, s, o: ptoisa.TCMPS(d, s, o, mode, target=target), dst, src, sub)  # noqa: B023
            assert compiled == general


def _ignore_all():
    warnings.simplefilter("ignore")


def _ignore_errata():
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=ptoisa.ErratumWarning)


def _ignore_fallbacks():
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=ptoisa.ModeFallbackWarning)


def _ignore_no_message():  # ignore entries that match none of our messages: everything still warns
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="no such text", category=ptoisa.ErratumWarning)
    warnings.filterwarnings("ignore", message="no such text", category=ptoisa.ModeFallbackWarning)


@pytest.mark.parametrize("filters", [_ignore_all, _ignore_errata, _ignore_fallbacks, _ignore_no_message])
@pytest.mark.parametrize("dtype,mode", [(np.float32, CmpMode.GT), (np.float32, CmpMode.NE), (np.int32, CmpMode.GT),
                                        (np.int32, CmpMode.LE), (np.int16, CmpMode.LT), (np.uint16, CmpMode.GE)])
@pytest.mark.parametrize("shape", [(2, 16, 2, 12), (16, 16, 16, 16), (4, 128, 4, 96)])
def test_a2a3_tail_under_ignored_categories(filters, dtype, mode, shape):
    """The a2a3 repeat tail does not make the tests whose only use is to decide an announcement that its warning
    filters would drop (the tail's test where every ErratumWarning is ignored, the int32-as-EQ fallback's and the
    int16-as-half erratum's where their category is): the bytes are still the general path's, and the warnings
    that get through are the general path's, in order."""
    rows, cols, vr, vc = shape
    if cols * np.dtype(dtype).itemsize % 32:
        cols = 32 // np.dtype(dtype).itemsize
    src_spec = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, vc]
    dst_spec = Tile[TileType.Vec, np.uint8, rows, max(32, -(-cols // 8 // 32) * 32), BLayout.RowMajor]
    config = resolve("a2a3")
    src = tile(src_spec)
    data = values(dtype, src_spec.numel)
    scalar = 1.0 if np.dtype(dtype).kind == "f" else 1
    results = []
    for how in ("compiled", "general"):
        impl._COMPILED.clear()
        dst = tile(dst_spec, np.zeros(dst_spec().storage.size, np.uint8))
        got = []
        for round_ in range(3):  # new src data and a dst holding other bytes between the calls
            src.storage[...] = np.random.default_rng(round_).permutation(data)
            dst.storage[::3] = 0xA5
            with warnings.catch_warnings(record=True) as caught:
                filters()
                if how == "compiled":
                    ptoisa.TCMPS(dst, src, scalar, mode, target="a2a3")
                else:
                    impl._general(config, dst, src, scalar, mode)
            got.append((dst.storage.tobytes(), [(w.category.__name__, str(w.message)) for w in caught]))
        results.append(got)
    assert results[0] == results[1]
    if filters is _ignore_no_message:
        assert any(messages for _, messages in results[0])


# --- compiled calls keep dst's view per storage ----------------------------------------------------------------
@pytest.mark.parametrize("target,cols,vc", [("cpu", 64, 64), ("a5", 64, 40), ("a5", 128, 128), ("a2a3", 64, 64),
                                            ("a2a3", 128, 72)])
def test_compiled_tcmps_writes_the_dst_of_each_call(target, cols, vc):
    """A compiled call keeps the view of dst's storage it writes through for the storage it was made from: calls
    alternating between two dst tiles of one type, and one whose storage was replaced (attach), each write their
    own dst and leave the other as it was, as the general path does."""
    vr = 4
    src_spec = Tile[TileType.Vec, np.float32, 4, cols, BLayout.RowMajor, vr, vc]
    dst_spec = Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, vr, -(-vc // 8)]
    config = resolve(target)
    sources = [tile(src_spec, values(np.float32, src_spec.numel)) for _ in range(3)]
    a, b = tile(dst_spec), tile(dst_spec)
    impl._COMPILED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step, (dst, other) in enumerate([(a, b), (b, a), (a, b), (b, a)]):
            src = sources[step % 3]
            want, untouched = dst_spec(), other.tobytes()
            want.storage[...] = dst.storage
            impl._general(config, want, src, 0.5, CmpMode.GT)
            ptoisa.TCMPS(dst, src, 0.5, CmpMode.GT, target=target)
            assert dst.tobytes() == want.tobytes() and other.tobytes() == untouched, step
        old = a.storage
        a.attach(RNG.integers(0, 256, old.size, dtype=np.uint8))  # new storage, same type
        kept = old.copy()
        want = dst_spec()
        want.storage[...] = a.storage
        impl._general(config, want, sources[1], 0.5, CmpMode.GT)
        ptoisa.TCMPS(a, sources[1], 0.5, CmpMode.GT, target=target)
        assert a.tobytes() == want.tobytes() and np.array_equal(old, kept)
    assert any(run is not None and run.__qualname__.startswith("_fused") for run in impl._COMPILED.values()) \
        or target == "a2a3" and vc % 64


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_run_time_src0_shapes_under_one_dst_shape(target):
    """src0's run-time valid shape changing while dst's stays (40 and 36 valid columns both need 5 bytes): each
    call is compiled for its own pair of shapes and gives the general path's bytes."""
    src_t = Tile[TileType.Vec, np.float32, 4, 64, BLayout.RowMajor, -1, -1]
    dst_t = Tile[TileType.Vec, np.uint8, 4, 32, BLayout.RowMajor, -1, -1]
    data = np.arange(256, dtype=np.float32) % 7
    config = resolve(target)
    impl._COMPILED.clear()
    for vr, vc in [(3, 40), (3, 36), (3, 40), (2, 33), (3, 36)]:
        src = src_t(vr, vc)
        src.storage[...] = data
        got, want = dst_t(3, 5), dst_t(3, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ptoisa.TCMPS(got, src, 3.0, CmpMode.GT, target=target)
            except ptoisa.PtoError as exc:
                got = type(exc).__name__
            try:
                impl._general(config, want, src, 3.0, CmpMode.GT)
            except ptoisa.PtoError as exc:
                want = type(exc).__name__
        assert (got if isinstance(got, str) else got.tobytes()) == \
            (want if isinstance(want, str) else want.tobytes()), (vr, vc)
