"""Mekaniak, Grot Oiler and Techmarine in the Black Reach battle (issue 16, rulings 102): a
mechanic readied beforehand changes the location roll of an allied heavy vehicle within 3
squares, the first one that comes while he is not yet activated nor Suppressed, and takes an
Activated marker [L1831-L1859], [L1890-L1902].

The board is built here: 8 x 8, no terrain. The sample battle tank (DV 8) on (2, 3) facing N;
the squad's Sergeant on (1, 1) is given the mechanic's ability of each test, the Tactical
squad on (0, 1) the Grot Oiler's when a test says so. The Orks' Shootas on (5, 7) are given
CV 4 against heavy vehicles: they shoot through the tank's rear edge (+2). The sample Damage
set "grey": 1 Locomotion, 2 Hull, 3 Secondary weapon, 4 Hull, 5 Main weapon, 6 Explosion!
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import DamageLocated, RepairUsed, UnitsActivated
from app.engine.match.errors import Refusal

TANK = "ultramarines:tiles[0]/0:sample-um-battle-tank"
SERGEANT = "ultramarines:tiles[1]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[1]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[1]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}


def setup(
    mechanic: str,
    *,
    oiler: bool = False,
    sergeant: tuple[int, int] = (1, 1),
    tank: tuple[int, int] = (2, 3),
) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-shootas"]["faces"][0]["cv"]["heavy_vehicle"] = 4
    counters["sample-ork-nob"]["faces"][0]["cv"]["heavy_vehicle"] = 4
    counters["sample-um-sergeant"]["faces"][0]["abilities"].append({"id": mechanic})
    if oiler:
        counters["sample-um-tactical"]["faces"][0]["abilities"].append({"id": "grot_oiler"})
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-repairs",
        "name": "Test repairs",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "orks",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [3, 7]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [{"tile": "sample-um-armour"}, {"tile": "sample-um-squad"}],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [5, 0], "to": [7, 7]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(TANK, *tank, "N"),
        Deploy(SERGEANT, *sergeant, "N"),
        Deploy(TACTICAL, 0, 1, "N"),
        Deploy(BOLTER, 0, 6, "N"),
        Deploy(NOB, 6, 4, "W"),
        Deploy(BOYZ1, 7, 0, "W"),
        Deploy(BOYZ2, 7, 1, "W"),
        Deploy(SHOOTAS, 5, 7, "W"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(mechanic: str, **kw: Any) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(mechanic, **kw))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TANK, 1), order(SERGEANT, 2), order(TACTICAL, 3)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


def ready(battle: BlackReachBattle, modifier: int = 0, pick: str = "") -> None:
    battle.execute_json(
        {"type": "ready_repair", "unit": SERGEANT, "modifier": modifier, "pick": pick}, A
    )


def shoot_tank(battle: BlackReachBattle, dice: list[int]) -> list[Any]:
    """The Shootas' shot: 6 + CV 4 + 2 (rear) = 12 against DV 8, a step; then the location."""
    new = battle.execute_json({"type": "shoot", "unit": SHOOTAS, "target": TANK}, B, dice=dice)
    return [e.event for e in new]


def located(events: list[Any]) -> DamageLocated:
    return next(e for e in events if isinstance(e, DamageLocated))


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat)
    assert battle.version == version
    return info.value


def test_without_a_mechanic_the_roll_is_the_die() -> None:
    battle = ordered("mekaniak")
    events = shoot_tank(battle, [6, 6])
    assert (located(events).result, located(events).marker) == (6, "explosion")
    assert not any(isinstance(e, RepairUsed) for e in events)


def test_a_mekaniak_lowers_the_roll_by_one_and_is_activated() -> None:
    battle = ordered("mekaniak")
    ready(battle, -1)
    events = shoot_tank(battle, [6, 6])
    used = next(e for e in events if isinstance(e, RepairUsed))
    assert (used.unit, used.vehicle, used.modifier, used.oiler) == (SERGEANT, TANK, -1, None)
    assert next(e for e in events if isinstance(e, UnitsActivated)).units == (SERGEANT,)
    loc = located(events)
    assert (loc.modifier, loc.result, loc.marker) == (-1, 5, "main_weapon")
    assert SERGEANT in battle.state.activated
    assert SERGEANT not in battle.state.repairs  # used: readied again another time


def test_a_grot_oiler_lets_the_mekaniak_change_it_by_two() -> None:
    battle = ordered("mekaniak", oiler=True)
    ready(battle, -2)
    events = shoot_tank(battle, [6, 6])
    assert next(e for e in events if isinstance(e, UnitsActivated)).units == (SERGEANT, TACTICAL)
    assert (located(events).result, located(events).marker) == (4, "hull")


def test_without_a_grot_oiler_two_is_one() -> None:
    battle = ordered("mekaniak")
    ready(battle, -2)
    events = shoot_tank(battle, [6, 6])
    assert located(events).result == 5


def test_a_techmarine_adds_a_die_and_his_side_keeps_one() -> None:
    battle = ordered("techmarine")
    ready(battle, pick="low")
    events = shoot_tank(battle, [6, 6, 2])
    loc = located(events)
    assert loc.roll.values == (6, 2)
    assert (loc.result, loc.marker) == (2, "hull")


def test_a_mechanic_too_far_or_already_activated_does_not_act() -> None:
    battle = ordered("mekaniak", sergeant=(0, 0), tank=(3, 6))  # 6 squares from the tank
    ready(battle, -1)
    assert located(shoot_tank(battle, [6, 6])).result == 6
    # a Sergeant that has already played his token this turn
    battle = BlackReachBattle.create(setup("mekaniak"))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(SERGEANT, 1), order(TANK, 2), order(TACTICAL, 3)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    ready(battle, -1)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    new = battle.execute_json({"type": "shoot", "unit": NOB, "target": TANK}, B, dice=[6, 6])
    events = [e.event for e in new]
    assert located(events).result == 6
    assert not any(isinstance(e, RepairUsed) for e in events)


def test_bad_readying_is_refused() -> None:
    battle = ordered("mekaniak")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"unit": TACTICAL, "modifier": -1}, "no_mechanic"),
        ({"unit": SERGEANT, "modifier": 0}, "bad_repair"),
        ({"unit": SERGEANT, "modifier": 3}, "bad_repair"),
        ({"unit": SERGEANT, "pick": "low"}, "bad_repair"),
        ({"unit": NOB, "modifier": -1}, "not_your_unit"),
    ]
    for fields, code in cases:
        assert refused(battle, A, {"type": "ready_repair", **fields}).code == code
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "ready_repair")
    assert (entry["command"]["unit"], entry["readied"]) == (SERGEANT, None)
