"""The Black Reach pages' layout in a real browser (issue 16): rendered in process, with the
project's stylesheets and board script and no server, on a 375 px phone and a 1280 px
desktop. Layout facts only, no screenshots: nothing wider than the screen, the template's
preview drawn on the board where it is placed, its intercase and facing side by side, the
unit cards one column on the phone and side by side on the desktop, a heavy vehicle's weapon
boxes and Damage odds, a psyker's Perils odds, tap targets of a finger's size, and the content
editor (the tile form with its Damage set field) and a shared set's play forms."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from app.core.config import ROOT
from tests.e2e.test_black_reach_match import SHOOTAS, _client, _svg_point, slug

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

PHONE: dict[str, Any] = {
    "locale": "en-GB",
    "viewport": {"width": 375, "height": 812},
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP: dict[str, Any] = {"locale": "en-GB", "viewport": {"width": 1280, "height": 900}}
STYLES = ("app.css", "matches.css", "black-reach.css")


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    """The tests here replace the sample set-up the match system reads: its cached scenarios
    are dropped afterwards (a later sample match reads the shipped one again)."""
    yield
    from app.matches.systems import black_reach as system

    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


OVERFLOW = """() => {
    document.querySelectorAll("details").forEach(d => { d.open = true; });
    const width = document.documentElement.clientWidth;
    const wide = [];
    document.querySelectorAll("main *").forEach(el => {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) {
            wide.push(`${el.tagName}#${el.id}.${el.getAttribute("class") || ""}`);
        }
    });
    return {scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 8)};
}"""


def show(browser: Any, rendered: str, device: dict[str, Any]) -> Any:
    """A new page with ``rendered`` and the project's stylesheets and board script."""
    context = browser.new_context(**device)
    page = context.new_page()
    page.route("**/*", lambda route: route.abort())  # the page alone, no server
    page.set_content(rendered)
    for name in STYLES:
        page.add_style_tag(content=(ROOT / "static/css" / name).read_text())
    page.add_script_tag(content=(ROOT / "static/js/black-reach.js").read_text())
    return page


def assert_fits(page: Any) -> None:
    """No horizontal scrolling, and no element of the page sticks out of the screen (every
    folded form unfolded first)."""
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] <= found["width"], found
    assert found["wide"] == [], found


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return dict(found)


def big_enough(page: Any, selector: str, least: float = 40) -> None:
    """Every visible button of ``selector`` is at least ``least`` px tall (a finger)."""
    heights = page.evaluate(
        """(sel) => Array.from(document.querySelectorAll(sel))
            .filter(b => b.getClientRects().length)
            .map(b => [b.id || b.textContent.trim(), b.getBoundingClientRect().height])""",
        selector,
    )
    assert heights
    assert [h for h in heights if h[1] < least] == []


