"""Compare, look at the predicate mask, and gather: TCMPS, then TGATHER with a mask pattern, on every target.

Run:  .venv/bin/python examples/python/mask_and_gather.py

TCMPS packs one bit per element into a uint8 tile (bit j % 8 of byte j // 8, LSB first). On a2a3 and a5 the
backends also write bytes outside the valid region (errata, announced with an ErratumWarning); the valid region
is the contract's on every target, which is what this example checks. `ptoisa show FILE.npy --bits` draws a saved mask as a grid
of 0 and 1.
"""

from __future__ import annotations

import warnings

import numpy as np

import ptoisa
from ptoisa import *

warnings.simplefilter("ignore", ptoisa.ErratumWarning)  # the valid region is all we look at here

Src = Tile[TileType.Vec, float, 4, 16]
Mask = Tile[TileType.Vec, uint8_t, 4, 32, BLayout.RowMajor, -1, -1]  # 16 columns -> 2 bytes per row valid
x = np.arange(64, dtype=np.float32).reshape(4, 16) - 20

for target in ("a2a3", "a5", "cpu"):
    src, mask = Src(data=x), Mask(4, 2)
    TCMPS(mask, src, 0.0, CmpMode.GT, target=target)          # bit = src > 0
    bits = np.unpackbits(mask.valid, axis=1, bitorder="little")[:, :16].astype(bool)
    assert np.array_equal(bits, x > 0)
    print(f"{target}: src > 0, one character per element ({mask.valid.tobytes().hex()} as bytes)")
    print("\n".join("  " + "".join("1" if b else "." for b in row) for row in bits))

# TGATHER with a fixed pattern: P0101 keeps every other element of each row
Half = Tile[TileType.Vec, float, 4, 8]
picked = Half()
TGATHER(picked, Src(data=x), MaskPattern.P0101, target="cpu")
assert np.array_equal(picked.data, x[:, 0::2])
print("P0101 gather kept columns 0, 2, 4, ...:", picked.data[0].tolist())
