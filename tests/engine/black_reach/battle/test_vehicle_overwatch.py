"""En Alerte by a heavy vehicle with weapons (issue 16, rulings 103): the vehicle fires every
working weapon that can at the moving unit, one Shooting Action, each weapon its own roll
[L563-L577], [L1202-L1212].

The board and forces of ``test_heavy_vehicles``: the sample battle tank (main weapon CV 3
against infantry, secondary 2) on (2, 3) facing N, here given En Alerte on its face; the
Orks' Shootas (DV 4) on (5, 7) move north, in its sight.
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import UnitShot
from tests.engine.black_reach.battle.test_heavy_vehicles import NOB, SHOOTAS, TANK, order, setup

A, B = "A", "B"


def watching_setup(on_weapon: bool = False) -> BattleSetup:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tank = next(c for c in catalogue["counters"] if c["id"] == "sample-um-battle-tank")
    if on_weapon:  # En Alerte printed on the secondary weapon only
        tank["faces"][0]["weapons"][1]["abilities"].append({"id": "overwatch"})
    else:
        tank["faces"][0]["abilities"].append({"id": "overwatch"})
    return BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)


def declared(on_weapon: bool = False) -> BlackReachBattle:
    battle = BlackReachBattle.create(watching_setup(on_weapon))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    move = {"type": "move", "unit": SHOOTAS, "path": [{"x": 5, "y": 6}, {"x": 5, "y": 5}]}
    new = battle.execute_json(move, B)
    assert [e.event.kind for e in new][-1] == "move_declared"
    return battle


def shots(envelopes: Any) -> list[tuple[str | None, int, str]]:
    return [
        (e.event.weapon, e.event.final, e.event.outcome)
        for e in envelopes
        if isinstance(e.event, UnitShot)
    ]


def test_the_tank_on_overwatch_fires_every_weapon_that_can() -> None:
    battle = declared()
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "overwatch")
    assert entry["weapons"] == ["main_1", "secondary_1"]
    new = battle.execute_json({"type": "overwatch", "unit": TANK, "after": 1}, A, dice=[1, 1])
    # main 1 + 3 = 4 against DV 4: a step; secondary 1 + 2 = 3: a miss
    assert shots(new) == [("main_1", 4, "step"), ("secondary_1", 3, "miss")]
    kinds = [e.event.kind for e in new]
    assert "units_activated" in kinds
    assert TANK in battle.state.activated
    # the Shootas go on to the end of their path
    placed = battle.state.units[SHOOTAS].placement
    assert placed is not None
    assert placed.anchor.y == 5


def test_en_alerte_on_one_weapon_fires_that_weapon() -> None:
    battle = declared(on_weapon=True)
    new = battle.execute_json({"type": "overwatch", "unit": TANK, "after": 2}, A, dice=[6])
    assert [w for w, _, _ in shots(new)] == ["secondary_1"]
