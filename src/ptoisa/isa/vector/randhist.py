"""Random numbers and radix-sort histograms: TRANDOM and THISTOGRAM (A5 and the CPU simulator; not on A2/A3).

    TRANDOM(dst, key, counter, rounds=10)     a Philox-4x32 counter-based generator: each 128-bit counter, run
                                              through `rounds` (7 or 10) multiply-xor rounds under a 64-bit key,
                                              gives four 32-bit words
    TRANDOM(dst, key0, key1, counter0, counter1, counter2, counter3, rounds=10)
                                              the same with the six words as scalars (PTOAS's `pto.trandom`)
    THISTOGRAM(dst, src, idx, byte)           per src row, the cumulative counts of byte `byte` of its elements
                                              (dst[r, b] = how many have that byte <= b), counting only elements
                                              whose higher bytes equal the filter bytes in idx

TRANDOM's round (include/pto/cpu/TRandom.hpp, include/pto/npu/a5/TRandom.hpp): with m0 = c0 * 0xD2511F53 and
m1 = c2 * 0xCD9E8D57 (64-bit products), the counter becomes (hi(m1) ^ c1 ^ k0, lo(m1), hi(m0) ^ c3 ^ k1, lo(m0))
and the key advances by (0x9E3779B9, 0xBB67AE85). Lane L of a 64-lane repeat starts from counter + L (a 128-bit
sum, word 0 least significant). Where the words go differs by target:

- `cpu`: a row is cut into chunks of 256 columns; in chunk j of row r, lane L runs counter + (r * chunks + j) *
  (Cols / 4) + L and its word w lands in column 256 j + 64 w + L.
- `a5`: lane L of chunk j runs counter + r * D + 64 j + L, where D = 64 (chunks - 1) + ((validCol - 1) % 64 + 1)
  is what the backend adds per row, and its word w lands in column 256 j + 4 L + w (the backend interleaves
  the four words back into generation order before it stores them).

Only the valid region is written. The key and counter are read, never updated.

THISTOGRAM counts within the valid region of src; every row writes 256 uint32 bins (dst needs at least 256
valid columns). A uint16 src histograms BYTE_1 (no filter) or BYTE_0 (counting elements whose BYTE_1 equals
idx[r, 0], one filter byte per row: idx is a 1-column DN tile). A uint32 src histograms BYTE_3 (no filter),
BYTE_2, BYTE_1 or BYTE_0, counting elements whose bytes 3, 2, 1 (those above `byte`) equal idx[0, 0], idx[1, 0],
idx[2, 0] - the same filter for every row. The page calls the bins counts; the simulator, the A5 backend and its
tests store the running (ascending cumulative) sum, and so does ptoisa.

    >>> from ptoisa import *
    >>> src = Tile[TileType.Vec, uint16_t, 1, 16](); src.set_logical([[0x0102] * 10 + [0x0305] * 6])
    >>> idx = Tile[TileType.Vec, uint8_t, 32, 1, BLayout.ColMajor, 1, 1]()
    >>> dst = Tile[TileType.Vec, uint32_t, 1, 256]()
    >>> _ = THISTOGRAM(dst, src, idx, HistByte.BYTE_1, target="cpu")
    >>> dst.data[0, :4].tolist()
    [0, 10, 10, 16]
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from ...dtypes import DType as D
from ...enums import HistByte
from ...structs import TRandomCounter, TRandomKey
from ...tile.enums import BLayout, SLayout
from .._check import Check
from .._scalar import WORD32
from ..record import VEC, Attr, Legality, Plan, Scalars, Tiles, dst, instruction, scalar, src, struct
from ._common import region, store

_NO_A2A3 = "include/pto/npu/a2a3 has no {}.hpp; pto_instr.hpp declares it for A5 and the CPU simulator only"
_M32 = np.uint64(0xFFFFFFFF)
_MUL0, _MUL1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_KEY_ADD0, _KEY_ADD1 = 0x9E3779B9, 0xBB67AE85
LANES = 64  # 256-byte repeat / sizeof(uint32_t)
CHUNK = 4 * LANES  # four repeats per lane's four words


class Rounds(Enum):
    """TRANDOM's `uint16_t Rounds` template argument (`{rounds = 7 : i32}` in text)."""

    R7 = 7
    R10 = 10


# --- TRANDOM ----------------------------------------------------------------------------------------------------
_RANDOM = Legality({"dst": (D.I32, D.U32)}, row_major=("dst",),
                   evidence="include/pto/{cpu,npu/a5}/TRandom.hpp TRANDOM_IMPL static_asserts")
