"""TEXPANDS and TGATHER (index form) compiled calls give the same bytes, warnings and refusals as their general
paths, which the conformance vectors and the NPU golden tests exercise."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, PtoError, Tile, TileType
from ptoisa.isa import texpands as texpands_impl
from ptoisa.isa import tgather as tgather_impl
from ptoisa.targets import resolve

RNG = np.random.default_rng(11)
TARGETS = ["a2a3", "a5", "cpu"]


def noise(spec):
    t = spec()
    t.storage[...] = RNG.integers(0, 256, t.storage.nbytes, dtype=np.uint8).view(t.storage.dtype)
    return t


def outcome(fn, tiles):
    """(dst bytes, warnings) after two calls on copies (the second runs the cached form), or the refusal."""
    copies = [t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec() for t in tiles]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for _ in range(2):
                for c, t in zip(copies, tiles):
                    c.storage[...] = t.storage
                fn(*copies)
        except ptoisa.PtoError as exc:
            return type(exc).__name__, str(exc), copies[0].tobytes()
    return copies[0].tobytes(), sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,shape,scalar", list(itertools.product(
    [np.float32, np.float16, np.int16, np.int8, np.uint32],
    [(1, 32, 1, 32), (4, 16, 3, 8), (2, 64, 2, 64), (8, 8, 8, 8)],
    [1.5, -7, 300, float("nan"), 2 ** 40, 1e39, 70000.0, 1e-46, 0.1, np.float32(2.5), -1])))
@pytest.mark.parametrize("dynamic", [False, True])
def test_texpands_compiled_matches_general(target, dtype, shape, scalar, dynamic):
    rows, cols, vr, vc = shape
    cols = max(cols, 32 // np.dtype(dtype).itemsize)
    if dynamic:
        dst = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1](vr, min(vc, cols))
        dst.storage[...] = noise(dst.spec).storage
    else:
        dst = noise(Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, vr, min(vc, cols)])
    config = resolve(target)
    texpands_impl._COMPILED.clear()
    compiled = outcome(lambda d: ptoisa.TEXPANDS(d, scalar, target=target), [dst])
    general = outcome(lambda d: texpands_impl._general(config, d, scalar), [dst])
    assert compiled == general


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16, np.uint8])
@pytest.mark.parametrize("valid", [(32, 32), (8, 32), (32, 5)])
@pytest.mark.parametrize("scalar", [2.5, 1e39, -3, 400])
def test_texpands_mat_compiled_matches_general(target, dtype, valid, scalar):
    """A Mat tile is filled over its whole storage (cpu `texpands_mat_valid_only`: its valid region)."""
    dst = noise(Tile[TileType.Mat, dtype, 32, 32, BLayout.ColMajor, *valid])
    config = resolve(target)
    texpands_impl._COMPILED.clear()
    compiled = outcome(lambda d: ptoisa.TEXPANDS(d, scalar, target=target), [dst])
    general = outcome(lambda d: texpands_impl._general(config, d, scalar), [dst])
    assert compiled == general
    if scalar == 2.5 and valid == (32, 32):  # the compiled fill really ran
        assert any(run is not None for run in texpands_impl._COMPILED.values())


INDEX_CASES = list(itertools.product(TARGETS, [np.float32, np.float16, np.int32], [np.int32, np.int16],
                                     ["in", "out", "negative", "alias"], [True, False]))


@pytest.mark.parametrize("target,dtype,idx_dtype,indices,with_tmp", INDEX_CASES)
def test_tgather_index_compiled_matches_general(target, dtype, idx_dtype, indices, with_tmp):
    cols = 16
    src = noise(Tile[TileType.Vec, dtype, 4, cols])
    dst = noise(Tile[TileType.Vec, dtype, 4, cols])
    idx = Tile[TileType.Vec, idx_dtype, 4, cols]()
    values = RNG.integers(0, src.spec.numel, idx.spec.numel)
    if indices == "out":
        values[5] = src.spec.numel + 3
    elif indices == "negative":
        values[2] = -1
    idx.storage[...] = values.astype(idx_dtype)
    tmp = Tile[TileType.Vec, idx_dtype, 4, cols]() if with_tmp else None
    config = resolve(target)
    tgather_impl._COMPILED.clear()
    if indices == "alias":  # dst is src0: the gather reads what it has not overwritten yet
        def compiled_call(d, i, *t):
            return ptoisa.TGATHER(d, d, i, *t, target=target)

        def general_call(d, i, *t):
            return tgather_impl._index_general(config, d, d, i, t[0] if t else None)

        tiles = [dst, idx] + ([tmp] if tmp is not None else [])
    else:
        def compiled_call(d, s, i, *t):
            return ptoisa.TGATHER(d, s, i, *t, target=target)

        def general_call(d, s, i, *t):
            return tgather_impl._index_general(config, d, s, i, t[0] if t else None)

        tiles = [dst, src, idx] + ([tmp] if tmp is not None else [])
    assert outcome(compiled_call, tiles) == outcome(general_call, tiles)


PARTMUL_SHAPES = [((4, 16), (4, 16), (4, 16)), ((4, 16), (4, 16), (2, 12)), ((4, 16), (3, 16), (4, 16)),
                  ((4, 16), (2, 8), (3, 16)), ((4, 16), (4, 16), (4, 8)), ((2, 8), (2, 8), (2, 8))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16])
@pytest.mark.parametrize("shapes", range(len(PARTMUL_SHAPES)))
@pytest.mark.parametrize("alias", ["none", "dst_is_src0", "dst_is_src1"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_tpartmul_compiled_matches_general(target, dtype, shapes, alias, dynamic):
    (dr, dc), (ar, ac), (br, bc) = PARTMUL_SHAPES[shapes]
    cols = max(16, 32 // np.dtype(dtype).itemsize)

    def make(r, c):
        if dynamic:  # valid shape given at run time (`v_row=?, v_col=?`)
            t = Tile[TileType.Vec, dtype, 4, cols, BLayout.RowMajor, -1, -1](r, c)
            t.storage[...] = noise(t.spec).storage
            return t
        return noise(Tile[TileType.Vec, dtype, 4, cols, BLayout.RowMajor, r, c])
    dst, a, b = make(dr, dc), make(ar, ac), make(br, bc)
    config = resolve(target)
    from ptoisa.isa import tpartmul as impl

    impl._COMPILED.clear()
    if alias == "none":
        tiles = [dst, a, b]
        pick = lambda d, x, y: (d, x, y)  # noqa: E731
    elif alias == "dst_is_src0":
        tiles = [a, b]
        pick = lambda d, y: (d, d, y)  # noqa: E731
    else:
        tiles = [b, a]
        pick = lambda d, x: (d, x, d)  # noqa: E731
    compiled = outcome(lambda *t: ptoisa.TPARTMUL(*pick(*t), target=target), tiles)
    general = outcome(lambda *t: impl._general(config, *pick(*t)), tiles)
    assert compiled == general


def test_tgather_index_run_time_valid_shapes():
    """Index tiles with `v_row=?, v_col=?` and several valid shapes in turn: each call as the general path."""
    dyn = lambda dtype: Tile[TileType.Vec, dtype, 4, 16, BLayout.RowMajor, -1, -1]  # noqa: E731
    src = noise(Tile[TileType.Vec, np.float32, 4, 16])
    config = resolve("cpu")
    tgather_impl._COMPILED.clear()
    for vr, vc in [(4, 16), (2, 8), (4, 16), (1, 3)]:
        idx = dyn(np.int32)(vr, vc)
        idx.storage[...] = RNG.integers(0, 64, 64)
        got, want = dyn(np.float32)(vr, vc), dyn(np.float32)(vr, vc)
        ptoisa.TGATHER(got, src, idx, target="cpu")
        tgather_impl._index_general(config, want, src, idx, None)
        assert got.tobytes() == want.tobytes(), (vr, vc)


@pytest.mark.parametrize("target", TARGETS)
def test_texpands_run_time_valid_shapes(target):
    """One `v_row=?, v_col=?` tile type filled with several valid shapes in turn, each as the general path."""
    dyn = Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, -1, -1]
    config = resolve(target)
    texpands_impl._COMPILED.clear()
    for vr, vc in [(4, 16), (2, 5), (4, 16), (1, 1), (3, 16)]:
        got, want = dyn(vr, vc), dyn(vr, vc)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ptoisa.TEXPANDS(got, 2.5, target=target)
            texpands_impl._general(config, want, 2.5)
        assert got.tobytes() == want.tobytes(), (vr, vc)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint16, np.uint32, np.float32])
@pytest.mark.parametrize("cols,valid", [(16, 16), (32, 7), (64, 64)])
@pytest.mark.parametrize("start", [100, -5, 70000, 2 ** 40, np.int32(7), np.int16(-3), np.uint32(9), 2.5, True])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dynamic", [False, True])
def test_tci_compiled_matches_general(target, dtype, cols, valid, start, descending, dynamic):
    from ptoisa.isa import tci as impl

    cols = max(cols, 32 // np.dtype(dtype).itemsize)
    if dynamic:
        dst = Tile[TileType.Vec, dtype, 1, cols, BLayout.RowMajor, -1, -1](1, valid)
        dst.storage[...] = noise(dst.spec).storage
    else:
        dst = noise(Tile[TileType.Vec, dtype, 1, cols, BLayout.RowMajor, 1, valid])
    config = resolve(target)
    impl._COMPILED.clear()
    compiled = outcome(lambda d: ptoisa.TCI(d, start, descending=descending, target=target), [dst])
    general = outcome(lambda d: impl._general(config, d, start, descending, None), [dst])
    assert compiled == general
    if start == 100 and dtype is np.int32:  # the compiled sequence really ran
        assert any(run is not None for run in impl._COMPILED.values())


def _storages(kind):
    """(dst, src0, indices) storage arrays for 4x16 float32 tiles and int32 indices, placed per `kind`."""
    if kind == "private":
        return np.zeros(64, np.float32), np.zeros(64, np.float32), np.zeros(64, np.int32)
    if kind == "one_buffer_apart":  # views of one owner that do not overlap: may_share_memory decides
        buf = np.zeros(64 * 12, np.uint8)
        return buf[:256].view(np.float32), buf[256:512].view(np.float32), buf[512:768].view(np.int32)
    if kind == "dst_over_src0":
        buf = np.zeros(64 * 12, np.uint8)
        return buf[128:384].view(np.float32), buf[:256].view(np.float32), buf[512:768].view(np.int32)
    if kind == "dst_over_indices":
        buf = np.zeros(64 * 12, np.uint8)
        return buf[:256].view(np.float32), buf[512:768].view(np.float32), buf[128:384].view(np.int32)
    if kind == "foreign_buffer":  # bases that are not owning ndarrays: unsure, may_share_memory decides
        raw = bytearray(64 * 12)
        return (np.frombuffer(raw, np.float32, 64, 0), np.frombuffer(raw, np.float32, 64, 128),
                np.frombuffer(memoryview(raw), np.int32, 64, 512))
    if kind == "dst_is_src0":
        dst = np.zeros(64, np.float32)
        return dst, dst, np.zeros(64, np.int32)
    if kind == "view_of_private":  # a view of another tile's private storage
        src = np.zeros(64, np.float32)
        return src[:], src, np.zeros(64, np.int32)
    raise AssertionError(kind)


STORAGE_KINDS = ["private", "one_buffer_apart", "dst_over_src0", "dst_over_indices", "foreign_buffer",
                 "dst_is_src0", "view_of_private"]


@pytest.mark.parametrize("kind", STORAGE_KINDS)
def test_tgather_index_overlap_test_is_exact(kind):
    """The compiled index gather (and TPARTMUL's partial pattern) skip `np.may_share_memory` only when dst's memory
    certainly lies apart from the sources' (distinct owning arrays); everywhere else they keep the check."""
    from ptoisa.tile.layout import certainly_apart

    dst, src0, idx = _storages(kind)
    apart = certainly_apart(dst, src0, idx)
    assert apart == (kind == "private")
    if apart:
        assert not np.may_share_memory(dst, src0) and not np.may_share_memory(dst, idx)
    assert certainly_apart(dst, src0) == (kind == "private")  # views of one owner: unsure, even apart


@pytest.mark.parametrize("kind", STORAGE_KINDS)
@pytest.mark.parametrize("target", TARGETS)
def test_tgather_index_compiled_matches_general_over_placed_storage(kind, target):
    """Tiles whose storage is placed in one buffer (apart or overlapping), in a foreign buffer, or shared: the
    compiled call gives the general path's bytes."""
    config = resolve(target)
    results = []
    for call in ("compiled", "general"):
        dst_s, src_s, idx_s = _storages(kind)
        dst, src, idx = (Tile[TileType.Vec, np.float32, 4, 16](), Tile[TileType.Vec, np.float32, 4, 16](),
                         Tile[TileType.Vec, np.int32, 4, 16]())
        for t, s in ((dst, dst_s), (src, src_s), (idx, idx_s)):
            t.attach(s)
        src.storage[...] = np.arange(64, dtype=np.float32) + 0.5
        if not np.may_share_memory(dst.storage, src.storage):
            dst.storage[...] = -1
        idx.storage[...] = np.arange(64) * 37 % 64  # last: dst may overlap the indices
        tmp = Tile[TileType.Vec, np.int32, 4, 16]()
        tgather_impl._COMPILED.clear()
        refusal = None
        try:
            for _ in range(2):  # over the indices, the first call's dst bytes are the second call's indices
                if call == "compiled":
                    ptoisa.TGATHER(dst, src, idx, tmp, target=target)
                else:
                    tgather_impl._index_general(config, dst, src, idx, tmp)
        except ptoisa.PtoError as exc:
            refusal = str(exc)
        results.append((dst.tobytes(), src.tobytes(), idx.tobytes(), refusal))
    assert results[0] == results[1]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int16])
