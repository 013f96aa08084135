"""The hot lane of tournament night (issue 21, ``app.matches.api.HotRoute``): a command and a
refresh with a bearer token the process has already checked are answered without FastAPI's
dependency solving, and answered exactly as FastAPI answers them; anything the lane does not
recognise goes to FastAPI with its body replayed, and gets FastAPI's own answer.

Two apps over the same database (the test's transaction): ``hot`` as ``create_app`` builds it
(with the lane, as every other test's app), ``plain`` the same with the lane taken out.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token, token_grants
from app.main import API_PREFIX
from app.matches import api, events, service
from app.matches.models import Match, MatchStatus, OpponentKind
from tests.conftest import _TestDatabase
from tests.matches.conftest import _snapshot, marines, orks
from tests.matches.streams import next_move

# the answer's headers that differ between two answers of the same content
VARYING = {"server-timing", "set-cookie", "date"}
# what differs between the twin matches' answers of the same content (a match's own fields)
TWIN_FIELDS = {"id", "created_at", "updated_at"}


@pytest.fixture
def apps(app_settings: Any, engine: Engine, connection: Connection) -> dict[str, FastAPI]:
    from app.main import create_app

    plain = create_app(app_settings, database=_TestDatabase(engine, connection))  # type: ignore[arg-type]
    hot = create_app(app_settings, database=_TestDatabase(engine, connection))  # type: ignore[arg-type]
    plain.router.routes[:] = [r for r in plain.router.routes if not isinstance(r, api.HotRoute)]
    token_grants.clear()
    return {"plain": plain, "hot": hot}


def _lane(app: FastAPI) -> dict[str, api.HotRoute]:
    return {r.kind: r for r in app.router.routes if isinstance(r, api.HotRoute)}


def test_create_app_installs_the_lane_first(app: FastAPI) -> None:
    """Every app ``create_app`` builds (the server's, every test's) has the lane as its first
    two routes, for the API's prefix."""
    first = app.router.routes[:2]
    assert all(isinstance(r, api.HotRoute) for r in first)
    assert {r.path_format for r in first} == {  # type: ignore[attr-defined]
        f"{API_PREFIX}/matches/{{match_id}}",
        f"{API_PREFIX}/matches/{{match_id}}/commands",
    }
    assert len(_lane(app)) == 2


def _match(db: Session, users: list[User], secret: str) -> int:
    match = Match(
        mission_id="only-war",
        battle_size="strike_force",
        status=MatchStatus.OPEN,
        opponent_kind=OpponentKind.USER,
        created_by_id=users[0].id,
        player_a_id=users[0].id,
        secret=secret,
        army_a=_snapshot(marines()),
        version=0,
    )
    db.add(match)
    db.flush()
    service.join(db, match, _snapshot(orks()), user=users[1])
    return match.id


@pytest.fixture
def table(db: Session) -> dict[str, Any]:
    """Two users with API tokens, and two started matches between them with the same secret
    (the same dice): the twin played through each app."""
    users = [
        User(
            email=f"hot-{seat}-{secrets.token_hex(3)}@example.com",
            display_name=f"P{seat}",
            password_hash="x",
        )
        for seat in "AB"
    ]
    db.add_all(users)
    db.flush()
    tokens = {
        seat: create_token(db, u, TokenCreate(name="hot")).secret
        for seat, u in zip("AB", users, strict=True)
    }
    secret = secrets.token_hex(32)
    ids = {"plain": _match(db, users, secret), "hot": _match(db, users, secret)}
    db.commit()
    return {"tokens": tokens, "ids": ids, "users": users}


def _clients(app: FastAPI, tokens: dict[str, str]) -> dict[str, TestClient]:
    out = {}
    for seat, token in tokens.items():
        client = TestClient(app, base_url="http://testserver")
        client.headers["Authorization"] = f"Bearer {token}"
        out[seat] = client
    return out


def _without(data: Any, key: str) -> Any:
    if isinstance(data, dict):
        return {k: _without(v, key) for k, v in data.items() if k != key}
    if isinstance(data, list):
        return [_without(v, key) for v in data]
    return data


