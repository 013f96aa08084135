"""The content editor's option form and a tile's sniper table in a real browser (issue 16):
rendered in process with the project's stylesheets, on a 375 px phone. Layout facts only:
nothing wider than the screen, each fieldset's fields visible and a finger's width, the
power's text box across the fieldset, a sniper row's two fields side by side, and a refused
value's message beside its field."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.test_black_reach_layout import PHONE, assert_fits, box, show
from tests.e2e.test_black_reach_match import _client

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def _copy_sample(client: Any) -> str:
    from tests.support.web import csrf

    token = csrf(client, "/black-reach/content")
    r = client.post(
        "/black-reach/content/sample/copy", data={"csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def test_the_option_form_and_the_sniper_table_on_a_phone(app, browser) -> None:  # type: ignore[no-untyped-def]
    from tests.support.web import csrf, html

    alice = _client(app, "Gear")
    path = _copy_sample(alice)
    page = show(browser, alice.get(f"{path}?option=sample-um-enfeeble").text, PHONE)
    try:
        assert_fits(page)
        for name in (
            "equipment.markers",
            "equipment.armour_save.colour",
            "ordnance.extra_draw",
            "power.cv.infantry",
            "power.dv_bonus",
        ):
            field = page.locator(f'#option-form [name="{name}"]')
            expect(field).to_be_visible()
            assert box(field)["width"] >= 40, name
        text = box(page.locator('#option-form [name="power.text"]'))
        fieldset = box(page.locator("#option-power"))
        assert text["width"] >= fieldset["width"] * 0.8  # across the fieldset, not one cell
        expect(page.locator('#option-form [name="power.effect"]')).to_have_value("enfeeble")
        # a sniper row: its result and its effect on one line
        start = box(page.locator('#tile-form [name="sniper_table[0].from"]'))
        effect = box(page.locator('#tile-form [name="sniper_table[0].effect"]'))
        assert abs(start["y"] - effect["y"]) < 30
    finally:
        page.context.close()
    # a refused value: the loader's message beside the field, still on the screen's width
    token = csrf(alice, path)
    version = html(alice.get(path)).css_first("#option-form input[name=version]")
    r = alice.post(
        f"{path}/options",
        data={
            "csrf_token": token,
            "version": str(version.attributes["value"]),
            "id": "my-dome",
            "name": "Dome",
            "faction": "ultramarines",
            "type": "psychic_power",
            "cost": "4",
            "power.psyker": "librarian",
            "power.discipline": "telekinesis",
            "power.cost": "2",
            "power.effect": "telekinetic_dome",
            "power.dv_bonus": "9",
        },
    )
    assert r.status_code == 422
    page = show(browser, r.text, PHONE)
    try:
        assert_fits(page)
        message = page.locator("#option-form [data-field='power.dv_bonus']")
        expect(message).to_be_visible()
        expect(message).to_have_text("an integer from 0 to 3")
    finally:
        page.context.close()
