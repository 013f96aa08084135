"""The cached read path (issue 21): one replay per version and process, one rendering per seat
and version, conditional GET, and streams that share one read per wake-up of a match."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import anyio.to_thread
import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session

from app.engine.wh40k10e.battle import Battle
from app.matches import api, events, reads, service
from tests.matches.conftest import Game, replay_view, setup_battle
from tests.matches.streams import collect, last_version, until


def test_a_get_of_an_unchanged_version_replays_and_renders_nothing_again(
    new_game: Callable[..., Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    g = new_game()
    setup_battle(g)
    reads.cache.clear()  # as on the worker that did not take the write
    renders: list[str] = []
    original = Battle.view

    def counting(self: Battle, viewer: Any) -> Any:
        renders.append(viewer)
        return original(self, viewer)

    monkeypatch.setattr(Battle, "view", counting)
    replays = reads.cache.replays
    first = g.b.client.get(g.b.base)
    assert first.status_code == 200
    assert reads.cache.replays == replays + 1  # the first read of this version here
    for _ in range(3):
        assert g.b.client.get(g.b.base).json() == first.json()
        assert g.a.client.get(g.a.base).status_code == 200
        assert g.b.client.get(g.b.base + "/log").status_code == 200
    assert reads.cache.replays == replays + 1
    assert renders == ["B", "A"]  # one rendering per seat and version


def test_a_refresh_after_a_write_does_not_load_the_armies_again(
    new_game: Callable[..., Game], engine: Engine
) -> None:
    g = new_game()
    setup_battle(g)
    first = g.b.client.get(g.b.base).json()
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        g.a.send({"type": "end_phase"})
        statements.clear()
        moved = g.b.client.get(g.b.base).json()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert moved["version"] > first["version"]
    assert moved["players"] == first["players"]  # names, armies, factions, points
    assert statements  # it did read the match
    assert not [s for s in statements if "army_a" in s or "army_b" in s]


def test_the_cached_answer_is_the_replay_of_the_rows(
    new_game: Callable[..., Game], db: Session
) -> None:
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.b.client.get(g.b.base)  # cached for B at this version
    for p in (g.a, g.b):
        assert p.client.get(p.base).json()["view"] == replay_view(db, g.match_id, p.seat)


def test_etag_and_if_none_match(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    r = g.b.client.get(g.b.base)
    tag = r.headers["etag"]
    assert tag.startswith('W/"')
    assert f".{r.json()['version']}." in tag
    again = g.b.client.get(g.b.base, headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == tag
    # a list of validators, the strong form, and "*" match too; another value does not
    assert g.b.client.get(g.b.base, headers={"If-None-Match": f'"x", {tag}'}).status_code == 304
    assert g.b.client.get(g.b.base, headers={"If-None-Match": tag[2:]}).status_code == 304
    assert g.b.client.get(g.b.base, headers={"If-None-Match": "*"}).status_code == 304
    assert g.b.client.get(g.b.base, headers={"If-None-Match": 'W/"other"'}).status_code == 200
    # the other seat sees another answer, so it has another validator
    assert g.a.client.get(g.a.base).headers["etag"] != tag
    # a write changes it: the old validator gets the new match
    g.a.send({"type": "end_phase"})
    moved = g.b.client.get(g.b.base, headers={"If-None-Match": tag})
    assert moved.status_code == 200
    assert moved.headers["etag"] != tag
    assert moved.json()["version"] == g.a.version


def test_a_refresh_answered_304_reads_the_match_once_and_builds_no_match(
    new_game: Callable[..., Game], engine: Engine
) -> None:
    g = new_game()
    setup_battle(g)
    tag = g.b.client.get(g.b.base).headers["etag"]
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        again = g.b.client.get(g.b.base, headers={"If-None-Match": tag})
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert again.status_code == 304
    reads_of_matches = [s for s in statements if "FROM matches" in s]
    # one Core select of the row's fields with both names (not the ORM row, then the names)
    assert len(reads_of_matches) == 1, statements
    assert "display_name" in reads_of_matches[0]
    assert "army_a" not in reads_of_matches[0]  # the ORM row's columns are not all read
    assert not [s for s in statements if s.startswith("SELECT users.id, users.display_name")]


def test_a_command_reads_its_match_once_and_builds_no_match(
    new_game: Callable[..., Game], engine: Engine
) -> None:
    """The API's write reads what it needs of the row by one Core select, no ORM instance
    (issue 21), and a player of another match still gets 404."""
    from app.matches.models import Match

    g = new_game()
    setup_battle(g)
    active = g.a.get()["view"]["active"]
    mover = g.a if active == "A" else g.b
    statements: list[str] = []
    loaded: list[Any] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    def on_load(target: Any, context: Any) -> None:
        loaded.append(target)

    before = mover.get()["version"]
    event.listen(engine, "before_cursor_execute", record)
    event.listen(Match, "load", on_load)
    try:
        assert mover.send({"type": "end_phase"}, version=before)["version"] > before
    finally:
        event.remove(engine, "before_cursor_execute", record)
        event.remove(Match, "load", on_load)
    assert loaded == []
    selects = [s for s in statements if s.startswith("SELECT") and "FROM matches" in s]
    assert len(selects) == 1, statements
    assert "army_a" not in selects[0]
    other = new_game()
    setup_battle(other)
    refused = other.a.client.post(
        f"{g.a.base}/commands",
        json={"expected_version": g.a.get()["version"], "command": {"type": "end_phase"}},
    )
    assert refused.status_code == 404


def test_a_refresh_of_a_new_version_reads_the_match_once_and_builds_no_match(
    new_game: Callable[..., Game], engine: Engine
) -> None:
    """A 200 of a started match is built from the same one select and the version's snapshot
    (no ORM row loaded, no second read of the row): issue 21's refresh after each write."""
    g = new_game()
    setup_battle(g)
    first = g.b.client.get(g.b.base)
    assert first.status_code == 200
    active = g.a.get()["view"]["active"]
    (g.a if active == "A" else g.b).send({"type": "end_phase"})
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        again = g.b.client.get(g.b.base, headers={"If-None-Match": first.headers["etag"]})
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert again.status_code == 200
    body = again.json()
    assert body["version"] > first.json()["version"]
    assert body["players"] == first.json()["players"]
    assert body["seat"] == "B"
    assert again.headers["etag"] != first.headers["etag"]
    reads_of_matches = [s for s in statements if "FROM matches" in s]
    assert len(reads_of_matches) == 1, statements
    assert "army_a" not in reads_of_matches[0]


