"""The per-user cap on API tokens (ADR 0011): the live token past ``MAX_LIVE_TOKENS`` is refused
with 409 ``token-limit`` through the API and on the account page's form; revoking one frees its
place, and dead tokens past the newest ``KEEP_DEAD_TOKENS`` are pruned, so that creating and
revoking in a loop never grows the account page."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.accounts import service
from tests.support.web import api_token, csrf, html, register

PROBLEM = "application/problem+json"


def create(client: TestClient, name: str) -> Any:
    token = csrf(client, "/account")
    return client.post("/api/v1/tokens", json={"name": name}, headers={"X-CSRF-Token": token})


def revoke(client: TestClient, name: str) -> None:
    token_id = next(t["id"] for t in client.get("/api/v1/tokens").json() if t["name"] == name)
    token = csrf(client, "/account")
    response = client.delete(f"/api/v1/tokens/{token_id}", headers={"X-CSRF-Token": token})
    assert response.status_code == 200, response.text


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "MAX_LIVE_TOKENS", 2)
    monkeypatch.setattr(service, "KEEP_DEAD_TOKENS", 1)


def test_the_token_past_the_cap_is_refused_and_a_revoked_one_frees_its_place(
    client: TestClient, small: None
) -> None:
    register(client)
    api_token(client, "t1")
    api_token(client, "t2")
    full = create(client, "t3")
    assert full.status_code == 409, full.text
    assert full.headers["content-type"].startswith(PROBLEM)
    body = full.json()
    assert body["type"].endswith("/token-limit"), body
    assert "2 live API tokens" in body["detail"]
    assert "revoke one" in body["detail"]

    page = client.post(
        "/account/tokens",
        data={"csrf_token": csrf(client, "/account"), "name": "t3"},
        headers={"HX-Request": "true", "HX-Target": "tokens"},
    )
    assert page.status_code == 409
    assert html(page).css_first("#new-token") is None
    said = html(page).css_first("#token-form .field-error")
    assert said is not None
    assert "2 live API tokens" in said.text()

    revoke(client, "t1")
    assert create(client, "t3").status_code == 201
    assert [t["name"] for t in client.get("/api/v1/tokens").json()] == ["t1", "t2", "t3"]
    # a second dead token: only the newest dead one is kept
    revoke(client, "t2")
    assert create(client, "t4").status_code == 201
    assert [t["name"] for t in client.get("/api/v1/tokens").json()] == ["t2", "t3", "t4"]
    assert create(client, "t5").status_code == 409


def test_the_cap_is_per_user(app: Any, client: TestClient, small: None) -> None:
    register(client)
    api_token(client, "t1")
    api_token(client, "t2")
    with TestClient(app, base_url="http://testserver") as other:
        register(other, email="bob@example.com", name="Bob")
        assert create(other, "b1").status_code == 201
