"""Shared test settings.

Fuzzers run a small budget by default (CI); set PTOISA_FUZZ_SCALE to multiply it, e.g.
`PTOISA_FUZZ_SCALE=100 python -m pytest tests/fuzz` for a long run before a release.
"""

from __future__ import annotations

import contextlib
import io
import os


def fuzz_budget(default: int) -> int:
    """How many random cases a fuzzer runs: `default` times $PTOISA_FUZZ_SCALE (1 unless set)."""
    try:
        scale = float(os.environ.get("PTOISA_FUZZ_SCALE", "1"))
    except ValueError:
        scale = 1.0
    return max(1, int(default * scale))


def cli_status(argv: list[str]) -> tuple[object, str]:
    """Run `ptoisa ARGV` in process: (its exit status, what it wrote to standard error); standard output is
    dropped."""
    from ptoisa.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, err.getvalue()
