"""Every op form: exact canonical print (August and April), fixed point, generic form, seed spellings."""

from __future__ import annotations

import pytest
from pto_ir_helpers import T16, parse_attr, pto_lines, roundtrip, wrap
from xdsl.dialects.builtin import BoolAttr

from ptoisa.ir import TCIOp, TextFormError, TGatherOp, parse_module, print_module
from ptoisa.isa.enums import CmpMode

U8 = "!pto.tile_buf<vec, 16x32xui8, valid=16x2>"
I32ROW = "!pto.tile_buf<vec, 1x16xi32>"
TMP = "!pto.tile_buf<vec, 1x512xf32>"
TILES = (f"    %t = pto.alloc_tile : {T16}\n    %p = pto.alloc_tile : {U8}\n    %r = pto.alloc_tile : {I32ROW}\n"
         f"    %w = pto.alloc_tile : {TMP}\n")


def ops_of(text: str, cls):
    return [op for op in parse_module(text).walk() if isinstance(op, cls)]


# --- tcmps -----------------------------------------------------------------------------------------------------
def test_tcmps_round_trip() -> None:
    body = TILES + f"    pto.tcmps ins(%t, %s {{cmpMode = #pto<cmp lt>}} : {T16}, f32) outs(%p : {U8})"
    assert roundtrip(body, "pto.tcmps") == [
        f"pto.tcmps ins(%t, %s {{cmpMode = #pto<cmp lt>}} : {T16}, f32) outs(%p : {U8})"]


def test_tcmps_explicit_eq_is_elided_and_seed_spelling_parses() -> None:
    body = TILES + f"    pto.tcmps ins(%t, %s{{cmpMode = #pto.cmp<EQ>}}: {T16}, f32) outs(%p : {U8})"
    assert roundtrip(body, "pto.tcmps") == [f"pto.tcmps ins(%t, %s : {T16}, f32) outs(%p : {U8})"]


def test_tcmps_generic_form_materialises_eq() -> None:
    text = print_module(parse_module(wrap(TILES + f"    pto.tcmps ins(%t, %s : {T16}, f32) outs(%p : {U8})")),
                        generic=True)
    assert f'"pto.tcmps"(%t, %s, %p) <{{cmpMode = #pto<cmp eq>}}> : ({T16}, f32, {U8}) -> ()' in text


def test_generic_form_parses_with_properties() -> None:
    body = TILES + f'    "pto.tcmps"(%t, %s, %p) <{{cmpMode = #pto<cmp ge>}}> : ({T16}, f32, {U8}) -> ()'
    printed = pto_lines(print_module(parse_module(wrap(body))), "pto.tcmps")
    assert printed == [f"pto.tcmps ins(%t, %s {{cmpMode = #pto<cmp ge>}} : {T16}, f32) outs(%p : {U8})"]


# --- tci ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("written", [
    f"pto.tci ins(%i {{descending = true}} : i32) outs(%r : {I32ROW})",  # April
    f"pto.tci ins(%i : i32) outs(%r : {I32ROW}) {{descending = true}}",  # August
])
def test_tci_both_versions(written: str) -> None:
    body = TILES + "    " + written
    assert roundtrip(body, "pto.tci") == [f"pto.tci ins(%i : i32) outs(%r : {I32ROW}) {{descending = true}}"]
    assert roundtrip(body, "pto.tci", flavour="apr") == [
        f"pto.tci ins(%i {{descending = true}} : i32) outs(%r : {I32ROW})"]


def test_tci_default_descending_printing() -> None:
    body = TILES + f"    pto.tci ins(%i : i32) outs(%r : {I32ROW})"
    assert roundtrip(body, "pto.tci") == [f"pto.tci ins(%i : i32) outs(%r : {I32ROW}) {{descending = false}}"]
    assert roundtrip(body, "pto.tci", flavour="apr") == [f"pto.tci ins(%i : i32) outs(%r : {I32ROW})"]


