"""Helpers shared by the tests that hold a compiled call to its general path: the outcome of a call (error and
warnings, as comparable values) and independent twins of a call's arguments."""

from __future__ import annotations

import warnings

from ptoisa import Tile


def outcome(fn):
    """(error type and text or None, [(warning category, text)])."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            fn()
            error = None
        except Exception as exc:  # noqa: BLE001 - compared between the two paths
            error = (type(exc).__name__, str(exc))
    return error, [(w.category.__name__, str(w.message)) for w in seen]


def twins(args):
    """Two independent copies of the call's arguments (tiles copied, aliasing kept)."""
    made = []
    for _ in range(2):
        by_id: dict[int, Tile] = {}
        out = []
        for a in args:
            if type(a) is Tile:
                if id(a) not in by_id:
                    dyn = [v for v, d in zip(a.valid_shape, (a.spec.dynamic_row, a.spec.dynamic_col)) if d]
                    c = Tile(a.spec, *dyn)
                    c.storage[...] = a.storage
                    by_id[id(a)] = c
                out.append(by_id[id(a)])
            else:
                out.append(a)
        made.append(out)
    return made
