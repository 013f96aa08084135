"""Armour penetration, hit location and the three vehicle damage tables (note §5.8-§5.9).

Each hit on a vehicle rolls to penetrate (1D6 + S against the facing's armour: equal is a
glancing hit, more a penetrating one [L1403]); each damage result is then resolved one by one:
a location roll (1D6 + the shooter's BS [L1420]) and a damage roll on that location's table
(1D6 + modifiers [L1430], [L1456-L1460]). :class:`VehicleState` carries what a result leaves
behind (markers, hull points, weapons...) so later results in the same attack read it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from fractions import Fraction
from functools import cache

from app.engine.pen import tables
from app.engine.pen.procedures import Dice, enumerate_outcomes
from app.engine.pen.tables import DamageResult, DamageTable, Location

__all__ = [
    "DamageContext",
    "Penetration",
    "PenetrationMode",
    "PenetrationPlan",
    "VehicleState",
    "apply_damage",
    "apply_result",
    "core_transitions",
    "damage_outcomes",
    "damage_procedure",
    "location_procedure",
    "penetration_outcomes",
    "penetration_procedure",
    "read_result",
    "reads_of",
]


class PenetrationMode(StrEnum):
    ONE = "one"  # 1D6 + S [L1403]
    BEST_OF_TWO = "best_of_two"  # Pénétrant: best of 2D6 [L679]
    SUM_TWO = "sum_two"  # Anti-véhicule: 2D6 summed [L632]
    DOUBLE_BEST = "double_best"  # both: twice the best die [L681]


class Penetration(IntEnum):
    NONE = 0
    GLANCING = 1  # dégât superficiel
    PENETRATING = 2  # dégât lourd


@dataclass(frozen=True, slots=True)
class PenetrationPlan:
    """One penetration roll. ``armour`` is the facing's value after Lance [L673]."""

    mode: PenetrationMode
    strength: int
    armour: int
    bonus: int = 0  # Chasseur de blindés +1 [L378]
    rend: bool = False  # Perforant: each 6 adds 1D3 [L683]
    emp: bool = False  # IEM [L655-L657]
    off_centre: bool = False  # blast centre off the vehicle: one step down [L536]


def penetration_procedure(dice: Dice, plan: PenetrationPlan) -> Penetration:
    """Roll to penetrate for one hit.

    Perforant adds 1D3 for each 6 among the dice that count: both dice of Anti-véhicule's sum,
    the kept die of Pénétrant (once, even when doubled) (pen rulings). IEM reads the best die:
    2-5 at least glancing, 6 penetrating [L655-L657].
    """
    first = dice.roll(6, "penetration")
    faces = [first]
    if plan.mode is PenetrationMode.ONE:
        counted = [first]
        total = first
    else:
        second = dice.roll(6, "penetration")
        faces.append(second)
        if plan.mode is PenetrationMode.SUM_TWO:
            counted = [first, second]
            total = first + second
        else:
            best = max(first, second)
            counted = [best]
            total = best * (2 if plan.mode is PenetrationMode.DOUBLE_BEST else 1)
    total += plan.strength + plan.bonus
    if plan.rend:
        for face in counted:
            if face == 6:
                total += dice.roll(3, "rending D3")
    result = (
        Penetration.PENETRATING
        if total > plan.armour
        else Penetration.GLANCING
        if total == plan.armour
        else Penetration.NONE
    )
    if plan.emp:
        best = max(faces)
        if best == 6:
            result = Penetration.PENETRATING
        elif best >= 2:
            result = max(result, Penetration.GLANCING)
    if plan.off_centre:
        result = Penetration(max(0, result - 1))
    dice.annotate(outcome=("no effect", "glancing", "penetrating")[result])
    return result


@cache
def penetration_outcomes(plan: PenetrationPlan) -> dict[Penetration, Fraction]:
    return enumerate_outcomes(lambda dice: penetration_procedure(dice, plan))


