"""In a real browser: create a list, add units from the datasheet browser, see the points and
the violations update without a page load, mark the list ready; and the phone layout."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def register(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/register")
    page.fill("input[name=email]", f"builder-{uuid.uuid4().hex[:8]}@example.com")
    page.fill("input[name=display_name]", "Builder")
    page.fill("input[name=password]", "a long enough password")
    page.fill("input[name=password_confirm]", "a long enough password")
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#account-link")


def add(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.fill("#browser-search input[name=q]", name)
    # the results of THIS search (data-q), not the list shown before it answered
    item = f'#browser-results[data-q="{name}"] li.sheet-item[data-datasheet="{name}"]'
    page.wait_for_selector(item)
    page.click(f"{item} button.add-unit")


def new_list(page, name: str) -> str:  # type: ignore[no-untyped-def]
    """Register, then create an Incursion Space Marines list from "My lists"; its URL."""
    register(page)
    page.goto("/armies")
    page.click("#new-army")
    page.fill("#new-army-form input[name=name]", name)
    page.select_option("#faction-select", "Adeptus Astartes")
    page.wait_for_selector(
        '#detachment-select option[value="Gladius Task Force"]', state="attached"
    )
    page.select_option("#detachment-select", "Gladius Task Force")
    page.select_option("#new-army-form select[name=battle_size]", "incursion")
    page.click("#create-army")
    page.wait_for_selector("#army-name")
    return str(page.url)


def test_build_a_list_and_mark_it_ready(page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = new_list(page, "Browser list")
    assert page.locator("#points-total").inner_text() == "0"

    # a marker that a full page load would erase: the updates come as htmx fragments
    page.evaluate("window.__no_reload = true")
    add(page, "Captain")
    page.wait_for_selector('article.unit-card[data-datasheet="Captain"]')
    assert page.locator("#points-total").inner_text() == "80"
    add(page, "Intercessor Squad")
    page.wait_for_selector('article.unit-card[data-datasheet="Intercessor Squad"]')
    assert page.locator("#points-total").inner_text() == "160"
    codes = page.locator("#violations .violation").evaluate_all(
        "els => els.map(e => e.dataset.code)"
    )
    assert codes == ["no-warlord"]

    # Three quick edits on two units, each sent on its change event without waiting for the
    # previous answer: 10 Intercessors, then the Captain becomes the Warlord with an
    # Enhancement. The answers may cross; none of the edits is lost, on the page or on the server.
    page.click("#unit-1 details.unit-edit > summary")
    page.fill("#unit-1-form input[name=models]", "10")
    page.press("#unit-1-form input[name=models]", "Tab")
    page.click("#unit-0 details.unit-edit > summary")
    page.check("#unit-0-form input[name=warlord]")
    page.select_option("#unit-0-form select[name=enhancements]", "Artificer Armour")
    expect(page.locator("#points-total")).to_have_text("250")
    expect(page.locator("#legal")).to_be_visible()
    # the editors the player opened stay open through the updates
    expect(page.locator("#unit-0-form select[name=enhancements]")).to_be_visible()
    expect(page.locator("#unit-1-form input[name=models]")).to_be_visible()
    assert page.evaluate("window.__no_reload") is True
    assert page.url == url

    # what the server kept: a fresh page shows the three edits
    page.reload()
    assert page.locator("#points-total").inner_text() == "250"
    assert page.locator("#unit-1-form input[name=models]").input_value() == "10"
    assert page.locator("#unit-0-form input[name=warlord]").is_checked()
    assert (
        page.locator("#unit-0-form select[name=enhancements]").input_value() == "Artificer Armour"
    )

    page.click("#mark-ready")
    page.wait_for_selector("#army-status:has-text('ready')")
    assert page.locator("#mark-draft").is_visible()
    page.screenshot(path=str(tmp_path / "army-ready.png"), full_page=True)

    # the whole list prints: the builder's tools are hidden
    page.emulate_media(media="print")
    assert not page.locator("#browser").is_visible()
    assert not page.locator("#list-actions").is_visible()
    assert page.locator("#unit-0").is_visible()
    page.emulate_media(media="screen")


def new_list_with_a_captain_and_a_squad(page) -> None:  # type: ignore[no-untyped-def]
    new_list(page, "Crossing answers")
    add(page, "Captain")
    page.wait_for_selector('article.unit-card[data-datasheet="Captain"]')
    add(page, "Intercessor Squad")
    expect(page.locator("#points-total")).to_have_text("160")


def test_crossing_answers_never_lose_an_edit_or_what_is_being_typed(page) -> None:  # type: ignore[no-untyped-def]
    """The first edit's answer is held on the way (the server has applied it); a second edit
    answers first; the player types in a third field meanwhile. The page ends on the newest
    state, with the typed text intact, and sends it on leaving the field."""
    new_list_with_a_captain_and_a_squad(page)
    revision = int(page.locator("#army").get_attribute("data-revision") or 0)
    delayed: list = []

    def hold(route) -> None:  # type: ignore[no-untyped-def]
        delayed.append((route, route.fetch()))  # the server answers now; the page waits

    page.route("**/units/1", hold)
    page.click("#unit-1 details.unit-edit > summary")
    page.fill("#unit-1-form input[name=models]", "10")
    page.press("#unit-1-form input[name=models]", "Tab")
    expect(page.locator(".htmx-request")).not_to_have_count(0)
    page.click("#unit-0 details.unit-edit > summary")
    page.click("#unit-0-form input[name=warlord]")
    # the second answer is in, but held back: the first is still on its way
    page.wait_for_timeout(300)
    assert len(delayed) == 1
    assert page.locator("#army").get_attribute("data-revision") == str(revision)
    page.click("#unit-1-form input[name=label]")
    page.keyboard.type("Alpha")

    route, response = delayed[0]
    route.fulfill(response=response)
    page.unroute("**/units/1")
    # both edits show, whichever order the answers came in
    expect(page.locator("#army")).to_have_attribute("data-revision", str(revision + 2))
    assert page.locator("#points-total").inner_text() == "240"
    assert page.locator("#unit-0-form input[name=warlord]").is_checked()
    assert page.locator("#unit-1-form input[name=models]").input_value() == "10"
    # what the player was typing survived the swap, focused, and is sent when they move on
    label = page.locator("#unit-1-form input[name=label]")
    assert label.input_value() == "Alpha"
    assert label.evaluate("el => el === document.activeElement")
    page.keyboard.press("Tab")
    expect(page.locator("#unit-1 .unit-head h3")).to_contain_text("Intercessor Squad — Alpha")
    page.reload()
    assert page.locator("#unit-1-form input[name=label]").input_value() == "Alpha"


def test_phone_layout(browser, live_server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(
        base_url=live_server, viewport={"width": 390, "height": 844}, locale="fr-FR"
    )
    page = context.new_page()
    try:
        register(page)
        page.goto("/armies/new")
        page.fill("#new-army-form input[name=name]", "Téléphone")
        page.select_option("#faction-select", "Orks")
        page.wait_for_selector('#detachment-select option[value="War Horde"]', state="attached")
        page.click("#create-army")
        page.wait_for_selector("#army-name")
        add(page, "Warboss")
        page.wait_for_selector('article.unit-card[data-datasheet="Warboss"]')
        # nothing wider than the screen, and the points stay in sight at the bottom
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        bar = page.locator("#points-bar")
        assert bar.is_visible()
        box = bar.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= 844 + 1
        assert "pts" in bar.inner_text()
        assert page.locator("#mark-ready").inner_text() == "Marquer prête"
        page.screenshot(path=str(tmp_path / "army-phone.png"))
    finally:
        context.close()


def test_faction_first_then_undo_share_and_paste_back(page) -> None:  # type: ignore[no-untyped-def]
    register(page)
    page.goto("/armies/new")
    # the faction changes before any name is typed: the detachments follow it
    page.select_option("#faction-select", "Orks")
    page.wait_for_selector('#detachment-select option[value="War Horde"]', state="attached")
    assert page.locator('#detachment-select option[value="Gladius Task Force"]').count() == 0
    page.select_option("#faction-select", "Adeptus Astartes")
    page.wait_for_selector(
        '#detachment-select option[value="Gladius Task Force"]', state="attached"
    )
    page.fill("#new-army-form input[name=name]", "Paste me")
    page.select_option("#new-army-form select[name=battle_size]", "incursion")
    page.click("#create-army")
    page.wait_for_selector("#army-name")
    assert "Adeptus Astartes · Gladius Task Force" in page.locator(".army-meta").inner_text()

    add(page, "Captain")
    page.wait_for_selector('article.unit-card[data-datasheet="Captain"]')
    add(page, "Intercessor Squad")
    expect(page.locator("#points-total")).to_have_text("160")
    # a removal, undone
    page.click("#unit-1 button.remove-unit")
    expect(page.locator("#points-total")).to_have_text("80")
    page.click("#undo-remove")
    expect(page.locator("#points-total")).to_have_text("160")
    expect(page.locator('article.unit-card[data-datasheet="Intercessor Squad"]')).to_be_visible()

    # the share link stays on the page, with a copy button
    page.click("#create-share")
    page.wait_for_selector("#share-link-field")
    link = page.locator("#share-link-field").input_value()
    page.reload()
    assert page.locator("#share-link-field").input_value() == link
    expect(page.locator("#copy-share-link")).to_be_visible()

    # the text export, pasted back, makes the same list
    page.click("#text-export > summary")
    text = page.locator("#text-export textarea").input_value()
    assert "• 1x Bolt pistol" in text
    page.goto("/armies/import")
    page.fill("#import-document", text)
    page.click("#import-submit")
    page.wait_for_selector("#army-name")
    assert page.locator("#army-name").inner_text() == "Paste me"
    assert page.locator("#points-total").inner_text() == "160"
