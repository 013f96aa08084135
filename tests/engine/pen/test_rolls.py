"""The other rolls of the game (note §5.10), exact fractions worked out by hand."""

from fractions import Fraction

import pytest

from app.engine.pen import rolls
from app.engine.pen.tables import OutflankEdge
from app.engine.roller import Roller

# number of 2D6 results <= k, for k = 2..12
AT_MOST = {2: 1, 3: 3, 4: 6, 5: 10, 6: 15, 7: 21, 8: 26, 9: 30, 10: 33, 11: 35, 12: 36}


@pytest.mark.parametrize(
    ("ld", "malus", "expected", "why"),
    [
        (7, 0, Fraction(21, 36), "2D6 <= 7 [L121]"),
        (8, 0, Fraction(26, 36), "2D6 <= 8"),
        (10, 0, Fraction(33, 36), "2D6 <= 10"),
        (10, 2, Fraction(26, 36), "malus 2: 2D6 <= 8 [L1252]"),
        (2, 0, Fraction(1, 36), "only a double 1 [L122]"),
        (3, 5, Fraction(1, 36), "impossible but double 1 passes [L122]"),
        (12, 0, Fraction(35, 36), "double 6 always fails [L122]"),
        (None, 4, Fraction(1), "no Ld: automatic pass [L123]"),
    ],
)
def test_leadership_test(ld: int | None, malus: int, expected: Fraction, why: str) -> None:
    assert rolls.ld_test(ld, malus) == expected, why


@pytest.mark.parametrize("ld", range(2, 13))
def test_leadership_matches_the_2d6_table(ld: int) -> None:
    expected = Fraction(AT_MOST[ld] - (1 if ld == 12 else 0), 36)
    assert rolls.ld_test(ld) == expected


def test_morale_test_rules() -> None:
    assert rolls.morale_test(8, 3) == Fraction(AT_MOST[5], 36)
    assert rolls.morale_test(8, 3, stubborn=True) == Fraction(26, 36)  # [L434]
    assert rolls.morale_test(2, 9, fearless=True) == 1  # [L455]


def test_live_leadership_test_doubles() -> None:
    assert rolls.ld_test_procedure(Roller.from_values([1, 1]), 2, 5)  # double 1 passes
    assert not rolls.ld_test_procedure(Roller.from_values([6, 6]), 10, -5)  # double 6 fails
    roller = Roller.from_values([3, 4])
    assert rolls.ld_test_procedure(roller, 8, 1)  # 7 <= 7
    assert [r.label for r in roller.records] == ["Ld test", "Ld test"]


@pytest.mark.parametrize(
    ("value", "malus", "expected"),
    [
        (4, 0, Fraction(4, 6)),
        (1, 0, Fraction(1, 6)),
        (6, 0, Fraction(5, 6)),
        (10, 0, Fraction(5, 6)),
        (3, 5, Fraction(1, 6)),
        (None, 0, Fraction(1)),
    ],
)
def test_characteristic_test(value: int | None, malus: int, expected: Fraction) -> None:
    # D6 <= value; a 6 always fails, a 1 always passes [L118-L123]
    assert rolls.characteristic_test(value, malus) == expected


@pytest.mark.parametrize(
    ("turn", "p"),
    [
        (1, Fraction(1, 3)),
        (2, Fraction(1, 2)),
        (3, Fraction(2, 3)),
        (4, Fraction(5, 6)),
        (5, Fraction(1)),
        (8, Fraction(1)),
    ],
)
def test_reserve_arrival(turn: int, p: Fraction) -> None:
    assert rolls.reserve_arrival(turn) == p  # 5+, 4+, 3+, 2+, automatic [L861-L865]


def test_reserve_arrival_turn() -> None:
    d = rolls.reserve_arrival_turn()
    assert d.prob(1) == Fraction(1, 3)
    assert d.prob(2) == Fraction(2, 3) * Fraction(1, 2)
    assert d.prob(3) == Fraction(1, 3) * Fraction(2, 3)
    assert d.prob(4) == Fraction(1, 9) * Fraction(5, 6)
    assert d.prob(5) == Fraction(1, 54)


def test_dawn() -> None:
    assert rolls.dawn_probability(1) == Fraction(1, 6)  # 6 [L951]
    assert rolls.dawn_probability(2) == Fraction(2, 3)  # 3+ [L952]
    assert rolls.dawn_probability(5) == Fraction(5, 6)  # 2+ [L953]
    d = rolls.dawn_round()
    assert d.prob(1) == Fraction(1, 6)
    assert d.prob(2) == Fraction(5, 6) * Fraction(2, 3)
    assert d.prob(3) == Fraction(5, 6) * Fraction(1, 3) * Fraction(5, 6)
    assert d.prob(8) == Fraction(5, 6) * Fraction(1, 3) * Fraction(1, 6) ** 5


def test_game_length() -> None:
    d = rolls.game_length()  # [L826]
    assert d.items() == [(5, Fraction(1, 3)), (6, Fraction(4, 9)), (7, Fraction(2, 9))]


def test_outflank() -> None:
    assert rolls.outflank() == {
        OutflankEdge.LEFT: Fraction(1, 3),
        OutflankEdge.RIGHT: Fraction(1, 3),
        OutflankEdge.CHOSEN: Fraction(1, 3),
    }


def test_scatter() -> None:
    ds = rolls.deep_strike_scatter()  # hit face 1/3: none; arrow: 2D6 [L888-L889]
    assert ds.prob(0) == Fraction(1, 3)
    assert ds.prob(7) == Fraction(2, 3) * Fraction(6, 36)
    assert rolls.blast_scatter().mean() == 7  # 2D6 [L534]
    assert rolls.blast_scatter(shooter_within_12=True).mean() == Fraction(7, 2)
    assert rolls.bomb_scatter().max == 6  # [L651]
    assert rolls.teleport_scatter(18) == rolls.teleport_scatter(0)
    assert rolls.teleport_scatter(18).prob(0) == 1  # [L467]
    assert rolls.teleport_scatter(20).mean() == Fraction(2, 3) * Fraction(7, 2)
    assert rolls.teleport_scatter(40).mean() == Fraction(2, 3) * 7
    assert rolls.teleport_scatter(5, sees_destination=False).mean() == Fraction(2, 3) * 7


@pytest.mark.parametrize(
    ("pursuer", "fleeing", "expected"),
    [
        (4, 4, Fraction(21, 36)),
        (4, 3, Fraction(26, 36)),
        (1, 6, Fraction(1, 36)),
        (2, 8, Fraction(0)),
        (6, 1, Fraction(1)),
    ],
)
def test_sweeping_advance(pursuer: int, fleeing: int, expected: Fraction) -> None:
    # caught when D6 + I (fleeing) <= D6 + I (pursuers) [L1258]
    assert rolls.sweep_caught(pursuer, fleeing) == expected


def test_small_tests() -> None:
    assert rolls.psychic_test(9) == (Fraction(30, 36), Fraction(1, 36))  # [L442-L444]
    assert rolls.dangerous_terrain() == Fraction(1, 6)  # [L728]
    assert rolls.dangerous_terrain(lost_a_wound=True) == Fraction(11, 36)  # [L1158]
    assert rolls.d6_at_least(6) == Fraction(1, 6)  # overheat 6 [L694]
    assert rolls.d6_at_least(5) == Fraction(1, 3)  # regeneration 5+ [L453]
    assert rolls.first_player_win() == Fraction(1, 2)  # [L832]