@pytest.mark.parametrize("layouts", list(itertools.product([BLayout.RowMajor, BLayout.ColMajor], repeat=3)))
def test_tpartmul_whole_tiles_of_mixed_layouts_match_general(target, dtype, layouts):
    """Fully valid tiles multiply through their 1-D storages only when all three share a layout: a row-major
    and a column-major 16x16 tile hold the same element at different storage positions."""
    from ptoisa.isa import tpartmul as impl

    try:
        dst, a, b = (noise(Tile[TileType.Vec, dtype, 16, 16, layout]) for layout in layouts)
    except PtoError:
        pytest.skip("layout refused for this type")
    impl._COMPILED.clear()
    config = resolve(target)
    compiled = outcome(lambda d, x, y: ptoisa.TPARTMUL(d, x, y, target=target), [dst, a, b])
    general = outcome(lambda d, x, y: impl._general(config, d, x, y), [dst, a, b])
    assert compiled == general


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("layouts", list(itertools.product([BLayout.RowMajor, BLayout.ColMajor], repeat=3)))
@pytest.mark.parametrize("full", ["src0", "src1"])
@pytest.mark.parametrize("size", [16, 64])
def test_tpartmul_partial_over_whole_tiles_matches_general(dtype, layouts, full, size):
    """dst and the full source valid over their whole tiles, the other source partial (cpu, any layouts): a small
    dst of the full source's layout takes a copy of its whole storage and then the product, any other the copies
    beside the product; the general path's bytes either way, statically and with run-time valid shapes."""
    from ptoisa.isa import tpartmul as impl

    config = resolve("cpu")
    for dynamic in (False, True):
        tiles = []
        for i, layout in enumerate(layouts):
            valid = (size, size) if i == 0 or (i == 1) == (full == "src0") else (size // 2, 3 * size // 4)
            if dynamic:
                t = Tile[TileType.Vec, dtype, size, size, layout, -1, -1](*valid)
                t.storage[...] = noise(t.spec).storage
            else:
                t = noise(Tile[TileType.Vec, dtype, size, size, layout, *valid])
            tiles.append(t)
        impl._COMPILED.clear()
        compiled = outcome(lambda d, x, y: ptoisa.TPARTMUL(d, x, y, target="cpu"), tiles)
        general = outcome(lambda d, x, y: impl._general(config, d, x, y), tiles)
        assert compiled == general, dynamic


PARTMUL_PLACEMENTS = {
    # (dst, src0, src1) offsets in bytes into one shared buffer; None: a private array
    "private": (None, None, None),
    "dst_is_src0": (0, 0, 512),
    "dst_is_src1": (0, 512, 0),
    "dst_over_src0_shifted": (64, 0, 512),
    "dst_over_src1_shifted": (0, 512, 64),
    "src0_over_src1": (0, 512, 576),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("placement", list(PARTMUL_PLACEMENTS))
@pytest.mark.parametrize("shapes", range(len(PARTMUL_SHAPES)))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_tpartmul_compiled_matches_general_over_shared_storage(target, placement, shapes, dtype):
    """The partial pattern multiplies the overlap first and copies the rest of the full source after it: every
    way dst can share memory with a source must still give the general path's bytes."""
    from ptoisa.isa import tpartmul as impl

    (dr, dc), (ar, ac), (br, bc) = PARTMUL_SHAPES[shapes]
    cols = max(16, 32 // np.dtype(dtype).itemsize)
    specs = [Tile[TileType.Vec, dtype, 4, cols, BLayout.RowMajor, r, c] for r, c in ((dr, dc), (ar, ac), (br, bc))]
    nbytes = specs[0].nbytes

    def place():
        buf = np.random.default_rng(7).integers(0, 255, 2048, dtype=np.uint8)
        buf[1::2] &= 0x3F  # modest exponents: products stay finite, NaNs rare
        tiles = []
        for spec, offset in zip(specs, PARTMUL_PLACEMENTS[placement], strict=True):
            t = Tile(spec)
            if offset is not None:
                t.attach(buf[offset:offset + nbytes].view(spec.np_dtype))
            else:  # the same seeded bytes in a private array
                t.storage.view(np.uint8)[...] = buf[1024 + 256 * len(tiles):][:nbytes]
            tiles.append(t)
        return tiles, buf

    config = resolve(target)
    impl._COMPILED.clear()
    results = []
    for compiled in (True, False):
        (d, a, b), buf = place()
        try:
            if compiled:
                ptoisa.TPARTMUL(d, a, b, target=target)
            else:
                impl._general(config, d, a, b)
            results.append((buf.tobytes(), d.storage.tobytes(), a.storage.tobytes(), b.storage.tobytes()))
        except PtoError as exc:
            results.append(type(exc).__name__)
    assert results[0] == results[1]


# a2a3's padding copy (erratum tpartmul_copy_padding): (cols, valid rows, valid cols) of dst, src0, src1, all 4
# rows, in float32 elements (doubled for 16-bit types). The copy writes dst's columns from its valid ones to the
# end of the row (dst and the full source of one Cols) or to the next 32 bytes (Cols differ).
PADDING_CASES = [
    ((16, 4, 11), (16, 4, 11), (16, 2, 11)),  # src1 fewer rows: rows 2..3, columns 11..15
    ((16, 4, 11), (16, 4, 11), (16, 4, 3)),  # src1 fewer columns: every row
    ((16, 4, 11), (16, 3, 8), (16, 4, 11)),  # src1 is the full source
    ((16, 4, 11), (16, 2, 11), (16, 4, 11)),
    ((16, 4, 5), (16, 4, 5), (16, 0, 0)),  # an empty partial source
    ((16, 4, 5), (16, 4, 5), (16, 0, 5)),
    ((16, 4, 3), (8, 4, 3), (16, 4, 1)),  # Cols differ: columns 3..7 (32 bytes)
    ((16, 4, 9), (24, 4, 9), (16, 2, 9)),  # Cols differ: columns 9..15
    ((8, 4, 3), (16, 4, 3), (8, 1, 3)),  # dst narrower than the full source
    ((16, 4, 15), (16, 4, 15), (16, 3, 15)),  # one padding column (two for 16-bit types)
    ((16, 4, 16), (16, 4, 16), (16, 2, 16)),  # dst's valid columns reach its Cols: no padding
    ((16, 4, 8), (8, 4, 8), (16, 4, 2)),  # 32 bytes already: no padding
    ((16, 4, 5), (16, 4, 5), (16, 4, 5)),  # all equal: no copy
]


def _padding_tiles(case, dtype, dynamic, special, same_padding):
    k = 4 // np.dtype(dtype).itemsize
    tiles = []
    for cols, vr, vc in PADDING_CASES[case]:
        if dynamic:
            t = Tile[TileType.Vec, dtype, 4, cols * k, BLayout.RowMajor, -1, -1](vr, vc * k)
        else:
            t = Tile[TileType.Vec, dtype, 4, cols * k, BLayout.RowMajor, vr, vc * k]()
        t.storage[...] = noise(t.spec).storage
        if special:  # NaNs with payloads, signed zeros, infinities, integer extremes among the bytes
            flat = t.storage.view(f"u{t.storage.itemsize}")
            picks = RNG.integers(0, flat.size, flat.size // 3)
            if np.dtype(dtype).kind == "f":
                info = np.finfo(dtype)
                specials = np.array([np.nan, -0.0, np.inf, -np.inf, info.max, info.tiny, 1.0], dtype).view(flat.dtype)
                flat[picks] = specials[RNG.integers(0, len(specials), picks.size)]
                flat[picks[::5]] |= 0x1  # a NaN payload where it lands on a NaN or an infinity
            else:
                info = np.iinfo(dtype)
                flat[picks] = np.array([info.min, info.max, -1, 0], dtype).view(flat.dtype)[picks % 4]
        tiles.append(t)
    dst, a, b = tiles
    if same_padding:  # dst already holds the full source's bytes where the copy lands: nothing changes there
        full = a if a.valid_shape == dst.valid_shape else b
        m = min(dst.spec.cols, full.spec.cols)
        dst.view[:, :m] = full.view[:, :m]
    return tiles


def _partmul_outcome(compiled, target, tiles, action, alias="none"):
    """Every tile's bytes after two calls, the refusal if any, and the warnings (category, text, file, line)."""
    from ptoisa.isa import tpartmul as impl

    config = resolve(target)
    copies = []
    for t in tiles:
        c = t.spec(*t.valid_shape) if t.spec.dynamic_row or t.spec.dynamic_col else t.spec()
        c.storage[...] = t.storage
        copies.append(c)
    d, a, b = copies
    if alias == "dst_is_full":
        d = a if a.valid_shape == d.valid_shape else b
    run = (lambda *t: ptoisa.TPARTMUL(*t, target=target)) if compiled else (lambda *t: impl._general(config, *t))
    refusal = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        try:
            for _ in range(2):
                run(d, a, b)  # one line for both paths: the warnings name it
        except (PtoError, Warning) as exc:
            refusal = type(exc).__name__, str(exc)
    seen = [(w.category.__name__, str(w.message), w.filename, w.lineno) for w in caught]
    return [c.tobytes() for c in copies], refusal, seen


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16])
@pytest.mark.parametrize("case", range(len(PADDING_CASES)))
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("variant", ["noise", "special", "same_padding", "dst_is_full"])
def test_tpartmul_padding_copy_compiled_matches_general(target, dtype, case, dynamic, variant):
    """The compiled call writes a2a3's padding columns as the general path does, and warns as it does: the same
    warnings (text, category, reported line) under "always", the same refusal with every tile untouched under
    "error", nothing under "ignore"; on cpu and a5 (no such erratum) the contract's bytes."""
    from ptoisa.isa import tpartmul as impl

    tiles = _padding_tiles(case, dtype, dynamic, variant == "special", variant == "same_padding")
    alias = "dst_is_full" if variant == "dst_is_full" else "none"
    general = {}
    for action in ("always", "error", "ignore"):
        impl._COMPILED.clear()
        compiled = _partmul_outcome(True, target, tiles, action, alias)
        general[action] = _partmul_outcome(False, target, tiles, action, alias)
        assert compiled == general[action], action
        if not dynamic:  # the compiled plan really ran: no case here is left to the general path
            assert impl._COMPILED and all(run is not None for run in impl._COMPILED.values())
    if target == "a2a3" and variant == "noise" and case < 10:  # the copy lands: the erratum is told
        assert any("tpartmul_copy_padding" in w[1] for w in general["always"][2])
        bytes_after, refusal, _ = general["error"]
        assert refusal[0] == "ErratumWarning" and bytes_after == [t.tobytes() for t in tiles]


@pytest.mark.parametrize("placement", ["dst_over_full", "dst_over_part", "full_view"])
@pytest.mark.parametrize("case", [0, 1, 2, 6, 8])
def test_tpartmul_padding_copy_over_shared_storage(placement, case):
    """dst sharing memory with the full source (the compiled call hands it to the general path) or with the
    partial one (read only by the multiply, before the padding lands): the general path's bytes and warnings."""
    from ptoisa.isa import tpartmul as impl

    config = resolve("a2a3")
    seeds = _padding_tiles(case, np.float32, False, False, False)
    results = []
    for compiled in (True, False):
        d, a, b = (t.spec() for t in seeds)
        for t, seed in zip((d, a, b), seeds):
            t.storage[...] = seed.storage
        full, part = (a, b) if a.valid_shape == d.valid_shape else (b, a)
        buf = np.random.default_rng(5).integers(0, 255, 4096, dtype=np.uint8)
        buf[3::4] &= 0x3F  # finite floats
        if placement == "full_view":  # dst and the full source: two tiles over one private array
            if d.spec.numel > full.spec.numel:
                pytest.skip("dst is larger than the full source")
            d.attach(full.storage[:d.spec.numel])
        else:
            other = full if placement == "dst_over_full" else part
            other.attach(buf[:other.spec.nbytes].view(np.float32))
            d.attach(buf[64:64 + d.spec.nbytes].view(np.float32))
        impl._COMPILED.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if compiled:
                ptoisa.TPARTMUL(d, a, b, target="a2a3")
            else:
                impl._general(config, d, a, b)
        results.append((buf.tobytes(), d.tobytes(), a.tobytes(), b.tobytes(), [str(w.message) for w in caught]))
    assert results[0] == results[1]


def small(spec):
    """A tile of small integers (many ties and matches for the comparison form)."""
    t = spec()
    t.storage[...] = RNG.integers(-3, 4, t.storage.size)
    return t


def _gather_calls():
    """TGATHER calls of the mask form with an axis and of the comparison form, positionally, valid and not."""
    from ptoisa import CmpMode, GatherAxis, MaskPattern

    F = Tile[TileType.Vec, np.float32, 8, 16]  # noqa: N806
    Half = Tile[TileType.Vec, np.float32, 4, 16]  # noqa: N806
    Cols = Tile[TileType.Vec, np.float32, 8, 8]  # noqa: N806
    U = Tile[TileType.Vec, np.uint32, 8, 16]  # noqa: N806
    S = Tile[TileType.Vec, np.int32, 8, 16]  # noqa: N806
    Tmp = Tile[TileType.Vec, np.uint32, 8, 64]  # noqa: N806
    K = Tile[TileType.Vec, np.int32, 8, 1, BLayout.ColMajor]  # noqa: N806
    C = Tile[TileType.Vec, np.uint32, 8, 1, BLayout.ColMajor]  # noqa: N806
    calls = []
    for axis in GatherAxis:
        for pattern in (MaskPattern.P0101, MaskPattern.P1010, MaskPattern.P1111):
            calls.append(lambda a=axis, p=pattern: ((Cols() if a is GatherAxis.GATHER_ROW else Half()), noise(F), p, a))
    calls.append(lambda: (Cols(), noise(F), MaskPattern.P0101, CmpMode.GT))  # an axis of the wrong kind
    for mode in (CmpMode.GT, CmpMode.EQ):
        for offset in (0, 7, -3):
            calls.append(lambda m=mode, o=offset: (U(), small(S), small(K), C(), Tmp(), o, m))
    calls.append(lambda: (U(), small(S), 1, C(), Tmp(), 0, CmpMode.GT))  # k as a number
    calls.append(lambda: (U(), noise(F), noise(K), C(), U(), 0, CmpMode.GT))  # refused: float src
    calls.append(lambda: (U(), noise(F), MaskPattern.P0101, C(), U(), 0, CmpMode.GT))  # a pattern where k goes
    return calls


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", range(len(_gather_calls())))
def test_tgather_lean_entry_mask_axis_and_comparison_forms_match_the_general_entry(target, case):
    from ptoisa import api

    original = _gather_calls()[case]()

    def run(entry):
        args = []
        for a in original:  # the same bytes for both entries
            if type(a) is Tile:
                a, old = a.spec(), a
                a.storage[...] = old.storage
            args.append(a)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                entry(*args, target=target)
                error = None
            except PtoError as exc:
                error = (type(exc).__name__, str(exc))
        tiles = [a.storage.tobytes() for a in args if type(a) is Tile]
        return error, tiles, [str(w.message) for w in seen]

    assert run(ptoisa.TGATHER) == run(api._tgather)
