"""Redirects built from what a visitor typed: only same-site relative paths survive, anything
else goes home, and nothing a visitor sends can break the `Location` header (a 500) or split the
response (CR/LF)."""

from __future__ import annotations

import pytest
from fastapi import Request
from starlette.datastructures import Headers

from app.accounts.web import safe_next
from app.web.templating import htmx_redirect
from tests.support.web import csrf, html, register

LEAVING = [
    "//evil.example/",
    "/\\evil.example/",
    "/\t/evil.example/",  # browsers drop the tab: "//evil.example/"
    "/\n/evil.example/",
    "/\r/evil.example/",
    "/ /evil.example/",
    "https://evil.example/",
    "evil.example",
    "javascript:alert(1)",
    "/\\/evil.example",
]
BROKEN = [
    "/\u3002",  # non-Latin-1: cannot go into a header
    "/caf\u00e9",  # Latin-1 but not ASCII
    "/a\r\nSet-Cookie: auspex_session=x",
    "/a\x00b",
    "/a\x7fb",
    "/" + "a" * 2001,
]
KEPT = ["/", "/account", "/matches/3?tab=log#turn-2", "/calculator?attacks=2%2B1&x=%E3%80%82"]


@pytest.mark.parametrize("target", LEAVING + BROKEN + ["", None])
def test_unsafe_next_goes_home(target: str | None) -> None:
    assert safe_next(target) == "/"


@pytest.mark.parametrize("target", KEPT)
def test_same_site_paths_survive(target: str) -> None:
    assert safe_next(target) == target


@pytest.mark.parametrize("target", ["/\t/evil.example/", "/\u3002", "/a\r\nX-Evil: 1"])
def test_login_page_keeps_no_unsafe_next(client, target: str) -> None:
    page = client.get("/login", params={"next": target})
    assert page.status_code == 200
    field = html(page).css_first("#login-form input[name=next]")
    assert field is not None
    assert field.attributes["value"] == "/"


@pytest.mark.parametrize("target", ["/\t/evil.example/", "/\u3002", "/a\r\nX-Evil: 1"])
def test_logged_in_login_page_sends_home(client, target: str) -> None:
    register(client)
    response = client.get("/login", params={"next": target}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/"


@pytest.mark.parametrize("target", ["/\t/evil.example/", "/\u3002", "/a\r\nX-Evil: 1"])
def test_login_post_sends_home(client, target: str) -> None:
    register(client, email="nina@example.com")
    client.post("/logout", data={"csrf_token": csrf(client, "/")})
    response = client.post(
        "/login",
        data={
            "csrf_token": csrf(client, "/login"),
            "email": "nina@example.com",
            "password": "correct horse battery",
            "next": target,
        },
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/"


def test_language_switch_sends_home_for_an_unsafe_next(client) -> None:
    response = client.post(
        "/language",
        data={"csrf_token": csrf(client, "/"), "language": "fr", "next": "/\t/evil.example/"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/"


@pytest.mark.parametrize("code", ["日本語コード", "ＡＢＣＤ", "!!!"])
def test_joining_with_an_odd_code_is_a_clear_404(client, code: str) -> None:
    register(client)
    response = client.post(
        "/matches/join",
        data={"csrf_token": csrf(client, "/matches"), "code": code},
        follow_redirects=False,
    )
    assert response.status_code == 404
    assert html(response).css_first("form, main") is not None


def test_joining_with_an_ascii_code_goes_to_its_page(client) -> None:
    register(client)
    response = client.post(
        "/matches/join",
        data={"csrf_token": csrf(client, "/matches"), "code": "ab-cd 12"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/matches/join/ABCD12"


def _request(htmx: bool) -> Request:
    headers = Headers({"hx-request": "true"} if htmx else {})
    return Request({"type": "http", "method": "POST", "headers": headers.raw, "path": "/"})


@pytest.mark.parametrize("htmx", [False, True])
def test_a_redirect_never_carries_what_a_header_cannot(htmx: bool) -> None:
    response = htmx_redirect(_request(htmx), "/matches/join/日本\r\nSet-Cookie: x=y")
    value = response.headers["hx-redirect" if htmx else "location"]
    assert value == "/matches/join/%E6%97%A5%E6%9C%AC%0D%0ASet-Cookie:%20x=y"
    assert "set-cookie" not in response.headers


def test_a_redirect_keeps_an_ordinary_url() -> None:
    url = "/calculator?attacks=2%2B1&hit=3&a=b+c#out"
    assert htmx_redirect(_request(False), url).headers["location"] == url
