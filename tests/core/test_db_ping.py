"""A pooled connection is pinged only after sitting idle (app.core.db.ping_when_idle): no round
trip per request under load, and a connection that fails its ping is replaced, not handed out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from app.core import db


@pytest.fixture
def pinged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Engine, list[Any]]:
    engine = create_engine(f"sqlite:///{tmp_path / 'ping.db'}", pool_size=1, max_overflow=0)
    db.ping_when_idle(engine)
    pings: list[Any] = []
    real = engine.dialect.do_ping

    def counting(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counting)
    return engine, pings


def _age(engine: Engine, seconds: float) -> None:
    """Make the pooled connection look returned ``seconds`` ago."""
    with engine.connect() as conn:
        record = conn.connection._connection_record
        assert record is not None
        returned = record.info[db._RETURNED]
    # set after the check-in above (which stamps it again)
    record.info[db._RETURNED] = returned - seconds


def test_a_connection_reused_at_once_is_not_pinged(pinged: tuple[Engine, list[Any]]) -> None:
    engine, pings = pinged
    for _ in range(5):
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar() == 1
    assert pings == []  # new, then reused within the idle window: no ping at all
    engine.dispose()


def test_a_connection_idle_past_the_window_is_pinged_first(
    pinged: tuple[Engine, list[Any]],
) -> None:
    engine, pings = pinged
    _age(engine, db.PING_IDLE_SECONDS + 1)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT 1")).scalar() == 1
    assert len(pings) == 1
    with engine.connect():
        pass
    assert len(pings) == 1  # just returned: not again
    engine.dispose()


def test_a_connection_failing_its_ping_is_replaced(
    pinged: tuple[Engine, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, pings = pinged
    with engine.connect() as conn:
        first = conn.connection.dbapi_connection
    _age(engine, db.PING_IDLE_SECONDS + 1)
    failures = [RuntimeError("server closed the connection unexpectedly")]
    real = engine.dialect.do_ping

    def failing_once(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        if failures:
            raise failures.pop()
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", failing_once)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT 1")).scalar() == 1
        assert conn.connection.dbapi_connection is not first  # a new connection
    assert pings == [first]  # the new one was not pinged: it had just connected
    engine.dispose()


def test_the_postgres_engine_pings_only_when_idle() -> None:
    engine = db.make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    try:
        assert engine.pool._pre_ping is False  # type: ignore[attr-defined]
        from sqlalchemy import event

        assert event.contains(engine, "checkout", _checkout_listener(engine))
    finally:
        engine.dispose()


def _checkout_listener(engine: Engine) -> Any:
    listeners = engine.pool.dispatch.checkout
    (found,) = [fn for fn in listeners if fn.__name__ == "_on_checkout"]
    return found
