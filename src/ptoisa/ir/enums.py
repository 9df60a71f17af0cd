"""Enums of the PTOAS text that have no counterpart in the ptoisa core (values as in PTOAS's PTOAttrs.td).

The instruction and tile enums (CmpMode, MaskPattern, TileType, BLayout, ...) come from the core; only the
synchronisation, view and function-level enums that the core does not model live here.
"""

from __future__ import annotations

from enum import IntEnum


class AddressSpace(IntEnum):
    """`#pto.address_space<...>` of memref types (April files)."""

    ZERO = 0
    GM = 1
    MAT = 2
    LEFT = 3
    RIGHT = 4
    ACC = 5
    VEC = 6
    BIAS = 7
    SCALING = 8


class Pipe(IntEnum):
    """Hardware pipe of `set_flag`/`wait_flag`/`barrier`."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10
    VIRTUAL_PIPE_MTE2_L1A = 11
    VIRTUAL_PIPE_MTE2_L1B = 12
    PIPE_NUM = 13
    PIPE_UNASSIGNED = 99


class Event(IntEnum):
    """Hardware event id."""

    EVENT_ID0 = 0
    EVENT_ID1 = 1
    EVENT_ID2 = 2
    EVENT_ID3 = 3
    EVENT_ID4 = 4
    EVENT_ID5 = 5
    EVENT_ID6 = 6
    EVENT_ID7 = 7


class SyncOpType(IntEnum):
    """High-level sync endpoint of `record_event`/`wait_event` (`#pto.pipe_event_type<...>`)."""

    TLOAD = 0
    TSTORE_ACC = 1
    TSTORE_VEC = 2
    TMOV_M2L = 3
    TMOV_M2S = 4
    TMOV_M2B = 5
    TMOV_M2V = 6
    TMOV_V2M = 7
    TMATMUL = 8
    TVEC = 9
    TVECWAIT_EVENT = 10


class KernelKind(IntEnum):
    """`#pto.kernel_kind<...>` function attribute."""

    CUBE = 0
    VECTOR = 1


class RoundMode(IntEnum):
    """`#pto<round_mode ...>` of tcvt."""

    NONE = 0
    RINT = 1
    ROUND = 2
    FLOOR = 3
    CEIL = 4
    TRUNC = 5
    ODD = 6
    CAST_RINT = 7


class PadMode(IntEnum):
    """`#pto.padmode<...>` of tload."""

    PadNull = 0
    PadFirstElem = 1
    PadValue = 2


class FenceScope(IntEnum):
    """`#pto.fence_scope<...>` of the fence ops: the memory a fence orders."""

    gm = 0
    ddr = 1
    ub = 2
    l1 = 3
