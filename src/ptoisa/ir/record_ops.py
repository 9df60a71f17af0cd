"""The `pto` ops of every registered instruction record, built from the record (no per-op code here).

    pto.tadd ins(%a, %b : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%d : !pto.tile_buf<...>)
    pto.tadds ins(%a, %s : !pto.tile_buf<...>, f32) outs(%d : !pto.tile_buf<...>)
    pto.tcvt ins(%a {rmode = #pto<round_mode CAST_RINT>} : ...) outs(%d : ...)

The operands are the record's inputs (C++ order, optional trailing ones may be left out) in `ins(...)` and its
outputs in `outs(...)`; an attribute dictionary may sit inside `ins(...)` or after `outs(...)`. The verifier
checks operand kinds, then asks the record's cached plan (the same checks as the Python API) and, when the valid
shapes are static, the record's valid-shape rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, VectorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ptoisa.errors import IllegalInstructionError, UndefinedBehaviourError
from ptoisa.isa import vector  # noqa: F401 - registers the vector instructions
from ptoisa.isa._check import Check
from ptoisa.isa.record import REGISTRY, Instruction, Operand
from ptoisa.tile.enums import DYNAMIC

from .abstract_ops import SEGMENTS, DpsOp, type_text
from .legality import _Sized, config_of, spec_of
from .syntax import Group, merge_attrs, parse_group, print_group, resolve_group
from .ssa import at_keyword, parse_ssa, print_ssa, resolve_ssa
from .types import PtoTileType, TileBufType
from .verify import is_memref, is_scalar


def core_attr(attr_def: Any, value: Attribute | None) -> Enum:
    """The record attribute's enum member for an IR attribute (an enum attribute or a string; the names of
    the text and the C++ enums may differ by a `CAST_` prefix)."""
    if value is None:
        return attr_def.default
    if isinstance(value, IntegerAttr):  # `upperOrLower = 1 : i32`: an integer template argument
        number = value.value.data
        if _is_bool(value):  # `isBinary = true`: an i1 flag, whatever sign its bit is read with
            number = bool(number)
        for member in attr_def.enum:
            if member.value == number:
                return member
    word = value.data if isinstance(value, StringAttr) else getattr(getattr(value, "data", None), "name", None)
    if isinstance(word, str):
        key = word.upper()
        for member in attr_def.enum:
            if key in (member.name.upper(), member.name.upper().removeprefix("CAST_")):
                return member
    raise VerifyException(f"{attr_def.text_name} = {type_text(value)} is not one of "
                          f"{', '.join(m.name for m in attr_def.enum)}")


class RecordOp(DpsOp):
    """Base of the ops built from records: ins/outs of one variadic operand list, attributes as given."""

    RECORD: ClassVar[Instruction]

    @classmethod
    def parse(cls, parser: Parser) -> RecordOp:
        rec = cls.RECORD
        if not at_keyword(parser, "ins"):  # SSA (Level 1): %d = pto.tadd %a, %b : (T0, T1) -> T
            parts = parse_ssa(parser)
            if (hint := _api_only_hint(rec, len(parts.operands))) is not None:
                parser.raise_error(f"{rec.mnemonic} expects {_text_counts(rec)} operands, got {len(parts.operands)}: "
                                   f"{hint}", parts.start, parts.sig_start)
            operands = resolve_ssa(parser, rec.mnemonic, parts, len(rec.outputs),
                                   lambda ts: ts * len(parts.operands) if len(ts) == 1 else ts)
            return cls.create(operands=operands, result_types=parts.results, attributes=parts.attrs)
        ins = parse_group(parser, "ins", inner_attrs=True)
        if rec.outputs or at_keyword(parser, "outs"):
            outs = parse_group(parser, "outs")
        else:  # an op that writes no tile (pto.tprint) has no outs(...)
            outs = Group("outs", [], [], {}, parser.pos, parser.pos)
        attrs = merge_attrs(parser, ins.attrs, parser.parse_optional_attr_dict())
        if len(ins.operands) not in _input_counts(rec):
            hint = _api_only_hint(rec, len(ins.operands))
            parser.raise_error(f"{rec.mnemonic} ins(...) expects {_text_counts(rec)} operands, got "
                               f"{len(ins.operands)}" + (f": {hint}" if hint else ""), ins.start, ins.end)
        if len(outs.operands) != len(rec.outputs):
            parser.raise_error(f"{rec.mnemonic} outs(...) expects {len(rec.outputs)} operand(s), got "
                               f"{len(outs.operands)}", outs.start, outs.end)
        operands = [*resolve_group(parser, ins), *resolve_group(parser, outs)]
        return cls.create(operands=operands, attributes=attrs)

    @property
    def is_ssa(self) -> bool:
        return bool(self.results)

    def print(self, printer: Printer) -> None:
        if self.results:
            return print_ssa(printer, list(self.operands), dict(self.attributes), list(self.results))
        ins, outs = self.split_operands()
        print_group(printer, "ins", ins)
        if outs:
            print_group(printer, "outs", outs)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(dict(self.attributes))

    def split_operands(self) -> tuple[list[SSAValue], list[SSAValue]]:
        """The DPS operands as (ins, outs), each in text order."""
        n_out = len(self.RECORD.outputs)
        values = list(self.operands)
        return values[:len(values) - n_out], values[len(values) - n_out:]

    # --- operands by role ------------------------------------------------------------------------------------
    def roles(self) -> tuple[int, list[tuple[Operand, SSAValue]]]:
        """The form the operands match and (operand, value) pairs in C++ order."""
        rec = self.RECORD
        values = list(self.operands)
        if self.results:  # SSA: every operand is an input, the results are the outputs
            ins, outs = values, list(self.results)
        else:
            ins, outs = self.split_operands()
        for index, form in rec.text_forms:
            inputs = [o for o in form if not o.out]
            required = [o for o in inputs if not o.optional]
            if not len(required) <= len(ins) <= len(inputs):
                continue
            if all((o.kind == "tile") == _is_tile(v) for o, v in zip(inputs, ins, strict=False)):
                pairs = list(zip(inputs, ins, strict=False)) + list(zip(rec.outputs, outs, strict=True))
                return index, pairs
        hint = _api_only_hint(rec, len(ins))
        self.fail_text(f"operands do not match {rec.signature}" if hint is None else
                       f"expects {_text_counts(rec)} input operands, got {len(ins)}: {hint}")

    def fail_text(self, text: str) -> Any:
        raise VerifyException(f"'{self.name}' op {text}")

    def core_attrs(self) -> dict[str, Enum]:
        return {a.name: core_attr(a, self.attributes.get(a.text_name)) for a in self.RECORD.attrs}

    def skips_verification(self) -> bool:
        if any(is_memref(o.type) for o in self.operands):
            self.verify_types()  # PTOAS checks these before it lets a memref (April) op through
            return True
        return False

    def verify_form(self) -> None:
        self.verify_types()

    def verify_types(self) -> None:
        """The record's `text_rule`, if any: element types and attributes that PTOAS checks on every form."""
        rule = self.RECORD.text_rule
        if rule is None:
            return
        _, pairs = self.roles()
        types = {o.name: type_text(getattr(v.type, "element_type", v.type)) for o, v in pairs if o.kind == "tile"}
        problem = rule(types, self.core_attrs())
        if problem:
            self.fail_text(problem)

    def verify_structure(self, arch: Any) -> None:
        form, pairs = self.roles()
        for operand, value in pairs:
            if operand.kind == "tile" and not isinstance(value.type, _SSA_TILES if self.results else TileBufType):
                self.fail("v.tile" if self.results else "v.tile_buf", x=operand.name)
            if operand.kind == "scalar" and operand.fixed is not None:
                if not isinstance(value.type, IntegerType | IndexType):
                    self.fail("v.scalar", index=list(self.operands).index(value), type=type_text(value.type))
            elif operand.kind == "scalar" and not is_scalar(value.type):
                index = list(self.operands).index(value)
                self.fail("v.scalar", index=index, type=type_text(value.type))
        config = config_of(self)
        specs = {o.name: spec_of(self, o.name, v) for o, v in pairs if o.kind == "tile"}
        rec = self.RECORD
        try:
            plan = rec.plan(config, tuple(specs.items()), tuple(self.core_attrs().items()), form)
            sized = {k: _Sized(s, s.valid_row, s.valid_col) for k, s in specs.items()}
            if rec.dynamic is not None and all(DYNAMIC not in t.valid_shape for t in sized.values()):
                rec.dynamic(Check(rec.name, config.name), plan, sized)  # type: ignore[arg-type]
        except (IllegalInstructionError, UndefinedBehaviourError) as exc:
            raise VerifyException(str(exc)) from None

    @classmethod
    def split_attrs(cls, attrs: Mapping[str, Attribute]) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        return {}, dict(attrs)


