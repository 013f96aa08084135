"""Accounts in the browser: register, log in and out, CSRF, throttling, sessions, profile."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from app.accounts.models import User, WebSession
from app.core import security
from app.core.db import utcnow
from tests.support.web import PASSWORD, csrf, html, login, register


def test_register_logs_in_and_shows_the_name(client) -> None:
    register(client, name="Alice")
    page = client.get("/")
    assert html(page).css_first("#account-link").text() == "Alice"


def test_session_cookie_is_httponly_and_samesite(client) -> None:
    token = csrf(client, "/register")
    response = client.post(
        "/register",
        data={
            "csrf_token": token,
            "email": "bob@example.com",
            "display_name": "Bob",
            "password": PASSWORD,
            "password_confirm": PASSWORD,
        },
        follow_redirects=False,
    )
    cookie = response.headers["set-cookie"].lower()
    assert "auspex_session=" in cookie
    assert "httponly" in cookie
    assert "samesite=lax" in cookie


def test_password_is_hashed_with_argon2(client, db) -> None:
    register(client, email="carol@example.com")
    user = db.scalar(select(User).where(User.email == "carol@example.com"))
    assert user is not None
    assert user.password_hash.startswith("$argon2id$")
    assert security.verify_password(user.password_hash, PASSWORD)
    assert PASSWORD not in user.password_hash


def test_register_reports_every_bad_field(client) -> None:
    token = csrf(client, "/register")
    response = client.post(
        "/register",
        data={
            "csrf_token": token,
            "email": "not-an-email",
            "display_name": "  ",
            "password": "short",
            "password_confirm": "other",
        },
    )
    assert response.status_code == 422
    tree = html(response)
    for field in ("email", "display_name", "password", "password_confirm"):
        assert tree.css_first(f"#error-{field}") is not None, field


def test_duplicate_email_is_refused_case_insensitively(client) -> None:
    register(client, email="dave@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    token = csrf(client, "/register")
    response = client.post(
        "/register",
        data={
            "csrf_token": token,
            "email": "DAVE@example.com",
            "display_name": "Dave 2",
            "password": PASSWORD,
            "password_confirm": PASSWORD,
        },
    )
    assert response.status_code == 422
    assert html(response).css_first("#error-email") is not None


def test_login_logout_round_trip(client) -> None:
    register(client, email="erin@example.com", name="Erin")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    assert html(client.get("/")).css_first("#login-link") is not None
    response = login(client, "erin@example.com")
    assert response.status_code == 303
    assert html(client.get("/")).css_first("#account-link").text() == "Erin"


def test_logout_ends_the_session_on_the_server(client, db) -> None:
    register(client, email="frank@example.com")
    cookie = client.cookies.get("auspex_session")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    client.cookies.set("auspex_session", cookie)  # replaying the old cookie does not work
    assert html(client.get("/")).css_first("#login-link") is not None
    assert db.scalar(select(WebSession)) is None


def test_wrong_password_is_a_clear_401(client) -> None:
    register(client, email="gina@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    response = login(client, "gina@example.com", "wrong password!")
    assert response.status_code == 401
    assert html(response).css_first("#login-error") is not None


def test_failed_logins_are_throttled_even_with_the_right_password(client) -> None:
    register(client, email="hank@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    for _ in range(5):
        assert login(client, "hank@example.com", "wrong password!").status_code == 401
    response = login(client, "hank@example.com")
    assert response.status_code == 429
    assert response.headers["retry-after"] == str(15 * 60)


def test_throttle_is_per_account(client) -> None:
    register(client, email="ivy@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    for _ in range(5):
        login(client, "nobody@example.com", "wrong password!")
    assert login(client, "ivy@example.com").status_code == 303


def test_post_without_csrf_token_is_refused(client) -> None:
    client.get("/login")
    response = client.post("/login", data={"email": "x@example.com", "password": "whatever123"})
    assert response.status_code == 403
    assert "expired" in response.text or "CSRF" in response.text


def test_csrf_token_must_match_the_cookie(client) -> None:
    from fastapi.testclient import TestClient

    other = TestClient(client.app)
    foreign_token = csrf(other, "/login")  # valid signature, but another visitor's
    client.get("/login")
    response = client.post(
        "/login",
        data={"csrf_token": foreign_token, "email": "x@example.com", "password": "whatever123"},
    )
    assert response.status_code == 403


def test_forged_csrf_token_is_refused(client) -> None:
    client.get("/login")
    client.cookies.set("auspex_csrf", "abc.def")
    response = client.post(
        "/login", data={"csrf_token": "abc.def", "email": "x@example.com", "password": "p" * 12}
    )
    assert response.status_code == 403


def test_expired_session_redirects_to_login_with_a_notice(client, db) -> None:
    register(client, email="jack@example.com")
    db.execute(update(WebSession).values(expires_at=utcnow() - timedelta(minutes=1)))
    db.flush()
    response = client.get("/account", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=%2Faccount")
    page = client.get(response.headers["location"])
    assert html(page).css_first("#session-expired") is not None


def test_account_page_needs_login(client) -> None:
    response = client.get("/account", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Faccount"


def test_login_next_is_never_an_open_redirect(client) -> None:
    register(client, email="kim@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    token = csrf(client, "/login")
    response = client.post(
        "/login",
        data={
            "csrf_token": token,
            "email": "kim@example.com",
            "password": PASSWORD,
            "next": "//evil.example.com/",
        },
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"


def test_profile_update_changes_name_and_language(client) -> None:
    register(client, email="lea@example.com", name="Lea")
    token = csrf(client, "/account")
    response = client.post(
        "/account",
        data={"csrf_token": token, "display_name": "Léa", "preferred_language": "fr"},
    )
    assert response.status_code == 200
    tree = html(response)
    assert tree.css_first("html").attributes["lang"] == "fr"
    assert tree.css_first("#account-link").text() == "Léa"


def test_tokens_are_created_shown_once_and_revoked_in_the_browser(client) -> None:
    register(client, email="max@example.com")
    token = csrf(client, "/account")
    created = client.post(
        "/account/tokens",
        data={"csrf_token": token, "name": "Discord bot"},
        headers={"HX-Request": "true", "HX-Target": "tokens"},
    )
    assert created.status_code == 200
    secret = html(created).css_first("#new-token code").text()
    assert secret.startswith("apx_")
    assert created.headers["vary"] == "HX-Request"
    assert html(created).css_first("header") is None  # a fragment, not a page
    page = client.get("/account")
    assert secret not in page.text  # shown once
    assert (
        client.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    )
    row = html(page).css_first("tr[id^=token-]")
    token_id = row.attributes["id"].removeprefix("token-")
    client.post(f"/account/tokens/{token_id}/revoke", data={"csrf_token": csrf(client, "/account")})
    client.cookies.clear()
    assert (
        client.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"}).status_code == 401
    )


def test_language_cookie_is_secure_when_cookies_are(app_settings, engine, connection) -> None:
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.conftest import _TestDatabase

    settings = app_settings.model_copy(update={"cookie_secure": True})
    app = create_app(settings, database=_TestDatabase(engine, connection))  # type: ignore[arg-type]
    with TestClient(app, base_url="https://testserver") as client:
        response = client.post(
            "/language",
            data={"csrf_token": csrf(client, "/"), "language": "fr", "next": "/"},
            follow_redirects=False,
        )
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("auspex_lang=fr")
    assert "secure" in cookie.lower()


def test_the_token_list_shows_when_each_token_expires(client) -> None:
    register(client)
    client.post("/account/tokens", data={"csrf_token": csrf(client, "/account"), "name": "bot"})
    row = html(client.get("/account")).css_first("table.tokens tbody tr")
    assert row is not None
    expected = (utcnow() + timedelta(days=90)).strftime("%Y-%m-%d")
    assert expected in [cell.text() for cell in row.css("td")]
