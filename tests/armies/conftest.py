"""Fixtures of the army tests: the starter catalogue in the test database, two users with API
tokens, an anonymous client, and ready-made roster bodies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog import starter
from tests.catalog.conftest import fixture_files
from tests.support.web import api_token, register


@pytest.fixture
def starter_loaded(db: Session) -> str:
    """The starter catalogue, stored in this test's transaction."""
    line = starter.load(db)
    db.flush()
    return line


def _user(client: TestClient, email: str, name: str, language: str = "en") -> dict[str, str]:
    register(client, email=email, name=name, language=language)
    return {"Authorization": f"Bearer {api_token(client)}"}


@pytest.fixture
def alice(client: TestClient, starter_loaded: str) -> dict[str, str]:
    """Alice's bearer-token headers (the `client` also holds her browser session)."""
    return _user(client, "alice@example.com", "Alice")


@pytest.fixture
def other_client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def bob(other_client: TestClient, starter_loaded: str) -> dict[str, str]:
    return _user(other_client, "bob@example.com", "Bob")


@pytest.fixture
def anon(app: FastAPI, starter_loaded: str) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def legal_units() -> list[dict[str, Any]]:
    """A legal Incursion list of the starter catalogue (its sample list): 775 points."""
    return [
        {
            "datasheet": "Captain",
            "enhancements": ["Artificer Armour"],
            "warlord": True,
            "attached_to": 2,
        },
        {"datasheet": "Lieutenant", "attached_to": 3},
        {"datasheet": "Intercessor Squad", "models": 10},
        {"datasheet": "Intercessor Squad", "models": 5},
        {"datasheet": "Rhino"},
        {"datasheet": "Redemptor Dreadnought"},
        {"datasheet": "Hellblaster Squad", "models": 5, "wargear": {"Bolt pistol": 1}},
    ]


def legal_army(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Gladius spearhead",
        "faction": "Adeptus Astartes",
        "detachment": "Gladius Task Force",
        "battle_size": "incursion",
        "units": legal_units(),
        **extra,
    }


@pytest.fixture(scope="session")
def files() -> list[tuple[str, bytes]]:
    """Our own small BattleScribe files (tests/catalog/fixtures)."""
    return fixture_files()
