"""Fused steps (decode.fuse): runs of consecutive integer index ops (addi / subi / muli) and partition views of
constant sizes are written into one function per run. Held against the same programs decoded without fusion:
the same outputs, results, op counts, and the same errors (type, message, notes, location) wherever in the run
the failing op sits, in loops and at the top of a function."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ptoisa.interp import decode, load
from ptoisa.interp.errors import location_of

T = "!pto.tile_buf<vec, 4x16xf32>"
V = "!pto.tensor_view<64x16xf32>"
P = "!pto.partition_tensor_view<4x16xf32>"

# In the loop: muli, addi, subi, then three partition views (the fused run), then TLOAD / TSTOREs. The run-time
# step, shift and back let a test put any of the index values or views out of range (or wrap an index).
LOOP = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>, %n: index, %step: index,
               %shift: index, %back: index, %col: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv_x = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : {V}
    %tv_y = pto.make_tensor_view %y, shape = [%c64, %c16], strides = [%c16, %c1] : {V}
    %tv_z = pto.make_tensor_view %z, shape = [%c64, %c16], strides = [%c16, %c1] : {V}
    %t = pto.alloc_tile : {T}
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {{
      %row = arith.muli %i, %step : index
      %row2 = arith.addi %row, %shift : index
      %row3 = arith.subi %row2, %back : index
      %pv_x = pto.partition_view %tv_x, offsets = [%row, %c0], sizes = [%c4, %c16] : {V} -> {P}
      %pv_y = pto.partition_view %tv_y, offsets = [%row2, %c0], sizes = [%c4, %c16] : {V} -> {P}
      %pv_z = pto.partition_view %tv_z, offsets = [%row3, %col], sizes = [%c4, %c16] : {V} -> {P}
      pto.tload ins(%pv_x : {P}) outs(%t : {T})
      pto.tstore ins(%t : {T}) outs(%pv_y : {P})
      pto.tstore ins(%t : {T}) outs(%pv_z : {P})
      %next = arith.addi %acc, %row3 : index
      scf.yield %next : index
    }}
    return %last : index
  }}
}}
"""

# The same ops at the top of the function (no loop): the run ends with its first failing op.
TOP = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %i: index, %step: index, %shift: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv_x = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : {V}
    %t = pto.alloc_tile : {T}
    %row = arith.muli %i, %step : index
    %row2 = arith.addi %row, %shift : index
    %pv_x = pto.partition_view %tv_x, offsets = [%row2, %c0], sizes = [%c4, %c16] : {V} -> {P}
    %pv_y = pto.partition_view %tv_x, offsets = [%row, %c0], sizes = [%c4, %c16] : {V} -> {P}
    pto.tload ins(%pv_y : {P}) outs(%t : {T})
    pto.tstore ins(%t : {T}) outs(%pv_x : {P})
    return %row2 : index
  }}
}}
"""


def _pair(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The program decoded as it is (fused) and decoded with `fuse` leaving steps as they are."""
    fused = load(text)
    fused.compiled_function("k")
    with monkeypatch.context() as m:
        m.setattr(decode, "fuse", lambda steps: steps)
        plain = load(text)
        plain.compiled_function("k")
    return fused, plain


def _outcome(program: Any, arrays: list[np.ndarray], scalars: list[int]) -> tuple[Any, ...]:
    try:
        result = program.run(*arrays, *scalars)
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return ("error", type(exc).__name__, str(exc), tuple(getattr(exc, "__notes__", ())), location_of(exc),
                [a.tobytes() for a in arrays])
    return ("ok", result.returns, result.ops_executed, sorted(result.outputs), [a.tobytes() for a in arrays])


def _fused_groups(program: Any) -> list[int]:
    """The sizes of the fused runs in the entry's steps and its loops' bodies."""
    compiled = program.compiled_function("k")
    sizes = []
    for step in compiled.steps:
        sizes += [len(step.group)] if hasattr(step, "group") else []
        for cell in step.__closure__ or ():
            if isinstance(cell.cell_contents, decode.Steps):
                sizes += [len(s.group) for s in cell.cell_contents if hasattr(s, "group")]
    return sizes


