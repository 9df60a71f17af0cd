"""Source-located diagnostics: parse a file, verify it op by op for a target, report like a compiler.

    kernel.pto:12:5: error: TCMPS on a2a3: src0 dtype int8 is not supported (allowed: ...)
        pto.tcmps ins(%src, %s : !pto.tile_buf<vec, 16x32xi8>, i8) outs(%dst : ...)
        ^

A parse error stops the file (one diagnostic); verification continues after a failing op, so one run reports
every op that does not verify. An op's location is the start of its statement (its result list, or its name
when it has no results), as in MLIR.

`.ptoas` files are PTO-AS assembly: the five instructions may be written without the `pto.` prefix.
"""

from __future__ import annotations

from functools import lru_cache

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp, f64, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ptoisa.targets import Config, current_config, make_config

from .dominance import undominated_operands
from .legality import module_target, tile_type_problem, verification_target
from .types import TileBufType
from .messages import msg

@lru_cache(maxsize=1)
def asm_names() -> frozenset[str]:
    """The op names PTO-AS assembly writes without `pto.`: every instruction of the registry, lower case."""
    from ptoisa import seed_records  # noqa: F401 - registers the seeds' five
    from ptoisa.isa import vector  # noqa: F401 - registers the vector instructions
    from ptoisa.isa.record import REGISTRY

    return frozenset(rec.mnemonic.removeprefix("pto.") for rec in REGISTRY.values())
ASM_SUFFIX = ".ptoas"
_TARGET_ARCH_RE = re.compile(r'pto\.target_arch\s*=\s*"([^"]*)"')


@dataclass(frozen=True)
class Diagnostic:
    """One message at a 1-based line and column of a source text."""

    line: int
    col: int
    severity: str
    message: str

    def as_json(self) -> dict[str, object]:
        return {"line": self.line, "col": self.col, "severity": self.severity, "message": self.message}


@dataclass
class Source:
    """A text and its name, with position arithmetic."""

    path: str
    text: str
    _starts: list[int] = field(default_factory=list[int], repr=False)

    def __post_init__(self) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line_col(self, pos: int) -> tuple[int, int]:
        pos = max(0, min(pos, len(self.text)))
        line = _bisect(self._starts, pos)
        return line + 1, pos - self._starts[line] + 1

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._starts):
            return ""
        start = self._starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def diagnostic(self, pos: int, message: str, severity: str = "error") -> Diagnostic:
        line, col = self.line_col(pos)
        return Diagnostic(line, col, severity, message)

    def render(self, d: Diagnostic) -> str:
        """`path:line:col: severity: message`, the source line and a caret under the column."""
        head = f"{self.path}:{d.line}:{d.col}: {d.severity}: {d.message}"
        text = self.line_text(d.line).rstrip("\r")
        if not text and d.line > len(self._starts):
            return head
        caret = "".join(c if c == "\t" else " " for c in text[:d.col - 1]) + "^"
        return f"{head}\n{text}\n{caret}"