def _input_counts(rec: Instruction) -> list[int]:
    """The numbers of input operands the text forms take (optional trailing ones left out or given)."""
    forms = [f for _, f in rec.text_forms]
    return sorted({len([o for o in f if not o.out and not o.optional]) for f in forms}
                  | {len([o for o in f if not o.out]) for f in forms})


def _text_counts(rec: Instruction) -> str:
    return " or ".join(map(str, _input_counts(rec)))


def _api_only_hint(rec: Instruction, inputs: int) -> str | None:
    """What to say when `inputs` operands fit only a form the C++ API has and the text does not (`api_only`):
    that form, and the text forms to write instead; None when they fit a text form too, or no form."""
    def fits(form: tuple[Operand, ...]) -> bool:
        ins = [o for o in form if not o.out]
        return sum(not o.optional for o in ins) <= inputs <= len(ins)

    if not any(fits(rec.forms[i]) for i in rec.api_only) or any(fits(f) for _, f in rec.text_forms):
        return None
    overloads = rec.signature.split(" | ")
    api = "; ".join(overloads[i] for i in rec.api_only)
    text = "; ".join(f"{rec.mnemonic} ins({', '.join('%' + o.name for o in f if not o.out)}) "
                     f"outs({', '.join('%' + o.name for o in f if o.out)})" for _, f in rec.text_forms)
    return f"the C++ overload {api} has no text form (PTOAS spells only {text})"


