"""The per-step rules of the 10th-edition attack sequence, shared by the exact and live paths.

Every decision about a die lives here, as a small pure function of the die's face and the
profiles: the exact analysis (:mod:`.exact`) enumerates the faces through these functions and
the live resolution (:mod:`.live`) feeds them the rolled faces, so the two can never disagree
about a rule. Citations: wh40k-10e-core-1.md §4.4 and §2.4, RULINGS.md (numbered).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from app.engine.dice import DiceExpr
from app.engine.distributions import Dist
from app.engine.wh40k10e.abilities import AbilityKind
from app.engine.wh40k10e.profiles import (
    RerollPolicy,
    Situation,
    Target,
    Weapon,
    WeaponKind,
)

__all__ = [
    "FACES",
    "Outcome",
    "RollRule",
    "SaveChoice",
    "WeaponRules",
    "attack_bonus",
    "choose_save",
    "clamp_modifier",
    "cover_applies",
    "critical_wound_threshold",
    "damage_after_modifiers",
    "fnp_negates",
    "hit_modifier",
    "hit_rule",
    "outcome_weights",
    "save_fail_weights",
    "save_succeeds",
    "should_reroll",
    "should_reroll_save",
    "weapon_rules",
    "wound_modifier",
    "wound_rule",
    "wound_threshold",
]

FACES = (1, 2, 3, 4, 5, 6)


class Outcome(IntEnum):
    """Result of a hit or wound roll."""

    FAIL = 0
    SUCCESS = 1
    CRITICAL = 2


def wound_threshold(strength: int, toughness: int) -> int:
    """RULINGS 1 (table digits lost at [L1629–L1656]): double first, then half."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def clamp_modifier(total: int) -> int:
    """RULINGS 3: hit and wound modifiers are summed, then the net is clamped to [-1, +1]
    [L1609–L1610, L1691–L1692]."""
    return max(-1, min(1, total))


@dataclass(frozen=True, slots=True)
class RollRule:
    """How one D6 test (hit or wound roll) is judged.

    ``threshold`` is the number needed (BS/WS, or the wound table); ``modifier`` the clamped
    net modifier; ``critical_on`` the unmodified value from which the roll is critical (6, or
    X for Anti-KEYWORD X+); ``only_criticals`` makes only a critical succeed (Fire Overwatch:
    an unmodified 6 is needed [L3439–L3443]).
    """

    threshold: int
    modifier: int
    critical_on: int = 6
    only_criticals: bool = False
    reroll: RerollPolicy = RerollPolicy.NONE

    def judge(self, unmodified: int) -> Outcome:
        """RULINGS 3: an unmodified 6 (or Anti X+) is critical and succeeds; an unmodified 1
        fails; otherwise roll + modifier >= threshold."""
        if unmodified >= self.critical_on:
            return Outcome.CRITICAL
        if unmodified == 1 or self.only_criticals:
            return Outcome.FAIL
        return Outcome.SUCCESS if unmodified + self.modifier >= self.threshold else Outcome.FAIL


def should_reroll(policy: RerollPolicy, outcome: Outcome, unmodified: int) -> bool:
    """Whether the first roll is re-rolled under ``policy`` (re-rolls come before modifiers,
    at most once per die [L666–L677])."""
    if policy is RerollPolicy.NONE:
        return False
    if policy is RerollPolicy.ONES:
        return unmodified == 1
    if policy is RerollPolicy.FAILED:
        return outcome is Outcome.FAIL
    return outcome is not Outcome.CRITICAL


def outcome_weights(rule: RollRule) -> tuple[int, int, int, int]:
    """Exact (fail, success, critical, total) weights of one test, re-roll included, found by
    enumerating the faces through :meth:`RollRule.judge` and :func:`should_reroll`."""
    weights = [0, 0, 0]
    total = 36
    for first in FACES:
        outcome = rule.judge(first)
        if should_reroll(rule.reroll, outcome, first):
            for second in FACES:
                weights[rule.judge(second)] += 1
        else:
            weights[outcome] += 6
    return weights[0], weights[1], weights[2], total


def hit_modifier(weapon: Weapon, situation: Situation) -> int:
    """Net hit modifier: the situation's, Heavy +1 if Remained Stationary [L2227–L2233],
    Stealth / Smokescreen -1 to ranged attacks [L1594–L1596, L3496–L3498], Big Guns Never
    Tire -1 to non-Pistol ranged attacks [L1545–L1551], Indirect Fire with no visible target
    -1 [L2130–L2134]; clamped to [-1, +1] (RULINGS 3)."""
    total = situation.hit_modifier
    ranged = weapon.kind is WeaponKind.RANGED
    if weapon.has(AbilityKind.HEAVY) and situation.remained_stationary:
        total += 1
    if ranged and (situation.stealth or situation.smokescreen):
        total -= 1
    if ranged and situation.big_guns_never_tire and not weapon.has(AbilityKind.PISTOL):
        total -= 1
    if weapon.has(AbilityKind.INDIRECT_FIRE) and situation.target_not_visible:
        total -= 1
    return clamp_modifier(total)


