"""Benchmark: past capacity the tracker refuses the excess fast and recovers (issue 21).

Bounded and loopback only. On a scratch Postgres database (as ``bench_matches_api.py``: user
``postgres`` on 127.0.0.1, or ``W40K_PG_ADMIN_URL``), with the same server (``uvicorn
app.asgi:app --workers 2``, default capacity settings), every table has two phones: the
writer sends a command (each naming its version), the other phone refreshes the match
(``GET /api/v1/matches/{id}``) after each write, and both hold the match's SSE stream.

1. **normal**: ``--tables`` tables (default 50) writing every ``--think`` s (default 1 s):
   the baseline of this run (capacity confirmed: served ~ offered);
2. **overload**: twice as many tables writing twice as often (4x the offered load, well past
   twice the capacity measured in step 1) for ``--overload`` s (default 20 s for ``make bench``;
   the issue's run is ``--overload 60``);
3. **recovery**: the normal load again, on fresh matches, for 15 s;
4. **streams only**: 100 tables with both streams open and no write at all (the issue's cliff:
   150 of 200 streams failed with 500 and ``/healthz`` took 58 s), ``/healthz`` probed.

It prints served writes/s during the overload against the baseline, the share of 503 and of
other 5xx (must be 0), the write p95 in the first 10 s after the overload, ``/healthz`` p95
throughout, and exits non-zero on any 5xx other than 503 or when the server has not recovered
(write p95 after the overload above 1 s, or less than 90 % of the normal load served).
Without a Postgres server it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _support import (  # noqa: E402
    Phone,
    Table,
    drop_database,
    next_move,
    pct,
    scratch_database,
    serve,
    stop,
    store_matches,
)


@dataclass
class Tally:
    """What one phase saw."""

    writes: list[tuple[float, float]] = field(default_factory=list)  # (when, latency) if 200
    statuses: Counter[int] = field(default_factory=Counter)  # every write's and refresh's
    streams: Counter[str] = field(default_factory=Counter)  # opened / told to retry / 5xx
    events: int = 0  # SSE events received
    health: list[float] = field(default_factory=list)


async def stream(base: str, table: Table, seat: str, tally: Tally, until: float) -> None:
    """One phone's SSE stream, reconnecting as an EventSource does, until ``until``."""
    host, _, port = base.removeprefix("http://").partition(":")
    while time.monotonic() < until:
        retry = 3.0
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
        except OSError:
            tally.streams["connect failed"] += 1
            await asyncio.sleep(1)
            continue
        try:
            writer.write(
                (
                    f"GET /api/v1/matches/{table.match_id}/events?timeout=600 HTTP/1.1\r\n"
                    f"Host: {host}\r\nAccept: text/event-stream\r\n"
                    f"Authorization: Bearer {table.tokens[seat]}\r\n\r\n"
                ).encode()
            )
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            status = int(head.split()[1])
            if status != 200:
                tally.streams["503" if status == 503 else f"{status}"] += 1
                retry = 2.0
                continue
            saw_event = False
            while time.monotonic() < until:
                try:
                    line = await asyncio.wait_for(reader.readline(), until - time.monotonic())
                except TimeoutError:
                    break
                if not line:
                    break
                if line.startswith(b"retry: "):
                    retry = int(line[7:].strip() or 3000) / 1000
                elif line.startswith(b"event: "):
                    tally.events += 1
                    saw_event = True
            tally.streams["served" if saw_event else "told to retry"] += 1
        except (OSError, asyncio.IncompleteReadError, ValueError):
            tally.streams["broken"] += 1
        finally:
            writer.close()
        if time.monotonic() < until:
            await asyncio.sleep(min(retry, max(0.0, until - time.monotonic())))


async def table_phones(
    base: str, table: Table, think: float, tally: Tally, until: float, writes: bool
) -> None:
    rng = random.Random(table.match_id)
    streams = [asyncio.create_task(stream(base, table, seat, tally, until)) for seat in ("A", "B")]
    writer, reader = Phone(base), Phone(base)
    try:
        if not writes:
            await asyncio.gather(*streams)
            return
        view: dict[str, Any] | None = None
        await asyncio.sleep(think * rng.random())
        while time.monotonic() < until:
            if view is None:
                code, _, data = await reader.request(
                    "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["B"]
                )
                tally.statuses[code] += 1
                if code == 200:
                    view = json.loads(data)["view"]
                    table.version = json.loads(data)["version"]
                else:
                    await asyncio.sleep(think)
                    continue
            move = next_move(view)
            if move is None:
                break  # the game is over
            seat, command, dice = move
            body: dict[str, Any] = {"expected_version": table.version, "command": command}
            if dice is not None:
                body["dice"] = dice
            t0 = time.perf_counter()
            code, _, data = await writer.request(
                "POST",
                f"/api/v1/matches/{table.match_id}/commands",
                body,
                token=table.tokens[seat],
            )
            tally.statuses[code] += 1
            if code == 200:
                tally.writes.append((time.monotonic(), time.perf_counter() - t0))
                result = json.loads(data)
                table.version = result["version"]
                view = result["view"]
                # the other phone refreshes
                rcode, _, _ = await reader.request(
                    "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["B"]
                )
                tally.statuses[rcode] += 1
            elif code == 409:
                view = None  # someone else moved: read again
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
    except (OSError, asyncio.IncompleteReadError) as exc:
        tally.statuses[-1] += 1
        print(f"  table {table.match_id}: connection lost ({exc!r})")
    finally:
        writer.close()
        reader.close()
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)


