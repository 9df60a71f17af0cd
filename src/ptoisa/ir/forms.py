"""Conversions between the text levels of the five ops: SSA (Level 1) and DPS (Level 2), and the PTO-AS printer.

    to_dps(module)   every SSA op gets a `pto.alloc_tile` per tile result (the Level-1 -> Level-2 step);
                     `!pto.tile` values (function arguments too) become `!pto.tile_buf`
    to_ssa(module)   every DPS op whose outs tiles are written once and never aliased becomes an SSA op; anything
                     else is refused with a ConversionError naming the op and the reason
    print_asm(module)  the SSA text with the five ops' `pto.` prefix dropped

Both conversions work in place and are all-or-nothing: `to_ssa` checks every op before changing anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, OpResult, Operation, SSAValue

from .abstract_ops import DpsOp
from .ops import FIVE_OPS, TCIOp, TCmpsOp, TExpandsOp, TGatherOp, TPartMulOp
from .support_ops import AllocTileOp
from .types import PtoTileType, TileBufType, _TileTypeBase


class ConversionError(Exception):
    """A construct the target form cannot express: the op and why."""

    def __init__(self, op: Operation, reason: str) -> None:
        super().__init__(f"cannot convert '{op.name}': {reason}")
        self.op = op
        self.reason = reason


def _as(cls: type[_TileTypeBase], t: Attribute) -> Attribute:
    return cls.new(t.parameters) if isinstance(t, _TileTypeBase) and not isinstance(t, cls) else t


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a tile value"


def _outs(op: DpsOp) -> list[SSAValue]:
    from .record_ops import RecordOp

    if isinstance(op, RecordOp):
        n_out = len(op.RECORD.outputs)
        return list(op.operands)[len(op.operands) - n_out:]
    outs = [op.dst] if op.dst is not None else []  # an SSA-form op has no outs operand
    if isinstance(op, TGatherOp) and op.cdst is not None:
        outs.append(op.cdst)
    return outs


def _ins(op: DpsOp) -> list[SSAValue]:
    outs = _outs(op)
    return [v for v in op.operands if v not in outs]  # an out that is also read is refused by _check_written_once


def _five(op: Operation) -> TypeGuard[DpsOp]:
    """An op with both forms: the seeds' five and every record-built op."""
    from .record_ops import RecordOp

    return isinstance(op, FIVE_OPS + (RecordOp,))


# --- SSA -> DPS ----------------------------------------------------------------------------------------------
def to_dps(module: ModuleOp, moved: dict[int, Operation] | None = None) -> ModuleOp:
    """Give every SSA-form op an allocated destination; retype `!pto.tile` values to `!pto.tile_buf`.
    `moved`, when given, maps id(old op) -> its DPS replacement (so source locations can follow)."""
    ssa_ops = [op for op in module.walk() if _five(op) and op.is_ssa]
    for op in ssa_ops:
        for i, result in enumerate(op.results):
            t = result.type
            if isinstance(t, _TileTypeBase) and -1 in t.valid_shape:
                raise ConversionError(op, f"result #{i} has a dynamic valid shape ({_text(t)}): its pto.alloc_tile "
                                          "would need valid_row/valid_col values the SSA form does not have")
    for op in ssa_ops:
        block = op.parent_block()
        assert block is not None  # found by walking the module: inside one of its blocks
        allocs: list[OpResult] = []
        for result in op.results:
            alloc = AllocTileOp.build(operands=[[], [], []], result_types=[_as(TileBufType, result.type)])
            alloc.result.name_hint = result.name_hint
            block.insert_op_before(alloc, op)
            allocs.append(alloc.result)
        new = _dps_op(op, allocs)
        block.insert_op_before(new, op)
        if moved is not None:
            moved[id(op)] = new
            for value in allocs:
                moved.setdefault(-id(value.owner), value.owner)
        for result, value in zip(op.results, allocs, strict=True):
            result.replace_all_uses_with(value)
        op.detach()
        op.erase()
    _retype(module, TileBufType)
    return module


