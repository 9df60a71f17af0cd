"""The pto dialect: tiles, views, data movement, scalar access, runtime queries, sync ops and the five
instructions (executed by the core kernels, `ptoisa.isa.*`, with the run's target Config)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from ..errors import OutOfBoundsError, PtoError
from ..ir.convert import tile_spec_of
from ..ir.types import TileBufType
from ..isa._check import Check
from ..isa._scalar import to_element
from ..isa.enums import CmpMode, GatherAxis
from ..isa.tci import tci
from ..isa.tcmps import tcmps
from ..isa.texpands import texpands
from ..isa.tgather import tgather_cmp, tgather_index, tgather_mask
from ..isa.tpartmul import tpartmul
from ..tile.spec import TileSpec
from ..tile.tile import _ALIGN_FROM, Tile, default_valid, private_storage, window
from .decode import FunctionDecoder, Inline, Step, handler, no_effect
from .errors import LimitError
from .memory import (NO_PART, GlobalTensor, Partition, ShapeMemo, View, ViewShape, load_step, store_step,
                     tstore_quantised)

# --- tiles -------------------------------------------------------------------------------------------------


def _spec(d: FunctionDecoder, op: Operation, t: Any) -> TileSpec:
    if not isinstance(t, TileBufType):
        raise d.fail(op, f"tile operands must be !pto.tile_buf (got {t}); April memref tiles are not executable")
    return tile_spec_of(t)


@handler("pto.alloc_tile")
def _alloc_tile(d: FunctionDecoder, op: Operation) -> Step:
    """A tile whose valid sizes are all static has them resolved now (as `Tile(spec)` would); the step makes
    the storage. Dynamic valid sizes are checked when the op runs: one operand per dynamic size, each a plain
    int inside the tile, makes the tile at once; anything else goes through `Tile`, which checks and refuses."""
    spec = _spec(d, op, op.results[0].type)
    dyn = [d.use(v) for v in (op.valid_row, op.valid_col) if v is not None]  # type: ignore[attr-defined]
    addr = d.use(op.addr) if op.addr is not None else None  # type: ignore[attr-defined]
    r = d.define(op.results[0])
    valid = None
    if not dyn:
        try:
            valid = default_valid(spec)
        except PtoError:
            valid = None  # raised by Tile(spec) when the op runs
    vr, vc = valid if valid is not None else (0, 0)
    # the operands `Tile` takes in order for the dynamic sizes (row, then column), the static sizes as they are
    quick = bool(dyn) and len(dyn) == int(spec.dynamic_row) + int(spec.dynamic_col)
    sizes = iter(dyn)
    row_slot = next(sizes) if quick and spec.dynamic_row else None
    col_slot = next(sizes) if quick and spec.dynamic_col else None
    rows, cols = spec.rows, spec.cols
    # static valid sizes on a plain row-major tile: `Tile.fresh` written in (its storage what `private_storage`
    # makes: plain zeros below its aligning size, else its own; its view the reshape `plain_view` makes), half
    # an alloc_tile's cost at 16x16
    inline = valid is not None and not spec.is_boxed and spec.is_row_major
    new, nbytes, np_dtype, zeros = Tile.__new__, spec.nbytes, spec.np_dtype, np.zeros
    numel = nbytes // np_dtype.itemsize if nbytes < _ALIGN_FROM else None

    def limit(env: Any) -> None:
        raise LimitError(f"tile {spec} needs {spec.nbytes} bytes, over the run's limit of {env.max_bytes} "
                         "bytes per allocation (--max-bytes)")

    def dynamic(regs: list[Any]) -> Tile:  # valid sizes from operands
        a = regs[row_slot] if row_slot is not None else spec.valid_row
        b = regs[col_slot] if col_slot is not None else spec.valid_col
        if quick and type(a) is int and type(b) is int and 0 <= a <= rows and 0 <= b <= cols:
            return Tile.fresh(spec, a, b)
        return Tile(spec, *[regs[s] for s in dyn])

    def lines(tag: str) -> list[str]:
        if inline:
            make = [f"tile = new{tag}(Tile{tag})",
                    f"tile.spec, tile._valid_row, tile._valid_col, tile.binding = spec{tag}, {vr}, {vc}, None",
                    f"tile.storage = storage = zeros{tag}({numel}, dtype{tag})" if numel is not None else
                    f"tile.storage = storage = private_storage{tag}({nbytes}, dtype{tag})",
                    f"tile.view = storage.reshape({rows}, {cols})"]
        elif valid is not None:
            make = [f"tile = Tile{tag}.fresh(spec{tag}, {vr}, {vc})"]
        else:
            make = [f"tile = dynamic{tag}(regs)"]
        place = [f"env.memory.bind(tile, regs[{addr}])"] if addr is not None else \
            ["if env.fill_byte:", f"    tile.storage.view(uint8{tag}).fill(env.fill_byte)"]
        return ["env = regs[0]",
                f"if env.max_bytes is not None and {nbytes} > env.max_bytes:",
                f"    limit{tag}(env)",
                *make,
                *place,
                "if env.poison is not None:",
                "    env.poison.track(tile)",
                f"regs[{r}] = tile"]

    return Inline(lines, lambda tag: {f"new{tag}": new, f"Tile{tag}": Tile, f"spec{tag}": spec, f"zeros{tag}": zeros,
                                      f"dtype{tag}": np_dtype, f"private_storage{tag}": private_storage,
                                      f"dynamic{tag}": dynamic, f"limit{tag}": limit,
                                      f"uint8{tag}": np.uint8}).step("pto.alloc_tile")


@handler("pto.tassign")
def _tassign(d: FunctionDecoder, op: Operation) -> Step:
    t, a = d.use(op.tile), d.use(op.addr)  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[0].memory.bind(regs[t], regs[a])
        if regs[0].poison is not None:
            regs[0].poison.track(regs[t])
        regs[r] = regs[t]

    return step


@handler("pto.set_validshape")
def _set_validshape(d: FunctionDecoder, op: Operation) -> Step:
    t, vr, vc = (d.use(v) for v in op.operands)

    def step(regs: list[Any]) -> None:
        regs[t].SetValidShape(regs[vr], regs[vc])

    return step


# --- views -------------------------------------------------------------------------------------------------
def _layout(op: Operation) -> str:
    attr = op.attributes.get("layout") or op.properties.get("layout")
    return attr.data.name.lower() if attr is not None and hasattr(attr, "data") else "nd"


def _static_mismatch(shape: tuple[int, ...], dims: tuple[int, ...], what: str) -> str | None:
    """The error when a size differs from the type's static size at that dimension, else None."""
    for i, (got, want) in enumerate(zip(shape, dims, strict=False)):
        if want >= 0 and got != want:
            return f"{what}: size {got} at dim {i} differs from the type's static size {want}"
    return None


