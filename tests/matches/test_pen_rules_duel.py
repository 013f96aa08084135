"""Pen rulings B36 over HTTP, dice given by hand: a Captain (an independent character) that
charged challenges the enemy Commissar; the challenge is offered to the challenged player, who
refuses, and the Commissar strikes at I1 [L1223-L1228]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.test_pen_match import MATCHES, PenGame, Seat, guard, marine, ready_pen_list
from tests.matches.test_pen_rules_transports import units


def actions(p: Seat) -> list[dict[str, Any]]:
    return list(p.client.get(f"{p.base}/actions").json()["actions"])


def character(base: dict[str, Any], name: str, **ch: Any) -> dict[str, Any]:
    return base | {
        "name": name,
        "models": 1,
        "points": 60,
        "troops": False,
        "independent_character": True,
        "characteristics": base["characteristics"] | ch,
    }


def test_a_refused_challenge_through_the_api(user_client: Callable[[str], TestClient]) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    captain = character(marine(), "Capitaine", ws=5, wounds=3, attacks=3, initiative=5)
    commissar = character(guard(), "Commissaire", wounds=2, attacks=2, initiative=6)
    mine = ready_pen_list(alice, [marine(), captain], "Marines")
    theirs = ready_pen_list(bob, [guard(), commissar], "Garde")
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
    for p, seat in ((g.a, "A"), (g.b, "B")):
        for unit in p.view()["units"]:
            if unit["seat"] == seat and unit["place"] == "undeployed":
                p.send({"type": "deploy", "unit": unit["id"]})
        p.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a2", "target": "b2", "distance": 4})
    challenge = {"type": "challenge", "unit": "a2", "target": "b2"}
    assert {"command": challenge} in actions(g.a)
    g.a.send(challenge)
    refuse = {"type": "answer_challenge", "unit": "b2", "accept": False}
    assert {"command": refuse} in actions(g.b)
    g.b.send(refuse)
    # the Commissar (I6) strikes at I1 [L1228], after the Captain: 4 attacks hit on 3+ (6, 6),
    # wound T3 on 3+ (6, 6), the 6+ save left by AP5 fails (1, 1): the Commissar dies first
    done = g.a.send({"type": "fight", "unit": "a2", "target": "b2"}, dice=[6, 6, 1, 1, 6, 6, 1, 1])
    assert [e["event"]["type"] for e in done["events"]] == ["combat_resolved"]
    seen = units(g.b)
    assert (seen["b2"]["place"], seen["a2"]["wounds_taken"]) == ("destroyed", 0)
