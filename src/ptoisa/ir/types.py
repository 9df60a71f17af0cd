"""Types of the `pto` dialect: `!pto.tile_buf`, `!pto.tile`, `!pto.ptr`, `!pto.tensor_view`, `!pto.partition_tensor_view`.

`!pto.tile_buf` parses both PTOAS spellings and prints the compact one with defaults omitted:

    !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major,
                  slayout=none_box, fractal=512, pad=0>                 (keyed, fixed key order)
    !pto.tile_buf<vec, 16x16xf32, valid=?x?>                           (compact, canonical)

`!pto.tile` is ptoisa's spelling of the seed pages' SSA (Level-1) tile value. It has exactly the parameters of
`!pto.tile_buf` and the compact syntax, except that the location may be left out and defaults to `vec` (so that
PTOAS's rank-2 `!pto.tile<32x32xf32>` means a vec tile); it has no keyed form. The printer omits `vec`:

    !pto.tile<16x16xf32, valid=16x2>        !pto.tile<mat, 16x16xf16, blayout=col_major>

Valid sizes are ints with -1 (`?`) for dynamic. The August field checks (positive sizes, valid <= size, fractal in
{32, 512, 1024}) apply at parse time and in `verify_`, with PTOAS's messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Position

from ptoisa.tile.enums import DYNAMIC, BLayout, SLayout, TileType

from .attrs import BLayoutAttr, SLayoutAttr, TileLocAttr
from .errors import TextFormError
from .messages import msg
from .syntax import current_flavour, raise_flavour_error

FRACTALS = (32, 512, 1024)
PAD_RANGE = range(4)  # null, zero, max, min
COMPACT_RANGE = range(3)  # null, normal, row_plus_one
KEYED_ORDER = ("dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad")
COMPACT_KEYS = ("valid", "blayout", "slayout", "fractal", "pad", "compact")


@dataclass
class TileFields:
    """The eleven tile parameters as plain Python values, while parsing or building a tile type."""

    loc: TileType
    element_type: Attribute
    rows: int
    cols: int
    valid_row: int | None = None
    valid_col: int | None = None
    blayout: BLayout = BLayout.RowMajor
    slayout: SLayout = SLayout.NoneBox
    fractal: int = 512
    pad: int = 0
    compact: int = 0
    seen: set[str] = field(default_factory=set[str], compare=False, repr=False)

    def params(self) -> tuple[Attribute, ...]:
        vr = self.rows if self.valid_row is None else self.valid_row
        vc = self.cols if self.valid_col is None else self.valid_col
        return (
            TileLocAttr(self.loc), self.element_type, IntAttr(self.rows), IntAttr(self.cols), IntAttr(vr),
            IntAttr(vc), BLayoutAttr(self.blayout), SLayoutAttr(self.slayout), IntAttr(self.fractal),
            IntAttr(self.pad), IntAttr(self.compact),
        )


def tile_fields_problem(rows: int, cols: int, vr: int, vc: int, fractal: int, pad: int, compact: int) -> str | None:
    """The first August field rule the sizes break, as PTOAS words it, or None."""
    if rows <= 0 or cols <= 0:
        return msg("tb.positive")
    for key, valid in (("v_row", vr), ("v_col", vc)):
        if valid < DYNAMIC:
            return msg("tb.bad_valid", key=key)
    if vr > rows:
        return msg("tb.valid_row_exceeds", valid=vr, size=rows)
    if vc > cols:
        return msg("tb.valid_col_exceeds", valid=vc, size=cols)
    if fractal not in FRACTALS:
        return msg("tb.fractal", value=fractal)
    if pad not in PAD_RANGE:
        return msg("tb.unknown_pad", value=pad)
    if compact not in COMPACT_RANGE:
        return msg("tb.unknown_compact", value=compact)
    return None


def _dims(parsed: Sequence[int]) -> list[int]:
    """xDSL's `?` marker as ptoisa's -1."""
    return [DYNAMIC if d == DYNAMIC_INDEX else d for d in parsed]


# The bases are dataclasses so that their annotated parameters take part in equality and hashing of the
# concrete (irdl-defined) subclasses.
@dataclass(frozen=True, init=False)
class _TileTypeBase(ParametrizedAttribute, TypeAttribute):
    """Parameters and accessors shared by `!pto.tile_buf` and `!pto.tile`."""

    loc: TileLocAttr
    element_type: Attribute
    rows: IntAttr
    cols: IntAttr
    valid_row: IntAttr
    valid_col: IntAttr
    blayout: BLayoutAttr
    slayout: SLayoutAttr
    fractal: IntAttr
    pad: IntAttr
    compact: IntAttr

    @classmethod
    def build(cls, loc: TileType | str, element_type: Attribute, rows: int, cols: int, *,
              valid: tuple[int, int] | None = None, blayout: BLayout = BLayout.RowMajor,
              slayout: SLayout = SLayout.NoneBox, fractal: int = 512, pad: int = 0, compact: int = 0) -> Self:
        """Build from Python values; `loc` may be a TileType or its text (`"vec"`), valid sizes use -1."""
        tile_loc = _word(TileLocAttr, loc, "tb.unknown_loc") if isinstance(loc, str) else loc
        vr, vc = valid if valid is not None else (rows, cols)
        fields = TileFields(tile_loc, element_type, rows, cols, vr, vc, blayout, slayout, fractal, pad, compact)
        return cls.new(fields.params())

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows.data, self.cols.data

    @property
    def valid_shape(self) -> tuple[int, int]:
        """Valid rows and columns, -1 where dynamic."""
        return self.valid_row.data, self.valid_col.data

    @property
    def location(self) -> TileType:
        return self.loc.data

    def verify(self) -> None:
        super().verify()
        problem = tile_fields_problem(*self.shape, *self.valid_shape, self.fractal.data, self.pad.data,
                                      self.compact.data)
        if problem is not None:
            raise VerifyException(problem)
        if self.loc.data not in TileLocAttr.spellings:
            raise VerifyException(msg("tile.no_spelling", value=self.loc.data.name))

    def print_compact_body(self, printer: Printer, *, with_loc: bool) -> None:
        parts = [self.loc.text] if with_loc else []
        printer.print_string(", ".join([*parts, f"{self.rows.data}x{self.cols.data}x"]))
        printer.print_attribute(self.element_type)
        for key, text in self._non_default_fields():
            printer.print_string(f", {key}={text}")

    def _non_default_fields(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.valid_shape != self.shape:
            out.append(("valid", "x".join("?" if v == DYNAMIC else str(v) for v in self.valid_shape)))
        if self.blayout.data is not BLayout.RowMajor:
            out.append(("blayout", self.blayout.text))
        if self.slayout.data is not SLayout.NoneBox:
            out.append(("slayout", self.slayout.text))
        out += [(k, str(v.data)) for k, v, d in (("fractal", self.fractal, 512), ("pad", self.pad, 0),
                                                 ("compact", self.compact, 0)) if v.data != d]
        return out


@irdl_attr_definition
class TileBufType(_TileTypeBase):
    """`!pto.tile_buf<...>`: the tile type of every DPS op (keyed or compact syntax; prints compact)."""

    name = "pto.tile_buf"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        start = parser.pos
        if parser.parse_optional_keyword("loc") is not None:
            fields = _parse_keyed(parser)
        else:
            fields = _parse_compact(parser, _parse_loc(parser))
        _check_fields(parser, fields, start)
        parser.parse_punctuation(">")
        return fields.params()

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_compact_body(printer, with_loc=True)


@irdl_attr_definition
class PtoTileType(_TileTypeBase):
    """`!pto.tile<[loc, ]RxCxT, key=value...>`: ptoisa's spelling of the seed pages' SSA tile value."""

    name = "pto.tile"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        start = parser.pos
        has_loc = parser._current_token.kind.name in ("BARE_IDENT", "STRING_LIT")  # pyright: ignore
        loc = _parse_loc(parser) if has_loc else TileType.Vec
        fields = _parse_compact(parser, loc, after_loc=has_loc)
        _check_fields(parser, fields, start)
        parser.parse_punctuation(">")
        return fields.params()

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_compact_body(printer, with_loc=self.loc.data is not TileType.Vec)


def _word(attr_cls: type[TileLocAttr | BLayoutAttr | SLayoutAttr], word: str, key: str):
    member = attr_cls.from_text(word, bracketed=False)
    if member is None:
        raise TextFormError(msg(key, value=word))
    return member


def _parse_word(parser: AttrParser, attr_cls, key: str):
    start = parser.pos
    word = parser.parse_optional_identifier_or_str_literal()
    member = None if word is None else attr_cls.from_text(word, bracketed=False)
    if member is None:
        parser.raise_error(msg(key, value=word if word is not None else parser._current_token.text), start)
    return member


def _parse_loc(parser: AttrParser) -> TileType:
    return _parse_word(parser, TileLocAttr, "tb.unknown_loc")


def _parse_int(parser: AttrParser) -> int:
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None:
        parser.raise_error(msg("tb.expected_int"))
    return value


def _parse_valid_dim(parser: AttrParser, key: str) -> int:
    if parser.parse_optional_punctuation("?") is not None:
        return DYNAMIC
    start = parser.pos
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None or value < DYNAMIC:
        parser.raise_error(msg("tb.bad_valid", key=key), start)
    return value


def _parse_keyed(parser: AttrParser) -> TileFields:
    """Keyed form after `loc`: every key in PTOAS's fixed order, `compact` optional."""
    parser.parse_punctuation("=")
    fields = TileFields(_parse_loc(parser), NoneAttr(), 0, 0)
    for key in KEYED_ORDER:
        _expect_key(parser, key)
        _KEYED_PARSERS[key](parser, fields)
    if parser.parse_optional_punctuation(","):
        if parser.parse_optional_keyword("compact") is None:
            parser.raise_error(msg("tb.expected_key", key="compact"))
        parser.parse_punctuation("=")
        fields.compact = _parse_int(parser)
    return fields


