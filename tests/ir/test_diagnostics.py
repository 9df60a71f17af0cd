"""One case per structural diagnostic: the exact message, as PTOAS words it (`'pto.op' op ...`)."""

from __future__ import annotations

import pytest
from pto_ir_helpers import wrap
from xdsl.utils.exceptions import ParseError, VerifyException

from ptoisa.ir import parse_module
from ptoisa.ir.messages import MESSAGES

V = "!pto.tile_buf<vec, 16x16xf32>"
TYPES = {
    "v": V, "m": "!pto.tile_buf<mat, 16x16xf32>", "acc": "!pto.tile_buf<acc, 16x16xf32>",
    "u8": "!pto.tile_buf<vec, 16x32xui8, valid=16x2>", "u8h": "!pto.tile_buf<vec, 16x32xui8, valid=8x2>",
    "vcm": "!pto.tile_buf<vec, 16x16xf32, blayout=col_major>", "v8": "!pto.tile_buf<vec, 16x16xf32, valid=8x16>",
    "v8c": "!pto.tile_buf<vec, 16x16xf32, valid=16x8>", "h": "!pto.tile_buf<vec, 16x16xf16>",
    "ri": "!pto.tile_buf<vec, 1x16xi32>", "rf": "!pto.tile_buf<vec, 1x16xf32>", "rh": "!pto.tile_buf<vec, 1x16xi16>",
    "c1": "!pto.tile_buf<vec, 8x1xi32, blayout=col_major>", "w": "!pto.tile_buf<vec, 1x512xf32>",
    "wm": "!pto.tile_buf<mat, 1x512xf32>", "wh": "!pto.tile_buf<vec, 1x512xf16>",
    "wc": "!pto.tile_buf<vec, 8x512xf32, blayout=col_major>", "ws": "!pto.tile_buf<vec, 16x512xf32, slayout=row_major>",
    "wf": "!pto.tile_buf<vec, 1x512xf32, fractal=1024>", "w256": "!pto.tile_buf<vec, 1x256xf32>",
    "x": "!pto.tile_buf<vec, 16x16xi32>", "xf": "!pto.tile_buf<vec, 16x16xf32>", "x8": "!pto.tile_buf<vec, 16x16xi32, valid=16x8>",
    "xu": "!pto.tile_buf<vec, 16x16xui32>", "xs": "!pto.tile_buf<vec, 8x16xi32>",
    "half": "!pto.tile_buf<vec, 16x8xf32>", "halfi": "!pto.tile_buf<vec, 16x8xi16>", "half8": "!pto.tile_buf<vec, 8x16xf32>",
    "dv": "!pto.tile_buf<vec, 16x16xf32, valid=16x8>", "cnt": "!pto.tile_buf<vec, 16x8xi32>",
    "cntf": "!pto.tile_buf<vec, 16x8xf32>", "cnti16": "!pto.tile_buf<vec, 16x8xi16>", "sc": "!pto.tile_buf<vec, 16x32xui8>",
    "sccm": "!pto.tile_buf<vec, 32x32xui8, blayout=col_major>", "tile": "!pto.tile<16x16xf32>",
    "dyn": "!pto.tile_buf<vec, 16x16xf32, valid=?x?>", "i8t": "!pto.tile_buf<vec, 16x32xi8>", "u8w": "!pto.tile_buf<vec, 16x32xui8, valid=16x4>",
}
ARGS = ", ".join(f"%{k}: {t}" for k, t in TYPES.items()) + (
    ", %s: f32, %f16: f16, %i: i32, %i16: i16, %u: ui32, %i8: i8, %n: index, %a: i64, %p: !pto.ptr<f32>, %q: !pto.ptr<i32>")


def t(name: str) -> str:
    return TYPES[name]


def gather(ins: str, types: str, outs: str, otypes: str, tail: str = "") -> str:
    return f"pto.tgather ins({ins} : {types}) outs({outs} : {otypes}){tail}"


def segs(*sizes: int) -> str:
    return f"operandSegmentSizes = array<i32: {', '.join(map(str, sizes))}>"


