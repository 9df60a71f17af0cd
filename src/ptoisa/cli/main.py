"""The `ptoisa` command line.

Exit status: 0 success; 1 the job ran and found problems (mismatches, refused example, diagnostics);
2 bad usage or unreadable input; 3 an internal error (a bug: please report it with PTOISA_DEBUG=1 output).
No Python traceback reaches the user unless PTOISA_DEBUG=1 is set.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from typing import TYPE_CHECKING

from .. import __version__
from .._names import DEFAULT_TARGET_NAME, ENV_VAR, TARGET_NAMES
from ..errors import PtoError, TargetError, VectorFormatError
from .wording import for_cli

if TYPE_CHECKING:
    from ..targets import Config

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

DESCRIPTION = """\
ptoisa: a bit-exact Python model of the PTO tile ISA (the seed pages' TCMPS, TCI, TPARTMUL, TEXPANDS,
TGATHER, and the vector instructions PTOAS kernels use: TADD, TCVT, TROWSUM, ...; `ptoisa targets
--instructions` lists them) for the a2a3 and a5 NPU targets and the reference C++ CPU simulator (cpu)."""

EPILOG = f"""\
examples: from a clone's root (`ptoisa COMMAND --help` explains each command's arguments)
  ptoisa run examples/pto/run_softmax.pto examples/pto/data/x_8x64_f16.npy zeros:8x64
                                              run a kernel on NumPy data, print what it wrote
  ptoisa check examples/pto/*.pto             diagnostics, as a compiler prints them
  ptoisa convert examples/pto/ssa_kernel.pto --to dps
                                              SSA (Level 1) text to PTOAS's DPS form (Level 2)
  ptoisa compare out/scaled.npy golden/scaled.bin
                                              bit-exact, else where and by how much
  ptoisa example --list                       list the seed pages' examples
  ptoisa example tcmps_auto --target a5       run one on the A5 profile
  ptoisa vectors run tests/data/conformance/*.jsonl --results out.jsonl
  ptoisa targets                              what each target allows, its buffers and errata

The target is --target, else (run, check, convert) the module's pto.target_arch, else ${ENV_VAR}, else
{DEFAULT_TARGET_NAME} (cpu for `vectors`, whose vectors come from the simulator). Every output names the target used.
Exit status: 0 success, 1 problems found (diagnostics, mismatches, a refused kernel), 2 bad usage or unreadable
input, 3 a bug in ptoisa (rerun with PTOISA_DEBUG=1 and report the traceback)."""


def _add_target_options(parser: argparse.ArgumentParser, fallback: str = DEFAULT_TARGET_NAME) -> None:
    parser.add_argument("--target", "-t", type=str.lower, choices=TARGET_NAMES, default=None,
                        help=f"target profile (default: ${ENV_VAR}, else {fallback})")
    parser.set_defaults(fallback_target=fallback)
    parser.add_argument("--no-errata", action="store_true",
                        help="give the contract's results instead of reproducing the target's errata")
    parser.add_argument("--emulate-undefined", action="store_true",
                        help="reproduce what the target does with undefined input instead of refusing it")


def _config(args: argparse.Namespace) -> Config:
    from ..targets import make_config

    name = args.target or os.environ.get(ENV_VAR) or getattr(args, "fallback_target", DEFAULT_TARGET_NAME)
    return make_config(name, not args.no_errata, "emulate" if args.emulate_undefined else "raise")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ptoisa", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"ptoisa {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ex = sub.add_parser("example", help="run the seed pages' examples", description=_doc("example"),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ex.add_argument("names", nargs="*", metavar="NAME", help="example names (default: all); see --list")
    ex.add_argument("--list", action="store_true", help="list the examples and exit")
    _add_target_options(ex)
    ex.set_defaults(func=cmd_example, loads=("ptoisa.examples",))

    vec = sub.add_parser("vectors", help="run conformance vectors", description=_doc("vectors"),
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    vec_sub = vec.add_subparsers(dest="vectors_command", metavar="ACTION")
    vec_sub.required = True
    run = vec_sub.add_parser("run", help="run JSONL vector files and compare with their expectations",
                             description=_doc("vectors"), formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("files", nargs="+", metavar="FILE.jsonl")
    run.add_argument("--results", metavar="OUT.jsonl", help="write one JSON result line per case (a device or pipe such as /dev/null or "
                                                        "/dev/stdout is written as it is)")
    run.add_argument("--quiet", "-q", action="store_true", help="print only the summary table")
    _add_target_options(run, fallback="cpu")  # the vectors come from the reference simulator
    run.set_defaults(func=cmd_vectors_run, loads=("ptoisa.conformance.runner",))

    from . import data_cmds, run_cmd, text_cmds  # run; check, convert; compare, show: modules of their own

    run_cmd.register(sub)
    text_cmds.register(sub)
    data_cmds.register(sub)

    tg = sub.add_parser("targets", help="describe the target profiles",
                        description="Describe each target profile: its on-chip buffers, the element types the seed "
                                    "instructions take, how many instructions it has and every erratum it "
                                    "reproduces, with the backend source that shows it.",
                        epilog="examples:\n  ptoisa targets                     every target\n"
                               "  ptoisa targets a5 --instructions   every instruction's element types on A5",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    tg.add_argument("names", nargs="*", metavar="TARGET", type=str.lower,
                    help=f"targets to describe: {', '.join(TARGET_NAMES)} (default: all)")
    tg.add_argument("--instructions", action="store_true",
                    help="also list every vector instruction's element types on each target (from its record)")
    tg.set_defaults(func=cmd_targets, loads=("ptoisa.targets", "ptoisa.seed_records", "ptoisa.isa.vector"))
    return parser


def _doc(name: str) -> str:
    return {
        "example": "Run the C++ examples of the seed pages, written in the Python API, and print their tiles.\n"
                   "The two TGATHER examples are defective in the seed pages and are refused as docs/decisions.md\n"
                   "says (tgather_auto runs on a5 and cpu only; tgather_manual overflows its dst).\n\n"
                   "examples:\n"
                   "  ptoisa example --list                                   one line on each\n"
                   "  ptoisa example tcmps_auto tci_manual_tmp --target a2a3  two on A2/A3 (the second shows an "
                   "erratum)",
        "vectors": "Run conformance vectors (the format of tests/data/conformance/README.md) through the public\n"
                   "API. Each case is built from params.tiles and the hex storage of inputs/initial_outputs, run,\n"
                   "and compared byte for byte with its expectation. A malformed line or case is an error of its\n"
                   "own; the rest still run. Exits 1 on any mismatch or error. The target is --target, else\n"
                   "$PTOISA_TARGET, else cpu (the simulator the vectors come from).\n\n"
                   "example:\n  ptoisa vectors run tests/data/conformance/*.jsonl --results out.jsonl",
    }[name]


# --- example -----------------------------------------------------------------------------------------------
def cmd_example(args: argparse.Namespace, out: TextIO) -> int:
    from ..examples import EXAMPLES

    if args.list:
        for name, fn in EXAMPLES.items():
            out.write(f"{name:<18} {(fn.__doc__ or '').strip()}\n")
        return EXIT_OK
    unknown = [n for n in args.names if n not in EXAMPLES]
    if unknown:
        raise _UsageError(f"unknown example {', '.join(unknown)} (see: ptoisa example --list)")
    from ..targets import target as use_target

    config = _config(args)
    status = EXIT_OK
    for name in args.names or list(EXAMPLES):
        out.write(f"== {name} on {config.name}\n")
        try:
            with use_target(config.profile.target, errata=not args.no_errata, undefined=config.undefined), \
                    warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tiles = EXAMPLES[name]()
        except PtoError as exc:
            out.write(f"refused: {for_cli(str(exc))}\n")
            status = EXIT_PROBLEMS
            continue
        for w in caught:
            out.write(f"warning: {for_cli(str(w.message))}\n")
        for role, tile in tiles.items():
            out.write(f"{role}: {tile.spec} valid {tile.valid_row}x{tile.valid_col}\n")
            out.write(_format_tile(tile) + "\n")
    return status


def _format_tile(tile: Any) -> str:
    import numpy as np

    data = tile.to_numpy()
    with np.printoptions(linewidth=110, threshold=200, edgeitems=4):
        return "  " + str(data).replace("\n", "\n  ")


# --- vectors run -------------------------------------------------------------------------------------------
def cmd_vectors_run(args: argparse.Namespace, out: TextIO) -> int:
    import json

    from ..conformance.runner import Summary, run_case
    from ..conformance.vectors import read_cases
    from .files import OutputRefused, output_file, refuse_inputs

    config = _config(args)
    summary = Summary()
    progress = _Progress(enabled=not args.quiet and sys.stderr.isatty())
    for path in args.files:  # every input must be readable before anything runs or is written
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            why = "not a regular file" if os.path.exists(path) else "no such file"
            raise _UsageError(f"cannot read {path}: {why}")
    try:
        if args.results:
            refuse_inputs(args.results, args.files)
        sink_file = output_file(args.results, out) if args.results else None
    except OutputRefused as exc:
        raise _UsageError(str(exc)) from None
    with contextlib.ExitStack() as stack:
        try:
            sink = stack.enter_context(sink_file) if sink_file else None
        except OutputRefused as exc:  # e.g. its folder does not exist: nothing has run yet
            raise _UsageError(str(exc)) from None
        for path in args.files:
            count = 0
            try:
                for case in read_cases(path):
                    result = run_case(case, config)
                    count += 1
                    summary.add(result)
                    progress.tick(path, count)
                    if sink:
                        sink.write(json.dumps(_public(result)) + "\n")
                    if not args.quiet and result["verdict"] not in ("matched", "rejected as expected"):
                        out.write(f"{result['case_id']}: {result['verdict']}: {result['message']}\n")
            except VectorFormatError as exc:  # the file itself cannot be read: one error, then the next file
                result = {"case_id": str(path), "op": "?", "status": "error", "message": str(exc),
                          "warnings": [], "outputs": {}, "verdict": "errors"}
                summary.add(result)
                if sink:
                    sink.write(json.dumps(_public(result)) + "\n")
                out.write(f"{path}: errors: {exc}\n")
            progress.done()
            if not args.quiet:
                sys.stderr.write(f"ran {count} cases from {path}\n")
    if sink_file and not args.quiet:
        sys.stderr.write(f"results: {args.results}{' (replaced the old file)' if sink_file.replaced else ''}\n")
    out.write(f"target: {config.name}{'' if config.errata == frozenset(config.profile.errata) else ' (errata off)'}\n")
    out.write(summary.table() + "\n")
    if config.name != "cpu" and summary.failed:
        out.write(f"note: conformance vectors record the reference CPU simulator's bytes; on {config.name} the "
                  "cases its errata or tables change do not match them (run them with --target cpu)\n")
    return EXIT_PROBLEMS if summary.failed else EXIT_OK


class _Progress:
    """A one-line case counter on a terminal's standard error, every 50 cases."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.shown = False

    def tick(self, path: str, count: int) -> None:
        if self.enabled and count % 50 == 0:
            sys.stderr.write(f"\r{path}: {count} cases")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            self.shown = False


def _public(result: dict[str, Any]) -> dict[str, Any]:
    keys = ("case_id", "status", "message", "warnings", "outputs", "verdict")
    return {k: result.get(k) for k in keys}


# --- targets -----------------------------------------------------------------------------------------------
def cmd_targets(args: argparse.Namespace, out: TextIO) -> int:
    from ..targets import REGISTRY, get_profile

    profiles = [get_profile(n) for n in args.names] if args.names else list(REGISTRY.values())
    for profile in profiles:
        out.write(f"{profile.name}: {profile.description}\n")
        sizes = ", ".join(f"{k} {v // 1024} KiB" for k, v in profile.memory.regions.items())
        out.write(f"  on-chip buffers: {sizes}; TASSIGN alignment {profile.memory.alignment} bytes\n")
        out.write(f"  TCMPS src dtypes: {', '.join(d.cname for d in profile.tcmps.src_dtypes)}\n")
        out.write(f"  TPARTMUL dtypes: {', '.join(d.cname for d in profile.tpartmul.dtypes)}\n")
        out.write(f"  TCI dtypes: {', '.join(d.cname for d in profile.tci.dtypes)}\n")
        from .. import seed_records  # noqa: F401 - registers the seeds' five
        from ..isa import vector  # noqa: F401 - registers the records
        from ..isa.record import REGISTRY as RECORDS
        from ..isa.record import describe

        records = sorted(RECORDS.values(), key=lambda r: r.name)
        if args.instructions:
            for rec in records:
                out.write(f"  {describe(rec, profile.name)}\n")
        else:
            out.write(f"  {len(records)} instructions in all (--instructions lists each one's element types)\n")
        for name, text in profile.errata.items():
            evidence = profile.evidence.get(name)
            out.write(f"  erratum {name}: {text}" + (f" [{evidence}]" if evidence else "") + "\n")
    return EXIT_OK


class _UsageError(Exception):
    pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush does not raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _PipeSafe:
    """stdout for a command: once the reader has gone (`ptoisa check ... | head`), further output is dropped and
    the command runs to its end, so that its exit status is the job's (1 for problems found), not the pipe's.
    Text the stream cannot encode (a file name with bytes that are not UTF-8, seen by Python as surrogates, on
    a strict UTF-8 stdout; any non-ASCII name on an ASCII one) is written with backslash escapes, as standard
    error writes it, instead of failing the command."""

    def __init__(self, stream: TextIO) -> None:
        self._stream: TextIO | None = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                try:
                    self._stream.write(text)
                except UnicodeEncodeError:  # (nothing of `text` was written: the stream encodes it first)
                    encoding = getattr(self._stream, "encoding", None) or "utf-8"
                    self._stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def _drop(self) -> None:
        self._stream = None
        _silence_stdout()


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """parse_args, except that an unknown option is reported with the usage of the command it was given to
    (`ptoisa run: error: unrecognized arguments: --bogus`), not the top-level one."""
    def mark(p: argparse.ArgumentParser) -> None:
        for action in p._actions:  # noqa: SLF001 - argparse keeps its subparsers there
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for child in action.choices.values():
                    child.set_defaults(usage_parser=child)
                    mark(child)

    mark(parser)
    args, extra = parser.parse_known_args(argv)
    usage = getattr(args, "usage_parser", parser)
    rest = _positional_list(usage)
    if extra and rest is not None and not any(_looks_like_option(e) for e in extra):
        # `ptoisa run k.pto --target a5 x.npy 0.5`: argparse stops filling a list at the first option; what
        # follows it belongs to the same list, in order
        setattr(args, rest, [*getattr(args, rest), *extra])
        extra = []
    if extra:
        usage.error(f"unrecognized arguments: {' '.join(extra)}")
    for dest, flag in _OUTPUTS:  # (an empty name would read as the option left out: stdout, or nothing saved)
        if getattr(args, dest, None) == "":
            usage.error(f"argument {flag}: an empty file name (give a path, or leave {flag} out)")
    return args


_OUTPUTS = (("out", "--out"), ("output", "--output"), ("results", "--results"), ("image", "--image"))
"""The options naming a file or folder to write (run --out, convert -o, vectors run --results, show --image)."""


def _positional_list(parser: argparse.ArgumentParser) -> str | None:
    """The destination of the command's open-ended positional list (run's ARG..., check's FILE...), if any."""
    for action in parser._actions:  # noqa: SLF001
        if not action.option_strings and action.nargs in ("*", "+"):
            return action.dest
    return None


def _looks_like_option(text: str) -> bool:
    """`--target`, `-q`: an option; `-1.5`, `-3`, `-`: a value."""
    if not text.startswith("-") or text == "-":
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


def _start_up(modules: Iterable[str]) -> None:
    """Import what a command is about to use (its parser's `loads` default) with Python's cyclic garbage collector
    paused, then freeze what exists (gc.freeze): NumPy's, xDSL's and ptoisa's classes, op definitions and tables,
    made once and kept until exit. Collecting while they are made finds nothing to free, and every later
    collection of the older generations would walk them again; together that was about a fifth of the CPU time
    of `ptoisa run` on a shipped example (160 collections, the last a full one over some 75,000 objects). Objects
    made from here on are collected as usual. Only for the process's own command line (main() without argv):
    a caller that runs commands in its own process keeps its collector as it was. A module left out of `loads`
    is imported by the command itself, as before; only the cost changes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):  # a bare `ptoisa`: the commands, not one missing-argument line
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    args = _parse(parser, argv)
    out = _PipeSafe(sys.stdout)
    try:
        if argv is None:  # the process's own command line (`ptoisa`, `python -m ptoisa`): it ends with the command
            _start_up(getattr(args, "loads", ()))
        status = int(args.func(args, out))
        out.flush()
        return status
    except (_UsageError, VectorFormatError) as exc:
        sys.stderr.write(f"ptoisa: error: {exc}\n")
        return EXIT_USAGE
    except TargetError as exc:  # a target name is usage, wherever it came from
        named = os.environ.get(ENV_VAR)
        origin = f" (from ${ENV_VAR}={named})" if named and f"'{named}'" in str(exc) else ""
        sys.stderr.write(f"ptoisa: error: {exc}{origin}\n")
        return EXIT_USAGE
    except PtoError as exc:
        sys.stderr.write(f"ptoisa: error: {for_cli(str(exc))}\n")
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        sys.stderr.write("ptoisa: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader left while something other than `out` wrote to stdout
        _silence_stdout()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - never show a traceback to a user unless asked
        if os.environ.get("PTOISA_DEBUG"):
            raise
        sys.stderr.write(f"ptoisa: internal error: {type(exc).__name__}: {exc}\n"
                         "  This is a bug in ptoisa; rerun with PTOISA_DEBUG=1 and report the traceback.\n")
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
