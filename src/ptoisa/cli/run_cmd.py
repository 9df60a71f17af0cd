"""`ptoisa run`: execute a kernel of a `.pto` file on NumPy data (ptoisa.interp).

This module only builds the parser, so that `ptoisa --help` imports neither NumPy nor xDSL; the run itself is in
run_impl.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .._names import TARGET_NAMES
from .numbers import foreign

DESCRIPTION = """\
Run a function of a PTOAS .pto file: scf loops, arith and the pto ops execute through the ptoisa core, global
tensors come from .npy / raw .bin files, scalars from values, and the tensors the kernel wrote are saved.

Arguments (ARG, or --arg ARG) bind in the entry's argument order, or by name as NAME=SPEC. SPEC is:
  FILE.npy                      a NumPy array (its dtype must be the pointer's element type)
  FILE.bin[:DTYPE[:SHAPE]]      raw little-endian data, as PTO test suites store golden data; DTYPE defaults
                                to the pointer's element type, SHAPE (e.g. 16x16) to one dimension
  zeros:SHAPE                   a zero-filled tensor of the pointer's element type (an output buffer)
  random:SHAPE[:SEED]           made-up input of the pointer's element type, the same for the same command:
                                floats uniform in [-1, 1), integers in [-8, 8) (unsigned: [0, 16)); another
                                SEED (default 0) gives other values
  VALUE                         a scalar: 3, -1, 0x10, 0.5, inf, nan, true/false

The target is --target, else the module's pto.target_arch, else $PTOISA_TARGET, else a2a3. Tiles made by
pto.alloc_tile are zero-filled (--fill nan fills them with 0xFF bytes: NaN in float tiles, -1/max in integer ones;
--fill poison also reports the first op that reads an element nothing wrote, with its file:line:col).
Exit status: 0 ran, 1 the kernel failed (the error names the op and file:line:col), 2 bad usage or input."""

EPILOG = """\
examples: the first two run as they are from a clone's root, on its shipped data
  ptoisa run examples/pto/run_scale_compare.pto examples/pto/data/x_64x16_f32.npy zeros:64x16 zeros:64x2 2.0 100.0 \\
      --out results/
  ptoisa run examples/pto/run_select_count.pto examples/pto/data/scores_16x16_f32.npy zeros:16x16 zeros:2x8 \\
      zeros:2 3.0 5 --grid 2
  ptoisa run kernel.pto --entry tcmps_gt --arg in=in.bin:f32:16x16 --arg out=zeros:16x32 --arg threshold=0.5
  ptoisa run kernel.pto random:64x64:1 zeros:64x64 0.5 --target a5 --fill nan --block 3/8"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `run` to the `ptoisa` parser."""
    run = sub.add_parser("run", help="run a kernel of a .pto file on NumPy data", description=DESCRIPTION,
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("file", metavar="FILE.pto")
    run.add_argument("args", nargs="*", metavar="ARG", help="arguments in order, or NAME=SPEC")
    run.add_argument("--arg", "-a", action="extend", nargs="+", default=[], metavar="[NAME=]SPEC",
                     help="arguments (repeatable); same forms as ARG")
    run.add_argument("--entry", "-e", metavar="NAME", help="the function to run (default: the only public one)")
    run.add_argument("--out", "-o", metavar="DIR", help="save every tensor the kernel wrote to DIR/NAME.npy "
                                                        "(and DIR/NAME.bin when it came from a .bin)")
    run.add_argument("--golden", action="store_true",
                     help="with --out: golden data as NPU test suites keep it: NAME.bin (raw little-endian) next "
                          "to NAME.npy for every output and every input tensor (one the kernel read and did not "
                          "write), and manifest.json describing them and the scalars")
    run.add_argument("--target", "-t", type=str.lower, choices=TARGET_NAMES,
                     help="target profile (default: the module's pto.target_arch, else $PTOISA_TARGET, else a2a3)")
    run.add_argument("--no-errata", action="store_true",
                     help="give the contract's results instead of reproducing the target's errata")
    run.add_argument("--emulate-undefined", action="store_true",
                     help="reproduce what the target does with undefined input instead of refusing it")
    run.add_argument("--fill", default="zero", metavar="zero|nan|poison|BYTE",
                     help="initial contents of tiles from alloc_tile and of on-chip buffers (default zero); "
                          "poison stops at the first op that reads a tile element nothing wrote")
    run.add_argument("--block", default=None, metavar="I[/N]", help="get_block_idx / get_block_num (default 0/1)")
    run.add_argument("--grid", type=_positive_int, default=None, metavar="N",
                     help="run blocks 0..N-1 of an SPMD kernel in turn over the same tensors (a block "
                          "counter on a terminal's stderr once it takes more than 2 s)")
    run.add_argument("--quiet", "-q", action="store_true", help="print only errors and warnings")
    run.add_argument("--format", choices=["text", "json"], default="text",
                     help="json: one JSON object (target, entry, steps, arguments, outputs, returns) on stdout")
    limits = run.add_argument_group("limits", "a run that reaches one stops with an error naming the op and its "
                                              "file:line:col (exit 1)")
    limits.add_argument("--max-steps", type=_positive_int, default=100_000_000, metavar="N",
                        help="op steps a run may execute, each block of --grid on its own; loops are "
                             "charged before they start (default 10^8)")
    limits.add_argument("--timeout", type=_positive_float, default=None, metavar="SECONDS",
                        help="wall-clock seconds the run may take, all the blocks of --grid together "
                             "(default: none)")
    limits.add_argument("--max-bytes", type=_byte_size, default=1 << 30, metavar="SIZE",
                        help="bytes of any one tile or zeros:/random: tensor (default 1G; K, M, G suffixes)")
    run.set_defaults(func=cmd_run, loads=("ptoisa.cli.run_impl", "ptoisa.interp"))


def _positive_int(text: str) -> int:
    try:
        value = int(text, 0) if text.isascii() else None
    except ValueError:
        value = None
    if value is None and text.strip().isdigit() and text.isascii():  # (int() stops at 4300 digits)
        raise argparse.ArgumentTypeError(f"too large: a number of {len(text.strip())} digits")
    if value is None:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}{foreign(text)}")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive (got {text})")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text) if text.isascii() else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}{foreign(text)}")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (got {text})")
    return value


def _byte_size(text: str) -> int:
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:].lower(), 1) if text.isascii() else 1
    return _positive_int(text[:-1] if scale > 1 else text) * scale


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    from .run_impl import cmd_run as run

    return run(args, out)
