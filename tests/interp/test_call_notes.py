"""The call chain an error passes through, as exception notes (API) and as the CLI's lines: consecutive frames at
the same call are one line with their count; a chain of more than 10 lines keeps the innermost and the
outermost 5 and says how many frames were left out between them. Recursion does not verify (PTOAS's rule), so
the recursive cases run with the module rules switched off, as a module built past the verifier would."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.errors import TileSpecError
from ptoisa.interp import LimitError, LoadError, load
from ptoisa.interp import source as interp_source

BAD_ALLOC = "    %t = pto.alloc_tile valid_row = %n valid_col = %n : !pto.tile_buf<vec, 16x16xf32, valid=?x?>"


def chain(length: int) -> tuple[str, list[int]]:
    """@f0 (the entry) calls @f1, ..., which calls @f{length-1}; the last allocates a tile %n rows high. Also the
    line of each call, f0's first."""
    lines = ["module {"]
    calls = []
    for k in range(length - 1):
        lines += [f"  func.func @f{k}(%n: index) {{" if k else "  func.func @f0(%n: index) attributes {pto.entry} {"]
        lines.append(f"    func.call @f{k + 1}(%n) : (index) -> ()")
        calls.append(len(lines))
        lines += ["    return", "  }"]
    lines += [f"  func.func private @f{length - 1}(%n: index) {{", BAD_ALLOC, "    return", "  }", "}"]
    return "\n".join(lines) + "\n", calls


def test_a_long_chain_of_distinct_calls_keeps_both_ends(tmp_path: Path) -> None:
    text, calls = chain(14)  # 13 calls: the innermost 5, 3 left out, the outermost 5
    path = tmp_path / "chain.pto"
    path.write_text(text)
    with pytest.raises(TileSpecError, match="got 17") as info:
        load(path).run(17)
    inner = len(text.splitlines()) - 3  # the alloc_tile line of the last function
    at = [f"called from func.call at {path}:{line}:5" for line in reversed(calls)]
    assert info.value.__notes__ == [f"in pto.alloc_tile at {path}:{inner}:5", *at[:5],
                                    "... 3 more call frames left out ...", *at[-5:]]


def test_ten_distinct_calls_are_all_kept(tmp_path: Path) -> None:
    text, calls = chain(11)
    with pytest.raises(TileSpecError) as info:
        load(text).run(20)
    assert info.value.__notes__[1:] == [f"called from func.call at <string>:{line}:5" for line in reversed(calls)]


def test_a_chain_deeper_than_the_limit_verifies_and_stops_there() -> None:
    text, calls = chain(102)  # 101 nested calls: the last one is refused
    with pytest.raises(LimitError, match="nest more than 100 deep") as info:
        load(text).run(1)
    at = [f"called from func.call at <string>:{line}:5" for line in reversed(calls)]
    assert info.value.__notes__ == [f"in func.call at <string>:{calls[-1]}:5", *at[1:6],
                                    "... 90 more call frames left out ...", *at[-5:]]


COUNTDOWN = """module {
  func.func @down(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %done = arith.cmpi eq, %n, %c0 : index
    scf.if %done {
      %c17 = arith.constant 17 : index
      %t = pto.alloc_tile valid_row = %c17 valid_col = %c17 : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    } else {
      %m = arith.subi %n, %c1 : index
      func.call @down(%m) : (index) -> ()
    }
    return
  }
  func.func @main(%n: index) attributes {pto.entry} {
    func.call @down(%n) : (index) -> ()
    return
  }
}
"""


def test_recursion_does_not_load() -> None:
    with pytest.raises(LoadError, match="recursive function calls are not supported for EmitC C\\+\\+ emission"):
        load(COUNTDOWN)


def test_a_recursion_is_one_line_with_its_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interp_source, "check_module", lambda module: None)
    with pytest.raises(TileSpecError, match="got 17") as info:
        load(COUNTDOWN).run(30)
    assert info.value.__notes__ == ["in pto.alloc_tile at <string>:8:7",
                                    "called from func.call at <string>:11:7 (30 times in a row)",
                                    "called from func.call at <string>:16:5"]
    with pytest.raises(TileSpecError) as info:
        load(COUNTDOWN).run(1)
    assert info.value.__notes__[1:] == ["called from func.call at <string>:11:7",
                                        "called from func.call at <string>:16:5"]
    endless = COUNTDOWN.replace("%m = arith.subi %n, %c1", "%m = arith.addi %n, %c1")
    with pytest.raises(LimitError) as info:
        load(endless).run(1)
    assert info.value.__notes__ == ["in func.call at <string>:11:7",
                                    "called from func.call at <string>:11:7 (99 times in a row)",
                                    "called from func.call at <string>:16:5"]


