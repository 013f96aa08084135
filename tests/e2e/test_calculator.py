"""In a real browser: the calculator fills from a preset, updates its results through htmx as a
field changes (no page load), and rolls the attack once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def _htmx_errors(console_errors: list[str]) -> list[str]:
    """The htmx errors a user would meet, without the aborts the form asks for.

    The form syncs with ``hx-sync="this:replace"``: a change made while a request is in flight
    aborts that request, and htmx logs the abort (``htmx:sendAbort`` with its
    ``htmx:afterRequest``) as an error. A failed request still shows: it logs ``htmx:sendError``,
    ``htmx:responseError`` or ``htmx:timeout`` besides its own ``htmx:afterRequest``.
    """
    errors = [e for e in console_errors if "htmx" in e]
    for _ in range(sum("htmx:sendAbort" in e for e in errors)):
        errors.remove(next(e for e in errors if "htmx:sendAbort" in e))
        paired = next((e for e in errors if "htmx:afterRequest" in e), None)
        if paired is not None:
            errors.remove(paired)
    return errors


def test_preset_live_update_and_roll(page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/calculator")
    assert page.locator("#calculator-title").inner_text() == "Attack calculator"
    assert page.locator("#mean-damage .stat-value").inner_text()

    # a preset fills the weapon row (the server answers htmx with HX-Redirect)
    page.select_option("#f-w0-preset", "lascannon")
    expect(page.locator("#f-w0-name")).to_have_value("Lascannon")
    assert page.input_value("#f-w0-damage") == "D6+1"
    before = page.locator("#mean-damage .stat-value").inner_text()

    # changing a field updates the results in place: no page load, URL pushed
    page.evaluate("window.__stillHere = true")
    page.fill("#f-w0-models", "")
    page.locator("#f-w0-models").press_sequentially("10")
    expect(page.locator("#mean-damage .stat-value")).not_to_have_text(before)
    assert page.evaluate("window.__stillHere") is True
    expect(page).to_have_url(re.compile(r"w0\.models=10"))  # hx-push-url
    after = float(page.locator("#mean-damage .stat-value").inner_text().replace(",", "."))
    assert after > float(before.replace(",", "."))
    assert page.locator("#chart-damage g.bar").count() >= 2

    # a field error appears next to its field, still without a page load
    page.fill("#f-t-toughness", "0")
    page.locator("#f-t-toughness").press("Tab")
    page.wait_for_selector("#err-t-toughness:not([hidden])")
    assert "1" in page.locator("#err-t-toughness").inner_text()
    assert page.evaluate("window.__stillHere") is True
    page.fill("#f-t-toughness", "5")
    page.locator("#f-t-toughness").press("Tab")
    page.wait_for_selector("#err-t-toughness[hidden]", state="attached")

    # Roll it: one live resolution die by die, with its seed
    page.click("#roll-it")
    page.wait_for_url(re.compile(r".*/calculator/roll\?.*seed=\d+"))
    assert page.locator("#dice-list li.die-row").count() >= 5
    seed = page.locator("#seed code").inner_text()
    dice = page.locator("#dice-list .die").all_inner_texts()
    page.screenshot(path=str(tmp_path / "roll.png"), full_page=True)
    page.click("#same-seed")
    page.wait_for_selector("#dice-list")
    assert page.locator("#seed code").inner_text() == seed
    assert page.locator("#dice-list .die").all_inner_texts() == dice


def test_phone_in_french_picker_compare_and_pen_without_htmx_errors(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    """Issue 18: the page a player uses on a phone, in French."""
    context = browser.new_context(
        base_url=live_server, locale="fr-FR", viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto("/calculator")
        assert page.locator("#calculator-title").inner_text() == "Calculateur d'attaque"

        # the picker: type to search, choose, and the ability joins the row's list
        page.locator("#f-w0-pick").fill("Lethal Hits")
        page.locator("#f-w0-pick").dispatch_event("change")
        expect(page.locator("#f-w0-abilities")).to_have_value(re.compile(r"Lethal Hits$"))

        # Calculate: the form folds and the summary is on screen without scrolling
        page.click("#calculate")
        page.wait_for_url(re.compile(r"#results$"))
        expect(page.locator("#calculator-form")).to_have_class(re.compile("collapsed"))
        box = page.locator("#summary").bounding_box()
        assert box is not None
        assert 0 <= box["y"] < 844

        # compare: pin this profile, change the weapon count, both on one chart
        page.locator("#edit-attack").click()
        page.click("#pin")
        page.wait_for_url(re.compile(r"vs="))
        page.fill("#f-w0-models", "")
        page.locator("#f-w0-models").press_sequentially("10")
        expect(page.locator("#compare-legend li")).to_have_count(2)
        assert page.locator("#compare g.compare-group").first.locator("rect").count() == 2

        # PEN: recalculations log no htmx error; a vehicle hides the unit's fields
        page.goto("/calculator?system=pen")
        page.fill("#f-a-models", "")
        page.locator("#f-a-models").press_sequentially("7")
        page.select_option("#f-t-kind", "vehicle")
        page.wait_for_timeout(800)
        expect(page.locator("#f-t-toughness")).to_be_hidden()
        expect(page.locator("#f-v-front")).to_be_visible()
        assert _htmx_errors(errors) == []
    finally:
        context.close()


def test_pen_pickers_in_a_browser(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    """Issue 18: PEN's rules from a picker (French or English names), no htmx error."""
    context = browser.new_context(base_url=live_server, locale="fr-FR")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto("/calculator?system=pen")
        page.fill("#f-w-properties", "")
        page.locator("#f-w-properties-pick").fill("Perforant")
        page.locator("#f-w-properties-pick").dispatch_event("change")
        expect(page.locator("#f-w-properties")).to_have_value("Perforant")
        page.select_option("#f-t-kind", "vehicle")
        page.locator("#f-v-types-pick").fill("walker")
        page.locator("#f-v-types-pick").dispatch_event("change")
        # an English name picked on a French page is written in French, and read back as walker
        expect(page.locator("#f-v-types")).to_have_value(re.compile(r"marcheur$"))
        expect(page.locator("#stages")).to_be_visible()
        assert _htmx_errors(errors) == []
    finally:
        context.close()
