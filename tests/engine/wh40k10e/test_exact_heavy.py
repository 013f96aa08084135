"""The live-attack chain (issue 18) against the plain attack-by-attack engine it replaced
(``plain.py``, bounds lifted): identical distributions on random profiles with every ability,
mixed groups and Feel No Pain, and on hand-picked heavy cases."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.combat import CombatAnalysis
from app.engine.distributions import convolve_weights, power_weights
from app.engine.errors import ProfileError
from app.engine.wh40k10e import analyze
from app.engine.wh40k10e.exact import MAX_EXACT_DIGITS
from app.engine.wh40k10e.profiles import CombatRequest, request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import mixed_unit, weapon

ABILITIES = [
    "Lethal Hits",
    "Sustained Hits 1",
    "Sustained Hits D3",
    "Devastating Wounds",
    "Twin-linked",
    "Precision",
    "Anti-Infantry 4+",
    "Melta 1",
]


def same(req: CombatRequest) -> None:
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages
    for g_new, g_old in zip(_groups(new), _groups(old), strict=True):
        assert g_new["models_destroyed"] == g_old["models_destroyed"]


def _groups(a: CombatAnalysis) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], a.extra["groups"])


@st.composite
def medium_request(draw: st.DrawFn) -> dict[str, Any]:
    weapons = []
    for _ in range(draw(st.integers(1, 2))):
        abilities = draw(st.lists(st.sampled_from(ABILITIES), max_size=4, unique=True))
        if "Sustained Hits 1" in abilities and "Sustained Hits D3" in abilities:
            abilities.remove("Sustained Hits D3")
        weapons.append(
            {
                "models": draw(st.integers(1, 4)),
                "weapon": weapon(
                    attacks=draw(st.sampled_from(["1", "2", "D3", "D6"])),
                    skill=draw(st.integers(2, 5)),
                    strength=draw(st.integers(3, 9)),
                    ap=draw(st.integers(-3, 0)),
                    damage=draw(st.sampled_from(["1", "2", "D3", "D6", "D3+1"])),
                    abilities=abilities,
                ),
            }
        )
    fnp = draw(st.sampled_from([None, 5, 6]))
    groups: list[dict[str, Any]] = []
    if draw(st.booleans()):
        groups.append(
            {
                "name": "sgt",
                "models": 1,
                "wounds": draw(st.integers(1, 3)),
                "save": 3,
                "feel_no_pain": draw(st.sampled_from([fnp, fnp, 4])),
            }
        )
    if draw(st.booleans()):
        groups.append(
            {
                "name": "hero",
                "models": 1,
                "wounds": draw(st.integers(2, 5)),
                "save": 2,
                "invulnerable_save": 4,
                "feel_no_pain": fnp,
                "keywords": ["Character"],
            }
        )
    return {
        "attacks": weapons,
        "target": {
            "models": draw(st.integers(1, 5)),
            "toughness": draw(st.integers(3, 8)),
            "save": draw(st.integers(2, 6)),
            "wounds": draw(st.integers(1, 3)),
            "feel_no_pain": fnp,
            "keywords": ["Infantry"],
            "groups": groups,
        },
        "situation": {"half_range": draw(st.booleans()), "reroll_hits": "ones"},
    }


@settings(max_examples=40, deadline=None)
@given(medium_request())
def test_identical_to_the_plain_engine_on_random_profiles(raw: dict[str, Any]) -> None:
    same(request_from_dict(raw))


ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]
HEAVY = {
    "8 x D6 every ability vs 8 x W3 FNP 5+": {
        "attacks": [{"models": 8, "weapon": weapon(attacks="D6", damage="D3", abilities=ALL)}],
        "target": {"models": 8, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "10 x D6+3 vs a 30-wound model": {
        "attacks": [
            {
                "models": 10,
                "weapon": weapon(
                    attacks="D6+3",
                    strength=6,
                    ap=-2,
                    damage="D6+1",
                    abilities=["Sustained Hits 1", "Lethal Hits"],
                ),
            }
        ],
        "target": {
            "models": 1,
            "toughness": 11,
            "save": 3,
            "wounds": 30,
            "invulnerable_save": 5,
            "feel_no_pain": 6,
        },
    },
    "mixed groups, two weapons, Precision": {
        "attacks": [
            {
                "models": 5,
                "weapon": weapon(
                    attacks="D6", damage="2", abilities=["Precision", "Devastating Wounds"]
                ),
            },
            {"models": 5, "weapon": weapon(attacks="3", damage="D3", abilities=["Lethal Hits"])},
        ],
        "target": mixed_unit(5, wounds=2, save=3, feel_no_pain=6),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_cases_identical_to_the_plain_engine(name: str) -> None:
    same(request_from_dict(HEAVY[name]))


# Issue 18's scope with Rapid Fire and Blast: 30 models of D6+3 attacks with Rapid Fire 2 at
# half range (30 x 11 = 330 attacks) or Blast into 30 models (30 x 15 = 450), refused before by
# a fixed cap of 300 attacks per entry; damage 1 or D3 so that the plain engine finishes.
_THIRTY_W1 = {"models": 30, "toughness": 4, "save": 4, "wounds": 1, "feel_no_pain": 5}
_RF2 = weapon(attacks="D6+3", abilities=[*ALL, "Rapid Fire 2"])
_BLAST = weapon(name="h", attacks="D6+3", abilities=[*ALL, "Blast"])
RAPID_FIRE_AND_BLAST: dict[str, tuple[dict[str, Any], int]] = {
    "Rapid Fire 2 at half range, 30 x D6+3 into 30 x W1": (
        {
            "attacks": [{"models": 30, "weapon": _RF2}],
            "target": _THIRTY_W1,
            "situation": {"half_range": True},
        },
        330,
    ),
    "Blast into 30 models, 30 x D6+3 into 30 x W1": (
        {"attacks": [{"models": 30, "weapon": _BLAST}], "target": _THIRTY_W1},
        450,
    ),
    "both weapons, 780 attacks in all": (
        {
            "attacks": [
                {
                    "models": 30,
                    "weapon": weapon(
                        attacks="D6+3", abilities=["Rapid Fire 2", "Sustained Hits 1"]
                    ),
                },
                {"models": 30, "weapon": weapon(name="h", attacks="D6+3", abilities=["Blast"])},
            ],
            "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 1},
            "situation": {"half_range": True},
        },
        780,
    ),
}


@pytest.mark.parametrize("name", list(RAPID_FIRE_AND_BLAST))
def test_rapid_fire_and_blast_at_the_issue_scope(name: str) -> None:
    raw, attacks = RAPID_FIRE_AND_BLAST[name]
    req = request_from_dict(raw)
    same(req)
    assert analyze(req).stages["attacks"].max == attacks


@pytest.mark.slow
def test_blast_into_30_models_of_two_wounds_identical_to_the_plain_engine() -> None:
    # damage D3 into 30 x W2 with Feel No Pain (the plain engine: about 6 s)
    raw = {
        "attacks": [{"models": 30, "weapon": {**_BLAST, "damage": "D3"}}],
        "target": {**_THIRTY_W1, "wounds": 2},
    }
    same(request_from_dict(raw))


def test_the_issue_attack_is_answered() -> None:
    # issue 18: 20 x D6 attacks, every ability, D3 vs 20 x W3 with FNP: refused before
    raw = {
        "attacks": [{"models": 20, "weapon": weapon(attacks="D6", damage="D3", abilities=ALL)}],
        "target": {"models": 20, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    }
    a = analyze(request_from_dict(raw))
    assert sum(p for _, p in a.damage.items()) == 1
    assert a.damage.max == 60


def test_power_weights_is_repeated_convolution() -> None:
    rng = random.Random(18)
    for _ in range(300):
        a = [rng.randint(0, 5) for _ in range(rng.randint(1, 5))]
        if not any(a):
            continue
        n = rng.randint(0, 8)
        ref = [1]
        for _ in range(n):
            ref = convolve_weights(ref, a)
        cut = rng.choice([None, 1, 3, 8])
        want = ref if cut is None else ref[:cut]
        got = power_weights(a, n, cut)
        assert got + [0] * (len(want) - len(got)) == want + [0] * (len(got) - len(want))


def _one_big_model(attacks: str) -> CombatRequest:
    abilities = ["Sustained Hits 1", "Lethal Hits"]
    profile = weapon(attacks=attacks, strength=6, ap=-2, damage="D6+1", abilities=abilities)
    return request_from_dict(
        {
            "attacks": [{"models": 30, "weapon": profile}],
            "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
        }
    )


def test_exact_fractions_stay_printable() -> None:
    # 30 x D6+3 attacks: about 4,300 dice; every probability is a fraction of up to 3,819
    # digits, under the bound (and under CPython's 4,300-digit guard on printing integers)
    a = analyze(_one_big_model("D6+3"))
    limit = 10**MAX_EXACT_DIGITS
    assert a.damage.total < limit
    assert all(d.total < limit for d in a.stages.values())
    # 30 x D6+4: the fractions would pass 4,000 digits: refused, before the chain runs
    with pytest.raises(ProfileError, match="more than 4,000 digits") as err:
        analyze(_one_big_model("D6+4"))
    assert err.value.field == "attacks"
