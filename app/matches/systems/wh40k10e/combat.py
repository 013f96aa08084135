"""Attacks inside a match: the combat request built from the match, its exact odds, a live roll.

:func:`build_request` turns "these weapons of my unit at that enemy unit" into the engine's
combat request (the contract of ``POST /api/v1/rulesets/wh40k-10e/combat/analyze``): the
weapons come from the attacking side's army snapshot (every part of an Attached unit), the
target from the target unit's state in the match (its living models and the wounds each has
left) and its snapshot profile. Situation flags the match knows are filled in (Remained
Stationary, Charged, Go to Ground, Smokescreen, Fire Overwatch, Epic Challenge's Precision);
the players give the rest (half range, cover...), and may override any of them.

A damaged model cannot be described by one characteristic line, so the target is laid out in
the attack engine's allocation order: the models that have lost wounds first (an attack must
go to them first [L1704-1707]) as the main models or groups, then the unharmed ones, then an
attached Leader as CHARACTER groups. :func:`allocations` maps the resolution's models back to
the match's model slots, giving the ``resolve_attack`` command its exact allocations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine import registry, systems
from app.engine.combat import CombatResolution
from app.engine.errors import RollerError
from app.engine.narrative8e.setup import dawn_raid_modifier
from app.engine.narrative8e.zones import Arc, dogfight_modifier, night_fight_modifier
from app.engine.roller import Roller
from app.engine.wh40k10e.battle import Ability, Seat
from app.engine.wh40k10e.battle.narrative import moved as narrative_moved
from app.engine.wh40k10e.battle.narrative_zones import zone_of
from app.engine.wh40k10e.battle.state import (
    BattleState,
    Effect,
    ModelDamage,
    MoveMode,
    Phase,
    WeaponUse,
)
from app.engine.wh40k10e.profiles import RerollPolicy
from app.matches.exceptions import InvalidAttack, NoWeaponData
from app.matches.systems.wh40k10e.armies import snapshot_unit

__all__ = [
    "BoundedRoller",
    "BuiltAttack",
    "allocations",
    "analyze",
    "build_request",
    "resolve",
    "unit_weapons",
    "weapon_id",
]

MAX_GROUPS = 4  # the combat contract's bounds (app/engine/wh40k10e/profiles.py)
MAX_GROUP_MODELS = 10
MAX_MAIN_MODELS = 60
MAX_ENTRIES = 8
MAX_DICE = 5000


class BoundedRoller(Roller):
    """A roller that refuses to roll more than :data:`MAX_DICE` dice in one resolution."""

    _rolled: int = 0

    def _count(self) -> None:
        self._rolled += 1
        if self._rolled > MAX_DICE:
            raise RollerError(f"this attack needs more than {MAX_DICE} dice: use fewer weapons")

    def roll(self, *args: Any, **kwargs: Any) -> int:
        self._count()
        return super().roll(*args, **kwargs)

    def reroll(self, *args: Any, **kwargs: Any) -> int:
        self._count()
        return super().reroll(*args, **kwargs)


@dataclass(frozen=True, slots=True)
class BuiltAttack:
    """The combat request and, for each model of its target in allocation order, the match
    model slot it stands for (unit id, slot index)."""

    request: dict[str, Any]
    slots: tuple[tuple[str, int], ...]
    weapon_names: tuple[str, ...]
    uses: tuple[WeaponUse, ...] = ()  # the weapons used, for the match's one-use-per-phase


def _snapshot_of(
    snapshots: Mapping[Seat, Mapping[str, Any] | None], state: BattleState, uid: str
) -> dict[str, Any]:
    seat = state.units[uid].owner
    found = snapshot_unit(snapshots.get(seat), seat, uid)
    if found is None:
        raise NoWeaponData(f"The army snapshot has no data for unit {uid!r}.")
    return found


def weapon_id(weapon: Mapping[str, Any]) -> str:
    """The weapon a profile belongs to (the profiles of one weapon are one weapon: a model
    uses one of them, once per phase)."""
    return str(weapon.get("group") or weapon["name"])[:120]


def unit_weapons(
    snapshots: Mapping[Seat, Mapping[str, Any] | None], state: BattleState, uid: str
) -> list[dict[str, Any]]:
    """The weapon profiles of every living part of ``uid``'s (Attached) unit, each with the
    part's id (``unit``), the models alive in it, how many carry it by default, and how many
    models may still use it this phase (``left``: the models alive, or those carrying it
    where the list says, less the models that used it)."""
    out: list[dict[str, Any]] = []
    u = state.units[state.group(uid)[0]]
    for part in state.group(uid):
        snap = snapshot_unit(snapshots.get(state.units[part].owner), state.units[part].owner, part)
        if snap is None:
            continue
        alive = state.units[part].models_alive
        weapons = list(snap.get("weapons", ()))
        # the loadout says who carries what; a snapshot whose data named no carrier at all
        # (a datasheet without wargear data) leaves it to the players: every model
        known = any(int(w.get("models", 0)) > 0 for w in weapons)
        # a model shoots its Pistols or its other ranged weapons [L2073-2081]: the models
        # that fired the other kind this phase cannot fire this one
        fired = {True: 0, False: 0}
        if not _big_part(state, part):
            for w in weapons:
                if w.get("kind") == "ranged":
                    n = u.models_used(part, weapon_id(w))
                    fired[_has(w, "pistol")] = max(fired[_has(w, "pistol")], n)
        for w in weapons:
            carried = min(int(w.get("models", 0)), alive) if known else alive
            used = u.models_used(part, weapon_id(w))
            left = 0 if u.all_weapons_used else max(0, carried - used)
            if w.get("kind") == "ranged" and fired[not _has(w, "pistol")]:
                left = max(0, min(left, alive - fired[not _has(w, "pistol")] - used))
            out.append(
                {
                    **w,
                    "unit": part,
                    "unit_name": state.specs[part].name,
                    "models": carried,
                    "alive": alive,
                    "used": used,
                    "left": left,
                }
            )
    # Firing Deck x: when the Transport shoots, up to x embarked models each lend it one ranged
    # weapon [L1292-1308]; the passengers then count as having shot
    first = state.group(uid)[0]
    deck = state.firing_deck_left(first)
    for rider in state.firing_deck_riders(first):
        snap = snapshot_unit(
            snapshots.get(state.units[rider].owner), state.units[rider].owner, rider
        )
        if snap is None:
            continue
        lent = any(w.unit == rider for w in u.weapons_used)
        shot_alone = state.units[rider].shot and not lent
        alive = state.units[rider].models_alive
        weapons = [w for w in snap.get("weapons", ()) if w.get("kind") == "ranged"]
        known = any(int(w.get("models", 0)) > 0 for w in weapons)
        for w in weapons:
            carried = min(int(w.get("models", 0)), alive) if known else alive
            used = u.models_used(rider, weapon_id(w))
            left = 0 if u.all_weapons_used or shot_alone else max(0, min(carried - used, deck))
            out.append(
                {
                    **w,
                    "unit": rider,
                    "unit_name": state.specs[rider].name,
                    "models": carried,
                    "alive": alive,
                    "used": used,
                    "left": left,
                    "firing_deck": True,
                }
            )
    return out


def _runs(slots: Sequence[tuple[int, int]], first_limit: int) -> list[list[tuple[int, int]]]:
    """Consecutive slots with the same wounds left, in chunks the contract accepts (the first
    run may be as long as ``first_limit``, the others as a group may)."""
    runs: list[list[tuple[int, int]]] = []
    for slot in slots:
        limit = first_limit if len(runs) == 1 else MAX_GROUP_MODELS
        if runs and runs[-1][-1][1] == slot[1] and len(runs[-1]) < limit:
            runs[-1].append(slot)
        else:
            runs.append([slot])
    return runs


def _target(
    snapshots: Mapping[Seat, Mapping[str, Any] | None], state: BattleState, target: str
) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    parts = state.group(target)
    order: list[tuple[str, int]] = []
    main: dict[str, Any] | None = None
    groups: list[dict[str, Any]] = []
    for n, part in enumerate(parts):
        spec = state.specs[part]
        snap = _snapshot_of(snapshots, state, part)
        profile = snap.get("profile") or {}
        alive = [(i, w) for i, w in enumerate(state.units[part].wounds) if w > 0]
        # models that have lost wounds (each against its own W) take the next attacks
        # [L1704-1707]
        alive.sort(key=lambda s: (s[1] >= spec.wounds_of(s[0]), s[1], s[0]))
        keywords = [k for k in spec.keywords if n > 0 or k != "CHARACTER"]
        if n > 0 and "CHARACTER" not in keywords:
            keywords.append("CHARACTER")
        for run in _runs(alive, MAX_MAIN_MODELS if n == 0 else MAX_GROUP_MODELS):
            if main is None and n == 0:
                main = {
                    "models": len(run),
                    "toughness": int(profile.get("toughness") or spec.toughness or 4),
                    "save": int(profile.get("save") or 7),
                    "wounds": run[0][1],
                    "invulnerable_save": profile.get("invulnerable_save"),
                    "feel_no_pain": profile.get("feel_no_pain"),
                    "keywords": sorted(spec.keywords),
                }
            else:
                groups.append(
                    {
                        "name": f"{spec.name[:60]} #{len(groups) + 1}",
                        "models": len(run),
                        "wounds": run[0][1],
                        "save": int(profile.get("save") or 7),
                        "invulnerable_save": profile.get("invulnerable_save"),
                        "feel_no_pain": profile.get("feel_no_pain"),
                        "keywords": sorted(keywords),
                    }
                )
            order.extend((part, i) for i, _w in run)
    if main is None:
        raise InvalidAttack("The target has no model left on the battlefield.")
    if len(groups) > MAX_GROUPS:
        raise InvalidAttack(
            "This target's wounded models cannot be described to the attack engine: "
            "enter the damage by hand (resolve_attack with damage)."
        )
    if groups:
        main["groups"] = groups
    return main, order


def _has(weapon: Mapping[str, Any], ability: str) -> bool:
    key = ability.casefold()
    return any(str(a).casefold().split(" ")[0] == key for a in weapon.get("abilities", ()))


def _big_part(state: BattleState, part: str) -> bool:
    spec = state.specs[part]
    return spec.has("MONSTER") or spec.has("VEHICLE")


def _engaged_with_friends(state: BattleState, attacker: str, target: str) -> bool:
    """Whether ``target`` is within Engagement Range of a unit of ``attacker``'s army."""
    owner = state.units[attacker].owner
    return any(
        state.units[e].owner is owner
        for part in state.group(target)
        for e in state.engaged_units(part)
    )


