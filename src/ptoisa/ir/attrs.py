"""Attributes of the `pto` dialect: enum attributes that carry the core's IntEnum members.

Each attribute stores one enum member (`CmpModeAttr(CmpMode.GT).data is CmpMode.GT`) and spells it as one
keyword. Two MLIR spellings route to the same class, and both parse:

* opaque: `#pto<cmp gt>` (PTOAS `EnumAttr`s: `cmp`, `round_mode`), printed this way;
* pretty: `#pto.mask_pattern<P0101>` (PTOAS `AttrDef`s with `<params>`), printed this way.

The seed pages' `#pto.cmp<EQ>` is the pretty spelling of the compare mode; it is accepted in any letter case,
while the opaque spelling keeps PTOAS's lower-case rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import ClassVar, Generic, TypeVar

from xdsl.ir import Data, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from ptoisa.enums import (AccToVecMode, AtomicType, CmpMode, MaskPattern, QuantType, ReluPreMode, SaturationMode,
                          STPhase)
from ptoisa.tile.enums import BLayout, Layout, SLayout, TileType

from .enums import AddressSpace, Event, FenceScope, KernelKind, PadMode, Pipe, RoundMode, SyncOpType
from .messages import msg

E = TypeVar("E", bound=IntEnum)


def _names(enum: type[IntEnum]) -> dict[IntEnum, str]:
    return {m: m.name for m in enum}


def _lower_names(enum: type[IntEnum]) -> dict[IntEnum, str]:
    return {m: m.name.lower() for m in enum}


class WordEnumAttr(Data[E], Generic[E]):
    """Base of the enum attributes: one enum member, spelled by the class's `spellings` table.

    Attributes:
        spellings: member -> text, the one place a spelling is defined.
        label: the enum's name in "expected X to be one of" messages.
    """

    spellings: ClassVar[Mapping[IntEnum, str]]
    label: ClassVar[str]

    @classmethod
    def from_text(cls, word: str, *, bracketed: bool) -> E | None:
        """The member spelled `word`, or None."""
        for member, text in cls.spellings.items():
            if text == word:
                return member  # type: ignore[return-value]
        return None

    @classmethod
    def choices(cls) -> str:
        return ", ".join(cls.spellings.values())

    @classmethod
    def unknown_message(cls, word: str) -> str:
        return msg("attr.unknown", enum=cls.label, choices=cls.choices())

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> E:
        bracketed = parser.parse_optional_punctuation("<") is not None
        start = parser.pos
        word = parser.parse_optional_identifier_or_str_literal()
        member = None if word is None else cls.from_text(word, bracketed=bracketed)
        if member is None:
            parser.raise_error(cls.unknown_message(word or ""), start, parser.pos)
        if bracketed:
            parser.parse_punctuation(">")
        return member

    def print_parameter(self, printer: Printer) -> None:
        text = self.spellings[self.data]
        if isinstance(self, SpacedOpaqueSyntaxAttribute):
            printer.print_string(text)
        else:
            printer.print_string(f"<{text}>")

    @property
    def text(self) -> str:
        """The keyword spelling of the member."""
        return self.spellings[self.data]


@irdl_attr_definition
class CmpModeAttr(WordEnumAttr[CmpMode], SpacedOpaqueSyntaxAttribute):
    """Compare mode `#pto<cmp eq|ne|lt|le|gt|ge>` (also parses the seed spelling `#pto.cmp<EQ>`)."""

    name = "pto.cmp"
    spellings = _lower_names(CmpMode)
    label = "::mlir::pto::CmpMode"

    @classmethod
    def from_text(cls, word: str, *, bracketed: bool) -> CmpMode | None:
        # The seed pages write `#pto.cmp<EQ>`; PTOAS accepts only lower case, in the opaque form.
        return super().from_text(word.lower() if bracketed else word, bracketed=bracketed)

    @classmethod
    def unknown_message(cls, word: str) -> str:
        return msg("attr.cmp_case")


@irdl_attr_definition
class SaturationModeAttr(WordEnumAttr[SaturationMode], SpacedOpaqueSyntaxAttribute):
    """Saturation `#pto<saturation_mode ON>` / `OFF` (tcvt's `sat_mode`)."""

    name = "pto.saturation_mode"
    spellings = _names(SaturationMode)
    label = "::mlir::pto::SaturationMode"


@irdl_attr_definition
class RoundModeAttr(WordEnumAttr[RoundMode], SpacedOpaqueSyntaxAttribute):
    """Rounding mode `#pto<round_mode ROUND>` (tcvt)."""

    name = "pto.round_mode"
    spellings = _names(RoundMode)
    label = "::mlir::pto::RoundMode"


@irdl_attr_definition
class MaskPatternAttr(WordEnumAttr[MaskPattern]):
    """Mask pattern `#pto.mask_pattern<P0101>` of the mask-form tgather."""

    name = "pto.mask_pattern"
    spellings = _names(MaskPattern)
    label = "::mlir::pto::MaskPattern"


@irdl_attr_definition
class FenceScopeAttr(WordEnumAttr[FenceScope]):
    """Fence scope `#pto.fence_scope<gm>` of `pto.fence.barrier_all`, `pto.fence.release`, `pto.fence.acquire`."""

    name = "pto.fence_scope"
    spellings = _names(FenceScope)
    label = "::mlir::pto::FenceScope"


@irdl_attr_definition
class LayoutAttr(WordEnumAttr[Layout]):
    """Global tensor layout `#pto.layout<nd|dn|nz>` (make_tensor_view, memref.reinterpret_cast)."""

    name = "pto.layout"
    spellings = {Layout.ND: "nd", Layout.DN: "dn", Layout.NZ: "nz"}
    label = "::mlir::pto::Layout"


@irdl_attr_definition
class AddressSpaceAttr(WordEnumAttr[AddressSpace]):
    """Memref memory space `#pto.address_space<gm>` (April files)."""

    name = "pto.address_space"
    spellings = _lower_names(AddressSpace)
    label = "::mlir::pto::AddressSpace"


@irdl_attr_definition
class PipeAttr(WordEnumAttr[Pipe]):
    """Hardware pipe `#pto.pipe<PIPE_V>`; inside set_flag/wait_flag/barrier written `<PIPE_V>`."""

    name = "pto.pipe"
    spellings = _names(Pipe)
    label = "::mlir::pto::PIPE"


@irdl_attr_definition
class EventAttr(WordEnumAttr[Event]):
    """Event id `#pto.event<EVENT_ID0>`."""

    name = "pto.event"
    spellings = _names(Event)
    label = "::mlir::pto::EVENT"


@irdl_attr_definition
class PipeEventTypeAttr(WordEnumAttr[SyncOpType]):
    """Sync endpoint `#pto.pipe_event_type<TLOAD>` of record_event/wait_event."""

    name = "pto.pipe_event_type"
    spellings = _names(SyncOpType)
    label = "::mlir::pto::SyncOpType"


@irdl_attr_definition
class SyncOpTypeAttr(WordEnumAttr[SyncOpType]):
    """Legacy alias `#pto.sync_op_type<TLOAD>` of `#pto.pipe_event_type`."""

    name = "pto.sync_op_type"
    spellings = _names(SyncOpType)
    label = "::mlir::pto::SyncOpType"


@irdl_attr_definition
class KernelKindAttr(WordEnumAttr[KernelKind]):
    """Function attribute `pto.kernel_kind = #pto.kernel_kind<vector|cube>`."""

    name = "pto.kernel_kind"
    spellings = _lower_names(KernelKind)
    label = "::mlir::pto::FunctionKernelKind"


@irdl_attr_definition
class PadModeAttr(WordEnumAttr[PadMode]):
    """tload pad mode `#pto.padmode<PadValue>`."""

    name = "pto.padmode"
    spellings = _names(PadMode)
    label = "::mlir::pto::PadMode"


@irdl_attr_definition
class ReluPreModeAttr(WordEnumAttr[ReluPreMode], SpacedOpaqueSyntaxAttribute):
    """ReLU before a move or store out of Acc: `#pto<relu_pre_mode normal_relu>` (tmov, tstore, tinsert)."""

    name = "pto.relu_pre_mode"
    spellings = {ReluPreMode.NoRelu: "no_relu", ReluPreMode.NormalRelu: "normal_relu"}
    label = "::mlir::pto::ReluPreMode"


@irdl_attr_definition
class AccToVecModeAttr(WordEnumAttr[AccToVecMode]):
    """Acc -> Vec destination core(s): `#pto.acc_to_vec_mode<dual_mode_split_m>` (tmov, tinsert)."""

    name = "pto.acc_to_vec_mode"
    spellings = {AccToVecMode.SingleModeVec0: "single_mode_vec0", AccToVecMode.SingleModeVec1: "single_mode_vec1",
                 AccToVecMode.DualModeSplitM: "dual_mode_split_m", AccToVecMode.DualModeSplitN: "dual_mode_split_n"}
    label = "::mlir::pto::AccToVecMode"


@irdl_attr_definition
class STPhaseAttr(WordEnumAttr[STPhase], SpacedOpaqueSyntaxAttribute):
    """tstore's phase `#pto<st_phase final>`."""

    name = "pto.st_phase"
    spellings = {STPhase.Unspecified: "unspecified", STPhase.Partial: "partial", STPhase.Final: "final"}
    label = "::mlir::pto::STPhase"


@irdl_attr_definition
class AtomicTypeAttr(WordEnumAttr[AtomicType], SpacedOpaqueSyntaxAttribute):
    """tstore's atomic mode `#pto<atomic_type atomic_add>`."""

    name = "pto.atomic_type"
    spellings = {AtomicType.AtomicNone: "atomic_none", AtomicType.AtomicAdd: "atomic_add"}
    label = "::mlir::pto::AtomicType"


@irdl_attr_definition
class QuantTypeAttr(WordEnumAttr[QuantType], SpacedOpaqueSyntaxAttribute):
    """tquant's `#pto<quant_type INT8_SYM>`."""

    name = "pto.quant_type"
    spellings = _names(QuantType)
    label = "::mlir::pto::QuantType"


# --- tile_buf fields: parameters of !pto.tile_buf / !pto.tile, spelled as in the tile_buf text --------------

TILE_LOC_SPELLINGS: Mapping[IntEnum, str] = {  # TileType -> its word
    TileType.Vec: "vec", TileType.Mat: "mat", TileType.Left: "left", TileType.Right: "right",
    TileType.Acc: "acc", TileType.Bias: "bias", TileType.Scaling: "scaling",
}


@irdl_attr_definition
class TileLocAttr(WordEnumAttr[TileType]):
    """Tile location `vec mat left right acc bias scaling` (the core's TileType)."""

    name = "pto.tile_loc"
    spellings = TILE_LOC_SPELLINGS
    label = "tile_buf loc"


@irdl_attr_definition
class BLayoutAttr(WordEnumAttr[BLayout]):
    """Outer layout `row_major | col_major`."""

    name = "pto.blayout"
    spellings = {BLayout.RowMajor: "row_major", BLayout.ColMajor: "col_major"}
    label = "tile_buf blayout"


@irdl_attr_definition
class SLayoutAttr(WordEnumAttr[SLayout]):
    """Fractal box layout `none_box | row_major | col_major`."""

    name = "pto.slayout"
    spellings = {SLayout.NoneBox: "none_box", SLayout.RowMajor: "row_major", SLayout.ColMajor: "col_major"}
    label = "tile_buf slayout"


ENUM_ATTRS = (
    CmpModeAttr, RoundModeAttr, SaturationModeAttr, MaskPatternAttr, FenceScopeAttr, LayoutAttr, AddressSpaceAttr, PipeAttr, EventAttr,
    PipeEventTypeAttr, SyncOpTypeAttr, KernelKindAttr, PadModeAttr, TileLocAttr, BLayoutAttr, SLayoutAttr,
    ReluPreModeAttr, AccToVecModeAttr, STPhaseAttr, AtomicTypeAttr, QuantTypeAttr,
)
