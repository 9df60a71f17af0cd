"""On-chip memory and TASSIGN (DECISIONS 18, reference-facts 4), events (DECISIONS 17) and target selection."""

from __future__ import annotations

import numpy as np
import pytest

import ptoisa
from ptoisa import (
    NPU_MEMORY_CLEAR,
    TASSIGN,
    TCI,
    TEXPANDS,
    TPARTMUL,
    TSYNC,
    BLayout,
    IllegalInstructionError,
    PlacementError,
    RecordEvent,
    TargetError,
    Tile,
    TileType,
    current_config,
    get_profile,
    int16_t,
    int32_t,
    uint8_t,
)
from ptoisa.targets import make_config

KIB = 1024
TARGETS = ("a2a3", "a5", "cpu")
UB = {"a2a3": 192 * KIB, "a5": 256 * KIB, "cpu": 512 * KIB}


# --- aliasing -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_int32_and_int16_tiles_at_same_offset_alias_little_endian(target):
    NPU_MEMORY_CLEAR(target=target)
    a = Tile[TileType.Vec, int32_t, 1, 8]()
    b = Tile[TileType.Vec, int16_t, 1, 16]()
    TASSIGN(a, 0x400, target=target)
    TASSIGN(b, 0x400, target=target)
    a.storage[0] = 0x11223344
    assert b.storage[:2].tolist() == [0x3344, 0x1122]
    b.storage[2] = -1
    assert a.storage[1] == 0x0000FFFF
    # An instruction writing through one tile is seen through the other.
    TEXPANDS(b, 0x0102, target=target)
    assert a.storage.tolist() == [0x01020102] * 8


@pytest.mark.parametrize("target", TARGETS)
def test_partial_overlap_aliases_only_the_shared_bytes(target):
    NPU_MEMORY_CLEAR(target=target)
    a = Tile[TileType.Vec, int32_t, 1, 16]()      # bytes [0x800, 0x840)
    c = Tile[TileType.Vec, uint8_t, 1, 64]()      # bytes [0x820, 0x860)
    TASSIGN(a, 0x800, target=target)
    TASSIGN(c, 0x820, target=target)
    TEXPANDS(a, -1, target=target)
    assert c.storage[:32].tolist() == [0xFF] * 32 and c.storage[32:].tolist() == [0] * 32
    c.storage[0] = 7
    assert a.storage[8] == int(np.array([7, 255, 255, 255], np.uint8).view(np.int32)[0])
    assert a.storage[:8].tolist() == [-1] * 8


@pytest.mark.parametrize("target", TARGETS)
def test_disjoint_ranges_do_not_alias(target):
    NPU_MEMORY_CLEAR(target=target)
    a, b = Tile[TileType.Vec, int32_t, 1, 8](), Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(a, 0x1000, target=target)
    TASSIGN(b, 0x1020, target=target)      # directly after a's 32 bytes
    TEXPANDS(a, 5, target=target)
    assert b.storage.tolist() == [0] * 8


@pytest.mark.parametrize("target", TARGETS)
def test_same_offset_in_different_regions_does_not_alias(target):
    NPU_MEMORY_CLEAR(target=target)
    vec = Tile[TileType.Vec, int32_t, 1, 8]()      # UB
    mat = Tile[TileType.Mat, int32_t, 1, 8]()      # L1
    TASSIGN(vec, 0x200, target=target)
    TASSIGN(mat, 0x200, target=target)
    TEXPANDS(vec, 9, target=target)
    assert mat.storage.tolist() == [0] * 8
    assert vec.binding.region == "UB" and mat.binding.region == "L1"
    assert vec.binding.offset == 0x200


def test_targets_have_separate_buffers():
    for t in TARGETS:
        NPU_MEMORY_CLEAR(target=t)
    x, y = Tile[TileType.Vec, int32_t, 1, 8](), Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(x, 0x300, target="a5")
    TASSIGN(y, 0x300, target="cpu")
    TEXPANDS(x, 3, target="a5")
    assert y.storage.tolist() == [0] * 8


@pytest.mark.parametrize("target", TARGETS)
def test_memory_clear_zeroes_and_keeps_bindings(target):
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(t, 0x40, target=target)
    TEXPANDS(t, 4, target=target)
    NPU_MEMORY_CLEAR(target=target)
    assert t.storage.tolist() == [0] * 8
    TEXPANDS(t, 6, target=target)
    alias = Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(alias, 0x40, target=target)
    assert alias.storage.tolist() == [6] * 8


