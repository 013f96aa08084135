"""Benchmark: past capacity the tracker refuses the excess fast and recovers (issue 21).

Bounded and loopback only. On a scratch Postgres database (as ``bench_matches_api.py``: user
``postgres`` on 127.0.0.1, or ``W40K_PG_ADMIN_URL``), with the same server (``uvicorn
app.asgi:app --workers 2``, default capacity settings), every table has two phones: the
writer sends a command (each naming its version), the other phone refreshes the match
(``GET /api/v1/matches/{id}``) after each write, and both hold the match's SSE stream.

Every table's writes are due on its own clock (open loop, as ``bench_tournament.py``): a
table whose write was slow, or refused, does not offer less for it, so "N tables x T s"
offers N / T writes a second whatever the server does. A table plays its matches one after
the other (a game is some 70 writes).

1. **normal**: ``--tables`` tables (default 50) writing every ``--think`` s (default 1 s):
   the baseline of this run;
2. **capacity**: a saturating load (``--saturate`` tables, default 100, x ``--think / 4``):
   the writes served a second there are this run's capacity C;
3. **overload**: 2 C writes/s offered (4 C tables x 2 s, at most 400 tables: a table has
   one request in flight, and a refused write waits up to 1 s) for ``--overload`` s
   (default 60 s, the issue's run); the commands actually sent are counted, and fewer than
   1.8 C a second is a miss (the server was not offered the overload);
4. **recovery**: the normal load again, on fresh matches, for 15 s;
5. **streams only**: 100 tables with both streams open and no write at all (the issue's cliff:
   150 of 200 streams failed with 500 and ``/healthz`` took 58 s), ``/healthz`` probed.

It prints served writes/s during the overload against C, the share of 503 and how fast they
came, the write p95 in the first 10 s after the overload, ``/healthz`` p95 throughout, and
exits 1 on a miss: a 5xx other than 503 or a lost connection; any stream answered with another
status than 200 or broken (an EventSource gives up for good on an error status: it must be
told to retry); served during the overload below 80 % of C; a 503's p95 above 2 s (refused
fast, never a wait for the pool); write p95 in the 10 s after the overload above 1 s or less
than 90 % of the normal load served then. Without a Postgres server it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
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
    load_average,
    next_move,
    pct,
    scratch_database,
    serve,
    stop,
    store_matches,
)

MAX_TABLES = 400
# s between an overload table's writes (2 C x this many tables offer 2 C writes/s): a table
# has one request in flight and a refused write may wait up to the admission wait (1 s), so
# at 0.5 s a table fell behind its clock and 2 C was only planned, not sent
OVERLOAD_THINK = 2.0
OFFERED_AT_LEAST = 1.8  # x C: the overload's commands actually sent, or the run is a miss
REFUSED_P95_MS = 2000.0  # a 503 comes within the admission wait (1 s) and its answer
RECOVERED_P95_MS = 1000.0
NEAR_CAPACITY = 0.8


@dataclass
class Tally:
    """What one phase saw."""

    sent: int = 0  # commands sent, whatever came of them (200, 503, 409, a lost connection)
    writes: list[tuple[float, float]] = field(default_factory=list)  # (when, latency) if 200
    refused: list[float] = field(default_factory=list)  # latency of each write refused (503)
    statuses: Counter[int] = field(default_factory=Counter)  # every write's and refresh's
    streams: Counter[str] = field(default_factory=Counter)  # served / told to retry / status
    events: int = 0  # SSE events received
    health: list[float] = field(default_factory=list)


def bad_stream(kind: str) -> bool:
    """A stream outcome that an EventSource does not survive: any status but 200, a broken
    connection, a refused connect."""
    return kind not in ("served", "told to retry")


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
                tally.streams[f"status {status}"] += 1
                return  # an EventSource stops here for good: counted as a miss
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


async def play(
    base: str,
    table: Table,
    think: float,
    tally: Tally,
    until: float,
    rng: random.Random,
    due: float,
    phones: tuple[Phone, Phone],
) -> tuple[bool, float]:
    """Play ``table``'s match on the table's clock (``due``: when its next write is due) until
    the game ends or ``until``; returns (the game ended, the next write's due time)."""
    writer, reader = phones
    view: dict[str, Any] | None = None
    while time.monotonic() < until:
        if view is None:
            code, _, data = await reader.request(
                "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["B"]
            )
            tally.statuses[code] += 1
            if code != 200:
                due += think
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                continue
            found = json.loads(data)
            view, table.version = found["view"], found["version"]
        move = next_move(view)
        if move is None:
            return True, due  # the game is over: the table's next match
        seat, command, dice = move
        body: dict[str, Any] = {"expected_version": table.version, "command": command}
        if dice is not None:
            body["dice"] = dice
        t0 = time.perf_counter()
        tally.sent += 1
        code, _, data = await writer.request(
            "POST", f"/api/v1/matches/{table.match_id}/commands", body, token=table.tokens[seat]
        )
        took = time.perf_counter() - t0
        tally.statuses[code] += 1
        if code == 200:
            tally.writes.append((time.monotonic(), took))
            result = json.loads(data)
            table.version, view = result["version"], result["view"]
            rcode, _, _ = await reader.request(  # the other phone refreshes
                "GET", f"/api/v1/matches/{table.match_id}", token=table.tokens["B"]
            )
            tally.statuses[rcode] += 1
        elif code == 503:
            tally.refused.append(took)
        elif code == 409:
            view = None  # someone else moved: read again
        # open loop: the next write is due on the table's own clock, whatever this one took
        due += think * rng.uniform(0.5, 1.5)
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    return False, due


async def table_phones(
    base: str, matches: list[Table], think: float, tally: Tally, until: float, writes: bool
) -> None:
    """One table until ``until``: its phones play ``matches`` one after the other, both
    holding the current match's stream."""
    rng = random.Random(matches[0].match_id)
    phones = (Phone(base), Phone(base))
    try:
        if not writes:
            await asyncio.gather(*(stream(base, matches[0], s, tally, until) for s in "AB"))
            return
        due = time.monotonic() + think * rng.random()  # the tables do not start in step
        for table in matches:
            streams = [
                asyncio.create_task(stream(base, table, seat, tally, until)) for seat in "AB"
            ]
            try:
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                ended, due = await play(base, table, think, tally, until, rng, due, phones)
            finally:
                for task in streams:
                    task.cancel()
                await asyncio.gather(*streams, return_exceptions=True)
            if not ended:
                return
        tally.statuses[-2] += 1  # ran out of matches: the load offered fell short
        print(f"  table {matches[0].match_id}: out of matches before the end of the phase")
    except (OSError, asyncio.IncompleteReadError) as exc:
        tally.statuses[-1] += 1
        print(f"  table {matches[0].match_id}: connection lost ({exc!r})")
    finally:
        for phone in phones:
            phone.close()


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
    base: str, tables: list[list[Table]], think: float, seconds: float, *, writes: bool = True
) -> Tally:
    tally = Tally()
    until = time.monotonic() + seconds
    await asyncio.gather(
        probe_health(base, tally, until),
        *(table_phones(base, t, think, tally, until, writes) for t in tables),
    )
    return tally


