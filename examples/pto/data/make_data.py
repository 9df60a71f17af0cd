"""Writes the small input files the example kernels' header commands name (deterministic: seed 2026).

    python examples/pto/data/make_data.py        # from the repository root; overwrites only these files
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(2026)
    files = {
        "src_16x16_f32.npy": (np.arange(256, dtype=np.float32) / 4 - 32).reshape(16, 16),  # run_iota_gather
        "idx_16_i32.npy": rng.permutation(256)[:16].astype(np.int32),
        "a_32x128_f16.npy": rng.integers(-4, 5, (32, 128)).astype(np.float16),  # run_matmul
        "b_128x32_f16.npy": rng.integers(-4, 5, (128, 32)).astype(np.float16),
        "scores_16x16_f32.npy": rng.integers(0, 8, (16, 16)).astype(np.float32),  # run_select_count
        "x_16x1024_bf16.npy": rng.standard_normal((16, 1024)).astype(ml_dtypes.bfloat16),  # run_rmsnorm
        "w_1024_f32.npy": (1 + rng.standard_normal(1024) / 8).astype(np.float32),
    }
    for name, array in files.items():
        np.save(HERE / name, array)


if __name__ == "__main__":
    main()
