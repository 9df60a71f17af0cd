"""Independent NumPy oracles for TCMPS and TGATHER, written from the seed pages, DECISIONS.md and
reference-facts.md (sections 5 and 9). Nothing here calls a ptoisa kernel: only the plain tile constructors are
used by the tests, and the oracles work on logical NumPy arrays and raw byte buffers.

Conventions:
    * `logical` arrays are (Rows, Cols) arrays of the whole static tile, as `tile.data` returns them.
    * element offsets are computed by `offset(layout, rows, cols, r, c)` (ND: r*Cols + c, DN: c*Rows + r).
"""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import numpy as np

EQ, NE, LT, LE, GT, GE = range(6)  # CmpMode numeric values (reference-facts section 2)
MODE_NAMES = ("EQ", "NE", "LT", "LE", "GT", "GE")


# --- generic helpers ---------------------------------------------------------------------------------------
def offset(layout: str, rows: int, cols: int, r: int, c: int) -> int:
    """Storage index of logical (r, c) for a plain layout (reference-facts 1.5)."""
    return r * cols + c if layout == "ND" else c * rows + r


def pack_lsb(bits: np.ndarray) -> np.ndarray:
    """Pack a 2-D bool array row by row, 8 per byte, LSB first; the row is zero-padded to a multiple of 8."""
    rows, cols = bits.shape
    nbytes = -(-cols // 8)
    out = np.zeros((rows, nbytes), dtype=np.uint8)
    for j in range(cols):
        out[:, j // 8] |= (bits[:, j].astype(np.uint8) << (j % 8)).astype(np.uint8)
    return out


@contextmanager
def no_ptoisa_warnings():
    """Fail if any ptoisa warning is emitted inside the block."""
    from ptoisa import PtoWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    bad = [w for w in caught if issubclass(w.category, PtoWarning)]
    assert not bad, f"unexpected warnings: {[str(w.message) for w in bad]}"


@contextmanager
def recording():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def snapshot(*tiles) -> list[bytes]:
    return [t.tobytes() for t in tiles]


# --- TCMPS -------------------------------------------------------------------------------------------------
def wide(values, is_float: bool) -> np.ndarray:
    return np.asarray(values).astype(np.float64 if is_float else np.int64)


def cmp_exact(a: np.ndarray, b, mode: int) -> np.ndarray:
    """The contract: an exact IEEE / integer comparison (NaN compares false except with NE)."""
    with np.errstate(invalid="ignore"):
        return {EQ: a == b, NE: a != b, LT: a < b, LE: a <= b, GT: a > b, GE: a >= b}[mode]


def cmp_cpu(a: np.ndarray, b, mode: int, tolerance: bool = True) -> np.ndarray:
    """reference-facts 5.1: EQ is |a-b| < 1e-9 in double, NE is NaN or |a-b| > 1e-9; others native."""
    if not tolerance or mode not in (EQ, NE):
        return cmp_exact(a, b, mode)
    a = np.asarray(a, dtype=np.float64)
    b = np.float64(b)
    with np.errstate(invalid="ignore"):
        d = np.abs(a - b)
        if mode == EQ:
            return d < 1e-9
        return np.isnan(a) | bool(np.isnan(b)) | (d > 1e-9)


def half_bits(values, np_int_dtype) -> np.ndarray:
    """Reinterpret 16-bit integers as half-precision floats (the a2a3 int16/uint16 erratum)."""
    return np.ascontiguousarray(np.asarray(values, dtype=np_int_dtype)).view(np.float16).astype(np.float64)


def cmp_a2a3(values, scalar, mode: int, dtype_name: str, errata: bool) -> np.ndarray:
    """a2a3 comparison semantics: int32 non-EQ/NE modes run as EQ (contract); int16/uint16 as half (erratum)."""
    if dtype_name in ("int16", "uint16") and errata:
        npd = np.int16 if dtype_name == "int16" else np.uint16
        a = half_bits(values, npd)
        b = half_bits(np.array([scalar]), npd)[0]
    else:
        is_float = dtype_name in ("float", "half", "bfloat16")
        a = wide(values, is_float)
        b = wide(scalar, is_float)
    if dtype_name == "int32" and mode in (LT, LE, GT, GE):
        mode = EQ
    return cmp_exact(a, b, mode)


def tcmps_a2a3(dst_bytes: bytes, dst_rows: int, dst_cols: int, src_logical: np.ndarray, src_vr: int,
               src_vc: int, scalar, mode: int, dtype_name: str, itemsize: int, errata: bool) -> bytes:
    """Expected dst bytes on a2a3 (uint8 dst, row-major src of static shape src_logical.shape).

    Contract (errata off): row i's ceil(vc/8) packed bytes go to dst bytes [i*dst_cols, ...); nothing else changes.
    Erratum tcmps_repeat_tail (on): each row runs ceil(vc / (256/itemsize)) whole repeats reading src storage from
    i*Cols onwards (0 past the tile, ptoisa's documented modelling choice), with NE done as EQ followed by
    inverting the first vr*dst_cols bytes.
    """
    out = np.frombuffer(dst_bytes, dtype=np.uint8).copy()
    rows, cols = src_logical.shape
    flat_src = src_logical.reshape(-1)
    if not errata:
        bits = cmp_a2a3(src_logical[:src_vr, :src_vc], scalar, mode, dtype_name, errata=False)
        packed = pack_lsb(bits)
        for i in range(src_vr):
            out[i * dst_cols:i * dst_cols + packed.shape[1]] = packed[i]
        return out.tobytes()
    per_rep = 256 // itemsize
    width = -(-src_vc // per_rep) * per_rep
    hw_mode = EQ if mode == NE else mode
    bits = np.zeros((src_vr, width), dtype=bool)
    flat = np.arange(src_vr)[:, None] * cols + np.arange(width)[None, :]
    inside = flat < rows * cols
    bits[inside] = cmp_a2a3(flat_src[flat[inside]], scalar, hw_mode, dtype_name, errata=True)
    packed = pack_lsb(bits)
    for i in range(src_vr):
        start = i * dst_cols
        end = min(start + packed.shape[1], out.size)
        out[start:end] = packed[i, :end - start]
    if mode == NE:
        out[:src_vr * dst_cols] = ~out[:src_vr * dst_cols]
    return out.tobytes()


def tcmps_a5(dst_bytes: bytes, dst_pitch_bytes: int, src_logical: np.ndarray, src_vr: int, src_vc: int,
             scalar, mode: int, is_float: bool, itemsize: int, errata: bool = True) -> bytes:
    """Expected dst bytes on a5: row i -> dst bytes [i*pitch, ...), zero bits past the valid columns, in whole
    128-element chunks (256 for 8-bit sources) with the tcmps_chunk_tail erratum, else ceil(vc/8) bytes; the
    rest of dst is untouched. Exact comparison."""
    out = np.frombuffer(dst_bytes, dtype=np.uint8).copy()
    chunk = (256 if itemsize == 1 else 128) if errata else 8
    width = -(-src_vc // chunk) * chunk
    bits = np.zeros((src_vr, width), dtype=bool)
    bits[:, :src_vc] = cmp_exact(wide(src_logical[:src_vr, :src_vc], is_float), wide(scalar, is_float), mode)
    packed = pack_lsb(bits)
    for i in range(src_vr):
        out[i * dst_pitch_bytes:i * dst_pitch_bytes + packed.shape[1]] = packed[i]
    return out.tobytes()


def tcmps_cpu(dst_np_dtype, dst_layout: str, dst_rows: int, dst_cols: int, dst_vr: int, dst_vc: int,
              src_logical: np.ndarray, src_vr: int, src_vc: int, scalar, mode: int, is_float: bool,
              tolerance: bool = True) -> bytes:
    """Expected dst bytes on cpu (reference-facts 5.1): whole dst zeroed, floor(W/8) bytes per static src row,
    the stream placed row-major over dst's valid shape, one byte value per dst element."""
    h, w = src_logical.shape
    g = np.zeros((h, w), dtype=bool)
    g[:src_vr, :src_vc] = cmp_cpu(wide(src_logical[:src_vr, :src_vc], is_float), wide(scalar, is_float), mode,
                                  tolerance)
    b = w // 8
    stream = pack_lsb(g[:, :b * 8]).reshape(-1) if b else np.zeros(0, dtype=np.uint8)
    out = np.zeros(dst_rows * dst_cols, dtype=dst_np_dtype)
    if dst_vc:
        for c in range(min(stream.size, dst_rows * dst_cols)):
            r, cc = divmod(c, dst_vc)
            if r < dst_vr:
                out[offset(dst_layout, dst_rows, dst_cols, r, cc)] = stream[c]
    return out.tobytes()


# --- TGATHER -----------------------------------------------------------------------------------------------
def gather_index(dst_logical: np.ndarray, dst_vr: int, dst_vc: int, src_logical: np.ndarray,
                 idx_logical: np.ndarray, idx_bits: int, signed: bool, unsigned_read: bool) -> tuple[np.ndarray, list]:
    """DECISIONS 11/12: dst[i, j] = src0.flat_row_major[idx[i, j]]; returns (new dst logical, out-of-range list).
    Out-of-range entries get 0 in the returned array (the cpu behaviour); the list says where they were."""
    out = dst_logical.copy()
    flat = src_logical.reshape(-1)
    bad = []
    for i in range(dst_vr):
        for j in range(dst_vc):
            n = int(idx_logical[i, j])
            if unsigned_read and n < 0:
                n += 1 << idx_bits
            if 0 <= n < flat.size:
                out[i, j] = flat[n]
            else:
                out[i, j] = 0
                bad.append((i, j, n))
    return out, bad


def selected(pattern_value: int, count: int) -> list[int]:
    """MaskPattern value -> selected indices in range(count) (reference-facts section 2)."""
    period, phase = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}[pattern_value]
    return [i for i in range(count) if i % period == phase]


def gather_row_stream(src_logical: np.ndarray, vr: int, vc: int, pattern_value: int) -> np.ndarray:
    cols = selected(pattern_value, vc)
    pieces = [src_logical[r, c] for r in range(vr) for c in cols]
    return np.array(pieces, dtype=src_logical.dtype)


def gather_cmp(src_logical: np.ndarray, vr: int, vc: int, k_values, mode: int, offset_value: int,
               is_float: bool, row_stride: int | None = None, unsigned_bits: int | None = None) -> list[list[int]]:
    """DECISIONS 16: per valid row, the list of offset + i*Cols + j (mod 2**32) with src0[i,j] <mode> k[i].

    `row_stride` replaces Cols (the a5 running counter); `unsigned_bits` compares integers as unsigned values of
    that width (the a5 unsigned compare)."""
    cols = src_logical.shape[1] if row_stride is None else row_stride
    mask = (1 << unsigned_bits) - 1 if unsigned_bits else None
    rows = []
    for i in range(vr):
        k = k_values[i]
        hits = []
        for j in range(vc):
            a = float(src_logical[i, j]) if is_float else int(src_logical[i, j])
            b = float(k) if is_float else int(k)
            if mask is not None:
                a, b = a & mask, b & mask
            ok = (a > b) if mode == GT else (a == b)
            if ok and not (is_float and math.isnan(a)):
                hits.append((offset_value + i * cols + j) % (1 << 32))
        rows.append(hits)
    return rows
