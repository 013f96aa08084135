"""Two devices, one truth: concurrent writers on real, committed transactions.

These tests commit for real (not inside the rolled-back test transaction), on SQLite and on
Postgres, and delete what they created at the end.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from app.engine.wh40k10e.battle import Seat
from app.matches import service
from app.matches.exceptions import CommandRefused, WriteConflict
from app.matches.models import Match, MatchEvent


def _seqs(engine: Engine, match_id: int) -> list[int]:
    with Session(engine) as s:
        return list(
            s.scalars(
                select(MatchEvent.seq)
                .where(MatchEvent.match_id == match_id)
                .order_by(MatchEvent.seq)
            )
        )


def test_a_writer_on_a_stale_read_gets_409_and_writes_nothing(
    engine: Engine, committed_match: tuple[int, list[int]]
) -> None:
    match_id = committed_match[0]
    first, second = Session(engine), Session(engine)
    try:
        m1 = first.get(Match, match_id)
        m2 = second.get(Match, match_id)
        assert m1 is not None
        assert m2 is not None
        assert m1.version == m2.version == 2
        service.load_battle(second, m2)  # the second device has read the match, too
        service.execute(first, m1, Seat.A, {"type": "roll_off"}, expected_version=2, dice=[6, 1])
        first.commit()
        with pytest.raises((CommandRefused, WriteConflict)) as info:
            service.execute(
                second, m2, Seat.B, {"type": "roll_off"}, expected_version=2, dice=[1, 6]
            )
        assert info.value.status == 409
        second.rollback()
    finally:
        first.close()
        second.close()
    assert _seqs(engine, match_id) == [1, 2, 3, 4]
    with Session(engine) as s:
        match = s.get(Match, match_id)
        assert match is not None
        assert match.version == 4
        battle = service.load_battle(s, match)
        assert battle.state.roll_offs == {"objectives": Seat.A}


def test_of_many_concurrent_writers_on_one_version_exactly_one_wins(
    engine: Engine, committed_match: tuple[int, list[int]]
) -> None:
    match_id = committed_match[0]
    writers = 6
    barrier = threading.Barrier(writers)
    outcomes: list[object] = []
    lock = threading.Lock()

    def write(n: int) -> None:
        with Session(engine) as s:
            match = s.get(Match, match_id)
            assert match is not None
            service.load_battle(s, match)
            barrier.wait(5)
            try:
                service.execute(
                    s,
                    match,
                    Seat.A if n % 2 else Seat.B,
                    {"type": "roll_off"},
                    expected_version=2,
                    dice=[6, 1],
                )
                s.commit()
                result: object = "ok"
            except (CommandRefused, WriteConflict) as exc:
                s.rollback()
                result = exc.status
            with lock:
                outcomes.append(result)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes, key=str) == [409] * (writers - 1) + ["ok"]
    assert _seqs(engine, match_id) == [1, 2, 3, 4]  # no event lost or doubled