def _check_static(shape: tuple[int, ...], dims: tuple[int, ...], what: str) -> None:
    message = _static_mismatch(shape, dims, what)
    if message is not None:
        raise OutOfBoundsError(message)


@handler("pto.make_tensor_view")
def _make_tensor_view(d: FunctionDecoder, op: Operation) -> Step:
    """Sizes and strides that are constants are checked and turned into a ViewShape now; the step then only
    bounds-checks the view against the tensor it is given (errors still surface when the op runs)."""
    p = d.use(op.ptr)  # type: ignore[attr-defined]
    shape = [d.use(v) for v in op.shape]  # type: ignore[attr-defined]
    strides = [d.use(v) for v in op.strides]  # type: ignore[attr-defined]
    dims = op.results[0].type.dims  # type: ignore[attr-defined]
    layout = _layout(op)
    r = d.define(op.results[0])
    known = d.constants([*op.shape, *op.strides])  # type: ignore[attr-defined]
    if known is not None:
        sizes, steps = tuple(known[:len(shape)]), tuple(known[len(shape):])
        mismatch = _static_mismatch(sizes, dims, "make_tensor_view")
        try:
            kind = ViewShape(sizes, steps, layout)
        except Exception:  # noqa: BLE001 - malformed (e.g. ranks differ): the general step raises it at run time
            kind = None
        if mismatch is not None:
            def refuse(regs: list[Any]) -> None:
                raise OutOfBoundsError(mismatch)

            return refuse
        if kind is not None:
            reach = kind.reach if kind.problem is None else None

            def lines(tag: str) -> list[str]:
                if reach is None:
                    return [f"regs[{r}] = kind{tag}.place(regs[{p}], 0)"]
                return [f"tensor = regs[{p}]",  # `kind.place(tensor, 0)` when its checks pass:
                        f"if type(tensor) is GlobalTensor and {reach} < tensor.flat.size:",
                        f"    regs[{r}] = View(tensor, 0, kind{tag})",
                        "else:",
                        f"    regs[{r}] = kind{tag}.place(tensor, 0)"]

            return Inline(lines, lambda tag: {f"kind{tag}": kind, "View": View, "GlobalTensor": GlobalTensor}
                          ).step("pto.make_tensor_view")

    memo = ShapeMemo()

    def step(regs: list[Any]) -> None:
        sizes = tuple([regs[s] for s in shape])
        _check_static(sizes, dims, "make_tensor_view")
        regs[r] = memo(sizes, tuple([regs[s] for s in strides]), layout).place(regs[p], 0)

    return step