_RANDOM_CPU = Legality({"dst": (D.I32, D.U32)}, row_major=("dst",), locs=None,
                       evidence="include/pto/cpu/TRandom.hpp TRANDOM_IMPL static_asserts")


def philox(counters: np.ndarray, key: tuple[int, int], rounds: int) -> np.ndarray:
    """The generator's rounds on (4, N) counter words (uint64 arrays holding 32-bit values): (4, N) words out."""
    c0, c1, c2, c3 = (counters[i] for i in range(4))
    k0, k1 = key
    for _ in range(rounds):
        m0 = c0 * _MUL0
        m1 = c2 * _MUL1
        c0, c1, c2, c3 = (m1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), m1 & _M32, \
            (m0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), m0 & _M32
        k0, k1 = (k0 + _KEY_ADD0) & 0xFFFFFFFF, (k1 + _KEY_ADD1) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3])


def counters_plus(counter: tuple[int, ...], offsets: np.ndarray) -> np.ndarray:
    """counter + offset as 128-bit sums (word 0 least significant; the carry ripples up, the top one is lost):
    (4, N) uint64 arrays of 32-bit words. Offsets are below 2**32."""
    out = np.empty((4, offsets.size), dtype=np.uint64)
    carry = offsets.astype(np.uint64).ravel()
    for i in range(4):
        total = np.uint64(counter[i]) + carry
        out[i] = total & _M32
        carry = total >> np.uint64(32)
    return out


