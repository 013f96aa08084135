"""Black Reach review fixes through the API (issue 16): a Tir Indirect param of another shape
("B/²": "²".isdigit() is true and int("²") fails; "B/999999") is refused where the set is
saved, located, instead of a 500 that locked the match at its first template shot; a scatter
number that reads is capped at the furthest a template reaches, and the match plays it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import features
from app.engine.black_reach.battle.setup import load_deployment
from tests.matches.test_black_reach_content import CONTENT, ROUTER, hot, missions
from tests.matches.test_pen_match import MATCHES

SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"


@pytest.fixture(autouse=True)
def with_router(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Black Reach match router among the matches feature's (app/features.py)."""
    extra = dict(features.EXTRA_ROUTERS)
    names = extra.get(("matches", "api"), ())
    if ROUTER not in names:
        extra[("matches", "api")] = (*names, ROUTER)
        monkeypatch.setattr(features, "EXTRA_ROUTERS", extra)


def _copy(client: TestClient) -> dict[str, Any]:
    r = client.post(f"{CONTENT}/sample/copy", json={"name": "Gunners"})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _with_param(row: dict[str, Any], param: str) -> tuple[dict[str, Any], str]:
    """The set's forces with Tir Indirect ``param`` on the Shootas, and where it is."""
    forces = dict(row["forces"])
    forces["counters"] = [dict(c) for c in forces["counters"]]
    i = next(n for n, c in enumerate(forces["counters"]) if c["id"] == "sample-ork-shootas")
    face = dict(forces["counters"][i]["faces"][0])
    face["abilities"] = [*face["abilities"], {"id": "indirect_fire", "param": param}]
    forces["counters"][i]["faces"] = [face, *forces["counters"][i]["faces"][1:]]
    k = len(face["abilities"]) - 1
    return forces, f"forces.counters[{i}].faces[0].abilities[{k}].param"


@pytest.mark.parametrize("param", ["B/\u00b2", "B/999999", "L/\u0662"])
def test_a_template_param_of_another_shape_is_refused_where_the_set_is_saved(
    user_client: Callable[[str], TestClient], param: str
) -> None:
    alice = user_client("Alice")
    row = _copy(alice)
    forces, where = _with_param(row, param)
    r = alice.put(f"{CONTENT}/{row['id']}", json={"version": row["version"], "forces": forces})
    assert r.status_code == 422, r.text
    assert r.json()["errors"] == [
        {"field": where, "message": "a template's letters, then / and 1 or 2 digits: B, L/2"}
    ]
    kept = alice.get(f"{CONTENT}/{row['id']}").json()
    assert (kept["version"], kept["forces"]) == (row["version"], row["forces"])


def test_a_long_scatter_plays_through_the_hot_seat_capped_at_the_reach(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    row = _copy(alice)
    forces, _ = _with_param(row, "B/99")
    r = alice.put(f"{CONTENT}/{row['id']}", json={"version": row["version"], "forces": forces})
    assert r.status_code == 200, r.text
    mission = next(m for m in missions(alice) if m["set_id"] == row["id"])
    r = alice.post(
        MATCHES,
        json={"ruleset": "black-reach", "mission": mission["id"], "options": {"hot_seat": True}},
    )
    assert r.status_code == 201, r.text
    mid = r.json()["id"]
    base = f"{MATCHES}/{mid}/hot-seat"
    assert alice.post(base, json={"name": "Carol"}).status_code == 200

    def send(seat: str, cmd: dict[str, Any]) -> Any:
        version = hot(alice, mid, seat)["version"]
        return alice.post(
            f"{base}/{seat}/commands", json={"expected_version": version, "command": cmd}
        )

    spots = {d.unit: d for d in load_deployment("sample-relay")}
    for seat, side in (("A", "ultramarines"), ("B", "orks")):
        for unit, d in spots.items():
            if unit.startswith(f"{side}:"):
                cmd = {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}
                assert send(seat, cmd).status_code == 200
        assert send(seat, {"type": "end_deployment"}).status_code == 200
    for _ in range(2):  # each seat places its tokens when the battle waits on it
        seat = hot(alice, mid, "A")["to_play"]
        first = SHOOTAS if seat == "B" else None
        offered = hot(alice, mid, seat)["actions"][0]
        numbers = sorted(t["number"] for t in offered["tokens"] if t["kind"] == "numbered")
        units = [u for u in offered["units"] if u != first]
        units = [first, *units] if first else units
        orders = [
            {"unit": u, "kind": "numbered", "number": n}
            for n, u in zip(numbers, units, strict=False)
        ]
        assert send(seat, {"type": "place_orders", "orders": orders}).status_code == 200
    # the Orks hold the Initiative in the sample scenario: the Shootas' token 1 is due
    actions = hot(alice, mid, "B")["actions"]
    entry = next(a for a in actions if a["command"]["type"] == "template_fire")
    assert (entry["command"]["unit"], entry["template"], entry["distance"]) == (SHOOTAS, "B", 12)
    # the dispersion die by hand: 1, north on the sample diagram, by 12 intercases (never 99)
    version = hot(alice, mid, "B")["version"]
    fire = {"type": "template_fire", "unit": SHOOTAS, "x": 5, "y": 5, "indirect": True}
    r = alice.post(
        f"{base}/B/commands", json={"expected_version": version, "command": fire, "dice": [1]}
    )
    assert r.status_code == 200, r.text
    placed = [e["event"] for e in r.json()["events"] if e["event"]["type"] == "template_placed"]
    assert [
        (p["roll"]["dice"][0]["value"], p["landed"]["x"], p["landed"]["y"]) for p in placed
    ] == [(1, 5, -7)]
    assert alice.get(f"{MATCHES}/{mid}/actions").status_code == 200
    assert hot(alice, mid, "A")["version"] > 0
