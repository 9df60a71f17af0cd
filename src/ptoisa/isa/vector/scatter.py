"""Scatters and block gathers: TSCATTER (index and mask forms) and TGATHERB.

    TSCATTER(dst, src, indexes)                   dst = 0 (whole storage); then for every valid (i, j) of indexes,
                                                  in row-major order: element indexes[i, j] of dst's storage
                                                  (a flat storage position) = src[i, j]
    TSCATTER(dst, src, maskPattern, ScatterType)  dst = 0 (whole storage); SCATTER_ROW: dst[i, p*j + k] = src[i, j]
                                                  (p, k: the pattern's period and phase); SCATTER_COL:
                                                  dst[p*i + k, j] = src[i, j]; P1111 is TMOV (nothing zeroed)
    TGATHERB(dst, src, offsets)                   32-byte block c of dst row i = the 32 bytes of src's storage from
                                                  byte offsets[i, c] (offsets read as uint32, flat row-major)

The index form's page writes `dst[idx[i, j], j]`, but every implementation (simulator, A2/A3, A5) takes the index
as a flat element position in dst's storage (`dst.data()[idx]`), and so does ptoisa (principle 5). An index
outside dst's storage is undefined on every target (the simulator writes past the tile): refused, and under
`undefined="emulate"` not modelled. Two indices naming one element: the simulator and A2/A3 loop in row-major
order, so the last one wins (ptoisa too); A5 scatters each row in batches of 256 / index-size lanes, one
`vscatter` a batch, so equal indices in different batches or rows also resolve as the last one, while equal lanes
of one vscatter have no order any source fixes: refused there (emulated as the last one winning). PTOAS spells
only the index form (`pto.tscatter ins(%src, %indexes) outs(%dst)`); the mask form is the C++ API's.

Target deviations (errata, reproduced and announced):
- `cpu` `tscatter_no_zero_init`: the simulator does not zero dst first (the index form writes only the elements
  its indices name, the mask form only dst's valid region).
- `cpu` `tscatter_mask_running_src`: mask SCATTER_ROW reads src as one running stream that wraps at src's static
  Cols, not at its valid columns: when those differ, row i > 0 takes the elements after row i - 1's.
- `a2a3` `tscatter_col_b8_pairs`: mask SCATTER_COL of 8-bit types copies each row as 16-bit lanes, so 2 * V bytes
  of src's row i (past its valid columns, and past the row when 2 * V exceeds Cols) land in dst's row.

TGATHERB reads the offsets as 32-bit words and copies whole 32-byte blocks, validCol * sizeof(dst) / 32 of them
per valid row of dst (the valid columns must fill whole blocks). A block that would read past src's storage is
skipped by the simulator (dst keeps its bytes); on the NPUs (which add the offset to src's on-chip address and
read whatever lies there, and need 32-byte aligned blocks) it is undefined: refused, not modelled under
emulation. A2/A3 gathers 8 blocks (256 bytes) a repeat and its tail repeat is not masked: dst valid rows whose
bytes are not a multiple of 256 are not modelled there.

Sources: include/pto/cpu/TScatter.hpp, TGatherB.hpp; include/pto/npu/{a2a3,a5}/TScatter.hpp, TGatherB.hpp.

    >>> from ptoisa import *
    >>> s = Tile[TileType.Vec, float, 1, 8](); s.set_logical([[1, 2, 3, 4, 5, 6, 7, 8]])
    >>> i = Tile[TileType.Vec, int32_t, 1, 8](); i.set_logical([[7, 6, 5, 4, 3, 2, 1, 0]])
    >>> d = Tile[TileType.Vec, float, 1, 8]()
    >>> _ = TSCATTER(d, s, i, target="a2a3"); d.data[0].tolist()
    [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dtypes import DType as D
from ...enums import MaskPattern, ScatterAxis
from ...errors import NotModelledError
from ...tile.layout import region, write_region
from .._check import Check, commit_variant
from ..record import Attr, Legality, Plan, Scalars, Tiles, dst, instruction, src
from ._common import ALL9, apart, modelled


_NINE = (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)
_IDX = (D.I16, D.U16, D.I32, D.U32)
_INTS = (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32)
_WIDE = tuple(t for t in ALL9 if t.itemsize in (2, 4))


def _not_modelled(plan: Plan, what: str) -> None:
    raise NotModelledError(f"{plan.record.name} on {plan.config.name}: {what}")


# --- TSCATTER --------------------------------------------------------------------------------------------------
def _scatter_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> str | None:
    """The type rules; returns the message of a combination ptoisa does not model (raised when the op runs)."""
    d, s = specs["dst"], specs["src"]
    pattern, axis = attrs["maskPattern"], attrs["ScatterType"]
    if form == 0:
        if pattern is not MaskPattern.P1111 or axis is not ScatterAxis.SCATTER_ROW:
            check.fail(None, "the index form takes no maskPattern or ScatterType")
        i = specs["indexes"]
        check.dtype("indexes", i.dtype, _IDX if config.name != "cpu" else _INTS)
        want = 2 if d.dtype.itemsize == 1 else d.dtype.itemsize
        if config.name != "cpu" and i.dtype.itemsize != want:
            check.fail("indexes", f"dtype {i.dtype.cname} must be {want} bytes wide for a {d.dtype.itemsize}-byte "
                                  "dst (the backends' static_assert)")
        if config.name != "cpu":
            for role, spec in (("src", s), ("indexes", i)):
                if not spec.is_row_major or spec.is_boxed:
                    return (f"{check.instr} on {config.name}: '{role}' is {spec.layout_name}; the backend reads it "
                            "as plain row-major storage (i * Cols + j), which ptoisa does not model")
        return None
    if not d.is_row_major or not s.is_row_major:
        check.fail("dst" if not d.is_row_major else "src", "must be row-major (mask TSCATTER)")
    if config.name == "cpu" and d.dtype.itemsize == 1:
        check.fail("dst", f"dtype {d.dtype.cname} is not supported by the simulator's mask form (its static_assert "
                          "wants a 16- or 32-bit element, P1111 included)")
    if config.name != "cpu" and (d.is_boxed or s.is_boxed):
        return (f"{check.instr} on {config.name}: a boxed tile in mask TSCATTER (the backend steps plain rows) is "
                "not modelled")
    return None


def _scatter_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, s = tiles["dst"], tiles["src"]
    if "indexes" in tiles:
        vr, vc = tiles["indexes"].valid_shape
        if vr > s.spec.rows or vc > s.spec.cols:
            check.fail("indexes", f"valid shape {(vr, vc)} reaches past src's {s.spec.rows} x {s.spec.cols} storage "
                                  "(src is read at every valid index position)")
        return
    pattern, axis = plan.attrs["maskPattern"], plan.attrs["ScatterType"]
    p = pattern.period
    if pattern is MaskPattern.P1111:
        if s.valid_shape != d.valid_shape:
            check.fail("src", f"valid shape {s.valid_shape} must equal dst's {d.valid_shape} (P1111 is TMOV)")
        return
    if axis is ScatterAxis.SCATTER_ROW:
        want = (s.valid_row, s.valid_col * p)
    else:
        want = (s.valid_row * p, s.valid_col)
    if d.valid_shape != want:
        check.fail("dst", f"valid shape {d.valid_shape} must be {want} (src's {s.valid_shape} spread {p} times along "
                          f"{'columns' if axis is ScatterAxis.SCATTER_ROW else 'rows'})")


def _index_positions(plan: Plan, raw: np.ndarray, numel: int) -> np.ndarray:
    """The flat dst positions the indices name, as each target forms them: A5 reads the index words as unsigned
    lanes; the simulator (static_cast<unsigned>) and A2/A3 (a signed index) take a negative index out of range."""
    values = raw.astype(np.int64)
    if plan.config.name == "a5":  # the index words are read as unsigned lanes of their width
        values = raw.view(f"u{raw.dtype.itemsize}").astype(np.int64)
    bad = (values < 0) | (values >= numel)
    if bad.any():
        r, c = map(int, np.argwhere(bad)[0])
        check = Check(plan.record.name, plan.config.name)
        rule = f"element [{r}, {c}] = {raw[r, c]} lies outside dst's {numel} elements"
        if plan.config.undefined != "emulate":
            check.undefined("indexes", rule)
        _not_modelled(plan, rule + ": the write lands outside dst")
    return values.reshape(-1)


def _last_writers(positions: np.ndarray, numel: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct positions written, in increasing order; for each, the index into `positions` of its last
    occurrence): row-major order, the last writer wins. np.maximum.at applies every pair (no sort)."""
    last = np.full(numel, -1, np.int64)
    np.maximum.at(last, positions, np.arange(positions.size))
    written = np.flatnonzero(last >= 0)
    return written, last[written]


