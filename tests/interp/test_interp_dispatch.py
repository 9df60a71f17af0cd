"""The interpreter's per-op shortcuts against the general steps they stand in for: ops without effect (counted,
not run), record ops' compiled steps (`ops_record._compiled_step`), the inline rank-2 partition_view, the
instruction steps of tpartmul / tcmps in poison mode, and the copy branches of the TLOAD / TSTORE plans. Same
bytes, counts, warnings and errors; the speed lives in benchmarks/interp_costs.py."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from ptoisa.errors import UninitializedReadError
from ptoisa.interp import LimitError, Limits, load, location_of
from ptoisa.interp import ops_record
from ptoisa.interp.decode import no_effect

from interp_helpers import kernel


# --- ops without effect ------------------------------------------------------------------------------------------
COUNTED = """module {
  func.func private @helper(%v: index) -> index {
    pto.barrier <PIPE_ALL>
    %r = arith.addi %v, %v : index
    return %r : index
  }
  func.func @k(%n: index, %flag: i1) -> (index, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    scf.for %i = %c0 to %n step %c1 {
      pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
      pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
      pto.barrier <PIPE_ALL>
      %b = arith.addi %a, %i : index
      %d = func.call @helper(%b) : (index) -> index
      scf.yield %d : index
    }
    %t = scf.if %flag -> (index) {
      pto.barrier <PIPE_ALL>
      pto.barrier <PIPE_ALL>
      scf.yield %s : index
    } else {
      scf.yield %c0 : index
    }
    %w = scf.while (%j = %c0) : (index) -> index {
      pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
      %go = arith.cmpi slt, %j, %n : index
      scf.condition(%go) %j : index
    } do {
    ^bb0(%j2: index):
      pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
      %nx = arith.addi %j2, %c1 : index
      scf.yield %nx : index
    }
    return %t, %w : index, index
  }
}
"""


def _counted(n: int, flag: int) -> int:
    """Op steps of COUNTED: the entry's five ops; the first loop 2 per turn; the second 3 per turn and the
    helper's 2 per call; the taken branch of the if; the while's 2 + 2 ops and its condition per turn, n + 1
    turns. Constants, yields and returns are not steps."""
    return 5 + 2 * n + 5 * n + (2 if flag else 0) + 5 * (n + 1)


@pytest.mark.parametrize(("n", "flag"), [(0, 0), (0, 1), (1, 1), (3, 0), (5, 1)])
def test_ops_without_effect_are_counted_in_every_region(n: int, flag: int) -> None:
    program = load(COUNTED)
    result = program.run(n, flag)
    total = _counted(n, flag)
    assert result.ops_executed == total
    s = 0
    for i in range(n):
        s = 2 * (s + i)
    assert result.returns == (s if flag else 0, n)
    program.run(n, flag, limits=Limits(max_steps=total))  # the budget charges them: exactly enough
    with pytest.raises(LimitError):
        program.run(n, flag, limits=Limits(max_steps=total - 1))


def test_ops_without_effect_have_no_step() -> None:
    program = load(COUNTED)
    program.run(1, 1)
    entry = program.compiled_function("k")
    assert no_effect not in entry.steps and entry.ops == 5 and len(entry.steps) == 4
    assert not hasattr(no_effect, "where")
