"""To-wound, cover, saves and Feel No Pain steps, with exact fractions (note §5.4-§5.7)."""

from fractions import Fraction

import pytest

from app.engine.pen.codes import RollCode
from app.engine.pen.procedures import enumerate_outcomes
from app.engine.pen.wounds import (
    LossPlan,
    Wound,
    WoundPlan,
    better_ap,
    cover_procedure,
    loss_outcomes,
    wound_outcomes,
)


def test_plain_wound_roll() -> None:
    out = wound_outcomes(WoundPlan(RollCode(4), ap=5))  # S4 vs T4: 4+ [L1381]
    assert out == {Wound(5, False): Fraction(1, 2), None: Fraction(1, 2)}


def test_rend_six_wounds_at_ap2() -> None:
    # [L683] a 6 wounds automatically at PA2; 2+ cell: faces 2-5 normal, 6 PA2
    out = wound_outcomes(WoundPlan(RollCode(2), ap=4, rend=True))
    assert out[Wound(4, False)] == Fraction(4, 6)
    assert out[Wound(2, False)] == Fraction(1, 6)
    assert out[None] == Fraction(1, 6)


def test_rend_on_six_four_cell_needs_no_second_roll() -> None:
    # S3 vs T6 is "6/4+" [L1380]; Perforant's 6 wounds regardless of T [L683] (pen rulings 2)
    out = wound_outcomes(WoundPlan(RollCode.parse("6/4+"), ap=5, rend=True))
    assert out[Wound(2, False)] == Fraction(1, 6)
    assert out[None] == Fraction(5, 6)


def test_rend_keeps_a_better_ap() -> None:
    assert better_ap(1, 2) == 1
    assert better_ap(None, 2) == 2
    assert better_ap(4, None) == 4
    out = wound_outcomes(WoundPlan(RollCode(4), ap=1, rend=True))
    assert set(out) == {Wound(1, False), None}


def test_ignite_six_is_mortelle() -> None:
    # [L660] each 6 to wound inflicts a mortelle wound
    out = wound_outcomes(WoundPlan(RollCode(4), ap=2, ignite=True))
    assert out[Wound(2, True)] == Fraction(1, 6)
    assert out[Wound(2, False)] == Fraction(2, 6)
    without = wound_outcomes(WoundPlan(RollCode.parse("6/4+"), ap=2))
    assert without[Wound(2, False)] == Fraction(1, 12)  # note §5.1: "6/4+" = 1/12
    with_ignite = wound_outcomes(WoundPlan(RollCode.parse("6/4+"), ap=2, ignite=True))
    assert with_ignite[Wound(2, True)] == Fraction(1, 6)


def test_reroll_failed_wounds() -> None:
    out = wound_outcomes(WoundPlan(RollCode(5), ap=None, reroll_failed=True))  # Blessant [L649]
    assert out[Wound(None, False)] == Fraction(1, 3) + Fraction(2, 3) * Fraction(1, 3)


def test_mortelle_flag_on_every_wound() -> None:
    out = wound_outcomes(WoundPlan(RollCode(2), ap=2, mortelle=True))  # S >= 2T [L1391]
    assert out == {Wound(2, True): Fraction(5, 6), None: Fraction(1, 6)}


@pytest.mark.parametrize(
    ("cover", "p_saved"),
    [
        (3, Fraction(2, 3)),
        (4, Fraction(1, 2)),
        (5, Fraction(1, 3)),
        (6, Fraction(1, 6)),
        (2, Fraction(5, 6)),
    ],
)
def test_cover_save(cover: int, p_saved: Fraction) -> None:
    out = enumerate_outcomes(lambda d: cover_procedure(d, cover))
    assert out[True] == p_saved  # [L1365], natural 1 fails [L1288]


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        # 4+ save, no FNP: lose 1 on a failed save
        (LossPlan(RollCode(4), None, 1), {0: Fraction(1, 2), 1: Fraction(1, 2)}),
        # no save, FNP 5+ (S = T [L426]): lose 1 on 1-4
        (LossPlan(None, 5, 1), {0: Fraction(1, 3), 1: Fraction(2, 3)}),
        # 3+ save then FNP 4+ (S < T): lose 1 on (1/3)(1/2)
        (LossPlan(RollCode(3), 4, 1), {0: Fraction(5, 6), 1: Fraction(1, 6)}),
        # mortelle: 2 W [L677], no FNP [L428]
        (LossPlan(RollCode(5), None, 2), {0: Fraction(1, 3), 2: Fraction(2, 3)}),
        # 2+ re 4+ [L1412]: fail = 1/6 * 1/2
        (LossPlan(RollCode(2, 4), None, 1), {0: Fraction(11, 12), 1: Fraction(1, 12)}),
    ],
)
def test_loss_outcomes(plan: LossPlan, expected: dict[int, Fraction]) -> None:
    assert loss_outcomes(plan) == expected
