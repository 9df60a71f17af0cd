"""Programs: a loaded module, its decoded functions, and runs.

    import numpy as np
    from ptoisa.interp import load

    program = load("examples/pto/run_scale_compare.pto")       # a path, or PTOAS text
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    scaled = np.zeros_like(x)
    mask = np.zeros((64, 4), dtype=np.uint8)
    result = program.run(x, scaled, mask, 0.5, 100.0, target="a2a3")   # positional, in argument order
    result = program.run("scale_compare", x=x, ...)            # or the entry name first, arguments by name
    result.outputs        # {"scaled": scaled, "mask": mask}: the caller's arrays, written in place

Arguments: a `!pto.ptr<T>` or memref argument takes a NumPy array whose dtype is exactly T (any shape; it is
used as a flat run of elements, in place when C-contiguous); a scalar argument (`index`, `iN`, `f32`, ...) takes
a Python or NumPy number that fits the type. Names are the SSA names of the entry's arguments without `%`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from math import prod
from pathlib import Path
from time import monotonic
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerType, MemRefType, Signedness, VectorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from .._shown import shown
from ..errors import PtoError
from ..isa._check import SITE, Site
from ..ir.convert import dtype_of_type
from ..ir.entry_rules import is_entry, unread_marks
from ..ir.legality import module_target
from ..ir.types import PtrType, TileBufType
from ..memory import OnChipMemory
from ..targets import Config, current_config, make_config, resolve
from . import ops_arith, ops_control, ops_misc, ops_pipe, ops_pto, ops_record  # noqa: F401 - register the op handlers
from .decode import CompiledFunction, decode_function
from .errors import ArgumentError, ExecutionError, UnknownEntryError
from .memory import GlobalTensor, TileArgument, View
from .poison import POISON, Poison
from .scalars import from_python, kind_of
from .source import Source, read_source

FILL_MODES = ("zero", "nan", "poison")
"""`fill=`: "zero" (default) zero-fills tiles made by alloc_tile and the on-chip buffers; "nan" fills them with
0xFF bytes (a NaN in every float type, all ones, i.e. -1 or the maximum, in integer types), so that reads of
never-written data show; "poison" fills like "nan" and stops the run at the first op that reads a tile element
nothing wrote (UninitializedReadError, with the op's location); an int 0..255 fills with that byte."""



def fill_byte(fill: str | int) -> int:
    """The fill byte (0..255), or POISON (-1) for poison mode."""
    if isinstance(fill, bool) or not isinstance(fill, (str, int)):
        raise ArgumentError(f"fill must be 'zero', 'nan', 'poison' or a byte value (got {shown(fill)})")
    if isinstance(fill, int):
        if not 0 <= fill <= 255:
            raise ArgumentError(f"fill byte must be in [0, 255] (got {shown(fill)})")
        return fill
    if fill not in FILL_MODES:
        raise ArgumentError(f"fill must be 'zero', 'nan', 'poison' or a byte value (got {shown(fill)})")
    return {"zero": 0, "nan": 0xFF, "poison": POISON}[fill]


class _FilledMemory(OnChipMemory):
    """The on-chip buffers of one run (TASSIGN / alloc_tile addr), private to the run, filled like tiles."""

    def __init__(self, profile: Any, byte: int) -> None:
        super().__init__(profile)
        self.byte = byte

    def region(self, name: str) -> np.ndarray:
        fresh = name not in self._regions
        buf = super().region(name)
        if fresh and self.byte:
            buf.fill(self.byte)
        return buf


class Env:
    """What every step of one run can see (slot 0 of each frame)."""

    __slots__ = ("_memory", "block_idx", "block_num", "config", "deadline", "depth", "fill_byte", "max_bytes",
                 "max_steps", "ops", "pipes", "poison", "site", "subblock_idx", "subblock_num", "timeout")

    def __init__(self, config: Config, byte: int, block: tuple[int, int], subblock: tuple[int, int],
                 limits: Limits | None = None) -> None:
        limits = limits or DEFAULT_LIMITS
        self.config = config
        if byte == POISON:
            self.poison: Poison | None = Poison()
            byte = 0xFF
        else:
            self.poison = None
        self._memory: _FilledMemory | None = None  # made on first use (`memory`): most runs place no tile
        self.fill_byte = byte
        self.block_idx, self.block_num = block
        self.subblock_idx, self.subblock_num = subblock
        self.ops = 0
        self.pipes: dict[tuple[str, int], Any] = {}  # cross-core FIFOs (ops_pipe), per run
        self.depth = 0  # func.call nesting
        self.max_steps, self.max_bytes, timeout = limits.max_steps, limits.max_bytes, limits.timeout
        self.timeout = timeout
        self.deadline = monotonic() + timeout if timeout else 0.0
        if limits.deadline is not None:  # a time budget shared with other runs: whichever ends first
            self.deadline = min(self.deadline or limits.deadline, limits.deadline)
        self.site = Site()  # in SITE for the run; each instruction step sets where it comes from

    @property
    def memory(self) -> _FilledMemory:
        """The run's on-chip buffers (TASSIGN / alloc_tile addr), private to the run, filled like tiles."""
        memory = self._memory
        if memory is None:
            memory = self._memory = _FilledMemory(self.config.profile, self.fill_byte)
        return memory


@dataclass(frozen=True)
class Limits:
    """Bounds on one run; reaching one raises LimitError naming the op and its location (None: no bound).

    max_steps: op steps executed (a loop is charged for all its iterations before it starts, so a loop that
        could never finish is refused at once).
    max_bytes: bytes of any one tile a kernel allocates.
    timeout: seconds of wall-clock time.
    deadline: an instant of `time.monotonic()` the run must end by, for runs sharing one time budget
        (`ptoisa run --grid N` gives every block the same one, so that --timeout bounds the whole grid); with
        `timeout` too, whichever comes first applies.
    """

    max_steps: int | None = 100_000_000
    max_bytes: int | None = 1 << 30
    timeout: float | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_bytes", "timeout"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ArgumentError(f"limit {name} must be a positive number or None (got {shown(value)})")
        at = self.deadline
        if at is not None and (isinstance(at, bool) or not isinstance(at, (int, float)) or at != at):
            raise ArgumentError(f"limit deadline must be a time.monotonic() instant or None (got {shown(at)})")


DEFAULT_LIMITS = Limits()


@dataclass
class Argument:
    """One argument of an entry function: its name, MLIR type and kind (`tensor`, `scalar` or `other`)."""

    name: str
    type: Any
    kind: str
    dtype: np.dtype | None = None

    @property
    def type_text(self) -> str:
        from ..ir.abstract_ops import type_text

        return type_text(self.type)

    @cached_property
    def convert(self) -> Any:
        """value -> what a run binds for this argument (`_convert`), with the common cases decided once: a
        pointer argument given a NumPy array of its dtype, a float argument given a Python float."""
        if self.kind == "tensor" and self.dtype is not None and not self.is_memref:
            name, dtype = self.name, self.dtype

            def tensor(value: Any) -> Any:
                if type(value) is np.ndarray and (value.dtype is dtype or value.dtype == dtype):
                    return GlobalTensor(name, value)
                return _convert(self, value)

            return tensor
        if self.kind == "scalar" and self.scalar_kind is not None and self.scalar_kind.is_float:
            norm = self.scalar_kind.norm

            def real(value: Any) -> Any:
                return norm(value) if type(value) is float else _convert(self, value)

            return real
        if self.kind == "scalar" and self.scalar_kind is not None:
            # a Python int inside the type's own range is its register value as it is (`norm` would return it
            # unchanged); anything else (bools, NumPy ints, the unsigned spelling of a signless value) converts
            kind = self.scalar_kind
            low, high = (-(1 << (kind.width - 1)), (1 << (kind.width - 1)) - 1) if kind.signed else \
                (0, (1 << kind.width) - 1)

            def integer(value: Any) -> Any:
                return value if type(value) is int and low <= value <= high else _convert(self, value)

            return integer
        return partial(_convert, self)

    @cached_property
    def is_memref(self) -> bool:
        """A memref argument (bound as a view of its shape), worked out once."""
        return isinstance(self.type, MemRefType)

    @cached_property
    def scalar_kind(self) -> Any:
        """The scalar's ScalarKind, worked out once (xDSL type checks cost microseconds per run)."""
        return kind_of(self.type)


@dataclass
class RunResult:
    """What a run did.

    Attributes:
        entry: the function run.  target: the target profile name.
        outputs: name -> the caller's array, for every global tensor the kernel wrote (in argument order).
        arguments: name -> the value bound (arrays as given, scalars as held: rounded/wrapped to their type).
        returns: the entry's `func.return` values.
        ops_executed: how many op steps ran (constants are folded at decode and not counted).
    """

    entry: str
    target: str
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    arguments: dict[str, Any] = field(default_factory=dict)
    returns: tuple[Any, ...] = ()
    ops_executed: int = 0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.outputs[name]

    def __repr__(self) -> str:
        """One line: what ran and what it wrote (the arrays themselves are in `outputs`)."""
        def brief(value: Any) -> str:
            if isinstance(value, np.ndarray):
                return f"{value.dtype}[{'x'.join(map(str, value.shape))}]"
            return repr(value) if isinstance(value, (int, float, np.generic)) else str(value)

        outs = ", ".join(f"{k}: {brief(v)}" for k, v in self.outputs.items())
        rets = ", ".join(brief(v) for v in self.returns)
        return (f"RunResult(entry={self.entry!r}, target={self.target!r}, ops_executed={self.ops_executed}, "
                f"outputs={{{outs}}}, returns=({rets}))")


class Program:
    """A loaded module. Functions are decoded once, on first use, and reused by every later run."""

    def __init__(self, source: Source, *, target: str | Config | None = None, fill: str | int = "zero") -> None:
        self.source = source
        self.module = source.module
        self.functions: dict[str, FuncOp] = {
            op.sym_name.data: op for op in self.module.walk() if isinstance(op, FuncOp)
        }
        self._compiled: dict[str, CompiledFunction] = {}  # only whole functions: read without the lock
        self._arguments: dict[str, tuple[Argument, ...]] = {}  # entry name -> described arguments
        self._binders: dict[str, tuple[Any, ...]] = {}  # entry name -> (name, convert, scalar?, Argument)s
        self._decoding: dict[str, CompiledFunction] = {}  # functions being decoded (recursion), under the lock
        self._queue: list[tuple[FuncOp, CompiledFunction]] | None = None  # while decoding: what `_decode` does
        self._lock = threading.RLock()
        self.decode_count = 0
        self.default_target = target
        self.default_fill = fill_byte(fill)
        self._target_arch = module_target(self.module)  # the module is not changed after loading
        self._default_entry: str | None = None  # entry_name(None), worked out on first use

    # --- module facts -----------------------------------------------------------------------------------
    @property
    def target_arch(self) -> str | None:
        """The target the module names (`pto.target_arch`, or an A5 `pto.device-spec`), or None."""
        return self._target_arch

    def config(self, target: str | Config | None = None) -> Config:
        """The Config of a run: the caller's target, else the module's pto.target_arch, else the default."""
        chosen = target if target is not None else self.default_target
        if chosen is not None:
            return resolve(chosen)
        arch = self.target_arch
        if arch is not None:
            current = current_config()
            if current.profile.target.value == arch:
                return current
            return make_config(arch)
        return current_config()

    def entry_name(self, entry: str | None = None) -> str:
        """The function a run starts in: `entry`, else the one marked `pto.entry` (or, as PTOAS marks entries,
        `hacc.entry` or `pto.internal.entry = true`; a `pto.entry` with a value marks nothing there), else the
        only public one."""
        if entry is None and self._default_entry is not None:
            return self._default_entry
        if entry is not None:
            if entry not in self.functions:
                known = ", ".join(self.functions) or "none"
                raise UnknownEntryError(f"no function @{entry} in {self.source.path} (functions: {known})")
            if not self.functions[entry].body.blocks:  # (its arguments have no names, and nothing would run)
                raise UnknownEntryError(f"@{entry} in {self.source.path} is a declaration: it has no body to run",
                                        location=self.source.location(self.functions[entry]))
            return entry
        defined = {n: f for n, f in self.functions.items() if f.body.blocks}
        marked = [n for n, f in defined.items() if is_entry(f, [])]  # (as PTOAS marks: a valued pto.entry does not)
        if len(marked) == 1:
            self._default_entry = marked[0]
            return marked[0]
        public = [n for n, f in defined.items() if f.sym_visibility is None or f.sym_visibility.data != "private"]
        candidates = public if public else list(defined)
        if len(candidates) == 1:
            self._default_entry = candidates[0]
            return candidates[0]
        unread = "".join(f"; @{f.sym_name.data}: {message}" for f, message in unread_marks(self.module)
                         if f.sym_name.data in defined)
        raise UnknownEntryError(f"{self.source.path} has {len(candidates)} candidate entry functions "
                                f"({', '.join(candidates) or 'none'}); choose one with entry={unread}")

    def arguments(self, entry: str | None = None) -> list[Argument]:
        """The entry's arguments, described once per function (a run reuses the description)."""
        name = self.entry_name(entry)
        described = self._arguments.get(name)
        if described is None:
            func = self.functions[name]
            described = tuple(_describe(arg.name_hint or f"arg{arg.index}", arg.type)
                              for arg in (func.body.blocks[0].args if func.body.blocks else []))
            self._arguments[name] = described
        return list(described)

    # --- decoding ---------------------------------------------------------------------------------------
    def compiled_function(self, name: str, at: Operation | None = None, decoder: Any = None) -> CompiledFunction:
        """The decoded function `name` (decoded now if it was not yet, with every function it calls)."""
        compiled = self._compiled.get(name)
        if compiled is not None:
            return compiled
        with self._lock:  # one thread decodes; the others wait for the finished function
            compiled = self._compiled.get(name) or self._decoding.get(name)
            if compiled is not None:
                return compiled
            if self._queue is not None:  # a func.call met while decoding: its callee is decoded after the caller
                return self._shell(name, at)
            return self._decode(name, at)

    def _shell(self, name: str, at: Operation | None) -> CompiledFunction:
        """The function `name` to be filled by `_decode`'s worklist (a call binds it now, runs it once filled)."""
        func = self.functions.get(name)
        if func is None:
            where = self.source.location(at) if at is not None else None
            raise UnknownEntryError(f"no function @{name}", op=at.name if at is not None else None, location=where)
        ftype = func.function_type
        compiled = CompiledFunction(name, [a.name_hint or f"arg{a.index}" for a in func.body.blocks[0].args]
                                    if func.body.blocks else [], list(ftype.inputs), list(ftype.outputs))
        self._decoding[name] = compiled  # before decoding any body, so that later calls of it resolve
        assert self._queue is not None
        self._queue.append((func, compiled))
        return compiled

    def _decode(self, name: str, at: Operation | None) -> CompiledFunction:
        """Decode `name` and every function it reaches through calls, one after the other (a worklist, not
        recursion: a chain of calls hundreds deep decodes at the Python stack depth of one function). The
        functions become visible to other threads (`_compiled`) together, once all are whole; a refusal leaves
        none of them decoded."""
        self._queue = queue = []
        try:
            first = self._shell(name, at)
            for func, compiled in queue:  # (decoding a function appends its callees)
                decode_function(self, func, compiled)
            for _, compiled in queue:
                self._compiled[compiled.name] = compiled
        finally:
            for _, compiled in queue:
                del self._decoding[compiled.name]
            self._queue = None
        return first

    # --- running ----------------------------------------------------------------------------------------
    def run(self, entry: Any = None, *args: Any, target: str | Config | None = None, fill: str | int | None = None,
            block: int | tuple[int, int] | None = None, subblock: tuple[int, int] = (0, 1),
            limits: Limits | None = None, **named: Any) -> RunResult:
        """Run a function with NumPy arrays for its global tensors and numbers for its scalars.

        `entry` names the function (default: see `entry_name`); when it is not a string it is taken as the first
        argument. Arguments bind by position, then by name (`**named`). Global tensors are written in place:
        every array the kernel wrote is returned in `RunResult.outputs` (the same objects). `target` is a name
        or Config (default: the program's, else the module's `pto.target_arch`, else the target in force);
        `fill` selects the fill of tiles made by alloc_tile (see FILL_MODES); `block` is `block_idx` or
        `(block_idx, block_num)` for get_block_idx / get_block_num (default block 0 of 1); `limits` bounds
        the run's steps, time and allocations (default `Limits()`: 10^8 steps, 1 GiB per tile, no time limit).
        """
        if entry is not None and not isinstance(entry, str):
            args, entry = (entry, *args), None
        name = self.entry_name(entry)
        compiled = self.compiled_function(name)
        config = self.config(target)
        values, bound, tensors = self._bind(name, args, named)
        if limits is not None and not isinstance(limits, Limits):
            raise ArgumentError(f"limits must be a ptoisa.interp.Limits (got {type(limits).__name__})")
        env = Env(config, self.default_fill if fill is None else fill_byte(fill), _block(block),
                  _pair(subblock, "subblock"),
                  limits)
        token = SITE.set(env.site)
        try:
            returns = compiled.call(env, values)
        finally:
            SITE.reset(token)
        for tensor in tensors:
            tensor.finish()
        outputs = {t.name: t.array for t in tensors if t.written}
        return RunResult(name, config.name, outputs, bound, returns, env.ops)

    def _bind(self, name: str, args: Sequence[Any], named: Mapping[str, Any]
              ) -> tuple[list[Any], dict[str, Any], list[GlobalTensor]]:
        rows = self._binders.get(name)
        if rows is None:  # what binding needs of each argument, looked up once per entry
            rows = self._binders[name] = tuple((p.name, p.convert, p.kind == "scalar", p)
                                               for p in self._params(name))
        if named or len(args) != len(rows):
            args = _in_order(name, self._params(name), args, named)
        values: list[Any] = []
        bound: dict[str, Any] = {}
        tensors: list[Any] = []
        for (pname, convert, scalar, p), given in zip(rows, args, strict=True):
            value = convert(given)
            if type(value) is GlobalTensor:  # a pointer argument (the common case first)
                tensors.append(value)
                values.append(value)
                bound[pname] = given
                continue
            if scalar:
                values.append(value)
                bound[pname] = value
                continue
            if type(value) is GlobalTensor:
                tensors.append(value)
            elif isinstance(value, TileArgument):
                tensors.append(value)
                value = value.tile
            elif isinstance(value, View):
                tensors.append(value.tensor)
            elif isinstance(value, GlobalTensor):
                tensors.append(value)
            values.append(value)
            bound[p.name] = given if p.kind in ("tensor", "tile") else value
        return values, bound, tensors

    def _params(self, name: str) -> tuple[Argument, ...]:
        described = self._arguments.get(name)
        if described is None:
            self.arguments(name)
            described = self._arguments[name]
        return described


def _in_order(name: str, params: tuple[Argument, ...], args: Sequence[Any], named: Mapping[str, Any]) -> list[Any]:
    """The arguments of a call that names some (or gives too few or too many), in parameter order, after
    checking that each is given exactly once."""
    if len(args) > len(params):
        raise ArgumentError(f"@{name} takes {len(params)} arguments ({_names(params)}), got {len(args)}")
    given: dict[str, Any] = {p.name: a for p, a in zip(params, args, strict=False)}
    for key, value in named.items():
        if key not in {p.name for p in params}:
            raise ArgumentError(f"@{name} has no argument %{key} (arguments: {_names(params)})")
        if key in given:
            raise ArgumentError(f"argument %{key} of @{name} given twice")
        given[key] = value
    missing = [p.name for p in params if p.name not in given]
    if missing:
        raise ArgumentError(f"@{name}: missing argument(s) {', '.join('%' + m for m in missing)} "
                            f"(arguments: {_names(params)})")
    return [given[p.name] for p in params]


def _names(params: Sequence[Argument]) -> str:
    return ", ".join(f"%{p.name}: {p.type_text}" for p in params) or "none"


def _global_dtype(element: Any) -> np.dtype | None:
    """The NumPy dtype of a global tensor's elements: any tile element type, and 64-bit integers (pointers of
    i64/ui64 hold block tables and offsets that kernels read with load_scalar; no tile holds them)."""
    try:
        return dtype_of_type(element).np
    except PtoError:
        pass
    if isinstance(element, IntegerType) and element.width.data == 64:
        return np.dtype(np.uint64 if element.signedness.data is Signedness.UNSIGNED else np.int64)
    return None


def _describe(name: str, t: Any) -> Argument:
    if isinstance(t, TileBufType):
        try:
            dtype = dtype_of_type(t.element_type).np
        except PtoError:
            dtype = None
        return Argument(name, t, "tile", dtype)
    if isinstance(t, PtrType | MemRefType):
        return Argument(name, t, "tensor", _global_dtype(t.element_type))
    if kind_of(t) is not None:
        return Argument(name, t, "scalar")
    if isinstance(t, VectorType) and kind_of(t.element_type) is not None:
        return Argument(name, t, "vector")
    return Argument(name, t, "other")


def _convert(p: Argument, value: Any) -> Any:
    if p.kind == "tile":
        return _tile_argument(p, value)
    if p.kind == "scalar":
        kind = p.scalar_kind
        try:
            return from_python(kind, value, f"argument %{p.name}")  # type: ignore[arg-type]
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None
    if p.kind == "vector":  # e.g. TMRGSORT's executed counts: a number (every lane) or one number per lane
        count = 1
        for dim in p.type.get_shape():  # type: ignore[attr-defined]
            count *= dim
        try:
            lanes = np.broadcast_to(np.asarray(value, dtype=np.float64).reshape(-1), (count,))
        except (TypeError, ValueError):
            raise ArgumentError(f"argument %{p.name} ({p.type_text}) needs a number or {count} numbers") from None
        integer = isinstance(p.type.element_type, IntegerType)  # type: ignore[attr-defined]
        return tuple(int(v) if integer else v for v in lanes.tolist())
    if p.kind == "other":
        raise ArgumentError(f"argument %{p.name} has type {p.type_text}; an entry function takes global tensors "
                            "(!pto.ptr, memref), tiles (!pto.tile_buf) and scalars")
    if p.dtype is None:
        raise ArgumentError(f"argument %{p.name}: element type of {p.type_text} has no NumPy dtype")
    if isinstance(value, (list, tuple)):
        try:
            value = np.asarray(value, dtype=p.dtype)
        except (TypeError, ValueError, OverflowError) as exc:  # ragged, not numbers, out of the type's range
            raise ArgumentError(f"argument %{p.name} ({p.type_text}): the list is not an array of {p.dtype} ({exc})"
                                ) from None
    if not isinstance(value, np.ndarray):
        raise ArgumentError(f"argument %{p.name} ({p.type_text}) needs a NumPy array (got {type(value).__name__})")
    if value.dtype != p.dtype:
        raise ArgumentError(f"argument %{p.name} ({p.type_text}) needs {p.dtype} data, got {value.dtype}")
    tensor = GlobalTensor(p.name, value)
    if p.is_memref:
        return _memref_view(p, tensor)
    return tensor


def _tile_argument(p: Argument, value: Any) -> TileArgument:
    """A tile argument: a Tile of the argument's type, or an array of its (rows, cols) logical shape."""
    from ..errors import TileSpecError
    from ..ir.convert import tile_spec_of
    from ..tile.tile import Tile

    try:
        spec = tile_spec_of(p.type)
    except (PtoError, ValueError) as exc:
        raise ArgumentError(f"argument %{p.name} ({p.type_text}): {exc}") from None
    if isinstance(value, Tile):
        if value.spec != spec:
            raise ArgumentError(f"argument %{p.name} needs a tile of type {p.type_text} (got {value.spec})")
        return TileArgument(p.name, value, None)
    if isinstance(value, (list, tuple)):
        try:
            value = np.asarray(value, dtype=spec.np_dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ArgumentError(f"argument %{p.name} ({p.type_text}): the list is not an array of {spec.np_dtype} "
                                f"({exc})") from None
    if not isinstance(value, np.ndarray) or value.shape != (spec.rows, spec.cols) or value.dtype != spec.np_dtype:
        got = f"{value.dtype}[{'x'.join(map(str, value.shape))}]" if isinstance(value, np.ndarray) else \
            type(value).__name__
        raise ArgumentError(f"argument %{p.name} ({p.type_text}) needs a Tile or a {spec.np_dtype} array of shape "
                            f"{spec.rows}x{spec.cols} (got {got})")
    try:
        tile = Tile(spec, *([] if spec.valid_row != -1 and spec.valid_col != -1 else
                            [spec.rows if spec.valid_row == -1 else spec.valid_row,
                             spec.cols if spec.valid_col == -1 else spec.valid_col]))
        tile.set_logical(value)
    except TileSpecError as exc:
        raise ArgumentError(f"argument %{p.name}: {exc}") from None
    return TileArgument(p.name, tile, value)


def _memref_view(p: Argument, tensor: GlobalTensor) -> View:
    shape = list(p.type.get_shape())
    if -1 in shape:
        if tensor.array.ndim != len(shape):
            raise ArgumentError(f"argument %{p.name} ({p.type_text}) needs a rank-{len(shape)} array")
        shape = [a if s == -1 else s for s, a in zip(shape, tensor.array.shape, strict=True)]
    if prod(shape) != tensor.size:
        raise ArgumentError(f"argument %{p.name} ({p.type_text}) holds {prod(shape)} elements; the array has "
                            f"{tensor.size} (shape {tensor.array.shape})")
    strides = [prod(shape[i + 1:]) for i in range(len(shape))]
    return View.make(tensor, 0, tuple(shape), tuple(strides))


def _pair(value: Any, what: str = "block") -> tuple[int, int]:
    """(index, count) of the block (or sub-block) this run plays: an int i means block i of i + 1."""
    if type(value) is tuple and len(value) == 2 and type(value[0]) is int and type(value[1]) is int \
            and 0 <= value[0] < value[1] <= _I64_MAX:
        return value  # the common case (the default (0, 1)), without the general checks below
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value), int(value) + 1)
    if not (isinstance(value, tuple) and len(value) == 2
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)):
        raise ArgumentError(f"{what} must be an index or an (index, count) pair of integers (got {shown(value)})")
    idx, num = int(value[0]), int(value[1])
    if not 0 <= idx < num:
        raise ArgumentError(f"{what} index {shown(idx)} must be in [0, {shown(num)})")
    if num > _I64_MAX:
        raise ArgumentError(f"{what} count {shown(num)} does not fit the i64 that get_{what}_num gives (at most "
                            f"{_I64_MAX})")
    return idx, num


_I64_MAX = (1 << 63) - 1


def _block(block: Any) -> tuple[int, int]:
    return (0, 1) if block is None else _pair(block)


def load(path_or_text: str | Path, *, target: str | Config | None = None, fill: str | int = "zero") -> Program:
    """Parse and verify a `.pto` file (or PTOAS text) into a Program; functions are decoded on first run.

    `target` and `fill` set the program's defaults for `run`. Raises LoadError when the text does not parse or
    verify.
    """
    config = resolve(target) if target is not None else None
    return Program(read_source(path_or_text, config), target=target, fill=fill)


__all__ = ["FILL_MODES", "Argument", "ExecutionError", "Limits", "Program", "RunResult", "load"]
