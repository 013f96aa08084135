"""The remaining §9.1 tables: exact odds against a brute-force count over every die face, and
hand cases from the seed lines."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.black_reach.board import Intercase
from app.engine.black_reach.tables import (
    ArmourColour,
    DamageMarker,
    SniperEffect,
    VehicleDamage,
    absorb_steps,
    armour_save_odds,
    crushing_points,
    damage_location,
    damage_location_odds,
    destruction_points,
    dispersion_odds,
    hull_suppressed,
    instable_odds,
    perils_odds,
    ram_odds,
    ram_value,
    sniper_effect,
    sniper_odds,
    structure_destroyed,
    tile_broken,
)

FACES = range(1, 7)


def count(predicate: object, dice: int = 1) -> Fraction:
    """The brute-force oracle: the share of all 6^dice face tuples where ``predicate`` holds."""
    rolls = list(product(FACES, repeat=dice))
    return Fraction(sum(1 for r in rolls if predicate(*r)), len(rolls))  # type: ignore[operator]


def test_sniper_table_by_hand() -> None:
    # [L1331-L1338]: 1 nothing; 2-3 Suppressed; 4-5 a step; 6+ a step and Suppressed
    assert [sniper_effect(r) for r in range(8)] == [
        SniperEffect.NOTHING,
        SniperEffect.NOTHING,
        SniperEffect.SUPPRESSED,
        SniperEffect.SUPPRESSED,
        SniperEffect.STEP,
        SniperEffect.STEP,
        SniperEffect.STEP_AND_SUPPRESSED,
        SniperEffect.STEP_AND_SUPPRESSED,
    ]
    assert sniper_odds() == {
        "nothing": Fraction(1, 6),
        "suppressed": Fraction(1, 3),
        "step": Fraction(1, 3),
        "step_and_suppressed": Fraction(1, 6),
    }
    # a table on the tile replaces it [L1339-L1340]
    assert sniper_odds(table=[(5, SniperEffect.STEP)]) == {
        "nothing": Fraction(2, 3),
        "step": Fraction(1, 3),
    }


@given(st.integers(0, 3), st.integers(0, 4))
def test_sniper_odds_equal_the_oracle(suppressed: int, obstacles: int) -> None:
    # the roll takes Suppressed markers and obstacles [L1328-L1329]
    odds = sniper_odds(suppressed, obstacles)
    assert sum(odds.values()) == 1
    for effect in SniperEffect:
        expected = count(lambda d, e=effect: sniper_effect(d - 2 * suppressed - obstacles) is e)
        assert odds.get(effect.value, Fraction(0)) == expected


def test_ram_values_and_odds() -> None:
    # [L1133-L1135]: DV for a heavy vehicle, half rounded up for a light one; strictly higher
    assert ram_value(8, heavy=True) == 8
    assert ram_value(5, heavy=False) == 3
    assert ram_odds(8, True, 8, True) == Fraction(15, 36)
    assert ram_odds(8, True, 5, False) == count(lambda a, b: a + 8 > b + 3, dice=2)


@given(st.integers(1, 10), st.booleans(), st.integers(1, 10), st.booleans(), st.integers(0, 2))
def test_ram_odds_equal_the_oracle(a: int, ah: bool, b: int, bh: bool, s: int) -> None:
    va, vb = (a if ah else -(-a // 2)), (b if bh else -(-b // 2))
    expected = count(lambda x, y: x + va - 2 * s > y + vb, dice=2)
    assert ram_odds(a, ah, b, bh, rammer_suppressed=s) == expected


def test_instable() -> None:
    # [L2003-L2009]: >= N works; below, the activation is lost; a 1 also a step
    assert instable_odds(3) == {
        "lost_and_step": Fraction(1, 6),
        "lost": Fraction(1, 6),
        "works": Fraction(2, 3),
    }
    assert instable_odds(1)["works"] == 1
    # Suppressed -2 (note §8 item 5): 1, 2 and 3 now give 1 or less
    assert instable_odds(4, suppressed=1)["lost_and_step"] == Fraction(1, 2)


def test_perils() -> None:
    # Librarian [L2817-L2823]: <= 1 draws a marker
    assert perils_odds(1, 0, weirdboy=False) == {"works": Fraction(1)}
    assert perils_odds(1, 1, weirdboy=False) == {
        "draw_marker": Fraction(1, 3),
        "works": Fraction(2, 3),
    }
    # Weirdboy [L2891-L2918]: <= 1 explodes, 2-3 a step, >= 4 works
    assert perils_odds(1, 0, weirdboy=True) == {
        "step": Fraction(1, 3),
        "works": Fraction(2, 3),
    }
    # two markers: d + 1 - 4; 1-4 explode, 5-6 a step
    assert perils_odds(1, 2, weirdboy=True) == {
        "explodes": Fraction(2, 3),
        "step": Fraction(1, 3),
    }


@given(st.integers(0, 6))
def test_destruction_points_equal_the_oracle(dice: int) -> None:
    # [L1186]: each die at 4 or more is one point
    dist = destruction_points(dice)
    for k in range(dice + 1):
        assert dist.prob(k) == count(lambda *r, k=k: sum(1 for v in r if v >= 4) == k, dice)


def test_dispersion() -> None:
    # [L1458-L1469]: 1-4 scatter by N in the printed direction, 5-6 on target
    target = Intercase(5, 5)
    dirs = [(0, -1), (1, 0), (0, 1), (-1, 0)]
    odds = dispersion_odds(target, dirs, 2)
    assert odds[target] == Fraction(1, 3)
    assert odds[Intercase(5, 3)] == Fraction(1, 6)
    assert sum(odds.values()) == 1
    # a Sighum spotter takes 1 off the distance [L1318-L1322]
    assert Intercase(5, 4) in dispersion_odds(target, dirs, 2, spotter=True)
    assert dispersion_odds(target, dirs, 1, spotter=True) == {target: Fraction(1)}
    # no dispersion diagram: always on target [L1470-L1477]
    assert dispersion_odds(target, None, 3) == {target: Fraction(1)}
    with pytest.raises(ValueError):
        dispersion_odds(target, dirs[:3], 1)


def test_armour_saves() -> None:
    # [L1869-L1888]: 1 die >= N; yellow only with a card; none against Perforant/Perçant
    assert armour_save_odds(4, ArmourColour.GREEN) == Fraction(1, 2)
    assert armour_save_odds(4, ArmourColour.YELLOW) is None
    assert armour_save_odds(4, ArmourColour.YELLOW, card_played=True) == Fraction(1, 2)
    assert armour_save_odds(5, ArmourColour.GREEN, piercing=True) is None
    assert armour_save_odds(5, ArmourColour.GREEN, suppressed=1) == Fraction(0)
    assert armour_save_odds(4, ArmourColour.GREEN, bonus=1) == count(lambda d: d + 1 >= 4)


SAMPLE_SET = {
    1: DamageMarker.LOCOMOTION,
    2: DamageMarker.LOCOMOTION,
    3: DamageMarker.HULL,
    4: DamageMarker.SECONDARY_WEAPON,
    5: DamageMarker.MAIN_WEAPON,
    6: DamageMarker.EXPLOSION,
}


def test_damage_location() -> None:
    # [L663-L668] die + modifiers (Perforant +1 [L1272-L1275]), clamped (note §8 item 26)
    assert damage_location(6, 1) == 6
    assert damage_location(1, -2) == 1
    odds = damage_location_odds(SAMPLE_SET, modifier=1)
    assert odds == {
        "locomotion": Fraction(1, 6),
        "hull": Fraction(1, 6),
        "secondary_weapon": Fraction(1, 6),
        "main_weapon": Fraction(1, 6),
        "explosion": Fraction(1, 3),
    }
    with pytest.raises(ValueError):
        damage_location_odds({1: DamageMarker.HULL})


def test_vehicle_damage_markers() -> None:
    # [L693-L699]: a second marker of one kind, or an Explosion, makes a wreck
    v = VehicleDamage().take(DamageMarker.LOCOMOTION)
    assert v.immobilised
    assert not v.wreck
    assert v.take(DamageMarker.HULL).wreck is False
    assert v.take(DamageMarker.LOCOMOTION).wreck
    assert VehicleDamage().take(DamageMarker.EXPLOSION).wreck
    assert hull_suppressed() == 2
    assert hull_suppressed(grot_rigger=True) == 1


def test_hit_points_breaking_points_structures() -> None:
    # [L2243-L2255]: one marker per step, two against a Coup Double
    assert absorb_steps(1, 2) == (0, 1)
    assert absorb_steps(2, 1) == (1, 0)
    assert absorb_steps(2, 0) == (2, 0)
    # [L639-L647]: Breaking Point 1 by default
    assert tile_broken(1)
    assert not tile_broken(1, breaking_point=2)
    # [L1186-L1194], [L368-L376]
    assert structure_destroyed(3, 3)
    assert not structure_destroyed(2, 3)
    assert [crushing_points(n) for n in range(4)] == [0, 1, 2, 2]