def test_tci_with_tmp_and_its_april_refusal() -> None:
    body = TILES + f"    pto.tci ins(%i, %w : i32, {TMP}) outs(%r : {I32ROW}) {{descending = false}}"
    assert roundtrip(body, "pto.tci") == [
        f"pto.tci ins(%i, %w : i32, {TMP}) outs(%r : {I32ROW}) {{descending = false}}"]
    (op,) = ops_of(wrap(body), TCIOp)
    assert op.tmp is not None and op.descending == BoolAttr.from_bool(False)
    with pytest.raises(TextFormError, match="pto.tci with a tmp operand has no April spelling"):
        print_module(parse_module(wrap(body)), "apr")


def test_tci_generic_forms() -> None:
    april = TILES + f'    "pto.tci"(%i, %r) <{{descending = true}}> : (i32, {I32ROW}) -> ()'
    august = TILES + (f'    "pto.tci"(%i, %w, %r) {{operandSegmentSizes = array<i32: 1, 1, 1>}} '
                      f': (i32, {TMP}, {I32ROW}) -> ()')
    (apr_op,) = ops_of(wrap(april), TCIOp)
    (aug_op,) = ops_of(wrap(august), TCIOp)
    assert apr_op.tmp is None and apr_op.descending == BoolAttr.from_bool(True)
    assert aug_op.tmp is not None and aug_op.tmp.type == parse_attr(TMP)
    assert aug_op.descending == BoolAttr.from_bool(False)


def test_tci_rejects_float_start() -> None:
    from xdsl.utils.exceptions import ParseError

    with pytest.raises(ParseError) as info:
        parse_module(wrap(TILES + f"    pto.tci ins(%s : f32) outs(%r : {I32ROW})"))
    assert info.value.msg == "custom op 'pto.tci' invalid kind of type specified"


# --- texpands / tpartmul -------------------------------------------------------------------------------------------
def test_texpands_round_trip() -> None:
    body = TILES + f"    pto.texpands ins(%s : f32) outs(%t : {T16}) {{note = 1 : i32}}"
    assert roundtrip(body, "pto.texpands") == [f"pto.texpands ins(%s : f32) outs(%t : {T16}) {{note = 1 : i32}}"]


def test_tpartmul_two_types_and_seed_single_type() -> None:
    half = "!pto.tile_buf<vec, 16x16xf32, valid=8x16>"
    body = TILES + f"    %h = pto.alloc_tile : {half}\n    pto.tpartmul ins(%t, %h : {T16}, {half}) outs(%t : {T16})"
    assert roundtrip(body, "pto.tpartmul") == [f"pto.tpartmul ins(%t, %h : {T16}, {half}) outs(%t : {T16})"]
    seed = TILES + f"    pto.tpartmul ins(%t, %t : {T16}) outs(%t : {T16})"
    assert roundtrip(seed, "pto.tpartmul") == [f"pto.tpartmul ins(%t, %t : {T16}, {T16}) outs(%t : {T16})"]


# --- tgather ----------------------------------------------------------------------------------------------------
IDX = "!pto.tile_buf<vec, 16x16xi32>"
HALF = "!pto.tile_buf<vec, 16x8xf32>"
CNT = "!pto.tile_buf<vec, 16x8xi32>"
SCR = "!pto.tile_buf<vec, 16x32xi32>"
GATHER_TILES = (TILES + f"    %x = pto.alloc_tile : {IDX}\n    %hf = pto.alloc_tile : {HALF}\n"
                f"    %c = pto.alloc_tile : {CNT}\n    %sc = pto.alloc_tile : {SCR}\n")


