"""tsync, tprefetch, event-id arrays, bind_tile, the async session, and the quantised tmov/tstore operands: they
print back as PTOAS writes them, refuse what PTOAS refuses (with its words, at file:line:col), and run."""

from __future__ import annotations

import numpy as np
import pytest

from interp_helpers import not_alone
from ptoisa.errors import NotModelledError, OutOfBoundsError
from ptoisa.interp import ExecutionError, load
from ptoisa.ir import parse_module, print_module
from ptoisa.ir.diagnostics import check_text

VEC16 = "!pto.tile_buf<vec, 16x16xf16>"
SCRATCH = "!pto.tile_buf<vec, 1x256xi8>"
GM = "#pto.address_space<gm>"
ACC = "!pto.tile_buf<acc, 16x16xi32, blayout=col_major, slayout=row_major, fractal=1024>"
ACCF = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>"

CANONICAL = f"""module {{
  func.func @k(%a : memref<128xf32, {GM}>, %b : memref<128xf32, {GM}>, %ws : memref<1024xi8, {GM}>, %p : !pto.ptr<f16, gm>, %m : memref<16x16xf16, #pto.address_space<vec>>, %n : index, %q : i64, %acc : {ACCF}) {{
    pto.tsync ins(%a, %b : memref<128xf32, {GM}>, memref<128xf32, {GM}>)
    %0 = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<?x?xf16>
    %1 = pto.partition_view %0, offsets = [%n, %n], sizes = [%n, %n] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x16xf16>
    %2 = pto.alloc_tile : {VEC16}
    pto.tprefetch ins(%1 : !pto.partition_tensor_view<16x16xf16>) outs(%2 : {VEC16})
    %3 = pto.declare_eventid_array -> !pto.eventid_array<4>
    pto.eventid_array_set %3[%n], %n : !pto.eventid_array<4>
    %4 = pto.eventid_array_get %3[%n] : !pto.eventid_array<4>
    pto.set_flag_dyn [<PIPE_MTE2>, <PIPE_MTE3>, %4]
    pto.wait_flag_dyn [<PIPE_MTE2>, <PIPE_MTE3>, %4]
    %5 = pto.bind_tile %m, %n, %n {{config = #pto.tile_buf_config<blayout=1 : i32, slayout=1 : i32, s_fractal_size=512, pad=0 : i32, compact=0 : i32>}} : memref<16x16xf16, #pto.address_space<vec>> -> memref<16x16xf16, #pto.address_space<vec>>
    %6 = pto.alloc_tile : {SCRATCH}
    %7 = pto.build_async_session(%6, %ws : {SCRATCH}, memref<1024xi8, {GM}>) {{sync_id = 1 : i32}} -> !pto.async_session
    %8 = pto.tput_async(%a, %b, %7 : memref<128xf32, {GM}>, memref<128xf32, {GM}>, !pto.async_session) -> !pto.async_event
    %9 = pto.tget_async(%b, %a, %7 : memref<128xf32, {GM}>, memref<128xf32, {GM}>, !pto.async_session) -> !pto.async_event
    %10 = pto.wait_async_event(%8, %7 : !pto.async_event, !pto.async_session) -> i1
    %11 = pto.test_async_event(%9, %7 : !pto.async_event, !pto.async_session) -> i1
    %12 = pto.alloc_tile : !pto.tile_buf<mat, 16x32xi8, valid=16x16, blayout=col_major, slayout=row_major>
    pto.tmov ins(%acc : {ACCF}, %q : i64) outs(%12 : !pto.tile_buf<mat, 16x32xi8, valid=16x16, blayout=col_major, slayout=row_major>) {{reluPreMode = #pto<relu_pre_mode normal_relu>}}
    pto.tstore ins(%2 : {VEC16}, %q : i64) outs(%1 : !pto.partition_tensor_view<16x16xf16>)
    func.return
  }}
}}
"""


