"""Decisions of the expansions (see :mod:`.narrative_expansions`): their commands, the effects
of their stratagems and their hooks into the narrative missions' reserves, deployment and end.
Every handler refuses with a coded refusal; every number comes from the expansion recorded at
creation (the shipped pack's)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.engine.match.codec import Tagged
from app.engine.match.dice import take_roll
from app.engine.narrative8e.pack import Side, Stratagem
from app.engine.narrative8e.setup import NarrativeError
from app.engine.narrative8e.zones import Arc, airspace_return, dogfight_modifier
from app.engine.wh40k10e.battle import narrative_building_attacks as building_attacks
from app.engine.wh40k10e.battle import narrative_skies as skies
from app.engine.wh40k10e.battle.commands import (
    DamageBuilding,
    DogfightPass,
    DogfightPick,
    Firestorm,
    GarrisonRoll,
    LeaveAirspace,
    LeaveBuilding,
    MedicalRoll,
    OccupyBuilding,
    PlaceBuilding,
    ReturnToAirspace,
    TriggerTrap,
)
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.flow import (
    Builder,
    allocate,
    need_active,
    need_alive,
    need_battle,
    need_own,
    need_phase,
    need_unit,
)
from app.engine.wh40k10e.battle.narrative import NarrativeState
from app.engine.wh40k10e.battle.narrative_expansions import (
    CITIES,
    PLANETSTRIKE,
    SKIES,
    STRONGHOLD,
    AircraftLost,
    AirspaceChanged,
    Building,
    BuildingDamaged,
    BuildingLeft,
    BuildingOccupied,
    BuildingPlaced,
    BuildingWoundsRaised,
    DogfightPassed,
    DogfightPicked,
    ExpansionArrival,
    ExpansionState,
    FirestormAttacked,
    FirestormFinished,
    GarrisonRolled,
    MedicalRolled,
    PlanetfallRecorded,
    RuinDesignated,
    SewerRatsSent,
    StratagemRolled,
    TrapTriggered,
    living_occupants,
    medical_pending,
)
from app.engine.wh40k10e.battle.narrative_guards import actor_side as _side
from app.engine.wh40k10e.battle.narrative_guards import need_narrative as _n
from app.engine.wh40k10e.battle.setup import Seat, other
from app.engine.wh40k10e.battle.state import BattleState, Location, ModelDamage, Phase, Stage

__all__ = [
    "COMMANDS",
    "after_stratagem",
    "aircraft_lost",
    "deploy_check",
    "expansion_candidates",
    "expansion_stratagem",
    "firestorm_pending",
    "reserve_override",
    "stratagem_timing",
]

MAX_BUILDINGS = 16
MAX_FIRESTORM_ATTACKS = 12
MAX_REPORTED_WOUNDS = 60
RUIN = re.compile(r"^[\w .'-]{1,40}$")
SET_UP = (Stage.NARRATIVE, Stage.ROLL_OFF, Stage.DECLARE_FORMATIONS)


def _x(b: Builder, *ids: str) -> ExpansionState:
    x = _n(b).expansion
    if x is None or (ids and x.id not in ids):
        raise refuse(Code.BAD_COMMAND, f"this match is not played with {' or '.join(ids)}")
    return x


def _param(x: ExpansionState, key: str, default: int) -> int:
    value = x.expansion.params.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _need_building(b: Builder, x: ExpansionState, building: str) -> Building:
    found = x.building(building)
    if found is None:
        names = ", ".join(bb.id for bb in x.buildings) or "none yet"
        raise refuse(Code.BAD_TARGET, f"no building {building!r} (buildings: {names})")
    return found


# -- buildings -------------------------------------------------------------------------------


def _place_building(b: Builder, cmd: PlaceBuilding) -> None:
    x = _x(b, PLANETSTRIKE, STRONGHOLD)
    if b.state.stage not in SET_UP:
        raise refuse(Code.WRONG_STAGE, "buildings are set up before the first turn")
    if _n(b).reserves or any(u.location is Location.BATTLEFIELD for u in b.state.units.values()):
        # ruling 79: the battlefield, buildings included, is set up before any unit
        raise refuse(Code.WRONG_STAGE, "buildings are set up before the armies deploy")
    if _side(b) is not Side.DEFENDER:
        raise refuse(Code.NOT_YOUR_CHOICE, "the Defender sets up the fortifications")
    spec = x.structure(cmd.building)
    if spec is None:
        kinds = ", ".join(str(s.get("id")) for s in x.expansion.structures)
        raise refuse(Code.BAD_COMMAND, f"{x.id} has no building {cmd.building!r} ({kinds})")
    if len(x.buildings) >= MAX_BUILDINGS:
        raise refuse(Code.BAD_COMMAND, f"at most {MAX_BUILDINGS} buildings")
    weapon = _weapon(spec, cmd.weapon)
    number = sum(1 for bb in x.buildings if bb.kind == cmd.building) + 1
    b.emit(
        BuildingPlaced(
            f"{cmd.building}-{number}",
            cmd.building,
            b.actor,
            _int(spec.get("wounds"), 1),
            _int(spec.get("capacity"), 0),
            weapon,
        )
    )


def _weapon(spec: Any, given: str | None) -> str | None:
    """An emplacement's one gun (Icarus lascannon or quad-gun) [L709]; a Fortress's extra
    heavy bolters, 0-4 [L837] (``heavy-bolter:N``); nothing for the others."""
    one_of = spec.get("weapons_one_of")
    if isinstance(one_of, list):
        if given not in one_of:
            raise refuse(Code.BAD_COMMAND, f"choose its weapon: {', '.join(map(str, one_of))}")
        return given
    extra = spec.get("extra_heavy_bolters_up_to")
    if isinstance(extra, int):
        if given is None:
            return "heavy-bolter:0"
        m = re.fullmatch(r"heavy-bolter:([0-9])", given)
        if m is None or int(m.group(1)) > extra:
            raise refuse(Code.BAD_COMMAND, f"extra weapons: heavy-bolter:0 to heavy-bolter:{extra}")
        return given
    if given is not None:
        raise refuse(Code.BAD_COMMAND, "this building has no weapon to choose")
    return None


def _occupy(b: Builder, cmd: OccupyBuilding) -> None:
    x = _x(b, PLANETSTRIKE, STRONGHOLD)
    building = _need_building(b, x, cmd.building)
    s = b.state
    if s.stage is Stage.BATTLE:
        need_phase(b, Phase.MOVEMENT)
        need_active(b)
    elif s.stage not in SET_UP:
        raise refuse(Code.WRONG_STAGE, "units enter a building in their Movement phase")
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    if building.destroyed:
        raise refuse(Code.BAD_TARGET, f"{building.id} is destroyed")
    if building.capacity <= 0:
        raise refuse(Code.BAD_TARGET, f"{building.id} cannot be occupied")
    if not s.all_have_keyword(cmd.unit, "INFANTRY"):
        raise refuse(Code.BAD_COMMAND, f"{s.specs[cmd.unit].name}: only INFANTRY occupy it")
    if building.kind == "bastion" and _side(b) is not Side.DEFENDER:
        raise refuse(Code.NOT_YOUR_CHOICE, "only the Defender's INFANTRY occupy a Bastion")
    if x.occupied_by(cmd.unit) is not None:
        raise refuse(Code.BAD_COMMAND, f"{s.specs[cmd.unit].name} is in a building already")
    if s.stage in SET_UP and building.controller is not b.actor:
        # ruling 79: before the battle only its controller's units enter it; a Bunker or
        # Fortress changes hands in the battle [L851-L855]
        raise refuse(
            Code.NOT_YOUR_CHOICE, f"{building.id} is your opponent's until the battle begins"
        )
    inside = living_occupants(s, building)  # ruling 77: the slain hold nothing
    if inside and building.controller is not b.actor:
        raise refuse(Code.BAD_TARGET, f"{building.id} is held by your opponent")
    group = s.group(cmd.unit)
    models = sum(s.units[i].models_alive for i in group)
    there = sum(m for _, m in inside)
    if there + models > building.capacity:
        raise refuse(
            Code.BAD_COMMAND,
            f"{building.id} holds {building.capacity} models; "
            f"{there} are inside and the unit has {models}",
        )
    captured = building.controller is not b.actor
    b.emit(BuildingOccupied(building.id, group, models, b.actor, captured))


def _leave(b: Builder, cmd: LeaveBuilding) -> None:
    x = _x(b, PLANETSTRIKE, STRONGHOLD)
    building = _need_building(b, x, cmd.building)
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    need_own(b, cmd.unit)
    inside = [u for u, _ in building.occupants]
    if cmd.unit not in inside:
        raise refuse(Code.BAD_COMMAND, f"{b.state.specs[cmd.unit].name} is not in {building.id}")
    group = tuple(u for u in b.state.group(cmd.unit) if u in inside) or (cmd.unit,)
    b.emit(BuildingLeft(building.id, group))


def _damage_building(b: Builder, cmd: DamageBuilding) -> None:
    x = _x(b, PLANETSTRIKE, STRONGHOLD)
    need_battle(b)
    building = _need_building(b, x, cmd.building)
    if building.destroyed:
        raise refuse(Code.BAD_TARGET, f"{building.id} is destroyed")
    if building.controller is b.actor:
        raise refuse(
            Code.NOT_YOUR_CHOICE, "report the damage your attacks did to an enemy building"
        )
    if not 0 <= cmd.wounds <= MAX_REPORTED_WOUNDS or not 0 <= cmd.demolitions <= 60:
        raise refuse(Code.BAD_COMMAND, f"wounds are 0..{MAX_REPORTED_WOUNDS}")
    if cmd.demolitions:
        # Demolitions [L809-L813]: the Attacker's wound rolls of 6+ fighting a Fortress or
        # Bunker, each one mortal wound more
        if x.id != STRONGHOLD or building.kind not in ("bunker", "fortress"):
            raise refuse(Code.BAD_COMMAND, "Demolitions is against a Bunker or Fortress")
        if _side(b) is not Side.ATTACKER or b.state.phase is not Phase.FIGHT:
            raise refuse(Code.WRONG_PHASE, "Demolitions: the Attacker's attacks in the Fight phase")
    if cmd.wounds + cmd.demolitions == 0:
        raise refuse(Code.BAD_COMMAND, "report at least one wound")
    _hit_building(b, building, cmd.wounds + cmd.demolitions, "attacks", cmd.demolitions)


def _hit_building(
    b: Builder, building: Building, wounds: int, source: str, demolitions: int = 0
) -> None:
    destroyed = wounds >= building.wounds
    b.emit(BuildingDamaged(building.id, wounds, source, demolitions, destroyed))


def _garrison_roll(b: Builder, cmd: GarrisonRoll) -> None:
    x = _x(b, PLANETSTRIKE, STRONGHOLD)
    building = _need_building(b, x, cmd.building)
    if not building.garrison_due:
        raise refuse(Code.BAD_COMMAND, f"no garrison of {building.id} to roll for")
    if building.controller is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, "the building's controller rolls for its garrison")
    due = [u for u, _ in building.garrison_due]
    order = list(cmd.order) or due
    if sorted(order) != sorted(due):
        raise refuse(Code.BAD_COMMAND, f"order the garrison's units: {', '.join(due)}")
    n = _n(b)
    spec = x.structure(building.kind) or {}
    up_to = _int(spec.get("garrison_slain_up_to"), 3)
    if any(s is b.actor and i == "escape-hatch" and t == building.id for s, i, t in n.aimed):
        up_to = 1  # Escape Hatch [L865-L867]
    models = sum(b.state.units[u].models_alive for u in order)
    start = len(b.roller.records)
    dice = b.roller.roll_many(models, 6, f"garrison of {building.id}", stage="zone")
    slain = sum(1 for d in dice if d <= up_to)
    b.emit(
        GarrisonRolled(
            building.id, take_roll(b.roller, start), up_to, slain, _slay(b.state, order, slain)
        )
    )


def _slay(s: BattleState, order: list[str], count: int) -> tuple[ModelDamage, ...]:
    """``count`` whole models slain, in the controller's order of units (each unit's models
    in slot order)."""
    out: list[ModelDamage] = []
    for u in order:
        for slot, w in enumerate(s.units[u].wounds):
            if len(out) == count:
                return tuple(out)
            if w > 0:
                out.append(ModelDamage(u, slot, w))
    return tuple(out)


# -- Planetstrike ----------------------------------------------------------------------------


def firestorm_pending(s: BattleState) -> bool:
    """Planetstrike: the first turn waits for the Attacker's Firestorm Attacks."""
    n = s.narrative
    return (
        n is not None
        and n.expansion is not None
        and n.expansion.id == PLANETSTRIKE
        and not n.expansion.firestorm_done
    )


