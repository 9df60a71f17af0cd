"""Golden data for one target: run a .pto kernel through ptoisa and write its inputs and outputs as raw .bin
files (the layout NPU test suites read), each next to a .npy, plus manifest.json.

Run:  .venv/bin/python examples/python/golden_data.py OUT_DIR [--target a2a3|a5|cpu]

The kernel is examples/pto/run_scale_compare.pto: scaled = x * scale, mask = (scaled > threshold) packed as
bits. The same thing from the shell: `ptoisa run ... --out DIR --golden`, whose folder and manifest.json have
this layout too (kernel, entry, target, errata, undefined; outputs and inputs by name, each with dtype, shape,
files and byte_order; scalars), so one reader serves both: `ptoisa compare npu_out.bin OUT_DIR/scaled.bin`
takes the element type and shape from the manifest.
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

program = ptoisa.load(KERNEL)
with warnings.catch_warnings(record=True) as caught:  # errata the target reproduces are announced, not hidden
    warnings.simplefilter("always")
    result = program.run(x, scaled, mask, scale, threshold, target=args.target)

assert np.array_equal(scaled, x * np.float32(scale))
bits = np.unpackbits(mask, axis=1, bitorder="little")[:, :16].astype(bool)
assert np.array_equal(bits, scaled > threshold)


def described(array: np.ndarray, name: str) -> dict:
    """One tensor of the manifest, written as NAME.npy and NAME.bin (raw little-endian, C order)."""
    np.save(args.out / f"{name}.npy", array)
    array.astype(array.dtype.newbyteorder("<")).tofile(args.out / f"{name}.bin")
    return {"dtype": str(array.dtype), "shape": list(array.shape), "files": [f"{name}.npy", f"{name}.bin"],
            "byte_order": "little"}


def plain(value):
    return value.item() if isinstance(value, np.generic) else value


config = program.config(args.target)
args.out.mkdir(parents=True, exist_ok=True)
manifest = {"kernel": KERNEL.relative_to(HERE.parent.parent).as_posix(), "entry": result.entry,
            "target": config.name, "errata": sorted(config.errata), "undefined": config.undefined,
            "outputs": {name: described(array, name) for name, array in result.outputs.items()},
            "inputs": {"x": described(x, "x")},
            "scalars": {name: plain(result.arguments[name]) for name in ("scale", "threshold")}}
(args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
for text in sorted({": ".join(str(w.message).split(": ")[:2]) for w in caught}):  # where, and which erratum
    print(f"warning: {text}")
print(f"wrote {len(manifest['outputs'])} outputs, {len(manifest['inputs'])} input and manifest.json to {args.out} "
      f"(target {config.name})")
