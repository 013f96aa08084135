"""Per-request context: the visitor's locale and CSRF token, kept in ``request.state``.

The locale comes from the language cookie, else ``Accept-Language``; a logged-in user's own
setting overrides it later (see ``app.accounts.deps``). The CSRF token is issued in a cookie the
first time a visitor comes and repeated in every form the server renders.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import security
from app.core.config import Settings
from app.core.i18n import DEFAULT_LOCALE, LOCALES, negotiate

CSRF_COOKIE = "auspex_csrf"
LANG_COOKIE = "auspex_lang"


def _cookies(scope: Scope) -> dict[str, str]:
    raw = b"; ".join(v for k, v in scope.get("headers", []) if k == b"cookie").decode("latin-1")
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # a malformed cookie header is treated as no cookie
        return {}
    return {key: morsel.value for key, morsel in jar.items()}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


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
        token = cookies.get(CSRF_COOKIE)
        fresh = not security.csrf_token_valid(self.settings.secret_key, token)
        if fresh:
            token = security.new_csrf_token(self.settings.secret_key)
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
