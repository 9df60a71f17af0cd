"""`ptoisa check`: exact diagnostics (file:line:col, source line, caret), JSON, several files, exit statuses,
target selection and target legality on each target. The CLI runs in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptoisa.cli.main import main

V = "!pto.tile_buf<vec, 16x16xf32>"


def module(body: str, arch: str | None = "a2a3", args: str = "") -> str:
    attrs = f' attributes {{pto.target_arch = "{arch}"}}' if arch else ""
    return f"module{attrs} {{\n  func.func @k({args}) {{\n{body}\n    return\n  }}\n}}\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- one case per diagnostic: (file name, text, target flag, expected text output after the path prefix) ------
I8 = "!pto.tile_buf<vec, 16x32xi8>"
P4 = "!pto.tile_buf<vec, 16x32xui8, valid=16x4>"
TCMPS_I8 = f"    pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp gt>}} : {I8}, i8) outs(%p : {P4})"
TCMPS_ARGS = f"%a: {I8}, %s: i8, %p: {P4}"

CASES = [
    # (id, file name, body, module arch, function args, --target, line, col, message)
    ("tcmps-int8-a2a3", "k.pto", TCMPS_I8, "a2a3", TCMPS_ARGS, None, 3, 5,
     "TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)"),
    ("tci-rows", "k.pto", "    pto.tci ins(%i : i32) outs(%r : !pto.tile_buf<vec, 2x16xi32>)", "a5",
     "%i: i32, %r: !pto.tile_buf<vec, 2x16xi32>", None, 3, 5,
     "TCI on a5: dst must be a single-row tile: Rows must be 1 (got 2)"),
    ("tci-tmp-capacity", "k.pto", ("    pto.tci ins(%i, %t : i32, !pto.tile_buf<vec, 1x16xf32>) outs(%r : "
     "!pto.tile_buf<vec, 1x16xi32>) {descending = true}"), "a2a3",
     "%i: i32, %r: !pto.tile_buf<vec, 1x16xi32>, %t: !pto.tile_buf<vec, 1x16xf32>", None, 3, 5,
     "TCI on a2a3: tmp must hold at least 768 bytes for a 32-bit dst (got 64)"),
    ("texpands-dtype", "k.pto", "    pto.texpands ins(%s : i8) outs(%d : !pto.tile_buf<acc, 16x32xi8>)", "a5",
     "%s: i8, %d: !pto.tile_buf<acc, 16x32xi8>", None, 3, 5,
     "TEXPANDS on a5: dst location Acc is not supported (allowed: Vec, Mat)"),
    ("tpartmul-dtype", "k.pto", f"    pto.tpartmul ins(%a, %a : {I8}, {I8}) outs(%a : {I8})", "a2a3", f"%a: {I8}",
     None, 3, 5, "TPARTMUL on a2a3: dst dtype int8 is not supported (allowed: int32, int16, half, float)"),
    ("tpartmul-pattern", "k.pto", ("    pto.tpartmul ins(%a, %b : !pto.tile_buf<vec, 16x16xf32, valid=8x16>, "
     f"!pto.tile_buf<vec, 16x16xf32, valid=16x8>) outs(%d : {V})"), None,
     f"%a: !pto.tile_buf<vec, 16x16xf32, valid=8x16>, %b: !pto.tile_buf<vec, 16x16xf32, valid=16x8>, %d: {V}",
     "cpu", 3, 5, ("TPARTMUL on cpu: valid shapes dst 16x16, src0 8x16, src1 16x8 are not a supported pattern (one "
     "source must equal dst, the other must not exceed it); the result is undefined on this target "
     "(--emulate-undefined reproduces what the target does)")),
    ("tgather-tmp-required", "k.pto", f"    pto.tgather ins(%x, %i : {V}, !pto.tile_buf<vec, 16x16xi32>) outs(%x : {V})",
     "a2a3", f"%x: {V}, %i: !pto.tile_buf<vec, 16x16xi32>", None, 3, 5,
     "'pto.tgather' op index-form tgather expects both indices and tmp"),
    ("tgather-mask-stream", "k.pto", ("    pto.tgather ins(%x, {maskPattern = #pto.mask_pattern<P1111>} : "
     f'{V}, "row") outs(%y : !pto.tile_buf<vec, 8x16xf32>)'), "a5", f"%x: {V}, %y: !pto.tile_buf<vec, 8x16xf32>",
     None, 3, 5, "TGATHER on a5: dst cannot hold the gathered stream of 256 elements (it has 128)"),
    ("tile-spec", "k.pto", "    %t = pto.texpands %s : f32 -> !pto.tile<16x6xf32>", "a5", "%s: f32", None, 3, 5,
     ("'pto.texpands' op dst: illegal tile Tile<Vec, float, 16, 6, RowMajor, 16, 6>: a row-major tile needs Cols * "
     "sizeof(dtype) to be a multiple of 32 bytes (got 6 * 4 = 24)")),
    ("ssa-type-kind", "k.pto", f"    %t = pto.texpands %s : f32 -> {V}", "a5", "%s: f32", None, 3, 5,
     "'pto.texpands' op expects dst to be a !pto.tile (the SSA form's tile type)"),
    ("ssa-infer", "k.pto", "    %t = pto.tgather %x, %i : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>", "a5",
     "%x: !pto.tile<16x16xf32>, %i: !pto.tile<16x16xi32>", None, 3, 31,
     "pto.tgather expects 2 operand types for 2 operands, got 1"),
    ("ssa-results", "k.pto", ("    %t = pto.tcmps %x, %s : (!pto.tile<16x16xf32>, f32) -> (!pto.tile<16x32xui8>, "
     "!pto.tile<16x32xui8>)"), "a5", "%x: !pto.tile<16x16xf32>, %s: f32", None, 3, 29,
     "pto.tcmps expects 1 result type(s), got 2"),
    ("asm-name-in-pto", "k.pto", "    %t = texpands %s : f32 -> !pto.tile<16x16xf32>", "a5", "%s: f32", None, 3, 10,
     "Operation texpands is not registered (PTO-AS assembly spelling: write pto.texpands, or use a .ptoas file)"),
    ("asm-legality", "k.ptoas", "    %t = tcmps %x, %s : !pto.tile<16x32xi8> -> !pto.tile<16x32xui8, valid=16x4>",
     "a2a3", "%x: !pto.tile<16x32xi8>, %s: i8", None, 3, 5,
     "TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)"),
    ("parse-error", "k.pto", "    pto.tcmps ins(%x, %s : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%x : !pto.tile_buf<ub, 16x16xf32>)",
     "a2a3", f"%x: {V}, %s: f32", None, 3, 88, "unknown loc: ub"),
    ("cmp-case", "k.pto", f"    pto.tcmps ins(%x, %s {{cmpMode = #pto<cmp GT>}} : {V}, f32) outs(%x : {V})", "a2a3",
     f"%x: {V}, %s: f32", None, 3, 46, "expected ::mlir::pto::CmpMode to be one of: eq, ne, lt, le, gt, ge"),
]


@pytest.mark.parametrize(("name", "body", "arch", "args", "target", "line", "col", "message"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_diagnostic_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, body: str, arch: str | None,
                         args: str, target: str | None, line: int, col: int, message: str) -> None:
    text = module(body, arch, args)
    path = write(tmp_path, name, text)
    flags = ["--target", target] if target else []
    status, out, err = run(capsys, "check", path, *flags)
    source_line = text.splitlines()[line - 1]
    caret = " " * (col - 1) + "^"
    used = target or arch or "a2a3"
    assert out == f"{path}:{line}:{col}: error: {message}\n{source_line}\n{caret}\n{path}: 1 error (target {used})\n"
    assert status == 1 and err == ""


def test_several_errors_in_one_file_in_source_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = TCMPS_I8 + "\n    pto.tci ins(%i : i32) outs(%r : !pto.tile_buf<vec, 2x16xi32>)\n" + TCMPS_I8
    path = write(tmp_path, "k.pto", module(body, "a2a3", TCMPS_ARGS + ", %i: i32, %r: !pto.tile_buf<vec, 2x16xi32>"))
    status, out, _ = run(capsys, "check", path)
    heads = [line for line in out.splitlines() if line.startswith(path + ":") and "error:" in line]
    assert [h.split(":")[1] for h in heads] == ["3", "4", "5"]
    assert out.endswith(f"{path}: 3 errors (target a2a3)\n") and status == 1


def test_target_legality_differs_by_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.pto", module(TCMPS_I8, None, TCMPS_ARGS))
    assert run(capsys, "check", path, "--target", "a2a3")[0] == 1
    status, out, _ = run(capsys, "check", path, "--target", "a5")
    assert (status, out) == (0, f"{path}: ok (target a5)\n")
    status, out, _ = run(capsys, "check", path, "--target", "cpu")
    assert (status, out) == (0, f"{path}: ok (target cpu)\n")


@pytest.mark.parametrize(("arch", "target"), [("a5", "a5"), ("A5", "a5"), ("a3", "a2a3"), ("a2a3", "a2a3"),
                                              ("cpu", "cpu"), (None, "a2a3")])
def test_target_from_module_attribute(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch,
                                      arch: str | None, target: str) -> None:
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    path = write(tmp_path, "k.pto", module(f"    pto.texpands ins(%s : f32) outs(%d : {V})", arch, f"%s: f32, %d: {V}"))
    assert run(capsys, "check", path)[1] == f"{path}: ok (target {target})\n"


def test_default_target_follows_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.setenv("PTOISA_TARGET", "a5")
    path = write(tmp_path, "k.pto", module(TCMPS_I8, None, TCMPS_ARGS))
    assert run(capsys, "check", path)[:2] == (0, f"{path}: ok (target a5)\n")


def test_flag_wins_over_module_attribute(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.pto", module(TCMPS_I8, "a5", TCMPS_ARGS))
    assert run(capsys, "check", path)[0] == 0
    status, out, _ = run(capsys, "check", path, "--target", "a2a3")
    assert status == 1 and "TCMPS on a2a3" in out and out.endswith("(target a2a3)\n")


def test_json_one_object_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.pto", module(TCMPS_I8, "a2a3", TCMPS_ARGS))
    good = write(tmp_path, "good.pto", module(TCMPS_I8, "a5", TCMPS_ARGS))
    status, out, _ = run(capsys, "check", bad, good, "--format", "json")
    first, second = (json.loads(line) for line in out.splitlines())
    assert first == {"path": bad, "target": "a2a3", "ok": False, "diagnostics": [
        {"line": 3, "col": 5, "severity": "error",
         "message": "TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)"}]}
    assert second == {"path": good, "target": "a5", "ok": True, "diagnostics": []}
    assert status == 1


def test_several_files_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [write(tmp_path, f"k{i}.pto", module(TCMPS_I8, arch, TCMPS_ARGS)) for i, arch in enumerate(("a5", "cpu"))]
    status, out, _ = run(capsys, "check", *paths)
    assert status == 0 and out == f"{paths[0]}: ok (target a5)\n{paths[1]}: ok (target cpu)\n"


def test_unreadable_file_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.pto", module(TCMPS_I8, "a5", TCMPS_ARGS))
    missing = str(tmp_path / "missing.pto")
    status, out, err = run(capsys, "check", good, missing)
    assert status == 2 and err == f"ptoisa: error: cannot read {missing}: No such file or directory\n"
    assert out == f"{good}: ok (target a5)\n"
    status, out, _ = run(capsys, "check", missing, "--format", "json", "--target", "cpu")
    assert status == 2 and json.loads(out)["diagnostics"][0]["message"].startswith("cannot read")
    binary = tmp_path / "bin.pto"
    binary.write_bytes(b"\xff\xfe\x00")
    assert run(capsys, "check", str(binary))[0] == 2


def test_usage_errors_are_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["check"], ["check", "x.pto", "--target", "a7"], ["convert", "x.pto"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    capsys.readouterr()


def test_parse_error_target_read_by_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.pto", 'module attributes {pto.target_arch = "a5"} {\n  func.func @k( {\n}\n')
    status, out, _ = run(capsys, "check", path, "--format", "json")
    result = json.loads(out)
    assert status == 1 and result["target"] == "a5" and len(result["diagnostics"]) == 1


def test_unclosed_string_is_a_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.pto", 'module attributes {pto.target_arch = "a5} {\n}\n')
    status, out, _ = run(capsys, "check", path)
    assert status == 1 and out.startswith(f"{path}:1:38: error: End of file reached before closing string literal.")


def test_tabs_keep_the_caret_aligned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.pto", module("\t" + TCMPS_I8.strip(), "a2a3", TCMPS_ARGS))
    out = run(capsys, "check", path)[1].splitlines()
    assert out[0].startswith(f"{path}:3:2: error:") and out[2] == "\t^"


EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"


def test_shipped_examples(capsys: pytest.CaptureFixture[str]) -> None:
    good = [str(p) for p in sorted([*EXAMPLES.glob("*.pto"), *EXAMPLES.glob("*.ptoas")]) if not p.name.startswith("invalid_")]
    assert run(capsys, "check", *good)[0] == 0
    for path in sorted(EXAMPLES.glob("invalid_*.pto")):
        status, out, _ = run(capsys, "check", str(path))
        assert status == 1 and f"{path}:" in out and "error:" in out


def test_invalid_legality_example_reports_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "invalid_legality_a2a3.pto")
    status, out, _ = run(capsys, "check", path)
    assert status == 1 and out.endswith("3 errors (target a2a3)\n")
    status, out, _ = run(capsys, "check", path, "--target", "a5", "--format", "json")
    messages = [d["message"] for d in json.loads(out)["diagnostics"]]
    assert not any("TCMPS" in m for m in messages) and any("TCI on a5" in m for m in messages)


def test_check_takes_the_run_flags_for_undefined_behaviour_and_errata(tmp_path):
    """A kernel `run --emulate-undefined` accepts is not an error for `check --emulate-undefined`; the hint names
    the CLI flag, not the Python keyword."""
    from ptoisa.cli.main import main

    v = "!pto.tile_buf<vec, 16x16xf32"
    (tmp_path / "k.pto").write_text(
        "module {\n  func.func @k(%a: " + v + ", valid=8x16>, %b: " + v + ", valid=16x8>, %d: " + v + ">) {\n"
        "    pto.tpartmul ins(%a, %b : " + v + ", valid=8x16>, " + v + ", valid=16x8>) outs(%d : " + v + ">)\n"
        "    return\n  }\n}\n")
    import contextlib
    import io

    for flags, status in (((), 1), (("--emulate-undefined",), 0), (("--no-errata", "--emulate-undefined"), 0)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["check", str(tmp_path / "k.pto"), "--target", "cpu", *flags]) == status
        if status:
            assert "(--emulate-undefined reproduces what the target does)" in out.getvalue()
            assert "undefined='emulate'" not in out.getvalue()


def test_a_ptoas_run_line_naming_another_arch_is_pointed_out(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch) -> None:
    """PTOAS's samples name their target on a `// RUN: ptoas --pto-arch a5 %s` line, not in the module; checked
    for the default a2a3 they fail, and a note says which --target to give. No note when a target was named
    (flag, environment, module), when the RUN line names the target used, or when there is no RUN line."""
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    text = "// RUN: ptoas --pto-arch a5 --pto-level=level3 %s\n" + module(TCMPS_I8, None, TCMPS_ARGS)
    path = write(tmp_path, "k.pto", text)
    note = (f"note: {path} was verified for a2a3, the default (no --target, $PTOISA_TARGET or pto.target_arch "
            f"named a target), but its RUN line gives ptoas --pto-arch a5: give --target a5\n")
    status, out, err = run(capsys, "check", path)
    assert (status, err) == (1, note) and out.endswith(f"{path}: 1 error (target a2a3)\n")
    status, _, err = run(capsys, "run", path, "--entry", "k")
    assert status == 1 and err.endswith(f"ptoisa: error: {path} does not verify for target a2a3\n{note}")
    assert run(capsys, "check", path, "--target", "a5") == (0, f"{path}: ok (target a5)\n", "")
    assert run(capsys, "check", path, "--target", "a2a3")[2] == ""
    for other in (text.replace("a5 --pto", "a3 --pto"), module(TCMPS_I8, None, TCMPS_ARGS)):
        path = write(tmp_path, "k.pto", other)
        assert run(capsys, "check", path)[::2] == (1, "")
    monkeypatch.setenv("PTOISA_TARGET", "a2a3")
    path = write(tmp_path, "k.pto", text)
    assert run(capsys, "check", path)[::2] == (1, "")