def test_the_match_page_on_a_phone_and_a_desktop(app, browser, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The Shootas' page with their templates (Tir Direct, Tir Indirect) facing the battle
    tank: fits at 375 px; the template's preview lands on the board where it is tapped; the
    cards stack on the phone and sit side by side on the desktop."""
    from app.matches.systems import black_reach as system
    from tests.matches.test_pages_black_reach import page_of, place_orders, two_players
    from tests.matches.test_pages_black_reach_actions import TANK, gunners_setup

    made = gunners_setup()
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)
    alice, bob, match_id = two_players(lambda name: _client(app, name), deployment="sample")
    place_orders(bob, match_id, (SHOOTAS, "orks:tiles[0]/0:sample-ork-nob"))
    place_orders(alice, match_id, (TANK,))
    rendered = page_of(bob, match_id).html
    page = show(browser, rendered, PHONE)
    try:
        board = box(page.locator("#br-board"))
        assert 330 <= board["width"] <= 375
        assert_fits(page)
        big_enough(page, "#br-play button")
        # the template: its intercase and facing on one row, then placed by a tap
        form = page.locator(f"#form-{slug(f'template_fire-{SHOOTAS}-ind')}")
        page.locator(f"#counter-{slug(SHOOTAS)}").click()
        tops = [box(form.locator(f'.template [name="{n}"]'))["y"] for n in ("x", "y", "facing")]
        assert max(tops) - min(tops) < 2, tops
        form.locator(".aim-template").click()
        page.wait_for_timeout(800)  # the board scrolled into view
        x, y = _svg_point(page, 3.2, 3.8)
        page.mouse.click(x, y)
        expect(form.locator('input[name="x"]')).to_have_value("3")
        preview = page.locator("#br-preview rect")
        expect(preview.first).to_be_visible()
        # measured at one moment (the page scrolls smoothly to the form): every square of
        # the preview is a board square's size, inside the board
        placed = page.evaluate(
            """() => {
                const b = document.getElementById("br-board").getBoundingClientRect();
                return Array.from(document.querySelectorAll("#br-preview rect")).map(r => {
                    const c = r.getBoundingClientRect();
                    return [c.width, c.left - b.left, b.right - c.right, c.top - b.top,
                            b.bottom - c.bottom];
                });
            }"""
        )
        assert len(placed) == 12
        for width, *margins in placed:
            assert width > 20  # a square of the board (about 40 px at 375 px), not a dot
            assert min(margins) >= 0, margins
        # the cards: one column, each as wide as the list
        cards = page.locator("#units-mine > li, #units-theirs > li")
        assert cards.count() >= 3
        listed = box(page.locator("#units-theirs"))
        for i in range(cards.count()):
            assert box(cards.nth(i))["width"] > listed["width"] - 4
        tank = page.locator(f"#unit-{slug(TANK)}")
        assert tank.locator(".weapon").count() >= 1
        inside = box(tank)
        for i in range(tank.locator(".weapon").count()):
            w = box(tank.locator(".weapon").nth(i))
            assert w["x"] + w["width"] <= inside["x"] + inside["width"] + 0.5
    finally:
        page.context.close()
    page = show(browser, rendered, DESKTOP)
    try:
        assert_fits(page)
        cards = page.locator("#units-mine > li")
        assert cards.count() >= 2
        first, second = box(cards.nth(0)), box(cards.nth(1))
        assert abs(first["y"] - second["y"]) < 2  # side by side
        assert second["x"] > first["x"] + first["width"] - 1
        assert box(page.locator("#br-board"))["width"] <= 40 * 16 + 1  # 40rem at most
    finally:
        page.context.close()


def test_a_heavy_vehicle_fires_and_a_psyker_manifests_on_a_phone(app, browser, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The tank's fire form (a box per weapon, each target's odds, the Damage odds of a shot
    at it) and a Weirdboy's powers (Perils odds, the shared marker, Da Krunch's template) fit
    at 375 px; choosing a weapon's target leaves that shot's odds alone in view."""
    from app.matches.systems import black_reach as system
    from tests.engine.black_reach.battle import test_heavy_vehicles as armour
    from tests.engine.black_reach.battle import test_psykers as psykers
    from tests.matches.test_pages_black_reach import page_of, place_orders, post_form, two_players

    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: armour.setup())
    alice, bob, match_id = two_players(lambda name: _client(app, name), deployment="sample")
    place_orders(bob, match_id, (armour.SHOOTAS, armour.NOB))
    place_orders(alice, match_id, (armour.TANK,))
    at_tank = page_of(bob, match_id)
    page = show(browser, at_tank.html, PHONE)
    try:
        expect(page.locator("table.damage").first).to_be_attached()
        assert_fits(page)
    finally:
        page.context.close()
    shot = next(
        n.attributes["id"]
        for n in at_tank.css("form.action-shoot")
        if n.css_first("table.damage") is not None
    )
    post_form(bob, match_id, f"#{shot}", page=at_tank, dice="2 5")
    page = show(browser, page_of(alice, match_id).html, PHONE)
    try:
        assert_fits(page)
        fire = page.locator(f"#form-vehicle-fire-{slug(armour.TANK)}")
        weapon = fire.locator("fieldset.weapon").first
        inside = box(fire)
        assert box(weapon)["width"] <= inside["width"]
        choices = weapon.locator(".weapon-choice")
        assert choices.count() >= 2
        chosen = f"0|{armour.NOB}"
        weapon.locator("select").select_option(chosen)
        expect(weapon.locator(f'.weapon-choice[data-value="{chosen}"]')).to_be_visible()
        for i in range(choices.count()):
            if choices.nth(i).get_attribute("data-value") != chosen:
                expect(choices.nth(i)).to_be_hidden()
        card = page.locator(f"#unit-{slug(armour.TANK)}")
        expect(card.locator(".chip.damage")).to_be_visible()
        expect(card.locator(".weapon.lost")).to_have_css("text-decoration-line", "line-through")
    finally:
        page.context.close()

    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: psykers.setup())
    alice, bob, match_id = two_players(lambda name: _client(app, f"{name}2"), deployment="sample")
    place_orders(bob, match_id, (psykers.SHOOTAS, psykers.WEIRDBOY, psykers.NOB))
    place_orders(alice, match_id, (psykers.LIBRARIAN, psykers.TACTICAL, psykers.SERGEANT))
    # as in test_pages_black_reach_actions: the Shootas shoot, the Librarian heals, then the
    # Weirdboy's powers are offered
    post_form(
        bob, match_id, f"#form-shoot-{slug(psykers.SHOOTAS)}-{slug(psykers.TACTICAL)}", dice="3"
    )
    heal = f"#form-manifest-{slug(psykers.LIBRARIAN)}-sample-um-endurance-{slug(psykers.TACTICAL)}"
    post_form(alice, match_id, heal, dice="4")
    page = show(browser, page_of(bob, match_id).html, PHONE)
    try:
        assert_fits(page)
        gaze = page.locator(f"#form-manifest-{slug(psykers.WEIRDBOY)}-test-weirdboy-gaze")
        for table in ("table.perils", "table.perils-shared"):
            expect(gaze.locator(table)).to_be_visible()
            assert box(gaze.locator(table))["width"] <= box(gaze)["width"]
        krunch = page.locator(f"#form-manifest-{slug(psykers.WEIRDBOY)}-sample-ork-krunch")
        expect(krunch.locator(".aim-template")).to_be_visible()
        big_enough(page, "#br-play button")
    finally:
        page.context.close()