def _firestorm(b: Builder, cmd: Firestorm) -> None:
    x = _x(b, PLANETSTRIKE)
    n = _n(b)
    s = b.state
    if not (s.stage is Stage.ROLL_OFF and n.step == "first_turn") or x.firestorm_done:
        raise refuse(
            Code.WRONG_STAGE, "the Firestorm Attacks come after deployment, before the first turn"
        )
    if _side(b) is not Side.ATTACKER:
        raise refuse(Code.NOT_YOUR_CHOICE, "the Attacker makes the Firestorm Attacks")
    fixed = x.expansion.params.get("firestorm_attacks")
    if isinstance(fixed, int) and cmd.attacks != fixed:
        raise refuse(Code.BAD_COMMAND, f"this mission makes {fixed} Firestorm Attacks")
    if not 0 <= cmd.attacks <= MAX_FIRESTORM_ATTACKS:
        raise refuse(Code.BAD_COMMAND, f"0 to {MAX_FIRESTORM_ATTACKS} Firestorm Attacks")
    dice = _param(x, "firestorm_dice", 6)
    hits: dict[int, tuple[str, ...]] = {}
    for key, targets in cmd.hits.items():
        if not (key.isascii() and key.isdecimal()) or not 1 <= int(key) <= dice:
            raise refuse(Code.BAD_COMMAND, f"the Firestorm dice are numbered 1 to {dice}")
        for t in targets:
            building = x.building(t)
            if building is None:
                need_unit(b, t)
                if not s.on_battlefield(t):
                    raise refuse(Code.NOT_ON_BATTLEFIELD, f"{s.specs[t].name} is not on the table")
            elif building.destroyed:
                raise refuse(Code.BAD_TARGET, f"{t} is destroyed")
        hits[int(key)] = tuple(dict.fromkeys(targets))
    for u in cmd.go_to_ground:
        need_unit(b, u)
        if s.units[u].owner is b.actor:
            raise refuse(Code.NOT_YOUR_CHOICE, "the Defender's units go to ground")
        if not s.all_have_keyword(u, "INFANTRY"):
            raise refuse(Code.BAD_COMMAND, f"{s.specs[u].name}: only INFANTRY go to ground")
    total = cmd.attacks + x.firestorm_extra
    grounded_seen: set[str] = set()
    for number in range(1, total + 1):
        start = len(b.roller.records)
        die = b.roller.d6(f"firestorm attack {number}", stage="zone")
        out: list[tuple[str, int]] = []
        damage: list[ModelDamage] = []
        grounded: list[str] = []
        for t in hits.get(die, ()):
            current = b.state
            xs = _n(b).expansion
            assert xs is not None
            bld = xs.building(t)
            if bld is not None:
                if bld.destroyed:
                    continue
                mw = b.roller.d6(f"firestorm damage {t}", stage="zone")
                out.append((t, mw))
                continue
            if not current.units[t].alive:
                continue
            ground = t in cmd.go_to_ground
            mw = (
                b.roller.d3(f"firestorm damage {t} (gone to ground)", stage="zone")
                if ground
                else b.roller.d6(f"firestorm damage {t}", stage="zone")
            )
            out.append((t, mw))
            fnp = b.feel_no_pain()
            damage += allocate(current, t, (), mortal_wounds=mw, ignores=fnp)
            if ground and t not in grounded_seen:
                grounded.append(t)
                grounded_seen.add(t)
        roll = take_roll(b.roller, start)
        b.emit(FirestormAttacked(number, die, roll, tuple(out), tuple(damage), tuple(grounded)))
        for t, mw in out:
            xs = _n(b).expansion
            assert xs is not None
            bld = xs.building(t)
            if bld is not None and not bld.destroyed:
                _hit_building(b, bld, mw, "firestorm")
    b.emit(FirestormFinished(total))


