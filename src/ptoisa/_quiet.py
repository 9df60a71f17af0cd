"""A cheap way to silence NumPy's floating-point warnings around ptoisa's own arithmetic.

Overflow to inf and NaN results are the correct, bit-exact outcomes of the modelled hardware, so NumPy's
RuntimeWarnings about them must not reach users. `np.errstate` costs about 1.7 us per use, several times the
arithmetic on a small tile; with NumPy 2 the same effect is one context-variable set/reset.

    with quiet():
        np.multiply(a, b, out=c)

On the hottest paths (one ufunc on a small tile) even the context variable's set and reset (about 0.17 us) is as
much as the arithmetic: `quiet_call(f, *args)` runs f inside a context that already holds the quiet setting,
made once per thread, for about 0.01 us. That context holds nothing else, so f must be NumPy work only: it sees
no other context variable (not the `ptoisa.target` block in force, not the interpreter's announce site, so no
target lookups and no warnings), and it must not call `quiet_call` again (a context cannot be entered twice).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np

try:  # NumPy >= 2: errstate is a context variable holding an "extobj"
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _QUIET = _make_extobj(all="ignore")

    # `token = quiet_set()` ... `quiet_reset(token)`: quiet() without the context-manager call (hot paths); a
    # partial of the context variable's own set method, so that no Python frame is entered.
    quiet_set = partial(_extobj_contextvar.set, _QUIET)

    quiet_reset = _extobj_contextvar.reset

    class quiet:  # noqa: N801 - used like a function: `with quiet():`
        """Ignore floating-point errors inside the block."""

        __slots__ = ("_token",)

        def __enter__(self) -> None:
            self._token = _extobj_contextvar.set(_QUIET)

        def __exit__(self, *exc: object) -> None:
            _extobj_contextvar.reset(self._token)

    class _Quiet(threading.local):
        """Per thread (a Context can be entered by one thread at a time): an empty context that holds only
        NumPy's quiet error state, and its `run`."""

        def __init__(self) -> None:
            context = contextvars.Context()
            context.run(_extobj_contextvar.set, _QUIET)
            self.run = context.run

    QUIET: Any = _Quiet()
    """`QUIET.run(function, *args)`: quiet_call without its frame, for the hottest closures (look `run` up on
    every call: each thread has its own)."""

    def quiet_call(function: Callable[..., Any], *args: Any) -> Any:
        """`function(*args)` with floating-point errors ignored (see the module doc)."""
        return QUIET.run(function, *args)

except ImportError:  # pragma: no cover - older NumPy: the public context manager

    @contextmanager
    def quiet() -> Iterator[None]:
        with np.errstate(all="ignore"):
            yield

    def quiet_set() -> object:
        saved = np.seterr(all="ignore")
        return saved

    def quiet_reset(token: object) -> None:
        np.seterr(**token)  # type: ignore[arg-type]

    def quiet_call(function: Callable[..., Any], *args: Any) -> Any:
        with np.errstate(all="ignore"):
            return function(*args)

    class _Fallback:
        run = staticmethod(quiet_call)

    QUIET = _Fallback()
