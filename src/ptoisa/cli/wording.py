"""Messages in the command line's terms: the core words its hints for Python callers
(`ptoisa.target('a5', errata=False)`, `undefined='emulate'`); a CLI user is told the flag instead."""

from __future__ import annotations

import re

_ERRATA = re.compile(r" \(switch it off with ptoisa\.target\('[a-z0-9]+', errata=False\)\)")
_UNDEFINED = " (use undefined='emulate' to reproduce the target)"


def for_cli(text: str) -> str:
    text = _ERRATA.sub(" (--no-errata gives the contract's result instead)", text)
    text = text.replace("; choose one with entry=", "; choose one with --entry NAME")
    return text.replace(_UNDEFINED, " (--emulate-undefined reproduces what the target does)")