@handler("pto.partition_view")
def _partition_view(d: FunctionDecoder, op: Operation) -> Step:
    """Constant sizes: a Partition plans the child view once per parent shape; the step checks the offsets."""
    src = d.use(op.source)  # type: ignore[attr-defined]
    offsets = [d.use(v) for v in op.offsets]  # type: ignore[attr-defined]
    sizes = [d.use(v) for v in op.sizes]  # type: ignore[attr-defined]
    r = d.define(op.results[0])
    known = d.constants(list(op.sizes))  # type: ignore[attr-defined]
    if known is not None:
        part = Partition(tuple(known))
        if len(offsets) == 2:
            o0, o1 = offsets
            at2 = part.at2
            if all(use.operation.name in _VIEW_READERS for use in op.results[0].uses):
                return _reused_partition(src, o0, o1, r, part)

            def step2(regs: list[Any]) -> None:
                parent, i, j = regs[src], regs[o0], regs[o1]
                kind, child, m0, m1, s0, s1 = part.last2  # the parent kind met last (see Partition.last2)
                if kind is parent.kind and 0 <= i <= m0 and 0 <= j <= m1:
                    regs[r] = View(parent.tensor, parent.offset + i * s0 + j * s1, child)
                else:
                    regs[r] = at2(parent, i, j)

            return step2

        def step_n(regs: list[Any]) -> None:
            regs[r] = part(regs[src], tuple([regs[s] for s in offsets]))

        return step_n

    def step(regs: list[Any]) -> None:
        regs[r] = regs[src].partition(tuple([regs[s] for s in offsets]), tuple([regs[s] for s in sizes]))

    return step


_VIEW_READERS = frozenset({"pto.tload", "pto.tstore"})
"""Ops that read a view while they run and keep no reference to it."""