@pytest.mark.parametrize("target", TARGETS)
def test_tassign_uses_target_in_force(target):
    with ptoisa.target(target):
        t = Tile[TileType.Vec, int32_t, 1, 8]()
        TASSIGN(t, 0x60)
    assert t.binding.target == target


# --- buffer sizes and rejected bindings --------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_ub_size_per_target(target):
    size = UB[target]
    assert get_profile(target).memory.regions["UB"] == size
    last = Tile[TileType.Vec, uint8_t, 1, 32]()
    TASSIGN(last, size - 32, target=target)                      # the last 32 bytes fit
    whole = Tile[TileType.Vec, uint8_t, 1, size]()
    TASSIGN(whole, 0, target=target)                             # the whole buffer fits
    assert whole.binding.offset == 0
    too_big = Tile[TileType.Vec, uint8_t, 1, size + 32]()
    with pytest.raises(PlacementError, match=f"do not fit the {size}-byte buffer"):
        TASSIGN(too_big, 0, target=target)
    past = Tile[TileType.Vec, uint8_t, 1, 32]()
    with pytest.raises(PlacementError, match=f"bytes \\[0x{size:x}, 0x{size + 32:x}\\) do not fit"):
        TASSIGN(past, size, target=target)


@pytest.mark.parametrize("target,region,loc,size", [
    ("a2a3", "L1", TileType.Mat, 512 * KIB), ("a5", "L1", TileType.Mat, 512 * KIB),
    ("cpu", "L1", TileType.Mat, 512 * KIB),
    ("a2a3", "L0A", TileType.Left, 64 * KIB), ("a5", "L0B", TileType.Right, 64 * KIB),
    ("a2a3", "L0C", TileType.Acc, 128 * KIB), ("a5", "L0C", TileType.Acc, 256 * KIB),
])
def test_other_regions(target, region, loc, size):
    assert get_profile(target).memory.regions[region] == size
    assert get_profile(target).memory.region_of[loc] == region
    ok = Tile[loc, uint8_t, 1, 32]()
    TASSIGN(ok, size - 32, target=target)
    assert ok.binding.region == region
    with pytest.raises(PlacementError, match=f"in {region}: bytes"):
        TASSIGN(Tile[loc, uint8_t, 1, 32](), size - 16 if target == "cpu" else size, target=target)


def snapshot_binding(tile):
    return tile.storage, tile.binding, tile.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("addr", ["past", -32, "partial"])
def test_out_of_range_binding_rejected_and_nothing_changed(target, addr):
    NPU_MEMORY_CLEAR(target=target)
    size = UB[target]
    offset = {"past": size, "partial": size - 16}.get(addr, addr)
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    t.storage[:] = np.arange(8)
    storage, binding, raw = snapshot_binding(t)
    with pytest.raises(PlacementError, match=f"TASSIGN on {target}: "):
        TASSIGN(t, offset, target=target)
    assert t.storage is storage and t.binding is binding and t.tobytes() == raw
    # A tile bound earlier keeps its binding and its bytes.
    TASSIGN(t, 0x100, target=target)
    t.storage[:] = 42
    storage, binding, raw = snapshot_binding(t)
    with pytest.raises(PlacementError):
        TASSIGN(t, offset, target=target)
    assert t.storage is storage and t.binding is binding and t.tobytes() == raw


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("addr", [0x104, 0x110, 1, 31])
def test_misaligned_binding_rejected_on_npus(target, addr):
    NPU_MEMORY_CLEAR(target=target)
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    t.storage[:] = 3
    storage, binding, raw = snapshot_binding(t)
    with pytest.raises(PlacementError, match="the address must be a multiple of 32 bytes"):
        TASSIGN(t, addr, target=target)
    assert t.storage is storage and t.binding is binding and t.tobytes() == raw
    probe = Tile[TileType.Vec, uint8_t, 1, 1024]()
    TASSIGN(probe, 0, target=target)
    assert probe.storage.tolist() == [0] * 1024       # the buffer did not change either