def _headers(response: Any) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k not in VARYING}


def test_a_game_through_the_lane_answers_what_fastapi_answers(
    apps: dict[str, FastAPI], table: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin matches, the same commands: one through FastAPI, one through the lane. Every
    command's answer and every refresh (200 with its ETag, then 304) is the same, but for the
    match id and the events' time stamps."""
    # the counts below need every token to stay cached for the whole game: on a loaded
    # machine it lasted longer than the grants' 10 s, and a request went to FastAPI
    from app.accounts import service as accounts

    monkeypatch.setattr(accounts.token_grants, "ttl", 3600.0)
    clients = {name: _clients(app, table["tokens"]) for name, app in apps.items()}
    ids = table["ids"]
    for name in apps:  # a first request checks each token in the database (and caches it)
        for seat in "AB":
            assert clients[name][seat].get(f"/api/v1/matches/{ids[name]}").status_code == 200
    version = 2
    views = {
        name: clients[name]["A"].get(f"/api/v1/matches/{ids[name]}").json()["view"] for name in apps
    }
    assert views["plain"] == views["hot"]
    etags: dict[str, dict[str, str]] = {"plain": {}, "hot": {}}
    for _ in range(40):
        move = next_move(views["plain"])
        assert move is not None
        seat, command, dice = move
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if dice is not None:
            body["dice"] = dice
        answers = {
            name: clients[name][seat].post(f"/api/v1/matches/{ids[name]}/commands", json=body)
            for name in apps
        }
        assert answers["plain"].status_code == answers["hot"].status_code == 200
        assert _headers(answers["plain"]) == _headers(answers["hot"])
        results = {name: a.json() for name, a in answers.items()}
        assert _without(results["plain"], "at") == _without(results["hot"], "at")
        version = results["hot"]["version"]
        views = {name: r["view"] for name, r in results.items()}
        other = "B" if seat == "A" else "A"
        for name in apps:
            url = f"/api/v1/matches/{ids[name]}"
            sent = {"If-None-Match": etags[name][other]} if other in etags[name] else {}
            refresh = clients[name][other].get(url, headers=sent)
            assert refresh.status_code == 200  # a new version: the old ETag is stale
            etags[name][other] = refresh.headers["etag"]
            again = clients[name][other].get(
                url, headers={"If-None-Match": refresh.headers["etag"]}
            )
            assert again.status_code == 304
            assert again.content == b""
            assert again.headers["etag"] == refresh.headers["etag"]
            data = refresh.json()
            assert data["version"] == version
            assert data["seat"] == other
            views[f"{name}-{other}"] = data["view"]
        assert views["plain-" + other] == views["hot-" + other]
    lane = _lane(apps["hot"])
    assert lane["command"].served == 40
    # every refresh and its 304, and the three first reads: the token cache is the process's,
    # so the plain app's first requests (run first) checked the tokens for both apps
    assert lane["get"].served == 80 + 3
    assert not _lane(apps["plain"])


def _same(apps: dict[str, FastAPI], table: dict[str, Any], send: Callable[..., Any]) -> Any:
    """The request ``send(client, match_id)`` through both apps: the same answer."""
    answers = {}
    for name, app in apps.items():
        client = _clients(app, table["tokens"])["A"]
        answers[name] = send(client, table["ids"]["plain"])
    plain, hot = answers["plain"], answers["hot"]
    assert (plain.status_code, _headers(plain), plain.content) == (
        hot.status_code,
        _headers(hot),
        hot.content,
    )
    return hot


@pytest.mark.parametrize(
    ("label", "send", "status"),
    [
        (
            "stale version",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                json={"expected_version": 0, "command": {"type": "end_phase"}},
            ),
            409,
        ),
        ("no such match", lambda c, m: c.get(f"/api/v1/matches/{m + 1000}"), 404),
        (
            "no such match, command",
            lambda c, m: c.post(
                f"/api/v1/matches/{m + 1000}/commands",
                json={"expected_version": 2, "command": {"type": "end_phase"}},
            ),
            404,
        ),
        ("an id beyond any row", lambda c, m: c.get("/api/v1/matches/99999999999"), 404),
        (
            "a malformed body",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                content=b'{"expected_version": 2,',
                headers={"Content-Type": "application/json"},
            ),
            400,
        ),
        (
            "a body nested too deep to parse",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                content=b'{"expected_version": 2, "command": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                headers={"Content-Type": "application/json"},
            ),
            400,
        ),
        (
            "a field too many",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                json={"expected_version": 2, "command": {"type": "x"}, "extra": 1},
            ),
            422,
        ),
        (
            "a field missing",
            lambda c, m: c.post(f"/api/v1/matches/{m}/commands", json={"command": {"type": "x"}}),
            422,
        ),
        ("not an object", lambda c, m: c.post(f"/api/v1/matches/{m}/commands", json=[1]), 422),
        ("no body", lambda c, m: c.post(f"/api/v1/matches/{m}/commands"), 422),
        (
            "a version as text",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                json={"expected_version": "2", "command": {"type": "nonsense"}},
            ),
            422,
        ),
        (
            "another content type",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                content=b'{"expected_version": 2, "command": {"type": "nonsense"}}',
                headers={"Content-Type": "text/plain"},
            ),
            422,
        ),
        (
            "an unknown command",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands",
                json={"expected_version": 2, "command": {"type": "nonsense"}},
            ),
            422,
        ),
        (
            "a query",
            lambda c, m: c.post(
                f"/api/v1/matches/{m}/commands?actions=maybe",
                json={"expected_version": 2, "command": {"type": "x"}},
            ),
            422,
        ),
        (
            "an If-None-Match too long",
            lambda c, m: c.get(f"/api/v1/matches/{m}", headers={"If-None-Match": "x" * 1001}),
            422,
        ),
        (
            "a bad guest token",
            lambda c, m: c.get(f"/api/v1/matches/{m}", headers={"X-Guest-Token": "nope"}),
            200,
        ),
        (
            "an unknown bearer token",
            lambda c, m: c.get(
                f"/api/v1/matches/{m}", headers={"Authorization": "Bearer apx_nothing"}
            ),
            401,
        ),
        (
            "another scheme",
            lambda c, m: c.get(f"/api/v1/matches/{m}", headers={"Authorization": "Basic eDp5"}),
            404,
        ),
        ("a HEAD", lambda c, m: c.head(f"/api/v1/matches/{m}"), 405),
        (
            "a trailing slash",
            lambda c, m: c.get(f"/api/v1/matches/{m}/", follow_redirects=False),
            307,
        ),
    ],
)
def test_what_the_lane_does_not_serve_is_answered_as_fastapi_answers_it(
    apps: dict[str, FastAPI],
    table: dict[str, Any],
    label: str,
    send: Callable[..., Any],
    status: int,
) -> None:
    for app in apps.values():  # the tokens checked and cached: the lane may serve them
        _clients(app, table["tokens"])["A"].get(f"/api/v1/matches/{table['ids']['plain']}")
    answer = _same(apps, table, send)
    assert answer.status_code == status, (label, answer.text)


