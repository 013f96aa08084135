"""Attacks on and by the expansions' buildings, rolled by the match (ruling 91).

Planetstrike's Bastions and Defence Emplacements and Stronghold Assault's Bunkers and
Fortresses [L697-L709, L831-L849] are tracked by the match (:mod:`.narrative_expansions`), not
as units. Their attacks, and the attacks made on them, go through the 10th-edition attack
pipeline (:func:`app.engine.wh40k10e.live.resolve`) with the match's roller, so every die comes
from the command's logged seed (or the dice given by hand) and is kept in the event:

- ``attack_building``: a unit's attacks on an enemy building (its T, Sv and wounds left from
  the pack): ranged in its Shooting phase; melee in the Fight phase, where they hit
  automatically [L701, L709, L837]; *Sappers* adds 1 to the wound rolls of the unit it named
  in the Fight phase it was used [L861-L863] and *Demolitions* makes each Attacker wound roll
  of 6+ against a Bunker or Fortress one mortal wound more [L809-L813]. The event keeps the
  request rolled (the profiles, the building, the situation) for the opponent (ruling 99).
- ``building_shoots``: one of a building's weapons (every copy it carries), at the pack's
  profile and BS, at an enemy unit in its controller's Shooting phase (each failed save's
  damage is the expression's dice and constant, ruling 99); a Defence Emplacement
  has +1 to hit against a unit that can FLY or arrived from orbit in the Attacker's previous
  turn and -1 against the others [L709]; a missile silo cannot fire at a unit within 18"
  [L849].

``damage_building`` stays as the manual fallback (an attack the match cannot describe, such as
a datasheet rule of the attacker's own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.errors import EngineError, ProfileError
from app.engine.match.dice import take_roll
from app.engine.match.errors import Refusal
from app.engine.narrative8e.pack import Side, WeaponProfile
from app.engine.roller import DieRecord, Roller
from app.engine.wh40k10e.battle.commands import AttackBuilding, BuildingShoots
from app.engine.wh40k10e.battle.eligibility import shoot_problem, weapons_refusal
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.evolve import apply_damage
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
from app.engine.wh40k10e.battle.narrative_expansions import (
    PLANETSTRIKE,
    STRONGHOLD,
    Building,
    BuildingAttacked,
    BuildingDamaged,
    BuildingFired,
    ExpansionState,
    building_weapons,
)
from app.engine.wh40k10e.battle.narrative_guards import actor_side
from app.engine.wh40k10e.battle.narrative_guards import need_narrative as _n
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import BattleState, ModelDamage, Phase, WeaponUse
from app.engine.wh40k10e.live import resolve
from app.engine.wh40k10e.profiles import (
    MAX_WOUNDS,
    CombatRequest,
    Situation,
    request_from_dict,
)
from app.engine.wh40k10e.rules import WeaponRules, damage_after_modifiers, weapon_rules

__all__ = ["COMMANDS", "building_attack_hints", "building_shoot_hints"]

BUILDING_KEYWORDS = ("BUILDING", "FORTIFICATION")
MAX_ATTACKS = 400  # the most attacks (at their dice's maximum) one command rolls
# a building firing: the target stands for one model that no attack can destroy; the match
# allocates each failed save's damage to the unit's models itself (flow.allocate)
_SPONGE_WOUNDS = MAX_WOUNDS


def _expansion(b: Builder) -> ExpansionState:
    x = _n(b).expansion
    if x is None or x.id not in (PLANETSTRIKE, STRONGHOLD):
        raise refuse(Code.BAD_COMMAND, "this match has no buildings (Planetstrike, Stronghold)")
    return x


def _building(x: ExpansionState, building: str) -> Building:
    found = x.building(building)
    if found is None:
        names = ", ".join(bb.id for bb in x.buildings) or "none yet"
        raise refuse(Code.BAD_TARGET, f"no building {building!r} (buildings: {names})")
    if found.destroyed:
        raise refuse(Code.BAD_TARGET, f"{found.id} is destroyed")
    return found


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _resolve(
    b: Builder, request: Mapping[str, Any]
) -> tuple[CombatRequest, Any, tuple[DieRecord, ...]]:
    """The request parsed (bounded), rolled with the match's roller, and the dice it took."""
    start = len(b.roller.records)
    try:
        parsed = request_from_dict(request)
        most = sum(e.models * e.weapon.attacks.max for e in parsed.attacks)
        if most > MAX_ATTACKS:  # every input has bounds: the dice stay in the log
            raise refuse(Code.BAD_COMMAND, f"at most {MAX_ATTACKS} attacks in one command")
        resolution = resolve(parsed, b.roller)
    except ProfileError as exc:
        problems = "; ".join(f"{f}: {m}" if f else m for f, m in exc.errors) or str(exc)
        raise refuse(Code.BAD_COMMAND, f"attacks: {problems}") from None
    except EngineError as exc:
        raise refuse(Code.BAD_COMMAND, str(exc)) from None
    return parsed, resolution, tuple(b.roller.records[start:])