def hit_rule(weapon: Weapon, situation: Situation) -> RollRule | None:
    """The hit test, or ``None`` for Torrent (auto-hit, no roll, so no critical: RULINGS 7)."""
    if weapon.has(AbilityKind.TORRENT):
        return None
    assert weapon.skill is not None
    overwatch = situation.overwatch and weapon.kind is WeaponKind.RANGED
    return RollRule(
        threshold=weapon.skill,
        modifier=hit_modifier(weapon, situation),
        only_criticals=overwatch,
        reroll=situation.reroll_hits,
    )


def wound_modifier(weapon: Weapon, situation: Situation) -> int:
    """The situation's modifier, Lance +1 if the bearer charged [L2107–L2110]; clamped."""
    total = situation.wound_modifier
    if weapon.has(AbilityKind.LANCE) and situation.charged:
        total += 1
    return clamp_modifier(total)


def critical_wound_threshold(weapon: Weapon, target: Target) -> int:
    """6, or the best X of an Anti-KEYWORD X+ whose keyword the target has (RULINGS 8)."""
    keywords = target.all_keywords
    best = 6
    for anti in weapon.antis():
        if anti.keyword in keywords and anti.threshold is not None:
            best = min(best, anti.threshold)
    return best


def wound_rule(weapon: Weapon, target: Target, situation: Situation) -> RollRule:
    """The wound test: S vs the target's (Bodyguard's) T (RULINGS 1, 14), Twin-linked re-roll
    [L2052–L2055] combined with the situation's re-roll (RULINGS 10)."""
    reroll = situation.reroll_wounds
    if weapon.has(AbilityKind.TWIN_LINKED):
        reroll = reroll.combine(situation.twin_linked_reroll)
    return RollRule(
        threshold=wound_threshold(weapon.strength, target.toughness),
        modifier=wound_modifier(weapon, situation),
        critical_on=critical_wound_threshold(weapon, target),
        reroll=reroll,
    )


def attack_bonus(weapon: Weapon, target: Target, situation: Situation) -> int:
    """Blast: +1 attack per full 5 models of the target at selection (RULINGS 13
    [L2179–L2185]). Rapid Fire is a separate (possibly random) bonus: see WeaponRules."""
    if weapon.has(AbilityKind.BLAST):
        return target.total_models // 5
    return 0


def cover_applies(weapon: Weapon, model_save: int, situation: Situation) -> bool:
    """Benefit of Cover (+1 to the armour save) against a ranged attack [L3694–L3712], from
    cover, Go to Ground [L3479–L3481], Smokescreen [L3496–L3498] or Indirect Fire at a target
    not visible [L2130–L2134]; removed by Ignores Cover [L2043–L2046]; not for a model with
    Sv 3+ or better against AP 0 [L3697–L3701] (RULINGS 4, 13)."""
    if weapon.kind is not WeaponKind.RANGED or weapon.has(AbilityKind.IGNORES_COVER):
        return False
    has_cover = (
        situation.cover
        or situation.go_to_ground
        or situation.smokescreen
        or (weapon.has(AbilityKind.INDIRECT_FIRE) and situation.target_not_visible)
    )
    if not has_cover:
        return False
    return not (model_save <= 3 and weapon.ap == 0)


@dataclass(frozen=True, slots=True)
class SaveChoice:
    """The save the defender uses: ``kind`` is "armour" or "invulnerable"; success when
    unmodified != 1 and unmodified + modifier >= target."""

    kind: str
    target: int
    modifier: int

    @property
    def successes(self) -> int:
        """Number of faces of a D6 that save."""
        return sum(1 for u in FACES if save_succeeds(u, self))


def save_succeeds(unmodified: int, choice: SaveChoice) -> bool:
    """An unmodified 1 always fails; an unmodified 6 is not automatic (RULINGS 4)."""
    return unmodified != 1 and unmodified + choice.modifier >= choice.target


def should_reroll_save(policy: RerollPolicy, unmodified: int, saved: bool) -> bool:
    """Whether a saving throw is re-rolled: ``ONES`` re-rolls an unmodified 1 (Scatter field
    [narrative L613]), ``FAILED`` a failed save (Evasive Manoeuvres [narrative L913-L915]);
    before modifiers, at most once per die [L666-L677]. Situation refuses the other policies."""
    if policy is RerollPolicy.ONES:
        return unmodified == 1
    if policy is RerollPolicy.FAILED:
        return not saved
    return False


