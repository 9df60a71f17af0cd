"""Record types for per-target legality tables and behaviour switches, one record per instruction form.

Each target module (`a2a3.py`, `a5.py`, `cpu.py`) fills these records with data; the instruction modules read
them. `None` in a set-valued field means "the target does not check this".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from ..dtypes import DType
from ..enums import CmpMode
from ..tile.enums import Layout, TileType

DTypes = tuple[DType, ...]
Locs = frozenset[TileType] | None
VEC_ONLY: frozenset[TileType] = frozenset({TileType.Vec})


@dataclass(frozen=True, kw_only=True)
class TCmpsRules:
    """Attributes:
    src_dtypes / dst_dtypes: allowed element types (table order is the message order).
    locs: allowed locations of every operand (None: unchecked).
    row_major: operand roles that must be row-major.
    packing: how the predicate bits land in dst:
        "cpu_stream": the reference CPU byte stream (floor(src Cols/8) bytes per static src row, reflowed over
            dst's valid shape, one byte per dst element, dst zeroed first);
        "a2a3_rows": src row i -> dst row i, 256-byte repeats, LSB first;
        "a5_rows": src row i -> dst row i, 128-element (256 for 8-bit) chunks, zero tail bits.
    bits_per_dst_byte_only: each dst element holds one byte of predicates whatever its width (cpu).
    int32_eq_only: int32 sources compare LT/LE/GT/GE as EQ (documented fallback).
    """

    src_dtypes: DTypes
    dst_dtypes: DTypes
    locs: Locs
    row_major: tuple[str, ...]
    packing: Literal["cpu_stream", "a2a3_rows", "a5_rows"]
    bits_per_dst_byte_only: bool
    int32_eq_only: bool = False


@dataclass(frozen=True, kw_only=True)
class TCIRules:
    """Attributes:
    dtypes: allowed dst / start types.
    tmp: "checked" validates the tmp tile (dtype, byte size), "ignored" accepts any tile.
    tmp_dtypes: allowed tmp types when checked.
    tmp_min_bytes: minimum tmp size in bytes, keyed by the dst element size.
    tmp_compiles: (dst dtypes, tmp dtypes) for which the backend's tmp overload compiles at all, or None when
        it compiles for every checked combination (DECISIONS 22: anything else is refused).
    """

    dtypes: DTypes
    tmp: Literal["checked", "ignored"]
    tmp_dtypes: DTypes = ()
    tmp_min_bytes: dict[int, int] = field(default_factory=dict)
    tmp_compiles: tuple[DTypes, DTypes] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tmp_min_bytes", MappingProxyType(dict(self.tmp_min_bytes)))


@dataclass(frozen=True, kw_only=True)
class TPartMulRules:
    """Attributes:
    dtypes: allowed element type (all three operands share it).
    row_major: operand roles that must be row-major.
    neither_valid: what the target writes, under undefined-behaviour emulation, for an unsupported pattern:
        "cpu" (0 where neither source is valid), "a2a3" (nothing unless one source equals dst), "a5" (copies the
        bigger source's data).
    """

    dtypes: DTypes
    row_major: tuple[str, ...]
    neither_valid: Literal["cpu", "a2a3", "a5"]


@dataclass(frozen=True, kw_only=True)
class TExpandsRules:
    """Attributes:
    locs: allowed dst locations (None: any).
    dtypes: allowed dst element types.
    mat_blocks: allowed range of Rows*Cols*sizeof/32 for Mat tiles, or None when unchecked.
    conv_layouts: conv-tile layouts accepted on Mat.
    """

    locs: Locs
    dtypes: DTypes
    mat_blocks: tuple[int, int] | None
    conv_layouts: tuple[Layout, ...]


@dataclass(frozen=True, kw_only=True)
class TGatherIndexRules:
    """Attributes:
    dst_dtypes / idx_dtypes: allowed types (dst and src0 must also be equal).
    tmp: "required" (a2a3) or "optional" (accepted and ignored).
    tmp_matches_idx: the tmp dtype equals the index dtype and tmp's static shape equals the index valid shape.
    dst_full_cols / idx_full_cols: dst (index) valid cols must equal its static Cols.
    out_of_range: "zero" (cpu writes 0) or "undefined".
    unsigned_indices: indices are read as unsigned (negative values are huge).
    """

    dst_dtypes: DTypes
    idx_dtypes: DTypes
    tmp: Literal["required", "optional"]
    tmp_matches_idx: bool
    dst_full_cols: bool
    idx_full_cols: bool
    out_of_range: Literal["zero", "undefined"]
    unsigned_indices: bool
    locs: Locs = None


@dataclass(frozen=True, kw_only=True)
class TGatherMaskRules:
    """Attributes:
    dtypes: allowed src/dst types (they must also have equal sizes).
    col_dst_full_cols: GATHER_COL also requires dst valid cols == dst Cols (the seed's continuity rule, which
        the NPU pages state for the mask form without naming an axis).
    col_dst_static_rows: GATHER_COL requires dst valid rows == dst static Rows (a reference assertion).
    """

    dtypes: DTypes
    col_dst_full_cols: bool
    col_dst_static_rows: bool
    locs: Locs = VEC_ONLY


@dataclass(frozen=True, kw_only=True)
class TGatherCmpRules:
    """Attributes:
    dst_dtypes, src_dtypes, k_dtypes: allowed types.
    eq_only_src_dtypes: source types allowed only with CmpMode.EQ.
    modes: allowed comparison modes.
    tmp: "required" (a2a3: validated scratch) or "optional" (ignored).
    k16_src_dtypes: source types a 16-bit k may go with (None: no such restriction).
    """

    dst_dtypes: DTypes
    src_dtypes: DTypes
    k_dtypes: DTypes
    eq_only_src_dtypes: DTypes
    modes: tuple[CmpMode, ...]
    tmp: Literal["required", "optional"]
    locs: Locs = VEC_ONLY
    k16_src_dtypes: DTypes | None = None


KIB = 1024
# Where each tile location lives on the NPUs (the CPU simulator folds Bias/Scaling/Ctrl into UB).
NPU_REGION_OF: dict[TileType, str] = {
    TileType.Vec: "UB", TileType.Mat: "L1", TileType.Left: "L0A", TileType.Right: "L0B", TileType.Acc: "L0C",
    TileType.Bias: "BT", TileType.Scaling: "FB", TileType.ScaleLeft: "L0A_MX", TileType.ScaleRight: "L0B_MX",
    TileType.Ctrl: "UB",
}
CONV_LAYOUTS = (Layout.NC1HWC0, Layout.NDC1HWC0, Layout.FRACTAL_Z, Layout.FRACTAL_Z_3D)
# The nine standard element types in the seed pages' order.
NINE: DTypes = (DType.U8, DType.I8, DType.U16, DType.I16, DType.U32, DType.I32, DType.F16, DType.BF16, DType.F32)


@dataclass(frozen=True, kw_only=True)
class MemoryRules:
    """On-chip buffers: region name and size in bytes per tile location, and the TASSIGN alignment."""

    regions: dict[str, int]
    region_of: dict[TileType, str]
    alignment: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "regions", MappingProxyType(dict(self.regions)))
        object.__setattr__(self, "region_of", MappingProxyType(dict(self.region_of)))


# Errata both NPU backends share, word for word (their evidence differs and stays with each profile).
NPU_ERRATA: dict[str, str] = {
    "tmatmul_acc_ignores_cin": (
        "the accumulate forms (TMATMUL_ACC, TGEMV_ACC and the MX ones given a cInMatrix) add the product to "
        "cOutMatrix's own contents: cInMatrix is never read (the C++ default is cIn = cOut)"
    ),
    "tgather_col_all_src_rows": (
        "mask TGATHER with GATHER_COL loops over all of src's valid rows, not the selected ones: dst rows from the "
        "selected count up to src's valid rows get the rows that follow the selection (past src: the bytes after "
        "it), written past dst's valid rows and, for an exact-size dst, past its storage"),
    "tgather_col_offset_u16": (
        "mask TGATHER with GATHER_COL holds the source row offset in a uint16_t, so a source element offset of 65536 "
        "or more wraps"),
    "tgather_index_raw_rows": (
        "index TGATHER reads index row i and writes dst row i at i * Cols whatever their layout: a col-major or "
        "boxed dst or index tile is treated as plain row-major"),
}
