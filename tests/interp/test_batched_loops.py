"""Batched scf.for loops (interp/batch.py): a loop whose body ops all have a batch form runs each op once over all
its turns. Held against the same program run sequentially (batching switched off: `batch.BATCH_FROM` past any
turn count), in every decoding (`three_decodings`: as loaded, fused bodies, plain) and on every target: the same
bytes in every tensor and every tile (tiles passed in as arguments, with random bytes outside their valid
regions too), the same warnings, the same op count, the same errors. Random loop shapes: turn counts 1..70,
lower bounds and steps, row and column offsets affine in the induction variable, valid regions, and bodies drawn
from TLOAD, TEXPANDS, TPARTMUL (equal and partial patterns), TCMPS, TADD / TMULS (record instructions: whole-tile
ufuncs) and TSTORE. Each condition that refuses batching is shown to take the sequential path (no batched run)
with the same results: overlapping store windows, a window leaving its view at turn k, a tile read before the
turn writes it, two tiles sharing memory, a signature that may announce an erratum."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from interp_helpers import three_decodings
from ptoisa.interp import batch
from ptoisa.targets import make_config
from ptoisa.tile.spec import make_spec
from ptoisa.tile.tile import Tile
from ptoisa import TileType, BLayout

TARGETS = ("cpu", "a2a3", "a5")
ROWS, COLS = 640, 48  # the tensors x and y: ROWS x COLS f32; m: ROWS x 8 ui8


def _kernel(tr: int, tc: int, valid: tuple[int, int], part: tuple[int, int], body: list[str],
            lo: str = "%lo", dt: str = "f32") -> str:
    """A loop over %i from %lo to %n step %st; row offset %i * %rs + %r0, column offset %i * %cs + %c0 (index
    arguments). Tiles (arguments): %a, %b, %c f32 tr x tc valid `valid`, %p f32 with valid `part` (a partial
    source of TPARTMUL), %bits ui8 tr x 32 valid tr x ceil(valid cols / 8). `dt`: the element type of x, y, the
    four f32 tiles and %s (f32 as written here)."""
    vr, vc = valid
    t = f"!pto.tile_buf<vec, {tr}x{tc}xf32, valid={vr}x{vc}>"
    tp = f"!pto.tile_buf<vec, {tr}x{tc}xf32, valid={part[0]}x{part[1]}>"
    tb = f"!pto.tile_buf<vec, {tr}x32xui8, valid={vr}x{-(-vc // 8)}>"
    pv = f"!pto.partition_tensor_view<{vr}x{vc}xf32>"
    pm = f"!pto.partition_tensor_view<{vr}x{-(-vc // 8)}xui8>"
    tv = f"!pto.tensor_view<{ROWS}x{COLS}xf32>"
    tm = f"!pto.tensor_view<{ROWS}x8xui8>"
    types = {"T": t, "P": tp, "B": tb, "PV": pv, "PM": pm}
    lines = "\n".join("      " + line.format(**types) for line in body)
    vb = -(-vc // 8)
    return _element(dt, f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %m: !pto.ptr<ui8>, %a: {t}, %b: {t}, %c: {t}, %p: {tp},
               %bits: {tb}, %s: f32, %lo: index, %n: index, %st: index, %rs: index, %r0: index, %cs: index,
               %c0: index) {{
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %kr = arith.constant {ROWS} : index
    %kc = arith.constant {COLS} : index
    %k8 = arith.constant 8 : index
    %svr = arith.constant {vr} : index
    %svc = arith.constant {vc} : index
    %svb = arith.constant {vb} : index
    %vx = pto.make_tensor_view %x, shape = [%kr, %kc], strides = [%kc, %k1] : {tv}
    %vy = pto.make_tensor_view %y, shape = [%kr, %kc], strides = [%kc, %k1] : {tv}
    %vm = pto.make_tensor_view %m, shape = [%kr, %k8], strides = [%k8, %k1] : {tm}
    scf.for %i = {lo} to %n step %st {{
      %ri = arith.muli %i, %rs : index
      %row = arith.addi %ri, %r0 : index
      %ci = arith.muli %i, %cs : index
      %col = arith.addi %ci, %c0 : index
      %px = pto.partition_view %vx, offsets = [%row, %col], sizes = [%svr, %svc] : {tv} -> {pv}
      %py = pto.partition_view %vy, offsets = [%row, %col], sizes = [%svr, %svc] : {tv} -> {pv}
      %pm = pto.partition_view %vm, offsets = [%row, %k0], sizes = [%svr, %svb] : {tm} -> {pm}
{lines}
    }}
    return
  }}
}}
""")


