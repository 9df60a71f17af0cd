"""The five PTO instructions as xDSL ops, in PTOAS's DPS (`ins(...) outs(...)`) syntax.

Each op parses every spelling text-forms.md documents (April and August PTOAS, plus the seed pages' Level-2
spellings) and prints the August form by default, or the April form inside `print_flavour("apr")`.
Properties carry PTOAS's attribute names (`cmpMode`, `descending`, `maskPattern`, `axis`, `offset`), so the
generic form `"pto.tcmps"(%a, %s, %d) <{cmpMode = #pto<cmp lt>}> : (...) -> ()` parses too.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IntegerAttr, IntegerType, i32
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_result_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ptoisa.isa.enums import CmpMode

from .abstract_ops import SEGMENTS, DpsOp
from .attrs import CmpModeAttr
from .messages import msg
from .ssa import at_keyword, element_of, parse_ssa, print_ssa, require_operands, resolve_ssa
from .syntax import (
    current_flavour,
    merge_attrs,
    parse_group,
    print_group,
    print_trailing_attrs,
    raise_flavour_error,
)
from .tgather import TGatherOp  # three forms, custom parser: its own module
from .types import PtoTileType, TileBufType
from .verify import Arch, is_integer, static_eq, static_le

EQ = CmpModeAttr(CmpMode.EQ)
FALSE = IntegerAttr.from_bool(False)


@irdl_op_definition
class TCmpsOp(DpsOp):
    """TCMPS: compare every valid element of src with a scalar; dst receives the packed predicate bits.

        pto.tcmps ins(%src, %s {cmpMode = #pto<cmp gt>} : !pto.tile_buf<vec, 16x16xf32>, f32)
                  outs(%dst : !pto.tile_buf<vec, 16x32xui8, valid=16x2>)

        for i < src.valid_row, j < src.valid_col: bit(dst, i, j) = src[i, j] <cmpMode> s

    Mirrors include/pto/common/pto_instr.hpp TCMPS. `cmpMode` defaults to eq and an explicit eq is not printed.
    The attribute dictionary sits inside `ins(...)` (PTOAS; after `outs` it is a parse error).
    """

    name = "pto.tcmps"
    src = operand_def()
    scalar = operand_def()
    dst = opt_operand_def()
    res = opt_result_def()
    cmp_mode = prop_def(CmpModeAttr, default_value=EQ, prop_name="cmpMode")
    HAS_SSA_FORM: ClassVar[bool] = True

    @classmethod
    def parse(cls, parser: Parser) -> TCmpsOp:
        if not at_keyword(parser, "ins"):  # SSA: %d = pto.tcmps %src, %s {cmpMode = ...} : (T, f32) -> U
            parts = parse_ssa(parser)
            require_operands(parser, cls.name, parts, (2,))
            # (no input type at all: nothing to infer from; resolve_ssa refuses the count)
            operands = resolve_ssa(parser, cls.name, parts, 1, lambda ts: [*ts, element_of(ts[0])] if ts else ts)
            props, attrs = cls.split_attrs(parts.attrs)
            return cls.create(operands=operands, result_types=parts.results, properties=props, attributes=attrs)
        ins = parse_group(parser, "ins", inner_attrs=True)
        outs = parse_group(parser, "outs")
        src, scalar = cls.take(parser, ins, 2)
        (dst,) = cls.take(parser, outs, 1)
        props, attrs = cls.split_attrs(ins.attrs)
        return cls.create(operands=[src, scalar, dst], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.is_ssa:
            return print_ssa(printer, [self.src, self.scalar], self.attr_view(defaults={"cmpMode": EQ}), self.results)
        print_group(printer, "ins", [self.src, self.scalar], attrs=self.attr_view(defaults={"cmpMode": EQ}))
        print_group(printer, "outs", [self.dst_value])

    def verify_structure(self, arch: Arch) -> None:
        self.require_scalar(self.scalar)
        src, dst = self.common("src", self.src), self.common("dst", self.dst_value)
        self.require_vec("src", src)
        self.require_vec("dst", dst)
        if not static_eq((src.valid_shape[0],), (dst.valid_shape[0],)):
            self.fail("tcmps.valid_row")


@irdl_op_definition
class TCIOp(DpsOp):
    """TCI: fill the first dst row with S, S±1, S±2, ... over dst's valid columns.

        pto.tci ins(%s : i32) outs(%dst : !pto.tile_buf<vec, 1x16xi32>) {descending = false}      (August)
        pto.tci ins(%s, %tmp : i32, !pto.tile_buf<vec, 1x512xf32>) outs(%dst : ...) {descending = true}
        pto.tci ins(%s {descending = true} : i32) outs(%dst : ...)                                (April)

        for j < dst.valid_col: dst[0, j] = S - j if descending else S + j

    Mirrors include/pto/common/pto_instr.hpp TCI. August prints `descending` always, April only when true; the
    tmp operand exists in August only. Generic operand order: S, tmp?, dst with `operandSegmentSizes`; an April
    generic op with two operands and no segment sizes means (S, dst).
    """

    name = "pto.tci"
    scalar = operand_def()
    tmp = opt_operand_def()
    dst = opt_operand_def()
    res = opt_result_def()
    descending = prop_def(BoolAttr, default_value=FALSE)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    HAS_SSA_FORM: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if SEGMENTS not in self.properties and SEGMENTS not in self.attributes and len(self.operands) in (1, 2):
            # April generic form (S, dst); SSA generic form (S) -> T
            sizes = (1, 0, 1) if len(self.operands) == 2 else (1, 0, 0)
            self.properties[SEGMENTS] = DenseArrayBase.from_list(i32, sizes)
        super().__post_init__()

    @classmethod
    def parse(cls, parser: Parser) -> TCIOp:
        if not at_keyword(parser, "ins"):  # SSA: %d = pto.tci %s[, %tmp] {descending = B} : (i32[, T]) -> T
            parts = parse_ssa(parser)
            require_operands(parser, cls.name, parts, (1, 2))
            operands = resolve_ssa(parser, cls.name, parts, 1,
                                   lambda ts: [element_of(parts.results[0])] if not ts else ts)
            props, attrs = cls.split_attrs(parts.attrs)
            return cls.build(operands=[operands[0], operands[1:], []], result_types=[parts.results],
                             properties=props, attributes=attrs)
        ins = parse_group(parser, "ins", inner_attrs=True)
        if ins.types and not isinstance(ins.types[0], IntegerType):
            parser.raise_error(msg("tci.int_type"), ins.start, ins.end)
        outs = parse_group(parser, "outs")
        operands = cls.take(parser, ins, len(ins.operands) if len(ins.operands) in (1, 2) else 1)
        (dst,) = cls.take(parser, outs, 1)
        props, attrs = cls.split_attrs(merge_attrs(parser, ins.attrs, parser.parse_optional_attr_dict()))
        return cls.build(operands=[operands[0], operands[1:], dst], result_types=[[]], properties=props,
                         attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.is_ssa:
            operands = [self.scalar, *([self.tmp] if self.tmp else [])]
            return print_ssa(printer, operands, self.attr_view(defaults={"descending": FALSE}), self.results)
        if current_flavour() == "apr":
            return self._print_april(printer)
        print_group(printer, "ins", [self.scalar, *([self.tmp] if self.tmp else [])])
        print_group(printer, "outs", [self.dst_value])
        print_trailing_attrs(printer, self.attr_view())

    def _print_april(self, printer: Printer) -> None:
        if self.tmp is not None:
            raise_flavour_error(msg("tci.apr_tmp"))
        print_group(printer, "ins", [self.scalar], attrs=self.attr_view(defaults={"descending": FALSE}))
        print_group(printer, "outs", [self.dst_value])

    def verify_structure(self, arch: Arch) -> None:
        dst = self.common("dst", self.dst_value)
        if not is_integer(dst.element_type):
            self.fail("tci.dst_int")
        if self.tmp is not None:  # its dtype and capacity are the core's rules (a2a3 checks them, D8)
            self.common("tmp", self.tmp)
        if not is_integer(self.scalar.type):
            self.fail("tci.s_int")
        if self.scalar.type != dst.element_type:
            self.fail("tci.same")
        if dst.shape[1] == 1:
            self.fail("tci.cols")


@irdl_op_definition
class TExpandsOp(DpsOp):
    """TEXPANDS: broadcast a scalar into every valid element of dst (vec) or the whole tile (mat).

        pto.texpands ins(%s : f32) outs(%dst : !pto.tile_buf<vec, 16x16xf32>)

        for i < dst.valid_row, j < dst.valid_col: dst[i, j] = s

    Mirrors include/pto/common/pto_instr.hpp TEXPANDS. The attribute dictionary goes after `outs(...)`.
    """

    name = "pto.texpands"
    scalar = operand_def()
    dst = opt_operand_def()
    res = opt_result_def()
    HAS_SSA_FORM: ClassVar[bool] = True

    @classmethod
    def parse(cls, parser: Parser) -> TExpandsOp:
        if not at_keyword(parser, "ins"):  # SSA: %d = pto.texpands %s : f32 -> T   (or `: f32, T`, `: T`)
            parts = parse_ssa(parser)
            require_operands(parser, cls.name, parts, (1,))
            operands = resolve_ssa(parser, cls.name, parts, 1, lambda ts: [element_of(parts.results[0])])
            return cls.create(operands=operands, result_types=parts.results, attributes=parts.attrs)
        (scalar,) = cls.take(parser, parse_group(parser, "ins"), 1)
        (dst,) = cls.take(parser, parse_group(parser, "outs"), 1)
        return cls.create(operands=[scalar, dst], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        if self.is_ssa:
            return print_ssa(printer, [self.scalar], self.attr_view(), self.results)
        print_group(printer, "ins", [self.scalar])
        print_group(printer, "outs", [self.dst_value])
        print_trailing_attrs(printer, self.attr_view())

    def verify_structure(self, arch: Arch) -> None:
        self.require_scalar(self.scalar)
        dst = self.common("dst", self.dst_value)
        if self.scalar.type != dst.element_type:
            self.fail("texpands.scalar")
        # PTOAS's "vec or mat" and "row-major vec on A2/A3" rules are not the contract's: the core decides
        # locations and layouts per target (the seed: row- and col-major vec tiles are both supported).


@irdl_op_definition
class TPartMulOp(DpsOp):
    """TPARTMUL: elementwise product where both sources are valid, the valid one's value where only one is.

        pto.tpartmul ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32, valid=8x16>)
                     outs(%d : !pto.tile_buf<vec, 16x16xf32>)

        for i < dst.valid_row, j < dst.valid_col:
            dst[i, j] = a*b if both valid else (a if a valid else b)

    Mirrors include/pto/common/pto_instr.hpp TPARTMUL. PTOAS needs one type per input; the seed pages' single
    type (`ins(%a, %b : T)`) is accepted and means both inputs have type T.
    """

    name = "pto.tpartmul"
    src0 = operand_def()
    src1 = operand_def()
    dst = opt_operand_def()
    res = opt_result_def()
    HAS_SSA_FORM: ClassVar[bool] = True

    @classmethod
    def parse(cls, parser: Parser) -> TPartMulOp:
        if not at_keyword(parser, "ins"):  # SSA: %d = pto.tpartmul %a, %b : (T0, T1) -> T   (or `: T -> T`)
            parts = parse_ssa(parser)
            require_operands(parser, cls.name, parts, (2,))
            operands = resolve_ssa(parser, cls.name, parts, 1, lambda ts: [ts[0], ts[0]] if len(ts) == 1 else ts)
            return cls.create(operands=operands, result_types=parts.results, attributes=parts.attrs)
        ins = parse_group(parser, "ins")
        if len(ins.operands) == 2 and len(ins.types) == 1:
            ins.types *= 2  # the seed pages' spelling
        src0, src1 = cls.take(parser, ins, 2)
        (dst,) = cls.take(parser, parse_group(parser, "outs"), 1)
        return cls.create(operands=[src0, src1, dst], attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        if self.is_ssa:
            return print_ssa(printer, [self.src0, self.src1], self.attr_view(), self.results)
        print_group(printer, "ins", [self.src0, self.src1])
        print_group(printer, "outs", [self.dst_value])
        print_trailing_attrs(printer, self.attr_view())

    def verify_structure(self, arch: Arch) -> None:
        kind = PtoTileType if self.is_ssa else TileBufType
        if not all(isinstance(o.type, kind) for o in (self.src0, self.src1, self.dst_value)):
            self.fail("tpartmul.shaped")
        a, b, d = (self.tile(n, v) for n, v in (("src0", self.src0), ("src1", self.src1), ("dst", self.dst_value)))
        if not a.element_type == b.element_type == d.element_type:
            self.fail("tpartmul.same")
        if not (static_le(a.valid_shape, d.valid_shape) and static_le(b.valid_shape, d.valid_shape)):
            self.fail("tpartmul.le")
        one_matches = static_eq(a.valid_shape, d.valid_shape) or static_eq(b.valid_shape, d.valid_shape)
        if arch == "a2a3" and not one_matches:
            self.fail("tpartmul.match")

FIVE_OPS = (TCmpsOp, TCIOp, TExpandsOp, TPartMulOp, TGatherOp)
__all__ = ["FIVE_OPS", "TCIOp", "TCmpsOp", "TExpandsOp", "TGatherOp", "TPartMulOp"]