def _reused_partition(src: int, o0: int, o1: int, r: int, part: Partition) -> Step:
    """A rank-2 partition_view of constant sizes whose view only TLOAD / TSTORE read: each turn moves the View
    the step made in this frame before (the same tensor and kind) to the new offset instead of making another.
    Nothing else holds that View (the ops reading it keep no reference, and no other op receives it), and each
    frame (each run, each call) has its own, so that moving it changes no view anything still reads.

    What depends only on the parent view and the column offset (whether the parent's kind is the one planned
    for, the column offset's bounds, the start of the row) is worked out by the step's setup (`Inline.setup`),
    which a loop runs once before its first turn when the parent and the column offset are made before it: a
    view's kind, tensor and offset never change once it is made, except the offset of a view this step (or
    another one like it) moves, which only TLOAD / TSTORE read, never a partition_view. A turn then checks the
    row offset and moves the view (`view{tag}`: this step's View in the frame, or None until it makes one).
    Any other case takes the statements of every turn before (`part.at2` raises the bounds errors)."""
    def setup(tag: str) -> list[str]:
        return [f"parent{tag}, j{tag} = regs[{src}], regs[{o1}]",
                f"kind{tag}, child{tag}, m0{tag}, m1{tag}, s0{tag}, s1{tag} = part{tag}.last2_for(parent{tag}.kind)",
                f"fast{tag} = kind{tag} is parent{tag}.kind and 0 <= j{tag} <= m1{tag}",
                f"tensor{tag}, view{tag} = parent{tag}.tensor, regs[{r}]",
                f"base{tag} = parent{tag}.offset + j{tag} * s1{tag} if fast{tag} else 0",
                f"if view{tag} is not None and (view{tag}.kind is not child{tag} or view{tag}.tensor is not "
                f"tensor{tag}):",
                f"    view{tag} = None"]

    def lines(tag: str) -> list[str]:
        return [
            f"i = regs[{o0}]",
            f"if fast{tag} and 0 <= i <= m0{tag}:",
            f"    if view{tag} is not None:",
            f"        view{tag}.offset = base{tag} + i * s0{tag}",
            "    else:",
            f"        regs[{r}] = view{tag} = View(tensor{tag}, base{tag} + i * s0{tag}, child{tag})",
            "else:  # every turn's statements (part.at2 raises the bounds errors)",
            f"    parent, j = regs[{src}], regs[{o1}]",
            f"    kind, child, m0, m1, s0, s1 = part{tag}.last2",
            "    if kind is parent.kind and 0 <= i <= m0 and 0 <= j <= m1:",
            f"        view, tensor = regs[{r}], parent.tensor",
            "        if view is not None and view.kind is child and view.tensor is tensor:",
            "            view.offset = parent.offset + i * s0 + j * s1",
            "        else:",
            f"            regs[{r}] = View(tensor, parent.offset + i * s0 + j * s1, child)",
            "    else:",
            f"        regs[{r}] = part{tag}.at2(parent, i, j)",
            f"    view{tag} = None  # (made again by the next turn that takes the path above)"]

    return Inline(lines, lambda tag: {f"part{tag}": part, "View": View}, setup, (src, o1)).step("pto.partition_view")


@handler("pto.get_tensor_view_dim")
def _get_tensor_view_dim(d: FunctionDecoder, op: Operation) -> Step:
    src, dim = d.use(op.source), d.use(op.dim)  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        view, i = regs[src], regs[dim]
        if not 0 <= i < len(view.shape):
            raise OutOfBoundsError(f"get_tensor_view_dim: dim {i} of a rank-{len(view.shape)} view")
        regs[r] = view.shape[i]

    return step


@handler("memref.reinterpret_cast")
def _reinterpret_cast(d: FunctionDecoder, op: Operation) -> Step:
    src = d.use(op.source)  # type: ignore[attr-defined]
    parts = []
    for static, dynamic in ((op.static_offsets, op.offsets), (op.static_sizes, op.sizes),  # type: ignore[attr-defined]
                            (op.static_strides, op.strides)):  # type: ignore[attr-defined]
        slots = iter([d.use(v) for v in dynamic])
        parts.append([("s", v) if v != -(1 << 63) else ("d", next(slots)) for v in static.get_values()])
    layout = _layout(op)
    r = d.define(op.results[0])
    memo = ShapeMemo()

    def step(regs: list[Any]) -> None:
        off, sizes, strides = ([regs[v] if k == "d" else v for k, v in part] for part in parts)
        regs[r] = memo(tuple(sizes), tuple(strides), layout).place(regs[src].tensor, off[0])

    return step


@handler("pto.tload")
def _tload(d: FunctionDecoder, op: Operation) -> Step:
    return load_step(_spec(d, op, op.operands[1].type), d.use(op.operands[0]), d.use(op.operands[1]),
                     d.scratch(NO_PART))


