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
    kind = rng.choice([TileType.Vec, TileType.Vec, TileType.Mat, CmpMode.EQ, True, 0, "Vec", 1.0, 10**5000])
    spec = Tile[kind, dtype, rows, cols, rng.choice([BLayout.RowMajor] * 4 + [False, MaskPattern.P0101, "RowMajor"])]
    return spec()


ARRAYS = [[[1, 2], [3]], np.zeros((1, 2), "V4"), np.zeros((1, 2), [("a", "i4"), ("b", "f4")]), [[None]], "1",
          np.ma.masked_array([[1.0]], mask=[[True]]), np.zeros((1, 1), complex), [[2**70]], [[1e400]], np.array(1.0),
          np.zeros((3, 3, 3)), np.array([[ml_dtypes.bfloat16(1)]]), [[float("nan")]], [[-1]], iter([1])]
RAWS = ["x" * 64, [0] * 64, np.zeros(128, np.uint8)[::2], None, 5, b"", bytes(64), np.zeros(16, np.float32)]


def _plausible_tile(rng: random.Random):
    dtype = rng.choice(STANDARD_DTYPES)
    cols = 32 // dtype.itemsize * rng.choice([1, 2])
    tile = Tile[TileType.Vec, dtype, rng.choice([1, 2, 4]), cols]()
    tile.storage.view(np.uint8)[:] = np.frombuffer(rng.randbytes(tile.storage.nbytes), np.uint8)
    return tile


def _call(rng: random.Random) -> None:
    which = rng.randrange(8)
    if which == 0:
        _tile(rng)
        return
    if which == 7:  # a tile's data from odd arrays and bytes
        tile = _plausible_tile(rng)
        before = tile.tobytes()
        try:
            tile.set_logical(rng.choice(ARRAYS)) if rng.random() < 0.6 else tile.load_bytes(rng.choice(RAWS))
        except ptoisa.PtoError:
            assert tile.tobytes() == before, "a refused write changed a tile"
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


def test_tile_template_arguments_of_another_kind_are_refused():
    """Tile[...]'s enums are C++ enum classes: a member of another enum (CmpMode.EQ, an IntEnum of the caller's),
    a bool or a float is not TileType.Vec or BLayout.RowMajor though its value matches (before: Tile[CmpMode.EQ,
    ...] was a Vec tile and BLayout True a ColMajor one). A member, its name and its integer value still are."""
    import enum

    class Other(enum.IntEnum):
        A = 0

    f32 = ptoisa.float32_t
    for args, words in [((CmpMode.EQ, f32, 1, 8), "unknown location <CmpMode.EQ: 0>"),
                        ((Other.A, f32, 1, 8), "unknown location <Other.A: 0>"), ((0.0, f32, 1, 8), "location 0.0"),
                        ((False, f32, 1, 8), "unknown location False"),
                        ((TileType.Vec, f32, 1, 8, True), "unknown BLayout True"),
                        ((TileType.Vec, f32, 1, 8, Other.A), "unknown BLayout <Other.A: 0>")]:
        try:
            Tile[args]
        except ptoisa.TileSpecError as exc:
            assert words in str(exc), (args, str(exc))
        else:
            raise AssertionError(args)
    plain = Tile[TileType.Vec, f32, 1, 8]
    assert Tile[0, f32, 1, 8] is plain and Tile[np.int64(0), f32, 1, 8, 0] is plain and Tile["Vec", f32, 1, 8] is plain


