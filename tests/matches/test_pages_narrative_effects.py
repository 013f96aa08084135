"""Issue 15: the mission stratagems whose effect the match applies, through the JSON API and
the page's forms with dice given by hand (docs/rulings/narrative-8e.md, 71-72): Blitz's
Entrenchments in the attack's save modifier and its Proximity Mines slaying models; Ambush's
Iron Discipline rolled for each unit gone to ground."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, Player, marines, orks, setup_battle
from tests.matches.test_narrative_match import new_narrative_game, offered
from tests.matches.test_narrative_match import to_phase as api_to_phase
from tests.matches.test_pages_narrative import (
    HX,
    browser_fields,
    find_form,
    new_game,
    page,
    submit,
    text_of,
    timeline,
    to_phase,
)
from tests.support.web import html


def alive(view: dict[str, Any], uid: str) -> int:
    unit = next(u for u in view["units"] if u["id"] == uid)
    return sum(1 for w in unit["wounds"] if w > 0)


def test_blitz_entrenchments_and_proximity_mines_through_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "blitz", marines(), orks())
    submit(g.a, find_form(page(g.a), "roll_off"))  # A attacks, B deploys hidden
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    # the Defender entrenches its Kommandos (b3) as it sets them up: 3 CP - 2
    form = find_form(page(g.b), "use_mission_stratagem", stratagem="entrenchments")
    options = [o.attributes["value"] for o in form.css("select[name=target] option")]
    assert "b3" in options
    assert all(v.startswith("b") for v in options)
    b_page = submit(g.b, form, {"target": "b3"})
    assert text_of(b_page, "#narrative-entrenched").startswith("Kommandos")
    submit(g.b, find_form(page(g.b), "place_tokens"))
    submit(g.a, find_form(page(g.a), "deploy_forces"))
    b_units = [u for u in g.b.view()["units"] if u["owner"] == "B"]
    heads = [u for u in b_units if u["location"] == "battlefield" and not u["bodyguard"]]
    g.a.send({"type": "bombard"}, dice=[1] * len(heads))
    submit(g.a, find_form(page(g.a), "roll_off"))
    to_phase(g, "A", "shooting")

    def preview(target: str) -> dict[str, Any]:
        r = g.a.client.post(
            g.a.base + "/combat/preview",
            json={
                "attacker": "a2",
                "target": target,
                "weapons": [{"weapon": "Bolt Rifle", "models": 5}],
            },
        )
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()["request"]["situation"]
        return out

    assert preview("b3").get("save_modifier") == 1  # [L393]
    assert "save_modifier" not in preview("b4")
    # A's Intercessors (a2) cross the First Line: the mines, a D6 per model, 6s slay
    form = find_form(page(g.b), "use_mission_stratagem", stratagem="proximity-mines")
    options = [o.attributes["value"] for o in form.css("select[name=target] option")]
    assert "a2" in options
    assert all(v.startswith("a") for v in options)
    b_page = submit(g.b, form, {"target": "a2", "dice": "6 2 6 1 3 1"})
    assert alive(g.a.view(), "a2") == 3
    assert (
        "Proximity Mines on Intercessor Squad + Captain: 6 2 6 1 3 1, 2 models slain."
        in timeline(b_page)
    )
    assert g.b.view()["players"]["B"]["cp"] == 3 - 2 - 1 + 1  # A's Command phase gave one


def test_ambush_iron_discipline_rolls_and_a_unit_gone_to_ground_does_not_shoot(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush", {"starting_cp": 6})
    g.a.send({"type": "roll_off"}, dice=[])  # A attacks, B defends
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    hidden = ["a1", "a2", "a3", "a4", "a5", "a7"]
    g.a.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(hidden, 1)}})
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    g.b.send({"type": "go_to_ground", "units": ["b3", "b6"]})
    bombardment = {"type": "use_mission_stratagem", "stratagem": "preliminary-bombardment"}
    # b1..b6 a die each: the Kommandos (b3) and the Stormboyz (b6) are hit, gone to ground:
    # D3 mortal wounds (1 each)
    view = g.a.send(bombardment, dice=[1, 1, 6, 1, 1, 1, 6, 1])["view"]
    assert view["narrative"]["grounded"] == ["b3", "b6"]
    assert "iron-discipline" in offered(g.b)
    # one D6 per unit gone to ground, in unit order: b3 rolls 1 (stays down), b6 rolls 4
    view = g.b.send({"type": "use_mission_stratagem", "stratagem": "iron-discipline"}, dice=[1, 4])[
        "view"
    ]
    assert view["narrative"]["grounded"] == ["b3"]
    assert view["narrative"]["steady"] == ["b6"]
    assert view["players"]["B"]["cp"] == 5
    g.a.send({"type": "roll_off"}, dice=[])  # the Attacker first
    api_to_phase(g, "A", "fight")
    g.a.send({"type": "end_phase"})
    while g.a.view()["active"] == "A":  # the end-of-turn coherency check, if any
        g.a.send({"type": "confirm_coherency"})
    api_to_phase(g, "B", "shooting")
    r = g.b.client.post(
        g.b.base + "/combat/preview",
        json={"attacker": "b3", "target": "a2", "weapons": [{"weapon": "Slugga", "models": 5}]},
    )
    assert r.status_code == 422, r.text
    assert "went to ground" in r.text


def test_night_fight_a_targeting_relay_held_is_offered_in_the_attack_form(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, marines()),
            "mission": "only-war",
            "options": {"combat_zone": "night-fight"},
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    g = Game(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])
    setup_battle(g, first="B")
    # B holds marker 3 as its Command phase ends: a 4, a Targeting relay
    g.b.send({"type": "report_objective", "marker": "3", "units": [{"unit": "b2"}]})
    g.b.send({"type": "end_phase"}, dice=[4])
    to_phase(g, "B", "shooting")
    g.b.send({"type": "shoot", "unit": "b2", "targets": ["a2"]})
    forms = page(g.b).css("form[id^=combat-form-]")
    (attack,) = [f for f in forms if f.attributes["id"] in ("combat-form-b1", "combat-form-b2")]
    relay = attack.css_first("select[name=targeting_relay]")
    assert relay is not None
    assert [o.attributes["value"] for o in relay.css("option")] == ["", "3"]

    def expected_damage(marker: str) -> float:
        body = {**browser_fields(attack), "night_fight_distance": "6", "do": "preview"}
        body["targeting_relay"] = marker
        r = g.b.client.post(f"/matches/{g.match_id}/combat", data=body, headers=HX)
        assert r.status_code == 200, r.text
        found = re.search(r"Expected damage: ([0-9.]+)", html(r).text())
        assert found is not None, html(r).text()
        return float(found.group(1))

    assert expected_damage("3") > expected_damage("")  # re-rolling hit rolls of 1


def test_the_new_narrative_events_read_as_sentences() -> None:
    from app.matches.pages.wh40k10e import present

    units = {"a2": "Intercessor Squad", "b3": "Kommandos", "b6": "Stormboyz"}
    names = {"A": "Alice", "B": "Bob"}

    def say(ev: dict[str, Any]) -> str | None:
        return present.describe(ev, units, names, "A")

    roll = {"dice": [{"value": 1}, {"value": 4}]}
    assert (
        say(
            {
                "type": "narrative_iron_discipline",
                "units": ["b3", "b6"],
                "roll": roll,
                "steady": ["b6"],
            }
        )
        == "Iron Discipline: 1 4. Acting normally in their first turn: Stormboyz."
    )
    assert (
        say({"type": "narrative_iron_discipline", "units": ["b3"], "roll": roll, "steady": []})
        == "Iron Discipline: 1 4. Every unit stays gone to ground."
    )
    fog = {"type": "narrative_fog_of_war", "units": ["a2"], "roll": {"dice": [{"value": 2}]}}
    assert (
        say({**fog, "delayed": True})
        == "Intercessor Squad is delayed by the fog of war (2): it arrives next turn."
    )
    assert say({**fog, "delayed": False}) == "Intercessor Squad comes through the fog of war (2)."
    dice = {"type": "narrative_stratagem_dice", "stratagem": "booby-traps", "target": "a2"}
    assert (
        say({**dice, "roll": {"dice": [{"value": 6}]}, "slain": 1})
        == "booby-traps on Intercessor Squad: 6, 1 model slain."
    )


def test_blitz_in_night_fight_a_strategic_reserve_is_delayed_by_the_fog_once(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    from tests.matches.conftest import finish_turn
    from tests.matches.test_narrative_expansions import hide_and_deploy

    g = new_narrative_game(user_client, armies, db, "blitz", {"combat_zone": "night-fight"})
    g.a.send({"type": "roll_off"}, dice=[])  # A attacks
    g.a.send({"type": "declare_formations", "formation": {"reserves": [["a5", "strategic"]]}})
    g.b.send({"type": "declare_formations", "formation": {}})
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.a.send({"type": "roll_off"}, dice=[])
    finish_turn(g)
    finish_turn(g)
    api_to_phase(g, "A", "movement")
    # round 2: the Hellblasters arrive by Strategic Reserves; the fog's D6, 1: delayed [L591]
    view = g.a.send({"type": "arrive", "unit": "a5"}, dice=[1])["view"]
    a5 = next(u for u in view["units"] if u["id"] == "a5")
    assert a5["location"] == "reserves"
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    (fog,) = [e["event"] for e in log if e["event"]["type"] == "narrative_fog_of_war"]
    assert (fog["units"], fog["delayed"], fog["must_arrive"]) == (["a5"], True, 3)
    finish_turn(g)
    finish_turn(g)
    api_to_phase(g, "A", "movement")
    view = g.a.send({"type": "arrive", "unit": "a5"}, dice=[])["view"]  # no second fog roll
    assert next(u for u in view["units"] if u["id"] == "a5")["location"] == "battlefield"


def test_meat_grinder_booby_traps_on_a_unit_back_from_sustained_assault(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    from tests.matches.conftest import finish_turn

    g = new_narrative_game(user_client, armies, db, "meat-grinder")
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    (tokens,) = [a["command"] for a in g.b.actions() if a["command"]["type"] == "place_tokens"]
    g.b.send(tokens)
    g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})
    g.b.send({"type": "go_to_ground", "units": []})
    g.a.send({"type": "bombard"}, dice=[1] * len(tokens["tokens"]))
    g.a.send({"type": "roll_off"}, dice=[2])  # 1-3: the Attacker first
    # the Scouts (a4, 5 models) are lost (reported by their owner)
    g.a.send({"type": "remove_models", "unit": "a4", "models": [0, 1, 2, 3, 4]})
    finish_turn(g)
    finish_turn(g)
    api_to_phase(g, "A", "movement")
    booby = {"type": "use_mission_stratagem", "stratagem": "booby-traps", "target": "a4"}
    g.b.send(booby, dice=[6], status=422)  # not back yet
    assert "booby-traps" not in offered(g.b)
    g.a.send({"type": "assault_return"}, dice=[2])  # 2 + 2 (INFANTRY): back
    assert "booby-traps" in offered(g.b)
    view = g.b.send(booby, dice=[6, 6, 3, 1, 6])["view"]
    assert alive(view, "a4") == 2  # three sixes: three models slain [L185]
    assert view["players"]["B"]["cp"] == 3 + 3 - 1  # three Command phases gave three
    refused = g.b.send(booby, dice=[6, 6], status=422)  # once as that unit arrives
    assert "once as that unit arrives" in json.dumps(refused)
    assert "booby-traps" not in offered(g.b)
