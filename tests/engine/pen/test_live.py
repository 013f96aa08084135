"""Live resolution: seeded, every die recorded with its label, and never at odds with the exact
analysis (an enumerator over every hand-given dice sequence, and a seeded Monte Carlo)."""

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

import pytest

from app.engine.combat import CombatAnalysis, CombatResolution, to_jsonable
from app.engine.distributions import Dist
from app.engine.errors import DiceExhausted
from app.engine.pen.analysis import analyze
from app.engine.pen.live import resolve
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import (
    Armour,
    AttackRequest,
    Facing,
    Situation,
    Template,
    TwinLinkedMode,
    Unit,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.weapons import melee_weapon
from app.engine.roller import Roller

MARINE = Unit(
    models=1,
    ws=4,
    bs=4,
    strength=4,
    toughness=4,
    wounds=1,
    initiative=4,
    attacks=1,
    leadership=8,
    save=3,
)
GUARD = Unit(
    models=1,
    ws=3,
    bs=3,
    strength=3,
    toughness=3,
    wounds=1,
    initiative=3,
    attacks=1,
    leadership=7,
    save=5,
)
CCW = Weapon(name="ccw", kind=WeaponKind.MELEE, type=WeaponType.MELEE, ap=5)


Key = Callable[[CombatResolution], int]


def live_distribution(
    request: AttackRequest, key: Key, max_paths: int = 20_000
) -> dict[int, Fraction]:
    return live_distributions(request, {"x": key}, max_paths)["x"]


def live_distributions(
    request: AttackRequest, keys: dict[str, Key], max_paths: int = 20_000
) -> dict[str, dict[int, Fraction]]:
    """Exact distributions of the LIVE path: replay ``resolve`` over every sequence of
    hand-given dice (odometer), each path weighted 1 / product of its dice's sides."""
    faces: list[int] = []
    out: dict[str, dict[int, Fraction]] = {name: {} for name in keys}
    paths = 0
    while True:
        try:
            result = resolve(request, Roller.from_values(faces))
        except DiceExhausted:
            faces.append(1)
            continue
        sides: list[int] = []
        for record in result.dice:
            if record.original is not None:
                sides.append(record.sides)
            sides.append(record.sides)
        assert len(sides) == len(faces), "every given die is used"
        weight = Fraction(1, math.prod(sides))
        for name, key in keys.items():
            value = key(result)
            out[name][value] = out[name].get(value, Fraction(0)) + weight
        paths += 1
        assert paths <= max_paths
        j = len(faces) - 1
        while j >= 0 and faces[j] == sides[j]:
            j -= 1
        if j < 0:
            return out
        faces[j] += 1
        del faces[j + 1 :]


def destroyed(result: CombatResolution) -> int:
    return result.totals["models_destroyed"]


def wounds_lost(result: CombatResolution) -> int:
    return result.totals["wounds_lost"]


def req(attacker: Unit, weapon: Weapon, target: Unit | Vehicle, **kw: object) -> AttackRequest:
    return AttackRequest(attacker, weapon, target, Situation(**kw))  # type: ignore[arg-type]


SMALL_CASES = {
    "two bolter shots, overkill": req(
        MARINE,
        Weapon(type=WeaponType.RAPID_FIRE, strength=4, ap=5),
        replace(GUARD, save=None),
        half_range=True,
    ),
    "rending, re-rolls": req(
        replace(MARINE, bs=6, rules=parse_rules(["Ennemi juré"])),
        Weapon(
            type=WeaponType.ASSAULT,
            strength=4,
            ap=5,
            properties=parse_rules(["Perforant", "Blessant"]),
        ),
        replace(MARINE, wounds=2),
    ),
    "ignite, FNP, 2 W": req(
        MARINE,
        Weapon(
            type=WeaponType.ASSAULT,
            shots=2,
            strength=4,
            ap=3,
            properties=parse_rules(["Embrasement"]),
        ),
        replace(MARINE, wounds=2, save=None, rules=parse_rules(["Insensible à la douleur"])),
    ),
    "cover": req(
        replace(MARINE, bs=5),
        Weapon(type=WeaponType.ASSAULT, strength=6, ap=None),
        replace(GUARD, models=2, cover_save=5, save=4),
    ),
    "sustained fire and 6/4+": req(
        MARINE,
        Weapon(
            type=WeaponType.ASSAULT, strength=2, ap=6, properties=parse_rules(["Tirs soutenus"])
        ),
        replace(MARINE, toughness=6, save=None),
    ),
    "template, twin-linked hits, save": req(
        MARINE,
        Weapon(
            type=WeaponType.ASSAULT,
            strength=3,
            ap=6,
            template=Template.BLAST,
            properties=parse_rules(["Jumelée"]),
        ),
        replace(GUARD, models=3, save=6),
        models_under_template=1,
        twin_linked=TwinLinkedMode.DOUBLE_HITS,
    ),
}


@pytest.mark.parametrize("name", list(SMALL_CASES))
def test_live_path_equals_exact_analysis(name: str) -> None:
    request = SMALL_CASES[name]
    exact = analyze(request)
    live = live_distributions(request, {"destroyed": destroyed, "lost": wounds_lost})
    assert live["destroyed"] == dict(exact.models_destroyed.items())
    assert live["lost"] == dict(exact.damage.items())


MELEE_CASES = {
    "1 v 1 simultaneous": req(replace(MARINE, save=6), CCW, replace(GUARD, save=None)),
    "attacker first": req(
        replace(MARINE, ws=10, initiative=5, save=None, rules=parse_rules(["Sans peur"])),
        CCW,
        replace(GUARD, ws=1, models=2, save=None, rules=parse_rules(["Sans peur"])),
    ),
    "power fist strikes last": req(
        replace(MARINE, save=None), melee_weapon("power fist"), replace(MARINE, save=None, wounds=2)
    ),
    "morale and sweep": req(
        replace(MARINE, ws=10, save=None, initiative=5),
        CCW,
        replace(GUARD, models=2, ws=1, save=None, attacks=0, leadership=10),
    ),
}


@pytest.mark.parametrize("name", list(MELEE_CASES))
def test_live_melee_equals_exact(name: str) -> None:
    request = MELEE_CASES[name]
    exact = analyze(request)
    combat = exact.extra["combat_result"]
    assert isinstance(combat, dict)

    def winner(result: CombatResolution) -> int:
        section = result.extra["combat_result"]
        assert isinstance(section, dict)
        return {"attacker": 1, "draw": 0, "defender": -1}[str(section["winner"])]

    def swept(result: CombatResolution) -> int:
        return result.totals["sweep_casualties"]

    def attacker_lost(result: CombatResolution) -> int:
        return result.totals["attacker_models_destroyed"]

    live = live_distributions(
        request,
        {"destroyed": destroyed, "winner": winner, "swept": swept, "attacker": attacker_lost},
    )
    assert live["destroyed"] == dict(exact.models_destroyed.items())
    assert live["winner"].get(1, Fraction(0)) == combat["p_attacker_wins"]
    assert live["winner"].get(0, Fraction(0)) == combat["p_draw"]
    assert live["winner"].get(-1, Fraction(0)) == combat["p_defender_wins"]
    assert live["swept"] == dict(combat["sweep_casualties"].items())
    assert live["attacker"] == dict(combat["attacker_casualties"].items())


VEHICLE_CASES = {
    "lascannon vs tank": req(
        MARINE,
        Weapon(type=WeaponType.HEAVY, strength=9, ap=2),
        Vehicle(armour=Armour(12, 12, 10), hull_points=2, types=frozenset({VehicleType.TANK})),
        stationary=True,
    ),
    "rending EMP vs open-topped": req(
        replace(MARINE, bs=1),
        Weapon(
            type=WeaponType.ASSAULT,
            strength=4,
            ap=None,
            properties=parse_rules(["Perforant", "IEM"]),
        ),
        Vehicle(
            armour=Armour(10, 10, 10), hull_points=1, types=frozenset({VehicleType.OPEN_TOPPED})
        ),
    ),
    "invulnerable save, AP1": req(
        MARINE,
        Weapon(type=WeaponType.ASSAULT, strength=8, ap=1),
        Vehicle(armour=Armour(13, 13, 13), hull_points=3, invulnerable_save=5),
    ),
}


@pytest.mark.parametrize("name", list(VEHICLE_CASES))
def test_live_vehicle_equals_exact(name: str) -> None:
    request = VEHICLE_CASES[name]
    exact = analyze(request)

    def hull(result: CombatResolution) -> int:
        return result.totals["hull_points_lost"]

    def glancing(result: CombatResolution) -> int:
        return result.totals["glancing_hits"]

    live = live_distributions(request, {"destroyed": destroyed, "hull": hull, "glancing": glancing})
    assert live["destroyed"] == dict(exact.models_destroyed.items())
    assert live["hull"] == dict(exact.damage.items())
    assert live["glancing"] == dict(exact.stages["glancing_hits"].items())


# --------------------------------------------------------------- Monte Carlo on large cases
def monte_carlo(
    request: AttackRequest, runs: int, key: Callable[[CombatResolution], int]
) -> tuple[float, float]:
    values = [key(resolve(request, Roller(seed))) for seed in range(runs)]
    mean = sum(values) / runs
    var = sum((v - mean) ** 2 for v in values) / (runs - 1)
    return mean, math.sqrt(var / runs)


def hull_lost(result: CombatResolution) -> int:
    return result.totals["hull_points_lost"]


def attacker_wins(result: CombatResolution) -> int:
    section = result.extra["combat_result"]
    assert isinstance(section, dict)
    return int(section["winner"] == "attacker")


def sweep_casualties(result: CombatResolution) -> int:
    return result.totals["sweep_casualties"]


def combat(name: str) -> Callable[[CombatAnalysis], Fraction]:
    def get(analysis: CombatAnalysis) -> Fraction:
        section = analysis.extra["combat_result"]
        assert isinstance(section, dict)
        value = section[name]
        if isinstance(value, Dist):
            return value.mean()
        assert isinstance(value, Fraction)
        return value

    return get


CHARGE = req(
    replace(MARINE, models=10),
    CCW,
    replace(GUARD, models=10, rules=parse_rules(["Contre-attaque"])),
    charged=True,
)
LARGE: dict[str, tuple[AttackRequest, Key, Callable[[CombatAnalysis], Fraction]]] = {
    "20 bolter shots at 10 guardsmen in cover": (
        req(
            replace(MARINE, models=10),
            Weapon(type=WeaponType.RAPID_FIRE, strength=4, ap=5),
            replace(GUARD, models=10, cover_save=5),
            half_range=True,
        ),
        destroyed,
        lambda a: a.models_destroyed.mean(),
    ),
    "heavy bolters at 3 W models": (
        req(
            replace(MARINE, models=4),
            Weapon(
                type=WeaponType.HEAVY,
                shots=3,
                strength=5,
                ap=4,
                properties=parse_rules(["Tirs soutenus"]),
            ),
            replace(MARINE, models=5, wounds=3, save=4),
            stationary=True,
        ),
        wounds_lost,
        lambda a: a.damage.mean(),
    ),
    "10 v 10 charge, counter-attack: casualties": (
        CHARGE,
        destroyed,
        lambda a: a.models_destroyed.mean(),
    ),
    "10 v 10 charge, counter-attack: P(win)": (CHARGE, attacker_wins, combat("p_attacker_wins")),
    "10 v 10 charge, counter-attack: sweep": (
        CHARGE,
        sweep_casualties,
        combat("expected_sweep_casualties"),
    ),
    "autocannons at a walker": (
        req(
            replace(MARINE, models=3),
            Weapon(type=WeaponType.HEAVY, shots=2, strength=7, ap=4),
            Vehicle(
                armour=Armour(12, 12, 10),
                facing=Facing.SIDE,
                hull_points=3,
                types=frozenset({VehicleType.WALKER}),
            ),
            stationary=True,
        ),
        hull_lost,
        lambda a: a.damage.mean(),
    ),
}


@pytest.mark.parametrize("name", list(LARGE))
def test_seeded_monte_carlo_agrees_with_the_exact_mean(name: str) -> None:
    request, key, exact_mean = LARGE[name]
    expected = float(exact_mean(analyze(request)))
    mean, stderr = monte_carlo(request, 400, key)
    assert abs(mean - expected) <= 5 * stderr + 1e-9, (mean, expected, stderr)


# --------------------------------------------------------------- the record
def test_same_seed_same_dice_and_every_die_labelled() -> None:
    request = CHARGE
    a = resolve(request, Roller(7))
    b = resolve(request, Roller(7))
    assert a.dice == b.dice
    assert a.totals == b.totals
    assert a.seed == 7
    assert all(d.label for d in a.dice)
    used = sorted(i for step in a.steps for i in step.dice)
    assert used == list(range(len(a.dice)))  # every die belongs to exactly one step


def test_hand_rolled_dice() -> None:
    # 1 bolter shot at a guardsman: hit 3, wound 5, save 6 (a 5+ save is 6+ vs PA5 [L620])
    request = req(MARINE, Weapon(type=WeaponType.RAPID_FIRE, strength=4, ap=5), GUARD)
    result = resolve(request, Roller.from_values([3, 5, 6]))
    assert [d.label for d in result.dice] == ["to hit", "to wound", "save"]
    assert [d.outcome for d in result.dice] == ["hit", "wound", "saved"]
    assert result.totals["models_destroyed"] == 0
    result = resolve(request, Roller.from_values([3, 5, 5]))
    assert result.totals["models_destroyed"] == 1
    assert result.target_after.wiped


def test_vehicle_resolution_reports_the_damage() -> None:
    tank = Vehicle(armour=Armour(12, 12, 10), hull_points=3)
    las = Weapon(type=WeaponType.HEAVY, strength=9, ap=2)
    # hit 4, penetration 6 (15 > 12), location 3 (+4 = 7: hull), damage 6: Détruit
    result = resolve(req(MARINE, las, tank, stationary=True), Roller.from_values([4, 6, 3, 6]))
    section = result.extra["vehicle"]
    assert isinstance(section, dict)
    assert section["destroyed"] is True
    assert section["results"] == {"destroyed": 1}
    assert result.target_after.models_destroyed == 1
    assert [d.label for d in result.dice] == [
        "to hit",
        "penetration",
        "hit location",
        "damage (hull)",
    ]


def test_melee_resolution_reports_the_combat() -> None:
    # 1 marine charges 2 guardsmen: 2 attacks: hits 3, 3 (3+ WS4 vs WS3 [L1349]);
    # wounds 3, 1 (S4 vs T3 3+); save 6 vs PA5 -> 6+ [L620]: saved.
    # guardsmen strike back (I3 < I4) with 2 attacks: 1, 1 -> miss.
    attacker = replace(MARINE)
    target = replace(GUARD, models=2)
    result = resolve(
        req(attacker, CCW, target, charged=True), Roller.from_values([3, 3, 3, 1, 6, 1, 1])
    )
    section = result.extra["combat_result"]
    assert isinstance(section, dict)
    assert section["winner"] == "draw"
    assert result.totals["models_destroyed"] == 0
    assert result.totals["counter_attacks"] == 2


def test_live_one_wound_models_roll_their_saves_together() -> None:
    """[L1410], pen rulings 14: the calculator's live roll (and the battle, which resolves its
    attacks with it) removes a one-W model per failed save. 3 shots (BS4: 3+), S4 vs T3 (3+),
    save 4+: hits 6, 6, 6; wounds 6, 6, 6; saves 1, 1, 6: two failed saves, both guardsmen
    removed. (Spread model by model, the first guardsman would take the two failures and the
    second would live.)"""
    gun = Weapon(type=WeaponType.ASSAULT, shots=3, strength=4, ap=None)
    request = req(MARINE, gun, replace(GUARD, models=2, save=4))
    result = resolve(request, Roller.from_values([6, 6, 6, 6, 6, 6, 1, 1, 6]))
    assert [d.label for d in result.dice][-3:] == ["save"] * 3
    assert result.totals["failed_saves"] == 2
    assert destroyed(result) == 2
    exact = analyze(request)
    assert exact.models_destroyed.prob(2) > 0


def test_counter_attack_adds_nothing_when_the_charged_squad_counts_as_charging() -> None:
    """With ``defender_charged`` (Dynamics mutual assault, pen rulings B26) the charged squad
    already has the charge bonus: Contre-attaque ("as if it charged too" [L382-L384]) takes
    no Ld test and adds no second +1 A. 1 marine charges (2 A): 1, 1 miss; the 2 guardsmen
    strike back with 1 + 1 A each: four dice, all 1s. (Before: an Ld test, then 3 A each.)"""
    target = replace(GUARD, models=2, rules=parse_rules(["Contre-attaque"]))
    request = req(MARINE, CCW, target, charged=True, defender_charged=True)
    result = resolve(request, Roller.from_values([1] * 6))
    labels = [d.label for d in result.dice]
    assert "counter-attack Ld" not in labels
    assert labels.count("to hit") == 6
    # the exact analysis agrees: the same as a squad without Contre-attaque
    plain = req(MARINE, CCW, replace(target, rules=()), charged=True, defender_charged=True)
    assert to_jsonable(analyze(request)) == to_jsonable(analyze(plain))
    # and without defender_charged Contre-attaque still works (Ld test, +1 A)
    assert to_jsonable(analyze(replace(request, situation=Situation(charged=True)))) != (
        to_jsonable(analyze(replace(plain, situation=Situation(charged=True))))
    )
