"""ptoisa: a bit-exact Python model of the PTO tile ISA: TCMPS, TCI, TPARTMUL, TEXPANDS, TGATHER and the vector
instructions real kernels use (TADD, TCVT, TROWSUM, ...: docs/instructions.md).

    from ptoisa import *
    SrcT = Tile[TileType.Vec, float, 16, 16]
    DstT = Tile[TileType.Vec, uint8_t, 16, 32, BLayout.RowMajor, -1, -1]
    src, dst = SrcT(), DstT(16, 2)
    TCMPS(dst, src, 0.0, CmpMode.GT)

Targets: `a2a3` (default), `a5`, `cpu`; choose with `target=`, `with ptoisa.target(...)` or $PTOISA_TARGET.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real imports, for type checkers (`X as X`: re-exported, for --strict users); at run
    # time names load on first use (see __getattr__)
    from .api import (
        TCI as TCI,
        TCMPS as TCMPS,
        TEXPANDS as TEXPANDS,
        TGATHER as TGATHER,
        TPARTMUL as TPARTMUL,
    )
    from .dtypes import (
        DType as DType,
        bfloat16_t as bfloat16_t,
        float8_e4m3_t as float8_e4m3_t,
        float8_e5m2_t as float8_e5m2_t,
        float8_e8m0_t as float8_e8m0_t,
        float32_t as float32_t,
        half as half,
        int8_t as int8_t,
        int16_t as int16_t,
        int32_t as int32_t,
        uint8_t as uint8_t,
        uint16_t as uint16_t,
        uint32_t as uint32_t,
    )
    from .errors import (
        ErratumWarning as ErratumWarning,
        IllegalInstructionError as IllegalInstructionError,
        ModeFallbackWarning as ModeFallbackWarning,
        NarrowingWarning as NarrowingWarning,
        NotModelledError as NotModelledError,
        OutOfBoundsError as OutOfBoundsError,
        PlacementError as PlacementError,
        PtoError as PtoError,
        PtoWarning as PtoWarning,
        TargetError as TargetError,
        TileSpecError as TileSpecError,
        UndefinedBehaviourError as UndefinedBehaviourError,
        UninitializedReadError as UninitializedReadError,
    )
    from .events import (
        TSYNC as TSYNC,
        RecordEvent as RecordEvent,
    )
    from .enums import (
        AccToVecMode as AccToVecMode,
        AtomicType as AtomicType,
        CmpMode as CmpMode,
        GatherAxis as GatherAxis,
        HistByte as HistByte,
        MaskPattern as MaskPattern,
        QuantType as QuantType,
        ReluPreMode as ReluPreMode,
        RoundMode as RoundMode,
        SaturationMode as SaturationMode,
        ScatterAxis as ScatterAxis,
        STPhase as STPhase,
        TriangleMode as TriangleMode,
    )
    from .memory import (
        NPU_MEMORY_CLEAR as NPU_MEMORY_CLEAR,
        TASSIGN as TASSIGN,
    )
    from .structs import (
        MrgSortExecutedNumList as MrgSortExecutedNumList,
        TRandomCounter as TRandomCounter,
        TRandomKey as TRandomKey,
    )
    from .targets import (
        Config as Config,
        Target as Target,
        current_config as current_config,
        get_profile as get_profile,
        target as target,
    )
    from typing import Protocol

    from .tile import (
        BLayout as BLayout,
        CompactMode as CompactMode,
        ConvTile as ConvTile,
        Layout as Layout,
        PadValue as PadValue,
        SLayout as SLayout,
        TileSpec as TileSpec,
        TileType as TileType,
    )
    from .tile.tile import Tile as _TileInstance

    class _TileTemplate(Protocol):
        """What type checkers see as `Tile`: `Tile[TileType.Vec, float, 16, 16]` is a TileSpec (C++'s
        `Tile<Vec, float, 16, 16>`), which is called to make tiles; at run time `Tile` is the class itself."""

        def __getitem__(self, params: Any, /) -> TileSpec: ...

        def __call__(self, spec: TileSpec, *valid: int) -> _TileInstance: ...

    Tile: _TileTemplate

# Where each public name lives. Loading on first use keeps `import ptoisa.cli` (and `ptoisa --help`) free of NumPy.
_EXPORTS: dict[str, tuple[str, ...]] = {
    ".api": ("TCI", "TCMPS", "TEXPANDS", "TGATHER", "TPARTMUL"),
    ".dtypes": ("DType", "bfloat16_t", "float8_e4m3_t", "float8_e5m2_t", "float8_e8m0_t", "float32_t", "half", "int8_t",
        "int16_t", "int32_t", "uint8_t", "uint16_t", "uint32_t"),
    ".errors": ("ErratumWarning", "IllegalInstructionError", "ModeFallbackWarning", "NarrowingWarning",
        "NotModelledError",
        "OutOfBoundsError", "PlacementError", "PtoError", "PtoWarning", "TargetError", "TileSpecError",
        "UndefinedBehaviourError", "UninitializedReadError"),
    ".events": ("TSYNC", "RecordEvent"),
    ".enums": ("AccToVecMode", "AtomicType", "CmpMode", "GatherAxis", "HistByte", "MaskPattern", "QuantType", "ReluPreMode",
        "RoundMode", "SaturationMode", "ScatterAxis", "STPhase", "TriangleMode"),
    ".memory": ("NPU_MEMORY_CLEAR", "TASSIGN"),
    ".structs": ("MrgSortExecutedNumList", "TRandomCounter", "TRandomKey"),
    ".targets": ("Config", "Target", "current_config", "get_profile", "target"),
    ".tile": ("BLayout", "CompactMode", "ConvTile", "Layout", "PadValue", "SLayout", "Tile", "TileSpec",
        "TileType"),
}
_LAZY = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None and name == "__all__":  # `from ptoisa import *`: the fixed names and every instruction
        from importlib import import_module

        return [*_ALL, *import_module(".instructions", __name__).__all__]
    if module is None and name.isupper():
        from importlib import import_module

        instructions = import_module(".instructions", __name__)
        if name in instructions.__all__:
            value = getattr(instructions, name)
            globals()[name] = value
            return value
    if module is None:
        raise AttributeError(f"module 'ptoisa' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from importlib import import_module

    return sorted(set(globals()) | set(_LAZY) | set(import_module(".instructions", __name__).__all__))


DYNAMIC = -1
__version__ = "0.1.0"


def load(path_or_text, *, target=None, fill="zero"):  # noqa: ANN001, ANN201 - xDSL is imported lazily
    """Load a `.pto` program (a path or PTOAS text) for execution: `ptoisa.load("k.pto").run(x, y)`.

    The same as `ptoisa.interp.load` (xDSL, which reads the text, is installed with ptoisa)."""
    from .interp import load as load_program

    return load_program(path_or_text, target=target, fill=fill)

_ALL = [
    "RoundMode", "SaturationMode", "ScatterAxis", "TriangleMode", "AccToVecMode", "AtomicType", "QuantType", "ReluPreMode", "STPhase",
    "MrgSortExecutedNumList", "TRandomCounter", "TRandomKey", "HistByte",
    "DYNAMIC", "TASSIGN", "TCI", "TCMPS", "TEXPANDS", "TGATHER", "TPARTMUL", "TSYNC", "NPU_MEMORY_CLEAR",
    "BLayout", "CmpMode", "CompactMode", "Config", "ConvTile", "DType", "ErratumWarning", "GatherAxis",
    "IllegalInstructionError", "Layout", "MaskPattern", "ModeFallbackWarning", "NarrowingWarning", "NotModelledError",
    "OutOfBoundsError", "PadValue", "PlacementError", "PtoError", "PtoWarning", "RecordEvent", "SLayout", "Target",
    "TargetError", "Tile", "TileSpec", "TileSpecError", "TileType", "UndefinedBehaviourError",
    "UninitializedReadError", "bfloat16_t",
    "current_config", "float32_t", "float8_e4m3_t", "float8_e5m2_t", "float8_e8m0_t", "get_profile", "half", "int16_t", "int32_t",
    "int8_t", "load", "target", "uint16_t", "uint32_t", "uint8_t",
]