_SSA_TILES = (PtoTileType, TileBufType)  # a value-returning op in a DPS function names !pto.tile_buf types


def _is_tile(value: SSAValue) -> bool:
    return isinstance(value.type, TileBufType | PtoTileType) or is_memref(value.type)


class MergeSortOp(RecordOp):
    """`pto.tmrgsort`, PTOAS's two formats (lib/PTO/IR/PTO.cpp TMrgSortOp::parse/print):

        pto.tmrgsort ins(%src, %blockLen : T, i32) outs(%dst : T)
        pto.tmrgsort ins(%src0, %src1[, %src2[, %src3]], %tmp {exhausted = false} : T0, T1, ..., Ttmp)
            outs(%dst, %executed : T, vector<4xi16>)

    The operands are kept in text order (sources, blockLen or tmp, then dst and executed); `roles` maps them to
    the C++ order `(dst, src, blockLen)` / `(dst, executedNumList, tmp, src0, ...)`. `exhausted` is an i1
    attribute (absent: false)."""

    @classmethod
    def parse(cls, parser: Parser) -> RecordOp:
        ins = parse_group(parser, "ins", inner_attrs=True)
        outs = parse_group(parser, "outs")
        attrs = merge_attrs(parser, ins.attrs, parser.parse_optional_attr_dict())
        if len(outs.operands) == 1:
            if len(ins.operands) != 2:
                parser.raise_error("pto.tmrgsort format1 expects ins(%src, %blockLen : T, i32)", ins.start, ins.end)
        elif len(outs.operands) == 2:
            if not 3 <= len(ins.operands) <= 5:
                parser.raise_error("tmrgsort format2 expects 2 to 4 src operands plus one tmp operand", ins.start,
                                   ins.end)
        else:
            parser.raise_error("pto.tmrgsort outs(...) expects %dst, or %dst and %executed", outs.start, outs.end)
        if "exhausted" in attrs and not _is_bool(attrs["exhausted"]):
            parser.raise_error("pto.tmrgsort: exhausted must be true or false")
        operands = [*resolve_group(parser, ins), *resolve_group(parser, outs)]
        return cls.create(operands=operands, attributes=attrs)

    def print(self, printer: Printer) -> None:
        values = list(self.operands)
        attrs = dict(self.attributes)
        exhausted = attrs.pop("exhausted", None)
        if len(values) == 3:
            print_group(printer, "ins", values[:2])
            print_group(printer, "outs", values[2:])
        else:
            flag = "true" if exhausted is not None and _bool_of(exhausted) else "false"
            ins = values[:-2]
            printer.print_string(" ins(")
            printer.print_list(ins, printer.print_operand)
            printer.print_string(f" {{exhausted = {flag}}} : ")
            printer.print_list([v.type for v in ins], printer.print_attribute)
            printer.print_string(")")
            print_group(printer, "outs", values[-2:])
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(attrs)

    def roles(self) -> tuple[int, list[tuple[Operand, SSAValue]]]:
        rec = self.RECORD
        values = list(self.operands)
        if len(values) == 3:
            form = 0
            ordered = [values[2], values[0], values[1]]
        elif 5 <= len(values) <= 7:
            form = len(values) - 4
            sources, tmp_value, dst_value, executed = values[:-3], values[-3], values[-2], values[-1]
            ordered = [dst_value, executed, tmp_value, *sources]
        else:
            self.fail_text(f"operands do not match {rec.signature}")
        return form, list(zip(rec.forms[form], ordered, strict=True))

    def core_attrs(self) -> dict[str, Enum]:
        value = self.attributes.get("exhausted")
        flag = value is not None and _bool_of(value)
        attr = self.RECORD.attrs[0]
        return {attr.name: attr.coerce(flag, Check(self.RECORD.name, "cpu"))}

    def verify_structure(self, arch: Any) -> None:
        form, pairs = self.roles()
        for operand, value in pairs:
            if operand.kind == "struct":
                t = value.type
                if not (isinstance(t, VectorType) and t.get_shape() == (4,) and isinstance(t.element_type, IntegerType)
                        and t.element_type.width.data == 16):
                    self.fail_text(f"format2 excuted must be vector<4xi16> (got {type_text(t)})")
        if form and not self.results:
            dst_t, tmp_t = pairs[0][1].type, pairs[2][1].type
            if isinstance(dst_t, TileBufType) and isinstance(tmp_t, TileBufType) and \
                    dst_t.shape != tmp_t.shape:
                self.fail_text("format2 expects dst/tmp shapes to match")
        super().verify_structure(arch)


