"""Conformance vectors (the JSONL format of tests/data/conformance/README.md): reading cases and building tiles.

A case names an op and overload, describes each operand tile (`params.tiles`), and carries every tile's whole
storage as little-endian hex (`inputs`, `initial_outputs`, and `outputs` when the reference ran it).
"""

from __future__ import annotations

import codecs
import gzip
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..dtypes import as_dtype
from ..errors import PtoError, VectorFormatError
from ..tile.enums import DYNAMIC
from ..tile.spec import TileSpec
from ..tile.tile import Tile


@dataclass(frozen=True)
class Case:
    """One vector: the raw record plus where it came from.

    `problem` is set when the line could not be read as a case at all (bad JSON, not an object); such a case
    is reported as an error of its own and the rest of the file still runs.
    """

    record: dict[str, Any]
    source: str
    line: int
    problem: str = ""

    @property
    def case_id(self) -> str:
        value = self.record.get("case_id")
        return value if isinstance(value, str) and value else f"{self.source}:{self.line}"

    @property
    def op(self) -> str:
        value = self.record.get("op")
        return value if isinstance(value, str) else "?"

    @property
    def params(self) -> dict[str, Any]:
        value = self.record.get("params")
        return value if isinstance(value, dict) else {}

    @property
    def expect(self) -> str:
        return str(self.record.get("expect", "match"))

    def tile_record(self, role: str) -> dict[str, Any]:
        tiles = self.params.get("tiles", {})
        if role not in tiles:
            raise VectorFormatError(f"{self.case_id}: params.tiles has no {role!r}")
        return tiles[role]

    def section(self, name: str) -> dict[str, Any]:
        value = self.record.get(name)
        return value if isinstance(value, dict) else {}

    def initial_hex(self, role: str) -> str:
        """The tile's bytes before the op, as lower-case hex (the form tiles print theirs in)."""
        for section in ("inputs", "initial_outputs"):
            entry = self.section(section).get(role)
            if isinstance(entry, dict) and isinstance(entry.get("hex"), str):
                return entry["hex"].lower()
        raise VectorFormatError(f"{self.case_id}: no initial bytes for tile {role!r}")

    def output_roles(self) -> list[str]:
        return list(self.section("initial_outputs"))


def check_case(case: Case, known_ops: Iterable[str]) -> None:
    """Refuse (VectorFormatError) a case that lacks what its `expect` needs, before anything runs.

    A case that cannot be checked must never count as a pass: a "reject" case needs every tile's initial
    bytes (to see that nothing changed), a "match" case needs the expected bytes of at least one output, and
    every hex string must hold exactly its tile's storage.
    """
    where = f"{case.case_id}:"
    if case.problem:
        raise VectorFormatError(f"{case.source}:{case.line}: {case.problem}")
    if case.op not in known_ops:
        raise VectorFormatError(f"{where} unknown op {case.record.get('op')!r}")
    if "expect" not in case.record or case.expect not in ("match", "reject"):
        raise VectorFormatError(f"{where} 'expect' must be \"match\" or \"reject\" "
                                f"(got {case.record.get('expect')!r})")
    tiles = case.params.get("tiles")
    if not isinstance(tiles, dict) or not tiles:
        raise VectorFormatError(f"{where} params.tiles must be a non-empty object")
    sizes = {role: _storage_bytes(where, role, desc) for role, desc in tiles.items()}
    for role, size in sizes.items():
        _check_hex(where, f"initial bytes of {role!r}", case.initial_hex(role), size)
    for name in ("inputs", "initial_outputs", "outputs"):
        stray = [r for r in case.section(name) if r not in sizes]
        if stray:
            raise VectorFormatError(f"{where} {name} names tiles not in params.tiles: {', '.join(stray)}")
    if case.expect == "reject":  # outputs, if given, are for reading only; still well-formed
        for role, entry in case.section("outputs").items():
            if role in sizes:
                _check_hex(where, f"outputs.{role}.hex", entry.get("hex") if isinstance(entry, dict) else None,
                           sizes[role])
    if case.expect == "match":
        outputs = case.section("outputs")
        if not outputs:
            raise VectorFormatError(f"{where} a \"match\" case needs expected 'outputs'")
        for role, entry in outputs.items():
            hex_text = entry.get("hex") if isinstance(entry, dict) else None
            _check_hex(where, f"outputs.{role}.hex", hex_text, sizes[role])
            if role not in case.section("initial_outputs"):
                raise VectorFormatError(f"{where} output {role!r} has no initial_outputs entry")
        unchecked = [r for r in case.section("initial_outputs") if r not in outputs]
        if unchecked:  # a tile the op may write whose expected bytes are missing: it could never fail
            raise VectorFormatError(f"{where} outputs has no expected bytes for {', '.join(unchecked)}")


