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
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

ADMIN = os.environ.get("W40K_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
TABLES = 50
TIME_LIMIT = 25.0  # seconds for the concurrent case


@dataclass
class Table:
    match_id: int
    tokens: dict[str, str]
    version: int = 2
    moves: list[tuple[int, int]] = field(default_factory=list)  # (from, to) per accepted write
    latencies: list[float] = field(default_factory=list)
    server: list[float] = field(default_factory=list)  # the server's own time (Server-Timing)
    refused: int = 0


# -- set-up -----------------------------------------------------------------------------------


def scratch_database() -> tuple[psycopg.Connection[Any], str, str] | None:
    try:
        admin = psycopg.connect(ADMIN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        print(f"Postgres does not answer at {ADMIN} ({exc}); the benchmark is skipped.")
        return None
    name = f"auspex_bench_{uuid.uuid4().hex[:10]}"
    admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    base = ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    return admin, name, f"{base}/{name}"


def store_matches(url: str, count: int) -> list[Table]:
    """``count`` started matches, each between two users with API tokens (committed)."""
    os.environ.setdefault("W40K_PASSWORD_HASH", "fast")
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.accounts.schemas import TokenCreate
    from app.accounts.service import create_token
    from app.catalog.starter import starter_catalogue
    from app.core import migrate
    from app.core.db import make_engine
    from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
    from app.matches import armies, service
    from app.matches.models import Match, MatchStatus, OpponentKind

    migrate.upgrade(url)
    engine = make_engine(url)
    catalogue = starter_catalogue()

    def snapshot(roster: Roster) -> dict[str, Any]:
        return armies.snapshot_from_roster(
            catalogue,
            roster,
            source="bench",
            army_id=None,
            catalogue_id=None,
            points_limit=2000,
        )

    marines = snapshot(
        Roster(
            "Adeptus Astartes",
            "Gladius Task Force",
            BattleSize.STRIKE_FORCE,
            (
                RosterUnit("Captain", warlord=True, attached_to=1),
                RosterUnit("Intercessor Squad", 5),
                RosterUnit("Hellblaster Squad", 5),
                RosterUnit("Terminator Squad", 5),
                RosterUnit("Rhino"),
                RosterUnit("Tactical Squad", 10),
            ),
        )
    )
    orks = snapshot(
        Roster(
            "Orks",
            "War Horde",
            BattleSize.STRIKE_FORCE,
            (
                RosterUnit("Warboss", warlord=True, attached_to=1),
                RosterUnit("Boyz", 10),
                RosterUnit("Nobz", 5),
                RosterUnit("Battlewagon"),
                RosterUnit("Stormboyz", 5),
            ),
        )
    )
    tables = []
    with Session(engine) as s:
        for n in range(count):
            users = [
                User(
                    email=f"bench-{n}-{seat}@example.com",
                    display_name=f"P{n}{seat}",
                    password_hash="x",
                )
                for seat in "AB"
            ]
            s.add_all(users)
            s.flush()
            tokens = {
                seat: create_token(s, u, TokenCreate(name="bench")).secret
                for seat, u in zip("AB", users, strict=True)
            }
            match = Match(
                mission_id="only-war",
                battle_size="strike_force",
                status=MatchStatus.OPEN,
                opponent_kind=OpponentKind.USER,
                created_by_id=users[0].id,
                player_a_id=users[0].id,
                secret=secrets.token_hex(32),
                army_a=marines,
                version=0,
            )
            s.add(match)
            s.flush()
            service.join(s, match, orks, user=users[1])
            tables.append(Table(match.id, tokens))
        s.commit()
    engine.dispose()
    return tables


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "W40K_DATABASE_URL": url, "W40K_ENV": "development"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.asgi:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "2",
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(server.stderr.read().decode() if server.stderr else "no server")
        time.sleep(0.2)


# -- the load generator -----------------------------------------------------------------------


class Phone:
    """One keep-alive HTTP/1.1 connection, as one phone at the table keeps one.

    Deliberately minimal: the load generator shares the machine's two cores with the server,
    and a full client (httpx costs some 6 ms of CPU per request here) would both steal the
    server's CPU and add its own event-loop queueing to every latency it measures.
    """

    def __init__(self, base: str) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, float, bytes]:
        """(status, the server's own ms from its Server-Timing header, body)."""
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        writer.write(head.encode() + payload)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        data = await reader.readexactly(int(headers["content-length"]))
        server = float(headers.get("server-timing", "app;dur=nan").partition("dur=")[2])
        return int(lines[0].split()[1]), server, data

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()


# -- the players ------------------------------------------------------------------------------


def next_move(view: dict[str, Any]) -> tuple[str, dict[str, Any], list[int] | None] | None:
    """What the players at the table do next: (seat, command, dice by hand)."""
    stage = view["stage"]
    if stage == "roll_off":
        return "A", {"type": "roll_off"}, [6, 1]
    if stage == "place_objectives":
        return view["next_seat"], {"type": "place_objective"}, None
    if stage == "declare_formations":
        seat = "A" if not view["players"]["A"]["formation_submitted"] else "B"
        return seat, {"type": "declare_formations", "formation": {}}, None
    if stage == "deploy":
        seat = view["next_seat"]
        unit = next(
            u["id"]
            for u in view["units"]
            if u["owner"] == seat and u["location"] == "to_deploy" and u["bodyguard"] is None
        )
        return seat, {"type": "deploy_unit", "unit": unit}, None
    if stage == "scouts":
        return view["next_seat"], {"type": "end_scouts"}, None
    if stage == "battle":
        if view["reaction_window"]:
            return view["reaction_window"], {"type": "pass"}, None
        pending = view["pending"]["battle_shock_tests"]
        if pending:
            return view["active"], {"type": "battle_shock_test", "unit": pending[0]}, [6, 6]
        return view["active"], {"type": "end_phase"}, None
    for seat in "AB":
        if view["players"][seat]["result"] != "confirmed":
            return seat, {"type": "confirm_result"}, None
    return None


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
                t0 = time.perf_counter()
                code, _, _ = await phone.request("GET", "/healthz")
                out.append(time.perf_counter() - t0)
                assert code == 200
        finally:
            phone.close()

    await asyncio.gather(*(one(n) for n in range(clients)))
    return out


# -- checks and report ------------------------------------------------------------------------


def check_no_loss(url: str, tables: list[Table]) -> tuple[int, int]:
    """(matches checked, events checked); raises if a seq is lost or doubled."""
    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1))
    events = 0
    try:
        for t in tables:
            covered = [2]
            for before, after in t.moves:
                if before != covered[-1] or after <= before:
                    raise AssertionError(f"match {t.match_id}: moves do not tile: {t.moves}")
                covered.append(after)
            seqs = [
                r[0]
                for r in conn.execute(
                    "SELECT seq FROM match_events WHERE match_id = %s ORDER BY seq", (t.match_id,)
                )
            ]
            (version,) = conn.execute(
                "SELECT version FROM matches WHERE id = %s", (t.match_id,)
            ).fetchone() or (None,)
            if seqs != list(range(1, t.version + 1)) or version != t.version:
                raise AssertionError(
                    f"match {t.match_id}: stored seqs 1..{len(seqs)} (version {version}), "
                    f"accepted writes reached {t.version}"
                )
            events += len(seqs)
    finally:
        conn.close()
    return len(tables), events


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


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
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        admin.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
