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
import os
import signal
import tracemalloc
from pathlib import Path
from types import FrameType

# (generation 0 allocations, generation 1 collections, generation 2 collections) between
# collections; CPython's default is (700, 10, 10).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Freeze what start-up allocated and space out collections (call once the app is built)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# A diagnostic, off unless the environment asks for it (never reachable over the network):
# ``W40K_TRACEMALLOC=/some/dir`` makes a server process start tracing its allocations at the
# first SIGUSR1, and at each later one write the allocation sites of what is still alive of
# what was allocated since (the growth) to ``/some/dir/tracemalloc.<pid>.<n>.txt``. Nothing is
# traced before the first signal (tracing from start-up slowed a worker under load until
# uvicorn's health check restarted it). For the soak's memory (issue 21).
TRACE_FRAMES = 6
TRACE_TOP = 30


def trace_memory_on_signal(directory: str | None) -> bool:
    """Install the SIGUSR1 diagnostic if ``directory`` is given; return whether it did (no
    ``directory``, or no SIGUSR1 on this platform: no)."""
    if not directory or not hasattr(signal, "SIGUSR1"):
        return False
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    dumps = [0]

    def on_signal(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        if not tracemalloc.is_tracing():
            tracemalloc.start(TRACE_FRAMES)
            return
        dumps[0] += 1
        snap = tracemalloc.take_snapshot()
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
        (out / f"tracemalloc.{os.getpid()}.{dumps[0]}.txt").write_text("\n".join(lines) + "\n")

    signal.signal(signal.SIGUSR1, on_signal)
    return True
