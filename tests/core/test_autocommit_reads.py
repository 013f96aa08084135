"""A request that only reads runs its statements outside a transaction on Postgres
(``app.core.deps.autocommit_reads``): no BEGIN and no COMMIT round trips (issue 21), and the
connection goes back to the pool as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.core.db import Database
from app.core.deps import autocommit_reads


@pytest.fixture
def sqlite_database(tmp_path: Path) -> Iterator[Database]:
    found = Database(f"sqlite:///{tmp_path / 'reads.db'}")
    yield found
    found.engine.dispose()


def test_sqlite_is_left_alone(sqlite_database: Database) -> None:
    with sqlite_database.sessions() as session:
        autocommit_reads(session)
        assert "isolation_level" not in session.connection().get_execution_options()
        assert session.execute(text("SELECT 1")).scalar() == 1
        raw = session.connection().connection.dbapi_connection
        assert raw is not None
        assert raw.isolation_level is None  # the engine still begins the transactions itself


@pytest.fixture
def postgres(database_url: str) -> Iterator[Database]:
    if not database_url.startswith("postgresql"):
        pytest.skip("Postgres only")
    found = Database(database_url, pool_size=1)  # one connection: reused by every session
    yield found
    found.engine.dispose()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The commands (BEGIN, COMMIT...) psycopg sends, from now on."""
    from psycopg._connection_base import BaseConnection

    found: list[bytes] = []
    original = BaseConnection._exec_command

    def record(self: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        found.append(command if isinstance(command, bytes) else str(command).encode())
        return original(self, command, *args, **kwargs)

    monkeypatch.setattr(BaseConnection, "_exec_command", record)
    return found


def _read(database: Database, *, auto: bool, sent: list[bytes]) -> list[bytes]:
    sent.clear()
    with database.sessions() as session:
        if auto:
            autocommit_reads(session)
        assert session.execute(text("SELECT 2")).scalar() == 2
        session.commit()
    return [c.split()[0] for c in sent]


def test_on_postgres_a_read_sends_no_begin_and_no_commit(
    postgres: Database, sent: list[bytes]
) -> None:
    _read(postgres, auto=False, sent=sent)  # the connection is set up and warm
    assert _read(postgres, auto=False, sent=sent) == [b"BEGIN", b"COMMIT"]
    assert _read(postgres, auto=True, sent=sent) == []
    # the pooled connection came back as it was: the next session has its transaction again
    assert _read(postgres, auto=False, sent=sent) == [b"BEGIN", b"COMMIT"]


def test_on_postgres_a_session_that_has_begun_keeps_its_transaction(
    postgres: Database, sent: list[bytes]
) -> None:
    with postgres.sessions() as session:
        session.execute(text("SELECT 1"))
        autocommit_reads(session)
        assert "isolation_level" not in session.connection().get_execution_options()
        session.commit()
    assert [c.split()[0] for c in sent][-2:] == [b"BEGIN", b"COMMIT"]