def weapon_problem(
    state: BattleState, attacker: str, target: str, weapon: Mapping[str, Any]
) -> str | None:
    """Why ``attacker`` may not attack ``target`` with ``weapon`` now (``None``: it may).

    Ranged weapons shoot (in the Shooting phase, or Fire Overwatch), melee weapons fight.
    After an Advance only [ASSAULT] weapons [L2009-2016]; a model within Engagement Range
    shoots only its Pistols unless it is a MONSTER or VEHICLE [L1529-1551], [L2060-2072];
    [BLAST] never at a unit within Engagement Range of a unit of the attacker's army, its own
    included [L2187-2190]."""
    fighting = state.phase is Phase.FIGHT
    kind = str(weapon.get("kind"))
    name = str(weapon.get("name"))
    if fighting and kind != "melee":
        return f"{name} is a ranged weapon: the Fight phase uses melee weapons"
    if not fighting and kind == "melee":
        return f"{name} is a melee weapon: it fights, it does not shoot"
    part = str(weapon.get("unit") or attacker)
    if fighting:
        aircraft = any(
            state.specs[t].has("AIRCRAFT") and not state.units[t].hover for t in state.group(target)
        )
        if aircraft and not state.specs[part].has("FLY"):
            return f"{name}: only FLY models make melee attacks against an Aircraft"
        return None
    if state.units[attacker].move is MoveMode.ADVANCE and not _has(weapon, "assault"):
        return f"{name} is not an Assault weapon: the unit Advanced this turn"
    if state.engaged(attacker) and not _big_part(state, part) and not _has(weapon, "pistol"):
        return f"{name} is not a Pistol: within Engagement Range a unit shoots only its Pistols"
    if _has(weapon, "blast") and _engaged_with_friends(state, attacker, target):
        return f"{name} has Blast: it never targets a unit within Engagement Range of your units"
    return None


