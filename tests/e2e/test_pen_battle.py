"""A whole PEN battle on two phones (issue 13's proof): Alice and Bob each build a PEN list
(API), Alice creates the battle on the new-match form, Bob joins with its code, and they play
the battle of ``tests/matches/test_pages_pen_battle.py`` on their pages, every roll that
matters typed in the page's "dice rolled by hand" field: reserves (a deep strike, a standard
reserve arriving), night in round 1 and dawn in round 2, a transport destroyed with its
passengers hit, shooting that kills, a charge, a combat of three squads with a sweeping
advance, a consolidation, the game-length rolls after rounds 5 and 6, the objectives reported
and the confirmed result. After each action the other phone shows the new version without a
reload (server-sent events), and both phones show what the step says they should."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.test_match_tracker import _follow, _register
from tests.e2e.test_pen_match import PHONE, _pen_list
from tests.matches.test_pages_pen_battle import BATTLE, GUARD, MARINES, Step

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]


def _play(me, other, step: Step) -> None:  # type: ignore[no-untyped-def]
    """Fill the step's form on ``me``'s phone as a player would (selects, numbers, ticked
    boxes, the dice by hand), send it, and wait until ``other``'s phone follows."""
    form = me.locator(step.form)
    expect(form).to_have_count(1)
    for name, value in step.fields.items():
        fields = form.locator(f"[name={name}]")
        kind = fields.first.evaluate("e => e.tagName + ':' + (e.type || '')")
        if kind.startswith("SELECT"):
            fields.select_option(value)
        elif kind.endswith("checkbox"):
            fields.and_(me.locator(f"[value='{value}']")).check()
        else:
            fields.fill(value)
    if step.dice:
        form.locator("details.hand-dice summary").click()
        form.locator("input[name=dice]").fill(step.dice)
    # the form as filled fits the phone: nothing overflows sideways
    assert me.evaluate("document.documentElement.scrollWidth") <= 390, step
    _follow(me, f"{step.form} button[type=submit]", other)
    for page in (me, other):
        for css, text in step.sees:
            expect(page.locator(css).first).to_contain_text(text)


def test_a_whole_pen_battle_on_two_phones(browser, live_server) -> None:  # type: ignore[no-untyped-def]
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
        match_id = alice.url.rsplit("/", 1)[1]

        phones = {"A": (alice, bob), "B": (bob, alice)}
        for step in BATTLE:
            _play(*phones[step.seat], step)

        # the battle is over: Alice says who holds each objective on her phone
        expect(alice.locator("#stage")).to_contain_text("End of the game")
        reports = alice.locator("#actions form.action-report_control[id^=form-report-control-A-]")
        expect(reports.first).to_be_visible()
        for _ in range(reports.count()):
            _follow(alice, "#actions form[id^=form-report-control-A-] button[type=submit]", bob)
        for page in (alice, bob):
            expect(page.locator("#result")).to_contain_text("Alice wins")
            expect(page.locator("#result-confirmed")).to_contain_text("Result confirmed")
            expect(page.locator("#timeline li").first).to_contain_text("The battle is over.")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390  # nothing overflows sideways on a phone
        match = alice.request.get(f"/api/v1/matches/{match_id}").json()
        assert match["status"] == "confirmed"
        assert match["view"]["round"] == 6
        log = alice.request.get(f"/api/v1/matches/{match_id}/log").json()
        kinds = [e["event"]["type"] for e in log["entries"]]
        for kind in ("dawn_rolled", "unit_arrived", "passengers_hit", "combat_resolved"):
            assert kind in kinds
        assert kinds.count("game_length_rolled") == 2
        assert kinds[-1] == "battle_ended"
    finally:
        alice_ctx.close()
        bob_ctx.close()
