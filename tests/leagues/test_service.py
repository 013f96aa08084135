"""The service's hook for the match tracker (report_from_match) and the army-snapshot seam."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.leagues import service
from app.leagues.exceptions import ArmyNotReady, GameNotFound, GameStateConflict, InvalidResult
from app.leagues.models import Game, GameStatus
from tests.leagues.conftest import ClubSetup, FakeArmies, enrol


def _fixture(club: ClubSetup, armies: FakeArmies) -> tuple[int, dict, dict]:  # type: ignore[type-arg]
    league_id = club.league()
    ids = enrol(club, armies, league_id, club.members[0], club.members[1])
    game = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()["games"][0]
    by_reg = dict(zip(ids, club.members[:2], strict=True))
    return league_id, game, by_reg


def test_tracked_match_reports_and_both_players_confirm(
    club: ClubSetup, armies: FakeArmies, db: Session
) -> None:
    league_id, game, by_reg = _fixture(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    reported = service.report_from_match(
        db, game["id"], winner_user_id=b.user_id, vp=(35, 72), match_id=77
    )
    db.commit()
    assert reported.status == GameStatus.REPORTED
    assert reported.match_id == 77
    assert reported.winner_id == game["player_b"]["registration_id"]
    assert (reported.vp_a, reported.vp_b) == (35, 72)
    assert reported.reported_by_id is None
    assert (reported.accepted_a, reported.accepted_b) == (False, False)
    assert reported.report_version == 1
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    # the tracker's report is nobody's acceptance: BOTH players confirm
    first = a.post(f"{base}/confirm", json={"report_version": 1}).json()
    assert first["status"] == "reported"
    assert first["match_id"] == 77
    second = b.post(f"{base}/confirm", json={"report_version": 1}).json()
    assert second["status"] == "confirmed"
    rows = a.get(f"/api/v1/leagues/{league_id}/standings").json()["rows"]
    assert rows[0]["player"]["user_id"] == b.user_id
    assert rows[0]["vp_for"] == 72
    db.expire_all()  # the app's sessions changed the game since
    with pytest.raises(GameStateConflict):
        service.report_from_match(db, game["id"], winner_user_id=None, vp=(1, 1), match_id=78)


def test_tracked_match_confirmed_in_the_tracker_counts_at_once(
    club: ClubSetup, armies: FakeArmies, db: Session
) -> None:
    league_id, game, _ = _fixture(club, armies)
    done = service.report_from_match(
        db, game["id"], winner_user_id=None, vp=(50, 50), match_id=5, confirmed_by_both=True
    )
    db.commit()
    assert done.status == GameStatus.CONFIRMED
    assert done.winner_id is None
    assert done.confirmed_at is not None
    rows = club.owner.get(f"/api/v1/leagues/{league_id}/standings").json()["rows"]
    assert [r["draws"] for r in rows] == [1, 1]
    elo = club.owner.get(f"/api/v1/clubs/{club.club_id}/elo?rule_system=wh40k-10e").json()
    assert [r["rating"] for r in elo["ratings"]] == [1500, 1500]
    assert [r["games"] for r in elo["ratings"]] == [1, 1]


def test_tracked_match_may_answer_a_dispute(
    club: ClubSetup, armies: FakeArmies, db: Session
) -> None:
    league_id, game, by_reg = _fixture(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_a"})
    disputed = b.post(f"{base}/dispute", json={"note": "in the tracker", "report_version": 1})
    assert disputed.json()["status"] == "disputed"
    db.expire_all()
    fixed = service.report_from_match(
        db, game["id"], winner_user_id=a.user_id, vp=(80, 20), match_id=9
    )
    assert fixed.status == GameStatus.REPORTED
    assert fixed.winner_id == game["player_a"]["registration_id"]
    assert fixed.report_version == 2  # a new report: answers to the first one are refused


def test_a_tracked_match_report_refuses_a_confirm_of_the_hand_report(
    club: ClubSetup, armies: FakeArmies, db: Session
) -> None:
    """B saw A's hand report; the tracker then reports the match (a new report): B's confirm
    from the old view confirms nothing, and its answer shows the tracker's result."""
    league_id, game, by_reg = _fixture(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    hand = a.post(f"{base}/report", json={"result": "player_a", "vp_a": 90, "vp_b": 10}).json()
    db.expire_all()
    service.report_from_match(db, game["id"], winner_user_id=b.user_id, vp=(30, 70), match_id=4)
    db.commit()
    refused = b.post(f"{base}/confirm", json={"report_version": hand["report_version"]})
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["type"].endswith("/report-changed")
    assert body["report_version"] == 2
    assert (body["game"]["result"], body["game"]["vp_a"], body["game"]["vp_b"]) == (
        "player_b",
        30,
        70,
    )
    assert body["game"]["match_id"] == 4
    now = a.get(base).json()
    assert (now["status"], now["accepted_a"], now["accepted_b"]) == ("reported", False, False)


def test_tracked_match_refuses_bad_input(club: ClubSetup, armies: FakeArmies, db: Session) -> None:
    _league_id, game, _ = _fixture(club, armies)
    with pytest.raises(InvalidResult):
        service.report_from_match(
            db,
            game["id"],
            winner_user_id=club.outsider.user_id,  # type: ignore[attr-defined]
            vp=(1, 0),
            match_id=1,
        )
    with pytest.raises(InvalidResult):
        service.report_from_match(db, game["id"], winner_user_id=None, vp=(-1, 0), match_id=1)
    with pytest.raises(GameNotFound):
        service.report_from_match(db, 10**9, winner_user_id=None, vp=(0, 0), match_id=1)
    untouched = db.get(Game, game["id"])
    assert untouched is not None
    assert untouched.status == GameStatus.SCHEDULED
    assert untouched.match_id is None


def test_without_the_armies_feature_no_list_can_be_registered(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    real_import = importlib.import_module

    def no_armies(name: str, package: str | None = None):  # type: ignore[no-untyped-def]
        if name.startswith("app.armies"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, package)

    monkeypatch.setattr(service.importlib, "import_module", no_armies)
    with pytest.raises(ArmyNotReady):
        service.ready_snapshot(db, User(id=1, email="x@example.com", display_name="X"), 1)
