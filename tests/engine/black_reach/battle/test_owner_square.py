"""The owner chooses the square of its unit forced to move (issue 16, rulings 142): a beaten
infantry retreating from an assault [L1604-L1622] or pushed aside by a vehicle [L1676-L1700],
when more than one square is open. The battle waits for the owner's ``choose_square`` (the
squares offered in the battle's order, the first its default), then the attacker takes the
square; nothing else is played meanwhile.

The board of ``test_vehicle_assaults`` (``shootas_in_front``): the Shootas right in front of
the tank's front square (1, 3), on (2, 3).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle, Deploy
from app.engine.black_reach.battle.events import ForcedMove, SquareAwaited
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle.test_vehicle_assaults import (
    BOYZ1,
    NOB,
    SHOOTAS,
    TANK,
    TANK_ON_SHOOTAS,
    anchor,
    facing_the_shootas,
    order,
    shootas_in_front,
)

A, B = "A", "B"


def choose(x: int, y: int, unit: str = SHOOTAS) -> dict[str, Any]:
    return {"type": "choose_square", "unit": unit, "x": x, "y": y}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, dice=[])
    assert battle.version == version
    return info.value


def offered(battle: BlackReachBattle, seat: str) -> list[tuple[int, int, bool]]:
    return [
        (a["command"]["x"], a["command"]["y"], a["default"])
        for a in battle.actions(seat)
        if a["command"]["type"] == "choose_square"
    ]


def test_the_owner_chooses_where_its_beaten_infantry_retreats() -> None:
    battle = facing_the_shootas()
    # best of 6 and 1 + CV 3 + Assaut 1 = 10 against 1 + 0: the shootas are beaten
    new = battle.execute_json(TANK_ON_SHOOTAS, A, dice=[6, 1, 1, 1])
    awaited = new[-1].event
    assert isinstance(awaited, SquareAwaited)
    assert (awaited.unit, awaited.side, awaited.why) == (SHOOTAS, "orks", "retreat")
    # straight back from the tank's front square (1, 3) first, then the two diagonals
    squares = [(s.x, s.y) for s in awaited.squares]
    assert squares[0] == (3, 3)
    assert set(squares) == {(3, 3), (3, 2), (3, 4)}
    assert battle.state.active_seat == B
    assert offered(battle, B) == [(x, y, n == 0) for n, (x, y) in enumerate(squares)]
    assert offered(battle, A) == []
    assert battle.actions(A) == []  # the attacker waits
    # nothing else meanwhile; only the owner, only a square offered
    assert refused(battle, B, {"type": "hold", "unit": NOB}).code == "waiting_square"
    assert refused(battle, A, choose(3, 2)).code == "not_your_turn"
    assert refused(battle, B, choose(2, 4)).code == "bad_square"
    assert refused(battle, B, choose(3, 2, NOB)).code == "wrong_unit"
    view = battle.view(A)["square_awaited"]
    assert (view["unit"], view["why"], view["squares"][0]) == (SHOOTAS, "retreat", [3, 3])
    done = battle.execute_json(choose(3, 4), B)
    moves = [(e.event.unit, e.event.to.x, e.event.to.y, e.event.why) for e in done
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    assert moves == [(SHOOTAS, 3, 4, "retreat"), (TANK, 2, 3, "takes the defender's square")]
    assert battle.state.placing is None
    assert battle.view(B)["square_awaited"] is None
    assert anchor(battle, SHOOTAS) == (3, 4)
    assert refused(battle, B, choose(3, 4)).code == "no_square_awaited"


def test_the_owner_chooses_where_the_vehicle_pushes_its_infantry_aside() -> None:
    battle = facing_the_shootas()
    # 1 + 3 + 1 = 5 against 5 + 0 = 5: a tie, no step [L1697-L1700]
    new = battle.execute_json(TANK_ON_SHOOTAS, A, dice=[1, 1, 5, 5])
    awaited = new[-1].event
    assert isinstance(awaited, SquareAwaited)
    assert awaited.why == "pushed aside by the vehicle"
    assert (awaited.squares[0].x, awaited.squares[0].y) == (1, 2)  # reading order first
    assert offered(battle, B)[0] == (1, 2, True)
    done = battle.execute_json(choose(3, 2), B)
    moves = [(e.event.unit, e.event.to.x, e.event.to.y) for e in done
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    assert moves == [(SHOOTAS, 3, 2), (TANK, 2, 3)]
    # the battle goes on: the Orks' token 1 (the Shootas) is due
    assert battle.state.active_seat == B
    assert any(a["command"]["type"] == "move" for a in battle.actions(B))


def test_one_open_square_is_taken_without_asking() -> None:
    """With the two diagonals taken by the Nob and the Boyz, only straight back is open."""
    made = shootas_in_front()
    spots = {NOB: Deploy(NOB, 3, 2, "W"), BOYZ1: Deploy(BOYZ1, 3, 4, "W")}
    deployment = tuple(spots.get(d.unit, d) for d in made.deployment)
    battle = BlackReachBattle.create(dataclasses.replace(made, deployment=deployment))
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    new = battle.execute_json(TANK_ON_SHOOTAS, A, dice=[6, 1, 1, 1])
    kinds = [e.event.kind for e in new]
    assert "square_awaited" not in kinds
    assert kinds[-2:] == ["forced_move", "forced_move"]
    assert anchor(battle, SHOOTAS) == (3, 3)


def test_after_an_en_alerte_answer_the_assault_waits_for_the_retreat_square() -> None:
    """An assault's move that waited for En Alerte (rulings 122): the retreat's square is
    chosen after the answer, then the attacker takes the square and the turn goes on."""
    from tests.engine.black_reach.battle import test_assault_overwatch as watch

    battle = watch.watched()
    battle.execute_json(watch.ASSAULT, A, dice=[])
    new = battle.execute_json(
        {"type": "overwatch", "unit": NOB, "after": 1}, B, dice=[1, 6, 1, 1, 1]
    )
    awaited = new[-1].event
    assert isinstance(awaited, SquareAwaited)
    assert awaited.unit == watch.SHOOTAS
    assert battle.state.pending is None
    assert battle.state.active_seat == B  # the Orks choose, though the move was the Marines'
    last = awaited.squares[-1]
    done = battle.execute_json(choose(last.x, last.y, watch.SHOOTAS), B)
    moves = [(e.event.unit, e.event.to.x, e.event.to.y) for e in done
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    assert moves == [(watch.SHOOTAS, last.x, last.y), (watch.TACTICAL, 4, 3)]
    assert battle.state.placing is None
    assert battle.state.active_seat is not None
