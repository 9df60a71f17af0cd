"""The interpreter's decode-time plans against the general paths they stand in for, on random cases: TLOAD /
TSTORE copy plans (`loader`, `storer`) against `tload` / `tstore`, constant-size partitions (`Partition`)
against `View.partition`, views made from a static ViewShape against the view code as it was before plans,
make_tensor_view with constant sizes against the same op with run-time sizes, and `Tile.fresh` against `Tile`.
Same bytes, same written flags, same exception types and messages."""

from __future__ import annotations

import random
from math import prod
from typing import Any

import numpy as np
import pytest

import ptoisa
from ptoisa.errors import NotModelledError, OutOfBoundsError, TileSpecError
from interp_helpers import not_alone
from ptoisa.interp import load
from ptoisa.interp.memory import GlobalTensor, Partition, View, ViewShape, loader, storer, tload, tstore
from ptoisa.tile.enums import BLayout, TileType
from ptoisa.tile.tile import Tile, default_valid, window

CASES = 600


def _outcome(fn: Any) -> tuple[str, str] | None:
    """None when fn() returns, else the exception's type name and message."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return type(exc).__name__, str(exc)
    return None


# --- random tiles, tensors and views ---------------------------------------------------------------------------
_DTYPES = (np.float32, np.int32, np.float16, np.uint8)


def _spec(rng: random.Random) -> Any:
    """A plain (ND or DN) Vec tile type with static or dynamic valid sizes the core accepts."""
    while True:
        dtype = rng.choice(_DTYPES)
        layout = rng.choice((BLayout.RowMajor, BLayout.ColMajor))
        unit = 32 // np.dtype(dtype).itemsize  # 32-byte rows (row-major) or columns (col-major)
        rows, cols = (rng.choice((1, 2, 4, 8)), unit * rng.choice((1, 2))) if layout is BLayout.RowMajor else \
            (unit * rng.choice((1, 2)), rng.choice((1, 2, 4, 8)))
        vr = rng.choice((-1, rows, rng.randint(0, rows)))
        vc = rng.choice((-1, cols, rng.randint(0, cols)))
        try:
            return Tile[TileType.Vec, dtype, rows, cols, layout, vr, vc]
        except TileSpecError:
            continue


def _tile(rng: random.Random, spec: Any) -> Tile:
    """A tile of `spec` with random valid sizes (where dynamic) and random bytes; sometimes a window of a wider
    parent (its storage then is not one contiguous run)."""
    valid = [rng.randint(0, spec.rows) if spec.valid_row == -1 else None,
             rng.randint(0, spec.cols) if spec.valid_col == -1 else None]
    if rng.random() < 0.25 and spec.valid_row != -1 and spec.valid_col != -1:
        wide = Tile[TileType.Vec, spec.np_dtype.type, spec.rows * 2, spec.cols * 2, spec.blayout]()
        wide.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(wide.spec.nbytes), np.uint8)
        return window(wide, spec, rng.randint(0, spec.rows), rng.randint(0, spec.cols))
    tile = Tile(spec, *[v for v in valid if v is not None])
    tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(spec.nbytes), np.uint8)
    return tile


def _tensor(rng: random.Random, dtype: Any, size: int) -> GlobalTensor:
    data = np.frombuffer(rng.randbytes(size * np.dtype(dtype).itemsize), dtype).copy()
    return GlobalTensor("g", data)


def _view_shape(rng: random.Random, tile: Tile) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sizes and strides: mostly the tile's valid region, else larger, smaller, reshaped or of another rank;
    strides mostly row-major with padding, sometimes overlapping, zero, DN-like or column-strided."""
    vr, vc = tile.valid_shape
    rows, cols = rng.choice([(vr, vc)] * 4 + [(vr + rng.randint(0, 3), vc + rng.randint(0, 3)),
                                              (max(vr - 1, 0), vc), (vc, vr), (1, vr * vc), (vr * vc, 1)])
    pick = rng.random()
    if pick < 0.6:
        strides = (cols + rng.choice((0, 0, 1, 5)), 1)
    elif pick < 0.7:
        strides = (rng.randint(0, cols), 1)  # overlapping or repeated rows
    elif pick < 0.8:
        strides = (1, rows + rng.randint(0, 2))  # DN
    else:
        strides = (cols * 2 + 1, rng.choice((1, 2)))
    shape: tuple[int, ...] = (rows, cols)
    if rng.random() < 0.2:  # rank 3, one or several leading planes (folded into rows)
        planes = rng.choice((1, 1, 2))
        shape, strides = (planes, rows, cols), (rows * strides[0] + rng.randint(0, 3), *strides)
    elif rng.random() < 0.05:
        shape, strides = (rows * cols,), (1,)
    return shape, strides


