"""`ptoisa compare` and `ptoisa show` on golden-style data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptoisa.cli.main import main


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_bit_exact_then_differences(tmp_path, capsys):
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    b = a.copy()
    b[1, 2] = np.nextafter(np.float32(6), np.float32(7))  # one ULP up
    b[3, 3] = 20
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    a.tofile(tmp_path / "a.bin")
    assert _run(capsys, "compare", str(tmp_path / "a.npy"), f"{tmp_path / 'a.bin'}:f32:4x4")[0] == 0
    code, out, _ = _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    assert code == 1
    assert "2 of 16 elements differ" in out and "max abs diff 5" in out
    assert "at [1, 2]: actual 6.0, expected 6.0000005" in out and "at [3, 3]: actual 15.0, expected 20.0" in out
    assert _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--atol", "5")[0] == 0
    code, out, _ = _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--ulp", "1")
    assert code == 1 and "at [3, 3]" in out and "at [1, 2]" not in out  # the one-ULP element is accepted


def test_compare_refuses_bad_input_with_exit_2(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.zeros((2, 2), np.float32))
    (tmp_path / "odd.bin").write_bytes(b"\0" * 7)
    assert _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "none.npy"))[0] == 2
    code, _, err = _run(capsys, "compare", str(tmp_path / "a.npy"), f"{tmp_path / 'odd.bin'}:f32")
    assert code == 2 and "not a whole number of float32 elements" in err
    np.save(tmp_path / "c.npy", np.zeros((3, 2), np.float32))
    assert _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "c.npy"))[0] == 2


def test_show_unpacks_a_predicate_mask(tmp_path, capsys):
    values = np.arange(16).reshape(2, 8)
    np.save(tmp_path / "m.npy", np.packbits(values > 4, axis=1, bitorder="little"))
    code, out, _ = _run(capsys, "show", str(tmp_path / "m.npy"), "--bits")
    assert code == 0 and out.splitlines()[1:] == ["    0 .....111", "    1 11111111"]


def test_run_golden_writes_bin_npy_and_a_manifest(tmp_path, capsys):
    import json
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    data = kernel.parent / "data" / "x_64x16_f32.npy"
    out = tmp_path / "golden"
    code, _, _ = _run(capsys, "run", str(kernel), str(data), "zeros:64x16", "zeros:64x2", "2.0", "100.0",
                      "--out", str(out), "--golden", "-q")
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "mask.bin", "mask.npy", "scaled.bin",
                                                      "scaled.npy", "x.bin", "x.npy"]  # the input too
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["target"] == "a2a3" and manifest["outputs"]["scaled"]["shape"] == [64, 16]
    raw = np.fromfile(out / "scaled.bin", dtype=manifest["outputs"]["scaled"]["dtype"]).reshape(64, 16)
    assert np.array_equal(raw, np.load(out / "scaled.npy"))
    assert np.array_equal(raw, np.load(data) * np.float32(2.0))
    assert manifest["inputs"] == {"x": {"dtype": "float32", "shape": [64, 16], "files": ["x.npy", "x.bin"],
                                        "byte_order": "little"}}
    assert manifest["scalars"] == {"scale": 2.0, "threshold": 100.0}
    given = np.load(data).tobytes()
    code, out_text, _ = _run(capsys, "compare", str(out / "x.bin"), str(out / "x.bin"))  # typed by the manifest
    assert code == 0 and "identical: 1024 elements of float32" in out_text
    assert np.fromfile(out / "x.bin", np.float32).tobytes() == given == np.load(out / "x.npy").tobytes()
    # the folder's own input read back: its file is left as it is (not refused as writing over an input)
    before = (out / "x.bin").stat().st_mtime_ns
    code, _, err = _run(capsys, "run", str(kernel), f"{out / 'x.bin'}:f32:64x16", "zeros:64x16", "zeros:64x2", "2.0",
                        "100.0", "--out", str(out), "--golden", "-q")
    assert code == 0 and (out / "x.bin").stat().st_mtime_ns == before and "x.bin" not in err, err
    assert np.array_equal(np.load(out / "scaled.npy"), raw)
    assert _run(capsys, "run", str(kernel), str(data), "zeros:64x16", "zeros:64x2", "2", "1", "--golden")[0] == 2


def test_show_image_needs_matplotlib_and_says_so(tmp_path, capsys, monkeypatch):
    import sys

    np.save(tmp_path / "a.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    code, out, err = _run(capsys, "show", str(tmp_path / "a.npy"), "--image", str(tmp_path / "a.png"))
    assert code == 2 and "needs matplotlib" in err and out == ""  # said before printing anything
    assert not (tmp_path / "a.png").exists()


def test_show_image_writes_a_png_when_matplotlib_is_there(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    np.save(tmp_path / "m.npy", np.array([[0b10100101, 0xFF]], np.uint8))
    code, out, _ = _run(capsys, "show", str(tmp_path / "m.npy"), "--bits", "--image", str(tmp_path / "m.png"))
    assert code == 0 and "1.1..1.111111111" in out
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = _run(capsys, "show", str(tmp_path / "m.npy"), "--image", str(tmp_path / "m.npy"))
    assert code == 2 and "input" in err


def test_files_that_are_not_npy_arrays_are_named_as_such(tmp_path, capsys):
    (tmp_path / "text.npy").write_text("hello")
    np.save(tmp_path / "obj.npy", np.array([{}], dtype=object), allow_pickle=True)
    code, _, err = _run(capsys, "show", str(tmp_path / "text.npy"))
    assert code == 2 and "not a NumPy .npy file" in err and "pickle" not in err
    code, _, err = _run(capsys, "show", str(tmp_path / "obj.npy"))
    assert code == 2 and "Python objects" in err and "allow_pickle" not in err


def test_bfloat16_npy_files_read_back_without_a_dtype(tmp_path, capsys):
    import ml_dtypes

    values = np.array([[1.5, -2.0, 3.25]], dtype=ml_dtypes.bfloat16)
    np.save(tmp_path / "bf.npy", values)  # NumPy stores it as raw 2-byte void
    code, out, _ = _run(capsys, "show", str(tmp_path / "bf.npy"))
    assert code == 0 and "bfloat16[1, 3]" in out and "-2" in out and "3.25" in out


def test_compare_reads_a_golden_bin_through_its_manifest(tmp_path, capsys):
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    data = kernel.parent / "data" / "x_64x16_f32.npy"
    assert main(["run", str(kernel), str(data), "zeros:64x16", "zeros:64x2", "2.0", "100.0", "-q",
                 "--out", str(tmp_path / "g"), "--golden"]) == 0
    capsys.readouterr()
    code, out, err = _run(capsys, "compare", str(tmp_path / "g" / "scaled.bin"), str(tmp_path / "g" / "scaled.npy"))
    assert code == 0 and "identical: 1024 elements of float32" in out, err


def test_a_raw_output_without_a_type_takes_the_golden_files(tmp_path, capsys):
    """A device's raw output (no dtype anywhere) against `run --golden`'s data or a .npy: it is read with the
    other file's element type and shape, and a line says so; two untyped raw files remain an error."""
    import ml_dtypes

    golden = np.array([[1.5, -2.0], [3.25, 0.5]], dtype=np.float32)
    np.save(tmp_path / "golden.npy", golden)
    device = golden.copy()
    device[1, 0] = 3.5
    device.tofile(tmp_path / "device.bin")
    code, out, err = _run(capsys, "compare", str(tmp_path / "device.bin"), str(tmp_path / "golden.npy"))
    assert code == 1, err
    assert out.splitlines()[0] == f"{tmp_path / 'device.bin'}: read as float32, the element type of " \
                                  f"{tmp_path / 'golden.npy'}"
    assert "at [1, 0]: actual 3.5, expected 3.25" in out
    half = golden.astype(ml_dtypes.bfloat16)  # 2-byte elements: read as f32 it would be half as many
    np.save(tmp_path / "bf.npy", half)
    half.tofile(tmp_path / "bf.bin")
    code, out, _ = _run(capsys, "compare", str(tmp_path / "bf.npy"), str(tmp_path / "bf.bin"))
    assert code == 0 and "identical: 4 elements of bfloat16" in out
    code, out, err = _run(capsys, "compare", str(tmp_path / "device.bin"), str(tmp_path / "bf.bin"))
    assert code == 2 and out == "" and "a raw file needs its element type" in err and "--dtype" in err


