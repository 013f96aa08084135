"""A client's number beyond 64 bits never breaks a match: an attack's seed out of range is
refused, and a big number inside the attack's request (copied into the public event) is still
written in the command's answer, the log and the stream, a spectator's too: its write's
notification, which would bring it back as a float, is the version alone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.core import security
from app.matches import events, reads, spectate, writes
from app.matches.models import Match
from tests.matches.conftest import Game, setup_battle
from tests.matches.streams import collect, last_version, until
from tests.matches.test_spectators import both_agree


def _to_shooting(g: Game) -> int:
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b1"]})
    return int(g.a.get()["version"])


def _resolve(**extra: object) -> dict[str, object]:
    command = {"type": "resolve_attack", "attacker": "a2", "target": "b1", "damage": [1]}
    return command | extra


def test_a_seed_beyond_63_bits_is_refused(new_game: Callable[..., Game]) -> None:
    g = new_game(check=False)
    v = _to_shooting(g)
    body = {"expected_version": v, "command": _resolve(seed=2**64)}
    r = g.a.client.post(g.a.base + "/commands", json=body)
    assert r.status_code == 422, r.text
    assert "seed" in r.text
    assert g.b.get()["version"] == v


def test_a_big_number_in_the_request_is_served_everywhere(new_game: Callable[..., Game]) -> None:
    g = new_game(check=False)
    v = _to_shooting(g)
    body = {"expected_version": v, "command": _resolve(seed=7, request={"n": 2**70})}
    r = g.a.client.post(g.a.base + "/commands", json=body)
    assert r.status_code == 200, r.text
    assert str(2**70) in r.text
    log = g.b.client.get(g.b.base + f"/log?since={v}")
    assert log.status_code == 200, log.text
    assert str(2**70) in log.text
    with g.b.client.stream("GET", g.b.base + f"/events?since={v}&timeout=0") as stream:
        assert stream.status_code == 200
        assert str(2**70) in "".join(stream.iter_text())


def _values_of(key: str, data: Any) -> list[Any]:
    if isinstance(data, dict):
        found = [data[key]] if key in data else []
        return found + [v for x in data.values() for v in _values_of(key, x)]
    if isinstance(data, list):
        return [v for x in data for v in _values_of(key, x)]
    return []


def test_a_note_holding_a_big_number_is_the_version_alone() -> None:
    entry = {"seq": 4, "batch": 4, "actor": "A", "at": None, "audience": None}
    small = events.note_payload(7, 5, 3, [{**entry, "event": {"n": 2**63 - 1}}], {})
    assert events.parse_note(small) is not None
    assert events.parse_note(small)[2] is not None  # type: ignore[index]
    big = events.note_payload(7, 5, 3, [{**entry, "event": {"n": 2**70}}], {})
    assert big == "7:5"
    assert events.parse_note(big) == (7, 5, None)


def test_another_workers_spectator_gets_the_big_number_exactly(
    new_game: Callable[..., Game], app: Any, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator in another process (a hub of its own, fed the write's payload; the
    writer's snapshots hidden from it) reads the version the note could not carry."""
    g = new_game(check=False)
    v = _to_shooting(g)
    token = both_agree(g)["token"]
    row = db.get(Match, g.match_id)
    assert row is not None
    secret = row.secret
    hub = events.Hub()
    reader = spectate.spectator_reader(
        app.state.db, g.match_id, security.digest(token), hub, secret
    )
    monkeypatch.setattr(reads.cache.written, "at", lambda *_: None)  # not the writer's process
    received: list[dict[str, Any]] = []

    def write() -> tuple[int, str]:
        body = {"expected_version": v, "command": _resolve(seed=7, request={"n": 2**70})}
        r = g.a.client.post(g.a.base + "/commands", json=body)
        assert r.status_code == 200, r.text
        version = int(r.json()["version"])
        snap = reads.cache.get((g.match_id, secret), version)
        assert snap is not None
        battle = snap.battle
        payload = writes.public_note(row, battle, battle.envelopes[v:], v, battle.status())
        return version, payload

    async def scenario() -> tuple[int, str]:
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, v, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: last_version(received) == v)
            version, payload = await asyncio.to_thread(write)
            hub.heard(payload)
            await until(lambda: last_version(received) >= version)
            return version, payload
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    version, payload = asyncio.run(scenario())
    got = [m["data"] for m in received if m["event"] == "entry"]
    assert _values_of("n", got) == [2**70]  # exactly, never the float 1.1805916207174113e+21
    assert payload == f"{g.match_id}:{version}"
    assert hub.fetches == 2  # the stream's start and the version the note did not carry
