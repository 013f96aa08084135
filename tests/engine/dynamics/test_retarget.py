"""A Tactical Move shoots its declared target, or another one if it passes a Leadership test
first; a vehicle with no Leadership cannot try [L31]."""

import pytest

from app.engine.dynamics import DynamicsBattle
from app.engine.match.errors import Refusal
from tests.engine.dynamics.test_battle_json import created, place, send


def at_pass_four() -> DynamicsBattle:
    game = created()
    send(game, "A", {"type": "start_turn"}, lambda b: b.state.battle.night)
    place(game, "A", {"tac": "tactical_move", "dev": "fire"})
    place(game, "B", {"inf": "fire", "vet": "fire", "rhino": "tactical_move"})
    send(game, "B", {"type": "reveal_order", "unit": "inf", "target": "dev"})
    send(game, "B", {"type": "reveal_order", "unit": "rhino", "target": "tac"})
    send(game, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(game, "A", {"type": "choose_starter", "seat": "A"})
    send(game, "A", {"type": "reveal_order", "unit": "tac", "target": "inf"})
    send(game, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    send(game, "A", {"type": "reveal_order", "unit": "dev", "target": "inf"})
    send(game, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(game, "A", {"type": "choose_starter", "seat": "A"})
    return game


def shot(unit: str, target: str, weapon: str) -> dict[str, object]:
    return {"type": "shoot", "unit": unit, "target": target, "weapon": weapon} | {
        "range_inches": 10,
        "half_range": True,
    }


def test_a_passed_leadership_test_changes_the_target() -> None:
    game = at_pass_four()
    offered = [a["command"] for a in game.legal_actions("A")]
    assert {"type": "retarget", "unit": "tac", "target": "vet"} in offered
    game.execute_json({"type": "retarget", "unit": "tac", "target": "vet"}, "A", dice=[3, 3])
    assert game.state.slots["tac"].declaration.target == "vet"
    with pytest.raises(Refusal) as err:  # one test
        game.execute_json({"type": "retarget", "unit": "tac", "target": "rhino"}, "A", dice=[1, 1])
    assert err.value.code == "no_retarget"
    with pytest.raises(Refusal) as err:
        send(game, "A", shot("tac", "inf", "bolter"))
    assert err.value.code == "declared_target"
    send(game, "A", shot("tac", "vet", "bolter"))


def test_a_failed_test_keeps_the_declared_target() -> None:
    game = at_pass_four()
    game.execute_json({"type": "retarget", "unit": "tac", "target": "vet"}, "A", dice=[6, 5])
    assert game.state.slots["tac"].declaration.target == "inf"
    with pytest.raises(Refusal):
        send(game, "A", shot("tac", "vet", "bolter"))


def test_a_vehicle_without_leadership_cannot_try() -> None:
    game = at_pass_four()
    for unit in ("tac", "dev"):
        send(game, "A", {"type": "end_order", "unit": unit})
        if game.state.to_act == "B" and game.state.step == 4:
            send(game, "B", {"type": "end_order", "unit": "vet"})
    assert (game.state.step, game.state.to_act) == (3, "B")
    with pytest.raises(Refusal) as err:
        game.execute_json({"type": "retarget", "unit": "rhino", "target": "dev"}, "B", dice=[1, 1])
    assert err.value.code == "no_leadership"
