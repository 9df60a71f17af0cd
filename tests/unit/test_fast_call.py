"""The specialised entry of single-form records (`ptoisa.isa.fastcall`) gives exactly what the general entry
(`Instruction.__call__`, which binds every argument by name) gives: the same bytes, the same refusals with the
same messages, and never a plan compiled for other tile types."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
import ptoisa.isa.vector  # noqa: F401 - registers the vector records
from ptoisa import Tile, TileType
from ptoisa.isa.record import REGISTRY, Instruction

SPECIALISED = sorted(n for n, r in REGISTRY.items() if type(r).__call__ is not Instruction.__call__)
F32 = Tile[TileType.Vec, np.float32, 4, 16]
I32 = Tile[TileType.Vec, np.int32, 4, 16]
F16 = Tile[TileType.Vec, np.float16, 4, 16]


def general(rec, *args):
    return Instruction.__call__(rec, *args)


def filled(spec, values):
    t = spec()
    t.storage[...] = values
    return t


def outcome(fn):
    try:
        fn()
    except ptoisa.PtoError as exc:
        return type(exc).__name__, str(exc)
    return None


def test_the_common_families_are_specialised():
    for name in ("TADD", "TMULS", "TEXP", "TROWSUM", "TADDSC", "TSHL"):  # one form: written for it
        assert name in SPECIALISED and "up to" not in type(REGISTRY[name]).__call__.__code__.co_filename
    for name in ("TCVT", "TDIVS", "TMOV", "TROWEXPANDMUL", "TCOLSUM"):  # several forms or attributes: any arity
        assert name in SPECIALISED and "up to" in type(REGISTRY[name]).__call__.__code__.co_filename
    for name in ("TCMPS", "TGATHER"):  # a hand-written entry
        assert name not in REGISTRY or name not in SPECIALISED


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_binary_and_scalar_calls_give_the_general_entrys_bytes(target):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(64).astype(np.float32) * 50
    y = rng.standard_normal(64).astype(np.float32) * 50
    cases = [("TADD", F32, (x, y), ()), ("TMAX", F32, (x, y), ()), ("TSUB", I32, (x.astype(np.int32), y), ()),
             ("TMULS", F32, (x,), (0.3,)), ("TADDS", I32, (x.astype(np.int32),), (2**31 - 7,)),
             ("TEXP", F32, (x / 10,), ()), ("TABS", F16, (x,), ())]
    for name, spec, sources, scalars in cases:
        rec = REGISTRY[name]
        fast_dst, slow_dst = spec(), spec()
        srcs = [filled(spec, s) for s in sources]
        with ptoisa.target(target):
            for _ in range(3):  # the first call compiles through the general entry, the others take the fast one
                event = rec(fast_dst, *srcs, *scalars)
            general(rec, slow_dst, *srcs, *scalars)
        assert fast_dst.tobytes() == slow_dst.tobytes(), name
        assert event.op == name


def test_a_compiled_signature_is_never_used_for_other_tile_types():
    a, b, d = filled(F32, np.arange(64) + 0.5), filled(F32, np.ones(64)), F32()
    with ptoisa.target("cpu"):
        for _ in range(2):
            ptoisa.TADD(d, a, b)
        ia, ib, idst = filled(I32, np.arange(64)), filled(I32, np.full(64, 2**31 - 1)), I32()
        ptoisa.TADD(idst, ia, ib)
        assert idst.data.ravel().tolist() == (np.arange(64) + 2**31 - 1).astype(np.int64).astype(np.int32).tolist()
        before = d.tobytes()
        with pytest.raises(ptoisa.IllegalInstructionError, match="dtype"):
            ptoisa.TADD(d, ia, b)  # one tile of another type: refused, nothing written
        assert d.tobytes() == before
        with ptoisa.target("a5"):  # another target: its own compiled call
            ptoisa.TADD(d, a, b)
        assert d.data.ravel().tolist() == (np.arange(64) + 1.5).tolist()


@pytest.mark.parametrize("name", SPECIALISED)
def test_wrong_arguments_are_refused_as_the_general_entry_refuses_them(name):
    """Every operand position given something of the wrong kind, too few and too many arguments, a trailing
    wait event and keywords: the same exception and message from both entries, and no byte written."""
    rec = REGISTRY[name]
    form = rec.forms[0]
    base = [F32() if o.kind == "tile" else 1.0 for o in form]
    event = ptoisa.TADD(F32(), F32(), F32())
    variants = [base[:-1], base + [base[-1]], base + [event], base[:-1] + [event], base + [None]]
    for i, operand in enumerate(form):
        for wrong in ((2.0, None, "x", np.zeros((4, 16), np.float32)) if operand.kind == "tile" else
                      (F32(), None, "x", event, True, ptoisa.CmpMode.GT)):
            variants.append(base[:i] + [wrong] + base[i + 1:])
    for attr in rec.attrs:  # an attribute given positionally or by name takes the general entry
        value = attr.default if attr.default is not None else next(iter(attr.enum))
        variants.append(base + [value])
    for args in variants:
        tiles = [a for a in args if type(a) is Tile]
        snapshot = [t.tobytes() for t in tiles]
        with ptoisa.target("cpu"):
            fast = outcome(lambda: rec(*args))  # noqa: B023 - called at once
            slow = outcome(lambda: general(rec, *args))  # noqa: B023
        assert fast == slow, (name, args)
        if fast is not None:
            assert [t.tobytes() for t in tiles] == snapshot


@pytest.mark.parametrize("name, scalars", [("TADD", ()), ("TMULS", (2.0,)), ("TEXP", ())])
def test_a_repeated_signature_does_not_go_through_the_general_entry(name, scalars, monkeypatch):
    rec = REGISTRY[name]
    scope = type(rec).__call__.__globals__
    calls = []
    real = scope["general"]
    monkeypatch.setitem(scope, "general", lambda *a, **k: calls.append(1) or real(*a, **k))
    tiles = [F32() for o in rec.forms[0] if o.kind == "tile"]
    with ptoisa.target("a5"):
        for _ in range(4):
            rec(*tiles[:2], *scalars, *tiles[2:])
    assert len(calls) <= 1  # the first call compiles the signature (unless an earlier test did)


@pytest.mark.parametrize("target", ["cpu", "A5", "a2a3", "zz", 5, None])
def test_a_target_argument_takes_the_fast_entry_with_the_general_entrys_meaning(target, monkeypatch):
    rec = REGISTRY["TMULS"]
    a = filled(F32, np.arange(64) - 31.5)
    fast_dst, slow_dst = F32(), F32()
    fast = outcome(lambda: [rec(fast_dst, a, 0.75, target=target) for _ in range(3)])
    slow = outcome(lambda: Instruction.__call__(rec, slow_dst, a, 0.75, target=target))
    assert fast == slow and fast_dst.tobytes() == slow_dst.tobytes()
    if fast is None and target is not None:
        scope = type(rec).__call__.__globals__
        calls = []
        real = scope["general"]
        monkeypatch.setitem(scope, "general", lambda *x, **k: calls.append(1) or real(*x, **k))
        rec(fast_dst, a, 0.75, target=target)
        assert not calls  # compiled above: the named target resolves and the compiled call runs


def _any_arity_cases():
    """(name, argument builder): calls of records with several forms or attributes, each positional variant the
    any-arity entry compiles (attributes given positionally, optional operands given or None, both orders)."""
    F8 = Tile[TileType.Vec, np.float16, 4, 16]  # noqa: N806
    F8x16 = Tile[TileType.Vec, np.float32, 8, 16]  # noqa: N806
    col = Tile[TileType.Vec, np.float32, 8, 1, ptoisa.BLayout.ColMajor]
    x = np.linspace(-70000.5, 70000.5, 64).astype(np.float32)
    y = (np.arange(64) % 7 - 3).astype(np.float32) * 1.5
    x2 = np.concatenate([x, y])
    cases = []
    for mode in ptoisa.RoundMode:
        cases.append(("TCVT", lambda m=mode: (F8(), filled(F32, x), m)))
    cases.append(("TCVT", lambda: (F8(), filled(F32, x))))
    cases.append(("TCVT", lambda: (F8(), filled(F32, x), "CAST_RINT")))  # by name: the general entry's business
    cases.append(("TDIVS", lambda: (F32(), filled(F32, x), 3.0)))
    cases.append(("TDIVS", lambda: (F32(), 3.0, filled(F32, y))))
    cases.append(("TDIVS", lambda: (I32(), filled(I32, y.astype(np.int32)), 0)))  # refused both ways
    cases.append(("TROWEXPANDMUL", lambda: (F8x16(), filled(F8x16, x2), filled(col, y[:8]))))
    cases.append(("TROWEXPANDMUL", lambda: (F8x16(), filled(F8x16, x2), filled(col, y[:8]), F8x16())))
    cases.append(("TCOLSUM", lambda: (Tile[TileType.Vec, np.float32, 1, 16](), filled(F32, x))))
    cases.append(("TXOR", lambda: (I32(), filled(I32, np.arange(64)), filled(I32, np.arange(64) * 7), None)))
    cases.append(("TXOR", lambda: (I32(), filled(I32, np.arange(64)), filled(I32, np.arange(64) * 7), I32())))
    cases.append(("TXOR", lambda: (I32(), filled(I32, np.arange(64)), filled(I32, np.arange(64) * 7),
                                   ptoisa.TADD(F32(), F32(), F32()))))  # a trailing wait event
    return cases


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("case", range(len(_any_arity_cases())))
def test_the_any_arity_entry_gives_the_general_entrys_outcome(target, case, monkeypatch):
    """Records with several forms or with attributes: the entry written for every arity builds the general
    entry's key inline, so bytes, refusals and warnings are the same, and a repeated signature runs its compiled
    call without the general entry."""
    import warnings

    name, build = _any_arity_cases()[case]
    rec = REGISTRY[name]

    def run(entry):
        args = build()
        with warnings.catch_warnings(record=True) as seen, ptoisa.target(target):
            warnings.simplefilter("always")
            results = [outcome(lambda: entry(*args)) for _ in range(3)]  # noqa: B023 - called at once
        return results, [t.tobytes() for t in args if type(t) is Tile], [str(w.message) for w in seen]

    assert run(rec) == run(lambda *a: general(rec, *a))
    args = build()
    with ptoisa.target(target):
        if outcome(lambda: rec(*args)) is None and not any(isinstance(a, str | tuple) for a in args):
            scope = type(rec).__call__.__globals__
            calls = []
            real = scope["general"]
            monkeypatch.setitem(scope, "general", lambda *x, **k: calls.append(1) or real(*x, **k))
            rec(*args)
            assert not calls, "a compiled signature went through the general entry"


def test_a_wait_event_where_a_scalar_was_compiled_takes_the_general_entry():
    """TDIVS(dst, src, 3.0) compiles the key (target, spec, spec, None); TDIVS(dst, src, event) must not run
    it with the event as the scalar: the general entry strips trailing events first (and then refuses the call
    for its missing scalar), and so must the fast entry."""
    rec = REGISTRY["TDIVS"]
    a = filled(F32, np.arange(64) + 1.0)
    event = ptoisa.TADD(F32(), F32(), F32())
    with ptoisa.target("cpu"):
        rec(F32(), a, 3.0)
        rec(F32(), a, 3.0)
        assert outcome(lambda: rec(F32(), a, event)) == outcome(lambda: general(rec, F32(), a, event))


class SubTile(Tile):
    """A user's subclass of Tile: the binder takes it as a tile, so no compiled key may take it as a scalar."""

    __slots__ = ()


