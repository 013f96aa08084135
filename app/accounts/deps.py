"""Who is asking: the user behind a bearer token (API) or a session cookie (browser).

JSON API calls authenticated by the session cookie must repeat the CSRF token in the
``X-CSRF-Token`` header on unsafe methods; a call with a valid bearer token needs none (a bearer
token is no ambient credential: a cross-site page cannot make the browser send it). Browser form
posts always need it (``verify_csrf``). The token is bound to the browser session
(``app.web.context``); only anonymous forms (log in, register) use the double-submit cookie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote

import anyio.to_thread
from fastapi import Depends, Request, Security
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer

from app.accounts import service
from app.accounts.models import User
from app.core import security
from app.core.config import Settings
from app.core.deps import SAFE_METHODS, AppSettings, DbSession
from app.core.errors import AppError, CsrfFailed, NotAuthenticated
from app.core.i18n import lazy


@dataclass(frozen=True, slots=True)
class Viewer:
    """The logged-in user as plain values, safe to use once the session is gone."""

    id: int
    display_name: str
    email: str


class LoginRequired(AppError):
    """A browser page that needs an account: answered with a redirect to the login page."""

    status, code, title = 401, "login-required", lazy("Log in to continue")


# The two ways to authenticate, declared so that OpenAPI lists them and Swagger UI offers an
# Authorize button. The bearer token is the API's own; the session cookie is what a browser
# logged in on this site sends by itself.
bearer_scheme = HTTPBearer(
    scheme_name="bearerToken",
    description="A personal API token (`apx_…`), created on the account page or with "
    "`POST /api/v1/tokens`. Calls with a valid token need no CSRF token.",
    auto_error=False,
)
session_scheme = APIKeyCookie(
    name=Settings.model_fields["session_cookie"].default,
    scheme_name="browserSession",
    description="The browser session of a user logged in on this site (sent by the browser; "
    "it cannot be typed in here). POST, PUT, PATCH and DELETE then also need the page's CSRF "
    "token in the `X-CSRF-Token` header.",
    auto_error=False,
)


def _csrf_ok(request: Request, submitted: str | None) -> bool:
    """The submitted token is the one this request expects (``app.web.context``): the HMAC of
    the session when the request carries a session cookie, otherwise the signed token of the
    visitor's own CSRF cookie. A token planted in the CSRF cookie never passes for a session."""
    expected = getattr(request.state, "csrf_token", None)
    return bool(
        submitted
        and expected
        and len(submitted) <= 200
        and security.hmac_equal(submitted, expected)
    )


def invalid_token() -> NotAuthenticated:
    """The refusal of a bearer token the database does not accept (also the match tracker's
    hot lane's, which checks tokens itself: ``app.matches.api``)."""
    return NotAuthenticated(
        "The API token is invalid, expired or revoked.",
        headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
    )


async def current_user(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)] = None,
    _session: Annotated[str | None, Security(session_scheme)] = None,  # for OpenAPI only
) -> User | None:
    """The authenticated user, or None for an anonymous visitor.

    On the event loop: a bearer token this process checked in the last few seconds is taken
    from its cache with no I/O (``service.cached_user_for_api_token``); anything else is read
    from the database on the thread pool (ADR 0009, addendum)."""
    token = bearer.credentials.strip() if bearer is not None else None
    user: User | None = None
    if token is not None:
        user = service.cached_user_for_api_token(db, token)
        if user is None:
            user = await anyio.to_thread.run_sync(service.user_for_api_token, db, token)
        if user is None:
            raise invalid_token()
        request.state.auth = "token"
        request.state.token_digest = security.digest(token)  # caps the tokens it creates
    else:
        cookie = request.cookies.get(settings.session_cookie)
        if cookie:
            user = await anyio.to_thread.run_sync(service.user_for_session, db, cookie)
            request.state.session_expired = user is None
            request.state.auth = "session" if user else None
            if (
                user is not None
                and request.url.path.startswith("/api/")
                and request.method not in SAFE_METHODS
                and not _csrf_ok(request, request.headers.get("x-csrf-token"))
            ):
                raise CsrfFailed(
                    "API calls authenticated by the browser session must send the CSRF token "
                    "in the X-CSRF-Token header (or use a bearer token)."
                )
    request.state.user = user
    if user is not None:
        request.state.locale = user.preferred_language
        # Error pages render after the request's transaction has rolled back, when the ORM
        # object is expired: they use this plain copy instead.
        request.state.viewer = Viewer(user.id, user.display_name, user.email)
    return user


OptionalUser = Annotated[User | None, Depends(current_user)]


async def current_viewer(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)] = None,
    _session: Annotated[str | None, Security(session_scheme)] = None,  # for OpenAPI only
) -> Viewer | None:
    """Who is asking, as plain values, for the routes that need nothing else of the user (the
    match tracker's, issue 21): a bearer token this process checked in the last few seconds
    builds no ``User`` instance (the same check as :func:`current_user`'s cache hit); anything
    else goes through :func:`current_user`."""
    if bearer is not None:
        token = bearer.credentials.strip()
        grant = service.cached_grant_for_api_token(token)
        if grant is not None:
            viewer = Viewer(grant.user_id, grant.display_name, grant.email)
            request.state.auth = "token"
            request.state.token_digest = security.digest(token)
            request.state.locale = grant.preferred_language
            request.state.viewer = viewer
            return viewer
    user = await current_user(request, db, settings, bearer, _session)
    return None if user is None else Viewer(user.id, user.display_name, user.email)


OptionalViewer = Annotated[Viewer | None, Depends(current_viewer)]


async def require_user(user: OptionalUser) -> User:
    if user is None:
        raise NotAuthenticated(
            "Send a personal API token as 'Authorization: Bearer <token>'.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return user


async def require_web_user(request: Request, user: OptionalUser) -> User:
    if user is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise LoginRequired(headers={"Location": f"/login?next={quote(target, safe='')}"})
    return user


CurrentUser = Annotated[User, Depends(require_user)]
WebUser = Annotated[User, Depends(require_web_user)]


async def verify_csrf(request: Request) -> None:
    """Every unsafe browser request repeats the CSRF token (form field or htmx header)."""
    if request.method in SAFE_METHODS:
        return
    submitted = request.headers.get("x-csrf-token")
    if submitted is None:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            value = form.get("csrf_token")
            submitted = value if isinstance(value, str) else None
    if not _csrf_ok(request, submitted):
        raise CsrfFailed(
            "This form has expired or did not come from this site. Reload the page and try again."
        )
