"""Input no row, field or column can hold gets a clear 4xx, never a 500 (found by fuzzing the
API with schemathesis and by hand)."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator

import httpx
import pytest
from annotated_types import Ge, Gt, Le, Lt
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from app import features
from app.core.ids import MAX_ID, parse_int
from app.main import API_PREFIX
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


# numbers FastAPI reads as an int (signs, "_", a ".0") that no row's id can be
IMPOSSIBLE_PATH_IDS = [
    "-1",
    "-2147483649",
    "-99999999999999999999999",
    PG_BIG,
    BIG,
    "+99999999999999999999",
    "99_999_999_999",
    "99999999999999999999999.0",
]


def _dependants(dependant: Dependant) -> Iterator[Dependant]:
    yield dependant
    for sub in dependant.dependencies:
        yield from _dependants(sub)


def _is_int(annotation: object) -> bool:
    return annotation is int or any(_is_int(arg) for arg in typing.get_args(annotation))


def _routes() -> Iterator[tuple[str, APIRoute]]:
    for prefix, routers in ((API_PREFIX, features.api_routers()), ("", features.web_routers())):
        for router in routers:
            for route in router.routes:
                if isinstance(route, APIRoute):
                    yield prefix, route


def _int_path_params() -> list[tuple[str, str, str]]:
    """(method, path with ``{}`` for one int path parameter and 1 for the others, name)."""
    found = []
    for prefix, route in _routes():
        names = {
            param.name
            for dep in _dependants(route.dependant)
            for param in dep.path_params
            if _is_int(param.field_info.annotation)
        }
        for name in sorted(names):
            # "{match_id}" or "{match_id:int}" -> "{}"; the other int ids -> 1, any other
            # parameter (a form's name, a token) -> "x"
            path = re.sub(r"\{" + name + r"(?::\w+)?\}", "{}", prefix + route.path)
            path = re.sub(
                r"\{(\w+)(?::\w+)?\}", lambda m, ns=names: "1" if m[1] in ns else "x", path
            )
            found.append((sorted(route.methods)[0], path, name))
    return found


INT_PATH_PARAMS = _int_path_params()
CONVERTED = {
    (sorted(route.methods)[0], re.sub(r"\{\w+:int\}", "{}", prefix + route.path).split("{}")[0])
    for prefix, route in _routes()
    if re.search(r"\{\w+:int\}", route.path)
}
"""(method, path up to the id) of the routes whose id Starlette's ``int`` converter matches:
"-1" or "1.0" matches no such route, and the answer is another route's 405 (never a 500)."""


def test_the_routes_with_int_path_ids_are_found() -> None:
    paths = {path for _, path, _ in INT_PATH_PARAMS}
    assert "/api/v1/matches/{}" in paths
    assert "/clubs/{}" in paths
    assert "/armies/1/units/{}" in paths
    assert len(INT_PATH_PARAMS) > 60


def test_every_int_path_id_no_row_can_have_is_not_found_without_a_login(
    client: TestClient,
) -> None:
    """On Postgres these were "integer out of range" (500), on SQLite an OverflowError."""
    token = csrf(client)  # an anonymous form's token, so that the id is what is judged
    headers = {"X-CSRF-Token": token}
    wrong = []
    for method, path, _name in INT_PATH_PARAMS:
        form = {"data": {"csrf_token": token}} if method == "POST" else {}
        for number in IMPOSSIBLE_PATH_IDS:
            response = client.request(method, path.format(number), headers=headers, **form)
            converted = (method, path.split("{}")[0]) in CONVERTED and not number.isdigit()
            if response.status_code not in ({404, 405} if converted else {404}):
                wrong.append((method, path.format(number), response.status_code))
    assert wrong == []


@pytest.mark.parametrize(
    "path", ["/api/v1/matches/-2147483649", "/api/v1/clubs/-2147483649", "/clubs/-2147483649"]
)
def test_negative_ids_are_not_found_when_logged_in(api: TestClient, path: str) -> None:
    _problem(api.get(path), 404)


def test_ids_at_the_edges_of_the_range_still_reach_the_route(api: TestClient) -> None:
    for number in ("0", "1", str(MAX_ID), "-0"):
        response = api.get(f"/api/v1/matches/{number}")
        _problem(response, 404, "match-not-found")  # the route's own answer
    assert api.get("/api/v1/matches/abc").status_code == 422


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


