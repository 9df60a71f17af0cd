"""!pto.tile_buf (both spellings), !pto.tile, !pto.ptr and the views: parse, print, errors."""

from __future__ import annotations

import pytest
from pto_ir_helpers import parse_attr, print_attr
from xdsl.dialects.builtin import Float32Type, IntegerType, Signedness
from xdsl.utils.exceptions import ParseError

from ptoisa.dtypes import DType
from ptoisa.ir import PtoTileType, PtrType, TileBufType, print_module, tile_buf_type_of, tile_spec_of
from ptoisa.tile.enums import BLayout, CompactMode, PadValue, SLayout, TileType
from ptoisa.tile.spec import TileSpec

KEYED = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=-1, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")

CANONICAL = [
    "!pto.tile_buf<vec, 16x16xf32>",
    "!pto.tile_buf<vec, 16x16xf32, valid=?x?>",
    "!pto.tile_buf<vec, 1x16xi16, pad=1>",
    "!pto.tile_buf<vec, 16x16xf32, valid=8x8, blayout=col_major, slayout=row_major, fractal=1024, pad=1, compact=2>",
    "!pto.tile_buf<mat, 32x16xbf16, slayout=col_major>",
    "!pto.tile_buf<acc, 16x16xf32, valid=16x?>",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_compact_form_prints_itself(text: str) -> None:
    assert print_attr(parse_attr(text)) == text


def test_keyed_form_fields_and_compact_print() -> None:
    t = parse_attr(KEYED)
    assert isinstance(t, TileBufType)
    assert (t.location, t.shape, t.valid_shape) == (TileType.Vec, (16, 16), (-1, -1))
    assert t.element_type == Float32Type()
    assert (t.blayout.data, t.slayout.data, t.fractal.data, t.pad.data, t.compact.data) == (
        BLayout.RowMajor, SLayout.NoneBox, 512, 0, 0)
    assert print_attr(t) == "!pto.tile_buf<vec, 16x16xf32, valid=?x?>"


def test_keyed_and_compact_are_the_same_type() -> None:
    keyed = parse_attr("!pto.tile_buf<loc = \"vec\", dtype=ui8, rows=16, cols=32, v_row=16, v_col=2, "
                       "blayout=\"row_major\", slayout=none_box, fractal=512, pad=1, compact=1>")
    compact = parse_attr("!pto.tile_buf<vec, 16x32xui8, compact=1, pad=1, valid=16x2>")
    assert keyed == compact
    assert keyed.element_type == IntegerType(8, Signedness.UNSIGNED)


def test_defaults_written_explicitly_are_omitted() -> None:
    text = "!pto.tile_buf<vec, 16x16xf32, valid=16x16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    assert print_attr(parse_attr(text)) == "!pto.tile_buf<vec, 16x16xf32>"


@pytest.mark.parametrize(("text", "message"), [
    ("!pto.tile_buf<vec, 16x16xf32, pad=1, pad=2>", "duplicate pad in tile_buf compact syntax"),
    ("!pto.tile_buf<vec, 16x16xf32, color=1>", "unknown key in tile_buf compact syntax: color"),
    ("!pto.tile_buf<vec, 2x16x16xf32>", "tile_buf compact syntax expects exactly two shape dims"),
    ("!pto.tile_buf<vec, 16x16xf32, valid=-1x-1>", "tile_buf valid must have exactly two dims"),
    ("!pto.tile_buf<vec, ?x16xf32>", "expected static shape"),
    ("!pto.tile_buf<ub, 16x16xf32>", "unknown loc: ub"),
    ("!pto.tile_buf<vec, 16x16xf32, blayout=RowMajor>", "unknown blayout: RowMajor"),
    ("!pto.tile_buf<vec, 16x16xf32, pad=zero>", "expected integer value"),
    ("!pto.tile_buf<vec, 16x16xf32, pad=4>", "unknown pad: 4"),
    ("!pto.tile_buf<vec, 16x16xf32, compact=3>", "unknown compact: 3"),
    ("!pto.tile_buf<vec, 0x16xf32>", "tile_buf rows/cols must be positive"),
    ("!pto.tile_buf<vec, 16x16xf32, valid=32x16>", "tile_buf valid_row (32) exceeds row (16)"),
    ("!pto.tile_buf<vec, 16x16xf32, valid=16x17>", "tile_buf valid_col (17) exceeds col (16)"),
    ("!pto.tile_buf<vec, 16x16xf32, fractal=16>", "unsupported s_fractal_size: 16, must be one of {32, 512, 1024}"),
    ("!pto.tile_buf<loc=vec, dtype=f32, rows=?, cols=16, v_row=16, v_col=16, blayout=row_major, "
     "slayout=none_box, fractal=512, pad=0>", "expected integer value"),
    ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, blayout=row_major, v_row=16, v_col=16, "
     "slayout=none_box, fractal=512, pad=0>", "expected 'v_row'"),
    ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=-2, v_col=16, blayout=row_major, "
     "slayout=none_box, fractal=512, pad=0>", "v_row must be '?', -1, or a non-negative integer"),
])
def test_tile_buf_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_attr(text)
    assert info.value.msg == message


