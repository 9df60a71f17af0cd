"""The single checker behind every refusal: messages of one shape, raised before any effect.

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from contextvars import ContextVar
from types import FrameType
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
    if _ignored(ErratumWarning):
        return
    description = config.profile.errata[name]
    detail = f"; {detail}" if detail else ""
    site = current_site()
    where = f" [{site}]" if site else ""
    warnings.warn(
        ErratumWarning(f"{instr} on {config.name}{where}: erratum {name}: {description}{detail} "
                       f"(switch it off with ptoisa.target({config.name!r}, errata=False))"),
        stacklevel=_user_stacklevel(),
    )


def errata_ignored() -> bool:
    """True when announcing an erratum would certainly do nothing (the warning filters ignore every ErratumWarning;
    see `_ignored`): a caller may then skip working out whether to announce one."""
    return _ignored(ErratumWarning)


def fallbacks_ignored() -> bool:
    """True when announcing a mode fallback would certainly do nothing (every ModeFallbackWarning ignored)."""
    return _ignored(ModeFallbackWarning)


def announce_fallback(config: Config, instr: str, message: str) -> None:
    if _ignored(ModeFallbackWarning):
        return
    site = current_site()
    where = f" [{site}]" if site else ""
    warnings.warn(ModeFallbackWarning(f"{instr} on {config.name}{where}: {message}"), stacklevel=_user_stacklevel())


_WARN: Any
try:
    from _warnings import warn as _WARN  # what warnings.warn is unless something replaced it
except ImportError:  # pragma: no cover - CPython always has the C module
    _WARN = None
_SEEN: tuple[Any, Any, dict[type, bool]] = (None, None, {})
"""(a copy of warnings.filters, warnings.defaultaction, {category: ignored}) as last worked out by _ignored."""


def _ignored(category: type) -> bool:
    """True when warnings.warn would certainly do nothing with a `category` warning from anywhere, whatever its
    text: the filters as they are now end, for that category, in a plain ("ignore", None, category or a base,
    None, 0) entry (or in defaultaction "ignore") with only "ignore" entries before it that could match. Then
    warnings.warn neither shows, records, raises, nor notes the warning in a registry (CPython's warn_explicit
    returns before storing for "ignore"), so announcing can skip the message, the frame walk and the call.

    The answer is kept per category while warnings.filters holds the same entries (compared by content on each
    call: catch_warnings swaps in a copy of the list, filterwarnings inserts, and code may edit the list in place
    without warnings._filters_mutated) and defaultaction is the same. False, so that the full warnings.warn
    decides, whenever unsure: an entry of an unexpected form (warnings.warn reports it), a category that is not a
    class, or warnings.warn replaced (a wrapper might want to see every warning)."""
    global _SEEN
    filters, default, answers = _SEEN
    current, action = warnings.filters, warnings.defaultaction  # type: ignore[attr-defined]
    if current != filters or action != default:
        if type(current) is not list:
            return False  # warnings.warn refuses it
        filters, default, answers = list(current), action, {}
        _SEEN = filters, default, answers
    ignored = answers.get(category)
    if ignored is None:
        ignored = answers[category] = _works_out_ignored(category, filters, default)
    return ignored and warnings.warn is _WARN


def _works_out_ignored(category: type, filters: list[Any], default: Any) -> bool:
    for item in filters:
        if type(item) is not tuple or len(item) != 5:
            return False
        action, message, cat, module, lineno = item
        if type(action) is not str or not isinstance(lineno, int) or not isinstance(cat, type) or not all(
                m is None or type(m) is str or type(m) is re.Pattern for m in (message, module)):
            return False
        if not issubclass(category, cat):
            continue  # never matches a `category` warning
        if action != "ignore":
            return False  # may match, and does something
        if message is None and module is None and lineno == 0:
            return True  # matches every `category` warning
        # matches some: those are ignored, the others go on to the next entries
    return type(default) is str and default == "ignore"


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The stacklevel that points a warning at the first frame outside ptoisa (the user's call). Whether a file
    is ptoisa's is remembered per file name (a dictionary look-up per frame instead of a prefix test)."""
    frame: FrameType | None
    level, frame, inside = 1, sys._getframe(1), _INSIDE
    while frame is not None:
        name = frame.f_code.co_filename
        known = inside.get(name)
        if known is None:
            if len(inside) >= 4096:
                inside.clear()
            known = inside[name] = name.startswith(_PACKAGE_DIR) or name.startswith("<ptoisa ")  # our generated code
        if not known:
            break
        level += 1
        frame = frame.f_back
    return level


_INSIDE: dict[str, bool] = {}
"""File name -> whether it lies in the ptoisa package, for _user_stacklevel."""


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
