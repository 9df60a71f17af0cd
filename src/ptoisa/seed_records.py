"""The records of the seeds' five instructions: TCMPS, TCI, TPARTMUL, TEXPANDS, TGATHER.

Their operand roles, overload forms, pipes and per-target element types live here like every other record's, so
that the registry, `docs/instructions.md` and `ptoisa targets --instructions` cover all instructions. Their entry
points stay hand-written in `ptoisa.api` (C++ template-argument forms, TGATHER's three overloads told apart by
their arguments) and their `.pto` ops in `ptoisa.ir.ops` (every spelling of PTOAS April and August and the
seed pages); the record's `entry` calls them, and their legality is checked by their own modules, from the
same target tables these records show.
"""

from __future__ import annotations

from .api import TCI, TCMPS, TEXPANDS, TGATHER, TPARTMUL
from .enums import CmpMode, GatherAxis, MaskPattern
from .events import Pipe
from .isa.record import REGISTRY, TARGETS, Attr, Instruction, Legality, Operand, dst, scalar, src, tmp
from .targets import get_profile


def _unused_kernel(plan, tiles, scalars):  # noqa: ANN001, ANN202 - the entry point runs the instruction
    raise AssertionError("the seed instructions run through their entry points")


def _tables(make) -> dict[str, Legality]:  # noqa: ANN001
    return {t: make(get_profile(t)) for t in TARGETS}


def _register(name: str, **fields: object) -> Instruction:
    if name not in REGISTRY:
        REGISTRY[name] = Instruction(name=name, kernel=_unused_kernel, family="seed", **fields)  # type: ignore[arg-type]
    return REGISTRY[name]


TCMPS_RECORD = _register(
    "TCMPS", entry=TCMPS, pipe=Pipe.V,
    operands=(dst(), src("src0"), scalar("src1", "src0")),
    forms=((dst(), src("src0"), scalar("src1", "src0")), (dst(), src("src0"), src("src1"))),
    attrs=(Attr("cmpMode", CmpMode, CmpMode.EQ),),
    legality=_tables(lambda p: Legality({"src0": p.tcmps.src_dtypes, "dst": p.tcmps.dst_dtypes},
                                        locs=p.tcmps.locs)),
    summary="packed predicate bits of src0 cmpMode scalar (or src1[0, 0])")
TCI_RECORD = _register(
    "TCI", entry=TCI, pipe=Pipe.S,
    operands=(dst(), scalar("start")), forms=((dst(), scalar("start")), (dst(), scalar("start"), tmp("tmp"))),
    legality=_tables(lambda p: Legality({"dst": p.tci.dtypes})),
    summary="dst[0, k] = start + k (or start - k when descending)")
TPARTMUL_RECORD = _register(
    "TPARTMUL", entry=TPARTMUL, pipe=Pipe.V, operands=(dst(), src("src0"), src("src1")),
    legality=_tables(lambda p: Legality({"dst": p.tpartmul.dtypes})),
    summary="src0 * src1 where both are valid, the valid one's value elsewhere in dst")
TEXPANDS_RECORD = _register(
    "TEXPANDS", entry=TEXPANDS, pipe=Pipe.V, operands=(dst(), scalar("scalar")),
    legality=_tables(lambda p: Legality({"dst": p.texpands.dtypes}, locs=p.texpands.locs)),
    summary="dst = scalar (Vec: the valid region; Mat: the whole tile; conv tiles: the conv shape)")
TGATHER_RECORD = _register(
    "TGATHER", entry=TGATHER, pipe=Pipe.V,
    operands=(dst(), src("src0"), src("indices"), tmp("tmp", optional=True)),
    forms=((dst(), src("src0"), src("indices"), tmp("tmp", optional=True)),
           (dst(), src("src"), Operand("maskPattern", "scalar"), Operand("gatherAxis", "scalar", optional=True)),
           (dst(), src("src0"), src("k_value"), dst("cdst"), src("tmp"), scalar("offset"),
            Operand("cmpMode", "scalar"))),
    legality=_tables(lambda p: Legality({"dst (index form)": p.tgather_index.dst_dtypes,
                                         "src (mask form)": p.tgather_mask.dtypes,
                                         "src0 (comparison form)": p.tgather_cmp.src_dtypes})),
    summary="index, mask-pattern and comparison gathers")

SEED = (TCMPS_RECORD, TCI_RECORD, TPARTMUL_RECORD, TEXPANDS_RECORD, TGATHER_RECORD)
__all__ = ["SEED", "GatherAxis", "MaskPattern"]
