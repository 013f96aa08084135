"""The tracker pages, with and without htmx: ids, fields, hx-* attributes, refusals."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import page_system
from app.matches.web import build_command
from tests.matches.conftest import FakeArmies, marines, orks, start_match
from tests.support.web import html

HX = {"HX-Request": "true"}
TENTH = "wh40k-10e"


def state(response: Any) -> Any:
    node = html(response).css_first("#match-state")
    assert node is not None, response.text[:500]
    return node


def form_of(page: Any, css: str) -> dict[str, str]:
    node = page.css_first(css)
    assert node is not None, css
    return {
        str(i.attributes["name"]): str(i.attributes.get("value") or "")
        for i in node.css("input[type=hidden]")
    }


def start(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> tuple[TestClient, TestClient, int]:
    return start_match(browser, armies, marines(), orks())


def test_my_matches_page_and_the_new_match_form(
    browser: Callable[[str], TestClient], app: Any, starter: int
) -> None:
    anonymous = TestClient(app)
    r = anonymous.get("/matches", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"].startswith("/login")
    alice = browser("Alice")
    page = html(alice.get("/matches"))
    assert page.css_first("#no-ready-list") is not None
    nav = [a.text() for a in page.css("#main-nav a")]
    assert "Matches" in nav
    # a list marked ready in the army builder appears in the form
    r = alice.post(
        "/api/v1/armies",
        json={
            "rule_system": "wh40k-10e",
            "name": "Ready one",
            "faction": "Orks",
            "detachment": "War Horde",
            "battle_size": "strike-force",
            "units": [{"datasheet": "Warboss", "warlord": True}],
        },
    )
    assert r.status_code == 201, r.text
    assert (
        alice.patch(f"/api/v1/armies/{r.json()['id']}", json={"status": "ready"}).status_code == 200
    )
    page = html(alice.get("/matches"))
    options = [o.text() for o in page.css("#new-match-form select[name=army_id] option")]
    assert options == ["Ready one (Orks)"]
    assert page.css_first("#new-match-form input[name=csrf_token]") is not None
    sizes = [
        o.attributes["value"] for o in page.css("#new-match-form select[name=battle_size] option")
    ]
    assert sizes == ["incursion", "strike_force", "onslaught"]
    assert page.css_first("#join-code-form input[name=code]") is not None
    assert page.css_first("#import-form")


def test_create_join_and_play_with_htmx(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob, match_id = start(browser, armies)
    page = alice.get(f"/matches/{match_id}")
    assert page.headers["vary"] == "HX-Request"
    root = state(page)
    assert root.attributes["hx-trigger"] == "sse:version"
    assert root.attributes["hx-get"] == f"/matches/{match_id}?known=2"
    live = html(page).css_first("#match-live")
    assert live.attributes["hx-ext"] == "sse"
    assert live.attributes["sse-connect"] == f"/matches/{match_id}/events?since=2"
    assert html(page).css_first("script[src='/static/vendor/htmx/htmx-ext-sse.min.js']")
    roll = root.css_first("form.action-roll_off")
    assert roll.attributes["hx-post"] == f"/matches/{match_id}/act"
    assert roll.attributes["action"] == f"/matches/{match_id}/act"
    assert roll.attributes["hx-target"] == "#match-state"
    fields = form_of(root, "form.action-roll_off")
    assert json.loads(fields["command"]) == {"type": "roll_off"}
    assert fields["version"] == "2"
    # the htmx answer is the state block only, at the new version
    r = alice.post(f"/matches/{match_id}/act", data={**fields, "dice": "6 1"}, headers=HX)
    assert r.status_code == 200, r.text
    assert "<html" not in r.text
    assert state(r).attributes["data-version"] == "4"
    timeline = [li.text() for li in state(r).css("#timeline li")]
    assert any("Roll-off" in t and "Alice (you) wins" in t for t in timeline)
    # Bob's page refreshes when the version moved, and not when it did not
    assert bob.get(f"/matches/{match_id}?known=4", headers=HX).status_code == 204
    r = bob.get(f"/matches/{match_id}?known=2", headers=HX)
    assert r.status_code == 200
    assert state(r).attributes["data-version"] == "4"
    # without htmx: a stale post answers 409 with the whole page; a fresh one redirects
    stale = form_of(root, "form.action-roll_off")  # the form as it was at version 2
    r = alice.post(f"/matches/{match_id}/act", data=stale, follow_redirects=False)
    assert r.status_code == 409
    assert r.headers["x-match-refusal"] == "stale_version"
    assert "<html" in r.text
    assert state(r).css_first("#match-error") is not None
    fresh = form_of(state(alice.get(f"/matches/{match_id}")), "form.action-place_objective")
    r = alice.post(f"/matches/{match_id}/act", data=fresh, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/matches/{match_id}"


def test_a_stale_htmx_write_refreshes_the_state_with_a_notice(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob, match_id = start(browser, armies)
    old = form_of(state(bob.get(f"/matches/{match_id}")), "form.action-roll_off")
    mine = form_of(state(alice.get(f"/matches/{match_id}")), "form.action-roll_off")
    r = alice.post(f"/matches/{match_id}/act", data={**mine, "dice": "6 1"}, headers=HX)
    assert r.status_code == 200
    r = bob.post(f"/matches/{match_id}/act", data=old, headers=HX)
    assert r.status_code == 200
    assert r.headers["x-match-refusal"] == "stale_version"
    root = state(r)
    assert root.css_first("#match-error").attributes["role"] == "alert"
    assert root.attributes["data-version"] == "4"
    # a refusal by the rules shows its message and code
    r = bob.post(
        f"/matches/{match_id}/act",
        data={"version": "4", "command": '{"type":"end_phase"}'},
        headers=HX,
    )
    assert r.headers["x-match-refusal"] == "wrong_stage"
    assert "(wrong_stage)" in state(r).css_first("#match-error").text()
    r = bob.post(
        f"/matches/{match_id}/act",
        data={"version": "4", "command": '{"type":"roll_off"}', "dice": "9 9"},
        headers=HX,
    )
    assert r.headers["x-match-refusal"] == "bad_dice"


def _play_to_formations(alice: TestClient, bob: TestClient, match_id: int) -> None:
    for who, dice in ((alice, "6 1"),):
        who.post(
            f"/matches/{match_id}/act",
            data={
                **form_of(state(who.get(f"/matches/{match_id}")), "form.action-roll_off"),
                "dice": dice,
            },
            headers=HX,
        )
    for i in range(4):
        who = alice if i % 2 == 0 else bob
        fields = form_of(state(who.get(f"/matches/{match_id}")), "form.action-place_objective")
        assert who.post(f"/matches/{match_id}/act", data=fields, headers=HX).status_code == 200
    fields = form_of(state(alice.get(f"/matches/{match_id}")), "form.action-roll_off")
    alice.post(f"/matches/{match_id}/act", data={**fields, "dice": "6 1"}, headers=HX)


def test_the_formation_form_and_the_combat_flow(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob, match_id = start(browser, armies)
    _play_to_formations(alice, bob, match_id)
    root = state(alice.get(f"/matches/{match_id}"))
    form = root.css_first("#formation-form")
    assert form.attributes["hx-post"] == f"/matches/{match_id}/formation"
    attach = form.css_first("select[name=attach_a1]")
    assert attach.css_first("option[selected]").attributes["value"] == "a2"  # from the list
    assert [o.attributes["value"] for o in form.css("select[name=embark_a7] option")] == ["", "a6"]
    assert "deep_strike" in [
        o.attributes["value"] for o in form.css("select[name=reserve_a3] option")
    ]
    v = form_of(root, "#formation-form")
    r = alice.post(
        f"/matches/{match_id}/formation",
        data={**v, "attach_a1": "a2", "embark_a7": "a6", "reserve_a3": ""},
        headers=HX,
    )
    assert state(r).css_first("#match-notice") is not None
    # re-declaring shows the declaration made
    again = state(alice.get(f"/matches/{match_id}")).css_first("#formation-form")
    assert again.css_first("select[name=embark_a7] option[selected]").attributes["value"] == "a6"
    v = form_of(state(bob.get(f"/matches/{match_id}")), "#formation-form")
    assert bob.post(f"/matches/{match_id}/formation", data=v, headers=HX).status_code == 200
    # deploy everything, first turn to Alice, no Scouts moves
    for _ in range(40):
        for who in (alice, bob):
            root = state(who.get(f"/matches/{match_id}"))
            deploy = root.css_first(
                "form.action-deploy_unit, form.action-roll_off, form.action-end_scouts"
            )
            if deploy is not None:
                data = form_of(root, f"form.{deploy.attributes['class'].split()[-1]}")
                if "roll_off" in deploy.attributes["class"]:
                    data["dice"] = "6 1"
                who.post(f"/matches/{match_id}/act", data=data, headers=HX)
        if state(alice.get(f"/matches/{match_id}")).css_first("#phase") is not None:
            break
    root = state(alice.get(f"/matches/{match_id}"))
    assert "Command phase" in root.css_first("#phase").text()
    assert root.css_first("#active").text() == "Your turn"
    assert root.css_first("#cp-A").text().startswith("1")
    cards = {li.attributes["id"]: li for li in root.css("#units-A li")}
    assert "embarked in Rhino" in cards["unit-a7"].text()
    # command -> movement: one form per unit, one button per kind of move
    alice.post(
        f"/matches/{match_id}/act",
        data=form_of(state(alice.get(f"/matches/{match_id}")), "form.action-end_phase"),
        headers=HX,
    )
    root = state(alice.get(f"/matches/{match_id}"))
    moves = {
        json.loads(f.css_first("input[name=command]").attributes["value"] or "{}")["unit"]: f
        for f in root.css("form.action-move")
    }
    buttons = [b.attributes["value"] for b in moves["a2"].css("button[name=mode]")]
    assert buttons == ["normal", "advance", "remain_stationary"]  # not engaged: no Fall Back
    data = {
        i.attributes["name"]: i.attributes["value"] for i in moves["a2"].css("input[type=hidden]")
    }
    r = alice.post(f"/matches/{match_id}/act", data={**data, "mode": "normal"}, headers=HX)
    assert "moved" in state(r).css_first("#unit-a2").text()
    # units that have not moved: ending the phase asks first, naming them, and sends nothing
    version = state(r).attributes["data-version"]
    r = alice.post(
        f"/matches/{match_id}/act", data=form_of(state(r), "form.action-end_phase"), headers=HX
    )
    ask = state(r).css_first("dialog#confirm-end-phase")
    assert ask is not None
    assert state(r).attributes["data-version"] == version
    idle = [li.text() for li in ask.css("#idle-units li")]
    assert idle
    assert not any(name.startswith("Intercessor Squad") for name in idle)  # a2 has moved
    confirm = form_of(ask, "#confirm-form")
    assert confirm["confirmed"] == "1"
    assert json.loads(confirm["command"]) == {"type": "end_phase"}
    assert ask.css_first("#confirm-form").attributes["hx-post"] == f"/matches/{match_id}/act"
    assert ask.css_first("#confirm-cancel").attributes["href"] == f"/matches/{match_id}"
    r = alice.post(f"/matches/{match_id}/act", data=confirm, headers=HX)
    assert "Shooting phase" in state(r).css_first("#phase").text()
    root = state(alice.get(f"/matches/{match_id}"))
    shoot = [
        f
        for f in root.css("form.action-shoot")
        if '"a5"' in (f.css_first("input[name=command]").attributes["value"] or "")
    ]
    assert shoot
    data = {i.attributes["name"]: i.attributes["value"] for i in shoot[0].css("input[type=hidden]")}
    targets = [i.attributes["value"] for i in shoot[0].css("input[name=targets]")]
    assert "b2" in targets
    # Lone Operative: the player states the 12" in the shoot form itself
    assert shoot[0].css_first("input[type=checkbox][name=within_12]") is not None
    r = alice.post(f"/matches/{match_id}/act", data={**data, "targets": "b2"}, headers=HX)
    combat = state(r).css_first("#combat-a5")
    assert combat is not None
    weapons = [i.attributes["value"] for i in combat.css("input[name=weapon]")]
    assert all(w.startswith("a5|") for w in weapons)
    assert any("Plasma Incinerator" in w for w in weapons)
    flags = [i.attributes["name"] for i in combat.css("fieldset.situation input[type=checkbox]")]
    assert "plunging_fire" in flags
    picked = next(w for w in weapons if "Standard" in w)
    body = {
        "csrf_token": alice.csrf,
        "version": combat.css_first("input[name=version]").attributes["value"],  # type: ignore[attr-defined]
        "attacker": "a5",
        "target": "b2",
        "weapon": picked,
        f"models|{picked}": "5",
        "half_range": "1",
        "do": "preview",
    }
    r = alice.post(f"/matches/{match_id}/combat", data=body, headers=HX)
    assert r.status_code == 200, r.text
    assert "Expected damage" in r.text
    assert "<html" not in r.text
    assert html(r).css("table.odds-table tbody tr")
    r = alice.post(f"/matches/{match_id}/combat", data={**body, "do": "roll"}, headers=HX)
    assert r.status_code == 200, r.text
    resolution = state(r).css_first("#resolution")
    assert resolution is not None
    assert resolution.css(".die")
    # each weapon fires once a phase, and a model shoots its Pistols or its other ranged
    # weapons: every model fired its plasma incinerator, nothing is left to offer
    assert state(r).css_first("#combat-a5") is None


def test_the_guest_link_sets_a_seat_cookie(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice = browser("Alice")
    r = alice.post(
        "/matches",
        data={"army_id": armies.ready(alice, marines()), "opponent": "guest"},
        follow_redirects=False,
    )
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    link = html(alice.get(f"/matches/{match_id}")).css_first("#guest-link").attributes["href"]
    path = re.sub(r"^http://testserver", "", link)
    guest = TestClient(app, base_url="http://testserver")
    page = html(guest.get(path))
    form = page.css_first("#guest-form")
    assert [i.attributes["value"] for i in form.css("input[name=sample]")] == [
        "space-marines",
        "orks",
    ]
    token = page.css_first("#guest-form input[name=csrf_token]").attributes["value"]
    r = guest.post(
        path, data={"csrf_token": token, "name": "Gob", "sample": "orks"}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    cookie = r.headers["set-cookie"]
    assert f"auspex_guest_{match_id}=" in cookie
    assert f"Path=/matches/{match_id}" in cookie
    assert "HttpOnly" in cookie
    page = guest.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert state(page).attributes["data-seat"] == "B"
    # the link again: straight to the match
    r = TestClient(app, base_url="http://testserver").get(path, follow_redirects=False)
    assert r.status_code == 303
    # without the cookie: log in
    r = TestClient(app).get(f"/matches/{match_id}", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"].startswith("/login")


def test_other_users_get_a_404_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    _alice, _bob, match_id = start(browser, armies)
    carol = browser("Carol")
    r = carol.get(f"/matches/{match_id}", headers={"Accept": "text/html"})
    assert r.status_code == 404
    assert "Match not found" in r.text
    r = carol.post(
        f"/matches/{match_id}/act",
        data={
            "csrf_token": carol.csrf,
            "version": "2",  # type: ignore[attr-defined]
            "command": '{"type":"roll_off"}',
        },
        headers={"Accept": "text/html"},
    )
    assert r.status_code == 404


def test_the_page_in_french(browser: Callable[[str], TestClient], armies: FakeArmies) -> None:
    alice, _bob, match_id = start(browser, armies)
    r = alice.post(
        "/language", data={"language": "fr", "next": f"/matches/{match_id}"}, follow_redirects=False
    )
    assert r.status_code == 303
    page = html(alice.get(f"/matches/{match_id}"))
    assert page.css_first("html").attributes["lang"] == "fr"
    assert page.css_first("form.action-roll_off button").text() == "Tir au dé"
    assert page.css_first("#refresh-link").text() == "Actualiser"


def test_a_unit_card_counts_each_models_own_wounds(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, _bob, match_id = start(browser, armies)
    card = state(alice.get(f"/matches/{match_id}")).css_first("#unit-b2")  # nine Boys, a Nob
    assert [w.text() for w in card.css(".wounds .w")] == ["1"] * 9 + ["2"]
    assert card.css(".wounds .w.hurt") == []
    assert card.css_first(".wounds-total").text() == "11 of 11 wounds left"
    nobz = state(alice.get(f"/matches/{match_id}")).css_first("#unit-b4")
    assert nobz.css_first(".wounds-total").text() == "10 of 10 wounds left"


def test_a_hurt_boss_nob_is_shown_against_its_own_wounds() -> None:
    from app.matches.pages.wh40k10e.present import UnitCard

    card = UnitCard(
        id="b2",
        name="Boyz",
        owner="B",
        models_alive=4,
        models=10,
        wounds=[1, 1, 1] + [0] * 6 + [1],
        wounds_per_model=1,
        destroyed=False,
        location="battlefield",
        max_wounds=[1] * 9 + [2],
    )
    assert card.multi_wound
    assert card.slots[9] == (1, 2)  # hurt: 1 of its own 2
    assert (card.wounds_left, card.wounds_total) == (4, 11)
    # a view without max_wounds: every model at the unit's W
    old = UnitCard("b2", "Boyz", "B", 2, 3, [1, 0, 1], 1, False, "battlefield")
    assert (old.multi_wound, old.wounds_total) == (False, 3)


def test_the_shoot_form_sends_the_stated_12_inches() -> None:
    """Lone Operative's 12" goes with a shoot (or Fire Overwatch) command only."""
    shoot = FormData(
        [("command", '{"type":"shoot","unit":"a2"}'), ("targets", "b2"), ("within_12", "1")]
    )
    assert build_command(shoot, page_system(TENTH)) == {
        "type": "shoot",
        "unit": "a2",
        "targets": ["b2"],
        "within_12": True,
    }
    tenth = page_system(TENTH)
    assert "within_12" not in build_command(
        FormData([("command", '{"type":"shoot","unit":"a2"}'), ("targets", "b2")]), tenth
    )
    assert "within_12" not in build_command(
        FormData([("command", '{"type":"end_phase"}'), ("within_12", "1")]), page_system(TENTH)
    )
