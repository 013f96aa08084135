"""The content pages: list, create, the JSON editors and friendly forms with the engine's
problems beside their fields, the SVG boards, read-only views, CSRF, access and versions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.support.web import csrf, html, register

HOME = "/black-reach/content"


def _browser(app: Any, name: str = "Alice", language: str = "en") -> TestClient:
    client = TestClient(app, base_url="http://testserver")
    register(client, email=f"{name.lower()}@example.com", name=name, language=language)
    return client


def _token(client: TestClient, path: str = HOME) -> str:
    return csrf(client, path)


def _copy_sample(client: TestClient) -> str:
    r = client.post(
        f"{HOME}/sample/copy", data={"csrf_token": _token(client)}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def _version(client: TestClient, path: str) -> str:
    node = html(client.get(path)).css_first("#name-form input[name=version]")
    assert node is not None
    return str(node.attributes["value"])


def test_the_list_shows_the_sample_and_creates_a_set(app: Any) -> None:
    alice = _browser(app)
    page = html(alice.get(HOME))
    assert page.css_first("#sample-set a").attributes["href"] == f"{HOME}/sample"
    assert page.css_first("#no-sets") is not None
    r = alice.post(
        HOME, data={"csrf_token": _token(alice), "name": "Ma boîte"}, follow_redirects=False
    )
    assert r.status_code == 303
    page = html(alice.get(str(r.headers["location"])))
    assert page.css_first("#set-name").text() == "Ma boîte"
    for form in (
        "#name-form",
        "#counter-form",
        "#tile-form",
        "#scenario-form",
        "#forces",
        "#boards",
    ):
        assert page.css_first(form) is not None, form
    assert html(alice.get(HOME)).css_first("#no-sets") is None


def test_a_blank_name_is_refused_beside_the_field(app: Any) -> None:
    alice = _browser(app)
    r = alice.post(HOME, data={"csrf_token": _token(alice), "name": "   "})
    assert r.status_code == 422
    assert html(r).css_first("#error-name") is not None


def test_forms_need_the_csrf_token(app: Any) -> None:
    alice = _browser(app)
    assert alice.post(HOME, data={"name": "x"}).status_code == 403
    path = _copy_sample(alice)
    assert alice.post(f"{path}/delete", data={}).status_code == 403
    assert alice.get(path).status_code == 200


def test_the_sample_page_is_read_only_and_draws_the_boards(app: Any) -> None:
    alice = _browser(app)
    page = html(alice.get(f"{HOME}/sample"))
    assert "Sample content" in page.css_first("#set-label").text()
    assert page.css_first("#counter-form") is None
    assert page.css_first("#name-form") is None
    assert "readonly" in page.css_first("#forces textarea").attributes
    assert page.css_first("#copy-form").attributes["action"] == f"{HOME}/sample/copy"
    ruins = page.css_first("#board-0 svg")
    assert ruins.attributes["viewBox"] == "0 0 8 6"
    cells = ruins.css("rect[data-kind]")
    assert len(cells) == 48  # an 8 x 6 board
    kinds = {
        (c.attributes["data-x"], c.attributes["data-y"]): c.attributes["data-kind"] for c in cells
    }
    assert kinds[("6", "0")] == "impassable"  # the machinery
    assert kinds[("2", "1")] == "yellow"  # the ruin's defence bonus
    assert kinds[("5", "3")] == "yellow"  # the crater: a yellow bonus beats difficult ground
    assert kinds[("0", "0")] == "open"
    walls = ruins.css("line[data-kind=wall]")
    assert len(walls) == 2
    battlefield = page.css_first("#battlefield-0 svg")
    assert battlefield.attributes["viewBox"] == "0 0 8 12"  # two boards, one above the other
    assert len(battlefield.css("rect.mark")) == 16 + 16 + 4  # two zones of 8 x 2, a 2 x 2 objective


def test_a_json_editor_lists_every_problem_with_its_path_and_keeps_the_text(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    page = html(alice.get(path))
    forces = json.loads(page.css_first("#forces textarea").text())
    forces["counters"][0]["faces"][0]["dv"] = 0
    forces["tiles"][0]["cost"] = -1
    text = json.dumps(forces)
    r = alice.post(
        f"{path}/documents/forces",
        data={"csrf_token": _token(alice, path), "version": _version(alice, path), "text": text},
    )
    assert r.status_code == 422
    page = html(r)
    listed = [li.css_first("code").text() for li in page.css("#forces-problems li")]
    assert listed == ["forces.counters[0].faces[0].dv", "forces.tiles[0].cost"]
    assert json.loads(page.css_first("#forces textarea").text()) == forces  # what was typed


def test_malformed_json_is_refused_with_a_message(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    r = alice.post(
        f"{path}/documents/boards",
        data={"csrf_token": _token(alice, path), "version": _version(alice, path), "text": "{oops"},
    )
    assert r.status_code == 422
    problem = html(r).css_first("#boards-problems li").text()
    assert problem.startswith("boards")
    assert "not JSON" in problem


def test_a_json_editor_saves_a_valid_document(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    page = html(alice.get(path))
    boards = json.loads(page.css_first("#boards textarea").text())
    boards["boards"].append({"name": "tiny", "width": 2, "height": 3})
    r = alice.post(
        f"{path}/documents/boards",
        data={
            "csrf_token": _token(alice, path),
            "version": _version(alice, path),
            "text": json.dumps(boards),
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    page = html(alice.get(path))
    names = [f.css_first("figcaption").text() for f in page.css("#previews figure")]
    assert "tiny" in names


def test_a_stale_page_is_refused_with_409_and_the_newer_set(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    old = _version(alice, path)
    token = _token(alice, path)
    r = alice.post(
        f"{path}/name",
        data={"csrf_token": token, "version": old, "name": "First"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    r = alice.post(f"{path}/name", data={"csrf_token": token, "version": old, "name": "Second"})
    assert r.status_code == 409
    page = html(r)
    assert page.css_first("#notice") is not None
    assert page.css_first("#set-name").text() == "First"


def test_the_counter_form_adds_a_counter_and_edits_it(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    form = {
        "csrf_token": _token(alice, path),
        "version": _version(alice, path),
        "id": "my-scout",
        "name": "Scouts",
        "faction": "ultramarines",
        "class": "infantry",
        "faces[0].kind": "intact",
        "faces[0].dv": "5",
        "faces[0].mv": "5",
        "faces[0].cv.infantry": "2",
        "faces[0].cv.light_vehicle": "1",
        "faces[0].cv.heavy_vehicle": "",
        "faces[0].abilities": ["assault", "ambush"],
        "faces[0].params": "assault=1",
        "faces[0].on_step_loss": "flip",
        "faces[1].kind": "reduced",
        "faces[1].dv": "5",
        "faces[1].mv": "4",
        "faces[1].cv.infantry": "1",
    }
    r = alice.post(f"{path}/counters", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    set_id = path.rsplit("/", 1)[1]
    token = alice.get("/account")  # the API through the session needs the CSRF header
    api = alice.get(f"/api/v1/black-reach/content/{set_id}")
    assert token.status_code == 200
    counter = next(c for c in api.json()["forces"]["counters"] if c["id"] == "my-scout")
    assert counter["faces"][0] == {
        "kind": "intact",
        "dv": 5,
        "mv": 5,
        "cv": {"infantry": 2, "light_vehicle": 1, "heavy_vehicle": None},
        "abilities": [{"id": "assault", "param": 1}, {"id": "ambush"}],
        "on_step_loss": "flip",
    }
    assert counter["faces"][1]["kind"] == "reduced"
    # the form comes back filled to edit it
    page = html(alice.get(f"{path}?counter=my-scout"))
    assert page.css_first("#counter-form input[name='faces[0].dv']").attributes["value"] == "5"
    chosen = page.css("#counter-form select[name='faces[0].abilities'] option[selected]")
    assert [o.attributes["value"] for o in chosen] == ["assault", "ambush"]
    # a wrong value: the engine's message beside its field, nothing saved
    form.update({"version": _version(alice, path), "faces[0].dv": "lots", "faces[1].kind": ""})
    r = alice.post(f"{path}/counters", data=form)
    assert r.status_code == 422
    page = html(r)
    beside = page.css_first("#counter-form [data-field='faces[0].dv']")
    assert beside is not None
    assert "integer" in beside.text()
    assert page.css_first("#counter-form input[name='faces[0].dv']").attributes["value"] == "lots"
    again = alice.get(f"/api/v1/black-reach/content/{set_id}").json()["forces"]["counters"]
    assert next(c for c in again if c["id"] == "my-scout")["faces"][0]["dv"] == 5


def test_the_tile_form_and_the_scenario_form(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    set_id = path.rsplit("/", 1)[1]
    r = alice.post(
        f"{path}/tiles",
        data={
            "csrf_token": _token(alice, path),
            "version": _version(alice, path),
            "id": "my-tile",
            "name": "Scout squad",
            "faction": "ultramarines",
            "cost": "15",
            "counters": ["sample-um-tactical"],
            "breaking_point": "1",
            "victory_points": "2",
            "order_stars": "1",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    tile = alice.get(f"/api/v1/black-reach/content/{set_id}").json()["forces"]["tiles"][-1]
    assert tile == {
        "id": "my-tile",
        "name": "Scout squad",
        "faction": "ultramarines",
        "cost": 15,
        "counters": ["sample-um-tactical"],
        "breaking_point": 1,
        "victory_points": 2,
        "order_stars": 1,
    }
    scenario = {
        "csrf_token": _token(alice, path),
        "version": _version(alice, path),
        "id": "skirmish",
        "name": "Skirmish",
        "board": "sample-ruins",
        "turns": "4",
        "hand_size": "2",
        "vp_to_win": "",
        "first_initiative": "ultramarines",
        "sides[0].id": "ultramarines",
        "sides[0].points": "40",
        "sides[0].deployment.from_x": "0",
        "sides[0].deployment.from_y": "0",
        "sides[0].deployment.to_x": "7",
        "sides[0].deployment.to_y": "0",
        "sides[0].tiles": ["my-tile"],
        "sides[1].id": "orks",
        "sides[1].points": "40",
        "sides[1].deployment.from_x": "0",
        "sides[1].deployment.from_y": "5",
        "sides[1].deployment.to_x": "7",
        "sides[1].deployment.to_y": "5",
        "sides[1].tiles": ["sample-ork-mob"],
        "objectives[0].id": "centre",
        "objectives[0].squares.from_x": "3",
        "objectives[0].squares.from_y": "3",
        "objectives[0].squares.to_x": "4",
        "objectives[0].squares.to_y": "3",
        "objectives[0].vp": "2",
        "objectives[0].wins": "true",
    }
    r = alice.post(f"{path}/scenario-form", data=scenario, follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = alice.get(f"/api/v1/black-reach/content/{set_id}").json()["scenarios"][-1]
    assert saved["board"] == {"name": "sample-ruins", "boards": [{"board": "sample-ruins"}]}
    assert saved["sides"][1]["deployment"] == [{"from": [0, 5], "to": [7, 5]}]
    assert saved["sides"][0]["army"] == {
        "faction": "ultramarines",
        "tiles": [{"tile": "my-tile", "slots": []}],
    }
    assert saved["objectives"] == [
        {"id": "centre", "squares": [{"from": [3, 3], "to": [4, 3]}], "vp": 2, "wins": True}
    ]
    # overlapping zones: the engine's problem beside the second side's deployment
    scenario.update(
        {
            "version": _version(alice, path),
            "sides[1].deployment.from_y": "0",
            "sides[1].deployment.to_y": "0",
        }
    )
    r = alice.post(f"{path}/scenario-form", data=scenario)
    assert r.status_code == 422
    beside = html(r).css_first("#scenario-form [data-field='sides[1].deployment']")
    assert beside is not None
    assert "overlap" in beside.text()


def test_another_users_set_page_is_404(app: Any) -> None:
    alice, bruno = _browser(app), _browser(app, "Bruno")
    path = _copy_sample(alice)
    assert bruno.get(path).status_code == 404
    r = bruno.post(f"{path}/delete", data={"csrf_token": _token(bruno)})
    assert r.status_code == 404
    assert alice.get(path).status_code == 200


def test_share_link_page_is_read_only_and_copyable(app: Any) -> None:
    alice, bruno = _browser(app), _browser(app, "Bruno")
    path = _copy_sample(alice)
    r = alice.post(
        f"{path}/share", data={"csrf_token": _token(alice, path)}, follow_redirects=False
    )
    assert r.status_code == 303
    link = html(alice.get(path)).css_first("#share-link").attributes["href"]
    page = html(bruno.get(str(link)))
    assert page.css_first("#name-form") is None
    assert page.css_first("#counter-form") is None
    assert "readonly" in page.css_first("#forces textarea").attributes
    r = bruno.post(
        f"{link}/copy", data={"csrf_token": _token(bruno, str(link))}, follow_redirects=False
    )
    assert r.status_code == 303
    assert bruno.get(str(r.headers["location"])).status_code == 200
    anonymous = TestClient(app, base_url="http://testserver")
    seen = html(anonymous.get(str(link)))
    assert seen.css_first("#forces textarea") is not None
    assert seen.css_first("#copy-form") is None  # copying needs an account
    alice.post(f"{path}/unshare", data={"csrf_token": _token(alice, path)})
    assert bruno.get(str(link)).status_code == 404


def test_deleting_a_scenario_and_the_set(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    token = _token(alice, path)
    r = alice.post(
        f"{path}/scenarios/0/delete",
        data={"csrf_token": token, "version": _version(alice, path)},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert html(alice.get(path)).css_first("#scenario-0") is None
    r = alice.post(f"{path}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert r.headers["location"] == HOME
    assert alice.get(path).status_code == 404


def test_a_stored_set_the_engine_no_longer_accepts_shows_its_problems(app: Any, db: Any) -> None:
    from sqlalchemy import update

    from app.blackreach.models import ContentSet

    alice = _browser(app)
    path = _copy_sample(alice)
    assert html(alice.get(path)).css_first("#set-problems") is None
    set_id = int(path.rsplit("/", 1)[1])
    forces = json.loads(html(alice.get(path)).css_first("#forces textarea").text())
    forces["counters"][0]["faces"][0]["dv"] = 0  # as if the rules had changed since the save
    db.execute(update(ContentSet).where(ContentSet.id == set_id).values(forces=forces))
    db.commit()
    page = html(alice.get(path))
    listed = [li.css_first("code").text() for li in page.css("#stored-problems li")]
    assert listed == ["forces.counters[0].faces[0].dv"]


@pytest.mark.parametrize("version", ["²", "-1", "1e3", ""])
def test_an_odd_version_is_a_stale_page_not_a_server_error(app: Any, version: str) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` fails: every save form reads its version
    with ``parse_int`` and anything else is the 409 page."""
    alice = _browser(app)
    path = _copy_sample(alice)
    token = _token(alice, path)
    data = {"csrf_token": token, "version": _version(alice, path), "name": "First"}
    assert alice.post(f"{path}/name", data=data, follow_redirects=False).status_code == 303
    r = alice.post(f"{path}/name", data={"csrf_token": token, "version": version, "name": "X"})
    assert r.status_code == 409
    assert html(r).css_first("#set-name").text() == "First"


