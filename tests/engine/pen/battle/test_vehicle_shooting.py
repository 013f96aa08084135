"""A PEN vehicle shoots in a battle with its own BS [L103] (which also drives the hit location
on an enemy vehicle [L1420]); its weapon type does not matter after a normal move and a rapid
move leaves it only snap fire [L202-L207]. Dice given by hand; replay equals live."""

from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, WeaponSpec
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff, StartTurn
from app.engine.pen.requests import request_from_dict
from tests.engine.pen.battle.profiles import MARINE

PREDATOR: dict[str, Any] = {
    "armour": {"front": 13, "side": 11, "rear": 10},
    "hull_points": 3,
    "types": ["tank"],
    "bs": 3,
}
RHINO: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}
LASCANNON = WeaponSpec("lascannon", {"kind": "ranged", "type": "heavy 1", "strength": 9, "ap": 2})


def battle_with(predator: dict[str, Any]) -> PenBattle:
    a = ArmySpec("A", "Alpha", (UnitSpec("pred", "Predator", 100, 1, predator, (LASCANNON,)),))
    b = ArmySpec(
        "B",
        "Beta",
        (UnitSpec("tac", "Tactical", 100, 5, MARINE), UnitSpec("rhino", "Rhino", 50, 1, RHINO)),
    )
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    for seat in ("A", "B"):
        for unit in battle.state.seat_units(seat):
            battle.execute(Deploy(unit.id), seat)
        battle.execute(EndStep(), seat)
    battle.execute(StartTurn(), "A", dice=[6])  # dawn on a 6
    return battle


def shoot(battle: PenBattle, dice: list[int], target: str = "tac", **extra: Any) -> list[Any]:
    """The dice of the shot."""
    command = {
        "type": "shoot",
        "unit": "pred",
        "target": target,
        "weapon": "lascannon",
        "range_inches": 24,
        **extra,
    }
    envelopes = battle.execute_json(command, "A", dice=dice)
    return [d for e in envelopes if e.event.kind == "unit_shot" for d in e.event.roll.dice]


def test_the_calculator_takes_a_vehicle_profile_with_its_bs() -> None:
    request = request_from_dict(
        {
            "attacker": {"models": 1, "bs": 4},
            "weapon": {"type": "heavy 1", "strength": 9, "ap": 2},
            "target": PREDATOR,
        }
    )
    assert request.target.bs == 3  # type: ignore[union-attr]
    with pytest.raises(Exception, match="bs"):
        request_from_dict(
            {
                "attacker": {"models": 1, "bs": 4},
                "weapon": {"type": "heavy 1", "strength": 9, "ap": 2},
                "target": PREDATOR | {"bs": 11},
            }
        )


def test_a_vehicle_shoots_with_its_own_bs() -> None:
    battle = battle_with(PREDATOR)
    shoot(battle, [3])  # BS3 hits on 4+ [L1302]: a 3 misses (BS4 would hit and roll on)
    assert battle.state.units["tac"].models == 5
    battle = battle_with(PREDATOR)
    shoot(battle, [4, 2])  # a hit; S9 vs T4 wounds on 2+; AP2 beats the 3+ save
    assert battle.state.units["tac"].models == 4
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_a_vehicle_without_bs_is_refused_by_name() -> None:
    battle = battle_with({k: v for k, v in PREDATOR.items() if k != "bs"})
    with pytest.raises(Refusal) as err:
        shoot(battle, [4])
    assert err.value.code == "bad_attack"
    assert err.value.details["errors"][0]["field"] == "attacker.bs"


def test_a_vehicle_fires_its_heavy_weapon_after_a_normal_move() -> None:
    battle = battle_with(PREDATOR)
    battle.execute_json({"type": "move", "unit": "pred", "speed": "normal", "inches": 6}, "A")
    shoot(battle, [4, 2])  # not snap fire (BS1: 6) although the lascannon is heavy
    assert battle.state.units["tac"].models == 4


def test_a_vehicle_only_snap_fires_after_a_rapid_move() -> None:
    battle = battle_with(PREDATOR)
    battle.execute_json({"type": "move", "unit": "pred", "speed": "rapid", "inches": 12}, "A")
    shoot(battle, [5])  # snap fire: BS3 // 2 = 1, hits on 6 only [L517]
    assert battle.state.units["tac"].models == 5
    # a flyer fires all its weapons after a rapid move [L202-L207]
    battle = battle_with(PREDATOR | {"types": ["flyer"]})
    battle.execute_json({"type": "move", "unit": "pred", "speed": "rapid", "inches": 12}, "A")
    shoot(battle, [4, 2])
    assert battle.state.units["tac"].models == 4


def test_the_hit_location_on_an_enemy_vehicle_adds_the_vehicles_bs() -> None:
    battle = battle_with(PREDATOR)
    # a hit (4), S9 + 3 = 12 against front armour 11: penetrating; location 1 + BS3; damage 1
    dice = shoot(battle, [4, 3, 1, 1], target="rhino")
    (location,) = [d for d in dice if d.label == "hit location"]
    assert location.modifier == 3
