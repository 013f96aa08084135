"""Two players, two browsers: one player's action appears on the other's page without a reload.

Alice registers, builds a list in the army builder (API), creates a match with a guest seat;
the guest opens the secret link in another browser context (a phone-sized one), takes a
sample list, and both pages then follow each other live through server-sent events.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

SHOTS = Path("/tmp")


def _register(page, email: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/register")
    page.fill("input[name=email]", email)
    page.fill("input[name=display_name]", name)
    page.fill("input[name=password]", "a long enough password")
    page.fill("input[name=password_confirm]", "a long enough password")
    page.click("#register-form button[type=submit]")
    page.wait_for_url("**/")


def _ready_list(page) -> int:  # type: ignore[no-untyped-def]
    token = page.locator("input[name=csrf_token]").first.get_attribute("value")
    headers = {"X-CSRF-Token": token}
    r = page.request.post(
        "/api/v1/armies",
        headers=headers,
        data={
            "rule_system": "wh40k-10e",
            "name": "Browser list",
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "strike-force",
            "units": [
                {"datasheet": "Captain", "warlord": True, "attached_to": 1},
                {"datasheet": "Intercessor Squad", "models": 5},
            ],
        },
    )
    assert r.status == 201, r.text()
    army_id = int(r.json()["id"])
    r = page.request.patch(f"/api/v1/armies/{army_id}", headers=headers, data={"status": "ready"})
    assert r.status == 200, r.text()
    return army_id


def test_an_action_on_one_phone_appears_on_the_other(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    alice_ctx = browser.new_context(base_url=live_server, locale="en-GB")
    guest_ctx = browser.new_context(
        base_url=live_server,
        locale="en-GB",
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    try:
        alice = alice_ctx.new_page()
        _register(alice, f"e2e-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        alice.goto("/matches")
        _ready_list(alice)
        alice.goto("/matches")
        alice.check("input[name=opponent][value=guest]")
        alice.click("#new-match-form button[type=submit]")
        alice.wait_for_selector("#guest-link")
        link = alice.locator("#guest-link").get_attribute("href")
        assert link
        match_url = alice.url

        guest = guest_ctx.new_page()
        guest.goto(link)
        guest.fill("input[name=name]", "Gob")
        guest.check("input[name=sample][value=orks]")
        guest.click("#guest-form button[type=submit]")
        guest.wait_for_selector("#match-state[data-seat=B]")
        guest.wait_for_selector("form.action-roll_off")

        # Alice's waiting page turns into the match when the guest joins: no reload
        alice.wait_for_selector("form.action-roll_off", timeout=10_000)
        assert alice.url == match_url
        version = int(guest.locator("#match-state").get_attribute("data-version") or 0)

        # Alice rolls off; the guest's page follows without a reload. A tie rolls again, so
        # the roll-off records one event or more: follow the version, do not predict it.
        expect(alice.locator("#match-state")).to_have_attribute("data-version", str(version))
        alice.click("form.action-roll_off button[type=submit]")
        expect(alice.locator("#match-state")).not_to_have_attribute("data-version", str(version))
        rolled = alice.locator("#match-state").get_attribute("data-version")
        guest.wait_for_selector(f"#match-state[data-version='{rolled}']", timeout=10_000)
        timeline = guest.locator("#timeline li").first.inner_text()
        assert "Roll-off" in timeline
        assert guest.url.endswith(match_url.rsplit("/", 2)[-2] + "/" + match_url.rsplit("/", 1)[1])

        # and the other way round: whoever won places a marker, the other page follows
        placer, watcher = (
            (alice, guest)
            if alice.locator("form.action-place_objective").count()
            else (guest, alice)
        )
        placer.click("form.action-place_objective button[type=submit]")
        expect(placer.locator("#match-state")).not_to_have_attribute("data-version", str(rolled))
        now = placer.locator("#match-state").get_attribute("data-version")
        watcher.wait_for_selector(f"#match-state[data-version='{now}']", timeout=10_000)
        assert watcher.locator("form.action-place_objective").count() == 1  # the watcher's turn

        guest.screenshot(path=str(SHOTS / "auspex-match-390x844.png"), full_page=False)
        width = guest.evaluate("document.documentElement.scrollWidth")
        assert width <= 390  # nothing overflows sideways on a phone
        assert guest.locator("#match-bar").is_visible()
    finally:
        alice_ctx.close()
        guest_ctx.close()
