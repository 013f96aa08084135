"""The per-process cache of API token checks (issue 21, ADR 0009 addendum): a token checked a
moment ago costs no query and no trip to the thread pool; revocation in this process and
expiry take effect at once, revocation elsewhere within ``TOKEN_GRANT_SECONDS``."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from app.accounts import service
from app.accounts.models import ApiToken
from app.core.db import utcnow
from tests.support.web import api_token, register


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each database lookup of a token (the cache's misses)."""
    seen: list[str] = []
    original = service.user_for_api_token

    def counting(db: Any, secret: str) -> Any:
        seen.append(secret)
        return original(db, secret)

    monkeypatch.setattr(service, "user_for_api_token", counting)
    return seen


def _bearer(client: Any) -> dict[str, str]:
    register(client)
    secret = api_token(client)
    client.cookies.clear()
    return {"Authorization": f"Bearer {secret}"}


def test_a_token_checked_a_moment_ago_costs_no_lookup(client, lookups: list[str]) -> None:
    headers = _bearer(client)
    first = client.get("/api/v1/me", headers=headers)
    assert first.status_code == 200
    assert len(lookups) == 1
    for _ in range(3):
        again = client.get("/api/v1/me", headers=headers)
        assert again.status_code == 200
        assert again.json() == first.json()
    assert len(lookups) == 1


def test_a_profile_change_is_seen_at_once(client) -> None:
    headers = _bearer(client)
    assert client.get("/api/v1/me", headers=headers).status_code == 200  # cached now
    changed = client.patch(
        "/api/v1/me", headers=headers, json={"display_name": "Renamed", "preferred_language": "fr"}
    )
    assert changed.status_code == 200
    me = client.get("/api/v1/me", headers=headers).json()
    assert (me["display_name"], me["preferred_language"]) == ("Renamed", "fr")


def test_revoked_elsewhere_stops_within_the_bound(
    client, db, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Revoked by another process (here: straight in the database, which this process's
    cache does not see), the token works until its grant is older than the bound."""
    monkeypatch.setattr(service.token_grants, "ttl", 0.3)
    headers = _bearer(client)
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    db.execute(update(ApiToken).values(revoked_at=utcnow()))
    db.flush()
    assert client.get("/api/v1/me", headers=headers).status_code == 200  # within the bound
    time.sleep(0.35)
    refused = client.get("/api/v1/me", headers=headers)
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]


def test_an_expiry_takes_effect_on_time_from_the_cache(
    client, lookups: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = _bearer(client)
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    later = utcnow() + timedelta(days=400)  # past any token's lifetime
    monkeypatch.setattr(service, "utcnow", lambda: later)
    assert client.get("/api/v1/me", headers=headers).status_code == 401
    assert len(lookups) == 2  # the cache let the database decide


def test_the_cache_is_bounded_and_forgets_the_oldest() -> None:
    grants = service.TokenGrants(ttl=60, size=2)
    for n in range(3):
        grants.put(
            f"d{n}",
            service.TokenGrant(n, n, None, "e", "n", "en", time.monotonic(), None),
        )
    assert grants.get("d0") is None
    assert grants.get("d1") is not None
    assert grants.get("d2") is not None
    grants.forget(user_id=2)
    assert grants.get("d2") is None


def test_grants_past_their_ttl_leave_at_the_next_put() -> None:
    """Issue 21 (the soak's memory): the grant of a token nobody uses any more (a finished
    game's) does not stay until ``size`` others push it out: a later put drops every grant
    past its ``ttl``, oldest check first, and keeps the fresh ones."""
    grants = service.TokenGrants(ttl=60, size=4096)
    now = time.monotonic()
    for n in range(100):  # checked two minutes ago: stale
        grants.put(f"old{n}", service.TokenGrant(n, n, None, "e", "n", "en", now - 120, None))
    grants.put("fresh0", service.TokenGrant(200, 200, None, "e", "n", "en", now - 1, None))
    assert len(grants) == 1
    grants.put("fresh1", service.TokenGrant(201, 201, None, "e", "n", "en", now, None))
    assert len(grants) == 2
    assert grants.get("fresh0") is not None
    assert grants.get("fresh1") is not None
    assert grants.get("old5") is None