def _dps_op(op: DpsOp, outs: Sequence[SSAValue]) -> Operation:
    from .record_ops import RecordOp

    props = dict(op.properties)
    props.pop("operandSegmentSizes", None)
    attrs = dict(op.attributes)
    if isinstance(op, RecordOp):
        return type(op).create(operands=[*op.operands, *outs], attributes=attrs)
    if isinstance(op, TCmpsOp):
        return TCmpsOp.create(operands=[op.src, op.scalar, outs[0]], properties=props, attributes=attrs)
    if isinstance(op, TCIOp):
        return TCIOp.build(operands=[op.scalar, [op.tmp] if op.tmp else [], [outs[0]]], result_types=[[]],
                           properties=props, attributes=attrs)
    if isinstance(op, TExpandsOp):
        return TExpandsOp.create(operands=[op.scalar, outs[0]], properties=props, attributes=attrs)
    if isinstance(op, TPartMulOp):
        return TPartMulOp.create(operands=[op.src0, op.src1, outs[0]], properties=props, attributes=attrs)
    assert isinstance(op, TGatherOp)
    opt = lambda v: [v] if v is not None else []
    return TGatherOp.build(operands=[op.src, [outs[0]], outs[1:], opt(op.indices), opt(op.tmp), opt(op.k_value)],
                           result_types=[[]], properties=props, attributes=attrs)


# --- DPS -> SSA ----------------------------------------------------------------------------------------------
@dataclass
class _Plan:
    op: DpsOp
    outs: list[SSAValue]


def to_ssa(module: ModuleOp) -> ModuleOp:
    """Turn every DPS-form op into its SSA form, or raise ConversionError (nothing is changed then)."""
    plans = [_plan(op) for op in module.walk() if _five(op) and not op.is_ssa]
    for plan in plans:
        op = plan.op
        result_types = [_as(PtoTileType, v.type) for v in plan.outs]
        new = _ssa_op(op, result_types)
        block = op.parent_block()
        assert block is not None  # found by walking the module: inside one of its blocks
        block.insert_op_before(new, op)
        for value, result in zip(plan.outs, new.results, strict=True):
            result.name_hint = value.name_hint
            for use in list(value.uses):
                if use.operation is not op:
                    use.operation.operands[use.index] = result
        op.detach()
        op.erase()
    for plan in plans:
        for value in plan.outs:
            owner = value.owner
            if isinstance(owner, AllocTileOp) and not owner.result.uses and owner.parent is not None:
                owner.detach()
                owner.erase()
    _retype(module, PtoTileType)
    return module


def _plan(op: DpsOp) -> _Plan:
    if any(not isinstance(v.type, TileBufType) for v in op.operands if isinstance(v.type, _TileTypeBase)):
        raise ConversionError(op, "mixes !pto.tile and !pto.tile_buf operands")
    outs = _outs(op)
    for value in outs:
        _check_written_once(op, value)
    for value in _ins(op):
        if isinstance(value.type, TileBufType):
            _check_input(op, value)
    return _Plan(op, outs)


def _check_written_once(op: DpsOp, value: SSAValue) -> None:
    name = _name(value)
    if isinstance(value, BlockArgument):
        raise ConversionError(op, f"it writes {name}, a block argument: the write is visible outside the block "
                                  "(only tiles from pto.alloc_tile have an SSA form)")
    owner = value.owner
    assert isinstance(owner, Operation)  # an op's result: block arguments are refused above
    if not isinstance(owner, AllocTileOp):
        raise ConversionError(op, f"it writes {name}, which {owner.name} defines (only tiles from pto.alloc_tile "
                                  "have an SSA form)")
    if owner.addr is not None:
        raise ConversionError(op, f"it writes {name}, allocated at a fixed address (addr = ...): other tiles may "
                                  "alias it")
    if owner.valid_row is not None or owner.valid_col is not None:
        raise ConversionError(op, f"it writes {name}, whose valid sizes are set at run time (valid_row/valid_col)")
    if list(op.operands).count(value) > 1:
        raise ConversionError(op, f"it reads and writes {name} in place: the value it reads has no SSA name")
    for use in value.uses:
        user = use.operation
        if user is op:
            continue
        if _five(user) and not user.is_ssa and value in _outs(user):
            raise ConversionError(op, f"{name} is written more than once (also by '{user.name}'): a tile written "
                                      "more than once has no single SSA value")
        if _five(user) or isinstance(user, ReturnOp):
            if not _after(op, user):
                raise ConversionError(user, f"it reads {name} before '{op.name}' writes it")
            continue
        raise ConversionError(op, f"{name} is also used by '{user.name}', which has no SSA form (the tile would be "
                                  "aliased or written outside the SSA value)")


