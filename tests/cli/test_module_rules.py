"""`ptoisa check` and `ptoisa run` on PTOAS's module rules (entry functions return nothing; no recursion, no call
cycle): the located diagnostics, the exit status, nothing run; and the call chain of a run error, cut to the
innermost and outermost 5 lines. The CLI runs in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptoisa.cli.main import main

ENTRY_RETURNS = """// PTOAS's pto_entry_nonvoid_rejected, in our words
module {
  func.func @scale(%n: index) -> index attributes {pto.entry} {
    %r = arith.muli %n, %n : index
    return %r : index
  }
  func.func private @idle() {
    return
  }
}
"""
ONLY_RETURNS = """module {
  func.func @flag(%a: i1) -> i1 {
    return %a : i1
  }
}
"""
SELF = """module {
  func.func @again(%n: index) attributes {pto.entry} {
    func.call @again(%n) : (index) -> ()
    return
  }
}
"""
CYCLE = """module {
  func.func @main() attributes {pto.entry} {
    func.call @odd() : () -> ()
    return
  }
  func.func @odd() {
    func.call @even() : () -> ()
    return
  }
  func.func @even() {
    func.call @odd() : () -> ()
    return
  }
}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(("text", "line", "message"), [
    (ENTRY_RETURNS, 3, "'func.func' op PTO entry functions must return void"),
    (ONLY_RETURNS, 2, "'func.func' op PTO entry functions must return void"),
    (SELF, 2, "'func.func' op recursive function calls are not supported for EmitC C++ emission"),
], ids=["marked", "only", "self"])
def test_check_refuses_at_the_function(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int,
                                       message: str) -> None:
    path = tmp_path / "k.pto"
    path.write_text(text)
    status, out, _ = run(capsys, "check", str(path))
    source_line = text.splitlines()[line - 1]
    assert status == 1
    assert out == f"{path}:{line}:3: error: {message}\n{source_line}\n  ^\n{path}: 1 error (target a2a3)\n"


def test_check_reports_a_cycle_at_the_module_with_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.pto"
    path.write_text(CYCLE)
    status, out, _ = run(capsys, "check", str(path), "--format", "json")
    assert status == 1
    (doc,) = [json.loads(line) for line in out.splitlines()]
    assert doc["diagnostics"] == [
        {"line": 1, "col": 1, "severity": "error",
         "message": "cyclic function call graph is not supported for EmitC C++ emission"},
        {"line": 6, "col": 3, "severity": "note", "message": "@odd is on a call cycle"},
        {"line": 10, "col": 3, "severity": "note", "message": "@even is on a call cycle"}]


def test_run_refuses_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.pto"
    path.write_text(SELF)
    status, out, err = run(capsys, "run", str(path), "3")
    assert status != 0 and out == ""
    assert err == (f"{path}:2:3: error: 'func.func' op recursive function calls are not supported for EmitC C++ "
                   f"emission\n  func.func @again(%n: index) attributes {{pto.entry}} {{\n  ^\n"
                   f"ptoisa: error: {path} does not verify for target a2a3\n")


def test_run_prints_a_long_call_chain_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """@f0 calls @f1 ... calls @f12, which allocates a tile 17 rows high in a 16-row tile: 12 calls, innermost
    first; the middle 2 are one line."""
    lines = ["module {"]
    calls = []
    for k in range(12):
        lines += [f"  func.func @f{k}(%n: index) {{", f"    func.call @f{k + 1}(%n) : (index) -> ()", "    return", "  }"]
        calls.append(len(lines) - 2)
    lines += ["  func.func @f12(%n: index) {",
              "    %t = pto.alloc_tile valid_row = %n valid_col = %n : !pto.tile_buf<vec, 16x16xf32, valid=?x?>",
              "    return", "  }", "}"]
    path = tmp_path / "chain.pto"
    path.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, "run", str(path), "--entry", "f0", "17")
    assert status != 0
    at = [f"  called from func.call at {path}:{line}:5" for line in reversed(calls)]
    notes = [line for line in err.splitlines() if line.startswith("  ")]
    assert notes == [f"  in pto.alloc_tile at {path}:{len(lines) - 3}:5", *at[:5],
                     "  ... 2 more call frames left out ...", *at[-5:]]
