"""Combat zones and expansions, as far as numbers go: the night-fight visibility penalty, fog of
war, the mysterious objectives and Terrors of the Warp tables, the dogfight modifiers, the
return to combat airspace and a destroyed building's garrison. Their numbers come from the pack
(``combat_zones`` and ``expansions``); a match chooses them before deployment [L571].
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.engine.narrative8e.pack import CombatZone, Expansion, TableRow
from app.engine.narrative8e.setup import NarrativeError
from app.engine.roller import Roller

__all__ = [
    "Arc",
    "airspace_return",
    "dogfight_modifier",
    "fog_of_war_delayed",
    "garrison_losses",
    "night_fight_modifier",
    "roll_on_table",
]


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise NarrativeError(f"{what} must be an integer")
    return value


def night_fight_modifier(zone: CombatZone, distance: float, *, lit: bool = False) -> int:
    """The hit modifier of Reduced Visibility by distance: up to 12" none, up to 24" -1, up to
    36" -2, beyond -3; a distance of exactly 12, 24 or 36 takes the lower penalty [L577-L587].
    ``lit``: the target was chosen with *Light 'em Up!* [L599]."""
    if distance < 0:
        raise NarrativeError("a distance cannot be negative")
    if lit:
        return 0
    bands = zone.params.get("visibility")
    if not isinstance(bands, list):
        raise NarrativeError(f"{zone.id} has no visibility bands")
    for band in bands:
        if not isinstance(band, dict):
            raise NarrativeError(f"{zone.id}: a visibility band is an object")
        up_to = band.get("up_to")
        if up_to is None or distance <= float(_int(up_to, "up_to")):
            return _int(band.get("modifier"), "modifier")
    raise NarrativeError(f"{zone.id}: the visibility bands have no open last band")


def fog_of_war_delayed(zone: CombatZone, roller: Roller, unit: str) -> bool:
    """The first time a unit arrives after the battle starts, a D6: 1-2 it arrives next turn
    [L591]."""
    up_to = _int(zone.params.get("fog_of_war_delayed_up_to", 2), "fog_of_war_delayed_up_to")
    return roller.d6(f"fog of war: {unit}", stage="zone") <= up_to


def roll_on_table(zone: CombatZone, table: str, roller: Roller, label: str) -> TableRow:
    """A D6 on one of the zone's tables (mysterious objectives [L603-L615], Terrors of the
    Warp [L655-L667])."""
    rows = zone.tables.get(table)
    if not rows:
        raise NarrativeError(f"{zone.id} has no table {table!r}")
    die = roller.d6(label, stage="zone")
    for row in rows:
        if row.roll == die:
            return row
    raise NarrativeError(f"{zone.id}.{table} has no row for {die}")


class Arc(enum.StrEnum):
    FRONT = "front"
    REAR = "rear"
    SIDE = "side"


def dogfight_modifier(expansion: Expansion, target_arc: Arc) -> int:
    """The hit modifier by the target aircraft's arc facing the shooter, as the seed writes it:
    rear -2, front +1, side 0 [L891-L895] (rulings A36: kept as data)."""
    return _int(expansion.params.get(f"dogfight_{target_arc.value}"), f"dogfight_{target_arc}")


def airspace_return(
    expansion: Expansion, roller: Roller, aircraft: str, *, refuelled: bool = False
) -> bool:
    """An aircraft that left combat airspace tries to return at the end of its next Movement
    phase: 1-2 delayed, 3+ back [L905]; *Refuel, Rearm, Repair* (any tier) needs no roll
    [L919]."""
    if refuelled:
        return True
    up_to = _int(expansion.params.get("airspace_delayed_up_to", 2), "airspace_delayed_up_to")
    return roller.d6(f"return to airspace: {aircraft}", stage="zone") > up_to


@dataclass(frozen=True, slots=True)
class GarrisonLosses:
    dice: tuple[int, ...]
    slain: int


def garrison_losses(
    models: int, roller: Roller, *, slain_up_to: int = 3, escape_hatch: bool = False
) -> GarrisonLosses:
    """A destroyed Bastion, Bunker or Fortress: a D6 per model that disembarks, each 1-3 slays
    one [L703, L839]; 1 only with *Escape Hatch* [L867]."""
    if not 0 <= models <= 40:
        raise NarrativeError("a garrison is 0 to 40 models")
    limit = 1 if escape_hatch else slain_up_to
    dice = tuple(roller.roll_many(models, 6, "garrison", stage="zone"))
    return GarrisonLosses(dice, sum(1 for d in dice if d <= limit))
