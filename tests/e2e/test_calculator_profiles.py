"""In a real browser (issue 18): a player saves an attacker and a matchup, finds the recent
matchup, puts a saved attacker back into another calculation in one tap, and deletes one."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def _register(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/register")
    page.fill("input[name=email]", f"e2e-{uuid.uuid4().hex[:8]}@example.com")
    page.fill("input[name=display_name]", "Profile Keeper")
    page.fill("input[name=password]", "a long enough password")
    page.fill("input[name=password_confirm]", "a long enough password")
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#account-link")


def test_saved_profiles_and_recent_matchups(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/calculator")
    expect(page.locator("#saved-login")).to_be_visible()  # logged out: an invitation only
    _register(page)

    page.goto("/calculator")
    page.select_option("#f-w0-preset", "lascannon")
    expect(page.locator("#f-w0-name")).to_have_value("Lascannon")
    page.fill("#f-w0-models", "")
    page.locator("#f-w0-models").press_sequentially("3")
    expect(page).to_have_url(re.compile(r"w0\.models=3"))

    # keep the attacker under a name: leaving the count field refreshes the results (and
    # this block with them), and the name being typed survives the swap
    page.evaluate("document.getElementById('results').dataset.before = 'yes'")
    with page.expect_response(re.compile(r"/calculator\?")):
        page.fill("#f-save-name", "Three lascannons")
    page.wait_for_function("!document.getElementById('results').dataset.before")
    expect(page.locator("#f-save-name")).to_have_value("Three lascannons")
    page.select_option("#f-save-kind", "attacker")
    page.click("#save-profile")
    saved = page.locator("#saved-list li")
    expect(saved).to_have_count(1)
    expect(saved.first.locator("a.use")).to_have_text("Three lascannons")

    # and the whole matchup; the calculation itself is a recent matchup
    page.fill("#f-save-name", "Lascannons vs Intercessors")
    page.select_option("#f-save-kind", "matchup")
    page.click("#save-profile")
    expect(saved).to_have_count(2)
    page.goto("/calculator")  # a fresh calculation of the default profile
    expect(page.locator("#recent-list li").first).to_be_visible()

    # a new calculation; the saved attacker replaces only the attacker, in one tap
    page.fill("#f-t-toughness", "")
    page.locator("#f-t-toughness").press_sequentially("8")
    expect(page).to_have_url(re.compile(r"t\.toughness=8"))
    expect(page.locator("#f-w0-name")).not_to_have_value("Lascannon")
    page.locator("#saved-list a.use", has_text="Three lascannons").click()
    expect(page.locator("#f-w0-name")).to_have_value("Lascannon")
    expect(page.locator("#f-w0-models")).to_have_value("3")
    expect(page.locator("#f-t-toughness")).to_have_value("8")  # the target stays
    assert page.locator("#mean-damage .stat-value").inner_text()

    # deleting one leaves the other
    page.locator("#saved-list li", has_text="Three lascannons").locator("button").click()
    expect(saved).to_have_count(1)
    expect(saved.first.locator("a.use")).to_have_text("Lascannons vs Intercessors")