def _expect_key(parser: AttrParser, key: str) -> None:
    parser.parse_punctuation(",")
    if parser.parse_optional_keyword(key) is None:
        parser.raise_error(msg("tb.expected_key", key=key))
    parser.parse_punctuation("=")


def _set_dtype(p: AttrParser, f: TileFields) -> None:
    f.element_type = p.parse_type()


def _set_rows(p: AttrParser, f: TileFields) -> None:
    f.rows = _parse_int(p)


def _set_cols(p: AttrParser, f: TileFields) -> None:
    f.cols = _parse_int(p)


def _set_v_row(p: AttrParser, f: TileFields) -> None:
    f.valid_row = _parse_valid_dim(p, "v_row")


def _set_v_col(p: AttrParser, f: TileFields) -> None:
    f.valid_col = _parse_valid_dim(p, "v_col")


def _set_blayout(p: AttrParser, f: TileFields) -> None:
    f.blayout = _parse_word(p, BLayoutAttr, "tb.unknown_blayout")


def _set_slayout(p: AttrParser, f: TileFields) -> None:
    f.slayout = _parse_word(p, SLayoutAttr, "tb.unknown_slayout")


def _set_fractal(p: AttrParser, f: TileFields) -> None:
    f.fractal = _parse_int(p)


def _set_pad(p: AttrParser, f: TileFields) -> None:
    f.pad = _parse_int(p)