def random_words(target: str, rows: int, cols: int, stride: int, key: tuple[int, int],
                 counter: tuple[int, ...], rounds: int) -> np.ndarray:
    """The (rows, cols) uint32 words TRANDOM writes into the valid region on `target` (`stride`: dst's Cols)."""
    chunks = -(-cols // CHUNK)
    lane = np.arange(LANES, dtype=np.int64)
    r = np.arange(rows, dtype=np.int64)[:, None, None]
    j = np.arange(chunks, dtype=np.int64)[None, :, None]
    if target == "cpu":
        offsets = (r * chunks + j) * (stride // 4) + lane
    else:
        per_row = LANES * (chunks - 1) + ((cols - 1) % LANES + 1)
        offsets = r * per_row + LANES * j + lane
    words = philox(counters_plus(counter, offsets.ravel()), key, rounds).reshape(4, rows, chunks, LANES)
    if target == "cpu":  # column 256 j + 64 w + L
        laid = words.transpose(1, 2, 0, 3)
    else:  # column 256 j + 4 L + w
        laid = words.transpose(1, 2, 3, 0)
    return laid.reshape(rows, chunks * CHUNK)[:, :cols].astype(np.uint32)


def _trandom(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out = tiles["dst"]
    rows, cols = out.valid_shape
    if rows == 0 or cols == 0:
        return
    if plan.form == 0:
        key, counter = tuple(scalars["key"]), tuple(scalars["counter"])
    else:
        key = (int(scalars["key0"]), int(scalars["key1"]))
        counter = tuple(int(scalars[f"counter{i}"]) for i in range(4))
    target = "cpu" if plan.config.name == "cpu" else "a5"
    words = random_words(target, rows, cols, out.spec.cols, key, counter, plan.attrs["rounds"].value)
    store(out, rows, cols, words.view(out.spec.np_dtype))


_WORDS = tuple(scalar(n, fixed=WORD32) for n in ("key0", "key1", "counter0", "counter1", "counter2", "counter3"))
_RANDOM_FORMS = ((dst(), struct("key", out=False, struct_type=TRandomKey),
                  struct("counter", out=False, struct_type=TRandomCounter)),
                 (dst(), *_WORDS))

TRANDOM = instruction(
    "TRANDOM", operands=_RANDOM_FORMS[0], forms=_RANDOM_FORMS,
    attrs=(Attr("rounds", Rounds, Rounds.R10),),
    legality={"a2a3": Legality({}, unavailable=_NO_A2A3.format("TRandom")), "a5": _RANDOM, "cpu": _RANDOM_CPU},
    family="random",
    summary="fill dst's valid region with Philox-4x32 random words from a key and a 128-bit counter",
)(_trandom)


# --- THISTOGRAM -------------------------------------------------------------------------------------------------
_HIST_TYPES = {"dst": (D.U32,), "src": (D.U16, D.U32), "idx": (D.U8,)}
_HIST_A5 = Legality(_HIST_TYPES, row_major=("dst", "src"),
                    evidence="include/pto/npu/a5/THistogram.hpp THISTOGRAM_IMPL static_asserts")
_HIST_CPU = Legality(_HIST_TYPES, locs=None,
                     evidence="include/pto/cpu/THistogram.hpp (overloads for uint16_t and uint32_t sources)")


def _hist_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> None:
    byte = attrs["byte"]
    if byte is None:
        check.fail("byte", "is missing (HistByte.BYTE_0 ... BYTE_3, the C++ template argument)")
    s, i = specs["src"], specs["idx"]
    if s.dtype is D.U16 and byte.value > 1:
        check.fail("byte", f"{byte.name} is not a byte of a uint16 source (BYTE_0 or BYTE_1)")
    if config.name != "a5":
        return
    if s.dtype is D.U16:
        if i.blayout is not BLayout.ColMajor or i.slayout is not SLayout.NoneBox or i.cols != 1:
            check.fail("idx", f"must be a DN tile with one column for a uint16 source (ColMajor, NoneBox, Cols 1; "
                              f"got {i.layout_name}, {i.cols} columns)")
    elif byte.value < 3:
        want = 3 - byte.value
        if not i.is_row_major:
            check.fail("idx", f"must be row-major for a uint32 source (got {i.layout_name})")
        if i.rows != want:
            check.fail("idx", f"must have exactly {want} rows for {byte.name} (got {i.rows})")
        if i.cols != s.cols:
            check.fail("idx", f"columns {i.cols} must equal src's {s.cols}")


def _hist_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    s, d, i = tiles["src"], tiles["dst"], tiles["idx"]
    byte = plan.attrs["byte"].value
    if d.valid_col < 256:
        check.fail("dst", f"valid columns {d.valid_col} must be at least 256 (one bin per byte value)")
    if d.valid_row != s.valid_row:
        check.fail("dst", f"valid rows {d.valid_row} must equal src's {s.valid_row}")
    if s.spec.dtype is D.U16 and byte == 0 and i.valid_row < s.valid_row:
        check.fail("idx", f"valid rows {i.valid_row} must cover src's {s.valid_row} (one filter byte per row)")
    if s.spec.dtype is D.U32 and byte < 3 and i.valid_row < 3 - byte:
        check.fail("idx", f"valid rows {i.valid_row}: BYTE_{byte} reads {3 - byte} filter rows")


def histogram(values: np.ndarray, byte: int, filters: np.ndarray | None) -> np.ndarray:
    """Cumulative 256-bin counts per row of `values` (uint16 or uint32) for byte `byte`; `filters`: per row, the
    required bytes above `byte` (shape (rows, k), highest byte first), or None."""
    rows, cols = values.shape
    wide = values.astype(np.uint64)
    keep = np.ones((rows, cols), dtype=bool)
    if filters is not None:
        top = values.dtype.itemsize - 1
        for n in range(filters.shape[1]):
            keep &= ((wide >> np.uint64(8 * (top - n))) & np.uint64(0xFF)) == filters[:, n:n + 1].astype(np.uint64)
    bins = ((wide >> np.uint64(8 * byte)) & np.uint64(0xFF)).astype(np.int64)
    flat = (np.arange(rows)[:, None] * 256 + bins)[keep]
    counts = np.bincount(flat, minlength=rows * 256).reshape(rows, 256)
    return np.cumsum(counts, axis=1).astype(np.uint32)


def _thistogram(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    s, d, i = tiles["src"], tiles["dst"], tiles["idx"]
    rows, cols = s.valid_shape
    if rows == 0:
        return
    byte = plan.attrs["byte"].value
    top = s.spec.dtype.itemsize - 1
    filters = None
    if byte < top:
        if s.spec.dtype is D.U16:
            filters = np.array(region(i, rows, 1), dtype=np.uint8).reshape(rows, 1)
        else:
            column = np.array(region(i, top - byte, 1), dtype=np.uint8).reshape(1, top - byte)
            filters = np.broadcast_to(column, (rows, top - byte))
    store(d, rows, 256, histogram(np.array(region(s, rows, cols)), byte, filters))


THISTOGRAM = instruction(
    "THISTOGRAM", operands=(dst(), src("src"), src("idx")),
    attrs=(Attr("byte", HistByte, None),),
    legality={"a2a3": Legality({}, unavailable=_NO_A2A3.format("THistogram")), "a5": _HIST_A5, "cpu": _HIST_CPU},
    static=_hist_static, dynamic=_hist_rule, family="random",
    summary="per src row, the cumulative 256-bin histogram of one byte of its elements, filtered by idx",
)(_thistogram)

__all__ = ["THISTOGRAM", "TRANDOM", "Rounds", "histogram", "philox", "random_words"]
assert VEC
