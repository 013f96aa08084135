"""The other rolls of the 10th-edition core rules: exact distributions and live rolls.

For the match tracker: each roll has a pure predicate on the die faces, an exact
distribution built from it, and a live function rolling it with the seeded recording roller.

- Charge: 2D6 inches; success if >= the distance needed [L2413–L2416].
- Battle-shock / Leadership: 2D6 >= the unit's best (lowest) Ld [L785–L792, L3093–L3100].
- Advance: D6 added to M until the end of the phase [L983–L989].
- Desperate Escape: 1 D6 per model tested; each 1-2 destroys a model [L1023–L1026].
- Hazardous: 1 D6 per Hazardous weapon used; each 1 destroys a bearer, or inflicts 3 mortal
  wounds on a CHARACTER, MONSTER or VEHICLE bearer [L2278–L2309] (RULINGS 15).
- Deadly Demise x: 1 D6 when destroyed; on a 6 each unit within 6" suffers x mortal wounds,
  x rolled per unit [L1876–L1893].
- Destroyed Transport: 1 D6 per disembarking model; each 1 (1-3 for an Emergency
  Disembarkation) is 1 mortal wound [L1318–L1320, L1354–L1356].
- Grenade (Stratagem): six D6; each 4+ is 1 mortal wound [L3396–L3399].
- Tank Shock (Stratagem): as many D6 as the melee weapon's S, two more if S > the target's T;
  each 5+ is 1 mortal wound, at most 6 [L3414–L3420].
"""

from __future__ import annotations

import math
from fractions import Fraction

from app.engine.dice import DiceExpr
from app.engine.distributions import Dist
from app.engine.errors import N_, ProfileError
from app.engine.roller import Roller

__all__ = [
    "TANK_SHOCK_MAX",
    "advance",
    "battle_shock_pass_probability",
    "battle_shock_passes",
    "charge",
    "charge_distance",
    "charge_needed",
    "charge_success_probability",
    "deadly_demise",
    "desperate_escape",
    "destroyed_transport",
    "grenade",
    "hazardous",
    "roll_2d6",
    "roll_advance",
    "roll_battle_shock",
    "roll_charge",
    "roll_deadly_demise",
    "roll_desperate_escape",
    "roll_destroyed_transport",
    "roll_grenade",
    "roll_hazardous",
    "roll_tank_shock",
    "tank_shock",
    "tank_shock_dice",
]

TANK_SHOCK_MAX = 6
MAX_DICE_POOL = 60

_2D6 = Dist.die(6) + Dist.die(6)


def _count_dist(n: int, p_face: int, field: str) -> Dist:
    """Successes among ``n`` D6, each succeeding on ``p_face`` of the 6 faces."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_DICE_POOL:
        raise ProfileError(field, N_("must be 0..%(most)s"), most=MAX_DICE_POOL)
    return Dist.binomial(n, Fraction(p_face, 6))


def _faces(pred: object) -> int:
    assert callable(pred)
    return sum(1 for u in range(1, 7) if pred(u))


# -- Charge [L2413–L2416] --------------------------------------------------------------------


def charge_distance() -> Dist:
    """The Charge roll: 2D6 inches."""
    return _2D6


def charge_needed(distance: Fraction | float | int) -> int:
    """The roll needed to cover ``distance`` inches (a roll of r moves up to r inches)."""
    d = Fraction(distance)
    if d < 0 or d > 100:
        raise ProfileError("distance", N_("must be 0..100 inches"))
    return max(2, math.ceil(d))


def charge_success_probability(distance: Fraction | float | int) -> Fraction:
    """P(2D6 >= distance needed)."""
    return _2D6.p_at_least(charge_needed(distance))


def charge() -> Dist:
    """Alias of :func:`charge_distance`."""
    return _2D6


def roll_2d6(roller: Roller, label: str, stage: str = "") -> int:
    return roller.d6(label, stage=stage) + roller.d6(label, stage=stage)


def roll_charge(roller: Roller, distance: Fraction | float | int | None = None) -> int:
    """Roll a Charge; annotate success when ``distance`` is given."""
    first = len(roller.records)
    total = roll_2d6(roller, "Charge roll", "charge")
    if distance is not None:
        ok = total >= charge_needed(distance)
        for i in (first, first + 1):
            roller.annotate(i, outcome="charge succeeds" if ok else "charge fails")
    return total


# -- Battle-shock / Leadership [L785–L792, L3093–L3100] -------------------------------------


def _check_ld(leadership: int) -> None:
    if isinstance(leadership, bool) or not isinstance(leadership, int) or not 2 <= leadership <= 12:
        raise ProfileError("leadership", N_("must be 2..12 (the number before '+')"))


def battle_shock_passes(total: int, leadership: int) -> bool:
    """The test passes on 2D6 >= the best Leadership of the unit."""
    return total >= leadership


def battle_shock_pass_probability(leadership: int) -> Fraction:
    _check_ld(leadership)
    return sum((p for v, p in _2D6.items() if battle_shock_passes(v, leadership)), Fraction(0))


def roll_battle_shock(roller: Roller, leadership: int) -> bool:
    _check_ld(leadership)
    first = len(roller.records)
    ok = battle_shock_passes(roll_2d6(roller, "Battle-shock test", "battle_shock"), leadership)
    for i in (first, first + 1):
        roller.annotate(i, outcome="passed" if ok else "Battle-shocked")
    return ok


# -- Advance [L983–L989] ---------------------------------------------------------------------


def advance() -> Dist:
    """The Advance roll: D6 inches added to M."""
    return Dist.die(6)


def roll_advance(roller: Roller) -> int:
    return roller.d6("Advance roll", stage="advance")


# -- Desperate Escape [L1023–L1026] ----------------------------------------------------------


def desperate_escape_fails(u: int) -> bool:
    return u <= 2


def desperate_escape(tests: int) -> Dist:
    """Models destroyed by ``tests`` Desperate Escape tests."""
    return _count_dist(tests, _faces(desperate_escape_fails), "tests")


def roll_desperate_escape(roller: Roller, tests: int) -> int:
    desperate_escape(tests)  # validates
    destroyed = 0
    for _ in range(tests):
        u = roller.d6("Desperate Escape test", stage="desperate_escape")
        failed = desperate_escape_fails(u)
        roller.annotate(outcome="model destroyed" if failed else "passed")
        destroyed += failed
    return destroyed


# -- Hazardous [L2278–L2309], RULINGS 15 -----------------------------------------------------


def hazardous_fails(u: int) -> bool:
    return u == 1


def hazardous(weapons: int, *, mortal_wounds_per_failure: int = 0) -> Dist:
    """Failed Hazardous tests for ``weapons`` Hazardous weapons used; with
    ``mortal_wounds_per_failure=3`` the mortal wounds a CHARACTER/MONSTER/VEHICLE bearer takes."""
    d = _count_dist(weapons, _faces(hazardous_fails), "weapons")
    if mortal_wounds_per_failure:
        return d.map(lambda n: n * mortal_wounds_per_failure)
    return d


def roll_hazardous(roller: Roller, weapons: int) -> int:
    hazardous(weapons)
    failed = 0
    for _ in range(weapons):
        u = roller.d6("Hazardous test", stage="hazardous")
        bad = hazardous_fails(u)
        roller.annotate(outcome="failed" if bad else "passed")
        failed += bad
    return failed


# -- Deadly Demise x [L1876–L1893] -----------------------------------------------------------


def deadly_demise_triggers(u: int) -> bool:
    return u == 6


def deadly_demise(x: str | int | DiceExpr) -> Dist:
    """Mortal wounds one unit within 6" suffers when the model is destroyed (x rolled per
    unit if random; the one D6 is shared by every unit)."""
    expr = x if isinstance(x, DiceExpr) else DiceExpr.parse(x)
    p = Fraction(_faces(deadly_demise_triggers), 6)
    return Dist.mixture([(1 - p, Dist.constant(0)), (p, expr.dist())])


def roll_deadly_demise(roller: Roller, x: str | int | DiceExpr, units: int) -> list[int]:
    """Mortal wounds for each of ``units`` units within 6" (all 0 unless the D6 is a 6)."""
    expr = x if isinstance(x, DiceExpr) else DiceExpr.parse(x)
    if isinstance(units, bool) or not 0 <= units <= 30:
        raise ProfileError("units", N_("must be 0..30"))
    u = roller.d6("Deadly Demise", stage="deadly_demise")
    ok = deadly_demise_triggers(u)
    roller.annotate(outcome="explodes" if ok else "no effect")
    if not ok:
        return [0] * units
    return [
        expr.roll(roller, f"Deadly Demise: unit {i + 1}", stage="deadly_demise")
        for i in range(units)
    ]


