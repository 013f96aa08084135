"""Spectators fed by the writes' notifications (issue 21): a write's NOTIFY carries its public
side (``app.matches.writes.public_note``), the hub keeps an unbroken chain of these notes per
watched match, and a spectator's stream sends a new version from them, or from the snapshot its
own process wrote, with no database read; a gap, a payload too big or a wake-up that names no
version (a revoked link) makes it read again.

The secrecy tests play a 10th-edition battle with both seats' Battle Formations secret until
both have declared, and scan every payload and everything the spectator receives.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.core import security
from app.matches import events, reads, spectate, writes
from app.matches.models import Match
from tests.matches.conftest import Game
from tests.matches.streams import collect, next_move, until
from tests.matches.test_events import parse
from tests.matches.test_secrecy import PATTERNS, SECRET
from tests.matches.test_spectators import B_PATTERNS, B_SECRET, both_agree

ALWAYS_SECRET = [re.compile(r"formation_declared"), re.compile(r"my_formation")]


def note(match_id: int, prev: int, version: int, entries: int = 1) -> str:
    public = [
        {"seq": s, "batch": s, "actor": "A", "at": None, "audience": None, "event": {"k": s}}
        for s in range(prev + 1, prev + 1 + entries)
    ]
    return events.note_payload(match_id, version, prev, public, {"status": "battle"})


# -- the payload --------------------------------------------------------------------------------


def test_a_note_round_trips_and_stays_under_postgres_limit() -> None:
    payload = note(7, 3, 5, entries=2)
    assert payload.startswith("7:5:3:")
    parsed = events.parse_note(payload)
    assert parsed is not None
    match_id, version, got = parsed
    assert (match_id, version) == (7, 5)
    assert got is not None
    assert (got.prev, got.version, [e["seq"] for e in got.entries]) == (3, 5, [4, 5])
    assert got.state == {"status": "battle"}
    # too big for a NOTIFY: the version alone, and the streams read the match
    huge = [{"seq": 4, "audience": None, "event": {"x": "y" * events.NOTE_MAX}}]
    assert events.note_payload(7, 4, 3, huge, {}) == "7:4"
    assert events.parse_note("7:4") == (7, 4, None)
    assert events.parse_note("7:0") == (7, 0, None)  # a revoked link, a cancelled match
    assert events.parse_note("nonsense") is None
    assert events.parse_note("7:5:3:{not json") == (7, 5, None)
    # a note is the public side only: an entry with an audience is no note
    secret = [{"seq": 4, "audience": ["A"], "event": {}}]
    assert events.parse_note(events.note_payload(7, 4, 3, secret, {})) == (7, 4, None)
    assert events.parse_note(note(7, 5, 5)) == (7, 5, None)  # going nowhere


def test_a_note_no_stream_here_watches_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = note(7, 3, 5)
    assert events.parse_note(payload, lambda match_id: match_id != 7) == (7, 5, None)
    parsed = events.parse_note(payload, lambda match_id: match_id == 7)
    assert parsed is not None
    assert parsed[2] is not None
    # the hub reads the JSON of a note only for a match one of its streams waits on
    loads = []
    real = events.orjson.loads
    monkeypatch.setattr(events.orjson, "loads", lambda text: loads.append(text) or real(text))
    events.Hub().heard(payload)
    assert loads == []


def test_the_hub_keeps_an_unbroken_chain_and_moves_the_epoch_on_a_wake_without_version() -> None:
    async def run() -> None:
        hub = events.Hub()
        hub.heard(note(7, 2, 3))  # nobody watches: nothing kept
        assert hub.notes(7) == ()
        async with hub.subscribe(7) as woken:
            epoch = hub.epoch(7)
            hub.heard(note(7, 2, 3))
            hub.heard(note(7, 3, 5, entries=2))
            assert [(n.prev, n.version) for n in hub.notes(7)] == [(2, 3), (3, 5)]
            await asyncio.sleep(0)
            assert woken.is_set()
            assert hub.announced(7) == 5
            hub.heard(note(7, 3, 5))  # heard twice: the chain stands
            assert len(hub.notes(7)) == 2
            hub.heard(note(7, 6, 7))  # a gap (version 6 never heard): it starts again
            assert [(n.prev, n.version) for n in hub.notes(7)] == [(6, 7)]
            hub.heard("7:8")  # too big for a note: the chain breaks
            assert hub.notes(7) == ()
            for v in range(8, 8 + events.NOTES_KEPT + 3):
                hub.heard(note(7, v, v + 1))
            assert len(hub.notes(7)) == events.NOTES_KEPT
            assert hub.epoch(7) == epoch
            hub.heard("7:0")  # a revoked link: no note survives it, the epoch moves
            assert hub.notes(7) == ()
            assert hub.epoch(7) != epoch
            moved = hub.epoch(7)
            hub.publish(7, 0)
            assert hub.epoch(7) not in (epoch, moved)
            hub.heard(note(7, 20, 21))
        assert hub.notes(7) == ()  # nobody watches: forgotten
        assert hub.epoch(7) == 0

    asyncio.run(run())


def test_a_keep_alive_reads_whatever_the_notes_say() -> None:
    """A stream goes on from what it has at hand between writes, but each keep-alive's turn
    reads (the link, the row): a change that woke nobody is still found within
    ``KEEPALIVE`` seconds, as before the notes."""

    async def run() -> tuple[int, int, list[str]]:
        hub = events.Hub()
        fetched: list[int] = []
        cached: list[int] = []

        def fetch() -> int:
            fetched.append(1)
            return 0

        def at_hand(since: int) -> events.Update:
            cached.append(since)
            return events.Update(1, [], {})

        shared: events.Shared[int] = events.Shared(
            fetch, lambda _, since: events.Update(1, [], {}), kind="test", cached=at_hand
        )
        out = [c async for c in events.stream(hub, 7, 0, shared, timeout=0.5, keepalive=0.1)]
        return len(fetched), len(cached), out

    fetched, cached, out = asyncio.run(run())
    assert cached == 1  # the first turn
    assert fetched >= 2  # every keep-alive's turn after it
    assert ": keepalive\n\n" in out


# -- a spectator's stream -------------------------------------------------------------------------


def _secret_of(db: Session, match_id: int) -> str:
    row = db.get(Match, match_id)
    assert row is not None
    return row.secret


def _payload_of(db: Session, match_id: int, secret: str, prev: int, version: int) -> str:
    """The payload the write of ``version`` (from ``prev``) notified, built as the write
    builds it from the battle it left in this process's cache."""
    snap = reads.cache.get((match_id, secret), version)
    assert snap is not None
    battle = snap.battle
    row = db.get(Match, match_id)  # its id and rule system
    assert row is not None
    return writes.public_note(row, battle, battle.envelopes[prev:], prev, battle.status())


