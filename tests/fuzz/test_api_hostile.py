"""Hostile arguments to every public entry point: sizes of any integer type, huge requests, scalars of any
type, enums given as numbers or bools. Whatever the input, a call runs or raises a PtoError; a refused call
changes no byte; nothing escapes as MemoryError, OverflowError or a NumPy error."""

from __future__ import annotations

import datetime
import decimal
import fractions
import random
import warnings

import ml_dtypes
import numpy as np
from conftest import fuzz_budget

import ptoisa
from ptoisa import TCI, TCMPS, TEXPANDS, TGATHER, TPARTMUL, BLayout, CmpMode, GatherAxis, MaskPattern, Tile, TileType
from ptoisa.dtypes import STANDARD_DTYPES

SIZES = [16, 32, 1, 0, -1, -16, 2**31, 2**40, 2**63, 2**64 + 16, np.int64(16), np.uint8(16), np.int8(-16),
         np.uint64(2**63), np.int64(2**40), 16.0, True, False, "16", None, 10**6, 10**100, 10**5000, -(10**5000),
         np.array(16)]
SCALARS = [0, 1, -1, 0.5, -0.0, 2**31, 2**63, 2**1000, -(2**1000), 1e400, float("nan"), float("inf"), 1j,
           complex(1, 0), datetime.timedelta(1), np.timedelta64(1), np.datetime64(1, "D"), "1", None, [1],
           np.array([1.0]), np.array(1.0), decimal.Decimal(1), fractions.Fraction(1, 3), np.float64(1e300),
           np.int64(2**62), np.uint64(2**64 - 1), np.bool_(True), b"1", object(), np.float16(1.5),
           np.array(1.5, np.float16), np.array(2**63, np.uint64), np.array("1"), np.array(None), np.ma.masked,
           np.complex64(1), fractions.Fraction(10**400), fractions.Fraction(-(10**400), 3), decimal.Decimal("1e400"),
           decimal.Decimal("snan"), 10**5000, -(10**5000), 10**309, -(2**1100), ml_dtypes.bfloat16(3e38),
           np.array(ml_dtypes.bfloat16(1)), "x" * 100_000]
ENUMS = [CmpMode.GT, "GT", "gt", 4, 4.0, True, None, -1, 99, MaskPattern.P0101, GatherAxis.GATHER_COL, "P0101", [],
         10**5000, "G" * 100_000, np.array(4)]
TARGETS = ["a2a3", "a5", "cpu", "x", None, 1, True, [], "x" * 100_000]


def _tile(rng: random.Random, rows=None, cols=None):
    dtype = rng.choice(STANDARD_DTYPES)
    rows = rng.choice(SIZES) if rows is None else rows
    cols = rng.choice(SIZES) if cols is None else cols
    kind = rng.choice([TileType.Vec, TileType.Vec, TileType.Mat])
    spec = Tile[kind, dtype, rows, cols, BLayout.RowMajor]
    return spec()


def _plausible_tile(rng: random.Random):
    dtype = rng.choice(STANDARD_DTYPES)
    cols = 32 // dtype.itemsize * rng.choice([1, 2])
    tile = Tile[TileType.Vec, dtype, rng.choice([1, 2, 4]), cols]()
    tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(tile.storage.nbytes), np.uint8)
    return tile


def _call(rng: random.Random) -> None:
    which = rng.randrange(7)
    if which == 0:
        _tile(rng)
        return
    tiles = [_plausible_tile(rng) for _ in range(4)]
    before = [t.tobytes() for t in tiles]
    target = rng.choice(TARGETS) if rng.random() < 0.2 else rng.choice(TARGETS[:3])
    try:
        if which == 1:
            TCMPS(tiles[0], tiles[1], rng.choice(SCALARS), rng.choice(ENUMS), target=target)
        elif which == 2:
            TEXPANDS(tiles[0], rng.choice(SCALARS), target=target)
        elif which == 3:
            TCI(tiles[0], rng.choice(SCALARS), rng.choice([0, 1, True, 2.5, None]), target=target)
        elif which == 4:
            TPARTMUL(tiles[0], tiles[1], tiles[2], target=target)
        elif which == 5:
            TGATHER(tiles[0], tiles[1], rng.choice(ENUMS), rng.choice(ENUMS), target=target)
        else:
            TGATHER(tiles[0], tiles[1], tiles[2], tiles[3], target=target)
    except ptoisa.PtoError:
        assert [t.tobytes() for t in tiles] == before, "a refused call changed a tile"


