"""Cross-core pipes (TPUSH/TPOP): the PTOAS ops parse, print back, verify with PTOAS's rules and messages, and run
as FIFOs in program order (expected values worked out with NumPy from what the kernels mean)."""

from __future__ import annotations

import numpy as np
import pytest

from ptoisa.interp import ExecutionError, load, location_of
from ptoisa.ir import parse_module, print_module
from ptoisa.ir.diagnostics import check_text

ACC = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>"
MAT = "!pto.tile_buf<mat, 16x16xf32, blayout=col_major, slayout=row_major>"
LEFT = "!pto.tile_buf<left, 16x16xf32, blayout=col_major, slayout=row_major>"
RIGHT = "!pto.tile_buf<right, 16x16xf32, slayout=col_major>"
VEC = "!pto.tile_buf<vec, 16x16xf32>"
HALF = "!pto.tile_buf<vec, 8x16xf32>"
SIDE = "!pto.tile_buf<vec, 16x8xf32>"

# --- printing: every op in PTOAS's own spelling ----------------------------------------------------------------
CANONICAL = f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @cube(%gm : !pto.ptr<f32, gm>, %flags : memref<256xi64>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    pto.set_ffts %flags : memref<256xi64>
    %0 = pto.reserve_buffer{{name = "v2c_fifo", size = 4096, location = <mat>, auto = true}} -> i32
    %1 = pto.import_reserved_buffer{{name = "c2v_fifo", peer_func = @vector}} -> i32
    pto.aic_initialize_pipe{{dir_mask = 3, slot_size = 1024, nosplit = true}} (gm_slot_buffer = %gm : !pto.ptr<f32, gm>, c2v_consumer_buf = %1 : i32, v2c_consumer_buf = %0 : i32)
    %2 = pto.tpop_from_aiv {{split = 0}} -> {MAT}
    pto.tfree_from_aiv {{split = 0}}
    %3 = pto.alloc_tile : {ACC}
    pto.tpush_to_aiv(%3 : {ACC}) {{split = 1}}
    %4 = pto.initialize_l2g2l_pipe{{dir_mask = 1, slot_size = 1024, slot_num = 8, local_slot_num = 8, flag_base = 0}} (%gm : !pto.ptr<f32, gm>, %1 : i32) -> !pto.pipe
    pto.tpush(%3, %4 : {ACC}, !pto.pipe) {{split = 0}}
    func.return
  }}
  func.func @vector(%vr : index, %vc : index) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %0 = pto.reserve_buffer{{name = "c2v_fifo", size = 8192, location = <vec>, auto = false, base = 4096}} -> i32
    %1 = pto.import_reserved_buffer{{name = "v2c_fifo", peer_func = @cube}} -> i32
    pto.aiv_initialize_pipe{{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %0 : i32, v2c_consumer_buf = %1 : i32)
    %2 = pto.tpop_from_aic(%vr, %vc) {{split = 2}} -> !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    pto.tfree_from_aic {{split = 2}}
    %3 = pto.alloc_tile : {VEC}
    pto.tpush_to_aic(%3 : {VEC}) {{split = 0}}
    %4 = pto.initialize_l2l_pipe{{dir_mask = 3, slot_size = 1024, slot_num = 4, flag_base = 2}} (%0 : i32, %1 : i32) -> !pto.pipe
    %5 = pto.declare_tile -> {HALF}
    pto.tpop(%5, %4 : {HALF}, !pto.pipe) {{split = 1}}
    pto.tfree(%4 : !pto.pipe) {{split = 1}}
    func.return
  }}
}}
"""


def test_every_pipe_op_prints_as_ptoas_writes_it() -> None:
    printed = print_module(parse_module(CANONICAL))
    for line in CANONICAL.splitlines():
        if "pto." in line and "func.func" not in line:
            assert line.strip() in printed, line
    assert print_module(parse_module(printed)) == printed


def test_location_parses_in_both_spellings() -> None:
    text = CANONICAL.replace("location = <mat>", "location = #pto.address_space<mat>")
    assert print_module(parse_module(text)) == print_module(parse_module(CANONICAL))


# --- verification: PTOAS's rules, its messages, file:line:col ---------------------------------------------
def _errors(text: str) -> list[tuple[int, int, str]]:
    result = check_text(text, "k.pto")
    return [(d.line, d.col, d.message) for d in result.diagnostics if d.severity == "error"]


REFUSALS = [
    # (what to replace in CANONICAL, by what, line, col, message)
    ("pto.tpush_to_aiv(%3 : " + ACC + ") {split = 1}", "pto.tpush_to_aiv(%3 : " + ACC + ") {split = 3}", 10, 5,
     "'pto.tpush_to_aiv' op expects 'split' to be 0, 1, or 2"),
    ("pto.aic_initialize_pipe{dir_mask = 3", "pto.aic_initialize_pipe{dir_mask = 4", 6, 5,
     "'pto.aic_initialize_pipe' op expects 'dir_mask' to be 1, 2, or 3"),
    ("slot_size = 1024, nosplit", "slot_size = 0, nosplit", 6, 5,
     "'pto.aic_initialize_pipe' op expects 'slot_size' to be greater than 0"),
    ("auto = false, base = 4096}", "auto = false}", 16, 5, "'pto.reserve_buffer' op expects 'base' when 'auto' is false"),
    ("location = <mat>", "location = <acc>", 4, 5,
     "'pto.reserve_buffer' op expects 'location' to be #pto.address_space<vec> or #pto.address_space<mat>"),
    ("size = 4096", "size = 0", 4, 5, "'pto.reserve_buffer' op expects 'size' to be greater than 0"),
    ("peer_func = @vector}", "peer_func = @nobody}", 5, 5,
     "'pto.import_reserved_buffer' op expects 'peer_func' to reference an existing func.func"),
    ('name = "c2v_fifo", peer_func', 'name = "other", peer_func', 5, 5,
     "'pto.import_reserved_buffer' op expects matching peer reserve_buffer to exist"),
    ("slot_num = 4, flag_base = 2", "slot_num = 5, flag_base = 2", 23, 5,
     "'pto.initialize_l2l_pipe' op expects 'slot_num' to be 4 or 8"),
    ("slot_num = 4, flag_base = 2", "slot_num = 4, flag_base = -1", 23, 5,
     "'pto.initialize_l2l_pipe' op expects 'flag_base' to be non-negative when present"),
    ("local_slot_num = 8, flag_base = 0", "local_slot_num = 9, flag_base = 0", 11, 5,
     "'pto.initialize_l2g2l_pipe' op expects 'local_slot_num' to be less than or equal to slot_num"),
    ("(%gm : !pto.ptr<f32, gm>, %1 : i32) -> !pto.pipe", "(%gm : !pto.ptr<f32, gm>, %1 : i32, %0 : i32) -> !pto.pipe",
     11, 5, "'pto.initialize_l2g2l_pipe' op 'peer_local_addr' is only allowed when dir_mask is 3"),
    ("(%0 : i32, %1 : i32) -> !pto.pipe", "(%0 : i32) -> !pto.pipe", 23, 5,
     "'pto.initialize_l2l_pipe' op expects 'peer_local_addr' when dir_mask is 3"),
    ("valid=?x?>", "valid=16x16>", 19, 5, "'pto.tpop_from_aic' op expects tile result to have dynamic validShape (?, ?) "
     "when valid_row/valid_col operands are provided"),
    ("pto.tpop(%5, %4 : " + HALF, "pto.tpop(%3, %4 : " + HALF, 25, 5, None),  # type mismatch: an xDSL parse error
]


@pytest.mark.parametrize("old, new, line, col, message", REFUSALS, ids=[r[4] or "type" for r in REFUSALS])
def test_invalid_uses_are_refused_with_their_location(old: str, new: str, line: int, col: int,
                                                      message: str | None) -> None:
    assert old in CANONICAL
    errors = _errors(CANONICAL.replace(old, new, 1))
    assert errors, "accepted"
    got_line, got_col, got = errors[0]
    assert got_line == line == 1 + next(i for i, text in enumerate(CANONICAL.splitlines()) if old in text)
    if message is not None:
        assert (got_col, got) == (col, message)


def test_direction_ops_belong_to_their_kernel_kind() -> None:
    text = CANONICAL.replace("#pto.kernel_kind<cube>", "#pto.kernel_kind<vector>")
    messages = {m for _, _, m in _errors(text)}
    assert "'pto.tpop_from_aiv' op must be inside a cube kernel function" in messages
    assert "'pto.aic_initialize_pipe' op must be inside a cube kernel function" in messages


def test_second_reserve_buffer_and_second_init_are_refused() -> None:
    text = CANONICAL.replace("    %1 = pto.import_reserved_buffer{name = \"c2v_fifo\"",
                             "    %9 = pto.reserve_buffer{name = \"x\", size = 64, location = <mat>, auto = true} -> i32\n"
                             "    %1 = pto.import_reserved_buffer{name = \"c2v_fifo\"", 1)
    assert (4, 5, "'pto.reserve_buffer' op expects at most one reserve_buffer in the function") in _errors(text)


def test_internal_pipe_ops_need_a_section_or_kernel_and_an_init_handle() -> None:
    text = f"""func.func @f(%p : !pto.pipe) {{
  %t = pto.alloc_tile : {ACC}
  pto.tpush(%t, %p : {ACC}, !pto.pipe) {{split = 0}}
  pto.section.cube {{
    pto.tfree(%p : !pto.pipe) {{split = 0}}
    %m = pto.alloc_tile : {MAT}
    %c = arith.constant 0 : i32
    %q = pto.initialize_l2l_pipe{{dir_mask = 1, slot_size = 1024, slot_num = 8}} (%c : i32) -> !pto.pipe
    pto.tpush(%m, %q : {MAT}, !pto.pipe) {{split = 0}}
    pto.tpop(%t, %q : {ACC}, !pto.pipe) {{split = 0}}
  }}
  return
}}
"""
    assert _errors(text) == [
        (3, 3, "'pto.tpush' op must be inside pto.section.cube/vector or a kernel_kind function"),
        (5, 5, "'pto.tfree' op pipe_handle must be produced by pto.initialize_l2l_pipe or pto.initialize_l2g2l_pipe"),
        (9, 5, "'pto.tpush' op tile type must map to a supported producer pipe"),
        (10, 5, "'pto.tpop' op tile type and target arch must map to a supported consumer pipe"),
    ]


# --- running -------------------------------------------------------------------------------------------------
SECTIONS = f"""func.func @mixed(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %buf = arith.constant 0 : i32
  %pipe = pto.initialize_l2l_pipe{{dir_mask = 1, slot_size = 1024, slot_num = 8}} (%buf : i32) -> !pto.pipe
  %bv = pto.make_tensor_view %b, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
  %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
  %av = pto.make_tensor_view %a, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<32x16xf32>
  %ov = pto.make_tensor_view %out, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<32x16xf32>
  pto.section.cube {{
    %ma = pto.alloc_tile : {MAT}
    %mb = pto.alloc_tile : {MAT}
    %l = pto.alloc_tile : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    pto.tload ins(%bp : !pto.partition_tensor_view<16x16xf32>) outs(%mb : {MAT})
    pto.tmov ins(%mb : {MAT}) outs(%r : {RIGHT})
    scf.for %i = %c0 to %c2 step %c1 {{
      %row = arith.muli %i, %c16 : index
      %ap = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<32x16xf32> -> !pto.partition_tensor_view<16x16xf32>
      pto.tload ins(%ap : !pto.partition_tensor_view<16x16xf32>) outs(%ma : {MAT})
      pto.tmov ins(%ma : {MAT}) outs(%l : {LEFT})
      pto.tmatmul ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})
      pto.tpush(%acc, %pipe : {ACC}, !pto.pipe) {{split = 0}}
    }}
  }}
  pto.section.vector {{
    scf.for %i = %c0 to %c2 step %c1 {{
      %t = pto.declare_tile -> {VEC}
      pto.tpop(%t, %pipe : {VEC}, !pto.pipe) {{split = 0}}
      %row = arith.muli %i, %c16 : index
      %op = pto.partition_view %ov, offsets = [%row, %c0], sizes = [%c16, %c16] : !pto.tensor_view<32x16xf32> -> !pto.partition_tensor_view<16x16xf32>
      pto.tstore ins(%t : {VEC}) outs(%op : !pto.partition_tensor_view<16x16xf32>)
      pto.tfree(%pipe : !pto.pipe) {{split = 0}}
    }}
  }}
  return
}}
"""


def _inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 8, (32, 16)).astype(np.float32)  # small integers: every product and sum is exact
    b = rng.integers(-8, 8, (16, 16)).astype(np.float32)
    return a, b, np.zeros((32, 16), np.float32)


def test_cube_section_pushes_and_vector_section_pops_in_order() -> None:
    a, b, out = _inputs()
    load(SECTIONS).run(a, b, out, target="a5")
    assert np.array_equal(out, np.concatenate([a[:16] @ b, a[16:] @ b]))  # first push, first pop


def test_a_pop_before_its_push_is_an_error_at_the_pop() -> None:
    text = SECTIONS.replace("  pto.section.cube {", "  pto.section.vector {\n"
                            f"    %early = pto.declare_tile -> {VEC}\n"
                            f"    pto.tpop(%early, %pipe : {VEC}, !pto.pipe) {{split = 0}}\n  }}\n  pto.section.cube {{", 1)
    with pytest.raises(ExecutionError, match=r"pto.tpop: the C2V pipe \(flag_base 0\) is empty \(nothing pushed\)") as info:
        load(text).run(*_inputs(), target="a5")
    assert location_of(info.value) == "<string>:15:5"


def test_a_free_without_a_pop_and_an_oversized_push_are_errors() -> None:
    text = SECTIONS.replace("      pto.tfree(%pipe", "      pto.tfree(%pipe : !pto.pipe) {split = 0}\n      pto.tfree(%pipe", 1)
    with pytest.raises(ExecutionError, match="pto.tfree: nothing popped from the C2V pipe"):
        load(text).run(*_inputs(), target="a5")
    text = SECTIONS.replace("slot_size = 1024, slot_num = 8", "slot_size = 512, slot_num = 8")
    with pytest.raises(ExecutionError, match="pto.tpush: a 16x16 float tile .* needs 1024 bytes of its slot, more than "
                                             "the pipe's slot_size of 512") as info:
        load(text).run(*_inputs(), target="a5")
    assert location_of(info.value) == "<string>:27:7"


FRONT = f"""module {{
  func.func @entry(%a: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
    func.call @vec_send(%a) : (!pto.ptr<f32>) -> ()
    func.call @cube(%a) : (!pto.ptr<f32>) -> ()
    func.call @vec_recv(%out) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%gm: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v2c = pto.reserve_buffer {{name = "v2c_fifo", size = 4096, location = #pto.address_space<mat>, auto = true}} -> i32
    %c2v = pto.import_reserved_buffer {{name = "c2v_fifo", peer_func = @vec_recv}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %v2c : i32)
    %m = pto.tpop_from_aiv {{split = 0}} -> {MAT}
    %l = pto.alloc_tile : {LEFT}
    pto.tmov ins(%m : {MAT}) outs(%l : {LEFT})
    pto.tfree_from_aiv {{split = 0}}
    %mb = pto.alloc_tile : {MAT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    %av = pto.make_tensor_view %gm, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    pto.tload ins(%ap : !pto.partition_tensor_view<16x16xf32>) outs(%mb : {MAT})
    pto.tmov ins(%mb : {MAT}) outs(%r : {RIGHT})
    pto.tmatmul ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})
    pto.tpush_to_aiv(%acc : {ACC}) {{split = SPLIT}}
    return
  }}
  func.func private @vec_send(%gm: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0 : i32
    %v2c = pto.import_reserved_buffer {{name = "v2c_fifo", peer_func = @cube}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 2, slot_size = 1024}} (c2v_consumer_buf = %z : i32, v2c_consumer_buf = %v2c : i32)
    %t = pto.alloc_tile : {VEC}
    %av = pto.make_tensor_view %gm, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    pto.tload ins(%ap : !pto.partition_tensor_view<16x16xf32>) outs(%t : {VEC})
    pto.tpush_to_aic(%t : {VEC}) {{split = 0}}
    return
  }}
  func.func private @vec_recv(%gm: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0 : i32
    %c2v = pto.reserve_buffer {{name = "c2v_fifo", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 1, slot_size = 1024}} (c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %z : i32)
    %t = pto.tpop_from_aic {{split = SPLIT}} -> HALF
    %ov = pto.make_tensor_view %gm, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [ROWS, COLS] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<SHAPExf32>
    pto.tstore ins(%t : HALF) outs(%op : !pto.partition_tensor_view<SHAPExf32>)
    pto.tfree_from_aic {{split = SPLIT}}
    return
  }}
}}
"""


def _front(split: int) -> str:
    half, rows, cols, shape = {0: (VEC, "%c16", "%c16", "16x16"), 1: (HALF, "%c8", "%c16", "8x16"),
                               2: (SIDE, "%c16", "%c8", "16x8")}[split]
    text = FRONT.replace("SPLIT", str(split)).replace("HALF", half).replace("ROWS", rows).replace("COLS", cols)
    text = text.replace("SHAPE", shape)
    return text.replace("%c16 = arith.constant 16 : index\n    %z", "%c16 = arith.constant 16 : index\n"
                        "    %c8 = arith.constant 8 : index\n    %z")


@pytest.mark.parametrize("split", [0, 1, 2])
@pytest.mark.parametrize("lane", [0, 1])
def test_front_end_round_trip_vector_to_cube_and_back(split: int, lane: int) -> None:
    """The vector kernel sends x to the cube (V2C), which sends x @ x back (C2V); the receiving vector sub-block
    gets the whole product (split 0), its row half (split 1) or its column half (split 2)."""
    rng = np.random.default_rng(split)
    x = rng.integers(-6, 6, (16, 16)).astype(np.float32)
    out = np.zeros((16, 16), np.float32)
    load(_front(split), target="a5").run(x, out, target="a5", subblock=(lane, 2))
    product = x @ x
    if split == 0:
        assert np.array_equal(out, product)
    elif split == 1:
        assert np.array_equal(out[:8], product[8 * lane:8 * lane + 8]) and not out[8:].any()
    else:
        assert np.array_equal(out[:, :8], product[:, 8 * lane:8 * lane + 8]) and not out[:, 8:].any()


def test_reserved_buffers_give_their_base() -> None:
    text = """module {
  func.func @v() -> (i32, i32) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %b = pto.reserve_buffer {name = "f", size = 4096, location = #pto.address_space<vec>, auto = false, base = 2048} -> i32
    %i = pto.import_reserved_buffer {name = "g", peer_func = @c} -> i32
    return %b, %i : i32, i32
  }
  func.func @c() attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %b = pto.reserve_buffer {name = "g", size = 4096, location = #pto.address_space<mat>, auto = true} -> i32
    return
  }
}
"""
    assert load(text).run("v").returns == (2048, 0)


def test_a2a3_front_end_pipes_need_a_gm_slot_buffer() -> None:
    """PTOAS lowers A2/A3 front-end pipes through global memory: an init without gm_slot_buffer is refused there
    (PTOLowerFrontendPipeOpsPass), accepted on A5."""
    text = CANONICAL.replace('pto.target_arch = "a5"', 'pto.target_arch = "a2a3"')
    errors = _errors(text)
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if "pto.aiv_initialize_pipe" in t)
    assert (line, 5, "'pto.aiv_initialize_pipe' op requires 'gm_slot_buffer' when lowering to a2/a3") in errors
    assert not any("gm_slot_buffer" in m for _, _, m in _errors(CANONICAL))
