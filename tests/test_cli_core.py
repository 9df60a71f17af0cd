"""The core commands of the `ptoisa` CLI: example, vectors run, targets; exit statuses and no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptoisa.cli.main import main

DATA = Path(__file__).resolve().parent / "data" / "conformance"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_example_list_names_every_seed_example(capsys):
    code, out, _ = run(capsys, "example", "--list")
    names = [line.split()[0] for line in out.splitlines()]
    assert code == 0
    assert names == ["tcmps_auto", "tcmps_manual", "tcmps_tile", "tci_auto", "tci_auto_tmp", "tci_manual",
                     "tci_manual_tmp", "tpartmul_auto", "tpartmul_manual", "texpands_auto", "texpands_manual",
                     "tgather_auto", "tgather_manual"]


def test_example_prints_the_target_and_the_result(capsys):
    code, out, _ = run(capsys, "example", "tci_manual", "--target", "a5")
    assert code == 0
    assert out.splitlines()[0] == "== tci_manual on a5"
    # TCI descending from 100 over 16 elements: 100, 99, ..., 85.
    assert "[[100  99  98  97  96  95  94  93  92  91  90  89  88  87  86  85]]" in out


def test_example_reports_the_a2a3_erratum_and_its_result(capsys):
    code, out, _ = run(capsys, "example", "tci_manual_tmp", "--target", "a2a3")
    assert code == 0
    assert "erratum tci_tmp_descending_negates" in out
    assert "(--no-errata gives the contract's result instead)" in out and "ptoisa.target(" not in out  # CLI terms
    assert "[[-100 -101 -102" in out
    code, out, _ = run(capsys, "example", "tci_manual_tmp", "--target", "a2a3", "--no-errata")
    assert "warning" not in out and "[[100  99  98" in out


def test_refused_examples_exit_1_with_the_reason(capsys):
    code, out, _ = run(capsys, "example", "tgather_auto", "tgather_manual", "--target", "a2a3")
    assert code == 1
    assert "refused: TGATHER on a2a3: tmp is required on this target" in out
    assert "refused: TGATHER on a2a3: dst cannot hold the gathered stream of 128 elements (it has 16)" in out


def test_unknown_example_is_a_usage_error(capsys):
    code, _, err = run(capsys, "example", "nope")
    assert code == 2 and err == "ptoisa: error: unknown example nope (see: ptoisa example --list)\n"


def test_vectors_run_agrees_with_the_sample_and_writes_results(capsys, tmp_path):
    results = tmp_path / "out.jsonl"
    code, out, _ = run(capsys, "vectors", "run", str(DATA / "tci.jsonl"), str(DATA / "tpartmul.jsonl"),
                       "--results", str(results), "--quiet")
    assert code == 0
    assert out.splitlines()[0] == "target: cpu"
    total = out.splitlines()[-1].split()
    assert total[0] == "total" and total[-1] == "100.0%"
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    assert len(lines) == 49 + 53
    first = lines[0]
    assert set(first) == {"case_id", "status", "message", "warnings", "outputs", "verdict"}
    rejected = [x for x in lines if x["status"] == "rejected"]
    assert rejected and all(x["outputs"] for x in rejected)


def test_vectors_run_exits_1_on_a_mismatch(capsys, tmp_path):
    record = json.loads((DATA / "tci.jsonl").read_text().splitlines()[0])
    record["outputs"]["dst"]["hex"] = "00" * (len(record["outputs"]["dst"]["hex"]) // 2)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(record) + "\n")
    code, out, _ = run(capsys, "vectors", "run", str(bad))
    assert code == 1
    assert f"{record['case_id']}: mismatched" in out


def test_vectors_run_reports_a_broken_line_as_an_error_of_its_own_and_runs_the_rest(capsys, tmp_path):
    bad = tmp_path / "broken.jsonl"
    good = (Path(__file__).parent / "data" / "conformance" / "tci.jsonl").read_text().splitlines()[0]
    bad.write_text("{not json\n" + good + "\n")
    code, out, err = run(capsys, "vectors", "run", str(bad))
    assert code == 1
    assert f"{bad}:1: errors: malformed case ({bad}:1: not valid JSON" in out
    assert "ran 2 cases" in err and "Traceback" not in err + out
    assert out.splitlines()[-1].split()[1:3] == ["1", "0"]  # total: 1 matched, 0 mismatched
    code, _, err = run(capsys, "vectors", "run", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err and "no such file" in err


def test_targets_lists_buffers_and_errata(capsys):
    code, out, _ = run(capsys, "targets", "cpu")
    assert code == 0
    assert out.startswith("cpu: reference C++ CPU simulator")
    assert "UB 512 KiB" in out and "erratum tcmps_eq_tolerance" in out


def test_target_from_the_environment(capsys, monkeypatch):
    monkeypatch.setenv("PTOISA_TARGET", "a5")
    code, out, _ = run(capsys, "example", "texpands_auto")
    assert code == 0 and out.startswith("== texpands_auto on a5")


def test_help_teaches_with_examples(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    assert "ptoisa vectors run" in out and "PTOISA_TARGET" in out


def test_a_bare_ptoisa_prints_the_commands_not_one_error_line(capsys):
    """`ptoisa` alone shows what there is to do (the help, on stderr, exit 2 as any bad usage), where argparse
    alone says 'the following arguments are required: COMMAND'."""
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert "required" not in err and err.startswith("usage: ptoisa")
    assert all(f"    {command} " in err for command in ("run", "check", "convert", "compare", "targets"))


def test_vectors_results_never_overwrite_an_input_and_are_written_whole(capsys, tmp_path):
    source = tmp_path / "tci.jsonl"
    source.write_bytes((DATA / "tci.jsonl").read_bytes())
    before = source.read_bytes()
    code, _, err = run(capsys, "vectors", "run", str(source), "--results", str(source))
    assert code == 2 and "it is an input" in err
    assert source.read_bytes() == before
    results = tmp_path / "out.jsonl"
    results.write_text("old\n")
    code, _, err = run(capsys, "vectors", "run", str(source), "--results", str(results))
    assert code == 0 and "replaced the old file" in err
    lines = results.read_text().splitlines()
    assert len(lines) == len(before.splitlines())
    assert {json.loads(x)["verdict"] for x in lines} <= {"matched", "rejected as expected"}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_every_erratum_of_every_target_cites_its_evidence(capsys):
    from ptoisa.targets import REGISTRY

    for profile in REGISTRY.values():
        assert set(profile.evidence) == set(profile.errata), profile.name
        assert all(e.startswith("include/pto/") for e in profile.evidence.values())
    code, out, _ = run(capsys, "targets", "a5")
    assert code == 0 and "erratum tgather_cmp_u16_gt_as_eq:" in out and "[include/pto/npu/a5/TGather.hpp:941-946]" in out


def test_vectors_run_honours_the_environment_then_defaults_to_cpu(capsys, monkeypatch, tmp_path):
    source = DATA / "tci.jsonl"
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    code, out, _ = run(capsys, "vectors", "run", str(source), "-q")
    assert "target: cpu" in out
    monkeypatch.setenv("PTOISA_TARGET", "a5")
    code, out, _ = run(capsys, "vectors", "run", str(source), "-q")
    assert "target: a5" in out
