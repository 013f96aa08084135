"""Site-wide pages: home, the rulings and the health check.

They are the site's own pages, not the shell every feature renders with (``app.web``): they
know who is asking (``app.accounts``), so they sit above the features' layers
(docs/adr/0012-feature-layers.md).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse
from sqlalchemy import text

from app.accounts.deps import OptionalUser
from app.core.errors import NotFound, problem
from app.core.i18n import DEFAULT_LOCALE, lazy
from app.core.i18n import gettext as _
from app.web import rulings
from app.web.nav import NavItem, add_nav
from app.web.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/")
def home(request: Request, user: OptionalUser) -> HTMLResponse:
    return render(request, "home.html")


@router.get("/rulings")
def rulings_index(request: Request, user: OptionalUser) -> HTMLResponse:
    lang = getattr(request.state, "locale", DEFAULT_LOCALE)
    return render(request, "web/rulings.html", {"pages": rulings.pages(lang), "current": None})


@router.get("/rulings/{name}")
def rulings_page(request: Request, user: OptionalUser, name: str) -> HTMLResponse:
    lang = getattr(request.state, "locale", DEFAULT_LOCALE)
    current = rulings.page(name, lang)
    if current is None:
        raise NotFound(_("No rulings page has this name."))
    return render(request, "web/rulings.html", {"pages": rulings.pages(lang), "current": current})


add_nav(
    NavItem(
        href="/rulings",
        label=lazy("Rulings"),
        blurb=lazy("How Auspex reads the rules where they are silent or ambiguous, with sources."),
        order=90,
    )
)


@router.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    """Liveness and readiness: the app answers and its database does too."""
    try:
        with request.app.state.db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return problem(503, "Service unavailable", "The database does not answer.")
    return JSONResponse({"status": "ok", "database": "ok"})
