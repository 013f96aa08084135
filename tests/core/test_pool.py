"""The database pool: bounded, with a short checkout timeout that answers 503, never a 500."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import Engine

from app.core.config import Settings
from app.core.db import Database
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
