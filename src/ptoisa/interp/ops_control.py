"""func and scf: calls, loops and conditionals."""

from __future__ import annotations

from time import monotonic
from typing import Any

from xdsl.ir import Operation

from . import batch, decode
from .decode import FunctionDecoder, Step, Steps, charge, handler, locate, loop_turns, time_out
from .errors import LimitError


@handler("func.call")
def _call(d: FunctionDecoder, op: Operation) -> Step:
    callee = d.program.compiled_function(op.callee.string_value(), op, d)  # type: ignore[attr-defined]
    args = [d.use(v) for v in op.operands]
    results = [d.define(r) for r in op.results]

    def step(regs: list[Any]) -> None:
        env = regs[0]
        if env.depth >= MAX_CALL_DEPTH:
            raise LimitError(f"calls nest more than {MAX_CALL_DEPTH} deep (a recursion that does not end?); "
                             "nothing past this point ran")
        env.depth += 1
        try:
            values = callee.call(env, [regs[a] for a in args])
        finally:
            env.depth -= 1
        for slot, value in zip(results, values, strict=True):
            regs[slot] = value

    return step


MAX_CALL_DEPTH = 100
"""func.call nesting allowed in one run (each level costs several Python frames)."""


@handler("scf.for")
def _for(d: FunctionDecoder, op: Operation) -> Step:
    lb, ub, st = d.use(op.lb), d.use(op.ub), d.use(op.step)  # type: ignore[attr-defined]
    inits = [d.use(v) for v in op.iter_args]  # type: ignore[attr-defined]
    block = op.body.block  # type: ignore[attr-defined]
    iv, *carried = [d.define(a) for a in block.args]
    body, term = d.block(block, "scf.yield")
    yields = [d.use(v) for v in term.operands] if term is not None else []
    results = [d.define(r) for r in op.results]
    n = body.ops
    looped = decode.fuse_loop(body, lb, ub, st, iv, inits, carried, yields, results, iv)
    if not inits:  # a body whose ops all have a batch form runs all its turns at once where it can (batch.py)
        return batch.plan_loop(d, op, looped if looped is not None else _simple_for(lb, ub, st, iv, body, n),
                               lb, ub, st, iv, n)
    if looped is not None:  # a body of statements only: the loop written with them (one function)
        return looped
    if len(inits) == 1 and len(carried) == 1 and len(yields) == 1 and len(results) == 1:
        return _one_carried_for(lb, ub, st, iv, body, n, inits[0], carried[0], yields[0], results[0])

    def step(regs: list[Any]) -> None:
        turns, deadline = loop_turns(regs, lb, ub, st, n)
        values = [regs[s] for s in inits]
        s = None
        try:
            for k in turns:
                if deadline and monotonic() > deadline:
                    s = None  # the loop itself is where the run stops
                    raise time_out(regs[0])
                regs[iv] = k
                for slot, v in zip(carried, values):
                    regs[slot] = v
                for s in body:
                    s(regs)
                values = [regs[y] for y in yields]
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]
        for slot, v in zip(results, values):
            regs[slot] = v

    return step


def _one_carried_for(lb: int, ub: int, st: int, iv: int, body: list[Step], n: int, init: int, carried: int,
                     yielded: int, result: int) -> Step:
    """`scf.for` with one iter_arg (a running sum, offset or start value): the general loop without its lists."""

    def step(regs: list[Any]) -> None:
        turns, deadline = loop_turns(regs, lb, ub, st, n)
        value = regs[init]
        s = None
        try:
            for k in turns:
                if deadline and monotonic() > deadline:
                    s = None  # the loop itself is where the run stops
                    raise time_out(regs[0])
                regs[iv] = k
                regs[carried] = value
                for s in body:
                    s(regs)
                value = regs[yielded]
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]
        regs[result] = value

    return step


def _simple_for(lb: int, ub: int, st: int, iv: int, body: list[Step], n: int) -> Step:
    """`scf.for` without iter_args; a body of one step (e.g. the whole body fused) is called without the inner
    loop over steps."""
    if len(body) == 1:
        return _one_step_for(lb, ub, st, iv, body[0], n)
    return _loop_for(lb, ub, st, iv, body, n)


