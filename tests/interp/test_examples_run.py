"""The shipped runnable kernels (examples/pto/run_*.pto) against the seed formulas, computed here with NumPy."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from ptoisa.cli.main import main
from ptoisa.interp import load
from ptoisa.targets import make_config

EXAMPLES = Path(__file__).parents[2] / "examples" / "pto"


@pytest.fixture(autouse=True)
def _quiet_errata():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def packed_gt(values: np.ndarray, threshold: float) -> np.ndarray:
    """TCMPS seed formula dst[i, j] = src[i, j] > scalar, packed 8 per byte, element 0 in bit 0 (A2/A3)."""
    return np.packbits(values > np.float32(threshold), axis=1, bitorder="little")


@pytest.mark.parametrize("target", ["a2a3", "cpu"])
def test_scale_compare(target: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-100, 100, (64, 16)).astype(np.float32)
    scaled, mask = np.zeros_like(x), np.zeros((64, 2), np.uint8)
    result = load(EXAMPLES / "run_scale_compare.pto").run(x, scaled, mask, 1.5, 30.0, target=target)
    expected = x * np.float32(1.5)  # TPARTMUL, both valid: the product; TEXPANDS broadcast the scalar
    assert np.array_equal(scaled, expected)
    assert np.array_equal(mask, packed_gt(expected, 30.0))
    assert set(result.outputs) == {"scaled", "mask"} and result.outputs["mask"] is mask
    assert result.target == target and result.entry == "scale_compare"


def test_iota_gather() -> None:
    rng = np.random.default_rng(2)
    src = rng.standard_normal(256).astype(np.float32)
    idx = rng.integers(0, 256, 16).astype(np.int32)
    evens, gathered = np.zeros((5, 8), np.int32), np.zeros(16, np.float32)
    result = load(EXAMPLES / "run_iota_gather.pto").run(src, idx, evens, gathered, -7, 5)
    start = -7 + 16 * np.arange(5)[:, None]
    seq = start + np.arange(16)  # TCI ascending: S + k
    assert np.array_equal(evens, seq[:, 0::2])  # P0101 keeps element 0 of every 2
    assert np.array_equal(gathered, src[idx])  # index gather over the flat row-major tile
    assert result.returns == (-7 + 16 * 5,)


def _select_expected(scores, rows, k, block, row_stride):
    s = scores[8 * block: 8 * block + 8]
    prod = np.where(np.arange(8)[:, None] < rows, s * np.float32(2.0), np.float32(2.0))  # TPARTMUL partial
    idx = np.full((8, 16), -1, np.int32)
    counts = np.zeros(8, np.int32)
    for i in range(8):
        js = np.nonzero(prod[i] > np.float32(k))[0]
        idx[i, :js.size] = i * row_stride + js
        counts[i] = js.size
    total = counts.sum() if counts.sum() > 0 else -1
    return idx, counts, total


@pytest.mark.parametrize(("errata", "row_stride"), [(False, 16), (True, 64)])
def test_select_count(errata: bool, row_stride: int) -> None:
    rng = np.random.default_rng(3)
    scores = rng.uniform(0, 4, (24, 16)).astype(np.float32)
    idx_out, counts, total = np.zeros((24, 16), np.int32), np.zeros((3, 8), np.int32), np.zeros(3, np.int32)
    program = load(EXAMPLES / "run_select_count.pto")
    config = make_config("a5", errata=errata)
    for block in range(3):
        program.run(scores, idx_out, counts, total, 3.0, 5, target=config, block=(block, 3))
        e_idx, e_counts, e_total = _select_expected(scores, 5, 3.0, block, row_stride)
        assert np.array_equal(idx_out[8 * block: 8 * block + 8], e_idx)
        assert np.array_equal(counts[block], e_counts)
        assert total[block] == e_total
    assert program.decode_count == 1


def test_cli_runs_example_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(4)
    x = rng.uniform(-10, 10, (64, 16)).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    status = main(["run", str(EXAMPLES / "run_scale_compare.pto"), f"{tmp_path / 'x.bin'}:f32:64x16",
                   "zeros:64x16", "mask=zeros:64x2", "--arg", "scale=2", "threshold=1.0", "--out", str(tmp_path)])
    assert status == 0
    text = capsys.readouterr().out
    assert "target: a2a3" in text and "@scale_compare" in text and "%mask" in text and "written" in text
    mask = np.load(tmp_path / "mask.npy")
    assert np.array_equal(mask, packed_gt(x * np.float32(2), 1.0))
    assert np.array_equal(np.load(tmp_path / "scaled.npy"), x * np.float32(2))
    assert not (tmp_path / "mask.bin").exists()


def test_cli_bin_in_bin_out(tmp_path: Path) -> None:
    src = np.arange(256, dtype=np.float32)
    src.tofile(tmp_path / "src.bin")
    np.array([5, 200, 17, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], np.int32).tofile(tmp_path / "idx.bin")
    np.zeros(16, np.float32).tofile(tmp_path / "g.bin")
    status = main(["run", str(EXAMPLES / "run_iota_gather.pto"), "-q", "--out", str(tmp_path / "o"),
                   "--arg", f"src={tmp_path / 'src.bin'}", f"idx={tmp_path / 'idx.bin'}", "evens=zeros:2x8",
                   f"gathered={tmp_path / 'g.bin'}", "start=0", "rows=2"])
    assert status == 0
    out = np.fromfile(tmp_path / "o" / "gathered.bin", dtype=np.float32)
    assert out[:5].tolist() == [5.0, 200.0, 17.0, 0.0, 255.0]
    assert np.load(tmp_path / "o" / "evens.npy").tolist() == [list(range(0, 16, 2)), list(range(16, 32, 2))]


def test_every_example_kernel_runs_as_its_header_says(tmp_path, capsys):
    """The `ptoisa run ...` line at the top of each examples/pto kernel works as written from the repository
    root (its input files are shipped in examples/pto/data)."""
    import os
    import shlex

    root = EXAMPLES.parents[1]
    commands = []
    for kernel in sorted(EXAMPLES.glob("*.pto")):
        for line in kernel.read_text().splitlines()[:8]:
            if "ptoisa run examples/pto/" in line:
                commands.append(shlex.split(line.split("ptoisa ", 1)[1]))
    assert len(commands) >= 6
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for argv in commands:
            argv = [a if a != "results/" else str(tmp_path / "results") for a in argv]
            assert main([*argv, "-q"]) == 0, argv
    finally:
        os.chdir(cwd)


def test_random_inputs_are_made_up_the_same_way_every_time(tmp_path, capsys):
    """`random:SHAPE[:SEED]` gives a kernel input with no file to write first: NumPy's default_rng(SEED), seed 0
    unless given, floats uniform in [-1, 1) rounded to the element type, integers in [-8, 8) ([0, 16) unsigned);
    the same spec gives the same data, another seed other data."""
    from types import SimpleNamespace

    import ml_dtypes

    from ptoisa.cli import run_impl

    kernel = str(EXAMPLES / "run_scale_compare.pto")

    def scaled(spec, name):
        assert main(["run", kernel, spec, "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q",
                     "--out", str(tmp_path / name)]) == 0
        return np.load(tmp_path / name / "scaled.npy")

    first, again, other = scaled("random:64x16", "a"), scaled("random:64x16:0", "b"), scaled("random:64x16:7", "c")
    expected = np.random.default_rng(0).uniform(-1.0, 1.0, (64, 16)).astype(np.float32)
    assert np.array_equal(first, expected * np.float32(2)) and np.array_equal(again, first)
    assert not np.array_equal(other, first)
    assert main(["run", kernel, "random:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q",
                 "--out", str(tmp_path / "g"), "--golden"]) == 0
    assert np.fromfile(tmp_path / "g" / "x.bin", np.float32).tobytes() == expected.tobytes()  # kept with --golden

    def made(dtype, spec):
        param = SimpleNamespace(kind="tensor", name="t", dtype=np.dtype(dtype), type_text="!pto.ptr<...>")
        return run_impl._tensor(param, spec)

    ints, uints = made(np.int16, "random:1000"), made(np.uint8, "random:1000:3")
    assert ints.dtype == np.int16 and ints.min() == -8 and ints.max() == 7
    assert uints.dtype == np.uint8 and uints.min() == 0 and uints.max() == 15
    half = made(ml_dtypes.bfloat16, "random:4x8")
    assert half.shape == (4, 8) and np.all(np.abs(half.astype(np.float32)) <= 1)
    scales = made(ml_dtypes.float8_e8m0fnu, "random:64").astype(np.float32)
    assert set(np.log2(scales).tolist()) <= set(range(-4, 5))
    with pytest.raises(run_impl._Usage, match=r"bad seed 'x' \(write random:SHAPE\[:SEED\]"):
        made(np.float32, "random:4x4:x")