def _is_bool(attr: Attribute) -> bool:
    return isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data == 1


def _bool_of(attr: Attribute) -> bool:
    return bool(attr.value.data) if isinstance(attr, IntegerAttr) else False  # type: ignore[attr-defined]


class MoveOp(RecordOp):
    """`pto.tmov` (TMovOp): `ins(%src : T) outs(%dst : D)`, with PTOAS's optional quantisation operand written
    with its own type, `ins(%src : T, %fp : F)` (an fp tile, one word per column) or `ins(%src : T, %pre : i64)`
    (a scalar word). PTOAS's generic form orders the operands (src, dst, fp, preQuantScalar) with
    `operandSegmentSizes`; such an op is read in that order and printed in the custom form."""

    # what PTOAS's generic form puts in `<{...}>`
    segments = opt_prop_def(Attribute, prop_name=SEGMENTS)
    relu_pre_mode = opt_prop_def(Attribute, prop_name="reluPreMode")
    acc_to_vec_mode = opt_prop_def(Attribute, prop_name="accToVecMode")

    def split_operands(self) -> tuple[list[SSAValue], list[SSAValue]]:
        values = list(self.operands)
        segments = self.properties.get(SEGMENTS) or self.attributes.get(SEGMENTS)
        if segments is None:
            return super().split_operands()
        sizes = list(segments.get_values())  # type: ignore[attr-defined]
        if len(sizes) != 4 or sum(sizes) != len(values) or sizes[:2] != [1, 1] or sizes[2] + sizes[3] > 1:
            self.fail_text(f"operandSegmentSizes {sizes} do not match (src, dst, fp, preQuantScalar)")
        return [values[0], *values[2:]], [values[1]]

    def print(self, printer: Printer) -> None:
        if self.results:
            return super().print(printer)
        ins, outs = self.split_operands()
        (print_group if len(ins) == 1 else print_each)(printer, "ins", ins)
        print_group(printer, "outs", outs)
        if attrs := self.all_attrs():
            printer.print_string(" ")
            printer.print_attr_dict(attrs)

    def all_attrs(self) -> dict[str, Attribute]:
        """Attributes, and the properties a generic `<{...}>` gave (without the segment sizes)."""
        return {**{k: v for k, v in self.properties.items() if k != SEGMENTS}, **self.attributes}

    def core_attrs(self) -> dict[str, Enum]:
        attrs = self.all_attrs()
        return {a.name: core_attr(a, attrs.get(a.text_name)) for a in self.RECORD.attrs}

    def verify_(self) -> None:
        if len(self.operands) == 3 and not self.results:
            ins, _ = self.split_operands()
            extra = ins[1].type
            if not _is_tile(ins[1]) and not (isinstance(extra, IntegerType) and extra.width.data == 64):
                self.fail_text(f"operand #{list(self.operands).index(ins[1])} must be 64-bit signless integer, "
                               f"but got '{type_text(extra)}'")
        super().verify_()