def test_hostile_calls_raise_only_our_errors():
    rng = random.Random(5)
    escaped = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(fuzz_budget(3000)):
            try:
                _call(rng)
            except ptoisa.PtoError:
                pass
            except Exception as exc:  # noqa: BLE001 - what this test hunts for
                escaped.append(f"{type(exc).__name__}: {exc}")
    assert not escaped, escaped[:10]


def test_sizes_of_any_integer_type_are_python_ints_and_huge_tiles_are_refused():
    spec = Tile[TileType.Vec, ptoisa.float32_t, np.uint8(16), np.int64(16)]
    assert type(spec.rows) is int and type(spec.cols) is int and spec().data.shape == (16, 16)
    for rows, cols in [(2**20, 2**20), (2**40, 16), (16, 2**63)]:
        try:
            Tile[TileType.Vec, ptoisa.float32_t, rows, cols]
        except ptoisa.TileSpecError as exc:
            assert "ptoisa refuses tiles over 256 MiB" in str(exc)
        else:
            raise AssertionError(f"{rows}x{cols} was accepted")


def _converted(value, dtype):
    """TEXPANDS of `value` into a 1x32-byte tile of `dtype` on cpu: (first element's bits, warnings) or the
    PtoError's text."""
    tile = Tile[TileType.Vec, dtype, 1, 32 // dtype.itemsize]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            TEXPANDS(tile, value, target="cpu")
        except ptoisa.PtoError as exc:
            return str(exc)
    messages = [str(w.message).split(" becomes ")[1] for w in caught if issubclass(w.category, ptoisa.PtoWarning)]
    return tile.storage.view(np.uint8)[:dtype.itemsize].tobytes().hex(), messages


def test_scalars_of_every_number_kind_convert_as_their_value():
    """A 0-d array of numbers is its element (bits and warnings as the NumPy scalar); Fraction, Decimal and
    ml_dtypes numbers convert as the double they are nearest, warning where a float of that value warns (before:
    a 0-d array, a Decimal or a bfloat16 truncated into an integer type without the warning, a Fraction past
    double's range raised OverflowError, a string 0-d array read as its number and NumPy's masked constant as NaN
    with a UserWarning); text, complex numbers, masked values are refused. Bits worked from the formats: half 1.5
    is 0x3e00, float 1/3 rounds to 0x3eaaaaab, float +inf is 0x7f800000."""
    f32, f16, i32 = ptoisa.float32_t, ptoisa.half, ptoisa.int32_t
    one = ("01000000", ["1 as int32 (the implicit conversion C++ would make; pass a value of the element type to "
                        "silence this)"])
    for value in (np.array(1.5, np.float16), np.float16(1.5), decimal.Decimal("1.5"), fractions.Fraction(3, 2),
                  ml_dtypes.bfloat16(1.5), np.array(ml_dtypes.bfloat16(1.5)), 1.5):
        assert _converted(value, i32) == one, value
    assert _converted(np.array(1.5, np.float16), f16) == ("003e", [])
    assert _converted(fractions.Fraction(1, 3), f32) == _converted(1 / 3, f32) == ("abaaaa3e", [])
    inf = ("0000807f", ["inf as float (the implicit conversion C++ would make; pass a value of the element type to "
                        "silence this)"])
    for value in (fractions.Fraction(10**400), decimal.Decimal("1e400"), 10**400, 10**309, 2**1024, 2**1200):
        assert _converted(value, f32) == inf, value
        assert "does not convert to int32 (C++ leaves that undefined)" in _converted(value, i32) or \
            isinstance(value, int), value
    assert _converted(np.array(7, np.int8), i32) == ("07000000", [])
    for value in (np.array("1"), np.ma.masked, np.complex64(1), np.array([1.0]), np.array(None), np.array(1j)):
        assert _converted(value, f32).startswith("TEXPANDS on cpu: scalar must be a number (got "), value
    i32_tile = Tile[TileType.Vec, i32, 1, 8]()
    for start, ok in ((np.array(3, np.int32), True), (np.array(3), False), (np.int64(3), False)):
        try:
            TCI(i32_tile, start, target="cpu")
        except ptoisa.PtoError as exc:
            assert not ok and "start type must be exactly the dst dtype int32 (got int64)" in str(exc)
        else:
            assert ok and i32_tile.data[0, :3].tolist() == [3, 4, 5]


def test_values_too_long_to_print_are_described_in_messages():
    """An int of more than 4300 digits has no repr (Python raises ValueError): a message quoting one failed with
    that ValueError instead of refusing or warning (scalars, tile sizes, enum and target arguments); megabyte
    strings were quoted whole. Now the message describes them."""
    big = 10**5000
    assert _converted(big, ptoisa.int32_t)[1] == ["0 as int32 (the implicit conversion C++ would make; pass a value "
                                                  "of the element type to silence this)"]
    tile = Tile[TileType.Vec, ptoisa.float32_t, 1, 8]()
    mask = Tile[TileType.Vec, ptoisa.uint8_t, 1, 32]()
    calls = [(lambda: Tile[TileType.Vec, ptoisa.float32_t, big, 8], "an integer of about 5001 digits"),
             (lambda: Tile[TileType.Vec, ptoisa.float32_t, -big, 8], "a negative integer of about 5001 digits"),
             (lambda: Tile[big, ptoisa.float32_t, 1, 8], "unknown location an integer of about 5001 digits"),
             (lambda: TCMPS(mask, tile, 1.0, big, target="cpu"), "(got an integer of about 5001 digits;"),
             (lambda: TCMPS(mask, tile, 1.0, "G" * 10**6, target="cpu"),
              "(got a string of 1000000 characters starting 'GGGGGGGGGGGGGGGGGGGG';"),
             (lambda: TCI(Tile[TileType.Vec, ptoisa.int32_t, 1, 8](), 1, descending=big, target="cpu"),
              "descending must be 0/1 or a bool (got an integer of about 5001 digits)"),
             (lambda: TEXPANDS(Tile[TileType.Vec, ptoisa.int32_t, 1, 8](), fractions.Fraction(big, 3), target="cpu"),
              "scalar value a Fraction too long to show does not convert"),
             (lambda: ptoisa.TASSIGN(tile, "y" * 500), "(got a string of 500 characters"),
             (lambda: ptoisa.target(big).__enter__(), "unknown target an integer of about 5001 digits")]
    for call, words in calls:
        try:
            call()
        except ptoisa.PtoError as exc:
            assert words in str(exc) and len(str(exc)) < 400, str(exc)[:300]
        else:
            raise AssertionError(words)


def test_target_blocks_refuse_arguments_of_the_wrong_kind():
    """ptoisa.target / make_config with a list, a dict or a number where names go: TargetError, not the cache's
    'unhashable type' TypeError or frozenset's 'not iterable'."""
    from ptoisa.targets import make_config

    for kwargs, words in [({"name": [1]}, "target must be a name (got list)"),
                          ({"errata": 5}, "errata must be True, False or erratum names (got 5)"),
                          ({"errata": None}, "(got None)"), ({"errata": [1]}, "a set of erratum names"),
                          ({"undefined": ["x"]}, "undefined must be a name (got list)"),
                          ({"undefined": None}, "undefined must be 'raise' or 'emulate'")]:
        try:
            with ptoisa.target(**{"name": "a5", **kwargs}):
                pass
        except ptoisa.TargetError as exc:
            assert words in str(exc), (kwargs, str(exc))
        else:
            raise AssertionError(kwargs)
    for args, words in [(([1],), "target must be a name"), (("a5", [1]), "errata must be True, False or a set"),
                        (("a5", "x"), "errata must be True, False or a set"), (("a5", True, {}), "undefined must")]:
        try:
            make_config(*args)
        except ptoisa.TargetError as exc:
            assert words in str(exc), (args, str(exc))
        else:
            raise AssertionError(args)
    with ptoisa.target("a2a3", errata="tcmps_repeat_tail") as config:  # one name, as before
        assert config.errata == frozenset({"tcmps_repeat_tail"})
