"""The C++-mirroring entry points: same names, same arguments in the same order, trailing wait events.

    TEXPANDS(dst, scalar, *events)
    TCMPS(dst, src0, scalar_or_src1, cmpMode, *events)
    TCI(dst, start, *events, descending=False)            TCI(dst, start, tmp, *events, descending=False)
    TCI[TileT, int32_t, 1](dst, 100)                      TCI[TileT, TmpT, int32_t, 0](dst, 0, tmp)
    TPARTMUL(dst, src0, src1, *events)
    TGATHER(dst, src0, indices, tmp, *events)             TGATHER(dst, src0, indices)        (a5, cpu)
    TGATHER(dst, src, MaskPattern.P0101[, GatherAxis.GATHER_COL], *events)
    TGATHER[DstT, SrcT, MaskPattern.P0101](dst, src)
    TGATHER(dst, src0, k_value, cdst, tmp, offset, CmpMode.GT, *events)
    TGATHER[D, S, K, C, Tmp, CmpMode.GT](dst, src0, k_value, cdst, tmp, offset)

Every call takes `target=` (a name or a Config) and returns a `RecordEvent`. Every refusal is an
IllegalInstructionError raised before any tile byte changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from .dtypes import DType, as_dtype
from .errors import IllegalInstructionError, PtoError, TileSpecError
from .events import Pipe, RecordEvent, check_events, record
from .isa.enums import CmpMode, GatherAxis, MaskPattern
from .isa.fastcall import NOT_GIVEN as _NOT_GIVEN
from .isa.tci import tci
from .isa.tcmps import tcmps
from .isa.texpands import texpands
from .isa.tgather import tgather_cmp, tgather_index, tgather_mask
from .isa.tpartmul import tpartmul
from .targets import context_target, current_config, resolve
from .tile.conv import ConvTile
from .tile.enums import TileType
from .tile.spec import TileSpec
from .tile.tile import Tile


def _checked_call(name: str) -> Callable[[Callable[..., RecordEvent]], Callable[..., RecordEvent]]:
    """Refuse a call Python cannot bind (a missing argument, an unknown keyword) with ptoisa's error, naming the
    instruction and its signature, instead of Python's TypeError. A TypeError raised inside the instruction is
    left alone: only a failure to enter the function (no frame of it in the traceback) is a bad call."""

    def wrap(fn: Callable[..., RecordEvent]) -> Callable[..., RecordEvent]:
        @wraps(fn)
        def call(*args: Any, **kwargs: Any) -> RecordEvent:
            try:
                return fn(*args, **kwargs)
            except TypeError as exc:
                if exc.__traceback__ is None or exc.__traceback__.tb_next is not None:
                    raise
                target = kwargs.get("target")
                try:
                    where = resolve(target).name
                except PtoError:
                    where = str(target)
                message = str(exc).split(") ", 1)[-1] if ") " in str(exc) else str(exc)
                raise IllegalInstructionError(name, where, None, f"bad call: {message}; expected "
                                              f"{name}{_plain_signature(fn)}") from None

        return call

    return wrap


def _plain_signature(fn: Callable[..., Any]) -> str:
    """`(dst, src0, src1, cmpMode, *events, target=None)`: the parameters without annotations."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.default is not p.empty:
            parts.append(f"{p.name}={p.default!r}")
        else:
            parts.append(p.name)
    return f"({', '.join(parts)})"


