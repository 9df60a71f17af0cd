"""Batched `scf.for` loops: each body op run once over all the loop's turns instead of once per turn.

A loop qualifies when its body is straight-line code of ops that have a batch form, and the run meets the
conditions below, all checked before any turn runs; anything else runs the loop as before (its sequential step,
which then raises every error at its turn, with earlier turns' effects done). The batch forms:

* index arithmetic (`arith.addi` / `subi` / `muli`): every value is an arithmetic progression over the turns
  (first value, step), the induction variable's being (lower bound, step); a product of two values that both
  vary, or a progression that would leave its type's range at either end (so wrap), refuses;
* `pto.partition_view` of constant sizes of a view made before the loop: a progression of element offsets,
  every turn's offsets inside the parent (checked at the first and last turn: offsets are monotonic);
* TLOAD / TSTORE on the copy plans of interp/memory.py (`copy_plan`, the routes their steps take without
  `tload` / `tstore`): one gather of the N windows (the plan's array of windows indexed by the offsets) into
  the tile's stack, one scatter of the stack's valid regions into them;
* TPARTMUL, TCMPS, TEXPANDS: their modules' `batch_form` (isa/tpartmul.py, tcmps.py, texpands.py), and record
  instructions through `ptoisa.isa.record.batch_form` (the whole-tile ufunc signatures, and any record whose
  kernel declares a `batch` hook): each gives, for the tiles and scalars of the loop, a run over stacked
  storages and what of dst it writes, or refuses (a signature that may announce an erratum or warn, a scalar
  that converts with a warning, layouts not covered);
* ops that change nothing in a sequential run (set_flag, wait_flag, barriers): counted, not run.

Conditions on the run: no poison mode; at least `BATCH_FROM` turns; stacks of at most `MAX_STACK_BYTES`; every
tile an op names is a plain `Tile` made before the loop, of one flat storage, and no two distinct tiles share
memory; every tile the body reads
is either not written by the loop (read once, seen by every turn) or written earlier in the same turn over
what the read needs (its valid region or, for a read of the whole storage, all of it); every window the loop
stores to is disjoint from every window of the same tensor any op of the loop touches in another turn (no
dependence between turns through memory; within a turn the ops run in order, so the order holds), and tensors
that differ but share memory are not mixed with stores; every tile the loop writes and every tensor it stores
to can be written (a read-only argument is refused by the sequential loop at its first write, with the ops
before it done: a batch would have done other turns' stores by then).

Each tile the loop writes gets a stack (N, numel) starting from its bytes (every turn starts from them: the
loop writes the same part of it every turn, and reads only parts written in the turn), each op runs over the
stacks, and after the last op each tile receives its stack's last row: the bytes the last turn leaves, with
every byte the loop never writes unchanged. Tensors receive their stores directly. The loop's turns are charged
as the sequential loop charges them (`loop_turns`, before anything runs), and the deadline is checked once,
before the batch (the sequential loop checks it every turn).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation

from ..ir.record_ops import RecordOp
from ..isa.enums import CmpMode
from ..isa.record import _SLOW
from ..isa.record import batch_form as record_batch_form
from ..isa.tcmps import batch_form as tcmps_batch
from ..isa.texpands import batch_form as texpands_batch
from ..isa.tpartmul import batch_form as tpartmul_batch
from ..tile.layout import certainly_apart
from ..tile.tile import Tile
from .decode import HANDLERS, FunctionDecoder, Step, loop_turns, no_effect, time_out
from .memory import GlobalTensor, Partition, View, copy_plan
from .scalars import kind_of

BATCH_FROM = 12
"""The fewest turns a loop runs batched (fewer run as before): a batch costs a set-up per run (its checks and
plans, the stacks; about 50 us for the shipped scale / compare body, against about 5 us per turn run in turn),
so it pays from about 11 turns of that body (measured: 10 turns 70 vs 75 us, 12 turns 81 vs 76 us, 24 turns
144 vs 82 us, sequential vs batched)."""

MAX_STACK_BYTES = 64 << 20
"""The most bytes a batched loop stacks (its tiles' bytes times its turns; the windows it gathers are as many
again at most): a larger loop runs in turn."""

batched_runs = [0]
"""How many loops have run batched in this process (read by tests: a loop they expect refused must not run so)."""

_INDEX_OPS = {"arith.addi": 0, "arith.subi": 1, "arith.muli": 2}


class Refused(Exception):
    """A condition of batching does not hold for this run: the loop runs sequentially."""


class Stacked:
    """A tile's N turns: `storage` (N, numel) and `view` (N, rows, cols), as a tile's storage and plain view."""

    __slots__ = ("storage", "view")

    def __init__(self, storage: np.ndarray, tile: Tile) -> None:
        spec = tile.spec
        self.storage = storage
        n = storage.shape[0]
        if spec.is_row_major:
            self.view = storage.reshape(n, spec.rows, spec.cols)
        else:
            self.view = storage.reshape(n, spec.cols, spec.rows).transpose(0, 2, 1)


def plan_loop(d: FunctionDecoder, op: Operation, sequential: Step, lb: int, ub: int, st: int, iv: int,
              n: int) -> Step:
    """The step of an `scf.for` without carried values: `sequential` wrapped in the batched run of its body
    where the body is made only of ops with a batch form (else `sequential` itself)."""
    block: Block = op.body.block  # type: ignore[attr-defined]
    program = _decode_body(d, block, iv)
    if program is None:
        return sequential

    def step(regs: list[Any]) -> None:
        if not _batched(regs, program, lb, ub, st, iv, n):
            sequential(regs)

    step.sequential = sequential  # type: ignore[attr-defined]
    for name in ("members", "body", "group"):  # what tests read off a loop's step
        if hasattr(sequential, name):
            setattr(step, name, getattr(sequential, name))
    return step


# --- decoding the body ---------------------------------------------------------------------------------------
def _decode_body(d: FunctionDecoder, block: Block, iv: int) -> list[tuple[Any, ...]] | None:
    """The body as a list of entries, one per op with an effect, or None when some op has no batch form."""
    from .ops_pto import _sync  # (the handler of the ops that change nothing)

    body: set[int] = {iv}  # slots the body defines (apart from constants)
    ints: dict[int, bool] = {iv: True}  # index slot -> whether it varies with the turn
    views: set[int] = set()
    entries: list[tuple[Any, ...]] = []
    for op in block.ops:
        name = op.name
        if name == "scf.yield":
            if op.operands:
                return None
            continue
        if op.regions and any(r.blocks for r in op.regions):
            return None
        if name == "arith.constant":
            continue
        if HANDLERS.get(name) is _sync:
            continue
        if name in _INDEX_OPS:
            kind = kind_of(op.results[0].type)
            if kind is None or kind.is_float:
                return None
            a, b = (d.use(v) for v in op.operands)
            if any(s in views for s in (a, b)):
                return None
            varies = ints.get(a, False), ints.get(b, False)
            if name == "arith.muli" and all(varies):
                return None
            r = d.use(op.results[0])
            low, high = (-(1 << (kind.width - 1)), (1 << (kind.width - 1)) - 1) if kind.signed else \
                (0, (1 << kind.width) - 1)
            entries.append(("int", r, _INDEX_OPS[name], a, b, low, high))
            body.add(r)
            ints[r] = any(varies)
            continue
        if name == "pto.partition_view":
            sizes = d.constants(list(op.sizes))  # type: ignore[attr-defined]
            src = d.use(op.source)  # type: ignore[attr-defined]
            if sizes is None or src in body:
                return None
            offsets = [d.use(v) for v in op.offsets]  # type: ignore[attr-defined]
            if any(s in views for s in offsets):
                return None
            r = d.use(op.results[0])
            entries.append(("view", r, src, offsets, Partition(tuple(sizes))))
            body.add(r)
            views.add(r)
            continue
        if name in ("pto.tload", "pto.tstore"):
            if name == "pto.tstore" and op.pre_quant_scalar is not None:  # type: ignore[attr-defined]
                return None
            view_value, tile_value = (op.operands[0], op.operands[1]) if name == "pto.tload" else \
                (op.operands[1], op.operands[0])
            v, t = d.use(view_value), d.use(tile_value)
            if t in body or (v in body and v not in views):
                return None
            entries.append(("load" if name == "pto.tload" else "store", v, t))
            continue
        entry = _instruction(d, op)
        if entry is None or any(s in body for s in entry[2]) or any(s in body for s in entry[3]):
            return None
        entries.append(entry)
    return entries if any(e[0] not in ("int", "view") for e in entries) else None


def _instruction(d: FunctionDecoder, op: Operation) -> tuple[Any, ...] | None:
    """("op", form, tile slots, scalar slots, extra) for an instruction with a batch form, else None.
    `form(config, tiles, scalars, extra)` gives None (the loop runs in turn) or (run, writes, reads[, finish]):
    `run(stacks)` over the tiles' stacks in `tiles`' order, `writes` [(tile index, "all" / "valid" / "part")],
    `reads` the indices of the tiles it reads (their valid regions), `finish()` a last check made once every
    other condition holds (False: the loop runs in turn)."""
    name = op.name
    if name == "pto.tpartmul":
        tiles = [d.use(v) for v in (op.dst, op.src0, op.src1)]  # type: ignore[attr-defined]
        return ("op", _tpartmul, tiles, [], None)
    if name == "pto.tcmps":
        tiles = [d.use(v) for v in (op.dst, op.src)]  # type: ignore[attr-defined]
        return ("op", _tcmps, tiles, [d.use(op.scalar)], op.cmp_mode.data)  # type: ignore[attr-defined]
    if name == "pto.texpands":
        return ("op", _texpands, [d.use(op.dst)], [d.use(op.scalar)], None)  # type: ignore[attr-defined]
    if isinstance(op, RecordOp):
        return _record_entry(d, op)
    return None


def _record_entry(d: FunctionDecoder, op: RecordOp) -> tuple[Any, ...] | None:
    """A record instruction whose step calls its compiled form with every operand in C++ order (`_record_step`:
    one form, no optional operand, no attribute, no struct, no SSA result)."""
    rec = op.RECORD
    if rec._simple is None or rec.attrs or op.results:  # type: ignore[attr-defined]
        return None
    _, pairs = op.roles()
    slot_of = {operand.name: (operand.kind, d.use(value)) for operand, value in pairs}
    kinds: list[str] = []
    tiles: list[int] = []
    scalars: list[int] = []
    for operand in rec._simple:  # type: ignore[attr-defined]
        kind, slot = slot_of.get(operand.name, (None, None))
        if kind not in ("tile", "scalar"):
            return None
        kinds.append(kind)
        (tiles if kind == "tile" else scalars).append(slot)  # type: ignore[arg-type]
    return ("op", _record, tiles, scalars, (rec, tuple(kinds)))


def _record(config: Any, tiles: list[Tile], scalars: list[Any], extra: Any) -> Any:
    """The record's batch form for these operands (`ptoisa.isa.record.batch_form`), where the step would run
    the compiled call that form stands for."""
    rec, kinds = extra
    tile_iter, scalar_iter = iter(tiles), iter(scalars)
    args = tuple(next(tile_iter) if kind == "tile" else next(scalar_iter) for kind in kinds)
    key = (config, *[a.spec if kind == "tile" else None for a, kind in zip(args, kinds)])
    if rec._compiled.get(key, _SLOW) is None:  # compiled to the general path
        return None
    try:
        form = record_batch_form(rec, config, args)
    except Exception:  # noqa: BLE001 - a refusal: raised at its turn by the sequential loop
        return None
    if form is None:
        return None

    def compiled() -> bool:
        """Whether the step takes the compiled call `form` stands for: compiled now if not yet (what the
        step's first call would do; asked only once every other condition holds)."""
        try:
            run = rec._compiled.get(key, _SLOW)
            if run is _SLOW:
                run = rec._compile(key, config, args)
        except Exception:  # noqa: BLE001 - a refusal: raised at its turn by the sequential loop
            return False
        return run is not None

    return (*form, compiled)


def _tpartmul(config: Any, tiles: list[Tile], scalars: list[Any], extra: Any) -> Any:
    form = tpartmul_batch(config, *tiles)
    if form is None:
        return None
    run, written = form
    return (lambda s: run(s[0], s[1], s[2])), [(0, written)], (1, 2)


def _tcmps(config: Any, tiles: list[Tile], scalars: list[Any], mode: CmpMode) -> Any:
    form = tcmps_batch(config, tiles[0], tiles[1], scalars[0], mode)
    if form is None:
        return None
    run, written = form
    return (lambda s: run(s[0], s[1])), [(0, written)], (1,)


def _texpands(config: Any, tiles: list[Tile], scalars: list[Any], extra: Any) -> Any:
    form = texpands_batch(config, tiles[0], scalars[0])
    if form is None:
        return None
    run, written = form
    return (lambda s: run(s[0])), [(0, written)], ()


# --- running ---------------------------------------------------------------------------------------------------
def _batched(regs: list[Any], program: list[tuple[Any, ...]], lb: int, ub: int, st: int, iv: int,
             n: int) -> bool:
    """Run the loop batched when this run meets the conditions (module docstring); False (nothing done, nothing
    charged) otherwise."""
    env = regs[0]
    if env.poison is not None:
        return False
    lo, hi, by = regs[lb], regs[ub], regs[st]
    if type(lo) is not int or type(hi) is not int or type(by) is not int or by <= 0:
        return False
    turns = len(range(lo, hi, by))
    if turns < BATCH_FROM:
        return False
    try:
        work = _prepare(regs, program, env.config, lo, by, iv, turns)
    except Refused:
        return False
    _, deadline = loop_turns(regs, lb, ub, st, n)  # charged as the sequential loop charges
    if deadline:
        from time import monotonic

        if monotonic() > deadline:
            raise time_out(env)
    work()
    batched_runs[0] += 1
    return True


def _prepare(regs: list[Any], program: list[tuple[Any, ...]], config: Any, lo: int, by: int, iv: int,
             turns: int) -> Callable[[], None]:
    """Check every condition and plan every op's batch form (changing nothing); the function doing the loop.
    Refused when a condition fails."""
    last = turns - 1
    ints: dict[int, tuple[int, int]] = {iv: (lo, by)}  # slot -> (first value, step per turn)
    views: dict[int, tuple[GlobalTensor, Any, int, int]] = {}  # slot -> (tensor, kind, first offset, step)
    tiles: dict[int, Tile] = {}  # id -> tile
    steps: list[tuple[Any, ...]] = []  # ("load"/"store", tile id, windows, (first, step), vr, vc, tensor) / ("op", ...)
    accesses: list[tuple[Any, ...]] = []  # (tensor, first offset, step, rows, cols, row stride, step no., a store)
    order: list[tuple[int, str, str]] = []  # (tile id, "read" / "write", what) in body order
    finishing: list[Callable[[], bool]] = []  # last checks of the op forms, once every other one holds

    def progression(slot: int) -> tuple[int, int]:
        got = ints.get(slot)
        if got is not None:
            return got
        value = regs[slot]
        if type(value) is not int:
            raise Refused
        return value, 0

    def tile_of(slot: int) -> Tile:
        tile = regs[slot]
        if type(tile) is not Tile or tile.view is None or tile.storage.ndim != 1 or \
                not tile.storage.flags.c_contiguous:
            raise Refused
        tiles[id(tile)] = tile
        return tile

    for entry in program:
        what = entry[0]
        if what == "int":
            _, r, code, a, b, low, high = entry
            (fa, sa), (fb, sb) = progression(a), progression(b)
            if code == 0:
                first, step = fa + fb, sa + sb
            elif code == 1:
                first, step = fa - fb, sa - sb
            else:
                first, step = fa * fb, sa * fb + sb * fa  # (one of sa, sb is 0)
            if not (low <= first <= high and low <= first + step * last <= high):
                raise Refused  # a value that wraps at some turn: the sequential loop's
            ints[r] = (first, step)
        elif what == "view":
            _, r, src, offsets, part = entry
            parent = regs[src]
            if type(parent) is not View:
                raise Refused
            child, limits = part._for(parent.kind)
            if child is None or len(offsets) != len(limits):
                raise Refused
            first, step = parent.offset, 0
            for slot, limit, stride in zip(offsets, limits, child.strides, strict=True):
                f, s = progression(slot)
                if not (0 <= f <= limit and 0 <= f + s * last <= limit):
                    raise Refused  # refused at its turn by the sequential loop
                first += f * stride
                step += s * stride
            views[r] = (parent.tensor, child, first, step)
        elif what in ("load", "store"):
            _, v, t = entry
            tile = tile_of(t)
            placed = views.get(v)
            if placed is None:
                view = regs[v]
                if type(view) is not View:
                    raise Refused
                placed = (view.tensor, view.kind, view.offset, 0)
            tensor, kind, first, step = placed
            if type(tensor) is not GlobalTensor:
                raise Refused
            vr, vc = tile._valid_row, tile._valid_col
            plan = copy_plan(View(tensor, first, kind), tile.storage, tile, vr, vc, tile.spec, what == "load")
            windows = plan[5]
            if plan[4] is None or not (0 <= first < len(windows) and 0 <= first + step * last < len(windows)):
                raise Refused  # `tload` / `tstore`'s route: checked or refused per call
            # (the turns' offsets are made by the batch itself: only once the stacks' size is known to be
            # bounded, MAX_STACK_BYTES, may anything proportional to the turns be allocated)
            steps.append((what, id(tile), windows, (first, step), vr, vc, tensor))
            accesses.append((tensor, first, step, vr, vc, kind.row_stride, len(steps), what == "store"))
            if what == "load":
                whole = (vr, vc) == tile.view.shape  # type: ignore[union-attr]
                order.append((id(tile), "write", "all" if whole else "valid"))
            else:
                order.append((id(tile), "read", "valid"))
        else:
            _, form, tile_slots, scalar_slots, extra = entry
            operands = [tile_of(s) for s in tile_slots]
            planned = form(config, operands, [regs[s] for s in scalar_slots], extra)
            if planned is None:
                raise Refused
            run, writes, reads = planned[:3]
            if len(planned) > 3:
                finishing.append(planned[3])
            for index in reads:
                order.append((id(operands[index]), "read", "valid"))
            for index, written in writes:
                order.append((id(operands[index]), "write", written))
            steps.append(("op", run, [id(t) for t in operands]))
    stacked = sum(t.storage.nbytes for t in tiles.values()) * turns
    if stacked > MAX_STACK_BYTES:
        raise Refused
    _check_tiles(tiles, order)
    _check_memory(accesses, turns)
    if not all(finish() for finish in finishing):
        raise Refused
    return _work(tiles, order, steps, turns)


def _check_tiles(tiles: dict[int, Tile], order: list[tuple[int, str, str]]) -> None:
    """No two distinct tiles share memory; a tile the loop writes is read only where written earlier in the
    turn: its valid region after a write of it or of the whole storage."""
    storages = [t.storage for t in tiles.values()]
    if len(tiles) > 1 and not (all(s.base is None and s.flags.owndata for s in storages) and
                               len({id(s) for s in storages}) == len(storages)):  # (else: distinct arrays)
        listed = list(tiles.values())
        for i, a in enumerate(listed):
            for b in listed[i + 1:]:
                if not certainly_apart(a.storage, b.storage) and np.may_share_memory(a.storage, b.storage):
                    raise Refused
    written = {t for t, how, _ in order if how == "write"}
    if any(not tiles[t].storage.flags.writeable for t in written):
        raise Refused  # the sequential loop refuses at the first write, with the turns before it done
    done: dict[int, set[str]] = {}
    for t, how, what in order:
        if how == "write":
            done.setdefault(t, set()).add(what)
        elif t in written and not ({"all", "valid"} & done.get(t, set())):
            raise Refused  # read before the turn writes it: it depends on the turn before


def _check_memory(accesses: list[tuple[Any, ...]], turns: int) -> None:
    """Every store's windows are disjoint from every window of the same tensor in another turn (its own
    included), and tensors that differ but may share memory are not mixed with stores."""
    stores = [a for a in accesses if a[7]]
    if not stores:
        return
    if any(not s[0].flat.flags.writeable for s in stores):
        raise Refused  # a read-only argument: refused at the first store, with the turns before it done
    tensors = {id(a[0]): a[0] for a in accesses}
    if len(tensors) > 1:
        stored = {id(a[0]) for a in stores}
        listed = list(tensors.values())
        for i, a in enumerate(listed):
            for b in listed[i + 1:]:
                if (id(a) in stored or id(b) in stored) and np.may_share_memory(a.flat, b.flat):
                    raise Refused
    for s in stores:
        for other in accesses:
            if other[0] is s[0] and _may_meet(s[1:6], other[1:6], turns):
                raise Refused


def _spans_apart(a: tuple[int, ...], b: tuple[int, ...], turns: int) -> bool:
    """Whether the elements every turn's window of `a` spans lie apart from those of `b` (then no window of one
    meets one of the other), or, for one access (`a` == `b`), each turn's span ends before the next one's starts."""
    fa, sa, vra, vca, ra = a
    fb, sb, vrb, vcb, rb = b
    if ra is None or rb is None:
        return False
    reach_a, reach_b = (vra - 1) * ra + vca - 1, (vrb - 1) * rb + vcb - 1
    if a == b:
        return abs(sa) > reach_a
    low_a, high_a = min(fa, fa + sa * (turns - 1)), max(fa, fa + sa * (turns - 1)) + reach_a
    low_b, high_b = min(fb, fb + sb * (turns - 1)), max(fb, fb + sb * (turns - 1)) + reach_b
    return high_a < low_b or high_b < low_a


def _may_meet(a: tuple[int, ...], b: tuple[int, ...], turns: int) -> bool:
    """Whether a window of access `a` (first offset, step per turn, rows, cols, row stride) at some turn k shares
    an element with one of `b` at a turn k' != k. Windows: vr rows of vc elements, row_stride apart, from offset
    first + k * step. With one row stride s, element sets meet iff the offsets' difference is dr * s + dc for
    some row difference dr in (-vr_b, vr_a) and column difference dc in (-vc_b, vc_a); otherwise (strides
    differ) their spans are compared, which may refuse windows that do not meet. Answers are kept (the same
    loop meets the same windows run after run)."""
    key = (a, b, turns)
    known = _MET.get(key)
    if known is None:
        known = not _spans_apart(a, b, turns) and _windows_meet(a, b, turns)
        if len(_MET) >= 4096:
            _MET.clear()
        _MET[key] = known
    return known


_MET: dict[tuple[Any, ...], bool] = {}
_PAIRS_UP_TO = 1024  # turns up to which two accesses of different steps are compared turn by turn pair


def _windows_meet(a: tuple[int, ...], b: tuple[int, ...], turns: int) -> bool:
    fa, sa, vra, vca, ra = a
    fb, sb, vrb, vcb, rb = b
    if sa == sb:  # the difference depends on k' - k only
        j = np.arange(1 - turns, turns)
        deltas = (fb - fa) + sa * j[j != 0]
    elif turns <= _PAIRS_UP_TO:
        k = np.arange(turns)
        deltas = (fb + sb * k)[None, :] - (fa + sa * k)[:, None]  # [k, k']
        deltas = deltas[~np.eye(turns, dtype=bool)]
    else:
        return True  # (not worked out: the loop runs in turn)
    dc_low, dc_high = -(vcb - 1), vca - 1
    if (vra == 1 and vrb == 1) or (ra == rb == 0):  # one row each (or rows on top of each other)
        return bool(np.any((deltas >= dc_low) & (deltas <= dc_high)))
    s = ra if vra > 1 else rb
    if ra is None or rb is None or (ra != rb and vra > 1 and vrb > 1) or not s or s < 0:
        reach_a, reach_b = (vra - 1) * (ra or 0) + vca - 1, (vrb - 1) * (rb or 0) + vcb - 1
        return bool(np.any((deltas <= reach_a) & (deltas >= -reach_b)))
    low = np.maximum(-((dc_high - deltas) // s), -(vrb - 1))  # ceil((delta - dc_high) / s)
    high = np.minimum((deltas - dc_low) // s, vra - 1)  # floor((delta - dc_low) / s)
    return bool(np.any(low <= high))


def _work(tiles: dict[int, Tile], order: list[tuple[int, str, str]], steps: list[tuple[Any, ...]],
          turns: int) -> Callable[[], None]:
    stored = list({id(e[6]): e[6] for e in steps if e[0] == "store"}.values())
    written: dict[int, str] = {}
    for t, how, what in order:
        if how == "write" and t not in written:
            written[t] = what  # what the turn's first write of it covers

    def work() -> None:
        stacks: dict[int, Stacked] = {}
        for t, tile in tiles.items():
            storage = tile.storage
            if t in written:
                stack = np.empty((turns, storage.size), storage.dtype)
                if written[t] != "all":
                    stack[...] = storage
            else:  # read only: every turn sees the same bytes (stride 0 over the turns)
                stack = np.ndarray((turns, storage.size), storage.dtype, storage, 0, (0, storage.itemsize))
            stacks[t] = Stacked(stack, tile)
        for entry in steps:
            if entry[0] == "op":
                entry[1]([stacks[t] for t in entry[2]])
                continue
            what, t, windows, (first, step), vr, vc, _ = entry
            offsets = np.arange(first, first + step * turns, step) if step else np.full(turns, first)
            view = stacks[t].view
            if what == "load":
                view[:, :vr, :vc] = windows[offsets]
            else:
                windows[offsets] = view[:, :vr, :vc]
        for t in written:
            tiles[t].storage[...] = stacks[t].storage[-1]
        for tensor in stored:
            tensor._written[0] = True

    return work
