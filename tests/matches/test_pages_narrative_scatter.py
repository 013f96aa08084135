"""Night Fight's *Scatter field* on the match page's attack form (issue 15, rulings 98): the
attacker states the Scatter field its target is within 3" of, among those the target's player
controls; the odds and the roll carry the re-roll of saving throws of 1 (the first die logged),
and a marker that is not one is refused at the select."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.conftest import (
    FakeArmies,
    Game,
    Player,
    finish_turn,
    marines,
    orks,
    setup_battle,
)
from tests.matches.test_pages_narrative import HX, browser_fields, page, to_phase
from tests.support.web import html


def night_fight(browser: Callable[[str], TestClient], armies: FakeArmies) -> Game:
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
    return Game(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])


def attack_form(p: Player, units: tuple[str, ...]) -> Any:
    forms = page(p).css("form[id^=combat-form-]")
    (form,) = [f for f in forms if f.attributes["id"] in {f"combat-form-{u}" for u in units}]
    return form


def log_events(p: Player, kind: str) -> list[dict[str, Any]]:
    entries = p.client.get(f"/api/v1/matches/{p.match_id}/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def test_a_scatter_field_the_target_holds_is_offered_played_and_checked_on_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = night_fight(browser, armies)
    setup_battle(g, first="B")
    # B's Boyz hold marker 3 as B's Command phase ends: a 5, a Scatter field
    g.b.send({"type": "report_objective", "marker": "3", "units": [{"unit": "b2"}]})
    g.b.send({"type": "end_phase"}, dice=[5])
    assert g.b.view()["combat_zone"]["mysterious_objectives"] == {"3": "scatter-field"}
    # B's own attack: the field protects B's units, not A's, so B is not offered it
    to_phase(g, "B", "shooting")
    g.b.send({"type": "shoot", "unit": "b2", "targets": ["a2"]})
    assert attack_form(g.b, ("b1", "b2")).css_first("select[name=scatter_field]") is None
    finish_turn(g)
    to_phase(g, "A", "shooting")
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    attack = attack_form(g.a, ("a1", "a2"))
    uid = str(attack.attributes["id"]).removeprefix("combat-form-")
    scatter = attack.css_first("select[name=scatter_field]")
    assert scatter is not None
    assert [o.attributes["value"] for o in scatter.css("option")] == ["", "3"]
    assert attack.css_first("select[name=targeting_relay]") is None  # A controls no relay
    fields = browser_fields(attack)
    (rifle,) = [w for w in fields["weapon"] if w.endswith("|Bolt Rifle")]
    one_rifle = {**fields, "weapon": [rifle], f"models|{rifle}": "1", "night_fight_distance": "6"}
    url = f"/matches/{g.match_id}/combat"

    def expected_damage(marker: str) -> float:
        body = {**one_rifle, "scatter_field": marker, "do": "preview"}
        r = g.a.client.post(url, data=body, headers=HX)
        assert r.status_code == 200, r.text
        found = re.search(r"Expected damage: ([0-9.]+)", html(r).text())
        assert found is not None, html(r).text()
        return float(found.group(1))

    assert expected_damage("3") < expected_damage("")  # saves of 1 re-rolled

    # a marker that is no Scatter field of B's: refused at the select, nothing applied
    version = g.a.view()["version"]
    for stated in ("2", "9"):
        r = g.a.client.post(
            url, data={**one_rifle, "scatter_field": stated, "do": "preview"}, headers=HX
        )
        assert r.status_code == 200, r.text
        node = html(r).css_first(f"#attack-error-{uid}")
        assert node is not None, r.text
        assert f"Objective {stated} is not an identified Scatter field" in node.text()
        assert "Expected damage" not in html(r).text()
    bad = {**one_rifle, "scatter_field": "2", "do": "dice", "dice": "6 6 6 6 1 6 6"}
    r = g.a.client.post(url, data={**bad, "version": str(version)}, headers=HX)
    assert r.status_code == 200, r.text
    state = html(r).css_first("#match-state")
    assert state is not None
    assert "not an identified Scatter field" in state.css_first("#match-error").text()
    field = state.css_first(f"#combat-form-{uid} #attack-error-{uid}")
    assert field is not None, r.text
    assert "Objective 2 is not an identified Scatter field" in field.text()
    r = g.a.client.post(url, data={**bad, "version": str(version)})  # no htmx: the 422
    assert r.status_code == 422, r.text
    assert "scatter_field" in html(r).css_first("#match-error").text()
    assert g.a.view()["version"] == version
    assert log_events(g.a, "attack_resolved") == []

    # the roll, dice by hand: hits 6 6, wounds 6 6, the first save a 1 re-rolled to a 6
    body = {**one_rifle, "scatter_field": "3", "do": "dice", "dice": "6 6 6 6 1 6 6"}
    r = g.a.client.post(url, data={**body, "version": str(version)}, headers=HX)
    assert r.status_code == 200, r.text
    assert html(r).css_first("#match-error") is None, r.text
    (event,) = log_events(g.a, "attack_resolved")
    assert event["request"]["situation"]["reroll_saves"] == "ones"
    saves = [(d["value"], d["original"]) for d in event["dice"] if d["stage"] == "save"]
    assert saves == [(6, 1), (6, None)]
