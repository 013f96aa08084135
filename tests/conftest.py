"""Suite-wide fixtures.

The schema is built once per run by the Alembic migrations, on SQLite by default or on the
Postgres database named by ``W40K_TEST_DATABASE_URL``. Each test runs inside a transaction that
is rolled back; the code under test commits to a SAVEPOINT, so nothing leaks between tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

TEST_PASSWORD = "correct horse battery"
os.environ.setdefault("W40K_PASSWORD_HASH", "fast")  # before app.core.security is imported


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("W40K_TEST_DATABASE_URL")
    if not url:
        path: Path = tmp_path_factory.mktemp("db") / "test.db"
        yield f"sqlite:///{path}"
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        yield url
        return
    # each xdist worker gets a database of its own, named after the run's
    parsed = make_url(url)
    name = f"{parsed.database}_{worker}"
    admin = create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[Engine]:
    from app.core import migrate
    from app.core.db import make_engine

    migrate.upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def connection(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn:
        transaction = conn.begin()
        yield conn
        transaction.rollback()


@pytest.fixture
def db(connection: Connection) -> Iterator[Session]:
    session = Session(
        bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False
    )
    yield session
    session.close()


class _TestDatabase:
    """Stands in for app.core.db.Database: sessions bound to the test's open transaction."""

    def __init__(self, engine: Engine, connection: Connection) -> None:
        self.engine = engine
        self.connection = connection

    def sessions(self) -> Session:
        return Session(
            bind=self.connection, join_transaction_mode="create_savepoint", expire_on_commit=False
        )

    def session(self, *, write: bool = False) -> Iterator[Session]:
        with self.sessions() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise


@pytest.fixture
def app_settings(database_url: str):  # type: ignore[no-untyped-def]
    from app.core.config import Environment, Settings

    return Settings(
        env=Environment.TEST,
        database_url=database_url,
        secret_key="test-secret-key-that-is-long-enough-0123456789",
    )


@pytest.fixture
def app(app_settings, engine: Engine, connection: Connection) -> FastAPI:  # type: ignore[no-untyped-def]
    from app.main import create_app

    return create_app(app_settings, database=_TestDatabase(engine, connection))  # type: ignore[arg-type]


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as test_client:
        yield test_client