def _one_vscatter_apart(plan: Plan, positions: np.ndarray, vr: int, vc: int, index_bytes: int) -> None:
    """A5 scatters each row in batches of 256 / index-size lanes, one `vscatter` a batch, in program order: equal
    indices in different batches or rows resolve as the last one; equal lanes of one vscatter are written in an
    order no source fixes (undefined)."""
    lanes = 256 // index_bytes
    batch = (np.arange(vr)[:, None] * (-(-vc // lanes)) + np.arange(vc)[None, :] // lanes).reshape(-1)
    keys = batch * (int(positions.max()) + 1) + positions
    unique, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        at = int(np.flatnonzero(keys == unique[counts > 1][0])[0])
        Check(plan.record.name, plan.config.name).undefined(
            "indexes", f"element {positions[at]} of dst is named twice in one vscatter (row {at // vc}, lanes of "
                       f"{lanes}): the order of its equal lanes is not fixed by any source")


def _scatter_index(plan: Plan, tiles: Tiles) -> None:
    out, source, idx = tiles["dst"], tiles["src"], tiles["indexes"]
    vr, vc = idx.valid_shape
    raw = np.array(region(idx, vr, vc))
    values = np.array(region(source, vr, vc)).reshape(-1)
    positions = _index_positions(plan, raw, out.spec.rows * out.spec.cols) if vr and vc else np.zeros(0, np.int64)
    written, last = _last_writers(positions, out.spec.rows * out.spec.cols)
    if written.size < positions.size and plan.config.name == "a5" and plan.config.undefined != "emulate":
        _one_vscatter_apart(plan, positions, vr, vc, raw.dtype.itemsize)
    flat = out.storage.reshape(-1) if out.storage.ndim == 1 else None
    if flat is None:
        _not_modelled(plan, "dst is a window of a wider tile; flat scatter positions through it are not modelled")
    contract = np.zeros_like(flat)
    contract[written] = values[last]
    if plan.config.name != "cpu":
        flat[...] = contract
        return
    target = flat.copy()
    target[written] = values[last]
    commit_variant(plan.config, plan.record.name, "tscatter_no_zero_init", flat, contract, target)


def _scatter_mask(plan: Plan, tiles: Tiles) -> None:
    out, source = tiles["dst"], tiles["src"]
    pattern, axis = plan.attrs["maskPattern"], plan.attrs["ScatterType"]
    if pattern is MaskPattern.P1111:  # TMOV: the valid region, nothing else
        vr, vc = source.valid_shape
        write_region(out.storage, out.spec, vr, vc, np.array(region(source, vr, vc)))
        return
    p, k = pattern.period, pattern.phase
    sr, sc = source.valid_shape
    dr, dc = out.valid_shape
    values = np.array(region(source, sr, sc))
    spread = np.zeros((dr, dc), values.dtype)
    if axis is ScatterAxis.SCATTER_ROW:
        spread[:, k::p] = values
    else:
        spread[k::p, :] = values
    contract = np.zeros_like(out.storage)
    write_region(contract, out.spec, dr, dc, spread)
    name = plan.config.name
    if name == "a2a3" and axis is ScatterAxis.SCATTER_COL and out.spec.dtype.itemsize == 1:
        target = _col_b8_pairs(plan, tiles, contract)
        commit_variant(plan.config, plan.record.name, "tscatter_col_b8_pairs", out.storage, contract, target)
        return
    if name != "cpu":
        out.storage[...] = contract
        return
    # the simulator: only dst's valid region is written, from a source stream that wraps at src's Cols
    kept = out.storage.copy()
    write_region(kept, out.spec, dr, dc, spread)
    commit_variant(plan.config, plan.record.name, "tscatter_no_zero_init", out.storage, contract, kept)
    if axis is ScatterAxis.SCATTER_ROW and sr > 1 and sc != source.spec.cols:
        stream = np.array(region(source, source.spec.rows, source.spec.cols)).reshape(-1)[:sr * sc]
        running = spread.copy()
        running[:, k::p] = stream.reshape(sr, sc)
        staged = out.storage.copy()
        write_region(staged, out.spec, dr, dc, running)
        commit_variant(plan.config, plan.record.name, "tscatter_mask_running_src", out.storage, out.storage.copy(),
                       staged)


def _col_b8_pairs(plan: Plan, tiles: Tiles, contract: np.ndarray) -> np.ndarray:
    """A2/A3 SCATTER_COL on 8-bit elements: dst zeroed, then 2 * V bytes of src row i (raw, from i * Cols) copied
    to dst row p*i + k (raw, from its start), rows in order."""
    out, source = tiles["dst"], tiles["src"]
    pattern = plan.attrs["maskPattern"]
    sr, sc = source.valid_shape
    width = 2 * sc
    dst_bytes = np.zeros(out.spec.rows * out.spec.cols, np.uint8)
    src_bytes = source.storage.view(np.uint8).reshape(-1)
    for i in range(sr):
        at, frm = (pattern.period * i + pattern.phase) * out.spec.cols, i * source.spec.cols
        if at + width > dst_bytes.size or frm + width > src_bytes.size:
            _not_modelled(plan, f"8-bit SCATTER_COL copies {width} bytes per row, past the end of "
                                f"{'dst' if at + width > dst_bytes.size else 'src'}")
        dst_bytes[at:at + width] = src_bytes[frm:frm + width]
    return dst_bytes.view(contract.dtype)


def _tscatter(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    modelled(plan)
    apart(plan, tiles)
    if plan.form == 0:
        _scatter_index(plan, tiles)
    else:
        _scatter_mask(plan, tiles)


def _scatter_table(dtypes: tuple[D, ...], evidence: str, locs: Any = "vec") -> Legality:
    extra = {} if locs == "vec" else {"locs": None}
    return Legality({"dst": dtypes, "indexes": _IDX}, same=(("dst", "src"),), evidence=evidence, **extra)


TSCATTER = instruction(
    "TSCATTER", operands=(dst(), src("src"), src("indexes")),
    forms=((dst(), src("src"), src("indexes")), (dst(), src("src"))), api_only=(1,),
    attrs=(Attr("maskPattern", MaskPattern, MaskPattern.P1111), Attr("ScatterType", ScatterAxis,
                                                                     ScatterAxis.SCATTER_ROW)),
    legality={"a2a3": _scatter_table(_NINE, "include/pto/npu/a2a3/TScatter.hpp TSCATTER_IMPL static_asserts"),
              "a5": _scatter_table(_NINE, "include/pto/npu/a5/TScatter.hpp TSCATTER_IMPL static_asserts (64-bit "
                                          "types are outside ptoisa's contract)"),
              "cpu": Legality({"dst": ALL9, "indexes": _INTS}, same=(("dst", "src"),),
                              evidence="include/pto/cpu/TScatter.hpp (any integral index; the mask form's "
                                       "static_asserts: 16/32-bit, Vec, row-major)")},
    static=_scatter_static, dynamic=_scatter_rule, family="scatter",
    summary="dst = 0, then dst's storage element indexes[i, j] = src[i, j] (index form), or src spread by a mask "
            "pattern with zeros between (mask form)",
)(_tscatter)


# --- TGATHERB --------------------------------------------------------------------------------------------------
BLOCK = 32


def _gatherb_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> str | None:
    d = specs["dst"]
    if not d.is_row_major or d.is_boxed:
        if config.name == "a5":  # no static_assert there: it writes rows at i * RowStride whatever the layout
            return f"{check.instr} on a5: a {d.layout_name} dst (written as plain rows) is not modelled"
        check.fail("dst", f"must be plain row-major (got {d.layout_name})")
    return None


def _gatherb_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, off = tiles["dst"], tiles["offsets"]
    vr, vc = d.valid_shape
    size = d.spec.dtype.itemsize
    if vc * size % BLOCK:
        check.fail("dst", f"valid columns ({vc}) of {size}-byte elements must fill whole 32-byte blocks")
    blocks = vc * size // BLOCK
    if vr and blocks and (vr - 1) * off.spec.cols + blocks > off.spec.rows * off.spec.cols:
        check.fail("offsets", f"holds {off.spec.rows * off.spec.cols} offsets; {vr} rows of {blocks} blocks read "
                              f"up to element {(vr - 1) * off.spec.cols + blocks - 1} (offsets[i * Cols + c])")


def _offset_words(off: Any) -> np.ndarray:
    """The offset tile's storage as uint32 words, flat: the simulator converts each element (static_cast), the
    NPUs read the bytes as 32-bit words; for 32-bit offset types both are the element's bits."""
    raw = off.storage.reshape(-1)
    if raw.dtype.itemsize == 4:
        return raw.view(np.uint32)
    return raw.astype(np.int64).astype(np.uint32)


def _tgatherb(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    out, source, off = tiles["dst"], tiles["src"], tiles["offsets"]
    vr, vc = out.valid_shape
    blocks = vc * out.spec.dtype.itemsize // BLOCK
    modelled(plan)
    apart(plan, tiles)
    if plan.config.name == "a2a3" and blocks % 8:
        _not_modelled(plan, f"dst valid rows of {blocks * BLOCK} bytes: the backend's tail repeat gathers 8 blocks "
                            "(256 bytes) a row unmasked, which ptoisa does not model (use multiples of 256 bytes)")
    if not vr or not blocks:
        return
    if out.storage.ndim != 1 or source.storage.ndim != 1:
        _not_modelled(plan, "a window of a wider tile as dst or src (raw byte addressing through it)")
    words = _offset_words(off)
    starts = words[(np.arange(vr) * off.spec.cols)[:, None] + np.arange(blocks)[None, :]].astype(np.int64)
    src_bytes = source.storage.view(np.uint8)
    fits = starts + BLOCK <= src_bytes.size
    check = Check(plan.record.name, plan.config.name)
    if plan.config.name != "cpu":
        bad = ~fits | (starts % BLOCK != 0)
        rule = "reads past src" if not fits.all() else "is not 32-byte aligned"
    else:  # the simulator's bound test adds in 32 bits: an offset within 32 bytes of 2**32 wraps and passes it
        bad = ~fits & ((starts + BLOCK) % (1 << 32) <= src_bytes.size)
        rule = "wraps the simulator's uint32 off + 32, so it reads past src"
    if bad.any():
        i, c = map(int, np.argwhere(bad)[0])
        rule = f"element [{i}, {c}] = {starts[i, c]} {rule} ({src_bytes.size} bytes)"
        if plan.config.undefined != "emulate":
            check.undefined("offsets", rule)
        _not_modelled(plan, rule + ": the block would come from memory outside src")
    row_bytes = out.spec.cols * out.spec.dtype.itemsize
    rows = out.storage.view(np.uint8).reshape(out.spec.rows, row_bytes)[:vr, :blocks * BLOCK]
    gathered = src_bytes[np.where(fits, starts, 0)[:, :, None] + np.arange(BLOCK)]  # (vr, blocks, 32)
    kept = rows.reshape(vr, blocks, BLOCK)  # a block past src's storage is skipped by the simulator
    rows[...] = np.where(fits[:, :, None], gathered, kept).reshape(vr, blocks * BLOCK)


_GB = (D.I8, D.U8, D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32)


def _gatherb_table(offsets: tuple[D, ...], evidence: str, locs: Any = "vec") -> Legality:
    extra = {} if locs == "vec" else {"locs": None}
    return Legality({"dst": _GB, "src": _GB, "offsets": offsets}, evidence=evidence, **extra)


TGATHERB = instruction(
    "TGATHERB", operands=(dst(), src("src"), src("offsets")),
    legality={"a2a3": _gatherb_table((D.U32, D.I32), "include/pto/npu/a2a3/TGatherB.hpp (row-major dst; offsets "
                                                     "read as uint32 words)"),
              "a5": _gatherb_table((D.U32, D.I32), "include/pto/npu/a5/TGatherB.hpp (offsets read as uint32 words)"),
              "cpu": _gatherb_table(_INTS, "include/pto/cpu/TGatherB.hpp (row-major dst; static_cast<uint32_t> of "
                                           "each offset)", locs=None)},
    static=_gatherb_static, dynamic=_gatherb_rule, family="scatter",
    summary="each 32-byte block of dst's valid rows = the 32 bytes of src's storage at a byte offset from offsets",
)(_tgatherb)

__all__ = ["TGATHERB", "TSCATTER"]
