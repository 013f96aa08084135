"""Black Reach matches on a player's own content sets, and the hot-seat JSON API (issue 16).

A copy of the sample set, edited, is offered to its owner as missions
(``GET /api/v1/black-reach/missions``, ids made from the content); a match created on one
freezes the content (an edit or a deletion of the set before the join changes nothing; the
log's set-up holds it afterwards; the export re-imports to an equal battle); another user's
mission is refused without a word of it. The hot seat through the API: only the creator of a
match created so, each seat's view without the other's face-down tokens, 404 / 409 / 422.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import features
from app.engine.black_reach.battle.setup import load_deployment
from app.matches.systems.black_reach import content
from tests.matches.test_black_reach_match import live
from tests.matches.test_pen_match import MATCHES

CONTENT = "/api/v1/black-reach/content"
MISSIONS = "/api/v1/black-reach/missions"
ROUTER = "systems.black_reach.api"


@pytest.fixture(autouse=True)
def with_router(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Black Reach match router among the matches feature's (app/features.py)."""
    extra = dict(features.EXTRA_ROUTERS)
    names = extra.get(("matches", "api"), ())
    if ROUTER not in names:
        extra[("matches", "api")] = (*names, ROUTER)
        monkeypatch.setattr(features, "EXTRA_ROUTERS", extra)


