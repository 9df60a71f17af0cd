"""Target legality of the five ops: the core's checks, called on the IR's tile types.

The IR layer checks structure (operand kinds, type equalities, PTOAS's shape rules). Which element types,
locations and layouts an instruction accepts on which target is decided by the core, by the same cached static
check functions the eager API calls (`ptoisa.isa.<op>._static*`), so there is one source of truth:

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)

Rules the core checks per call on runtime valid sizes (TCMPS's dst capacity, TGATHER's continuity and tmp shape,
TPARTMUL's validity patterns, the mask gather's stream size) are checked here when the IR's valid sizes are
static, by calling the same core functions with those sizes. Dynamic (`?`) sizes are left to run time.

The target is the one set by `verification_target(config)` (the `ptoisa check --target` flag), else the
module's `pto.target_arch` (`a5`, `cpu`; any other value means a2a3, as in PTOAS), else
`ptoisa.targets.current_config()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from ptoisa.errors import IllegalInstructionError, PtoError, TileSpecError, UndefinedBehaviourError
from ptoisa.isa import tci as core_tci
from ptoisa.isa import tcmps as core_tcmps
from ptoisa.isa import texpands as core_texpands
from ptoisa.isa import tgather as core_tgather
from ptoisa.isa import tpartmul as core_tpartmul
from ptoisa.isa._check import Check
from ptoisa.isa.enums import CmpMode, GatherAxis
from ptoisa.targets import Config, current_config, make_config
from ptoisa.tile.enums import DYNAMIC, TileType
from ptoisa.tile.spec import TileSpec

if TYPE_CHECKING:
    from .ops import TCIOp, TCmpsOp, TExpandsOp, TPartMulOp
    from .tgather import TGatherOp
    from .verify import Arch

A5_DEVICE_PREFIX = "Ascend950"
# The mask gather's stream check needs scratch storage of dst's size; no on-chip buffer holds more than this.

_TARGET: ContextVar[Config | None] = ContextVar("pto_verification_target", default=None)


@contextmanager
def verification_target(config: Config | None) -> Iterator[None]:
    """Verify for `config` inside the block, whatever the module's `pto.target_arch` says (None: no override)."""
    token = _TARGET.set(config)
    try:
        yield
    finally:
        _TARGET.reset(token)


def module_target(module: ModuleOp) -> str | None:
    """The target a module names: `pto.target_arch` (`a5`/`cpu`, anything else a2a3) or an A5 device spec."""
    target = module.attributes.get("pto.target_arch")
    device = module.attributes.get("pto.device-spec")
    if isinstance(target, StringAttr):
        value = target.data.lower()
        return value if value in ("a5", "cpu") else "a2a3"
    if isinstance(device, StringAttr):
        return "a5" if device.data.startswith(A5_DEVICE_PREFIX) else "a2a3"
    return None


def config_of(op: Operation) -> Config:
    """The target an op is verified for (see the module docstring)."""
    forced = _TARGET.get()
    if forced is not None:
        return forced
    node: Operation | None = op
    while node is not None:
        if isinstance(node, ModuleOp) and (name := module_target(node)) is not None:
            return make_config(name)
        node = node.parent_op()
    return current_config()


def arch_of_config(config: Config) -> Arch:
    """PTOAS knows A2/A3 and A5 only; the cpu simulator gets the A5 structural rules (its most permissive)."""
    return "a2a3" if config.name == "a2a3" else "a5"


@dataclass(frozen=True)
class _Sized:
    """What the core's per-call checks read from a Tile: its spec and (static) valid sizes."""

    spec: TileSpec
    valid_row: int
    valid_col: int

    @property
    def valid_shape(self) -> tuple[int, int]:
        return self.valid_row, self.valid_col


def _sized(spec: TileSpec) -> _Sized | None:
    if DYNAMIC in (spec.valid_row, spec.valid_col):
        return None
    return _Sized(spec, spec.valid_row, spec.valid_col)


def check_target_legality(op: Operation, config: Config) -> None:
    """Run the core's checks for `op` on `config`; raise VerifyException with the core's message."""
    from .ops import TCIOp, TCmpsOp, TExpandsOp, TPartMulOp
    from .tgather import TGatherOp

    checkers: dict[type[Operation], Callable[[Any, Config], None]] = {
        TCmpsOp: _tcmps, TCIOp: _tci, TExpandsOp: _texpands, TPartMulOp: _tpartmul, TGatherOp: _tgather}
    checker = checkers.get(type(op))
    if checker is None:
        return
    try:
        checker(op, config)
    except (IllegalInstructionError, UndefinedBehaviourError) as exc:
        raise VerifyException(str(exc)) from None


def spec_of(op: Operation, role: str, value: SSAValue | Attribute) -> TileSpec:
    """The core TileSpec of a tile operand or result; the Tile template's refusal as a diagnostic."""
    from .convert import tile_spec_of

    t = value.type if isinstance(value, SSAValue) else value
    try:
        return tile_spec_of(t)  # type: ignore[arg-type]
    except TileSpecError as exc:
        raise VerifyException(f"'{op.name}' op {role}: {exc}") from None


def _tcmps(op: TCmpsOp, config: Config) -> None:
    dst, src = spec_of(op, "dst", op.dst_value), spec_of(op, "src", op.src)
    core_tcmps._static(dst, src, None, config)
    d, s = _sized(dst), _sized(src)
    if d is not None and s is not None:
        # a _Sized stands for the Tile (the check reads its spec and valid sizes only)
        core_tcmps._check_valid_shapes(Check(core_tcmps.INSTR, config.name), config,
                                       d, s)  # type: ignore[arg-type]


