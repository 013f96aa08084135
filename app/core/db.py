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

import logging
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    DateTime,
    Dialect,
    Engine,
    MetaData,
    TypeDecorator,
    create_engine,
    event,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from app.core import latency

log = logging.getLogger("auspex")

# Execution option of a connection whose transaction will write (``BEGIN IMMEDIATE`` on SQLite).
WRITE = "auspex_write"
# How long a SQLite writer waits for another's lock: the command line, migrations and scripts
# wait long; a request's session waits W40K_DB_BUSY_TIMEOUT (Settings.db_busy_timeout, 2 s),
# then answers 503 with Retry-After, rather than holding its admission slot and thread 15 s.
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


def _configure_sqlite(engine: Engine, busy_timeout_ms: int | None = None) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # let SQLAlchemy emit BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        busy = BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
        cursor.execute(f"PRAGMA busy_timeout={int(busy)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


POOL_SIZE = 12  # W40K_DB_POOL_SIZE: per process, sized with the admission limits (ADR 0009)
POOL_TIMEOUT = 3.0  # W40K_DB_POOL_TIMEOUT: seconds; past it, a 503 with Retry-After


def make_engine(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = POOL_SIZE,
    pool_timeout: float = POOL_TIMEOUT,
    busy_timeout_ms: int | None = None,
) -> Engine:
    """The engine, with a fixed pool (no overflow) and a short checkout timeout: the admission
    control in front of the app keeps the pool from running dry, and should it happen anyway
    the request fails fast with a 503 (``sqlalchemy.exc.TimeoutError``) instead of waiting.
    ``busy_timeout_ms``: on SQLite, how long a writer waits for another's lock (``None``:
    :data:`BUSY_TIMEOUT_MS`, the command line's)."""
    parsed = make_url(url)
    pool: dict[str, Any] = {"pool_size": pool_size, "max_overflow": 0, "pool_timeout": pool_timeout}
    if parsed.get_backend_name() == "sqlite":
        memory = not parsed.database or parsed.database == ":memory:"
        if not memory:
            Path(parsed.database or "").parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            echo=echo,
            connect_args={"check_same_thread": False},
            **({} if memory else pool),
        )
        _configure_sqlite(engine, busy_timeout_ms)
        return engine
    engine = create_engine(url, echo=echo, **pool)
    ping_when_idle(engine)
    return engine


# A pooled connection is pinged before use only when it has sat idle in the pool for longer than
# this (instead of ``pool_pre_ping``'s round trip on every checkout: under load a connection is
# reused within milliseconds, and the ping was a round trip per request, issue 21). A server
# restart noticed only by a connection used within that window fails its one request; the
# error invalidates the pool, so every older connection is replaced at its next checkout.
PING_IDLE_SECONDS = 2.0
_RETURNED = "auspex_returned_at"


