"""Live resolution of a 10th-edition activation with the seeded, recording roller.

The same rules as the exact analysis, die by die: every decision goes through the shared
functions of :mod:`.rules` (hit and wound tests, re-rolls, save choice, Feel No Pain, damage)
and the allocation lines of :mod:`.allocation`. Dice are rolled in the order a player would
with Fast Dice Rolling [L1933–L1996]: per weapon, the attacks, every hit roll, every wound
roll, then one save at a time with its damage (random damage one attack at a time). Mortal
wounds from Devastating Wounds wait until every weapon has made its attacks, then are applied
(RULINGS 9 [L1826–L1833]); Hazardous tests are taken last (RULINGS 15). Once the target is
destroyed no further die is rolled against it.

Same seed, same dice, same result. ``Roller.from_values`` replays dice rolled by hand.
"""

from __future__ import annotations

from app.engine.combat import CombatResolution, ModelState, ResolutionStep, TargetState
from app.engine.roller import Roller
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import CombatRequest, Situation
from app.engine.wh40k10e.rules import (
    Outcome,
    RollRule,
    WeaponRules,
    choose_save,
    damage_after_modifiers,
    fnp_negates,
    save_succeeds,
    should_reroll,
    should_reroll_save,
    weapon_rules,
)

__all__ = ["resolve"]

_OUTCOME_WORDS = {
    "hit": {Outcome.FAIL: "miss", Outcome.SUCCESS: "hit", Outcome.CRITICAL: "critical hit"},
    "wound": {
        Outcome.FAIL: "no wound",
        Outcome.SUCCESS: "wound",
        Outcome.CRITICAL: "critical wound",
    },
}


def _test(roller: Roller, rule: RollRule, label: str, stage: str) -> Outcome:
    """Roll one hit or wound test, with its re-roll, and annotate the die."""
    first = roller.d6(label, stage=stage)
    outcome = rule.judge(first)
    if should_reroll(rule.reroll, outcome, first):
        outcome = rule.judge(roller.reroll())
    roller.annotate(modifier=rule.modifier, outcome=_OUTCOME_WORDS[stage][outcome])
    return outcome


