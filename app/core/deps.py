"""Request dependencies shared by every feature: settings and the database session."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.core import latency
from app.core.config import Settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_db(request: Request) -> AsyncIterator[Session]:
    """The request's session: committed when the endpoint returns, rolled back if it raises.

    Used with ``scope="function"`` so that the commit happens before the response is sent: a
    client never sees success for a write that did not commit. An unsafe method (POST, PUT,
    PATCH, DELETE) opens a write transaction: concurrent edits queue instead of failing.

    Opened on the event loop (a session does no I/O until its first statement), and closed
    there too when it never touched the database; otherwise its commit (or rollback) and the
    connection's return to the pool take one trip to the thread pool. A sync generator would
    take two (ADR 0009, addendum: each trip costs CPU on every request).
    """
    scope: AbstractContextManager[Session] = contextmanager(request.app.state.db.session)(
        write=request.method not in SAFE_METHODS
    )
    session = scope.__enter__()
    try:
        yield session
    except BaseException as exc:
        await _close(scope, session, exc)
        raise
    await _close(scope, session, None)


def end_transaction(session: Session) -> None:
    """Commit the request's transaction now, from a sync endpoint, once it is done with the
    database: its connection goes back to the pool in the endpoint's own trip to the thread
    pool, and :func:`get_db` then closes the session on the event loop with nothing left to
    do (one trip per request instead of two; for the hot routes, ADR 0009). Committed as
    :func:`get_db` would have: before the response, after-commit hooks included. Anything the
    endpoint reads afterwards autobegins a new transaction, which ``get_db`` ends as usual."""
    if latency.ENABLED:  # the commit's own round trip (its flush's statements time themselves)
        started, inner = time.perf_counter(), latency.db_so_far()
        session.commit()
        latency.add_db(time.perf_counter() - started - (latency.db_so_far() - inner), commit=True)
        return
    session.commit()


def autocommit_reads(session: Session) -> None:
    """Run the rest of ``session``'s statements without a transaction, for a request that only
    reads (call before its first statement): no ``BEGIN`` before the first statement and no
    ``COMMIT`` after the last, two round trips to the database fewer (issue 21: the refresh
    and the stream read of every write of tournament night). Each statement still sees what
    was committed when it started, as in Postgres' default READ COMMITTED. The connection
    goes back to the pool with its usual isolation level.

    Postgres only (on SQLite, whose transactions the engine begins itself, nothing is saved).
    Nothing is done either when the session has begun already (a dependency read through it,
    e.g. a token not cached) or is bound to a connection rather than the engine (the tests'
    session, inside a transaction that is rolled back): it then reads in its transaction.
    """
    _autocommit(session)


# ``Session.info`` key: the session runs without a transaction (:func:`autocommit_write`), so a
# write that is one statement commits by itself (``app.matches.writes.append``)
AUTOCOMMIT_WRITE = "auspex.autocommit_write"


def autocommit_write(session: Session) -> bool:
    """As :func:`autocommit_reads`, for a request whose one write is a single statement (a
    match command on Postgres: its compare-and-set and its events' insert are one statement,
    which commits by itself): no ``BEGIN`` before its first read, no ``COMMIT`` after the write,
    three round trips to the database fewer a write (issue 21). The writer marks the session
    (:data:`AUTOCOMMIT_WRITE`): one that must write more than one statement opens a transaction
    itself (``BEGIN``), committed or rolled back as the session's. Returns whether it applies
    (Postgres, a session bound to the engine and not begun yet)."""
    if not _autocommit(session):
        return False
    session.info[AUTOCOMMIT_WRITE] = True
    return True


def _autocommit(session: Session) -> bool:
    if session.in_transaction():
        return False
    bind = session.get_bind()
    if not isinstance(bind, Engine) or bind.dialect.name != "postgresql":
        return False
    session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    return True


async def _close(
    scope: AbstractContextManager[Session], session: Session, exc: BaseException | None
) -> None:
    def close() -> None:
        if exc is None:
            scope.__exit__(None, None, None)
        else:
            scope.__exit__(type(exc), exc, exc.__traceback__)  # rolls back, lets exc go on

    if not session.in_transaction():
        close()  # nothing begun: nothing to commit, no connection to return
        return
    with anyio.CancelScope(shield=True):  # a client gone away still gets its session closed
        await anyio.to_thread.run_sync(close)


DbSession = Annotated[Session, Depends(get_db, scope="function")]
AppSettings = Annotated[Settings, Depends(get_settings_dep)]
