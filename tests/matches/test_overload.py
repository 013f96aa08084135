"""Streams under load: an open stream holds no pool connection while it waits, its reads are
bounded per process, and a read the database cannot serve ends the stream with a ``retry:``
instead of an error (issue 21, ADR 0009)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.core.config import Settings
from app.core.db import Database
from app.main import create_app
from app.matches import events


@pytest.fixture
def live(
    app_settings: Settings,
    database_url: str,
    engine: Engine,
    committed_match: tuple[int, list[int]],
) -> Iterator[tuple[Database, TestClient, int, str]]:
    """A real pool on committed data: (database, client, match id, player A's token)."""
    match_id, user_ids = committed_match
    with Session(engine, expire_on_commit=False) as s:
        user = s.get(User, user_ids[0])
        assert user is not None
        secret = create_token(s, user, TokenCreate(name="phone")).secret
        s.commit()
    database = Database(database_url, pool_size=6, pool_timeout=2)
    yield database, TestClient(create_app(app_settings, database=database)), match_id, secret
    database.engine.dispose()


def test_an_open_stream_holds_no_pool_connection_while_it_waits(
    live: tuple[Database, TestClient, int, str],
) -> None:
    database, client, match_id, secret = live
    hub = events.hub_for(client.app)  # type: ignore[arg-type]
    got: dict[str, Any] = {}

    def listen() -> None:
        got["response"] = client.get(
            f"/api/v1/matches/{match_id}/events?timeout=2",
            headers={"Authorization": f"Bearer {secret}"},
        )

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while hub.subscribers(match_id) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hub.subscribers(match_id) == 1
    time.sleep(0.3)  # the first read is done: the stream now waits for news
    samples = []
    for _ in range(20):
        samples.append(database.engine.pool.checkedout())  # type: ignore[attr-defined]
        time.sleep(0.03)
    thread.join(10)
    assert got["response"].status_code == 200
    assert "event: version" in got["response"].text
    assert samples == [0] * 20


def test_stream_reads_are_bounded_per_process() -> None:
    hub = events.Hub(None, reads=2)
    running = 0
    peak = 0
    lock = threading.Lock()

    def read(since: int) -> events.Update:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return events.Update(since, [], {})

    async def scenario() -> None:
        await asyncio.gather(*(hub.read(read, n) for n in range(8)))

    asyncio.run(scenario())
    assert peak == 2


def test_a_read_on_a_saturated_database_ends_the_stream_with_retry() -> None:
    hub = events.Hub(None)

    def read(since: int) -> events.Update:
        raise SQLAlchemyTimeoutError("QueuePool limit of size 6 overflow 0 reached")

    async def scenario() -> list[str]:
        return [chunk async for chunk in events.stream(hub, 1, 0, read, timeout=5)]

    t0 = time.perf_counter()
    chunks = asyncio.run(scenario())
    assert time.perf_counter() - t0 < 1.0
    assert chunks[0] == f"retry: {events.RETRY_MS}\n\n"
    assert chunks[-1].startswith(f"retry: {events.BUSY_RETRY_MS}\n")
    assert not any("event:" in chunk for chunk in chunks)
    assert hub.subscribers(1) == 0
