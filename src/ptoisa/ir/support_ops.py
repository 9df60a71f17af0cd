"""The supporting ops a runnable kernel needs around the five instructions (text-forms.md section 2).

    %t  = pto.alloc_tile [addr = %a] [valid_row = %vr] [valid_col = %vc] : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    %t2 = pto.tassign %t, %addr : T -> T
    pto.set_validshape %t, %vr, %vc : T
    %tv = pto.make_tensor_view %ptr, shape = [%m, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32>
              -> !pto.partition_tensor_view<16x16xf32>          (August omits `-> ...` when sizes are constants)
    %d  = pto.get_tensor_view_dim %tv, %c0 : !pto.tensor_view<?x?xf32> -> index
    pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : T)
    pto.tstore ins(%t : T) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    %v  = pto.load_scalar %ptr[%i] : !pto.ptr<i32> -> i32
    pto.store_scalar %v, %ptr[%i] : !pto.ptr<i32>, i32
    pto.tsetval ins(%off, %v : index, i32) outs(%t : T)
    %v  = pto.tgetval ins(%t, %off : T, index) outs : f32
    %b  = pto.get_block_idx          (also get_block_num, get_subblock_idx, get_subblock_num; result i64)

Operand types the text does not write are fixed: addresses are i64, sizes, offsets and indices are `index`, and
make_tensor_view's pointer is `!pto.ptr<T, gm>` with the view's element type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self, TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute, OpResult, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.printer import Printer

from ptoisa.tile.enums import BLOCK_BYTES, DYNAMIC, BLayout, SLayout

from .abstract_ops import DpsOp, PtoOp, type_text
from .legality import config_of, tile_type_problem
from .messages import msg
from .syntax import current_flavour, parse_group, print_group, print_trailing_attrs, resolve_group
from .types import PartitionTensorViewType, PtrType, TensorViewType, TileBufType
from .verify import Arch, byte_size, is_memref

INDEX = IndexType()


def _parse_operand_as(parser: Parser, t: Attribute) -> SSAValue:
    return parser.resolve_operand(parser.parse_unresolved_operand(), t)


def _parse_index_list(parser: Parser, key: str) -> list[SSAValue]:
    """`key = [%a, %b]` (index operands)."""
    parser.parse_keyword(key)
    parser.parse_punctuation("=")
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_operand_as(parser, INDEX))


def _print_index_list(printer: Printer, key: str, values: Sequence[SSAValue]) -> None:
    printer.print_string(f", {key} = [")
    printer.print_list(values, printer.print_operand)
    printer.print_string("]")


def constant_int(value: SSAValue) -> int | None:
    """The integer an `arith.constant` defines, or None."""
    owner = value.owner if isinstance(value, OpResult) else None  # forward references have no owner yet
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@irdl_op_definition
class AllocTileOp(PtoOp):
    """Allocate a tile; dynamic (`?`) valid sizes take their runtime value from valid_row/valid_col."""

    name = "pto.alloc_tile"
    addr = opt_operand_def(i64)
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    result = result_def(TileBufType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    CLAUSES: ClassVar[tuple[tuple[str, Attribute], ...]] = (("addr", i64), ("valid_row", INDEX), ("valid_col", INDEX))

    @classmethod
    def parse(cls, parser: Parser) -> AllocTileOp:
        operands: list[list[SSAValue]] = []
        for key, t in cls.CLAUSES:
            present = parser.parse_optional_keyword(key) is not None
            operands.append([_parse_operand_as(parser, t)] if present and parser.parse_punctuation("=") else [])
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.build(operands=operands, result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        for key, _ in self.CLAUSES:
            if (value := getattr(self, key)) is not None:
                printer.print_string(f" {key} = ")
                printer.print_operand(value)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_structure(self, arch: Arch) -> None:
        t = self.result.type
        for operand, field, valid in (("valid_row", "v_row", t.valid_shape[0]), ("valid_col", "v_col", t.valid_shape[1])):
            given = getattr(self, operand) is not None
            if valid == DYNAMIC and not given:
                self.fail("alloc.required", operand=operand, field=field)
            if valid != DYNAMIC and given:
                self.fail("alloc.absent", operand=operand, field=field, value=valid)
        self._verify_alignment(t)
        addr = _constant_int(self.addr) if self.addr is not None else None
        problem = tile_type_problem(t, config_of(self), addr)
        if problem:
            raise VerifyException(problem)

    def _verify_alignment(self, t: TileBufType) -> None:
        """August: a none_box tile's contiguous dimension must span whole 32-byte blocks."""
        size = byte_size(t.element_type)
        if t.slayout.data is not SLayout.NoneBox or size is None:
            return
        row_major = t.blayout.data is BLayout.RowMajor
        nbytes = (t.shape[1] if row_major else t.shape[0]) * size
        if nbytes % BLOCK_BYTES:
            self.fail("alloc.row_align" if row_major else "alloc.col_align", bytes=nbytes)


