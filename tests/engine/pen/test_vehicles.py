"""Armour penetration, hit location and the damage tables (note §5.8-§5.9), exact fractions."""

import itertools
from dataclasses import replace
from fractions import Fraction

import pytest

from app.engine.pen.tables import DamageResult as R
from app.engine.pen.tables import DamageTable, Location
from app.engine.pen.vehicles import (
    DamageContext,
    Penetration,
    PenetrationMode,
    PenetrationPlan,
    VehicleState,
    apply_damage,
    damage_outcomes,
    penetration_outcomes,
)
from app.engine.roller import Roller

G, P, N = Penetration.GLANCING, Penetration.PENETRATING, Penetration.NONE
ONE, BEST, SUM, DOUBLE = (
    PenetrationMode.ONE,
    PenetrationMode.BEST_OF_TWO,
    PenetrationMode.SUM_TWO,
    PenetrationMode.DOUBLE_BEST,
)


@pytest.mark.parametrize(
    ("plan", "glancing", "penetrating", "why"),
    [
        (PenetrationPlan(ONE, 9, 12), Fraction(1, 6), Fraction(1, 2), "D6+9 vs 12 [L1403]"),
        (PenetrationPlan(ONE, 4, 10), Fraction(1, 6), Fraction(0), "D6+4 vs 10"),
        (PenetrationPlan(SUM, 8, 14), Fraction(5, 36), Fraction(21, 36), "2D6+8 vs 14 [L632]"),
        (PenetrationPlan(BEST, 8, 14), Fraction(11, 36), Fraction(0), "best of 2D6 [L679]"),
        (PenetrationPlan(DOUBLE, 4, 12), Fraction(7, 36), Fraction(20, 36), "2 x best [L681]"),
        (PenetrationPlan(ONE, 9, 12, bonus=1), Fraction(1, 6), Fraction(4, 6), "tank hunters"),
        (PenetrationPlan(ONE, 4, 10, rend=True), Fraction(0), Fraction(1, 6), "6 + D3 [L683]"),
        (PenetrationPlan(ONE, 0, 12, emp=True), Fraction(4, 6), Fraction(1, 6), "IEM [L655]"),
        (
            PenetrationPlan(ONE, 9, 12, off_centre=True),
            Fraction(1, 2),
            Fraction(0),
            "blast off centre [L536]",
        ),
    ],
)
def test_penetration(
    plan: PenetrationPlan, glancing: Fraction, penetrating: Fraction, why: str
) -> None:
    out = penetration_outcomes(plan)
    assert out.get(G, Fraction(0)) == glancing, why
    assert out.get(P, Fraction(0)) == penetrating, why
    assert sum(out.values()) == 1


def brute_penetration(
    mode: PenetrationMode, strength: int, armour: int, rend: bool, emp: bool
) -> dict[Penetration, Fraction]:
    """Independent enumerator: every 2D6 and every D3 bonus, typed from [L632]-[L683]."""
    out: dict[Penetration, Fraction] = {}
    for a, b, x, y in itertools.product(range(1, 7), range(1, 7), range(1, 4), range(1, 4)):
        p = Fraction(1, 36 * 9)
        if mode is ONE:
            dice, total = [a], a
        elif mode is SUM:
            dice, total = [a, b], a + b
        elif mode is BEST:
            dice, total = [max(a, b)], max(a, b)
        else:
            dice, total = [max(a, b)], 2 * max(a, b)
        total += strength
        if rend:
            total += sum(d3 for d, d3 in zip(dice, (x, y), strict=False) if d == 6)
        kind = P if total > armour else G if total == armour else N
        if emp:
            best = max([a] if mode is ONE else [a, b])
            kind = P if best == 6 else max(kind, G) if best >= 2 else kind
        out[kind] = out.get(kind, Fraction(0)) + p
    return {k: v for k, v in out.items() if v}


