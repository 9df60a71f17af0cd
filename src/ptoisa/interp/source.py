"""Parse PTOAS text for execution, remembering where each op starts (`file:line:col`).

xDSL 0.74 gives parsed ops an unknown location, so the parser records the start of every operation (its result
list, as MLIR does); the module is then verified exactly as `ptoisa.ir.parse_module` verifies it. SSA (Level-1)
modules and `.ptoas` assembly are lowered to DPS form before they run.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span

from .. import ir
from ..ir.legality import verification_target
from ..targets import Config
from ..ir.dominance import undominated_operands
from ..ir.diagnostics import PtoParser, is_asm_path
from ..ir.entry_rules import check_module
from ..ir.forms import ConversionError, has_form, to_dps
from .errors import LoadError, UnreadableSourceError


class Source:
    """A parsed, verified module with the source position of each op."""

    def __init__(self, text: str, path: str, config: Config | None = None) -> None:
        self.text = text
        self.path = path
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        with verification_target(config):  # a target given by the caller wins over the module's own
            self.module, self._starts = _parse(text, path)

    def location(self, op: Operation) -> str:
        """`file:line:col` (1-based) of the op, or `file:?` when it was not parsed from this text."""
        pos = self._starts.get(id(op))
        if pos is None:
            return f"{self.path}:?"
        line = bisect_right(self._line_starts, pos)
        return f"{self.path}:{line}:{pos - self._line_starts[line - 1] + 1}"


def _parse(text: str, path: str) -> tuple[ModuleOp, dict[int, int]]:
    guard = getattr(ir, "_unclosed_string_at", None)  # xDSL backtracks badly on an unclosed string literal
    if guard is not None and (at := guard(text)) is not None:
        raise LoadError(str(ParseError(Span(at, at + 1, Input(text, path)),
                                       "End of file reached before closing string literal.")))
    try:  # PtoParser records where each op starts; .ptoas files are PTO-AS assembly (no `pto.` prefixes)
        parser = PtoParser(ir.make_context(), text, path, asm=is_asm_path(path))
        module = parser.parse_module()
        module.verify()
        check_module(module)  # PTOAS's rules on entry functions and call graphs
        positions: dict[int, dict[int, int]] = {}  # (the module does not change before to_dps below)
        for op in module.walk():
            for value, reason in undominated_operands(op, positions):
                raise VerifyException(f"operand of '{op.name}' {reason}")
        if has_form(module, True):  # Level 1: give every SSA op its destination tile, as PTOAS's lowering does
            moved: dict[int, Operation] = {}
            to_dps(module, moved)
            by_id = {id(op): pos for op, pos in parser.op_positions.items()}
            for old, new in moved.items():
                if old >= 0 and old in by_id:
                    parser.op_positions[new] = by_id[old]
            module.verify()
    except (ParseError, VerifyException, ConversionError) as exc:
        raise LoadError(f"{path}: {exc}") from exc
    except RecursionError:
        raise LoadError(f"{path}: nesting too deep to parse") from None
    except (ValueError, TypeError, OverflowError) as exc:  # attribute constructors, huge literals
        raise LoadError(f"{path}: {exc.args[0] if exc.args else type(exc).__name__}") from None
    return module, {id(op): pos for op, pos in parser.op_positions.items()}


def read_source(path_or_text: str | Path, config: Config | None = None) -> Source:
    """A Source from a file path, or from PTOAS text (anything containing a newline or `{` is text)."""
    if not isinstance(path_or_text, (str, Path)):
        from .errors import ArgumentError

        raise ArgumentError(f"load takes a path or PTOAS text (got {type(path_or_text).__name__})")
    if isinstance(path_or_text, Path) or ("\n" not in path_or_text and "{" not in path_or_text):
        path = Path(path_or_text)
        try:
            if "\0" in str(path):  # (os calls refuse it with ValueError)
                raise UnreadableSourceError(f"cannot read {str(path)!r}: a path has no NUL character")
            if path.exists() and not path.is_file():
                raise UnreadableSourceError(f"cannot read {path}: not a regular file")
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnreadableSourceError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise UnreadableSourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        return Source(text, str(path), config)
    return Source(path_or_text, "<string>", config)
