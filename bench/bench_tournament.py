"""Benchmark: tournament night, each write with its refresh and both phones' streams (issue 21).

On a scratch Postgres database with the README's deployment (``uvicorn app.asgi:app --workers
2``, default capacity settings), as ``bench_matches_api.py`` sets it up. Every table has two
phones, one per seat, as players at a table have:

- the phone of the seat whose move it is sends the command (naming its version) every
  ``--think`` seconds (+-50 % seeded jitter) on the table's own clock: a write is due
  ``think`` after the previous one was due, not after it was answered, so that "100 tables x
  0.5 s" offers 200 writes/s whatever the server's latency (a table late on its clock writes
  at once, one request at a time). Until 2026-11-26 the pause followed the answer (closed
  loop), which took the write's and refresh's latency off the rate offered: at 25 ms a cycle,
  a table offered 1.9 writes/s, and 95 % served was out of reach of any server.
  ``W40K_BENCH_CLOSED_LOOP=1`` measures that way again;
- the other phone refreshes the match (``GET /api/v1/matches/{id}``, with ``If-None-Match``
  of its last answer) after each write;
- both phones hold the match's SSE stream (``/events``) throughout, reconnecting with
  ``Last-Event-ID`` as an EventSource does when told to retry.

Loads, each on fresh matches, each for ``--seconds`` (default 20 s for ``make bench``):

1. **baseline**: the writes-only variant (no refresh, no stream), 100 tables x 0.5 s;
2. **the case**: 100 tables x 0.5 s (200 writes/s offered) with refreshes and streams;
3. **the case**: 50 tables x 0.25 s (200 writes/s offered) with refreshes and streams.

For each: writes/s offered and served, write and refresh p95, SSE delivery p95 (from the
write's response reaching its phone to the ``version`` event covering it reaching each
stream; an event that arrives first counts 0), events lost or doubled (every stream must
receive exactly its seat's copy of the log, in order, each entry once: checked against
``GET /log`` at the end), 5xx, 503s, and the **server's CPU per write** (all uvicorn
processes, from ``/proc``; a cycle is a write, its refresh and both stream reads): the
stable figure on a machine shared with other jobs. Ratios against the baseline are printed.

The load generator runs in this process on the same two cores, so it is kept lean (uvloop,
one keep-alive connection per phone, orjson, streams read in large chunks by one task each):
its own CPU per write is printed beside the server's ("load generator ... ms CPU per write",
from ``time.process_time``) so that a reader can tell how much of the machine it took.

Exits non-zero only on lost or doubled events, a 5xx other than 503, or a stream that missed
(``_support.stream_misses``: an answer other than 200, which an EventSource never retries, a
connection refused or broken); it prints whether the issue's targets (served >= 95 %, write
p95 < 50 ms, SSE delivery p95 < 200 ms) were met and the machine's load average, since other
jobs share these cores. Without a Postgres server it says so and exits 0. ``--seconds 60`` for
a longer run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import latency_report  # noqa: E402
import orjson  # noqa: E402
from _support import (  # noqa: E402
    Phone,
    Stream,
    Table,
    drop_database,
    load_average,
    next_move,
    pct,
    scratch_database,
    serve,
    server_cpu,
    sse,
    stop,
    store_matches,
    stream_misses,
    worker_pids,
)
from _support import check_streams as support_check_streams  # noqa: E402
from _support import run as run_loop  # noqa: E402

OPEN_LOOP = os.environ.get("W40K_BENCH_CLOSED_LOOP", "") != "1"
GRACE = 3.0  # seconds the streams stay open after the last write, for its events


@dataclass
class Run:
    """What one load saw."""

    writes: list[float] = field(default_factory=list)  # latencies of accepted writes
    write_server: list[float] = field(default_factory=list)  # their Server-Timing, s
    refreshes: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    written: dict[int, list[tuple[int, float]]] = field(default_factory=dict)  # id: (v, when)
    streams: dict[int, list[Stream]] = field(default_factory=dict)
    not_modified: int = 0
    delivery: list[float] = field(default_factory=list)
    undelivered: int = 0
    lost: int = 0
    doubled: int = 0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    traces: list[Path] = field(default_factory=list)  # --trace: the workers' latency records


async def table_load(
    base: str, matches: list[Table], think: float, seconds: float, run: Run, *, phones: bool
) -> None:
    """One table for ``seconds``: its phones play ``matches`` one after the other (a game is
    some 70 writes), each with its two streams open from before its first write."""
    rng = random.Random(matches[0].match_id)
    own = {"A": Phone(base), "B": Phone(base)}
    until: float | None = None
    try:
        for table in matches:
            until = await play_match(base, table, think, seconds, until, run, own, rng, phones)
            if time.monotonic() >= until:
                return
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
        run.statuses[-1] += 1
        print(f"  table {matches[0].match_id}: {exc!r}")
    finally:
        for phone in own.values():
            phone.close()


async def play_match(
    base: str,
    table: Table,
    think: float,
    seconds: float,
    until: float | None,
    run: Run,
    own: dict[str, Phone],
    rng: random.Random,
    phones: bool,
) -> float:
    """Play ``table``'s match until the game ends or ``until`` (set once the first match's
    streams are open: ``seconds`` from then); returns ``until``."""
    stop = asyncio.Event()
    streams = [Stream("A"), Stream("B")] if phones else []
    run.streams[table.match_id] = streams
    tasks = []
    for st in streams:
        ready = asyncio.Event()
        tasks.append((asyncio.create_task(sse(base, table, st, ready, stop)), ready))
    written = run.written.setdefault(table.match_id, [])
    etag: dict[str, str] = {}
    try:
        for _, ready in tasks:  # both phones hold the stream before the first write
            await asyncio.wait_for(ready.wait(), timeout=30)
        if until is None:
            until = time.monotonic() + seconds
            await asyncio.sleep(think * rng.random())  # the tables do not start in step
        view: dict[str, Any] | None = None
        due = time.monotonic()  # when this table's next write is due (see OPEN_LOOP)
        while time.monotonic() < until:
            if view is None:
                code, _, data = await own["A"].request(
                    "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["A"]
                )
                run.statuses[code] += 1
                if code == 200:
                    body = orjson.loads(data)
                    view, table.version = body["view"], body["version"]
                else:
                    await asyncio.sleep(think)
                    continue
            move = next_move(view)
            if move is None:
                break  # the game is over
            seat, command, dice = move
            payload: dict[str, Any] = {"expected_version": table.version, "command": command}
            if dice is not None:
                payload["dice"] = dice
            t0 = time.perf_counter()
            code, server_ms, data = await own[seat].request(
                "POST", f"/api/v1/matches/{table.match_id}/commands", payload, table.tokens[seat]
            )
            run.statuses[code] += 1
            if code == 200:
                run.writes.append(time.perf_counter() - t0)
                run.write_server.append(server_ms / 1000)
                result = orjson.loads(data)
                table.version, view = result["version"], result["view"]
                written.append((table.version, time.monotonic()))
                if phones:  # the other phone refreshes
                    other = "B" if seat == "A" else "A"
                    headers = {"If-None-Match": etag[other]} if other in etag else None
                    t1 = time.perf_counter()
                    rcode, _, _ = await own[other].request(
                        "GET",
                        f"/api/v1/matches/{table.match_id}",
                        token=table.tokens[other],
                        headers=headers,
                    )
                    run.refreshes.append(time.perf_counter() - t1)
                    run.statuses[rcode] += 1
                    run.not_modified += rcode == 304
                    if "etag" in own[other].headers:
                        etag[other] = own[other].headers["etag"]
            elif code == 409:
                view = None  # read again
            pause = think * rng.uniform(0.5, 1.5)
            if OPEN_LOOP:  # on the table's own clock: the time the write took is not added
                due += pause
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            else:
                await asyncio.sleep(pause)
        # the streams stay open until they have the last version (or GRACE seconds)
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and any(
            not st.versions or st.versions[-1][0] < table.version for st in streams
        ):
            await asyncio.sleep(0.05)
        return until
    finally:
        stop.set()
        await asyncio.gather(*(t for t, _ in tasks), return_exceptions=True)


async def check_streams(base: str, tables: list[Table], run: Run) -> None:
    """Lost/doubled entries against each seat's log, and the delivery time of every write."""
    checked = await support_check_streams(base, tables, run.streams, run.written)
    run.lost += checked.lost
    run.doubled += checked.doubled
    run.undelivered += checked.undelivered
    run.delivery += checked.times


