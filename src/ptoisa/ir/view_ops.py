"""Tile views and pointer arithmetic: `pto.subview` (a window of a tile sharing its bytes) and `pto.addptr`.

    %s = pto.subview %t[%r, %c] sizes [8, 128] [valid [%vr, %vc]] [{attrs}] : !pto.tile_buf<...> -> !pto.tile_buf<...>
    %q = pto.addptr %p, %off : !pto.ptr<f32> -> !pto.ptr<f32>

A subview is the sub-rectangle [r, r + rows) x [c, c + cols) of its source tile: writes through it change the
source (PTOAS's subview is a view, no data moves). Without `valid`, its valid shape is the result type's (or
the whole window when the type says `?`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ptoisa.tile.enums import DYNAMIC

from .abstract_ops import PtoOp
from .types import PtrType, TileBufType
from .verify import Arch


def _print_tail(printer: Printer, op: PtoOp, source: Attribute) -> None:
    """` {attrs} : SourceType -> ResultType`, the end of both ops' custom syntax."""
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(dict(op.attributes))
    printer.print_string(" : ")
    printer.print_attribute(source)
    printer.print_string(" -> ")
    printer.print_attribute(op.results[0].type)


@irdl_op_definition
class SubViewOp(PtoOp):
    """`pto.subview %src[%r, %c] sizes [R, C] valid [%vr, %vc]`: a window of a tile (shares its bytes)."""

    name = "pto.subview"
    source = operand_def(TileBufType)
    offsets = var_operand_def(IndexType)
    valid = var_operand_def(IndexType)
    sizes = prop_def(DenseArrayBase)
    result = result_def(TileBufType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> SubViewOp:
        source = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_keyword("sizes")
        sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        valid = []
        if parser.parse_optional_keyword("valid") is not None:
            valid = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        index = IndexType()
        operands: list[SSAValue | list[SSAValue]] = [
            parser.resolve_operand(source, source_type), [parser.resolve_operand(o, index) for o in offsets],
            [parser.resolve_operand(v, index) for v in valid]]
        return cls.build(operands=operands, result_types=[result_type], attributes=attrs,
                         properties={"sizes": DenseArrayBase.from_list(i64, sizes)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string("[")
        printer.print_list(self.offsets, printer.print_operand)
        printer.print_string("] sizes [")
        printer.print_list(self.sizes.get_values(), lambda v: printer.print_string(str(v)))
        printer.print_string("]")
        if self.valid:
            printer.print_string(" valid [")
            printer.print_list(self.valid, printer.print_operand)
            printer.print_string("]")
        _print_tail(printer, self, self.source.type)

    def verify_structure(self, arch: Arch) -> None:
        sizes = tuple(self.sizes.get_values())
        src, res = self.source.type, self.result.type
        assert isinstance(src, TileBufType)  # the operand's constraint, verified before verify_structure
        if len(self.offsets) != 2 or len(sizes) != 2:
            self.fail_text("expects two offsets and two sizes")
        if len(self.valid) not in (0, 2):
            self.fail_text("valid [...] takes two values (rows and columns) or none")
        if tuple(res.shape) != sizes:
            self.fail_text(f"result shape {tuple(res.shape)} must equal sizes {sizes}")
        if res.element_type != src.element_type or res.loc != src.loc or res.blayout != src.blayout:
            self.fail_text("result must have the source's element type, location and layout")
        if any(s > t for s, t in zip(sizes, src.shape, strict=True)):
            self.fail_text(f"sizes {sizes} exceed the source shape {tuple(src.shape)}")

    def fail_text(self, text: str) -> None:
        from xdsl.utils.exceptions import VerifyException

        raise VerifyException(f"'{self.name}' op {text}")


@irdl_op_definition
class AddPtrOp(PtoOp):
    """`pto.addptr %p, %offset : !pto.ptr<T> -> !pto.ptr<T>`: the pointer `offset` elements further."""

    name = "pto.addptr"
    ptr = operand_def(PtrType)
    offset = operand_def(IndexType | IntegerType)
    result = result_def(PtrType)

    @classmethod
    def parse(cls, parser: Parser) -> AddPtrOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = _ptr_type(parser)
        result_type: Attribute = ptr_type
        if parser.parse_optional_punctuation("->") is not None:
            result_type = _ptr_type(parser)
        operands = [parser.resolve_operand(ptr, ptr_type), parser.resolve_operand(offset, IndexType())]
        return cls.build(operands=operands, result_types=[result_type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.offset)
        _print_tail(printer, self, self.ptr.type)

    def verify_structure(self, arch: Arch) -> None:
        if self.ptr.type != self.result.type:
            from xdsl.utils.exceptions import VerifyException

            raise VerifyException(f"'{self.name}' op result type must equal the pointer's type")


def _ptr_type(parser: Parser) -> Attribute:
    """A pointer type, also in the short form PTOAS prints for addptr (`<f32>` for `!pto.ptr<f32>`)."""
    if parser._current_token.text == "<":  # noqa: SLF001 - xDSL has no public peek for punctuation
        element, space = PtrType.parse_parameters(parser)
        return PtrType(element, space.data)  # type: ignore[attr-defined]
    return parser.parse_type()


VIEW_OPS = (SubViewOp, AddPtrOp)
__all__ = ["DYNAMIC", "VIEW_OPS", "AddPtrOp", "SubViewOp"]
