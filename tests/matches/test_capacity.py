"""Tournament night's read path under concurrent writes (issue 21): two phones write one
committed match at once (one of two concurrent writers gets 409 and reads again) while both
seats' streams are open; every stream receives its seat's copy of the log exactly once, in
order (the sharing of their reads is tested in test_reads.py).

Runs on a real database (committed rows, an app with its own pool), on SQLite and on Postgres.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
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
from tests.matches.test_events import parse

WRITES = 30


def next_move(view: dict[str, Any]) -> tuple[str, dict[str, Any], list[int] | None] | None:
    """What the players do next (as bench/_support.next_move)."""
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
    return None


async def _collect(body: AsyncIterator[str], out: list[dict[str, Any]]) -> None:
    async for chunk in body:
        out.extend(parse(chunk))


async def _until(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the streams did not get there in time"
        await asyncio.sleep(0.01)


def _last_version(messages: list[dict[str, Any]]) -> int:
    versions = [m["id"] for m in messages if m["event"] == "version"]
    return versions[-1] if versions else -1


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
            asyncio.create_task(_collect(events.stream(hub, match_id, 0, r, timeout=60), o))
            for r, o in zip(readers, got, strict=True)
        ]
        try:
            await _until(lambda: all(_last_version(o) == 2 for o in got))
            await asyncio.gather(*(asyncio.to_thread(phone_pair, n) for n in range(3)))
            final = max(after for _, after in accepted)
            await _until(lambda: all(_last_version(o) == final for o in got))
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
