"""CSRF tokens are bound to the browser session.

Someone who can plant cookies in the victim's browser (a sibling subdomain, a man in the middle
on plain HTTP) can give it a CSRF cookie whose double-submit token they know. Once the victim is
logged in, that token must be worthless: the expected token is an HMAC of the session under the
server secret. Anonymous forms (log in, register) keep the double-submit cookie.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.core import security
from tests.support.web import csrf, html, register

CSRF_COOKIE = "auspex_csrf"


def _plant_csrf_cookie(client: TestClient, value: str) -> None:
    """What a sibling subdomain or a man in the middle can do: replace the CSRF cookie."""
    for cookie in list(client.cookies.jar):
        if cookie.name == CSRF_COOKIE:
            client.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
    client.cookies.set(CSRF_COOKIE, value)


def _attackers_pair(client: TestClient) -> str:
    """A valid double-submit pair from the attacker's own anonymous visit (cookie == token)."""
    attacker = TestClient(client.app)
    token = csrf(attacker, "/login")
    assert attacker.cookies.get(CSRF_COOKIE) == token
    return token


def test_a_planted_csrf_cookie_cannot_post_for_a_logged_in_user(client) -> None:
    register(client, name="Alice")
    planted = _attackers_pair(client)
    _plant_csrf_cookie(client, planted)
    response = client.post(
        "/account",
        data={"csrf_token": planted, "display_name": "Pwned", "preferred_language": "en"},
    )
    assert response.status_code == 403
    assert html(client.get("/")).css_first("#account-link").text() == "Alice"


def test_a_planted_csrf_cookie_cannot_call_the_api_with_the_session(client) -> None:
    register(client)
    planted = _attackers_pair(client)
    _plant_csrf_cookie(client, planted)
    response = client.post("/api/v1/tokens", json={"name": "x"}, headers={"X-CSRF-Token": planted})
    assert response.status_code == 403
    assert response.json()["type"].endswith("csrf-failed")


def test_the_token_is_the_hmac_of_the_session_and_changes_at_login(client, app_settings) -> None:
    anonymous = csrf(client, "/login")
    register(client)
    session = client.cookies.get(app_settings.session_cookie)
    assert session
    bound = csrf(client, "/account")
    assert bound != anonymous
    assert bound == security.session_csrf_token(app_settings.secret_key, session)
    # the token of the anonymous page no longer posts once logged in
    stale = client.post(
        "/account",
        data={"csrf_token": anonymous, "display_name": "Eve", "preferred_language": "en"},
    )
    assert stale.status_code == 403
    fresh = client.post(
        "/account",
        data={"csrf_token": bound, "display_name": "Eve", "preferred_language": "en"},
    )
    assert fresh.status_code == 200


def test_another_sessions_token_is_refused(client) -> None:
    register(client, email="a@example.com", name="A")
    other = TestClient(client.app)
    register(other, email="b@example.com", name="B")
    foreign = csrf(other, "/account")
    response = client.post(
        "/account",
        data={"csrf_token": foreign, "display_name": "B2", "preferred_language": "en"},
    )
    assert response.status_code == 403


def test_htmx_sends_the_session_token_from_the_page(client) -> None:
    register(client, name="Alice")
    page = html(client.get("/account"))
    body = page.css_first("body")
    assert body is not None
    header = str(body.attributes["hx-headers"])
    token = csrf(client, "/account")
    assert token in header
    response = client.post(
        "/account",
        data={"display_name": "Alicia", "preferred_language": "en"},
        headers={"X-CSRF-Token": token, "HX-Request": "true"},
    )
    assert response.status_code == 200


def test_a_bearer_token_needs_no_csrf_token_even_beside_a_session_cookie(client) -> None:
    """Swagger UI's "Try it out" while logged in: the browser adds the session cookie, the
    Authorize button adds the bearer token."""
    register(client)
    token = csrf(client, "/account")
    created = client.post("/api/v1/tokens", json={"name": "docs"}, headers={"X-CSRF-Token": token})
    secret = created.json()["token"]
    response = client.post(
        "/api/v1/tokens", json={"name": "x"}, headers={"Authorization": f"Bearer {secret}"}
    )
    assert response.status_code == 201, response.text


def test_the_api_docs_page_repeats_the_session_token_for_try_it_out(client) -> None:
    register(client)
    body = html(client.get("/api/docs")).css_first("body")
    assert body is not None
    assert body.attributes["data-csrf-token"] == csrf(client, "/account")


def test_openapi_declares_the_bearer_and_cookie_schemes(client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearerToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schemes["bearerToken"]["description"],
    }
    assert schemes["browserSession"]["in"] == "cookie"
    assert schemes["browserSession"]["name"] == "auspex_session"
    assert {"bearerToken": []} in spec["paths"]["/api/v1/tokens"]["post"]["security"]
    assert {"bearerToken": []} in spec["paths"]["/api/v1/me"]["get"]["security"]
