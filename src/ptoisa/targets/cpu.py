"""The reference C++ CPU simulator (include/pto/cpu, built with -D__CPU_SIM) as a target.

Its static checks are few (it has no dtype list for most instructions, no location or layout checks); ptoisa
applies exactly those, plus the contract's shape rules that docs/decisions.md makes universal. Legal programs the
simulator cannot compile (tile-form TCMPS, TCI with tmp, comparison TGATHER, conv-tile TEXPANDS) run with the
contract's meaning (DECISIONS principle 6).
"""

from __future__ import annotations

from ..dtypes import STANDARD_DTYPES
from ..dtypes import DType as D
from ..enums import CmpMode
from ..tile.enums import TileType
from .profile import Target, TargetProfile
from .rules import (
    CONV_LAYOUTS,
    KIB,
    MemoryRules,
    TCIRules,
    VEC_ONLY,
    TCmpsRules,
    TExpandsRules,
    TGatherCmpRules,
    TGatherIndexRules,
    TGatherMaskRules,
    TPartMulRules,
)

MEMORY = MemoryRules(
    # The simulator raises UB to max(arch size, 512 KiB) (cpu/NPUMemoryModel.hpp).
    regions={"UB": 512 * KIB, "L1": 512 * KIB, "L0A": 64 * KIB, "L0B": 64 * KIB, "L0C": 128 * KIB,
             "L0A_MX": 4 * KIB, "L0B_MX": 4 * KIB},
    region_of={TileType.Vec: "UB", TileType.Mat: "L1", TileType.Left: "L0A", TileType.Right: "L0B",
               TileType.Acc: "L0C", TileType.Bias: "UB", TileType.Scaling: "UB", TileType.ScaleLeft: "L0A_MX",
               TileType.ScaleRight: "L0B_MX", TileType.Ctrl: "UB"},
    alignment=1,
)

PROFILE = TargetProfile(
    target=Target.CPU,
    description="reference C++ CPU simulator (include/pto/cpu): one predicate byte per dst element",
    memory=MEMORY,
    tcmps=TCmpsRules(src_dtypes=STANDARD_DTYPES, dst_dtypes=STANDARD_DTYPES, locs=VEC_ONLY, row_major=(),
                     packing="cpu_stream", bits_per_dst_byte_only=True),
    tci=TCIRules(dtypes=STANDARD_DTYPES, tmp="ignored"),
    tpartmul=TPartMulRules(dtypes=(D.I32, D.I16, D.F16, D.BF16, D.F32, D.I8, D.U8), row_major=(),
                           neither_valid="cpu"),
    texpands=TExpandsRules(locs=None, dtypes=STANDARD_DTYPES, mat_blocks=None,
                           conv_layouts=CONV_LAYOUTS),
    tgather_index=TGatherIndexRules(
        dst_dtypes=STANDARD_DTYPES,
        idx_dtypes=(D.I32, D.U32),
        tmp="optional",
        tmp_matches_idx=False,
        dst_full_cols=False,
        idx_full_cols=False,
        out_of_range="zero",
        unsigned_indices=False,
    ),
    tgather_mask=TGatherMaskRules(dtypes=STANDARD_DTYPES, col_dst_full_cols=False, col_dst_static_rows=True),
    # No CPU implementation exists: the union of the NPU contracts (principle 6).
    tgather_cmp=TGatherCmpRules(
        dst_dtypes=(D.I32, D.U32),
        src_dtypes=(D.F32, D.F16, D.I32, D.U32, D.I16, D.U16),
        k_dtypes=(D.I32, D.U32, D.U16),
        eq_only_src_dtypes=(),
        modes=(CmpMode.GT, CmpMode.EQ),
        tmp="optional",
    ),
    errata={
        "tscatter_no_zero_init": "TSCATTER does not zero dst first: the index form writes only the elements its "
                                 "indices name, the mask form only dst's valid region; every other byte is kept",
        "tscatter_mask_running_src": "mask TSCATTER (SCATTER_ROW) reads src as one running stream that wraps at src's "
                                     "static Cols, not its valid columns: with fewer valid columns than Cols, row i "
                                     "> 0 takes the elements that follow row i - 1's in src's storage rows",
        "tmatmul_bias_valid_region": "the bias forms (TMATMUL_BIAS, TGEMV_BIAS and the MX ones) store the product "
                                     "at M x N, then add bias[0, c] to every element of C's valid region: a "
                                     "product outside it gets no bias, an element inside it but outside M x N "
                                     "gets the bias on its old value, and the bias is read over C's valid cols",
        "tcmps_eq_tolerance": "TCMPS EQ/NE compare |a - b| against 1e-9 in double (inf == inf is false, values "
                              "closer than 1e-9 are equal)",
        "texpands_mat_valid_only": "TEXPANDS on a Mat tile fills only the valid region, not the whole tile",
        "tfillpad_half_limits": "TFILLPAD pads a half tile with 0 for PadValue Max and Min (the simulator reads "
                                "std::numeric_limits<_Float16>, which the C++ library leaves unspecialized)",
        "tsort32_half_block_offset": "TSORT32 on a 2-byte type (half, int16) writes block b's pairs from dst column "
                                     "64 * b instead of 128 * b: each block but the last keeps only its first 16 "
                                     "pairs, and the row's pairs end at column 64 * blocks + 64",
        "tsort32_idx_shape_noop": "TSORT32 writes nothing when idx's valid shape differs from src's (a 1-row idx "
                                  "under a taller src is not broadcast)",
        "tile_scalar_src_dst_order": "the tile-scalar instructions (TADDS ... TSHRS, TLRELU) with a non-boxed dst read "
                                     "src element (r, c) at r * src Cols + c (row-major dst) or c * src Rows + r "
                                     "(column-major dst), whatever src's own layout: a boxed src, or one of the other "
                                     "major order, is read as if it had dst's",
    },
    evidence={
        "tscatter_no_zero_init": "include/pto/cpu/TScatter.hpp TSCATTER_IMPL (no fill of dst)",
        "tscatter_mask_running_src": "include/pto/cpu/TScatter.hpp TScatter (sC wraps at SrcTileData::Cols)",
        "tmatmul_bias_valid_region": "include/pto/cpu/TMatmul.hpp (TMATMUL_BIAS_IMPL, TMATMUL_MX_IMPL's bias "
                                     "form: the bias loop over cMatrix.GetValidRow/GetValidCol)",
        "tcmps_eq_tolerance": "include/pto/cpu/TCmps.hpp:30, 33, 48",
        "texpands_mat_valid_only": "include/pto/cpu/TExpands.hpp:29-44",
        "tfillpad_half_limits": "include/pto/cpu/TFillPad.hpp:37-46 (has_infinity / max() of _Float16)",
        "tsort32_half_block_offset": "include/pto/cpu/TSort32.hpp TSort32: dstOffset = GetTileElementOffset(i, 2 * j) "
                                     "for every type, while a 2-byte pair takes 4 elements",
        "tsort32_idx_shape_noop": "include/pto/cpu/TSort32.hpp TSORT32_IMPL: returns when idx.GetValidRow/Col differ",
        "tile_scalar_src_dst_order": "include/pto/cpu/TBinSOps.hpp UnaryTileScalarOpImpl: the NoneBox branch "
                                     "(chosen by TileDst::SFractal) indexes src with baseSrc = r * TileSrc::Cols "
                                     "or c * TileSrc::Rows",
    },
)
