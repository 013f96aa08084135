"""The packed ``(r, e)`` chain for a target of identical models (issue 18) against the
general chain (itself checked against the plain engine) and the plain engine: identical
distributions on random profiles up to the issue's sizes, and the issue's heavy attacks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.combat import CombatAnalysis
from app.engine.wh40k10e import analyze, exact
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import weapon

ABILITIES = [
    "Lethal Hits",
    "Sustained Hits 1",
    "Sustained Hits D3",
    "Devastating Wounds",
    "Twin-linked",
    "Anti-Infantry 4+",
    "Melta 2",
]
ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def general(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> CombatAnalysis:
    """The same request through the general chain (:class:`exact._Chain`)."""
    with monkeypatch.context() as m:
        m.setattr(exact._LineChain, "applies", staticmethod(lambda layout: False))
        m.setattr(exact, "WORK_BUDGET", 10**12)
        return analyze(request_from_dict(raw))


def assert_same(a: CombatAnalysis, b: CombatAnalysis) -> None:
    assert a.damage == b.damage
    assert a.models_destroyed == b.models_destroyed
    assert a.wipe_probability == b.wipe_probability
    assert a.stages == b.stages
    assert a.extra == b.extra


@st.composite
def line_request(draw: st.DrawFn) -> dict[str, Any]:
    weapons = []
    for _ in range(draw(st.integers(1, 3))):
        abilities = draw(st.lists(st.sampled_from(ABILITIES), max_size=4, unique=True))
        if "Sustained Hits 1" in abilities and "Sustained Hits D3" in abilities:
            abilities.remove("Sustained Hits D3")
        weapons.append(
            {
                "models": draw(st.integers(1, 6)),
                "weapon": weapon(
                    attacks=draw(st.sampled_from(["1", "2", "D3", "D6", "D3+1"])),
                    skill=draw(st.integers(2, 5)),
                    strength=draw(st.integers(3, 10)),
                    ap=draw(st.integers(-3, 0)),
                    damage=draw(st.sampled_from(["1", "2", "D3", "D6", "D3+1", "D6+1"])),
                    abilities=abilities,
                ),
            }
        )
    single = draw(st.booleans())
    models = 1 if single else draw(st.integers(2, 8))
    wounds = draw(st.integers(1, 16)) if single else draw(st.integers(1, 4))
    save = draw(st.integers(2, 7))
    inv = draw(st.sampled_from([None, 4, 5]))
    fnp = draw(st.sampled_from([None, 5, 6]))
    groups = []
    if not single and draw(st.booleans()):  # a sergeant alike: a group of the same line
        groups.append(
            {
                "name": "sgt",
                "models": 1,
                "wounds": wounds,
                "save": save,
                "invulnerable_save": inv,
                "feel_no_pain": fnp,
            }
        )
    return {
        "attacks": weapons,
        "target": {
            "models": models,
            "toughness": draw(st.integers(3, 10)),
            "save": save,
            "invulnerable_save": inv,
            "wounds": wounds,
            "feel_no_pain": fnp,
            "keywords": ["Infantry"],
            "groups": groups,
        },
        "situation": {"half_range": draw(st.booleans()), "reroll_wounds": "ones"},
    }


@settings(max_examples=60, deadline=None)
@given(line_request())
def test_identical_to_the_plain_engine_on_random_lines(raw: dict[str, Any]) -> None:
    req = request_from_dict(raw)
    assert exact._LineChain.applies(Layout(req.target))
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages


def test_the_line_chain_is_used_only_for_identical_models() -> None:
    def layout(**target: Any) -> Layout:
        raw = {"attacks": [{"models": 1, "weapon": weapon()}], "target": target}
        return Layout(request_from_dict(raw).target)

    base = {"models": 5, "toughness": 4, "save": 3, "wounds": 2}
    assert exact._LineChain.applies(layout(**base))
    same_sgt = {"name": "sgt", "models": 1, "wounds": 2, "save": 3}
    assert exact._LineChain.applies(layout(**base, groups=[same_sgt]))
    assert not exact._LineChain.applies(layout(**base, groups=[{**same_sgt, "save": 2}]))
    hero = {**same_sgt, "name": "hero", "keywords": ["Character"]}
    assert not exact._LineChain.applies(layout(**base, groups=[hero]))


HEAVY = {
    "the issue's attack: 20 x D6 every ability, D3 vs 20 x W3 FNP 5+": {
        "attacks": [{"models": 20, "weapon": weapon(attacks="D6", damage="D3", abilities=ALL)}],
        "target": {"models": 20, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "two weapons, 10 x D6+3 DW D6+1 then 10 x 2 D2, vs 10 x W3 FNP 5+": {
        "attacks": [
            {"models": 10, "weapon": weapon(attacks="D6+3", damage="D6+1", abilities=ALL)},
            {"models": 10, "weapon": weapon(attacks="2", damage="2", ap=-1)},
        ],
        "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "12 x D6 DW D3 vs one W24 model, invulnerable 4+": {
        "attacks": [
            {
                "models": 12,
                "weapon": weapon(attacks="D6", damage="D3", strength=8, abilities=ALL),
            }
        ],
        "target": {
            "models": 1,
            "toughness": 10,
            "save": 2,
            "invulnerable_save": 4,
            "wounds": 24,
            "feel_no_pain": 6,
        },
    },
    "30 x D3 Melta D6 vs 30 x W1": {
        "attacks": [
            {
                "models": 30,
                "weapon": weapon(attacks="D3", damage="D6", abilities=["Melta 2", *ALL]),
            }
        ],
        "target": {"models": 30, "toughness": 4, "save": 5, "wounds": 1},
        "situation": {"half_range": True},
    },
}


@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_lines_identical_to_the_general_chain(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = HEAVY[name]
    used: list[int] = []
    original = exact._LineChain.apply_weapon

    def spy(self: exact._LineChain, *args: Any, **kwargs: Any) -> None:
        used.append(1)
        original(self, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(exact._LineChain, "apply_weapon", spy)
        line = analyze(request_from_dict(raw))
    assert len(used) == len(raw["attacks"])
    assert_same(line, general(raw, monkeypatch))


def test_thirty_d6_plus_3_with_devastating_wounds_into_a_30_wound_model() -> None:
    # issue 18: refused before ("too many outcomes"); every ability, D6+1 damage
    raw = {
        "attacks": [
            {
                "models": 30,
                "weapon": weapon(attacks="D6+3", strength=6, ap=-2, damage="D6+1", abilities=ALL),
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    }
    a = analyze(request_from_dict(raw))
    assert sum(p for _, p in a.damage.items()) == 1
    assert a.damage.max == 30
    assert a.wipe_probability == a.damage.prob(30) == a.models_destroyed.prob(1)
    # the mean from the stages: each unsaved wound and each mortal wound is at most 7
    assert 0 < a.damage.mean() < 30


@pytest.mark.parametrize(("wounds", "damage"), [(3, "D6+1"), (3, "D6+3"), (4, "D6+1"), (6, "D3")])
def test_thirty_d6_plus_3_with_every_ability_into_thirty_models(wounds: int, damage: str) -> None:
    # issue 18: 30 x D6+3 attacks, Sustained Hits 1, Lethal Hits, Devastating Wounds, into 30
    # models with Feel No Pain: refused before; the W3 / D6+1 one was checked identical to the
    # plain engine once (26 s there, about 0.13 s here)
    raw = {
        "attacks": [{"models": 30, "weapon": weapon(attacks="D6+3", damage=damage, abilities=ALL)}],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": wounds, "feel_no_pain": 5},
    }
    a = analyze(request_from_dict(raw))
    assert sum(p for _, p in a.damage.items()) == 1
    assert sum(p for _, p in a.models_destroyed.items()) == 1
    assert a.damage.max == 30 * wounds
    assert a.wipe_probability == a.damage.prob(30 * wounds) == a.models_destroyed.prob(30)
    # every model destroyed is ``wounds`` wounds lost: the two distributions agree on it
    assert all(a.damage.p_at_least(n * wounds) >= a.models_destroyed.p_at_least(n) for n in (1, 15))