def planetfall(b: Builder, units: tuple[str, ...]) -> None:
    """Planetary Assault [L687]: each Attacker unit held in Reserve arrives from orbit
    (INFANTRY, or able to FLY) or from its landing zone (the others)."""
    s = b.state
    placements = {
        u: "orbit"
        if s.all_have_keyword(u, "INFANTRY") or s.all_have_keyword(u, "FLY")
        else ("landing_zone")
        for u in units
        if s.units[u].embarked_in is None
    }
    if placements:
        b.emit(PlanetfallRecorded(placements))


def deploy_check(b: Builder, side: Side, deploying: tuple[str, ...]) -> bool:
    """Planetstrike: the Attacker sets up no unit, all start in Reserve [L687] (True: the
    mission's own reserve limits do not apply to it)."""
    x = _n(b).expansion
    if x is None or x.id != PLANETSTRIKE or side is not Side.ATTACKER:
        return False
    if deploying:
        raise refuse(
            Code.BAD_COMMAND,
            "Planetary Assault: every Attacker unit starts in Reserve (name them in reserves)",
        )
    return True


def reserve_override(b: Builder, unit: str) -> bool:
    """A reserve roll the expansion decides (True: handled here): Planetstrike's Attacker
    units roll 3+ at the end of each of their Movement phases from the first [L689] (or arrive
    with no roll after *Rapid Drop Assault*); *Sewer Rats* arrive with no roll."""
    from app.engine.wh40k10e.battle.events import UnitArrived
    from app.engine.wh40k10e.battle.narrative import ReserveRolled
    from app.engine.wh40k10e.battle.state import ReserveKind

    n = _n(b)
    x = n.expansion
    if x is None:
        return False
    s = b.state
    if unit in x.sewer:
        b.emit(ReserveRolled(unit, True, "sewer_rats"))
        b.emit(ExpansionArrival(unit, "sewer_rats", s.round))
        b.emit(UnitArrived(s.group(unit), ReserveKind.STRATEGIC))
        return True
    if x.id != PLANETSTRIKE or unit not in x.placements:
        return False
    how = x.placements[unit]
    if x.rapid_drop_left > 0 and s.round == 1:  # ruling 78: the first Movement phase only
        b.emit(ReserveRolled(unit, True, "rapid_drop_assault"))
        b.emit(ExpansionArrival(unit, "rapid_drop", s.round))
        b.emit(UnitArrived(s.group(unit), ReserveKind.STRATEGIC))
        return True
    start = len(b.roller.records)
    die = b.roller.d6(f"planetary assault: {unit}", stage="zone")
    arrives = die >= _param(x, "reserves_arrive_on", 3)
    b.emit(ReserveRolled(unit, arrives, f"planetary_assault_{how}", take_roll(b.roller, start)))
    if arrives:
        b.emit(ExpansionArrival(unit, how, s.round))
        b.emit(UnitArrived(s.group(unit), ReserveKind.STRATEGIC))
    return True


