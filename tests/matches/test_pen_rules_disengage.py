"""Pen rulings B34 over HTTP, dice given by hand: a squad with Désengagement still locked
after a drawn combat is offered ``disengage``, leaves with a normal move, and the enemy left
consolidates [L392-L394]."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.matches.test_pen_match import MATCHES, PenGame, Seat, guard, marine, ready_pen_list
from tests.matches.test_pen_rules_transports import to_b_turn, units


def test_a_squad_disengages_through_the_api(user_client: Callable[[str], TestClient]) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    mine = ready_pen_list(alice, [marine(rules=["Désengagement"])], "Marines")
    theirs = ready_pen_list(bob, [guard()], "Garde")
    body = {"ruleset": "pen", "army_id": mine, "mission": "pen-objectives", "battle_size": "1000"}
    created = alice.post(MATCHES, json=body).json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    g = PenGame(Seat(alice, base), Seat(bob, base), created["id"])
    to_b_turn(g)
    g.b.send({"type": "end_phase"})
    g.b.send({"type": "end_phase"})  # B's first turn passes
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a1", "target": "b1", "distance": 4})
    # ten Marines x 2 attacks on the charge, ten Guardsmen x 1: every blow misses, a draw
    g.a.send({"type": "fight", "unit": "a1", "target": "b1"}, dice=[1] * 30)
    offered = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
    assert {"command": {"type": "disengage", "unit": "a1"}, "needs": ["inches"]} in offered
    refused = g.a.send({"type": "disengage", "unit": "a1", "inches": 7}, status=409)
    assert refused["refusal"] == "too_far"  # a normal move [L392]
    done = g.a.send({"type": "disengage", "unit": "a1", "inches": 6}, dice=[])
    assert [e["event"]["type"] for e in done["events"]] == ["disengaged"]
    seen = units(g.b)
    assert (seen["a1"]["locked_with"], seen["b1"]["locked_with"]) == ([], [])
    assert "retreating" not in seen["a1"]["tokens"]
    g.b.send({"type": "consolidate", "unit": "b1", "inches": 6})  # [L394]


def test_hit_and_run_leaves_the_combat_through_the_api(
    user_client: Callable[[str], TestClient],
) -> None:
    """Pen rulings B34: the Hit & Run squad says so before the fight; after its own
    Initiative step it wins the roll-off and is gone before the slower Guardsmen strike."""
    alice, bob = user_client("Alice"), user_client("Bob")
    mine = ready_pen_list(alice, [marine(rules=["Hit & Run"])], "Marines")
    theirs = ready_pen_list(bob, [guard()], "Garde")
    body = {"ruleset": "pen", "army_id": mine, "mission": "pen-objectives", "battle_size": "1000"}
    created = alice.post(MATCHES, json=body).json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    g = PenGame(Seat(alice, base), Seat(bob, base), created["id"])
    to_b_turn(g)
    g.b.send({"type": "end_phase"})
    g.b.send({"type": "end_phase"})
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a1", "target": "b1", "distance": 4})
    declared = {"type": "hit_and_run", "unit": "a1", "initiative": 0}
    offered = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
    assert {"command": declared} in offered
    g.a.send(declared)
    # twenty Marine attacks (I4) miss; the roll-off: Guard 1 + 3, Marines 6 + 4: gone
    done = g.a.send({"type": "fight", "unit": "a1", "target": "b1"}, dice=[1] * 20 + [1, 6])
    resolved = next(e["event"] for e in done["events"] if e["event"]["type"] == "combat_resolved")
    assert resolved["disengaged"] == ["a1"]
    seen = units(g.b)
    assert (seen["a1"]["locked_with"], seen["b1"]["locked_with"]) == ([], [])
    g.b.send({"type": "consolidate", "unit": "b1", "inches": 6})
