"""The call entry of a record whose operands form one fixed positional signature (TADD, TMULS, TEXP, ...).

`Instruction.__call__` handles every way of calling an instruction: keywords, trailing wait events, optional
operands, overloads, `target=`. Most calls use none of them: `TADD(dst, src0, src1)`. For such records the
record's class is specialised with a `__call__` written for its exact operand list (attributes, if the record
has any, left at their defaults), which looks up the compiled call of the signature (the same cache the general
entry fills) and runs it, and hands everything else to the general entry unchanged:

    def __call__(self, a0=NOT_GIVEN, a1=NOT_GIVEN, a2=NOT_GIVEN, /, *events, target=None, **kwargs):
        if type(a0) is Tile and type(a1) is Tile and type(a2) in NUMBERS and not events and not kwargs:
            config = (context_target() or current_config()) if target is None else resolve(target)
            run = self._compiled.get((config, a0.spec, a1.spec, None))
            if run is not None:
                run((a0, a1, a2))
                return self._event       # the record's event (events.record: one per op and pipe)
        return general(self, *(the arguments given), *events, target=target, **kwargs)

Records with several forms or with attributes (TCVT, TDIVS, TROWEXPANDMUL, ...) get an entry written for every
positional arity they take, which builds inline the key the general entry would build (a tile's spec, an enum
as itself, None as ABSENT, any other value None; a wait event or a Tile subclass never matches) and runs the compiled call found
under it.

The fast path decides nothing itself: a signature that was never compiled, or that compiled to "take the general
path" (None), goes to the general entry, which compiles it, checks it, refuses it or runs it. So both entries
give the same bytes, warnings and errors by construction; the fast one only skips Python work (about 1 us of
argument handling per call at 16x16).
"""

from __future__ import annotations

from enum import Enum
from textwrap import indent
from typing import TYPE_CHECKING, Any

import numpy as np

from ..events import RecordEvent
from ..targets import context_target, current_config, resolve
from ..tile.tile import Tile

if TYPE_CHECKING:
    from .record import Instruction

_CLASSES: dict[tuple[type, Any], Any] = {}
"""The entry factories, one per record class and operand shape."""
ABSENT = object()
NOT_GIVEN = object()
"""The default of a generated entry's positional-only operands: the argument was not given."""
"""A None argument in a compiled-call key (an omitted optional operand), told apart from a scalar."""
NUMBERS = frozenset({int, float, *(np.dtype(c).type for c in "bBhHiIlLqQefd")})
"""Scalar argument types the fast entry passes on (Python's and NumPy's numbers, bool excluded: it is refused
or converted by the general entry's rules)."""


def specialise(rec: Instruction) -> None:
    """Give `rec` a class whose `__call__` is written for its single positional form (see the module doc), or,
    for a record with several forms or with attributes, one written for every positional arity it takes."""
    form = rec._simple  # type: ignore[attr-defined]
    if rec.entry is not None:
        return
    if form is None or rec.attrs:
        if rec.route is None:
            _install(rec, max(len(f) for f in rec.forms) + len(rec.attrs), _make_any_class)
        return
    _install(rec, tuple(o.kind for o in form), _make_class)


def _install(rec: Instruction, shape: Any, make: Any) -> None:
    """Give `rec` a class of its own whose `__call__` is made by the factory `make(base, shape)` (made once per
    record class and operand shape) from the record's compiled calls and event stream, which the entry holds as
    closure constants rather than reading them off `self` on every call."""
    key = (type(rec), shape)
    factory = _CLASSES.get(key)
    if factory is None:
        factory = _CLASSES[key] = make(type(rec), shape)
    base = type(rec)
    call = factory(rec._compiled, rec._event)  # type: ignore[attr-defined]
    call.__doc__ = base.__call__.__doc__
    cls = type(base.__name__, (base,), {"__call__": call, "__slots__": (), "__module__": base.__module__,
                                        "__qualname__": base.__qualname__})
    object.__setattr__(rec, "__class__", cls)


_CONFIG = """\
if target is None:
    config = context_target()
    if config is None:
        config = current_config()
else:
    config = resolve(target)"""
"""The generated entries' target resolution (`resolve`'s meaning, without its call for the common case)."""


