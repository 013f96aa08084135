"""The league games a match may play: a port the leagues feature fills in (issue 21).

Matches stand below leagues in the house (docs/adr/0012-feature-layers.md): a league knows the
matches that settle its games, a match imports nothing of leagues. What the matches feature
needs of a league game it asks this port, and the leagues feature registers its implementation
when its models are imported (``app.leagues.match_port``), the way the army lists register
their catalogue check (``app.catalog.hooks``). Without a registered implementation (an
installation without leagues) no league game exists: a match naming one is refused, none is
offered, and only a match's players and creator manage its spectator link.

The port answers:

- :meth:`LeagueGames.game`: a game's facts (its league, rule system, players, whether it is
  settled, its page), optionally locked until the transaction ends;
- :meth:`LeagueGames.open_games`: the unsettled games that all the given users play;
- :meth:`LeagueGames.report`: a tracked match's confirmed result, written to its game;
- :meth:`LeagueGames.organises`: whether a user organises the league of a game (who may manage
  the spectator link of the match that plays it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Select
from sqlalchemy.orm import Session

__all__ = ["LeagueGame", "LeagueGames", "league_games", "register_league_games"]


@dataclass(frozen=True, slots=True)
class LeagueGame:
    """What a match knows of a league game."""

    id: int
    league_id: int
    league: str  # the league's name
    rule_system: str
    round: int | None  # the round's number (``None``: an open-ladder game)
    settled: bool  # its result is confirmed: no match may play it any more
    players: tuple[int, int]  # the two players' user ids, in the fixture's order
    path: str  # the game's page


class LeagueGames(Protocol):
    """What the leagues feature tells the matches feature of its games."""

    def game(self, db: Session, game_id: int, *, lock: bool = False) -> LeagueGame | None:
        """The game (``None``: no such game); ``lock`` keeps its row locked until the
        transaction ends, so that two matches cannot both claim it."""
        ...

    def open_games(
        self,
        db: Session,
        players: Sequence[int],
        *,
        rule_system: str | None,
        exclude: Select[Any],
        limit: int,
    ) -> list[LeagueGame]:
        """The unsettled games every user of ``players`` plays (in a league of
        ``rule_system``, when given), except the game ids ``exclude`` selects, newest first."""
        ...

    def report(
        self,
        db: Session,
        game_id: int,
        *,
        winner_user_id: int | None,
        vp: tuple[int, int],
        match_id: int,
    ) -> None:
        """Write a match's result, confirmed by both players, to its game (``vp`` in the
        fixture's order; ``winner_user_id`` ``None``: a draw). Raises an ``AppError`` when the
        game refuses it (already settled, gone...)."""
        ...

    def organises(self, db: Session, user_id: int, game_id: int) -> bool:
        """``user_id`` organises the league of game ``game_id``."""
        ...


_registered: list[LeagueGames] = []


def register_league_games(implementation: LeagueGames) -> None:
    """Register (or replace) the leagues feature's implementation of the port."""
    _registered[:] = [implementation]


def league_games() -> LeagueGames | None:
    """The registered implementation (``None``: the leagues feature is not installed)."""
    return _registered[0] if _registered else None