def test_a_name_change_changes_the_validator(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    tag = g.b.client.get(g.b.base).headers["etag"]
    r = g.a.client.patch("/api/v1/me", json={"display_name": "Alice the Bold"})
    assert r.status_code == 200, r.text
    fresh = g.b.client.get(g.b.base, headers={"If-None-Match": tag})
    assert fresh.status_code == 200
    assert fresh.json()["players"]["A"]["name"] == "Alice the Bold"


# -- streams ----------------------------------------------------------------------------------


def _readers(app: FastAPI, g: Game, seats: str) -> list[events.Shared[api.Fetched]]:
    request: Any = SimpleNamespace(app=app)
    users = {"A": g.a.client.user_id, "B": g.b.client.user_id}  # type: ignore[attr-defined]
    return [api.event_reader(request, g.match_id, service.Caller(users[s])) for s in seats]


def test_n_streams_woken_by_one_write_cost_one_read_and_one_replay(
    new_game: Callable[..., Game], app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = new_game(check=False)  # the streams read in other threads
    setup_battle(g)
    start = g.a.get()["version"]
    hub = events.hub_for(app)
    seats = "ABABAB"
    readers = _readers(app, g, seats)

    async def scenario() -> tuple[int, int, list[list[dict[str, Any]]]]:
        got: list[list[dict[str, Any]]] = [[] for _ in readers]
        tasks = [
            asyncio.create_task(collect(events.stream(hub, g.match_id, start, r, timeout=20), o))
            for r, o in zip(readers, got, strict=True)
        ]
        try:
            await until(lambda: all(last_version(o) == start for o in got))
            if engine.dialect.name == "postgresql":
                # the LISTEN connection, once up, wakes every stream once (for what was
                # committed before it listened): let that read pass before counting
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            fetches, replays = hub.fetches, reads.cache.replays
            # as if the write ran on the other worker: this process has not cached its result
            monkeypatch.setattr(reads.cache, "put", lambda *args: None)
            await asyncio.to_thread(g.a.send, {"type": "end_phase"}, version=start)
            await until(lambda: all(last_version(o) == g.a.version for o in got))
            return hub.fetches - fetches, reads.cache.replays - replays, got
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    fetched, replayed, got = asyncio.run(scenario())
    assert (fetched, replayed) == (1, 1)
    for seat, messages in zip(seats, got, strict=True):
        entries = [m["id"] for m in messages if m["event"] == "entry"]
        log = g.a.client if seat == "A" else g.b.client
        seqs = [e["seq"] for e in log.get(f"{g.a.base}/log?since={start}").json()["entries"]]
        assert entries == seqs
        assert seqs


def test_a_shared_read_is_joined_only_before_it_starts() -> None:
    hub = events.Hub(None, reads=1)
    calls: list[int] = []

    def fetch() -> int:
        calls.append(len(calls))
        time.sleep(0.05)
        return len(calls)

    async def scenario() -> list[int]:
        first = [asyncio.create_task(hub.fetch(1, fetch)) for _ in range(5)]
        await asyncio.sleep(0.02)  # the read has started: a new caller waits for the next one
        late = [asyncio.create_task(hub.fetch(1, fetch)) for _ in range(3)]
        return await asyncio.gather(*first, *late)

    results = asyncio.run(scenario())
    assert results == [1] * 5 + [2] * 3
    assert hub.fetches == 2


def test_a_version_already_announced_does_not_wake_the_streams_again() -> None:
    # on Postgres the writer's process hears of its write from its own publish and again from
    # the NOTIFY: the second must not cost its streams another read
    hub = events.Hub(None)

    async def scenario() -> list[bool]:
        woke = []
        async with hub.subscribe(1) as woken:
            for version in (5, 5, 4, 6):
                woken.clear()
                await asyncio.to_thread(hub.publish, 1, version)
                await asyncio.sleep(0.02)
                woke.append(woken.is_set())
        return woke

    assert asyncio.run(scenario()) == [True, False, False, True]


class _Battle:
    """What the cache asks of a battle it holds: its status."""

    def __init__(self, stage: str) -> None:
        self.stage = stage

    def status(self) -> Any:
        return SimpleNamespace(stage=self.stage)


def test_the_cache_keeps_only_the_latest_ended_battles() -> None:
    cache = reads.ReadCache(size=8, ended_size=2)
    battle: Any = _Battle("battle")
    ended: Any = _Battle("ended")
    for i in range(4):
        cache.hold((i, "s"), 1, battle)
    for i in range(4, 8):  # four games end, one after the other
        cache.hold((i, "s"), 5, ended)
    assert len(cache) == 6  # the four still played and the two latest ended
    assert [i for i in range(8) if cache.nearest((i, "s")) is not None] == [0, 1, 2, 3, 6, 7]
    # an ended battle taken back by an undo is not counted as ended any more
    cache.hold((6, "s"), 6, battle)
    cache.hold((8, "s"), 5, ended)
    assert cache.nearest((6, "s")) is not None
    assert cache.nearest((7, "s")) is not None
    # the size still bounds everything, ended or not
    for i in range(10, 20):
        cache.hold((i, "s"), 1, battle)
    assert len(cache) == 8


def test_the_match_reads_take_no_extra_trip_to_the_thread_pool(
    new_game: Callable[..., Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endpoint builds its response: FastAPI does not validate it again in one more trip
    to the thread pool (ADR 0009, addendum 2), and commits its session in its own trip: one
    trip, the endpoint (the session is then closed on the event loop)."""
    g = new_game()
    setup_battle(g)
    trips: list[str] = []
    original = anyio.to_thread.run_sync

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(repr(func)[:80])
        return await original(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    for path in ("/actions", "/log", "", "/audit"):
        assert g.b.client.get(g.b.base + path).status_code == 200  # the token is cached now
        trips.clear()
        answer = g.b.client.get(g.b.base + path)
        assert answer.status_code == 200
        assert answer.json()["version"] == g.a.version
        assert len(trips) == 1, (path, trips)  # a dict returned by the endpoint: 3


def test_a_cached_token_reads_a_match_without_building_a_user(
    new_game: Callable[..., Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match routes need only who is asking: a token this process checked a moment ago
    answers them from its grant (no ``User`` instance, no query), and a token revoked in this
    process stops at once, as for every other route (issue 21)."""
    from app.accounts import service as accounts

    monkeypatch.setattr(accounts.token_grants, "ttl", 600.0)  # a slow machine: no expiry
    g = new_game()
    setup_battle(g)
    assert g.b.client.get(g.b.base).status_code == 200  # the token's grant is cached now

    def no_user(*args: Any) -> Any:
        raise AssertionError("a match route built a User from a cached token")

    cached_user, user_for_token = accounts.cached_user_for_api_token, accounts.user_for_api_token
    monkeypatch.setattr(accounts, "cached_user_for_api_token", no_user)
    monkeypatch.setattr(accounts, "user_for_api_token", no_user)
    again = g.b.client.get(g.b.base)
    assert again.status_code == 200
    assert again.json()["seat"] == "B"
    active = again.json()["view"]["active"]
    mover = g.a if active == "A" else g.b
    before = mover.version
    assert mover.send({"type": "end_phase"})["version"] > before
    monkeypatch.setattr(accounts, "cached_user_for_api_token", cached_user)
    monkeypatch.setattr(accounts, "user_for_api_token", user_for_token)
    token = g.b.client.headers["Authorization"].removeprefix("Bearer ")
    mine = g.b.client.get("/api/v1/tokens").json()
    assert mine
    for t in mine:
        assert g.b.client.delete(f"/api/v1/tokens/{t['id']}").status_code in (200, 204)
    refused = g.b.client.get(g.b.base)
    assert refused.status_code == 401, (token[:8], refused.text)


def test_streams_woken_by_a_write_of_their_process_read_nothing_again(
    new_game: Callable[..., Game], app: FastAPI, engine: Engine
) -> None:
    """The writer's process knows the row and the battle it just committed: its streams take
    them on the event loop instead of reading the match again (issue 21): no shared read, so
    no trip to the thread pool; they still get every entry once."""
    g = new_game(check=False)  # the streams read in other threads
    setup_battle(g)
    start = g.a.get()["version"]
    hub = events.hub_for(app)
    seats = "AB"
    readers = _readers(app, g, seats)
    stream_row = " ".join(str(api._STREAM_ROW.compile(dialect=engine.dialect)).split())
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    async def scenario() -> tuple[int, list[list[dict[str, Any]]]]:
        got: list[list[dict[str, Any]]] = [[] for _ in readers]
        tasks = [
            asyncio.create_task(collect(events.stream(hub, g.match_id, start, r, timeout=20), o))
            for r, o in zip(readers, got, strict=True)
        ]
        try:
            await until(lambda: all(last_version(o) == start for o in got))
            if engine.dialect.name == "postgresql":
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            fetches = hub.fetches
            event.listen(engine, "before_cursor_execute", record)
            try:
                await asyncio.to_thread(g.a.send, {"type": "end_phase"}, version=start)
                await until(lambda: all(last_version(o) == g.a.version for o in got))
            finally:
                event.remove(engine, "before_cursor_execute", record)
            return hub.fetches - fetches, got
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    fetched, got = asyncio.run(scenario())
    assert fetched == 0
    assert statements  # the write's own
    assert stream_row not in statements, statements
    for seat, messages in zip(seats, got, strict=True):
        entries = [m["id"] for m in messages if m["event"] == "entry"]
        log = g.a.client if seat == "A" else g.b.client
        seqs = [e["seq"] for e in log.get(f"{g.a.base}/log?since={start}").json()["entries"]]
        assert entries == seqs
        assert seqs


def test_the_hub_announces_a_version_only_while_it_is_the_latest_heard() -> None:
    """What a stream read may take for the latest version (``Hub.announced``): the last one
    that woke streams here; nothing once a wake-up named no version or found nobody to wake
    (then a newer version may have gone by unheard by the streams)."""
    hub = events.Hub(None)

    async def scenario() -> list[int | None]:
        seen: list[int | None] = []
        hub.publish(7, 5)  # nobody listens: not announced
        seen.append(hub.announced(7))
        async with hub.subscribe(7):
            hub.publish(7, 6)
            seen.append(hub.announced(7))
            hub.publish(7, 6)  # heard twice (its own publish, then the NOTIFY)
            seen.append(hub.announced(7))
            hub.publish(7, 0)  # not a version: cancelled, a link revoked...
            seen.append(hub.announced(7))
            hub.publish(7, 8)
            seen.append(hub.announced(7))
        seen.append(hub.announced(7))  # the last stream left
        return seen

    assert asyncio.run(scenario()) == [None, 6, 6, None, 8, None]