def test_a_token_not_yet_checked_is_checked_by_the_lane_then_cached(
    apps: dict[str, FastAPI], table: dict[str, Any]
) -> None:
    client = _clients(apps["hot"], table["tokens"])["B"]
    url = f"/api/v1/matches/{table['ids']['hot']}"
    lane = _lane(apps["hot"])
    assert client.get(url).status_code == 200
    # checked in the database by the lane, in its own trip, as FastAPI's dependency would
    assert (lane["get"].served, lane["get"].checked) == (1, 1)
    assert client.get(url).status_code == 200
    assert (lane["get"].served, lane["get"].checked) == (2, 1)  # then from the cache


def test_a_game_with_tokens_never_cached_answers_what_fastapi_answers(
    apps: dict[str, FastAPI], table: dict[str, Any], db: Session
) -> None:
    """Every request with its token's grant forgotten (as one arriving after the grant's 10 s):
    the lane checks the token itself, and answers what FastAPI answers, command, refresh and
    304 alike."""
    clients = {name: _clients(app, table["tokens"]) for name, app in apps.items()}
    ids = table["ids"]

    def both(seat: str, send: Callable[[TestClient, int], Any]) -> dict[str, Any]:
        out = {}
        for name in apps:
            token_grants.clear()
            out[name] = send(clients[name][seat], ids[name])
        plain, hot = out["plain"], out["hot"]
        assert plain.status_code == hot.status_code
        # an ETag names its match: the twins' differ by their ids only
        assert ("etag" in plain.headers) == ("etag" in hot.headers)
        assert {k: v for k, v in _headers(plain).items() if k != "etag"} == {
            k: v for k, v in _headers(hot).items() if k != "etag"
        }
        if plain.content:
            # the twins differ by their ids and time stamps only
            shown = [
                {k: v for k, v in _without(a.json(), "at").items() if k not in TWIN_FIELDS}
                for a in (plain, hot)
            ]
            assert shown[0] == shown[1]
        return out

    first = both("A", lambda c, m: c.get(f"/api/v1/matches/{m}"))
    assert first["hot"].status_code == 200
    view, version = first["hot"].json()["view"], 2
    tag: str | None = None
    for _ in range(6):
        move = next_move(view)
        assert move is not None
        seat, command, dice = move
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if dice is not None:
            body["dice"] = dice
        answers = both(
            seat, lambda c, m, body=body: c.post(f"/api/v1/matches/{m}/commands", json=body)
        )
        assert answers["hot"].status_code == 200, answers["hot"].text
        result = answers["hot"].json()
        view, version = result["view"], result["version"]
        other = "B" if seat == "A" else "A"
        refresh = both(other, lambda c, m: c.get(f"/api/v1/matches/{m}"))
        assert refresh["hot"].status_code == 200
        tag = refresh["hot"].headers["etag"]
        tags = {ids[name]: answer.headers["etag"] for name, answer in refresh.items()}
        same = both(
            other,
            lambda c, m, tags=tags: c.get(
                f"/api/v1/matches/{m}", headers={"If-None-Match": tags[m]}
            ),
        )
        assert same["hot"].status_code == 304
    assert tag is not None
    lane = _lane(apps["hot"])
    assert lane["command"].served == lane["command"].checked == 6
    assert lane["get"].served == lane["get"].checked == 1 + 6 + 6