@handler("pto.tstore")
def _tstore(d: FunctionDecoder, op: Operation) -> Step:
    spec = _spec(d, op, op.operands[0].type)
    pre = op.pre_quant_scalar  # type: ignore[attr-defined]
    # stPhase orders nothing in a sequential run; the atomic add is not modelled, nor ReLU on a plain store
    checks = (("atomicType", "atomic_none"),) + ((("reluPreMode", "no_relu"),) if pre is None else ())
    for name, neutral in checks:
        value = op.attributes.get(name)
        text = getattr(value, "text", None)
        if value is not None and text != neutral:
            raise d.fail(op, f"{name} = {text or value} is not modelled (pto.tstore runs plain and pre-quantised "
                             "stores only)")
    t, v = d.use(op.operands[0]), d.use(op.operands[1])
    if pre is not None:
        relu = getattr(op.attributes.get("reluPreMode"), "text", "no_relu") == "normal_relu"
        w = d.use(pre)

        def quantised(regs: list[Any]) -> None:
            if regs[0].poison is not None:
                regs[0].poison.check(regs[t], "the stored tile")
            tstore_quantised(regs[t], regs[v], int(regs[w]), relu)

        return quantised

    return store_step(spec, t, v, d.scratch(NO_PART))


# --- scalar access -----------------------------------------------------------------------------------------
def _index_in(size: int, i: int, what: str) -> int:
    if not 0 <= i < size:
        raise OutOfBoundsError(f"{what}: index {i} is outside [0, {size})")
    return i


@handler("pto.load_scalar")
def _load_scalar(d: FunctionDecoder, op: Operation) -> Step:
    p, i = d.use(op.ptr), d.use(op.index)  # type: ignore[attr-defined]
    norm = d.kind(op, op.results[0]).norm
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        g: GlobalTensor = regs[p]
        regs[r] = norm(g.flat[_index_in(g.size, regs[i], f"load_scalar %{g.name}")].item())

    return step


@handler("pto.store_scalar")
def _store_scalar(d: FunctionDecoder, op: Operation) -> Step:
    v, p, i = d.use(op.value), d.use(op.ptr), d.use(op.index)  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        g: GlobalTensor = regs[p]
        g.flat[_index_in(g.size, regs[i], f"store_scalar %{g.name}")] = regs[v]
        g.written = True

    return step


@handler("pto.tsetval")
def _tsetval(d: FunctionDecoder, op: Operation) -> Step:
    spec = _spec(d, op, op.dst.type)  # type: ignore[attr-defined]
    o, v, t = d.use(op.offset), d.use(op.value), d.use(op.dst)  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        check = Check("TSETVAL", regs[0].config.name)
        tile = regs[t]
        tile.storage[_index_in(spec.numel, regs[o], "tsetval")] = to_element(regs[v], spec.dtype, check, "value")

    return step


@handler("pto.tgetval")
def _tgetval(d: FunctionDecoder, op: Operation) -> Step:
    spec = _spec(d, op, op.src.type)  # type: ignore[attr-defined]
    t, o = d.use(op.src), d.use(op.offset)  # type: ignore[attr-defined]
    kind = d.kind(op, op.results[0])
    r = d.define(op.results[0])
    convert = float if kind.is_float else int

    def step(regs: list[Any]) -> None:
        regs[r] = kind.norm(convert(regs[t].storage[_index_in(spec.numel, regs[o], "tgetval")]))

    return step


# --- runtime queries and sync ------------------------------------------------------------------------------
_QUERIES = {"pto.get_block_idx": "block_idx", "pto.get_block_num": "block_num",
            "pto.get_subblock_idx": "subblock_idx", "pto.get_subblock_num": "subblock_num"}


@handler(*_QUERIES)
def _query(d: FunctionDecoder, op: Operation) -> Step:
    attr = _QUERIES[op.name]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = getattr(regs[0], attr)

    return step


@handler("pto.set_flag", "pto.wait_flag", "pto.record_event", "pto.wait_event", "pto.barrier", "pto.fence.barrier_all",
         "pto.fence.release", "pto.fence.acquire", "pto.get_buf", "pto.rls_buf", "pto.sync.set", "pto.sync.wait")