VERIFY_CASES = [
    # shared helpers and tcmps
    ("a3", f"pto.tcmps ins(%tile, %s : {t('tile')}, f32) outs(%u8 : {t('u8')})", "'pto.tcmps' op expects src to be a !pto.tile_buf"),
    ("a3", f"pto.tcmps ins(%m, %s : {t('m')}, f32) outs(%u8 : {t('u8')})", "'pto.tcmps' op expects src to be in the vec address space"),
    ("a3", f"pto.tcmps ins(%v, %u : {V}, ui32) outs(%u8 : {t('u8')})", "'pto.tcmps' op operand #1 must be numeric (integer/float), but got 'ui32'"),
    ("a3", f"pto.tcmps ins(%v, %n : {V}, index) outs(%u8 : {t('u8')})", "'pto.tcmps' op operand #1 must be numeric (integer/float), but got 'index'"),
    ("a3", f"pto.tcmps ins(%v, %s : {V}, f32) outs(%u8h : {t('u8h')})", "'pto.tcmps' op expects src and dst to have the same valid_shape[0]"),
    # tci
    ("a3", f"pto.tci ins(%i : i32) outs(%rf : {t('rf')})", "'pto.tci' op expects dst element type to be integer"),
    ("a3", f'"pto.tci"(%s, %ri) : (f32, {t("ri")}) -> ()', "'pto.tci' op expects S to be integer"),
    ("a3", f"pto.tci ins(%i16 : i16) outs(%ri : {t('ri')})", "'pto.tci' op expects S and dst element type to be exactly the same type"),
    ("a3", f"pto.tci ins(%i : i32) outs(%c1 : {t('c1')})", "'pto.tci' op expects dst cols to be different from 1"),
    ("a3", f"pto.tci ins(%i, %tile : i32, {t('tile')}) outs(%ri : {t('ri')})", "'pto.tci' op expects tmp to be a !pto.tile_buf"),
    ("a3", f"pto.tci ins(%i, %wh : i32, {t('wh')}) outs(%ri : {t('ri')})", "TCI on a2a3: tmp dtype half is not supported (allowed: float, int32, uint32)"),
    ("a3", f"pto.tci ins(%i, %rf : i32, {t('rf')}) outs(%ri : {t('ri')})", "TCI on a2a3: tmp must hold at least 768 bytes for a 32-bit dst (got 64)"),
    ("a3", f"pto.tci ins(%i16, %w256 : i16, {t('w256')}) outs(%rh : {t('rh')})", "TCI on a2a3: tmp must hold at least 1792 bytes for a 16-bit dst (got 1024)"),
    # texpands
    ("a3", f"pto.texpands ins(%s : f32) outs(%acc : {t('acc')})", "TEXPANDS on a2a3: dst location Acc is not supported (allowed: Vec, Mat)"),
    ("a3", f"pto.texpands ins(%f16 : f16) outs(%v : {V})", "'pto.texpands' op expects scalar type == dst element type"),
    # tpartmul
    ("a3", f"pto.tpartmul ins(%tile, %v : {t('tile')}, {V}) outs(%v : {V})", "'pto.tpartmul' op expects PTO shaped-like src0/src1/dst"),
    ("a3", f"pto.tpartmul ins(%h, %v : {t('h')}, {V}) outs(%v : {V})", "'pto.tpartmul' op expects src0/src1/dst to have the same element type"),
    ("a5", f"pto.tpartmul ins(%v, %v : {V}, {V}) outs(%v8 : {t('v8')})", "'pto.tpartmul' op expects src0/src1 valid_shape to be less than or equal to dst valid_shape"),
    ("a3", f"pto.tpartmul ins(%v8, %v8c : {t('v8')}, {t('v8c')}) outs(%v : {V})", "'pto.tpartmul' op expects at least one of src0/src1 valid_shape to match dst valid_shape"),
    ("a5", f"pto.tpartmul ins(%v8, %v8c : {t('v8')}, {t('v8c')}) outs(%v : {V})", "TPARTMUL on a5: valid shapes dst 16x16, src0 8x16, src1 16x8 are not a supported pattern (one source must equal dst, the other must not exceed it); the result is undefined on this target (use undefined='emulate' to reproduce the target)"),  # PTOAS-A5 accepts; the contract (D9) does not
    # tgather: form selection
    ("a3", f'"pto.tgather"(%v, %v, %x) <{{maskPattern = #pto.mask_pattern<P1111>, {segs(1, 1, 0, 1, 0, 0)}}}> : ({V}, {V}, {t("x")}) -> ()', "'pto.tgather' op mask-pattern tgather only allows src and dst operands"),
    ("a3", gather("%v, %s", f"{V}, f32", "%x, %cnt", f"{t('x')}, {t('cnt')}"), "'pto.tgather' op compare-form tgather expects dst, cdst, kValue, and tmp"),
    ("a3", f'"pto.tgather"(%v, %x, %cnt, %x, %sc, %s) <{{{segs(1, 1, 1, 1, 1, 1)}}}> : ({V}, {t("x")}, {t("cnt")}, {t("x")}, {t("sc")}, f32) -> ()', "'pto.tgather' op compare-form tgather does not take indices"),
    ("a3", gather("%v, %x", f"{V}, {t('x')}", "%v", V), "'pto.tgather' op index-form tgather expects both indices and tmp"),
    ("a5", f'"pto.tgather"(%v, %v) <{{{segs(1, 1, 0, 0, 0, 0)}}}> : ({V}, {V}) -> ()', "'pto.tgather' op index-form tgather expects indices"),
    ("a3", f'"pto.tgather"(%v, %v, %x, %x) <{{axis = "row", {segs(1, 1, 0, 1, 1, 0)}}}> : ({V}, {V}, {t("x")}, {t("x")}) -> ()', "'pto.tgather' op axis attribute must not be provided without maskPattern"),
    # tgather: mask form
    ("a3", gather("%vcm, {maskPattern = #pto.mask_pattern<P1111>}", t("vcm"), "%v", V), "'pto.tgather' op expects src and dst to use row-major layout"),
    ("a3", gather("%m, {maskPattern = #pto.mask_pattern<P1111>}", t("m"), "%v", V), "'pto.tgather' op expects src and dst to be in the vec address space"),
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", V, "%halfi", t("halfi")), "'pto.tgather' op expects src and dst element sizes to match"),
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", V, "%dv", t("dv")), "TGATHER on a2a3: dst valid cols (8) must equal its static Cols (16) for GATHER_ROW: the gathered stream is written contiguously"),
    ("a3", f'"pto.tgather"(%v, %v) <{{maskPattern = #pto.mask_pattern<P1111>, axis = "diag", {segs(1, 1, 0, 0, 0, 0)}}}> : ({V}, {V}) -> ()', "'pto.tgather' op Invalid axis value, expected \"row\" or \"col\""),
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", f'{V}, "col"', "%half", t("half")), "TGATHER on a2a3: dst valid rows (16) must equal the number of selected src rows (8) for GATHER_COL"),
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", f'{V}, "col"', "%v", V), "TGATHER on a2a3: dst valid rows (16) must equal the number of selected src rows (8) for GATHER_COL"),
    # tgather: index form
    ("a5", gather("%v, %x", f"{V}, {t('x')}", "%h", t("h")), "'pto.tgather' op expects src and dst to have the same element type"),
    ("a5", gather("%v, %xf", f"{V}, {t('xf')}", "%v", V), "'pto.tgather' op indices element type must be integer"),
    ("a5", gather("%v, %x", f"{V}, {t('x')}", "%dv", t("dv")), "TGATHER on a5: dst valid cols (8) must equal its static Cols (16): dst storage must be continuous"),
    ("a5", gather("%v, %x8", f"{V}, {t('x8')}", "%v", V), "TGATHER on a5: indices valid cols (8) must equal its static Cols (16)"),
    ("a3", gather("%v, %x, %xu", f"{V}, {t('x')}, {t('xu')}", "%v", V), "'pto.tgather' op expects tmp and indices to have the same element type"),
    ("a3", gather("%v, %x, %xs", f"{V}, {t('x')}, {t('xs')}", "%v", V), "TGATHER on a2a3: tmp static shape 8x16 must equal the indices' valid shape 16x16"),
    # tgather: compare form
    ("a3", gather("%v, %s, %sc", f"{V}, f32, {t('sc')}", "%cntf, %cntf", f"{t('cntf')}, {t('cntf')}"), "'pto.tgather' op expects dst element type to be i32"),
    ("a3", gather("%v, %s, %sc", f"{V}, f32, {t('sc')}", "%cnt, %cnti16", f"{t('cnt')}, {t('cnti16')}"), "'pto.tgather' op expects cdst to have the same element type as dst"),
    ("a3", gather("%v, %f16, %sc", f"{V}, f16, {t('sc')}", "%cnt, %cnt", f"{t('cnt')}, {t('cnt')}"), "'pto.tgather' op expects kValue to have the same type as src element type"),
    ("a3", gather("%v, %s, %sc", f"{V}, f32, {t('sc')}", "%cnt, %cnt", f"{t('cnt')}, {t('cnt')}", " {cmpMode = #pto<cmp lt>}"), "'pto.tgather' op expects compare-form tgather cmpMode to be eq or gt"),
    ("a3", gather("%v, %s, %sccm", f"{V}, f32, {t('sccm')}", "%cnt, %cnt", f"{t('cnt')}, {t('cnt')}"), "'pto.tgather' op expects tmp to use the row_major blayout"),
    ("a3", gather("%v, %s, %sc", f"{V}, f32, {t('sc')}", "%cnt, %cnt", f"{t('cnt')}, {t('cnt')}", " {offset = 7}"), "'pto.tgather' op attribute 'offset' failed to satisfy constraint: 32-bit signless integer attribute"),
    # supporting ops
    ("a3", "%t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, valid=?x16>", "'pto.alloc_tile' op valid_row operand is required because result type v_row is ?"),
    ("a3", "%t = pto.alloc_tile valid_col = %n : !pto.tile_buf<vec, 16x16xf32, valid=?x8>", "'pto.alloc_tile' op valid_row operand is required because result type v_row is ?"),
    ("a3", "%t = pto.alloc_tile valid_row = %n : !pto.tile_buf<vec, 16x16xf32, valid=8x16>", "'pto.alloc_tile' op valid_row operand must be absent because result type v_row is 8"),
    ("a3", "%t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xi8>", "'pto.alloc_tile' op expects result row-major none_box tile row byte size (cols * sizeof(dtype)) to be 32-byte aligned, but got 16 bytes"),
    ("a3", "%tv = pto.make_tensor_view %p, shape = [%n], strides = [%n] : !pto.tensor_view<?x?xf32>", "'pto.make_tensor_view' op shape/strides operand counts must match tensor_view rank=2"),
    ("a3", f'%tv = "pto.make_tensor_view"(%q, %n, %n) <{{{segs(1, 1, 1)}}}> : (!pto.ptr<i32>, index, index) -> !pto.tensor_view<?xf32>', "'pto.make_tensor_view' op expects ptr element type to match tensor_view element type"),
    ("a3", "%tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<16x16xf32>\n"
           "    %pv = pto.partition_view %tv, offsets = [%n], sizes = [%n] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>",
     "'pto.partition_view' op offsets/sizes operand counts must match source rank=2"),
    ("a3", "%c8 = arith.constant 8 : index\n    %c16 = arith.constant 16 : index\n"
           "    %tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<16x16xf32>\n"
           "    %pv = pto.partition_view %tv, offsets = [%c8, %c8], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<8x8xf32>",
     "'pto.partition_view' op constant size at dim 1 (16) must equal result dim (8)"),
    ("a3", "%c8 = arith.constant 8 : index\n    %c16 = arith.constant 16 : index\n"
           "    %tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<16x16xf32>\n"
           "    %pv = pto.partition_view %tv, offsets = [%c8, %c8], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32>",
     "'pto.partition_view' op offset+size at dim 1 (24) exceeds static source dim (16)"),
    ("a3", f"pto.set_validshape %v, %n, %n : {V}", "'pto.set_validshape' op expects tile with dynamic valid shape (valid=?x?)"),
    ("a3", f"%t2 = pto.tassign %v, %a : {V} -> {t('dyn')}", "'pto.tassign' op expects result type to equal the tile type"),
    ("a3", "%tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<16x16xf32>\n"
           f"    pto.tload ins(%tv : !pto.tensor_view<16x16xf32>) outs(%v : {V})", "'pto.tload' op expects src to be a !pto.partition_tensor_view"),
    ("a3", f"pto.tstore ins(%v : {V}) outs(%p : !pto.ptr<f32>)", "'pto.tstore' op expects dst to be a !pto.partition_tensor_view"),
    ("a3", "%c16 = arith.constant 16 : index\n"
           "    %tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<?x?xf32>\n"
           "    %pv = pto.partition_view %tv, offsets = [%n, %n], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32>\n"
           f"    pto.tstore ins(%v8 : {t('v8')}) outs(%pv : !pto.partition_tensor_view<16x16xf32>)",
     "'pto.tstore' op expects dst static element count (256) to match src valid_shape static element count (128)"),
    ("a3", "%x1 = pto.load_scalar %q[%n] : !pto.ptr<i32> -> f32", "'pto.load_scalar' op expects ptr element type to equal the value type"),
]


