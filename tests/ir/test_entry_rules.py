"""PTOAS's module-level rules on functions (ptoisa.ir.entry_rules): an entry function returns nothing, `pto.entry`
marks definitions only, no function calls itself, no cycle of calls. The messages are PTOAS's
(lib/PTO/IR/PTO.cpp validatePTOEntryFunctions, tools/ptoas/ptoas.cpp reorderEmitCFunctions), the locations the
function's (or, for a cycle, the module's) line and column. Each case is checked three ways: `check_text` (every
problem, located), `parse_module` (the first, as a VerifyException) and `ptoisa.load` (a LoadError: nothing runs).
"""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

import ptoisa
from ptoisa.interp import LoadError
from ptoisa.ir import parse_module
from ptoisa.ir.diagnostics import check_text

NOT_VOID = "'func.func' op PTO entry functions must return void"
ON_DECLARATION = "'func.func' op `pto.entry` is only valid on function definitions"
SELF_CALL = "'func.func' op recursive function calls are not supported for EmitC C++ emission"
CYCLE = "cyclic function call graph is not supported for EmitC C++ emission"

# Our own kernels for the three PTOAS lit files (test/basic/pto_entry_*_rejected.pto): a marked entry with a
# result beside a second function; the module's only function with a result; a marked entry calling itself.
MARKED_WITH_RESULT = """// the marked entry returns a count; a second definition keeps it from being the only one
module {
  func.func private @twice(%v: index) -> index {
    %r = arith.addi %v, %v : index
    return %r : index
  }
  func.func @count(%n: index) -> index attributes {pto.entry} {
    %t = func.call @twice(%n) : (index) -> index
    return %t : index
  }
}
"""
ONLY_WITH_RESULT = """module {
  func.func @negate(%x: i64) -> i64 {
    %z = arith.constant 0 : i64
    %r = arith.subi %z, %x : i64
    return %r : i64
  }
}
"""
CALLS_ITSELF = """module {
  func.func @spin(%x: f32) attributes {pto.entry} {
    %c = arith.constant 1 : i1
    scf.if %c {
      func.call @spin(%x) : (f32) -> ()
    }
    return
  }
}
"""
MUTUAL = """// ping and pong call each other: the cycle is reported at the module
module {
  func.func @main(%n: index) attributes {pto.entry} {
    func.call @ping(%n) : (index) -> ()
    return
  }
  func.func private @ping(%n: index) {
    func.call @pong(%n) : (index) -> ()
    return
  }
  func.func private @pong(%n: index) {
    func.call @ping(%n) : (index) -> ()
    return
  }
}
"""
MARKED_DECLARATION = """module {
  func.func private @external(%n: index) attributes {pto.entry}
  func.func @main(%n: index) {
    func.call @external(%n) : (index) -> ()
    return
  }
}
"""

CASES = [
    # (id, text, [(line, col, severity, message)], the first problem's message)
    ("marked-entry-with-result", MARKED_WITH_RESULT, [(7, 3, "error", NOT_VOID)], NOT_VOID),
    ("only-definition-with-result", ONLY_WITH_RESULT, [(2, 3, "error", NOT_VOID)], NOT_VOID),
    ("legacy-hacc-mark", MARKED_WITH_RESULT.replace("pto.entry", "hacc.entry"), [(7, 3, "error", NOT_VOID)], NOT_VOID),
    ("calls-itself", CALLS_ITSELF, [(2, 3, "error", SELF_CALL)], SELF_CALL),
    ("mutual-recursion", MUTUAL, [(2, 1, "error", CYCLE), (7, 3, "note", "@ping is on a call cycle"),
                                  (11, 3, "note", "@pong is on a call cycle")], CYCLE),
    ("only-definition-beside-a-declaration", ONLY_WITH_RESULT.replace(
        "module {\n", "module {\n  func.func private @elsewhere(%x: i64) -> i64\n"), [(3, 3, "error", NOT_VOID)], NOT_VOID),
    ("mark-on-declaration", MARKED_DECLARATION, [(2, 3, "error", ON_DECLARATION)], ON_DECLARATION),
    ("entry-with-result-calling-itself", ONLY_WITH_RESULT.replace(
        "    return %r", "    %again = func.call @negate(%r) : (i64) -> i64\n    return %r"),
     [(2, 3, "error", NOT_VOID), (2, 3, "error", SELF_CALL)], NOT_VOID),
]


