"""The NPUs' grouping of float column sums and products, worked by hand from the backend sources.

A5 folds a column as row 0, then each following pair combined first (a5/TColReduceOps.hpp
TColReduceInstr_PostUpdate, the default version): r0 + (r1 + r2) + (r3 + r4). With isBinary, A5 sums adjacent
pairs into tmp, adds an odd last row to the last pair, then halves (a5/TColSum.hpp TColSum_Binary):
(r0 + r1) + ((r2 + r3) + r4); A2/A3 adds the odd row to the first pair instead (a2a3/TColSum.hpp BinarySum):
((r0 + r1) + r4) + (r2 + r3). A2/A3 without isBinary, and the simulator, add row after row.

Float32 with B = 2^24 (ulp 2 there; B + 1 rounds to B, B + 2 and B + 3 -> B + 4 by ties-to-even are exact or
round up): the three columns below, rows r0..r4 = (B, 1, 1, 0, 0), (B, 0, 1, 0, 1), (B, 0, 1, 1, 0):
  in order:     B, B, B
  A5 default:   B + (1+1) + (0+0) = B+2;  B + (0+1) -> B, + (0+1) -> B;  B + (0+1) -> B, + (1+0) -> B
  A5 binary:    (B+1 -> B) + ((1+0)+0) -> B;  (B+0) + ((1+0)+1) = B+2;  (B+0) + ((1+1)+0) = B+2
  A2/A3 binary: ((B+1 -> B)+0) + (1+0) -> B;  ((B+0)+1 -> B) + (1+0) -> B;  ((B+0)+0) + (1+1) = B+2
TCOLPROD on A5, column (3, 4097, 4097): 3 * (4097 * 4097 = 16785409 -> 16785408, a tie to even) = 50356224,
where the in-order product 12291 * 4097 = 50356227 rounds to 50356228 (ulp 4).
"""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

B = 2.0 ** 24
ROWS = np.array([[B, B, B], [1, 0, 0], [1, 1, 1], [0, 0, 1], [0, 1, 0]], dtype=np.float32)


def _col_sum(target: str, binary: bool | None) -> list[float]:
    with ptoisa.target(target):
        src = Tile[TileType.Vec, np.float32, 5, 8, BLayout.RowMajor, 5, 3]()
        tmp = Tile[TileType.Vec, np.float32, 5, 8, BLayout.RowMajor, 5, 3]()
        dst = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, 1, 3]()
        src.valid[...] = ROWS
        if binary is None:
            ptoisa.TCOLSUM(dst, src)
        else:
            ptoisa.TCOLSUM(dst, src, tmp, binary)
    return dst.valid[0].tolist()


@pytest.mark.parametrize("target,binary,want", [
    ("a5", None, [B + 2, B, B]), ("a5", False, [B + 2, B, B]), ("a5", True, [B, B + 2, B + 2]),
    ("a2a3", None, [B, B, B]), ("a2a3", False, [B, B, B]), ("a2a3", True, [B, B, B + 2]),
    ("cpu", None, [B, B, B]), ("cpu", True, [B, B, B]),
])
def test_column_sum_follows_the_targets_grouping(target, binary, want):
    assert _col_sum(target, binary) == want


@pytest.mark.parametrize("target,want", [("a5", 50356224.0), ("a2a3", 50356228.0), ("cpu", 50356228.0)])
def test_column_product_follows_the_targets_grouping(target, want):
    with ptoisa.target(target):
        src = Tile[TileType.Vec, np.float32, 3, 8, BLayout.RowMajor, 3, 1]()
        dst = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, 1, 1]()
        src.valid[...] = [[3], [4097], [4097]]
        ptoisa.TCOLPROD(dst, src)
    assert dst.valid[0, 0] == want


@pytest.mark.parametrize("target", ["a2a3", "a5"])  # the simulator sums floats only
def test_integer_column_sums_wrap_whatever_the_grouping(target):
    with ptoisa.target(target):
        src = Tile[TileType.Vec, np.int16, 5, 16, BLayout.RowMajor, 5, 2]()
        tmp = Tile[TileType.Vec, np.int16, 5, 16, BLayout.RowMajor, 5, 2]()
        dst = Tile[TileType.Vec, np.int16, 1, 16, BLayout.RowMajor, 1, 2]()
        src.valid[...] = [[30000, -7], [30000, 1], [30000, 2], [-5, 3], [1, 4]]
        ptoisa.TCOLSUM(dst, src, tmp, True)
    assert dst.valid[0].tolist() == [(90000 - 4 + 32768) % 65536 - 32768, 3]


@pytest.mark.parametrize("flag,want", [("true", True), ("false", False)])
def test_isbinary_is_read_from_text(flag, want):
    """PTOAS writes the flag as `{isBinary = true}` (docs/isa/TCOLSUM.md): an i1 attribute."""
    from ptoisa.ir import parse_module
    from ptoisa.ir.record_ops import RecordOp

    t, d = "!pto.tile_buf<vec, 5x8xf32>", "!pto.tile_buf<vec, 1x8xf32>"
    module = parse_module(f"""
module {{
  func.func @m() {{
    %s = pto.alloc_tile : {t}
    %t = pto.alloc_tile : {t}
    %d = pto.alloc_tile : {d}
    pto.tcolsum ins(%s, %t {{isBinary = {flag}}} : {t}, {t}) outs(%d : {d})
    return
  }}
}}
""")
    (op,) = [op for op in module.walk() if isinstance(op, RecordOp)]
    assert op.core_attrs()["isBinary"].value is want


@pytest.mark.parametrize("target,signed", [("a5", True), ("a2a3", True), ("cpu", False)])
def test_a_column_of_negative_zeros(target, signed):
    """A5 starts a column from its row 0 (no 0 + r0), so -0.0 + (-0.0 + -0.0) stays -0.0, and so does A2/A3, whose
    backend copies row 0 into dst and adds the others to it (a2a3/TColSum.hpp SequentialSum); the simulator's
    in-order fold from 0 gives +0.0."""
    with ptoisa.target(target):
        src = Tile[TileType.Vec, np.float32, 3, 8, BLayout.RowMajor, 3, 8]()
        dst = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, 1, 8]()
        src.valid[...] = -0.0
        ptoisa.TCOLSUM(dst, src)
    assert np.signbit(dst.valid[0]).all() == signed


@pytest.mark.parametrize("target,kept", [("a2a3", True), ("cpu", False)])
@pytest.mark.parametrize("name", ["TCOLSUM", "TCOLPROD"])
def test_a_lone_row_is_copied_on_a2a3(target, kept, name):
    """One valid row: A2/A3 copies it (TColSum's validRow == 1 branch, TColReduceOps' row-0 copy), so a signalling
    NaN stays signalling; the simulator's 0 + x (1 * x) quiets it."""
    src = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, 1, 8]()
    dst = Tile[TileType.Vec, np.float32, 1, 8, BLayout.RowMajor, 1, 8]()
    src.storage.view(np.uint32)[:] = 0x7F800001
    with ptoisa.target(target):
        getattr(ptoisa, name)(dst, src)
    assert (dst.storage.view(np.uint32)[0] == 0x7F800001) == kept