@pytest.mark.parametrize(("arch", "line", "message"), VERIFY_CASES, ids=[c[2][:70] for c in VERIFY_CASES])
def test_verify_message(arch: str, line: str, message: str) -> None:
    with pytest.raises(VerifyException) as info:
        parse_module(wrap("    " + line, args=ARGS, arch=arch))
    assert info.value.args[0] == message


ACCEPTED = [
    ("a5", f"pto.tci ins(%i, %rf : i32, {t('rf')}) outs(%ri : {t('ri')})"),  # A5 does not check tmp
    ("a5", f"pto.texpands ins(%s : f32) outs(%vcm : {t('vcm')})"),
    ("a5", gather("%v, %x", f"{V}, {t('x')}", "%v", V)),
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", V, "%v", V)),  # April rules: no axis
    ("a3", f"pto.tcmps ins(%v, %i : {V}, i32) outs(%u8 : {t('u8')})"),  # scalar type may differ from src
    ("a3", f"pto.tcmps ins(%dyn, %s : {t('dyn')}, f32) outs(%u8h : {t('u8h')})"),  # dynamic rows are exempt
    # The contract accepts these; PTOAS refuses them (docs/text-forms.md, "PTOAS and the contract")
    ("a3", f"pto.texpands ins(%s : f32) outs(%vcm : {t('vcm')})"),  # PTOAS: row-major vec dst on A2/A3
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", f'{V}, "row"', "%half8", t("half8"))),  # PTOAS: compacted dst
    ("a3", gather("%v, {maskPattern = #pto.mask_pattern<P0101>}", f'{V}, "row"', "%v", V)),  # PTOAS: compacted dst
]


