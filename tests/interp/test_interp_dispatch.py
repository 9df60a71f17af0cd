"""The interpreter's per-op shortcuts against the general steps they stand in for: ops without effect (counted,
not run), record ops' compiled steps (`ops_record._compiled_step`), poison checks on later runs, the inline rank-2
partition_view, the copy branches of the TLOAD / TSTORE plans, run()'s integer arguments and lazily made on-chip
buffers, alloc_tile with run-time valid sizes, and views whose run-time sizes change (`ShapeMemo`). Same bytes,
counts, warnings and errors; the speed lives in benchmarks/interp_costs.py."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

import ptoisa
from ptoisa.errors import UninitializedReadError
from ptoisa.interp import LimitError, Limits, load, location_of
from ptoisa.interp import ops_record
from ptoisa.interp.decode import no_effect

from interp_helpers import kernel, not_alone


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


# --- record ops: the compiled step against the general step ------------------------------------------------------
_TYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16}
_BINARY = ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin")
_SCALAR = ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins")


def _record_kernel(op: str, dtype: str, rows: int, cols: int, valid: tuple[int, int]) -> str:
    """Three turns of `c = op(a, b or s)` then `a = op(c, b or s)` on tile arguments with a static valid region
    (the first turn compiles the call, the later ones take the compiled step)."""
    vr, vc = valid
    t = f"!pto.tile_buf<vec, {rows}x{cols}x{dtype}, valid={vr}x{vc}>"
    if op in _SCALAR:
        first = f"pto.{op} ins(%a, %s : {t}, {dtype}) outs(%c : {t})"
        second = f"pto.{op} ins(%c, %s : {t}, {dtype}) outs(%a : {t})"
    elif op == "tcvt":
        first = f"pto.tcvt ins(%a {{rmode = #pto<round_mode FLOOR>}} : {t}) outs(%c : {t})"
        second = f"pto.tcvt ins(%c {{rmode = #pto<round_mode CEIL>}} : {t}) outs(%a : {t})"
    else:
        first = f"pto.{op} ins(%a, %b : {t}, {t}) outs(%c : {t})"
        second = f"pto.{op} ins(%c, %b : {t}, {t}) outs(%a : {t})"
    return f"""module {{
  func.func @k(%a: {t}, %b: {t}, %c: {t}, %s: {dtype}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    scf.for %i = %c0 to %c3 step %c1 {{
      {first}
      {second}
    }}
    return
  }}
}}
"""


def _values(rng: np.random.Generator, dtype: Any, shape: tuple[int, int]) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -3.5, 65504.0], dtype)
        values = (rng.standard_normal(shape) * 100).astype(dtype)
    else:
        info = np.iinfo(dtype)
        specials = np.array([0, -1, 1, info.min, info.max], dtype)
        values = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    mask = rng.random(shape) < 0.2
    values[mask] = rng.choice(specials, int(mask.sum()))
    return values


def _run(text: str, args: tuple[Any, ...], target: str, general: bool, monkeypatch: Any) -> tuple[Any, ...]:
    """(outcome, output bytes, warnings) of a fresh program, with compiled steps or only general steps."""
    with monkeypatch.context() as m:
        if general:
            m.setattr(ops_record, "_compiled_step", lambda compiled, where, slots, extra, step: step)
        arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:  # a type the target refuses is refused when the text is verified
                result = load(text, target=target).run(*arrays)
                outcome: Any = sorted(result.outputs)
            except Exception as exc:  # noqa: BLE001 - compared, not handled
                outcome = (type(exc).__name__, str(exc), getattr(exc, "__notes__", None))
    data = [a.tobytes() for a in arrays if isinstance(a, np.ndarray)]
    return outcome, data, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_compiled_record_steps_match_the_general_steps(target: str, monkeypatch: Any) -> None:
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target))
    pyrng = random.Random(target)
    cases = 0
    for op in (*_BINARY, *_SCALAR, "tcvt"):
        for dtype in ("f32", "f16", "i32", "i16"):
            if op == "tcvt" and dtype not in ("f32", "f16"):
                continue
            npt = _TYPES[dtype]
            cols = 32 // np.dtype(npt).itemsize * pyrng.choice((1, 2))
            rows = pyrng.choice((1, 4, 8))
            valid = pyrng.choice(((rows, cols), (max(rows - 1, 1), cols - 3), (1, 1)))
            text = _record_kernel(op, dtype, rows, cols, valid)
            a, b, c = (_values(rng, npt, (rows, cols)) for _ in range(3))
            if np.dtype(npt).kind == "f":
                scalar = float(pyrng.choice((0.5, -2.0, 0.0, 3.25)))
            else:
                scalar = pyrng.choice((0, 1, -3, 7))
            fast = _run(text, (a, b, c, scalar), target, False, monkeypatch)
            slow = _run(text, (a, b, c, scalar), target, True, monkeypatch)
            assert fast == slow, (op, dtype, target, rows, cols, valid)
            cases += fast[0] == ["a", "c"]
    assert cases > 30  # most combinations run (the others are refused alike on both paths)


def test_the_compiled_step_runs_the_compiled_call_after_the_first_turn(monkeypatch: Any) -> None:
    """The general step runs once (it compiles the call, which the second op, of the same tile types, shares);
    the other turns take the compiled one. In poison mode every turn takes the general step, which checks the
    reads."""
    calls = []
    real = ops_record._compiled_step

    def counting(compiled: Any, where: str, slots: Any, extra: Any, step: Any) -> Any:
        def general(regs: list[Any]) -> None:
            calls.append(where)
            step(regs)

        return real(compiled, where, slots, extra, general)

    monkeypatch.setattr(ops_record, "_compiled_step", counting)
    from ptoisa.isa.record import REGISTRY

    REGISTRY["TSUB"]._compiled.clear()  # type: ignore[attr-defined]  # as if no earlier test had compiled it
    text = _record_kernel("tsub", "f32", 4, 16, (4, 16))
    args = [np.ones((4, 16), np.float32) for _ in range(3)] + [2.0]
    load(text, target="cpu").run(*args)
    assert calls == ["pto.tsub at <string>:7:7"]
    calls.clear()
    load(text, target="cpu", fill="poison").run(*args)
    assert len(calls) == 6


def test_poison_is_checked_on_every_turn_of_a_compiled_record_op() -> None:
    """A read of a never-written tile is reported on a later run too, when the call is compiled."""
    t = "!pto.tile_buf<vec, 4x16xf32>"
    body = f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
    scf.for %i = %c0 to %c2 step %c1 {{
      pto.tadd ins(%a, %x : {t}, {t}) outs(%b : {t})
      pto.tadd ins(%x, %x : {t}, {t}) outs(%a : {t})
    }}
    return"""
    program = kernel(body, f"%x: {t}")
    x = np.ones((4, 16), np.float32)
    program.run(x)  # zero fill: runs, and compiles both calls
    for _ in range(2):
        with pytest.raises(UninitializedReadError) as info:
            program.run(x, fill="poison")
        assert "in pto.tadd at <string>:9:7" in info.value.__notes__


