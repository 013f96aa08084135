"""Linking a tracked match to a league game after it was created (issue 12).

At creation a match may name the league game it plays (``league_game_id``); a player who
forgot can link it later, from the match page or ``PUT /api/v1/matches/{id}/league-game``,
with the same checks: a league game is played between two registered players, both of them
registered in that game, under the match's rule system, the game not settled and not tracked by
another unfinished match. Only the match's players may do it, and only until the battle
begins: once the first battle round is under way neither player may link, relink or unlink it
alone (a player who is losing could otherwise take the match off its league game; ruling 44 of
docs/rulings/wh40k10e-battle.md). The match row and the league game's row are locked while it
is checked, so two matches cannot both claim one game. ``null`` unlinks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.deps import OptionalUser
from app.accounts.models import User
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON, Conflict
from app.core.i18n import lazy
from app.core.ids import MAX_ID
from app.matches import league_games, service
from app.matches.exceptions import LeagueGameUnusable
from app.matches.models import Match, MatchStatus, OpponentKind

__all__ = [
    "BattleBegun",
    "LeagueGameOption",
    "LeagueLink",
    "LeagueLinkIn",
    "MatchOver",
    "link_league_game",
    "offered",
    "router",
]

ENDED = frozenset({MatchStatus.ENDED, MatchStatus.CONFIRMED})


class MatchOver(Conflict):
    code, title = "match-over", lazy("The battle is over: its league game can no longer change")


class BattleBegun(Conflict):
    code, title = (
        "battle-begun",
        lazy("The battle has begun: its league game can no longer change"),
    )


OPEN_FOR_LINKS = frozenset({MatchStatus.OPEN, MatchStatus.SETUP})


class LeagueLinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    league_game_id: int | None = Field(
        ge=1, le=MAX_ID, description="The league game this match plays; null unlinks it"
    )


class LeagueLink(BaseModel):
    """The match and the league game it now tracks (``None``: none)."""

    match_id: int
    league_game_id: int | None


def link_league_game(
    db: Session, match_id: int, caller: service.Caller, game_id: int | None
) -> LeagueLink:
    """Link match ``match_id`` to league game ``game_id`` (or unlink it with ``None``) for one
    of its players; 404 for anyone else, 409 once the battle has begun or is over, 422 for a
    game this match cannot play."""
    match, _seat = service.get_for(db, match_id, caller)
    if caller.user_id is None or match.opponent_kind == OpponentKind.GUEST:
        raise LeagueGameUnusable("A league game is played between two registered players.")
    db.execute(select(Match.id).where(Match.id == match.id).with_for_update())
    db.refresh(match)
    if MatchStatus(match.status) in ENDED:
        raise MatchOver()
    if MatchStatus(match.status) not in OPEN_FOR_LINKS:
        raise BattleBegun()
    if game_id is not None and game_id != match.league_game_id:
        _check(db, match, game_id)
    match.league_game_id = game_id
    db.flush()
    return LeagueLink(match_id=match.id, league_game_id=match.league_game_id)


def _check(db: Session, match: Match, game_id: int) -> None:
    """What creating and joining check (the service's own check, for each player already in
    the match: the game exists, is not settled, and both play it), and that no other
    unfinished match tracks the game, and that the game's league plays the match's rule system."""
    port = league_games.league_games()
    game = None if port is None else port.game(db, game_id, lock=True)
    if game is not None and game.rule_system != match.rule_system:
        raise LeagueGameUnusable(
            f"League game {game_id} is played under {game.rule_system}; this match is "
            f"{match.rule_system}."
        )
    players = [pid for pid in (match.player_a_id, match.player_b_id) if pid is not None]
    for pid in players:
        user = db.get(User, pid)
        assert user is not None
        service.check_league_game(db, game_id, user, joining=True)
    taken = db.scalar(
        select(Match.id).where(
            Match.league_game_id == game_id,
            Match.status != MatchStatus.CONFIRMED,
            Match.id != match.id,
        )
    )
    if taken is not None:
        raise LeagueGameUnusable(f"Match {taken} is already tracking this league game.")


MAX_OFFERED = 50  # league games the match page offers at most


@dataclass(frozen=True, slots=True)
class LeagueGameOption:
    id: int
    league: str
    round: int | None


def offered(db: Session, match: Match) -> list[LeagueGameOption]:
    """The league games the match page offers: not settled, not tracked by another unfinished
    match, and played by the match's players (both, once the opponent has joined)."""
    players = [pid for pid in (match.player_a_id, match.player_b_id) if pid is not None]
    port = league_games.league_games()
    if port is None or not players or match.opponent_kind == OpponentKind.GUEST:
        return []
    tracked = select(Match.league_game_id).where(
        Match.league_game_id.is_not(None),
        Match.status != MatchStatus.CONFIRMED,
        Match.id != match.id,
    )
    found = port.open_games(
        db, players, rule_system=match.rule_system, exclude=tracked, limit=MAX_OFFERED
    )
    return [LeagueGameOption(g.id, g.league, g.round) for g in found]


# -- JSON route -------------------------------------------------------------------------------

router = APIRouter(prefix="/matches", tags=["matches"])
_PROBLEM: dict[str, Any] = {PROBLEM_JSON: {}}


async def _caller(
    user: OptionalUser,
    x_guest_token: Annotated[
        str | None, Header(max_length=200, description="A guest seat's link token")
    ] = None,
) -> service.Caller:
    return service.Caller.of(user, x_guest_token)


@router.put(
    "/{match_id}/league-game",
    response_model=LeagueLink,
    summary="Link the match to a league game (or unlink it with null) until the battle begins",
    responses={
        404: {"description": "No such match, or you do not play it", "content": _PROBLEM},
        409: {
            "description": "The battle has begun (battle-begun) or is over (match-over)",
            "content": _PROBLEM,
        },
        422: {
            "description": "A game this match cannot play (league-game-unusable): not both "
            "players' game, settled, tracked by another match, or a guest seat",
            "content": _PROBLEM,
        },
    },
)
def put_league_game(
    request: Request,
    match_id: int,
    db: DbSession,
    caller: Annotated[service.Caller, Depends(_caller)],
    body: Annotated[LeagueLinkIn, Body()],
) -> Any:
    return link_league_game(db, match_id, caller, body.league_game_id)