# The a2a3 TCI tmp is a plain float buffer in UB: PTOAS's Vec / row-major / none_box / fractal-512 rule holds.
TCI_TMP_REFUSED = [
    (f"pto.tci ins(%i, %wm : i32, {t('wm')}) outs(%ri : {t('ri')})", "tmp location Mat is not supported"),
    (f"pto.tci ins(%i, %wc : i32, {t('wc')}) outs(%ri : {t('ri')})", "tmp must be a row-major, unboxed tile"),
    (f"pto.tci ins(%i, %ws : i32, {t('ws')}) outs(%ri : {t('ri')})", "tmp must be a row-major, unboxed tile"),
    (f"pto.tci ins(%i, %wf : i32, {t('wf')}) outs(%ri : {t('ri')})", "with fractal 512"),
]


@pytest.mark.parametrize(("line", "message"), TCI_TMP_REFUSED)
def test_a2a3_tci_tmp_must_be_a_plain_vec_buffer(line: str, message: str) -> None:
    from ptoisa.ir.diagnostics import check_text

    result = check_text(wrap("    " + line, args=ARGS, arch="a3"), "t.pto")
    assert not result.ok and any(message in d.message for d in result.diagnostics), result.diagnostics


@pytest.mark.parametrize(("arch", "line"), ACCEPTED)
def test_structurally_legal(arch: str, line: str) -> None:
    module = parse_module(wrap("    " + line, args=ARGS, arch=arch))
    assert line.split()[0].strip('"') in str(module) or "pto." in str(module)