def test_a_token_checked_by_the_lane_has_its_use_written_after_the_response(
    apps: dict[str, FastAPI], table: dict[str, Any], db: Session
) -> None:
    from app.accounts.models import ApiToken
    from app.core import security

    token = db.query(ApiToken).filter_by(token_digest=security.digest(table["tokens"]["B"])).one()
    assert token.last_used_at is None
    token_grants.clear()
    client = _clients(apps["hot"], table["tokens"])["B"]
    assert client.get(f"/api/v1/matches/{table['ids']['hot']}").status_code == 200
    assert _lane(apps["hot"])["get"].checked == 1
    db.refresh(token)
    assert token.last_used_at is not None


def test_a_refused_token_not_cached_is_looked_up_once_and_refused_as_fastapi_does(
    apps: dict[str, FastAPI], table: dict[str, Any], db: Session, monkeypatch: Any
) -> None:
    """A token the lane's own check refuses (revoked in the database, never cached here) is
    answered by the lane with FastAPI's 401, byte for byte, for a refresh and a command alike,
    after ONE lookup (it was handed to FastAPI, which looked it up again: review REV1 F4)."""
    from app.accounts import service as accounts
    from app.accounts.models import ApiToken
    from app.accounts.service import revoke_token
    from app.core import security
    from app.matches import api as matches_api

    token = db.query(ApiToken).filter_by(token_digest=security.digest(table["tokens"]["A"])).one()
    revoke_token(db, table["users"][0], token.id)
    db.commit()
    token_grants.clear()
    lookups: list[str] = []
    checked = accounts.user_for_api_token

    def counted(session: Session, secret: str) -> Any:
        lookups.append(secret)
        return checked(session, secret)

    monkeypatch.setattr(accounts, "user_for_api_token", counted)
    monkeypatch.setattr(matches_api, "user_for_api_token", counted)
    lane = _lane(apps["hot"])
    body = {"expected_version": 2, "command": {"type": "end_phase"}}
    answers = {}
    for name, app in apps.items():
        client = _clients(app, table["tokens"])["A"]
        match_id = table["ids"][name]
        answers[name] = []
        for send in (
            lambda: client.get(f"/api/v1/matches/{match_id}"),  # noqa: B023 - called at once
            lambda: client.post(f"/api/v1/matches/{match_id}/commands", json=body),  # noqa: B023
        ):
            lookups.clear()
            answers[name].append(send())
            assert len(lookups) == 1, (name, lookups)  # one lookup per request, either path
    for plain, hot in zip(answers["plain"], answers["hot"], strict=True):
        assert plain.status_code == hot.status_code == 401
        assert (_headers(plain), plain.content) == (_headers(hot), hot.content)
    assert lane["get"].served == lane["command"].served == 0
    assert lane["get"].refused == lane["command"].refused == 1


