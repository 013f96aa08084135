"""The match tracker's API routes are tried first (issue 21: routing walks the routes in order,
and theirs are the hot path), and that changes which route answers no path."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import compile_path

from app import features
from app.main import API_PREFIX, hot_routes_first


def _samples(path: str) -> list[str]:
    """Concrete paths of a route's template: its parameters as a number and as a word."""
    return [re.sub(r"\{[^}]+\}", value, path) for value in ("7", "abc", "7/x")]


def _api_routes(routers: list) -> list[APIRoute]:  # type: ignore[type-arg]
    return [r for router in routers for r in router.routes if isinstance(r, APIRoute)]


def _first_match(routes: list[APIRoute], path: str, method: str) -> APIRoute | None:
    for route in routes:
        if compile_path(route.path)[0].match(path) and method in route.methods:
            return route
    return None


def test_the_match_routes_come_first() -> None:
    ordered = hot_routes_first(features.api_routers())
    modules = [
        {r.endpoint.__module__ for r in router.routes if isinstance(r, APIRoute)}
        for router in ordered
    ]
    hot = [any(m.startswith("app.matches.") for m in found) for found in modules]
    assert hot[0]
    assert hot == sorted(hot, reverse=True)  # the match routers, then the others
    assert sum(hot) >= 2  # the tracker's API and its extra routers


def test_the_order_changes_which_route_answers_nothing() -> None:
    plain = _api_routes(features.api_routers())
    ordered = _api_routes(hot_routes_first(features.api_routers()))
    assert sorted(map(id, plain)) == sorted(map(id, ordered))
    checked = 0
    for route in plain:
        for path in _samples(route.path):
            for method in route.methods:
                assert _first_match(plain, path, method) is _first_match(ordered, path, method), (
                    method,
                    path,
                )
                checked += 1
    assert checked > 300


def test_the_app_serves_the_match_routes_first(app: FastAPI) -> None:
    api = next(r for r in app.router.routes if getattr(r, "original_router", None) is not None)
    assert api.original_router.prefix == API_PREFIX  # type: ignore[attr-defined]
    first = api.original_router.routes[0]  # type: ignore[attr-defined]
    assert first.original_router.prefix == "/matches"
