"""Decode a `func.func` once into a compiled program: one Python closure ("step") per op.

Every SSA value gets a slot in a frame (a Python list); a step reads its operands from fixed slot indices and
writes its results to fixed slots, so running a function is a loop over closures with no parsing, dispatch on op
names or type checks left. Slot 0 of every frame holds the run's `Env` (target Config, on-chip memory, fill,
block indices). Constants are placed into the frame template at decode time and cost nothing at run time.

Handlers decide at decode, once per op, everything that does not depend on run-time values (`constants` tells
them which operands are constants): a make_tensor_view with constant sizes and strides builds its ViewShape, a
partition_view with constant sizes its Partition, tload / tstore a copy plan for their tile type (memory.py),
alloc_tile its static valid sizes, addi / subi / muli their type's range. A check decided early still raises
when the op runs, with the general path's error and message; anything a plan does not cover runs the general
path.

Regions run by `run_block`-style loops inlined into the control-flow steps; a failing step is located (op name and
`file:line:col`) by the innermost loop that sees the exception (see `locate`).

The steps of the ops a loop body is mostly made of (index arithmetic, partition views, TLOAD / TSTORE, the
instructions) are written as Python statements (`Inline`), from which both the op's own step and, for a run of
such ops in a block, one function doing all of them in order (`fuse`) are generated: a turn of a loop then makes
one Python call for that run instead of one per op; and an scf.for whose body is only such ops is written as one
function with its loop (`fuse_loop`), reading the values made before the loop once and running the steps' setups
(`Inline.setup`: what a step works out from those values and the run) once before its first turn. A step may also
keep per-frame state of its own in a scratch slot (`FunctionDecoder.scratch`), e.g. the copy plan of a TLOAD.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from ..errors import PtoError
from .errors import ExecutionError, LimitError, UnsupportedOpError, add_call_note
from .scalars import ScalarKind, kind_of

if TYPE_CHECKING:
    from .program import Program

Step = Callable[[list[Any]], None]
Handler = Callable[["FunctionDecoder", Operation], Step | None]

HANDLERS: dict[str, Handler] = {}
"""op name -> handler building the op's step (None: the op needs no run-time work, e.g. a constant)."""


def no_effect(regs: list[Any]) -> None:
    """The step of an op that changes nothing in a sequential run (set_flag, wait_flag, barriers, tsync): a
    handler returns it, and `FunctionDecoder.block` counts the op (its step is charged) without running it."""
    return None


class Steps(list):  # type: ignore[type-arg]
    """The steps of a block, and `ops`: how many op steps the block charges per pass (its steps and its ops
    whose step is `no_effect`, which are left out of the list)."""

    ops = 0


def handler(*names: str) -> Callable[[Handler], Handler]:
    """Register `fn` as the handler of the named ops; a second handler for a name is a programming error."""

    def register(fn: Handler) -> Handler:
        for name in names:
            if name in HANDLERS:
                raise RuntimeError(f"two interpreter handlers for {name}")
            HANDLERS[name] = fn
        return fn

    return register


# --- error location ------------------------------------------------------------------------------------------
def locate(exc: Exception, step: Step) -> Exception:
    """The exception to propagate from a failing step: PtoErrors keep their type and gain a note naming the op
    and its location; other exceptions become an ExecutionError carrying them. Only the innermost op locates."""
    if step is None:  # raised by the enclosing op itself (a loop's limit): located one level up
        return exc
    op, where = getattr(step, "where", ("?", "?"))
    if getattr(exc, "pto_where", None) is not None:
        if op == "func.call":
            add_call_note(exc, where)
        return exc
    if isinstance(exc, RecursionError):  # calls (at most MAX_CALL_DEPTH) with loops and branches in each
        exc = LimitError("calls, loops and branches nest deeper than the interpreter's Python stack allows "
                         f"(sys.getrecursionlimit() is {sys.getrecursionlimit()}); nothing past this point ran")
    if not isinstance(exc, PtoError):
        text = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, ValueError) and "read-only" in str(exc):  # NumPy refusing to write a caller's array
            text = "an argument array is read-only, so the kernel cannot write its results into it: pass a " \
                   "writable array (e.g. a copy)"
        wrapped = ExecutionError(text, op=op, location=where)
        wrapped.pto_where = (op, where)  # type: ignore[attr-defined]
        wrapped.__cause__ = exc
        return wrapped
    exc.pto_where = (op, where)  # type: ignore[attr-defined]
    exc.add_note(f"in {op} at {where}")
    return exc


