"""No request holds two pool connections at once (issue 21, ADR 0009): a request that took a
second connection while holding one could wait on a pool its own first connection keeps dry,
and under load every request would (the pool is sized for one connection per admitted
request, plus the streams' reads and the bookkeeping).

A real pool on committed data; a pool ``checkout`` event attributes each checkout to the
request whose context took it (an outer ASGI wrapper names the request in a context
variable; the thread pool and the streams' shared reads run in a copy of that context) and
counts the connections each request holds at once. Covered: the hot lane (a command and a
refresh with a cached token, and the same with a token not yet checked), a page, the
spectators' routes and both event streams, with a write waking them.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, event
from sqlalchemy.orm import Session
from starlette.types import ASGIApp, Receive, Scope, Send

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token, start_session, token_grants
from app.core.config import Settings
from app.core.db import Database
from app.main import create_app
from app.matches import events, reads
from app.matches.models import Match
from tests.matches.conftest import started_match
from tests.matches.streams import next_move

_request: contextvars.ContextVar[str | None] = contextvars.ContextVar("request", default=None)
_serial = itertools.count(1)


class Holdings:
    """Per request (``"<n> <method> <path>"``): connections checked out, and the most held at
    once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holder: dict[int, str] = {}  # the connection record's id -> the request holding it
        self.held: Counter[str] = Counter()
        self.most: Counter[str] = Counter()
        self.checkouts: Counter[str] = Counter()
        self.unattributed = 0

    def checkout(self, dbapi_conn: Any, record: Any, proxy: Any) -> None:
        who = _request.get()
        with self.lock:
            if who is None:
                self.unattributed += 1  # e.g. the bookkeeper's own thread, the test's setup
                return
            self.holder[id(record)] = who
            self.held[who] += 1
            self.checkouts[who] += 1
            self.most[who] = max(self.most[who], self.held[who])

    def checkin(self, dbapi_conn: Any, record: Any) -> None:
        with self.lock:
            who = self.holder.pop(id(record), None)
            if who is not None:
                self.held[who] -= 1

    def of(self, needle: str) -> dict[str, int]:
        with self.lock:
            return {k: v for k, v in self.most.items() if needle in k}