@pytest.mark.parametrize("mode", [ONE, SUM, BEST, DOUBLE])
@pytest.mark.parametrize(("strength", "armour"), [(3, 10), (6, 13), (8, 14), (2, 12)])
@pytest.mark.parametrize(("rend", "emp"), [(False, False), (True, False), (False, True)])
def test_penetration_matches_brute_force(
    mode: PenetrationMode, strength: int, armour: int, rend: bool, emp: bool
) -> None:
    plan = PenetrationPlan(mode, strength, armour, rend=rend, emp=emp)
    got = {k: v for k, v in penetration_outcomes(plan).items() if v}
    assert got == brute_penetration(mode, strength, armour, rend, emp)


# --------------------------------------------------------------- damage results (§5.9)
BS4 = DamageContext(skill=4, hull_points=3)


def results(out: dict[VehicleState, Fraction], result: R) -> Fraction:
    return sum((p for s, p in out.items() if s.count(result)), Fraction(0))


def destroyed(out: dict[VehicleState, Fraction]) -> Fraction:
    return sum((p for s, p in out.items() if s.destroyed), Fraction(0))


def test_penetrating_ap2_bs4_always_reads_the_hull_table() -> None:
    # location D6+4 in 5..10: hull (4-7) or announced hull (>= 8) [L1425-L1426]
    out = damage_outcomes(VehicleState(), BS4, P)
    assert results(out, R.DAMAGED) == Fraction(1, 2)  # 1-3 [L1450]
    assert results(out, R.HEAVILY_DAMAGED) == Fraction(1, 6)  # 4
    assert results(out, R.VIOLENT_CRASH) == Fraction(1, 6)  # 5
    assert results(out, R.DESTROYED) == Fraction(1, 6)  # 6
    assert destroyed(out) == Fraction(1, 6)


def test_ap1_adds_one() -> None:
    out = damage_outcomes(VehicleState(), replace(BS4, penetrating_modifier=1), P)
    assert results(out, R.EXPLODED) == Fraction(1, 6)  # 6 + 1 = 7 [L1454], [L1458]
    assert destroyed(out) == Fraction(1, 3)


def test_glancing_on_a_tank() -> None:
    # AP2 glancing: -2, tank -1 [L1459], [L221]: faces 4-6 read 1-3, Endommagé
    ctx = replace(BS4, glancing_modifier=-3)
    out = damage_outcomes(VehicleState(), ctx, G)
    assert results(out, R.DAMAGED) == Fraction(1, 2)
    assert sum(p for s, p in out.items() if not any(s.results)) == Fraction(1, 2)


def test_glancing_on_open_topped() -> None:
    ctx = replace(BS4, glancing_modifier=-1)  # -2 + 1 [L225]
    out = damage_outcomes(VehicleState(), ctx, G)
    assert results(out, R.DAMAGED) == Fraction(1, 2)  # faces 2-4
    assert results(out, R.HEAVILY_DAMAGED) == Fraction(1, 6)
    assert results(out, R.VIOLENT_CRASH) == Fraction(1, 6)


def test_one_hull_point_left_dies_to_any_damaged_result() -> None:
    out = damage_outcomes(VehicleState(), replace(BS4, hull_points=1), P)
    assert destroyed(out) == Fraction(5, 6)  # all but Crash violent [L1461]


def test_damage_bonus_markers() -> None:
    out = damage_outcomes(VehicleState(damage_bonus=2), BS4, P)
    # faces 1 -> 3 damaged, 2 -> 4 HD, 3 -> 5 VC, 4 -> 6 destroyed, 5-6 -> exploded
    assert results(out, R.EXPLODED) == Fraction(1, 3)
    assert destroyed(out) == Fraction(1, 2)  # faces 4-6; Endommagé / Très endommagé leave HP


def test_location_with_bs1() -> None:
    # D6 + 1: 2 weapons (face 1), 3 mobility (face 2), 4-7 hull [L1423-L1425]
    ctx = DamageContext(skill=1, hull_points=None)
    out = damage_outcomes(VehicleState(), ctx, P)
    weapons = sum(
        p
        for s, p in out.items()
        if any(
            s.count(r) for r in (R.SHAKEN, R.WEAPONS_DAMAGED, R.WEAPON_DESTROYED, R.WEAPON_EXPLODES)
        )
    )
    mobility = sum(
        p
        for s, p in out.items()
        if any(s.count(r) for r in (R.DRIVER_STUNNED, R.REDUCED_MOBILITY, R.IMMOBILISED, R.CRASH))
    )
    assert weapons == Fraction(1, 6)
    assert mobility == Fraction(1, 6)


