"""The per-user cap on army lists (ADR 0011): the list past ``MAX_ARMIES`` is refused with 409
``army-limit`` however it would be made (created, copied, imported from JSON or from text),
through the API and on the pages' forms, and deleting a list frees its place."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.armies import service
from tests.armies.conftest import legal_army
from tests.support.problems import problem_detail
from tests.support.web import csrf, html

API = "/api/v1/armies"


def refused(response: Any) -> str:
    return problem_detail(response, 409, "army-limit")


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "MAX_ARMIES", 2)


def test_the_list_past_the_cap_is_refused_by_every_way_in(
    client: TestClient, alice: dict, bob: dict, other_client: TestClient, two: None
) -> None:
    first = client.post(API, json=legal_army(), headers=alice)
    assert first.status_code == 201, first.text
    army_id = first.json()["id"]
    assert client.post(f"{API}/{army_id}/copy", headers=alice).status_code == 201
    detail = refused(client.post(API, json=legal_army(), headers=alice))
    assert "2 army lists" in detail
    assert "delete one" in detail
    refused(client.post(f"{API}/{army_id}/copy", headers=alice))
    document = client.get(f"{API}/{army_id}/export?format=json", headers=alice).json()
    refused(client.post(f"{API}/import", json=document, headers=alice))
    text = client.get(f"{API}/{army_id}/export?format=text", headers=alice).text
    refused(client.post(f"{API}/import/text", json={"text": text}, headers=alice))
    assert len(client.get(API, headers=alice).json()) == 2
    # the cap is per user: Bob still creates his own
    assert other_client.post(API, json=legal_army(), headers=bob).status_code == 201
    # deleting one frees its place
    assert client.delete(f"{API}/{army_id}", headers=alice).status_code == 204
    assert client.post(f"{API}/import", json=document, headers=alice).status_code == 201
    refused(client.post(API, json=legal_army(), headers=alice))


def test_the_pages_forms_say_why(client: TestClient, alice: dict, two: None) -> None:
    for _ in range(2):
        assert client.post(API, json=legal_army(), headers=alice).status_code == 201
    army_id = client.get(API, headers=alice).json()[0]["id"]
    form = {
        "csrf_token": csrf(client, "/armies/new"),
        "rule_system": "wh40k-10e",
        "name": "One too many",
        "catalog": "starter-wh40k10e",
        "faction": "Adeptus Astartes",
        "detachment": "Gladius Task Force",
        "battle_size": "incursion",
    }
    page = client.post("/armies", data=form, follow_redirects=False)
    assert page.status_code == 409
    shown = html(page).css_first("#new-errors")
    assert shown is not None
    assert "2 army lists" in shown.text()
    assert html(page).css_first("input[name=name]").attributes["value"] == "One too many"

    text = client.get(f"{API}/{army_id}/export?format=text", headers=alice).text
    token = csrf(client, "/armies/import")
    page = client.post("/armies/import", data={"csrf_token": token, "document": text})
    assert page.status_code == 409
    shown = html(page).css_first("#import-errors")
    assert shown is not None
    assert "delete one first" in shown.text()
