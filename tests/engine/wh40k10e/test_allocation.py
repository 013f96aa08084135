"""Allocation lines: order, excess damage, spill-over, CHARACTER last, Precision."""

from __future__ import annotations

from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import Target, TargetGroup


def _layout() -> Layout:
    return Layout(
        Target(
            models=2,
            toughness=4,
            save=3,
            wounds=2,
            groups=(
                TargetGroup("Captain", 1, 4, 2, 4, 5, ("CHARACTER",)),
                TargetGroup("Sergeant", 1, 3, 3),
            ),
        )
    )


def test_order_main_then_groups_then_characters() -> None:
    lay = _layout()
    assert [s.group for s in lay.bodyguard] == ["main", "main", "Sergeant"]
    assert [s.group for s in lay.characters] == ["Captain"]
    assert (lay.B, lay.C, lay.total_wounds, lay.total_models) == (7, 4, 11, 4)
    assert not lay.uniform_feel_no_pain()


def test_excess_damage_is_lost_at_the_model() -> None:
    # [L1788–L1796]: 3 damage on a 2-W model destroys it; the next model is untouched
    lay = _layout()
    line, slot = lay.slot_for_attack(0, 0, precision=False)  # type: ignore[misc]
    assert (line, slot.group) == (0, "main")
    assert lay.after_damage(0, 0, 0, 3) == (2, 0)
    assert lay.after_damage(1, 0, 0, 1) == (2, 0)  # the wounded model takes it
    assert lay.models_destroyed(2, 0) == 1


def test_mortal_wounds_spill_over_into_the_character_last() -> None:
    # [L1816–L1824], RULINGS 14
    lay = _layout()
    assert lay.after_mortal(1, 0, 3) == (4, 0)
    assert lay.after_mortal(5, 0, 5) == (7, 3)
    assert lay.after_mortal(5, 0, 50) == (7, 4)
    assert lay.wiped(7, 4)
    assert lay.destroyed_by_group(7, 3) == {"main": 2, "Sergeant": 1, "Captain": 0}


def test_character_only_after_bodyguard_or_with_precision() -> None:
    lay = _layout()
    assert lay.slot_for_attack(0, 0, precision=False)[1].group == "main"  # type: ignore[index]
    assert lay.slot_for_attack(0, 0, precision=True)[1].group == "Captain"  # type: ignore[index]
    assert lay.slot_for_attack(7, 1, precision=False)[1].group == "Captain"  # type: ignore[index]
    assert lay.slot_for_attack(7, 4, precision=True) is None
    # Precision with the character dead goes back to the bodyguard
    assert lay.slot_for_attack(4, 4, precision=True)[1].group == "Sergeant"  # type: ignore[index]


def test_wounds_remaining() -> None:
    lay = _layout()
    assert [left for _, left in lay.wounds_remaining(3, 1)] == [0, 1, 3, 3]
