"""Gork's Blessing in the Black Reach battle (issue 16, rulings 131): at every refill, the
first deal included, the Orks draw 1 card beyond their hand size, then discard 1 of their hand
before anything else [L2703-L2709].

The battle is ``test_cards``' (hand of 2; the Orks' deck of 3: Tuff #1, Tuff #2, Brawl), the
Ork mob carrying a made-up Gork's Blessing ordnance in its first slot.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from tests.engine.black_reach.battle.test_cards import (
    NOB,
    ORK_DECK,
    events,
    kinds,
    order,
    refused,
    setup,
)

A, B = "A", "B"
GORK = {
    "id": "test-gork",
    "name": "A made-up blessing",
    "faction": "orks",
    "type": "ordnance",
    "cost": 2,
    "bands": ["red"],
    "ordnance": {"extra_draw": 1},
}


def blessed() -> BattleSetup:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    scenario = copy.deepcopy(base.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    catalogue["options"].append(GORK)
    orks = scenario["sides"][1]["army"]["tiles"][0]
    orks["slots"] = [{"slot": 0, "option": "test-gork"}]
    return replace(base, catalogue=catalogue, scenario=scenario)


def test_gork_draws_one_more_then_discards_one_before_the_tokens() -> None:
    battle = BlackReachBattle.create(blessed())
    offer = battle.actions(B)
    assert offer == [
        {"command": {"type": "draw_cards", "discard": []}, "hand": [], "extra_draw": 1}
    ]
    new = battle.execute_json({"type": "draw_cards"}, B, seed=28)
    drawn = events(new, "cards_drawn")[0].drawn
    assert sorted(drawn) == sorted(ORK_DECK)  # 2 + 1: the whole deck
    assert events(new, "hand_drawn")[0].hand == 3
    # the hand is over its size: the discard comes first, exactly one card
    offer = battle.actions(B)
    assert [(a["command"]["type"], a.get("discard_exactly")) for a in offer] == [("draw_cards", 1)]
    assert refused(battle, B, {"type": "place_orders", "orders": [order(NOB, 1)]}).code == (
        "draw_cards_first"
    )
    assert refused(battle, B, {"type": "draw_cards"}).code == "discard_exactly"
    two = {"type": "draw_cards", "discard": list(drawn[:2])}
    assert refused(battle, B, two).code == "discard_exactly"
    gone = drawn[2]
    new = battle.execute_json({"type": "draw_cards", "discard": [gone]}, B)
    assert kinds(new) == ["cards_drawn", "hand_drawn"]
    assert events(new, "cards_drawn")[0].drawn == ()
    state = battle.state
    assert (len(state.hands["orks"]), state.discards["orks"]) == (2, (gone,))
    assert "orks" not in state.to_draw
    assert battle.actions(B)[0]["command"]["type"] == "place_orders"
    # the other seat sees how many, never which
    seen = json.dumps([battle.view(A), battle.log_json(A)])
    assert gone not in seen
    assert battle.view(A)["cards"]["sides"]["orks"]["discards"] == 1


def test_a_side_without_the_blessing_draws_its_hand_size() -> None:
    battle = BlackReachBattle.create(blessed())
    assert battle.actions(A)[0]["extra_draw"] == 0
    new = battle.execute_json({"type": "draw_cards"}, A, seed=14)
    assert len(events(new, "cards_drawn")[0].drawn) == 2
    assert "ultramarines" not in battle.state.to_draw