def _element(dt: str, text: str) -> str:
    return text.replace("f32", dt)


NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16}


OPS = {
    "load_a": "pto.tload ins(%px : {PV}) outs(%a : {T})",
    "load_b": "pto.tload ins(%px : {PV}) outs(%b : {T})",
    "expand_b": "pto.texpands ins(%s : f32) outs(%b : {T})",
    "partmul": "pto.tpartmul ins(%a, %b : {T}, {T}) outs(%c : {T})",
    "partmul_partial": "pto.tpartmul ins(%a, %p : {T}, {P}) outs(%c : {T})",
    "cmps": "pto.tcmps ins(%c, %s {{cmpMode = #pto<cmp gt>}} : {T}, f32) outs(%bits : {B})",
    "cmps_a": "pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp le>}} : {T}, f32) outs(%bits : {B})",
    "add": "pto.tadd ins(%a, %b : {T}, {T}) outs(%c : {T})",
    "muls": "pto.tmuls ins(%a, %s : {T}, f32) outs(%c : {T})",
    "store_c": "pto.tstore ins(%c : {T}) outs(%py : {PV})",
    "store_a": "pto.tstore ins(%a : {T}) outs(%py : {PV})",
    "store_bits": "pto.tstore ins(%bits : {B}) outs(%pm : {PM})",
    "sync": "pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]",
}


