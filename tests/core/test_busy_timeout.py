"""SQLite: a request's writer waits for another writer's lock W40K_DB_BUSY_TIMEOUT (2 s by
default), then answers 503 with Retry-After; the command line and migrations keep waiting 15 s
(``app.core.db.BUSY_TIMEOUT_MS``). Until 2026-11-26 a request waited the 15 s too, holding its
admission slot and its thread all along."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.core import db as core_db
from app.core.config import Settings
from app.core.db import Database
from tests.support.committed import committed_user


@pytest.fixture
def sqlite_file(engine: Engine) -> str:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's busy timeout (Postgres writers wait on row locks, not a file lock)")
    return str(make_url(engine.url).database)


def _busy_timeout(database: Database) -> int:
    with database.engine.connect() as conn:
        return int(conn.execute(text("PRAGMA busy_timeout")).scalar_one())


def test_the_setting_is_checked() -> None:
    assert Settings().db_busy_timeout == 2.0
    with pytest.raises(ValueError, match="db_busy_timeout"):
        Settings(db_busy_timeout=0)


def test_requests_wait_less_than_the_command_line(sqlite_file: str, app_settings: Any) -> None:
    from app.main import create_app

    cli = Database(app_settings.database_url)
    app = create_app(app_settings.model_copy(update={"db_busy_timeout": 0.5}))
    try:
        assert _busy_timeout(cli) == core_db.BUSY_TIMEOUT_MS == 15_000
        assert _busy_timeout(app.state.db) == 500
        assert _busy_timeout(create_app(app_settings).state.db) == 2_000  # the default
    finally:
        cli.engine.dispose()
        app.state.db.engine.dispose()


def test_a_writer_blocked_past_the_timeout_gets_a_503_at_once(
    sqlite_file: str, engine: Engine, app_settings: Any
) -> None:
    from app.main import create_app

    app = create_app(app_settings.model_copy(update={"db_busy_timeout": 0.3}))
    with committed_user(engine, "Blocked") as user_id:
        with Session(engine, expire_on_commit=False) as s:
            user = s.get(User, user_id)
            assert user is not None
            secret = create_token(s, user, TokenCreate(name="busy")).secret
            s.commit()
        holder = sqlite3.connect(sqlite_file, isolation_level=None, timeout=5)
        try:
            with TestClient(app) as client:
                client.headers["Authorization"] = f"Bearer {secret}"
                assert client.get("/api/v1/tokens").status_code == 200  # reads still pass
                holder.execute("BEGIN IMMEDIATE")  # another writer holds SQLite's write lock
                started = time.monotonic()
                refused = client.post("/api/v1/tokens", json={"name": "blocked"})
                waited = time.monotonic() - started
                holder.execute("ROLLBACK")
                assert refused.status_code == 503, refused.text
                assert refused.headers["retry-after"] == str(app_settings.retry_after_seconds)
                assert waited < 5, waited  # the 0.3 s timeout, not the command line's 15 s
                created = client.post("/api/v1/tokens", json={"name": "free again"})
                assert created.status_code == 201, created.text
        finally:
            holder.close()
            app.state.db.engine.dispose()
