"""Explicit sync, prefetch, dynamic event ids, bind_tile and the async DMA session, in PTOAS's syntax.

    pto.tsync ins(%e0, %e1 : T0, T1)                                    (TSYNC(events...): waits on tokens)
    pto.tprefetch ins(%pv : !pto.partition_tensor_view<...>) outs(%t : !pto.tile_buf<...>)
    %arr = pto.declare_eventid_array -> !pto.eventid_array<4>
    pto.eventid_array_set %arr[%i], %v : !pto.eventid_array<4>
    %e = pto.eventid_array_get %arr[%i] : !pto.eventid_array<4>        (an index)
    pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]  (wait_flag_dyn alike; `<PIPE_V>` too)
    %v = pto.bind_tile %m, %vr, %vc {config = #pto.tile_buf_config<blayout=1 : i32, ...>} : memref<...> -> memref<...>
    %s = pto.build_async_session(%scratch, %ws : !pto.tile_buf<...>, memref<1024xi8, ...>) {sync_id = 0 : i32}
             -> !pto.async_session
    %e = pto.tput_async(%dst, %src, %s : memref<128xf32, ...>, memref<128xf32, ...>, !pto.async_session)
             -> !pto.async_event                                        (tget_async alike)
    %ok = pto.wait_async_event(%e, %s : !pto.async_event, !pto.async_session) -> i1   (test_async_event alike)

The syntax and verifiers are PTOAS's (include/PTO/IR/PTOOps.td, lib/PTO/IR/PTO.cpp, PTOAttrs.cpp), with its
messages. What the ops do in a sequential run is in `ptoisa.interp.ops_misc`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import (
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ptoisa.tile.enums import DYNAMIC, TileType

from .abstract_ops import SEGMENTS, PtoOp, type_text
from .attrs import AddressSpaceAttr, EventAttr, PipeAttr
from .enums import AddressSpace
from .sync_ops import parse_sync_item, print_short
from .syntax import parse_operand_list, print_trailing_attrs
from .types import PartitionTensorViewType, PtrType, TensorViewType, TileBufType

INDEX = IndexType()


# --- types and the tile_buf_config attribute -------------------------------------------------------------------
@irdl_attr_definition
class EventIdArrayType(ParametrizedAttribute, TypeAttribute):
    """`!pto.eventid_array<N>`: a local array of N dynamic event ids (C++ `int32_t data[N] = {}`)."""

    name = "pto.eventid_array"
    size: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        size = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(">")
        return (IntAttr(size),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.size.data}>")


@irdl_attr_definition
class AsyncSessionType(ParametrizedAttribute, TypeAttribute):
    """`!pto.async_session`: the handle of an async DMA session (pto::comm::AsyncSession)."""

    name = "pto.async_session"


@irdl_attr_definition
class AsyncEventType(ParametrizedAttribute, TypeAttribute):
    """`!pto.async_event`: the completion token of one tput_async / tget_async (pto::comm::AsyncEvent)."""

    name = "pto.async_event"


_CONFIG_KEYS = ("blayout", "slayout", "s_fractal_size", "pad", "compact")
_CONFIG_DEFAULTS = (0, 0, 512, 0, 0)
_CONFIG_WORDS = {"blayout": ("row_major", "col_major"), "slayout": ("none_box", "row_major", "col_major"),
                 "pad": ("null", "zero", "max", "min"), "compact": ("null", "normal", "row_plus_one")}


@irdl_attr_definition
class TileBufConfigAttr(ParametrizedAttribute):
    """`#pto.tile_buf_config<blayout=1 : i32, slayout=1 : i32, s_fractal_size=512, pad=0 : i32>`: a tile's layout
    fields (PTOAttrs.cpp: any key may be left out, defaults row_major / none_box / 512 / null / null; a value is
    an integer or the field's own attribute such as `#pto.blayout<col_major>`). Stored as five integers."""

    name = "pto.tile_buf_config"
    blayout: IntAttr
    slayout: IntAttr
    s_fractal_size: IntAttr
    pad: IntAttr
    compact: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = dict(zip(_CONFIG_KEYS, _CONFIG_DEFAULTS, strict=True))
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation(">") is not None:
            return tuple(IntAttr(values[k]) for k in _CONFIG_KEYS)
        while True:
            start = parser.pos
            key = parser.parse_identifier()
            if key not in values:
                parser.raise_error(f"unknown key in tile_buf_config: {key}", start, parser.pos)
            parser.parse_punctuation("=")
            start = parser.pos
            if key == "s_fractal_size":
                values[key] = parser.parse_integer(allow_boolean=False)
            else:
                attr = parser.parse_attribute()
                number = _config_number(key, attr)
                if number is None:
                    parser.raise_error(f"expected an integer or a {key} attribute", start, parser.pos)
                values[key] = number
            if parser.parse_optional_punctuation(">") is not None:
                break
            parser.parse_punctuation(",")
        return tuple(IntAttr(values[k]) for k in _CONFIG_KEYS)

    def print_parameters(self, printer: Printer) -> None:
        b, s, f, p, c = self.numbers
        printer.print_string(f"<blayout={b} : i32, slayout={s} : i32, s_fractal_size={f}, pad={p} : i32, "
                             f"compact={c} : i32>")

    @property
    def numbers(self) -> tuple[int, int, int, int, int]:
        return (self.blayout.data, self.slayout.data, self.s_fractal_size.data, self.pad.data,
                self.compact.data)

    def verify(self) -> None:
        """TileBufConfigAttr::verify's rules and words."""
        b, s, f, p, c = self.numbers
        if f not in (32, 16, 512, 1024):
            raise VerifyException(f"unsupported s_fractal_size: {f}")
        if b not in (0, 1):
            raise VerifyException(f"unsupported blayout value: {b}")
        if not 0 <= s <= 2:
            raise VerifyException(f"unsupported slayout value: {s}")
        if not 0 <= p <= 3:
            raise VerifyException(f"unsupported pad value: {p}")
        if not 0 <= c <= 2:
            raise VerifyException(f"unsupported compact_mode value: {c}")


def _config_number(key: str, attr: Attribute) -> int | None:
    """A config field's value: an integer attribute, or a layout/pad/compact attribute read by its word."""
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    text = type_text(attr)
    inner = text[text.find("<") + 1:text.rfind(">")].strip().lower() if "<" in text else ""
    words = _CONFIG_WORDS.get(key, ())
    return words.index(inner) if inner in words else None


# --- helpers ----------------------------------------------------------------------------------------------------
def _typed_list(parser: Parser) -> list[SSAValue]:
    """`%a, %b : T0, T1` (also empty: `` or ` : `), resolved."""
    operands, dangling = parse_operand_list(parser)
    if dangling:
        parser.raise_error("expected SSA value")
    types: list[Attribute] = []
    if parser.parse_optional_punctuation(":") is not None and operands:
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    if len(types) != len(operands):
        parser.raise_error(f"{len(operands)} operands present, but expected {len(types)}")
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def _print_typed_list(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)


def _space(t: Attribute) -> AddressSpace | TileType | None:
    if isinstance(t, TileBufType):
        return t.loc.data
    if isinstance(t, MemRefType) and isinstance(t.memory_space, AddressSpaceAttr):
        return t.memory_space.data
    return None


def _is_gm(t: MemRefType) -> bool:
    """PTOAS's isGmAddressSpaceAttr: no memory space, or gm."""
    space = t.memory_space
    return isinstance(space, NoneAttr) or (isinstance(space, AddressSpaceAttr) and space.data is AddressSpace.GM)


def _shape(t: Attribute) -> list[int]:
    if isinstance(t, TileBufType):
        return list(t.shape)
    if isinstance(t, MemRefType):
        return [DYNAMIC if d < 0 else d for d in t.get_shape()]
    if isinstance(t, TensorViewType | PartitionTensorViewType):
        return list(t.dims)
    return []


def _elem(t: Attribute) -> Attribute | None:
    if isinstance(t, TileBufType | MemRefType | PtrType):
        return t.element_type
    if isinstance(t, TensorViewType | PartitionTensorViewType):
        return t.element_type
    return None


def _elem_bytes(t: Attribute) -> int | None:
    width = getattr(t, "width", None)
    if width is not None:
        return (width.data + 7) // 8
    text = type_text(t)
    return {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f8E4M3FN": 1, "f8E5M2": 1, "!pto.hif8": 1}.get(text)


def memref_strides(t: MemRefType) -> tuple[list[int], int] | None:
    """The strides and offset of a memref (identity layout: row-major packed), None where the layout is an
    affine map ptoisa does not read. Dynamic entries are DYNAMIC."""
    shape = list(t.get_shape())
    layout = t.layout
    if isinstance(layout, NoneAttr):
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d if d >= 0 else 1
        return list(reversed(strides)), 0
    if isinstance(layout, StridedLayoutAttr):
        strides = [s.data if isinstance(s, IntAttr) else DYNAMIC for s in layout.strides.data]
        offset = layout.offset.data if isinstance(layout.offset, IntAttr) else DYNAMIC
        return strides, offset
    return None


# --- TSYNC, TPREFETCH ---------------------------------------------------------------------------------------------
@irdl_op_definition
class TSyncOp(PtoOp):
    """`pto.tsync ins(%e... : T...)`: TSYNC(events...), a wait on explicit event tokens; the operands are any
    DPS values (PTOAS lowers them to the call's arguments unchecked)."""

    name = "pto.tsync"
    events = var_operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TSyncOp:
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        values = _typed_list(parser)
        parser.parse_punctuation(")")
        return cls.create(operands=values, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        _print_typed_list(printer, list(self.events))
        printer.print_string(")")
        print_trailing_attrs(printer, dict(self.attributes))


@irdl_op_definition
class TPrefetchOp(PtoOp):
    """`pto.tprefetch ins(%src : V) outs(%dst : T)`: a hint to bring global data near a tile (TPREFETCH); its
    semantics are implementation-defined, so it changes no result."""

    name = "pto.tprefetch"
    src = operand_def()
    dst = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TPrefetchOp:
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        src = _typed_list(parser)
        parser.parse_punctuation(")")
        parser.parse_keyword("outs")
        parser.parse_punctuation("(")
        dst = _typed_list(parser)
        parser.parse_punctuation(")")
        if len(src) != 1 or len(dst) != 1:
            parser.raise_error("pto.tprefetch expects ins(%src : T) outs(%dst : T)")
        return cls.create(operands=[*src, *dst], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        _print_typed_list(printer, [self.src])
        printer.print_string(") outs(")
        _print_typed_list(printer, [self.dst])
        printer.print_string(")")
        print_trailing_attrs(printer, dict(self.attributes))

    def verify_structure(self, arch: object) -> None:
        """TPrefetchOp::verify."""
        src_t, dst_t = self.src.type, self.dst.type
        if isinstance(src_t, PartitionTensorViewType):
            for i, d in enumerate(src_t.dims):
                if d != DYNAMIC and d <= 0:
                    raise self._error(f"expects src shape[{i}] to be positive")
        elif isinstance(src_t, MemRefType):
            if any(d == 0 for d in src_t.get_shape()):
                raise self._error("expects src memref shape to be positive")
        else:
            raise self._error("expects src to be !pto.partition_tensor_view or memref")
        if isinstance(dst_t, TileBufType):
            rows, cols = dst_t.shape
            vr, vc = dst_t.valid_shape
            if vr > rows or vc > cols:
                raise self._error(f"expects dst valid_shape[{0 if vr > rows else 1}] to be within its shape")
            for i, v in enumerate((vr, vc)):
                if v != DYNAMIC and v <= 0:
                    raise self._error(f"expects dst valid_shape[{i}] to be positive")
            if dst_t.loc.data not in (TileType.Vec, TileType.Mat):
                raise self._error("expects dst to use loc=vec or loc=mat")
        elif isinstance(dst_t, MemRefType):
            if _space(dst_t) not in (AddressSpace.VEC, AddressSpace.MAT):
                raise self._error("expects dst memref to use loc=vec or loc=mat")
        else:
            raise self._error("expects dst to be !pto.tile_buf or memref")
        if _elem_bytes(_elem(src_t)) != _elem_bytes(_elem(dst_t)):  # type: ignore[arg-type]
            raise self._error("expects src and dst element types to have the same element size")

    def _error(self, text: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {text}")


# --- dynamic event ids ---------------------------------------------------------------------------------------------
@irdl_op_definition
class DeclareEventIdArrayOp(PtoOp):
    """`%arr = pto.declare_eventid_array -> !pto.eventid_array<N>`: N event ids, all 0 at first."""

    name = "pto.declare_eventid_array"
    array = result_def(EventIdArrayType)

    @classmethod
    def parse(cls, parser: Parser) -> DeclareEventIdArrayOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        start = parser.pos
        t = parser.parse_type()
        if not isinstance(t, EventIdArrayType):
            parser.raise_error(f"expected !pto.eventid_array<N>, got {type_text(t)}", start, parser.pos)
        return cls.create(result_types=[t], attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_trailing_attrs(printer, dict(self.attributes))
        printer.print_string(" -> ")
        printer.print_attribute(self.array.type)


def _parse_array_index(parser: Parser) -> tuple[object, object]:
    array = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    index = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    return array, index


def _parse_array_type(parser: Parser) -> EventIdArrayType:
    parser.parse_punctuation(":")
    start = parser.pos
    t = parser.parse_type()
    if not isinstance(t, EventIdArrayType):
        parser.raise_error(f"expected !pto.eventid_array<N>, got {type_text(t)}", start, parser.pos)
    return t


@irdl_op_definition
class EventIdArrayGetOp(PtoOp):
    """`%e = pto.eventid_array_get %arr[%i] : !pto.eventid_array<N>`: element i as an index."""

    name = "pto.eventid_array_get"
    array = operand_def(EventIdArrayType)
    index = operand_def(IndexType)
    result = result_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> EventIdArrayGetOp:
        array, index = _parse_array_index(parser)
        attrs = parser.parse_optional_attr_dict()
        t = _parse_array_type(parser)
        operands = [parser.resolve_operand(array, t), parser.resolve_operand(index, INDEX)]  # type: ignore[arg-type]
        return cls.create(operands=operands, result_types=[INDEX], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("]")
        print_trailing_attrs(printer, dict(self.attributes))
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)


@irdl_op_definition
class EventIdArraySetOp(PtoOp):
    """`pto.eventid_array_set %arr[%i], %v : !pto.eventid_array<N>`: store v (an index) at i."""

    name = "pto.eventid_array_set"
    array = operand_def(EventIdArrayType)
    index = operand_def(IndexType)
    value = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> EventIdArraySetOp:
        array, index = _parse_array_index(parser)
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        t = _parse_array_type(parser)
        operands = [parser.resolve_operand(array, t), parser.resolve_operand(index, INDEX),  # type: ignore[arg-type]
                    parser.resolve_operand(value, INDEX)]
        return cls.create(operands=operands, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("], ")
        printer.print_operand(self.value)
        print_trailing_attrs(printer, dict(self.attributes))
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)


class _DynFlagOp(PtoOp):
    """`[src_pipe, dst_pipe, %event_id]` with an index event id (lowered to `(event_t) id`)."""

    src_pipe = prop_def(PipeAttr)
    dst_pipe = prop_def(PipeAttr)
    event_id = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_punctuation("[")
        src = parse_sync_item(parser, PipeAttr)
        parser.parse_punctuation(",")
        dst = parse_sync_item(parser, PipeAttr)
        parser.parse_punctuation(",")
        event = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
        parser.parse_punctuation("]")
        return cls.create(operands=[event], properties={"src_pipe": src, "dst_pipe": dst},
                          attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" [")
        print_short(printer, self.src_pipe)
        printer.print_string(", ")
        print_short(printer, self.dst_pipe)
        printer.print_string(", ")
        printer.print_operand(self.event_id)
        printer.print_string("]")
        print_trailing_attrs(printer, self.attr_view(skip=("src_pipe", "dst_pipe")))


@irdl_op_definition
class SetFlagDynOp(_DynFlagOp):
    """set_flag with an event id known at run time."""

    name = "pto.set_flag_dyn"


@irdl_op_definition
class WaitFlagDynOp(_DynFlagOp):
    """wait_flag with an event id known at run time."""

    name = "pto.wait_flag_dyn"


EVENT_IDS = len(EventAttr.spellings) if hasattr(EventAttr, "spellings") else 8


# --- bind_tile ----------------------------------------------------------------------------------------------------
@irdl_op_definition
class BindTileOp(PtoOp):
    """`%v = pto.bind_tile %m[, %vr, %vc] {config = #pto.tile_buf_config<...>} : memref<...> -> memref<...>`: the
    memref `%m` seen as a tile with the config's layout and the given valid sizes. The result is `%m`'s storage
    (PTOAS's PlanMemory keeps `%m` live as long as the result is used): an alias, not a copy."""

    name = "pto.bind_tile"
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    source = operand_def(MemRefType)
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    config = prop_def(TileBufConfigAttr)
    result = result_def(MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> BindTileOp:
        source = parser.parse_unresolved_operand()
        valid: list[object] = []
        if parser.parse_optional_punctuation(",") is not None:
            valid.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(",")
            valid.append(parser.parse_unresolved_operand())
        start = parser.pos
        attrs = parser.parse_optional_attr_dict()
        config = attrs.pop("config", None)
        if not isinstance(config, TileBufConfigAttr):
            parser.raise_error("'pto.bind_tile' op requires attribute 'config' (a #pto.tile_buf_config<...>)",
                               start, parser.pos)
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_punctuation("->")
        res_t = parser.parse_type()
        operands = [parser.resolve_operand(source, src_t),
                    *[parser.resolve_operand(v, INDEX) for v in valid]]  # type: ignore[arg-type]
        n = len(valid) // 2
        op = cls.create(operands=operands, result_types=[res_t], attributes=attrs,
                        properties={"config": config, SEGMENTS: _segments(1, n, n)})
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.valid_row is not None and self.valid_col is not None:
            printer.print_string(", ")
            printer.print_operand(self.valid_row)
            printer.print_string(", ")
            printer.print_operand(self.valid_col)
        printer.print_string(" ")
        printer.print_attr_dict({"config": self.config, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


def _segments(*sizes: int) -> Attribute:
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i32, list(sizes))


# --- the async DMA session --------------------------------------------------------------------------------------
_OPTIONAL_SESSION_ATTRS = (("sync_id", i32), ("block_bytes", i64), ("comm_block_offset", i64), ("queue_num", i32),
                           ("channel_group_idx", i64))


@irdl_op_definition
class BuildAsyncSessionOp(PtoOp):
    """`%s = pto.build_async_session(%scratch, %workspace : T, W) {sync_id = 0 : i32, ...} -> !pto.async_session`:
    an SDMA session over a vec scratch tile and a GM workspace of bytes."""

    name = "pto.build_async_session"
    scratch = operand_def()
    workspace = operand_def()
    sync_id = opt_prop_def(IntegerAttr)
    block_bytes = opt_prop_def(IntegerAttr)
    comm_block_offset = opt_prop_def(IntegerAttr)
    queue_num = opt_prop_def(IntegerAttr)
    channel_group_idx = opt_prop_def(IntegerAttr)
    session = result_def(AsyncSessionType)

    @classmethod
    def parse(cls, parser: Parser) -> BuildAsyncSessionOp:
        parser.parse_punctuation("(")
        values = _typed_list(parser)
        parser.parse_punctuation(")")
        if len(values) != 2:
            parser.raise_error("pto.build_async_session expects (%scratch, %workspace : T, W)")
        attrs = parser.parse_optional_attr_dict()
        props = {k: attrs.pop(k) for k, _ in _OPTIONAL_SESSION_ATTRS if k in attrs}
        parser.parse_punctuation("->")
        result = parser.parse_type()
        return cls.create(operands=values, result_types=[result], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_typed_list(printer, [self.scratch, self.workspace])
        printer.print_string(")")
        print_trailing_attrs(printer, self.attr_view())
        printer.print_string(" -> ")
        printer.print_attribute(self.session.type)

    def _error(self, text: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {text}")

    def verify_structure(self, arch: object) -> None:
        """BuildAsyncSessionOp::verify."""
        st = self.scratch.type
        if not isinstance(st, TileBufType | MemRefType):
            raise self._error("expects scratch to be tile_buf or memref type")
        space = _space(st)
        if space is None or space.name.lower() != "vec":
            raise self._error("expects scratch to be in vec address space")
        shape = _shape(st)
        if not 1 <= len(shape) <= 2:
            raise self._error("expects scratch to be rank-1 or rank-2")
        if DYNAMIC in shape:
            raise self._error("expects scratch to have a static shape")
        size = _elem_bytes(_elem(st))  # type: ignore[arg-type]
        if size is None:
            raise self._error("expects scratch byte size to be statically known")
        count = 1
        for d in shape:
            count *= d
        if count * size < 8:
            raise self._error("expects scratch to provide at least 8 bytes")
        wt = self.workspace.type
        if isinstance(wt, PtrType):
            elem = wt.element_type
        elif isinstance(wt, MemRefType):
            elem = wt.element_type
            if not _is_gm(wt):
                raise self._error("expects workspace to be in GM address space")
        else:
            raise self._error("expects workspace to be !pto.ptr or memref type")
        if not (isinstance(elem, IntegerType) and elem.width.data == 8):
            raise self._error("expects workspace element type to be an 8-bit integer")

        def value(name: str) -> int | None:
            attr = self.properties.get(name)
            return attr.value.data if isinstance(attr, IntegerAttr) else None

        if (v := value("sync_id")) is not None and not 0 <= v <= 7:
            raise self._error("expects sync_id in range [0, 7]")
        if (v := value("block_bytes")) is not None and v <= 0:
            raise self._error("expects block_bytes to be greater than 0")
        if (v := value("comm_block_offset")) is not None and v < 0:
            raise self._error("expects comm_block_offset to be non-negative")
        if (v := value("queue_num")) is not None and v <= 0:
            raise self._error("expects queue_num to be greater than 0")
        if (v := value("channel_group_idx")) is not None:
            if v < 0:
                raise self._error("expects channel_group_idx to be non-negative")
            if v > 0xFFFFFFFF:
                raise self._error("expects channel_group_idx to fit in uint32")


def _check_flat_1d(op: PtoOp, value: SSAValue, name: str) -> None:
    """verifyAsyncFlatContiguous1DGMViewLike: a static, packed, logically 1-D GM memref or view."""
    t = value.type

    def error(text: str) -> VerifyException:
        return VerifyException(f"'{op.name}' op expects {name} {text}")

    if isinstance(t, MemRefType):
        if not _is_gm(t):
            raise error("to be in GM address space")
        shape = list(t.get_shape())
        if not shape:
            raise error("to have rank >= 1")
        if any(d < 0 for d in shape):
            raise error("to have a static shape")
        layout = memref_strides(t)
        if layout is None:
            raise error("to be a strided memref with a known layout")
        strides, offset = layout
        if offset == DYNAMIC or DYNAMIC in strides:
            return
        packed = bool(strides) and strides[-1] == 1
        for i in range(len(shape) - 2, -1, -1):
            packed = packed and strides[i] == strides[i + 1] * shape[i + 1]
        if not packed or any(d != 1 for d in shape[:-1]):
            raise error("to be a static flat contiguous logical 1D GM memref")
        return
    if not isinstance(t, TensorViewType | PartitionTensorViewType):
        raise error("to be a memref/tensor_view/partition_view")
    shape = list(t.dims)
    if not shape:
        raise error("to have rank >= 1")
    if DYNAMIC in shape:
        raise error("to have a static shape")
    if any(d != 1 for d in shape[:-1]):
        raise error("to be a static flat contiguous logical 1D GM view")


class _AsyncTransferOp(PtoOp):
    """`(%dst, %src, %session : D, S, !pto.async_session) -> !pto.async_event`."""

    dst = operand_def()
    src = operand_def()
    session_handle = operand_def(AsyncSessionType)
    event = result_def(AsyncEventType)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_punctuation("(")
        values = _typed_list(parser)
        parser.parse_punctuation(")")
        if len(values) != 3:
            parser.raise_error(f"{cls.name} expects (%dst, %src, %session : D, S, !pto.async_session)")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.create(operands=values, result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_typed_list(printer, [self.dst, self.src, self.session_handle])
        printer.print_string(")")
        print_trailing_attrs(printer, dict(self.attributes))
        printer.print_string(" -> ")
        printer.print_attribute(self.event.type)

    def verify_structure(self, arch: object) -> None:
        """verifyAsyncTransferOp."""
        d, s = _elem(self.dst.type), _elem(self.src.type)
        if d is None or s is None:
            raise VerifyException(f"'{self.name}' op expects src and dst to have element types")
        if d != s:
            raise VerifyException(f"'{self.name}' op expects src and dst to have the same element type")
        _check_flat_1d(self, self.dst, "dst")
        _check_flat_1d(self, self.src, "src")
        if _shape(self.dst.type) != _shape(self.src.type):
            raise VerifyException(f"'{self.name}' op expects src and dst to have the same static shape")


@irdl_op_definition
class TPutAsyncOp(_AsyncTransferOp):
    """Start a write of local `src` into (remote) `dst`; the event completes when it has landed."""

    name = "pto.tput_async"


@irdl_op_definition
class TGetAsyncOp(_AsyncTransferOp):
    """Start a read of (remote) `src` into local `dst`."""

    name = "pto.tget_async"


class _AsyncEventQueryOp(PtoOp):
    """`(%event, %session : !pto.async_event, !pto.async_session) -> i1`."""

    event = operand_def(AsyncEventType)
    session_handle = operand_def(AsyncSessionType)
    completed = result_def(IntegerType)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_punctuation("(")
        values = _typed_list(parser)
        parser.parse_punctuation(")")
        if len(values) != 2:
            parser.raise_error(f"{cls.name} expects (%event, %session : !pto.async_event, !pto.async_session)")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        start = parser.pos
        result = parser.parse_type()
        if result != i1:
            parser.raise_error(f"'{cls.name}' op result #0 must be 1-bit signless integer, but got "
                               f"'{type_text(result)}'", start, parser.pos)
        return cls.create(operands=values, result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_typed_list(printer, [self.event, self.session_handle])
        printer.print_string(")")
        print_trailing_attrs(printer, dict(self.attributes))
        printer.print_string(" -> ")
        printer.print_attribute(self.completed.type)


@irdl_op_definition
class WaitAsyncEventOp(_AsyncEventQueryOp):
    """Block until the event's transfer completed; true when it did."""

    name = "pto.wait_async_event"


@irdl_op_definition
class TestAsyncEventOp(_AsyncEventQueryOp):
    """Whether the event's transfer completed, without waiting."""

    name = "pto.test_async_event"


MISC_OPS = (TSyncOp, TPrefetchOp, DeclareEventIdArrayOp, EventIdArrayGetOp, EventIdArraySetOp, SetFlagDynOp,
            WaitFlagDynOp, BindTileOp, BuildAsyncSessionOp, TPutAsyncOp, TGetAsyncOp, WaitAsyncEventOp,
            TestAsyncEventOp)
MISC_TYPES = (EventIdArrayType, AsyncSessionType, AsyncEventType, TileBufConfigAttr)
