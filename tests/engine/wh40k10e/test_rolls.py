"""The other rolls: exact distributions (hand-computed) and live rolls from the same rules."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.roller import Roller
from app.engine.wh40k10e import rolls

F = Fraction


def test_charge() -> None:
    # 2D6 [L2413–L2416]; P(2D6 >= 7) = 21/36; 4.5" needs 5
    assert rolls.charge_distance() == Dist.die(6) + Dist.die(6)
    assert rolls.charge_success_probability(7) == F(21, 36)
    assert rolls.charge_needed(4.5) == 5
    assert rolls.charge_success_probability(F(9, 2)) == F(30, 36)
    assert rolls.charge_success_probability(0) == 1
    assert rolls.charge_success_probability(13) == 0
    r = Roller.from_values([3, 4])
    assert rolls.roll_charge(r, 7) == 7
    assert r.records[0].outcome == "charge succeeds"
    with pytest.raises(ProfileError):
        rolls.charge_needed(-1)


def test_battle_shock() -> None:
    # 2D6 >= best Ld [L785–L792]: Ld 7+ passes 21/36
    assert rolls.battle_shock_pass_probability(7) == F(21, 36)
    assert rolls.battle_shock_pass_probability(2) == 1
    assert not rolls.roll_battle_shock(Roller.from_values([1, 5]), 7)
    assert rolls.roll_battle_shock(Roller.from_values([6, 1]), 7)
    with pytest.raises(ProfileError):
        rolls.battle_shock_pass_probability(13)


def test_advance() -> None:
    assert rolls.advance() == Dist.die(6)  # [L983–L989]
    assert rolls.roll_advance(Roller.from_values([4])) == 4


def test_desperate_escape() -> None:
    # each 1-2 destroys a model [L1023–L1026]: the seed's example 1, 2, 4, 4, 6 -> 2
    assert rolls.desperate_escape(5) == Dist.binomial(5, F(1, 3))
    assert rolls.roll_desperate_escape(Roller.from_values([1, 2, 4, 4, 6]), 5) == 2


def test_hazardous() -> None:
    # one test per Hazardous weapon, fails on 1 [L2278–L2309]
    assert rolls.hazardous(5).prob(0) == F(5, 6) ** 5
    assert rolls.hazardous(2, mortal_wounds_per_failure=3).support() == [0, 3, 6]
    assert rolls.roll_hazardous(Roller.from_values([1, 3, 1, 6, 2]), 5) == 2


def test_deadly_demise() -> None:
    # on a 6, D3 mortal wounds to each unit within 6", rolled per unit [L1876–L1893]
    d = rolls.deadly_demise("D3")
    assert d.prob(0) == F(5, 6)
    assert d.prob(2) == F(1, 18)
    assert rolls.roll_deadly_demise(Roller.from_values([6, 1, 3, 2]), "D3", 3) == [1, 3, 2]
    assert rolls.roll_deadly_demise(Roller.from_values([5]), "D3", 3) == [0, 0, 0]


def test_destroyed_transport() -> None:
    # [L1318–L1320] 1 MW per 1; Emergency [L1354–L1356] per 1-3; example 1,3,3,5,6 -> 1
    assert rolls.destroyed_transport(5) == Dist.binomial(5, F(1, 6))
    assert rolls.destroyed_transport(5, emergency=True) == Dist.binomial(5, F(1, 2))
    assert rolls.roll_destroyed_transport(Roller.from_values([1, 3, 3, 5, 6]), 5) == 1


def test_grenade() -> None:
    # six D6, each 4+ is a mortal wound [L3396–L3399]
    assert rolls.grenade() == Dist.binomial(6, F(1, 2))
    assert rolls.grenade().mean() == 3
    assert rolls.roll_grenade(Roller.from_values([1, 4, 6, 3, 5, 2])) == 3


def test_tank_shock() -> None:
    # S dice, +2 if S > T, each 5+ a mortal wound, at most 6 [L3414–L3420]
    assert rolls.tank_shock_dice(6, 5) == 8
    assert rolls.tank_shock_dice(6, 6) == 6
    d = rolls.tank_shock(10, 4)  # 12 dice
    assert d.max == 6
    assert d.prob(6) == sum(
        F(math.comb(12, k)) * F(1, 3) ** k * F(2, 3) ** (12 - k) for k in range(6, 13)
    )
    assert rolls.roll_tank_shock(Roller.from_values([5] * 8), 6, 5) == 6
    with pytest.raises(ProfileError):
        rolls.tank_shock(0, 4)