# -- Death from the Skies --------------------------------------------------------------------


def _need_aircraft(b: Builder, unit: str) -> None:
    if not b.state.any_keyword(unit, "AIRCRAFT"):
        raise refuse(Code.BAD_COMMAND, f"{b.state.specs[unit].name} is not an AIRCRAFT")


def _leave_airspace(b: Builder, cmd: LeaveAirspace) -> None:
    _x(b, SKIES)
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    _need_aircraft(b, cmd.unit)
    b.emit(AirspaceChanged(cmd.unit, True, b.state.round))


def _return_to_airspace(b: Builder, cmd: ReturnToAirspace) -> None:
    x = _x(b, SKIES)
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    need_own(b, cmd.unit)
    left = x.off_airspace.get(cmd.unit)
    if left is None:
        raise refuse(Code.BAD_COMMAND, f"{b.state.specs[cmd.unit].name} did not leave")
    if left >= b.state.round:
        raise refuse(Code.WRONG_STAGE, "it tries to return at the end of its next Movement phase")
    if (cmd.unit, b.state.round) in x.returns_tried:
        raise refuse(Code.BAD_COMMAND, "one return roll per Movement phase")
    refuelled = cmd.unit in x.refuelled
    start = len(b.roller.records)
    back = airspace_return(x.expansion, b.roller, cmd.unit, refuelled=refuelled)
    roll = take_roll(b.roller, start) if len(b.roller.records) > start else None
    b.emit(AirspaceChanged(cmd.unit, False, b.state.round, back, roll, refuelled))


