"""Cross-core pipes (TPUSH/TPOP): FIFOs of tile-sized slots between a cube and a vector kernel, in PTOAS's syntax.

Front end (one pipe per function, chosen by direction; `split` is 0 none, 1 up/down, 2 left/right):

    %b = pto.reserve_buffer{name = "c2v_fifo", size = 8192, location = <vec>, auto = true} -> i32
    %i = pto.import_reserved_buffer{name = "c2v_fifo", peer_func = @vector_kernel} -> i32
    pto.aic_initialize_pipe{dir_mask = 1, slot_size = 1024} (c2v_consumer_buf = %i : i32, v2c_consumer_buf = %z : i32)
    pto.aiv_initialize_pipe{...} (gm_slot_buffer = %p : !pto.ptr<f32>, c2v_consumer_buf = ..., v2c_consumer_buf = ...)
    pto.tpush_to_aiv(%acc : !pto.tile_buf<...>) {split = 0}        (cube -> vector; tpush_to_aic: vector -> cube)
    %t = pto.tpop_from_aic {split = 1} -> !pto.tile_buf<...>       (in a vector kernel; tpop_from_aiv in a cube one)
    %t = pto.tpop_from_aic(%vr, %vc) {split = 2} -> !pto.tile_buf<..., v_row=?, v_col=?, ...>
    pto.tfree_from_aic {split = 1}                                 (tfree_from_aiv)

PTOAS's internal form (explicit handles):

    %p = pto.initialize_l2g2l_pipe{dir_mask = 1, slot_size = 1024, slot_num = 8, local_slot_num = 8, flag_base = 0}
             (%gm : memref<256xf32, #pto.address_space<gm>>, %local : i32) -> !pto.pipe
    %p = pto.initialize_l2l_pipe{dir_mask = 3, slot_size = 1024, slot_num = 4} (%c2v : i32, %v2c : i32) -> !pto.pipe
    %t = pto.declare_tile -> !pto.tile_buf<...>
    pto.tpush(%tile, %p : !pto.tile_buf<...>, !pto.pipe) {split = 0}
    pto.tpop(%t, %p : !pto.tile_buf<...>, !pto.pipe) {split = 1}
    pto.tfree(%p : !pto.pipe) {split = 2}

The verifiers are PTOAS's (lib/PTO/IR/PTO.cpp), with its messages. The printer writes PTOAS's own spelling (no space
between the op name and a leading `{` or `(`; the address space of reserve_buffer as `<vec>`); both
`location = <vec>` and `location = #pto.address_space<vec>` parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i1,
    i32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ptoisa.tile.enums import DYNAMIC, TileType

from .abstract_ops import PtoOp
from .attrs import AddressSpaceAttr, KernelKindAttr
from .enums import AddressSpace, KernelKind
from .messages import msg
from .types import PipeType, PtrType, TileBufType
from .verify import Arch

i8 = IntegerType(8)
INDEX = IndexType()
SPLIT_NAMES = {0: "TILE_NO_SPLIT", 1: "TILE_UP_DOWN", 2: "TILE_LEFT_RIGHT"}


# --- the `{key = value, ...}` groups --------------------------------------------------------------------------
@dataclass(frozen=True)
class Key:
    """One entry of a brace group: its text key, property name, value kind and whether it may be left out."""

    key: str
    prop: str
    kind: str  # "i8", "i32", "bool", "str", "space", "sym"
    optional: bool = False


def _parse_value(parser: Parser, entry: Key) -> Attribute:
    start = parser.pos
    if entry.kind in ("i8", "i32"):
        bits = 8 if entry.kind == "i8" else 32
        value = parser.parse_integer(allow_boolean=False)
        if parser.parse_optional_punctuation(":") is not None:
            parser.parse_type()
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            parser.raise_error(msg("pipe.i32", key=entry.key, bits=bits), start, parser.pos)
        return IntegerAttr(value, IntegerType(bits))
    if entry.kind == "bool":
        return IntegerAttr(int(parser.parse_boolean()), i1)
    if entry.kind == "str":
        return StringAttr(parser.parse_str_literal())
    if entry.kind == "space":
        if parser.parse_optional_punctuation("<") is not None:
            word_start = parser.pos
            word = parser.parse_identifier()
            member = AddressSpaceAttr.from_text(word, bracketed=True)
            if member is None:
                parser.raise_error(AddressSpaceAttr.unknown_message(word), word_start, parser.pos)
            parser.parse_punctuation(">")
            return AddressSpaceAttr(member)
        attr = parser.parse_attribute()
        if not isinstance(attr, AddressSpaceAttr):
            parser.raise_error("expected an address space: <vec>, <mat> or #pto.address_space<...>", start,
                               parser.pos)
        return attr
    attr = parser.parse_attribute()  # "sym"
    if not isinstance(attr, SymbolRefAttr) or attr.nested_references.data:
        parser.raise_error("expected a flat symbol reference (@name)", start, parser.pos)
    return attr


def parse_brace_any(parser: Parser, keys: tuple[Key, ...]) -> dict[str, Attribute]:
    """`{k = v, ...}`: every required key in order, optional keys where `keys` puts them (any may be absent)."""
    parser.parse_punctuation("{")
    out: dict[str, Attribute] = {}
    pending = list(keys)
    first = True
    while True:
        if not first and parser.parse_optional_punctuation(",") is None:
            break
        start = parser.pos
        word = parser.parse_optional_identifier() if not first or pending else None
        if word is None:
            if first:
                break
            parser.raise_error("expected a key", start, parser.pos)
        # skip optional keys before `word`; a required key may not be skipped
        while pending and pending[0].key != word:
            if not pending[0].optional:
                parser.raise_error(msg("pipe.key", key=pending[0].key), start, parser.pos)
            pending.pop(0)
        if not pending:
            parser.raise_error(f"unexpected key '{word}'", start, parser.pos)
        entry = pending.pop(0)
        parser.parse_punctuation("=")
        out[entry.prop] = _parse_value(parser, entry)
        first = False
    for entry in pending:
        if not entry.optional:
            parser.raise_error(msg("pipe.key", key=entry.key), parser.pos, parser.pos)
    parser.parse_punctuation("}")
    return out


def _value_text(attr: Attribute, kind: str) -> str:
    if kind in ("i8", "i32"):
        return str(attr.value.data)  # type: ignore[attr-defined]
    if kind == "bool":
        return "true" if attr.value.data else "false"  # type: ignore[attr-defined]
    if kind == "str":
        import json

        return json.dumps(attr.data)  # type: ignore[attr-defined]
    if kind == "space":
        return f"<{attr.text}>"  # type: ignore[attr-defined]
    return f"@{attr.root_reference.data}"  # type: ignore[attr-defined]


def print_brace(printer: Printer, op: PtoOp, keys: tuple[Key, ...]) -> None:
    items = [f"{k.key} = {_value_text(op.properties[k.prop], k.kind)}" for k in keys if k.prop in op.properties]
    printer.print_string("{" + ", ".join(items) + "}")


def _print_attrs(printer: Printer, op: PtoOp) -> None:
    attrs = {k: v for k, v in op.attributes.items() if k != "operandSegmentSizes"}
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)


def _typed_operand(parser: Parser) -> SSAValue:
    """`%v : T`."""
    unresolved = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    return parser.resolve_operand(unresolved, parser.parse_type())


def _print_typed(printer: Printer, value: SSAValue) -> None:
    printer.print_operand(value)
    printer.print_string(" : ")
    printer.print_attribute(value.type)


def _int(op: Operation, prop: str) -> int | None:
    attr = op.properties.get(prop)
    return None if attr is None else attr.value.data  # type: ignore[attr-defined]


# --- where an op sits ----------------------------------------------------------------------------------------
def enclosing_func(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def kernel_kind(func: FuncOp | None) -> KernelKind | None:
    """The function's `pto.kernel_kind` (None when it has none)."""
    if func is None:
        return None
    attr = func.attributes.get("pto.kernel_kind")
    return attr.data if isinstance(attr, KernelKindAttr) else None


