"""The NPU hardware tests of the element-wise unary instructions TABS TEXP TLOG TSQRT TRSQRT TRECIP TRELU TNEG
TNOT (tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

The kernels bind src at 0x0 and dst at 0x0 (the in-place configurations) or elsewhere (0x20000; TRELU and TNOT
0x4000; A2/A3 TRSQRT and A5 TEXP/TLOG/TSQRT right after src; A5 TRSQRT puts dst at 0x0 and src after it), with
dynamic valid shapes (A5 TRSQRT: static). A2/A3's in-place TRSQRT passes a one-block tmp tile after src. Most
gen_data.py draw np.random.random (TRELU: integers in +-3e6, floats in +-10; TNOT: each type's range, on A5
+-100 / +-30000 / +-1e6; A5 TEXP draws between the type's lowest value and log(max), so nearly every golden is 0;
A5 TLOG draws in [0, max)); seed 19, each gen_data.py's cases in order where it seeds (A5 TEXP and TLOG do not).

How the reference compares: ResultCmp (eps 1e-3). TABS, TNEG, TRELU, TNOT, TSQRT and TRECIP goldens are exact
(NumPy's correctly rounded sqrt and division in the element type): exact bytes. TEXP, TLOG and TRSQRT goldens are
NumPy's exp, log and 1 / sqrt (two roundings), not the NPU's vexp, vln, vrsqrt: compared as the reference does.
Not modelled: A5's high-precision (`hp`) TEXP, TLOG and TRECIP configurations (their precision template argument
is not part of ptoisa).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ptoisa

from _st import result_cmp, same_bytes, vec

F32, F16, I32, I16, I8, U8, U16, U32 = (np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.uint16,
                                        np.uint32)
EXACT = {"TABS", "TNEG", "TRELU", "TNOT", "TSQRT", "TRECIP"}
GOLDEN = {"TABS": np.abs, "TEXP": np.exp, "TLOG": np.log, "TSQRT": np.sqrt, "TRSQRT": lambda x: 1.0 / np.sqrt(x),
          "TRECIP": lambda x: 1.0 / x, "TRELU": lambda x: np.maximum(x, 0), "TNEG": np.negative,
          "TNOT": np.invert}


def _sq(dtype, rows, cols, in_place=False):
    """A configuration whose src and dst tiles are both rows x cols, all valid."""
    return (dtype, (rows, cols), (rows, cols), (rows, cols), in_place)


_PAIRS4 = [_sq(F32, 64, 64, True), _sq(F32, 64, 64), _sq(F16, 64, 64, True), _sq(F16, 64, 64)]
_A5_SHAPED = [  # (dtype, dst tile, src tile, valid, in place): TEXP/TSQRT/TRSQRT cases 5-8
    (F32, (128, 128), (64, 64), (64, 64), False), (F32, (64, 64), (128, 128), (32, 32), False),
    (F16, (128, 256), (64, 64), (64, 64), False), (F16, (64, 64), (128, 256), (32, 32), False),
]
# (dtype, dst tile, src tile, valid, in place) per op and target, in gen_data.py's order
CONFIGS = {
    ("a2a3", "TABS"): _PAIRS4, ("a2a3", "TEXP"): _PAIRS4, ("a2a3", "TLOG"): _PAIRS4, ("a2a3", "TSQRT"): _PAIRS4,
    ("a2a3", "TRSQRT"): _PAIRS4, ("a2a3", "TRECIP"): [_sq(F32, 64, 64), _sq(F16, 64, 64)],
    ("a2a3", "TRELU"): [_sq(I32, 64, 64), (F16, (64, 64), (64, 64), (60, 60), False),
                        (F32, (64, 64), (64, 64), (60, 60), False)],
    ("a2a3", "TNEG"): [_sq(F32, 64, 64), _sq(I32, 32, 32), _sq(F16, 32, 64), _sq(I16, 64, 16)],
    ("a2a3", "TNOT"): [_sq(I16, 64, 64), (U16, (64, 64), (64, 64), (60, 60), False), _sq(I8, 64, 64),
                       (U8, (64, 64), (64, 64), (60, 60), False), _sq(I32, 64, 64),
                       (U32, (64, 64), (64, 64), (60, 60), False)],
    ("a5", "TABS"): [_sq(t, 64, 64, p) for t in (F32, F16, I8, I16, I32) for p in (True, False)],
    ("a5", "TEXP"): [*_PAIRS4, *_A5_SHAPED], ("a5", "TLOG"): _PAIRS4, ("a5", "TSQRT"): [*_PAIRS4, *_A5_SHAPED],
    ("a5", "TRSQRT"): [*_PAIRS4, *_A5_SHAPED],
    ("a5", "TRECIP"): [*_PAIRS4, (F32, (66, 72), (66, 72), (64, 64), False),
                       (F32, (66, 72), (66, 72), (58, 70), False), (F32, (1, 72), (1, 72), (1, 70), False)],
    ("a5", "TRELU"): [_sq(I32, 64, 64), (F16, (64, 64), (64, 64), (60, 60), False),
                      (F32, (64, 64), (64, 64), (60, 60), False)],
    ("a5", "TNEG"): [_sq(F32, 64, 64), _sq(I32, 32, 32), _sq(F16, 32, 64), _sq(I16, 64, 16), _sq(I16, 1, 16)],
    ("a5", "TNOT"): [_sq(I8, 64, 64), (U8, (64, 64), (64, 64), (60, 60), False), _sq(I16, 64, 64),
                     (U16, (64, 64), (64, 64), (60, 60), False), _sq(I32, 64, 64),
                     (U32, (64, 64), (64, 64), (60, 60), False)],
}


def _draw(target: str, op: str, dtype, shape: tuple[int, int]) -> np.ndarray:
    kind = np.dtype(dtype).kind
    if op == "TRELU":
        if kind == "i":
            return np.random.randint(-3_000_000, 3_000_000, size=shape).astype(dtype)
        return np.random.uniform(-10, 10, size=shape).astype(dtype)
    if op == "TNOT":
        if target == "a5":
            top = {1: 100, 2: 30_000, 4: 1_000_000}[np.dtype(dtype).itemsize]
            return np.random.randint(-top, top, size=shape).astype(dtype)
        info = np.iinfo(dtype)
        return np.random.randint(info.min, info.max, size=shape, dtype=np.int64).astype(dtype)
    if target == "a5" and op == "TEXP":
        info = np.finfo(dtype)
        return np.random.uniform(math.log(info.max), float(info.min), size=shape).astype(dtype)
    if target == "a5" and op == "TLOG":
        return np.random.uniform(low=0, high=float(np.finfo(dtype).max), size=shape).astype(dtype)
    if kind == "i":  # A5 TABS on integers
        return (np.random.random(size=shape) * 200 - 100).astype(dtype)
    return np.random.random(size=shape).astype(dtype)


def _inputs() -> dict:
    out = {}
    for (target, op), configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, _, src_shape, _, _) in enumerate(configs):
            with np.errstate(over="ignore"):
                out[target, op, index] = _draw(target, op, dtype, src_shape)
    return out


INPUTS = _inputs()


def _addresses(target: str, op: str, dtype, dst_shape, src_shape, in_place: bool) -> tuple[int, int]:
    item = np.dtype(dtype).itemsize
    if target == "a5" and op == "TRSQRT":
        return (0x0 if in_place else dst_shape[0] * dst_shape[1] * item), 0x0
    if in_place:
        return 0x0, 0x0
    if op in ("TRELU", "TNOT"):
        return 0x0, 0x4000
    if (target == "a2a3" and op == "TRSQRT") or (target == "a5" and op in ("TEXP", "TLOG", "TSQRT")):
        return 0x0, src_shape[0] * src_shape[1] * item
    return 0x0, 0x20000


CASES = [(target, op, i) for (target, op), configs in CONFIGS.items() for i in range(len(configs))]


def _case_id(target: str, op: str, i: int) -> str:
    dtype, dst_shape, src_shape, valid, in_place = CONFIGS[target, op][i]
    shapes = "x".join(map(str, dst_shape)) + ("" if src_shape == dst_shape else "-src" + "x".join(map(str, src_shape)))
    return (f"{target}-{op}-{np.dtype(dtype).name}-{shapes}" + ("" if valid == dst_shape else f"-v{valid[0]}x{valid[1]}")
            + ("-inplace" if in_place else ""))


@pytest.mark.parametrize("target,op,index", CASES, ids=[_case_id(*c) for c in CASES])
def test_configuration_reproduces_its_golden(target, op, index):
    dtype, dst_shape, src_shape, (v_rows, v_cols), in_place = CONFIGS[target, op][index]
    x = INPUTS[target, op, index][:v_rows, :v_cols]
    src_addr, dst_addr = _addresses(target, op, dtype, dst_shape, src_shape, in_place)
    static = target == "a5" and op == "TRSQRT"
    with ptoisa.target(target):
        src = vec(dtype, *src_shape, v_rows, v_cols, addr=src_addr, static=static)
        dst = src if in_place and dst_shape == src_shape else vec(dtype, *dst_shape, v_rows, v_cols, addr=dst_addr,
                                                                  static=static)
        src.valid[...] = x
        args = [dst, src]
        if target == "a2a3" and op == "TRSQRT" and in_place:
            args.append(vec(dtype, 1, 32 // np.dtype(dtype).itemsize, addr=src_shape[0] * src_shape[1] *
                            np.dtype(dtype).itemsize, static=True))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(*args)
    with np.errstate(all="ignore"):
        want = np.asarray(GOLDEN[op](x)).astype(dtype)
    if op in EXACT:
        assert same_bytes(want, dst.valid)
    else:
        assert result_cmp(want, dst.valid)
