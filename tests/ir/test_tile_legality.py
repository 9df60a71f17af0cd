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


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "pto"


def test_compare_tgather_needs_its_tmp_on_every_target():
    """The C++ comparison overload always takes tmp (TGATHER(dst, src0, kValue, cdst, tmp, offset)); PTOAS asks
    for it too, so text without it is refused even where the target ignores tmp."""
    text = (EXAMPLES / "tpartmul_tgather_a5.pto").read_text()
    without = text.replace("pto.tgather ins(%d, %k, %tmp : !pto.tile_buf<vec, 16x16xf32>, f32, "
                           "!pto.tile_buf<vec, 16x32xui8>)", "pto.tgather ins(%d, %k : !pto.tile_buf<vec, 16x16xf32>, f32)")
    assert without != text
    assert check_text(text, "t.pto").ok
    errors = _errors(without)
    assert errors and "tmp" in errors[0]


def test_tload_into_a_tile_of_another_element_type_is_refused():
    tile = TILE.format(dtype="{t}", rows=16, cols=16, slayout="none_box")
    text = ("func.func @f(%p: !pto.ptr<f16>) {\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c16 = arith.constant 16 : index\n"
            "  %v = pto.make_tensor_view %p, shape = [%c16, %c16], strides = [%c16, %c1] "
            "{layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf16>\n"
            "  %pv = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : "
            "!pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x16xf16>\n"
            "  %t = pto.alloc_tile : " + tile + "\n"
            "  pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf16>) outs(%t : " + tile + ")\n"
            "  return\n}\n")
    assert not _errors(text.replace("{t}", "f16"))
    errors = _errors(text.replace("{t}", "f32"))
    assert len(errors) == 1 and errors[0].startswith("8: ") and "element type f16 must be the tile's (f32)" in errors[0]


def test_check_warns_about_what_the_target_will_do_differently():
    """Issue 9: an int32 TCMPS GT on a2a3 is checked "ok" but runs as EQ; check says so (a warning, exit 0)."""
    program = ("func.func @f(%src: !pto.tile_buf<vec, 16x16x{t}>, %dst: !pto.tile_buf<vec, 16x32xui8, valid=16x2>, "
               "%s: {t}) {{\n  pto.tcmps ins(%src, %s {{cmpMode = #pto<cmp gt>}} : !pto.tile_buf<vec, 16x16x{t}>, {t}) "
               "outs(%dst : !pto.tile_buf<vec, 16x32xui8, valid=16x2>)\n  return\n}}\n")
    result = check_text(program.format(t="i32"), "t.pto", "a2a3")
    warnings = [d for d in result.diagnostics if d.severity == "warning"]
    assert result.ok and len(warnings) == 1 and warnings[0].line == 2 and "with EQ whatever the mode" in warnings[0].message
    assert not [d for d in check_text(program.format(t="i32"), "t.pto", "a5").diagnostics]
    half_bits = check_text(program.format(t="i16"), "t.pto", "a2a3").diagnostics
    assert any("erratum tcmps_int16_as_half" in d.message for d in half_bits)
