"""Benchmark: 1,000 spectators over SSE across 50 matches while the tournament writes go on
(issue 21).

One app instance (``uvicorn app.asgi:app --workers 2``: one container of the README's
deployment, as the issue's capacity goal runs it; ``--workers 1`` for a single process) on a
scratch Postgres database, with the tournament load of ``bench_tournament.py``: per table, the
phone whose move it is writes on the table's own clock every ``--think`` seconds (+-50 %
jitter; open loop), the other phone refreshes after each write, both phones hold the match's
SSE stream. By default the issue's load: 1,000 spectators over 50 matches while 100 tables x
0.5 s offer 200 writes/s. In the same run:

1. **baseline**: that load on ``--tables`` matches, no spectator;
2. **idle spectators**: ``--spectators`` SSE streams opened through the matches' spectator
   links (``GET /api/v1/spectate/{token}/events``), spread evenly over ``--watched`` other
   matches, nothing written: the server's RSS before and after gives the memory per idle
   connection, and its CPU over ``--idle`` s (longer than the streams' 15 s keep-alive, at
   which each re-reads its match) against the same time with no spectator (the least of two
   such windows, after the server has settled), the CPU per idle connection;
3. **the case**: the same load on ``--tables`` matches, the first ``--watched`` of them the
   spectated ones (so every spectated match is written), the spectators still connected.

Reported for 1 and 3: writes/s offered and served, write and refresh p95, the players' SSE
delivery p95, the server's CPU per write, and for 3 the spectators' delivery p95 (from the
write's response reaching its phone to each spectator's ``version`` event covering it: one
process, one clock) and lost or doubled entries (each spectator must receive exactly the
match's public log, in order, each entry once: checked against ``GET /api/v1/spectate/{token}``
at the end). Ratios against the baseline are printed.

Exits 1 when a target is missed: all spectators connected, spectator delivery p95 < 200 ms,
nothing lost, doubled or undelivered (spectators and players), no 5xx other than 503 and no
broken stream. Served/offered is printed, not a target here (``bench_tournament.py`` holds it).
The load generator shares the machine's cores with the server (its own CPU is printed): the
full size is for a quiet machine. Without a Postgres server it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _support import (  # noqa: E402
    Phone,
    Table,
    _children,
    drop_database,
    load_average,
    pct,
    scratch_database,
    serve,
    server_cpu,
    stop,
    store_matches,
)
from bench_tournament import Run, load  # noqa: E402

TARGET_MS = 200.0
SETTLE_S = 5.0  # s the server is left alone before its quiet CPU is measured


@dataclass
class Spectator:
    """What one spectator's stream received."""

    match_id: int
    token: str
    entries: list[int] = field(default_factory=list)
    versions: list[tuple[int, float]] = field(default_factory=list)
    opened: int = 0
    retried: int = 0
    ended: list[float] = field(default_factory=list)  # when a stream ended (monotonic)
    statuses: Counter[int] = field(default_factory=Counter)


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return want


def server_rss(server: Any) -> int:
    """Resident memory (bytes) of the server and its descendants, from ``/proc``."""
    total, todo = 0, [server.pid]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
        todo += _children(pid)
    return total


async def watch(base: str, sp: Spectator, ready: asyncio.Event) -> None:
    """One spectator's EventSource: reconnects from its last version when the stream ends.
    Runs until cancelled. Raw asyncio streams, read a chunk at a time (one ``read`` per
    wake-up of the stream rather than one ``readline`` per line: 1,000 of these share the
    server's cores); every event is still parsed and kept, and a ``version`` event's arrival
    time is the moment the chunk holding it was read."""
    host, _, port = base.removeprefix("http://").partition(":")
    last: int | None = None
    while True:
        retry = 2.0
        writer = None
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
            resume = f"Last-Event-ID: {last}\r\n" if last is not None else ""
            writer.write(
                (
                    f"GET /api/v1/spectate/{sp.token}/events?timeout=600 HTTP/1.1\r\n"
                    f"Host: {host}\r\nAccept: text/event-stream\r\n{resume}\r\n"
                ).encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split()[1])
            if status != 200:
                sp.statuses[status] += 1  # a miss: an EventSource gives up for good
                return
            sp.opened += 1
            pending = b""
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    sp.retried += 1
                    sp.ended.append(time.monotonic())
                    break
                now = time.monotonic()
                # SSE events end with a blank line; the HTTP chunks' size lines ("1a3\r") fall
                # between them and are skipped as lines that name no field, as before
                *blocks, pending = (pending + data).split(b"\n\n")
                for block in blocks:
                    ident: int | None = None
                    kind = ""
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            ident = int(line[4:])
                        elif line.startswith(b"event: "):
                            kind = line[7:].strip().decode()
                        elif line.startswith(b"retry: "):
                            retry = int(line[7:].strip() or 3000) / 1000
                    if ident is None:
                        continue
                    if kind == "entry":
                        sp.entries.append(ident)
                    elif kind == "version":
                        sp.versions.append((ident, now))
                        last = ident
                        ready.set()
                    elif kind == "gone":
                        sp.statuses[410] += 1
                        return
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            sp.statuses[-2] += 1
        finally:
            if writer is not None:
                writer.close()
        await asyncio.sleep(retry)


