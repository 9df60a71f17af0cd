"""`ptoisa convert` and the form conversions: round trips per op and form, refusals, output files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.ir.errors import TextFormError

from ptoisa.cli.main import main
from ptoisa.ir import parse_module, print_module
from ptoisa.ir.forms import ConversionError, print_asm, to_dps, to_ssa

T = "!pto.tile<16x16xf32>"
ARGS = (f"%src: {T}, %s: f32, %i: i32, %idx: !pto.tile<16x16xi32>, %tmp: !pto.tile<16x32xi32>, "
        "%i16: !pto.tile<16x16xf16>")
SSA_OPS = {
    "tcmps": f"%d = pto.tcmps %src, %s {{cmpMode = #pto<cmp gt>}} : ({T}, f32) -> !pto.tile<16x32xui8, valid=16x2>",
    "tcmps_eq": f"%d = pto.tcmps %src, %s : ({T}, f32) -> !pto.tile<16x32xui8, valid=16x2>",
    "tci": "%d = pto.tci %i {descending = true} : (i32) -> !pto.tile<1x16xi32>",
    "tci_tmp": "%d = pto.tci %i, %tmp : (i32, !pto.tile<16x32xi32>) -> !pto.tile<1x16xi32>",
    "texpands": f"%d = pto.texpands %s : (f32) -> {T}",
    "tpartmul": f"%d = pto.tpartmul %src, %src : ({T}, {T}) -> {T}",
    "tgather_index": f"%d = pto.tgather %src, %idx : ({T}, !pto.tile<16x16xi32>) -> {T}",
    "tgather_mask": f"%d = pto.tgather %src {{maskPattern = #pto.mask_pattern<P0101>}} : ({T}) -> !pto.tile<16x8xf32>",
    "tgather_col": (f'%d = pto.tgather %src {{maskPattern = #pto.mask_pattern<P0101>, axis = "col"}} : ({T}) -> '
                    "!pto.tile<8x16xf32>"),
    "tgather_cmp": (f"%d, %c = pto.tgather %src, %s, %tmp {{cmpMode = #pto<cmp gt>, offset = 7 : i32}} : ({T}, f32, "
                    "!pto.tile<16x32xi32>) -> (!pto.tile<16x16xi32>, !pto.tile<16x8xi32>)"),
}


def ssa_module(line: str, arch: str = "a5") -> str:
    return (f'builtin.module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @k({ARGS}) {{\n    {line}\n'
            "    func.return\n  }\n}\n")


def generic(text: str, path: str = "<string>") -> str:
    return print_module(parse_module(text, path), generic=True)


@pytest.mark.parametrize("name", list(SSA_OPS))
def test_ssa_prints_as_written_and_parses_back(name: str) -> None:
    text = ssa_module(SSA_OPS[name])
    assert print_module(parse_module(text)) == text
    assert generic(print_module(parse_module(text), generic=True)) == generic(text)


@pytest.mark.parametrize("name", list(SSA_OPS))
@pytest.mark.parametrize("flavour", ["aug", "apr"])
def test_ssa_to_dps_to_ssa_round_trip(name: str, flavour: str) -> None:
    text = ssa_module(SSA_OPS[name])
    if flavour == "apr" and name in ("tci_tmp", "tgather_col"):
        # April PTOAS had no tci tmp operand and no mask axis: printing April must refuse, not drop them.
        with pytest.raises(TextFormError):
            print_module(to_dps(parse_module(text)), flavour)  # type: ignore[arg-type]
        return
    dps = print_module(to_dps(parse_module(text)), flavour)  # type: ignore[arg-type]
    assert "pto.alloc_tile" in dps and "ins(" in dps and "!pto.tile<" not in dps
    assert print_module(parse_module(dps), flavour) == dps  # type: ignore[arg-type]
    back = to_ssa(parse_module(dps))
    assert print_module(back) == text


@pytest.mark.parametrize("name", list(SSA_OPS))
def test_asm_round_trip(name: str) -> None:
    text = ssa_module(SSA_OPS[name])
    asm = print_asm(parse_module(text))
    op = name.split("_")[0]
    assert f"= {op} " in asm and f"pto.{op}" not in asm
    assert print_asm(parse_module(asm, "k.ptoas")) == asm
    assert generic(asm, "k.ptoas") == generic(text)


@pytest.mark.parametrize("name", list(SSA_OPS))
def test_generic_round_trip_of_dps(name: str) -> None:
    dps = print_module(to_dps(parse_module(ssa_module(SSA_OPS[name]))))
    gen = print_module(parse_module(dps), generic=True)
    assert print_module(parse_module(gen)) == dps


SEED_ABBREVIATIONS = [
    # the seed pages' spellings -> the printed full form
    (f"%d = pto.tcmps %src, %s {{cmpMode = #pto.cmp<GT>}} : {T} -> !pto.tile<16x32xui8, valid=16x2>",
     SSA_OPS["tcmps"]),
    ("%d = pto.tci %i {descending = true} : !pto.tile<1x16xi32>", SSA_OPS["tci"]),
    ("%d = pto.tci %i {descending = true} : i32 -> !pto.tile<1x16xi32>", SSA_OPS["tci"]),
    (f"%d = pto.texpands %s : f32, {T}", SSA_OPS["texpands"]),
    (f"%d = pto.texpands %s : {T}", SSA_OPS["texpands"]),
    (f"%d = pto.tpartmul %src, %src : {T} -> {T}", SSA_OPS["tpartmul"]),
    (f"%d = pto.tgather %src {{maskPattern = #pto.mask_pattern<P0101>}} : {T} -> !pto.tile<16x8xf32>",
     SSA_OPS["tgather_mask"]),
    ((f"%d:2 = pto.tgather %src, %s, %tmp {{cmpMode = #pto<cmp gt>, offset = 7 : i32}} : ({T}, f32, "
     "!pto.tile<16x32xi32>) -> (!pto.tile<16x16xi32>, !pto.tile<16x8xi32>)"), None),
]


@pytest.mark.parametrize(("written", "printed"), SEED_ABBREVIATIONS)
def test_seed_abbreviations(written: str, printed: str | None) -> None:
    out = print_module(parse_module(ssa_module(written)))
    if printed is not None:
        assert out == ssa_module(printed)


# --- DPS -> SSA refusals ---------------------------------------------------------------------------------------
V = "!pto.tile_buf<vec, 16x16xf32>"


def dps_module(body: str, args: str = f"%x: {V}, %s: f32") -> str:
    return f'module attributes {{pto.target_arch = "a5"}} {{\n  func.func @k({args}) {{\n{body}\n    return\n  }}\n}}\n'


REFUSALS = [
    ("written-twice", (f"    %t = pto.alloc_tile : {V}\n    pto.texpands ins(%s : f32) outs(%t : {V})\n"
                      f"    pto.texpands ins(%s : f32) outs(%t : {V})"),
     ("cannot convert 'pto.texpands': %t is written more than once (also by 'pto.texpands'): a tile written more "
     "than once has no single SSA value"), 4),
    ("arg-written", f"    pto.texpands ins(%s : f32) outs(%x : {V})",
     ("cannot convert 'pto.texpands': it writes %x, a block argument: the write is visible outside the block (only "
     "tiles from pto.alloc_tile have an SSA form)"), 3),
    ("in-place", f"    %t = pto.alloc_tile : {V}\n    pto.tpartmul ins(%t, %x : {V}, {V}) outs(%t : {V})",
     "cannot convert 'pto.tpartmul': it reads and writes %t in place: the value it reads has no SSA name", 4),
    ("read-before", (f"    %t = pto.alloc_tile : {V}\n    %u = pto.alloc_tile : {V}\n"
                    f"    pto.tpartmul ins(%t, %x : {V}, {V}) outs(%u : {V})\n    pto.texpands ins(%s : f32) outs(%t : {V})"),
     "cannot convert 'pto.tpartmul': it reads %t before 'pto.texpands' writes it", 5),
    ("addr", (f"    %a = arith.constant 0 : i64\n    %t = pto.alloc_tile addr = %a : {V}\n"
             f"    pto.texpands ins(%s : f32) outs(%t : {V})"),
     ("cannot convert 'pto.texpands': it writes %t, allocated at a fixed address (addr = ...): other tiles may alias "
     "it"), 5),
    ("aliased", (f"    %t = pto.alloc_tile : {V}\n    pto.texpands ins(%s : f32) outs(%t : {V})\n"
                f"    %a = arith.constant 0 : i64\n    %t2 = pto.tassign %t, %a : {V} -> {V}"),
     ("cannot convert 'pto.texpands': %t is also used by 'pto.tassign', which has no SSA form (the tile would be "
     "aliased or written outside the SSA value)"), 4),
]


@pytest.mark.parametrize(("body", "message", "line"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_dps_to_ssa_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str,
                             line: int) -> None:
    text = dps_module(body)
    with pytest.raises(ConversionError) as info:
        to_ssa(parse_module(text))
    assert str(info.value) == message
    path = tmp_path / "k.pto"
    path.write_text(text)
    assert main(["convert", str(path), "--to", "ssa"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:5: error: {message}\n{text.splitlines()[line - 1]}\n    ^\n")
    assert err.endswith(f"{path}: not converted to ssa (target a5)\n")


def test_refusal_leaves_module_unchanged() -> None:
    text = dps_module(f"    %t = pto.alloc_tile : {V}\n    pto.texpands ins(%s : f32) outs(%t : {V})\n"
                      f"    pto.texpands ins(%s : f32) outs(%x : {V})")
    module = parse_module(text)
    before = print_module(module)
    with pytest.raises(ConversionError):
        to_ssa(module)
    assert print_module(module) == before


def test_dynamic_valid_ssa_result_is_refused_for_dps() -> None:
    text = ssa_module("%d = pto.texpands %s : (f32) -> !pto.tile<16x16xf32, valid=?x?>")
    with pytest.raises(ConversionError, match=r"cannot convert 'pto.texpands': result #0 has a dynamic valid shape"):
        to_dps(parse_module(text))


def test_dps_chain_converts_and_reads_follow_the_value() -> None:
    body = (f"    %t = pto.alloc_tile : {V}\n    %u = pto.alloc_tile : {V}\n"
            f"    pto.texpands ins(%s : f32) outs(%t : {V})\n    pto.tpartmul ins(%t, %x : {V}, {V}) outs(%u : {V})")
    ssa = print_module(to_ssa(parse_module(dps_module(body))))
    assert f"%t = pto.texpands %s : (f32) -> {T}" in ssa
    assert f"%u = pto.tpartmul %t, %x : ({T}, {T}) -> {T}" in ssa and "alloc_tile" not in ssa
    assert f"@k(%x: {T}, %s: f32)" in ssa


# --- the command -----------------------------------------------------------------------------------------------
def test_convert_command_forms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).parents[2] / "examples" / "pto" / "ssa_kernel.pto"
    outs = {}
    for form in ("dps", "ssa", "asm", "generic"):
        out = tmp_path / f"k.{'ptoas' if form == 'asm' else 'pto'}"
        existed = out.exists()
        assert main(["convert", str(src), "--to", form, "-o", str(out)]) == 0
        note = " (replaced the old file)" if existed else ""
        assert capsys.readouterr().out == f"{src} -> {out} ({form}, target a5){note}\n"
        outs[form] = out.read_text()
        assert outs[form].startswith(f"// converted by ptoisa from {src} to {form} (target a5)\n")
        again = parse_module(outs[form], str(out))
        if form == "dps":
            assert "pto.alloc_tile" in outs[form]
            again = to_ssa(again)
        assert print_module(again, generic=True) == generic(src.read_text())
    assert main(["convert", str(src), "--to", "dps", "--flavour", "apr"]) == 0
    assert "pto.alloc_tile" in capsys.readouterr().out


def test_convert_never_writes_over_its_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "k.pto"
    src.write_bytes((Path(__file__).parents[2] / "examples" / "pto" / "ssa_kernel.pto").read_bytes())
    before = src.read_bytes()
    assert main(["convert", str(src), "--to", "dps", "-o", str(src)]) == 2
    assert "it is an input" in capsys.readouterr().err
    assert src.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["k.pto"]  # no temporary file left behind


def test_convert_refuses_invalid_input(capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).parents[2] / "examples" / "pto" / "invalid_legality_a2a3.pto"
    assert main(["convert", str(src), "--to", "generic"]) == 1
    err = capsys.readouterr().err
    assert "error: TCMPS on a2a3" in err and err.endswith("not converted (target a2a3)\n")
    assert main(["convert", str(src) + ".missing", "--to", "ssa"]) == 2
    capsys.readouterr()


def test_convert_april_flavour_without_spelling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.pto"
    path.write_text(ssa_module(SSA_OPS["tci_tmp"]))
    assert main(["convert", str(path), "--to", "dps", "--flavour", "apr"]) == 1
    assert "has no April spelling" in capsys.readouterr().err
