"""The vector instructions against the reference C++ CPU simulator: every case in tests/data/vectors (made by
tools/oracle/generate.py from the simulator at pto-isa 3186c381) must match byte for byte on the cpu profile,
or be refused where the case says the simulator's result is undefined."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.conformance.runner import run_case
from ptoisa.conformance.vectors import read_cases
from ptoisa.isa import vector  # noqa: F401 - registers the records
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import make_config

FOLDER = Path(__file__).resolve().parents[1] / "data" / "vectors"
CASES = [pytest.param(case, id=case.case_id) for path in sorted(FOLDER.glob("*.jsonl")) for case in read_cases(path)]


def test_the_vectors_cover_the_records():
    ops = {p.values[0].op.upper() for p in CASES}
    records = {name for name, rec in REGISTRY.items() if rec.generated}
    assert len(ops) >= 50 and ops <= records
    assert len(CASES) >= 1200


@pytest.mark.parametrize("case", CASES)
def test_cpu_reproduces_the_simulator(case):
    result = run_case(case, make_config("cpu"))
    assert result["verdict"] in ("matched", "rejected as expected"), (result["verdict"], result["message"])