def _tiles(rng: np.random.Generator, tr: int, tc: int, valid: tuple[int, int], part: tuple[int, int],
           dt: str = "f32") -> list[Tile]:
    vr, vc = valid
    t = make_spec((TileType.Vec, NP[dt], tr, tc, BLayout.RowMajor, vr, vc))
    tp = make_spec((TileType.Vec, NP[dt], tr, tc, BLayout.RowMajor, *part))
    tb = make_spec((TileType.Vec, np.uint8, tr, 32, BLayout.RowMajor, vr, -(-vc // 8)))
    tiles = [Tile(t), Tile(t), Tile(t), Tile(tp), Tile(tb)]
    for tile in tiles:
        tile.storage.view(np.uint8)[...] = rng.integers(0, 256, tile.storage.nbytes, dtype=np.uint8)
        if tile.storage.dtype.kind == "f":  # finite values (NaN payloads are not what is compared here)
            tile.storage[...] = rng.normal(0, 4, tile.storage.size).astype(tile.storage.dtype)
    return tiles


def _run(program: Any, target: str, args: list[Any], batched: bool, alias: bool = False,
         read_only: int | None = None) -> tuple[Any, ...]:
    """One run on copies of `args` (tiles too): (outcome, the bytes of every array and tile, the warnings, how
    many loops ran batched). `alias`: the second tile argument's storage is the first's (two tiles, one buffer).
    `read_only`: the position of an argument (array or tile) whose copy cannot be written."""
    arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    tiles = []
    for i, a in enumerate(arrays):
        if isinstance(a, Tile):
            copy = Tile.__new__(Tile)
            copy.spec, copy._valid_row, copy._valid_col, copy.binding = a.spec, a._valid_row, a._valid_col, None
            copy.attach(a.storage.copy() if not (alias and len(tiles) == 1) else tiles[0].storage[:])
            arrays[i] = copy
            tiles.append(copy)
        if i == read_only:
            (arrays[i].storage if isinstance(a, Tile) else arrays[i]).flags.writeable = False
    before = batch.batched_runs[0]
    saved = batch.BATCH_FROM
    batch.BATCH_FROM = 1 if batched else 1 << 62
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = program.run(*arrays, target=target)
                outcome: Any = (sorted(result.outputs), result.ops_executed)
            except Exception as exc:  # noqa: BLE001 - compared, not handled
                outcome = (type(exc).__name__, str(exc), getattr(exc, "__notes__", None))
    finally:
        batch.BATCH_FROM = saved
    data = [a.tobytes() for a in arrays if isinstance(a, np.ndarray)] + [t.storage.tobytes() for t in tiles]
    return outcome, data, [(w.category.__name__, str(w.message)) for w in caught], \
        batch.batched_runs[0] - before


def _args(rng: np.random.Generator, tiles: list[Tile], scalar: float, lo: int, n: int, st: int, rs: int, r0: int,
          cs: int, c0: int, dt: str = "f32") -> list[Any]:
    x = rng.normal(0, 8, (ROWS, COLS)).astype(NP[dt])
    y = rng.normal(0, 1, (ROWS, COLS)).astype(NP[dt])
    m = rng.integers(0, 256, (ROWS, 8), dtype=np.uint8)
    value: Any = scalar if dt.startswith("f") else int(scalar * 4)
    return [x, y, m, *tiles, value, lo, n, st, rs, r0, cs, c0]


def _compare(text: str, args: list[Any], monkeypatch: Any, expect_batched: bool | None,
             read_only: int | None = None) -> int:
    """Every decoding on every target, batched against sequential; returns how many runs were batched."""
    batched_runs = 0
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False, read_only=read_only)
            batched = _run(program, target, args, True, read_only=read_only)
            assert sequential[3] == 0
            assert batched[:3] == sequential[:3], (target, text)
            batched_runs += batched[3]
            if expect_batched is not None:
                assert bool(batched[3]) == expect_batched, (target, batched[3])
    return batched_runs


BODIES = [
    ["load_a", "sync", "expand_b", "partmul", "cmps", "store_c", "store_bits"],
    ["load_a", "load_b", "add", "store_c"],
    ["load_a", "muls", "store_c", "cmps_a", "store_bits"],
    ["expand_b", "load_a", "partmul_partial", "store_c"],
    ["load_a", "store_a"],
    ["load_b", "load_a", "add", "cmps", "store_bits", "store_c"],
]


@pytest.mark.parametrize("seed", range(40))
def test_random_loops_batched_as_run_in_turn(seed: int, monkeypatch: Any) -> None:
    pyrng = random.Random(seed)
    rng = np.random.default_rng(seed)
    body = BODIES[seed % len(BODIES)]
    dt = ("f32", "f32", "f16", "i32", "i16")[seed % 5]  # (BODIES and these cycle apart: 6 and 5)
    tr, tc = pyrng.choice(((4, 8), (8, 16), (2, 8), (1, 16)))
    tc *= 4 // np.dtype(NP[dt]).itemsize  # (rows of a multiple of 32 bytes)
    vr, vc = pyrng.choice(((tr, tc), (tr, tc), (tr, tc), (tr, tc - 3), (max(tr - 1, 1), tc), (1, 8)))
    part = (pyrng.randint(1, vr), pyrng.randint(1, vc))
    turns = pyrng.choice((1, 2, 3, 5, 8, 17, 40, 70))
    st = pyrng.choice((1, 1, 2, 3))
    lo = pyrng.randint(0, 3)
    n = lo + turns * st
    # mostly row blocks (some with a column drift), some column blocks, some overlapping (refused), inside the
    # views or leaving them at some turn (refused too)
    shape = pyrng.random()
    if shape < 0.6:
        rs, cs = -(-vr // st) * pyrng.choice((1, 1, 2)), pyrng.choice((0, 0, 0, 1))
    elif shape < 0.8:
        rs, cs = 0, -(-vc // st)
    else:
        rs, cs = pyrng.randint(0, vr), pyrng.randint(0, 2)
    if (n - 1) * cs + vc > COLS:
        cs = 0
    if (n - 1) * rs + vr > ROWS and pyrng.random() < 0.8:  # (else a window leaves the view at some turn)
        rs = (ROWS - vr) // max(n - 1, 1)
    span_r = (n - 1) * rs + vr
    span_c = (n - 1) * cs + vc
    r0 = pyrng.randint(0, max(ROWS - span_r, 0))
    c0 = pyrng.randint(0, max(COLS - span_c, 0))
    tiles = _tiles(rng, tr, tc, (vr, vc), part, dt)
    text = _kernel(tr, tc, (vr, vc), part, [OPS[o] for o in body], dt=dt)
    args = _args(rng, tiles, float(pyrng.choice((0.5, -1.25, 2.0))), lo, n, st, rs, r0, cs, c0, dt)
    read_only = pyrng.choice((None,) * 10 + (1, 3, 5, 7))  # y, a, c, bits (drawn last: the shapes stay)
    _compare(text, args, monkeypatch, None, read_only)


def test_the_shipped_shape_runs_batched_on_cpu(monkeypatch: Any) -> None:
    """Row blocks of a scale / compare body run batched on cpu with every decoding; on a2a3 its TCMPS (16 valid
    columns of f32: a repeat tail) may announce erratum tcmps_repeat_tail per call, on a5 tcmps_chunk_tail:
    sequential there."""
    rng = np.random.default_rng(7)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in BODIES[0]])
    args = _args(rng, tiles, 0.5, 0, 16, 1, 4, 0, 0, 0)
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False)
            batched = _run(program, target, args, True)
            assert batched[:3] == sequential[:3]
            assert batched[3] == (1 if target == "cpu" else 0), target
            if target == "a2a3":
                assert any("tcmps_repeat_tail" in w[1] for w in batched[2])


def _refused(body: list[str], monkeypatch: Any, *, rs: int = 4, cs: int = 0, r0: int = 0, c0: int = 0,
             turns: int = 6, valid: tuple[int, int] = (4, 16), tiles: list[Tile] | None = None,
             targets_batched: int = 0) -> None:
    rng = np.random.default_rng(3)
    tiles = tiles if tiles is not None else _tiles(rng, 4, 16, valid, valid)
    text = _kernel(4, 16, valid, valid, [OPS[o] for o in body])
    args = _args(rng, tiles, 0.5, 0, turns, 1, rs, r0, cs, c0)
    assert _compare(text, args, monkeypatch, None) == targets_batched


def test_a_body_that_batches_is_batched(monkeypatch: Any) -> None:
    """The refusals below change one thing of this loop, which runs batched on every target and decoding."""
    _refused(["load_a", "muls", "store_c"], monkeypatch, targets_batched=9)


def test_overlapping_store_windows_run_in_turn(monkeypatch: Any) -> None:
    """Row offsets 2 apart, windows 4 rows high: each turn's store overwrites half the last one's."""
    _refused(["load_a", "muls", "store_c"], monkeypatch, rs=2)


def test_a_store_meeting_another_turns_load_runs_in_turn(monkeypatch: Any) -> None:
    """y's windows are disjoint from each other; the load of y one row block ahead reads what a later turn
    stores... here: the store of turn k writes the rows turn k + 1 loads (x is y)."""
    rng = np.random.default_rng(5)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS["load_a"], OPS["muls"],
                                             "pto.tstore ins(%c : {T}) outs(%pz : {PV})"])
    text = text.replace("      %py = pto.partition_view",
                        "      %rz = arith.addi %row, %svr : index\n"
                        "      %pz = pto.partition_view %vx, offsets = [%rz, %col], sizes = [%svr, %svc] : "
                        f"!pto.tensor_view<{ROWS}x{COLS}xf32> -> !pto.partition_tensor_view<4x16xf32>\n"
                        "      %py = pto.partition_view")
    args = _args(rng, tiles, 0.5, 0, 6, 1, 4, 0, 0, 0)
    assert _compare(text, args, monkeypatch, False) == 0