def _current_picks(s: BattleState, x: ExpansionState) -> list[Any]:
    return [p for p in x.picks if p.round == s.round and p.active is s.active]


def _passed(s: BattleState, x: ExpansionState) -> set[Seat]:
    return {seat for r, a, seat in x.passes if r == s.round and a is s.active}


def dogfight_turn(s: BattleState, x: ExpansionState) -> Seat | None:
    """Whose pick it is in this turn's Dogfight (``None``: over): starting with the player
    whose turn it is, alternately, a player who passed picks no more [L887]."""
    if s.phase is not Phase.SHOOTING or s.active is None:
        return None
    passed = _passed(s, x)
    picks = _current_picks(s, x)
    turn = s.active if len(picks) % 2 == 0 else other(s.active)
    if turn in passed:
        turn = other(turn)
    return None if turn in passed else turn


def _dogfight_pick(b: Builder, cmd: DogfightPick) -> None:
    x = _x(b, SKIES)
    s = b.state
    need_phase(b, Phase.SHOOTING)
    if any(u.shot for u in s.units.values()):
        raise refuse(Code.WRONG_STEP, "the Dogfight comes before any unit shoots this phase")
    if dogfight_turn(s, x) is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, "it is your opponent's pick in the Dogfight")
    need_own(b, cmd.aircraft)
    need_alive(b, cmd.aircraft)
    _need_aircraft(b, cmd.aircraft)
    target = need_unit(b, cmd.target)
    if target.owner is b.actor:
        raise refuse(Code.BAD_TARGET, "the target is an enemy AIRCRAFT")
    need_alive(b, cmd.target)
    _need_aircraft(b, cmd.target)
    for u in (cmd.aircraft, cmd.target):
        if not s.on_battlefield(u):  # one that left combat airspace is not there (ruling 93)
            raise refuse(Code.NOT_ON_BATTLEFIELD, f"{s.specs[u].name} is not on the battlefield")
    picks = _current_picks(s, x)
    if any(p.aircraft == cmd.aircraft for p in picks):
        raise refuse(Code.BAD_COMMAND, "each AIRCRAFT dogfights once a phase")
    try:
        arc = Arc(cmd.arc)
    except ValueError:
        raise refuse(Code.BAD_COMMAND, "the arc is front, side or rear") from None
    try:
        modifier = dogfight_modifier(x.expansion, arc)
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, str(exc)) from None
    # Evasive Manoeuvres: -1 to the aircraft's hit rolls until the end of the turn [L915]
    if (s.round, s.active, cmd.aircraft) in x.evasive:
        modifier -= 1
    assert s.active is not None
    b.emit(
        DogfightPicked(b.actor, cmd.aircraft, cmd.target, arc.value, modifier, s.round, s.active)
    )
    skies.picked(b, cmd.aircraft, cmd.target)  # its attack is resolved as any (ruling 93)


def _dogfight_pass(b: Builder, cmd: DogfightPass) -> None:
    x = _x(b, SKIES)
    need_phase(b, Phase.SHOOTING)
    s = b.state
    if dogfight_turn(s, x) is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, "it is not your pick in the Dogfight")
    assert s.active is not None
    b.emit(DogfightPassed(b.actor, s.round, s.active))


def aircraft_lost(b: Builder) -> None:
    """As the battle ends: aircraft that left combat airspace and never returned count as
    destroyed [L907]."""
    n = b.state.narrative
    if n is None or n.expansion is None or n.expansion.id != SKIES:
        return
    from app.engine.wh40k10e.battle.narrative import AttackerUnitsDown

    lost = tuple(sorted(n.expansion.off_airspace))
    if not lost:
        return
    # the core rules have destroyed them already as units in Reserve at the end [L1154-1156]:
    # recorded as lost aircraft, and (the Attacker's) as destructions of the scenario (Blitz)
    b.emit(AircraftLost(lost))
    attacker = b.state.attacker
    down = tuple(u for u in lost if b.state.units[u].owner is attacker and u not in n.down)
    if down:
        b.emit(AttackerUnitsDown(down))


# -- Cities of Death -------------------------------------------------------------------------


