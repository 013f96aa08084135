"""Routers that refuse at once a path none of their routes can match (issue 21,
``app.main.gate_routers``): ``/healthz`` and the pages no longer walk the API's routes, an
unknown API path no longer walks the pages'; and no request changes route."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import Match

from app.main import _gate_for


def _scope(path: str, method: str = "GET") -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [],
    }


def _samples(app: FastAPI) -> list[str]:
    """Every route's template with its parameters as a number, a word, two segments and
    ``api/v1``, each also with a trailing slash; and paths no route has."""
    templates: set[str] = set()
    for route in app.router.routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is not None:
            templates.update(getattr(c, "path_format", "") for c in contexts())
        elif hasattr(route, "path"):
            templates.add(route.path)
    out = {"/", "/api", "/api/", "/api/v1", "/api/v1/", "/api/v1x", "/apix", "/nothing", "/a/b/c"}
    for template in templates:
        for value in ("7", "abc", "7/x", "api/v1"):
            path = re.sub(r"\{[^}]+\}", value, template)
            out.update({path, path.rstrip("/") + "/", "/api/v1" + path})
    return sorted(out)


def test_the_api_and_the_pages_are_gated(app: FastAPI) -> None:
    gated = [r for r in app.router.routes if hasattr(r.matches, "ungated")]
    assert len(gated) >= 10  # the API's router and the pages'
    api = next(r for r in gated if getattr(r, "original_router", None) is not None)
    assert api.original_router.prefix == "/api/v1"  # type: ignore[attr-defined]
    assert api.matches(_scope("/healthz")) == (Match.NONE, {})
    assert api.matches.ungated(_scope("/healthz"))[0] == Match.NONE  # type: ignore[attr-defined]


def test_a_gate_answers_what_its_router_answers_for_every_path(app: FastAPI) -> None:
    """For each gated router, each sample path and method: the gate gives the router's own
    answer (it only cuts short a walk that would have found nothing)."""
    gated = [r for r in app.router.routes if hasattr(r.matches, "ungated")]
    checked = refused = 0
    for path in _samples(app):
        for method in ("GET", "POST", "DELETE"):
            for route in gated:
                scope = _scope(path, method)
                ungated = route.matches.ungated(dict(scope))  # type: ignore[attr-defined]
                assert route.matches(dict(scope)) == ungated, (path, method, route)
                checked += 1
                refused += ungated[0] == Match.NONE
    assert checked > 5000
    assert refused > checked / 2


@pytest.mark.parametrize(
    ("paths", "allowed", "refused"),
    [
        (["/api/v1/matches", "/api/v1/matches/{id}", "/api/v1"], ["/api/v1/x"], ["/healthz"]),
        (["/clubs", "/clubs/{id}"], ["/clubs/3"], ["/leagues", "/api/v1/clubs"]),
        (["/", "/rulings", "/about/{page}"], ["/", "/about/x"], ["/api/v1/matches/1"]),
    ],
)
def test_gates_of_templates(paths: list[str], allowed: list[str], refused: list[str]) -> None:
    gate = _gate_for(paths)
    assert gate is not None
    assert all(gate(p) for p in allowed)
    assert not any(gate(p) for p in refused)


@pytest.mark.parametrize(
    "paths",
    [
        ["/", "/{slug}"],  # /{slug} could be /api
        ["/", "/ap{x}/y"],  # could be /api/y
        ["/", "/api/docs"],  # a route under /api/ itself
        [],
    ],
)
def test_no_gate_when_a_route_could_reach_the_api(paths: list[str]) -> None:
    assert _gate_for(paths) is None


def test_requests_still_reach_their_routes(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.get("/").status_code == 200
    assert client.get("/api/v1/nothing").status_code == 404
    assert client.get("/api/v1/nothing").headers["content-type"].startswith("application/")
    assert client.get("/nothing").status_code == 404
    assert client.get("/api/v1/matches", follow_redirects=False).status_code in (200, 401)