def test_mutual_recursion_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interp_source, "check_module", lambda module: None)
    text = """module {
  func.func @ping(%n: index) {
    func.call @pong(%n) : (index) -> ()
    return
  }
  func.func @pong(%n: index) {
    func.call @ping(%n) : (index) -> ()
    return
  }
}
"""
    with pytest.raises(LimitError) as info:
        load(text).run("ping", 0)
    ping, pong = "called from func.call at <string>:3:5", "called from func.call at <string>:7:5"
    assert info.value.__notes__ == ["in func.call at <string>:3:5", pong, ping, pong, ping, pong,
                                    "... 90 more call frames left out ...", ping, pong, ping, pong, ping]


def test_the_left_out_count_is_of_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    """@g0 .. @g5 call down a chain into @down, which calls itself n times and then @h0 .. @h5, the last failing:
    13 lines, the middle 3 (down -> h0, down -> down n times, g5 -> down) left out as n + 2 frames."""
    monkeypatch.setattr(interp_source, "check_module", lambda module: None)
    lines = ["module {"]

    def relay(name: str, callee: str) -> int:
        lines.extend([f"  func.func @{name}(%n: index) {{", f"    func.call @{callee}(%n) : (index) -> ()", "    return",
                      "  }"])
        return len(lines) - 2

    g = [relay(f"g{k}", f"g{k + 1}" if k < 5 else "down") for k in range(6)]
    h = [relay(f"h{k}", f"h{k + 1}") for k in range(5)]
    lines += ["  func.func @h5(%n: index) {", BAD_ALLOC.replace("%n", "%c17").replace(
        "    %t", "    %c17 = arith.constant 17 : index\n    %t"), "    return", "  }"]
    lines += ["  func.func @down(%n: index) {", "    %c0 = arith.constant 0 : index", "    %c1 = arith.constant 1 : index",
              "    %done = arith.cmpi eq, %n, %c0 : index", "    scf.if %done {",
              "      func.call @h0(%n) : (index) -> ()", "    } else {", "      %m = arith.subi %n, %c1 : index",
              "      func.call @down(%m) : (index) -> ()", "    }", "    return", "  }", "}"]
    with pytest.raises(TileSpecError) as info:
        load("\n".join(lines) + "\n").run("g0", 20)
    at = [f"called from func.call at <string>:{line}:5" for line in reversed(g + h)]  # h4's call first
    assert info.value.__notes__[1:] == [*at[:5], "... 22 more call frames left out ...", *at[-5:]]


def guarded_chain(length: int, loops: int = 0) -> str:
    """@f0 (the entry) .. @f{length-1}: each calls the next with %n - 1 while %n > 0, inside `loops` nested
    one-turn scf.for loops; the calls past depth %n are decoded, never run."""
    lines = ["module {"]
    for k in range(length):
        lines.append(f"  func.func @f{k}(%n: index) attributes {{pto.entry}} {{" if k == 0 else
                     f"  func.func private @f{k}(%n: index) {{")
        lines += ["    %c0 = arith.constant 0 : index", "    %c1 = arith.constant 1 : index"]
        lines += [f"    scf.for %i{j} = %c0 to %c1 step %c1 {{" for j in range(loops)]
        if k + 1 < length:
            lines += ["    %go = arith.cmpi sgt, %n, %c0 : index", "    scf.if %go {",
                      "      %m = arith.subi %n, %c1 : index", f"      func.call @f{k + 1}(%m) : (index) -> ()",
                      "    }"]
        lines += ["    }"] * loops + ["    return", "  }"]
    return "\n".join(lines + ["}"]) + "\n"


def test_a_chain_of_calls_hundreds_deep_decodes_and_runs_as_deep_as_it_goes() -> None:
    """Decoding follows calls with a worklist, not recursion: 300 functions in a chain load and decode (before,
    the decoder recursed into each callee: RecursionError past about 160), run 3 calls deep, and stop at the
    call limit when asked to go deeper."""
    program = load(guarded_chain(300))
    assert program.run(3).ops_executed > 0 and program.decode_count == 300
    with pytest.raises(LimitError, match="nest more than 100 deep"):
        program.run(200)


def test_calls_nested_in_loops_past_the_python_stack_are_a_limit_error() -> None:
    """90 calls deep, each inside 12 nested loops: deeper than the interpreter's Python stack, though under the
    call limit; a LimitError at the op where the stack ran out, with the call chain, not a RecursionError."""
    with pytest.raises(LimitError, match="nest deeper than the interpreter's Python stack allows") as info:
        load(guarded_chain(100, loops=12)).run(90)
    assert info.value.__notes__[0].startswith("in ") and "more call frames left out" in info.value.__notes__[6]
