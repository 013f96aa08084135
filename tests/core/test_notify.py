"""The notifier that sends a write's NOTIFY once it has committed, outside its transaction
(app.core.notify, issue 21): in order, batched, from a connection of its own that does not wait
for the disk, surviving a lost connection; none on SQLite. And the write itself: its statement
notifies nothing, so its commit takes no notification lock, and its notification comes after
the commit, only if it committed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url

from app.core.notify import Notifier, notifier_for

pytestmark = pytest.mark.xdist_group("notify")

CHANNEL = "auspex_test_notifier"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg_url(engine: Engine) -> str:
    if engine.dialect.name != "postgresql":
        pytest.skip("NOTIFY exists on Postgres only (SQLite: one process, woken in process)")
    return make_url(engine.url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def listener(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    conn = psycopg.connect(pg_url, autocommit=True)
    conn.execute(f"LISTEN {CHANNEL}")
    try:
        yield conn
    finally:
        conn.close()


def _heard(listener: psycopg.Connection[Any], count: int) -> list[str]:
    return [n.payload for n in listener.notifies(timeout=5, stop_after=count)]


def test_none_on_sqlite() -> None:
    engine = create_engine("sqlite://")
    try:
        assert notifier_for(engine) is None
    finally:
        engine.dispose()


def test_one_notifier_per_database_and_process(engine: Engine, pg_url: str) -> None:
    found = notifier_for(engine)
    assert found is not None
    assert notifier_for(engine) is found
    assert notifier_for(engine.execution_options(isolation_level="AUTOCOMMIT")) is found


def test_sent_in_order_batched_without_waiting_for_the_disk(
    pg_url: str, listener: psycopg.Connection[Any]
) -> None:
    notifier = Notifier(pg_url)
    try:
        for i in range(300):  # more than one batch
            notifier.send(CHANNEL, f"7:{i}")
        assert notifier.flush()
        assert _heard(listener, 300) == [f"7:{i}" for i in range(300)]
        assert notifier.sent == 300
        assert 2 <= notifier.batches <= 300
        assert notifier._connection().execute("SHOW synchronous_commit").fetchone() == ("off",)
    finally:
        notifier.close()


def test_a_lost_connection_is_replaced(pg_url: str, listener: psycopg.Connection[Any]) -> None:
    notifier = Notifier(pg_url)
    try:
        notifier.send(CHANNEL, "1:1")
        assert notifier.flush()
        pid = notifier._connection().info.backend_pid
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        notifier.send(CHANNEL, "1:2")
        assert notifier.flush()
        assert _heard(listener, 2) == ["1:1", "1:2"]
        assert notifier.failures == 0
        assert notifier._connection().info.backend_pid != pid
    finally:
        notifier.close()


def test_a_database_away_drops_the_batch_without_raising(pg_url: str) -> None:
    away = make_url(pg_url).set(port=1).render_as_string(hide_password=False)
    notifier = Notifier(away)
    try:
        notifier.send(CHANNEL, "1:1")  # the writer's thread never sees the failure
        assert notifier.flush(30)
        assert notifier.failures == 1
        assert notifier.sent == 0
    finally:
        notifier.close()


def test_a_process_leaving_sends_what_it_queued(
    pg_url: str, listener: psycopg.Connection[Any]
) -> None:
    """A command-line process that wrote a match exits at once: its news still goes out."""
    code = (
        "from app.core import notify\n"
        "notify.EXIT_WAIT = 30.0\n"  # a loaded machine: the connection may take seconds
        f"notifier = notify.Notifier({pg_url!r})\n"
        f"for i in range(50): notifier.send({CHANNEL!r}, f'3:{{i}}')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    assert [n.payload for n in listener.notifies(timeout=30, stop_after=50)] == [
        f"3:{i}" for i in range(50)
    ]
