"""Benchmark: sustained tracker writes from 50 concurrent matches on Postgres, over HTTP.

What it does, in one run (bounded: a fixed number of writes and a time limit):

1. creates a scratch Postgres database (like ``scripts/with_postgres.py``; user ``postgres`` on
   127.0.0.1, or ``W40K_PG_ADMIN_URL``), migrates it, and stores 50 started matches (two
   players with API tokens, two starter-catalogue armies) plus one more for the baseline;
2. serves the app with uvicorn in a subprocess on 127.0.0.1 (``--workers 2``, so the fan-out
   goes through LISTEN/NOTIFY), and waits for ``/healthz``;
3. **baseline A**: the same kind of writes, sequentially, on one match (one table, no
   contention); **baseline B**: ``GET /healthz`` (one database round trip) from 50 clients
   with the same pacing as the case (the server's floor under the same concurrency);
4. **the case**: 50 tables at once, each writing its own match as players at a table do
   (roll-offs, objectives, formations, deployment, then phase after phase, Battle-shock tests
   and reaction windows included), every write naming the version it saw. Each table waits a
   "think time" between its writes (``--think``, default 1 s with +-50 % seeded jitter: about
   50 writes/s offered in all, some ten times a club night where a table writes every few
   seconds); ``--think 0`` runs closed-loop, as fast as the server answers (a saturation
   test: latency is then mostly queueing on this machine's cores). Each table talks over its
   own keep-alive connection through a minimal HTTP/1.1 client (:class:`Phone`), so that the
   load generator takes little of the two cores it shares with the server;
5. checks that no event was lost or doubled: for every match, the versions the accepted
   writes moved through tile 1..N exactly, and the stored ``match_events`` seqs are exactly
   1..N;
6. prints p50/p95/p99, the server's own share of each write (its ``Server-Timing`` header),
   the load generator's CPU and the ratios against both baselines, stops the server and drops
   the database.

Run: ``.venv/bin/python bench/bench_matches_api.py`` (add ``--writes N`` to change the writes
per match). Target: p95 under 50 ms. Without a Postgres server it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _support import (  # noqa: E402
    Phone,
    Table,
    check_no_loss,
    drop_database,
    next_move,
    pct,
    scratch_database,
    serve,
    stop,
    store_matches,
)

TABLES = 50
TIME_LIMIT = 25.0  # seconds for the concurrent case


# -- the players ------------------------------------------------------------------------------


async def play(base: str, table: Table, writes: int, deadline: float, think: float) -> None:
    rng = random.Random(table.match_id)
    phone = Phone(base)
    try:
        _, _, data = await phone.request(
            "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["A"]
        )
        view = json.loads(data)["view"]
        await asyncio.sleep(think * rng.random())  # the tables do not start in step
        while len(table.moves) < writes and time.monotonic() < deadline:
            if think and table.moves:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            move = next_move(view)
            if move is None:
                return
            seat, command, dice = move
            body: dict[str, Any] = {"expected_version": table.version, "command": command}
            if dice is not None:
                body["dice"] = dice
            t0 = time.perf_counter()
            code, server, data = await phone.request(
                "POST",
                f"/api/v1/matches/{table.match_id}/commands",
                body,
                token=table.tokens[seat],
            )
            table.latencies.append(time.perf_counter() - t0)
            table.server.append(server / 1000)
            if code != 200:
                table.refused += 1
                raise RuntimeError(f"match {table.match_id}: {code} {data[:300]!r}")
            result = json.loads(data)
            table.moves.append((table.version, result["version"]))
            table.version = result["version"]
            view = result["view"]
    finally:
        phone.close()


async def concurrent_writes(
    base: str, tables: list[Table], writes: int, think: float = 0.0
) -> float:
    deadline = time.monotonic() + TIME_LIMIT
    t0 = time.perf_counter()
    await asyncio.gather(*(play(base, t, writes, deadline, think) for t in tables))
    return time.perf_counter() - t0


async def healthz(base: str, clients: int, per_client: int, think: float = 0.0) -> list[float]:
    out: list[float] = []

    async def one(n: int) -> None:
        rng = random.Random(n)
        phone = Phone(base)
        try:
            await asyncio.sleep(think * rng.random())
            for i in range(per_client):
                if think and i:
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                for _attempt in range(50):
                    t0 = time.perf_counter()
                    code, _, _ = await phone.request("GET", "/healthz")
                    if code == 503:  # /healthz has its own small admission slot (ADR 0009)
                        refused.append(1)
                        await asyncio.sleep(0.05)
                        continue
                    out.append(time.perf_counter() - t0)
                    assert code == 200, code
                    break
        finally:
            phone.close()

    refused: list[int] = []
    await asyncio.gather(*(one(n) for n in range(clients)))
    if refused:
        print(f"  (/healthz answered 503 {len(refused)} times: retried after 50 ms)")
    return out


# -- checks and report ------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=12, help="writes per match (<= 200)")
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="seconds a table waits between its writes (0: closed loop)",
    )
    args = parser.parse_args(argv)
    writes = max(5, min(args.writes, 200))
    think = max(0.0, min(args.think, 5.0))
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()
        tables = store_matches(url, TABLES + 1)
        baseline_table, tables = tables[0], tables[1:]
        server, base = serve(url)
        print(
            f"scratch database {name}: {TABLES + 1} matches ready, server up "
            f"({time.perf_counter() - t0:.1f} s)"
        )

        # warm-up: one request per worker process, so no case pays for imports
        asyncio.run(healthz(base, 4, 5))
        sequential = asyncio.run(concurrent_writes(base, [baseline_table], writes))
        health = asyncio.run(healthz(base, TABLES, 8, think))
        cpu = time.process_time()
        elapsed = asyncio.run(concurrent_writes(base, tables, writes, think))
        cpu = time.process_time() - cpu
        lat = [x for t in tables for x in t.latencies]
        own = [x for t in tables for x in t.server]
        base_lat = baseline_table.latencies
        matches, events = check_no_loss(url, [baseline_table, *tables])

        print(f"{'case':<52}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
        for label, values in (
            ("baseline A: writes, 1 match, sequential", base_lat),
            (f"baseline B: GET /healthz, 50 clients (think {think:g} s)", health),
            (f"writes, {TABLES} matches at once (think {think:g} s)", lat),
            ("  of which the server's own time (Server-Timing)", own),
        ):
            print(
                f"{label:<52}{len(values):>6}{pct(values, 0.5):>9.1f}{pct(values, 0.95):>9.1f}"
                f"{pct(values, 0.99):>9.1f}"
            )
        p95 = pct(lat, 0.95)
        offered = f"{TABLES / think:.0f} writes/s offered" if think else "closed loop"
        print(
            f"throughput: {len(lat) / elapsed:.0f} writes/s over {elapsed:.1f} s ({offered}; "
            f"{sequential:.1f} s for the sequential baseline)"
        )
        print(
            f"load generator: {cpu:.1f} s of CPU ({cpu / max(len(lat), 1) * 1000:.2f} ms per write)"
        )
        print(f"ratio p95 (50 matches) / p95 (1 match sequential): {p95 / pct(base_lat, 0.95):.2f}")
        print(
            f"ratio p95 (50 matches) / p95 (GET /healthz, same pacing): "
            f"{p95 / pct(health, 0.95):.2f}"
        )
        print(
            f"lost or duplicated events: 0 (checked {events} events of {matches} matches; "
            f"{sum(t.refused for t in tables)} writes refused)"
        )
        target = "met" if p95 < 50 else "NOT met"
        print(f"target p95 < 50 ms: {target} ({p95:.1f} ms)")
        return 0
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
