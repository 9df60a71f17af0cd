"""Each supporting op the interpreter executes: func, scf, arith, tiles, views, data movement, scalar access,
runtime queries and sync ops. Expected values are computed here, not by ptoisa."""

from __future__ import annotations

import math

import numpy as np
import pytest
from interp_helpers import kernel

from ptoisa.errors import OutOfBoundsError

T16 = "!pto.tile_buf<vec, 16x16xf32>"


def scalar_op(op: str, ty: str, a, b=None):
    args = f"%a: {ty}" + (f", %b: {ty}" if b is not None else "")
    operands = "%a, %b" if b is not None else "%a"
    program = kernel(f"    %r = arith.{op} {operands} : {ty}\n    return %r : {ty}", args, ty)
    return program.run(a, *([] if b is None else [b])).returns[0]


@pytest.mark.parametrize(("op", "a", "b", "want"), [
    ("addi", 2147483647, 1, -2147483648), ("subi", -2147483648, 1, 2147483647), ("muli", 65536, 65536, 0),
    ("divsi", -7, 2, -3), ("remsi", -7, 2, -1), ("divui", -1, 2, 2147483647), ("remui", -1, 10, 5),
    ("floordivsi", -7, 2, -4), ("ceildivsi", 7, 2, 4), ("ceildivsi", -7, 2, -3), ("minsi", -3, 2, -3),
    ("maxsi", -3, 2, 2), ("minui", -3, 2, 2), ("maxui", -3, 2, -3), ("andi", 12, 10, 8), ("ori", 12, 10, 14),
    ("xori", 12, 10, 6), ("shli", 1, 31, -2147483648), ("shrsi", -8, 1, -4), ("shrui", -8, 28, 15),
])
def test_integer_ops(op: str, a: int, b: int, want: int) -> None:
    assert scalar_op(op, "i32", a, b) == want


def test_index_and_i8_wrap() -> None:
    assert scalar_op("addi", "i8", 127, 1) == -128
    assert scalar_op("muli", "index", 1 << 40, 1 << 23) == -(1 << 63)


@pytest.mark.parametrize(("op", "a", "b", "want"), [
    ("addf", 0.1, 0.2, float(np.float32(np.float32(0.1) + np.float32(0.2)))),
    ("mulf", 3.0, 1e30, float(np.float32(3) * np.float32(1e30))), ("mulf", 3e38, 10.0, math.inf), ("subf", 1.0, 0.25, 0.75),
    ("divf", 1.0, 3.0, float(np.float32(1) / np.float32(3))), ("divf", -1.0, 0.0, -math.inf),
    ("maximumf", -0.0, 0.0, 0.0), ("minnumf", math.nan, 2.0, 2.0),
])
def test_float_ops(op: str, a: float, b: float, want: float) -> None:
    assert scalar_op(op, "f32", a, b) == want


def test_f16_rounding_and_negf() -> None:
    assert scalar_op("addf", "f16", 2048.0, 1.0) == 2048.0  # 2049 is not a half; ties to even
    assert scalar_op("negf", "f32", 2.5) == -2.5


def test_divsi_by_zero_is_an_execution_error() -> None:
    from ptoisa.interp import ExecutionError

    with pytest.raises(ExecutionError, match=r"(?s)division by zero.*in arith.divsi at <string>:3:5"):
        scalar_op("divsi", "i32", 1, 0)


@pytest.mark.parametrize("op", ["divsi", "floordivsi", "ceildivsi"])
def test_signed_division_overflow_is_an_execution_error_for_every_signed_quotient(op: str) -> None:
    """MLIR's arith leaves the minimum divided by -1 undefined for divsi, floordivsi and ceildivsi alike (the
    quotient 2^31 does not fit); floordivsi and ceildivsi gave the wrapped -2^31 while divsi refused. remsi's
    remainder (0) is defined and stays."""
    from ptoisa.interp import ExecutionError

    with pytest.raises(ExecutionError, match=rf"(?s)signed division overflow \(-2147483648 / -1 in i32\).*arith.{op}"):
        scalar_op(op, "i32", -2147483648, -1)
    assert scalar_op(op, "i32", -2147483647, -1) == 2147483647
    assert scalar_op("remsi", "i32", -2147483648, -1) == 0


@pytest.mark.parametrize(("pred", "a", "b", "want"), [
    ("slt", -1, 0, 1), ("ult", -1, 0, 0), ("eq", 3, 3, 1), ("ne", 3, 3, 0), ("sge", 3, 3, 1), ("ugt", -1, 0, 1),
])
def test_cmpi(pred: str, a: int, b: int, want: int) -> None:
    p = kernel(f"    %r = arith.cmpi {pred}, %a, %b : i32\n    return %r : i1", "%a: i32, %b: i32", "i1")
    assert p.run(a, b).returns == (want,)


