"""The combat zones of the 8th-edition book [L563-L667] in the 10th-edition battle.

A match chooses one before deployment [L571] (``BattleOptions.combat_zone``, its id); the
zone's numbers, as its pack gives them, are recorded at creation in the mission's options
(``combat_zone``), so a replay never reads a pack. What the match has the facts for is applied
here and in the match's attacks: Night Fight's reduced visibility by the distance the player
states (``app.matches.systems.wh40k10e.combat``) and its mysterious objectives, identified by a
D6 the first time a player controls the marker, the *Grav-wave generator*'s -2 to the charge
rolls against the units reported by it and *Support fire*'s end-of-phase roll (ruling 94).
Everything else is the table's (docs/rulings/narrative-8e.md, 54-57).
"""

from __future__ import annotations

from typing import Any

from app.engine.match.codec import RawJson, decoder_for
from app.engine.match.dice import take_roll
from app.engine.narrative8e.pack import CombatZone
from app.engine.narrative8e.zones import roll_on_table
from app.engine.wh40k10e.battle.commands import SupportFire
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import MortalWoundsInflicted
from app.engine.wh40k10e.battle.flow import (
    Builder,
    allocate,
    end_phase,
    need_active,
    need_alive,
    need_phase,
    need_unit,
)
from app.engine.wh40k10e.battle.narrative import ObjectiveIdentified
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import BattleState, Phase

__all__ = [
    "COMMANDS",
    "MYSTERIOUS_TABLE",
    "charge_modifier",
    "identify_objectives",
    "support_fire_hint",
    "support_fire_markers",
    "zone_of",
]

MYSTERIOUS_TABLE = "mysterious_objectives"
SABOTAGED = "sabotaged"
GRAV_WAVE = "grav-wave"
SUPPORT_FIRE = "support-fire"


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


def _row_params(zone: CombatZone, row_id: str) -> dict[str, RawJson]:
    row = next((r for r in zone.tables.get(MYSTERIOUS_TABLE, ()) if r.id == row_id), None)
    params = getattr(row, "params", None)
    return dict(params) if isinstance(params, dict) else {}


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def charge_modifier(s: BattleState) -> int:
    """The *Grav-wave generator* [L609]: a unit charging a unit its controller reported within
    range of the marker (``report_objective``; the match sees no table) subtracts 2 from its
    charge roll; several generators do not add up (ruling 94). 0 when nothing applies."""
    charge = s.charge
    zone = zone_of(s)
    if charge is None or zone is None or MYSTERIOUS_TABLE not in zone.tables:
        return 0
    targets = {p for t in charge.targets for p in s.group(t)}
    for marker, result in sorted(s.mysterious.items()):
        ms = s.markers.get(marker)
        if result != GRAV_WAVE or ms is None or ms.controller in (None, charge.seat):
            continue
        near = s.presence.get(marker, {}).get(ms.controller, ())
        if any(p.unit in targets and s.units[p.unit].alive for p in near):
            return _int(_row_params(zone, GRAV_WAVE).get("charge_modifier"), -2)
    return 0


def _support_fire(b: Builder, cmd: SupportFire) -> None:
    """*Support fire* [L615] at the end of the Shooting phase: a D6 for each Support fire
    marker the player controls and names, on 5+ D3 mortal wounds on the enemy unit it names
    (within 36": the player's word); then the phase ends (ruling 94)."""
    zone = zone_of(b.state)
    if zone is None or MYSTERIOUS_TABLE not in zone.tables:
        raise refuse(Code.BAD_COMMAND, "this match has no mysterious objectives")
    need_phase(b, Phase.SHOOTING)
    need_active(b)
    s = b.state
    if not cmd.targets:
        raise refuse(Code.BAD_COMMAND, "name a Support fire marker and the enemy unit it aims at")
    for marker, unit in cmd.targets.items():
        ms = s.markers.get(marker)
        if ms is None or s.mysterious.get(marker) != SUPPORT_FIRE:
            raise refuse(Code.BAD_TARGET, f"{marker!r} is not an identified Support fire marker")
        if ms.controller is not b.actor:
            raise refuse(Code.NOT_YOUR_CHOICE, f"you do not control {marker}")
        target = need_unit(b, unit)
        if target.owner is b.actor or not s.on_battlefield(unit):
            raise refuse(Code.BAD_TARGET, "Support fire aims at an enemy unit on the battlefield")
        need_alive(b, unit)
    params = _row_params(zone, SUPPORT_FIRE)
    on = _int(params.get("on"), 5)
    for marker, unit in sorted(cmd.targets.items()):
        if not b.state.units[unit].alive:
            continue
        start = len(b.roller.records)
        die = b.roller.d6(f"support fire {marker}", stage="zone")
        mortal = b.roller.d3(f"support fire {marker}: {unit}", stage="zone") if die >= on else 0
        roll = take_roll(b.roller, start)
        fnp = b.feel_no_pain()
        damage = tuple(allocate(b.state, unit, (), mortal_wounds=mortal, ignores=fnp))
        b.emit(MortalWoundsInflicted("support_fire", unit, roll, mortal, damage, fnp.roll))
    end_phase(b)


def support_fire_markers(s: BattleState, seat: Seat) -> list[str]:
    """The markers identified as *Support fire* that ``seat`` controls (ruling 94)."""
    return sorted(
        m
        for m, result in s.mysterious.items()
        if result == SUPPORT_FIRE and m in s.markers and s.markers[m].controller is seat
    )


def support_fire_hint(s: BattleState, seat: Seat) -> SupportFire | None:
    """*Support fire* offered to ``seat`` now: in its Shooting phase, each of its Support fire
    markers aimed at the first enemy unit on the battlefield (the page offers the others).
    ``None``: not now."""
    zone = zone_of(s)
    if zone is None or MYSTERIOUS_TABLE not in zone.tables:
        return None
    if s.phase is not Phase.SHOOTING or s.active is not seat:
        return None
    markers = support_fire_markers(s, seat)
    enemies = sorted(
        u.id
        for u in s.units.values()
        if u.owner is not seat and u.alive and s.on_battlefield(u.id) and s.group(u.id)[0] == u.id
    )
    if not markers or not enemies:
        return None
    return SupportFire(dict.fromkeys(markers, enemies[0]))


COMMANDS: dict[type[Any], Any] = {SupportFire: _support_fire}
