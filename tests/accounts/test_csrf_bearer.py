"""A JSON API call authenticated by a bearer token gets no CSRF token (issue 21): no token is
minted for it and no ``Set-Cookie`` is sent, since ``current_user`` then never reads the session
cookie and no CSRF check applies. Cookie-session API calls and every page are protected exactly
as before (``app.web.context``)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import API_PREFIX
from app.web import context
from tests.support.web import api_token, csrf, html, register

CSRF_COOKIE = context.CSRF_COOKIE


def _sets_csrf_cookie(response: Any) -> bool:
    return any(
        value.startswith(f"{CSRF_COOKIE}=") for value in response.headers.get_list("set-cookie")
    )


def _bare(client: TestClient) -> TestClient:
    """A client of the same app with no cookie at all (a phone with its token)."""
    return TestClient(client.app, base_url="http://testserver")


def test_a_bearer_api_call_mints_no_csrf_cookie(client: TestClient) -> None:
    register(client)
    secret = api_token(client)
    phone = _bare(client)
    for _ in range(2):
        answer = phone.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"})
        assert answer.status_code == 200, answer.text
        assert not _sets_csrf_cookie(answer)
    written = phone.post(
        "/api/v1/tokens", json={"name": "x"}, headers={"Authorization": f"Bearer {secret}"}
    )
    assert written.status_code == 201, written.text
    assert not _sets_csrf_cookie(written)
    assert CSRF_COOKIE not in phone.cookies
    # an unknown token: refused, and no cookie either
    refused = phone.get("/api/v1/me", headers={"Authorization": "Bearer apx_nothing"})
    assert refused.status_code == 401
    assert not _sets_csrf_cookie(refused)


def test_an_api_call_without_a_bearer_token_still_gets_its_csrf_cookie(
    client: TestClient,
) -> None:
    anonymous = _bare(client)
    answer = anonymous.get(f"{API_PREFIX}/openapi.json")
    assert answer.status_code == 200
    assert _sets_csrf_cookie(answer)
    for header in ("Basic eDp5", "Bearer", "Bearer    "):  # not a bearer token to FastAPI
        again = _bare(client).get(f"{API_PREFIX}/openapi.json", headers={"Authorization": header})
        assert _sets_csrf_cookie(again), header


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer   ", "Basic eDp5", "Token abc"])
def test_a_cookie_session_api_write_still_needs_its_csrf_token(
    client: TestClient, header: str | None
) -> None:
    """Whatever Authorization header FastAPI does not take as a bearer token leaves the call to
    the session cookie, and the session's CSRF token is required and accepted as before."""
    register(client)
    token = csrf(client, "/account")
    extra = {} if header is None else {"Authorization": header}
    missing = client.post("/api/v1/tokens", json={"name": "x"}, headers=extra)
    assert missing.status_code == 403, missing.text
    assert missing.json()["type"].endswith("csrf-failed")
    wrong = client.post(
        "/api/v1/tokens", json={"name": "x"}, headers={**extra, "X-CSRF-Token": "s.x"}
    )
    assert wrong.status_code == 403
    sent = client.post(
        "/api/v1/tokens", json={"name": "x"}, headers={**extra, "X-CSRF-Token": token}
    )
    assert sent.status_code == 201, sent.text


def test_a_bad_bearer_token_beside_a_session_cookie_is_refused_not_taken_for_the_session(
    client: TestClient,
) -> None:
    register(client)
    token = csrf(client, "/account")
    answer = client.post(
        "/api/v1/tokens",
        json={"name": "x"},
        headers={"Authorization": "Bearer apx_nothing", "X-CSRF-Token": token},
    )
    assert answer.status_code == 401


def test_pages_keep_their_csrf_token_with_a_bearer_header(client: TestClient) -> None:
    """A page (even the API's own HTML page) asked with a bearer header is treated as before:
    its forms carry a token and a visitor without a cookie gets one."""
    register(client)
    secret = api_token(client)
    visitor = _bare(client)
    bearer = {"Authorization": f"Bearer {secret}"}
    page = visitor.get("/account", headers=bearer, follow_redirects=False)
    assert page.status_code == 200
    assert _sets_csrf_cookie(page)
    field = html(page).css_first("input[name=csrf_token]")
    assert field is not None
    assert field.attributes["value"]
    assert visitor.cookies.get(CSRF_COOKIE) == field.attributes["value"]
    docs = _bare(client).get("/api/docs", headers=bearer)
    assert docs.status_code == 200
    assert _sets_csrf_cookie(docs)
    body = html(docs).css_first("body")
    assert body is not None
    assert body.attributes["data-csrf-token"]


def _scope(path: str, *headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {"type": "http", "path": path, "headers": list(headers)}


def test_which_calls_count_as_bearer_api_calls() -> None:
    assert context.BEARER_API_PREFIX == API_PREFIX + "/"
    auth = b"authorization"
    assert context.bearer_api_call(_scope("/api/v1/me", (auth, b"Bearer apx_1")))
    assert context.bearer_api_call(_scope("/api/v1/me", (auth, b"bEaReR  apx_1 ")))
    assert not context.bearer_api_call(_scope("/api/v1/me"))
    assert not context.bearer_api_call(_scope("/api/v1/me", (auth, b"Bearer ")))
    assert not context.bearer_api_call(_scope("/api/v1/me", (auth, b"Bearerapx_1")))
    assert not context.bearer_api_call(_scope("/api/v1/me", (auth, b"Basic eDp5")))
    # FastAPI reads the first Authorization header only
    assert not context.bearer_api_call(
        _scope("/api/v1/me", (auth, b"Basic eDp5"), (auth, b"Bearer apx_1"))
    )
    assert context.bearer_api_call(
        _scope("/api/v1/me", (auth, b"Bearer apx_1"), (auth, b"Basic eDp5"))
    )
    # pages, the API's HTML page included
    for path in ("/account", "/api/docs", "/api/v1", "/matches/1"):
        assert not context.bearer_api_call(_scope(path, (auth, b"Bearer apx_1"))), path
