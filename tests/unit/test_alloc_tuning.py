"""The allocator tuning (ptoisa._alloc): applied on Linux with glibc when ptoisa's NumPy core is imported, left
alone with PTOISA_MALLOC_TUNING=0, and never an error elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = "import ptoisa, ptoisa._alloc as a; ptoisa.Tile; print(a.TUNED)"


def _tuned(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PTOISA_MALLOC_TUNING"}
    if env_value is not None:
        env["PTOISA_MALLOC_TUNING"] = env_value
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
                    reason="glibc only")
def test_tuned_by_default_and_off_on_request():
    assert _tuned(None) == "True"
    assert _tuned("0") == "False"
