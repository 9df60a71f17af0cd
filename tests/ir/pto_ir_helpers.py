"""Shared helpers of the IR tests: wrap op lines into a module, and pick printed pto lines back out."""

from __future__ import annotations

from xdsl.parser import Parser

from ptoisa.ir import make_context, parse_module, print_module

T16 = "!pto.tile_buf<vec, 16x16xf32>"


def wrap(body: str, args: str = "%s: f32, %i: i32, %k: f32", arch: str = "a3") -> str:
    """A module with one function holding `body` (lines of ops)."""
    return (f'module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @k({args}) {{\n{body}\n'
            "    return\n  }\n}\n")


def pto_lines(text: str, op: str) -> list[str]:
    """The printed lines of op `op` (e.g. `pto.tcmps`), stripped."""
    return [line.strip() for line in text.splitlines() if f"{op} " in line or f"{op}[" in line]


def roundtrip(body: str, op: str, *, flavour: str = "aug", **kw: str) -> list[str]:
    """Parse, print in `flavour`, check the print is a fixed point and the IR survives; return the op lines."""
    module = parse_module(wrap(body, **kw))
    printed = print_module(module, flavour)
    again = parse_module(printed)
    assert print_module(again, flavour) == printed
    assert print_module(again, generic=True) == print_module(parse_module(printed), generic=True)
    return pto_lines(printed, op)


def parse_attr(text: str):
    return Parser(make_context(), text).parse_attribute()


def print_attr(attr) -> str:
    import io

    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()