# -- a unit attacks a building ---------------------------------------------------------------


def _attack_checks(b: Builder, unit: str, building_id: str) -> tuple[ExpansionState, Building, str]:
    """What an attack on a building needs before its weapons are read: the expansion, the
    enemy building standing, the phase's kind of weapon (ranged, melee)."""
    x = _expansion(b)
    need_battle(b)
    building = _building(x, building_id)
    s = b.state
    need_own(b, unit)
    need_alive(b, unit)
    if building.controller is b.actor:
        raise refuse(Code.BAD_TARGET, f"{building.id} is yours: attack an enemy building")
    if s.phase is Phase.SHOOTING:
        need_active(b)
        problem = shoot_problem(s, unit)
        if problem is not None and problem[0] is not Code.ALREADY_SHOT:
            raise refuse(*problem)
        kind = "ranged"
    elif s.phase is Phase.FIGHT:
        kind = "melee"
    else:
        raise refuse(Code.WRONG_PHASE, "a building is attacked in the Shooting or Fight phase")
    if (s.round, s.active, str(s.phase), unit, building.id) in x.attacks_on:
        raise refuse(Code.BAD_COMMAND, f"{s.specs[unit].name} attacked {building.id} already")
    return x, building, kind


def building_attack_hints(state: BattleState, seat: Seat) -> list[AttackBuilding]:
    """The attacks on a building ``seat`` may make now, one per (unit, enemy building), with
    no weapon named: the page lists the unit's weapons left (``attacks`` is the form's)."""
    n = state.narrative
    x = n.expansion if n is not None else None
    if x is None or x.id not in (PLANETSTRIKE, STRONGHOLD):
        return []
    out: list[AttackBuilding] = []
    heads = sorted(
        u.id
        for u in state.units_of(seat)
        if state.on_battlefield(u.id) and state.group(u.id)[0] == u.id and u.alive
    )
    for unit in heads:
        if state.units[unit].all_weapons_used:
            continue
        for bld in x.buildings:
            if bld.destroyed or bld.controller is seat:
                continue
            try:
                _attack_checks(Builder(state, seat, Roller(0)), unit, bld.id)
            except Refusal:
                continue
            out.append(AttackBuilding(unit, bld.id))
    return out


