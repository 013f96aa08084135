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
        # the roll-off's result where each player looks: a banner naming both dice
        for page in (alice, guest):
            expect(page.locator("#last-roll")).to_contain_text("Alice rolled")
            expect(page.locator("#last-roll")).to_contain_text("Gob")
            assert page.locator("#last-roll").is_visible()
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


def _follow(actor, selector: str, *watchers) -> str:  # type: ignore[no-untyped-def]
    """Click ``selector`` on ``actor``'s page; wait until the action is written and every
    watcher's page shows that version (live, without a reload)."""
    before = actor.locator("#match-state").get_attribute("data-version")
    actor.locator(selector).first.click()
    expect(actor.locator("#match-state")).not_to_have_attribute("data-version", before or "")
    now = actor.locator("#match-state").get_attribute("data-version") or ""
    for watcher in watchers:
        watcher.wait_for_selector(f"#match-state[data-version='{now}']", timeout=10_000)
    return now


def _view(alice, match_id: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    r = alice.request.get(f"/api/v1/matches/{match_id}")
    assert r.status == 200, r.text()
    return r.json()["view"]  # type: ignore[no-any-return]


SETUP_STEPS = (
    "#formation-form button[type=submit]",
    "form.action-roll_off button[type=submit]",
    "form.action-place_objective button[type=submit]",
    "form.action-deploy_unit button[type=submit]",
    "form.action-end_scouts button[type=submit]",
)


def _set_up(alice, guest, match_id: str) -> None:  # type: ignore[no-untyped-def]
    """Every set-up step through the two pages: roll-offs, objectives, formations (Alice's
    Captain leads her Intercessors), deployment, Scouts."""
    declared: set[str] = set()  # a formation may be re-declared until both are in: once here
    for _ in range(80):
        if _view(alice, match_id)["stage"] == "battle":
            return
        for me, other in ((alice, guest), (guest, alice)):
            seat = me.locator("#match-state").get_attribute("data-seat") or ""
            steps = [s for s in SETUP_STEPS if seat not in declared or "formation" not in s]
            step = next((s for s in steps if me.locator(s).count()), None)
            if step is not None and "formation" in step:
                declared.add(seat)
            if step is not None:
                _follow(me, step, other)
                break
        else:
            raise AssertionError("neither page offers the next set-up step")
    raise AssertionError("set-up did not end")


def _dice(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator("#resolution .die").all_inner_texts()  # type: ignore[no-any-return]


def _shoot_and_undo(alice, guest) -> None:  # type: ignore[no-untyped-def]
    """Alice's Intercessors shoot their Bolt Rifles; she asks to undo; the guest approves on
    the phone; the same roll sent again draws the same dice; a weapon fires once a phase."""
    shoot = alice.locator("form.action-shoot").filter(has_text="Intercessor")
    before = alice.locator("#match-state").get_attribute("data-version")
    shoot.locator("button[type=submit]").click()
    expect(alice.locator("#match-state")).not_to_have_attribute("data-version", before or "")
    combat = alice.locator("section.combat").first
    expect(combat.locator("h2")).to_contain_text("Intercessor Squad + Captain")
    combat.locator("input[name=weapon]").evaluate_all(
        "boxes => boxes.forEach(b => b.checked = false)"
    )
    rifle = combat.locator("input[name=weapon][value$='|Bolt Rifle']")
    rifle.check()
    _follow(alice, "section.combat button[name=do][value=roll]", guest)
    first = _dice(alice)
    assert first, "the roll shows its dice"
    # the Bolt Rifles have fired: the form offers only the weapons left
    combat = alice.locator("section.combat").first
    expect(combat.locator("input[name=weapon][value$='|Bolt Rifle']")).to_have_count(0)
    # the form names what was used, unless the volley left nothing to shoot at (how many
    # models fall depends on the match's dice)
    if combat.count():
        expect(combat.locator(".weapons-used")).to_contain_text("Bolt Rifle")

    # Alice asks to undo; nothing is undone until the guest answers on the phone
    expect(alice.locator("#undo-button")).to_contain_text("Ask to undo")
    _follow(alice, "#undo-button", guest)
    expect(alice.locator("#undo-request")).to_contain_text("waiting for")
    guest.locator("#approve-undo-button").scroll_into_view_if_needed()
    expect(guest.locator("#undo-request")).to_contain_text("asks to undo")
    _follow(guest, "#approve-undo-button", alice)
    expect(alice.locator("#undo-request")).to_have_count(0)
    # both timelines keep the undone roll, struck through
    for page in (alice, guest):
        expect(page.locator("#timeline li.undone-entry")).to_have_count(1)
        expect(page.locator("#timeline li.undone-entry del")).to_contain_text("Dice:")

    # the weapons are back; the same roll again draws the same dice
    combat = alice.locator("section.combat").first
    combat.locator("input[name=weapon]").evaluate_all(
        "boxes => boxes.forEach(b => b.checked = false)"
    )
    combat.locator("input[name=weapon][value$='|Bolt Rifle']").check()
    _follow(alice, "section.combat button[name=do][value=roll]", guest)
    assert _dice(alice) == first
    # and once more is refused: the Bolt Rifles are no longer offered
    expect(alice.locator("section.combat input[name=weapon][value$='|Bolt Rifle']")).to_have_count(
        0
    )


def _end_phase(me, watcher) -> None:  # type: ignore[no-untyped-def]
    """End the phase; when units have not acted the page asks first (a dialog naming them,
    nothing sent yet): check it, then confirm."""
    before = me.locator("#match-state").get_attribute("data-version")
    me.locator("form.action-end_phase button[type=submit]").first.click()
    asked = me.locator("#confirm-end-phase")
    confirm = me.locator("#confirm-button")
    expect(asked.or_(me.locator(f"#match-state:not([data-version='{before}'])"))).to_have_count(1)
    if asked.count():
        expect(asked.locator("#idle-units li").first).to_be_visible()
        assert me.locator("#match-state").get_attribute("data-version") == before
        _follow(me, "#confirm-button", watcher)
        return
    assert not confirm.count()
    now = me.locator("#match-state").get_attribute("data-version")
    watcher.wait_for_selector(f"#match-state[data-version='{now}']", timeout=10_000)


def _end_turn(active, other, match_id: str, alice, shoot=None) -> None:  # type: ignore[no-untyped-def]
    """End every phase of ``active``'s turn (passing reaction windows); in the Shooting phase,
    ``shoot`` first."""
    view = _view(alice, match_id)
    turn = (view["round"], view["active"])
    shot = False
    for _ in range(40):
        view = _view(alice, match_id)
        if (view["round"], view["active"]) != turn or view["stage"] != "battle":
            return
        if view["phase"] == "shooting" and shoot is not None and not shot:
            shoot()
            shot = True
            continue
        for me, watcher in ((active, other), (other, active)):
            for selector in (
                # a unit below half strength after the shooting takes its test in the next
                # Command phase: how many fall depends on the match's dice
                "form.action-battle_shock_test button[type=submit]",
                "form.action-pass button[type=submit]",
                # the end of the turn: a player whose units lost models confirms coherency
                "form.action-confirm_coherency button[type=submit]",
                "form.action-end_phase button[type=submit]",
            ):
                if me.locator(selector).count():
                    if "end_phase" in selector:
                        _end_phase(me, watcher)
                    else:
                        _follow(me, selector, watcher)
                    break
            else:
                continue
            break
        else:
            raise AssertionError(f"nothing moves the battle on in {view['phase']}")
    raise AssertionError("the turn did not end")


def test_one_battle_round_with_an_undo_approved_on_the_other_phone(browser, live_server) -> None:  # type: ignore[no-untyped-def]
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
        match_id = alice.url.rstrip("/").rsplit("/", 1)[1]
        guest = guest_ctx.new_page()
        guest.goto(link)
        guest.fill("input[name=name]", "Gob")
        guest.check("input[name=sample][value=orks]")
        guest.click("#guest-form button[type=submit]")
        guest.wait_for_selector("#match-state[data-seat=B]")
        alice.wait_for_selector("form.action-roll_off", timeout=10_000)

        _set_up(alice, guest, match_id)
        view = _view(alice, match_id)
        assert (view["round"], view["phase"]) == (1, "command")
        first = view["active"]
        pages = {"A": alice, "B": guest}
        for seat in (first, "B" if first == "A" else "A"):
            other = pages["B" if seat == "A" else "A"]
            shoot = (lambda: _shoot_and_undo(alice, guest)) if seat == "A" else None
            _end_turn(pages[seat], other, match_id, alice, shoot=shoot)
        view = _view(alice, match_id)
        assert (view["round"], view["phase"]) == (2, "command")
        log = alice.request.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
        kinds = [e["event"]["type"] for e in log]
        assert kinds.count("undo_requested") == 1
        assert kinds.count("undone") == 1
        attacks = [e["event"] for e in log if e["event"]["type"] == "attack_resolved"]
        assert len(attacks) == 2
        assert attacks[0]["dice"] == attacks[1]["dice"]  # the undone dice stay in the log
        assert attacks[0]["weapons"] == attacks[1]["weapons"]
        assert attacks[1]["weapons"][0]["weapon"] == "Bolt Rifle"
        # a unit that lost models (depends on the dice) made its player confirm coherency on
        # the phone before the turn ended; no loss, no question
        hurt = [u for u in view["units"] if u["models_alive"] < u["models"]]
        hit = {i for u in hurt for i in (u["id"], u["leader"], u["bodyguard"]) if i}
        opened = [e["event"] for e in log if e["event"]["type"] == "coherency_check_opened"]
        assert all(set(o["units"]) <= hit for o in opened)
        assert len(opened) == kinds.count("coherency_confirmed")
        width = guest.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        guest.screenshot(path=str(SHOTS / "auspex-match-round2-390x844.png"), full_page=True)

        # conceding asks first on the phone (a dialog); going back sends nothing
        guest.locator("#reports > summary").click()
        guest.locator("#concede button[type=submit]").click()
        dialog = guest.locator("dialog#confirm-concede")
        expect(dialog).to_be_visible()
        guest.screenshot(path=str(SHOTS / "auspex-concede-390x844.png"), full_page=False)
        guest.locator("#confirm-cancel").click()
        expect(dialog).to_have_count(0)
        assert _view(alice, match_id)["result"] is None
        guest.locator("#reports > summary").click()
        guest.locator("#concede button[type=submit]").click()
        _follow(guest, "#confirm-button", alice)
        expect(alice.locator("#result")).to_contain_text("a player conceded")
        expect(alice.locator("#waiting-on-you")).to_have_text("A result to confirm")
    finally:
        alice_ctx.close()
        guest_ctx.close()
