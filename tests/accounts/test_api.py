"""The accounts JSON API: bearer tokens, the profile, CSRF for cookie-authenticated calls."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.accounts.models import ApiToken
from app.core.db import utcnow
from tests.support.web import api_token, csrf, register


def test_me_needs_authentication_with_problem_json(client) -> None:
    response = client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["status"] == 401


def test_token_is_stored_as_a_digest_only(client, db) -> None:
    register(client)
    secret = api_token(client)
    stored = db.scalar(select(ApiToken))
    assert stored is not None
    assert secret not in (stored.token_digest, stored.prefix)
    assert len(stored.token_digest) == 64
    assert secret.startswith(stored.prefix)


def test_bearer_token_reads_and_updates_the_profile(client) -> None:
    register(client, name="Alice")
    secret = api_token(client)
    client.cookies.clear()
    headers = {"Authorization": f"Bearer {secret}"}
    assert client.get("/api/v1/me", headers=headers).json()["display_name"] == "Alice"
    patched = client.patch(
        "/api/v1/me", json={"display_name": "Alice B", "preferred_language": "fr"}, headers=headers
    )
    assert patched.status_code == 200
    assert patched.json()["preferred_language"] == "fr"


def test_token_listing_never_shows_secrets(client) -> None:
    register(client)
    secret = api_token(client, "one")
    listing = client.get("/api/v1/tokens")
    assert listing.status_code == 200
    assert secret not in listing.text
    assert [t["name"] for t in listing.json()] == ["one"]


def test_revoked_token_is_refused(client) -> None:
    register(client)
    secret = api_token(client)
    token_id = client.get("/api/v1/tokens").json()[0]["id"]
    client.cookies.clear()
    headers = {"Authorization": f"Bearer {secret}"}
    assert client.delete(f"/api/v1/tokens/{token_id}", headers=headers).status_code == 200
    response = client.get("/api/v1/me", headers=headers)
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]


def test_expired_token_is_refused(client, db) -> None:
    register(client)
    secret = api_token(client)
    db.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(days=1)))
    db.flush()
    client.cookies.clear()
    assert (
        client.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"}).status_code == 401
    )


def test_garbage_token_is_refused(client) -> None:
    response = client.get("/api/v1/me", headers={"Authorization": "Bearer apx_nope"})
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"


def test_cookie_authenticated_api_writes_need_the_csrf_header(client) -> None:
    register(client)
    response = client.post("/api/v1/tokens", json={"name": "x"})
    assert response.status_code == 403
    assert response.json()["type"].endswith("csrf-failed")
    token = csrf(client, "/account")
    assert (
        client.post(
            "/api/v1/tokens", json={"name": "x"}, headers={"X-CSRF-Token": token}
        ).status_code
        == 201
    )


def test_revoking_someone_elses_token_is_a_404(client) -> None:
    register(client, email="a@example.com")
    api_token(client)
    token_id = client.get("/api/v1/tokens").json()[0]["id"]
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    register(client, email="b@example.com")
    other = api_token(client)
    client.cookies.clear()
    response = client.delete(
        f"/api/v1/tokens/{token_id}", headers={"Authorization": f"Bearer {other}"}
    )
    assert response.status_code == 404


def test_token_create_validates_input(client) -> None:
    register(client)
    secret = api_token(client)
    client.cookies.clear()
    response = client.post(
        "/api/v1/tokens",
        json={"name": "", "expires_in_days": 0, "admin": True},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 422
    fields = {e["field"] for e in response.json()["errors"]}
    assert fields == {"name", "expires_in_days", "admin"}


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def _days_left(body: dict) -> float:
    from datetime import datetime

    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    return (expires - utcnow()).total_seconds() / 86400


def test_every_token_expires_by_default_in_90_days(client) -> None:
    register(client)
    secret = api_token(client)
    client.cookies.clear()
    created = client.post("/api/v1/tokens", json={"name": "bot"}, headers=_bearer(secret))
    assert created.status_code == 201
    assert 89.9 < _days_left(created.json()) <= 90
    listed = client.get("/api/v1/tokens", headers=_bearer(secret)).json()
    assert all(t["expires_at"] is not None for t in listed)


@pytest.mark.parametrize("days", [None, 366, 3650])
def test_a_token_never_lives_past_365_days(client, days: int | None) -> None:
    register(client)
    secret = api_token(client)
    client.cookies.clear()
    response = client.post(
        "/api/v1/tokens", json={"name": "forever", "expires_in_days": days}, headers=_bearer(secret)
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "expires_in_days"


def test_a_token_created_by_a_token_never_outlives_it(client) -> None:
    register(client)
    token = csrf(client, "/account")
    parent = client.post(
        "/api/v1/tokens",
        json={"name": "short", "expires_in_days": 7},
        headers={"X-CSRF-Token": token},
    ).json()
    client.cookies.clear()
    child = client.post(
        "/api/v1/tokens",
        json={"name": "child", "expires_in_days": 365},
        headers=_bearer(parent["token"]),
    )
    assert child.status_code == 201
    assert child.json()["expires_at"] == parent["expires_at"]
    # a shorter lifetime than the parent's is kept
    shorter = client.post(
        "/api/v1/tokens",
        json={"name": "shorter", "expires_in_days": 2},
        headers=_bearer(parent["token"]),
    ).json()
    assert 1.9 < _days_left(shorter) <= 2


def test_a_legacy_token_without_expiry_creates_tokens_of_at_most_365_days(client, db) -> None:
    register(client)
    secret = api_token(client)
    db.execute(update(ApiToken).values(expires_at=None))
    client.cookies.clear()
    child = client.post(
        "/api/v1/tokens",
        json={"name": "child", "expires_in_days": 365},
        headers=_bearer(secret),
    )
    assert child.status_code == 201
    assert 364.9 < _days_left(child.json()) <= 365


def test_a_browser_session_creates_tokens_of_the_asked_lifetime(client) -> None:
    register(client)
    token = csrf(client, "/account")
    created = client.post(
        "/api/v1/tokens",
        json={"name": "year", "expires_in_days": 365},
        headers={"X-CSRF-Token": token},
    )
    assert 364.9 < _days_left(created.json()) <= 365
