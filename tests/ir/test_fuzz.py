"""Random and mutated text only ever fails with xDSL's ParseError/VerifyException or ptoisa's own errors."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.utils.exceptions import ParseError, VerifyException

from ptoisa.errors import PtoError
from ptoisa.ir import parse_module

EXAMPLES = [p.read_text() for p in sorted((Path(__file__).parents[2] / "examples" / "pto").glob("*.pto"))]
TOKENS = ["pto.tcmps", "pto.tgather", "pto.tci", "ins(", "outs(", ")", "(", "{", "}", "<", ">", ",", ":", "=", "?",
          "x", "-1", "0", "16", "%t", "!pto.tile_buf<", "vec", "f32", "#pto<cmp ", "#pto.mask_pattern<", "\"row\"",
          "valid=", "pad=", "loc=", "\n", " "]
ALLOWED = (ParseError, VerifyException, PtoError)


def _parse(text: str) -> None:
    try:
        parse_module(text)
    except ALLOWED:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLES), st.integers(0, 10_000), st.integers(1, 12), st.sampled_from(TOKENS))
def test_mutated_examples(text: str, where: int, cut: int, insert: str) -> None:
    i = where % len(text)
    _parse(text[:i] + insert + text[i + cut:])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30))
def test_token_soup_inside_a_function(tokens: list[str]) -> None:
    _parse("module {\n  func.func @k(%t: !pto.tile_buf<vec, 16x16xf32>) {\n    " + " ".join(tokens) + "\n    return\n  }\n}")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_random_text(text: str) -> None:
    _parse(text)


def test_unterminated_string_fails_fast() -> None:
    import pytest

    text = 'module attributes {pto.target_arch = "a5 func.func @k(%a: !pto.ptr<f32, gm>, %b: !pto.ptr<ui8, gm>) {\n}\n}'
    with pytest.raises(ParseError) as info:
        parse_module(text)
    assert info.value.msg == "End of file reached before closing string literal."


def test_an_ssa_tcmps_with_no_input_type_is_a_parse_error():
    """Found by test_mutated_examples: `pto.tcmps %a, %s : f32(...) -> T` (the signature's inputs cut off) raised
    IndexError from the scalar-type inference (element_of(ts[0]) of no types), out of parse_module and
    ptoisa.load; now the operand-type count is refused as for any other SSA op."""
    import pytest

    import ptoisa

    text = ("func.func @ssa(%wide: !pto.tile<16x32xf32>, %s: f32) {\n"
            "  %b = pto.tcmps %wide, %s : f32(!pto.tile<16x32xf32>, f32) -> !pto.tile<16x32xui8, valid=16x2>\n"
            "  return\n}\n")
    with pytest.raises(ParseError):
        parse_module(text)
    with pytest.raises(ptoisa.PtoError):
        ptoisa.load(text)
