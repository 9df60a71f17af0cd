"""The Python examples in README.md and docs/*.md run as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^([ \t]*)```python\n(.*?)^[ \t]*```", re.S | re.M)


def _blocks():
    for doc in DOCS:
        for number, (_, body) in enumerate(BLOCK.findall(doc.read_text(encoding="utf-8")), start=1):
            code = textwrap.dedent(body)
            if "..." in code.splitlines()[-1]:
                continue  # an outline with elided bodies, not a runnable example
            yield pytest.param(code, id=f"{doc.name}#{number}")


@pytest.mark.parametrize("code", list(_blocks()))
def test_doc_example_runs(code, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples name files relative to the checkout
    exec(compile(code, "<doc>", "exec"), {})


def test_the_op_page_lists_every_op_the_interpreter_runs():
    import re

    import ptoisa.interp.program  # noqa: F401 - registers the handlers
    from ptoisa.interp.decode import HANDLERS

    docs = Path(__file__).resolve().parents[1] / "docs"
    page = (docs / "pto-ops.md").read_text() + (docs / "instructions.md").read_text()
    listed = set(re.findall(r"`((?:pto|arith|scf|func|memref|builtin)(?:\.[a-z0-9_]+)+)`", page))
    assert set(HANDLERS) <= listed, sorted(set(HANDLERS) - listed)
    assert listed - set(HANDLERS) <= {"func.return", "scf.yield", "scf.condition"}, sorted(listed - set(HANDLERS))


def test_the_api_docstrings_examples_run():
    """help(TCI) and friends show every form and an example; the examples are run here."""
    import doctest
    import inspect
    import warnings

    import ptoisa
    from ptoisa import api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = doctest.testmod(api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15 and result.failed == 0
    for name in ("TCI", "TCMPS", "TEXPANDS", "TGATHER", "TPARTMUL"):
        fn = getattr(ptoisa, name)
        assert ">>>" in (fn.__doc__ or ""), name
        assert "args" not in str(inspect.signature(fn)).split("*")[0], (name, inspect.signature(fn))


def test_the_instruction_page_is_generated_from_the_records():
    from ptoisa.docgen import render

    page = (Path(__file__).resolve().parents[1] / "docs" / "instructions.md").read_text()
    assert page == render(), "run: python -m ptoisa.docgen > docs/instructions.md"


def test_the_instruction_page_has_one_titled_section_per_family():
    """Every record's family has a heading of its own, once: a family missing from the headings used to be
    sorted by instruction name among the others, so the page repeated "## cube", "## pack", ... in lowercase."""
    from ptoisa.docgen import _FAMILIES, render
    from ptoisa.isa.record import REGISTRY

    families = {r.family for r in REGISTRY.values() if r.family}
    assert families <= set(_FAMILIES), sorted(families - set(_FAMILIES))
    headings = [line[3:] for line in render().splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings)) == len(families), headings


def test_every_vector_family_docstring_has_an_example_that_runs():
    """help(ptoisa.TADD) shows its family's rules with an example; the examples are run here."""
    import doctest
    import importlib
    import pkgutil

    from ptoisa.isa import vector

    for info in pkgutil.iter_modules(vector.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"ptoisa.isa.vector.{info.name}")
        assert ">>>" in (module.__doc__ or ""), info.name
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted >= 3 and result.failed == 0, info.name


SHIPPED_PROSE = sorted({*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("benchmarks/*.md"),
                        *ROOT.glob("tools/**/*.md"), *ROOT.glob("tests/data/**/*.md"), *ROOT.glob("examples/**/*.md")})
PATH_IN_TICKS = re.compile(r"`((?:docs|src|tests|examples|benchmarks|tools)/[A-Za-z0-9_./-]+?)[`:]")


