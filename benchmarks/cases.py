"""Benchmark cases: each pairs one ptoisa instruction call with the NumPy floor for the same bytes.

A case builder takes the target name and returns a `Bench` holding two zero-argument callables:

    call   runs the ptoisa instruction once, through the public API (ptoisa.TEXPANDS, ...)
    floor  runs the cheapest plain-NumPy code that moves the same bytes (fill, multiply, compare+pack, take, ...),
           reading and writing the tiles' own storage arrays (same addresses, so same cache and aliasing effects)

Each floor is the fastest NumPy spelling found for its bytes (an audit at 16x16, 64x64 and 256x256 of keyword vs
positional out, slice assignment vs copyto, flat vs 2-D, pre-built views and scratch, NumPy vs Python scalars):
views of the storage (slices, reshapes) and scratch buffers are made once with the tiles, outside the timed
region, and the NumPy functions a floor calls are held by its closure (`bind`); only work that depends on the
data is in the floor. Where the fastest spelling depends on the size, the
floor picks it per size and says so. The helpers below (`compare_pack`, `rowsum_inorder`, `inorder_matmul_plan`)
are shared with cpp_side_by_side.py.

Tiles and NumPy buffers are built once, outside the timed region. The builders are shared by run.py (timing) and
hotpaths.py (profiling).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import ptoisa
from ptoisa import (
    BLayout,
    CmpMode,
    GatherAxis,
    MaskPattern,
    SLayout,
    Tile,
    TileType,
    half,
    int16_t,
    int32_t,
    uint8_t,
    uint32_t,
)

SMALL, LARGE = 16, 256

# --stagger: re-seat each tile's storage at a different offset modulo 4 KiB. Tiles created one after another get
# page-aligned storage at the same offset modulo 4096, and a streaming copy between two such arrays suffers 4K
# aliasing (about 10x slower on the benchmark machine); staggering shows how much of a case's time that costs.
STAGGER = False
_stagger_count = 0

# C++ CPU-simulator reference (single thread, 256x256 f32 unless noted), microseconds per call: one run of
# benchmarks/cpp_side_by_side.py on this project's 2-core machine (2026-11-25), for orientation only; run that
# script for figures measured beside ptoisa's in the same run.
CPP_REFERENCE_US = {
    "texpands_vec_f32": 16.2,
    "tpartmul_f32_all": 56.4,
    "tcmps_f32_gt": 164.0,
    "tgather_index_f32": 31.8,
    "tgather_mask_row": 23.0,
    "tci_i32": 11.9,   # 1x65536
}


@dataclass
class Bench:
    call: Callable[[], object]
    floor: Callable[[], object]
    note: str = ""


@dataclass(frozen=True)
class Case:
    key: str                      # stable id, shared by both sizes ("tcmps_f32_gt")
    label: str                    # what is measured
    floor_label: str              # which NumPy floor it is paired with
    size: int                     # 16 or 256 (TCI: 16 or 65536 columns, one row)
    build: Callable[[str, int], Bench]

    @property
    def small(self) -> bool:
        return self.size <= SMALL

    @property
    def shape(self) -> str:
        return f"1x{self.size}" if self.key.startswith("tci") else f"{self.size}x{self.size}"

    @property
    def name(self) -> str:
        return f"{self.label} {self.shape}"

    @property
    def cpp_us(self) -> float | None:
        if self.key.startswith("tci"):
            return CPP_REFERENCE_US.get(self.key) if self.size == 65536 else None
        return CPP_REFERENCE_US.get(self.key) if self.size == LARGE else None


def _rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def _place(tile: Tile) -> Tile:
    """With STAGGER, move the tile's (private, zero) storage to an offset of 64 * (7k mod 63) bytes mod 4096."""
    global _stagger_count
    if STAGGER:
        _stagger_count += 1
        item = tile.storage.itemsize
        shift = 64 * (7 * _stagger_count % 63) // item
        raw = np.zeros(tile.storage.size + 2 * 4096 // item, dtype=tile.storage.dtype)
        base = (-raw.ctypes.data % 4096) // item  # page-align first, then shift
        tile.attach(raw[base + shift: base + shift + tile.storage.size])
    return tile


def _vec(dtype: object, rows: int, cols: int, *dyn: int) -> Tile:
    if dyn:
        return _place(Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1](*dyn))
    return _place(Tile[TileType.Vec, dtype, rows, cols]())


