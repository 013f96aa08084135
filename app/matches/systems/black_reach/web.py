"""A Black Reach match on a content set shared by link, from the set's read-only page
(issue 16): ``POST /black-reach/content/shared/{token}/play`` creates a match on one of its
scenarios for whoever holds the link and is signed in, without copying the set first.

The match is made by :func:`.shared.create_on_shared` (the JSON API's
``POST /black-reach/content/shared/{token}/matches`` too). A form with a problem (a side
the scenario lacks, the cap reached) shows the shared page again with the message (422), a
link invalid or revoked is a 404, as for the page itself.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.blackreach import web as content_pages
from app.core.deps import DbSession
from app.core.errors import AppError
from app.core.i18n import DEFAULT_LOCALE, current_locale
from app.matches.models import OpponentKind
from app.matches.systems.black_reach.shared import create_on_shared
from app.web.templating import htmx_redirect

__all__ = ["router"]


async def _language(request: Request, user: OptionalUser) -> None:
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf), Depends(_language)])


@router.post(content_pages.HOME + "/shared/{token}/play")
def play_shared(
    request: Request,
    db: DbSession,
    user: WebUser,
    token: content_pages.Token,
    scenario: Annotated[str, Form(min_length=1, max_length=64)],
    side: Annotated[str, Form(max_length=64)] = "",
    opponent: Annotated[str, Form(pattern="^(user|guest)$")] = "user",
    hot_seat: Annotated[str, Form(pattern="^[01]?$")] = "",
) -> HTMLResponse:
    """The shared page's form: the match is created and its page opened; a refusal shows the
    shared page again with its message."""
    options: dict[str, Any] = {"side": side, "deployment": "players"}
    if hot_seat == "1":
        options["hot_seat"] = True
    try:
        with db.begin_nested():
            match = create_on_shared(
                db, user, token, scenario, opponent=OpponentKind(opponent), options=options
            )
    except AppError as exc:
        if exc.status == 404:
            raise
        return content_pages.shared_page_with(
            request, db, token, notice=str(exc), status_code=exc.status
        )
    return htmx_redirect(request, f"/matches/{match.id}")
