"""Whole kernels in the style of PTOAS's sample kernels, run end to end and checked against NumPy math.

The three kernels follow the structure of real PTOAS samples (test/samples of hw-native-sys/PTOAS): an RMSNorm
that, like the DeepSeek decode `input_rmsnorm` kernel, accumulates squares in a 1x16 tile through a 16x1
col-major row sum reinterpreted at the same address; a row softmax; and a paged gather of KV blocks through a
block table read with `load_scalar`. The first two are examples/pto/run_rmsnorm.pto and run_softmax.pto, the
third is written here (it varies its sizes); the expected values are the operation's
mathematical definition computed with NumPy (float64), compared at the precision of the output type, so they
do not come from ptoisa.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ptoisa


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pto"


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_rmsnorm_matches_its_definition(target):
    rows, hidden, chunk = 16, 1024, 256
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((rows, hidden)) * 3).astype(ml_dtypes.bfloat16)
    w = rng.uniform(0.5, 1.5, (1, hidden)).astype(np.float32)
    out = np.zeros((rows, hidden), ml_dtypes.bfloat16)
    ptoisa.load(EXAMPLES / "run_rmsnorm.pto", target=target).run(x, out, w)

    xf = x.astype(np.float64)
    expected = xf / np.sqrt((xf ** 2).mean(axis=1, keepdims=True) + 1e-6) * w
    got = out.astype(np.float64)
    # bf16 output: the result is within one bf16 rounding (2^-8 relative) plus float32 accumulation noise
    assert np.all(np.abs(got - expected) <= np.abs(expected) * 2.0 ** -7 + 1e-6)
    assert np.any(got != 0)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_softmax_matches_its_definition(target):
    rows, cols = 8, 64
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float16)
    x[0, :] = 11.0  # a flat row: every element 1/cols
    y = np.zeros_like(x)
    ptoisa.load(EXAMPLES / "run_softmax.pto", target=target).run(x, y)

    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    got = y.astype(np.float64)
    assert np.all(np.abs(got - expected) <= expected * 2.0 ** -10 + 2.0 ** -24)
    assert np.allclose(got.sum(axis=1), 1.0, atol=cols * 2.0 ** -11)
    assert np.all(got[0] == np.float16(1 / cols))


def kv_gather_kernel(blocks: int, block_rows: int, dim: int, picks: int) -> str:
    T = (f"!pto.tile_buf<loc=vec, dtype=f32, rows={block_rows}, cols={dim}, v_row=?, v_col=?, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
    return f"""module {{
  func.func @gather_kv(%cache: !pto.ptr<f32>, %table: !pto.ptr<i32>, %out: !pto.ptr<f32>, %scale: f32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = arith.constant {block_rows} : index
    %D = arith.constant {dim} : index
    %N = arith.constant {blocks * block_rows} : index
    %P = arith.constant {picks} : index
    %M = arith.constant {picks * block_rows} : index
    %cv = pto.make_tensor_view %cache, shape = [%N, %D], strides = [%D, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %out, shape = [%M, %D], strides = [%D, %c1] : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile valid_row = %B valid_col = %D : {T}
    scf.for %i = %c0 to %P step %c1 {{
      %entry = pto.load_scalar %table[%i] : !pto.ptr<i32> -> i32
      %blk = arith.index_cast %entry : i32 to index
      %row = arith.muli %blk, %B : index
      %src = pto.partition_view %cv, offsets = [%row, %c0], sizes = [%B, %D] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<{block_rows}x{dim}xf32>
      pto.tload ins(%src : !pto.partition_tensor_view<{block_rows}x{dim}xf32>) outs(%t : {T})
      pto.tmuls ins(%t, %scale : {T}, f32) outs(%t : {T})
      %dst_row = arith.muli %i, %B : index
      %dst = pto.partition_view %ov, offsets = [%dst_row, %c0], sizes = [%B, %D] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<{block_rows}x{dim}xf32>
      pto.tstore ins(%t : {T}) outs(%dst : !pto.partition_tensor_view<{block_rows}x{dim}xf32>)
    }}
    return
  }}
}}
"""


def test_paged_kv_gather_matches_its_definition():
    blocks, block_rows, dim, picks = 10, 4, 32, 6
    rng = np.random.default_rng(9)
    cache = rng.standard_normal((blocks * block_rows, dim)).astype(np.float32)
    table = np.array([7, 2, 2, 9, 0, 5], dtype=np.int32)
    out = np.zeros((picks * block_rows, dim), np.float32)
    ptoisa.load(kv_gather_kernel(blocks, block_rows, dim, picks), target="a2a3").run(cache, table, out, 0.5)

    expected = np.concatenate([cache[b * block_rows:(b + 1) * block_rows] for b in table]) * 0.5
    assert np.array_equal(out, expected.astype(np.float32))  # scaling by 0.5 is exact


def test_a_block_table_entry_past_the_cache_is_reported_with_its_location():
    blocks, block_rows, dim, picks = 4, 4, 32, 2
    cache = np.zeros((blocks * block_rows, dim), np.float32)
    table = np.array([1, 9], dtype=np.int32)
    out = np.zeros((picks * block_rows, dim), np.float32)
    program = ptoisa.load(kv_gather_kernel(blocks, block_rows, dim, picks), target="a2a3")
    with pytest.raises(ptoisa.OutOfBoundsError) as info:
        program.run(cache, table, out, 1.0)
    assert "partition_view" in str(info.value) + "".join(getattr(info.value, "__notes__", []))