def _attack_building(b: Builder, cmd: AttackBuilding) -> None:
    x, building, kind = _attack_checks(b, cmd.unit, cmd.building)
    s = b.state
    phase = str(s.phase)
    entries = cmd.attacks
    if not isinstance(entries, list) or not entries:
        raise refuse(Code.BAD_COMMAND, "attacks: the weapons, [{models, weapon}, ...]")
    attacks: list[Any] = []
    uses: list[WeaponUse] = []
    for i, raw in enumerate(entries):
        weapon = raw.get("weapon") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(weapon, dict) or weapon.get("kind") != kind:
            raise refuse(
                Code.BAD_COMMAND, f"attacks[{i}]: a {kind} weapon in the {phase.title()} phase"
            )
        # the weapon used, for the match's once-per-phase (an Attached unit's part: "unit";
        # a weapon of several profiles: "group")
        entry = dict(raw)
        part, group = entry.pop("unit", cmd.unit), entry.pop("group", None)
        models = entry.get("models")
        name = str(weapon.get("name", "weapon"))
        group = str(group) if isinstance(group, str) and group else name
        if not isinstance(part, str) or not isinstance(models, int) or isinstance(models, bool):
            raise refuse(Code.BAD_COMMAND, f"attacks[{i}]: models (a number) and unit (a part)")
        uses.append(WeaponUse(part, group, models, name if name != group else ""))
        if kind == "melee":  # enemy models hit it automatically in the Fight phase [L701]
            abilities = weapon.get("abilities", [])
            abilities = list(abilities) if isinstance(abilities, list) else abilities
            if isinstance(abilities, list) and "Torrent" not in abilities:
                abilities.append("Torrent")
            # the pipeline gives Torrent to ranged weapons only: the profile is rolled as
            # one (no hit roll; the wound and save rolls and damage are the weapon's)
            weapon = {**weapon, "kind": "ranged", "abilities": abilities, "skill": None}
        attacks.append({**entry, "weapon": weapon})
    refusal = weapons_refusal(s, cmd.unit, tuple(uses))
    if refusal is not None:  # each weapon once a phase, as any attack [L1401-1405]
        raise refusal
    spec = x.structure(building.kind) or {}
    situation: dict[str, Any] = {}
    if kind == "melee" and building.kind in ("bunker", "fortress") and _sappers(s, x, cmd.unit):
        params = next((st.params for st in x.expansion.stratagems if st.id == "sappers"), {})
        mod = _number(params.get("modifier") if isinstance(params, dict) else None)
        situation["wound_modifier"] = 1 if mod is None else mod  # Sappers [L861-L863]
    request = {
        "attacks": attacks,
        "target": {
            "models": 1,
            "toughness": _number(spec.get("toughness")) or 10,
            "save": _number(spec.get("save")) or 7,
            "wounds": max(1, min(building.wounds, MAX_WOUNDS)),
            "keywords": list(BUILDING_KEYWORDS),
        },
        "situation": situation,
    }
    start = len(b.roller.records)
    _, resolution, dice = _resolve(b, request)
    demolitions = 0
    if (
        kind == "melee"
        and x.id == STRONGHOLD
        and building.kind in ("bunker", "fortress")
        and actor_side(b) is Side.ATTACKER
    ):
        # Demolitions [L809-L813]: each wound roll of 6+ (after modifiers, ruling 67)
        on = _number(x.expansion.params.get("demolition_wound_roll")) or 6
        demolitions = sum(1 for d in dice if d.stage == "wound" and d.modified >= on)
    lost = int(resolution.target_after.wounds_lost)
    wounds = lost + demolitions
    names = ", ".join(str(a["weapon"].get("name", "weapon")) for a in attacks)[:200]
    hits = int(resolution.totals.get("hits", 0))
    roll = take_roll(b.roller, start)
    b.emit(
        BuildingAttacked(
            cmd.unit,
            building.id,
            phase,
            roll,
            hits,
            wounds,
            demolitions,
            names,
            tuple(uses),
            request,  # the profiles rolled, for the opponent to check (ruling 99)
        )
    )
    if wounds:
        destroyed = wounds >= building.wounds
        b.emit(BuildingDamaged(building.id, wounds, "attacks", demolitions, destroyed))


def _sappers(s: BattleState, x: ExpansionState, unit: str) -> bool:
    """*Sappers* was used on ``unit`` (or a part of its Attached unit) in this very phase:
    this round, this player's turn, the Fight phase [L861-L863] (ruling 99); the stratagem
    names a unit of its user's only, so the unit's owner used it."""
    group = set(s.group(unit))
    here = (s.round, s.active, str(s.phase))
    return any((r, a, p) == here and t in group for r, a, p, t in x.sappers)


# -- a building shoots -----------------------------------------------------------------------


