"""The extreme method [L269-L275]: for the units of a conflict, the phases come back inside
the pass: every move, then the shots and runs, then the charges; the other orders of the
pass wait for it."""

import pytest

from app.engine.dynamics import DynamicsBattle
from app.engine.match.errors import Refusal
from tests.engine.dynamics.test_battle_json import created, place, send


def at_pass_four() -> DynamicsBattle:
    battle = created()
    send(battle, "A", {"type": "start_turn"}, lambda b: b.state.battle.night)
    place(battle, "A", {"tac": "assault", "dev": "fire"})
    place(battle, "B", {"inf": "fire", "vet": "fire", "rhino": "forced_march"})
    send(battle, "B", {"type": "reveal_order", "unit": "inf", "target": "dev"})
    send(battle, "B", {"type": "reveal_order", "unit": "rhino"})
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "vet"})
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    send(battle, "A", {"type": "reveal_order", "unit": "dev", "target": "inf"})
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    return battle


def refused(battle: DynamicsBattle, seat: str, data: dict[str, object]) -> str:
    with pytest.raises(Refusal) as err:
        send(battle, seat, data)
    return err.value.code


def test_moves_then_shots_then_charges() -> None:
    battle = at_pass_four()
    assert refused(battle, "A", {"type": "extreme_method", "units": ["tac", "dev"]}) == (
        "bad_extreme"  # a conflict is between both players' units
    )
    offered = [a["command"] for a in battle.legal_actions("A")]
    assert {"type": "extreme_method", "units": ["dev", "tac", "vet"]} in offered
    send(battle, "A", {"type": "extreme_method", "units": ["tac", "vet"]})
    assert battle.state.extreme == ("tac", "vet")
    # the move phase: dev waits, tac cannot shoot yet
    assert refused(battle, "A", {"type": "end_order", "unit": "dev"}) == "extreme_method"
    shot = {"type": "shoot", "unit": "vet", "target": "tac", "weapon": "lasgun"}
    shot |= {"range_inches": 10, "half_range": True}
    send(battle, "A", {"type": "move", "unit": "tac", "speed": "normal", "inches": 5})
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    assert battle.state.to_act == "B"
    assert refused(battle, "B", shot) == "extreme_phase"
    send(battle, "B", {"type": "end_order", "unit": "vet"})
    # the shooting phase
    assert battle.state.extreme_phase == "shoot"
    assert battle.state.to_act == "A"
    charge = {"type": "charge", "unit": "tac", "target": "vet", "distance": 5}
    assert refused(battle, "A", charge) == "extreme_phase"
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    send(battle, "B", shot)
    send(battle, "B", {"type": "end_order", "unit": "vet"})
    # the charge phase: tac charges; vet (a Fire order) has nothing left but to end
    assert battle.state.extreme_phase == "charge"
    if (
        battle.state.battle.units["tac"].on_table
        and not battle.state.battle.units["tac"].retreating
    ):
        send(battle, "A", charge)
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    send(battle, "B", {"type": "end_order", "unit": "vet"})
    assert battle.state.extreme == ()
    assert battle.state.slots["tac"].resolved
    assert battle.state.slots["vet"].resolved
    # the rest of the pass as usual
    assert battle.state.to_act == "A"
    send(battle, "A", {"type": "end_order", "unit": "dev"})
    assert battle.state.step == 3
    kinds = [e.event.kind for e in battle.envelopes]
    assert kinds.count("extreme_phase_done") == 4
    assert kinds.count("extreme_ended") == 1