def ping_when_idle(engine: Engine) -> None:
    """Ping a connection at checkout if it was idle in the pool for :data:`PING_IDLE_SECONDS`
    (a new connection has just answered: it is not pinged)."""

    @event.listens_for(engine, "connect")
    def _on_connect(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        returned = record.info.get(_RETURNED)
        if returned is not None and time.monotonic() - returned < PING_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            # the pool discards this connection and checks out (or opens) another
            raise DisconnectionError(f"a pooled connection failed its ping: {exc}") from exc


# -- hot statements straight on the driver ------------------------------------------------------
#
# SQLAlchemy's execution of a cached Core statement (the execution context, the cursor result
# and its row processors, the event hooks) costs some 50 to 80 us of CPU on top of psycopg's own
# work: 100 -> 23 us for the refresh's select on Postgres, about half of each hot statement of a
# tournament cycle (issue 21). A :class:`DriverStatement` is compiled once per dialect by
# SQLAlchemy, then run on the connection's DBAPI cursor: the same SQL, the parameters through
# the statement's own bind processors, the results through its columns' result processors, in
# the connection's transaction (or its autocommit), ``before/after_cursor_execute`` listeners
# still told, a driver error raised as SQLAlchemy raises it (``IntegrityError``...) and a
# disconnect invalidating the connection. Only on psycopg; anything else (SQLite, a statement
# with expanding parameters) runs through SQLAlchemy as before.


class _DriverForm:
    __slots__ = ("binds", "compiled", "make", "processors", "sql")

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.compiled = compiled
        self.sql: str = compiled.string
        self.binds: list[tuple[str, Callable[[Any], Any]]] = [
            (name, fn) for name, fn in compiled._bind_processors.items() if fn is not None
        ]
        columns = getattr(compiled, "_result_columns", None) or []
        self.processors: list[tuple[int, Callable[[Any], Any]]] = []
        for i, column in enumerate(columns):
            fn = column[3]._cached_result_processor(dialect, None)
            if fn is not None:
                self.processors.append((i, fn))
        self.make: Callable[..., Any] | None = None
        if columns:  # a row type by column key (a key a tuple cannot name: ValueError)
            keys = [column[0] for column in columns]
            row_type: Any = namedtuple("DriverRow", keys)  # type: ignore[misc]
            self.make = row_type._make


class DriverStatement:
    """A Core statement that runs on the DBAPI cursor on Postgres (see above)."""

    __slots__ = ("_forms", "statement")

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._forms: dict[Dialect, _DriverForm | None] = {}

    def _form(self, dialect: Dialect) -> _DriverForm | None:
        try:
            return self._forms[dialect]
        except KeyError:
            pass
        form: _DriverForm | None = None
        if dialect.driver == "psycopg":
            try:
                form = _DriverForm(self.statement, dialect)
            except ValueError:  # column keys that cannot name a row's fields
                form = None
            if form is not None and (
                form.compiled.post_compile_params or form.compiled.literal_execute_params
            ):
                form = None  # expanding parameters: left to SQLAlchemy
        self._forms[dialect] = form  # a race builds it twice, the same form
        return form

    def rows(self, conn: Connection, params: dict[str, Any]) -> list[Any]:
        """The statement's rows (attributes by column key, as a Core row has)."""
        form = self._form(conn.dialect)
        if form is None:
            return list(conn.execute(self.statement, params).all())
        found, _ = self._run(conn, form, params, fetch=True)
        return found

    def rowcount(self, conn: Connection, params: dict[str, Any]) -> int:
        """Run a statement that returns no rows; the rows it changed."""
        form = self._form(conn.dialect)
        if form is None:
            return int(conn.execute(self.statement, params).rowcount)
        _, count = self._run(conn, form, params, fetch=False)
        return count

    @staticmethod
    def _run(
        conn: Connection, form: _DriverForm, params: dict[str, Any], *, fetch: bool
    ) -> tuple[list[Any], int]:
        values = form.compiled.construct_params(params, _check=True)
        for name, fn in form.binds:
            if name in values:
                values[name] = fn(values[name])
        dbapi_conn = conn.connection.dbapi_connection
        assert dbapi_conn is not None
        cursor = dbapi_conn.cursor()
        events = conn._has_events or conn.engine._has_events
        try:
            if events:
                conn.dispatch.before_cursor_execute(conn, cursor, form.sql, values, None, False)
            try:
                cursor.execute(form.sql, values)
                # ``cursor.description`` would say whether there are rows, but builds a
                # ``Column`` per field to say it (a third of a hot read's driver CPU, issue
                # 21): the result's fields tell the same (psycopg's own test, first half)
                result = cursor.pgresult
                raw = cursor.fetchall() if fetch and result is not None and result.nfields else []
                count = cursor.rowcount
            except conn.dialect.loaded_dbapi.Error as exc:
                gone = conn.dialect.is_disconnect(exc, dbapi_conn, cursor)
                if gone:
                    conn.invalidate(exc)
                raise DBAPIError.instance(
                    form.sql,
                    values,
                    exc,
                    conn.dialect.loaded_dbapi.Error,
                    connection_invalidated=gone,
                    dialect=conn.dialect,
                ) from exc
            if events:
                conn.dispatch.after_cursor_execute(conn, cursor, form.sql, values, None, False)
        finally:
            cursor.close()
        if form.processors:
            processed = []
            for found in raw:
                row = list(found)
                for i, fn in form.processors:
                    row[i] = fn(row[i])
                processed.append(row)
            raw = processed
        make = form.make
        return ([make(r) for r in raw] if make is not None else []), count


# A statement that commits by itself (a write outside a transaction: ``app.matches.writes``)
# whose connection is lost leaves its outcome unknown, as a lost COMMIT does: its error is
# marked so (``app.core.errors`` answers the 500 that says so, not a 503 inviting a retry).
_OUTCOME_UNKNOWN = "auspex_outcome_unknown"


def mark_outcome_unknown(exc: BaseException) -> None:
    setattr(exc, _OUTCOME_UNKNOWN, True)


def outcome_unknown(exc: BaseException) -> bool:
    return bool(getattr(exc, _OUTCOME_UNKNOWN, False))


# ``Session.info`` key of the callables to run once the session's transaction commits
# (``app.matches.writes.after_commit``): a session holding some is committed even when it has
# no transaction open (see ``Database.session``).
AFTER_COMMIT_HOOKS = "auspex.matches.after_commit"


class Database:
    """One engine and its session factory, owned by the application."""

    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        pool_size: int = POOL_SIZE,
        pool_timeout: float = POOL_TIMEOUT,
        busy_timeout_ms: int | None = None,
    ) -> None:
        # SQLite: how long a writer waits for another's lock (None: BUSY_TIMEOUT_MS); the app's
        # request sessions pass W40K_DB_BUSY_TIMEOUT
        self.busy_timeout_ms = busy_timeout_ms
        self.engine = make_engine(
            url,
            echo=echo,
            pool_size=pool_size,
            pool_timeout=pool_timeout,
            busy_timeout_ms=busy_timeout_ms,
        )
        # The same engine and pool, its connections marked as writing: a session bound to it
        # begins with ``BEGIN IMMEDIATE`` on SQLite at its first statement, so that opening
        # a request's session does no I/O (it can be opened on the event loop, ADR 0009).
        self.write_engine = self.engine.execution_options(**{WRITE: True})
        self.sessions = sessionmaker(self.engine, expire_on_commit=False, autoflush=True)
        if latency.ENABLED:  # a diagnostic (W40K_LATENCY_TRACE)
            latency.time_engine(self.engine)

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
        from its first statement (SQLite; other databases ignore the option). Opening the
        session does no I/O: the connection is checked out by the first statement.
        """
        with self.sessions(bind=self.write_engine if write else self.engine) as session:
            try:
                yield session
                # A session whose transaction has ended (``end_transaction``: the hot routes
                # commit before they answer) has nothing left to commit: ``commit()`` would
                # begin an empty transaction only to commit it (issue 21: a tenth of a hot
                # request's ORM CPU). Hooks waiting for a commit still get one.
                if session.in_transaction() or session.info.get(AFTER_COMMIT_HOOKS):
                    session.commit()
            except BaseException:
                session.rollback()
                raise


# -- bookkeeping written after the response ----------------------------------------------------
#
# What a request writes only to keep books (an API token's last use, an expired session's
# removal) must not hold a row lock for the request's transaction: a token used by 50 matches
# at once would make them queue on its row (issue 21: a 14-minute convoy). The request defers
# such a write (:func:`defer_write`); the ``Bookkeeping`` middleware hands it, after the
# response, to the process's :class:`Bookkeeper`, which runs what is pending in one short
# transaction of its own that never waits for a lock (ADR 0009).

DeferredWrite = Callable[[Session], None]
_deferred: ContextVar[dict[Hashable, DeferredWrite] | None] = ContextVar(
    "auspex_deferred_writes", default=None
)
NO_WAIT_MS = 200  # how long bookkeeping waits for a lock before it gives up (best effort)


@contextmanager
def deferred_writes() -> Iterator[dict[Hashable, DeferredWrite]]:
    """The scope of one request: what :func:`defer_write` collects inside it."""
    pending: dict[Hashable, DeferredWrite] = {}
    token = _deferred.set(pending)
    try:
        yield pending
    finally:
        _deferred.reset(token)


def defer_write(key: Hashable, write: DeferredWrite) -> bool:
    """Write ``write(session)`` after the response, outside the request's transaction.

    ``key`` coalesces repeats (the last one wins). Returns False outside a request (the command
    line, a service called directly): the caller then writes in its own session.
    """
    pending = _deferred.get()
    if pending is None:
        return False
    pending[key] = write
    return True


class Bookkeeper:
    """Runs deferred writes, one batch at a time per process: at most one pool connection ever
    goes to bookkeeping, and a request that finds a batch running leaves its writes to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[Hashable, DeferredWrite] = {}
        self._busy = False
        self.failures = 0

    def submit(self, database: Any, writes: dict[Hashable, DeferredWrite]) -> None:
        """Run ``writes`` (and whatever else is pending) unless a batch is running already."""
        with self._lock:
            self._pending.update(writes)
            if self._busy:
                return
            self._busy = True
        while True:
            with self._lock:
                batch, self._pending = self._pending, {}
                if not batch:
                    self._busy = False
                    return
            try:
                self._run(database, batch)
            except BaseException:
                with self._lock:
                    self._busy = False
                raise

    def _run(self, database: Any, batch: dict[Hashable, DeferredWrite]) -> None:
        try:
            with database.sessions() as session:
                sqlite = session.get_bind().dialect.name == "sqlite"
                try:
                    if sqlite:
                        session.execute(text(f"PRAGMA busy_timeout={NO_WAIT_MS}"))
                    else:
                        session.execute(text(f"SET LOCAL lock_timeout = '{NO_WAIT_MS}ms'"))
                    for write in batch.values():
                        write(session)
                    session.commit()
                finally:
                    if sqlite:
                        session.rollback()
                        busy = getattr(database, "busy_timeout_ms", None) or BUSY_TIMEOUT_MS
                        session.execute(text(f"PRAGMA busy_timeout={int(busy)}"))
                        session.commit()
        except (DBAPIError, SQLAlchemyTimeoutError) as exc:
            # Best effort: a busy row or a dry pool costs one bookkeeping record, which the
            # next request writes again; the request it came from was answered long ago.
            self.failures += 1
            log.warning("bookkeeping skipped (%s)", type(exc).__name__)
