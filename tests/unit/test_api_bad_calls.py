"""A call Python cannot bind (an unknown keyword, a missing argument) is refused with ptoisa's error naming the
instruction and its parameters, for the seeds' entry points and their C++ template forms alike."""

from __future__ import annotations

import pytest

import ptoisa
from ptoisa import CmpMode, MaskPattern, Tile, TileType

T = Tile[TileType.Vec, float, 16, 16]
I1 = Tile[TileType.Vec, ptoisa.int32_t, 1, 16]


@pytest.mark.parametrize("call, expected", [
    (lambda: ptoisa.TGATHER(T(), T(), T(), undefined="emulate"), "unexpected keyword argument 'undefined'"),
    (lambda: ptoisa.TCMPS(T(), T(), 1.0, CmpMode.GT, mode=1), "unexpected keyword argument 'mode'"),
    (lambda: ptoisa.TCMPS(T()), "missing 3 required positional arguments"),
    (lambda: ptoisa.TEXPANDS(), "missing 2 required positional arguments"),
    (lambda: ptoisa.TPARTMUL(T(), T(), T(), out=1), "unexpected keyword argument 'out'"),
    (lambda: ptoisa.TCI(I1(), 1, start=2), "multiple values for argument 'start'"),
    (lambda: ptoisa.TCI[I1, ptoisa.int32_t, 1](I1(), 1, descending=True), "unexpected keyword argument"),
    (lambda: ptoisa.TGATHER[T, T, MaskPattern.P0101](T()), "missing 1 required positional argument"),
])
def test_unbindable_calls_are_ptoisa_errors(call, expected):
    with pytest.raises(ptoisa.IllegalInstructionError, match="bad call") as info:
        call()
    assert expected in str(info.value) and "expected " in str(info.value)


def test_the_expected_signature_is_spelled_without_annotations():
    with pytest.raises(ptoisa.IllegalInstructionError) as info:
        ptoisa.TCMPS(T(), T(), 1.0, CmpMode.GT, colour="red", target="a5")
    assert str(info.value).startswith("TCMPS on a5: bad call")
    assert str(info.value).endswith("expected TCMPS(dst, src0, src1, cmpMode, *events, target=None)")