def print_each(printer: Printer, keyword: str, values: list[SSAValue]) -> None:
    """` keyword(%a : T, %b : U)`: PTOAS's spelling when optional operands follow."""
    printer.print_string(f" {keyword}(")
    for i, value in enumerate(values):
        if i:
            printer.print_string(", ")
        printer.print_operand(value)
        printer.print_string(" : ")
        printer.print_attribute(value.type)
    printer.print_string(")")


class RandomOp(RecordOp):
    """`pto.trandom`, PTOAS's format (include/PTO/IR/PTOOps.td TRandomOp): six 32-bit words, the attributes inside
    `ins(...)` before the colon:

        pto.trandom ins(%k0, %k1, %c0, %c1, %c2, %c3 {rounds = 7 : i32} : i32, i32, i32, i32, i32, i32)
            outs(%dst : !pto.tile_buf<...>)

    It is the record's scalar form `TRANDOM(dst, key0, key1, counter0, ..., counter3)` (PTOAS's helper builds the
    TRandomKey and TRandomCounter from the words); `rounds` (7 or 10, default 10) is the template argument."""

    @classmethod
    def parse(cls, parser: Parser) -> RecordOp:
        if not at_keyword(parser, "ins"):  # SSA: %d = pto.trandom %k0, ..., %c3 : (i32, ...) -> !pto.tile<...>
            return super().parse(parser)
        ins = parse_group(parser, "ins", inner_attrs=True)
        outs = parse_group(parser, "outs")
        attrs = merge_attrs(parser, ins.attrs, parser.parse_optional_attr_dict())
        if len(ins.operands) != 6:
            parser.raise_error(f"pto.trandom ins(...) expects 6 operands (key0, key1, counter0..counter3), got "
                               f"{len(ins.operands)}", ins.start, ins.end)
        if len(outs.operands) != 1:
            parser.raise_error("pto.trandom outs(...) expects 1 operand", outs.start, outs.end)
        return cls.create(operands=[*resolve_group(parser, ins), *resolve_group(parser, outs)], attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.results:
            return super().print(printer)
        values = list(self.operands)
        words = values[:-1]
        printer.print_string(" ins(")
        printer.print_list(words, printer.print_operand)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(dict(self.attributes))
        printer.print_string(" : ")
        printer.print_list([v.type for v in words], printer.print_attribute)
        printer.print_string(")")
        print_group(printer, "outs", values[-1:])

    def roles(self) -> tuple[int, list[tuple[Operand, SSAValue]]]:
        values = list(self.operands)
        ordered = [self.results[0], *values] if len(self.results) == 1 else [values[-1], *values[:-1]]
        if len(ordered) != 7:
            self.fail_text(f"operands do not match {self.RECORD.signature.split(' | ')[1]}")
        return 1, list(zip(self.RECORD.forms[1], ordered, strict=True))

    def verify_structure(self, arch: Any) -> None:
        for operand, value in self.roles()[1]:
            if operand.kind == "scalar" and not (isinstance(value.type, IntegerType) and
                                                 value.type.width.data == 32):
                self.fail_text(f"expects {operand.name} to be i32/ui32 (got {type_text(value.type)})")
        super().verify_structure(arch)


class HistogramOp(RecordOp):
    """`pto.thistogram ins(%src, %idx : S, I) outs(%dst : D) {isMSB = false}` (PTOAS's THistogramOp): `isMSB`
    (default true) is C++'s `HistByte::BYTE_1` (a uint16 source's high byte), false `BYTE_0`. PTOAS's verifier
    also wants a 16-bit src, an 8-bit idx in DN layout with one column and as many rows as src, and a dst with as
    many rows and at least 256 columns; ptoisa checks the same here, and the record's rules as for any call."""

    def core_attrs(self) -> dict[str, Enum]:
        value = self.attributes.get("isMSB")
        if value is not None and not _is_bool(value):
            self.fail_text(f"isMSB must be true or false (got {type_text(value)})")
        msb = value is None or _bool_of(value)
        attr = self.RECORD.attrs[0]
        return {attr.name: attr.coerce(1 if msb else 0, Check(self.RECORD.name, "cpu"))}

    def verify_structure(self, arch: Any) -> None:
        _, pairs = self.roles()
        specs = {o.name: spec_of(self, o.name, v) for o, v in pairs if o.kind == "tile"}
        if specs:
            s, i, d = specs["src"], specs["idx"], specs["dst"]
            if s.dtype.itemsize != 2 or s.dtype.is_float:
                self.fail_text(f"expects src element type to be ui16 (got {s.dtype.cname})")
            if i.blayout.name != "ColMajor" or i.slayout.name != "NoneBox":
                self.fail_text("expects idx to use DN layout (col_major + none_box)")
            if s.rows != i.rows or DYNAMIC not in (s.valid_row, i.valid_row) and s.valid_row != i.valid_row:
                self.fail_text("expects idx rows and valid rows to match src")
            if s.rows != d.rows or DYNAMIC not in (s.valid_row, d.valid_row) and s.valid_row != d.valid_row:
                self.fail_text("expects dst rows and valid rows to match src")
            if i.cols != 1 or i.valid_col not in (1, DYNAMIC):
                self.fail_text("expects idx to have exactly one column")
            if d.cols < 256 or d.valid_col != DYNAMIC and d.valid_col < 256:
                self.fail_text("expects dst shape[1] and valid_shape[1] to be at least 256")
        super().verify_structure(arch)


class ScaleAddrOp(RecordOp):
    """`pto.tget_scale_addr ins(%src : S) outs(%dst : D)`: PTOAS also wants dst in the scaling address space
    with src's shape and valid shape (lib/PTO/IR/PTO.cpp verifyScaleTileMatchesOperand)."""

    def verify_structure(self, arch: Any) -> None:
        _, pairs = self.roles()
        types = {o.name: v.type for o, v in pairs}
        d, s = types.get("dst"), types.get("src")
        if isinstance(d, TileBufType) and isinstance(s, TileBufType):
            ds, ss = spec_of(self, "dst", d), spec_of(self, "src", s)
            if ds.loc.name != "Scaling":
                self.fail_text("expects dst to be in the scaling address space")
            if (ds.rows, ds.cols) != (ss.rows, ss.cols):
                self.fail_text("expects dst and src to have the same shape")
            if any(a != b and DYNAMIC not in (a, b) for a, b in
                   ((ds.valid_row, ss.valid_row), (ds.valid_col, ss.valid_col))):
                self.fail_text("expects dst and src to have the same valid_shape")
        super().verify_structure(arch)


_CUSTOM: dict[str, type[RecordOp]] = {"TMRGSORT": MergeSortOp, "TMOV": MoveOp, "TRANDOM": RandomOp,
                                      "THISTOGRAM": HistogramOp, "TGET_SCALE_ADDR": ScaleAddrOp}
"""Records whose PTOAS text is not the generic `ins(inputs) outs(outputs)` in C++ order."""


def _make(rec: Instruction) -> type[RecordOp]:
    body = {"name": rec.mnemonic, "args": var_operand_def(), "res": var_result_def(), "RECORD": rec,
            "__doc__": f"{rec.name}: {rec.summary}\n\n    {rec.mnemonic} ins(...) outs(...)   ({rec.signature})",
            "__module__": __name__, "__annotations__": {"RECORD": ClassVar[Instruction]}}
    cls = type(f"{rec.name.title()}Op", (_CUSTOM.get(rec.name, RecordOp),), body)
    return irdl_op_definition(cls)


RECORD_OPS: tuple[type[RecordOp], ...] = tuple(_make(rec) for name, rec in sorted(REGISTRY.items())
                                               if rec.generated)
"""One op class per registered vector instruction (the seeds' five have hand-written classes in ops.py)."""
