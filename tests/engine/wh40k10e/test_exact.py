"""Exact analysis: every ability and modifier against hand-computed fractions (seed lines
cited), a brute-force enumerator on small random cases, and hypothesis properties."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.combat import CombatAnalysis
from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.roller import Roller
from app.engine.wh40k10e import analyze
from app.engine.wh40k10e import exact as exact_module
from app.engine.wh40k10e.exact import estimate_work
from app.engine.wh40k10e.live import resolve
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.brute import enumerate_request
from tests.engine.wh40k10e.factory import request, weapon

F = Fraction
TORRENT = {"skill": None, "abilities": ["Torrent"]}


def torrent(*abilities: str, **kw: Any) -> dict[str, Any]:
    return weapon(skill=None, abilities=["Torrent", *abilities], **kw)


def _group(a: CombatAnalysis, name: str) -> dict[str, Any]:
    groups = cast(list[dict[str, Any]], a.extra["groups"])
    return next(g for g in groups if g["name"] == name)


def mean_damage(*ws: dict[str, Any], **kw: Any) -> Fraction:
    return analyze(request(*ws, **kw)).damage.mean()


# -- hand-computed cases -----------------------------------------------------------------------


def test_the_issue_example() -> None:
    # 10 x A2 BS3 S4 AP-1 D1 vs 5 x T4 Sv3 W2: P(failed save) = 2/3 * 1/2 * 1/2 per attack
    a = analyze(
        request(
            weapon(attacks="2", ap=-1, abilities=["Heavy", "Assault"]),
            models=10,
            target={"models": 5, "toughness": 4, "save": 3, "wounds": 2, "keywords": ["INFANTRY"]},
        )
    )
    assert a.stages["attacks"] == Dist.constant(20)
    assert a.stages["hits"].mean() == F(40, 3)
    assert a.stages["wounds"].mean() == F(20, 3)
    assert a.stages["failed_saves"] == Dist.binomial(20, F(1, 6))
    assert a.stages["mortal_wounds"] == Dist.constant(0)
    # D1 into W2 with 10 wounds in the unit: damage = min(failed saves, 10)
    assert a.damage == Dist.binomial(20, F(1, 6)).map(lambda k: min(k, 10))
    assert a.models_destroyed == a.damage.map(lambda d: d // 2)
    assert a.wipe_probability == Dist.binomial(20, F(1, 6)).p_at_least(10)


def test_plain_attack() -> None:
    # BS3 (4/6) x S4 vs T4 (1/2) x no save: 1/3 [L1598–L1605, L1684–L1687]
    assert mean_damage(weapon()) == F(1, 3)


def test_lethal_hits_auto_wound_is_not_critical() -> None:
    # RULINGS 5 [L2099–L2102]: crit hit (1/6) wounds automatically
    assert mean_damage(weapon(abilities=["Lethal Hits"])) == F(1, 6) + F(3, 6) * F(1, 2)
    # with Devastating Wounds, the auto-wound still takes a save (Sv4+: fail 1/2):
    # 1/6*1/2 (lethal) + 3/6*2/6*1/2 (normal wound) + 3/6*1/6*1 (crit wound -> 1 MW)
    a = analyze(request(weapon(abilities=["Lethal Hits", "Devastating Wounds"]), save=4))
    assert a.damage.mean() == F(1, 4)
    assert a.stages["mortal_wounds"].mean() == F(1, 12)


def test_sustained_hits() -> None:
    # RULINGS 6 [L2337–L2351]: X extra (normal) hits on a critical hit
    assert analyze(request(weapon(abilities=["Sustained Hits 1"]))).stages["hits"].mean() == F(5, 6)
    assert analyze(request(weapon(abilities=["Sustained Hits D3"]))).stages["hits"].mean() == 1
    # extra hits are not Lethal: 3/6*1/2 + 1/6*(1 + 1/2)
    assert mean_damage(weapon(abilities=["Sustained Hits 1", "Lethal Hits"])) == F(1, 2)


def test_torrent_never_critical() -> None:
    # RULINGS 7 [L2092–L2094]: one automatic hit, no Lethal or Sustained Hits
    a = analyze(request(torrent("Lethal Hits", "Sustained Hits 2")))
    assert a.stages["hits"] == Dist.constant(1)
    assert a.damage.mean() == F(1, 2)


def test_anti_keyword() -> None:
    # RULINGS 8 [L2375–L2391]: S4 vs T8 needs 6+, Anti-Infantry 4+ makes 4+ critical
    w = torrent("Anti-Infantry 4+", strength=4)
    assert mean_damage(w, toughness=8, keywords=["Infantry"]) == F(1, 2)
    assert mean_damage(w, toughness=8, keywords=["Vehicle"]) == F(1, 6)
    # plural keyword spelling is the same keyword [L220]
    assert mean_damage(w, toughness=8, keywords=["INFANTRY"]) == mean_damage(
        torrent("Anti-infantries 4+", strength=4), toughness=8, keywords=["Infantry"]
    )
    dev = torrent("Anti-Infantry 4+", "Devastating Wounds", strength=4, damage="2")
    a = analyze(request(dev, toughness=8, save=2, wounds=2, keywords=["Infantry"]))
    assert a.stages["mortal_wounds"].mean() == 1  # 3/6 x D2, no save
    assert a.damage.mean() == 1


def test_devastating_wounds_with_melta_spill_over() -> None:
    # RULINGS 9 [L2315–L2331]: a crit wound is D mortal wounds (Melta included), spilling
    # over [L1816–L1824]; other wounds are saved normally (Sv2+: fail on 1).
    w = torrent("Devastating Wounds", "Melta 2", strength=8, damage="D3", ap=0)
    a = analyze(request(w, save=2, situation={"half_range": True}))
    assert dict(a.models_destroyed.items()) == {
        0: F(26, 36),
        1: F(4, 36),
        3: F(2, 36),
        4: F(2, 36),
        5: F(2, 36),
    }
    assert a.stages["mortal_wounds"].mean() == F(1, 6) * 4


def test_devastating_mortal_wounds_come_after_normal_damage() -> None:
    # RULINGS 9 / [L1826–L1833]: 1 model W3 Sv7. Weapon 1: DW torrent D3 S8; weapon 2: D1.
    # If mortal wounds came first the order would change nothing here, so use excess damage:
    # target 2 models W2; weapon 1 (DW, D2) crit -> 2 MW pending; weapon 2 (D3, no DW) wounds
    # the first model... checked against the brute-force enumerator (same rules, attack by
    # attack) rather than by hand.
    req = request(
        torrent("Devastating Wounds", strength=8, damage="2"),
        torrent(strength=8, damage="D3"),
        target={"models": 2, "wounds": 2, "save": 7},
    )
    a, o = analyze(req), enumerate_request(req)
    assert dict(a.damage.items()) == o.damage


def test_mortal_wounds_wait_for_every_weapon_of_the_unit() -> None:
    # RULINGS 9 [L1826–L1833]: the mortal wounds of Devastating Wounds are inflicted after the
    # normal damage of *all* the unit's attacks against the target, not after each weapon.
    # 2 models W2, no save. Weapon 1 (DW, D1, wounds on 2+): 1/6 nothing, 4/6 one normal
    # wound, 1/6 one mortal wound waiting. Weapon 2 (D2, wounds on 2+: 5/6). A critical wound
    # then weapon 2's wound: its 2 damage take the first model, the waiting mortal wound the
    # second's first wound: 3 lost, 5/36. Applied after weapon 1 instead, the mortal wound
    # would wound the first model and weapon 2's excess damage would be lost: never 3.
    req = request(
        torrent("Devastating Wounds", strength=8, damage="1"),
        torrent(strength=8, damage="2"),
        target={"models": 2, "wounds": 2, "save": 7},
    )
    want = {0: F(1, 36), 1: F(5, 36), 2: F(25, 36), 3: F(5, 36)}
    assert dict(analyze(req).damage.items()) == want
    assert dict(plain.analyze(req).damage.items()) == want
    assert enumerate_request(req).damage == want
    # the live path: a critical wound, then weapon 2's wound and failed save (dice by hand)
    live = resolve(req, Roller.from_values([6, 4, 1])).target_after
    assert live.wounds_lost == 3
    assert [m.wounds_remaining for m in live.models] == [0, 1]


def test_twin_linked() -> None:
    # RULINGS 10 [L2052–L2055]: re-roll failed wound rolls by default
    assert mean_damage(torrent("Twin-linked")) == F(3, 4)
    fish = request(
        torrent("Twin-linked", "Devastating Wounds"),
        situation={"twin_linked_reroll": "non_critical"},
    )
    assert analyze(fish).stages["mortal_wounds"].mean() == F(11, 36)


def test_excess_damage_is_lost() -> None:
    # RULINGS 11 [L1784–L1796]: D3 into W2: min(D3, 2) = 1 (1/3) or 2 (2/3); wound 5/6
    assert mean_damage(torrent(strength=8, damage="D3"), wounds=2) == F(5, 6) * F(5, 3)


def test_feel_no_pain_per_wound() -> None:
    # RULINGS 12 [L1857–L1869]: each point lost with probability 4/6 under FNP 5+
    assert mean_damage(torrent(strength=8, damage="D3"), wounds=5, feel_no_pain=5) == F(10, 9)


def test_blast_rapid_fire_melta_heavy_lance() -> None:
    # RULINGS 13
    blast = weapon(attacks="D6", abilities=["Blast"])
    assert analyze(request(blast, models=1, target={"models": 11})).stages["attacks"].mean() == F(
        11, 2
    )
    assert analyze(request(blast, target={"models": 4})).stages["attacks"].mean() == F(7, 2)
    rf = weapon(abilities=["Rapid Fire 1"])
    assert analyze(request(rf, situation={"half_range": True})).stages["attacks"] == Dist.constant(
        2
    )
    assert analyze(request(rf)).stages["attacks"] == Dist.constant(1)
    melta = torrent("Melta 2", strength=8, damage="D6")
    assert mean_damage(
        melta, target={"models": 1, "wounds": 30}, situation={"half_range": True}
    ) == F(5, 6) * F(11, 2)
    heavy = weapon(skill=4, abilities=["Heavy"])
    assert analyze(request(heavy, situation={"remained_stationary": True})).stages[
        "hits"
    ].mean() == F(4, 6)
    lance = weapon(kind="melee", abilities=["Lance"], skill=3)
    assert analyze(request(lance, situation={"charged": True})).stages["wounds"].mean() == F(
        4, 6
    ) * F(4, 6)


def test_cover_indirect_and_ignores_cover() -> None:
    # [L3694–L3712], [L2122–L2154], [L2043–L2046]; Sv4+ AP0 -> 3+ in cover: fail 2/6
    base = torrent()
    assert mean_damage(base, save=4, situation={"cover": True}) == F(1, 2) * F(2, 6)
    assert mean_damage(torrent("Ignores Cover"), save=4, situation={"cover": True}) == F(1, 4)
    assert mean_damage(base, save=3, situation={"cover": True}) == F(1, 2) * F(
        2, 6
    )  # no cover vs AP0
    indirect = weapon(abilities=["Indirect Fire"])
    a = analyze(request(indirect, save=4, situation={"target_not_visible": True}))
    assert a.stages["hits"].mean() == F(3, 6)  # BS3 with -1
    assert a.damage.mean() == F(3, 6) * F(1, 2) * F(2, 6)
    melee = weapon(kind="melee", abilities=[])
    assert mean_damage(melee, save=4, situation={"cover": True}) == F(4, 6) * F(1, 2) * F(1, 2)


def test_go_to_ground_smokescreen_stealth_big_guns_overwatch() -> None:
    # Go to Ground: 6+ invulnerable and cover [L3479–L3481]; Sv7 vs AP-2 -> 6++
    assert mean_damage(torrent(ap=-2), situation={"go_to_ground": True}) == F(1, 2) * F(5, 6)
    # Smokescreen: cover and Stealth [L3496–L3498]
    a = analyze(request(weapon(), save=5, situation={"smokescreen": True}))
    assert a.stages["hits"].mean() == F(3, 6)
    assert a.damage.mean() == F(3, 6) * F(1, 2) * F(3, 6)
    assert analyze(request(weapon(), situation={"stealth": True})).stages["hits"].mean() == F(1, 2)
    big = analyze(request(weapon(), situation={"big_guns_never_tire": True}))
    assert big.stages["hits"].mean() == F(1, 2)
    pistol = analyze(request(weapon(abilities=["Pistol"]), situation={"big_guns_never_tire": True}))
    assert pistol.stages["hits"].mean() == F(4, 6)
    ow = analyze(
        request(weapon(skill=2, abilities=["Sustained Hits 1"]), situation={"overwatch": True})
    )
    assert ow.stages["hits"].mean() == F(2, 6)  # only 6s hit [L3439–L3443], each 6 scores 2


def test_modifier_caps() -> None:
    # hit +2 counts as +1 (RULINGS 3): BS4 -> 3+
    assert analyze(request(weapon(skill=4), situation={"hit_modifier": 2})).stages[
        "hits"
    ].mean() == F(4, 6)
    # wound -3 counts as -1: S4 vs T4 -> 5+
    assert analyze(request(weapon(), situation={"wound_modifier": -3})).stages[
        "wounds"
    ].mean() == F(4, 6) * F(2, 6)
    # save: improvement capped at +1 (Sv5+ -> 4+)
    assert mean_damage(torrent(), save=5, situation={"save_modifier": 3}) == F(1, 2) * F(1, 2)


def test_damage_modifier_and_reduction() -> None:
    # damage never below 1 (docs/rulings/wh40k10e-combat.md)
    assert mean_damage(torrent(damage="2"), wounds=9, situation={"damage_modifier": 1}) == F(3, 2)
    assert mean_damage(torrent(damage="1"), wounds=9, situation={"damage_reduction": 1}) == F(1, 2)


def test_attached_character_and_precision() -> None:
    # RULINGS 14 [L3233–L3246]: attacks use the Bodyguard's T; the CHARACTER takes attacks
    # only once the Bodyguard is destroyed, except with Precision [L2161–L2173].
    tgt = {
        "models": 2,
        "wounds": 1,
        "save": 7,
        "toughness": 4,
        "groups": [
            {"name": "Captain", "models": 1, "wounds": 4, "save": 7, "keywords": ["Character"]}
        ],
    }
    plain = analyze(request(torrent(strength=8), target=tgt))
    assert _group(plain, "Captain")["models_destroyed"] == Dist.constant(0)
    precise = analyze(request(torrent("Precision", strength=8, damage="4"), target=tgt))
    assert _group(precise, "Captain")["all_destroyed"] == F(5, 6)
    assert _group(precise, "main")["models_destroyed"] == Dist.constant(0)


def test_hazardous_extra_section() -> None:
    # RULINGS 15 [L2278–L2309]: one test per Hazardous weapon used
    a = analyze(request(weapon(abilities=["Hazardous"]), models=3))
    assert a.extra["hazardous_failures"] == Dist.binomial(3, F(1, 6))


def test_abilities_without_effect_on_the_maths() -> None:
    # Assault [L2009–L2018], Pistol (without Big Guns), One Shot, Psychic, Extra Attacks
    base = mean_damage(weapon())
    for ability in ("Assault", "Pistol", "One Shot", "Psychic"):
        assert mean_damage(weapon(abilities=[ability])) == base
    assert mean_damage(weapon(kind="melee", abilities=["Extra Attacks"])) == base


def test_random_attacks_rolled_per_model() -> None:
    # RULINGS 2 [L3110–L3119]: 3 models with D3 attacks each = sum of three D3
    a = analyze(request(weapon(attacks="D3"), models=3))
    assert a.stages["attacks"] == Dist.die(3).repeat(3)


def test_wipe_and_totals_consistent() -> None:
    a = analyze(
        request(torrent(strength=8, damage="D6"), models=5, target={"models": 3, "wounds": 3})
    )
    assert a.wipe_probability == a.models_destroyed.prob(3)
    assert a.damage.max <= 9
    assert a.extra["total_wounds"] == 9


def test_size_limits_refuse_huge_requests() -> None:
    big = weapon(
        attacks="10D6+100", abilities=["Sustained Hits D6+4", "Devastating Wounds"], damage="10D6"
    )
    with pytest.raises(ProfileError, match="at most 750 per entry") as err:
        analyze(request(big, models=30))
    assert err.value.field == "attacks[0].models"
    many = weapon(attacks="19", abilities=["Sustained Hits 1"])
    with pytest.raises(ProfileError, match="at most 2250 attacks and 9000 hits per request"):
        analyze(request(many, many, many, many, models=30))  # 2,280 attacks in all
    with pytest.raises(ProfileError, match="at most 3000 per entry") as err:
        analyze(request(weapon(attacks="20", abilities=["Sustained Hits D6"]), models=30))
    assert err.value.field == "attacks[0].weapon.abilities"


def test_work_budget_stops_a_running_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    req = request(
        weapon(attacks="D6", damage="D3", abilities=["Sustained Hits 1"]),
        models=10,
        target={"models": 20, "wounds": 3},
    )
    assert estimate_work(req) > 0
    monkeypatch.setattr(exact_module, "WORK_BUDGET", 2000)
    with pytest.raises(ProfileError, match="too large to analyse exactly"):
        analyze(req)


# -- brute force ------------------------------------------------------------------------------

ABILITY_POOL = [
    "Lethal Hits",
    "Sustained Hits 1",
    "Sustained Hits D3",
    "Devastating Wounds",
    "Anti-Infantry 4+",
    "Anti-Vehicle 2+",
    "Twin-linked",
    "Lance",
    "Melta 1",
    "Rapid Fire 1",
    "Blast",
    "Heavy",
    "Ignores Cover",
    "Precision",
    "Pistol",
]


@st.composite
def small_weapon(draw: st.DrawFn) -> dict[str, Any]:
    abilities = draw(st.lists(st.sampled_from(ABILITY_POOL), max_size=3, unique=True))
    if "Sustained Hits 1" in abilities and "Sustained Hits D3" in abilities:
        abilities.remove("Sustained Hits D3")
    torrent_ = draw(st.booleans()) and draw(st.booleans())
    kind = "ranged"
    if not torrent_ and draw(st.integers(0, 3)) == 0:
        kind = "melee"
        abilities = [
            a for a in abilities if a not in ("Melta 1", "Rapid Fire 1", "Blast", "Heavy", "Pistol")
        ]
    if torrent_:
        abilities.append("Torrent")
    return {
        "name": "w",
        "kind": kind,
        "attacks": draw(st.sampled_from(["1", "1", "2", "D3"])),
        "skill": None if torrent_ else draw(st.integers(2, 6)),
        "strength": draw(st.integers(2, 9)),
        "ap": draw(st.integers(-3, 0)),
        "damage": draw(st.sampled_from(["1", "2", "D3", "D3+1"])),
        "abilities": abilities,
    }


@st.composite
def small_request(draw: st.DrawFn) -> dict[str, Any]:
    n_weapons = draw(st.integers(1, 2))
    weapons = [draw(small_weapon()) for _ in range(n_weapons)]
    groups = []
    if draw(st.booleans()):
        groups.append(
            {
                "name": "sgt",
                "models": 1,
                "wounds": draw(st.integers(1, 2)),
                "save": draw(st.integers(2, 7)),
                "feel_no_pain": draw(st.sampled_from([None, 5])),
            }
        )
    if draw(st.booleans()):
        groups.append(
            {
                "name": "hero",
                "models": 1,
                "wounds": draw(st.integers(1, 3)),
                "save": draw(st.integers(2, 6)),
                "invulnerable_save": draw(st.sampled_from([None, 4])),
                "feel_no_pain": draw(st.sampled_from([None, 4, 6])),
                "keywords": ["Character"],
            }
        )
    situation = {
        "half_range": draw(st.booleans()),
        "remained_stationary": draw(st.booleans()),
        "charged": draw(st.booleans()),
        "cover": draw(st.booleans()),
        "stealth": draw(st.booleans()),
        "hit_modifier": draw(st.integers(-1, 1)),
        "wound_modifier": draw(st.integers(-1, 1)),
        "save_modifier": draw(st.integers(-1, 1)),
        "damage_modifier": draw(st.integers(0, 1)),
        "damage_reduction": draw(st.integers(0, 1)),
        "reroll_hits": draw(st.sampled_from(["none", "ones", "failed", "non_critical"])),
        "reroll_wounds": draw(st.sampled_from(["none", "ones", "failed", "non_critical"])),
        "twin_linked_reroll": draw(st.sampled_from(["failed", "non_critical"])),
        "overwatch": draw(st.integers(0, 4)) == 0,
        "go_to_ground": draw(st.integers(0, 4)) == 0,
    }
    return {
        "attacks": [{"models": 1, "weapon": w} for w in weapons],
        "target": {
            "models": draw(st.integers(1, 2)),
            "toughness": draw(st.integers(2, 8)),
            "save": draw(st.integers(2, 7)),
            "wounds": draw(st.integers(1, 3)),
            "invulnerable_save": draw(st.sampled_from([None, None, 5])),
            "feel_no_pain": draw(st.sampled_from([None, None, 5, 6])),
            "keywords": draw(st.sampled_from([[], ["Infantry"], ["Vehicle"]])),
            "groups": groups,
        },
        "situation": situation,
    }


@settings(max_examples=100, deadline=None)
@given(small_request())
def test_engine_matches_brute_force_enumerator(raw: dict[str, Any]) -> None:
    req = request_from_dict(raw)
    a = analyze(req)
    o = enumerate_request(req)
    assert dict(a.damage.items()) == o.damage
    assert dict(a.models_destroyed.items()) == o.models_destroyed
    assert a.wipe_probability == o.wipe
    for stage in ("attacks", "hits", "wounds", "mortal_wounds"):
        assert dict(a.stages[stage].items()) == {k: v for k, v in getattr(o, stage).items() if v}
    for name, dist in o.group_destroyed.items():
        assert dict(_group(a, name)["models_destroyed"].items()) == dist


def test_brute_force_on_a_named_mixed_case() -> None:
    raw = {
        "attacks": [
            {
                "models": 1,
                "weapon": weapon(
                    attacks="2",
                    ap=-1,
                    damage="2",
                    abilities=["Devastating Wounds", "Precision", "Sustained Hits 1"],
                ),
            },
            {
                "models": 1,
                "weapon": weapon(
                    kind="melee",
                    attacks="1",
                    strength=8,
                    ap=-2,
                    damage="D3",
                    abilities=["Twin-linked", "Lethal Hits"],
                ),
            },
        ],
        "target": {
            "models": 1,
            "toughness": 4,
            "save": 4,
            "wounds": 2,
            "groups": [
                {"name": "Sarge", "models": 1, "wounds": 1, "save": 3},
                {
                    "name": "Cap",
                    "models": 1,
                    "wounds": 3,
                    "save": 3,
                    "invulnerable_save": 4,
                    "feel_no_pain": 5,
                    "keywords": ["character"],
                },
            ],
        },
        "situation": {"reroll_hits": "ones"},
    }
    req = request_from_dict(raw)
    a, o = analyze(req), enumerate_request(req)
    assert dict(a.damage.items()) == o.damage
    assert dict(a.models_destroyed.items()) == o.models_destroyed


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(small_request(), st.integers(1, 3))
def test_properties(raw: dict[str, Any], extra_models: int) -> None:
    req = request_from_dict(raw)
    a = analyze(req)
    assert sum(p for _, p in a.damage.items()) == 1
    assert sum(p for _, p in a.models_destroyed.items()) == 1
    assert a.damage.min >= 0
    assert a.damage.max <= cast(int, a.extra["total_wounds"])
    assert a.models_destroyed.max <= cast(int, a.extra["total_models"])
    # more attacks never lower the mean
    more = dict(
        raw, attacks=[{**raw["attacks"][0], "models": 1 + extra_models}, *raw["attacks"][1:]]
    )
    assert analyze(request_from_dict(more)).damage.mean() >= a.damage.mean()
    # a better save never raises it
    tgt = raw["target"]
    if tgt["save"] > 2:
        better = dict(raw, target={**tgt, "save": tgt["save"] - 1})
        assert analyze(request_from_dict(better)).damage.mean() <= a.damage.mean()
