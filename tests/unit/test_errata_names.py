"""Every erratum name the code consults exists in some target profile: a typo would silently switch it off."""

from __future__ import annotations

import re
from pathlib import Path

from ptoisa.targets import REGISTRY

SRC = Path(__file__).resolve().parents[2] / "src" / "ptoisa"


def test_every_erratum_the_code_names_is_declared():
    declared = {name for profile in REGISTRY.values() for name in profile.errata}
    used = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        used |= set(re.findall(r'erratum\(\s*"([a-z0-9_]+)"', text))
        used |= set(re.findall(r'(?:INSTR|instr), "([a-z0-9_]+)"', text))
        used |= set(re.findall(r'"([a-z0-9_]+)" in config\.profile\.errata', text))
        used |= set(re.findall(r'without\("([a-z0-9_]+)"\)', text))
    assert len(used) >= 20
    assert used <= declared, sorted(used - declared)


def test_every_declared_erratum_is_used_by_the_code():
    declared = {name for profile in REGISTRY.values() for name in profile.errata}
    text = "\n".join(p.read_text() for p in SRC.rglob("*.py") if "targets" not in p.parts)
    unused = [name for name in declared if f'"{name}"' not in text]
    assert not unused, unused
