"""Several workers on Postgres: a write on one worker reaches a stream open on another through
LISTEN/NOTIFY (two app instances stand for two uvicorn workers; the writes really commit).

On SQLite there is one process and no LISTEN: the in-process path is tested in
test_events.py, and this module does not apply.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.core.db import Database
from app.matches import events

pytestmark = pytest.mark.xdist_group("notify")


@pytest.fixture
def postgres(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("LISTEN/NOTIFY exists on Postgres only; SQLite runs one process")


def _worker(app_settings: Any) -> Any:
    from app.main import create_app

    return create_app(app_settings, database=Database(app_settings.database_url))


def test_a_write_on_one_worker_reaches_a_stream_on_another(
    postgres: None, engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    match_id, (user_a, user_b) = committed_match
    with Session(engine) as s:
        tokens = {}
        for uid in (user_a, user_b):
            user = s.get(User, uid)
            assert user is not None
            tokens[uid] = create_token(s, user, TokenCreate(name="notify")).secret
        s.commit()
    reader_app, writer_app = _worker(app_settings), _worker(app_settings)
    got: dict[str, Any] = {}
    with TestClient(reader_app) as reader, TestClient(writer_app) as writer:
        reader.headers["Authorization"] = f"Bearer {tokens[user_b]}"
        writer.headers["Authorization"] = f"Bearer {tokens[user_a]}"

        def listen() -> None:
            # long enough for a write on a loaded machine (a CI run on two busy cores)
            r = reader.get(f"/api/v1/matches/{match_id}/events?since=2&timeout=10")
            got["text"] = r.text

        thread = threading.Thread(target=listen)
        thread.start()
        hub = events.hub_for(reader_app)
        deadline = time.monotonic() + 5
        while not hub.listening and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.listening, "the reader worker never started to LISTEN"
        r = writer.post(
            f"/api/v1/matches/{match_id}/commands",
            json={"expected_version": 2, "command": {"type": "roll_off"}, "dice": [2, 5]},
        )
        assert r.status_code == 200, r.text
        thread.join(30)
        assert not thread.is_alive()
        deadline = time.monotonic() + 10  # counted before the reader worker shuts down
        while hub.notifications < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert hub.notifications >= 1  # it came through the LISTEN connection
    assert events.hub_for(writer_app).notifications == 0  # the writer had no stream open
    entries = [
        json.loads(line[len("data: ") :])
        for block in got["text"].split("\n\n")
        if "event: entry" in block
        for line in block.splitlines()
        if line.startswith("data: ")
    ]
    assert [e["seq"] for e in entries] == [3, 4]
    assert entries[0]["event"]["type"] == "roll_off_made"
    reader_app.state.db.engine.dispose()
    writer_app.state.db.engine.dispose()
