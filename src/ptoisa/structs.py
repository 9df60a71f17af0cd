"""The C++ structs instructions take by reference: `MrgSortExecutedNumList` (TMRGSORT's executed counts)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class MrgSortExecutedNumList:
    """`struct MrgSortExecutedNumList { uint16_t mrgSortList0, mrgSortList1, mrgSortList2, mrgSortList3; }`:
    how many value-index pairs a multi-list TMRGSORT took from each source list (`pto.tmrgsort`'s
    `vector<4xi16>` operand)."""

    mrgSortList0: int = 0
    mrgSortList1: int = 0
    mrgSortList2: int = 0
    mrgSortList3: int = 0

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.mrgSortList0, self.mrgSortList1, self.mrgSortList2, self.mrgSortList3)

    def set(self, counts: tuple[int, ...]) -> None:
        """Store four counts as the C++ fields hold them (uint16_t: modulo 2**16)."""
        (self.mrgSortList0, self.mrgSortList1, self.mrgSortList2,
         self.mrgSortList3) = (int(c) & 0xFFFF for c in (*counts, 0, 0, 0, 0)[:4])


STRUCTS: tuple[type, ...] = (MrgSortExecutedNumList,)

__all__ = ["MrgSortExecutedNumList", "STRUCTS"]
