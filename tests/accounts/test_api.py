"""The accounts JSON API: bearer tokens, the profile, CSRF for cookie-authenticated calls."""

from __future__ import annotations

from datetime import timedelta

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
