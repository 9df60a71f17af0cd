"""The vector runner under malformed input: a broken line or case is an error of its own, never a pass, and
never costs the results of the other cases.

Mutations are applied to real cases of the bundled sample: JSON-level (drop or retype a field, empty a section,
truncate a hex string) and byte-level (cut or corrupt the line). A mutated case may still be a valid case whose
verdict legitimately changes; what must never happen is a pass for a case that lacks what its `expect` needs,
an exception escaping the runner, or a missing result.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

from conftest import fuzz_budget

from ptoisa.conformance.runner import RUNNERS, run_case
from ptoisa.conformance.vectors import Case, _parse_line, check_case
from ptoisa.errors import VectorFormatError
from ptoisa.targets import make_config

DATA = Path(__file__).resolve().parents[1] / "data" / "conformance"
LINES = [line for path in sorted(DATA.glob("*.jsonl")) for line in path.read_text().splitlines() if line.strip()]
CONFIG = make_config("cpu")
PASSES = ("matched", "rejected as expected")


def _mutate(record: dict, rng: random.Random) -> dict:
    record = copy.deepcopy(record)
    kind = rng.randrange(11)
    if kind == 0:
        record.pop(rng.choice(sorted(record)), None)
    elif kind == 1:
        section = rng.choice(["inputs", "initial_outputs", "outputs", "params"])
        record[section] = rng.choice([None, {}, [], 0, "x"])
    elif kind == 2 and isinstance(record.get("params", {}).get("tiles"), dict) and record["params"]["tiles"]:
        role = rng.choice(sorted(record["params"]["tiles"]))
        desc = record["params"]["tiles"][role]
        key = rng.choice(sorted(desc))
        desc[key] = rng.choice([None, -1, 10**30, 2.5, True, "Vec", "f32", {}])
    elif kind == 3:
        for section in ("inputs", "initial_outputs", "outputs"):
            for entry in record.get(section, {}).values():
                if isinstance(entry, dict) and isinstance(entry.get("hex"), str) and rng.random() < 0.5:
                    entry["hex"] = entry["hex"][: rng.randrange(len(entry["hex"]) + 1)]
    elif kind == 4:
        record["expect"] = rng.choice(["reject", "match", "maybe", None, 1])
    elif kind == 5:
        record["op"] = rng.choice(["tadd", "", None, 7, "TCMPS"])
    elif kind == 6 and isinstance(record.get("params"), dict):
        record["params"][rng.choice(["scalar", "cmp_mode", "start", "mask_pattern"])] = rng.choice(
            [None, {}, "GT", {"dtype": "f32", "hex": "zz"}, {"dtype": "f64", "hex": "00"}, 10**40])
    elif kind == 7:  # hex damage that keeps the length: spaces (bytes.fromhex skips them), upper case
        for section in ("inputs", "initial_outputs", "outputs"):
            for entry in record.get(section, {}).values():
                if isinstance(entry, dict) and isinstance(entry.get("hex"), str) and rng.random() < 0.5:
                    entry["hex"] = rng.choice(["  " + entry["hex"][:-2], entry["hex"].upper()])
    elif kind == 8 and isinstance(record.get("outputs"), dict) and record["outputs"]:
        record["outputs"].pop(rng.choice(sorted(record["outputs"])))  # one expected output missing
    elif kind == 9 and isinstance(record.get("params", {}).get("tiles"), dict) and record["params"]["tiles"]:
        role = rng.choice(sorted(record["params"]["tiles"]))
        record["params"]["tiles"][role]["dtype"] = rng.choice([{"dtype": "f32"}, "(2,", ",", [("a", "<f2")], "S4"])
    else:
        for section in ("outputs", "initial_outputs"):
            record.pop(section, None) if rng.random() < 0.5 else None
    return record


def _malformed(case: Case) -> bool:
    try:
        check_case(case, RUNNERS)
    except VectorFormatError:
        return True
    return False


def test_mutated_cases_never_pass_when_malformed_and_never_escape():
    rng = random.Random(20261124)
    budget = fuzz_budget(400)
    passes_of_malformed = []
    for n in range(budget):
        line = rng.choice(LINES)
        if n % 4 == 0:  # byte-level damage
            raw = bytearray(line.encode())
            for _ in range(rng.randrange(1, 4)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            case = _parse_line(bytes(raw[: rng.randrange(1, len(raw) + 1)]), "fuzz", n)
        else:
            case = Case(_mutate(json.loads(line), rng), "fuzz", n)
        result = run_case(case, CONFIG)  # must not raise
        assert result["verdict"] in ("matched", "mismatched", "rejected as expected", "wrongly rejected",
                                     "wrongly accepted", "errors")
        if _malformed(case) and result["verdict"] in PASSES:
            passes_of_malformed.append(case.case_id)
    assert not passes_of_malformed


def test_a_reject_case_without_tiles_or_bytes_is_an_error_not_a_pass():
    record = json.loads(next(line for line in LINES if '"expect": "reject"' in line or '"expect":"reject"' in line))
    for damage in ("params", "initial_outputs", "inputs"):
        if not record.get(damage):
            continue
        broken = copy.deepcopy(record)
        del broken[damage]
        result = run_case(Case(broken, "t", 1), CONFIG)
        assert result["verdict"] == "errors", (damage, result)
        assert result["message"].startswith("malformed case")


def test_a_match_case_without_outputs_is_an_error_not_a_pass():
    record = json.loads(next(line for line in LINES if '"expect": "match"' in line or '"expect":"match"' in line))
    for outputs in (None, {}, {"dst": {}}, {"dst": {"hex": ""}}):
        broken = dict(record, outputs=outputs)
        assert run_case(Case(broken, "t", 1), CONFIG)["verdict"] == "errors"


def _first(expect: str, op: str | None = None) -> dict:
    return json.loads(next(line for line in LINES if f'"expect":"{expect}"' in line.replace(" ", "")
                           and (op is None or f'"op":"{op}"' in line.replace(" ", ""))))


def test_upper_case_hex_is_the_same_bytes():
    """Hex digits in upper case are the same bytes: a matching case still matches, a refusal still counts."""
    for expect in ("match", "reject"):
        record = _first(expect)
        for section in ("inputs", "initial_outputs", "outputs"):
            for entry in record.get(section, {}).values():
                entry["hex"] = entry["hex"].upper()
        want = "matched" if expect == "match" else "rejected as expected"
        assert run_case(Case(record, "t", 1), CONFIG)["verdict"] == want


def test_hex_with_spaces_or_a_missing_output_is_malformed_not_a_pass():
    for expect, section in (("match", "outputs"), ("reject", "inputs"), ("match", "inputs")):
        record = _first(expect, "tpartmul")
        role = sorted(record[section])[0]
        record[section][role]["hex"] = "  " + record[section][role]["hex"][:-2]  # same length, one byte less
        result = run_case(Case(record, "t", 1), CONFIG)
        assert result["verdict"] == "errors" and "hexadecimal" in result["message"], result
    record = _first("match", "tgather")
    assert len(record["outputs"]) > 1
    del record["outputs"][sorted(record["outputs"])[0]]
    result = run_case(Case(record, "t", 1), CONFIG)
    assert result["verdict"] == "errors" and "no expected bytes" in result["message"]


def test_a_dtype_that_is_not_a_type_name_is_malformed():
    record = _first("match", "tci")
    record["params"]["tiles"]["dst"]["dtype"] = {"dtype": "f32", "hex": "0000803f"}
    result = run_case(Case(record, "t", 1), CONFIG)
    assert result["verdict"] == "errors" and "unknown element type" in result["message"]


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _leaves(item, (*path, n))
    elif not path or path[-1] != "hex":
        yield path


LEAVES = [0, -0.0, 1e999, float("nan"), 10**30, -1, 2, 7, True, None, "16", "ColMajor", "GT", "f32", [], {}]


def test_a_field_of_the_wrong_kind_is_a_malformed_case_not_a_library_error():
    """Any field (not a hex string) replaced by a value of another kind or range: the case runs, is refused, or
    is a malformed case; an error of any other kind ("KeyError: 'ColMajor'" for a cmp_mode naming no mode, an
    unhashable mask_pattern, a missing tile role) would be a library error and is what this test hunts."""
    rng = random.Random(20261127)
    library_errors = []
    for n in range(fuzz_budget(300)):
        record = json.loads(rng.choice(LINES))
        paths = list(_leaves(record))
        for _ in range(rng.randrange(1, 3)):
            path = rng.choice(paths)
            node = record
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = rng.choice(LEAVES)
        if rng.random() < 0.2 and isinstance(record.get("params", {}).get("tiles"), dict) and record["params"]["tiles"]:
            del record["params"]["tiles"][rng.choice(sorted(record["params"]["tiles"]))]
        result = run_case(Case(record, "fuzz", n), CONFIG)
        if result["status"] == "error" and not result["message"].startswith("malformed case"):
            library_errors.append(result["message"][:200])
    assert not library_errors, library_errors[:5]
