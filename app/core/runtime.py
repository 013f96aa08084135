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

# (generation 0 allocations, generation 1 collections, generation 2 collections) between
# collections; CPython's default is (700, 10, 10).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Freeze what start-up allocated and space out collections (call once the app is built)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