def charge(env: Any, steps: int) -> float:
    """Count `steps` more op steps against the run's budget before they run; LimitError when it would pass
    `env.max_steps` or the run is past its deadline. Returns the deadline (0.0 for none) for loops to check."""
    env.ops += steps
    if env.max_steps is not None and env.ops > env.max_steps:
        raise LimitError(f"the run would execute more than {env.max_steps} op steps (--max-steps); "
                         "nothing past this point ran")
    if env.deadline and monotonic() > env.deadline:
        raise time_out(env)
    return env.deadline


def loop_turns(regs: list[Any], lb: int, ub: int, st: int, n: int) -> tuple[range, float]:
    """An `scf.for`'s turns (from its bound registers; a step that is not positive refused) and the deadline
    `charge` gives for `n` steps a turn, and at least one (its scf.yield, as scf.while counts its condition: a
    loop of empty turns is bounded by --max-steps too, not only by --timeout): what every loop driver
    (ops_control's, and `fuse_loop`'s written loops) does before its first turn."""
    lo, hi, by = regs[lb], regs[ub], regs[st]
    if by <= 0:
        raise ExecutionError(f"scf.for step must be positive (got {by})")
    turns = range(lo, hi, by)
    return turns, charge(regs[0], max(n, 1) * len(turns))


def time_out(env: Any) -> LimitError:
    if env.timeout is None:  # only a deadline (Limits.deadline)
        return LimitError("the run went past its deadline (Limits.deadline)")
    return LimitError(f"the run took longer than its time limit of {env.timeout:g} s (--timeout)")


def run_steps(steps: list[Step], regs: list[Any]) -> None:
    step = None
    try:
        for step in steps:
            step(regs)
    except Exception as exc:  # noqa: BLE001 - located and re-raised
        raise locate(exc, step)  # type: ignore[arg-type]


# --- compiled functions --------------------------------------------------------------------------------------
@dataclass(eq=False)
class CompiledFunction:
    """A decoded function: a frame template, its steps and where its arguments and results live."""

    name: str
    arg_names: list[str]
    arg_types: list[Any]
    result_types: list[Any]
    arg_slots: list[int] = field(default_factory=list)
    template: list[Any] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    return_slots: list[int] = field(default_factory=list)
    ops: int = 0  # op steps charged per call (`Steps.ops`)

    def call(self, env: Any, args: Any) -> tuple[Any, ...]:
        regs = self.template.copy()
        regs[0] = env
        slots = self.arg_slots
        if len(args) == len(slots) and (not slots or slots[-1] == len(slots)):
            regs[1:len(slots) + 1] = args  # the arguments have the first slots (`decode_function`)
        else:
            for slot, value in zip(slots, args, strict=True):
                regs[slot] = value
        charge(env, self.ops)
        step = None
        try:
            for step in self.steps:
                step(regs)
        except Exception as exc:  # noqa: BLE001 - located and re-raised (as `run_steps`)
            raise locate(exc, step)  # type: ignore[arg-type]
        return tuple([regs[s] for s in self.return_slots]) if self.return_slots else ()


