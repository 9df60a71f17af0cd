"""Hostile input to the text commands: every bad file ends in exit 1 or 2 with a message of ours, never exit 3
or a traceback, whatever the command."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ptoisa.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
RUN_ARGS = ["zeros:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0"]


def _all_commands(path: Path) -> list[list[str]]:
    return [["check", str(path)], ["convert", str(path), "--to", "ssa"], ["run", str(path), *RUN_ARGS]]


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


CASES = {
    "not UTF-8": b"\xff\xfe" + EXAMPLE.read_bytes(),
    "garbage first token": b"@@@ " + EXAMPLE.read_bytes(),
    "deep nesting": b"module {" * 400 + b"}" * 400,
    "huge integer literal": b"func.func @f() {\n %c = arith.constant " + b"9" * 5000 + b" : i32\n return\n}\n",
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_text_is_refused_cleanly_by_every_command(tmp_path, capsys, name):
    path = tmp_path / "bad.pto"
    path.write_bytes(CASES[name])
    for argv in _all_commands(path):
        code, out, err = _run(capsys, argv)
        assert code in (0, 1, 2), (argv[0], code, err)
        assert "internal error" not in err and "Traceback" not in err, (argv[0], err)
        if name != "empty":
            assert code != 0, (argv[0], out)


def test_not_utf8_names_the_problem(tmp_path, capsys):
    path = tmp_path / "latin1.pto"
    path.write_bytes(CASES["not UTF-8"])
    code, _, err = _run(capsys, ["run", str(path), *RUN_ARGS])
    assert code == 2 and "not UTF-8" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_instead_of_blocking(tmp_path, capsys):
    fifo = tmp_path / "pipe.pto"
    os.mkfifo(fifo)
    for argv in _all_commands(fifo):
        code, _, err = _run(capsys, argv)
        assert code == 2 and "not a regular file" in err, (argv[0], err)


def test_use_before_definition_is_a_diagnostic_for_check_and_run(tmp_path, capsys):
    path = tmp_path / "fwd.pto"
    path.write_text("func.func @f() {\n  %a = arith.addi %b, %b : i32\n  %b = arith.constant 1 : i32\n"
                    "  return\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and f"{path}:2:3: error: %b is used before its definition" in out
    code, _, err = _run(capsys, ["run", str(path)])
    assert code == 1 and "used before its definition" in err and "internal error" not in err


def test_a_loop_value_used_after_its_loop_is_refused(tmp_path, capsys):
    path = tmp_path / "scope.pto"
    path.write_text("func.func @f() {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                    "  scf.for %i = %c0 to %c1 step %c1 {\n    %x = arith.addi %i, %i : index\n  }\n"
                    "  %y = arith.addi %x, %x : index\n  return\n}\n")
    for argv in _all_commands(path)[:2] + [["run", str(path)]]:
        code, out, err = _run(capsys, argv)
        assert code == 1 and "%x" in out + err, (argv[0], out, err)


def test_an_unknown_op_close_to_a_known_one_gets_a_suggestion(tmp_path, capsys):
    path = tmp_path / "typo.pto"
    path.write_text("func.func @f() {\n  pto.tcmpss\n  return\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and "pto.tcmpss is not registered; did you mean pto.tcmps?" in out


def test_a_suggestion_may_be_an_op_of_a_dialect_loaded_only_when_named(tmp_path, capsys):
    """memref is registered, not loaded, until the text names it (ptoisa.ir.make_context); a misspelt dialect
    name must still find its ops."""
    path = tmp_path / "typo.pto"
    path.write_text("func.func @f() {\n  memrf.reinterpret_cast\n  return\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and "memrf.reinterpret_cast is not registered; did you mean memref.reinterpret_cast?" in out


def test_an_unclosed_region_is_reported_at_its_opening_brace(tmp_path, capsys):
    path = tmp_path / "open.pto"
    path.write_text('func.func @f() {\n  // a comment with a { brace\n  %s = arith.constant 1 : i32\n  return\n')
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and f"{path}:1:16: error: this '{{' is never closed" in out


def test_the_seed_comment_form_of_tassign_gets_a_pointer_to_the_real_syntax(tmp_path, capsys):
    path = tmp_path / "seed.pto"
    path.write_text("func.func @f(%t: !pto.tile_buf<vec, 16x16xf32>) {\n  pto.tassign %t, @tile(0x1000)\n  return\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and "is a comment, not PTOAS syntax" in out and "%t2 = pto.tassign %t, %a : T -> T" in out


def test_parse_errors_point_at_the_op_name_and_at_the_undefined_value(tmp_path, capsys):
    v = "!pto.tile_buf<vec, 16x16xf32>"
    path = tmp_path / "k.pto"
    path.write_text(f"module {{\n  func.func @k(%x: {v}) {{\n    pto.tfoo ins(%x : {v})\n    return\n  }}\n}}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and f"{path}:3:5: error: Operation pto.tfoo is not registered" in out
    path.write_text(f"module {{\n  func.func @k(%x: {v}) {{\n    pto.tadd ins(%x, %bbb : {v}, {v}) outs(%x : {v})\n"
                    "    return\n  }\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and f"{path}:3:22: error: values used but not defined: [%bbb]" in out


def test_an_integer_type_wider_than_mlir_allows_is_refused_at_once(tmp_path, capsys):
    """xDSL would build the type's 2**width bounds first (gigabytes for i4294967296); MLIR's limit is 2^24 - 1."""
    path = tmp_path / "k.pto"
    path.write_text("module {\n  func.func @k(%x: i4294967296, %i99999999: i32) {\n    return\n  }\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 1 and f"{path}:2:20: error: integer type i4294967296 is wider than MLIR allows" in out
    path.write_text("module {\n  func.func @k(%x: i16777215, %i99999999: i32) {\n    return\n  }\n}\n")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert "wider than MLIR allows" not in out  # the widest legal width, and a value named like a type


def test_vectors_results_in_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance" / "tci.jsonl"
    code, _, err = _run(capsys, ["vectors", "run", str(data), "--results", str(tmp_path / "no" / "r.jsonl")])
    assert code == 2 and "cannot write" in err and "internal error" not in err


def test_run_and_load_refuse_a_too_wide_integer_type_too(tmp_path, capsys):
    import ptoisa

    text = "module {\n  func.func @k() {\n    %c = arith.constant 0 : i4294967296\n    return\n  }\n}\n"
    with pytest.raises(ptoisa.PtoError, match="wider than MLIR allows"):
        ptoisa.load(text)
    path = tmp_path / "k.pto"
    path.write_text(text)
    code, _, err = _run(capsys, ["run", str(path)])
    assert code == 1 and "3:29: error: integer type i4294967296 is wider than MLIR allows" in err


def test_deep_call_chains_and_nesting_end_in_our_errors(tmp_path, capsys):
    """A chain of 300 calls (decoded with a worklist; it used to exhaust the Python stack while decoding), and
    90 calls inside 12 nested loops each (the stack runs out while running): exit 0 or 1, never an internal
    error."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interp"))
    from test_call_notes import guarded_chain

    path = tmp_path / "chain.pto"
    for text, depth, code, words in ((guarded_chain(300), "3", 0, ""), (guarded_chain(300), "250", 1, "nest more"),
                                     (guarded_chain(100, loops=12), "90", 1, "Python stack allows")):
        path.write_text(text)
        got, _, err = _run(capsys, ["run", str(path), depth, "-q"])
        assert got == code and words in err and "internal error" not in err, err


