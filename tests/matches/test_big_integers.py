"""A client's number beyond 64 bits never breaks a match: an attack's seed out of range is
refused, and a big number inside the attack's request (copied into the public event) is still
written in the command's answer, the log and the stream."""

from __future__ import annotations

from collections.abc import Callable

from tests.matches.conftest import Game, setup_battle


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