def bind(fn: Callable[..., object], *args: object) -> Callable[[], object]:
    """fn(*args) as a zero-argument call with fn and the arguments held by the closure: no global and attribute
    lookup of `np.add` per call (~30 ns, 10 % of a 16x16 floor). Both sides of a case are called through it (the
    ptoisa call and its floor), so neither pays a lookup the other does not."""
    if len(args) == 1:
        (a,) = args
        return lambda: fn(a)
    if len(args) == 2:
        a, b = args
        return lambda: fn(a, b)
    if len(args) == 3:
        a, b, c = args
        return lambda: fn(a, b, c)
    a, b, c, d = args
    return lambda: fn(a, b, c, d)


def assign(out: np.ndarray, src: np.ndarray) -> Callable[[], None]:
    """`out[...] = src` as a zero-argument call (a statement in a def: cheaper than a lambda calling
    `out.__setitem__`, ~0.1 us at 16x16)."""
    def floor() -> None:
        out[...] = src
    return floor


def _random_f32(n: int) -> np.ndarray:
    return _rng().standard_normal((n, n)).astype(np.float32)


# --- TEXPANDS ~ fill -----------------------------------------------------------------------------------------
def texpands_vec_f32(target: str, n: int) -> Bench:
    dst = _vec(float, n, n)
    return Bench(bind(ptoisa.TEXPANDS, dst, 1.5), lambda: dst.storage.fill(1.5))


def texpands_vec_i16(target: str, n: int) -> Bench:
    dst = _vec(int16_t, n, n)
    return Bench(bind(ptoisa.TEXPANDS, dst, 7), lambda: dst.storage.fill(7))


def texpands_mat_f32(target: str, n: int) -> Bench:
    dst = _place(Tile[TileType.Mat, float, n, n]())
    return Bench(bind(ptoisa.TEXPANDS, dst, 1.5), lambda: dst.storage.fill(1.5))


# --- TPARTMUL ~ multiply --------------------------------------------------------------------------------------
def tpartmul_f32_all(target: str, n: int) -> Bench:
    a, b, d = _vec(float, n, n), _vec(float, n, n), _vec(float, n, n)
    a.set_logical(_random_f32(n))
    b.set_logical(_random_f32(n))
    x, y, out = a.storage, b.storage, d.storage
    return Bench(bind(ptoisa.TPARTMUL, d, a, b), bind(np.multiply, x, y, out))


def partial_multiply(x: np.ndarray, y: np.ndarray, out: np.ndarray, n: int, r: int, c: int) -> Callable[[], None]:
    """TPARTMUL's bytes with src1 valid over the top-left r x c of n x n row-major storages (flat): the product
    there, src0 elsewhere. Up to 64x64 src0 is copied whole, then the product written over the overlap (two calls);
    larger, the product, then src0 copied into the rest of the top rows and into the whole rows below (no byte
    written twice). The views are made here, once."""
    multiply = np.multiply
    grid_x, grid_y, grid_o = x.reshape(n, n), y.reshape(n, n), out.reshape(n, n)
    px, py, po = grid_x[:r, :c], grid_y[:r, :c], grid_o[:r, :c]
    if n <= 64:
        def floor() -> None:
            out[...] = x
            multiply(px, py, po)
        return floor
    side_x, side_o, below_x, below_o = grid_x[:r, c:], grid_o[:r, c:], x[r * n:], out[r * n:]

    def floor_large() -> None:
        multiply(px, py, po)
        side_o[...] = side_x
        below_o[...] = below_x

    return floor_large