def test_out_writes_every_file_or_none(tmp_path, capsys, monkeypatch):
    """--out / --golden: a planned file that is there but not a file (a directory named mask.npy, mask.bin or
    manifest.json, planned after others) refuses the command before anything is written; a failure while writing
    (here the second array) leaves no new file either. Before, the files planned earlier were written."""
    data = EXAMPLE.parent / "data" / "x_64x16_f32.npy"
    argv = ["run", str(EXAMPLE), str(data), "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q", "--golden"]
    for blocker in ("mask.npy", "mask.bin", "manifest.json"):
        out = tmp_path / blocker.replace(".", "_")
        (out / blocker).mkdir(parents=True)
        code, _, err = _run(capsys, [*argv, "--out", str(out)])
        assert code == 2 and f"refusing to write {out / blocker}: it exists and is not a regular file" in err
        assert sorted(p.name for p in out.iterdir()) == [blocker], blocker
    import numpy as np

    from ptoisa.cli import run_impl

    saves = []

    def failing_save(f, array):
        saves.append(1)
        if len(saves) == 2:
            raise OSError(28, "No space left on device")
        np.save(f, array)

    monkeypatch.setattr(run_impl.np, "save", failing_save)
    out = tmp_path / "full"
    code, _, err = _run(capsys, [*argv, "--out", str(out)])
    assert code == 2 and "No space left on device" in err and list(out.iterdir()) == []


