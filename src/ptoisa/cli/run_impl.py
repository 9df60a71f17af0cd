"""The work behind `ptoisa run` (imported only when a run starts; the parser lives in run_cmd)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import warnings
from math import prod
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .._shown import shown
from ..errors import PtoError
from ..targets import ENV_VAR, Config, make_config
from .files import read_npy
from .numbers import foreign
from .wording import for_cli

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

class _Usage(Exception):
    pass


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    """`ptoisa run`; with --format json a failed run prints `{"ok": false, "status": N, "errors": [...]}` on
    standard output too (its text stays on standard error), so a script always has one JSON object to read."""
    if args.format != "json":
        return _run(args, out)
    seen = io.StringIO()
    with contextlib.redirect_stderr(_Tee(sys.stderr, seen)):
        status = _run(args, out)
    if status != EXIT_OK:
        prefix = "ptoisa: error: "
        errors = [line[len(prefix):] for line in seen.getvalue().splitlines() if line.startswith(prefix)]
        out.write(json.dumps({"ok": False, "status": status, "errors": errors or [seen.getvalue().strip()]}) + "\n")
    return status


class _Tee(io.TextIOBase):
    """Writes to two streams."""

    def __init__(self, first: TextIO, second: TextIO) -> None:
        self._streams = (first, second)

    def write(self, text: str) -> int:
        for stream in self._streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self._streams:
            stream.flush()


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from ..interp import ArgumentError, Limits, LoadError, load
    from .files import OutputRefused
    from ..interp.errors import UnreadableSourceError

    try:
        program = load(args.file, fill=_fill(args.fill), target=_forced_config(args))
        entry = program.entry_name(args.entry)
        params = program.arguments(entry)
        bound, origins = _bind(params, [*args.args, *args.arg], args.max_bytes)
        config = _config(args, program)
        if args.grid is not None and args.block is not None:
            raise _Usage("--grid runs every block; give either --grid N or --block I/N")
        block = _block_arg(args.block or "0/1")
    except UnreadableSourceError as exc:
        return _error(exc, EXIT_USAGE)
    except LoadError as exc:  # the program does not parse or verify for the target: report it like `check`
        return _report_invalid(args, exc)
    except (_Usage, ArgumentError) as exc:
        return _error(exc, EXIT_USAGE)
    if args.target and program.target_arch and args.target != program.target_arch:  # DECISIONS 26
        sys.stderr.write(f"warning: running for target {args.target} as asked, although {args.file} names "
                         f"{program.target_arch} (pto.target_arch)\n")
    limits = Limits(max_steps=args.max_steps, max_bytes=args.max_bytes, timeout=args.timeout)
    # pto.tprint writes to standard output; a JSON report owns it, so the prints go to standard error then
    printed = contextlib.redirect_stdout(sys.stderr) if args.format == "json" else contextlib.nullcontext()
    with warnings.catch_warnings(record=True) as caught, printed:
        warnings.simplefilter("always")
        try:
            if args.grid is None:
                result = program.run(entry, target=config, block=block, limits=limits, **bound)
            else:
                result = _run_grid(program, entry, config, limits, bound, args.grid, quiet=args.quiet)
        except ArgumentError as exc:
            return _error(exc, EXIT_USAGE)
        except PtoError as exc:
            _warnings(caught)
            return _error(exc, EXIT_PROBLEMS)
    _warnings(caught)
    inputs = [args.file] + [text.split(":")[0] for text in origins.values()
                            if re.search(r"\.(npy|bin)$", text.split(":")[0])]
    if args.golden and not args.out:
        return _error(_Usage("--golden needs --out DIR"), EXIT_USAGE)
    returned = _returned_tiles(result)
    try:
        read = {name: value for name, value in result.arguments.items()
                if isinstance(value, np.ndarray) and name not in result.outputs} if args.golden else {}
        written = {**result.outputs, **dict(returned.values())}
        manifest = (lambda saved, given: _manifest(result, written, saved, given, config, args.file)) \
            if args.golden else None
        saved, given = _save(written, origins, args.out, inputs, args.golden, read, manifest)
        saved.update(given)
    except OutputRefused as exc:
        return _error(exc, EXIT_USAGE)
    except OSError as exc:
        return _error(_Usage(f"cannot write to {args.out}: {exc.strerror or exc}"), EXIT_USAGE)
    if args.format == "json":
        out.write(json.dumps(_as_json(result, params, origins, saved, returned)) + "\n")
    elif not args.quiet:
        _summary(out, program, result, params, origins, saved, config, args, returned)
    return EXIT_OK


def _returned_tiles(result: Any) -> dict[int, tuple[str, np.ndarray]]:
    """The valid regions of the tiles the entry returns (an SSA kernel's results), by return position, as outputs
    named `return0`, ... (saved with --out like the tensors the kernel wrote)."""
    from ..tile.tile import Tile

    returned = {}
    for n, value in enumerate(result.returns):
        if isinstance(value, Tile):
            name = f"return{n}"
            while name in result.arguments:
                name = "_" + name
            returned[n] = (name, value.valid.copy())
    return returned


def _run_grid(program: Any, entry: str, config: Any, limits: Any, bound: dict[str, Any], blocks: int,
              quiet: bool) -> Any:
    """Blocks 0..blocks-1 in turn over the same arguments; one result with every tensor any block wrote.
    --timeout bounds the whole grid (every block gets the same deadline), --max-steps each block. A grid still
    running after a couple of seconds shows a `block I/N` counter on a terminal's standard error (unless
    --quiet), as `vectors run` counts cases; a grid of several blocks ends with a `block N/N` line."""
    import dataclasses
    import time

    start = time.monotonic()
    if limits.timeout is not None:
        limits = dataclasses.replace(limits, deadline=start + limits.timeout)
    counter = not quiet and blocks > 1 and sys.stderr.isatty()
    outputs: dict[str, Any] = {}
    steps, shown, result = 0, 0.0, None
    try:
        for index in range(blocks):
            try:
                result = program.run(entry, target=config, block=(index, blocks), limits=limits, **bound)
            except PtoError as exc:
                exc.add_note(f"in block {index} of --grid {blocks}"
                             + ("; --timeout bounds all the blocks together" if limits.timeout else ""))
                raise
            outputs.update(result.outputs)
            steps += result.ops_executed
            now = time.monotonic()
            if counter and now - start > _COUNTER_AFTER and now - shown > 0.5:
                sys.stderr.write(f"\rblock {index + 1}/{blocks}")
                sys.stderr.flush()
                shown = now
    finally:
        if shown:
            sys.stderr.write("\r\033[K")
    if not quiet and blocks > 1:
        sys.stderr.write(f"block {blocks}/{blocks}\n")
    ordered = {name: outputs[name] for name in bound if name in outputs}
    assert result is not None  # blocks >= 1: --grid takes a positive count
    return dataclasses.replace(result, outputs=ordered, ops_executed=steps)


_COUNTER_AFTER = 2.0  # seconds a grid runs before its block counter shows


def _as_json(result: Any, params: list[Any], origins: dict[str, str], saved: dict[str, list[str]],
             returned: dict[int, tuple[str, np.ndarray]]) -> dict[str, Any]:
    """The run as plain JSON: scalars as numbers, tensors and returned tiles by dtype and shape (their data lives
    in --out files)."""
    def scalar(value: Any) -> Any:
        value = value.item() if isinstance(value, np.generic) else value
        return value if isinstance(value, (int, float, bool)) and value == value else str(value)

    arguments = {}
    for p in params:
        value = result.arguments[p.name]
        if isinstance(value, np.ndarray):
            arguments[p.name] = {"type": p.type_text, "from": origins[p.name], "dtype": str(value.dtype),
                                 "shape": list(value.shape), "written": p.name in result.outputs,
                                 "saved": saved.get(p.name, [])}
        else:
            arguments[p.name] = {"type": p.type_text, "value": scalar(value)}
    returns = []
    for n, value in enumerate(result.returns):
        if n in returned:
            name, array = returned[n]
            returns.append({"tile": str(value), "name": name, "dtype": str(array.dtype),
                            "shape": list(array.shape), "saved": saved.get(name, [])})
        else:
            returns.append(scalar(value))
    return {"ok": True, "target": result.target, "entry": result.entry, "ops_executed": result.ops_executed,
            "arguments": arguments, "returns": returns}


def _error(exc: BaseException, status: int) -> int:
    sys.stderr.write(f"ptoisa: error: {for_cli(str(exc))}\n")
    for note in getattr(exc, "__notes__", ()):
        sys.stderr.write(f"  {note}\n")
    if os.environ.get("PTOISA_DEBUG"):  # the traceback, after the message
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return status


_OUTSIDE_ONLY = re.compile(r"^(\w+) on (\w+)( \[[^\]]*\])?: erratum (\w+): .*only bytes outside the valid region "
                           r"differ", re.S)


def _warnings(caught: list[warnings.WarningMessage]) -> None:
    """Each distinct warning once (one per instruction site), in the CLI's terms. An erratum that changed only
    bytes outside the valid region (which no tstore reads) is a one-line note, not a warning."""
    seen = set()
    for w in caught:
        text = for_cli(str(w.message))
        if text in seen:
            continue
        seen.add(text)
        quiet = _OUTSIDE_ONLY.match(text)
        if quiet:
            instr, target, site, name = quiet.groups()
            sys.stderr.write(f"note: {instr} on {target}{site or ''} also wrote bytes outside dst's valid region, as "
                             f"the {target} backend does (erratum {name}; `ptoisa targets {target}` explains it); "
                             "the valid region and the stored outputs are the contract's. --no-errata turns it off.\n")
        else:
            sys.stderr.write(f"warning: {text}\n")


def _fill(text: str) -> str | int:
    if text in ("zero", "nan", "poison"):
        return text
    try:
        value = int(text, 0) if text.isascii() else None
    except ValueError:
        value = None
    if value is None:
        raise _Usage(f"--fill must be zero, nan, poison or a byte value (got {text!r}){foreign(text)}")
    if not 0 <= value <= 255:
        raise _Usage(f"--fill byte must be in [0, 255] (got {text})")
    return value


def _block_arg(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"([0-9]+)(?:/([0-9]+))?", text.strip())
    if not m:
        raise _Usage(f"--block must be I or I/N (got {text!r}){foreign(text)}")
    if max(len(m.group(1)), len(m.group(2) or "")) > 20:  # (int() stops at 4300 digits; counts fit in 64 bits)
        raise _Usage(f"--block {shown(text)}: a block index or count past 64 bits")
    idx = int(m.group(1))
    num = int(m.group(2)) if m.group(2) else idx + 1
    if idx >= num:
        raise _Usage(f"--block index {idx} must be below the block count {num}")
    return idx, num


def _report_invalid(args: argparse.Namespace, exc: Exception) -> int:
    """Compiler-style diagnostics (file:line:col, the line, a caret) for a program that fails to load."""
    from ..ir.diagnostics import check_text

    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return _error(exc, EXIT_PROBLEMS)
    result = check_text(text, args.file, args.target)
    if result.ok:  # not a diagnostic of ours (e.g. an op the interpreter cannot run)
        return _error(exc, EXIT_PROBLEMS)
    sys.stderr.writelines(result.source.render(d) + "\n" for d in result.diagnostics)
    sys.stderr.write(f"ptoisa: error: {args.file} does not verify for target {result.target}\n")
    from .text_cmds import default_target_note

    note = default_target_note(args, result, text)
    sys.stderr.write(f"{note}\n" if note else "")
    return EXIT_PROBLEMS


def _forced_config(args: argparse.Namespace) -> Config | None:
    """The --target given on the command line (it also decides verification), or None."""
    if not args.target:
        return None
    return make_config(args.target, not args.no_errata, "emulate" if args.emulate_undefined else "raise")


def _config(args: argparse.Namespace, program: Any) -> Config:
    name = args.target or program.target_arch or os.environ.get(ENV_VAR) or "a2a3"
    return make_config(name, not args.no_errata, "emulate" if args.emulate_undefined else "raise")


# --- arguments ---------------------------------------------------------------------------------------------
_NAMED = re.compile(r"^([A-Za-z_$][\w$.-]*)=(.*)$", re.DOTALL)


def _bind(params: list[Any], specs: list[str], max_bytes: int | None = None
          ) -> tuple[dict[str, Any], dict[str, str]]:
    by_name = {p.name: p for p in params}
    bound: dict[str, Any] = {}
    origins: dict[str, str] = {}
    position = 0
    for spec in specs:
        m = _NAMED.match(spec)
        if m and m.group(1) in by_name:
            name, text = m.group(1), m.group(2)
        elif m and not _looks_like_file(spec):
            raise _Usage(f"no argument %{m.group(1)} (arguments: {_list(params)})")
        else:
            while position < len(params) and params[position].name in bound:
                position += 1
            if position >= len(params):
                raise _Usage(f"too many arguments: the entry takes {len(params)} ({_list(params)})")
            name, text = params[position].name, spec
        if name in bound:
            raise _Usage(f"argument %{name} given twice")
        bound[name] = _value(by_name[name], text, max_bytes)
        origins[name] = text
    missing = [p.name for p in params if p.name not in bound]
    if missing:
        raise _Usage(f"missing argument(s) {', '.join('%' + m for m in missing)} (arguments: {_list(params)}); "
                     f"give one per argument, in order or as NAME=SPEC: FILE.npy, FILE.bin:DTYPE[:SHAPE], "
                     f"zeros:SHAPE for an output tensor, random:SHAPE for a made-up input, or a scalar's value "
                     f"(ptoisa run --help)")
    return bound, origins


def _looks_like_file(spec: str) -> bool:
    return bool(re.search(r"\.(npy|bin)(:|$)", spec))


def _list(params: list[Any]) -> str:
    return ", ".join(f"%{p.name}: {p.type_text}" for p in params) or "none"


def _value(param: Any, text: str, max_bytes: int | None = None) -> Any:
    if param.kind == "scalar":
        return _scalar(param, text)
    if param.kind == "vector":  # one number for every lane, or comma-separated lanes: 0 or 128,64,0,0
        return [_scalar(param, part) for part in text.split(",")]
    if param.kind not in ("tensor", "tile"):
        raise _Usage(f"argument %{param.name} has type {param.type_text}, which cannot be given on the command line")
    return _tensor(param, text, max_bytes)


def _scalar(param: Any, text: str) -> Any:
    t = text.strip().lower()
    if t in ("true", "false"):
        return int(t == "true")
    if t.isascii():
        try:
            return int(t, 0)
        except ValueError:
            pass
        try:
            return float(t)
        except ValueError:
            pass
    raise _Usage(f"argument %{param.name} ({param.type_text}) needs a number (got {text!r}){foreign(text)}")


def _shape(text: str, what: str) -> tuple[int, ...]:
    parts = [p.strip(" ") for p in re.split(r"[x,*]", text.strip()) if p]
    # sizes in ASCII digits only (int() would also take other scripts' digits, "1_6" and "+16")
    if not parts or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise _Usage(f"{what}: bad shape {text!r}{foreign(text) or ' (write e.g. 16x16)'}")
    return tuple(int(p) for p in parts)


def _numpy_shape(make: Any, text: str, what: str) -> np.ndarray:
    """make(): an array of a parsed shape, or a usage error when NumPy cannot make one of that shape (more
    dimensions than it allows, a size past its index type, even with no element at all)."""
    try:
        return make()  # type: ignore[no-any-return]
    except ValueError as exc:
        raise _Usage(f"{what}: bad shape {text!r} ({exc})") from None


def _dtype(text: str, what: str) -> np.dtype:
    from ..dtypes import as_dtype

    try:
        return as_dtype(text).np
    except PtoError as exc:
        raise _Usage(f"{what}: {exc}") from None


def _tensor(param: Any, text: str, max_bytes: int | None = None) -> np.ndarray:
    what = f"argument %{param.name}"
    if text.startswith(("zeros:", "random:")):
        if param.dtype is None:
            raise _Usage(f"{what}: {param.type_text} has no NumPy element type")
        made, _, spec = text.partition(":")
        shape_text, _, seed = spec.partition(":") if made == "random" else (spec, "", "")
        shape = _shape(shape_text, what)
        nbytes = prod(shape) * param.dtype.itemsize
        if max_bytes is not None and nbytes > max_bytes:
            raise _Usage(f"{what}: {made}:{shape_text} needs {nbytes} bytes, over --max-bytes {max_bytes}")
        if made == "zeros":
            return _numpy_shape(lambda: np.zeros(shape, dtype=param.dtype), shape_text, what)
        return _numpy_shape(lambda: _random(param.dtype, shape, seed, what), shape_text, what)
    if text.endswith(".npy"):
        _regular_file(text, what)
        try:
            array = read_npy(text)
        except (OSError, ValueError) as exc:
            raise _Usage(f"{what}: cannot read {text}: {getattr(exc, 'strerror', None) or exc}") from None
        return _npy_dtype(array, param, what, text)
    path, *rest = text.split(":")
    if path.endswith(".bin"):
        if len(rest) > 2:
            raise _Usage(f"{what}: write FILE.bin[:DTYPE[:SHAPE]] (got {text!r})")
        dtype = _dtype(rest[0], what) if rest and rest[0] else param.dtype
        if dtype is None:
            raise _Usage(f"{what}: give the element type, FILE.bin:DTYPE")
        _regular_file(path, what)
        size = os.path.getsize(path)
        if size % dtype.itemsize:
            raise _Usage(f"{what}: {path} holds {size} bytes, not a whole number of {dtype} elements "
                         f"({dtype.itemsize} bytes each)")
        try:
            data = np.fromfile(path, dtype=dtype)
        except (OSError, ValueError) as exc:
            raise _Usage(f"{what}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
        if len(rest) == 2:
            shape = _shape(rest[1], what)
            if prod(shape) != data.size:
                raise _Usage(f"{what}: {path} holds {data.size} {dtype} elements, not {'x'.join(map(str, shape))}")
            data = _numpy_shape(lambda: data.reshape(shape), rest[1], what)
        return data
    raise _Usage(f"{what} ({param.type_text}) needs FILE.npy, FILE.bin[:DTYPE[:SHAPE]], zeros:SHAPE or "
                 f"random:SHAPE[:SEED] (got {text!r})")


def _random(dtype: np.dtype, shape: tuple[int, ...], seed_text: str, what: str) -> np.ndarray:
    """random:SHAPE[:SEED], made-up input for trying a kernel: NumPy's default_rng(SEED) (0 unless given), so the
    same command gives the same data; floats uniform in [-1, 1) rounded to the element type (powers of two from
    2**-4 to 2**4 for the e8m0 scale type, which has neither sign nor zero), integers in [-8, 8), unsigned ones
    and bools in [0, 16) and [0, 2)."""
    try:  # (ASCII only: int() also takes other scripts' digits)
        seed = int(seed_text, 0) if seed_text.isascii() else -1
    except ValueError:  # (int("") too: no seed given)
        seed = -1 if seed_text else 0
    if seed < 0:
        raise _Usage(f"{what}: bad seed {seed_text!r}"
                     f"{foreign(seed_text) or ' (write random:SHAPE[:SEED], e.g. random:16x16:7)'}")
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -8
        return rng.integers(low, low + 16, shape).astype(dtype)
    if "e8m0" in dtype.name:
        return np.exp2(rng.integers(-4, 5, shape).astype(np.float64)).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def _regular_file(path: str, what: str) -> None:
    if not os.path.exists(path):
        raise _Usage(f"{what}: cannot read {path}: no such file")
    if not os.path.isfile(path):
        raise _Usage(f"{what}: cannot read {path}: not a regular file")


def _npy_dtype(array: np.ndarray, param: Any, what: str, path: str) -> np.ndarray:
    """The array as the pointer's element type. NumPy saves bfloat16 and fp8 arrays as raw void (`|V2`, `|V1`):
    those are read as the pointer's type when the item size agrees; any other dtype must match exactly."""
    want = param.dtype
    if want is None or array.dtype == want:
        return array
    if array.dtype.kind == "V" and array.dtype.fields is None and array.dtype.itemsize == want.itemsize:
        return array.view(want)
    raise _Usage(f"{what} ({param.type_text}) needs {want} data; {path} holds {array.dtype} "
                 "(convert it first, e.g. with numpy's astype)")


