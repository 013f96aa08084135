"""In a real browser: the calculator fills from a preset, updates its results through htmx as a
field changes (no page load), and rolls the attack once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


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
