"""arith: constants, integer and float arithmetic, comparisons, select and conversions (MLIR semantics).

Integer results wrap to their width; signed/unsigned views follow the op (divsi vs divui). Division by zero,
signed division overflow, and float-to-integer conversions of NaN or out-of-range values have no defined result
in MLIR: they raise an ExecutionError. Float results are rounded to their type after every op.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, VectorType

from .decode import FunctionDecoder, Inline, Step, constant_value, handler
from .errors import ExecutionError
from .scalars import ScalarKind, int_to_float


@handler("arith.constant")
def _constant(d: FunctionDecoder, op: Operation) -> None:
    if isinstance(op.results[0].type, VectorType):  # `dense<[128, 64, 0, 0]> : vector<4xi16>` (TMRGSORT's
        attr = op.value  # type: ignore[attr-defined]  # executed counts): carried as a tuple, read by no op
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            raise d.fail(op, f"constants of type {op.results[0].type} are not supported")
        d.constant(op.results[0], tuple(attr.get_values()))
        return
    value = constant_value(op)
    if value is None:
        raise d.fail(op, f"constants of type {op.results[0].type} are not supported")
    kind = d.kind(op, op.results[0])
    d.constant(op.results[0], kind.norm(value) if not kind.is_float else kind.norm(float(value)))


def _binary(d: FunctionDecoder, op: Operation, fn: Callable[[Any, Any], Any]) -> Step:
    a, b = d.use(op.operands[0]), d.use(op.operands[1])
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = fn(regs[a], regs[b])

    return step


def _div_trunc(x: int, y: int) -> int:
    if y == 0:
        raise ExecutionError("integer division by zero")
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _nonzero(y: int) -> int:
    if y == 0:
        raise ExecutionError("integer division by zero")
    return y


def _int_ops(k: ScalarKind) -> dict[str, Callable[[int, int], int]]:
    n, u, w = k.norm, k.unsigned, k.width
    low = -(1 << (w - 1))

    def signed(x: int, y: int) -> tuple[int, int]:
        """The operands of a signed quotient: the minimum divided by -1 overflows, which MLIR leaves undefined
        for divsi, floordivsi and ceildivsi alike (remsi's remainder, 0, is defined)."""
        x, y = k.signed_value(x), k.signed_value(y)
        if x == low and y == -1:
            raise ExecutionError(f"signed division overflow ({x} / -1 in {k.name})")
        return x, y

    def divsi(x: int, y: int) -> int:
        x, y = signed(x, y)
        return n(_div_trunc(x, y))

    def remsi(x: int, y: int) -> int:
        x, y = k.signed_value(x), k.signed_value(y)
        return n(x - _div_trunc(x, y) * y)

    def floordivsi(x: int, y: int) -> int:
        x, y = signed(x, y)
        return n(x // _nonzero(y))

    def ceildivsi(x: int, y: int) -> int:
        x, y = signed(x, y)
        return n(-(-x // _nonzero(y)))

    def shift(x: int) -> int:
        if not 0 <= x < w:
            raise ExecutionError(f"shift amount {x} out of range for {k.name}")
        return x

    return {
        "arith.addi": lambda x, y: n(x + y),
        "arith.subi": lambda x, y: n(x - y),
        "arith.muli": lambda x, y: n(x * y),
        "arith.divsi": divsi,
        "arith.divui": lambda x, y: n(u(x) // _nonzero(u(y))),
        "arith.remsi": remsi,
        "arith.remui": lambda x, y: n(u(x) % _nonzero(u(y))),
        "arith.floordivsi": floordivsi,
        "arith.ceildivsi": ceildivsi,
        "arith.ceildivui": lambda x, y: n(-(-u(x) // _nonzero(u(y)))),
        "arith.minsi": lambda x, y: x if k.signed_value(x) <= k.signed_value(y) else y,
        "arith.maxsi": lambda x, y: x if k.signed_value(x) >= k.signed_value(y) else y,
        "arith.minui": lambda x, y: x if u(x) <= u(y) else y,
        "arith.maxui": lambda x, y: x if u(x) >= u(y) else y,
        "arith.andi": lambda x, y: n(x & y),
        "arith.ori": lambda x, y: n(x | y),
        "arith.xori": lambda x, y: n(x ^ y),
        "arith.shli": lambda x, y: n(x << shift(u(y))),
        "arith.shrsi": lambda x, y: n(k.signed_value(x) >> shift(u(y))),
        "arith.shrui": lambda x, y: n(u(x) >> shift(u(y))),
    }


INT_BINARY = tuple(_int_ops(ScalarKind("i8", False, 8, True, int)))


@handler(*INT_BINARY)
def _int_binary(d: FunctionDecoder, op: Operation) -> Step:
    kind = d.kind(op, op.results[0])
    if kind.is_float:
        raise d.fail(op, f"{op.name} needs integer operands")
    if op.name in _WRAPPING:
        return _wrapping(d, op, kind)
    return _binary(d, op, _int_ops(kind)[op.name])


_WRAPPING = ("arith.addi", "arith.subi", "arith.muli")


def _wrapping(d: FunctionDecoder, op: Operation, k: ScalarKind) -> Step:
    """addi / subi / muli (loop index arithmetic): the exact result, wrapped to the type only when it leaves the
    type's range (inside it, `k.norm` would return it unchanged)."""
    a, b = d.use(op.operands[0]), d.use(op.operands[1])
    r = d.define(op.results[0])
    low, high = (-(1 << (k.width - 1)), (1 << (k.width - 1)) - 1) if k.signed else (0, (1 << k.width) - 1)
    norm = k.norm
    sign = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}[op.name]
    return Inline(lambda tag: [f"v = regs[{a}] {sign} regs[{b}]",
                               f"regs[{r}] = v if {low} <= v <= {high} else norm{tag}(v)"],
                  lambda tag: {f"norm{tag}": norm}).step(op.name)


def _float_ops(k: ScalarKind) -> dict[str, Callable[[float, float], float]]:
    n = k.norm

    def div(x: float, y: float) -> float:
        if y == 0.0:
            if x == 0.0 or math.isnan(x):
                return math.nan
            return math.copysign(math.inf, x) * math.copysign(1.0, y)
        return n(x / y)

    def minimum(x: float, y: float) -> float:
        if math.isnan(x) or math.isnan(y):
            return math.nan
        if x == y == 0.0:
            return x if math.copysign(1.0, x) < 0 else y
        return min(x, y)

    def maximum(x: float, y: float) -> float:
        if math.isnan(x) or math.isnan(y):
            return math.nan
        if x == y == 0.0:
            return y if math.copysign(1.0, x) < 0 else x
        return max(x, y)

    def minnum(x: float, y: float) -> float:
        return y if math.isnan(x) else (x if math.isnan(y) else minimum(x, y))

    def maxnum(x: float, y: float) -> float:
        return y if math.isnan(x) else (x if math.isnan(y) else maximum(x, y))

    def add(x: float, y: float) -> float:
        return n(x + y)

    def sub(x: float, y: float) -> float:
        return n(x - y)

    def mul(x: float, y: float) -> float:
        return n(x * y)

    return {"arith.addf": add, "arith.subf": sub, "arith.mulf": mul, "arith.divf": div,
            "arith.minimumf": minimum, "arith.maximumf": maximum, "arith.minnumf": minnum,
            "arith.maxnumf": maxnum}


FLOAT_BINARY = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.minimumf", "arith.maximumf",
                "arith.minnumf", "arith.maxnumf")


@handler(*FLOAT_BINARY)
def _float_binary(d: FunctionDecoder, op: Operation) -> Step:
    kind = d.kind(op, op.results[0])
    if not kind.is_float:
        raise d.fail(op, f"{op.name} needs float operands")
    return _binary(d, op, _float_ops(kind)[op.name])


@handler("arith.negf")
def _negf(d: FunctionDecoder, op: Operation) -> Step:
    a, r = d.use(op.operands[0]), d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = -regs[a]

    return step


_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@handler("arith.cmpi")
def _cmpi(d: FunctionDecoder, op: Operation) -> Step:
    kind = d.kind(op, op.operands[0])
    pred = _CMPI[op.predicate.value.data]  # type: ignore[attr-defined]
    s, u = kind.signed_value, kind.unsigned
    tests: dict[str, Callable[[int, int], bool]] = {
        "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
        "slt": lambda x, y: s(x) < s(y), "sle": lambda x, y: s(x) <= s(y),
        "sgt": lambda x, y: s(x) > s(y), "sge": lambda x, y: s(x) >= s(y),
        "ult": lambda x, y: u(x) < u(y), "ule": lambda x, y: u(x) <= u(y),
        "ugt": lambda x, y: u(x) > u(y), "uge": lambda x, y: u(x) >= u(y),
    }
    test = tests[pred]
    return _binary(d, op, lambda x, y: int(test(x, y)))


_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
         "uno", "true")


def _cmpf_test(pred: str) -> Callable[[float, float], bool]:
    if pred in ("false", "true"):
        value = pred == "true"
        return lambda x, y: value
    if pred in ("ord", "uno"):
        unordered = pred == "uno"
        return lambda x, y: (math.isnan(x) or math.isnan(y)) == unordered
    base = {"eq": lambda x, y: x == y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
            "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "ne": lambda x, y: x != y}[pred[1:]]
    if pred[0] == "o":
        return lambda x, y: not (math.isnan(x) or math.isnan(y)) and base(x, y)
    return lambda x, y: math.isnan(x) or math.isnan(y) or base(x, y)


@handler("arith.cmpf")
def _cmpf(d: FunctionDecoder, op: Operation) -> Step:
    test = _cmpf_test(_CMPF[op.predicate.value.data])  # type: ignore[attr-defined]
    return _binary(d, op, lambda x, y: int(test(x, y)))


@handler("arith.select")
def _select(d: FunctionDecoder, op: Operation) -> Step:
    c, a, b = (d.use(v) for v in op.operands)
    r = d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = regs[a] if regs[c] else regs[b]

    return step


# --- conversions -------------------------------------------------------------------------------------------
def _unary(d: FunctionDecoder, op: Operation, fn: Callable[[Any], Any]) -> Step:
    a, r = d.use(op.operands[0]), d.define(op.results[0])

    def step(regs: list[Any]) -> None:
        regs[r] = fn(regs[a])

    return step


def _float_to_int(src: ScalarKind, dst: ScalarKind, signed: bool) -> Callable[[float], int]:
    low = -(1 << (dst.width - 1)) if signed else 0
    high = (1 << (dst.width - 1)) - 1 if signed else (1 << dst.width) - 1

    def convert(x: float) -> int:
        if math.isnan(x) or math.isinf(x) or not low <= math.trunc(x) <= high:
            raise ExecutionError(f"{x} {src.name} does not fit {'signed' if signed else 'unsigned'} {dst.name}")
        return dst.norm(math.trunc(x))

    return convert


_BITS = {16: "e", 32: "f", 64: "d"}


def _bitcast(src: ScalarKind, dst: ScalarKind) -> Callable[[Any], Any]:
    def to_bits(x: Any) -> int:
        if not src.is_float:
            return src.unsigned(x)
        if src.name not in ("f16", "f32", "f64"):
            raise ExecutionError(f"bitcast from {src.name} is not supported")
        return int.from_bytes(struct.pack("<" + _BITS[src.width], x), "little")

    def from_bits(bits: int) -> Any:
        if not dst.is_float:
            return dst.norm(bits)
        if dst.name not in ("f16", "f32", "f64"):
            raise ExecutionError(f"bitcast to {dst.name} is not supported")
        return struct.unpack("<" + _BITS[dst.width], bits.to_bytes(dst.width // 8, "little"))[0]

    return lambda x: from_bits(to_bits(x))


@handler("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp",
         "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast")
def _convert(d: FunctionDecoder, op: Operation) -> Step:
    src, dst = d.kind(op, op.operands[0]), d.kind(op, op.results[0])
    fns: dict[str, Callable[[Any], Any]] = {
        "arith.index_cast": lambda x: dst.norm(src.signed_value(x) if src.width > 1 else -x),
        "arith.index_castui": lambda x: dst.norm(src.unsigned(x)),
        "arith.extsi": lambda x: dst.norm(src.signed_value(x) if src.width > 1 else -x),
        "arith.extui": lambda x: dst.norm(src.unsigned(x)),
        "arith.trunci": lambda x: dst.norm(x),
        "arith.sitofp": lambda x: int_to_float(dst, src.signed_value(x) if src.width > 1 else -x),
        "arith.uitofp": lambda x: int_to_float(dst, src.unsigned(x)),
        "arith.extf": lambda x: x,
        "arith.truncf": lambda x: dst.norm(x),
    }
    if op.name in ("arith.fptosi", "arith.fptoui"):
        return _unary(d, op, _float_to_int(src, dst, op.name == "arith.fptosi"))
    if op.name == "arith.bitcast":
        return _unary(d, op, _bitcast(src, dst))
    return _unary(d, op, fns[op.name])


@handler("builtin.unrealized_conversion_cast")
def _unrealized_cast(d: FunctionDecoder, op: Operation) -> Step:
    """One integer scalar to an integer type of the same width (PTOAS writes `%c0_i32 : i32 to ui32` before a
    pto.tci on uint32): the same bits, read as the new type. Anything else is refused."""
    if len(op.operands) != 1 or len(op.results) != 1:
        raise d.fail(op, "only a cast of one value to one value is supported")
    src, dst = d.kind(op, op.operands[0]), d.kind(op, op.results[0])
    if src.is_float or dst.is_float or src.width != dst.width:
        raise d.fail(op, f"only casts between integer types of one width are supported ({src.name} to {dst.name})")
    return _unary(d, op, lambda x: dst.norm(src.unsigned(x)))