def test_every_op_prints_as_ptoas_writes_it() -> None:
    printed = print_module(parse_module(CANONICAL, "k.pto"))
    for line in CANONICAL.splitlines():
        if "pto." in line and "func.func" not in line:
            assert line.strip() in printed, line
    assert print_module(parse_module(printed)) == printed


def test_ptoas_generic_tmov_reads_its_segments() -> None:
    """PTOAS's generic form orders (src, dst, fp, preQuantScalar); it prints as the custom form."""
    text = f"""module {{
  func.func @k(%acc : {ACCF}, %q : i64) {{
    %d = pto.alloc_tile : !pto.tile_buf<mat, 16x32xi8, valid=16x16, blayout=col_major, slayout=row_major>
    "pto.tmov"(%acc, %d, %q) <{{operandSegmentSizes = array<i32: 1, 1, 0, 1>, reluPreMode = #pto<relu_pre_mode normal_relu>}}> : ({ACCF}, !pto.tile_buf<mat, 16x32xi8, valid=16x16, blayout=col_major, slayout=row_major>, i64) -> ()
    func.return
  }}
}}
"""
    printed = print_module(parse_module(text))
    assert (f"pto.tmov ins(%acc : {ACCF}, %q : i64) outs(%d : !pto.tile_buf<mat, 16x32xi8, valid=16x16, "
            "blayout=col_major, slayout=row_major>) {reluPreMode = #pto<relu_pre_mode normal_relu>}") in printed


def _errors(text: str, target: str = "a2a3") -> list[tuple[int, int, str]]:
    result = check_text(text, "k.pto", target)
    return [(d.line, d.col, d.message) for d in result.diagnostics if d.severity == "error"]


REFUSALS = [
    ("pto.tget_async(%b, %a, %7 : memref<128xf32, #pto.address_space<gm>>, memref<128xf32",
     "pto.tget_async(%b, %ws, %7 : memref<128xf32, #pto.address_space<gm>>, memref<1024xi8", 17, 5,
     "'pto.tget_async' op expects src and dst to have the same element type"),
    ("{sync_id = 1 : i32}", "{sync_id = 9 : i32}", 15, 5, "'pto.build_async_session' op expects sync_id in range [0, 7]"),
    (f"(%6, %ws : {SCRATCH}", "(%6, %ws : !pto.tile_buf<vec, 1x256xi8>", 0, 0, None),
    ("s_fractal_size=512", "s_fractal_size=64", 13, 0, "unsupported s_fractal_size: 64"),
    ("pto.tprefetch ins(%1 : !pto.partition_tensor_view<16x16xf16>) outs(%2 : !pto.tile_buf<vec, 16x16xf16>)",
     "pto.tprefetch ins(%1 : !pto.partition_tensor_view<16x16xf16>) outs(%2 : !pto.tile_buf<vec, 16x16xf16>)\n"
     "    %t8 = pto.alloc_tile : !pto.tile_buf<vec, 16x32xi8, valid=16x16>\n"
     "    pto.tprefetch ins(%1 : !pto.partition_tensor_view<16x16xf16>) outs(%t8 : !pto.tile_buf<vec, 16x32xi8, valid=16x16>)",
     9, 5, "'pto.tprefetch' op expects src and dst element types to have the same element size"),
    ("outs(%1 : !pto.partition_tensor_view<16x16xf16>)\n", "outs(%1 : !pto.partition_tensor_view<16x16xf16>)\n"
     "    pto.tstore ins(%2 : !pto.tile_buf<vec, 16x16xf16>, %n : index) outs(%1 : !pto.partition_tensor_view<16x16xf16>)\n",
     23, 5, "'pto.tstore' op operand #2 must be 64-bit signless integer, but got 'index'"),
]


