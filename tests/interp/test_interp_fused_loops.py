"""Loops written with their bodies (decode.fuse_loop): an scf.for whose body is only statements (`Inline`) runs as
one function, its loop-invariant slots read once and its steps' setups (`Inline.setup`: a partition's parent and
column offset, the run's poison / site / config) run before the first turn where they read only values made
before the loop. Held against the same program decoded with fused bodies but the loops of ops_control, and
decoded plain (no fusion at all): the same outputs, results, op counts and errors (type, message, notes,
location), for nested loops whose inner loop meets a new parent tensor every outer turn, carried values swapped
every turn, column offsets computed in the loop and fixed outside it, and offsets leaving the views at any turn;
one run is also checked against NumPy."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from interp_helpers import not_alone, three_decodings
from ptoisa.interp import decode, load
from ptoisa.interp.errors import location_of

T = "!pto.tile_buf<vec, 4x8xf32>"
V = "!pto.tensor_view<64x16xf32>"
B = "!pto.tensor_view<16x16xf32>"
P = "!pto.partition_tensor_view<4x8xf32>"

# The outer loop (not all statements: addptr) makes new 16x16 tensor views every turn; the inner loop (all
# statements) partitions them: x's view at a column offset computed each turn, y's at the fixed column 8 (and
# that offset as its row).
NESTED = not_alone(f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %outer: index, %inner: index, %rstep: index,
               %cshift: index) -> (index, index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %t = pto.alloc_tile : {T}
    %a, %b = scf.for %o = %c0 to %outer step %c1 iter_args(%p = %c0, %q = %c1) -> (index, index) {{
      %off = arith.muli %o, %c256 : index
      %xo = pto.addptr %x, %off : !pto.ptr<f32> -> !pto.ptr<f32>
      %yo = pto.addptr %y, %off : !pto.ptr<f32> -> !pto.ptr<f32>
      %blk_x = pto.make_tensor_view %xo, shape = [%c16, %c16], strides = [%c16, %c1] : {B}
      %blk_y = pto.make_tensor_view %yo, shape = [%c16, %c16], strides = [%c16, %c1] : {B}
      %u, %w = scf.for %i = %c0 to %inner step %c1 iter_args(%s = %p, %z = %q) -> (index, index) {{
        %r = arith.muli %i, %rstep : index
        %cc = arith.muli %i, %cshift : index
        %pv_y = pto.partition_view %blk_y, offsets = [%cc, %c8], sizes = [%c4, %c8] : {B} -> {P}
        %pv_x = pto.partition_view %blk_x, offsets = [%r, %cc], sizes = [%c4, %c8] : {B} -> {P}
        pto.tload ins(%pv_x : {P}) outs(%t : {T})
        pto.tstore ins(%t : {T}) outs(%pv_y : {P})
        %s2 = arith.addi %s, %r : index
        scf.yield %z, %s2 : index, index
      }}
      %np = arith.addi %u, %o : index
      scf.yield %np, %w : index, index
    }}
    return %a, %b : index, index
  }}
}}
""")


def _three(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Any]:
    """NESTED decoded as it is; with fused bodies in ops_control's loops; plain (no fusion)."""
    return three_decodings(NESTED, monkeypatch)


def _written_loops(program: Any) -> int:
    """How many loops of the entry are written with their bodies (the inner loop sits in the outer's Steps)."""
    found = 0
    for step in program.compiled_function("k").steps:
        for cell in step.__closure__ or ():
            inner = cell.cell_contents
            if isinstance(inner, decode.Steps):
                found += sum(hasattr(s, "members") for s in inner)
        found += hasattr(step, "members")
    return found


def _outcome(program: Any, scalars: list[int]) -> tuple[Any, ...]:
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16) * 0.5 - 7
    y = np.full((64, 16), -1.0, np.float32)
    try:
        result = program.run(x, y, *scalars)
        outcome: tuple[Any, ...] = ("ok", result.returns, result.ops_executed, sorted(result.outputs))
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        outcome = ("error", type(exc).__name__, str(exc), tuple(getattr(exc, "__notes__", ())), location_of(exc))
    return (*outcome, y.tobytes())


def test_the_inner_loop_is_written_with_its_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard on the tests below."""
    whole, bodies, plain = _three(monkeypatch)
    assert (_written_loops(whole), _written_loops(bodies), _written_loops(plain)) == (1, 0, 0)


def test_a_nested_run_matches_numpy() -> None:
    """Four outer turns of three inner turns (x's rows 0, 4, 8 of each 16-row block and columns 0, 1, 2; y's rows
    0, 1, 2 and columns 8 on): y's blocks hold x's windows, the carried values follow their swaps."""
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16) * 0.5 - 7
    y = np.full((64, 16), -1.0, np.float32)
    result = load(NESTED).run(x, y, 4, 3, 4, 1)
    want = np.full((64, 16), -1.0, np.float32)
    p, q = 0, 1
    for o in range(4):
        s, z = p, q
        for i in range(3):
            r, c = 16 * o + 4 * i, 16 * o + i
            want[c:c + 4, 8:16] = x[r:r + 4, i:i + 8]
            s, z = z, s + 4 * i
        p, q = s + o, z
    assert y.tobytes() == want.tobytes()
    assert result.returns == (p, q)


_CASES = [(4, 3, 4, 1), (4, 4, 4, 2), (0, 3, 4, 1), (3, 0, 4, 1), (4, 5, 4, 0),  # the fifth inner turn: row 16
          (4, 3, 4, 5),  # x's columns leave the view on the third inner turn
          (5, 2, 4, 0),  # the fifth outer turn: addptr past the tensor's end
          (4, 3, 6, 0), (2, 7, 2, 1), (3, 9, 1, 1), (4, 13, 1, 0), (4, 2, 13, 8), (1, 3, 0, 4)]


@pytest.mark.parametrize("case", _CASES)
def test_nested_loops_run_as_the_plain_ones(case: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    whole, bodies, plain = _three(monkeypatch)
    want = _outcome(plain, list(case))
    assert _outcome(whole, list(case)) == want
    assert _outcome(bodies, list(case)) == want


def test_nested_loops_random_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random turns, row steps and column shifts, many failing at some turn of some loop."""
    whole, bodies, plain = _three(monkeypatch)
    rng = random.Random(11)
    locations = set()
    for _ in range(150):
        case = [rng.randint(0, 5), rng.randint(0, 8), rng.choice((0, 1, 3, 4, 5, 12, -1)), rng.choice((0, 1, 2, 8, 9))]
        want = _outcome(plain, case)
        assert _outcome(whole, case) == want, case
        assert _outcome(bodies, case) == want, case
        if want[0] == "error":
            locations.add(want[4])
    assert len(locations) >= 3  # the addptr, both partitions
