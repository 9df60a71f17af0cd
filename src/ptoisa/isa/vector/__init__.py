"""The instructions beyond the seeds' five (the vector core's, and the cube core's matrix multiply in
`matmul.py`), one module per family, each registering its records with
`ptoisa.isa.record.instruction`. Importing this package imports every module in it: adding an instruction is
adding (or extending) a module here, with its tests and docs; nothing else lists instruction names."""

from __future__ import annotations

import importlib
import pkgutil


def _load_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_all()
