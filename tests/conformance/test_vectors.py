"""The reference CPU simulator's conformance vectors: the cpu profile must agree with every case.

Runs the sample bundled in tests/data/conformance, and also ../shared/conformance when it sits beside the
checkout (it may hold newer cases).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.conformance.runner import run_case
from ptoisa.conformance.vectors import read_cases
from ptoisa.targets import make_config

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "tests" / "data" / "conformance", ROOT.parent / "shared" / "conformance"]


def _cases():
    seen = set()
    for folder in SOURCES:
        for path in sorted(folder.glob("*.jsonl")):
            for case in read_cases(path):
                key = (case.case_id, case.record.get("inputs", {}).__repr__()[:64])
                if key in seen:
                    continue
                seen.add(key)
                yield pytest.param(case, id=case.case_id)


CASES = list(_cases())


def test_the_bundled_sample_is_complete():
    ops = {c.values[0].op for c in CASES}
    assert ops == {"tcmps", "tci", "tpartmul", "texpands", "tgather"}
    assert len(CASES) >= 449


@pytest.mark.parametrize("case", CASES)
def test_cpu_profile_agrees_with_reference(case):
    result = run_case(case, make_config("cpu"))
    assert result["status"] != "error", result["message"]
    if case.expect == "reject":
        assert result["status"] == "rejected", "the reference refuses this case: " + case.record.get(
            "expect_reason", "")
        for role in case.output_roles():
            assert result["outputs"][role]["hex"] == case.initial_hex(role), f"{role} changed on a refused call"
    else:
        assert result["status"] == "ok", result["message"]
    assert result["verdict"] in ("matched", "rejected as expected")
