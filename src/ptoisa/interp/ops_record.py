"""Interpreter steps for every op built from an instruction record (`ptoisa.ir.record_ops`): one generic handler
reads the record's operand roles once at decode time; the step calls the record with the run's target."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from ..ir.record_ops import RECORD_OPS, RecordOp
from ..ir.convert import tile_spec_of
from ..ir.types import TileBufType
from ..structs import MrgSortExecutedNumList
from ..tile.spec import TileSpec
from ..tile.tile import Tile
from ..isa.fastcall import key_of
from ..isa.record import _SLOW
from .decode import HANDLERS, FunctionDecoder, Inline, Step


def _record_step(d: FunctionDecoder, op: Operation) -> Step:
    assert isinstance(op, RecordOp)
    rec = op.RECORD
    form, pairs = op.roles()
    tiles, scalars = [], []
    reads, writes = [], []
    structs: list[str] = []  # TMRGSORT's executed counts (`vector<4xi16>` in text): written, never read back
    fresh: list[tuple[int, TileSpec]] = []  # results of a value-returning form: a new tile each time
    for operand, value in pairs:
        if isinstance(value.type, MemRefType):
            raise d.fail(op, "memref tile operands (April) are not executable; use !pto.tile_buf")
        if value in op.results:
            if not isinstance(value.type, TileBufType):
                raise d.fail(op, "SSA tile results (!pto.tile) run only in Level-1 modules, which are lowered whole")
            slot = d.define(value)
            fresh.append((slot, tile_spec_of(value.type)))
        else:
            slot = d.use(value)
        if operand.kind == "struct":  # an SSA value cannot be written: each run gets a fresh struct
            structs.append(operand.name)
            continue
        (tiles if operand.kind == "tile" else scalars).append((operand.name, slot))
        if operand.kind == "tile" and operand.name != "tmp":
            (writes if operand.out else reads).append((operand.name, slot))
    attrs = op.core_attrs()
    where = f"{op.name} at {d.where(op)}"
    # The record's compiled calls take the operands in C++ order, then the attributes (as the Python call
    # would be written); an omitted optional operand is left out when nothing follows it, else the general
    # path runs.
    simple = rec._simple  # type: ignore[attr-defined]
    slot_of = dict(tiles + scalars)
    names = [o.name for o in rec.forms[form]]
    present = [n for n in names if n in slot_of]
    trailing_gap = names[:len(present)] == present
    ordered = [slot_of[n] for n in present] if trailing_gap and (not rec.attrs or present == names) and \
        not structs else None
    extra = [attrs[a.name] for a in rec.attrs] if ordered is not None else []
    while extra and extra[-1] is None and rec.attrs[len(extra) - 1].default is None:
        extra.pop()  # a trailing attribute left at its None default is simply not passed (TCVT's satMode)
    if any(v is None for v in extra):
        ordered = None
    extra = tuple(extra)
    plain = simple is not None and not rec.attrs
    compiled = rec._compiled  # type: ignore[attr-defined]
    kinds = {slot: "tile" for _, slot in tiles} | {slot: "scalar" for _, slot in scalars}

    def step(regs: list[Any]) -> None:
        for slot, spec in fresh:
            regs[slot] = Tile(spec)  # valid shape: the type's, or the whole tile where it is dynamic
        env = regs[0]
        poison = env.poison
        if poison is not None:
            for name, slot in reads:
                poison.check(regs[slot], name)
        site = env.site
        site.where = where
        try:
            config = regs[0].config
            run = None
            if ordered is not None:
                args = (*[regs[s] for s in ordered], *extra)
                if plain:
                    key = (config, *[a.spec if type(a) is Tile else None for a in args])
                    run = compiled.get(key, _SLOW)
                    if run is _SLOW:
                        run = rec._compile(key, config, args)  # type: ignore[attr-defined]
                else:
                    key = (config, *[a.spec if type(a) is Tile else key_of(a) for a in args])
                    run = compiled.get(key, _SLOW)
                    if run is _SLOW:
                        run = rec._compile_any(key, config, args)  # type: ignore[attr-defined]
            if run is not None:
                run(args)
            else:
                values = {n: regs[s] for n, s in scalars}
                for name in structs:
                    values[name] = MrgSortExecutedNumList()
                rec.call(config, {n: regs[s] for n, s in tiles}, values, attrs, form)
        finally:
            site.where = None
        if poison is not None:
            for _, slot in writes:
                poison.mark(regs[slot])

    if ordered is None or fresh or (not plain and not all(isinstance(a, Enum) for a in extra)):
        return step
    return _compiled_step(compiled, where, [(slot, kinds[slot]) for slot in ordered], extra, step)


_PLAIN = frozenset({int, float})
"""What a scalar register holds (see scalars.py); a scalar operand of any other type takes the general step."""


def _compiled_step(compiled: dict[Any, Any], where: str, slots: list[tuple[int, str]], extra: Sequence[Any],
                   general: Step) -> Step:
    """The step of a record op whose operands are all in registers, written for its exact operand list: it looks
    up the record's compiled call for the operands' tile types (the key the general step builds: the target,
    each tile's spec, None for a scalar, then the attributes) and runs it; poison mode, an operand of another
    type, and a call not compiled (or compiled to the general path) run the general step, which compiles,
    checks or refuses as before. So both give the same bytes, warnings and errors; this one skips building
    lists and tuples per call. Written as statements (`Inline`) that `decode.fuse` can put beside its
    neighbours'.

    Its setup (`Inline.setup`) reads the tile operands and looks the call up for them (`known`): a loop whose
    tiles are made before it does that once, its turns then check only the scalar operands' types (a tile's
    type and spec never change). A call not found there (not compiled yet, or compiled to the general path) is
    looked up every turn as before."""
    names = [f"a{i}" for i in range(len(slots))]
    tiles = [(n, slot) for n, (slot, kind) in zip(names, slots, strict=True) if kind == "tile"]
    scalars = [(n, slot) for n, (slot, kind) in zip(names, slots, strict=True) if kind != "tile"]

    def key(tag: str, tile_name: Any) -> str:
        return ", ".join([f"config{tag}", *(f"{tile_name(n, tag)}.spec" if kind == "tile" else "None"
                                           for n, (_, kind) in zip(names, slots, strict=True)),
                          *(f"extra{tag}[{i}]" for i in range(len(extra)))])

    def setup(tag: str) -> list[str]:  # the run's, and the tiles' (a loop reads them once)
        tile_tests = " and ".join(f"type(t{n}{tag}) is Tile" for n, _ in tiles) or "True"
        return [f"env{tag} = regs[0]",
                f"poison{tag}, site{tag}, config{tag} = env{tag}.poison, env{tag}.site, env{tag}.config",
                *(f"t{n}{tag} = regs[{slot}]" for n, slot in tiles),
                f"known{tag} = compiled{tag}.get(({key(tag, lambda n, t: f't{n}{t}')},)) "
                f"if poison{tag} is None and {tile_tests} else None"]

    def lines(tag: str) -> list[str]:
        scalar_tests = " and ".join(f"type({n}) in PLAIN" for n, _ in scalars) or "True"
        tile_tests = " and ".join(f"type({n}) is Tile" for n, _ in tiles) or "True"
        args = ", ".join([*names, *(f"extra{tag}[{i}]" for i in range(len(extra)))])
        return ["run = None",
                f"if poison{tag} is None:",
                *(f"    {n} = t{n}{tag}" for n, _ in tiles),
                *(f"    {n} = regs[{slot}]" for n, slot in scalars),
                f"    if {scalar_tests}:",
                f"        run = known{tag}",
                f"        if run is None and {tile_tests}:",
                f"            run = compiled{tag}.get(({key(tag, lambda n, t: n)},))",
                "if run is not None:",
                f"    site{tag}.where = where{tag}",
                "    try:",
                f"        run(({args},))",
                "    finally:",
                f"        site{tag}.where = None",
                "else:",
                f"    general{tag}(regs)"]

    return Inline(lines, lambda tag: {"Tile": Tile, "PLAIN": _PLAIN, f"extra{tag}": extra,
                                      f"compiled{tag}": compiled, f"where{tag}": where,
                                      f"general{tag}": general}, setup, tuple(slot for _, slot in tiles)).step(where)


for _op in RECORD_OPS:
    if _op.name in HANDLERS:
        raise RuntimeError(f"two interpreter handlers for {_op.name}")
    HANDLERS[_op.name] = _record_step
