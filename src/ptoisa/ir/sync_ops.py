"""Synchronisation ops. ptoisa runs instructions in program order, so they only need to parse, print and verify.

    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]        (also #pto.pipe<..>/#pto.event<..>, or "PIPE_V")
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.record_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]
    pto.wait_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]
    pto.barrier <PIPE_ALL>

The legacy `#pto.sync_op_type<..>` endpoints are kept as written.
"""

from __future__ import annotations

from typing import ClassVar, Self

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import NoTerminator
from xdsl.parser import Parser
from xdsl.printer import Printer

from .abstract_ops import PtoOp
from .attrs import EventAttr, FenceScopeAttr, PipeAttr, PipeEventTypeAttr, SyncOpTypeAttr, WordEnumAttr
from .messages import msg
from .syntax import print_trailing_attrs


def parse_sync_item(parser: Parser, attr_cls: type[WordEnumAttr], also: tuple[type[Attribute], ...] = ()
                    ) -> Attribute:
    """`<NAME>`, a full `#pto.x<NAME>` attribute, or (August) a quoted `"NAME"`."""
    start = parser.pos
    if parser.parse_optional_punctuation("<") is not None:
        word = parser.parse_optional_identifier()
        parser.parse_punctuation(">")
    elif (word := parser.parse_optional_str_literal()) is None:
        attr = parser.parse_optional_attribute()
        if attr is not None and isinstance(attr, (attr_cls, *also)):
            return attr
        word = None
    member = None if word is None else attr_cls.from_text(word, bracketed=True)
    if member is None:
        parser.raise_error(msg("sync.expected", enum=attr_cls.label, mnemonic=attr_cls.name[4:]), start, parser.pos)
    return attr_cls(member)


def print_short(printer: Printer, attr: Attribute) -> None:
    """Pipes and events print as `<NAME>`; other endpoints as full attributes."""
    if isinstance(attr, PipeAttr | EventAttr):
        printer.print_string(f"<{attr.text}>")
    else:
        printer.print_attribute(attr)


