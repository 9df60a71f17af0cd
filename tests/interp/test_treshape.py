"""TRESHAPE: the API (dst takes src's bytes) and the value-returning form PTOAS writes in DPS kernels
(`%r = pto.treshape %t : !pto.tile_buf<...> -> !pto.tile_buf<...>`), in an online-softmax update written here in
the style of PTOAS's paged-attention samples. Expected values: the bytes themselves, and NumPy math."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, IllegalInstructionError, SLayout, Tile, TileType


def test_treshape_makes_dst_a_view_of_src_bytes():
    src = Tile[TileType.Vec, np.float32, 16, 1, BLayout.ColMajor]()
    src.set_logical(np.arange(16, dtype=np.float32).reshape(16, 1) - 3.5)
    row = Tile[TileType.Vec, np.float32, 1, 16]()
    ptoisa.TRESHAPE(row, src, target="cpu")
    assert row.data[0].tolist() == [float(v) - 3.5 for v in range(16)]
    ptoisa.TADDS(src, src, np.float32(1.0), target="cpu")  # every target aliases: a later write shows in both
    assert row.data[0, 0] == -2.5
    as_int = Tile[TileType.Vec, np.int32, 2, 8]()
    ptoisa.TRESHAPE(as_int, row, target="a2a3")  # the NPU backends take any element types
    assert as_int.tobytes() == src.tobytes()
    assert as_int.data[0, 0] == np.float32(-2.5).view(np.int32)


def test_the_simulator_refuses_a_float_to_integer_reshape():
    src, dst = Tile[TileType.Vec, np.float32, 1, 16](), Tile[TileType.Vec, np.int32, 1, 16]()
    with pytest.raises(IllegalInstructionError, match="not compatible"):
        ptoisa.TRESHAPE(dst, src, target="cpu")
    half = Tile[TileType.Vec, np.float16, 1, 32]()
    ptoisa.TRESHAPE(half, src, target="cpu")  # float to float is fine


@pytest.mark.parametrize(("dst_spec", "words"), [
    (Tile[TileType.Vec, np.float32, 1, 8], "as many bytes"),
    (Tile[TileType.Mat, np.float32, 1, 16], "location"),
    (Tile[TileType.Vec, np.float32, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor], "boxed"),
])
def test_treshape_refusals_change_nothing(dst_spec, words):
    src = Tile[TileType.Vec, np.float32, 1, 16]() if "boxed" not in words else Tile[TileType.Vec, np.float32, 16, 16]()
    src.set_logical(np.ones((1, 16), np.float32))
    dst = dst_spec()
    before = dst.tobytes()
    with pytest.raises(IllegalInstructionError, match=words):
        ptoisa.TRESHAPE(dst, src, target="a5")
    assert dst.tobytes() == before


COL = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>"
ROW = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
WIDE = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
UPDATE = f"""module {{
  func.func @update(%m_new_p: !pto.ptr<f32>, %m_old_p: !pto.ptr<f32>, %acc_p: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %vn = pto.make_tensor_view %m_new_p, shape = [%c16, %c1], strides = [%c1, %c16] : !pto.tensor_view<?x?xf32>
    %vo = pto.make_tensor_view %m_old_p, shape = [%c16, %c1], strides = [%c1, %c16] : !pto.tensor_view<?x?xf32>
    %va = pto.make_tensor_view %acc_p, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %pn = pto.partition_view %vn, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x1xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x1xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %mn = pto.alloc_tile : {COL}
    %mo = pto.alloc_tile : {COL}
    %acc = pto.alloc_tile : {WIDE}
    %m = pto.alloc_tile : {ROW}
    %d = pto.alloc_tile : {ROW}
    %scale = pto.alloc_tile : {ROW}
    pto.tload ins(%pn : !pto.partition_tensor_view<16x1xf32>) outs(%mn : {COL})
    pto.tload ins(%po : !pto.partition_tensor_view<16x1xf32>) outs(%mo : {COL})
    pto.tload ins(%pa : !pto.partition_tensor_view<16x64xf32>) outs(%acc : {WIDE})
    %rn = pto.treshape %mn : {COL} -> {ROW}
    %ro = pto.treshape %mo : {COL} -> {ROW}
    pto.tmax ins(%rn, %ro : {ROW}, {ROW}) outs(%m : {ROW})
    pto.tsub ins(%ro, %m : {ROW}, {ROW}) outs(%d : {ROW})
    pto.texp ins(%d : {ROW}) outs(%scale : {ROW})
    %per_row = pto.treshape %scale : {ROW} -> {COL}
    pto.trowexpandmul ins(%acc, %per_row : {WIDE}, {COL}) outs(%acc : {WIDE})
    %m_col = pto.treshape %m : {ROW} -> {COL}
    pto.tstore ins(%m_col : {COL}) outs(%po : !pto.partition_tensor_view<16x1xf32>)
    pto.tstore ins(%acc : {WIDE}) outs(%pa : !pto.partition_tensor_view<16x64xf32>)
    return
  }}
}}
"""


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_an_online_softmax_rescale_through_reshaped_row_statistics(target):
    rng = np.random.default_rng(11)
    m_new, m_old = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    acc = rng.standard_normal((16, 64)).astype(np.float32)
    out_m, out_acc = m_old.copy(), acc.copy()
    ptoisa.load(UPDATE, target=target).run(m_new, out_m, out_acc)
    m = np.maximum(m_new, m_old)
    scale = np.exp((m_old - m).astype(np.float64)).astype(np.float32)  # exp rounded once from double
    assert np.array_equal(out_m, m)
    assert np.array_equal(out_acc, acc * scale[:, None])


def test_check_accepts_the_kernel_and_locates_a_reshape_that_changes_the_byte_size(tmp_path):
    good = tmp_path / "update.pto"
    good.write_text(UPDATE)
    ok = subprocess.run([sys.executable, "-m", "ptoisa", "check", str(good), "--target", "a5"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = tmp_path / "bad.pto"
    mark = f"    %m_col = pto.treshape %m : {ROW} -> {COL}\n"
    bad.write_text(UPDATE.replace(mark, mark + f"    %oops = pto.treshape %m : {ROW} -> {WIDE}\n"))
    refused = subprocess.run([sys.executable, "-m", "ptoisa", "check", str(bad), "--target", "a5"],
                             capture_output=True, text=True)
    assert refused.returncode != 0
    line = UPDATE.splitlines().index(mark.rstrip("\n")) + 2
    report = refused.stdout + refused.stderr
    assert f"bad.pto:{line}:" in report and "as many bytes" in report