@pytest.mark.parametrize("old, new, line, col, message", REFUSALS)
def test_refusals_are_ptoas_words_at_their_op(old, new, line, col, message) -> None:
    assert old in CANONICAL
    errors = _errors(CANONICAL.replace(old, new))
    if message is None:
        assert errors == []
        return
    assert any(m.endswith(message) or message in m for _, _, m in errors), errors
    if col:
        assert (line, col) in [(ln, c) for ln, c, _ in errors], errors
    else:
        assert line in [ln for ln, _, _ in errors], errors


def test_ptoas_lit_non_1d_put_is_refused() -> None:
    text = f"""module {{
  func.func @bad(%dst: memref<4x32xf32, {GM}>, %src: memref<4x32xf32, {GM}>, %ws: memref<1024xi8, {GM}>) {{
    %s = pto.alloc_tile : {SCRATCH}
    %session = pto.build_async_session(%s, %ws : {SCRATCH}, memref<1024xi8, {GM}>) -> !pto.async_session
    %e = pto.tput_async(%dst, %src, %session : memref<4x32xf32, {GM}>, memref<4x32xf32, {GM}>, !pto.async_session) -> !pto.async_event
    return
  }}
}}
"""
    assert _errors(text) == [(5, 5, "'pto.tput_async' op expects dst to be a static flat contiguous logical 1D GM "
                                    "memref")]


# --- running --------------------------------------------------------------------------------------------------------
EVENTS = not_alone("""module {
  func.func @k(%i : index, %v : index) -> index {
    %arr = pto.declare_eventid_array -> !pto.eventid_array<4>
    %c0 = arith.constant 0 : index
    %before = pto.eventid_array_get %arr[%c0] : !pto.eventid_array<4>
    pto.eventid_array_set %arr[%i], %v : !pto.eventid_array<4>
    %e = pto.eventid_array_get %arr[%i] : !pto.eventid_array<4>
    pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]
    pto.wait_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]
    %r = arith.addi %e, %before : index
    return %r : index
  }
}
""")


def test_event_id_arrays_hold_their_ids() -> None:
    assert load(EVENTS).run(3, 5).returns == (5,)  # starts at 0; element 3 holds 5


def test_event_id_refusals_name_the_op() -> None:
    with pytest.raises(OutOfBoundsError, match=r"eventid_array_set: index 4 is outside the event-id array \[0, 4\)"):
        load(EVENTS).run(4, 1)
    with pytest.raises(ExecutionError, match="set_flag_dyn: event id 9 is not an event") as info:
        load(EVENTS).run(1, 9)
    assert "<string>:8:5" in str(info.value) or ":8:5" in "".join(getattr(info.value, "__notes__", [])) \
        or ":8:5" in str(info.value)


ASYNC = not_alone(f"""module {{
  func.func @k(%dst: memref<128xf32, {GM}>, %src: memref<128xf32, {GM}>, %ws: memref<1024xi8, {GM}>) -> (i1, i1) {{
    %s = pto.alloc_tile : {SCRATCH}
    %session = pto.build_async_session(%s, %ws : {SCRATCH}, memref<1024xi8, {GM}>) -> !pto.async_session
    %put = pto.tput_async(%dst, %src, %session : memref<128xf32, {GM}>, memref<128xf32, {GM}>, !pto.async_session) -> !pto.async_event
    %ok = pto.wait_async_event(%put, %session : !pto.async_event, !pto.async_session) -> i1
    %get = pto.tget_async(%src, %dst, %session : memref<128xf32, {GM}>, memref<128xf32, {GM}>, !pto.async_session) -> !pto.async_event
    %done = pto.test_async_event(%get, %session : !pto.async_event, !pto.async_session) -> i1
    return %ok, %done : i1, i1
  }}
}}
""")


def test_put_and_get_are_immediate_copies() -> None:
    dst, src, ws = np.zeros(128, np.float32), np.arange(128, dtype=np.float32), np.zeros(1024, np.int8)
    result = load(ASYNC).run(dst, src, ws)
    assert np.array_equal(dst, np.arange(128, dtype=np.float32))  # the put landed
    assert np.array_equal(src, dst)  # the get copied it back
    assert result.returns == (1, 1)
    assert not ws.any()


