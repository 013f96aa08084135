"""The database pool: bounded, with a short checkout timeout that answers 503, never a 500."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from app.core.config import Settings
from app.core.db import Database, mark_outcome_unknown
from app.main import create_app


def test_a_dry_pool_answers_503_with_retry_after_fast_and_recovers(
    app_settings: Settings, database_url: str, engine: Engine
) -> None:
    database = Database(database_url, pool_size=1, pool_timeout=0.2)
    app = create_app(app_settings, database=database)
    client = TestClient(app)
    try:
        held = database.engine.connect()  # the only connection, taken
        try:
            t0 = time.perf_counter()
            response = client.get("/api/v1/me", headers={"Authorization": "Bearer apx_none"})
            assert time.perf_counter() - t0 < 2.0
            assert response.status_code == 503
            assert response.headers["retry-after"] == str(app_settings.retry_after_seconds)
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["type"].endswith("/overloaded")
            page = client.get(
                "/account",
                headers={"Accept": "text/html"},
                cookies={app_settings.session_cookie: "x"},
            )
            assert page.status_code == 503
            assert page.headers["retry-after"] == str(app_settings.retry_after_seconds)
        finally:
            held.close()
        # the connection is back: the same request is answered again (401: no such token)
        assert (
            client.get("/api/v1/me", headers={"Authorization": "Bearer apx_none"}).status_code
            == 401
        )
    finally:
        database.engine.dispose()


def test_the_pool_has_the_configured_size_and_no_overflow(database_url: str) -> None:
    database = Database(database_url, pool_size=7, pool_timeout=1.5)
    try:
        pool = database.engine.pool
        assert pool.size() == 7  # type: ignore[attr-defined]
        assert pool._max_overflow == 0  # type: ignore[attr-defined]
        assert pool._timeout == 1.5  # type: ignore[attr-defined]
    finally:
        database.engine.dispose()


def test_settings_refuse_a_pool_smaller_than_what_is_admitted() -> None:
    with pytest.raises(ValidationError, match="W40K_DB_POOL_SIZE"):
        Settings(db_pool_size=5, max_in_flight=8, stream_reads=2)
    with pytest.raises(ValidationError, match="W40K_THREADS"):
        Settings(threads=6, max_in_flight=8, stream_reads=2, db_pool_size=20)
    Settings(db_pool_size=12, max_in_flight=8, stream_reads=2, threads=12)


def test_a_dry_pool_tells_an_eventsource_to_retry_rather_than_a_503(
    app_settings: Settings, database_url: str, engine: Engine
) -> None:
    """An EventSource gives up for good on an error status: a stream refused for a dry pool is
    told to come back later (200 and ``retry:``), as the admission gate tells it."""
    database = Database(database_url, pool_size=1, pool_timeout=0.2)
    app = create_app(app_settings, database=database)
    client = TestClient(app)
    retry_ms = str(app_settings.retry_after_seconds * 1000)
    try:
        held = database.engine.connect()
        try:
            for path, headers in (
                ("/api/v1/matches/1/events", {"Authorization": "Bearer apx_none"}),
                ("/api/v1/spectate/not-a-token/events", {}),
            ):
                t0 = time.perf_counter()
                r = client.get(path, headers={**headers, "Accept": "text/event-stream"})
                assert time.perf_counter() - t0 < 2.0
                assert r.status_code == 200, (path, r.text)
                assert r.headers["content-type"].startswith("text/event-stream")
                assert r.text.startswith(f"retry: {retry_ms}\n"), r.text
                # the same request from an API client is the 503 problem
                plain = client.get(path, headers=headers)
                assert plain.status_code == 503
                assert plain.headers["retry-after"] == str(app_settings.retry_after_seconds)
        finally:
            held.close()
    finally:
        database.engine.dispose()


def _lost() -> OperationalError:
    return OperationalError(
        "SELECT 1",
        {},
        Exception("server closed the connection unexpectedly"),
        connection_invalidated=True,
    )


def _sqlite_busy() -> sqlite3.OperationalError:
    """A real "database is locked": another connection holds SQLite's write lock."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "busy.db"
        holder = sqlite3.connect(path, isolation_level=None)
        waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            try:
                waiter.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as busy:
                return busy
            raise AssertionError("the second writer was not refused")
        finally:
            waiter.close()
            holder.close()


