"""pto.section.cube / pto.section.vector: a mixed kernel's per-core parts run in program order; they parse,
print back and verify like PTOAS's. The cross-core sync ops between them (sync.set/wait, get_buf/rls_buf) run as
no-ops."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

import ptoisa

KERNEL = """func.func @mixed(%x: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %tv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xf32>
  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.section.vector {
    pto.tload ins(%pv : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tmuls ins(%t, %two : !pto.tile_buf<vec, 1x16xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.sync.set <PIPE_V>, 0
  }
  pto.section.cube {
    pto.sync.wait <PIPE_FIX>, 0
    pto.get_buf[#pto.pipe_event_type<TLOAD>, 0]
    %unused = arith.constant 0 : index
    pto.rls_buf[#pto.pipe_event_type<TLOAD>, 0]
  }
  pto.section.vector {
    pto.tadds ins(%t, %one : !pto.tile_buf<vec, 1x16xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%pv : !pto.partition_tensor_view<1x16xf32>)
  }
  return
}
"""


def test_sections_run_in_program_order():
    x = np.arange(16, dtype=np.float32).reshape(1, 16)
    ptoisa.load(KERNEL).run(x)
    assert x.tolist() == [[2.0 * v + 1.0 for v in range(16)]]  # (x * 2) + 1: the second section ran after


def test_sections_print_back_and_reload(tmp_path):
    source = tmp_path / "mixed.pto"
    source.write_text(KERNEL)
    done = subprocess.run([sys.executable, "-m", "ptoisa", "convert", str(source), "--to", "dps"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("pto.section.vector {") == 2 and "pto.section.cube {" in done.stdout
    x = np.arange(16, dtype=np.float32).reshape(1, 16)
    ptoisa.load(done.stdout).run(x)
    assert x[0, 3] == 7.0