def _subclass_cases():
    """(name, call with a Tile subclass in a slot, the same call with a number there): each pair shares the key
    a Tile subclass would have if it were keyed as a scalar."""
    row = Tile[TileType.Vec, np.float32, 1, 16]
    return [
        ("TCVT", lambda: (F16(), F32(), SubTile(F32)), lambda: (F16(), F32(), 2.0)),  # tmp / the mode's place
        ("TCOLSUM", lambda: (row(), F32(), SubTile(F32)), lambda: (row(), F32(), 2.0)),  # tmp / one too many
        ("TMOV", lambda: (F32(), F32(), SubTile(F32)), lambda: (F32(), F32(), 2.0)),  # fp / preQuantScalar
        ("TDIVS", lambda: (F32(), F32(), SubTile(F32)), lambda: (F32(), F32(), 2.0)),  # refused / runs
        ("TDIVS", lambda: (F32(), SubTile(F32), F32()), lambda: (F32(), 2.0, F32())),  # the other order
    ]


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("case", range(len(_subclass_cases())))
@pytest.mark.parametrize("first", ["subclass", "number"])
def test_a_tile_subclass_never_shares_a_scalars_compiled_call(target, case, first):
    """A call with a Tile subclass where the other form has a scalar (TCVT's tmp, TMOV's fp) and the same call
    with a number there: whichever comes first and compiles, each gets the general entry's outcome when the
    record has no compiled calls (before the fix, TCVT(dst, src, 2.0) ran the tmp form's compiled call after
    TCVT(dst, src, SubTile) and TMOV's raised an AttributeError)."""
    import warnings

    name, with_subclass, with_number = _subclass_cases()[case]
    rec = REGISTRY[name]
    calls = [with_subclass, with_number] if first == "subclass" else [with_number, with_subclass]

    def outcomes(entry):
        rec._compiled.clear()
        seen = []
        with warnings.catch_warnings(), ptoisa.target(target):
            warnings.simplefilter("ignore")
            for build in calls:
                for _ in range(2):
                    args = build()
                    seen.append((outcome(lambda: entry(*args)), [t.tobytes() for t in args  # noqa: B023
                                                                 if isinstance(t, Tile)]))
        return seen

    def alone(build):
        rec._compiled.clear()
        args = build()
        with warnings.catch_warnings(), ptoisa.target(target):
            warnings.simplefilter("ignore")
            return outcome(lambda: general(rec, *args)), [t.tobytes() for t in args if isinstance(t, Tile)]

    cold = [alone(build) for build in calls for _ in range(2)]
    assert outcomes(rec) == cold
    assert outcomes(lambda *a: general(rec, *a)) == cold


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_a_member_of_another_enum_is_refused_as_an_attribute(target):
    """CmpMode is an IntEnum: its members are ints, but not RoundModes. TCVT(dst, src, CmpMode.EQ) ran as
    RoundMode.CAST_NONE (the member with the same integer); both entries now refuse it, writing nothing. A plain
    integer still names the member of that value (C++'s integer template arguments)."""
    dst, src = F16(), filled(F32, np.linspace(-3, 3, 64))
    before = dst.tobytes()
    for entry in (REGISTRY["TCVT"], lambda *a: general(REGISTRY["TCVT"], *a)):
        with ptoisa.target(target):
            result = outcome(lambda: entry(dst, src, ptoisa.CmpMode.EQ))  # noqa: B023 - called at once
        assert result is not None and result[0] == "IllegalInstructionError" and "RoundMode" in result[1]
        assert dst.tobytes() == before


