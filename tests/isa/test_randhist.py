"""TRANDOM, THISTOGRAM, TPACK and TGET_SCALE_ADDR: expected values worked from the pages' formulas and the
simulator's loops written out here in plain Python (Philox-4x32 checked against the published Random123 known
answers), refusals that leave every byte as it was, the `.pto` ops parsed, printed and run."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import (BLayout, HistByte, IllegalInstructionError, Tile, TileType, TRandomCounter, TRandomKey,
                    TASSIGN, half, int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t)
from ptoisa.instructions import TGET_SCALE_ADDR, THISTOGRAM, TPACK, TRANDOM

M = 0xFFFFFFFF


def philox_ref(ctr: list[int], key: list[int], rounds: int) -> list[int]:
    """Philox-4x32 as include/pto/cpu/TRandom.hpp RunRounds writes it, one counter at a time."""
    c, k = list(ctr), list(key)
    for _ in range(rounds):
        p0, p1 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M, (p0 >> 32) ^ c[3] ^ k[1], p0 & M]
        k = [(k[0] + 0x9E3779B9) & M, (k[1] + 0xBB67AE85) & M]
    return c


def add128(ctr: list[int], n: int) -> list[int]:
    v = (sum(w << (32 * i) for i, w in enumerate(ctr)) + n) % 2**128
    return [(v >> (32 * i)) & M for i in range(4)]


def test_philox_reference_is_random123():
    # Random123 kat_vectors: philox4x32 with 7 and 10 rounds
    assert philox_ref([0] * 4, [0, 0], 10) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert philox_ref([M] * 4, [M, M], 10) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert philox_ref([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0], 10) == \
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def cpu_expected(rows, cols, stride, key, ctr, rounds):
    out = np.zeros((rows, cols), np.uint32)
    chunks = -(-cols // 256)
    for r in range(rows):
        for j in range(chunks):
            for lane in range(64):
                words = philox_ref(add128(ctr, (r * chunks + j) * (stride // 4) + lane), key, rounds)
                for w in range(4):
                    col = 256 * j + 64 * w + lane
                    if col < cols:
                        out[r, col] = words[w]
    return out


def a5_expected(rows, cols, key, ctr, rounds):
    out = np.zeros((rows, cols), np.uint32)
    chunks = -(-cols // 256)
    per_row = 64 * (chunks - 1) + ((cols - 1) % 64 + 1)
    for r in range(rows):
        for j in range(chunks):
            for lane in range(64):
                words = philox_ref(add128(ctr, r * per_row + 64 * j + lane), key, rounds)
                for w in range(4):
                    col = 256 * j + 4 * lane + w
                    if col < cols:
                        out[r, col] = words[w]
    return out


@pytest.mark.parametrize("rounds", [7, 10])
@pytest.mark.parametrize("shape", [(2, 256, 2, 256), (3, 512, 2, 300), (1, 64, 1, 40)])
def test_trandom_cpu_and_a5_from_the_loops(shape, rounds):
    rows, cols, vr, vc = shape
    key, ctr = [0x12345678, 0x9ABCDEF0], [M - 70, M, 5, 0]  # the low words carry within a row
    for target, want in (("cpu", cpu_expected(vr, vc, cols, key, ctr, rounds)),
                         ("a5", a5_expected(vr, vc, key, ctr, rounds))):
        dst = Tile[TileType.Vec, uint32_t, rows, cols, BLayout.RowMajor, -1, -1](vr, vc)
        dst.set_logical(np.full((rows, cols), 7, np.uint32))
        TRANDOM(dst, TRandomKey(*key), ctr, rounds=rounds, target=target)
        assert np.array_equal(dst.data[:vr, :vc], want), target
        assert (dst.data[vr:, :] == 7).all() and (dst.data[:, vc:] == 7).all()  # only the valid region


def test_trandom_scalar_form_and_int32_dst_agree_with_the_struct_form():
    a = Tile[TileType.Vec, int32_t, 2, 256]()
    b = Tile[TileType.Vec, uint32_t, 2, 256]()
    TRANDOM(a, 1, -2, 3, 4, 5, 6, target="cpu")                      # -2 wraps to 0xFFFFFFFE as uint32_t
    TRANDOM(b, [1, 0xFFFFFFFE], TRandomCounter(3, 4, 5, 6), target="cpu")
    assert np.array_equal(a.data.view(np.uint32), b.data)
    assert b.data[0, 0] == philox_ref([3, 4, 5, 6], [1, 0xFFFFFFFE], 10)[0]


@pytest.mark.parametrize("call, message", [
    (lambda d, t: TRANDOM(d, [1, 2], [0, 0, 0, 0], target="a2a3"), "TRANDOM on a2a3: is not available"),
    (lambda d, t: TRANDOM(d, [1, 2], [0, 0, 0, 0], rounds=8, target="cpu"), "rounds must be a Rounds"),
    (lambda d, t: TRANDOM(d, [1, 2, 3], [0, 0, 0, 0], target="cpu"), "key must be a TRandomKey"),
    (lambda d, t: TRANDOM(t, [1, 2], [0, 0, 0, 0], target="a5"), "dst dtype int16 is not supported"),
])
def test_trandom_refusals_change_nothing(call, message):
    d = Tile[TileType.Vec, uint32_t, 1, 64](); d.set_logical(np.full((1, 64), 9, np.uint32))
    t = Tile[TileType.Vec, int16_t, 1, 64]()
    with pytest.raises(IllegalInstructionError, match=message):
        call(d, t)
    assert (d.data == 9).all() and (t.data == 0).all()


# --- THISTOGRAM ---------------------------------------------------------------------------------------------------
def cumulative(values, byte, keep):
    b = (values.astype(np.int64) >> (8 * byte)) & 0xFF
    return np.cumsum(np.bincount(b[keep], minlength=256)).astype(np.uint32)


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_thistogram_uint16_high_then_filtered_low(target):
    rng = np.random.default_rng(5)
    x = (rng.choice([0x11, 0x12, 0x40], (4, 64)) << 8 | rng.integers(0, 256, (4, 64))).astype(np.uint16)
    src = Tile[TileType.Vec, uint16_t, 4, 64](); src.set_logical(x)
    idx = Tile[TileType.Vec, uint8_t, 32, 1, BLayout.ColMajor, 4, 1]()
    idx.set_logical(np.array([[0x11], [0x12], [0x40], [0x99]] + [[0]] * 28, np.uint8))
    hi, lo = Tile[TileType.Vec, uint32_t, 4, 256](), Tile[TileType.Vec, uint32_t, 4, 256]()
    THISTOGRAM(hi, src, idx, HistByte.BYTE_1, target=target)
    THISTOGRAM(lo, src, idx, "BYTE_0", target=target)
    for r, want_hi in enumerate([0x11, 0x12, 0x40, 0x99]):
        assert np.array_equal(hi.data[r], cumulative(x[r], 1, np.ones(64, bool)))
        assert np.array_equal(lo.data[r], cumulative(x[r], 0, (x[r] >> 8) == want_hi))
    assert hi.data[0, 255] == 64 and lo.data[3, 255] == 0                 # row 3's filter byte matches nothing


@pytest.mark.parametrize("byte", [3, 2, 1, 0])
def test_thistogram_uint32_cascade(byte):
    rng = np.random.default_rng(byte)
    filt = [0xAB, 0x01, 0x7F]
    parts = [rng.integers(0, 256, (3, 64))] + [rng.choice([filt[2 - k], 0x00], (3, 64)) for k in range(3)]
    x = sum(p.astype(np.uint64) << (8 * k) for k, p in enumerate(parts)).astype(np.uint32)
    src = Tile[TileType.Vec, uint32_t, 3, 64](); src.set_logical(x)
    n = max(3 - byte, 1)
    idx = Tile[TileType.Vec, uint8_t, n, 64](); idx.set_logical(rng.integers(0, 256, (n, 64)).astype(np.uint8))
    raw = idx.data.copy(); raw[:3 - byte, 0] = filt[:3 - byte]; idx.set_logical(raw)   # only column 0 is read
    dst = Tile[TileType.Vec, uint32_t, 3, 256]()
    THISTOGRAM(dst, src, idx, byte, target="a5")
    for r in range(3):
        keep = np.ones(64, bool)
        for k in range(3 - byte):
            keep &= ((x[r].astype(np.int64) >> (8 * (3 - k))) & 0xFF) == filt[k]
        assert np.array_equal(dst.data[r], cumulative(x[r], byte, keep))


@pytest.mark.parametrize("target, byte, dst_cols, message", [
    ("a2a3", HistByte.BYTE_1, 256, "THISTOGRAM on a2a3: is not available"),
    ("cpu", HistByte.BYTE_2, 256, "BYTE_2 is not a byte of a uint16 source"),
    ("cpu", None, 256, "byte is missing"),
    ("a5", HistByte.BYTE_1, 128, "valid columns 128 must be at least 256"),
])
def test_thistogram_refusals_change_nothing(target, byte, dst_cols, message):
    src = Tile[TileType.Vec, uint16_t, 2, 16](); src.set_logical(np.ones((2, 16), np.uint16))
    idx = Tile[TileType.Vec, uint8_t, 32, 1, BLayout.ColMajor, 2, 1]()
    dst = Tile[TileType.Vec, uint32_t, 2, dst_cols](); dst.set_logical(np.full((2, dst_cols), 3, np.uint32))
    with pytest.raises(IllegalInstructionError, match=message):
        THISTOGRAM(dst, src, idx, byte, target=target)
    assert (dst.data == 3).all()


# --- TPACK --------------------------------------------------------------------------------------------------------
def test_tpack_a5_keeps_the_low_bytes_and_cpu_casts():
    s = Tile[TileType.Vec, int32_t, 2, 8](); s.set_logical([[1, -2, 70000, -70000, 255, 256, 2**31 - 1, -2**31]] * 2)
    d16 = Tile[TileType.Vec, int16_t, 2, 16, BLayout.RowMajor, 2, 8]()
    d8 = Tile[TileType.Vec, int8_t, 2, 32, BLayout.RowMajor, 2, 8]()
    TPACK(d16, s, target="a5")
    TPACK(d8, s, target="a5")
    assert d16.data[1, :8].tolist() == [1, -2, 70000 - 65536, 131072 - 70000 - 65536, 255, 256, -1, 0]
    assert d8.data[0, :8].tolist() == [1, -2, 0x70, -0x70, -1, 0, -1, 0]   # 70000 = 0x11170
    assert (d16.data[:, 8:] == 0).all()
    f = Tile[TileType.Vec, np.float32, 1, 8](); f.set_logical([[1.0, 0.1, -2.5, 1e6, 0, 0, 0, 0]])
    h_cpu = Tile[TileType.Vec, half, 1, 16, BLayout.RowMajor, 1, 8]()
    h_a5 = Tile[TileType.Vec, half, 1, 16, BLayout.RowMajor, 1, 8]()
    TPACK(h_cpu, f, target="cpu")
    TPACK(h_a5, f, target="a5")
    assert h_cpu.data[0, :4].tolist() == [1.0, float(np.float16(0.1)), -2.5, np.inf]
    bits = np.array([1.0, 0.1, -2.5, 1e6], np.float32).view(np.uint32) & 0xFFFF
    assert h_a5.data[0, :4].view(np.uint16).tolist() == bits.tolist()


def test_tpack_cpu_widens_as_its_test_does_and_refuses_what_a5_cannot():
    s = Tile[TileType.Vec, int16_t, 3, 16, BLayout.RowMajor, 2, 3](); s.set_logical([[1, -2, 3], [4, -5, 6]])
    d = Tile[TileType.Vec, int32_t, 3, 8, BLayout.RowMajor, 2, 3]()
    TPACK(d, s, target="cpu")
    assert d.data[:2, :3].tolist() == [[1, -2, 3], [4, -5, 6]]
    before = d.tobytes()
    with pytest.raises(IllegalInstructionError, match="conversion from int16 to int32 is not supported"):
        TPACK(d, s, target="a5")
    with pytest.raises(IllegalInstructionError, match="TPACK on a2a3: is not available"):
        TPACK(d, s, target="a2a3")
    f = Tile[TileType.Vec, np.float32, 3, 8, BLayout.RowMajor, 2, 3](); f.set_logical([[1e10, 0, 0], [0, 0, 0]])
    with pytest.raises(ptoisa.UndefinedBehaviourError, match=r"src\[0, 0\] = 10000000000.0 does not fit int32"):
        TPACK(d, f, target="cpu")
    assert d.tobytes() == before


# --- TGET_SCALE_ADDR ----------------------------------------------------------------------------------------------
def test_tget_scale_addr_cpu_aliases_src():
    s = Tile[TileType.Vec, np.float32, 2, 8](); s.set_logical(np.arange(16, dtype=np.float32).reshape(2, 8))
    d = Tile[TileType.Vec, uint8_t, 1, 32]()
    TGET_SCALE_ADDR(d, s, target="cpu")
    assert d.data.tobytes() == np.arange(8, dtype=np.float32).tobytes()
    s.set_logical(np.zeros((2, 8), np.float32))
    assert (d.data == 0).all()                                           # dst reads src's own bytes


def test_tget_scale_addr_a5_binds_at_the_shifted_address():
    a = Tile[TileType.Vec, int32_t, 8, 8]()
    TASSIGN(a, 0x2000, target="a5")
    sc = Tile[TileType.Scaling, half, 1, 16]()
    TGET_SCALE_ADDR(sc, a, target="a5")
    assert (sc.binding.region, sc.binding.offset) == ("FB", 0x2000 >> 4)
    with pytest.raises(IllegalInstructionError, match="has no on-chip address"):
        TGET_SCALE_ADDR(sc, Tile[TileType.Vec, int32_t, 8, 8](), target="a5")
    with pytest.raises(IllegalInstructionError, match="is not a scale location"):
        TGET_SCALE_ADDR(Tile[TileType.Vec, half, 1, 16](), a, target="a5")
    with pytest.raises(IllegalInstructionError, match="TGET_SCALE_ADDR on a2a3: is not available"):
        TGET_SCALE_ADDR(sc, a, target="a2a3")


# --- .pto ---------------------------------------------------------------------------------------------------------
_TB = "!pto.tile_buf<loc={l}, dtype={d}, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout={b}, " \
      "slayout=none_box, fractal=512, pad=0>"
_S, _I = _TB.format(l="vec", d="ui16", r=32, c=32, b="row_major"), _TB.format(l="vec", d="ui8", r=32, c=1, b="col_major")
_H, _R = _TB.format(l="vec", d="ui32", r=32, c=256, b="row_major"), _TB.format(l="vec", d="i32", r=2, c=256, b="row_major")
_P, _Q = _TB.format(l="vec", d="i32", r=2, c=256, b="row_major"), _TB.format(l="vec", d="i16", r=2, c=256, b="row_major")
_KERNEL = f"""
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%src: {_S}, %idx: {_I}, %hi: {_H}, %lo: {_H}, %rnd: {_R}, %packed: {_Q}) {{
    %k0 = arith.constant 305419896 : i32
    %k1 = arith.constant -1698898192 : i32
    %c = arith.constant 0 : i32
    pto.thistogram ins(%src, %idx : {_S}, {_I}) outs(%hi : {_H})
    pto.thistogram ins(%src, %idx : {_S}, {_I}) outs(%lo : {_H}) {{isMSB = false}}
    pto.trandom ins(%k0, %k1, %c, %c, %c, %c {{rounds = 7 : i32}} : i32, i32, i32, i32, i32, i32) outs(%rnd : {_R})
    pto.tpack ins(%rnd : {_P}) outs(%packed : {_Q})
    %sc = pto.alloc_tile : {_TB.format(l="scaling", d="i32", r=2, c=256, b="row_major")}
    pto.tget_scale_addr ins(%rnd : {_R}) outs(%sc : {_TB.format(l="scaling", d="i32", r=2, c=256, b="row_major")})
    return
  }}
}}"""


@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_pto_kernel_runs_every_op(target):
    src = (np.arange(1024, dtype=np.uint32).reshape(32, 32) * 61 % 65536).astype(np.uint16)
    idx = ((np.arange(32) * 7) % 16).astype(np.uint8).reshape(32, 1)
    hi, lo = np.zeros((32, 256), np.uint32), np.zeros((32, 256), np.uint32)
    rnd, packed = np.zeros((2, 256), np.int32), np.zeros((2, 256), np.int16)
    program = ptoisa.load(_KERNEL)
    if target == "a5":  # the scaling tile needs src's address, which an auto-placed tile does not have
        with pytest.raises(ptoisa.PtoError, match="has no on-chip address"):
            program.run(src, idx, hi, lo, rnd, packed, target=target)
        return
    program.run(src, idx, hi, lo, rnd, packed, target=target)
    for r in range(32):
        assert np.array_equal(hi[r], cumulative(src[r], 1, np.ones(32, bool)))
        assert np.array_equal(lo[r], cumulative(src[r], 0, (src[r] >> 8) == idx[r, 0]))
    want = cpu_expected(2, 256, 256, [305419896, -1698898192 & M], [0, 0, 0, 0], 7)
    assert np.array_equal(rnd.view(np.uint32), want)
    assert np.array_equal(packed, want.astype(np.int64).astype(np.int16))


def test_pto_ops_print_as_ptoas_writes_them_and_refuse_a3():
    from ptoisa.ir import parse_module, print_module
    from ptoisa.cli import main  # noqa: F401 - the command-line entry (checked below through the IR)

    printed = print_module(parse_module(_KERNEL))
    assert "pto.trandom ins(%k0, %k1, %c, %c, %c, %c {rounds = 7 : i32} : i32, i32, i32, i32, i32, i32) outs(" \
        in printed
    assert "outs(%lo : !pto.tile_buf" in printed and "{isMSB = false}" in printed
    assert "pto.tpack ins(%rnd :" in printed and "pto.tget_scale_addr ins(%rnd :" in printed
    assert print_module(parse_module(printed)) == printed
