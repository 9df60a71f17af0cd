"""The vector instructions against the reference C++ CPU simulator: every case in tests/data/vectors (made by
tools/oracle/generate.py from the simulator at pto-isa 3186c381) must match byte for byte on the cpu profile,
or be refused where the case says the simulator's result is undefined or ptoisa's contract refuses it. The seed
instructions' vectors (seed_<op>.jsonl.gz) run through the conformance runners of tests/data/conformance."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.conformance.runner import run_case
from ptoisa.conformance.vectors import read_cases
from ptoisa.isa import vector  # noqa: F401 - registers the records
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import make_config

FOLDER = Path(__file__).resolve().parents[1] / "data" / "vectors"
CASES = [pytest.param(case, id=case.case_id) for path in sorted(FOLDER.glob("*.jsonl.gz")) for case in read_cases(path)]


SEEDS = {"TEXPANDS", "TCMPS", "TCI", "TPARTMUL", "TGATHER"}  # seed_<op>.jsonl.gz: the seed instructions' overloads


def test_the_vectors_cover_the_records():
    ops = {p.values[0].op.upper() for p in CASES}
    # every generated record that writes a tile has the simulator's vectors (TPRINT writes text: its output is
    # checked against the simulator's in tests/isa/test_tprint.py), and so has each seed instruction
    records = {name for name, rec in REGISTRY.items() if rec.generated and rec.outputs}
    assert ops - SEEDS == records, sorted(records - ops)
    assert SEEDS <= ops, sorted(SEEDS - ops)
    assert len(CASES) >= 3300


def test_every_seed_overload_has_matching_and_refused_vectors():
    kinds = {(p.values[0].op, p.values[0].record.get("overload"), p.values[0].expect) for p in CASES
             if p.values[0].op.upper() in SEEDS}
    for op, overload in [("texpands", "vec_rowmajor"), ("texpands", "vec_colmajor"), ("texpands", "vec_boxed"),
                         ("texpands", "mat"), ("texpands", "other_loc"), ("tcmps", "scalar"), ("tci", "no_tmp"),
                         ("tpartmul", "partmul"), ("tgather", "index"), ("tgather", "mask")]:
        assert (op, overload, "match") in kinds, (op, overload)
    for op, overload in [("tcmps", "scalar"), ("tci", "no_tmp"), ("tpartmul", "partmul"), ("tgather", "index"),
                         ("tgather", "mask")]:
        assert (op, overload, "reject") in kinds, (op, overload)


@pytest.mark.parametrize("case", CASES)
def test_cpu_reproduces_the_simulator(case):
    result = run_case(case, make_config("cpu"))
    assert result["verdict"] in ("matched", "rejected as expected"), (result["verdict"], result["message"])


def test_a_damaged_compressed_vector_file_is_a_clean_error(tmp_path):
    from ptoisa.errors import VectorFormatError

    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(VectorFormatError, match="bad.jsonl.gz"):
        list(read_cases(bad))
