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

from collections.abc import Callable
from typing import Any

from .dtypes import DType, as_dtype
from .errors import IllegalInstructionError, TileSpecError
from .events import Pipe, RecordEvent, check_events, record
from .isa.enums import CmpMode, GatherAxis, MaskPattern
from .isa.tci import tci
from .isa.tcmps import tcmps
from .isa.texpands import texpands
from .isa.tgather import tgather_cmp, tgather_index, tgather_mask
from .isa.tpartmul import tpartmul
from .targets import resolve
from .tile.conv import ConvTile
from .tile.enums import TileType
from .tile.spec import TileSpec
from .tile.tile import Tile


def _split_events(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Split trailing RecordEvents off positional arguments."""
    end = len(args)
    while end and type(args[end - 1]) is RecordEvent:
        end -= 1
    return args[:end], args[end:]


def TEXPANDS(dst: Tile | ConvTile, scalar: Any, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """Broadcast `scalar` into `dst` (see ptoisa.isa.texpands)."""
    config = resolve(target)
    if events:
        check_events("TEXPANDS", config.name, events)
    texpands(config, dst, scalar)
    mat = getattr(getattr(dst, "spec", None), "loc", None) is TileType.Mat
    return record("TEXPANDS_MAT" if mat else "TEXPANDS", Pipe.MTE2 if mat else Pipe.V)


def TCMPS(dst: Tile, src0: Tile, src1: Any, cmpMode: Any, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """Compare `src0` with a scalar or with `src1[0,0]` into the packed predicate tile `dst` (ptoisa.isa.tcmps)."""
    config = resolve(target)
    if events:
        check_events("TCMPS", config.name, events)
    tcmps(config, dst, src0, src1, cmpMode)
    return record("TCMPS", Pipe.V)


def TPARTMUL(dst: Tile, src0: Tile, src1: Tile, *events: RecordEvent, target: Any = None) -> RecordEvent:
    """Partial elementwise multiply over mismatched valid regions (ptoisa.isa.tpartmul)."""
    config = resolve(target)
    if events:
        check_events("TPARTMUL", config.name, events)
    tpartmul(config, dst, src0, src1)
    return record("TPARTMUL", Pipe.V)


class _Intrinsic:
    """A callable that also takes C++-style explicit template arguments: NAME[T1, T2, ...](args)."""

    def __init__(self, name: str, call: Callable[..., RecordEvent], bind: Callable[..., Callable[..., Any]]):
        self.__name__ = name
        self.__doc__ = call.__doc__
        self._call = call
        self._bind = bind

    def __call__(self, *args: Any, **kwargs: Any) -> RecordEvent:
        return self._call(*args, **kwargs)

    def __getitem__(self, template: Any) -> Callable[..., RecordEvent]:
        return self._bind(template if isinstance(template, tuple) else (template,))

    def __repr__(self) -> str:
        return f"<ptoisa intrinsic {self.__name__}>"


def _template_error(name: str, message: str) -> IllegalInstructionError:
    return IllegalInstructionError(name, "any", "template arguments", message)


def _require_spec(name: str, role: str, tile: Any, spec: Any) -> None:
    if not isinstance(tile, (Tile, ConvTile)) or tile.spec != spec:
        got = tile.spec if isinstance(tile, (Tile, ConvTile)) else type(tile).__name__
        raise _template_error(name, f"{role} must be a {spec} (got {got})")


# --- TCI ---------------------------------------------------------------------------------------------------
def _tci(dst: Tile, start: Any, *args: Any, descending: Any = False, target: Any = None) -> RecordEvent:
    """dst[0, k] = start + k (descending: start - k) for k < dst.GetValidCol() (ptoisa.isa.tci)."""
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


TCI = _Intrinsic("TCI", _tci, _bind_tci)


# --- TGATHER -----------------------------------------------------------------------------------------------
def _tgather(dst: Tile, src0: Tile, *args: Any, target: Any = None, maskPattern: Any = None,
             gatherAxis: Any = None, cmpMode: Any = None) -> RecordEvent:
    """Gather by index tile, mask pattern or comparison; the form follows the arguments (ptoisa.isa.tgather)."""
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

        def mask_call(dst: Tile, src: Tile, *events: Any, target: Any = None) -> RecordEvent:
            _require_spec("TGATHER", "dst", dst, dst_t)
            _require_spec("TGATHER", "src", src, src_t)
            return _tgather(dst, src, *events, target=target, maskPattern=pattern, gatherAxis=axis)

        return mask_call
    if len(template) == 6 and isinstance(template[5], CmpMode):
        specs, mode = template[:5], template[5]

        def cmp_call(dst: Tile, src0: Tile, k: Tile, cdst: Tile, tmp: Tile, offset: int, *events: Any,
                     target: Any = None) -> RecordEvent:
            for role, tile, spec in zip(("dst", "src0", "k_value", "cdst", "tmp"), (dst, src0, k, cdst, tmp),
                                        specs, strict=True):
                _require_spec("TGATHER", role, tile, spec)
            return _tgather(dst, src0, k, cdst, tmp, offset, *events, target=target, cmpMode=mode)

        return cmp_call
    raise _template_error("TGATHER", "expected TGATHER[DstT, SrcT, MaskPattern.X(, GatherAxis.Y)] or "
                                     "TGATHER[D, S, K, C, Tmp, CmpMode.X]")


TGATHER = _Intrinsic("TGATHER", _tgather, _bind_tgather)
