"""A row softmax written with the vector instructions, as a kernel would: max, subtract, exp, sum, divide.

Run:  .venv/bin/python examples/python/row_softmax.py [--target a2a3|a5|cpu]

Every instruction call mirrors its C++ intrinsic (`TROWMAX(dst, src, tmp)`, ...). The result is compared with
NumPy doing the same steps in the same order: ptoisa computes exp in double and rounds once (the reference
simulator's std::exp), and sums each row in order, so the comparison is exact.
"""

from __future__ import annotations

import argparse

import numpy as np

import ptoisa
from ptoisa import *

ROWS, COLS = 8, 64

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--target", default="cpu", choices=["a2a3", "a5", "cpu"])
target = parser.parse_args().target

Full = Tile[TileType.Vec, float, ROWS, COLS]
PerRow = Tile[TileType.Vec, float, ROWS, 1, BLayout.ColMajor]  # one value per row (a column vector)

x = np.random.default_rng(0).standard_normal((ROWS, COLS)).astype(np.float32) * 4
src, tmp, shifted, out = Full(data=x), Full(), Full(), Full()
row_max, row_sum = PerRow(), PerRow()

with ptoisa.target(target):
    TROWMAX(row_max, src, tmp)                  # row_max[i] = max over j of src[i, j]
    TROWEXPANDSUB(shifted, src, row_max)        # shifted[i, j] = src[i, j] - row_max[i]
    TEXP(shifted, shifted)                      # in place
    TROWSUM(row_sum, shifted, tmp)              # in order, rounded after every addition
    TROWEXPANDDIV(out, shifted, row_sum)

# The same steps in NumPy
m = x.max(axis=1, keepdims=True)
e = np.exp((x - m).astype(np.float64)).astype(np.float32)
s = np.zeros((ROWS, 1), np.float32)
for j in range(COLS):                           # the simulator's order of additions
    s += e[:, j:j + 1]
expected = e / s

assert np.array_equal(out.data, expected), "softmax differs from NumPy"
print(f"target {target}: softmax rows sum to {out.data.sum(axis=1).round(6).tolist()}")
print("bit-exact against NumPy doing the same steps")
