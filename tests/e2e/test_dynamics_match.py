"""A Dynamics turn on two phones (issue 14): Alice and Bob build PEN lists (API), Alice creates
a PEN battle with the Dynamics turn structure on the new-match form, Bob joins on his phone;
both set it up on the generic match page, then place their hidden orders, lock them, reveal
them from Initiative 1 up (an advantage test with the dice by hand) and resolve them from 10
down (a shot with its dice by hand), until the next common turn starts on both phones.

Before each reveal Bob's page (and its HTML source) holds neither the order nor the nonce of
Alice's face-down tokens, only their commitments; after it, the commitment he was shown at
placement checks against the order and nonce the reveal published."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from app.engine.dynamics import verify
from tests.e2e.test_match_tracker import _register
from tests.e2e.test_pen_match import GUARD, MARINES, PHONE, _pen_list

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def _form(page: Any, **subset: Any) -> Any:
    """The one action form on ``page`` whose command holds every field of ``subset``."""
    forms = page.locator("#actions form")
    found = []
    for i in range(forms.count()):
        raw = forms.nth(i).locator("input[name=command]").get_attribute("value") or "{}"
        command = json.loads(raw)
        if all(command.get(k) == v for k, v in subset.items()):
            found.append(i)
    listed = [
        forms.nth(i).locator("input[name=command]").get_attribute("value")
        for i in range(forms.count())
    ]
    assert len(found) == 1, (subset, listed)
    return forms.nth(found[0])


def _act(
    me: Any, watcher: Any, *, dice: str = "", inputs: dict[str, str] | None = None, **command: Any
) -> str:
    """Send the action form of ``command`` from ``me``'s phone, its inputs filled and the dice
    typed in by hand; the other phone follows live to the new version."""
    form = _form(me, **command)
    for name, value in (inputs or {}).items():
        form.locator(f"input[name='{name}']").fill(value)
    if dice:
        form.locator("details.hand-dice summary").click()
        form.locator("input[name=dice]").fill(dice)
    before = me.locator("#match-state").get_attribute("data-version")
    form.locator("button[type=submit]").click()
    expect(me.locator("#match-state")).not_to_have_attribute("data-version", before or "")
    now = me.locator("#match-state").get_attribute("data-version") or ""
    watcher.wait_for_selector(f"#match-state[data-version='{now}']", timeout=10_000)
    return now


def _offered(page: Any, kind: str) -> int:
    forms = page.locator("#actions form input[name=command]")
    return sum(
        1
        for i in range(forms.count())
        if json.loads(forms.nth(i).get_attribute("value") or "{}").get("type") == kind
    )


def _fits_a_phone(*pages: Any, step: str) -> None:
    """No page is wider than the phone: a commitment, a nonce or a declaration in a unit's
    chips or the timeline wraps instead of widening the page."""
    for page in pages:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["viewport"]["width"], (step, width)


def _orders(page: Any, match_id: str) -> dict[str, dict[str, Any]]:
    """The orders as this phone's own view shows them (its API, with its session)."""
    r = page.request.get(f"/api/v1/matches/{match_id}")
    assert r.status == 200, r.text()
    return {o["unit"]: o for o in r.json()["view"]["dynamics"]["orders"]}


