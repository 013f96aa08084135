"""The army lists API: create, read, edit, copy, delete (owner only), validation on every read,
ready gating, export / import round trip, share links, PEN armies."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.armies.conftest import legal_army, legal_units

API = "/api/v1/armies"


def create(client: TestClient, headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    response = client.post(API, json=legal_army(**extra), headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


def codes(body: dict[str, Any]) -> list[str]:
    return [v["code"] for v in body["validation"]["violations"]]


# -- create and read ---------------------------------------------------------------------------


def test_create_answers_the_list_with_its_validation(client: TestClient, alice: dict) -> None:
    body = create(client, alice)
    assert body["rule_system"] == "wh40k-10e"
    assert body["status"] == "draft"
    assert body["catalog"]["slug"] == "starter-wh40k10e"
    assert body["catalog_version"] == body["catalog"]["version"]
    assert body["catalog_outdated"] is False
    assert body["faction"] == "Adeptus Astartes"
    assert body["battle_size"] == "incursion"
    v = body["validation"]
    # Captain 80 + Artificer Armour 10, Lieutenant 55, Intercessors 160 and 80, Rhino 75,
    # Redemptor 205, Hellblasters 110 (starter catalogue points).
    assert [u["points"] for u in v["units"]] == [90, 55, 160, 80, 75, 205, 110]
    assert v["points"] == 775
    assert v["points_limit"] == 1000
    assert v["valid"] is True
    assert v["violations"] == []
    assert body["units"][0] == {
        "datasheet": "Captain",
        "models": None,
        "wargear": {},
        "enhancements": ["Artificer Armour"],
        "warlord": True,
        "attached_to": 2,
        "label": "",
    }
    again = client.get(f"{API}/{body['id']}", headers=alice)
    assert again.status_code == 200
    assert again.json() == body


def test_names_are_canonicalised_and_the_default_catalogue_is_the_starter(
    client: TestClient, alice: dict
) -> None:
    body = create(client, alice, faction="adeptus astartes", detachment="gladius task force")
    assert body["faction"] == "Adeptus Astartes"
    assert body["detachment"] == "Gladius Task Force"


def test_list_of_lists(client: TestClient, alice: dict, bob: dict) -> None:
    first = create(client, alice, name="First")
    create(client, alice, name="Second", units=[])
    create(client, bob, name="Bob's")
    listed = client.get(API, headers=alice).json()
    assert [a["name"] for a in listed] == ["Second", "First"]
    assert listed[1] == {
        "id": first["id"],
        "name": "First",
        "rule_system": "wh40k-10e",
        "status": "draft",
        "faction": "Adeptus Astartes",
        "detachment": "Gladius Task Force",
        "battle_size": "incursion",
        "points": 775,
        "points_limit": 1000,
        "valid": True,
        "updated_at": first["updated_at"],
    }
    assert listed[0]["valid"] is False  # no units: no Character, no Warlord


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"faction": "Necrons"}, "faction"),
        ({"name": ""}, "name"),
        ({"battle_size": "apocalypse"}, "battle_size"),
        ({"units": [{"datasheet": "Captain", "models": 0}]}, "units.0.models"),
        (
            {"units": [{"datasheet": "Captain", "wargear": {"Power fist": -1}}]},
            "units.0.wargear.Power fist",
        ),
        ({"units": [{"datasheet": "Captain", "surprise": 1}]}, "units.0.surprise"),
        ({"units": [{"datasheet": "Captain"}] * 151}, "units"),
        ({"rule_system": "chess"}, None),
    ],
)
def test_create_refuses_bad_input_naming_the_field(
    client: TestClient, alice: dict, change: dict, field: str | None
) -> None:
    response = client.post(API, json=legal_army(**change), headers=alice)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    fields = [e["field"] for e in response.json()["errors"]]
    if field is not None:
        assert any(f == field or f.endswith(field) for f in fields), fields


def test_unknown_catalogue_is_a_404(client: TestClient, alice: dict) -> None:
    response = client.post(API, json=legal_army(catalog="no-such-catalogue"), headers=alice)
    assert response.status_code == 404
    assert response.json()["type"].endswith("catalog-not-found")


# -- authorization -----------------------------------------------------------------------------


def test_anonymous_gets_401(anon: TestClient) -> None:
    assert anon.get(API).status_code == 401
    assert anon.post(API, json=legal_army()).status_code == 401
    assert anon.get(f"{API}/1").status_code == 401
    assert anon.patch(f"{API}/1", json={"name": "x"}).status_code == 401
    assert anon.delete(f"{API}/1").status_code == 401
    assert anon.post("/api/v1/armies/import", json={}).status_code == 401


def test_nobody_reads_or_edits_another_users_list(
    client: TestClient, other_client: TestClient, alice: dict, bob: dict
) -> None:
    army = create(client, alice)
    url = f"{API}/{army['id']}"
    for response in (
        other_client.get(url, headers=bob),
        other_client.patch(url, json={"name": "Mine now"}, headers=bob),
        other_client.delete(url, headers=bob),
        other_client.post(f"{url}/copy", headers=bob),
        other_client.get(f"{url}/export?format=text", headers=bob),
        other_client.post(f"{url}/share", headers=bob),
        other_client.delete(f"{url}/share", headers=bob),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["type"].endswith("army-not-found")
    assert client.get(url, headers=alice).json()["name"] == army["name"]
    assert client.get(f"{API}/999999", headers=alice).status_code == 404


def test_session_cookie_api_calls_need_the_csrf_header(client: TestClient, alice: dict) -> None:
    # `client` holds Alice's browser session: unsafe API calls without a token need CSRF.
    response = client.post(API, json=legal_army())
    assert response.status_code == 403
    assert response.json()["type"].endswith("csrf-failed")


# -- edit, ready gating --------------------------------------------------------------------------


def test_patch_edits_and_revalidates(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    url = f"{API}/{army['id']}"
    units = [*legal_units(), {"datasheet": "Land Raider"}]
    body = client.patch(url, json={"units": units, "name": "Heavier"}, headers=alice).json()
    assert body["name"] == "Heavier"
    assert body["validation"]["points"] == 775 + 220
    assert body["validation"]["valid"]
    body = client.patch(url, json={"units": [*units, {"datasheet": "Rhino"}]}, headers=alice).json()
    assert body["validation"]["points"] == 775 + 220 + 75
    assert codes(body) == ["points-over-limit"]
    body = client.patch(url, json={"battle_size": "strike-force"}, headers=alice).json()
    assert body["validation"]["points_limit"] == 2000
    assert body["validation"]["valid"]


def test_ready_is_refused_with_the_violations_unless_valid(client: TestClient, alice: dict) -> None:
    army = create(client, alice, units=[{"datasheet": "Intercessor Squad"}])
    url = f"{API}/{army['id']}"
    refused = client.patch(url, json={"status": "ready"}, headers=alice)
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["type"].endswith("army-not-valid")
    assert {v["code"] for v in problem["violations"]} == {"no-character", "no-warlord"}
    assert client.get(url, headers=alice).json()["status"] == "draft"

    client.patch(url, json={"units": legal_units()}, headers=alice)
    ready = client.patch(url, json={"status": "ready"}, headers=alice)
    assert ready.status_code == 200
    assert ready.json()["status"] == "ready"


def test_editing_a_ready_list_makes_it_a_draft(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    url = f"{API}/{army['id']}"
    assert client.patch(url, json={"status": "ready"}, headers=alice).json()["status"] == "ready"
    # an edit that changes nothing keeps it ready
    same = client.patch(url, json={"name": army["name"]}, headers=alice).json()
    assert same["status"] == "ready"
    edited = client.patch(url, json={"name": "Renamed"}, headers=alice).json()
    assert edited["status"] == "draft"
    both = client.patch(url, json={"name": "Again", "status": "ready"}, headers=alice).json()
    assert both["status"] == "ready"
    assert both["name"] == "Again"
    back = client.patch(url, json={"status": "draft"}, headers=alice).json()
    assert back["status"] == "draft"


def test_an_edit_refused_for_readiness_is_not_saved(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    url = f"{API}/{army['id']}"
    response = client.patch(url, json={"units": [], "status": "ready"}, headers=alice)
    assert response.status_code == 422
    assert len(client.get(url, headers=alice).json()["units"]) == len(legal_units())


def test_pen_fields_are_refused_on_a_10th_edition_list(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    response = client.patch(f"{API}/{army['id']}", json={"points_limit": 500}, headers=alice)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "points_limit"


# -- copy, delete --------------------------------------------------------------------------------


def test_copy_is_a_draft_with_the_same_units(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    client.patch(f"{API}/{army['id']}", json={"status": "ready"}, headers=alice)
    client.post(f"{API}/{army['id']}/share", headers=alice)
    copy = client.post(f"{API}/{army['id']}/copy", headers=alice)
    assert copy.status_code == 201
    body = copy.json()
    assert body["id"] != army["id"]
    assert body["name"] == f"{army['name']} (copy)"
    assert body["status"] == "draft"
    assert body["shared"] is False
    assert body["units"] == army["units"]
    assert body["validation"] == army["validation"]


def test_delete(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    assert client.delete(f"{API}/{army['id']}", headers=alice).status_code == 204
    assert client.get(f"{API}/{army['id']}", headers=alice).status_code == 404
    assert client.delete(f"{API}/{army['id']}", headers=alice).status_code == 404


# -- export, import ------------------------------------------------------------------------------


def test_text_export(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    response = client.get(f"{API}/{army['id']}/export?format=text", headers=alice)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert text.startswith("Gladius spearhead (775 points)\n")
    assert "Incursion (1000 points)" in text
    assert "CHARACTERS" in text
    assert "BATTLELINE" in text
    assert "DEDICATED TRANSPORTS" in text
    assert "Captain (90 points)" in text
    assert "Enhancement: Artificer Armour (+10 points)" in text
    download = client.get(f"{API}/{army['id']}/export?format=text&download=true", headers=alice)
    assert "attachment" in download.headers["content-disposition"]


def test_json_export_import_round_trip_is_lossless(client: TestClient, alice: dict) -> None:
    units = legal_units()
    units[2]["label"] = "Squad Agemman"
    units[2]["wargear"] = {"Intercessor w/ Grenade Launcher": 2}
    army = create(client, alice, units=units)
    doc = client.get(f"{API}/{army['id']}/export?format=json", headers=alice).json()
    assert doc["format"] == "auspex.army"
    assert doc["catalogue"] == "starter-wh40k10e"
    assert doc["summary"]["points"] == army["validation"]["points"]
    imported = client.post(f"{API}/import", json=doc, headers=alice)
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert body["id"] != army["id"]
    for key in (
        "name",
        "faction",
        "detachment",
        "battle_size",
        "units",
        "catalog_version",
        "validation",
    ):
        assert body[key] == army[key], key
    again = client.get(f"{API}/{body['id']}/export?format=json", headers=alice).json()
    assert again == doc


def test_import_keeps_the_version_the_list_was_built_with(client: TestClient, alice: dict) -> None:
    army = create(client, alice)
    doc = client.get(f"{API}/{army['id']}/export?format=json", headers=alice).json()
    doc["catalogue_version"] = "0-older"
    body = client.post(f"{API}/import", json=doc, headers=alice).json()
    assert body["catalog_version"] == "0-older"
    assert body["catalog_outdated"] is True
    # an edit records the current version
    edited = client.patch(f"{API}/{body['id']}", json={"name": "Now"}, headers=alice).json()
    assert edited["catalog_version"] == edited["catalog"]["version"]
    assert edited["catalog_outdated"] is False


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"format": "something-else"}, "format"),
        ({"faction": "Adeptus Astartes", "detachment": "", "battle_size": "huge"}, "battle_size"),
        (
            {
                "faction": "Adeptus Astartes",
                "detachment": "",
                "battle_size": "incursion",
                "units": [{"models": 3}],
            },
            "units.0.datasheet",
        ),
        ({"faction": "Nobody", "detachment": "", "battle_size": "incursion"}, "faction"),
        (
            {
                "faction": "Orks",
                "detachment": "",
                "battle_size": "incursion",
                "catalogue": "someone-elses",
            },
            "catalogue",
        ),
    ],
)
def test_import_refuses_a_bad_document(
    client: TestClient, alice: dict, doc: dict, field: str
) -> None:
    response = client.post(f"{API}/import", json=doc, headers=alice)
    assert response.status_code == 422, response.text
    assert field in [e["field"] for e in response.json()["errors"]]


def test_import_with_an_explicit_catalogue(client: TestClient, alice: dict) -> None:
    doc = {
        "faction": "Orks",
        "detachment": "War Horde",
        "battle_size": "incursion",
        "name": "Waaagh",
    }
    body = client.post(f"{API}/import?catalog=starter-wh40k10e", json=doc, headers=alice)
    assert body.status_code == 201
    assert body.json()["faction"] == "Orks"
    missing = client.post(f"{API}/import?catalog=nope", json=doc, headers=alice)
    assert missing.status_code == 404


# -- share links ---------------------------------------------------------------------------------


def test_share_link_reads_the_list_until_revoked(
    client: TestClient, alice: dict, anon: TestClient
) -> None:
    army = create(client, alice)
    shared = client.post(f"{API}/{army['id']}/share", headers=alice)
    assert shared.status_code == 201
    link = shared.json()
    token = link["token"]
    assert link["url"].endswith(f"/armies/shared/{token}")
    assert link["api_url"].endswith(f"/api/v1/armies/shared/{token}")
    assert client.get(f"{API}/{army['id']}", headers=alice).json()["shared"] is True

    seen = anon.get(f"{API}/shared/{token}")
    assert seen.status_code == 200
    body = seen.json()
    assert body["name"] == army["name"]
    assert body["validation"]["points"] == 775
    assert "id" not in body
    assert "shared" not in body
    page = anon.get(f"/armies/shared/{token}")
    assert page.status_code == 200
    assert army["name"] in page.text

    # a new link replaces the old one
    newer = client.post(f"{API}/{army['id']}/share", headers=alice).json()["token"]
    assert anon.get(f"{API}/shared/{token}").status_code == 404
    assert anon.get(f"{API}/shared/{newer}").status_code == 200

    assert client.delete(f"{API}/{army['id']}/share", headers=alice).status_code == 204
    gone = anon.get(f"{API}/shared/{newer}")
    assert gone.status_code == 404
    assert gone.json()["type"].endswith("shared-army-not-found")
    assert anon.get(f"/armies/shared/{newer}").status_code == 404


def test_share_token_is_stored_hashed(client: TestClient, alice: dict, db) -> None:  # type: ignore[no-untyped-def]
    from app.armies.models import Army
    from app.core import security

    army = create(client, alice)
    token = client.post(f"{API}/{army['id']}/share", headers=alice).json()["token"]
    stored = db.get(Army, army["id"])
    db.refresh(stored)
    assert stored.share_digest == security.digest(token)
    assert token not in (stored.share_digest or "")


@pytest.mark.parametrize("token", ["nope", "army_" + "x" * 200, "army_unknown"])
def test_bad_share_tokens(anon: TestClient, token: str) -> None:
    assert anon.get(f"{API}/shared/{token}").status_code in (404, 422)


# -- PEN -----------------------------------------------------------------------------------------


def pen_unit(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Escouade tactique",
        "points": 150,
        "models": 10,
        "unit_type": "infanterie",
        "characteristics": {
            "ws": 4,
            "bs": 4,
            "strength": 4,
            "toughness": 4,
            "wounds": 1,
            "initiative": 4,
            "attacks": 1,
            "leadership": 8,
            "save": 3,
        },
        "weapons": [
            {
                "name": "Bolter",
                "type": "tir rapide",
                "shots": 1,
                "strength": 4,
                "ap": 5,
                "range": 24,
            }
        ],
        **extra,
    }


def test_pen_army(client: TestClient, alice: dict) -> None:
    response = client.post(
        API,
        json={
            "rule_system": "pen",
            "name": "Ma compagnie",
            "points_limit": 300,
            "units": [pen_unit()],
        },
        headers=alice,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["rule_system"] == "pen"
    assert body["catalog"] is None
    assert body["units"][0]["unit_type"] == "infantry"  # canonical spelling
    assert body["units"][0]["weapons"][0]["type"] == "rapid fire"
    assert body["validation"] == {
        "valid": True,
        "points": 150,
        "points_limit": 300,
        "units": [
            {
                "index": 0,
                "datasheet": "Escouade tactique",
                "models": 10,
                "points": 150,
                "base_points": 150,
                "wargear_points": 0,
                "enhancement_points": 0,
            }
        ],
        "violations": [],
    }
    url = f"{API}/{body['id']}"
    over = client.patch(url, json={"units": [pen_unit(), pen_unit(name="Deuxième")]}, headers=alice)
    assert over.json()["validation"]["points"] == 300
    three = client.patch(url, json={"units": [pen_unit()] * 3}, headers=alice).json()
    assert [v["code"] for v in three["validation"]["violations"]] == ["points-over-limit"]
    assert client.patch(url, json={"status": "ready"}, headers=alice).status_code == 422
    client.patch(url, json={"points_limit": 1000}, headers=alice)
    assert client.patch(url, json={"status": "ready"}, headers=alice).json()["status"] == "ready"
    text = client.get(f"{url}/export?format=text", headers=alice).text
    assert text.startswith("Ma compagnie (450 / 1000 pts)")
    assert 'Bolter (rapid fire; 24"; S 4; AP 5)' in text


def test_pen_unit_bounds_are_checked(client: TestClient, alice: dict) -> None:
    bad = pen_unit(characteristics={"toughness": 11, "wounds": 1}, unit_type="chariot")
    response = client.post(
        API, json={"rule_system": "pen", "name": "X", "units": [bad]}, headers=alice
    )
    assert response.status_code == 422
    fields = {e["field"] for e in response.json()["errors"]}
    assert "units.0.characteristics.toughness" in fields
    assert "units.0.unit_type" in fields


def test_pen_round_trip(client: TestClient, alice: dict) -> None:
    created = client.post(
        API,
        json={"rule_system": "pen", "name": "Aller-retour", "units": [pen_unit()]},
        headers=alice,
    ).json()
    doc = client.get(f"{API}/{created['id']}/export?format=json", headers=alice).json()
    assert doc["format"] == "auspex.pen-army"
    body = client.post(f"{API}/import", json=doc, headers=alice).json()
    assert body["rule_system"] == "pen"
    assert body["units"] == created["units"]
    again = client.get(f"{API}/{body['id']}/export?format=json", headers=alice).json()
    assert again == doc


def test_10th_edition_fields_are_refused_on_a_pen_list(client: TestClient, alice: dict) -> None:
    created = client.post(API, json={"rule_system": "pen", "name": "P"}, headers=alice).json()
    response = client.patch(f"{API}/{created['id']}", json={"faction": "Orks"}, headers=alice)
    assert response.status_code == 422
    assert response.json()["type"].endswith("wrong-rule-system")


# -- language ------------------------------------------------------------------------------------


def test_violations_come_in_the_users_language(
    client: TestClient, other_client: TestClient, starter_loaded: str
) -> None:
    from tests.support.web import api_token, register

    register(other_client, email="claire@example.com", name="Claire", language="fr")
    headers = {"Authorization": f"Bearer {api_token(other_client)}"}
    army = create(other_client, headers, units=[{"datasheet": "Intercessor Squad", "models": 11}])
    messages = {v["code"]: v for v in army["validation"]["violations"]}
    assert messages["no-warlord"]["message"] == "Aucun Seigneur de Guerre n'est choisi."
    size = messages["unit-size-invalid"]
    assert size["message"] == (
        "Intercessor Squad (#1) a 11 figurines ; il en faut entre 5 et 10 "
        "(les points changent à 6)."
    )
    assert size["params"]["allowed"] == "between 5 and 10 (points change at 6)"


def test_a_shared_pen_army(client: TestClient, alice: dict, anon: TestClient) -> None:
    created = client.post(
        API, json={"rule_system": "pen", "name": "Partagée", "units": [pen_unit()]}, headers=alice
    ).json()
    token = client.post(f"{API}/{created['id']}/share", headers=alice).json()["token"]
    assert anon.get(f"{API}/shared/{token}").json()["validation"]["points"] == 150
    page = anon.get(f"/armies/shared/{token}")
    assert page.status_code == 200
    assert "Escouade tactique" in page.text
