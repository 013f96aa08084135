"""Per-request context: the visitor's locale and CSRF token, kept in ``request.state``.

The locale comes from the language cookie, else ``Accept-Language``; a logged-in user's own
setting overrides it later (see ``app.accounts.deps``).

The CSRF token repeated in every form the server renders: with a session cookie, the HMAC of
that session (``security.session_csrf_token``), so a token planted in the CSRF cookie by someone
else is worthless once logged in; without one (log in, register), the signed double-submit token
issued in a cookie the first time a visitor comes. ``app.accounts.deps`` checks the submitted
token against ``request.state.csrf_token``, the one expected value.

A JSON API call that authenticates with a bearer token gets no CSRF token at all (an empty
``request.state.csrf_token``, no cookie minted, no ``Set-Cookie``): ``current_user`` then reads
the token and never the session cookie, so no CSRF check applies to it, and the phones of
tournament night, which keep no cookies, would otherwise be sent a fresh token on every call
(issue 21). A call without one (cookie session, anonymous) and every page are treated as before.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import security
from app.core.config import Settings
from app.core.i18n import DEFAULT_LOCALE, LOCALES, negotiate

CSRF_COOKIE = "auspex_csrf"
LANG_COOKIE = "auspex_lang"
# The JSON API's routes (``app.main.API_PREFIX`` + "/"; the API's HTML page, ``/api/docs``, is
# not under it): a bearer token there authenticates the call without the session cookie.
BEARER_API_PREFIX = "/api/v1/"


def _cookies(scope: Scope) -> dict[str, str]:
    """The cookies exactly as ``request.cookies`` will read them later: the CSRF token must be
    derived from the very session cookie that authenticates the request."""
    return HTTPConnection(scope).cookies


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def bearer_api_call(scope: Scope) -> bool:
    """A JSON API call that ``app.accounts.deps.current_user`` authenticates by its bearer token
    alone, valid or not (an invalid one is a 401): its first ``Authorization`` header is read as
    FastAPI's ``HTTPBearer`` reads it (scheme ``Bearer`` in any case, non-blank credentials).
    Anything else (no header, another scheme, ``Bearer`` alone) falls back to the session
    cookie, whose unsafe calls need the CSRF token."""
    if not scope["path"].startswith(BEARER_API_PREFIX):
        return False
    for key, value in scope.get("headers", []):
        if key == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            return scheme.lower() == "bearer" and bool(credentials.strip())
    return False


class RequestContext:
    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        state = scope.setdefault("state", {})
        lang = cookies.get(LANG_COOKIE)
        state["locale"] = (
            lang if lang in LOCALES else negotiate(_header(scope, b"accept-language"))
        ) or DEFAULT_LOCALE
        if bearer_api_call(scope):
            state["csrf_token"] = ""  # never the expected value of a submitted token
            await self.app(scope, receive, send)
            return
        secret = self.settings.secret_key
        session = cookies.get(self.settings.session_cookie)
        token = cookies.get(CSRF_COOKIE)
        fresh = False
        if session:
            token = security.session_csrf_token(secret, session)
        elif not security.csrf_token_valid(secret, token):
            # a new random token: until its cookie comes back, no submitted token can match it
            fresh = True
            token = security.new_csrf_token(secret)
        state["csrf_token"] = token

        async def send_with_cookie(message: Message) -> None:
            if fresh and message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                secure = "; Secure" if self.settings.secure_cookies else ""
                headers.append(
                    "set-cookie",
                    f"{CSRF_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax{secure}",
                )
            await send(message)

        await self.app(scope, receive, send_with_cookie)