def _make_class(base: type, kinds: tuple[str, ...]) -> type:
    names = [f"a{i}" for i in range(len(kinds))]
    tests, key = [], ["config"]
    for name, kind in zip(names, kinds, strict=True):
        if kind == "tile":
            tests.append(f"type({name}) is Tile")
            key.append(f"{name}.spec")
        else:  # a plain number; anything else (a Tile, an enum, a wait event, None) goes the general way
            tests.append(f"type({name}) in NUMBERS")
            key.append("None")
    # The operands are positional-only parameters defaulting to NOT_GIVEN (so a keyword of the same name lands in
    # kwargs, as the general entry expects, and a short call is no TypeError): the general entry gets back
    # exactly the positional arguments given.
    params = "".join(f"{name}=NOT_GIVEN, " for name in names)
    given = " + ".join(f"(() if {name} is NOT_GIVEN else ({name},))" for name in names) or "()"
    source = f"""
def factory(compiled, event):
    def __call__(self, {params}/, *events, target=None, **kwargs):
        if {' and '.join(tests) or 'True'} and not events and not kwargs:
{indent(_CONFIG, " " * 12)}
            run = compiled.get(({', '.join(key)},))
            if run is not None:
                run(({', '.join(names)}{',' if names else ''}))
                return event
        return general(self, *({given}), *events, target=target, **kwargs)
    return __call__
"""
    scope: dict[str, Any] = {"Tile": Tile, "NUMBERS": NUMBERS, "NOT_GIVEN": NOT_GIVEN,
                             "context_target": context_target, "current_config": current_config,
                             "general": base.__call__, "resolve": resolve}
    exec(compile(source, f"<ptoisa fast call {'/'.join(kinds)}>", "exec"), scope)  # noqa: S102 - our own text
    return scope["factory"]


def _make_any_class(base: type, arity: int) -> type:
    """The entry of a record with several forms or with attributes: a positional call of up to `arity` arguments
    builds, inline, the key the general entry builds for it (each tile's spec, an enum as itself, None as
    ABSENT, a wait event or a Tile subclass as MISS, anything else None) and runs the compiled call found under
    it; a call with a wait event, keywords, or no compiled call takes the general entry, which compiles, checks,
    refuses or runs it. So both entries give the same bytes, warnings and errors by construction. The arguments
    are positional-only parameters defaulting to NOT_GIVEN, as in the single-form entry."""
    names = [f"a{i}" for i in range(arity)]
    branches = []
    for n in range(arity, -1, -1):  # the number of arguments given: the last one given decides
        given = names[:n]
        key = ", ".join(["config"] + [f"{a}.spec if type({a}) is Tile else key_of({a})" for a in given])
        test = f"elif {names[n - 1]} is not NOT_GIVEN" if n else "else"
        branches.append(f"""
            {test}:
                args = ({', '.join(given)}{',' if given else ''})
                run = compiled.get(({key},))""")
    branches[0] = branches[0].replace("elif", "if", 1)
    params = "".join(f"{name}=NOT_GIVEN, " for name in names)
    every = " + ".join(f"(() if {name} is NOT_GIVEN else ({name},))" for name in names) or "()"
    source = f"""
def factory(compiled, event):
    def __call__(self, {params}/, *events, target=None, **kwargs):
        if not kwargs and not events:
{indent(_CONFIG, " " * 12)}{''.join(branches)}
            if run is not None:
                run(args)
                return event
        return general(self, *({every}), *events, target=target, **kwargs)
    return __call__
"""
    scope: dict[str, Any] = {"Tile": Tile, "key_of": key_of, "NOT_GIVEN": NOT_GIVEN,
                             "context_target": context_target, "current_config": current_config,
                             "general": base.__call__, "resolve": resolve}
    exec(compile(source, f"<ptoisa fast call, up to {arity} arguments>", "exec"), scope)  # noqa: S102 - our text
    return scope["factory"]


MISS = object()
"""A key part no compiled call has: a wait event (the general entry strips trailing events before its key), or
an instance of a subclass of Tile (the binder takes it as a tile, so it must not share a scalar's key part: a
call compiled for a number there would run with the tile, and one compiled for the tile with a number)."""


def key_of(value: Any) -> Any:
    """The compiled-call key part of an argument that is not exactly a Tile, for records with several forms or
    attributes (every entry builds its key with this: the general one, the generated ones, the interpreter's)."""
    if isinstance(value, Enum):
        return value
    if value is None:
        return ABSENT
    return MISS if type(value) is RecordEvent or isinstance(value, Tile) else None