def _split_events(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Split trailing RecordEvents off positional arguments."""
    end = len(args)
    while end and type(args[end - 1]) is RecordEvent:
        end -= 1
    return args[:end], args[end:]


# --- lean entries ------------------------------------------------------------------------------------------
# Each public entry takes (*args, target=None, **kwargs). The common call (the operands, no wait event, no other
# keyword) goes straight to the instruction's implementation (which looks up the call compiled for its tile
# types and target) and returns its event; every other call goes to the general entry below it, which binds the
# arguments (refusing an unbindable call with ptoisa's error), checks wait events and picks the form. Both run
# the same implementation, so they give the same bytes, warnings and refusals; the lean one only skips about
# 1 us of Python work per call (a wrapper frame, event splitting, the general entry's own frame).
_V, _S, _MTE2, _MAT = Pipe.V, Pipe.S, Pipe.MTE2, TileType.Mat
# The lean entries' positional-only operands default to the generated record entries' NOT_GIVEN, for the same
# reason: an operand given by keyword reaches the general entry as a keyword, a short call gets its refusal.
_TEXPANDS_EVENT, _TEXPANDS_MAT_EVENT = record("TEXPANDS", _V), record("TEXPANDS_MAT", _MTE2)
_TCMPS_EVENT, _TPARTMUL_EVENT = record("TCMPS", _V), record("TPARTMUL", _V)
_TCI_EVENT, _TGATHER_EVENT = record("TCI", _S), record("TGATHER", _V)


def _given(*values: Any) -> tuple[Any, ...]:
    """The positional arguments a lean entry was given (its parameters that are not _NOT_GIVEN)."""
    return tuple(v for v in values if v is not _NOT_GIVEN)

_config = resolve
"""`target=` given: its Config. Without one, the lean entries read the `with target(...)` block's Config
(`context_target()`, no Python frame) and only outside every block ask `current_config()`."""


def _shows(general: Callable[..., RecordEvent]) -> Callable[[Callable[..., RecordEvent]], Callable[..., RecordEvent]]:
    """A lean entry shows the general entry's parameters (help(), IDEs), and keeps its own docstring."""

    def wrap(lean: Callable[..., RecordEvent]) -> Callable[..., RecordEvent]:
        lean.__signature__ = inspect.signature(general)  # type: ignore[attr-defined]
        return lean

    return wrap


@_checked_call("TEXPANDS")
def _texpands(dst: Tile | ConvTile, scalar: Any, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """The general entry of TEXPANDS (see `TEXPANDS`)."""
    config = resolve(target)
    if events:
        check_events("TEXPANDS", config.name, events)
    texpands(config, dst, scalar)
    mat = getattr(getattr(dst, "spec", None), "loc", None) is TileType.Mat
    return record("TEXPANDS_MAT" if mat else "TEXPANDS", Pipe.MTE2 if mat else Pipe.V)


@_shows(_texpands)
def TEXPANDS(dst: Any = _NOT_GIVEN, scalar: Any = _NOT_GIVEN, /, *events: Any, target: Any = None,
             **kwargs: Any) -> RecordEvent:
    """TEXPANDS(dst, scalar, *events, target=None): fill `dst` with `scalar`.

    A Vec tile gets the scalar over its valid region, a Mat tile over its whole Rows x Cols storage, a ConvTile
    over its conv shape. The scalar converts to dst's element type as C++ would. Returns a RecordEvent.

    >>> from ptoisa import *
    >>> t = Tile[TileType.Vec, float, 2, 8, BLayout.RowMajor, 2, 4]()
    >>> _ = TEXPANDS(t, 1.5, target="cpu")
    >>> t.data.tolist()[0]
    [1.5, 1.5, 1.5, 1.5, 0.0, 0.0, 0.0, 0.0]
    """
    if scalar is not _NOT_GIVEN and not events and not kwargs:
        texpands(_config(target) if target is not None else context_target() or current_config(), dst, scalar)
        if dst.spec.loc is _MAT:  # texpands accepted dst: a Tile or a ConvTile, both with a spec
            return _TEXPANDS_MAT_EVENT
        return _TEXPANDS_EVENT
    return _texpands(*_given(dst, scalar), *events, target=target, **kwargs)


@_checked_call("TCMPS")
def _tcmps(dst: Tile, src0: Tile, src1: Any, cmpMode: Any, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """The general entry of TCMPS (see `TCMPS`)."""
    config = resolve(target)
    if events:
        check_events("TCMPS", config.name, events)
    tcmps(config, dst, src0, src1, cmpMode)
    return record("TCMPS", Pipe.V)


@_shows(_tcmps)
def TCMPS(dst: Any = _NOT_GIVEN, src0: Any = _NOT_GIVEN, src1: Any = _NOT_GIVEN, cmpMode: Any = _NOT_GIVEN, /,
          *events: Any, target: Any = None, **kwargs: Any) -> RecordEvent:
    """TCMPS(dst, src0, scalar_or_src1, cmpMode, *events, target=None): compare into packed predicate bits.

    Every valid element of `src0` is compared with the scalar (or with `src1[0,0]` when the third argument is a
    tile) under `cmpMode` (a CmpMode, or its name: "EQ", "NE", "LT", "LE", "GT", "GE"); the bits land in `dst`
    8 per byte, element 0 in the lowest bit, one src row per dst row (the cpu target packs the reference's byte
    stream instead). dst is uint8 (a2a3: also int8; a5: also uint32/int32/int8). Returns a RecordEvent.

    >>> from ptoisa import *
    >>> src = Tile[TileType.Vec, float, 1, 16]()
    >>> src.set_logical([[float(i) for i in range(16)]])
    >>> dst = Tile[TileType.Vec, uint8_t, 1, 32, BLayout.RowMajor, 1, 2]()
    >>> _ = TCMPS(dst, src, 9.5, CmpMode.GT, target="a5")
    >>> [hex(b) for b in dst.data[0, :2]]
    ['0x0', '0xfc']
    """
    if cmpMode is not _NOT_GIVEN and not events and not kwargs:
        tcmps(_config(target) if target is not None else context_target() or current_config(), dst, src0, src1,
              cmpMode)
        return _TCMPS_EVENT
    return _tcmps(*_given(dst, src0, src1, cmpMode), *events, target=target, **kwargs)


@_checked_call("TPARTMUL")
def _tpartmul(dst: Tile, src0: Tile, src1: Tile, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """The general entry of TPARTMUL (see `TPARTMUL`)."""
    config = resolve(target)
    if events:
        check_events("TPARTMUL", config.name, events)
    tpartmul(config, dst, src0, src1)
    return record("TPARTMUL", Pipe.V)


@_shows(_tpartmul)
def TPARTMUL(dst: Any = _NOT_GIVEN, src0: Any = _NOT_GIVEN, src1: Any = _NOT_GIVEN, /, *events: Any,
             target: Any = None, **kwargs: Any) -> RecordEvent:
    """TPARTMUL(dst, src0, src1, *events, target=None): element-wise product over mismatched valid regions.

    Over dst's valid region: src0 * src1 where both are valid, the valid source's value where only one is. One
    source's valid region must equal dst's and the other must lie within it (anything else is undefined:
    refused, or emulated with `ptoisa.target(..., undefined="emulate")`). Returns a RecordEvent.

    >>> from ptoisa import *
    >>> T = Tile[TileType.Vec, float, 2, 8, BLayout.RowMajor, -1, -1]
    >>> dst, a, b = T(2, 8), T(2, 8), T(1, 8)
    >>> a.set_logical([[2.0] * 8, [3.0] * 8]); b.set_logical([[10.0] * 8])
    >>> _ = TPARTMUL(dst, a, b, target="cpu")
    >>> dst.data[:, 0].tolist()
    [20.0, 3.0]
    """
    if src1 is not _NOT_GIVEN and not events and not kwargs:
        tpartmul(_config(target) if target is not None else context_target() or current_config(), dst, src0, src1)
        return _TPARTMUL_EVENT
    return _tpartmul(*_given(dst, src0, src1), *events, target=target, **kwargs)


class _Intrinsic:
    """A callable that also takes C++-style explicit template arguments: NAME[T1, T2, ...](args).

    Built by `_intrinsic`: each instance has a class of its own whose static `__call__` is the instruction's lean
    entry, so that NAME(args) enters no Python frame before it."""

    def __init__(self, name: str, general: Callable[..., RecordEvent], bind: Callable[..., Callable[..., Any]]):
        self.__name__ = self.__qualname__ = name
        self.__doc__ = general.__doc__
        self.__signature__ = inspect.signature(general)  # help() and IDEs show the real parameters
        self.__wrapped__ = general
        self._bind = bind

    def __getitem__(self, template: Any) -> Callable[..., RecordEvent]:
        return self._bind(template if isinstance(template, tuple) else (template,))

    if TYPE_CHECKING:  # at run time each instance's own class has the instruction's entry as `__call__`
        def __call__(self, *args: Any, **kwargs: Any) -> RecordEvent: ...

    def __repr__(self) -> str:
        return f"<ptoisa intrinsic {self.__name__}>"


def _intrinsic(name: str, lean: Callable[..., RecordEvent], general: Callable[..., RecordEvent],
               bind: Callable[..., Callable[..., Any]]) -> _Intrinsic:
    cls = type(f"_{name}", (_Intrinsic,), {"__call__": staticmethod(lean), "__module__": __name__})
    return cls(name, general, bind)


def _template_error(name: str, message: str) -> IllegalInstructionError:
    return IllegalInstructionError(name, "any", "template arguments", message)


def _require_spec(name: str, role: str, tile: Any, spec: Any) -> None:
    if not isinstance(tile, (Tile, ConvTile)) or tile.spec != spec:
        got = tile.spec if isinstance(tile, (Tile, ConvTile)) else type(tile).__name__
        raise _template_error(name, f"{role} must be a {spec} (got {got})")


# --- TCI ---------------------------------------------------------------------------------------------------
@_checked_call("TCI")
def _tci(dst: Tile, start: Any, *args: Any, descending: Any = False, target: Any = None) -> RecordEvent:
    """TCI(dst, start, [tmp,] *events, descending=False, target=None): an integer sequence.

    dst[0, k] = start + k (start - k when `descending`) for k < dst's valid columns, wrapping at the element
    type's width; dst is a single-row tile. The tmp overload (a scratch tile, checked on a2a3 and ignored on a5
    and cpu) takes tmp after start. C++ template arguments work too: `TCI[DstT, int32_t, 1](dst, 100)`,
    `TCI[DstT, TmpT, int32_t, 0](dst, 0, tmp)`. Returns a RecordEvent.

    >>> from ptoisa import *
    >>> dst = Tile[TileType.Vec, int32_t, 1, 8]()
    >>> _ = TCI(dst, 100, descending=True)
    >>> dst.data[0].tolist()
    [100, 99, 98, 97, 96, 95, 94, 93]
    """
    config = resolve(target)
    rest, events = _split_events(args) if args else (args, args)
    if len(rest) > 1:
        raise IllegalInstructionError("TCI", config.name, None, "takes (dst, start[, tmp], *events)")
    if events:
        check_events("TCI", config.name, events)
    tci(config, dst, start, descending, rest[0] if rest else None)
    return record("TCI", Pipe.S)


def _bind_tci(template: tuple[Any, ...]) -> Callable[..., RecordEvent]:
    if len(template) == 3:
        tile_t, tmp_t, (value_t, descending) = template[0], None, template[1:]
    elif len(template) == 4:
        tile_t, tmp_t, value_t, descending = template
    else:
        raise _template_error("TCI", "expected TCI[TileData, T, descending] or TCI[TileData, TileDataTmp, T, "
                                     "descending]")
    value_dtype = _template_dtype("TCI", value_t)
    if isinstance(tile_t, TileSpec) and value_dtype is not tile_t.dtype:
        raise _template_error("TCI", f"T ({value_dtype.cname}) must be exactly the dst dtype "
                                     f"({tile_t.dtype.cname})")

    @_checked_call("TCI")
    def call(dst: Tile, start: Any, *args: Any, target: Any = None) -> RecordEvent:
        _require_spec("TCI", "dst", dst, tile_t)
        if tmp_t is not None:
            _require_spec("TCI", "tmp", args[0] if args else None, tmp_t)
        elif args and isinstance(args[0], Tile):
            raise _template_error("TCI", "a tmp tile needs TCI[TileData, TileDataTmp, T, descending]")
        return _tci(dst, start, *args, descending=descending, target=target)

    return call


def _template_dtype(name: str, value: Any) -> DType:
    try:
        return as_dtype(value)
    except TileSpecError as exc:
        raise _template_error(name, str(exc)) from None


def _tci_lean(dst: Any = _NOT_GIVEN, start: Any = _NOT_GIVEN, /, *args: Any, descending: Any = False,
              target: Any = None, **kwargs: Any) -> RecordEvent:
    """TCI's lean entry (see the lean entries above): TCI(dst, start[, descending=...])."""
    if start is not _NOT_GIVEN and not args and not kwargs:
        config = _config(target) if target is not None else context_target() or current_config()
        tci(config, dst, start, descending)
        return _TCI_EVENT
    return _tci(*_given(dst, start), *args, descending=descending, target=target, **kwargs)


TCI = _intrinsic("TCI", _tci_lean, _tci, _bind_tci)


# --- TGATHER -----------------------------------------------------------------------------------------------
@_checked_call("TGATHER")
def _tgather(dst: Tile, src0: Tile, *args: Any, target: Any = None, maskPattern: Any = None,
             gatherAxis: Any = None, cmpMode: Any = None) -> RecordEvent:
    """TGATHER: three forms, told apart by their arguments.

    Index form, `TGATHER(dst, src0, indices[, tmp], *events)`: dst[i, j] = src0 at the row-major flat position
    indices[i, j] (tmp is required on a2a3, optional elsewhere).

    Mask form, `TGATHER(dst, src, maskPattern[, gatherAxis], *events)` (or `maskPattern=`, `gatherAxis=`): the
    columns (GATHER_ROW, the default) or rows (GATHER_COL) selected by a MaskPattern such as P0101 (every other
    one, starting with the first), as a bit copy.

    Comparison form, `TGATHER(dst, src0, k_value, cdst, tmp, offset, cmpMode, *events)`: for each valid row i,
    the indices offset + i * src0.Cols + j of the elements with src0[i, j] > k[i] (GT) or == k[i] (EQ), packed
    into dst row i, and their count in cdst[i]; `k_value` is a tile (element i per row) or one number.

    Template arguments select the form as in C++: `TGATHER[DstT, SrcT, MaskPattern.P0101](dst, src)`.
    Returns a RecordEvent.

    >>> from ptoisa import *
    >>> src = Tile[TileType.Vec, int32_t, 1, 16]()
    >>> src.set_logical([list(range(16))])
    >>> dst = Tile[TileType.Vec, int32_t, 1, 8]()
    >>> _ = TGATHER(dst, src, MaskPattern.P0101, target="cpu")
    >>> dst.data[0].tolist()
    [0, 2, 4, 6, 8, 10, 12, 14]
    """
    config = resolve(target)
    rest, events = _split_events(args)
    if events:
        check_events("TGATHER", config.name, events)
    if maskPattern is not None or not rest or isinstance(rest[0], MaskPattern):
        pattern = maskPattern if maskPattern is not None else (rest[0] if rest else MaskPattern.P1111)
        axis = gatherAxis if gatherAxis is not None else (rest[1] if len(rest) > 1 else GatherAxis.GATHER_ROW)
        if len(rest) > 2 or (maskPattern is not None and rest):
            raise IllegalInstructionError("TGATHER", config.name, None, "mask form takes (dst, src, pattern[, axis])")
        tgather_mask(config, dst, src0, pattern, axis)
    elif len(rest) >= 4:
        mode = cmpMode if cmpMode is not None else (rest[4] if len(rest) > 4 else None)
        if mode is None or len(rest) > 5:
            raise IllegalInstructionError("TGATHER", config.name, "cmpMode",
                                          "comparison form takes (dst, src0, k_value, cdst, tmp, offset, cmpMode)")
        tgather_cmp(config, dst, src0, rest[0], rest[1], rest[2], rest[3], mode)
    elif len(rest) <= 2:
        tgather_index(config, dst, src0, rest[0], rest[1] if len(rest) > 1 else None)
    else:
        raise IllegalInstructionError("TGATHER", config.name, None, "no overload takes these arguments")
    return record("TGATHER", Pipe.V)


def _bind_tgather(template: tuple[Any, ...]) -> Callable[..., RecordEvent]:
    if len(template) in (3, 4) and isinstance(template[2], MaskPattern):
        dst_t, src_t, pattern = template[:3]
        axis = template[3] if len(template) == 4 else GatherAxis.GATHER_ROW

        @_checked_call("TGATHER")
        def mask_call(dst: Tile, src: Tile, *events: Any, target: Any = None) -> RecordEvent:
            _require_spec("TGATHER", "dst", dst, dst_t)
            _require_spec("TGATHER", "src", src, src_t)
            return _tgather(dst, src, *events, target=target, maskPattern=pattern, gatherAxis=axis)

        return mask_call
    if len(template) == 6 and isinstance(template[5], CmpMode):
        specs, mode = template[:5], template[5]

        @_checked_call("TGATHER")
        def cmp_call(dst: Tile, src0: Tile, k: Tile, cdst: Tile, tmp: Tile, offset: int, *events: Any,
                     target: Any = None) -> RecordEvent:
            for role, tile, spec in zip(("dst", "src0", "k_value", "cdst", "tmp"), (dst, src0, k, cdst, tmp),
                                        specs, strict=True):
                _require_spec("TGATHER", role, tile, spec)
            return _tgather(dst, src0, k, cdst, tmp, offset, *events, target=target, cmpMode=mode)

        return cmp_call
    raise _template_error("TGATHER", "expected TGATHER[DstT, SrcT, MaskPattern.X(, GatherAxis.Y)] or "
                                     "TGATHER[D, S, K, C, Tmp, CmpMode.X]")


def _tgather_lean(*args: Any, target: Any = None, **kwargs: Any) -> RecordEvent:
    """TGATHER's lean entry (see the lean entries above): the index form TGATHER(dst, src0, indices[, tmp]), the
    mask form TGATHER(dst, src, pattern[, axis]) and the comparison form TGATHER(dst, src0, k, cdst, tmp, offset,
    cmpMode), each given positionally with no wait event; the rest goes through the general entry."""
    if not kwargs:
        count = len(args)
        if 3 <= count <= 4:
            third = type(args[2])
            if third is Tile and (count == 3 or type(args[3]) is Tile):
                config = _config(target) if target is not None else context_target() or current_config()
                tgather_index(config, args[0], args[1], args[2], args[3] if count == 4 else None)
                return _TGATHER_EVENT
            if third is MaskPattern and (count == 3 or type(args[3]) is GatherAxis):
                config = _config(target) if target is not None else context_target() or current_config()
                tgather_mask(config, args[0], args[1], args[2],
                             args[3] if count == 4 else GatherAxis.GATHER_ROW)
                return _TGATHER_EVENT
        elif count == 7 and type(args[6]) is CmpMode and type(args[2]) is not MaskPattern:
            config = _config(target) if target is not None else context_target() or current_config()
            tgather_cmp(config, *args)
            return _TGATHER_EVENT
    return _tgather(*args, target=target, **kwargs)


TGATHER = _intrinsic("TGATHER", _tgather_lean, _tgather, _bind_tgather)
