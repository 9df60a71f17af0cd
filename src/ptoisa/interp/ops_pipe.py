"""Cross-core pipes (TPUSH/TPOP) in a sequential run.

A pipe is a FIFO of slots between the cube and the vector kernel. ptoisa runs every op in program order, so a
pipe here is unbounded in depth: `tpush` appends a slot, `tpop` takes the oldest slot nobody popped yet, `tfree`
releases the oldest popped one. A `tpop` with nothing pushed before it (in program order) is an ExecutionError
naming the op and its location, as is a `tfree` with nothing popped: on the hardware the first would wait for a
producer that in this run already finished, the second would corrupt the pipe's counters.

What a slot holds follows the reference simulator's linear slot (`include/pto/cpu/TPush.hpp`, `TPop.hpp`): the
pushed tile's valid region in row-major order, `slot_size` bytes in all (zero past what was written). A consumer
reads its own valid shape, in its own element type, from that byte image, row-major; so a 16x16 acc tile popped
as an 8x16 vec tile with `split = 1` (TILE_UP_DOWN) gives sub-block 0 rows 0-7 and sub-block 1 rows 8-15, and
`split = 2` (TILE_LEFT_RIGHT) the left or right half. A vector producer with a split writes its half at its
sub-block's offset (the cube consumer sees the whole tile once both halves are in; in a run of one sub-block, the
other half is zeros). The sub-block is the run's (`run(subblock=(i, n))`, 0 by default).

Which pipe: the front-end ops (`tpush_to_aiv`, `tpop_from_aic`, ...) use their function's one pipe in their
direction (cube -> vector "C2V", vector -> cube "V2C"); the internal ops use their handle's `dir_mask` (for
dir_mask 3 the tile's location tells the direction, as in the simulator) and `flag_base` (default 0), so a
cube function's `initialize_l2l_pipe` and a vector function's with the same flag_base are the two ends of one pipe.
Global-memory slot buffers (`gm_slot_buffer`, `initialize_l2g2l_pipe`'s gm_addr) are accepted and not written;
`reserve_buffer` gives its `base` (0 with `auto = true`: ptoisa plans no memory) and a popped tile gets storage of
its own rather than an address in that buffer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from ..ir import pipe_ops as P
from ..ir.convert import tile_spec_of
from ..ir.types import TileBufType
from ..tile.layout import write_region
from ..tile.enums import TileType
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from .decode import FunctionDecoder, Step, handler, no_effect
from .errors import ExecutionError

SPLITS = P.SPLIT_NAMES


@dataclass
class Fifo:
    """One direction of one pipe in one run: slots pushed and not popped, and how many popped slots are held."""

    slots: deque[np.ndarray] = field(default_factory=deque)
    held: int = 0
    pushed: int = 0


@dataclass(frozen=True)
class PipeHandle:
    """What `!pto.pipe` holds at run time (also the front end's implicit pipe)."""

    dir_mask: int
    slot_size: int | None
    flag_base: int

    def direction(self, tile_type: Any, producer: bool) -> str:
        if self.dir_mask == 1:
            return "C2V"
        if self.dir_mask == 2:
            return "V2C"
        space = P.tile_space(tile_type)
        name = space.name.lower() if space is not None else ""
        if producer:
            return "C2V" if name in ("acc", "mat") else "V2C"
        return "C2V" if name == "vec" else "V2C"


def fifo(env: Any, handle: PipeHandle, direction: str) -> Fifo:
    key = (direction, handle.flag_base)
    found = env.pipes.get(key)
    if found is None:
        found = env.pipes[key] = Fifo()
    return found


def _lane(env: Any) -> int:
    return 1 if env.subblock_idx >= 1 else 0


def _window(split: int, rows: int, cols: int, lane: int) -> tuple[int, int]:
    """(first element, row stride in elements) of a half tile of `rows` x `cols` in a slot."""
    if split == 1:
        return lane * rows * cols, cols
    if split == 2:
        return lane * cols, 2 * cols
    return 0, cols


def _describe(spec: TileSpec, rows: int, cols: int) -> str:
    return f"{rows}x{cols} {spec.dtype.cname}"


def push(env: Any, opname: str, handle: PipeHandle, direction: str, tile: Tile, split: int) -> None:
    spec = tile.spec
    rows, cols = tile.valid_shape
    size = spec.np_dtype.itemsize
    first, stride = (_window(split, rows, cols, _lane(env)) if direction == "V2C" and spec.loc is TileType.Vec
                     else (0, cols))
    end = (first + (rows - 1) * stride + cols) * size if rows and cols else 0
    slot_size = handle.slot_size if handle.slot_size is not None else end
    if end > slot_size:
        raise ExecutionError(f"{opname}: a {_describe(spec, rows, cols)} tile ({SPLITS[split]}) needs {end} bytes "
                             f"of its slot, more than the pipe's slot_size of {slot_size}")
    slot = np.zeros(max(slot_size, first * size + rows * stride * size), dtype=np.uint8)
    if rows and cols:
        image = slot[first * size:first * size + rows * stride * size].reshape(rows, stride * size)
        image[:, :cols * size] = np.ascontiguousarray(tile.valid).view(np.uint8).reshape(rows, cols * size)
    f = fifo(env, handle, direction)
    f.slots.append(slot[:slot_size] if slot_size else slot)
    f.pushed += 1


def pop(env: Any, opname: str, handle: PipeHandle, direction: str, tile: Tile, split: int) -> None:
    f = fifo(env, handle, direction)
    if not f.slots:
        said = f"{f.pushed} pushed, all popped" if f.pushed else "nothing pushed"
        raise ExecutionError(f"{opname}: the {direction} pipe (flag_base {handle.flag_base}) is empty ({said}): "
                             "ptoisa runs the kernels in program order, so every push must come before its pop")
    slot = f.slots.popleft()
    f.held += 1
    spec = tile.spec
    rows, cols = tile.valid_shape
    size = spec.np_dtype.itemsize
    first, stride = (_window(split, rows, cols, _lane(env)) if direction == "C2V" and spec.loc is TileType.Vec
                     else (0, cols))
    end = (first + (rows - 1) * stride + cols) * size if rows and cols else 0
    if end > slot.size:
        raise ExecutionError(f"{opname}: a {_describe(spec, rows, cols)} tile ({SPLITS[split]}) reads {end} bytes "
                             f"of its slot, more than the pipe's slot of {slot.size} bytes")
    if rows and cols:
        padded = np.zeros(first * size + rows * stride * size, dtype=np.uint8)
        padded[:min(padded.size, slot.size)] = slot[:padded.size]
        image = padded[first * size:].reshape(rows, stride * size)[:, :cols * size]
        values = np.ascontiguousarray(image).view(spec.np_dtype).reshape(rows, cols)
        write_region(tile.storage, spec, rows, cols, values)
    if env.poison is not None:
        env.poison.mark(tile)


def free(env: Any, opname: str, handle: PipeHandle, direction: str) -> None:
    f = fifo(env, handle, direction)
    if f.held == 0:
        raise ExecutionError(f"{opname}: nothing popped from the {direction} pipe (flag_base {handle.flag_base}) is "
                             "left to free")
    f.held -= 1


# --- decoding ----------------------------------------------------------------------------------------------
def _int(op: Operation, prop: str) -> int | None:
    attr = op.properties.get(prop)
    return None if attr is None else attr.value.data  # type: ignore[attr-defined]


def _spec(d: FunctionDecoder, op: Operation, t: Any) -> TileSpec:
    if not isinstance(t, TileBufType):
        raise d.fail(op, f"tile operands must be !pto.tile_buf (got {t}); memref tiles are not executable")
    return tile_spec_of(t)


def _front_handle(op: Operation) -> PipeHandle:
    """The implicit pipe of a front-end op: its function's initialize_pipe (at most one, verified)."""
    func = P.enclosing_func(op)
    init = next(P.ops_of(func, P._FrontInitOp), None) if isinstance(func, FuncOp) else None
    if init is None:
        return PipeHandle(3, None, 0)
    return PipeHandle(_int(init, "dir_mask") or 3, _int(init, "slot_size"), 0)


@handler("pto.reserve_buffer", "pto.import_reserved_buffer")
def _reserve(d: FunctionDecoder, op: Operation) -> Step | None:
    """The buffer's base address as an i32 constant (0 when PTOAS would plan it: ptoisa does not)."""
    reserve = op.peer_reserve() if isinstance(op, P.ImportReservedBufferOp) else op  # type: ignore[attr-defined]
    base = _int(reserve, "base") if reserve is not None else None
    d.constant(op.results[0], base or 0)
    return None


@handler("pto.aic_initialize_pipe", "pto.aiv_initialize_pipe", "pto.set_ffts")
def _setup(d: FunctionDecoder, op: Operation) -> Step:
    """The front end's pipe is known when the function is decoded (`_front_handle`); nothing happens at run time."""
    return no_effect


@handler("pto.initialize_l2g2l_pipe", "pto.initialize_l2l_pipe")
def _init(d: FunctionDecoder, op: Operation) -> Step:
    handle = PipeHandle(_int(op, "dir_mask") or 3, _int(op, "slot_size"), _int(op, "flag_base") or 0)
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = handle

    return step


@handler("pto.tpush_to_aiv", "pto.tpush_to_aic")
def _front_push(d: FunctionDecoder, op: Operation) -> Step:
    _spec(d, op, op.tile.type)  # type: ignore[attr-defined]
    t, split, handle, direction = d.use(op.tile), _int(op, "split"), _front_handle(op), op.DIRECTION  # type: ignore
    name = op.name

    def step(regs: list[Any]) -> None:
        if regs[0].poison is not None:
            regs[0].poison.check(regs[t], "the pushed tile")
        push(regs[0], name, handle, direction, regs[t], split)

    return step


@handler("pto.tpop_from_aic", "pto.tpop_from_aiv")
def _front_pop(d: FunctionDecoder, op: Operation) -> Step:
    spec = _spec(d, op, op.results[0].type)
    dyn = [d.use(v) for v in (op.valid_row, op.valid_col) if v is not None]  # type: ignore[attr-defined]
    split, handle, direction, name = _int(op, "split"), _front_handle(op), op.DIRECTION, op.name  # type: ignore
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        env = regs[0]
        tile = Tile(spec, *[regs[s] for s in dyn])
        if env.poison is not None:
            env.poison.track(tile)
        pop(env, name, handle, direction, tile, split)
        regs[r] = tile

    return step


@handler("pto.tfree_from_aic", "pto.tfree_from_aiv")
def _front_free(d: FunctionDecoder, op: Operation) -> Step:
    handle, direction, name = _front_handle(op), op.DIRECTION, op.name  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        free(regs[0], name, handle, direction)

    return step


@handler("pto.declare_tile")
def _declare(d: FunctionDecoder, op: Operation) -> Step:
    """A tile whose contents a pto.tpop provides; it has storage of its own (poisoned under --fill poison)."""
    spec = _spec(d, op, op.results[0].type)
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        tile = Tile(spec)
        if regs[0].poison is not None:
            regs[0].poison.track(tile)
        regs[r] = tile

    return step


@handler("pto.tpush", "pto.tpop")
def _push_pop(d: FunctionDecoder, op: Operation) -> Step:
    _spec(d, op, op.tile.type)  # type: ignore[attr-defined]
    t, h, split, name = d.use(op.tile), d.use(op.pipe_handle), _int(op, "split"), op.name  # type: ignore
    producer = op.name == "pto.tpush"
    tile_type = op.tile.type  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        handle: PipeHandle = regs[h]
        direction = handle.direction(tile_type, producer)
        if producer:
            if regs[0].poison is not None:
                regs[0].poison.check(regs[t], "the pushed tile")
            push(regs[0], name, handle, direction, regs[t], split)
        else:
            pop(regs[0], name, handle, direction, regs[t], split)

    return step


def _core_of(op: Operation) -> P.KernelKind | None:
    """The core an op runs on: its enclosing section, else its function's kernel_kind."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == "pto.section.cube":
            return P.KernelKind.CUBE
        if parent.name == "pto.section.vector":
            return P.KernelKind.VECTOR
        parent = parent.parent_op()
    return P.kernel_kind(P.enclosing_func(op))


@handler("pto.tfree")
def _free(d: FunctionDecoder, op: Operation) -> Step:
    h, name = d.use(op.pipe_handle), op.name  # type: ignore[attr-defined]
    consumer_kind = _core_of(op)

    def step(regs: list[Any]) -> None:
        handle: PipeHandle = regs[h]
        if handle.dir_mask in (1, 2):
            direction = "C2V" if handle.dir_mask == 1 else "V2C"
        else:  # the consumer of C2V is the vector kernel
            direction = "V2C" if consumer_kind is P.KernelKind.CUBE else "C2V"
        free(regs[0], name, handle, direction)

    return step

