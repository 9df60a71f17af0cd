"""PTOAS's module-level rules on functions: what an entry function may return, and calls that cannot be emitted.

PTOAS refuses, before it emits C++ (lib/PTO/IR/PTO.cpp validatePTOEntryFunctions; tools/ptoas/ptoas.cpp, the
ordering of the emitted functions):

* `pto.entry` (or the legacy `hacc.entry`) on a function declaration;
* a PTO entry function with results. An entry is a definition marked `pto.entry` (or `hacc.entry`), or the only
  function definition of the module (`pto.internal.entry = true|false`, the flag PTOAS's own pass leaves, decides
  when present). A definition that is not an entry may return values: `run` starts in it when asked (`entry=`);
* a definition that calls itself (reported at that function);
* a cycle of calls through several definitions (reported at the module). Calls of declarations do not count.

Only the top-level functions of the module are looked at, as PTOAS does. Each rule gives the problems in source
order as (op, message) pairs: `ptoisa check` reports them all, loading raises the first.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr, i1
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Operation

ENTRY_ON_DECLARATION = "'func.func' op `pto.entry` is only valid on function definitions"
ENTRY_NOT_VOID = "'func.func' op PTO entry functions must return void"
SELF_CALL = "'func.func' op recursive function calls are not supported for EmitC C++ emission"
CALL_CYCLE = "cyclic function call graph is not supported for EmitC C++ emission"

_MARKS = ("pto.entry", "hacc.entry")
_DECIDED = "pto.internal.entry"


def _functions(module: ModuleOp) -> list[FuncOp]:
    return [op for op in module.ops if isinstance(op, FuncOp)]


def _marked(func: FuncOp) -> bool:
    return any(isinstance(func.attributes.get(name), UnitAttr) for name in _MARKS)


def _decided(func: FuncOp) -> bool | None:
    """`pto.internal.entry` as PTOAS reads it (getAttrOfType<BoolAttr>: a signless i1), else None."""
    decided = func.attributes.get(_DECIDED)
    if isinstance(decided, IntegerAttr) and decided.type == i1:
        return decided.value.data != 0
    return None


def _defined(func: FuncOp) -> bool:
    return bool(func.body.blocks)


def is_entry(func: FuncOp, definitions: list[FuncOp]) -> bool:
    """PTOAS's isPTOEntryFunction: a definition, marked, or the module's only definition."""
    if not _defined(func):
        return False
    decided = _decided(func)
    if decided is not None:
        return decided
    return _marked(func) or (len(definitions) == 1 and definitions[0] is func)


def unread_marks(module: ModuleOp) -> list[tuple[FuncOp, str]]:
    """Entry attributes PTOAS reads as absent, with what it reads instead: `pto.entry` / `hacc.entry` with a value
    (only the unit attribute marks: hasAttrOfType<UnitAttr>), `pto.internal.entry` not true or false."""
    out = []
    for func in _functions(module):
        for name, value in func.attributes.items():
            text = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
            if name in _MARKS and not isinstance(value, UnitAttr):
                out.append((func, f"`{name} = {text}` marks no entry: PTOAS takes `{name}` without a value "
                                  f"(attributes {{{name}}}) and reads this one as absent"))
            elif name == _DECIDED and _decided(func) is None:
                out.append((func, f"`{name} = {text}` decides nothing: PTOAS reads it only as true or false"))
    return out


def entry_problems(module: ModuleOp) -> list[tuple[Operation, str]]:
    """Marked declarations, then entry functions with results."""
    functions = _functions(module)
    definitions = [f for f in functions if _defined(f)]
    out: list[tuple[Operation, str]] = [(f, ENTRY_ON_DECLARATION) for f in functions if _marked(f) and not _defined(f)]
    out += [(f, ENTRY_NOT_VOID) for f in definitions if is_entry(f, definitions) and f.function_type.outputs.data]
    return out


def _callees(definitions: list[FuncOp]) -> dict[str, list[str]]:
    """Each definition's distinct callees among the definitions, in the order of the first call."""
    names = {f.sym_name.data for f in definitions}
    graph: dict[str, list[str]] = {}
    for func in definitions:
        called: list[str] = []
        for op in func.walk():
            if isinstance(op, CallOp) and (name := op.callee.string_value()) in names and name not in called:
                called.append(name)
        graph.setdefault(func.sym_name.data, called)
    return graph


def call_problems(module: ModuleOp) -> list[tuple[Operation, str]]:
    """Definitions calling themselves; then, for a cycle through several definitions, one problem at the module."""
    definitions = [f for f in _functions(module) if _defined(f)]
    graph = _callees(definitions)
    out: list[tuple[Operation, str]] = [(f, SELF_CALL) for f in definitions if f.sym_name.data in graph[f.sym_name.data]]
    left = {name: {c for c in called if c != name} for name, called in graph.items()}  # what each still waits for
    callers: dict[str, list[str]] = {}
    for name, waits in left.items():
        for callee in waits:
            callers.setdefault(callee, []).append(name)
    ready = [name for name, waits in left.items() if not waits]
    while ready:  # emit callees before callers (Kahn, over the callers of each: linear in the calls, where a walk
        done = ready.pop()  # over every function for each one done took 13 s for 10,000 functions)
        del left[done]
        for name in callers.get(done, ()):
            waits = left[name]
            waits.discard(done)
            if not waits:
                ready.append(name)
    if left:
        out.append((module, CALL_CYCLE))
    return out


def on_cycles(module: ModuleOp) -> list[FuncOp]:
    """The definitions that reach themselves through calls of other definitions (for notes under CALL_CYCLE)."""
    definitions = [f for f in _functions(module) if _defined(f)]
    graph = _callees(definitions)

    def reaches_itself(start: str) -> bool:
        seen: set[str] = set()
        todo = [c for c in graph[start] if c != start]
        while todo:
            name = todo.pop()
            if name == start:
                return True
            if name not in seen:
                seen.add(name)
                todo += graph[name]
        return False

    return [f for f in definitions if reaches_itself(f.sym_name.data)]


def module_problems(module: ModuleOp) -> list[tuple[Operation, str]]:
    """Every problem of the rules above, entry rules first (PTOAS checks those first)."""
    return entry_problems(module) + call_problems(module)


def check_module(module: ModuleOp) -> None:
    """Raise VerifyException with the first problem, if any."""
    from xdsl.utils.exceptions import VerifyException

    problems = module_problems(module)
    if problems:
        raise VerifyException(problems[0][1])


__all__ = ["CALL_CYCLE", "ENTRY_NOT_VOID", "ENTRY_ON_DECLARATION", "SELF_CALL", "call_problems", "check_module",
           "entry_problems", "is_entry", "module_problems", "on_cycles", "unread_marks"]
