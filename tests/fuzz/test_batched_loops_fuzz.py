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