@dataclass(frozen=True, slots=True)
class DamageContext:
    """What the damage roll of this attack adds, and the vehicle facts that convert results.

    ``penetrating_modifier``: AP1 +1, AP >= 5 -1 (not IEM) [L1458]; ``glancing_modifier``
    adds the glancing -2 [L1459], tank -1 [L221], open +1 [L225] (neither with IEM [L658]),
    reinforced armour -1 [L349]. ``skill``: the BS (or WS in melee) added to the location roll.
    """

    skill: int
    announced: Location = Location.HULL
    penetrating_modifier: int = 0
    glancing_modifier: int = -2
    aircraft: bool = False
    fast_skimmer_rapid: bool = False
    hull_points: int | None = None

    def modifier(self, kind: Penetration) -> int:
        return self.glancing_modifier if kind is Penetration.GLANCING else self.penetrating_modifier


_ROW_OFFSET = {DamageTable.WEAPONS: 0, DamageTable.MOBILITY: 5, DamageTable.HULL: 10}
_RESULTS = tuple(DamageResult)
_NO_ESCALATION = (DamageResult.NO_EFFECT, DamageResult.DAMAGED, DamageResult.HEAVILY_DAMAGED)


@dataclass(frozen=True, slots=True)
class VehicleState:
    """A vehicle during one attack: what earlier damage results left behind.

    The fields before ``results`` are what later damage rolls read; ``results`` tallies the
    results inflicted in this attack (shaken, stunned... are read from it).
    """

    hull_points_lost: int = 0
    damage_bonus: int = 0  # Endommagé +1 / Très endommagé +2 markers [L1450-L1451]
    weapons_left: int = 1
    weapons_damaged: bool = False
    reduced_mobility: bool = False
    immobilised: bool = False
    destroyed: bool = False
    exploded: bool = False  # destroyed by an Explosé result [L1454]
    reads: tuple[int, ...] = (0,) * 16  # table rows read this turn (escalation [L1460])
    results: tuple[int, ...] = (0,) * len(DamageResult)  # results inflicted this attack

    def count(self, result: DamageResult) -> int:
        return self.results[_RESULTS.index(result)]

    @property
    def shaken(self) -> bool:
        return self.count(DamageResult.SHAKEN) > 0  # [L1436]

    @property
    def stunned(self) -> bool:
        return self.count(DamageResult.DRIVER_STUNNED) > 0  # [L1443]

    @property
    def out_of_control(self) -> bool:
        return self.count(DamageResult.CRASH) + self.count(DamageResult.VIOLENT_CRASH) > 0


def reads_of(results: tuple[DamageResult, ...]) -> tuple[int, ...]:
    """The ``reads`` of a vehicle that already suffered ``results`` this turn: each one is an
    earlier read of the row that prints it [L1460] (results that never move down add nothing).
    """
    reads: tuple[int, ...] = (0,) * 16
    for result in results:
        if result in _NO_ESCALATION:
            continue
        for table, rows in tables.TABLE_ROWS.items():
            for row, (_low, printed) in enumerate(rows):
                if printed is result:
                    reads = _bump(reads, _ROW_OFFSET[table] + row)
    return reads


def _bump(values: tuple[int, ...], index: int) -> tuple[int, ...]:
    return (*values[:index], values[index] + 1, *values[index + 1 :])


_WEAPON_LOST = (DamageResult.WEAPON_DESTROYED, DamageResult.WEAPON_EXPLODES)


@dataclass(frozen=True, slots=True)
class TableView:
    """What one damage roll on one table reads of the vehicle (pen rulings 26)."""

    table: DamageTable
    bonus: int
    reads: tuple[int, ...]  # earlier reads of this table's rows this turn
    weapons_damaged: bool
    reduced_mobility: bool
    immobilised: bool


def _redirect(state: VehicleState, ctx: DamageContext, table: DamageTable) -> DamageTable:
    if table is DamageTable.WEAPONS and state.weapons_left <= 0:
        return DamageTable.HULL  # no weapons left [L1463]
    if table is DamageTable.MOBILITY and (state.immobilised or ctx.aircraft):
        return DamageTable.HULL  # [L1466], [L266]
    return table


def _view(state: VehicleState, table: DamageTable) -> TableView:
    offset = _ROW_OFFSET[table]
    size = len(tables.TABLE_ROWS[table])
    return TableView(
        table,
        state.damage_bonus,
        state.reads[offset : offset + size],
        state.weapons_damaged,
        state.reduced_mobility,
        state.immobilised,
    )


