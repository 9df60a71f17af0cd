"""`pto.tgather`: three forms behind one custom parser, as in PTOAS.

    index:   pto.tgather ins(%src, %idx, %tmp : T, Ti, Tt) outs(%dst : T)                 (tmp optional on A5)
    mask:    pto.tgather ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : T, "row") outs(%dst : U)
             (April and the seed pages: no axis string; the April flavour prints it that way)
    compare: pto.tgather ins(%src, %k, %tmp : T, f16, Tt) outs(%dst, %cdst : Ti32, Ti32)
                 {cmpMode = #pto<cmp gt>, offset = 7 : i32}

The token after `src,` chooses the form: `{` is the mask form; otherwise two outs make the compare form and one
makes the index form. Generic operand order (PTOAS): src, dst, cdst?, indices?, tmp?, kValue?.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, Signedness, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from ptoisa.isa.enums import CmpMode

from .abstract_ops import DpsOp
from .attrs import CmpModeAttr, MaskPatternAttr
from .messages import msg
from .ssa import SsaParts, at_keyword, parse_ssa, print_ssa, require_operands, resolve_ssa
from .syntax import (
    Group,
    current_flavour,
    parse_group,
    parse_operand_list,
    parse_type_list,
    print_group,
    print_trailing_attrs,
    raise_flavour_error,
)
from .verify import Arch, bit_width, byte_size, is_integer, is_row_major, is_tile_like, is_vec

AXES = ("row", "col")


@irdl_op_definition
class TGatherOp(DpsOp):
    """TGATHER: gather src elements by an index tile, by a fixed mask pattern, or by comparison with kValue.

        index:   dst[i, j] = src.flat[indices[i, j]]
        mask:    dst receives the src elements the pattern selects, row by row (axis "row") or the selected
                 rows (axis "col"), compacted
        compare: dst[i, :] = offset + i*src.cols + j for each j with src[i, j] <cmpMode> kValue; cdst[i] = count

    Mirrors include/pto/common/pto_instr.hpp TGATHER (three overloads). Divergences: the compare form's kValue is
    a scalar in PTOAS but a per-row tile in C++; the mask axis exists in August PTOAS only.
    """

    name = "pto.tgather"
    src = operand_def()
    dst = opt_operand_def()
    cdst = opt_operand_def()
    indices = opt_operand_def()
    tmp = opt_operand_def()
    k_value = opt_operand_def()
    mask_pattern = opt_prop_def(MaskPatternAttr, prop_name="maskPattern")
    axis = opt_prop_def(StringAttr)
    cmp_mode = opt_prop_def(CmpModeAttr, prop_name="cmpMode")
    offset = opt_prop_def(IntegerAttr)
    res = var_result_def()  # SSA form: (dst) for index and mask, (dst, cdst) for compare
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    HAS_SSA_FORM: ClassVar[bool] = True

    @property
    def cdst_value(self) -> SSAValue | None:
        """The compare form's count output: the cdst operand (DPS) or the second result (SSA)."""
        return self.results[1] if len(self.results) > 1 else self.cdst

    # --- parsing ----------------------------------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> TGatherOp:
        if not at_keyword(parser, "ins"):
            return cls._parse_ssa(parser, parse_ssa(parser))
        parser.parse_keyword("ins")
        start = parser.pos
        parser.parse_punctuation("(")
        src = parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation(",") is None:
            parser.raise_error(msg("tg.comma"))
        if parser._current_token.text == "{":  # pyright: ignore[reportPrivateUsage]
            return cls._parse_mask(parser, src)
        extras, dangling = parse_operand_list(parser)
        if dangling or not extras:
            parser.raise_error("expected SSA value")
        if len(extras) > 3:
            parser.raise_error(msg("tg.extra3"), start, parser.pos)
        ins = Group("ins", [src, *extras], cls._parse_ins_tail(parser), {}, start, parser.pos)
        return cls._parse_operand_form(parser, ins)

    @classmethod
    def _parse_ssa(cls, parser: Parser, parts: SsaParts) -> TGatherOp:
        """index:   %d = pto.tgather %src, %idx[, %tmp] : (T, Ti[, Tt]) -> U
        mask:    %d = pto.tgather %src {maskPattern = #pto.mask_pattern<P0101>[, axis = "col"]} : T -> U
        compare: %d, %c = pto.tgather %src, %k[, %tmp] {cmpMode = ..., offset = 7 : i32} : (T, K[, Tt]) -> (U, C)"""
        props, attrs = cls.split_attrs(parts.attrs)
        if "maskPattern" in parts.attrs:
            if not isinstance(parts.attrs["maskPattern"], MaskPatternAttr):
                parser.raise_error(msg("tg.mask_attr"), parts.start, parts.sig_start)
            if len(parts.operands) != 1:
                parser.raise_error(msg("ssa.mask_attr"), parts.start, parts.sig_start)
            axis = parts.attrs.get("axis")
            if axis is not None and not (isinstance(axis, StringAttr) and axis.data in AXES):
                parser.raise_error(msg("tg.axis"), parts.start, parts.sig_start)
            (src,) = resolve_ssa(parser, cls.name, parts, 1)
            return cls.build(operands=[src, [], [], [], [], []], result_types=[parts.results], properties=props,
                             attributes=attrs)
        require_operands(parser, cls.name, parts, (2, 3))
        compare = len(parts.results) == 2
        operands = resolve_ssa(parser, cls.name, parts, 2 if compare else 1)
        src, second, *tmp = operands
        groups: list[SSAValue | list[SSAValue]]
        if compare:
            groups = [src, [], [], [], tmp, [second]]
        else:
            groups = [src, [], [], [second], tmp, []]
        return cls.build(operands=groups, result_types=[parts.results], properties=props, attributes=attrs)

    @staticmethod
    def _parse_ins_tail(parser: Parser) -> list[Attribute]:
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        parser.parse_punctuation(")")
        return types

    @classmethod
    def _parse_mask(cls, parser: Parser, src: UnresolvedOperand) -> TGatherOp:
        inner = parser.parse_optional_attr_dict()
        if not isinstance(inner.get("maskPattern"), MaskPatternAttr):
            parser.raise_error(msg("tg.mask_attr"))
        if parser._current_token.text == ",":  # pyright: ignore[reportPrivateUsage]
            parser.raise_error(msg("tg.mask_extra"))
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        axis = cls._parse_optional_axis(parser)
        parser.parse_punctuation(")")
        outs = parse_group(parser, "outs")
        if len(outs.operands) != 1:
            parser.raise_error(msg("tg.mask_outs"), outs.start, outs.end)
        (dst,) = cls.take(parser, outs, 1)
        outer = parser.parse_optional_attr_dict()
        if "maskPattern" in outer:
            parser.raise_error(msg("tg.mask_once"))
        props, attrs = cls.split_attrs({**inner, **outer, **axis})
        return cls.build(operands=[parser.resolve_operand(src, src_type), dst, [], [], [], []],
                         result_types=[[]], properties=props, attributes=attrs)

    @staticmethod
    def _parse_optional_axis(parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_punctuation(",") is None:
            return {}
        start = parser.pos
        axis = parser.parse_optional_str_literal()
        if axis not in AXES:
            parser.raise_error(msg("tg.axis"), start, parser.pos)
        return {"axis": StringAttr(axis)}

    @classmethod
    def _parse_operand_form(cls, parser: Parser, ins: Group) -> TGatherOp:
        outs = parse_group(parser, "outs")
        src, *extras = cls.take(parser, ins, len(ins.operands))
        props, attrs = cls.split_attrs(parser.parse_optional_attr_dict())
        if len(outs.operands) == 2:
            dst, cdst = cls.take(parser, outs, 2)
            operands = cls._compare_operands(parser, ins, src, dst, cdst, extras)
        else:
            (dst,) = cls.take(parser, outs, 1)
            operands = cls._index_operands(parser, ins, src, dst, extras)
        return cls.build(operands=operands, result_types=[[]], properties=props, attributes=attrs)

    @staticmethod
    def _compare_operands(parser: Parser, ins: Group, src: SSAValue, dst: SSAValue, cdst: SSAValue,
                          extras: list[SSAValue]) -> list[SSAValue | list[SSAValue]]:
        if is_tile_like(extras[0].type):
            parser.raise_error(msg("tg.cmp_scalar"), ins.start, ins.end)
        if len(extras) > 2:
            parser.raise_error(msg("tg.cmp_max"), ins.start, ins.end)
        if len(extras) == 2 and not is_tile_like(extras[1].type):
            parser.raise_error(msg("tg.cmp_tmp"), ins.start, ins.end)
        return [src, dst, [cdst], [], extras[1:], [extras[0]]]

    @staticmethod
    def _index_operands(parser: Parser, ins: Group, src: SSAValue, dst: SSAValue, extras: list[SSAValue]
                        ) -> list[SSAValue | list[SSAValue]]:
        if not is_tile_like(extras[0].type):
            parser.raise_error(msg("tg.idx_tile"), ins.start, ins.end)
        if len(extras) > 2:
            parser.raise_error(msg("tg.idx_max"), ins.start, ins.end)
        if len(extras) == 2 and not is_tile_like(extras[1].type):
            parser.raise_error(msg("tg.idx_tmp"), ins.start, ins.end)
        return [src, dst, [], [extras[0]], extras[1:], []]

    # --- printing -------------------------------------------------------------------------------------------------
    def print(self, printer: Printer) -> None:
        if self.is_ssa:
            operands = [v for v in (self.src, self.indices, self.k_value, self.tmp) if v is not None]
            return print_ssa(printer, operands, self.attr_view(), self.results)
        if self.mask_pattern is not None:
            return self._print_mask(printer)
        extras = [v for v in (self.indices, self.k_value, self.tmp) if v is not None]
        print_group(printer, "ins", [self.src, *extras])
        print_group(printer, "outs", [self.dst_value, *([self.cdst] if self.cdst is not None else [])])
        print_trailing_attrs(printer, self.attr_view())

    def _print_mask(self, printer: Printer) -> None:
        pattern = self.mask_pattern
        assert pattern is not None  # print() takes this form for a mask pattern only
        printer.print_string(" ins(")
        printer.print_operand(self.src)
        printer.print_string(", ")
        printer.print_attr_dict({"maskPattern": pattern})
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        if (axis := self._printed_axis()) is not None:
            printer.print_string(f', "{axis}"')
        printer.print_string(")")
        print_group(printer, "outs", [self.dst_value])
        print_trailing_attrs(printer, self.attr_view(skip=("maskPattern", "axis")))

    def _printed_axis(self) -> str | None:
        axis = self.axis.data if self.axis is not None else None
        if current_flavour() == "aug":
            return axis or "row"  # August requires the axis; April files meant "row"
        if axis == "col":
            raise_flavour_error(msg("tgather.apr_axis"))
        return None

    # --- verification ---------------------------------------------------------------------------------------------
    def verify_structure(self, arch: Arch) -> None:
        if self.axis is not None and self.mask_pattern is None:
            self.fail("tg.axis_no_mask")
        if self.is_ssa and len(self.results) != (2 if self.k_value is not None else 1):
            self.fail("ssa.result_types", op=self.name, count=2 if self.k_value is not None else 1,
                      got=len(self.results))
        if self.mask_pattern is not None:
            self._verify_mask()
        elif self.cdst_value is not None or self.k_value is not None:
            self._verify_compare(arch)
        else:
            self._verify_index(arch)

    def _verify_mask(self) -> None:
        if any(v is not None for v in (self.cdst, self.indices, self.tmp, self.k_value)):
            self.fail("tg.mask_only")
        src, dst = self.common("src", self.src), self.common("dst", self.dst_value)
        rules = (
            (is_row_major(src) and is_row_major(dst), "tg.mask_rowmajor"),
            (is_vec(src) and is_vec(dst), "tg.mask_vec"),
            (byte_size(src.element_type) == byte_size(dst.element_type), "tg.mask_size"),
        )
        self._first_failure(rules)
        if self.axis is not None and self.axis.data not in AXES:
            self.fail("tg.axis_value")
        # PTOAS's "dst valid cols == cols" and August's compaction rule (dst = the compacted src shape) are not
        # the contract's (D14/D15: a row stream from dst's first element); the core checks dst per target.

    def _verify_index(self, arch: Arch) -> None:
        if self.indices is None or (arch != "a5" and self.tmp is None):
            self.fail("tg.idx_indices" if arch == "a5" else "tg.idx_both")
        src, dst = self.common("src", self.src), self.common("dst", self.dst_value)
        idx = self.common("indices", self.indices)
        tmp = self.common("tmp", self.tmp) if self.tmp is not None else None
        rules = (
            (src.element_type == dst.element_type, "tg.idx_same"),
            (is_integer(idx.element_type), "tg.idx_int"),
        )
        self._first_failure(rules)
        if tmp is not None and arch == "a2a3":
            self._first_failure(((tmp.element_type == idx.element_type, "tg.tmp_type"),))
        # PTOAS's continuity rules (dst and indices valid cols == cols on both arches, tmp valid shape ==
        # indices valid shape) differ from the contract's per-target rules; the core checks those.

    def _verify_compare(self, arch: Arch) -> None:
        self._verify_offset()
        if self.k_value is not None:
            self.require_scalar(self.k_value)
        if self.indices is not None:
            self.fail("tg.cmp_no_idx")
        if self.cdst_value is None or self.k_value is None or self.tmp is None:  # the C++ signature has tmp
            self.fail("tg.cmp_operands")
        named = (("src", self.src), ("dst", self.dst_value), ("cdst", self.cdst_value), ("tmp", self.tmp))
        tiles = {n: self.common(n, v) for n, v in named if v is not None}
        dst_type = tiles["dst"].element_type
        mode = self.cmp_mode.data if self.cmp_mode is not None else CmpMode.EQ
        self._first_failure((
            (is_integer(dst_type) and bit_width(dst_type) == 32, "tg.cmp_dst_i32"),
            (tiles["cdst"].element_type == dst_type, "tg.cmp_cdst"),
            (self.k_value.type == tiles["src"].element_type, "tg.cmp_k"),
            (mode in (CmpMode.EQ, CmpMode.GT), "tg.cmp_mode"),
        ))
        for name, t in tiles.items():
            self.require_vec(name, t)
            self.require_row_major(name, t)

    def _verify_offset(self) -> None:
        t = self.offset.type if self.offset is not None else None
        if t is not None and not (isinstance(t, IntegerType) and t.width.data == 32
                                  and t.signedness.data is Signedness.SIGNLESS):
            self.fail("tg.offset")

    def _first_failure(self, rules: Sequence[tuple[bool, str]]) -> None:
        for ok, key in rules:
            if not ok:
                self.fail(key)


__all__ = ["TGatherOp"]
