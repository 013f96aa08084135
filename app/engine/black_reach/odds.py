"""Exact odds of one shot, suppression fire or assault (issue "Exact odds", §9.1 of the note).

Every die is a D6 (note §8 item 1); keeping the best of ``n`` dice has the exact distribution
P(best = k) = (k^n − (k−1)^n) / 6^n. Results go through the same step functions as the live
roll (:mod:`.pipeline`), applied to each face of the best die (a shot) or to each pair of best
dice (an assault), so the odds are exact fractions.

:func:`outcome_odds` gives the named outcomes in their fixed order:

- shot: ``miss``, ``step``, ``coup_double`` (all three, even at probability 0);
- suppression fire: ``suppressed_0`` … ``suppressed_k`` up to the most markers the best die can
  give (every count in between listed, even at probability 0, so the list index is the count);
- assault: ``attacker_wins``, ``tie``, ``defender_wins``.

A shot at a heavy vehicle whose request carries its Damage set adds ``damage_markers``: the
exact odds of each marker the step's location roll places (P(step) x P(the marker), Perforant
+1 on the roll, clamped to 1..6) and ``coup_double`` (the wreck, no roll), before any armour
save or Hit Point marker [L658-L699] (rulings 80).

:func:`analyze` wraps them in the engine's :class:`CombatAnalysis` (the steps the target takes
as ``damage``, the totals as ``stages``) for the shared combat API.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache

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
from app.engine.combat import CombatAnalysis, ExtraValue
from app.engine.distributions import Dist

__all__ = [
    "STEPS",
    "analyze",
    "best_of",
    "damage_marker_odds",
    "outcome_odds",
    "shot_result",
    "suppression_label",
]

SIDES = 6

# steps the target takes per outcome of a normal shot: a Coup Double is a double step (the
# target is destroyed at once; a unit with Hit Point markers discards two [L2250-L2252])
STEPS: Mapping[ShotOutcome, int] = {
    ShotOutcome.MISS: 0,
    ShotOutcome.STEP: 1,
    ShotOutcome.COUP_DOUBLE: 2,
}


@cache
def best_of(dice: int) -> Dist:
    """The best of ``dice`` D6 (1 die: a plain D6)."""
    if dice < 1:
        raise ValueError("at least one die")
    return Dist.from_weights({k: k**dice - (k - 1) ** dice for k in range(1, SIDES + 1)})


def suppression_label(markers: int) -> str:
    return f"suppressed_{markers}"


def shot_result(request: OddsRequest) -> Dist:
    """The final result of a shot or suppression fire."""
    return best_of(shot_dice(request.attacker)).map(lambda die: shot_final(die, request))


def _shot_odds(request: OddsRequest) -> dict[str, Fraction]:
    dv = target_dv(request.target)
    odds = {o.value: Fraction(0) for o in ShotOutcome}
    for final, p in shot_result(request).items():
        odds[shot_outcome(final, dv).value] += p
    return odds


def _suppression_odds(request: OddsRequest) -> dict[str, Fraction]:
    dv = target_dv(request.target)
    markers = shot_result(request).map(lambda final: suppression_markers(final, dv))
    return {suppression_label(k): markers.prob(k) for k in range(markers.max + 1)}


def _assault_totals(request: OddsRequest) -> tuple[Dist, Dist]:
    attacker_dice, defender_dice = assault_dice(request)
    attacker_mod, defender_mod = assault_modifiers(request)
    return best_of(attacker_dice) + attacker_mod, best_of(defender_dice) + defender_mod


def _assault_odds(request: OddsRequest) -> dict[str, Fraction]:
    attacker, defender = _assault_totals(request)
    odds = {o.value: Fraction(0) for o in AssaultOutcome}
    for a, pa in attacker.items():
        for d, pd in defender.items():
            odds[assault_outcome(a, d).value] += pa * pd
    return odds


def damage_marker_odds(request: OddsRequest) -> dict[str, Fraction] | None:
    """A shot at a heavy vehicle with its Damage set: each marker's exact odds (a step, then
    the location roll) and the Coup Double's; ``None`` without a set."""
    faces = request.target.damage_set
    if faces is None or request.kind is not Kind.SHOT:
        return None
    odds = _shot_odds(request)
    modifier = 1 if request.attacker.piercing else 0
    markers: dict[str, Fraction] = {}
    for die in range(1, SIDES + 1):  # the location die is never Suppressed, never doubled
        label = faces[damage_location(die, modifier) - 1]
        markers[label] = markers.get(label, Fraction(0)) + odds[ShotOutcome.STEP.value] / SIDES
    markers[ShotOutcome.COUP_DOUBLE.value] = odds[ShotOutcome.COUP_DOUBLE.value]
    return markers


def outcome_odds(request: OddsRequest) -> dict[str, Fraction]:
    """The named outcomes of ``request`` with their exact probabilities, in order."""
    if request.kind is Kind.SHOT:
        return _shot_odds(request)
    if request.kind is Kind.SUPPRESSION_FIRE:
        return _suppression_odds(request)
    return _assault_odds(request)


def analyze(request: OddsRequest) -> CombatAnalysis:
    """The exact analysis of ``request`` for the combat API."""
    outcomes = outcome_odds(request)
    nothing = Dist.constant(0)
    if request.kind is Kind.ASSAULT:
        attacker, defender = _assault_totals(request)
        attacker_dice, defender_dice = assault_dice(request)
        attacker_mod, defender_mod = assault_modifiers(request)
        wins = outcomes[AssaultOutcome.ATTACKER_WINS.value]
        losses = outcomes[AssaultOutcome.DEFENDER_WINS.value]
        extra: dict[str, ExtraValue] = {
            "attacker_dice": attacker_dice,
            "defender_dice": defender_dice,
            "attacker_modifier": attacker_mod,
            "defender_modifier": defender_mod,
            "attacker_steps": Dist.bernoulli(losses),
        }
        return CombatAnalysis(
            damage=Dist.bernoulli(wins),  # the defender's step when the attacker wins
            models_destroyed=nothing,
            wipe_probability=Fraction(0),
            stages={
                "attacker_die": best_of(attacker_dice),
                "defender_die": best_of(defender_dice),
                "attacker_total": attacker,
                "defender_total": defender,
            },
            extra=extra,
            outcomes=outcomes,
        )
    result = shot_result(request)
    stages = {"die": best_of(shot_dice(request.attacker)), "result": result}
    extra = {
        "dice": shot_dice(request.attacker),
        "modified_cv": modified_cv(request.attacker, request.kind),
        "final_penalty": final_penalty(request.attacker, request.situation),
        "target_dv": target_dv(request.target),
    }
    if request.kind is Kind.SUPPRESSION_FIRE:
        dv = target_dv(request.target)
        stages["suppressed"] = result.map(lambda final: suppression_markers(final, dv))
        return CombatAnalysis(
            damage=nothing,  # a suppression fire never takes a step [L1357-L1360]
            models_destroyed=nothing,
            wipe_probability=Fraction(0),
            stages=stages,
            extra=extra,
            outcomes=outcomes,
        )
    coup_double = outcomes[ShotOutcome.COUP_DOUBLE.value]
    markers = damage_marker_odds(request)
    if markers is not None:
        extra["damage_markers"] = dict(markers)
    return CombatAnalysis(
        damage=Dist.from_probs({STEPS[ShotOutcome(o)]: p for o, p in outcomes.items() if p}),
        models_destroyed=Dist.bernoulli(coup_double),
        wipe_probability=coup_double,
        stages=stages,
        extra=extra,
        outcomes=outcomes,
    )