def _case(seed: int, tensor_dtype: Any = None) -> tuple[Tile, GlobalTensor, ViewShape, int]:
    rng = random.Random(seed)
    tile = _tile(rng, _spec(rng))
    shape, strides = _view_shape(rng, tile)
    kind = ViewShape(shape, strides)
    reach = kind.reach if kind.reach >= 0 else 0
    dtype = tensor_dtype or (tile.spec.np_dtype if rng.random() < 0.85 else rng.choice(_DTYPES))
    size = reach + 1 + rng.randint(0, 40)
    offset = rng.randint(0, size - reach - 1)
    if rng.random() < 0.05:
        offset = size - reach  # one past the end: place refuses it
    return tile, _tensor(rng, dtype, size), kind, offset


def _twin(tile: Tile) -> Tile:
    """An independent tile with the same type, valid sizes and bytes (a window keeps its stride pattern)."""
    if tile.storage.ndim == 1:
        copy = Tile(tile.spec, *[v for v, s in zip(tile.valid_shape, (tile.spec.valid_row, tile.spec.valid_col),
                                                    strict=True) if s == -1])
        copy.storage[:] = tile.storage
        return copy
    parent = Tile.__new__(Tile)
    parent.spec, parent.binding = tile.spec, None
    base = tile.view.base
    while base.base is not None:
        base = base.base
    clone = base.copy()
    parent.storage = np.ndarray(tile.view.shape, tile.view.dtype, clone,
                                tile.view.__array_interface__["data"][0] - base.__array_interface__["data"][0],
                                tile.view.strides)
    parent.view = parent.storage
    parent._valid_row, parent._valid_col = tile.valid_shape
    return parent


def _tile_bytes(tile: Tile) -> bytes:
    """The tile's storage (or, for a window, its parent's whole buffer)."""
    base = tile.view.base if tile.storage.ndim != 1 else tile.storage
    while base is not None and base.base is not None:
        base = base.base
    return (base if base is not None else tile.storage).tobytes()


