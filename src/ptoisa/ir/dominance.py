"""Def-before-use for the structured programs ptoisa runs: every operand must be defined before its use, in the
same block or in a block that encloses the use.

xDSL's parser accepts forward references and its verifier does not check dominance, so a program using a
value before its definition, or a loop-local value after its loop, would parse, "verify" and then fail at run
time. Blocks are treated as straight-line code: the programs here use structured control flow (scf), not
branches between blocks; a region with several blocks is not checked across its blocks.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, SSAValue


Positions = dict[int, dict[int, int]]
"""Each block's ops by position (id(block) -> id(op) -> index), made once per block by a check over a module
that does not change meanwhile: without it, placing a definition and its use costs a walk of their block,
and a block of n ops using one another costs n^2 steps (20,000 chained ops: ten minutes)."""


def undominated_operands(op: Operation, positions: Positions | None = None) -> list[tuple[SSAValue, str]]:
    """The operands of `op` whose definition does not come before `op`, each with the reason. `positions`: a
    dict the caller keeps for every op of one unchanged module (see Positions), or None."""
    problems = []
    for value in op.operands:
        reason = _problem(value, op, positions)
        if reason:
            problems.append((value, reason))
    return problems


def _problem(value: SSAValue, use: Operation, positions: Positions | None) -> str:
    if isinstance(value, BlockArgument):
        home: Block | None = value.block
        if _ancestor_in(use, home) is None:
            return "is used outside the region that defines it"
        return ""
    definer = value.owner
    if not isinstance(definer, Operation):
        return ""
    block = definer.parent_block()
    if block is None:
        return ""
    region = block.parent_region()
    if region is not None and len(region.blocks) > 1:
        return ""  # several blocks: dominance depends on the branches, not checked here
    anchor = _ancestor_in(use, block)
    if anchor is None:
        return "is used outside the region that defines it"
    if anchor is definer:
        return "is used inside the op that defines it"
    if _index(block, definer, positions) > _index(block, anchor, positions):
        return "is used before its definition"
    return ""


def _ancestor_in(op: Operation, block: Block | None) -> Operation | None:
    """`op` or the ancestor of `op` that sits directly in `block`, else None."""
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return current
        current = current.parent_op()
    return None


def _index(block: Block, op: Operation, positions: Positions | None) -> int:
    if positions is not None:
        table = positions.get(id(block))
        if table is None:
            table = positions[id(block)] = {id(candidate): i for i, candidate in enumerate(block.ops)}
        return table.get(id(op), -1)
    for i, candidate in enumerate(block.ops):
        if candidate is op:
            return i
    return -1
