"""Jinja2 templates with named blocks rendered as htmx fragments, and gettext."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import quote

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2_fragments.fastapi import Jinja2Blocks

from app.core.config import ROOT
from app.core.i18n import LANGUAGE_NAMES, LOCALES, current_locale, gettext, ngettext, pgettext
from app.engine import systems
from app.rulesets.names import display_name
from app.web.nav import nav_items

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(ROOT / "templates"),
    autoescape=True,
    extensions=["jinja2.ext.i18n"],
)
templates = Jinja2Blocks(env=_env)
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    gettext, ngettext, newstyle=True, pgettext=pgettext
)
templates.env.policies["ext.i18n.trimmed"] = True
templates.env.globals.update(
    LANGUAGE_NAMES=LANGUAGE_NAMES,
    LOCALES=LOCALES,
    nav_items=nav_items,
    rule_systems=systems.load_all,
    rule_system_name=display_name,
)


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    block: str | None = None,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """Render a page, or only ``block`` of it when htmx asks for a fragment.

    A route that can answer with a fragment says so with ``block``; its responses then vary on
    ``HX-Request`` so that caches keep the page and the fragment apart.
    """
    locale = getattr(request.state, "locale", "en")
    current_locale.set(locale)
    values = {
        "request": request,
        "user": getattr(request.state, "user", None),
        "csrf_token": getattr(request.state, "csrf_token", ""),
        "locale": locale,
        **(context or {}),
    }
    extra = dict(headers or {})
    if block is not None:
        extra["Vary"] = "HX-Request"
    if block is not None and is_htmx(request):
        response = templates.TemplateResponse(
            request, template, values, block_name=block, status_code=status_code, headers=extra
        )
    else:
        response = templates.TemplateResponse(
            request, template, values, status_code=status_code, headers=extra
        )
    return cast(HTMLResponse, response)


def htmx_redirect(request: Request, url: str, status_code: int = 303) -> HTMLResponse:
    """Redirect a form post: ``HX-Redirect`` for htmx, a plain 303 otherwise.

    Whatever is not printable ASCII is percent-encoded: a header cannot carry it (a 500), and a
    CR or LF would split the response."""
    url = quote(url, safe="!#$%&'()*+,-./:;=?@[]_~")
    if is_htmx(request):
        return HTMLResponse("", headers={"HX-Redirect": url})
    return HTMLResponse("", status_code=status_code, headers={"Location": url})
