"""scf.while: the before region decides, the after region's yield starts the next turn, the condition's
arguments are the results (MLIR's scf.while semantics); turns count against the step budget."""

from __future__ import annotations

import numpy as np
import pytest

from interp_helpers import not_alone
from ptoisa.interp import LimitError, Limits, load

TRIPLE = not_alone("""func.func @triple(%limit: index) -> index {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.while (%i = %c1) : (index) -> index {
    %go = arith.cmpi slt, %i, %limit : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    %n = arith.muli %j, %c3 : index
    scf.yield %n : index
  }
  return %r : index
}
""")

COUNT = """func.func @count(%x: !pto.ptr<f32>, %stop: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %true = arith.constant true
  %tv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xf32>
  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%pv : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  %end:2 = scf.while (%i = %c0, %alive = %true) : (index, i1) -> (index, i1) {
    %go = arith.andi %alive, %true : i1
    scf.condition(%go) %i, %alive : index, i1
  } do {
  ^bb0(%i2: index, %alive2: i1):
    pto.tadds ins(%t, %one : !pto.tile_buf<vec, 1x16xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    %next = arith.addi %i2, %c1 : index
    %more = arith.cmpi slt, %next, %stop : index
    scf.yield %next, %more : index, i1
  }
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%pv : !pto.partition_tensor_view<1x16xf32>)
  return
}
"""


@pytest.mark.parametrize("limit,want", [(1, 1), (2, 3), (100, 243), (243, 243), (244, 729)])
def test_the_results_are_the_last_condition_arguments(limit, want):
    assert load(TRIPLE).run(limit).returns == (want,)


@pytest.mark.parametrize("stop", [1, 2, 7])
def test_the_body_runs_until_the_condition_is_false(stop):
    """The body adds 1 and clears %alive once its counter reaches %stop: it runs max(stop, 1) times."""
    x = np.zeros((1, 16), np.float32)
    load(COUNT).run(x, stop)
    assert (x == stop).all()


def test_an_endless_while_stops_at_the_step_budget():
    endless = TRIPLE.replace("%go = arith.cmpi slt, %i, %limit : index", "%go = arith.cmpi sge, %i, %i : index")
    with pytest.raises(LimitError, match="more than 500 op steps"):
        load(endless).run(5, limits=Limits(max_steps=500))


def test_a_before_region_without_condition_is_refused_by_name():
    from ptoisa.interp import UnsupportedOpError

    text = TRIPLE.replace("scf.condition(%go) %i : index", "scf.yield %i : index")
    with pytest.raises(UnsupportedOpError, match="before region must end with scf.condition"):
        load(text).run(5)
