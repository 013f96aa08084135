"""A reload after a form post is a 303 to the page above it, never a raw 405.

Every page path that accepts only POST answers a GET with ``303 See Other`` to the nearest page
above it that answers GET; the GET repeats nothing.
"""

from __future__ import annotations

import re

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app import features
from app.web.reload import reload_target
from tests.support.web import html, register


def _post_only_pages() -> list[str]:
    methods: dict[str, set[str]] = {}
    for router in features.web_routers():
        for route in router.routes:
            if isinstance(route, APIRoute):
                methods.setdefault(route.path_format, set()).update(route.methods)
    return sorted(p for p, verbs in methods.items() if "POST" in verbs and "GET" not in verbs)


def test_every_post_only_page_path_redirects_a_reload(client: TestClient) -> None:
    register(client, email="reload@example.com")
    paths = _post_only_pages()
    assert "/clubs/{club_id}/invites" in paths
    assert "/logout" in paths
    for path in paths:
        url = re.sub(r"\{[^}]+\}", "7", path)
        r = client.get(url, follow_redirects=False)
        assert r.status_code == 303, (path, r.status_code, r.text[:200])
        target = r.headers["location"]
        assert url.startswith(target.rstrip("/")), (path, target)
        assert client.get(target, follow_redirects=False).status_code != 405, (path, target)


def test_a_path_without_parameters_is_not_read_as_an_id(client: TestClient) -> None:
    # /matches/{match_id} would otherwise take "join" for a match id: 422
    for path in ("/matches/join", "/matches/import"):
        r = client.get(path, follow_redirects=False)
        assert (r.status_code, r.headers["location"]) == (303, "/matches")


def test_the_redirect_quotes_what_the_path_carried(client: TestClient) -> None:
    r = client.get("/catalogs/a%20b%3Fc/share", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (303, "/catalogs/a%20b%3Fc")
    r = client.get("/clubs/99999999999999999999/invites", follow_redirects=False)
    assert r.status_code == 404  # ids are bounded here as everywhere


def test_a_reload_does_not_repeat_the_post(client: TestClient) -> None:
    register(client, email="once@example.com")
    page = client.get("/logout", follow_redirects=True)
    assert page.status_code == 200
    assert client.get("/api/v1/me").status_code == 200  # still logged in
    assert html(page).css_first("title") is not None


def test_reload_target() -> None:
    pages = {"/", "/clubs/{club_id}", "/armies/{army_id}/units/{index}"}
    assert reload_target("/clubs/{club_id}/invites/{invite_id}/revoke", pages) == "/clubs/{club_id}"
    assert reload_target("/armies/{army_id}/units/{index}/remove", pages) == (
        "/armies/{army_id}/units/{index}"
    )
    assert reload_target("/logout", pages) == "/"
    assert reload_target("/nowhere/at/all", set()) == "/"