async def load(
    base: str, tables: list[list[Table]], think: float, seconds: float, *, phones: bool
) -> Run:
    run = Run()
    await asyncio.gather(*(table_load(base, t, think, seconds, run, phones=phones) for t in tables))
    if phones:
        await check_streams(base, [m for t in tables for m in t], run)
    return run


def measured(
    server: Any,
    base: str,
    tables: list[list[Table]],
    think: float,
    seconds: float,
    *,
    phones: bool,
    trace: Path | None = None,
) -> Run:
    if trace is not None:
        dump_traces(server, trace)  # what came before is left out
    cpu0, own0 = server_cpu(server), time.process_time()
    run = run_loop(load(base, tables, think, seconds, phones=phones))
    run.server_cpu = server_cpu(server) - cpu0
    run.client_cpu = time.process_time() - own0
    if trace is not None:
        run.traces = dump_traces(server, trace)
    return run


def dump_traces(server: Any, directory: Path) -> list[Path]:
    """Ask each worker for its latency records (``app.core.latency``); the files written."""
    before = set(directory.glob("latency.*.tsv"))
    pids = worker_pids(server)
    for pid in pids:
        os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = set(directory.glob("latency.*.tsv")) - before
        if len(found) >= len(pids):
            time.sleep(0.2)  # written whole
            return sorted(found)
        time.sleep(0.05)
    return sorted(set(directory.glob("latency.*.tsv")) - before)