class _Live:
    def __init__(self, request: CombatRequest, roller: Roller) -> None:
        self.request = request
        self.roller = roller
        self.layout = Layout(request.target)
        self.b = 0
        self.c = 0
        self.totals = {
            "attacks": 0,
            "hits": 0,
            "wounds": 0,
            "failed_saves": 0,
            "mortal_wounds": 0,
        }
        self.pending_mortal: list[tuple[str, int]] = []
        self.steps: list[ResolutionStep] = []

    @property
    def wiped(self) -> bool:
        return self.layout.wiped(self.b, self.c)

    def step(self, stage: str, text: str, first_die: int) -> None:
        dice = tuple(range(first_die, len(self.roller.records)))
        self.steps.append(ResolutionStep(stage, text, dice))

    def mark(self) -> int:
        return len(self.roller.records)

    def weapon(self, index: int, models: int, wr: WeaponRules, situation: Situation) -> None:
        roller = self.roller
        name = wr.weapon.name or f"weapon {index + 1}"
        # 1. number of attacks: A per model, + Rapid Fire X, + Blast (RULINGS 2, 13)
        start = self.mark()
        n_attacks = 0
        for k in range(models):
            n = wr.attacks.roll(roller, f"{name}: attacks (model {k + 1})", stage="attacks")
            if wr.rapid_fire is not None:
                n += wr.rapid_fire.roll(
                    roller, f"{name}: Rapid Fire (model {k + 1})", stage="attacks"
                )
            n_attacks += n + wr.attack_bonus
        self.totals["attacks"] += n_attacks
        self.step("attacks", f"{name}: {n_attacks} attacks", start)
        # 2. hit rolls (Torrent: automatic, never critical: RULINGS 7)
        start = self.mark()
        to_wound = 0
        auto_wounds = 0
        crits = 0
        if wr.hit is None:
            to_wound = n_attacks
            hits = n_attacks
        else:
            hits = 0
            for _ in range(n_attacks):
                outcome = _test(roller, wr.hit, f"{name}: hit roll", "hit")
                if outcome is Outcome.FAIL:
                    continue
                hits += 1
                if outcome is Outcome.CRITICAL:
                    crits += 1
                    if wr.lethal_hits:  # RULINGS 5
                        auto_wounds += 1
                    else:
                        to_wound += 1
                    if wr.sustained is not None:  # RULINGS 6
                        extra = wr.sustained.roll(roller, f"{name}: Sustained Hits", stage="hit")
                        hits += extra
                        to_wound += extra
                else:
                    to_wound += 1
        self.totals["hits"] += hits
        detail = f" ({crits} critical)" if crits else ""
        lethal = f", {auto_wounds} wound automatically (Lethal Hits)" if auto_wounds else ""
        self.step("hits", f"{name}: {hits} hits{detail}{lethal}", start)
        # 3. wound rolls
        start = self.mark()
        to_save = auto_wounds
        wounds = auto_wounds
        crit_wounds = 0
        for _ in range(to_wound):
            outcome = _test(roller, wr.wound, f"{name}: wound roll", "wound")
            if outcome is Outcome.FAIL:
                continue
            wounds += 1
            if outcome is Outcome.CRITICAL and wr.devastating:  # RULINGS 9
                crit_wounds += 1
                dmg = self.damage(wr, situation, f"{name}: Devastating Wounds damage")
                self.totals["mortal_wounds"] += dmg
                self.pending_mortal.append((name, dmg))
            else:
                to_save += 1
        self.totals["wounds"] += wounds
        dev = f", {crit_wounds} critical into mortal wounds" if crit_wounds else ""
        self.step("wounds", f"{name}: {wounds} wounds{dev}", start)
        # 4-5. allocate, save, damage, Feel No Pain: one wound at a time
        for _ in range(to_save):
            if self.wiped:
                self.steps.append(
                    ResolutionStep(
                        "saves", f"{name}: the target is destroyed; remaining wounds are lost"
                    )
                )
                break
            self.save_and_damage(name, wr, situation)

    def damage(self, wr: WeaponRules, situation: Situation, label: str) -> int:
        rolled = wr.damage.roll(self.roller, label, stage="damage")
        if wr.melta is not None:
            rolled += wr.melta.roll(self.roller, label + " (Melta)", stage="damage")
        return damage_after_modifiers(rolled, situation)

    def save_and_damage(self, name: str, wr: WeaponRules, situation: Situation) -> None:
        roller = self.roller
        start = self.mark()
        target = self.layout.slot_for_attack(self.b, self.c, wr.precision)
        assert target is not None
        line, slot = target
        choice = choose_save(slot.save, slot.invulnerable_save, wr.weapon, situation)
        u = roller.d6(f"{name}: {choice.kind} save ({slot.group}, {choice.target}+)", stage="save")
        saved = save_succeeds(u, choice)
        if should_reroll_save(situation.reroll_saves, u, saved):  # the first die stays as original
            saved = save_succeeds(roller.reroll(), choice)
        roller.annotate(modifier=choice.modifier, outcome="saved" if saved else "failed")
        if saved:
            self.step("saves", f"{name}: saved by {slot.group}", start)
            return
        self.totals["failed_saves"] += 1
        dmg = self.damage(wr, situation, f"{name}: damage")
        before = self.layout.models_destroyed(self.b, self.c)
        remaining = slot.end - (self.b if line == 0 else self.c)
        lost = 0
        for _ in range(dmg):  # one Feel No Pain roll per wound that would be lost
            if lost >= remaining:  # the model is destroyed: excess damage is lost
                break
            if not self.feel_no_pain(slot.feel_no_pain):
                lost += 1
        self.b, self.c = self.layout.after_damage(self.b, self.c, line, lost)
        after = self.layout.models_destroyed(self.b, self.c)
        killed = " - model destroyed" if after > before else ""
        self.step(
            "damage",
            f"{name}: failed save on {slot.group}, {dmg} damage, {lost} wounds lost{killed}",
            start,
        )

    def feel_no_pain(self, fnp: int | None) -> bool:
        """Roll Feel No Pain for one wound; True when the wound is not lost."""
        if fnp is None:
            return False
        u = self.roller.d6(f"Feel No Pain {fnp}+", stage="feel_no_pain")
        negated = fnp_negates(u, fnp)
        self.roller.annotate(outcome="negated" if negated else "wound lost")
        return negated

    def mortal_wounds(self) -> None:
        """Apply pending mortal wounds one at a time, spilling over (RULINGS 9, 11, 12)."""
        for name, amount in self.pending_mortal:
            start = self.mark()
            lost = 0
            for _ in range(amount):
                target = self.layout.slot_for_mortal(self.b, self.c)
                if target is None:
                    break
                _, slot = target
                if self.feel_no_pain(slot.feel_no_pain):
                    continue
                self.b, self.c = self.layout.after_mortal(self.b, self.c, 1)
                lost += 1
            self.step("mortal_wounds", f"{name}: {amount} mortal wounds, {lost} wounds lost", start)

    def hazardous(self, index: int, models: int, wr: WeaponRules) -> int:
        name = wr.weapon.name or f"weapon {index + 1}"
        start = self.mark()
        failed = 0
        for _ in range(models):
            u = self.roller.d6(f"{name}: Hazardous test", stage="hazardous")
            self.roller.annotate(outcome="failed" if u == 1 else "passed")
            failed += u == 1
        self.step("hazardous", f"{name}: {failed} Hazardous tests failed", start)
        return failed


def resolve(request: CombatRequest, roller: Roller) -> CombatResolution:
    """Roll ``request`` once with ``roller``; every die is in the result."""
    live = _Live(request, roller)
    situation = request.situation
    rules = [weapon_rules(e.weapon, request.target, situation) for e in request.attacks]
    for i, (entry, wr) in enumerate(zip(request.attacks, rules, strict=True)):
        if live.wiped:
            live.steps.append(
                ResolutionStep("attacks", f"{entry.weapon.name}: the target is already destroyed")
            )
            break
        live.weapon(i, entry.models, wr, situation)
    live.mortal_wounds()
    hazardous = 0
    for i, (entry, wr) in enumerate(zip(request.attacks, rules, strict=True)):
        if wr.hazardous:
            hazardous += live.hazardous(i, entry.models, wr)
    layout = live.layout
    models = tuple(
        ModelState(group=slot.group, wounds=slot.wounds, wounds_remaining=left)
        for slot, left in layout.wounds_remaining(live.b, live.c)
    )
    after = TargetState(
        models=models,
        wounds_lost=live.b + live.c,
        models_destroyed=layout.models_destroyed(live.b, live.c),
    )
    totals = dict(live.totals)
    totals["damage"] = after.wounds_lost
    totals["models_destroyed"] = after.models_destroyed
    totals["hazardous_failures"] = hazardous
    return CombatResolution(
        seed=roller.seed,
        dice=roller.records,
        totals=totals,
        target_after=after,
        steps=tuple(live.steps),
    )
