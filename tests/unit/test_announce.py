"""announce_erratum / announce_fallback skip their work when the warning filters certainly ignore the category;
everywhere else they warn as before. Held here to the full path (the shortcut switched off): the same warnings
(category, text, reported file and line), refusals and registry entries under every kind of filter, from
Python calls and from the interpreter."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, Tile, TileType
from ptoisa.errors import ErratumWarning, ModeFallbackWarning, PtoWarning
from ptoisa.interp import load
from ptoisa.isa import _check
from ptoisa.targets import resolve

KERNEL = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"


def _here(fn, *args, **kwargs):
    return fn(*args, **kwargs)  # the line that warnings from calls made through _here name


def _there(fn, *args, **kwargs):
    return fn(*args, **kwargs)  # a second line of this module


LINES = {_here.__code__.co_firstlineno + 1, _there.__code__.co_firstlineno + 1}


def _fallback():  # TCMPS int32 GT on a2a3 runs as EQ (compiled call): ModeFallbackWarning
    src = Tile[TileType.Vec, np.int32, 16, 16](data=np.arange(256, dtype=np.int32).reshape(16, 16))
    dst = Tile[TileType.Vec, np.uint8, 16, 32, BLayout.RowMajor, 16, 2]()
    return ptoisa.TCMPS, (dst, src, 7, ptoisa.CmpMode.GT), {"target": "a2a3"}


def _erratum():  # TPARTMUL on a2a3 copies src0's bytes past dst's valid columns: ErratumWarning
    d, a = (Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, 4, 8]() for _ in range(2))
    b = Tile[TileType.Vec, np.float32, 4, 16, BLayout.RowMajor, 2, 8]()
    a.storage[...] = np.arange(64)
    return ptoisa.TPARTMUL, (d, a, b), {"target": "a2a3"}


PROGRAM = load(KERNEL, target="a2a3")  # its TCMPS warns (tcmps_chunk_tail), naming the op in brackets


def _program():
    x = np.arange(1024, dtype=np.float32).reshape(64, 16) / 8 - 40
    return PROGRAM.run, (x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8), 2.0, 100.0), {}


A2A3 = resolve("a2a3")
OPS = {  # each gives a fresh call (function, args, kwargs) of ptoisa code that announces
    "fallback": _fallback,
    "erratum": _erratum,
    "direct_erratum": lambda: (_check.announce_erratum, (A2A3, "TCI", "tci_tmp_overrun", "2 bytes past tmp"), {}),
    "direct_fallback": lambda: (_check.announce_fallback, (A2A3, "TCMP", "int32 GT is executed as EQ on this "
                                                           "target"), {}),
    "interp": _program,
}
CALLS = [("fallback", _here), ("fallback", _here), ("fallback", _there), ("erratum", _here), ("erratum", _there),
         ("erratum", _here), ("direct_erratum", _here), ("direct_fallback", _there), ("direct_fallback", _here),
         ("interp", _here), ("interp", _there), ("interp", _here)]


def _always_then(*changes):
    def setup():
        warnings.simplefilter("always")
        for change in changes:
            change()

    return setup


def _empty_filters(default):
    def setup():
        warnings.filters[:] = []
        warnings.defaultaction = default

    return setup


# scenario -> (filter set-up, the categories whose announcements the shortcut skips)
SCENARIOS = {
    "ignore": (lambda: warnings.simplefilter("ignore"), {ErratumWarning, ModeFallbackWarning}),
    "ignore_category": (_always_then(lambda: warnings.simplefilter("ignore", ModeFallbackWarning)),
                        {ModeFallbackWarning}),
    "ignore_base_class": (_always_then(lambda: warnings.filterwarnings("ignore", category=PtoWarning)),
                          {ErratumWarning, ModeFallbackWarning}),
    "ignore_other_category": (_always_then(lambda: warnings.simplefilter("ignore", DeprecationWarning)), set()),
    "ignore_message_regex": (_always_then(lambda: warnings.filterwarnings("ignore", message="TCMPS")), set()),
    "ignore_module_regex": (_always_then(lambda: warnings.filterwarnings("ignore", module=re.escape(__name__))),
                            set()),
    "ignore_line": (_always_then(lambda: warnings.filterwarnings("ignore", lineno=min(LINES))), set()),
    "conditional_ignores_then_ignore": (
        lambda: (warnings.simplefilter("ignore"), warnings.filterwarnings("ignore", message="TPARTMUL"),
                 warnings.filterwarnings("ignore", module="nowhere", category=ErratumWarning)),
        {ErratumWarning, ModeFallbackWarning}),
    "ignore_over_error": (lambda: (warnings.simplefilter("error"), warnings.simplefilter("ignore", PtoWarning)),
                          {ErratumWarning, ModeFallbackWarning}),
    "error_over_ignore": (lambda: (warnings.simplefilter("ignore"),
                                   warnings.filterwarnings("error", category=ModeFallbackWarning)), {ErratumWarning}),
    "conditional_error_over_ignore": (lambda: (warnings.simplefilter("ignore"),
                                               warnings.filterwarnings("error", message="TPARTMUL")), set()),
    "error": (lambda: warnings.simplefilter("error"), set()),
    "always": (lambda: warnings.simplefilter("always"), set()),
    "default": (lambda: warnings.simplefilter("default"), set()),
    "once": (lambda: warnings.simplefilter("once"), set()),
    "module": (lambda: warnings.simplefilter("module"), set()),
    "default_action_ignore": (_empty_filters("ignore"), {ErratumWarning, ModeFallbackWarning}),
    "default_action_default": (_empty_filters("default"), set()),
    "junk_after_ignore": (lambda: (warnings.simplefilter("ignore"), warnings.filters.append("junk")),
                          {ErratumWarning, ModeFallbackWarning}),
    "junk_before_ignore": (lambda: (warnings.simplefilter("ignore"), warnings.filters.insert(0, "junk")), set()),
    "unknown_action": (lambda: (warnings.simplefilter("ignore"), warnings.filters.insert(0, (
        "sometimes", None, Warning, None, 0))), set()),
}


def _world(setup, shortcut, changes=()):
    """Run CALLS under the filters `setup` makes (then, before call i, changes[i] if any): the outcome of each
    call, the warnings recorded, this module's registry entries; and the shortcut's answers."""
    answers = []
    real = _check._ignored

    def spy(category):
        answer = real(category)
        answers.append((category, answer))
        return answer

    globals().pop("__warningregistry__", None)
    once = dict(warnings.onceregistry)
    warnings.onceregistry.clear()
    default = warnings.defaultaction
    outcomes = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            setup()
            _check._ignored = spy if shortcut else (lambda category: False)
            for i, (op, line) in enumerate(CALLS):
                if i in dict(changes):
                    dict(changes)[i]()
                fn, args, kwargs = OPS[op]()
                try:
                    line(fn, *args, **kwargs)
                    outcomes.append(None)
                except Exception as exc:  # noqa: BLE001 - the refusal is part of the outcome
                    cause = exc.__cause__
                    outcomes.append((type(exc).__name__, str(exc), type(cause).__name__, str(cause)))
    finally:
        _check._ignored = real
        warnings.defaultaction = default
        warnings.onceregistry.clear()
        warnings.onceregistry.update(once)
    seen = [(w.category, str(w.message), w.filename, w.lineno) for w in caught]
    registry = sorted((repr(k), v) for k, v in globals().get("__warningregistry__", {}).items() if k != "version")
    return (outcomes, seen, registry), answers


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_announcing_under_each_filter_matches_the_full_path(scenario):
    setup, skipped = SCENARIOS[scenario]
    fast, answers = _world(setup, shortcut=True)
    full, _ = _world(setup, shortcut=False)
    assert fast == full
    assert {category for category, answer in answers if answer} == skipped  # the shortcut did engage
    assert {category for category, _ in answers} == {ErratumWarning, ModeFallbackWarning}
    outcomes, seen, _ = full
    for category, text, filename, lineno in seen:  # every warning names the caller's line, in this file
        assert (filename, lineno in LINES) == (__file__, True), text
        assert "[pto.tcmps at " in text or "on a2a3:" in text
    if scenario == "always":  # every call warned; the interpreter's name the op and its source line
        assert sum(f"[pto.tcmps at {KERNEL}:31:7]" in text for _, text, _, _ in seen) == 3 * 2
        assert len(seen) == 9 + 3 * 2
    if scenario == "error":  # every call refused; a run names the op in its error, the warning is its cause
        assert all(outcome is not None for outcome in outcomes)
        assert outcomes[-1][2] == "ErratumWarning" and f"[pto.tcmps at {KERNEL}:31:7]" in outcomes[-1][1]


def test_filters_edited_between_calls():
    """The shortcut's answer follows the filters: edited in place (no _filters_mutated), replaced, restored."""
    ignore_all = ("ignore", None, Warning, None, 0)
    changes = [
        (2, lambda: warnings.filters.insert(0, ("always", None, ModeFallbackWarning, None, 0))),
        (4, lambda: warnings.filters.pop(0)),
        (6, lambda: warnings.filters.__setitem__(0, ("error", None, Warning, None, 0))),
        (8, lambda: warnings.filters.__setitem__(0, ignore_all)),
        (9, lambda: setattr(warnings, "filters", [("default", None, Warning, None, 0)])),
        (11, lambda: setattr(warnings, "filters", [ignore_all])),
    ]

    def setup():
        warnings.filters[:] = [ignore_all]

    fast, answers = _world(setup, True, changes)
    full, _ = _world(setup, False, changes)
    assert fast == full
    assert [answer for _, answer in answers][:2] == [True, True]
    assert fast[1]  # some calls did warn


def test_a_replaced_warnings_warn_still_sees_every_announcement(monkeypatch):
    """A wrapper put in place of warnings.warn is called as before, even where the filters ignore the category."""
    seen = []
    monkeypatch.setattr(warnings, "warn", lambda message, *args, **kwargs: seen.append(str(message)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in ("fallback", "direct_erratum"):
            fn, args, kwargs = OPS[op]()
            fn(*args, **kwargs)
    assert len(seen) == 2 and "int32 GT is executed as EQ" in seen[0] and "tci_tmp_overrun" in seen[1]


def test_user_stacklevel_names_the_first_frame_outside_ptoisa():
    """Several ptoisa frames between the caller and the warning (a compiled call, the interpreter, a direct
    call): the reported line is the caller's, whatever file names _user_stacklevel has remembered."""
    for _ in range(2):
        _check._INSIDE.clear()
        for op in ("fallback", "erratum", "direct_fallback", "interp"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fn, args, kwargs = OPS[op]()
                _there(fn, *args, **kwargs)
            assert caught and {(w.filename, w.lineno) for w in caught} == {(__file__, max(LINES))}, op
