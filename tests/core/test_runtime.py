"""The server process's diagnostics and tuning (app.core.runtime)."""

from __future__ import annotations

import gc
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from app.core import runtime

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signals only")


def test_the_memory_trace_is_off_unless_a_directory_is_given() -> None:
    before = signal.getsignal(signal.SIGUSR1)
    assert runtime.trace_memory_on_signal(None) is False
    assert runtime.trace_memory_on_signal("") is False
    assert signal.getsignal(signal.SIGUSR1) is before


def test_sigusr1_starts_tracing_then_dumps_what_grew(tmp_path: Path) -> None:
    if tracemalloc.is_tracing():
        pytest.skip("tracemalloc is already on in this test run (e.g. -X tracemalloc)")
    before = signal.getsignal(signal.SIGUSR1)
    try:
        assert runtime.trace_memory_on_signal(str(tmp_path / "dumps")) is True
        assert not tracemalloc.is_tracing()  # nothing traced before the first signal
        os.kill(os.getpid(), signal.SIGUSR1)
        assert tracemalloc.is_tracing()
        assert not list((tmp_path / "dumps").iterdir())
        kept = [bytearray(1000) for _ in range(2000)]  # some 2 MB that stays alive
        os.kill(os.getpid(), signal.SIGUSR1)
        (dump,) = (tmp_path / "dumps").iterdir()
        assert dump.name == f"tracemalloc.{os.getpid()}.1.txt"
        text = dump.read_text()
        assert "--- by lineno" in text
        assert "--- by traceback" in text
        assert "test_runtime.py" in text.split("--- by traceback")[0]  # where `kept` grew
        assert len(kept) == 2000
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGUSR1, before)


class _Cycle:
    """An object in a reference cycle with itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_a_dump_counts_the_cyclic_garbage_by_type_and_what_grew_since_the_last(
    tmp_path: Path,
) -> None:
    if tracemalloc.is_tracing():
        pytest.skip("tracemalloc is already on in this test run (e.g. -X tracemalloc)")
    before = signal.getsignal(signal.SIGUSR1)
    try:
        assert runtime.trace_memory_on_signal(str(tmp_path / "dumps")) is True
        os.kill(os.getpid(), signal.SIGUSR1)  # tracing starts
        os.kill(os.getpid(), signal.SIGUSR1)  # dump 1
        kept = [bytearray(1000) for _ in range(2000)]  # grows between dumps 1 and 2
        gc.disable()  # the cycles wait for the dump's collection
        try:
            for _ in range(50):
                _Cycle()
            os.kill(os.getpid(), signal.SIGUSR1)  # dump 2
        finally:
            gc.enable()
        text = (tmp_path / "dumps" / f"tracemalloc.{os.getpid()}.2.txt").read_text()
        growth = text.split("--- growth since the previous dump, by traceback")[1]
        assert "test_runtime.py" in growth.split("--- cyclic garbage")[0]
        census = text.split("--- cyclic garbage: ")[1]
        assert int(census.split()[0]) >= 50
        assert f"{__name__}._Cycle" in census
        assert "linecache.py" not in text  # the diagnostic's own allocations are left out
        assert not gc.garbage
        assert len(kept) == 2000
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGUSR1, before)
