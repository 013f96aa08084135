"""Dice procedures: the exact enumerator and the table-code roller (RULINGS "pen", [L1288])."""

from fractions import Fraction

import pytest

from app.engine.pen.codes import RollCode
from app.engine.pen.procedures import Dice, enumerate_outcomes, roll_code
from app.engine.roller import Roller


def test_enumerator_two_d6_sum() -> None:
    out = enumerate_outcomes(lambda d: d.roll(6, "a") + d.roll(6, "b"))
    assert out[7] == Fraction(6, 36)
    assert out[2] == Fraction(1, 36)
    assert sum(out.values()) == 1


def test_enumerator_dice_count_depends_on_faces() -> None:
    # roll again only on a 6: P(total = 7) = 1/36, P(6) = 0 (a 6 always continues)
    def proc(d: Dice) -> int:
        first = d.roll(6, "x")
        return first + d.roll(6, "y") if first == 6 else first

    out = enumerate_outcomes(proc)
    assert out[1] == Fraction(1, 6)
    assert 6 not in out
    assert out[7] == Fraction(1, 36)
    assert sum(out.values()) == 1


def test_enumerator_mixed_sides() -> None:
    out = enumerate_outcomes(lambda d: d.roll(3, "d3") * 10 + d.roll(6, "d6"))
    assert len(out) == 18
    assert all(p == Fraction(1, 18) for p in out.values())


ALL_CODES = ["6", "5+", "4+", "3+", "2+", "2+ re", "6/4+", "2+ re 4+"]


@pytest.mark.parametrize("text", ALL_CODES)
def test_roll_code_matches_the_code_probability(text: str) -> None:
    code = RollCode.parse(text)
    out = enumerate_outcomes(lambda d: roll_code(d, code, "x").success)
    assert out.get(True, Fraction(0)) == code.probability()


@pytest.mark.parametrize(
    ("text", "reroll_failed", "reroll_ones", "expected"),
    [
        ("4+", True, False, Fraction(3, 4)),  # Blessant: 1/2 + 1/2 * 1/2
        ("4+", False, True, Fraction(1, 2) + Fraction(1, 6) * Fraction(1, 2)),  # Ennemi juré
        ("2+ re", True, True, Fraction(35, 36)),  # one re-roll per die only (pen rulings 1)
        ("6", True, False, Fraction(11, 36)),
        # "6/4+" with Blessant: each roll re-rolled once: (11/36) * (3/4)
        ("6/4+", True, False, Fraction(11, 36) * Fraction(3, 4)),
        # "6/4+" with Ennemi juré: (1/6 + 1/6*1/6) * (1/2 + 1/6*1/2)
        ("6/4+", False, True, Fraction(7, 36) * Fraction(7, 12)),
    ],
)
def test_roll_code_with_rerolls(
    text: str, reroll_failed: bool, reroll_ones: bool, expected: Fraction
) -> None:
    code = RollCode.parse(text)
    out = enumerate_outcomes(
        lambda d: (
            roll_code(d, code, "x", reroll_failed=reroll_failed, reroll_ones=reroll_ones).success
        )
    )
    assert out[True] == expected


def test_first_hook_decides_before_the_confirm_roll() -> None:
    code = RollCode.parse("6/4+")
    out = enumerate_outcomes(
        lambda d: roll_code(d, code, "x", first_hook=lambda f: True if f == 6 else None).success
    )
    assert out[True] == Fraction(1, 6)


def test_live_roll_records_the_reroll() -> None:
    roller = Roller.from_values([1, 5])
    result = roll_code(roller, RollCode.parse("2+ re"), "to hit", words=("hit", "miss"))
    assert result.success
    assert result.natural == 5
    (record,) = roller.records
    assert record.original == 1
    assert record.value == 5
    assert record.outcome == "hit"


def test_live_confirm_roll_is_recorded_separately() -> None:
    roller = Roller.from_values([6, 3])
    result = roll_code(roller, RollCode.parse("6/4+"), "to wound")
    assert not result.success
    assert [r.label for r in roller.records] == ["to wound", "to wound (second roll)"]
