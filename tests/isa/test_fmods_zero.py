"""TFMODS by a zero scalar: include/pto/cpu/TBinSOps.hpp TFMODS_IMPL compares the scalar with 0 and, when equal,
calls the op illegal (PTO_ASSERT) and runs nothing, as TREMS_IMPL does; the page calls division by zero
target-defined. So ptoisa refuses it on every target before any byte changes, and emulation writes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import TFMODS, TileType, Tile

TARGETS = ("a2a3", "a5", "cpu")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("zero", [0.0, -0.0, 0, np.float32(0)], ids=["0.0", "-0.0", "int 0", "np 0"])
def test_a_zero_scalar_is_refused_and_emulated_as_no_write(target, zero):
    T = Tile[TileType.Vec, float, 4, 16]
    dst, src = T(), T()
    src.set_logical(np.arange(1, 65, dtype=np.float32).reshape(4, 16))
    dst.storage[:] = 7.0
    for _ in range(3):  # the first call takes the general path, later ones the compiled call
        with pytest.raises(ptoisa.UndefinedBehaviourError, match="by zero"):
            TFMODS(dst, src, zero, target=target)
        assert (dst.storage == 7.0).all()
    with ptoisa.target(target, undefined="emulate"):
        for _ in range(3):
            TFMODS(dst, src, zero)
            assert (dst.storage == 7.0).all()


@pytest.mark.parametrize("target", TARGETS)
def test_a_nonzero_scalar_still_runs(target):
    T = Tile[TileType.Vec, float, 4, 16]
    dst, src = T(), T()
    values = np.linspace(-20, 20, 64, dtype=np.float32).reshape(4, 16)
    src.set_logical(values)
    TFMODS(dst, src, 3.0, target=target)
    expected = np.fmod(values.astype(np.float64), 3.0).astype(np.float32)
    if target == "cpu":
        assert dst.data.tobytes() == expected.tobytes()
    else:  # the NPUs' a - trunc(a / b) * b in float may differ in the last bit from fmod
        np.testing.assert_allclose(dst.data, expected, atol=1e-5)
