"""Death from the Skies played through the JSON API (issue 15, rulings 68-69, 92-93).

The starter catalogue has no AIRCRAFT, so this test stores a test-only copy of it with one
AIRCRAFT datasheet per faction (a Rhino's numbers, the AIRCRAFT, FLY and Hover keywords, its
One Shot hunter-killer missile). Alice's marines attack Bob's orks in Blitz; both AIRCRAFT
arrive from Reserve, dogfight each other in Bob's Shooting phase (each attack rolled by the
match: Bob's with dice by hand, Alice's with the server's dice from the logged seed, in Bob's
turn), then Alice's jet leaves combat airspace, is refuelled and re-armed at 2 CP (its spent
missile fires again) and returns with no roll.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog import service as catalogs
from app.catalog.starter import STARTER_FILE
from app.engine.wh40k10e.army import RosterUnit, load_catalogues
from tests.matches.conftest import FakeArmies, Game, Player, finish_turn, marines, orks
from tests.matches.test_narrative_match import to_phase

JETS = {"Adeptus Astartes": "Test Stormtalon", "Orks": "Test Dakkajet"}


def _jet(rhino: dict[str, Any], faction: str, name: str, n: int) -> dict[str, Any]:
    sheet = copy.deepcopy(rhino)
    sheet.update(
        id=f"test-jet-{n}",
        name=name,
        faction_keywords=[faction],
        keywords=["Aircraft", "Fly", "Vehicle", name],
        abilities=["Hover", "Deadly Demise D3"],
        transport_capacity=0,
        dedicated_transport=False,
        variants=[],
    )
    sheet["profiles"][0]["name"] = name
    sheet["models"][0].update(
        name=name, profile=name, default_wargear=["Storm bolter", "Hunter-killer missile"]
    )
    sheet.pop("wargear_options", None)
    return sheet


@pytest.fixture
def skies_armies(monkeypatch: pytest.MonkeyPatch, db: Session, starter: int) -> FakeArmies:
    """The starter catalogue plus the two test AIRCRAFT, stored for this test only."""
    data = json.loads(STARTER_FILE.read_text(encoding="utf-8"))
    doc = data["catalogues"][0]
    doc["id"] = "test-skies-wh40k10e"
    rhino = next(s for s in doc["datasheets"] if s["name"] == "Rhino")
    doc["datasheets"] += [
        _jet(rhino, faction, name, n) for n, (faction, name) in enumerate(JETS.items())
    ]
    (catalogue,) = load_catalogues(data)
    record, _ = catalogs.store(db, catalogue, owner_id=None, slug="test-skies")
    db.commit()
    fake = FakeArmies(record.id)
    monkeypatch.setattr("app.matches.armies.fetch_ready_list", fake.snapshot)
    return fake


def new_game(user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session) -> Game:
    alice, bob = user_client("Alice"), user_client("Bob")
    attack = marines()
    attack = type(attack)(
        attack.faction,
        attack.detachment,
        attack.battle_size,
        (*attack.units, RosterUnit(JETS["Adeptus Astartes"])),
        name=attack.name,
    )
    defend = orks()
    defend = type(defend)(
        defend.faction,
        defend.detachment,
        defend.battle_size,
        (*defend.units, RosterUnit(JETS["Orks"])),
        name=defend.name,
    )
    body = {
        "army_id": armies.ready(alice, attack),
        "mission": "blitz",
        "options": {"expansion": "death-from-the-skies", "starting_cp": 6},
    }
    r = alice.post("/api/v1/matches", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, defend)},
    )
    assert r.status_code == 200, r.text
    return Game(
        Player(alice, created["id"], "A", db), Player(bob, created["id"], "B", db), created["id"]
    )


def unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


def log_events(g: Game, kind: str) -> list[dict[str, Any]]:
    entries = g.b.client.get(g.b.base + "/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def resolve(
    p: Player, attacker: str, target: str, weapon: str, dice: list[int] | None, status: int = 200
) -> dict[str, Any]:
    p.get()
    body: dict[str, Any] = {
        "attacker": attacker,
        "target": target,
        "weapons": [{"weapon": weapon, "models": 1}],
        "expected_version": p.version,
    }
    if dice is not None:
        body["dice"] = dice
    r = p.client.post(p.base + "/combat/resolve", json=body)
    assert r.status_code == status, r.text
    data: dict[str, Any] = r.json()
    return data


def test_death_from_the_skies_played_through_the_api(
    user_client: Callable[[str], TestClient], skies_armies: FakeArmies, db: Session
) -> None:
    g = new_game(user_client, skies_armies, db)
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]
    assert view["narrative"]["attacker"] == "A"
    jet_a, jet_b = "a8", "b7"
    assert "AIRCRAFT" in unit(view, jet_a)["keywords"]
    # both AIRCRAFT are set up in Hover and held in the scenario's Reserves
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
    g.a.send({"type": "roll_off"}, dice=[])  # Blitz: the Attacker first
    finish_turn(g)
    finish_turn(g)
    # round 2: the AIRCRAFT arrive (3+ from the own second Movement phase)
    to_phase(g, "A", "movement")
    g.a.send({"type": "reserve_roll", "unit": jet_a}, dice=[5])
    finish_turn(g)
    to_phase(g, "B", "movement")
    g.b.send({"type": "reserve_roll", "unit": jet_b}, dice=[6])
    assert unit(g.a.view(), jet_b)["location"] == "battlefield"
    to_phase(g, "B", "shooting")

    # an AIRCRAFT never shoots an enemy AIRCRAFT in the Shooting phase [L885]
    refused = g.b.send({"type": "shoot", "unit": jet_b, "targets": [jet_a]}, status=409)
    assert "Dogfight" in json.dumps(refused)
    # the Dogfight: Bob picks first (his turn), then Alice, in Bob's Shooting phase
    g.b.send({"type": "dogfight_pick", "aircraft": jet_b, "target": jet_a, "arc": "side"})
    # Bob's missile, dice by hand: hit 2 (BS 2+), wound 4 (S14 v T9: 3+), save 1 (3+ AP-3:
    # 6+) failed, D6 damage 4
    out = resolve(g.b, jet_b, jet_a, "Hunter-killer missile", [2, 4, 1, 4])
    assert unit(out["view"], jet_a)["wounds"] == [6]
    g.a.send({"type": "dogfight_pick", "aircraft": jet_a, "target": jet_b, "arc": "front"})
    # Alice's missile in Bob's turn, rolled with the server's dice from the logged seed
    out = resolve(g.a, jet_a, jet_b, "Hunter-killer missile", None)
    (attack,) = [e for e in log_events(g, "attack_resolved") if e["attacker"] == jet_a]
    assert attack["seed"] is not None
    assert attack["dice"]
    assert out["resolution"]["seed"] == attack["seed"]
    shots = out["view"]["narrative"]["expansion"]["dogfight"]
    assert [(d["aircraft"], d["shot"]) for d in shots] == [(jet_b, True), (jet_a, True)]
    fired = out["view"]["narrative"]["expansion"]["one_shots_fired"]
    assert fired == {jet_a: ["Hunter-killer missile"], jet_b: ["Hunter-killer missile"]}
    g.b.send({"type": "dogfight_pass"})
    g.a.send({"type": "dogfight_pass"})
    # Bob's jet still shoots a ground target with its storm bolter [L899]; its missile is
    # spent (One Shot)
    g.b.send({"type": "shoot", "unit": jet_b, "targets": ["a3"]})
    spent = resolve(g.b, jet_b, "a3", "Hunter-killer missile", [6, 6, 1, 6], status=422)
    assert "One Shot" in json.dumps(spent)
    resolve(g.b, jet_b, "a3", "Storm bolter", None)
    finish_turn(g)

    # round 3: Alice's jet leaves combat airspace; Refuel, Rearm, Repair at 2 CP re-arms it
    to_phase(g, "A", "movement")
    g.a.send({"type": "leave_airspace", "unit": jet_a})
    cp = g.a.view()["players"]["A"]["cp"]
    g.a.send(
        {
            "type": "use_mission_stratagem",
            "stratagem": "refuel-rearm-repair",
            "cp": 2,
            "target": jet_a,
        }
    )
    view = g.a.view()
    assert view["players"]["A"]["cp"] == cp - 2
    expansion = view["narrative"]["expansion"]
    assert expansion["off_airspace"] == {jet_a: 3}
    assert expansion["one_shots_fired"] == {jet_b: ["Hunter-killer missile"]}
    assert expansion["rearmed"] == {jet_a: 3}
    # not before its next Movement phase
    g.a.send({"type": "return_to_airspace", "unit": jet_a}, status=409)
    finish_turn(g)
    finish_turn(g)
    # round 4: back with no roll (refuelled)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "return_to_airspace", "unit": jet_a}, dice=[])["view"]
    assert unit(view, jet_a)["location"] == "battlefield"
    (back,) = [e for e in log_events(g, "expansion_airspace") if not e["left"]]
    assert (back["returned"], back["refuelled"], back["roll"]) == (True, True, None)
