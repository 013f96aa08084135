"""Benchmark of the league service on a database: 200 players after 10 Swiss rounds.

Run: ``.venv/bin/python bench/bench_leagues_api.py``. A scratch SQLite database is built by
the migrations and filled with one Swiss league (200 registrations, 10 rounds, 1000 confirmed
games). Each case times the service call (load from the database + the pure computation) and,
as the baseline measured in the same run, the pure computation alone on the same results; the
ratio printed is service / pure, i.e. what the database adds:

- standings: ``service.standings_for`` against ``compute_standings``;
- the next Swiss round: ``service.generate_round`` (loads, pairs, stores 100 games; rolled back
  each time) against ``swiss_round``;
- Elo of the club: ``service.club_elo`` against ``elo.rate``.

The issue's budget ("well under 100 ms" for standings + next Swiss round) is checked on the
service path, database included.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.clubs.models import Club, Membership, Role
from app.core import migrate
from app.core.db import make_engine, utcnow
from app.leagues import elo, service
from app.leagues.models import Game, GameStatus, League, Registration, Round
from app.leagues.pairing import swiss_round
from app.leagues.standings import Bye, GameResult, StandingsConfig, compute_standings

PLAYERS = 200
ROUNDS = 10
BUDGET_MS = 100.0


def timed(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def build(db: Session) -> tuple[User, int]:
    """A club, its admin, 200 members registered in a Swiss league, 10 played rounds."""
    admin = User(email="admin@example.com", display_name="Admin", password_hash="x")
    db.add(admin)
    club = Club(name="Bench club")
    db.add(club)
    db.flush()
    db.add(Membership(club_id=club.id, user_id=admin.id, role=Role.OWNER))
    league = League(
        club_id=club.id,
        name="Bench league",
        rule_system="wh40k-10e",
        format="swiss",
        rounds_planned=ROUNDS + 1,
        tie_breakers=["strength_of_schedule", "head_to_head", "vp_difference", "vp_scored"],
        mission_pool=[],
        seed=1234,
    )
    db.add(league)
    db.flush()
    regs = []
    for i in range(PLAYERS):
        user = User(email=f"p{i}@example.com", display_name=f"Player {i:03d}", password_hash="x")
        db.add(user)
        db.flush()
        db.add(Membership(club_id=club.id, user_id=user.id, role=Role.MEMBER))
        reg = Registration(league_id=league.id, user_id=user.id, snapshot={"name": "list"})
        db.add(reg)
        regs.append(reg)
    db.flush()
    players = [r.id for r in regs]
    outcomes = random.Random(7)
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, ROUNDS + 1):
        drawn = swiss_round(players, results, byes, random.Random(f"1234:{number}"))
        round_ = Round(league_id=league.id, number=number, bye_id=drawn.bye)
        db.add(round_)
        db.flush()
        for p in drawn.pairings:
            winner = outcomes.choice([p.player_a, p.player_b, p.player_a, p.player_b, None])
            vp_a = outcomes.randint(0, 100)
            results.append(GameResult(p.player_a, p.player_b, winner, vp_a, 50))
            now = utcnow()
            db.add(
                Game(
                    league_id=league.id,
                    round_id=round_.id,
                    table_number=p.table,
                    player_a_id=p.player_a,
                    player_b_id=p.player_b,
                    status=GameStatus.CONFIRMED,
                    winner_id=winner,
                    vp_a=vp_a,
                    vp_b=50,
                    accepted_a=True,
                    accepted_b=True,
                    reported_at=now,
                    confirmed_at=now,
                )
            )
    db.commit()
    return admin, league.id


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        migrate.upgrade(url)
        engine = make_engine(url)
        with Session(engine, expire_on_commit=False) as db:
            admin, league_id = build(db)
            seen = service.view(db, league_id, admin)
            league = seen.league
            players = [r.id for r, _u in service.registrations(db, league_id)]
            results = service.confirmed_results(db, league_id)
            byes = service.league_byes(db, league_id)
            config = StandingsConfig(
                scoring=service.scoring_of(league), tie_breakers=service.tie_breakers_of(league)
            )
            print(f"league: {PLAYERS} players, {ROUNDS} rounds, {len(results)} confirmed games")

            def pure_standings() -> object:
                return compute_standings(players, results, byes, config)

            def db_standings() -> object:
                db.expire_all()
                return service.standings_for(db, service.view(db, league_id, admin))

            def pure_round() -> object:
                return swiss_round(
                    players,
                    results,
                    byes,
                    random.Random(f"{league.seed}:{ROUNDS + 1}"),
                    scoring=service.scoring_of(league),
                )

            def db_round() -> object:
                db.expire_all()
                made = service.generate_round(db, league_id, admin)
                db.rollback()
                return made

            user_results = [
                GameResult(a, b, w, va, vb)
                for a, b, w, va, vb in (
                    (r.player_a, r.player_b, r.winner, r.vp_a, r.vp_b) for r in results
                )
            ]

            def pure_elo() -> object:
                return elo.rate(user_results)

            def db_elo() -> object:
                db.expire_all()
                return service.club_elo(db, league.club_id, admin, "wh40k-10e")

            total = 0.0
            for name, ours, baseline, repeat in (
                ("standings", db_standings, pure_standings, 7),
                ("next Swiss round", db_round, pure_round, 5),
                ("club Elo", db_elo, pure_elo, 5),
            ):
                base_ms = timed(baseline, repeat)
                ours_ms = timed(ours, repeat)
                if name != "club Elo":
                    total += ours_ms
                print(
                    f"{name:18s} service {ours_ms:8.2f} ms   pure {base_ms:8.2f} ms   "
                    f"ratio service/pure {ours_ms / base_ms:5.2f}"
                )
            verdict = "holds" if total < BUDGET_MS else "DOES NOT hold"
            print(
                f"standings + next Swiss round through the service: {total:.1f} ms; "
                f"the {BUDGET_MS:.0f} ms budget {verdict} on this machine"
            )
        engine.dispose()


if __name__ == "__main__":
    main()
