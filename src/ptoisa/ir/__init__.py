"""The `pto` dialect on xDSL: PTOAS's textual IR, parsed, printed and structurally verified.

    from ptoisa.ir import parse_module, print_module
    module = parse_module(text)                 # April or August PTOAS text; verified
    print_module(module)                        # August PTOAS text (canonical)
    print_module(module, flavour="apr")         # April PTOAS text

Only this package imports xDSL; the ptoisa core never imports it.
"""

from __future__ import annotations

try:
    import xdsl  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError("ptoisa.ir needs xDSL: pip install 'ptoisa[ir]'") from error

import io

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.ir import Dialect
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from .attrs import ENUM_ATTRS, CmpModeAttr, MaskPatternAttr
from .convert import dtype_of_type, tile_buf_type_of, tile_spec_of, type_of_dtype
from .errors import TextFormError
from .ops import FIVE_OPS, TCIOp, TCmpsOp, TExpandsOp, TGatherOp, TPartMulOp
from .record_ops import RECORD_OPS
from .view_ops import VIEW_OPS
from .support_ops import SUPPORT_OPS, AllocTileOp
from .sync_ops import SYNC_OPS
from .pipe_ops import PIPE_OPS
from .misc_ops import MISC_OPS, MISC_TYPES
from .syntax import Flavour, print_flavour
from .types import PTO_TYPES, PartitionTensorViewType, PtoTileType, PtrType, TensorViewType, TileBufType

PTO = Dialect("pto", [*FIVE_OPS, *SUPPORT_OPS, *SYNC_OPS, *RECORD_OPS, *VIEW_OPS, *PIPE_OPS, *MISC_OPS],
              [*ENUM_ATTRS, *PTO_TYPES, *MISC_TYPES])


def _memref() -> Dialect:
    from .memref_ops import MemRef

    return MemRef


def make_context() -> Context:
    """An xDSL context with builtin, func, arith, scf and pto loaded, and memref registered: xDSL loads it when
    the text names a memref op or attribute (April PTOAS's `memref.reinterpret_cast`), so that the kernels that
    use none do not import xDSL's memref dialect (some 40 op definitions)."""
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTO):
        ctx.load_dialect(dialect)
    ctx.register_dialect("memref", _memref)
    return ctx


def _unclosed_string_at(text: str) -> int | None:
    """Where a string literal opens that its line never closes (outside `//` comments), or None."""
    start, escaped, i = None, False, 0
    while i < len(text):
        c = text[i]
        if start is None and text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if start is not None and c == "\n":
            return start
        if start is not None and not escaped and c == '"':
            start = None
        elif start is None and c == '"':
            start = i
        escaped = start is not None and c == "\\" and not escaped
        i += 1
    return start


def parse_module(text: str, path: str = "<string>", *, asm: bool | None = None) -> ModuleOp:
    """Parse and verify PTOAS text (either version), the SSA form, or (`asm`, default: a `.ptoas` path) the
    PTO-AS assembly form. Raises xDSL's ParseError or VerifyException (the first failure).

    Verification uses the target of `legality.verification_target`, else the module's `pto.target_arch`, else
    `ptoisa.targets.current_config()`. `diagnostics.check_text` reports every failure with file:line:col."""
    # xDSL 0.74's string-literal regex backtracks exponentially on an unterminated literal; fail fast instead.
    if (at := _unclosed_string_at(text)) is not None:
        source = Input(text, path)
        raise ParseError(Span(at, at + 1, source), "End of file reached before closing string literal.")
    from .diagnostics import PtoParser, is_asm_path
    from .entry_rules import check_module

    module = PtoParser(make_context(), text, path, asm=is_asm_path(path) if asm is None else asm).parse_module()
    module.verify()
    check_module(module)
    return module


def print_module(module: ModuleOp, flavour: Flavour = "aug", *, generic: bool = False) -> str:
    """`module` as text: PTOAS-August (`"aug"`, canonical) or PTOAS-April (`"apr"`) spellings, or the generic
    op form. Raises TextFormError when something has no spelling in the flavour (a tci tmp in April)."""
    out = io.StringIO()
    with print_flavour(flavour):
        Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue() + "\n"


__all__ = [
    "PTO", "AllocTileOp", "CmpModeAttr", "MaskPatternAttr", "PartitionTensorViewType", "PtoTileType", "PtrType",
    "TCIOp", "TCmpsOp", "TExpandsOp", "TGatherOp", "TPartMulOp", "TensorViewType", "TextFormError", "TileBufType",
    "dtype_of_type", "make_context", "parse_module", "print_module", "tile_buf_type_of", "tile_spec_of",
    "type_of_dtype",
]