async def probe_health(base: str, tally: Tally, until: float) -> None:
    phone = Phone(base)
    try:
        while time.monotonic() < until:
            t0 = time.perf_counter()
            code, _, _ = await phone.request("GET", "/healthz")
            tally.health.append(time.perf_counter() - t0 if code == 200 else float("inf"))
            await asyncio.sleep(0.2)
    finally:
        phone.close()


async def phase(
    base: str, tables: list[Table], think: float, seconds: float, *, writes: bool = True
) -> Tally:
    tally = Tally()
    until = time.monotonic() + seconds
    await asyncio.gather(
        probe_health(base, tally, until),
        *(table_phones(base, t, think, tally, until, writes) for t in tables),
    )
    return tally


def served_per_s(tally: Tally, seconds: float) -> float:
    return len(tally.writes) / seconds


def report(label: str, tally: Tally, seconds: float, offered: float) -> None:
    lat = [x for _, x in tally.writes]
    total = sum(tally.statuses.values())
    refused = tally.statuses[503]
    errors = sum(n for code, n in tally.statuses.items() if code >= 500 and code != 503)
    health = [x for x in tally.health if x != float("inf")]
    print(
        f"{label:<34}{offered:>8.0f}{served_per_s(tally, seconds):>8.1f}"
        f"{(pct(lat, 0.95) if lat else float('nan')):>9.1f}"
        f"{100 * refused / max(total, 1):>7.1f}%{errors:>6}"
        f"{(pct(health, 0.95) if health else float('nan')):>10.1f}"
        f"{len(tally.health) - len(health):>5}  streams {dict(tally.streams)}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="tables at the normal load")
    parser.add_argument("--think", type=float, default=1.0, help="s between a table's writes")
    parser.add_argument("--overload", type=float, default=20.0, help="s of overload (<= 120)")
    args = parser.parse_args(argv)
    tables_n = max(5, min(args.tables, 100))
    think = max(0.1, min(args.think, 5.0))
    overload_s = max(5.0, min(args.overload, 120.0))
    normal_s, recovery_s, streams_s = 15.0, 15.0, 15.0
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()
        cliff_n = 100
        every = store_matches(url, tables_n + 2 * tables_n + tables_n + cliff_n)
        normal = every[:tables_n]
        heavy = every[tables_n : 3 * tables_n]
        recovery = every[3 * tables_n : 4 * tables_n]
        cliff = every[4 * tables_n :]
        server, base = serve(url)
        print(
            f"scratch database {name}: {len(every)} matches, server up "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        print(
            f"{'phase':<34}{'offer/s':>8}{'served':>8}{'p95 ms':>9}{'503':>8}{'5xx':>6}"
            f"{'hz p95':>10}{'hz!':>5}"
        )
        base_tally = asyncio.run(phase(base, normal, think, normal_s))
        report(f"normal: {tables_n} x {think:g} s", base_tally, normal_s, tables_n / think)
        over = asyncio.run(phase(base, heavy, think / 2, overload_s))
        report(
            f"overload: {2 * tables_n} x {think / 2:g} s, {overload_s:g} s",
            over,
            overload_s,
            2 * tables_n / (think / 2),
        )
        end = time.monotonic()
        after = asyncio.run(phase(base, recovery, think, recovery_s))
        report(f"recovery: {tables_n} x {think:g} s", after, recovery_s, tables_n / think)
        quiet = asyncio.run(phase(base, cliff, think, streams_s, writes=False))
        report(f"streams only: {cliff_n} tables, 0 writes", quiet, streams_s, 0)

        first10 = [x for when, x in after.writes if when - end <= 10.0]
        p95_after = pct(first10, 0.95) if first10 else float("inf")
        base_rate = served_per_s(base_tally, normal_s)
        over_rate = served_per_s(over, overload_s)
        after_rate = served_per_s(after, recovery_s)
        print(
            f"served writes/s during the overload / normal: {over_rate / base_rate:.2f} "
            f"({over_rate:.1f} / {base_rate:.1f})"
        )
        print(
            f"write p95 in the 10 s after the overload: {p95_after:.1f} ms "
            f"(normal load: {pct([x for _, x in base_tally.writes], 0.95):.1f} ms)"
        )
        bad = sum(
            n
            for t in (base_tally, over, after, quiet)
            for code, n in t.statuses.items()
            if (code >= 500 and code != 503) or code < 0
        ) + sum(t.streams[k] for t in (base_tally, over, after, quiet) for k in ("broken",))
        bad += sum(
            n
            for t in (base_tally, over, after, quiet)
            for k, n in t.streams.items()
            if k.startswith("5") and k != "503"
        )
        recovered = p95_after < 1000 and after_rate >= 0.9 * base_rate
        print(f"5xx other than 503 (and broken streams): {bad}; recovered: {recovered}")
        return 0 if bad == 0 and recovered else 1
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
