"""Each step of the shot and assault pipelines, with hand-computed exact fractions.

Line numbers are the seed's (shared/seeds/002_65108e9bfa55dd01.txt); readings where the rules
are silent are docs/rulings/black-reach.md.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.engine.black_reach import best_of, outcome_odds, pipeline, request_from_dict
from app.engine.black_reach.requests import Attacker, Kind, Situation, Target


def odds(kind: str, attacker: dict, target: dict, situation: dict | None = None) -> dict:
    raw: dict = {"kind": kind, "attacker": attacker, "target": target}
    if situation is not None:
        raw["situation"] = situation
    return outcome_odds(request_from_dict(raw))


# -- dice -------------------------------------------------------------------------------------


def test_best_of_one_and_two_d6() -> None:
    assert dict(best_of(1).items()) == {k: F(1, 6) for k in range(1, 7)}
    # P(best of 2 = k) = (2k - 1) / 36 [L1170-L1172: two dice, keep the best]
    assert dict(best_of(2).items()) == {k: F(2 * k - 1, 36) for k in range(1, 7)}


# -- the modified CV and the final result (§3.7, [L3159-L3178]) ------------------------------


def test_modified_cv_takes_the_moving_penalty_off_the_cv_then_adds_bonuses() -> None:
    a = Attacker(cv=4, bonuses=3, moving_penalty=2)
    assert pipeline.modified_cv(a, Kind.SHOT) == 5  # 4 - 2 + 3 [L1435-L1436]
    assert pipeline.modified_cv(a, Kind.ASSAULT) == 5


def test_suppression_fire_doubles_the_cv_and_every_bonus_with_the_moving_penalty() -> None:
    a = Attacker(cv=4, bonuses=3, moving_penalty=2, suppressed=1, penalties=1)
    # step 4 "double the current bonus" comes after steps 2-3 [L3159-L3178], [L1352-L1355]
    assert pipeline.modified_cv(a, Kind.SUPPRESSION_FIRE) == 10
    # the final-result penalties are never doubled: 2 per marker, long range 2, the rest
    assert pipeline.final_penalty(a, Situation(long_range=True)) == 2 + 2 + 1


def test_target_dv_adds_the_defence_bonuses() -> None:
    assert pipeline.target_dv(Target(dv=5, defence_bonus=2)) == 7
    with pytest.raises(ValueError):
        pipeline.target_dv(Target(cv=3))


def test_shot_outcome_thresholds() -> None:
    # >= DV: one step [L588-L590]; >= 2 x DV: Coup Double [L625-L628]
    assert [pipeline.shot_outcome(f, 5).value for f in (4, 5, 9, 10, 11)] == [
        "miss",
        "step",
        "step",
        "coup_double",
        "coup_double",
    ]


def test_suppression_markers_scale_without_maximum() -> None:
    # >= DV one marker, >= 2 x DV two, and so on, no maximum [L1357-L1367]
    assert [pipeline.suppression_markers(f, 4) for f in (-3, 3, 4, 7, 8, 12, 40)] == [
        0,
        0,
        1,
        1,
        2,
        3,
        10,
    ]


# -- shots, exact ------------------------------------------------------------------------------


def test_the_rulebook_shooting_example() -> None:
    # [L598-L605]: a 5 on the die, yellow CV +1, a +1 bonus = 7 against DV 5 + terrain 2 = 7:
    # the shot succeeds. Exact: 2 + die >= 7 needs a 5 or a 6; 14 cannot be reached.
    result = odds("shot", {"cv": 1, "bonuses": 1}, {"dv": 5, "defence_bonus": 2})
    assert result == {"miss": F(2, 3), "step": F(1, 3), "coup_double": F(0)}
    assert pipeline.shot_outcome(5 + 2, 7) is pipeline.ShotOutcome.STEP


def test_coup_double_at_twice_the_dv() -> None:
    # CV 4 against DV 4: every die reaches 4; a 4+ reaches 8 = 2 x DV
    assert odds("shot", {"cv": 4}, {"dv": 4}) == {
        "miss": F(0),
        "step": F(1, 2),
        "coup_double": F(1, 2),
    }
    # twin-linked: best of 2 >= 4 with probability 1 - (3/6)^2 = 3/4
    assert odds("shot", {"cv": 4, "dice": 2}, {"dv": 4}) == {
        "miss": F(0),
        "step": F(1, 4),
        "coup_double": F(3, 4),
    }


def test_suppressed_long_range_and_penalties_come_off_the_final_result() -> None:
    # d + 4 - 2 (one marker) - 2 (long range) - 1 = d - 1 >= 4 needs a 5 or 6
    result = odds(
        "shot",
        {"cv": 4, "suppressed": 1, "penalties": 1},
        {"dv": 4},
        {"long_range": True},
    )
    assert result == {"miss": F(2, 3), "step": F(1, 3), "coup_double": F(0)}


def test_moving_penalty_comes_off_the_cv() -> None:
    # Tir en Mouvement (-2): d + 4 - 2 >= 5 needs a 3+ [L1428-L1436]
    result = odds("shot", {"cv": 4, "moving_penalty": 2}, {"dv": 5})
    assert result == {"miss": F(1, 3), "step": F(2, 3), "coup_double": F(0)}


def test_suppression_fire_exact() -> None:
    # modified CV 2 x (2 - 1 + 1) = 4; final d + 4 - 2 (one marker, not doubled) = d + 2 in
    # 3..8 against DV 3 + 1 = 4: 3 -> 0 markers, 4..7 -> 1, 8 -> 2
    attacker = {"cv": 2, "bonuses": 1, "moving_penalty": 1, "suppressed": 1}
    target = {"dv": 3, "defence_bonus": 1}
    assert odds("suppression_fire", attacker, target) == {
        "suppressed_0": F(1, 6),
        "suppressed_1": F(2, 3),
        "suppressed_2": F(1, 6),
    }
    # the same numbers as a normal shot: d + 2 - 2 = d against 4
    assert odds("shot", attacker, target) == {"miss": F(1, 2), "step": F(1, 2), "coup_double": 0}


def test_suppression_fire_lists_every_count_up_to_the_largest() -> None:
    # d + 2 x 5 = 11..16 against DV 2: 5..8 markers; 0..4 listed at probability 0
    result = odds("suppression_fire", {"cv": 5}, {"dv": 2})
    assert list(result) == [f"suppressed_{k}" for k in range(9)]
    assert [result[f"suppressed_{k}"] for k in range(9)] == [0] * 5 + [
        F(1, 6),
        F(1, 3),
        F(1, 3),
        F(1, 6),
    ]


# -- assaults, exact (§3.12, [L1573-L1617]) ------------------------------------------------------


def test_assault_two_dice_against_one() -> None:
    # attacker best of 2, defender 1 die, no modifiers:
    # P(win) = 1/6 x sum over d of (1 - (d/6)^2) = 125/216; P(tie) = 1/6; P(loss) = 55/216
    result = odds("assault", {"cv": 0}, {"cv": 0})
    assert result == {"attacker_wins": F(125, 216), "tie": F(1, 6), "defender_wins": F(55, 216)}


def test_assault_defender_with_assaut_rolls_two() -> None:
    # both best of 2: P(tie) = sum (2k-1)^2 / 1296 = 286/1296; wins and losses share the rest
    result = odds("assault", {"cv": 0}, {"cv": 0, "has_assault": True})
    assert result == {
        "attacker_wins": F(505, 1296),
        "tie": F(143, 648),
        "defender_wins": F(505, 1296),
    }


def test_assault_modifiers_of_each_side() -> None:
    request = request_from_dict(
        {
            "kind": "assault",
            "attacker": {
                "cv": 2,
                "assault_bonus": 1,
                "support": 2,
                "bonuses": 1,
                "suppressed": 1,
                "penalties": 1,  # e.g. a barricade -1 [L800-L804]
            },
            "target": {
                "cv": 3,
                "has_assault": True,
                "assault_bonus": 1,
                "defence_bonus": 2,
                "bonuses": 1,
                "suppressed": 2,
                "penalties": 1,
            },
        }
    )
    assert pipeline.assault_modifiers(request) == (2 + 1 + 2 + 1 - 2 - 1, 3 + 2 + 1 + 1 - 4 - 1)
    assert pipeline.assault_dice(request) == (2, 2)


def test_the_rulebook_assault_example() -> None:
    # [L1577-L1590]: attacker keeps a 4, Assault +3, Support +1, card +1, and a CV of +1 that
    # the printed sum leaves out (note §8 item 11) = 10; defender keeps a 3, CV +3, Assault +1,
    # terrain +2 = 9: the attacker wins. Higher wins, equal is a tie [L1590], [L1687-L1700].
    request = request_from_dict(
        {
            "kind": "assault",
            "attacker": {"cv": 1, "assault_bonus": 3, "support": 1, "bonuses": 1},
            "target": {"cv": 3, "has_assault": True, "assault_bonus": 1, "defence_bonus": 2},
        }
    )
    attacker_mod, defender_mod = pipeline.assault_modifiers(request)
    assert (4 + attacker_mod, 3 + defender_mod) == (10, 9)
    assert pipeline.assault_outcome(10, 9) is pipeline.AssaultOutcome.ATTACKER_WINS
    assert pipeline.assault_outcome(9, 9) is pipeline.AssaultOutcome.TIE
    assert pipeline.assault_outcome(8, 9) is pipeline.AssaultOutcome.DEFENDER_WINS
