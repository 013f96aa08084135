"""League pages: with and without htmx, every form and refusal, English and French."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.leagues.conftest import ClubSetup, FakeArmies, enrol, make_club
from tests.support.web import csrf, html, register

HX = {"HX-Request": "true"}
HTML = {"Accept": "text/html"}


def _post(client: TestClient, path: str, page: str, data: dict[str, Any] | None = None, **kw: Any):  # type: ignore[no-untyped-def]
    return client.post(
        path, data={"csrf_token": csrf(client, page), **(data or {})}, follow_redirects=False, **kw
    )


def _round_robin(club: ClubSetup, armies: FakeArmies, n: int = 3) -> tuple[int, list[int]]:
    league_id = club.league()
    ids = enrol(club, armies, league_id, *club.members[:n])
    return league_id, ids


def _game(client: TestClient, league_id: int) -> dict[str, Any]:
    return dict(client.get(f"/api/v1/leagues/{league_id}/games").json()[0])


def _player(club: ClubSetup, game: dict[str, Any], side: str) -> TestClient:
    user_id = game[side]["user_id"]
    return next(m for m in club.members if m.user_id == user_id)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the league page


def test_league_page_shows_standings_pairings_and_bye(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies)
    page = f"/leagues/{league_id}"
    generated = _post(club.owner, f"{page}/rounds", page)
    assert generated.status_code == 303
    assert generated.headers["location"] == f"{page}?round=1"
    doc = html(club.owner.get(page))
    assert doc.css_first("#league-name").text() == "Autumn League"
    assert doc.css_first("#league-status").attributes["data-status"] == "running"
    rows = doc.css("#standings-table tbody tr")
    assert len(rows) == 3
    assert doc.css_first("#round-title").text().startswith("Round 1 / 3")
    assert "Bye:" in doc.css_first("#round-bye").text()
    cards = doc.css("#round-games .game-card")
    assert len(cards) == 1
    assert cards[0].attributes["data-status"] == "scheduled"
    # the admin panel: next round and finish
    assert doc.css_first("#generate-round-form button").text().strip() == "Generate round 2"
    assert doc.css_first("#finish-form") is not None
    for _ in range(2):
        assert _post(club.owner, f"{page}/rounds", page).status_code == 303
    done = html(club.owner.get(page))
    assert done.css_first("#generate-round-form") is None  # all three rounds are out
    assert done.css_first("#round-title").text().startswith("Round 3 / 3")
    refused = _post(club.owner, f"{page}/rounds", page, headers=HTML)
    assert refused.status_code == 409
    assert "Every round" in html(refused).css_first("#error-detail").text()


def test_round_navigation_swaps_the_round_with_htmx(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies)
    for _ in range(2):
        assert club.owner.post(f"/api/v1/leagues/{league_id}/rounds").status_code == 201
    full = club.owner.get(f"/leagues/{league_id}")
    links = html(full).css("#round .round-nav a")
    assert [a.text() for a in links] == ["1", "2"]
    assert links[0].attributes["href"] == f"/leagues/{league_id}?round=1"
    assert links[0].attributes["hx-get"] == f"/leagues/{league_id}?round=1"
    assert links[0].attributes["hx-target"] == "#round"
    assert links[1].attributes["aria-current"] == "true"
    fragment = club.owner.get(f"/leagues/{league_id}?round=1", headers=HX)
    assert fragment.headers["vary"] == "HX-Request"
    assert "<html" not in fragment.text
    assert html(fragment).css_first("#round-title").text().startswith("Round 1")
    assert full.headers["vary"] == "HX-Request"


def test_player_reports_and_opponent_confirms_in_pages(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies, 2)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    game = _game(club.owner, league_id)
    a, b = _player(club, game, "player_a"), _player(club, game, "player_b")
    game_path = f"/leagues/{league_id}/games/{game['id']}"
    form = html(a.get(game_path)).css_first("#report-form")
    assert form.attributes["action"] == f"{game_path}/report"
    assert form.attributes["hx-post"] == f"{game_path}/report"
    assert {i.attributes["value"] for i in form.css("input[name=result]")} == {
        "player_a",
        "draw",
        "player_b",
    }
    bad = _post(a, f"{game_path}/report", game_path, {"result": "player_a", "vp_a": "-3"})
    assert bad.status_code == 422
    assert html(bad).css_first("#report-error-vp") is not None
    reported = _post(
        a, f"{game_path}/report", game_path, {"result": "player_a", "vp_a": "70", "vp_b": "35"}
    )
    assert reported.status_code == 303
    assert reported.headers["location"] == game_path
    after = html(a.get(game_path))
    assert after.css_first("#game-title") is not None
    assert after.css_first(f"#game-{game['id']}").attributes["data-status"] == "reported"
    # the opponent sees the card with confirm/dispute on the league page
    league_page = html(b.get(f"/leagues/{league_id}"))
    card = league_page.css_first(f"#my-game-{game['id']}")
    confirm = card.css_first("form.confirm-form")
    assert confirm.attributes["action"] == f"{game_path}/confirm"
    assert confirm.attributes["hx-post"] == f"{game_path}/confirm"
    assert confirm.attributes["hx-target"] == f"#my-game-{game['id']}"
    assert card.css_first("form.dispute-form textarea[name=note]") is not None
    # both forms name the report they answer
    version = confirm.css_first("input[name=report_version]").attributes["value"]
    assert version == "1"
    assert card.css_first("form.dispute-form input[name=report_version]").attributes["value"] == "1"
    # the reporter has no confirm button
    assert html(a.get(f"/leagues/{league_id}")).css_first("form.confirm-form") is None
    swapped = b.post(
        f"{game_path}/confirm",
        data={"csrf_token": csrf(b, f"/leagues/{league_id}"), "report_version": version},
        headers={**HX, "HX-Target": f"my-game-{game['id']}"},
    )
    assert swapped.status_code == 200
    assert "<html" not in swapped.text
    fragment = html(swapped).css_first("article")
    assert fragment.attributes["id"] == f"my-game-{game['id']}"
    assert fragment.attributes["data-status"] == "confirmed"
    assert fragment.css_first("form.confirm-form") is None
    standings = html(b.get(f"/leagues/{league_id}")).css("#standings-table tbody tr")
    assert standings[0].css("td")[1].text() == a.user_name  # type: ignore[attr-defined]
    assert standings[0].css_first(".points").text() == "3"


def test_a_confirm_from_an_old_page_shows_the_new_report(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    """Issue 11: B opens A's report "B won 10–90"; A corrects it to "A won 90–10"; B's confirm
    from the open page confirms nothing and shows the corrected result, with a fresh form."""
    league_id, _ids = _round_robin(club, armies, 2)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    game = _game(club.owner, league_id)
    a, b = _player(club, game, "player_a"), _player(club, game, "player_b")
    game_path = f"/leagues/{league_id}/games/{game['id']}"
    api = f"/api/v1{game_path}"
    a.post(f"{api}/report", json={"result": "player_b", "vp_a": 10, "vp_b": 90})
    opened = html(b.get(game_path)).css_first("form.confirm-form")
    old_version = opened.css_first("input[name=report_version]").attributes["value"]
    assert old_version == "1"
    a.post(f"{api}/report", json={"result": "player_a", "vp_a": 90, "vp_b": 10})

    # without htmx: the game page again, 409, with the new result and the reason
    refused = _post(b, f"{game_path}/confirm", game_path, {"report_version": old_version})
    assert refused.status_code == 409
    doc = html(refused)
    card = doc.css_first(f"#game-{game['id']}")
    assert card.attributes["data-status"] == "reported"
    assert card.css_first(".score").text() == "90 – 10"
    assert f"{a.user_name} won" in card.css_first(".game-result").text()  # type: ignore[attr-defined]
    error = doc.css_first(f"#game-{game['id']}-error").text()
    assert "changed after you opened this page" in error
    assert card.css_first("form.confirm-form input[name=report_version]").attributes["value"] == "2"
    assert b.get(api).json()["status"] == "reported"  # nothing was confirmed

    # with htmx, from the league page's card: the card, swapped, with the same message
    swapped = b.post(
        f"{game_path}/confirm",
        data={"csrf_token": csrf(b, f"/leagues/{league_id}"), "report_version": old_version},
        headers={**HX, "HX-Target": f"my-game-{game['id']}"},
    )
    assert swapped.status_code == 200
    assert "<html" not in swapped.text
    fragment = html(swapped).css_first("article")
    assert fragment.attributes["id"] == f"my-game-{game['id']}"
    assert fragment.attributes["data-status"] == "reported"
    assert fragment.css_first(".score").text() == "90 – 10"
    assert "changed after you opened" in fragment.css_first(f"#my-game-{game['id']}-error").text()

    # a stale dispute and a form without a version are refused the same way
    disputed = _post(
        b, f"{game_path}/dispute", game_path, {"note": "wrong", "report_version": old_version}
    )
    assert disputed.status_code == 409
    assert _post(b, f"{game_path}/confirm", game_path).status_code == 409
    assert _post(b, f"{game_path}/confirm", game_path, {"report_version": "²"}).status_code == 409
    assert b.get(api).json()["status"] == "reported"

    # the fresh form confirms the report it shows
    fresh = html(refused).css_first("form.confirm-form input[name=report_version]")
    confirmed = _post(
        b, f"{game_path}/confirm", game_path, {"report_version": fresh.attributes["value"]}
    )
    assert confirmed.status_code == 303
    now = b.get(api).json()
    assert (now["status"], now["result"], now["vp_a"]) == ("confirmed", "player_a", 90)


def test_dispute_then_admin_settles_in_pages(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies, 2)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    game = _game(club.owner, league_id)
    a, b = _player(club, game, "player_a"), _player(club, game, "player_b")
    game_path = f"/leagues/{league_id}/games/{game['id']}"
    a.post(f"/api/v1{game_path}/report", json={"result": "player_a"})
    empty = _post(b, f"{game_path}/dispute", game_path, {"note": "  "})
    assert empty.status_code == 422
    assert html(empty).css_first("#dispute-error-note") is not None
    disputed = _post(
        b,
        f"{game_path}/dispute",
        game_path,
        {"note": "It was a draw", "next": "/evil", "report_version": "1"},
    )
    assert disputed.headers["location"] == game_path  # never an open redirect
    admin_page = html(club.owner.get(f"/leagues/{league_id}"))
    assert admin_page.css_first(f"#disputed-game-{game['id']}") is not None
    settle_page = html(club.owner.get(game_path))
    assert "It was a draw" in settle_page.css_first(".dispute-note").text()
    settle = settle_page.css_first("#settle-form")
    assert settle.attributes["hx-target"] == "#game-page"
    # a member who is not an admin gets a readable refusal
    third = club.members[2]
    refused = _post(third, f"{game_path}/settle", game_path, {"result": "draw"}, headers=HTML)
    assert refused.status_code == 403
    assert html(refused).css_first("#error-title").text() == "Only the club's admins may do this"
    settled = club.owner.post(
        f"{game_path}/settle",
        data={
            "csrf_token": csrf(club.owner, game_path),
            "result": "draw",
            "vp_a": "50",
            "vp_b": "50",
        },
        headers={**HX, "HX-Target": "game-page"},
    )
    assert settled.status_code == 200
    page = html(settled)
    assert page.css_first("#game-page") is not None
    assert page.css_first(f"#game-{game['id']}").attributes["data-status"] == "confirmed"
    assert "settled by a club admin" in page.css_first(".game-result").text()


def test_refusals_are_readable(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies, 2)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    game = _game(club.owner, league_id)
    a = _player(club, game, "player_a")
    game_path = f"/leagues/{league_id}/games/{game['id']}"
    third = club.members[2]
    # a third member sees the game but no form, and a post is refused with a message
    third_page = html(third.get(game_path))
    assert third_page.css_first("#report-form") is None
    refused = _post(third, f"{game_path}/report", game_path, {"result": "draw"}, headers=HTML)
    assert refused.status_code == 403
    assert "Only the two players" in html(refused).css_first("#error-detail").text()
    # with htmx the card comes back with the reason in it
    a.post(f"/api/v1{game_path}/report", json={"result": "draw"})
    card = third.post(
        f"{game_path}/confirm",
        data={"csrf_token": csrf(third, game_path)},
        headers={**HX, "HX-Target": f"game-{game['id']}"},
    )
    assert card.status_code == 200
    assert "Only the two players" in html(card).css_first(f"#game-{game['id']}-error").text()
    # outsiders: 404 without the league's name
    outsider = club.outsider.get(f"/leagues/{league_id}", headers=HTML)
    assert outsider.status_code == 404
    assert "Autumn" not in outsider.text
    assert html(outsider).css_first("#error-title").text() == "League not found"
    assert club.outsider.get(game_path, headers=HTML).status_code == 404
    # members are refused admin actions with a 403 page
    member = club.members[0]
    generate = _post(member, f"/leagues/{league_id}/rounds", f"/leagues/{league_id}", headers=HTML)
    assert generate.status_code == 403
    assert html(generate).css_first("#error-title") is not None
    assert member.get(f"/leagues/{league_id}/edit", headers=HTML).status_code == 403
    assert html(member.get(f"/leagues/{league_id}")).css_first("#admin") is None


# --------------------------------------------------------------------------- admin forms


def test_create_league_from_the_club_page(club: ClubSetup) -> None:
    club_page = f"/clubs/{club.club_id}"
    doc = html(club.owner.get(club_page))
    form = doc.css_first("#new-league form")
    assert form.attributes["action"] == f"/clubs/{club.club_id}/leagues"
    options = [o.attributes["value"] for o in form.css("select[name=rule_system] option")]
    assert options[:2] == ["wh40k-10e", "pen"]
    assert len(form.css("select[name^=tie_breaker_]")) == 5
    assert html(club.members[0].get(club_page)).css_first("#new-league") is None
    base = {
        "name": "Winter Swiss",
        "rule_system": "wh40k-10e",
        "format": "swiss",
        "legs": "1",
        "win": "3",
        "draw": "1",
        "loss": "0",
        "tie_breaker_1": "vp_difference",
        "tie_breaker_2": "head_to_head",
        "visibility": "public",
        "mission_pool": "Take and Hold\nSupply Drop\n",
    }
    missing = _post(club.owner, f"/clubs/{club.club_id}/leagues", club_page, base)
    assert missing.status_code == 422
    assert html(missing).css_first("#league-form-error") is not None
    created = _post(
        club.owner, f"/clubs/{club.club_id}/leagues", club_page, {**base, "rounds": "4"}
    )
    assert created.status_code == 303, created.text
    league_id = int(created.headers["location"].rsplit("/", 1)[1])
    league = club.owner.get(f"/api/v1/leagues/{league_id}").json()
    assert league["tie_breakers"] == ["vp_difference", "head_to_head"]
    assert league["mission_pool"] == ["Take and Hold", "Supply Drop"]
    assert league["rounds"] == 4
    assert league["visibility"] == "public"
    listed = html(club.owner.get(club_page)).css_first(f"#league-{league_id} a")
    assert listed.text() == "Winter Swiss"
    refused = _post(
        club.members[0], f"/clubs/{club.club_id}/leagues", club_page, base, headers=HTML
    )
    assert refused.status_code == 403
    # the dedicated page, and editing
    assert html(club.owner.get(f"/clubs/{club.club_id}/leagues/new")).css_first("#league-form")
    edit_path = f"/leagues/{league_id}/edit"
    edit_form = html(club.owner.get(edit_path)).css_first("#league-form")
    assert edit_form.css_first("input[name=name]").attributes["value"] == "Winter Swiss"
    edited = _post(club.owner, edit_path, edit_path, {**base, "rounds": "5", "name": "Renamed"})
    assert edited.status_code == 303
    assert club.owner.get(f"/api/v1/leagues/{league_id}").json()["name"] == "Renamed"
    bad = _post(club.owner, edit_path, edit_path, {**base, "rounds": "5", "win": "0", "draw": "2"})
    assert bad.status_code == 422


def test_register_with_a_ready_list_in_the_page(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id = club.league()
    alice = club.members[0]
    army = armies.ready(alice, name="Salamanders")
    armies.ready(alice, name="PEN list", rule_system="pen")
    page = f"/leagues/{league_id}"
    form = html(alice.get(page)).css_first("#register-form")
    options = form.css("select[name=army_id] option")
    assert [o.text() for o in options] == ["Salamanders (1995 points)"]
    registered = _post(alice, f"{page}/register", page, {"army_id": str(army)})
    assert registered.status_code == 303
    doc = html(alice.get(page))
    assert "Salamanders" in doc.css_first("#your-registration").text()
    assert doc.css_first("#withdraw-form") is not None
    # the player page shows the locked list; only admins get the replace form
    rid = alice.get(f"/api/v1/leagues/{league_id}").json()["you"]["registration_id"]
    player_page = f"/leagues/{league_id}/players/{rid}"
    mine = html(alice.get(player_page))
    assert mine.css_first("#army-name").text() == "Salamanders"
    assert [li.text() for li in mine.css("#army-units li")] == ["Intercessors"]
    assert mine.css_first("#replace-snapshot-form") is None
    admin_view = html(club.owner.get(player_page)).css_first("#replace-snapshot-form")
    assert [o.text() for o in admin_view.css("option")] == ["Salamanders (1995 points)"]
    replaced = _post(
        club.owner,
        f"/leagues/{league_id}/registrations/{rid}/snapshot",
        player_page,
        {"army_id": str(army)},
    )
    assert replaced.headers["location"] == player_page
    withdrawn = _post(alice, f"/leagues/{league_id}/registrations/{rid}/withdraw", page)
    assert withdrawn.status_code == 303
    assert html(alice.get(page)).css_first("#register-form") is not None


def test_visitor_cannot_register_and_is_told_why(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    setup = make_club(user_client, 0, public=True)
    league_id = setup.league(visibility="public")
    doc = html(setup.outsider.get(f"/leagues/{league_id}"))
    assert doc.css_first("#members-only") is not None
    assert doc.css_first("#register-form") is None


def test_ladder_page_creates_games(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id = club.league(format="ladder")
    ids = enrol(club, armies, league_id, *club.members)
    page = f"/leagues/{league_id}"
    assert html(club.owner.get(page)).css_first("#round") is None
    started = _post(club.owner, f"{page}/status", page, {"status": "running"})
    assert started.status_code == 303
    alice = club.members[0]
    form = html(alice.get(page)).css_first("#ladder-game-form")
    assert [int(o.attributes["value"]) for o in form.css("option")] == ids[1:]
    created = _post(alice, f"{page}/games", page, {"player_b": str(ids[2])})
    assert created.status_code == 303
    game_page = html(alice.get(created.headers["location"]))
    assert game_page.css_first("#report-form") is not None
    listed = html(alice.get(page)).css("#ladder-games .game-card")
    assert len(listed) == 1


def test_elo_table_on_the_club_page(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies, 2)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    game = _game(club.owner, league_id)
    a, b = _player(club, game, "player_a"), _player(club, game, "player_b")
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_b"})
    empty = html(club.owner.get(f"/clubs/{club.club_id}")).css("#elo-wh40k-10e tbody tr")
    assert len(empty) == 1 and "No confirmed result" in empty[0].text()  # noqa: PT018
    b.post(f"{base}/confirm", json={"report_version": 1})
    rows = html(club.owner.get(f"/clubs/{club.club_id}")).css("#elo-wh40k-10e tbody tr")
    assert [r.css_first(".rating").text() for r in rows] == ["1516", "1484"]
    assert rows[0].css("td")[1].text() == b.user_name  # type: ignore[attr-defined]


def test_leagues_index_and_nav(club: ClubSetup, client) -> None:  # type: ignore[no-untyped-def]
    league_id = club.league(name="Members Only")
    doc = html(club.members[0].get("/leagues"))
    assert doc.css_first(f"#league-{league_id} a").text() == "Members Only"
    assert [a.attributes["href"] for a in doc.css("#main-nav a")].count("/leagues") == 1
    assert html(client.get("/leagues")).css_first(f"#league-{league_id}") is None


def test_league_page_in_french(app, club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids = _round_robin(club, armies)
    club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
    french = TestClient(app)
    register(french, email="fr@example.com", name="Francine", language="fr")
    club.join_cookie = None  # type: ignore[attr-defined]
    code = club.owner.post(f"/api/v1/clubs/{club.club_id}/invites", json={}).json()["code"]
    joined = french.post(
        "/api/v1/clubs/join", json={"code": code}, headers={"X-CSRF-Token": csrf(french, "/")}
    )
    assert joined.status_code == 200, joined.text
    doc = html(french.get(f"/leagues/{league_id}"))
    assert doc.css_first("html").attributes["lang"] == "fr"
    assert doc.css_first("#standings h2").text() == "Classement"
    assert doc.css_first("#round-title").text().startswith("Ronde 1")
    assert doc.css_first("#league-status").text() == "En cours"
    assert "Exempt" in doc.css_first("#round-bye").text()
