"""`fill="poison"`: report the first read of tile bytes no op has written.

Every tile made by `pto.alloc_tile` (and every byte of the on-chip buffers that tiles at an address share) starts
poisoned; an op's outputs become written over their valid region; an op that reads a still-poisoned element of
an input's valid region stops the run with an UninitializedReadError naming the op, its location, the operand
and the element. The bookkeeping is by byte, so tiles that alias the same addresses share it. Tiles passed in
by the caller, and windows made by `pto.subview`, are taken as written.
"""

from __future__ import annotations

import numpy as np

from ..errors import UninitializedReadError
from ..tile.layout import offset_table
from ..tile.tile import Tile

POISON = -1
"""The `fill` byte value that selects poison mode (the data bytes themselves are filled with 0xFF)."""


class Poison:
    """Per-run written-byte maps: one per on-chip region (for placed tiles) and one per auto-placed tile."""

    def __init__(self) -> None:
        self._regions: dict[str, np.ndarray] = {}
        self._tiles: dict[int, tuple[Tile, np.ndarray]] = {}

    def track(self, tile: Tile) -> None:
        """Start tracking a tile made by alloc_tile (or newly bound by tassign): its bytes are not written."""
        binding = tile.binding
        if binding is not None:
            region = self._regions.get(binding.region)
            if region is None:
                region = self._regions[binding.region] = np.zeros(binding.buffer.size, dtype=bool)
            written = region[binding.offset:binding.offset + tile.spec.nbytes]
        else:
            written = np.zeros(tile.spec.nbytes, dtype=bool)
        self._tiles[id(tile)] = (tile, written)

    def _elements(self, tile: Tile) -> tuple[np.ndarray, np.ndarray] | None:
        entry = self._tiles.get(id(tile))
        if entry is None or entry[0] is not tile:
            return None
        spec = tile.spec
        per_element = entry[1].reshape(spec.numel, spec.dtype.itemsize)
        index = offset_table(spec)[:tile.valid_row, :tile.valid_col]
        return per_element, index

    def check(self, tile: Tile, role: str) -> None:
        found = self._elements(tile)
        if found is None:
            return
        per_element, index = found
        written = per_element.all(axis=1)[index]
        if not written.all():
            r, c = (int(v) for v in np.argwhere(~written)[0])
            raise UninitializedReadError(
                f"{role} element ({r}, {c}) of {tile.spec} is read before anything wrote it "
                f"({int((~written).sum())} of {written.size} valid elements were never written)")

    def mark(self, tile: Tile) -> None:
        found = self._elements(tile)
        if found is not None:
            per_element, index = found
            per_element[index] = True
