"""Build small kernels for the interpreter tests."""

from __future__ import annotations

from ptoisa.interp import Program, load


def kernel(body: str, args: str = "", results: str = "", arch: str = "a2a3", name: str = "k") -> Program:
    """A one-function module: `func.func @name(args) [-> (results)] { body }` (body needs its own return)."""
    ret = f" -> ({results})" if results else ""
    text = (f'module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @{name}({args}){ret} {{\n'
            f"{body}\n  }}\n}}\n")
    return load(text)
