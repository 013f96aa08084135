"""Leagues through the JSON API: each format end to end, results, access rules, standings, Elo."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations
from typing import Any

from fastapi.testclient import TestClient

from app.leagues.pairing import round_robin, swiss_round
from app.leagues.standings import GameResult
from tests.leagues.conftest import ClubSetup, FakeArmies, enrol, make_club

PROBLEM = "application/problem+json"


def _problem(response, status: int, code: str | None = None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    if code is not None:
        assert body["type"].endswith("/" + code), body
    return dict(body)


def seen(client: TestClient, base: str) -> dict[str, int]:
    """The body of a confirm or dispute: the report version ``client`` sees now."""
    response = client.get(base)
    assert response.status_code == 200, response.text
    return {"report_version": int(response.json()["report_version"])}


def _play(
    league_id: int,
    game: dict[str, Any],
    by_reg: dict[int, TestClient],
    result: str = "player_a",
    vp: tuple[int, int] = (60, 40),
) -> dict[str, Any]:
    """Player A reports, player B confirms."""
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    reported = a.post(f"{base}/report", json={"result": result, "vp_a": vp[0], "vp_b": vp[1]})
    assert reported.status_code == 200, reported.text
    confirmed = b.post(f"{base}/confirm", json=seen(b, base))
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["status"] == "confirmed"
    return dict(confirmed.json())


def _standings(client: TestClient, league_id: int) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/leagues/{league_id}/standings")
    assert response.status_code == 200, response.text
    return list(response.json()["rows"])


def _league_with_players(
    club: ClubSetup, armies: FakeArmies, n: int | None = None, **fields: Any
) -> tuple[int, list[int], dict[int, TestClient]]:
    league_id = club.league(**fields)
    players = club.members[: n or len(club.members)]
    ids = enrol(club, armies, league_id, *players)
    return league_id, ids, dict(zip(ids, players, strict=True))


# --------------------------------------------------------------------------- creating leagues


def test_only_club_admins_create_and_edit_leagues(club: ClubSetup, client) -> None:  # type: ignore[no-untyped-def]
    body = {"club_id": club.club_id, "name": "L", "rule_system": "wh40k-10e", "format": "ladder"}
    _problem(club.members[0].post("/api/v1/leagues", json=body), 403, "club-admin-required")
    _problem(club.outsider.post("/api/v1/leagues", json=body), 404, "club-not-found")
    _problem(client.post("/api/v1/leagues", json=body), 401)
    league_id = club.league(format="ladder", mission_pool=["Take and Hold", " Take  and Hold"])
    got = club.owner.get(f"/api/v1/leagues/{league_id}").json()
    assert got["mission_pool"] == ["Take and Hold"]
    assert got["you"] == {"is_admin": True, "is_member": True, "registration_id": None}
    assert got["status"] == "registration"
    assert got["tie_breakers"] == [
        "strength_of_schedule",
        "head_to_head",
        "vp_difference",
        "vp_scored",
    ]
    patch = club.members[0].patch(f"/api/v1/leagues/{league_id}", json={"name": "Mine"})
    _problem(patch, 403, "club-admin-required")
    _problem(club.outsider.patch(f"/api/v1/leagues/{league_id}", json={"name": "X"}), 404)
    edited = club.owner.patch(
        f"/api/v1/leagues/{league_id}",
        json={"name": "Winter", "scoring": {"win": 2, "draw": 1, "loss": 0}, "points_limit": 2000},
    )
    assert edited.status_code == 200, edited.text
    assert edited.json()["name"] == "Winter"
    assert edited.json()["scoring"] == {"win": 2, "draw": 1, "loss": 0, "bye": 2}


def test_openapi_documents_the_league_routes(client) -> None:  # type: ignore[no-untyped-def]
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in (
        "/api/v1/leagues",
        "/api/v1/leagues/{league_id}",
        "/api/v1/leagues/{league_id}/registrations",
        "/api/v1/leagues/{league_id}/registrations/{registration_id}/snapshot",
        "/api/v1/leagues/{league_id}/rounds",
        "/api/v1/leagues/{league_id}/games",
        "/api/v1/leagues/{league_id}/games/{game_id}/settle",
        "/api/v1/leagues/{league_id}/standings",
        "/api/v1/clubs/{club_id}/elo",
        "/api/v1/clubs/{club_id}/leagues",
    ):
        assert path in paths, path
    assert not any(p.startswith("/leagues") for p in paths)  # pages stay out of the schema


def test_openapi_documents_the_report_version(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/api/v1/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert "report_version" in schemas["GameOut"]["required"]
    for action, body in (("confirm", "ConfirmIn"), ("dispute", "DisputeIn")):
        operation = spec["paths"][f"/api/v1/leagues/{{league_id}}/games/{{game_id}}/{action}"][
            "post"
        ]
        assert operation["requestBody"]["required"] is True
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/" + body)
        assert "report_version" in schemas[body]["required"]
        assert "report-changed" in schemas[body]["properties"]["report_version"]["description"]
        assert "report-changed" in operation["responses"]["409"]["description"]
        assert "application/problem+json" in operation["responses"]["409"]["content"]


def test_league_settings_are_validated(club: ClubSetup) -> None:
    base = {"club_id": club.club_id, "name": "L", "format": "round_robin"}
    unknown = club.owner.post("/api/v1/leagues", json={**base, "rule_system": "chess"})
    body = _problem(unknown, 422, "invalid-league")
    assert body["errors"][0]["field"] == "rule_system"
    swiss = club.owner.post(
        "/api/v1/leagues", json={**base, "rule_system": "pen", "format": "swiss"}
    )
    _problem(swiss, 422)
    twice = club.owner.post(
        "/api/v1/leagues",
        json={**base, "rule_system": "pen", "tie_breakers": ["vp_scored", "vp_scored"]},
    )
    _problem(twice, 422)
    scoring = club.owner.post(
        "/api/v1/leagues",
        json={**base, "rule_system": "pen", "scoring": {"win": 1, "draw": 2, "loss": 0}},
    )
    _problem(scoring, 422)
    extra = club.owner.post("/api/v1/leagues", json={**base, "rule_system": "pen", "typo": 1})
    _problem(extra, 422)


def test_status_moves_forward_and_schedule_settings_lock(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, _ids, _ = _league_with_players(club, armies)
    assert club.owner.post(f"/api/v1/leagues/{league_id}/rounds").status_code == 201
    locked = club.owner.patch(f"/api/v1/leagues/{league_id}", json={"format": "swiss"})
    assert _problem(locked, 422, "invalid-league")["errors"][0]["field"] == "format"
    back = club.owner.patch(f"/api/v1/leagues/{league_id}", json={"status": "registration"})
    _problem(back, 422)
    done = club.owner.patch(f"/api/v1/leagues/{league_id}", json={"status": "finished"})
    assert done.json()["status"] == "finished"


# --------------------------------------------------------------------------- visibility


def test_private_league_is_invisible_to_outsiders(user_client, client) -> None:  # type: ignore[no-untyped-def]
    setup = make_club(user_client, 1, public=True)
    private = setup.league(name="Secret League", visibility="private")
    public = setup.league(name="Open League", visibility="public")
    for who in (setup.outsider, client):
        for path in ("", "/standings", "/registrations", "/rounds", "/games"):
            response = who.get(f"/api/v1/leagues/{private}{path}")
            _problem(response, 404, "league-not-found")
            assert "Secret" not in response.text
        assert who.get(f"/api/v1/leagues/{public}").status_code == 200
        names = [league["name"] for league in who.get("/api/v1/leagues").json()]
        assert "Secret League" not in names
        assert "Open League" in names
        club_names = [
            league["name"] for league in who.get(f"/api/v1/clubs/{setup.club_id}/leagues").json()
        ]
        assert club_names == ["Open League"]
    member_view = setup.members[0].get(f"/api/v1/clubs/{setup.club_id}/leagues").json()
    assert {league["name"] for league in member_view} == {"Secret League", "Open League"}


def test_public_league_of_a_private_club_stays_with_members(user_client) -> None:  # type: ignore[no-untyped-def]
    setup = make_club(user_client, 1, public=False)
    league_id = setup.league(visibility="public")
    _problem(setup.outsider.get(f"/api/v1/leagues/{league_id}"), 404, "league-not-found")
    _problem(setup.outsider.get(f"/api/v1/clubs/{setup.club_id}/leagues"), 404, "club-not-found")
    assert setup.members[0].get(f"/api/v1/leagues/{league_id}").status_code == 200


# --------------------------------------------------------------------------- registration


def test_registration_snapshot_is_locked(club: ClubSetup, armies: FakeArmies) -> None:
    league_id = club.league()
    alice = club.members[0]
    army = armies.ready(alice, name="Iron Hands")
    response = alice.post(f"/api/v1/leagues/{league_id}/registrations", json={"army_id": army})
    assert response.status_code == 201, response.text
    registration = response.json()
    assert registration["army_name"] == "Iron Hands"
    assert registration["snapshot"]["units"] == [{"name": "Intercessors", "points": 80}]
    # Alice edits her list afterwards: the league keeps the copy it locked.
    armies.lists[(alice.user_id, army)]["units"].append({"name": "Redemptor", "points": 210})
    armies.lists[(alice.user_id, army)]["name"] = "Renamed"
    listed = club.owner.get(f"/api/v1/leagues/{league_id}/registrations").json()
    assert listed[0]["snapshot"]["units"] == [{"name": "Intercessors", "points": 80}]
    assert listed[0]["army_name"] == "Iron Hands"
    # Only an admin replaces it, with one of HER ready lists.
    rid = registration["registration_id"]
    path = f"/api/v1/leagues/{league_id}/registrations/{rid}/snapshot"
    _problem(alice.put(path, json={"army_id": army}), 403, "club-admin-required")
    replaced = club.owner.put(path, json={"army_id": army})
    assert replaced.status_code == 200, replaced.text
    assert len(replaced.json()["snapshot"]["units"]) == 2
    assert replaced.json()["snapshot_replaced_by_id"] == club.owner.user_id  # type: ignore[attr-defined]
    owners_list = armies.ready(club.owner)
    _problem(club.owner.put(path, json={"army_id": owners_list}), 422, "army-not-ready")


def test_registration_rules(club: ClubSetup, armies: FakeArmies, user_client) -> None:  # type: ignore[no-untyped-def]
    league_id = club.league()
    alice, bob = club.members[0], club.members[1]
    path = f"/api/v1/leagues/{league_id}/registrations"
    unready = armies.ready(alice, ready=False)
    _problem(alice.post(path, json={"army_id": unready}), 422, "army-not-ready")
    _problem(alice.post(path, json={"army_id": armies.ready(bob)}), 422, "army-not-ready")
    _problem(club.outsider.post(path, json={"army_id": 1}), 404, "league-not-found")
    pen = alice.post(path, json={"army_id": armies.ready(alice, rule_system="pen")})
    assert "the league plays wh40k-10e" in _problem(pen, 422, "army-not-ready")["detail"]
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"points_limit": 1000})
    heavy = alice.post(path, json={"army_id": armies.ready(alice)})
    assert "limit is 1000" in _problem(heavy, 422, "army-not-ready")["detail"]
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"points_limit": None})
    ok = alice.post(path, json={"army_id": armies.ready(alice)})
    assert ok.status_code == 201
    _problem(alice.post(path, json={"army_id": armies.ready(alice)}), 409, "already-registered")
    rid = ok.json()["registration_id"]
    _problem(bob.delete(f"{path}/{rid}"), 403, "not-your-game")
    assert alice.delete(f"{path}/{rid}").status_code == 204
    ids = enrol(club, armies, league_id, alice, bob)
    assert club.owner.post(f"/api/v1/leagues/{league_id}/rounds").status_code == 201
    _problem(alice.delete(f"{path}/{ids[0]}"), 409, "registration-closed")
    late = club.members[2].post(path, json={"army_id": armies.ready(club.members[2])})
    _problem(late, 409, "registration-closed")
    # A visitor of a public club sees public leagues but cannot register.
    setup = make_club(user_client, 0, public=True, prefix="Other")
    open_league = setup.league(visibility="public")
    stranger = setup.outsider
    refused = stranger.post(
        f"/api/v1/leagues/{open_league}/registrations", json={"army_id": armies.ready(stranger)}
    )
    _problem(refused, 403, "club-member-required")


# --------------------------------------------------------------------------- round robin


def test_round_robin_end_to_end(user_client, armies: FakeArmies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 4)
    league_id, ids, by_reg = _league_with_players(club, armies)
    assert club.owner.get(f"/api/v1/leagues/{league_id}").json()["rounds"] == 3
    _problem(club.members[0].post(f"/api/v1/leagues/{league_id}/rounds"), 403)
    met: Counter[frozenset[int]] = Counter()
    expected = round_robin(ids)
    for number in (1, 2, 3):
        created = club.owner.post(f"/api/v1/leagues/{league_id}/rounds")
        assert created.status_code == 201, created.text
        round_ = created.json()
        assert round_["number"] == number
        assert round_["bye"] is None
        pairs = [
            (g["player_a"]["registration_id"], g["player_b"]["registration_id"])
            for g in round_["games"]
        ]
        assert pairs == [p.players for p in expected[number - 1].pairings]
        for game in round_["games"]:
            met[frozenset(game_players(game))] += 1
            # the lower registration id wins every game
            winner = (
                "player_a"
                if game["player_a"]["registration_id"] < game["player_b"]["registration_id"]
                else "player_b"
            )
            _play(league_id, game, by_reg, winner)
    assert met == Counter({frozenset(p): 1 for p in combinations(ids, 2)})
    _problem(club.owner.post(f"/api/v1/leagues/{league_id}/rounds"), 409, "round-not-allowed")
    league = club.owner.get(f"/api/v1/leagues/{league_id}").json()
    assert league["status"] == "running"
    assert league["rounds_generated"] == 3
    rows = _standings(club.owner, league_id)
    assert [r["player"]["registration_id"] for r in rows] == ids
    assert [r["points"]["exact"] for r in rows] == ["9", "6", "3", "0"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert all(r["games"] == 3 for r in rows)
    rounds = club.owner.get(f"/api/v1/leagues/{league_id}/rounds").json()
    assert [len(r["games"]) for r in rounds] == [2, 2, 2]


def game_players(game: dict[str, Any]) -> tuple[int, int]:
    return (game["player_a"]["registration_id"], game["player_b"]["registration_id"])


def test_round_robin_odd_field_records_and_scores_byes(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, ids, by_reg = _league_with_players(club, armies, scoring={"win": 3, "bye": 2})
    byes = []
    for _ in range(3):
        round_ = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()
        assert len(round_["games"]) == 1
        byes.append(round_["bye"]["registration_id"])
        _play(league_id, round_["games"][0], by_reg, "draw", (50, 50))
    assert sorted(byes) == sorted(ids)
    rows = _standings(club.owner, league_id)
    assert all(r["byes"] == 1 and r["draws"] == 2 for r in rows)
    assert {r["points"]["exact"] for r in rows} == {"4"}  # 2 draws + a bye worth 2
    assert all(r["tied"] and r["rank"] == 1 for r in rows)


# --------------------------------------------------------------------------- Swiss


def test_swiss_end_to_end_no_rematch_and_reproducible(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 4)
    league_id, ids, by_reg = _league_with_players(club, armies, format="swiss", rounds=3, seed=42)
    league = club.owner.get(f"/api/v1/leagues/{league_id}").json()
    assert league["seed"] == 42
    assert league["rounds"] == 3
    history: list[GameResult] = []
    met: set[frozenset[int]] = set()
    for number in (1, 2, 3):
        round_ = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()
        assert round_["number"] == number
        # reproducible: the pure pairing with the documented seed gives the same round
        expected = swiss_round(ids, history, [], random.Random(f"42:{number}"))
        assert [game_players(g) for g in round_["games"]] == [p.players for p in expected.pairings]
        assert round_["rematches"] == 0
        if number == 1:
            _problem(club.owner.post(f"/api/v1/leagues/{league_id}/rounds"), 409)
        for game in round_["games"]:
            pair = frozenset(game_players(game))
            assert pair not in met, "Swiss made a rematch"
            met.add(pair)
            a, b = game_players(game)
            winner = "player_a" if a < b else "player_b"
            _play(league_id, game, by_reg, winner)
            history.append(GameResult(a, b, min(a, b), 60, 40))
    assert len(met) == 6  # three rounds of four players: everyone met everyone once
    _problem(club.owner.post(f"/api/v1/leagues/{league_id}/rounds"), 409, "round-not-allowed")
    rows = _standings(club.owner, league_id)
    assert [r["player"]["registration_id"] for r in rows] == sorted(ids)


def test_swiss_odd_field_gives_byes_fairly_and_scores_them(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 5)
    league_id, _ids, by_reg = _league_with_players(club, armies, format="swiss", rounds=3, seed=7)
    byes = []
    for _ in range(3):
        round_ = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()
        byes.append(round_["bye"]["registration_id"])
        for game in round_["games"]:
            _play(league_id, game, by_reg, "player_a")
    assert len(set(byes)) == 3  # nobody gets a second bye while others have none
    rows = {r["player"]["registration_id"]: r for r in _standings(club.owner, league_id)}
    for rid in byes:
        assert rows[rid]["byes"] == 1
    total_points = sum(int(r["points"]["exact"]) for r in rows.values())
    assert total_points == 3 * 2 * 3 + 3 * 3  # six won games and three byes at 3 points


# --------------------------------------------------------------------------- ladder


def test_ladder_games(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, ids, by_reg = _league_with_players(
        club, armies, format="ladder", ladder={"max_meetings": 1}
    )
    alice, bob, chloe = club.members
    path = f"/api/v1/leagues/{league_id}/games"
    _problem(alice.post(path, json={"player_b": ids[1]}), 409, "league-not-running")
    _problem(club.owner.post(f"/api/v1/leagues/{league_id}/rounds"), 409, "round-not-allowed")
    started = club.owner.patch(f"/api/v1/leagues/{league_id}", json={"status": "running"})
    assert started.json()["status"] == "running"
    game = alice.post(path, json={"player_b": ids[1]})
    assert game.status_code == 201, game.text
    assert game.json()["round"] is None
    assert game_players(game.json()) == (ids[0], ids[1])
    again = alice.post(path, json={"player_b": ids[1]})
    body = _problem(again, 422, "ladder-game-refused")
    assert [e["code"] for e in body["errors"]] == ["meeting_limit"]
    _problem(chloe.post(path, json={"player_a": ids[0], "player_b": ids[1]}), 403, "not-your-game")
    refused = alice.post(path, json={"player_b": 99999})
    assert [e["code"] for e in _problem(refused, 422)["errors"]] == ["not_registered"]
    by_admin = club.owner.post(path, json={"player_a": ids[1], "player_b": ids[2]})
    assert by_admin.status_code == 201
    _play(league_id, game.json(), by_reg, "player_b", (30, 70))
    rows = _standings(club.owner, league_id)
    assert rows[0]["player"]["registration_id"] == ids[1]
    # a late comer joins a running ladder
    late = club.join(club.make_user("Late"))
    army = armies.ready(late)
    joined = late.post(f"/api/v1/leagues/{league_id}/registrations", json={"army_id": army})
    assert joined.status_code == 201
    assert bob.get(path, params={"registration_id": ids[1]}).json()[0]["id"] == game.json()["id"]


# --------------------------------------------------------------------------- results


def _started(
    club: ClubSetup, armies: FakeArmies
) -> tuple[int, dict[str, Any], dict[int, TestClient]]:
    """A two-player round robin with its one game scheduled."""
    league_id, _ids, by_reg = _league_with_players(club, armies, n=2)
    round_ = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()
    return league_id, round_["games"][0], by_reg


def test_report_then_confirm(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    third = club.members[2]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    result = {"result": "player_b", "vp_a": 45, "vp_b": 80}
    _problem(third.post(f"{base}/report", json=result), 403, "not-your-game")
    _problem(club.outsider.post(f"{base}/report", json=result), 404, "league-not-found")
    _problem(a.post(f"{base}/confirm", json=seen(a, base)), 409, "game-state-conflict")
    reported = a.post(f"{base}/report", json=result).json()
    assert reported["status"] == "reported"
    assert reported["reported_by_id"] == a.user_id
    assert (reported["accepted_a"], reported["accepted_b"]) == (True, False)
    assert reported["winner_user_id"] == b.user_id
    # unconfirmed: standings do not move
    assert all(r["games"] == 0 for r in _standings(a, league_id))
    _problem(a.post(f"{base}/confirm", json=seen(a, base)), 403, "not-the-other-player")
    _problem(third.post(f"{base}/confirm", json=seen(third, base)), 403, "not-your-game")
    _problem(
        club.owner.post(f"{base}/confirm", json=seen(club.owner, base)), 403, "not-the-other-player"
    )
    _problem(b.post(f"{base}/report", json=result), 409, "game-state-conflict")
    corrected = a.post(f"{base}/report", json={**result, "vp_b": 81})
    assert corrected.json()["vp_b"] == 81
    confirmed = b.post(f"{base}/confirm", json=seen(b, base)).json()
    assert confirmed["status"] == "confirmed"
    assert confirmed["confirmed_by_id"] == b.user_id
    _problem(a.post(f"{base}/report", json=result), 409, "game-state-conflict")
    rows = _standings(a, league_id)
    assert rows[0]["player"]["user_id"] == b.user_id
    assert rows[0]["vp_for"] == 81
    listed = a.get(f"/api/v1/leagues/{league_id}/games", params={"status": "confirmed"}).json()
    assert [g["id"] for g in listed] == [game["id"]]
    assert a.get(base).json()["status"] == "confirmed"
    _problem(a.get(f"/api/v1/leagues/{league_id}/games/999999"), 404, "league-game-not-found")
    other = club.league(name="Other")
    _problem(a.get(f"/api/v1/leagues/{other}/games/{game['id']}"), 404, "league-game-not-found")


def test_a_confirm_of_a_changed_report_is_refused(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    """Issue 11: A reports "B won 10–90", B opens it, A corrects it to "A won 90–10"; B's
    confirm from the old view confirms nothing and shows the new report."""
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    assert game["report_version"] == 0
    first = a.post(f"{base}/report", json={"result": "player_b", "vp_a": 10, "vp_b": 90}).json()
    assert first["report_version"] == 1
    opened = b.get(base).json()
    assert (opened["result"], opened["report_version"]) == ("player_b", 1)
    second = a.post(f"{base}/report", json={"result": "player_a", "vp_a": 90, "vp_b": 10}).json()
    assert second["report_version"] == 2

    refused = _problem(b.post(f"{base}/confirm", json={"report_version": 1}), 409, "report-changed")
    assert refused["report_version"] == 2
    assert refused["seen_version"] == 1
    assert f"{a.user_name} won 90–10" in refused["detail"]  # type: ignore[attr-defined]
    shown = refused["game"]
    assert (shown["id"], shown["status"], shown["result"]) == (game["id"], "reported", "player_a")
    assert (shown["vp_a"], shown["vp_b"], shown["report_version"]) == (90, 10, 2)
    assert shown["winner_user_id"] == a.user_id
    # nothing was confirmed, and the standings did not move
    now = b.get(base).json()
    assert (now["status"], now["accepted_a"], now["accepted_b"]) == ("reported", True, False)
    assert now["confirmed_by_id"] is None
    assert all(r["games"] == 0 for r in _standings(a, league_id))
    # a dispute of the old report is refused too
    _problem(
        b.post(f"{base}/dispute", json={"note": "no", "report_version": 1}), 409, "report-changed"
    )
    assert b.get(base).json()["status"] == "reported"
    # a version from the future is no better than a stale one
    _problem(b.post(f"{base}/confirm", json={"report_version": 3}), 409, "report-changed")
    # B confirms what B now sees
    confirmed = b.post(f"{base}/confirm", json={"report_version": 2})
    assert confirmed.status_code == 200, confirmed.text
    assert (confirmed.json()["status"], confirmed.json()["result"]) == ("confirmed", "player_a")
    assert confirmed.json()["report_version"] == 2  # a confirmation is not a new report
    assert _standings(a, league_id)[0]["player"]["user_id"] == a.user_id


def test_a_confirm_or_dispute_must_name_the_report(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_a"})
    for body in (None, {}, {"report_version": "one"}, {"report_version": -1}):
        answer = _problem(b.post(f"{base}/confirm", json=body), 422, "validation-error")
        assert "report_version" in answer["detail"] or body is None, answer
    _problem(b.post(f"{base}/confirm", json={"report_version": 2**31}), 422, "validation-error")
    _problem(b.post(f"{base}/dispute", json={"note": "no"}), 422, "validation-error")
    _problem(b.post(f"{base}/confirm", json={"report_version": 1, "x": 1}), 422)
    assert b.get(base).json()["status"] == "reported"


def test_every_new_result_is_a_new_report_version(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    assert a.post(f"{base}/report", json={"result": "draw"}).json()["report_version"] == 1
    disputed = b.post(f"{base}/dispute", json={"note": "no", "report_version": 1}).json()
    assert (disputed["status"], disputed["report_version"]) == ("disputed", 1)
    again = b.post(f"{base}/report", json={"result": "player_b", "vp_b": 5}).json()
    assert again["report_version"] == 2
    settled = club.owner.post(f"{base}/settle", json={"result": "player_a"}).json()
    assert (settled["status"], settled["report_version"]) == ("confirmed", 3)
    # the confirm of the report the admin overruled is refused with the settled result
    refused = _problem(a.post(f"{base}/confirm", json={"report_version": 2}), 409, "report-changed")
    assert (refused["game"]["status"], refused["game"]["result"]) == ("confirmed", "player_a")
    # with the right version, a settled game simply has nothing to confirm
    _problem(a.post(f"{base}/confirm", json={"report_version": 3}), 409, "game-state-conflict")
    listed = a.get(f"/api/v1/leagues/{league_id}/games").json()
    assert [g["report_version"] for g in listed] == [3]


def test_dispute_and_settle(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_a", "vp_a": 90, "vp_b": 10})
    _problem(
        a.post(f"{base}/dispute", json={**seen(a, base), "note": "no"}), 403, "not-the-other-player"
    )
    disputed = b.post(f"{base}/dispute", json={**seen(b, base), "note": "  We   drew 50-50. "})
    assert disputed.json()["status"] == "disputed"
    assert disputed.json()["dispute_note"] == "We drew 50-50."
    assert disputed.json()["disputed_by_id"] == b.user_id
    draw = {"result": "draw", "vp_a": 50, "vp_b": 50}
    _problem(club.members[2].post(f"{base}/settle", json=draw), 403, "club-admin-required")
    _problem(b.post(f"{base}/settle", json=draw), 403, "club-admin-required")
    settled = club.owner.post(f"{base}/settle", json=draw)
    assert settled.status_code == 200, settled.text
    body = settled.json()
    assert body["status"] == "confirmed"
    assert body["result"] == "draw"
    assert body["settled_by_id"] == club.owner.user_id  # type: ignore[attr-defined]
    rows = _standings(a, league_id)
    assert [r["draws"] for r in rows] == [1, 1]


def test_players_may_rereport_a_disputed_game(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_a"})
    b.post(f"{base}/dispute", json={**seen(b, base), "note": "wrong winner"})
    again = b.post(f"{base}/report", json={"result": "player_b", "vp_a": 1, "vp_b": 2})
    assert again.json()["status"] == "reported"
    assert (again.json()["accepted_a"], again.json()["accepted_b"]) == (False, True)
    assert a.post(f"{base}/confirm", json=seen(a, base)).json()["status"] == "confirmed"


def test_an_admin_who_plays_cannot_settle_their_game(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id = club.league()
    ids = enrol(club, armies, league_id, club.owner, club.members[0])
    game = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()["games"][0]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    owner_side = "player_a" if game["player_a"]["registration_id"] == ids[0] else "player_b"
    _problem(
        club.owner.post(f"{base}/settle", json={"result": owner_side}),
        403,
        "own-game-settlement",
    )


def test_an_admin_report_needs_both_players(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    reported = club.owner.post(f"{base}/report", json={"result": "player_a"}).json()
    assert (reported["accepted_a"], reported["accepted_b"]) == (False, False)
    assert a.post(f"{base}/confirm", json=seen(a, base)).json()["status"] == "reported"
    assert b.post(f"{base}/confirm", json=seen(b, base)).json()["status"] == "confirmed"


def test_finished_league_takes_no_more_reports(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"status": "finished"})
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    _problem(a.post(f"{base}/report", json={"result": "draw"}), 409, "league-not-running")
    settled = club.owner.post(f"{base}/settle", json={"result": "draw"})
    assert settled.json()["status"] == "confirmed"


# --------------------------------------------------------------------------- standings


def test_standings_follow_the_chosen_tie_breaker_order(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    """All three finish level on points and head-to-head is a cycle (skipped): victory point
    difference puts Bob first, victory points scored put Alice first."""
    club = make_club(user_client, 3)
    league_id = club.league(tie_breakers=["head_to_head", "vp_difference"])
    ids = enrol(club, armies, league_id, *club.members)
    by_reg = dict(zip(ids, club.members, strict=True))
    alice, bob, chloe = ids
    wins = {
        frozenset((alice, bob)): (alice, 51, 50),
        frozenset((bob, chloe)): (bob, 20, 10),
        frozenset((chloe, alice)): (chloe, 50, 49),
    }
    for _ in range(3):
        round_ = club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()
        for game in round_["games"]:
            a, b = game_players(game)
            winner, vp_w, vp_l = wins[frozenset((a, b))]
            side = "player_a" if winner == a else "player_b"
            vp = (vp_w, vp_l) if winner == a else (vp_l, vp_w)
            _play(league_id, game, by_reg, side, vp)
    # all three won one game: level on 3 points + the 3-point bye; head-to-head is a cycle
    rows = _standings(club.owner, league_id)
    assert [r["points"]["exact"] for r in rows] == ["6", "6", "6"]
    # VP difference: Bob +9, Alice 0, Chloe -9
    assert [r["player"]["registration_id"] for r in rows] == [bob, alice, chloe]
    assert [r["decided_by"] for r in rows] == ["vp_difference", "vp_difference", None]
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"tie_breakers": ["vp_scored"]})
    rows = _standings(club.owner, league_id)
    # VP scored: Alice 100, Bob 70, Chloe 60
    assert [r["player"]["registration_id"] for r in rows] == [alice, bob, chloe]
    assert [r["decided_by"] for r in rows] == ["vp_scored", "vp_scored", None]


def test_head_to_head_decides_when_chosen_first(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 4)
    league_id = club.league(tie_breakers=["head_to_head", "vp_scored"])
    ids = enrol(club, armies, league_id, *club.members)
    by_reg = dict(zip(ids, club.members, strict=True))
    p1, p2, p3, p4 = ids
    # p1 and p2 both finish 2-1; p1 beat p2 but scored fewer VP overall.
    winners = {
        frozenset((p1, p2)): (p1, 21, 20),
        frozenset((p1, p3)): (p3, 90, 0),
        frozenset((p1, p4)): (p1, 21, 20),
        frozenset((p2, p3)): (p2, 90, 0),
        frozenset((p2, p4)): (p2, 90, 0),
        frozenset((p3, p4)): (p4, 21, 20),
    }
    for _ in range(3):
        for game in club.owner.post(f"/api/v1/leagues/{league_id}/rounds").json()["games"]:
            a, b = game_players(game)
            winner, vp_w, vp_l = winners[frozenset((a, b))]
            side = "player_a" if winner == a else "player_b"
            _play(league_id, game, by_reg, side, (vp_w, vp_l) if winner == a else (vp_l, vp_w))
    rows = _standings(club.owner, league_id)
    assert [r["player"]["registration_id"] for r in rows[:2]] == [p1, p2]
    assert rows[0]["decided_by"] == "head_to_head"
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"tie_breakers": ["vp_scored"]})
    rows = _standings(club.owner, league_id)
    assert [r["player"]["registration_id"] for r in rows[:2]] == [p2, p1]


# --------------------------------------------------------------------------- Elo


def test_elo_counts_confirmed_results_only(club: ClubSetup, armies) -> None:  # type: ignore[no-untyped-def]
    league_id, game, by_reg = _started(club, armies)
    a = by_reg[game["player_a"]["registration_id"]]
    b = by_reg[game["player_b"]["registration_id"]]
    elo_path = f"/api/v1/clubs/{club.club_id}/elo"
    base = f"/api/v1/leagues/{league_id}/games/{game['id']}"
    a.post(f"{base}/report", json={"result": "player_a"})
    before = a.get(elo_path, params={"rule_system": "wh40k-10e"}).json()
    assert before["ratings"] == []
    b.post(f"{base}/confirm", json=seen(b, base))
    after = a.get(elo_path, params={"rule_system": "wh40k-10e"}).json()
    assert after["scope"] == "all"
    assert [(r["user_id"], r["rating"], r["exact"], r["games"]) for r in after["ratings"]] == [
        (a.user_id, 1516, "1516", 1),
        (b.user_id, 1484, "1484", 1),
    ]
    other = a.get(elo_path, params={"rule_system": "pen"}).json()
    assert other["ratings"] == []  # one pool per rule system
    _problem(a.get(elo_path, params={"rule_system": "nope"}), 422, "invalid-league")
    _problem(club.outsider.get(elo_path, params={"rule_system": "pen"}), 404, "club-not-found")


def test_elo_for_visitors_uses_public_leagues_only(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 2, public=True)
    private = club.league(visibility="private")
    ids = enrol(club, armies, private, *club.members)
    game = club.owner.post(f"/api/v1/leagues/{private}/rounds").json()["games"][0]
    _play(private, game, dict(zip(ids, club.members, strict=True)))
    path = f"/api/v1/clubs/{club.club_id}/elo?rule_system=wh40k-10e"
    assert len(club.members[0].get(path).json()["ratings"]) == 2
    visitor = club.outsider.get(path).json()
    assert visitor["scope"] == "public"
    assert visitor["ratings"] == []


def test_elo_replays_the_club_history_oldest_first(user_client, armies) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 3)
    league_id = club.league(format="ladder")
    ids = enrol(club, armies, league_id, *club.members)
    by_reg = dict(zip(ids, club.members, strict=True))
    club.owner.patch(f"/api/v1/leagues/{league_id}", json={"status": "running"})
    for a, b in ((ids[0], ids[1]), (ids[0], ids[2])):
        game = by_reg[a].post(f"/api/v1/leagues/{league_id}/games", json={"player_b": b}).json()
        _play(league_id, game, by_reg, "player_a")
    ratings = {
        r["user_id"]: r
        for r in club.owner.get(
            f"/api/v1/clubs/{club.club_id}/elo", params={"rule_system": "wh40k-10e"}
        ).json()["ratings"]
    }
    # 1500 v 1500: 1516 / 1484; then 1516 v 1500: E = 1/(1+10^(-16/400)), +32(1-E)
    from decimal import Decimal

    from app.leagues.elo import update

    first = (Decimal(1516), Decimal(1484))
    second = update(first[0], Decimal(1500), Decimal(1), 32)
    alice = club.members[0].user_id  # type: ignore[attr-defined]
    chloe = club.members[2].user_id  # type: ignore[attr-defined]
    assert Decimal(ratings[alice]["exact"]) == second[0]
    assert Decimal(ratings[chloe]["exact"]) == second[1]
    assert ratings[alice]["rating"] == 1531  # 1516 + 32 * (1 - 0.523) = 1530.7
    assert ratings[alice]["games"] == 2
