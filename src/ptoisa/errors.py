"""ptoisa's exception and warning hierarchy.

Every refusal raised by the library is a `PtoError`. Each class also derives from the builtin that fits
(`ValueError`, `IndexError`, `NotImplementedError`), so generic handlers keep working. Instruction errors carry
structured fields (`instr`, `target`, `operand`, `rule`) and a message of one shape:

    TCMPS on a2a3: src0 dtype int8 is not supported (allowed: int32, float, half, uint16, int16)
"""

from __future__ import annotations


class PtoError(Exception):
    """Root of every error ptoisa raises on purpose."""


class TileSpecError(PtoError, ValueError):
    """A tile type or tile instance that the reference's `Tile` template would not accept."""


class PlacementError(PtoError, ValueError):
    """A TASSIGN binding that does not fit its on-chip buffer or is misaligned for the target."""


class TargetError(PtoError, ValueError):
    """An unknown target name or an invalid target configuration."""


class VectorFormatError(PtoError, ValueError):
    """A conformance-vector file that does not follow the documented format."""


class IllegalInstructionError(PtoError, ValueError):
    """An instruction call outside the legal domain of the selected target.

    Attributes:
        instr: instruction name (`TCMPS`).
        target: target profile name (`a2a3`).
        operand: the operand the rule is about (`src0`), or None for whole-call rules.
        rule: the rule broken, as a sentence fragment.
    """

    def __init__(self, instr: str, target: str, operand: str | None, rule: str) -> None:
        self.instr = instr
        self.target = target
        self.operand = operand
        self.rule = rule
        subject = f"{operand} " if operand else ""
        super().__init__(f"{instr} on {target}: {subject}{rule}")


class UndefinedBehaviourError(IllegalInstructionError):
    """A call whose result the contract leaves undefined on this target (raised unless emulation is on)."""


class OutOfBoundsError(PtoError, IndexError):
    """An access outside a tile or an on-chip buffer."""


class UninitializedReadError(PtoError):
    """A read of tile bytes nothing has written (reported in poison mode, `fill="poison"`)."""


class NotModelledError(PtoError, NotImplementedError):
    """Behaviour ptoisa cannot reproduce faithfully (for example memory outside any bound tile)."""


class PtoWarning(UserWarning):
    """Root of ptoisa's warnings."""


class ErratumWarning(PtoWarning):
    """A target erratum changed a result: the target deviates from the contract here and ptoisa reproduced it."""


class NarrowingWarning(PtoWarning):
    """A scalar changed its value on conversion to the element type (an integer wrapped, a fraction was dropped,
    a finite value overflowed to infinity): what a C++ implicit conversion does, said out loud."""


class ModeFallbackWarning(PtoWarning):
    """The target executes a different mode than the one requested (documented fallback) and the result differs."""
