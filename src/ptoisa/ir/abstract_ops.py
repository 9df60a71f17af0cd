"""Base classes of the `pto` ops: the verifier driver and the common PTOAS tile checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, NoReturn

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .legality import arch_of_config, check_target_legality, config_of
from .messages import msg
from .syntax import Group, resolve_group
from .types import PtoTileType, TileBufType, _TileTypeBase
from .verify import Arch, is_memref, is_row_major, is_scalar, is_vec, valid_exceeds

SEGMENTS = "operandSegmentSizes"


def type_text(t: Attribute) -> str:
    """`t` as MLIR text (for messages)."""
    import io

    out = io.StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


class PtoOp(IRDLOperation):
    """Every `pto` op: `verify_` runs the structural rules, then the target-legality hook.

    Failures read `'pto.<op>' op <PTOAS text>`, as MLIR prints them.
    """

    def fail(self, entry: str, /, **fields: object) -> NoReturn:
        raise VerifyException(f"'{self.name}' op {msg(entry, **fields)}")

    def verify_(self) -> None:
        if self.skips_verification():
            return
        self.verify_form()
        config = config_of(self)
        self.verify_structure(arch_of_config(config))
        check_target_legality(self, config)

    def skips_verification(self) -> bool:
        return False

    def verify_form(self) -> None:
        """Ops with two textual forms check which one they are in."""

    def verify_structure(self, arch: Arch) -> None:
        """The op's structural rules, in PTOAS's evaluation order (first failure wins)."""

    # --- attribute dictionaries of the custom syntax ----------------------------------------------------------
    @classmethod
    def split_attrs(cls, attrs: Mapping[str, Attribute]) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """Split a parsed attribute dictionary into declared properties and discardable attributes."""
        declared = cls.get_irdl_definition().properties
        props = {k: v for k, v in attrs.items() if k in declared}
        return props, {k: v for k, v in attrs.items() if k not in declared}

    def attr_view(self, *, skip: tuple[str, ...] = (), defaults: Mapping[str, Attribute] | None = None
                  ) -> dict[str, Attribute]:
        """Properties and attributes as one dictionary for the custom syntax, without `skip` names, segment
        sizes, or properties equal to the given `defaults`."""
        defaults = defaults or {}
        props = {k: v for k, v in self.properties.items()
                 if k != SEGMENTS and k not in skip and defaults.get(k) != v}
        return {**props, **{k: v for k, v in self.attributes.items() if k != SEGMENTS and k not in skip}}

    @staticmethod
    def take(parser: Parser, group: Group, count: int) -> list[SSAValue]:
        """Resolve a group that must hold exactly `count` operands."""
        if len(group.operands) != count:
            parser.raise_error(msg("dps.count", group=group.keyword, count=count, got=len(group.operands)),
                               group.start, group.end)
        return resolve_group(parser, group)


class DpsOp(PtoOp):
    """A tile op in destination-passing style: `pto.op ins(...) outs(...)`.

    The five instructions also have the SSA (Level-1) form, `%d = pto.op %a, ... : (...) -> !pto.tile<...>`:
    the same op class with a result instead of the outs operand (`is_ssa`). Tile operands are `!pto.tile_buf`
    in the DPS form and `!pto.tile` in the SSA form.

    April files may pass memrefs as tiles; PTOAS-April then skips the op's verifier, and so does ptoisa.
    """

    if TYPE_CHECKING:  # declared by each op with an SSA form (opt_operand_def); not by the record-built ops
        dst: SSAValue | None

    def skips_verification(self) -> bool:
        return any(is_memref(o.type) for o in self.operands)

    @property
    def is_ssa(self) -> bool:
        return self.HAS_SSA_FORM and bool(self.results)

    @property
    def dst_value(self) -> SSAValue:
        """The destination: the outs operand (DPS) or the first result (SSA)."""
        # verify_form: an op without a result has its dst
        return self.results[0] if self.results else self.dst  # type: ignore[return-value]

    HAS_SSA_FORM: ClassVar[bool] = False

    def verify_form(self) -> None:
        if not self.HAS_SSA_FORM:
            return
        has_dst = getattr(self, "dst", None) is not None
        if has_dst and self.results:
            self.fail("form.both")
        if not has_dst and not self.results:
            self.fail("form.none")

    def tile(self, name: str, value: SSAValue) -> _TileTypeBase:
        if self.is_ssa:
            if not isinstance(value.type, PtoTileType):
                self.fail("v.tile", x=name)
        elif not isinstance(value.type, TileBufType):
            self.fail("v.tile_buf", x=name)
        return value.type

    def common(self, name: str, value: SSAValue) -> _TileTypeBase:
        """PTOAS's common checks: a rank-2 tile_buf (a tile in SSA form) whose valid shape fits the shape."""
        t = self.tile(name, value)
        if (i := valid_exceeds(t)) is not None:
            self.fail("v.valid_le", x=name, i=i)
        return t

    def require_vec(self, name: str, t: _TileTypeBase) -> None:
        if not is_vec(t):
            self.fail("v.vec", x=name)

    def require_row_major(self, name: str, t: _TileTypeBase) -> None:
        if not is_row_major(t):
            self.fail("v.row_major", x=name)

    def require_scalar(self, value: SSAValue) -> None:
        """ODS `ScalarType` on an operand (signless integer or float)."""
        if not is_scalar(value.type):
            index = list(self.operands).index(value)
            self.fail("v.scalar", index=index, type=type_text(value.type))