def test_tgather_index_form_with_tmp() -> None:
    body = GATHER_TILES + f"    pto.tgather ins(%t, %x, %x : {T16}, {IDX}, {IDX}) outs(%t : {T16})"
    assert roundtrip(body, "pto.tgather") == [f"pto.tgather ins(%t, %x, %x : {T16}, {IDX}, {IDX}) outs(%t : {T16})"]
    (op,) = ops_of(wrap(body), TGatherOp)
    assert op.indices is not None and op.tmp is not None and op.cdst is None and op.k_value is None


def test_tgather_index_form_without_tmp_on_a5() -> None:
    body = GATHER_TILES + f"    pto.tgather ins(%t, %x : {T16}, {IDX}) outs(%t : {T16})"
    assert roundtrip(body, "pto.tgather", arch="a5") == [f"pto.tgather ins(%t, %x : {T16}, {IDX}) outs(%t : {T16})"]


@pytest.mark.parametrize("axis_text", [', "row"', ""])
def test_tgather_mask_form(axis_text: str) -> None:
    mask = "{maskPattern = #pto.mask_pattern<P0101>}"
    body = GATHER_TILES + f"    pto.tgather ins(%t, {mask} : {T16}{axis_text}) outs(%hf : {HALF})"
    assert roundtrip(body, "pto.tgather") == [f'pto.tgather ins(%t, {mask} : {T16}, "row") outs(%hf : {HALF})']
    assert roundtrip(body, "pto.tgather", flavour="apr") == [f"pto.tgather ins(%t, {mask} : {T16}) outs(%hf : {HALF})"]


def test_tgather_mask_col_axis_has_no_april_spelling() -> None:
    mask = "{maskPattern = #pto.mask_pattern<P1111>}"
    body = GATHER_TILES + f'    pto.tgather ins(%t, {mask} : {T16}, "col") outs(%t : {T16})'
    assert roundtrip(body, "pto.tgather") == [f'pto.tgather ins(%t, {mask} : {T16}, "col") outs(%t : {T16})']
    with pytest.raises(TextFormError):
        print_module(parse_module(wrap(body)), "apr")


def test_tgather_compare_form() -> None:
    written = (f"pto.tgather ins(%t, %k, %sc : {T16}, f32, {SCR}) outs(%x, %c : {IDX}, {CNT}) "
               "{cmpMode = #pto<cmp eq>, offset = 0 : i32}")
    assert roundtrip(GATHER_TILES + "    " + written, "pto.tgather") == [written]
    (op,) = ops_of(wrap(GATHER_TILES + "    " + written), TGatherOp)
    assert op.cmp_mode.data is CmpMode.EQ and op.offset.value.data == 0 and op.indices is None


def test_tgather_generic_operand_order() -> None:
    written = (f"pto.tgather ins(%t, %k, %sc : {T16}, f32, {SCR}) outs(%x, %c : {IDX}, {CNT}) "
               "{cmpMode = #pto<cmp gt>, offset = 7 : i32}")
    generic = print_module(parse_module(wrap(GATHER_TILES + "    " + written)), generic=True)
    line = next(line.strip() for line in generic.splitlines() if '"pto.tgather"' in line)
    assert line.startswith('"pto.tgather"(%t, %x, %c, %sc, %k) <{cmpMode = #pto<cmp gt>, offset = 7 : i32, '
                           "operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>}>")
    assert pto_lines(print_module(parse_module(generic)), "pto.tgather") == [written]


