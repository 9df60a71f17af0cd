"""The C++ structs instructions take by reference: `MrgSortExecutedNumList` (TMRGSORT's executed counts),
`TRandomKey` and `TRandomCounter` (TRANDOM's `uint32_t[2]` key and `uint32_t[4]` counter)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._shown import shown

if TYPE_CHECKING:
    from .isa._check import Check


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


class _Words:
    """A C++ `uint32_t[N]` array passed by reference (include/pto/common/type.hpp): N words, each kept in
    [0, 2**32). Built from N integers (a negative one wraps, as C++'s conversion to uint32_t does)."""

    size = 0

    def __init__(self, *words: int) -> None:
        if len(words) == 1 and not isinstance(words[0], (int, np.integer)):
            words = tuple(itertools.islice(words[0], self.size + 1))  # (an endless iterator: one word too many)
        if len(words) != self.size:
            raise TypeError(f"{type(self).__name__} takes {self.size} uint32_t words (got {len(words)})")
        for w in words:
            if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, np.integer)) or \
                    not -2**31 <= int(w) < 2**32:
                raise TypeError(f"{type(self).__name__}: {shown(w)} is not a 32-bit word")
        self.words = tuple(int(w) % 2**32 for w in words)

    @classmethod
    def coerce(cls, value: Any, check: Check, name: str) -> _Words:
        """The struct for `value` (an instance, or a sequence of numbers), or the operand's refusal."""
        if isinstance(value, cls):
            return value
        try:  # (at most one word too many is read: an endless iterator is refused, not read forever)
            return cls(*itertools.islice(value, cls.size + 1))
        except TypeError as exc:
            check.fail(name, f"must be a {cls.__name__} or {cls.size} uint32_t words ({exc})")

    def __getitem__(self, index: int) -> int:
        return self.words[index]

    def __len__(self) -> int:
        return self.size

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.words == self.words

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.words))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'0x{w:x}' for w in self.words)})"


class TRandomKey(_Words):
    """`using TRandomKey = uint32_t[2]`: TRANDOM's key."""

    size = 2


class TRandomCounter(_Words):
    """`using TRandomCounter = uint32_t[4]`: TRANDOM's 128-bit counter, word 0 least significant."""

    size = 4


STRUCTS: tuple[type, ...] = (MrgSortExecutedNumList, TRandomKey, TRandomCounter)

__all__ = ["MrgSortExecutedNumList", "STRUCTS", "TRandomCounter", "TRandomKey"]
