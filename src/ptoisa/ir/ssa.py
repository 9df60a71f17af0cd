"""The SSA (Level-1) custom syntax of the five ops: `%d = pto.op %a, %b [{attrs}] : signature`.

    signature    ::= inputs '->' results | type-list          (without '->', the last type is the result)
    inputs       ::= type | '(' [type {',' type}] ')'
    results      ::= type | '(' type {',' type} ')'

Operand types pair with operands left to right. Fewer types than operands is allowed where the op can infer
the missing ones (the seed pages' abbreviations): the scalar of tcmps is src's element type, the scalar of tci
and texpands is the result's element type, tpartmul's src1 has src0's type. The printer always writes the full
`(T0, T1) -> R` form. See docs/text-forms.md for the per-op productions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Position

from .messages import msg
from .types import _TileTypeBase


def at_keyword(parser: Parser, word: str) -> bool:
    """Whether the next token is the bare word `word` (without consuming it)."""
    return parser._current_token.text == word  # pyright: ignore[reportPrivateUsage]


@dataclass
class SsaParts:
    """One parsed SSA op: unresolved operands, attributes and the written signature."""

    operands: list[UnresolvedOperand]
    attrs: dict[str, Attribute]
    inputs: list[Attribute]
    results: list[Attribute]
    start: Position
    sig_start: Position
    sig_end: Position


def parse_ssa(parser: Parser) -> SsaParts:
    """`%a, %b [{attrs}] : signature` (after the op name)."""
    start = parser.pos
    operands: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        operands.append(operand)
        if parser.parse_optional_punctuation(",") is None:
            break
    else:
        if operands:
            parser.raise_error("expected SSA value")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    sig_start = parser.pos
    inputs, results = _parse_signature(parser)
    return SsaParts(operands, attrs, inputs, results, start, sig_start, parser.pos)


def _parse_type_or_list(parser: Parser) -> list[Attribute]:
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is not None:
            return []
        types: list[Attribute] = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return types
    return [parser.parse_type()]


def _parse_signature(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    first = _parse_type_or_list(parser)
    if parser.parse_optional_punctuation("->") is not None:
        return first, _parse_type_or_list(parser)
    types = list(first)
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types[:-1], types[-1:]


def element_of(t: Attribute | None) -> Attribute | None:
    return t.element_type if isinstance(t, _TileTypeBase) else None


def resolve_ssa(parser: Parser, op: str, parts: SsaParts, result_count: int,
                infer: Callable[[list[Attribute]], Sequence[Attribute | None]] | None = None
                ) -> list[SSAValue]:
    """Pair operands with their types (after `infer` completes an abbreviated list)."""
    if len(parts.results) != result_count:
        parser.raise_error(msg("ssa.result_types", op=op, count=result_count, got=len(parts.results)),
                           parts.sig_start, parts.sig_end)
    inputs = list(parts.inputs)
    types: Sequence[Attribute | None] = inputs
    if len(inputs) < len(parts.operands) and infer is not None:
        types = infer(inputs)
    if len(types) != len(parts.operands):
        parser.raise_error(msg("ssa.operand_types", op=op, count=len(parts.operands), operands=len(parts.operands),
                               got=len(parts.inputs)), parts.sig_start, parts.sig_end)
    # a None type is an element type `infer` could not find (element_of of a non-tile): xDSL refuses it with a
    # ParseError ("operand is used with type None, ...")
    pairs = zip(parts.operands, types, strict=True)
    return [parser.resolve_operand(o, t) for o, t in pairs]  # type: ignore[arg-type]


def require_operands(parser: Parser, op: str, parts: SsaParts, allowed: Sequence[int]) -> None:
    if len(parts.operands) not in allowed:
        expected = " or ".join(str(n) for n in allowed)
        parser.raise_error(msg("ssa.operands", op=op, expected=expected, got=len(parts.operands)), parts.start,
                           parts.sig_start)


def print_ssa(printer: Printer, operands: Sequence[SSAValue], attrs: Mapping[str, Attribute],
              results: Sequence[SSAValue]) -> None:
    """` %a, %b {attrs} : (T0, T1) -> R` (results in parentheses when there are several)."""
    printer.print_string(" ")
    printer.print_list(operands, printer.print_operand)
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)
    printer.print_string(" : (")
    printer.print_list([o.type for o in operands], printer.print_attribute)
    printer.print_string(") -> ")
    if len(results) == 1:
        printer.print_attribute(results[0].type)
    else:
        printer.print_string("(")
        printer.print_list([r.type for r in results], printer.print_attribute)
        printer.print_string(")")
