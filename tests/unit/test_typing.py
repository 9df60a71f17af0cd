"""The documented `Tile[...]` idiom type-checks (ptoisa ships py.typed)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SNIPPET = """\
import numpy as np
from ptoisa import TCMPS, BLayout, CmpMode, Tile, TileType, uint8_t

SrcT = Tile[TileType.Vec, float, 16, 16]
DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
src = SrcT()
dst = DstT(16, 2)
src.set_logical(np.zeros((16, 16), dtype=np.float32))
event = TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
"""


def test_the_readme_idiom_type_checks(tmp_path):
    pytest.importorskip("mypy")
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET)
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "c"),
                           str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