def in_section_or_kernel(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ("pto.section.cube", "pto.section.vector"):
            return True
        parent = parent.parent_op()
    return kernel_kind(enclosing_func(op)) is not None


_OpT = TypeVar("_OpT", bound=Operation)


def ops_of(func: Operation, cls: type[_OpT]) -> Iterator[_OpT]:
    return (o for o in func.walk() if isinstance(o, cls))


def find_func(op: Operation, symbol: str) -> FuncOp | None:
    module = op.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    for candidate in module.walk():
        if isinstance(candidate, FuncOp) and candidate.sym_name.data == symbol:
            return candidate
    return None


def find_reserve(func: Operation, name: str) -> ReserveBufferOp | None:
    for reserve in ops_of(func, ReserveBufferOp):
        if reserve.buffer_name.data == name:
            return reserve
    return None


def tile_space(t: Attribute) -> TileType | AddressSpace | None:
    """The address space of a tile_buf (its loc) or of a memref tile (its memory space)."""
    if isinstance(t, TileBufType):
        return t.loc.data
    if isinstance(t, MemRefType) and isinstance(t.memory_space, AddressSpaceAttr):
        return t.memory_space.data
    return None


def _is(space: TileType | AddressSpace | None, *names: str) -> bool:
    return space is not None and space.name.lower() in names


# --- reserved buffers ----------------------------------------------------------------------------------------
RESERVE_KEYS = (Key("name", "name", "str"), Key("size", "size", "i32"), Key("location", "location", "space"),
                Key("auto", "autoAlloc", "bool"), Key("base", "base", "i32", optional=True))


@irdl_op_definition
class ReserveBufferOp(PtoOp):
    """The consumer's slot buffer of a pipe in this function's local memory (vec or mat); its result is the
    buffer's base address (`base`, or where PTOAS's memory planning puts it when `auto = true`)."""

    name = "pto.reserve_buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    size = prop_def(IntegerAttr)
    space = prop_def(AddressSpaceAttr, prop_name="location")
    autoAlloc = prop_def(IntegerAttr)  # noqa: N815 - PTOAS's property name
    base = opt_prop_def(IntegerAttr)
    addr = result_def(i32)

    @classmethod
    def parse(cls, parser: Parser) -> ReserveBufferOp:
        props = parse_brace_any(parser, RESERVE_KEYS)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.create(properties=props, attributes=attrs, result_types=[parser.parse_type()])

    def print(self, printer: Printer) -> None:
        print_brace(printer, self, RESERVE_KEYS)
        _print_attrs(printer, self)
        printer.print_string(" -> ")
        printer.print_attribute(self.addr.type)

    def verify_structure(self, arch: Arch) -> None:
        func = enclosing_func(self)
        if func is None:
            self.fail("pipe.in_func")
        if _int(self, "size") <= 0:  # type: ignore[operator]
            self.fail("reserve.size")
        if self.space.data not in (AddressSpace.VEC, AddressSpace.MAT):
            self.fail("reserve.location")
        base = _int(self, "base")
        if not _int(self, "autoAlloc") and base is None:
            self.fail("reserve.base_needed")
        if base is not None and base < 0:
            self.fail("reserve.base_sign")
        if sum(1 for _ in ops_of(func, ReserveBufferOp)) > 1:
            self.fail("reserve.one")
        name = self.buffer_name.data
        if sum(1 for r in ops_of(func, ReserveBufferOp) if r.buffer_name.data == name) > 1:
            self.fail("reserve.unique")  # pragma: no cover - "at most one" fails first, as in PTOAS


IMPORT_KEYS = (Key("name", "name", "str"), Key("peer_func", "peer_func", "sym"))


@irdl_op_definition
class ImportReservedBufferOp(PtoOp):
    """The address of the peer function's reserve_buffer of that name (the producer side of a pipe)."""

    name = "pto.import_reserved_buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    peer_func = prop_def(SymbolRefAttr)
    addr = result_def(i32)

    @classmethod
    def parse(cls, parser: Parser) -> ImportReservedBufferOp:
        props = parse_brace_any(parser, IMPORT_KEYS)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.create(properties=props, attributes=attrs, result_types=[parser.parse_type()])

    def print(self, printer: Printer) -> None:
        print_brace(printer, self, IMPORT_KEYS)
        _print_attrs(printer, self)
        printer.print_string(" -> ")
        printer.print_attribute(self.addr.type)

    def verify_structure(self, arch: Arch) -> None:
        func = enclosing_func(self)
        if func is None:
            self.fail("pipe.in_func")
        if sum(1 for _ in ops_of(func, ImportReservedBufferOp)) > 1:
            self.fail("import.one")
        peer = find_func(self, self.peer_func.root_reference.data)
        if peer is None:
            self.fail("import.peer")
        if find_reserve(peer, self.buffer_name.data) is None:
            self.fail("import.match")

    def peer_reserve(self) -> ReserveBufferOp | None:
        peer = find_func(self, self.peer_func.root_reference.data)
        return None if peer is None else find_reserve(peer, self.buffer_name.data)


# --- front-end pipes ------------------------------------------------------------------------------------------
FRONT_INIT_KEYS = (Key("dir_mask", "dir_mask", "i8"), Key("slot_size", "slot_size", "i32"),
                   Key("nosplit", "nosplit", "bool", optional=True))
SPLIT_KEYS = (Key("split", "split", "i8"),)


def _check_split(op: PtoOp) -> None:
    if not 0 <= _int(op, "split") <= 2:  # type: ignore[operator]
        op.fail("pipe.split")


class _FrontInitOp(PtoOp):
    """`pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe`: the function's one pipe (dir_mask 1: C2V, 2: V2C,
    3: both); slot_size is the byte size of one whole (unsplit) tile."""

    KIND: ClassVar[KernelKind]
    dir_mask = prop_def(IntegerAttr)
    slot_size = prop_def(IntegerAttr)
    nosplit = opt_prop_def(IntegerAttr)
    gm_slot_buffer = opt_operand_def(PtrType)
    c2v_consumer_buf = operand_def(i32)
    v2c_consumer_buf = operand_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _FrontInitOp:
        props = parse_brace_any(parser, FRONT_INIT_KEYS)
        parser.parse_punctuation("(")
        gm: list[SSAValue] = []
        if parser.parse_optional_keyword("gm_slot_buffer") is not None:
            parser.parse_punctuation("=")
            gm.append(_typed_operand(parser))
            parser.parse_punctuation(",")
        bufs: list[list[SSAValue]] = []  # one operand group each
        for key in ("c2v_consumer_buf", "v2c_consumer_buf"):
            if bufs:
                parser.parse_punctuation(",")
            parser.parse_keyword(key, f" {msg('pipe.key', key=key)}")
            parser.parse_punctuation("=")
            bufs.append([_typed_operand(parser)])
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[gm, *bufs], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_brace(printer, self, FRONT_INIT_KEYS)
        printer.print_string(" (")
        if self.gm_slot_buffer is not None:
            printer.print_string("gm_slot_buffer = ")
            _print_typed(printer, self.gm_slot_buffer)
            printer.print_string(", ")
        printer.print_string("c2v_consumer_buf = ")
        _print_typed(printer, self.c2v_consumer_buf)
        printer.print_string(", v2c_consumer_buf = ")
        _print_typed(printer, self.v2c_consumer_buf)
        printer.print_string(")")
        _print_attrs(printer, self)

    def verify_structure(self, arch: Arch) -> None:
        func = enclosing_func(self)
        if kernel_kind(func) is not self.KIND:
            self.fail("pipe.kernel", kind=self.KIND.name.lower())
        assert func is not None  # outside a function there is no kernel kind: refused just above
        if sum(1 for _ in ops_of(func, type(self))) > 1:
            self.fail("pipe.one_init")
        if _int(self, "dir_mask") not in (1, 2, 3):
            self.fail("pipe.dir_mask")
        if _int(self, "slot_size") <= 0:  # type: ignore[operator]
            self.fail("pipe.slot_size")
        if arch == "a2a3" and self.gm_slot_buffer is None:  # A2/A3 pipes go through global memory
            self.fail("pipe.gm_slot_buffer")


@irdl_op_definition
class AicInitializePipeOp(_FrontInitOp):
    name = "pto.aic_initialize_pipe"
    KIND: ClassVar[KernelKind] = KernelKind.CUBE


@irdl_op_definition
class AivInitializePipeOp(_FrontInitOp):
    name = "pto.aiv_initialize_pipe"
    KIND: ClassVar[KernelKind] = KernelKind.VECTOR


class _FrontOp(PtoOp):
    """A front-end push/pop/free: allowed in one kind of kernel function; moves data in one direction."""

    KIND: ClassVar[KernelKind]
    DIRECTION: ClassVar[str]  # "C2V" or "V2C"
    split = prop_def(IntegerAttr)

    def verify_structure(self, arch: Arch) -> None:
        if kernel_kind(enclosing_func(self)) is not self.KIND:
            self.fail("pipe.kernel", kind=self.KIND.name.lower())
        _check_split(self)


class _FrontPushOp(_FrontOp):
    tile = operand_def(TileBufType | MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> _FrontPushOp:
        parser.parse_punctuation("(")
        tile = _typed_operand(parser)
        parser.parse_punctuation(")")
        props = parse_brace_any(parser, SPLIT_KEYS)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(operands=[tile], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_typed(printer, self.tile)
        printer.print_string(") ")
        print_brace(printer, self, SPLIT_KEYS)
        _print_attrs(printer, self)


@irdl_op_definition
class TPushToAivOp(_FrontPushOp):
    """Cube -> vector push (in a cube kernel)."""

    name = "pto.tpush_to_aiv"
    KIND: ClassVar[KernelKind] = KernelKind.CUBE
    DIRECTION: ClassVar[str] = "C2V"


@irdl_op_definition
class TPushToAicOp(_FrontPushOp):
    """Vector -> cube push (in a vector kernel)."""

    name = "pto.tpush_to_aic"
    KIND: ClassVar[KernelKind] = KernelKind.VECTOR
    DIRECTION: ClassVar[str] = "V2C"


class _FrontPopOp(_FrontOp):
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    tile = result_def(TileBufType | MemRefType)  # type: ignore[arg-type]  # a union: fine at run time
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _FrontPopOp:
        valid: list[list[SSAValue]] = [[], []]
        if parser.parse_optional_punctuation("(") is not None:
            valid[0].append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
            parser.parse_punctuation(",")
            valid[1].append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
            parser.parse_punctuation(")")
        props = parse_brace_any(parser, SPLIT_KEYS)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.build(operands=valid, properties=props, attributes=attrs, result_types=[parser.parse_type()])

    def print(self, printer: Printer) -> None:
        if self.valid_row is not None and self.valid_col is not None:
            printer.print_string("(")
            printer.print_operand(self.valid_row)
            printer.print_string(", ")
            printer.print_operand(self.valid_col)
            printer.print_string(")")
        printer.print_string(" ")
        print_brace(printer, self, SPLIT_KEYS)
        _print_attrs(printer, self)
        printer.print_string(" -> ")
        printer.print_attribute(self.tile.type)

    def verify_structure(self, arch: Arch) -> None:
        super().verify_structure(arch)
        has_row, has_col = self.valid_row is not None, self.valid_col is not None
        if has_row != has_col:
            self.fail("pipe.valid_together")
        if not has_row:
            return
        t = self.tile.type
        if not isinstance(t, TileBufType):
            self.fail("pipe.valid_tile_buf")
        if not (t.valid_shape[0] == DYNAMIC and t.valid_shape[1] == DYNAMIC):
            self.fail("pipe.valid_dynamic")


@irdl_op_definition
class TPopFromAicOp(_FrontPopOp):
    """Cube -> vector pop (in a vector kernel): a tile holding the oldest unconsumed slot."""

    name = "pto.tpop_from_aic"
    KIND: ClassVar[KernelKind] = KernelKind.VECTOR
    DIRECTION: ClassVar[str] = "C2V"


@irdl_op_definition
class TPopFromAivOp(_FrontPopOp):
    """Vector -> cube pop (in a cube kernel)."""

    name = "pto.tpop_from_aiv"
    KIND: ClassVar[KernelKind] = KernelKind.CUBE
    DIRECTION: ClassVar[str] = "V2C"


class _FrontFreeOp(_FrontOp):
    @classmethod
    def parse(cls, parser: Parser) -> _FrontFreeOp:
        props = parse_brace_any(parser, SPLIT_KEYS)
        return cls.create(properties=props, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_brace(printer, self, SPLIT_KEYS)
        _print_attrs(printer, self)


@irdl_op_definition
class TFreeFromAicOp(_FrontFreeOp):
    """Release the slot the vector kernel popped last from the cube."""

    name = "pto.tfree_from_aic"
    KIND: ClassVar[KernelKind] = KernelKind.VECTOR
    DIRECTION: ClassVar[str] = "C2V"


@irdl_op_definition
class TFreeFromAivOp(_FrontFreeOp):
    """Release the slot the cube kernel popped last from the vector core."""

    name = "pto.tfree_from_aiv"
    KIND: ClassVar[KernelKind] = KernelKind.CUBE
    DIRECTION: ClassVar[str] = "V2C"


# --- PTOAS's internal pipes ----------------------------------------------------------------------------------
L2G2L_KEYS = (Key("dir_mask", "dir_mask", "i8"), Key("slot_size", "slot_size", "i32"),
              Key("slot_num", "slot_num", "i32"), Key("local_slot_num", "local_slot_num", "i32", optional=True),
              Key("flag_base", "flag_base", "i32", optional=True), Key("nosplit", "nosplit", "bool", optional=True))
L2L_KEYS = tuple(k for k in L2G2L_KEYS if k.key != "local_slot_num")


class _InitPipeOp(PtoOp):
    KEYS: ClassVar[tuple[Key, ...]]
    ADDRS: ClassVar[int]  # required address operands before the optional peer_local_addr
    dir_mask = prop_def(IntegerAttr)
    slot_size = prop_def(IntegerAttr)
    slot_num = prop_def(IntegerAttr)
    flag_base = opt_prop_def(IntegerAttr)
    nosplit = opt_prop_def(IntegerAttr)
    pipe = result_def(PipeType)

    @classmethod
    def parse(cls, parser: Parser) -> _InitPipeOp:
        props = parse_brace_any(parser, cls.KEYS)
        parser.parse_punctuation("(")
        addrs = [[_typed_operand(parser)]]
        for _ in range(cls.ADDRS - 1):
            parser.parse_punctuation(",")
            addrs.append([_typed_operand(parser)])
        peer = [_typed_operand(parser)] if parser.parse_optional_punctuation(",") is not None else []
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        return cls.build(operands=[*addrs, peer], properties=props, attributes=attrs, result_types=[result])

    def print(self, printer: Printer) -> None:
        print_brace(printer, self, self.KEYS)
        printer.print_string(" (")
        for i, value in enumerate(self.operands):
            if i:
                printer.print_string(", ")
            _print_typed(printer, value)
        printer.print_string(")")
        _print_attrs(printer, self)
        printer.print_string(" -> ")
        printer.print_attribute(self.pipe.type)

    def verify_structure(self, arch: Arch) -> None:
        if _int(self, "dir_mask") not in (1, 2, 3):
            self.fail("pipe.dir_mask")
        if _int(self, "slot_size") <= 0:  # type: ignore[operator]
            self.fail("pipe.slot_size")
        if _int(self, "slot_num") not in (4, 8):
            self.fail("pipe.slot_num")
        if (flag := _int(self, "flag_base")) is not None and flag < 0:
            self.fail("pipe.flag_base")
        self.verify_local_slots()
        peer = self.peer_local_addr is not None  # type: ignore[attr-defined]
        if _int(self, "dir_mask") == 3 and not peer:
            self.fail("pipe.peer_needed")
        if _int(self, "dir_mask") != 3 and peer:
            self.fail("pipe.peer_only")

    def verify_local_slots(self) -> None:
        pass


@irdl_op_definition
class InitializeL2G2LPipeOp(_InitPipeOp):
    """A pipe through a global-memory FIFO (A2/A3): gm_addr, the consumer's local buffer, and for dir_mask 3 the
    other direction's consumer buffer."""

    name = "pto.initialize_l2g2l_pipe"
    KEYS: ClassVar[tuple[Key, ...]] = L2G2L_KEYS
    ADDRS: ClassVar[int] = 2
    local_slot_num = opt_prop_def(IntegerAttr)
    gm_addr = operand_def()
    local_addr = operand_def()
    peer_local_addr = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_local_slots(self) -> None:
        if (local := _int(self, "local_slot_num")) is not None:
            if local <= 0:
                self.fail("pipe.local_slot_num")
            if local > _int(self, "slot_num"):  # type: ignore[operator]
                self.fail("pipe.local_slot_le")


@irdl_op_definition
class InitializeL2LPipeOp(_InitPipeOp):
    """A pipe between local buffers (A5)."""

    name = "pto.initialize_l2l_pipe"
    KEYS: ClassVar[tuple[Key, ...]] = L2L_KEYS
    ADDRS: ClassVar[int] = 1
    local_addr = operand_def()
    peer_local_addr = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


INIT_OPS = (InitializeL2G2LPipeOp, InitializeL2LPipeOp)


def _check_handle(op: PtoOp, handle: SSAValue) -> None:
    if not isinstance(handle.type, PipeType):
        op.fail("pipe.handle_type")  # pragma: no cover - the operand constraint refuses it first
    owner = handle.owner
    if not isinstance(owner, INIT_OPS):
        op.fail("pipe.handle")


class _PipeDataOp(PtoOp):
    """`pto.tpush` / `pto.tpop`: `(%tile, %pipe : T, !pto.pipe) {split = N}`."""

    tile = operand_def(TileBufType | MemRefType)
    pipe_handle = operand_def(PipeType)
    split = prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser) -> _PipeDataOp:
        parser.parse_punctuation("(")
        tile = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        handle = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        tile_type = parser.parse_type()
        parser.parse_punctuation(",")
        handle_type = parser.parse_type()
        parser.parse_punctuation(")")
        props = parse_brace_any(parser, SPLIT_KEYS)
        attrs = parser.parse_optional_attr_dict()
        operands = [parser.resolve_operand(tile, tile_type), parser.resolve_operand(handle, handle_type)]
        return cls.create(operands=operands, properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.tile)
        printer.print_string(", ")
        printer.print_operand(self.pipe_handle)
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)
        printer.print_string(", ")
        printer.print_attribute(self.pipe_handle.type)
        printer.print_string(") ")
        print_brace(printer, self, SPLIT_KEYS)
        _print_attrs(printer, self)

    def verify_structure(self, arch: Arch) -> None:
        if not in_section_or_kernel(self):
            self.fail("pipe.section")
        _check_handle(self, self.pipe_handle)
        _check_split(self)
        self.verify_pipe(arch)

    def verify_pipe(self, arch: Arch) -> None:
        raise NotImplementedError


@irdl_op_definition
class TPushOp(_PipeDataOp):
    """Copy a tile into the pipe's next slot (producer: an acc tile on the cube, a vec tile on the vector core)."""

    name = "pto.tpush"

    def verify_pipe(self, arch: Arch) -> None:
        if not _is(tile_space(self.tile.type), "acc", "vec"):
            self.fail("pipe.producer")


@irdl_op_definition
class TPopOp(_PipeDataOp):
    """Fill a (declared) tile with the oldest unconsumed slot (consumer: a vec or mat tile)."""

    name = "pto.tpop"

    def verify_pipe(self, arch: Arch) -> None:
        if not _is(tile_space(self.tile.type), "vec", "mat"):
            self.fail("pipe.consumer")


@irdl_op_definition
class TFreeOp(PtoOp):
    """Release the consumer's oldest popped slot."""

    name = "pto.tfree"
    pipe_handle = operand_def(PipeType)
    split = prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser) -> TFreeOp:
        parser.parse_punctuation("(")
        handle = _typed_operand(parser)
        parser.parse_punctuation(")")
        props = parse_brace_any(parser, SPLIT_KEYS)
        return cls.create(operands=[handle], properties=props, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_typed(printer, self.pipe_handle)
        printer.print_string(") ")
        print_brace(printer, self, SPLIT_KEYS)
        _print_attrs(printer, self)

    def verify_structure(self, arch: Arch) -> None:
        if not in_section_or_kernel(self):
            self.fail("pipe.section")
        _check_handle(self, self.pipe_handle)
        _check_split(self)


@irdl_op_definition
class DeclareTileOp(PtoOp):
    """A tile whose storage a later pto.tpop provides: `%t = pto.declare_tile -> !pto.tile_buf<...>`."""

    name = "pto.declare_tile"
    tile = result_def(TileBufType | MemRefType)  # type: ignore[arg-type]  # a union: fine at run time

    @classmethod
    def parse(cls, parser: Parser) -> DeclareTileOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.create(attributes=attrs, result_types=[parser.parse_type()])

    def print(self, printer: Printer) -> None:
        _print_attrs(printer, self)
        printer.print_string(" -> ")
        printer.print_attribute(self.tile.type)


@irdl_op_definition
class SetFftsOp(PtoOp):
    """`pto.set_ffts %flags : memref<256xi64>`: where the runtime keeps the cross-core flags (FFTS) of an A2/A3
    mixed kernel; nothing to do in a sequential run."""

    name = "pto.set_ffts"
    ffts = operand_def(MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> SetFftsOp:
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand = parser.resolve_operand(value, parser.parse_type())
        return cls.create(operands=[operand], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ffts)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.ffts.type)

    def verify_structure(self, arch: Arch) -> None:
        ffts = self.ffts.type
        assert isinstance(ffts, MemRefType)  # the operand's constraint, verified first
        element = ffts.element_type
        if not (isinstance(element, IntegerType) and element.width.data in (8, 64)):
            self.fail("ffts.element")


PIPE_OPS = (SetFftsOp, ReserveBufferOp, ImportReservedBufferOp, AicInitializePipeOp, AivInitializePipeOp, TPushToAivOp,
            TPushToAicOp, TPopFromAicOp, TPopFromAivOp, TFreeFromAicOp, TFreeFromAivOp, InitializeL2G2LPipeOp,
            InitializeL2LPipeOp, TPushOp, TPopOp, TFreeOp, DeclareTileOp)