def per_table(think: float, seconds: float) -> int:
    """Matches a table may play in ``seconds`` (a game is some 70 writes), with a spare."""
    return int(seconds / think / 60) + 2


def deal(every: list[Table], tables: int, each: int) -> tuple[list[list[Table]], list[Table]]:
    """``tables`` tables of ``each`` matches from ``every``, and what is left."""
    dealt = [every[i * each : (i + 1) * each] for i in range(tables)]
    return dealt, every[tables * each :]


def store_more(url: str, count: int) -> list[Table]:
    """``count`` more matches in a database :func:`store_matches` filled already (it names its
    users after their rank: the ones there are renamed first)."""
    import psycopg

    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("UPDATE users SET email = 'earlier-' || id || '-' || email")
    return store_matches(url, count)


def served_per_s(tally: Tally, seconds: float) -> float:
    return len(tally.writes) / seconds


def report(label: str, tally: Tally, seconds: float, offered: float) -> None:
    lat = [x for _, x in tally.writes]
    total = sum(tally.statuses.values())
    refused = tally.statuses[503]
    errors = sum(n for code, n in tally.statuses.items() if (code >= 500 and code != 503))
    health = [x for x in tally.health if x != float("inf")]
    print(
        f"{label:<36}{offered:>8.0f}{tally.sent / seconds:>8.1f}"
        f"{served_per_s(tally, seconds):>8.1f}"
        f"{(pct(lat, 0.95) if lat else float('nan')):>9.1f}"
        f"{100 * refused / max(total, 1):>7.1f}%"
        f"{(pct(tally.refused, 0.95) if tally.refused else float('nan')):>9.1f}{errors:>6}"
        f"{(pct(health, 0.95) if health else float('nan')):>10.1f}"
        f"{len(tally.health) - len(health):>5}  streams {dict(tally.streams)}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="tables at the normal load")
    parser.add_argument("--think", type=float, default=1.0, help="s between a table's writes")
    parser.add_argument(
        "--saturate", type=int, default=100, help="tables of the capacity load (think / 4)"
    )
    parser.add_argument("--overload", type=float, default=60.0, help="s of overload (<= 120)")
    args = parser.parse_args(argv)
    tables_n = max(5, min(args.tables, 100))
    think = max(0.1, min(args.think, 5.0))
    saturate_n = max(5, min(args.saturate, MAX_TABLES))
    saturate_think = think / 4
    overload_s = max(5.0, min(args.overload, 120.0))
    normal_s, capacity_s, recovery_s, streams_s = 15.0, 15.0, 15.0, 15.0
    cliff_n = 100
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()
        normal_each = per_table(think, normal_s)
        saturate_each = per_table(saturate_think, capacity_s)
        every = store_matches(
            url,
            2 * tables_n * normal_each + saturate_n * saturate_each + cliff_n,
        )
        normal, every = deal(every, tables_n, normal_each)
        recovery, every = deal(every, tables_n, normal_each)
        saturating, every = deal(every, saturate_n, saturate_each)
        cliff, every = deal(every, cliff_n, 1)
        server, base = serve(url)
        print(
            f"scratch database {name}: server up ({time.perf_counter() - t0:.1f} s); "
            f"{load_average()}"
        )
        print(
            f"{'phase':<36}{'offer/s':>8}{'sent/s':>8}{'served':>8}{'p95 ms':>9}{'503':>8}"
            f"{'503 p95':>9}"
            f"{'5xx':>6}{'hz p95':>10}{'hz!':>5}"
        )
        base_tally = asyncio.run(phase(base, normal, think, normal_s))
        report(f"normal: {tables_n} x {think:g} s", base_tally, normal_s, tables_n / think)
        sat = asyncio.run(phase(base, saturating, saturate_think, capacity_s))
        capacity = served_per_s(sat, capacity_s)
        report(
            f"capacity: {saturate_n} x {saturate_think:g} s",
            sat,
            capacity_s,
            saturate_n / saturate_think,
        )
        # 2 C offered: 2 C x OVERLOAD_THINK tables (at most MAX_TABLES, each then more often)
        over_n = max(5, min(MAX_TABLES, math.ceil(2 * capacity * OVERLOAD_THINK)))
        over_think = over_n / max(2 * capacity, 1.0)
        t1 = time.perf_counter()
        over_each = per_table(over_think, overload_s)
        heavy, _ = deal(store_more(url, over_n * over_each), over_n, over_each)
        print(f"  ({over_n} tables stored for the overload in {time.perf_counter() - t1:.1f} s)")
        over = asyncio.run(phase(base, heavy, over_think, overload_s))
        report(
            f"overload: {over_n} x {over_think:.3g} s, {overload_s:g} s",
            over,
            overload_s,
            over_n / over_think,
        )
        end = time.monotonic()
        after = asyncio.run(phase(base, recovery, think, recovery_s))
        report(f"recovery: {tables_n} x {think:g} s", after, recovery_s, tables_n / think)
        quiet = asyncio.run(phase(base, cliff, think, streams_s, writes=False))
        report(f"streams only: {cliff_n} tables, 0 writes", quiet, streams_s, 0)
        print(load_average())

        first10 = [x for when, x in after.writes if when - end <= 10.0]
        p95_after = pct(first10, 0.95) if first10 else float("inf")
        base_rate = served_per_s(base_tally, normal_s)
        over_rate = served_per_s(over, overload_s)
        after_rate = served_per_s(after, recovery_s)
        refused_p95 = pct(over.refused, 0.95) if over.refused else 0.0
        phases = (base_tally, sat, over, after, quiet)
        errors = sum(
            n
            for t in phases
            for code, n in t.statuses.items()
            if (code >= 500 and code != 503) or code < 0
        )
        streams_bad = sum(n for t in phases for k, n in t.streams.items() if bad_stream(k))
        near = over_rate >= NEAR_CAPACITY * capacity
        sent_rate = over.sent / overload_s
        offered_enough = sent_rate >= OFFERED_AT_LEAST * capacity
        fast = refused_p95 <= REFUSED_P95_MS
        recovered = p95_after <= RECOVERED_P95_MS and after_rate >= 0.9 * base_rate
        saturated = capacity < 0.95 * saturate_n / saturate_think
        print(
            f"capacity C (served at {saturate_n / saturate_think:.0f} offered): "
            f"{capacity:.1f} writes/s"
            + ("" if saturated else " (the load did not saturate: C is a lower bound)")
        )
        print(
            f"served writes/s during the overload (2 C offered) / C: {over_rate / capacity:.2f} "
            f"({over_rate:.1f} / {capacity:.1f}; at least {NEAR_CAPACITY:.0%}): "
            f"{'ok' if near else 'MISSED'}"
        )
        print(
            f"commands sent a second during the overload / C: {sent_rate / capacity:.2f} "
            f"({sent_rate:.1f} / {capacity:.1f}, planned {over_n / over_think:.1f}; at least "
            f"{OFFERED_AT_LEAST:g}): {'ok' if offered_enough else 'MISSED (not overloaded)'}"
        )
        print(
            f"503 p95 during the overload: {refused_p95:.1f} ms "
            f"(at most {REFUSED_P95_MS:.0f}): {'ok' if fast else 'MISSED'}"
        )
        print(
            f"write p95 in the 10 s after the overload: {p95_after:.1f} ms (at most "
            f"{RECOVERED_P95_MS:.0f}; normal load: "
            f"{pct([x for _, x in base_tally.writes], 0.95):.1f} ms), served "
            f"{after_rate:.1f} / {base_rate:.1f} writes/s: {'ok' if recovered else 'MISSED'}"
        )
        print(
            f"5xx other than 503, lost connections, tables out of matches: {errors}; streams "
            f"not 200 or broken: {streams_bad}: {'ok' if errors + streams_bad == 0 else 'MISSED'}"
        )
        met = near and fast and recovered and offered_enough
        return 0 if errors == 0 and streams_bad == 0 and met else 1
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