def _play(
    g: Game, command: Callable[[str, dict[str, Any], list[int] | None], int], moves: int
) -> None:
    """Both seats declare secret formations, then ``moves`` commands of the battle."""
    done = 0
    declared = False
    while done < moves:
        view = g.a.get()["view"]
        if view["stage"] == "declare_formations" and not declared:
            command("A", {"type": "declare_formations", "formation": SECRET}, None)
            command("B", {"type": "declare_formations", "formation": B_SECRET}, None)
            declared = True
            continue
        move = next_move(view)
        if move is None:
            return
        seat, cmd, dice = move
        command(seat, cmd, dice)
        done += 1


def _public_log(g: Game) -> list[dict[str, Any]]:
    log = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    return [e for e in log if e["audience"] is None]


def test_a_spectator_goes_on_from_the_notes_with_no_read_and_no_secret(
    new_game: Callable[..., Game], app: Any, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's spectator (a hub of its own, fed only the writes' payloads; this
    process's own snapshots hidden from it): one read when the stream starts, then every
    version from the notes; it receives the public log exactly, each entry once, in order, the
    state a read would give, and no payload ever holds a secret."""
    g = new_game(check=False)
    token = both_agree(g)["token"]
    secret = _secret_of(db, g.match_id)
    hub = events.Hub()
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, secret
    )
    monkeypatch.setattr(reads.cache.written, "at", lambda *_: None)  # not the writer's process
    received: list[dict[str, Any]] = []
    payloads: list[str] = []
    revealed = [False]
    loop: asyncio.AbstractEventLoop | None = None

    def command(seat: str, cmd: dict[str, Any], dice: list[int] | None) -> int:
        before = int(g.a.get()["version"])
        seats = {"A": g.a, "B": g.b}
        version = int(seats[seat].send(cmd, dice=dice)["version"])
        payload = _payload_of(db, g.match_id, secret, before, version)
        if cmd["type"] == "declare_formations" and seat == "B":
            # the second declaration reveals both: its note shows them (the scan finds them)
            assert all(p.search(payload) for p in PATTERNS[:3] + B_PATTERNS), payload
            revealed[0] = True
        patterns = ALWAYS_SECRET + ([] if revealed[0] else PATTERNS[:3] + B_PATTERNS)
        assert not [p.pattern for p in patterns if p.search(payload)], payload
        payloads.append(payload)
        assert loop is not None
        loop.call_soon_threadsafe(hub.heard, payload)
        return version

    async def scenario() -> None:
        nonlocal loop
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            assert hub.fetches == 1
            await asyncio.to_thread(_play, g, command, 25)
            version = int((await asyncio.to_thread(g.a.get))["version"])
            await until(lambda: _last(received) >= version)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())
    assert len(payloads) > 20
    assert all(events.parse_note(p)[2] is not None for p in payloads)  # type: ignore[index]
    assert hub.fetches == 1  # the first read only: every version came from the notes
    got = [m["data"] for m in received if m["event"] == "entry"]
    assert all(e["audience"] is None for e in got)
    assert got == _public_log(g)
    # the state sent with the last version is what a read of the match gives
    seen = reader.fetch()
    assert seen.snapshot is not None
    last = [m["data"] for m in received if m["event"] == "version"][-1]
    assert last == {"version": seen.snapshot.version, **seen.state}
    for m in received:
        text = json.dumps(m["data"])
        assert not [p.pattern for p in ALWAYS_SECRET if p.search(text)], m


def test_the_writers_own_spectators_send_from_its_snapshot_with_no_read(
    new_game: Callable[..., Game], app: Any, db: Session, engine: Any
) -> None:
    """In the process that wrote a version, its spectators take it from the snapshot the write
    left in the cache: no read, the public log exactly, the state a read gives."""
    g = new_game(check=False)
    token = both_agree(g)["token"]
    hub = events.hub_for(app)
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, _secret_of(db, g.match_id)
    )
    received: list[dict[str, Any]] = []

    def command(seat: str, cmd: dict[str, Any], dice: list[int] | None) -> int:
        return int({"A": g.a, "B": g.b}[seat].send(cmd, dice=dice)["version"])

    async def scenario() -> int:
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            if engine.dialect.name == "postgresql":
                # the LISTEN connection, once up, wakes every stream once: let it pass
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            fetches = hub.fetches
            await asyncio.to_thread(_play, g, command, 15)
            version = int((await asyncio.to_thread(g.a.get))["version"])
            await until(lambda: _last(received) >= version)
            return hub.fetches - fetches
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    assert asyncio.run(scenario()) == 0
    got = [m["data"] for m in received if m["event"] == "entry"]
    assert got == _public_log(g)
    seen = reader.fetch()
    assert seen.snapshot is not None
    last = [m["data"] for m in received if m["event"] == "version"][-1]
    assert last == {"version": seen.snapshot.version, **seen.state}


def test_a_revoked_link_is_never_sent_a_note(
    new_game: Callable[..., Game], app: Any, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link revoked, then a write heard before the stream wakes: the revocation's wake-up
    (version 0) moves the epoch, so the stream reads, finds the link gone and ends, and the
    write after it never reaches the spectator."""
    g = new_game(check=False)
    token = both_agree(g)["token"]
    secret = _secret_of(db, g.match_id)
    hub = events.Hub()
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, secret
    )
    monkeypatch.setattr(reads.cache.written, "at", lambda *_: None)
    received: list[dict[str, Any]] = []

    def write() -> tuple[int, str]:
        before = int(g.a.get()["version"])
        view = g.a.get()["view"]
        move = next_move(view)
        assert move is not None
        seat, cmd, dice = move
        version = int({"A": g.a, "B": g.b}[seat].send(cmd, dice=dice)["version"])
        return version, _payload_of(db, g.match_id, secret, before, version)

    async def scenario() -> None:
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            version, payload = await asyncio.to_thread(write)
            hub.heard(payload)
            await until(lambda: _last(received) >= version)
            assert hub.fetches == 1
            r = await asyncio.to_thread(
                g.a.client.delete, f"/api/v1/matches/{g.match_id}/spectators"
            )
            assert r.status_code == 204
            version, payload = await asyncio.to_thread(write)
            hub.heard(f"{g.match_id}:0")  # the revocation's NOTIFY, then the write's
            hub.heard(payload)
            await until(lambda: any(m["event"] == "gone" for m in received))
            assert _last(received) < version
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())
    assert received[-1]["event"] == "gone"


