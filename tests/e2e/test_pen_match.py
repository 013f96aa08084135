"""A PEN battle on two phones: Alice and Bob each build a PEN list (API), Alice creates the
battle on the new-match form, Bob joins with its code in another browser context (a phone),
both set it up on their pages, then Alice plays a whole turn (a move, a shot, a charge and its
fight); her shot is undone after Bob approves on his phone, and each page follows the other
live (server-sent events), until Bob's turn starts."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.test_match_tracker import _follow, _register

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _pen_list(page, name: str, units: list[dict]) -> int:  # type: ignore[no-untyped-def,type-arg]
    token = page.locator("input[name=csrf_token]").first.get_attribute("value")
    headers = {"X-CSRF-Token": token}
    r = page.request.post(
        "/api/v1/armies", headers=headers, data={"rule_system": "pen", "name": name, "units": units}
    )
    assert r.status == 201, r.text()
    army_id = int(r.json()["id"])
    r = page.request.patch(f"/api/v1/armies/{army_id}", headers=headers, data={"status": "ready"})
    assert r.status == 200, r.text()
    return army_id


def _squad(name: str, models: int, weapon: dict, **profile: int) -> dict:  # type: ignore[type-arg]
    stats = {
        "ws": 4,
        "bs": 4,
        "strength": 4,
        "toughness": 4,
        "wounds": 1,
        "initiative": 4,
        "attacks": 1,
        "leadership": 8,
        "save": 3,
    }
    return {
        "name": name,
        "points": 100,
        "models": models,
        "unit_type": "infanterie",
        "troops": True,
        "characteristics": {**stats, **profile},
        "weapons": [weapon],
    }


MARINES = [
    _squad(
        "Tactical", 10, {"name": "Bolter", "type": "tir rapide", "shots": 1, "strength": 4, "ap": 5}
    ),
    _squad(
        "Devastators",
        5,
        {"name": "Lascannon", "type": "lourde", "shots": 1, "strength": 9, "ap": 2},
    ),
]
GUARD = [
    _squad(
        "Guardsmen",
        10,
        {"name": "Lasgun", "type": "tir rapide", "shots": 1, "strength": 3},
        ws=3,
        bs=3,
        strength=3,
        toughness=3,
        initiative=3,
        leadership=7,
        save=5,
    ),
    _squad("Veterans", 5, {"name": "Lasgun", "type": "tir rapide", "shots": 1, "strength": 3}),
]


def _send(me, form: str, *watchers, dice: str = "", **fields: str) -> str:  # type: ignore[no-untyped-def]
    """Fill the form ``form`` on ``me``'s page as a player would and send it; every watcher's
    page follows to the new version."""
    locator = me.locator(form)
    for name, value in fields.items():
        field = locator.locator(f"[name={name}]")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    if dice:
        locator.locator("details.hand-dice summary").click()
        locator.locator("input[name=dice]").fill(dice)
    return _follow(me, f"{form} button[type=submit]", *watchers)


def test_a_pen_turn_on_two_phones_with_an_undo(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    alice_ctx = browser.new_context(base_url=live_server, locale="en-GB", **PHONE)
    bob_ctx = browser.new_context(base_url=live_server, locale="en-GB", **PHONE)
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        _register(alice, f"e2e-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        _register(bob, f"e2e-{uuid.uuid4().hex[:8]}@example.com", "Bob")
        alice.goto("/matches")
        _pen_list(alice, "Marines", MARINES)
        bob.goto("/matches")
        _pen_list(bob, "Guard", GUARD)
        # the new-match form offers PEN, its missions and Alice's PEN list
        alice.goto("/matches?ruleset=pen")
        expect(alice.locator("#ruleset-select")).to_have_value("pen")
        alice.select_option("#new-match-form select[name=mission]", "pen-objectives")
        alice.click("#new-match-form button[type=submit]")
        alice.wait_for_selector("#invite-code")
        code = alice.locator("#invite-code").inner_text().strip()
        bob.goto(f"/matches/join/{code}")
        bob.click("#join-form button[type=submit]")
        bob.wait_for_selector("#match-state[data-seat=B]")
        alice.wait_for_selector("#form-end-step", timeout=10_000)  # live: the battle is on

        # set-up: no reserves, the roll-off (dice by hand), Alice first, deployment
        _send(alice, "#form-end-step", bob)
        _send(bob, "#form-end-step", alice)
        _send(alice, "#form-roll-off", bob, dice="5 2")
        expect(bob.locator("#timeline li").first).to_contain_text("Alice wins the roll-off.")
        _send(alice, "#form-choose-first-A", bob)
        for me, other, units in ((alice, bob, ("a1", "a2")), (bob, alice, ("b1", "b2"))):
            for unit in units:
                _send(me, f"#form-deploy-{unit}", other)
            _send(me, "#form-end-step", other)
        expect(alice.locator("#round")).to_have_text("Round 1")
        expect(bob.locator("#active")).to_contain_text("Alice")

        # Alice's turn: start, move, shoot
        _send(alice, "#form-start-turn", bob, dice="1")
        _send(alice, "#form-move-a1", bob, speed="normal", inches="6")
        expect(bob.locator("#timeline li").first).to_contain_text("Tactical moves (normal move")
        _send(alice, "#form-shoot-a1", bob, target="b1", weapon="Bolter", range_inches="12")
        shot = "Tactical shoots Guardsmen with Bolter."
        expect(bob.locator("#timeline li").first).to_contain_text(shot)
        # the shot rolled dice: Alice asks, Bob approves on his phone
        expect(alice.locator("#undo-button")).to_contain_text("Ask to undo")
        _follow(alice, "#undo-button", bob)
        expect(alice.locator("#undo-request")).to_contain_text("waiting for Bob")
        expect(bob.locator("#waiting-on-you")).to_contain_text("An undo to approve")
        bob.locator("#approve-undo-button").scroll_into_view_if_needed()
        _follow(bob, "#approve-undo-button", alice)
        expect(alice.locator("#undo-request")).to_have_count(0)
        for page in (alice, bob):
            expect(page.locator("#timeline li.undone-entry del").first).to_contain_text(shot)
            expect(page.locator("#unit-b1 .models")).to_have_text("10/10")
        # the shot again, kept this time; the rest of the movement phase
        _send(alice, "#form-shoot-a1", bob, target="b1", weapon="Bolter", range_inches="12")
        _send(alice, "#form-end-activation-a1", bob)
        _send(alice, "#form-move-a2", bob, speed="stationary", inches="0")
        _send(alice, "#form-end-activation-a2", bob)
        _send(alice, "form.action-end_phase", bob)
        expect(alice.locator("#phase")).to_have_text("Assault")
        # the assault: a charge and its fight
        _send(alice, "#form-charge-a1", bob, target="b1", distance="4")
        expect(bob.locator("#timeline li").first).to_contain_text(
            'Tactical charges Guardsmen (4").'
        )
        _send(alice, "#form-fight-a1-b1", bob)
        expect(bob.locator("#timeline li").first).to_contain_text("Tactical fights Guardsmen.")
        _send(alice, "form.action-end_phase", bob)
        # Bob's turn starts on both phones
        expect(bob.locator("#active")).to_have_text("Your turn")
        expect(alice.locator("#active")).to_contain_text("Bob")
        expect(bob.locator("#form-start-turn")).to_have_count(1)
        for page in (alice, bob):
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390  # nothing overflows sideways on a phone
        log = alice.request.get(f"/api/v1/matches/{alice.url.rsplit('/', 1)[1]}/log").json()
        kinds = [e["event"]["type"] for e in log["entries"]]
        assert kinds.count("undo_requested") == 1
        assert kinds.count("undone") == 1
        assert "charge_declared" in kinds
        assert "combat_fought" in kinds or "combat_resolved" in kinds
    finally:
        alice_ctx.close()
        bob_ctx.close()