def _bisect(starts: list[int], pos: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo


class PtoParser(Parser):
    """xDSL's parser, recording where each op starts; in assembly mode the five ops need no `pto.` prefix."""

    def __init__(self, ctx: Context, text: str, name: str = "<string>", *, asm: bool = False) -> None:
        if (wide := _too_wide(text)) is not None:  # xDSL would build the type's 2**width bounds first
            raise ParseError(Span(wide.start(), wide.end(), Input(text, name)),
                             f"integer type {wide.group(0)} is wider than MLIR allows (at most {_MAX_INT_WIDTH} bits)")
        self._foreign = first_foreign(text)
        try:  # (the first token is lexed here)
            super().__init__(ctx, text, name)
        except Exception as exc:  # noqa: BLE001 - replaced when a character MLIR does not lex came first
            raise _plain(exc, self._foreign, text, name, _lexed(exc, None)) from None
        self.asm = asm
        self.op_positions: dict[Operation, int] = {}

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """As xDSL's, with MLIR's lexer rule on characters: outside string literals and comments the text is ASCII
        (the first other character is an error where it stands, named: U+FEFF, a byte-order mark, is invisible;
        xDSL lexed some, '١٢' as a number, '²' failing in int(), or gave messages without them)."""
        try:
            module = super().parse_module(allow_implicit_module)
        except Exception as exc:  # noqa: BLE001
            raise _plain(exc, self._foreign, self.lexer.input.content, self.lexer.input.name,
                         _lexed(exc, self)) from None
        if self._foreign is not None:  # (xDSL took it, inside a token)
            raise _foreign_error(self._foreign, self.lexer.input.content, self.lexer.input.name)
        return module

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        self.op_positions[op] = start
        return op

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        """As xDSL's, and an `index` literal outside 64 bits is refused as MLIR refuses it (xDSL checks the range
        of every integer type but index: `arith.constant 99999999999999999999 : index` verified, and a run held
        a value no index register holds); a literal of a float type follows MLIR's rules (`_float_literal`)."""
        start = self._current_token.span.start
        if self._current_token.kind in (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.FLOAT_LIT, MLIRTokenKind.MINUS):
            value = self.parse_optional_number()
            if value is None or self._current_token.kind != MLIRTokenKind.COLON:  # (xDSL's i64 / f64 defaults)
                return None if value is None else FloatAttr(value, f64) if isinstance(value, float) else \
                    IntegerAttr(value, i64)
            end = self._current_token.span.start
            kind = self._parse_attribute_type()
            if isinstance(kind, AnyFloat):
                return self._float_literal(value, kind, self.lexer.input.content[start:end].strip(), start, end)
            if not isinstance(kind, (IntegerType, IndexType)):
                self.raise_error("Invalid type given for integer or float attribute.", start, end)
            if isinstance(value, float):
                self.raise_error("Floating point value is not valid for integer type.", start, end)
            try:  # (the literal is where its range error belongs, not the op after it)
                attr: IntegerAttr | FloatAttr | None = IntegerAttr(value, kind)
            except VerifyException as exc:
                self.raise_error(_text(exc), start, end)
        else:
            attr = super().parse_optional_builtin_int_or_float_attr()
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType) and \
                not -(1 << 63) <= attr.value.data < 1 << 64:
            self.raise_error(f"Integer value {attr.value.data} is out of range for type index which supports values "
                             f"in the range [{-(1 << 63)}, {1 << 64})", start, self._current_token.span.start)
        return attr

    def _float_literal(self, value: int | float, kind: AnyFloat, text: str, start: int, end: int) -> FloatAttr:
        """A literal of a float type as MLIR's parser takes it (parseFloatFromLiteral): a decimal float rounds to
        the type, past its largest finite value to an infinity (xDSL raised Python's 'float too large to pack'
        at the next op); an integer literal must be hexadecimal, the type's bit pattern, without a minus and
        within the type's width (xDSL took decimal integers as floats, a minus, and 33 bits for f32 or failed
        with 'int too big to convert')."""
        if isinstance(value, int):
            if text.lstrip("-").strip()[:2].lower() != "0x":
                self.raise_error("unexpected decimal integer literal for a floating point value (add a trailing "
                                 "dot to make the literal a float)", start, end)
            if text.startswith("-"):
                self.raise_error("hexadecimal float literal should not have a leading minus", start, end)
            if value.bit_length() > kind.bitwidth:
                self.raise_error("hexadecimal float constant out of range for type", start, end)
            return FloatAttr(next(kind.iter_unpack(value.to_bytes(kind.compile_time_size, "little"))), kind)
        try:
            return FloatAttr(value, kind)
        except OverflowError:  # (rounded past the type's largest finite value)
            return FloatAttr(math.copysign(math.inf, value), kind)

    def _get_op_by_name(self, name: str) -> type[Operation]:
        if name in asm_names():
            if self.asm:
                return super()._get_op_by_name(f"pto.{name}")
            at = self.lexer.input.content.rfind(name, 0, self._current_token.span.start)
            self.raise_error(msg("ssa.asm_name", name=name), max(at, 0), max(at, 0) + len(name))
        return super()._get_op_by_name(name)


def first_foreign(text: str) -> int | None:
    """Offset of the first character outside ASCII that is neither in a string literal nor in a `//` comment (the
    characters MLIR's lexer refuses), or None. String literals end on their line; only lines with such a
    character are walked."""
    if text.isascii():
        return None
    start = 0
    for line in text.split("\n"):
        if not line.isascii():
            inside, escaped = False, False
            for i, c in enumerate(line):
                if inside:
                    inside = escaped or c != '"'
                    escaped = not escaped and c == "\\"
                elif c == '"':
                    inside = True
                elif c == "/" and line.startswith("//", i):
                    break
                elif not c.isascii():
                    return start + i
        start += len(line) + 1
    return None


