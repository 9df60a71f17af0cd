"""The NPU hardware tests of TSELS (tests/npu/{a2a3,a5}/src/st/testcase/tsels in hw-native-sys/pto-isa), rebuilt.

Both kernels (<T, TMask, dstTileH, dstTileW, maskTileH, maskTileW, srcTileH, srcTileW, vRows, vCols>) place dst,
src and the mask one after another from 0x0 (dst, then src, then mask) and a 1 x 32 uint8 tmp after them; dst and
src have the valid shape vRows x vCols, the mask vRows x maskTileW, and the call is TSELS(dst, mask, src, tmp,
scalar). Element (y, x) takes src where bit x % 8 of byte x / 8 of mask row y (its bytes in memory order) is set,
else the scalar. Inputs are drawn as gen_data.py draws them (seed 19): integers over their range, floats uniform
over theirs, the mask over its type's range. The golden is that selection: exact bytes. A5's int64/uint64
configurations are not modelled.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa

from _st import same_bytes, vec

F32, F16, U8, U16, U32 = np.float32, np.float16, np.uint8, np.uint16, np.uint32

# (dtype, mask dtype, dst tile, mask tile, src tile, valid)
_SMALL = [(d, m, (2, c), (2, 32 // np.dtype(m).itemsize), (2, c), (2, c))
          for d, c in ((U16, 16), (U32, 8), (F16, 16), (F32, 8)) for m in (U8, U16, U32)]
CONFIGS = {
    "a2a3": [*_SMALL, (U16, U8, (2, 32), (2, 64), (2, 128), (2, 31)), (F32, U8, (2, 32), (2, 64), (2, 128), (2, 31)),
             (F16, U8, (32, 672), (32, 96), (32, 672), (32, 666)),
             (F32, U8, (32, 672), (32, 96), (32, 672), (32, 666)),
             (F32, U8, (1, 8192), (1, 4096), (1, 8192), (1, 8192))],
    "a5": [*[(U8, m, (2, 32), (2, 32 // np.dtype(m).itemsize), (2, 32), (2, 32)) for m in (U8, U16, U32)], *_SMALL,
           (U8, U8, (2, 32), (2, 64), (2, 128), (2, 31)), (U16, U8, (2, 32), (2, 64), (2, 128), (2, 31)),
           (F32, U8, (2, 32), (2, 64), (2, 128), (2, 31)), (U8, U8, (32, 672), (32, 96), (32, 672), (32, 666)),
           (F16, U8, (32, 672), (32, 96), (32, 672), (32, 666)),
           (F32, U8, (32, 672), (32, 96), (32, 672), (32, 666)),
           (F32, U8, (1, 8192), (1, 4096), (1, 8192), (1, 8192))],
}


def _inputs() -> dict:
    out = {}
    for target, configs in CONFIGS.items():
        np.random.seed(19)
        for index, (dtype, mask_type, _, mask_shape, src_shape, _) in enumerate(configs):
            if np.dtype(dtype).kind == "f":
                info = np.finfo(dtype)
                with np.errstate(over="ignore"):
                    src = np.random.uniform(low=info.min, high=info.max, size=src_shape).astype(dtype)
                    scalar = np.random.uniform(low=info.min, high=info.max, size=[1]).astype(dtype)
            else:
                info = np.iinfo(dtype)
                src = np.random.randint(info.min, info.max, size=src_shape, dtype=np.int64).astype(dtype)
                scalar = np.random.randint(info.min, info.max, size=[1], dtype=np.int64).astype(dtype)
            m_info = np.iinfo(mask_type)
            mask = np.random.randint(m_info.min, m_info.max, size=mask_shape, dtype=np.int64).astype(mask_type)
            out[target, index] = src, scalar[0], mask
    return out


INPUTS = _inputs()
CASES = [(target, i) for target, configs in CONFIGS.items() for i in range(len(configs))]


@pytest.mark.parametrize("target,index", CASES, ids=[
    f"{t}-{np.dtype(c[0]).name}-mask{np.dtype(c[1]).name}-{c[2][0]}x{c[2][1]}-v{c[5][0]}x{c[5][1]}"
    for t, i in CASES for c in [CONFIGS[t][i]]])
def test_configuration_reproduces_its_golden(target, index):
    dtype, mask_type, dst_shape, mask_shape, src_shape, (v_rows, v_cols) = CONFIGS[target][index]
    src_values, scalar, mask_values = INPUTS[target, index]
    sizes = [r * c * np.dtype(t).itemsize for (r, c), t in ((dst_shape, dtype), (src_shape, dtype),
                                                            (mask_shape, mask_type))]
    with ptoisa.target(target):
        dst = vec(dtype, *dst_shape, v_rows, v_cols, addr=0)
        src = vec(dtype, *src_shape, v_rows, v_cols, addr=sizes[0])
        mask = vec(mask_type, *mask_shape, v_rows, mask_shape[1], addr=sizes[0] + sizes[1])
        tmp = vec(np.uint8, 1, 32, addr=sum(sizes))
        src.valid[...] = src_values[:v_rows, :v_cols]
        mask.valid[...] = mask_values[:v_rows]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ptoisa.TSELS(dst, mask, src, tmp, scalar)
    bits = np.unpackbits(mask_values[:v_rows].view(np.uint8).reshape(v_rows, -1), axis=1, bitorder="little")
    want = np.where(bits[:, :v_cols].astype(bool), src_values[:v_rows, :v_cols], scalar).astype(dtype)
    assert same_bytes(want, dst.valid)
