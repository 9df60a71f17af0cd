"""`scf.for` with a step that is not positive: refused before its first turn with "scf.for step must be positive
(got N)", by every loop driver (the general loop with two carried values, one carried value, a body of several
steps, a body of one step, and a loop written with its body), in each decoding (as loaded, with fused bodies in
ops_control's loops, plain); nothing is stored and the loop's first op never runs."""

from __future__ import annotations

import numpy as np
import pytest

from interp_helpers import not_alone, three_decodings
from ptoisa.interp.errors import ExecutionError

T = "!pto.tile_buf<vec, 4x8xf32>"
V = "!pto.tensor_view<8x8xf32>"
P = "!pto.partition_tensor_view<4x8xf32>"
HEAD = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %step: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %tx = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : {V}
    %ty = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : {V}
    %t = pto.alloc_tile : {T}
"""
COPY = f"""      %r = arith.muli %i, %c4 : index
      %pvx = pto.partition_view %tx, offsets = [%r, %c0], sizes = [%c4, %c8] : {V} -> {P}
      %pvy = pto.partition_view %ty, offsets = [%r, %c0], sizes = [%c4, %c8] : {V} -> {P}
      pto.tload ins(%pvx : {P}) outs(%t : {T})
      pto.tstore ins(%t : {T}) outs(%pvy : {P})
"""
LOOPS = {
    "two carried": f"""    %a, %b = scf.for %i = %c0 to %c2 step %step iter_args(%p = %c0, %q = %c1) -> (index, index) {{
{COPY}      scf.yield %q, %p : index, index
    }}
    return %a : index""",
    "one carried": f"""    %a = scf.for %i = %c0 to %c2 step %step iter_args(%p = %c0) -> (index) {{
{COPY}      %p2 = arith.addi %p, %i : index
      scf.yield %p2 : index
    }}
    return %a : index""",
    "no carried": f"""    scf.for %i = %c0 to %c2 step %step {{
{COPY}    }}
    return %c0 : index""",
}


@pytest.mark.parametrize("shape", list(LOOPS))
@pytest.mark.parametrize("step", [0, -1, -4])
def test_a_step_that_is_not_positive_is_refused(shape: str, step: int, monkeypatch: pytest.MonkeyPatch) -> None:
    for program in three_decodings(not_alone(HEAD + LOOPS[shape] + "\n  }\n}\n"), monkeypatch):
        x = np.arange(64, dtype=np.float32).reshape(8, 8)
        y = np.full((8, 8), -1.0, np.float32)
        with pytest.raises(ExecutionError) as caught:
            program.run(x, y, step)
        assert str(caught.value).startswith(f"scf.for step must be positive (got {step})")
        assert (y == -1.0).all()  # nothing stored


@pytest.mark.parametrize("shape", list(LOOPS))
def test_a_positive_step_runs(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same loops with step 1 copy x into y (two turns of four rows), in every decoding."""
    for program in three_decodings(not_alone(HEAD + LOOPS[shape] + "\n  }\n}\n"), monkeypatch):
        x = np.arange(64, dtype=np.float32).reshape(8, 8)
        y = np.full((8, 8), -1.0, np.float32)
        program.run(x, y, 1)
        assert y.tobytes() == x.tobytes()
