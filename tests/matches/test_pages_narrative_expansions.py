"""The expansions on the 10th-edition match page: the new-match form's option, the panel and
the forms of their commands, posted as a browser does (docs/rulings/narrative-8e.md, 61-70)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.conftest import FakeArmies, Game, Player, marines, orks
from tests.matches.test_pages_narrative import (
    find_form,
    page,
    submit,
    text_of,
    timeline,
    to_phase,
)
from tests.support.web import html


def buildings(root: Any) -> list[list[str]]:
    return [
        [" ".join(td.text().split()) for td in tr.css("td")]
        for tr in root.css("#expansion-buildings tbody tr")
    ]


def created_on_the_form(
    browser: Callable[[str], TestClient], armies: FakeArmies, expansion: str
) -> Game:
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/matches",
        data={
            "army_id": armies.ready(alice, marines()),
            "battle_size": "strike_force",
            "mission": "blitz",
            "opponent": "user",
            "option.expansion": expansion,
            "option.starting_cp": "6",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return Game(Player(alice, match_id, "A"), Player(bob, match_id, "B"), match_id)


def test_the_expansion_is_offered_on_the_new_match_form_of_a_narrative_scenario_only() -> None:
    from app.matches import pages
    from app.matches.systems import wh40k10e

    assert [
        f.name for f in pages.new_match_fields("wh40k-10e", wh40k10e.missions()["only-war"])
    ] == ["combat_zone"]
    fields = pages.new_match_fields("wh40k-10e", wh40k10e.missions()["blitz"])
    assert [f.name for f in fields] == [
        "combat_zone",
        "expansion",
        "value_measure",
        "troops_keywords",
    ]
    assert [(c.value, c.label) for c in fields[1].choices] == [
        ("", "None"),
        ("planetstrike", "Planetstrike"),
        ("cities-of-death", "Cities of Death"),
        ("stronghold-assault", "Stronghold Assault"),
        ("death-from-the-skies", "Death from the Skies"),
    ]


def test_planetstrike_chosen_on_the_form_then_its_buildings_and_firestorm_on_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = created_on_the_form(browser, armies, "planetstrike")
    assert g.a.view()["narrative"]["expansion"]["id"] == "planetstrike"
    submit(g.a, find_form(page(g.a), "roll_off"))
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    b_page = page(g.b)
    assert text_of(b_page, "#expansion-name") == "Planetstrike"
    b_page = submit(g.b, find_form(b_page, "place_building", building="bastion"))
    emplacement = find_form(b_page, "place_building", building="defence-emplacement")
    b_page = submit(g.b, emplacement, {"weapon": "icarus-lascannon"})
    assert buildings(b_page) == [
        ["bastion-1 (Bastion)", "Bob (you)", "20/20", "0/20"],
        ["defence-emplacement-1 (Defence Emplacement, Icarus lascannon)", "Bob (you)", "3/3", "-"],
    ]
    view = g.a.view()
    heads = sorted(
        u["id"]
        for u in view["units"]
        if u["owner"] == "B" and u["location"] == "to_deploy" and u["bodyguard"] is None
    )
    g.b.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(heads)}})
    todo = sorted(
        u["id"]
        for u in g.a.view()["units"]
        if u["owner"] == "A" and u["location"] == "to_deploy" and u["bodyguard"] is None
    )
    g.a.send({"type": "deploy_forces", "units": [], "reserves": todo})
    placements = text_of(page(g.a), "#expansion-placements")
    assert placements.startswith("Intercessor Squad + Captain (from orbit), Terminator Squad")
    g.a.send({"type": "bombard"}, dice=[1] * len(heads))
    # the Boyz enter the Bastion through the page's form (building and unit chosen)
    b_page = submit(
        g.b, find_form(page(g.b), "occupy_building"), {"building": "bastion-1", "unit": "b2"}
    )
    assert buildings(b_page)[0] == [
        "bastion-1 (Bastion)",
        "Bob (you)",
        "20/20",
        "11/20",
    ]  # Boyz + Warboss
    # Consolidated Stronghold: the Bastion is the target chosen
    strat = find_form(b_page, "use_mission_stratagem", stratagem="consolidated-stronghold")
    b_page = submit(g.b, strat, {"target": "bastion-1"})
    assert buildings(b_page)[0][2] == "25/25"
    # the Firestorm: one attack, the Kommandos near die 3; the dice by hand: 3, then 4
    a_page = page(g.a)
    assert "before the first turn" in text_of(a_page, "#expansion-firestorm")
    a_page = submit(
        g.a, find_form(a_page, "firestorm"), {"attacks": "1", "die_3": ["b3"], "dice": "3 4"}
    )
    assert text_of(a_page, "#expansion-firestorm") == "resolved"
    assert "Firestorm Attack 1: die 3 (3 4). Mortal wounds: Kommandos 4." in timeline(a_page)
    kommandos = next(u for u in g.a.view()["units"] if u["id"] == "b3")
    assert sum(1 for w in kommandos["wounds"] if w > 0) == 6
    assert "Played at the table" in text_of(a_page, "#expansion-reminders")


def test_cities_of_death_booby_traps_on_the_owners_page_only(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = created_on_the_form(browser, armies, "cities-of-death")
    submit(g.a, find_form(page(g.a), "roll_off"))
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    view = g.a.view()
    heads = sorted(
        u["id"]
        for u in view["units"]
        if u["owner"] == "B" and u["location"] == "to_deploy" and u["bodyguard"] is None
    )
    g.b.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(heads)}})
    todo = sorted(
        u["id"]
        for u in g.a.view()["units"]
        if u["owner"] == "A" and u["location"] == "to_deploy" and u["bodyguard"] is None
    )
    g.a.send({"type": "deploy_forces", "units": todo})
    g.a.send({"type": "bombard"}, dice=[1] * len(heads))
    strat = find_form(page(g.b), "use_mission_stratagem", stratagem="booby-trapped-ruin")
    assert strat.css_first("input[name=target]") is not None  # the ruin is typed
    b_page = submit(g.b, strat, {"target": "Old Chapel"})
    assert text_of(b_page, "#expansion-my-traps") == "Old Chapel"
    a_response = g.a.client.get(f"/matches/{g.match_id}")
    assert "Old Chapel" not in a_response.text
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "movement")
    trap = find_form(page(g.b), "trigger_trap")
    b_page = submit(g.b, trap, {"enemy": "a4", "dice": "2"})
    assert "Old Chapel: Scout Squad" in text_of(b_page, "#expansion-triggered")
    assert "Old Chapel" in g.a.client.get(f"/matches/{g.match_id}").text