def tpartmul_f32_partial(target: str, n: int) -> Bench:
    """src0 and dst fully valid, src1 valid over the top-left (n/2) x (3n/4): product there, src0 elsewhere."""
    r, c = n // 2, 3 * n // 4
    a, d = _vec(float, n, n, n, n), _vec(float, n, n, n, n)
    b = _vec(float, n, n, r, c)
    a.set_logical(_random_f32(n))
    b.set_logical(_random_f32(n))
    floor = partial_multiply(a.storage, b.storage, d.storage, n, r, c)
    return Bench(bind(ptoisa.TPARTMUL, d, a, b), floor,
                 note=f"src1 valid {r}x{c}; floor: " + ("copy src0 whole, then the product over the overlap" if n <= 64
                                                        else "the product, then copies of src0 around it"))


# --- TCMPS ~ compare + packbits -------------------------------------------------------------------------------
# 0-d arrays rather than NumPy scalars: a ufunc takes a 0-d array operand about 0.2 us faster at 256x256
HALF_ONE = np.array(0x3C00, np.uint16)   # the bits of float16 1.0
HALF_INF = np.array(0x7C00, np.int16)    # the bits of float16 +inf
ZERO_I16 = np.array(0, np.int16)


def compare_pack(mode: str, flat: np.ndarray, scalar: Any, bits: np.ndarray) -> Callable[[], np.ndarray]:
    """TCMPS's bits for an n x n source with n a multiple of 8: compare the flat storage with the scalar (of the
    source's dtype, as a 0-d array) into a flat bool scratch, then pack it flat, 8 per byte, low bit first (rows of n
    bits pack to whole bytes, so the flat pack is the row-wise pack). For float16, whose NumPy compare has no SIMD
    loop, the same bits come from integer compares of the storage's bits where that is faster: EQ 1.0 as
    bits == 0x3C00 (1.0 has one encoding and NaN equals nothing), and GT 0.0 from 64x64 on as 0 < int16 bits <=
    0x7C00 (sign clear, not +0.0, not NaN); at 16x16 NumPy's float16 compare is faster."""
    packbits, equal, greater, less_equal, logical_and = np.packbits, np.equal, np.greater, np.less_equal, np.logical_and
    if flat.dtype == np.float16 and mode == "EQ" and float(scalar) == 1.0:
        raw = flat.view(np.uint16)

        def eq_one() -> np.ndarray:
            equal(raw, HALF_ONE, bits)
            return packbits(bits, bitorder="little")
        return eq_one
    if flat.dtype == np.float16 and mode == "GT" and float(scalar) == 0.0 and flat.size >= 64 * 64:
        signed, finite = flat.view(np.int16), np.empty(flat.size, bool)

        def gt_zero() -> np.ndarray:
            greater(signed, ZERO_I16, bits)
            less_equal(signed, HALF_INF, finite)
            logical_and(bits, finite, bits)
            return packbits(bits, bitorder="little")
        return gt_zero
    op = {"GT": np.greater, "EQ": np.equal}[mode]
    scalar = np.asarray(scalar)  # a 0-d array of the same type: the same bits, a cheaper ufunc operand

    def plain() -> np.ndarray:
        op(flat, scalar, bits)
        return packbits(bits, bitorder="little")
    return plain