async def enable_links(base: str, tables: list[Table]) -> dict[int, str]:
    phone = Phone(base)
    tokens = {}
    try:
        for t in tables:
            for seat in ("A", "B"):  # both players agree (ruling S19)
                code, _, data = await phone.request(
                    "PUT", f"/api/v1/matches/{t.match_id}/spectators", token=t.tokens[seat]
                )
                assert code == 200, (code, data[:200])
            tokens[t.match_id] = json.loads(data)["token"]
    finally:
        phone.close()
    return tokens


@dataclass
class Watched:
    spectators: list[Spectator]
    tasks: list[asyncio.Task[None]]
    rss_before: int
    rss_idle: int
    connect_seconds: float
    cpu_quiet: float  # the server's CPU seconds over ``idle`` s with no spectator, no load
    cpu_idle: float  # the same with the spectators connected and idle
    idle: float
    quiet_windows: list[float]  # the CPU seconds of each window with no spectator
    load_started: float = 0.0


async def idle_cpu(server: Any, seconds: float) -> float:
    """The server's CPU seconds over ``seconds`` of wall time (nothing sent by the load)."""
    cpu0 = server_cpu(server)
    await asyncio.sleep(seconds)
    return server_cpu(server) - cpu0


async def open_spectators(
    base: str, server: Any, tables: list[Table], count: int, idle: float, batch: int = 50
) -> Watched:
    tokens = await enable_links(base, tables)
    # The server's quiet CPU, no spectator: the load and the links' writes leave work behind
    # them (the bookkeeping after the responses, the collector, the pool's connections
    # going idle), so let it settle, then take the least of two windows.
    await asyncio.sleep(SETTLE_S)
    rss_before = server_rss(server)
    quiet = [await idle_cpu(server, idle) for _ in range(2)]
    cpu_quiet = min(quiet)
    spectators = [
        Spectator(tables[i % len(tables)].match_id, tokens[tables[i % len(tables)].match_id])
        for i in range(count)
    ]
    readies = [asyncio.Event() for _ in spectators]
    tasks: list[asyncio.Task[None]] = []
    t0 = time.monotonic()
    for i in range(0, count, batch):  # as spectators arrive: in waves, not all in one instant
        for sp, ready in zip(spectators[i : i + batch], readies[i : i + batch], strict=True):
            tasks.append(asyncio.create_task(watch(base, sp, ready)))
        await asyncio.sleep(0.05)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=120)
    connected = time.monotonic() - t0
    await asyncio.sleep(2.0)
    rss_idle = server_rss(server)
    cpu_idle = await idle_cpu(server, idle)
    return Watched(
        spectators, tasks, rss_before, rss_idle, connected, cpu_quiet, cpu_idle, idle, quiet
    )


async def the_case(
    base: str,
    server: Any,
    watched_tables: list[Table],
    load_tables: list[list[Table]],
    spectators: int,
    think: float,
    seconds: float,
    idle: float,
) -> tuple[Watched, Run, float, float]:
    watched = await open_spectators(base, server, watched_tables, spectators, idle)
    watched.load_started = time.monotonic()
    cpu0, own0 = server_cpu(server), time.process_time()
    run = await load(base, load_tables, think, seconds, phones=True)
    run.server_cpu = server_cpu(server) - cpu0
    run.client_cpu = time.process_time() - own0
    await asyncio.sleep(1.0)  # the last events reach the spectators
    rss_loaded = server_rss(server)
    for task in watched.tasks:
        task.cancel()
    await asyncio.gather(*watched.tasks, return_exceptions=True)
    return watched, run, rss_loaded, time.monotonic()


