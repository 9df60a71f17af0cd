"""Every script in examples/python runs and exits 0 (each one checks its own results against NumPy)."""

from __future__ import annotations

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