def _tcmps(np_dtype: type, pt_dtype: object, mode: CmpMode, scalar: Any, tile_form: bool = False) \
        -> Callable[[str, int], Bench]:
    def build(target: str, n: int) -> Bench:
        rng = _rng()
        if np.dtype(np_dtype).kind == "f":
            data = rng.integers(-4, 5, (n, n)).astype(np_dtype)   # many exact ties with the scalar (EQ is not empty)
        else:
            data = rng.integers(-100, 101, (n, n)).astype(np_dtype)
        src = _vec(pt_dtype, n, n)
        src.set_logical(data)
        dst = _vec(uint8_t, n, max(32, n // 8))
        other = _vec(pt_dtype, n, n)
        other.set_logical(np.full((n, n), scalar, dtype=np_dtype))
        bits = np.empty(n * n, dtype=bool)
        if tile_form:
            def call() -> object:
                return ptoisa.TCMPS(dst, src, other, mode)
            floor = compare_pack(mode.name, src.storage, other.storage[0], bits)
        else:
            def call() -> object:
                return ptoisa.TCMPS(dst, src, scalar, mode)
            floor = compare_pack(mode.name, src.storage, np.dtype(np_dtype).type(scalar), bits)
        return Bench(call, floor)

    return build


# --- TGATHER index ~ take -------------------------------------------------------------------------------------
def _tgather_index(with_tmp: bool) -> Callable[[str, int], Bench]:
    def build(target: str, n: int) -> Bench:
        src, dst, idx = _vec(float, n, n), _vec(float, n, n), _vec(int32_t, n, n)
        data = _random_f32(n)
        src.set_logical(data)
        raw = _rng().integers(0, n * n, (n, n)).astype(np.int32)
        idx.set_logical(raw)
        flat_src, flat_idx, out = src.storage, idx.storage, dst.storage
        # the method, not np.take (whose Python wrapper costs ~0.8 us); mode="wrap" (the indices are in range, so
        # the bytes of "clip" and "raise"): with out= the default "raise" buffers a copy of out, and "wrap" was
        # the fastest of the three at 16x16, 64x64 and 256x256.
        take = flat_src.take  # the bound method, held (no attribute lookup per call)
        floor = lambda: take(flat_idx, out=out, mode="wrap")  # noqa: E731
        if with_tmp:
            tmp = _vec(int32_t, n, n)
            return Bench(bind(ptoisa.TGATHER, dst, src, idx, tmp), floor)
        return Bench(bind(ptoisa.TGATHER, dst, src, idx), floor)

    return build


# --- TGATHER mask ~ strided copy ------------------------------------------------------------------------------
def tgather_mask_row(target: str, n: int) -> Bench:
    src, dst = _vec(float, n, n), _vec(float, n, n // 2)
    data = _random_f32(n)
    src.set_logical(data)
    out, picked = dst.storage, src.storage[::2]  # P0101 over whole rows of even width: every other element
    return Bench(bind(ptoisa.TGATHER, dst, src, MaskPattern.P0101),
                 assign(out, picked))  # out[...] = picked (a strided view made once)


def tgather_mask_col(target: str, n: int) -> Bench:
    src, dst = _vec(float, n, n), _vec(float, n // 2, n)
    data = _random_f32(n)
    src.set_logical(data)
    out, picked = dst.storage.reshape(n // 2, n), src.storage.reshape(n, n)[::2, :]
    return Bench(bind(ptoisa.TGATHER, dst, src, MaskPattern.P0101, GatherAxis.GATHER_COL),
                 assign(out, picked))  # out[...] = picked (the even rows, a view made once)


# --- TGATHER comparison ~ compare + flatnonzero + count -------------------------------------------------------
def tgather_cmp_f32(target: str, n: int) -> Bench:
    data = _rng().integers(-4, 5, (n, n)).astype(np.float32)
    src, dst = _vec(float, n, n), _vec(int32_t, n, n)
    src.set_logical(data)
    data = src.storage.reshape(n, n)
    kdt = uint32_t if target == "a5" else int32_t
    kcols = max(8, n)
    k = _vec(kdt, 1, kcols)
    k.storage[:] = 0
    cdst = _vec(int32_t, 1, kcols)
    # a2a3 requires tmp; its size rule counts tmp's Rows*Cols as "bitmap" bytes, so a byte tile can never satisfy
    # it: use an int32 tmp of R*C >= (numel*4 + rows*4) / 3 elements.
    need = (n * n * 4 + n * 4) // 3 + 8
    tmp = _vec(int32_t, 1, -(-need // 8) * 8)
    thresholds = np.zeros((n, 1), np.float32)  # k's zeros as a float32 column (exact; a float64 one cost ~25 %)
    bits = np.empty((n, n), dtype=bool)
    flat_bits = bits.reshape(-1)
    greater, reduce, intp = np.greater, np.add.reduce, np.intp

    def floor() -> object:
        greater(data, thresholds, bits)
        # the counts by an integer add-reduce of the bools (np.count_nonzero with axis= is Python-level: ~1.2 us more)
        return flat_bits.nonzero()[0], reduce(bits, axis=1, dtype=intp)

    note = ""

    def call() -> object:
        return ptoisa.TGATHER(dst, src, k, cdst, tmp, 0, CmpMode.GT)

    try:
        call()
    except ptoisa.IllegalInstructionError as exc:
        if "comparison form takes" not in str(exc):
            raise
        # api._tgather reads cmpMode from rest[5] although the documented form puts it at rest[4]; go through
        # the same dispatch with a placeholder argument so that the kernel is still measured via the public API.
        note = "api bug: cmpMode read from rest[5]; called with a placeholder 7th argument"

        def call() -> object:  # noqa: F811
            return ptoisa.TGATHER(dst, src, k, cdst, tmp, 0, None, CmpMode.GT)

    return Bench(call, floor, note)


# --- TCI ~ arange into out ------------------------------------------------------------------------------------
def tci_i32(target: str, cols: int) -> Bench:
    dst = _vec(int32_t, 1, cols)
    out, ramp, start = dst.storage, np.arange(cols, dtype=np.int32), np.int32(100)
    # the ramp 0..cols-1 is made once (it does not depend on the start); the floor adds the start, as ptoisa does
    return Bench(bind(ptoisa.TCI, dst, np.int32(100)), bind(np.add, ramp, start, out),
                 note="floor: a ramp made once, plus the start")


# --- the case list ----------------------------------------------------------------------------------------------
_SPECS: list[tuple[str, str, str, Callable[[str, int], Bench], tuple[str, ...]]] = [
    ("texpands_vec_f32", "TEXPANDS Vec f32", "fill", texpands_vec_f32, ()),
    ("texpands_vec_i16", "TEXPANDS Vec i16", "fill", texpands_vec_i16, ()),
    ("texpands_mat_f32", "TEXPANDS Mat f32", "fill", texpands_mat_f32, ()),
    ("tpartmul_f32_all", "TPARTMUL f32 all valid", "multiply", tpartmul_f32_all, ()),
    ("tpartmul_f32_partial", "TPARTMUL f32 partial", "multiply+copy", tpartmul_f32_partial, ()),
    ("tcmps_f32_gt", "TCMPS f32 GT scalar", "compare+pack", _tcmps(np.float32, float, CmpMode.GT, 0.0), ()),
    ("tcmps_f16_eq", "TCMPS f16 EQ scalar", "compare+pack", _tcmps(np.float16, half, CmpMode.EQ, 1.0), ()),
    ("tcmps_i32_gt", "TCMPS i32 GT scalar", "compare+pack", _tcmps(np.int32, int32_t, CmpMode.GT, 0), ()),
    ("tcmps_f32_tile", "TCMPS f32 GT tile", "compare+pack",
     _tcmps(np.float32, float, CmpMode.GT, 0.0, tile_form=True), ()),
    ("tgather_index_f32", "TGATHER idx f32/i32 +tmp", "take", _tgather_index(True), ()),
    ("tgather_index_f32_3arg", "TGATHER idx f32/i32 3-arg", "take", _tgather_index(False), ("a5", "cpu")),
    ("tgather_mask_row", "TGATHER mask P0101 row", "strided copy", tgather_mask_row, ()),
    ("tgather_mask_col", "TGATHER mask P0101 col", "strided copy", tgather_mask_col, ()),
    ("tgather_cmp_f32", "TGATHER cmp f32 GT", "cmp+nonzero", tgather_cmp_f32, ()),
]


# --- vector instructions (records) ~ the NumPy ufunc on the same storage ---------------------------------------
def _pair(n: int) -> tuple[Tile, Tile, Tile, np.ndarray, np.ndarray, np.ndarray]:
    a, b, d = _vec(float, n, n), _vec(float, n, n), _vec(float, n, n)
    a.set_logical(_random_f32(n))
    b.set_logical(np.abs(_random_f32(n)) + 0.5)
    return a, b, d, a.storage, b.storage, d.storage


def tadd_f32(target: str, n: int) -> Bench:
    a, b, d, x, y, out = _pair(n)
    return Bench(bind(ptoisa.TADD, d, a, b), bind(np.add, x, y, out))


def tmuls_f32(target: str, n: int) -> Bench:
    a, _, d, x, _, out = _pair(n)
    factor = np.float32(0.5)
    return Bench(bind(ptoisa.TMULS, d, a, 0.5), bind(np.multiply, x, factor, out))


def texp_f32(target: str, n: int) -> Bench:
    a, _, d, x, _, out = _pair(n)
    return Bench(bind(ptoisa.TEXP, d, a), bind(np.exp, x, out),
                 note="ptoisa rounds exp from double (the simulator's std::exp); the floor is float exp")


def texp_f32_exact(target: str, n: int) -> Bench:
    """TEXP next to the cheapest NumPy route to the simulator's bits: widen to double, exp, round to float."""
    a, _, d, x, _, out = _pair(n)
    wide, exp = np.empty(x.shape, np.float64), np.exp

    def floor() -> None:  # plain assignments: copyto's keyword handling cost ~0.4 us at 16x16
        wide[...] = x
        exp(wide, wide)
        out[...] = wide

    return Bench(bind(ptoisa.TEXP, d, a), floor,
                 note="exact floor: the same bits as the simulator (exp in double, rounded once to float)")


def tcvt_f32_f16(target: str, n: int) -> Bench:
    a, _, _, x, _, _ = _pair(n)
    d = _vec(half, n, n)
    out = d.storage
    return Bench(bind(ptoisa.TCVT, d, a, ptoisa.RoundMode.CAST_RINT),
                 assign(out, x))  # out[...] = x: NumPy's float32 -> float16 cast (RINT)


def trowsum_f32(target: str, n: int) -> Bench:
    a, _, tmp, x, _, _ = _pair(n)
    d = _place(Tile[TileType.Vec, float, n, 1, BLayout.ColMajor]())
    out = d.storage
    grid = x.reshape(n, n)
    reduce = np.add.reduce
    return Bench(bind(ptoisa.TROWSUM, d, a, tmp), lambda: reduce(grid, axis=1, out=out),
                 note="ptoisa sums in order (sequential rounding); the floor is NumPy's pairwise sum")


def rowsum_inorder(grid: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """In-order sums of the rows of the n x n `grid` into `out` (n): the rows turned into columns by a transposed
    copy into a scratch, then one reduce over the outer axis, which NumPy does in order, one float rounding per
    step. Up to 64x64 the copy is one assignment; larger, it goes in slabs of 32 rows (cache-friendly; one
    assignment was 1.7x slower at 256x256), each slab's views made here, once."""
    n = grid.shape[0]
    turned = np.empty((n, n), np.float32)
    reduce = np.add.reduce
    if n <= 64:
        across = grid.T

        def floor() -> None:
            turned[...] = across
            reduce(turned, axis=0, out=out)
        return floor
    slabs = [(turned[:, r:r + 32], grid[r:r + 32, :].T) for r in range(0, n, 32)]

    def floor_slabs() -> None:
        for into, rows in slabs:
            into[...] = rows
        reduce(turned, axis=0, out=out)
    return floor_slabs


def trowsum_f32_exact(target: str, n: int) -> Bench:
    """TROWSUM next to the cheapest NumPy route we know to in-order row sums (`rowsum_inorder`)."""
    a, _, tmp, x, _, _ = _pair(n)
    d = _place(Tile[TileType.Vec, float, n, 1, BLayout.ColMajor]())
    return Bench(bind(ptoisa.TROWSUM, d, a, tmp), rowsum_inorder(x.reshape(n, n), d.storage),
                 note="exact floor: in-order sums (transposed copy, " + ("one assignment" if n <= 64 else
                                                                        "in slabs of 32 rows") +
                      ", then a reduce over the outer axis)")


def trowexpandmul_f32(target: str, n: int) -> Bench:
    a, _, d, x, _, out = _pair(n)
    v = _place(Tile[TileType.Vec, float, n, 1, BLayout.ColMajor]())
    v.set_logical(np.arange(n, dtype=np.float32)[:, None])
    column, block = v.storage.reshape(n, 1), np.empty((n, n), np.float32)
    flat_block, multiply = block.reshape(-1), np.multiply

    def floor() -> None:  # the column spread into an n x n scratch, then a flat multiply: faster than a broadcast
        block[...] = column
        multiply(x, flat_block, out)

    return Bench(bind(ptoisa.TROWEXPANDMUL, d, a, v), floor,
                 note="floor: the column spread into a block, then a flat multiply")


def _matmul_tiles(n: int) -> tuple[Any, Any, Any, np.ndarray, np.ndarray]:
    """Left and Right half tiles holding random values x and y (n x n) and the float Acc tile of their product."""
    a = _place(Tile[TileType.Left, half, n, n, BLayout.ColMajor, n, n, SLayout.RowMajor]())
    b = _place(Tile[TileType.Right, half, n, n, BLayout.RowMajor, n, n, SLayout.ColMajor]())
    c = _place(Tile[TileType.Acc, float, n, n, BLayout.ColMajor, n, n, SLayout.RowMajor, 1024]())
    x, y = _random_f32(n).astype(np.float16), _random_f32(n).astype(np.float16)
    a.set_logical(x)
    b.set_logical(y)
    return a, b, c, x, y


def tmatmul_f16(target: str, n: int) -> Bench:
    """Left x Right -> Acc (half in, float out) next to NumPy's float32 matmul of the same values (BLAS: a
    different order of additions; ptoisa sums over k in order, one float rounding per step, as the simulator)."""
    a, b, c, x, y = _matmul_tiles(n)
    x32, y32, out = x.astype(np.float32), y.astype(np.float32), np.empty((n, n), np.float32)
    # np.dot, not np.matmul: the same sgemm (the same bytes here), ~0.45 us less per call at 16x16
    return Bench(bind(ptoisa.TMATMUL, c, a, b), bind(np.dot, x32, y32, out),
                 note="ptoisa sums over k in order (the simulator's fma chain); the floor is BLAS sgemm (np.dot)")


def inorder_matmul(at: np.ndarray, b: np.ndarray, products: np.ndarray, total: np.ndarray) -> None:
    """sum_k a[i, k] * b[k, j] in k order from +0.0 into `total` (m, n), one float rounding per step: the
    simulator's bits for inputs whose products are exact in float (half, 8-bit floats). `at` is a transposed
    (k, m), `b` (k, n), both float32; `products` a float32 scratch of (s, m, n) for s k at once (s = k: one
    multiply of every k's outer product, then NumPy's reduce over the outer axis, which adds whole rows in
    order from +0.0; s < k: each k on its own, a multiply and an add). ptoisa's own route (matmul.py
    `_sum_exact_products`) picks the same two forms at these sizes."""
    inorder_matmul_plan(at, b, products, total)()


def inorder_matmul_plan(at: np.ndarray, b: np.ndarray, products: np.ndarray, total: np.ndarray) -> Callable[[], None]:
    """`inorder_matmul` as a zero-argument call, its views (the broadcast operands, each k's row and column,
    the flat products and total) made here, once, and NumPy called with positional outs."""
    k, m, n = at.shape[0], at.shape[1], b.shape[1]
    multiply, add = np.multiply, np.add
    if products.shape[0] >= k:
        lhs, rhs, every = at[:, :, None], b[:, None, :], products[:k]
        rows, flat_total, reduce = every.reshape(k, m * n), total.reshape(m * n), np.add.reduce

        def at_once() -> None:
            multiply(lhs, rhs, every)
            reduce(rows, axis=0, out=flat_total)
        return at_once
    step = products[0]
    pairs = [(at[i, :, None], b[i, None, :]) for i in range(k)]

    def per_k() -> None:
        total[...] = 0.0
        for column, row in pairs:
            multiply(column, row, step)
            add(total, step, total)
    return per_k


def inorder_scratch(m: int, k: int, n: int) -> np.ndarray:
    """`inorder_matmul`'s products scratch: all k at once while that is at most 2**18 floats (1 MB), else one k."""
    return np.empty((k if k * m * n <= 1 << 18 else 1, m, n), np.float32)


def fractal_rows(storage: np.ndarray, n: int) -> np.ndarray:
    """An n x n Acc tile's storage (BLayout ColMajor of 16 x 16 row-major fractals) as a writable (nb, 16, nb, 16)
    view: element [bi, r, bj, c] is logical [16 bi + r, 16 bj + c]."""
    nb = n // 16
    return storage.reshape(nb, nb, 16, 16).transpose(1, 2, 0, 3)


def tmatmul_f16_exact(target: str, n: int) -> Bench:
    """TMATMUL next to the cheapest NumPy route we know to the simulator's bits for half inputs (`inorder_matmul`,
    then the result written into the Acc tile's fractals, as ptoisa writes it)."""
    a, b, c, x, y = _matmul_tiles(n)
    at, y32 = np.ascontiguousarray(x.astype(np.float32).T), y.astype(np.float32)
    products, total = inorder_scratch(n, n, n), np.empty((n, n), np.float32)
    into = fractal_rows(c.storage, n)
    grid = total.reshape(n // 16, 16, n // 16, 16)
    inorder = inorder_matmul_plan(at, y32, products, total)

    def floor() -> None:
        inorder()
        into[...] = grid

    return Bench(bind(ptoisa.TMATMUL, c, a, b), floor,
                 note="exact floor: in-order k sums (products per k at once, a reduce over the outer axis; one "
                      "multiply and add per k past 1 MB of products), written into the Acc fractals")


_SPECS += [
    ("tadd_f32", "TADD f32", "add", tadd_f32, ()),
    ("tmuls_f32", "TMULS f32", "multiply scalar", tmuls_f32, ()),
    ("texp_f32", "TEXP f32", "exp (float)", texp_f32, ()),
    ("texp_f32_exact", "TEXP f32", "exp exact (double)", texp_f32_exact, ()),
    ("tcvt_f32_f16", "TCVT f32->f16 RINT", "cast assign", tcvt_f32_f16, ()),
    ("trowsum_f32", "TROWSUM f32", "sum axis 1", trowsum_f32, ()),
    ("trowsum_f32_exact", "TROWSUM f32", "sum in order", trowsum_f32_exact, ()),
    ("trowexpandmul_f32", "TROWEXPANDMUL f32", "spread+multiply", trowexpandmul_f32, ()),
    ("tmatmul_f16", "TMATMUL f16->f32", "dot (BLAS)", tmatmul_f16, ()),
    ("tmatmul_f16_exact", "TMATMUL f16->f32", "k sum in order", tmatmul_f16_exact, ()),
]


def all_cases(target: str) -> list[Case]:
    """Every case that exists on `target`, small sizes first within each instruction."""
    cases = []
    for key, label, floor_label, build, only in _SPECS:
        if only and target not in only:
            continue
        for n in (SMALL, LARGE):
            cases.append(Case(key, label, floor_label, n, build))
    for cols in (16, 65536):
        cases.append(Case("tci_i32", "TCI i32", "ramp + start", cols, tci_i32))
    return cases
