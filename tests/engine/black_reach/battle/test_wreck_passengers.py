"""The passengers of a destroyed transport (issue 16, rulings 143) [L2058-L2066]: each is set
on a free square next to the wreck, out of every enemy zone of control, with 1 Suppressed
marker; when several squares are open its owner chooses (``square_awaited`` then
``choose_square``, the first square in reading order the default), one passenger after the
other, each choice taking a square from the next.

The sample battle, the tactical squad and the sergeant deployed aboard the transport
(5,1)-(5,0) (rulings 141); the buggy's shot on the move of
``test_the_passengers_of_a_destroyed_transport_get_out_suppressed`` destroys it.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle, sample_setup
from app.engine.black_reach.battle.events import ForcedMove, SquareAwaited, SuppressedPlaced
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
NOB = "orks:tiles[0]/0:sample-ork-nob"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
ORKS = (BOYZ1, BUGGY, NOB, SHOOTAS)  # their Order tokens 1 to 4
A, B = "A", "B"
PLACES = {d.unit: d for d in sample_setup().deployment}
SHOT = {
    "type": "move",
    "unit": BUGGY,
    "path": [{"x": 6, "y": 10}, {"x": 6, "y": 9}, {"x": 6, "y": 8}],
    "fire_at": TRANSPORT,
}


def deploy(battle: BlackReachBattle, seat: str, unit: str) -> None:
    d = PLACES[unit]
    battle.execute_json(
        {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}, seat
    )


def loaded_transport() -> BlackReachBattle:
    """The battle at the buggy's activation, the squad and the sergeant aboard."""
    battle = BlackReachBattle.create(sample_setup(deployment=()))
    for unit in [u for u in PLACES if u.startswith("ultramarines:")]:
        if unit not in (TACTICAL, SERGEANT):
            deploy(battle, A, unit)
    for unit in (TACTICAL, SERGEANT):
        battle.execute_json({"type": "deploy_aboard", "unit": unit, "transport": TRANSPORT}, A)
    battle.execute_json({"type": "end_deployment"}, A)
    for unit in [u for u in PLACES if u.startswith("orks:")]:
        deploy(battle, B, unit)
    battle.execute_json({"type": "end_deployment"}, B)
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "nonce": f"n-{u}", "kind": "numbered", "number": n}
                for n, u in enumerate(ORKS, 1)
            ],
        },
        B,
    )
    entry = next(a for a in battle.legal_actions(A) if a["command"]["type"] == "place_orders")
    units = [BOLTER, *(u for u in entry["units"] if u != BOLTER)]
    orders = [
        {"unit": u, "nonce": f"n-{u}", **t} for u, t in zip(units, entry["tokens"], strict=False)
    ]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    battle.execute_json({"type": "hold", "unit": BOLTER}, A)
    return battle


def choose(unit: str, x: int, y: int) -> dict[str, Any]:
    return {"type": "choose_square", "unit": unit, "x": x, "y": y}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, dice=[])
    assert battle.version == version
    return info.value


def test_the_owner_chooses_each_passengers_square_out_of_the_wreck() -> None:
    battle = loaded_transport()
    # 5 + 2 - 1 = 6 >= DV 6: the transport is destroyed
    new = battle.execute_json(SHOT, B, dice=[5])
    awaited = new[-1].event
    assert isinstance(awaited, SquareAwaited)
    first = awaited.unit
    assert first in (TACTICAL, SERGEANT)
    assert (awaited.side, awaited.why, awaited.attacker) == (
        "ultramarines",
        "out of the wreck",
        TRANSPORT,
    )
    squares = [(s.x, s.y) for s in awaited.squares]
    assert len(squares) > 1
    assert squares == sorted(squares, key=lambda q: (q[1], q[0]))  # reading order
    assert squares[0] == (4, 0)  # the square the match used to take: the default
    wreck = {(5, 0), (5, 1)}
    assert all(  # next to the wreck, not on it
        (x, y) not in wreck and any(max(abs(x - wx), abs(y - wy)) == 1 for wx, wy in wreck)
        for x, y in squares
    )
    # the passengers' owner chooses; nothing else is played meanwhile
    assert battle.state.active_seat == A
    offered = [
        (a["command"]["unit"], a["command"]["x"], a["command"]["y"], a["default"])
        for a in battle.actions(A)
        if a["command"]["type"] == "choose_square"
    ]
    assert offered == [(first, x, y, n == 0) for n, (x, y) in enumerate(squares)]
    assert battle.actions(B) == []
    assert refused(battle, B, choose(first, *squares[-1])).code == "not_your_turn"
    assert refused(battle, A, {"type": "hold", "unit": SERGEANT}).code == "waiting_square"
    assert refused(battle, A, choose(first, 9, 9)).code == "bad_square"
    assert battle.view(B)["square_awaited"]["squares"][0] == [4, 0]
    # the first passenger takes the last square offered, not the default
    chosen = squares[-1]
    done = battle.execute_json(choose(first, *chosen), A)
    assert isinstance(done[0].event, ForcedMove)
    assert (done[0].event.unit, done[0].event.to.x, done[0].event.to.y) == (first, *chosen)
    assert any(isinstance(e.event, SuppressedPlaced) and e.event.unit == first for e in done)
    # then the second passenger: the square just taken is no longer offered
    second = next(u for u in (TACTICAL, SERGEANT) if u != first)
    again = done[-1].event
    assert isinstance(again, SquareAwaited)
    assert again.unit == second
    left = [(s.x, s.y) for s in again.squares]
    assert chosen not in left
    assert left[0] == (4, 0)
    battle.execute_json(choose(second, *left[0]), A)
    assert battle.state.placing is None
    for uid, at in ((first, chosen), (second, left[0])):
        unit = battle.state.units[uid]
        assert unit.embarked_in is None
        assert unit.placement is not None
        assert (unit.placement.anchor.x, unit.placement.anchor.y) == at
        assert unit.suppressed == 1
    assert battle.state.passengers(TRANSPORT) == []
    # the battle goes on: the next token is played
    assert battle.state.active_seat is not None