def test_announced_location() -> None:
    ctx = DamageContext(skill=6, announced=Location.MOBILITY)
    out = damage_outcomes(VehicleState(), ctx, P)
    # D6 + 6 >= 8 on faces 2-6 -> mobility [L1426]
    assert results(out, R.IMMOBILISED) == Fraction(5, 6) * Fraction(1, 6)


def roll(
    values: list[int],
    state: VehicleState,
    table: DamageTable,
    ctx: DamageContext = DamageContext(skill=4),
    kind: Penetration = P,
) -> VehicleState:
    return apply_damage(Roller.from_values(values), state, ctx, kind, table)


def test_repeated_result_moves_down_a_row() -> None:
    # [L1460] the 2nd identical result gains a step, the 3rd two
    s = roll([1], VehicleState(), DamageTable.WEAPONS)
    assert s.count(R.SHAKEN) == 1
    s = roll([2], s, DamageTable.WEAPONS)
    assert s.count(R.WEAPONS_DAMAGED) == 1
    s = roll([1], s, DamageTable.WEAPONS)
    assert s.count(R.WEAPON_DESTROYED) == 1


def test_damaged_results_do_not_escalate_but_accumulate() -> None:
    s = roll([1], VehicleState(), DamageTable.HULL)
    s = roll([1], s, DamageTable.HULL)  # 1 + 1 marker = 2: Endommagé again
    assert s.count(R.DAMAGED) == 2
    assert s.damage_bonus == 2
    assert s.hull_points_lost == 2


def test_conversions() -> None:
    s = roll([3], VehicleState(weapons_damaged=True), DamageTable.WEAPONS)
    assert s.count(R.WEAPON_DESTROYED) == 1  # [L1462]
    s = roll([6], VehicleState(weapons_left=0), DamageTable.WEAPONS)
    assert s.count(R.DESTROYED) == 1  # no weapons: the 6 is read on the hull table [L1463]
    s = roll([3], VehicleState(reduced_mobility=True), DamageTable.MOBILITY)
    assert s.count(R.IMMOBILISED) == 1  # [L1464]
    fast = DamageContext(skill=4, fast_skimmer_rapid=True)
    s = roll([5], VehicleState(), DamageTable.MOBILITY, fast)
    assert s.count(R.CRASH) == 1  # [L1465]
    s = roll([5], VehicleState(immobilised=True), DamageTable.MOBILITY)
    assert s.count(R.DESTROYED) == 1  # hull table [L1466], then Crash violent -> Détruit [L1467]
    air = DamageContext(skill=4, aircraft=True)
    s = roll([5], VehicleState(), DamageTable.MOBILITY, air)
    assert s.count(R.DESTROYED) == 1  # [L266]


def test_weapon_explodes_adds_a_glancing_hull_damage() -> None:
    ctx = DamageContext(skill=4, glancing_modifier=-2, hull_points=3)
    s = roll([6, 5], VehicleState(), DamageTable.WEAPONS, ctx)  # then 5 - 2 = 3 [L1439]
    assert s.count(R.WEAPON_EXPLODES) == 1
    assert s.count(R.DAMAGED) == 1
    assert s.weapons_left == 0


def test_hull_points_run_out() -> None:
    s = roll(
        [4],
        VehicleState(hull_points_lost=1),
        DamageTable.HULL,
        DamageContext(skill=4, hull_points=3),
    )
    assert s.count(R.HEAVILY_DAMAGED) == 1
    assert s.destroyed  # 3 - 1 - 2 = 0 [L1461]
    assert s.hull_points_lost == 3


def test_destroyed_vehicle_takes_nothing_more() -> None:
    dead = VehicleState(destroyed=True)
    assert roll([], dead, DamageTable.HULL) == dead
