"""The single checker behind every refusal: messages of one shape, raised before any effect.

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)
"""

from __future__ import annotations

import os
import sys
import warnings
from contextvars import ContextVar
from typing import Any, NoReturn

import numpy as np

from ..dtypes import DType, names
from ..errors import ErratumWarning, IllegalInstructionError, ModeFallbackWarning, UndefinedBehaviourError
from ..targets import Config
from ..targets.rules import Locs
from ..tile.conv import ConvTile
from ..tile.enums import TileType
from ..tile.layout import spills
from ..tile.tile import Tile


class Check:
    """Raises IllegalInstructionError for one instruction on one target."""

    __slots__ = ("instr", "target")

    def __init__(self, instr: str, target: str) -> None:
        self.instr = instr
        self.target = target

    def fail(self, operand: str | None, rule: str) -> NoReturn:
        raise IllegalInstructionError(self.instr, self.target, operand, rule)

    def undefined(self, operand: str | None, rule: str) -> NoReturn:
        raise UndefinedBehaviourError(
            self.instr, self.target, operand,
            f"{rule}; the result is undefined on this target (use undefined='emulate' to reproduce the target)",
        )

    def dtype(self, role: str, dtype: DType, allowed: tuple[DType, ...]) -> None:
        if dtype not in allowed:
            self.fail(role, f"dtype {dtype.cname} is not supported (allowed: {names(allowed)})")

    def loc(self, role: str, loc: TileType, allowed: Locs) -> None:
        if allowed is not None and loc not in allowed:
            ok = ", ".join(t.name for t in TileType if t in allowed)
            self.fail(role, f"location {loc.name} is not supported (allowed: {ok})")

    def row_major(self, role: str, spec: Any, required: tuple[str, ...]) -> None:
        if role in required and not spec.is_row_major:
            self.fail(role, f"must be row-major (got {spec.layout_name})")

    def fits(self, role: str, spec: Any) -> None:
        """Refuse a tile whose layout places elements past its storage (the reference would write past it)."""
        if not spec.is_conv and spills(spec):
            self.fail(role, f"{spec.layout_name} layout with {spec.rows} rows (not a multiple of the box height "
                            f"{spec.inner_rows}) places elements past the tile's storage")

    def same_dtype(self, role: str, dtype: DType, other_role: str, other: DType) -> None:
        if dtype is not other:
            self.fail(role, f"dtype {dtype.cname} must equal the {other_role} dtype {other.cname}")

    def tile(self, role: str, obj: Any) -> Tile:
        if not isinstance(obj, Tile):
            self.fail(role, f"must be a Tile (got {_kind(obj)})")
        return obj

    def tile_or_conv(self, role: str, obj: Any) -> Tile | ConvTile:
        if not isinstance(obj, (Tile, ConvTile)):
            self.fail(role, f"must be a Tile or ConvTile (got {_kind(obj)})")
        return obj

    def distinct_storage(self, writes: dict[str, Any]) -> None:
        """Two outputs of one call must not be the same tile object."""
        seen: dict[int, str] = {}
        for role, tile in writes.items():
            if id(tile) in seen:
                self.fail(role, f"must be a different tile from {seen[id(tile)]}")
            seen[id(tile)] = role


def _kind(obj: Any) -> str:
    return type(obj).__name__


class Site:
    """Where the instruction being run comes from, for the warnings it emits. The interpreter puts one Site in
    SITE for a whole run and sets `where` around each instruction: an attribute store per op instead of a
    context variable's set and reset."""

    __slots__ = ("where",)

    def __init__(self) -> None:
        self.where: str | None = None


SITE: ContextVar[str | Site | None] = ContextVar("ptoisa_announce_site", default=None)
"""Where the instruction being run comes from (`pto.tcmps at kernel.pto:12:5`), set by the interpreter so that
warnings name the source location (a string, or a Site whose `where` is read when a warning is made); None for
calls from Python."""


def current_site() -> str | None:
    """The location SITE names now, or None."""
    site = SITE.get()
    return site.where if isinstance(site, Site) else site


def announce_erratum(config: Config, instr: str, name: str, detail: str = "") -> None:
    """Warn that erratum `name` changed a result of `instr` on the configured target; `detail` says what this
    call did (e.g. the bytes written outside an operand)."""
    description = config.profile.errata[name]
    detail = f"; {detail}" if detail else ""
    site = current_site()
    where = f" [{site}]" if site else ""
    warnings.warn(
        ErratumWarning(f"{instr} on {config.name}{where}: erratum {name}: {description}{detail} "
                       f"(switch it off with ptoisa.target({config.name!r}, errata=False))"),
        stacklevel=_user_stacklevel(),
    )


def announce_fallback(config: Config, instr: str, message: str) -> None:
    site = current_site()
    where = f" [{site}]" if site else ""
    warnings.warn(ModeFallbackWarning(f"{instr} on {config.name}{where}: {message}"), stacklevel=_user_stacklevel())


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The stacklevel that points a warning at the first frame outside ptoisa (the user's call)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level += 1
        frame = frame.f_back
    return level


def commit_variant(
    config: Config, instr: str, erratum: str, storage: Any, contract: Any, target_result: Any,
    valid_bytes: Any = None,
) -> None:
    """Store the target's result (erratum on) or the contract's (off); warn when the erratum changed bytes.

    `valid_bytes`, a bool mask over the storage's bytes, marks the operand's valid region: when every byte that
    differs lies outside it, the warning says so (the result a user reads is the contract's)."""
    if config.erratum(erratum):
        a, b = contract.view(np.uint8).reshape(-1), target_result.view(np.uint8).reshape(-1)
        if not np.array_equal(a, b):
            detail = ""
            if valid_bytes is not None and not (a != b)[valid_bytes.reshape(-1)].any():
                detail = "only bytes outside the valid region differ: the valid region is the contract's"
            announce_erratum(config, instr, erratum, detail)
        storage[...] = target_result
    else:
        storage[...] = contract
