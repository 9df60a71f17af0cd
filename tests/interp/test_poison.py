"""fill="poison" (`ptoisa run --fill poison`): the first read of a tile element nothing wrote stops the run,
naming the op, its location, the operand and the element; every shipped kernel runs clean under it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ptoisa
from ptoisa.errors import UninitializedReadError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pto"
TB = "!pto.tile_buf<vec, 4x32xf32>"
HEAD = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %a0 = arith.constant 0 : i64
    %tx = pto.make_tensor_view %x, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<4x32xf32>
    %ty = pto.make_tensor_view %y, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<4x32xf32>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<4x32xf32> -> !pto.partition_tensor_view<4x32xf32>
    %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<4x32xf32> -> !pto.partition_tensor_view<4x32xf32>
"""
TAIL = f"""    pto.tstore ins(%a : {TB}) outs(%py : !pto.partition_tensor_view<4x32xf32>)
    return
  }}
}}
"""
LOAD_A = f"    pto.tload ins(%px : !pto.partition_tensor_view<4x32xf32>) outs(%a : {TB})\n"


def _run(body: str) -> np.ndarray:
    y = np.zeros((4, 32), np.float32)
    ptoisa.load(HEAD + body + TAIL, target="cpu", fill="poison").run(np.ones((4, 32), np.float32), y)
    return y


def test_an_add_of_a_never_written_tile_is_reported_with_its_location():
    body = f"    %a = pto.alloc_tile : {TB}\n    %b = pto.alloc_tile : {TB}\n" + LOAD_A + \
        f"    pto.tadd ins(%a, %b : {TB}, {TB}) outs(%a : {TB})\n"
    with pytest.raises(UninitializedReadError, match=r"src1 element \(0, 0\)") as info:
        _run(body)
    assert any("pto.tadd at" in note and ":16:" in note for note in info.value.__notes__)


def test_a_store_of_a_tile_written_only_in_part_names_the_first_unwritten_element():
    body = (f"    %a = pto.alloc_tile valid_row = %c2 valid_col = %c32 : !pto.tile_buf<vec, 4x32xf32, valid=?x?>\n"
            f"    pto.texpands ins(%f : f32) outs(%a : !pto.tile_buf<vec, 4x32xf32, valid=?x?>)\n"
            f"    pto.set_validshape %a, %c4, %c32 : !pto.tile_buf<vec, 4x32xf32, valid=?x?>\n")
    body = "    %f = arith.constant 2.0 : f32\n" + body
    text = (HEAD + body + "    pto.tstore ins(%a : !pto.tile_buf<vec, 4x32xf32, valid=?x?>) outs(%py : "
            "!pto.partition_tensor_view<4x32xf32>)\n    return\n  }\n}\n")
    program = ptoisa.load(text, target="cpu", fill="poison")
    with pytest.raises(UninitializedReadError, match=r"element \(2, 0\).*64 of 128"):
        program.run(np.ones((4, 32), np.float32), np.zeros((4, 32), np.float32))
    program.run(np.ones((4, 32), np.float32), np.zeros((4, 32), np.float32), fill="zero")  # no check otherwise


def test_tiles_at_one_address_share_what_was_written():
    body = (f"    %w = pto.alloc_tile addr = %a0 : {TB}\n"
            f"    pto.tload ins(%px : !pto.partition_tensor_view<4x32xf32>) outs(%w : {TB})\n"
            f"    %a = pto.alloc_tile addr = %a0 : {TB}\n"
            f"    pto.texp ins(%a : {TB}) outs(%a : {TB})\n")
    assert np.allclose(_run(body), np.e)


@pytest.mark.parametrize(("name", "args"), [
    ("run_softmax.pto", lambda: (np.ones((8, 64), np.float16), np.zeros((8, 64), np.float16))),
    ("run_rmsnorm.pto", lambda: (np.ones((16, 1024), ml_dtypes.bfloat16), np.zeros((16, 1024), ml_dtypes.bfloat16),
                                 np.ones((1, 1024), np.float32))),
    ("run_scale_compare.pto", lambda: (np.ones((64, 16), np.float32), np.zeros((64, 16), np.float32),
                                       np.zeros((64, 2), np.uint8), 2.0, 1.0)),
])
def test_the_shipped_kernels_read_nothing_unwritten(name, args):
    ptoisa.load(EXAMPLES / name, fill="poison").run(*args(), target="cpu")


def test_the_cli_reports_it_with_exit_status_1(tmp_path):
    body = f"    %a = pto.alloc_tile : {TB}\n    %b = pto.alloc_tile : {TB}\n" + LOAD_A + \
        f"    pto.tmul ins(%b, %a : {TB}, {TB}) outs(%a : {TB})\n"
    (tmp_path / "k.pto").write_text(HEAD + body + TAIL)
    np.save(tmp_path / "x.npy", np.ones((4, 32), np.float32))
    done = subprocess.run([sys.executable, "-m", "ptoisa", "run", "k.pto", "x.npy", "zeros:4x32", "--fill", "poison"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1
    assert "src0 element (0, 0)" in done.stderr and "pto.tmul at" in done.stderr and "Traceback" not in done.stderr
