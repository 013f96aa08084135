"""The commands of the match's own narrative effects on the 10th-edition page (ruling 91, 94,
95): a unit's attack on a building and a building's shot rolled by the match, Support fire
and Covered Advance's unit, as a browser posts them; their sentences on the timeline."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.matches.pages.wh40k10e.present import MAX_DICE_SHOWN
from tests.matches.conftest import (
    FakeArmies,
    Game,
    Player,
    finish_turn,
    marines,
    orks,
    setup_battle,
)
from tests.matches.test_narrative_expansions import blitz_to_bombardment, hide_and_deploy
from tests.matches.test_pages_narrative import (
    browser_fields,
    find_form,
    page,
    submit,
    timeline,
    to_phase,
)
from tests.support.web import html


def new_game(
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
    mission: str,
    options: dict[str, Any],
) -> Game:
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(alice, marines()), "mission": mission, "options": options},
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    return Game(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])


def log_events(g: Game, kind: str) -> list[dict[str, Any]]:
    entries = g.a.client.get(f"/api/v1/matches/{g.match_id}/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def options(select: Any) -> list[str]:
    return [str(o.attributes.get("value")) for o in select.css("option")]


def refused(p: Player, form: Any, data: dict[str, Any], status: int = 422) -> str:
    """Post ``form`` with ``data`` typed over it (no htmx: the refusal's status): refused,
    the page shown again with the refusal's text."""
    r = p.client.post(form.attributes["action"], data={**browser_fields(form), **data})
    assert r.status_code == status, r.text
    node = html(r).css_first("#match-error")
    assert node is not None, r.text
    return " ".join(node.text().split())


def fortress_game(browser: Callable[[str], TestClient], armies: FakeArmies) -> Game:
    """Blitz with Stronghold Assault: Bob's Fortress with four extra heavy bolters, Alice
    (the Attacker) in her Shooting phase."""
    g = new_game(browser, armies, "blitz", {"expansion": "stronghold-assault", "starting_cp": 6})
    blitz_to_bombardment(g, a_units=None)
    g.b.send({"type": "place_building", "building": "fortress", "weapon": "heavy-bolter:4"})
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.a.send({"type": "roll_off"}, dice=[])
    return g


def test_a_unit_attacks_a_building_from_its_card_with_the_servers_dice(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = fortress_game(browser, armies)
    # before the Shooting phase: no card (the engine does not offer the attack)
    assert page(g.a).css_first("section.building-attack") is None
    to_phase(g, "A", "shooting")
    a_page = page(g.a)
    form = a_page.css_first("#building-attack-form-a5")
    assert form is not None
    assert options(form.css_first("select[name=building]")) == ["fortress-1"]
    assert "fortress-1 (Fortress)" in form.text()
    assert form.attributes["hx-post"].endswith("/building_attack")
    assert form.css_first("input[name=csrf_token]") is not None
    # Bob, not in his turn, has none
    assert page(g.b).css_first("section.building-attack") is None
    # a weapon the unit does not carry, or more models than carry it: refused, nothing rolled
    ticked = browser_fields(form)["weapon"][0]
    assert "No weapon Nope in that unit" in refused(g.a, form, {"weapon": "a5|Nope"})
    assert "models" in refused(g.a, form, {f"models|{ticked}": "99"})
    assert log_events(g, "expansion_building_attacked") == []
    a_page = submit(g.a, form)
    (ev,) = log_events(g, "expansion_building_attacked")
    assert (ev["unit"], ev["building"]) == ("a5", "fortress-1")
    assert ev["roll"]["seed"] is not None
    assert ev["roll"]["dice"]
    assert ev["uses"], "the weapons fired are used for the phase"
    weapons = ev["weapons"]
    said = (
        f"Hellblaster Squad attacks fortress-1 ({weapons}): {ev['hits']} hits, "
        f"{ev['wounds']} wounds lost."
    )
    assert any(line.startswith(said) for line in timeline(a_page)), timeline(a_page)
    banner = a_page.css_first("#last-roll")
    assert banner is not None
    assert said in banner.text()
    assert len(banner.css(".die")) == min(len(ev["roll"]["dice"]), MAX_DICE_SHOWN)
    # its weapons used: the card is gone (no second attack with them this phase)
    assert a_page.css_first("#building-attack-form-a5") is None


def test_a_building_shoots_from_the_page_form_and_the_silo_refusal_shown(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = fortress_game(browser, armies)
    to_phase(g, "A", "shooting")
    assert not page(g.a).css("form.action-building_shoots")  # Bob's building
    finish_turn(g)
    to_phase(g, "B", "shooting")
    b_page = page(g.b)
    form = find_form(b_page, "building_shoots")
    guns = options(form.css_first("select[name=gun]"))
    assert {"fortress-1|heavy-bolter", "fortress-1|missile-silo"} <= set(guns)
    targets = options(form.css_first("select[name=target]"))
    assert "a2" in targets
    assert all(not t.startswith("b") for t in targets)
    assert form.css_first("input[name=within_18]") is not None  # the silo's 18"
    save = form.css_first("input[name=save]").attributes
    assert "required" in save
    # the first target's Save proposed from the army data, shown beside each target
    first = form.css_first("select[name=target] option")
    assert save.get("value") == "3", (save, first.text())
    assert "(Sv 3+)" in first.text()
    # the missile silo at a unit within 18": refused, shown as the page shows refusals
    data = {"gun": "fortress-1|missile-silo", "within_18": "1", "save": "3"}
    text = refused(g.b, form, data, status=409)
    assert "18" in text
    assert log_events(g, "expansion_building_fired") == []

    def wounds(view: dict[str, Any]) -> int:
        return sum(sum(u["wounds"]) for u in view["units"] if u["id"] in ("a1", "a2"))

    before = wounds(g.a.view())
    b_page = submit(g.b, form, {"gun": "fortress-1|heavy-bolter", "target": "a2", "save": "3"})
    (fired,) = log_events(g, "expansion_building_fired")
    assert (fired["weapon"], fired["target"]) == ("heavy-bolter", "a2")
    assert len([d for d in fired["roll"]["dice"] if d["stage"] == "hit"]) == 12  # 4 x Heavy 3
    lost = before - wounds(g.a.view())
    said = (
        "fortress-1 fires its heavy bolter at Intercessor Squad: "
        f"{fired['hits']} hits, {lost} wounds lost."
    )
    assert said in timeline(b_page), timeline(b_page)
    # the heavy bolters fired this phase: no longer offered
    again = find_form(b_page, "building_shoots")
    assert "fortress-1|heavy-bolter" not in options(again.css_first("select[name=gun]"))


def test_support_fire_aimed_on_the_page_in_only_war(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "only-war", {"combat_zone": "night-fight"})
    setup_battle(g, first="B")
    g.b.send({"type": "report_objective", "marker": "2", "units": [{"unit": "b3"}]})
    g.b.send({"type": "end_phase"}, dice=[6])  # marker 2: Support fire
    assert not page(g.b).css("form.action-support_fire")  # the Command phase
    to_phase(g, "B", "shooting")
    assert not page(g.a).css("form.action-support_fire")  # not A's marker, not A's turn
    form = find_form(page(g.b), "support_fire")
    assert "targets" not in json.loads(form.css_first("input[name=command]").attributes["value"])
    aims = form.css_first("select[name=aim_2]")
    assert aims is not None
    assert "a4" in options(aims)
    assert not [t for t in options(aims) if t.startswith("b")]
    before = sum(next(u for u in g.a.view()["units"] if u["id"] == "a4")["wounds"])
    b_page = submit(g.b, form, {"aim_2": "a4", "dice": "5 2"})
    after = sum(next(u for u in g.a.view()["units"] if u["id"] == "a4")["wounds"])
    assert before - after == 2
    assert g.b.view()["phase"] == "charge"
    assert "Support fire at Scout Squad (5 2): 2 mortal wounds." in timeline(b_page)


def test_covered_advance_names_a_unit_yet_to_move_on_the_page() -> None:
    from app.matches.pages.wh40k10e import present

    view = {
        "viewer": "A",
        "units": [
            {
                "id": "a1",
                "owner": "A",
                "location": "battlefield",
                "destroyed": False,
                "move": None,
                "bodyguard": None,
                "name": "Scouts",
            },
            {
                "id": "a2",
                "owner": "A",
                "location": "battlefield",
                "destroyed": False,
                "move": "advance",
                "bodyguard": None,
                "name": "Hellblasters",
            },
            {
                "id": "a3",
                "owner": "A",
                "location": "to_deploy",
                "destroyed": False,
                "move": None,
                "bodyguard": None,
                "name": "Rhino",
            },
            {
                "id": "b1",
                "owner": "B",
                "location": "battlefield",
                "destroyed": False,
                "move": None,
                "bodyguard": None,
                "name": "Boyz",
            },
        ],
    }
    names = {u["id"]: u["name"] for u in view["units"]}
    assert present.stratagem_targets("covered-advance", view, names) == [("a1", "Scouts")]


def test_the_dogfight_one_shot_and_rearm_events_read_as_sentences() -> None:
    from app.matches.pages.wh40k10e.expansion import describe_expansion

    units = {"a7": "Stormhawk", "b6": "Dakkajet"}

    def say(ev: dict[str, Any]) -> str | None:
        return describe_expansion(ev, units, lambda seat: str(seat))

    aircraft = {"aircraft": ["a7"], "target": ["b6"]}
    assert say({"type": "expansion_dogfight_targeted", **aircraft}) == (
        "Dogfight: Stormhawk may now attack Dakkajet."
    )
    assert say({"type": "expansion_dogfight_shot", **aircraft}) == (
        "Dogfight: Stormhawk made its attack on Dakkajet; its weapons may shoot ground "
        "targets again."
    )
    fired = {"type": "expansion_one_shot_fired", "unit": "a7", "weapons": ["Hellstrike"]}
    assert say(fired) == "Stormhawk fired its One Shot weapons (Hellstrike): spent until re-armed."
    rearmed = {"type": "expansion_aircraft_rearmed", "unit": "a7", "weapons": ["Hellstrike"]}
    assert say(rearmed) == "Stormhawk is re-armed: Hellstrike may fire again."
    shot = {
        "type": "expansion_building_fired",
        "building": "defence-emplacement-1",
        "weapon": "icarus-lascannon",
        "target": "b6",
        "hits": 1,
        "modifier": 1,
        "damage": [{"unit": "b6", "model": 0, "damage": 4}],
    }
    assert say(shot) == (
        "defence-emplacement-1 fires its Icarus lascannon at Dakkajet: 1 hits, 4 wounds lost. "
        "+1 to hit."
    )


def test_only_war_in_night_fight_a_strategic_reserve_is_delayed_by_the_fog_once(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    """Night Fight's *Fog of War* [L591] in Only War (ruling 96): the battle records the units
    that rolled it, so the first arrival rolls a D6 (1-2: delayed to the next turn), the
    second none."""
    g = new_game(browser, armies, "only-war", {"combat_zone": "night-fight"})
    setup_battle(g, {"A": {"reserves": [["a5", "strategic"]]}})
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    # round 2: the Hellblasters arrive by Strategic Reserves; the fog's D6, 2: delayed
    view = g.a.send({"type": "arrive", "unit": "a5"}, dice=[2])["view"]
    assert next(u for u in view["units"] if u["id"] == "a5")["location"] == "reserves"
    (fog,) = log_events(g, "narrative_fog_of_war")
    assert (fog["units"], fog["delayed"], fog["must_arrive"]) == (["a5"], True, 3)
    assert fog["roll"]["dice"][0]["value"] == 2
    said = "Hellblaster Squad is delayed by the fog of war (2): it arrives next turn."
    assert said in timeline(page(g.a)), timeline(page(g.a))
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "arrive", "unit": "a5"}, dice=[])["view"]  # no second fog roll
    assert next(u for u in view["units"] if u["id"] == "a5")["location"] == "battlefield"
    assert len(log_events(g, "narrative_fog_of_war")) == 1


def test_only_war_without_night_fight_rolls_no_fog(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "only-war", {})
    setup_battle(g, {"A": {"reserves": [["a5", "strategic"]]}})
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "arrive", "unit": "a5"}, dice=[])["view"]
    assert next(u for u in view["units"] if u["id"] == "a5")["location"] == "battlefield"
    assert log_events(g, "narrative_fog_of_war") == []
