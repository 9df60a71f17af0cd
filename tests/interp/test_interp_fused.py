"""Fused steps (decode.fuse): runs of consecutive steps written as statements (integer index ops, partition views
of constant sizes, TLOAD / TSTORE, TCMPS, TPARTMUL, the record instructions' compiled calls) are written into one
function per run. Held against the same programs decoded without fusion: the same outputs, results, op counts,
warnings (with their sites), and the same errors (type, message, notes, location) wherever in the run the failing
op sits, in loops and at the top of a function, in poison mode too."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from interp_helpers import not_alone
from ptoisa.interp import decode, load
from ptoisa.interp.errors import location_of

T = "!pto.tile_buf<vec, 4x16xf32>"
V = "!pto.tensor_view<64x16xf32>"
P = "!pto.partition_tensor_view<4x16xf32>"

# In the loop: muli, addi, subi, then three partition views (the fused run), then TLOAD / TSTOREs. The run-time
# step, shift and back let a test put any of the index values or views out of range (or wrap an index).
LOOP = not_alone(f"""module {{
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
""")

# The same ops at the top of the function (no loop): the run ends with its first failing op.
TOP = not_alone(f"""module {{
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
""")


def _pair(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The program decoded as it is (fused, its loops written with their bodies: `fuse_loop`) and decoded with
    `fuse` leaving steps as they are and `fuse_loop` writing no loop."""
    fused = load(text)
    fused.compiled_function("k")
    with monkeypatch.context() as m:
        m.setattr(decode, "fuse", lambda steps: steps)
        m.setattr(decode, "fuse_loop", lambda *args: None)
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
        if hasattr(step, "members"):  # a loop written with its body (`fuse_loop`)
            sizes += [len(s.group) for s in step.body if hasattr(s, "group")]
        for cell in step.__closure__ or ():  # a loop's body: its Steps, or its only step
            inner = cell.cell_contents
            if isinstance(inner, decode.Steps):
                sizes += [len(s.group) for s in inner if hasattr(s, "group")]
            elif callable(inner) and hasattr(inner, "group"):
                sizes.append(len(inner.group))
    return sizes


def test_the_runs_are_fused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard on the tests below: each loop body is one step, and so are the set-up ops before it (views,
    tiles, TEXPANDS), and the eight ops of TOP."""
    fused, plain = _pair(LOOP, monkeypatch)
    assert _fused_groups(fused) == [4, 10] and _fused_groups(plain) == []
    fused, plain = _pair(TOP, monkeypatch)
    assert _fused_groups(fused) == [8] and _fused_groups(plain) == []
    fused, plain = _pair(BLOCKS, monkeypatch)
    assert _fused_groups(fused) == [9, 10] and _fused_groups(plain) == []


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


# The shipped kernel's block loop with a record instruction (TADD) added and valid shapes set at run time: each
# instruction can refuse (valid shapes), warn (TCMPS's a2a3 repeat-tail erratum names its site) or, in poison
# mode, read what nothing wrote.
F = "!pto.tile_buf<vec, 16x16xf32>"
D = "!pto.tile_buf<vec, 16x16xf32, valid=?x?>"
BITS = "!pto.tile_buf<vec, 16x32xui8, valid=?x?>"
PV = "!pto.partition_tensor_view<16x16xf32>"
PM = "!pto.partition_tensor_view<16x2xui8>"
BLOCKS = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %m: !pto.ptr<ui8>, %n: index, %sr: index, %sc: index,
               %br: index, %bc: index, %scale: f32, %threshold: f32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv_x = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %tv_y = pto.make_tensor_view %y, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %tv_m = pto.make_tensor_view %m, shape = [%c64, %c2], strides = [%c2, %c1] : !pto.tensor_view<64x2xui8>
    %src = pto.alloc_tile valid_row = %sr valid_col = %sc : {D}
    %prod = pto.alloc_tile : {F}
    %factor = pto.alloc_tile : {F}
    %acc = pto.alloc_tile : {F}
    %bits = pto.alloc_tile valid_row = %br valid_col = %bc : {BITS}
    pto.texpands ins(%scale : f32) outs(%factor : {F})
    scf.for %i = %c0 to %n step %c1 {{
      %row = arith.muli %i, %c16 : index
      %pv_x = pto.partition_view %tv_x, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<64x16xf32> -> {PV}
      %pv_y = pto.partition_view %tv_y, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<64x16xf32> -> {PV}
      %pv_m = pto.partition_view %tv_m, offsets = [%row, %c0], sizes = [%c16, %c2] : !pto.tensor_view<64x2xui8> -> {PM}
      pto.tload ins(%pv_x : {PV}) outs(%src : {D})
      pto.tpartmul ins(%src, %factor : {D}, {F}) outs(%prod : {F})
      pto.tadd ins(%prod, %factor : {F}, {F}) outs(%acc : {F})
      pto.tcmps ins(%acc, %threshold {{cmpMode = #pto<cmp gt>}} : {F}, f32) outs(%bits : {BITS})
      pto.tstore ins(%acc : {F}) outs(%pv_y : {PV})
      pto.tstore ins(%bits : {BITS}) outs(%pv_m : {PM})
    }}
    return
  }}
}}
"""


def _blocks_outcome(program: Any, scalars: list[Any], target: str, fill: str) -> tuple[Any, ...]:
    x = ((np.arange(64 * 16) * 37 % 101) / 10.0 - 5).astype(np.float32).reshape(64, 16) * 40
    x[3, 5], x[17, 0], x[40, 15] = np.nan, -0.0, np.inf
    arrays = [x, np.full((64, 16), -1, np.float32), np.full((64, 2), 9, np.uint8)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = program.run(*arrays, *scalars, target=target, fill=fill)
            outcome: tuple[Any, ...] = ("ok", result.ops_executed, sorted(result.outputs))
        except Exception as exc:  # noqa: BLE001 - compared, not handled
            outcome = ("error", type(exc).__name__, str(exc), tuple(getattr(exc, "__notes__", ())),
                       location_of(exc))
    return (*outcome, [a.tobytes() for a in arrays],
            [(type(w.message).__name__, str(w.message)) for w in caught])


_BLOCK_CASES = [
    [4, 16, 16, 16, 2, 2.0, 100.0],  # the shipped shapes
    [4, 16, 16, 16, 2, -3.0, float("nan")],
    [3, 16, 8, 16, 2, 2.0, 0.0],  # src partial: TPARTMUL takes factor where src is not valid
    [3, 9, 16, 16, 2, 2.0, 0.0],
    [4, 16, 16, 8, 2, 2.0, 0.0],  # bits 8 rows: TCMPS refuses
    [4, 16, 16, 16, 1, 2.0, 0.0],  # bits 1 column: too few for 16 bits a row
    [4, 16, 16, 16, 4, 2.0, 50.0],  # bits 16x4: TSTORE's view is 16x2
    [4, 16, 16, 8, 4, 2.0, 50.0],
    [4, 0, 0, 16, 2, 2.0, 0.0],  # nothing loaded
    [5, 16, 16, 16, 2, 2.0, 100.0],  # the fifth block leaves the views
]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("fill", ["zero", "nan", "poison"])
def test_fused_blocks_run_as_the_plain_ones(target: str, fill: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fused, plain = _pair(BLOCKS, monkeypatch)
    locations = set()
    for scalars in _BLOCK_CASES:
        got = _blocks_outcome(fused, scalars, target, fill)
        assert got == _blocks_outcome(plain, scalars, target, fill), scalars
        if got[0] == "error":
            locations.add(got[4])
    assert len(locations) >= 2  # refusals located at several ops of the fused body


def test_record_instructions_in_a_fused_body_name_their_own_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two TFILLPADs in one loop body (the record's compiled call, fused): each warning of the cpu erratum
    tfillpad_half_limits names its own op's line, as the plain steps' do; after the run no site is left."""
    from ptoisa.isa._check import current_site

    src = ("!pto.tile_buf<loc=vec, dtype=f16, rows=2, cols=16, v_row=1, v_col=5, blayout=row_major, "
           "slayout=none_box, fractal=512, pad=0>")
    dst = src.replace("v_row=1, v_col=5", "v_row=2, v_col=16").replace("pad=0", "pad=3")
    text = f"""module {{
  func.func @k(%n: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = pto.alloc_tile : {src}
    %d = pto.alloc_tile : {dst}
    scf.for %i = %c0 to %n step %c1 {{
      pto.tfillpad ins(%s : {src}) outs(%d : {dst})
      pto.tfillpad ins(%s : {src}) outs(%d : {dst})
    }}
    return
  }}
}}"""
    fused, plain = _pair(text, monkeypatch)
    assert _fused_groups(fused) == [2, 2]  # the two tiles, the loop body
    messages = []
    for program in (fused, plain):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program.run(2, target="cpu")
        messages.append([str(w.message).split("]")[0] for w in caught])
        assert current_site() is None
    assert messages[0] == messages[1] == ["TFILLPAD on cpu [pto.tfillpad at <string>:8:7",
                                          "TFILLPAD on cpu [pto.tfillpad at <string>:9:7"] * 2


ONE = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %n: index, %by: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv_x = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : {V}
    scf.for %i = %c0 to %n step %by {{
      %pv_x = pto.partition_view %tv_x, offsets = [%i, %c0], sizes = [%c4, %c16] : {V} -> {P}
    }}
    return
  }}
}}
"""


@pytest.mark.parametrize(("n", "by"), [(61, 1), (62, 1), (70, 4), (70, 0), (0, -1), (3, 7)])
def test_a_loop_of_one_step_runs_as_the_plain_one(n: int, by: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A body of one step is called without the inner loop: the same op counts and errors (the view's, located
    at the partition_view; a step that is not positive, at the loop)."""
    from ptoisa.interp import ops_control

    fused = load(ONE)
    fused.compiled_function("k")
    with monkeypatch.context() as m:  # the plain program: its body in the loop over steps
        m.setattr(decode, "fuse_loop", lambda *args: None)
        m.setattr(ops_control, "_one_step_for",
                  lambda lb, ub, st, iv, only, n: ops_control._loop_for(lb, ub, st, iv, [only], n))
        plain = load(ONE)
        plain.compiled_function("k")
    x = np.zeros((64, 16), np.float32)
    assert _outcome(fused, [x], [n, by]) == _outcome(plain, [x], [n, by])
    if (n, by) == (62, 1):
        assert _outcome(fused, [x], [n, by])[4] == "<string>:10:7"
    if (n, by) == (70, 0):
        assert _outcome(fused, [x], [n, by])[4] == "<string>:9:5"


def test_fused_set_up_refuses_as_the_plain_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The set-up run of BLOCKS (three views, five tiles, TEXPANDS) failing at each kind of op: a tensor too
    small for its view, a valid size outside the tile, a tile over the run's byte limit; the same errors and
    locations as the plain program's."""
    from ptoisa.interp import Limits

    fused, plain = _pair(BLOCKS, monkeypatch)
    x = np.zeros((64, 16), np.float32)
    cases = [((x[:60], np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)), [4, 16, 16, 16, 2], None),
             ((x, np.zeros((64, 16), np.float32), np.zeros((64, 1), np.uint8)), [4, 16, 16, 16, 2], None),
             ((x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)), [4, 17, 16, 16, 2], None),
             ((x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)), [4, 16, 16, 16, 33], None),
             ((x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8)), [4, 16, 16, 16, 2],
              Limits(max_bytes=1000))]
    where = []
    for arrays, scalars, limits in cases:
        outs = []
        for program in (fused, plain):
            try:
                program.run(*[a.copy() for a in arrays], *scalars, 2.0, 1.0, limits=limits)
                outs.append(None)
            except Exception as exc:  # noqa: BLE001 - compared, not handled
                outs.append((type(exc).__name__, str(exc), tuple(exc.__notes__), location_of(exc)))
        assert outs[0] == outs[1] and outs[0] is not None
        where.append(outs[0][3])
    assert where == ["<string>:9:5", "<string>:11:5", "<string>:12:5", "<string>:16:5", "<string>:12:5"]