async def cycle_profile(base: str, server: Any, matches: list[Table], k: int) -> None:
    """The server's CPU per request kind, measured one at a time (no concurrency: the figure
    least disturbed by the other jobs of a shared machine), on ``k`` requests each."""
    out: list[tuple[str, float]] = []

    async def measure(label: str, action: Any) -> float:
        before = server_cpu(server)
        for _ in range(k):
            await action()
        ms = (server_cpu(server) - before) / k * 1000
        out.append((label, ms))
        return ms

    def writer(table: Table, refresh: bool, streams: list[Stream]) -> Any:
        phones = {"A": Phone(base), "B": Phone(base)}
        state: dict[str, Any] = {}

        async def step() -> None:
            if "view" not in state:
                _, _, data = await phones["A"].request(
                    "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["A"]
                )
                body = orjson.loads(data)
                state["view"], table.version = body["view"], body["version"]
            move = next_move(state["view"])
            assert move is not None, "the game ended during the profile"
            seat, command, dice = move
            payload: dict[str, Any] = {"expected_version": table.version, "command": command}
            if dice is not None:
                payload["dice"] = dice
            code, _, data = await phones[seat].request(
                "POST", f"/api/v1/matches/{table.match_id}/commands", payload, table.tokens[seat]
            )
            assert code == 200, (code, data[:200])
            result = orjson.loads(data)
            table.version, state["view"] = result["version"], result["view"]
            if refresh:
                other = "B" if seat == "A" else "A"
                await phones[other].request(
                    "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens[other]
                )
            while any(not st.versions or st.versions[-1][0] < table.version for st in streams):
                await asyncio.sleep(0.002)

        return step, phones

    async def with_streams(table: Table, refresh: bool, label: str) -> None:
        stop = asyncio.Event()
        streams = [Stream("A"), Stream("B")]
        readies = [asyncio.Event(), asyncio.Event()]
        tasks = [
            asyncio.create_task(sse(base, table, st, r, stop))
            for st, r in zip(streams, readies, strict=True)
        ]
        for r in readies:
            await r.wait()
        step, phones = writer(table, refresh, streams)
        await step()  # the first read of the view
        await measure(label, step)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        for phone in phones.values():
            phone.close()

    probe = Phone(base)
    await measure("GET /healthz (the floor of a request)", lambda: probe.request("GET", "/healthz"))
    step, phones = writer(matches[0], False, [])
    await step()
    await measure("write alone (no stream open)", step)
    table = matches[0]
    url = f"/api/v1/matches/{table.match_id}"
    await phones["B"].request("GET", url, token=table.tokens["B"])
    tag = phones["B"].headers.get("etag")
    await measure(
        "refresh of an unchanged version",
        lambda: phones["B"].request("GET", url, token=table.tokens["B"]),
    )
    if tag is not None:
        await measure(
            "refresh with If-None-Match (304)",
            lambda: phones["B"].request(
                "GET", url, token=table.tokens["B"], headers={"If-None-Match": tag}
            ),
        )
    for phone in (*phones.values(), probe):
        phone.close()
    await with_streams(matches[1], False, "write + both streams' events")
    await with_streams(matches[2], True, "cycle: write + refresh + both streams' events")
    print(f"server CPU per request, one at a time ({k} each, all uvicorn processes):")
    for label, ms in out:
        print(f"  {label:<48}{ms:>7.2f} ms")


