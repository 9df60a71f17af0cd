"""The NPU hardware tests of TAXPY (tests/npu/{a2a3,a5}/src/st/testcase/taxpy in hw-native-sys/pto-isa), rebuilt.

The kernels load dst (valid vRows x vCols) with input1 and src0 with input2, then call TAXPY(dst, src0, (T)scalar):
dst = dst + src0 * scalar, the scalar passed as a float (gen_data.py writes it as float32) and converted to the
source type. src0 at 0x0, dst at 0x10000 (A2/A3) or 0x20000 (A5); A2/A3's mixed configurations have a float dst
and a half src0. gen_data.py (seed 19) draws both inputs in [-100, 100) and the scalar in [-8, 8). Its golden is
input1 + input2 * scalar in the destination type (A2/A3: two roundings through NumPy) or from float64 (A5: one
rounding), while the backend's vaxpy/vmla rounds as the hardware does: compared exactly where they agree and
otherwise as the reference compares (ResultCmp, eps 1e-3).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import result_cmp, same_bytes, vec

F32, F16 = np.float32, np.float16
# (dst dtype, src dtype, tile rows, tile cols, valid rows, valid cols)
CONFIGS = {
    "a2a3": [(F16, F16, 64, 64, 64, 64), (F16, F16, 64, 64, 63, 63), (F16, F16, 1, 16384, 1, 16384),
             (F16, F16, 2048, 16, 2048, 16), (F32, F32, 64, 64, 64, 64), (F32, F32, 64, 64, 63, 63),
             (F32, F16, 64, 64, 63, 63), (F32, F16, 4, 1024, 4, 1023), (F32, F16, 256, 16, 256, 15)],
    "a5": [(F16, F16, 64, 64, 64, 64), (F16, F16, 64, 64, 63, 63), (F16, F16, 1, 16384, 1, 16384),
           (F16, F16, 2048, 16, 2048, 16), (F32, F32, 8, 8, 8, 8), (F32, F32, 16, 16, 15, 15)],
}
EXACT = {}


def _inputs() -> dict:
    out = {}
    for target, configs in CONFIGS.items():
        np.random.seed(19)
        for index, (d_type, s_type, _, _, vr, vc) in enumerate(configs):
            a = np.random.uniform(-100, 100, size=vr * vc).astype(d_type).reshape(vr, vc)
            b = np.random.uniform(-100, 100, size=vr * vc).astype(s_type).reshape(vr, vc)
            s = np.random.uniform(low=-8, high=8, size=(1, 1)).astype(s_type)[0, 0]
            out[target, index] = a, b, s
    return out


INPUTS = _inputs()
CASES = [(target, i) for target, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,index", CASES, ids=[
    f"{t}-{np.dtype(c[0]).name}-{np.dtype(c[1]).name}-{c[2]}x{c[3]}-v{c[4]}x{c[5]}" for t, i in CASES
    for c in [CONFIGS[t][i]]])
def test_configuration_reproduces_its_golden(target, index):
    d_type, s_type, rows, cols, vr, vc = CONFIGS[target][index]
    a, b, s = INPUTS[target, index]
    scalar = np.dtype(s_type).type(np.float32(s))
    with ptoisa.target(target):
        src0 = vec(s_type, rows, cols, vr, vc, addr=0x0)
        dst = vec(d_type, rows, cols, vr, vc, addr=0x10000 if target == "a2a3" else 0x20000)
        dst.valid[...] = a
        src0.valid[...] = b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TAXPY(dst, src0, scalar)
    if target == "a2a3":
        want = a + b.astype(d_type) * np.dtype(d_type).type(s)
    else:
        want = (a.astype(np.float64) + b.astype(np.float64) * float(s)).astype(d_type)
    EXACT[target, index] = same_bytes(want, dst.valid)
    assert EXACT[target, index] or result_cmp(want, dst.valid)
