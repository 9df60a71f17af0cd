"""Build small kernels for the interpreter tests."""

from __future__ import annotations

from typing import Any

from ptoisa.interp import Program, decode, load


def kernel(body: str, args: str = "", results: str = "", arch: str = "a2a3", name: str = "k") -> Program:
    """A one-function module: `func.func @name(args) [-> (results)] { body }` (body needs its own return)."""
    ret = f" -> ({results})" if results else ""
    text = (f'module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @{name}({args}){ret} {{\n'
            f"{body}\n  }}\n}}\n")
    return load(text)


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
