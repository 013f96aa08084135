"""A mutual assault's first round: in one pass both units have the charge bonus, a later
pass's target has none [Dyn L96-L98] (dynamics rulings D16). The dice are given by hand: every
blow misses, so the number of to-hit dice is the number of attacks (A1, +1 for a charge)."""

from typing import Any

import pytest

from app.engine.dynamics import DynamicsBattle
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec
from tests.engine.dynamics.support import GUARD, LASGUN, MARINE, replayed
from tests.engine.dynamics.test_battle_json import place as place_orders
from tests.engine.dynamics.test_battle_json import send

FIGHT = {"type": "fight", "unit": "tac", "target": "vet"}


def battle_with(vet_initiative: int) -> DynamicsBattle:
    """Five Marines (I4) and five Guard veterans, their Assault orders naming each other."""
    a = ArmySpec("A", "Marines", (UnitSpec("tac", "Tactical", 100, 5, MARINE, troops=True),))
    vet = GUARD | {"initiative": vet_initiative}
    b = ArmySpec("B", "Guard", (UnitSpec("vet", "Veterans", 70, 5, vet, (LASGUN,)),))
    setup = DynamicsSetup(BattleSetup((a, b), points_limit=300, objectives=1))
    battle = DynamicsBattle.create(setup)
    battle.execute_json({"type": "end_step"}, "A")
    battle.execute_json({"type": "end_step"}, "B")
    battle.execute_json({"type": "roll_off"}, "B", dice=[5, 2])
    battle.execute_json({"type": "choose_first", "seat": "A"}, "A")
    for seat, unit in (("A", "tac"), ("B", "vet")):
        battle.execute_json({"type": "deploy", "unit": unit}, seat)
        battle.execute_json({"type": "end_step"}, seat)
    send(battle, "A", {"type": "start_turn"}, lambda b: b.state.battle.night)
    place_orders(battle, "A", {"tac": "assault"})
    place_orders(battle, "B", {"vet": "assault"})
    return battle


def act_first(battle: DynamicsBattle) -> None:
    """A wins the advantage of the pass and acts first: the Marines charge."""
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "charge", "unit": "tac", "target": "vet", "distance": 4})


def to_hit_dice(envelopes: list[Any]) -> int:
    fought = next(e.event for e in envelopes if e.event.kind == "combat_fought")
    return sum(1 for d in fought.roll.dice if d.label == "to hit")


def test_in_one_pass_the_charged_unit_also_has_the_charge_bonus() -> None:
    battle = battle_with(vet_initiative=4)
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "vet"})
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    act_first(battle)
    with pytest.raises(Refusal) as err:  # 5 x 2 and 5 x 1 attacks would leave 5 dice
        battle.fork().execute_json(FIGHT, "A", dice=[1] * 20 + [1] * 5)
    assert err.value.code == "unused_dice"
    # I4 both: 5 Marines x (1 + 1) and 5 veterans x (1 + 1) [Dyn L96], all 1s: all miss
    new = battle.execute_json(FIGHT, "A", dice=[1] * 20)
    assert to_hit_dice(new) == 20
    units = battle.state.battle.units
    assert (units["tac"].models, units["vet"].models) == (5, 5)
    assert "vet" in units["tac"].locked  # a draw: both hold, round 2 comes with vet's order
    assert replayed(battle).state == battle.state


def test_a_target_acting_in_a_later_pass_strikes_without_the_bonus() -> None:
    battle = battle_with(vet_initiative=3)  # the veterans' order is resolved in pass 3
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "vet"})
    # pass 4 holds the Marines' order alone: no advantage test, they charge
    send(battle, "A", {"type": "charge", "unit": "tac", "target": "vet", "distance": 4})
    # pass 4: the Marines alone have the bonus [Dyn L98]: 5 x 2 and 5 x 1 attacks, all miss
    new = battle.execute_json(FIGHT, "A", dice=[1] * 15)
    assert to_hit_dice(new) == 15
    assert replayed(battle).state == battle.state
