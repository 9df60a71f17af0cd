"""Interpreter steps for every op built from an instruction record (`ptoisa.ir.record_ops`): one generic handler
reads the record's operand roles once at decode time; the step calls the record with the run's target."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from ..ir.record_ops import RECORD_OPS, RecordOp
from ..isa._check import SITE
from .decode import HANDLERS, FunctionDecoder, Step


def _record_step(d: FunctionDecoder, op: Operation) -> Step:
    assert isinstance(op, RecordOp)
    rec = op.RECORD
    form, pairs = op.roles()
    tiles, scalars = [], []
    reads, writes = [], []
    for operand, value in pairs:
        if isinstance(value.type, MemRefType):
            raise d.fail(op, "memref tile operands (April) are not executable; use !pto.tile_buf")
        (tiles if operand.kind == "tile" else scalars).append((operand.name, d.use(value)))
        if operand.kind == "tile" and operand.name != "tmp":
            (writes if operand.out else reads).append((operand.name, d.use(value)))
    attrs = op.core_attrs()
    where = f"{op.name} at {d.where(op)}"

    def step(regs: list[Any]) -> None:
        poison = regs[0].poison
        if poison is not None:
            for name, slot in reads:
                poison.check(regs[slot], name)
        token = SITE.set(where)
        try:
            rec.call(regs[0].config, {n: regs[s] for n, s in tiles}, {n: regs[s] for n, s in scalars}, attrs, form)
        finally:
            SITE.reset(token)
        if poison is not None:
            for _, slot in writes:
                poison.mark(regs[slot])

    return step


for _op in RECORD_OPS:
    if _op.name in HANDLERS:
        raise RuntimeError(f"two interpreter handlers for {_op.name}")
    HANDLERS[_op.name] = _record_step
