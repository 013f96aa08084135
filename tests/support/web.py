"""Helpers for tests that drive the app like a browser or an API client."""

from __future__ import annotations

from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser as HTMLParser

PASSWORD = "correct horse battery"


def html(response) -> HTMLParser:  # type: ignore[no-untyped-def]
    return HTMLParser(response.text)


def csrf(client: TestClient, path: str = "/login") -> str:
    """The CSRF token a page embeds in its forms (fetching the page sets the cookie)."""
    page = client.get(path)
    node = html(page).css_first("input[name=csrf_token]")
    assert node is not None, f"no CSRF field on {path}"
    return str(node.attributes["value"])


def register(
    client: TestClient,
    email: str = "alice@example.com",
    name: str = "Alice",
    password: str = PASSWORD,
    language: str = "en",
) -> None:
    token = csrf(client, "/register")
    response = client.post(
        "/register",
        data={
            "csrf_token": token,
            "email": email,
            "display_name": name,
            "password": password,
            "password_confirm": password,
            "preferred_language": language,
        },
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text


def login(client: TestClient, email: str = "alice@example.com", password: str = PASSWORD):  # type: ignore[no-untyped-def]
    token = csrf(client, "/login")
    return client.post(
        "/login",
        data={"csrf_token": token, "email": email, "password": password, "next": "/"},
        follow_redirects=False,
    )


def api_token(client: TestClient, name: str = "bot") -> str:
    """Create a personal API token through the browser session; return its secret."""
    token = csrf(client, "/account")
    response = client.post("/api/v1/tokens", json={"name": name}, headers={"X-CSRF-Token": token})
    assert response.status_code == 201, response.text
    return str(response.json()["token"])