@pytest.mark.parametrize("op", ["tpartmul", "tcmps"])
def test_poison_is_checked_by_tpartmul_and_tcmps_on_every_run(op: str) -> None:
    t = "!pto.tile_buf<vec, 16x16xf32>"
    bits = "!pto.tile_buf<vec, 16x32xui8, valid=16x2>"
    line = (f"pto.tpartmul ins(%a, %x : {t}, {t}) outs(%b : {t})" if op == "tpartmul" else
            f"pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp gt>}} : {t}, f32) outs(%m : {bits})")
    body = f"""    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
    %m = pto.alloc_tile : {bits}
    {line}
    return"""
    program = kernel(body, f"%x: {t}, %s: f32")
    x = np.ones((16, 16), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.run(x, 1.0)
        for _ in range(2):
            with pytest.raises(UninitializedReadError) as info:
                program.run(x, 1.0, fill="poison")
            assert f"in pto.{op} at <string>:6:5" in info.value.__notes__


# --- partition_view: the inline rank-2 step --------------------------------------------------------------------------
PARTS = """module {
  func.func private @copy(%tv: !pto.tensor_view<?x?xf32>, %uv: !pto.tensor_view<?x?xf32>, %r: index, %c: index) {
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %pv = pto.partition_view %tv, offsets = [%r, %c], sizes = [%c2, %c3] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x3xf32>
    %qv = pto.partition_view %uv, offsets = [%c, %r], sizes = [%c2, %c3] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x3xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32, valid=2x3>
    pto.tload ins(%pv : !pto.partition_tensor_view<2x3xf32>) outs(%t : !pto.tile_buf<vec, 2x8xf32, valid=2x3>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 2x8xf32, valid=2x3>) outs(%qv : !pto.partition_tensor_view<2x3xf32>)
    return
  }
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %r0: index, %c0: index, %r1: index, %c1: index) {
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %i5 = arith.constant 5 : index
    %i6 = arith.constant 6 : index
    %i7 = arith.constant 7 : index
    %i9 = arith.constant 9 : index
    %i11 = arith.constant 11 : index
    %a = pto.make_tensor_view %x, shape = [%i5, %i7], strides = [%i9, %i1] : !pto.tensor_view<?x?xf32>
    %b = pto.make_tensor_view %x, shape = [%i6, %i5], strides = [%i1, %i11] : !pto.tensor_view<?x?xf32>
    %d = pto.make_tensor_view %y, shape = [%i7, %i6], strides = [%i6, %i1] : !pto.tensor_view<?x?xf32>
    func.call @copy(%a, %d, %r0, %c0) : (!pto.tensor_view<?x?xf32>, !pto.tensor_view<?x?xf32>, index, index) -> ()
    func.call @copy(%b, %d, %r1, %c1) : (!pto.tensor_view<?x?xf32>, !pto.tensor_view<?x?xf32>, index, index) -> ()
    func.call @copy(%a, %d, %r1, %c0) : (!pto.tensor_view<?x?xf32>, !pto.tensor_view<?x?xf32>, index, index) -> ()
    return
  }
}
"""


def _parts_expected(x: np.ndarray, y: np.ndarray, offsets: list[tuple[int, int]]) -> Any:
    """PARTS in NumPy: each call copies the 2x3 window at (r, c) of its source view into the window at (c, r)
    of y's 7x6 view (sources: x as 5x7 rows of 9, x as 6x5 with row stride 1 and column stride 11)."""
    y = y.copy()
    views = {"a": (5, 7, 9, 1), "b": (6, 5, 1, 11)}
    for (name, (r, c)) in zip("aba", offsets, strict=True):
        rows, cols, s0, s1 = views[name]
        if not (0 <= r <= rows - 2 and 0 <= c <= cols - 3):
            return ("OutOfBoundsError", "<string>:5:5"), y  # %pv
        if not (0 <= c <= 5 and 0 <= r <= 3):
            return ("OutOfBoundsError", "<string>:6:5"), y  # %qv
        block = np.array([[x[(r + i) * s0 + (c + j) * s1] for j in range(3)] for i in range(2)], np.float32)
        y.reshape(7, 6)[c:c + 2, r:r + 3] = block
    return None, y


def test_partition_views_switching_parents_match_numpy() -> None:
    """One partition_view op meets two parent shapes in turn (the helper is called with each); offsets inside and
    outside the parent, negative ones included."""
    program = load(PARTS)
    rng = random.Random(4)
    x = np.arange(100, dtype=np.float32)
    for _ in range(300):
        r0, c0, r1, c1 = (rng.randint(-1, 6) for _ in range(4))
        y = np.zeros(42, np.float32)
        error, want = _parts_expected(x, y, [(r0, c0), (r1, c1), (r1, c0)])
        try:
            program.run(x, y, r0, c0, r1, c1)
            got = None
        except Exception as exc:  # noqa: BLE001 - compared
            got = type(exc).__name__, location_of(exc)
        assert got == error, (r0, c0, r1, c1)
        assert np.array_equal(y, want), (r0, c0, r1, c1)  # what the calls before an error wrote


# --- TLOAD / TSTORE plans: every branch of the copies --------------------------------------------------------------
def test_the_random_plan_cases_reach_every_copy_branch() -> None:
    """The random cases of test_interp_fast_paths (compared there with the general path) reach each way the plans
    cut the tile side of a 2-D copy (part of the rows and columns, whole rows, the whole tile) and each way the
    row grid is cut (whole grid rows, part of them): a guard on the generator."""
    from test_interp_fast_paths import CASES, _case, _outcome

    reached = set()
    for seed in range(CASES):
        tile, tensor, kind, offset = _case(seed)
        if _outcome(lambda: kind.place(tensor, offset)) is not None:
            continue
        vr, vc = tile.valid_shape
        s0 = kind.row_stride
        if s0 is None or kind.rows < vr or kind.cols < vc or not vr or not vc \
                or tensor.flat.dtype != tile.spec.np_dtype:
            continue
        if tile.spec.is_row_major and (vr <= 1 or s0 == vc == tile.spec.cols) and tile.storage.ndim == 1:
            continue
        reached.add("part" if vc != tile.spec.cols else "rows" if vr != tile.spec.rows else "whole")
        if 0 < vc <= s0 and offset % s0 + vc <= s0 and offset // s0 + vr <= tensor.size // s0:
            reached.add("grid rows" if vc == s0 else "grid part")
    assert reached == {"part", "rows", "whole", "grid rows", "grid part"}


# --- run(): integer arguments ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("type_", ["i1", "i8", "ui8", "si16", "i32", "ui32", "i64", "ui64", "index"])
def test_integer_arguments_bind_as_the_general_conversion_binds_them(type_: str) -> None:
    """An int inside the type's range is bound as it is; everything else (the unsigned spelling of a signless
    value, out-of-range values, bools, NumPy ints, floats) takes the general conversion: same values, same
    errors."""
    from ptoisa.interp.program import _convert

    program = load(not_alone(f"func.func @k(%x: {type_}) -> {type_} {{\n  return %x : {type_}\n}}\n"))
    (arg,) = program.arguments()
    kind = arg.scalar_kind
    edges = [-(1 << 64), -(1 << 63) - 1, -(1 << 63), -(1 << 31) - 1, -(1 << 31), -32769, -32768, -129, -128, -2, -1,
             0, 1, 2, 127, 128, 255, 256, 32767, 32768, 65535, 65536, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32,
             (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64]
    values: list[Any] = [*edges, True, False, np.int64(5), np.uint8(200), 3.0, 2.5, "1"]
    for value in values:
        fast = _outcome(lambda value=value: arg.convert(value))
        slow = _outcome(lambda value=value: _convert(arg, value))
        assert fast == slow, (value, kind.name)
        if not isinstance(value, str):  # run() takes a string first as the entry's name
            ran = _outcome(lambda value=value: program.run(value).returns)
            assert ran == (fast if fast[0] != "ok" else ("ok", ("tuple", (fast[1][1],)))), (value, kind.name)


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return type(exc).__name__, str(exc)
    return "ok", (type(value).__name__, value)


# --- run(): the on-chip buffers, made on first use -----------------------------------------------------------------
@pytest.mark.parametrize(("fill", "byte"), [("zero", 0), ("nan", 0xFF), ("poison", None), (0x3F, 0x3F)])
def test_placed_tiles_start_with_the_fill_byte_in_every_run(fill: Any, byte: int | None) -> None:
    """A tile at an address reads the run's fill (the buffer is made when the first tile is placed); a run does not
    see what an earlier run placed there."""
    t = "!pto.tile_buf<vec, 16x16xf32>"
    body = f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %a0 = arith.constant 4096 : i64
    %tv = pto.make_tensor_view %out, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    %t = pto.alloc_tile addr = %a0 : {t}
    pto.tstore ins(%t : {t}) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : {t})
    %u = pto.alloc_tile : {t}
    %v = pto.tassign %u, %a0 : {t} -> {t}
    pto.tadds ins(%v, %s : {t}, f32) outs(%v : {t})
    return"""
    program = kernel(body, "%out: !pto.ptr<f32>, %s: f32")
    for _ in range(2):
        out = np.ones((16, 16), np.float32)
        if fill == "poison":  # the same bytes, and the store of never-written bytes stops the run
            with pytest.raises(UninitializedReadError):
                program.run(out, 1.0, fill=fill)
            assert (out == 1.0).all()
            continue
        program.run(out, 1.0, fill=fill)
        assert (out.view(np.uint8) == byte).all()


# --- alloc_tile with dynamic valid sizes ---------------------------------------------------------------------------
@pytest.mark.parametrize(("valid", "operands"), [("?x?", "valid_row = %r valid_col = %c"), ("?x16", "valid_row = %r"),
                                                 ("8x?", "valid_col = %c")])
def test_dynamic_alloc_tiles_match_the_tile_constructor(valid: str, operands: str) -> None:
    """The step's tile (valid sizes, bytes) or error against `Tile(spec, *operands)`, for sizes inside, at the
    edges of and outside the tile, and register values that are not plain ints."""
    from ptoisa.interp.program import Env
    from ptoisa.ir.convert import tile_spec_of
    from ptoisa.tile.tile import Tile

    t = f"!pto.tile_buf<vec, 8x16xf32, valid={valid}>"
    program = load(f"func.func @k(%r: index, %c: index) {{\n  %t = pto.alloc_tile {operands} : {t}\n  return\n}}\n")
    program.run(1, 1)
    compiled = program.compiled_function("k")
    (step,) = compiled.steps
    spec = tile_spec_of(program.functions["k"].body.blocks[0].first_op.results[0].type)
    names = [n for n in ("%r", "%c") if n in operands]
    rng = random.Random(valid + operands)
    values: list[Any] = [-1, 0, 1, 7, 8, 9, 15, 16, 17, True, np.int64(3), 2.0]
    for _ in range(60):
        r, c = rng.choice(values), rng.choice(values)
        regs = compiled.template.copy()
        regs[0] = Env(program.config(), 0, (0, 1), (0, 1))
        regs[1], regs[2] = r, c
        got = _outcome(lambda regs=regs: step(regs))
        want = _outcome(lambda r=r, c=c: Tile(spec, *[{"%r": r, "%c": c}[n] for n in names]))
        assert got[0] == want[0] and (got[0] == "ok" or got[1] == want[1]), (r, c)
        if got[0] == "ok":
            tile, made = regs[3], Tile(spec, *[{"%r": r, "%c": c}[n] for n in names])
            assert (tile.spec, tile.valid_shape, tile.binding) == (made.spec, made.valid_shape, made.binding)
            assert type(tile.valid_shape[0]) is int and tile.tobytes() == made.tobytes()


# --- views made from run-time sizes ----------------------------------------------------------------------------------
def test_views_whose_run_time_sizes_change_every_turn() -> None:
    """make_tensor_view keeps the shape of the sizes it met last: sizes that go up and down every turn (strides
    fixed) get their own shape each time, and the partitions of those views follow."""
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c3 : index
      %k = arith.addi %m, %c1 : index
      %tv = pto.make_tensor_view %x, shape = [%k, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x8xf32>
      %tw = pto.make_tensor_view %y, shape = [%k, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x8xf32>
      %pv = pto.partition_view %tv, offsets = [%m, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x8xf32> -> !pto.partition_tensor_view<1x8xf32>
      %pw = pto.partition_view %tw, offsets = [%m, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x8xf32> -> !pto.partition_tensor_view<1x8xf32>
      pto.tload ins(%pv : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
      pto.tadds ins(%t, %s : !pto.tile_buf<vec, 1x8xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
      pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%pw : !pto.partition_tensor_view<1x8xf32>)
    }
    return"""
    program = kernel(body, "%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index, %s: f32")
    x = np.arange(24, dtype=np.float32)
    for n, s in ((7, 1.0), (3, 2.0), (2, 3.0)):
        y = np.zeros(24, np.float32)
        program.run(x, y, n, s)
        want = np.zeros(24, np.float32)
        for i in range(n):
            m = i % 3
            want[m * 8:(m + 1) * 8] = x[m * 8:(m + 1) * 8] + s
        assert np.array_equal(y, want), n
    with pytest.raises(ptoisa.PtoError) as info:  # a view past the tensor, then one inside it again
        program.run(x[:16].copy(), np.zeros(16, np.float32), 3, 1.0)
    assert location_of(info.value) == "<string>:11:7"  # %tv of the third turn


# --- scf.for with one iter_arg ---------------------------------------------------------------------------------------
def _carried_kernel(yielded: str, extra: bool) -> str:
    """A loop whose one carried value is `yielded` each turn (after a division that fails when %d is 0), nested in
    an outer loop that carries one value too; with `extra`, both loops carry a second value their bodies ignore
    (the general loop)."""
    inits = "%acc = %x, %unused = %c0" if extra else "%acc = %x"
    types = "(index, index)" if extra else "(index)"
    yields = f"{yielded}, %unused : index, index" if extra else f"{yielded} : index"
    results = "%r:2" if extra else "%r"
    result = "%r#0" if extra else "%r"
    outer = "%outer = %x, %spare = %c1) -> (index, index)" if extra else "%outer = %x) -> (index)"
    outer_yield = "%n, %spare : index, index" if extra else "%n : index"
    outer_results = "%o:2" if extra else "%o"
    outer_result = "%o#0" if extra else "%o"
    return not_alone(f"""module {{
  func.func @k(%x: index, %lo: index, %hi: index, %by: index, %d: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    {outer_results} = scf.for %j = %c0 to %c2 step %c1 iter_args({outer} {{
      {results} = scf.for %i = %lo to %hi step %by iter_args({inits}) -> {types} {{
        %q = arith.divsi %i, %d : index
        %s = arith.addi %acc, %q : index
        %m = arith.muli %s, %c7 : index
        scf.yield {yields}
      }}
      %n = arith.addi {result}, %outer : index
      scf.yield {outer_yield}
    }}
    return {outer_result} : index
  }}
}}
""")


@pytest.mark.parametrize("yielded", ["%m", "%acc", "%i", "%c7"])
def test_loops_with_one_carried_value_match_the_general_loop(yielded: str) -> None:
    one, general = load(_carried_kernel(yielded, False)), load(_carried_kernel(yielded, True))
    rng = random.Random(yielded)
    for _ in range(40):
        args = (rng.randint(-5, 5), rng.randint(-2, 3), rng.randint(-2, 6), rng.choice((-1, 0, 1, 2, 3)),
                rng.choice((0, 1, 2)))
        outcomes = []
        for program in (one, general):
            try:
                result = program.run(*args)
                outcomes.append((result.returns, result.ops_executed))
            except Exception as exc:  # noqa: BLE001 - compared
                outcomes.append((type(exc).__name__, str(exc), location_of(exc)))
        assert outcomes[0] == outcomes[1], args
        try:
            one.run(*args)
        except Exception:  # noqa: BLE001 - the failing cases are compared above
            continue
        steps = outcomes[0][1]
        one.run(*args, limits=Limits(max_steps=steps))
        with pytest.raises(LimitError):
            one.run(*args, limits=Limits(max_steps=steps - 1))
