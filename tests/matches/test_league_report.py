"""A confirmed match that cannot update its league game says so to both players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from app.leagues.models import Game, GameStatus
from tests.matches.conftest import FakeArmies, Player, league_game, setup_battle, wipe_out_b
from tests.matches.conftest import Game as Table
from tests.support.web import html

FEW = Roster(
    "Adeptus Astartes",
    "Gladius Task Force",
    BattleSize.INCURSION,
    (RosterUnit("Captain", warlord=True), RosterUnit("Intercessor Squad", 5)),
)
ALONE = Roster("Orks", "War Horde", BattleSize.INCURSION, (RosterUnit("Warboss", warlord=True),))


def _play_to_the_end(alice: TestClient, bob: TestClient, armies: FakeArmies, game_id: int) -> Table:
    """A league match where Alice tables Bob's lone Warboss; both still have to confirm."""
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, FEW),
            "battle_size": "incursion",
            "league_game_id": game_id,
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, ALONE)},
    )
    assert r.status_code == 200, r.text
    t = Table(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])
    setup_battle(t)
    wipe_out_b(t)
    assert t.a.get()["status"] == "ended"
    return t


def _report_banner(client: TestClient, match_id: int) -> Any:
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200, page.text
    return html(page).css_first("#result #league-report-error")


def test_a_failed_league_report_is_shown_to_both_players(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    fixture = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    t = _play_to_the_end(alice, bob, armies, fixture.game_id)
    # meanwhile the players entered another result by hand on the league page, confirmed
    game = db.get(Game, fixture.game_id)
    assert game is not None
    game.status = GameStatus.CONFIRMED
    game.winner_id = fixture.registrations[1]
    game.vp_a, game.vp_b = 10, 45
    game.accepted_a = game.accepted_b = True
    game.reported_by_id = bob.user_id  # type: ignore[attr-defined]
    db.commit()
    t.a.send({"type": "confirm_result"})
    assert _report_banner(alice, t.match_id) is None  # not confirmed by both yet
    t.b.send({"type": "confirm_result"})  # the match is confirmed; the report fails
    for p in (t.a, t.b):
        seen = p.get()
        assert seen["status"] == "confirmed"
        assert seen["league_game_id"] == fixture.game_id
        assert seen["league_reported"] is False
        assert seen["league_report_error"] == "game-state-conflict"
    # the league game keeps the result entered by hand
    db.refresh(game)
    assert (game.status, game.winner_id, game.vp_a, game.vp_b, game.match_id) == (
        "confirmed",
        fixture.registrations[1],
        10,
        45,
        None,
    )
    # both players read it on the match page, with the way to the league game
    for client in (alice, bob):
        banner = _report_banner(client, t.match_id)
        assert banner is not None
        assert banner.attributes["role"] == "alert"
        text = banner.text(separator=" ")
        assert "could not be sent to the league" in text
        assert "report it by hand" in text
        assert "ask a club admin" in text
        assert "The league game already has a confirmed result." in text
        link = banner.css_first("a#league-game-link")
        assert link.attributes["href"] == f"/leagues/{fixture.league_id}/games/{fixture.game_id}"
    # and in French
    r = bob.patch("/api/v1/me", json={"preferred_language": "fr"})
    assert r.status_code == 200, r.text
    banner = _report_banner(bob, t.match_id)
    assert "n'a pas pu être transmis à la ligue" in banner.text()
    assert "La partie de ligue a déjà un résultat confirmé." in banner.text()
    assert banner.css_first("a#league-game-link").text() == "Ouvrir la partie de ligue"


def test_a_league_report_that_went_through_shows_no_warning(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    fixture = league_game(db, alice.user_id, bob.user_id)  # type: ignore[attr-defined]
    t = _play_to_the_end(alice, bob, armies, fixture.game_id)
    t.a.send({"type": "confirm_result"})
    t.b.send({"type": "confirm_result"})
    seen = t.b.get()
    assert seen["status"] == "confirmed"
    assert seen["league_reported"] is True
    assert seen["league_report_error"] is None
    game = db.get(Game, fixture.game_id)
    assert game is not None
    db.refresh(game)
    assert (game.status, game.match_id) == ("confirmed", t.match_id)
    for client in (alice, bob):
        page = html(client.get(f"/matches/{t.match_id}"))
        assert page.css_first("#result") is not None
        assert page.css_first("#league-report-error") is None


def test_a_match_outside_a_league_has_nothing_to_report(
    new_game: Callable[..., Table],
) -> None:
    seen = new_game().a.get()
    assert seen["league_game_id"] is None
    assert seen["league_reported"] is False
    assert seen["league_report_error"] is None
