"""TMATMUL_ACC(cMatrix, aMatrix, bMatrix): the C++ API's third overload (include/pto/common/pto_instr.hpp, the
`TileRes& cMatrix` form; docs/isa/TMATMUL_ACC.md: cMatrix is read as C0 and C0 + A x B written back in place).
The NPU backends run it as TMATMUL_ACC_IMPL(c, c, a, b); the simulator has none (principle 6: the pages' meaning
on `cpu` too). Expected values: NumPy integer arithmetic on values whose float sums are exact, and the
four-tile call with cIn = cOut on copies. PTOAS has no text for it (PTOOps.td TMatmulAccOp: three ins)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import ptoisa
from ptoisa import BLayout, SLayout, Tile, TileType

TARGETS = ["a2a3", "a5", "cpu"]


def left(dtype, m, k, vm, vk):
    return Tile[TileType.Left, dtype, m, k, BLayout.ColMajor, vm, vk, SLayout.RowMajor]()


def right(dtype, k, n, vk, vn):
    return Tile[TileType.Right, dtype, k, n, BLayout.RowMajor, vk, vn, SLayout.ColMajor]()


def acc(dtype, m, n, vm=None, vn=None):
    return Tile[TileType.Acc, dtype, m, n, BLayout.ColMajor, vm or m, vn or n, SLayout.RowMajor, 1024]()


def copy(tile):
    made = type(tile)(tile.spec)
    made.storage[...] = tile.storage
    return made


def outcome(call, tiles):
    """The bytes of every tile after `call(*tiles)` and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*tiles)
    return [t.storage.tobytes() for t in tiles], [str(w.message) for w in caught]


# (A dtype, C dtype, tile sizes M x K x N, valid m, k, n)
CASES = [("float16", np.float32, (16, 32, 16), (16, 32, 16)),
         ("float16", np.float32, (32, 48, 32), (13, 45, 27)),
         ("float32", np.float32, (16, 16, 16), (16, 16, 16)),
         ("float32", np.float32, (32, 32, 32), (5, 19, 30)),
         ("bfloat16", np.float32, (16, 32, 16), (9, 32, 3)),
         ("int8", np.int32, (16, 64, 32), (16, 64, 32)),
         ("int8", np.int32, (32, 64, 32), (17, 40, 11))]