def _set_compact(p: AttrParser, f: TileFields) -> None:
    f.compact = _parse_int(p)


def _set_valid(p: AttrParser, f: TileFields) -> None:
    start = p.pos
    dims = _dims(p.parse_dimension_list())
    if len(dims) != 2:
        p.raise_error(msg("tb.valid_two_dims"), start, p.pos)
    f.valid_row, f.valid_col = dims


_KEYED_PARSERS = {
    "dtype": _set_dtype, "rows": _set_rows, "cols": _set_cols, "v_row": _set_v_row, "v_col": _set_v_col,
    "blayout": _set_blayout, "slayout": _set_slayout, "fractal": _set_fractal, "pad": _set_pad,
}
_COMPACT_PARSERS = {
    "valid": _set_valid, "blayout": _set_blayout, "slayout": _set_slayout, "fractal": _set_fractal,
    "pad": _set_pad, "compact": _set_compact,
}


def _parse_compact(parser: AttrParser, loc: TileType, *, after_loc: bool = True) -> TileFields:
    """Compact form after the location: `, RxCxT` then `, key=value` in any order, each at most once."""
    if after_loc:
        parser.parse_punctuation(",")
    start = parser.pos
    parsed, element_type = parser.parse_ranked_shape()
    dims = _dims(parsed)
    if len(dims) != 2:
        parser.raise_error(msg("tb.two_dims"), start, parser.pos)
    if DYNAMIC in dims:
        parser.raise_error(msg("tb.static_shape"), start, parser.pos)
    fields = TileFields(loc, element_type, dims[0], dims[1])
    while parser.parse_optional_punctuation(",") is not None:
        _parse_compact_entry(parser, fields)
    return fields


