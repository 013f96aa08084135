"""Heroes of Black Reach played on its board in a real browser (issue 16): one full turn hot
seat on one phone (the hand-off screen between the players, never showing the other's
tokens), and a turn on two phones (each page follows the other live). The units are moved by
tapping the counter, then a highlighted square; a shot by tapping the target, then "Fire" under
its exact odds (its die given by hand, so the turn is the same every run)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.test_match_tracker import SHOTS, _register

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
MARINES = (BOLTER, TACTICAL, SERGEANT)
ORKS = (BOYZ1, BOYZ2, NOB, SHOOTAS)
PHONE: dict[str, Any] = {
    "locale": "en-GB",
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
}


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)


def version(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("#match-state").get_attribute("data-version") or ""


def acted(page, before: str, *watchers) -> str:  # type: ignore[no-untyped-def]
    """Wait until ``page`` shows a version after ``before``, then until every watcher does."""
    expect(page.locator("#match-state")).not_to_have_attribute("data-version", before)
    now = version(page)
    for w in watchers:
        w.wait_for_selector(f"#match-state[data-version='{now}']", timeout=10_000)
    return now


def place_orders(page, units: tuple[str, ...], *watchers) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    for n, unit in enumerate(units, 1):
        page.locator(f'#form-place-orders select[name="order.{unit}"]').select_option(f"n:{n}")
    page.click("#form-place-orders button[type=submit]")
    acted(page, before, *watchers)


def tap_move(page, unit: str, x: int, y: int, *watchers) -> None:  # type: ignore[no-untyped-def]
    """Tap the unit's counter, then the square (highlighted): the move is sent."""
    before = version(page)
    page.locator(f"#counter-{slug(unit)}").click()
    square = page.locator(f'#br-board rect.sq[data-x="{x}"][data-y="{y}"]')
    expect(square).to_have_class("sq hl")
    square.click()
    acted(page, before, *watchers)
    for p in (page, *watchers):
        if p.locator("#hand-off").count():
            continue  # hot seat: the device goes to the other player first
        moved = p.locator(f"#counter-{slug(unit)}")
        expect(moved).to_have_attribute("data-x", str(x))
        expect(moved).to_have_attribute("data-y", str(y))


def tap_shot(page, unit: str, target: str, die: int, *watchers) -> None:  # type: ignore[no-untyped-def]
    """Tap the shooter, then the target: its shot form opens with the exact odds; the die is
    given by hand, then "Fire"."""
    before = version(page)
    page.locator(f"#counter-{slug(unit)}").click()
    page.locator(f"#counter-{slug(target)}").click()
    form = page.locator(f"#form-{slug(f'shoot-{unit}-{target}')}")
    expect(form).to_be_visible()
    expect(form).to_have_class("action action-shoot chosen")
    expect(form.locator("tr[data-outcome=step]")).to_be_visible()  # the odds, before firing
    form.locator("details.hand-dice summary").click()
    form.locator("input[name=dice]").fill(str(die))
    form.locator("button[type=submit]").click()
    acted(page, before, *watchers)


def tap_hold(page, unit: str, *watchers) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    page.locator(f"#counter-{slug(unit)}").click()
    page.locator(f"#form-hold-{slug(unit)} button[type=submit]").click()
    acted(page, before, *watchers)


def click(page, selector: str, *watchers) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    page.click(selector)
    acted(page, before, *watchers)


