"""A Character's Boss Pole and Kombi Weapon in the match, through the API and from the board
page (issue 16, rulings 147, 150): a Boss Pole marker readied with its bonus named in the form,
a Kombi Weapon's Tir Direct placed as a template is and its flames one form per direction.
The battle is the engine test's own (tests/engine/black_reach/battle/test_equipment_auras.py),
the Nob on (4, 5), his tile holding the made-up Boss Pole and Kombi Weapon."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from app.matches.systems import black_reach as system
from tests.engine.black_reach.battle import test_equipment_auras as auras
from tests.matches.test_black_reach_page_ambush import send
from tests.matches.test_pages_black_reach import page_of, place_orders, post_form, slug, two_players
from tests.matches.test_pages_black_reach_actions import actions, lines, played_on


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    yield
    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


def started(browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch) -> tuple:  # type: ignore[type-arg]
    played_on(monkeypatch, auras.setup("test-pole", "test-kombi", nob=(4, 5)))
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (auras.NOB, auras.BOYZ1))
    place_orders(alice, match_id, (auras.BOLTER, auras.TACTICAL))
    return alice, bob, match_id


def test_a_boss_pole_marker_through_the_api_and_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = started(browser, monkeypatch)
    offered = {
        (a["command"]["unit"], a["command"].get("bonus"))
        for a in actions(bob, match_id)
        if a["command"]["type"] == "ready_equipment"
    }
    assert (auras.BOYZ1, "dakka") in offered
    assert (auras.BOYZ2, "dakka") in offered  # (7, 7): 3 squares from the Nob
    assert (auras.SHOOTAS, "dakka") not in offered  # (0, 6): 4 squares
    command = {"type": "ready_equipment", "unit": auras.BOYZ1, "option": "test-pole"}
    r = send(bob, match_id, command)
    assert r.status_code == 422, r.text
    assert r.json()["refusal"] == "bonus_needed"
    r = send(bob, match_id, {**command, "bonus": "grim"})
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "grim_after_the_roll"  # asked after a roll (rulings 153)
    r = send(alice, match_id, {**command, "bonus": "dakka"})
    assert r.status_code in (403, 409), r.text  # not her unit
    page = page_of(bob, match_id)
    css = f"#form-ready-equipment-{slug(auras.BOYZ1)}-test-pole-dakka"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    assert (
        form.css_first("p.form-title")
        .text()
        .endswith("use A made-up boss pole, Dakka: +1 to a die (3 left)")
    )
    after = post_form(bob, match_id, css, page=page, count="1")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any(
        "readies 1 A made-up boss pole, Dakka: +1 to a die marker(s) for its next action." in t
        for t in said
    ), said


def test_a_kombi_weapon_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = started(browser, monkeypatch)
    page = page_of(bob, match_id)
    flame = page.css_first(f"#form-kombi-{slug(auras.NOB)}-test-kombi-N")
    assert flame is not None, [f.attributes.get("id") for f in page.css("form")]
    assert "Lance-Flammes, direction north (3 left)" in flame.css_first("p.form-title").text()
    reached = flame.css_first(".flame-targets").text()
    assert reached == "The flame reaches (friends too): Sample heavy-weapon team"
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])
    flame_id = f"form-kombi-{slug(auras.NOB)}-test-kombi-N"
    assert flame_id in taps[auras.NOB]["targets"][auras.BOLTER]  # a tap on the bolter opens it
    css = f"#form-kombi-{slug(auras.NOB)}-test-kombi-direct"
    direct = page.css_first(css)
    assert direct is not None
    assert "Tir Direct (template, 3 left)" in direct.css_first("p.form-title").text()
    assert "within 6 intercases of the shooter" in direct.text()
    # the B template's south-east square on the heavy bolter (5, 2): 3 + CV 3 vs DV 5
    after = post_form(bob, match_id, css, page=page, x="5", y="2", facing="N", dice="3")
    assert after.css_first("#match-error") is None
    # the pole's Grim may reroll the Nob's die (rulings 153): Bob keeps it
    after = post_form(bob, match_id, "form.action-keep_roll", page=after)
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any("uses 1 A made-up kombi weapon marker(s)." in t for t in said), said
    seen = alice.get(f"/api/v1/matches/{match_id}").json()["view"]
    assert next(u for u in seen["units"] if u["id"] == auras.BOLTER)["face"] == "reduced"
