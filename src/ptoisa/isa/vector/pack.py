"""Narrowing and rebinding on A5: TPACK (dst, src) and TGET_SCALE_ADDR (dst, src). Neither exists on A2/A3.

    TPACK(dst, src)            each valid element of src into the same place of dst, in dst's narrower type
    TGET_SCALE_ADDR(dst, src)  bind dst to the scale address of src (no byte moves)

TPACK is what PTOAS's `pto.tpack` lowers to (`TPACK(dst, src)`). pto-isa added it with TQUANT's non-fused path
(commit 8b0bb656) and removed it again (83f16ef4, "Remove TPack"); its page (docs/isa/tile/ops/
layout-and-rearrangement/tpack.md) survives without semantics. ptoisa models the last version that existed:

- `a5` (include/pto/npu/a5/TPack.hpp before 83f16ef4): a 4 -> 2, 4 -> 1 or 2 -> 1 byte element pair, row-major
  Vec tiles with equal valid shapes; the vector store's PK_B32 / PK4_B32 / PK_B16 distribution keeps the low bytes
  of each element, so the bits are truncated whatever the types (float -> half takes the float's low 16 bits).
- `cpu` (include/pto/cpu/TPack.hpp before 83f16ef4): `static_cast<DstT>(src)` over src's valid region, any
  direction (its own test widens int16 to int32): integers wrap or extend, floats round to nearest even (a
  signalling NaN comes out quiet), a float outside the integer's range (or NaN) is undefined and refused.

TGET_SCALE_ADDR changes where dst lives, not what any tile holds. On `a5` dst is bound in its location's buffer
(ScaleLeft: L0A_MX, ScaleRight: L0B_MX, Scaling: FB) at src's byte offset >> SHIFT_MX_ADDR (4), so src must have
an address (TASSIGN, or `addr` on `pto.alloc_tile`). On `cpu` the simulator sets `dst.data() = src.data()`: dst
then reads and writes src's own bytes (dst may not be larger than src).

    >>> from ptoisa import *
    >>> s = Tile[TileType.Vec, int32_t, 1, 8](); s.set_logical([[1, -2, 70000, 3, 0, 0, 0, 0]])
    >>> d = Tile[TileType.Vec, int16_t, 1, 16, BLayout.RowMajor, 1, 8]()
    >>> _ = TPACK(d, s, target="a5")
    >>> d.data[0, :4].tolist()
    [1, -2, 4464, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._quiet import QUIET, quiet
from ...dtypes import DType as D
from ...memory import Binding, memory_for
from ...tile.enums import TileType
from .._check import Check
from ..record import VEC, Legality, Plan, Scalars, Tiles, dst, instruction, src
from ...events import Pipe
from ._common import FLOATS, INTS, cpp_float_cast, equal_valid, region, store, undefined

_NO_A2A3 = "include/pto/npu/a2a3 has no {}; the instruction exists for A5 and the CPU simulator only"
SHIFT_MX_ADDR = 4  # include/pto/npu/a5/utils.hpp, include/pto/cpu/NPUMemoryModel.hpp

# --- TPACK ------------------------------------------------------------------------------------------------------
_SIZES = {(4, 2), (4, 1), (2, 1)}
_A5_TYPES = INTS + FLOATS
_A5_PAIRS = frozenset((s, d) for s in _A5_TYPES for d in _A5_TYPES if (s.itemsize, d.itemsize) in _SIZES)
_CPU_TYPES = INTS + (D.F16, D.F32)
_CPU_PAIRS = frozenset((s, d) for s in _CPU_TYPES for d in _CPU_TYPES)


def _tpack(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    s, d = tiles["src"], tiles["dst"]
    rows, cols = s.valid_shape
    if rows == 0 or cols == 0:
        return
    values = np.array(region(s, rows, cols))
    out_type = d.spec.np_dtype
    if plan.config.name != "cpu":  # the low bytes of each element's bits
        unsigned = {4: np.uint32, 2: np.uint16, 1: np.uint8}
        bits = values.view(unsigned[values.dtype.itemsize]).astype(unsigned[out_type.itemsize])
        store(d, rows, cols, bits.view(out_type))
        return
    if values.dtype.kind == "f" and out_type.kind in "iu":
        info = np.iinfo(out_type)
        wide = values.astype(np.float64)
        bad = ~np.isfinite(wide) | (np.trunc(wide) < info.min) | (np.trunc(wide) > info.max)
        if bad.any():
            r, c = map(int, np.argwhere(bad)[0])
            undefined(Check(plan.record.name, plan.config.name), plan.config, "src",
                      f"src[{r}, {c}] = {values[r, c]} does not fit {d.spec.dtype.cname} (static_cast is undefined)")
        with quiet():
            out = np.trunc(np.where(bad, 0, wide)).astype(np.int64).astype(out_type)
    elif values.dtype.kind in "iu" and out_type.kind in "iu":
        out = values.astype(np.int64).astype(out_type)
    elif {values.dtype, out_type} == _HALF_FLOAT:
        out = cpp_float_cast(values, out_type)  # a signalling NaN comes out quiet, as C++ converts it
    else:
        with quiet():
            out = values.astype(np.float64 if values.dtype.kind in "iu" else values.dtype).astype(out_type)
    store(d, rows, cols, out)


_HALF_FLOAT = {np.dtype(np.float16), np.dtype(np.float32)}


def _tpack_compiled(plan: Plan, positions: dict[str, int]) -> Any:
    """TPACK of one signature with plain layouts: one casting copy between the valid regions (equal, by the
    run-time rule), which gives the kernel's bits: on a5 the low bytes (unsigned views of both), on cpu C's
    conversion for integer -> integer (modulo 2**bits, as through int64) and float -> float (NumPy's one
    rounding), and integer -> float through double as the kernel. None (the bound kernel): boxed layouts and
    float -> integer on cpu (out-of-range values are refused)."""
    specs = plan.specs
    s, d = specs["src"], specs["dst"]
    if s.is_boxed or d.is_boxed:
        return None
    rows, cols = s.valid_row, s.valid_col
    if rows == 0 or cols == 0:
        return lambda args: None
    kinds = s.np_dtype.kind + d.np_dtype.kind
    part = slice(0, rows), slice(0, cols)
    di, si = positions["dst"], positions["src"]
    copyto = np.copyto
    if plan.config.name != "cpu":
        into, outof = np.dtype(f"u{d.np_dtype.itemsize}"), np.dtype(f"u{s.np_dtype.itemsize}")

        def low_bytes(args: tuple) -> None:
            copyto(args[di].view[part].view(into), args[si].view[part].view(outof), casting="unsafe")

        return low_bytes
    if kinds[0] == "f" and kinds[1] in "iu" or "V" in kinds:
        return None
    through_double = kinds[0] in "iu" and kinds[1] == "f"
    half_float = {s.np_dtype, d.np_dtype} == _HALF_FLOAT  # C++'s conversion: a signalling NaN comes out quiet

    def cast(args: tuple) -> None:
        source = args[si].view[part]
        if through_double:
            source = source.astype(np.float64)
        elif half_float:
            source = cpp_float_cast(source, d.np_dtype)
        QUIET.run(copyto, args[di].view[part], source, casting="unsafe")

    return cast


_tpack.compiled = _tpack_compiled  # type: ignore[attr-defined]


TPACK = instruction(
    "TPACK", operands=(dst(), src("src")),
    legality={"a2a3": Legality({}, unavailable=_NO_A2A3.format("TPack.hpp")),
              "a5": Legality({}, pairs=_A5_PAIRS, row_major=("dst", "src"),
                             evidence="include/pto/npu/a5/TPack.hpp at 83f16ef4^ TPackCheck"),
              "cpu": Legality({}, pairs=_CPU_PAIRS, locs=None,
                              evidence="include/pto/cpu/TPack.hpp at 83f16ef4^ (static_cast)")},
    dynamic=equal_valid("src"), family="pack",
    summary="each valid src element into dst's narrower element type (A5: low bytes; cpu: static_cast)",
)(_tpack)


# --- TGET_SCALE_ADDR --------------------------------------------------------------------------------------------
_SCALE_LOCS = (TileType.ScaleLeft, TileType.ScaleRight, TileType.Scaling)


def _scale_static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> None:
    if config.name == "a5" and specs["dst"].loc not in _SCALE_LOCS:
        check.fail("dst", f"location {specs['dst'].loc.name} is not a scale location (allowed: "
                          f"{', '.join(t.name for t in _SCALE_LOCS)})")
    if config.name == "cpu" and specs["dst"].nbytes > specs["src"].nbytes:
        check.fail("dst", f"takes {specs['dst'].nbytes} bytes, more than src's {specs['src'].nbytes} (on the "
                          "simulator dst becomes a view of src's bytes)")


def _scale_check(plan: Plan, s: Any, d: Any) -> int:
    """The a5 address dst takes (src's offset >> 4), or the refusal: checked on every call, since a tile's
    binding is not part of its type (a compiled call would not see it change)."""
    check = Check(plan.record.name, plan.config.name)
    if s.binding is None:
        check.fail("src", "has no on-chip address (bind it with TASSIGN or pto.alloc_tile addr) to scale")
    rules = plan.config.profile.memory
    region_name = rules.region_of[d.spec.loc]
    addr = s.binding.offset >> SHIFT_MX_ADDR
    size = rules.regions[region_name]
    if addr + d.spec.nbytes > size:
        check.fail("dst", f"bytes [0x{addr:x}, 0x{addr + d.spec.nbytes:x}) at src's scaled address do not fit the "
                          f"{size}-byte {region_name}")
    return addr


def _tget_scale_addr(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    s, d = tiles["src"], tiles["dst"]
    if plan.config.name == "cpu":
        if s.storage.ndim != 1:
            Check(plan.record.name, plan.config.name).fail(
                "src", "is a window of a wider tile (its bytes are not contiguous): dst cannot alias them")
        d.attach(s.storage.view(np.uint8)[:d.spec.nbytes].view(d.spec.np_dtype))
        d.binding = s.binding
        return
    addr = _scale_check(plan, s, d)
    name = plan.config.profile.memory.region_of[d.spec.loc]
    buffer = memory_for(plan.config).region(name)
    d.attach(buffer[addr:addr + d.spec.nbytes].view(d.spec.np_dtype))
    d.binding = Binding(plan.config.profile.name, name, addr, buffer)


TGET_SCALE_ADDR = instruction(
    "TGET_SCALE_ADDR", operands=(dst(), src("src")),
    legality={"a2a3": Legality({}, unavailable=_NO_A2A3.format("TGetScaleAddr.hpp")),
              "a5": Legality({}, locs=None, fit=False, evidence="include/pto/npu/a5/TGetScaleAddr.hpp"),
              "cpu": Legality({}, locs=None, fit=False, evidence="include/pto/cpu/TGetScaleAddr.hpp")},
    static=_scale_static, pipe=Pipe.S, family="pack",
    summary="bind dst at src's scale address (A5: src's offset >> 4 in dst's buffer; cpu: src's own bytes)",
)(_tget_scale_addr)

__all__ = ["SHIFT_MX_ADDR", "TGET_SCALE_ADDR", "TPACK"]
assert VEC
