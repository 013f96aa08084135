"""The request's session (``app.core.deps.get_db``): opened on the event loop with no I/O,
committed or rolled back before the response, in as few trips to the thread pool as it can
(issue 21: each trip costs CPU on every request)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.core.db import Database
from app.core.deps import DbSession


def _app(tmp_path: Path) -> tuple[FastAPI, Path]:
    path = tmp_path / "scope.db"
    app = FastAPI()
    app.state.db = Database(f"sqlite:///{path}")
    with app.state.db.engine.begin() as conn:
        conn.execute(text("CREATE TABLE notes (body TEXT NOT NULL)"))

    @app.get("/count")
    def count(db: DbSession) -> JSONResponse:  # a Response: FastAPI validates nothing more
        return JSONResponse(int(db.scalar(text("SELECT count(*) FROM notes")) or 0))

    @app.get("/idle")
    async def idle(db: DbSession) -> JSONResponse:
        return JSONResponse("no query")

    @app.post("/notes")
    def add(db: DbSession, fail: bool = False) -> str:
        db.execute(text("INSERT INTO notes (body) VALUES ('x')"))
        if fail:
            raise ValueError("after the insert")
        return "ok"

    return app, path


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions each request sent to AnyIO's thread pool."""
    seen: list[str] = []
    original = anyio.to_thread.run_sync

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(getattr(func, "__name__", repr(func)))
        return await original(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    return seen


def test_a_sync_read_takes_two_trips_and_an_unused_session_none(
    tmp_path: Path, trips: list[str]
) -> None:
    app, _ = _app(tmp_path)
    with TestClient(app) as client:
        trips.clear()
        assert client.get("/count").json() == 0
        # the endpoint, then the commit and the connection's return: the session is opened
        # on the loop (a sync generator dependency took one more trip to open it)
        assert len(trips) == 2, trips
        trips.clear()
        assert client.get("/idle").json() == "no query"
        assert trips == []  # nothing begun: closed on the loop
    app.state.db.engine.dispose()


def test_commits_before_the_answer_and_rolls_back_on_error(tmp_path: Path) -> None:
    app, _ = _app(tmp_path)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/notes").status_code == 200
        assert client.get("/count").json() == 1
        assert client.post("/notes", params={"fail": True}).status_code == 500
        assert client.get("/count").json() == 1  # the failed request's insert is gone
    app.state.db.engine.dispose()


def test_a_write_session_opens_with_no_io_and_takes_the_write_lock_first(tmp_path: Path) -> None:
    """SQLite: a request that means to write begins with BEGIN IMMEDIATE at its first
    statement, even a read, so a concurrent writer waits instead of failing later."""
    _, path = _app(tmp_path)
    database = Database(f"sqlite:///{path}")
    steps = database.session(write=True)
    session = next(steps)
    assert not session.in_transaction()  # opened: no connection, no BEGIN yet
    session.execute(text("SELECT count(*) FROM notes"))  # a read, first
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
    finally:
        other.close()
        with pytest.raises(StopIteration):
            next(steps)
        database.engine.dispose()