def test_a_revoked_token_is_refused_by_the_lane_at_once(
    apps: dict[str, FastAPI], table: dict[str, Any], db: Session
) -> None:
    from app.accounts.models import ApiToken
    from app.accounts.service import revoke_token
    from app.core import security

    client = _clients(apps["hot"], table["tokens"])["A"]
    url = f"/api/v1/matches/{table['ids']['hot']}"
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 200
    assert _lane(apps["hot"])["get"].served == 2  # checked by the lane, then cached
    token = db.query(ApiToken).filter_by(token_digest=security.digest(table["tokens"]["A"])).one()
    revoke_token(db, table["users"][0], token.id)
    db.commit()
    refused = client.get(url)
    assert refused.status_code == 401
    assert _lane(apps["hot"])["get"].served == 2


def test_a_write_through_the_lane_wakes_the_streams(
    apps: dict[str, FastAPI], table: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = events.hub_for(apps["hot"])
    woken: list[tuple[int, int]] = []
    monkeypatch.setattr(hub, "publish", lambda match_id, version: woken.append((match_id, version)))
    clients = _clients(apps["hot"], table["tokens"])
    match_id = table["ids"]["hot"]
    view = clients["A"].get(f"/api/v1/matches/{match_id}").json()["view"]
    clients["B"].get(f"/api/v1/matches/{match_id}")
    move = next_move(view)
    assert move is not None
    seat, command, dice = move
    body: dict[str, Any] = {"expected_version": 2, "command": command}
    if dice is not None:
        body["dice"] = dice
    answer = clients[seat].post(f"/api/v1/matches/{match_id}/commands", json=body)
    assert answer.status_code == 200
    assert _lane(apps["hot"])["command"].served == 1
    assert woken == [(match_id, answer.json()["version"])]


def test_the_lane_is_installed_once(app: FastAPI) -> None:
    from app.matches.api import HotRoute, hot_lane

    hot_lane(app, "/api/v1")
    assert sum(isinstance(r, HotRoute) for r in app.router.routes) == 2


def test_a_refusal_answered_by_the_lane_is_counted_and_a_long_body_is_left_to_fastapi(
    apps: dict[str, FastAPI], table: dict[str, Any]
) -> None:
    clients = _clients(apps["hot"], table["tokens"])
    match_id = table["ids"]["hot"]
    lane = _lane(apps["hot"])
    clients["A"].get(f"/api/v1/matches/{match_id}")  # the token is checked and cached
    url = f"/api/v1/matches/{match_id}/commands"
    stale = clients["A"].post(url, json={"expected_version": 1, "command": {"type": "x"}})
    assert stale.status_code in (409, 422), stale.text
    assert lane["command"].served == 1  # taken on by the lane, refused by the app's handler
    # longer than any real command: FastAPI reads it once and refuses it
    long = {"expected_version": 1, "command": {"type": "x", "pad": "p" * 70_000}, "extra": 1}
    refused = clients["A"].post(url, json=long)
    assert refused.status_code == 422, refused.text
    assert lane["command"].served == 1
