"""Rules of the code's shape that tests can hold: frozen profiles, one registration per name, layering."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ptoisa.targets import REGISTRY

SRC = Path(__file__).resolve().parents[2] / "src" / "ptoisa"


def test_profiles_are_frozen_all_the_way_down():
    profile = REGISTRY["a5"]
    with pytest.raises(TypeError):
        profile.errata["new"] = "text"  # type: ignore[index]
    with pytest.raises(TypeError):
        profile.memory.regions["UB"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        profile.tci.tmp_min_bytes[4] = 0  # type: ignore[index]
    with pytest.raises(AttributeError):
        profile.description = "x"  # type: ignore[misc]


def test_a_second_interpreter_handler_or_instruction_for_a_name_is_refused():
    import ptoisa.interp.program  # noqa: F401 - registers the handlers
    from ptoisa.interp.decode import handler
    from ptoisa.isa.record import instruction

    with pytest.raises(RuntimeError, match="two interpreter handlers"):
        handler("pto.tadd")(lambda d, op: None)
    with pytest.raises(ValueError, match="registered twice"):
        instruction("TADD", operands=(), legality={}, summary="")(lambda plan, tiles, scalars: None)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_layers_import_only_downwards():
    """targets/ sits below the instructions: it may use the enums and dtypes, never ptoisa.isa; the NumPy core
    (everything but ir/, interp/ and cli/) never imports xDSL."""
    for path in (SRC / "targets").glob("*.py"):
        assert not any(".isa" in name for name in _imports(path)), path.name
    for path in SRC.rglob("*.py"):
        if {"ir", "interp", "cli"} & set(path.relative_to(SRC).parts):
            continue
        assert not any(name.startswith("xdsl") for name in _imports(path)), path
