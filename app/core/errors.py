"""Application errors and their rendering.

Every expected business error is an :class:`AppError` carrying its HTTP status. The JSON API
renders errors as RFC 9457 ``application/problem+json``; HTML pages get a readable error page.
Request-validation errors keep FastAPI's per-field detail, inside the problem document.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from app.core.db import outcome_unknown
from app.core.i18n import DEFAULT_LOCALE, current_locale, lazy
from app.core.i18n import gettext as _

log = logging.getLogger("auspex")

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://auspex.invalid/problems/"


class AppError(Exception):
    """Base of the errors the application raises on purpose."""

    status: int = 400
    code: str = "bad-request"
    title: str = lazy("Bad request")

    def __init__(
        self,
        detail: str | None = None,
        *,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra


class NotAuthenticated(AppError):
    status, code, title = 401, "not-authenticated", lazy("Authentication required")


class Forbidden(AppError):
    status, code, title = 403, "forbidden", lazy("Forbidden")


class NotFound(AppError):
    status, code, title = 404, "not-found", lazy("Not found")


class Conflict(AppError):
    status, code, title = 409, "conflict", lazy("Conflict")


class InvalidInput(AppError):
    status, code, title = 422, "invalid-input", lazy("Invalid input")


class TooManyRequests(AppError):
    status, code, title = 429, "rate-limited", lazy("Too many requests")


class CsrfFailed(AppError):
    status, code, title = 403, "csrf-failed", lazy("Invalid or missing CSRF token")


def problem(
    status: int,
    title: str,
    detail: str | None = None,
    *,
    code: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + (code or str(status)),
        "title": title,
        "status": status,
    }
    if detail:
        body["detail"] = detail
    if errors is not None:
        body["errors"] = errors
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def wants_html(request: Request) -> bool:
    """HTML error pages for browser routes; problem+json for the API and for API clients."""
    if request.url.path.startswith("/api/") or request.url.path == "/healthz":
        return False
    return "text/html" in request.headers.get("accept", "")


def _html_error(request: Request, status: int, title: str, detail: str | None) -> Response:
    from app.web.templating import render  # late import: templating depends on this module

    return render(
        request,
        "errors/error.html",
        {
            "status": status,
            "title": title,
            "detail": detail,
            "user": getattr(request.state, "viewer", None),
        },
        status_code=status,
    )


def _clean_validation_errors(raw: list[Any]) -> list[dict[str, Any]]:
    cleaned = []
    for err in raw:
        loc = [str(part) for part in err.get("loc", ())]
        field = ".".join(part for part in loc if part not in {"body", "query", "path"})
        entry = {
            "field": field or None,
            "loc": loc,
            "message": err.get("msg"),
            "type": err.get("type"),
        }
        suggestion = (err.get("ctx") or {}).get("suggestion")
        if isinstance(suggestion, str):
            entry["suggestion"] = suggestion
        cleaned.append(entry)
    return cleaned


STATUS_TITLES = {
    400: lazy("Bad request"),
    401: lazy("Authentication required"),
    403: lazy("Forbidden"),
    404: lazy("Not found"),
    405: lazy("Method not allowed"),
    409: lazy("Conflict"),
    413: lazy("Request body too large"),
    415: lazy("Unsupported media type"),
    422: lazy("Invalid input"),
    429: lazy("Too many requests"),
    500: lazy("Internal server error"),
    503: lazy("Service unavailable"),
}


def _use_request_locale(request: Request) -> None:
    """Handlers run outside the endpoint's context: translate in the visitor's language."""
    current_locale.set(getattr(request.state, "locale", "en"))


def _detail(exc: AppError) -> str:
    """The problem's ``detail`` in the reader's language when the error carries, for each entry
    of ``errors``, the engine's message a page translates (``templates``, as the combat and
    armies features' ``invalid()`` build it: ``field: message; ...``); each entry's ``message``
    keeps its English, the API's contract. Otherwise the detail as raised."""
    templates = getattr(exc, "templates", ())
    errors = exc.errors or []
    if current_locale.get() == DEFAULT_LOCALE or not errors or len(templates) != len(errors):
        return exc.detail
    said = []
    for entry, template in list(zip(errors, templates, strict=True))[:10]:
        message = str(entry.get("message"))
        if template is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError):  # a bad translation
                message = template.render(_)
        said.append(f"{entry.get('field') or 'body'}: {message}")
    return "; ".join(said)


# Postgres SQLSTATEs of a database away for a moment: a connection exception (class 08), the
# server shutting down or starting (57P01-57P03), too many connections, a lock not available.
_TRANSIENT_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300", "55P03"})
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def _database_away(exc: OperationalError) -> Literal["away", "outcome-unknown"] | None:
    """Whether an OperationalError is the database away for a moment (``"away"``: try again),
    a connection lost while a change committed (``"outcome-unknown"``: a retry could save it
    twice), or a defect (None: a missing table, a wrong password, a file that cannot be opened).

    SQLite is away only while another writer holds its lock (BUSY, LOCKED): it has no server to
    lose. Postgres says so by its SQLSTATE; an error with none (psycopg's own: the connect
    refused, the socket closed) is away when the connection was invalidated or the connect
    failed (no statement). SQLAlchemy gives no statement for BEGIN and COMMIT either: a
    connection invalidated there on a request that writes leaves its outcome unknown.
    """
    orig = exc.orig
    sqlite_code = getattr(orig, "sqlite_errorcode", None)
    if isinstance(sqlite_code, int):
        return "away" if sqlite_code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED) else None
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str) and state:
        return "away" if state.startswith("08") or state in _TRANSIENT_SQLSTATES else None
    if exc.connection_invalidated and (exc.statement is None or outcome_unknown(exc)):
        return "outcome-unknown"  # at COMMIT, or a write that commits by itself
    if exc.connection_invalidated or exc.statement is None:
        return "away"
    return None


