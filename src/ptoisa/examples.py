"""The seed pages' C++ examples, written in ptoisa's Python API almost word for word.

The C++ examples leave their inputs uninitialised; here inputs get small deterministic values so that results can
be read. Run one with `ptoisa example tcmps_auto` (any target: `--target a5`), or call it: each function returns
its tiles by name. The two TGATHER examples are defective in the seed (DECISIONS 13 and 14):
`tgather_auto` (the 3-argument index call) runs on a5 and cpu and is refused on a2a3, and `tgather_manual`
(a 1x16 dst for 128 gathered elements) is refused everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import (
    TCI,
    TCMPS,
    TEXPANDS,
    TGATHER,
    TPARTMUL,
    BLayout,
    CmpMode,
    MaskPattern,
    Tile,
    TileType,
    int32_t,
    uint8_t,
)
from .memory import TASSIGN
from .tile.tile import Tile as TileInstance

Example = Callable[[], dict[str, TileInstance]]
EXAMPLES: dict[str, Example] = {}


def example(fn: Example) -> Example:
    EXAMPLES[fn.__name__] = fn
    return fn


def _ramp(tile: TileInstance, start: float = 0.0, step: float = 1.0) -> TileInstance:
    rows, cols = tile.spec.rows, tile.spec.cols
    tile.set_logical(start + step * np.arange(rows * cols).reshape(rows, cols))
    return tile


# --- TCMPS -------------------------------------------------------------------------------------------------
@example
def tcmps_auto() -> dict[str, TileInstance]:
    """TCMPS GT 0.0 on a 16x16 float ramp into a 16x2 packed mask (auto placement)."""
    SrcT = Tile[TileType.Vec, float, 16, 16]
    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    src = _ramp(SrcT(), -100.0)
    dst = DstT(16, 2)
    TCMPS(dst, src, 0.0, CmpMode.GT)
    return {"src": src, "dst": dst}


@example
def tcmps_manual() -> dict[str, TileInstance]:
    """the same compare with TASSIGN-placed tiles."""
    SrcT = Tile[TileType.Vec, float, 16, 16]
    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    src = SrcT()
    dst = DstT(16, 2)
    TASSIGN(src, 0x1000)
    TASSIGN(dst, 0x2000)
    _ramp(src, -100.0)
    TCMPS(dst, src, 0.0, CmpMode.GT)
    return {"src": src, "dst": dst}


@example
def tcmps_tile() -> dict[str, TileInstance]:
    """tile form: every element compared (GE) with src1[0, 0]."""
    SrcT = Tile[TileType.Vec, float, 16, 16]
    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    src0, src1 = _ramp(SrcT(), -100.0), _ramp(SrcT(), 5.0)
    dst = DstT(16, 2)
    TCMPS(dst, src0, src1, CmpMode.GE)  # every element against src1[0, 0] == 5.0
    return {"src0": src0, "src1": src1, "dst": dst}


# --- TCI ---------------------------------------------------------------------------------------------------
@example
def tci_auto() -> dict[str, TileInstance]:
    """TCI: 0, 1, ..., 15 into a 1x16 int32 tile."""
    TileT = Tile[TileType.Vec, int32_t, 1, 16]
    dst = TileT()
    TCI[TileT, int32_t, 0](dst, 0)
    return {"dst": dst}


@example
def tci_auto_tmp() -> dict[str, TileInstance]:
    """TCI with its float tmp tile (checked on a2a3, ignored elsewhere)."""
    TileT = Tile[TileType.Vec, int32_t, 1, 16]
    TmpT = Tile[TileType.Vec, float, 1, 512]
    dst, tmp = TileT(), TmpT()
    TCI[TileT, TmpT, int32_t, 0](dst, 0, tmp)
    return {"dst": dst}


@example
def tci_manual() -> dict[str, TileInstance]:
    """TCI descending from 100 into a placed tile."""
    TileT = Tile[TileType.Vec, int32_t, 1, 16]
    dst = TileT()
    TASSIGN(dst, 0x1000)
    TCI[TileT, int32_t, 1](dst, 100)
    return {"dst": dst}


@example
def tci_manual_tmp() -> dict[str, TileInstance]:
    """TCI descending with tmp (a2a3 reproduces its -(100 + k) erratum)."""
    TileT = Tile[TileType.Vec, int32_t, 1, 16]
    TmpT = Tile[TileType.Vec, float, 1, 512]
    dst, tmp = TileT(), TmpT()
    TASSIGN(dst, 0x1000)
    TASSIGN(tmp, 0x2000)
    TCI[TileT, TmpT, int32_t, 1](dst, 100, tmp)  # a2a3 reproduces its erratum: -(100 + k)
    return {"dst": dst}


# --- TPARTMUL ----------------------------------------------------------------------------------------------
@example
def tpartmul_auto() -> dict[str, TileInstance]:
    """TPARTMUL of two fully valid 16x16 float tiles."""
    TileT = Tile[TileType.Vec, float, 16, 16]
    src0, src1, dst = _ramp(TileT()), _ramp(TileT(), 1.0, 0.5), TileT()
    TPARTMUL(dst, src0, src1)
    return {"src0": src0, "src1": src1, "dst": dst}


@example
def tpartmul_manual() -> dict[str, TileInstance]:
    """the same product with TASSIGN-placed tiles."""
    TileT = Tile[TileType.Vec, float, 16, 16]
    src0, src1, dst = TileT(), TileT(), TileT()
    TASSIGN(src0, 0x1000)
    TASSIGN(src1, 0x2000)
    TASSIGN(dst, 0x3000)
    _ramp(src0)
    _ramp(src1, 1.0, 0.5)
    TPARTMUL(dst, src0, src1)
    return {"src0": src0, "src1": src1, "dst": dst}


# --- TEXPANDS ----------------------------------------------------------------------------------------------
@example
def texpands_auto() -> dict[str, TileInstance]:
    """TEXPANDS 0.0 over a 16x16 float tile."""
    TileT = Tile[TileType.Vec, float, 16, 16]
    dst = TileT()
    TEXPANDS(dst, 0.0)
    return {"dst": dst}


@example
def texpands_manual() -> dict[str, TileInstance]:
    """the same fill into a placed tile."""
    TileT = Tile[TileType.Vec, float, 16, 16]
    dst = TileT()
    TASSIGN(dst, 0x1000)
    TEXPANDS(dst, 0.0)
    return {"dst": dst}


# --- TGATHER -----------------------------------------------------------------------------------------------
@example
def tgather_auto() -> dict[str, TileInstance]:
    """index TGATHER without tmp, reversing a tile (a5 and cpu only)."""
    SrcT = Tile[TileType.Vec, float, 16, 16]
    IdxT = Tile[TileType.Vec, int32_t, 16, 16]
    DstT = Tile[TileType.Vec, float, 16, 16]
    src0, idx, dst = _ramp(SrcT()), IdxT(), DstT()
    idx.set_logical(255 - np.arange(256).reshape(16, 16))  # reverse the tile
    TGATHER(dst, src0, idx)  # no tmp: accepted where the target ignores it (a5, cpu)
    return {"src0": src0, "idx": idx, "dst": dst}


@example
def tgather_manual() -> dict[str, TileInstance]:
    """mask TGATHER P0101 into a 1x16 dst, which the selection overflows (refused)."""
    SrcT = Tile[TileType.Vec, float, 16, 16]
    DstT = Tile[TileType.Vec, float, 1, 16]
    src, dst = SrcT(), DstT()
    TASSIGN(src, 0x1000)
    TASSIGN(dst, 0x2000)
    _ramp(src)
    TGATHER[DstT, SrcT, MaskPattern.P0101](dst, src)  # 128 selected elements do not fit 16: refused
    return {"src": src, "dst": dst}
