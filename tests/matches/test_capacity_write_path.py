"""The write path's statements (issue 21): a command reads its match row as a Core statement on
the session's connection (no ORM execution), and its events go in as one multi-row INSERT whose
compiled form SQLAlchemy caches, storing exactly what the executemany of ``insert(MatchEvent)``
stored. On SQLite and on Postgres (the suite's two runs)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import Connection, Text, event, insert, select
from sqlalchemy import cast as sa_cast
from sqlalchemy.engine.interfaces import CacheStats
from sqlalchemy.orm import Session

from app.engine.match import Envelope
from app.matches import reads, service, systems, writes
from app.matches.exceptions import WriteConflict
from app.matches.models import Match, MatchEvent
from tests.matches.conftest import started_match
from tests.matches.streams import next_move


def _started(db: Session) -> tuple[int, dict[str, service.Caller]]:
    match, users = started_match(db, ("w-A", "w-B"))
    db.commit()
    return match.id, {"A": service.Caller(users[0].id), "B": service.Caller(users[1].id)}


def _play(db: Session, match_id: int, callers: dict[str, service.Caller]) -> service.Outcome:
    """The next command of the game, through ``service.command``."""
    match = db.get(Match, match_id)
    assert match is not None
    version = match.version
    move = next_move(service.view(db, match, "A") or {})
    assert move is not None
    seat, command, dice = move
    outcome, _ = service.command(
        db, match_id, callers[seat], command, expected_version=version, dice=dice
    )
    return outcome


class _Statements:
    """The statements the connection runs: (SQL, executemany, number of parameters)."""

    def __init__(self, conn: Connection) -> None:
        self.seen: list[tuple[str, bool, int]] = []
        self.conn = conn
        event.listen(conn, "before_cursor_execute", self._hear)

    def _hear(
        self, conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool
    ) -> None:
        self.seen.append((sql, many, len(params)))

    def close(self) -> None:
        event.remove(self.conn, "before_cursor_execute", self._hear)


def test_a_command_runs_no_orm_statement_and_inserts_its_events_in_one(db: Session) -> None:
    match_id, callers = _started(db)
    orm: list[Any] = []

    def heard(state: Any) -> None:
        orm.append(state.statement)

    event.listen(db, "do_orm_execute", heard)
    statements = _Statements(db.connection())
    try:
        sizes = []
        for _ in range(25):
            db.expire_all()
            match = db.get(Match, match_id)  # what the test reads to choose a move (ORM)
            assert match is not None
            move = next_move(service.view(db, match, "A") or {})
            assert move is not None
            seat, command, dice = move
            orm.clear()
            before = len(statements.seen)
            outcome, _ = service.command(
                db, match_id, callers[seat], command, expected_version=match.version, dice=dice
            )
            assert orm == [], "a command went through the ORM's execution"
            inserts = [seen for seen in statements.seen[before:] if "match_events" in seen[0]]
            # one statement, not an executemany, with the 8 columns of each new event
            assert [(many, n) for _, many, n in inserts] == [(False, 8 * len(outcome.new))]
            db.commit()
            sizes.append(len(outcome.new))
        assert max(sizes) > 1  # multi-event commands were among them
    finally:
        statements.close()
        event.remove(db, "do_orm_execute", heard)


def _stored(db: Session, match_id: int, base: int) -> list[tuple[Any, ...]]:
    rows = db.connection().execute(
        select(
            MatchEvent.seq,
            MatchEvent.batch,
            MatchEvent.actor,
            MatchEvent.at,
            MatchEvent.audience,
            MatchEvent.kind,
            MatchEvent.event,
        )
        .where(MatchEvent.match_id == match_id, MatchEvent.seq >= base)
        .order_by(MatchEvent.seq)
    )
    return [tuple(r) for r in rows]


@pytest.mark.parametrize("count", [1, 2, 3, 64, 65, 130])
def test_the_multi_row_insert_stores_what_the_executemany_stored(db: Session, count: int) -> None:
    """Twin matches: one's events through the executemany of ``insert(MatchEvent)`` (the
    statement this replaced), the other's through ``_insert_events`` (chunks of 64 rows): the
    same rows, the JSON read back equal and, as text, identical."""
    first, _ = _started(db)
    second, _ = _started(db)
    match = db.get(Match, first)
    assert match is not None
    battle = reads.snapshot(db, match).battle
    codec = systems.playable(match.rule_system).event_codec
    held = list(battle.envelopes)
    base = 1000
    envelopes = [
        Envelope(
            seq=base + i,
            batch=base + i // 3,
            actor=held[i % len(held)].actor,
            event=held[i % len(held)].event,
            at=None if i % 4 == 0 else f"2026-11-26T08:{i % 60:02d}:00+00:00",
            audience=None if i % 2 else ("A",) if i % 3 else ("A", "B"),
        )
        for i in range(count)
    ]
    conn = db.connection()
    conn.execute(
        insert(MatchEvent),
        [
            {
                "match_id": first,
                "seq": e.seq,
                "batch": e.batch,
                "actor": e.actor,
                "at": e.at,
                "audience": None if e.audience is None else ",".join(e.audience),
                "kind": e.event.kind,
                "event": codec.encode(e.event),
            }
            for e in envelopes
        ],
    )
    writes._insert_events(conn, second, envelopes, codec)
    old, new = _stored(db, first, base), _stored(db, second, base)
    assert len(new) == count
    assert new == old
    texts = [
        conn.execute(
            select(sa_cast(MatchEvent.event, Text))
            .where(MatchEvent.match_id == m, MatchEvent.seq >= base)
            .order_by(MatchEvent.seq)
        ).all()
        for m in (first, second)
    ]
    assert texts[0] == texts[1]


def test_the_multi_row_insert_is_compiled_once(db: Session) -> None:
    """SQLAlchemy's cache holds the statement's compiled form (an ``insert().values([...])``
    has no cache key and would be compiled on every write)."""
    first, _ = _started(db)
    match = db.get(Match, first)
    assert match is not None
    battle = reads.snapshot(db, match).battle
    codec = systems.playable(match.rule_system).event_codec
    held = list(battle.envelopes)[:2]
    conn = db.connection()
    hits = []
    for round_ in range(3):
        envelopes = [
            Envelope(seq=2000 + 10 * round_ + i, batch=2000 + round_, actor=e.actor, event=e.event)
            for i, e in enumerate(held)
        ]
        statement = writes._insert(len(envelopes))
        assert statement is writes._insert(len(envelopes))
        params: dict[str, Any] = {}
        for i, e in enumerate(envelopes):
            params.update(
                {
                    f"match_id_{i}": first,
                    f"seq_{i}": e.seq,
                    f"batch_{i}": e.batch,
                    f"actor_{i}": e.actor,
                    f"at_{i}": e.at,
                    f"audience_{i}": None,
                    f"kind_{i}": e.event.kind,
                    f"event_{i}": codec.encode(e.event),
                }
            )
        result = conn.execute(statement, params)
        hits.append(result.context.cache_hit)
    assert hits[1:] == [CacheStats.CACHE_HIT, CacheStats.CACHE_HIT]


def test_a_row_already_there_is_still_a_write_conflict(db: Session) -> None:
    """The multi-row INSERT is one statement: a seq already stored refuses all of it (409),
    as the executemany did, and the compare-and-set is rolled back with it."""
    match_id, callers = _started(db)
    _play(db, match_id, callers)
    db.commit()
    match = db.get(Match, match_id)
    assert match is not None
    version = match.version
    stray = list(reads.snapshot(db, match).battle.envelopes)[-1]
    codec = systems.playable(match.rule_system).event_codec
    # a row already at the next write's first seq
    writes._insert_events(
        db.connection(), match_id, [dataclasses.replace(stray, seq=version + 1)], codec
    )
    db.commit()
    with pytest.raises(WriteConflict):
        _play(db, match_id, callers)
    db.rollback()
    db.expire_all()
    match = db.get(Match, match_id)
    assert match is not None
    assert match.version == version
    seqs = db.scalars(
        select(MatchEvent.seq).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    ).all()
    assert list(seqs) == list(range(1, version + 2))  # the log and the stray row, nothing else
