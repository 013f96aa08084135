"""Pen rulings B31-B33 over HTTP, dice given by hand: a squad kept in reserve inside a transport
kept in reserve comes on with it [L854-L867]; the passengers of an open-topped transport shoot
from it [L295], [L315]; out of a fast transport that moved over 12 ps only an emergency
disembark, counting as a rapid move [L305-L309]. The lists come from the army builder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.matches.systems.pen import PenMatch
from tests.matches.test_pen_match import MATCHES, PenGame, Seat, guard, marine, ready_pen_list


def transport(name: str, types: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "points": 40,
        "unit_type": None,
        "characteristics": {"bs": 3},
        "armour": {"front": 10, "side": 10, "rear": 10},
        "hull_points": 2,
        "vehicle_types": types,
        "transport_capacity": 10,
    }


def game(user_client: Callable[[str], TestClient], b_units: list[dict[str, Any]]) -> PenGame:
    """A: a1 ten Marines; B: ``b_units`` (b1, b2...)."""
    alice, bob = user_client("Alice"), user_client("Bob")
    mine = ready_pen_list(alice, [marine()], "Marines")
    theirs = ready_pen_list(bob, b_units, "Garde")
    body = {"ruleset": "pen", "army_id": mine, "mission": "pen-objectives", "battle_size": "1000"}
    r = alice.post(MATCHES, json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    return PenGame(Seat(alice, base), Seat(bob, base), created["id"])


def units(p: Seat) -> dict[str, dict[str, Any]]:
    return {u["id"]: u for u in p.view()["units"]}


def actions(p: Seat) -> list[dict[str, Any]]:
    return list(p.client.get(f"{p.base}/actions").json()["actions"])


def to_b_turn(g: PenGame, b_reserve_dice: list[int] | None = None) -> None:
    """The roll-off won by A, A first, the squads left deployed; A's first turn passes (night
    stays: a 1 on the dawn roll [L948]); B's turn starts."""
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
    g.a.send({"type": "end_phase"})
    g.b.send({"type": "start_turn"}, dice=b_reserve_dice or [])


def test_a_squad_in_reserve_in_an_open_transport_comes_on_and_shoots_from_it(
    user_client: Callable[[str], TestClient],
) -> None:
    g = game(
        user_client,
        [
            guard(),
            transport("Trukk", ["open-topped", "transport"]),
            guard(name="Vétérans", models=5, troops=False, points=50),
        ],
    )
    g.b.send({"type": "declare_reserve", "unit": "b2"})
    embark = {"type": "embark", "unit": "b3", "transport": "b2"}
    assert {"command": embark} in actions(g.b)  # offered in the reserves step (B31)
    g.b.send(embark)
    seen = units(g.a)["b3"]
    assert (seen["place"], seen["transport"]) == ("embarked", "b2")
    refused = g.b.send({"type": "declare_reserve", "unit": "b3"}, status=409)
    assert refused["refusal"] == "embarked"  # it comes on with the Trukk
    # one reserve roll, for the Trukk: 5 on turn 1 arrives on 5+ [L862]
    to_b_turn(g, b_reserve_dice=[5])
    assert units(g.b)["b2"]["place"] == "available"
    assert units(g.b)["b3"]["place"] == "embarked"
    g.b.send({"type": "arrive", "unit": "b2", "inches": 6})
    g.b.send({"type": "end_activation", "unit": "b2"})
    offered = [a for a in actions(g.b) if a["command"]["type"] == "shoot"]
    assert [(a["command"]["unit"], a["fire_points"]) for a in offered] == [("b3", 5)]
    # an open-topped transport: every passenger fires [L315]; moved with the Trukk, the lasguns
    # (rapid fire, 10 ps, not at half range) fire once each at BS3: the 6 hits, the four 1s
    # miss; S3 wounds T4 on 5+ (the 5); the Marine's 3+ save fails on the 1
    done = g.b.send(
        {"type": "shoot", "unit": "b3", "target": "a1", "weapon": "Lasgun", "range_inches": 10},
        dice=[6, 1, 1, 1, 1, 5, 1],
    )
    shot = next(e["event"] for e in done["events"] if e["event"]["type"] == "unit_shot")
    assert (shot["fire_points"], shot["models_left"]) == (5, 9)
    seen = units(g.a)
    assert (seen["a1"]["models"], seen["b3"]["place"]) == (9, "embarked")
    g.b.send({"type": "end_activation", "unit": "b3"})
    refused = g.b.send({"type": "disembark", "unit": "b3"}, status=409)
    assert refused["refusal"] == "shot_from_transport"  # it stays in the Trukk this turn
    exported = g.a.client.get(f"{g.a.base}/export").json()
    from app.matches import reads

    live = next(s.battle for s in reads.cache._items.values() if getattr(s.battle, "state", None))
    assert PenMatch.import_log(exported).state == live.state


def test_out_of_a_fast_transport_over_12_ps_only_an_emergency_disembark(
    user_client: Callable[[str], TestClient],
) -> None:
    g = game(
        user_client,
        [guard(), transport("Devilfish", ["fast", "transport"]), guard(name="Vétérans", models=5)],
    )
    g.b.send({"type": "end_step"})  # B keeps nothing in reserve
    # deployed inside the transport (b3), then A's turn and B's turn start
    g.a.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    g.a.send({"type": "choose_first", "seat": "A"})
    g.a.send({"type": "deploy", "unit": "a1"})
    g.a.send({"type": "end_step"})
    g.b.send({"type": "deploy", "unit": "b1"})
    g.b.send({"type": "deploy", "unit": "b2"})
    g.b.send({"type": "embark", "unit": "b3", "transport": "b2"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.b.send({"type": "start_turn"})
    g.b.send({"type": "move", "unit": "b2", "speed": "rapid", "inches": 18})
    g.b.send({"type": "end_activation", "unit": "b2"})
    emergency = {"type": "disembark", "unit": "b3", "emergency": True}
    assert {"command": emergency} in actions(g.b)
    refused = g.b.send({"type": "disembark", "unit": "b3"}, status=409)
    assert refused["refusal"] == "emergency_only"
    g.b.send(emergency)
    seen = units(g.a)["b3"]
    assert (seen["place"], seen["speed"]) == ("table", "rapid")  # a rapid move [L309]
    assert "gone_to_ground" in seen["tokens"]  # an emergency disembark [L299]
