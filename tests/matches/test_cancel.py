"""Cancelling an open match: its creator only, before the opponent joins (API and page)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.leagues.models import Game
from app.matches.models import Match, MatchEvent
from tests.matches.conftest import FakeArmies, league_game, marines, orks, setup_battle
from tests.matches.conftest import Game as Table
from tests.support.web import csrf, html

HX = {"HX-Request": "true"}
PROBLEM = "application/problem+json"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["type"].endswith("/" + code), body
    assert body["status"] == status
    assert body.get("detail")
    return body


def _exists(db: Session, match_id: int) -> bool:
    found = db.scalar(select(Match.id).where(Match.id == match_id))
    db.commit()
    return found is not None


def _open_match(client: TestClient, armies: FakeArmies, **extra: Any) -> dict[str, Any]:
    r = client.post("/api/v1/matches", json={"army_id": armies.ready(client, marines()), **extra})
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()
    assert created["status"] == "open"
    return created


def _create_on_page(client: TestClient, armies: FakeArmies, opponent: str = "user") -> int:
    r = client.post(
        "/matches",
        data={"army_id": armies.ready(client, marines()), "opponent": opponent},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


# -- the JSON API -----------------------------------------------------------------------------


def test_the_creator_cancels_an_open_match(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    created = _open_match(alice, armies)
    base = f"/api/v1/matches/{created['id']}"
    r = alice.delete(base)
    assert r.status_code == 204, r.text
    assert r.content == b""
    assert not _exists(db, created["id"])
    problem(alice.get(base), 404, "match-not-found")
    problem(alice.delete(base), 404, "match-not-found")
    assert alice.get("/api/v1/matches").json() == []
    # its invitation went with it
    problem(
        bob.post(
            "/api/v1/matches/join",
            json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
        ),
        404,
        "invitation-invalid",
    )


def test_nobody_else_cancels_an_open_match(
    user_client: Callable[[str], TestClient], armies: FakeArmies, app: Any, db: Session
) -> None:
    alice, carol = user_client("Alice"), user_client("Carol")
    created = _open_match(alice, armies)
    base = f"/api/v1/matches/{created['id']}"
    problem(carol.delete(base), 404, "match-not-found")
    anonymous = TestClient(app)
    problem(anonymous.delete(base), 404, "match-not-found")
    problem(carol.delete("/api/v1/matches/999999"), 404, "match-not-found")
    # the holder of a guest seat's link plays seat B: refused, as for the invitation
    guest_match = _open_match(alice, armies, opponent="guest")
    token = guest_match["invitation"]["guest_url"].rsplit("/", 1)[1]
    guest_base = f"/api/v1/matches/{guest_match['id']}"
    problem(
        anonymous.delete(guest_base, headers={"X-Guest-Token": "x" * 40}), 404, "match-not-found"
    )
    problem(
        anonymous.delete(guest_base, headers={"X-Guest-Token": token}), 403, "match-creator-only"
    )
    for match in (created, guest_match):
        assert _exists(db, match["id"])
        seen = alice.get(f"/api/v1/matches/{match['id']}").json()
        assert (seen["status"], seen["version"]) == ("open", 0)


def test_a_started_match_cannot_be_cancelled(new_game: Callable[..., Table], db: Session) -> None:
    g = new_game()
    events = select(func.count()).select_from(MatchEvent).where(MatchEvent.match_id == g.match_id)
    for stage in ("setup", "battle"):
        if stage == "battle":
            setup_battle(g)
        before = g.a.get()
        assert before["status"] == stage
        stored = db.scalar(events)
        db.commit()
        body = problem(g.a.client.delete(g.a.base), 409, "match-started")
        assert body["title"]
        problem(g.b.client.delete(g.b.base), 403, "match-creator-only")
        after = g.a.get()
        assert (after["status"], after["version"]) == (stage, before["version"])
        assert db.scalar(events) == stored
        db.commit()


def test_a_cancelled_league_match_frees_its_league_game(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    game = db.get(Game, league_game(db, alice.user_id, bob.user_id).game_id)  # type: ignore[attr-defined]
    assert game is not None
    created = _open_match(alice, armies, league_game_id=game.id)
    assert created["league_game_id"] == game.id
    # while the match is open, the game is taken
    again = {"army_id": armies.ready(alice, marines()), "league_game_id": game.id}
    problem(alice.post("/api/v1/matches", json=again), 422, "league-game-unusable")
    assert alice.delete(f"/api/v1/matches/{created['id']}").status_code == 204
    db.refresh(game)
    assert (game.status, game.match_id, game.winner_id) == ("scheduled", None, None)
    # the game may be played again, by either player
    r = bob.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(bob, orks()), "league_game_id": game.id},
    )
    assert r.status_code == 201, r.text
    assert r.json()["league_game_id"] == game.id


# -- the page ---------------------------------------------------------------------------------


def test_the_creator_cancels_from_the_waiting_page(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice = browser("Alice")
    match_id = _create_on_page(alice, armies)
    page = html(alice.get(f"/matches/{match_id}"))
    form = page.css_first("#waiting #cancel-match-form")
    assert form is not None
    assert form.attributes["method"] == "post"
    assert form.attributes["action"] == f"/matches/{match_id}/cancel"
    assert form.attributes["hx-post"] == f"/matches/{match_id}/cancel"
    assert form.attributes.get("hx-confirm")
    token = form.css_first("input[name=csrf_token]").attributes["value"]
    assert token == alice.csrf  # type: ignore[attr-defined]
    assert form.css_first("button#cancel-match").text() == "Cancel this match"
    # without JS: a plain form post, redirected to the matches with a notice
    del alice.headers["X-CSRF-Token"]
    r = alice.post(
        f"/matches/{match_id}/cancel", data={"csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/matches?cancelled={match_id}"
    assert not _exists(db, match_id)
    listing = html(alice.get(r.headers["location"]))
    assert listing.css_first("#match-cancelled").text() == f"Match #{match_id} was cancelled."
    assert listing.css("#my-matches a.match-link") == []
    assert alice.get(f"/matches/{match_id}").status_code == 404
    # with htmx: HX-Redirect
    alice.headers["X-CSRF-Token"] = alice.csrf  # type: ignore[attr-defined]
    other = _create_on_page(alice, armies)
    r = alice.post(f"/matches/{other}/cancel", headers=HX)
    assert r.status_code == 200, r.text
    assert r.headers["hx-redirect"] == f"/matches?cancelled={other}"
    assert not _exists(db, other)


def test_the_notice_in_french(browser: Callable[[str], TestClient], armies: FakeArmies) -> None:
    alice = browser("Alice")
    match_id = _create_on_page(alice, armies)
    r = alice.post("/language", data={"language": "fr", "next": "/matches"}, follow_redirects=False)
    assert r.status_code == 303
    page = html(alice.get(f"/matches/{match_id}"))
    assert page.css_first("#cancel-match").text() == "Annuler cette partie"
    r = alice.post(f"/matches/{match_id}/cancel")
    assert r.status_code == 200, r.text  # followed to the matches
    assert html(r).css_first("#match-cancelled").text() == f"La partie n°{match_id} a été annulée."


def test_the_cancel_form_needs_its_csrf_token(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice = browser("Alice")
    match_id = _create_on_page(alice, armies)
    del alice.headers["X-CSRF-Token"]
    for data in ({}, {"csrf_token": "forged"}):
        r = alice.post(f"/matches/{match_id}/cancel", data=data, follow_redirects=False)
        assert r.status_code == 403, r.text
    assert _exists(db, match_id)


def test_others_never_see_nor_use_the_cancel_form(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any, db: Session
) -> None:
    alice, carol = browser("Alice"), browser("Carol")
    match_id = _create_on_page(alice, armies)
    # another user: the match does not exist for them
    r = carol.post(f"/matches/{match_id}/cancel", headers={"Accept": "text/html"})
    assert r.status_code == 404
    # anonymous: log in first
    anonymous = TestClient(app, base_url="http://testserver")
    token = csrf(anonymous, "/login")
    r = anonymous.post(
        f"/matches/{match_id}/cancel", data={"csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303
    assert r.headers["location"].startswith("/login")
    # the guest seat's link holder (seat B of an open guest match): no form, and refused
    guest_match = _create_on_page(alice, armies, opponent="guest")
    link = html(alice.get(f"/matches/{guest_match}")).css_first("#guest-link").attributes["href"]
    guest = TestClient(app, base_url="http://testserver")
    token = csrf(guest, re.sub(r"^http://testserver", "", str(link)))
    guest.cookies.set(f"auspex_guest_{guest_match}", str(link).rsplit("/", 1)[1])
    page = guest.get(f"/matches/{guest_match}")
    assert page.status_code == 200
    assert html(page).css_first("#match-state").attributes["data-seat"] == "B"
    assert html(page).css_first("#cancel-match-form") is None
    r = guest.post(
        f"/matches/{guest_match}/cancel",
        data={"csrf_token": token},
        headers={"Accept": "text/html"},
        follow_redirects=False,
    )
    assert r.status_code == 403, r.text
    assert html(r).css_first("#match-error") is not None
    assert _exists(db, match_id)
    assert _exists(db, guest_match)


def test_no_cancel_form_once_the_opponent_joined(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    match_id = _create_on_page(alice, armies)
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    for client in (alice, bob):
        assert html(client.get(f"/matches/{match_id}")).css_first("#cancel-match-form") is None
    # a stale page posting anyway: the match page with the refusal
    r = alice.post(f"/matches/{match_id}/cancel", headers={"Accept": "text/html"})
    assert r.status_code == 409, r.text
    assert "can no longer be cancelled" in html(r).css_first("#match-error").text()
    r = alice.post(f"/matches/{match_id}/cancel", headers=HX)
    assert r.status_code == 200
    assert "<html" not in r.text
    assert html(r).css_first("#match-error") is not None
    r = bob.post(f"/matches/{match_id}/cancel", headers={"Accept": "text/html"})
    assert r.status_code == 403
    assert _exists(db, match_id)
    assert (
        html(alice.get(f"/matches/{match_id}")).css_first("#match-state").attributes["data-version"]
        == "2"
    )