def pistols_mixed(
    state: BattleState,
    attacker: str,
    available: Sequence[Mapping[str, Any]],
    picked: Sequence[tuple[Mapping[str, Any], int]],
) -> str | None:
    """A model shoots either its Pistols or its other ranged weapons, unless it is a MONSTER
    or VEHICLE [L2073-2081]: per part, the models that shoot Pistols and those that shoot
    other weapons (this attack and the earlier ones of the phase) cannot add up to more
    models than the part has alive."""
    if state.phase is Phase.FIGHT:
        return None
    u = state.units[state.group(attacker)[0]]
    for part in state.group(attacker):
        if _big_part(state, part):
            continue
        per_weapon: dict[tuple[str, bool], int] = {}
        pistol_of = {
            weapon_id(w): _has(w, "pistol")
            for w in available
            if w["unit"] == part and w["kind"] == "ranged"
        }
        for use in u.weapons_used:
            if use.unit == part and use.weapon in pistol_of:
                key = (use.weapon, pistol_of[use.weapon])
                per_weapon[key] = per_weapon.get(key, 0) + use.models
        for w, models in picked:
            if w["unit"] == part and w["kind"] == "ranged":
                key = (weapon_id(w), _has(w, "pistol"))
                per_weapon[key] = per_weapon.get(key, 0) + models
        pistols = max((n for (_, p), n in per_weapon.items() if p), default=0)
        others = max((n for (_, p), n in per_weapon.items() if not p), default=0)
        if pistols and others and pistols + others > state.units[part].models_alive:
            return (
                f"{state.specs[part].name}: a model shoots either its Pistols or its other "
                f"ranged weapons ({pistols} with Pistols and {others} with other weapons, "
                f"{state.units[part].models_alive} models)"
            )
    return None


