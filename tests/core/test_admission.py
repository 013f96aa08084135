"""Admission control: past its capacity a worker refuses the excess at once (503 with
Retry-After, or an SSE ``retry:``), answers /healthz all the same, and recovers by itself."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from app.core.middleware import AdmissionControl


class SlowApp:
    """An ASGI app whose requests to /slow wait until released; /stream starts its response
    and then waits (an open event stream)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.started += 1
        path = scope["path"]
        if path == "/stream":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await self.release.wait()
            await send({"type": "http.response.body", "body": b"done"})
            return
        if path == "/slow":
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def call(
    app: Any, path: str, accept: str = "*/*", method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": b"",
        "headers": [(b"accept", accept.encode())],
    }
    messages: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        messages.append(message)

    await app(scope, receive, send)
    start = messages[0]
    headers = {k.decode(): v.decode() for k, v in start.get("headers", [])}
    body = b"".join(m.get("body", b"") for m in messages[1:])
    return start["status"], headers, body


def admission(inner: Any, *, limit: int = 1, queue: int = 0, wait: float = 0.0) -> Any:
    return AdmissionControl(inner, limit=limit, queue=queue, wait=wait, retry_after=2)


async def started(inner: SlowApp, count: int) -> None:
    for _ in range(200):
        if inner.started >= count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the request never reached the app")


def test_past_the_limit_a_request_is_refused_at_once_with_503_and_retry_after() -> None:
    async def scenario() -> None:
        inner = SlowApp()
        app = admission(inner, limit=1, queue=0)
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 1)
        t0 = time.perf_counter()
        status, headers, body = await call(app, "/api/v1/matches/1")
        assert time.perf_counter() - t0 < 0.5
        assert status == 503
        assert headers["retry-after"] == "2"
        assert headers["content-type"] == "application/problem+json"
        problem = json.loads(body)
        assert problem["status"] == 503
        assert problem["type"].endswith("/overloaded")
        assert inner.started == 1  # the refused request never reached the app
        inner.release.set()
        assert (await busy)[0] == 200
        # recovered: the next request goes through
        assert (await call(app, "/api/v1/matches/1"))[0] == 200
        assert app.gate.active == 0

    asyncio.run(scenario())


def test_a_queued_request_gets_the_freed_slot_and_a_late_one_times_out() -> None:
    async def scenario() -> None:
        inner = SlowApp()
        app = admission(inner, limit=1, queue=1, wait=0.3)
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 1)
        queued = asyncio.create_task(call(app, "/fast"))
        await asyncio.sleep(0.05)
        assert app.gate.waiting == 1
        # the queue is full: refused at once
        assert (await call(app, "/fast"))[0] == 503
        inner.release.set()
        assert (await busy)[0] == 200
        assert (await queued)[0] == 200
        # a request that waits longer than ``wait`` is refused
        inner.release.clear()
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 3)
        t0 = time.perf_counter()
        assert (await call(app, "/fast"))[0] == 503
        assert 0.25 < time.perf_counter() - t0 < 1.0
        inner.release.set()
        await busy
        assert app.gate.active == 0
        assert app.gate.waiting == 0

    asyncio.run(scenario())


def test_an_open_stream_holds_no_slot_and_a_refused_eventsource_is_told_to_retry() -> None:
    async def scenario() -> None:
        inner = SlowApp()
        app = admission(inner, limit=1, queue=0)
        stream = asyncio.create_task(call(app, "/stream"))
        await started(inner, 1)
        # the stream's response has started: its slot is free again
        assert app.gate.active == 0
        assert (await call(app, "/fast"))[0] == 200
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 3)
        status, headers, body = await call(app, "/events", accept="text/event-stream")
        assert status == 200
        assert headers["content-type"].startswith("text/event-stream")
        assert body.startswith(b"retry: 2000\n")
        # a command sent with that header is refused as a command: a 200 would read as done
        status, headers, _ = await call(app, "/cmd", accept="text/event-stream", method="POST")
        assert status == 503
        assert headers["retry-after"] == "2"
        inner.release.set()
        await busy
        await stream

    asyncio.run(scenario())


def test_healthz_answers_while_every_slot_is_taken() -> None:
    async def scenario() -> None:
        inner = SlowApp()
        app = admission(inner, limit=1, queue=0)
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 1)
        assert (await call(app, "/api/v1/me"))[0] == 503
        assert (await call(app, "/healthz"))[0] == 200
        assert (await call(app, "/static/css/app.css"))[0] == 200
        inner.release.set()
        await busy

    asyncio.run(scenario())


def test_a_cancelled_waiter_gives_its_slot_back() -> None:
    async def scenario() -> None:
        inner = SlowApp()
        app = admission(inner, limit=1, queue=2, wait=5)
        busy = asyncio.create_task(call(app, "/slow"))
        await started(inner, 1)
        gone = asyncio.create_task(call(app, "/fast"))  # the client hangs up while queued
        await asyncio.sleep(0.05)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert app.gate.waiting == 0
        inner.release.set()
        await busy
        assert app.gate.active == 0
        assert (await call(app, "/fast"))[0] == 200

    asyncio.run(scenario())


def _admission_of(app: FastAPI) -> AdmissionControl:
    layer: Any = app.middleware_stack
    while not isinstance(layer, AdmissionControl):
        layer = layer.app
    return layer


def test_the_app_refuses_fast_when_full_and_recovers(client: TestClient, app: FastAPI) -> None:
    assert client.get("/healthz").status_code == 200
    gate = _admission_of(app).gate
    assert gate.limit == app.state.settings.max_in_flight
    gate.active = gate.limit  # every slot taken, as under a flood
    try:
        t0 = time.perf_counter()
        response = client.get("/api/v1/matches/missions")
        assert time.perf_counter() - t0 < gate.wait + 1.0
        assert response.status_code == 503
        assert response.headers["retry-after"] == str(app.state.settings.retry_after_seconds)
        assert response.headers["content-type"] == "application/problem+json"
        assert client.get("/healthz").status_code == 200
    finally:
        gate.active = 0
    assert client.get("/api/v1/matches/missions").status_code == 200