def test_set_logical_and_load_bytes_refuse_what_is_not_numbers_or_bytes():
    """A ragged list (NumPy's ValueError), raw void or record arrays (NumPy's ValueError, or a record's field
    stored as the number), a masked array with masked elements (the hidden values were stored), text or a
    list for load_bytes (TypeError from np.frombuffer): TileSpecError, and no byte changes. A boxed tile's .data
    is a copy: it is read-only, so a write into it is refused by NumPy instead of lost."""
    from ptoisa import SLayout

    tile = Tile[TileType.Vec, ptoisa.float32_t, 2, 8]()
    boxed = Tile[TileType.Mat, ptoisa.half, 16, 16, BLayout.ColMajor, 16, 16, SLayout.RowMajor]()
    for values, words in [([[1, 2], [3]], "not an array"), (np.zeros((2, 2), "V4"), "numbers expected"),
                          (np.zeros((2, 2), [("a", "i4")]), "numbers expected"),
                          (np.ma.masked_array([[1.0, 2.0]], mask=[[False, True]]), "a masked element has no value")]:
        for target in (tile, boxed):
            before = target.tobytes()
            try:
                target.set_logical(values)
            except ptoisa.TileSpecError as exc:
                assert words in str(exc) and target.tobytes() == before, str(exc)
            else:
                raise AssertionError(values)
    tile.set_logical(np.ma.masked_array([[1.0, 2.0]], mask=[[False, False]]))
    assert tile.data[0, :3].tolist() == [1.0, 2.0, 0.0]
    tile.set_logical(np.array([[ml_dtypes.bfloat16(1.5)]]))
    assert tile.data[0, 0] == 1.5
    for raw in ("x" * 64, [0] * 64, np.zeros(128, np.uint8)[::2], None, 5):
        before = tile.tobytes()
        try:
            tile.load_bytes(raw)
        except ptoisa.TileSpecError as exc:
            assert "load_bytes takes bytes or a contiguous buffer" in str(exc) and tile.tobytes() == before
        else:
            raise AssertionError(type(raw))
    for raw in (bytes(range(64)), bytearray(range(64)), memoryview(bytes(range(64))), np.arange(64, dtype=np.uint8),
                np.arange(64, dtype=np.uint8).view(np.float32)):
        tile.load_bytes(raw)
        assert tile.tobytes() == bytes(range(64))
    boxed.set_logical([[2.0]])
    try:
        boxed.data[0, 0] = 5
    except ValueError as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("a write into a boxed tile's copy was taken")
    assert boxed.data[0, 0] == 2.0 and boxed.valid[0, 0] == 2.0 and tile.data.flags.writeable


def test_struct_operands_read_at_most_one_word_too_many():
    """TRANDOM's key and counter, and TRandomKey / TRandomCounter built from one iterable, take the words they need
    and one more to see that there are too many: an endless iterator (itertools.count()) hung the call; a huge
    int is described. Lists, tuples, arrays and iterators of the right length are taken as before."""
    import itertools

    from ptoisa.isa import vector  # noqa: F401 - registers TRANDOM
    from ptoisa.isa.record import REGISTRY
    from ptoisa.structs import TRandomCounter, TRandomKey

    dst = Tile[TileType.Vec, ptoisa.uint32_t, 1, 8]()
    before = dst.tobytes()
    for key, words in [(itertools.count(), "takes 2 uint32_t words (got 3)"),
                       ([10**5000, 1], "an integer of about 5001 digits is not a 32-bit word")]:
        try:
            REGISTRY["TRANDOM"](dst, key, [1, 2, 3, 4], target="cpu")
        except ptoisa.PtoError as exc:
            assert words in str(exc) and dst.tobytes() == before, str(exc)
        else:
            raise AssertionError(key)
    try:
        TRandomCounter(itertools.repeat(1))
    except TypeError as exc:
        assert "takes 4 uint32_t words (got 5)" in str(exc)
    else:
        raise AssertionError("an endless counter was taken")
    assert TRandomKey(iter([1, 2])) == TRandomKey([1, 2]) == TRandomKey(np.array([1, 2], np.uint32))


def test_run_arguments_name_what_they_are_about_and_describe_huge_values():
    """Program.run's subblock= refusals named the block ('block index 1 must be in [0, 0)' for subblock=(1, 0)),
    and a block count, fill byte or limit too long to print raised Python's ValueError instead of the refusal."""
    from ptoisa.interp import ArgumentError, Limits

    program = ptoisa.load("func.func @k() {\n  return\n}\n")
    big = 10**5000
    for kwargs, words in [({"subblock": (1, 0)}, "subblock index 1 must be in [0, 0)"),
                          ({"subblock": None}, "subblock must be an index or an (index, count) pair"),
                          ({"subblock": (0, 2**63)}, "subblock count 9223372036854775808 does not fit the i64 that "
                           "get_subblock_num gives"),
                          ({"block": big}, "block count an integer of about 5001 digits does not fit the i64 that "
                           "get_block_num gives"),
                          ({"block": (big, 1)}, "block index an integer of about 5001 digits must be in [0, 1)"),
                          ({"fill": big}, "fill byte must be in [0, 255] (got an integer of about 5001 digits)"),
                          ({"fill": "x" * 10**5}, "(got a string of 100000 characters starting")]:
        try:
            program.run(**kwargs)
        except ArgumentError as exc:
            assert words in str(exc) and len(str(exc)) < 300, (kwargs, str(exc)[:300])
        else:
            raise AssertionError(kwargs)
    try:
        Limits(max_steps=-big)
    except ArgumentError as exc:
        assert "(got a negative integer of about 5001 digits)" in str(exc)
    else:
        raise AssertionError("a negative limit was taken")