def test_compare_says_how_to_compare_with_a_float64_reference(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.ones((2, 3), np.float32))
    np.save(tmp_path / "b.npy", np.ones((2, 3)))
    code, _, err = _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    assert code == 2 and "astype(np.float32)" in err


def _npy(path, header: bytes, data: bytes = b"") -> None:
    header = header + b" " * (64 - (10 + len(header)) % 64 - 1) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data)


def test_hostile_npy_and_raw_files_are_usage_errors(tmp_path, capsys):
    """Damaged headers, headers promising more data than the file has, non-numeric arrays, bad dtype and shape
    text: exit 2 with a reason, never a crash or a huge allocation."""
    _npy(tmp_path / "tok.npy", b"{'descr': '<f4', 'fortran_order': False, 'shape': ((4, 4), }")
    _npy(tmp_path / "huge.npy", b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", b"\0" * 64)
    np.save(tmp_path / "s.npy", np.array([b"ab", b"cd"]))
    np.save(tmp_path / "v.npy", np.zeros(4, "V4"))
    np.save(tmp_path / "st.npy", np.zeros(4, [("a", "<f2"), ("b", "<f2")]))
    np.save(tmp_path / "good.npy", np.zeros(4, np.float32))
    (tmp_path / "x.bin").write_bytes(b"\0" * 16)
    cases = [(["show", "tok.npy"], "damaged .npy header"), (["show", "huge.npy"], "promises 4000000000000 bytes"),
             (["compare", "s.npy", "good.npy"], "not numbers"), (["compare", "v.npy", "good.npy"], "--dtype"),
             (["show", "st.npy"], "not numbers"), (["show", "x.bin", "--dtype", "(2,"], "unknown element type"),
             (["show", "x.bin:f32:-2x-2"], "cannot be negative"), (["show", "x.bin:(1,2)V"], "unknown element type")]
    for argv, reason in cases:
        argv = [argv[0]] + [str(tmp_path / a) if "." in a and not a.startswith("(") else a for a in argv[1:]]
        code, _, err = _run(capsys, *argv)
        assert code == 2 and reason in err and "internal error" not in err, (argv, err)
    kernel = str(Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_softmax.pto")
    code, _, err = _run(capsys, "run", kernel, str(tmp_path / "tok.npy"), "zeros:8x64")
    assert code == 2 and "damaged .npy header" in err


def test_an_empty_mask_shows_as_empty(tmp_path, capsys):
    np.save(tmp_path / "m.npy", np.zeros((0, 5), np.uint8))
    code, out, _ = _run(capsys, "show", str(tmp_path / "m.npy"), "--bits")
    assert code == 0 and "no elements" in out


def test_shapes_numpy_cannot_make_are_usage_errors(tmp_path, capsys):
    """More dimensions than NumPy allows (64), or a size past its index type beside a zero (no element, so no
    --max-bytes or size check stops it), in a header, a zeros: spec, FILE.bin:DTYPE:SHAPE or --shape; and header
    sizes NumPy's own check lets through (True, -1): exit 2 with the shape named, never an internal error."""
    many = "x".join(["1"] * 70)
    (tmp_path / "one.bin").write_bytes(b"\0" * 4)
    (tmp_path / "none.bin").write_bytes(b"")
    for name, shape in (("many", "(" + "1, " * 70 + ")"), ("past", "(99999999999999999999999, 0)"),
                        ("bool", "(True, 4)"), ("neg", "(-1, 4)"), ("zero", "(0, 9223372036854775808)")):
        _npy(tmp_path / f"{name}.npy", b"{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape.encode(),
             b"\0" * 16)
    kernel = str(Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_softmax.pto")
    cases = [(["show", f"one.bin:f32:{many}"], "maximum supported dimension"),
             (["show", "none.bin:f32:0x99999999999999999999"], "Maximum allowed dimension"),
             (["show", "none.bin", "--dtype", "f32", "--shape", "0x99999999999999999999"], "bad shape"),
             (["compare", "none.bin:f32:0", "none.bin:f32:0x99999999999999999999"], "bad shape"),
             (["show", "many.npy"], "maximum supported dimension"), (["show", "past.npy"], "sizes NumPy can hold"),
             (["show", "bool.npy"], "(True, 4) is not a tuple"), (["show", "neg.npy"], "(-1, 4) is not a tuple"),
             (["show", "zero.npy"], "sizes NumPy can hold"),
             (["run", kernel, "past.npy", "zeros:8x64"], "sizes NumPy can hold"),
             (["run", kernel, f"one.bin:f32:{many}", "zeros:8x64"], "bad shape"),
             (["run", kernel, "none.bin:f16:0x99999999999999999999", "zeros:8x64"], "bad shape"),
             (["run", kernel, "zeros:0x99999999999999999999", "zeros:8x64"], "bad shape"),
             (["run", kernel, f"zeros:{many}", "zeros:8x64"], "bad shape")]
    for argv, reason in cases:
        argv = [argv[0]] + [str(tmp_path / a) if a.split(":")[0].endswith((".npy", ".bin")) else a for a in argv[1:]]
        code, _, err = _run(capsys, *argv)
        assert code == 2 and reason in err and "internal error" not in err, (argv, err)


def test_compare_measures_64_bit_integers_exactly(tmp_path, capsys):
    """uint64 values past int64 and int64 differences past it: measured as the integers they are. Before, uint64
    was read as int64 (2^64 - 1 as -1: 'within --atol 1' of 0, exit 0) and int64 differences wrapped (a negative
    'max abs diff'). Smaller integers and floats are measured as before."""
    np.save(tmp_path / "u.npy", np.array([2**64 - 1, 5], np.uint64))
    np.save(tmp_path / "u0.npy", np.array([0, 5], np.uint64))
    np.save(tmp_path / "s.npy", np.array([2**62, -(2**63)], np.int64))
    np.save(tmp_path / "s0.npy", np.array([-(2**62), 2**63 - 1], np.int64))
    code, out, _ = _run(capsys, "compare", str(tmp_path / "u.npy"), str(tmp_path / "u0.npy"), "--atol", "1")
    assert code == 1 and "max abs diff 1.84467e+19" in out and "1 outside the tolerances given" in out
    assert "at [0]: actual 18446744073709551615, expected 0" in out
    code, out, _ = _run(capsys, "compare", str(tmp_path / "s.npy"), str(tmp_path / "s0.npy"))
    assert code == 1 and "max abs diff 1.84467e+19, max rel diff 2" in out
    np.save(tmp_path / "i.npy", np.array([7, -3], np.int16))
    np.save(tmp_path / "i0.npy", np.array([5, -3], np.int16))
    code, out, _ = _run(capsys, "compare", str(tmp_path / "i.npy"), str(tmp_path / "i0.npy"), "--atol", "2")
    assert code == 0 and "max abs diff 2, max rel diff 0.4\nall within the tolerances given" in out


def test_compare_ulps_across_the_whole_double_line_and_never_to_a_nan(tmp_path, capsys):
    """ULP distances of doubles of opposite signs (up to 2^64 - 2) are exact, not wrapped into int64; a NaN
    whose bit pattern lies next to infinity's (0x7f800001 beside 0x7f800000) is 1 ULP from it but never within
    --ulp of it; the signalling NaN converts without a NumPy warning."""
    np.save(tmp_path / "a.npy", np.array([np.inf, 1.0], np.float64))
    np.save(tmp_path / "b.npy", np.array([-np.inf, 1.0], np.float64))
    code, out, _ = _run(capsys, "compare", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    assert code == 1 and f"max ULP {2 * 0x7FF0000000000000}" in out
    np.save(tmp_path / "inf.npy", np.array([np.inf], np.float32))
    np.save(tmp_path / "snan.npy", np.array([0x7F800001], np.uint32).view(np.float32))
    code, out, err = _run(capsys, "compare", str(tmp_path / "inf.npy"), str(tmp_path / "snan.npy"), "--ulp", "1")
    assert code == 1 and "1 outside the tolerances given" in out and "Warning" not in err
