"""The builder with the keywords an Enhancement gives (ruling D25) and a choice removes (D24),
on the hand-written files of :mod:`tests.catalog.bsdata.keyword_change_files` imported through
the API: the Champion is not offered the Psychic Staff (the data hides it unless the unit is a
Psyker) until it takes Warp Touch, which makes it a Psyker; on a Bike it shows as Mounted and
no longer as Infantry."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.armies.test_web import HX, add, browser, new_list, token
from tests.catalog.bsdata.keyword_change_files import FILES
from tests.support.web import html

__all__ = ["browser", "token"]  # the fixtures of test_web, used here

STAFF = "Psychic Staff"


def _riders_list(browser: TestClient, token: str, alice: dict[str, str]) -> int:
    files = [("files", (name, data)) for name, data in FILES]
    imported = browser.post("/api/v1/catalogs/import", files=files, headers=alice)
    assert imported.status_code == 201, imported.text
    slug = imported.json()["catalogues"][0]["slug"]
    army_id = new_list(
        browser,
        token,
        catalog=slug,
        faction="Riders",
        detachment="First Host",
        battle_size="strike-force",
    )
    add(browser, token, army_id, "Champion")
    return army_id


def test_warp_touch_opens_the_psychic_staff(
    browser: TestClient, token: str, alice: dict[str, str]
) -> None:
    army_id = _riders_list(browser, token, alice)
    form = html(browser.get(f"/armies/{army_id}")).css_first("#unit-0-form")
    assert form is not None
    assert form.css_first(f"input[name='wargear.{STAFF}']") is None  # no Psyker yet
    offered = [o.attributes["value"] for o in form.css("select[name=enhancements] option")]
    assert "Warp Touch" in offered
    response = browser.post(
        f"/armies/{army_id}/units/0",
        data={"csrf_token": token, "models": "1", "enhancements": "Warp Touch", "warlord": "on"},
        headers=HX,
    )
    block = html(response)
    form = block.css_first("#unit-0-form")
    assert form is not None
    assert form.css_first(f"input[name='wargear.{STAFF}']") is not None
    sheet = block.css_first("#unit-0 .unit-sheet")
    assert sheet is not None
    assert "Psyker" in sheet.text()
    # the Enhancements it is offered are judged without Warp Touch's own keyword
    offered = [o.attributes["value"] for o in form.css("select[name=enhancements] option")]
    assert "Warp Touch" in offered
    response = browser.post(
        f"/armies/{army_id}/units/0",
        data={
            "csrf_token": token,
            "models": "1",
            "enhancements": "Warp Touch",
            "warlord": "on",
            f"wargear.{STAFF}": "1",
        },
        headers=HX,
    )
    assert html(response).css_first("#legal") is not None, html(response).text()


def test_a_champion_on_a_bike_shows_no_infantry(
    browser: TestClient, token: str, alice: dict[str, str]
) -> None:
    army_id = _riders_list(browser, token, alice)
    response = browser.post(
        f"/armies/{army_id}/units/0",
        data={"csrf_token": token, "models": "1", "wargear.Bike": "1", "warlord": "on"},
        headers=HX,
    )
    sheet = html(response).css_first("#unit-0 .unit-sheet")
    assert sheet is not None
    assert "Mounted" in sheet.text()
    assert "Infantry" not in sheet.text()


def test_an_enhancement_refused_to_its_bearer_gives_no_keyword(
    browser: TestClient, token: str, alice: dict[str, str]
) -> None:
    """The builder shows a unit with the keywords the validator gives it: Warp Touch on a unit
    that may not take it (not a Character) is refused, and makes no Psyker of it, so its
    psychic choices are not offered either (review of issue 17)."""
    army_id = _riders_list(browser, token, alice)
    add(browser, token, army_id, "Foot Squad")
    response = browser.post(
        f"/armies/{army_id}/units/1",
        data={"csrf_token": token, "models": "5", "enhancements": "Warp Touch"},
        headers=HX,
    )
    block = html(response)
    codes = " ".join(n.text() for n in block.css("#unit-1 .violation, #unit-1 li"))
    assert "Warp Touch" in codes, block.text()[:2000]
    sheet = block.css_first("#unit-1 .unit-sheet")
    assert sheet is not None
    assert "Psyker" not in sheet.text()
