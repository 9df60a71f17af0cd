"""Keyword calls of records with several forms (Instruction.bind): the keywords may name the operands of a form
other than the one the positional arguments alone would choose; the call then binds to the form whose parameters
they are, and gives the bytes of the same call made positionally."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import MrgSortExecutedNumList, Tile, TileType


def test_trowexpandmul_tmp_by_keyword():
    rng = np.random.default_rng(2)
    made = []
    for _ in range(3):
        dst, s0 = Tile[TileType.Vec, np.float32, 16, 16](), Tile[TileType.Vec, np.float32, 16, 16]()
        s1 = Tile[TileType.Vec, np.float32, 16, 8]()
        tmp = Tile[TileType.Vec, np.float32, 16, 16]()
        made.append((dst, s0, s1, tmp))
    values = [rng.standard_normal(t.storage.shape).astype(np.float32) for t in made[0]]
    for tiles in made:
        for t, v in zip(tiles, values):
            t.storage[...] = v
    ptoisa.TROWEXPANDMUL(*made[0], target="cpu")
    d, s0, s1, tmp = made[1]
    ptoisa.TROWEXPANDMUL(d, s0, s1, tmp=tmp, target="cpu")
    d, s0, s1, tmp = made[2]
    ptoisa.TROWEXPANDMUL(dst=d, src0=s0, src1=s1, tmp=tmp, target="cpu")
    assert made[1][0].tobytes() == made[0][0].tobytes() == made[2][0].tobytes()


def _list(values, first_id):
    t = Tile[TileType.Vec, np.float32, 1, 8]()
    raw = bytearray(8 * 4)
    for p, v in enumerate(values):
        raw[p * 8:p * 8 + 4] = np.float32(v).tobytes()
        raw[p * 8 + 4:p * 8 + 8] = (first_id + p).to_bytes(4, "little")
    t.load_bytes(bytes(raw))
    return t


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_tmrgsort_list_form_by_keyword(target):
    """The three-list form of TMRGSORT, positionally and by keyword (exhausted too): the same dst and counts."""
    outcomes = []
    for by_name in (False, True):
        a, b, c = _list([9, 8, 7, 6], 0), _list([10, 1, 0, -1], 10), _list([5, 4, 3, 2], 20)
        dst, tmp = Tile[TileType.Vec, np.float32, 1, 24](), Tile[TileType.Vec, np.float32, 1, 24]()
        counts = MrgSortExecutedNumList(7, 7, 7, 7)
        if by_name:
            ptoisa.TMRGSORT(dst=dst, executed=counts, tmp=tmp, src0=a, src1=b, src2=c, exhausted=True,
                            target=target)
        else:
            ptoisa.TMRGSORT(dst, counts, tmp, a, b, c, True, target=target)
        outcomes.append((dst.tobytes(), counts.as_tuple()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == (4, 1, 0, 0)


def test_a_keyword_no_form_has_is_still_refused():
    d, s0 = Tile[TileType.Vec, np.float32, 16, 16](), Tile[TileType.Vec, np.float32, 16, 16]()
    s1 = Tile[TileType.Vec, np.float32, 16, 8]()
    with pytest.raises(ptoisa.PtoError, match="has no parameter 'scratch'"):
        ptoisa.TROWEXPANDMUL(d, s0, s1, scratch=s1, target="cpu")


@pytest.mark.parametrize("given, missing", [(("cMatrix", "aMatrix"), "bMatrix"), (("cMatrix", "bMatrix"), "aMatrix")])
def test_a_form_named_by_keywords_reports_what_it_misses(given, missing):
    """Keywords that only the three-tile TMATMUL_ACC form has, one operand short: the refusal names the operand
    that form misses (not "no parameter 'cMatrix'", the four-tile form's view), and no byte changes."""
    from ptoisa import BLayout, SLayout, half

    tiles = {"cMatrix": Tile[TileType.Acc, float, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor, 1024](),
             "aMatrix": Tile[TileType.Left, half, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor](),
             "bMatrix": Tile[TileType.Right, half, 16, 16, BLayout.RowMajor, 16, 16, SLayout.ColMajor]()}
    rng = np.random.default_rng(5)
    for t in tiles.values():
        t.storage[...] = rng.integers(-3, 4, t.storage.shape).astype(t.storage.dtype)
    before = {n: t.tobytes() for n, t in tiles.items()}
    with pytest.raises(ptoisa.IllegalInstructionError) as info:
        ptoisa.TMATMUL_ACC(**{n: tiles[n] for n in given}, target="cpu")
    assert str(info.value).startswith(f"TMATMUL_ACC on cpu: {missing} is missing: ")
    assert {n: t.tobytes() for n, t in tiles.items()} == before