def _limits(metadata: list[object]) -> tuple[int | None, int | None]:
    lo = hi = None
    for item in metadata:
        if isinstance(item, Ge):
            lo = int(item.ge)  # type: ignore[call-overload]
        elif isinstance(item, Gt):
            lo = int(item.gt) + 1  # type: ignore[call-overload]
        elif isinstance(item, Le):
            hi = int(item.le)  # type: ignore[call-overload]
        elif isinstance(item, Lt):
            hi = int(item.lt) - 1  # type: ignore[call-overload]
    return lo, hi


def _int_bounds(annotation: object, metadata: list[object]) -> tuple[int | None, int | None]:
    """The bounds on the ``int`` branch of ``annotation`` (``Annotated`` and unions unwrapped)."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        for item in extra:
            metadata = [*metadata, *(item.metadata if isinstance(item, FieldInfo) else [item])]
        return _int_bounds(base, metadata)
    if annotation is int:
        return _limits(metadata)
    branch = next(arg for arg in typing.get_args(annotation) if _is_int(arg))
    return _int_bounds(branch, metadata)


def _names_an_id(name: str, info: FieldInfo) -> bool:
    words = re.findall(r"\w+", (info.description or "").lower())
    return name == "id" or name.endswith("_id") or "id" in words


def _models(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models(arg)


def _id_inputs() -> Iterator[tuple[str, str, FieldInfo]]:
    """(where, name, field) of every int query, form or JSON field that holds an id."""
    seen: set[type[BaseModel]] = set()

    def fields(model: type[BaseModel], where: str) -> Iterator[tuple[str, str, FieldInfo]]:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            yield f"{where} {model.__name__}", name, info
            for sub in _models(info.annotation):
                yield from fields(sub, where)

    for prefix, route in _routes():
        where = f"{sorted(route.methods)[0]} {prefix}{route.path}"
        for dep in _dependants(route.dependant):
            for param in [*dep.query_params, *dep.body_params]:
                yield where, param.name, param.field_info
                for model in _models(param.field_info.annotation):
                    yield from fields(model, where)


def test_every_id_in_a_query_or_a_body_is_bounded_on_both_sides() -> None:
    """An unbounded id reaches the database: "integer out of range" on Postgres."""
    checked, unbounded = 0, []
    for where, name, info in _id_inputs():
        if _is_int(info.annotation) and _names_an_id(name, info):
            checked += 1
            lo, hi = _int_bounds(info.annotation, list(info.metadata))
            if lo is None or hi is None or lo < 0 or hi > MAX_ID:
                unbounded.append((where, name, lo, hi))
    assert checked > 10
    assert unbounded == [], unbounded


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/leagues/1/games", {"player_b": int(BIG)}),
        ("/api/v1/leagues/1/games", {"player_a": -int(BIG), "player_b": 1}),
        ("/api/v1/armies", {"name": "x", "faction": "Orks", "catalog": -int(BIG)}),
    ],
)
def test_registration_and_catalogue_ids_in_bodies_are_bounded(
    api: TestClient,
    path: str,
    body: dict,  # type: ignore[type-arg]
) -> None:
    _problem(api.post(path, json=body), 422)


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/matches", {"army_id": BIG, "battle_size": "strike_force", "opponent": "user"}),
        ("/matches/join", {"code": "ABCDEF", "army_id": BIG}),
    ],
)
def test_army_ids_in_forms_are_bounded(client: TestClient, path: str, form: dict) -> None:  # type: ignore[type-arg]
    register(client)
    token = csrf(client, "/matches")
    response = client.post(path, data={"csrf_token": token, **form})
    assert response.status_code == 422, response.text


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


@pytest.mark.parametrize(
    "headers",
    [
        [("content-type", "application/x+json")],
        [("content-type", "application/json"), ("content-type", "text/plain")],
        [("content-type", "application/merge-patch+json; charset=utf-8")],
        [],
    ],
)
def test_nul_in_json_text_is_refused_whatever_the_json_content_type(
    api: TestClient, headers: list[tuple[str, str]]
) -> None:
    # FastAPI reads the first Content-Type, and any application/*+json (or none) as JSON: the
    # check read the last one and only application/json, so such a NUL was stored
    request = api.build_request("POST", "/api/v1/tokens", content=b'{"name": "a\\u0000b"}')
    request.headers = httpx.Headers([*request.headers.multi_items(), *headers])
    _problem(api.send(request), 422, "nul-character")
    assert all("\x00" not in t["name"] for t in api.get("/api/v1/tokens").json())


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