@pytest.mark.parametrize("name", ["TADD", "TMULS", "TEXP", "TADDSC"])
def test_keywords_reach_the_general_entry_as_given(name):
    """The generated entry takes its operands as positional-only parameters, so an operand given by name (alone,
    after positional ones, or twice) lands in the general entry's keywords exactly as given: same outcome, same
    bytes written, for every split of the operands into positional and named ones."""
    rec = REGISTRY[name]
    form = rec.forms[0]
    rng = np.random.default_rng(3)

    def fresh():
        return [filled(F32, rng.standard_normal(64).astype(np.float32)) if o.kind == "tile" else 0.75
                for o in form]

    for split in range(len(form) + 1):
        for twice in (None, *range(split)):
            results = []
            for entry in (lambda *a, **k: rec(*a, **k), lambda *a, **k: Instruction.__call__(rec, *a, **k)):
                rng = np.random.default_rng(3)  # the same values for both entries
                values = fresh()
                named = {o.name: v for o, v in zip(form[split:], values[split:])}
                if twice is not None:
                    named[form[twice].name] = values[twice]
                with ptoisa.target("cpu"):
                    got = outcome(lambda: entry(*values[:split], **named))  # noqa: B023 - called at once
                results.append((got, [v.tobytes() for v in values if type(v) is Tile]))
            assert results[0] == results[1], (name, split, twice)
            if twice is not None:
                assert results[0][0] is not None and "given twice" in results[0][0][1]