def test_the_tile_form_chooses_its_heavy_vehicles_damage_set(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    set_id = path.rsplit("/", 1)[1]
    page = html(alice.get(f"{path}?tile=sample-um-armour"))
    select = page.css_first("#tile-form select[name='damage_set']")
    assert [o.attributes["value"] for o in select.css("option")] == ["", "grey", "sample-two-guns"]
    assert select.css_first("option[selected]").attributes["value"] == "grey"
    form = {
        "csrf_token": _token(alice, path),
        "version": _version(alice, path),
        "id": "sample-um-armour",
        "name": "Sample armour tile",
        "faction": "ultramarines",
        "cost": "30",
        "counters": ["sample-um-battle-tank"],
        "victory_points": "4",
        "order_stars": "1",
        "damage_set": "sample-two-guns",
    }
    r = alice.post(f"{path}/tiles", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text

    def armour() -> dict[str, Any]:
        tiles = alice.get(f"/api/v1/black-reach/content/{set_id}").json()["forces"]["tiles"]
        return dict(next(t for t in tiles if t["id"] == "sample-um-armour"))

    saved = armour()
    assert saved["damage_set"] == "sample-two-guns"
    assert saved["bands"] == ["gold"]  # what the form does not show is kept
    # a set the forces lack: the engine's message beside the field, nothing saved
    form.update({"version": _version(alice, path), "damage_set": "no-such-set"})
    r = alice.post(f"{path}/tiles", data=form)
    assert r.status_code == 422
    page = html(r)
    beside = page.css_first("#tile-form [data-field='damage_set']")
    assert beside is not None
    assert beside.text() == "no damage set 'no-such-set'"
    chosen = page.css_first("#tile-form select[name='damage_set'] option[selected]")
    assert chosen.attributes["value"] == "no-such-set"  # shown as typed, to be corrected
    assert armour()["damage_set"] == "sample-two-guns"
    # left blank: the key is dropped (the vehicle is then an army violation, no_damage_set)
    form.update({"version": _version(alice, path), "damage_set": ""})
    r = alice.post(f"{path}/tiles", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert "damage_set" not in armour()
