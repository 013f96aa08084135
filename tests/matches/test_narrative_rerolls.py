"""Save re-rolls played by the match (issue 15, rulings 98): Night Fight's *Scatter field*
(units within 3" of a Scatter field their player controls re-roll saving throws of 1 [L613])
and Death from the Skies' *Evasive Manoeuvres* (the AIRCRAFT re-rolls failed saves in the
phase, and -1 to its hit rolls until the end of the turn [L913-L915]), through the JSON API:
the odds and the live roll carry the re-roll, the first die kept in the logged event."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Player, finish_turn, setup_battle
from tests.matches.test_narrative_dfts_api import (  # noqa: F401 (skies_armies: a fixture)
    log_events,
    new_game,
    resolve,
    skies_armies,
    unit,
)
from tests.matches.test_narrative_match import new_narrative_game, to_phase


def _preview(p: Player, attacker: str, target: str, weapon: str, **situation: Any) -> Any:
    body = {
        "attacker": attacker,
        "target": target,
        "weapons": [{"weapon": weapon, "models": 1}],
        "situation": situation,
    }
    return p.client.post(p.base + "/combat/preview", json=body)


def _failed_saves(r: Any) -> Fraction:
    assert r.status_code == 200, r.text
    return Fraction(r.json()["analysis"]["stages"]["failed_saves"]["mean"]["exact"])


def test_scatter_field_re_rolls_the_targets_saves_of_one(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "only-war", {"combat_zone": "night-fight"})
    setup_battle(g, first="B")
    # B's Boyz hold marker 1; identified at the end of B's Command phase: a 5, Scatter field
    g.b.send({"type": "report_objective", "marker": "1", "units": [{"unit": "b2"}]})
    view = g.b.send({"type": "end_phase"}, dice=[5])["view"]
    assert view["combat_zone"]["mysterious_objectives"] == {"1": "scatter-field"}
    # B's own shooting: the field protects B's units, not the target of B's attack
    to_phase(g, "B", "shooting")
    r = _preview(g.b, "b2", "a2", "Slugga", night_fight_distance=10, scatter_field="1")
    assert r.status_code == 422, r.text
    assert "does not control" in r.text
    finish_turn(g)
    to_phase(g, "A", "shooting")
    plain = _preview(g.a, "a2", "b2", "Bolt Rifle", night_fight_distance=10)
    assert "reroll_saves" not in plain.json()["request"]["situation"]
    near = _preview(g.a, "a2", "b2", "Bolt Rifle", night_fight_distance=10, scatter_field="1")
    assert near.json()["request"]["situation"]["reroll_saves"] == "ones"
    # a save of 1 rolled again: fewer failed saves
    assert _failed_saves(near) < _failed_saves(plain)
    for stated, words in (("2", "not an identified Scatter field"), ("9", "no such")):
        r = _preview(g.a, "a2", "b2", "Bolt Rifle", night_fight_distance=10, scatter_field=stated)
        assert r.status_code == 422, r.text
        assert words in r.text
    # the live roll, dice by hand: hits 6, 6; wounds 6, 6; the first save a 1, re-rolled 6
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    g.a.get()
    body = {
        "attacker": "a2",
        "target": "b2",
        "weapons": [{"weapon": "Bolt Rifle", "models": 1}],
        "situation": {"night_fight_distance": 10, "scatter_field": "1"},
        "expected_version": g.a.version,
        "dice": [6, 6, 6, 6, 1, 6, 6],
    }
    r = g.a.client.post(g.a.base + "/combat/resolve", json=body)
    assert r.status_code == 200, r.text
    saves = [d for d in r.json()["resolution"]["dice"] if d["stage"] == "save"]
    assert [(d["value"], d["original"]) for d in saves] == [(6, 1), (6, None)]
    (attack,) = _events(g.a, "attack_resolved")
    assert attack["request"]["situation"]["reroll_saves"] == "ones"
    assert [(d["value"], d["original"]) for d in attack["dice"] if d["stage"] == "save"] == [
        (6, 1),
        (6, None),
    ]


def _events(p: Player, kind: str) -> list[dict[str, Any]]:
    entries = p.client.get(p.base + "/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def test_evasive_manoeuvres_re_rolls_failed_saves_and_costs_a_hit(
    user_client: Callable[[str], TestClient],
    skies_armies: FakeArmies,  # noqa: F811 (a fixture)
    db: Session,
) -> None:
    g = new_game(user_client, skies_armies, db)
    g.a.send({"type": "roll_off"}, dice=[])
    jet_a, jet_b = "a8", "b7"
    g.a.send({"type": "declare_formations", "formation": {"hover": [jet_a]}})
    g.b.send({"type": "declare_formations", "formation": {"hover": [jet_b]}})
    tokens = {f"t{i}": f"b{i}" for i in range(1, 7)}
    g.b.send({"type": "place_tokens", "tokens": tokens, "reserves": [jet_b]})
    g.a.send(
        {
            "type": "deploy_forces",
            "units": ["a1", "a2", "a3", "a4", "a5", "a7"],
            "reserves": [jet_a],
        }
    )
    g.a.send({"type": "bombard"}, dice=[1] * 6)
    g.a.send({"type": "roll_off"}, dice=[])
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    g.a.send({"type": "reserve_roll", "unit": jet_a}, dice=[5])
    finish_turn(g)
    to_phase(g, "B", "movement")
    g.b.send({"type": "reserve_roll", "unit": jet_b}, dice=[6])
    to_phase(g, "B", "shooting")
    # Bob's jet picks Alice's, side arc (0): without the stratagem, no re-roll
    g.b.send({"type": "dogfight_pick", "aircraft": jet_b, "target": jet_a, "arc": "side"})
    before = _preview(g.b, jet_b, jet_a, "Storm bolter")
    assert "reroll_saves" not in before.json()["request"]["situation"]
    # Alice answers with Evasive Manoeuvres on her jet: its failed saves are re-rolled
    g.a.send({"type": "use_mission_stratagem", "stratagem": "evasive-manoeuvres", "target": jet_a})
    after = _preview(g.b, jet_b, jet_a, "Storm bolter")
    assert after.json()["request"]["situation"]["reroll_saves"] == "failed"
    # storm bolter S4 v T9: wounds on 6 only; a fail f becomes f*f
    f_before, f_after = _failed_saves(before), _failed_saves(after)
    assert f_after < f_before
    # Bob's missile, dice by hand: hit 2, wound 4, save 1 failed then re-rolled: a 6 saves
    out = resolve(g.b, jet_b, jet_a, "Hunter-killer missile", [2, 4, 1, 6])
    assert unit(out["view"], jet_a)["wounds"] == [10]
    (attack,) = log_events(g, "attack_resolved")
    saves = [(d["value"], d["original"]) for d in attack["dice"] if d["stage"] == "save"]
    assert saves == [(6, 1)]
    # Alice's jet picks Bob's front arc (+1): -1 from the stratagem, once: 0 in all
    g.a.send({"type": "dogfight_pick", "aircraft": jet_a, "target": jet_b, "arc": "front"})
    mine = _preview(g.a, jet_a, jet_b, "Storm bolter")
    assert mine.json()["request"]["situation"].get("hit_modifier", 0) == 0
    # Bob's jet is not the one that used it: its saves are not re-rolled
    assert "reroll_saves" not in mine.json()["request"]["situation"]
    # Bob answers with it on his jet, after his own pick was shot: Alice's shot now has the
    # re-roll, and Bob's jet takes -1 to hit in its other attacks of this turn
    g.b.send({"type": "use_mission_stratagem", "stratagem": "evasive-manoeuvres", "target": jet_b})
    mine = _preview(g.a, jet_a, jet_b, "Storm bolter")
    assert mine.json()["request"]["situation"]["reroll_saves"] == "failed"
    resolve(g.a, jet_a, jet_b, "Storm bolter", None)
    (shot,) = [e for e in log_events(g, "attack_resolved") if e["attacker"] == jet_a]
    assert shot["request"]["situation"]["reroll_saves"] == "failed"
    g.b.send({"type": "dogfight_pass"})
    g.a.send({"type": "dogfight_pass"})
    g.b.send({"type": "shoot", "unit": jet_b, "targets": ["a3"]})
    ground = _preview(g.b, jet_b, "a3", "Storm bolter")
    assert ground.status_code == 200, ground.text
    assert ground.json()["request"]["situation"]["hit_modifier"] == -1
    # the ground unit shot at is not the aircraft: no re-roll
    assert "reroll_saves" not in ground.json()["request"]["situation"]
    finish_turn(g)
    # Alice's turn (a new turn): the -1 to hit and the re-roll are over
    to_phase(g, "A", "shooting")
    later = _preview(g.a, jet_a, "b2", "Storm bolter")
    assert later.status_code == 200, later.text
    assert later.json()["request"]["situation"].get("hit_modifier", 0) == 0
