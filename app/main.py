"""The application factory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import cast

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette._utils import get_route_path
from starlette.routing import Match
from starlette.types import Scope
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app import features
from app.core.config import ROOT, Settings, get_settings
from app.core.db import Database
from app.core.errors import install_error_handlers
from app.core.ids import path_ids_in_range
from app.core.middleware import (
    AdmissionControl,
    BodySizeLimit,
    Bookkeeping,
    NoNulCharacters,
    SecurityHeaders,
    ServerTiming,
)
from app.matches.api import hot_lane
from app.web.context import RequestContext
from app.web.reload import reload_redirects
from app.web.templating import render

API_PREFIX = "/api/v1"
# Features whose API routes are tried first: routing walks the routes in order, and the match
# tracker's are the hot path of tournament night (a write, a refresh and the streams of every
# table: issue 21). No route of an earlier feature shares a path with them
# (tests/core/test_route_order.py), so only the cost of the search changes.
FIRST_API_FEATURES = ("app.matches.",)
UPLOAD_PATHS = ("/api/v1/catalogs/import", "/catalogs/import")


def _hot(router: APIRouter) -> bool:
    return any(
        isinstance(route, APIRoute) and route.endpoint.__module__.startswith(FIRST_API_FEATURES)
        for route in router.routes
    )


def hot_routes_first(routers: list[APIRouter]) -> list[APIRouter]:
    """``routers`` with those of :data:`FIRST_API_FEATURES` first, each group in its order
    (measured: matching ``GET /api/v1/matches/{id}`` against the app's routes went from some
    90 to 21 us of CPU a request)."""
    return sorted(routers, key=lambda router: not _hot(router))


API_PATHS = "/api/"  # every path under it is the API's (or the API docs'): no page answers one


def _literal(path: str) -> tuple[str, bool]:
    """A route's path up to its first parameter, and whether it has none (matches only itself)."""
    head, brace, _ = path.partition("{")
    return head, not brace


def _common_start(texts: list[str]) -> str:
    """The longest start all ``texts`` share, character by character (``/api/v1`` of
    ``/api/v1`` and ``/api/v1/matches``)."""
    first, last = min(texts), max(texts)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _gate_for(paths: list[str]) -> Callable[[str], bool] | None:
    """A test a request's path must pass for any of ``paths`` (route templates) to match it, or
    ``None`` when there is no cheap one. Either the templates' common literal prefix (the
    API's ``/api/v1``), or, for routers with no route under :data:`API_PATHS` and none whose
    literal start could reach under it (a page's ``/{slug}`` could), "not under ``/api/``"."""
    if not paths:
        return None
    heads = [_literal(p) for p in paths]
    common = _common_start([head for head, _ in heads])
    if len(common) > 1:
        return lambda path: path.startswith(common)

    def may_reach_api(head: str, exact: bool) -> bool:
        return head.startswith(API_PATHS) or (not exact and API_PATHS.startswith(head))

    if any(may_reach_api(head, exact) for head, exact in heads):
        return None
    return lambda path: not path.startswith(API_PATHS)


def gate_routers(app: FastAPI) -> int:
    """Let each included router of ``app`` refuse at once a path none of its routes can match
    (issue 21): FastAPI tries a router by walking all its routes, so ``/healthz`` and every
    page walked the API's 118 routes first, and an unknown API path the pages' 170 (some
    130 ``matches`` calls for ``/healthz``). The gate only ever answers "no match" for a path
    whose routes could not match it (:func:`_gate_for`), so no request changes route
    (``tests/core/test_route_gates.py``). Returns how many routers are gated."""
    gated = 0
    for route in app.router.routes:
        if not hasattr(route, "effective_route_contexts"):
            continue
        paths = [getattr(c, "path_format", None) for c in route.effective_route_contexts()]
        if any(not isinstance(p, str) for p in paths):
            continue  # a route FastAPI cannot name (a mount): leave the router as it is
        allows = _gate_for(cast(list[str], paths))
        if allows is None:
            continue
        route.matches = _gated(route.matches, allows)  # type: ignore[method-assign,assignment]
        gated += 1
    return gated


def _gated(
    matches: Callable[[Scope], tuple[Match, Scope]], allows: Callable[[str], bool]
) -> Callable[[Scope], tuple[Match, Scope]]:
    def gated(scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and not allows(get_route_path(scope)):
            return Match.NONE, {}
        return matches(scope)

    gated.ungated = matches  # type: ignore[attr-defined]  # for the tests
    return gated


def create_app(settings: Settings | None = None, database: Database | None = None) -> FastAPI:
    settings = settings or get_settings()
    settings.check_production_ready()
    logging.basicConfig(level=logging.INFO)
    app = FastAPI(
        title="Auspex",
        version="0.1.0",
        summary="An open Warhammer 40,000 companion: exact rules engine, armies, matches, leagues.",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(path_ids_in_range)],
    )
    app.state.settings = settings
    app.state.db = database or Database(
        settings.database_url,
        echo=settings.sql_echo,
        pool_size=settings.db_pool_size,
        pool_timeout=settings.db_pool_timeout,
        busy_timeout_ms=round(settings.db_busy_timeout * 1000),
    )

    api = APIRouter(prefix=API_PREFIX)
    for router in hot_routes_first(features.api_routers()):
        api.include_router(router)
    app.include_router(api)
    hot_lane(app, API_PREFIX)  # issue 21: a command and a refresh without dependency solving
    pages = features.web_routers()
    before, after = reload_redirects(pages)  # a reload after a form post: 303, never 405
    for router in (before, *pages, after):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    gate_routers(app)  # issue 21: /healthz and the pages no longer walk the API's routes

    @app.get("/api/docs", include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        """Swagger UI, vendored: no CDN, no inline script."""
        return render(request, "api_docs.html", {"openapi_url": app.openapi_url})

    install_error_handlers(app)
    app.add_middleware(Bookkeeping)  # after the response: a token's last use, etc.
    app.add_middleware(RequestContext, settings=settings)
    app.add_middleware(NoNulCharacters)  # inside BodySizeLimit: it reads bounded bodies
    app.add_middleware(
        BodySizeLimit,
        limit=settings.max_body_bytes,
        upload_limit=settings.max_upload_bytes,
        upload_paths=UPLOAD_PATHS,
    )
    app.add_middleware(
        AdmissionControl,  # outside the body readers: a refused request costs next to nothing
        limit=settings.max_in_flight,
        queue=settings.admission_queue,
        wait=settings.admission_wait_seconds,
        retry_after=settings.retry_after_seconds,
        threads=settings.threads,
    )
    if settings.trusted_proxy_list:
        # The client's address and scheme from X-Forwarded-For/-Proto, believed only when the
        # peer is a proxy named in W40K_TRUSTED_PROXIES (uvicorn runs with --no-proxy-headers).
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxy_list)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(ServerTiming)  # outermost: it times everything else
    return app
