"""The tile model: enums, static tile types (TileSpec), physical layouts and tile instances."""

from .conv import ConvTile, ConvTileSpec
from .enums import DYNAMIC, BLayout, CompactMode, Layout, PadValue, SLayout, TileType
from .layout import element_offset, offset_table
from .spec import TileSpec
from .tile import Tile

__all__ = [
    "DYNAMIC", "BLayout", "CompactMode", "ConvTile", "ConvTileSpec", "Layout", "PadValue", "SLayout", "Tile",
    "TileSpec", "TileType", "element_offset", "offset_table",
]
