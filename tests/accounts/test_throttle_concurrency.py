"""Twenty wrong passwords for one account at once: at most the limit are checked.

Counting the failures and recording a new one must be atomic, or parallel attempts all count the
same few failures and all get their password checked. These tests commit for real (outside the
rolled-back test transaction), on SQLite and on Postgres, through write sessions as a login POST
opens them, and delete what they recorded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session

from app.accounts import service
from app.accounts.exceptions import LoginThrottled
from app.accounts.models import LoginFailure, User
from app.core import security
from app.core.config import Settings
from tests.support.committed import committed_user, write_session

pytestmark = pytest.mark.xdist_group("committed-accounts")

ATTEMPTS = 20


@pytest.fixture
def account(engine: Engine) -> Iterator[str]:
    """A committed account's e-mail; its recorded failures are removed afterwards."""
    with committed_user(engine, "Target") as user_id:
        with Session(engine) as s:
            email = s.scalars(select(User.email).where(User.id == user_id)).one()
        keys = [service._failure_keys(email, f"203.0.113.{n}")[0] for n in range(2)]
        try:
            yield email
        finally:
            with Session(engine) as s:
                s.execute(delete(LoginFailure).where(LoginFailure.account_key.in_(keys)))
                s.commit()


@pytest.fixture
def slow_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the passwords checked; each check takes a while, as argon2 does in production,
    which leaves every parallel attempt time to count before the first one records."""
    checked: list[int] = []
    lock = threading.Lock()
    verify = security.verify_password

    def counting(password_hash: str | None, password: str) -> bool:
        with lock:
            checked.append(1)
        time.sleep(0.05)
        return verify(password_hash, password)

    monkeypatch.setattr(security, "verify_password", counting)
    return checked


def _attempt(engine: Engine, settings: Settings, email: str, address: str) -> str:
    try:
        with write_session(engine) as s:
            user = service.authenticate(s, settings, email, "wrong password!", address)
    except LoginThrottled:
        return "throttled"
    return "wrong" if user is None else "in"


def _recorded(engine: Engine, email: str) -> int:
    key = service._failure_keys(email, "203.0.113.0")[0]
    with Session(engine) as s:
        return s.scalar(select(func.count()).where(LoginFailure.account_key == key)) or 0


def test_parallel_wrong_passwords_check_at_most_the_limit(
    engine: Engine, app_settings: Settings, account: str, slow_checks: list[int]
) -> None:
    start = threading.Barrier(ATTEMPTS)

    def attempt(_: int) -> str:
        start.wait()
        return _attempt(engine, app_settings, account, "203.0.113.0")

    with ThreadPoolExecutor(ATTEMPTS) as pool:
        outcomes = list(pool.map(attempt, range(ATTEMPTS)))
    limit = app_settings.login_max_failures
    assert outcomes.count("wrong") == limit
    assert outcomes.count("throttled") == ATTEMPTS - limit
    assert len(slow_checks) == limit
    assert _recorded(engine, account) == limit
