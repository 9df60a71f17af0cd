"""TPRINT prints the valid region as the simulator does. The expected text is what the reference CPU simulator
printed for the same tiles (a driver of ours built with g++ 12 against include/pto/cpu/TPrint.hpp: `%8.4f` floats
with glibc's `-nan`, 8-wide integers, int8 as numbers)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType

SIMULATOR_FLOAT = "TPRINT 2x3\n  1.5000  -2.0000   0.2500\n     nan     -nan      inf\n"
SIMULATOR_INT8 = "TPRINT 1x3\n      -5        7      127\n"
SIMULATOR_INT32 = "TPRINT 1x2\n-123456789       42\n"


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tprint_writes_what_the_simulator_writes(target, capsys):
    f = Tile[TileType.Vec, np.float32, 2, 8, BLayout.RowMajor, 2, 3]()
    raw = np.array([1.5, -2, 0.25, 9, 9, 9, 9, 9, np.nan, 0, np.inf, 9, 9, 9, 9, 9], np.float32)
    raw.view(np.uint32)[9] = 0xFFC00000  # a NaN with its sign bit set
    f.storage[...] = raw
    before = f.tobytes()
    ptoisa.TPRINT(f, target=target)
    c = Tile[TileType.Vec, np.int8, 1, 32, BLayout.RowMajor, 1, 3]()
    c.set_logical(np.array([[-5, 7, 127] + [0] * 29], np.int8))
    ptoisa.TPRINT(c, target=target)
    n = Tile[TileType.Vec, np.int32, 1, 8, BLayout.RowMajor, 1, 2]()
    n.set_logical(np.array([[-123456789, 42, 0, 0, 0, 0, 0, 0]], np.int32))
    ptoisa.TPRINT(n, target=target)
    assert capsys.readouterr().out == SIMULATOR_FLOAT + SIMULATOR_INT8 + SIMULATOR_INT32
    assert f.tobytes() == before


KERNEL = """module {
  func.func @show(%x: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tv = pto.make_tensor_view %x, shape = [%c1, %c2], strides = [%c2, %c1] : !pto.tensor_view<1x2xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %c2] : !pto.tensor_view<1x2xf32> -> !pto.partition_tensor_view<1x2xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32, valid=1x2>
    pto.tload ins(%pv : !pto.partition_tensor_view<1x2xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32, valid=1x2>)
    pto.tprint ins(%t : !pto.tile_buf<vec, 1x8xf32, valid=1x2>)
    return
  }
}
"""


def test_pto_tprint_runs_in_a_kernel_and_round_trips(tmp_path, capsys):
    program = ptoisa.load(KERNEL)
    program.run(np.array([[0.5, -1.0]], np.float32))
    assert capsys.readouterr().out == "TPRINT 1x2\n  0.5000  -1.0000\n"
    source = tmp_path / "show.pto"
    source.write_text(KERNEL)
    done = subprocess.run([sys.executable, "-m", "ptoisa", "convert", str(source), "--to", "dps"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if "pto.tprint" in line)
    assert "ins(" in line and "outs" not in line  # printed back without an outs(...) group
    assert ptoisa.load(done.stdout) is not None  # and it reads again


def test_cli_json_keeps_stdout_for_the_report(tmp_path):
    source = tmp_path / "show.pto"
    source.write_text(KERNEL)
    data = tmp_path / "x.npy"
    np.save(data, np.array([[0.5, -1.0]], np.float32))
    done = subprocess.run([sys.executable, "-m", "ptoisa", "run", str(source), str(data), "--format", "json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # the whole of stdout is the report
    assert "TPRINT 1x2" in done.stderr