def _plunging_fire(state: BattleState, target: str, stated: object) -> bool:
    """Plunging Fire [L3890-3898], stated by the player (``plunging_fire``): the attacking
    models are wholly within Ruins 6" or more above ground level and every model of the
    target is at ground level; then the ranged attacks' AP improves by 1. The match cannot see
    heights, but it refuses the flag where the rule cannot apply: in the Fight phase (ranged
    attacks only) and against an Aircraft (never at ground level)."""
    if stated is not True:
        if stated not in (False, None):
            raise InvalidAttack("plunging_fire is true or false.")
        return False
    if state.phase is Phase.FIGHT:
        raise InvalidAttack("Plunging Fire is for ranged attacks, not the Fight phase.")
    if any(
        state.specs[t].has("AIRCRAFT") and not state.units[t].hover for t in state.group(target)
    ):
        raise InvalidAttack("Plunging Fire needs a target at ground level: not an Aircraft.")
    return True


_AUTO_FLAGS = (
    "remained_stationary",
    "charged",
    "go_to_ground",
    "smokescreen",
    "stealth",
    "overwatch",
)


def build_request(
    snapshots: Mapping[Seat, Mapping[str, Any] | None],
    state: BattleState,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
) -> BuiltAttack:
    """The combat request of ``weapons`` (``{"unit", "weapon", "models"}``: a weapon profile
    name of a part of the attacking unit, and how many of its models use it) at ``target``."""
    if attacker not in state.units or target not in state.units:
        raise InvalidAttack("Unknown attacking or target unit.")
    if state.units[attacker].owner is state.units[target].owner:
        raise InvalidAttack("The target must be an enemy unit.")
    if not weapons:
        raise InvalidAttack(
            "Pick at least one weapon.",
            errors=[{"field": "weapons", "message": "at least one weapon", "type": "missing"}],
        )
    if len(weapons) > MAX_ENTRIES:
        raise InvalidAttack(f"At most {MAX_ENTRIES} weapons in one attack.")
    available = unit_weapons(snapshots, state, attacker)
    if not available:
        raise NoWeaponData("The army snapshot has no weapon data for this unit.")
    att = state.units[attacker]
    grounded = _gone_to_ground(state, attacker)
    if grounded:
        raise InvalidAttack(grounded)
    # Epic Challenge: the CHARACTER's melee attacks have [PRECISION], not its Bodyguard's
    # [L3338-3340] (the effect sits on the CHARACTER parts)
    precision = {p for p in state.group(attacker) if Effect.PRECISION in state.units[p].effects}
    entries: list[dict[str, Any]] = []
    names: list[str] = []
    uses: list[WeaponUse] = []
    errors: list[dict[str, Any]] = []
    picked: list[tuple[Mapping[str, Any], int]] = []
    for i, pick in enumerate(weapons):
        part = str(pick.get("unit") or attacker)
        name = str(pick.get("weapon") or "")
        models = pick.get("models")
        found = next((w for w in available if w["unit"] == part and w["name"] == name), None)
        if found is None:
            errors.append(
                {
                    "field": f"weapons[{i}].weapon",
                    "message": f"no weapon {name!r} in that unit",
                    "type": "unknown",
                }
            )
            continue
        carriers = found["models"]  # the models of the part that carry it (the loadout)
        if not isinstance(models, int) or isinstance(models, bool) or not 1 <= models <= carriers:
            errors.append(
                {
                    "field": f"weapons[{i}].models",
                    "message": (
                        f"must be 1..{carriers} (the models that carry it)"
                        if carriers
                        else "no model of the unit carries it"
                    ),
                    "type": "range",
                }
            )
            continue
        problem = weapon_problem(state, attacker, target, found)
        if problem is not None:
            errors.append(
                {"field": f"weapons[{i}].weapon", "message": problem, "type": "not_allowed"}
            )
            continue
        picked.append((found, models))
        weapon = {
            k: found[k]
            for k in ("name", "kind", "attacks", "skill", "strength", "ap", "damage", "range")
        }
        abilities = list(found.get("abilities", ()))
        if part in precision and found["kind"] == "melee" and "Precision" not in abilities:
            abilities.append("Precision")  # Epic Challenge [L3338-3340]
        weapon["abilities"] = abilities
        entries.append({"models": models, "weapon": weapon})
        names.append(f"{found['unit_name']}: {name}" if part != attacker else name)
        group = weapon_id(found)
        uses.append(WeaponUse(part, group, models, name if name != group else ""))
    lent = sum(n for w, n in picked if w.get("firing_deck"))
    if lent > state.firing_deck_left(state.group(attacker)[0]):
        errors.append(
            {
                "field": "weapons",
                "message": (
                    f"Firing Deck {state.specs[state.group(attacker)[0]].firing_deck}: at most "
                    f"{state.firing_deck_left(state.group(attacker)[0])} more embarked models "
                    "lend a ranged weapon this phase"
                ),
                "type": "not_allowed",
            }
        )
    if not errors:
        mixed = pistols_mixed(state, attacker, available, picked)
        if mixed is not None:
            errors.append({"field": "weapons", "message": mixed, "type": "not_allowed"})
    if errors:
        raise InvalidAttack("; ".join(e["message"] for e in errors), errors=errors)
    situation = dict(situation or {})
    plunging = _plunging_fire(state, target, situation.pop("plunging_fire", False))
    night = _night_fight(state, situation.pop("night_fight_distance", None))
    relay = _targeting_relay(state, attacker, situation.pop("targeting_relay", None))
    scatter = _scatter_field(state, target, situation.pop("scatter_field", None))
    if plunging:
        for entry in entries:
            if entry["weapon"]["kind"] == "ranged":
                entry["weapon"]["ap"] = max(-6, int(entry["weapon"]["ap"]) - 1)
    tgt, order = _target(snapshots, state, target)
    auto = {
        # Heavy: it chose to Remain Stationary, or did not move at all this turn [L2227-2233]
        "remained_stationary": state.remained_stationary(attacker),
        "charged": att.charge_moved,
        "go_to_ground": any(
            Effect.GO_TO_GROUND in state.units[p].effects for p in state.group(target)
        ),
        "smokescreen": any(
            Effect.SMOKESCREEN in state.units[p].effects for p in state.group(target)
        ),
        # -1 to hit ranged attacks against a unit whose every model has Stealth [L1594-1596]
        "stealth": state.phase is not Phase.FIGHT and state.all_have(target, Ability.STEALTH),
        "overwatch": any(Effect.OVERWATCH in state.units[p].effects for p in state.group(attacker)),
        # -1 to hit for non-Pistol attacks: a MONSTER/VEHICLE shooting while in Engagement
        # Range, or shooting a MONSTER/VEHICLE in Engagement Range of its army [L1545-1561]
        "big_guns_never_tire": state.phase is not Phase.FIGHT
        and (
            (state.engaged(attacker) and any(_big_part(state, p) for p in state.group(attacker)))
            or (
                any(_big_part(state, p) for p in state.group(target))
                and _engaged_with_friends(state, attacker, target)
            )
        ),
    }
    merged: dict[str, Any] = {k: v for k, v in auto.items() if v}
    merged.update(situation)
    dawn = _dawn_raid(state, attacker)
    if dawn:
        merged["hit_modifier"] = int(merged.get("hit_modifier", 0)) + dawn
    if night:
        merged["hit_modifier"] = int(merged.get("hit_modifier", 0)) + night
    if relay and merged.get("reroll_hits", "none") == "none":
        merged["reroll_hits"] = "ones"
    if _entrenched(state, target):
        merged["save_modifier"] = int(merged.get("save_modifier", 0)) + 1
    dogfight = _dogfight(state, attacker, target) + _evasive_hit(state, attacker)
    if dogfight:
        merged["hit_modifier"] = int(merged.get("hit_modifier", 0)) + dogfight
    # saving throws re-rolled: Scatter field's 1s [L613] (rulings 98), Evasive Manoeuvres'
    # failures [L913-L915]; the broader of the two (and of the one stated) counts
    stated = merged.get("reroll_saves", "none")
    if isinstance(stated, str) and stated in set(RerollPolicy):  # else the engine's 422
        reroll = RerollPolicy(stated)
        if scatter:
            reroll = reroll.combine(RerollPolicy.ONES)
        if _evasive_saves(state, target):
            reroll = reroll.combine(RerollPolicy.FAILED)
        if reroll is not RerollPolicy.NONE:
            merged["reroll_saves"] = reroll.value
    return BuiltAttack(
        request={"attacks": entries, "target": tgt, "situation": merged},
        slots=tuple(order),
        weapon_names=tuple(names),
        uses=tuple(uses),
    )