class FunctionDecoder:
    """Decodes one function body: assigns slots and builds the steps."""

    def __init__(self, program: Program, compiled: CompiledFunction) -> None:
        self.program = program
        self.compiled = compiled
        self.slots: dict[int, int] = {}
        self.template: list[Any] = [None]
        self._values: list[SSAValue] = []  # keeps values alive while their id() is a key
        self._constant_slots: set[int] = set()

    # slots ------------------------------------------------------------------------------------------------
    def define(self, value: SSAValue) -> int:
        slot = len(self.template)
        self.slots[id(value)] = slot
        self._values.append(value)
        self.template.append(None)
        return slot

    def scratch(self, initial: Any = None) -> int:
        """A slot of the frame that no SSA value names, holding `initial` when the frame is made: a step's own
        memory for one call of the function (each run and each call has its own frame)."""
        slot = len(self.template)
        self.template.append(initial)
        return slot

    def use(self, value: SSAValue) -> int:
        return self.slots[id(value)]

    def constant(self, value: SSAValue, data: Any) -> None:
        slot = self.define(value)
        self.template[slot] = data
        self._constant_slots.add(slot)

    def constants(self, values: list[SSAValue]) -> list[Any] | None:
        """The values of `values` when every one is a constant (known now, at decode), else None."""
        slots = [self.use(v) for v in values]
        if all(s in self._constant_slots for s in slots):
            return [self.template[s] for s in slots]
        return None

    # ops --------------------------------------------------------------------------------------------------
    def where(self, op: Operation) -> str:
        return self.program.source.location(op)

    def fail(self, op: Operation, message: str) -> UnsupportedOpError:
        return UnsupportedOpError(message, op=op.name, location=self.where(op))

    def kind(self, op: Operation, value: SSAValue) -> ScalarKind:
        kind = kind_of(value.type)
        if kind is None:
            raise self.fail(op, f"a scalar of type {value.type} is not supported")
        return kind

    def block(self, block: Block, terminator: str) -> tuple[Steps, Operation | None]:
        """Steps of a block's ops; the terminator (`scf.yield` / `func.return`) is returned, not compiled. Ops
        with no effect are counted in `Steps.ops` and have no step."""
        steps = Steps()
        term: Operation | None = None
        ops = 0
        for op in block.ops:
            if op.name == terminator:
                term = op
                continue
            step = self.op(op)
            if step is not None:
                ops += 1
                if step is not no_effect:
                    steps.append(step)
        steps = fuse(steps)
        steps.ops = ops
        return steps, term

    def op(self, op: Operation) -> Step | None:
        build = HANDLERS.get(op.name)
        if build is None:
            raise self.fail(op, f"the interpreter cannot execute {op.name}")
        try:
            step = build(self, op)
        except UnsupportedOpError:
            raise
        except PtoError as exc:  # a tile type the core refuses (TileSpecError) and the like
            raise UnsupportedOpError(str(exc), op=op.name, location=self.where(op)) from exc
        if step is not None and step is not no_effect:
            step.where = (op.name, self.where(op))  # type: ignore[attr-defined]
        return step


# --- fused steps ---------------------------------------------------------------------------------------------
class Inline:
    """A step's body as Python source, for `fuse` to write several steps into one function.

    `lines(tag)` gives the statements (each a line, indented only inside its own blocks; no `return`) doing
    exactly what the step does, reading and writing `regs`; the names they use besides `regs` and their own
    locals end with `tag` and are defined by `names(tag)`. Their locals may be reused by the next step's lines
    (each step assigns before it reads). Steps written this way are made by `step` from the same lines.

    `setup(tag)`, if given, gives statements run before `lines` that only read: the run's Env (`regs[0]`, whose
    attributes do not change during a run), the slots in `setup_reads`, and the step's own result or scratch
    slots (what an earlier call left there, which only the step itself writes); and define locals ending with
    `tag` for `lines` (nothing else: they change nothing and raise nothing). Where every slot in `setup_reads`
    holds a value made before a loop, `fuse_loop` runs them once before the loop's first turn instead of every
    turn (the step's `lines` then keep those locals in step with what they write); elsewhere they run just
    before `lines`. Objects such statements read through those values (a view's kind, a tile's spec) must not
    be ones the loop's ops can change."""

    __slots__ = ("lines", "names", "setup", "setup_reads")

    def __init__(self, lines: Callable[[str], list[str]], names: Callable[[str], dict[str, Any]],
                 setup: Callable[[str], list[str]] | None = None, setup_reads: tuple[int, ...] = ()) -> None:
        self.lines, self.names = lines, names
        self.setup, self.setup_reads = setup, setup_reads

    def all_lines(self, tag: str) -> list[str]:
        """The setup statements, then the step's own."""
        return [*(self.setup(tag) if self.setup is not None else ()), *self.lines(tag)]

    def step(self, label: str) -> Step:
        """The step running these statements alone (carrying this Inline, for `fuse`): the one source of both."""
        scope = dict(self.names("_0"))
        source = "def step(regs):\n" + "".join(f"    {line}\n" for line in self.all_lines("_0"))
        exec(compile(source, f"<ptoisa interp step {label}>", "exec"), scope)  # noqa: S102 - our own text
        step = scope["step"]
        step.inline = self
        return step  # type: ignore[no-any-return]


