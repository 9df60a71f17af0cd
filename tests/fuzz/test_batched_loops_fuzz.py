"""Batched `scf.for` loops against the same loops run in turn, on more random loop shapes than tests/interp runs.

The generator is tests/interp/test_batched_loops.py's (`test_random_loops_batched_as_run_in_turn`: random bodies,
element types, tile and valid shapes, turn counts, steps and window strides, some overlapping or leaving their
view, so refused); each case compares every tensor's and tile's bytes, the warnings and the op counts of a run
with batching on and one with it off, in every decoding, on cpu, a2a3 and a5. The cases' seeds start from
$PTOISA_FUZZ_SEED; $PTOISA_FUZZ_SCALE multiplies their number (20 by default).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import fuzz_budget

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interp"))
import test_batched_loops as batched  # noqa: E402 - the generator lives beside the batching tests

SEED = int(os.environ.get("PTOISA_FUZZ_SEED", "20261126"))


@pytest.mark.parametrize("case", range(fuzz_budget(20)))
def test_random_loops_batched_or_not_agree(case: int, monkeypatch: Any) -> None:
    batched.test_random_loops_batched_as_run_in_turn(1000 + SEED % 1_000_000 * 1000 + case, monkeypatch)


@pytest.mark.parametrize("case", range(fuzz_budget(4)))
def test_loops_past_the_step_limit_agree(case: int, monkeypatch: Any) -> None:
    """Random bodies over one fixed window for more turns than the step limit allows (10^9 .. 2^62): refused by
    the limit before anything runs, batched or not (the batch once made its turns' offsets first)."""
    import random

    import numpy as np

    pyrng = random.Random(SEED + case)
    rng = np.random.default_rng(SEED + case)
    body = batched.BODIES[pyrng.randrange(len(batched.BODIES))]
    tiles = batched._tiles(rng, 4, 16, (4, 16), (4, 16))
    text = batched._kernel(4, 16, (4, 16), (4, 16), [batched.OPS[o] for o in body])
    turns = pyrng.choice((10**9, 2**40, 2**61, 2**62 - 1))
    args = batched._args(rng, tiles, 0.5, 0, turns, 1, 0, pyrng.randrange(600), 0, pyrng.randrange(32))
    batched._compare(text, args, monkeypatch, False)
