"""The documented `Tile[...]` idiom type-checks (ptoisa ships py.typed), also under `mypy --strict`: the public
names are re-exported and the seed intrinsics (TCI, TGATHER, ... : callables with C++-style template arguments)
are callable for a type checker."""

from __future__ import annotations

import subprocess
import sys

import pytest

SNIPPET = """\
import numpy as np
from ptoisa import TCI, TCMPS, TGATHER, BLayout, CmpMode, MaskPattern, RecordEvent, Tile, TileType, int32_t, uint8_t

SrcT = Tile[TileType.Vec, float, 16, 16]
DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
src = SrcT()
dst = DstT(16, 2)
src.set_logical(np.zeros((16, 16), dtype=np.float32))
event = TCMPS(dst, src, 0.0, CmpMode.GT, target="a5")
RampT = Tile[TileType.Vec, int32_t, 1, 16]
ramp = RampT()
first: RecordEvent = TCI(ramp, 3)
second: RecordEvent = TCI[RampT, int32_t, 0](ramp, 3, event, first)
picked = Tile[TileType.Vec, float, 16, 8]()
TGATHER(picked, src, MaskPattern.P0101, target="cpu")
"""


def test_the_readme_idiom_type_checks(tmp_path):
    pytest.importorskip("mypy")
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "c"), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
