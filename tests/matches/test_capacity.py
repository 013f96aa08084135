"""Tournament night's read path under concurrent writes (issue 21): two phones write one
committed match at once (one of two concurrent writers gets 409 and reads again) while both
seats' streams are open; every stream receives its seat's copy of the log exactly once, in
order (the sharing of their reads is tested in test_reads.py).

Runs on a real database (committed rows, an app with its own pool), on SQLite and on Postgres.
"""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.core.db import Database
from app.matches import api, events, service
from tests.matches.streams import collect, last_version, next_move, until

WRITES = 30


def test_streams_lose_and_double_nothing_under_concurrent_writes(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    from app.main import create_app

    match_id, users = committed_match
    with Session(engine) as s:
        tokens = {}
        for seat, uid in zip("AB", users, strict=True):
            user = s.get(User, uid)
            assert user is not None
            tokens[seat] = create_token(s, user, TokenCreate(name="capacity")).secret
        s.commit()
    app = create_app(app_settings, database=Database(app_settings.database_url))
    hub = events.hub_for(app)
    request: Any = SimpleNamespace(app=app)
    readers = [api.event_reader(request, match_id, service.Caller(uid)) for uid in users]
    accepted: list[tuple[int, int]] = []
    conflicts: list[int] = []
    lock = threading.Lock()

    def phone_pair(n: int) -> None:
        clients = {}
        for seat in "AB":
            clients[seat] = TestClient(app)
            clients[seat].headers["Authorization"] = f"Bearer {tokens[seat]}"
        while True:
            with lock:
                if len(accepted) >= WRITES:
                    return
            data = clients["A"].get(f"/api/v1/matches/{match_id}").json()
            move = next_move(data["view"])
            assert move is not None
            seat, command, dice = move
            body: dict[str, Any] = {"expected_version": data["version"], "command": command}
            if dice is not None:
                body["dice"] = dice
            r = clients[seat].post(f"/api/v1/matches/{match_id}/commands", json=body)
            with lock:
                if r.status_code == 200:
                    accepted.append((data["version"], r.json()["version"]))
                else:
                    assert r.status_code == 409, r.text
                    conflicts.append(n)

    async def scenario() -> list[list[dict[str, Any]]]:
        got: list[list[dict[str, Any]]] = [[], []]
        tasks = [
            asyncio.create_task(collect(events.stream(hub, match_id, 0, r, timeout=60), o))
            for r, o in zip(readers, got, strict=True)
        ]
        try:
            await until(lambda: all(last_version(o) == 2 for o in got), timeout=20.0)
            await asyncio.gather(*(asyncio.to_thread(phone_pair, n) for n in range(3)))
            final = max(after for _, after in accepted)
            await until(lambda: all(last_version(o) == final for o in got), timeout=20.0)
            return got
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    try:
        got = asyncio.run(scenario())
        # the accepted writes tile the versions: none lost, none applied twice
        ordered = sorted(accepted)
        assert [before for before, _ in ordered] == [2] + [after for _, after in ordered[:-1]]
        with TestClient(app) as client:
            for seat, messages in zip("AB", got, strict=True):
                entries = [m["id"] for m in messages if m["event"] == "entry"]
                r = client.get(
                    f"/api/v1/matches/{match_id}/log",
                    headers={"Authorization": f"Bearer {tokens[seat]}"},
                )
                log = [e["seq"] for e in r.json()["entries"]]
                assert entries == log  # each of the seat's entries once, in order
                assert len(log) >= WRITES
                versions = [m["id"] for m in messages if m["event"] == "version"]
                assert versions == sorted(set(versions))
    finally:
        app.state.db.engine.dispose()