def _loop_for(lb: int, ub: int, st: int, iv: int, body: list[Step], n: int) -> Step:
    def step(regs: list[Any]) -> None:
        turns, deadline = loop_turns(regs, lb, ub, st, n)
        s = None
        try:
            for k in turns:
                if deadline and monotonic() > deadline:
                    s = None  # the loop itself is where the run stops
                    raise time_out(regs[0])
                regs[iv] = k
                for s in body:
                    s(regs)
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]

    return step


def _one_step_for(lb: int, ub: int, st: int, iv: int, only: Step, n: int) -> Step:
    """`_loop_for` of a body of one step."""

    def step(regs: list[Any]) -> None:
        turns, deadline = loop_turns(regs, lb, ub, st, n)
        s: Step | None = only
        try:
            for k in turns:
                if deadline and monotonic() > deadline:
                    s = None  # the loop itself is where the run stops
                    raise time_out(regs[0])
                regs[iv] = k
                only(regs)
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]

    return step


@handler("scf.if")
def _if(d: FunctionDecoder, op: Operation) -> Step:
    cond = d.use(op.cond)  # type: ignore[attr-defined]
    then_steps, then_yield = _region(d, op.true_region)  # type: ignore[attr-defined]
    else_steps, else_yield = _region(d, op.false_region)  # type: ignore[attr-defined]
    results = [d.define(r) for r in op.results]
    branches = ((else_steps, else_yield, else_steps.ops), (then_steps, then_yield, then_steps.ops))

    def step(regs: list[Any]) -> None:
        steps, yields, ops = branches[1 if regs[cond] else 0]
        s = None
        try:
            for s in steps:
                s(regs)
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]
        regs[0].ops += ops
        for slot, y in zip(results, yields):
            regs[slot] = regs[y]

    return step


def _region(d: FunctionDecoder, region: Any) -> tuple[Steps, list[int]]:
    blocks = list(region.blocks)
    if not blocks:
        return Steps(), []
    steps, term = d.block(blocks[0], "scf.yield")
    return steps, [d.use(v) for v in term.operands] if term is not None else []


@handler("scf.while")
def _while(d: FunctionDecoder, op: Operation) -> Step:
    """`scf.while (%x = init) { before: ...; scf.condition(%c) %args } do { after(%args): ...; scf.yield %x' }`:
    the before region runs first each time; a true condition passes its arguments to the after region, whose
    yield starts the next turn; a false one ends the loop with them as the results. Each turn is charged
    against --max-steps and checked against --timeout."""
    inits = [d.use(v) for v in op.operands]
    before = op.before_region.block  # type: ignore[attr-defined]
    after = op.after_region.block  # type: ignore[attr-defined]
    if before.last_op is None or before.last_op.name != "scf.condition":
        raise d.fail(op, "scf.while: the before region must end with scf.condition")
    before_args = [d.define(a) for a in before.args]
    before_steps, condition = d.block(before, "scf.condition")
    assert condition is not None
    cond, *passed = [d.use(v) for v in condition.operands]
    after_args = [d.define(a) for a in after.args]
    after_steps, term = d.block(after, "scf.yield")
    yields = [d.use(v) for v in term.operands] if term is not None else []
    results = [d.define(r) for r in op.results]
    turn = before_steps.ops + after_steps.ops + 1

    def step(regs: list[Any]) -> None:
        values = [regs[s] for s in inits]
        s = None
        try:
            while True:
                charge(regs[0], turn)
                for slot, v in zip(before_args, values):
                    regs[slot] = v
                for s in before_steps:
                    s(regs)
                values = [regs[p] for p in passed]
                if not regs[cond]:
                    break
                for slot, v in zip(after_args, values):
                    regs[slot] = v
                for s in after_steps:
                    s(regs)
                values = [regs[y] for y in yields]
                s = None
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]
        for slot, v in zip(results, values):
            regs[slot] = v

    return step


@handler("pto.section.cube", "pto.section.vector")
def _section(d: FunctionDecoder, op: Operation) -> Step:
    """A mixed kernel's per-core part: its body runs in program order with the rest of the function."""
    steps, _ = d.block(op.regions[0].block, "")
    n = steps.ops

    def step(regs: list[Any]) -> None:
        s = None
        try:
            for s in steps:
                s(regs)
        except Exception as exc:  # noqa: BLE001 - located and re-raised
            raise locate(exc, s)  # type: ignore[arg-type]
        regs[0].ops += n

    return step