def _trigger_trap(b: Builder, cmd: TriggerTrap) -> None:
    x = _x(b, CITIES)
    need_battle(b)
    mine = [r for s, r in x.traps if s is b.actor]
    if not mine:
        raise refuse(Code.BAD_COMMAND, "you have no booby-trapped ruin left")
    u = need_unit(b, cmd.unit)
    if u.owner is b.actor:
        raise refuse(Code.BAD_TARGET, "a model of the enemy moved into your trapped ruin")
    need_alive(b, cmd.unit)
    ruin = mine[0]
    spec = next(
        (st for st in x.expansion.stratagems if st.id == "booby-trapped-ruin"),
        None,
    )
    params = spec.params if spec is not None and isinstance(spec.params, dict) else {}
    dmg = str(params.get("advanced_damage" if cmd.advanced else "damage", "D3"))
    start = len(b.roller.records)
    mw = b.roller.roll(6 if dmg == "D6" else 3, f"booby traps: {cmd.unit}", stage="zone")
    fnp = b.feel_no_pain()
    damage = tuple(allocate(b.state, cmd.unit, (), mortal_wounds=mw, ignores=fnp))
    roll = take_roll(b.roller, start)
    b.emit(TrapTriggered(b.actor, ruin, cmd.unit, cmd.advanced, roll, mw, damage))


def _medical_roll(b: Builder, cmd: MedicalRoll) -> None:
    x = _x(b, CITIES)
    need_battle(b)
    if not any(s is b.actor for s, _ in x.medical):
        raise refuse(Code.BAD_COMMAND, "you designated no Medical Centre")
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    if not 1 <= cmd.wounds <= 30:
        raise refuse(Code.BAD_COMMAND, "1 to 30 wounds lost")
    pending = medical_pending(b.state, x, cmd.unit)
    if cmd.wounds > pending:
        # ruling 76: a roll for wounds the unit lost and no roll was made for yet
        raise refuse(
            Code.BAD_COMMAND,
            f"{b.state.specs[cmd.unit].name} lost {pending} wounds not yet rolled for",
        )
    spec = next((st for st in x.expansion.stratagems if st.id == "medical-centre"), None)
    params = spec.params if spec is not None and isinstance(spec.params, dict) else {}
    on = _int(params.get("on"), 6)
    start = len(b.roller.records)
    dice = b.roller.roll_many(cmd.wounds, 6, f"medical centre: {cmd.unit}", stage="zone")
    kept = sum(1 for d in dice if d >= on)
    roll = take_roll(b.roller, start)
    b.emit(MedicalRolled(cmd.unit, roll, kept, _kept(b.state, cmd.unit, kept)))


def _kept(s: BattleState, unit: str, wounds: int) -> tuple[ModelDamage, ...]:
    """Wounds kept by the Medical Centre (rulings 70): first to a wounded model, then a model
    slain (the last in slot order first) stands again with them."""
    out: list[ModelDamage] = []
    left = wounds
    current = list(s.units[unit].wounds)
    order = [i for i, w in enumerate(current) if w > 0]
    order += [i for i in reversed(range(len(current))) if current[i] == 0]
    for slot in order:
        top = s.specs[unit].wounds_of(slot)
        if left <= 0:
            break
        if current[slot] < top:
            back = min(left, top - current[slot])
            out.append(ModelDamage(unit, slot, back))
            left -= back
    return tuple(out)


# -- expansion stratagems --------------------------------------------------------------------


def expansion_stratagem(n: NarrativeState, stratagem: str) -> Stratagem | None:
    if n.expansion is None:
        return None
    return next((s for s in n.expansion.expansion.stratagems if s.id == stratagem), None)


EXPANSION_TIMINGS = {
    "before_firestorm_resolve",
    "high_ground_shooting",
    "before_fight_vs_building",
    "building_destroyed",
    "aircraft_targeted_in_dogfight",
    "aircraft_leaves_airspace",
}


