"""Errors of the IR layer that are not xDSL parse or verify errors."""

from __future__ import annotations

from ptoisa.errors import PtoError


class TextFormError(PtoError, ValueError):
    """A value that has no spelling in the requested text form (for example a tci tmp in the April flavour)."""
