"""Errors: bad arguments, shape mismatches, unknown entries, refused instructions at run time (with location),
unsupported ops, and the CLI's exit codes and messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from interp_helpers import kernel

from ptoisa.cli.main import main
from ptoisa.errors import IllegalInstructionError, TileSpecError
from ptoisa.interp import (ArgumentError, ExecutionError, LoadError, UnknownEntryError, UnsupportedOpError, load,
                           location_of)

EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"

# Verifies on A5 (i8 tcmps input), refused by the core on a2a3 at run time.
I8_TCMPS = """    %s = arith.constant 0 : i8
    %a = pto.alloc_tile : !pto.tile_buf<vec, 32x32xi8>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 32x32xui8, valid=32x4>
    pto.tcmps ins(%a, %s {cmpMode = #pto<cmp gt>} : !pto.tile_buf<vec, 32x32xi8>, i8) outs(%d : !pto.tile_buf<vec, 32x32xui8, valid=32x4>)
    return"""


def test_illegal_instruction_at_run_time_keeps_type_and_gains_location() -> None:
    program = kernel(I8_TCMPS, arch="a5")
    program.run()  # legal on a5
    with pytest.raises(IllegalInstructionError, match="TCMPS on a2a3: src0 dtype int8") as info:
        program.run(target="a2a3")
    assert info.value.__notes__ == ["in pto.tcmps at <string>:6:5"]
    assert location_of(info.value) == "<string>:6:5"


def test_error_inside_loop_and_call_is_located_once(tmp_path: Path) -> None:
    text = """module {
  func.func private @bad(%n: index) {
    %t = pto.alloc_tile valid_row = %n valid_col = %n : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c20 = arith.constant 20 : index
    scf.for %i = %c0 to %c20 step %c1 {
      %n = arith.addi %i, %c1 : index
      func.call @bad(%n) : (index) -> ()
    }
    return
  }
}"""
    path = tmp_path / "k.pto"
    path.write_text(text)
    with pytest.raises(TileSpecError, match=r"got 17") as info:
        load(path).run()
    assert info.value.__notes__ == [f"in pto.alloc_tile at {path}:3:5", f"called from func.call at {path}:12:7"]


def test_argument_errors() -> None:
    program = load(EXAMPLES / "run_scale_compare.pto")
    x, y, m = np.zeros((64, 16), np.float32), np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)
    with pytest.raises(ArgumentError, match="missing argument"):
        program.run(x, y, m, 1.0)
    with pytest.raises(ArgumentError, match="takes 5 arguments"):
        program.run(x, y, m, 1.0, 2.0, 3.0)
    with pytest.raises(ArgumentError, match="needs uint8 data, got float32"):
        program.run(x, y, y, 1.0, 2.0)
    with pytest.raises(ArgumentError, match="no argument %bogus"):
        program.run(x, y, m, 1.0, 2.0, bogus=1)
    with pytest.raises(ArgumentError, match="given twice"):
        program.run(x, y, m, 1.0, 2.0, x=x)
    with pytest.raises(ArgumentError, match="needs a NumPy array"):
        program.run(x, y, 3, 1.0, 2.0)
    with pytest.raises(ArgumentError, match="must be a number"):
        program.run(x, y, m, "1.0", 2.0)


def test_scalar_range_errors() -> None:
    program = load(EXAMPLES / "run_iota_gather.pto")
    args = (np.zeros(256, np.float32), np.zeros(16, np.int32), np.zeros((4, 8), np.int32), np.zeros(16, np.float32))
    with pytest.raises(ArgumentError, match="does not fit i32"):
        program.run(*args, 1 << 40, 4)
    with pytest.raises(ArgumentError, match="must be an integer"):
        program.run(*args, 1.5, 4)


def test_shape_mismatch_is_an_out_of_bounds_error_with_location() -> None:
    from ptoisa.errors import OutOfBoundsError

    program = load(EXAMPLES / "run_scale_compare.pto")
    small = np.zeros((32, 16), np.float32)
    with pytest.raises(OutOfBoundsError, match="holds 512 elements") as info:
        program.run(small, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8), 1.0, 2.0)
    assert info.value.__notes__[0].startswith("in pto.make_tensor_view at ")
    assert info.value.__notes__[0].endswith("run_scale_compare.pto:14:5")


def test_memref_shape_mismatch() -> None:
    p = kernel("    return", "%m: memref<64xf32, #pto.address_space<gm>>")
    with pytest.raises(ArgumentError, match="holds 64 elements; the array has 32"):
        p.run(np.zeros(32, np.float32))


def test_unknown_entry() -> None:
    program = load(EXAMPLES / "run_scale_compare.pto")
    with pytest.raises(UnknownEntryError, match="no function @nope"):
        program.run("nope")
    two = load("module {\n func.func @a() {\n return\n }\n func.func @b() {\n return\n }\n}")
    with pytest.raises(UnknownEntryError, match="2 candidate entry functions"):
        two.run()
    assert two.run("b").entry == "b"


def test_unsupported_op_is_reported_at_decode_with_location() -> None:
    p = kernel("    %a = arith.constant 1 : i32\n    %r:2 = arith.addui_extended %a, %a : i32, i1\n    return")
    with pytest.raises(UnsupportedOpError, match=r"cannot execute arith.addui_extended \(in arith.addui_extended "
                                                 r"at <string>:4:5\)"):
        p.run()


def test_load_errors() -> None:
    with pytest.raises(LoadError, match="cannot read"):
        load("/nonexistent/kernel.pto")
    with pytest.raises(LoadError):
        load("module {\n func.func @a( {\n}")
    with pytest.raises(ArgumentError, match="fill"):
        kernel("    return").run(fill="pink")


def _cli(capsys, *argv):
    status = main(["run", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_exit_codes_and_messages(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.pto"
    path.write_text('module attributes {pto.target_arch = "a5"} {\n  func.func @k() {\n' + I8_TCMPS + "\n  }\n}\n")
    status, out, err = _cli(capsys, str(path))
    assert status == 0 and "target: a5" in out and "no global tensor was written" in out
    status, out, err = _cli(capsys, str(path), "--target", "a2a3")  # --target also decides verification
    assert status == 1 and f"{path}:6:5: error: TCMPS on a2a3: src0 dtype int8" in err
    assert f"{path} does not verify for target a2a3" in err
    assert "Traceback" not in err
    status, _, err = _cli(capsys, str(path), "--entry", "nope")
    assert status == 2 and "no function @nope" in err
    status, _, err = _cli(capsys, str(path), "1")
    assert status == 2 and "too many arguments" in err
    status, _, err = _cli(capsys, str(tmp_path / "missing.pto"))
    assert status == 2 and "cannot read" in err


def test_cli_argument_errors(tmp_path: Path, capsys) -> None:
    example = str(EXAMPLES / "run_scale_compare.pto")
    status, _, err = _cli(capsys, example, "zeros:64x16")
    assert status == 2 and "missing argument(s) %scaled, %mask, %scale, %threshold" in err
    assert "zeros:SHAPE for an output tensor" in err and "(ptoisa run --help)" in err  # what to give
    status, _, err = _cli(capsys, example, "x.txt", "zeros:64x16", "zeros:64x2", "1", "2")
    assert status == 2 and "needs FILE.npy" in err
    np.zeros(10, np.float32).tofile(tmp_path / "x.bin")
    status, _, err = _cli(capsys, example, f"{tmp_path / 'x.bin'}:f32:64x16", "zeros:64x16", "zeros:64x2", "1", "2")
    assert status == 2 and "holds 10 float32 elements, not 64x16" in err
    status, _, err = _cli(capsys, example, "zeros:64x16", "zeros:64x16", "zeros:64x2", "one", "2")
    assert status == 2 and "needs a number" in err
    status, _, err = _cli(capsys, example, "zeros:64x16", "zeros:64x16", "zeros:64x2", "1", "2", "--block", "3/2")
    assert status == 2 and "--block" in err
    status, _, err = _cli(capsys, example, "zeros:64x16", "zeros:64x16", "zeros:64x2", "1", "2", "--fill", "300")
    assert status == 2 and "--fill" in err


def test_cli_help_has_examples(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "FILE.bin[:DTYPE[:SHAPE]]" in out and "--fill" in out


def test_a_given_target_decides_verification_and_device_spec_selects_a5(tmp_path: Path) -> None:
    from ptoisa.interp import load

    int8 = tmp_path / "int8.pto"
    int8.write_text('module attributes {pto.target_arch = "a2a3"} {\n  func.func @k() {\n' + I8_TCMPS + "\n  }\n}\n")
    with pytest.raises(LoadError, match="TCMPS on a2a3: src0 dtype int8"):
        load(int8)
    assert load(int8, target="cpu").run().ops_executed > 0  # legal on cpu: verified for cpu, not the module's a2a3
    spec = tmp_path / "spec.pto"
    spec.write_text('module attributes {"pto.device-spec" = "Ascend950PR_9599"} {\n  func.func @k() {\n'
                    + I8_TCMPS + "\n  }\n}\n")
    assert load(spec).target_arch == "a5"


@pytest.mark.parametrize("block", [(1,), "0", (0, 1, 2), (2, 2)])
def test_bad_block_arguments_are_argument_errors(tmp_path: Path, block) -> None:
    path = tmp_path / "k.pto"
    path.write_text('module attributes {pto.target_arch = "a5"} {\n  func.func @k() {\n' + I8_TCMPS + "\n  }\n}\n")
    with pytest.raises(ArgumentError, match="block"):
        load(path).run(block=block)


def test_a_read_only_output_refuses_its_write_whatever_its_layout() -> None:
    """A read-only array the kernel writes: C-contiguous or not (a broadcast, a strided view), the first store
    raises the read-only ExecutionError and the array is unchanged. Before, a non-contiguous one was copied in,
    written in the copy, never copied back, and returned in `outputs` as if written."""
    program = load(EXAMPLES / "run_scale_compare.pto")
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    for y in (np.zeros((64, 16), np.float32), np.broadcast_to(np.zeros(16, np.float32), (64, 16)),
              np.zeros((64, 32), np.float32)[:, ::2]):
        y.flags.writeable = False
        before = y.copy()
        with pytest.raises(ExecutionError, match="read-only") as info:
            program.run(x, y, np.zeros((64, 2), np.uint8), 2.0, 100.0, target="cpu")
        assert location_of(info.value).endswith(":34:7") and np.array_equal(y, before)
    strided = np.zeros((64, 32), np.float32)[:, ::2]  # a read-only non-contiguous input is only read: it runs
    strided.flags.writeable = False
    assert program.run(strided, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8), 2.0, 100.0).outputs


def test_load_and_run_refuse_odd_python_values_with_our_errors() -> None:
    """load() of something that is no path or text, or a path with a NUL; run() with a ragged or non-numeric
    list, or numbers outside the element type: PtoErrors naming the problem, not TypeError / ValueError from
    Python or NumPy."""
    from pathlib import Path

    from ptoisa.errors import PtoError

    for value in (None, b"module {}", 5):
        with pytest.raises(ArgumentError, match=f"load takes a path or PTOAS text \\(got {type(value).__name__}\\)"):
            load(value)  # type: ignore[arg-type]
    for path in ("a\0b.pto", Path("a\0b")):
        with pytest.raises(LoadError, match="a path has no NUL character"):
            load(path)
    program = load(EXAMPLES / "run_scale_compare.pto")
    y, m = np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)
    for x, mask, words in (([[1.0], [1.0, 2.0]], m, "%x .* not an array of float32"),
                           ([["a"] * 16] * 64, m, "%x .* not an array of float32"),
                           (np.zeros((64, 16), np.float32), [[300] * 2] * 64, "%mask .* not an array of uint8")):
        with pytest.raises(PtoError, match=words):
            program.run(x, y, mask, 2.0, 100.0)


def test_a_declaration_named_as_the_entry_is_refused_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """entry= / --entry naming a declaration: UnknownEntryError saying so, at the declaration (CLI: exit 2).
    Before, its arguments were described as none ('too many arguments: the entry takes 0') or the run failed
    while decoding; a call of a declaration inside a run is still refused when its caller is decoded."""
    text = """module {
  func.func private @ext(%x: i32)
  func.func @main(%x: i32) attributes {pto.entry} {
    func.call @ext(%x) : (i32) -> ()
    return
  }
}
"""
    program = load(text)
    for call in (lambda: program.run("ext", 1), lambda: program.arguments("ext")):
        with pytest.raises(UnknownEntryError, match="@ext in <string> is a declaration: it has no body to run "
                                                    "\\(at <string>:2:3\\)"):
            call()
    with pytest.raises(UnsupportedOpError, match="function declarations have no body to run"):
        program.run(1)
    path = tmp_path / "decl.pto"
    path.write_text(text)
    assert main(["run", str(path), "--entry", "ext", "1"]) == 2
    assert "is a declaration" in capsys.readouterr().err
