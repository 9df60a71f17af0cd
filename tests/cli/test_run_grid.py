"""`ptoisa run --grid N`: --timeout bounds the whole grid (one deadline for every block), --max-steps each
block, and a long grid shows a block counter on a terminal."""

from __future__ import annotations

import io

import numpy as np

from ptoisa.cli import run_impl
from ptoisa.cli.main import main

# each block spins through %n loop turns, then writes its block index into y[block]
SPIN = """func.func @spin(%y: !pto.ptr<i64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = pto.get_block_idx
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %c1 : index
  }
  %bi = arith.index_cast %b : i64 to index
  pto.store_scalar %b, %y[%bi] : !pto.ptr<i64>, i64
  return
}
"""
TURNS = "1000000"  # a block: well under a second here (about 0.1 s); 200 of them: many seconds
BLOCKS = "200"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_timeout_bounds_the_whole_grid_and_nothing_is_written(tmp_path, capsys):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(SPIN)
    out = tmp_path / "out"
    # one block fits the time limit with room to spare ...
    code, _, err = _run(capsys, "run", str(kernel), "zeros:200", TURNS, "--block", f"7/{BLOCKS}",
                        "--timeout", "1", "--target", "cpu", "-q")
    assert code == 0, err
    # ... all of them do not: refused like any timeout (exit 1, the time limit named), no file written
    code, _, err = _run(capsys, "run", str(kernel), "zeros:200", TURNS, "--grid", BLOCKS, "--timeout", "1",
                        "--target", "cpu", "--out", str(out), "--golden")
    assert code == 1, err
    assert "ptoisa: error: the run took longer than its time limit of 1 s (--timeout)" in err
    assert f"of --grid {BLOCKS}; --timeout bounds all the blocks together" in err
    assert not out.exists()


def test_max_steps_is_per_block(tmp_path, capsys):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(SPIN)
    # a block executes 100 loop turns and a few other ops: 8 blocks together pass 200 steps, each stays under
    code, out, err = _run(capsys, "run", str(kernel), "zeros:8", "100", "--grid", "8", "--max-steps", "200",
                          "--target", "cpu", "--format", "json")
    assert code == 0, err
    assert '"ops_executed": ' in out and "block 8/8" in err
    code, _, err = _run(capsys, "run", str(kernel), "zeros:8", "300", "--grid", "8", "--max-steps", "200",
                        "--target", "cpu")
    assert code == 1 and "more than 200 op steps (--max-steps)" in err and "in block 0 of --grid 8" in err


def test_a_long_grid_counts_blocks_on_a_terminal_unless_quiet(tmp_path, capsys, monkeypatch):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(SPIN)
    monkeypatch.setattr(run_impl, "_COUNTER_AFTER", 0.0)  # (a grid past 2 s, without waiting for one)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for quiet in ([], ["-q"]):
        err = Terminal()
        monkeypatch.setattr("sys.stderr", err)
        code = main(["run", str(kernel), "zeros:200", "100000", "--grid", "200", "--target", "cpu",
                     "--out", str(tmp_path / f"o{len(quiet)}"), *quiet])
        assert code == 0
        text = err.getvalue()
        if quiet:
            assert "block" not in text
        else:  # the counter, erased when done, then the last block's line
            assert "\rblock " in text and text.endswith("\r\033[Kblock 200/200\n")
        assert np.array_equal(np.load(tmp_path / f"o{len(quiet)}" / "y.npy"), np.arange(200))
    capsys.readouterr()
