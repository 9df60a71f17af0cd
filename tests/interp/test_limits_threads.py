"""Run limits (steps, time, bytes) and a Program shared between threads."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from ptoisa.interp import ArgumentError, LimitError, Limits, load

EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"

LOOP = """func.func @spin(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %c1 : index
  }
  return
}
"""

BIG_TILE = """func.func @big() {
  %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=128, cols=256, v_row=128, v_col=256, blayout=row_major, slayout=none_box, fractal=512, pad=0>
  return
}
"""


def test_a_loop_past_the_step_budget_is_refused_before_it_starts():
    program = load(LOOP)
    with pytest.raises(LimitError, match="more than 1000 op steps") as info:
        program.run(2**62, limits=Limits(max_steps=1000))
    assert "in scf.for at <string>:4:3" in "\n".join(info.value.__notes__)
    assert program.run(500, limits=Limits(max_steps=1000)).ops_executed == 501  # the loop op + 500 bodies


def test_the_default_limits_refuse_an_endless_loop_at_once():
    with pytest.raises(LimitError, match="--max-steps"):
        load(LOOP).run(2**63 - 1)


EMPTY_LOOPS = """func.func @spin(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 7 : i32
  scf.for %i = %c0 to %n step %c1 {
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (i32) {
    scf.yield %a : i32
  }
  return
}
"""


def test_loops_of_empty_turns_are_bounded_by_the_step_limit_too():
    """A turn with no op in its body (or only its carried values) is charged one step, its scf.yield, as a
    scf.while turn is charged its condition; before, such turns cost nothing, so --max-steps never stopped a
    loop of 2^62 of them and `ptoisa run` spun until --timeout, forever by default."""
    program = load(EMPTY_LOOPS)
    with pytest.raises(LimitError, match="more than 100000000 op steps") as info:
        program.run(2**62, limits=Limits(timeout=5))  # (the time limit: so that the old code fails, not hangs)
    assert "in scf.for at <string>:5:3" in "\n".join(info.value.__notes__)
    result = program.run(10)
    assert result.ops_executed == 1 + 10 + 1 + 10  # two loops of 10 turns (constants are not counted)
    assert program.run(0).ops_executed == 2


def test_a_timeout_stops_a_long_loop_at_the_loop():
    with pytest.raises(LimitError, match="time limit of 0.05 s") as info:
        load(LOOP).run(10**8, limits=Limits(max_steps=None, timeout=0.05))
    assert "scf.for" in "\n".join(info.value.__notes__)


def test_an_allocation_over_the_byte_limit_names_the_op():
    with pytest.raises(LimitError, match="131072 bytes") as info:
        load(BIG_TILE).run(limits=Limits(max_bytes=1 << 16))
    assert "in pto.alloc_tile at <string>:2:" in "\n".join(info.value.__notes__)


@pytest.mark.parametrize("bad", [0, -1, True, "10", float("nan")])
def test_limits_must_be_positive_numbers(bad):
    with pytest.raises(ArgumentError):
        Limits(max_steps=bad)


def test_a_program_shared_by_threads_gives_every_thread_the_serial_result():
    rng = np.random.default_rng(7)
    inputs = [rng.uniform(-50, 50, (64, 16)).astype(np.float32) for _ in range(8)]
    expected = []
    for x in inputs:
        scaled, mask = np.zeros_like(x), np.zeros((64, 2), np.uint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load(EXAMPLES / "run_scale_compare.pto").run(x, scaled, mask, 2.0, 10.0, target="cpu")
        expected.append((scaled, mask))
    for _ in range(5):  # fresh programs: the first runs decode concurrently
        program = load(EXAMPLES / "run_scale_compare.pto")
        got: list[object] = [None] * len(inputs)
        barrier = threading.Barrier(len(inputs))

        def work(k: int, program=program, got=got, barrier=barrier) -> None:
            scaled, mask = np.zeros_like(inputs[k]), np.zeros((64, 2), np.uint8)
            barrier.wait()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    program.run(inputs[k], scaled, mask, 2.0, 10.0, target="cpu")
                got[k] = (scaled, mask)
            except Exception as exc:  # noqa: BLE001 - reported by the assertion below
                got[k] = exc

        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for k, result in enumerate(got):
            assert isinstance(result, tuple), result
            assert np.array_equal(result[0], expected[k][0]) and np.array_equal(result[1], expected[k][1])
        assert program.decode_count == 1


# --- the CLI side ----------------------------------------------------------------------------------------------
def _cli(capsys, *argv):
    from ptoisa.cli.main import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_limits_are_clean_errors_with_the_location(tmp_path, capsys):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(LOOP)
    code, _, err = _cli(capsys, "run", str(kernel), str(2**62))
    assert code == 1 and "--max-steps" in err and f"in scf.for at {kernel}:4:3" in err
    code, _, err = _cli(capsys, "run", str(kernel), "1000000000", "--max-steps", "10000000000", "--timeout", "0.05")
    assert code == 1 and "time limit" in err
    code, _, err = _cli(capsys, "run", str(kernel), "10", "--max-steps", "0")
    assert code == 2 and "must be positive" in err


def test_cli_refuses_huge_zeros_and_size_mismatched_bin_files(tmp_path, capsys):
    kernel = EXAMPLES / "run_scale_compare.pto"
    code, _, err = _cli(capsys, "run", str(kernel), "zeros:100000x100000", "zeros:64x16", "zeros:64x2", "2", "1")
    assert code == 2 and "over --max-bytes" in err
    odd = tmp_path / "x.bin"
    odd.write_bytes(b"\0" * (64 * 16 * 4 + 2))
    code, _, err = _cli(capsys, "run", str(kernel), str(odd), "zeros:64x16", "zeros:64x2", "2", "1")
    assert code == 2 and "not a whole number of float32 elements" in err
    f64 = tmp_path / "x.npy"
    np.save(f64, np.zeros((64, 16)))
    code, _, err = _cli(capsys, "run", str(kernel), str(f64), "zeros:64x16", "zeros:64x2", "2", "1")
    assert code == 2 and "needs float32 data" in err and "float64" in err


def test_cli_out_never_overwrites_an_input_and_reports_replacements(tmp_path, capsys):
    kernel = EXAMPLES / "run_scale_compare.pto"
    x = tmp_path / "scaled.npy"
    np.save(x, np.ones((64, 16), np.float32))
    before = x.read_bytes()
    code, _, err = _cli(capsys, "run", str(kernel), str(x), str(x), "zeros:64x2", "2", "1", "--out", str(tmp_path))
    assert code == 2 and "it is an input" in err
    assert x.read_bytes() == before
    out = tmp_path / "out"
    args = ["run", str(kernel), str(x), "zeros:64x16", "zeros:64x2", "2", "1", "--out", str(out), "-q"]
    assert _cli(capsys, *args)[0] == 0
    code, _, err = _cli(capsys, *args)
    assert code == 0 and "replaced:" in err and "scaled.npy" in err
    assert sorted(p.name for p in out.iterdir()) == ["mask.npy", "scaled.npy"]
    assert np.array_equal(np.load(out / "scaled.npy"), np.full((64, 16), 2, np.float32))


def test_a_deadline_shared_by_runs_stops_the_run_that_passes_it():
    from time import monotonic

    program = load(LOOP)
    assert program.run(10, limits=Limits(deadline=monotonic() + 60)).ops_executed == 11
    with pytest.raises(LimitError, match="went past its deadline"):
        program.run(10, limits=Limits(deadline=monotonic() - 1))
    # with a timeout too, the earlier of the two applies and the message names the timeout
    with pytest.raises(LimitError, match="time limit of 60 s"):
        program.run(10, limits=Limits(timeout=60, deadline=monotonic() - 1))
    for bad in (True, "1", float("nan")):
        with pytest.raises(ArgumentError, match="deadline"):
            Limits(deadline=bad)
