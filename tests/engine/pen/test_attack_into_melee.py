"""Shooting into a melee through the calculator's request shape [L1130-L1134], [L1329].

Two flags split what ``target_locked_in_combat`` did alone: ``target_in_melee`` drops the
range and speed modifiers whatever the sizes [L1329]; ``into_melee_malus`` is the -1 BS when
the target is not twice the friendly squads in the combat [L1132]. The old flag is still
accepted and keeps its first reading: both (docs/rulings/pen.md B22).
"""

from fractions import Fraction
from typing import Any

import pytest

from app.engine.errors import ProfileError
from app.engine.pen import analyze, request_from_dict
from app.engine.pen.attack import plan_attack, shooting_bs

GUARD = {
    "models": 5,
    "ws": 3,
    "bs": 3,
    "strength": 3,
    "toughness": 3,
    "initiative": 3,
    "leadership": 7,
    "save": 5,
}
LASGUN = {"name": "lasgun", "type": "rapid fire", "shots": 1, "strength": 3}
MARINES = {"models": 10, "ws": 4, "toughness": 4, "initiative": 4, "leadership": 8, "save": 3}
# the Marines moved 20 ps and the shot is at half range: -2 and +1 without [L1329]
MOVED_AT_HALF_RANGE = {"target_moved": 20, "half_range": True}


def bs_of(situation: dict[str, Any]) -> tuple[int, tuple[tuple[str, int], ...]]:
    request = request_from_dict(
        {"attacker": GUARD, "weapon": LASGUN, "target": MARINES, "situation": situation}
    )
    bs, mods, _notes = shooting_bs(request)
    return bs, mods


def test_a_target_twice_the_friends_drops_range_and_speed_without_the_malus() -> None:
    # BS 3 with no modifier at all: the -2 (moved 20 ps) and +1 (half range) are dropped
    # because the target is in a combat [L1329]; no -1 as it is twice the friends [L1132]
    assert bs_of(MOVED_AT_HALF_RANGE | {"target_in_melee": True}) == (3, ())


def test_a_target_smaller_than_twice_the_friends_takes_the_malus_only() -> None:
    bs, mods = bs_of(MOVED_AT_HALF_RANGE | {"target_in_melee": True, "into_melee_malus": True})
    assert (bs, mods) == (2, (("target locked in combat", -1),))


def test_the_malus_alone_still_drops_range_and_speed() -> None:
    # a -1 for shooting into a melee only exists against a squad in a combat
    assert bs_of(MOVED_AT_HALF_RANGE | {"into_melee_malus": True})[0] == 2


def test_the_old_flag_keeps_its_reading_malus_and_no_range_or_speed() -> None:
    assert bs_of(MOVED_AT_HALF_RANGE | {"target_locked_in_combat": True}) == bs_of(
        MOVED_AT_HALF_RANGE | {"target_in_melee": True, "into_melee_malus": True}
    )


def test_a_free_target_keeps_its_range_and_speed_modifiers() -> None:
    bs, mods = bs_of(MOVED_AT_HALF_RANGE)
    assert (bs, mods) == (2, (("target moved > 18 ps", -2), ("half range", 1)))


def test_the_friendly_fire_note_shows_with_either_flag() -> None:
    for flag in ("target_in_melee", "into_melee_malus", "target_locked_in_combat"):
        request = request_from_dict(
            {"attacker": GUARD, "weapon": LASGUN, "target": MARINES, "situation": {flag: True}}
        )
        assert any("[L1132]" in note for note in plan_attack(request).notes), flag


def test_the_exact_analysis_of_both_cases() -> None:
    # 5 lasguns at half range: 10 shots (only the BS modifiers ignore the range [L1329])
    situation = MOVED_AT_HALF_RANGE | {"target_in_melee": True}
    data = {"attacker": GUARD, "weapon": LASGUN, "target": MARINES, "situation": situation}
    free = analyze(request_from_dict(data | {"situation": MOVED_AT_HALF_RANGE}))
    in_melee = analyze(request_from_dict(data))
    smaller = analyze(
        request_from_dict(data | {"situation": situation | {"into_melee_malus": True}})
    )
    assert in_melee.stages["hits"].mean() == Fraction(5)  # BS 3: 4+
    assert free.stages["hits"].mean() == Fraction(10, 3)  # BS 3 - 2 + 1 = 2: 5+
    assert smaller.stages["hits"].mean() == Fraction(10, 3)  # BS 3 - 1 = 2: 5+


def test_a_flag_that_is_not_a_boolean_is_refused() -> None:
    with pytest.raises(ProfileError) as err:
        bs_of({"target_in_melee": "yes"})
    assert err.value.field == "situation.target_in_melee"