async def check_spectators(
    base: str, watched: Watched, run: Run
) -> tuple[list[float], int, int, int]:
    """(delivery times, lost, doubled, undelivered) of the spectators' streams."""
    phone = Phone(base)
    public: dict[int, list[int]] = {}
    delivery: list[float] = []
    lost = doubled = undelivered = 0
    try:
        for sp in watched.spectators:
            if sp.match_id not in public:
                code, _, data = await phone.request("GET", f"/api/v1/spectate/{sp.token}")
                assert code == 200, (code, data[:200])
                public[sp.match_id] = [e["seq"] for e in json.loads(data)["log"]]
            expected, got = public[sp.match_id], sp.entries
            doubled += len(got) - len(set(got)) + (got != sorted(set(got)))
            lost += len(set(expected) - set(got))
            for version, when in run.written.get(sp.match_id, []):
                arrival = next((t for v, t in sp.versions if v >= version), None)
                if arrival is None:
                    undelivered += 1
                else:
                    delivery.append(max(0.0, arrival - when))
    finally:
        phone.close()
    return delivery, lost, doubled, undelivered


def p95(values: list[float]) -> float:
    return pct(values, 0.95) if values else float("nan")


def errors_of(run: Run) -> int:
    """5xx but 503 and lost connections of the phones' requests, and any stream answered with
    another status than 200 (an EventSource gives up on it for good) or broken."""
    streams = [s for ss in run.streams.values() for s in ss]
    return sum(
        n for code, n in run.statuses.items() if (code >= 500 and code != 503) or code < 0
    ) + sum(n for s in streams for n in s.statuses.values())


