"""A2/A3 (Ascend 910B/910C class) profile: seed-page legality, include/pto/npu/a2a3 behaviour."""

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
    regions={"UB": 192 * KIB, "L1": 512 * KIB, "L0A": 64 * KIB, "L0B": 64 * KIB, "L0C": 128 * KIB,
             "BT": 1 * KIB, "FB": 7 * KIB, "L0A_MX": 4 * KIB, "L0B_MX": 4 * KIB},
    region_of=NPU_REGION_OF,
    alignment=32,
)

PROFILE = TargetProfile(
    target=Target.A2A3,
    description="Ascend A2/A3 NPU (include/pto/npu/a2a3): uint8 predicates, 8 per byte",
    memory=MEMORY,
    tcmps=TCmpsRules(
        src_dtypes=(D.I32, D.F32, D.F16, D.U16, D.I16),
        dst_dtypes=(D.U8, D.I8),  # DECISIONS 19: the bits go through a byte pointer whatever dst's 8-bit type
        locs=VEC_ONLY,
        row_major=("src0", "dst"),
        packing="a2a3_rows",
        bits_per_dst_byte_only=False,
        int32_eq_only=True,
    ),
    tci=TCIRules(
        dtypes=(D.I32, D.U32, D.I16, D.U16),
        tmp="checked",
        tmp_dtypes=(D.F32, D.I32, D.U32),
        tmp_min_bytes={4: 768, 2: 1792},
        # a2a3/TCI.hpp:60, 111, 151, 209 take tmp as `float*`, and line 278 instantiates TMULS (int16/int32/half/
        # float only, a2a3/TMulS.hpp:52-56) for every 16-bit dst: only int32/int16 dst with a float tmp compile.
        tmp_compiles=((D.I32, D.I16), (D.F32,)),
    ),
    tpartmul=TPartMulRules(dtypes=(D.I32, D.I16, D.F16, D.F32), row_major=("dst", "src0", "src1"),
                           neither_valid="a2a3"),
    texpands=TExpandsRules(locs=frozenset({TileType.Vec, TileType.Mat}), dtypes=NINE, mat_blocks=(1, 32767),
                           conv_layouts=CONV_LAYOUTS),
    tgather_index=TGatherIndexRules(
        dst_dtypes=(D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32),
        idx_dtypes=(D.I32, D.U32),
        tmp="required",
        tmp_matches_idx=True,
        dst_full_cols=True,
        idx_full_cols=False,
        out_of_range="undefined",
        unsigned_indices=True,
    ),
    tgather_mask=TGatherMaskRules(dtypes=(D.I16, D.U16, D.I32, D.U32, D.F16, D.BF16, D.F32),
                                  col_dst_full_cols=True, col_dst_static_rows=False),
    tgather_cmp=TGatherCmpRules(
        dst_dtypes=(D.I32, D.U32),
        src_dtypes=(D.F32, D.F16, D.I32),
        k_dtypes=(D.I32, D.U32, D.U16),
        eq_only_src_dtypes=(D.I32,),
        modes=(CmpMode.GT, CmpMode.EQ),
        tmp="required",
        k16_src_dtypes=(D.F16,),  # DECISIONS 24: the backend's own half tests pass a uint16 k
    ),
    errata={
        "tpartarg_ties_src0": "TPARTARGMAX and TPARTARGMIN take src0's value and index where the two values are "
                              "equal (the page and the simulator take src1's)",
        "tfillpad_expand_dst_valid_rows": "TFILLPAD, TFILLPAD_INPLACE and TFILLPAD_EXPAND pad the rows below src's "
                                          "valid rows only down to dst's valid rows: dst's rows past its valid "
                                          "rows keep their bytes",
        "tfillpad_expand_src_block_tail": "TFILLPAD, TFILLPAD_INPLACE and TFILLPAD_EXPAND copy whole src rows and "
                                          "pad from the next 32-byte boundary past src's valid columns: when dst's "
                                          "and src's PadValue are equal, the elements between keep src's values "
                                          "instead of the pad",
        "tscatter_col_b8_pairs": "mask TSCATTER (SCATTER_COL) of 8-bit elements copies each src row with 16-bit "
                                 "lanes counting the valid columns: 2 * V bytes of src row i (from i * Cols) land "
                                 "in dst's row, past its valid columns and past the row when 2 * V > Cols",
        "tpairreducesum_pairs_only": "TPAIRREDUCESUM writes only the floor(V / 2) pair sums of each row (vcpadd "
                                     "stores half the elements it loads): a lone last column, the rest of the valid "
                                     "region and everything outside it keep their bytes instead of the contract's 0",
        "tmatmul_acc_ignores_cin": NPU_ERRATA["tmatmul_acc_ignores_cin"],
        "tmatmul_m1_sixteen_rows": "TMATMUL, TMATMUL_ACC and TMATMUL_BIAS with one valid row in A (m = 1) run the "
                                   "cube with m = 16 (to keep it out of its GEMV mode): C rows 1..15 receive A's "
                                   "storage rows 1..15 (whatever lies there) times B over the same k and n, added "
                                   "to C's own values for TMATMUL_ACC and plus the bias for TMATMUL_BIAS",
        "tgather_cmp_raw_rows": "comparison TGATHER reads src0 row i and writes dst row i at i * Cols whatever "
                                "their layout: a col-major or boxed src0 or dst is treated as plain row-major",
        "tpartmul_boxed_raw_rows": "TPARTMUL steps every operand's rows by its RowStride: boxed row-major tiles "
                                   "(ZZ/ZN) are read and written as plain row-major storage",
        "tgather_mask_boxed_raw_rows": "mask TGATHER (GATHER_ROW) reads src row i at i * Cols of its storage: a "
                                       "boxed row-major source is read as plain rows",
        "tcmps_boxed_raw_rows": "TCMPS reads src0 row i at i * Cols of its storage, so a boxed row-major "
                                "source (ZZ/ZN) is compared as plain rows (a2a3/TCmps.hpp:89, 122)",
        "tgather_cmp_bitmap_rows": "comparison TGATHER writes row i's compare bitmap at tmp byte i * tmp Cols, in "
                                   "whole 256-byte source repeats, and keeps its index table right after tmp's "
                                   "Rows * Cols bytes: a tmp whose rows are narrower than a row's bitmap lets rows "
                                   "overwrite each other or the index table (TGather.hpp:182-263)",
        "tgather_index_raw_rows": NPU_ERRATA["tgather_index_raw_rows"],
        "texpands_boxed_plain": "TEXPANDS on a boxed (fractal) Vec tile ignores the boxes: the valid rectangle "
                                "is filled as if the tile were plain row-major (col-major for an N-layout), "
                                "row i at i * Cols (a2a3/TExpandS.hpp)",
        "tpartmul_copy_padding": "TPARTMUL copies the source whose valid region equals dst's as whole rows (same "
                                 "Cols) or 32-byte-rounded rows, so dst columns past its valid ones receive that "
                                 "source's bytes (TPartOp.hpp:15-36)",
        "tgather_col_all_src_rows": NPU_ERRATA["tgather_col_all_src_rows"],
        "tgather_col_offset_u16": NPU_ERRATA["tgather_col_offset_u16"],
        "texpands_conv_whole_blocks": "TEXPANDS on a conv tile writes whole 32-byte blocks only: a shape whose "
                                      "bytes are not a multiple of 32 leaves its last elements unwritten",
        "tgather_index_raw_offset": "index TGATHER reads src0 at the raw element offset of each index (storage "
                                    "order), not at the row-major position mapped through src0's layout",
        "tcmps_int16_as_half": "TCMPS compares int16/uint16 sources as half-precision bit patterns",
        "tcmps_repeat_tail": "TCMPS writes whole 256-byte repeats: bits past the valid columns compare the data "
                             "that follows in src storage, and NE inverts validRow x dst Cols bytes",
        "tci_tmp_descending_negates": "TCI with a tmp tile and descending=1 yields -(S + k) instead of S - k",
        "tci_tmp_overrun": "TCI with a tmp tile, a 32-bit dst and 64 or more valid columns writes scratch up to tmp "
                           "byte 2560 (a vadd with repeat 8), past the 768 bytes tmp must have",
        "texpands_static_valid_contiguous": "TEXPANDS on a Vec tile with a static valid size smaller than the "
                                            "tile fills validRow x validCol elements contiguously",
        "texpands_b8_pairs": "TEXPANDS fills 8-bit tiles as 16-bit pairs: an odd count writes one extra byte",
        "texpands_conv_5d": "TEXPANDS on a conv tile fills the product of the first five dims only",
        "tgather_cmp_k_signed_src_width": "comparison TGATHER reads threshold k[i] from the k tile's storage as a "
                                          "signed integer as wide as the source element (int16 for half)",
    },
    evidence={
        "tpartarg_ties_src0": "include/pto/npu/a2a3/TPartArgOp.hpp:64-75, 225, 251 (vcmp_ge / vcmp_le, then "
                              "vsel of src0 over src1)",
        "tfillpad_expand_dst_valid_rows": "include/pto/npu/a2a3/TFillPad.hpp PadBottomRows (dstValidRow - srcValidRow"
                                          " rows)",
        "tfillpad_expand_src_block_tail": "include/pto/npu/a2a3/TFillPad.hpp TFillPad (vcopy of src Cols, "
                                          "srcValidCol32B, Handle32BAlignedPad only when the PadVals differ)",
        "tscatter_col_b8_pairs": "include/pto/npu/a2a3/TScatter.hpp TScatterMaskImpl (copyType int16_t, "
                                 "set_vector_mask(0, validCol))",
        "tpairreducesum_pairs_only": "include/pto/npu/a2a3/TPairReduceSum.hpp (evenRemain = remainElem & ~1, vcpadd)",
        "tmatmul_acc_ignores_cin": "include/pto/npu/a2a3/TMatmul.hpp:123-134, 169-187",
        "tmatmul_m1_sixteen_rows": "include/pto/npu/a2a3/TMatmul.hpp:47-52, 69-74 (isGemv false: 165-166, "
                                   "178-179, 202-203)",
        "tgather_cmp_raw_rows": "include/pto/npu/a2a3/TGather.hpp:182-263",
        "tpartmul_boxed_raw_rows": "include/pto/npu/a2a3/TPartMul.hpp:54-63, 91-94",
        "tgather_mask_boxed_raw_rows": "include/pto/npu/a2a3/TGather.hpp:130-132",
        "tcmps_int16_as_half": "include/pto/npu/a2a3/TCmps.hpp:60-66",
        "tcmps_repeat_tail": "include/pto/npu/a2a3/TCmps.hpp:84-109",
        "tcmps_boxed_raw_rows": "include/pto/npu/a2a3/TCmps.hpp:89, 122",
        "tci_tmp_descending_negates": "include/pto/npu/a2a3/TCI.hpp:97-101, 139-141, 252-254, 277-279",
        "tci_tmp_overrun": "include/pto/npu/a2a3/TCI.hpp:55-83, 264-269",
        "texpands_static_valid_contiguous": "include/pto/npu/a2a3/TExpandS.hpp:55-65",
        "texpands_b8_pairs": "include/pto/npu/a2a3/TExpandS.hpp:48-51; include/pto/common/utils.hpp:104-111",
        "texpands_conv_5d": "include/pto/npu/a2a3/TExpandS.hpp:162-165",
        "texpands_conv_whole_blocks": "include/pto/npu/a2a3/TExpandS.hpp:124-126",
        "texpands_boxed_plain": "include/pto/npu/a2a3/TExpandS.hpp (RowStride / ColStride addressing of Vec tiles)",
        "tgather_index_raw_offset": "include/pto/npu/a2a3/TGather.hpp:62-68",
        "tgather_index_raw_rows": "include/pto/npu/a2a3/TGather.hpp:62-68",
        "tgather_cmp_k_signed_src_width": "include/pto/npu/a2a3/TGather.hpp:172-181",
        "tgather_cmp_bitmap_rows": "include/pto/npu/a2a3/TGather.hpp:182-263, 272-280",
        "tgather_col_all_src_rows": "include/pto/npu/a2a3/TGather.hpp:123-128, 142",
        "tgather_col_offset_u16": "include/pto/npu/a2a3/TGather.hpp:124-126; include/pto/common/constants.hpp:537-551",
        "tpartmul_copy_padding": "include/pto/npu/a2a3/TPartOp.hpp:15-36, 160-178",
    },
)