def operands(a_name, c_dtype, sizes, valid, seed):
    import ml_dtypes

    dtype = np.dtype(getattr(ml_dtypes, a_name, None) or a_name)
    (rows, inner, cols), (m, k, n) = sizes, valid
    rng = np.random.default_rng(seed)
    a, b, c = left(dtype, rows, inner, m, k), right(dtype, inner, cols, k, n), acc(c_dtype, rows, cols)
    x, y = rng.integers(-8, 9, (rows, inner)), rng.integers(-8, 9, (inner, cols))
    a.set_logical(x.astype(np.float32) if dtype.kind == "f" or dtype.kind == "V" else x)
    b.set_logical(y.astype(np.float32) if dtype.kind == "f" or dtype.kind == "V" else y)
    if c_dtype is np.int32:  # the largest int32 values: adding a positive product wraps
        start = rng.integers(2 ** 31 - 200, 2 ** 31, (rows, cols), dtype=np.int64).astype(np.int32)
    else:
        start = rng.integers(-1000, 1000, (rows, cols)).astype(np.float32)
    c.set_logical(start)
    return a, b, c, x, y, start


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("a_name", "c_dtype", "sizes", "valid"), CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_three_tile_form_adds_the_product_to_c_in_place(target, a_name, c_dtype, sizes, valid):
    """C[i, j] += sum_k A[i, k] B[k, j] for i < m, j < n (small integers: every float sum is exact; int32 sums
    near 2^31 wrap as C++'s int32 add does); C's other elements keep their bytes."""
    a, b, c, x, y, start = operands(a_name, c_dtype, sizes, valid, len(a_name) + sum(valid))
    m, k, n = valid
    want = start.copy()
    total = start[:m, :n].astype(np.int64) + x[:m, :k] @ y[:k, :n]
    if c_dtype is np.int32:
        assert (total > 2 ** 31 - 1).any()  # the case wraps somewhere
        want[:m, :n] = ((total + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    else:
        want[:m, :n] = total.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptoisa.TMATMUL_ACC(c, a, b, target=target)
    assert c.data.tobytes() == want.tobytes()


ONE_ROW = CASES + [("float16", np.float32, (16, 32, 16), (1, 20, 9)), ("int8", np.int32, (32, 64, 32), (1, 64, 5))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("a_name", "c_dtype", "sizes", "valid"), ONE_ROW,
                         ids=[f"{c[0]}-{c[3]}" for c in ONE_ROW])
def test_three_tile_form_is_the_four_tile_form_with_cin_cout(target, a_name, c_dtype, sizes, valid):
    """On copies: TMATMUL_ACC(c, a, b) and TMATMUL_ACC(c, c, a, b) leave the same bytes in all three tiles and
    give the same warnings (random bit patterns in A and B: NaNs, infinities, subnormals), called twice (the
    compiled call, then the cached one) and by keyword; one valid row too (a2a3's erratum
    tmatmul_m1_sixteen_rows writes 16 rows and names it, for both forms alike)."""
    a, b, c, *_ = operands(a_name, c_dtype, sizes, valid, 7 + sum(valid))
    rng = np.random.default_rng(sum(sizes))
    for tile in (a, b, c):
        tile.storage.view(np.uint8)[...] = rng.integers(0, 256, tile.spec.nbytes, dtype=np.uint8)
    def twice(call):  # the compiled call, then the cached one, on copies: each call's bytes and warnings
        tiles = [copy(t) for t in (c, a, b)]
        return [outcome(call, tiles) for _ in range(2)]

    want = twice(lambda cc, aa, bb: ptoisa.TMATMUL_ACC(cc, cc, aa, bb, target=target))
    assert twice(lambda cc, aa, bb: ptoisa.TMATMUL_ACC(cc, aa, bb, target=target)) == want
    assert twice(lambda cc, aa, bb: ptoisa.TMATMUL_ACC(cc, bMatrix=bb, aMatrix=aa, target=target)) == want
    assert twice(lambda cc, aa, bb: ptoisa.TMATMUL_ACC(cMatrix=cc, aMatrix=aa, bMatrix=bb, target=target)) == want


def test_keywords_choose_the_form_they_name():
    """Keywords alone, or after cMatrix given positionally, select the three-tile form; the four-tile form's
    names select it; a keyword neither form has is refused with both signatures, before any byte changes."""
    a, b, c, x, y, start = operands("float16", np.float32, (16, 16, 16), (16, 16, 16), 1)
    product = (x @ y).astype(np.float32)
    ptoisa.TMATMUL_ACC(cMatrix=c, aMatrix=a, bMatrix=b, target="cpu")
    assert np.array_equal(c.data, start + product)
    ptoisa.TMATMUL_ACC(c, aMatrix=a, bMatrix=b, target="a5")
    assert np.array_equal(c.data, start + 2 * product)
    ptoisa.TMATMUL_ACC(cOutMatrix=c, cInMatrix=c, aMatrix=a, bMatrix=b, target="a2a3")
    assert np.array_equal(c.data, start + 3 * product)
    before = c.tobytes()
    with pytest.raises(ptoisa.PtoError, match=r"no parameter 'cIn'.*TMATMUL_ACC\(cMatrix, aMatrix, bMatrix"):
        ptoisa.TMATMUL_ACC(c, cIn=c, aMatrix=a, bMatrix=b, target="cpu")
    assert c.tobytes() == before


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", ["C type", "C location", "Left not Left", "Right not Right", "shapes", "m zero"])
def test_three_tile_refusals_change_nothing(target, case):
    """The four-tile form's checks, on the three-tile call: the message names the operand; no byte changes."""
    a, b, c = left(np.float16, 16, 16, 16, 16), right(np.float16, 16, 16, 16, 16), acc(np.float32, 16, 16)
    args, role = {"C type": ((acc(np.int32, 16, 16), a, b), "cMatrix"),
                  "C location": ((Tile[TileType.Vec, np.float32, 16, 16](), a, b), "cMatrix"),
                  "Left not Left": ((c, Tile[TileType.Mat, np.float16, 16, 16](), b), "aMatrix"),
                  "Right not Right": ((c, a, Tile[TileType.Left, np.float16, 16, 16, BLayout.ColMajor, 16, 16,
                                                  SLayout.RowMajor]()), "bMatrix"),
                  "shapes": ((c, a, right(np.float16, 32, 16, 32, 16)), "cMatrix"),
                  "m zero": ((c, left(np.float16, 16, 16, 0, 16), b), "aMatrix")}[case]
    for i, tile in enumerate(args):
        tile.storage.view(np.uint8)[...] = np.arange(tile.spec.nbytes, dtype=np.int64) * (i + 3) % 251
    before = [t.tobytes() for t in args]
    with pytest.raises(ptoisa.PtoError, match=rf"TMATMUL_ACC on {target}: {role}"):
        ptoisa.TMATMUL_ACC(*args, target=target)
    assert [t.tobytes() for t in args] == before


_L = ("!pto.tile_buf<loc=left, dtype=f16, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
      "slayout=row_major, fractal=512, pad=0>")
_R = ("!pto.tile_buf<loc=right, dtype=f16, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, "
      "slayout=col_major, fractal=512, pad=0>")
_C = ("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
      "slayout=row_major, fractal=1024, pad=0>")


@pytest.mark.parametrize(("body", "col"), [
    (f"pto.tmatmul.acc ins(%a, %b : {_L}, {_R}) outs(%c : {_C})", 24),
    (f"%d = pto.tmatmul.acc %a, %b : ({_L}, {_R}) -> {_C}", 26)], ids=["dps", "ssa"])
def test_the_text_has_no_three_tile_form(tmp_path: Path, capsys, body, col):
    """`pto.tmatmul.acc` takes PTOAS's three ins only: two ins (the C++ three-tile overload) are refused at the
    operand list, naming the overload and the text to write; the three-ins form with %c in and out checks."""
    from ptoisa.cli.main import main

    def check(line: str) -> tuple[int, str]:
        path = tmp_path / "k.pto"
        path.write_text(f"module {{\n  func.func @k(%a: {_L}, %b: {_R}, %c: {_C}) {{\n    {line}\n    return\n"
                        "  }\n}\n")
        status = main(["check", str(path), "--target", "cpu"])
        return status, capsys.readouterr().out

    status, out = check(body)
    assert status != 0
    assert f"k.pto:3:{col}: error: pto.tmatmul.acc " in out
    assert "expects 3 operands, got 2: the C++ overload TMATMUL_ACC(cMatrix, aMatrix, bMatrix, *events) has no " \
           "text form (PTOAS spells only pto.tmatmul.acc ins(%cInMatrix, %aMatrix, %bMatrix) outs(%cOutMatrix))" in out
    status, out = check(f"pto.tmatmul.acc ins(%c, %a, %b : {_C}, {_L}, {_R}) outs(%c : {_C})")
    assert status == 0, out


def test_the_docs_and_targets_show_the_form(capsys):
    """help(), `ptoisa targets --instructions` and docs/instructions.md list the three-tile overload."""
    from ptoisa.cli.main import main

    assert "TMATMUL_ACC(cMatrix, aMatrix, bMatrix, *events)" in ptoisa.TMATMUL_ACC.__doc__
    main(["targets", "cpu", "--instructions"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("TMATMUL_ACC:"))
    assert "cMatrix: int32, float" in line
    docs = (Path(__file__).resolve().parents[2] / "docs" / "instructions.md").read_text()
    assert "`TMATMUL_ACC(cMatrix, aMatrix, bMatrix, *events)`" in docs
