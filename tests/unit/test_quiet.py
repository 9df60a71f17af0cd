"""ptoisa silences NumPy's floating-point warnings around its own arithmetic only (`ptoisa._quiet`): inf and NaN
are the modelled hardware's results, not errors. The user's NumPy error state is neither used nor changed, also
when calls run on several threads at once (the quiet context is one per thread)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import ptoisa
from ptoisa import Tile, TileType
from ptoisa._quiet import quiet_call

F32 = Tile[TileType.Vec, np.float32, 16, 16]
BIG = np.float32(3e38)


def test_quiet_call_ignores_errors_inside_and_leaves_the_callers_state():
    with np.errstate(all="raise"):
        inside = quiet_call(np.geterr)
        assert set(inside.values()) == {"ignore"}
        assert set(np.geterr().values()) == {"raise"}
        assert quiet_call(np.add, np.float32(3e38), np.float32(3e38)) == np.inf
        with pytest.raises(FloatingPointError):
            np.add(np.float32(3e38), np.float32(3e38))


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("call", ["TADD", "TMULS", "TEXP", "TSQRT"])
def test_overflow_and_invalid_give_inf_and_nan_without_a_warning_under_any_error_state(target, call):
    src = F32()
    src.storage[:] = np.tile(np.array([BIG, -1.0, np.inf, 0.0], np.float32), 64)
    dst = F32()
    args = {"TADD": (dst, src, src), "TMULS": (dst, src, 4.0), "TEXP": (dst, src), "TSQRT": (dst, src)}[call]
    for state in ("raise", "warn", "ignore", "call"):
        with np.errstate(all=state, call=print if state == "call" else None), warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):  # the first call compiles the signature, the others run the compiled form
                getattr(ptoisa, call)(*args, target=target)
            assert set(np.geterr().values()) == {state}
    x = np.tile(np.array([BIG, -1.0, np.inf, 0.0], np.float32), 64)
    with np.errstate(all="ignore"):
        want = {"TADD": x + x, "TMULS": x * np.float32(4.0), "TEXP": None, "TSQRT": np.sqrt(x)}[call]
    if want is not None:
        assert dst.storage.tobytes() == want.tobytes()
    else:
        assert np.isinf(dst.storage[0]) and dst.storage[2] == np.inf


def test_threads_each_run_quietly_and_correctly_at_once():
    """Four threads adding overflowing tiles concurrently (NumPy releases the GIL in its loops): no thread
    finds the quiet context entered by another, each gets its own bytes."""
    spec = Tile[TileType.Vec, np.float32, 256, 256]
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def work(seed: int) -> None:
        try:
            rng = np.random.default_rng(seed)
            a, b, d = spec(), spec(), spec()
            a.storage[:] = rng.choice(np.array([BIG, -BIG, 1.5, np.nan], np.float32), a.storage.size)
            b.storage[:] = rng.choice(np.array([BIG, -BIG, 2.5, np.inf], np.float32), b.storage.size)
            with np.errstate(all="ignore"):
                want = (a.storage + b.storage).tobytes()
            barrier.wait()
            for _ in range(200):
                ptoisa.TADD(d, a, b, target="cpu")
                assert d.storage.tobytes() == want
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    with warnings.catch_warnings():  # the filters are process-wide: set once, around every thread
        warnings.simplefilter("error")
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