def test_a_link_revoked_elsewhere_is_never_sent_this_process_write(
    new_game: Callable[..., Game],
    app: Any,
    db: Session,
    engine: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The link revoked through another worker, whose wake-up (``id:0``) this process has not
    heard yet, then a write committed here: its stream wakes with the epoch unmoved, but the
    write read the link revoked, so the stream reads, finds it gone and ends; the version
    written after the revocation never reaches the spectator."""
    g = new_game(check=False)
    token = both_agree(g)["token"]
    hub = events.hub_for(app)
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, _secret_of(db, g.match_id)
    )
    received: list[dict[str, Any]] = []

    def write() -> int:
        move = next_move(g.a.get()["view"])
        assert move is not None
        seat, cmd, dice = move
        return int({"A": g.a, "B": g.b}[seat].send(cmd, dice=dice)["version"])

    def revoke_elsewhere() -> None:
        with monkeypatch.context() as m:  # another worker: nothing heard here
            m.setattr(spectate, "_wake_spectators", lambda *_: None)
            r = g.a.client.delete(f"/api/v1/matches/{g.match_id}/spectators")
        assert r.status_code == 204

    async def scenario() -> int:
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            if engine.dialect.name == "postgresql":
                # the LISTEN connection, once up, wakes every stream once: let it pass
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            version = await asyncio.to_thread(write)
            await until(lambda: _last(received) >= version)
            fetches = hub.fetches
            await asyncio.to_thread(revoke_elsewhere)
            version = await asyncio.to_thread(write)
            await until(lambda: any(m["event"] == "gone" for m in received))
            assert hub.fetches == fetches + 1
            return version
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    version = asyncio.run(scenario())
    assert received[-1]["event"] == "gone"
    assert _last(received) < version


def test_a_stream_behind_the_notes_reads_what_it_missed(
    new_game: Callable[..., Game], app: Any, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note lost (a payload too big, say) breaks the chain: the stream reads the match and
    still receives every public entry once."""
    g = new_game(check=False)
    token = both_agree(g)["token"]
    secret = _secret_of(db, g.match_id)
    hub = events.Hub()
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, secret
    )
    monkeypatch.setattr(reads.cache.written, "at", lambda *_: None)
    received: list[dict[str, Any]] = []

    def write() -> tuple[int, str]:
        before = int(g.a.get()["version"])
        move = next_move(g.a.get()["view"])
        assert move is not None
        seat, cmd, dice = move
        version = int({"A": g.a, "B": g.b}[seat].send(cmd, dice=dice)["version"])
        return version, _payload_of(db, g.match_id, secret, before, version)

    async def scenario() -> None:
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            version, payload = await asyncio.to_thread(write)
            hub.heard(payload)
            await until(lambda: _last(received) >= version)
            assert hub.fetches == 1
            version, _ = await asyncio.to_thread(write)
            hub.heard(f"{g.match_id}:{version}")  # its note too big: the version alone
            await until(lambda: _last(received) >= version)
            assert hub.fetches == 2
            version, payload = await asyncio.to_thread(write)
            hub.heard(payload)  # goes on from the version read: a note again
            await until(lambda: _last(received) >= version)
            assert hub.fetches == 2
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())
    got = [m["data"] for m in received if m["event"] == "entry"]
    assert got == _public_log(g)


