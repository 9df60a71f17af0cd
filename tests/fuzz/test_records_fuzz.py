"""Hypothesis fuzzing of every instruction record: random tiles, scalars, attributes and junk in every
position, on every target, with undefined behaviour refused and emulated. A call either runs or raises a
PtoError; a refused call leaves every tile byte unchanged; nothing else escapes."""

from __future__ import annotations

import warnings

from conftest import fuzz_budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_api_fuzz import JUNK, tiles

import ptoisa
from ptoisa import PtoError
from ptoisa.isa import vector  # noqa: F401 - registers the records
from ptoisa.isa.enums import RoundMode, SaturationMode
from ptoisa.isa.record import REGISTRY
from ptoisa.targets import make_config

RECORDS = sorted(name for name, rec in REGISTRY.items() if rec.generated)
ARG = st.one_of(tiles(), tiles(), JUNK, st.sampled_from(list(RoundMode) + list(SaturationMode)),
                st.integers(-2**40, 2**40), st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=fuzz_budget(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RECORDS), st.sampled_from(("a2a3", "a5", "cpu")), st.sampled_from(("raise", "emulate")),
       st.lists(ARG, min_size=0, max_size=6))
def test_every_record_refuses_cleanly_or_runs(name, target, undefined, args):
    rec = REGISTRY[name]
    config = make_config(target, True, undefined)
    operands = [a for a in args if isinstance(a, ptoisa.Tile)]
    before = [t.tobytes() for t in operands]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rec(*args, target=config)
        except PtoError:
            assert [t.tobytes() for t in operands] == before, f"a refused {name} changed a tile"


@settings(max_examples=fuzz_budget(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RECORDS), st.sampled_from(("a2a3", "a5", "cpu")), tiles(), tiles(), tiles(),
       st.one_of(st.integers(-300, 300), st.floats(-1e5, 1e5)))
def test_well_typed_calls_refuse_cleanly_or_run(name, target, a, b, c, number):
    """Calls with the right kinds in the right places (the fuzzer above mostly meets kind errors)."""
    rec = REGISTRY[name]
    form = rec.forms[0]
    pool = iter([a, b, c])
    args = [next(pool, a) if o.kind == "tile" else number for o in form if not o.optional]
    before = [t.tobytes() for t in (a, b, c)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rec(*args, target=target)
        except PtoError:
            assert [t.tobytes() for t in (a, b, c)] == before, f"a refused {name} changed a tile"
