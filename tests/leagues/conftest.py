"""League fixtures: API clients for several users, a club with members, ready army lists.

The army feature's ``ready_snapshot`` is replaced by :class:`FakeArmies` in the endpoint tests
that ask for the ``armies`` fixture (a list is "ready" when the test says so, and its content
can be edited afterwards to prove the registration's copy is locked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.leagues import service
from app.leagues.exceptions import ArmyNotReady
from tests.support.web import api_token, register


@pytest.fixture
def user_client(app) -> Callable[[str], TestClient]:  # type: ignore[no-untyped-def]
    """A new registered user's API client (bearer token, no cookies)."""

    def make(name: str) -> TestClient:
        client = TestClient(app)
        register(client, email=f"{name.lower()}@example.com", name=name)
        secret = api_token(client)
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {secret}"
        client.user_name = name  # type: ignore[attr-defined]
        client.user_id = int(client.get("/api/v1/me").json()["id"])  # type: ignore[attr-defined]
        return client

    return make


@dataclass
class FakeArmies:
    """Stands in for app.armies.service.ready_snapshot: lists by (owner id, army id)."""

    lists: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    next_id: int = 100

    def ready(self, owner: TestClient, name: str = "Ready list", **content: Any) -> int:
        self.next_id += 1
        self.lists[(owner.user_id, self.next_id)] = {  # type: ignore[attr-defined]
            "name": name,
            "rule_system": "wh40k-10e",
            "points": 1995,
            "catalogue_id": 1,
            "catalogue_version": "1.0",
            "units": [{"name": "Intercessors", "points": 80}],
            "ready": True,
            **content,
        }
        return self.next_id

    def snapshot(self, db: Any, user: Any, army_id: int) -> dict[str, Any]:
        found = self.lists.get((user.id, army_id))
        if found is None or not found.get("ready"):
            raise ArmyNotReady(f"Army list {army_id} is not one of your ready lists.")
        return {**found, "units": [dict(u) for u in found["units"]]}

    def ready_lists(self, db: Any, user: Any, rule_system: str) -> list[tuple[int, str, int]]:
        return [
            (army_id, content["name"], content["points"])
            for (owner, army_id), content in self.lists.items()
            if owner == user.id and content.get("ready") and content["rule_system"] == rule_system
        ]


@pytest.fixture
def armies(monkeypatch: pytest.MonkeyPatch) -> FakeArmies:
    fake = FakeArmies()
    monkeypatch.setattr(service, "ready_snapshot", fake.snapshot)
    monkeypatch.setattr(service, "ready_armies", fake.ready_lists)
    return fake


@dataclass
class ClubSetup:
    """A club: its owner (admin), members, and an outsider."""

    club_id: int
    owner: TestClient
    members: list[TestClient]
    outsider: TestClient
    make_user: Callable[[str], TestClient]

    def join(self, client: TestClient) -> TestClient:
        code = self.owner.post(f"/api/v1/clubs/{self.club_id}/invites", json={}).json()["code"]
        response = client.post("/api/v1/clubs/join", json={"code": code})
        assert response.status_code == 200, response.text
        return client

    def league(self, **fields: Any) -> int:
        body = {
            "club_id": self.club_id,
            "name": "Autumn League",
            "rule_system": "wh40k-10e",
            "format": "round_robin",
            **fields,
        }
        response = self.owner.post("/api/v1/leagues", json=body)
        assert response.status_code == 201, response.text
        return int(response.json()["id"])


def make_club(
    user_client: Callable[[str], TestClient],
    members: int = 3,
    *,
    public: bool = False,
    prefix: str = "",
) -> ClubSetup:
    owner = user_client(f"{prefix}Owner")
    created = owner.post("/api/v1/clubs", json={"name": "Les Dés Rouges", "is_public": public})
    assert created.status_code == 201, created.text
    outsider = user_client(f"{prefix}Outsider")
    setup = ClubSetup(int(created.json()["id"]), owner, [], outsider, user_client)
    names = ["Alice", "Bob", "Chloe", "Damien", "Elise", "Fabien", "Gaelle", "Hugo"]
    for name in names[:members]:
        setup.members.append(setup.join(user_client(prefix + name)))
    return setup


@pytest.fixture
def club(user_client) -> ClubSetup:  # type: ignore[no-untyped-def]
    return make_club(user_client)


def enrol(setup: ClubSetup, armies: FakeArmies, league_id: int, *players: TestClient) -> list[int]:
    """Register each player with a new ready list; their registration ids, in order."""
    ids = []
    for player in players:
        army = armies.ready(player, name=f"{player.user_name}'s list")  # type: ignore[attr-defined]
        response = player.post(f"/api/v1/leagues/{league_id}/registrations", json={"army_id": army})
        assert response.status_code == 201, response.text
        ids.append(int(response.json()["registration_id"]))
    return ids
