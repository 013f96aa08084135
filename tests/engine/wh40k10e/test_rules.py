"""The shared per-step rules, against hand-computed values citing the seed lines."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.engine.wh40k10e.profiles import RerollPolicy, Situation, Weapon
from app.engine.wh40k10e.rules import (
    Outcome,
    RollRule,
    choose_save,
    clamp_modifier,
    cover_applies,
    damage_after_modifiers,
    fnp_negates,
    hit_modifier,
    hit_rule,
    outcome_weights,
    should_reroll,
    weapon_rules,
    wound_rule,
    wound_threshold,
)
from tests.engine.wh40k10e.factory import request


def _w(**kw: object) -> Weapon:  # the weapon of a one-weapon request
    return (
        request(
            {
                "name": "w",
                "kind": "ranged",
                "attacks": "1",
                "skill": 3,
                "strength": 4,
                "ap": 0,
                "damage": "1",
                "abilities": [],
                **kw,
            }
        )
        .attacks[0]
        .weapon
    )


@pytest.mark.parametrize(
    ("s", "t", "need"),
    [
        (8, 4, 2),
        (9, 4, 2),
        (5, 4, 3),
        (5, 5, 4),
        (4, 5, 5),
        (4, 8, 6),
        (3, 7, 6),
        (4, 7, 5),
        (1, 1, 4),
        (2, 1, 2),
    ],
)
def test_wound_table(s: int, t: int, need: int) -> None:
    # RULINGS 1 (digits lost at [L1629–L1656]); S5 vs T5 -> 4+ is in the text [L1906–L1908]
    assert wound_threshold(s, t) == need


def test_judge_criticals_and_ones() -> None:
    # [L1607–L1609]: unmodified 6 always succeeds (critical), unmodified 1 always fails
    rule = RollRule(threshold=2, modifier=1)
    assert rule.judge(1) is Outcome.FAIL
    assert rule.judge(2) is Outcome.SUCCESS
    assert rule.judge(6) is Outcome.CRITICAL
    hard = RollRule(threshold=6, modifier=-1)
    assert [hard.judge(u) for u in range(1, 7)] == [Outcome.FAIL] * 5 + [Outcome.CRITICAL]
    anti = RollRule(threshold=6, modifier=0, critical_on=4)  # Anti-X 4+ [L2377–L2379]
    assert [anti.judge(u) for u in range(1, 7)] == [Outcome.FAIL] * 3 + [Outcome.CRITICAL] * 3


def test_modifiers_are_summed_then_clamped() -> None:
    # RULINGS 3 [L1609–L1610]
    assert [clamp_modifier(m) for m in (-3, -1, 0, 2)] == [-1, -1, 0, 1]
    w = _w(abilities=["Heavy"])
    sit = Situation(remained_stationary=True, stealth=True, hit_modifier=1)
    assert hit_modifier(w, sit) == 1  # +1 heavy +1 situation -1 stealth = +1


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        # BS3+: fail on 1-2, hit on 3-5, critical on 6 (all out of 36)
        (RerollPolicy.NONE, (12, 18, 6)),
        (RerollPolicy.ONES, (8, 21, 7)),  # 1/6*2/6+1/6 fail; 1/2+1/12 hit; 1/6+1/36 crit
        (RerollPolicy.FAILED, (4, 24, 8)),  # (2/6)^2 fail; crit 1/6+2/6*1/6
        (RerollPolicy.NON_CRITICAL, (10, 15, 11)),  # 5/6*2/6; 5/6*3/6; 1/6+5/6*1/6
    ],
)
def test_reroll_policies(policy: RerollPolicy, expected: tuple[int, int, int]) -> None:
    # re-rolls before modifiers, at most once [L666–L677]
    f, s, c, t = outcome_weights(RollRule(threshold=3, modifier=0, reroll=policy))
    assert t == 36
    assert (f, s, c) == expected


def test_should_reroll() -> None:
    assert should_reroll(RerollPolicy.ONES, Outcome.FAIL, 1)
    assert not should_reroll(RerollPolicy.ONES, Outcome.FAIL, 2)
    assert should_reroll(RerollPolicy.FAILED, Outcome.FAIL, 2)
    assert not should_reroll(RerollPolicy.FAILED, Outcome.SUCCESS, 4)
    assert should_reroll(RerollPolicy.NON_CRITICAL, Outcome.SUCCESS, 4)
    assert not should_reroll(RerollPolicy.NON_CRITICAL, Outcome.CRITICAL, 6)


def test_overwatch_hits_only_on_unmodified_six() -> None:
    # Fire Overwatch [L3439–L3443]: BS and modifiers ignored
    rule = hit_rule(_w(skill=2), Situation(overwatch=True, hit_modifier=1))
    assert rule is not None
    assert outcome_weights(rule) == (30, 0, 6, 36)
    rr = hit_rule(_w(skill=2), Situation(overwatch=True, reroll_hits=RerollPolicy.FAILED))
    assert rr is not None
    assert outcome_weights(rr)[2] == 11  # 1/6 + 5/6 * 1/6


def test_torrent_has_no_hit_roll() -> None:
    # [L2092–L2094], RULINGS 7
    assert hit_rule(_w(skill=None, abilities=["Torrent"]), Situation()) is None


def test_hit_modifiers_by_source() -> None:
    heavy = _w(abilities=["Heavy"])
    assert hit_modifier(heavy, Situation(remained_stationary=True)) == 1  # [L2227–L2233]
    assert hit_modifier(heavy, Situation()) == 0
    assert hit_modifier(_w(), Situation(stealth=True)) == -1  # [L1594–L1596]
    assert hit_modifier(_w(), Situation(smokescreen=True)) == -1  # [L3496–L3498]
    assert hit_modifier(_w(), Situation(stealth=True, smokescreen=True)) == -1
    assert hit_modifier(_w(), Situation(big_guns_never_tire=True)) == -1  # [L1545–L1551]
    assert hit_modifier(_w(abilities=["Pistol"]), Situation(big_guns_never_tire=True)) == 0
    indirect = _w(abilities=["Indirect Fire"])
    assert hit_modifier(indirect, Situation(target_not_visible=True)) == -1  # [L2130–L2134]
    melee = _w(kind="melee", abilities=[])
    assert hit_modifier(melee, Situation(stealth=True, big_guns_never_tire=True)) == 0


def test_wound_rule_lance_anti_and_twin_linked() -> None:
    req = request(
        {
            "name": "l",
            "kind": "melee",
            "attacks": "1",
            "skill": 3,
            "strength": 4,
            "ap": 0,
            "damage": "1",
            "abilities": ["Lance", "Anti-Infantry 5+", "Twin-linked"],
        },
        toughness=4,
        keywords=["INFANTRY"],
    )
    w, target = req.attacks[0].weapon, req.target
    rule = wound_rule(w, target, Situation(charged=True))
    assert (rule.threshold, rule.modifier, rule.critical_on) == (4, 1, 5)  # [L2107–L2110]
    assert rule.reroll is RerollPolicy.FAILED  # RULINGS 10 default
    fish = wound_rule(w, target, Situation(twin_linked_reroll=RerollPolicy.NON_CRITICAL))
    assert fish.reroll is RerollPolicy.NON_CRITICAL
    ones = wound_rule(w, target, Situation(reroll_wounds=RerollPolicy.ONES))
    assert ones.reroll is RerollPolicy.FAILED  # the broader policy wins


def test_save_choice_armour_invulnerable_cover() -> None:
    ap2 = _w(ap=-2)
    # Sv3+ AP-2 -> 5+; 4++ is better (AP ignored [L1763–L1771])
    c = choose_save(3, 4, ap2, Situation())
    assert (c.kind, c.target, c.modifier, c.successes) == ("invulnerable", 4, 0, 3)
    # cover +1 to the armour save only: 3+ AP-2 +1 -> 4+, equal to 4++: armour kept
    c = choose_save(3, 4, ap2, Situation(cover=True))
    assert (c.kind, c.successes) == ("armour", 3)
    # improvement capped at +1 net (RULINGS 4): AP0 +1 cover +2 modifier -> +1
    c = choose_save(5, None, _w(), Situation(cover=True, save_modifier=2))
    assert c.modifier == 1
    # an unmodified 1 always fails even on 2+ with +1 [L1730–L1731]
    assert choose_save(2, None, _w(), Situation(save_modifier=1)).successes == 5
    # no auto-success on 6 (RULINGS 4): Sv3+ AP-4 needs a 7
    assert choose_save(3, None, _w(ap=-4), Situation()).successes == 0


def test_cover_rules() -> None:
    # [L3694–L3712]: ranged only; not Sv 3+ or better vs AP 0; Ignores Cover [L2043–L2046]
    sit = Situation(cover=True)
    assert cover_applies(_w(ap=0), 4, sit)
    assert not cover_applies(_w(ap=0), 3, sit)
    assert cover_applies(_w(ap=-1), 3, sit)
    assert not cover_applies(_w(kind="melee", abilities=[]), 4, sit)
    assert not cover_applies(_w(abilities=["Ignores Cover"]), 4, sit)
    assert cover_applies(_w(abilities=["Indirect Fire"]), 4, Situation(target_not_visible=True))
    assert cover_applies(_w(), 4, Situation(go_to_ground=True))  # [L3479–L3481]


def test_go_to_ground_gives_a_six_plus_invulnerable() -> None:
    c = choose_save(7, None, _w(ap=-3), Situation(go_to_ground=True))
    assert (c.kind, c.target, c.successes) == ("invulnerable", 6, 1)


def test_feel_no_pain_and_damage_floor() -> None:
    assert [fnp_negates(u, 5) for u in range(1, 7)] == [False] * 4 + [True] * 2  # [L1857–L1869]
    assert not fnp_negates(6, None)
    assert damage_after_modifiers(1, Situation(damage_reduction=1)) == 1
    assert damage_after_modifiers(3, Situation(damage_modifier=1, damage_reduction=2)) == 2


def test_weapon_rules_derived_bonuses() -> None:
    req = request(
        {
            "name": "m",
            "kind": "ranged",
            "attacks": "D6",
            "skill": 3,
            "strength": 9,
            "ap": -4,
            "damage": "D6",
            "abilities": ["Blast", "Rapid Fire 1", "Melta 2"],
        },
        models=1,
        target={"models": 11},
        situation={"half_range": True},
    )
    wr = weapon_rules(req.attacks[0].weapon, req.target, req.situation)
    assert wr.attack_bonus == 2  # Blast: 11 models -> +2 [L2179–L2203]
    assert wr.rapid_fire is not None
    assert str(wr.rapid_fire) == "1"
    assert wr.damage_dist(req.situation).mean() == Fraction(11, 2)  # D6 + Melta 2 [L2209–L2221]
    far = weapon_rules(req.attacks[0].weapon, req.target, Situation())
    assert far.rapid_fire is None
    assert far.melta is None
