"""TFILLPAD_EXPAND(dst, src): TFILLPAD with a dst at least as large as src (Rows and Cols).

    dst[i, j] = src[i, j] inside src's valid region, dst's pad value (PadValue) everywhere else in dst's storage

Nothing is written when dst has no valid row or column (the simulator and A2/A3 return early; A5 does not, and a
dst with valid rows but no valid column is not modelled there). dst's PadValue
must not be Null (a static_assert on every target, and PTOAS's verifier); src and dst have one element type.
Sources: include/pto/cpu/TFillPad.hpp (the contract: every element of dst's Rows x Cols), npu/a2a3/TFillPad.hpp,
npu/a5/TFillPad.hpp (TFILLPAD_EXPAND_IMPL).

Target deviations (errata, reproduced and announced):
- `a2a3`, `a5` `tfillpad_expand_dst_valid_rows`: the rows below src's valid rows are padded only down to dst's
  valid rows; the rows past them keep their bytes. (A5 subtracts the row counts unsigned: a src with more valid rows
  than dst is undefined there and refused.)
- `a2a3` `tfillpad_expand_src_block_tail`: the backend copies whole src rows and pads from the next 32-byte
  boundary past src's valid columns; when dst's and src's PadValue are equal, the elements between keep src's
  values instead of the pad.
- `cpu` `tfillpad_half_limits` (as TFILLPAD): Max and Min pad a half tile with 0.

On the NPUs the kernels step plain rows: boxed or col-major tiles are not modelled there.

    >>> from ptoisa import *
    >>> s = Tile[TileType.Vec, float, 1, 8, BLayout.RowMajor, 1, 3](); s.set_logical([[1, 2, 3]])
    >>> d = Tile[TileType.Vec, float, 2, 16, BLayout.RowMajor, 2, 16, SLayout.NoneBox, 512, PadValue.Max]()
    >>> _ = TFILLPAD_EXPAND(d, s, target="cpu"); d.data[0, :5].tolist(), float(d.data[1, 0])
    ([1.0, 2.0, 3.0, inf, inf], inf)
"""

from __future__ import annotations

from typing import Any

from ...dtypes import STANDARD_DTYPES
from ...tile.enums import PadValue
from .._check import Check
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src
from ._common import apart, modelled
from .move import _fillpad


def _static(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> str | None:
    d, s = specs["dst"], specs["src"]
    if d.pad is PadValue.Null:
        check.fail("dst", "PadValue must not be Null (there is no pad value to fill with)")
    if d.rows < s.rows or d.cols < s.cols:
        check.fail("dst", f"shape {d.rows} x {d.cols} must be at least src's {s.rows} x {s.cols}")
    if config.name != "cpu":
        for role, spec in (("dst", d), ("src", s)):
            if not spec.is_row_major or spec.is_boxed:
                return (f"{check.instr} on {config.name}: '{role}' is {spec.layout_name}; the backend steps plain "
                        "rows, which ptoisa does not model for other layouts")
    return None


def _rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, s = tiles["dst"], tiles["src"]
    if plan.config.name == "a5" and s.valid_row > d.valid_row:
        check.undefined("src", f"{s.valid_row} valid rows, more than dst's {d.valid_row} (the backend's pad row "
                               "count dstValidRow - srcValidRow wraps)")


def _fillpad_expand(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    """TFILLPAD's kernel (the same routine on every target), once the layouts are known to be modelled and no
    output shares bytes with another operand but dst = src (TFILLPAD_INPLACE's in-place fill)."""
    modelled(plan)
    apart(plan, tiles, allowed=(("dst", "src"),))
    _fillpad(plan, tiles, scalars)


_TYPES = STANDARD_DTYPES
_TABLE = {t: Legality({"dst": _TYPES}, same=(("dst", "src"),),
                      evidence=f"include/pto/{'cpu' if t == 'cpu' else 'npu/' + t}/TFillPad.hpp TFILLPAD_EXPAND_IMPL")
          for t in ("a2a3", "a5", "cpu")}
TFILLPAD_EXPAND = instruction(
    "TFILLPAD_EXPAND", operands=(dst(), src("src")), legality=_TABLE, static=_static, dynamic=_rule, family="move",
    summary="dst = src's valid region, dst's pad value (PadValue) everywhere else; dst may be larger than src",
)(_fillpad_expand)

__all__ = ["TFILLPAD_EXPAND"]