def test_golden_describes_the_tiles_a_kernel_returns(tmp_path, capsys):
    """--golden with a returned tile (saved as return0): manifest.json gives its dtype, shape and files (before,
    the manifest looked the name up among the tensors: KeyError, an internal error)."""
    import json

    import numpy as np

    kernel = tmp_path / "ret.pto"
    view = "!pto.partition_tensor_view<4x8xf32>"
    kernel.write_text(f"""module {{
  func.func @k(%x: !pto.ptr<f32>) -> !pto.tile_buf<vec, 4x8xf32> {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    %tv = pto.make_tensor_view %x, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32> -> {view}
    pto.tload ins(%pv : {view}) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
    return %t : !pto.tile_buf<vec, 4x8xf32>
  }}
  func.func private @beside() {{
    return
  }}
}}
""")
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.save(tmp_path / "x.npy", x)
    code, _, err = _run(capsys, ["run", str(kernel), str(tmp_path / "x.npy"), "-q", "--golden",
                                 "--out", str(tmp_path / "g")])
    assert code == 0, err
    entry = json.loads((tmp_path / "g" / "manifest.json").read_text())["outputs"]["return0"]
    assert entry == {"dtype": "float32", "shape": [4, 8], "files": ["return0.npy", "return0.bin"],
                     "byte_order": "little"}
    assert (tmp_path / "g" / "return0.bin").read_bytes() == x.tobytes()


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
def test_names_stdout_cannot_encode_are_escaped_not_fatal(tmp_path, monkeypatch, encoding):
    """A strict standard output (PYTHONIOENCODING=utf-8, an ASCII or Latin-1 locale) and a file name it cannot
    encode: not UTF-8 (Python sees the byte 0xff as a surrogate), or not ASCII. The name is written with
    backslash escapes, as standard error writes it; before, the command ended in an internal error (exit 3)."""
    import io
    import os
    import shutil

    name = os.fsdecode(b"\xff.npy") if encoding == "utf-8" else "\u00fc.npy"
    shutil.copy(EXAMPLE.parent / "data" / "x_64x16_f32.npy", tmp_path / name)
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
    monkeypatch.setattr("sys.stdout", stream)
    code = main(["run", str(EXAMPLE), str(tmp_path / name), "zeros:64x16", "zeros:64x2", "2.0", "100.0"])
    stream.flush()
    text = raw.getvalue().decode(encoding)
    assert code == 0 and ("\\udcff.npy (float32[64x16])" if encoding == "utf-8" else "\\xfc.npy (float32") in text


def test_convert_to_a_file_from_a_name_that_is_not_utf8(tmp_path, capsys):
    """The header of `convert -o` names the input; a name with the byte 0xfe (a surrogate to Python) is written
    escaped (`k\\udcfe.pto`) and the output reads back; before, writing it failed (internal error, exit 3)."""
    import os

    source = tmp_path / os.fsdecode(b"k\xfe.pto")
    source.write_bytes(EXAMPLE.read_bytes())
    out = tmp_path / "out.pto"
    code, _, err = _run(capsys, ["convert", str(source), "--to", "dps", "-o", str(out)])
    assert code == 0, err
    assert out.read_text(encoding="utf-8").startswith("// converted by ptoisa from ") and "k\\udcfe.pto" in \
        out.read_text(encoding="utf-8").splitlines()[0]
    assert _run(capsys, ["check", str(out)])[0] == 0


