"""Who may shoot, charge and fight, and whom: the eligibility rules the state can check.

Each ``*_problem`` function returns ``None`` when the action is allowed, else the refusal
code and a message; commands, Stratagems and the list of legal actions share them.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.setup import Ability, Seat, other
from app.engine.wh40k10e.battle.state import BattleState, MoveMode, Step, WeaponUse

__all__ = [
    "Problem",
    "charge_problem",
    "charge_target_problem",
    "fight_candidates",
    "fight_eligible",
    "fight_turn",
    "fights_first",
    "head",
    "lone_operative_problem",
    "melee_target_problem",
    "pistols_only",
    "shoot_problem",
    "shoot_target_problem",
    "weapons_left",
    "weapons_refusal",
]

MAX_WEAPON_USES = 20  # weapons named by one attack
MAX_WEAPON_NAME = 120

Problem = tuple[Code, str] | None


def head(state: BattleState, unit_id: str) -> str:
    """The id that stands for a unit's group (the Bodyguard of an Attached unit)."""
    return state.group(unit_id)[0]


def _name(state: BattleState, unit_id: str) -> str:
    return state.specs[unit_id].name


def _big(state: BattleState, unit_id: str) -> bool:
    return state.any_keyword(unit_id, "MONSTER") or state.any_keyword(unit_id, "VEHICLE")


def _aircraft(state: BattleState, unit_id: str) -> bool:
    return any(
        state.specs[i].has("AIRCRAFT") and not state.units[i].hover for i in state.group(unit_id)
    )


def _on_field(state: BattleState, unit_id: str) -> Problem:
    u = state.units[unit_id]
    if not u.alive:
        return Code.UNIT_DESTROYED, f"{_name(state, unit_id)} has been destroyed"
    if not state.on_battlefield(unit_id):
        return Code.NOT_ON_BATTLEFIELD, f"{_name(state, unit_id)} is not on the battlefield"
    return None


def shoot_problem(state: BattleState, unit_id: str, *, assault_only: bool = False) -> Problem:
    """[L1401-1411], [L1514-1539], [L2009-2016], [L2061-2065]."""
    problem = _on_field(state, unit_id)
    if problem:
        return problem
    u = state.units[unit_id]
    name = _name(state, unit_id)
    if u.shot:
        return Code.ALREADY_SHOT, f"{name} has already shot this phase"
    if u.move is MoveMode.FALL_BACK:
        return Code.UNIT_FELL_BACK, f"{name} Fell Back this turn and cannot shoot"
    if u.move is MoveMode.ADVANCE:
        if not any(
            Ability.ASSAULT_WEAPONS in state.specs[i].abilities for i in state.group(unit_id)
        ):
            return Code.UNIT_ADVANCED, f"{name} Advanced this turn and has no Assault weapon"
        if not assault_only:
            return (
                Code.UNIT_ADVANCED,
                f"{name} Advanced this turn: it may shoot with Assault weapons only "
                "(set assault_only)",
            )
    if state.engaged(unit_id) and not _big(state, unit_id):
        has_pistols = any(Ability.PISTOLS in state.specs[i].abilities for i in state.group(unit_id))
        if not has_pistols:
            return (
                Code.NOT_ELIGIBLE_TO_SHOOT,
                f"{name} is within Engagement Range of enemy units and has no Pistols",
            )
    return None


def pistols_only(state: BattleState, unit_id: str) -> bool:
    """Within Engagement Range and not a MONSTER or VEHICLE: it shoots only its Pistols, at
    one of the enemy units it is engaged with [L2060-2072]."""
    return state.engaged(unit_id) and not _big(state, unit_id)


def shoot_target_problem(state: BattleState, shooter: str, target: str) -> Problem:
    """[L1417-1422], [L1518-1561], [L2066-2072]."""
    if state.units[target].owner is state.units[shooter].owner:
        return Code.BAD_TARGET, f"{_name(state, target)} is a friendly unit"
    problem = _on_field(state, target)
    if problem:
        return Code.BAD_TARGET, problem[1]
    shooter_group = set(state.group(shooter))
    engaged_with_shooter = {g for e in state.engaged_units(shooter) for g in state.group(e)}
    if state.engaged(shooter) and not _big(state, shooter):
        # Pistols only, at one of the enemy units it is engaged with, even if other friendly
        # units are engaged with it too [L2066-2072]
        if target in engaged_with_shooter:
            return None
        return Code.BAD_TARGET, (
            f"{_name(state, shooter)} is within Engagement Range: its Pistols may only target "
            "one of the enemy units it is engaged with"
        )
    if target in engaged_with_shooter:
        return None  # Big Guns Never Tire: at a unit it is engaged with [L1539-1544]
    friends_engaged = {
        e for t in state.group(target) for e in state.units[t].engaged_with if state.units[e].alive
    }
    if not friends_engaged:
        return None
    if _big(state, target):
        return None  # at -1 to hit unless Pistols [L1553-1561]
    if friends_engaged <= shooter_group:
        return None
    return Code.BAD_TARGET, (
        f"{_name(state, target)} is within Engagement Range of your units and cannot be shot"
    )