def my_set(client: TestClient, *, turns: int = 4, name: str = "Night raid") -> dict[str, Any]:
    """A copy of the sample set with its scenario renamed and its time limit changed."""
    r = client.post(f"{CONTENT}/sample/copy", json={"name": name})
    assert r.status_code == 201, r.text
    row = r.json()
    scenario = dict(row["scenarios"][0]) | {"name": "Raid on the relay", "turns": turns}
    r = client.put(
        f"{CONTENT}/{row['id']}", json={"version": row["version"], "scenarios": [scenario]}
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def missions(client: TestClient) -> list[dict[str, Any]]:
    r = client.get(MISSIONS)
    assert r.status_code == 200, r.text
    return list(r.json())


def create(client: TestClient, mission: str, **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ruleset": "black-reach", "mission": mission}
    if options:
        body["options"] = options
    r = client.post(MATCHES, json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(client: TestClient, created: dict[str, Any]) -> dict[str, Any]:
    r = client.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"]})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_content_set_is_offered_as_missions_of_its_owner_only(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice)
    found = missions(alice)
    assert len(found) == 1
    m = found[0]
    scenario = row["scenarios"][0]
    # made from what a match keeps of the set (trimmed: no notes, only what it uses)
    assert m["id"] == content.content_id(*content.trimmed(scenario, row["forces"], row["boards"]))
    assert m["id"].startswith("c-")
    assert m["id"].endswith("-sample-relay")
    assert (m["name"], m["set_id"], m["set_name"], m["scenario"], m["sides"], m["frozen"]) == (
        "Night raid: Raid on the relay",
        row["id"],
        "Night raid",
        "sample-relay",
        ["ultramarines", "orks"],
        False,
    )
    assert missions(bob) == []
    # Bob names Alice's mission: no such mission for him, and not a word of her set
    r = bob.post(MATCHES, json={"ruleset": "black-reach", "mission": m["id"]})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "mission"
    assert "Night raid" not in r.text
    assert "Raid on the relay" not in r.text
    assert TestClient(alice.app).get(MISSIONS).status_code == 401


def test_the_match_freezes_the_content_it_was_created_with(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice, turns=4)
    mission = missions(alice)[0]["id"]
    created = create(alice, mission, side="orks")
    assert created["mission"] == mission
    assert created["players"]["A"]["army"] == "orks"
    # the set is edited (6 turns) before Bob joins: the match keeps its 4 turns
    scenario = dict(row["scenarios"][0]) | {"turns": 6}
    r = alice.put(
        f"{CONTENT}/{row['id']}", json={"version": row["version"], "scenarios": [scenario]}
    )
    assert r.status_code == 200, r.text
    listed = {m["id"]: m for m in missions(alice)}
    assert len(listed) == 2
    assert listed[mission]["frozen"] is True
    assert listed[mission]["name"] == f"Night raid: Raid on the relay (match {created['id']})"
    joined = join(bob, created)
    assert joined["players"]["B"]["army"] == "ultramarines"
    assert joined["view"]["scenario"] == {
        "id": "sample-relay",
        "name": "Raid on the relay",
        "sample": True,
        "turns": 4,
        "vp_to_win": joined["view"]["scenario"]["vp_to_win"],
    }
    assert joined["view"]["stage"] == "setup"  # the players deploy
    battle = live(created["id"])
    assert battle.state.scenario is not None
    assert battle.state.scenario.turns == 4
    assert battle.state.seats == {"A": "orks", "B": "ultramarines"}
    # joined: the frozen mission is no longer offered, the set's current one is
    assert [m["frozen"] for m in missions(alice)] == [False]


def test_a_deleted_set_still_lets_its_open_match_be_joined(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice, turns=3)
    created = create(alice, missions(alice)[0]["id"])
    assert alice.delete(f"{CONTENT}/{row['id']}").status_code == 204
    joined = join(bob, created)
    assert joined["view"]["scenario"]["turns"] == 3
    assert joined["view"]["scenario"]["name"] == "Raid on the relay"


def test_bad_options_on_a_content_scenario_are_refused(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    my_set(alice)
    mission = missions(alice)[0]["id"]
    r = alice.post(
        MATCHES,
        json={"ruleset": "black-reach", "mission": mission, "options": {"deployment": "sample"}},
    )
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.deployment"
    r = alice.post(
        MATCHES, json={"ruleset": "black-reach", "mission": mission, "options": {"side": "eldar"}}
    )
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.side"
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "mission": "c-000000000000-x"})
    assert r.status_code == 422, r.text


def test_a_content_match_exports_and_imports_to_an_equal_battle(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice, turns=4)
    created = create(alice, missions(alice)[0]["id"])
    join(bob, created)
    exported = alice.get(f"{MATCHES}/{created['id']}/export")
    assert exported.status_code == 200, exported.text
    data = exported.json()
    # the export names the set; the log's set-up holds the content
    assert data["armies"]["A"]["content"] == {"id": created["mission"], "name": "Night raid"}
    assert "forces" not in json.dumps(data["armies"])
    # the set changes after the export: the import replays the exported battle
    scenario = dict(row["scenarios"][0]) | {"turns": 7}
    alice.put(f"{CONTENT}/{row['id']}", json={"version": row["version"], "scenarios": [scenario]})
    r = alice.post(f"{MATCHES}/import", json=data)
    assert r.status_code == 201, r.text
    again = r.json()
    assert again["mission"] == created["mission"]
    assert live(again["id"]).state == live(created["id"]).state


# -- the hot seat ---------------------------------------------------------------------------


def hot(client: TestClient, match_id: int, seat: str) -> dict[str, Any]:
    r = client.get(f"{MATCHES}/{match_id}/hot-seat/{seat}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def hot_send(
    client: TestClient,
    match_id: int,
    seat: str,
    command: dict[str, Any],
    *,
    version: int | None = None,
    status: int = 200,
) -> dict[str, Any]:
    if version is None:
        version = hot(client, match_id, seat)["version"]
    r = client.post(
        f"{MATCHES}/{match_id}/hot-seat/{seat}/commands",
        json={"expected_version": version, "command": command},
    )
    assert r.status_code == status, r.text
    return dict(r.json())


def test_the_hot_seat_through_the_api(user_client: Callable[[str], TestClient]) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    my_set(alice)
    created = create(alice, missions(alice)[0]["id"], hot_seat=True)
    mid = created["id"]
    base = f"{MATCHES}/{mid}/hot-seat"
    # not started yet: nothing to read or send; a stranger cannot start it
    assert alice.get(f"{base}/A").status_code == 404
    assert bob.post(base, json={"name": "Bob"}).status_code == 404
    assert alice.post(base, json={"name": "x" * 61}).status_code == 422
    r = alice.post(base, json={"name": "Carol"})
    assert r.status_code == 200, r.text
    assert r.json() == {"version": 1, "to_play": "A"}
    # started once: again is 404, and the invitation no longer works
    assert alice.post(base, json={}).status_code == 404
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"]})
    assert r.status_code in (404, 409, 422), r.text
    match = alice.get(f"{MATCHES}/{mid}").json()
    assert match["players"]["B"]["name"] == "Carol"
    # a stranger and a bad seat
    assert bob.get(f"{base}/A").status_code == 404
    assert (
        bob.post(f"{base}/B/commands", json={"expected_version": 2, "command": {}}).status_code
        == 404
    )
    assert alice.get(f"{base}/C").status_code == 422
    # deployment of both seats from one device
    spots = {d.unit: d for d in load_deployment("sample-relay")}
    for seat, side in (("A", "ultramarines"), ("B", "orks")):
        state = hot(alice, mid, seat)
        assert state["view"]["you"] == side
        for unit, d in spots.items():
            if unit.startswith(f"{side}:"):
                cmd = {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}
                hot_send(alice, mid, seat, cmd)
        out = hot_send(alice, mid, seat, {"type": "end_deployment"})
        assert out["seat"] == seat
    state = hot(alice, mid, "A")
    assert state["view"]["stage"] == "battle"
    assert state["view"]["turn"]["phase"] == "order"
    # a stale version: 409; a malformed command: 422
    hot_send(alice, mid, "A", {"type": "end_reserve"}, version=1, status=409)
    hot_send(alice, mid, "A", {"type": "no_such_thing"}, status=422)
    # Orders: both seats may place them and the battle waits on A first, so B's screen is
    # the hand-off one (the public view, no actions)
    early = hot(alice, mid, "B")
    assert (early["to_play"], early["hand_off"], early["actions"]) == ("A", "A", [])
    # B places anyway (the rules allow it): the answer hands the device to A, and A's
    # screen never holds B's tokens
    offered = live(mid).legal_actions("B")[0]
    numbers = sorted(t["number"] for t in offered["tokens"] if t["kind"] == "numbered")
    b_units = offered["units"][: len(numbers)]
    orders = [
        {"unit": u, "kind": "numbered", "number": n} for n, u in zip(numbers, b_units, strict=False)
    ]
    placed = hot_send(alice, mid, "B", {"type": "place_orders", "orders": orders})
    assert (placed["to_play"], placed["hand_off"], placed["actions"]) == ("A", "A", [])
    assert all(u["token"] is None for u in placed["view"]["units"] if u["side"] == "orks")
    mine = live(mid).view("B")
    tokens = {u["id"]: u["token"] for u in mine["units"] if u["side"] == "orks"}
    assert tokens[b_units[0]] == {"kind": "numbered", "number": numbers[0]}
    seen_by_a = hot(alice, mid, "A")
    assert seen_by_a["hand_off"] is None
    for u in seen_by_a["view"]["units"]:
        if u["side"] == "orks":
            assert u["token"] is None
    assert seen_by_a["to_play"] == "A"
    # B's commitments' nonces and values reach nothing A's screen or A's seat can fetch
    secret = live(mid).state.secret["orks"]
    nonces = [o.nonce for o in secret.values()]
    assert len(nonces) == len(b_units)
    a_side = json.dumps(seen_by_a) + "".join(
        alice.get(f"{MATCHES}/{mid}{suffix}").text for suffix in ("", "/log", "/actions")
    )
    assert all(n not in a_side for n in nonces)
    assert all(a["command"]["type"] == "place_orders" for a in seen_by_a["actions"])


def test_the_hot_seat_api_refuses_a_match_not_created_for_it(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    created = create(alice, "sample-relay")
    base = f"{MATCHES}/{created['id']}/hot-seat"
    assert alice.post(base, json={}).status_code == 404
    join(bob, created)
    # a match played on two devices: neither player may act for the other seat
    assert alice.get(f"{base}/B").status_code == 404
    r = alice.post(f"{base}/B/commands", json={"expected_version": 2, "command": {}})
    assert r.status_code == 404
    assert bob.get(f"{base}/A").status_code == 404


def test_the_joiner_sees_the_set_before_and_after_joining(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob, carol = user_client("Alice"), user_client("Bob"), user_client("Carol")
    row = my_set(alice)
    created = create(alice, missions(alice)[0]["id"], side="orks")
    code = created["invitation"]["code"]
    r = bob.get(f"/api/v1/black-reach/invitations/{code}")
    assert r.status_code == 200, r.text
    expected = {
        "mission": created["mission"],
        "sample": False,
        "content_set": "Night raid",
        "scenario": "Raid on the relay",
        "sides": {"A": "orks", "B": "ultramarines"},
    }
    assert r.json() == expected
    assert "forces" not in r.text
    assert bob.get("/api/v1/black-reach/invitations/ZZZZ-ZZZZ").status_code == 404
    assert TestClient(bob.app).get(f"/api/v1/black-reach/invitations/{code}").status_code == 401
    # renamed afterwards: the match keeps the name it was created with
    r = alice.put(f"{CONTENT}/{row['id']}", json={"version": row["version"], "name": "Other"})
    assert r.status_code == 200, r.text
    join(bob, created)
    for who in (alice, bob):
        r = who.get(f"{MATCHES}/{created['id']}/content")
        assert r.status_code == 200, r.text
        assert r.json() == expected
    assert carol.get(f"{MATCHES}/{created['id']}/content").status_code == 404
    # the shipped sample
    sample = create(alice, "sample-relay")
    r = bob.get(f"/api/v1/black-reach/invitations/{sample['invitation']['code']}")
    assert r.json()["sample"] is True
    assert r.json()["content_set"] is None
    assert r.json()["sides"] == {"A": "ultramarines", "B": "orks"}