def test_orders_placed_and_revealed_on_two_phones(browser, live_server) -> None:  # type: ignore[no-untyped-def]
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
        # the new-match form: PEN, its mission, the Dynamics turn structure
        alice.goto("/matches?ruleset=pen")
        alice.select_option("#new-match-form select[name=mission]", "pen-objectives")
        alice.select_option("#new-match-form select[name='option.turn_structure']", "dynamics")
        alice.click("#new-match-form button[type=submit]")
        alice.wait_for_selector("#invite-code")
        code = alice.locator("#invite-code").inner_text().strip()
        bob.goto(f"/matches/join/{code}")
        bob.click("#join-form button[type=submit]")
        bob.wait_for_selector("#match-state[data-seat=B]")
        match_id = bob.url.rsplit("/", 1)[1]
        alice.wait_for_selector("#actions form.action-end_step", timeout=10_000)

        # the PEN set-up on the generic page: no reserves, the roll-off by hand, deployment
        _act(alice, bob, type="end_step")
        _act(bob, alice, type="end_step")
        _act(alice, bob, type="roll_off", dice="5 2")
        _act(alice, bob, type="choose_first", seat="A")
        for me, other, units in ((alice, bob, ("a1", "a2")), (bob, alice, ("b1", "b2"))):
            for unit in units:
                _act(me, other, type="deploy", unit=unit)
            _act(me, other, type="end_step")
        _fits_a_phone(alice, bob, step="after the set-up")
        _act(alice, bob, type="start_turn", dice="1")  # the dawn die: still night

        # hidden orders: Alice's first (she locks first: the +1), then Bob's
        _act(alice, bob, type="place_order", unit="a1", order="fire")
        _act(alice, bob, type="place_order", unit="a2", order="fire")
        _act(alice, bob, type="lock_orders")
        _act(bob, alice, type="place_order", unit="b1", order="fire")
        _act(bob, alice, type="place_order", unit="b2", order="forced_march")
        _act(bob, alice, type="lock_orders")
        _fits_a_phone(alice, bob, step="with the commitments shown")
        secret = _orders(alice, match_id)  # Alice's own view: her orders and nonces
        shown = _orders(bob, match_id)  # what Bob's phone was shown: commitments only
        for unit in ("a1", "a2"):
            assert "order" not in shown[unit]
            assert secret[unit]["commitment"] == shown[unit]["commitment"]

        def hidden_from_bob() -> None:
            page = bob.content()
            for unit, order in _orders(alice, match_id).items():
                if order["seat"] == "A" and not order["revealed"]:
                    assert order["nonce"] not in page
                    assert "order" not in _orders(bob, match_id)[unit]

        def verified_on_bob(unit: str) -> None:
            seen = _orders(bob, match_id)[unit]
            assert seen["commitment"] == shown[unit]["commitment"]
            assert verify(seen["commitment"], seen["turn"], unit, seen["order"], seen["nonce"])

        # reveal from Initiative 1: Bob's Guardsmen (I3) alone, then Initiative 4: both
        hidden_from_bob()
        _act(bob, alice, type="reveal_order", unit="b1", target="a1")
        hidden_from_bob()
        _act(alice, bob, type="roll_advantage", spend_bonus=False, dice="6 1")
        _act(alice, bob, type="choose_starter", seat="A")
        hidden_from_bob()
        _act(alice, bob, type="reveal_order", unit="a1", target="b1")
        verified_on_bob("a1")
        _fits_a_phone(alice, bob, step="after a reveal")
        expect(bob.locator("#units")).to_contain_text("fire")
        _act(bob, alice, type="reveal_order", unit="b2")
        hidden_from_bob()
        _act(alice, bob, type="reveal_order", unit="a2", target="b2")
        verified_on_bob("a2")

        # resolution from Initiative 10 down: pass 4, Alice keeps her +1 and wins again
        _act(alice, bob, type="roll_advantage", spend_bonus=False, dice="6 1")
        _act(alice, bob, type="choose_starter", seat="A")
        shot = {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter"}
        _act(alice, bob, dice=" ".join(["1"] * 10), inputs={"need.range_inches": "20"}, **shot)
        _act(alice, bob, type="end_order", unit="a1")
        _act(bob, alice, type="end_order", unit="b2")
        _act(alice, bob, type="end_order", unit="a2")
        _act(bob, alice, type="end_order", unit="b1")  # pass 3: Bob's Guardsmen
        for page in (alice, bob):
            page.wait_for_selector("#actions form.action-start_turn", timeout=10_000)
            assert _offered(page, "start_turn") == 1
        log = bob.request.get(f"/api/v1/matches/{match_id}/log").json()
        kinds = [e["event"]["type"] for e in log["entries"]]
        assert kinds.count("order_revealed") == 4
        assert kinds.count("advantage_rolled") == 2
        assert "unit_shot" in kinds
        assert kinds[-1] == "turn_began"
    finally:
        alice_ctx.close()
        bob_ctx.close()