def _constant_int(value: SSAValue) -> int | None:
    """The value of an `arith.constant` integer operand, or None when it is computed at run time."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


_PairOp = TypeVar("_PairOp", bound=PtoOp)


def _parse_pair(cls: type[_PairOp], parser: Parser, second_type: Attribute, first: Any = None) -> _PairOp:
    """`%r = pto.op %a, %b [attrs] : A -> R`, where %b's type is implied (`second_type`); `first` when the caller
    has already read `%a,`."""
    if first is None:
        first = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
    second = _parse_operand_as(parser, second_type)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    first_type = parser.parse_type()
    parser.parse_punctuation("->")
    result = parser.parse_type()
    return cls.create(operands=[parser.resolve_operand(first, first_type), second], result_types=[result],
                      attributes=attrs)


def _print_pair(op: PtoOp, printer: Printer) -> None:
    first, second = op.operands
    printer.print_string(" ")
    printer.print_list([first, second], printer.print_operand)
    print_trailing_attrs(printer, op.attr_view())
    printer.print_string(" : ")
    printer.print_list([first.type, op.results[0].type], printer.print_attribute, " -> ")


@irdl_op_definition
class TAssignOp(PtoOp):
    """Bind a tile to an on-chip byte address (manual placement, PTOAS level3): `%t2 = pto.tassign %t, %a : T -> T`."""

    name = "pto.tassign"
    tile = operand_def(TileBufType)
    addr = operand_def(i64)
    result = result_def(TileBufType)

    @classmethod
    def parse(cls, parser: Parser) -> TAssignOp:
        start = parser.pos
        first = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        if parser.parse_optional_symbol_name() is not None:
            parser.raise_error("the seed pages' `pto.tassign %t, @tile(0x1000)` is a comment, not PTOAS syntax: "
                               "write `%a = arith.constant 4096 : i64` and `%t2 = pto.tassign %t, %a : T -> T` "
                               "(or `pto.alloc_tile addr = %a : T`)", start, parser.pos)
        return _parse_pair(cls, parser, i64, first)

    def print(self, printer: Printer) -> None:
        _print_pair(self, printer)

    def verify_structure(self, arch: Arch) -> None:
        if self.tile.type != self.result.type:
            self.fail("tassign.same")


@irdl_op_definition
class SetValidShapeOp(PtoOp):
    """Set the runtime valid sizes of a `valid=?x?` tile: `pto.set_validshape %t, %vr, %vc : T`."""

    name = "pto.set_validshape"
    tile = operand_def(TileBufType)
    valid_row = operand_def(IndexType)
    valid_col = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> SetValidShapeOp:
        tile = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        vr = _parse_operand_as(parser, INDEX)
        parser.parse_punctuation(",")
        vc = _parse_operand_as(parser, INDEX)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(operands=[parser.resolve_operand(tile, parser.parse_type()), vr, vc], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.tile, self.valid_row, self.valid_col], printer.print_operand)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)

    def verify_structure(self, arch: Arch) -> None:
        tile = self.tile.type
        assert isinstance(tile, TileBufType)  # the operand's constraint, verified first
        if tile.valid_shape != (DYNAMIC, DYNAMIC):
            self.fail("validshape.dynamic")


@irdl_op_definition
class MakeTensorViewOp(PtoOp):
    """View global memory at a pointer as a tensor with the given shape and strides."""

    name = "pto.make_tensor_view"
    ptr = operand_def(PtrType)
    shape = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    result = result_def(TensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorViewOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = _parse_index_list(parser, "shape")
        parser.parse_punctuation(",")
        strides = _parse_index_list(parser, "strides")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        view = parser.parse_type()
        element_type = view.element_type if isinstance(view, TensorViewType) else view
        ptr_value = parser.resolve_operand(ptr, PtrType(element_type))
        return cls.build(operands=[ptr_value, shape, strides], result_types=[view], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        _print_index_list(printer, "shape", self.shape)
        _print_index_list(printer, "strides", self.strides)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_structure(self, arch: Arch) -> None:
        rank = len(self.result.type.dims)
        if len(self.shape) != rank or len(self.strides) != rank:
            self.fail("view.counts", rank=rank)
        ptr = self.ptr.type
        assert isinstance(ptr, PtrType)  # the operand's constraint, verified first
        if ptr.element_type != self.result.type.element_type:
            self.fail("view.ptr")


@irdl_op_definition
class PartitionViewOp(PtoOp):
    """A window of a tensor view; the result rank may differ from the source rank (5-D source, 2-D view)."""

    name = "pto.partition_view"
    source = operand_def(TensorViewType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    result = result_def(PartitionTensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> PartitionViewOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offsets = _parse_index_list(parser, "offsets")
        parser.parse_punctuation(",")
        sizes = _parse_index_list(parser, "sizes")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        result = parser.parse_type() if parser.parse_optional_punctuation("->") else None
        if result is None and (result := cls.infer_result(sizes, source_type)) is None:
            parser.raise_error(msg("part.infer"))
        operands: list[SSAValue | list[SSAValue]] = [
            parser.resolve_operand(source, source_type), offsets, sizes]
        return cls.build(operands=operands, result_types=[result], attributes=attrs)

    @staticmethod
    def infer_result(sizes: Sequence[SSAValue], source_type: Attribute) -> PartitionTensorViewType | None:
        """The view type constant sizes imply (August prints no `-> result` when it equals this)."""
        dims = [constant_int(s) for s in sizes]
        known = [d for d in dims if d is not None]
        if len(known) != len(dims) or not isinstance(source_type, TensorViewType):
            return None
        return PartitionTensorViewType.build(known, source_type.element_type)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        _print_index_list(printer, "offsets", self.offsets)
        _print_index_list(printer, "sizes", self.sizes)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        inferred = self.infer_result(self.sizes, self.source.type)
        if current_flavour() == "apr" or inferred != self.result.type:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    def verify_structure(self, arch: Arch) -> None:
        source = self.source.type
        assert isinstance(source, TensorViewType)  # the operand's constraint, verified first
        source_dims = source.dims
        if len(self.offsets) != len(source_dims) or len(self.sizes) != len(source_dims):
            self.fail("part.counts", rank=len(source_dims))
        result_dims = self.result.type.dims
        for dim, (offset, size, static) in enumerate(zip(self.offsets, self.sizes, source_dims, strict=True)):
            self._verify_dim(dim, constant_int(offset), constant_int(size), static, result_dims)

    def _verify_dim(self, dim: int, offset: int | None, size: int | None, static: int,
                    result_dims: tuple[int, ...]) -> None:
        if size is None:
            return
        if len(result_dims) == len(self.sizes) and result_dims[dim] not in (DYNAMIC, size):
            self.fail("part.size", dim=dim, size=size, result=result_dims[dim])
        if offset is not None and static != DYNAMIC and offset + size > static:
            self.fail("part.bounds", dim=dim, end=offset + size, size=static)


@irdl_op_definition
class GetTensorViewDimOp(PtoOp):
    """`%d = pto.get_tensor_view_dim %tv, %i : !pto.tensor_view<?x?xf32> -> index`."""

    name = "pto.get_tensor_view_dim"
    source = operand_def(TensorViewType)
    dim = operand_def(IndexType)
    result = result_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> GetTensorViewDimOp:
        return _parse_pair(cls, parser, INDEX)

    def print(self, printer: Printer) -> None:
        _print_pair(self, printer)


class _TransferOp(DpsOp):
    """tload/tstore: one view and one tile, `ins(x : X) outs(y : Y) [attrs]`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        (src,) = cls.take(parser, parse_group(parser, "ins"), 1)
        (dst,) = cls.take(parser, parse_group(parser, "outs"), 1)
        return cls.create(operands=[src, dst], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_group(printer, "ins", [self.operands[0]])
        print_group(printer, "outs", [self.operands[1]])
        print_trailing_attrs(printer, self.attr_view())


@irdl_op_definition
class TLoadOp(_TransferOp):
    """Load a partition view into a tile: `pto.tload ins(%pv : PTV) outs(%t : T)`."""

    name = "pto.tload"
    src = operand_def()
    dst = operand_def()

    def verify_structure(self, arch: Arch) -> None:
        if not isinstance(self.src.type, PartitionTensorViewType):
            self.fail("tload.view")
        dst = self.common("dst", self.dst)
        view_type, tile_type = self.src.type.element_type, getattr(dst, "element_type", None)
        if tile_type is not None and view_type != tile_type:
            raise VerifyException(f"tload copies elements unchanged: the view's element type {view_type} must be "
                                  f"the tile's ({tile_type}); convert with pto.tcvt after loading")


@irdl_op_definition
class TStoreOp(_TransferOp):
    """Store a tile's valid region into a partition view: `pto.tstore ins(%t : T) outs(%pv : PTV)`."""

    name = "pto.tstore"
    src = operand_def()
    dst = operand_def()
    pre_quant_scalar = opt_operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TStoreOp:
        """`ins(%t : T[, %pre : i64]) outs(%pv : PTV)`: PTOAS's optional preQuantScalar has its own type."""
        ins = parse_group(parser, "ins")
        if not 1 <= len(ins.operands) <= 2:
            parser.raise_error(msg("dps.count", group="ins", count="1 or 2", got=len(ins.operands)), ins.start,
                               ins.end)
        values = resolve_group(parser, ins)
        (dst,) = cls.take(parser, parse_group(parser, "outs"), 1)
        return cls.create(operands=[values[0], dst, *values[1:]], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        if self.pre_quant_scalar is None:
            return super().print(printer)
        printer.print_string(" ins(")
        for i, value in enumerate((self.src, self.pre_quant_scalar)):
            printer.print_string(", " if i else "")
            printer.print_operand(value)
            printer.print_string(" : ")
            printer.print_attribute(value.type)
        printer.print_string(")")
        print_group(printer, "outs", [self.dst])
        print_trailing_attrs(printer, self.attr_view())

    def verify_structure(self, arch: Arch) -> None:
        pre = self.pre_quant_scalar
        if pre is not None and not (isinstance(pre.type, IntegerType) and pre.type.width.data == 64):
            raise VerifyException(f"'{self.name}' op operand #2 must be 64-bit signless integer, but got "
                                  f"'{type_text(pre.type)}'")
        src = self.common("src", self.src)
        if not isinstance(self.dst.type, PartitionTensorViewType):
            self.fail("tstore.view")
        dst_count, src_count = _product(self.dst.type.dims), _product(src.valid_shape)
        if None not in (dst_count, src_count) and dst_count != src_count:
            self.fail("tstore.count", dst=dst_count, src=src_count)


def _product(dims: Sequence[int]) -> int | None:
    if DYNAMIC in dims:
        return None
    out = 1
    for d in dims:
        out *= d
    return out


@irdl_op_definition
class LoadScalarOp(PtoOp):
    """`%v = pto.load_scalar %ptr[%i] : !pto.ptr<i32> -> i32`."""

    name = "pto.load_scalar"
    ptr = operand_def(PtrType)
    index = operand_def(IndexType)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> LoadScalarOp:
        ptr = parser.parse_unresolved_operand()
        (index,) = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_operand_as(parser, INDEX))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(ptr, ptr_type), index], result_types=[result],
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_ptr_access(printer, self.ptr, self.index)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_list([self.ptr.type, self.result.type], printer.print_attribute, " -> ")

    def verify_structure(self, arch: Arch) -> None:
        ptr = self.ptr.type
        assert isinstance(ptr, PtrType)  # the operand's constraint, verified first
        if ptr.element_type != self.result.type:
            self.fail("scalar.ptr")


