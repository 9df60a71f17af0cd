"""Target legality in the IR is the core's: the same messages as the Python API, on every target."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

import ptoisa
from ptoisa import TCMPS, TPARTMUL, BLayout, Tile, TileType, float32_t, int8_t, uint8_t
from ptoisa.errors import PtoError
from ptoisa.ir import parse_module
from ptoisa.ir.legality import verification_target
from ptoisa.targets import make_config


def ssa(line: str, args: str) -> str:
    return f"module {{\n  func.func @k({args}) {{\n    {line}\n    return\n  }}\n}}\n"


TCMPS_I8 = ssa("%d = pto.tcmps %a, %s : (!pto.tile<16x32xi8>, i8) -> !pto.tile<16x32xui8, valid=16x4>",
               "%a: !pto.tile<16x32xi8>, %s: i8")


def api_error(fn) -> str:
    with pytest.raises(PtoError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tcmps_int8_same_verdict_and_message_as_the_api(target: str) -> None:
    def call() -> None:
        dst = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1](16, 4)
        TCMPS(dst, Tile[TileType.Vec, int8_t, 16, 32](), 0, ptoisa.CmpMode.GT, target=target)

    with verification_target(make_config(target)):
        if target == "a2a3":
            with pytest.raises(VerifyException) as info:
                parse_module(TCMPS_I8)
            assert info.value.args[0] == api_error(call)
        else:
            parse_module(TCMPS_I8)
            call()


def test_tpartmul_pattern_message_matches_the_api() -> None:
    text = ssa("%d = pto.tpartmul %a, %b : (!pto.tile<16x16xf32, valid=8x16>, !pto.tile<16x16xf32, valid=16x8>) "
               "-> !pto.tile<16x16xf32>", "%a: !pto.tile<16x16xf32, valid=8x16>, %b: !pto.tile<16x16xf32, valid=16x8>")

    def call() -> None:
        T = Tile[TileType.Vec, float32_t, 16, 16, BLayout.RowMajor, -1, -1]
        TPARTMUL(T(16, 16), T(8, 16), T(16, 8), target="a5")

    with verification_target(make_config("a5")), pytest.raises(VerifyException) as info:
        parse_module(text)
    assert info.value.args[0] == api_error(call)


def test_dynamic_valid_sizes_are_left_to_run_time() -> None:
    text = ssa("%d = pto.tcmps %a, %s : (!pto.tile<16x32xf32>, f32) -> !pto.tile<16x32xui8, valid=?x?>",
               "%a: !pto.tile<16x32xf32>, %s: f32")
    with verification_target(make_config("a2a3")):
        parse_module(text)
