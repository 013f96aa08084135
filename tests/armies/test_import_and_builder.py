"""Imports of the formats players paste (API and page), and the builder's page: the detachment
of the faction only, undo of a removal, the red points bar, no version strings, and the fix for
being over the points limit that also clears other errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.armies.test_web import HX, add, new_list
from tests.support.web import csrf, html

PASTED = Path(__file__).parent / "pasted"


def _text(name: str) -> str:
    return (PASTED / name).read_text(encoding="utf-8")


def test_api_imports_each_format(client: TestClient, alice: dict[str, str]) -> None:
    for name in ("app.txt", "wtc.txt", "roster.txt", "roster.json"):
        response = client.post(
            "/api/v1/armies/import/text", json={"text": _text(name)}, headers=alice
        )
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["faction"] == "Adeptus Astartes"
        assert body["detachment"] == "Gladius Task Force"
        assert body["validation"]["points"] == 355
        assert [u["datasheet"] for u in body["units"]] == [
            "Captain",
            "Intercessor Squad",
            "Rhino",
            "Hellblaster Squad",
        ]
        assert body["import_report"]["skipped"] == []
    # New Recruit's JSON also through the JSON import
    import json

    response = client.post(
        "/api/v1/armies/import", json=json.loads(_text("roster.json")), headers=alice
    )
    assert response.status_code == 201, response.text
    assert response.json()["import_report"]["format"] == "json"


def test_api_refuses_lines_not_understood_naming_each(
    client: TestClient, alice: dict[str, str]
) -> None:
    text = _text("app.txt").replace("Rhino (75 Points)", "Rhinoceros (75 Points)")
    response = client.post("/api/v1/armies/import/text", json={"text": text}, headers=alice)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    errors = response.json()["errors"]
    assert {"field": "line 31", "text": "Rhinoceros"} in [
        {"field": e["field"], "text": e["text"]} for e in errors
    ]
    assert client.get("/api/v1/armies", headers=alice).json() == []  # nothing created
    skipped = client.post(
        "/api/v1/armies/import/text", json={"text": text, "skip_unknown": True}, headers=alice
    )
    assert skipped.status_code == 201
    report = skipped.json()["import_report"]
    assert [s["where"] for s in report["skipped"]] == ["line 31"]
    assert len(skipped.json()["units"]) == 3


def test_api_bounds(client: TestClient, alice: dict[str, str]) -> None:
    for body in ({"text": ""}, {"text": "x" * 200_001}, {"text": "hello", "extra": 1}):
        response = client.post("/api/v1/armies/import/text", json=body, headers=alice)
        assert response.status_code == 422
    nothing = client.post("/api/v1/armies/import/text", json={"text": "hello"}, headers=alice)
    assert nothing.status_code == 422
    assert "no unit found" in nothing.text


def test_our_text_export_pasted_back_on_the_page(client: TestClient, alice: dict[str, str]) -> None:
    token = csrf(client, "/armies/new")
    army_id = new_list(client, token)
    for name in ("Captain", "Intercessor Squad", "Rhino"):
        add(client, token, army_id, name)
    exported = client.get(f"/api/v1/armies/{army_id}/export?format=text", headers=alice).text
    assert "• 1x Bolt pistol" in exported  # wargear is listed
    response = client.post(
        "/armies/import",
        data={"csrf_token": csrf(client, "/armies/import"), "document": exported},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    new_id = int(response.headers["location"].split("?")[0].rsplit("/", 1)[1])
    again = client.get(f"/api/v1/armies/{new_id}/export?format=text", headers=alice).text
    assert again == exported


def test_the_page_lists_lines_not_understood(client: TestClient, alice: dict[str, str]) -> None:
    text = _text("wtc.txt").replace("Rhino (75 pts)", "Rhinoceros (75 pts)")
    response = client.post(
        "/armies/import",
        data={"csrf_token": csrf(client, "/armies/import"), "document": text},
    )
    assert response.status_code == 422
    page = html(response)
    lines = page.css("#import-lines li")
    assert [li.attributes["data-where"] for li in lines] == ["line 16"]
    assert "Rhinoceros" in lines[0].text()
    assert page.css_first("#import-document").text() == text  # kept to correct
    skipped = client.post(
        "/armies/import",
        data={
            "csrf_token": csrf(client, "/armies/import"),
            "document": text,
            "skip_unknown": "on",
        },
    )
    assert skipped.status_code == 201
    report = html(skipped)
    assert report.css_first("#import-skipped li").attributes["data-where"] == "line 16"  # type: ignore[union-attr]
    assert report.css_first("#open-imported") is not None


# -- the builder's page ---------------------------------------------------------------------------


def test_a_detachment_of_another_faction_is_refused(
    client: TestClient, alice: dict[str, str]
) -> None:
    token = csrf(client, "/armies/new")
    response = client.post(
        "/armies",
        data={
            "csrf_token": token,
            "name": "Mixed",
            "catalog": "starter-wh40k10e",
            "faction": "Orks",
            "detachment": "Gladius Task Force",
            "battle_size": "incursion",
        },
        follow_redirects=False,
    )
    assert response.status_code == 422
    assert "Gladius Task Force is a detachment of Adeptus Astartes, not of Orks" in response.text
    api = client.post(
        "/api/v1/armies",
        json={"name": "Mixed", "faction": "Orks", "detachment": "Gladius Task Force"},
        headers=alice,
    )
    assert api.status_code == 422
    assert api.json()["errors"][0]["field"] == "detachment"
    made = client.post(
        "/api/v1/armies",
        json={"name": "Waaagh", "faction": "Orks", "detachment": ""},
        headers=alice,
    ).json()
    patch = client.patch(
        f"/api/v1/armies/{made['id']}", json={"detachment": "Anvil Siege Force"}, headers=alice
    )
    assert patch.status_code == 422


def test_no_version_strings_on_the_builder(client: TestClient, alice: dict[str, str]) -> None:
    token = csrf(client, "/armies/new")
    new = client.get("/armies/new").text
    assert "space-marines-r" not in new
    army_id = new_list(client, token)
    assert "space-marines-r" not in client.get(f"/armies/{army_id}").text


def _unit_names(response: Any) -> list[str]:
    return [str(a.attributes["data-datasheet"]) for a in html(response).css("#units .unit-card")]


def test_removing_a_unit_can_be_undone(client: TestClient, alice: dict[str, str]) -> None:
    token = csrf(client, "/armies/new")
    army_id = new_list(client, token)
    add(client, token, army_id, "Intercessor Squad")
    add(client, token, army_id, "Captain")
    add(client, token, army_id, "Rhino")
    client.post(
        f"/armies/{army_id}/units/1",
        data={"csrf_token": token, "attached_to": "0", "warlord": "on"},
        headers=HX,
    )
    removed = client.post(
        f"/armies/{army_id}/units/0/remove", data={"csrf_token": token}, headers=HX
    )
    assert _unit_names(removed) == ["Captain", "Rhino"]
    form = html(removed).css_first("#undo-notice form")
    assert form is not None
    assert form.attributes["hx-post"] == f"/armies/{army_id}/restore"
    undo = html(removed).css_first("#undo-notice input[name=undo]").attributes["value"]  # type: ignore[union-attr]
    back = client.post(
        f"/armies/{army_id}/restore", data={"csrf_token": token, "undo": undo}, headers=HX
    )
    assert _unit_names(back) == ["Intercessor Squad", "Captain", "Rhino"]
    units = client.get(f"/api/v1/armies/{army_id}", headers=alice).json()["units"]
    assert units[1]["attached_to"] == 0  # the Leader leads it again
    # the same undo twice: the list changed since, nothing is added
    twice = client.post(
        f"/armies/{army_id}/restore", data={"csrf_token": token, "undo": undo}, headers=HX
    )
    assert _unit_names(twice) == ["Intercessor Squad", "Captain", "Rhino"]
    assert "changed since" in html(twice).css_first("#army-error").text()  # type: ignore[union-attr]
    # without JavaScript: back to the page, which offers the undo
    plain = client.post(
        f"/armies/{army_id}/units/2/remove", data={"csrf_token": token}, follow_redirects=True
    )
    assert _unit_names(plain) == ["Intercessor Squad", "Captain"]
    assert html(plain).css_first("#undo-remove") is not None
    bad = client.post(f"/armies/{army_id}/restore", data={"csrf_token": token, "undo": "!!"})
    assert bad.status_code == 422


def test_points_bar_turns_red_over_the_limit(client: TestClient, alice: dict[str, str]) -> None:
    token = csrf(client, "/armies/new")
    army_id = new_list(client, token)
    add(client, token, army_id, "Captain")
    page = html(client.get(f"/armies/{army_id}"))
    assert "over" not in page.css_first("#points-bar").attributes["class"]  # type: ignore[union-attr]
    for _ in range(5):
        add(client, token, army_id, "Redemptor Dreadnought")
    page = html(client.get(f"/armies/{army_id}"))
    assert "over" in page.css_first("#points-bar").attributes["class"].split()  # type: ignore[union-attr]


def test_over_the_limit_the_fix_removes_the_copy_over_the_rule_of_three(
    client: TestClient, alice: dict[str, str]
) -> None:
    units = [
        {"datasheet": "Captain", "warlord": True},
        {"datasheet": "Hellblaster Squad", "models": 5},
        *[{"datasheet": "Redemptor Dreadnought"} for _ in range(4)],
    ]
    body = {
        "faction": "Adeptus Astartes",
        "detachment": "Gladius Task Force",
        "battle_size": "incursion",
        "units": units,
    }
    response = client.post("/api/v1/rulesets/wh40k-10e/armies/validate", json=body, headers=alice)
    assert response.status_code == 200, response.text
    result = response.json()
    over = next(v for v in result["violations"] if v["code"] == "points-over-limit")
    # 80 + 110 + 4 x 205 = 1010: 10 over; the Hellblasters (110) are the cheapest that cover
    # it, but removing the fourth Redemptor also clears the Rule of Three
    assert result["points"] == 1010
    assert "Redemptor Dreadnought (#6)" in over["fix"]
    assert over["params"]["suggestion"].startswith("Redemptor Dreadnought (#6)")