def _print_ptr_access(printer: Printer, ptr: SSAValue, index: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(ptr)
    printer.print_string("[")
    printer.print_operand(index)
    printer.print_string("]")


@irdl_op_definition
class StoreScalarOp(PtoOp):
    """`pto.store_scalar %v, %ptr[%i] : !pto.ptr<i32>, i32`."""

    name = "pto.store_scalar"
    value = operand_def()
    ptr = operand_def(PtrType)
    index = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> StoreScalarOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        ptr = parser.parse_unresolved_operand()
        (index,) = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_operand_as(parser, INDEX))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        operands = [parser.resolve_operand(value, value_type), parser.resolve_operand(ptr, ptr_type), index]
        return cls.create(operands=operands, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(",")
        _print_ptr_access(printer, self.ptr, self.index)
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" : ")
        printer.print_list([self.ptr.type, self.value.type], printer.print_attribute)

    def verify_structure(self, arch: Arch) -> None:
        ptr = self.ptr.type
        assert isinstance(ptr, PtrType)  # the operand's constraint, verified first
        if ptr.element_type != self.value.type:
            self.fail("scalar.ptr")


@irdl_op_definition
class TSetValOp(DpsOp):
    """Write one tile element: `pto.tsetval ins(%offset, %v : index, T) outs(%tile : TB)`."""

    name = "pto.tsetval"
    offset = operand_def(IndexType)
    value = operand_def()
    dst = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TSetValOp:
        offset, value = cls.take(parser, parse_group(parser, "ins"), 2)
        (dst,) = cls.take(parser, parse_group(parser, "outs"), 1)
        return cls.create(operands=[offset, value, dst], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_group(printer, "ins", [self.offset, self.value])
        print_group(printer, "outs", [self.dst])
        print_trailing_attrs(printer, self.attr_view())

    def verify_structure(self, arch: Arch) -> None:
        self.common("dst", self.dst)


@irdl_op_definition
class TGetValOp(DpsOp):
    """Read one tile element: `%v = pto.tgetval ins(%tile, %offset : TB, index) outs : T`."""

    name = "pto.tgetval"
    src = operand_def()
    offset = operand_def(IndexType)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> TGetValOp:
        src, offset = cls.take(parser, parse_group(parser, "ins"), 2)
        parser.parse_keyword("outs")
        parser.parse_punctuation(":")
        result = parser.parse_type()
        return cls.create(operands=[src, offset], result_types=[result], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_group(printer, "ins", [self.src, self.offset])
        printer.print_string(" outs : ")
        printer.print_attribute(self.result.type)
        print_trailing_attrs(printer, self.attr_view())

    def verify_structure(self, arch: Arch) -> None:
        if not is_memref(self.src.type):
            self.common("src", self.src)


class _RuntimeQueryOp(PtoOp):
    """`%b = pto.get_block_idx`: no operands, no written type, an i64 result."""

    result = result_def(i64)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return cls.create(result_types=[i64], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_trailing_attrs(printer, self.attr_view())


@irdl_op_definition
class GetBlockIdxOp(_RuntimeQueryOp):
    """Index of this block (core) in the launch."""

    name = "pto.get_block_idx"


@irdl_op_definition
class GetBlockNumOp(_RuntimeQueryOp):
    """Number of blocks in the launch."""

    name = "pto.get_block_num"


@irdl_op_definition
class GetSubblockIdxOp(_RuntimeQueryOp):
    """Index of this sub-block (vector core of a cube/vector group)."""

    name = "pto.get_subblock_idx"


@irdl_op_definition
class GetSubblockNumOp(_RuntimeQueryOp):
    """Number of sub-blocks."""

    name = "pto.get_subblock_num"


SUPPORT_OPS = (
    AllocTileOp, TAssignOp, SetValidShapeOp, MakeTensorViewOp, PartitionViewOp, GetTensorViewDimOp, TLoadOp,
    TStoreOp, LoadScalarOp, StoreScalarOp, TSetValOp, TGetValOp, GetBlockIdxOp, GetBlockNumOp, GetSubblockIdxOp,
    GetSubblockNumOp,
)
