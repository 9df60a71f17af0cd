"""The NPU hardware tests of the column-broadcast binary instructions TCOLEXPANDADD TCOLEXPANDSUB TCOLEXPANDMUL
TCOLEXPANDDIV TCOLEXPANDMAX TCOLEXPANDMIN TCOLEXPANDEXPDIF (tests/npu/{a2a3,a5}/src/st/testcase/tcolexpand<op> in
hw-native-sys/pto-isa), rebuilt.

Both targets' kernels (<T, dstRow, dstCol, src1Row, src1Col>): src0 and dst are dstRow x dstCol tiles, src1 a
1 x dstCol tile, all with their whole shape valid (dynamic valid shapes), at 0x0 (src0), 0x10000 (src1) and
0x20000 (dst). dst[i, j] = src0[i, j] op src1[0, j]; EXPDIF is exp(src0 - src1). Inputs are drawn as each
gen_data.py draws them (seed 2025, its cases in order).

The reference compares with ResultCmp (eps 1e-3). The goldens of add, sub, mul, div, max and min are NumPy's
operation in the element type, correctly rounded like the NPU's vector ops: held to the exact bytes. EXPDIF's
golden is NumPy's exp (float32 SIMD, or float32 then rounded for half), not the NPU's vexp: compared as the
reference compares.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import expand_golden, result_cmp, same_bytes, vec

F32, F16, I32, I16, U32, U16 = np.float32, np.float16, np.int32, np.int16, np.uint32, np.uint16

# (dtype, dst rows, dst cols) per op, in gen_data.py's order (src1 is 1 x dst cols throughout)
_A2A3_COMMON = [(F32, 16, 128), (F32, 32, 32), (F16, 4, 256), (F16, 10, 64), (I32, 8, 32), (I16, 8, 32)]
A2A3 = {
    "add": _A2A3_COMMON, "mul": _A2A3_COMMON, "max": _A2A3_COMMON, "min": _A2A3_COMMON,
    "sub": [(F32, 6, 128), (F32, 18, 32), (F16, 10, 256), (F16, 12, 64), (I32, 8, 32), (I16, 8, 32)],
    "div": [(F32, 32, 64), (F32, 8, 32), (F16, 16, 64), (F16, 4, 128)],
    "expdif": [(F32, 32, 16), (F32, 16, 32), (F16, 32, 32), (F16, 16, 128)],
}
_A5_COMMON = [(F32, 16, 128), (F32, 32, 32), (F16, 4, 256), (F16, 10, 64), (I32, 16, 32), (I16, 16, 64)]
A5 = {
    "add": [*_A5_COMMON, (F32, 1, 128)], "max": _A5_COMMON, "min": _A5_COMMON,
    "sub": [(F32, 6, 128), (F32, 18, 32), (F16, 10, 256), (F16, 12, 64), (I32, 16, 32), (I16, 16, 64)],
    "mul": [*_A5_COMMON, (U32, 16, 32), (U16, 16, 64)],
    "div": [(F32, 32, 64), (F32, 8, 32), (F16, 16, 64), (F16, 4, 128), (F32, 40, 32), (F16, 16, 128), (F32, 20, 64),
            (I32, 16, 32), (I16, 16, 64), (U32, 16, 32), (U16, 8, 64)],
    "expdif": [(F32, 32, 16), (F32, 16, 32), (F16, 32, 32), (F16, 16, 128)],
}


def _draw(target: str, op: str, dtype, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    shapes = ((rows, cols), (1, cols))
    if np.dtype(dtype).kind in "iu":
        return tuple(np.random.randint(1, 10, size=shape).astype(dtype) for shape in shapes)
    if op == "expdif" and target == "a2a3" and dtype == F16:
        return tuple(np.random.uniform(low=-5, high=5, size=shape).astype(dtype) for shape in shapes)
    if op in ("div", "expdif"):
        return (np.random.uniform(low=-255, high=255, size=shapes[0]).astype(dtype),
                np.random.uniform(low=1, high=255, size=shapes[1]).astype(dtype))
    return tuple(np.random.uniform(low=-10, high=10, size=shape).astype(dtype) for shape in shapes)


def _inputs() -> dict:
    out = {}
    for target, table in (("a2a3", A2A3), ("a5", A5)):
        for op, configs in table.items():
            np.random.seed(2025)
            for index, config in enumerate(configs):
                out[target, op, index] = _draw(target, op, *config)
    return out


INPUTS = _inputs()


CASES = [(target, op, i) for target, table in (("a2a3", A2A3), ("a5", A5)) for op, configs in table.items()
         for i in range(len(configs))]


@pytest.mark.parametrize("target,op,index", CASES, ids=[
    f"{t}-TCOLEXPAND{op.upper()}-{np.dtype(c[0]).name}-{c[1]}x{c[2]}"
    for t, op, i in CASES for c in [(A2A3 if t == "a2a3" else A5)[op][i]]])
def test_configuration_reproduces_its_golden(target, op, index):
    dtype, rows, cols = (A2A3 if target == "a2a3" else A5)[op][index]
    a, b = INPUTS[target, op, index]
    with ptoisa.target(target):
        src0 = vec(dtype, rows, cols, addr=0x0)
        src1 = vec(dtype, 1, cols, addr=0x10000)
        dst = vec(dtype, rows, cols, addr=0x20000)
        src0.valid[...] = a
        src1.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, f"TCOLEXPAND{op.upper()}")(dst, src0, src1)
    want = expand_golden(op, a, b)
    if op == "expdif":
        assert result_cmp(want, dst.valid)
    else:
        assert same_bytes(want.astype(dtype), dst.valid)