def hand_to(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The hand-off screen: no board and no token of either player until "I am <name>"."""
    expect(page.locator("#i-am")).to_contain_text(f"I am {name}")
    html = page.locator("#match-state").inner_html()
    assert "br-board" not in html
    assert 'class="token"' not in html
    assert "face-down" not in html
    page.click("#i-am")
    expect(page.locator("#playing-as")).to_contain_text(name)


def new_match(page, *, hot_seat: bool, deployment: str = "sample") -> None:  # type: ignore[no-untyped-def]
    page.goto("/matches?ruleset=black-reach")
    page.select_option('select[name="option.deployment"]', deployment)
    page.select_option('select[name="option.hot_seat"]', "1" if hot_seat else "")
    if not hot_seat:
        page.check("input[name=opponent][value=guest]")
    page.click("#new-match-form button[type=submit]")


def test_a_turn_hot_seat_on_one_phone(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(base_url=live_server, **PHONE)
    try:
        page = ctx.new_page()
        _register(page, f"e2e-br-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        new_match(page, hot_seat=True)
        page.fill("#hot-seat-form input[name=name]", "Bruno")
        page.click("#hot-seat-start")
        page.wait_for_selector("#br-board")
        expect(page.locator("#playing-as")).to_contain_text("Alice")
        page.screenshot(path=str(SHOTS / "auspex-black-reach-390x844.png"), full_page=False)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # the Order phase: Alice's tokens, then the device goes to Bruno
        place_orders(page, MARINES)
        hand_to(page, "Bruno")
        assert page.locator(f"#counter-{slug(BOLTER)} circle.face-down").count() == 1
        place_orders(page, ORKS)
        # the activations, in token order: Bruno goes on with his token 1
        expect(page.locator("#playing-as")).to_contain_text("Bruno")
        tap_move(page, BOYZ1, 4, 6)
        hand_to(page, "Alice")
        tap_shot(page, BOLTER, BOYZ1, 4)  # 4 + 3 - 2 = 5 against 4: one step
        expect(page.locator("#timeline")).to_contain_text("Sample boyz loses 1 step(s).")
        hand_to(page, "Bruno")
        tap_move(page, BOYZ2, 5, 6)
        hand_to(page, "Alice")
        tap_shot(page, TACTICAL, BOYZ1, 1)
        hand_to(page, "Bruno")
        tap_move(page, NOB, 3, 7)
        hand_to(page, "Alice")
        tap_move(page, SERGEANT, 3, 4)
        hand_to(page, "Bruno")
        tap_hold(page, SHOOTAS)
        # the Reserve phase: the side with the initiative first, then the other
        click(page, "form.action-end_reserve button[type=submit]")
        hand_to(page, "Alice")
        click(page, "form.action-end_reserve button[type=submit]")
        # turn 2 begins with the Order phase, Alice first
        expect(page.locator("#round")).to_contain_text("2")
        expect(page.locator("#form-place-orders")).to_be_visible()
    finally:
        ctx.close()


def test_a_turn_on_two_phones(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    alice_ctx = browser.new_context(base_url=live_server, **PHONE)
    guest_ctx = browser.new_context(base_url=live_server, **PHONE)
    try:
        alice = alice_ctx.new_page()
        _register(alice, f"e2e-br-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        new_match(alice, hot_seat=False)
        alice.wait_for_selector("#guest-link")
        link = alice.locator("#guest-link").get_attribute("href")
        assert link
        guest = guest_ctx.new_page()
        guest.goto(link)
        guest.fill("input[name=name]", "Gob")
        guest.click("#guest-form button[type=submit]")
        guest.wait_for_selector("#match-state[data-seat=B] #br-board")
        alice.wait_for_selector("#br-board", timeout=10_000)  # her page follows, no reload
        # each places its tokens on its own phone; neither sees the other's
        place_orders(guest, ORKS, alice)
        assert alice.locator(f"#counter-{slug(BOYZ1)} text.token").count() == 0
        assert alice.locator(f"#counter-{slug(BOYZ1)} circle.face-down").count() == 1
        place_orders(alice, MARINES, guest)
        assert guest.locator(f"#counter-{slug(BOLTER)} text.token").count() == 0
        tap_move(guest, BOYZ1, 4, 6, alice)
        expect(alice.locator(f"#counter-{slug(BOYZ1)}")).to_have_attribute("data-y", "6")
        expect(alice.locator(f"#counter-{slug(BOYZ1)} text.token")).to_have_text("1")  # played
        tap_shot(alice, BOLTER, BOYZ1, 4, guest)
        tap_move(guest, BOYZ2, 5, 6, alice)
        tap_shot(alice, TACTICAL, BOYZ1, 1, guest)
        tap_move(guest, NOB, 3, 7, alice)
        tap_move(alice, SERGEANT, 3, 4, guest)
        tap_hold(guest, SHOOTAS, alice)
        click(guest, "form.action-end_reserve button[type=submit]", alice)
        click(alice, "form.action-end_reserve button[type=submit]", guest)
        for page in (alice, guest):
            expect(page.locator("#round")).to_contain_text("2")
            expect(page.locator("#form-place-orders")).to_be_visible()
    finally:
        alice_ctx.close()
        guest_ctx.close()


def test_deploying_by_tapping_a_counter_then_a_square(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(base_url=live_server, **PHONE)
    try:
        page = ctx.new_page()
        _register(page, f"e2e-br-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        new_match(page, hot_seat=True, deployment="players")
        page.fill("#hot-seat-form input[name=name]", "Bruno")
        page.click("#hot-seat-start")
        page.wait_for_selector("#br-tray")
        # a counter of the tray, then a square of the deployment zone (highlighted)
        before = version(page)
        page.locator(f"#tray-{slug(SERGEANT)}").click()
        square = page.locator('#br-board rect.sq[data-x="1"][data-y="1"]')
        expect(square).to_have_class("sq hl")
        assert page.locator("#br-board rect.sq.hl").count() > 1
        square.click()
        acted(page, before)
        counter = page.locator(f"#counter-{slug(SERGEANT)}")
        expect(counter).to_have_attribute("data-x", "1")
        expect(counter).to_have_attribute("data-y", "1")
        assert page.locator(f"#tray-{slug(SERGEANT)}").count() == 0
        # tapped again on the board, it moves to another square of the zone
        before = version(page)
        counter.click()
        page.locator('#br-board rect.sq[data-x="3"][data-y="0"]').click()
        acted(page, before)
        expect(page.locator(f"#counter-{slug(SERGEANT)}")).to_have_attribute("data-x", "3")
    finally:
        ctx.close()


TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"


def test_infantry_gets_into_its_transport_by_tapping_it(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    """Hot seat: the tactical squad is tapped, then its transport: the form to get in opens
    with the squares next to the transport; sent, the squad leaves the board and rides in
    it (a "+1" on the transport, a chip to tap it out again)."""
    ctx = browser.new_context(base_url=live_server, **PHONE)
    try:
        page = ctx.new_page()
        _register(page, f"e2e-br-{uuid.uuid4().hex[:8]}@example.com", "Alice")
        new_match(page, hot_seat=True)
        page.fill("#hot-seat-form input[name=name]", "Bruno")
        page.click("#hot-seat-start")
        page.wait_for_selector("#br-board")
        place_orders(page, (TACTICAL, BOLTER, SERGEANT))
        hand_to(page, "Bruno")
        place_orders(page, ORKS)
        tap_hold(page, BOYZ1)
        hand_to(page, "Alice")
        before = version(page)
        page.locator(f"#counter-{slug(TACTICAL)}").click()
        page.locator(f"#counter-{slug(TRANSPORT)} rect").last.click(force=True)  # its square
        form = page.locator(f"#form-{slug(f'embark-{TACTICAL}-{TRANSPORT}')}")
        expect(form).to_be_visible()
        expect(form).to_have_class("action action-embark chosen")
        option = form.locator('select[name="path"] option[data-to="4,2"]')
        form.locator('select[name="path"]').select_option(option.get_attribute("value"))
        form.locator("button[type=submit]").click()
        acted(page, before)
        hand_to(page, "Bruno")
        expect(page.locator(f"#counter-{slug(TRANSPORT)} text.passengers")).to_have_text("+1")
        assert page.locator(f"#counter-{slug(TACTICAL)}").count() == 0
        expect(page.locator("#timeline")).to_contain_text(
            "Sample tactical squad gets into Sample transport."
        )
        tap_hold(page, BOYZ2)
        hand_to(page, "Alice")
        expect(page.locator(f"#aboard-{slug(TACTICAL)}")).to_contain_text("in Sample transport")
    finally:
        ctx.close()


# -- the board script on a template (no live server: the page rendered in process) ---------------


def _client(app: Any, name: str) -> Any:
    from fastapi.testclient import TestClient

    from tests.support.web import csrf, register

    client = TestClient(app, base_url="http://testserver")
    register(client, email=f"{name.lower()}@example.com", name=name)
    client.csrf = csrf(client, "/matches")  # type: ignore[attr-defined]
    client.headers["X-CSRF-Token"] = client.csrf  # type: ignore[attr-defined]
    return client


def _svg_point(page, x: float, y: float) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Where the board's point (x, y) is on the screen."""
    at = page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById("br-board");
            const p = svg.createSVGPoint();
            p.x = x; p.y = y;
            const s = p.matrixTransform(svg.getScreenCTM());
            return [s.x, s.y];
        }""",
        [x, y],
    )
    return float(at[0]), float(at[1])


def test_a_template_is_placed_by_a_tap_and_previewed(  # type: ignore[no-untyped-def]
    app, browser, monkeypatch
) -> None:
    """The Shootas' Tir Indirect (template L): its form armed, a tap near the intercase
    (3, 4) fills the form's x and y, and the template's 12 squares are drawn there; turned or
    typed in, the preview follows."""
    from app.core.config import ROOT
    from app.matches.systems import black_reach as system
    from tests.matches.test_pages_black_reach import page_of, place_orders, two_players
    from tests.matches.test_pages_black_reach_actions import gunners_setup

    made = gunners_setup()
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)
    alice, bob, match_id = two_players(lambda name: _client(app, name), deployment="sample")
    place_orders(bob, match_id, (SHOOTAS, NOB))
    place_orders(alice, match_id, ("ultramarines:tiles[0]/0:sample-um-battle-tank",))
    rendered = page_of(bob, match_id).html
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.route("**/*", lambda route: route.abort())  # the page alone, no server
        page.set_content(rendered)
        page.add_script_tag(content=(ROOT / "static/js/black-reach.js").read_text())
        form = page.locator(f"#form-{slug(f'template_fire-{SHOOTAS}-ind')}")
        page.locator(f"#counter-{slug(SHOOTAS)}").click()  # its forms open
        form.locator(".aim-template").click()
        expect(page.locator("#br-hint")).to_contain_text("intercase")
        page.wait_for_timeout(1000)  # the board scrolled into view
        x, y = _svg_point(page, 3.2, 3.8)  # the nearest intercase: (3, 4)
        page.mouse.click(x, y)
        expect(form.locator('input[name="x"]')).to_have_value("3")
        expect(form.locator('input[name="y"]')).to_have_value("4")
        squares = json.loads(form.locator(".template").get_attribute("data-squares") or "{}")

        def drawn(ix: int = 3, iy: int = 4) -> list[list[int]]:
            """The preview's squares as offsets from the intercase (ix, iy)."""
            cells = page.evaluate(
                """() => Array.from(document.querySelectorAll("#br-preview rect"))
                    .map(r => [parseFloat(r.getAttribute("x")), parseFloat(r.getAttribute("y"))])"""
            )
            return sorted([round(cx - 0.04) - ix, round(cy - 0.04) - iy] for cx, cy in cells)

        assert drawn() == sorted(squares["N"])
        assert len(drawn()) == 12
        form.locator('.template select[name="facing"]').select_option("E")
        assert drawn() == sorted(squares["E"])  # the sample L is the same turned
        # typed by hand (no tap): the preview follows the intercase
        form.locator('input[name="x"]').fill("5")
        assert drawn(5, 4) == sorted(squares["E"])
        # a second tap on the button: placing ends, the preview goes
        form.locator(".aim-template").click()
        assert drawn() == []
    finally:
        context.close()
