"""A command written as one statement on Postgres (issue 21): a request session without a
transaction (``deps.autocommit_write``) reads the match row and then writes the compare-and-set,
its NOTIFY and the events' insert as one statement that commits by itself: two round trips,
no BEGIN or COMMIT. The statement stores what the transactional path stores, inserts nothing
for a stale version (409 with the current version), and a write that needs more than one
statement (a league match) opens a transaction of its own, committed or rolled back with the
session. On SQLite (and for a session bound to a connection, as the other tests' are) nothing
changes: the transactional path runs.

Runs on committed rows with the app's own ``Database`` (the suite's Postgres run covers the
one-statement path; its SQLite run checks that it stays off)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, String, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.core.db import Database
from app.core.deps import AUTOCOMMIT_WRITE, autocommit_write, end_transaction
from app.engine.match import StaleVersion
from app.matches import events, reads, service, systems, writes
from app.matches.exceptions import CommandRefused
from app.matches.models import Match, MatchEvent
from tests.matches.streams import next_move


def _postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


@contextmanager
def _statements(database: Database) -> Iterator[list[str]]:
    """The SQL of every cursor execution on ``database``'s engine."""
    seen: list[str] = []

    def hear(conn: Any, cursor: Any, sql: str, *_args: Any) -> None:
        seen.append(sql)

    event.listen(database.engine, "before_cursor_execute", hear)
    try:
        yield seen
    finally:
        event.remove(database.engine, "before_cursor_execute", hear)


def _move(engine: Engine, match_id: int) -> tuple[int, str, dict[str, Any], list[int] | None]:
    """(version, seat, command, dice) of the game's next command, as a phone would choose it."""
    with Session(engine) as s:
        match = s.get(Match, match_id)
        assert match is not None
        move = next_move(service.view(s, match, "A") or {})
        assert move is not None
        return match.version, *move


def _version(engine: Engine, match_id: int) -> tuple[int, int]:
    """(the row's version, its number of event rows), read by another connection."""
    with engine.connect() as conn:
        version = conn.scalar(select(Match.version).where(Match.id == match_id))
        rows = conn.scalar(
            text("SELECT count(*) FROM match_events WHERE match_id = :m"), {"m": match_id}
        )
    return int(version or 0), int(rows or 0)


def _command(
    database: Database,
    match_id: int,
    callers: dict[str, service.Caller],
    move: tuple[int, str, dict[str, Any], list[int] | None],
) -> tuple[service.Outcome, bool]:
    """One command as the hot lane runs it (a write session, committed by end_transaction);
    whether the session ran without a transaction."""
    version, seat, command, dice = move
    with contextmanager(database.session)(write=True) as db:
        outcome, _ = service.command(
            db, match_id, callers[seat], command, expected_version=version, dice=dice
        )
        alone = bool(db.info.get(AUTOCOMMIT_WRITE))
        end_transaction(db)
    return outcome, alone