def read_result(
    dice: Dice, view: TableView, ctx: DamageContext, kind: Penetration
) -> tuple[DamageResult, int | None]:
    """Roll the damage die on ``view.table``: the result after escalation and conversions,
    and the row read (None when the read does not count for escalation).

    Read the row with the modified roll [L1430], [L1456-L1459]; each earlier read of the same
    row this turn moves it one row down (not "no effect", Endommagé, Très endommagé [L1460]);
    then the conversions [L1462], [L1464], [L1465], [L1467], [L266].
    """
    table = view.table
    face = dice.roll(6, f"damage ({table.value})")
    roll = face + ctx.modifier(kind) + view.bonus
    rows = tables.TABLE_ROWS[table]
    row = tables.damage_row(table, roll)
    result = rows[row][1]
    counted: int | None = None
    if result not in _NO_ESCALATION:
        last = len(rows) - 1
        result = rows[min(last, row + view.reads[row])][1]
        if row + view.reads[row] < last:  # past the last row more reads change nothing
            counted = row
    if result is DamageResult.WEAPONS_DAMAGED and view.weapons_damaged:
        result = DamageResult.WEAPON_DESTROYED  # [L1462]
    if result is DamageResult.REDUCED_MOBILITY and view.reduced_mobility:
        result = DamageResult.IMMOBILISED  # [L1464]
    if result is DamageResult.IMMOBILISED and ctx.fast_skimmer_rapid:
        result = DamageResult.CRASH  # [L1465]
    if result is DamageResult.VIOLENT_CRASH and (view.immobilised or ctx.aircraft):
        result = DamageResult.DESTROYED  # [L1467], [L266]
    dice.annotate(modifier=roll - face, outcome=result.value)
    return result, counted


def apply_result(
    state: VehicleState,
    ctx: DamageContext,
    table: DamageTable,
    result: DamageResult,
    counted: int | None,
) -> VehicleState:
    """The vehicle after one damage result (no dice): markers and hull points [L1450-L1451],
    [L1461], weapons, mobility, destruction; then what no later roll can read is forgotten so
    that equal futures share one state (weapons table once no weapon is left [L1463], mobility
    table once immobilised or on an aircraft [L1466], [L266], everything once destroyed)."""
    reads = state.reads
    if counted is not None:
        reads = _bump(reads, _ROW_OFFSET[table] + counted)
    lost = state.hull_points_lost
    bonus = state.damage_bonus
    destroyed = result in (DamageResult.DESTROYED, DamageResult.EXPLODED)
    if result in (DamageResult.DAMAGED, DamageResult.HEAVILY_DAMAGED):
        points = 1 if result is DamageResult.DAMAGED else 2
        bonus += points
        lost += points
        if ctx.hull_points is not None and lost >= ctx.hull_points:
            lost = ctx.hull_points
            destroyed = True  # 0 hull points [L1461]
    results = state.results
    if result is not DamageResult.NO_EFFECT:
        results = _bump(results, _RESULTS.index(result))
    weapons_left = state.weapons_left - 1 if result in _WEAPON_LOST else state.weapons_left
    weapons_damaged = state.weapons_damaged or result is DamageResult.WEAPONS_DAMAGED
    reduced = state.reduced_mobility or result is DamageResult.REDUCED_MOBILITY
    immobilised = state.immobilised or result is DamageResult.IMMOBILISED
    if weapons_left <= 0:
        weapons_left = 0
        weapons_damaged = False
        reads = _NO_TABLE_READS + reads[5:]
    if immobilised or ctx.aircraft:
        reduced = False
        reads = reads[:5] + _NO_TABLE_READS + reads[10:]
    if destroyed:
        reads = _NO_READS
    return VehicleState(
        lost,
        bonus,
        weapons_left,
        weapons_damaged,
        reduced,
        immobilised,
        destroyed,
        state.exploded or result is DamageResult.EXPLODED,
        reads,
        results,
    )


def apply_damage(
    dice: Dice,
    state: VehicleState,
    ctx: DamageContext,
    kind: Penetration,
    table: DamageTable,
) -> VehicleState:
    """Roll and apply one damage result on ``table`` (after the location roll); an exploding
    weapon adds a glancing hull damage [L1439]. A destroyed vehicle takes no more results."""
    if state.destroyed or kind is Penetration.NONE:
        return state
    table = _redirect(state, ctx, table)
    result, counted = read_result(dice, _view(state, table), ctx, kind)
    state = apply_result(state, ctx, table, result, counted)
    if result is DamageResult.WEAPON_EXPLODES:
        state = apply_damage(dice, state, ctx, Penetration.GLANCING, DamageTable.HULL)
    return state


