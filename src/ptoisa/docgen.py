"""Write docs/instructions.md from the instruction registry: `python -m ptoisa.docgen > docs/instructions.md`.

tests/test_docs.py checks the committed page equals this output, so the page cannot drift from the records."""

from __future__ import annotations

import sys
from itertools import groupby

from .dtypes import names
from . import seed_records  # noqa: F401 - registers the seeds' five
from .isa import vector  # noqa: F401 - registers the vector instructions
from .isa.record import REGISTRY, TARGETS, Instruction, conversions

_FAMILIES = {
    "seed": "The seed pages' five (hand-written entry points and text forms: `ptoisa.api`, `ptoisa.ir.ops`)",
    "binary": "Element-wise, tile with tile",
    "scalar": "Element-wise, tile with scalar",
    "unary": "Element-wise, one tile",
    "convert": "Conversion",
    "reduce": "Reductions",
    "expand": "Broadcasts (row and column expansion)",
    "move": "Moves, selections and reshaping",
    "compound": "Compound element-wise (two operations in one)",
    "sort": "Sorting (8-byte value-index pairs)",
    "interleave": "Interleaving and pair sums",
    "scatter": "Scatters and byte-offset block gathers",
    "fill": "Generated fills",
    "quant": "Quantisation",
    "pack": "Packing and scale addresses",
    "cube": "Matrix multiply (the cube core)",
    "random": "Random numbers and histograms",
    "debug": "Debugging",
}
"""Each family's section heading, in page order (every record's family must be here: tests/test_docs.py)."""


def _dtypes(rec: Instruction, target: str) -> str:
    table = rec.legality[target]
    if table.pairs is not None:
        return conversions(table.pairs).replace("; ", "<br>")
    if len(table.dtypes) > 1:
        return "; ".join(f"{role}: {names(allowed)}" for role, allowed in table.dtypes.items())
    allowed = table.dtypes.get("dst") or next(iter(table.dtypes.values()), ())
    return names(allowed) if allowed else "any"


def render() -> str:
    out = [
        "# Instructions",
        "",
        "Generated from the instruction records (`python -m ptoisa.docgen`); each record also gives the Python",
        "entry point (`ptoisa.TADD(...)`), the `pto.*` op of the text forms and its verifier, and the",
        "interpreter's step. Element types are dst's on each target (other roles named where they differ); the rules",
        "behind each kernel are in the module docstrings under `src/ptoisa/isa/vector/` and `docs/semantics.md`.",
        "",
    ]
    order = {family: i for i, family in enumerate(_FAMILIES)}
    # a family without a heading goes last, under its own name, still in one section (sorted by family first)
    records = sorted((r for r in REGISTRY.values() if r.family),
                     key=lambda r: (order.get(r.family, len(order)), r.family, r.name))
    for family, group in groupby(records, key=lambda r: r.family):
        out += [f"## {_FAMILIES.get(family, family)}", "", "| instruction | `.pto` op | meaning | "
                + " | ".join(TARGETS) + " |", "|---|---|---|" + "---|" * len(TARGETS)]
        for rec in group:
            forms = "<br>".join(f"`{form}`" + (" (C++ only: no `.pto` form)" if i in rec.api_only else "")
                                for i, form in enumerate(rec.signature.split(" | ")))
            cells = [forms, f"`{rec.mnemonic}`", rec.summary.replace("|", "\\|"),
                     *(_dtypes(rec, t) for t in TARGETS)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())
