"""A5 (Ascend 950 class) profile: seed-page legality, include/pto/npu/a5 behaviour."""

from __future__ import annotations

from ..dtypes import DType as D
from ..enums import CmpMode
from ..tile.enums import TileType
from .profile import Target, TargetProfile
from .rules import (
    NPU_ERRATA,
    CONV_LAYOUTS,
    KIB,
    NINE,
    NPU_REGION_OF,
    VEC_ONLY,
    MemoryRules,
    TCIRules,
    TCmpsRules,
    TExpandsRules,
    TGatherCmpRules,
    TGatherIndexRules,
    TGatherMaskRules,
    TPartMulRules,
)

MEMORY = MemoryRules(
    regions={"UB": 256 * KIB, "L1": 512 * KIB, "L0A": 64 * KIB, "L0B": 64 * KIB, "L0C": 256 * KIB,
             "BT": 1 * KIB, "FB": 7 * KIB, "L0A_MX": 4 * KIB, "L0B_MX": 4 * KIB},
    region_of=NPU_REGION_OF,
    alignment=32,
)

PROFILE = TargetProfile(
    target=Target.A5,
    description="Ascend A5 NPU (include/pto/npu/a5): predicates packed 32 per uint32 word (uint8 also accepted)",
    memory=MEMORY,
    tcmps=TCmpsRules(
        src_dtypes=(D.I32, D.U32, D.F32, D.I16, D.U16, D.F16, D.U8, D.I8, D.BF16),
        dst_dtypes=(D.U32, D.U8, D.I32, D.I8),  # DECISIONS 19: written as 32-bit words whatever the type
        locs=VEC_ONLY,
        row_major=("src0", "dst"),
        packing="a5_rows",
        bits_per_dst_byte_only=False,
    ),
    tci=TCIRules(dtypes=(D.I32, D.U32, D.I16, D.U16), tmp="ignored"),
    tpartmul=TPartMulRules(dtypes=(D.U8, D.I8, D.U16, D.I16, D.U32, D.I32, D.F16, D.F32, D.BF16),
                           row_major=("dst", "src0", "src1"), neither_valid="a5"),
    texpands=TExpandsRules(locs=frozenset({TileType.Vec, TileType.Mat}), dtypes=NINE, mat_blocks=(1, 32767),
                           conv_layouts=CONV_LAYOUTS),
    tgather_index=TGatherIndexRules(
        dst_dtypes=(D.I16, D.U16, D.I32, D.U32, D.F16, D.F32),
        idx_dtypes=(D.I16, D.U16, D.I32, D.U32),
        tmp="optional",
        tmp_matches_idx=False,
        dst_full_cols=True,
        idx_full_cols=True,
        out_of_range="undefined",
        unsigned_indices=True,
    ),
    tgather_mask=TGatherMaskRules(dtypes=NINE + (D.F8E4M3, D.F8E5M2, D.HIF8), col_dst_full_cols=True,
                                  col_dst_static_rows=False),
    tgather_cmp=TGatherCmpRules(
        dst_dtypes=(D.I32, D.U32),
        src_dtypes=(D.I16, D.U16, D.I32, D.U32, D.F16, D.F32),
        k_dtypes=(D.U16, D.U32),
        eq_only_src_dtypes=(),
        modes=(CmpMode.GT, CmpMode.EQ),
        tmp="optional",
    ),
    errata={
        "tpartarg_ties_src0": "TPARTARGMAX and TPARTARGMIN take src0's value and index where the two values are "
                              "equal (the page and the simulator take src1's)",
        "tfillpad_expand_dst_valid_rows": "TFILLPAD, TFILLPAD_INPLACE and TFILLPAD_EXPAND pad the rows below src's "
                                          "valid rows only down to dst's valid rows: dst's rows past its valid "
                                          "rows keep their bytes",
        "tpairreducesum_pairs_only": "TPAIRREDUCESUM writes only the floor(V / 2) pair sums of each row (vcpadd "
                                     "stores half the elements it loads): a lone last column, the rest of the valid "
                                     "region and everything outside it keep their bytes instead of the contract's 0",
        "tpairreducesum_flat_rows": "TPAIRREDUCESUM with both tiles' valid columns statically their Cols (or both one"
                                    " row high) runs the flat path: every row's pair sums are packed one after the "
                                    "other from dst's first element (row i's at i * V / 2), and nothing else of dst "
                                    "is written",
        "tmatmul_acc_ignores_cin": NPU_ERRATA["tmatmul_acc_ignores_cin"],
        "tgather_cmp_raw_rows": "comparison TGATHER reads src0 row i and writes dst row i at i * Cols whatever "
                                "their layout: a col-major or boxed src0 or dst is treated as plain row-major",
        "tpartmul_boxed_raw_rows": "TPARTMUL steps every operand's rows by its RowStride: boxed row-major tiles "
                                   "(ZZ/ZN) are read and written as plain row-major storage",
        "tgather_mask_boxed_raw_rows": "mask TGATHER (GATHER_ROW) reads src row i at i * Cols of its storage: a "
                                       "boxed row-major source is read as plain rows",
        "texpands_conv_fixed_dims": "TEXPANDS on a conv tile fills the product of a fixed number of dims (5 for "
                                    "NC1HWC0/FRACTAL_Z, 6 for NDC1HWC0/FRACTAL_Z_3D): further dims are not filled, "
                                    "and a tile with fewer dims does not work (the backend reads dims it lacks)",
        "tcmps_boxed_raw_rows": "TCMPS reads src0 row i at i * Cols of its storage, so a boxed row-major "
                                "source (ZZ/ZN) is compared as plain rows (a5/TCmps.hpp:122)",
        "tgather_index_raw_rows": NPU_ERRATA["tgather_index_raw_rows"],
        "texpands_boxed_plain": "TEXPANDS on a boxed (fractal) Vec tile ignores the boxes: the valid rectangle "
                                "is filled as if the tile were plain row-major (col-major for an N-layout), "
                                "row i at i * Cols (a5/TExpandS.hpp:44-57)",
        "tgather_col_all_src_rows": NPU_ERRATA["tgather_col_all_src_rows"],
        "tgather_col_offset_u16": NPU_ERRATA["tgather_col_offset_u16"],
        "texpands_conv_whole_blocks": "TEXPANDS on a conv tile writes whole 32-byte blocks only: a shape whose "
                                      "bytes are not a multiple of 32 leaves its last elements unwritten",
        "tgather_index_b32_idx16": "index TGATHER of 32-bit data with 16-bit indices runs the b32 kernel: each "
                                   "pair of int16 indices is read as one uint32 lane (idx[2k] | idx[2k+1] << 16), "
                                   "ceil(n/2) lanes per 128 indices, stored at dst columns 128j + k "
                                   "(TGather.hpp:38-60, 155)",
        "tgather_index_raw_offset": "index TGATHER reads src0 at the raw element offset of each index (storage "
                                    "order), not at the row-major position mapped through src0's layout",
        "tcmps_chunk_tail": "TCMPS writes whole 128-element (256 for 8-bit) chunks per row: predicate bytes past "
                            "the valid columns are overwritten with 0",
        "tgather_cmp_running_index": "comparison TGATHER numbers elements with a running 64-lane counter: "
                                     "offset + 64 * ceil(validCol / 64) * i + j instead of offset + i * Cols + j",
        "tgather_cmp_half_k_int16": "comparison TGATHER on a half source broadcasts k[i] into an int16 vector "
                                    "(its low 16 bits, signed) and compares in float32, instead of converting k "
                                    "to half (TGather.hpp:683-696, 742-755)",
        "tgather_cmp_u16_gt_as_eq": "comparison TGATHER on a uint16 source with GT runs the EQ kernel (the "
                                    "dispatch sends every 16-bit case but int16 GT to it): it gathers the "
                                    "elements equal to k (TGather.hpp:941-946)",
        "tgather_cmp_unsigned": "comparison TGATHER compares 32-bit and 16-bit integer sources with k as "
                                "unsigned (zero-extended) integers",
    },
    evidence={
        "tpartarg_ties_src0": "include/pto/npu/a5/TPartArgMax.hpp, TPartArgMin.hpp (vcmp_gt / vcmp_lt of src1 "
                              "with src0); TPartArgBinOps.hpp:121-122 (vsel of src1 over src0)",
        "tfillpad_expand_dst_valid_rows": "include/pto/npu/a5/TFillPad.hpp TFillPad (padRows = dstValidRow - "
                                          "srcValidRow)",
        "tpairreducesum_pairs_only": "include/pto/npu/a5/TPairReduceSum.hpp (curStoreCount = curLoadCount >> 1)",
        "tpairreducesum_flat_rows": "include/pto/npu/a5/TPairReduceSum.hpp TPairReduceSum_1D_NoPostUpdate, "
                                    "isContiguous",
        "tmatmul_acc_ignores_cin": "include/pto/npu/a5/TMatmul.hpp:185-205, 240-250, 289-302, 343-355",
        "tgather_cmp_raw_rows": "include/pto/npu/a5/TGather.hpp:350-390, 551-600",
        "tpartmul_boxed_raw_rows": "include/pto/npu/a5/TPartBinOps.hpp:95-131",
        "tgather_mask_boxed_raw_rows": "include/pto/npu/a5/TGather.hpp:263-271",
        "texpands_conv_fixed_dims": "include/pto/npu/a5/TExpandS.hpp:118-140",
        "tcmps_chunk_tail": "include/pto/npu/a5/TCmps.hpp:54-111",
        "tcmps_boxed_raw_rows": "include/pto/npu/a5/TCmps.hpp:122",
        "texpands_conv_whole_blocks": "include/pto/npu/a5/TExpandS.hpp:124-127",
        "texpands_boxed_plain": "include/pto/npu/a5/TExpandS.hpp:44-57",
        "tgather_index_raw_offset": "include/pto/npu/a5/TGather.hpp:56-58",
        "tgather_index_raw_rows": "include/pto/npu/a5/TGather.hpp:52-56",
        "tgather_index_b32_idx16": "include/pto/npu/a5/TGather.hpp:38-60, 155",
        "tgather_cmp_running_index": "include/pto/npu/a5/TGather.hpp:363-390",
        "tgather_cmp_unsigned": "include/pto/npu/a5/TGather.hpp:487, 537, 584-588",
        "tgather_cmp_u16_gt_as_eq": "include/pto/npu/a5/TGather.hpp:941-946",
        "tgather_cmp_half_k_int16": "include/pto/npu/a5/TGather.hpp:683-696, 742-755",
        "tgather_col_all_src_rows": "include/pto/npu/a5/TGather.hpp:240-252, 328",
        "tgather_col_offset_u16": "include/pto/npu/a5/TGather.hpp:241-245; include/pto/common/constants.hpp:537-551",
    },
)
