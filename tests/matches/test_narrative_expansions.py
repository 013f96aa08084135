"""The expansions of the narrative missions through the API: an option of the match, validated,
recorded at creation, each played through its commands with dice given by hand
(docs/rulings/narrative-8e.md, 61-70)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, marines
from tests.matches.test_narrative_match import new_narrative_game, to_phase


def units_of(view: dict[str, Any], seat: str, location: str) -> list[str]:
    return sorted(
        u["id"] for u in view["units"] if u["owner"] == seat and u["location"] == location
    )


def unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


def alive(view: dict[str, Any], uid: str) -> int:
    return sum(1 for w in unit(view, uid)["wounds"] if w > 0)


def blitz_to_bombardment(g: Game, *, a_units: list[str] | None) -> None:
    """Blitz: A (725 points) attacks B (605); B's units hidden on tokens t1..; A sets up
    ``a_units`` (None: none, all in Reserve)."""
    g.a.send({"type": "roll_off"}, dice=[])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})


def hide_and_deploy(g: Game, a_units: list[str] | None) -> int:
    view = g.a.view()
    b_heads = units_of(view, "B", "to_deploy")
    g.b.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(b_heads)}})
    todo = units_of(g.a.view(), "A", "to_deploy")
    units = todo if a_units is None else a_units
    g.a.send(
        {"type": "deploy_forces", "units": units, "reserves": [u for u in todo if u not in units]}
    )
    return len(b_heads)


def test_an_expansion_is_an_option_of_a_narrative_mission_recorded_at_creation(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    eve = user_client("Eve")
    army = armies.ready(eve, marines())
    r = eve.post(
        "/api/v1/matches",
        json={"army_id": army, "mission": "blitz", "options": {"expansion": "space-hulk"}},
    )
    assert r.status_code == 422, r.text
    assert any(e["field"] == "options.expansion" for e in r.json()["errors"])
    assert "planetstrike" in r.text
    assert "death-from-the-skies" in r.text
    # with a mission that is not narrative: refused at creation, no match is made
    before = eve.get("/api/v1/matches").json()
    r = eve.post(
        "/api/v1/matches",
        json={"army_id": army, "mission": "only-war", "options": {"expansion": "planetstrike"}},
    )
    assert r.status_code == 422, r.text
    assert any(e["field"] == "options.expansion" for e in r.json()["errors"])
    assert eve.get("/api/v1/matches").json() == before
    g = new_narrative_game(user_client, armies, db, "blitz", {"expansion": "stronghold-assault"})
    created = g.a.client.get(g.a.base + "/log").json()["entries"][0]["event"]
    assert created["setup"]["options"]["expansion"] == "stronghold-assault"
    recorded = created["setup"]["mission"]["options"]["expansion"]
    fortress = next(s for s in recorded["structures"] if s["id"] == "fortress")
    assert (fortress["wounds"], fortress["capacity"]) == (30, 40)
    assert g.a.view()["narrative"]["expansion"]["id"] == "stronghold-assault"
    # an import whose expansion's numbers differ from the shipped ones is refused
    exported = g.a.client.get(g.a.base + "/export").json()
    ok = g.a.client.post("/api/v1/matches/import", json=exported)
    assert ok.status_code == 201, ok.text
    exported["events"][0]["event"]["setup"]["mission"]["options"]["expansion"]["structures"] = []
    r = g.a.client.post("/api/v1/matches/import", json=exported)
    assert r.status_code == 422, r.text
    assert "expansion" in r.json()["detail"]


def test_planetstrike_played_through_the_api(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "planetstrike", "starting_cp": 6}
    )
    blitz_to_bombardment(g, a_units=None)
    g.b.send({"type": "place_building", "building": "bastion"})
    g.a.send({"type": "place_building", "building": "bastion"}, status=409)  # the Defender's
    # Planetary Assault: the Attacker sets up nothing
    todo = units_of(g.a.view(), "A", "to_deploy")
    view = g.a.view()
    b_heads = units_of(view, "B", "to_deploy")
    g.b.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(b_heads)}})
    g.a.send({"type": "deploy_forces", "units": todo[:1], "reserves": todo[1:]}, status=422)
    g.a.send({"type": "deploy_forces", "units": [], "reserves": todo})
    placements = g.a.view()["narrative"]["expansion"]["placements"]
    assert placements["a2"] == "orbit"  # Intercessors: INFANTRY
    g.a.send({"type": "bombard"}, dice=[1] * len(b_heads))
    g.b.send({"type": "occupy_building", "building": "bastion-1", "unit": "b2"})
    g.a.send({"type": "roll_off"}, dice=[], status=409)  # the Firestorm first
    g.b.send(
        {
            "type": "use_mission_stratagem",
            "stratagem": "consolidated-stronghold",
            "target": "bastion-1",
        }
    )
    # one attack: the D6 picks die 3 (the Kommandos within 3"): D6 = 4 mortal wounds
    view = g.a.send(
        {"type": "firestorm", "attacks": 1, "hits": {"3": ["b3"], "5": ["bastion-1"]}},
        dice=[3, 4],
    )["view"]
    assert alive(view, "b3") == 10 - 4
    building = view["narrative"]["expansion"]["buildings"][0]
    assert (building["wounds"], building["max_wounds"], building["models_inside"]) == (25, 25, 10)
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # Blitz: the Attacker first
    assert (view["stage"], view["active"]) == ("battle", "A")
    to_phase(g, "A", "movement")
    g.a.send({"type": "reserve_roll", "unit": "a2"}, dice=[3])  # 3+: from orbit
    g.a.send({"type": "reserve_roll", "unit": "a3"}, dice=[2])  # stays
    view = g.a.view()
    assert unit(view, "a2")["location"] == "battlefield"
    assert unit(view, "a3")["location"] == "reserves"
    assert view["narrative"]["expansion"]["orbit_arrivals"] == [["a2", 1]]
    g.a.send({"type": "damage_building", "building": "bastion-1", "wounds": 25})
    g.a.send({"type": "garrison_roll", "building": "bastion-1"}, dice=[1] * 10, status=409)
    # ten Boyz disembark: 1, 2, 3 slay (four of them)
    g.b.send(
        {"type": "garrison_roll", "building": "bastion-1"}, dice=[1, 2, 3, 3, 4, 5, 6, 6, 5, 4]
    )
    view = g.b.view()
    assert alive(view, "b2") == 6
    assert view["narrative"]["expansion"]["buildings"][0]["destroyed"] is True
    assert g.a.checked + g.b.checked > 15  # every accepted command replayed from the rows


def test_stronghold_assault_played_through_the_api(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "stronghold-assault", "starting_cp": 6}
    )
    blitz_to_bombardment(g, a_units=None)
    g.b.send({"type": "place_building", "building": "bunker"})
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.b.send({"type": "occupy_building", "building": "bunker-1", "unit": "b3"})
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "fight")
    g.a.send({"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a3"})
    hit = {"type": "damage_building", "building": "bunker-1", "wounds": 9, "demolitions": 3}
    view = g.a.send(hit)["view"]
    assert view["narrative"]["expansion"]["buildings"][0]["wounds"] == 15 - 12
    view = g.a.send({**hit, "wounds": 3, "demolitions": 0})["view"]
    assert view["narrative"]["expansion"]["buildings"][0]["garrison_due"] == 10
    g.b.send({"type": "use_mission_stratagem", "stratagem": "escape-hatch", "target": "bunker-1"})
    g.b.send({"type": "garrison_roll", "building": "bunker-1"}, dice=[1, 1, 2, 3, 3, 4, 5, 6, 6, 2])
    view = g.b.view()
    assert alive(view, "b3") == 8  # Escape Hatch: only the two 1s slay
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    (rolled,) = [e["event"] for e in log if e["event"]["type"] == "expansion_garrison_rolled"]
    assert (rolled["slain_up_to"], rolled["slain"]) == (1, 2)


def test_cities_of_death_booby_traps_are_in_nothing_a_fetches_until_triggered(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "cities-of-death", "starting_cp": 6}
    )
    blitz_to_bombardment(g, a_units=None)
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.b.send(
        {
            "type": "use_mission_stratagem",
            "stratagem": "booby-trapped-ruin",
            "target": "Manufactorum Zeta",
        }
    )
    secret = re.compile(r"Manufactorum|my_traps|expansion_ruin_designated")

    def a_fetches() -> dict[str, str]:
        api, base = g.a.client, g.a.base
        out: dict[str, str] = {}
        for name, path in (
            ("match", base),
            ("list", "/api/v1/matches"),
            ("actions", base + "/actions"),
            ("log", base + "/log"),
            ("audit", base + "/audit"),
            ("export", base + "/export"),
            ("events", base + "/events?timeout=0"),
            ("page", f"/matches/{g.match_id}"),
        ):
            r = api.get(path)
            assert r.status_code < 500, (name, r.text)
            out[name] = r.text
        return out

    found = [n for n, text in a_fetches().items() if secret.search(text)]
    assert found == []
    assert g.b.view()["narrative"]["expansion"]["my_traps"] == ["Manufactorum Zeta"]
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "movement")
    assert [n for n, text in a_fetches().items() if secret.search(text)] == []
    # the Scouts Advanced into the ruin: D6 = 3 mortal wounds
    view = g.b.send({"type": "trigger_trap", "unit": "a4", "advanced": True}, dice=[3])["view"]
    assert unit(view, "a4")["wounds"] == [0, 1, 2, 2, 2]  # Scouts of 2 wounds: 3 lost
    triggered = g.a.view()["narrative"]["expansion"]["triggered"]
    assert triggered == [{"seat": "B", "ruin": "Manufactorum Zeta", "unit": "a4"}]
    log = g.a.client.get(g.a.base + "/log").json()["entries"]
    assert "Manufactorum Zeta" in json.dumps(log)  # public once triggered


def test_death_from_the_skies_refuses_what_is_no_aircraft_through_the_api(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """The starter catalogue has no AIRCRAFT: the Dogfight and the airspace are played in the
    engine tests (tests/engine/narrative8e/test_expansions_play.py); here the option is played
    and its commands refused for units that cannot fly them."""
    g = new_narrative_game(user_client, armies, db, "blitz", {"expansion": "death-from-the-skies"})
    blitz_to_bombardment(g, a_units=None)
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "movement")
    r = g.a.send({"type": "leave_airspace", "unit": "a2"}, status=422)
    assert "AIRCRAFT" in r["detail"]
    g.a.send({"type": "dogfight_pass"}, status=409)  # not the Shooting phase
    to_phase(g, "A", "shooting")
    view = g.a.send({"type": "dogfight_pass"})["view"]
    assert view["narrative"]["expansion"]["dogfight"] == []