def test_a_window_leaving_its_view_at_turn_k_runs_in_turn(monkeypatch: Any) -> None:
    """Column blocks: turn 2 of 3 places its 16-column window at column 48 of the 48-column views (its elements
    lie in the tensors, on the next rows, apart from the other turns' windows): refused there by partition_view,
    with the earlier turns' stores done, as the sequential loop does; the same loop over 2 turns runs batched;
    and row blocks whose last window leaves the tensors too."""
    rng = np.random.default_rng(9)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in ("load_a", "muls", "store_c")])
    for turns, rs, r0, cs, c0 in ((3, 0, 8, 16, 16), (2, 0, 8, 16, 16), (17, 4, 576, 0, 0)):
        args = _args(rng, tiles, 0.5, 0, turns, 1, rs, r0, cs, c0)
        for program in three_decodings(text, monkeypatch):
            for target in TARGETS:
                sequential = _run(program, target, args, False)
                batched = _run(program, target, args, True)
                assert batched[:3] == sequential[:3]
                assert (sequential[0][0] == "OutOfBoundsError") == (turns != 2)
                assert batched[3] == (turns == 2)


def test_a_tile_read_before_the_turn_writes_it_runs_in_turn(monkeypatch: Any) -> None:
    """The TADD reads b before the turn's TLOAD writes it (b holds the turn before's rows); then a running sum,
    c = c + a (c carries from turn to turn)."""
    _refused(["load_a", "add", "load_b", "store_c"], monkeypatch)
    body = ["load_a", "pto.tadd ins(%c, %a : {T}, {T}) outs(%c : {T})", "store_c"]
    rng = np.random.default_rng(4)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS.get(o, o) for o in body])
    assert _compare(text, _args(rng, tiles, 0.5, 0, 6, 1, 4, 0, 0, 0), monkeypatch, False) == 0


