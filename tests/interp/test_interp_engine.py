"""The engine: functions decode once; a run costs well under 20 us per executed op on small tiles; random
arguments (hypothesis) give the seed formulas' results."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_helpers import kernel

from ptoisa.interp import decode, load

EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"

LOOP = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tv = pto.make_tensor_view %x, shape = [%n, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %u = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %pv = pto.partition_view %tv, offsets = [%i, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x16xf32> -> !pto.partition_tensor_view<1x16xf32>
      pto.tload ins(%pv : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
      pto.texpands ins(%s : f32) outs(%u : !pto.tile_buf<vec, 1x16xf32>)
      pto.tpartmul ins(%t, %u : !pto.tile_buf<vec, 1x16xf32>, !pto.tile_buf<vec, 1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
      pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%pv : !pto.partition_tensor_view<1x16xf32>)
      %a2 = arith.addi %acc, %i : index
      scf.yield %a2 : index
    }
    return %r : index"""


def test_function_is_decoded_once(monkeypatch) -> None:
    calls = []
    real = decode.decode_function
    monkeypatch.setattr(decode, "decode_function", lambda *a: (calls.append(a[1].sym_name.data), real(*a))[1])
    import ptoisa.interp.program as program_module

    monkeypatch.setattr(program_module, "decode_function", decode.decode_function)
    p = kernel(LOOP, "%x: !pto.ptr<f32>, %n: index, %s: f32", "index")
    x = np.ones((4, 16), np.float32)
    for _ in range(5):
        p.run(x, 4, 2.0)
    assert calls == ["k"] and p.decode_count == 1
    assert (x == 32.0).all()


def test_repeated_runs_count_ops_and_return_values() -> None:
    """Runs of one program count every executed op and return the same sum each time (the time per op lives in
    benchmarks/interp_costs.py, not here)."""
    p = kernel(LOOP, "%x: !pto.ptr<f32>, %n: index, %s: f32", "index")
    x = np.ones((200, 16), np.float32)
    for _ in range(3):
        result = p.run(x, 200, 1.0)
        assert result.ops_executed == 6 * 200 + 4 and result.returns == (199 * 200 // 2,)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 4), scale=st.floats(-1e3, 1e3, width=32), threshold=st.floats(-1e5, 1e5, width=32),
       seed=st.integers(0, 2**32 - 1))
def test_hypothesis_scale_compare(rows: int, scale: float, threshold: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((64, 16)) * 10 ** rng.uniform(-3, 3)).astype(np.float32)
    scaled, mask = np.zeros_like(x), np.zeros((64, 2), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _SCALE_COMPARE.run(x, scaled, mask, scale, threshold, target="cpu")
    product = x * np.float32(scale)
    assert np.array_equal(scaled, product)
    assert np.array_equal(mask, np.packbits(product > np.float32(threshold), axis=1, bitorder="little"))


_SCALE_COMPARE = load(EXAMPLES / "run_scale_compare.pto")


@settings(max_examples=40, deadline=None)
@given(start=st.integers(-2**31, 2**31 - 1), rows=st.integers(0, 6), idx=st.lists(st.integers(0, 255),
                                                                                    min_size=16, max_size=16))
def test_hypothesis_iota_gather(start: int, rows: int, idx: list[int]) -> None:
    src = np.arange(256, dtype=np.float32) * np.float32(0.25) - 3
    evens, gathered = np.zeros((max(rows, 1), 8), np.int32), np.zeros(16, np.float32)
    result = _IOTA.run(src, np.array(idx, np.int32), evens, gathered, start, rows)
    seq = (start + 16 * np.arange(rows)[:, None] + np.arange(16)).astype(np.int64)
    wrapped = ((seq + 2**31) % 2**32 - 2**31).astype(np.int32)  # TCI values wrap modulo 2^32
    assert np.array_equal(evens[:rows], wrapped[:, 0::2])
    assert np.array_equal(gathered, src[idx])
    assert result.returns == (int((start + 16 * rows + 2**31) % 2**32 - 2**31),)


_IOTA = load(EXAMPLES / "run_iota_gather.pto")
