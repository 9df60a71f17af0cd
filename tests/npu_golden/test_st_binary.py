"""The NPU hardware tests of the element-wise tile-tile instructions TADD TSUB TMUL TDIV TMAX TMIN
(tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

A2/A3 kernels: three Tile<Vec, T, TRows, TCols, RowMajor, -1, -1> tiles with the configuration's valid shape, at
0x0, 0x10000, 0x20000 (TADD, TSUB) or 0x0, 0x4000, 0x8000 (TMUL, TDIV, TMAX, TMIN; TMAX/TMIN's second half of the
configurations declare PadValue::Max / PadValue::Min). A5 kernels: dst, src0 and src1 each have their own tile
shape, all with the valid shape vRows x vCols, at 0x0 (src0), 0x10000 (src1), 0x20000 (dst). The inputs are drawn
as each gen_data.py draws them (np.random.seed(19), then the cases in its order, so the data are gen_data.py's
own); the golden is NumPy's operation on the element type over the valid region.

Every test of these directories compares with ResultCmp(golden, output, 0.001) (test_common.h: a relative and
absolute tolerance of 1e-3, 0.1 % of the elements may miss); the goldens here are computed in the element type
itself, so ptoisa is held to the exact bytes. Configurations ptoisa does not model: the A5 int64/uint64 ones
(64-bit integers are outside the contract, DECISIONS 25) and TDIV's `hp` (DivAlgorithm::HIGH_PRECISION)
configurations (the precision template argument is not part of ptoisa's TDIV).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import PadValue

from _st import load, same_bytes, vec

UFUNC = {"TADD": np.add, "TSUB": np.subtract, "TMUL": np.multiply, "TMAX": np.maximum, "TMIN": np.minimum}
I16, I32, F16, F32, I64, U64 = np.int16, np.int32, np.float16, np.float32, np.int64, np.uint64

# A2/A3, per op: (dtype, tile rows, tile cols, valid rows, valid cols[, pad]) in gen_data.py's order
A2A3 = {
    "TADD": [(F32, 64, 64, 64, 64), (I32, 64, 64, 64, 64), (I16, 64, 64, 64, 64), (F16, 16, 256, 16, 256)],
    "TSUB": [(F32, 64, 64, 64, 64), (I32, 64, 64, 64, 64), (F16, 64, 64, 64, 64), (I16, 64, 64, 64, 64)],
    "TMUL": [(F32, 64, 64, 64, 64), (I32, 64, 64, 64, 64), (F16, 16, 16, 16, 16), (I16, 64, 64, 64, 64),
             (F16, 64, 64, 61, 61), (I32, 64, 32, 60, 30), (I32, 32, 32, 32, 32)],
    "TDIV": [(F32, 64, 64, 64, 64), (F16, 64, 64, 64, 64), (F16, 64, 64, 61, 61), (F32, 64, 32, 60, 30),
             (F32, 32, 32, 32, 32)],
    "TMAX": [(F32, 64, 64, 64, 64), (I32, 64, 64, 64, 64), (I16, 64, 64, 64, 64), (F16, 64, 64, 64, 64),
             (F32, 64, 64, 60, 60, PadValue.Max), (I32, 64, 64, 60, 60, PadValue.Max),
             (F16, 2, 4096, 1, 3600, PadValue.Max), (I16, 20, 512, 16, 200, PadValue.Max)],
    "TMIN": [(F32, 64, 64, 64, 64), (I32, 64, 64, 64, 64), (I16, 64, 64, 64, 64), (F16, 64, 64, 64, 64),
             (F32, 64, 64, 60, 60, PadValue.Min), (I32, 64, 64, 60, 60, PadValue.Min),
             (F16, 2, 4096, 1, 3600, PadValue.Min), (I16, 20, 512, 16, 200, PadValue.Min)],
}
A2A3_ADDRS = {"TADD": (0x0, 0x10000, 0x20000), "TSUB": (0x0, 0x10000, 0x20000)}  # others: 0x0, 0x4000, 0x8000

# A5: (dtype, dst R, C, src0 R, C, src1 R, C, valid rows, cols[, "hp"]) in gen_data.py's order
_A5_COMMON = [
    (F32, 64, 64, 64, 64, 64, 64, 64, 64), (I32, 64, 64, 64, 64, 64, 64, 64, 64),
    (I16, 64, 64, 64, 64, 64, 64, 64, 64), (F16, 16, 256, 16, 256, 16, 256, 16, 256),
    (F16, 16, 64, 16, 128, 16, 128, 16, 64), (F32, 16, 32, 16, 64, 16, 32, 16, 32),
    (I16, 32, 128, 32, 128, 32, 256, 32, 128), (I32, 16, 32, 16, 64, 16, 32, 16, 32),
    (F16, 16, 64, 16, 128, 16, 128, 16, 63), (F32, 16, 32, 16, 64, 16, 32, 16, 31),
    (I16, 32, 128, 32, 128, 32, 256, 32, 127), (I32, 16, 32, 16, 64, 16, 32, 16, 31),
]
_A5_I64 = [(I64, 4, 16, 4, 16, 4, 16, 4, 16), (U64, 4, 16, 4, 16, 4, 16, 4, 16)]
A5 = {
    "TADD": [(F32, 64, 128, 64, 128, 64, 128, 64, 128), _A5_COMMON[0], _A5_COMMON[1],
             (I64, 4, 16, 4, 16, 4, 16, 4, 15), (U64, 4, 16, 4, 16, 4, 16, 4, 15),
             (I64, 32, 32, 32, 32, 32, 32, 32, 32), (I64, 1, 1024, 1, 1024, 1, 1024, 1, 1024),
             *_A5_COMMON[2:], (F16, 2, 128, 2, 128, 2, 128, 1, 106)],
    "TSUB": [*_A5_COMMON, *_A5_I64],
    "TMUL": [*_A5_COMMON, *_A5_I64],
    "TMAX": [*_A5_COMMON, *_A5_I64],
    "TMIN": [*_A5_COMMON, *_A5_I64],
    "TDIV": [*_A5_COMMON, (F32, 2, 16, 2, 16, 2, 16, 2, 16, "hp"), (F16, 2, 32, 2, 32, 2, 32, 2, 32, "hp"),
             *_A5_I64],
}
# gen_data.py of A5 TADD draws these two from their own generator, not from the seeded global one
_A5_TADD_OWN_RNG = {(I64, 32, 32, 32, 32, 32, 32, 32, 32), (I64, 1, 1024, 1, 1024, 1, 1024, 1, 1024)}


def _a2a3_draw(op: str, dtype, rows: int, cols: int, v_rows: int, v_cols: int) -> tuple[np.ndarray, np.ndarray]:
    if op in ("TMAX", "TMIN"):  # a valid-shaped array, over a wide range
        shape = (v_rows, v_cols)
        if np.dtype(dtype).kind == "f":
            top = 30_000 if dtype == F16 else 2_000_000_000
            return tuple(np.random.uniform(-top, top, size=shape).astype(dtype) for _ in range(2))
        top = 30_000 if dtype == I16 else 2_000_000_000
        return tuple(np.random.randint(-top, top, size=shape).astype(dtype) for _ in range(2))
    shape = (rows, cols) if op in ("TADD", "TSUB") else (v_rows, v_cols)
    return tuple(np.random.randint(1, 10, size=shape).astype(dtype) for _ in range(2))


def _a5_draw(op: str, config) -> tuple[np.ndarray, np.ndarray] | None:
    dtype, _, _, r0, c0, r1, c1 = config[:7]
    if op == "TADD" and config in _A5_TADD_OWN_RNG:
        return None
    shapes = ((r0, c0), (r1, c1))
    if op != "TDIV":
        return tuple(np.random.randint(1, 10, size=shape).astype(dtype) for shape in shapes)
    if dtype in (I64, U64):
        return tuple(np.random.randint(1, top, size=shape).astype(dtype) for top, shape in zip((1000, 20), shapes))
    if np.dtype(dtype).kind == "i":
        info = np.iinfo(dtype)
        return tuple(np.random.randint(info.min, info.max, size=shape).astype(dtype) for shape in shapes)
    info = np.finfo(dtype)
    with np.errstate(over="ignore"):
        return tuple(np.random.uniform(low=info.min, high=info.max, size=shape).astype(dtype) for shape in shapes)


def _inputs() -> dict:
    """Every gen_data.py run, in its order: {(target, op, index): (input1, input2)}."""
    out = {}
    for op, configs in A2A3.items():
        np.random.seed(19)
        for index, config in enumerate(configs):
            out["a2a3", op, index] = _a2a3_draw(op, *config[:5])
    for op, configs in A5.items():
        np.random.seed(19)
        for index, config in enumerate(configs):
            out["a5", op, index] = _a5_draw(op, config)
    return out


INPUTS = _inputs()


def _golden(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op != "TDIV":
            return UFUNC[op](a, b).astype(a.dtype)
        return (a / b).astype(a.dtype)  # gen_data.py: true division (integers: truncated by the cast)


def _run(op: str, dst, src0, src1) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no erratum may show in these configurations
        getattr(ptoisa, op)(dst, src0, src1)


def _ids(configs, width: int) -> list[str]:
    def extra(x) -> str:
        return f"-{getattr(x, 'name', x)}"

    return [f"{np.dtype(c[0]).name}-" + "x".join(map(str, c[1:width])) + "".join(map(extra, c[width:]))
            for c in configs]


A2A3_CASES = [(op, i) for op, configs in A2A3.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", A2A3_CASES,
                         ids=[f"{op}-{_ids([A2A3[op][i]], 5)[0]}" for op, i in A2A3_CASES])
def test_a2a3_configuration_reproduces_its_golden(op, index):
    dtype, rows, cols, v_rows, v_cols, *pad = A2A3[op][index]
    a, b = (x[:v_rows, :v_cols] for x in INPUTS["a2a3", op, index])
    addrs = A2A3_ADDRS.get(op, (0x0, 0x4000, 0x8000))
    with ptoisa.target("a2a3"):
        src0, src1, dst = (vec(dtype, rows, cols, v_rows, v_cols, addr=addr, pad=pad[0] if pad else None)
                           for addr in addrs)
        load(src0, a)
        load(src1, b)
        _run(op, dst, src0, src1)
    assert same_bytes(_golden(op, a, b), dst.valid)


A5_CASES = [(op, i) for op, configs in A5.items() for i, c in enumerate(configs)
            if c[0] not in (I64, U64) and c[9:] != ("hp",)]


@pytest.mark.parametrize("op,index", A5_CASES, ids=[f"{op}-{_ids([A5[op][i]], 9)[0]}" for op, i in A5_CASES])
def test_a5_configuration_reproduces_its_golden(op, index):
    dtype, d_r, d_c, r0, c0, r1, c1, v_rows, v_cols = A5[op][index][:9]
    a, b = (x[:v_rows, :v_cols] for x in INPUTS["a5", op, index])
    with ptoisa.target("a5"):
        src0 = vec(dtype, r0, c0, v_rows, v_cols, addr=0x0)
        src1 = vec(dtype, r1, c1, v_rows, v_cols, addr=0x10000)
        dst = vec(dtype, d_r, d_c, v_rows, v_cols, addr=0x20000)
        load(src0, a)
        load(src1, b)
        _run(op, dst, src0, src1)
    assert same_bytes(_golden(op, a, b), dst.valid)