@pytest.mark.parametrize("text, expected, first", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_with_ptoas_message_at_the_function(text, expected, first, tmp_path):
    result = check_text(text, "k.pto")
    assert [(d.line, d.col, d.severity, d.message) for d in result.diagnostics] == expected
    assert not result.ok
    with pytest.raises(VerifyException) as info:
        parse_module(text)
    assert str(info.value) == first
    path = tmp_path / "k.pto"
    path.write_text(text)
    with pytest.raises(LoadError) as loaded:
        ptoisa.load(path)  # refused while loading: no function is decoded, nothing runs
    assert str(loaded.value) == f"{path}: {first}"


def test_the_located_diagnostic_renders_like_ptoas():
    result = check_text(CALLS_ITSELF, "spin.pto")
    assert result.source.render(result.diagnostics[0]) == (
        f"spin.pto:2:3: error: {SELF_CALL}\n  func.func @spin(%x: f32) attributes {{pto.entry}} {{\n  ^")


ACCEPTED = {
    # a diamond: main calls left and right, both call bottom (bottom is emitted once, before both)
    "diamond": """module {
  func.func @main(%n: index) attributes {pto.entry} {
    func.call @left(%n) : (index) -> ()
    func.call @right(%n) : (index) -> ()
    func.call @left(%n) : (index) -> ()
    return
  }
  func.func private @left(%n: index) {
    %m = func.call @bottom(%n) : (index) -> index
    return
  }
  func.func private @right(%n: index) {
    %m = func.call @bottom(%n) : (index) -> index
    %k = func.call @bottom(%m) : (index) -> index
    return
  }
  func.func private @bottom(%n: index) -> index {
    %r = arith.addi %n, %n : index
    return %r : index
  }
}
""",
    # several definitions, none marked: none is a PTO entry, so each may return values
    "unmarked-definitions-with-results": """module {
  func.func @one(%n: index) -> index {
    return %n : index
  }
  func.func @two(%n: index) -> (index, index) {
    %a = func.call @one(%n) : (index) -> index
    return %a, %n : index, index
  }
}
""",
    # the only definition returns nothing; a declaration beside it with results is not an entry
    "declaration-with-results": """module {
  func.func private @outside(%n: index) -> index
  func.func @main(%n: index) {
    return
  }
}
""",
    # PTOAS's own flag decides when present: the only definition is declared not to be an entry
    "internal-flag-false": ONLY_WITH_RESULT.replace("(%x: i64) -> i64 {",
                                                    "(%x: i64) -> i64 attributes {pto.internal.entry = false} {"),
    # a call of a declaration by its own name is not a recursion (only definitions are emitted in order)
    "calls-a-declaration": MARKED_DECLARATION.replace(" attributes {pto.entry}", ""),
}


@pytest.mark.parametrize("text", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_legal_modules_are_accepted(text):
    result = check_text(text, "k.pto")
    assert result.ok and result.diagnostics == []
    parse_module(text)
    ptoisa.load(text)


def test_a_helper_returning_a_value_still_runs_as_the_start_of_a_run():
    """Not a PTO entry (the module marks another): `entry=` may start a run in it and its results are returned."""
    text = ACCEPTED["diamond"].replace("private @bottom", "@bottom")
    program = ptoisa.load(text)
    assert program.entry_name() == "main"
    assert program.run("bottom", 21).returns == (42,)
    assert ptoisa.load(ACCEPTED["unmarked-definitions-with-results"]).run("two", 5).returns == (5, 5)


def test_a_run_starts_in_the_entry_however_ptoas_marks_it():
    """PTOAS takes `hacc.entry` and `pto.internal.entry = true` as entry marks (isPTOEntryFunction): beside a
    public helper, a run starts there without entry= (it asked for one: two candidates); two marked entries
    still need entry=."""
    text = """module {
  func.func @helper(%x: i32) -> i32 {
    return %x : i32
  }
  func.func @main(%x: i32) attributes {MARK} {
    %y = func.call @helper(%x) : (i32) -> i32
    return
  }
}
"""
    for mark in ("hacc.entry", "pto.internal.entry = true", "pto.entry"):
        assert ptoisa.load(text.replace("MARK", mark)).entry_name() == "main", mark
    both = """module {
  func.func @one(%x: i32) attributes {hacc.entry} {
    return
  }
  func.func @two(%x: i32) attributes {pto.internal.entry = true} {
    return
  }
}
"""
    with pytest.raises(ptoisa.PtoError, match="2 candidate entry functions"):
        ptoisa.load(both).entry_name()


def test_an_entry_attribute_with_a_value_marks_nothing_as_in_ptoas():
    """PTOAS reads `pto.entry` / `hacc.entry` only as unit attributes (hasAttrOfType<UnitAttr>) and
    `pto.internal.entry` only as a signless i1 (getAttrOfType<BoolAttr>); any other value is read as absent. So
    beside a public helper a run needs entry= (before, `pto.entry = false` or `= 1 : i32` made @main the entry,
    and `pto.internal.entry = 1 : index` was an internal error: AttributeError on IndexType's width), the error
    says why, and check warns at the function; a valued mark on the only definition changes nothing; a valued
    `pto.entry` on a function with results is no entry, so no 'must return void'."""
    text = """module {
  func.func @helper(%x: i32) -> i32 {
    return %x : i32
  }
  func.func @main(%x: i32) attributes {MARK} {
    return
  }
}
"""
    for mark, words in [("pto.entry = 1 : i32", "`pto.entry = 1 : i32` marks no entry: PTOAS takes `pto.entry` "
                         "without a value (attributes {pto.entry}) and reads this one as absent"),
                        ("pto.entry = false", "`pto.entry = false` marks no entry"),
                        ('hacc.entry = "yes"', '`hacc.entry = "yes"` marks no entry'),
                        ("pto.internal.entry = 1 : index", "`pto.internal.entry = 1 : index` decides nothing: PTOAS "
                         "reads it only as true or false"),
                        ("pto.internal.entry = -1 : si1", "`pto.internal.entry = -1 : si1` decides nothing")]:
        program = ptoisa.load(text.replace("MARK", mark))
        with pytest.raises(ptoisa.PtoError, match="2 candidate entry functions") as caught:
            program.entry_name()
        assert f"@main: {words}" in str(caught.value), mark
        result = check_text(text.replace("MARK", mark))
        assert result.ok and [(d.line, d.col, d.severity) for d in result.diagnostics] == [(5, 3, "warning")], mark
        assert result.diagnostics[0].message.startswith(words), mark
        assert program.run("main", 1).entry == "main"
    for mark in ("pto.entry", "pto.entry, pto.internal.entry = true"):
        result = check_text(text.replace("MARK", mark))
        assert result.ok and result.diagnostics == [] and ptoisa.load(text.replace("MARK", mark)).entry_name() == "main"
    with pytest.raises(ptoisa.PtoError, match="2 candidate"):
        ptoisa.load(text.replace("MARK", "pto.entry, pto.internal.entry = false")).entry_name()
    only = "module {\n  func.func @k(%x: i32) attributes {pto.entry = 1 : i32} {\n    return\n  }\n}\n"
    assert check_text(only).ok and ptoisa.load(only).run(7).entry == "k"
    valued = text.replace("MARK", "pto.entry").replace("-> i32 {", "-> i32 attributes {pto.entry = 1 : i32} {")
    result = check_text(valued)
    assert result.ok and [d.severity for d in result.diagnostics] == ["warning"]
    assert ptoisa.load(valued).entry_name() == "main"


def test_call_cycles_are_found_in_random_call_graphs():
    """call_problems walks the callers of each finished function (it walked every function for each one: 10,000
    functions took 13 s to check). Random call graphs of up to 40 functions, with and without cycles: a cycle
    through several definitions is reported exactly when a depth-first search (here) finds one, and a self-call
    at its function."""
    import random

    from ptoisa.ir.entry_rules import CALL_CYCLE, SELF_CALL, call_problems

    rng = random.Random(7)
    for _ in range(60):
        n = rng.randrange(1, 40)
        edges = {k: sorted({rng.randrange(n) for _ in range(rng.randrange(4))}) for k in range(n)}
        if rng.random() < 0.5:  # mostly acyclic: calls only to later functions, then perhaps one back edge
            edges = {k: [c for c in called if c > k] for k, called in edges.items()}
            if rng.random() < 0.5 and n > 2:
                a, b = sorted(rng.sample(range(n), 2))
                edges[a].append(b)
                edges[b].append(a)
        funcs = "".join(f"  func.func private @f{k}() {{\n" + "".join(f"    func.call @f{c}() : () -> ()\n" for c in called)
                        + "    return\n  }\n" for k, called in edges.items())
        module = parse_source_module("module {\n" + funcs + "}\n")

        def reaches(start, target, seen):
            for c in edges[start]:
                if c == target or (c not in seen and not seen.add(c) and reaches(c, target, seen)):
                    return True
            return False

        cycle = any(reaches(k, k, set()) for k in range(n) if k not in edges[k]) or any(
            reaches(k, j, set()) and reaches(j, k, set()) for k in range(n) for j in range(n) if j != k)
        problems = [message for _, message in call_problems(module)]
        assert (CALL_CYCLE in problems) == cycle, edges
        assert problems.count(SELF_CALL) == sum(k in called for k, called in edges.items()), edges


def parse_source_module(text):
    from ptoisa.ir.diagnostics import parse_source

    return parse_source(text).module
