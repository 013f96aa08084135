"""Tir en Mouvement from the Black Reach board in a real browser (issue 16, rulings 136): hot
seat on one phone, Bruno taps his buggy, picks its target in the move form ("Tir en
Mouvement: one shot during the move"), then taps the square it drives to: the move and its
shot are sent together (the die rolled by the match)."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.test_black_reach_match import (
    BOYZ1,
    MARINES,
    NOB,
    PHONE,
    SHOOTAS,
    acted,
    hand_to,
    new_match,
    place_orders,
    slug,
    version,
)
from tests.e2e.test_match_tracker import _register

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"


def test_a_tir_en_mouvement_hot_seat_on_one_phone(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(base_url=live_server, **PHONE)
    try:
        page = ctx.new_page()
        _register(page, f"e2e-br-fire-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        new_match(page, hot_seat=True)
        page.fill("#hot-seat-form input[name=name]", "Bruno")
        page.click("#hot-seat-start")
        expect(page.locator("#playing-as")).to_contain_text("Alice")
        place_orders(page, MARINES)
        hand_to(page, "Bruno")
        place_orders(page, (BUGGY, BOYZ1, NOB, SHOOTAS))
        expect(page.locator("#playing-as")).to_contain_text("Bruno")
        before = version(page)
        page.locator(f"#counter-{slug(BUGGY)}").click()
        form = page.locator(f"#form-move-{slug(BUGGY)}")
        expect(form.locator("fieldset.fire-during")).to_be_visible()
        form.locator("select[name=fire_at]").select_option(TRANSPORT)
        square = page.locator('#br-board rect.sq[data-x="6"][data-y="8"]')
        expect(square).to_have_class("sq hl")
        square.click()
        acted(page, before)
        hand_to(page, "Alice")
        timeline = page.locator("#timeline")
        expect(timeline).to_contain_text("Sample buggy moves to (6, 8).")
        expect(timeline).to_contain_text("Sample buggy shoots Sample transport")
    finally:
        ctx.close()
