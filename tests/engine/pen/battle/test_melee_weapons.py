"""A squad fights with each model's own close-combat weapon in a PEN battle: attacks batched by
weapon [L1274-L1282], each batch at its weapon's Initiative (a power fist at I1 [L609]); the
named weapons' models fall last (pen rulings B28). Dice given by hand; replay equals live;
a fight without ``weapons`` (older logs) is fought as before."""

from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, WeaponSpec
from app.engine.pen.battle.commands import (
    Charge,
    ChooseFirst,
    Deploy,
    EndPhase,
    EndStep,
    Fight,
    RollOff,
    StartTurn,
    WeaponGroup,
)
from app.engine.pen.battle.game import command_from_json
from tests.engine.pen.battle.profiles import GUARD, MARINE

FIST = WeaponSpec("fist", {"kind": "melee", "type": "Gantelet énergétique"})
BOLTER = WeaponSpec("bolter", {"kind": "ranged", "type": "rapid fire", "strength": 4, "ap": 5})


def charged(models: int = 5) -> PenBattle:
    """Five Marines (a sergeant with a power fist, the others with the squad's close-combat
    weapon) have charged five Guardsmen."""
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, models, MARINE, (BOLTER, FIST)),))
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 50, 5, GUARD),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    for seat, unit in (("A", "tac"), ("B", "inf")):
        battle.execute(Deploy(unit), seat)
        battle.execute(EndStep(), seat)
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 3), "A")
    return battle


def labels(battle: PenBattle, command: dict[str, Any], dice: list[int]) -> list[tuple[str, int]]:
    envelopes = battle.execute_json(command, "A", dice=dice)
    return [(d.label, d.value) for e in envelopes for d in getattr(e.event, "roll", None).dice]


FIGHT = {"type": "fight", "unit": "tac", "target": "inf"}


def test_the_sergeants_power_fist_strikes_at_i1_with_its_own_profile() -> None:
    battle = charged()
    dice = [
        *[1] * 8,  # I4: four Marines x (1 + 1 charging) with the squad's weapon: all miss
        *[1] * 5,  # I3: five Guardsmen strike back: all miss
        *[3, 3],  # I1: the power fist, 2 A: WS4 vs WS3 hits on 3+ [L1349]
        *[2, 2],  # S4 x 2 = 8 against T3: wounds on 2+; AP2: no 5+ save
        *[1, 1],  # B lost 2 to 0: morale at -2, 2 <= 7 - 2: passed
    ]
    command = FIGHT | {"weapons": [{"unit": "tac", "weapon": "fist", "models": 1}]}
    rolled = labels(battle, command, dice)
    assert [v for label, v in rolled if label == "to hit"] == [1] * 13 + [3, 3]
    assert battle.state.units["inf"].models == 3
    assert battle.state.units["tac"].models == 5
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_the_fist_is_lost_only_with_the_last_model() -> None:
    """Two Marines: the Guardsmen kill one at I3; the owner removes the plain model, so the
    fist still strikes at I1 (with the old single weapon, the last model would strike with
    the squad's weapon)."""
    battle = charged(models=2)
    dice = [
        *[1, 1],  # I4: one Marine with the squad's weapon, 2 A: miss
        *[4, 1, 1, 1, 1],  # I3: Guardsmen need 4+: one hit
        *[6],  # S3 vs T4: wounds on 5+
        *[1],  # the 3+ save fails: one Marine dies
        *[3, 1],  # I1: the fist, 2 A: one hit
        *[2],  # wounds on 2+, no save: one Guardsman dies
        # 1 casualty each: a draw, no morale test
    ]
    command = FIGHT | {"weapons": [{"unit": "tac", "weapon": "fist"}]}
    labels(battle, command, dice)
    assert battle.state.units["tac"].models == 1
    assert battle.state.units["inf"].models == 4


def test_a_fight_without_weapons_decodes_as_before_and_keeps_one_weapon() -> None:
    assert command_from_json(FIGHT) == Fight("tac", "inf")
    battle = charged()
    # five Marines x 2 A, all at I4 with the squad's weapon, then the Guardsmen's 5
    rolled = labels(battle, FIGHT, [1] * 15)
    assert len([v for label, v in rolled if label == "to hit"]) == 15


@pytest.mark.parametrize(
    "groups",
    [
        [WeaponGroup("tac", "bolter")],  # a ranged weapon
        [WeaponGroup("tac", "axe")],  # no such weapon
        [WeaponGroup("inf", "fist")],  # not that squad's weapon
        [WeaponGroup("tac", "fist", 6)],  # more models than the squad has
        [WeaponGroup("tac", "fist", 0)],
        [WeaponGroup("tac", "fist"), WeaponGroup("tac", "fist")],
        [WeaponGroup("nobody", "fist")],
    ],
)
def test_bad_weapon_groups_are_refused_by_name(groups: list[WeaponGroup]) -> None:
    battle = charged()
    with pytest.raises(Refusal) as err:
        battle.execute(Fight("tac", "inf", weapons=tuple(groups)), "A", dice=[1] * 20)
    assert err.value.code == "bad_weapons"