def row(label: str, run: Run, offered: float, seconds: float) -> None:
    served = len(run.writes) / seconds
    cpu = run.server_cpu / max(len(run.writes), 1) * 1000
    print(
        f"{label:<34}{offered:>6.0f}{served:>7.1f}{100 * served / offered:>6.0f}%"
        f"{p95(run.writes):>8.1f}{p95(run.refreshes):>8.1f}{p95(run.delivery):>8.1f}"
        f"{run.lost:>5}{run.doubled:>5}{errors_of(run):>5}{run.statuses[503]:>5}{cpu:>8.1f}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="s per load (<= 600)")
    parser.add_argument("--tables", type=int, default=100, help="tables writing (>= --watched)")
    parser.add_argument("--think", type=float, default=0.5, help="s between a table's writes")
    parser.add_argument("--watched", type=int, default=50, help="matches with spectators")
    parser.add_argument("--spectators", type=int, default=1000, help="SSE spectators in all")
    parser.add_argument("--workers", type=int, default=2, help="the instance's processes")
    parser.add_argument(
        "--idle", type=float, default=20.0, help="s of idle CPU measured (> 15 s keep-alive)"
    )
    args = parser.parse_args(argv)
    workers = max(1, min(args.workers, 4))
    idle_s = max(1.0, min(args.idle, 120.0))
    seconds = max(5.0, min(args.seconds, 600.0))
    watched_n = max(1, min(args.watched, 200))
    tables_n = max(watched_n, min(args.tables, 200))
    think = max(0.05, min(args.think, 5.0))
    count = max(1, min(args.spectators, 5000))
    limit = raise_fd_limit()  # the server inherits it: one descriptor per connection
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()
        per_table = int(seconds / think / 60) + 1  # a game is some 70 writes
        every = store_matches(url, 2 + 2 * tables_n * per_table)
        warm = [[every[0]], [every[1]]]
        rest = every[2:]

        def tables(at: int) -> list[list[Table]]:
            return [rest[at + i * per_table : at + (i + 1) * per_table] for i in range(tables_n)]

        baseline, case = tables(0), tables(tables_n * per_table)
        watched_tables = [t[0] for t in case[:watched_n]]
        server, base = serve(url, workers=workers)
        print(
            f"scratch database {name}: {len(every)} matches, {workers} worker(s) up "
            f"({time.perf_counter() - t0:.1f} s); descriptors {limit}; {load_average()}"
        )
        asyncio.run(load(base, warm, 0.2, 2.0, phones=True))  # warm-up: imports, caches
        offered = tables_n / think
        print(
            f"{'load':<34}{'offer':>6}{'served/s':>9}{'':>4}{'w p95':>8}{'r p95':>8}"
            f"{'sse p95':>8}{'lost':>5}{'dbl':>5}{'5xx':>5}{'503':>5}{'cpu ms':>8}"
        )
        rss_base = server_rss(server)
        cpu0, own0 = server_cpu(server), time.process_time()
        base_run = asyncio.run(load(base, baseline, think, seconds, phones=True))
        base_run.server_cpu = server_cpu(server) - cpu0
        base_run.client_cpu = time.process_time() - own0
        rss_after_base = server_rss(server)
        row(f"phones: {tables_n} x {think:g} s", base_run, offered, seconds)

        async def case_and_check() -> tuple[Watched, Run, float, Any]:
            watched, run, rss_loaded, _ = await the_case(
                base, server, watched_tables, case, count, think, seconds, idle_s
            )
            checked = await check_spectators(base, watched, run)
            return watched, run, rss_loaded, checked

        watched, run, rss_loaded, checked = asyncio.run(case_and_check())
        row(f"+ {count} spectators / {watched_n}", run, offered, seconds)
        delivery, lost, doubled, undelivered = checked
        connected = sum(1 for sp in watched.spectators if sp.versions)
        # any answer but 200, a broken stream, a "gone": none may happen to a spectator here
        sp_errors = sum(n for sp in watched.spectators for n in sp.statuses.values())
        reconnects = sum(sp.retried for sp in watched.spectators)
        during = sum(1 for sp in watched.spectators for t in sp.ended if t >= watched.load_started)
        idle = (watched.rss_idle - watched.rss_before) / max(connected, 1)
        # CPU of an idle connection: µs a second, over a window with every stream's keep-alive
        idle_cpu_us = (
            (watched.cpu_idle - watched.cpu_quiet) / max(connected, 1) / watched.idle * 1e6
        )
        print("(w/r p95: write and refresh p95 ms; sse p95: players' streams, ms; cpu ms: the")
        print(" server's CPU per accepted write)")
        print(
            f"spectators: {connected}/{count} connected in {watched.connect_seconds:.1f} s over "
            f"{watched_n} matches; delivery p95 {p95(delivery):.1f} ms (p50 "
            f"{pct(delivery, 0.5) if delivery else float('nan'):.1f}, max "
            f"{max(delivery) * 1000 if delivery else float('nan'):.1f}) over {len(delivery)} "
            f"deliveries; lost {lost}, doubled {doubled}, undelivered {undelivered}, "
            f"reconnects {reconnects} ({during} during the load), errors {sp_errors}"
        )
        print(
            f"memory: server RSS {rss_base / 2**20:.1f} MiB before the baseline, "
            f"{rss_after_base / 2**20:.1f} after it, {watched.rss_before / 2**20:.1f} before the "
            f"spectators, {watched.rss_idle / 2**20:.1f} with them idle, "
            f"{rss_loaded / 2**20:.1f} after the case; per idle spectator connection "
            f"{idle / 1024:.1f} KiB (RSS delta / connections)"
        )
        print(
            f"CPU: server {watched.cpu_quiet * 1000:.0f} ms over {watched.idle:g} s idle with no "
            f"spectator (least of {', '.join(f'{c * 1000:.0f}' for c in watched.quiet_windows)} "
            f"ms, after {SETTLE_S:g} s settling), "
            f"{watched.cpu_idle * 1000:.0f} ms with them connected and idle; per "
            f"idle spectator connection {idle_cpu_us:.1f} us a second "
            f"({idle_cpu_us * 60 / 1000:.2f} ms a minute)"
        )
        base_cpu = base_run.server_cpu / max(len(base_run.writes), 1)
        cpu = run.server_cpu / max(len(run.writes), 1)
        served_ratio = len(run.writes) / max(len(base_run.writes), 1)
        print(
            f"ratios with spectators / baseline: served {served_ratio:.2f}; write p95 "
            f"{p95(run.writes) / p95(base_run.writes):.2f}; players' SSE p95 "
            f"{p95(run.delivery) / p95(base_run.delivery):.2f}; server CPU per write "
            f"{cpu / base_cpu:.2f} ({cpu * 1000:.1f} / {base_cpu * 1000:.1f} ms); spectator "
            f"p95 / players' SSE p95 (baseline) {p95(delivery) / p95(base_run.delivery):.2f}; "
            f"load generator {run.client_cpu / max(len(run.writes), 1) * 1000:.1f} ms CPU per "
            f"write ({base_run.client_cpu / max(len(base_run.writes), 1) * 1000:.1f} baseline)"
        )
        met = {
            "all spectators connected": connected == count,
            f"spectator delivery p95 < {TARGET_MS:g} ms": p95(delivery) < TARGET_MS,
            "spectators: 0 lost, 0 doubled, all delivered": lost == doubled == undelivered == 0,
            "players: 0 lost, 0 doubled, all delivered": run.lost
            == run.doubled
            == run.undelivered
            == 0,
            "no 5xx but 503, no stream refused or broken": errors_of(run) + sp_errors == 0,
            "served >= 95 % of offered (informative)": len(run.writes) / seconds >= 0.95 * offered,
        }
        for what, ok in met.items():
            print(f"  {what}: {'met' if ok else 'NOT met'}")
        print(f"after the run: {load_average()}; pid {os.getpid()}")
        return 0 if all(ok for what, ok in met.items() if "informative" not in what) else 1
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
