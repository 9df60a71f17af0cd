"""The cube path end to end: examples/pto/run_matmul.pto (global -> Mat -> Left/Right, tmatmul, tmatmul.acc,
Acc -> global). Expected values come from NumPy: the integer product where every sum is exact, and otherwise the
simulator's order written out as a plain loop (float32 sums over k = 0..127, each product exact in float)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ptoisa

KERNEL = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_matmul.pto"


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_integer_matmul_is_exact(target):
    rng = np.random.default_rng(8)
    a, b = rng.integers(-8, 9, (32, 128)), rng.integers(-8, 9, (128, 32))
    c = np.zeros((32, 32), np.float32)
    program = ptoisa.load(KERNEL)
    program.run("matmul", a.astype(np.float16), b.astype(np.float16), c, target=target)
    assert np.array_equal(c, (a @ b).astype(np.float32))


def test_half_matmul_sums_in_k_order():
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((32, 128)) * 3).astype(np.float16)
    b = (rng.standard_normal((128, 32)) * 3).astype(np.float16)
    want = np.zeros((32, 32), np.float32)
    for k in range(64):  # the first slice: tmatmul from +0.0
        want += a[:, k:k + 1].astype(np.float32) * b[k:k + 1, :].astype(np.float32)
    second = np.zeros((32, 32), np.float32)
    for k in range(64, 128):  # the second slice sums on its own, then is added to the accumulator
        second += a[:, k:k + 1].astype(np.float32) * b[k:k + 1, :].astype(np.float32)
    want = want + second
    c = np.zeros((32, 32), np.float32)
    ptoisa.load(KERNEL).run("matmul", a, b, c, target="cpu")
    assert c.tobytes() == want.tobytes()
