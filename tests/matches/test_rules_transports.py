"""Issue 12, Transports through the match API: a Predator was accepted as embarked in a Land
Raider. A Transport takes the models its datasheet names [L1208-1212]; where the data cannot
tell, the player is asked (``fits``)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import FakeArmies, Game, Player, orks, setup_battle, start_match


def marines() -> Roster:
    return Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Land Raider"),
            RosterUnit("Predator Destructor"),
            RosterUnit("Intercessor Squad", 5),
            RosterUnit("Captain", warlord=True),
        ),
        name="Armour",
    )


def test_a_predator_does_not_embark_in_a_land_raider(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob, match_id = start_match(browser, armies, marines(), orks())
    g = Game(Player(alice, match_id, "A", db), Player(bob, match_id, "B", db), match_id)
    setup_battle(g)
    g.a.send({"type": "end_phase"})  # to the Movement phase
    refused = g.a.send({"type": "move", "unit": "a2", "mode": "normal", "embark": "a1"}, status=409)
    assert refused["refusal"] == "transport_refuses_unit"
    assert "Land Raider cannot carry Predator Destructor" in refused["detail"]
    g.a.send({"type": "move", "unit": "a3", "mode": "normal", "embark": "a1"})
    view = g.a.view()
    assert next(u for u in view["units"] if u["id"] == "a3")["location"] == "embarked"