def _storage_bytes(where: str, role: str, desc: Any) -> int:
    """Bytes of the tile's storage from its raw fields (whether the tile itself is legal is the model's call,
    made when the case runs: an illegal tile is a refusal, not a malformed case)."""
    if not isinstance(desc, dict):
        raise VectorFormatError(f"{where} params.tiles.{role} must be an object")
    try:
        itemsize = as_dtype(desc.get("dtype")).itemsize
        rows, cols = _int(desc, "rows"), _int(desc, "cols")
    except PtoError as exc:
        raise VectorFormatError(f"{where} params.tiles.{role}: {exc}") from None
    return max(0, rows) * max(0, cols) * itemsize


_HEX = re.compile(r"[0-9a-fA-F]*")


def _check_hex(where: str, what: str, text: Any, size: int) -> None:
    """Exactly the tile's storage as hex digits (either case; no spaces, which bytes.fromhex would skip)."""
    if not isinstance(text, str):
        raise VectorFormatError(f"{where} {what} is missing")
    if not _HEX.fullmatch(text):
        raise VectorFormatError(f"{where} {what} is not a string of hexadecimal digits")
    if len(text) != 2 * size:
        raise VectorFormatError(f"{where} {what} holds {len(text) / 2:g} bytes, the tile's storage is {size}")


MAX_UNPACKED = 256 << 20
"""The most bytes a `.gz` vector file may unpack to (the bundled files hold hundreds of cases in a few hundred
KiB): a gzip bomb is refused instead of filling memory. A plain `.jsonl` file is read as it is."""


def read_cases(path: str | Path) -> Iterator[Case]:
    """Yield the cases of one JSONL file (gzip-compressed when its name ends in `.gz`).

    A file that cannot be read raises VectorFormatError. A line that is not a JSON object becomes a Case whose
    `problem` says why, so that the caller reports it as an error of that line and goes on with the rest.
    """
    path = Path(path)
    try:
        if not path.is_file():
            raise VectorFormatError(f"{path}: not a regular file")
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:  # read in steps: a small file may unpack to gigabytes
                raw = f.read(MAX_UNPACKED + 1)
            if len(raw) > MAX_UNPACKED:
                raise VectorFormatError(f"{path}: unpacks to more than {MAX_UNPACKED >> 20} MiB; gunzip it and "
                                        "pass the .jsonl file if that is what it holds")
        else:
            raw = path.read_bytes()
    except OSError as exc:
        raise VectorFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (EOFError, zlib.error) as exc:
        raise VectorFormatError(f"{path}: not a readable gzip file ({exc})") from None
    if raw.startswith(codecs.BOM_UTF8):  # refused, as the text commands refuse it before a .pto's first op
        raise VectorFormatError(f"{path}: starts with a UTF-8 byte-order mark (BOM), which JSON lines do not "
                                "take; save the file as UTF-8 without a BOM")
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise VectorFormatError(f"{path}: not UTF-8 text (it starts with a UTF-16 or UTF-32 byte-order "
                                "mark); JSON lines are UTF-8")
    lines = [(n, line) for n, line in enumerate(raw.splitlines(), start=1) if line.strip()]
    first = next(iter(lines), None)
    if first is not None and not first[1].lstrip().startswith(b"{"):  # not JSON lines at all (a .pto, a binary)
        raise VectorFormatError(f"{path}: not a JSONL vector file (line {first[0]} does not start a JSON object)")
    for number, line in lines:
        yield _parse_line(line, str(path), number)


