"""TGATHER's index form from 1024 valid elements on: the compiled call finds the largest index (as unsigned, so a
negative one is huge) by its first position (argmax) and gathers with take(mode="wrap") when every index is in
range, else hands the call to the general path. One index out of range anywhere in the valid region (first, last,
in the middle, the largest value repeated, exactly the element count, a negative one) must never be wrapped: on
cpu it reads 0 (DECISIONS 12), on a2a3 and a5 the call is refused as undefined and dst is left alone. Expected
values by a Python loop over src0's elements; whole tiles and a dst whose valid rows stop short of its rows (the
indices then read through a 2-D window of their storage)."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType, int32_t


def _loop_gather(values, index, numel, target):
    flat = values.reshape(-1).tolist()
    out = [flat[i] if 0 <= i < numel else 0.0 for i in index.reshape(-1).tolist()]
    return np.array(out, np.float32).reshape(index.shape)


CASES = [  # (rows, cols, valid rows of dst and of the indices)
    (32, 32, 32), (64, 64, 64), (40, 48, 30), (64, 32, 33)]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("rows,cols,vr", CASES, ids=str)
def test_an_index_out_of_range_is_never_wrapped(target, rows, cols, vr):
    numel = rows * cols
    rng = np.random.default_rng(rows * 3 + cols + vr)
    src = Tile[TileType.Vec, np.float32, rows, cols]()
    values = rng.standard_normal((rows, cols)).astype(np.float32)
    src.set_logical(values)
    dst = Tile[TileType.Vec, np.float32, rows, cols, BLayout.RowMajor, -1, -1](vr, cols)
    idx = Tile[TileType.Vec, int32_t, rows, cols, BLayout.RowMajor, -1, -1](vr, cols)
    tmp = Tile[TileType.Vec, int32_t, vr, cols]()  # (a2a3: required, of the indices' valid shape)
    last = vr * cols - 1  # the valid region's last index position
    placements = [None, 0, last, vr * cols // 2, "repeated", "numel-1", "negative", "below-region"]
    for where in placements:
        index = rng.integers(0, numel, (rows, cols)).astype(np.int32)
        bad = None
        if where == "repeated":  # the largest value twice, the first of them in range of nothing
            index[0, 1] = index[vr - 1, cols - 1] = numel + 5
            bad = (0, 1)
        elif where == "numel-1":
            index[vr // 2, 3] = numel - 1  # the largest index in range: gathered
        elif where == "negative":
            index[vr - 1, 2] = -1
            bad = (vr - 1, 2)
        elif where == "below-region":
            if vr == rows:
                continue
            index[vr, 0] = numel  # outside the valid region: not read
        elif where is not None:
            index.reshape(-1)[where] = numel  # exactly the element count
            bad = divmod(where, cols)
        idx.set_logical(index)
        dst.storage[:] = np.float32(7.5)
        before = dst.storage.copy()
        if bad is not None and target != "cpu":
            with pytest.raises(ptoisa.UndefinedBehaviourError):
                ptoisa.TGATHER(dst, src, idx, tmp, target=target)
            assert dst.storage.tobytes() == before.tobytes(), where
            continue
        ptoisa.TGATHER(dst, src, idx, tmp, target=target)
        want = before.reshape(rows, cols).copy()
        want[:vr] = _loop_gather(values, index[:vr], numel, target)
        assert dst.storage.view(np.uint32).tolist() == want.reshape(-1).view(np.uint32).tolist(), where


def test_the_compiled_index_route_by_size():
    """Below 1024 valid elements NumPy's range-checked take, from 1024 on the argmax test and the wrapping take."""
    from ptoisa.isa import tgather as impl

    assert impl._FUSED_BELOW == 1024
    for n, name in ((16, "checked"), (32, "run")):
        src, dst = Tile[TileType.Vec, np.float32, n, n](), Tile[TileType.Vec, np.float32, n, n]()
        idx = Tile[TileType.Vec, int32_t, n, n]()
        ptoisa.TGATHER(dst, src, idx, target="cpu")
        config = ptoisa.targets.resolve("cpu")
        run = next(r for k, r in impl._COMPILED.items() if k[0] is config and k[1] is dst.spec and k[3] is idx.spec
                   and k[4] is None)
        assert run.__name__ == name
