"""The match feature is neutral: each rule system plugs its game in (ADR 0013)."""

from __future__ import annotations

from app.engine.match.game import GameStatus, MatchGame
from app.engine.wh40k10e.battle import Battle


def test_the_10e_battle_is_a_match_game() -> None:
    battle = Battle()
    assert isinstance(battle, MatchGame)
    assert isinstance(battle.fork(), MatchGame)
    status = battle.status()
    assert status == GameStatus("setup", confirmed=False, winner=None, scores={}, round=0)


def test_a_game_without_the_protocol_members_is_not_a_match_game() -> None:
    class Half:
        def view(self, viewer: str | None) -> dict[str, object]:
            return {}

    assert not isinstance(Half(), MatchGame)
