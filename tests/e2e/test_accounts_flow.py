"""In a real browser: register, log out, log in, and see the home page in English and French."""

from __future__ import annotations

import uuid

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def test_register_login_and_both_languages(page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    email = f"e2e-{uuid.uuid4().hex[:8]}@example.com"
    page.goto("/")
    assert page.locator("#home-title").inner_text() == "Your Warhammer 40,000 companion"

    page.click("#register-link")
    page.fill("input[name=email]", email)
    page.fill("input[name=display_name]", "Browser Tester")
    page.fill("input[name=password]", "a long enough password")
    page.fill("input[name=password_confirm]", "a long enough password")
    page.click("#register-form button[type=submit]")
    page.wait_for_url("**/")
    assert page.locator("#account-link").inner_text() == "Browser Tester"

    page.click("#logout-button")
    page.wait_for_selector("#login-link")
    page.click("#login-link")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", "a long enough password")
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#account-link")

    page.click("button[lang=fr]")
    page.wait_for_selector("html[lang=fr]")
    assert page.locator("#home-title").inner_text() == "Votre compagnon pour Warhammer 40 000"
    assert page.locator("#logout-button").inner_text() == "Se déconnecter"
    page.screenshot(path=str(tmp_path / "home-fr.png"))

    page.click("button[lang=en]")
    page.wait_for_selector("html[lang=en]")
    assert page.locator("#home-title").inner_text() == "Your Warhammer 40,000 companion"


def test_wrong_password_shows_an_error(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/login")
    page.fill("input[name=email]", "nobody@example.com")
    page.fill("input[name=password]", "not the password")
    page.click("#login-form button[type=submit]")
    assert page.locator("#login-error").is_visible()
