"""Linking a match to a league game after creation: the rule system must match, and once the
battle has begun neither player may link, relink or unlink it alone (ruling 44)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, league_game, setup_battle

PROBLEM = "application/problem+json"


def _put(client: TestClient, match_id: int, value: object) -> Any:
    return client.put(f"/api/v1/matches/{match_id}/league-game", json={"league_game_id": value})


def test_a_game_of_another_rule_system_cannot_be_linked(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    from app.leagues.models import League

    alice, bob = user_client("Alice"), user_client("Bob")
    game = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    r = alice.post("/api/v1/matches", json={"ruleset": "black-reach"})
    assert r.status_code == 201, r.text
    match_id = r.json()["id"]
    r = _put(alice, match_id, game.game_id)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert "wh40k-10e" in r.json()["detail"]
    league = db.get(League, game.league_id)
    assert league is not None
    league.rule_system = "black-reach"
    db.commit()
    assert _put(alice, match_id, game.game_id).status_code == 200


def test_once_the_battle_has_begun_the_link_cannot_change(
    new_game: Callable[..., Game], db: Session, armies: FakeArmies
) -> None:
    g = new_game()
    a_id, b_id = g.a.client.user_id, g.b.client.user_id  # type: ignore[attr-defined]
    game = league_game(db, a_id, b_id)
    assert _put(g.a.client, g.match_id, game.game_id).status_code == 200  # in set-up: fine
    setup_battle(g)
    r = _put(g.b.client, g.match_id, None)  # the player who is losing tries to unlink it
    assert r.status_code == 409, r.text
    assert r.json()["type"].endswith("battle-begun")
    assert g.a.get()["league_game_id"] == game.game_id


def test_a_match_of_another_rule_system_cannot_be_created_for_a_league_game(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    game = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    r = alice.post(
        "/api/v1/matches", json={"ruleset": "black-reach", "league_game_id": game.game_id}
    )
    assert r.status_code == 422, r.text
    assert r.json()["type"].endswith("league-game-unusable")


def test_the_leagues_register_their_port_when_their_models_load() -> None:
    import app.models  # noqa: F401  (what the app and Alembic load)
    from app.leagues.match_port import LeaguePort
    from app.matches import league_games

    assert isinstance(league_games.league_games(), LeaguePort)


def test_without_the_leagues_a_match_plays_no_league_game(
    new_game: Callable[..., Game],
    user_client: Callable[[str], TestClient],
    db: Session,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An installation without the leagues feature registers no port: a league game is
    refused, none is offered, the pages still work and only players manage spectators."""
    from app.matches import league_games

    g = new_game()
    a_id, b_id = g.a.client.user_id, g.b.client.user_id  # type: ignore[attr-defined]
    game = league_game(db, a_id, b_id)
    assert _put(g.a.client, g.match_id, game.game_id).status_code == 200
    monkeypatch.setattr(league_games, "_registered", [])
    assert league_games.league_games() is None
    assert g.a.client.get(f"/matches/{g.match_id}").status_code == 200  # linked, no league
    assert _put(g.a.client, g.match_id, None).status_code == 200  # unlinking needs none
    r = _put(g.a.client, g.match_id, game.game_id)
    assert r.status_code == 422, r.text
    assert r.json()["type"].endswith("league-game-unusable")
    r = g.a.client.post("/api/v1/matches", json={"league_game_id": game.game_id})
    assert r.status_code == 422, r.text
    assert g.a.client.get("/matches").status_code == 200
    assert g.a.client.get(f"/matches/{g.match_id}").status_code == 200
    assert g.a.client.get(f"/api/v1/matches/{g.match_id}/spectators").status_code == 200
