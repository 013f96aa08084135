"""Input no row, field or column can hold gets a clear 4xx, never a 500 (found by fuzzing the
API with schemathesis and by hand)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.core.ids import MAX_ID, parse_int
from tests.support.web import api_token, csrf, register

BIG = "99999999999999999999"  # beyond SQLite's INTEGER
PG_BIG = str(MAX_ID + 1)  # beyond Postgres' INTEGER


@pytest.fixture
def api(client: TestClient) -> TestClient:
    register(client)
    secret = api_token(client)
    client.cookies.clear()
    client.headers["Authorization"] = f"Bearer {secret}"
    return client


def _problem(response, status: int, code: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    if code is not None:
        assert body["type"].endswith("/" + code), body
    return body


@pytest.mark.parametrize("number", [BIG, PG_BIG])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/matches/{n}"),
        ("DELETE", "/api/v1/matches/{n}"),
        ("GET", "/api/v1/clubs/{n}"),
        ("GET", "/api/v1/leagues/{n}"),
        ("DELETE", "/api/v1/tokens/{n}"),
        ("GET", "/api/v1/leagues/1/games/{n}"),
        ("GET", "/api/v1/catalogs/{n}"),
        ("GET", "/api/v1/armies/{n}"),
    ],
)
def test_an_id_no_row_can_have_is_not_found(api: TestClient, method: str, path: str, number: str):
    response = api.request(method, path.format(n=number))
    assert response.status_code in (404, 422), response.text


def test_a_page_with_an_impossible_id_is_a_404_page(client: TestClient) -> None:
    register(client)
    response = client.get(f"/clubs/{BIG}", headers={"Accept": "text/html"})
    assert response.status_code == 404


@pytest.mark.parametrize("ref", ["%C2%B2", "%E2%91%A0", "a%00b"])
def test_catalogue_paths_that_are_not_ids_or_slugs_are_refused_without_login(
    client: TestClient, ref: str
) -> None:
    for suffix in ("", "/factions", "/datasheets"):
        response = client.get(f"/api/v1/catalogs/{ref}{suffix}")
        assert response.status_code in (404, 422), response.text


@pytest.mark.parametrize("catalog", ["²", int(BIG), MAX_ID + 1])
def test_a_catalogue_reference_in_a_body_that_names_nothing_is_a_clear_error(
    api: TestClient, catalog: object
) -> None:
    response = api.post(
        "/api/v1/rulesets/wh40k-10e/armies/validate",
        json={"faction": "Orks", "catalog": catalog, "units": []},
    )
    assert 400 <= response.status_code < 500, response.text
    response = api.post("/api/v1/armies", json={"name": "x", "faction": "Orks", "catalog": catalog})
    assert 400 <= response.status_code < 500, response.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/matches", {"army_id": int(BIG)}),
        ("/api/v1/matches", {"army_id": 1, "league_game_id": MAX_ID + 1}),
        ("/api/v1/leagues", {"club_id": MAX_ID + 1, "name": "x", "rule_system": "wh40k-10e"}),
    ],
)
def test_ids_in_bodies_are_bounded(api: TestClient, path: str, body: dict) -> None:  # type: ignore[type-arg]
    _problem(api.post(path, json=body), 422)


def test_ids_in_queries_are_bounded(api: TestClient) -> None:
    _problem(api.get("/api/v1/leagues", params={"club_id": BIG}), 422)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/clubs", {"name": "a\u0000b"}),
        ("POST", "/api/v1/armies", {"name": "a\u0000b", "faction": "Orks"}),
        ("PATCH", "/api/v1/me", {"display_name": "a\u0000b"}),
        ("POST", "/api/v1/tokens", {"name": "a\u0000b"}),
    ],
)
def test_nul_in_json_text_is_refused(api: TestClient, method: str, path: str, body: dict) -> None:  # type: ignore[type-arg]
    _problem(api.request(method, path, json=body), 422, "nul-character")


def test_a_backslash_before_u0000_is_ordinary_text(api: TestClient) -> None:
    response = api.post("/api/v1/clubs", json={"name": "odd \\u0000 name"})
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "odd \\u0000 name"


def test_nul_in_a_path_a_query_or_a_form_is_refused(client: TestClient) -> None:
    _problem(client.get("/api/v1/catalogs/a%00b"), 422, "nul-character")
    _problem(client.get("/api/v1/leagues", params={"q": "a\u0000"}), 422, "nul-character")
    register(client)
    token = csrf(client, "/clubs")
    response = client.post("/clubs", data={"csrf_token": token, "name": "a\u0000b"})
    _problem(response, 422, "nul-character")


def test_every_time_in_the_api_carries_its_zone(api: TestClient) -> None:
    """SQLite keeps no time zone; the API still says which one (OpenAPI ``date-time``)."""
    assert api.post("/api/v1/clubs", json={"name": "Club"}).status_code == 201
    me = api.get("/api/v1/me").json()
    clubs = api.get("/api/v1/clubs").json()
    tokens = api.get("/api/v1/tokens").json()
    stamps = [me["created_at"], clubs[0]["created_at"], tokens[0]["created_at"]]
    for stamp in stamps:
        assert re.search(r"(Z|[+-]\d\d:\d\d)$", stamp), stamp


@pytest.mark.parametrize(
    ("text", "lo", "hi", "expected"),
    [
        ("12", 0, 100, 12),
        (" 7 ", 0, 100, 7),
        ("-3", -5, 5, -3),
        ("²", 0, 100, None),
        ("①", 0, 100, None),
        ("١٢", 0, 100, None),  # Arabic-Indic digits: int() reads them, we do not
        ("1_0", 0, 100, None),
        ("101", 0, 100, None),
        (BIG, 0, MAX_ID, None),
        ("", 0, 100, None),
        (None, 0, 100, None),
        (12, 0, 100, None),
    ],
)
def test_parse_int_reads_ascii_digits_in_range(
    text: object, lo: int, hi: int, expected: int | None
) -> None:
    assert parse_int(text, lo, hi) == expected