def _sync(d: FunctionDecoder, op: Operation) -> Step:
    """Execution is in program order, so synchronisation has no effect on results: the op is counted as a step
    but runs nothing."""
    return no_effect


# --- the five instructions ---------------------------------------------------------------------------------
def _tiles(d: FunctionDecoder, op: Operation, *values: SSAValue | None) -> list[int | None]:
    for v in values:
        if v is not None and isinstance(v.type, MemRefType):
            raise d.fail(op, "memref tile operands (April) are not executable; use !pto.tile_buf")
    return [d.use(v) if v is not None else None for v in values]


# Which operands of the five instructions are read and written (for fill="poison"; tmp tiles are scratch).
_READS = {"pto.tcmps": ("src",), "pto.tpartmul": ("src0", "src1"), "pto.tgather": ("src", "indices")}
_WRITES = {"pto.tcmps": ("dst",), "pto.tci": ("dst",), "pto.tpartmul": ("dst",), "pto.texpands": ("dst",),
           "pto.tgather": ("dst", "cdst")}


def _sited(d: FunctionDecoder, op: Operation, step: Step) -> Step:
    """The step of an instruction, run with its source location in force for the warnings it may emit (and, in
    poison mode, its reads checked and its writes recorded)."""
    where = _where(d, op)
    reads = [(role, d.use(v)) for role in _READS.get(op.name, ()) if (v := getattr(op, role, None)) is not None
             and isinstance(v, SSAValue) and isinstance(v.type, TileBufType)]
    writes = [d.use(v) for role in _WRITES.get(op.name, ()) if (v := getattr(op, role, None)) is not None
              and isinstance(v, SSAValue) and isinstance(v.type, TileBufType)]

    def sited(regs: list[Any]) -> None:
        env = regs[0]
        poison = env.poison
        if poison is not None:
            for role, slot in reads:
                poison.check(regs[slot], role)
        site = env.site
        site.where = where
        try:
            step(regs)
        finally:
            site.where = None
        if poison is not None:
            for slot in writes:
                poison.mark(regs[slot])

    return sited


def _where(d: FunctionDecoder, op: Operation) -> str:
    """What a warning of the instruction names as its site (`pto.tcmps at kernel.pto:12:5`)."""
    return f"{op.name} at {d.where(op)}"


@handler("pto.tcmps")
def _tcmps(d: FunctionDecoder, op: Operation) -> Step:
    src, dst = _tiles(d, op, op.src, op.dst)  # type: ignore[attr-defined]
    s = d.use(op.scalar)  # type: ignore[attr-defined]
    mode = op.cmp_mode.data  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        tcmps(regs[0].config, regs[dst], regs[src], regs[s], mode)

    return _direct(d, op, step, tcmps, [dst, src, s], mode)


def _direct(d: FunctionDecoder, op: Operation, step: Step, kernel: Any, slots: list[int | None], *extra: Any) -> Step:
    """`_sited(step)` with the kernel's call written in (one Python call less per op), as statements `fuse` can
    put beside the neighbouring steps': `kernel(config, *regs[slots], *extra)` with the op's site in force;
    poison mode runs the sited step."""
    sited, where = _sited(d, op, step), _where(d, op)
    operands = ", ".join([*(f"regs[{slot}]" for slot in slots), *(f"extra{i}{{tag}}" for i in range(len(extra)))])

    def setup(tag: str) -> list[str]:  # the run's (a loop reads them once)
        return [f"env{tag} = regs[0]",
                f"poison{tag}, site{tag}, config{tag} = env{tag}.poison, env{tag}.site, env{tag}.config"]

    def lines(tag: str) -> list[str]:
        return [f"if poison{tag} is not None:",
                f"    sited{tag}(regs)",
                "else:",
                f"    site{tag}.where = where{tag}",
                "    try:",
                f"        kernel{tag}(config{tag}, {operands.format(tag=tag)})",
                "    finally:",
                f"        site{tag}.where = None"]

    return Inline(lines, lambda tag: {f"sited{tag}": sited, f"where{tag}": where, f"kernel{tag}": kernel,
                                      **{f"extra{i}{tag}": e for i, e in enumerate(extra)}}, setup).step(op.name)


