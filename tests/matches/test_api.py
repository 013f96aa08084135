"""The match API: create, join, guests, access, refusals as problems, log, export and import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import FakeArmies, Game, marines, orks, setup_battle

PROBLEM = "application/problem+json"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"].endswith("/" + code), body
    assert body["title"]
    assert body["status"] == status
    assert body.get("detail")
    return body


def test_create_then_join_by_code(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    r = alice.post("/api/v1/matches", json={"army_id": armies.ready(alice, marines())})
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["status"] == "open"
    assert created["seat"] == "A"
    assert created["view"] is None
    assert created["version"] == 0
    assert created["players"]["A"]["army"] == "Strike group"
    invitation = created["invitation"]
    assert len(invitation["code"]) == 12
    assert invitation["join_url"].endswith(f"/matches/join/{invitation['code']}")
    match_id = created["id"]
    problem(bob.get(f"/api/v1/matches/{match_id}"), 404, "match-not-found")
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": invitation["code"].lower(), "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["seat"] == "B"
    assert joined["status"] == "setup"
    assert joined["version"] == 2
    assert joined["view"]["stage"] == "roll_off"
    again = alice.get(f"/api/v1/matches/{match_id}").json()
    assert again["invitation"] is None
    assert again["players"]["B"] == {
        "name": "Bob",
        "army": "Waaagh",
        "faction": "Orks",
        "points": again["players"]["B"]["points"],
        "guest": False,
    }
    listed = alice.get("/api/v1/matches").json()
    assert [m["id"] for m in listed] == [match_id]
    assert listed[0]["players"] == {"A": "Alice", "B": "Bob"}
    # the code is used up
    carol = user_client("Carol")
    problem(
        carol.post(
            "/api/v1/matches/join",
            json={"code": invitation["code"], "army_id": armies.ready(carol, orks())},
        ),
        404,
        "invitation-invalid",
    )


def test_only_the_two_players_see_a_match(
    new_game: Callable[..., Game], user_client: Callable[[str], TestClient], app: Any
) -> None:
    g = new_game()
    carol = user_client("Carol")
    base = f"/api/v1/matches/{g.match_id}"
    for path in ("", "/actions", "/log", "/audit", "/export", "/events?timeout=0"):
        problem(carol.get(base + path), 404, "match-not-found")
    problem(
        carol.post(
            base + "/commands", json={"expected_version": 2, "command": {"type": "roll_off"}}
        ),
        404,
        "match-not-found",
    )
    problem(
        carol.post(
            base + "/combat/preview",
            json={"attacker": "a1", "target": "b1", "weapons": [{"weapon": "x", "models": 1}]},
        ),
        404,
        "match-not-found",
    )
    anonymous = TestClient(app)
    problem(anonymous.get(base), 404, "match-not-found")
    problem(anonymous.get(base, headers={"X-Guest-Token": "x" * 40}), 404, "match-not-found")
    problem(anonymous.get("/api/v1/matches"), 401, "not-authenticated")
    problem(carol.get("/api/v1/matches/999999"), 404, "match-not-found")


def test_create_and_join_refusals(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    list_a = armies.ready(alice, marines())
    body = problem(
        alice.post("/api/v1/matches", json={"army_id": list_a, "mission": "nope"}),
        422,
        "unknown-mission",
    )
    assert body["errors"][0]["field"] == "mission"
    problem(
        alice.post("/api/v1/matches", json={"army_id": list_a, "battle_size": "huge"}),
        422,
        "unknown-mission",
    )
    # a list of more than 1000 points does not fit an Incursion
    big = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Captain", warlord=True),
            RosterUnit("Terminator Squad", 10),
            RosterUnit("Land Raider"),
            RosterUnit("Repulsor"),
            RosterUnit("Redemptor Dreadnought"),
            RosterUnit("Hellblaster Squad", 10),
        ),
    )
    body = problem(
        alice.post(
            "/api/v1/matches",
            json={"army_id": armies.ready(alice, big), "battle_size": "incursion"},
        ),
        422,
        "army-unusable",
    )
    assert body["errors"][0]["field"] == "points"
    problem(alice.post("/api/v1/matches", json={"army_id": 4242}), 404, "army-not-found")
    # the list of somebody else is not yours
    problem(bob.post("/api/v1/matches", json={"army_id": list_a}), 404, "army-not-found")
    r = alice.post("/api/v1/matches", json={"army_id": list_a})
    code = r.json()["invitation"]["code"]
    problem(
        alice.post("/api/v1/matches/join", json={"code": code, "army_id": list_a}),
        409,
        "own-match",
    )
    problem(
        bob.post("/api/v1/matches/join", json={"code": "NOPE-NOPE", "army_id": 1}),
        404,
        "invitation-invalid",
    )
    r = alice.post("/api/v1/matches", json={"army_id": list_a, "unknown": 1})
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "unknown"


def test_every_refusal_is_a_clear_problem(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    base = g.a.base
    v = g.a.get()["version"]

    def post(client: TestClient, command: dict[str, Any], version: int = v, **extra: Any) -> Any:
        return client.post(
            base + "/commands", json={"expected_version": version, "command": command, **extra}
        )

    body = problem(post(g.a.client, {"type": "fly_away"}), 422, "bad_command")
    assert body["kind"] == "input"
    assert body["errors"][0]["type"] == "bad_command"
    body = problem(post(g.a.client, {"type": "move", "unit": "a2"}), 422, "bad_command")
    assert "mode" in body["detail"]
    problem(
        post(g.a.client, {"type": "report_engagement", "unit": "zz", "engaged_with": []}),
        422,
        "unknown_unit",
    )
    body = problem(post(g.b.client, {"type": "end_phase"}), 409, "not_your_turn")
    assert body["kind"] == "rules"
    body = problem(
        post(g.a.client, {"type": "report_engagement", "unit": "b2", "engaged_with": []}),
        403,
        "not_your_unit",
    )
    assert body["kind"] == "forbidden"
    body = problem(post(g.a.client, {"type": "end_phase"}, version=v - 1), 409, "stale_version")
    assert body["current_version"] == v
    assert body["kind"] == "conflict"
    problem(post(g.a.client, {"type": "end_phase"}, dice=[3]), 422, "unused_dice")
    problem(
        post(g.a.client, {"type": "shoot", "unit": "a5", "targets": ["b2"]}), 409, "wrong_phase"
    )
    # request validation: FastAPI's 422, still a problem document naming the field
    r = g.a.client.post(base + "/commands", json={"command": {"type": "end_phase"}})
    assert r.status_code == 422
    assert r.headers["content-type"] == PROBLEM
    assert r.json()["errors"][0]["field"] == "expected_version"
    r = g.a.client.post(
        base + "/commands",
        json={"expected_version": v, "command": {"type": "end_phase"}, "dice": [7]},
    )
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "dice.0"
    assert g.a.get()["version"] == v  # nothing was written


def test_the_guest_seat_has_its_own_secret_link(
    user_client: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice = user_client("Alice")
    r = alice.post(
        "/api/v1/matches", json={"army_id": armies.ready(alice, marines()), "opponent": "guest"}
    )
    created = r.json()
    url = created["invitation"]["guest_url"]
    assert created["invitation"]["code"] is None
    token = url.rsplit("/", 1)[1]
    samples = alice.get("/api/v1/matches/samples").json()
    assert {s["id"] for s in samples} == {"space-marines", "orks"}
    assert all(0 < s["points"] <= 1000 for s in samples)
    guest = TestClient(app)
    problem(
        guest.post("/api/v1/matches/guest", json={"token": "x" * 30, "sample": "orks"}),
        404,
        "invitation-invalid",
    )
    problem(
        guest.post("/api/v1/matches/guest", json={"token": token, "sample": "tau"}),
        422,
        "army-unusable",
    )
    problem(guest.post("/api/v1/matches/guest", json={"token": token}), 422, "army-unusable")
    r = guest.post("/api/v1/matches/guest", json={"token": token, "sample": "orks", "name": "Gob"})
    assert r.status_code == 200, r.text
    assert r.json()["seat"] == "B"
    assert r.json()["players"]["B"]["name"] == "Gob"
    assert r.json()["players"]["B"]["guest"] is True
    problem(
        guest.post("/api/v1/matches/guest", json={"token": token, "sample": "orks"}),
        409,
        "seat-taken",
    )
    base = f"/api/v1/matches/{created['id']}"
    problem(guest.get(base), 404, "match-not-found")  # without its token
    guest.headers["X-Guest-Token"] = token
    seen = guest.get(base).json()
    assert seen["seat"] == "B"
    assert seen["invitation"] is None
    r = guest.post(
        base + "/commands",
        json={"expected_version": seen["version"], "command": {"type": "roll_off"}},
    )
    assert r.status_code == 200, r.text
    # the creator no longer sees the guest link once the seat is taken
    assert alice.get(base).json()["invitation"] is None


def test_a_guest_may_paste_an_army_export(
    user_client: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice = user_client("Alice")
    created = alice.post(
        "/api/v1/matches", json={"army_id": armies.ready(alice, marines()), "opponent": "guest"}
    ).json()
    token = created["invitation"]["guest_url"].rsplit("/", 1)[1]
    guest = TestClient(app)
    bad = Roster("Orks", "War Horde", BattleSize.STRIKE_FORCE, (RosterUnit("Boyz", 3),))
    body = problem(
        guest.post("/api/v1/matches/guest", json={"token": token, "army": bad.to_dict()}),
        422,
        "army-unusable",
    )
    assert body["errors"]
    r = guest.post("/api/v1/matches/guest", json={"token": token, "army": orks().to_dict()})
    assert r.status_code == 200, r.text
    assert r.json()["players"]["B"]["army"] == "Waaagh"


def test_a_new_invitation_replaces_the_old_one(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    created = alice.post("/api/v1/matches", json={"army_id": armies.ready(alice, marines())}).json()
    old = created["invitation"]["code"]
    base = f"/api/v1/matches/{created['id']}"
    new = alice.post(base + "/invitation").json()["invitation"]["code"]
    assert new != old
    list_b = armies.ready(bob, orks())
    problem(
        bob.post("/api/v1/matches/join", json={"code": old, "army_id": list_b}),
        404,
        "invitation-invalid",
    )
    assert (
        bob.post("/api/v1/matches/join", json={"code": new, "army_id": list_b}).status_code == 200
    )
    problem(bob.post(base + "/invitation"), 403, "match-creator-only")
    problem(alice.post(base + "/invitation"), 409, "seat-taken")


def test_log_actions_and_missions(new_game: Callable[..., Game]) -> None:
    g = new_game()
    assert [a["command"]["type"] for a in g.a.actions()] == ["roll_off"]
    g.a.send({"type": "roll_off"}, dice=[4, 2])
    assert g.a.last["actions"] is None  # a write answers what changed...
    r = g.a.client.post(
        g.a.base + "/commands?actions=true",
        json={"expected_version": 4, "command": {"type": "place_objective"}},
    )
    assert r.status_code == 200, r.text
    assert r.json()["actions"] == g.a.actions()  # ...and what comes next, when asked
    log = g.b.client.get(g.b.base + "/log").json()
    assert log["version"] == 5
    assert [e["seq"] for e in log["entries"]] == [1, 2, 3, 4, 5]
    assert log["entries"][2]["event"]["type"] == "roll_off_made"
    assert log["entries"][2]["event"]["roll"]["seed"] is None  # rolled by hand
    since = g.b.client.get(g.b.base + "/log?since=3").json()["entries"]
    assert [e["seq"] for e in since] == [4, 5]
    missions = g.a.client.get("/api/v1/matches/missions").json()
    only_war = next(m for m in missions if m["id"] == "only-war")
    assert {s["id"] for s in only_war["battle_sizes"]} == {"incursion", "strike_force", "onslaught"}
    assert only_war["name"]["fr"] == "Que la Guerre"


def test_export_then_import_replays_to_the_same_state(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g, {"A": {"reserves": [["a3", "deep_strike"]]}})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a2", "mode": "advance"}, dice=[5])
    # B's own declaration stays B's secret until the battle ends: no full export for A yet
    problem(g.a.client.get(g.a.base + "/export"), 409, "export-not-yet")
    g.b.send({"type": "concede", "confirm": True})
    r = g.a.client.get(g.a.base + "/export")
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    exported = r.json()
    assert exported["format"] == "auspex-match-log/1"
    assert len(exported["events"]) == g.a.get()["version"]
    assert exported["armies"]["A"]["units"][0]["weapons"]
    assert "army_id" not in exported["armies"]["A"]
    r = g.a.client.post("/api/v1/matches/import", json=exported)
    assert r.status_code == 201, r.text
    imported = r.json()
    assert imported["id"] != g.match_id
    assert imported["version"] == g.a.version
    assert imported["status"] == "ended"
    original = g.a.get()
    assert imported["view"] == original["view"]
    assert imported["invitation"]["guest_url"]
    # the copy exports to the same log again
    again = g.a.client.get(f"/api/v1/matches/{imported['id']}/export").json()
    assert again["events"] == exported["events"]
    assert again["armies"] == exported["armies"]


def test_importing_a_broken_log_is_refused(new_game: Callable[..., Game]) -> None:
    g = new_game()
    client = g.a.client
    problem(client.post("/api/v1/matches/import", json={"format": "nope"}), 422, "invalid-log")
    g.a.send({"type": "roll_off"}, dice=[4, 2])
    exported = {"format": "auspex-match-log/1", "rule_system": "wh40k-10e", "events": []}
    problem(client.post("/api/v1/matches/import", json=exported), 422, "invalid-log")
    log = client.get(g.a.base + "/log").json()["entries"]
    tampered = {"format": "auspex-match-log/1", "rule_system": "wh40k-10e", "events": log[1:]}
    body = problem(client.post("/api/v1/matches/import", json=tampered), 422, "invalid-log")
    assert "sequence" in body["detail"]


def test_the_api_is_documented(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in (
        "/api/v1/matches",
        "/api/v1/matches/join",
        "/api/v1/matches/guest",
        "/api/v1/matches/import",
        "/api/v1/matches/{match_id}",
        "/api/v1/matches/{match_id}/commands",
        "/api/v1/matches/{match_id}/actions",
        "/api/v1/matches/{match_id}/log",
        "/api/v1/matches/{match_id}/events",
        "/api/v1/matches/{match_id}/export",
        "/api/v1/matches/{match_id}/audit",
        "/api/v1/matches/{match_id}/combat/preview",
        "/api/v1/matches/{match_id}/combat/resolve",
    ):
        assert path in paths, path