def lone_operative_problem(state: BattleState, target: str, *, within_12: bool) -> Problem:
    """[L1476-1478]: a Lone Operative that is not part of an Attached unit is the target of a
    ranged attack only if the attacking model is within 12"; the match cannot measure it, so
    the player states it (``within_12``), else the target is refused."""
    if within_12 or state.is_attached(target):
        return None
    if not state.all_have(target, Ability.LONE_OPERATIVE):
        return None
    return Code.LONE_OPERATIVE, (
        f"{_name(state, target)} is a Lone Operative: it can be shot only by models within "
        '12" (say so with within_12)'
    )


def charge_problem(state: BattleState, unit_id: str, *, heroic: bool = False) -> Problem:
    """[L2399-2405], [L1264-1266], [L1327-1329], [L3500-3524]."""
    problem = _on_field(state, unit_id)
    if problem:
        return problem
    u = state.units[unit_id]
    name = _name(state, unit_id)
    if u.charge_declared:
        return Code.ALREADY_DECLARED_CHARGE, f"{name} has already declared a charge this phase"
    if u.move is MoveMode.ADVANCE:
        return Code.UNIT_ADVANCED, f"{name} Advanced this turn and cannot charge"
    if u.move is MoveMode.FALL_BACK:
        return Code.UNIT_FELL_BACK, f"{name} Fell Back this turn and cannot charge"
    if state.engaged(unit_id):
        return Code.UNIT_ENGAGED, f"{name} is already within Engagement Range of enemy units"
    if _aircraft(state, unit_id):
        return Code.CANNOT_CHARGE, f"{name} is an Aircraft: Aircraft cannot charge"
    if u.cannot_charge:
        return Code.CANNOT_CHARGE, f"{name} disembarked this turn in a way that forbids charging"
    if (
        heroic
        and state.any_keyword(unit_id, "VEHICLE")
        and not state.any_keyword(unit_id, "WALKER")
    ):
        return Code.CANNOT_CHARGE, "only a Walker Vehicle can make a Heroic Intervention"
    return None


def charge_target_problem(state: BattleState, unit_id: str, target: str) -> Problem:
    """Targets must be enemy units (Aircraft only for a Fly charger) [L2407-2411], [L4159]."""
    if state.units[target].owner is state.units[unit_id].owner:
        return Code.BAD_TARGET, f"{_name(state, target)} is a friendly unit"
    problem = _on_field(state, target)
    if problem:
        return Code.BAD_TARGET, problem[1]
    if _aircraft(state, target) and not state.all_have_keyword(unit_id, "FLY"):
        return Code.BAD_TARGET, "only units that can FLY may charge an Aircraft"
    return None


def melee_target_problem(state: BattleState, unit_id: str, target: str) -> Problem:
    """Aircraft in the Fight phase [L4161-4167]: an Aircraft makes melee attacks only against
    FLY units, and only FLY models make melee attacks against an Aircraft (an Attached unit
    with a FLY part may: its other models' weapons are refused by the attack form)."""
    if _aircraft(state, unit_id) and not state.any_keyword(target, "FLY"):
        return Code.BAD_TARGET, (
            f"{_name(state, unit_id)} is an Aircraft: it makes melee attacks only against FLY "
            f"units, and {_name(state, target)} cannot FLY"
        )
    if _aircraft(state, target) and not state.any_keyword(unit_id, "FLY"):
        return Code.BAD_TARGET, (
            f"{_name(state, target)} is an Aircraft: only FLY models make melee attacks against it"
        )
    return None


def fight_eligible(state: BattleState, unit_id: str) -> bool:
    """In Engagement Range or made a Charge move this turn, and not fought [L2586-2593]; only
    the units it may make melee attacks against count (an Aircraft is eligible only within
    Engagement Range of a FLY unit [L4161-4167])."""
    u = state.units[unit_id]
    if not state.on_battlefield(unit_id) or u.fought:
        return False
    if any(state.units[i].charge_moved for i in state.group(unit_id)):
        return True
    return any(
        melee_target_problem(state, unit_id, e) is None for e in state.engaged_units(unit_id)
    )


def fights_first(state: BattleState, unit_id: str) -> bool:
    """Charge Bonus, or every model has Fights First [L2611-2615], [L2644-2651]."""
    return any(state.units[i].charge_bonus for i in state.group(unit_id)) or state.all_have(
        unit_id, Ability.FIGHTS_FIRST
    )


def fight_candidates(state: BattleState, seat: Seat, step: Step) -> list[str]:
    heads = {head(state, u.id) for u in state.units_of(seat) if u.alive}
    out = [h for h in sorted(heads) if fight_eligible(state, h)]
    if step is Step.FIGHTS_FIRST:
        # eligible at the start of the phase: one that became eligible since (engaged by a
        # Heroic Intervention, a consolidation...) fights in Remaining Combats [L2617-2621]
        start = state.fight.eligible_at_start if state.fight is not None else frozenset()
        out = [h for h in out if fights_first(state, h) and any(i in start for i in state.group(h))]
    return out