@pytest.mark.parametrize("start", range(0, CASES, CASES // 6))
def test_load_plan_matches_tload(start: int) -> None:
    for seed in range(start, start + CASES // 6):
        tile, tensor, kind, offset = _case(seed)
        placed = _outcome(lambda kind=kind, tensor=tensor, offset=offset: kind.place(tensor, offset))
        if placed is not None:
            continue
        fast_tile, slow_tile = tile, _twin(tile)
        fast = _outcome(lambda: loader(fast_tile.spec)(kind.place(tensor, offset), fast_tile))
        slow = _outcome(lambda: tload(kind.place(tensor, offset), slow_tile))
        assert fast == slow, seed
        assert _tile_bytes(fast_tile) == _tile_bytes(slow_tile), seed


@pytest.mark.parametrize("start", range(0, CASES, CASES // 6))
def test_store_plan_matches_tstore(start: int) -> None:
    for seed in range(start, start + CASES // 6):
        tile, tensor, kind, offset = _case(seed)
        if _outcome(lambda: kind.place(tensor, offset)) is not None:
            continue
        twin = GlobalTensor("g", tensor.array.copy())
        fast = _outcome(lambda: storer(tile.spec)(tile, kind.place(tensor, offset)))
        slow = _outcome(lambda: tstore(tile, kind.place(twin, offset)))
        assert fast == slow, seed
        assert tensor.flat.tobytes() == twin.flat.tobytes(), seed
        assert tensor.written == twin.written, seed


@pytest.mark.parametrize("offset", [0, 40, 64, 65, 10_000])
def test_plans_of_empty_regions_match_the_general_path(offset: int) -> None:
    """An empty view is not bounds-checked (memref.reinterpret_cast may put it anywhere): the plans leave empty
    regions to the general path, which raises where it raised."""
    spec = Tile[TileType.Vec, np.float32, 4, 8, BLayout.RowMajor, -1, -1]
    for valid, shape in (((0, 8), (0, 8)), ((4, 0), (4, 0)), ((0, 0), (0, 0))):
        tensor = GlobalTensor("g", np.arange(64, dtype=np.float32))
        view = View(tensor, offset, ViewShape(shape, (8, 1)))
        fast_tile, slow_tile = Tile(spec, *valid), Tile(spec, *valid)
        assert _outcome(lambda: loader(spec)(view, fast_tile)) == _outcome(lambda: tload(view, slow_tile))
        assert _outcome(lambda: storer(spec)(fast_tile, view)) == _outcome(lambda: tstore(slow_tile, view))


def test_plans_take_every_path() -> None:
    """The random cases reach the slice copy, the 2-D copy from the row grid, the strided fallback and the
    general path (a guard on the generator: a test that never reaches a path checks nothing about it)."""
    reached = set()
    for seed in range(CASES):
        tile, tensor, kind, offset = _case(seed)
        if _outcome(lambda: kind.place(tensor, offset)) is not None:
            continue
        vr, vc = tile.valid_shape
        if kind.row_stride is None or kind.rows < vr or kind.cols < vc or tensor.flat.dtype != tile.spec.np_dtype:
            reached.add("general")
        elif tile.spec.is_row_major and (vr <= 1 or kind.row_stride == vc == tile.spec.cols) \
                and tile.storage.ndim == 1:
            reached.add("slice")
        elif 0 < vc <= kind.row_stride and offset % kind.row_stride + vc <= kind.row_stride:
            reached.add("grid")
        else:
            reached.add("strided")
    assert reached == {"general", "slice", "grid", "strided"}


def test_window_matches_a_strided_view() -> None:
    rng = random.Random(7)
    for _ in range(400):
        size = rng.randint(1, 200)
        tensor = _tensor(rng, np.int32, size)
        rows, cols = rng.randint(0, 6), rng.randint(0, 6)
        stride = rng.randint(0, 12)
        reach = (rows - 1) * stride + cols - 1 if rows and cols else 0
        if reach >= size:
            continue
        offset = rng.randint(0, size - reach - 1)
        got = tensor.window(offset, rows, cols, stride)
        want = np.ndarray((rows, cols), np.int32, tensor.flat, offset * 4, (stride * 4, 4))
        assert np.array_equal(got, want)
        if rows and cols:  # a view of the caller's memory, not a copy
            assert np.shares_memory(got, tensor.flat)


# --- partitions ------------------------------------------------------------------------------------------------
def test_partition_plan_matches_view_partition() -> None:
    rng = random.Random(11)
    parts: dict[tuple[int, ...], Partition] = {}
    tensor = _tensor(rng, np.float32, 4096)
    parents = []
    for _ in range(12):
        rank = rng.choice((1, 2, 2, 3))
        shape = tuple(rng.randint(0, 9) for _ in range(rank))
        strides = tuple(rng.randint(0, 12) for _ in range(rank))
        parents.append(ViewShape(shape, strides).place(tensor, rng.randint(0, 100)))
    for _ in range(3000):
        parent = rng.choice(parents)
        rank = len(parent.shape) if rng.random() < 0.9 else rng.choice((1, 2, 3))
        sizes = tuple(rng.randint(-1, 9) for _ in range(rank))
        part = parts.setdefault(sizes, Partition(sizes))  # shared between parents: the cache is switched
        offsets = tuple(rng.randint(-2, 10) for _ in range(rank if rng.random() < 0.95 else rank + 1))
        fast = _outcome(lambda: part(parent, offsets))
        slow = _outcome(lambda: parent.partition(offsets, sizes))
        assert fast == slow, (parent, offsets, sizes)
        if len(offsets) == 2:
            assert _outcome(lambda: part.at2(parent, *offsets)) == slow
        if fast is None:
            got, want = part(parent, offsets), parent.partition(offsets, sizes)
            assert (got.tensor, got.offset, got.shape, got.strides, got.layout) == \
                   (want.tensor, want.offset, want.shape, want.strides, want.layout)
            if len(offsets) == 2:
                two = part.at2(parent, *offsets)
                assert (two.offset, two.shape, two.strides) == (want.offset, want.shape, want.strides)


# --- views made from a static ViewShape --------------------------------------------------------------------------
def _make_before_plans(tensor: GlobalTensor, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
                       layout: str) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """View.make as it was before ViewShape (the checks in their order, the same messages)."""
    if layout == "nz":
        raise NotModelledError("NZ global tensor layouts are not modelled by the interpreter (use nd or dn)")
    if any(s < 0 for s in shape):
        raise OutOfBoundsError(f"view of %{tensor.name}: negative size in {list(shape)}")
    if any(s < 0 for s in strides):
        raise OutOfBoundsError(f"view of %{tensor.name}: negative stride in {list(strides)}")
    if prod(shape):
        last = offset + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
        if offset < 0 or last >= tensor.size:
            raise OutOfBoundsError(
                f"view of %{tensor.name} (offset {offset}, sizes {list(shape)}, strides {list(strides)}) "
                f"reaches elements [{offset}, {last}] but %{tensor.name} holds {tensor.size} elements")
    return offset, shape, strides


def test_view_shape_place_matches_the_checks_before_plans() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        rank = rng.choice((0, 1, 2, 2, 3))
        shape = tuple(rng.randint(-1, 8) for _ in range(rank))
        strides = tuple(rng.randint(-1, 10) for _ in range(rank))
        layout = rng.choice(("nd", "nd", "dn", "nz"))
        tensor = GlobalTensor("t", np.zeros(rng.randint(1, 120), np.int16))
        offset = rng.randint(-2, 60)
        kind = ViewShape(shape, strides, layout)  # made once, placed on any tensor at any offset
        fast = _outcome(lambda: kind.place(tensor, offset))
        slow = _outcome(lambda: _make_before_plans(tensor, offset, shape, strides, layout))
        assert fast == slow, (shape, strides, layout, offset, tensor.size)
        if fast is None:
            view = kind.place(tensor, offset)
            assert (view.offset, view.shape, view.strides, view.layout) == (offset, shape, strides, layout)
            assert view.matrix_shape == ((1, 1) if not shape else
                                         (prod(shape[:-1]), shape[-1]))


# --- make_tensor_view with constant sizes against run-time sizes -------------------------------------------------
def _copy_kernel(static: bool, dims: tuple[int, int], part: tuple[int, int]) -> Any:
    """y[window] = x[window] through a 16x16 f32 tile: the views' sizes and strides and the tile's valid sizes
    are constants (static) or run-time values (the kernel's index arguments, alloc_tile operands); the ops sit on
    the same lines either way."""
    consts = ("%r = arith.constant {0} : index\n    %c = arith.constant {1} : index\n"
              "    %s0 = arith.constant {2} : index\n    %s1 = arith.constant {3} : index")
    args = "%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %o0: index, %o1: index"
    args += "" if static else ", %r: index, %c: index, %s0: index, %s1: index"
    d0, d1 = ("?" if d < 0 else str(d) for d in dims)
    p0, p1 = part
    tv = f"!pto.tensor_view<{d0}x{d1}xf32>"
    pv = f"!pto.partition_tensor_view<{p0}x{p1}xf32>"
    wide = f"!pto.partition_tensor_view<{p0}x{p1 + 1}xf32>"  # loads the top-left part of a wider window
    tile = f"!pto.tile_buf<vec, 16x16xf32, valid={p0}x{p1}>" if static else "!pto.tile_buf<vec, 16x16xf32, valid=?x?>"
    sized = "" if static else " valid_row = %p0 valid_col = %p1"
    body = (f"    {consts}\n" if static else "    // sizes from arguments\n\n\n\n") + f"""
    %p0 = arith.constant {p0} : index
    %p1 = arith.constant {p1} : index
    %w1 = arith.constant {p1 + 1} : index
    %tx = pto.make_tensor_view %x, shape = [%r, %c], strides = [%s0, %s1] : {tv}
    %ty = pto.make_tensor_view %y, shape = [%r, %c], strides = [%s0, %s1] : {tv}
    %vx = pto.partition_view %tx, offsets = [%o0, %o1], sizes = [%p0, %w1] : {tv} -> {wide}
    %vy = pto.partition_view %ty, offsets = [%o0, %o1], sizes = [%p0, %p1] : {tv} -> {pv}
    %t = pto.alloc_tile{sized} : {tile}
    pto.tload ins(%vx : {wide}) outs(%t : {tile})
    pto.tstore ins(%t : {tile}) outs(%vy : {pv})
    return"""
    return body, args


def test_static_views_match_run_time_views() -> None:
    rng = random.Random(3)
    programs: dict[Any, Any] = {}
    for _ in range(120):
        dims = (rng.choice((-1, 6, 8)), rng.choice((-1, 16, 20)))
        part = (rng.randint(1, 6), rng.randint(1, 16))
        rows, cols = rng.randint(1, 9), rng.randint(1, 20)
        if rng.random() < 0.6:
            rows, cols = (dims[0] if dims[0] > 0 else rows), (dims[1] if dims[1] > 0 else cols)
        s0, s1 = cols + rng.choice((0, 0, 3)), rng.choice((1, 1, 1, 2))
        offsets = rng.randint(0, 3), rng.randint(0, 5)
        size = rng.randint(40, 400)
        x = np.arange(size, dtype=np.float32)
        outs = []
        for static in (True, False):
            key = (static, dims, part, (rows, cols, s0, s1) if static else None)
            if key not in programs:
                body, args = _copy_kernel(static, dims, part)
                if static:
                    body = body.format(rows, cols, s0, s1)
                text = (f'module {{\n  func.func @k({args}) {{\n{body}\n  }}\n}}\n')
                programs[key] = load(text, target="cpu")
            y = np.full(size, -1.0, np.float32)
            extra = () if static else (rows, cols, s0, s1)
            try:
                programs[key].run(x, y, *offsets, *extra)
                outs.append((None, y.tobytes()))
            except ptoisa.PtoError as exc:
                outs.append(((type(exc).__name__, str(exc), exc.__notes__[0].split(" at ")[0]), y.tobytes()))
        assert outs[0] == outs[1], (dims, part, rows, cols, s0, s1, offsets, size)


# --- alloc_tile ----------------------------------------------------------------------------------------------------
def test_fresh_tiles_are_tiles() -> None:
    rng = random.Random(1)
    for _ in range(200):
        spec = _spec(rng)
        made, fresh = Tile(spec), Tile.fresh(spec, *default_valid(spec))
        assert (fresh.spec, fresh.valid_shape, fresh.binding) == (made.spec, made.valid_shape, made.binding)
        assert fresh.storage.dtype == made.storage.dtype and fresh.storage.shape == made.storage.shape
        assert fresh.tobytes() == made.tobytes()
        assert fresh.view.shape == made.view.shape and fresh.view.strides == made.view.strides
        assert not np.shares_memory(fresh.storage, made.storage)


# --- warning sites ---------------------------------------------------------------------------------------------------
def test_the_site_is_set_per_instruction_and_cleared_after_the_run() -> None:
    """Warnings name the op they come from (a Site set per instruction, the context variable once per run); after
    the run, also one stopped by a warning turned error, calls from Python name no site."""
    import warnings
    from pathlib import Path

    from ptoisa.errors import ErratumWarning
    from ptoisa.isa._check import current_site

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    program = load(kernel, target="a2a3")
    x = np.arange(1024, dtype=np.float32).reshape(64, 16) / 8 - 40
    args = (x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8), 2.0, 100.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program.run(*args)
    sites = {str(w.message).split("[")[1].split("]")[0] for w in caught if issubclass(w.category, ErratumWarning)}
    assert sites == {f"pto.tcmps at {kernel}:31:7"}
    assert current_site() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ptoisa.PtoError) as info:  # the run stops at the op, which the error names
            program.run(*args)
    assert isinstance(info.value.__cause__, ErratumWarning)
    assert current_site() is None
    src = Tile[TileType.Vec, np.float32, 16, 16](data=np.full((16, 16), 200.0, np.float32))
    dst = Tile[TileType.Vec, np.uint8, 16, 32, BLayout.RowMajor, 16, 2]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ptoisa.TCMPS(dst, src, 1.0, ptoisa.CmpMode.GT, target="a2a3")
    assert caught and all("[" not in str(w.message).split(":")[0] for w in caught)


# --- integer arithmetic ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["arith.addi", "arith.subi", "arith.muli"])
@pytest.mark.parametrize("type_", ["i1", "i8", "ui8", "si16", "i32", "ui32", "i64", "index"])
def test_wrapping_steps_match_the_generic_integer_ops(op: str, type_: str) -> None:
    """addi / subi / muli wrap only out of range; the result equals the generic op's on random and edge values."""
    from ptoisa.interp.ops_arith import _int_ops
    from ptoisa.interp.scalars import from_python

    program = load(not_alone(f"func.func @k(%x: {type_}, %y: {type_}) -> {type_} {{\n"
                             f"  %r = {op} %x, %y : {type_}\n  return %r : {type_}\n}}\n"))
    arg = program.arguments()[0]
    kind = arg.scalar_kind
    low = -(1 << (kind.width - 1)) if kind.signed else 0
    high = (1 << (kind.width - (1 if kind.signed else 0))) - 1
    edges = [low, low + 1, -1, 0, 1, high - 1, high]
    rng = random.Random(type_ + op)
    values = [v for v in edges if low <= v <= high] + [rng.randint(low, high) for _ in range(60)]
    reference = _int_ops(kind)[op]
    for x in values:
        for y in rng.sample(values, 12):
            got = program.run(x, y).returns[0]
            want = reference(from_python(kind, x, "x"), from_python(kind, y, "y"))
            assert got == want, (x, y)


# --- run() arguments -----------------------------------------------------------------------------------------------
def test_block_pairs_taken_as_given_only_when_valid() -> None:
    """`block=` / `subblock=` pairs of plain ints skip the general checks; everything else gets them (NumPy ints
    give the same pair, bools and out-of-range pairs the same errors)."""
    from ptoisa.interp.errors import ArgumentError
    from ptoisa.interp.program import _pair

    for value in [(0, 1), (3, 8), (0, 2), (7, 8), (2**63 - 2, 2**63 - 1)]:
        assert _pair(value) == _pair(tuple(np.int64(v) for v in value)) == value
    for value, message in [((0, 0), r"block index 0 must be in \[0, 0\)"), ((-1, 3), r"block index -1"),
                           ((2, 2), r"block index 2"), ((False, True), "pair of integers"),
                           ((0, True), "pair of integers"), ((0, 1, 2), "pair of integers"),
                           ((0.0, 1), "pair of integers"), ([0, 1], "pair of integers"),
                           ((0, 2**63), "block count 9223372036854775808 does not fit the i64"),
                           ((2**64, 2**64 + 1), "does not fit the i64"), (2**63 - 1, "does not fit the i64")]:
        with pytest.raises(ArgumentError, match=message):
            _pair(value)


def test_window_of_a_callers_rows_matches_a_strided_view() -> None:
    """A caller's 2-D array whose row length is the window's row stride serves as the row grid itself; other
    arrays (another row length, 3-D, transposed or strided: copied in and back; read-only) get a grid of their
    own. Every window is the strided view of `flat` and writes through it reach `flat`."""
    rng = random.Random(11)
    for _ in range(300):
        rows_in, cols_in = rng.randint(1, 9), rng.randint(1, 6)
        base = np.arange(rows_in * cols_in * 2, dtype=np.int32).reshape(rows_in, cols_in * 2)
        array = rng.choice([base[:, :cols_in * 2].copy(), base.copy().reshape(rows_in * 2, cols_in),
                            base.copy().reshape(1, rows_in, cols_in * 2), base.T, base[:, ::2]])
        if rng.random() < 0.2:
            array = array.copy()
            array.flags.writeable = False
        tensor = GlobalTensor("g", array)
        size = tensor.size
        for _ in range(4):
            stride = rng.choice([array.shape[-1]] * 3 + [rng.randint(1, 8)])
            rows, cols = rng.randint(0, 5), rng.randint(0, stride)
            reach = (rows - 1) * stride + cols - 1 if rows and cols else 0
            if reach >= size:
                continue
            offset = rng.randint(0, size - reach - 1)
            got = tensor.window(offset, rows, cols, stride)
            want = np.ndarray((rows, cols), np.int32, tensor.flat, offset * 4, (stride * 4, 4))
            assert np.array_equal(got, want)
            if rows and cols:
                assert np.shares_memory(got, tensor.flat)
                if tensor.flat.flags.writeable:
                    got[...] = -7
                    assert (want == -7).all()
