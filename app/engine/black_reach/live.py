"""One live shot, suppression fire or assault, rolled with the injected :class:`Roller`.

Every die is recorded with its label and stage; the die that counts gets the modifier the rules
added to it and the outcome; a die not kept is marked ``"not kept"``. The same step functions as
the exact odds (:mod:`.pipeline`) decide the result.

``target_after`` shows the target on a two-step scale: a step takes one, a Coup Double two (it
is destroyed at once). Whether one step destroys a counter depends on its printed step-loss
symbol, which the request does not carry; ``extra.outcome`` names the result. A shot's step on
a heavy vehicle whose Damage set the request carries rolls its location die too (``extra.marker``).
"""

from __future__ import annotations

from app.engine.black_reach.odds import STEPS, suppression_label
from app.engine.black_reach.pipeline import (
    AssaultOutcome,
    ShotOutcome,
    assault_dice,
    assault_modifiers,
    assault_outcome,
    damage_location,
    final_penalty,
    modified_cv,
    shot_dice,
    shot_final,
    shot_outcome,
    suppression_markers,
    target_dv,
)
from app.engine.black_reach.requests import Kind, OddsRequest
from app.engine.combat import CombatResolution, ModelState, ResolutionStep, TargetState
from app.engine.roller import Roller

__all__ = ["TARGET_STEPS", "resolve"]

TARGET_STEPS = 2  # the scale of target_after: a Coup Double takes both


def _keep_best(roller: Roller, count: int, label: str, stage: str) -> tuple[int, int]:
    """Roll ``count`` D6; (index of the best die, its value). The first best die is kept."""
    first = len(roller.records)
    values = roller.roll_many(count, 6, label, stage=stage)
    best = max(values)
    kept = first + values.index(best)
    for i in range(first, first + count):
        if i != kept:
            roller.annotate(i, outcome="not kept")
    return kept, best


def _target(steps: int) -> TargetState:
    lost = min(steps, TARGET_STEPS)
    return TargetState(
        models=(ModelState("target", TARGET_STEPS, TARGET_STEPS - lost),),
        wounds_lost=lost,
        models_destroyed=1 if lost >= TARGET_STEPS else 0,
    )


def _shot(request: OddsRequest, roller: Roller) -> CombatResolution:
    suppression = request.kind is Kind.SUPPRESSION_FIRE
    stage = "suppression_fire" if suppression else "shot"
    dice = shot_dice(request.attacker)
    kept, best = _keep_best(roller, dice, "shot die", stage)
    final = shot_final(best, request)
    dv = target_dv(request.target)
    cv = modified_cv(request.attacker, request.kind)
    penalty = final_penalty(request.attacker, request.situation)
    totals = {
        "best_die": best,
        "modified_cv": cv,
        "final_penalty": penalty,
        "result": final,
        "target_dv": dv,
    }
    steps = [
        ResolutionStep(
            stage,
            f"best of {dice} {'die' if dice == 1 else 'dice'}: {best}; "
            f"{best} + modified CV {cv} - penalties {penalty} = {final} against DV {dv}",
            tuple(range(len(roller.records) - dice, len(roller.records))),
        )
    ]
    if suppression:
        markers = suppression_markers(final, dv)
        outcome = suppression_label(markers)
        roller.annotate(kept, modifier=final - best, outcome=f"{markers} suppressed")
        totals["suppressed"] = markers
        steps.append(ResolutionStep("suppressed", f"{markers} Suppressed marker(s) on the target"))
        return CombatResolution(
            seed=roller.seed,
            dice=roller.records,
            totals=totals,
            target_after=_target(0),
            steps=tuple(steps),
            extra={"outcome": outcome, "suppressed": markers},
        )
    result = shot_outcome(final, dv)
    roller.annotate(kept, modifier=final - best, outcome=result.value.replace("_", " "))
    totals["steps"] = STEPS[result]
    steps.append(ResolutionStep("outcome", _SHOT_TEXT[result]))
    extra: dict[str, str] = {"outcome": result.value}
    faces = request.target.damage_set
    if faces is not None and result is ShotOutcome.STEP:
        # a heavy vehicle's step: its location roll on the Damage set [L658-L699]
        modifier = 1 if request.attacker.piercing else 0
        at = len(roller.records)
        die = roller.d6("location die", stage="location")
        location = damage_location(die, modifier)
        marker = faces[location - 1]
        roller.annotate(at, modifier=location - die, outcome=marker.replace("_", " "))
        totals["location"] = location
        extra["marker"] = marker
        steps.append(
            ResolutionStep(
                "location",
                f"location die {die} + {modifier} = {location}: the {marker} marker",
                (at,),
            )
        )
    return CombatResolution(
        seed=roller.seed,
        dice=roller.records,
        totals=totals,
        target_after=_target(STEPS[result]),
        steps=tuple(steps),
        extra=extra,
    )


_SHOT_TEXT = {
    ShotOutcome.MISS: "miss: the target takes nothing",
    ShotOutcome.STEP: "the target takes 1 step",
    ShotOutcome.COUP_DOUBLE: "Coup Double: the target is destroyed at once",
}
_ASSAULT_TEXT = {
    AssaultOutcome.ATTACKER_WINS: "the attacker wins: the defender takes 1 step",
    AssaultOutcome.TIE: "tie: no step; the attacker goes back to its start square",
    AssaultOutcome.DEFENDER_WINS: "the defender wins: the attacker takes 1 step",
}


def _assault(request: OddsRequest, roller: Roller) -> CombatResolution:
    attacker_dice, defender_dice = assault_dice(request)
    attacker_mod, defender_mod = assault_modifiers(request)
    a_kept, a_best = _keep_best(roller, attacker_dice, "attacker die", "assault")
    d_kept, d_best = _keep_best(roller, defender_dice, "defender die", "assault")
    a_total, d_total = a_best + attacker_mod, d_best + defender_mod
    result = assault_outcome(a_total, d_total)
    word = {
        AssaultOutcome.ATTACKER_WINS: ("wins", "loses"),
        AssaultOutcome.TIE: ("tie", "tie"),
        AssaultOutcome.DEFENDER_WINS: ("loses", "wins"),
    }[result]
    roller.annotate(a_kept, modifier=attacker_mod, outcome=word[0])
    roller.annotate(d_kept, modifier=defender_mod, outcome=word[1])
    attacker_steps = 1 if result is AssaultOutcome.DEFENDER_WINS else 0
    defender_steps = 1 if result is AssaultOutcome.ATTACKER_WINS else 0
    n = len(roller.records)
    return CombatResolution(
        seed=roller.seed,
        dice=roller.records,
        totals={
            "attacker_die": a_best,
            "attacker_modifier": attacker_mod,
            "attacker_total": a_total,
            "defender_die": d_best,
            "defender_modifier": defender_mod,
            "defender_total": d_total,
            "attacker_steps": attacker_steps,
            "defender_steps": defender_steps,
        },
        target_after=_target(defender_steps),
        steps=(
            ResolutionStep(
                "assault",
                f"attacker {a_best} + {attacker_mod} = {a_total}; "
                f"defender {d_best} + {defender_mod} = {d_total}",
                tuple(range(n - attacker_dice - defender_dice, n)),
            ),
            ResolutionStep("outcome", _ASSAULT_TEXT[result]),
        ),
        extra={"outcome": result.value},
    )


def resolve(request: OddsRequest, roller: Roller) -> CombatResolution:
    """Roll ``request`` once with ``roller``."""
    if request.kind is Kind.ASSAULT:
        return _assault(request, roller)
    return _shot(request, roller)