def fight_turn(state: BattleState) -> tuple[Step, Seat | None]:
    """The step the Fight phase is really in and who must select a unit next [L2579-2603]."""
    fs = state.fight
    active = state.active
    assert fs is not None
    assert active is not None
    step = fs.step
    last = fs.last_selector
    if step is Step.FIGHTS_FIRST and not any(
        fight_candidates(state, s, Step.FIGHTS_FIRST) for s in (Seat.A, Seat.B)
    ):
        step, last = Step.REMAINING_COMBATS, None
    preferred = other(active) if last is None else other(last)
    for seat in (preferred, other(preferred)):
        if fight_candidates(state, seat, step):
            return step, seat
    return step, None


# -- one use of each weapon per phase ---------------------------------------------------------


def weapons_left(state: BattleState, attacker: str, part: str, weapon: str) -> int:
    """How many models of ``part`` (of ``attacker``'s unit) may still attack with ``weapon``
    this phase, by what the state knows: the part's models alive, less the models that have
    used it (0 once the unit made an attack that named no weapon)."""
    u = state.units[head(state, attacker)]
    if u.all_weapons_used or part not in state.group(attacker):
        return 0
    return max(0, state.units[part].models_alive - u.models_used(part, weapon))


def weapons_refusal(
    state: BattleState, attacker: str, weapons: Sequence[WeaponUse]
) -> Refusal | None:
    """Why ``attacker`` may not attack with ``weapons`` now, or ``None``.

    A unit is selected to shoot once per phase and each model's weapon is used once
    ([L1401-1405], [L1413-1444]); a unit fights once per phase, each model with one melee
    weapon ([L2593-2603], [L2697-2742]); Fire Overwatch is a shooting like another [L3422-3444].
    So a later attack by the unit in the same phase may use only weapons not used yet
    (splitting fire between targets stays possible); an attack naming no weapon is the whole
    unit's: only the first of the phase, and the last."""
    first = head(state, attacker)
    name = state.specs[first].name
    if len(state.group(first)) > 1:
        name = " + ".join(state.specs[i].name for i in state.group(first))
    u = state.units[first]
    if len(weapons) > MAX_WEAPON_USES:
        return refuse(Code.BAD_WEAPON, f"an attack names at most {MAX_WEAPON_USES} weapons")
    parts = state.group(first)
    riders = state.firing_deck_riders(first)
    wanted: dict[tuple[str, str], int] = {}
    for n, w in enumerate(weapons):
        if w.unit in riders:
            rider = state.units[w.unit]
            if rider.shot and not any(x.unit == w.unit for x in u.weapons_used):
                return refuse(
                    Code.FIRING_DECK,
                    f"weapons[{n}]: {state.specs[w.unit].name} has already shot this phase",
                    index=n,
                )
        elif w.unit not in parts:
            return refuse(
                Code.BAD_WEAPON, f"weapons[{n}]: {w.unit!r} is not a part of {name}", index=n
            )
        if not 0 < len(w.weapon) <= MAX_WEAPON_NAME or len(w.profile) > MAX_WEAPON_NAME:
            return refuse(
                Code.BAD_WEAPON,
                f"weapons[{n}]: a weapon name is 1 to {MAX_WEAPON_NAME} characters",
                index=n,
            )
        alive = state.units[w.unit].models_alive
        if not 1 <= w.models <= alive:
            return refuse(Code.BAD_WEAPON, f"weapons[{n}]: models must be 1..{alive}", index=n)
        key = (w.unit, w.weapon)
        wanted[key] = wanted.get(key, 0) + w.models
    lent = sum(w.models for w in weapons if w.unit in riders)
    if lent > state.firing_deck_left(first):
        deck = state.specs[first].firing_deck
        return refuse(
            Code.FIRING_DECK,
            f"{name} has Firing Deck {deck}: at most {deck} embarked models lend it a ranged "
            f"weapon when it shoots ({state.firing_deck_left(first)} left this phase)",
        )
    if u.all_weapons_used:
        return refuse(
            Code.ALREADY_ATTACKED,
            f"{name} has already made its attacks this phase (an attack that names no weapon "
            "uses all of them): a unit shoots or fights once per phase (undo the attack to "
            "change it)",
            attacker=first,
        )
    if not weapons and u.attacks:
        return refuse(
            Code.ALREADY_ATTACKED,
            f"{name} has already attacked this phase: name the weapons it has not used yet "
            "(each weapon is used once per phase)",
            attacker=first,
        )
    used: list[str] = []
    for (part, weapon), models in wanted.items():
        if u.models_used(part, weapon) + models > state.units[part].models_alive:
            used.append(weapon)
    if used:
        return refuse(
            Code.WEAPON_ALREADY_USED,
            f"{name} has already attacked with {', '.join(used)} this phase: each weapon is "
            "used once per phase, a later attack may only use the weapons left (undo the "
            "attack to change it)",
            attacker=first,
            weapons=used,
        )
    return None
