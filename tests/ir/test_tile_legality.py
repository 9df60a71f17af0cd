"""alloc_tile and tile-typed function arguments obey the Python API's tile rules, per target."""

from __future__ import annotations

import pytest

from ptoisa.ir.diagnostics import check_text

TILE = ("!pto.tile_buf<loc=vec, dtype={dtype}, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, "
        "blayout=row_major, slayout={slayout}, fractal=512, pad=0>")


def _program(alloc: str, target: str = "a2a3") -> str:
    return (f'module attributes {{pto.target_arch = "{target}"}} {{\n  func.func @f() {{\n'
            "    %c0 = arith.constant 0 : i64\n    %c3 = arith.constant 3 : i64\n"
            "    %c196608 = arith.constant 196608 : i64\n"
            f"    {alloc}\n    return\n  }}\n}}\n")


def _errors(text: str) -> list[str]:
    result = check_text(text, "t.pto")
    return [f"{d.line}: {d.message}" for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("alloc,message", [
    ("%t = pto.alloc_tile : " + TILE.format(dtype="f32", rows=1000, cols=1000, slayout="none_box"),
     "needs 4000000 bytes, more than the 196608-byte UB buffer of a2a3"),
    ("%t = pto.alloc_tile addr = %c3 : " + TILE.format(dtype="f32", rows=16, cols=16, slayout="none_box"),
     "addr 3 must be a non-negative multiple of 32 bytes on a2a3"),
    ("%t = pto.alloc_tile addr = %c196608 : " + TILE.format(dtype="f32", rows=16, cols=16, slayout="none_box"),
     "ends at byte 197632, past the 196608-byte UB buffer of a2a3"),
    ("%t = pto.alloc_tile : " + TILE.format(dtype="i1", rows=16, cols=256, slayout="none_box"),
     "unknown element type 'i1'"),
    ("%t = pto.alloc_tile : " + TILE.format(dtype="i4", rows=16, cols=64, slayout="none_box"),
     "unknown element type 'i4'"),
])
def test_alloc_tile_is_refused_like_the_api(alloc, message):
    errors = _errors(_program(alloc))
    assert len(errors) == 1 and errors[0].startswith("6: ") and message in errors[0], errors


def test_the_same_tile_fits_a_bigger_buffer():
    """256x256 f32 (256 KiB) exceeds A2/A3's 192 KiB UB but fits the simulator's 512 KiB one."""
    alloc = "%t = pto.alloc_tile : " + TILE.format(dtype="f32", rows=256, cols=256, slayout="none_box")
    assert _errors(_program(alloc, "a2a3"))
    assert not _errors(_program(alloc, "cpu"))


def test_a_tile_argument_is_checked_too():
    text = ("func.func @f(%t: " + TILE.format(dtype="f32", rows=1000, cols=1000, slayout="none_box") + ") {\n"
            "  return\n}\n")
    errors = _errors(text)
    assert len(errors) == 1 and "%t: tile" in errors[0] and "UB buffer" in errors[0]


def test_an_explicit_target_that_differs_from_the_module_is_a_warning(tmp_path, capsys):
    """DECISIONS 26: --target wins over pto.target_arch; check and run say so."""
    from ptoisa.cli.main import main

    text = _program("%t = pto.alloc_tile : " + TILE.format(dtype="f32", rows=16, cols=16, slayout="none_box"),
                    "a5")
    result = check_text(text, "t.pto", "cpu")
    warnings = [d for d in result.diagnostics if d.severity == "warning"]
    assert result.ok and result.target == "cpu" and len(warnings) == 1
    assert "target cpu as asked, although the module names a5" in warnings[0].message and warnings[0].line == 1
    assert not [d for d in check_text(text, "t.pto", "a5").diagnostics if d.severity == "warning"]
    path = tmp_path / "t.pto"
    path.write_text(text)
    assert main(["run", str(path), "--target", "cpu", "-q"]) == 0
    assert "warning: running for target cpu as asked, although" in capsys.readouterr().err
