"""Enum attributes: the PTOAS spellings, the seed spelling, and the messages for wrong ones."""

from __future__ import annotations

import pytest
from pto_ir_helpers import parse_attr, print_attr
from xdsl.utils.exceptions import ParseError

from ptoisa.ir.attrs import (
    AddressSpaceAttr,
    CmpModeAttr,
    EventAttr,
    KernelKindAttr,
    LayoutAttr,
    MaskPatternAttr,
    PipeAttr,
    PipeEventTypeAttr,
    RoundModeAttr,
)
from ptoisa.ir.enums import AddressSpace, Event, KernelKind, Pipe, RoundMode, SyncOpType
from ptoisa.isa.enums import CmpMode, MaskPattern
from ptoisa.tile.enums import Layout


@pytest.mark.parametrize("mode", list(CmpMode))
def test_cmp_mode_opaque_form(mode: CmpMode) -> None:
    text = f"#pto<cmp {mode.name.lower()}>"
    attr = parse_attr(text)
    assert attr == CmpModeAttr(mode)
    assert print_attr(attr) == text


@pytest.mark.parametrize("text", ["#pto.cmp<EQ>", "#pto.cmp<eq>", "#pto.cmp<Eq>"])
def test_cmp_mode_seed_spelling(text: str) -> None:
    attr = parse_attr(text)
    assert attr.data is CmpMode.EQ
    assert print_attr(attr) == "#pto<cmp eq>"


@pytest.mark.parametrize("text", ["#pto<cmp EQ>", "#pto<cmp less_than>"])
def test_cmp_mode_rejects_ptoas_invalid(text: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_attr(text)
    assert info.value.msg == "expected ::mlir::pto::CmpMode to be one of: eq, ne, lt, le, gt, ge"


@pytest.mark.parametrize(("text", "expected"), [
    ("#pto.mask_pattern<P0101>", MaskPatternAttr(MaskPattern.P0101)),
    ("#pto.mask_pattern<P1111>", MaskPatternAttr(MaskPattern.P1111)),
    ("#pto.layout<dn>", LayoutAttr(Layout.DN)),
    ("#pto.address_space<gm>", AddressSpaceAttr(AddressSpace.GM)),
    ("#pto.pipe<PIPE_MTE2>", PipeAttr(Pipe.PIPE_MTE2)),
    ("#pto.event<EVENT_ID7>", EventAttr(Event.EVENT_ID7)),
    ("#pto.pipe_event_type<TVEC>", PipeEventTypeAttr(SyncOpType.TVEC)),
    ("#pto.kernel_kind<vector>", KernelKindAttr(KernelKind.VECTOR)),
    ("#pto<round_mode CAST_RINT>", RoundModeAttr(RoundMode.CAST_RINT)),
])
def test_enum_attrs_round_trip(text: str, expected: object) -> None:
    attr = parse_attr(text)
    assert attr == expected
    assert print_attr(attr) == text


def test_mask_pattern_period_reaches_core_enum() -> None:
    assert parse_attr("#pto.mask_pattern<P0010>").data.period == 4


def test_unknown_enum_value_message() -> None:
    with pytest.raises(ParseError) as info:
        parse_attr("#pto.layout<zz>")
    assert info.value.msg == "expected ::mlir::pto::Layout to be one of: nd, dn, nz"