@pytest.mark.parametrize(("pred", "a", "want"), [("olt", 1.0, 1), ("olt", math.nan, 0), ("ult", math.nan, 1),
                                                 ("uno", math.nan, 1), ("oeq", 2.0, 1), ("une", 2.0, 0)])
def test_cmpf(pred: str, a: float, want: int) -> None:
    p = kernel(f"    %c = arith.constant 2.0 : f32\n    %r = arith.cmpf {pred}, %a, %c : f32\n    return %r : i1",
               "%a: f32", "i1")
    assert p.run(a).returns == (want,)


def test_select_and_conversions() -> None:
    body = """    %c = arith.cmpi sgt, %a, %b : i32
    %s = arith.select %c, %a, %b : i32
    %i = arith.index_cast %s : i32 to index
    %w = arith.extsi %a : i32 to i64
    %u = arith.extui %a : i32 to i64
    %t = arith.trunci %a : i32 to i8
    %f = arith.sitofp %a : i32 to f32
    %g = arith.fptosi %x : f32 to i32
    %h = arith.truncf %x : f32 to f16
    %e = arith.extf %h : f16 to f32
    %uf = arith.uitofp %a : i32 to f32
    return %i, %w, %u, %t, %f, %g, %e, %uf : index, i64, i64, i8, f32, i32, f32, f32"""
    p = kernel(body, "%a: i32, %b: i32, %x: f32", "index, i64, i64, i8, f32, i32, f32, f32")
    i, w, u, t, f, g, e, uf = p.run(-300, 5, -2.75).returns
    assert (i, w, u, t, f, g) == (5, -300, (1 << 32) - 300, np.int8(-300 % 256 - 256).item(), -300.0, -2)
    assert e == -2.75 and uf == float(np.float32((1 << 32) - 300))


def test_fptosi_out_of_range() -> None:
    from ptoisa.interp import ExecutionError

    p = kernel("    %g = arith.fptosi %x : f32 to i8\n    return %g : i8", "%x: f32", "i8")
    with pytest.raises(ExecutionError, match="does not fit"):
        p.run(300.0)


def test_scf_for_iter_args_and_if() -> None:
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c1) -> (index, index) {
      %s2 = arith.addi %s, %i : index
      %rem = arith.remsi %i, %c2 : index
      %even = arith.cmpi eq, %rem, %c0 : index
      %p2 = scf.if %even -> (index) {
        %m = arith.muli %p, %c2 : index
        scf.yield %m : index
      } else {
        scf.yield %p : index
      }
      scf.yield %s2, %p2 : index, index
    }
    return %r#0, %r#1 : index, index"""
    p = kernel(body, "%n: index", "index, index")
    assert p.run(10).returns == (45, 32)
    assert p.run(0).returns == (0, 1)