def test_overlapping_transfer_is_not_modelled() -> None:
    buf = np.arange(256, dtype=np.float32)
    with pytest.raises(NotModelledError, match="overlap"):
        # %dst and %src are windows of one array, 64 elements apart
        load(ASYNC).run(buf[64:192], buf[:128], np.zeros(1024, np.int8))


TSTORE_Q = f"""module {{
  func.func @k(%acc : {ACC}, %out : !pto.ptr<f16>, %w : i64) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tv = pto.make_tensor_view %out, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf16>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x16xf16>
    pto.tstore ins(%acc : {ACC}, %w : i64) outs(%pv : !pto.partition_tensor_view<16x16xf16>) RELU
    return
  }}
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("relu", [False, True])
def test_tstore_with_a_scalar_word_dequantises(target, relu) -> None:
    acc = np.zeros((16, 16), np.int32)
    acc[0, :4] = [3, -7, 200000, 1]
    out = np.zeros((16, 16), np.float16)
    text = TSTORE_Q.replace("RELU", "{reluPreMode = #pto<relu_pre_mode normal_relu>}" if relu else "")
    load(text).run(acc, out, 0x3F000000, target=target)  # the word's low 32 bits: float 0.5
    # int32 -> half is the simulator's DEQ mode: x 0.5, clamped to +-65504; ReLU on the scaled value
    assert out[0, :4].tolist() == [1.5, 0.0 if relu else -3.5, 65504.0, 0.5]
    assert not out[1:].any()


def test_tstore_atomic_add_stays_refused() -> None:
    text = TSTORE_Q.replace("RELU", "{atomicType = #pto<atomic_type atomic_add>}")
    with pytest.raises(Exception, match="atomicType = atomic_add is not modelled"):
        load(text).run(np.zeros((16, 16), np.int32), np.zeros((16, 16), np.float16), 0)


TMOV_Q = not_alone(f"""module {{
  func.func @k(%acc : {ACCF}, %w : i64) -> !pto.tile_buf<vec, 16x32xi8, valid=16x16> {{
    %d = pto.alloc_tile : !pto.tile_buf<vec, 16x32xi8, valid=16x16>
    "pto.tmov"(%acc, %d, %w) <{{operandSegmentSizes = array<i32: 1, 1, 0, 1>}}> : ({ACCF}, !pto.tile_buf<vec, 16x32xi8, valid=16x16>, i64) -> ()
    return %d : !pto.tile_buf<vec, 16x32xi8, valid=16x16>
  }}
}}
""")


@pytest.mark.parametrize("target, expected", [("a5", [2, 4, -128, 127]), ("cpu", [1, 1, -100, 70])])
def test_generic_tmov_with_a_scalar_runs(target, expected) -> None:
    acc = np.zeros((16, 16), np.float32)
    acc[0, :4] = [1.25, 1.75, -100.0, 70.0]
    (tile,) = load(TMOV_Q, target=target).run(acc, 0x40000000 | (1 << 46), target=target).returns
    assert tile.data[0, :4].tolist() == expected  # a5: x 2.0, signed clamp; cpu: the scalar is ignored


def test_tsync_and_tprefetch_change_nothing() -> None:
    text = f"""module {{
  func.func @k(%p : !pto.ptr<f16>) -> {VEC16} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tv = pto.make_tensor_view %p, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf16>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x16xf16>
    %t = pto.alloc_tile : {VEC16}
    pto.tprefetch ins(%pv : !pto.partition_tensor_view<16x16xf16>) outs(%t : {VEC16})
    pto.tsync ins(%t : {VEC16})
    return %t : {VEC16}
  }}
}}
"""
    data = np.ones((16, 16), np.float16)
    (tile,) = load(not_alone(text)).run(data, target="cpu").returns
    assert not tile.data.any()  # dst is not written
    assert (data == 1).all()
