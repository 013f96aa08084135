"""Black Reach content fixtures: API clients for several users (bearer tokens)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

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
        return client

    return make