def _parse_line(line: bytes, source: str, number: int) -> Case:
    try:
        record = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return Case({}, source, number, "not UTF-8 text")
    except json.JSONDecodeError as exc:
        return Case({}, source, number, f"not valid JSON ({exc.msg})")
    except RecursionError:
        return Case({}, source, number, "JSON nested too deeply")
    except ValueError as exc:  # e.g. an integer literal with too many digits
        return Case({}, source, number, f"not valid JSON ({exc})")
    if not isinstance(record, dict):
        return Case({}, source, number, "a case must be a JSON object")
    return Case(record, source, number)


def tile_spec(desc: dict[str, Any]) -> TileSpec:
    """TileSpec for a `params.tiles` entry; `valid_kind` says which valid sizes are runtime values."""
    kind = desc.get("valid_kind", "static")
    if kind not in ("static", "dynamic", "dyn_row", "dyn_col"):
        raise VectorFormatError(f"valid_kind {kind!r} is not static, dynamic, dyn_row or dyn_col")
    dyn_row = kind in ("dynamic", "dyn_row")
    dyn_col = kind in ("dynamic", "dyn_col")
    return TileSpec(
        loc=desc["loc"], dtype=as_dtype(desc["dtype"]), rows=_int(desc, "rows"), cols=_int(desc, "cols"),
        blayout=desc.get("blayout", "RowMajor"),
        valid_row=DYNAMIC if dyn_row else _int(desc, "valid_row"),
        valid_col=DYNAMIC if dyn_col else _int(desc, "valid_col"),
        slayout=desc.get("slayout", "NoneBox"), fractal_size=_int(desc, "fractal_size", 512),
        pad=desc.get("pad", "Null"),
    )


def _int(desc: dict[str, Any], key: str, default: int | None = None) -> int:
    value = desc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise VectorFormatError(f"{key} must be an integer (got {value!r})")
    return value


def build_tile(desc: dict[str, Any], hex_bytes: str) -> Tile:
    spec = tile_spec(desc)
    valid = [_int(desc, "valid_row")] if spec.dynamic_row else []
    valid += [_int(desc, "valid_col")] if spec.dynamic_col else []
    tile = spec(*valid)
    tile.load_bytes(bytes.fromhex(hex_bytes))
    return tile


def scalar_value(desc: dict[str, Any]) -> np.generic:
    """The exact scalar from its little-endian hex bytes in its dtype."""
    if not isinstance(desc, dict) or not isinstance(desc.get("hex"), str):
        raise VectorFormatError(f"a scalar must be an object with 'dtype' and 'hex' (got {desc!r})")
    if desc.get("dtype") == "u64":  # a uint64_t bit pattern (preQuantScalar), not a tile element type
        raw64 = bytes.fromhex(desc["hex"]) if len(desc["hex"]) == 16 else b""
        if len(raw64) != 8:
            raise VectorFormatError(f"scalar hex {desc['hex']!r} is not one uint64_t")
        return int.from_bytes(raw64, "little")  # type: ignore[return-value]
    dtype = as_dtype(desc.get("dtype"))
    try:
        raw = bytes.fromhex(desc["hex"])
    except ValueError:
        raise VectorFormatError(f"scalar hex {desc['hex']!r} is not hexadecimal") from None
    if len(raw) != dtype.itemsize:
        raise VectorFormatError(f"scalar hex {desc['hex']!r} is not one {dtype.cname}")
    return np.frombuffer(raw, dtype=dtype.np)[0]
