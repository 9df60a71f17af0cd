"""One frozen record per instruction, registered by a decorator; every layer reads it.

    @instruction("TADD", operands=(dst(), src("src0"), src("src1")), legality=SAME_DTYPE_TABLES,
                 shape=equal_valid_shapes, summary="dst = src0 + src1")
    def tadd(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
        ...

The record holds the operand roles (in C++ parameter order), the attributes (template arguments such as TCVT's
rounding mode), the pipe, the per-target legality tables, the typed errata it may reproduce and the kernel. From
it come the Python entry point (`ptoisa.TADD`), the `pto.tadd` op of the text forms and its verifier, the
interpreter's step, the conformance runner's call and the tables of `ptoisa targets` and the docs.

A call is decided in two stages, the way C++ checks a template once and a call many times:

- `plan(record, config, specs, attrs)` runs every check the tile *types* decide (element types, locations,
  layouts, type equalities) and returns a `Plan`; it is cached per signature.
- `Instruction.call` checks what only run-time values decide (valid shapes, scalars), then runs the kernel.

Every refusal is an IllegalInstructionError raised before any byte changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from .._quiet import QUIET
from ..dtypes import DType, names
from ..errors import IllegalInstructionError
from ..events import Pipe, RecordEvent, check_events, record
from ..targets import Config, resolve
from ..tile.enums import TileType
from .._shown import shown
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ._check import SITE, Check
from ._scalar import _Bits, quiet_element, to_element, weak_range
from .fastcall import MISS as _MISS
from .fastcall import key_of, specialise

Kind = Literal["tile", "scalar", "struct"]
Tiles = dict[str, Tile]
Scalars = dict[str, Any]
VEC: frozenset[TileType] = frozenset({TileType.Vec})
TARGETS = ("a2a3", "a5", "cpu")


@dataclass(frozen=True)
class Operand:
    """One operand, named as the C++ intrinsic's parameter.

    kind: a tile, a scalar, or a struct (a mutable C++ struct passed by reference, e.g. TMRGSORT's
    MrgSortExecutedNumList: given as it is to the kernel, which writes its fields). out: written by the instruction (`outs(...)` in text). optional: may be omitted
    (trailing operands only). dtype_of: for a scalar, the tile role whose element type it converts to.
    """

    name: str
    kind: Kind = "tile"
    out: bool = False
    optional: bool = False
    dtype_of: str = "dst"
    fixed: DType | None = None  # a scalar of a fixed C++ type (uint16_t indexRow), not a tile's element type
    struct_type: type | None = None  # a struct's Python class, when plain numbers may stand for it (TRandomKey)


def dst(name: str = "dst") -> Operand:
    return Operand(name, "tile", out=True)


def src(name: str = "src") -> Operand:
    return Operand(name, "tile")


def tmp(name: str = "tmp", optional: bool = False) -> Operand:
    return Operand(name, "tile", optional=optional)


def struct(name: str, out: bool = True, struct_type: type | None = None) -> Operand:
    return Operand(name, "struct", out=out, struct_type=struct_type)


def scalar(name: str = "scalar", dtype_of: str = "dst", fixed: DType | None = None,
           optional: bool = False) -> Operand:
    return Operand(name, "scalar", dtype_of=dtype_of, fixed=fixed, optional=optional)


@dataclass(frozen=True)
class Attr:
    """A template argument of the C++ intrinsic (an attribute in text): its name there, its enum and default."""

    name: str
    enum: type[Enum]
    default: Enum | None
    text: str = ""  # the PTOAS attribute name, when it differs

    @property
    def text_name(self) -> str:
        return self.text or self.name

    def coerce(self, value: Any, check: Check) -> Enum | None:
        if value is None and self.default is None:
            return None
        if isinstance(value, self.enum):
            return value
        if isinstance(value, bool):  # a bool template argument (TMRGSORT's exhausted): the member of that value
            for member in self.enum:
                if member.value is value:
                    return member
        elif isinstance(value, int) and not isinstance(value, Enum):  # an integer template argument (TRANDOM's
            # Rounds): the member of that value; a member of another enum (an IntEnum) is refused below
            for member in self.enum:
                if member.value == value and not isinstance(member.value, bool):
                    return member
        if isinstance(value, str):
            key = value.upper()
            for member in self.enum:
                if key in (member.name.upper(), str(member.value).upper()):
                    return member
        allowed = ", ".join(m.name for m in self.enum)
        check.fail(self.name, f"must be a {self.enum.__name__} (one of {allowed}; got {shown(value)})")


@dataclass(frozen=True)
class Legality:
    """What one target accepts, as data.

    dtypes: role -> allowed element types (roles not named are not checked on their own).
    same: groups of roles whose element types must be equal.
    pairs: for conversions, the allowed (src dtype, dst dtype) pairs, or None.
    locs: allowed locations of every tile operand (None: unchecked).
    row_major: roles that must be row-major.
    """

    dtypes: Mapping[str, tuple[DType, ...]]
    same: tuple[tuple[str, ...], ...] = ()
    pairs: frozenset[tuple[DType, DType]] | None = None
    locs: frozenset[TileType] | None = VEC
    row_major: tuple[str, ...] = ()
    evidence: str = ""
    partial: tuple[str, ...] = ()
    """Input roles of which the kernel reads a few elements only (the MX scale tiles): exempt from the
    whole-layout fit check; the record's run-time rule checks the elements it reads."""
    unavailable: str = ""
    """Non-empty: the instruction does not exist on this target (the reason, e.g. the backend has no header)."""
    fit: bool = True
    """Refuse tiles whose layout places elements past their storage (False: the instruction touches no element,
    as TGET_SCALE_ADDR, which only binds an address)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtypes", MappingProxyType(dict(self.dtypes)))


class Erratum(str, Enum):
    """Base of each instruction family's typed errata (their values are the profile's erratum names)."""


@dataclass(frozen=True)
class Plan:
    """What a call signature decides once: the record, the target, the specs and attributes, and whatever the
    family's static rule returned for its kernel (`data`)."""

    record: Instruction
    config: Config
    specs: Mapping[str, TileSpec]
    attrs: Mapping[str, Enum]
    data: Any = None
    form: int = 0


