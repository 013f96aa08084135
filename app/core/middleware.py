"""ASGI middleware: request-body bounds, text without NUL, security headers and the server's
own timing."""

from __future__ import annotations

import json
import re
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import PROBLEM_BASE, PROBLEM_JSON


class BodySizeLimit:
    """Refuse bodies over the limit with 413, whether or not Content-Length is announced.

    ``upload_prefixes`` get the larger upload limit (catalogue files).
    """

    def __init__(
        self, app: ASGIApp, *, limit: int, upload_limit: int, upload_paths: tuple[str, ...] = ()
    ) -> None:
        self.app = app
        self.limit = limit
        self.upload_limit = upload_limit
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        limit = self.upload_limit if path.startswith(self.upload_paths) else self.limit
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    announced = int(value)
                except ValueError:
                    announced = limit + 1
                if announced > limit:
                    await _send_413(send, limit)
                    return
        received = 0
        response_started = False
        rejected = False

        async def limited_receive() -> Message:
            nonlocal received, rejected
            if rejected:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Answer 413 now and tell the app the client went away: whatever it
                    # does with the truncated body is never sent.
                    rejected = True
                    if not response_started:
                        await _send_413(send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if rejected:
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not rejected:
                raise


async def _send_413(send: Send, limit: int) -> None:
    detail = f"The request body is larger than {limit} bytes."
    await _send_problem(send, 413, "body-too-large", "Request body too large", detail)


async def _send_problem(send: Send, status: int, code: str, title: str, detail: str) -> None:
    body = json.dumps(
        {"type": PROBLEM_BASE + code, "title": title, "status": status, "detail": detail}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", PROBLEM_JSON.encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# A JSON escape of U+0000 that is not itself an escaped backslash followed by "u0000".
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_TEXT_BODIES = ("application/json", "application/x-www-form-urlencoded")


class NoNulCharacters:
    """Refuse text containing U+0000 in the path, the query, or a JSON or form body (422).

    No text we keep may hold it (Postgres refuses it in text columns, and no name or note
    needs it), so it is stopped where it comes in, once, rather than in every field's
    validator. File uploads (multipart) are not text and pass untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").lower()
        if "\x00" in scope.get("path", "") or b"%00" in query or b"\x00" in query:
            await _refuse_nul(send)
            return
        content_type = ""
        for name, value in scope.get("headers", []):
            if name == b"content-type":
                content_type = value.decode("latin-1").lower()
        if not content_type.startswith(_TEXT_BODIES):
            await self.app(scope, receive, send)
            return
        messages = []
        while True:  # the body is bounded by BodySizeLimit, outside this middleware
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        escaped = _JSON_NUL.search(body) if "json" in content_type else b"%00" in body.lower()
        if escaped or b"\x00" in body:
            await _refuse_nul(send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


async def _refuse_nul(send: Send) -> None:
    detail = "Text may not contain the NUL character (U+0000)."
    await _send_problem(send, 422, "nul-character", "Invalid input", detail)


SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        b"script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    ),
]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name for name, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ServerTiming:
    """``Server-Timing: app;dur=<ms>`` on every answer: the time from the request reaching the
    application to its response starting. A client (or ``make bench``) can then tell the
    server's own time apart from the network, the HTTP server and its own queueing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def send_with_timing(message: Message) -> None:
            if message["type"] == "http.response.start":
                elapsed = (time.perf_counter() - start) * 1000
                message["headers"] = [
                    *message.get("headers", []),
                    (b"server-timing", f"app;dur={elapsed:.2f}".encode()),
                ]
            await send(message)

        await self.app(scope, receive, send_with_timing)
