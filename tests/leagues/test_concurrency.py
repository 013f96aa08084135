"""A confirmation racing a correction of the report it answers (issue 11, finding 1).

Alice reports "Bob won 10–90"; Bob opens it; Alice corrects it to "Alice won 90–10" while Bob
confirms from his old view. Bob must never confirm a result he was not shown: his confirm names
the report version he saw, and the game row is locked by every report, correction,
confirmation, dispute and settlement, so the second of two racing writes sees the first.

These tests commit for real (not inside the rolled-back test transaction), on SQLite and on
Postgres, through request-scoped write sessions as the app opens them, and delete what they
created. Without the row lock the Postgres run confirms Alice's correction (the confirm reads
the old version, then its UPDATE waits for the correction and lands on top of it); without the
version check both databases do.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine, delete
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.clubs.models import Club, Membership, Role
from app.leagues import service
from app.leagues.exceptions import GameStateConflict, ReportChanged
from app.leagues.models import Game, GameStatus, League, LeagueFormat, LeagueStatus, Registration
from app.leagues.schemas import ResultIn
from tests.support.committed import committed_user, write_session

pytestmark = pytest.mark.xdist_group("committed-leagues")

BOB_WINS = ResultIn(result="player_b", vp_a=10, vp_b=90)
ALICE_WINS = ResultIn(result="player_a", vp_a=90, vp_b=10)
RACES = 20


@dataclass(frozen=True, slots=True)
class Fixture:
    league_id: int
    games: tuple[int, ...]
    alice: int  # user ids
    bob: int
    alice_reg: int


@pytest.fixture
def committed_league(engine: Engine) -> Iterator[Fixture]:
    """A running ladder league of Alice and Bob with RACES + 1 scheduled games, committed."""
    with committed_user(engine, "Alice") as alice, committed_user(engine, "Bob") as bob:
        with Session(engine) as s:
            club = Club(name="Race club")
            s.add(club)
            s.flush()
            club_id = club.id
            s.add_all(
                [
                    Membership(club_id=club_id, user_id=alice, role=Role.MEMBER),
                    Membership(club_id=club_id, user_id=bob, role=Role.MEMBER),
                ]
            )
            league = League(
                club_id=club_id,
                name="Race league",
                rule_system="wh40k-10e",
                format=LeagueFormat.LADDER,
                status=LeagueStatus.RUNNING,
                seed=1,
            )
            s.add(league)
            s.flush()
            regs = [
                Registration(league_id=league.id, user_id=user_id, snapshot={})
                for user_id in (alice, bob)
            ]
            s.add_all(regs)
            s.flush()
            games = [
                Game(league_id=league.id, player_a_id=regs[0].id, player_b_id=regs[1].id)
                for _ in range(RACES + 1)
            ]
            s.add_all(games)
            s.commit()
            fixture = Fixture(league.id, tuple(g.id for g in games), alice, bob, regs[0].id)
        try:
            yield fixture
        finally:
            with Session(engine) as s:
                s.execute(delete(Club).where(Club.id == club_id))  # its league and games go too
                s.commit()


def _report(
    engine: Engine,
    fx: Fixture,
    game_id: int,
    data: ResultIn,
    hold: threading.Event | None = None,
) -> int:
    """Alice reports ``data`` in a request of her own; with ``hold``, the request stays open
    (uncommitted) for a while once the report is written. The new report version."""
    with write_session(engine) as s:
        alice = s.get(User, fx.alice)
        assert alice is not None
        game = service.report(s, fx.league_id, game_id, alice, data)
        if hold is not None:
            hold.set()
            time.sleep(0.3)  # still uncommitted: a concurrent confirm must wait for this one
        return game.report_version


def _confirm(engine: Engine, fx: Fixture, game_id: int, seen_version: int) -> GameStatus:
    """Bob confirms, naming the report version he saw, in a request of his own."""
    with write_session(engine) as s:
        bob = s.get(User, fx.bob)
        assert bob is not None
        return GameStatus(service.confirm(s, fx.league_id, game_id, bob, seen_version).status)


def _stored(engine: Engine, game_id: int) -> Game:
    with Session(engine, expire_on_commit=False) as s:
        game = s.get(Game, game_id)
        assert game is not None
        return game


def test_a_confirm_sent_while_the_report_is_being_corrected_confirms_nothing(
    engine: Engine, committed_league: Fixture
) -> None:
    fx = committed_league
    game_id = fx.games[0]
    seen = _report(engine, fx, game_id, BOB_WINS)  # what Bob opens
    assert seen == 1
    corrected = threading.Event()
    versions: list[int] = []
    thread = threading.Thread(
        target=lambda: versions.append(_report(engine, fx, game_id, ALICE_WINS, corrected))
    )
    thread.start()
    assert corrected.wait(10)  # the correction is written and its transaction still open
    with pytest.raises(ReportChanged) as refused:
        _confirm(engine, fx, game_id, seen)
    thread.join(10)

    assert versions == [2]
    assert refused.value.extra["report_version"] == 2  # the refusal names the new report
    assert "Alice won 90–10" in refused.value.detail
    game = _stored(engine, game_id)
    assert game.status == GameStatus.REPORTED  # nothing was confirmed
    assert (game.winner_id, game.vp_a, game.vp_b) == (fx.alice_reg, 90, 10)
    assert (game.accepted_a, game.accepted_b) == (True, False)
    assert game.confirmed_by_id is None
    assert game.report_version == 2
    # Bob confirms the report he is now shown
    assert _confirm(engine, fx, game_id, 2) is GameStatus.CONFIRMED


def _race(engine: Engine, fx: Fixture, game_id: int, seen: int) -> dict[str, object]:
    """Alice's correction and Bob's confirm of report ``seen``, started together: what each
    returned (the correction's version, the confirm's status) or raised."""
    barrier = threading.Barrier(2)
    results: dict[str, object] = {}
    acts: dict[str, Callable[[], object]] = {
        "correct": lambda: _report(engine, fx, game_id, ALICE_WINS),
        "confirm": lambda: _confirm(engine, fx, game_id, seen),
    }

    def run(name: str) -> None:
        try:
            barrier.wait(5)
            results[name] = acts[name]()
        except (ReportChanged, GameStateConflict) as exc:
            results[name] = exc

    threads = [threading.Thread(target=run, args=(name,)) for name in acts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_racing_corrections_and_confirms_never_confirm_an_unseen_result(
    engine: Engine, committed_league: Fixture
) -> None:
    """RACES times, Alice's correction and Bob's confirm of her first report start together:
    one of them wins, and the game holds either Bob's confirmation of what he saw or Alice's
    correction, waiting for him; never Alice's correction confirmed."""
    fx = committed_league
    outcomes: Counter[str] = Counter()
    for game_id in fx.games[1:]:
        seen = _report(engine, fx, game_id, BOB_WINS)
        results = _race(engine, fx, game_id, seen)
        game = _stored(engine, game_id)
        if results["confirm"] is GameStatus.CONFIRMED:
            assert isinstance(results["correct"], GameStateConflict)  # too late to correct
            assert (game.status, game.vp_a, game.vp_b) == (GameStatus.CONFIRMED, 10, 90)
            outcomes["confirmed what Bob saw"] += 1
        else:
            assert isinstance(results["confirm"], ReportChanged), results
            assert results["correct"] == 2
            assert (game.status, game.vp_a, game.vp_b) == (GameStatus.REPORTED, 90, 10)
            assert game.accepted_b is False
            outcomes["correction waits for Bob"] += 1
    assert sum(outcomes.values()) == RACES
