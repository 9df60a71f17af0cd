"""The interpreter's steps written for speed against the general code they stand in for: alloc_tile's tiles
against `Tile(spec)`, TLOAD / TSTORE steps run in loops (the same tile met turn after turn, its valid shape
changed at run time, views of several kinds) against `tload` / `tstore` on twin tiles and tensors, and the
instruction steps that set their warning site themselves against the wrapped form (poison mode)."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from interp_helpers import not_alone
from ptoisa.dtypes import DType
from ptoisa.errors import ErratumWarning, NotModelledError, OutOfBoundsError
from ptoisa.interp import load
from ptoisa.interp.memory import NO_PART, GlobalTensor, View, ViewShape, load_step, store_step, tload, tstore
from ptoisa.tile.enums import BLayout, TileType
from ptoisa.tile.tile import Tile, window

# --- alloc_tile --------------------------------------------------------------------------------------------------
_TYPES = ["vec, 16x16xf32", "vec, 16x32xui8, valid=16x2", "vec, 16x16xf32, valid=8x16", "vec, 1x16xi32",
          "vec, 128x64xf32", "vec, 16x16xf16",
          "mat, 16x32xi8, valid=16x16, blayout=col_major, slayout=row_major",
          "loc=bias, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, "
          "fractal=512, pad=0",
          "loc=left, dtype=f16, rows=32, cols=64, v_row=32, v_col=64, blayout=col_major, slayout=row_major, "
          "fractal=512, pad=0"]


@pytest.mark.parametrize("fill", ["zero", "nan", 7])
def test_alloc_tile_makes_the_tiles_tile_makes(fill: object) -> None:
    """Every slot of the tile alloc_tile makes (static valid sizes on plain row-major tiles are built in the
    step) equals `Tile(spec)`'s, but for fresh storage of its own filled with the run's fill byte."""
    types = [f"!pto.tile_buf<{t}>" for t in _TYPES]
    allocs = "\n".join(f"  %t{i} = pto.alloc_tile : {t}" for i, t in enumerate(types))
    text = (f"func.func @k() -> ({', '.join(types)}) {{\n{allocs}\n"
            f"  return {', '.join(f'%t{i}' for i in range(len(types)))} : {', '.join(types)}\n}}\n")
    program = load(not_alone(text))
    first = program.run(fill=fill).returns
    second = program.run(fill=fill).returns
    byte = {"zero": 0, "nan": 0xFF}.get(fill, fill)  # type: ignore[call-overload]
    for got, again in zip(first, second, strict=True):
        want = Tile(got.spec)
        assert type(got) is Tile
        assert (got.spec, got.valid_shape, got.binding) == (want.spec, want.valid_shape, want.binding)
        assert got.storage.dtype == want.storage.dtype and got.storage.shape == want.storage.shape
        assert got.storage.flags.c_contiguous and got.storage.flags.writeable
        assert (got.view is None) == (want.view is None)
        if got.view is not None:
            assert got.view.shape == want.view.shape and got.view.strides == want.view.strides
            assert np.shares_memory(got.view, got.storage)
        assert got.storage.view(np.uint8).tolist() == [byte] * got.spec.nbytes
        assert not np.shares_memory(got.storage, again.storage)  # every run gets its own tiles
        assert (got.storage.base is None) == (want.storage.base is None)  # large ones: staggered, as `Tile`'s


# --- TLOAD / TSTORE steps met again and again ------------------------------------------------------------------------
class _Env:
    poison = None


def _random_tile(rng: random.Random, spec: object, twin: bool = False) -> tuple[Tile, Tile]:
    """A tile of `spec` (sometimes a window of a wider tile) with random bytes, and an independent copy."""
    if rng.random() < 0.3 and spec.valid_row != -1:  # type: ignore[attr-defined]
        wide = Tile[TileType.Vec, spec.np_dtype.type, spec.rows * 2, spec.cols * 2, spec.blayout]()  # type: ignore[attr-defined]
        wide.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(wide.spec.nbytes), np.uint8)
        copy = Tile(wide.spec)
        copy.storage[:] = wide.storage
        r, c = rng.randint(0, spec.rows), rng.randint(0, spec.cols)  # type: ignore[attr-defined]
        pair = window(wide, spec, r, c), window(copy, spec, r, c)  # type: ignore[arg-type]
        _PARENTS[id(pair[0])], _PARENTS[id(pair[1])] = (pair[0], wide), (pair[1], copy)
        return pair
    tile = Tile(spec)  # type: ignore[arg-type]
    tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(tile.spec.nbytes), np.uint8)
    copy = Tile(spec)  # type: ignore[arg-type]
    copy.storage[:] = tile.storage
    return tile, copy


def _outcome(fn: object) -> tuple[str, str] | None:
    try:
        fn()  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return type(exc).__name__, str(exc)
    return None


def _storage_bytes(tile: Tile) -> bytes:
    """The bytes of the tile's storage, or of its parent's for a window (the whole parent: a step must not write
    outside the window)."""
    held = _PARENTS.get(id(tile))
    return (held[1] if held is not None and held[0] is tile else tile).storage.tobytes()


_PARENTS: dict[int, tuple[Tile, Tile]] = {}
"""id of a window made by _random_tile -> (the window, its parent); holding the window keeps its id its own (a few
hundred small tiles over the module's tests)."""


@pytest.mark.parametrize("seed", range(8))
def test_steps_met_again_match_the_general_copies(seed: int) -> None:
    """One TLOAD step and one TSTORE step per tile type, each run many times in a row (as in a loop) on the
    same tile or a new one, with valid shapes changed at run time between calls, views of changing kinds and
    offsets (row-major and DN, padded rows, too small, other element types, past the tensor's end): the same
    bytes, written flags and errors as `tload` / `tstore` on twins."""
    rng = random.Random(seed)
    for dtype, layout in ((np.float32, BLayout.RowMajor), (np.uint8, BLayout.RowMajor), (np.float16, BLayout.ColMajor),
                          (np.int32, BLayout.RowMajor)):
        unit = 32 // np.dtype(dtype).itemsize
        rows, cols = (rng.choice((2, 4, 16)), unit * rng.choice((1, 2))) if layout is BLayout.RowMajor else \
            (unit, rng.choice((2, 4)))
        spec = Tile[TileType.Vec, dtype, rows, cols, layout, -1, -1] if rng.random() < 0.5 else \
            Tile[TileType.Vec, dtype, rows, cols, layout]
        load_, store_ = load_step(spec, 1, 2, 3), store_step(spec, 1, 2, 3)
        env = _Env()
        # one frame per step, kept from call to call as a loop's is (each step's scratch slot keeps its last cut)
        load_frame, store_frame = [env, None, None, NO_PART], [env, None, None, NO_PART]
        tile, twin = _random_tile(rng, spec)
        size = rows * cols * 4 + 64
        tensor_dtype = dtype
        array = np.frombuffer(rng.randbytes(size * np.dtype(dtype).itemsize), dtype).copy()
        fast_t, slow_t = GlobalTensor("g", array.copy()), GlobalTensor("g", array.copy())
        for _ in range(60):
            pick = rng.random()
            if pick < 0.15:
                tile, twin = _random_tile(rng, spec)
            elif pick < 0.35 and spec.dynamic_row and type(tile) is Tile:
                vr, vc = rng.randint(0, rows), rng.randint(0, cols)
                tile.SetValidShape(vr, vc)
                twin.SetValidShape(vr, vc)
            elif pick < 0.4:
                tensor_dtype = rng.choice((dtype, dtype, np.float32, np.int16))
                data = np.frombuffer(rng.randbytes(size * np.dtype(tensor_dtype).itemsize), tensor_dtype).copy()
                fast_t, slow_t = GlobalTensor("g", data.copy()), GlobalTensor("g", data.copy())
            vr, vc = tile.valid_shape
            vrows, vcols = rng.choice([(vr, vc)] * 5 + [(vr + 1, vc), (vr, vc + 3), (max(vr - 1, 0), vc), (vc, vr)])
            s0 = rng.choice((vcols, vcols, vcols + rng.randint(1, 9), 0))
            shape, strides = ((vrows, vcols), (s0, 1)) if rng.random() < 0.8 else ((vrows, vcols), (1, vrows + 1))
            kind = ViewShape(shape, strides)
            reach = max(kind.reach, 0)
            if reach >= size:
                continue
            offset = rng.randint(0, size - reach - 1) if rng.random() < 0.95 else size - reach
            placed = _outcome(lambda: kind.place(fast_t, offset))
            if placed is not None:
                assert placed[0] == OutOfBoundsError.__name__
                continue
            fast_view, slow_view = View(fast_t, offset, kind), View(slow_t, offset, kind)
            if rng.random() < 0.5:
                load_frame[1:3] = fast_view, tile
                fast = _outcome(lambda: load_(load_frame))
                slow = _outcome(lambda: tload(slow_view, twin))
            else:
                store_frame[1:3] = tile, fast_view
                fast = _outcome(lambda: store_(store_frame))
                slow = _outcome(lambda: tstore(twin, slow_view))
            assert fast == slow, seed
            assert _storage_bytes(tile) == _storage_bytes(twin), seed
            assert fast_t.flat.tobytes() == slow_t.flat.tobytes(), seed
            assert fast_t.written == slow_t.written, seed


@pytest.mark.parametrize("seed", range(6))
def test_steps_cut_again_when_the_tile_or_its_shape_changes(seed: int) -> None:
    """A TLOAD / TSTORE step copying part of a tile keeps its cut of the tile in its frame: run in one frame many
    times, over a few tiles that share valid shapes (new tiles, windows of wider tiles with a valid shape of their
    own, a tile given new storage as TASSIGN gives it, valid shapes set at run time and back), every call moves the
    bytes `tload` / `tstore` move on twins, no more (the kept cut of another tile, or of another shape, would
    move the wrong ones)."""
    rng = random.Random(100 + seed)
    for dtype, rows, cols in ((np.float32, 8, 16), (np.uint8, 16, 32), (np.float16, 4, 32)):
        spec = Tile[TileType.Vec, dtype, rows, cols, BLayout.RowMajor, -1, -1]
        wide_spec = Tile[TileType.Vec, dtype, rows * 2, cols * 2, BLayout.RowMajor]
        shapes = [(rows, cols - 2), (rows - 1, cols), (rows // 2, 2), (rows, cols), (1, cols - 1)]
        load_, store_ = load_step(spec, 1, 2, 3), store_step(spec, 1, 2, 3)
        env = _Env()
        load_frame, store_frame = [env, None, None, NO_PART], [env, None, None, NO_PART]

        def fresh() -> tuple[Tile, Tile]:
            vr, vc = rng.choice(shapes)
            if rng.random() < 0.3:
                wide = Tile(wide_spec)
                wide.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(wide_spec.nbytes), np.uint8)
                twin_wide = Tile(wide_spec)
                twin_wide.storage[:] = wide.storage
                r, c = rng.randint(0, rows), rng.randint(0, cols)
                pair = window(wide, spec, r, c, (vr, vc)), window(twin_wide, spec, r, c, (vr, vc))
                _PARENTS[id(pair[0])], _PARENTS[id(pair[1])] = (pair[0], wide), (pair[1], twin_wide)
                return pair
            tile, twin = Tile(spec, vr, vc), Tile(spec, vr, vc)
            tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(spec.nbytes), np.uint8)
            twin.storage[:] = tile.storage
            return tile, twin

        pool = [fresh() for _ in range(3)]
        size = rows * cols * 6
        fast_t = GlobalTensor("g", np.frombuffer(rng.randbytes(size * np.dtype(dtype).itemsize), dtype).copy())
        slow_t = GlobalTensor("g", fast_t.flat.copy())
        moves = 0
        for _ in range(80):
            pick = rng.random()
            if pick < 0.15:
                pool[rng.randrange(3)] = fresh()
            elif pick < 0.3:
                tile, twin = rng.choice(pool)
                if type(tile) is Tile:  # new storage, as TASSIGN binds it
                    storage = np.frombuffer(rng.randbytes(spec.nbytes), dtype).copy()
                    tile.attach(storage)
                    twin.attach(storage.copy())
            elif pick < 0.45:
                tile, twin = rng.choice(pool)
                if type(tile) is Tile:
                    vr, vc = rng.choice(shapes)
                    tile.SetValidShape(vr, vc)
                    twin.SetValidShape(vr, vc)
            tile, twin = rng.choice(pool)
            vr, vc = tile.valid_shape
            stride = rng.choice((vc, vc, cols, cols * 2))
            kind = ViewShape((vr, vc), (stride, 1))
            offset = rng.randint(0, size - kind.reach - 1)
            fast_view, slow_view = View(fast_t, offset, kind), View(slow_t, offset, kind)
            if rng.random() < 0.5:
                load_frame[1:3] = fast_view, tile
                assert _outcome(lambda: load_(load_frame)) == _outcome(lambda: tload(slow_view, twin)), seed
            else:
                store_frame[1:3] = tile, fast_view
                assert _outcome(lambda: store_(store_frame)) == _outcome(lambda: tstore(twin, slow_view)), seed
            moves += load_frame[3] is not NO_PART or store_frame[3] is not NO_PART
            assert _storage_bytes(tile) == _storage_bytes(twin), seed
            assert fast_t.flat.tobytes() == slow_t.flat.tobytes(), seed
        assert moves, "no step took the cut path"


@pytest.mark.parametrize("seed", range(6))
def test_steps_met_again_with_the_same_view_kind_and_tensor(seed: int) -> None:
    """As a loop meets them: the views' kinds are a few ViewShape objects met again and again (a constant-size
    partition's), on the same tensor, while what the step's copy plan also depends on changes under it (the
    tile, its storage as TASSIGN gives it new storage, its valid shape, the tensor now and then), and the offset
    changes every call, up to the last one the tensor allows: the same bytes, written flags and errors as
    `tload` / `tstore` on twins (a plan kept past such a change would copy to or from the wrong place), for
    tiles of every element size and of the types NumPy holds only through ml_dtypes or as raw bytes."""
    rng = random.Random(300 + seed)
    for element, rows, cols in ((np.float32, 8, 16), (np.uint8, 16, 32), (np.float16, 4, 32), (np.int32, 4, 8),
                                (DType.BF16, 4, 16), (DType.HIF8, 8, 32), (DType.F8E4M3, 4, 32),
                                (DType.F8E8M0, 2, 32), (np.int8, 2, 32), (np.uint16, 4, 16)):
        spec = Tile[TileType.Vec, element, rows, cols, BLayout.RowMajor, -1, -1]
        dtype = spec.np_dtype
        load_, store_ = load_step(spec, 1, 2, 3), store_step(spec, 1, 2, 3)
        env = _Env()
        load_frame, store_frame = [env, None, None, NO_PART], [env, None, None, NO_PART]
        shapes = [(rows, cols), (rows, cols - 1), (rows - 1, cols), (rows // 2, 2), (1, cols)]
        kinds = {}  # (rows, cols, row stride) -> the one ViewShape of that shape
        size = rows * cols * 5 + 3

        def tensors() -> tuple[GlobalTensor, GlobalTensor]:
            data = np.frombuffer(rng.randbytes(size * np.dtype(dtype).itemsize), dtype).copy()
            return GlobalTensor("g", data), GlobalTensor("g", data.copy())

        def tiles() -> tuple[Tile, Tile]:
            tile, twin = Tile(spec, *rng.choice(shapes)), None
            tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(spec.nbytes), np.uint8)
            twin = Tile(spec, *tile.valid_shape)
            twin.storage[:] = tile.storage
            return tile, twin

        fast_t, slow_t = tensors()
        pool = [tiles() for _ in range(2)]
        for _ in range(120):
            pick = rng.random()
            tile, twin = rng.choice(pool)
            if pick < 0.1:
                pool[rng.randrange(2)] = tiles()
            elif pick < 0.2:  # new storage, as TASSIGN binds it
                storage = np.frombuffer(rng.randbytes(spec.nbytes), dtype).copy()
                tile.attach(storage)
                twin.attach(storage.copy())
            elif pick < 0.35:
                vr, vc = rng.choice(shapes)
                tile.SetValidShape(vr, vc)
                twin.SetValidShape(vr, vc)
            elif pick < 0.4:
                fast_t, slow_t = tensors()
            tile, twin = rng.choice(pool)
            vr, vc = tile.valid_shape if rng.random() < 0.8 else rng.choice(shapes)
            stride = rng.choice((vc, cols, cols + 3))
            kind = kinds.setdefault((vr, vc, stride), ViewShape((vr, vc), (stride, 1)))
            last = size - 1 - kind.reach
            offset = rng.choice((0, last, rng.randint(0, last), rng.randint(0, last)))
            fast_view, slow_view = View(fast_t, offset, kind), View(slow_t, offset, kind)
            if rng.random() < 0.5:
                load_frame[1:3] = fast_view, tile
                assert _outcome(lambda: load_(load_frame)) == _outcome(lambda: tload(slow_view, twin)), seed
            else:
                store_frame[1:3] = tile, fast_view
                assert _outcome(lambda: store_(store_frame)) == _outcome(lambda: tstore(twin, slow_view)), seed
            assert tile.storage.tobytes() == twin.storage.tobytes(), seed
            assert fast_t.flat.tobytes() == slow_t.flat.tobytes(), seed
            assert fast_t.written == slow_t.written, seed


def test_scale_compare_blocks_match_the_api() -> None:
    """The shipped kernel, block by block, against the same instructions called from Python on tiles loaded
    with NumPy: the scaled rows and the packed mask bytes, also with a block count set at run time (a longer
    tensor) and data with NaNs, infinities and -0.0."""
    import ptoisa
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto").read_text()
    rng = np.random.default_rng(3)
    for blocks in (4, 7):
        rows = 16 * blocks
        src = text.replace("64x16", f"{rows}x16").replace("64x2", f"{rows}x2") \
            .replace("%c64 = arith.constant 64", f"%c64 = arith.constant {rows}") \
            .replace("%c4 = arith.constant 4", f"%c4 = arith.constant {blocks}")
        x = (rng.standard_normal((rows, 16)) * 80).astype(np.float32)
        x.reshape(-1)[rng.choice(rows * 16, 12, replace=False)] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 50.0,
                                                                 50.0000038, 3e38, -3e38, 1e-45, np.nan, 49.99]
        scaled, mask = np.full((rows, 16), 7, np.float32), np.full((rows, 2), 0xA5, np.uint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ErratumWarning)
            ptoisa.interp.load(src).run(x, scaled, mask, 2.0, 100.0)
            T = Tile[TileType.Vec, np.float32, 16, 16]
            factor, prod = T(), T()
            bits = Tile[TileType.Vec, np.uint8, 16, 32, BLayout.RowMajor, 16, 2]()
            ptoisa.TEXPANDS(factor, 2.0, target="a2a3")
            for b in range(blocks):
                block = T(data=x[16 * b:16 * b + 16])
                ptoisa.TPARTMUL(prod, block, factor, target="a2a3")
                ptoisa.TCMPS(bits, prod, 100.0, ptoisa.CmpMode.GT, target="a2a3")
                assert scaled[16 * b:16 * b + 16].tobytes() == prod.view.tobytes()
                assert mask[16 * b:16 * b + 16].tobytes() == bits.view[:, :2].tobytes()


# --- instruction steps -----------------------------------------------------------------------------------------------
def test_instruction_steps_name_their_site_in_every_mode() -> None:
    """TCMPS and TPARTMUL set the warning site themselves (and hand poison mode to the wrapped step): the same
    warnings, sites and bytes with fill="nan" and fill="poison"."""
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[2] / "examples" / "pto" / "run_scale_compare.pto"
    program = load(kernel, target="a2a3")
    x = np.arange(1024, dtype=np.float32).reshape(64, 16) / 8 - 40
    outs = []
    for fill in ("nan", "poison"):  # both fill tiles with 0xFF bytes
        args = (x, np.zeros((64, 16), np.float32), np.zeros((64, 2), np.uint8), 2.0, 100.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program.run(*args, fill=fill)
        outs.append(([str(w.message) for w in caught], args[1].tobytes(), args[2].tobytes()))
    assert outs[0] == outs[1]
    assert outs[0][0] and all(f"[pto.tcmps at {kernel}:31:7]" in m for m in outs[0][0])


# --- partition views moved turn after turn ---------------------------------------------------------------------------
_PARTS = """module {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>, %n: index, %step: index, %col: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv_a = pto.make_tensor_view %a, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %tv_b = pto.make_tensor_view %b, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<16x64xf32>
    %tv_o = pto.make_tensor_view %out, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.muli %i, %step : index
      %rem = arith.remsi %i, %c2 : index
      %even = arith.cmpi eq, %rem, %c0 : index
      %src = scf.if %even -> (!pto.tensor_view<?x?xf32>) {
        scf.yield %tv_b : !pto.tensor_view<16x64xf32>
      } else {
        scf.yield %tv_a : !pto.tensor_view<64x16xf32>
      }
      %pv = pto.partition_view %src, offsets = [%row, %col], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
      %po = pto.partition_view %tv_o, offsets = [%row, %col], sizes = [%c4, %c8] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<4x8xf32>
      pto.tload ins(%pv : !pto.partition_tensor_view<4x8xf32>) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
      pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%po : !pto.partition_tensor_view<4x8xf32>)
      pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%pv : !pto.partition_tensor_view<4x8xf32>)
    }
    return
  }
}
"""


def _expected_parts(a: np.ndarray, b: np.ndarray, out: np.ndarray, n: int, step: int, col: int) -> str | None:
    """What _PARTS does, in NumPy (a, b, out changed in place): None, or the SSA name of the partition that
    leaves its tensor on the first turn that has one (that turn copies nothing)."""
    views, o = (b.reshape(16, 64), a.reshape(64, 16)), out.reshape(64, 16)
    for i in range(n):
        row = i * step
        src = views[i % 2]
        for name, whole in (("%pv", src), ("%po", o)):
            if row + 4 > whole.shape[0] or col + 8 > whole.shape[1]:
                return name
        block = src[row:row + 4, col:col + 8].copy()
        o[row:row + 4, col:col + 8] = block
        src[row:row + 4, col:col + 8] = block
    return None


def test_partition_views_moved_each_turn_match_numpy() -> None:
    """A partition whose view only TLOAD / TSTORE read is moved turn after turn; its parent alternates between
    two tensors of different shapes (each turn's view must be of the right tensor and kind): the same bytes as
    NumPy's slices, and a partition leaving its tensor is refused at that partition_view, after the turns
    before it and with nothing of its turn copied."""
    program = load(_PARTS)
    lines = {name: 1 + next(i for i, line in enumerate(_PARTS.splitlines()) if line.strip().startswith(name + " "))
             for name in ("%pv", "%po")}
    rng = np.random.default_rng(5)
    seen = set()
    for n, step, col in ((6, 4, 0), (9, 1, 8), (12, 3, 4), (5, 4, 9), (20, 4, 0), (16, 4, 8), (3, 7, 2)):
        a, b = rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)
        out = np.zeros(1024, np.float32)
        want_a, want_b, want_out = a.copy(), b.copy(), out.copy()
        refused = _expected_parts(want_a, want_b, want_out, n, step, col)
        seen.add(refused)
        if refused is None:
            program.run(a, b, out, n, step, col)
        else:
            with pytest.raises(OutOfBoundsError, match="partition_view") as info:
                program.run(a, b, out, n, step, col)
            assert info.value.__notes__[-1].startswith(f"in pto.partition_view at <string>:{lines[refused]}:")
        for got, want in ((a, want_a), (b, want_b), (out, want_out)):
            assert got.tobytes() == want.tobytes(), (n, step, col)
    assert seen == {None, "%pv", "%po"}


_CARRIED = """module {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    %tv0 = pto.make_tensor_view %a, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %pv0 = pto.partition_view %tv0, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<4x8xf32>
    %last = scf.for %i = %c1 to %n step %c1 iter_args(%prev = %pv0) -> (!pto.partition_tensor_view<4x8xf32>) {
      %rem = arith.remsi %i, %c2 : index
      %even = arith.cmpi eq, %rem, %c0 : index
      %p = scf.if %even -> (!pto.ptr<f32>) {
        scf.yield %a : !pto.ptr<f32>
      } else {
        scf.yield %b : !pto.ptr<f32>
      }
      %tv = pto.make_tensor_view %p, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
      %row = arith.muli %i, %c4 : index
      %pv = pto.partition_view %tv, offsets = [%row, %c0], sizes = [%c4, %c8] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<4x8xf32>
      pto.tload ins(%prev : !pto.partition_tensor_view<4x8xf32>) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
      pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%pv : !pto.partition_tensor_view<4x8xf32>)
      scf.yield %pv : !pto.partition_tensor_view<4x8xf32>
    }
    return
  }
}
"""
_SAME_KIND = _CARRIED.replace("%last = scf.for %i = %c1 to %n step %c1 iter_args(%prev = %pv0) -> "
                              "(!pto.partition_tensor_view<4x8xf32>) {", "scf.for %i = %c1 to %n step %c1 {") \
    .replace("pto.tload ins(%prev", "pto.tload ins(%pv0").replace(
        "      scf.yield %pv : !pto.partition_tensor_view<4x8xf32>\n", "")


@pytest.mark.parametrize(("carried", "alternate"), [(True, False), (True, True), (False, True), (False, False)])
def test_partition_views_of_alternating_tensors_and_carried_views(carried: bool, alternate: bool) -> None:
    """Partitions made by one op of views of one kind over two tensors in turn (the moved View must follow the
    tensor), and a partition view carried to the next turn by scf.yield (not moved: the next turn reads it
    where it was): the same bytes as NumPy."""
    assert "iter_args" not in _SAME_KIND and "%prev" not in _SAME_KIND
    text = _CARRIED if carried else _SAME_KIND
    if not alternate:
        text = text.replace("scf.yield %b : !pto.ptr<f32>", "scf.yield %a : !pto.ptr<f32>")
    program = load(text)
    for n in (1, 2, 5, 16):
        a, b = np.arange(1024, dtype=np.float32), -np.arange(1024, dtype=np.float32) - 0.5
        want = [a.reshape(64, 16).copy(), b.reshape(64, 16).copy()]
        prev = want[0][0:4, 0:8]
        for i in range(1, n):
            dst = want[i % 2 if alternate else 0][4 * i:4 * i + 4, 0:8]
            dst[...] = prev.copy() if carried else want[0][0:4, 0:8]
            prev = dst
        program.run(a, b, n)
        assert a.tobytes() == want[0].tobytes() and b.tobytes() == want[1].tobytes(), n


# --- make_tensor_view of constant sizes ------------------------------------------------------------------------------
@pytest.mark.parametrize(("rows", "cols", "layout"), [(4, 8, "nd"), (0, 8, "nd"), (1, 1, "nd"), (4, 8, "nz"),
                                                     (0, 8, "nz"), (4, 8, "dn")])
def test_constant_tensor_views_refuse_as_place_does(rows: int, cols: int, layout: str) -> None:
    """A make_tensor_view of constant sizes on tensors of every size around the view's reach: made where
    `ViewShape.place` makes it, refused with its error (and the op's location) where it refuses (NZ: never
    made)."""
    text = f"""func.func @k(%x: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = arith.constant {rows} : index
  %c = arith.constant {cols} : index
  %tv = pto.make_tensor_view %x, shape = [%r, %c], strides = [%c, %c1] {{layout = #pto.layout<{layout}>}} : !pto.tensor_view<{rows}x{cols}xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c0, %c0] : !pto.tensor_view<{rows}x{cols}xf32> -> !pto.partition_tensor_view<0x0xf32>
  return
}}
"""
    program = load(text)
    kind = ViewShape((rows, cols), (cols, 1), layout)
    for size in range(0, rows * cols + 3):
        tensor = GlobalTensor("x", np.zeros(size, np.float32))
        want = _outcome(lambda: kind.place(tensor, 0))
        got = _outcome(lambda: program.run(np.zeros(size, np.float32)))
        assert got == want, size
        if want is not None:
            with pytest.raises((OutOfBoundsError, NotModelledError)) as info:
                program.run(np.zeros(size, np.float32))
            assert info.value.__notes__[-1].startswith("in pto.make_tensor_view at <string>:6:")
