"""TargetProfile: everything ptoisa knows about one target, as data."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from enum import StrEnum

from ..errors import TargetError
from .rules import (
    MemoryRules,
    TCIRules,
    TCmpsRules,
    TExpandsRules,
    TGatherCmpRules,
    TGatherIndexRules,
    TGatherMaskRules,
    TPartMulRules,
)


class Target(StrEnum):
    A2A3 = "a2a3"
    A5 = "a5"
    CPU = "cpu"


@dataclass(frozen=True, kw_only=True, eq=False)
class TargetProfile:
    """One target's legality tables, encodings and errata.

    Attributes:
        target: the target's name.
        description: one line for `ptoisa targets`.
        memory: on-chip buffers and TASSIGN alignment.
        tcmps, tci, tpartmul, texpands, tgather_index, tgather_mask, tgather_cmp: per-instruction tables.
        errata: erratum name -> what the target does differently from the contract. Errata are on by default and
            can be switched off per call or per context (`ptoisa.target(..., errata=False)`).
        evidence: erratum name -> where the reference's source shows it (file:line at pto-isa 3186c381).
    """

    target: Target
    description: str
    memory: MemoryRules
    tcmps: TCmpsRules
    tci: TCIRules
    tpartmul: TPartMulRules
    texpands: TExpandsRules
    tgather_index: TGatherIndexRules
    tgather_mask: TGatherMaskRules
    tgather_cmp: TGatherCmpRules
    errata: dict[str, str]
    evidence: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Deep-frozen: a profile is data shared by every call, so its tables cannot change at run time.
        object.__setattr__(self, "errata", MappingProxyType(dict(self.errata)))
        object.__setattr__(self, "evidence", MappingProxyType(dict(self.evidence)))
        if not isinstance(self.target, Target):
            raise TargetError(f"target must be a Target, but got {self.target!r}")
        for name in self.errata:
            if "." in name or not name.isidentifier():
                raise TargetError(f"erratum names must be identifiers, but got {name!r}")
        for name in self.evidence:
            if name not in self.errata:
                raise TargetError(f"evidence for unknown erratum {name!r}")

    @property
    def name(self) -> str:
        return self.target.value

    def __repr__(self) -> str:
        return f"TargetProfile({self.target.value})"
