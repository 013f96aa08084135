"""Soak test: the tournament's mixed load for 10 minutes, then nothing lost and flat memory
(issue 21). ``make soak``; not a benchmark (``make bench`` runs ``bench/bench_*.py`` only) and
not in CI.

On a scratch Postgres database with the README's deployment (``uvicorn app.asgi:app --workers
2``, default capacity settings, as ``bench_tournament.py`` sets it up): ``SOAK_TABLES`` tables
(default 50), each with its two phones (one writes every ``SOAK_THINK`` s, default 1 s, +-50 %
seeded jitter; the other refreshes the match after each write; both hold the match's SSE
stream, resuming with ``Last-Event-ID`` when told to retry), for ``SOAK_SECONDS`` (default 600).
A table that finishes its game (some 60 to 70 writes) starts the next one, so the per-process
caches keep turning over (a process keeps at most 256 match snapshots, of which at most 16 of
ended games: memory is flat once a few games have ended).

Every ``SOAK_SAMPLE_SECONDS`` (default 30 s) it samples each worker's resident memory (RSS, from
``/proc``). At the end it checks every stream against its seat's log (each entry exactly once,
in order) and that every accepted write's version reached both streams, and prints:

- writes/s served, write / refresh p95, SSE delivery p95, 503s and other 5xx;
- the RSS samples and, per worker, the least-squares slope in MB per minute over the whole run
  and over its second half (after the caches have filled: the figure that says "flat").

With ``W40K_TRACEMALLOC=/some/dir`` the workers trace their allocations from the first sample
and write, at each later one, the sites of what is still alive of it (``app.core.runtime``):
where the memory grows. Tracing slows the workers several times over: use fewer tables. A
worker is signalled only once it catches SIGUSR1 (a worker still starting would be killed by
it, and its streams broken with it).

Exits non-zero on any lost, doubled or undelivered event, any 5xx other than 503, a stream
connection refused or broken, a worker that died, no worker found to measure (the memory check
would pass on nothing) or one sampled fewer than twice, a second-half slope above
``SOAK_MAX_SLOPE_MB_PER_MIN`` (default 1.0 MB/min, i.e. less than 10 MB over ten minutes),
503s above ``SOAK_MAX_503_SHARE`` of the writes and refreshes (default 0.02), or fewer writes
served than ``SOAK_MIN_SERVED`` of those offered (default 0.9: the soak's load is below
capacity). Without a Postgres server it says so and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _support import (  # noqa: E402
    _children,
    drop_database,
    load_average,
    scratch_database,
    serve,
    server_cpu,
    stop,
    store_matches,
    stream_misses,
)
from bench_tournament import Run, check_streams, p95, table_load  # noqa: E402

Sample = tuple[float, dict[int, float]]  # (seconds since the start, {worker pid: RSS MB})


def _env(name: str, default: float, lo: float, hi: float) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw) if raw.strip() else default
    except ValueError:
        raise SystemExit(f"{name}={raw!r} is not a number") from None
    return max(lo, min(value, hi))


def workers(server: Any) -> list[int]:
    """The uvicorn worker processes (spawned children running ``spawn_main``): empty when
    none is found (the soak then fails: the supervisor's memory says nothing of the app's)."""
    found = []
    for pid in _children(server.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def catches_sigusr1(pid: int) -> bool:
    """Whether the process has installed its SIGUSR1 handler (``SigCgt`` in ``/proc``): a
    worker still importing the app has not, and the signal's default action would end it
    (uvicorn then starts another, and the streams it held break)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGUSR1 - 1) & 1)
    except (OSError, ValueError):
        return False
    return False


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB), in MB per minute (0 with fewer than 2 points)."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mx) * (v - my) for t, v in points) / var * 60


async def sample_memory(
    server: Any, pids: list[int], every: float, done: asyncio.Event, out: list[Sample]
) -> None:
    start = time.monotonic()
    trace = bool(os.environ.get("W40K_TRACEMALLOC"))  # the workers dump their growth on SIGUSR1
    while True:
        found = {pid: rss_mb(pid) for pid in pids}
        if trace:
            for pid in pids:
                if catches_sigusr1(pid):  # not yet: SIGUSR1's default would kill it
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGUSR1)
        out.append((time.monotonic() - start, {p: v for p, v in found.items() if v is not None}))
        try:
            await asyncio.wait_for(done.wait(), every)
            return
        except TimeoutError:
            continue


async def soak(
    base: str, server: Any, tables: list[list[Any]], think: float, seconds: float, every: float
) -> tuple[Run, list[Sample], list[int]]:
    run = Run()
    samples: list[Sample] = []
    pids = workers(server)
    done = asyncio.Event()
    sampler = asyncio.create_task(sample_memory(server, pids, every, done, samples))
    try:
        await asyncio.gather(
            *(table_load(base, t, think, seconds, run, phones=True) for t in tables)
        )
    finally:
        done.set()
        await sampler
    await check_streams(base, [m for t in tables for m in t], run)
    return run, samples, pids


