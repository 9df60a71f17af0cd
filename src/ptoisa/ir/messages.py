"""Every diagnostic text of the `pto` dialect, in one table.

The texts marked PTOAS are the exact messages of the PTOAS assembler (docs/text-forms section 1.3, 1.6 and 3);
verifier messages are raised as `'pto.<op>' op <text>`, the way MLIR prints them. Texts marked "ours" cover cases
PTOAS reports with a generic MLIR error, or constructs PTOAS does not have.

Use `msg(entry, **fields)` to format an entry; a missing field is a programming error (KeyError).
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # --- !pto.tile_buf: compact syntax (PTOAS) ------------------------------------------------------------
    "tb.duplicate": "duplicate {key} in tile_buf compact syntax",
    "tb.unknown_key": "unknown key in tile_buf compact syntax: {key}",
    "tb.two_dims": "tile_buf compact syntax expects exactly two shape dims",
    "tb.valid_two_dims": "tile_buf valid must have exactly two dims",
    "tb.static_shape": "expected static shape",
    # --- !pto.tile_buf: keyed syntax and field values (PTOAS) ---------------------------------------------
    "tb.expected_key": "expected '{key}'",
    "tb.expected_int": "expected integer value",
    "tb.bad_valid": "{key} must be '?', -1, or a non-negative integer",
    "tb.unknown_loc": "unknown loc: {value}",
    "tb.unknown_blayout": "unknown blayout: {value}",
    "tb.unknown_slayout": "unknown slayout: {value}",
    "tb.unknown_pad": "unknown pad: {value}",
    "tb.unknown_compact": "unknown compact: {value}",
    "tb.positive": "tile_buf rows/cols must be positive",
    "tb.valid_row_exceeds": "tile_buf valid_row ({valid}) exceeds row ({size})",
    "tb.valid_col_exceeds": "tile_buf valid_col ({valid}) exceeds col ({size})",
    "tb.fractal": "unsupported s_fractal_size: {value}, must be one of {{32, 512, 1024}}",
    # --- other types (ours unless noted) ------------------------------------------------------------------
    "tile.no_spelling": "location {value} has no tile_buf spelling",
    "ptr.unknown_space": "unknown ptr address space: {value}",
    "ptr.apr_space": "!pto.ptr with address space {value} has no April spelling",
    "view.rank": "expected a ranked shape with element type",
    # --- attributes -------------------------------------------------------------------------------------------
    "attr.cmp_case": "expected ::mlir::pto::CmpMode to be one of: eq, ne, lt, le, gt, ge",  # PTOAS
    "attr.unknown": "expected {enum} to be one of: {choices}",
    # --- DPS syntax (ours: PTOAS reports these as generic MLIR errors) -----------------------------------
    "dps.type_count": "{group}(...) has {operands} operands but {types} types",
    "dps.count": "{group}(...) expects {count} operands, got {got}",
    "dps.attr_twice": "attribute '{name}' given both inside ins(...) and after outs(...)",
    "tci.int_type": "custom op 'pto.tci' invalid kind of type specified",  # PTOAS (April)
    "tci.apr_tmp": "pto.tci with a tmp operand has no April spelling",
    "tgather.apr_axis": "pto.tgather with axis \"col\" has no April spelling",
    # --- tgather parser (PTOAS) -------------------------------------------------------------------------------
    "tg.comma": "expected ',' after src operand in ins(...)",
    "tg.mask_attr": "expected #pto.mask_pattern<Pxxxx> for maskPattern",
    "tg.extra3": "expected at most 3 extra operands in tgather ins(...)",
    "tg.mask_once": "maskPattern may only be specified once",
    "tg.mask_extra": "mask-pattern tgather does not take extra ins operands",
    "tg.mask_outs": "mask-pattern tgather expects a single outs operand",
    "tg.cmp_scalar": "compare-form tgather expects a scalar kValue operand",
    "tg.cmp_tmp": "compare-form tgather tmp must be tile-like",
    "tg.cmp_max": "compare-form tgather expects at most src, kValue, tmp in ins(...)",
    "tg.idx_tile": "index-form tgather expects tile-like indices; compare-form must use outs(dst, cdst)",
    "tg.idx_tmp": "index-form tgather tmp must be tile-like",
    "tg.idx_max": "index-form tgather expects at most src, indices, tmp in ins(...)",
    "tg.axis": 'axis must be "row" or "col"',
    # --- SSA (Level-1) and assembly forms (ours: no other tool defines them) -----------------------------------
    "ssa.operand_types": "{op} expects {count} operand types for {operands} operands, got {got}",
    "ssa.result_types": "{op} expects {count} result type(s), got {got}",
    "ssa.infer": "{op}: cannot infer the type of operand #{index}; write all operand types: ({hint}) -> ...",
    "ssa.operands": "{op} expects {expected} operands, got {got}",
    "ssa.mask_attr": "mask-pattern tgather expects a single src operand and a maskPattern attribute",
    "ssa.asm_name": "Operation {name} is not registered (PTO-AS assembly spelling: write pto.{name}, or use a .ptoas file)",
    "v.tile": "expects {x} to be a !pto.tile (the SSA form's tile type)",
    "form.both": "takes either outs(...) operands (DPS form) or results (SSA form), not both",
    "form.none": "has neither an outs(...) operand (DPS form) nor a result (SSA form)",
    # --- shared verifier helpers (PTOAS) ------------------------------------------------------------------------
    "v.tile_buf": "expects {x} to be a !pto.tile_buf",
    "v.rank2": "expects {x} to be a rank-2 tile_buf",
    "v.valid_le": "expects {x} to satisfy valid_shape[{i}] <= shape[{i}]",
    "v.vec": "expects {x} to be in the vec address space",
    "v.row_major": "expects {x} to use the row_major blayout",
    "v.scalar": "operand #{index} must be numeric (integer/float), but got '{type}'",
    # --- tcmps (PTOAS) ---------------------------------------------------------------------------------------------
    "tcmps.valid_row": "expects src and dst to have the same valid_shape[0]",
    # --- tci (PTOAS) -------------------------------------------------------------------------------------------------
    "tci.dst_int": "expects dst element type to be integer",
    "tci.s_int": "expects S to be integer",
    "tci.same": "expects S and dst element type to be exactly the same type",
    "tci.cols": "expects dst cols to be different from 1",
    "tci.tmp_tile": "expects tmp to be a tile buffer",
    "tci.tmp_vec": "expects tmp to be in vec address space",
    "tci.tmp_4byte": "expects A2/A3 tmp element type to be a 4-byte type",
    "tci.tmp_blayout": "expects tmp blayout to be row_major",
    "tci.tmp_slayout": "expects tmp slayout to be none_box",
    "tci.tmp_fractal": "expects tmp fractal size to be 512",
    "tci.tmp_static": "expects tmp to have static byte size",
    "tci.tmp_capacity": "expects A2/A3 tmp capacity to be at least {bytes} bytes for {bits}-bit dst element type",
    # --- texpands (PTOAS) ------------------------------------------------------------------------------------------
    "texpands.loc": "expects dst to be in the vec or mat address space",
    "texpands.scalar": "expects scalar type == dst element type",
    "texpands.row_major": "expects vec dst to use row-major layout on A2/A3",
    # --- tpartmul (PTOAS) -----------------------------------------------------------------------------------------
    "tpartmul.shaped": "expects PTO shaped-like src0/src1/dst",
    "tpartmul.same": "expects src0/src1/dst to have the same element type",
    "tpartmul.le": "expects src0/src1 valid_shape to be less than or equal to dst valid_shape",
    "tpartmul.match": "expects at least one of src0/src1 valid_shape to match dst valid_shape",
    # --- tgather verifier (PTOAS) --------------------------------------------------------------------------------
    "tg.mask_only": "mask-pattern tgather only allows src and dst operands",
    "tg.cmp_operands": "compare-form tgather expects dst, cdst, kValue, and tmp",
    "tg.cmp_no_idx": "compare-form tgather does not take indices",
    "tg.idx_both": "index-form tgather expects both indices and tmp",
    "tg.idx_indices": "index-form tgather expects indices",
    "tg.axis_no_mask": "axis attribute must not be provided without maskPattern",
    "tg.mask_rowmajor": "expects src and dst to use row-major layout",
    "tg.mask_vec": "expects src and dst to be in the vec address space",
    "tg.mask_size": "expects src and dst element sizes to match",
    "tg.dst_cols": "expects dst valid_shape[1] to equal dst cols",
    "tg.axis_value": 'Invalid axis value, expected "row" or "col"',
    "tg.row_rows": "expects dst valid rows to equal src valid rows for row direction",
    "tg.row_cols": "expects src valid cols to equal dst valid cols times the mask expansion factor for row direction",
    "tg.col_cols": "expects dst valid cols to equal src valid cols for col direction",
    "tg.col_rows": "expects src valid rows to equal dst valid rows times the mask expansion factor for col direction",
    "tg.idx_same": "expects src and dst to have the same element type",
    "tg.idx_int": "indices element type must be integer",
    "tg.idx_cols": "expects indices valid_shape[1] to equal indices cols",
    "tg.tmp_type": "expects tmp and indices to have the same element type",
    "tg.tmp_valid": "expects indices and tmp to have the same valid_shape",
    "tg.cmp_dst_i32": "expects dst element type to be i32",
    "tg.cmp_cdst": "expects cdst to have the same element type as dst",
    "tg.cmp_k": "expects kValue to have the same type as src element type",
    "tg.cmp_mode": "expects compare-form tgather cmpMode to be eq or gt",
    "tg.offset": "attribute 'offset' failed to satisfy constraint: 32-bit signless integer attribute",
    # --- supporting ops (PTOAS where quoted in text-forms section 2, otherwise ours) ---------------------------
    "alloc.required": "{operand} operand is required because result type {field} is ?",
    "alloc.absent": "{operand} operand must be absent because result type {field} is {value}",
    "alloc.row_align": "expects result row-major none_box tile row byte size (cols * sizeof(dtype)) to be "
    "32-byte aligned, but got {bytes} bytes",
    "alloc.col_align": "expects result col-major none_box tile col byte size (rows * sizeof(dtype)) to be "
    "32-byte aligned, but got {bytes} bytes",  # ours, by symmetry with the row-major text
    "view.counts": "shape/strides operand counts must match tensor_view rank={rank}",
    "view.ptr": "expects ptr element type to match tensor_view element type",
    "part.counts": "offsets/sizes operand counts must match source rank={rank}",
    "part.size": "constant size at dim {dim} ({size}) must equal result dim ({result})",
    "part.bounds": "offset+size at dim {dim} ({end}) exceeds static source dim ({size})",
    "part.infer": "partition_view result type cannot be inferred: sizes must be constants",
    "validshape.dynamic": "expects tile with dynamic valid shape (valid=?x?)",
    "tassign.same": "expects result type to equal the tile type",
    "tstore.count": "expects dst static element count ({dst}) to match src valid_shape static element count ({src})",
    "tload.view": "expects src to be a !pto.partition_tensor_view",
    "tstore.view": "expects dst to be a !pto.partition_tensor_view",
    "scalar.ptr": "expects ptr element type to equal the value type",
    "sync.expected": "expected <{enum}>, #pto.{mnemonic}<...> or a quoted name",
    # --- cross-core pipes (PTOAS, lib/PTO/IR/PTO.cpp; "ours" where marked) ---------------------------------
    "pipe.in_func": "must be nested under a func.func",
    "pipe.kernel": "must be inside a {kind} kernel function",
    "pipe.section": "must be inside pto.section.cube/vector or a kernel_kind function",
    "pipe.one_init": "requires at most one matching initialize_pipe op per function",
    "pipe.dir_mask": "expects 'dir_mask' to be 1, 2, or 3",
    "pipe.slot_size": "expects 'slot_size' to be greater than 0",
    "pipe.gm_slot_buffer": "requires 'gm_slot_buffer' when lowering to a2/a3",
    "pipe.slot_num": "expects 'slot_num' to be 4 or 8",
    "pipe.flag_base": "expects 'flag_base' to be non-negative when present",
    "pipe.local_slot_num": "expects 'local_slot_num' to be greater than 0",
    "pipe.local_slot_le": "expects 'local_slot_num' to be less than or equal to slot_num",
    "pipe.peer_needed": "expects 'peer_local_addr' when dir_mask is 3",
    "pipe.peer_only": "'peer_local_addr' is only allowed when dir_mask is 3",
    "pipe.split": "expects 'split' to be 0, 1, or 2",
    "pipe.handle_type": "expects pipe operand type !pto.pipe",
    "pipe.handle": "pipe_handle must be produced by pto.initialize_l2l_pipe or pto.initialize_l2g2l_pipe",
    "pipe.producer": "tile type must map to a supported producer pipe",
    "pipe.consumer": "tile type and target arch must map to a supported consumer pipe",
    "pipe.valid_together": "expects valid_row and valid_col operands to be provided together",
    "pipe.valid_tile_buf": "expects tile result to be !pto.tile_buf when valid_row/valid_col operands are provided",
    "pipe.valid_dynamic": "expects tile result to have dynamic validShape (?, ?) when valid_row/valid_col operands "
    "are provided",
    "reserve.size": "expects 'size' to be greater than 0",
    "reserve.location": "expects 'location' to be #pto.address_space<vec> or #pto.address_space<mat>",
    "reserve.base_needed": "expects 'base' when 'auto' is false",
    "reserve.base_sign": "expects 'base' to be non-negative when present",
    "reserve.one": "expects at most one reserve_buffer in the function",
    "reserve.unique": "requires 'name' to be unique within the function",
    "import.one": "expects at most one import_reserved_buffer in the function",
    "import.peer": "expects 'peer_func' to reference an existing func.func",
    "import.match": "expects matching peer reserve_buffer to exist",
    "ffts.element": "expects element type i64 (or i8)",
    "pipe.key": "expected '{key}'",  # ours: MLIR's generic "expected 'x'"
    "pipe.i32": "{key} must fit a {bits}-bit signless integer",  # ours
    # --- printing --------------------------------------------------------------------------------------------------
    "print.flavour": "unknown print flavour {value!r}; expected 'aug' or 'apr'",
}


def msg(entry: str, /, **fields: Any) -> str:
    """The message `entry` with `fields` substituted."""
    return MESSAGES[entry].format(**fields)
