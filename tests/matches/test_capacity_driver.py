"""The hot statements of a tournament cycle on the driver's cursor (issue 21,
``app.core.db.DriverStatement``): on Postgres they skip SQLAlchemy's execution, and must read
and write exactly what SQLAlchemy did. On SQLite (the suite's first run) they go through
SQLAlchemy as before; on Postgres (its second run) through psycopg's cursor."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Connection, Engine, bindparam, event, select, text
from sqlalchemy.exc import IntegrityError, MultipleResultsFound, ProgrammingError
from sqlalchemy.orm import Session

from app.core.db import DriverStatement
from app.matches import api, reads, service, writes
from app.matches.models import Match, MatchEvent
from tests.matches.test_capacity_write_path import _play, _started


def _postgres(db: Session) -> bool:
    return db.connection().dialect.driver == "psycopg"


def _heard(conn: Connection) -> tuple[list[tuple[str, Any]], Any]:
    heard: list[tuple[str, Any]] = []

    def hear(conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool) -> None:
        heard.append((" ".join(sql.split()), context))

    event.listen(conn, "before_cursor_execute", hear)
    return heard, hear


def _typed(row: Any) -> list[tuple[Any, type]]:
    return [(value, type(value)) for value in row]


@pytest.mark.parametrize("name", ["refresh", "write", "stream", "events"])
def test_a_hot_select_reads_what_sqlalchemy_reads(db: Session, name: str) -> None:
    match_id, callers = _started(db)
    for _ in range(4):
        _play(db, match_id, callers)
    db.commit()
    version = db.scalar(select(Match.version).where(Match.id == match_id))
    statement, params = {
        "refresh": (api._READ, {"match_id": match_id}),
        "write": (service.WRITE_ROW, {"match_id": match_id}),
        "stream": (api._STREAM_ROW, {"match_id": match_id}),
        "events": (reads._ROWS, {"match_id": match_id, "after": 0, "upto": version}),
    }[name]
    conn = db.connection()
    heard, hear = _heard(conn)
    try:
        found = reads.core_rows(db, statement, params).all()
    finally:
        event.remove(conn, "before_cursor_execute", hear)
    expected = conn.execute(statement, params).all()
    assert len(found) == len(expected) >= 1
    for got, want in zip(found, expected, strict=True):
        assert _typed(got) == _typed(want)  # the same values, of the same types (enums, times)
        assert got._fields == tuple(want._fields)
        for key in want._fields:
            assert getattr(got, key) == getattr(want, key)
    # the statement is still heard by the connection's listeners, once; on Postgres from the
    # driver's cursor (no SQLAlchemy execution context), elsewhere through SQLAlchemy
    (sql, context) = heard[-1]
    assert len(heard) == 1
    assert sql == " ".join(str(statement.compile(dialect=conn.dialect)).split())
    assert (context is None) is _postgres(db)


def test_one_or_none_refuses_two_rows(db: Session) -> None:
    match_id, callers = _started(db)
    _play(db, match_id, callers)
    db.commit()
    rows = reads.core_rows(db, reads._ROWS, {"match_id": match_id, "after": 0, "upto": 10**6})
    assert len(rows.all()) > 1
    with pytest.raises(MultipleResultsFound):
        rows.one_or_none()
    none = reads.core_rows(db, api._READ, {"match_id": 10**9})
    assert none.one_or_none() is None
    assert none.all() == []


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(db: Session) -> None:
    """A duplicate row is an ``IntegrityError`` (the write answers 409 on it), bad SQL a
    ``ProgrammingError`` on Postgres, as from ``Connection.execute``."""
    match_id, callers = _started(db)
    _play(db, match_id, callers)
    db.commit()
    row = db.execute(
        select(MatchEvent.seq, MatchEvent.batch).where(MatchEvent.match_id == match_id).limit(1)
    ).one()
    duplicate = DriverStatement(
        text(
            "INSERT INTO match_events (match_id, seq, batch, actor, at, kind, event) "
            "VALUES (:match_id, :seq, :batch, 'A', CURRENT_TIMESTAMP, 'x', '{}')"
        )
    )
    with pytest.raises(IntegrityError), db.begin_nested():
        duplicate.rowcount(db.connection(), {"match_id": match_id, **row._asdict()})
    if _postgres(db):
        broken = DriverStatement(text("SELECT no_such_column FROM matches WHERE id = :id"))
        with pytest.raises(ProgrammingError), db.begin_nested():
            broken.rows(db.connection(), {"id": match_id})
    # the session goes on after the savepoints' rollbacks
    assert db.scalar(select(Match.id).where(Match.id == match_id)) == match_id


def test_the_postgres_form_is_compiled_once_and_expanding_parameters_are_left_alone(
    engine: Engine,
) -> None:
    statement = DriverStatement(api._READ)
    form = statement._form(engine.dialect)
    assert statement._form(engine.dialect) is form
    expanding = DriverStatement(
        select(Match.id).where(Match.id.in_(bindparam("ids", expanding=True)))
    )
    assert expanding._form(engine.dialect) is None  # run by SQLAlchemy (its IN list expanded)
    if engine.dialect.driver == "psycopg":
        assert form is not None
        assert form.sql == str(api._READ.compile(dialect=engine.dialect))
    else:
        assert form is None  # SQLite: through SQLAlchemy


def test_an_expanding_select_still_reads_through_sqlalchemy(db: Session) -> None:
    match_id, _ = _started(db)
    statement = DriverStatement(
        select(Match.id, Match.version).where(Match.id.in_(bindparam("ids", expanding=True)))
    )
    rows = statement.rows(db.connection(), {"ids": [match_id, 10**9]})
    version = db.scalar(select(Match.version).where(Match.id == match_id))
    assert [(r.id, r.version) for r in rows] == [(match_id, version)]


def test_a_write_through_the_driver_is_rolled_back_with_its_transaction(db: Session) -> None:
    """The compare-and-set and the insert run in the session's transaction: a rollback undoes
    them (no autocommit of the driver's own)."""
    match_id, callers = _started(db)
    db.commit()
    before = db.scalar(select(Match.version).where(Match.id == match_id))
    with db.begin_nested() as nested:
        _play(db, match_id, callers)
        assert db.scalar(select(Match.version).where(Match.id == match_id)) > before
        nested.rollback()
    assert db.scalar(select(Match.version).where(Match.id == match_id)) == before
    count = db.scalar(
        select(MatchEvent.seq)
        .where(MatchEvent.match_id == match_id)
        .order_by(MatchEvent.seq.desc())
        .limit(1)
    )
    assert count == before
    assert isinstance(writes._CAS_DRIVER, DriverStatement)
