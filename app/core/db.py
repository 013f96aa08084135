"""Database engine, sessions and the declarative base.

SQLite is the embedded default, Postgres (psycopg 3) the club deployment. The two must behave the
same: SQLite connections enforce foreign keys, and pysqlite's own transaction handling is turned
off so that SAVEPOINT-based test isolation and rollbacks work as on Postgres.

Concurrent writers on SQLite: a transaction that began with a plain (deferred) ``BEGIN`` reads
from a snapshot, and when another connection commits first its own write fails at once with
"database is locked" (SQLITE_BUSY_SNAPSHOT; the busy timeout does not apply). So a session that
is going to write asks for ``BEGIN IMMEDIATE`` (:data:`WRITE`): writers then queue on the busy
timeout and each one reads what the previous one committed (ADR 0007).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Dialect, Engine, MetaData, TypeDecorator, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

# Execution option of a connection whose transaction will write (``BEGIN IMMEDIATE`` on SQLite).
WRITE = "auspex_write"
BUSY_TIMEOUT_MS = 15_000

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that comes back with its time zone from every database: SQLite keeps none,
    so what it returns is read as the UTC we stored (the API then always says ``Z``)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else as_aware(value)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime}  # noqa: RUF012


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


def as_aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything we store is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # let SQLAlchemy emit BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def make_engine(url: str, *, echo: bool = False) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, echo=echo, connect_args={"check_same_thread": False})
        _configure_sqlite(engine)
        return engine
    return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=10)


class Database:
    """One engine and its session factory, owned by the application."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.engine = make_engine(url, echo=echo)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False, autoflush=True)

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A transaction that writes, outside a request (the command line): committed at the
        end, rolled back if the block raises, holding the write lock from the start."""
        with self.sessions.begin() as session:
            session.connection(execution_options={WRITE: True})
            yield session

    def session(self, *, write: bool = False) -> Iterator[Session]:
        """Request scope: commit on success, roll back on error. Services never commit.

        ``write``: the request means to change data, so its transaction takes the write lock
        from the start (SQLite; other databases ignore the option).
        """
        with self.sessions() as session:
            if write:
                session.connection(execution_options={WRITE: True})
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
