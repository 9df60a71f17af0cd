"""A caller's value as a message shows it: its repr, unless that is too long to read or cannot be made.

Messages quote what they refuse (`got 'GTX'`), and a refusal must come out whatever was passed: an integer of
more than 4300 digits has no repr at all (Python raises ValueError rather than print it), and a megabyte string
or a large array would bury the message. `shown(value)` is the repr when it is at most LIMIT characters, else a
short description of the value.
"""

from __future__ import annotations

import numbers
from typing import Any

LIMIT = 80


def shown(value: Any) -> str:
    """repr(value) when it is short; else what the value is: 'an integer of about 5001 digits', 'a string of
    1000000 characters starting ...', 'a Fraction too long to show', 'an ndarray of shape (1000, 1000)'."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an int past Python's digit limit, or any repr that fails
        text = None
    if text is not None and len(text) <= LIMIT:
        return text
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
        digits = int(number.bit_length() * 0.30103) + 1  # (log10(2): the digit count, give or take one)
        return f"{'a negative' if number < 0 else 'an'} integer of about {digits} digits"
    kind = type(value).__name__
    if isinstance(value, str):
        return f"a string of {len(value)} characters starting {value[:20]!r}"
    if isinstance(value, bytes):
        return f"{len(value)} bytes starting {value[:20]!r}"
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} of shape {shape}"
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} too long to show"


__all__ = ["LIMIT", "shown"]
