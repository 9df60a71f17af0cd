"""Fuzzing `ptoisa check`: any mutation of a valid input gives a result or our diagnostics, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import fuzz_budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptoisa.cli.main import main

EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"
FILES = sorted([*EXAMPLES.glob("*.pto"), *EXAMPLES.glob("*.ptoas")])
SEEDS = [(p.read_text(), p.suffix) for p in FILES]
TOKENS = ["%", "{", "}", "(", ")", "<", ">", ",", ":", "->", "=", "?", "x", "0", "-1", "16", "f32", "i8", "ui8",
          "!pto.tile<", "!pto.tile_buf<vec, ", "ins(", "outs(", "pto.tcmps", "tgather", "#pto<cmp gt>", '"row"',
          "valid=?x?", "\n", " ", "//", '"', "pto.target_arch", "a5", "cpu", "1x16xi32", "maskPattern", "\t"]
DIAGNOSTIC = re.compile(r"^.+:\d+:\d+: (error|warning): .+$")


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    text, suffix = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "swap_digit"]))
        at = draw(st.integers(0, len(text)))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "replace":
            text = text[:at] + draw(st.text(max_size=3)) + text[at + draw(st.integers(0, 3)):]
        else:
            text = re.sub(r"\d+", lambda m: str(draw(st.integers(0, 4096))), text, count=1)
    return text, suffix


@settings(max_examples=fuzz_budget(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated(), as_json=st.booleans(), target=st.sampled_from([None, "a2a3", "a5", "cpu"]))
def test_check_never_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: tuple[str, str],
                            as_json: bool, target: str | None) -> None:
    text, suffix = case
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(text.encode("utf-8", errors="replace"))
    argv = ["check", str(path)] + (["--format", "json"] if as_json else []) + (["--target", target] if target else [])
    status = main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1, 2), (status, out, err)
    assert "Traceback" not in out + err and "internal error" not in out + err, out + err
    if as_json:
        result = json.loads(out)
        assert result["ok"] == (status == 0) and result["target"] in ("a2a3", "a5", "cpu")
        for d in result["diagnostics"]:
            assert d["line"] >= 1 and d["col"] >= 1 and d["severity"] in ("error", "warning") and d["message"]
    elif status == 1:
        heads = [line for line in out.splitlines() if DIAGNOSTIC.match(line) and line.startswith(str(path))]
        assert heads and out.rstrip("\n").splitlines()[-1].endswith(")"), out
    elif status == 0:
        assert re.search(rf"ok \(target {target or '(a2a3|a5|cpu)'}\)\n$", out), out
