"""How far a squad moves (pen.md §2.2, §5.2): the seed's normal move by unit type and the
rapid move's coefficient [L1047-L1077].

A squad of several types keeps the best move [L127]: a fast walking skimmer moves as a fast
skimmer [L239-L243]. Infantry, monstrous creatures, firing platforms (which move as infantry
[L184]) and walkers multiply their normal move by 1.5 instead of 2 unless they have *Course*
or *Charge rapide* [L1052], [L386]; *Supersonique* multiplies it by 3 [L461], and an aircraft
is a supersonic flyer [L253].
"""

from __future__ import annotations

from app.engine.pen.names import Rule
from app.engine.pen.profiles import Unit, UnitType, Vehicle, VehicleType

__all__ = ["moves"]

# the normal move of each non-vehicle type, in ps [L1065-L1072]; a flying monstrous
# creature is a monstrous creature and a flying unit, and keeps the better move [L127], [L178]
_UNIT_NORMAL: dict[UnitType, int] = {
    UnitType.INFANTRY: 6,
    UnitType.MONSTROUS_CREATURE: 6,
    UnitType.FIRING_PLATFORM: 6,
    UnitType.JET_PACK: 6,
    UnitType.CAVALRY: 9,
    UnitType.BEAST: 9,
    UnitType.JUMP: 12,
    UnitType.BIKE: 12,
    UnitType.JETBIKE: 12,
    UnitType.FLYING_MONSTROUS_CREATURE: 12,
}
# the types whose rapid move is x1.5 rather than x2 [L1052]
_SLOW: frozenset[UnitType] = frozenset(
    {UnitType.INFANTRY, UnitType.MONSTROUS_CREATURE, UnitType.FIRING_PLATFORM}
)


def _rapid(normal: int, halves: int) -> int:
    """``normal`` times ``halves`` / 2 (x1.5 is 3 halves), rounded down."""
    return normal * halves // 2


def _unit_moves(unit: Unit) -> tuple[int, int]:
    normal = _UNIT_NORMAL[unit.unit_type]
    if unit.has(Rule.SUPERSONIC):
        return normal, _rapid(normal, 6)
    slow = unit.unit_type in _SLOW and not unit.has(Rule.FLEET)
    return normal, _rapid(normal, 3 if slow else 4)


def _vehicle_moves(vehicle: Vehicle) -> tuple[int, int]:
    fleet = vehicle.has(Rule.FLEET)
    rows: list[tuple[int, int]] = []  # (normal, halves) of each of its types [L1073-L1077]
    if vehicle.is_(VehicleType.FAST):
        rows.append((12 if vehicle.is_(VehicleType.SKIMMER) else 9, 4))  # [L233]
    elif vehicle.is_(VehicleType.SKIMMER):
        rows.append((6, 4))  # [L1075]
    if vehicle.is_(VehicleType.WALKER):
        rows.append((6, 4 if fleet else 3))  # [L1073], [L1052]
    if not rows:
        rows.append((6, 4))  # a vehicle [L196], [L1074]
    supersonic = vehicle.is_(VehicleType.AIRCRAFT) or vehicle.has(Rule.SUPERSONIC)
    normal = max(n for n, _ in rows)
    rapid = max(_rapid(n, 6 if supersonic else h) for n, h in rows)
    return normal, rapid


def moves(profile: Unit | Vehicle) -> tuple[int, int]:
    """The squad's normal and rapid moves in ps, from its type and rules."""
    if isinstance(profile, Vehicle):
        return _vehicle_moves(profile)
    return _unit_moves(profile)