def fuse(steps: Steps) -> Steps:
    """The steps of a block with every run of two or more consecutive steps that carry an `Inline` written into
    one function: the same statements in the same order, without a Python call per op. A failure is located at
    the op whose statements raised (the function counts them as it goes), as the step of that op would be, so
    errors read the same. Ops written so: addi / subi / muli, partition_view and make_tensor_view of constant
    sizes, alloc_tile, TLOAD / TSTORE (plain layouts), TCMPS, TPARTMUL, TEXPANDS and the record instructions'
    compiled calls."""
    fused = Steps()
    run: list[Step] = []
    for step in [*steps, None]:
        if step is not None and getattr(step, "inline", None) is not None:
            run.append(step)
            continue
        if len(run) >= 2:
            fused.append(_fused(run))
        else:
            fused.extend(run)
        run = []
        if step is not None:
            fused.append(step)
    fused.ops = steps.ops
    return fused


def _fused(group: list[Step]) -> Step:
    body: list[str] = []
    scope: dict[str, Any] = {"locate": locate, "GROUP": tuple(group)}
    for k, step in enumerate(group):
        inline: Inline = step.inline  # type: ignore[attr-defined]
        tag = f"_{k}"
        if k:
            body.append(f"k = {k}")
        body.extend(inline.all_lines(tag))
        scope.update(inline.names(tag))
    where = group[0].where  # type: ignore[attr-defined]
    source = "def fused(regs):\n    k = 0\n    try:\n" + "".join(f"        {line}\n" for line in body) + \
        "    except Exception as exc:  # noqa: BLE001 - located at the op that raised (its own step's location)\n" \
        "        raise locate(exc, GROUP[k])\n"
    exec(compile(source, f"<ptoisa interp fused steps at {where[1]}>", "exec"), scope)  # noqa: S102 - our text
    step = scope["fused"]
    step.where = where
    step.group = tuple(group)
    return step


_READ = re.compile(r"regs\[(\d+)\]")
_WRITTEN = re.compile(r"regs\[(\d+)\]\s*=(?!=)")


