"""The example kernels under examples/pto parse, verify, and print to a fixed point in both flavours."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoisa.ir import TCmpsOp, TGatherOp, parse_module, print_module
from ptoisa.isa.enums import CmpMode, MaskPattern

ALL = Path(__file__).parents[2] / "examples" / "pto"
EXAMPLES = sorted(p for p in ALL.glob("*.pto") if not p.name.startswith("invalid_"))


def test_examples_exist() -> None:
    assert {p.name for p in EXAMPLES} >= {"tcmps_texpands_aug.pto", "tci_tgather_apr.pto", "tpartmul_tgather_a5.pto"}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
@pytest.mark.parametrize("flavour", ["aug", "apr"])
def test_example_round_trips(path: Path, flavour: str) -> None:
    printed = print_module(parse_module(path.read_text(), str(path)), flavour)  # type: ignore[arg-type]
    assert print_module(parse_module(printed), flavour) == printed  # type: ignore[arg-type]


def test_april_example_fields() -> None:
    path = next(p for p in EXAMPLES if p.name == "tci_tgather_apr.pto")
    module = parse_module(path.read_text())
    (gather,) = [op for op in module.walk() if isinstance(op, TGatherOp)]
    assert gather.mask_pattern.data is MaskPattern.P0101 and gather.axis is None
    assert gather.dst.type.shape == (1, 8)
    assert "!pto.ptr<i32, gm>" in print_module(module)
    assert "!pto.ptr<i32>" in print_module(module, "apr")


def test_august_example_compare_mode() -> None:
    path = next(p for p in EXAMPLES if p.name == "tcmps_texpands_aug.pto")
    (tcmps,) = [op for op in parse_module(path.read_text()).walk() if isinstance(op, TCmpsOp)]
    assert tcmps.cmp_mode.data is CmpMode.GT
    assert tcmps.dst.type.valid_shape == (16, 2)


def test_invalid_examples_are_refused_and_asm_example_parses() -> None:
    from ptoisa.ir.diagnostics import check_text

    invalid = sorted(ALL.glob("invalid_*.pto"))
    assert len(invalid) >= 3
    for path in invalid:
        assert not check_text(path.read_text(), str(path)).ok, path
    for path in sorted(ALL.glob("*.ptoas")):
        assert check_text(path.read_text(), str(path)).ok, path
