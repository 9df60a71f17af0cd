"""Mutated `.pto` texts through every text command (check, convert, run): each ends with exit 0, 1 or 2 and a
message of ours, never exit 3 or a traceback. PTOISA_FUZZ_SCALE=170 runs about 10^4 texts."""

from __future__ import annotations

import random
from pathlib import Path

from conftest import cli_status, fuzz_budget


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pto"
SOURCES = [p.read_bytes() for p in sorted(EXAMPLES.glob("*.pto"))]
RUN_ARGS = ["zeros:64x16", "zeros:64x16", "zeros:64x2", "2.0", "100.0"]
SNIPPETS = [b"{", b"}", b"%", b"(", b")", b"<", b">", b":", b",", b"\xff", b"\x00", b"9" * 40, b"-1", b"?",
            b"pto.tcmps", b"scf.for", b"!pto.tile_buf<", b"\"", b"//", b"\n"]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        kind, at = rng.randrange(4), rng.randrange(len(out) + 1)
        if kind == 0 and out:
            del out[at:at + rng.randrange(1, 40)]
        elif kind == 1:
            out[at:at] = rng.choice(SNIPPETS)
        elif kind == 2 and out:
            start = rng.randrange(len(out))
            out[at:at] = out[start:start + rng.randrange(1, 60)]
        elif out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
    return bytes(out)


def test_mutated_texts_never_reach_an_internal_error(tmp_path):
    rng = random.Random(1124)
    bad = []
    for n in range(fuzz_budget(60)):
        path = tmp_path / f"t{n % 4}.pto"
        path.write_bytes(_mutate(rng.choice(SOURCES), rng))
        for argv in (["check", str(path)], ["convert", str(path), "--to", "ssa"], ["run", str(path), *RUN_ARGS]):
            code, err = cli_status(argv)
            if code not in (0, 1, 2) or "internal error" in err or "Traceback" in err:
                bad.append((argv[0], code, err[:200], path.read_bytes()[:100]))
    assert not bad, bad[:3]
