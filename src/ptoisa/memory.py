"""On-chip buffers and manual placement (TASSIGN).

Each target has one set of on-chip buffers per thread (UB, L1, L0A, ...; sizes in the target profile), zero-filled
when first used, like the reference CPU simulator's memory model. `TASSIGN(tile, addr)` binds a tile to byte
offset `addr` of the buffer its location maps to: its storage becomes a view of those bytes, so tiles whose byte
ranges overlap alias (an int32 tile and an int16 tile at the same offset see each other's bytes, little-endian).
A binding that does not fit the buffer, or is misaligned for the target, is refused and changes nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._shown import shown
from .errors import PlacementError
from .targets import Config, TargetProfile, resolve
from .tile.conv import ConvTile
from .tile.tile import Tile


@dataclass(frozen=True)
class Binding:
    """Where a tile lives: target, region, byte offset and the region's bytes (for emulated raw reads)."""

    target: str
    region: str
    offset: int
    buffer: np.ndarray

    def __repr__(self) -> str:
        return f"{self.target}:{self.region}+0x{self.offset:x}"


class OnChipMemory:
    """The on-chip buffers of one target (one instance per thread and target)."""

    def __init__(self, profile: TargetProfile) -> None:
        self.profile = profile
        self._regions: dict[str, np.ndarray] = {}

    def region(self, name: str) -> np.ndarray:
        buf = self._regions.get(name)
        if buf is None:
            buf = np.zeros(self.profile.memory.regions[name], dtype=np.uint8)
            self._regions[name] = buf
        return buf

    def clear(self) -> None:
        """Zero every buffer (the simulator's NPU_MEMORY_CLEAR); bound tiles keep their bindings."""
        for buf in self._regions.values():
            buf[:] = 0

    def bind(self, tile: Tile | ConvTile, addr: int) -> None:
        rules = self.profile.memory
        name = rules.region_of[tile.spec.loc]
        size = rules.regions[name]
        nbytes = tile.spec.nbytes
        where = f"TASSIGN on {self.profile.name}: {tile.spec} at 0x{addr:x} in {name}"
        if addr < 0 or addr + nbytes > size:
            raise PlacementError(f"{where}: bytes [0x{addr:x}, 0x{addr + nbytes:x}) do not fit the "
                                 f"{size}-byte buffer")
        if addr % rules.alignment:
            raise PlacementError(f"{where}: the address must be a multiple of {rules.alignment} bytes")
        buffer = self.region(name)
        tile.attach(buffer[addr:addr + nbytes].view(tile.spec.np_dtype))
        tile.binding = Binding(self.profile.name, name, addr, buffer)


_LOCAL = threading.local()


def memory_for(config: Config) -> OnChipMemory:
    memories = getattr(_LOCAL, "memories", None)
    if memories is None:
        memories = _LOCAL.memories = {}
    mem = memories.get(config.profile.target)
    if mem is None:
        mem = memories[config.profile.target] = OnChipMemory(config.profile)
    return mem


def TASSIGN(tile: Tile | ConvTile, addr: int, *, target: Any = None) -> None:
    """Bind `tile` to byte offset `addr` of its location's on-chip buffer on the target in force."""
    if not isinstance(tile, (Tile, ConvTile)):
        raise PlacementError(f"TASSIGN needs a Tile or ConvTile (got {type(tile).__name__})")
    if isinstance(addr, bool) or not isinstance(addr, (int, np.integer)):
        raise PlacementError(f"TASSIGN address must be an integer byte offset (got {shown(addr)})")
    memory_for(resolve(target)).bind(tile, int(addr))


def NPU_MEMORY_CLEAR(*, target: Any = None) -> None:
    """Zero the on-chip buffers of the target in force (tiles stay bound)."""
    memory_for(resolve(target)).clear()


# --- bytes past a tile's storage (DECISIONS 21) -------------------------------------------------------------
def window(tile: Tile | ConvTile, nbytes: int) -> np.ndarray:
    """A copy of the `nbytes` bytes that start at the tile's first byte, as a backend addressing past the tile sees
    them: the tile's storage, then, for a tile bound with TASSIGN, the bytes that follow it in its on-chip buffer.
    What lies past an unbound tile (or past the buffer) cannot be known and reads as 0."""
    own = tile.storage.view(np.uint8)
    out = np.zeros(max(nbytes, 0), dtype=np.uint8)
    n = min(own.size, out.size)
    out[:n] = own[:n]
    binding = tile.binding
    if out.size > own.size and binding is not None:
        start = binding.offset + own.size
        extra = binding.buffer[start:start + out.size - own.size]
        out[own.size:own.size + extra.size] = extra
    return out


def spill(tile: Tile | ConvTile, data: np.ndarray, written: np.ndarray) -> tuple[int, int] | None:
    """Commit a window (see `window`) the backend wrote: bytes inside the storage go to the tile; the bytes past it
    that were written (`written`, a bool mask over `data`) go to the on-chip buffer when the tile is bound, and are
    dropped otherwise. Returns the byte range [first, end) written past the storage, relative to the tile's first
    byte, or None when nothing was."""
    own = tile.storage.view(np.uint8)
    own[:] = data[:own.size]
    outside = np.flatnonzero(written[own.size:])
    if outside.size == 0:
        return None
    first, end = own.size + int(outside[0]), own.size + int(outside[-1]) + 1
    binding = tile.binding
    if binding is not None:
        room = binding.buffer.size - binding.offset
        keep = outside[own.size + outside < room] + own.size
        binding.buffer[binding.offset + keep] = data[keep]
    return first, end
