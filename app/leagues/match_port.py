"""The leagues' side of the matches' league games port (``app.matches.league_games``).

A match checks the league game it plays, lists the games it may play, reports its confirmed
result and lets the league's organisers manage its spectator link through this implementation,
registered when the leagues' models are imported (so wherever the app or its tests load them).

The organisers of a league are the admins and the owner of its club: they create and edit it,
generate its rounds and settle its results (``service``; docs/rulings/leagues-service.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, aliased

from app.clubs.models import Membership, Role
from app.leagues import service
from app.leagues.models import Game, GameStatus, League, Registration, Round
from app.matches.league_games import LeagueGame, register_league_games

ORGANISER_ROLES = tuple(str(role) for role in Role if role.manages)


def _query() -> Select[Any]:
    reg_a, reg_b = aliased(Registration), aliased(Registration)
    return (
        select(
            Game.id,
            Game.league_id,
            League.name,
            League.rule_system,
            Round.number,
            Game.status,
            reg_a.user_id,
            reg_b.user_id,
        )
        .join(League, League.id == Game.league_id)
        .outerjoin(Round, Round.id == Game.round_id)
        .join(reg_a, reg_a.id == Game.player_a_id)
        .join(reg_b, reg_b.id == Game.player_b_id)
    )


def _game(row: Any) -> LeagueGame:
    game_id, league_id, name, rule_system, number, status, user_a, user_b = row
    return LeagueGame(
        id=game_id,
        league_id=league_id,
        league=name,
        rule_system=rule_system,
        round=number,
        settled=GameStatus(status) is GameStatus.CONFIRMED,
        players=(user_a, user_b),
        path=f"/leagues/{league_id}/games/{game_id}",
    )


class LeaguePort:
    """The implementation of ``app.matches.league_games.LeagueGames``."""

    def game(self, db: Session, game_id: int, *, lock: bool = False) -> LeagueGame | None:
        query = _query().where(Game.id == game_id)
        if lock:
            query = query.with_for_update(of=Game)
        row = db.execute(query).one_or_none()
        return None if row is None else _game(row)

    def open_games(
        self,
        db: Session,
        players: Sequence[int],
        *,
        rule_system: str | None,
        exclude: Select[Any],
        limit: int,
    ) -> list[LeagueGame]:
        query = _query().where(Game.status != GameStatus.CONFIRMED, Game.id.not_in(exclude))
        if rule_system is not None:
            query = query.where(League.rule_system == rule_system)
        for user_id in players:
            reg = aliased(Registration)
            query = query.where(
                select(reg.id)
                .where(reg.user_id == user_id, reg.id.in_([Game.player_a_id, Game.player_b_id]))
                .exists()
            )
        rows = db.execute(query.order_by(Game.id.desc()).limit(limit)).all()
        return [_game(row) for row in rows]

    def report(
        self,
        db: Session,
        game_id: int,
        *,
        winner_user_id: int | None,
        vp: tuple[int, int],
        match_id: int,
    ) -> None:
        service.report_from_match(
            db,
            game_id,
            winner_user_id=winner_user_id,
            vp=vp,
            match_id=match_id,
            confirmed_by_both=True,
        )

    def organises(self, db: Session, user_id: int, game_id: int) -> bool:
        found = db.scalar(
            select(Membership.id)
            .join(League, League.club_id == Membership.club_id)
            .join(Game, Game.league_id == League.id)
            .where(
                Game.id == game_id,
                Membership.user_id == user_id,
                Membership.role.in_(ORGANISER_ROLES),
            )
        )
        return found is not None


register_league_games(LeaguePort())
