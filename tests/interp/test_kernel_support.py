"""What whole kernels need around the instructions: tile windows (pto.subview), pointer offsets (pto.addptr),
entry functions that take tiles, and `ptoisa run --grid N`. Expected values are NumPy slices and math."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptoisa
from interp_helpers import not_alone
from ptoisa.interp import ArgumentError

HEAD = """module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %ten = arith.constant 10.0 : f32
"""


def window_kernel(row: int, col: int, rows: int, cols: int, y_offset: int) -> str:
    return HEAD + f"""    %r = arith.constant {row} : index
    %c = arith.constant {col} : index
    %off = arith.constant {y_offset} : index
    %tx = pto.make_tensor_view %x, shape = [%c8, %c32], strides = [%c32, %c1] : !pto.tensor_view<8x32xf32>
    %y2 = pto.addptr %y, %off : !pto.ptr<f32> -> !pto.ptr<f32>
    %ty = pto.make_tensor_view %y2, shape = [%c8, %c32], strides = [%c32, %c1] : !pto.tensor_view<8x32xf32>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c8, %c32] : !pto.tensor_view<8x32xf32> -> !pto.partition_tensor_view<8x32xf32>
    %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c8, %c32] : !pto.tensor_view<8x32xf32> -> !pto.partition_tensor_view<8x32xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 8x32xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<8x32xf32>) outs(%a : !pto.tile_buf<vec, 8x32xf32>)
    %w = pto.subview %a[%r, %c] sizes [{rows}, {cols}] : !pto.tile_buf<vec, 8x32xf32> -> !pto.tile_buf<vec, {rows}x{cols}xf32>
    pto.tadds ins(%w, %ten : !pto.tile_buf<vec, {rows}x{cols}xf32>, f32) outs(%w : !pto.tile_buf<vec, {rows}x{cols}xf32>)
    pto.tstore ins(%a : !pto.tile_buf<vec, 8x32xf32>) outs(%py : !pto.partition_tensor_view<8x32xf32>)
    return
  }}
}}
"""


@pytest.mark.parametrize(("row", "col", "rows", "cols"), [(2, 8, 2, 16), (3, 0, 4, 32), (0, 24, 8, 8)])
def test_a_subview_writes_through_to_its_tile_and_addptr_offsets_the_output(row, col, rows, cols):
    x = np.arange(256, dtype=np.float32).reshape(8, 32)
    y = np.full(16 + 256, -1.0, np.float32)
    ptoisa.load(window_kernel(row, col, rows, cols, 16), target="cpu").run(x, y)
    expected = x.copy()
    expected[row:row + rows, col:col + cols] += 10
    assert np.array_equal(y[16:].reshape(8, 32), expected)
    assert np.all(y[:16] == -1)  # before the offset pointer: untouched


def test_a_subview_past_its_tile_is_refused():
    x = np.zeros((8, 32), np.float32)
    y = np.zeros(256, np.float32)
    with pytest.raises(ptoisa.PtoError, match="subview"):
        ptoisa.load(window_kernel(6, 0, 4, 32, 0), target="cpu").run(x, y)


def test_addptr_past_the_tensor_is_refused():
    x = np.zeros((8, 32), np.float32)
    y = np.zeros(16, np.float32)
    with pytest.raises(ptoisa.OutOfBoundsError, match="addptr"):
        ptoisa.load(window_kernel(0, 0, 2, 16, 32), target="cpu").run(x, y)


TILE_ENTRY = """module {
  func.func @k(%a: !pto.tile_buf<vec, 4x16xf32>, %b: !pto.tile_buf<vec, 4x16xf32>, %s: f32) {
    pto.tadds ins(%a, %s : !pto.tile_buf<vec, 4x16xf32>, f32) outs(%b : !pto.tile_buf<vec, 4x16xf32>)
    return
  }
}
"""


def test_entry_functions_take_tiles_as_arrays_or_tiles():
    program = ptoisa.load(TILE_ENTRY, target="cpu")
    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    b = np.zeros((4, 16), np.float32)
    result = program.run(a, b, 2.0)
    assert np.array_equal(b, a + 2) and list(result.outputs) == ["b"]
    spec = ptoisa.Tile[ptoisa.TileType.Vec, ptoisa.float32_t, 4, 16]
    ta, tb = spec(), spec()
    ta.set_logical(a)
    program.run(ta, tb, 1.0)
    assert np.array_equal(tb.to_numpy(), a + 1)
    with pytest.raises(ArgumentError, match="shape 4x16"):
        program.run(np.zeros((4, 8), np.float32), b, 1.0)


GRID = """module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %b64 = pto.get_block_idx
    %b = arith.index_cast %b64 : i64 to index
    %r0 = arith.muli %b, %c4 : index
    %tx = pto.make_tensor_view %x, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<16x32xf32>
    %ty = pto.make_tensor_view %y, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<16x32xf32>
    %px = pto.partition_view %tx, offsets = [%r0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<16x32xf32> -> !pto.partition_tensor_view<4x32xf32>
    %py = pto.partition_view %ty, offsets = [%r0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<16x32xf32> -> !pto.partition_tensor_view<4x32xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 4x32xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<4x32xf32>) outs(%a : !pto.tile_buf<vec, 4x32xf32>)
    pto.tsqrt ins(%a : !pto.tile_buf<vec, 4x32xf32>) outs(%a : !pto.tile_buf<vec, 4x32xf32>)
    pto.tstore ins(%a : !pto.tile_buf<vec, 4x32xf32>) outs(%py : !pto.partition_tensor_view<4x32xf32>)
    return
  }
}
"""


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ptoisa", *argv], capture_output=True, text=True, cwd=cwd)


def test_run_grid_runs_every_block_over_the_same_tensors(tmp_path):
    (tmp_path / "k.pto").write_text(GRID)
    x = np.arange(512, dtype=np.float32).reshape(16, 32)
    np.save(tmp_path / "x.npy", x)
    done = _cli("run", "k.pto", "x.npy", "zeros:16x32", "--grid", "4", "--target", "cpu", "--out", "o",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "block 4/4" in done.stderr
    y = np.load(tmp_path / "o" / "y.npy")
    assert np.array_equal(y, np.sqrt(x.astype(np.float64)).astype(np.float32))
    one = _cli("run", "k.pto", "x.npy", "zeros:16x32", "--block", "1/4", "--target", "cpu", "--out", "p",
               cwd=tmp_path)
    y1 = np.load(tmp_path / "p" / "y.npy")
    assert one.returncode == 0 and np.all(y1[:4] == 0) and np.array_equal(y1[4:8], y[4:8])


def test_grid_and_block_together_are_a_usage_error(tmp_path):
    (tmp_path / "k.pto").write_text(GRID)
    np.save(tmp_path / "x.npy", np.zeros((16, 32), np.float32))
    done = _cli("run", "k.pto", "x.npy", "zeros:16x32", "--grid", "2", "--block", "0/2", cwd=tmp_path)
    assert done.returncode == 2 and "either --grid N or --block" in done.stderr


SCALARS = """module {
  func.func @k(%t: !pto.ptr<i64>, %o: !pto.ptr<i64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = pto.load_scalar %t[%c1] : !pto.ptr<i64> -> i64
    %w = arith.addi %v, %v : i64
    pto.store_scalar %w, %o[%c0] : !pto.ptr<i64>, i64
    pto.fence.barrier_all #pto.fence_scope<gm>
    pto.fence.release #pto.fence_scope<ddr>
    return
  }
}
"""


def test_64_bit_integer_pointers_and_fences():
    table = np.array([5, 2**40 + 3, 7], np.int64)
    out = np.zeros(2, np.int64)
    result = ptoisa.load(SCALARS, target="cpu").run(table, out)
    assert out.tolist() == [2 * (2**40 + 3), 0] and list(result.outputs) == ["o"]
    with pytest.raises(ArgumentError, match="int64"):
        ptoisa.load(SCALARS, target="cpu").run(table.astype(np.int32), out)


LEVEL1 = not_alone("""module {
  func.func @k(%a: !pto.tile<4x16xf32>, %b: !pto.tile<4x16xf32>, %s: f32) -> !pto.tile<4x16xf32> {
    %sum = pto.tadd %a, %b : (!pto.tile<4x16xf32>, !pto.tile<4x16xf32>) -> !pto.tile<4x16xf32>
    %scaled = pto.tmuls %sum, %s : (!pto.tile<4x16xf32>, f32) -> !pto.tile<4x16xf32>
    %e = pto.texp %scaled : !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
    return %e : !pto.tile<4x16xf32>
  }
}
""")


def test_level_1_ssa_kernels_of_vector_instructions_run_and_convert():
    from ptoisa.ir import parse_module, print_module
    from ptoisa.ir.forms import to_dps, to_ssa

    a = np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16)
    b = np.full((4, 16), 0.5, np.float32)
    result = ptoisa.load(LEVEL1, target="cpu").run(a, b, 2.0)
    (tile,) = result.returns
    expected = np.exp(((a + b) * np.float32(2)).astype(np.float64)).astype(np.float32)
    assert tile.to_numpy().tobytes() == expected.tobytes()
    dps = print_module(to_dps(parse_module(LEVEL1)))
    assert "pto.tadd ins(" in dps and "outs(" in dps
    back = print_module(to_ssa(parse_module(dps)))
    assert "= pto.tadd %" in back


def test_pto_as_assembly_kernels_run_with_the_vector_instructions(tmp_path):
    text = LEVEL1.replace("pto.tadd", "tadd").replace("pto.tmuls", "tmuls").replace("pto.texp", "texp")
    (tmp_path / "k.ptoas").write_text(text)
    a = np.zeros((4, 16), np.float32)
    (tile,) = ptoisa.load(tmp_path / "k.ptoas", target="cpu").run(a, a, 1.0).returns
    assert np.all(tile.to_numpy() == 1.0)
    done = _cli("run", "k.ptoas", "zeros:4x16", "zeros:4x16", "3", "--target", "cpu", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_the_cli_saves_and_prints_the_tiles_an_ssa_kernel_returns(tmp_path):
    import json

    (tmp_path / "k.pto").write_text(LEVEL1)
    a = np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16)
    np.save(tmp_path / "a.npy", a)
    expected = np.exp(((a + np.float32(0.5)) * np.float32(2)).astype(np.float64)).astype(np.float32)
    np.save(tmp_path / "b.npy", np.full((4, 16), 0.5, np.float32))
    done = _cli("run", "k.pto", "a.npy", "b.npy", "2", "--target", "cpu", "--out", "res", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "return #0 = Tile<Vec, float, 4, 16" in done.stdout and "-> res/return0.npy" in done.stdout
    assert np.load(tmp_path / "res" / "return0.npy").tobytes() == expected.tobytes()
    done = _cli("run", "k.pto", "a.npy", "b.npy", "2", "--target", "cpu", cwd=tmp_path)  # no --out: printed
    assert "%return0 =" in done.stdout and "no global tensor was written" not in done.stdout
    done = _cli("run", "k.pto", "a.npy", "b.npy", "2", "--target", "cpu", "--format", "json", "--out", "j",
                cwd=tmp_path)
    (ret,) = json.loads(done.stdout)["returns"]
    assert ret["name"] == "return0" and ret["shape"] == [4, 16] and ret["saved"] == ["j/return0.npy"]
    done = _cli("run", "k.pto", "a.npy", "b.npy", "2", "--target", "cpu", "--out", "g", "--golden", "-q",
                cwd=tmp_path)  # the returned tile is an output of the manifest (it was a KeyError, exit 3)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["outputs"]["return0"]["shape"] == [4, 16] and manifest["scalars"] == {"s": 2}
    assert np.fromfile(tmp_path / "g" / "return0.bin", np.float32).tobytes() == expected.tobytes()
