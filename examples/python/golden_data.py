"""Golden data for one target: run a .pto kernel through ptoisa and write its inputs and outputs as raw .bin
files (the layout NPU test suites read) plus a manifest.

Run:  .venv/bin/python examples/python/golden_data.py OUT_DIR [--target a2a3|a5|cpu]

The kernel is examples/pto/run_scale_compare.pto: scaled = x * scale, mask = (scaled > threshold) packed as
bits. The same thing from the shell: `ptoisa run ... --out DIR --golden`.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np

import ptoisa

HERE = Path(__file__).resolve().parent
KERNEL = HERE.parent / "pto" / "run_scale_compare.pto"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("out", type=Path, help="directory for the .bin files and manifest.json (created)")
parser.add_argument("--target", default="a2a3", choices=["a2a3", "a5", "cpu"])
args = parser.parse_args()

rng = np.random.default_rng(2024)
x = rng.uniform(-100, 100, (64, 16)).astype(np.float32)
scaled = np.zeros((64, 16), np.float32)
mask = np.zeros((64, 2), np.uint8)
scale, threshold = 2.0, 100.0

with warnings.catch_warnings(record=True) as caught:  # errata the target reproduces are announced, not hidden
    warnings.simplefilter("always")
    ptoisa.load(KERNEL).run(x, scaled, mask, scale, threshold, target=args.target)

assert np.array_equal(scaled, x * np.float32(scale))
bits = np.unpackbits(mask, axis=1, bitorder="little")[:, :16].astype(bool)
assert np.array_equal(bits, scaled > threshold)

args.out.mkdir(parents=True, exist_ok=True)
manifest = {"kernel": KERNEL.name, "target": args.target, "scalars": {"scale": scale, "threshold": threshold},
            "tensors": {}, "warnings": sorted({str(w.message).split(":")[0] for w in caught})}
for name, array, role in (("x", x, "input"), ("scaled", scaled, "output"), ("mask", mask, "output")):
    array.tofile(args.out / f"{name}.bin")  # raw little-endian, C order
    manifest["tensors"][name] = {"role": role, "dtype": str(array.dtype), "shape": list(array.shape),
                                 "file": f"{name}.bin"}
(args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
print(f"wrote {len(manifest['tensors'])} tensors and manifest.json to {args.out} (target {args.target})")