def test_pto_tile_spelling() -> None:
    vec = parse_attr("!pto.tile<16x16xf32, valid=16x2>")
    assert isinstance(vec, PtoTileType) and vec.location is TileType.Vec and vec.valid_shape == (16, 2)
    assert print_attr(vec) == "!pto.tile<16x16xf32, valid=16x2>"
    assert print_attr(parse_attr("!pto.tile<vec, 16x16xf32>")) == "!pto.tile<16x16xf32>"
    mat = parse_attr("!pto.tile<mat, 16x16xf16, blayout=col_major>")
    assert print_attr(mat) == "!pto.tile<mat, 16x16xf16, blayout=col_major>"
    assert mat.parameters[1:] == TileBufType.build("mat", mat.element_type, 16, 16,
                                                   blayout=BLayout.ColMajor).parameters[1:]


@pytest.mark.parametrize(("text", "space", "printed"), [
    ("!pto.ptr<f32>", "gm", "!pto.ptr<f32, gm>"),
    ("!pto.ptr<f32, vec>", "ub", "!pto.ptr<f32, ub>"),
    ("!pto.ptr<i16, l1>", "mat", "!pto.ptr<i16, mat>"),
])
def test_ptr(text: str, space: str, printed: str) -> None:
    ptr = parse_attr(text)
    assert isinstance(ptr, PtrType) and ptr.space.data == space
    assert print_attr(ptr) == printed


def test_views() -> None:
    view = parse_attr("!pto.tensor_view<?x16xf32>")
    assert view.dims == (-1, 16)
    assert print_attr(view) == "!pto.tensor_view<?x16xf32>"
    part = parse_attr("!pto.partition_tensor_view<1x1x1x16x16xf16>")
    assert part.dims == (1, 1, 1, 16, 16)
    assert print_attr(part) == "!pto.partition_tensor_view<1x1x1x16x16xf16>"
    assert parse_attr("!pto.tensor_view<2xf32>").dims == (2,)


def test_tile_spec_conversion_both_ways() -> None:
    t = parse_attr("!pto.tile_buf<vec, 16x32xui8, valid=?x2, pad=1, compact=1>")
    spec = tile_spec_of(t)
    assert spec == TileSpec(TileType.Vec, DType.U8, 16, 32, BLayout.RowMajor, -1, 2, SLayout.NoneBox, 512,
                            PadValue.Zero, CompactMode.Normal)
    assert tile_buf_type_of(spec) == t


def test_print_module_rejects_unknown_flavour() -> None:
    from ptoisa.ir import TextFormError, parse_module

    with pytest.raises(TextFormError, match="unknown print flavour 'may'"):
        print_module(parse_module("module {}"), "may")  # type: ignore[arg-type]
