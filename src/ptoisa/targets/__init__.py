"""Target profiles and the target selection in force.

The target of a call is, in order: the call's `target=` keyword, the innermost `with ptoisa.target(...)` block,
the `PTOISA_TARGET` environment variable, and finally `a2a3` (PTOAS's default).

    with ptoisa.target("a5"):
        TCMPS(dst, src, 0.0, CmpMode.GT)
    with ptoisa.target("cpu", errata=False):          # contract meaning with the cpu encodings
        ...
    with ptoisa.target("a2a3", undefined="emulate"):  # reproduce what the NPU does with undefined input
        ...
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .._shown import shown
from ..errors import TargetError
from . import a2a3, a5, cpu
from .profile import Target, TargetProfile

REGISTRY: dict[Target, TargetProfile] = {p.target: p for p in (a2a3.PROFILE, a5.PROFILE, cpu.PROFILE)}
DEFAULT_TARGET = Target.A2A3
from .._names import ENV_VAR  # noqa: E402 - one spelling, shared with the light CLI

Undefined = Literal["raise", "emulate"]


@dataclass(frozen=True, eq=False)  # interned by make_config: identity hash keeps cache lookups cheap
class Config:
    """The target in force for a call.

    Attributes:
        profile: the target profile.
        errata: the names of the errata reproduced (default: all of the profile's).
        undefined: "raise" (default) refuses undefined behaviour; "emulate" reproduces what the target does.
    """

    profile: TargetProfile
    errata: frozenset[str]
    undefined: Undefined = "raise"
    name: str = ""  # the target's name, filled by make_config (a plain field: read on every call)

    def erratum(self, name: str) -> bool:
        return name in self.errata

    def without(self, name: str) -> Config:
        """The same target with erratum `name` switched off."""
        return make_config(self.profile.target, self.errata - {name}, self.undefined)


def get_profile(target: str | Target) -> TargetProfile:
    try:
        return REGISTRY[Target(target.lower() if isinstance(target, str) else target)]
    except (ValueError, AttributeError):
        known = ", ".join(t.value for t in Target)
        raise TargetError(f"unknown target {shown(target)} (known: {known})") from None


def make_config(target: Any, errata: Any = True, undefined: Any = "raise") -> Config:
    """Build (and intern) a Config. `target` is a target name or Target; `errata` is True (all), False (none) or
    the set of errata to reproduce; `undefined` is "raise" or "emulate". Anything else is a TargetError."""
    try:
        return _make_config(target, errata, undefined)
    except TypeError:  # (the cache hashes the arguments first: a list, a dict, ...)
        for what, value in (("target", target), ("errata", errata), ("undefined", undefined)):
            try:
                hash(value)
            except TypeError:
                kind = "True, False or a set of erratum names" if what == "errata" else "a name"
                raise TargetError(f"{what} must be {kind} (got {type(value).__name__})") from None
        raise


@lru_cache(maxsize=256)
def _make_config(target: str | Target, errata: bool | frozenset[str] = True, undefined: Undefined = "raise"
                 ) -> Config:
    profile = get_profile(target)
    if errata is True:
        enabled = frozenset(profile.errata)
    elif errata is False:
        enabled = frozenset()
    else:
        if isinstance(errata, str) or not isinstance(errata, (frozenset, set, tuple)) or \
                not all(isinstance(name, str) for name in errata):
            raise TargetError(f"errata must be True, False or a set of erratum names (got {shown(errata)})")
        unknown = set(errata) - set(profile.errata)
        if unknown:
            known = ", ".join(sorted(profile.errata)) or "none"
            raise TargetError(f"unknown errata for {profile.name}: {', '.join(sorted(unknown))} (known: {known})")
        enabled = frozenset(errata)
    if undefined not in ("raise", "emulate"):
        raise TargetError(f"undefined must be 'raise' or 'emulate', but got {shown(undefined)}")
    return Config(profile, enabled, undefined, profile.target.value)


_CURRENT: ContextVar[Config | None] = ContextVar("ptoisa_target", default=None)
context_target = _CURRENT.get
"""The Config of the innermost `target()` block, or None outside every block (hot paths: no Python frame)."""


def current_config() -> Config:
    """The Config in force: the innermost `target()` block, else $PTOISA_TARGET, else a2a3."""
    config = _CURRENT.get()
    if config is not None:
        return config
    if _ENV_DATA is not None:
        # the variable's raw value, as the environment holds it: while it is the same object (setting the
        # variable, even to the same text, stores a new one) the Config made from it last time still holds
        raw = _ENV_DATA.get(_ENV_KEY)
        cached = _DEFAULT[0]
        if cached is not None and cached[0] is raw:
            return cached[1]
        name = DEFAULT_TARGET if raw is None else os.environ.decodevalue(raw)  # type: ignore[attr-defined]
        config = _make_config(name or DEFAULT_TARGET)
        _DEFAULT[0] = (raw, config)
        return config
    return _make_config(os.environ.get(ENV_VAR) or DEFAULT_TARGET)


_DEFAULT: list[tuple[object, Config] | None] = [None]
"""(the raw value of $PTOISA_TARGET last seen, or None when it was unset; the Config made from it)"""

# os.environ.get costs about 1 us when the variable is unset (a KeyError raised and caught inside the mapping);
# CPython's environ keeps its encoded items in a plain dict, read here directly when it has one.
_ENV_DATA = getattr(os.environ, "_data", None)
_ENV_KEY = os.environ.encodekey(ENV_VAR) if hasattr(os.environ, "encodekey") else None  # type: ignore[attr-defined]
if _ENV_KEY is None:
    _ENV_DATA = None


def resolve(target: str | Target | Config | None) -> Config:
    """The Config for a call's `target=` argument (None: the one in force)."""
    if type(target) is Config:
        return target
    if target is None:
        return current_config()
    if not isinstance(target, str):
        raise TargetError(f"target must be a target name or a Config (got {type(target).__name__})")
    return _make_config(target)


@contextmanager
def target(
    name: str | Target | None = None,
    *,
    errata: bool | Iterable[str] = True,
    undefined: Undefined = "raise",
) -> Iterator[Config]:
    """Select the target (and errata / undefined-behaviour policy) for the calls inside the block."""
    chosen = name if name is not None else current_config().profile.target
    if isinstance(errata, str):  # one erratum name, not its characters
        errata = (errata,)
    try:
        errata_key = errata if isinstance(errata, bool) else frozenset(errata)
    except TypeError:  # (not iterable, or holding what no set holds)
        raise TargetError(f"errata must be True, False or erratum names (got {shown(errata)})") from None
    config = make_config(chosen, errata_key, undefined)
    token = _CURRENT.set(config)
    try:
        yield config
    finally:
        _CURRENT.reset(token)


__all__ = [
    "DEFAULT_TARGET", "ENV_VAR", "REGISTRY", "Config", "Target", "TargetProfile", "current_config",
    "get_profile", "make_config", "resolve", "target",
]