# --- results -----------------------------------------------------------------------------------------------
def _save(outputs: dict[str, np.ndarray], origins: dict[str, str], out_dir: str | None,
          inputs: list[str], golden: bool = False, given: dict[str, np.ndarray] | None = None,
          manifest: Any = None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Write every output to OUT_DIR/NAME.npy (and .bin when it came from one, or with --golden), with --golden
    every input tensor in `given` (the tensors the kernel read and did not write) as NAME.npy and NAME.bin, so
    that the folder holds a whole test case (an input made up with random: exists nowhere else; an input file
    that is itself the file planned for it is left as it is), and with `manifest` (a function of the files
    planned for the outputs and for the inputs, giving its JSON document) OUT_DIR/manifest.json: never over an
    input of the run, saying on standard error which existing files were replaced. All or nothing: every path is
    checked before any is written (OutputRefused), and each file goes to a temporary file first, all of them
    renamed into place once every one is written. Returns the files of each output and of each input."""
    from .files import AtomicFile, refuse_inputs

    if not out_dir:
        return {}, {}
    given = given or {}
    directory = Path(out_dir)
    planned = {name: [directory / f"{name}.npy"]
               + ([directory / f"{name}.bin"] if golden or origins.get(name, "").split(":")[0].endswith(".bin")
                  else [])
               for name in outputs}
    kept = {name: [directory / f"{name}.npy", directory / f"{name}.bin"] for name in given}
    saved = {name: [str(f) for f in files] for name, files in planned.items()}
    kept_saved = {name: [str(f) for f in files] for name, files in kept.items()}
    jobs: list[tuple[Path, Any]] = [(path, outputs[name]) for name, files in planned.items() for path in files]
    jobs += [(path, given[name]) for name, files in kept.items() for path in files
             if not _is_source(path, origins.get(name, ""))]
    if manifest is not None:
        jobs.append((directory / "manifest.json",
                     (json.dumps(manifest(saved, kept_saved), indent=2) + "\n").encode()))
    for path, _ in jobs:  # check them all before writing any
        refuse_inputs(path, inputs)
    sinks = [AtomicFile(path, "wb") for path, _ in jobs]  # (each refuses a path that is there but no file)
    directory.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:  # renamed into place on leaving, once every file is written
        for sink, (path, data) in zip(sinks, jobs, strict=True):
            f = stack.enter_context(sink)
            if isinstance(data, bytes):
                f.write(data)
            elif path.suffix == ".npy":
                np.save(f, data)
            else:
                f.write(np.ascontiguousarray(data).tobytes())
    replaced = [str(sink.path) for sink in sinks if sink.replaced]
    if replaced:
        sys.stderr.write(f"replaced: {', '.join(replaced)}\n")
    return saved, kept_saved


def _is_source(path: Path, origin: str) -> bool:
    """Whether `path` is the very file an input was read from (`x.bin:f32:16x16` names x.bin)."""
    from .files import same_file

    source = origin.split(":")[0]
    return os.path.isfile(source) and path.exists() and same_file(path, source)


def _manifest(result: Any, written: dict[str, np.ndarray], saved: dict[str, list[str]],
              given: dict[str, list[str]], config: Config, kernel: str) -> dict[str, Any]:
    """manifest.json's document: what produced the golden files, the inputs and scalars it was given, and how to
    read each raw .bin back. `written` holds the outputs' arrays: the tensors the kernel wrote and the tiles it
    returned."""
    def entry(array: np.ndarray, files: list[str]) -> dict[str, Any]:
        return {"dtype": str(array.dtype), "shape": list(array.shape), "files": [Path(f).name for f in files],
                "byte_order": "little"}

    def scalar(value: Any) -> Any:
        value = value.item() if isinstance(value, np.generic) else value
        return value if isinstance(value, (int, float, bool)) and value == value else str(value)

    scalars = {name: scalar(value) for name, value in result.arguments.items()
               if not isinstance(value, np.ndarray) and isinstance(value, (int, float, bool, np.generic))}
    return {"kernel": kernel, "entry": result.entry, "target": config.name,
            "errata": sorted(config.errata), "undefined": config.undefined,
            "outputs": {name: entry(written[name], files) for name, files in saved.items()},
            "inputs": {name: entry(result.arguments[name], files) for name, files in given.items()},
            "scalars": scalars}


def _summary(out: TextIO, program: Any, result: Any, params: list[Any], origins: dict[str, str],
             saved: dict[str, list[str]], config: Config, args: argparse.Namespace,
             returned: dict[int, tuple[str, np.ndarray]]) -> None:
    errata = "" if config.errata == frozenset(config.profile.errata) else " (errata off)"
    out.write(f"target: {config.name}{errata}\n")
    out.write(f"entry: @{result.entry} in {program.source.path} ({result.ops_executed} ops executed)\n")
    width = max((len(p.name) for p in params), default=0)
    for p in params:
        value = result.arguments[p.name]
        if isinstance(value, np.ndarray):
            shape = "x".join(map(str, value.shape)) or "scalar"
            line = f"  %{p.name:<{width}} : {p.type_text} = {origins[p.name]} ({value.dtype}[{shape}])"
            if p.name in result.outputs:
                line += " written" + (f" -> {', '.join(saved[p.name])}" if p.name in saved else "")
            elif p.name in saved:
                line += f" -> {', '.join(saved[p.name])}"
        else:
            line = f"  %{p.name:<{width}} : {p.type_text} = {value}"
        out.write(line + "\n")
    for n, value in enumerate(result.returns):
        name = returned[n][0] if n in returned else None
        out.write(f"  return #{n} = {value}" + (f" -> {', '.join(saved[name])}" if name in saved else "") + "\n")
    if not result.outputs and not returned:
        out.write("no global tensor was written\n")
    elif not args.out:
        for name, array in {**result.outputs, **dict(returned.values())}.items():
            with np.printoptions(linewidth=110, threshold=200, edgeitems=4):
                out.write(f"%{name} =\n  " + str(array).replace("\n", "\n  ") + "\n")
