"""The 11 core Stratagems as data, and the one generic check every use goes through.

Each :class:`StratagemSpec` says what the card says: cost, whose turn, which phases, which
"just after" moment (trigger) it answers, which of your units it may target (keywords and
requirements) and which enemy unit it acts on; :func:`use_stratagem` checks all of it the same
way for every card, then runs the card's effect. Costs and timings [L3262-3540] (note 2 §2.5):
CP cost deducted on use, refused if unaffordable [L3267-3271]; once per phase per player
[L3272-3274] (note 2 §5.41); Fire Overwatch once per turn [L3444]; not on your own
Battle-shocked unit except Insane Bravery [L802-803], [L3377-3379].
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from app.engine.wh40k10e.battle.commands import UseStratagem
from app.engine.wh40k10e.battle.eligibility import (
    charge_problem,
    charge_target_problem,
    fight_eligible,
    head,
    lone_operative_problem,
    shoot_problem,
    shoot_target_problem,
)
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import (
    BattleShockCancelled,
    ChargeDeclared,
    EffectApplied,
    FightsNext,
    MortalWoundsInflicted,
    ReactionWindowClosed,
    RollRerolled,
    StratagemUsed,
    UnitArrived,
    UnitSelectedToShoot,
)
from app.engine.wh40k10e.battle.flow import (
    FAILS_AT,
    Builder,
    allocate,
    end_phase,
    failed_test_loss,
    need_battle,
    need_enemy,
    need_own,
    no_pending,
    reserve_round_ok,
)
from app.engine.wh40k10e.battle.state import (
    Effect,
    Location,
    ModelDamage,
    Phase,
    TriggerKind,
)

__all__ = [
    "CORE_STRATAGEMS",
    "STRATAGEMS",
    "Req",
    "StratagemSpec",
    "Timing",
    "check_timing",
    "use_stratagem",
]


class Timing(enum.StrEnum):
    YOUR_TURN = "your_turn"
    OPPONENT_TURN = "opponent_turn"
    EITHER = "either"


class Req(enum.StrEnum):
    """Requirements on the unit a Stratagem targets."""

    NOT_ENGAGED = "not_engaged"
    ENGAGED = "engaged"
    NOT_SHOT = "not_shot"
    IN_RESERVES_CAN_ARRIVE = "in_reserves_can_arrive"
    FIGHT_ELIGIBLE = "fight_eligible"
    TARGETED_BY_TRIGGER = "targeted_by_trigger"
    IS_TRIGGER_UNIT = "is_trigger_unit"
    SHOOT_ELIGIBLE_AT_TRIGGER = "shoot_eligible_at_trigger"
    CHARGE_ELIGIBLE_AT_TRIGGER = "charge_eligible_at_trigger"
    ENGAGED_WITH_ATTACHED = "engaged_with_attached"


class EnemyReq(enum.StrEnum):
    TRIGGER_UNIT = "trigger_unit"
    NOT_ENGAGED_WITH_YOUR_ARMY = "not_engaged_with_your_army"
    ENGAGED_WITH_UNIT = "engaged_with_unit"


@dataclass(frozen=True, slots=True)
class StratagemSpec:
    id: str
    name: str
    name_fr: str
    category: str
    cp: int
    timing: Timing
    phases: frozenset[Phase]  # empty: any phase
    triggers: frozenset[TriggerKind]  # empty: no "just after" moment needed
    trigger_by: str  # "own" / "enemy": whose unit caused the trigger
    unit: bool  # targets one of your units
    keywords: frozenset[str]  # the unit needs one of these (empty: none)
    requires: tuple[Req, ...]
    enemy: tuple[EnemyReq, ...] | None  # None: no enemy unit; else its requirements
    effect: str
    source: str
    once_per_turn: bool = False
    on_battle_shocked: bool = False


_ANY: frozenset[Phase] = frozenset()
_MOVE_OR_CHARGE = frozenset({Phase.MOVEMENT, Phase.CHARGE})

CORE_STRATAGEMS: tuple[StratagemSpec, ...] = (
    StratagemSpec(
        "command_reroll",
        "Command Re-roll",
        "Relance de Commandement",
        "battle_tactic",
        1,
        Timing.EITHER,
        _ANY,
        frozenset(),
        "own",
        False,
        frozenset(),
        (),
        None,
        "reroll",
        "[L3291-3306]",
    ),
    StratagemSpec(
        "counter_offensive",
        "Counter-offensive",
        "Contre-Offensive",
        "strategic_ploy",
        2,
        Timing.EITHER,
        frozenset({Phase.FIGHT}),
        frozenset({TriggerKind.UNIT_FOUGHT}),
        "enemy",
        True,
        frozenset(),
        (Req.FIGHT_ELIGIBLE, Req.ENGAGED),
        None,
        "fights_next",
        "[L3308-3323]",
    ),
    StratagemSpec(
        "epic_challenge",
        "Epic Challenge",
        "Défi Épique",
        "epic_deed",
        1,
        Timing.EITHER,
        frozenset({Phase.FIGHT}),
        frozenset({TriggerKind.SELECTED_TO_FIGHT}),
        "own",
        True,
        frozenset({"CHARACTER"}),
        (Req.IS_TRIGGER_UNIT, Req.ENGAGED_WITH_ATTACHED),
        None,
        "precision",
        "[L3325-3340]",
    ),
    StratagemSpec(
        "insane_bravery",
        "Insane Bravery",
        "Courage Insensé",
        "epic_deed",
        1,
        Timing.YOUR_TURN,
        frozenset({Phase.COMMAND}),
        frozenset({TriggerKind.BATTLE_SHOCK_FAILED}),
        "own",
        True,
        frozenset(),
        (Req.IS_TRIGGER_UNIT,),
        None,
        "pass_battle_shock",
        "[L3366-3382]",
        on_battle_shocked=True,
    ),
    StratagemSpec(
        "grenade",
        "Grenade",
        "Grenade",
        "wargear",
        1,
        Timing.YOUR_TURN,
        frozenset({Phase.SHOOTING}),
        frozenset(),
        "own",
        True,
        frozenset({"GRENADES"}),
        (Req.NOT_ENGAGED, Req.NOT_SHOT),
        (EnemyReq.NOT_ENGAGED_WITH_YOUR_ARMY,),
        "grenade",
        "[L3384-3399]",
    ),
    StratagemSpec(
        "tank_shock",
        "Tank Shock",
        "Attaque de Char",
        "strategic_ploy",
        1,
        Timing.YOUR_TURN,
        frozenset({Phase.CHARGE}),
        frozenset({TriggerKind.CHARGE_ENDED}),
        "own",
        True,
        frozenset({"VEHICLE"}),
        (Req.IS_TRIGGER_UNIT,),
        (EnemyReq.ENGAGED_WITH_UNIT,),
        "tank_shock",
        "[L3401-3420]",
    ),
    StratagemSpec(
        "fire_overwatch",
        "Fire Overwatch",
        "Tir en État d'Alerte",
        "strategic_ploy",
        1,
        Timing.OPPONENT_TURN,
        _MOVE_OR_CHARGE,
        frozenset(
            {
                TriggerKind.MOVE_STARTED,
                TriggerKind.UNIT_MOVED,
                TriggerKind.UNIT_SET_UP,
                TriggerKind.CHARGE_ROLLED,
                TriggerKind.CHARGE_ENDED,
            }
        ),
        "enemy",
        True,
        frozenset(),
        (Req.SHOOT_ELIGIBLE_AT_TRIGGER,),
        (EnemyReq.TRIGGER_UNIT,),
        "overwatch",
        "[L3422-3444]",
        once_per_turn=True,
    ),
    StratagemSpec(
        "rapid_ingress",
        "Rapid Ingress",
        "Arrivée Précipitée",
        "strategic_ploy",
        1,
        Timing.OPPONENT_TURN,
        frozenset({Phase.MOVEMENT}),
        frozenset(),
        "enemy",
        True,
        frozenset(),
        (Req.IN_RESERVES_CAN_ARRIVE,),
        None,
        "arrive",
        "[L3446-3464]",
    ),
    StratagemSpec(
        "go_to_ground",
        "Go to Ground",
        "À Terre",
        "battle_tactic",
        1,
        Timing.OPPONENT_TURN,
        frozenset({Phase.SHOOTING}),
        frozenset({TriggerKind.TARGETS_SELECTED}),
        "enemy",
        True,
        frozenset({"INFANTRY"}),
        (Req.TARGETED_BY_TRIGGER,),
        None,
        "go_to_ground",
        "[L3466-3481]",
    ),
    StratagemSpec(
        "smokescreen",
        "Smokescreen",
        "Écran de Fumée",
        "wargear",
        1,
        Timing.OPPONENT_TURN,
        frozenset({Phase.SHOOTING}),
        frozenset({TriggerKind.TARGETS_SELECTED}),
        "enemy",
        True,
        frozenset({"SMOKE"}),
        (Req.TARGETED_BY_TRIGGER,),
        None,
        "smokescreen",
        "[L3483-3498]",
    ),
    StratagemSpec(
        "heroic_intervention",
        "Heroic Intervention",
        "Intervention Héroïque",
        "strategic_ploy",
        2,
        Timing.OPPONENT_TURN,
        frozenset({Phase.CHARGE}),
        frozenset({TriggerKind.CHARGE_ENDED}),
        "enemy",
        True,
        frozenset(),
        (Req.CHARGE_ELIGIBLE_AT_TRIGGER,),
        (EnemyReq.TRIGGER_UNIT,),
        "heroic_intervention",
        "[L3500-3524]",
    ),
)

STRATAGEMS: dict[str, StratagemSpec] = {s.id: s for s in CORE_STRATAGEMS}

GRENADE_DICE, GRENADE_HIT = 6, 4  # [L3398-3399]
TANK_SHOCK_HIT, TANK_SHOCK_MAX, TANK_SHOCK_BONUS = 5, 6, 2  # [L3414-3420]
REROLLABLE = ("advance", "charge", "desperate_escape", "hazardous")


# -- the generic check -----------------------------------------------------------------------


def check_timing(b: Builder, spec: StratagemSpec) -> None:
    s = b.state
    mine = s.active is b.actor
    if spec.timing is Timing.YOUR_TURN and not mine:
        raise refuse(Code.STRATAGEM_WRONG_TIME, f"{spec.name} is used in your own turn")
    if spec.timing is Timing.OPPONENT_TURN and mine:
        raise refuse(Code.STRATAGEM_WRONG_TIME, f"{spec.name} is used in your opponent's turn")
    if spec.phases and s.phase not in spec.phases:
        phases = " or ".join(sorted(spec.phases))
        raise refuse(Code.STRATAGEM_WRONG_TIME, f"{spec.name} is used in the {phases} phase")
    player = s.players[b.actor]
    if spec.id in player.used_this_phase:
        raise refuse(
            Code.STRATAGEM_USED_THIS_PHASE, f"you have already used {spec.name} this phase"
        )
    if spec.once_per_turn and player.overwatch_this_turn:
        raise refuse(Code.OVERWATCH_USED_THIS_TURN, f"{spec.name} can be used once per turn")
    if player.cp < spec.cp:
        raise refuse(
            Code.NOT_ENOUGH_CP,
            f"{spec.name} costs {spec.cp} CP and you have {player.cp} CP",
            cost=spec.cp,
            cp=player.cp,
        )
    if spec.triggers:
        t = s.trigger
        by_ok = t is not None and ((t.seat is b.actor) == (spec.trigger_by == "own"))
        if t is None or t.kind not in spec.triggers or not by_ok:
            raise refuse(
                Code.STRATAGEM_NO_TRIGGER,
                f"{spec.name} can only be used just after "
                + ", ".join(sorted(spec.triggers))
                + (" by an enemy unit" if spec.trigger_by == "enemy" else " by your unit"),
            )


def _unit_ok(b: Builder, spec: StratagemSpec, unit: str) -> None:
    s = b.state
    need_own(b, unit)
    u = s.units[unit]
    name = s.specs[unit].name
    if spec.keywords and not any(s.any_keyword(unit, k) for k in spec.keywords):
        raise refuse(
            Code.STRATAGEM_BAD_TARGET,
            f"{spec.name} needs a {' or '.join(sorted(spec.keywords))} unit",
        )
    if u.battle_shocked and not spec.on_battle_shocked:
        raise refuse(
            Code.BATTLE_SHOCKED,
            f"{name} is Battle-shocked: your Stratagems cannot affect it",
        )
    for req in spec.requires:
        problem = _requirement(b, spec, req, unit)
        if problem is not None:
            raise refuse(Code.STRATAGEM_BAD_TARGET, f"{spec.name}: {problem}")
    if Req.IN_RESERVES_CAN_ARRIVE not in spec.requires and not s.on_battlefield(unit):
        raise refuse(Code.NOT_ON_BATTLEFIELD, f"{name} is not on the battlefield")


def _requirement(b: Builder, spec: StratagemSpec, req: Req, unit: str) -> str | None:
    s = b.state
    t = s.trigger
    name = s.specs[unit].name
    group = set(s.group(unit))
    if req is Req.NOT_ENGAGED:
        return f"{name} is within Engagement Range of an enemy" if s.engaged(unit) else None
    if req is Req.ENGAGED:
        return None if s.engaged(unit) else f"{name} is not within Engagement Range of an enemy"
    if req is Req.NOT_SHOT:
        return f"{name} has already been selected to shoot" if s.units[unit].shot else None
    if req is Req.IN_RESERVES_CAN_ARRIVE:
        u = s.units[unit]
        if u.location is not Location.RESERVES or not u.alive:
            return f"{name} is not in Reserves"
        ok, first = reserve_round_ok(s, u)
        return None if ok else f"{name} cannot arrive before battle round {first}"
    if req is Req.FIGHT_ELIGIBLE:
        return None if fight_eligible(s, unit) else f"{name} is not eligible to fight"
    if req is Req.TARGETED_BY_TRIGGER:
        ok = t is not None and bool(group & set(t.targets))
        return None if ok else f"{name} is not a target of that unit"
    if req is Req.IS_TRIGGER_UNIT:
        return None if t is not None and t.unit in group else f"{name} is not the unit concerned"
    if req is Req.SHOOT_ELIGIBLE_AT_TRIGGER:
        assert t is not None
        problem = shoot_problem(s, unit) or shoot_target_problem(s, unit, t.unit)
        return None if problem is None else problem[1]
    if req is Req.CHARGE_ELIGIBLE_AT_TRIGGER:
        assert t is not None
        problem = charge_problem(s, unit, heroic=True) or charge_target_problem(s, unit, t.unit)
        return None if problem is None else problem[1]
    # Req.ENGAGED_WITH_ATTACHED
    attached = [e for e in s.engaged_units(unit) if s.is_attached(e)]
    return None if attached else f"{name} is not within Engagement Range of an Attached unit"


def _enemy_ok(b: Builder, spec: StratagemSpec, unit: str | None, enemy: str | None) -> str:
    s = b.state
    if enemy is None:
        raise refuse(Code.BAD_COMMAND, f"{spec.name} needs the enemy unit it acts on ('enemy')")
    need_enemy(b, enemy)
    if not s.on_battlefield(enemy):
        raise refuse(Code.BAD_TARGET, f"{s.specs[enemy].name} is not on the battlefield")
    for req in spec.enemy or ():
        if req is EnemyReq.TRIGGER_UNIT:
            t = s.trigger
            if t is None or enemy not in s.group(t.unit):
                raise refuse(Code.BAD_TARGET, f"{spec.name} acts on the unit that just acted")
        elif req is EnemyReq.NOT_ENGAGED_WITH_YOUR_ARMY:
            if any(s.units[e].owner is b.actor for e in s.engaged_units(enemy)):
                raise refuse(Code.BAD_TARGET, "that enemy unit is engaged with your army")
        elif req is EnemyReq.ENGAGED_WITH_UNIT:
            assert unit is not None
            if not set(s.engaged_units(enemy)) & set(s.group(unit)):
                raise refuse(Code.BAD_TARGET, "that enemy unit is not engaged with your unit")
    return enemy


def use_stratagem(b: Builder, cmd: UseStratagem) -> None:
    spec = STRATAGEMS.get(cmd.stratagem)
    if spec is None:
        known = ", ".join(sorted(STRATAGEMS))
        raise refuse(
            Code.UNKNOWN_STRATAGEM, f"unknown Stratagem {cmd.stratagem!r} (known: {known})"
        )
    need_battle(b)
    if spec.effect == "arrive":
        if b.state.window is not b.actor:
            raise refuse(
                Code.STRATAGEM_WRONG_TIME,
                f"{spec.name} is used at the end of your opponent's Movement phase",
            )
        no_pending(b, charge=True, window=False)
    else:
        no_pending(b, charge=False)
    check_timing(b, spec)
    if spec.unit:
        if cmd.unit is None:
            raise refuse(Code.BAD_COMMAND, f"{spec.name} needs one of your units ('unit')")
        _unit_ok(b, spec, cmd.unit)
    enemy = _enemy_ok(b, spec, cmd.unit, cmd.enemy) if spec.enemy is not None else None
    _EFFECTS[spec.effect](b, spec, cmd, enemy)


def _used(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    b.emit(StratagemUsed(b.actor, spec.id, spec.cp, cmd.unit, enemy, cmd.note))


# -- effects ---------------------------------------------------------------------------------


def _reroll(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    """Re-roll a match roll just made; or, with a ``note``, a roll made inside an attack
    resolution (the attack engine re-rolls it; the match records the CP spent)."""
    if cmd.note:
        if cmd.unit is not None:
            need_own(b, cmd.unit)
            if b.state.units[cmd.unit].battle_shocked:
                raise refuse(
                    Code.BATTLE_SHOCKED, "your Stratagems cannot affect a Battle-shocked unit"
                )
        _used(b, spec, cmd, None)
        return
    t = b.state.trigger
    if t is None or t.seat is not b.actor or t.roll is None or t.roll_kind not in REROLLABLE:
        raise refuse(Code.NOTHING_TO_REROLL, "you have made no roll a Command Re-roll can re-roll")
    if t.rerolled:
        raise refuse(Code.NOTHING_TO_REROLL, "that roll was already re-rolled (once per die)")
    if b.state.units[t.unit].battle_shocked:
        raise refuse(Code.BATTLE_SHOCKED, "your Stratagems cannot affect a Battle-shocked unit")
    kind = t.roll_kind
    b.emit(StratagemUsed(b.actor, spec.id, spec.cp, t.unit, None, kind))
    if kind in ("advance", "charge"):  # a whole roll: every die again [L662-664]
        new = b.roll(len(t.roll.dice), 6, f"{kind} (re-roll)")
        b.emit(RollRerolled(t.unit, kind, new))
        return
    limit = FAILS_AT[kind]
    values = t.roll.values
    index = cmd.die
    if index is None:
        index = next((i for i, v in enumerate(values) if v <= limit), 0)
    if not 0 <= index < len(values):
        raise refuse(Code.BAD_COMMAND, f"die {index} is not one of the {len(values)} dice rolled")
    new = b.roll(1, 6, f"{kind} (re-roll of die {index})")
    old_fail, new_fail = values[index] <= limit, new.total <= limit
    restored: tuple[ModelDamage, ...] = ()
    damage: tuple[ModelDamage, ...] = ()
    if old_fail and not new_fail:
        loss = next((x for x in t.losses if x.die == index), None)
        restored = loss.damage if loss is not None else ()
    fnp = b.feel_no_pain()
    if new_fail and not old_fail:
        damage = tuple(failed_test_loss(b.state, t.unit, kind, ignores=fnp))
    b.emit(RollRerolled(t.unit, kind, new, restored=restored, damage=damage, fnp=fnp.roll))


def _fights_next(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert cmd.unit is not None
    if b.state.fight is not None and b.state.fight.current is not None:
        raise refuse(Code.FIGHT_IN_PROGRESS, "wait until the fighting unit has consolidated")
    _used(b, spec, cmd, enemy)
    b.emit(FightsNext(head(b.state, cmd.unit)))


def _precision(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert cmd.unit is not None
    _used(b, spec, cmd, enemy)
    characters = tuple(i for i in b.state.group(cmd.unit) if b.state.specs[i].has("CHARACTER"))
    b.emit(EffectApplied(characters, Effect.PRECISION))


def _pass_battle_shock(
    b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None
) -> None:
    assert cmd.unit is not None
    _used(b, spec, cmd, enemy)
    b.emit(BattleShockCancelled(b.state.group(cmd.unit)))


def _grenade(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert enemy is not None
    _used(b, spec, cmd, enemy)
    roll = b.roll(GRENADE_DICE, 6, "grenade")
    mortal = sum(1 for v in roll.values if v >= GRENADE_HIT)
    fnp = b.feel_no_pain()
    damage = tuple(allocate(b.state, enemy, (), mortal_wounds=mortal, ignores=fnp))
    b.emit(MortalWoundsInflicted("grenade", enemy, roll, mortal, damage, fnp.roll))


def _tank_shock(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert enemy is not None
    strength = cmd.strength
    if strength is None or not 1 <= strength <= 30:
        raise refuse(Code.BAD_COMMAND, "Tank Shock needs the Strength (1-30) of a melee weapon")
    toughness = b.state.specs[b.state.group(enemy)[0]].toughness
    if toughness is None:
        raise refuse(Code.BAD_COMMAND, "the enemy unit's Toughness is not in its army snapshot")
    _used(b, spec, cmd, enemy)
    dice = strength + (TANK_SHOCK_BONUS if strength > toughness else 0)
    roll = b.roll(dice, 6, "tank shock")
    mortal = min(TANK_SHOCK_MAX, sum(1 for v in roll.values if v >= TANK_SHOCK_HIT))
    fnp = b.feel_no_pain()
    damage = tuple(allocate(b.state, enemy, (), mortal_wounds=mortal, ignores=fnp))
    b.emit(MortalWoundsInflicted("tank_shock", enemy, roll, mortal, damage, fnp.roll))


def _overwatch(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert cmd.unit is not None
    assert enemy is not None
    problem = lone_operative_problem(b.state, enemy, within_12=cmd.within_12)
    if problem:
        raise refuse(*problem)
    _used(b, spec, cmd, enemy)
    b.emit(UnitSelectedToShoot(b.state.group(cmd.unit), b.state.group(enemy), overwatch=True))


def _arrive(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert cmd.unit is not None
    u = b.state.units[cmd.unit]
    assert u.reserve is not None
    _used(b, spec, cmd, enemy)
    b.emit(UnitArrived(b.state.group(cmd.unit), u.reserve, rapid_ingress=True))
    b.emit(ReactionWindowClosed(b.actor))
    end_phase(b)


def _cover(effect: Effect) -> Callable[[Builder, StratagemSpec, UseStratagem, str | None], None]:
    def apply(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
        assert cmd.unit is not None
        _used(b, spec, cmd, enemy)
        b.emit(EffectApplied(b.state.group(cmd.unit), effect))

    return apply


def _heroic(b: Builder, spec: StratagemSpec, cmd: UseStratagem, enemy: str | None) -> None:
    assert cmd.unit is not None
    assert enemy is not None
    _used(b, spec, cmd, enemy)
    roll = b.roll(2, 6, "charge")
    b.emit(ChargeDeclared(b.state.group(cmd.unit), b.state.group(enemy), roll, heroic=True))


_EFFECTS: dict[str, Callable[[Builder, StratagemSpec, UseStratagem, str | None], None]] = {
    "reroll": _reroll,
    "fights_next": _fights_next,
    "precision": _precision,
    "pass_battle_shock": _pass_battle_shock,
    "grenade": _grenade,
    "tank_shock": _tank_shock,
    "overwatch": _overwatch,
    "arrive": _arrive,
    "go_to_ground": _cover(Effect.GO_TO_GROUND),
    "smokescreen": _cover(Effect.SMOKESCREEN),
    "heroic_intervention": _heroic,
}