def test_the_content_editor_and_a_shared_set_on_a_phone(app, browser) -> None:  # type: ignore[no-untyped-def]
    """The editor of one's set (the counter's faces, the tile form with its Damage set field,
    the scenario form) and a shared set's play forms fit at 375 px; on the desktop the tile
    form's short fields sit side by side."""
    from tests.support.web import csrf, html

    alice = _client(app, "Editor")
    token = csrf(alice, "/black-reach/content")
    r = alice.post(
        "/black-reach/content/sample/copy", data={"csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    path = r.headers["location"]
    editor = alice.get(path).text
    page = show(browser, editor, PHONE)
    try:
        assert_fits(page)
        damage_set = page.locator('#tile-form select[name="damage_set"]')
        expect(damage_set).to_be_visible()
        assert box(damage_set)["width"] >= 150
    finally:
        page.context.close()
    page = show(browser, editor, DESKTOP)
    try:
        assert_fits(page)
        grid = page.evaluate("() => getComputedStyle(document.getElementById('tile-form')).display")
        assert grid == "grid"
        # the Breaking Point, the VP, the Order stars and the Damage set on one row
        rows = {
            round(box(page.locator(f'#tile-form [name="{n}"]'))["y"])
            for n in ("breaking_point", "victory_points", "order_stars", "damage_set")
        }
        assert len(rows) == 1, rows
        # two short fields of one face side by side
        dv = box(page.locator('#face-0 input[name="faces[0].dv"]'))
        mv = box(page.locator('#face-0 input[name="faces[0].mv"]'))
        assert abs(dv["y"] - mv["y"]) < 2
    finally:
        page.context.close()
    r = alice.post(f"{path}/share", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code in (200, 303), r.text
    shared = html(alice.get(path)).css_first("#share-link").attributes["href"]
    bob = _client(app, "Reader")
    page = show(browser, bob.get(str(shared)).text, PHONE)
    try:
        assert_fits(page)
        form = page.locator("#play-0")
        expect(form).to_be_visible()
        big_enough(page, "#play-shared button")
    finally:
        page.context.close()


def test_a_flame_is_previewed_on_the_board_when_its_target_is_tapped(
    app, browser, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The Shootas with a flamer: a tap on them, then on the Sergeant, opens the flames that
    reach him and draws the squares of the first one on the board (the page fits at 375 px)."""
    from app.matches.systems import black_reach as system
    from tests.engine.black_reach.battle import test_flamer as flamer
    from tests.matches.test_pages_black_reach import page_of, place_orders, two_players

    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: flamer.setup())
    alice, bob, match_id = two_players(lambda name: _client(app, f"{name}3"), deployment="sample")
    place_orders(bob, match_id, (flamer.SHOOTAS, flamer.NOB))
    place_orders(alice, match_id, (flamer.TACTICAL, flamer.SERGEANT))
    page = show(browser, page_of(bob, match_id).html, PHONE)
    try:
        assert_fits(page)
        page.locator(f"#counter-{slug(flamer.SHOOTAS)}").click()
        page.locator(f"#counter-{slug(flamer.SERGEANT)}").click()
        chosen = page.locator("form.action-flame.chosen")
        expect(chosen.first).to_be_visible()
        reached = json.loads(chosen.first.get_attribute("data-reached") or "[]")
        assert reached
        drawn = page.evaluate(
            """() => Array.from(document.querySelectorAll("#br-preview rect.flame"))
                .map(r => [Math.round(parseFloat(r.getAttribute("x"))),
                           Math.round(parseFloat(r.getAttribute("y")))])"""
        )
        assert sorted(drawn) == sorted(reached)
        # another unit tapped: the preview goes
        page.locator(f"#counter-{slug(flamer.NOB)}").click()
        assert page.locator("#br-preview rect").count() == 0
    finally:
        page.context.close()
