"""The NPU hardware tests of the bitwise instructions TAND TOR TXOR TSHL TSHR and their tile-scalar forms TANDS TORS
TXORS TSHLS TSHRS (tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

Kernels: three Tile<Vec, T, TRows, TCols, RowMajor, -1, -1> tiles with the configuration's valid shape at 0x0
(src0), 0x10000 (src1), 0x20000 (dst), loaded from contiguous valid-shaped data. A2/A3's TXOR kernel instead
gives dst, src0 and src1 their own tile shapes, places dst at 0x0 with src0, src1 and a dst-shaped tmp after it,
and calls TXOR(dst, src0, src1, tmp). Inputs as gen_data.py draws them (seed 19, cases in order): A2/A3 over each
type's range (TAND, TOR, TXOR), A5 in [1, 16383); the shifts draw values in [-100, 100) and counts in [0, 32), both
cast to the element type. Goldens are NumPy's operators (a shift by the type's width or more gives 0, or -1 for a
negative value shifted right): the reference compares with ResultCmp, ptoisa is held to the exact bytes. A5's
int64/uint64 shift configurations are not modelled (DECISIONS 25).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

I8, U8, I16, U16, I32, U32 = np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32
OPS = {"TAND": np.bitwise_and, "TOR": np.bitwise_or, "TXOR": np.bitwise_xor, "TSHL": np.left_shift,
       "TSHR": np.right_shift}

# (dtype, tile rows, tile cols, valid rows, valid cols)
_SHIFTS = [(U16, 64, 64, 64, 64), (U16, 64, 64, 63, 63), (U16, 1, 16384, 1, 16384), (U16, 2048, 16, 2048, 16),
           (U8, 32, 32, 32, 32), (U32, 8, 8, 8, 8), (I8, 32, 32, 32, 32), (I16, 16, 16, 16, 16), (I32, 8, 8, 8, 8)]
_A2A3_LOGIC = [(U16, 64, 64, 64, 64), (U16, 64, 64, 63, 63), (U16, 1, 16384, 1, 16384), (U16, 2048, 16, 2048, 16),
               (I16, 64, 64, 64, 64)]
_A2A3_LOGIC_TAIL = [(U8, 64, 64, 63, 63), (I8, 64, 64, 63, 63), (U32, 64, 64, 64, 64), (U32, 64, 64, 61, 61),
                    (U32, 1, 16384, 1, 16384), (U32, 1024, 16, 1024, 16)]
CONFIGS = {
    ("a2a3", "TAND"): [*_A2A3_LOGIC, (U16, 64, 64, 64, 64), *_A2A3_LOGIC_TAIL],
    ("a2a3", "TOR"): [*_A2A3_LOGIC, *_A2A3_LOGIC_TAIL],
    ("a2a3", "TSHL"): _SHIFTS, ("a2a3", "TSHR"): _SHIFTS,
    ("a5", "TAND"): [*_SHIFTS, (I16, 16, 16, 16, 16), (I32, 8, 8, 8, 8)],
    ("a5", "TOR"): _SHIFTS, ("a5", "TXOR"): _SHIFTS, ("a5", "TSHL"): _SHIFTS, ("a5", "TSHR"): _SHIFTS,
}
# A2/A3 TXOR: (dtype, dst tile, src0 tile, src1 tile, valid)
A2A3_TXOR = [
    (I16, (64, 64), (64, 64), (64, 64), (64, 64)), (I16, (32, 128), (32, 128), (32, 256), (32, 128)),
    (I16, (32, 128), (32, 128), (32, 256), (32, 127)), (U16, (64, 64), (64, 64), (64, 64), (64, 64)),
    (U16, (32, 128), (32, 128), (32, 256), (32, 128)), (U16, (32, 128), (32, 128), (32, 256), (32, 127)),
    (I8, (32, 128), (32, 128), (32, 256), (32, 127)), (U8, (32, 128), (32, 128), (32, 256), (32, 127)),
    (I32, (32, 128), (32, 128), (32, 256), (32, 127)), (U32, (32, 128), (32, 128), (32, 256), (32, 127)),
]


def _draw(target: str, op: str, dtype, count: int) -> tuple[np.ndarray, np.ndarray]:
    if op in ("TSHL", "TSHR"):
        return (np.random.randint(-100, 100, size=count).astype(dtype),
                np.random.randint(0, 32, size=count).astype(dtype))
    if target == "a5":
        return tuple(np.random.randint(1, 16383, size=count).astype(dtype) for _ in range(2))
    info = np.iinfo(dtype)
    return tuple(np.random.randint(info.min, info.max, size=count, dtype=np.int64).astype(dtype) for _ in range(2))


def _inputs() -> dict:
    out = {}
    for (target, op), configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, _, _, v_rows, v_cols) in enumerate(configs):
            out[target, op, index] = tuple(x.reshape(v_rows, v_cols) for x in _draw(target, op, dtype,
                                                                                      v_rows * v_cols))
    np.random.seed(19)
    for index, (dtype, _, src0, src1, _) in enumerate(A2A3_TXOR):
        info = np.iinfo(dtype)
        out["a2a3", "TXOR", index] = tuple(np.random.randint(info.min, info.max, size=shape, dtype=np.int64)
                                           .astype(dtype) for shape in (src0, src1))
    return out


INPUTS = _inputs()
CASES = [(target, op, i) for (target, op), configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,op,index", CASES, ids=[
    f"{t}-{op}-{np.dtype(c[0]).name}-{c[1]}x{c[2]}" + ("" if c[1:3] == c[3:] else f"-v{c[3]}x{c[4]}")
    for t, op, i in CASES for c in [CONFIGS[t, op][i]]])
def test_configuration_reproduces_its_golden(target, op, index):
    dtype, rows, cols, v_rows, v_cols = CONFIGS[target, op][index]
    a, b = INPUTS[target, op, index]
    with ptoisa.target(target):
        src0, src1, dst = (vec(dtype, rows, cols, v_rows, v_cols, addr=addr) for addr in (0x0, 0x10000, 0x20000))
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src0, src1)
    assert same_bytes(OPS[op](a, b), dst.valid)


@pytest.mark.parametrize("index", range(len(A2A3_TXOR)), ids=[
    f"{np.dtype(c[0]).name}-{'x'.join(map(str, c[1]))}-src1{'x'.join(map(str, c[3]))}-v{c[4][0]}x{c[4][1]}"
    for c in A2A3_TXOR])
def test_a2a3_txor_configuration_reproduces_its_golden(index):
    dtype, dst_shape, src0_shape, src1_shape, (v_rows, v_cols) = A2A3_TXOR[index]
    a, b = (x[:v_rows, :v_cols] for x in INPUTS["a2a3", "TXOR", index])
    item = np.dtype(dtype).itemsize
    sizes = [r * c * item for r, c in (dst_shape, src0_shape, src1_shape)]
    with ptoisa.target("a2a3"):
        dst = vec(dtype, *dst_shape, v_rows, v_cols, addr=0x0)
        src0 = vec(dtype, *src0_shape, v_rows, v_cols, addr=sizes[0])
        src1 = vec(dtype, *src1_shape, v_rows, v_cols, addr=sizes[0] + sizes[1])
        tmp = vec(dtype, *dst_shape, v_rows, v_cols, addr=sum(sizes))
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TXOR(dst, src0, src1, tmp)
    assert same_bytes(a ^ b, dst.valid)


# --- tile-scalar forms: TANDS TORS TXORS TSHLS TSHRS -------------------------------------------------------------
# A2/A3 (all five) and A5 TSHLS/TSHRS: (dtype, dst tile, src tile, valid), src at 0x0 and dst at 0x20000 (A2/A3
# TXORS: dst at 0x0, src after it, a dst-shaped tmp after that, TXORS(dst, src, scalar, tmp)); gen_data.py draws
# src over the type's range and the scalar over it too (shifts: a count in [1, 7)). A5 TANDS/TORS/TXORS: one
# tile shape (TXORS passes dst as its unused tmp), values and scalar in [1, 16383). Seed 19 throughout.
_SCALAR_SHAPES = [((64, 64), (64, 64), (64, 64)), ((32, 128), (32, 128), (32, 128)),
                  ((32, 112), (32, 128), (32, 111))]
_A2A3_SCALAR_LOGIC = [(t, *shape) for t in (I16, U16, I32, U32) for shape in _SCALAR_SHAPES]
_SCALAR_SHIFT = [(t, *shape) for t in (I16, U16) for shape in _SCALAR_SHAPES]
SCALAR_CONFIGS = {
    ("a2a3", "TANDS"): _A2A3_SCALAR_LOGIC, ("a2a3", "TORS"): _A2A3_SCALAR_LOGIC,
    ("a2a3", "TXORS"): _A2A3_SCALAR_LOGIC, ("a2a3", "TSHLS"): _SCALAR_SHIFT, ("a2a3", "TSHRS"): _SCALAR_SHIFT,
    ("a5", "TSHLS"): [*_SCALAR_SHIFT, (U16, (1, 112), (1, 128), (1, 111))],
    ("a5", "TSHRS"): [*_SCALAR_SHIFT, (U16, (1, 112), (1, 128), (1, 111))],
    **{("a5", op): [(t, (r, c), (r, c), (vr, vc)) for t, r, c, vr, vc in
                    [*_SHIFTS, (I32, 1, 8, 1, 8)]] for op in ("TANDS", "TORS", "TXORS")},
}
SCALAR_OPS = {"TANDS": np.bitwise_and, "TORS": np.bitwise_or, "TXORS": np.bitwise_xor, "TSHLS": np.left_shift,
              "TSHRS": np.right_shift}


def _scalar_inputs() -> dict:
    out = {}
    for (target, op), configs in SCALAR_CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, _, src_shape, valid) in enumerate(configs):
            info = np.iinfo(dtype)
            if target == "a5" and op in ("TANDS", "TORS", "TXORS"):
                x = np.random.randint(1, 16383, size=valid).astype(dtype)
                s = np.random.randint(1, 16383, size=(1, 1)).astype(dtype)
            else:
                x = np.random.randint(info.min, info.max, size=src_shape, dtype=np.int64).astype(dtype)
                if op in ("TSHLS", "TSHRS"):
                    s = np.random.randint(1, 7, size=[1, 1]).astype(dtype)
                else:
                    s = np.random.randint(info.min, info.max, size=[1, 1], dtype=np.int64).astype(dtype)
            out[target, op, index] = x[:valid[0], :valid[1]], s[0, 0]
    return out


SCALAR_INPUTS = _scalar_inputs()
SCALAR_CASES = [(target, op, i) for (target, op), configs in SCALAR_CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,op,index", SCALAR_CASES, ids=[
    f"{t}-{op}-{np.dtype(c[0]).name}-{'x'.join(map(str, c[2]))}-v{c[3][0]}x{c[3][1]}"
    for t, op, i in SCALAR_CASES for c in [SCALAR_CONFIGS[t, op][i]]])
def test_scalar_configuration_reproduces_its_golden(target, op, index):
    dtype, dst_shape, src_shape, (v_rows, v_cols) = SCALAR_CONFIGS[target, op][index]
    x, s = SCALAR_INPUTS[target, op, index]
    item = np.dtype(dtype).itemsize
    with ptoisa.target(target):
        extra = []
        if target == "a2a3" and op == "TXORS":
            dst = vec(dtype, *dst_shape, v_rows, v_cols, addr=0x0)
            src = vec(dtype, *src_shape, v_rows, v_cols, addr=dst_shape[0] * dst_shape[1] * item)
            extra.append(vec(dtype, *dst_shape, v_rows, v_cols,
                             addr=(dst_shape[0] * dst_shape[1] + src_shape[0] * src_shape[1]) * item))
        else:
            src = vec(dtype, *src_shape, v_rows, v_cols, addr=0x0)
            dst = vec(dtype, *dst_shape, v_rows, v_cols, addr=0x20000)
            if op == "TXORS":
                extra.append(dst)
        src.valid[...] = x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src, s, *extra)
    assert same_bytes(SCALAR_OPS[op](x, s).astype(dtype), dst.valid)
