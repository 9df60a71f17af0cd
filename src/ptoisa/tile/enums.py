"""Tile enums with the reference's numeric values (include/pto/common/type.hpp)."""

from __future__ import annotations

from enum import IntEnum


class TileType(IntEnum):
    """Tile location (memory role)."""

    Vec = 0
    Mat = 1
    Left = 2
    Right = 3
    Acc = 4
    Bias = 5
    Scaling = 6
    ScaleLeft = 7
    ScaleRight = 8
    Ctrl = 9


class BLayout(IntEnum):
    """Outer ("big") layout."""

    RowMajor = 0
    ColMajor = 1


class SLayout(IntEnum):
    """Inner fractal-box layout."""

    NoneBox = 0
    RowMajor = 1
    ColMajor = 2


class PadValue(IntEnum):
    """Pad value used by load/fill ops; none of the five instructions reads it."""

    Null = 0
    Zero = 1
    Max = 2
    Min = 3


class CompactMode(IntEnum):
    Null = 0
    Normal = 1
    RowPlusOne = 2
    RowAlignedPadding = 3


class Layout(IntEnum):
    """GlobalTensor / ConvTile layouts (only the conv ones matter to TEXPANDS)."""

    ND = 0
    DN = 1
    NZ = 2
    SCALE = 3
    NC1HWC0 = 12
    GNC1HWC0 = 13
    NCHW = 14
    GNCHW = 15
    NHWC = 16
    NDC1HWC0 = 17
    NCDHW = 18
    FRACTAL_Z = 19
    FRACTAL_Z_S16S8 = 20
    FRACTAL_Z_3D = 21


DYNAMIC = -1
FRACTAL_AB_SIZE = 512
FRACTAL_C_SIZE = 1024
FRACTAL_MX_SIZE = 32
FRACTAL_SIZES = (FRACTAL_AB_SIZE, FRACTAL_C_SIZE, FRACTAL_MX_SIZE)
BLOCK_BYTES = 32
