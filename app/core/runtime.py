"""Process-wide tuning of a server process (one uvicorn worker): the garbage collector.

Measured under the tournament load (issue 21, ADR 0009 addendum): a worker holds some 230,000
objects once the app is imported (modules, routes, schemas, catalogue data), nearly all of
them alive for the life of the process. CPython's cyclic collector scanned all of them in each
full (generation 2) collection, 0.2 to 0.7 s at a time under load, about a tenth of the
server's CPU in a write-refresh-stream cycle, and a pause of every request of the process.

So, once the app is built: collect once, then *freeze* what is alive (``gc.freeze``: moved to a
permanent generation the collector no longer scans; it is still freed by reference counting
if dropped), and collect the young generation less often (a request allocates thousands of
short-lived objects; collecting every 700 allocations promoted the ones in flight to the
older generations, which then grew until the next full collection). Cyclic garbage is still
collected, only in larger batches.
"""

from __future__ import annotations

import gc
import linecache
import logging
import os
import signal
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from types import FrameType

log = logging.getLogger("auspex")

# (generation 0 allocations, generation 1 collections, generation 2 collections) between
# collections; CPython's default is (700, 10, 10).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc(full_every: float = 0.0) -> GcBackstop | None:
    """Freeze what start-up allocated and space out collections (call once the app is built);
    ``full_every`` > 0 starts the full collection backstop (:class:`GcBackstop`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    if full_every <= 0:
        return None
    backstop = GcBackstop(full_every)
    backstop.start()
    return backstop


class GcBackstop:
    """A full collection every ``every`` seconds, on a daemon thread of the process.

    With the thresholds above, a generation-2 collection practically never comes under load,
    so a reference cycle on a hot path would be kept for the life of the process (issue 21
    found one: ADR 0009, "no reference cycle on the read path"). The read path is kept free of
    cycles and tested so; this is the backstop for the next one. A full collection scans only
    what is not frozen (the heap grown since start-up: the caches, bounded): it pauses the
    process as any collection does (its measured pause: ``last_pause``, logged at debug level
    with what it freed; ADR 0009's addendum has the figures), once every ``every`` seconds.
    """

    def __init__(self, every: float) -> None:
        self.every = every
        self.runs = 0
        self.freed = 0  # unreachable objects found, over all runs
        self.last_pause = 0.0  # seconds
        self.longest_pause = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gc-backstop", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def collect(self) -> int:
        started = time.perf_counter()
        found = gc.collect()
        pause = time.perf_counter() - started
        self.runs += 1
        self.freed += found
        self.last_pause = pause
        self.longest_pause = max(self.longest_pause, pause)
        log.debug("full collection: %d unreachable objects, %.1f ms", found, pause * 1000)
        return found

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.collect()


# A diagnostic, off unless the environment asks for it (never reachable over the network):
# ``W40K_TRACEMALLOC=/some/dir`` makes a server process start tracing its allocations at the
# first SIGUSR1, and at each later one write to ``/some/dir/tracemalloc.<pid>.<n>.txt`` the
# allocation sites of what is still alive of what was allocated since (the growth), those of
# what grew since the previous dump, and a census by type of the cyclic garbage (what only the
# cyclic collector frees: the dump collects it, with ``gc.DEBUG_SAVEALL`` to count it first).
# The diagnostic's own allocations (tracemalloc's, the source lines read to print the sites)
# are left out. Nothing is traced before the first signal (tracing from start-up slowed a
# worker under load until uvicorn's health check restarted it). For the soak's memory (issue
# 21: the census found each stream-woken snapshot in a reference cycle, see
# ``app.matches.api.event_reader``).
TRACE_FRAMES = 6
TRACE_TOP = 30


def _cyclic_garbage() -> tuple[int, list[tuple[str, int]]]:
    """Collect the cyclic garbage, counting it first: (objects, the most frequent types)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
        found = len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()  # now without saving: frees them
    return found, kinds.most_common(TRACE_TOP)


def trace_memory_on_signal(directory: str | None) -> bool:
    """Install the SIGUSR1 diagnostic if ``directory`` is given; return whether it did (no
    ``directory``, or no SIGUSR1 on this platform: no)."""
    if not directory or not hasattr(signal, "SIGUSR1"):
        return False
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    dumps = [0]
    previous: list[tracemalloc.Snapshot] = []
    own = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, linecache.__file__),
    ]

    def on_signal(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        if not tracemalloc.is_tracing():
            tracemalloc.start(TRACE_FRAMES)
            return
        dumps[0] += 1
        snap = tracemalloc.take_snapshot().filter_traces(own)
        traced, peak = tracemalloc.get_traced_memory()
        lines = [
            f"pid {os.getpid()} dump {dumps[0]}: alive of what was allocated since tracing"
            f" started: {traced} bytes (peak {peak}); gc objects {len(gc.get_objects())}"
        ]
        for key in ("lineno", "traceback"):
            lines.append(f"--- by {key}")
            for stat in snap.statistics(key)[:TRACE_TOP]:
                lines.append(str(stat))
                if key == "traceback":
                    lines.extend("    " + line for line in stat.traceback.format())
        if previous:
            lines.append("--- growth since the previous dump, by traceback")
            for diff in snap.compare_to(previous[0], "traceback")[:TRACE_TOP]:
                lines.append(str(diff))
                lines.extend("    " + line for line in diff.traceback.format())
        previous[:] = [snap]
        found, kinds = _cyclic_garbage()
        lines.append(f"--- cyclic garbage: {found} objects, by type")
        lines.extend(f"{n:8d} {kind}" for kind, n in kinds)
        (out / f"tracemalloc.{os.getpid()}.{dumps[0]}.txt").write_text("\n".join(lines) + "\n")

    signal.signal(signal.SIGUSR1, on_signal)
    return True
