"""The whole JSON API, fuzzed with schemathesis: no request gets a 5xx.

Every operation of ``/api/v1/openapi.json`` gets generated requests (valid and invalid bodies,
query strings, path parameters), anonymously and with the bearer token of a user who has a
club, a league, an army and a match, so that half of the authenticated requests name objects
that exist. Each answer must not be a server error; the run reports every failing request at
once (method, path, status, body). The suite runs again on Postgres when
``W40K_TEST_DATABASE_URL`` is set.

Kept short for CI: ``FUZZ_EXAMPLES`` requests per operation and mode (default 8). ``make fuzz``
runs it with many more.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode

from tests.support.web import api_token, register

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
# A live event stream does not end by itself: it is fuzzed only with ids that do not exist.
STREAMS = {"/api/v1/matches/{match_id}/events"}
DESTRUCTIVE = ("DELETE",)  # run last, so that the objects exist for the others


@dataclass
class Fixtures:
    """The ids of what the fuzzing user owns, by path parameter name."""

    token: str
    ids: dict[str, Any] = field(default_factory=dict)


@pytest.fixture
def fixtures(app: FastAPI, db: Any, monkeypatch: pytest.MonkeyPatch) -> Fixtures:
    from app.catalog import service as catalogs
    from app.catalog.starter import load
    from tests.matches.conftest import FakeArmies, marines, orks

    load(db)
    db.commit()
    armies = FakeArmies(catalogs.starter(db).id)
    monkeypatch.setattr("app.matches.armies.fetch_ready_list", armies.snapshot)
    users = []
    for name in ("Fuzz", "Rival"):
        client = TestClient(app)
        register(client, email=f"{name.lower()}@example.com", name=name)
        token = api_token(client, name)
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {token}"
        client.user_id = client.get("/api/v1/me").json()["id"]  # type: ignore[attr-defined]
        users.append((client, token))
    (client, token), (rival, _) = users
    ids: dict[str, Any] = {"user_id": client.user_id}  # type: ignore[attr-defined]

    def made(path: str, body: dict[str, Any], key: str) -> dict[str, Any]:
        r = client.post(path, json=body)
        assert r.status_code == 201, (path, r.status_code, r.text)
        out: dict[str, Any] = r.json()
        ids[key] = out["id"]
        return out

    made("/api/v1/clubs", {"name": "Fuzz club"}, "club_id")
    league = {"club_id": ids["club_id"], "name": "Fuzz league", "rule_system": "wh40k-10e"}
    made("/api/v1/leagues", league | {"format": "round_robin"}, "league_id")
    army = made("/api/v1/armies", {"name": "Fuzz army", "faction": "Adeptus Astartes"}, "army_id")
    ids["catalog"] = army["catalog"]["slug"] if isinstance(army.get("catalog"), dict) else 1
    match = made("/api/v1/matches", {"army_id": armies.ready(client, marines())}, "match_id")
    code = match["invitation"]["code"]
    r = rival.post(
        "/api/v1/matches/join", json={"code": code, "army_id": armies.ready(rival, orks())}
    )
    assert r.status_code == 200, r.text
    return Fixtures(token, ids)


@dataclass
class Failure:
    method: str
    path: str
    status: int
    body: str

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}: {self.body[:300]}"


def _operations(app: FastAPI) -> list[Any]:
    schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    return sorted(operations, key=lambda op: (op.method.upper() in DESTRUCTIVE, op.path))


def _fuzz(app: FastAPI, headers: dict[str, str], ids: dict[str, Any]) -> tuple[list[Failure], int]:
    failures: list[Failure] = []
    calls = [0]
    for operation in _operations(app):
        _runner(operation, headers, ids, failures, calls)()
    return failures, calls[0]


def _runner(
    operation: Any,
    headers: dict[str, str],
    ids: dict[str, Any],
    failures: list[Failure],
    calls: list[int],
) -> Callable[[], None]:
    from schemathesis.checks import not_a_server_error

    pinnable = operation.full_path not in STREAMS

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
        | operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
        pin=st.booleans(),
    )
    def run(case: Any, pin: bool) -> None:
        if pin and pinnable:
            for name in list(case.path_parameters or {}):
                if name in ids:
                    case.path_parameters[name] = ids[name]
        calls[0] += 1
        try:
            response = case.call(headers=headers)
        except Exception as exc:  # the app raised: a 500, reported at the end
            failures.append(Failure(case.method, case.formatted_path, 500, repr(exc)))
            return
        try:
            case.validate_response(response, checks=[not_a_server_error])
        except Exception:  # each failure is collected and reported at the end
            failures.append(
                Failure(case.method, case.formatted_path, response.status_code, response.text)
            )

    return run  # type: ignore[no-any-return]


def _report(failures: list[Failure]) -> str:
    seen: dict[tuple[str, str, int], Failure] = {}
    for f in failures:
        seen.setdefault((f.method, f.path.split("?")[0], f.status), f)
    return "\n".join(str(f) for f in seen.values())


def test_anonymous_requests_get_no_server_error(app: FastAPI) -> None:
    failures, calls = _fuzz(app, {}, {})
    assert calls >= 80  # every operation was tried
    assert not failures, _report(failures)


def test_authenticated_requests_get_no_server_error(app: FastAPI, fixtures: Fixtures) -> None:
    failures, calls = _fuzz(app, {"Authorization": f"Bearer {fixtures.token}"}, fixtures.ids)
    assert calls >= 80
    assert not failures, _report(failures)