def fuse_loop(body: Steps, lb: int, ub: int, st: int, iv: int, inits: list[int], carried: list[int],
              yields: list[int], results: list[int], first: int) -> Step | None:
    """The step of an `scf.for` whose body is made only of steps written as statements (`Inline`, fused or
    not): one function holding the loop and the body's statements, so that a turn makes no Python call of its
    own; None for any other body (the loops of ops_control run it).

    It does what ops_control's loops do, in the same order, with the same errors and locations: the loop's
    bounds read and its step checked, all its turns charged before the first (`charge`), the deadline checked
    every turn, the induction variable and the carried values set, the body's statements, the yielded values
    read, the results set; a failing statement located at its own op (as `fuse`'s function does), a time-out at
    the loop. Two things are read once instead of every turn, which changes no value read: the slots the loop
    cannot write (`first`: the loop's first slot; every slot below it belongs to a value made before the loop,
    which SSA forbids the body to redefine; slot 0 is the run's Env) are read into locals, and the setups of
    the body's steps whose reads are all such slots (`Inline.setup`) run before the first turn."""
    group: list[Step] = []
    for step in body:
        members = getattr(step, "group", None)
        if members is None:
            if getattr(step, "inline", None) is None:
                return None
            members = (step,)
        group.extend(members)
    if not group or not len(inits) == len(carried) == len(yields) == len(results):
        return None
    tags = [f"_{k}" for k in range(len(group))]
    inlines: list[Inline] = [step.inline for step in group]  # type: ignore[attr-defined]
    setups = [inline.setup(tag) if inline.setup is not None else [] for inline, tag in zip(inlines, tags)]
    lines = [inline.lines(tag) for inline, tag in zip(inlines, tags)]
    text = [line for part in (*setups, *lines) for line in part]
    written = {int(m) for line in text for m in _WRITTEN.findall(line)}
    if written & ({*range(first), iv}):  # never so (steps write their own results and scratch slots)
        return None
    read = sorted({int(m) for line in text for m in _READ.findall(line)})
    local = {slot: f"_r{slot}" for slot in read if slot < first}
    local[iv] = "_turn"  # set at the start of each turn, written by no step

    def localised(part: list[str]) -> list[str]:
        return [_READ.sub(lambda m: local.get(int(m.group(1)), m.group(0)), line) for line in part]

    hoisted = [f"{name} = regs[{slot}]" for slot, name in local.items() if slot != iv]
    turn: list[str] = [f"regs[{iv}] = _turn", *(f"regs[{c}] = _values[{i}]" for i, c in enumerate(carried))]
    for k, (inline, setup, part) in enumerate(zip(inlines, setups, lines)):
        if all(slot < first for slot in inline.setup_reads):
            hoisted.extend(localised(setup))
        else:
            part = [*setup, *part]
        turn.append(f"_at = {k}")
        turn.extend(localised(part))
    if carried:
        turn.append(f"_values = ({''.join(f'regs[{y}], ' for y in yields)})")
    source = [
        "def loop(regs):",
        f"    _turns, _deadline = loop_turns(regs, {lb}, {ub}, {st}, {body.ops})",
        f"    _values = ({''.join(f'regs[{i}], ' for i in inits)})",
        "    _at = -1",
        "    try:",
        *(f"        {line}" for line in hoisted),
        "        for _turn in _turns:",
        "            if _deadline and monotonic() > _deadline:",
        "                _at = -1  # the loop itself is where the run stops",
        "                raise time_out(regs[0])",
        *(f"            {line}" for line in turn),
        "    except Exception as exc:  # noqa: BLE001 - located at the op that raised (its own step's location)",
        "        raise locate(exc, GROUP[_at] if _at >= 0 else None)",
        *(f"    regs[{r}] = _values[{i}]" for i, r in enumerate(results))]
    scope: dict[str, Any] = {"locate": locate, "GROUP": tuple(group), "loop_turns": loop_turns,
                             "monotonic": monotonic, "time_out": time_out}
    for inline, tag in zip(inlines, tags):
        scope.update(inline.names(tag))
    where = group[0].where  # type: ignore[attr-defined]
    exec(compile("\n".join(source) + "\n", f"<ptoisa interp loop at {where[1]}>", "exec"), scope)  # noqa: S102
    step = scope["loop"]
    step.members = tuple(group)  # (not `group`: this step is no fused run of statements)
    step.body = body
    return step  # type: ignore[no-any-return]


def decode_function(program: Program, func: Any, compiled: CompiledFunction) -> None:
    """Fill `compiled` from a func.func (the only place a function is decoded)."""
    program.decode_count += 1
    decoder = FunctionDecoder(program, compiled)
    blocks = list(func.body.blocks)
    if len(blocks) != 1:
        raise UnsupportedOpError("functions with several blocks (cf dialect) are not supported" if blocks else
                                 "function declarations have no body to run", op="func.func",
                                 location=program.source.location(func))
    entry = blocks[0]
    compiled.arg_slots = [decoder.define(a) for a in entry.args]
    steps, ret = decoder.block(entry, "func.return")
    compiled.steps = steps
    compiled.ops = steps.ops
    compiled.return_slots = [decoder.use(v) for v in ret.operands] if ret is not None else []
    compiled.template = decoder.template


# --- shared helpers for handlers -----------------------------------------------------------------------------
def constant_value(op: Operation) -> Any:
    attr = op.value  # type: ignore[attr-defined]
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return attr.value.data
    return None


def is_memref(value: SSAValue) -> bool:
    return isinstance(value.type, MemRefType)


def checked(cond: bool, message: str) -> None:
    if not cond:
        raise ExecutionError(message)