MAX_DISTANCE = 120


def _night_fight(state: BattleState, stated: object) -> int:
    """Night Fight's reduced visibility [L577-L587]: in the Shooting phase, the hit modifier by
    the distance to the target the player states (``night_fight_distance``, inches; the match
    sees no table): none up to 12", -1 up to 24", -2 up to 36", -3 beyond, a boundary taking
    the lower penalty (the 10th edition then caps the total at -1, rulings 29, 54)."""
    zone = zone_of(state)
    if zone is None or "visibility" not in zone.params:
        if stated is not None:
            raise InvalidAttack(
                "night_fight_distance: this match is not fought in Night Fight.",
                errors=[
                    {
                        "field": "situation.night_fight_distance",
                        "message": "no Night Fight in this match",
                        "type": "extra",
                    }
                ],
            )
        return 0
    if state.phase is not Phase.SHOOTING:  # "in the Shooting phase" [L577]
        return 0
    if (
        isinstance(stated, bool)
        or not isinstance(stated, int | float)
        or not 0 <= stated <= MAX_DISTANCE
    ):
        raise InvalidAttack(
            "Night Fight: give the distance to the target in inches (night_fight_distance, "
            f"0 to {MAX_DISTANCE}).",
            errors=[
                {
                    "field": "situation.night_fight_distance",
                    "message": f"a distance in inches, 0 to {MAX_DISTANCE}",
                    "type": "missing" if stated is None else "range",
                }
            ],
        )
    return night_fight_modifier(zone, float(stated))