SEED_CALLS = {  # the seeds' lean entries and their general ones, with a legal call's operands in C++ order
    "TCMPS": (lambda: (F32(), F32(), 0.5, ptoisa.CmpMode.GT), "dst src0 src1 cmpMode"),
    "TPARTMUL": (lambda: (F32(), F32(), F32()), "dst src0 src1"),
    "TEXPANDS": (lambda: (F32(), 1.5), "dst scalar"),
    "TCI": (lambda: (I32_ROW(), 7), "dst start"),
}
I32_ROW = Tile[TileType.Vec, np.int32, 1, 16]


@pytest.mark.parametrize("name", sorted(SEED_CALLS))
def test_the_seed_entries_pass_keywords_and_events_to_the_general_entry_as_given(name):
    """The seeds' lean entries take their operands positional-only: any split into positional and named
    operands, an operand named twice, a short call and a trailing wait event give the general entry's outcome
    and bytes."""
    import ptoisa.api as api

    lean, general_entry = getattr(api, name), getattr(api, "_" + name.lower())
    make, names = SEED_CALLS[name]
    names = names.split()
    n = len(names)
    event = ptoisa.TADD(F32(), F32(), F32())
    # (operands given positionally, the rest by name?, an operand also named, trailing events)
    calls = [(split, True, twice, ()) for split in range(n + 1) for twice in (None, *range(split))]
    calls += [(n, True, None, (event,)), (n, True, None, (event, "x")), (n - 1, False, None, ())]
    for split, rest_named, twice, events in calls:
        results = []
        for entry in (lean, general_entry):
            values = list(make())
            named = dict(zip(names[split:], values[split:])) if rest_named else {}
            if twice is not None:
                named[names[twice]] = values[twice]
            with ptoisa.target("cpu"):
                got = outcome(lambda: entry(*values[:split], *events, **named))  # noqa: B023 - called at once
            results.append((got, [v.tobytes() for v in values if type(v) is Tile]))
        assert results[0] == results[1], (name, split, twice, events)
        if twice is not None or not rest_named or "x" in events:
            assert results[0][0] is not None  # refused by both