def _weapon_profile(x: ExpansionState, weapon: str) -> WeaponProfile:
    found = next((w for w in x.expansion.weapons if w.id == weapon), None)
    if found is None:
        raise refuse(Code.BAD_COMMAND, f"the pack has no weapon {weapon!r}")
    return found


def _emplacement_modifier(
    s: BattleState, x: ExpansionState, spec: Mapping[str, Any], t: str
) -> int:
    """A Defence Emplacement's +1 against a unit that can FLY or arrived from orbit in the
    Attacker's previous turn, -1 against the others [L709]."""
    up, down = _number(spec.get("hit_vs_fly_or_orbit")), _number(spec.get("hit_otherwise"))
    if up is None and down is None:
        return 0
    attacker = s.attacker
    previous = s.round if s.first_player is attacker else s.round - 1
    group = set(s.group(t))
    from_orbit = any(u in group and r == previous for u, r in x.orbit_arrivals)
    if s.all_have_keyword(t, "FLY") or from_orbit:
        return up or 0
    return down or 0


def _shoot_checks(
    b: Builder, building_id: str, weapon: str
) -> tuple[ExpansionState, Building, dict[str, int]]:
    """What a building's shot needs before its target is read: the phase, the building of
    the player's, the weapon it carries, not fired yet this phase."""
    x = _expansion(b)
    need_phase(b, Phase.SHOOTING)
    need_active(b)
    building = _building(x, building_id)
    s = b.state
    if building.controller is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, f"{building.id} is not yours")
    carried = building_weapons(x, building)
    if weapon not in carried:
        names = ", ".join(sorted(carried)) or "none"
        raise refuse(Code.BAD_COMMAND, f"{building.id} carries no {weapon!r} ({names})")
    if (s.round, s.active, building.id, weapon) in x.fired:
        raise refuse(Code.BAD_COMMAND, f"{building.id}'s {weapon} has fired this phase")
    return x, building, dict(carried)


def building_shoot_hints(state: BattleState, seat: Seat) -> list[BuildingShoots]:
    """The shots ``seat``'s buildings may fire now, one per (building, weapon) not fired this
    phase, aimed at the first enemy unit on the battlefield (the page offers the others and
    asks for the target's save; ``save`` 7 here is a placeholder)."""
    n = state.narrative
    x = n.expansion if n is not None else None
    if x is None or x.id not in (PLANETSTRIKE, STRONGHOLD):
        return []
    enemies = sorted(
        u.id
        for u in state.units.values()
        if u.owner is not seat and u.alive and state.on_battlefield(u.id)
    )
    if not enemies:
        return []
    out: list[BuildingShoots] = []
    for bld in x.buildings:
        if bld.destroyed or bld.controller is not seat:
            continue
        spec = x.structure(bld.kind) or {}
        if _number(spec.get("skill")) is None:
            continue  # no BS: it does not shoot (a Bunker)
        for weapon in sorted(building_weapons(x, bld)):
            try:
                _shoot_checks(Builder(state, seat, Roller(0)), bld.id, weapon)
            except Refusal:
                continue
            out.append(BuildingShoots(bld.id, weapon, state.group(enemies[0])[0], 7))
    return out


