"""The world the robustness sweeps fuzz: two users with API tokens and everything their pages and
routes name by id (a club, a league, a 10th-edition army with units, a PEN army, a match of each
rule system that plays one, a Black Reach content set, shared links), and the hostile values
the sweeps put in fields.

The 10th-edition match takes its lists from :class:`tests.matches.conftest.FakeArmies` (real
roster exports of the starter catalogue), as the match tests do; the PEN lists are made with the
army builder's API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.support.web import api_token, csrf, login, register

# What a clumsy user or an attacker types into a field: empty, signs, exponents, digits of other
# scripts, values past 64 bits, long text, invisible and right-to-left characters, markup and
# format strings, line breaks. NUL is refused by a middleware (tested in tests/core).
HOSTILE_TEXT = (
    "",
    " ",
    "-1",
    "0",
    "-0",
    "1e309",
    "nan",
    "-inf",
    "9" * 40,
    "-" + "9" * 40,
    "9223372036854775808",
    "1.5",
    "0x10",
    "\uff11\uff12",  # fullwidth 12: int() reads it
    "\u0663",  # Arabic-Indic 3
    "true",
    "[]",
    "{}",
    "A" * 5000,
    "\u00e9" * 3000,
    "\u202e\u0301\U0001f600",
    "\ufeff",
    "\u200b",
    "<script>x</script>",
    "../../etc/passwd",
    "%s%n{0}",
    "{{7*7}}",
    "a\r\nb",
    "\x7f",
    "\U0010ffff",
)
# The same, for JSON fields: numbers, nulls and containers where strings are expected.
HOSTILE_JSON: tuple[Any, ...] = (
    *HOSTILE_TEXT[:12],
    -1,
    0,
    7,
    10**6,
    2**63,
    10**30,
    1e308,
    0.5,
    None,
    True,
    [],
    {},
    [[1]],
    {"a": 1},
    [0] * 200,
)


@dataclass
class World:
    """Two players' API clients, the first one's browser, and the ids of what they own."""

    player: TestClient
    rival: TestClient
    browser: TestClient
    ids: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, key: str, value: Any) -> None:
        self.ids.setdefault(key, []).append(value)


def _api_client(app: FastAPI, name: str) -> TestClient:
    client = TestClient(app, base_url="http://testserver")
    register(client, email=f"{name.lower()}@example.com", name=name)
    token = api_token(client, name)
    client.cookies.clear()
    client.headers["Authorization"] = f"Bearer {token}"
    client.user_id = int(client.get("/api/v1/me").json()["id"])  # type: ignore[attr-defined]
    return client


def _created(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(path, json=body)
    assert r.status_code == 201, (path, r.status_code, r.text)
    out: dict[str, Any] = r.json()
    return out


@pytest.fixture
def world(app: FastAPI, db: Session, monkeypatch: pytest.MonkeyPatch) -> World:
    from app.catalog import service as catalogs
    from app.catalog.starter import load
    from tests.armies.conftest import legal_army
    from tests.matches.conftest import FakeArmies, marines, orks
    from tests.matches.test_pen_match import devastators, guard, marine, ready_pen_list, rhino

    load(db)
    db.commit()
    player, rival = _api_client(app, "Fuzz"), _api_client(app, "Rival")
    browser = TestClient(app, base_url="http://testserver")
    assert login(browser, "fuzz@example.com").status_code == 303
    w = World(player, rival, browser, {"user_id": [player.user_id, rival.user_id]})  # type: ignore[attr-defined]

    club = _created(player, "/api/v1/clubs", {"name": "Fuzz club"})
    w.add("club_id", club["id"])
    league = {"club_id": club["id"], "name": "Fuzz league", "rule_system": "wh40k-10e"}
    w.add(
        "league_id", _created(player, "/api/v1/leagues", league | {"format": "round_robin"})["id"]
    )
    army = _created(player, "/api/v1/armies", legal_army())
    w.add("army_id", army["id"])
    w.add("catalog", army["catalog"]["slug"])
    # PEN lists through the army builder (before the fake lists stand in for it)
    mine = ready_pen_list(player, [marine(), devastators()], "Marines")
    theirs = ready_pen_list(rival, [guard(), rhino()], "Garde")
    w.add("army_id", mine)
    pen = _created(player, "/api/v1/matches", {"ruleset": "pen", "army_id": mine})
    r = rival.post(
        "/api/v1/matches/join", json={"code": pen["invitation"]["code"], "army_id": theirs}
    )
    assert r.status_code == 200, r.text

    armies = FakeArmies(catalogs.starter(db).id)
    monkeypatch.setattr("app.matches.armies.fetch_ready_list", armies.snapshot)
    tenth = _created(player, "/api/v1/matches", {"army_id": armies.ready(player, marines())})
    code = tenth["invitation"]["code"]
    r = rival.post(
        "/api/v1/matches/join", json={"code": code, "army_id": armies.ready(rival, orks())}
    )
    assert r.status_code == 200, r.text
    reach = _created(player, "/api/v1/matches", {"ruleset": "black-reach"})
    r = rival.post("/api/v1/matches/join", json={"code": reach["invitation"]["code"]})
    assert r.status_code == 200, r.text
    for match in (tenth, pen, reach):  # the order the sweeps play them in
        w.add("match_id", match["id"])

    w.add("set_id", _created(player, "/api/v1/black-reach/content/sample/copy", {})["id"])
    shared = player.post(f"/api/v1/armies/{army['id']}/share")
    assert shared.status_code in (200, 201), shared.text
    w.add("token", next(v for k, v in shared.json().items() if "token" in k))
    invite = _created(player, f"/api/v1/clubs/{club['id']}/invites", {})
    w.add("invite_id", invite["id"])
    w.browser.headers["X-CSRF-Token"] = csrf(w.browser, "/armies")
    return w