def test_cpu_has_no_alignment_check():
    """The CPU simulator performs no alignment check (reference-facts 4.2)."""
    NPU_MEMORY_CLEAR(target="cpu")
    a = Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(a, 0x104, target="cpu")
    b = Tile[TileType.Vec, uint8_t, 1, 64]()
    TASSIGN(b, 0x100, target="cpu")
    TEXPANDS(a, 0x01020304, target="cpu")
    assert b.storage[:12].tolist() == [0, 0, 0, 0, 4, 3, 2, 1, 4, 3, 2, 1]


@pytest.mark.parametrize("addr", [1.5, "0x100", True, None, np.float32(64)])
def test_address_must_be_integer(addr):
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    with pytest.raises(PlacementError, match="TASSIGN address must be an integer byte offset"):
        TASSIGN(t, addr, target="a5")
    assert t.binding is None


def test_numpy_integer_address_accepted():
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    TASSIGN(t, np.int64(0x2000), target="a5")
    assert t.binding.offset == 0x2000


def test_tassign_needs_a_tile():
    with pytest.raises(PlacementError, match="TASSIGN needs a Tile or ConvTile \\(got ndarray\\)"):
        TASSIGN(np.zeros(8), 0)


def test_conv_tile_binds_to_l1():
    C = ptoisa.ConvTile[TileType.Mat, int16_t, 2 * 5 * 2 * 3 * 8, ptoisa.Layout.NC1HWC0, (2, 5, 2, 3, 8)]
    c = C()
    TASSIGN(c, 0x400, target="a5")
    assert c.binding.region == "L1" and c.storage.nbytes == 960


# --- events -----------------------------------------------------------------------------------------------------
def test_every_instruction_returns_an_event_accepted_as_wait_event():
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    e1 = TEXPANDS(t, 1, target="a5")
    e2 = TCI(t, 0, e1, target="a5")
    e3 = TPARTMUL(t, t, t, e1, e2, target="a5")
    assert all(isinstance(e, RecordEvent) for e in (e1, e2, e3))
    assert (e1.op, e2.op, e3.op) == ("TEXPANDS", "TCI", "TPARTMUL")
    assert (str(e1.pipe), str(e2.pipe), str(e3.pipe)) == ("PIPE_V", "PIPE_S", "PIPE_V")
    assert t.storage.tolist() == [k * k for k in range(8)]
    # like the C++ empty struct, an event carries nothing that changes per call: one object per op and pipe
    other = Tile[TileType.Vec, int32_t, 1, 8]()
    assert TEXPANDS(other, 1, target="a5") is e1 and TCI(other, 0, target="cpu") is e2
    assert e1 == RecordEvent(("TEXPANDS", "PIPE_V")) and repr(e1) == "RecordEvent(op='TEXPANDS', pipe='PIPE_V')"
    assert e3.Wait() is None
    TSYNC(e1, e2, e3)


def test_events_do_not_change_results():
    a, b = Tile[TileType.Vec, int32_t, 1, 8](), Tile[TileType.Vec, int32_t, 1, 8]()
    ev = TCI(a, 3, target="cpu")
    TCI(b, 3, ev, ev, target="cpu")
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("bad", [1, None, "event", ("TCI", "PIPE_S", 1), object()])
def test_non_event_rejected_and_nothing_changed(bad):
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    t.storage[:] = 77
    before = t.tobytes()
    ev = TEXPANDS(Tile[TileType.Vec, int32_t, 1, 8](), 0, target="a2a3")
    with pytest.raises(IllegalInstructionError) as exc:
        TEXPANDS(t, 1, ev, bad, target="a2a3")
    assert exc.value.operand == "wait event #2"
    assert f"(got {type(bad).__name__})" in str(exc.value)
    assert t.tobytes() == before
    with pytest.raises(IllegalInstructionError, match="TSYNC on any: wait event #1 must be a RecordEvent"):
        TSYNC(bad)


# --- target selection ------------------------------------------------------------------------------------------
def refusing_target(**kwargs):
    """Run a call every target refuses (Rows != 1 for TCI) and return the target named in the error."""
    t = Tile[TileType.Vec, int32_t, 2, 8]()
    with pytest.raises(IllegalInstructionError) as exc:
        TCI(t, 0, **kwargs)
    return exc.value.target


def test_default_is_a2a3(monkeypatch):
    monkeypatch.delenv("PTOISA_TARGET", raising=False)
    assert current_config().name == "a2a3"
    assert refusing_target() == "a2a3"


