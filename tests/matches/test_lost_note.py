"""A lost notification never leaves a stream stuck (issue 21, review of the live path).

The process that wrote version N announced it and holds its row and battle (``at_hand``); when
the next version's notification is lost (another worker killed between its commit and its
NOTIFY, a dropped batch), nothing wakes the streams again. Each keep-alive's turn reads the
database itself (``Shared.fresh``), never what this process wrote or announced, so the version
reaches the stream within a keep-alive.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.matches import events, reads, writes
from app.matches.models import Match
from tests.matches.conftest import Game
from tests.matches.streams import next_move
from tests.matches.test_events import parse


def test_a_keep_alive_reads_the_database_whatever_is_at_hand() -> None:
    """``at_hand`` (and a ``fetch`` that tries it first) answers the stale version for good;
    the keep-alive's turns go to ``fresh`` and find the later one."""

    async def run() -> tuple[list[str], list[str]]:
        hub = events.Hub()
        calls: list[str] = []

        def at_hand() -> int:
            calls.append("at_hand")
            return 9

        def fetch() -> int:
            calls.append("fetch")
            return 9

        def fresh() -> int:
            calls.append("fresh")
            return 11

        shared: events.Shared[int] = events.Shared(
            fetch,
            lambda version, since: events.Update(version, [], {}),
            kind="test",
            at_hand=at_hand,
            fresh=fresh,
        )
        out = [c async for c in events.stream(hub, 7, 9, shared, timeout=0.35, keepalive=0.1)]
        return calls, out

    calls, out = asyncio.run(run())
    assert calls[0] == "at_hand"  # the first turn: what this process holds
    assert "fresh" in calls[1:]
    assert "fetch" not in calls  # nothing went back to the stale version
    versions = [m["id"] for m in parse("".join(out)) if m["event"] == "version"]
    assert versions == [9, 11]


def _send_next(g: Game) -> int:
    move = next_move(g.a.get()["view"])
    assert move is not None
    seat, cmd, dice = move
    return int({"A": g.a, "B": g.b}[seat].send(cmd, dice=dice)["version"])


def test_a_lost_note_reaches_the_writers_stream_at_the_next_keep_alive(
    new_game: Callable[..., Game],
    app: Any,
    db: Session,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = new_game(check=False)
    for _ in range(4):
        _send_next(g)
    v0 = int(g.a.get()["version"])
    row = db.get(Match, g.match_id)
    assert row is not None
    key = (g.match_id, row.secret)
    monkeypatch.setitem(events.stream.__kwdefaults__, "keepalive", 0.2)
    hub = events.hub_for(app)
    got: dict[str, str] = {}

    def watch() -> None:
        got["text"] = g.a.client.get(f"{g.a.base}/events?since={v0}&timeout=3").text

    thread = threading.Thread(target=watch)
    thread.start()
    deadline = time.monotonic() + 5
    while hub.subscribers(g.match_id) < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert hub.subscribers(g.match_id) == 1
    v1 = _send_next(g)  # this process writes v1: announced here, its row and battle at hand
    snap1 = reads.cache.get(key, v1)
    row1 = reads.cache.written.at(g.match_id, v1)
    assert snap1 is not None
    assert row1 is not None
    # "another worker" writes v2 and its notification is lost: this process hears nothing and
    # holds v1 as its latest (its memory as it was before v2)
    with monkeypatch.context() as m:
        m.setattr(writes, "publisher_of", lambda _db: lambda *_: None)
        m.setattr(writes, "notifier_for", lambda _engine: None)  # Postgres: no NOTIFY either
        v2 = _send_next(g)
    reads.cache.discard(key)
    reads.cache.put(key, v1, snap1.battle)
    reads.cache.written.forget(g.match_id)
    reads.cache.written.put(row1)
    assert v2 > v1
    assert hub.announced(g.match_id) == v1
    thread.join(30)
    assert not thread.is_alive()
    messages = parse(got["text"])
    versions = [m["id"] for m in messages if m["event"] == "version"]
    assert got["text"].count(": keepalive") >= 3
    assert versions[-1] == v2, f"stuck at {versions[-1]}"
    seqs = [m["id"] for m in messages if m["event"] == "entry"]
    assert seqs == sorted(set(seqs))  # each entry once, in order
