"""Dice expressions: grammar, bounds, exact distributions, rolling."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.engine.dice import MAX_CONSTANT, MAX_DICE, DiceExpr
from app.engine.distributions import Dist
from app.engine.errors import DiceExpressionError
from app.engine.roller import Roller


@pytest.mark.parametrize(
    ("text", "count", "sides", "const", "shown"),
    [
        ("2", 0, 0, 2, "2"),
        ("D3", 1, 3, 0, "D3"),
        ("d6", 1, 6, 0, "D6"),
        ("2D6", 2, 6, 0, "2D6"),
        ("D6+1", 1, 6, 1, "D6+1"),
        (" d3 + 3 ", 1, 3, 3, "D3+3"),
        ("2D3", 2, 3, 0, "2D3"),
        ("1D6", 1, 6, 0, "D6"),
        (5, 0, 0, 5, "5"),
    ],
)
def test_parse(text: str | int, count: int, sides: int, const: int, shown: str) -> None:
    e = DiceExpr.parse(text)
    assert (e.count, e.sides, e.constant) == (count, sides, const)
    assert str(e) == shown


@pytest.mark.parametrize(
    "text",
    [
        "",
        "D7",
        "D4",
        "banana",
        "11D6",
        "0D6",
        "D6-1",
        "2D",
        "101",
        "D6+101",
        "D6+1+1",
        "x" * 40,
        True,
    ],
)
def test_rejects_bad_or_out_of_bounds(text: object) -> None:
    with pytest.raises(DiceExpressionError) as err:
        DiceExpr.parse(text)  # type: ignore[arg-type]
    assert "dice expression" in str(err.value)


def test_bounds_are_accepted_at_the_limit() -> None:
    assert DiceExpr.parse(f"{MAX_DICE}D6+{MAX_CONSTANT}").max == MAX_DICE * 6 + MAX_CONSTANT


def test_d3_is_ceil_d6_over_2() -> None:
    # RULINGS 2 / [L633–L635]: uniform over 1..3
    assert DiceExpr.parse("D3").dist() == Dist.die(6).map(lambda v: (v + 1) // 2)
    assert DiceExpr.parse("D3+3").dist().items() == [(v, Fraction(1, 3)) for v in (4, 5, 6)]


def test_dist_of_2d6() -> None:
    d = DiceExpr.parse("2D6").dist()
    assert d.prob(7) == Fraction(6, 36)
    assert DiceExpr.parse("D6+1").dist().mean() == Fraction(9, 2)


def test_roll_records_each_die() -> None:
    r = Roller.from_values([4, 6])
    assert DiceExpr.parse("2D6+1").roll(r, "attacks") == 11
    assert [d.value for d in r.records] == [4, 6]
    assert DiceExpr.parse("3").roll(r, "attacks") == 3  # a constant rolls nothing
    assert len(r.records) == 2
