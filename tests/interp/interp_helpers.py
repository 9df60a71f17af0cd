"""Build small kernels for the interpreter tests."""

from __future__ import annotations

from typing import Any

from ptoisa.interp import Program, decode, load


def kernel(body: str, args: str = "", results: str = "", arch: str = "a2a3", name: str = "k") -> Program:
    """A one-function module: `func.func @name(args) [-> (results)] { body }` (body needs its own return); with
    results, an empty second definition beside it (not_alone)."""
    ret = f" -> ({results})" if results else ""
    text = (f'module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @{name}({args}){ret} {{\n'
            f"{body}\n  }}\n}}\n")
    return load(not_alone(text) if results else text)


def three_decodings(text: str, monkeypatch: Any, name: str = "k") -> tuple[Program, Program, Program]:
    """`text` decoded as it is; with fused bodies in ops_control's loops (no loop written with its body); plain
    (no fusion at all): the programs a test holds against each other."""
    whole = load(text)
    whole.compiled_function(name)
    with monkeypatch.context() as m:
        m.setattr(decode, "fuse_loop", lambda *args: None)
        bodies = load(text)
        bodies.compiled_function(name)
        m.setattr(decode, "fuse", lambda steps: steps)
        plain = load(text)
        plain.compiled_function(name)
    return whole, bodies, plain


BESIDE = "  func.func private @beside() {\n    return\n  }\n"
"""An empty second definition: PTOAS makes the only function definition of a module a PTO entry, and an entry
returns nothing (ptoisa.ir.entry_rules); beside another definition, an unmarked function may return values."""


def not_alone(text: str) -> str:
    """`text` with BESIDE added to its module (before the module's closing brace, or after a bare function)."""
    body = text.rstrip()
    if body.startswith("module") or "\nmodule" in body:
        return body[:-1] + BESIDE + "}\n"
    return body + "\n" + BESIDE