def p95(values: list[float]) -> float:
    return pct(values, 0.95) if values else float("nan")


def row(label: str, run: Run, offered: float, seconds: float) -> None:
    served = len(run.writes) / seconds
    cpu = run.server_cpu / max(len(run.writes), 1) * 1000
    print(
        f"{label:<30}{offered:>6.0f}{served:>7.1f}{100 * served / offered:>6.0f}%"
        f"{p95(run.writes):>8.1f}{p95(run.refreshes):>8.1f}{p95(run.delivery):>8.1f}"
        f"{run.lost:>5}{run.doubled:>5}{server_errors(run):>5}{run.statuses[503]:>5}"
        f"{misses(run):>5}{cpu:>8.1f}"
    )


def server_errors(run: Run) -> int:
    """The phones' requests answered 5xx other than 503 (503: refused at capacity, by design)."""
    return sum(n for code, n in run.statuses.items() if code >= 500 and code != 503)


def misses(run: Run) -> int:
    """What the streams missed (``_support.stream_misses``: any answer but 200 to a stream's
    GET, which an EventSource never retries, and every connection refused or broken)."""
    return stream_misses(s for ss in run.streams.values() for s in ss)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="s per load (<= 600)")
    parser.add_argument("--tables", type=int, default=100, help="tables of the first case")
    parser.add_argument("--think", type=float, default=0.5, help="s between a table's writes")
    parser.add_argument(
        "--only", choices=("phones",), help="skip the baseline and the second case (profiling)"
    )
    parser.add_argument(
        "--trace",
        type=Path,
        help="directory: time each hot request's stages in the workers (W40K_LATENCY_TRACE) "
        "and print where the write's latency went",
    )
    parser.add_argument(
        "--cycles", type=int, default=30, help="requests per kind in the CPU profile (0: none)"
    )
    args = parser.parse_args(argv)
    seconds = max(5.0, min(args.seconds, 600.0))
    tables_n = max(2, min(args.tables, 200))
    think = max(0.05, min(args.think, 5.0))
    half_n, half_think = max(1, tables_n // 2), think / 2
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()

        def per_table(pause: float) -> int:  # matches each table may play (a game ~ 70 writes)
            return int(seconds / pause / 60) + 1

        counts = [
            (2, 1),
            (3, 1),  # the one-at-a-time CPU profile
            (tables_n, per_table(think)),
            (tables_n, per_table(think)),
            (half_n, per_table(half_think)),
        ]
        every = store_matches(url, sum(n * k for n, k in counts))
        groups: list[list[list[Table]]] = []
        at = 0
        for n, k in counts:
            groups.append([every[at + i * k : at + (i + 1) * k] for i in range(n)])
            at += n * k
        warm, profiled, baseline, case1, case2 = groups
        env = None
        if args.trace is not None:
            args.trace.mkdir(parents=True, exist_ok=True)
            env = {"W40K_LATENCY_TRACE": str(args.trace.resolve())}
        server, base = serve(url, env=env)
        print(
            f"scratch database {name}: {len(every)} matches, 2 workers up "
            f"({time.perf_counter() - t0:.1f} s); {load_average()}"
        )
        run_loop(load(base, warm, 0.2, 2.0, phones=True))  # warm-up: imports, caches
        if args.cycles > 0:
            cycles = max(5, min(args.cycles, 50))
            run_loop(cycle_profile(base, server, [m for t in profiled for m in t], cycles))
        runs = [
            (f"writes only: {tables_n} x {think:g} s", baseline, think, False),
            (f"phones: {tables_n} x {think:g} s", case1, think, True),
            (f"phones: {half_n} x {half_think:g} s", case2, half_think, True),
        ]
        print(
            f"{'load':<30}{'offer':>6}{'served/s':>9}{'':>4}{'w p95':>8}{'r p95':>8}{'sse p95':>8}"
            f"{'lost':>5}{'dbl':>5}{'5xx':>5}{'503':>5}{'miss':>5}{'cpu ms':>8}"
        )
        if args.only == "phones":
            runs = runs[1:2]
        results = []
        for label, tables, pause, phones in runs:
            run = measured(server, base, tables, pause, seconds, phones=phones, trace=args.trace)
            row(label, run, len(tables) / pause, seconds)
            if args.trace is not None:
                outside = [c - s for c, s in zip(run.writes, run.write_server, strict=True)]
                print(
                    f"  write p95 as the client saw it {p95(run.writes):.1f} ms, in the app "
                    f"(Server-Timing) {p95(run.write_server):.1f} ms, outside the app (client loop,"
                    f" sockets, uvicorn) p95 {p95(outside):.1f} ms"
                )
                print(latency_report.report(run.traces))
            results.append((label, run, len(tables) / pause))
        print("(cpu ms: the server's CPU per accepted write, all processes; w/r p95: write and")
        print(" refresh p95 ms; sse p95: from the write's response to each stream's event, ms;")
        print(" miss: stream answers other than 200, connections refused or broken)")
        if len(results) < 2:
            return 0
        base_run = results[0][1]
        base_cpu = base_run.server_cpu / max(len(base_run.writes), 1)
        failed = False
        for label, run, offered in results[1:]:
            cpu = run.server_cpu / max(len(run.writes), 1)
            served = len(run.writes) / seconds
            met = (
                served >= 0.95 * offered
                and p95(run.writes) < 50
                and p95(run.delivery) < 200
                and run.lost == run.doubled == 0
            )
            print(
                f"{label}: CPU per cycle / per write-only write {cpu / base_cpu:.2f} "
                f"({cpu * 1000:.1f} / {base_cpu * 1000:.1f} ms); write p95 / baseline "
                f"{p95(run.writes) / p95(base_run.writes):.2f}; 304 refreshes "
                f"{run.not_modified}; 409 (stale) {run.statuses[409]}; undelivered at the "
                f"end {run.undelivered}; load generator "
                f"{run.client_cpu / max(len(run.writes), 1) * 1000:.1f} ms CPU per write"
            )
            print(
                f"  targets (served >= 95 %, write p95 < 50 ms, SSE p95 < 200 ms, 0 lost): "
                f"{'met' if met else 'NOT met'}"
            )
            if run.lost or run.doubled or server_errors(run) or misses(run):
                failed = True
        print(f"after the run: {load_average()}")
        return 1 if failed else 0
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
