"""The catalogue API: browsing, BattleScribe import (fixtures and, when present, the real
files), who sees what, sharing with a club, deletion."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog import starter
from app.engine.wh40k10e.army import name_key
from tests.armies import test_nested_choice as nested_choice
from tests.catalog.bsdata import test_points_steps as points_steps
from tests.catalog.bsdata.restriction_files import FILES as RESTRICTION_FILES
from tests.catalog.hostile import deep_nesting, element_bomb
from tests.support.web import api_token, csrf, register

API = "/api/v1/catalogs"
Zip = Callable[[str, bytes], tuple[str, bytes]]


@pytest.fixture
def starter_loaded(db: Session) -> None:
    starter.load(db)
    db.flush()


@pytest.fixture
def alice(client: TestClient, starter_loaded: None) -> dict[str, str]:
    register(client, email="alice@example.com", name="Alice")
    return {"Authorization": f"Bearer {api_token(client)}"}


@pytest.fixture
def other(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def bob(other: TestClient, starter_loaded: None) -> dict[str, str]:
    register(other, email="bob@example.com", name="Bob")
    return {"Authorization": f"Bearer {api_token(other)}"}


@pytest.fixture
def anon(app: FastAPI, starter_loaded: None) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def upload(files: list[tuple[str, bytes]]) -> list[tuple[str, tuple[str, bytes]]]:
    return [("files", (name, data)) for name, data in files]


def imported(client: TestClient, headers: dict, files: list[tuple[str, bytes]]) -> dict[str, Any]:
    response = client.post(f"{API}/import", files=upload(files), headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


# -- browsing the starter ------------------------------------------------------------------------


def test_anyone_lists_and_reads_the_starter(anon: TestClient) -> None:
    listed = anon.get(API).json()
    assert [c["slug"] for c in listed] == ["starter-wh40k10e"]
    item = listed[0]
    assert item["public"] is True
    assert item["yours"] is False
    assert item["club_id"] is None
    assert item["factions"] == ["Adeptus Astartes", "Orks"]
    assert item["datasheet_count"] == 62
    detail = anon.get(f"{API}/starter-wh40k10e").json()
    assert detail["id"] == item["id"]
    assert detail["report"] is None
    by_id = anon.get(f"{API}/{item['id']}").json()
    assert by_id == detail
    factions = {f["name"]: f for f in detail["faction_details"]}
    gladius = next(
        d for d in factions["Adeptus Astartes"]["detachments"] if d["name"] == "Gladius Task Force"
    )
    assert {
        "name": "Artificer Armour",
        "points": 10,
        "detachment": "Gladius Task Force",
        "requirement": None,
        "characters_only": True,
    } in gladius["enhancements"]
    adept = next(e for e in gladius["enhancements"] if e["name"] == "Adept of the Codex")
    assert adept["requirement"] == "Captain"


def test_factions(anon: TestClient) -> None:
    factions = anon.get(f"{API}/starter-wh40k10e/factions").json()
    assert [f["name"] for f in factions] == ["Adeptus Astartes", "Orks"]
    assert factions[0]["datasheets"] == 33
    assert factions[1]["datasheets"] == 29
    assert any(d["name"] == "War Horde" for d in factions[1]["detachments"])


def test_datasheet_search(anon: TestClient) -> None:
    url = f"{API}/starter-wh40k10e/datasheets"
    everything = anon.get(url).json()
    assert len(everything) == 62
    marines = anon.get(url, params={"faction": "adeptus astartes"}).json()
    assert len(marines) == 33
    # Characters first, then Battleline, Dedicated Transports, the rest
    roles = [d["role"] for d in marines]
    assert roles == sorted(roles, key=["character", "battleline", "transport", "other"].index)
    found = anon.get(url, params={"faction": "Adeptus Astartes", "q": "intercessor"}).json()
    assert [d["name"] for d in found] == [
        "Assault Intercessor Squad",
        "Heavy Intercessor Squad",
        "Intercessor Squad",
    ]
    by_keyword = anon.get(url, params={"faction": "Orks", "q": "mega armour"}).json()
    assert {d["name"] for d in by_keyword} >= {"Warboss in Mega Armour", "Big Mek in Mega Armour"}
    assert anon.get(url, params={"q": "zzzz"}).json() == []
    assert anon.get(url, params={"faction": "Necrons"}).status_code == 404
    assert anon.get(url, params={"q": "x" * 101}).status_code == 422


def test_a_datasheet_as_players_know_it(anon: TestClient) -> None:
    summary = anon.get(
        f"{API}/starter-wh40k10e/datasheets", params={"q": "Intercessor Squad"}
    ).json()
    sheet_id = next(d["id"] for d in summary if d["name"] == "Intercessor Squad")
    sheet = anon.get(f"{API}/starter-wh40k10e/datasheets/{sheet_id}").json()
    assert sheet["battleline"] is True
    assert sheet["points"] == [
        {"min_models": 5, "max_models": 5, "points": 80},
        {"min_models": 6, "max_models": 10, "points": 160},
    ]
    profile = sheet["profiles"][0]
    assert {
        k: profile[k]
        for k in ("movement", "toughness", "save", "wounds", "leadership", "objective_control")
    } == {
        "movement": '6"',
        "toughness": 4,
        "save": 3,
        "wounds": 2,
        "leadership": 6,
        "objective_control": 2,
    }
    rifle = next(w for w in sheet["weapons"] if w["name"] == "Bolt Rifle")["profiles"][0]
    assert rifle["range"] == 24
    assert rifle["attacks"] == "2"
    assert rifle["skill"] == 3
    assert rifle["combat_weapon"] == {
        "name": "Bolt Rifle",
        "kind": "ranged",
        "attacks": "2",
        "skill": 3,
        "strength": 4,
        "ap": -1,
        "damage": "1",
        "abilities": rifle["abilities"],
    }
    assert sheet["combat_target"]["toughness"] == 4
    assert sheet["wargear_options"]
    assert anon.get(f"{API}/starter-wh40k10e/datasheets/nope").status_code == 404


def test_nested_options_say_which_choice_they_need(anon: TestClient) -> None:
    """Issue 17: an option inside a choice of another option (ruling D20) names that choice
    (`requires`), checked against the Captain's entry read from the XML; options standing on
    their own say null. The schema documents the field and ``points_steps``."""
    if not nested_choice.MARINES.exists():
        pytest.skip("../shared/data is not here")
    default, shape = nested_choice._xml_shape()
    listed = anon.get(f"{API}/starter-wh40k10e/datasheets", params={"q": "Captain"}).json()
    sheet_id = next(d["id"] for d in listed if d["name"] == "Captain")
    sheet = anon.get(f"{API}/starter-wh40k10e/datasheets/{sheet_id}").json()
    assert sheet["points_steps"] == []  # priced by size alone
    options = sheet["wargear_options"]
    outer = next(o for o in options if o["name"] == "Wargear" and o["requires"] is None)
    assert outer["default"] == default
    nested = sorted((o["requires"]["choice"], o["name"]) for o in options if o["requires"])
    assert all(o["requires"]["option"] == "Wargear" for o in options if o["requires"])
    # every group inside a member of "Wargear"; those of "Pistol and Melee Weapon" must be
    # picked each time it is taken, as their own minimum says
    assert nested == sorted((m, g) for m, groups in shape.items() for g, _d, _n in groups)
    minimums = nested_choice._inner_minimums()
    assert {
        o["name"]: o["min"]
        for o in options
        if o["requires"] and o["requires"]["choice"] == nested_choice.PARENT
    } == minimums
    schema = anon.get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert "requires" in schema["WargearOptionOut"]["properties"]
    assert "points_steps" in schema["DatasheetOut"]["properties"]
    step = schema["PointsStepOut"]["properties"]
    assert set(step) == {"kind", "amount", "when", "per", "every"}
    assert all(p.get("description") for n, p in step.items() if n != "every")


def test_unknown_catalogue(anon: TestClient) -> None:
    for path in ("nope", "nope/factions", "nope/datasheets", "nope/datasheets/x", "999999"):
        response = anon.get(f"{API}/{path}")
        assert response.status_code == 404
        assert response.json()["type"].endswith("catalog-not-found")


# -- import ------------------------------------------------------------------------------------


def test_import_fixtures(client: TestClient, alice: dict, files: list) -> None:
    body = imported(client, alice, files)
    assert [c["name"] for c in body["catalogues"]] == ["Test Marines", "Test Orks"]
    assert body["created"] == [True, True]
    marines = body["catalogues"][0]
    assert marines["yours"] is True
    assert marines["public"] is False
    assert marines["version"] == "r12+gst-r7"
    assert marines["slug"].startswith("test-marines-")
    report = body["report"]
    assert report["errors"] == []
    assert {f["filename"] for f in report["files"]} == {
        "test-armoury.cat",
        "test-marines.cat",
        "test-orks.cat",
        "test-system.gst",
    }
    codes = {w["code"] for w in report["warnings"]}
    assert "unmapped-ability" in codes  # kept and reported, never dropped
    listed = [c["slug"] for c in client.get(API, headers=alice).json()]
    assert listed == ["starter-wh40k10e", marines["slug"], body["catalogues"][1]["slug"]]
    detail = client.get(f"{API}/{marines['slug']}", headers=alice).json()
    assert detail["report"]["warnings"] == report["warnings"]
    sheets = client.get(f"{API}/{marines['slug']}/datasheets", headers=alice).json()
    assert "Battle Squad" in {d["name"] for d in sheets}


def test_import_zipped_files(client: TestClient, alice: dict, files: list, zip_it) -> None:  # type: ignore[no-untyped-def]
    zipped = [zip_it(n, d) if n.endswith(".cat") else (n, d) for n, d in files]
    body = imported(client, alice, zipped)
    assert [c["name"] for c in body["catalogues"]] == ["Test Marines", "Test Orks"]


def test_reimport_stores_a_new_version_in_the_same_catalogue(
    client: TestClient, alice: dict, files: list
) -> None:
    first = imported(client, alice, files)["catalogues"][0]
    again = imported(client, alice, files)
    assert again["created"] == [False, False]
    assert again["catalogues"][0]["id"] == first["id"]
    changed = [
        (n, d.replace(b'revision="12"', b'revision="13"')) if n == "test-marines.cat" else (n, d)
        for n, d in files
    ]
    newer = imported(client, alice, changed)["catalogues"][0]
    assert newer["id"] == first["id"]
    assert newer["version"] == "r13+gst-r7"


@pytest.mark.parametrize(
    ("bad", "expected_file"),
    [
        (("broken.cat", b"<catalogue"), "broken.cat"),
        (("notes.cat", b"<html></html>"), "notes.cat"),
        (("bomb.catz", b"PK\x03\x04not really a zip"), "bomb.catz"),
    ],
)
def test_import_errors_are_422_naming_the_file(
    client: TestClient, alice: dict, files: list, bad: tuple[str, bytes], expected_file: str
) -> None:
    response = client.post(f"{API}/import", files=upload([*files, bad]), headers=alice)
    assert response.status_code == 422
    problem = response.json()
    assert problem["type"].endswith("catalog-import-failed")
    assert expected_file in problem["detail"]
    assert any(e["file"] == expected_file for e in problem["errors"])
    assert problem["report"]["errors"]
    # nothing was stored
    assert [c["slug"] for c in client.get(API, headers=alice).json()] == ["starter-wh40k10e"]


def test_import_needs_files_and_an_account(
    client: TestClient, alice: dict, anon: TestClient, files: list
) -> None:
    assert anon.post(f"{API}/import", files=upload(files)).status_code == 401
    assert client.post(f"{API}/import", headers=alice).status_code == 422
    only_library = [f for f in files if f[0] == "test-armoury.cat"]
    response = client.post(f"{API}/import", files=upload(only_library), headers=alice)
    assert response.status_code == 422
    assert response.json()["errors"][0]["code"] == "no-catalogue"


# -- who sees what ------------------------------------------------------------------------------


def test_imported_catalogues_are_private(
    client: TestClient, other: TestClient, alice: dict, bob: dict, anon: TestClient, files: list
) -> None:
    slug = imported(client, alice, files)["catalogues"][0]["slug"]
    for who, headers in ((other, bob), (anon, {})):
        assert who.get(f"{API}/{slug}", headers=headers).status_code == 404
        assert who.get(f"{API}/{slug}/datasheets", headers=headers).status_code == 404
        assert [c["slug"] for c in who.get(API, headers=headers).json()] == ["starter-wh40k10e"]
    response = other.post(
        "/api/v1/armies",
        json={"name": "Theft", "catalog": slug, "faction": "Test Marines"},
        headers=bob,
    )
    assert response.status_code == 404


def test_sharing_with_a_club(
    client: TestClient, other: TestClient, alice: dict, bob: dict, files: list
) -> None:
    slug = imported(client, alice, files)["catalogues"][0]["slug"]
    club = client.post("/api/v1/clubs", json={"name": "Grimdark Club"}, headers=alice).json()
    invite = client.post(f"/api/v1/clubs/{club['id']}/invites", json={}, headers=alice).json()
    assert (
        other.post("/api/v1/clubs/join", json={"code": invite["code"]}, headers=bob).status_code
        == 200
    )

    assert other.get(f"{API}/{slug}", headers=bob).status_code == 404
    shared = client.patch(f"{API}/{slug}", json={"club_id": club["id"]}, headers=alice)
    assert shared.status_code == 200
    assert shared.json()["club_id"] == club["id"]
    seen = other.get(f"{API}/{slug}", headers=bob).json()
    assert seen["yours"] is False
    assert seen["club_id"] == club["id"]
    assert seen["report"] is None  # the import report stays the owner's
    army = other.post(
        "/api/v1/armies",
        json={"name": "Club list", "catalog": slug, "faction": "Test Marines"},
        headers=bob,
    )
    assert army.status_code == 201, army.text

    # only the owner shares; a member cannot re-share or delete it
    assert other.patch(f"{API}/{slug}", json={"club_id": None}, headers=bob).status_code == 403
    assert other.delete(f"{API}/{slug}", headers=bob).status_code == 403
    # the owner must administer the club
    bobs_club = other.post("/api/v1/clubs", json={"name": "Bob's"}, headers=bob).json()
    refused = client.patch(f"{API}/{slug}", json={"club_id": bobs_club["id"]}, headers=alice)
    assert refused.status_code == 404  # a private club Alice is not in does not exist for her

    # the list keeps working after the catalogue stops being shared
    client.patch(f"{API}/{slug}", json={"club_id": None}, headers=alice)
    assert other.get(f"{API}/{slug}", headers=bob).status_code == 404
    assert other.get(f"/api/v1/armies/{army.json()['id']}", headers=bob).status_code == 200


def test_share_needs_club_admin(
    client: TestClient, other: TestClient, alice: dict, bob: dict, files: list
) -> None:
    club = other.post("/api/v1/clubs", json={"name": "Bob's club"}, headers=bob).json()
    invite = other.post(f"/api/v1/clubs/{club['id']}/invites", json={}, headers=bob).json()
    client.post("/api/v1/clubs/join", json={"code": invite["code"]}, headers=alice)
    slug = imported(client, alice, files)["catalogues"][0]["slug"]
    refused = client.patch(f"{API}/{slug}", json={"club_id": club["id"]}, headers=alice)
    assert refused.status_code == 403
    assert refused.json()["type"].endswith("club-admin-required")


def test_delete(client: TestClient, alice: dict, files: list) -> None:
    body = imported(client, alice, files)
    marines, orks = (c["slug"] for c in body["catalogues"])
    army = client.post(
        "/api/v1/armies",
        json={"name": "Uses it", "catalog": marines, "faction": "Test Marines"},
        headers=alice,
    ).json()
    in_use = client.delete(f"{API}/{marines}", headers=alice)
    assert in_use.status_code == 409
    assert in_use.json()["type"].endswith("catalog-in-use")
    client.delete(f"/api/v1/armies/{army['id']}", headers=alice)
    assert client.delete(f"{API}/{marines}", headers=alice).status_code == 204
    assert client.get(f"{API}/{marines}", headers=alice).status_code == 404
    assert client.delete(f"{API}/{orks}", headers=alice).status_code == 204
    # nobody deletes the starter
    assert client.delete(f"{API}/starter-wh40k10e", headers=alice).status_code == 403


def test_browser_session_import_needs_csrf(client: TestClient, alice: dict, files: list) -> None:
    response = client.post(f"{API}/import", files=upload(files))
    assert response.status_code == 403
    token = csrf(client, "/catalogs/import")
    ok = client.post(f"{API}/import", files=upload(files), headers={"X-CSRF-Token": token})
    assert ok.status_code == 201


# -- hostile uploads -----------------------------------------------------------------------------


def test_a_hostile_import_is_413_naming_the_limit_and_stores_nothing(
    client: TestClient, alice: dict, files: list, zip_it: Zip
) -> None:
    """Eight archives of a few KB that unzip to 800,000 elements, sent with a good import."""
    bombs = [zip_it(f"bomb{i}.cat", element_bomb(100_000, f"bomb{i}")) for i in range(8)]
    start = time.process_time()  # CPU time (the in-process server's too): the machine is shared
    response = client.post(f"{API}/import", files=upload([*files, *bombs]), headers=alice)
    elapsed = time.process_time() - start
    assert response.status_code == 413, response.text[:1000]
    problem = response.json()
    assert problem["type"].endswith("catalog-import-too-large")
    assert problem["limit"] == "elements"
    (error,) = problem["errors"]
    assert error["code"] == "too-large"
    assert error["limit"] == "elements"
    assert error["max"] == 400_000
    assert error["file"].startswith("bomb")
    assert "400000 XML elements" in problem["detail"]
    assert elapsed < 10  # about a second: refused at the limit, not after eight trees
    assert [c["slug"] for c in client.get(API, headers=alice).json()] == ["starter-wh40k10e"]


@pytest.mark.parametrize(
    ("name", "data", "limit"),
    [
        ("deep.cat", deep_nesting(), "depth"),
        ("bomb.cat", element_bomb(), "elements"),
    ],
)
def test_each_limit_is_named(
    client: TestClient, alice: dict, name: str, data: bytes, limit: str
) -> None:
    response = client.post(f"{API}/import", files=upload([(name, data)]), headers=alice)
    assert response.status_code == 413
    assert response.json()["limit"] == limit
    assert response.json()["errors"][0]["file"] == name


def test_too_many_files_is_413(client: TestClient, alice: dict) -> None:
    many = [(f"f{i}.cat", b"<catalogue/>") for i in range(65)]
    response = client.post(f"{API}/import", files=upload(many), headers=alice)
    assert response.status_code == 413
    assert response.json()["limit"] == "files"


# -- the real BSData files ------------------------------------------------------------------------


def test_import_the_real_files_through_the_api(
    client: TestClient, alice: dict, real_files: list
) -> None:
    start = time.perf_counter()
    response = client.post(f"{API}/import", files=upload(real_files), headers=alice)
    elapsed = time.perf_counter() - start
    assert response.status_code == 201, response.text[:2000]
    body = response.json()
    names = {c["name"] for c in body["catalogues"]}
    assert {"Imperium - Adeptus Astartes - Space Marines", "Xenos - Orks"} <= names
    assert body["report"]["errors"] == []
    marines = next(c for c in body["catalogues"] if "Space Marines" in c["name"])
    assert marines["datasheet_count"] > 150
    assert elapsed < 30, f"the import took {elapsed:.1f} s"
    sheets = client.get(
        f"{API}/{marines['slug']}/datasheets",
        params={"faction": "Adeptus Astartes", "q": "captain"},
        headers=alice,
    ).json()
    assert "Captain" in {d["name"] for d in sheets}
    check = client.post(
        "/api/v1/rulesets/wh40k-10e/armies/validate",
        json={
            "catalog": marines["slug"],
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "strike-force",
            "units": [
                {"datasheet": "Captain", "warlord": True, "enhancements": ["Artificer Armour"]},
                {"datasheet": "Intercessor Squad", "models": 10},
            ],
        },
        headers=alice,
    )
    assert check.status_code == 200
    assert check.json()["valid"], check.json()["violations"]
    # a Crucible character's points by its weapons (ruling D28), as its file writes them
    orks = next(c for c in body["catalogues"] if c["name"] == "Xenos - Orks")
    name = "Hordeboss [Crucible]"
    found = client.get(
        f"{API}/{orks['slug']}/datasheets", params={"q": "Hordeboss"}, headers=alice
    ).json()
    sheet_id = next(d["id"] for d in found if d["name"] == name)
    sheet = client.get(f"{API}/{orks['slug']}/datasheets/{sheet_id}", headers=alice).json()
    facts = points_steps.Sheet(points_steps._root(points_steps.CORE, "Orks.cat"), name)
    steps = sheet["points_steps"]
    assert [(s["kind"], s["amount"]) for s in steps] == [
        (m.get("type"), int(float(m.get("value") or "0"))) for m in facts.mods
    ]
    for step, mod in zip(steps, facts.mods, strict=True):
        repeat = next(mod.iter("repeat"), None)
        if repeat is None:
            assert step["per"] == []
        else:
            assert step["every"] == int(float(repeat.get("value") or "1"))
            assert step["per"]
            assert {name_key(n) for n in step["per"]} <= facts.weapons
        assert (step["when"] is None) == (next(mod.iter("condition"), None) is None)


def test_a_datasheet_shows_the_datas_restrictions(client: TestClient, alice: dict) -> None:
    """Ruling D12: the restriction as the validator words it, never the file's message."""
    slug = imported(client, alice, RESTRICTION_FILES)["catalogues"][0]["slug"]
    listed = client.get(f"{API}/{slug}/datasheets", headers=alice).json()
    ids = {d["name"]: d["id"] for d in listed}
    sheet = client.get(f"{API}/{slug}/datasheets/{ids['Squad']}", headers=alice).json()
    assert {
        "condition": "fewer than 10 models in the unit and more than 1 × Heavy gun in the unit",
        "severity": "error",
        "wargear": "Heavy gun",
        "unavailable": False,
    } in sheet["restrictions"]
    assert "stand-in" not in str(sheet)
    rival = client.get(f"{API}/{slug}/datasheets/{ids['Rival']}", headers=alice).json()
    assert rival["restrictions"][0]["unavailable"] is True
