"""Shared pieces of the PTOAS custom syntax: the print flavour and the DPS `ins(...) outs(...)` groups.

A DPS group is `keyword(%a, %b [{attrs}] : T0, T1)`; only some ops allow the attribute dictionary inside the
group (tcmps, April tci), the others take it after `outs(...)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal, NoReturn

from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Position

from .errors import TextFormError
from .messages import msg

Flavour = Literal["aug", "apr"]
FLAVOURS: tuple[Flavour, ...] = ("aug", "apr")
_FLAVOUR: ContextVar[Flavour] = ContextVar("pto_print_flavour", default="aug")


def current_flavour() -> Flavour:
    """The flavour the printer is writing: `"aug"` (PTOAS August, the default) or `"apr"` (PTOAS April)."""
    return _FLAVOUR.get()


@contextmanager
def print_flavour(flavour: Flavour) -> Iterator[None]:
    """Print in `flavour` inside the block."""
    if flavour not in FLAVOURS:
        raise TextFormError(msg("print.flavour", value=flavour))
    token = _FLAVOUR.set(flavour)
    try:
        yield
    finally:
        _FLAVOUR.reset(token)


def raise_flavour_error(text: str) -> NoReturn:
    raise TextFormError(text)


@dataclass
class Group:
    """One parsed `keyword(operands [attrs] : types)` group, operands not yet resolved."""

    keyword: str
    operands: list[UnresolvedOperand]
    types: list[Attribute] = field(default_factory=list[Attribute])
    attrs: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    start: Position = 0
    end: Position = 0


def parse_operand_list(parser: Parser) -> tuple[list[UnresolvedOperand], bool]:
    """`%a, %b, ...`; also says whether a comma was left dangling (tgather's `ins(%src, {...}`)."""
    operands: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        operands.append(operand)
        if parser.parse_optional_punctuation(",") is None:
            return operands, False
    return operands, bool(operands)


def parse_type_list(parser: Parser) -> list[Attribute]:
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def parse_group(parser: Parser, keyword: str, *, inner_attrs: bool = False) -> Group:
    """Parse `keyword(%a, ... [{attrs}] : T, ...)`; operands after the types bring their own
    (`ins(%a : T, %b : U)`, PTOAS's spelling of optional operands)."""
    parser.parse_keyword(keyword)
    start = parser.pos
    parser.parse_punctuation("(")
    operands, dangling = parse_operand_list(parser)
    if dangling:
        parser.raise_error("expected SSA value")
    attrs = parser.parse_optional_attr_dict() if inner_attrs else {}
    parser.parse_punctuation(":")
    types: list[Attribute] = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        # PTOAS's optional trailing operands come with their own types: `ins(%src : T, %fp : F)`
        if (operand := parser.parse_optional_unresolved_operand()) is not None:
            operands.append(operand)
            parser.parse_punctuation(":")
        types.append(parser.parse_type())
    parser.parse_punctuation(")")
    return Group(keyword, operands, types, attrs, start, parser.pos)


def resolve_group(parser: Parser, group: Group) -> list[SSAValue]:
    """Pair operands with types, one to one."""
    if len(group.operands) != len(group.types):
        text = msg("dps.type_count", group=group.keyword, operands=len(group.operands), types=len(group.types))
        parser.raise_error(text, group.start, group.end)
    return [parser.resolve_operand(o, t) for o, t in zip(group.operands, group.types, strict=True)]


def merge_attrs(parser: Parser, inner: Mapping[str, Attribute], outer: Mapping[str, Attribute]) -> dict[str, Attribute]:
    """Attributes given inside `ins(...)` and after `outs(...)`; a name may appear in only one place."""
    for name in inner.keys() & outer.keys():
        parser.raise_error(msg("dps.attr_twice", name=name))
    return {**inner, **outer}


def print_group(printer: Printer, keyword: str, values: Sequence[SSAValue], types: Sequence[Attribute] | None = None,
                attrs: Mapping[str, Attribute] | None = None) -> None:
    """Print ` keyword(%a, %b {attrs} : T0, T1)`; `types` defaults to the values' types."""
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_operand)
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)
    printer.print_string(" : ")
    printer.print_list(types if types is not None else [v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def print_trailing_attrs(printer: Printer, attrs: Mapping[str, Attribute]) -> None:
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)
