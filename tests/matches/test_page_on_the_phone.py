"""The match page on the phone: what cannot be taken back asks first (conceding, ending a
phase with units that have not acted), the last roll where the player looks, what waits on
this player, objective control, Stratagem costs, readable text, a league game from the page.

Pages are parsed (selectolax) with and without htmx; the concession's confirmation is also
checked on the JSON API (``confirm: true`` or a 422 ``confirmation_required``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, Player, league_game, setup_battle
from tests.matches.test_web import HX, form_of, start, state
from tests.support.web import html

PROBLEM = "application/problem+json"


def _game(browser: Callable[[str], TestClient], armies: FakeArmies) -> Game:
    alice, bob, match_id = start(browser, armies)
    return Game(Player(alice, match_id, "A"), Player(bob, match_id, "B"), match_id)


def _page(p: Player, **headers: str) -> Any:
    r = p.client.get(f"/matches/{p.match_id}", headers=headers)
    assert r.status_code == 200, r.text
    return state(r)


# -- conceding --------------------------------------------------------------------------------


def test_the_api_refuses_a_concession_without_confirm_and_writes_nothing(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    before = g.b.get()["version"]
    body = g.b.send({"type": "concede"}, status=422)
    assert body["type"].endswith("/confirmation_required")
    assert body["refusal"] == "confirmation_required"
    assert body["errors"][0]["field"] == "command.confirm"
    g.b.send({"type": "concede", "confirm": False}, status=422)
    assert g.b.get()["version"] == before
    assert g.a.view()["result"] is None
    g.b.send({"type": "concede", "confirm": True})
    result = g.a.view()["result"]
    assert (result["reason"], result["winner"]) == ("concession", "A")


def test_the_concession_is_documented_in_openapi(app: Any) -> None:
    schema = TestClient(app).get("/api/v1/openapi.json").json()
    op = schema["paths"]["/api/v1/matches/{match_id}/commands"]["post"]
    assert '"confirm": true' in op["description"]
    assert "confirmation_required" in op["responses"]["422"]["description"]


def test_conceding_on_the_page_asks_first_with_and_without_htmx(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    root = _page(g.b)
    concede = form_of(root, "#concede")
    version = root.attributes["data-version"]
    # htmx: the state block comes back with a dialog, and nothing is sent
    r = g.b.client.post(f"/matches/{g.match_id}/act", data=concede, headers=HX)
    assert r.status_code == 200
    assert "<html" not in r.text
    ask = state(r).css_first("dialog#confirm-concede")
    assert ask is not None
    assert "open" in ask.attributes
    assert state(r).attributes["data-version"] == version
    fields = form_of(ask, "#confirm-form")
    assert json.loads(fields["command"]) == {"type": "concede", "confirm": True}
    assert fields["confirmed"] == "1"
    assert ask.css_first("#confirm-form").attributes["hx-target"] == "#match-state"
    cancel = ask.css_first("#confirm-cancel")
    assert cancel.attributes["href"] == f"/matches/{g.match_id}"
    assert cancel.attributes["hx-get"] == f"/matches/{g.match_id}"
    assert g.a.view()["result"] is None
    # without JS: the whole page, with the confirmation form
    r = g.b.client.post(f"/matches/{g.match_id}/act", data=concede, follow_redirects=False)
    assert r.status_code == 200
    assert "<html" in r.text
    assert state(r).css_first("#confirm-concede #confirm-form") is not None
    assert g.a.view()["result"] is None
    # the old one-tap form cannot concede by naming the command with confirm either: only the
    # confirmation form (confirmed=1) sends it
    r = g.b.client.post(
        f"/matches/{g.match_id}/act",
        data={**concede, "command": '{"type":"concede","confirm":true}'},
        headers=HX,
    )
    assert state(r).css_first("#confirm-concede") is not None
    r = g.b.client.post(f"/matches/{g.match_id}/act", data=fields, follow_redirects=False)
    assert r.status_code == 303
    view = g.a.view()
    assert (view["result"]["reason"], view["result"]["winner"]) == ("concession", "A")


# -- ending a phase ----------------------------------------------------------------------------


def test_ending_a_phase_with_nothing_left_to_do_does_not_ask(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g, {"A": {"attachments": [["a1", "a2"]]}})  # the Captain leads Intercessors
    root = _page(g.a)  # the Command phase: no unit acts in it
    assert "Command phase" in root.css_first("#phase").text()
    r = g.a.client.post(
        f"/matches/{g.match_id}/act", data=form_of(root, "form.action-end_phase"), headers=HX
    )
    assert state(r).css_first("dialog") is None
    assert "Movement phase" in state(r).css_first("#phase").text()
    # the Movement phase, every unit still to move: asked, all of them named
    r = g.a.client.post(
        f"/matches/{g.match_id}/act",
        data=form_of(state(r), "form.action-end_phase"),
        follow_redirects=False,
    )
    assert r.status_code == 200  # without JS: the page with the question
    names = [li.text() for li in state(r).css("#confirm-end-phase #idle-units li")]
    assert "Intercessor Squad + Captain" in names  # an Attached unit, once
    assert not any(n == "Captain" for n in names)
    assert "Movement phase" in state(r).css_first("#phase").text()


def test_end_the_phase_is_not_the_loudest_button_and_stratagems_show_their_cost(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # Shooting phase
    root = _page(g.a)
    end = root.css_first("#end-phase form.action-end_phase button")
    assert end is not None
    assert "primary" not in (end.attributes["class"] or "")
    assert "quiet" in (end.attributes["class"] or "")
    actions = root.css_first("#actions")
    forms = actions.css("form")
    assert forms[-1].attributes["class"] == "action action-end_phase"  # last of the actions
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    root = _page(g.b)  # the opponent may react with a Stratagem
    costs = [b.css_first(".cp-cost") for b in root.css("#stratagems button")]
    assert costs
    assert all(c is not None and c.text().endswith("CP") for c in costs)


# -- the last roll where the player looks ------------------------------------------------------


def test_the_roll_off_banner_names_both_dice_on_both_phones(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    g.a.send({"type": "roll_off"}, dice=[5, 3])
    for p in (g.a, g.b):
        banner = _page(p, **HX).css_first("#last-roll")
        assert banner is not None
        assert "autofocus" in banner.attributes  # htmx focuses it: scrolled to
        text = banner.text()
        assert "Alice rolled 5, Bob 3" in text
        assert "wins" in text
    # the next action rolls nothing: no banner
    g.a.send({"type": "place_objective"})
    assert _page(g.b).css_first("#last-roll") is None


def test_each_attack_outcome_is_shown_to_both_players(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b1"]})
    g.a.send({"type": "resolve_attack", "attacker": "a2", "target": "b1", "damage": [1]})
    banner = _page(g.b).css_first("#last-roll")
    assert banner is not None
    line = banner.css_first(".roll-attack_resolved").text()
    assert "1 wound lost" in line  # one wound, not "1 wounds"
    assert "0 models destroyed" in line


# -- what waits on this player -----------------------------------------------------------------


def test_what_waits_on_this_player_on_the_page_and_the_list(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)  # A's Command phase: A's move; B waits (a Stratagem is not a wait)
    assert _page(g.a).css_first("#waiting-on-you").text() == "Your move"
    assert _page(g.b).css_first("#waiting-on-you") is None
    listing = html(g.a.client.get("/matches"))
    assert listing.css_first(f"#waiting-{g.match_id}").text() == "Your move"
    assert html(g.b.client.get("/matches")).css_first(f"#waiting-{g.match_id}") is None
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a2", "mode": "advance"})  # the server rolls
    g.a.send({"type": "undo"})  # it rolled dice: B must answer
    assert _page(g.b).css_first("#waiting-on-you").text() == "An undo to approve or refuse"
    listing = html(g.b.client.get("/matches"))
    assert listing.css_first(f"#waiting-{g.match_id}").text() == "An undo to approve or refuse"
    g.b.send({"type": "refuse_undo", "batch": g.b.view()["undo_request"]["batch"]})
    g.b.send({"type": "concede", "confirm": True})
    assert _page(g.a).css_first("#waiting-on-you").text() == "A result to confirm"


# -- objective control ---------------------------------------------------------------------------


def test_the_objective_panel_shows_control_and_the_oc_behind_it(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    marker = g.a.view()["objectives"][0]["id"]
    g.a.send({"type": "report_objective", "marker": marker, "units": [{"unit": "a2"}]})
    g.a.send({"type": "end_phase"})  # control is settled at the end of the phase
    panel = _page(g.a).css_first("#objectives")
    assert panel is not None
    row = panel.css_first(f"#objective-{marker}")
    assert "mine" in (row.attributes["class"] or "")
    assert "Alice" in row.css_first(".controller").text()
    oc = int(row.css_first(".oc-A").text())
    assert oc > 0
    assert row.css_first(".oc-B").text() == "0"
    assert "Intercessor Squad" in row.css_first(".units-A").text()
    other = _page(g.b).css_first(f"#objective-{marker}")
    assert "theirs" in (other.attributes["class"] or "")
    assert other.css_first(".oc-A").text() == str(oc)


# -- readable text ------------------------------------------------------------------------------


def test_readable_text_round_mission_names_and_profiles(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    root = _page(g.a)
    mission = root.css_first("#mission").text()
    assert "only-war" not in mission
    assert "strike_force" not in mission
    assert "Only War" in mission
    assert "Strike Force" in mission
    setup_battle(g)
    root = _page(g.a)
    assert root.css_first("#round").text() == "Round 1/5"
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b2"]})
    combat = _page(g.a).css_first("#combat-a5")
    profiles = [s.text() for s in combat.css(".profile")]
    assert profiles
    assert not any("DD" in p or "AD" in p for p in profiles)
    values = {
        s.css_first("abbr").text(): s.css_first("b").text()
        for s in combat.css(".profile .stat")
        if s.css_first("abbr").attributes.get("title") == "Damage"
    }
    assert values["D"]  # the damage value on its own ("2", "D3"...), after its label


def test_the_join_page_names_the_mission(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice = browser("Alice")
    from tests.matches.conftest import marines

    r = alice.post(
        "/matches",
        data={"army_id": armies.ready(alice, marines()), "mission": "only-war"},
        follow_redirects=False,
    )
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    bob = browser("Bob")
    text = html(bob.get(f"/matches/join/{code}")).css_first("#join-summary").text()
    assert "Only War" in text
    assert "only-war" not in text
    assert "strike_force" not in text


# -- a league game from the page ---------------------------------------------------------------


def test_a_match_tracks_a_league_game_chosen_on_the_page(
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.matches.conftest import marines

    alice, bob = browser("Alice"), browser("Bob")
    fixture = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    army = armies.ready(alice, marines())
    ready = [SimpleNamespace(id=army, name="Strike group", faction="Adeptus Astartes")]
    monkeypatch.setattr("app.matches.armies.my_ready_lists", lambda db, user: ready)
    page = html(alice.get(f"/matches?league_game={fixture.game_id}"))
    select = page.css_first("#new-match-form select#league-game-select")
    assert select is not None
    options = {o.attributes["value"]: o for o in select.css("option")}
    assert str(fixture.game_id) in options
    assert "Bob" in options[str(fixture.game_id)].text()
    assert "selected" in options[str(fixture.game_id)].attributes
    r = alice.post(
        "/matches",
        data={"army_id": army, "league_game_id": str(fixture.game_id), "opponent": "user"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    assert alice.get(f"/api/v1/matches/{match_id}").json()["league_game_id"] == fixture.game_id
    # tracked now: no longer offered; a guest seat cannot play it (the service's 422)
    page = html(alice.get("/matches"))
    assert page.css_first("#league-game-select") is None
    r = alice.post(
        "/matches",
        data={"army_id": army, "league_game_id": "abc", "opponent": "user"},
    )
    assert r.status_code == 422
    assert html(r).css_first("#new-match-error") is not None