def test_a_command_is_one_statement_that_commits_by_itself(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    match_id, users = committed_match
    callers = {"A": service.Caller(users[0]), "B": service.Caller(users[1])}
    database = Database(app_settings.database_url)
    try:
        sizes = []
        for _ in range(20):
            move = _move(engine, match_id)
            with _statements(database) as seen:
                outcome, alone = _command(database, match_id, callers, move)
            assert _version(engine, match_id) == (outcome.battle.version,) * 2
            sizes.append(len(outcome.new))
            if not _postgres(engine):
                assert not alone  # SQLite: the transaction as before
                continue
            assert alone
            # the row's select, then the write: no BEGIN, no COMMIT, nothing else
            assert len(seen) == 2, seen
            assert seen[0].lstrip().upper().startswith("SELECT")
            assert seen[1].startswith("WITH cas AS (UPDATE")
        assert max(sizes) > 1  # commands of several events were among them
        # what was stored is the game: a battle replayed from the rows alone is the same
        reads.cache.clear()
        with Session(engine) as s:
            match = s.get(Match, match_id)
            assert match is not None
            replayed = reads.snapshot(s, match).battle
            assert replayed.version == outcome.battle.version
            for seat in "AB":
                assert replayed.view(seat) == outcome.battle.view(seat)
    finally:
        database.engine.dispose()


def test_the_statement_stores_the_rows_the_transactional_path_stores(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    """Every column of every event row, the JSON compared as the database keeps its text."""
    match_id, users = committed_match
    callers = {"A": service.Caller(users[0]), "B": service.Caller(users[1])}
    database = Database(app_settings.database_url)
    try:
        written = []
        for _ in range(12):
            outcome, _ = _command(database, match_id, callers, _move(engine, match_id))
            written += outcome.new
        codec = systems.playable("wh40k-10e").event_codec
        expected = writes._event_params(match_id, written, codec)
        with engine.connect() as conn:
            event_text = MatchEvent.event
            if _postgres(engine):
                event_text = MatchEvent.event.cast(String())  # type: ignore[assignment]
            rows = conn.execute(
                select(
                    MatchEvent.seq,
                    MatchEvent.batch,
                    MatchEvent.actor,
                    MatchEvent.at,
                    MatchEvent.audience,
                    MatchEvent.kind,
                    event_text,
                )
                .where(MatchEvent.match_id == match_id, MatchEvent.seq > 2)
                .order_by(MatchEvent.seq)
            ).all()
        assert len(rows) == len(written)
        for i, row in enumerate(rows):
            want = [expected[f"{name}_{i}"] for name in writes._EVENT_COLUMNS[1:]]
            got = list(row)
            if _postgres(engine):  # as text: what the JSON type's serialiser wrote
                want[-1] = MatchEvent.__table__.c.event.type.bind_processor(engine.dialect)(  # type: ignore[attr-defined]
                    want[-1]
                )
            assert got == want, i
    finally:
        database.engine.dispose()


def test_a_stale_version_writes_nothing_and_names_the_current_one(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    """A writer whose row was read before another write committed: its compare-and-set
    updates nothing, so its statement inserts nothing, and the refusal names the version."""
    match_id, users = committed_match
    callers = {"A": service.Caller(users[0]), "B": service.Caller(users[1])}
    database = Database(app_settings.database_url)
    try:
        version, seat, command, dice = _move(engine, match_id)
        with Session(engine) as s:  # the row as the writer read it...
            row = reads.core_rows(s, service.WRITE_ROW, {"match_id": match_id}).one_or_none()
        # ...before another phone's write committed
        other, _ = _command(database, match_id, callers, (version, seat, command, dice))
        after_other = _version(engine, match_id)
        with contextmanager(database.session)(write=True) as db:
            alone = autocommit_write(db)
            with pytest.raises(CommandRefused) as refused:
                service.execute(db, row, seat, command, expected_version=version, dice=dice)
        assert alone == _postgres(engine)
        assert refused.value.status == 409
        assert isinstance(refused.value.refusal, StaleVersion)
        assert refused.value.extra["current_version"] == other.battle.version
        assert _version(engine, match_id) == after_other  # nothing inserted, nothing updated
    finally:
        database.engine.dispose()


def test_the_write_notifies_once_committed(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    if not _postgres(engine):
        return  # no NOTIFY on SQLite (the streams are woken in process)
    match_id, users = committed_match
    callers = {"A": service.Caller(users[0]), "B": service.Caller(users[1])}
    database = Database(app_settings.database_url)
    url = make_url(app_settings.database_url).set(drivername="postgresql")
    listener = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
    try:
        listener.execute(f"LISTEN {writes.NOTIFY_CHANNEL}")
        move = _move(engine, match_id)
        with _statements(database) as seen:
            outcome, alone = _command(database, match_id, callers, move)
        assert alone
        # not in the write's own statement: a notifying commit holds Postgres' cluster-wide
        # notification lock through its fsync (app.core.notify); sent once committed
        assert not any("notify" in sql.lower() for sql in seen), seen
        heard = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
        assert len(heard) == 1
        # "id:version", then the write's public side for the spectators (events.note_payload)
        assert heard[0].startswith(f"{match_id}:{outcome.battle.version}:")
        parsed = events.parse_note(heard[0])
        assert parsed is not None
        assert parsed[:2] == (match_id, outcome.battle.version)
        assert parsed[2] is not None
        with pytest.raises(CommandRefused):  # a stale version: nothing committed, no news
            _command(database, match_id, callers, move)
        assert [n.payload for n in listener.notifies(timeout=1)] == []
    finally:
        listener.close()
        database.engine.dispose()


def test_a_league_match_writes_in_a_transaction_of_its_own(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    """A write that may report to a league is more than one statement: it opens a
    transaction (BEGIN), which the session commits, or rolls back on an error."""
    match_id, _ = committed_match
    database = Database(app_settings.database_url)
    try:
        for wanted in ("rolled back", "committed"):
            version, seat, command, dice = _move(engine, match_id)
            before = _version(engine, match_id)
            written = 0
            expecting = pytest.raises(_Abort) if wanted == "rolled back" else nullcontext()
            with expecting, contextmanager(database.session)(write=True) as db:
                alone = autocommit_write(db)
                row = reads.core_rows(db, service.WRITE_ROW, {"match_id": match_id}).one_or_none()
                target = _League(row)  # as if the match were a league game's
                with _statements(database) as seen:
                    outcome = service.execute(
                        db, target, seat, command, expected_version=version, dice=dice
                    )
                written = len(outcome.new)
                assert alone == _postgres(engine)
                if _postgres(engine):
                    assert "BEGIN" in seen
                    assert not any(sql.startswith("WITH cas") for sql in seen)
                # not visible to another connection before the commit
                assert _version(engine, match_id) == before
                if wanted == "rolled back":
                    raise _Abort
            after = _version(engine, match_id)
            if wanted == "rolled back":
                assert after == before
            else:
                assert after == (version + written, before[1] + written)
    finally:
        database.engine.dispose()


class _League:
    """The row of a match as if it had been created for a league game (none is reported: the
    battle does not end here)."""

    league_game_id = 10**9

    def __init__(self, row: Any) -> None:
        self._row = row

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, name)


class _Abort(Exception):
    pass


def test_a_connection_lost_during_the_statement_leaves_the_outcome_unknown(
    engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]], monkeypatch: Any
) -> None:
    """The statement is its own commit: a connection lost while it ran may have saved the
    command, so its error is marked as a lost COMMIT is (a 500 saying so, not a 503 inviting
    the same command again)."""
    from sqlalchemy.exc import OperationalError

    from app.core.db import outcome_unknown

    match_id, users = committed_match
    callers = {"A": service.Caller(users[0]), "B": service.Caller(users[1])}
    database = Database(app_settings.database_url)

    class _Lost:
        def rowcount(self, conn: Any, params: dict[str, Any]) -> int:
            raise OperationalError(
                "WITH cas AS (UPDATE ...",
                {},
                Exception("server closed"),
                connection_invalidated=True,
            )

    monkeypatch.setattr(writes, "_one_statement", lambda rows: _Lost())
    try:
        move = _move(engine, match_id)
        if not _postgres(engine):  # SQLite: the transactional path, never this statement
            outcome, alone = _command(database, match_id, callers, move)
            assert not alone
            assert outcome.new
            return
        with pytest.raises(OperationalError) as lost:
            _command(database, match_id, callers, move)
        assert outcome_unknown(lost.value)
    finally:
        database.engine.dispose()
