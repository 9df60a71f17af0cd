"""Every script in examples/python runs and exits 0 (each one checks its own results against NumPy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "python"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_there_are_examples():
    assert len(SCRIPTS) >= 3


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    extra = [str(tmp_path / "golden")] if script.name == "golden_data.py" else []
    done = subprocess.run([sys.executable, str(script), *extra], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    if extra:
        assert (tmp_path / "golden" / "manifest.json").is_file()


def test_golden_data_writes_what_run_golden_writes(tmp_path):
    """golden_data.py's folder is the one `ptoisa run --out DIR --golden` writes for the same kernel, inputs and
    target: the same manifest.json (outputs, inputs, scalars, each tensor's dtype, shape, files, byte_order) and
    the same files, so `ptoisa compare` reads the example's .bin through its manifest as it reads the CLI's."""
    root = EXAMPLES.parent.parent
    example = tmp_path / "example"
    done = subprocess.run([sys.executable, str(EXAMPLES / "golden_data.py"), str(example), "--target", "a2a3"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cli = tmp_path / "cli"
    done = subprocess.run([sys.executable, "-m", "ptoisa", "run", "examples/pto/run_scale_compare.pto",
                           str(example / "x.npy"), "zeros:64x16", "zeros:64x2", "2.0", "100.0", "--target", "a2a3",
                           "--out", str(cli), "--golden", "-q"], capture_output=True, text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr
    assert json.loads((example / "manifest.json").read_text()) == json.loads((cli / "manifest.json").read_text())
    assert sorted(p.name for p in example.iterdir()) == sorted(p.name for p in cli.iterdir())
    for name in ("x.bin", "scaled.bin", "mask.bin", "mask.npy"):
        assert (example / name).read_bytes() == (cli / name).read_bytes(), name
    for bin_file, other in ((example / "scaled.bin", cli / "scaled.npy"), (cli / "mask.bin", example / "mask.bin")):
        done = subprocess.run([sys.executable, "-m", "ptoisa", "compare", str(bin_file), str(other)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0 and done.stdout.startswith("identical"), done.stdout + done.stderr