@handler("pto.tci")
def _tci(d: FunctionDecoder, op: Operation) -> Step:
    dst, tmp = _tiles(d, op, op.dst, op.tmp)  # type: ignore[attr-defined]
    s = d.use(op.scalar)  # type: ignore[attr-defined]
    descending = bool(op.descending.value.data)  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        tci(regs[0].config, regs[dst], regs[s], descending, regs[tmp] if tmp is not None else None)

    return _sited(d, op, step)


@handler("pto.texpands")
def _texpands(d: FunctionDecoder, op: Operation) -> Step:
    (dst,) = _tiles(d, op, op.dst)  # type: ignore[attr-defined]
    s = d.use(op.scalar)  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        texpands(regs[0].config, regs[dst], regs[s])

    return _direct(d, op, step, texpands, [dst, s])


@handler("pto.tpartmul")
def _tpartmul(d: FunctionDecoder, op: Operation) -> Step:
    dst, a, b = _tiles(d, op, op.dst, op.src0, op.src1)  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        tpartmul(regs[0].config, regs[dst], regs[a], regs[b])

    return _direct(d, op, step, tpartmul, [dst, a, b])


@handler("pto.tgather")
def _tgather(d: FunctionDecoder, op: Operation) -> Step:
    dst, src, tmp = _tiles(d, op, op.dst, op.src, op.tmp)  # type: ignore[attr-defined]
    if op.mask_pattern is not None:  # type: ignore[attr-defined]
        pattern = op.mask_pattern.data  # type: ignore[attr-defined]
        axis = GatherAxis.GATHER_COL if op.axis is not None and op.axis.data == "col" else GatherAxis.GATHER_ROW  # type: ignore[attr-defined]

        def mask_step(regs: list[Any]) -> None:
            tgather_mask(regs[0].config, regs[dst], regs[src], pattern, axis)

        return _sited(d, op, mask_step)
    if op.k_value is None:  # type: ignore[attr-defined]
        (idx,) = _tiles(d, op, op.indices)  # type: ignore[attr-defined]

        def index_step(regs: list[Any]) -> None:
            tgather_index(regs[0].config, regs[dst], regs[src], regs[idx], regs[tmp] if tmp is not None else None)

        return _sited(d, op, index_step)
    return _sited(d, op, _tgather_cmp(d, op, dst, src, tmp))


def _tgather_cmp(d: FunctionDecoder, op: Operation, dst: Any, src: Any, tmp: Any) -> Step:
    (cdst,) = _tiles(d, op, op.cdst)  # type: ignore[attr-defined]
    k = d.use(op.k_value)  # type: ignore[attr-defined]
    mode = op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ  # type: ignore[attr-defined]
    offset = op.offset.value.data if op.offset is not None else 0  # type: ignore[attr-defined]

    def step(regs: list[Any]) -> None:
        config = regs[0].config
        # PTOAS's kValue is one scalar for every row: the core takes it as such (no C++ k tile exists here).
        tgather_cmp(config, regs[dst], regs[src], regs[k], regs[cdst], regs[tmp] if tmp is not None else None,
                    offset, mode)

    return step




# --- tile windows and pointer arithmetic ---------------------------------------------------------------------
@handler("pto.subview")
def _subview(d: FunctionDecoder, op: Operation) -> Step:
    spec = _spec(d, op, op.results[0].type)
    src = d.use(op.source)  # type: ignore[attr-defined]
    offsets = [d.use(v) for v in op.offsets]  # type: ignore[attr-defined]
    valid = [d.use(v) for v in op.valid]  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = window(regs[src], spec, regs[offsets[0]], regs[offsets[1]],
                         tuple(regs[v] for v in valid) or None)

    return step


@handler("pto.addptr")
def _addptr(d: FunctionDecoder, op: Operation) -> Step:
    p, o = d.use(op.ptr), d.use(op.offset)  # type: ignore[attr-defined]
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = regs[p].offset(int(regs[o]))

    return step
