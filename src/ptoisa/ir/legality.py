"""The hook where target legality (dtype sets per arch) joins the IR verifiers.

The IR layer checks structure only: operand kinds, tile locations and layouts, valid-shape relations and type
equalities, with PTOAS's messages. Which element types an instruction accepts on which target is a fact of the
core's legality tables (one table row per fact, shared with the eager API); it is deliberately not duplicated here.

To wire it up, replace the body of `check_target_legality`: convert the op's tile operands with
`convert.tile_spec_of`, then call the core checker, and re-raise its `IllegalInstructionError` as a
`VerifyException` with the op name prefixed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

    from .verify import Arch


def check_target_legality(op: Operation, arch: Arch) -> None:
    """Not wired yet: accepts every element type on every arch."""
    del op, arch