def test_a_gzip_vector_file_unpacking_past_the_bound_is_refused(tmp_path, capsys, monkeypatch):
    """A .gz vector file is unpacked in steps up to vectors.MAX_UNPACKED bytes (256 MiB; here 1 MiB): past it,
    the file is an error of its own, told to gunzip it, and the other files still run; before, the whole file was
    unpacked first (a 300 KB gzip bomb of 300 MB took 1.4 GB). Multi-member files still read whole."""
    import gzip

    from ptoisa.conformance import vectors

    data = (Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance" / "tci.jsonl").read_bytes()
    (tmp_path / "big.jsonl.gz").write_bytes(gzip.compress(data * (2 + (1 << 20) // len(data))))
    (tmp_path / "small.jsonl.gz").write_bytes(gzip.compress(data[:data.index(b"\n") + 1]) * 2)  # two members
    monkeypatch.setattr(vectors, "MAX_UNPACKED", 1 << 20)
    code, out, err = _run(capsys, ["vectors", "run", str(tmp_path / "big.jsonl.gz"), str(tmp_path / "small.jsonl.gz")])
    assert code == 1 and "big.jsonl.gz: unpacks to more than 1 MiB; gunzip it" in out
    assert "ran 2 cases from" in err and "internal error" not in err


def test_an_index_literal_outside_64_bits_is_refused_where_it_stands(tmp_path, capsys):
    """MLIR stores an index attribute in 64 bits and refuses a literal that does not fit (as xDSL does for every
    iN, but not for index): check, run and load say so at the literal; the ends of the range still verify.
    Before, `arith.constant 99999999999999999999 : index` verified and ran as a loop bound of 10^20."""
    import ptoisa

    path = tmp_path / "k.pto"
    for literal, ok in (("99999999999999999999", False), ("18446744073709551616", False),
                        ("-9223372036854775809", False), ("0x10000000000000000", False),
                        ("18446744073709551615", True), ("-9223372036854775808", True)):
        text = f"func.func @k() {{\n  %c = arith.constant {literal} : index\n  return\n}}\n"
        path.write_text(text)
        code, out, _ = _run(capsys, ["check", str(path)])
        assert (code == 0) == ok, (literal, out)
        if not ok:
            assert f"{path}:2:23: error: Integer value " in out and "is out of range for type index" in out
            code, _, err = _run(capsys, ["run", str(path)])
            assert code == 1 and "out of range for type index" in err
            with pytest.raises(ptoisa.PtoError, match="out of range for type index"):
                ptoisa.load(text)


def test_a_vector_file_with_a_byte_order_mark_is_refused_plainly(tmp_path, capsys):
    """A BOM is refused as `check` refuses one before a .pto's first op, but said as it is (before, the file was
    'not a JSONL vector file (line 1 does not start a JSON object)', though its line 1 does, after the BOM)."""
    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance" / "tci.jsonl"
    text = data.read_text(encoding="utf-8")
    for name, raw, words in [("bom.jsonl", b"\xef\xbb\xbf" + text.encode("utf-8"), "a UTF-8 byte-order mark (BOM)"),
                             ("u16.jsonl", text.encode("utf-16"), "not UTF-8 text (it starts with a UTF-16")]:
        path = tmp_path / name
        path.write_bytes(raw)
        code, out, _ = _run(capsys, ["vectors", "run", str(path), "-q"])
        assert code == 1 and f"{path}: errors: {path}: " in out and words in out, out
        assert "does not start a JSON object" not in out


def test_vectors_results_may_be_a_device_or_standard_output(tmp_path, capsys):
    """--results /dev/null, /dev/stdout: written in place (the atomic temporary-file-and-rename is for regular
    files); /dev/stdout redirected to a file gets every result line before the summary, in order."""
    import subprocess
    import sys

    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance" / "tci.jsonl"
    code, out, err = _run(capsys, ["vectors", "run", str(data), "--results", os.devnull])
    assert code == 0 and "results: /dev/null" in err and "agreement" in out
    assert Path(os.devnull).is_char_device()
    sink = tmp_path / "all.txt"
    with open(sink, "w") as f:
        done = subprocess.run([sys.executable, "-m", "ptoisa", "vectors", "run", str(data), "--results",
                               "/dev/stdout"], stdout=f, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = sink.read_text().splitlines()
    assert [line.startswith("{") for line in lines] == [True] * 49 + [False] * 4, lines[45:]
    assert lines[49] == "target: cpu" and lines[-1].startswith("total")


def test_made_up_shapes_and_seeds_take_ascii_digits_only(capsys):
    """zeros:/random: sizes and seeds: int() takes Arabic-Indic digits (and '1_6', '+16'); they are refused like
    any bad shape or seed."""
    base = ["run", str(EXAMPLE), "zeros:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q"]
    for spec, words in [("zeros:\u0666\u0664x16", "bad shape '\u0666\u0664x16'"),
                        ("random:64x\u0661\u0666", "bad shape '64x\u0661\u0666'"),
                        ("zeros:6_4x16", "bad shape"), ("zeros:+64x16", "bad shape"),
                        ("random:64x16:\u0663", "bad seed '\u0663'")]:
        code, _, err = _run(capsys, [*base[:2], spec, *base[3:]])
        assert code == 2 and f"argument %x: {words}" in err, (spec, err)
    assert _run(capsys, [*base[:2], "random:64 x 16:0x10", *base[3:]])[0] == 0


@pytest.mark.parametrize("digits", ["\u0661", "\uff11", "1\u0662"])  # Arabic-Indic, full-width, mixed
def test_every_number_on_the_command_line_takes_ascii_digits_only(capsys, digits):
    """int() and float() read other scripts' digits ('١' and '１' are 1 to them): every option and argument that
    takes a number refuses them, naming the character (before, all of these ran as if given the ASCII number);
    the same numbers in ASCII are taken."""
    data = str(EXAMPLE.parent / "data" / "x_64x16_f32.npy")
    base = ["run", str(EXAMPLE), "zeros:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q"]
    cases = [(["--block", f"0/{digits}"], "--block must be I or I/N"), (["--grid", digits], "--grid: not a whole"),
             (["--max-steps", digits], "--max-steps: not a whole"), (["--max-bytes", f"{digits}0K"], "--max-bytes"),
             (["--fill", digits], "--fill must be"), (["--timeout", digits], "--timeout: not a number")]
    for extra, words in cases:
        code, _, err = _run_exit(capsys, [*base, *extra])
        assert code == 2 and words in err and "numbers are written in ASCII digits" in err, (extra, err)
        assert code == 2 and f"{ord(digits[-1]):04X}" in err, (extra, err)
    for scalar in (digits, f"{digits}.5", f"0x{digits}"):
        code, _, err = _run_exit(capsys, [*base[:5], scalar, *base[6:]])
        assert code == 2 and "argument %scale (f32) needs a number" in err and "ASCII digits" in err, (scalar, err)
    for argv in (["compare", data, data, "--first", digits], ["compare", data, data, "--atol", digits],
                 ["compare", data, data, "--ulp", digits], ["show", data, "--shape", f"{digits}024"]):
        code, _, err = _run_exit(capsys, argv)
        assert code == 2 and "ASCII digits" in err, (argv, err)
    ascii_number = "1" if digits != "1\u0662" else "12"
    for extra in (["--block", f"0/{ascii_number}"], ["--grid", ascii_number], ["--max-steps", "10000"],
                  ["--max-bytes", "10K"], ["--fill", "1"], ["--timeout", "60"]):
        assert _run_exit(capsys, [*base, *extra])[0] == 0, extra
    assert _run_exit(capsys, ["compare", data, data, "--first", "1", "--atol", "1.5", "--ulp", "1"])[0] == 0
    assert _run_exit(capsys, ["show", data, "--shape", "1024"])[0] == 0


def _run_exit(capsys, argv):
    """main(), with argparse's exit (status 2 for a bad option value) as a status."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_characters_mlir_does_not_lex_are_named_where_they_stand(tmp_path, capsys):
    """Outside string literals and comments MLIR text is ASCII: the first other character is the error, at its
    place, named by code point (a byte-order mark, U+FEFF, does not show at all). Before: a BOM or a zero-width
    space was 'Unexpected character: ' and an invisible character, '١٢' was lexed as a number (' in block
    definition'), '²' failed in int(); xDSL's 'after {first_char}' came out unfilled. The same in run and load;
    such characters in strings and comments are text as before."""
    import re

    import ptoisa

    body = "func.func @f() {{\n  %c = arith.constant {} : i32\n  return\n}}\n"
    path = tmp_path / "k.pto"
    cases = [("\ufeff" + body.format("1"), "1:1", "Unexpected character U+FEFF ZERO WIDTH NO-BREAK SPACE: a UTF-8 "
              "byte-order mark (BOM) starts the file, which MLIR does not take; save the file as UTF-8 without a BOM"),
             (body.format("\u0661\u0662"), "2:23", "Unexpected character '\u0661' (U+0661 ARABIC-INDIC DIGIT ONE): "
              "outside string literals and comments, MLIR text is ASCII"),
             (body.format("\u00b2"), "2:23", "Unexpected character '\u00b2' (U+00B2 SUPERSCRIPT TWO)"),
             (body.format("1\u200b"), "2:24", "Unexpected character U+200B ZERO WIDTH SPACE: outside"),
             (body.format("1\ufeff"), "2:24", "Unexpected character U+FEFF ZERO WIDTH NO-BREAK SPACE: outside"),
             (body.format("\x01"), "2:23", "Unexpected character U+0001\n"),
             (body.format("1").replace("%c", "%"), "2:3", "Expected suffix identifier after %\n"),
             (body.format("1").replace("return", "{"), "3:3",
              "expected an operation, a block label (^name:) or '}' here\n")]
    for text, where, words in cases:
        path.write_text(text, encoding="utf-8")
        code, out, _ = _run(capsys, ["check", str(path)])
        assert code == 1 and f"{path}:{where}: error: {words}" in out, (text, out)
        code, _, err = _run(capsys, ["run", str(path)])
        assert code == 1 and words.strip() in err and "internal error" not in err, (text, err)
        with pytest.raises(ptoisa.PtoError, match=re.escape(words.strip())):
            ptoisa.load(text)
    text = ('// caf\u00e9 \u0661\n' + body.format("1").replace(": i32", ": i32  // \u200b") +
            'func.func private @g() attributes {note = "\ufeff\u00b2 \\" \u0661"}  // \ufeff\n')
    path.write_text(text, encoding="utf-8")
    code, out, _ = _run(capsys, ["check", str(path)])
    assert code == 0, out
    ptoisa.load(text)


def _fake_matplotlib(folder: Path) -> None:
    """A stand-in for matplotlib (not installed here) whose figures save the bytes b'PNG!' and the image's size."""
    package = folder / "matplotlib"
    package.mkdir()
    (package / "__init__.py").write_text("def use(name):\n    pass\n")
    (package / "pyplot.py").write_text(
        "class _Axes:\n    def imshow(self, grid, **kw):\n        self.grid = grid\n        return None\n"
        "    def set_title(self, text):\n        pass\n"
        "class _Figure:\n    def __init__(self, axes):\n        self.axes = axes\n"
        "    def colorbar(self, *a, **kw):\n        pass\n"
        "    def savefig(self, f, format):\n        f.write(b'PNG!' + str(self.axes.grid.shape).encode())\n"
        "def subplots(**kw):\n    axes = _Axes()\n    return _Figure(axes), axes\n"
        "def close(figure):\n    pass\n")


def test_convert_and_show_image_write_to_standard_output_and_devices(tmp_path):
    """convert -o and show --image take what run's --results and vectors' --results take: /dev/stdout, a device
    such as /dev/null, a pipe, written in place (they refused them: 'exists and is not a regular file'). When the
    output is the command's own standard output, standard output holds the converted text or the image alone and
    the command's own lines go to standard error; standard output appending to an input is still refused."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    _fake_matplotlib(tmp_path)

    def ptoisa(*argv, stdout=subprocess.PIPE):
        return subprocess.run([sys.executable, "-m", "ptoisa", *argv], stdout=stdout, stderr=subprocess.PIPE,
                              env=env, timeout=120)

    kernel = str(EXAMPLE.parent / "ssa_kernel.pto")
    plain = ptoisa("convert", kernel, "--to", "dps")
    to_stdout = ptoisa("convert", kernel, "--to", "dps", "-o", "/dev/stdout")
    assert plain.returncode == 0 and to_stdout.returncode == 0, to_stdout.stderr
    assert to_stdout.stdout == plain.stdout and plain.stdout.startswith(b"// converted by ptoisa")
    assert to_stdout.stderr.decode().endswith(f"{kernel} -> /dev/stdout (dps, target a5)\n")
    done = ptoisa("convert", kernel, "--to", "dps", "-o", os.devnull)
    assert done.returncode == 0 and done.stdout.decode() == f"{kernel} -> /dev/null (dps, target a5)\n"
    copy = tmp_path / "k.pto"
    copy.write_bytes(EXAMPLE.with_name("ssa_kernel.pto").read_bytes())
    with open(copy, "ab") as sink:
        done = ptoisa("convert", str(copy), "--to", "dps", "-o", "/dev/stdout", stdout=sink)
    assert done.returncode == 2 and b"it is an input of this command" in done.stderr
    assert copy.read_bytes() == EXAMPLE.with_name("ssa_kernel.pto").read_bytes()

    data = str(EXAMPLE.parent / "data" / "x_64x16_f32.npy")
    shown = ptoisa("show", data, "--image", "/dev/stdout")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == b"PNG!(64, 16)" and b"float32[64, 16]" in shown.stderr
    assert shown.stderr.decode().endswith("image: /dev/stdout\n")
    shown = ptoisa("show", data, "--image", os.devnull)
    assert shown.returncode == 0 and shown.stdout.decode().endswith("image: /dev/null\n")
    shown = ptoisa("show", data, "--image", str(tmp_path / "x.png"))
    assert shown.returncode == 0 and (tmp_path / "x.png").read_bytes() == b"PNG!(64, 16)"


def test_literals_of_float_and_integer_types_follow_mlirs_rules_at_the_literal(tmp_path, capsys):
    """MLIR's parser (parseFloatFromLiteral): a decimal float rounds to its type, past the largest finite value
    to an infinity; an integer literal of a float type must be hexadecimal (the bit pattern), without a minus,
    within the type's width. Before: '70000.0 : f16' and '3.5e38 : f32' failed with Python's 'float too large to
    pack with e format' at the op after the literal, '0x100000000 : f32' with 'int too big to convert' there,
    '0x1FFFFFFFF : f32' (33 bits), '-0x3F80 : f16' and '70000 : f16' were taken. Range errors of integer literals
    are reported at the literal, not at the next op."""
    import ptoisa

    path = tmp_path / "k.pto"
    refused = [("70000 : f16", "unexpected decimal integer literal for a floating point value (add a trailing dot "
                "to make the literal a float)"), ("-0x3F80 : f16", "hexadecimal float literal should not have a "
                "leading minus"), ("0x1FFFFFFFF : f32", "hexadecimal float constant out of range for type"),
               ("0x100000000 : f32", "hexadecimal float constant out of range for type"),
               ("0x10000 : f16", "hexadecimal float constant out of range for type"),
               ("300 : i8", "Integer value 300 is out of range for type i8"),
               ("1.5 : i32", "Floating point value is not valid for integer type.")]
    for literal, words in refused:
        path.write_text(f"func.func @f() {{\n  %d = arith.constant {literal}\n  return\n}}\n")
        code, out, _ = _run(capsys, ["check", str(path)])
        assert code == 1 and f"{path}:2:23: error: {words}" in out, (literal, out)
        with pytest.raises(ptoisa.PtoError, match=re.escape(words)):
            ptoisa.load(path.read_text())
    accepted = [("70000.0 : f16", "0x7c00"), ("-70000.0 : f16", "0xfc00"), ("65519.0 : f16", "6.550400e+04"),
                ("3.5e38 : f32", "0x7f800000"), ("0x3C00 : f16", "1.000000e+00"), ("0x3F800000 : f32", "1.000000e+00"),
                ("1.0e99999999 : f32", "0x7f800000"), ("-0x10 : i32", "-16")]
    for literal, printed in accepted:
        path.write_text(f"func.func @f() {{\n  %d = arith.constant {literal}\n  return\n}}\n")
        code, out, err = _run(capsys, ["convert", str(path), "--to", "dps"])
        assert code == 0 and f"arith.constant {printed} : {literal.split(': ')[1]}" in out, (literal, out, err)


def test_numbers_too_long_for_int_and_float_are_usage_errors_or_taken(capsys):
    """Python's int() stops at 4300 decimal digits (ValueError) and float() of a huge int overflows: --block of
    5000 digits and a scalar of 5000 hex digits for an f32 argument were internal errors (exit 3); --grid,
    --max-steps, --max-bytes said 'not a whole number' of a whole number. Now: usage errors saying the number is
    too large, and a huge integer for a float argument is an infinity, as 1e999999 already was."""
    base = ["run", str(EXAMPLE), "zeros:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q"]
    for extra, words in [(["--block", "9" * 5000], "a block index or count past 64 bits"),
                         (["--block", "0/" + "9" * 21], "a block index or count past 64 bits"),
                         (["--grid", "9" * 5000], "--grid: too large: a number of 5000 digits"),
                         (["--max-steps", "9" * 5000], "--max-steps: too large: a number of 5000 digits"),
                         (["--max-bytes", "9" * 5000 + "K"], "--max-bytes: too large")]:
        code, _, err = _run_exit(capsys, [*base, *extra])
        assert code == 2 and words in err and len(err) < 2000, (extra, err[-300:])
    for scalar in ("0x" + "f" * 5000, "9" * 5000, "-" + "9" * 5000):
        code, _, err = _run_exit(capsys, [*base[:5], scalar, *base[6:]])
        assert code == 0 and "internal error" not in err, err[-300:]


def test_an_integer_for_a_float_argument_rounds_once():
    """A Python int given for an f32 (or half) scalar argument rounds once to the type, as C++'s conversion of an
    integer does; it went through a double first (two roundings): 2^54 + 2^30 + 1 is nearer 2^54 + 2^31 than
    2^54 as a float (float's spacing there is 2^31), but its double is 2^54 + 2^30, a tie that rounds to 2^54.
    Past double's range the result is an infinity (before: struct.error 'required argument is not a float', or
    OverflowError for f64)."""
    import math

    from xdsl.dialects.builtin import f16, f32, f64

    from ptoisa.interp.scalars import from_python, kind_of

    value = (1 << 54) + (1 << 30) + 1
    assert from_python(kind_of(f32), value, "x") == float((1 << 54) + (1 << 31))
    assert from_python(kind_of(f64), value, "x") == float(value)
    assert from_python(kind_of(f32), 16777217, "x") == 16777216.0  # (a tie below 2^53: even, as before)
    assert from_python(kind_of(f64), 16**5000, "x") == math.inf and from_python(kind_of(f64), -(10**400), "x") == -math.inf
    for kind in (f32, f16):  # (as a finite value that overflows the type: NarrowingWarning)
        with pytest.warns(ptoisa_narrowing(), match="becomes inf"):
            assert from_python(kind_of(kind), 16**5000, "x") == math.inf
        with pytest.warns(ptoisa_narrowing(), match="becomes -inf"):
            assert from_python(kind_of(kind), -(10**400), "x") == -math.inf


def ptoisa_narrowing():
    from ptoisa.errors import NarrowingWarning

    return NarrowingWarning


def test_an_empty_output_name_is_a_usage_error(capsys):
    """`-o ''`, `--out ''`, `--results ''`, `--image ''` read as the option left out: convert printed to standard
    output, run and vectors saved nothing, all with exit 0. Now a usage error naming the option."""
    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance" / "tci.jsonl"
    for argv, flag in [(["convert", str(EXAMPLE), "--to", "dps", "-o", ""], "--output"),
                       (["run", str(EXAMPLE), *RUN_ARGS, "--out", ""], "--out"),
                       (["vectors", "run", str(data), "--results", ""], "--results"),
                       (["show", str(EXAMPLE.parent / "data" / "x_64x16_f32.npy"), "--image", ""], "--image")]:
        code, out, err = _run_exit(capsys, argv)
        assert code == 2 and f"argument {flag}: an empty file name" in err and out == "", (argv, err)