def _dawn_raid(state: BattleState, attacker: str) -> int:
    """A narrative mission's dawn raid: -1 to hit in the Shooting phase of its first round(s)
    (more with *Night Raider*), none for a unit under *Night-vision Equipment* this round
    [L54-L58], [L233], [L237]."""
    n = state.narrative
    if n is None or not n.dawn_raid_rounds or state.phase is not Phase.SHOOTING:
        return 0
    owner = state.units[attacker].owner
    night_vision = any(
        seat is owner and sid == "night-vision" and r == state.round for seat, sid, _, r in n.spent
    ) and any(
        seat is owner and sid == "night-vision" and t in state.group(attacker)
        for seat, sid, t in n.aimed
    )
    return dawn_raid_modifier(
        state.round,
        "shooting",
        active=True,
        rounds=n.dawn_raid_rounds,
        modifier=n.rules.dawn_raid_modifier,
        night_vision=night_vision,
    )


RELAY = "targeting-relay"


def _marker_problem(
    state: BattleState, stated: object, identity: str, label: str, owner: object, whose: str
) -> str | None:
    """What is wrong with a stated objective marker (``None``: nothing): it must exist, be
    identified as ``identity`` and be controlled by ``owner`` (``whose``: the refusal if not)."""
    marker = state.markers.get(stated) if isinstance(stated, str) else None
    if marker is None:
        return "no such objective marker"
    if state.mysterious.get(marker.id) != identity:
        return f"that marker is not an identified {label}"
    if marker.controller is not owner:
        return whose
    return None


