"""A match played for a league game reports its confirmed result to the fixture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from app.leagues.models import Game, Registration
from tests.matches.conftest import FakeArmies, Player, league_game, setup_battle, wipe_out_b
from tests.matches.conftest import Game as Table


def test_both_confirmations_settle_the_league_game(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob, carol = user_client("Alice"), user_client("Bob"), user_client("Carol")
    # the fixture lists Bob first: the VP are reported in the fixture's order
    game_id = league_game(db, bob.user_id, alice.user_id).game_id  # type: ignore[attr-defined]
    few = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.INCURSION,
        (RosterUnit("Captain", warlord=True), RosterUnit("Intercessor Squad", 5)),
    )
    alone = Roster(
        "Orks", "War Horde", BattleSize.INCURSION, (RosterUnit("Warboss", warlord=True),)
    )
    body: dict[str, Any] = {
        "army_id": armies.ready(alice, few),
        "battle_size": "incursion",
        "league_game_id": game_id,
    }
    r = alice.post("/api/v1/matches", json={**body, "opponent": "guest"})
    assert r.status_code == 422
    r = carol.post("/api/v1/matches", json={**body, "army_id": armies.ready(carol, few)})
    assert r.status_code == 422
    assert r.json()["type"].endswith("league-game-unusable")
    r = alice.post("/api/v1/matches", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["league_game_id"] == game_id
    assert alice.post("/api/v1/matches", json=body).status_code == 422  # one match per game
    code = created["invitation"]["code"]
    r = carol.post(
        "/api/v1/matches/join", json={"code": code, "army_id": armies.ready(carol, alone)}
    )
    assert r.status_code == 422  # not a player of that league game
    r = bob.post("/api/v1/matches/join", json={"code": code, "army_id": armies.ready(bob, alone)})
    assert r.status_code == 200, r.text
    t = Table(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])
    setup_battle(t)
    wipe_out_b(t)
    t.a.send({"type": "confirm_result"})
    fixture = db.get(Game, game_id)
    assert fixture is not None
    db.refresh(fixture)
    assert fixture.status == "scheduled"  # one confirmation is not enough
    t.b.send({"type": "confirm_result"})
    db.refresh(fixture)
    assert fixture.status == "confirmed"
    assert fixture.match_id == created["id"]
    alice_reg = db.get(Registration, fixture.player_b_id)
    assert alice_reg is not None
    assert fixture.winner_id == alice_reg.id
    assert (fixture.vp_a, fixture.vp_b) == (0, 0)
    assert t.a.get()["status"] == "confirmed"
