"""The 16-bit float comparison on bit patterns (isa._compare.compare_bits16) against NumPy's float32 comparison
of the same values: every one of the 65,536 patterns as the tile element, against every 61st pattern and the
special ones (both zeros, both infinities, NaNs, the smallest and largest finite magnitudes) as the scalar, in
every mode, for half and bfloat16. float32 holds every half and bfloat16 value exactly and compares them as
IEEE numbers (a NaN unequal to everything, -0 == +0), so it is the expected value from outside the code."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ptoisa import CmpMode
from ptoisa.isa._compare import OPS, compare_bits16

ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
FORMATS = [(np.float16, 0x7C00), (ml_dtypes.bfloat16, 0x7F80)]


def _scalars(inf: int) -> list[int]:
    special = [0x0000, 0x8000, 0x0001, 0x8001, inf - 1, (inf - 1) | 0x8000, inf, inf | 0x8000, inf + 1,
               (inf + 1) | 0x8000, 0x7FFF, 0xFFFF]
    return sorted(set(range(0, 1 << 16, 61)) | set(special))


@pytest.mark.parametrize("buffers", [False, True], ids=["new", "into"])
@pytest.mark.parametrize("dtype, inf", FORMATS, ids=["half", "bfloat16"])
@pytest.mark.parametrize("mode", list(CmpMode), ids=lambda m: m.name)
def test_every_pattern_against_sampled_scalars(dtype, inf, mode, buffers):
    """`buffers`: into a bool `out` and a uint16 `scratch` holding the previous scalar's leftovers (every
    element of the result must be written, and `out` itself returned)."""
    values = ALL.view(dtype).astype(np.float32)
    wrong = []
    out, scratch = np.ones(ALL.shape, bool), np.full(ALL.shape, 0x1234, np.uint16)
    for raw in _scalars(inf):
        scalar = np.float32(np.array(raw, np.uint16).view(dtype))
        if buffers:
            got = compare_bits16(ALL, np.array(raw, np.uint16), mode, inf, out, scratch)
            if got is not out:
                wrong.append(f"{raw:#x} not into out")
        else:
            got = compare_bits16(ALL, np.array(raw, np.uint16), mode, inf)
        want = OPS[mode](values, scalar)
        if got.dtype != np.bool_ or got.shape != want.shape or not np.array_equal(got, want):
            wrong.append(hex(raw))
    assert not wrong, f"{mode.name}: wrong against scalars {wrong[:8]}"


def test_keeps_the_shape_of_a_2d_tile():
    bits = ALL[:512].reshape(16, 32)
    got = compare_bits16(bits, np.array(0x3C00, np.uint16), CmpMode.LT, 0x7C00)
    assert got.shape == (16, 32)
    assert np.array_equal(got, bits.view(np.float16) < np.float16(1.0))