def _refuse_marker(field: str, problem: str | None) -> None:
    if problem is not None:
        raise InvalidAttack(
            f"{field}: {problem}.",
            errors=[{"field": f"situation.{field}", "message": problem, "type": "value"}],
        )


def _targeting_relay(state: BattleState, attacker: str, stated: object) -> bool:
    """Night Fight's *Targeting relay* [L611]: the player states the marker its shooting unit
    is within 3" of (``targeting_relay``; the match sees no table); if the marker was
    identified as a relay and the shooter's player controls it, the unit re-rolls hit rolls of
    1 (rulings 73)."""
    if stated is None:
        return False
    owner = state.units[attacker].owner
    problem = _marker_problem(
        state, stated, RELAY, "Targeting relay", owner, "you do not control that marker"
    )
    if problem is None and state.phase is not Phase.SHOOTING:
        problem = "the relay helps shooting attacks only"
    _refuse_marker("targeting_relay", problem)
    return True


SCATTER = "scatter-field"


def _scatter_field(state: BattleState, target: str, stated: object) -> bool:
    """Night Fight's *Scatter field* [L613]: the attacker states the marker the target unit is
    within 3" of (``scatter_field``; the match sees no table); if the marker was identified as
    a Scatter field and the target's player (the attacker's opponent) controls it, the target
    re-rolls saving throws of 1, in any phase (rulings 98)."""
    if stated is None:
        return False
    owner = state.units[target].owner
    whose = "the target's player does not control that marker"
    _refuse_marker(
        "scatter_field", _marker_problem(state, stated, SCATTER, "Scatter field", owner, whose)
    )
    return True


def _evasive_turn(state: BattleState, unit: str) -> bool:
    """*Evasive Manoeuvres* was used on one of ``unit``'s parts in this turn [L913-L915]."""
    n = state.narrative
    if n is None or n.expansion is None or state.active is None:
        return False
    parts = set(state.group(unit))
    return any(
        r == state.round and active is state.active and aircraft in parts
        for r, active, aircraft in n.expansion.evasive
    )