def _character(char: str) -> str:
    """'١' (U+0661 ARABIC-INDIC DIGIT ONE), or the code point and name alone for what does not show."""
    import unicodedata

    name = unicodedata.name(char, "")
    code = f"U+{ord(char):04X}{' ' + name if name else ''}"
    return f"{char!r} ({code})" if char.isprintable() and not char.isspace() else code


def _foreign_error(at: int, text: str, name: str) -> ParseError:
    char = text[at]
    if char == "\ufeff" and at == 0:
        why = ("a UTF-8 byte-order mark (BOM) starts the file, which MLIR does not take; save the file as UTF-8 "
               "without a BOM")
    else:
        why = "outside string literals and comments, MLIR text is ASCII"
    return ParseError(Span(at, at + 1, Input(text, name)), f"Unexpected character {_character(char)}: {why}")


def _lexed(exc: BaseException, parser: PtoParser | None) -> int:
    """How far the text was read when `exc` was raised: its position (a parse error's), else the lexer's."""
    if isinstance(exc, ParseError):
        return exc.span.start
    try:
        return parser.lexer.pos if parser is not None else -1
    except Exception:  # noqa: BLE001
        return -1


def _plain(exc: BaseException, foreign: int | None, text: str, name: str, at: int) -> BaseException:
    """The error to report for `exc`, raised at `at`: the first foreign character when the text was read up to it
    (MLIR's lexer stops there first), else `exc` with xDSL's unfinished messages mended: a character that does not
    show named by its code point, the 'after {first_char}' of a prefixed name given its character, what was
    expected before ' in block definition'."""
    if foreign is not None and at >= foreign:
        return _foreign_error(foreign, text, name)
    if isinstance(exc, ParseError) and type(exc) is ParseError:
        message = exc.msg
        unexpected = message.removeprefix("Unexpected character: ")
        if unexpected != message and len(unexpected) == 1 and not (unexpected.isprintable() and unexpected != " "):
            message = f"Unexpected character {_character(unexpected)}"
        if "{first_char}" in message:
            message = message.replace("{first_char}", text[exc.span.start:exc.span.start + 1])
        if message == " in block definition":  # (xDSL's context, without what was expected)
            message = "expected an operation, a block label (^name:) or '}' here"
        if message != exc.msg:
            return ParseError(exc.span, message)
    return exc


def is_asm_path(path: str) -> bool:
    return path.endswith(ASM_SUFFIX)


class SourceError(Exception):
    """Text that does not parse (or, with `verify`, does not verify): its diagnostics."""

    def __init__(self, source: Source, diagnostics: Sequence[Diagnostic]) -> None:
        super().__init__("\n".join(source.render(d) for d in diagnostics))
        self.source = source
        self.diagnostics = list(diagnostics)


@dataclass
class Parsed:
    source: Source
    module: ModuleOp
    positions: dict[Operation, int]

    def position(self, op: Operation) -> int:
        return self.positions.get(op, 0)


def parse_source(text: str, path: str = "<string>", *, asm: bool | None = None) -> Parsed:
    """Parse without verifying; SourceError with one diagnostic on a parse error."""
    from . import _unclosed_string_at, make_context

    source = Source(path, text)
    if (at := _unclosed_string_at(text)) is not None:
        raise SourceError(source, [source.diagnostic(at, "End of file reached before closing string literal.")])
    parser: PtoParser | None = None
    try:
        parser = PtoParser(make_context(), text, path, asm=is_asm_path(path) if asm is None else asm)
        module = parser.parse_module()
    except ParseError as exc:
        opening = _unclosed_brace(text) if not text[exc.span.start:].strip() else None
        if opening is not None:  # the parser ran off the end: point at the region that never closed
            message = "this '{' is never closed (the file ends inside its region)"
            raise SourceError(source, [source.diagnostic(opening, message)]) from None
        at = _better_position(text, exc.span.start, exc.msg)
        raise SourceError(source, [source.diagnostic(at, exc.msg + _did_you_mean(exc.msg))]) from None
    except RecursionError:
        raise SourceError(source, [source.diagnostic(_pos(parser), "nesting too deep")]) from None
    except Exception as exc:  # noqa: BLE001 - attribute constructors raise VerifyException/ValueError mid-parse
        raise SourceError(source, [source.diagnostic(_pos(parser), _text(exc))]) from None
    return Parsed(source, module, parser.op_positions)


def _unclosed_brace(text: str) -> int | None:
    """Offset of the innermost '{' still open at the end of `text` (strings and // comments skipped), or None."""
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == "{":
            stack.append(i)
        elif c == "}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


