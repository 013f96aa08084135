"""ASGI middleware: request-body bounds, text without NUL, security headers, the server's own
timing, admission control and after-response bookkeeping."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass

import anyio
import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import latency
from app.core.db import Bookkeeper, deferred_writes
from app.core.errors import PROBLEM_BASE, PROBLEM_JSON, retry_stream


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


async def _send_problem(
    send: Send,
    status: int,
    code: str,
    title: str,
    detail: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
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
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# A JSON escape of U+0000 that is not itself an escaped backslash followed by "u0000".
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_FORM = "application/x-www-form-urlencoded"


def _body_kind(scope: Scope) -> str | None:
    """How the app will read the body: ``"json"``, ``"form"``, or ``None`` (not as text).

    As Starlette and FastAPI read it: the first ``Content-Type`` header counts; a body without
    one, ``application/json`` and any ``application/*+json`` are parsed as JSON."""
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            media = value.decode("latin-1").split(";", 1)[0].strip().lower()
            break
    else:
        return "json"
    if media == _FORM:
        return "form"
    if media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    ):
        return "json"
    return None


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
        kind = None if scope.get("method") in ("GET", "HEAD") else _body_kind(scope)
        if kind is None:
            await self.app(scope, receive, send)
            return
        messages = []
        while True:  # the body is bounded by BodySizeLimit, outside this middleware
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        escaped = _JSON_NUL.search(body) if kind == "json" else b"%00" in body.lower()
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


# -- admission control ------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class _Waiter:
    loop: asyncio.AbstractEventLoop
    event: asyncio.Event
    granted: bool = False


class Gate:
    """At most ``limit`` requests at work; up to ``queue`` more wait at most ``wait`` seconds
    for a slot, in arrival order; beyond that, :meth:`enter` says no at once.

    Thread-safe (a test client may drive one app from several event loops); a slot freed while
    requests wait is handed to the oldest of them, never taken by a newcomer.
    """

    def __init__(self, limit: int, queue: int, wait: float) -> None:
        self.limit, self.queue, self.wait = limit, queue, wait
        self.active = 0
        self.refused = 0
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def enter(self) -> bool:
        with self._lock:
            if self.active < self.limit and not self._waiters:
                self.active += 1
                return True
            if len(self._waiters) >= self.queue or self.wait <= 0:
                self.refused += 1
                return False
            waiter = _Waiter(asyncio.get_running_loop(), asyncio.Event())
            self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter.event.wait(), self.wait)
        except BaseException as exc:  # timed out, or the request was cancelled
            with self._lock:
                granted = waiter.granted
                if not granted:
                    self._waiters.remove(waiter)
                    self.refused += 1
            if isinstance(exc, TimeoutError):
                return granted  # a slot handed over at the last moment is taken
            if granted:
                self.leave()
            raise
        return True

    def leave(self) -> None:
        with self._lock:
            if not self._waiters:
                self.active -= 1
                return
            waiter = self._waiters.popleft()
            waiter.granted = True  # the slot passes on: ``active`` does not change
        with contextlib.suppress(RuntimeError):  # that loop has closed
            waiter.loop.call_soon_threadsafe(waiter.event.set)


HEALTH_PATH = "/healthz"
HEALTH_SLOTS = 1  # /healthz has a slot (and a pool connection) of its own: see ADR 0009


class AdmissionControl:
    """Bounded work per process, so that past capacity the excess is refused fast instead of
    queueing on the thread pool and the database pool until it times out (issue 21, ADR 0009).

    A request holds a slot from the moment it is admitted until its response *starts*: the
    request's database session is closed by then (``get_db`` is function-scoped), so an open
    event stream holds no slot while it waits for news. When every slot is taken and the short
    queue is full (or a queued request waited ``wait`` seconds), the answer is 503 with
    ``Retry-After``; an ``EventSource`` is instead told to come back later with the SSE
    ``retry:`` field (a browser gives up for good on a 503). ``/healthz`` has slots of its own,
    so a health check still answers while the app is saturated. Static files pass.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int,
        queue: int,
        wait: float,
        retry_after: int,
        threads: int | None = None,
    ) -> None:
        self.app = app
        self.gate = Gate(limit, queue, wait)
        self.health = Gate(HEALTH_SLOTS, 4 * HEALTH_SLOTS, wait)
        self.retry_after = retry_after
        self.threads = threads
        self._sized: set[int] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/static/"):
            await self.app(scope, receive, send)
            return
        if self.threads is not None:
            self._size_thread_pool(self.threads)
        gate = self.health if scope.get("path") == HEALTH_PATH else self.gate
        if latency.ENABLED:
            await self._traced(gate, scope, receive, send)
            return
        if not await gate.enter():
            await self._refuse(scope, send)
            return
        await self._admitted(gate, scope, receive, send)

    async def _traced(self, gate: Gate, scope: Scope, receive: Receive, send: Send) -> None:
        """As :meth:`__call__`, timing the request (``W40K_LATENCY_TRACE``, a diagnostic)."""
        latency.begin(scope)
        status = [0]

        async def send_traced(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            if not await gate.enter():
                await self._refuse(scope, send_traced)
                return
            latency.mark(scope, "admitted")
            await self._admitted(gate, scope, receive, send_traced)
        finally:
            kind = scope.get(latency.KEY, {}).get("kind")
            latency.finish(scope, kind or "other", status[0])

    async def _admitted(self, gate: Gate, scope: Scope, receive: Receive, send: Send) -> None:
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                gate.leave()

        async def send_and_release(message: Message) -> None:
            if message["type"] == "http.response.start":
                release()
            await send(message)

        try:
            await self.app(scope, receive, send_and_release)
        finally:
            release()

    def _size_thread_pool(self, threads: int) -> None:
        """Sync endpoints and dependencies run on AnyIO's thread pool: size it with the rest
        (once per event loop; its default is 40 threads)."""
        loop = id(asyncio.get_running_loop())
        if loop not in self._sized:
            self._sized.add(loop)
            anyio.to_thread.current_default_thread_limiter().total_tokens = threads

    async def _refuse(self, scope: Scope, send: Send) -> None:
        accept = ""
        for name, value in scope.get("headers", []):
            if name == b"accept":
                accept = value.decode("latin-1")
        body = retry_stream(scope.get("method", ""), accept, self.retry_after)
        if body is not None:  # an EventSource: end at once and say when to come back
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await _send_problem(
            send,
            503,
            "overloaded",
            "Service unavailable",
            "The server is at capacity. Try again in a few seconds.",
            headers=[(b"retry-after", str(self.retry_after).encode())],
        )


class Bookkeeping:
    """Collects what a request defers (:func:`app.core.db.defer_write`) and writes it after the
    response, in a short transaction of its own (ADR 0009)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.keeper = Bookkeeper()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with deferred_writes() as pending:
            try:
                await self.app(scope, receive, send)
            finally:
                if pending:
                    database = scope["app"].state.db
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(self.keeper.submit, database, dict(pending))
