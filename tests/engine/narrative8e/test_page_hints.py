"""What the engine offers the page for the match's own narrative effects (ruling 97): Covered
Advance with a unit yet to move, the attacks on and by buildings only when legal."""

from __future__ import annotations

from typing import Any

from app.engine.wh40k10e.battle import Seat
from app.engine.wh40k10e.battle.views import narrative_actions
from tests.engine.narrative8e.test_effects_engine import _blitz_movement


def covered(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        a["command"]
        for a in actions
        if a["command"]["type"] == "use_mission_stratagem"
        and a["command"]["stratagem"] == "covered-advance"
    ]


def test_covered_advance_is_offered_naming_a_unit_of_yours_yet_to_move() -> None:
    bt = _blitz_movement()
    (hint,) = covered(narrative_actions(bt.state, Seat.A))
    assert hint["target"] == "a1"
    assert covered(narrative_actions(bt.state, Seat.B)) == []  # not B's Movement phase
    bt.execute_json({"type": "move", "unit": "a1", "mode": "normal"}, "A", dice=[])
    (hint,) = covered(narrative_actions(bt.state, Seat.A))
    assert hint["target"] == "a2"  # a1 has moved: the next one
    bt.execute_json({"type": "move", "unit": "a2", "mode": "normal"}, "A", dice=[])
    (hint,) = covered(narrative_actions(bt.state, Seat.A))
    assert hint.get("target") is None  # nobody left to Advance: used with no unit named


def test_no_building_attack_or_shot_is_offered_without_buildings() -> None:
    bt = _blitz_movement()
    kinds = {a["command"]["type"] for s in (Seat.A, Seat.B) for a in narrative_actions(bt.state, s)}
    assert not kinds & {"attack_building", "building_shoots", "support_fire"}
