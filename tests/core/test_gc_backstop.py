"""The full collection backstop of a server process (``app.core.runtime.GcBackstop``, issue 21):
with the collector's thresholds spaced out, full collections come rarely, so a reference cycle
would stay; the backstop collects it within its period, and stops when told."""

from __future__ import annotations

import gc
import time
import weakref

from app.core.runtime import GcBackstop


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_the_backstop_frees_a_reference_cycle_within_its_period() -> None:
    enabled = gc.isenabled()
    gc.disable()  # only the backstop collects here
    try:
        node = _Node()
        gone = weakref.ref(node)
        del node
        assert gone() is not None  # reference counting alone keeps a cycle
        backstop = GcBackstop(0.05)
        backstop.start()
        try:
            deadline = time.monotonic() + 10
            while gone() is not None and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            backstop.stop()
        assert gone() is None
        assert backstop.runs >= 1
        assert backstop.freed >= 1
        assert 0 < backstop.last_pause <= backstop.longest_pause
    finally:
        if enabled:
            gc.enable()


def test_a_stopped_backstop_collects_no_more() -> None:
    backstop = GcBackstop(0.01)
    backstop.start()
    time.sleep(0.05)
    backstop.stop()
    runs = backstop.runs
    time.sleep(0.05)
    assert backstop.runs == runs
    assert runs >= 1