_MAX_INT_WIDTH = (1 << 24) - 1  # MLIR's IntegerType::kMaxWidth
_INTEGER_TYPE = re.compile(r"(?<![\w%@#$.-])[su]?i(\d+)(?![\w$.-])")
"""An integer type token (i32, si8, ui16, ...), outside names (%x, @f, #a)."""


def _too_wide(text: str) -> re.Match[str] | None:
    """The first integer type of more than MLIR's 16777215 bits (its digits compared as text: no huge int)."""
    for match in _INTEGER_TYPE.finditer(text):
        digits = match.group(1).lstrip("0")
        if len(digits) > 8 or (len(digits) == 8 and int(digits) > _MAX_INT_WIDTH):
            return match
    return None


_UNKNOWN_OP = re.compile(r"Operation ([\w.]+) is not registered")
_UNDEFINED_VALUES = re.compile(r"values used but not defined: \[(%[\w$.-]+)")


def _better_position(text: str, at: int, message: str) -> int:
    """Where a parse error is best shown: an unknown op at its name (the parser reports the character after
    it), values used but never defined at the first use of the first one (the parser reports the end of the
    region), else where the parser stopped."""
    unknown = _UNKNOWN_OP.search(message)
    if unknown is not None:
        name = unknown.group(1).split(".", 1)[-1] if "spelling" in message else unknown.group(1)
        start = text.rfind(name, 0, at + 1)
        if start >= 0 and text[start:at].strip() == name:
            return start
    undefined = _UNDEFINED_VALUES.search(message)
    if undefined is not None:
        use = re.search(re.escape(undefined.group(1)) + r"(?![\w$.-])", text)  # never defined: any mention is a use
        if use is not None:
            return use.start()
    return at


def _did_you_mean(message: str) -> str:
    """`; did you mean pto.tcmps?` for an unknown op name close to a known one."""
    import difflib

    from . import make_context

    match = _UNKNOWN_OP.search(message)
    if match is None or "spelling" in message:  # the assembly-name hint already says what to write
        return ""
    ctx = make_context()
    for name in list(ctx.registered_dialect_names):  # the dialects loaded only when named (memref)
        if name not in {d.name for d in ctx.loaded_dialects}:
            ctx.load_registered_dialect(name)
    known = [op.name for op in ctx.loaded_ops]
    close = difflib.get_close_matches(match.group(1), known, n=1, cutoff=0.8)
    return f"; did you mean {close[0]}?" if close else ""


def _pos(parser: PtoParser | None) -> int:
    try:
        return parser.pos if parser is not None else 0
    except Exception:  # noqa: BLE001 - the lexer may fail on the very token it is asked for
        return 0


def _text(exc: BaseException) -> str:
    return str(exc.args[0]) if exc.args else type(exc).__name__


def target_of(parsed: Parsed | None, text: str, flag: str | None) -> Config:
    """The flag, else the module's `pto.target_arch` (a5/cpu; other values a2a3), else the default."""
    if flag:
        return make_config(flag)
    if parsed is not None:
        name = module_target(parsed.module)
    else:  # the text did not parse: read the attribute the way the ptoas driver does, by pattern
        match = _TARGET_ARCH_RE.search(text)
        name = None if match is None else (match[1].lower() if match[1].lower() in ("a5", "cpu") else "a2a3")
    return make_config(name) if name else current_config()


def verify_ops(parsed: Parsed, config: Config) -> list[Diagnostic]:
    """Verify every op for `config`, collecting one diagnostic per failing op (in source order)."""
    out: list[tuple[int, Diagnostic]] = []
    positions: dict[int, dict[int, int]] = {}  # (the module does not change while it is verified)
    with verification_target(config):
        for op in _walk(parsed.module):
            try:
                op.verify(verify_nested_ops=False)
                for value, reason in undominated_operands(op, positions):
                    name = f"%{value.name_hint}" if value.name_hint else "an operand"
                    raise VerifyException(f"{name} {reason}")
                if isinstance(op, FuncOp):
                    _verify_tile_arguments(op, config)
            except VerifyException as exc:
                pos = parsed.position(op)
                out.append((pos, parsed.source.diagnostic(pos, _text(exc))))
            except Exception as exc:  # noqa: BLE001 - a verifier bug must still point at its op
                pos = parsed.position(op)
                out.append((pos, parsed.source.diagnostic(pos, f"internal error verifying '{op.name}': "
                                                               f"{type(exc).__name__}: {exc}")))
        out += _module_rules(parsed)
    return [d for _, d in sorted(out, key=lambda x: x[0])]