def main() -> int:
    seconds = _env("SOAK_SECONDS", 600, 30, 3600)
    tables_n = int(_env("SOAK_TABLES", 50, 1, 200))
    think = _env("SOAK_THINK", 1.0, 0.1, 10)
    every = _env("SOAK_SAMPLE_SECONDS", 30, 1, 300)
    max_slope = _env("SOAK_MAX_SLOPE_MB_PER_MIN", 1.0, 0, 1000)
    max_503 = _env("SOAK_MAX_503_SHARE", 0.02, 0, 1)
    min_served = _env("SOAK_MIN_SERVED", 0.9, 0, 1)
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        per_table = int(seconds / think / 60) + 2  # a game is some 70 writes
        every_match = store_matches(url, tables_n * per_table)
        tables = [every_match[i * per_table : (i + 1) * per_table] for i in range(tables_n)]
        server, base = serve(url)
        print(
            f"soak: {tables_n} tables x {think:g} s ({tables_n / think:.0f} writes/s offered, "
            f"each with its refresh and both phones' streams) for {seconds:.0f} s; "
            f"{len(every_match)} matches; {load_average()}",
            flush=True,
        )
        cpu0 = server_cpu(server)
        run, samples, pids = asyncio.run(soak(base, server, tables, think, seconds, every))
        cpu = server_cpu(server) - cpu0
        alive = [pid for pid in pids if rss_mb(pid) is not None]
        return report(
            run,
            samples,
            pids,
            alive,
            seconds,
            tables_n / think,
            cpu,
            Limits(max_slope, max_503, min_served),
        )
    finally:
        stop(server)
        drop_database(admin, name)


@dataclass(frozen=True)
class Limits:
    max_slope: float  # MB/min over the second half, per worker
    max_503: float  # share of the writes' and refreshes' answers
    min_served: float  # share of the writes offered


def report(
    run: Run,
    samples: list[Sample],
    pids: list[int],
    alive: list[int],
    seconds: float,
    offered: float,
    cpu: float,
    limits: Limits,
) -> int:
    max_slope = limits.max_slope
    served = len(run.writes) / seconds
    streams = [s for ss in run.streams.values() for s in ss]
    errors = sum(n for code, n in run.statuses.items() if code >= 500 and code != 503)
    # a stream answered another status than 200 (503 included: a stream past capacity is
    # told to retry with a 200), refused (-1) or broken (-2): an EventSource that lost it
    failed_connects = stream_misses(streams)
    answered = sum(n for code, n in run.statuses.items() if code > 0)
    share_503 = run.statuses[503] / max(answered, 1)
    lost_conns = sum(n for code, n in run.statuses.items() if code < 0)  # a phone's own
    print(
        f"served {served:.1f} writes/s of {offered:.0f} offered ({len(run.writes)} writes); "
        f"write p95 {p95(run.writes):.1f} ms, refresh p95 {p95(run.refreshes):.1f} ms, "
        f"SSE delivery p95 {p95(run.delivery):.1f} ms; 503 {run.statuses[503]}, other 5xx "
        f"{errors}, streams not 200, refused or broken {failed_connects}, phones' lost connections "
        f"{lost_conns}; server CPU per write "
        f"{cpu / max(len(run.writes), 1) * 1000:.1f} ms"
    )
    print(
        f"events: lost {run.lost}, doubled {run.doubled}, undelivered at the end "
        f"{run.undelivered}, over {len(streams)} streams"
    )
    print("RSS of the workers (MB), sampled:")
    for at, rss in samples:
        print(f"  {at:7.0f} s  " + "  ".join(f"{pid}: {mb:7.1f}" for pid, mb in rss.items()))
    flat = bool(pids)
    if not pids:
        print("no uvicorn worker found: the memory was not measured")
    half = samples[-1][0] / 2 if samples else 0.0
    for pid in pids:
        series = [(t, rss[pid]) for t, rss in samples if pid in rss]
        flat = flat and len(series) >= 2  # a worker sampled once or never is not measured
        late = [(t, v) for t, v in series if t >= half]
        whole, second = slope(series), slope(late)
        flat = flat and second <= max_slope
        print(
            f"worker {pid}: {series[0][1] if series else float('nan'):.1f} -> "
            f"{series[-1][1] if series else float('nan'):.1f} MB; slope {whole:+.2f} MB/min "
            f"over the run, {second:+.2f} MB/min over its second half (limit {max_slope:g})"
        )
    died = [pid for pid in pids if pid not in alive]
    refused_ok = share_503 <= limits.max_503
    served_ok = served >= limits.min_served * offered
    print(
        f"503 share {share_503:.2%} (at most {limits.max_503:.0%}); served / offered "
        f"{served / max(offered, 1e-9):.2f} (at least {limits.min_served:g})"
    )
    broken = failed_connects + lost_conns
    ok = (
        run.lost == run.doubled == run.undelivered == 0
        and errors == 0
        and broken == 0
        and flat
        and not died
        and refused_ok
        and served_ok
    )
    print(f"after the run: {load_average()}")
    print(
        "soak: "
        + (
            "passed"
            if ok
            else "FAILED"
            + (" (events lost, doubled or undelivered)" if run.lost or run.doubled else "")
            + (" (undelivered)" if run.undelivered else "")
            + (" (5xx)" if errors else "")
            + (" (connections refused or broken)" if broken else "")
            + (" (too many 503)" if not refused_ok else "")
            + (" (too few writes served)" if not served_ok else "")
            + (" (memory not flat, or not measured)" if not flat else "")
            + (f" (workers died: {died})" if died else "")
        )
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
