"""Run conformance cases through the public API and compare with what they expect.

Each case becomes one result line:
    {"case_id", "op", "status": "ok"|"rejected"|"error", "message", "warnings": [...],
     "outputs": {role: {"hex"}}, "verdict"}
`outputs` holds every output and scratch tile after the call, rejected cases included, so that "nothing changed"
can be checked. `verdict` is one of VERDICTS.
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import api
from .._quiet import quiet
from ..dtypes import as_dtype
from ..errors import PtoError, VectorFormatError
from ..isa.enums import CmpMode, GatherAxis, MaskPattern
from ..targets import Config
from ..tile.tile import Tile
from .vectors import Case, build_tile, check_case, scalar_value

VERDICTS = ("matched", "mismatched", "rejected as expected", "wrongly rejected", "wrongly accepted", "errors")
Runner = Callable[[Case, dict[str, Tile], Config], Any]


def _member(case: Case, enum: Any, key: str, default: str | None = None) -> Any:
    """The enum member params[key] names (VectorFormatError when it names none: a malformed case, not a library
    error)."""
    name = case.params.get(key, default)
    if not isinstance(name, str) or name not in enum.__members__:
        raise VectorFormatError(f"{case.case_id}: params.{key} must be one of {', '.join(enum.__members__)} "
                                f"(got {name!r})")
    return enum[name]


def _offset(case: Case) -> int:
    try:
        return int(case.params.get("offset", 0))
    except (TypeError, ValueError, OverflowError):
        raise VectorFormatError(f"{case.case_id}: params.offset must be an integer "
                                f"(got {case.params.get('offset')!r})") from None


class _Roles(dict[str, Tile]):
    """A case's tiles by role; a role its op needs and params.tiles lacks is a malformed case."""

    def __missing__(self, role: str) -> Tile:
        raise VectorFormatError(f"params.tiles has no {role!r} tile, which this op needs")