def save_fail_weights(choice: SaveChoice, policy: RerollPolicy) -> tuple[int, int]:
    """Exact (failed, total) weights of one saving throw with its re-roll, found by
    enumerating the faces through :func:`save_succeeds` and :func:`should_reroll_save`
    (total 6 with no re-roll, so the numbers without one are unchanged)."""
    if policy is RerollPolicy.NONE:
        return 6 - choice.successes, 6
    failed = 0
    for first in FACES:
        saved = save_succeeds(first, choice)
        if should_reroll_save(policy, first, saved):
            failed += sum(1 for second in FACES if not save_succeeds(second, choice))
        elif not saved:
            failed += 6
    return failed, 36


def choose_save(
    save: int, invulnerable: int | None, weapon: Weapon, situation: Situation
) -> SaveChoice:
    """The better of the armour save (modifier = AP + save modifier + cover, net capped at +1,
    worsening unbounded) and the invulnerable save (AP and cover ignored [L1763–L1771];
    Go to Ground gives a 6+ one [L3479–L3481]). RULINGS 4."""
    cover = 1 if cover_applies(weapon, save, situation) else 0
    armour = SaveChoice("armour", save, min(1, weapon.ap + situation.save_modifier + cover))
    inv = invulnerable
    if situation.go_to_ground:
        inv = 6 if inv is None else min(inv, 6)
    if inv is None:
        return armour
    invuln = SaveChoice("invulnerable", inv, min(1, situation.save_modifier))
    return invuln if invuln.successes > armour.successes else armour


def fnp_negates(unmodified: int, feel_no_pain: int | None) -> bool:
    """Feel No Pain x+: one roll per wound that would be lost, x+ negates it (RULINGS 12)."""
    return feel_no_pain is not None and unmodified >= feel_no_pain


def damage_after_modifiers(rolled: int, situation: Situation) -> int:
    """Damage of one attack after the situation's modifier and damage reduction, never below
    1 (docs/rulings/wh40k10e-combat.md R3). ``rolled`` already includes Melta X."""
    return max(1, rolled + situation.damage_modifier - situation.damage_reduction)


@dataclass(frozen=True, slots=True)
class WeaponRules:
    """Everything one weapon needs for the attack sequence against a target, derived once."""

    weapon: Weapon
    hit: RollRule | None  # None: Torrent
    wound: RollRule
    attacks: DiceExpr
    rapid_fire: DiceExpr | None  # extra attacks per model at half range
    attack_bonus: int  # Blast
    lethal_hits: bool
    sustained: DiceExpr | None
    devastating: bool
    precision: bool
    melta: DiceExpr | None
    damage: DiceExpr
    hazardous: bool

    def attacks_dist(self) -> Dist:
        """Attacks of one model with this weapon."""
        d = self.attacks.dist() + self.attack_bonus
        if self.rapid_fire is not None:
            d = d + self.rapid_fire.dist()
        return d

    def damage_dist(self, situation: Situation) -> Dist:
        """Damage of one attack: D (+ Melta X), modifiers, at least 1 (RULINGS 13)."""
        d = self.damage.dist()
        if self.melta is not None:
            d = d + self.melta.dist()
        return d.map(lambda v: damage_after_modifiers(v, situation))


def weapon_rules(weapon: Weapon, target: Target, situation: Situation) -> WeaponRules:
    """Derive the rules of ``weapon`` against ``target`` in ``situation``."""
    half = situation.half_range and weapon.kind is WeaponKind.RANGED
    rf = weapon.ability(AbilityKind.RAPID_FIRE)
    sh = weapon.ability(AbilityKind.SUSTAINED_HITS)
    melta = weapon.ability(AbilityKind.MELTA)
    torrent_or_none = hit_rule(weapon, situation)
    return WeaponRules(
        weapon=weapon,
        hit=torrent_or_none,
        wound=wound_rule(weapon, target, situation),
        attacks=weapon.attacks,
        rapid_fire=rf.x if (rf is not None and half) else None,
        attack_bonus=attack_bonus(weapon, target, situation),
        lethal_hits=weapon.has(AbilityKind.LETHAL_HITS) and torrent_or_none is not None,
        sustained=sh.x if (sh is not None and torrent_or_none is not None) else None,
        devastating=weapon.has(AbilityKind.DEVASTATING_WOUNDS),
        precision=weapon.has(AbilityKind.PRECISION),
        melta=melta.x if (melta is not None and half) else None,
        damage=weapon.damage,
        hazardous=weapon.has(AbilityKind.HAZARDOUS),
    )
