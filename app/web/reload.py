"""A reload after a form post never meets a bare 405.

Some form posts answer with a page (a new club invitation or API token is shown once; a refused
edit shows the page again with the refusal). The address bar then holds the post's URL, and
opening it again (a restored tab, the history, Enter in the address bar) is a GET that the
route does not accept. For every page path that accepts only POST, :func:`reload_redirects`
adds a GET that answers ``303 See Other`` to the nearest page above it that answers GET
(``/clubs/1/invites`` -> ``/clubs/1``, ``/leagues/2/games/3/report`` -> ``/leagues/2/games/3``,
``/logout`` -> ``/``). A GET does nothing else: the post is never repeated.

Two routers come back. Paths without parameters go in front of the pages (``/matches/join``
would otherwise be read as the match ``join``); a path with parameters goes after them, where
it can only answer what no page route answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute

__all__ = ["reload_redirects", "reload_target"]


def _methods(routers: Iterable[APIRouter]) -> dict[str, set[str]]:
    methods: dict[str, set[str]] = {}
    for router in routers:
        for route in router.routes:
            if isinstance(route, APIRoute):
                methods.setdefault(route.path_format, set()).update(route.methods or ())
    return methods


def reload_target(path: str, pages: set[str]) -> str:
    """The nearest path above ``path`` (by segments) that is in ``pages``; else ``/``."""
    parts = path.rstrip("/").split("/")
    while len(parts) > 1:
        parts.pop()
        candidate = "/".join(parts) or "/"
        if candidate in pages:
            return candidate
    return "/"


def _redirect(target: str) -> Callable[[Request], RedirectResponse]:
    def reload(request: Request) -> RedirectResponse:
        values = {name: quote(str(v), safe="") for name, v in request.path_params.items()}
        return RedirectResponse(target.format(**values), status_code=303)

    return reload


def reload_redirects(routers: Iterable[APIRouter]) -> tuple[APIRouter, APIRouter]:
    """(paths without parameters, paths with parameters): GET routes that redirect a reload of
    a POST-only page path to the page above it."""
    methods = _methods(routers)
    pages = {path for path, verbs in methods.items() if "GET" in verbs}
    static = APIRouter(include_in_schema=False)
    parametrised = APIRouter(include_in_schema=False)
    for path, verbs in sorted(methods.items()):
        if "POST" not in verbs or "GET" in verbs:
            continue
        router = parametrised if "{" in path else static
        router.add_api_route(
            path,
            _redirect(reload_target(path, pages)),
            methods=["GET"],
            name=f"reload:{path}",
            response_class=RedirectResponse,
        )
    return static, parametrised
