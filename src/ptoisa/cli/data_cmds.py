"""`ptoisa compare` and `ptoisa show`: look at output data the way golden-data tests do.

compare: two arrays (.npy, or raw .bin with a dtype and shape) bit for bit first; when they differ, the mismatch
count, the first mismatching elements with their coordinates, and the largest absolute, relative and ULP
differences, judged against optional tolerances.
show: an array as text, with a predicate mask (uint8 packed bits) optionally unpacked into a grid of 1 and .
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, TextIO

from .numbers import foreign

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2

COMPARE_DOC = """\
Compare two arrays element by element. Exit 0 when they are bit-identical, or within the tolerances given;
1 when they differ; 2 when a file cannot be read or the shapes do not agree.

Files: FILE.npy (dtype and shape from the file; a 2-byte raw-void array, which is how NumPy stores bfloat16, is
read as bfloat16; fp8 arrays need --dtype), or FILE.bin[:DTYPE[:SHAPE]] raw little-endian data as NPU test
suites store golden data (--dtype and --shape apply to both when the spec does not say; a .bin written by
`ptoisa run --golden` takes them from the manifest.json beside it; a raw .bin that still has no element type
takes the other file's, and a line says so).

examples:
  ptoisa compare out/scaled.npy golden/scaled.npy
  ptoisa compare npu_output.bin golden/scaled.bin          (dtype and shape from golden/manifest.json)
  ptoisa compare out/mask.bin:u8:64x2 golden.bin --first 5
  ptoisa compare a.npy b.npy --atol 1e-6 --rtol 1e-3 --ulp 2"""

SHOW_DOC = """\
Print an array (.npy, or FILE.bin:DTYPE[:SHAPE]) as text. --bits unpacks a packed predicate mask (8 elements per
byte, element 0 in the lowest bit, as TCMPS writes it) into a grid: one character per element, 1 for a set
bit and . for a clear one, each row led by its row number.

examples:
  ptoisa show out/scaled.npy
  ptoisa show out/mask.npy --bits"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cmp = sub.add_parser("compare", help="compare two arrays: bit-exact, else abs/rel/ULP differences",
                         description=COMPARE_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmp.add_argument("actual", metavar="ACTUAL")
    cmp.add_argument("expected", metavar="EXPECTED")
    cmp.add_argument("--dtype", help="element type for raw .bin files (f32, f16, bf16, i32, u8, ...)")
    cmp.add_argument("--shape", help="shape for raw .bin files, e.g. 16x16")
    cmp.add_argument("--atol", type=_tolerance, default=None, help="accept |a - e| <= atol + rtol * |e|")
    cmp.add_argument("--rtol", type=_tolerance, default=None, help="relative tolerance (with --atol)")
    cmp.add_argument("--ulp", type=_count, default=None, help="accept floats at most this many ULPs apart")
    cmp.add_argument("--first", type=_count, default=10, metavar="N", help="how many mismatches to list (default 10)")
    cmp.set_defaults(func=cmd_compare, loads=("numpy",))

    show = sub.add_parser("show", help="print an array, or a packed predicate mask as a grid of bits",
                          description=SHOW_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("file", metavar="FILE")
    show.add_argument("--dtype", help="element type for a raw .bin file")
    show.add_argument("--shape", help="shape for a raw .bin file, e.g. 16x16")
    show.add_argument("--bits", action="store_true", help="unpack uint8 predicate bytes: 1 (set) or . (clear) per element")
    show.add_argument("--image", metavar="FILE.png",
                      help="also draw the array (or, with --bits, the mask) as an image (needs matplotlib); "
                           "with /dev/stdout the PNG alone goes to standard output, the text to standard error")
    show.set_defaults(func=cmd_show, loads=("numpy",))


def _have_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _tolerance(text: str) -> float:
    """A finite, non-negative tolerance (argparse turns the ValueError into a usage error naming the option)."""
    _ascii(text, _tolerance)
    value = float(text)
    if not value >= 0 or value == float("inf"):
        raise ValueError(text)
    return value


def _count(text: str) -> int:
    _ascii(text, _count)
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _ascii(text: str, kind: Any) -> None:
    """Other scripts' digits, which int() and float() read, are refused saying so (ptoisa.cli.numbers)."""
    if not text.isascii():
        raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r}{foreign(text)}")


_tolerance.__name__ = "non-negative number"  # argparse names the type in its message
_count.__name__ = "non-negative whole number"


class DataError(Exception):
    """A file that cannot be read as the array it claims to be."""


class NoElementType(DataError):
    """A raw file whose element type nothing gave (no FILE.bin:DTYPE, no --dtype, no manifest beside it)."""


def load_array(spec: str, dtype: str | None = None, shape: str | None = None) -> Any:
    """An array from FILE.npy or FILE.bin[:DTYPE[:SHAPE]] (DataError when it cannot be read as such)."""
    import numpy as np

    from ..dtypes import as_dtype
    from ..errors import PtoError

    from .files import manifest_entry, read_npy

    path, *rest = spec.split(":")
    if len(rest) > 2:
        raise DataError(f"{spec}: write FILE.bin[:DTYPE[:SHAPE]]")
    dtype = rest[0] if rest and rest[0] else dtype
    shape = rest[1] if len(rest) == 2 else shape
    if path.endswith(".bin") and (dtype is None or shape is None):  # `run --golden` wrote a manifest beside it
        entry = manifest_entry(path)
        if entry is not None:
            dtype = dtype or str(entry.get("dtype"))
            shape = shape or "x".join(str(d) for d in entry.get("shape", ()))
    if not os.path.isfile(path):
        raise DataError(f"cannot read {path}: " + ("not a regular file" if os.path.exists(path) else "no such file"))
    try:
        np_dtype = as_dtype(dtype).np if dtype else None
    except PtoError as exc:
        raise DataError(str(exc)) from None
    if path.endswith(".npy"):
        try:
            array = read_npy(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
        if np_dtype is None and array.dtype.kind == "V" and array.dtype.itemsize == 2:
            np_dtype = as_dtype("bf16").np  # NumPy stores ml_dtypes' bfloat16 as raw 2-byte void: read it back
        if np_dtype is not None and array.dtype != np_dtype:
            if array.dtype.kind == "V" and array.dtype.itemsize == np_dtype.itemsize:
                array = array.view(np_dtype)
            else:
                raise DataError(f"{path} holds {array.dtype}, not {np_dtype}")
    else:
        if np_dtype is None:
            raise NoElementType(f"{path}: a raw file needs its element type (FILE.bin:DTYPE or --dtype)")
        size = os.path.getsize(path)
        if size % np_dtype.itemsize:
            raise DataError(f"{path} holds {size} bytes, not a whole number of {np_dtype} elements")
        array = np.fromfile(path, dtype=np_dtype)
    if not _numeric(array.dtype):
        raise DataError(f"{path} holds {array.dtype}, not numbers ptoisa knows"
                        + (" (raw bytes: give the element type with --dtype or FILE:DTYPE)"
                           if array.dtype.kind == "V" and array.dtype.names is None else ""))
    if shape:
        try:
            dims = tuple(int(d) for d in shape.lower().replace(",", "x").split("x") if d) if shape.isascii() else None
        except ValueError:
            dims = None
        if dims is None:
            raise DataError(f"bad shape {shape!r}{foreign(shape) or ' (write e.g. 16x16)'}")
        if any(d < 0 for d in dims):
            raise DataError(f"bad shape {shape!r}: sizes cannot be negative")
        if math.prod(dims) != array.size:
            raise DataError(f"{path} holds {array.size} elements, not {'x'.join(map(str, dims))}")
        try:
            array = array.reshape(dims)
        except ValueError as exc:  # more dimensions than NumPy allows, or a size past its index type
            raise DataError(f"bad shape {shape!r} ({exc})") from None
    return array


def cmd_compare(args: argparse.Namespace, out: TextIO) -> int:
    import numpy as np

    try:
        actual, expected = _load_pair(args, out)
    except DataError as exc:
        sys.stderr.write(f"ptoisa: error: {exc}\n")
        return EXIT_USAGE
    if actual.shape != expected.shape and actual.size == expected.size and actual.ndim == 1:
        actual = actual.reshape(expected.shape)
    if expected.shape != actual.shape and expected.size == actual.size and expected.ndim == 1:
        expected = expected.reshape(actual.shape)
    if actual.shape != expected.shape or actual.dtype.itemsize != expected.dtype.itemsize:
        hint = ""
        if actual.shape == expected.shape and _is_float(actual) and _is_float(expected):
            hint = (f" (a bit-exact comparison needs one element type: convert the reference first, e.g. "
                    f"np.save(path, reference.astype(np.{actual.dtype.name})), then compare with --ulp or --atol)")
        sys.stderr.write(f"ptoisa: error: cannot compare {actual.dtype}{list(actual.shape)} with "
                         f"{expected.dtype}{list(expected.shape)}{hint}\n")
        return EXIT_USAGE
    if actual.tobytes() == expected.tobytes():
        out.write(f"identical: {actual.size} elements of {actual.dtype}, bit for bit\n")
        return EXIT_OK
    a, e = _numbers(actual), _numbers(expected)
    differ = actual.view(_bits(actual)) != expected.view(_bits(expected))
    both_nan = np.isnan(a) & np.isnan(e) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    with np.errstate(all="ignore"):
        diff = np.abs(a - e).astype(np.float64)  # (64-bit integers: exact Python ints, then their nearest float)
        size = np.abs(e).astype(np.float64)
        rel = diff / size
    ulp = _ulp_distance(actual, expected) if actual.dtype == expected.dtype and _is_float(actual) else None
    accept = np.zeros(a.shape, dtype=bool) | both_nan
    if args.atol is not None or args.rtol is not None:
        with np.errstate(all="ignore"):  # (rtol 0 times an infinite size: NaN, never within)
            accept |= diff <= (args.atol or 0.0) + (args.rtol or 0.0) * size
    if args.ulp is not None and ulp is not None:
        accept |= (ulp <= args.ulp) & ~(np.isnan(a) | np.isnan(e))  # (a NaN pattern may lie next to inf's)
    bad = differ & ~accept
    count = int(differ.sum())
    out.write(f"{count} of {actual.size} elements differ in their bits ({100.0 * count / actual.size:.3g}%)\n")
    finite = np.isfinite(diff)
    one_nan = (np.isnan(a) != np.isnan(e)) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    if one_nan.any():
        out.write(f"{int(one_nan.sum())} element(s) are NaN on one side only\n")
    if finite.any():
        out.write(f"max abs diff {float(diff[finite].max()):.6g}")
        r = rel[np.isfinite(rel)]
        out.write(f", max rel diff {float(r.max()):.6g}" if r.size else "")
        out.write(f", max ULP {int(ulp[differ].max())}" if ulp is not None and differ.any() else "")
        out.write("\n")
    if not bad.any():
        out.write("all within the tolerances given\n")
        return EXIT_OK
    out.write(f"{int(bad.sum())} outside the tolerances given\n" if (args.atol, args.rtol, args.ulp) !=
              (None, None, None) else "")
    for where in np.argwhere(bad)[:args.first]:
        key = tuple(int(x) for x in where)
        out.write(f"  at {list(key)}: actual {str(actual[key])}, expected {str(expected[key])}\n")
    return EXIT_DIFFERENT


def _load_pair(args: argparse.Namespace, out: TextIO) -> tuple[Any, Any]:
    """ACTUAL and EXPECTED. A raw .bin that says nothing of its element type takes the other file's (a device's
    raw output against `run --golden`'s data or a .npy), and a line says so; when neither says, it is an error."""
    specs = (args.actual, args.expected)
    arrays: list[Any] = [None, None]
    untyped: dict[int, NoElementType] = {}
    for side, spec in enumerate(specs):
        try:
            arrays[side] = load_array(spec, args.dtype, args.shape)
        except NoElementType as exc:
            untyped[side] = exc
    if len(untyped) == 2:
        raise NoElementType(f"{specs[0]}: a raw file needs its element type: FILE.bin:DTYPE, --dtype, or on the "
                            f"other side a .npy or a `run --golden` .bin, whose element type it then takes")
    for side in untyped:
        other = arrays[1 - side]
        arrays[side] = load_array(specs[side], str(other.dtype), args.shape)
        out.write(f"{specs[side]}: read as {other.dtype}, the element type of {specs[1 - side]}\n")
    return arrays[0], arrays[1]


def _numeric(dtype: Any) -> bool:
    """Integers, bools and floats, NumPy's or ml_dtypes' (bfloat16 and the 8-bit floats)."""
    return dtype.kind in "biuf" or dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def _is_float(array: Any) -> bool:
    import numpy as np

    return array.dtype.kind == "f" or array.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def _numbers(array: Any) -> Any:
    """The values as numbers whose differences are exact: floats as float64; integers as int64, or as Python ints
    (an object array) when 64 bits wide (uint64 past int64, int64 differences past it)."""
    import numpy as np

    if _is_float(array) or array.dtype.kind == "f":
        with np.errstate(invalid="ignore"):  # (a signalling NaN converts quietly to a NaN)
            return array.astype(np.float64)
    return array.astype(object if array.dtype.itemsize == 8 else np.int64)


def _bits(array: Any) -> Any:
    import numpy as np

    return np.dtype(f"u{array.dtype.itemsize}")


def _ulp_distance(a: Any, b: Any) -> Any:
    """ULPs between floats of one type: the distance of their bit patterns on the ordered integer line."""
    import numpy as np

    bits = np.dtype(f"i{a.dtype.itemsize}")
    wide = np.int64

    def ordered(x: Any) -> Any:
        raw = x.view(bits).astype(wide)
        top = wide(1) << (8 * x.dtype.itemsize - 1)
        return np.where(raw < 0, -(raw + top), raw)  # -0.0 and +0.0 meet at 0

    oa, ob = ordered(a), ordered(b)  # (each fits int64; their distance, up to 2^64 - 2 for doubles, fits uint64)
    ua, ub = oa.astype(np.uint64), ob.astype(np.uint64)
    return np.where(oa >= ob, ua - ub, ub - ua)


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    import numpy as np

    try:
        array = load_array(args.file, args.dtype, args.shape)
    except DataError as exc:
        sys.stderr.write(f"ptoisa: error: {exc}\n")
        return EXIT_USAGE
    if args.bits and array.dtype.itemsize != 1 and array.dtype.kind not in "ui":
        sys.stderr.write("ptoisa: error: --bits needs integer predicate bytes\n")
        return EXIT_USAGE
    if args.image and not _have_matplotlib():  # say so before printing anything
        sys.stderr.write("ptoisa: error: --image needs matplotlib (pip install matplotlib)\n")
        return EXIT_USAGE
    if args.image:
        from .files import is_stdout

        if is_stdout(args.image):  # standard output holds the image alone; the text goes to standard error
            out = sys.stderr
    out.write(f"{args.file}: {array.dtype}{list(array.shape)}\n")
    if args.bits:
        raw = np.ascontiguousarray(array).view(np.uint8)
        if raw.size == 0:
            out.write("no elements\n")
            return EXIT_OK
        rows = raw.reshape(raw.shape[0], -1) if raw.ndim > 1 else raw.reshape(1, -1)
        grid = np.unpackbits(rows, axis=1, bitorder="little")
        for r, row in enumerate(grid):
            out.write(f"{r:>5} " + "".join("1" if b else "." for b in row) + "\n")
        return _image(args, grid, out)
    with np.printoptions(linewidth=120, threshold=4096, edgeitems=8):
        out.write(str(array) + "\n")
    return _image(args, array, out)


def _image(args: argparse.Namespace, array: Any, out: TextIO) -> int:
    """`--image`: the array as a heat map (one cell per element), written atomically, never over the input."""
    if not args.image:
        return EXIT_OK
    try:
        import matplotlib  # type: ignore[import-not-found]  # optional (the image extra)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found]
    except ImportError:
        sys.stderr.write("ptoisa: error: --image needs matplotlib (pip install matplotlib); the text above is "
                         "the same data\n")
        return EXIT_USAGE
    import io

    import numpy as np

    from .files import OutputRefused, write_output

    grid = np.asarray(array, dtype=np.float64)
    grid = grid.reshape(1, -1) if grid.ndim < 2 else grid.reshape(grid.shape[0], -1)
    figure, axes = plt.subplots(figsize=(min(12, 2 + grid.shape[1] / 8), min(12, 2 + grid.shape[0] / 8)))
    shown = axes.imshow(grid, interpolation="nearest", aspect="auto", cmap="viridis")
    figure.colorbar(shown, ax=axes)
    axes.set_title(f"{args.file}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    try:
        replaced = write_output(args.image, buffer.getvalue(), inputs=[args.file.split(":")[0]])
    except (OutputRefused, OSError) as exc:
        sys.stderr.write(f"ptoisa: error: {exc}\n")
        return EXIT_USAGE
    out.write(f"image: {args.image}" + (" (replaced)" if replaced else "") + "\n")
    return EXIT_OK
