"""Instruction attribute enums with the reference's numeric values (include/pto/common/type.hpp)."""

from __future__ import annotations

from enum import IntEnum


class CmpMode(IntEnum):
    """Comparison predicate. Note that LE comes before GT, as in the reference."""

    EQ = 0
    NE = 1
    LT = 2
    LE = 3
    GT = 4
    GE = 5


class MaskPattern(IntEnum):
    """Mask-pattern gather selector. Bit strings read right to left: the right-most bit is element 0."""

    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7

    @property
    def period(self) -> int:
        """Pattern period: 1 for P1111, 2 for P0101/P1010, 4 otherwise."""
        return _PERIOD_PHASE[self][0]

    @property
    def phase(self) -> int:
        """Selected index within one period."""
        return _PERIOD_PHASE[self][1]

    def selected(self, count: int) -> range:
        """The indices in range(count) the pattern selects."""
        period, phase = _PERIOD_PHASE[self]
        return range(phase, count, period)


_PERIOD_PHASE = {
    MaskPattern.P0101: (2, 0),
    MaskPattern.P1010: (2, 1),
    MaskPattern.P0001: (4, 0),
    MaskPattern.P0010: (4, 1),
    MaskPattern.P0100: (4, 2),
    MaskPattern.P1000: (4, 3),
    MaskPattern.P1111: (1, 0),
}


class GatherAxis(IntEnum):
    GATHER_ROW = 0
    GATHER_COL = 1


class ScatterAxis(IntEnum):
    """Mask TSCATTER's direction: SCATTER_ROW spreads each row's columns, SCATTER_COL spreads the rows."""

    SCATTER_ROW = 0
    SCATTER_COL = 1


def coerce_enum(enum: type[IntEnum], value: object) -> IntEnum | None:
    """`value` as a member of `enum`: a member itself or its name as a string ("GT"); anything else (numbers,
    bools, other enums' members) is None, for the caller to refuse. C++ enum classes do not convert from
    integers, so neither do we."""
    if isinstance(value, enum):
        return value
    if isinstance(value, str):
        return enum.__members__.get(value)
    return None


class RoundMode(IntEnum):
    """TCVT's rounding mode (include/pto/common/type.hpp `RoundMode`)."""

    CAST_NONE = 0
    CAST_RINT = 1  # nearest, ties to even
    CAST_ROUND = 2  # nearest, ties away from zero
    CAST_FLOOR = 3  # towards -inf
    CAST_CEIL = 4  # towards +inf
    CAST_TRUNC = 5  # towards zero
    CAST_ODD = 6  # round to odd (von Neumann)


class SaturationMode(IntEnum):
    """TCVT's saturation switch (include/pto/common/type.hpp `SaturationMode`)."""

    ON = 0
    OFF = 1


class TriangleMode(IntEnum):
    """TTRI's `isUpperOrLower` template argument (0 lower, 1 upper)."""

    LOWER = 0
    UPPER = 1


class ReluPreMode(IntEnum):
    """The fixpipe's ReLU before a move or store out of Acc (include/pto/common/type.hpp `ReluPreMode`)."""

    NoRelu = 0
    NormalRelu = 1


class AccToVecMode(IntEnum):
    """Which vector core(s) an Acc -> Vec move writes (A5): one of the two, or both with the tile split."""

    SingleModeVec0 = 0
    SingleModeVec1 = 1
    DualModeSplitM = 2
    DualModeSplitN = 3


class QuantType(IntEnum):
    """TQUANT's quantisation (the INT8 forms; PTOAS's `#pto<quant_type INT8_SYM>`)."""

    INT8_SYM = 2
    INT8_ASYM = 3


class STPhase(IntEnum):
    """TSTORE's store phase (a scheduling hint; PTOAS's `#pto<st_phase final>`)."""

    Unspecified = 0
    Partial = 2
    Final = 3


class AtomicType(IntEnum):
    """TSTORE's atomic mode (PTOAS's `#pto<atomic_type atomic_add>`)."""

    AtomicNone = 0
    AtomicAdd = 1


class HistByte(IntEnum):
    """THISTOGRAM's `byte` template argument: which byte of each source element is histogrammed."""

    BYTE_0 = 0  # LSB, bits 7-0
    BYTE_1 = 1  # bits 15-8
    BYTE_2 = 2  # bits 23-16
    BYTE_3 = 3  # MSB, bits 31-24