class _PgError(Exception):
    """A driver error carrying a Postgres SQLSTATE, as psycopg's do."""

    def __init__(self, message: str, sqlstate: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def test_a_lost_database_connection_is_a_503_not_a_500(app: FastAPI) -> None:
    """ADR 0009: a connection lost (a restarted server, a pooled connection reused before its
    idle ping), none to be had, or SQLite's write lock held by another writer is the database
    away for a moment: 503 with Retry-After, and an EventSource's GET told to retry. A defect
    (a missing table, a wrong password) is a 500 and still raised to the tests' client; a
    connection lost while a change committed is a 500 that says its outcome is unknown, with no
    Retry-After inviting the same change twice."""
    router = APIRouter()
    busy = _sqlite_busy()
    assert busy.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY

    @router.get("/api/v1/_test/lost")
    def _lost_route() -> None:
        raise _lost()

    @router.get("/api/v1/_test/unreachable")
    def _unreachable() -> None:  # a connect that failed: no statement
        raise OperationalError(None, None, Exception("connection refused"))  # type: ignore[arg-type]

    @router.get("/api/v1/_test/busy")
    def _busy() -> None:
        raise OperationalError("BEGIN IMMEDIATE", {}, busy)

    @router.get("/api/v1/_test/shutdown")
    def _shutdown() -> None:
        raise OperationalError("SELECT 1", {}, _PgError("terminating connection", "57P01"))

    @router.get("/api/v1/_test/defect")
    def _defect() -> None:
        raise OperationalError("SELECT * FROM nope", {}, Exception("no such table: nope"))

    @router.get("/api/v1/_test/password")
    def _password() -> None:
        raise OperationalError(None, None, _PgError("password authentication failed", "28P01"))  # type: ignore[arg-type]

    @router.post("/api/v1/_test/commit")
    def _commit() -> None:  # SQLAlchemy gives no statement for a COMMIT
        raise OperationalError(None, None, Exception("server closed"), connection_invalidated=True)  # type: ignore[arg-type]

    @router.post("/api/v1/_test/one-statement")
    def _one_statement_lost() -> None:  # a write that commits by itself (app.matches.writes)
        exc = OperationalError(
            "WITH cas AS (UPDATE ...", {}, Exception("server closed"), connection_invalidated=True
        )
        mark_outcome_unknown(exc)
        raise exc

    @router.get("/api/v1/_test/commit")
    def _read_lost() -> None:  # the same loss on a read: nothing to save twice
        raise OperationalError(None, None, Exception("server closed"), connection_invalidated=True)  # type: ignore[arg-type]

    app.include_router(router)
    client = TestClient(app, raise_server_exceptions=False)
    retry = str(app.state.settings.retry_after_seconds)
    for path in ("lost", "unreachable", "busy", "shutdown", "commit"):
        r = client.get(f"/api/v1/_test/{path}")
        assert r.status_code == 503, (path, r.text)
        assert r.headers["retry-after"] == retry
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"].endswith("/overloaded")
        stream = client.get(f"/api/v1/_test/{path}", headers={"Accept": "text/event-stream"})
        assert stream.status_code == 200
        assert stream.text.startswith(f"retry: {int(retry) * 1000}\n")
    for path in ("defect", "password"):
        r = client.get(f"/api/v1/_test/{path}")
        assert r.status_code == 500, (path, r.text)
        assert "retry-after" not in r.headers
        assert "no such table" not in r.text
    # a defect reaches a client that raises server errors, as every other defect does
    with pytest.raises(OperationalError, match="no such table"):
        TestClient(app).get("/api/v1/_test/defect")
    unknown = client.post("/api/v1/_test/commit", headers={"Accept": "text/event-stream"})
    assert unknown.status_code == 500
    assert "retry-after" not in unknown.headers
    assert unknown.json()["type"].endswith("/outcome-unknown")
    assert "reload" in unknown.json()["detail"]
    alone = client.post("/api/v1/_test/one-statement")
    assert alone.status_code == 500
    assert "retry-after" not in alone.headers
    assert alone.json()["type"].endswith("/outcome-unknown")


def test_a_database_file_that_cannot_be_opened_is_a_defect(
    app_settings: Settings, tmp_path: Path
) -> None:
    """SQLite has no server to come back: a database "file" that is a directory is a deployment
    defect, a 500 logged as one, not a 503 inviting the client to wait for ever."""
    database = Database(f"sqlite:///{tmp_path}", pool_size=1, pool_timeout=0.2)
    app = create_app(app_settings, database=database)
    client = TestClient(app, raise_server_exceptions=False)
    try:
        r = client.get("/api/v1/me", headers={"Authorization": "Bearer apx_none"})
        assert r.status_code == 500, r.text
        assert "retry-after" not in r.headers
    finally:
        database.engine.dispose()


def test_a_connection_killed_on_the_server_is_a_503(
    app_settings: Settings, database_url: str, engine: Engine
) -> None:
    """Postgres: the server ends a pooled connection (a restart, an admin); the next request
    that takes it before its idle ping fails once, with 503, and the next one is served."""
    if not database_url.startswith("postgresql"):
        pytest.skip("Postgres only: SQLite has no server to lose")
    database = Database(database_url, pool_size=1, pool_timeout=1.0)
    app = create_app(app_settings, database=database)
    client = TestClient(app, raise_server_exceptions=False)
    try:
        headers = {"Authorization": "Bearer apx_none"}
        assert client.get("/api/v1/me", headers=headers).status_code == 401
        with database.engine.connect() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            conn.rollback()
        with engine.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            admin.commit()
        r = client.get("/api/v1/me", headers=headers)
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] == str(app_settings.retry_after_seconds)
        assert client.get("/api/v1/me", headers=headers).status_code == 401
    finally:
        database.engine.dispose()
