"""To-wound, cover, armour / invulnerable save and Feel No Pain steps (note §5.4-§5.7).

Each step is a dice procedure (see :mod:`app.engine.pen.procedures`) over a small frozen plan,
so the exact analysis enumerates exactly what the live resolution rolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from app.engine.pen.codes import RollCode
from app.engine.pen.procedures import Dice, enumerate_outcomes, roll_code

__all__ = [
    "LossPlan",
    "Wound",
    "WoundPlan",
    "better_ap",
    "cover_procedure",
    "loss_outcomes",
    "loss_procedure",
    "loss_steps",
    "save_order_key",
    "wound_outcomes",
    "wound_procedure",
]


def better_ap(ap: int | None, other: int | None) -> int | None:
    """The more penetrating of two AP values (lower is better; None is "PA -")."""
    if ap is None:
        return other
    if other is None:
        return ap
    return min(ap, other)


@dataclass(frozen=True, slots=True)
class WoundPlan:
    """How one hit rolls to wound.

    ``code``: the S-T cell [L1376-L1390], after Anti-endurance / Empoisonnée (X) [L630],
    [L665] or Lame sorcière 2+ [L601]; ``reroll_failed``: Blessant [L649] or Anti-endurance
    when S already gave a better roll [L630]; ``reroll_ones``: Ennemi juré [L400];
    ``ignite``: a 6 to wound inflicts a *mortelle* wound [L660]; ``rend``: a 6 wounds
    automatically at PA2 [L683]; ``mortelle``: every wound is *mortelle* (S >= 2T [L1391],
    Mortelle [L677], template vs Vulnérable aux gabarits [L478]).
    """

    code: RollCode
    ap: int | None
    reroll_failed: bool = False
    reroll_ones: bool = False
    ignite: bool = False
    rend: bool = False
    mortelle: bool = False


@dataclass(frozen=True, slots=True, order=True)
class Wound:
    """One wound that got through: its AP and whether it is *mortelle*."""

    ap: int | None
    mortelle: bool

    def __str__(self) -> str:
        ap = "-" if self.ap is None else str(self.ap)
        return f"wound AP{ap}" + (" mortelle" if self.mortelle else "")


def wound_procedure(dice: Dice, plan: WoundPlan) -> Wound | None:
    """Roll to wound for one hit; None if it does not wound.

    A to-wound face of 6 wins outright for Perforant and Embrasement, even on a "6/4+" cell
    (Perforant: "wounds automatically ... regardless of T" [L683]; Embrasement: the 6
    "inflicts" a *mortelle* wound [L660]; pen rulings).
    """

    def six_decides(face: int) -> bool | None:
        if face == 6 and (plan.rend or plan.ignite):
            return True
        return None

    rolled = roll_code(
        dice,
        plan.code,
        "to wound",
        reroll_failed=plan.reroll_failed,
        reroll_ones=plan.reroll_ones,
        first_hook=six_decides,
        words=("wound", "no wound"),
    )
    if not rolled.success:
        return None
    six = rolled.natural == 6
    ap = better_ap(plan.ap, 2) if six and plan.rend else plan.ap
    return Wound(ap, plan.mortelle or (six and plan.ignite))


@cache
def wound_outcomes(plan: WoundPlan) -> dict[Wound | None, Fraction]:
    """Exact distribution of :func:`wound_procedure`."""
    return enumerate_outcomes(lambda dice: wound_procedure(dice, plan))


def cover_procedure(dice: Dice, cover: int) -> bool:
    """One cover save, rolled per hit before wounding: True if the hit is cancelled [L1365].

    Cover saves cannot be re-rolled [L1369]; a natural 1 always fails [L1288].
    """
    face = dice.roll(6, "cover save")
    saved = face >= cover and face != 1
    dice.annotate(outcome="saved" if saved else "failed")
    return saved


@dataclass(frozen=True, slots=True)
class LossPlan:
    """What one wound of a save group costs: save, Feel No Pain, wounds lost.

    ``save``: the save rolled (armour after AP or invulnerable, the better one [L1409]; None:
    no save); ``fnp``: Insensible à la douleur target by S vs T [L426] (None: none, or the
    wound is *mortelle* [L428]); ``loss``: 1, 2 for *mortelle*, 4 against Vulnérable aux
    gabarits [L677], [L1411].
    """

    save: RollCode | None
    fnp: int | None
    loss: int


def loss_steps(dice: Dice, plan: LossPlan) -> tuple[bool, int]:
    """(save failed, wounds taken off) for one allocated wound (0 if saved or ignored)."""
    if plan.save is not None:
        saved = roll_code(dice, plan.save, "save", words=("saved", "failed"))
        if saved.success:
            return False, 0
    if plan.fnp is not None:
        face = dice.roll(6, "feel no pain")
        ignored = face >= plan.fnp
        dice.annotate(outcome="ignored" if ignored else "suffered")
        if ignored:
            return True, 0
    return True, plan.loss


def loss_procedure(dice: Dice, plan: LossPlan) -> int:
    """Wounds one allocated wound takes off its model (0 if saved or ignored)."""
    return loss_steps(dice, plan)[1]


def save_order_key(save: RollCode | None) -> tuple[Fraction, str]:
    """Sort key of the save groups: the better-saved group is allocated first (pen rulings)."""
    return (-(save.probability() if save is not None else Fraction(0)), str(save))


@cache
def loss_outcomes(plan: LossPlan) -> dict[int, Fraction]:
    """Exact distribution of :func:`loss_procedure`."""
    return enumerate_outcomes(lambda dice: loss_procedure(dice, plan))
