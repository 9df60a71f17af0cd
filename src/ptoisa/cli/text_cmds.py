"""`ptoisa check` and `ptoisa convert`: the textual front end (PTOAS DPS, SSA Level-1 and PTO-AS assembly).

    ptoisa check kernel.pto other.ptoas --target a5          compiler-style diagnostics, exit 1 on errors
    ptoisa check kernel.pto --format json                    one JSON object per file
    ptoisa convert kernel.pto --to ssa -o kernel_ssa.pto     DPS <-> SSA, asm, generic; --flavour aug|apr

The target is --target, else the module's `pto.target_arch`, else $PTOISA_TARGET / a2a3. Files ending in
`.ptoas` are PTO-AS assembly (the five ops without the `pto.` prefix).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING, TextIO

from .._names import TARGET_NAMES
from .wording import for_cli

if TYPE_CHECKING:
    from ..ir.diagnostics import CheckResult

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
FORMS = ("dps", "ssa", "asm", "generic")

CHECK_EPILOG = """\
examples:
  ptoisa check examples/pto/*.pto         each file for the target it names
  ptoisa check kernel.pto --target a5     for A5, whatever the file names
  ptoisa check kernel.ptoas --format json

Diagnostics read `file:line:col: error: message`, then the source line and a caret. Parse errors stop a file;
verifier errors are collected op by op. Exit status: 0 clean, 1 errors, 2 bad usage or an unreadable file."""

CONVERT_EPILOG = """\
forms:
  dps      PTOAS's Level-2 form (ins/outs on !pto.tile_buf); SSA ops get one pto.alloc_tile per tile result
  ssa      the Level-1 form: %d = pto.op ... : (...) -> !pto.tile<...>; refused for a DPS op whose outs tile
           is not a pto.alloc_tile written exactly once and never aliased
  asm      PTO-AS assembly: the SSA form without the `pto.` prefix on the five ops
  generic  xDSL's generic op form of the input, unchanged"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `check` and `convert` to the `ptoisa` parser."""
    targets = list(TARGET_NAMES)
    check = sub.add_parser("check", help="parse and verify .pto/.ptoas files for a target",
                           description="Parse and verify PTO text files (PTOAS DPS, SSA or PTO-AS assembly) for a "
                                       "target: structure and the target's legality tables.",
                           epilog=CHECK_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("files", nargs="+", metavar="FILE",
                       help="PTO text: .pto (PTOAS's DPS form, or the SSA form) or .ptoas (PTO-AS assembly)")
    check.add_argument("--target", "-t", type=str.lower, choices=targets,
                       help="target profile (default: the module's pto.target_arch, else $PTOISA_TARGET or a2a3)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    check.add_argument("--no-errata", action="store_true",
                       help="check for the contract's meaning (no erratum warnings), as `run --no-errata` runs it")
    check.add_argument("--emulate-undefined", action="store_true",
                       help="accept what the target leaves undefined (an undersized tmp, ...), as "
                            "`run --emulate-undefined` runs it")
    check.set_defaults(func=cmd_check, loads=("ptoisa.ir.diagnostics",))

    conv = sub.add_parser("convert", help="convert a .pto/.ptoas file between the DPS, SSA, asm and generic forms",
                          description="Convert PTO text between forms. The input is verified first (for --target).",
                          epilog=CONVERT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    conv.add_argument("file", metavar="FILE", help="a .pto (DPS or SSA form) or .ptoas (PTO-AS assembly) file")
    conv.add_argument("--to", required=True, choices=FORMS, help="the form to write")
    conv.add_argument("--flavour", choices=("aug", "apr"), default="aug",
                      help="PTOAS spelling of DPS ops: August (default) or April")
    conv.add_argument("--target", "-t", type=str.lower, choices=targets, help="target to verify the input for")
    conv.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    conv.set_defaults(func=cmd_convert, loads=("ptoisa.ir.diagnostics", "ptoisa.ir.forms"))


def _read(path: str) -> str | OSError | UnicodeDecodeError:
    try:
        if os.path.exists(path) and not os.path.isfile(path):  # a FIFO or device would block or never end
            return IsADirectoryError(0, "not a regular file")
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        return exc


def _why(exc: OSError | UnicodeDecodeError) -> str:
    return "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else (exc.strerror or str(exc))


# --- check ---------------------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    import dataclasses
    import json

    from ..ir.diagnostics import check_text
    from ..targets import current_config

    status = EXIT_OK
    for path in args.files:
        text = _read(path)
        if not isinstance(text, str):
            target = args.target or current_config().name
            message = f"cannot read {path}: {_why(text)}"
            if args.format == "json":
                out.write(json.dumps({"path": path, "target": target, "ok": False, "diagnostics": [
                    {"line": 0, "col": 0, "severity": "error", "message": message}]}) + "\n")
            else:
                sys.stderr.write(f"ptoisa: error: {message}\n")
            status = EXIT_USAGE
            continue
        result = check_text(text, path, args.target, errata=not args.no_errata,
                            undefined="emulate" if args.emulate_undefined else "raise")
        result.diagnostics[:] = [dataclasses.replace(d, message=for_cli(d.message)) for d in result.diagnostics]
        if args.format == "json":
            out.write(json.dumps(result.as_json()) + "\n")
        else:
            out.writelines(result.source.render(d) + "\n" for d in result.diagnostics)
            errors = sum(d.severity == "error" for d in result.diagnostics)
            verdict = "ok" if not errors else f"{errors} error{'s' if errors != 1 else ''}"
            out.write(f"{path}: {verdict} (target {result.target})\n")
            note = default_target_note(args, result, text) if errors else None
            if note:
                out.flush()  # after its summary line when both streams go to one terminal
                sys.stderr.write(note + "\n")
        if not result.ok and status == EXIT_OK:
            status = EXIT_PROBLEMS
    return status


_PTOAS_ARCH = re.compile(r"--pto-arch[= ]+([A-Za-z0-9]+)")


def default_target_note(args: argparse.Namespace, result: CheckResult, text: str) -> str | None:
    """For a file that parsed but failed verification for the default target, nothing having named one, while
    a `// RUN: ptoas --pto-arch a5 %s` line (how PTOAS's samples name theirs: a command line, which ptoisa does
    not obey) names another: say so and which --target to give. No note otherwise (a parse error, a rule no
    target changes)."""
    from .._names import ENV_VAR
    from ..ir.legality import module_target

    if args.target or os.environ.get(ENV_VAR) or result.module is None or module_target(result.module):
        return None
    run = _PTOAS_ARCH.search(text)
    if run is None:
        return None
    named = run[1].lower() if run[1].lower() in ("a5", "cpu") else "a2a3"
    if named == result.target:
        return None
    return (f"note: {result.path} was verified for {result.target}, the default (no --target, ${ENV_VAR} or "
            f"pto.target_arch named a target), but its RUN line gives ptoas --pto-arch {run[1]}: give --target "
            f"{named}")


# --- convert -------------------------------------------------------------------------------------------------
def cmd_convert(args: argparse.Namespace, out: TextIO) -> int:
    from ..ir import print_module
    from ..ir.diagnostics import SourceError, parse_checked
    from ..ir.errors import TextFormError
    from ..ir.forms import ConversionError, print_asm, to_dps, to_ssa

    text = _read(args.file)
    if not isinstance(text, str):
        sys.stderr.write(f"ptoisa: error: cannot read {args.file}: {_why(text)}\n")
        return EXIT_USAGE
    try:
        parsed, config = parse_checked(text, args.file, args.target)
    except SourceError as exc:
        sys.stderr.write(str(exc) + "\n")
        sys.stderr.write(f"{args.file}: not converted (target {_target_name(args, text)})\n")
        return EXIT_PROBLEMS
    module = parsed.module
    try:
        if args.to == "dps":
            result = print_module(to_dps(module), args.flavour)
        elif args.to == "ssa":
            result = print_module(to_ssa(module), args.flavour)
        elif args.to == "asm":
            result = print_asm(to_ssa(module))
        else:
            result = print_module(module, args.flavour, generic=True)
    except ConversionError as exc:
        d = parsed.source.diagnostic(parsed.position(exc.op), str(exc))
        sys.stderr.write(parsed.source.render(d) + "\n")
        sys.stderr.write(f"{args.file}: not converted to {args.to} (target {config.name})\n")
        return EXIT_PROBLEMS
    except TextFormError as exc:
        sys.stderr.write(f"ptoisa: error: {args.file}: {exc}\n")
        return EXIT_PROBLEMS
    header = f"// converted by ptoisa from {args.file} to {args.to} (target {config.name})\n"
    if args.output:
        from .files import OutputRefused, is_stdout, write_output

        try:
            replaced = write_output(args.output, header + result, inputs=[args.file], stdout=out)
        except OutputRefused as exc:
            sys.stderr.write(f"ptoisa: error: {exc}\n")
            return EXIT_USAGE
        except OSError as exc:
            sys.stderr.write(f"ptoisa: error: cannot write {args.output}: {exc.strerror}\n")
            return EXIT_USAGE
        note = " (replaced the old file)" if replaced else ""
        status = sys.stderr if is_stdout(args.output) else out  # (standard output holds the converted text alone)
        status.write(f"{args.file} -> {args.output} ({args.to}, target {config.name}){note}\n")
    else:
        out.write(header + result)
    return EXIT_OK


def _target_name(args: argparse.Namespace, text: str) -> str:
    from ..ir.diagnostics import target_of

    return target_of(None, text, args.target).name