def _tci(op: TCIOp, config: Config) -> None:
    tmp = spec_of(op, "tmp", op.tmp) if op.tmp is not None else None
    core_tci._static(spec_of(op, "dst", op.dst_value), tmp, config)


def _texpands(op: TExpandsOp, config: Config) -> None:
    core_texpands._static_kind(spec_of(op, "dst", op.dst_value), config)


def _tpartmul(op: TPartMulOp, config: Config) -> None:
    dst, a, b = (spec_of(op, n, v) for n, v in (("dst", op.dst_value), ("src0", op.src0), ("src1", op.src1)))
    core_tpartmul._static(dst, a, b, config)
    sizes = [_sized(s) for s in (dst, a, b)]
    if any(s is None for s in sizes) or config.undefined != "raise":
        return
    d, x, y = (s.valid_shape for s in sizes)  # type: ignore[union-attr]
    if 0 not in d and not core_tpartmul._legal_pattern(d, x, y):
        text = lambda s: f"{s[0]}x{s[1]}"
        Check(core_tpartmul.INSTR, config.name).undefined(
            None, f"valid shapes dst {text(d)}, src0 {text(x)}, src1 {text(y)} are not a supported pattern "
                  "(one source must equal dst, the other must not exceed it)")


def _tgather(op: TGatherOp, config: Config) -> None:
    if op.mask_pattern is not None:
        _tgather_mask(op, config)
    elif op.cdst_value is not None or op.k_value is not None:
        _tgather_cmp(op, config)
    else:
        _tgather_index(op, config)


def _tgather_index(op: TGatherOp, config: Config) -> None:
    dst, src = spec_of(op, "dst", op.dst_value), spec_of(op, "src0", op.src)
    assert op.indices is not None  # verify_structure refuses the index form without indices first
    idx = spec_of(op, "indices", op.indices)
    tmp = spec_of(op, "tmp", op.tmp) if op.tmp is not None else None
    core_tgather._static_index(dst, src, idx, tmp, config)
    d, i = _sized(dst), _sized(idx)
    t = _sized(tmp) if tmp is not None else None
    if d is not None and i is not None and (tmp is None or t is not None):
        # _Sized stand for the Tiles (the check reads their specs and valid sizes only)
        core_tgather._check_index_runtime(Check(core_tgather.INSTR, config.name), config,
                                          d, i, t)  # type: ignore[arg-type]


def _tgather_mask(op: TGatherOp, config: Config) -> None:
    dst, src = spec_of(op, "dst", op.dst_value), spec_of(op, "src", op.src)
    pattern = op.mask_pattern
    assert pattern is not None  # _tgather takes this form for a mask pattern only
    core_tgather._static_mask(dst, src, config)
    s, d = _sized(src), _sized(dst)
    if s is None or d is None:
        return
    axis = GatherAxis.GATHER_COL if op.axis is not None and op.axis.data == "col" else GatherAxis.GATHER_ROW
    core_tgather.check_mask_shapes(Check(core_tgather.INSTR, config.name), config, dst, (d.valid_row, d.valid_col),
                                   (s.valid_row, s.valid_col), pattern.data, axis)


def _tgather_cmp(op: TGatherOp, config: Config) -> None:
    """The compare form's kValue is a scalar in the IR and a per-row tile in C++: the k-tile rules (its dtype,
    one entry per row) have no IR operand to apply to; the IR requires kValue's type to be src's element type."""
    dst, src = spec_of(op, "dst", op.dst_value), spec_of(op, "src0", op.src)
    assert op.cdst_value is not None  # verify_structure refuses the compare form without cdst first
    cdst = spec_of(op, "cdst", op.cdst_value)
    tmp = spec_of(op, "tmp", op.tmp) if op.tmp is not None else None
    k_dtype = config.profile.tgather_cmp.k_dtypes[0]
    k = TileSpec(loc=TileType.Vec, dtype=k_dtype, rows=1, cols=32 // k_dtype.itemsize)
    mode = op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ
    core_tgather._static_cmp(dst, src, k, cdst, tmp, mode, config)


def tile_type_problem(t: Any, config: Config, addr: int | None = None) -> str | None:
    """Why a tile type (and, when known, its constant address) is illegal on `config`, or None.

    The same rules as the Python API: the tile's compile-time rules (TileSpec), an element type with a byte size,
    and the on-chip buffer of its location (the whole tile must fit it; a bound address must be non-negative,
    aligned for the target and leave room for the tile)."""
    from .convert import tile_spec_of

    try:
        spec = tile_spec_of(t)
    except (PtoError, ValueError, TypeError) as exc:
        return str(exc)
    memory = config.profile.memory
    region = memory.region_of.get(spec.loc)
    if region is None:
        return None
    size = memory.regions[region]
    if spec.nbytes > size:
        return (f"tile {spec.describe()} needs {spec.nbytes} bytes, more than the {size}-byte {region} buffer "
                f"of {config.name}")
    if addr is None:
        return None
    if addr < 0 or addr % memory.alignment:
        return f"addr {addr} must be a non-negative multiple of {memory.alignment} bytes on {config.name}"
    if addr + spec.nbytes > size:
        return (f"tile {spec.describe()} at addr {addr} ends at byte {addr + spec.nbytes}, past the {size}-byte "
                f"{region} buffer of {config.name}")
    return None
