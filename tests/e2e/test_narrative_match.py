"""A narrative scenario's set-up on two phones (issue 15).

Alice creates a Meat Grinder match from the new-match form with a guest seat; the guest joins on
a phone with a sample list. Every set-up step is played through the two pages, each following
the other live: the roles, the formations, the Defender's hidden deployment (its tokens laid
with the form's own labels), the Attacker's deployment that reveals them, Go to Ground, the
preliminary bombardment and the first-turn roll-off. Before the reveal, the Attacker's page
holds nothing of the Defender's secret mapping.
"""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.test_match_tracker import _follow, _ready_list, _register, _view

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

NARRATIVE_STEPS = (
    "#formation-form button[type=submit]",
    "form.action-roll_off button[type=submit]",
    "form.action-place_tokens button[type=submit]",
    "form.action-deploy_forces button[type=submit]",
    "form.action-go_to_ground button[type=submit]",
    "form.action-bombard button[type=submit]",
)


def _seat_of(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("#match-state").get_attribute("data-seat") or ""


def test_meat_grinder_set_up_on_two_phones_keeps_the_hidden_deployment_secret(  # type: ignore[no-untyped-def]
    browser, live_server
) -> None:
    phone = {
        "base_url": live_server,
        "locale": "en-GB",
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
    }
    alice_ctx = browser.new_context(**phone)
    guest_ctx = browser.new_context(**phone)
    try:
        alice = alice_ctx.new_page()
        _register(alice, f"e2e-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        alice.goto("/matches")
        _ready_list(alice)
        alice.goto("/matches")
        alice.select_option("#new-match-form select[name=mission]", "meat-grinder")
        alice.check("input[name=opponent][value=guest]")
        alice.click("#new-match-form button[type=submit]")
        alice.wait_for_selector("#guest-link")
        link = alice.locator("#guest-link").get_attribute("href")
        assert link
        match_id = alice.url.rstrip("/").rsplit("/", 1)[1]

        guest = guest_ctx.new_page()
        guest.goto(link)
        guest.fill("input[name=name]", "Gob")
        guest.check("input[name=sample][value=orks]")
        guest.click("#guest-form button[type=submit]")
        guest.wait_for_selector("#match-state[data-seat=B]")
        alice.wait_for_selector("form.action-roll_off", timeout=10_000)
        assert _view(alice, match_id)["narrative"]["mission"] == "meat-grinder"

        # the roles: the larger army attacks; both pages name them
        _follow(alice, "form.action-roll_off button[type=submit]", guest)
        pages = {_seat_of(alice): alice, _seat_of(guest): guest}
        attacker_seat = _view(alice, match_id)["narrative"]["attacker"]
        attacker = pages[attacker_seat]
        defender = pages["B" if attacker_seat == "A" else "A"]
        expect(attacker.locator("#narrative-attacker")).to_contain_text("(you)")
        expect(defender.locator("#narrative-defender")).to_contain_text("(you)")

        declared: set[str] = set()
        revealed_checked = False
        for _ in range(40):
            view = _view(alice, match_id)
            if view["stage"] == "battle":
                break
            if not revealed_checked and view["narrative"]["tokens"]:
                # the Defender's tokens are down, not yet revealed: its own page names the
                # units, the Attacker's page holds nothing of the mapping
                expect(defender.locator("#token-t1")).to_contain_text("(secret)")
                expect(attacker.locator("#token-t1")).to_contain_text("not revealed")
                assert "(secret)" not in attacker.content()
                revealed_checked = True
            for me, other in ((attacker, defender), (defender, attacker)):
                seat = _seat_of(me)
                steps = [s for s in NARRATIVE_STEPS if seat not in declared or "formation" not in s]
                step = next((s for s in steps if me.locator(s).count()), None)
                if step is not None:
                    if "formation" in step:
                        declared.add(seat)
                    _follow(me, step, other)
                    break
            else:
                raise AssertionError("neither page offers the next set-up step")
        else:
            raise AssertionError("the set-up did not end")

        assert revealed_checked, "the hidden deployment was never laid"
        view = _view(alice, match_id)
        assert view["stage"] == "battle"
        assert view["narrative"]["bombarded"] is True
        assert all(t["revealed"] for t in view["narrative"]["tokens"])
        # the reveal on both phones: every token now names its unit, and nothing is secret
        for page in (attacker, defender):
            expect(page.locator("#token-t1")).not_to_contain_text("not revealed")
            assert "(secret)" not in page.locator("#narrative").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        alice_ctx.close()
        guest_ctx.close()
