"""Where a hot request's time goes: a diagnostic, off unless the environment asks for it.

``W40K_LATENCY_TRACE=/some/dir`` makes a server process time each request of the match
tracker's hot lane (issue 21: what the write p95 is made of, not only its CPU) and measure its
event loop's lag; each SIGUSR2 writes what was recorded since the previous one to
``/some/dir/latency.<pid>.<n>.tsv`` and starts afresh (``bench/bench_tournament.py --trace``
sends it before and after a load, and sums the files up). Never reachable over the network.

A record is a few ``time.perf_counter()`` marks in the request's ASGI scope, set where the
request passes (seconds, relative to its arrival in the admission gate):

- ``admitted``: the gate let it in (its queue, if the slots were taken);
- ``submitted`` / ``started``: handed to the thread pool, and running on a thread (the pool's
  queue, plus the wait for the GIL to start);
- ``db`` (a sum): time inside the database driver's calls, the commit included (``commit``:
  the commit's own round trip, apart); a driver call that waited on the network then waits for
  the GIL again before it returns, so this includes that wait;
- ``cpu``: the thread's own CPU time (``time.thread_time``) during its trip: the rest of the
  trip's wall time, less ``db``, is mostly waiting for the GIL held by other threads or the loop;
- ``finished``: the trip returned (seen by the thread);
- ``resumed``: the event loop took the answer up again (the loop's queue);
- ``sent``: the answer's last byte was handed to the server.

With the records, the event loop's lag every ``LAG_PERIOD`` seconds (how late a timer fired),
and every garbage collection's generation and pause (``gc.callbacks``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
from collections.abc import MutableMapping
from pathlib import Path
from types import FrameType
from typing import Any

DIRECTORY = os.environ.get("W40K_LATENCY_TRACE") or None
ENABLED = DIRECTORY is not None
KEY = "auspex.latency"  # scope key of a request's marks
LAG_PERIOD = 0.01
FIELDS = (
    "kind",
    "arrived",
    "admitted",
    "submitted",
    "started",
    "db",
    "commit",
    "statements",
    "cpu",
    "finished",
    "resumed",
    "sent",
    "status",
)

_records: list[tuple[Any, ...]] = []
_lags: list[tuple[float, float]] = []
_lag_loops: dict[int, asyncio.Task[None]] = {}  # the watch of each loop (kept alive here)
_local = threading.local()
_dumps = [0]
# (generation, pause in s, the collecting thread's CPU in s, unreachable objects found)
_collections: list[tuple[int, float, float, int]] = []
_gc_started = [0.0, 0.0]


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter(), time.thread_time()]
    else:
        pause = time.perf_counter() - _gc_started[0]
        cpu = time.thread_time() - _gc_started[1]
        _collections.append((info["generation"], pause, cpu, info["collected"]))


def begin(scope: MutableMapping[str, Any]) -> None:
    """The request reached the admission gate."""
    scope[KEY] = {"arrived": time.perf_counter()}
    loop = asyncio.get_running_loop()
    if id(loop) not in _lag_loops:
        _lag_loops[id(loop)] = loop.create_task(_watch_lag())


def label(scope: MutableMapping[str, Any], kind: str) -> None:
    marks = scope.get(KEY)
    if marks is not None:
        marks["kind"] = kind


def mark(scope: MutableMapping[str, Any], name: str, value: float | None = None) -> None:
    marks = scope.get(KEY)
    if marks is not None:
        marks[name] = time.perf_counter() if value is None else value


def thread_begin() -> None:
    """On the thread, at the start of the trip: its CPU clock and the driver's timer."""
    _local.db = 0.0
    _local.commit = 0.0
    _local.statements = 0
    _local.cpu = time.thread_time()


def thread_end(scope: MutableMapping[str, Any]) -> None:
    mark(scope, "finished")
    mark(scope, "cpu", time.thread_time() - getattr(_local, "cpu", time.thread_time()))
    mark(scope, "db", getattr(_local, "db", 0.0))
    mark(scope, "commit", getattr(_local, "commit", 0.0))
    mark(scope, "statements", getattr(_local, "statements", 0))


def add_db(seconds: float, *, commit: bool = False) -> None:
    """Time spent in a driver call on this thread (``commit``: a commit's, counted apart too)."""
    _local.db = getattr(_local, "db", 0.0) + seconds
    if commit:
        _local.commit = getattr(_local, "commit", 0.0) + seconds


def db_so_far() -> float:
    return float(getattr(_local, "db", 0.0))


def finish(scope: MutableMapping[str, Any], kind: str, status: int) -> None:
    marks = scope.pop(KEY, None)
    if marks is None:
        return
    marks["sent"] = time.perf_counter()
    start = marks["arrived"]
    row: list[Any] = [kind, 0.0]
    for name in FIELDS[2:-1]:
        value = marks.get(name)
        if value is None:
            row.append("")
        elif name in ("db", "commit", "statements", "cpu"):
            row.append(f"{value:.6f}")
        else:
            row.append(f"{value - start:.6f}")
    row[1] = f"{start:.6f}"
    row.append(status)
    _records.append(tuple(row))


async def _watch_lag() -> None:
    while True:
        due = time.perf_counter() + LAG_PERIOD
        await asyncio.sleep(LAG_PERIOD)
        now = time.perf_counter()
        _lags.append((now, now - due))


def _dump(signum: int, frame: FrameType | None) -> None:
    del signum, frame
    assert DIRECTORY is not None
    _dumps[0] += 1
    records, lags, collections = list(_records), list(_lags), list(_collections)
    _records.clear()
    _lags.clear()
    _collections.clear()
    out = Path(DIRECTORY)
    out.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(FIELDS)]
    lines += ["\t".join(str(v) for v in r) for r in records]
    lines += [f"lag\t{at:.6f}\t{lag:.6f}" for at, lag in lags]
    lines += [f"gc\t{g}\t{pause:.6f}\t{cpu:.6f}\t{n}" for g, pause, cpu, n in collections]
    (out / f"latency.{os.getpid()}.{_dumps[0]}.tsv").write_text("\n".join(lines) + "\n")


def time_engine(engine: Any) -> None:
    """Time every cursor execution of ``engine`` into the running thread's sum."""
    from sqlalchemy import event

    @event.listens_for(engine, "before_cursor_execute")
    def _before(*_args: Any) -> None:
        _local.t = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _after(*_args: Any) -> None:
        started = getattr(_local, "t", None)
        if started is not None:
            add_db(time.perf_counter() - started)
            _local.statements = getattr(_local, "statements", 0) + 1
            _local.t = None


def install() -> bool:
    """Install the SIGUSR2 dump and the driver timer if the environment asks for them."""
    if not ENABLED or not hasattr(signal, "SIGUSR2"):
        return False
    signal.signal(signal.SIGUSR2, _dump)
    gc.callbacks.append(_on_gc)
    return True