def retry_stream(method: str, accept: str, seconds: int) -> bytes | None:
    """What an EventSource refused for a moment is told: reconnect in ``seconds`` (an
    EventSource never reconnects after an error status). None for any other request, a
    command included: a 200 would read as its success."""
    if method in ("GET", "HEAD") and "text/event-stream" in accept:
        return f"retry: {seconds * 1000}\n: busy\n\n".encode()
    return None


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> Response:
        _use_request_locale(request)
        location = exc.headers.get("Location")
        if location and not request.url.path.startswith("/api/"):
            if request.headers.get("hx-request") == "true":
                return Response(status_code=204, headers={"HX-Redirect": location})
            return Response(status_code=303, headers={"Location": location})
        if wants_html(request):
            response = _html_error(request, exc.status, _(exc.title), exc.detail)
            response.headers.update(exc.headers)
            return response
        return problem(
            exc.status,
            exc.title,
            _detail(exc),
            code=exc.code,
            errors=exc.errors,
            headers=exc.headers,
            **exc.extra,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        _use_request_locale(request)
        title = STATUS_TITLES.get(exc.status_code, "Error")
        detail = exc.detail if isinstance(exc.detail, str) and exc.detail != title else None
        if wants_html(request):
            return _html_error(request, exc.status_code, _(title), detail)
        return problem(exc.status_code, title, detail, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = _clean_validation_errors(list(exc.errors()))
        if any(e["type"] == "json_invalid" for e in errors):
            return problem(
                400,
                "Malformed JSON",
                "The request body is not valid JSON.",
                code="malformed-json",
                errors=errors,
            )
        return problem(
            422,
            "Invalid input",
            "; ".join(f"{e['field'] or 'body'}: {e['message']}" for e in errors[:10]),
            code="validation-error",
            errors=errors,
        )

    def _unavailable(request: Request) -> Response:
        # The database cannot serve the request now (its pool is dry, or its connection was
        # lost): say so, and when to come back, rather than a 500 (ADR 0009). An EventSource
        # gives up for good on an error status: it is told to reconnect later instead, as the
        # admission gate tells it (app.core.middleware.AdmissionControl).
        _use_request_locale(request)
        seconds = request.app.state.settings.retry_after_seconds
        body = retry_stream(request.method, request.headers.get("accept", ""), seconds)
        if body is not None:
            return Response(
                body,
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        retry = str(seconds)
        title = STATUS_TITLES[503]
        detail = _("The server is at capacity. Try again in a few seconds.")
        if wants_html(request):
            response = _html_error(request, 503, _(title), detail)
            response.headers["Retry-After"] = retry
            return response
        return problem(503, title, detail, code="overloaded", headers={"Retry-After": retry})

    @app.exception_handler(SQLAlchemyTimeoutError)
    async def _pool_exhausted(request: Request, exc: SQLAlchemyTimeoutError) -> Response:
        # No database connection came free within the pool's short timeout: the server is
        # past its capacity.
        log.warning("database pool exhausted on %s %s", request.method, request.url.path)
        return _unavailable(request)

    @app.exception_handler(OperationalError)
    async def _database_lost(request: Request, exc: OperationalError) -> Response:
        # The database away for a moment (ADR 0009) is a 503 with Retry-After; a defect (a
        # missing table, a wrong password, a database file that cannot be opened) is raised on
        # to the 500 handler, which logs it and lets the tests' client see it.
        away = _database_away(exc)
        if away is None:
            raise exc
        if away == "outcome-unknown" and request.method not in ("GET", "HEAD", "OPTIONS"):
            log.error(
                "database connection lost while %s %s committed", request.method, request.url.path
            )
            _use_request_locale(request)
            detail = _(
                "The connection to the database was lost while your change was being "
                "saved: reload to see whether it was saved before sending it again."
            )
            if wants_html(request):
                return _html_error(request, 500, _("Internal server error"), detail)
            return problem(500, "Internal server error", detail, code="outcome-unknown")
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc.orig)
        return _unavailable(request)

    @app.exception_handler(ClientDisconnect)
    async def _client_gone(request: Request, exc: ClientDisconnect) -> Response:
        # The client gave up before sending its whole body (htmx aborts a request that a newer
        # edit replaces): nothing was done, and nobody is left to read an answer.
        log.info("client disconnected during %s %s", request.method, request.url.path)
        return Response(status_code=499)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        _use_request_locale(request)
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        if wants_html(request):
            return _html_error(request, 500, _("Internal server error"), None)
        return problem(500, "Internal server error", "An unexpected error occurred.")
