"""A cheap way to silence NumPy's floating-point warnings around ptoisa's own arithmetic.

Overflow to inf and NaN results are the correct, bit-exact outcomes of the modelled hardware, so NumPy's
RuntimeWarnings about them must not reach users. `np.errstate` costs about 1.7 us per use, several times the
arithmetic on a small tile; with NumPy 2 the same effect is one context-variable set/reset.

    with quiet():
        np.multiply(a, b, out=c)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

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
