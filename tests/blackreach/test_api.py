"""The content-set API: CRUD, the engine's located problems, access, share links, copies,
stale versions and size bounds."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.blackreach.documents import sample_documents
from app.engine.black_reach.loaders import MAX_JSON_BYTES

BASE = "/api/v1/black-reach/content"
Make = Callable[[str], TestClient]


def _sample() -> dict[str, Any]:
    docs = sample_documents()
    return {"forces": docs.forces, "boards": docs.boards, "scenarios": docs.scenarios}


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post(BASE, json={"name": "Mine", **body})
    assert r.status_code == 201, r.text
    return r.json()


def test_create_read_list_update_delete(user_client: Make) -> None:
    alice = user_client("Alice")
    made = _create(alice, name="  My  forces ")
    assert made["name"] == "My forces"
    assert made["version"] == 1
    assert made["read_only"] is False
    assert made["sample"] is False
    assert made["forces"]["counters"] == []
    assert made["boards"] == {"boards": []}
    assert made["counts"] == {"counters": 0, "tiles": 0, "options": 0, "boards": 0, "scenarios": 0}
    listed = alice.get(BASE).json()
    assert [(s["id"], s["sample"]) for s in listed] == [(None, True), (made["id"], False)]
    assert listed[0]["counts"]["scenarios"] >= 1

    r = alice.put(f"{BASE}/{made['id']}", json={"version": 1, "name": "Renamed", **_sample()})
    assert r.status_code == 200, r.text
    got = alice.get(f"{BASE}/{made['id']}").json()
    assert got["name"] == "Renamed"
    assert got["version"] == 2
    assert got["scenarios"][0]["id"] == "sample-relay"
    assert got["counts"]["counters"] == len(_sample()["forces"]["counters"])

    assert alice.delete(f"{BASE}/{made['id']}").status_code == 204
    r = alice.get(f"{BASE}/{made['id']}")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/problem+json")


def test_a_document_left_out_is_kept(user_client: Make) -> None:
    alice = user_client("Alice")
    made = _create(alice, **_sample())
    r = alice.put(f"{BASE}/{made['id']}", json={"version": 1, "name": "Only the name"})
    assert r.status_code == 200, r.text
    assert r.json()["scenarios"] == _sample()["scenarios"]


def test_every_problem_is_reported_with_its_path(user_client: Make) -> None:
    alice = user_client("Alice")
    body = _sample()
    body["forces"]["counters"][0]["faces"][0]["dv"] = 99
    body["forces"]["counters"][1]["colour"] = "red"
    body["boards"]["boards"][0]["width"] = 0
    r = alice.post(BASE, json={"name": "Broken", **body})
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["type"].endswith("/invalid-content")
    fields = {e["field"]: e["message"] for e in problem["errors"]}
    assert fields == {
        "forces.counters[0].faces[0].dv": "an integer from 1 to 20",
        "forces.counters[1].colour": "unknown field",
        "boards.boards[0].width": "an integer from 1 to 60",
    }
    assert alice.get(BASE).json()[1:] == []  # nothing was stored


def test_scenario_problems_are_located_in_their_scenario(user_client: Make) -> None:
    alice = user_client("Alice")
    body = _sample()
    second = copy.deepcopy(body["scenarios"][0])
    second["turns"] = 0
    second["board"]["boards"][0]["board"] = "no-such-board"
    body["scenarios"].append(second)
    r = alice.post(BASE, json={"name": "Two", **body})
    assert r.status_code == 422
    fields = {e["field"] for e in r.json()["errors"]}
    assert "scenarios[1].turns" in fields
    assert "scenarios[1].board.boards[0].board" in fields
    assert not any(f.startswith("scenarios[0]") for f in fields)


def test_a_scenario_id_used_twice_is_refused(user_client: Make) -> None:
    alice = user_client("Alice")
    body = _sample()
    body["scenarios"].append(copy.deepcopy(body["scenarios"][0]))
    r = alice.post(BASE, json={"name": "Twice", **body})
    assert r.status_code == 422
    assert [e["field"] for e in r.json()["errors"]] == ["scenarios[1].id"]


def test_another_users_set_does_not_exist_for_them(user_client: Make) -> None:
    alice, bruno = user_client("Alice"), user_client("Bruno")
    made = _create(alice)
    path = f"{BASE}/{made['id']}"
    assert bruno.get(path).status_code == 404
    assert bruno.put(path, json={"version": 1, "name": "Mine now"}).status_code == 404
    assert bruno.delete(path).status_code == 404
    assert bruno.post(f"{path}/copy").status_code == 404
    assert bruno.put(f"{path}/share").status_code == 404
    assert [s["id"] for s in bruno.get(BASE).json()] == [None]
    assert alice.get(path).json()["name"] == "Mine"


def test_anonymous_callers_are_refused(client: TestClient) -> None:
    assert client.get(BASE).status_code == 401
    assert client.post(BASE, json={"name": "x"}).status_code == 401


def test_a_stale_version_is_refused_with_409(user_client: Make) -> None:
    alice = user_client("Alice")
    made = _create(alice)
    path = f"{BASE}/{made['id']}"
    assert alice.put(path, json={"version": 1, "name": "First"}).status_code == 200
    r = alice.put(path, json={"version": 1, "name": "Second"})
    assert r.status_code == 409
    assert r.json()["current_version"] == 2
    assert r.json()["type"].endswith("/stale-content")
    assert alice.get(path).json()["name"] == "First"


def test_share_link_is_read_only_and_can_be_turned_off(
    user_client: Make, client: TestClient
) -> None:
    alice, bruno = user_client("Alice"), user_client("Bruno")
    made = _create(alice, **_sample())
    r = alice.put(f"{BASE}/{made['id']}/share")
    assert r.status_code == 200
    token = r.json()["token"]
    assert r.json()["path"] == f"/black-reach/content/shared/{token}"
    assert alice.get(f"{BASE}/{made['id']}").json()["share_token"] == token

    seen = client.get(f"{BASE}/shared/{token}")  # anyone with the link, signed in or not
    assert seen.status_code == 200
    assert seen.json()["read_only"] is True
    assert seen.json()["share_token"] is None
    assert seen.json()["scenarios"] == _sample()["scenarios"]
    # read-only: the link gives no way to change the set
    assert bruno.put(f"{BASE}/{made['id']}", json={"version": 2, "name": "x"}).status_code == 404

    copied = bruno.post(f"{BASE}/shared/{token}/copy")
    assert copied.status_code == 201
    assert copied.json()["name"] == "Mine (copy)"
    assert copied.json()["copied_from"] == f"shared:{made['id']}"
    assert bruno.get(f"{BASE}/{copied.json()['id']}").status_code == 200

    assert alice.delete(f"{BASE}/{made['id']}/share").status_code == 204
    assert client.get(f"{BASE}/shared/{token}").status_code == 404
    assert bruno.post(f"{BASE}/shared/{token}/copy").status_code == 404
    assert client.get(f"{BASE}/shared/brc_guess").status_code == 404


def test_a_new_share_link_replaces_the_old_one(user_client: Make, client: TestClient) -> None:
    alice = user_client("Alice")
    made = _create(alice)
    first = alice.put(f"{BASE}/{made['id']}/share").json()["token"]
    second = alice.put(f"{BASE}/{made['id']}/share").json()["token"]
    assert first != second
    assert client.get(f"{BASE}/shared/{first}").status_code == 404
    assert client.get(f"{BASE}/shared/{second}").status_code == 200


def test_the_sample_set_is_read_only_and_copied_to_edit(user_client: Make) -> None:
    alice = user_client("Alice")
    sample = alice.get(f"{BASE}/sample").json()
    assert sample["sample"] is True
    assert sample["read_only"] is True
    assert sample["id"] is None
    assert sample["forces"]["sample"] is True  # labelled as our own sample content
    r = alice.post(f"{BASE}/sample/copy", json={"name": "My relay"})
    assert r.status_code == 201
    mine = r.json()
    assert mine["name"] == "My relay"
    assert mine["copied_from"] == "sample"
    assert mine["scenarios"] == sample["scenarios"]
    # there is no way to write the sample itself: "sample" is no set id
    r = alice.put(f"{BASE}/sample", json={"version": 1, "name": "Mine"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "set_id"
    assert alice.get(f"{BASE}/sample").json()["name"] == sample["name"]


def test_copying_an_own_set_makes_an_independent_set(user_client: Make) -> None:
    alice = user_client("Alice")
    made = _create(alice, **_sample())
    r = alice.post(f"{BASE}/{made['id']}/copy")
    assert r.status_code == 201
    twin = r.json()
    assert twin["id"] != made["id"]
    assert twin["copied_from"] == f"set:{made['id']}"
    assert (
        alice.put(f"{BASE}/{twin['id']}", json={"version": 1, "scenarios": []}).status_code == 200
    )
    assert len(alice.get(f"{BASE}/{made['id']}").json()["scenarios"]) == 1


def test_a_document_over_512_kib_is_refused(user_client: Make) -> None:
    alice = user_client("Alice")
    made = _create(alice)
    forces = {
        "format": "auspex-black-reach-forces/1",
        "note": "x" * (MAX_JSON_BYTES + 10),
        "counters": [],
    }
    r = alice.put(f"{BASE}/{made['id']}", json={"version": 1, "forces": forces})
    assert r.status_code == 422
    assert r.json()["errors"] == [
        {"field": "forces", "message": f"at most {MAX_JSON_BYTES} bytes of JSON"}
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 121}, "name"),
        ({"name": "ok", "colour": "red"}, "colour"),
        ({"name": "ok", "scenarios": [{}] * 21}, "scenarios"),
    ],
)
def test_bounded_inputs(user_client: Make, body: dict[str, Any], field: str) -> None:
    r = user_client("Alice").post(BASE, json=body)
    assert r.status_code == 422
    assert field in {e["field"] for e in r.json()["errors"]}


def test_more_boards_than_the_bound_are_refused(user_client: Make) -> None:
    board = {"name": "b", "width": 1, "height": 1}
    boards = {"boards": [{**board, "name": f"b{i}"} for i in range(33)]}
    r = user_client("Alice").post(BASE, json={"name": "Many", "boards": boards})
    assert r.status_code == 422
    assert r.json()["errors"] == [{"field": "boards.boards", "message": "at most 32 items"}]


def test_a_board_name_used_twice_is_refused(user_client: Make) -> None:
    board = {"name": "b", "width": 2, "height": 2}
    r = user_client("Alice").post(
        BASE, json={"name": "Twice", "boards": {"boards": [board, board]}}
    )
    assert r.status_code == 422
    assert r.json()["errors"] == [
        {"field": "boards.boards[1].name", "message": "'b' is used twice"}
    ]


def test_a_user_keeps_at_most_50_sets(user_client: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.blackreach import service

    monkeypatch.setattr(service, "MAX_SETS", 2)
    alice = user_client("Alice")
    _create(alice)
    _create(alice)
    assert alice.post(BASE, json={"name": "Third"}).status_code == 422
    assert alice.post(f"{BASE}/sample/copy").status_code == 422


def test_a_body_nested_too_deeply_is_no_server_error(user_client: Make) -> None:
    alice = user_client("Alice")
    body = '{"name": "Deep", "forces": {"note": ' + "[" * 50_000 + "]" * 50_000 + "}}"
    r = alice.post(BASE, content=body, headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500, r.status_code


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_with_a_path(user_client: Make, number: str) -> None:
    """Python's JSON reader accepts them; they are not JSON and Postgres refuses them."""
    alice = user_client("Alice")
    body = '{"name": "n", "boards": {"boards": [], "note": ' + number + "}}"
    r = alice.post(BASE, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert "boards" in r.text
