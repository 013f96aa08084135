"""A flamer fired from a transport (issue 16, rulings 111): a unit aboard fires from one of
the transport's squares [L2040-L2042], named with the command (``x``, ``y``) when the
transport has several; the transport itself is neither attacked nor in the flame's way.

test_flamer's board: the Ultramarines' transport on (4, 3) facing S (its rear (4, 2)), the
Tactical squad on (3, 3), given the flamer "F" too, gets in during turn 1; the Orks'
Shootas stand on (5, 3).
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import FlamerFired, UnitShot
from tests.engine.black_reach.battle.test_flamer import (
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    TRANSPORT,
    order,
    refused,
    setup,
)

A, B = "A", "B"


def aboard() -> BlackReachBattle:
    base = setup(transport=(4, 3))
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tactical = next(c for c in catalogue["counters"] if c["id"] == "sample-um-tactical")
    tactical["faces"][0]["abilities"].append({"id": "flamer", "param": "F"})
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TACTICAL, 1), order(SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "move", "unit": TACTICAL, "path": [], "embark": TRANSPORT}, A)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.state.units[TACTICAL].embarked_in == TRANSPORT
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


def flame(**kw: Any) -> dict[str, Any]:
    return {"type": "flame", "unit": TACTICAL, "facing": "E", **kw}


def test_a_unit_aboard_flames_from_the_transport_square_it_names() -> None:
    battle = aboard()
    # the transport has two squares: which one is asked, and it must be one of them
    assert refused(battle, A, flame(), dice=[6]).code == "flame_square"
    assert refused(battle, A, flame(x=3, y=3), dice=[6]).code == "flame_square"
    assert refused(battle, A, flame(x=4), dice=[6]).code == "flame_square"
    # from (4, 3) east: (5, 3) and on; the Shootas attacked, 4 + CV 3 = 7 against DV 4
    new = battle.execute_json(flame(x=4, y=3), A, dice=[4])
    fired = next(e.event for e in new if isinstance(e.event, FlamerFired))
    assert fired.targets == (SHOOTAS,)
    assert all((s.x, s.y) not in {(4, 3), (4, 2)} for s in fired.squares)
    shot = next(e.event for e in new if isinstance(e.event, UnitShot))
    assert (shot.unit, shot.target, shot.final) == (TACTICAL, SHOOTAS, 7)
    assert battle.state.units[TACTICAL].embarked_in == TRANSPORT


def test_a_unit_on_the_board_names_no_other_square() -> None:
    battle = aboard()
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    command = {"type": "flame", "unit": SHOOTAS, "facing": "W", "x": 5, "y": 4}
    assert refused(battle, B, command, dice=[6]).code == "flame_square"
