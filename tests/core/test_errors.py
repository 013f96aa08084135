"""Bad input gets a clear error with the right status, as problem+json: never a 500 page."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.core.errors import Conflict


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status
    assert body["type"].startswith("https://")
    assert body["title"]
    return body


def test_unknown_api_route_is_a_problem_404(client) -> None:
    _problem(client.get("/api/v1/nothing-here"), 404)


def test_unknown_page_for_a_browser_is_an_html_404(client) -> None:
    response = client.get("/nothing-here", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert 'id="error-title"' in response.text


def test_wrong_method_is_405(client) -> None:
    _problem(client.delete("/api/v1/rulesets"), 405)


def test_malformed_json_is_400_before_anything_else(client) -> None:
    response = client.post(
        "/api/v1/tokens",
        content=b'{"name": ',
        headers={"Content-Type": "application/json", "Authorization": "Bearer apx_x"},
    )
    assert _problem(response, 400)["type"].endswith("malformed-json")


def test_malformed_json_with_a_valid_token_is_400(client) -> None:
    from tests.support.web import api_token, register

    register(client)
    secret = api_token(client)
    client.cookies.clear()
    response = client.patch(
        "/api/v1/me",
        content=b'{"display_name": ',
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {secret}"},
    )
    body = _problem(response, 400)
    assert body["type"].endswith("malformed-json")


def test_wrong_types_are_422_naming_the_field(client) -> None:
    from tests.support.web import api_token, register

    register(client)
    secret = api_token(client)
    client.cookies.clear()
    response = client.patch(
        "/api/v1/me",
        json={"display_name": 42, "preferred_language": "de"},
        headers={"Authorization": f"Bearer {secret}"},
    )
    body = _problem(response, 422)
    assert {e["field"] for e in body["errors"]} == {"display_name", "preferred_language"}


def test_oversized_body_is_413(client) -> None:
    response = client.post(
        "/api/v1/tokens",
        content=b"x" * (2 * 1024 * 1024),
        headers={"Content-Type": "application/json"},
    )
    _problem(response, 413)


def test_oversized_streamed_body_without_length_is_413(client) -> None:
    def chunks():
        for _ in range(40):
            yield b"x" * 64 * 1024

    response = client.post(
        "/api/v1/tokens", content=chunks(), headers={"Content-Type": "application/json"}
    )
    _problem(response, 413)


def test_business_errors_carry_their_status(app, client) -> None:
    router = APIRouter()

    @router.get("/api/v1/_test/conflict")
    def _conflict() -> None:
        raise Conflict("The match moved on.", version=7)

    app.include_router(router)
    body = _problem(client.get("/api/v1/_test/conflict"), 409)
    assert body["detail"] == "The match moved on."
    assert body["version"] == 7


def test_unexpected_errors_are_a_500_problem_without_a_trace(app) -> None:
    from fastapi.testclient import TestClient

    router = APIRouter()

    @router.get("/api/v1/_test/boom")
    def _boom() -> None:
        raise RuntimeError("secret internals")

    app.include_router(router)
    client = TestClient(app, raise_server_exceptions=False)
    response = client.get("/api/v1/_test/boom")
    body = _problem(response, 500)
    assert "secret internals" not in response.text
    assert "Traceback" not in response.text
    assert body["title"] == "Internal server error"


def test_security_headers_are_set(client) -> None:
    response = client.get("/")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_every_answer_says_how_long_the_server_took(client) -> None:
    for response in (client.get("/healthz"), client.get("/nothing-here")):
        name, _, value = response.headers["server-timing"].partition(";dur=")
        assert name == "app"
        assert 0 < float(value) < 10_000


def test_html_error_pages_are_translated(client) -> None:
    response = client.get("/nothing-here", headers={"Accept": "text/html", "Accept-Language": "fr"})
    assert response.status_code == 404
    assert "Introuvable" in response.text


def test_a_client_that_hangs_up_mid_body_is_not_a_server_error(app, caplog) -> None:
    """htmx aborts a request that a newer edit replaces: the server logs no error for it."""
    import asyncio

    router = APIRouter()

    @router.post("/_test/form")
    async def _form(request: Request) -> dict[str, int]:
        return {"fields": len(await request.form())}

    app.include_router(router)
    sent: list[dict] = []
    body = iter([{"type": "http.request", "body": b"a=1&", "more_body": True}])

    async def receive() -> dict:
        return next(body, {"type": "http.disconnect"})

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/_test/form",
        "raw_path": b"/_test/form",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }

    async def call() -> None:
        async with app.router.lifespan_context(app):
            await app(scope, receive, send)

    asyncio.run(call())
    assert sent[0]["status"] == 499
    assert "unhandled error" not in caplog.text
