"""Scale out: two app instances on one Postgres, as two containers behind the reverse proxy.

Each instance is a real HTTP server (uvicorn, on a loopback port of its own, with its own
engine, pool, hub and LISTEN connection); nothing is shared between them but the database.
Player A's phone talks to one instance and player B's to the other, so the writes to the one
match go through both, and both players watch the match's live updates on both instances.
Every write must reach every viewer through LISTEN/NOTIFY (well before the 15 s re-read a
stream would do by itself), and each viewer must receive its seat's log exactly once, in
order, nothing lost. ``bench/bench_scaleout.py`` measures the same under load, as processes.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.core.db import Database
from app.matches import events
from tests.matches.streams import next_move

pytestmark = pytest.mark.xdist_group("notify")

DELIVERY = 5.0  # s a write may take to reach every viewer (streams re-read only every 15 s)


@pytest.fixture
def postgres(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("LISTEN/NOTIFY exists on Postgres only; SQLite runs one process")


class Instance:
    """One app instance served by uvicorn in a thread, on a free loopback port."""

    def __init__(self, app_settings: Any) -> None:
        from app.main import create_app

        self.app = create_app(app_settings, database=Database(app_settings.database_url))
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]})

    def __enter__(self) -> Instance:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert self.thread.is_alive(), "the instance did not start"
            assert time.monotonic() < deadline, "the instance did not start in 10 s"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        self.app.state.db.engine.dispose()

    @property
    def hub(self) -> events.Hub:
        return events.hub_for(self.app)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Viewer:
    """One device's SSE stream (raw HTTP/1.0: the body is the event stream, unchunked)."""

    instance: Instance
    seat: str
    token: str
    match_id: int
    entries: list[int] = field(default_factory=list)
    versions: list[tuple[int, float]] = field(default_factory=list)  # (version, arrival)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def run(self) -> None:
        try:
            with socket.create_connection(("127.0.0.1", self.instance.port), timeout=10) as sock:
                sock.sendall(
                    (
                        f"GET /api/v1/matches/{self.match_id}/events?since=2&timeout=60 "
                        f"HTTP/1.0\r\nAuthorization: Bearer {self.token}\r\n"
                        "Accept: text/event-stream\r\n\r\n"
                    ).encode()
                )
                sock.settimeout(0.1)
                buffer = b""
                while not self.stop.is_set():
                    try:
                        chunk = sock.recv(65536)
                    except TimeoutError:
                        continue
                    if not chunk:
                        return
                    buffer += chunk
                    if b"\r\n\r\n" in buffer and buffer.startswith(b"HTTP/"):
                        head, buffer = buffer.split(b"\r\n\r\n", 1)
                        assert head.split()[1] == b"200", head
                    while b"\n\n" in buffer and not buffer.startswith(b"HTTP/"):
                        block, buffer = buffer.split(b"\n\n", 1)
                        self._event(block.decode())
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _event(self, block: str) -> None:
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields.get("event") == "entry":
            self.entries.append(int(fields["id"]))
        elif fields.get("event") == "version":
            self.versions.append((int(fields["id"]), time.monotonic()))

    @property
    def version(self) -> int:
        return self.versions[-1][0] if self.versions else 0


def _next_move(view: dict[str, Any]) -> tuple[str, dict[str, Any], list[int] | None]:
    """The players' next command before the battle: roll-off, objectives, formations."""
    stage = view["stage"]
    assert stage in ("roll_off", "place_objectives", "declare_formations", "deploy"), (
        f"unexpected stage {stage}"
    )
    move = next_move(view, roll_off=[2, 5])
    assert move is not None
    return move


def _wait(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_writes_through_both_instances_reach_viewers_on_both_exactly_once(
    postgres: None, engine: Engine, app_settings: Any, committed_match: tuple[int, list[int]]
) -> None:
    match_id, (user_a, user_b) = committed_match
    with Session(engine) as s:
        tokens = {}
        for seat, uid in (("A", user_a), ("B", user_b)):
            user = s.get(User, uid)
            assert user is not None
            tokens[seat] = create_token(s, user, TokenCreate(name="scale-out")).secret
        s.commit()

    with Instance(app_settings) as one, Instance(app_settings) as two:
        phone = {"A": one, "B": two}  # each player's phone talks to one instance
        viewers = [
            Viewer(instance, seat, tokens[seat], match_id)
            for instance in (one, two)
            for seat in "AB"
        ]
        threads = [threading.Thread(target=v.run) for v in viewers]
        for t in threads:
            t.start()
        try:
            _wait(
                lambda: (
                    all(v.version == 2 for v in viewers) and one.hub.listening and two.hub.listening
                ),
                10,
                "the streams did not open, or an instance never started to LISTEN",
            )
            assert one.hub.subscribers(match_id) == two.hub.subscribers(match_id) == 2
            through = {"A": 0, "B": 0}
            with httpx.Client(timeout=10) as client:
                r = client.get(
                    f"{two.base}/api/v1/matches/{match_id}",
                    headers={"Authorization": f"Bearer {tokens['B']}"},
                )
                assert r.status_code == 200, r.text
                view, version = r.json()["view"], r.json()["version"]
                for n in range(12):
                    seat, command, dice = _next_move(view)
                    payload: dict[str, Any] = {"expected_version": version, "command": command}
                    if dice is not None:
                        payload["dice"] = dice
                    r = client.post(
                        f"{phone[seat].base}/api/v1/matches/{match_id}/commands",
                        json=payload,
                        headers={"Authorization": f"Bearer {tokens[seat]}"},
                    )
                    assert r.status_code == 200, r.text
                    through[seat] += 1
                    view, version = r.json()["view"], r.json()["version"]
                    if n < 6:  # in step: this write reaches every viewer on both instances
                        _wait(
                            lambda v=version: all(x.version >= v for x in viewers),
                            DELIVERY,
                            f"version {version} (through {seat}'s instance) did not reach "
                            f"every viewer: {[(x.seat, x.version) for x in viewers]}",
                        )
                    # then a burst: the wake-ups of consecutive writes overlap
                _wait(
                    lambda: all(x.version == version for x in viewers),
                    DELIVERY,
                    f"the last version {version} did not reach every viewer",
                )
                logs = {}
                for seat, instance in (("A", two), ("B", one)):  # read on the other instance
                    r = client.get(
                        f"{instance.base}/api/v1/matches/{match_id}/log",
                        headers={"Authorization": f"Bearer {tokens[seat]}"},
                    )
                    assert r.status_code == 200, r.text
                    logs[seat] = [e["seq"] for e in r.json()["entries"] if e["seq"] > 2]
        finally:
            for v in viewers:
                v.stop.set()
            for t in threads:
                t.join(5)

        assert through["A"] >= 3, through  # both instances wrote
        assert through["B"] >= 3, through
        for v in viewers:
            assert v.error is None, v.error
            where = f"seat {v.seat} on instance {1 if v.instance is one else 2}"
            # its seat's log, each entry once, in order: nothing lost, nothing doubled
            assert v.entries == logs[v.seat], where
            seen = [version for version, _ in v.versions]
            assert seen == sorted(set(seen)), where
            assert seen[-1] == version, where
        # both instances were woken through LISTEN (each hears every committed write, its own
        # included), not by a stream's periodic re-read
        assert one.hub.notifications >= through["A"] + through["B"]
        assert two.hub.notifications >= through["A"] + through["B"]