def _building_shoots(b: Builder, cmd: BuildingShoots) -> None:
    x, building, carried = _shoot_checks(b, cmd.building, cmd.weapon)
    s = b.state
    target = need_unit(b, cmd.target)
    if target.owner is b.actor:
        raise refuse(Code.BAD_TARGET, "a building shoots an enemy unit")
    need_alive(b, cmd.target)
    if not s.on_battlefield(cmd.target):
        raise refuse(Code.NOT_ON_BATTLEFIELD, f"{s.specs[cmd.target].name} is not on the table")
    profile = _weapon_profile(x, cmd.weapon)
    min_range = profile.min_range
    if min_range is not None and cmd.within_18:
        raise refuse(Code.BAD_TARGET, f'{cmd.weapon} cannot fire at a unit within {min_range}"')
    if not 2 <= cmd.save <= 7 or (
        cmd.invulnerable_save is not None and not 2 <= cmd.invulnerable_save <= 6
    ):
        raise refuse(Code.BAD_COMMAND, "save is 2..7 (7: none), invulnerable_save 2..6")
    spec = x.structure(building.kind) or {}
    skill = _number(spec.get("skill"))
    if skill is None:
        raise refuse(Code.BAD_COMMAND, f"{building.id} has no BS: it does not shoot")
    head = s.group(cmd.target)[0]
    toughness = s.specs[head].toughness or cmd.toughness
    if toughness is None or not 1 <= toughness <= 30:
        raise refuse(Code.BAD_COMMAND, "give the target's toughness (1..30): the data lacks it")
    modifier = _emplacement_modifier(s, x, spec, cmd.target)
    weapon = {
        "name": profile.id,
        "kind": "ranged",
        "attacks": profile.attacks,
        "skill": skill,
        "strength": profile.strength,
        "ap": profile.ap,
        "damage": profile.damage,
        "range": profile.range,
        "abilities": [],
    }
    request = {
        "attacks": [{"models": carried[cmd.weapon], "weapon": weapon}],
        "target": {
            "models": 1,
            "toughness": toughness,
            "save": cmd.save,
            "invulnerable_save": cmd.invulnerable_save,
            "wounds": _SPONGE_WOUNDS,
            "keywords": sorted(s.specs[head].keywords),
        },
        "situation": {"hit_modifier": modifier} if modifier else {},
    }
    start = len(b.roller.records)
    parsed, resolution, dice = _resolve(b, request)
    entry = parsed.attacks[0]
    rules = weapon_rules(entry.weapon, parsed.target, parsed.situation)
    damages = _failed_save_damage(dice, rules, parsed.situation)
    damage = _allocate_with_fnp(b, cmd.target, damages)
    hits = int(resolution.totals.get("hits", 0))
    roll = take_roll(b.roller, start)
    b.emit(BuildingFired(building.id, cmd.weapon, cmd.target, roll, hits, modifier, damage))


def _failed_save_damage(
    dice: Sequence[DieRecord], rules: WeaponRules, situation: Situation
) -> list[int]:
    """The damage of each failed save, in order, as the pipeline reckons it: the damage
    expression's dice rolled right after that save plus its constant ("D6+1": the die and
    1; Melta's too), then the situation's damage modifiers (never below 1)."""
    constant = rules.damage.constant + (rules.melta.constant if rules.melta is not None else 0)
    rolled: list[int] = []
    after_failed_save = False
    for d in dice:
        if d.stage == "save":
            after_failed_save = d.outcome == "failed"
            if after_failed_save:
                rolled.append(constant)
        elif d.stage == "damage" and after_failed_save:
            rolled[-1] += d.value  # a D3 is recorded as its result (1..3)
        else:  # a Devastating Wounds die follows a wound roll, not a save
            after_failed_save = False
    return [damage_after_modifiers(r, situation) for r in rolled]


def _allocate_with_fnp(b: Builder, target: str, damages: list[int]) -> tuple[ModelDamage, ...]:
    """Each failed save's damage to the unit's models by the core rules (a wounded model
    first, Bodyguard before Leader: flow.allocate), a Feel No Pain roll for each wound that
    would be lost, excess damage lost [L1700-1713, L1788-1790, L1857-1869]."""
    state = b.state
    fnp = b.feel_no_pain()
    out: list[ModelDamage] = []
    for d in damages:
        pick = allocate(state, target, [1])
        if not pick:
            break
        unit, slot = pick[0].unit, pick[0].model
        left = state.units[unit].wounds[slot]
        lost = 0
        for _ in range(d):
            if lost >= left:
                break
            if not fnp(state, unit):
                lost += 1
        if lost:
            hit = ModelDamage(unit, slot, lost)
            out.append(hit)
            state = apply_damage(state, [hit])
    return tuple(out)


COMMANDS: dict[type[Any], Any] = {
    AttackBuilding: _attack_building,
    BuildingShoots: _building_shoots,
}
