"""Random calls of the twelve cube records (TMATMUL, TGEMV and their MX forms; plain, accumulate, bias) against a
model written from the reference's loops, on every target.

Each case builds operands that pass every other rule (element types, locations, fractals, static shapes, GEMV's
one row, MX scale tiles covering the groups read) and varies what the accumulate and bias forms leave open: the
static and run-time valid sizes of A, B and C (C's valid region wider, narrower or crossing M x N), cIn of
cOut's tile type or of another one, run-time valid sizes of a cIn of the same `-1` type, bias tiles narrower than
the columns read. Values are small integers (fp8: a few dyadic values, scales 2^-2 .. 2^2) so every sum is
exact and the order of additions does not show: what is checked is which elements are written and read.

The model (include/pto/cpu/TMatmul.hpp for cpu; npu/a2a3, npu/a5 TMatmul.hpp for the others):
- a call is refused iff cIn is not of cOut's type, or the bias storage does not hold the columns read (N on
  a2a3/a5, C's valid cols on cpu), or it is an MX form on a2a3; a refused call changes no byte;
- C[i, j] for i < M, j < N gets the product (+ C_in[i, j] read at i < M, j < N on cpu; the NPUs add the product to
  C's own values there, cIn unread: erratum tmatmul_acc_ignores_cin); the NPUs add bias[0, j] there,
  the simulator adds bias[0, c] to C[r, c] for r, c in C's valid region after the product; on a2a3 the plain
  forms (not GEMV, not MX) with M = 1 compute C rows 1..15 too, from A's storage rows 1..15 (erratum
  tmatmul_m1_sixteen_rows: + C's own values for ACC, + bias[0, j] for BIAS); nothing else moves.

PTOISA_FUZZ_SCALE multiplies the number of cases, PTOISA_FUZZ_SEED picks them."""

from __future__ import annotations

import os
import warnings

import ml_dtypes
import numpy as np
import pytest
from conftest import fuzz_budget

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType
from ptoisa.errors import IllegalInstructionError, PtoError
from ptoisa.tile.layout import offset_table

SEED = int(os.environ.get("PTOISA_FUZZ_SEED", "20261126"))
CASES = fuzz_budget(25)
E4M3, E5M2, E8M0 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e8m0fnu
FP8_VALUES = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1.5], np.float32)
FORMS = [f"{base}{mx}{kind}" for base in ("TMATMUL", "TGEMV") for mx in ("", "_MX") for kind in ("", "_ACC", "_BIAS")]


def logical(tile, rows=None, cols=None):
    """The elements of the tile's storage at (row, col) for row < rows, col < cols (all), valid or not."""
    return tile.storage[offset_table(tile.spec)[:rows, :cols]]


