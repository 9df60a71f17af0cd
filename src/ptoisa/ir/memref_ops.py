"""The memref dialect as PTOAS's MLIR verifies it.

xDSL's `memref.reinterpret_cast` requires a result dimension to be dynamic wherever its size is given as an SSA
value (`sizes: [%c1, %c16]`). MLIR, as PTOAS builds it, only compares a size with the result type where both are
static, so `sizes: [%c1, %c16] ... to memref<1x16xi16, ...>` is legal there, and PTOAS's lit tests use it
(`test/basic/tci_i16_emitc.pto`). The op below is xDSL's (parsing, printing) with that rule; the dialect is
xDSL's with this op in place of its own.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.dialects.utils import verify_dynamic_index_list
from xdsl.ir import Dialect
from xdsl.utils.exceptions import VerifyException


class ReinterpretCastOp(memref.ReinterpretCastOp):
    """`memref.reinterpret_cast` with MLIR's size rule: a static size must match a static result dimension."""



    def verify_(self) -> None:
        for static, values, what in ((self.static_sizes, self.sizes, "size"),
                                     (self.static_offsets, self.offsets, "offset"),
                                     (self.static_strides, self.strides, "stride")):
            verify_dynamic_index_list(static.get_values(), values, DYNAMIC_INDEX, f" in the {what} arguments")
        result = self.result.type
        sizes = self.static_sizes.get_values()
        if not isinstance(result, MemRefType) or not isinstance(self.source.type, MemRefType):
            raise VerifyException("source and result must be memrefs")
        if len(result.shape) != len(sizes):
            raise VerifyException(f"Expected {len(result.shape)} size values but got {len(sizes)}")
        for dim, (actual, given) in enumerate(zip(result.get_shape(), sizes, strict=True)):
            if given != DYNAMIC_INDEX and actual != DYNAMIC_INDEX and given != actual:
                raise VerifyException(f"Expected result type with size = {given} instead of {actual} in dim = {dim}")


MemRef = Dialect("memref", [ReinterpretCastOp if op.name == ReinterpretCastOp.name else op
                            for op in memref.MemRef.operations], list(memref.MemRef.attributes))