def stratagem_timing(b: Builder, strat: Stratagem, target: str | None) -> None:
    """Refuse an expansion stratagem outside its seed timing (rulings 64); the timings the
    missions share (after deployment, a unit set up, before your own reserve rolls) are
    checked by the missions' rules first."""
    n = _n(b)
    x = n.expansion
    assert x is not None
    s = b.state
    timing = strat.timing
    if timing == "before_firestorm_resolve":
        if not (s.stage is Stage.ROLL_OFF and n.step == "first_turn") or x.firestorm_done:
            raise refuse(Code.WRONG_STAGE, f"{strat.id} is used just before the Firestorm")
        if strat.id == "consolidated-stronghold":
            bld = x.building(target or "")
            if bld is None or bld.kind != "bastion":
                raise refuse(Code.BAD_TARGET, "name one of your Bastions")
            if any(i == strat.id and t == bld.id for _, i, t in n.aimed):
                raise refuse(Code.BAD_COMMAND, f"{bld.id} is consolidated already")
        elif any(seat is b.actor and i == strat.id for seat, i, _, _ in n.spent):
            # ruling 80: one use before the one Firestorm
            raise refuse(Code.BAD_COMMAND, f"{strat.id} is used once, before the Firestorm")
    elif strat.id == "rapid-drop-assault":
        # ruling 35: at the end of the first Movement phase, before the rolls
        if s.round != 1 or s.phase is not Phase.MOVEMENT or s.active is not b.actor:
            raise refuse(Code.WRONG_PHASE, f"{strat.id} is used in your first Movement phase")
        if any(s.units[u].owner is b.actor for u in n.reserve_tried if u in s.units):
            raise refuse(
                Code.WRONG_STEP, f"{strat.id} is used before your reserve rolls (ruling 78)"
            )
    elif timing == "high_ground_shooting":
        if s.phase is not Phase.SHOOTING or s.active is not b.actor:
            raise refuse(Code.WRONG_PHASE, f"{strat.id} is used in your Shooting phase")
        _own_target(b, target)
    elif timing == "before_fight_vs_building":
        need_phase(b, Phase.FIGHT)
        _own_target(b, target)
    elif timing == "building_destroyed":
        bld = x.building(target or "")
        if bld is None or not bld.garrison_due or bld.controller is not b.actor:
            raise refuse(
                Code.WRONG_STAGE,
                f"{strat.id}: name your building just destroyed, before its garrison roll",
            )
        if bld.kind not in ("bunker", "fortress"):
            raise refuse(Code.BAD_TARGET, f"{strat.id} is for a Bunker or Fortress")
    elif timing == "aircraft_targeted_in_dogfight":
        if target is None or target not in s.units:
            raise refuse(Code.BAD_TARGET, f"{strat.id}: name your AIRCRAFT")
        picks = _current_picks(s, x) if s.phase is Phase.SHOOTING else []
        if not picks or picks[-1].target != target or s.units[target].owner is not b.actor:
            raise refuse(
                Code.WRONG_STEP, f"{strat.id}: as one of your AIRCRAFT is picked in a Dogfight"
            )
    elif timing == "aircraft_leaves_airspace":
        if target is None or target not in x.off_airspace or s.units[target].owner is not b.actor:
            raise refuse(Code.BAD_TARGET, f"{strat.id}: name your AIRCRAFT that left")
        if x.off_airspace[target] != s.round or s.active is not b.actor:
            raise refuse(Code.WRONG_STAGE, f"{strat.id} is used as soon as it leaves")
        if target in x.refuelled:
            raise refuse(Code.BAD_COMMAND, f"{strat.id} is used once for each departure")
    elif strat.id == "booby-trapped-ruin" or strat.id == "medical-centre":
        if target is None or not RUIN.fullmatch(target):
            raise refuse(Code.BAD_COMMAND, "name the ruin (up to 40 letters, digits, spaces)")
    elif strat.id == "sewer-rats":
        if target is None or target not in s.units:
            raise refuse(Code.BAD_COMMAND, "name the INFANTRY unit you are about to set up")
        u = s.units[target]
        if u.owner is not b.actor or u.location is not Location.TO_DEPLOY:
            raise refuse(Code.BAD_TARGET, "name one of your units still to set up")
        if not s.all_have_keyword(target, "INFANTRY"):
            raise refuse(Code.BAD_TARGET, "Sewer Rats is for an INFANTRY unit")


def _own_target(b: Builder, target: str | None) -> None:
    if target is None or target not in b.state.units or b.state.units[target].owner is not b.actor:
        raise refuse(Code.BAD_TARGET, "name the unit of yours it is used for")


def public_target(strat: Stratagem, target: str | None) -> str | None:
    """The target the public event names: a *Booby Traps* ruin is the owner's secret."""
    return None if strat.id == "booby-trapped-ruin" else target


def after_stratagem(b: Builder, strat: Stratagem, cp: int, target: str | None) -> None:
    """The effects the match applies once an expansion stratagem is paid."""
    n = _n(b)
    x = n.expansion
    assert x is not None
    s = b.state
    if strat.id in ("scorched-skies", "rapid-drop-assault"):
        start = len(b.roller.records)
        value = b.roller.d3(strat.id, stage="zone")
        b.emit(StratagemRolled(strat.id, b.actor, take_roll(b.roller, start), value))
    elif strat.id == "consolidated-stronghold":
        assert target is not None
        wounds = strat.params.get("wounds", 25) if isinstance(strat.params, dict) else 25
        b.emit(BuildingWoundsRaised(target, _int(wounds, 25)))
    elif strat.id == "booby-trapped-ruin":
        assert target is not None
        b.emit(RuinDesignated(b.actor, strat.id, target), audience=(str(b.actor),))
    elif strat.id == "medical-centre":
        assert target is not None
        b.emit(RuinDesignated(b.actor, strat.id, target))
    elif strat.id == "sewer-rats":
        assert target is not None
        b.emit(SewerRatsSent(s.group(target)))
        from app.engine.wh40k10e.battle.narrative import ForcesDeployed

        b.emit(ForcesDeployed(b.actor, (), s.group(target)))
    if strat.id == "refuel-rearm-repair" and cp >= 2 and target is not None:
        skies.rearm(b, target)  # its One Shot weapons are back [L919] (ruling 92)
    if strat.id == "refuel-rearm-repair" and cp >= 3:
        assert target is not None
        start = len(b.roller.records)
        value = b.roller.d3(f"{strat.id}: wounds back", stage="zone")
        b.emit(
            StratagemRolled(
                strat.id,
                b.actor,
                take_roll(b.roller, start),
                value,
                target,
                _heal(s, target, value),
            )
        )


