"""The match page on the phone: what cannot be taken back asks first (conceding, ending a
phase with units that have not acted), the last roll where the player looks, what waits on
this player, objective control, Stratagem costs, readable text, a league game from the page.

Pages are parsed (selectolax) with and without htmx; the concession's confirmation is also
checked on the JSON API (``confirm: true`` or a 422 ``confirmation_required``)."""

from __future__ import annotations

import json
from collections.abc import Callable
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
    from app.matches.pages import ReadyList

    ready = [ReadyList(army, "Strike group", "Adeptus Astartes", "wh40k-10e")]
    monkeypatch.setattr("app.matches.pages.ready_lists", lambda db, user: ready)
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


# -- the end-of-turn coherency check on the page -------------------------------------------------


def _three_kommandos_down_and_the_turn_ending(g: Game) -> None:
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3"]})
    g.a.send({"type": "resolve_attack", "attacker": "a5", "target": "b3", "damage": [1, 1, 1]})
    while (view := g.a.view())["phase"] != "fight":
        if view["reaction_window"]:
            g.b.send({"type": "pass"})
        else:
            g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})


def test_the_coherency_check_is_a_form_for_the_player_it_waits_for(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    _three_kommandos_down_and_the_turn_ending(g)
    # A waits: no form, nothing else to do (not even ending the phase again)
    root = _page(g.a)
    assert root.css_first("form.action-confirm_coherency") is None
    assert root.css_first("form.action-end_phase") is None
    assert root.css_first("#nothing-to-do") is not None
    # B is asked, by name of the unit, with one field of model numbers per unit
    root = _page(g.b, **HX)
    assert root.css_first("#waiting-on-you").text() == (
        "End of the turn: confirm that your units are in coherency"
    )
    form = root.css_first("form.action-confirm_coherency")
    assert form is not None
    assert form.attributes["hx-post"] == f"/matches/{g.match_id}/act"
    assert "primary" in (form.css_first("button[type=submit]").attributes["class"] or "")
    fields = form.css("#coherency-check input[type=text]")
    assert [f.attributes["name"] for f in fields] == ["remove_b3"]
    assert "Kommandos" in form.css_first("#coherency-check label").text()
    data = form_of(root, "form.action-confirm_coherency")
    assert json.loads(data["command"]) == {"type": "confirm_coherency", "removals": []}
    # typed garbage: a clear refusal on the page, nothing written
    r = g.b.client.post(f"/matches/{g.match_id}/act", data={**data, "remove_b3": "x"}, headers=HX)
    assert r.headers["X-Match-Refusal"] == "bad_casualties"
    assert state(r).css_first("#match-error") is not None
    assert g.b.view()["pending"]["coherency"] == ["B"]
    # two model numbers (from 1) of living Kommandos: removed, and the turn goes on
    alive = [i for i, w in enumerate(_unit(g.b.view(), "b3")["wounds"]) if w > 0]
    typed = f"{alive[0] + 1}, {alive[1] + 1}"
    r = g.b.client.post(f"/matches/{g.match_id}/act", data={**data, "remove_b3": typed}, headers=HX)
    assert r.status_code == 200
    assert "X-Match-Refusal" not in r.headers
    view = g.b.view()
    assert (view["active"], view["phase"]) == ("B", "command")
    assert _unit(view, "b3")["models_alive"] == 5
    timeline = " ".join(li.text() for li in _page(g.a).css("#timeline li"))
    assert "End of the turn: confirm unit coherency (Kommandos)." in timeline
    assert "Bob: units in coherency, 2 models removed." in timeline


def _unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


# -- announcing a move: the opponent may Fire Overwatch as it starts ------------------------------


def test_a_move_can_be_announced_from_the_page_and_the_opponent_may_react(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = _game(browser, armies)
    setup_battle(g)
    g.a.send({"type": "end_phase"})  # Movement phase
    root = _page(g.a)
    announce = {
        json.loads(f.css_first("input[name=command]").attributes["value"] or "{}")["unit"]: f
        for f in root.css("form.action-start_move")
    }
    assert "a2" in announce
    form = announce["a2"]
    assert "Announce a move" in form.css_first(".form-title").text()
    modes = [b.attributes["value"] for b in form.css("button[name=mode]")]
    assert modes == ["normal", "advance"]  # not engaged: no Fall Back; never Remain Stationary
    data = {i.attributes["name"]: i.attributes["value"] for i in form.css("input[type=hidden]")}
    r = g.a.client.post(f"/matches/{g.match_id}/act", data={**data, "mode": "normal"}, headers=HX)
    assert "X-Match-Refusal" not in r.headers
    assert g.a.view()["trigger"]["unit"] == "a2"
    # B's page offers Fire Overwatch at the unit, with its cost
    stratagems = _page(g.b).css("#stratagems form.action-use_stratagem")
    overwatch = [
        f
        for f in stratagems
        if '"fire_overwatch"' in (f.css_first("input[name=command]").attributes["value"] or "")
    ]
    assert overwatch
    assert "Intercessor Squad" in overwatch[0].css_first("button").text()


# -- a league game linked from the match page after creation ------------------------------------


def test_a_player_links_the_match_to_their_league_game_from_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = _game(browser, armies)
    fixture = league_game(db, g.a.client.user_id, g.b.client.user_id)  # type: ignore[attr-defined]
    assert g.a.get()["league_game_id"] is None
    root = _page(g.b)
    form = root.css_first("#league-link-form")
    assert form is not None
    assert form.attributes["hx-post"] == f"/matches/{g.match_id}/league-game"
    assert form.css_first("input[name=csrf_token]") is not None
    options = [o.attributes["value"] for o in form.css("select[name=league_game_id] option")]
    assert options == ["", str(fixture.game_id)]
    # without the CSRF token: refused, nothing linked
    r = g.b.client.post(
        f"/matches/{g.match_id}/league-game",
        data={"league_game_id": str(fixture.game_id)},
        headers={"X-CSRF-Token": ""},
    )
    assert r.status_code == 403
    assert g.a.get()["league_game_id"] is None
    r = g.b.client.post(
        f"/matches/{g.match_id}/league-game",
        data={"league_game_id": str(fixture.game_id), "csrf_token": g.b.client.csrf},  # type: ignore[attr-defined]
        headers=HX,
    )
    assert r.status_code == 200
    assert state(r).css_first("#match-notice") is not None
    assert g.a.get()["league_game_id"] == fixture.game_id
    selected = _page(g.a).css_first("#league-link-select option[selected]")
    assert selected.attributes["value"] == str(fixture.game_id)
    # a typed id that is not a number: a clear error on the page
    r = g.a.client.post(
        f"/matches/{g.match_id}/league-game",
        data={"league_game_id": "abc", "csrf_token": g.a.client.csrf},  # type: ignore[attr-defined]
        headers=HX,
    )
    assert state(r).css_first("#match-error") is not None
    assert g.a.get()["league_game_id"] == fixture.game_id


def test_the_api_links_a_league_game_after_creation_with_the_checks_of_creation(
    new_game: Callable[..., Game],
    user_client: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
) -> None:
    from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
    from app.leagues.models import Game as LeagueGame
    from tests.matches.conftest import wipe_out_b

    few = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.INCURSION,
        (RosterUnit("Captain", warlord=True), RosterUnit("Intercessor Squad", 5)),
    )
    alone = Roster(
        "Orks", "War Horde", BattleSize.INCURSION, (RosterUnit("Warboss", warlord=True),)
    )
    g = new_game(few, alone, "incursion")
    carol = user_client("Carol")
    a_id, b_id = g.a.client.user_id, g.b.client.user_id  # type: ignore[attr-defined]
    game = league_game(db, b_id, a_id)
    wrong = league_game(db, a_id, carol.user_id)  # type: ignore[attr-defined]
    url = f"/api/v1/matches/{g.match_id}/league-game"

    def put(client: TestClient, value: object, status: int) -> dict[str, Any]:
        r = client.put(url, json={"league_game_id": value})
        assert r.status_code == status, r.text
        body: dict[str, Any] = r.json()
        if status >= 400:
            assert r.headers["content-type"].startswith(PROBLEM)
        return body

    assert put(carol, game.game_id, 404)["type"].endswith("match-not-found")
    assert put(g.a.client, wrong.game_id, 422)["type"].endswith("league-game-unusable")
    assert put(g.a.client, 999_999, 422)["type"].endswith("league-game-unusable")
    put(g.a.client, 0, 422)
    assert g.a.get()["league_game_id"] is None
    assert put(g.b.client, game.game_id, 200) == {
        "match_id": g.match_id,
        "league_game_id": game.game_id,
    }
    assert g.a.get()["league_game_id"] == game.game_id
    assert put(g.a.client, None, 200)["league_game_id"] is None  # unlinked
    put(g.a.client, game.game_id, 200)
    # another match of the same players cannot track it too
    r = g.a.client.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(g.a.client, few), "battle_size": "incursion"},
    )
    assert r.status_code == 201
    second = r.json()["id"]
    r = g.a.client.put(
        f"/api/v1/matches/{second}/league-game", json={"league_game_id": game.game_id}
    )
    assert r.status_code == 422
    assert "already tracking" in r.json()["detail"]
    # played to its end: the league game can no longer change, and the result reaches it
    setup_battle(g)
    wipe_out_b(g)
    assert put(g.a.client, None, 409)["type"].endswith("match-over")
    g.a.send({"type": "confirm_result"})
    g.b.send({"type": "confirm_result"})
    fixture = db.get(LeagueGame, game.game_id)
    assert fixture is not None
    db.refresh(fixture)
    assert fixture.status == "confirmed"
    assert fixture.match_id == g.match_id


def test_a_guest_match_cannot_play_a_league_game(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    from tests.matches.conftest import marines

    alice, bob = user_client("Alice"), user_client("Bob")
    game = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    r = alice.post(
        "/api/v1/matches", json={"army_id": armies.ready(alice, marines()), "opponent": "guest"}
    )
    assert r.status_code == 201
    match_id = r.json()["id"]
    r = alice.put(f"/api/v1/matches/{match_id}/league-game", json={"league_game_id": game.game_id})
    assert r.status_code == 422
    assert r.json()["type"].endswith("league-game-unusable")
    page = html(alice.get(f"/matches/{match_id}"))
    assert page.css_first("#match-state") is not None
    assert page.css_first("#league-link-form") is None