class Case:
    def __init__(self, form: str, target: str, rng: np.random.Generator) -> None:
        self.form, self.target = form, target
        self.gemv, self.mx = form.startswith("TGEMV"), "_MX" in form
        self.acc, self.bias = form.endswith("_ACC"), form.endswith("_BIAS")
        r = rng
        if self.mx:
            a_type, b_type = E4M3 if r.integers(0, 2) else E5M2, E4M3 if r.integers(0, 2) else E5M2
            c_type = np.float32
        else:
            a_type = [np.int8, np.float16, np.float32, ml_dtypes.bfloat16][int(r.integers(0, 4))]
            b_type = a_type
            c_type = np.int32 if a_type is np.int8 else np.float32
        rows = 1 if self.gemv else int(r.choice([16, 32]))
        # A Cols: a multiple of 64 for MX, of the fractal box width (32 bytes: 32 int8) otherwise
        depth = 64 * int(r.integers(1, 3)) if self.mx or a_type is np.int8 else int(r.choice([16, 32]))
        cols = int(r.choice([16, 32]))
        m = 1 if self.gemv else int(r.integers(1, rows + 1))
        k = int(r.integers(1, depth + 1))
        n = int(r.integers(1, cols + 1))
        self.m, self.k, self.n = m, k, n

        def shaped(loc, dtype, shape, blayout, valid, slayout, fractal=512, dynamic=None):
            dynamic = bool(r.integers(0, 2)) if dynamic is None else dynamic
            spec = Tile[loc, dtype, *shape, blayout, *((-1, -1) if dynamic else valid), slayout, fractal]
            return spec(*valid) if dynamic else spec()

        b_rows_valid = k if self.gemv else int(r.integers(1, depth + 1))
        self.a = shaped(TileType.Left, a_type, (rows, depth), BLayout.ColMajor, (m, k), SLayout.RowMajor)
        self.b = shaped(TileType.Right, b_type, (depth, cols), BLayout.RowMajor, (b_rows_valid, n), SLayout.ColMajor)
        c_valid = (1 if self.gemv else int(r.integers(0, rows + 1)), int(r.integers(0, cols + 1)))
        if r.integers(0, 3) == 0:
            c_valid = (m, n)
        c_fractal = 1024 if r.integers(0, 4) else 512
        self.c = shaped(TileType.Acc, c_type, (rows, cols), BLayout.ColMajor, c_valid, SLayout.RowMajor, c_fractal)
        self.tiles = [self.c]
        if self.acc:
            if r.integers(0, 4):  # of cOut's type; a `-1` type may hold other run-time valid sizes
                spec = self.c.spec
                self.c_in = spec(int(r.integers(0, rows + 1)), int(r.integers(0, cols + 1))) if spec.dynamic_row \
                    else spec()
            else:
                other = (16 if rows == 32 else 32, cols) if not self.gemv and r.integers(0, 2) else (rows, cols)
                self.c_in = shaped(TileType.Acc, c_type, other, BLayout.ColMajor, (min(m, other[0]), n),
                                   SLayout.RowMajor, 1536 - c_fractal if r.integers(0, 2) else c_fractal)
            self.tiles.append(self.c_in)
        self.tiles.append(self.a)
        if self.mx:
            groups = -(-depth // 32)
            s_rows = max(rows, 16)  # a one-row ScaleLeft tile with 16x2 boxes holds one scale in its storage
            self.sa = Tile[TileType.ScaleLeft, E8M0, s_rows, groups, BLayout.RowMajor, s_rows, groups,
                           SLayout.RowMajor, 32]()
            self.sb = Tile[TileType.ScaleRight, E8M0, groups, cols, BLayout.ColMajor, groups, cols, SLayout.ColMajor,
                           32]()
            self.tiles.append(self.sa)
        self.tiles.append(self.b)
        if self.mx:
            self.tiles.append(self.sb)
        if self.bias:
            width = int(r.choice([w for w in (8, 16, 24, 32) if w <= cols] + [cols]))
            self.bias_tile = Tile[TileType.Bias, c_type, 1, width]()
            self.tiles.append(self.bias_tile)
        self._fill(r)

    def _fill(self, r: np.random.Generator) -> None:
        for tile in self.tiles:
            dtype = tile.storage.dtype
            if tile.spec.loc in (TileType.ScaleLeft, TileType.ScaleRight):
                tile.storage.view(np.uint8)[:] = r.integers(125, 130, tile.storage.size, dtype=np.uint8)
            elif self.mx and tile.spec.loc in (TileType.Left, TileType.Right):
                tile.storage[:] = FP8_VALUES[r.integers(0, FP8_VALUES.size, tile.storage.size)].astype(dtype)
            elif tile.spec.loc in (TileType.Left, TileType.Right):
                tile.storage[:] = r.integers(-3, 4, tile.storage.size).astype(dtype)
            else:
                tile.storage[:] = r.integers(-1000, 1000, tile.storage.size).astype(dtype)

    def refused_by_model(self) -> bool:
        if self.mx and self.target == "a2a3":
            return True
        if self.acc and self.c_in.spec is not self.c.spec:
            return True
        if self.bias:
            read = self.c.valid_col if self.target == "cpu" else self.n
            return read > self.bias_tile.spec.cols
        return False

    def expected(self) -> np.ndarray:
        m, k, n = self.m, self.k, self.n
        a, b = logical(self.a)[:m, :k].astype(np.float64), logical(self.b)[:k, :n].astype(np.float64)
        if self.mx:
            def scale(tile, rows, cols):  # e8m0: 2^(e - 127)
                return 2.0 ** (logical(tile, rows, cols).view(np.uint8).astype(np.float64) - 127)

            groups = np.arange(k) // 32
            sa, sb = scale(self.sa, m, groups[-1] + 1), scale(self.sb, groups[-1] + 1, n)
            product = np.einsum("ik,kj,ik,kj->ij", a, b, sa[:, groups], sb[groups])
        else:
            product = a @ b
        out = logical(self.c).astype(np.float64)
        if self.acc:  # cIn on cpu; the NPUs' cube adds to C's own values (erratum tmatmul_acc_ignores_cin)
            base = logical(self.c_in if self.target == "cpu" else self.c)[:m, :n].astype(np.float64)
        if self.target == "a2a3" and m == 1 and not self.gemv and not self.mx:  # the cube's 16 rows
            m = min(16, self.a.spec.rows)
            product = logical(self.a)[:m, :k].astype(np.float64) @ b
            if self.acc:
                base = np.concatenate([base, logical(self.c)[1:m, :n].astype(np.float64)])
        out[:m, :n] = product
        if self.acc:
            out[:m, :n] += base
        if self.bias:
            bias = logical(self.bias_tile)[0].astype(np.float64)
            if self.target == "cpu":
                vr, vc = self.c.valid_shape
                out[:vr, :vc] += bias[:vc]
            else:
                out[:m, :n] += bias[:n]
        return out.astype(self.c.storage.dtype)

    def __repr__(self) -> str:
        return (f"{self.form} on {self.target}: M, K, N = {self.m}, {self.k}, {self.n}; "
                + "; ".join(f"{t.spec.describe()} valid {t.valid_shape}" for t in self.tiles))


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("form", FORMS)
def test_cube_forms_write_and_read_what_the_reference_does(form, target):
    rng = np.random.default_rng([SEED, FORMS.index(form), ["a2a3", "a5", "cpu"].index(target)])
    outcomes = {"refused": 0, "ran": 0}
    for _ in range(CASES):
        case = Case(form, target, rng)
        before = [t.storage.tobytes() for t in case.tiles]
        want = None if case.refused_by_model() else case.expected()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                getattr(ptoisa, form)(*case.tiles, target=target)
            except IllegalInstructionError as exc:
                assert want is None, f"refused, the model runs it: {exc}\n{case}"
                assert [t.storage.tobytes() for t in case.tiles] == before, f"a refused call moved bytes\n{case}"
                outcomes["refused"] += 1
                continue
            except PtoError as exc:
                raise AssertionError(f"{type(exc).__name__}: {exc}\n{case}") from exc
        assert want is not None, f"ran, the model refuses it\n{case}"
        got = logical(case.c)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), \
            f"{np.argwhere(got != want)[:4].tolist()}\n{case}"
        for tile, raw in zip(case.tiles[1:], before[1:]):
            assert tile.storage.tobytes() == raw, f"a source moved\n{case}"
        outcomes["ran"] += 1
    if not (form.startswith(("TMATMUL_MX", "TGEMV_MX")) and target == "a2a3"):
        assert outcomes["ran"] > 0, outcomes
