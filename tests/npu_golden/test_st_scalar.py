"""The NPU hardware tests of the tile-scalar instructions TADDS TSUBS TMULS TDIVS TMAXS TLRELU (A2/A3) and
TADDS TSUBS TMULS TDIVS (A5) (tests/npu/{a2a3,a5}/src/st/testcase/<op> in hw-native-sys/pto-isa), rebuilt.

The kernels (<T, dstTileRow, dstTileCol, row, validRow, col, validCol>) bind a row x col src tile at 0x0 and a
dstTileRow x dstTileCol dst at 0x28000, both with the valid shape validRow x validCol, and pass the scalar as a
float kernel argument converted to T (gen_data.py writes it as a float32). TDIVS's cases 10-18 divide the scalar
by the tile (TDIVS(dst, scalar, src)). Inputs are drawn as each gen_data.py draws them (its seed, cases in order):
uniform in +-8 (TADDS, TMULS, TLRELU with a slope in [0.001, 0.1)), +-80 (TSUBS), +-8000 (TMAXS), [1, 16383) over a
divisor in [1, 10) (TDIVS), cast to the element type. Goldens are NumPy's operation in the element type (TDIVS on
integers floor-divides positive values, the same as truncation): the reference compares with ResultCmp, ptoisa is
held to the exact bytes.

A5's TADDS/TSUBS/TMULS/TDIVS kernels are the same (TMULS and TDIVS put dst at 0x26000); gen_data.py draws over the
type's whole range (TMULS: +-8), and TADDS/TSUBS/TMULS hand the kernel the scalar as a float32 (main.cpp's
ScalarT), while the golden uses the exact scalar: an int32 scalar beyond 2^24 reaches the device rounded. Those
configurations are compared as the reference compares (ResultCmp) against its golden, and exactly against the
golden of the scalar the kernel receives. TDIVS reads its scalar in the element type. Not modelled: the
high-precision TDIVS cases and the int64/uint64 ones.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import result_cmp, same_bytes, vec

F32, F16, I32, I16 = np.float32, np.float16, np.int32, np.int16

# (dtype, dst tile rows, dst tile cols, rows, cols): rows x cols is src's tile and the valid shape
_SHAPES = [(F32, 32, 64, 32, 64), (F16, 63, 64, 63, 64), (I32, 31, 128, 31, 128), (I16, 15, 192, 15, 192),
           (F32, 7, 448, 7, 448), (F32, 256, 16, 256, 16), (F32, 32, 128, 32, 64), (F16, 63, 128, 63, 64),
           (I32, 31, 256, 31, 128), (I16, 15, 192, 15, 192), (F32, 7, 512, 7, 448), (F32, 256, 32, 256, 16)]
_LRELU = [(F32 if t is I32 else F16 if t is I16 else t, *rest) for t, *rest in _SHAPES]
_DIVS = [(F32, 32, 64, 32, 64), (F16, 63, 64, 63, 64), (I32, 31, 128, 31, 128), (I16, 15, 192, 15, 192),
         (F32, 32, 128, 32, 64), (F16, 63, 128, 63, 64), (I16, 15, 192, 15, 192), (F32, 7, 512, 7, 448),
         (F32, 256, 32, 256, 16)]
CONFIGS = {"TADDS": _SHAPES, "TSUBS": _SHAPES, "TMULS": _SHAPES, "TMAXS": _SHAPES, "TLRELU": _LRELU,
           "TDIVS": _DIVS + _DIVS}
SEED = {"TADDS": 23, "TSUBS": 17, "TMULS": 23, "TDIVS": 23, "TMAXS": 42, "TLRELU": 42}
RANGES = {"TADDS": ((-8, 8), (-8, 8)), "TSUBS": ((-80, 80), (-80, 80)), "TMULS": ((-8, 8), (-8, 8)),
          "TMAXS": ((-8000, 8000), (-8000, 8000)), "TLRELU": ((-8, 8), (0.001, 0.1)), "TDIVS": ((1, 16383), (1, 10))}


def _inputs() -> dict:
    out = {}
    for op, configs in CONFIGS.items():
        np.random.seed(SEED[op])
        (lo, hi), (slo, shi) = RANGES[op]
        for index, (dtype, _, _, rows, cols) in enumerate(configs):
            x = np.random.uniform(low=lo, high=hi, size=(rows, cols)).astype(dtype)
            s = np.random.uniform(low=slo, high=shi, size=(1, 1)).astype(dtype)
            out[op, index] = x, s[0, 0]
    return out


INPUTS = _inputs()


def _golden(op: str, x: np.ndarray, s, scalar_first: bool) -> np.ndarray:
    if op == "TADDS":
        return x + s
    if op == "TSUBS":
        return x - s
    if op == "TMULS":
        return x * s
    if op == "TMAXS":
        return np.where(x > s, x, s).astype(x.dtype)
    if op == "TLRELU":
        return np.where(x < 0, x * s, x).astype(x.dtype)
    a, b = (np.full_like(x, s), x) if scalar_first else (x, np.full_like(x, s))
    return a / b if x.dtype.kind == "f" else a // b


CASES = [(op, i) for op, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("op,index", CASES, ids=[
    f"{op}-{np.dtype(c[0]).name}-{c[3]}x{c[4]}" + ("" if c[1:3] == c[3:] else f"-dst{c[1]}x{c[2]}")
    + ("-scalar-first" if op == "TDIVS" and i >= len(_DIVS) else "") for op, i in CASES for c in [CONFIGS[op][i]]])
def test_a2a3_configuration_reproduces_its_golden(op, index):
    dtype, d_rows, d_cols, rows, cols = CONFIGS[op][index]
    x, s = INPUTS[op, index]
    scalar_first = op == "TDIVS" and index >= len(_DIVS)
    # the kernel argument: gen_data.py's float32 of the scalar, converted to T
    scalar = np.dtype(dtype).type(np.float32(s))
    with ptoisa.target("a2a3"):
        src = vec(dtype, rows, cols, addr=0x0)
        dst = vec(dtype, d_rows, d_cols, rows, cols, addr=0x28000)
        src.valid[...] = x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn = getattr(ptoisa, op)
            fn(dst, scalar, src) if scalar_first else fn(dst, src, scalar)
    assert same_bytes(_golden(op, x, s, scalar_first), dst.valid)


U32, U16, I8, U8 = np.uint32, np.uint16, np.int8, np.uint8
_A5_SHAPES = [(F32, 32, 128, 32, 64), (F16, 63, 128, 63, 64), (I32, 31, 256, 31, 128), (I16, 15, 192, 15, 192),
              (F32, 7, 512, 7, 448), (F32, 256, 32, 256, 16)]
_A5_ADD = [*_A5_SHAPES, (U32, 256, 32, 256, 16), (U16, 256, 32, 256, 16), (I8, 256, 64, 256, 32),
           (U8, 256, 64, 256, 32), (U8, 1, 64, 1, 32)]
A5_CONFIGS = {"TADDS": _A5_ADD, "TSUBS": _A5_ADD, "TMULS": [*_A5_SHAPES, (F32, 1, 32, 1, 16)],
              "TDIVS": [*_A5_SHAPES, (F32, 1, 32, 1, 16)]}
A5_DST = {"TADDS": 0x28000, "TSUBS": 0x28000, "TMULS": 0x26000, "TDIVS": 0x26000}


def _a5_inputs() -> dict:
    out = {}
    for op, configs in A5_CONFIGS.items():
        np.random.seed(23 if op != "TDIVS" else 19)  # A5's tdivs/gen_data.py does not seed: 19 here
        for index, (dtype, _, _, rows, cols) in enumerate(configs):
            kind = np.dtype(dtype).kind
            info = np.finfo(dtype) if kind == "f" else np.iinfo(dtype)
            lo, hi = (-8, 8) if op == "TMULS" else (float(info.min), float(info.max))
            with np.errstate(over="ignore"):
                if op == "TDIVS" and kind != "f":
                    x = np.random.randint(info.min, info.max, size=[rows, cols], dtype=np.int64).astype(dtype)
                    s = np.random.randint(info.min, info.max, size=[1, 1], dtype=np.int64).astype(dtype)
                elif op == "TSUBS":  # its gen_data.py draws the scalar first
                    s = np.random.uniform(low=lo, high=hi, size=(1, 1)).astype(dtype)
                    x = np.random.uniform(low=lo, high=hi, size=(rows, cols)).astype(dtype)
                else:
                    x = np.random.uniform(low=lo, high=hi, size=(rows, cols)).astype(dtype)
                    s = np.random.uniform(low=lo, high=hi, size=(1, 1)).astype(dtype)
            out[op, index] = x, s[0, 0]
    return out


A5_INPUTS = _a5_inputs()
A5_CASES = [(op, i) for op, configs in A5_CONFIGS.items() for i in range(len(configs))]


def _a5_golden(op: str, x: np.ndarray, s) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "TADDS":
            return x + s
        if op == "TSUBS":
            return x - s
        if op == "TMULS":
            return x * s
        return (x / s).astype(x.dtype)  # gen_data.py: true division, integers truncated by the cast


@pytest.mark.parametrize("op,index", A5_CASES, ids=[
    f"{op}-{np.dtype(c[0]).name}-{c[3]}x{c[4]}" + ("" if c[1:3] == c[3:] else f"-dst{c[1]}x{c[2]}")
    for op, i in A5_CASES for c in [A5_CONFIGS[op][i]]])
def test_a5_configuration_reproduces_its_golden(op, index):
    dtype, d_rows, d_cols, rows, cols = A5_CONFIGS[op][index]
    x, s = A5_INPUTS[op, index]
    scalar = s if op == "TDIVS" else np.dtype(dtype).type(np.float32(s))  # main.cpp's ScalarT
    with ptoisa.target("a5"):
        src = vec(dtype, rows, cols, addr=0x0)
        dst = vec(dtype, d_rows, d_cols, rows, cols, addr=A5_DST[op])
        src.valid[...] = x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src, scalar)
    assert same_bytes(_a5_golden(op, x, scalar), dst.valid)  # the scalar the device receives
    want = _a5_golden(op, x, s)  # gen_data.py's golden
    assert same_bytes(want, dst.valid) or result_cmp(want, dst.valid)


# --- A5 TMAXS / TMINS --------------------------------------------------------------------------------------------
# runTMAXS<T, dstRow, dstCol, srcRow, srcCol, vRows, vCols, pad>: src and dst with static valid vRows x vCols (and
# PadValue::Max in the padded configurations), src at 0x0 and dst at 0x8000; gen_data.py (seed 19) draws the src
# tile in [-13.013, 130.013) (integers in [1, 100) with the scalar 50). Golden: Python's max/min per element.
_A5_EXT = [(F32, (64, 64), (32, 32), (32, 32), None), (F32, (128, 128), (64, 64), (64, 64), None),
           (F32, (60, 128), (64, 64), (60, 60), "max"), (F32, (16, 200), (20, 512), (16, 200), "max"),
           (F32, (1, 3600), (2, 4096), (1, 3600), "max"), (F16, (16, 256), (20, 224), (16, 200), "max"),
           (F16, (1, 256), (1, 224), (1, 200), "max"), (I32, (32, 32), (32, 32), (32, 32), None),
           (U32, (32, 32), (32, 32), (32, 32), None), (I16, (32, 128), (32, 128), (32, 128), None),
           (U16, (32, 128), (32, 128), (32, 128), None), (I8, (32, 128), (32, 128), (32, 128), None),
           (U8, (32, 128), (32, 128), (32, 128), None)]


def _a5_extreme_inputs() -> dict:
    out = {}
    for op in ("TMAXS", "TMINS"):
        np.random.seed(19)
        for index, (dtype, _, src_shape, _, _) in enumerate(_A5_EXT):
            if np.dtype(dtype).kind in "iu":
                out[op, index] = np.random.randint(1, 100, size=src_shape).astype(dtype), np.dtype(dtype).type(50)
            else:
                x = np.random.uniform(low=-13.013, high=130.013, size=src_shape).astype(dtype)
                out[op, index] = x, np.random.uniform(low=-13.013, high=130.013, size=[1]).astype(dtype)[0]
    return out


A5_EXT_INPUTS = _a5_extreme_inputs()
A5_EXT_CASES = [(op, i) for op in ("TMAXS", "TMINS") for i in range(len(_A5_EXT))]


@pytest.mark.parametrize("op,index", A5_EXT_CASES, ids=[
    f"{op}-{np.dtype(c[0]).name}-dst{c[1][0]}x{c[1][1]}-src{c[2][0]}x{c[2][1]}-v{c[3][0]}x{c[3][1]}"
    f"{'-pad' if c[4] else ''}" for op, i in A5_EXT_CASES for c in [_A5_EXT[i]]])
def test_a5_tmaxs_tmins_configuration_reproduces_its_golden(op, index):
    from ptoisa import PadValue

    dtype, dst_shape, src_shape, (v_rows, v_cols), pad = _A5_EXT[index]
    x, s = A5_EXT_INPUTS[op, index]
    pad_value = None if pad is None else PadValue.Max  # both kernels declare PadValue::Max
    with ptoisa.target("a5"):
        src = vec(dtype, *src_shape, v_rows, v_cols, addr=0x0, static=True, pad=pad_value)
        dst = vec(dtype, *dst_shape, v_rows, v_cols, addr=0x8000, static=True, pad=pad_value)
        src.valid[...] = x[:v_rows, :v_cols]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(ptoisa, op)(dst, src, s)
    pick = max if op == "TMAXS" else min
    want = np.array([[pick(v, s) for v in row] for row in x[:v_rows, :v_cols]], dtype=dtype)
    assert same_bytes(want, dst.valid)