def _parse_compact_entry(parser: AttrParser, fields: TileFields) -> None:
    start = parser.pos
    key = parser.parse_optional_identifier()
    if key not in _COMPACT_PARSERS:
        parser.raise_error(msg("tb.unknown_key", key=key or parser._current_token.text), start, parser.pos)
    if key in fields.seen:
        parser.raise_error(msg("tb.duplicate", key=key), start, parser.pos)
    fields.seen.add(key)
    parser.parse_punctuation("=")
    _COMPACT_PARSERS[key](parser, fields)


def _check_fields(parser: AttrParser, fields: TileFields, start: Position) -> None:
    vr = fields.rows if fields.valid_row is None else fields.valid_row
    vc = fields.cols if fields.valid_col is None else fields.valid_col
    problem = tile_fields_problem(fields.rows, fields.cols, vr, vc, fields.fractal, fields.pad, fields.compact)
    if problem is not None:
        parser.raise_error(problem, start, parser.pos)


# --- pointers and views --------------------------------------------------------------------------------------

PTR_SPACES = {
    "gm": "gm", "ub": "ub", "vec": "ub", "mat": "mat", "l1": "mat", "left": "left", "l0a": "left",
    "right": "right", "l0b": "right", "acc": "acc", "l0c": "acc", "bias": "bias", "bt": "bias",
    "scaling": "scaling", "fb": "scaling",
}


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!pto.ptr<T[, space]>`, space default `gm`; aliases are canonicalised (`vec` prints as `ub`).

    The August printer always shows the space; the April flavour prints `!pto.ptr<T>` (gm only).
    """

    name = "pto.ptr"
    element_type: Attribute
    space: StringAttr

    def __init__(self, element_type: Attribute, space: str = "gm"):
        super().__init__(element_type, StringAttr(PTR_SPACES.get(space, space)))

    def verify(self) -> None:
        super().verify()
        if self.space.data not in PTR_SPACES.values():
            raise VerifyException(msg("ptr.unknown_space", value=self.space.data))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        element_type = parser.parse_type()
        space = "gm"
        if parser.parse_optional_punctuation(",") is not None:
            start = parser.pos
            word = parser.parse_identifier()
            if word not in PTR_SPACES:
                parser.raise_error(msg("ptr.unknown_space", value=word), start, parser.pos)
            space = PTR_SPACES[word]
        parser.parse_punctuation(">")
        return (element_type, StringAttr(space))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            if current_flavour() == "aug":
                printer.print_string(f", {self.space.data}")
            elif self.space.data != "gm":
                raise_flavour_error(msg("ptr.apr_space", value=self.space.data))


@dataclass(frozen=True, init=False)
class _ShapedViewBase(ParametrizedAttribute, TypeAttribute):
    """`<d0x...xT>` with integer or `?` dimensions (any rank)."""

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    @classmethod
    def build(cls, shape: Sequence[int], element_type: Attribute) -> Self:
        return cls.new((ArrayAttr(IntAttr(d) for d in shape), element_type))

    @property
    def dims(self) -> tuple[int, ...]:
        """Dimensions, -1 where dynamic."""
        return tuple(d.data for d in self.shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parsed, element_type = parser.parse_ranked_shape()
        dims = _dims(parsed)
        parser.parse_punctuation(">")
        return (ArrayAttr(IntAttr(d) for d in dims), element_type)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            for d in self.dims:
                printer.print_string(f"{'?' if d == DYNAMIC else d}x")
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class TensorViewType(_ShapedViewBase):
    """`!pto.tensor_view<?x?xf32>`: a global-memory tensor (note `<2xf32>` is 1-D of extent 2)."""

    name = "pto.tensor_view"


@irdl_attr_definition
class PartitionTensorViewType(_ShapedViewBase):
    """`!pto.partition_tensor_view<16x64xf32>`: a window of a tensor view (any rank; 2-D and 5-D are common)."""

    name = "pto.partition_tensor_view"


TILE_TYPES = (TileBufType, PtoTileType)
@irdl_attr_definition
class HiFloat8Type(ParametrizedAttribute, TypeAttribute):
    """`!pto.hif8`: the element type hifloat8_t (an 8-bit float MLIR's builtin types lack; DECISIONS 25)."""

    name = "pto.hif8"


@irdl_attr_definition
class PipeType(ParametrizedAttribute, TypeAttribute):
    """`!pto.pipe`: the opaque handle of a cube/vector FIFO (made by initialize_l2l_pipe / initialize_l2g2l_pipe;
    what the pipe is lives in the attributes of the op that made it)."""

    name = "pto.pipe"


PTO_TYPES = (TileBufType, PtoTileType, PtrType, TensorViewType, PartitionTensorViewType, HiFloat8Type, PipeType)
