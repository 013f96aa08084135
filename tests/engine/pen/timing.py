"""CPU timing of one engine call for the tests' time bounds, robust to a loaded worker.

A single ``process_time`` around a call counts every thread of the test worker and the call's
one-time costs (lazy imports, first use of the caches), so a loaded CI run could fail a bound the
call itself meets by far. :func:`best_cold_cpu` makes one warm-up call, then times three cold
calls (every cache of the PEN engine cleared before each, so no call is answered from the one
before) on the calling thread's CPU clock, and returns the best: the bounds stay the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def clear_pen_caches() -> None:
    """Clear every ``lru_cache`` of the PEN engine's modules (a cold analysis)."""
    from app.engine.pen import allocation, analysis, attack, rolls, vehicles, wounds

    for module in (analysis, attack, allocation, rolls, vehicles, wounds):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def best_cold_cpu(call: Callable[[], T], runs: int = 3) -> tuple[T, float]:
    """(the call's result, the least CPU seconds of ``runs`` cold calls after a warm-up)."""
    clear_pen_caches()
    result = call()  # warm-up: imports and first-use costs
    best = float("inf")
    for _ in range(runs):
        clear_pen_caches()
        start = time.thread_time()
        result = call()
        best = min(best, time.thread_time() - start)
    return result, best
