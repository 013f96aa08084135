"""The builder with a choice that adds a keyword (ruling D22), on the starter catalogue (made
from the real files): in Headhunter Task Force a Whirlwind is offered "Tank Ace Character";
once taken it shows as a Character and is offered the Warlord and the Detachment's
Enhancements, which it is not offered without it; in another Detachment the choice is not
offered."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.catalog.starter import starter_catalogue
from tests.armies.test_web import HX, add, browser, new_list, token
from tests.support.web import html

__all__ = ["browser", "token"]  # the fixtures of test_web, used here

TANK_ACE = "Tank Ace Character"
HEADHUNTER = "Headhunter Task Force"


def _enhancements() -> list[str]:
    det = starter_catalogue().detachment(HEADHUNTER)
    assert det is not None
    return [e.name for e in det.enhancements]


def test_a_tank_ace_is_offered_the_warlord_and_the_enhancements(
    browser: TestClient, token: str
) -> None:
    army_id = new_list(browser, token, detachment=HEADHUNTER, battle_size="strike-force")
    add(browser, token, army_id, "Whirlwind")
    form = html(browser.get(f"/armies/{army_id}")).css_first("#unit-0-form")
    assert form is not None
    assert form.css_first(f"input[name='wargear.{TANK_ACE}']") is not None
    assert form.css_first("input[name=warlord]") is None  # not a Character yet
    assert form.css_first("select[name=enhancements]") is None

    response = browser.post(
        f"/armies/{army_id}/units/0",
        data={"csrf_token": token, "models": "1", f"wargear.{TANK_ACE}": "1"},
        headers=HX,
    )
    block = html(response)
    badges = block.css_first("#unit-0 .badges")
    assert badges is not None
    assert "Character" in badges.text()
    form = block.css_first("#unit-0-form")
    assert form is not None
    assert form.css_first("input[name=warlord]") is not None
    offered = [o.attributes["value"] for o in form.css("select[name=enhancements] option")]
    assert offered == ["", *_enhancements()]

    enhancement = _enhancements()[0]
    response = browser.post(
        f"/armies/{army_id}/units/0",
        data={
            "csrf_token": token,
            "models": "1",
            f"wargear.{TANK_ACE}": "1",
            "enhancements": enhancement,
            "warlord": "on",
        },
        headers=HX,
    )
    block = html(response)
    assert block.css_first("#legal") is not None, block.text()  # no violation left
    lines = block.css_first("#unit-0 .unit-lines")
    assert lines is not None
    assert enhancement in lines.text()
    assert "Warlord" in lines.text()


def test_tank_ace_is_not_offered_in_another_detachment(browser: TestClient, token: str) -> None:
    army_id = new_list(browser, token)  # Gladius Task Force
    add(browser, token, army_id, "Whirlwind")
    form = html(browser.get(f"/armies/{army_id}")).css_first("#unit-0-form")
    assert form is not None
    assert form.css_first(f"input[name='wargear.{TANK_ACE}']") is None