def _heal(s: BattleState, unit: str, wounds: int) -> tuple[ModelDamage, ...]:
    """D3 wounds back to the aircraft (its first wounded model) [L919]."""
    out: list[ModelDamage] = []
    left = wounds
    for slot, w in enumerate(s.units[unit].wounds):
        top = s.specs[unit].wounds_of(slot)
        if 0 < w < top and left > 0:
            back = min(left, top - w)
            out.append(ModelDamage(unit, slot, back))
            left -= back
    return tuple(out)


def expansion_candidates(s: BattleState, x: ExpansionState, seat: Seat) -> list[Tagged]:
    """The expansion's commands ``seat`` might give now (the page's hints; each is tried)."""
    from app.engine.wh40k10e.battle.commands import UseMissionStratagem

    out: list[Tagged] = []
    in_setup = s.stage in SET_UP
    for st in x.expansion.structures:
        kind = str(st.get("id"))
        one_of = st.get("weapons_one_of")
        weapon = str(one_of[0]) if isinstance(one_of, list) and one_of else None
        out.append(PlaceBuilding(kind, weapon))
    mine = sorted(
        u.id for u in s.units_of(seat) if s.on_battlefield(u.id) and s.group(u.id)[0] == u.id
    )
    for bld in x.buildings:
        if in_setup or s.phase is Phase.MOVEMENT:
            out += [OccupyBuilding(bld.id, u) for u in mine]
            out += [LeaveBuilding(bld.id, u) for u, _ in bld.occupants]
        if s.stage is Stage.BATTLE:
            out.append(DamageBuilding(bld.id, 1))
        if bld.garrison_due:
            out.append(GarrisonRoll(bld.id))
    if x.id == PLANETSTRIKE and in_setup:
        out.append(Firestorm(0, {}))
    if x.id == SKIES and s.stage is Stage.BATTLE:
        aircraft = [u for u in mine if s.any_keyword(u, "AIRCRAFT")]
        out += [LeaveAirspace(u) for u in aircraft]
        out += [ReturnToAirspace(u) for u in sorted(x.off_airspace)]
        enemies = sorted(
            u.id
            for u in s.units_of(other(seat))
            if s.on_battlefield(u.id) and s.any_keyword(u.id, "AIRCRAFT")
        )
        out += [DogfightPick(a, t, "side") for a in aircraft for t in enemies]
        out.append(DogfightPass())
    if x.id == CITIES and s.stage is Stage.BATTLE:
        enemies = sorted(u.id for u in s.units_of(other(seat)) if s.on_battlefield(u.id))
        out += [TriggerTrap(u) for u in enemies[:1]]
        own = sorted(u.id for u in s.units_of(seat) if u.alive)
        out += [MedicalRoll(u, 1) for u in own[:1]]
    for strat in x.expansion.stratagems:
        cp = None if strat.cost.kind == "fixed" else strat.cost.min
        out.append(UseMissionStratagem(strat.id, cp, _hint_target(s, x, strat, seat)))
    return out


def _hint_target(s: BattleState, x: ExpansionState, strat: Stratagem, seat: Seat) -> str | None:
    if strat.id == "consolidated-stronghold":
        return next((bb.id for bb in x.buildings if bb.kind == "bastion"), None)
    if strat.id == "escape-hatch":
        return next((bb.id for bb in x.buildings if bb.garrison_due), None)
    if strat.id == "refuel-rearm-repair":
        return next((u for u in x.off_airspace if s.units[u].owner is seat), None)
    if strat.id == "evasive-manoeuvres":
        picks = _current_picks(s, x)
        return picks[-1].target if picks else None
    if strat.id in ("booby-trapped-ruin", "medical-centre"):
        return "ruin"
    if strat.id == "sewer-rats":
        return next((u.id for u in s.units_of(seat) if u.location is Location.TO_DEPLOY), None)
    if strat.id in ("sappers", "plunging-fire"):
        return next((u.id for u in s.units_of(seat) if s.on_battlefield(u.id)), None)
    return None


COMMANDS: dict[type[Tagged], Callable[[Builder, Any], None]] = {
    PlaceBuilding: _place_building,
    OccupyBuilding: _occupy,
    LeaveBuilding: _leave,
    DamageBuilding: _damage_building,
    GarrisonRoll: _garrison_roll,
    Firestorm: _firestorm,
    LeaveAirspace: _leave_airspace,
    ReturnToAirspace: _return_to_airspace,
    DogfightPick: _dogfight_pick,
    DogfightPass: _dogfight_pass,
    TriggerTrap: _trigger_trap,
    MedicalRoll: _medical_roll,
    **building_attacks.COMMANDS,
}