def test_func_call() -> None:
    text = """module {
  func.func private @split(%n: i32) -> (i32, i32) {
    %two = arith.constant 2 : i32
    %q = arith.divsi %n, %two : i32
    %r = arith.remsi %n, %two : i32
    return %q, %r : i32, i32
  }
  func.func @main(%n: i32) -> i32 {
    %q, %r = func.call @split(%n) : (i32) -> (i32, i32)
    %q2, %r2 = func.call @split(%q) : (i32) -> (i32, i32)
    %s = arith.addi %q2, %r : i32
    return %s : i32
  }
}"""
    from ptoisa.interp import load

    p = load(text)
    assert p.entry_name() == "main"
    assert p.run(23).returns == (23 // 2 // 2 + 23 % 2,)
    assert p.run(-7).returns == (-1 + -1,)  # divsi and remsi truncate: -7 / 2 = -3 rem -1, -3 / 2 = -1


def test_a_recursion_is_refused_when_loading() -> None:
    """PTOAS cannot emit a function that calls itself; deep chains of distinct calls: tests/interp/test_call_notes."""
    from ptoisa.interp import LoadError, load

    text = """func.func @loop(%x: i32) {
  func.call @loop(%x) : (i32) -> ()
  return
}"""
    with pytest.raises(LoadError, match="recursive function calls are not supported for EmitC C"):
        load(text)


TILE_IO = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tv = pto.make_tensor_view %out, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
"""


@pytest.mark.parametrize(("fill", "check"), [("zero", lambda a: (a == 0).all()), ("nan", lambda a: np.isnan(a).all()),
                                             (0x3F, lambda a: (a.view(np.uint32) == 0x3F3F3F3F).all())])
def test_alloc_tile_fill(fill, check) -> None:
    body = TILE_IO + f"""    %t = pto.alloc_tile : {T16}
    pto.tstore ins(%t : {T16}) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    return"""
    out = np.ones((16, 16), np.float32)
    kernel(body, "%out: !pto.ptr<f32>").run(out, fill=fill)
    assert check(out)


def test_tassign_aliases_and_addr_alloc() -> None:
    body = TILE_IO + f"""    %a0 = arith.constant 4096 : i64
    %v = arith.constant 3.5 : f32
    %t = pto.alloc_tile addr = %a0 : {T16}
    %u = pto.alloc_tile : {T16}
    %u2 = pto.tassign %u, %a0 : {T16} -> {T16}
    pto.texpands ins(%v : f32) outs(%t : {T16})
    pto.tstore ins(%u2 : {T16}) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    return"""
    out = np.zeros((16, 16), np.float32)
    kernel(body, "%out: !pto.ptr<f32>").run(out)
    assert (out == 3.5).all()


def test_set_validshape_and_dynamic_alloc() -> None:
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v = arith.constant 1.0 : f32
    %t = pto.alloc_tile valid_row = %vr valid_col = %c16 : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    pto.set_validshape %t, %vr, %vc : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    pto.texpands ins(%v : f32) outs(%t : !pto.tile_buf<vec, 16x16xf32, valid=?x?>)
    %tv = pto.make_tensor_view %out, shape = [%vr, %vc], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %d0 = pto.get_tensor_view_dim %tv, %c0 : !pto.tensor_view<?x?xf32> -> index
    %d1 = pto.get_tensor_view_dim %tv, %c1 : !pto.tensor_view<?x?xf32> -> index
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%d0, %d1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x16xf32, valid=?x?>) outs(%pv : !pto.partition_tensor_view<?x?xf32>)
    return %d0, %d1 : index, index"""
    out = np.zeros((16, 16), np.float32)
    result = kernel(body, "%out: !pto.ptr<f32>, %vr: index, %vc: index", "index, index").run(out, 5, 3)
    assert result.returns == (5, 3)
    expected = np.zeros((16, 16), np.float32)
    expected[:5, :3] = 1.0
    assert np.array_equal(out, expected)


def test_tload_tstore_dn_layout_and_offsets() -> None:
    """A DN (column-major) global view: element (i, j) at j * rows + i; a partition at an offset."""
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tv = pto.make_tensor_view %src, shape = [%c32, %c8], strides = [%c1, %c32] {layout = #pto.layout<dn>} : !pto.tensor_view<32x8xf32>
    %pv = pto.partition_view %tv, offsets = [%c16, %c0], sizes = [%c16, %c8] : !pto.tensor_view<32x8xf32> -> !pto.partition_tensor_view<16x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
    pto.tload ins(%pv : !pto.partition_tensor_view<16x8xf32>) outs(%t : !pto.tile_buf<vec, 16x8xf32>)
    %tvo = pto.make_tensor_view %dst, shape = [%c4, %c16, %c8], strides = [%c32, %c8, %c1] : !pto.tensor_view<4x16x8xf32>
    %pvo = pto.partition_view %tvo, offsets = [%c1, %c0, %c0], sizes = [%c1, %c16, %c8] : !pto.tensor_view<4x16x8xf32> -> !pto.partition_tensor_view<1x16x8xf32>
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x8xf32>) outs(%pvo : !pto.partition_tensor_view<1x16x8xf32>)
    return"""
    src = np.arange(256, dtype=np.float32)
    dst = np.zeros(32 + 16 * 8 + 96, np.float32)
    kernel(body, "%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>").run(src, dst)
    logical = src.reshape(8, 32).T  # DN: column-major 32x8
    assert np.array_equal(dst[32:32 + 128].reshape(16, 8), logical[16:32])
    assert (dst[:32] == 0).all() and (dst[160:] == 0).all()


def test_load_store_scalar_and_tsetval_tgetval() -> None:
    body = """    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %v = pto.load_scalar %p[%c3] : !pto.ptr<i32> -> i32
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xi32>
    pto.tsetval ins(%c5, %v : index, i32) outs(%t : !pto.tile_buf<vec, 1x16xi32>)
    %w = pto.tgetval ins(%t, %c5 : !pto.tile_buf<vec, 1x16xi32>, index) outs : i32
    %x = arith.addi %w, %w : i32
    pto.store_scalar %x, %p[%c5] : !pto.ptr<i32>, i32
    return %w : i32"""
    p = np.arange(8, dtype=np.int32) * 10
    result = kernel(body, "%p: !pto.ptr<i32>", "i32").run(p)
    assert result.returns == (30,) and p[5] == 60 and result.outputs["p"] is p


def test_store_scalar_out_of_bounds_is_located() -> None:
    body = """    %c9 = arith.constant 9 : index
    %z = arith.constant 0 : i32
    pto.store_scalar %z, %p[%c9] : !pto.ptr<i32>, i32
    return"""
    with pytest.raises(OutOfBoundsError) as info:
        kernel(body, "%p: !pto.ptr<i32>").run(np.zeros(8, np.int32))
    assert "in pto.store_scalar at <string>:5:5" in info.value.__notes__


def test_block_queries_and_sync_ops() -> None:
    body = """    %b = pto.get_block_idx
    %n = pto.get_block_num
    %s = pto.get_subblock_idx
    %m = pto.get_subblock_num
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.record_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]
    pto.wait_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID0>]
    pto.barrier <PIPE_ALL>
    return %b, %n, %s, %m : i64, i64, i64, i64"""
    p = kernel(body, results="i64, i64, i64, i64")
    assert p.run().returns == (0, 1, 0, 1)
    result = p.run(block=(3, 8), subblock=(1, 2))
    assert result.returns == (3, 8, 1, 2) and result.ops_executed == 9


def test_memref_reinterpret_cast_april() -> None:
    body = """    %v = memref.reinterpret_cast %m to offset: [16], sizes: [1, 16], strides: [16, 1] {layout = #pto.layout<nd>} : memref<64xf32, #pto.address_space<gm>> to memref<1x16xf32, strided<[16, 1], offset: 16>, #pto.address_space<gm>>
    %o = memref.reinterpret_cast %m to offset: [48], sizes: [1, 16], strides: [16, 1] : memref<64xf32, #pto.address_space<gm>> to memref<1x16xf32, strided<[16, 1], offset: 48>, #pto.address_space<gm>>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%v : memref<1x16xf32, strided<[16, 1], offset: 16>, #pto.address_space<gm>>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%o : memref<1x16xf32, strided<[16, 1], offset: 48>, #pto.address_space<gm>>)
    return"""
    m = np.arange(64, dtype=np.float32)
    kernel(body, "%m: memref<64xf32, #pto.address_space<gm>>").run(m)
    assert np.array_equal(m[48:], np.arange(16, 32, dtype=np.float32))


def test_tci_descending_and_texpands_i32() -> None:
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xi16>
    pto.tci ins(%s {descending = true} : i16) outs(%t : !pto.tile_buf<vec, 1x16xi16>)
    %tv = pto.make_tensor_view %out, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xi16>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xi16> -> !pto.partition_tensor_view<1x16xi16>
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xi16>) outs(%pv : !pto.partition_tensor_view<1x16xi16>)
    return"""
    out = np.zeros(16, np.int16)
    kernel(body, "%s: i16, %out: !pto.ptr<i16>").run(-32760, out)
    assert np.array_equal(out, (np.arange(16) * -1 - 32760).astype(np.int64).astype(np.int16))  # wraps mod 2^16


def test_reinterpret_cast_sizes_given_as_values_with_a_static_result() -> None:
    """MLIR (as PTOAS builds it) compares a size with the result type only where both are static: SSA sizes with a
    static result are legal (PTOAS's test/basic/tci_i16_emitc.pto); xDSL's own verifier refused them."""
    body = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v = memref.reinterpret_cast %m to offset: [%c0], sizes: [%c1, %c16], strides: [%c16, %c1] : memref<16xi16, #pto.address_space<gm>> to memref<1x16xi16, strided<[16, 1], offset: ?>, #pto.address_space<gm>>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xi16>
    pto.tci ins(%s : i16) outs(%t : !pto.tile_buf<vec, 1x16xi16>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xi16>) outs(%v : memref<1x16xi16, strided<[16, 1], offset: ?>, #pto.address_space<gm>>)
    return"""
    m = np.zeros(16, np.int16)
    kernel(body, "%s: i16, %m: memref<16xi16, #pto.address_space<gm>>").run(5, m)
    assert m.tolist() == list(range(5, 21))


def test_reinterpret_cast_static_size_mismatch_is_still_refused() -> None:
    from ptoisa.ir.diagnostics import check_text

    text = """module {
  func.func @k(%m: memref<64xf32, #pto.address_space<gm>>) {
    %v = memref.reinterpret_cast %m to offset: [0], sizes: [2, 16], strides: [16, 1] : memref<64xf32, #pto.address_space<gm>> to memref<1x16xf32, strided<[16, 1]>, #pto.address_space<gm>>
    return
  }
}
"""
    result = check_text(text, "k.pto", "a2a3")
    messages = [d.message for d in result.diagnostics]
    assert any("size = 2 instead of 1 in dim = 0" in m for m in messages), messages
    assert result.diagnostics[0].line == 3