def test_tiles_sharing_memory_run_in_turn(monkeypatch: Any) -> None:
    """b's storage is a's (two tiles over one buffer): the TLOAD into a changes b too."""
    rng = np.random.default_rng(6)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in ("expand_b", "load_a", "add", "store_c")])
    args = _args(rng, tiles, 0.5, 0, 6, 1, 4, 0, 0, 0)
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False, alias=True)
            batched = _run(program, target, args, True, alias=True)
            assert batched[:3] == sequential[:3] and batched[3] == 0
    assert _compare(text, args, monkeypatch, True)  # (apart, the same loop runs batched)


def test_a_read_only_argument_runs_in_turn(monkeypatch: Any) -> None:
    """A read-only y (the tensor stored to) or c (the tile the TMULS writes): the sequential loop refuses at the
    first write of it (naming that op), with what the turn did before it done; a batch writes tiles back after
    every store. Each runs in turn: the same error, bytes and warnings; writable, the loop batches."""
    rng = np.random.default_rng(13)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in ("load_a", "muls", "store_c")])
    args = _args(rng, tiles, 0.5, 0, 16, 1, 4, 0, 0, 0)
    for position, op in ((1, "pto.tstore"), (5, "pto.tmuls")):  # y, c
        for program in three_decodings(text, monkeypatch):
            for target in TARGETS:
                sequential = _run(program, target, args, False, read_only=position)
                batched = _run(program, target, args, True, read_only=position)
                assert batched[:3] == sequential[:3] and batched[3] == 0, (target, op)
                assert sequential[0][0] == "ExecutionError" and f"(e.g. a copy) (in {op} at" in sequential[0][1]
    assert _compare(text, args, monkeypatch, True) == 9


def test_a_loop_past_the_step_limit_is_refused_by_it_batched_or_not(monkeypatch: Any) -> None:
    """2^61 turns over one fixed window (every turn loads and stores the same rows): the step limit refuses the
    loop before it starts, in turn and batched alike. Before, the batch made its turns' window offsets (2^61 of
    them) while checking the loop: NumPy's 'array is too big' as an ExecutionError, or a MemoryError for 2^40."""
    rng = np.random.default_rng(14)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in ("load_a", "muls", "store_c")])
    args = _args(rng, tiles, 0.5, 0, 2**61, 1, 0, 0, 0, 0)
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False)
            batched = _run(program, target, args, True)
            assert batched[:3] == sequential[:3] and batched[3] == 0, (target, batched[0])
            assert sequential[0][0] == "LimitError" and "op steps (--max-steps)" in sequential[0][1]


