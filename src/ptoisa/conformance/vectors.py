"""Conformance vectors (the JSONL format of shared/conformance/README.md): reading cases and building tiles.

A case names an op and overload, describes each operand tile (`params.tiles`), and carries every tile's whole
storage as little-endian hex (`inputs`, `initial_outputs`, and `outputs` when the reference ran it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..dtypes import as_dtype
from ..errors import VectorFormatError
from ..tile.enums import DYNAMIC
from ..tile.spec import TileSpec
from ..tile.tile import Tile


@dataclass(frozen=True)
class Case:
    """One vector: the raw record plus where it came from."""

    record: dict[str, Any]
    source: str
    line: int

    @property
    def case_id(self) -> str:
        return str(self.record.get("case_id", f"{self.source}:{self.line}"))

    @property
    def op(self) -> str:
        return str(self.record.get("op", "?"))

    @property
    def params(self) -> dict[str, Any]:
        return self.record.get("params", {})

    @property
    def expect(self) -> str:
        return str(self.record.get("expect", "match"))

    def tile_record(self, role: str) -> dict[str, Any]:
        tiles = self.params.get("tiles", {})
        if role not in tiles:
            raise VectorFormatError(f"{self.case_id}: params.tiles has no {role!r}")
        return tiles[role]

    def initial_hex(self, role: str) -> str:
        for section in ("inputs", "initial_outputs"):
            if role in self.record.get(section, {}):
                return self.record[section][role]["hex"]
        raise VectorFormatError(f"{self.case_id}: no initial bytes for tile {role!r}")

    def output_roles(self) -> list[str]:
        return list(self.record.get("initial_outputs", {}))


def read_cases(path: str | Path) -> Iterator[Case]:
    """Yield the cases of one JSONL file; a malformed line raises VectorFormatError naming file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VectorFormatError(f"{path}: cannot read ({exc.strerror})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise VectorFormatError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise VectorFormatError(f"{path}:{number}: a case must be a JSON object")
        yield Case(record, str(path), number)


def tile_spec(desc: dict[str, Any]) -> TileSpec:
    """TileSpec for a `params.tiles` entry; `valid_kind` says which valid sizes are runtime values."""
    kind = desc.get("valid_kind", "static")
    dyn_row = kind in ("dynamic", "dyn_row")
    dyn_col = kind in ("dynamic", "dyn_col")
    return TileSpec(
        loc=desc["loc"], dtype=as_dtype(desc["dtype"]), rows=int(desc["rows"]), cols=int(desc["cols"]),
        blayout=desc.get("blayout", "RowMajor"),
        valid_row=DYNAMIC if dyn_row else int(desc["valid_row"]),
        valid_col=DYNAMIC if dyn_col else int(desc["valid_col"]),
        slayout=desc.get("slayout", "NoneBox"), fractal_size=int(desc.get("fractal_size", 512)),
    )


def build_tile(desc: dict[str, Any], hex_bytes: str) -> Tile:
    spec = tile_spec(desc)
    valid = [int(desc["valid_row"])] if spec.dynamic_row else []
    valid += [int(desc["valid_col"])] if spec.dynamic_col else []
    tile = spec(*valid)
    tile.load_bytes(bytes.fromhex(hex_bytes))
    return tile


def scalar_value(desc: dict[str, Any]) -> np.generic:
    """The exact scalar from its little-endian hex bytes in its dtype."""
    dtype = as_dtype(desc["dtype"])
    raw = bytes.fromhex(desc["hex"])
    if len(raw) != dtype.itemsize:
        raise VectorFormatError(f"scalar hex {desc['hex']!r} is not one {dtype.cname}")
    return np.frombuffer(raw, dtype=dtype.np)[0]
