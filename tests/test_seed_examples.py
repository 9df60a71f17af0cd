"""Every shipped seed example runs on every target, or is refused exactly where DECISIONS 13 and 14 say."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa.examples import EXAMPLES

REFUSED = {("tgather_auto", "a2a3"), ("tgather_manual", "a2a3"), ("tgather_manual", "a5"),
           ("tgather_manual", "cpu")}


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_example(name, target):
    ptoisa.NPU_MEMORY_CLEAR(target=target)
    with ptoisa.target(target), warnings.catch_warnings():
        warnings.simplefilter("ignore", ptoisa.ErratumWarning)
        if (name, target) in REFUSED:
            with pytest.raises(ptoisa.IllegalInstructionError):
                EXAMPLES[name]()
            return
        tiles = EXAMPLES[name]()
    dst = tiles["dst"]
    expected = _expected(name, target, tiles)
    if expected is not None:
        np.testing.assert_array_equal(dst.valid if name.startswith("tcmps") else dst.data, expected)


def _expected(name, target, tiles):
    """Independent expectations from the seed formulas."""
    k = np.arange(16)
    if name in ("tci_auto", "tci_auto_tmp"):
        return k[None, :]
    if name in ("tci_manual",):
        return (100 - k)[None, :]
    if name == "tci_manual_tmp":
        return (-(100 + k) if target == "a2a3" else 100 - k)[None, :]  # a2a3 erratum
    if name.startswith("tpartmul"):
        a = np.arange(256, dtype=np.float32).reshape(16, 16)
        return a * (1.0 + 0.5 * a)
    if name.startswith("texpands"):
        return np.zeros((16, 16), np.float32)
    if name == "tgather_auto":
        return np.arange(256, dtype=np.float32)[::-1].reshape(16, 16)
    if name.startswith("tcmps"):
        src = tiles.get("src", tiles.get("src0")).data
        scalar = 5.0 if name == "tcmps_tile" else 0.0
        bits = src >= scalar if name == "tcmps_tile" else src > scalar
        # 16 columns -> 2 bytes per row, LSB first; with dst valid 16x2 every target puts row i in dst row i.
        return np.packbits(bits, axis=1, bitorder="little")
    return None