# --- supporting ops ---------------------------------------------------------------------------------------------
def test_views_and_transfers_round_trip() -> None:
    body = ("    %c0 = arith.constant 0 : index\n    %c16 = arith.constant 16 : index\n"
            "    %tv = pto.make_tensor_view %p, shape = [%n, %c16], strides = [%c16, %c16] : !pto.tensor_view<?x16xf32>\n"
            "    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x16xf32>"
            " -> !pto.partition_tensor_view<16x16xf32>\n"
            f"    %t = pto.alloc_tile : {T16}\n"
            f"    pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : {T16})\n"
            f"    pto.tstore ins(%t : {T16}) outs(%pv : !pto.partition_tensor_view<16x16xf32>)")
    args = "%p: !pto.ptr<f32>, %n: index"
    aug = parse_module(wrap(body, args=args))
    assert pto_lines(print_module(aug), "pto.partition_view") == [
        "%pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x16xf32>"]
    assert pto_lines(print_module(aug, "apr"), "pto.partition_view") == [
        "%pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x16xf32>"
        " -> !pto.partition_tensor_view<16x16xf32>"]
    assert "func.func @k(%p: !pto.ptr<f32, gm>, %n: index)" in print_module(aug)
    assert "func.func @k(%p: !pto.ptr<f32>, %n: index)" in print_module(aug, "apr")
    assert roundtrip(body, "pto.tload", args=args) == [
        f"pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : {T16})"]


@pytest.mark.parametrize("line", [
    "%a = pto.alloc_tile addr = %addr valid_row = %n valid_col = %n : !pto.tile_buf<vec, 16x16xf32, valid=?x?>",
    "pto.set_validshape %a, %n, %n : !pto.tile_buf<vec, 16x16xf32, valid=?x?>",
    "%b = pto.tassign %a, %addr : !pto.tile_buf<vec, 16x16xf32, valid=?x?> -> !pto.tile_buf<vec, 16x16xf32, valid=?x?>",
    "%d = pto.get_tensor_view_dim %tv, %n : !pto.tensor_view<?x16xf32> -> index",
    "%v = pto.load_scalar %q[%n] : !pto.ptr<i32, gm> -> i32",
    "pto.store_scalar %v, %q[%n] : !pto.ptr<i32, gm>, i32",
    "pto.tsetval ins(%n, %v : index, i32) outs(%r : !pto.tile_buf<vec, 1x16xi32>)",
    "%g = pto.tgetval ins(%r, %n : !pto.tile_buf<vec, 1x16xi32>, index) outs : i32",
    "%bi = pto.get_block_idx",
    "%bn = pto.get_subblock_num",
    "pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]",
    "pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID3>]",
    "pto.record_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]",
    "pto.wait_event[#pto.sync_op_type<TLOAD>, #pto.sync_op_type<TVEC>, <EVENT_ID1>]",
    "pto.barrier <PIPE_ALL>",
    "pto.get_buf[#pto.pipe_event_type<TLOAD>, 0]",
    "pto.rls_buf[#pto.pipe_event_type<TVEC>, 1]",
    "pto.sync.set <PIPE_FIX>, 0",
    "pto.sync.wait <PIPE_V>, 3",
])
def test_supporting_op_prints_itself(line: str) -> None:
    setup = ("    %a = pto.alloc_tile addr = %addr valid_row = %n valid_col = %n : "
             "!pto.tile_buf<vec, 16x16xf32, valid=?x?>\n"
             "    %tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<?x16xf32>\n"
             "    %r = pto.alloc_tile : !pto.tile_buf<vec, 1x16xi32>\n    %v = pto.load_scalar %q[%n] : !pto.ptr<i32> -> i32\n")
    body = setup + ("" if line.startswith(("%a =", "%v =")) else f"    {line}\n")
    args = "%p: !pto.ptr<f32>, %q: !pto.ptr<i32>, %n: index, %addr: i64"
    printed = print_module(parse_module(wrap(body, args=args)))
    assert line in [x.strip() for x in printed.splitlines()]
    assert print_module(parse_module(printed)) == printed


@pytest.mark.parametrize(("written", "printed"), [
    ("pto.set_flag[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, #pto.event<EVENT_ID0>]",
     "pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]"),
    ('pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]', "pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]"),
    ("pto.record_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID0>]",
     "pto.record_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]"),
])
def test_sync_alternative_spellings(written: str, printed: str) -> None:
    assert pto_lines(print_module(parse_module(wrap("    " + written))), written.split("[")[0].strip()) == [printed]
