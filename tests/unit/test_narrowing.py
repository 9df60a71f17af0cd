"""Scalars that change their value on conversion are converted as C++ would, and a NarrowingWarning says so."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ptoisa import TCI, TCMPS, TEXPANDS, CmpMode, Tile, TileType, float32_t, int8_t, int32_t, uint8_t
import ptoisa
from ptoisa.errors import NarrowingWarning


def _narrowing(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, NarrowingWarning)]


@pytest.mark.parametrize("dtype,value,stored,shown", [
    (int8_t, 300, 44, "300 becomes 44 as int8"),            # wraps modulo 2^8
    (int32_t, 2**40, 0, "1099511627776 becomes 0 as int32"),
    (int32_t, 7.9, 7, "7.9 becomes 7 as int32"),             # truncation toward zero
    (float32_t, 1e300, np.inf, "1e+300 becomes inf as float"),
])
def test_a_value_that_changes_is_converted_and_announced(dtype, value, stored, shown):
    tile = Tile[TileType.Vec, dtype, 1, 32]()
    messages = _narrowing(lambda: TEXPANDS(tile, value, target="cpu"))
    assert tile.data[0, 0] == stored
    assert len(messages) == 1 and f"TEXPANDS on cpu: scalar {shown}" in messages[0]


def test_every_instruction_says_so():
    dst = Tile[TileType.Vec, int32_t, 1, 16]()
    assert "TCI on a5: start 1.5 becomes 1 as int32" in _narrowing(lambda: TCI(dst, 1.5, target="a5"))[0]
    src = Tile[TileType.Vec, int32_t, 2, 8]()
    pred = Tile[TileType.Vec, uint8_t, 2, 32]()
    assert "scalar 0.5 becomes 0 as int32" in _narrowing(lambda: TCMPS(pred, src, 0.5, CmpMode.EQ, target="cpu"))[0]


@pytest.mark.parametrize("dtype,value", [(int8_t, -128), (int32_t, 2**31 - 1), (float32_t, 0.1), (float32_t, 1e38),
                                         (float32_t, float("inf")), (float32_t, float("nan"))])
def test_values_that_fit_are_silent(dtype, value):
    """Rounding to the nearest float is not narrowing in this sense (0.1 has no exact float either way)."""
    tile = Tile[TileType.Vec, dtype, 1, 32]()
    assert _narrowing(lambda: TEXPANDS(tile, value, target="cpu")) == []


@pytest.mark.parametrize("call", [
    lambda d, a: ptoisa.TADDS(d, a, 1e40),            # a record's generated entry for its one form
    lambda d, a: ptoisa.TDIVS(d, a, 1e40),            # the generated entry of a record with several forms
    lambda d, a: ptoisa.TEXPANDS(d, 1e40),            # a seed's hand-written entry
])
def test_a_warning_from_a_generated_entry_points_at_the_callers_line(call):
    """The fast entries are code generated at import (file names `<ptoisa ...>`): a warning's location skips
    them as it skips ptoisa's files, first call and compiled calls alike (it named the generated code)."""
    T = ptoisa.Tile[ptoisa.TileType.Vec, float, 16, 16]
    d, a = T(), T()
    line = call.__code__.co_firstlineno
    for _ in range(3):
        with warnings.catch_warnings(record=True) as got, ptoisa.target("cpu"):
            warnings.simplefilter("always")
            call(d, a)
        assert [(w.category, w.filename, w.lineno) for w in got] == [(NarrowingWarning, __file__, line)]