def test_module_attribute_selects_arch() -> None:
    line = f"pto.tcmps ins(%i8t, %i8 : {t('i8t')}, i8) outs(%u8w : {t('u8w')})"
    device_a5 = wrap("    " + line, args=ARGS).replace('pto.target_arch = "a3"', '"pto.device-spec" = "Ascend950PR"')
    assert parse_module(device_a5) is not None
    with pytest.raises(VerifyException):
        parse_module(wrap("    " + line, args=ARGS, arch="A2A3"))


M = "{maskPattern = #pto.mask_pattern<P0101>}"
PARSE_CASES = [
    (f"pto.tgather ins(%v : {V}) outs(%v : {V})", "tg.comma"),
    (f"pto.tgather ins(%v, {{maskPattern = 1 : i32}} : {V}) outs(%v : {V})", "tg.mask_attr"),
    (f"pto.tgather ins(%v, %x, %x, %x, %x : {V}, {t('x')}, {t('x')}, {t('x')}, {t('x')}) outs(%v : {V})", "tg.extra3"),
    (f"pto.tgather ins(%v, {M} : {V}) outs(%v : {V}) {M}", "tg.mask_once"),
    (f"pto.tgather ins(%v, {M}, %x : {V}) outs(%v : {V})", "tg.mask_extra"),
    (f"pto.tgather ins(%v, {M} : {V}) outs(%v, %v : {V}, {V})", "tg.mask_outs"),
    (f"pto.tgather ins(%v, %x, %sc : {V}, {t('x')}, {t('sc')}) outs(%x, %cnt : {t('x')}, {t('cnt')})", "tg.cmp_scalar"),
    (f"pto.tgather ins(%v, %s, %s : {V}, f32, f32) outs(%x, %cnt : {t('x')}, {t('cnt')})", "tg.cmp_tmp"),
    (f"pto.tgather ins(%v, %s, %sc, %sc : {V}, f32, {t('sc')}, {t('sc')}) outs(%x, %cnt : {t('x')}, {t('cnt')})", "tg.cmp_max"),
    (f"pto.tgather ins(%v, %s : {V}, f32) outs(%v : {V})", "tg.idx_tile"),
    (f"pto.tgather ins(%v, %x, %s : {V}, {t('x')}, f32) outs(%v : {V})", "tg.idx_tmp"),
    (f"pto.tgather ins(%v, %x, %x, %x : {V}, {t('x')}, {t('x')}, {t('x')}) outs(%v : {V})", "tg.idx_max"),
    (f'pto.tgather ins(%v, {M} : {V}, "diag") outs(%v : {V})', "tg.axis"),
    (f"pto.tcmps ins(%v : {V}) outs(%u8 : {t('u8')})", "dps.count"),
    (f"pto.texpands ins(%s : f32, f32) outs(%v : {V})", "dps.type_count"),
    (f"pto.tci ins(%i {{descending = true}} : i32) outs(%ri : {t('ri')}) {{descending = true}}", "dps.attr_twice"),
    ("%c = arith.constant 1 : index\n    %tv = pto.make_tensor_view %p, shape = [%n], strides = [%c] : !pto.tensor_view<?xf32>\n"
     "    %pv = pto.partition_view %tv, offsets = [%c], sizes = [%n] : !pto.tensor_view<?xf32>", "part.infer"),
]


@pytest.mark.parametrize(("line", "key"), PARSE_CASES, ids=[c[1] for c in PARSE_CASES])
def test_parse_message(line: str, key: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_module(wrap("    " + line, args=ARGS))
    expected = MESSAGES[key].format(group="ins", count=2, got=1, operands=1, types=2, name="descending")
    assert info.value.msg == expected
