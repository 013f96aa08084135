"""Server-sent events: each viewer's own entries, resumable with Last-Event-ID, pushed live.

The TestClient hands back a streamed body once the stream ends, so these streams are opened
with a short ``timeout`` (the server closes them; a browser's EventSource would reconnect with
``Last-Event-ID``, as the reconnect test does by hand).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from app.matches import events
from tests.matches.conftest import Game, setup_battle


def parse(text: str) -> list[dict[str, Any]]:
    """The SSE messages of a body: [{"id", "event", "data"}] (comments and retry skipped)."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if "event" in fields:
            fields["data"] = json.loads(fields["data"])
            if "id" in fields:
                fields["id"] = int(fields["id"])
            out.append(fields)
    return out


def read(
    g: Game, seat: str, *, timeout: float = 0, last: int | None = None, since: int | None = None
) -> list[dict[str, Any]]:
    p = g.a if seat == "A" else g.b
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    query = f"?timeout={timeout}" + (f"&since={since}" if since is not None else "")
    r = p.client.get(p.base + "/events" + query, headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache"
    assert r.text.startswith(f"retry: {events.RETRY_MS}")
    return parse(r.text)


def test_a_stream_sends_the_viewers_entries_then_the_version(new_game: Callable[..., Game]) -> None:
    g = new_game()
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    messages = read(g, "B")
    entries = [m for m in messages if m["event"] == "entry"]
    assert [m["id"] for m in entries] == [1, 2, 3, 4]
    assert [m["data"]["seq"] for m in entries] == [1, 2, 3, 4]
    assert messages[-1]["event"] == "version"
    assert messages[-1]["id"] == 4
    assert messages[-1]["data"]["version"] == 4
    assert messages[-1]["data"]["stage"] == "place_objectives"
    # from a version on: only what came after (and the version again)
    later = read(g, "B", since=3)
    assert [m["id"] for m in later] == [4, 4]


def test_disconnect_and_reconnect_resume_from_last_event_id(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    first = read(g, "B")
    last_id = first[-1]["id"]
    assert first[-1]["event"] == "version"
    # B's phone is off the network while A plays on
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a2", "mode": "normal"})
    g.a.send({"type": "undo"})  # no dice rolled: undone at once
    g.a.send({"type": "move", "unit": "a2", "mode": "advance"}, dice=[4])
    resumed = read(g, "B", last=last_id)
    entries = [m for m in resumed if m["event"] == "entry"]
    assert entries
    assert entries[0]["id"] == last_id + 1
    assert resumed[-1]["id"] == g.a.version
    seen = [m["id"] for m in first + resumed if m["event"] == "entry"]
    assert seen == sorted(set(seen))  # nothing twice, in order
    full = g.b.client.get(g.b.base + "/log").json()["entries"]
    assert seen == [e["seq"] for e in full]  # nothing lost
    assert [m["data"] for m in first + resumed if m["event"] == "entry"] == full
    assert any(m["data"]["event"]["type"] == "undone" for m in entries)
    # Last-Event-ID wins over ?since (a browser reconnecting keeps its original URL)
    again = read(g, "B", last=g.a.version, since=0)
    assert [m["event"] for m in again] == ["version"]


def test_a_write_is_pushed_to_an_open_stream(new_game: Callable[..., Game]) -> None:
    # no replay check here: the test's own session must not share the connection with the
    # stream's read while it runs in another thread
    g = new_game(check=False)
    setup_battle(g)
    start = g.a.get()["version"]
    got: dict[str, Any] = {}

    def listen() -> None:
        t0 = time.monotonic()
        got["messages"] = read(g, "B", timeout=2.5, since=start)
        got["elapsed"] = time.monotonic() - t0

    thread = threading.Thread(target=listen)
    thread.start()
    time.sleep(0.5)
    g.a.send({"type": "end_phase"}, version=start)
    thread.join(10)
    assert not thread.is_alive()
    entries = [m for m in got["messages"] if m["event"] == "entry"]
    # the stream re-reads only when woken (keep-alive is 15 s, longer than this stream):
    # the entries can only have come from the in-process broadcaster
    assert entries
    assert entries[0]["id"] == start + 1
    assert got["messages"][-1] == {
        "id": g.a.version,
        "event": "version",
        "data": got["messages"][-1]["data"],
    }
    assert got["elapsed"] >= 2.0


def test_the_hub_wakes_only_the_streams_of_that_match() -> None:
    import asyncio

    hub = events.Hub(None)

    async def scenario() -> tuple[bool, bool, int]:
        async with hub.subscribe(1) as one, hub.subscribe(2) as two:
            assert hub.subscribers(1) == 1
            await asyncio.to_thread(hub.publish, 1, 5)  # from a worker thread
            await asyncio.sleep(0.05)
            return one.is_set(), two.is_set(), hub.subscribers(1)

    woke_one, woke_two, count = asyncio.run(scenario())
    assert (woke_one, woke_two, count) == (True, False, 1)
    assert hub.subscribers(1) == 0  # unsubscribed on exit


def test_only_postgres_urls_get_a_listener() -> None:
    assert events._listen_url("sqlite:///var/auspex.db") is None
    assert events._listen_url(None) is None
    url = events._listen_url("postgresql+psycopg://u:p@127.0.0.1:5432/auspex")
    assert url == "postgresql://u:p@127.0.0.1:5432/auspex"
