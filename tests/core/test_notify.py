"""The notifier that sends a write's NOTIFY once it has committed, outside its transaction
(app.core.notify, issue 21): in order, batched, from a connection of its own that does not wait
for the disk, surviving a lost connection; none on SQLite. And the write itself: its statement
notifies nothing, so its commit takes no notification lock, and its notification comes after
the commit, only if it committed."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url

from app.core import notify
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
        started = time.monotonic()
        notifier.send(CHANNEL, "1:1")  # the writer's thread never sees the failure
        assert notifier.flush(30)
        assert notifier.failures == 1
        assert notifier.sent == 0
        assert time.monotonic() - started >= sum(notify.RETRY_DELAYS)  # retried, then dropped
    finally:
        notifier.close()


def test_a_lost_connection_is_retried_after_a_short_wait(
    pg_url: str, listener: psycopg.Connection[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    notifier = Notifier(pg_url)
    connect = notifier._connection
    tries: list[float] = []

    def flaky() -> Any:
        tries.append(time.monotonic())
        if len(tries) <= 2:
            raise psycopg.OperationalError("connection refused")
        return connect()

    monkeypatch.setattr(notifier, "_connection", flaky)
    try:
        notifier.send(CHANNEL, "2:1")
        assert notifier.flush(30)
        assert _heard(listener, 1) == ["2:1"]
        assert (notifier.sent, notifier.failures) == (1, 0)
        assert len(tries) == 3
        assert tries[2] - tries[0] >= sum(notify.RETRY_DELAYS[:2])
    finally:
        notifier.close()


def test_a_refused_payload_costs_only_itself(
    pg_url: str, listener: psycopg.Connection[Any]
) -> None:
    """A batch Postgres refuses (an empty channel name, a NUL byte) is sent again one by one:
    the others go out, in order."""
    notifier = Notifier(pg_url)
    try:
        notifier._deliver(
            [
                (CHANNEL, "4:1"),
                ("", "4:2"),
                (CHANNEL, "4:3"),
                (CHANNEL, "4:\x00"),
                (CHANNEL, "4:5"),
            ]
        )
        assert _heard(listener, 3) == ["4:1", "4:3", "4:5"]
        assert (notifier.sent, notifier.failures) == (3, 2)
    finally:
        notifier.close()


def test_a_payload_too_big_is_sent_as_its_head(
    pg_url: str, listener: psycopg.Connection[Any]
) -> None:
    notifier = Notifier(pg_url)
    fits = "5:10:9:" + "x" * (notify.PAYLOAD_MAX - 8)  # 7999 bytes
    try:
        notifier.send(CHANNEL, "5:9:8:" + "é" * 4000)  # 8006 bytes in UTF-8
        notifier.send(CHANNEL, fits)
        assert notifier.flush()
        assert _heard(listener, 2) == ["5:9", fits]
        assert (notifier.sent, notifier.failures, notifier.shortened) == (2, 0, 1)
    finally:
        notifier.close()


def test_the_connection_gives_up_on_a_silent_database(pg_url: str) -> None:
    notifier = Notifier(pg_url)
    try:
        conn = notifier._connection()
        params = conn.info.get_parameters()
        assert params["keepalives"] == "1"
        assert params["keepalives_idle"] == "5"
        assert params["keepalives_interval"] == "2"
        assert params["keepalives_count"] == "3"
        assert params["tcp_user_timeout"] == "5000"
        assert conn.execute("SHOW statement_timeout").fetchone() == ("5s",)
    finally:
        notifier.close()


class _SlowConnection:
    """Stands in for the notifier's connection: its first send waits for ``gate``."""

    broken = closed = False

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.sent: list[str] = []

    def execute(self, _sql: str, params: tuple[list[str], list[str]]) -> None:
        assert self.gate.wait(10)
        self.sent.extend(params[1])

    def close(self) -> None:
        pass


def test_a_full_queue_drops_the_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the thread waits on the database, the queue holds ``max_queue`` notifications at
    most: the newest (the streams re-read on their keep-alive anyway)."""
    notifier = Notifier("postgresql://nobody@127.0.0.1:1/none", max_queue=3)
    conn = _SlowConnection()
    monkeypatch.setattr(notifier, "_connection", lambda: conn)
    try:
        notifier.send(CHANNEL, "6:0")
        deadline = time.monotonic() + 10
        while notifier.queued() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert notifier.queued() == 0  # the thread took it and waits
        for i in range(1, 11):
            notifier.send(CHANNEL, f"6:{i}")
        assert (notifier.queued(), notifier.dropped) == (3, 7)
        assert not notifier.flush(0.05)
        conn.gate.set()
        assert notifier.flush(10)
        assert conn.sent == ["6:0", "6:8", "6:9", "6:10"]
        assert (notifier.sent, notifier.failures) == (4, 0)
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
