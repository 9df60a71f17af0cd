"""The `xdsl.universe` entry point: makes `xdsl-opt` (and any xDSL tool) understand the `pto` dialect."""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.universe import Universe


def _pto() -> Dialect:
    from . import PTO

    return PTO


PTO_UNIVERSE = Universe(all_dialects={"pto": _pto})