def test_the_runs_are_fused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard on the tests below: the loop's six index ops and views are one step, the top's four another."""
    fused, plain = _pair(LOOP, monkeypatch)
    assert _fused_groups(fused) == [6] and _fused_groups(plain) == []
    fused, plain = _pair(TOP, monkeypatch)
    assert _fused_groups(fused) == [4] and _fused_groups(plain) == []


_LOOP_CASES = [
    (16, 4, 0, 0, 0),  # every block in range
    (16, 4, 0, 3, 0),  # z's rows reach below 0 on the first turn
    (16, 4, 2, 0, 0),  # y's rows pass the end on the last turn
    (20, 4, 0, 0, 0),  # x's rows pass the end on turn 16
    (8, 4, 0, 0, 1),  # z's columns leave the view
    (3, 1 << 62, 0, 0, 0),  # the index product wraps (turn 2: 2**63 is -2**63 as an index)
    (3, -(1 << 62), 0, 0, 0),  # negative rows
    (6, 2, 1 << 63, 0, 0),  # the addi wraps at once
    (5, 8, 3, 5, 0),
    (0, 4, 0, 0, 0),  # no turn
]


@pytest.mark.parametrize("case", _LOOP_CASES)
def test_fused_loop_runs_as_the_plain_one(case: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    fused, plain = _pair(LOOP, monkeypatch)
    rng = np.random.default_rng(sum(abs(c) % 1000 for c in case))
    x = rng.normal(size=(64, 16)).astype(np.float32)
    base = [x, np.full((64, 16), np.nan, np.float32), np.zeros((64, 16), np.float32)]
    n, step, shift, back, col = case
    scalars = [n, step, shift % (1 << 64) - (1 << 64) if shift >= 1 << 63 else shift, back, col]
    got = _outcome(fused, [a.copy() for a in base], scalars)
    want = _outcome(plain, [a.copy() for a in base], scalars)
    assert got == want


def test_fused_loop_random_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random steps, shifts and columns, most of them failing somewhere in the run (each op of the fused run
    and the ops after it), against the plain program; a failure after some turns leaves their stores in place."""
    fused, plain = _pair(LOOP, monkeypatch)
    rng = random.Random(5)
    failures = set()
    for _ in range(120):
        scalars = [rng.randint(0, 18), rng.choice((0, 1, 3, 4, 5, -1, 1 << 62)), rng.randint(-6, 6),
                   rng.randint(-4, 4), rng.choice((0, 0, 0, 1))]
        arrays = [np.arange(1024, dtype=np.float32).reshape(64, 16), np.zeros((64, 16), np.float32),
                  np.ones((64, 16), np.float32)]
        got = _outcome(fused, [a.copy() for a in arrays], scalars)
        want = _outcome(plain, [a.copy() for a in arrays], scalars)
        assert got == want, scalars
        if got[0] == "error":
            failures.add(got[4])
    assert len(failures) >= 3  # errors located at several of the fused ops


@pytest.mark.parametrize(("i", "step", "shift"), [(0, 4, 8), (15, 4, 0), (1, 4, 60), (2, 1 << 62, 0), (-1, 4, 4),
                                                   (3, 5, -15), (3, 5, -16), (4, 1 << 62, 7), (61, 1, -61),
                                                   (2, 1 << 62, -(1 << 63))])
def test_fused_top_runs_as_the_plain_one(i: int, step: int, shift: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fused, plain = _pair(TOP, monkeypatch)
    x = np.arange(1024, dtype=np.float32).reshape(64, 16)
    assert _outcome(fused, [x.copy()], [i, step, shift]) == _outcome(plain, [x.copy()], [i, step, shift])


def test_errors_name_the_op_that_failed() -> None:
    """Each op of the fused run, failing, is named with its own line (not the run's first op)."""
    program = load(TOP)
    x = np.zeros((64, 16), np.float32)
    where = {}
    for args in ((61, 1, 0), (61, 1, -61)):
        with pytest.raises(Exception) as info:  # noqa: PT011 - the location is what is checked
            program.run(x, *args)
        where[args] = location_of(info.value)
    assert where == {(61, 1, 0): "<string>:12:5", (61, 1, -61): "<string>:13:5"}
    # 4 * 2**62 wraps to 0 (as an index), and both views are in range
    assert program.run(x, 4, 1 << 62, 7).returns == (7,)
