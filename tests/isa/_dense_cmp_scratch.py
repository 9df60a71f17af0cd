"""The A2/A3 comparison gather's tmp scratch (erratum tgather_cmp_bitmap_rows) as ptoisa computed it before the
sparse scratch: one dense window of every byte from tmp's first to the last the kernel writes (megabytes for a
one-row tmp, whose bitmap rows lie tmp Cols bytes apart). Kept as the reference the sparse scratch is held to
(`ROWS_AT_ONCE = False`: the row-by-row loops)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ptoisa._quiet import quiet
from ptoisa.isa.enums import CmpMode
from ptoisa.isa.tgather import _slot_numbers, final_bytes
from ptoisa.memory import spill, window
from ptoisa.targets import Config
from ptoisa.tile.tile import Tile

ROWS_AT_ONCE = True


def dense_cmp_scratch(config: Config, dst: Tile, src0: Tile, k_tile: Tile, cdst: Tile, tmp: Tile, offset: int,
                      mode: CmpMode) -> tuple[bytes, Any]:
    """The A2/A3 comparison gather as its kernel runs it (a2a3/TGather.hpp:160-300), byte by byte in tmp:

    * an index table of offset + n for every element n of src0's static Rows x Cols, at tmp byte Rows * Cols of
      tmp (tmp's elements counted as bytes);
    * the thresholds after it: k read at the source's width as a signed integer and converted (vconv, whole
      256-byte repeats for float and half);
    * row i's compare bitmap at tmp byte i * tmp Cols, covering whole 256-byte repeats of src0 row i (read at
      i * src0 Cols; bytes past the valid columns are compared too);
    * then, per row, the indices whose bits are set among the first validCol, packed into dst row i (at
      i * dst Cols), and their count into cdst[i].

    Bytes past tmp's storage (index table, thresholds, bitmap overrun) go into tmp's on-chip buffer when tmp is
    placed with TASSIGN; src0 and k are read past their storage the same way (0 when not placed). Nothing is
    written here: returns dst's and cdst's would-be bytes and a function that commits every write."""
    sspec, item = src0.spec, src0.spec.dtype.itemsize
    tin = sspec.np_dtype
    vr, vc = src0.valid_shape
    tmp_rows, tmp_cols = tmp.spec.rows, tmp.spec.cols
    index_at = tmp_rows * tmp_cols
    cvt_at = index_at + sspec.numel * 4
    per_repeat = 256 // item
    nrep = -(-vc // per_repeat)
    k_item = k_tile.spec.dtype.itemsize
    k_repeats = -(-vr // (256 // k_item))
    if tin == np.int32:
        count = sspec.rows
        thresholds = window(k_tile, count * k_item).view(k_tile.spec.np_dtype).astype(np.int64).astype(np.int32)
    elif config.erratum("tgather_cmp_k_signed_src_width"):
        count = k_repeats * per_repeat
        signed = np.dtype(f"<i{item}")
        thresholds = window(k_tile, count * item).view(signed).astype(tin)
    else:  # k converted from its own type (the contract's reading), with the same repeat-wide writes
        count = k_repeats * per_repeat
        with quiet():
            thresholds = window(k_tile, count * k_item).view(k_tile.spec.np_dtype).astype(tin)
    bitmap_end = (vr - 1) * tmp_cols + nrep * per_repeat // 8 if vr else 0
    total = max(cvt_at + count * item, bitmap_end, tmp.spec.nbytes)
    scratch = window(tmp, total)
    # which scratch bytes were written matters only for a tmp placed with TASSIGN (they reach its buffer)
    written = np.zeros(total, dtype=bool) if tmp.binding is not None else None

    def put(at: int, data: np.ndarray) -> None:
        raw = data.view(np.uint8).reshape(-1)
        scratch[at:at + raw.size] = raw
        if written is not None:
            written[at:at + raw.size] = True

    put(index_at, ((offset + np.arange(sspec.numel, dtype=np.int64)) & 0xFFFFFFFF).astype(np.uint32))
    put(cvt_at, thresholds)
    src_end = ((vr - 1) * sspec.cols + nrep * per_repeat) * item if vr else 0
    source = window(src0, src_end).view(tin)
    op = np.greater if mode is CmpMode.GT else np.equal
    chunk = 255 * per_repeat  # TCMPS_REPEAT_MAX repeats per compare instruction
    starts = list(range(0, nrep * per_repeat, chunk))
    if len(starts) == 1 and vr and ROWS_AT_ONCE:
        _bitmaps_at_once(scratch, written, source, op, vr, sspec.cols, nrep * per_repeat, tmp_cols, cvt_at, tin)
    else:
        for start in starts:  # the backend runs each chunk over every row before the next chunk
            stop = min(start + chunk, nrep * per_repeat)
            for i in range(vr):
                k = scratch[cvt_at + i * item:cvt_at + (i + 1) * item].view(tin)[0]
                seg = source[i * sspec.cols + start:i * sspec.cols + stop]
                with quiet():
                    bits = np.packbits(op(seg, k), bitorder="little")
                put(i * tmp_cols + start // 8, bits)
    out = window(dst, max(dst.spec.nbytes, ((vr - 1) * dst.spec.cols + vc) * 4 if vr else 0)).view(np.uint32)
    dst_written = np.zeros(out.size * 4, dtype=bool)
    counts = np.zeros(vr, dtype=np.int64)
    dcols = dst.spec.cols
    if vr and vc and ROWS_AT_ONCE:  # every row at once (the loop below where a row overruns dst's row)
        tables = np.ndarray((vr, vc), np.dtype("<u4"), scratch, index_at, (sspec.cols * 4, 4))
        marks = np.ndarray((vr, -(-vc // 8)), np.uint8, scratch, 0, (tmp_cols, 1))  # rows may overlap: read only
        mask = np.unpackbits(marks, axis=1, bitorder="little")[:, :vc].astype(bool)
        counts = mask.sum(axis=1, dtype=np.int64)
        if counts.max() <= dcols:  # rows land apart: row i's picks in dst row i's first counts[i] slots
            slots = _slot_numbers(dcols)[None, :] < counts.astype(_slot_numbers(dcols).dtype)[:, None]
            out[:vr * dcols].reshape(vr, dcols)[slots] = tables[mask]
            dst_written[:vr * dcols * 4].reshape(vr, dcols, 4)[slots] = True
            vr_loop = 0
        else:
            vr_loop = vr
    else:
        vr_loop = vr
    for i in range(vr_loop):
        table = scratch[index_at + i * sspec.cols * 4:index_at + (i * sspec.cols + vc) * 4].view(np.uint32)
        mask = np.unpackbits(scratch[i * tmp_cols:i * tmp_cols + -(-vc // 8)], bitorder="little")[:vc].astype(bool)
        picked = table[mask]
        at = i * dst.spec.cols
        out[at:at + picked.size] = picked
        dst_written[at * 4:(at + picked.size) * 4] = True
        counts[i] = picked.size
    new_cdst = cdst.storage.copy()
    new_cdst[:vr] = counts.astype(cdst.spec.np_dtype)

    def commit() -> None:
        spill(dst, out.view(np.uint8), dst_written)
        cdst.storage[:vr] = new_cdst[:vr]  # `*(cdstPtr + i) = count` for i < srcValidRow only
        if written is None:  # past an unplaced tmp the writes are dropped (as `spill` drops them)
            tmp.storage.view(np.uint8)[:] = scratch[:tmp.spec.nbytes]
        else:
            spill(tmp, scratch, written)

    return final_bytes(dst, cdst, out.view(np.uint32)[:dst.spec.numel], new_cdst, vr), commit





def _bitmaps_at_once(scratch: np.ndarray, written: np.ndarray | None, source: np.ndarray, op: Any, vr: int,
                     cols: int, width: int, stride: int, cvt_at: int, tin: Any) -> None:
    """The A2/A3 compare loop of one chunk (every row's `width` elements, row i's bitmap of nb = width / 8
    bytes written at scratch byte i * stride, its threshold read at cvt_at + i * itemsize), as the row-by-row
    loop leaves scratch, with whole-array NumPy calls.

    The loop's order shows in two ways. A threshold read after an earlier row's bitmap covered its bytes reads
    those bitmap bytes: such rows (found from the shapes: the rows covering a byte p are a run ending at
    p // stride) are computed one by one after the others, their threshold bytes overlaid by the last earlier
    writer's. And where bitmaps overlap (stride < nb), a byte keeps the last row's: byte o of row j survives
    when o < stride or j is the last row."""
    item = np.dtype(tin).itemsize
    nb = width // 8
    k_bytes = scratch[cvt_at:cvt_at + vr * item].reshape(vr, item).copy()  # as the puts left them
    # the last row before row i whose bitmap covers byte p of row i's threshold (-1: none)
    rows_i = np.arange(vr)[:, None]
    p = cvt_at + rows_i * item + np.arange(item)[None, :]
    last = np.minimum(p // stride, rows_i - 1)
    first = -((nb - 1 - p) // stride)  # ceil((p - nb + 1) / stride): the first row reaching p
    writer = np.where((last >= np.maximum(first, 0)) & (last >= 0), last, -1)
    block = np.ndarray((vr, width), tin, source, 0, (cols * item, item))  # row i: its `width` elements
    with quiet():
        k = k_bytes.view(tin)[:, :1]  # (vr, 1): each row's threshold as the puts left it
        bits = np.packbits(op(block, k), axis=1, bitorder="little")  # (vr, nb)
        for i in np.flatnonzero((writer >= 0).any(axis=1)):  # rows whose threshold an earlier bitmap covered
            mine = k_bytes[i].copy()
            for b in np.flatnonzero(writer[i] >= 0):
                j = writer[i, b]
                mine[b] = bits[j, p[i, b] - j * stride]
            bits[i] = np.packbits(op(block[i], mine.view(tin)[0]), bitorder="little")
    offsets = np.arange(nb)[None, :]
    keep = np.broadcast_to((offsets < stride) | (rows_i == vr - 1), (vr, nb))
    at = (rows_i * stride + offsets)[keep]
    scratch[at] = bits[keep]
    if written is not None:
        written[(rows_i * stride + offsets).reshape(-1)] = True
