"""The combat zones of the 8th-edition book [L563-L667] in the 10th-edition battle.

A match chooses one before deployment [L571] (``BattleOptions.combat_zone``, its id); the
zone's numbers, as its pack gives them, are recorded at creation in the mission's options
(``combat_zone``), so a replay never reads a pack. What the match has the facts for is applied
here and in the match's attacks: Night Fight's reduced visibility by the distance the player
states (``app.matches.systems.wh40k10e.combat``) and its mysterious objectives, identified by a
D6 the first time a player controls the marker. Everything else is the table's
(docs/rulings/narrative-8e.md, 54-57).
"""

from __future__ import annotations

from app.engine.match.codec import decoder_for
from app.engine.match.dice import take_roll
from app.engine.narrative8e.pack import CombatZone
from app.engine.narrative8e.zones import roll_on_table
from app.engine.wh40k10e.battle.events import MortalWoundsInflicted
from app.engine.wh40k10e.battle.flow import Builder, allocate
from app.engine.wh40k10e.battle.narrative import ObjectiveIdentified
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import BattleState

__all__ = ["MYSTERIOUS_TABLE", "identify_objectives", "zone_of"]

MYSTERIOUS_TABLE = "mysterious_objectives"
SABOTAGED = "sabotaged"


def zone_of(state: BattleState) -> CombatZone | None:
    """The combat zone the match plays in (``None``: none)."""
    setup = state.setup
    if setup is None or setup.options.combat_zone is None:
        return None
    raw = setup.mission.options.get("combat_zone")
    if not isinstance(raw, dict):
        return None
    zone = decoder_for(CombatZone)(raw, "mission.options.combat_zone")
    assert isinstance(zone, CombatZone)
    return zone


def identify_objectives(b: Builder) -> None:
    """Each objective marker a player controls for the first time is identified: a D6 on the
    zone's mysterious objectives table, recorded with its seed; a marker is identified once
    [L603-L615] (rulings 55)."""
    zone = zone_of(b.state)
    if zone is None or MYSTERIOUS_TABLE not in zone.tables:
        return
    for marker, ms in sorted(b.state.markers.items()):
        if ms.controller is None or marker in b.state.mysterious:
            continue
        start = len(b.roller.records)
        row = roll_on_table(zone, MYSTERIOUS_TABLE, b.roller, f"mysterious objective {marker}")
        b.emit(ObjectiveIdentified(marker, ms.controller, take_roll(b.roller, start), row.id))
        if row.id == SABOTAGED:
            _sabotaged(b, marker, ms.controller)


def _sabotaged(b: Builder, marker: str, seat: Seat) -> None:
    """*Sabotaged!* [L605]: the identifying unit suffers D3 mortal wounds. The match knows the
    units the controller reported within range of the marker: the first of them still alive
    identified it (rulings 73)."""
    present = b.state.presence.get(marker, {}).get(seat, ())
    unit = next((p.unit for p in present if b.state.units[p.unit].alive), None)
    if unit is None:
        return
    start = len(b.roller.records)
    mortal = b.roller.d3(f"sabotaged objective {marker}: {unit}", stage="zone")
    roll = take_roll(b.roller, start)
    fnp = b.feel_no_pain()
    damage = tuple(allocate(b.state, unit, (), mortal_wounds=mortal, ignores=fnp))
    b.emit(MortalWoundsInflicted("mysterious_objective", unit, roll, mortal, damage, fnp.roll))
