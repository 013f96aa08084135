"""Every Black Reach content page in French: no English message left on it (the same leak
finder as tests/web/test_french_pages.py, on this feature's pages)."""

from __future__ import annotations

from typing import Any

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.blackreach.web import router
from tests.support.web import csrf, html, register
from tests.web.test_french_pages import _english_ids, _matchers, leaks

HOME = "/black-reach/content"


def test_every_content_page_is_french(app: Any) -> None:
    amelie = TestClient(app, base_url="http://testserver")
    register(amelie, email="amelie@example.com", name="Amelie", language="fr")
    token = csrf(amelie, HOME)
    empty = html(amelie.get(HOME))  # before any set: the "no set yet" text
    assert empty.css_first("#no-sets") is not None
    r = amelie.post(f"{HOME}/sample/copy", data={"csrf_token": token}, follow_redirects=False)
    path = str(r.headers["location"])
    amelie.post(f"{path}/share", data={"csrf_token": token})
    link = str(html(amelie.get(path)).css_first("#share-link").attributes["href"])
    bad = amelie.post(
        f"{path}/counters",
        data={"csrf_token": token, "version": "99", "id": "x", "faces[0].kind": "intact"},
    )
    assert bad.status_code == 409  # a stale page: its notice is French too
    pages = {
        "/black-reach/content": [HOME],
        "/black-reach/content/sample": [f"{HOME}/sample"],
        "/black-reach/content/shared/{token}": [link],
        "/black-reach/content/{set_id}": [path, f"{path}?counter=sample-um-tactical"],
    }
    routes = {
        r.path_format for r in router.routes if isinstance(r, APIRoute) and "GET" in r.methods
    }
    assert routes == set(pages)
    matchers = _matchers(_english_ids())
    found = {"(stale notice)": leaks(bad.text, matchers)} if leaks(bad.text, matchers) else {}
    for url in [u for group in pages.values() for u in group]:
        response = amelie.get(url)
        assert response.status_code == 200, url
        assert html(response).css_first("html").attributes["lang"] == "fr"
        if leaked := leaks(response.text, matchers):
            found[url] = leaked
    if leaked := leaks(empty.html or "", matchers):
        found["(empty list)"] = leaked
    assert found == {}
    assert "Contenu d'exemple" in html(amelie.get(f"{HOME}/sample")).css_first("#set-label").text()