@pytest.mark.parametrize("value,name", [("a5", "a5"), ("cpu", "cpu"), ("A5", "a5")])
def test_env_var_beats_default(monkeypatch, value, name):
    monkeypatch.setenv("PTOISA_TARGET", value)
    assert current_config().name == name
    assert refusing_target() == name


def test_empty_env_var_means_default(monkeypatch):
    monkeypatch.setenv("PTOISA_TARGET", "")
    assert refusing_target() == "a2a3"


def test_context_beats_env_and_keyword_beats_context(monkeypatch):
    monkeypatch.setenv("PTOISA_TARGET", "cpu")
    with ptoisa.target("a5") as config:
        assert config.name == "a5" and current_config() is config
        assert refusing_target() == "a5"
        assert refusing_target(target="a2a3") == "a2a3"
        with ptoisa.target("a2a3"):
            assert refusing_target() == "a2a3"
        assert refusing_target() == "a5"
    assert refusing_target() == "cpu"


def test_context_restored_after_exception():
    with pytest.raises(ZeroDivisionError):
        with ptoisa.target("cpu"):
            1 / 0
    with ptoisa.target("a5"):
        with pytest.raises(ZeroDivisionError):
            with ptoisa.target("cpu"):
                1 / 0
        assert current_config().name == "a5"


def test_keyword_accepts_a_config():
    config = make_config("cpu", False)
    dst = Tile[TileType.Mat, int32_t, 16, 8, BLayout.RowMajor, -1, -1](1, 1)
    TEXPANDS(dst, 2, target=config)            # cpu with errata off: the whole Mat tile, no warning
    assert dst.storage.tolist() == [2] * 128


def test_target_without_name_keeps_current_target():
    with ptoisa.target("a5"):
        with ptoisa.target(errata=False, undefined="emulate") as inner:
            assert inner.name == "a5" and inner.undefined == "emulate" and inner.errata == frozenset()


def test_errata_names_and_switch_off():
    mine = {"tci_tmp_descending_negates", "texpands_static_valid_contiguous", "texpands_b8_pairs",
            "texpands_conv_5d", "texpands_mat_valid_only"}
    assert set(get_profile("a2a3").errata) & mine == mine - {"texpands_mat_valid_only"}
    assert set(get_profile("cpu").errata) & mine == {"texpands_mat_valid_only"}
    assert set(get_profile("a5").errata) & mine == set()
    with ptoisa.target("a2a3") as on:
        assert on.erratum("tci_tmp_descending_negates")
    with ptoisa.target("a2a3", errata=False) as off:
        assert off.errata == frozenset() and not off.erratum("tci_tmp_descending_negates")
    with ptoisa.target("a2a3", errata=["texpands_b8_pairs"]) as some:
        assert some.errata == frozenset({"texpands_b8_pairs"})


def test_unknown_erratum_and_policy_rejected():
    with pytest.raises(TargetError, match="unknown errata for a5: texpands_b8_pairs"):
        with ptoisa.target("a5", errata={"texpands_b8_pairs"}):
            pass
    with pytest.raises(TargetError, match="undefined must be 'raise' or 'emulate'"):
        with ptoisa.target("a5", undefined="maybe"):
            pass


@pytest.mark.parametrize("name", ["gpu", "a3", "", "A2A3x"])
def test_unknown_target(name, monkeypatch):
    with pytest.raises(TargetError, match="unknown target .* \\(known: a2a3, a5, cpu\\)"):
        get_profile(name)
    t = Tile[TileType.Vec, int32_t, 1, 8]()
    t.storage[:] = 5
    with pytest.raises(TargetError):
        TEXPANDS(t, 1, target=name or "none")
    assert t.storage.tolist() == [5] * 8
    with pytest.raises(TargetError):
        with ptoisa.target(name or "none"):
            pass
    with pytest.raises(TargetError):
        TASSIGN(t, 0, target=name or "none")
    assert t.binding is None
    monkeypatch.setenv("PTOISA_TARGET", name or "none")
    with pytest.raises(TargetError):
        TEXPANDS(t, 1)
    assert t.storage.tolist() == [5] * 8


def test_target_names_case_insensitive():
    assert get_profile("A5").name == "a5" and get_profile("CPU").name == "cpu"
