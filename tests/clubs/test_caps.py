"""The per-user cap on clubs owned (ADR 0011): the club past ``MAX_OWNED_CLUBS`` is refused
with 409 ``club-limit`` through the API and on the clubs page's form; handing a club over to
another member frees its place (clubs are not deleted)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.clubs import service
from tests.clubs.conftest import user_id
from tests.support.problems import problem_detail
from tests.support.web import csrf, html, register


def create(owner: TestClient, name: str = "Les Dés Rouges") -> Any:
    return owner.post("/api/v1/clubs", json={"name": name})


def refused(response: Any) -> str:
    return problem_detail(response, 409, "club-limit")


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "MAX_OWNED_CLUBS", 2)


def test_the_club_past_the_cap_is_refused_and_a_handover_frees_its_place(
    user_client: Any, two: None
) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    first = create(owner)
    assert first.status_code == 201, first.text
    assert create(owner, "Second").status_code == 201
    detail = refused(create(owner, "Third"))
    assert "2 clubs" in detail
    assert len(owner.get("/api/v1/clubs").json()) == 2
    assert create(bob, "Bob's").status_code == 201  # per user
    # joining other clubs is not capped by this: Owner joins Bob's club
    club_id = first.json()["id"]
    code = owner.post(f"/api/v1/clubs/{club_id}/invites", json={}).json()["code"]
    assert bob.post("/api/v1/clubs/join", json={"code": code}).status_code == 200
    handed = owner.patch(f"/api/v1/clubs/{club_id}/members/{user_id(bob)}", json={"role": "owner"})
    assert handed.status_code == 200, handed.text
    assert create(owner, "Third").status_code == 201
    refused(create(owner, "Fourth"))


def test_the_clubs_page_form_says_why(client: TestClient, two: None) -> None:
    register(client, email="owner@example.com", name="Owner")
    for name in ("One", "Two"):
        made = client.post(
            "/clubs",
            data={"csrf_token": csrf(client, "/clubs"), "name": name},
            follow_redirects=False,
        )
        assert made.status_code == 303, made.text
    page = client.post("/clubs", data={"csrf_token": csrf(client, "/clubs"), "name": "Three"})
    assert page.status_code == 409
    said = html(page).css_first("#error-name")
    assert said is not None
    assert "2 clubs" in said.text()
