"""The failed-login throttle: whose address counts, and whom a lockout locks out.

Per window (N = 5 here): an account takes N failures from one address, 4N from all addresses;
one address takes 4N failures over all accounts. The address is the socket's peer unless the
peer is a reverse proxy named in ``W40K_TRUSTED_PROXIES``; only then is ``X-Forwarded-For``
believed.
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.support.web import PASSWORD, csrf, register

WRONG = "wrong password!"
PROXY = "10.0.0.2"


def _client(app: FastAPI, address: str) -> TestClient:
    return TestClient(app, base_url="http://testserver", client=(address, 50000))


def _login(
    client: TestClient, email: str, password: str = PASSWORD, forwarded: str | None = None
) -> int:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    token = csrf(client, "/login")
    response = client.post(
        "/login",
        data={"csrf_token": token, "email": email, "password": password, "next": "/"},
        headers=headers,
        follow_redirects=False,
    )
    if response.status_code == 303:  # logged in: log out again for the next attempt
        client.post("/logout", data={"csrf_token": csrf(client, "/")})
    return response.status_code


@pytest.fixture
def owner(app: FastAPI) -> str:
    with _client(app, "198.51.100.1") as c:
        register(c, email="owner@example.com")
    return "owner@example.com"


@pytest.fixture
def proxied_app(app_settings, engine, connection) -> FastAPI:  # type: ignore[no-untyped-def]
    from app.main import create_app
    from tests.conftest import _TestDatabase

    settings = app_settings.model_copy(update={"trusted_proxies": f"{PROXY}, 192.0.2.0/28"})
    return create_app(settings, database=_TestDatabase(engine, connection))  # type: ignore[arg-type]


def test_a_stranger_locks_the_owner_out_from_the_strangers_address_only(
    app: FastAPI, owner: str
) -> None:
    with _client(app, "203.0.113.7") as stranger, _client(app, "198.51.100.1") as home:
        for _ in range(5):
            assert _login(stranger, owner, WRONG) == 401
        assert _login(stranger, owner) == 429  # even with the right password, from there
        assert _login(home, owner) == 303  # the owner, from their own address


def test_failures_from_four_addresses_lock_the_account_everywhere(app: FastAPI, owner: str) -> None:
    for n in range(4):
        with _client(app, f"203.0.113.{10 + n}") as attacker:
            for _ in range(5):
                assert _login(attacker, owner, WRONG) == 401
    with _client(app, "198.51.100.1") as home:
        response = _login(home, owner)
    assert response == 429


def test_one_address_spraying_many_accounts_is_stopped(app: FastAPI, owner: str) -> None:
    with _client(app, "203.0.113.50") as sprayer:
        for n in range(20):
            assert _login(sprayer, f"user{n % 5}@example.com", WRONG) == 401
        assert _login(sprayer, owner) == 429
    with _client(app, "198.51.100.1") as home:
        assert _login(home, owner) == 303


def test_an_ipv6_client_counts_by_its_64(app: FastAPI, owner: str) -> None:
    for n in range(5):
        with _client(app, f"2001:db8:1:2::{n + 1:x}") as attacker:
            assert _login(attacker, owner, WRONG) == 401
    with _client(app, "2001:db8:1:2:ffff::9") as same_network:
        assert _login(same_network, owner) == 429
    with _client(app, "2001:db8:1:3::1") as next_network:
        assert _login(next_network, owner) == 303


def test_forwarded_for_from_an_untrusted_peer_is_ignored(app: FastAPI, owner: str) -> None:
    """A client rotating X-Forwarded-For gains nothing, and cannot name the owner's address."""
    with _client(app, "203.0.113.7") as spoofer, _client(app, "198.51.100.1") as home:
        for n in range(5):  # rotating the header, or naming the owner's address
            forwarded = "198.51.100.1" if n % 2 else f"192.0.2.{n + 100}"
            assert _login(spoofer, owner, WRONG, forwarded=forwarded) == 401
        assert _login(spoofer, owner, forwarded="192.0.2.200") == 429
        assert _login(home, owner) == 303  # the spoofed address was never charged


def test_forwarded_for_from_a_trusted_proxy_names_the_client(
    proxied_app: FastAPI, owner: str
) -> None:
    with _client(proxied_app, PROXY) as proxy:
        for _ in range(5):
            assert _login(proxy, owner, WRONG, forwarded="203.0.113.7") == 401
        assert _login(proxy, owner, forwarded="203.0.113.7") == 429
        # another client behind the same proxy is another address
        assert _login(proxy, owner, forwarded="198.51.100.1") == 303
        # a client's own X-Forwarded-For is not believed: the proxy appends the real peer, and
        # the rightmost address that is not a trusted proxy is the client
        assert _login(proxy, owner, forwarded="198.51.100.1, 203.0.113.7") == 429


def test_a_proxy_network_can_be_trusted(proxied_app: FastAPI, owner: str) -> None:
    with _client(proxied_app, "192.0.2.5") as proxy:
        for _ in range(5):
            assert _login(proxy, owner, WRONG, forwarded="203.0.113.8") == 401
        assert _login(proxy, owner, forwarded="198.51.100.1") == 303


def test_a_peer_outside_the_trusted_proxies_is_not_believed(
    proxied_app: FastAPI, owner: str
) -> None:
    with _client(proxied_app, "203.0.113.7") as direct:
        for n in range(5):
            assert _login(direct, owner, WRONG, forwarded=f"192.0.2.{n + 100}") == 401
        assert _login(direct, owner, forwarded="198.51.100.1") == 429


@pytest.mark.parametrize("value", ["*", "proxy.example", "10.0.0.1, 300.1.1.1"])
def test_trusted_proxies_must_be_addresses_or_networks(value: str) -> None:
    from pydantic import ValidationError

    from app.core.config import Settings

    with pytest.raises(ValidationError, match="W40K_TRUSTED_PROXIES"):
        Settings(trusted_proxies=value)


def test_trusted_proxies_default_to_none() -> None:
    from app.core.config import Settings

    assert Settings(_env_file=None).trusted_proxy_list == []  # type: ignore[call-arg]