def _evasive_hit(state: BattleState, attacker: str) -> int:
    """*Evasive Manoeuvres*: -1 to the aircraft's hit rolls until the end of the turn it was
    used in [L915], in every attack it makes, its Dogfight shot included (once: the pick's
    own modifier is taken by its arc, :func:`_dogfight`) (rulings 98)."""
    return -1 if _evasive_turn(state, attacker) else 0


def _evasive_saves(state: BattleState, target: str) -> bool:
    """*Evasive Manoeuvres*: the aircraft re-rolls failed saves in the phase it was used in
    [L913]: the Shooting phase of that turn (the Dogfight is played in it, rulings 68)."""
    return state.phase is Phase.SHOOTING and _evasive_turn(state, target)


def _entrenched(state: BattleState, target: str) -> bool:
    """Blitz's *Entrenchments*: +1 to the unit's saving throws against shooting attacks until
    it moves [L393] (rulings 71); the moves of past turns already ended it."""
    n = state.narrative
    if n is None or state.phase is Phase.FIGHT:
        return False
    return any(p in n.entrenched for p in state.group(target)) and not narrative_moved(
        state, target
    )


def _gone_to_ground(state: BattleState, attacker: str) -> str | None:
    """A narrative mission: a unit that went to ground against a Preliminary Bombardment (or
    a Firestorm Attack) makes no attack in its own first turn [L64] unless it passed its
    *Iron Discipline* roll [L255] (rulings 14, 72); each player's first turn is in round 1.
    Its attacks in the opponent's turn (Fire Overwatch, fighting back) are not restricted."""
    n = state.narrative
    owner = state.units[attacker].owner
    if n is None or state.round != 1 or state.active is not owner:
        return None
    down = [p for p in state.group(attacker) if p in n.grounded]
    if not down:
        return None
    return (
        f"{state.specs[down[0]].name} went to ground: it does not shoot or fight in its first "
        "turn (Iron Discipline lifts it on a 2+)."
    )


def _dogfight(state: BattleState, attacker: str, target: str) -> int:
    """Death from the Skies: an AIRCRAFT shooting the enemy AIRCRAFT it picked in this
    turn's Dogfight adds that pick's modifier to its hit rolls (by the target's arc: rear -2,
    front +1, side 0) [L887-L895] (rulings 68, 71); *Evasive Manoeuvres*' -1 is added by
    :func:`_evasive_hit` for every attack of the turn, so it is taken from the arc here, not
    from the pick (which includes it when the stratagem came first) [L915] (rulings 98).
    The 10th edition's cap of -1/+1 then applies to the total."""
    n = state.narrative
    if n is None or n.expansion is None or state.phase is not Phase.SHOOTING:
        return 0
    shooters, targets = set(state.group(attacker)), set(state.group(target))
    expansion = n.expansion.expansion
    return sum(
        dogfight_modifier(expansion, Arc(p.arc))
        for p in n.expansion.picks
        if p.round == state.round
        and p.active is state.active
        and p.aircraft in shooters
        and p.target in targets
    )


def _system() -> registry.RuleSystem:
    systems.load_all()
    return registry.get("wh40k-10e")


def analyze(request: Mapping[str, Any]) -> Any:
    hook = _system().analyze_combat
    assert hook is not None
    return hook(request)


def resolve(request: Mapping[str, Any], roller: Roller) -> CombatResolution:
    hook = _system().resolve_combat
    assert hook is not None
    return hook(request, roller)


def allocations(built: BuiltAttack, resolution: CombatResolution) -> tuple[ModelDamage, ...]:
    """The damage each match model took in ``resolution`` (the engine's models are in the
    allocation order :func:`build_request` laid the target out in)."""
    out: list[ModelDamage] = []
    for (unit, slot), model in zip(built.slots, resolution.target_after.models, strict=True):
        lost = model.wounds - model.wounds_remaining
        if lost > 0:
            out.append(ModelDamage(unit, slot, lost))
    return tuple(out)
