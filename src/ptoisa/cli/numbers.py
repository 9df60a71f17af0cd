"""Numbers on the command line are written in ASCII.

Python's int() and float() read the decimal digits of every script: '١٢' (Arabic-Indic) and '１２' (full-width)
are both 12 to them, and so are mixed texts such as '1٢'. The command line takes numbers in ASCII digits only,
in every option and argument alike (the sizes and seeds of zeros:/random: already did), so that what a number
reads as does not depend on which option it was given to; `foreign` names the first character that is not
ASCII for the message.
"""

from __future__ import annotations

import unicodedata


def foreign(text: str) -> str:
    """'' for ASCII text; else a note naming its first other character, to put after the text in a message:
    " ('١' is U+0661 ARABIC-INDIC DIGIT ONE; numbers are written in ASCII digits)"."""
    for char in text:
        if not char.isascii():
            name = unicodedata.name(char, "")
            return f" ({char!r} is U+{ord(char):04X}{' ' + name if name else ''}; numbers are written in ASCII digits)"
    return ""


__all__ = ["foreign"]