Static = Callable[[Check, Config, Mapping[str, TileSpec], Mapping[str, Enum], int], Any]
Dynamic = Callable[[Check, Plan, Tiles], None]
Kernel = Callable[[Plan, Tiles, Scalars], None]


@dataclass(frozen=True, eq=False)
class Instruction:
    """The frozen record of one instruction (see the module docstring)."""

    name: str
    operands: tuple[Operand, ...]
    legality: Mapping[str, Legality]
    kernel: Kernel
    summary: str
    attrs: tuple[Attr, ...] = ()
    pipe: Pipe = Pipe.V
    errata: tuple[Erratum, ...] = ()
    static: Static | None = None
    dynamic: Dynamic | None = None
    family: str = ""
    example: str = ""
    errata_text: Mapping[str, str] = field(default_factory=dict)
    forms: tuple[tuple[Operand, ...], ...] = ()
    api_only: tuple[int, ...] = ()
    """Indices of forms that only the C++ API has (TMATMUL_ACC(cMatrix, aMatrix, bMatrix)): PTOAS spells no text
    for them, so the `pto.*` op's parser and verifier refuse their operand lists; the Python entry takes them."""
    entry: Callable[..., RecordEvent] | None = None
    text_rule: Callable[[Mapping[str, str], Mapping[str, Enum]], str | None] | None = None
    """PTOAS's checks of the text op that hold even for memref operands: (role -> MLIR element type, attrs) ->
    a message, or None."""
    text: str = ""
    """The `pto.*` op name when it is not `pto.` + the name in lower case (`pto.tmatmul.acc`)."""
    route: Callable[[tuple[Any, ...]], Instruction | None] | None = None
    """C++ overloads that PTOAS spells as separate ops (TMATMUL_MX's accumulate and bias forms are
    `pto.tmatmul.mx.acc` / `.bias`, each its own record): given the positional arguments (events removed), the
    record that takes them, or None for this one. Only the Python entry point consults it."""
    """A hand-written entry point (the seeds' five: their C++ template forms and overload parsing live in
    `ptoisa.api`); None when the record itself is the entry point and its op and step are generated."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "legality", MappingProxyType(dict(self.legality)))
        if not self.forms:
            object.__setattr__(self, "forms", (self.operands,))
        missing = set(TARGETS) - set(self.legality)
        if missing:
            raise ValueError(f"{self.name}: no legality table for {', '.join(sorted(missing))}")
        # Decided once: the plan cache, and for the common call shape (every operand positional, no keywords)
        # the operand list that binds it without building names.
        object.__setattr__(self, "_plans", {})
        object.__setattr__(self, "_compiled", {})
        object.__setattr__(self, "_event", record(self.name, self.pipe))
        simple = len(self.forms) == 1 and not any(o.optional for o in self.forms[0])
        object.__setattr__(self, "_simple", self.forms[0] if simple else None)
        object.__setattr__(self, "_scalar_types", {o.name: o for f in self.forms for o in f if o.kind == "scalar"})
        object.__setattr__(self, "__name__", self.name)
        object.__setattr__(self, "__doc__", self._help())

    def _help(self) -> str:
        """What `help(ptoisa.TADD)` shows: every overload, the meaning, the element types per target and the
        family's rules (its module's docstring)."""
        import sys

        lines = [self.signature.replace(" | ", "\n"), "", f"{self.summary}. Returns a RecordEvent; pass "
                 "target= (a name or Config) to choose the target.", "", "Element types (dst unless named):"]
        lines += [f"    {describe(self, t).split(': ', 1)[1]}  [{t}]" for t in TARGETS]
        module = sys.modules.get(getattr(self.kernel, "__module__", ""), None)
        if self.entry is None and module is not None and module.__doc__:
            lines += ["", module.__doc__.strip()]
        return "\n".join(lines)

    # --- names ----------------------------------------------------------------------------------------------
    @property
    def generated(self) -> bool:
        """The entry point, the `pto.*` op, its verifier and its interpreter step come from this record."""
        return self.entry is None

    @property
    def mnemonic(self) -> str:
        return self.text or "pto." + self.name.lower()

    @property
    def inputs(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if not o.out)

    @property
    def outputs(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if o.out)

    @property
    def signature(self) -> str:
        """Every overload, C++ order: `TDIVS(dst, src0, scalar, *events) | TDIVS(dst, scalar, src0, *events)`."""
        attrs = [f"{a.name}={a.enum.__name__}.{a.default.name}" if a.default is not None else f"{a.name}=None"
                 for a in self.attrs]
        def render(form: tuple[Operand, ...], kinds: bool) -> str:
            names = [o.name + (" (a number)" if kinds and o.kind == "scalar" else "") for o in form]
            parts = [f"[{n}]" if o.optional else n for o, n in zip(form, names, strict=True)] + attrs
            return f"{self.name}({', '.join(parts)}, *events)"

        plain = [render(form, False) for form in self.forms]
        clash = len(set(plain)) < len(plain)  # forms told apart only by an operand's kind (TCMPS's src1)
        return " | ".join(render(form, True) for form in self.forms) if clash else " | ".join(plain)

    # --- calls ----------------------------------------------------------------------------------------------
    def bind(self, config: Config, args: tuple[Any, ...], kwargs: Mapping[str, Any]
             ) -> tuple[Tiles, Scalars, dict[str, Enum], int]:
        """Match positional and keyword arguments to operands and attributes (C++ order: operands, then
        attributes); refuse anything else."""
        check = Check(self.name, config.name)
        form = self.form_of(args)
        if kwargs and not self._takes(form, args, kwargs):  # keywords may name another overload's operands:
            # the first form that binds the call, else the first whose parameters the keywords name (the refusal
            # then says what that form misses, not that the positional form has no such parameter)
            forms = range(len(self.forms))
            form = next((i for i in forms if self._takes(i, args, kwargs)),
                        next((i for i in forms if self._names(i, args, kwargs)), form))
        values: dict[str, Any] = {}
        names_in_order = [o.name for o in self.forms[form]] + [a.name for a in self.attrs]
        if len(args) > len(names_in_order):
            check.fail(None, f"takes at most {len(names_in_order)} arguments: {self.signature}")
        values.update(zip(names_in_order, args, strict=False))
        for key, value in kwargs.items():
            if key not in names_in_order:
                check.fail(None, f"has no parameter {key!r}: {self.signature}")
            if key in values:
                check.fail(key, "given twice")
            values[key] = value
        tiles: Tiles = {}
        scalars: Scalars = {}
        for operand in self.forms[form]:
            if operand.name not in values or values[operand.name] is None:
                if operand.optional:
                    continue
                check.fail(operand.name, f"is missing: {self.signature}")
            value = values[operand.name]
            if operand.kind == "tile":
                tiles[operand.name] = check.tile(operand.name, value)
            elif operand.kind == "struct":
                scalars[operand.name] = check_struct(check, operand.name, value, operand.struct_type)
            else:
                if isinstance(value, Tile):
                    check.fail(operand.name, "must be a number (got a Tile)")
                scalars[operand.name] = value
        attrs = {a.name: a.coerce(values.get(a.name, a.default), check) for a in self.attrs}
        return tiles, scalars, attrs, form

    def _takes(self, form: int, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
        """Whether overload `form` binds this call completely: the positional arguments of its operands' kinds,
        every keyword one of its parameters not given positionally, every operand it requires given."""
        operands = self.forms[form]
        names = [o.name for o in operands] + [a.name for a in self.attrs]
        if not self._names(form, args, kwargs):
            return False
        if not all((o.kind == "tile") == isinstance(a, Tile) or (a is None and o.optional)
                   for o, a in zip(operands, args, strict=False)):
            return False
        given = {n for n, a in zip(names, args, strict=False) if a is not None} | \
            {k for k, v in kwargs.items() if v is not None}
        return all(o.optional or o.name in given for o in operands)

    def _names(self, form: int, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
        """Whether every keyword names a parameter of overload `form` past the positional arguments (which it
        takes no more of than it has)."""
        names = [o.name for o in self.forms[form]] + [a.name for a in self.attrs]
        return len(args) <= len(names) and all(k in names[len(args):] for k in kwargs)

    @property
    def text_forms(self) -> tuple[tuple[int, tuple[Operand, ...]], ...]:
        """(index, operands) of every form the `pto.*` op spells (all but `api_only`)."""
        return tuple((i, f) for i, f in enumerate(self.forms) if i not in self.api_only)

    def form_of(self, args: tuple[Any, ...]) -> int:
        """The overload positional arguments select: the first form whose tile/scalar kinds match them."""
        if len(self.forms) == 1:
            return 0
        # The operands are the arguments before the first attribute (an enum member): a form whose operand
        # count they fit exactly is preferred (TINSERT(dst, src, preQuantScalar, r, c) is not the index form).
        operands = next((i for i, a in enumerate(args) if isinstance(a, Enum)), len(args))
        for index, form in enumerate(self.forms):
            required = sum(not o.optional for o in form)
            if required <= operands <= len(form) and all(
                    (o.kind == "tile") == isinstance(a, Tile) for o, a in zip(form, args[:operands], strict=False)):
                return index
        for index, form in enumerate(self.forms):
            kinds_match = all((o.kind == "tile") == isinstance(a, Tile) for o, a in zip(form, args, strict=False))
            no_tile_after = not any(isinstance(a, Tile) for a in args[len(form):])
            if kinds_match and no_tile_after and len(args) <= len(form) + len(self.attrs):
                return index
        return 0

    def plan(self, config: Config, specs: tuple[tuple[str, TileSpec], ...], attrs: tuple[tuple[str, Enum], ...],
             form: int = 0) -> Plan:
        """The cached plan of a signature (checked once; a refusal is not cached and repeats its error)."""
        key = (config, form, specs, attrs)
        plan = self._plans.get(key)  # type: ignore[attr-defined]
        if plan is None:
            plan = make_plan(self, config, specs, attrs, form)
            if len(self._plans) < 8192:  # type: ignore[attr-defined]
                self._plans[key] = plan  # type: ignore[attr-defined]
        return plan

    def call(self, config: Config, tiles: Tiles, scalars: Scalars, attrs: Mapping[str, Enum], form: int = 0) -> None:
        """Check and run one call: the cached plan, then the run-time rules, then the kernel."""
        plan = self.plan(config, tuple([(k, t.spec) for k, t in tiles.items()]), tuple(attrs.items()), form)
        if self.dynamic is not None:
            self.dynamic(Check(self.name, config.name), plan, tiles)
        if scalars:
            check = Check(self.name, config.name)
            scalars = {name: to_element(value, self._scalar_type(name, tiles), check, name)
                       if name in self._scalar_types else value  # type: ignore[attr-defined]
                       for name, value in scalars.items()}
        self.kernel(plan, tiles, scalars)

    def _scalar_type(self, name: str, tiles: Tiles) -> DType:
        operand = self._scalar_types[name]  # type: ignore[attr-defined]
        return operand.fixed if operand.fixed is not None else tiles[operand.dtype_of].spec.dtype

    def __call__(self, *args: Any, target: Any = None, **kwargs: Any) -> RecordEvent:
        """The Python entry point: `TADD(dst, src0, src1, *events, target=None)`."""
        if self.entry is not None:
            return self.entry(*args, target=target, **kwargs)
        config = resolve(target)
        end = len(args)
        while end and type(args[end - 1]) is RecordEvent:
            end -= 1
        if end < len(args):
            check_events(self.name, config.name, args[end:])
            args = args[:end]
        if self.route is not None:
            other = self.route(args)
            if other is not None and other is not self:
                return other(*args, target=config, **kwargs)
        simple = self._simple  # type: ignore[attr-defined]
        if simple is not None and not kwargs and len(args) == len(simple) and not self.attrs:
            key = (config, *[a.spec if type(a) is Tile else None for a in args])
            run = self._compiled.get(key, _SLOW)  # type: ignore[attr-defined]
            if run is _SLOW:
                run = self._compile(key, config, args)
            if run is not None and run is not _SLOW:
                run(args)
                return self._event  # type: ignore[attr-defined]
            tiles: Tiles = {}
            scalars: Scalars = {}
            for operand, value in zip(simple, args):
                if operand.kind == "tile":
                    if not isinstance(value, Tile):
                        Check(self.name, config.name).tile(operand.name, value)
                    tiles[operand.name] = value
                elif isinstance(value, Tile) or value is None:
                    break  # the general binder words the refusal
                else:
                    scalars[operand.name] = value
            else:
                self.call(config, tiles, scalars, {}, 0)
                return self._event  # type: ignore[attr-defined]
        elif not kwargs:  # several forms, optional operands or attributes: compiled per positional signature
            key = (config, *[a.spec if type(a) is Tile else key_of(a) for a in args])
            run = self._compiled.get(key, _SLOW)  # type: ignore[attr-defined]
            if run is _SLOW:
                run = self._compile_any(key, config, args)
            if run is not None and run is not _SLOW:
                run(args)
                return self._event  # type: ignore[attr-defined]
        tiles, scalars, attrs, form = self.bind(config, args, kwargs)
        self.call(config, tiles, scalars, attrs, form)
        return self._event  # type: ignore[attr-defined]

    def _compile_any(self, key: tuple[Any, ...], config: Config, args: tuple[Any, ...]
                     ) -> Callable[..., None] | None:
        """`_compile` for any positional call: the binder matches the arguments once (form, operands,
        attributes), the plan is made once. A key fixes every tile type and attribute; an attribute given by
        name (a string) is not compiled, since its key cannot tell two names apart; nor is a call with a Tile
        subclass (MISS in its key: the binder takes it as a tile, a key part of None would be a scalar's), and
        that refusal to compile is not remembered."""
        if any(k is _MISS for k in key):
            return None
        tiles, scalars, attrs, form = self.bind(config, args, {})
        operands = self.forms[form]
        names = [o.name for o in operands] + [a.name for a in self.attrs]
        position = {name: i for i, name in enumerate(names[:len(args)])}
        run: Callable[..., None] | None = None
        attrs_fixed = all(isinstance(args[position[a.name]], Enum) for a in self.attrs if a.name in position)
        if attrs_fixed and len(self._compiled) < 8192:  # type: ignore[attr-defined]
            plan = self.plan(config, tuple((n, t.spec) for n, t in tiles.items()), tuple(attrs.items()), form)
            slots = [(o.name, position[o.name], self._scalar_type(o.name, tiles) if o.kind == "scalar" else
                      (_RAW, o.struct_type) if o.kind == "struct" else None)
                     for o in operands if o.name in tiles or o.name in scalars]
            varying = any(t.spec.dynamic_row or t.spec.dynamic_col for t in tiles.values())
            if varying:
                rule = self.dynamic
            else:
                if self.dynamic is not None:
                    self.dynamic(Check(self.name, config.name), plan, tiles)
                rule = None
            takes = not scalars or getattr(self.kernel, "compiled_scalars", False) and not any(
                _is_raw(t) for _, _, t in slots)
            if takes and getattr(self.kernel, "compiled", None) is not None:
                places = {name: position[name] for name in tiles}
                given = _scalar_slots(plan, [(name, t) for name, _, t in slots if t is not None])
                places.update({name: position[name] for name in given})
                # tiles of run-time valid shapes: the hook per tuple of shapes (after the shape rule, if any)
                run = _hooked(self.kernel, plan, places, given) if not varying else \
                    _shape_dispatch(self.kernel, plan, places, rule, _bound_slots(self.kernel, plan, slots),
                                    len(args), given)
            if run is None:
                run = _bound_slots(self.kernel, plan, slots)
                if rule is not None:
                    structs = [(o.name, position[o.name], o.struct_type) for o in operands
                               if o.kind == "struct" and o.name in scalars]
                    run = _rule_per_shape(plan, rule, {name: position[name] for name in tiles}, structs, run,
                                          len(args))
        self._compiled[key] = run  # type: ignore[attr-defined]
        return run

    def _compile(self, key: tuple[Any, ...], config: Config, args: tuple[Any, ...]) -> Callable[..., None] | None:
        """A call's compiled form for its tuple of tile types and target: every check that depends only on them
        runs once here (the run-time shape rule too, or, for tiles with run-time valid sizes, once per tuple of
        valid shapes met), then each call converts its scalars and runs the kernel. Returns None (remembered)
        when the signature must take the general path; a refusal is raised and not cached, so it repeats."""
        form = self._simple  # type: ignore[attr-defined]
        run: Callable[..., None] | None = None
        slots = list(zip(form, key[1:], args, strict=True))
        if all((o.kind == "tile") == (k is not None) for o, k, _ in slots):
            tiles = {o.name: a for o, _, a in slots if o.kind == "tile"}
            specs = tuple(t.spec for t in tiles.values())
            plan = self.plan(config, tuple((n, t.spec) for n, t in tiles.items()), (), 0)
            if len(self._compiled) < 8192:  # type: ignore[attr-defined]
                scalar_types = [self._scalar_type(o.name, tiles) if o.kind == "scalar" else None for o in form]
                if any(s.dynamic_row or s.dynamic_col for s in specs):
                    run = _per_valid_shape(self, plan, form, scalar_types)
                else:
                    if self.dynamic is not None:
                        self.dynamic(Check(self.name, config.name), plan, tiles)
                    given = _scalar_slots(plan, [(o.name, t) for o, t in zip(form, scalar_types) if t is not None])
                    run = _whole_tile(self.kernel, plan, form, scalar_types) or \
                        _hooked(self.kernel, plan, {o.name: i for i, o in enumerate(form)}, given) or \
                        _bound(self.kernel, plan, form, scalar_types)
        self._compiled[key] = run  # type: ignore[attr-defined]
        return run

    def __repr__(self) -> str:
        return f"<ptoisa instruction {self.name}>"


_SLOW = object()
"""The compiled-call cache's "not compiled yet" marker."""
_RAW = object()
"""The slot type of a struct operand in a compiled call: passed to the kernel as it is, never converted."""


def _hooked(kernel: Kernel, plan: Plan, positions: dict[str, int],
            scalars: Mapping[str, ScalarSlot] | None = None) -> Callable[..., None] | None:
    """The kernel's own compiled form of a signature, when it has one: a kernel may carry `compiled`, a function
    (plan, positions) -> run(args) or None, where positions maps each tile operand's name to its index among the
    call's arguments. It is asked only for calls whose tiles all have static valid shapes (the run-time shape rule
    has already passed, once) and that take no scalar or struct operand; every argument at those positions is
    then a `Tile` (exactly) of the plan's spec, with flat storage. None: the bound kernel.

    A kernel that also sets `compiled_scalars = True` is asked for calls with scalar operands too (never with a
    struct operand), always as `compiled(plan, positions, scalars)`: positions then names the scalar operands'
    indices too, and `scalars` maps each scalar operand's name to its `ScalarSlot` (its element type and
    `convert`, the binder's conversion). Its run(args) must convert every scalar with `convert` (or give NumPy a
    Python number only where `weak_range` says that is the same), in operand order, before any check of its own
    and before it writes: the binder's order, so the same warnings and refusals come first."""
    hook = getattr(kernel, "compiled", None)
    if hook is None or any(s.dynamic_row or s.dynamic_col for s in plan.specs.values()):
        return None
    if getattr(kernel, "compiled_scalars", False):
        return hook(plan, positions, scalars or {})
    if scalars:
        return None
    return hook(plan, positions)


@dataclass(frozen=True)
class ScalarSlot:
    """A scalar operand as a compiled hook sees it: the element type it converts to and `convert(value)`, which
    gives exactly what the general binder gives (`to_element(value, dtype, check, name)`: the same NumPy scalar,
    the same NarrowingWarning, the same refusal)."""

    dtype: Any
    convert: Callable[[Any], Any]


def _scalar_slots(plan: Plan, typed: list[tuple[str, Any]]) -> dict[str, ScalarSlot]:
    """name -> ScalarSlot for the scalar operands (name, element type) of a compiled call, in operand order."""
    check = Check(plan.record.name, plan.config.name)
    return {name: ScalarSlot(dtype, converter(dtype, check, name)) for name, dtype in typed}


def converter(dtype: Any, check: Check, name: str) -> Callable[[Any], Any]:
    """`to_element(value, dtype, check, name)` as one function, with its commonest case inline: a Python number
    of `weak_range(dtype)` is the NumPy type called on it (to_element's own result for those numbers)."""
    if isinstance(dtype, _Bits):
        return lambda value: to_element(value, dtype, check, name)
    weak, low, high = weak_range(dtype)
    if not low <= high:
        return lambda value: to_element(value, dtype, check, name)
    make = dtype.np.type

    def convert(value: Any) -> Any:
        if type(value) is weak and low <= value <= high:
            return make(value)
        return to_element(value, dtype, check, name)

    return convert


def _bound_slots(kernel: Kernel, plan: Plan, slots: list[tuple[str, int, DType | None]]) -> Callable[..., None]:
    """The kernel bound to argument positions: (name, position, scalar type or None for a tile)."""
    check = Check(plan.record.name, plan.config.name)
    tile_slots = [(name, i) for name, i, dtype in slots if dtype is None]
    scalar_slots = [(name, i, dtype) for name, i, dtype in slots if dtype is not None and not _is_raw(dtype)]
    raw_slots = [(name, i, dtype[1]) for name, i, dtype in slots if _is_raw(dtype)]

    def run(args: tuple[Any, ...]) -> None:
        tiles = {name: args[i] for name, i in tile_slots}
        scalars = {name: to_element(args[i], dtype, check, name) for name, i, dtype in scalar_slots}
        for name, i, cls in raw_slots:
            scalars[name] = check_struct(check, name, args[i], cls)
        kernel(plan, tiles, scalars)

    return run


def _rule_per_shape(plan: Plan, rule: Callable[..., None], positions: dict[str, int],
                    structs: list[tuple[str, int, type | None]], bound: Callable[..., None], arity: int
                    ) -> Callable[..., None]:
    """`bound` (the kernel bound to argument positions) for tiles whose valid shapes are set at run time: at the
    first call of each tuple of valid shapes, the struct operands are checked, then the run-time shape rule runs,
    before any scalar is converted (the general path's order: a call refused for its shapes warns of no scalar,
    a bad struct is refused before the shapes); a refusal is not remembered and repeats."""
    names = list(positions)
    check = Check(plan.record.name, plan.config.name)

    def decide(shapes: tuple[int, ...], args: tuple[Any, ...]) -> Callable[..., None]:
        for name, i, cls in structs:
            check_struct(check, name, args[i], cls)
        rule(Check(plan.record.name, plan.config.name), plan, {n: args[positions[n]] for n in names})
        return bound

    return _by_valid_shapes(arity, [positions[n] for n in names], decide)


def _bound(kernel: Kernel, plan: Plan, form: tuple[Operand, ...], scalar_types: list[DType | None]
           ) -> Callable[..., None]:
    names = [o.name for o in form]
    check = Check(plan.record.name, plan.config.name)
    if not any(scalar_types):
        def tiles_only(args: tuple[Any, ...]) -> None:
            kernel(plan, dict(zip(names, args)), {})

        return tiles_only
    layout = list(zip(names, scalar_types, strict=True))

    def with_scalars(args: tuple[Any, ...]) -> None:
        tiles, scalars = {}, {}
        for (name, dtype), value in zip(layout, args):
            if dtype is None:
                tiles[name] = value
            else:
                scalars[name] = to_element(value, dtype, check, name)
        kernel(plan, tiles, scalars)

    return with_scalars


def _per_valid_shape(record: Instruction, plan: Plan, form: tuple[Operand, ...],
                     scalar_types: list[DType | None]) -> Callable[..., None]:
    """A compiled call whose tiles take their valid shapes at run time (`v_row=?`): the run-time shape rule runs
    once per tuple of valid shapes met (a refusal is not remembered and repeats), then the bound kernel."""
    bound = _bound(record.kernel, plan, form, scalar_types)
    rule = record.dynamic
    positions = [i for i, o in enumerate(form) if o.kind == "tile"]
    names = [form[i].name for i in positions]
    spec = plan.specs[names[0]]
    whole = _whole_tile(record.kernel, plan, form, scalar_types, (spec.rows, spec.cols))
    full = (spec.rows, spec.cols) * len(positions)
    opted = getattr(record.kernel, "compiled_scalars", False)
    hook = None if (any(scalar_types) and not opted) or getattr(record.kernel, "compiled", None) is None else \
        {o.name: i for i, o in enumerate(form)}
    given = _scalar_slots(plan, [(o.name, t) for o, t in zip(form, scalar_types) if t is not None]) \
        if hook else None

    def decide(shapes: tuple[int, ...], args: tuple[Any, ...]) -> Callable[..., None]:
        if rule is not None:
            rule(Check(plan.record.name, plan.config.name), plan, {n: args[i] for n, i in zip(names, positions)})
        # every tile fully valid this time: the whole-storage form, if the kernel has one; else the kernel's
        # compiled form for these shapes, if it has one
        if whole is not None and shapes == full:
            return whole
        return (hook and _hooked_for_shapes(record.kernel, plan, names, shapes, hook, given)) or bound

    fast = (full, whole) if whole is not None and hasattr(whole, "inline") else None
    return _by_valid_shapes(len(form), positions, decide, fast)


def _hooked_for_shapes(kernel: Kernel, plan: Plan, names: list[str], shapes: tuple[int, ...],
                       positions: dict[str, int], scalars: Mapping[str, ScalarSlot] | None = None
                       ) -> Callable[..., None] | None:
    """The kernel's own compiled form (`_hooked`) for tiles whose valid shapes are set at run time, asked for the
    shapes met (flat, in the order of `names`) as if the types had them static; the caller runs it only for
    calls whose tiles have exactly those shapes."""
    static = dict(plan.specs)
    for k, name in enumerate(names):
        static[name] = replace(static[name], valid_row=shapes[2 * k], valid_col=shapes[2 * k + 1])
    return _hooked(kernel, replace(plan, specs=MappingProxyType(static)), positions, scalars)


def _shape_dispatch(kernel: Kernel, plan: Plan, positions: dict[str, int], rule: Callable[..., None] | None,
                    fallback: Callable[..., None], arity: int, scalars: Mapping[str, ScalarSlot] | None = None
                    ) -> Callable[..., None]:
    """A compiled call of `_compile_any` whose tiles take their valid shapes at run time and that has no scalar
    operand (or a kernel that takes them: `scalars`, which positions names too): per tuple of valid shapes met,
    the run-time shape rule once (a refusal is not remembered), before any scalar is converted, then the kernel's
    own compiled form for those shapes, or `fallback` (the bound kernel without the rule). `arity`: the number
    of arguments of the calls."""
    names = [n for n in positions if not scalars or n not in scalars]

    def decide(shapes: tuple[int, ...], args: tuple[Any, ...]) -> Callable[..., None]:
        if rule is not None:
            rule(Check(plan.record.name, plan.config.name), plan, {n: args[positions[n]] for n in names})
        return _hooked_for_shapes(kernel, plan, names, shapes, positions, scalars) or fallback

    return _by_valid_shapes(arity, [positions[n] for n in names], decide)


_SHAPES_KEPT = 256
"""How many tuples of valid shapes a compiled call keeps its decision for (past that, it decides per call)."""
_DISPATCH_MAKERS: dict[tuple[Any, ...], Callable[..., Any]] = {}


def _by_valid_shapes(arity: int, positions: list[int],
                     decide: Callable[[tuple[int, ...], tuple[Any, ...]], Callable[..., None]],
                     fast: tuple[tuple[int, ...], Callable[..., None]] | None = None) -> Callable[..., None]:
    """run(args) for calls of `arity` arguments whose tiles at `positions` take their valid shapes at run time:
    it reads their shapes off the tiles' slots, flat (rows, cols, rows, cols, ...), looks up the call kept for
    them and runs it, all in one generated function (no call but the lookup's and the kept call's). A tuple met
    for the first time goes to `decide(shapes, args)`, which checks what the shapes decide (raising a refusal:
    nothing is kept, so it repeats) and returns the call for them; up to `_SHAPES_KEPT` are kept.

    `fast`: (shapes, call) where `call` carries its statements as text (`_inlined`): once `decide` has
    returned `call` for those shapes, a call with exactly them runs those statements in the dispatcher's own
    frame, compared shape by shape, with no lookup and no second frame (the fully valid tiles of a whole-storage
    ufunc: ~0.1 us of a 16x16 TADD)."""
    unpack = ", ".join(f"a{i}" if i in positions else "_" for i in range(arity))
    reads = ", ".join(f"a{i}._valid_row, a{i}._valid_col" for i in positions)
    test = body = ""
    env: dict[str, Any] = {}
    if fast is not None:
        shapes, call = fast
        slots = [f"a{i}._valid_{side}" for i in positions for side in ("row", "col")]
        test = " and ".join(f"{slot} == {n}" for slot, n in zip(slots, shapes, strict=True))
        body, env = call.inline  # type: ignore[attr-defined]
    free = tuple(sorted(env))
    key = (arity, tuple(positions), test, body, free)
    make = _DISPATCH_MAKERS.get(key)
    if make is None:
        # (a fast case's unpacking names every argument: its statement may read any of them)
        names = ", ".join(f"a{i}" for i in range(arity)) if fast is not None else unpack
        statements = "".join(f"\n            {line}" for line in body.splitlines())
        head = f"""
        if armed and {test}:{statements}
            return""" if fast is not None else ""
        source = f"""
def make(get, miss{''.join(f', {n}' for n in free)}):
    armed = False

    def arm():
        nonlocal armed
        armed = True

    def run(args):
        {names}, = args{head}
        chosen = get(({reads},))
        if chosen is None:
            chosen = miss(args)
        chosen(args)
    return run, arm
"""
        scope: dict[str, Any] = {}
        exec(compile(source, f"<ptoisa valid-shape dispatch {key[:2]}>", "exec"), scope)  # noqa: S102 - our text
        make = _DISPATCH_MAKERS[key] = scope["make"]
    runs: dict[tuple[int, ...], Callable[..., None]] = {}

    def miss(args: tuple[Any, ...]) -> Callable[..., None]:
        shapes = tuple([n for i in positions for n in (args[i]._valid_row, args[i]._valid_col)])
        chosen = decide(shapes, args)
        if len(runs) < _SHAPES_KEPT:
            runs[shapes] = chosen
        if fast is not None and shapes == fast[0] and chosen is fast[1]:
            arm()  # decided once (the shape rule passed): from now on these shapes run inline
        return chosen

    run, arm = make(runs.get, miss, *(env[n] for n in free))
    return run  # type: ignore[no-any-return]


def _never(*args: Any) -> bool:
    return False


def _whole_tile(kernel: Kernel, plan: Plan, form: tuple[Operand, ...], scalar_types: list[DType | None],
                valid: tuple[int, int] | None = None) -> Callable[..., None] | None:
    """A kernel that declares `whole = ufunc` (an element-wise op and nothing else; a scalar, if any, is its
    second input) runs on whole storages when every tile operand has one and the same tile type, fully valid:
    element i of each storage is then the same element of each tile. `valid`: the valid shape every tile has at
    run time (tiles whose type leaves it open); else the type's. A kernel's `whole_not(target name, dtype)`, when
    true, keeps that signature off the route (the ufunc is not the kernel there)."""
    ufunc = getattr(kernel, "whole", None)
    specs = list(plan.specs.values())
    spec = specs[0]
    shape = valid if valid is not None else (spec.valid_row, spec.valid_col)
    if type(ufunc) is not np.ufunc or form[0].name != "dst" or plan.form != 0 or any(s is not spec for s in specs) \
            or spec.np_dtype.kind == "V" or shape != (spec.rows, spec.cols) \
            or getattr(kernel, "whole_not", _never)(plan.config.name, spec.np_dtype):
        return None
    kinds = tuple("scalar" if t is not None else "tile" for t in scalar_types)
    quiet = spec.np_dtype.kind == "f"
    if kinds == ("tile", "tile", "tile") and ufunc.nin == 2:
        if not quiet:
            def binary_int(args: tuple[Any, ...]) -> None:
                ufunc(args[1].storage, args[2].storage, args[0].storage)

            return _inlined(binary_int, "ufunc(a1.storage, a2.storage, a0.storage)", ufunc=ufunc)

        def binary(args: tuple[Any, ...]) -> None:
            QUIET.run(ufunc, args[1].storage, args[2].storage, args[0].storage)

        return _inlined(binary, "QUIET.run(ufunc, a1.storage, a2.storage, a0.storage)", ufunc=ufunc, QUIET=QUIET)
    if kinds == ("tile", "tile", "scalar") and ufunc.nin == 2:
        dtype, name, check = scalar_types[2], form[2].name, Check(plan.record.name, plan.config.name)
        # Python numbers NumPy converts to the storage's type exactly as to_element would (NEP 50 weak scalars)
        # go to the ufunc as they are: cheaper to convert, and a ufunc with a weak scalar is faster than with a
        # NumPy scalar of the same type
        weak, low, high = weak_range(dtype) if dtype is spec.dtype else (float, 1.0, 0.0)  # type: ignore[arg-type]

        def with_scalar(args: tuple[Any, ...]) -> None:
            value = args[2]
            if type(value) is not weak or not low <= value <= high:
                value = to_element(value, dtype, check, name)  # type: ignore[arg-type]
            if quiet:
                QUIET.run(ufunc, args[1].storage, value, args[0].storage)
            else:
                ufunc(args[1].storage, value, args[0].storage)

        apply = "QUIET.run(ufunc, a1.storage, value, a0.storage)" if quiet else "ufunc(a1.storage, value, a0.storage)"
        return _inlined(with_scalar, f"""value = a2
if type(value) is not weak or not low <= value <= high:
    value = to_element(value, dtype, check, name)
{apply}""", ufunc=ufunc, QUIET=QUIET, weak=weak, low=low, high=high, to_element=to_element, dtype=dtype,
                        check=check, name=name)
    if kinds == ("tile", "tile") and ufunc.nin == 1:
        if not quiet:
            def unary_int(args: tuple[Any, ...]) -> None:
                ufunc(args[1].storage, args[0].storage)

            return _inlined(unary_int, "ufunc(a1.storage, a0.storage)", ufunc=ufunc)

        def unary(args: tuple[Any, ...]) -> None:
            QUIET.run(ufunc, args[1].storage, args[0].storage)

        return _inlined(unary, "QUIET.run(ufunc, a1.storage, a0.storage)", ufunc=ufunc, QUIET=QUIET)
    return None


def _inlined(call: Callable[..., None], body: str, **names: Any) -> Callable[..., None]:
    """`call` with its statements as text (`body`: the same statements, the arguments named a0, a1, ...; `names`:
    the values of its free names), for a valid-shape dispatcher to run in its own frame (`_by_valid_shapes`'s
    `fast`)."""
    call.inline = (body, names)  # type: ignore[attr-defined]
    return call


@lru_cache(maxsize=8192)
def make_plan(record_: Instruction, config: Config, specs: tuple[tuple[str, TileSpec], ...],
              attrs: tuple[tuple[str, Enum], ...], form: int = 0) -> Plan:
    """Check what the signature decides (once per signature) and return the call plan."""
    spec_map = MappingProxyType(dict(specs))
    attr_map = MappingProxyType(dict(attrs))
    check = Check(record_.name, config.name)
    apply_legality(check, record_.legality[config.name], spec_map)
    data = record_.static(check, config, spec_map, attr_map, form) if record_.static is not None else None
    return Plan(record_, config, spec_map, attr_map, data, form)


def apply_legality(check: Check, table: Legality, specs: Mapping[str, TileSpec]) -> None:
    """The table-driven checks, in a fixed order: availability, locations, element types, equalities, pairs,
    layouts, fit."""
    if table.unavailable:
        check.fail(None, f"is not available on this target ({table.unavailable})")
    for role, spec in specs.items():
        check.loc(role, spec.loc, table.locs)
    for role, allowed in table.dtypes.items():
        if role in specs:
            check.dtype(role, specs[role].dtype, allowed)
    for group in table.same:
        present = [r for r in group if r in specs]
        for role in present[1:]:
            check.same_dtype(role, specs[role].dtype, present[0], specs[present[0]].dtype)
    if table.pairs is not None:
        s, d = specs["src"].dtype, specs["dst"].dtype
        if (s, d) not in table.pairs:
            to = sorted((b for a, b in table.pairs if a is s), key=lambda t: t.cname)
            hint = f"from {s.cname} to: {names(to)}" if to else f"no conversion from {s.cname}"
            check.fail("dst", f"conversion from {s.cname} to {d.cname} is not supported ({hint})")
    for role in table.row_major:
        if role in specs and not specs[role].is_row_major:
            check.fail(role, f"must be row-major (got {specs[role].layout_name})")
    for role, spec in specs.items() if table.fit else ():
        if role not in table.partial:
            check.fits(role, spec)


REGISTRY: dict[str, Instruction] = {}
"""Instruction name (upper case, as in C++) -> record."""


def instruction(name: str, **fields: Any) -> Callable[[Kernel], Instruction]:
    """Register the decorated kernel as instruction `name`; a second registration of a name is an error."""

    def register(kernel: Kernel) -> Instruction:
        if name in REGISTRY:
            raise ValueError(f"instruction {name} is registered twice")
        rec = Instruction(name=name, kernel=kernel, **fields)
        specialise(rec)
        REGISTRY[name] = rec
        return rec

    return register


def _is_raw(slot: Any) -> bool:
    return isinstance(slot, tuple) and len(slot) == 2 and slot[0] is _RAW


def check_struct(check: Check, name: str, value: Any, cls: type | None = None) -> Any:
    """A struct operand: an instance of its C++ struct's Python class; for a struct with `struct_type`, a
    sequence of numbers too (converted by the class's `coerce`, which refuses a wrong length or value)."""
    from ..structs import STRUCTS

    if cls is not None:
        if isinstance(value, cls):
            return value
        return cls.coerce(value, check, name)  # type: ignore[attr-defined]
    if not isinstance(value, STRUCTS):
        check.fail(name, f"must be a {' or '.join(c.__name__ for c in STRUCTS)} (got {type(value).__name__})")
    return value


def same_for_all(table: Legality) -> dict[str, Legality]:
    return {t: table for t in TARGETS}


def describe(rec: Instruction, target: str) -> str:
    """One line of `ptoisa targets` for `rec` on `target`."""
    table = rec.legality[target]
    if table.unavailable:
        return f"{rec.name}: not available ({table.unavailable})"
    parts = [f"{role}: {names(d)}" for role, d in table.dtypes.items()]
    if table.pairs is not None:
        parts.append(f"{len(table.pairs)} conversions: {conversions(table.pairs)}")
    return f"{rec.name}: " + "; ".join(parts)


def conversions(pairs: frozenset[tuple[DType, DType]]) -> str:
    """`float -> half, int32; half -> float`: every allowed (src, dst) pair, grouped by src."""
    by_src: dict[DType, list[DType]] = {}
    for s, d in pairs:
        by_src.setdefault(s, []).append(d)
    return "; ".join(f"{s.cname} -> {', '.join(sorted(d.cname for d in ds))}"
                     for s, ds in sorted(by_src.items(), key=lambda kv: kv[0].cname))


def sited(where: str | None) -> Any:
    """Context for warnings: the interpreter passes the source location of the op being run."""
    return SITE.set(where)


__all__ = ["Attr", "Erratum", "Instruction", "Legality", "Operand", "Plan", "REGISTRY", "TARGETS", "VEC",
           "IllegalInstructionError", "dst", "instruction", "make_plan", "same_for_all", "scalar", "src", "struct", "tmp"]


# --- batched loops ---------------------------------------------------------------------------------------------
def batch_form(record_: Instruction, config: Config, args: tuple[Any, ...]) -> Any:
    """A record's batch form for one compiled signature (every operand positional, in C++ order: tiles and
    scalars), for a loop that runs the call once per turn with the same scalars (ptoisa.interp.batch): (run,
    writes, reads), `run(stacked)` taking the tiles' stacks (`storage` (N, numel), `view` (N, rows, cols)) in
    operand order and writing the bytes of N calls in a row, `writes` [(tile index, "all" / "valid" / "part")],
    `reads` the indices of the tiles it reads; or None where the calls must run one by one.

    The registry: a kernel may declare its own `batch(config, args)` hook (beside `compiled`); else the whole-tile
    ufunc signatures (`_whole_tile`: every tile of one type, fully valid; the compiled call is then one ufunc over
    the storages, and over stacked storages it gives each turn's bytes), with a scalar that converts without a
    warning (converted once: it is the same every turn)."""
    hook = getattr(record_.kernel, "batch", None)
    if hook is not None:
        return hook(config, args)
    form = record_._simple  # type: ignore[attr-defined]
    ufunc = getattr(record_.kernel, "whole", None)
    if form is None or record_.attrs or type(ufunc) is not np.ufunc or len(args) != len(form):
        return None
    tiles = {o.name: a for o, a in zip(form, args) if o.kind == "tile"}
    if any(type(t) is not Tile or t.spec.dynamic_row or t.spec.dynamic_col for t in tiles.values()):
        return None
    plan = record_.plan(config, tuple((n, t.spec) for n, t in tiles.items()), (), 0)
    scalar_types = [record_._scalar_type(o.name, tiles) if o.kind == "scalar" else None for o in form]
    if _whole_tile(record_.kernel, plan, form, scalar_types) is None:
        return None
    spec = next(iter(tiles.values())).spec
    sources: list[tuple[bool, Any]] = []  # per input: (a tile, its index among the tiles / the converted scalar)
    tile_index = 0
    for operand, value, dtype in zip(form[1:], args[1:], scalar_types[1:]):
        if operand.kind == "tile":
            tile_index += 1
            sources.append((True, tile_index))
            continue
        weak, low, high = weak_range(dtype) if dtype is spec.dtype else (float, 1.0, 0.0)  # type: ignore[arg-type]
        if not (type(value) is weak and low <= value <= high):  # type: ignore[operator]
            value = quiet_element(value, dtype)  # type: ignore[arg-type]
            if value is None:
                return None
        sources.append((False, value))
    quiet = spec.np_dtype.kind == "f"

    def run(stacked: list[Any]) -> None:
        operands = [stacked[x].storage if is_tile else x for is_tile, x in sources]
        if quiet:
            QUIET.run(ufunc, *operands, stacked[0].storage)
        else:
            ufunc(*operands, stacked[0].storage)

    return run, [(0, "all")], tuple(x for is_tile, x in sources if is_tile)
