"""The xdsl.universe entry point registers the pto dialect for xDSL tools such as xdsl-opt."""

from xdsl.universe import Universe

from ptoisa.ir import PTO


def test_pto_dialect_is_in_the_xdsl_multiverse():
    dialects = Universe.get_multiverse().all_dialects
    assert dialects["pto"]() is PTO
    assert PTO.name == "pto"