def _last(messages: list[dict[str, Any]]) -> int:
    versions = [m["id"] for m in messages if m["event"] == "version"]
    return versions[-1] if versions else -1


# -- two workers on Postgres: the notes come through LISTEN/NOTIFY ------------------------------


def test_another_workers_spectator_is_fed_by_the_notifications(
    engine: Any,
    app_settings: Any,
    committed_match: tuple[int, list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two app instances stand for two uvicorn workers (the writes really commit): a
    spectator's stream open on one receives the writes made through the other from their
    NOTIFY payloads, with no read per write once it listens, and exactly the public log."""
    if engine.dialect.name != "postgresql":
        pytest.skip("LISTEN/NOTIFY exists on Postgres only; SQLite runs one process")
    import threading
    import time

    from fastapi.testclient import TestClient

    from app.accounts.models import User
    from app.accounts.schemas import TokenCreate
    from app.accounts.service import create_token
    from app.core.db import Database
    from app.main import create_app

    match_id, users = committed_match
    with Session(engine) as s:
        tokens = []
        for uid in users:
            user = s.get(User, uid)
            assert user is not None
            tokens.append(create_token(s, user, TokenCreate(name="notes")).secret)
        s.commit()
    monkeypatch.setattr(reads.cache.written, "at", lambda *_: None)  # not the writer's process
    reader_app = create_app(app_settings, database=Database(app_settings.database_url))
    writer_app = create_app(app_settings, database=Database(app_settings.database_url))
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    got: dict[str, str] = {}
    try:
        with TestClient(reader_app) as reader, TestClient(writer_app) as writer:
            base = f"/api/v1/matches/{match_id}"
            for headers in auth:  # both players agree
                r = writer.put(f"{base}/spectators", headers=headers)
                assert r.status_code == 200, r.text
            token = r.json()["token"]

            def watch() -> None:
                r = reader.get(f"/api/v1/spectate/{token}/events?since=0&timeout=20")
                got["text"] = r.text

            thread = threading.Thread(target=watch)
            thread.start()
            hub = events.hub_for(reader_app)
            deadline = time.monotonic() + 10
            while not (hub.listening and hub.subscribers(match_id)) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.05)
            assert hub.listening, "the reader worker never started to LISTEN"
            time.sleep(0.5)  # the LISTEN connection's first wake-up (a read) passes
            fetches = hub.fetches
            written = 0
            while written < 6:
                view = writer.get(base, headers=auth[0]).json()
                move = next_move(view["view"])
                assert move is not None
                seat, cmd, dice = move
                payload: dict[str, Any] = {"expected_version": view["version"], "command": cmd}
                if dice is not None:
                    payload["dice"] = dice
                r = writer.post(f"{base}/commands", json=payload, headers=auth[seat == "B"])
                assert r.status_code == 200, r.text
                written += 1
            thread.join(60)  # the stream ends after its 20 s
            assert not thread.is_alive()
            # every version from the notes: at most the keep-alive's re-read (after 15 s idle)
            assert hub.fetches - fetches <= 1
            public = reader.get(f"/api/v1/spectate/{token}").json()
    finally:
        reader_app.state.db.engine.dispose()
        writer_app.state.db.engine.dispose()
    messages = parse(got["text"])
    entries = [m["data"] for m in messages if m["event"] == "entry"]
    assert entries == public["log"]
    assert _last(messages) == public["version"]