_NO_TABLE_READS = (0,) * 5
_NO_READS = (0,) * 16
_LOCATION_TABLE = {
    Location.WEAPONS: DamageTable.WEAPONS,
    Location.MOBILITY: DamageTable.MOBILITY,
    Location.HULL: DamageTable.HULL,
}


def location_procedure(dice: Dice, ctx: DamageContext) -> DamageTable:
    """The hit-location roll: 1D6 + BS [L1420-L1426]."""
    face = dice.roll(6, "hit location")
    location = tables.hit_location(face + ctx.skill, ctx.announced)
    dice.annotate(modifier=ctx.skill, outcome=location.value)
    return _LOCATION_TABLE[location]


def damage_procedure(
    dice: Dice, state: VehicleState, ctx: DamageContext, kind: Penetration
) -> VehicleState:
    """One damage result: location (1D6 + BS [L1420]) then its table."""
    if state.destroyed or kind is Penetration.NONE:
        return state
    return apply_damage(dice, state, ctx, kind, location_procedure(dice, ctx))


_NO_RESULTS = (0,) * len(DamageResult)


@cache
def _location_outcomes(ctx: DamageContext) -> tuple[tuple[DamageTable, Fraction], ...]:
    return tuple(enumerate_outcomes(lambda dice: location_procedure(dice, ctx)).items())


@cache
def _read_outcomes(
    view: TableView, ctx: DamageContext, kind: Penetration
) -> tuple[tuple[tuple[DamageResult, int | None], Fraction], ...]:
    return tuple(enumerate_outcomes(lambda dice: read_result(dice, view, ctx, kind)).items())


def _table_outcomes(
    state: VehicleState, ctx: DamageContext, kind: Penetration, table: DamageTable
) -> list[tuple[VehicleState, Fraction]]:
    """Exact outcomes of :func:`apply_damage`: the same steps, the die enumerated once per
    :class:`TableView` (what it reads) and shared by every state with that view."""
    if state.destroyed or kind is Penetration.NONE:
        return [(state, Fraction(1))]
    table = _redirect(state, ctx, table)
    out: list[tuple[VehicleState, Fraction]] = []
    for (result, counted), p in _read_outcomes(_view(state, table), ctx, kind):
        after = apply_result(state, ctx, table, result, counted)
        if result is DamageResult.WEAPON_EXPLODES:
            out.extend(
                (st, p * q)
                for st, q in _table_outcomes(after, ctx, Penetration.GLANCING, DamageTable.HULL)
            )
        else:
            out.append((after, p))
    return out


@cache
def _core_outcomes(
    core: VehicleState, ctx: DamageContext, kind: Penetration
) -> tuple[tuple[VehicleState, Fraction], ...]:
    merged: dict[VehicleState, Fraction] = {}
    for table, p in _location_outcomes(ctx):
        for after, q in _table_outcomes(core, ctx, kind, table):
            merged[after] = merged.get(after, Fraction(0)) + p * q
    return tuple(merged.items())


@cache
def core_transitions(
    core: VehicleState, ctx: DamageContext, kind: Penetration
) -> tuple[tuple[VehicleState, tuple[int, ...], int, int], ...]:
    """From a state with an empty tally: (next state with an empty tally, results inflicted,
    numerator, denominator) for every outcome of one damage result."""
    out: list[tuple[VehicleState, tuple[int, ...], int, int]] = []
    for after, p in _core_outcomes(core, ctx, kind):
        out.append((replace(after, results=_NO_RESULTS), after.results, p.numerator, p.denominator))
    return tuple(out)


def damage_outcomes(
    state: VehicleState, ctx: DamageContext, kind: Penetration
) -> dict[VehicleState, Fraction]:
    """Exact distribution of :func:`damage_procedure` (the result tally is bookkeeping: the
    dice only see the rest of the state, so they are enumerated once per such state)."""
    core = replace(state, results=_NO_RESULTS)
    out: dict[VehicleState, Fraction] = {}
    for after, p in _core_outcomes(core, ctx, kind):
        tally = tuple(a + b for a, b in zip(after.results, state.results, strict=True))
        key = replace(after, results=tally)
        out[key] = out.get(key, Fraction(0)) + p
    return out
