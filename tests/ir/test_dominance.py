"""Def-before-use (ptoisa.ir.dominance) with and without the positions table a check keeps per module: the same
answer for every operand of random straight-line and nested programs, forward references and values used past
their loop included. The table makes a block's op order a lookup (before, each check of a use walked its block:
a chain of 20,000 ops took ten minutes to check; timings live in benchmarks, not here)."""

from __future__ import annotations

import random

import pytest

from ptoisa.ir import parse_module
from ptoisa.ir.dominance import undominated_operands


def _program(rng: random.Random, count: int) -> str:
    """`count` additions of two values: one defined anywhere at the function's level (a later one: a forward
    reference) or earlier in the same loop, one defined earlier; some inside one-turn loops (whose values are
    not used after them: the parser itself refuses that)."""
    inside = [False] * count
    at = 0
    while at < count:
        if rng.random() < 0.1:
            span = rng.randint(1, 6)
            inside[at:at + span] = [True] * len(inside[at:at + span])
            at += span + 1
        at += 1
    top = ["%x"] + [f"%v{i}" for i in range(count) if not inside[i]]
    lines = ["func.func @k(%x: index) {", "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index"]
    loop: list[str] = []
    for i in range(count):
        if inside[i] and (i == 0 or not inside[i - 1]):
            lines.append("  scf.for %i = %c0 to %c1 step %c1 {")
            loop = []
        earlier = [n for n in top if n == "%x" or int(n[2:]) < i] + loop
        a, b = rng.choice(top + loop), rng.choice(earlier)
        lines.append(f"  %v{i} = arith.addi {a}, {b} : index")
        if inside[i]:
            loop.append(f"%v{i}")
            if i + 1 == count or not inside[i + 1]:
                lines.append("  }")
                loop = []
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_positions_give_the_answers_of_a_walk(seed: int) -> None:
    rng = random.Random(seed)
    module = parse_module(_program(rng, rng.choice([5, 30, 120])))
    positions: dict[int, dict[int, int]] = {}
    found = 0
    for op in module.walk():
        walked = undominated_operands(op)
        assert undominated_operands(op, positions) == walked, op
        found += bool(walked)
    assert positions  # (the table was used)
    if seed == 0:
        assert found  # (the programs do hold forward references)
