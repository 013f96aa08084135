"""In a real browser: a club admin creates a league, two members register with ready lists,
a round is generated, one player reports the result and the other confirms it (htmx swaps),
and the standings follow. Phone-sized screenshots of the league page are kept in tmp_path."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

PASSWORD = "a long enough password"
PHONE = {"width": 390, "height": 844}

UNITS: list[dict[str, Any]] = [
    {
        "datasheet": "Captain",
        "enhancements": ["Artificer Armour"],
        "warlord": True,
        "attached_to": 2,
    },
    {"datasheet": "Lieutenant", "attached_to": 3},
    {"datasheet": "Intercessor Squad", "models": 10},
    {"datasheet": "Intercessor Squad", "models": 5},
    {"datasheet": "Rhino"},
    {"datasheet": "Redemptor Dreadnought"},
    {"datasheet": "Hellblaster Squad", "models": 5},
]


def _person(browser, live_server: str, name: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server, locale="en-GB", viewport=PHONE)
    page = context.new_page()
    page.goto("/register")
    page.fill("input[name=email]", f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.com")
    page.fill("input[name=display_name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password_confirm]", PASSWORD)
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#account-link")
    return context, page


def _csrf(context) -> str:  # type: ignore[no-untyped-def]
    """The session's CSRF token, as a page repeats it (it is bound to the session)."""
    page = context.request.get("/account").text()
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def _ready_list(context, name: str) -> None:  # type: ignore[no-untyped-def]
    headers = {"X-CSRF-Token": _csrf(context)}
    created = context.request.post(
        "/api/v1/armies",
        data={
            "name": name,
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "incursion",
            "units": UNITS,
        },
        headers=headers,
    )
    assert created.status == 201, created.text()
    army_id = created.json()["id"]
    ready = context.request.patch(
        f"/api/v1/armies/{army_id}", data={"status": "ready"}, headers=headers
    )
    assert ready.status == 200, ready.text()


def _fits_a_phone(page, path) -> None:  # type: ignore[no-untyped-def]
    page.screenshot(path=str(path), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} scrolls sideways on a phone ({width}px)"


def test_a_league_from_creation_to_confirmed_standings(browser, live_server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    owner_ctx, owner = _person(browser, live_server, "Organiser")
    owner.goto("/clubs")
    owner.fill("#club-form input[name=name]", "Les Dés Rouges")
    owner.click("#club-form button[type=submit]")
    owner.wait_for_selector("#club-name")
    club_url = owner.url
    owner.click("#invite-form button[type=submit]")
    invite = owner.locator("#new-invite code").inner_text().strip()

    players = {}
    for name in ("Alice", "Bruno"):
        context, page = _person(browser, live_server, name)
        page.goto(invite)
        page.click("#join-form button[type=submit]")
        page.wait_for_selector("#your-role")
        _ready_list(context, f"{name}'s Gladius")
        players[name] = (context, page)

    # the admin creates the league from the club page
    owner.goto(club_url)
    owner.click("#new-league summary")
    _fits_a_phone(owner, tmp_path / "club-new-league-phone.png")
    owner.fill("#league-form input[name=name]", "Autumn League")
    owner.select_option("#league-form select[name=rule_system]", "wh40k-10e")
    owner.select_option("#league-form select[name=format]", "round_robin")
    owner.fill("#league-form textarea[name=mission_pool]", "Take and Hold\nSupply Drop")
    owner.click("#league-form button[type=submit]")
    owner.wait_for_selector("#league-name")
    league_url = owner.url
    assert owner.locator("#league-status").inner_text() == "Registration open"

    for name, (_context, page) in players.items():
        page.goto(league_url)
        assert f"{name}'s Gladius" in page.locator("#register-form select").inner_text()
        page.click("#register-form button[type=submit]")
        page.wait_for_selector("#your-registration")

    owner.goto(league_url)
    owner.click("#generate-round-form button[type=submit]")
    owner.wait_for_selector("#round-games .game-card")
    assert owner.locator("#league-status").inner_text() == "Running"
    owner.screenshot(path=str(tmp_path / "league-round-phone.png"), full_page=True)

    # Alice reports from her card: the game page, then the form (htmx swaps the page part)
    alice = players["Alice"][1]
    alice.goto(league_url)
    alice.click("#my-games .game-card a.button")
    alice.wait_for_selector("#report-form")
    _fits_a_phone(alice, tmp_path / "game-report-phone.png")
    names = alice.locator("#game-title").inner_text()
    alice_side = "player_a" if names.startswith("Alice") else "player_b"
    alice.check(f"#report-form input[name=result][value={alice_side}]")
    alice.fill("#report-form input[name=vp_a]", "72" if alice_side == "player_a" else "40")
    alice.fill("#report-form input[name=vp_b]", "40" if alice_side == "player_a" else "72")
    alice.click("#report-form button[type=submit]")
    alice.wait_for_selector(".game-card[data-status=reported]")
    assert "waiting for confirmation" in alice.locator(".game-result").inner_text()

    # Bruno opens the league page; Alice then corrects her score. Bruno's confirm from the
    # page he opened confirms nothing: the card comes back with the corrected result
    bruno = players["Bruno"][1]
    bruno.goto(league_url)
    card = bruno.locator("#my-games .game-card")
    assert "Your confirmation is needed" in card.inner_text()
    alice.fill("#report-form input[name=vp_a]", "75" if alice_side == "player_a" else "40")
    alice.fill("#report-form input[name=vp_b]", "40" if alice_side == "player_a" else "75")
    alice.click("#report-form button[type=submit]")
    alice.wait_for_selector(".game-card .score:has-text('75')")
    assert "75" not in card.locator(".score").inner_text()  # Bruno still sees the old score
    bruno.click("#my-games .confirm-form button")
    bruno.wait_for_selector("#my-games .game-card [role=alert]")
    assert "changed after you opened this page" in card.locator("[role=alert]").inner_text()
    assert "75" in card.locator(".score").inner_text()
    assert card.get_attribute("data-status") == "reported"

    # Bruno confirms the corrected result: the card is swapped in place
    bruno.click("#my-games .confirm-form button")
    bruno.wait_for_selector("#my-games .game-card[data-status=confirmed]")
    assert bruno.url == league_url  # no page load: htmx swapped the card

    bruno.reload()
    first = bruno.locator("#standings-table tbody tr").first
    assert "Alice" in first.inner_text()
    assert first.locator(".points").inner_text() == "3"
    _fits_a_phone(bruno, tmp_path / "league-standings-phone.png")

    owner.goto(club_url)
    ratings = owner.locator("#elo-wh40k-10e tbody tr")
    assert ratings.count() == 2
    assert ratings.first.locator(".rating").inner_text() == "1516"
    for context in [owner_ctx, *(c for c, _p in players.values())]:
        context.close()