@pytest.mark.parametrize("doc", SHIPPED_PROSE, ids=lambda p: str(p.relative_to(ROOT)))
def test_prose_names_only_files_the_repository_has(doc):
    """A reader of a clone can open every file the docs name: no `../` outside the repository, and every
    backticked repository path exists (globs and placeholders aside)."""
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text and "../spec" not in text
    missing = []
    for path in PATH_IN_TICKS.findall(text):
        path = path.rstrip(".")
        if any(c in path for c in "*{<") or path.endswith("/"):
            continue
        if not (ROOT / path).exists() and not list(ROOT.glob(path + "*")):
            missing.append(path)
    assert not missing, missing


SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


def _readme_commands() -> list[list[str]]:
    """The `ptoisa` commands of README.md's shell blocks, in order, as argv lists: the set-up command's run (the
    part after its last `&&`) and every line of the Command line block; comments dropped, `\\` lines joined."""
    import shlex

    commands = []
    for block in SH_BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("&&")[-1].split(" # ")[0].strip()
            for prefix in (".venv/bin/ptoisa ", "ptoisa "):
                if line.startswith(prefix):
                    commands.append(shlex.split(line[len(prefix):]))
    return commands


def test_the_readme_commands_run_as_written(tmp_path, monkeypatch, capsys):
    """A newcomer's first session: the README's commands, in order, from a checkout's root (here a scratch folder
    that sees the checkout's examples/ and tests/, so that out/, golden/ and the other outputs land in it), each
    with the exit status the README gives (0, but 1 for checking the invalid_* examples, and 2 for an image
    without matplotlib)."""
    import glob
    import importlib.util

    from ptoisa.cli.main import main

    for folder in ("examples", "tests"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    commands = _readme_commands()
    assert len(commands) >= 11 and commands[0][0] == "run"
    for argv in commands:
        argv = [p for a in argv for p in (sorted(glob.glob(a)) if "*" in a else [a])]
        expected = 0
        if argv[0] == "check":
            expected = 1
        if "--image" in argv and importlib.util.find_spec("matplotlib") is None:
            expected = 2
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == expected, (argv, out[-2000:], err[-2000:])
        if argv[0] == "check":  # only the invalid_* files fail: every other one verifies for the target it names
            failing = {line.split(":")[0] for line in out.splitlines() if ": error:" in line}
            assert failing and all("/invalid_" in path for path in failing), failing


def _help_commands() -> list[list[str]]:
    """The example command lines of `ptoisa --help` and every command's --help that name only shipped files
    (examples/..., tests/...; a template such as `kernel.pto in.npy` is left out), as argv lists."""
    import argparse
    import shlex

    from ptoisa.cli.main import build_parser

    texts = []

    def walk(parser: argparse.ArgumentParser) -> None:
        texts.append(parser.format_help())
        for action in parser._actions:  # noqa: SLF001 - argparse keeps its subparsers there
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for child in action.choices.values():
                    walk(child)

    walk(build_parser())
    commands = []
    for text in texts:
        for line in re.sub(r"\s*\\\n\s*", " ", text).splitlines():
            line = line.strip()
            if not line.startswith("ptoisa "):
                continue
            argv = shlex.split(re.split(r"\s{2,}", line)[0])[1:]
            files = [a.split(":")[0] for a in argv if re.search(r"\.(pto|ptoas|npy|bin)(:|$)", a)]
            if all(f.startswith(("examples/", "tests/")) for f in files):
                commands.append(argv)
    return commands


def test_the_help_examples_run_as_written(tmp_path, monkeypatch, capsys):
    """What `--help` shows runs: each example line that names shipped files, from a scratch root that sees the
    checkout's examples/ and tests/, exits 0 (1 for checking all of examples/pto, whose invalid_* files fail)."""
    import glob

    from ptoisa.cli.main import main

    for folder in ("examples", "tests"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    commands = _help_commands()
    assert sum(argv[0] == "run" for argv in commands) >= 3 and any(argv[0] == "convert" for argv in commands)
    for argv in commands:
        argv = [p for a in argv for p in (sorted(glob.glob(a)) if "*" in a else [a])]
        expected = 1 if argv[0] == "check" and any("/invalid_" in a for a in argv) else 0
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == expected, (argv, out[-2000:], err[-2000:])
