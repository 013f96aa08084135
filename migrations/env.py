"""Alembic environment: URL from the settings; batch mode on SQLite, with foreign keys off.

On SQLite a batch operation rebuilds a table: it copies the rows into a new table, drops the old
one and renames the new one. With foreign keys on (every connection of ours turns them on),
``DROP TABLE`` first deletes every row, and ``ON DELETE CASCADE`` then empties the tables that
point at it: downgrading the league-report revision emptied ``match_events``. So migrations run
with ``PRAGMA foreign_keys=OFF``, which SQLite honours only outside a transaction: it is set on
the connection before the migrations' transaction begins. All the revisions of one run share
that transaction (on Postgres as on SQLite); before it commits, ``PRAGMA foreign_key_check``
must find no row pointing at nothing (else everything is rolled back); then foreign keys are
turned on again.

Callers may hand over an open connection in ``config.attributes["connection"]``; on SQLite it
must not be inside a transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import context
from sqlalchemy import Connection

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.migrate import hold_setup_lock
from app.models import Base

config = context.config
target_metadata = Base.metadata


def _pragma_foreign_keys(connection: Connection, on: bool) -> None:
    """Set ``foreign_keys`` on the DBAPI connection itself: through SQLAlchemy the statement
    would open a transaction first, inside which SQLite silently ignores it."""
    if connection.in_transaction():
        raise RuntimeError("SQLite migrations need a connection outside a transaction")
    raw = connection.connection.dbapi_connection
    assert raw is not None
    raw.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")
    (state,) = raw.execute("PRAGMA foreign_keys").fetchone()
    if bool(state) != on:
        raise RuntimeError(f"SQLite did not turn foreign keys {'on' if on else 'off'}")


@contextmanager
def _foreign_keys_off(connection: Connection) -> Iterator[None]:
    """Foreign keys off for the block (SQLite); what the block leaves open is committed if it
    succeeds and rolled back if not, before they are turned on again."""
    if connection.dialect.name != "sqlite":
        yield  # Postgres alters tables in place: nothing is rebuilt, nothing cascades
        return
    _pragma_foreign_keys(connection, on=False)
    try:
        yield
    except BaseException:
        if connection.in_transaction():
            connection.rollback()
        raise
    else:
        if connection.in_transaction():
            connection.commit()
    finally:
        _pragma_foreign_keys(connection, on=True)


def _check_foreign_keys(connection: Connection) -> None:
    """Refuse to commit migrations that leave a row pointing at nothing (SQLite)."""
    if connection.dialect.name != "sqlite":
        return
    dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if dangling:
        shown = ", ".join(
            f"{table} row {rowid} -> {parent}" for table, rowid, parent, _ in dangling
        )
        raise RuntimeError(f"the migrations leave rows pointing at nothing: {shown}")


def _run(connection: Connection) -> None:
    with _foreign_keys_off(connection):
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            # one transaction for the whole run on SQLite too (Alembic's default there is one
            # per revision): the foreign-key check below can still roll everything back
            transactional_ddl=True,
        )
        with context.begin_transaction():
            # before Alembic reads the version table: a replica migrating at the same time
            # commits first, and this run then finds the schema at head
            hold_setup_lock(connection)
            context.run_migrations()
            _check_foreign_keys(connection)


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or get_settings().database_url
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or get_settings().database_url
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            _run(conn)
            conn.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
