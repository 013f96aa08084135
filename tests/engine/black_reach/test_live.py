"""One live roll: the dice the rules roll, recorded with their seed, and what they give."""

from __future__ import annotations

from app.engine import registry, systems
from app.engine.black_reach import SYSTEM_ID, request_from_dict, resolve
from app.engine.roller import Roller

SHOT = {
    "kind": "shot",
    "attacker": {"cv": 1, "bonuses": 1},
    "target": {"dv": 5, "defence_bonus": 2},
}
EXAMPLE_ASSAULT = {
    "kind": "assault",
    "attacker": {"cv": 1, "assault_bonus": 3, "support": 1, "bonuses": 1},
    "target": {"cv": 3, "has_assault": True, "assault_bonus": 1, "defence_bonus": 2},
}


def test_the_rulebook_shooting_example_rolled_by_hand() -> None:
    # [L598-L605]: a 5, +1 CV, +1 bonus = 7 against 5 + 2: one step
    roller = Roller.from_values([5])
    result = resolve(request_from_dict(SHOT), roller)
    assert result.extra["outcome"] == "step"
    assert result.totals["result"] == 7
    assert result.totals["target_dv"] == 7
    assert result.totals["steps"] == 1
    (die,) = result.dice
    assert (die.value, die.modifier, die.modified, die.outcome) == (5, 2, 7, "step")
    assert result.target_after.wounds_lost == 1
    assert result.target_after.models_destroyed == 0


def test_coup_double_destroys_at_once() -> None:
    raw = {"kind": "shot", "attacker": {"cv": 4}, "target": {"dv": 4}}
    result = resolve(request_from_dict(raw), Roller.from_values([4]))
    assert result.extra["outcome"] == "coup_double"
    assert result.target_after.models_destroyed == 1
    assert result.target_after.wiped


def test_twin_linked_keeps_the_best_die_and_marks_the_other() -> None:
    raw = {"kind": "shot", "attacker": {"cv": 1, "dice": 2}, "target": {"dv": 6}}
    result = resolve(request_from_dict(raw), Roller.from_values([2, 6]))
    assert [d.outcome for d in result.dice] == ["not kept", "step"]
    assert result.totals["best_die"] == 6
    assert result.steps[0].dice == (0, 1)


def test_suppression_fire_places_markers() -> None:
    # 2 x (2 - 1 + 1) = 4; a 6 + 4 - 2 = 8 against DV 4: two markers, no step
    raw = {
        "kind": "suppression_fire",
        "attacker": {"cv": 2, "bonuses": 1, "moving_penalty": 1, "suppressed": 1},
        "target": {"dv": 3, "defence_bonus": 1},
    }
    result = resolve(request_from_dict(raw), Roller.from_values([6]))
    assert result.extra == {"outcome": "suppressed_2", "suppressed": 2}
    assert result.totals["suppressed"] == 2
    assert result.target_after.wounds_lost == 0


def test_the_rulebook_assault_example_rolled_by_hand() -> None:
    # [L1577-L1590]: attacker 4 and 1 (keeps 4), defender 3 and 2 (keeps 3): 10 against 9
    result = resolve(request_from_dict(EXAMPLE_ASSAULT), Roller.from_values([4, 1, 3, 2]))
    assert result.extra["outcome"] == "attacker_wins"
    assert (result.totals["attacker_total"], result.totals["defender_total"]) == (10, 9)
    assert [(d.label, d.outcome) for d in result.dice] == [
        ("attacker die", "wins"),
        ("attacker die", "not kept"),
        ("defender die", "loses"),
        ("defender die", "not kept"),
    ]
    assert result.totals["defender_steps"] == 1
    assert result.totals["attacker_steps"] == 0


def test_a_defender_without_assaut_rolls_one_die() -> None:
    raw = {"kind": "assault", "attacker": {"cv": 0}, "target": {"cv": 0}}
    roller = Roller.from_values([3, 2, 3])
    result = resolve(request_from_dict(raw), roller)
    assert roller.remaining_given == 0
    assert result.extra["outcome"] == "tie"
    assert result.totals["attacker_steps"] == result.totals["defender_steps"] == 0


def test_the_same_seed_gives_the_same_dice() -> None:
    first = resolve(request_from_dict(EXAMPLE_ASSAULT), Roller(1234))
    again = resolve(request_from_dict(EXAMPLE_ASSAULT), Roller(1234))
    assert first.seed == again.seed == 1234
    assert first.dice == again.dice
    assert first.extra == again.extra


def test_registered_with_combat_and_match() -> None:
    systems.load_all()
    system = registry.get(SYSTEM_ID)
    assert system.capabilities == ("combat.analyze", "combat.resolve", "match")
    assert system.analyze_combat is not None
    assert system.resolve_combat is not None