def _run_texpands(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    return api.TEXPANDS(tiles["dst"], scalar_value(case.params["scalar"]), target=config)


def _run_tcmps(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    mode = _member(case, CmpMode, "cmp_mode")
    other = tiles["src1"] if "src1" in tiles else scalar_value(case.params["scalar"])
    return api.TCMPS(tiles["dst"], tiles["src0"], other, mode, target=config)


def _run_tci(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    start = scalar_value(case.params["start"])
    extra = (tiles["tmp"],) if "tmp" in tiles else ()
    return api.TCI(tiles["dst"], start, *extra, descending=bool(case.params.get("descending", 0)), target=config)


def _run_tpartmul(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    return api.TPARTMUL(tiles["dst"], tiles["src0"], tiles["src1"], target=config)


def _run_tgather(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    params = case.params
    if "mask_pattern" in params:
        pattern = _member(case, MaskPattern, "mask_pattern")
        axis = _member(case, GatherAxis, "gather_axis", "GATHER_ROW")
        return api.TGATHER(tiles["dst"], tiles["src"], pattern, axis, target=config)
    if "k_value" in tiles:
        return api.TGATHER(tiles["dst"], tiles["src0"], tiles["k_value"], tiles["cdst"], tiles.get("tmp"),
                           _offset(case), _member(case, CmpMode, "cmp_mode"), target=config)
    extra = (tiles["tmp"],) if "tmp" in tiles else ()
    return api.TGATHER(tiles["dst"], tiles["src0"], tiles["indices"], *extra, target=config)


def _run_record(case: Case, tiles: dict[str, Tile], config: Config) -> Any:
    """Any instruction with a record: tiles by operand name, scalars (`{dtype, hex, value}`) and attributes
    (enum member names) from `params` under the C++ parameter names."""
    from ..isa import vector  # noqa: F401 - registers the records
    from ..isa.record import REGISTRY

    rec = REGISTRY[case.op.upper()]
    form = case.params.get("form", 0)
    if isinstance(form, bool) or not isinstance(form, int) or not 0 <= form < len(rec.forms):
        raise VectorFormatError(f"{case.case_id}: params.form must be an overload index below {len(rec.forms)}")
    args: list[Any] = []  # the overload's operands in C++ order (positional: the overload is chosen by them)
    for operand in rec.forms[form]:
        if operand.kind == "tile" and operand.name in tiles:
            args.append(tiles[operand.name])
        elif operand.kind == "scalar" and operand.name in case.params:
            args.append(scalar_value(case.params[operand.name]))
        elif operand.kind == "struct" and operand.struct_type is not None:  # TRANDOM's key, counter: words
            if operand.name not in case.params:
                raise VectorFormatError(f"{case.case_id}: no {operand.name} for {rec.signature.split(' | ')[form]}")
            args.append(case.params[operand.name])
        elif operand.kind == "struct":  # TMRGSORT's executed counts: params.executed.initial, else zeros
            from ..structs import MrgSortExecutedNumList

            counts = MrgSortExecutedNumList()
            initial = case.params.get(operand.name, {})
            counts.set(tuple(initial.get("initial", ())) if isinstance(initial, dict) else ())
            args.append(counts)
        elif not operand.optional:
            raise VectorFormatError(f"{case.case_id}: no {operand.name} for {rec.signature.split(' | ')[form]}")
        else:
            break
    kwargs = {attr.name: case.params[attr.name] for attr in rec.attrs if attr.name in case.params}
    return rec(*args, target=config, **kwargs)


class _Runners(dict[str, Runner]):
    """The five seed instructions' runners; any other op with an instruction record runs through its record."""

    def __contains__(self, op: object) -> bool:
        return super().__contains__(op) or (isinstance(op, str) and op.upper() in _record_names())

    def __missing__(self, op: str) -> Runner:
        if op.upper() in _record_names():
            return _run_record
        raise KeyError(op)

    def __iter__(self):  # noqa: ANN204 - the names check_case lists in its message
        return iter([*super().__iter__(), *sorted(n.lower() for n in _record_names())])


def _record_names() -> frozenset[str]:
    from ..isa import vector  # noqa: F401 - registers the records
    from ..isa.record import REGISTRY

    return frozenset(name for name, rec in REGISTRY.items() if rec.generated)


RUNNERS: dict[str, Runner] = _Runners({
    "texpands": _run_texpands, "tcmps": _run_tcmps, "tci": _run_tci, "tpartmul": _run_tpartmul,
    "tgather": _run_tgather,
})


def run_case(case: Case, config: Config) -> dict[str, Any]:
    """Run one case; never raises. A malformed case, or a problem inside the library, is status "error"
    (verdict "errors"): never a pass."""
    result: dict[str, Any] = {"case_id": case.case_id, "op": case.op, "status": "ok", "message": "",
                              "warnings": [], "outputs": {}, "changed": []}
    try:
        check_case(case, RUNNERS)
    except VectorFormatError as exc:
        result.update(status="error", message=f"malformed case ({exc})", verdict="errors")
        return result
    tiles: dict[str, Tile] = _Roles()
    try:
        for role in case.params["tiles"]:
            tiles[role] = build_tile(case.tile_record(role), case.initial_hex(role))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            RUNNERS[case.op](case, tiles, config)
        result["warnings"] = [str(w.message) for w in caught]
    except VectorFormatError as exc:
        result.update(status="error", message=f"malformed case ({exc})")
    except PtoError as exc:
        result.update(status="rejected", message=str(exc))
    except Exception as exc:  # noqa: BLE001 - a library bug must be reported, not crash the run
        result.update(status="error", message=f"{type(exc).__name__}: {exc}")
    result["outputs"] = {
        role: {"hex": tiles[role].tobytes().hex() if role in tiles else case.initial_hex(role)}
        for role in case.output_roles()
    }
    result["changed"] = [role for role, tile in tiles.items() if tile.tobytes().hex() != case.initial_hex(role)]
    result["verdict"] = verdict(case, result)
    if result["verdict"] == "mismatched" and not result["message"]:
        result["message"] = _mismatch_message(case, result)
    return result


def _mismatch_message(case: Case, result: dict[str, Any]) -> str:
    """Which tile differs, how many of its elements, and the first one: what a user needs to start looking."""
    if case.expect == "reject":
        return f"refused, but changed {', '.join(result['changed'])}"
    expected = case.section("outputs")
    for role in expected:
        want, got = expected[role]["hex"], result["outputs"][role]["hex"]
        if _same_storage(case, role, want, got):
            continue
        try:
            size = as_dtype(case.tile_record(role)["dtype"]).itemsize
        except (VectorFormatError, KeyError, TypeError, ValueError):
            size = 1
        a, b = bytes.fromhex(want), bytes.fromhex(got)
        if len(a) != len(b):
            return f"{role}: {len(b)} bytes, expected {len(a)}"
        diff = [k for k in range(0, len(a), size) if a[k:k + size] != b[k:k + size]]
        if not diff:  # equal bytes that the NaN rule did not accept (cannot happen: checked above)
            continue
        k = diff[0]
        return (f"{role}: {len(diff)} of {len(a) // size} storage elements differ; the first is element {k // size}: "
                f"expected 0x{a[k:k + size][::-1].hex()}, got 0x{b[k:k + size][::-1].hex()}")
    return ""


def verdict(case: Case, result: dict[str, Any]) -> str:
    status = result["status"]
    if status == "error":
        return "errors"
    if case.expect == "reject":
        if status != "rejected":
            return "wrongly accepted"
        return "mismatched" if result["changed"] else "rejected as expected"
    if status == "rejected":
        return "wrongly rejected"
    expected = case.section("outputs")
    same = all(_same_storage(case, role, expected[role]["hex"], result["outputs"][role]["hex"])
               for role in expected)
    return "matched" if same else "mismatched"


def _same_storage(case: Case, role: str, want: str, got: str) -> bool:
    """Byte equality; where a float result is a NaN, any NaN matches for TPARTMUL (the vectors' README rule) and
    for cases marked `"nan_payload": "any"`: which operand's NaN x86 returns when both operands are NaN is the
    compiler's choice of operand order, not the instruction's."""
    want = want.lower()  # the vectors may spell their hex in upper case
    if want == got:
        return True
    if case.op != "tpartmul" and case.record.get("nan_payload") != "any":
        return False
    dtype = as_dtype(case.tile_record(role)["dtype"])
    if not dtype.is_float or len(want) != len(got):
        return False
    with quiet():  # signalling NaNs among the bytes convert with an "invalid" flag: expected here
        a = np.frombuffer(bytes.fromhex(want), dtype=dtype.np).astype(np.float64)
        b = np.frombuffer(bytes.fromhex(got), dtype=dtype.np).astype(np.float64)
    nan = np.isnan(a)
    want_bytes = np.frombuffer(bytes.fromhex(want), dtype=np.uint8).reshape(a.size, -1)
    got_bytes = np.frombuffer(bytes.fromhex(got), dtype=np.uint8).reshape(a.size, -1)
    return bool(np.all(np.isnan(b[nan])) and np.array_equal(want_bytes[~nan], got_bytes[~nan]))


@dataclass
class Summary:
    """Per-op verdict counts."""

    counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, result: dict[str, Any]) -> None:
        self.counts[result["op"]][result["verdict"]] += 1

    @property
    def failed(self) -> bool:
        return any(c["mismatched"] or c["errors"] or c["wrongly rejected"] or c["wrongly accepted"]
                   for c in self.counts.values())

    def table(self) -> str:
        width = max([10, *(len(op) + 2 for op in self.counts)])
        header = f"{'op':<{width}}" + "".join(f"{v:>22}" for v in VERDICTS) + f"{'agreement':>12}"
        lines = [header]
        total: Counter[str] = Counter()
        for op in sorted(self.counts):
            lines.append(self._row(op, self.counts[op], width))
            total.update(self.counts[op])
        lines.append(self._row("total", total, width))
        return "\n".join(lines)

    @staticmethod
    def _row(name: str, counts: Counter[str], width: int = 10) -> str:
        n = sum(counts.values())
        good = counts["matched"] + counts["rejected as expected"]
        share = f"{100.0 * good / n:.1f}%" if n else "-"
        return f"{name:<{width}}" + "".join(f"{counts[v]:>22}" for v in VERDICTS) + f"{share:>12}"


def run_cases(cases: Iterable[Case], config: Config) -> Iterable[dict[str, Any]]:
    for case in cases:
        yield run_case(case, config)
