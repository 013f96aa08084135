"""Pen rulings B35 over HTTP, dice given by hand: a squad goes on alert in its turn, shoots
while the enemy moves (its seat sends ``shoot`` out of turn, offered with ``alert``), and the
morale test its fire causes stops the enemy squad instead of making it retreat [L957-L969]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.test_pen_match import MATCHES, PenGame, Seat, guard, marine, ready_pen_list
from tests.matches.test_pen_rules_transports import units


def actions(p: Seat) -> list[dict[str, Any]]:
    return list(p.client.get(f"{p.base}/actions").json()["actions"])


def test_alert_fire_through_the_api(user_client: Callable[[str], TestClient]) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    mine = ready_pen_list(alice, [marine()], "Marines")
    theirs = ready_pen_list(bob, [guard()], "Garde")
    body = {"ruleset": "pen", "army_id": mine, "mission": "pen-objectives", "battle_size": "1000"}
    created = alice.post(MATCHES, json=body).json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    g = PenGame(Seat(alice, base), Seat(bob, base), created["id"])
    g.a.send({"type": "end_step"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    g.a.send({"type": "choose_first", "seat": "A"})
    g.a.send({"type": "deploy", "unit": "a1"})
    g.a.send({"type": "end_step"})
    g.b.send({"type": "deploy", "unit": "b1"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])
    alert = {"type": "go_on_alert", "unit": "a1"}
    assert {"command": alert} in actions(g.a)
    g.a.send(alert)
    assert "alert" in units(g.b)["a1"]["tokens"]  # EA [L1485]
    refused = g.a.send({"type": "move", "unit": "a1", "speed": "normal", "inches": 6}, status=409)
    assert refused["refusal"] == "already_moved"  # it does nothing this turn [L959]
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.b.send({"type": "start_turn"})
    g.b.send({"type": "move", "unit": "b1", "speed": "normal", "inches": 6})
    offered = [a for a in actions(g.a) if a["command"]["type"] == "shoot"]
    assert [(a["command"]["unit"], a.get("alert")) for a in offered] == [("a1", True)]
    # two Marines at half range, 2 bolter shots each: 2+ to hit (BS4, +1 half range, +1
    # stationary [L1323]), S4 wounds T3 on 3+, the 5+ save against AP5 is a 6+ [L620]
    shot = {
        "type": "shoot",
        "unit": "a1",
        "target": "b1",
        "weapon": "Bolter",
        "range_inches": 10,
        "half_range": True,
        "models": 2,
    }
    g.a.send(shot, dice=[6] * 8 + [1] * 4)
    seen = units(g.b)
    assert seen["b1"]["models"] == 6
    assert g.b.view()["active_unit"] == "b1"  # B's squad is still moving
    # 4 of 10 lost: a morale test at Ld7, 12 fails: stopped, not retreating [L966]
    done = g.a.send({"type": "end_activation", "unit": "a1"}, dice=[6, 6])
    assert [e["event"]["type"] for e in done["events"]] == [
        "test_taken",
        "stopped",
        "alert_ended",
    ]
    seen = units(g.b)
    assert "retreating" not in seen["b1"]["tokens"]
    assert ("stopped" in seen["b1"]["tokens"], "alert" in seen["a1"]["tokens"]) == (True, False)
    refused = g.b.send(
        {"type": "shoot", "unit": "b1", "target": "a1", "weapon": "Lasgun", "range_inches": 10},
        status=409,
    )
    assert refused["refusal"] == "stopped"