def test_an_erratum_capable_signature_runs_in_turn(monkeypatch: Any) -> None:
    """a2a3 TCMPS over 16 valid f32 columns writes whole 256-byte repeats (erratum tcmps_repeat_tail, announced
    per call where the tail changes bytes), a5 whole 128-element chunks (tcmps_chunk_tail): that loop runs in
    turn there (on cpu: batched); with the errata off, batched on every target."""
    _refused(["load_a", "muls", "cmps", "store_c", "store_bits"], monkeypatch, targets_batched=3)
    rng = np.random.default_rng(8)
    tiles = _tiles(rng, 4, 16, (4, 16), (4, 16))
    text = _kernel(4, 16, (4, 16), (4, 16), [OPS[o] for o in ("load_a", "muls", "cmps", "store_c", "store_bits")])
    args = _args(rng, tiles, 0.5, 0, 6, 1, 4, 0, 0, 0)
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            config = make_config(target, errata=False)
            sequential = _run(program, config, args, False)
            batched = _run(program, config, args, True)
            assert batched[:3] == sequential[:3] and batched[3] == 1


def _small_kernel(tile: str, body: list[str], cols: int = 64) -> str:
    """x and y: 64 x `cols` f32; a loop of %n turns from 0 over row blocks of %rs rows (offset %i * %rs);
    tiles %a, %b, %c of type `tile`, %bits a ui8 tile, %s f32."""
    lines = "\n".join("      " + line for line in body)
    return f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %a: {tile}, %b: {tile}, %c: {tile},
               %bits: !pto.tile_buf<vec, 8x32xui8, valid=8x8>, %s: f32, %n: index, %rs: index) {{
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %kw = arith.constant {cols} : index
    %kr = arith.constant 64 : index
    %vx = pto.make_tensor_view %x, shape = [%kr, %kw], strides = [%kw, %k1] : !pto.tensor_view<64x{cols}xf32>
    %vy = pto.make_tensor_view %y, shape = [%kr, %kw], strides = [%kw, %k1] : !pto.tensor_view<64x{cols}xf32>
    scf.for %i = %k0 to %n step %k1 {{
      %row = arith.muli %i, %rs : index
{lines}
    }}
    return
  }}
}}
"""


def _small_args(rng: np.random.Generator, specs: list[Any], n: int, rs: int, cols: int = 64) -> list[Any]:
    tiles = [Tile(spec) for spec in specs]
    for tile in tiles:
        if tile.storage.dtype.kind == "f":
            tile.storage[...] = rng.normal(0, 4, tile.storage.size).astype(tile.storage.dtype)
        else:
            tile.storage[...] = rng.integers(0, 256, tile.storage.size)
    x = rng.normal(0, 8, (64, cols)).astype(np.float32)
    y = rng.normal(0, 1, (64, cols)).astype(np.float32)
    return [x, y, *tiles, 0.5, n, rs]


def test_column_major_tiles_batched(monkeypatch: Any) -> None:
    """DN (column-major) tiles: their stacks are seen through the same transposed view as their storage."""
    t = "!pto.tile_buf<vec, 8x8xf32, blayout=col_major>"
    pv = "!pto.partition_tensor_view<8x8xf32>"
    tv = "!pto.tensor_view<64x64xf32>"
    body = [f"%px = pto.partition_view %vx, offsets = [%row, %k8], sizes = [%k8, %k8] : {tv} -> {pv}",
            f"%py = pto.partition_view %vy, offsets = [%row, %k0], sizes = [%k8, %k8] : {tv} -> {pv}",
            f"pto.tload ins(%px : {pv}) outs(%a : {t})",
            f"pto.tadd ins(%a, %b : {t}, {t}) outs(%c : {t})",
            f"pto.tstore ins(%c : {t}) outs(%py : {pv})"]
    dn = make_spec((TileType.Vec, np.float32, 8, 8, BLayout.ColMajor, 8, 8))
    bits = make_spec((TileType.Vec, np.uint8, 8, 32, BLayout.RowMajor, 8, 8))
    args = _small_args(np.random.default_rng(11), [dn, dn, dn, bits], 8, 8)
    assert _compare(_small_kernel(t, body), args, monkeypatch, True) == 9


def test_a2a3_tcmps_without_a_tail_batched(monkeypatch: Any) -> None:
    """64 valid f32 columns: whole 256-byte repeats, no tail (a2a3 batches its TCMPS; a5's chunk of 128
    elements has a tail: in turn there); dst's first 8 bytes per row, its other bytes the tiles' own; and a
    TSTORE of a tile the loop does not write (the same bytes every turn)."""
    t = "!pto.tile_buf<vec, 8x64xf32>"
    pv = "!pto.partition_tensor_view<8x64xf32>"
    tv = "!pto.tensor_view<64x64xf32>"
    body = [f"%px = pto.partition_view %vx, offsets = [%row, %k0], sizes = [%k8, %kw] : {tv} -> {pv}",
            f"%py = pto.partition_view %vy, offsets = [%row, %k0], sizes = [%k8, %kw] : {tv} -> {pv}",
            f"pto.tload ins(%px : {pv}) outs(%a : {t})",
            "pto.tcmps ins(%a, %s {cmpMode = #pto<cmp ge>} : " + t + ", f32) outs(%bits : "
            "!pto.tile_buf<vec, 8x32xui8, valid=8x8>)",
            f"pto.tstore ins(%b : {t}) outs(%py : {pv})"]
    spec = make_spec((TileType.Vec, np.float32, 8, 64, BLayout.RowMajor, 8, 64))
    bits = make_spec((TileType.Vec, np.uint8, 8, 32, BLayout.RowMajor, 8, 8))
    args = _small_args(np.random.default_rng(12), [spec, spec, spec, bits], 8, 8)
    for program in three_decodings(_small_kernel(t, body), monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False)
            batched = _run(program, target, args, True)
            assert batched[:3] == sequential[:3]
            assert batched[3] == (0 if target == "a5" else 1), target


def test_tpartmul_into_its_full_source_and_a_partial_one(monkeypatch: Any) -> None:
    """c = c * b after c's TLOAD (dst is the full source: its elements beside the partial source's region
    stay), then a = c * p with a partial p (the full source's elements copied beside the product)."""
    t = "!pto.tile_buf<vec, 8x8xf32>"
    tp = "!pto.tile_buf<vec, 8x8xf32, valid=5x3>"
    pv = "!pto.partition_tensor_view<8x8xf32>"
    tv = "!pto.tensor_view<64x64xf32>"
    text = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %a: {t}, %b: {tp}, %c: {t}, %n: index, %rs: index) {{
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %kw = arith.constant 64 : index
    %vx = pto.make_tensor_view %x, shape = [%kw, %kw], strides = [%kw, %k1] : {tv}
    %vy = pto.make_tensor_view %y, shape = [%kw, %kw], strides = [%kw, %k1] : {tv}
    scf.for %i = %k0 to %n step %k1 {{
      %row = arith.muli %i, %rs : index
      %px = pto.partition_view %vx, offsets = [%row, %k0], sizes = [%k8, %k8] : {tv} -> {pv}
      %py = pto.partition_view %vy, offsets = [%row, %k8], sizes = [%k8, %k8] : {tv} -> {pv}
      pto.tload ins(%px : {pv}) outs(%c : {t})
      pto.tpartmul ins(%c, %b : {t}, {tp}) outs(%c : {t})
      pto.tpartmul ins(%b, %c : {tp}, {t}) outs(%a : {t})
      pto.tstore ins(%a : {t}) outs(%py : {pv})
    }}
    return
  }}
}}
"""
    rng = np.random.default_rng(13)
    full = make_spec((TileType.Vec, np.float32, 8, 8, BLayout.RowMajor, 8, 8))
    part = make_spec((TileType.Vec, np.float32, 8, 8, BLayout.RowMajor, 5, 3))
    tiles = [Tile(full), Tile(part), Tile(full)]
    for tile in tiles:
        tile.storage[...] = rng.normal(0, 4, tile.storage.size).astype(np.float32)
    args = [rng.normal(0, 8, (64, 64)).astype(np.float32), np.zeros((64, 64), np.float32), *tiles, 8, 8]
    assert _compare(text, args, monkeypatch, True) == 9


def test_an_index_that_wraps_runs_in_turn(monkeypatch: Any) -> None:
    """Turns 0, 8, 16 of row offset %i * (3 * 2**61 + 2), in index (i64) arithmetic: 0, then 16 and 32 after
    wrapping (8 * (3 * 2**61 + 2) = 3 * 2**64 + 16): valid windows, which the sequential loop loads and stores;
    the offsets are no progression without wrapping, so the loop runs in turn."""
    t = "!pto.tile_buf<vec, 8x8xf32>"
    pv = "!pto.partition_tensor_view<8x8xf32>"
    tv = "!pto.tensor_view<64x64xf32>"
    text = _small_kernel(t, [
        f"%px = pto.partition_view %vx, offsets = [%row, %k0], sizes = [%k8, %k8] : {tv} -> {pv}",
        f"%py = pto.partition_view %vy, offsets = [%row, %k8], sizes = [%k8, %k8] : {tv} -> {pv}",
        f"pto.tload ins(%px : {pv}) outs(%a : {t})",
        f"pto.tstore ins(%a : {t}) outs(%py : {pv})"]).replace("step %k1 {", "step %k8 {")
    spec = make_spec((TileType.Vec, np.float32, 8, 8, BLayout.RowMajor, 8, 8))
    bits = make_spec((TileType.Vec, np.uint8, 8, 32, BLayout.RowMajor, 8, 8))
    args = _small_args(np.random.default_rng(14), [spec, spec, spec, bits], 24, 3 * 2 ** 61 + 2)
    for program in three_decodings(text, monkeypatch):
        for target in TARGETS:
            sequential = _run(program, target, args, False)
            batched = _run(program, target, args, True)
            assert batched[:3] == sequential[:3] and batched[3] == 0
            assert sequential[0][0] == ["a", "y"]  # (ran: a and y written)
    no_wrap = list(args)
    no_wrap[-1] = 2
    assert _compare(text, no_wrap, monkeypatch, True) == 9


def test_poison_mode_runs_in_turn(monkeypatch: Any) -> None:
    """fill="poison" checks every turn's reads: the loop runs in turn (a batched loop would check nothing), with
    the same results as without batching; here an alloc'd tile read before any write is reported."""
    t = "!pto.tile_buf<vec, 8x8xf32>"
    pv = "!pto.partition_tensor_view<8x8xf32>"
    tv = "!pto.tensor_view<64x64xf32>"
    text = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index) {{
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %kw = arith.constant 64 : index
    %vx = pto.make_tensor_view %x, shape = [%kw, %kw], strides = [%kw, %k1] : {tv}
    %vy = pto.make_tensor_view %y, shape = [%kw, %kw], strides = [%kw, %k1] : {tv}
    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
    %c = pto.alloc_tile : {t}
    scf.for %i = %k0 to %n step %k1 {{
      %row = arith.muli %i, %k8 : index
      %px = pto.partition_view %vx, offsets = [%row, %k0], sizes = [%k8, %k8] : {tv} -> {pv}
      %py = pto.partition_view %vy, offsets = [%row, %k0], sizes = [%k8, %k8] : {tv} -> {pv}
      pto.tload ins(%px : {pv}) outs(%a : {t})
      pto.tadd ins(%a, %{{src}} : {t}, {t}) outs(%c : {t})
      pto.tstore ins(%c : {t}) outs(%py : {pv})
    }}
    return
  }}
}}
"""
    rng = np.random.default_rng(15)
    for src in ("a", "b"):  # b: never written (poison reports its read)
        program_text = text.replace("%{src}", f"%{src}")
        args = [rng.normal(0, 8, (64, 64)).astype(np.float32), np.zeros((64, 64), np.float32), 8]
        for program in three_decodings(program_text, monkeypatch):
            outcomes = []
            for batched in (False, True):
                saved, before = batch.BATCH_FROM, batch.batched_runs[0]
                batch.BATCH_FROM = 1 if batched else 1 << 62
                arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
                try:
                    try:
                        result: Any = sorted(program.run(*arrays, target="cpu", fill="poison").outputs)
                    except Exception as exc:  # noqa: BLE001 - compared
                        result = (type(exc).__name__, str(exc))
                finally:
                    batch.BATCH_FROM = saved
                outcomes.append((result, [a.tobytes() for a in arrays if isinstance(a, np.ndarray)]))
                assert batch.batched_runs[0] == before
            assert outcomes[0] == outcomes[1]
            assert (outcomes[0][0][0] == "UninitializedReadError") == (src == "b")
