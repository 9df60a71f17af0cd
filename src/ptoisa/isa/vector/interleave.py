"""Pairs of columns: TINTERLEAVE, TDEINTERLEAVE (two forms) and TPAIRREDUCESUM.

    TINTERLEAVE(dst1, dst0, src1, src0)    per row, the stream s = src0[0], src1[0], src0[1], src1[1], ...
                                           (2 * V elements for V valid columns): dst0 = s[0:V], dst1 = s[V:2V]
    TDEINTERLEAVE(dst1, dst0, src1, src0)  per row, the stream s = src0's V columns then src1's:
                                           dst0[k] = s[2k], dst1[k] = s[2k + 1] for k < V
    TDEINTERLEAVE(dst1, dst0, src)         dst0[k] = src[2k], dst1[k] = src[2k + 1] for k < dst's V
    TPAIRREDUCESUM(dst, src0)              dst[k] = src0[2k] + src0[2k + 1] for k < ceil(V / 2) (a lone last
                                           column adds 0), then 0 up to V; every other element of dst is 0

The operands are in C++ order (pto_instr.hpp): the destinations come first, dst1 before dst0, src1 before src0;
the text form lists them the same way, `ins(%src1, %src0) outs(%dst1, %dst0)` (PTOAS has none of these three
ops; the pto-isa pages spell `pto.tinterleave ins(%src0, %src1) outs(%dst0, %dst1)` in the other order).

Meanings from the simulator (include/pto/cpu/TInterleave.hpp, TDeinterleave.hpp, TPairReduceSum.hpp), the A5
backend (npu/a5/TInterleave.hpp, TDeInterleave.hpp, TPairReduceSum.hpp) and the A2/A3 one
(npu/a2a3/TPairReduceSum.hpp; A2/A3 has no (de)interleave). Rules every target holds: row-major tiles of one
element type, equal valid shapes (the single-source TDEINTERLEAVE: src's valid columns twice dst's) and an even
number of valid columns (the single-source form: the simulator asserts dst's is even, A5 only that src's is).

TPAIRREDUCESUM on the NPUs (errata, reproduced and announced): both write only the floor(V / 2) pair sums of
each row (vcpadd's store count is half the load count), so a lone last column, the rest of the valid region and
everything outside it keep their bytes (`tpairreducesum_pairs_only`); A5, when both tiles' valid columns are
statically their Cols (or both have one row), runs the flat path that packs every row's sums one after the other
from dst's first element (`tpairreducesum_flat_rows`).

    >>> from ptoisa import *
    >>> a = Tile[TileType.Vec, float, 1, 8](); a.set_logical([[0, 1, 2, 3, 4, 5, 6, 7]])
    >>> b = Tile[TileType.Vec, float, 1, 8](); b.set_logical([[10, 11, 12, 13, 14, 15, 16, 17]])
    >>> d0, d1 = Tile[TileType.Vec, float, 1, 8](), Tile[TileType.Vec, float, 1, 8]()
    >>> _ = TINTERLEAVE(d1, d0, b, a, target="a5")
    >>> d0.data[0].tolist(), d1.data[0].tolist()
    ([0.0, 10.0, 1.0, 11.0, 2.0, 12.0, 3.0, 13.0], [4.0, 14.0, 5.0, 15.0, 6.0, 16.0, 7.0, 17.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._quiet import quiet
from ...dtypes import DType as D
from ...errors import NotModelledError
from ...tile.layout import region, store, write_region
from .._check import Check, commit_variant
from ..record import Legality, Plan, Scalars, Tiles, dst, instruction, src
from ._common import ALL9, apart, modelled

_NINE = ALL9  # the A5 headers' static_asserts name exactly the nine standard types
_NO_A2A3 = "include/pto/npu/a2a3 has no {}; the instruction exists for A5 and the CPU simulator only"


def _tables(roles: tuple[str, ...], a5: tuple[D, ...], cpu: tuple[D, ...], a2a3: Legality | None, header: str,
            evidence_a5: str, evidence_cpu: str) -> dict[str, Legality]:
    def table(dtypes: tuple[D, ...], evidence: str, locs: Any = "vec") -> Legality:
        extra = {} if locs == "vec" else {"locs": None}
        return Legality({roles[0]: dtypes}, same=(roles,), row_major=roles, evidence=evidence, **extra)

    return {"a2a3": a2a3 or Legality({}, unavailable=_NO_A2A3.format(header)),
            "a5": table(a5, evidence_a5), "cpu": table(cpu, evidence_cpu, locs=None)}


def _no_boxes(check: Check, config: Any, specs: Any, attrs: Any, form: int) -> str | None:
    """The NPU kernels step rows by RowStride over plain storage: a boxed row-major tile is not modelled there
    (the message, for the kernel to raise: a verifier accepts the op, a run refuses it)."""
    if config.name == "cpu":
        return None
    for role, spec in specs.items():
        if spec.is_boxed:
            return (f"{check.instr} on {config.name}: '{role}' is a boxed ({spec.layout_name}) tile; the backend "
                    "addresses it as plain rows, which ptoisa does not model")
    return None


def _shapes(*roles: str, even: bool = True):  # type: ignore[no-untyped-def]
    """Run-time rule: every named tile's valid shape equals the first's, whose valid columns are even."""

    def rule(check: Check, plan: Plan, tiles: Tiles) -> None:
        first = roles[0]
        shape = tiles[first].valid_shape
        for role in roles[1:]:
            if tiles[role].valid_shape != shape:
                check.fail(role, f"valid shape {tiles[role].valid_shape} must equal {first}'s {shape}")
        if even and shape[1] % 2:
            check.fail(first, f"valid columns ({shape[1]}) must be even")
        check.distinct_storage({r: tiles[r] for r in roles if r.startswith("dst")})

    return rule


# --- TINTERLEAVE ---------------------------------------------------------------------------------------------
def _interleave(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    modelled(plan)
    apart(plan, tiles)
    rows, cols = tiles["dst0"].valid_shape
    a = np.array(region(tiles["src0"], rows, cols))
    b = np.array(region(tiles["src1"], rows, cols))
    stream = np.empty((rows, 2 * cols), a.dtype)
    stream[:, 0::2], stream[:, 1::2] = a, b
    store(tiles["dst0"], rows, cols, stream[:, :cols])
    store(tiles["dst1"], rows, cols, stream[:, cols:])


_FOUR = ("dst0", "dst1", "src0", "src1")
TINTERLEAVE = instruction(
    "TINTERLEAVE", operands=(dst("dst1"), dst("dst0"), src("src1"), src("src0")),
    legality=_tables(_FOUR, _NINE, ALL9, None, "TInterleave.hpp", "include/pto/npu/a5/TInterleave.hpp "
                     "TInterleaveCheck", "include/pto/cpu/TInterleave.hpp (row-major static_assert, asserts)"),
    static=_no_boxes, dynamic=_shapes(*_FOUR), family="interleave",
    summary="dst0 | dst1 = the row-wise interleaving src0[0], src1[0], src0[1], src1[1], ... split at its middle",
)(_interleave)


# --- TDEINTERLEAVE -------------------------------------------------------------------------------------------
def _deinterleave(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    modelled(plan)
    apart(plan, tiles)
    rows, cols = tiles["dst0"].valid_shape
    if "src" in tiles:
        stream = np.array(region(tiles["src"], rows, 2 * cols))
    else:
        stream = np.concatenate([region(tiles["src0"], rows, cols), region(tiles["src1"], rows, cols)], axis=1)
    store(tiles["dst0"], rows, cols, stream[:, 0::2])
    store(tiles["dst1"], rows, cols, stream[:, 1::2])


def _deinterleave_shapes(check: Check, plan: Plan, tiles: Tiles) -> None:
    if "src" not in tiles:
        _shapes(*_FOUR)(check, plan, tiles)
        return
    rows, cols = tiles["dst0"].valid_shape
    if tiles["dst1"].valid_shape != (rows, cols):
        check.fail("dst1", f"valid shape {tiles['dst1'].valid_shape} must equal dst0's {(rows, cols)}")
    if tiles["src"].valid_shape != (rows, 2 * cols):
        check.fail("src", f"valid shape {tiles['src'].valid_shape} must be dst0's rows and twice its columns "
                          f"{(rows, 2 * cols)}")
    if plan.config.name == "cpu" and cols % 2:
        check.fail("dst0", f"valid columns ({cols}) must be even (the simulator asserts it)")
    check.distinct_storage({"dst1": tiles["dst1"], "dst0": tiles["dst0"]})


_DE_ROLES = ("dst0", "dst1", "src0", "src1", "src")
TDEINTERLEAVE = instruction(
    "TDEINTERLEAVE", operands=(dst("dst1"), dst("dst0"), src("src1"), src("src0")),
    forms=((dst("dst1"), dst("dst0"), src("src1"), src("src0")), (dst("dst1"), dst("dst0"), src("src"))),
    legality=_tables(_DE_ROLES, _NINE, ALL9, None, "TDeInterleave.hpp", "include/pto/npu/a5/TDeInterleave.hpp "
                     "TDeInterleaveCheck(SingleSrc)", "include/pto/cpu/TDeinterleave.hpp (row-major static_assert, "
                     "asserts)"),
    static=_no_boxes, dynamic=_deinterleave_shapes, family="interleave",
    summary="dst0 = the even, dst1 the odd positions of each row's stream (src0's valid columns then src1's, "
            "or src's)",
)(_deinterleave)


# --- TPAIRREDUCESUM ------------------------------------------------------------------------------------------
def _flat_path(specs: Any) -> bool:
    """A5's 1D path (TPairReduceSumInstr's isContiguous): both valid column counts static and equal to Cols, or
    both tiles one row high."""
    d, s = specs["dst"], specs["src0"]
    return (d.valid_col == d.cols and s.valid_col == s.cols) or (d.rows == 1 and s.rows == 1)


def _pair_sums(x: np.ndarray) -> np.ndarray:
    """The floor(V / 2) sums x[2k] + x[2k + 1] of each row, in the element type (one rounding)."""
    pairs = x.shape[1] // 2
    with quiet():
        return x[:, 0:2 * pairs:2] + x[:, 1:2 * pairs:2]


def _pairreducesum(plan: Plan, tiles: Tiles, scalars: Scalars) -> None:
    modelled(plan)
    apart(plan, tiles)
    out, source = tiles["dst"], tiles["src0"]
    rows, cols = out.valid_shape
    x = np.array(region(source, rows, cols))
    sums = _pair_sums(x)
    # the contract (and the simulator): dst zeroed whole, then ceil(V / 2) values per row; a lone last column is
    # x + 0 in the element type (-0.0 becomes +0.0, a signalling NaN comes out quiet)
    contract = np.zeros_like(out.storage)
    full = sums
    if cols % 2:
        with quiet():
            full = np.concatenate([sums, x[:, -1:] + np.zeros((), x.dtype)], axis=1)
    write_region(contract, out.spec, rows, full.shape[1], full)
    if plan.config.name == "cpu":
        out.storage[...] = contract
        return
    target = out.storage.copy()
    # A5's flat path (switching its erratum off leaves the row-wise pair sums of tpairreducesum_pairs_only)
    flat = plan.config.name == "a5" and rows > 1 and _flat_path(plan.specs) and \
        plan.config.erratum("tpairreducesum_flat_rows")
    if flat:  # every row's sums one after the other from element 0 (plain row-major storage)
        if target.ndim != 1:
            raise NotModelledError(f"{plan.record.name} on a5: dst is a window of a wider tile; the flat path's "
                                   "packed stores through it are not modelled")
        target[:sums.size] = sums.reshape(-1)
    else:
        write_region(target, out.spec, rows, sums.shape[1], sums)
    erratum = "tpairreducesum_flat_rows" if flat else "tpairreducesum_pairs_only"
    commit_variant(plan.config, plan.record.name, erratum, out.storage, contract, target)


def _pair_rule(check: Check, plan: Plan, tiles: Tiles) -> None:
    d, s = tiles["dst"], tiles["src0"]
    if s.valid_shape != d.valid_shape:
        check.fail("src0", f"valid shape {s.valid_shape} must equal dst's valid shape {d.valid_shape}")
    if plan.config.name == "cpu" and d.valid_col == 0 and d.valid_row > 0:
        check.undefined("dst", "no valid columns: the simulator's loop bound (ceil(0 / 2) - 1) wraps and it writes "
                               "past dst")


_PAIR_TYPES = (D.F32, D.F16)
_PAIR = Legality({"dst": _PAIR_TYPES}, same=(("dst", "src0"),), row_major=("dst", "src0"),
                 evidence="include/pto/npu/{a2a3,a5}/TPairReduceSum.hpp TPairReduceSumCheck")
TPAIRREDUCESUM = instruction(
    "TPAIRREDUCESUM", operands=(dst(), src("src0")),
    legality={"a2a3": _PAIR, "a5": _PAIR,
              "cpu": Legality({"dst": _PAIR_TYPES}, same=(("dst", "src0"),), row_major=("dst", "src0"), locs=None,
                              evidence="include/pto/cpu/TPairReduceSum.hpp (row-major static_assert; other types "
                                       "than the backends' float and half are not modelled)")},
    static=_no_boxes, dynamic=_pair_rule, family="interleave",
    summary="dst[i, k] = src0[i, 2k] + src0[i, 2k + 1] for k < ceil(valid cols / 2); 0 in the rest of dst",
)(_pairreducesum)

__all__ = ["TDEINTERLEAVE", "TINTERLEAVE", "TPAIRREDUCESUM", "apart", "modelled"]