def _module_rules(parsed: Parsed) -> list[tuple[int, Diagnostic]]:
    """PTOAS's rules on entry functions and call graphs (ptoisa.ir.entry_rules); a call cycle, reported at the
    module as PTOAS does, gets a note at each function on it."""
    from .entry_rules import CALL_CYCLE, module_problems, on_cycles

    out = []
    for op, message in module_problems(parsed.module):
        pos = parsed.position(op)
        out.append((pos, parsed.source.diagnostic(pos, message)))
        if message == CALL_CYCLE:
            for func in on_cycles(parsed.module):
                at = parsed.position(func)
                out.append((at, parsed.source.diagnostic(at, f"@{func.sym_name.data} is on a call cycle", "note")))
    return out


def _verify_tile_arguments(func: FuncOp, config: Config) -> None:
    """A function argument of tile type obeys the same tile rules as an alloc_tile of that type."""
    for arg in func.body.blocks[0].args if func.body.blocks else ():
        if isinstance(arg.type, TileBufType) and (problem := tile_type_problem(arg.type, config)):
            name = f"%{arg.name_hint}" if arg.name_hint else f"argument {arg.index}"
            raise VerifyException(f"{name}: {problem}")


def _walk(module: ModuleOp) -> Iterator[Operation]:
    yield from module.walk()


@dataclass
class CheckResult:
    path: str
    target: str
    diagnostics: list[Diagnostic]
    source: Source
    module: ModuleOp | None = None

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "target": self.target, "ok": self.ok,
                "diagnostics": [d.as_json() for d in self.diagnostics]}


def check_text(text: str, path: str = "<string>", target: str | None = None, *, asm: bool | None = None,
               errata: bool = True, undefined: str = "raise") -> CheckResult:
    """Parse and verify `text` for a target (with its errata, or not, and its undefined-behaviour policy):
    every diagnostic, the target used."""
    try:
        parsed = parse_source(text, path, asm=asm)
    except SourceError as exc:
        config = target_of(None, text, target)
        return CheckResult(path, config.name, exc.diagnostics, exc.source)
    config = target_of(parsed, text, target)
    if not errata or undefined != config.undefined:
        config = make_config(config.name, errata, undefined)
    notes = [d for d in [target_mismatch(parsed, config)] if d is not None]
    found = verify_ops(parsed, config) + _predicted(parsed, config) + _unread_marks(parsed)
    return CheckResult(path, config.name, notes + sorted(found, key=lambda d: (d.line, d.col)), parsed.source,
                       parsed.module)


def _predicted(parsed: Parsed, config: Config) -> list[Diagnostic]:
    """Warnings about what the target will do differently, known from types alone (ptoisa.ir.predicted)."""
    from .predicted import predicted_warnings

    out = []
    for op in _walk(parsed.module):
        for message in predicted_warnings(op, config):
            out.append(parsed.source.diagnostic(parsed.position(op), message, "warning"))
    return out


def _unread_marks(parsed: Parsed) -> list[Diagnostic]:
    """Warnings at functions whose entry attributes PTOAS reads as absent (`pto.entry = 1 : i32`)."""
    from .entry_rules import unread_marks

    return [parsed.source.diagnostic(parsed.position(func), message, "warning")
            for func, message in unread_marks(parsed.module)]


def target_mismatch(parsed: Parsed, config: Config) -> Diagnostic | None:
    """DECISIONS 26: a warning when an explicit target differs from the module's own `pto.target_arch`."""
    named = module_target(parsed.module)
    if named is None or named == config.name:
        return None
    match = _TARGET_ARCH_RE.search(parsed.source.text)
    return parsed.source.diagnostic(match.start() if match else 0,
                                    f"verifying and running for target {config.name} as asked, although the "
                                    f"module names {named} (pto.target_arch)", "warning")


def parse_checked(text: str, path: str = "<string>", target: str | None = None, *, asm: bool | None = None
                  ) -> tuple[Parsed, Config]:
    """Parse and verify; SourceError with every diagnostic if anything fails."""
    parsed = parse_source(text, path, asm=asm)
    config = target_of(parsed, text, target)
    diagnostics = verify_ops(parsed, config)
    if diagnostics:
        raise SourceError(parsed.source, diagnostics)
    return parsed, config


__all__ = ["asm_names", "CheckResult", "Diagnostic", "Parsed", "PtoParser", "Source", "SourceError",
           "check_text", "parse_checked", "parse_source", "target_of", "verify_ops"]