class _TripleSyncOp(PtoOp):
    """`[src, dst, event]` with three properties."""

    ENDPOINT: ClassVar[type[WordEnumAttr]]
    ALSO: ClassVar[tuple[type[Attribute], ...]] = ()
    NAMES: ClassVar[tuple[str, str, str]]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_punctuation("[")
        src = parse_sync_item(parser, cls.ENDPOINT, cls.ALSO)
        parser.parse_punctuation(",")
        dst = parse_sync_item(parser, cls.ENDPOINT, cls.ALSO)
        parser.parse_punctuation(",")
        event = parse_sync_item(parser, EventAttr)
        parser.parse_punctuation("]")
        props = dict(zip(cls.NAMES, (src, dst, event), strict=True))
        return cls.create(properties=props, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string("[")
        printer.print_list([self.properties[n] for n in self.NAMES], lambda a: print_short(printer, a))
        printer.print_string("]")
        print_trailing_attrs(printer, self.attr_view(skip=self.NAMES))


class _FlagOp(_TripleSyncOp):
    ENDPOINT: ClassVar[type[WordEnumAttr]] = PipeAttr
    NAMES: ClassVar[tuple[str, str, str]] = ("src_pipe", "dst_pipe", "event_id")
    src_pipe = prop_def(PipeAttr)
    dst_pipe = prop_def(PipeAttr)
    event_id = prop_def(EventAttr)


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """Signal `event_id` from `src_pipe` to `dst_pipe`."""

    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """Wait on `dst_pipe` until `src_pipe` signalled `event_id`."""

    name = "pto.wait_flag"


class _EventOp(_TripleSyncOp):
    ENDPOINT: ClassVar[type[WordEnumAttr]] = PipeEventTypeAttr
    ALSO: ClassVar[tuple[type[Attribute], ...]] = (SyncOpTypeAttr,)
    NAMES: ClassVar[tuple[str, str, str]] = ("src_op", "dst_op", "event_id")
    src_op = prop_def(PipeEventTypeAttr | SyncOpTypeAttr)  # type: ignore[arg-type]  # xDSL: a union
    dst_op = prop_def(PipeEventTypeAttr | SyncOpTypeAttr)  # type: ignore[arg-type]  # xDSL: a union
    event_id = prop_def(EventAttr)


@irdl_op_definition
class RecordEventOp(_EventOp):
    """High-level signal between two instruction kinds (lowered to set_flag by PTOAS)."""

    name = "pto.record_event"


@irdl_op_definition
class WaitEventOp(_EventOp):
    """High-level wait matching a record_event."""

    name = "pto.wait_event"


@irdl_op_definition
class BarrierOp(PtoOp):
    """`pto.barrier <PIPE_ALL>`: wait until the pipe drained."""

    name = "pto.barrier"
    pipe = prop_def(PipeAttr)

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        pipe = parse_sync_item(parser, PipeAttr)
        return cls.create(properties={"pipe": pipe}, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_short(printer, self.pipe)
        print_trailing_attrs(printer, self.attr_view(skip=("pipe",)))


class _FenceOp(PtoOp):
    """A memory fence `pto.fence.<kind> #pto.fence_scope<gm>`: ordering only, so no effect on results."""

    scope = prop_def(FenceScopeAttr)

    @classmethod
    def parse(cls, parser: Parser) -> _FenceOp:
        scope = parser.parse_attribute()
        if not isinstance(scope, FenceScopeAttr):
            parser.raise_error("expected #pto.fence_scope<...>")
        return cls.create(properties={"scope": scope}, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.scope)
        print_trailing_attrs(printer, self.attr_view(skip=("scope",)))


@irdl_op_definition
class FenceBarrierAllOp(_FenceOp):
    name = "pto.fence.barrier_all"


@irdl_op_definition
class FenceReleaseOp(_FenceOp):
    name = "pto.fence.release"


@irdl_op_definition
class FenceAcquireOp(_FenceOp):
    name = "pto.fence.acquire"


def _parse_small_int(parser: Parser, what: str) -> int:
    """A non-negative id that fits an i32, refused at its own position otherwise."""
    start = parser.pos
    value = parser.parse_integer()
    if not 0 <= value < 2**31:
        parser.raise_error(f"{what} must be between 0 and 2147483647", start, parser.pos)
    return value


class _BufOp(PtoOp):
    """`pto.get_buf[#pto.pipe_event_type<TLOAD>, 0]` / `pto.rls_buf[...]`: take or release a pipe's buffer slot
    (A5 buffer sync); ordering only in a sequential run."""

    endpoint = prop_def(PipeEventTypeAttr)
    slot = prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser) -> _BufOp:
        parser.parse_punctuation("[")
        endpoint = parse_sync_item(parser, PipeEventTypeAttr)
        parser.parse_punctuation(",")
        slot = _parse_small_int(parser, "a buffer slot")
        parser.parse_punctuation("]")
        return cls.create(properties={"endpoint": endpoint, "slot": IntegerAttr(slot, i32)},
                          attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string("[")
        printer.print_attribute(self.endpoint)
        printer.print_string(f", {self.slot.value.data}]")
        print_trailing_attrs(printer, self.attr_view(skip=("endpoint", "slot")))


@irdl_op_definition
class GetBufOp(_BufOp):
    name = "pto.get_buf"


@irdl_op_definition
class RlsBufOp(_BufOp):
    name = "pto.rls_buf"


class _CrossCoreOp(PtoOp):
    """`pto.sync.set <PIPE_FIX>, 0` / `pto.sync.wait <PIPE_V>, 0`: a flag between the cube and vector cores;
    ordering only in a sequential run."""

    pipe = prop_def(PipeAttr)
    flag = prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser) -> _CrossCoreOp:
        pipe = parse_sync_item(parser, PipeAttr)
        parser.parse_punctuation(",")
        flag = _parse_small_int(parser, "a flag id")
        return cls.create(properties={"pipe": pipe, "flag": IntegerAttr(flag, i32)},
                          attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_short(printer, self.pipe)
        printer.print_string(f", {self.flag.value.data}")
        print_trailing_attrs(printer, self.attr_view(skip=("pipe", "flag")))


@irdl_op_definition
class SyncSetOp(_CrossCoreOp):
    name = "pto.sync.set"


@irdl_op_definition
class SyncWaitOp(_CrossCoreOp):
    name = "pto.sync.wait"


class _SectionOp(PtoOp):
    """`pto.section.cube { ... }` / `pto.section.vector { ... }`: the part of a mixed kernel one core runs. ptoisa
    runs both in program order (the sync ops between them order nothing here), so a section is its body."""

    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> _SectionOp:
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        return cls.create(regions=[region], attributes=attrs.data if attrs is not None else {})

    def print(self, printer: Printer) -> None:
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(dict(self.attributes))
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class SectionCubeOp(_SectionOp):
    name = "pto.section.cube"


@irdl_op_definition
class SectionVectorOp(_SectionOp):
    name = "pto.section.vector"


SYNC_OPS = (SetFlagOp, WaitFlagOp, RecordEventOp, WaitEventOp, BarrierOp, FenceBarrierAllOp, FenceReleaseOp,
            FenceAcquireOp, SectionCubeOp, SectionVectorOp, GetBufOp, RlsBufOp, SyncSetOp, SyncWaitOp)