# -- Destroyed Transport [L1318–L1320, L1354–L1356] -------------------------------------------


def destroyed_transport(models: int, *, emergency: bool = False) -> Dist:
    """Mortal wounds to the disembarking unit: 1 per model rolling 1 (1-3 when Emergency)."""
    return _count_dist(models, 3 if emergency else 1, "models")


def roll_destroyed_transport(roller: Roller, models: int, *, emergency: bool = False) -> int:
    destroyed_transport(models, emergency=emergency)
    limit = 3 if emergency else 1
    mw = 0
    for _ in range(models):
        u = roller.d6("Destroyed Transport", stage="destroyed_transport")
        hit = u <= limit
        roller.annotate(outcome="1 mortal wound" if hit else "unharmed")
        mw += hit
    return mw


# -- Grenade [L3396–L3399] -------------------------------------------------------------------

GRENADE_DICE = 6


def grenade_wounds(u: int) -> bool:
    return u >= 4


def grenade() -> Dist:
    """Mortal wounds from the Grenade Stratagem: six D6, each 4+ is one."""
    return _count_dist(GRENADE_DICE, _faces(grenade_wounds), "dice")


def roll_grenade(roller: Roller) -> int:
    mw = 0
    for _ in range(GRENADE_DICE):
        u = roller.d6("Grenade", stage="grenade")
        ok = grenade_wounds(u)
        roller.annotate(outcome="1 mortal wound" if ok else "no effect")
        mw += ok
    return mw


# -- Tank Shock [L3414–L3420] ----------------------------------------------------------------


def tank_shock_dice(strength: int, toughness: int) -> int:
    """D6 rolled: the melee weapon's S, plus two if S > the enemy unit's T."""
    for name, v in (("strength", strength), ("toughness", toughness)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 30:
            raise ProfileError(name, N_("must be 1..30"))
    return strength + (2 if strength > toughness else 0)


def tank_shock_wounds(u: int) -> bool:
    return u >= 5


def tank_shock(strength: int, toughness: int) -> Dist:
    """Mortal wounds from Tank Shock: each 5+ is one, at most 6."""
    n = tank_shock_dice(strength, toughness)
    return _count_dist(n, _faces(tank_shock_wounds), "strength").map(
        lambda k: min(k, TANK_SHOCK_MAX)
    )


def roll_tank_shock(roller: Roller, strength: int, toughness: int) -> int:
    n = tank_shock_dice(strength, toughness)
    mw = 0
    for _ in range(n):
        u = roller.d6("Tank Shock", stage="tank_shock")
        ok = tank_shock_wounds(u)
        roller.annotate(outcome="1 mortal wound" if ok else "no effect")
        mw += ok
    return min(mw, TANK_SHOCK_MAX)
