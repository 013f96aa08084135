"""The dice pipelines of *Heroes of Black Reach*, one pure function per rule step.

Both the exact analysis (:mod:`.odds`) and the live resolution (:mod:`.live`) go through these
functions, so the two can never disagree on a rule. Line numbers are the seed's
(``shared/seeds/002_65108e9bfa55dd01.txt``); the readings where the rules are silent are in
docs/rulings/black-reach.md.

Shooting Action (§3.7, the summary's order [L3159-L3178]):

1. modified CV = CV against the target's class − Tir en Mouvement penalty (off the CV,
   [L1435-L1436]) + bonuses; ×2 for a suppression fire, CV and every bonus alike
   [L1352-L1355];
2. result = best die (1 die, or 2 keep the best [L1170-L1172]) + modified CV;
3. final = result − 2 per Suppressed marker [L3181-L3185] − 2 at long range [L533-L536] − the
   other final-result penalties (never doubled);
4. against the target's DV plus its defence bonuses: a shot is a miss below it, 1 step at or
   above it [L588-L590], a Coup Double at or above twice it [L625-L628]; a suppression fire puts
   ⌊final / DV⌋ Suppressed markers, no maximum [L1357-L1367].

Assault (§3.12, [L1573-L1617]): the attacker rolls 2 dice and keeps the best, adding its CV
against the defender's class, its Assault bonus, +1 per supporting unit [L1564-L1565] and its
other bonuses; the defender rolls 1 die (2 keep the best with Assaut) and adds its CV against
the attacker's class, the defence bonus of the terrain it stands in, its Assault bonus and other
bonuses; each side takes off 2 per Suppressed marker and its other penalties. The higher total
wins; equal totals are a tie [L1590], [L1687-L1700].
"""

from __future__ import annotations

from enum import StrEnum

from app.engine.black_reach.requests import Attacker, Kind, OddsRequest, Situation, Target

__all__ = [
    "LONG_RANGE_PENALTY",
    "SUPPRESSED_PENALTY",
    "AssaultOutcome",
    "ShotOutcome",
    "assault_dice",
    "assault_modifiers",
    "assault_outcome",
    "damage_location",
    "final_penalty",
    "modified_cv",
    "shot_dice",
    "shot_final",
    "shot_outcome",
    "suppression_markers",
    "target_dv",
]

SUPPRESSED_PENALTY = 2  # per marker, on the final result of every roll of the unit [L3181]
LONG_RANGE_PENALTY = 2  # beyond 7 squares [L533-L536]
ATTACKER_ASSAULT_DICE = 2  # keep the best [L1574]


class ShotOutcome(StrEnum):
    MISS = "miss"
    STEP = "step"
    COUP_DOUBLE = "coup_double"


class AssaultOutcome(StrEnum):
    ATTACKER_WINS = "attacker_wins"
    TIE = "tie"
    DEFENDER_WINS = "defender_wins"


# -- shooting ---------------------------------------------------------------------------------


def damage_location(die: int, modifier: int = 0) -> int:
    """A heavy vehicle's location result: die + modifiers (Perforant +1, Mekaniak, Grot
    Oiler), clamped to 1..6 (note §8 item 26) [L658-L699]."""
    return min(6, max(1, die + modifier))


def modified_cv(attacker: Attacker, kind: Kind) -> int:
    """Steps 1-4 of the modified CV: CV − moving penalty + bonuses, doubled for a suppression
    fire (the moving penalty comes off the CV before the doubling, so it doubles too)."""
    value = attacker.cv - attacker.moving_penalty + attacker.bonuses
    return 2 * value if kind is Kind.SUPPRESSION_FIRE else value


def final_penalty(attacker: Attacker, situation: Situation) -> int:
    """What comes off the final result of a shot (never doubled)."""
    return (
        SUPPRESSED_PENALTY * attacker.suppressed
        + (LONG_RANGE_PENALTY if situation.long_range else 0)
        + attacker.penalties
    )


def shot_dice(attacker: Attacker) -> int:
    """Dice rolled for a shot; the best one counts."""
    return attacker.dice


def shot_final(best_die: int, request: OddsRequest) -> int:
    """The final result of a shot or suppression fire whose best die is ``best_die``."""
    return (
        best_die
        + modified_cv(request.attacker, request.kind)
        - final_penalty(request.attacker, request.situation)
    )


def target_dv(target: Target) -> int:
    """The DV a shot must reach: the face's DV plus its defence bonuses."""
    if target.dv is None:
        raise ValueError("a shot needs the target's DV")
    return target.dv + target.defence_bonus


def shot_outcome(final: int, dv: int) -> ShotOutcome:
    """A normal shot: ≥ 2×DV Coup Double, ≥ DV one step, else a miss."""
    if final >= 2 * dv:
        return ShotOutcome.COUP_DOUBLE
    if final >= dv:
        return ShotOutcome.STEP
    return ShotOutcome.MISS


def suppression_markers(final: int, dv: int) -> int:
    """A suppression fire: k Suppressed markers when final ≥ k×DV (k as large as possible)."""
    if dv < 1:
        raise ValueError("a DV is at least 1")
    return final // dv if final >= dv else 0


# -- assault ----------------------------------------------------------------------------------


def assault_dice(request: OddsRequest) -> tuple[int, int]:
    """(attacker's dice, defender's dice); each side keeps its best die."""
    return ATTACKER_ASSAULT_DICE, (2 if request.target.has_assault else 1)


def assault_modifiers(request: OddsRequest) -> tuple[int, int]:
    """(attacker's, defender's) modifier added to the best die."""
    a, t = request.attacker, request.target
    if t.cv is None:
        raise ValueError("an assault needs the defender's CV")
    attacker = (
        a.cv + a.assault_bonus + a.support + a.bonuses - SUPPRESSED_PENALTY * a.suppressed
    ) - a.penalties
    defender = (
        t.cv
        + t.defence_bonus
        + t.assault_bonus
        + t.bonuses
        - SUPPRESSED_PENALTY * t.suppressed
        - t.penalties
    )
    return attacker, defender


def assault_outcome(attacker_total: int, defender_total: int) -> AssaultOutcome:
    if attacker_total > defender_total:
        return AssaultOutcome.ATTACKER_WINS
    if attacker_total < defender_total:
        return AssaultOutcome.DEFENDER_WINS
    return AssaultOutcome.TIE
