"""Shared by the in-order reduction tests (test_exact_shortcuts, test_reduce_wide): the simulator's fold written
as its loop, and a bit comparison that lets two NaNs meet."""

from __future__ import annotations

import numpy as np

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def bits(x: np.ndarray) -> np.ndarray:
    """Float (and ml_dtypes) values as their bit patterns; integers as they are."""
    x = np.asarray(x)
    return x.view(UINT[x.dtype.itemsize]) if x.dtype.kind in "fV" else x


def loop_fold(op, values, acc, axis):  # noqa: ANN001, ANN201
    """The simulator's loop, one step at a time over every lane: from 0 (sum) or 1 (product), each step rounded
    to acc."""
    lanes = (values if axis == 0 else values.T).astype(acc)
    result = np.full(lanes.shape[1], 0 if op is np.add else 1, acc)
    with np.errstate(all="ignore"):
        for row in lanes:
            result = op(result, row).astype(acc)
    return result


def assert_same_or_both_nan(got, want, what) -> None:  # noqa: ANN001
    """Bits equal, or both NaN: which NaN payload wins where two NaNs meet differs between NumPy's vector body and
    its scalar tail, which the summation order does not decide."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    nan = np.zeros(got.shape, bool)
    if got.dtype.kind in "fV":
        with np.errstate(all="ignore"):
            nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    diff = (bits(got) != bits(want)) & ~nan
    assert not diff.any(), f"{what}: {int(diff.sum())} differ at {np.argwhere(diff)[:5].ravel()}"


def a5_column_fold(op, values):  # noqa: ANN001, ANN201
    """A5's float column fold (a5/TColReduceOps.hpp TColReduceInstr_PostUpdate, the default version): row 0,
    then each following pair combined first, r0 + (r1 + r2) + (r3 + r4) + ..., every step rounded to the
    element type."""
    with np.errstate(all="ignore"):
        result = values[0]
        for j in range((len(values) - 1) // 2):
            result = op(result, op(values[2 * j + 1], values[2 * j + 2]))
        if (len(values) - 1) % 2:
            result = op(result, values[-1])
    return result


def target_fold(op, values, acc, axis, target):  # noqa: ANN001, ANN201
    """The fold a target computes: A5's own grouping for float column sums and products, A2/A3's step loop from
    row 0 for them (a2a3/TColSum.hpp: row 0 copied into dst, the others added in turn), else the simulator's step
    loop."""
    if axis == 0 and np.dtype(acc).kind in "fV":
        if target == "a5":
            return a5_column_fold(op, np.asarray(values).astype(acc))
        if target == "a2a3":
            lanes = np.asarray(values).astype(acc)
            result = lanes[0]
            with np.errstate(all="ignore"):
                for row in lanes[1:]:
                    result = op(result, row).astype(acc)
            return result
    return loop_fold(op, values, acc, axis)