def _check_input(op: DpsOp, value: SSAValue) -> None:
    """An input tile must be a function argument nobody writes, or an alloc_tile written by an instruction that
    has an SSA form."""
    if isinstance(value, BlockArgument):
        for use in value.uses:
            user = use.operation
            if not (_five(user) or isinstance(user, ReturnOp)) or (_five(user) and value in _outs(user)):
                raise ConversionError(user, f"it writes or aliases {_name(value)}, a block argument read by "
                                            f"'{op.name}'")
        return
    owner = value.owner
    assert isinstance(owner, Operation)  # an op's result: block arguments returned above
    if isinstance(owner, AllocTileOp):
        writers = [u.operation for u in value.uses if _five(u.operation) and value in _outs(u.operation)]
        if not writers:
            raise ConversionError(op, f"it reads {_name(value)}, which no instruction with an SSA form writes "
                                      "(data movement such as tload has none; in SSA form a tile value must be "
                                      "computed before it is read)")
        return
    if not (isinstance(owner, Operation) and _five(owner)):
        raise ConversionError(op, f"it reads {_name(value)}, which '{owner.name}' defines and which has no SSA form")


def _after(first: Operation, second: Operation) -> bool:
    """Whether `second` comes after `first` in program order (same block, or nested in a later op)."""
    block = first.parent_block()
    node: Operation | None = second
    while node is not None and node.parent_block() is not block:
        node = node.parent_op()
    if node is None or block is None:
        return False
    return block.get_operation_index(node) > block.get_operation_index(first)


def _ssa_op(op: DpsOp, result_types: list[Attribute]) -> Operation:
    from .record_ops import RecordOp

    if isinstance(op, RecordOp):
        n_out = len(op.RECORD.outputs)
        return type(op).create(operands=list(op.operands)[:len(op.operands) - n_out], result_types=result_types,
                               attributes=dict(op.attributes))
    props = dict(op.properties)
    props.pop("operandSegmentSizes", None)
    if isinstance(op, TGatherOp) and props.get("axis") == StringAttr("row"):
        del props["axis"]  # the default axis: the August DPS printer always writes it, the SSA form omits it
    attrs = dict(op.attributes)
    if isinstance(op, TCmpsOp):
        return TCmpsOp.create(operands=[op.src, op.scalar], result_types=result_types, properties=props,
                              attributes=attrs)
    if isinstance(op, TCIOp):
        return TCIOp.build(operands=[op.scalar, [op.tmp] if op.tmp else [], []], result_types=[result_types],
                           properties=props, attributes=attrs)
    if isinstance(op, TExpandsOp):
        return TExpandsOp.create(operands=[op.scalar], result_types=result_types, properties=props,
                                 attributes=attrs)
    if isinstance(op, TPartMulOp):
        return TPartMulOp.create(operands=[op.src0, op.src1], result_types=result_types, properties=props,
                                 attributes=attrs)
    assert isinstance(op, TGatherOp)
    opt = lambda v: [v] if v is not None else []
    return TGatherOp.build(operands=[op.src, [], [], opt(op.indices), opt(op.tmp), opt(op.k_value)],
                           result_types=[result_types], properties=props, attributes=attrs)


# --- retyping ------------------------------------------------------------------------------------------------
def _retype(module: ModuleOp, cls: type[_TileTypeBase]) -> None:
    """Block arguments of the other tile type become `cls`; function signatures follow their blocks."""
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                _retype_block(block, cls)
    for op in module.walk():
        if isinstance(op, FuncOp) and op.body.blocks:
            entry = op.body.blocks.first
            assert entry is not None  # the body has blocks
            outputs = list(op.function_type.outputs.data)
            ret = entry.last_op if isinstance(entry.last_op, ReturnOp) else None
            if ret is not None:
                outputs = [v.type for v in ret.operands]
            op.function_type = FunctionType.from_lists([a.type for a in entry.args], outputs)


def _retype_block(block: Block, cls: type[_TileTypeBase]) -> None:
    for arg in block.args:
        new = _as(cls, arg.type)
        if new is not arg.type:
            arg._type = new


def _text(t: Attribute) -> str:
    from .abstract_ops import type_text

    return type_text(t)


# --- printing ------------------------------------------------------------------------------------------------
_ASM_LINE = re.compile(r"^(\s*%[^=\n]*= )pto\.(tcmps|tci|tpartmul|texpands|tgather) ", re.MULTILINE)


def print_asm(module: ModuleOp) -> str:
    """The PTO-AS assembly text: the SSA form with the five ops' `pto.` prefix dropped."""
    from . import print_module

    return _ASM_LINE.sub(r"\1\2 ", print_module(module))


def has_form(module: ModuleOp, ssa: bool) -> bool:
    return any(_five(op) and op.is_ssa == ssa for op in module.walk())


__all__ = ["ConversionError", "has_form", "print_asm", "to_dps", "to_ssa"]
