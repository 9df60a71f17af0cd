"""CLI conventions: `python -m ptoisa`, a closed pipe is not an error."""

from __future__ import annotations

import numpy as np

import subprocess
import sys


def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "ptoisa", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("ptoisa ")


def test_a_closed_pipe_is_not_reported_as_a_bug():
    code = ("import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-m', 'ptoisa', 'example'], stdout=subprocess.PIPE, "
            "stderr=subprocess.PIPE)\n"
            "p.stdout.read(10); p.stdout.close()\n"
            "err = p.stderr.read().decode(); p.wait()\n"
            "print(p.returncode, repr(err))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    status, err = done.stdout.split(" ", 1)
    whole = subprocess.run([sys.executable, "-m", "ptoisa", "example"], capture_output=True, timeout=120)
    assert status == str(whole.returncode), done.stdout  # the job's status (some seed examples are refused)
    assert "internal error" not in err and "Traceback" not in err and "BrokenPipe" not in err


def _status_with_stdout_closed(*argv):
    """Run the CLI with a stdout whose reader has already gone: every write meets a broken pipe."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "ptoisa", *argv], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


def test_a_closed_pipe_keeps_the_jobs_exit_status():
    """`ptoisa check bad.pto | head` under `set -o pipefail`: the problems found still give exit status 1."""
    from pathlib import Path

    bad = Path(__file__).resolve().parents[2] / "examples" / "pto" / "invalid_legality_a2a3.pto"
    status, err = _status_with_stdout_closed("check", str(bad), "--target", "a2a3")
    assert status == 1, err
    assert "internal error" not in err and "Traceback" not in err
    status, err = _status_with_stdout_closed("targets")
    assert status == 0 and err == ""


def test_run_warnings_name_the_site_and_the_cli_flag(capsys):
    from pathlib import Path

    from ptoisa.cli.main import main

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    data = kernel.parent / "data" / "x_64x16_f32.npy"
    assert main(["run", str(kernel), str(data), "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1  # once per site, although the loop runs the op four times
    # the erratum changed only bytes outside dst's valid region: a note in the user's terms, not a warning
    assert err[0].startswith("note: TCMPS on a2a3") and f"[pto.tcmps at {kernel}:31:7]" in err[0]
    assert "stored outputs are the contract's" in err[0] and err[0].endswith("--no-errata turns it off.")
    assert "ptoisa.target(" not in err[0]


def test_an_erratum_that_changes_the_valid_region_stays_a_warning(tmp_path, capsys):
    """int32 GT on a2a3 runs as EQ (a fallback that changes valid bits): a warning naming the site and the flag."""
    from ptoisa.cli.main import main

    kernel = tmp_path / "gt.pto"
    kernel.write_text("""module attributes {pto.target_arch = "a2a3"} {
  func.func @gt(%x: !pto.ptr<i32, gm>, %m: !pto.ptr<ui8, gm>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    %tx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xi32>
    %tm = pto.make_tensor_view %m, shape = [%c1, %c2], strides = [%c2, %c1] : !pto.tensor_view<1x2xui8>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xi32> -> !pto.partition_tensor_view<1x16xi32>
    %pm = pto.partition_view %tm, offsets = [%c0, %c0], sizes = [%c1, %c2] : !pto.tensor_view<1x2xui8> -> !pto.partition_tensor_view<1x2xui8>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32, valid=1x16>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 1x32xui8, valid=1x2>
    pto.tload ins(%px : !pto.partition_tensor_view<1x16xi32>) outs(%s : !pto.tile_buf<vec, 1x64xi32, valid=1x16>)
    pto.tcmps ins(%s, %zero {cmpMode = #pto<cmp gt>} : !pto.tile_buf<vec, 1x64xi32, valid=1x16>, i32) outs(%b : !pto.tile_buf<vec, 1x32xui8, valid=1x2>)
    pto.tstore ins(%b : !pto.tile_buf<vec, 1x32xui8, valid=1x2>) outs(%pm : !pto.partition_tensor_view<1x2xui8>)
    return
  }
}
""")
    data = tmp_path / "x.npy"
    np.save(data, np.arange(16, dtype=np.int32).reshape(1, 16))
    assert main(["run", str(kernel), str(data), "zeros:1x2", "-q"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith("warning: TCMPS on a2a3") and "as EQ" in line for line in err), err


def test_run_prints_returns_and_speaks_json(tmp_path, capsys):
    import json

    from ptoisa.cli.main import main

    kernel = tmp_path / "ret.pto"
    kernel.write_text("func.func private @twice(%a: i32) -> i32 {\n  %c = arith.addi %a, %a : i32\n"
                      "  return %c : i32\n}\n"  # a second definition: @f is not the module's only one (an entry)
                      "func.func @f(%a: i32, %b: f32) -> (i32, f32) {\n  %c = func.call @twice(%a) : (i32) -> i32\n"
                      "  return %c, %b : i32, f32\n}\n")
    assert main(["run", str(kernel), "20", "1.5"]) == 0
    out = capsys.readouterr().out
    assert "return #0 = 40" in out and "return #1 = 1.5" in out
    assert main(["run", str(kernel), "20", "1.5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["returns"] == [40, 1.5] and doc["entry"] == "f" and doc["arguments"]["a"]["value"] == 20


def test_help_imports_neither_numpy_nor_xdsl():
    code = ("import sys\nfrom ptoisa.cli.main import main\n"
            "for argv in (['--help'], ['run', '--help'], ['check', '--help'], ['compare', '--help'], ['bogus']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "print(sorted(m for m in ('numpy', 'xdsl', 'ml_dtypes') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout[-300:]


def test_the_cli_target_names_are_the_registry():
    from ptoisa._names import DEFAULT_TARGET_NAME, ENV_VAR, TARGET_NAMES
    from ptoisa.targets import DEFAULT_TARGET, REGISTRY
    from ptoisa.targets import ENV_VAR as TARGETS_ENV_VAR

    assert TARGET_NAMES == tuple(t.value for t in REGISTRY)
    assert DEFAULT_TARGET_NAME == DEFAULT_TARGET.value and ENV_VAR == TARGETS_ENV_VAR


def test_run_takes_options_between_the_kernel_and_its_arguments(tmp_path, capsys):
    """`ptoisa run k.pto --target a5 x.npy ...`: what follows an option still belongs to the argument list, in
    order; a negative number is a value, not an option; an unknown option is still refused."""
    from pathlib import Path

    from ptoisa.cli.main import main

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    data = kernel.parent / "data" / "x_64x16_f32.npy"
    assert main(["run", str(kernel), "--target", "a5", str(data), "zeros:64x16", "-q", "zeros:64x2", "2.0",
                 "-100.0", "--out", str(tmp_path)]) == 0
    x = np.load(data)
    assert np.array_equal(np.load(tmp_path / "scaled.npy"), x * 2)
    assert np.array_equal(np.load(tmp_path / "mask.npy"), np.packbits(x * 2 > -100, axis=1, bitorder="little"))
    with __import__("pytest").raises(SystemExit) as info:
        main(["run", str(kernel), "--target", "a5", str(data), "--bogus"])
    assert info.value.code == 2 and "ptoisa run: error: unrecognized arguments" in capsys.readouterr().err


def test_a_failed_json_run_prints_one_json_object(capsys):
    import json
    from pathlib import Path

    from ptoisa.cli.main import main

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_softmax.pto"
    assert main(["run", str(kernel), "zeros:3", "zeros:8x64", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["status"] == 1 and "holds 3 elements" in report["errors"][0]


def _commands():
    """(name, parser) of every `ptoisa` command, nested ones (`vectors run`) included."""
    import argparse

    from ptoisa.cli.main import build_parser

    def walk(parser, prefix):
        for action in parser._actions:  # noqa: SLF001
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for name, child in action.choices.items():
                    yield from walk(child, f"{prefix} {name}".strip())
                return
        yield prefix, parser

    return list(walk(build_parser(), ""))


def test_every_command_names_the_modules_it_loads_at_start_up():
    """The modules a command imports with the collector paused (main's _start_up) must exist: a misspelt one
    would make every run of that command an internal error."""
    import importlib

    commands = _commands()
    assert {name for name, _ in commands} >= {"run", "check", "convert", "example", "vectors run", "targets",
                                               "compare", "show"}
    for name, parser in commands:
        loads = parser.get_default("loads")
        assert loads, f"{name} names no modules to load at start-up"
        for module in loads:
            assert importlib.import_module(module), (name, module)


def test_the_process_command_line_gives_what_main_gives(tmp_path, capsys):
    """`python -m ptoisa` (main() without argv: imports with the collector paused, then gc.freeze) prints and
    exits exactly as main(argv) in this process does, for a run, a check that finds errors and a missing file;
    and it leaves the collector on for the command."""
    from pathlib import Path

    from ptoisa.cli.main import main

    examples = Path(__file__).resolve().parents[2] / "examples" / "pto"
    cases = [
        ["run", str(examples / "run_scale_compare.pto"), str(examples / "data" / "x_64x16_f32.npy"), "zeros:64x16",
         "zeros:64x2", "2.0", "100.0"],
        ["check", str(examples / "invalid_legality_a2a3.pto"), str(examples / "run_scale_compare.pto")],
        ["run", str(tmp_path / "missing.pto")],
    ]
    for argv in cases:
        status = main(argv)
        captured = capsys.readouterr()
        done = subprocess.run([sys.executable, "-m", "ptoisa", *argv], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout, done.stderr) == (status, captured.out, captured.err), argv
    code = ("import gc, sys\nimport ptoisa.cli.run_impl as r\nseen = []\n"
            "r.cmd_run = lambda args, out: seen.append((gc.isenabled(), gc.get_freeze_count() > 10000)) or 0\n"
            "from ptoisa.cli.main import main\nsys.argv = ['ptoisa', 'run', 'k.pto']\nmain()\nprint(seen)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[(True, True)]", done.stdout + done.stderr
