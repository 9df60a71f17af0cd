"""Hostile data files and specs through `run`, `show` and `compare`: .npy files with made-up headers (shapes of
any size, sign, length and type, odd dtypes, Fortran order, truncated data), raw .bin files of any length, and
shape texts (`zeros:SHAPE`, `FILE.bin:DTYPE:SHAPE`, --shape) of many dimensions, huge sizes, zeros, signs and
junk. Each command ends with exit 0, 1 or 2 and a message of ours, never exit 3 or a traceback.
PTOISA_FUZZ_SCALE multiplies the number of cases (60 by default)."""

from __future__ import annotations

import random
from pathlib import Path

from conftest import cli_status, fuzz_budget


KERNEL = str(Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_softmax.pto")  # (x f16, y f16)
SIZES = ["0", "1", "2", "8", "64", "512", "-1", "True", "2.0", "99999999999999999999999", "9223372036854775807",
         "9223372036854775808", "4611686018427387904", "None", "'8'", "(1,)"]
DESCRS = ["'<f2'", "'<f4'", "'>f2'", "'|u1'", "'|V2'", "'|O'", "'<U4'", "'<c8'", "[('a', '<f2')]",
          "('<f2', (2,))", "'<f999'", "'|V0'", "'M8[s]'", "7", "'?'"]


CLEAN = ["0", "1", "1", "8", "64", "99999999999999999999"]


def _shape(rng: random.Random, items: list[str], sep: str) -> str:
    """Dimensions: a few of `items` (junk included), or only whole numbers (zeros and huge ones among them),
    sometimes more of them than NumPy allows (64)."""
    count = rng.choice([0, 1, 2, 2, 3, rng.randrange(60, 70)])
    pool = items if rng.random() < 0.5 else (CLEAN if count < 60 else ["1", "1", "1", "0"])
    return sep.join(rng.choice(pool) for _ in range(count))


def _npy(rng: random.Random) -> bytes:
    dims = _shape(rng, SIZES, ", ")
    shape = rng.choice([f"({dims},)" if dims else "()", f"({dims})", "'x'", "[8, 64]"])
    header = f"{{'descr': {rng.choice(DESCRS)}, 'fortran_order': {rng.choice(['False', 'True', '1', 'None'])}, " \
             f"'shape': {shape}, }}".encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    data = rng.randbytes(rng.choice([0, 1, 2, 16, 1024, 1025]))
    blob = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data
    return blob[:rng.randrange(len(blob) + 1)] if rng.random() < 0.1 else blob


def _spec_shape(rng: random.Random) -> str:
    parts = ["0", "1", "8", "64", "-1", "99999999999999999999", "2147483648", "", "x", "1e3", " 8", "\u0668"]
    return _shape(rng, parts, rng.choice(["x", ",", "*"]))


def test_hostile_data_files_never_reach_an_internal_error(tmp_path: Path) -> None:
    rng = random.Random(20261126)
    bad = []
    for n in range(fuzz_budget(60)):
        npy, raw = tmp_path / f"d{n % 3}.npy", tmp_path / f"d{n % 3}.bin"
        npy.write_bytes(_npy(rng))
        raw.write_bytes(rng.randbytes(rng.choice([0, 1, 2, 3, 16, 1024])))
        dtype = rng.choice(["f16", "f32", "u8", "bf16", "i4", "(2,", "V2"])
        spec = rng.choice([str(npy), f"{raw}:{dtype}:{_spec_shape(rng)}", f"{raw}:{dtype}", f"zeros:{_spec_shape(rng)}"])
        for argv in (["run", KERNEL, spec, "zeros:8x64", "-q"], ["run", KERNEL, f"x={spec}", f"y={spec}", "-q"],
                     ["show", spec if not spec.startswith("zeros") else str(npy)],
                     ["show", str(raw), "--dtype", dtype, "--shape", _spec_shape(rng)],
                     ["compare", str(npy), spec if not spec.startswith("zeros") else f"{raw}:{dtype}"]):
            code, err = cli_status(argv)
            if code not in (0, 1, 2) or "internal error" in err or "Traceback" in err:
                bad.append((argv, code, err[:300]))
    assert not bad, bad[:3]


def _ordered(value: float, dtype) -> int:  # noqa: ANN001 - a NumPy float type
    import numpy as np

    raw = int(np.array([value], dtype).view(f"i{np.dtype(dtype).itemsize}")[0])
    return -(raw + (1 << (8 * np.dtype(dtype).itemsize - 1))) if raw < 0 else raw


def test_compare_verdicts_agree_with_exact_arithmetic(tmp_path: Path) -> None:
    """Random arrays of every integer width and float type, extremes, infinities and NaNs among them, and random
    --atol / --ulp: exit 0 exactly when every element is bit-identical, NaN on both sides, or within a
    tolerance by exact (Python integer / ULP) arithmetic; else exit 1. (uint64 read as int64 once passed
    2^64 - 1 against 0 within --atol 1; a NaN beside infinity's pattern passed --ulp 1.)"""
    import math

    import numpy as np

    rng = random.Random(20261128)
    wrong = []
    for n in range(fuzz_budget(80)):
        dtype = rng.choice([np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
                            np.float32, np.float64])
        count = rng.randint(1, 6)
        if np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            pool = [int(info.min), int(info.max), 0, 1, int(info.max) // 2]
            values = [np.array([min(max(rng.choice(pool) + rng.choice([-1, 0, 0, 1]), int(info.min)), int(info.max))
                                for _ in range(count)], dtype) for _ in range(2)]
        else:
            big = float(np.finfo(dtype).max)
            pool = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, big, -big, 2.0, 0.5]
            values = [np.array([rng.choice(pool) for _ in range(count)], dtype) for _ in range(2)]
            if rng.random() < 0.3:  # the NaN pattern beside +inf's (the other elements alike)
                values[1] = values[0].copy()
                values[1][0] = np.array([0x7C01, 0x7F800001, 0x7FF0000000000001][[2, 4, 8].index(
                    np.dtype(dtype).itemsize)], f"u{np.dtype(dtype).itemsize}").view(dtype)
                values[0][0] = math.inf
        np.save(tmp_path / "a.npy", values[0])
        np.save(tmp_path / "b.npy", values[1])
        atol = rng.choice([None, 0, 1, 2, 1e19])
        ulp = rng.choice([None, 0, 1, 4]) if np.dtype(dtype).kind == "f" else None
        argv = ["compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
        argv += ["--atol", str(atol)] if atol is not None else []
        argv += ["--ulp", str(ulp)] if ulp is not None else []
        code, err = cli_status(argv)
        within = True
        for x, y in zip(values[0].tolist(), values[1].tolist()):
            same_bits = np.array([x], dtype).tobytes() == np.array([y], dtype).tobytes()
            if same_bits or (isinstance(x, float) and math.isnan(x) and math.isnan(y)):
                continue
            ok = False
            if atol is not None and not (isinstance(x, float) and (math.isnan(x) or math.isnan(y))):
                ok = abs(x - y) <= atol if not (isinstance(x, float) and math.isinf(x - y if x != y else 0.0)) \
                    else False
            if ulp is not None and not (math.isnan(x) or math.isnan(y)):
                ok = ok or abs(_ordered(x, dtype) - _ordered(y, dtype)) <= ulp
            within = within and ok
        if code != (0 if within else 1):
            wrong.append((np.dtype(dtype).name, values[0].tolist(), values[1].tolist(), atol, ulp, code, err[:100]))
    assert not wrong, wrong[:3]
