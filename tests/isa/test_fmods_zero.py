"""TFMODS by a zero scalar: include/pto/cpu/TBinSOps.hpp TFMODS_IMPL compares the scalar with 0 and, when equal,
calls the op illegal (PTO_ASSERT) and runs nothing, as TREMS_IMPL does; the page calls division by zero
target-defined. So ptoisa refuses it on every target before any byte changes, and emulation writes nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ptoisa
from ptoisa import TFMODS, Tile, TileType, half, int16_t, int32_t

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


# --- the NPUs' formula (a2a3/TFmodS.hpp FmodSF32Instr, a5/TFModS.hpp FModSOp) -------------------------------------
def test_npu_float_is_a_minus_trunc_quotient_times_b_in_float():
    """1e10 fmod 3 is 1 (cpu: std::fmod in double). On the NPUs, vdiv gives 3333333248 (the float nearest
    3333333333.3), vmuls 3333333248 * 3 = 9999999744 rounds to the float 1e10 (float spacing 1024 there), and vsub
    leaves 0."""
    T = Tile[TileType.Vec, float, 1, 8]
    src = T()
    src.set_logical(np.full((1, 8), 1e10, np.float32))
    results = {}
    for target in TARGETS:
        dst = T()
        for _ in range(2):  # general, then compiled
            TFMODS(dst, src, 3.0, target=target)
            results[target] = dst.data[0, 0]
    assert results == {"cpu": 1.0, "a2a3": 0.0, "a5": 0.0}


def test_a5_half_converts_back_towards_zero():
    """A5's half: widened to float, the float formula, then vcvt ROUND_Z back to half. Expected: the float result
    computed step by step in NumPy float32, truncated to half by clearing its 13 low mantissa bits (exact for
    results in half's normal range). Quotients past 2**24 make the float product round, so the results differ
    from std::fmod's (the cpu target's) in some elements."""
    rng = np.random.default_rng(3)
    a = rng.uniform(20000, 60000, 64).astype(np.float16)
    b = np.float16(0.0007)
    a32, b32 = a.astype(np.float32), np.float32(b)
    q = np.trunc(a32 / b32)
    r = (a32 - (q * b32).astype(np.float32)).astype(np.float32)
    keep = r != 0  # (all within half's normal range here: clearing bits is rounding towards zero)
    assert (np.abs(r[keep]) >= 2.0 ** -14).all() and keep.sum() >= 8
    expected = (r.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float16)
    T = Tile[TileType.Vec, half, 4, 16]
    dst, src = T(), T()
    src.set_logical(a.reshape(4, 16))
    TFMODS(dst, src, b, target="a5")
    got = dst.data.reshape(-1)
    assert got[keep].tobytes() == expected[keep].tobytes()
    assert (got[~keep] == 0).all()
    exact = np.fmod(a.astype(np.float64), np.float64(b)).astype(np.float16)
    assert (got != exact).sum() > 10


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint16, np.uint32])
def test_a5_integers_are_cpp_remainders(dtype):
    T = Tile[TileType.Vec, dtype, 1, 16]
    dst, src = T(), T()
    values = np.arange(-8, 8) if np.dtype(dtype).kind == "i" else np.arange(0, 160, 10)
    src.set_logical(values.astype(dtype).reshape(1, 16))
    TFMODS(dst, src, 3, target="a5")
    expected = [int(math.fmod(int(v), 3)) for v in values]
    assert dst.data[0].tolist() == expected


@pytest.mark.parametrize("dtype", [half, int32_t, int16_t])
def test_a2a3_takes_float_only(dtype):
    """a2a3/TFmodS.hpp: static_assert "TFMODS supports only float element type"."""
    T = Tile[TileType.Vec, dtype, 1, 16]
    dst = T()
    dst.storage[:] = 7
    with pytest.raises(ptoisa.IllegalInstructionError, match="dst dtype .* is not supported .allowed: float"):
        TFMODS(dst, T(), 3, target="a2a3")
    assert (dst.storage == 7).all()