class NameRequests:
    """Outermost ASGI wrapper: the request's name in :data:`_request` for all it runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _request.set(f"{next(_serial)} {scope['method']} {scope['path']}")
        try:
            await self.app(scope, receive, send)
        finally:
            _request.reset(token)


@pytest.fixture
def world(app_settings: Settings, database_url: str, engine: Engine) -> Iterator[dict[str, Any]]:
    """A started match committed between two users with tokens and a browser session, served
    by an app on a real pool whose checkouts are counted per request."""
    with Session(engine, expire_on_commit=False) as s:
        match, users = started_match(s, ("Pool A", "Pool B"))
        tokens = {
            seat: create_token(s, u, TokenCreate(name="phone")).secret
            for seat, u in zip("AB", users, strict=True)
        }
        cookie = start_session(s, app_settings, users[0])
        s.commit()
        match_id, user_ids = match.id, [u.id for u in users]
    reads.cache.clear()
    token_grants.clear()
    database = Database(database_url, pool_size=12, pool_timeout=5)
    holdings = Holdings()
    event.listen(database.engine.pool, "checkout", holdings.checkout)
    event.listen(database.engine.pool, "checkin", holdings.checkin)
    app = create_app(app_settings, database=database)
    yield {
        "app": app,
        "asgi": NameRequests(app),
        "holdings": holdings,
        "match_id": match_id,
        "tokens": tokens,
        "cookie": cookie,
        "settings": app_settings,
    }
    database.engine.dispose()
    with Session(engine) as s:
        s.execute(delete(Match).where(Match.id == match_id))
        s.execute(delete(User).where(User.id.in_(user_ids)))
        s.commit()
    reads.cache.clear()
    token_grants.clear()


def test_no_request_holds_two_pool_connections(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    holdings: Holdings = world["holdings"]
    match_id, tokens = world["match_id"], world["tokens"]
    api = f"/api/v1/matches/{match_id}"

    def client(seat: str | None = None) -> TestClient:
        c = TestClient(world["asgi"], base_url="http://testserver")
        if seat is not None:
            c.headers["Authorization"] = f"Bearer {tokens[seat]}"
        return c

    phones = {"A": client("A"), "B": client("B")}
    hub = events.hub_for(world["app"])

    def write() -> None:
        view = phones["A"].get(api)
        assert view.status_code == 200, view.text
        body = view.json()
        move = next_move(body["view"])
        assert move is not None
        seat, command, dice = move
        sent: dict[str, Any] = {"expected_version": body["version"], "command": command}
        if dice is not None:
            sent["dice"] = dice
        r = phones[seat].post(f"{api}/commands", json=sent)
        assert r.status_code == 200, r.text
        other = "B" if seat == "A" else "A"
        assert phones[other].get(api).status_code == 200  # the other phone refreshes

    # the hot lane: a token not yet checked (FastAPI checks and caches it), then cached
    write()
    write()
    # the spectators' link (both players agree), their reads and the page
    for seat in "AB":
        r = phones[seat].put(f"{api}/spectators")
        assert r.status_code == 200, r.text
    token = r.json()["token"]
    viewer = client()
    for path, headers in (
        (f"/api/v1/spectate/{token}", {}),
        (f"/spectate/{token}", {}),
        (f"/spectate/{token}", {"HX-Request": "true"}),
        (f"/api/v1/spectate/{token}/events?timeout=0", {}),
    ):
        assert viewer.get(path, headers=headers).status_code == 200, path
    # a page of a signed-in player
    browser = client()
    browser.cookies.set(world["settings"].session_cookie, world["cookie"])
    page = browser.get(f"/matches/{match_id}", headers={"Accept": "text/html"})
    assert page.status_code == 200, page.text[:300]
    # both streams held open while a write wakes them (their shared reads run then)
    got: dict[str, Any] = {}

    def listen(name: str, path: str, c: TestClient) -> None:
        got[name] = c.get(path)

    listeners = [
        threading.Thread(
            target=listen, args=("player", f"{api}/events?timeout=3", client("B")), daemon=True
        ),
        threading.Thread(
            target=listen,
            args=("spectator", f"/api/v1/spectate/{token}/events?timeout=3", client()),
            daemon=True,
        ),
    ]
    for t in listeners:
        t.start()
    deadline = time.monotonic() + 10
    while hub.subscribers(match_id) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hub.subscribers(match_id) == 2
    # The write below wakes both streams. A write this process committed leaves its row and
    # battle at hand, and a stream woken by it reads no database at all (``at_hand``): keep
    # this one's row from being held, so that the woken streams take the database read
    # counted below.
    reads.cache.written.clear()
    monkeypatch.setattr(reads.cache.written, "put", lambda row: None)
    with holdings.lock:
        before = Counter(holdings.checkouts)
    write()
    for t in listeners:
        t.join(15)
    for name in ("player", "spectator"):
        assert got[name].status_code == 200
        assert got[name].text.count("event: version") >= 2, (name, got[name].text)

    # every request took a connection, and none held two at once
    for needle in (
        "POST /api/v1/matches",
        f"GET /api/v1/matches/{match_id}",
        "/spectators",
        "GET /api/v1/spectate/",
        "GET /spectate/",
        f"GET /matches/{match_id}",
        f"/matches/{match_id}/events",
        "/events",
    ):
        found = holdings.of(needle)
        assert found, (needle, dict(holdings.most))
        assert set(found.values()) == {1}, (needle, found)
    assert set(holdings.most.values()) == {1}, dict(holdings.most)
    # the streams' reads after the write were taken in their requests' contexts: each held
    # stream checked out again when the write woke it (the database read), one at a time
    for kind in (f"{api}/events", f"/api/v1/spectate/{token}/events"):
        woken = [k for k in holdings.of(kind) if holdings.checkouts[k] > before[k] > 0]
        assert woken, (kind, before, dict(holdings.checkouts))
    # and no checkout escaped the count (the app's own threads, a read outside a request)
    assert holdings.unattributed == 0


def test_the_count_sees_a_request_that_takes_a_second_connection(world: dict[str, Any]) -> None:
    """The instrument itself: a route holding two connections at once is seen holding two."""
    from fastapi import APIRouter

    app = world["app"]
    router = APIRouter()

    @router.get("/api/v1/_test/two")
    def _two() -> None:
        with app.state.db.engine.connect(), app.state.db.engine.connect():
            pass

    app.include_router(router)
    assert TestClient(world["asgi"]).get("/api/v1/_test/two").status_code == 200
    assert set(world["holdings"].of("/_test/two").values()) == {2}
