"""Shared pieces of the HTTP benchmarks (``bench_matches_api``, ``bench_overload``,
``bench_tournament``, ``bench_scaleout``...): a scratch Postgres database with started matches,
the app served by uvicorn in a subprocess (the README's deployment: ``--workers 2``), a minimal
keep-alive HTTP/1.1 client (:class:`Phone`), the players' next move, a phone's event stream
(:func:`sse`) and the check of what the streams received (:func:`check_streams`), the no-loss
check of the stored log, percentiles and the CPU time of the server's processes (``/proc``).

Not a benchmark itself (``make bench`` runs ``bench/bench_*.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import orjson  # noqa: E402
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

T = TypeVar("T")
ADMIN = os.environ.get("W40K_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


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


# What the Dockerfile's command gives uvicorn besides the address and the worker count (kept in
# step with it by tests/core/test_asgi.py): the benchmarks measure the server production runs.
PRODUCTION_FLAGS = ("--loop", "uvloop", "--http", "httptools", "--no-proxy-headers")


def serve(
    url: str, *, workers: int = 2, env: dict[str, str] | None = None, access_log: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """The app under uvicorn (``workers`` processes) on a free loopback port, once it answers,
    run as the Dockerfile runs it (:data:`PRODUCTION_FLAGS`, no access log); ``access_log``
    turns uvicorn's access log on (to stderr's temporary file), to measure what it costs.

    Its error output goes to a temporary file, never to a pipe nobody reads: over a long run
    (``soak.py``) a full pipe would block the workers' logging, and the workers with it. Two
    workers take 20 to 40 s to start on this shared machine: it waits up to 120 s.
    """
    port = free_port()
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server runs
    env = {**os.environ, "W40K_DATABASE_URL": url, "W40K_ENV": "development", **(env or {})}
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
            str(workers),
            *PRODUCTION_FLAGS,
            *(("--access-log",) if access_log else ("--log-level", "warning", "--no-access-log")),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=errors,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + (300 if env.get("W40K_TRACEMALLOC") else 120)
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=5).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            stop(server)
            errors.seek(0)
            raise RuntimeError(errors.read().decode(errors="replace")[-4000:] or "no server")
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
        self.headers: dict[str, str] = {}

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, float, bytes]:
        """(status, the server's own ms from its Server-Timing header, body); the response's
        headers (lower-case names) are left in :attr:`headers`."""
        reused = self.streams is not None
        try:
            return await self._request(method, path, body, token, headers)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            if not reused:
                raise
            # the server closed the idle keep-alive connection (uvicorn: after 5 s), as it
            # may: send again on a new one, as HTTP clients do (a command names its version,
            # so a repeat can only be refused with 409, never applied twice)
            self.close()
            return await self._request(method, path, body, token, headers)

    async def _request(
        self,
        method: str,
        path: str,
        body: Any,
        token: str | None,
        headers: dict[str, str] | None,
    ) -> tuple[int, float, bytes]:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        payload = b"" if body is None else orjson.dumps(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        writer.write(head.encode() + payload)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        found = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            found[name.strip().lower()] = value.strip()
        self.headers = found
        data = await reader.readexactly(int(found.get("content-length", "0")))
        if found.get("connection", "").lower() == "close":  # e.g. a 503 before the body
            self.close()
        server = float(found.get("server-timing", "app;dur=nan").partition("dur=")[2])
        return int(lines[0].split()[1]), server, data

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on uvloop when it is installed (it is, with uvicorn[standard]): the
    load generator's event loop costs less CPU on the cores it shares with the server."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


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


def stop(server: subprocess.Popen[bytes] | None) -> None:
    if server is None:
        return
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def drop_database(admin: psycopg.Connection[Any], name: str) -> None:
    admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    admin.close()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(p) for p in f.read().split()]
        except OSError:
            continue
    return found


def worker_pids(server: subprocess.Popen[bytes]) -> list[int]:
    """The uvicorn worker processes of ``server`` (children started by multiprocessing's spawn)."""
    found = []
    for pid in _children(server.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def server_cpu(server: subprocess.Popen[bytes]) -> float:
    """CPU seconds (user + system) used so far by the server and all its descendants (the
    uvicorn supervisor and its workers), from ``/proc``; ``nan`` where /proc is not there."""
    if not os.path.exists(f"/proc/{server.pid}/stat"):
        return float("nan")
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [server.pid]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        todo += _children(pid)
    return total


def load_average() -> str:
    try:
        with open("/proc/loadavg") as f:
            one, five, fifteen = f.read().split()[:3]
    except OSError:
        return "unknown"
    return f"load average {one}, {five}, {fifteen} on {os.cpu_count()} cores"


# -- the phones' event streams ----------------------------------------------------------------


@dataclass
class Stream:
    """What one phone's SSE stream of a match received (``bench_tournament``, ``bench_scaleout``).

    ``base``: the instance the stream is held on (empty: the one passed to :func:`sse`).
    ``statuses``: non-200 answers to the stream's GET, -1 for a connection refused, -2 for one
    that broke."""

    seat: str
    base: str = ""
    entries: list[int] = field(default_factory=list)  # entry ids (seqs), in arrival order
    versions: list[tuple[int, float]] = field(default_factory=list)  # (version, arrival)
    opened: int = 0
    retried: int = 0  # the server ended the stream (told to retry) and it reconnected
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def version(self) -> int:
        return self.versions[-1][0] if self.versions else 0


async def sse(
    base: str,
    table: Table,
    st: Stream,
    ready: asyncio.Event,
    done: asyncio.Event,
    *,
    attempts: int | None = None,
) -> None:
    """One phone's stream of ``table``'s match until ``done``, as an EventSource holds it: it
    reconnects with ``Last-Event-ID`` after the ``retry:`` delay the server asked for when the
    stream ends (at most ``attempts`` connections, unbounded if ``None``). ``ready`` is set at
    the first ``version`` event.

    Lean on purpose (the load generator shares the server's two cores): one task reads each
    connection in large chunks and splits the events itself; ``done`` cancels it, instead of
    racing every line read against ``done`` (a future and a wait per line cost more CPU than
    the server's own delivery of the event)."""
    host, _, port = (st.base or base).removeprefix("http://").partition(":")
    state = _SseState()
    tries = 0
    stopping = asyncio.ensure_future(done.wait())
    try:
        while not done.is_set() and (attempts is None or tries < attempts):
            tries += 1
            state.retry = 2.0
            try:
                reader, writer = await asyncio.open_connection(host, int(port))
            except OSError:
                st.statuses[-1] += 1
                await asyncio.sleep(1)
                continue
            reading = asyncio.ensure_future(_connection(reader, writer, table, st, ready, state))
            try:
                await asyncio.wait({reading, stopping}, return_when="FIRST_COMPLETED")
            finally:
                if not reading.done():
                    reading.cancel()
                    await asyncio.gather(reading, return_exceptions=True)
                writer.close()
            if reading.done() and not reading.cancelled() and reading.result() is False:
                return  # answered another status than 200: an EventSource gives up for good
            if not done.is_set():
                await asyncio.sleep(state.retry)
    finally:
        stopping.cancel()


@dataclass
class _SseState:
    last: int | None = None  # the last version received (Last-Event-ID)
    retry: float = 2.0  # the reconnection delay the server asked for, s


async def _connection(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    table: Table,
    st: Stream,
    ready: asyncio.Event,
    state: _SseState,
) -> bool:
    """One connection of a stream: the request, then its events until the server ends it;
    False if it was answered another status than 200."""
    host = writer.get_extra_info("peername")[0]
    resume = f"Last-Event-ID: {state.last}\r\n" if state.last is not None else ""
    writer.write(
        (
            f"GET /api/v1/matches/{table.match_id}/events?timeout=600 HTTP/1.1\r\n"
            f"Host: {host}\r\nAccept: text/event-stream\r\n{resume}"
            f"Authorization: Bearer {table.tokens[st.seat]}\r\n\r\n"
        ).encode()
    )
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split()[1])
        if status != 200:
            st.statuses[status] += 1
            return False
        st.opened += 1
        chunked = b"transfer-encoding: chunked" in head.lower()
        await _events(reader, st, ready, state, chunked)
    except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
        st.statuses[-2] += 1
    return True


def stream_misses(streams: Iterable[Stream]) -> int:
    """What the phones' streams missed: every answer other than 200 (an EventSource stops
    for good on it; a stream past capacity is a 200 telling it to retry), every connection
    refused (-1) or broken (-2)."""
    return sum(n for st in streams for n in st.statuses.values())


async def _events(
    reader: asyncio.StreamReader,
    st: Stream,
    ready: asyncio.Event,
    state: _SseState,
    chunked: bool,
) -> None:
    """The events of one connection until the server ends it (``retried`` counts that)."""
    body = b""
    raw = b""
    while True:
        data = await reader.read(65536)
        if not data:
            st.retried += 1  # the server ended the stream: reconnect
            return
        if chunked:  # HTTP/1.1 chunked transfer coding: take the chunks' payloads
            raw += data
            while True:
                size_end = raw.find(b"\r\n")
                if size_end < 0:
                    break
                size = int(raw[:size_end].split(b";")[0], 16)
                if size == 0:
                    st.retried += 1
                    return
                if len(raw) < size_end + 2 + size + 2:
                    break
                body += raw[size_end + 2 : size_end + 2 + size]
                raw = raw[size_end + 2 + size + 2 :]
        else:
            body += data
        *complete, body = body.split(b"\n\n")
        for event in complete:
            _event(event, st, ready, state)


def _event(event: bytes, st: Stream, ready: asyncio.Event, state: _SseState) -> None:
    ident: int | None = None
    kind = ""
    for line in event.split(b"\n"):
        if line.startswith(b"id: "):
            ident = int(line[4:])
        elif line.startswith(b"event: "):
            kind = line[7:].strip().decode()
        elif line.startswith(b"retry: "):
            state.retry = int(line[7:].strip() or 3000) / 1000
    if ident is None:
        return
    if kind == "entry":
        st.entries.append(ident)
    elif kind == "version":
        st.versions.append((ident, time.monotonic()))
        state.last = ident
        ready.set()


@dataclass
class Delivery:
    """What the streams of a load received against the logs: lost, doubled (or out of order)
    entries, writes no stream of the seat saw, and each write's delivery time (s)."""

    lost: int = 0
    doubled: int = 0
    undelivered: int = 0
    times: list[float] = field(default_factory=list)


async def check_streams(
    base: str,
    tables: list[Table],
    streams: dict[int, list[Stream]],
    written: dict[int, list[tuple[int, float]]],
) -> Delivery:
    """Each stream against its seat's ``GET /log``: every entry once, in order, versions in
    order; and the time from each accepted write (``written``: match id -> (version, when))
    to the first ``version`` event covering it on each stream (0 if it came first)."""
    found = Delivery()
    phone = Phone(base)
    try:
        for table in tables:
            for st in streams.get(table.match_id, []):
                code, _, data = await phone.request(
                    "GET", f"/api/v1/matches/{table.match_id}/log", token=table.tokens[st.seat]
                )
                assert code == 200, (code, data[:200])
                expected = [e["seq"] for e in json.loads(data)["entries"]]
                got = st.entries
                found.doubled += len(got) - len(set(got))
                found.lost += len(set(expected) - set(got))
                if got != sorted(set(got)):
                    found.doubled += 1  # out of order counts as a defect too
                seen = [v for v, _ in st.versions]
                if seen != sorted(set(seen)):
                    found.doubled += 1
                for version, when in written.get(table.match_id, []):
                    arrival = next((t for v, t in st.versions if v >= version), None)
                    if arrival is None:
                        found.undelivered += 1
                    else:
                        found.times.append(max(0.0, arrival - when))
    finally:
        phone.close()
    return found
