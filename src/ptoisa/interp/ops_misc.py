"""TSYNC, TPREFETCH, dynamic event ids and the async DMA session in a sequential run (`ptoisa.ir.misc_ops`).

* `pto.tsync` waits on event tokens; every op has finished when the next one starts, so it does nothing.
* `pto.tprefetch` is a hint whose effect the ISA leaves implementation-defined: it changes no result (dst is not
  written; a later tload does the load).
* `pto.declare_eventid_array` makes N int32 ids, all 0 (PTOAS's `int32_t data[N] = {}`); `eventid_array_get` /
  `_set` read and write one of them, an index outside [0, N) is an error naming the op. `set_flag_dyn` /
  `wait_flag_dyn` order nothing here, but their id must be an event (0-7): anything else is an error.
* The async session: ptoisa runs one rank in one process, and the tensors given to the kernel are all the global
  memory there is, so the `dst` of `tput_async` stands for the peer's memory and the `src` of `tget_async` too. A
  put or get copies its `src` into its `dst` at once, element for element (the verifier has made both flat 1-D
  windows of one element type and size); its event is complete from then on, so `wait_async_event` and
  `test_async_event` give true. Refused (NotModelledError naming the op and its location): a transfer between
  overlapping windows of one tensor (the DMA's order over the overlap is not modelled), and an event waited on
  with a session other than the one that issued it (an error: the C++ event polls its own session's queue).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Operation

from ..errors import NotModelledError, OutOfBoundsError
from .decode import FunctionDecoder, Step, handler, no_effect
from .errors import ExecutionError
from .memory import GlobalTensor, View


@handler("pto.tsync", "pto.tprefetch")
def _no_effect(d: FunctionDecoder, op: Operation) -> Step:
    """Ordering only (tsync) or an implementation-defined hint (tprefetch): nothing changes."""
    return no_effect


# --- dynamic event ids -----------------------------------------------------------------------------------------
@handler("pto.declare_eventid_array")
def _declare(d: FunctionDecoder, op: Operation) -> Step:
    size = op.results[0].type.size.data  # type: ignore[attr-defined]
    if size <= 0:
        raise d.fail(op, f"!pto.eventid_array<{size}> has no elements (PTOAS_EventIdArray requires a positive size)")
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = [0] * size

    return step


def _slot(op_name: str, ids: list[int], i: int) -> int:
    if not 0 <= i < len(ids):
        raise OutOfBoundsError(f"{op_name}: index {i} is outside the event-id array [0, {len(ids)})")
    return i


@handler("pto.eventid_array_get")
def _get(d: FunctionDecoder, op: Operation) -> Step:
    a, i, name = d.use(op.array), d.use(op.index), op.name  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        ids = regs[a]
        regs[r] = ids[_slot(name, ids, regs[i])]

    return step


@handler("pto.eventid_array_set")
def _set(d: FunctionDecoder, op: Operation) -> Step:
    a, i, v, name = d.use(op.array), d.use(op.index), d.use(op.value), op.name  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        ids = regs[a]
        # the C++ element is an int32_t: the index value wraps to 32 bits, as the assignment converts it
        ids[_slot(name, ids, regs[i])] = int(np.array(regs[v] & 0xFFFFFFFF, np.uint32).view(np.int32))

    return step


@handler("pto.set_flag_dyn", "pto.wait_flag_dyn")
def _flag_dyn(d: FunctionDecoder, op: Operation) -> Step:
    e, name = d.use(op.event_id), op.name  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        value = regs[e]
        if not 0 <= value < 8:
            raise ExecutionError(f"{name}: event id {value} is not an event (EVENT_ID0 .. EVENT_ID7); the "
                                 "(event_t) cast PTOAS emits would name no flag")

    return step


# --- the async session ------------------------------------------------------------------------------------------
@dataclass(eq=False)
class Session:
    """What `!pto.async_session` holds at run time: the transfers issued on it."""

    issued: int = 0


@dataclass(eq=False)
class Event:
    """What `!pto.async_event` holds: its session; a transfer completes when it is issued."""

    session: Session


@handler("pto.build_async_session")
def _build(d: FunctionDecoder, op: Operation) -> Step:
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = Session()

    return step


def _window(view: Any) -> np.ndarray:
    if isinstance(view, View):
        return view.matrix()
    if isinstance(view, GlobalTensor):
        return view.flat.reshape(1, -1)
    raise NotModelledError(f"an async transfer operand of {type(view).__name__} is not a global tensor window")


def _span(view: Any) -> tuple[GlobalTensor, int, int]:
    """(tensor, first, last) elements a flat window touches."""
    if isinstance(view, GlobalTensor):
        return view, 0, view.size - 1
    extent = sum((n - 1) * s for n, s in zip(view.shape, view.strides, strict=True))
    return view.tensor, view.offset, view.offset + extent


def _bytes(tensor: GlobalTensor, first: int, last: int) -> tuple[int, int]:
    base, item = tensor.flat.ctypes.data, tensor.flat.itemsize
    return base + first * item, base + (last + 1) * item


def copy(op_name: str, dst: Any, src: Any) -> None:
    """An async put/get done at once: src's elements into dst, in order."""
    (dt, d0, d1), (st, s0, s1) = _span(dst), _span(src)
    (a0, a1), (b0, b1) = _bytes(dt, d0, d1), _bytes(st, s0, s1)
    if a0 < b1 and b0 < a1 and (a0, a1) != (b0, b1):
        raise NotModelledError(f"{op_name}: dst (%{dt.name} elements {d0}..{d1}) and src (%{st.name} elements "
                               f"{s0}..{s1}) overlap: the DMA's order over an overlap is not modelled")
    values = np.array(_window(src)).reshape(-1)
    target = _window(dst)
    if target.size != values.size:
        raise OutOfBoundsError(f"{op_name}: dst holds {target.size} elements, src {values.size}")
    target[...] = values.reshape(target.shape)
    (dt if isinstance(dst, GlobalTensor) else dst.tensor).written = True


@handler("pto.tput_async", "pto.tget_async")
def _transfer(d: FunctionDecoder, op: Operation) -> Step:
    dst, src, s, name = d.use(op.dst), d.use(op.src), d.use(op.session_handle), op.name  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        copy(name, regs[dst], regs[src])
        session: Session = regs[s]
        session.issued += 1
        regs[r] = Event(session)

    return step


@handler("pto.wait_async_event", "pto.test_async_event")
def _query(d: FunctionDecoder, op: Operation) -> Step:
    e, s, name = d.use(op.event), d.use(op.session_handle), op.name  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        if regs[e].session is not regs[s]:
            raise ExecutionError(f"{name}: the event was issued on another session than the one given")
        regs[r] = 1

    return step


__all__ = ["Event", "Session", "copy"]
