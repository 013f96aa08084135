"""One live resolution of a PEN attack with the seeded recording Roller.

It rolls the very dice procedures the exact analysis enumerates (same plan, same functions), in
the order of the combat process [L1276-L1280]: all to-hit rolls, cover saves, to-wound (or
penetration) rolls, allocation, then saves model by model; in melee, Initiative steps
[L1237-L1240], the combat result, morale and the sweeping advance [L1250-L1258].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TypeVar

from app.engine.combat import CombatResolution, ExtraValue, ModelState, ResolutionStep, TargetState
from app.engine.pen import rolls
from app.engine.pen.allocation import allocate_live
from app.engine.pen.analysis import vehicle_initial_state
from app.engine.pen.attack import (
    AttackPlan,
    area_procedure,
    counter_request,
    hit_procedure,
    melee_initiatives,
    plan_attack,
)
from app.engine.pen.names import Rule
from app.engine.pen.procedures import roll_code
from app.engine.pen.profiles import AttackRequest, Unit, Vehicle
from app.engine.pen.tables import DamageResult
from app.engine.pen.vehicles import (
    Penetration,
    VehicleState,
    damage_procedure,
    penetration_procedure,
)
from app.engine.pen.wounds import LossPlan, cover_procedure, save_order_key, wound_procedure
from app.engine.roller import Roller

__all__ = ["resolve", "strike"]

T = TypeVar("T")


@dataclass(slots=True)
class _Log:
    roller: Roller
    steps: list[ResolutionStep] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    def run(self, stage: str, action: Callable[[], T], text: Callable[[T], str]) -> T:
        start = len(self.roller.records)
        value = action()
        dice = tuple(range(start, len(self.roller.records)))
        self.steps.append(ResolutionStep(stage, text(value), dice))
        return value

    def add(self, key: str, value: int) -> None:
        self.totals[key] = self.totals.get(key, 0) + value


def strike(
    request: AttackRequest, roller: Roller, remaining: list[int], *, hits: int | None = None
) -> dict[str, int]:
    """Roll one squad's attacks against a squad whose W left per model is ``remaining`` (the
    list is updated in place) and return the totals. ``hits``: hits already scored (a
    transport's destruction, a ram...): no to-hit roll and no cover save, straight to the
    wound rolls. The battle engine uses it for multi-squad combats, where each squad strikes
    on its own Initiative step [L1205-L1213]."""
    log = _Log(roller)
    _strike(log, plan_attack(request), remaining, given_hits=hits)
    return dict(log.totals)


def _strike(
    log: _Log,
    plan: AttackPlan,
    remaining: list[int],
    prefix: str = "",
    *,
    given_hits: int | None = None,
) -> None:
    """Roll one side's attacks against a squad whose W left per model is ``remaining``."""
    roller = log.roller
    struck = plan.request.target
    assert isinstance(struck, Unit)
    hit = plan.hit
    if given_hits is not None:
        hits = given_hits
        log.add(prefix + "hits", hits)
    else:
        attacks = hit.attacks
        if hit.area_models:
            extra = log.run(
                prefix + "attacks",
                lambda: sum(area_procedure(roller, hit.area_cap) for _ in range(hit.area_models)),
                lambda n: f"area attacks: +{n}",
            )
            attacks += extra
        log.add(prefix + "attacks", attacks)
        hits = log.run(
            prefix + "hits",
            lambda: sum(hit_procedure(roller, hit) for _ in range(attacks)),
            lambda n: f"{attacks} attacks at {hit.code} (skill {hit.skill}): {n} hits",
        )
        log.add(prefix + "hits", hits)
    if plan.cover is not None and given_hits is None:
        cover = plan.cover
        saved = log.run(
            prefix + "cover",
            lambda: sum(cover_procedure(roller, cover) for _ in range(hits)),
            lambda n: f"cover saves {cover}+: {n} of {hits} hits cancelled",
        )
        hits -= saved
        log.add(prefix + "hits_after_cover", hits)
    if plan.wound is None:
        log.steps.append(ResolutionStep(prefix + "wounds", "no strength: no wound roll"))
        return
    wound_plan = plan.wound
    rolled = log.run(
        prefix + "wounds",
        lambda: [wound_procedure(roller, wound_plan) for _ in range(hits)],
        lambda ws: f"{hits} hits at {wound_plan.code}: {sum(w is not None for w in ws)} wounds",
    )
    wounds = [w for w in rolled if w is not None]
    log.add(prefix + "wounds", len(wounds))
    log.add(prefix + "mortelle_wounds", sum(w.mortelle for w in wounds))
    groups: dict[str, list[LossPlan]] = {}
    order: dict[str, tuple[Fraction, str]] = {}
    for w in wounds:
        lp = plan.losses[w]
        key = str(lp.save)
        groups.setdefault(key, []).append(lp)
        order[key] = save_order_key(lp.save)
    for key in sorted(groups, key=lambda k: order[k]):
        batch = groups[key]
        before = sum(remaining)
        start = len(roller.records)
        failed = allocate_live(roller, remaining, batch, together=struck.wounds == 1)
        log.steps.append(
            ResolutionStep(
                prefix + "saves",
                f"{len(batch)} wounds allocated (save {key}): {failed} failed saves, "
                f"{before - sum(remaining)} W lost",
                tuple(range(start, len(roller.records))),
            )
        )
        log.add(prefix + "failed_saves", failed)


def _unit_state(unit: Unit, remaining: list[int], group: str) -> TargetState:
    models = tuple(ModelState(group, unit.wounds, w) for w in remaining)
    lost = unit.models * unit.wounds - sum(remaining)
    return TargetState(models, lost, sum(1 for w in remaining if w <= 0))


def _remove_casualties(remaining: list[int], count: int) -> None:
    """Remove ``count`` more models (sweeping advance), fewest W left first."""
    alive = sorted((i for i, w in enumerate(remaining) if w > 0), key=lambda i: (remaining[i], i))
    for i in alive[:count]:
        remaining[i] = 0


def _alive(remaining: list[int]) -> int:
    return sum(1 for w in remaining if w > 0)


def _resolve_melee(
    log: _Log, request: AttackRequest, plan: AttackPlan
) -> tuple[dict[str, ExtraValue], TargetState]:
    a, t, s = request.attacker, request.target, request.situation
    assert isinstance(t, Unit)
    roller = log.roller
    attackers = [a.wounds] * a.models
    defenders = [t.wounds] * t.models
    att_i, def_i = melee_initiatives(request)
    can_counter = counter_request(request, t.models) is not None and t.attacks > 0
    bonus = False
    counter_attack = t.has(Rule.COUNTER_ATTACK) and not s.target_already_locked
    # with defender_charged it already has the charge bonus: Contre-attaque adds nothing (B26)
    if can_counter and s.charged and counter_attack and not s.defender_charged:
        bonus = log.run(
            "counter-attack",
            lambda: rolls.ld_test_procedure(roller, t.leadership, 0, "counter-attack Ld"),
            lambda ok: "counter-attack Ld test " + ("passed: +1 A" if ok else "failed"),
        )

    def counter_plan(models: int) -> AttackPlan | None:
        counter = counter_request(request, models)
        if counter is None:
            return None
        if bonus:
            counter = replace(counter, attacker=replace(counter.attacker, attacks=t.attacks + 1))
        return plan_attack(counter)

    def attacker_strikes(models: int) -> None:
        if models:
            _strike(
                log, plan_attack(replace(request, attacker=replace(a, models=models))), defenders
            )

    def defender_strikes(models: int) -> None:
        cp = counter_plan(models) if can_counter and models else None
        if cp is not None:
            _strike(log, cp, attackers, prefix="counter_")

    # Initiative order; equal I strike simultaneously [L1237-L1240]
    if not can_counter:
        attacker_strikes(a.models)
    elif att_i > def_i:
        attacker_strikes(a.models)
        defender_strikes(_alive(defenders))
    elif att_i < def_i:
        defender_strikes(t.models)
        attacker_strikes(_alive(attackers))
    else:
        attacker_strikes(a.models)
        defender_strikes(t.models)
    c_t = t.models - _alive(defenders)
    c_a = a.models - _alive(attackers)
    # the attack itself (what the exact analysis's damage / models_destroyed describe)
    log.totals["wounds_lost"] = t.models * t.wounds - sum(defenders)
    log.totals["models_destroyed"] = c_t
    log.totals["attacker_models_destroyed"] = c_a
    log.totals["attacker_wounds_lost"] = a.models * a.wounds - sum(attackers)
    log.totals["sweep_casualties"] = 0
    section: dict[str, ExtraValue] = {
        "attacker_initiative": att_i,
        "defender_initiative": def_i,
        "defender_casualties": c_t,
        "attacker_casualties": c_a,
    }
    diff = c_t - c_a
    if diff == 0:
        section["winner"] = "draw"
    else:
        winner, loser = (a, t) if diff > 0 else (t, a)
        loser_squad = defenders if diff > 0 else attackers
        section["winner"] = "attacker" if diff > 0 else "defender"
        gap = abs(diff)
        survivors = _alive(loser_squad)
        if survivors:
            malus = 0 if loser.has(Rule.STUBBORN) else gap
            if loser.has(Rule.FEARLESS):
                passed = True
                log.steps.append(ResolutionStep("morale", "fearless: morale passed"))
            else:
                passed = log.run(
                    "morale",
                    lambda: rolls.ld_test_procedure(roller, loser.leadership, malus, "morale"),
                    lambda ok: f"morale test at -{malus}: " + ("passed" if ok else "failed"),
                )
            section["morale_passed"] = passed
            if (
                not passed
                and not winner.has(Rule.SLOW_AND_PURPOSEFUL)
                and not loser.has(Rule.ATSKNF)
            ):
                caught = log.run(
                    "sweep",
                    lambda: rolls.roll_off_procedure(
                        roller, winner.initiative or 1, loser.initiative or 1, "sweep"
                    ),
                    lambda ok: "sweeping advance: " + ("caught" if ok else "escaped"),
                )
                section["swept"] = caught
                if caught:
                    extra = min(gap, survivors)
                    _remove_casualties(loser_squad, extra)
                    section["sweep_casualties"] = extra
                    log.totals["sweep_casualties"] = extra
    attacker_after = _unit_state(a, attackers, "attacker")
    section["attacker_models_remaining"] = attacker_after.models_remaining
    # target_after: the squad as it stands after the round, sweeping advance included
    return section, _unit_state(t, defenders, "target")


def _resolve_vehicle(
    log: _Log,
    request: AttackRequest,
    plan: AttackPlan,
    given_hits: int | None = None,
    given_damage: tuple[Penetration, ...] | None = None,
) -> tuple[TargetState, VehicleState]:
    vehicle = request.target
    assert isinstance(vehicle, Vehicle)
    assert plan.penetration is not None
    assert plan.damage is not None
    roller = log.roller
    damage: list[Penetration] = list(given_damage or ())
    if given_damage is None:
        hit = plan.hit
        if given_hits is not None:
            hits = given_hits
        else:
            attacks = hit.attacks
            if hit.area_models:
                attacks += sum(area_procedure(roller, hit.area_cap) for _ in range(hit.area_models))
            log.add("attacks", attacks)
            hits = log.run(
                "hits",
                lambda: sum(hit_procedure(roller, hit) for _ in range(attacks)),
                lambda n: f"{attacks} attacks at {hit.code} (skill {hit.skill}): {n} hits",
            )
        log.add("hits", hits)
        if plan.cover is not None and given_hits is None:
            cover = plan.cover
            hits -= log.run(
                "cover",
                lambda: sum(cover_procedure(roller, cover) for _ in range(hits)),
                lambda n: f"cover saves {cover}+: {n} hits cancelled",
            )
            log.add("hits_after_cover", hits)
        pen_plan = plan.penetration
        kinds = log.run(
            "penetration",
            lambda: [penetration_procedure(roller, pen_plan) for _ in range(hits)],
            lambda ks: (
                f"{hits} penetration rolls vs armour {pen_plan.armour}: "
                f"{sum(k is Penetration.GLANCING for k in ks)} glancing, "
                f"{sum(k is Penetration.PENETRATING for k in ks)} penetrating"
            ),
        )
        damage = [k for k in kinds if k is not Penetration.NONE]
        if plan.vehicle_save is not None and damage:
            save = plan.vehicle_save
            kept = log.run(
                "saves",
                lambda: [
                    k
                    for k in damage
                    if not roll_code(roller, save, "save", words=("saved", "failed")).success
                ],
                lambda ks: f"invulnerable saves {save}: {len(damage) - len(ks)} damage cancelled",
            )
            damage = kept
    log.add("glancing_hits", sum(k is Penetration.GLANCING for k in damage))
    log.add("penetrating_hits", sum(k is Penetration.PENETRATING for k in damage))
    state = vehicle_initial_state(vehicle)
    start = state
    ctx = plan.damage
    for kind in damage:
        state = log.run(
            "damage",
            lambda kind=kind, state=state: damage_procedure(roller, state, ctx, kind),  # type: ignore[misc]
            lambda st, kind=kind: (
                f"{kind.name.lower()} damage: "  # type: ignore[misc]
                + (", ".join(r for r, c in _new_results(start, st)) or "no effect")
            ),
        )
    log.totals["hull_points_lost"] = state.hull_points_lost - start.hull_points_lost
    log.totals["models_destroyed"] = int(state.destroyed)
    log.totals["wounds_lost"] = log.totals["hull_points_lost"]
    hp = vehicle.hull_points
    if hp is None:
        model = ModelState("vehicle", 1, 0 if state.destroyed else 1)
    else:
        model = ModelState("vehicle", hp, 0 if state.destroyed else hp - state.hull_points_lost)
    return TargetState((model,), log.totals["hull_points_lost"], int(state.destroyed)), state


def _new_results(start: VehicleState, state: VehicleState) -> list[tuple[str, int]]:
    return [
        (r.value, state.count(r) - start.count(r))
        for r in DamageResult
        if state.count(r) > start.count(r)
    ]


def resolve(
    request: AttackRequest,
    roller: Roller,
    *,
    hits: int | None = None,
    damage: tuple[Penetration, ...] | None = None,
) -> CombatResolution:
    """Roll one PEN attack live; every die is in the result with its label. ``hits``: a
    ranged attack whose hits are already known (a ram [L1020-L1022], a transport's wreck):
    no to-hit roll and no cover save. ``damage``: against a vehicle, damage already scored
    (a dangerous terrain test [L728-L729]): straight to the damage rolls."""
    plan = plan_attack(request)
    if hits is not None and request.melee:
        raise ValueError("given hits are for ranged attacks")
    log = _Log(roller)
    extra: dict[str, ExtraValue] = {"notes": list(plan.notes)}
    t = request.target
    if isinstance(t, Vehicle):
        target_after, st = _resolve_vehicle(log, request, plan, hits, damage)
        extra["vehicle"] = {
            "destroyed": st.destroyed,
            "exploded": st.exploded,
            "hull_points_lost": log.totals["hull_points_lost"],
            "results": dict(_new_results(vehicle_initial_state(t), st)),
            "shaken": st.shaken,
            "weapons_damaged": st.weapons_damaged,
            "weapons_left": st.weapons_left,
            "driver_stunned": st.stunned,
            "reduced_mobility": st.reduced_mobility,
            "immobilised": st.immobilised,
            "out_of_control": st.out_of_control,
        }
    elif request.melee:
        section, target_after = _resolve_melee(log, request, plan)
        extra["combat_result"] = section
    else:
        remaining = [t.wounds] * t.models
        _strike(log, plan, remaining, given_hits=hits)
        target_after = _unit_state(t, remaining, "target")
        log.totals["wounds_lost"] = target_after.wounds_lost
        log.totals["models_destroyed"] = target_after.models_destroyed
    return CombatResolution(
        seed=roller.seed,
        dice=roller.records,
        totals=dict(log.totals),
        target_after=target_after,
        steps=tuple(log.steps),
        extra=extra,
    )
